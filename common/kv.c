/* Ordered key=value lists. */
#include "kv.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int kv_push(kvlist_t *l, const char *key, const char *value, int line)
{
        kv_t *v = realloc(l->v, (l->n + 1) * sizeof(*v));
        if (!v)
                return -ENOMEM;
        l->v = v;
        char *k = strdup(key), *val = strdup(value ? value : "");
        if (!k || !val) {
                free(k);
                free(val);
                return -ENOMEM;
        }
        l->v[l->n++] = (kv_t){k, val, line};
        return 0;
}

int kv_set(kvlist_t *l, const char *key, const char *value)
{
        for (size_t i = l->n; i-- > 0;)
                if (strcmp(l->v[i].key, key) == 0) {
                        char *val = strdup(value ? value : "");
                        if (!val)
                                return -ENOMEM;
                        free(l->v[i].value);
                        l->v[i].value = val;
                        return 0;
                }
        return kv_push(l, key, value, 0);
}

const char *kv_get(const kvlist_t *l, const char *key)
{
        for (size_t i = l->n; i-- > 0;)
                if (strcmp(l->v[i].key, key) == 0)
                        return l->v[i].value;
        return NULL;
}

void kv_clear(kvlist_t *l)
{
        if (!l)
                return;
        for (size_t i = 0; i < l->n; i++) {
                free(l->v[i].key);
                free(l->v[i].value);
        }
        free(l->v);
        l->v = NULL;
        l->n = 0;
}
