/* A hash map from strings (agent ids, connection ids) to pointers; keys are borrowed, not copied.
 */
#include "idmap.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Open addressing with linear probing, at most half full, so that a miss ends after a slot or
 * two; removal shifts the rest of the cluster back, so there are no tombstones to pile up. */
#define IDMAP_MIN_SLOTS 16

typedef struct slot {
        const char *key; /* NULL: empty */
        void *value;
        uint64_t hash;
} slot_t;

struct idmap {
        slot_t *slots;
        size_t mask; /* number of slots - 1, a power of two minus one */
        size_t n;
};

/* FNV-1a, then a 64-bit finaliser so that the low bits, which pick the slot, depend on every
 * byte of ids that differ only in their last characters. */
static uint64_t hash_str(const char *s)
{
        uint64_t h = 0xcbf29ce484222325ULL;
        for (; *s; s++) {
                h ^= (unsigned char)*s;
                h *= 0x100000001b3ULL;
        }
        h ^= h >> 33;
        h *= 0xff51afd7ed558ccdULL;
        h ^= h >> 33;
        h *= 0xc4ceb9fe1a85ec53ULL;
        h ^= h >> 33;
        return h;
}

int idmap_new(idmap_t **ret)
{
        idmap_t *m = calloc(1, sizeof(*m));
        if (!m)
                return -ENOMEM;
        m->slots = calloc(IDMAP_MIN_SLOTS, sizeof(*m->slots));
        if (!m->slots) {
                free(m);
                return -ENOMEM;
        }
        m->mask = IDMAP_MIN_SLOTS - 1;
        *ret = m;
        return 0;
}

void idmap_free(idmap_t **mp)
{
        idmap_t *m = *mp;
        if (!m)
                return;
        free(m->slots);
        free(m);
        *mp = NULL;
}

/* The slot holding key, or the empty slot where it would go. */
static size_t find_slot(const idmap_t *m, const char *key, uint64_t h)
{
        size_t i = h & m->mask;
        while (m->slots[i].key && (m->slots[i].hash != h || strcmp(m->slots[i].key, key) != 0))
                i = (i + 1) & m->mask;
        return i;
}

void *idmap_get(const idmap_t *m, const char *key)
{
        size_t i = find_slot(m, key, hash_str(key));
        return m->slots[i].key ? m->slots[i].value : NULL;
}

static int grow(idmap_t *m)
{
        size_t n_old = m->mask + 1, n_new = n_old * 2;
        slot_t *old = m->slots, *s;
        if (n_new < n_old || n_new > SIZE_MAX / sizeof(*s))
                return -ENOMEM;
        if (!(s = calloc(n_new, sizeof(*s))))
                return -ENOMEM;
        m->slots = s;
        m->mask = n_new - 1;
        for (size_t i = 0; i < n_old; i++)
                if (old[i].key)
                        m->slots[find_slot(m, old[i].key, old[i].hash)] = old[i];
        free(old);
        return 0;
}

static int insert(idmap_t *m, const char *key, void *value, bool replace)
{
        uint64_t h = hash_str(key);
        size_t i = find_slot(m, key, h);
        if (m->slots[i].key) {
                if (!replace)
                        return -EEXIST;
                m->slots[i].key = key;
                m->slots[i].value = value;
                return 0;
        }
        if ((m->n + 1) * 2 > m->mask + 1) {
                int r = grow(m);
                if (r < 0)
                        return r;
                i = find_slot(m, key, h);
        }
        m->slots[i] = (slot_t){key, value, h};
        m->n++;
        return 0;
}

int idmap_put(idmap_t *m, const char *key, void *value)
{
        return insert(m, key, value, false);
}

int idmap_set(idmap_t *m, const char *key, void *value)
{
        return insert(m, key, value, true);
}

void *idmap_remove(idmap_t *m, const char *key)
{
        size_t i = find_slot(m, key, hash_str(key)), j = i;
        void *value = m->slots[i].value;

        if (!m->slots[i].key)
                return NULL;
        /* Entries after the hole that would no longer be reachable from their home slot move
         * into it; an entry whose home lies cyclically in (hole, its slot] stays. */
        for (;;) {
                size_t home;
                j = (j + 1) & m->mask;
                if (!m->slots[j].key)
                        break;
                home = m->slots[j].hash & m->mask;
                if (((j - home) & m->mask) < ((j - i) & m->mask))
                        continue;
                m->slots[i] = m->slots[j];
                i = j;
        }
        m->slots[i] = (slot_t){NULL, NULL, 0};
        m->n--;
        return value;
}

size_t idmap_count(const idmap_t *m)
{
        return m->n;
}
