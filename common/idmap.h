/* A hash map from strings (agent ids, connection ids) to pointers; keys are borrowed, not copied.
 */
#pragma once

#include <stddef.h>

typedef struct idmap idmap_t;

/* An empty map: 0 or -ENOMEM (*ret untouched). */
int idmap_new(idmap_t **ret);
/* Frees the map (not the keys or values); NULL-safe, sets *mp = NULL. */
void idmap_free(idmap_t **mp);

/* The value stored under key, or NULL. */
void *idmap_get(const idmap_t *m, const char *key);
/* Adds key -> value. The key string is borrowed: it must stay unchanged and alive while it is
 * in the map. Returns 0, -EEXIST when key is present (nothing changes) or -ENOMEM. */
int idmap_put(idmap_t *m, const char *key, void *value);
/* Adds key -> value or, when key is present, replaces its value and borrowed key pointer with
 * these. Returns 0 or -ENOMEM (nothing changes). */
int idmap_set(idmap_t *m, const char *key, void *value);
/* Removes key; returns the value it had, or NULL when it was absent. */
void *idmap_remove(idmap_t *m, const char *key);
size_t idmap_count(const idmap_t *m);
