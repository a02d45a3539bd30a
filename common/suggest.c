/* "Did you mean": the known name nearest to a mistyped one (edit distance, or a prefix). */
#include "suggest.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* Edit distance counting a swap of two neighbours as one edit, as typing slips do ("jsno" for
 * "json"): the optimal string alignment distance. Names are short; longer ones are not compared. */
static size_t edit_distance(const char *a, const char *b)
{
        size_t la = strlen(a), lb = strlen(b), d[33][33];

        if (la > 32 || lb > 32)
                return SIZE_MAX;
        for (size_t i = 0; i <= la; i++)
                d[i][0] = i;
        for (size_t j = 0; j <= lb; j++)
                d[0][j] = j;
        for (size_t i = 1; i <= la; i++)
                for (size_t j = 1; j <= lb; j++) {
                        size_t sub = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
                        size_t del = d[i - 1][j] + 1, ins = d[i][j - 1] + 1;
                        size_t best = sub < del ? (sub < ins ? sub : ins) : (del < ins ? del : ins);
                        if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
                            d[i - 2][j - 2] + 1 < best)
                                best = d[i - 2][j - 2] + 1;
                        d[i][j] = best;
                }
        return d[la][lb];
}

void suggest_init(suggest_t *s, const char *key)
{
        s->key = key;
        s->best[0] = 0;
        s->best_d = SIZE_MAX;
}

void suggest_offer(suggest_t *s, const char *name)
{
        const char *k = s->key, *n = name;
        size_t lk = strlen(k), ln = strlen(n), d;

        if (lk >= 3 && ln > lk && strncmp(n, k, lk) == 0)
                d = 1; /* "--loc" for "--local": as near as one typo */
        else if ((lk > ln ? lk - ln : ln - lk) > 2)
                return; /* at least that many edits: never suggested */
        else
                d = edit_distance(k, n);
        if (d < s->best_d) {
                s->best_d = d;
                snprintf(s->best, sizeof(s->best), "%s", name);
        }
}

const char *suggest_result(const suggest_t *s)
{
        size_t lk = strlen(s->key);
        if (!s->best[0] || s->best_d == 0)
                return NULL;
        return s->best_d <= (lk >= 6 ? 2u : 1u) ? s->best : NULL;
}
