/* Ordered key=value lists: a plan section's settings, a host's effective settings. */
#pragma once

#include <stddef.h>

typedef struct kv {
        char *key;
        char *value;
        int line; /* where it came from in a plan file, 0 when unknown */
} kv_t;

typedef struct kvlist {
        kv_t *v;
        size_t n;
} kvlist_t;

/* Appends a copy of key and value (value NULL means ""); 0 or -ENOMEM. */
int kv_push(kvlist_t *l, const char *key, const char *value, int line);
/* Sets key (replacing its last value, or appending); 0 or -ENOMEM. */
int kv_set(kvlist_t *l, const char *key, const char *value);
/* The value of the last entry named key, or NULL. */
const char *kv_get(const kvlist_t *l, const char *key);
/* Frees every entry; the list is empty and reusable afterwards. NULL-safe. */
void kv_clear(kvlist_t *l);
