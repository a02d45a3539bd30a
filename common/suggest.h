/* "Did you mean": the known name nearest to a mistyped one (edit distance, or a prefix). */
#pragma once

#include <stddef.h>

#define SUGGEST_MAX 64

typedef struct suggest {
        const char *key; /* what the user typed; not owned */
        char best[SUGGEST_MAX];
        size_t best_d;
} suggest_t;

/* Starts a search for names near key. */
void suggest_init(suggest_t *s, const char *key);
/* Offers one known name; the nearest offered so far is kept (the first one on a tie). */
void suggest_offer(suggest_t *s, const char *name);
/* The nearest name when it is near enough to be a typo (one edit in a short key, two in a key of
 * six characters or more, or a name that starts with a key of three or more), else NULL. */
const char *suggest_result(const suggest_t *s);
