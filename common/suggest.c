/* "Did you mean": the known name nearest to a mistyped one (edit distance, or a prefix). */
#include "suggest.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* Levenshtein distance; names are short, longer ones are not compared. */
static size_t edit_distance(const char *a, const char *b)
{
        size_t la = strlen(a), lb = strlen(b), prev[33], cur[33];

        if (la > 32 || lb > 32)
                return SIZE_MAX;
        for (size_t j = 0; j <= lb; j++)
                prev[j] = j;
        for (size_t i = 1; i <= la; i++) {
                cur[0] = i;
                for (size_t j = 1; j <= lb; j++) {
                        size_t sub = prev[j - 1] + (a[i - 1] != b[j - 1]);
                        size_t del = prev[j] + 1, ins = cur[j - 1] + 1;
                        cur[j] = sub < del ? (sub < ins ? sub : ins) : (del < ins ? del : ins);
                }
                memcpy(prev, cur, sizeof(size_t) * (lb + 1));
        }
        return prev[lb];
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
