/* Which agent id each agent key stands for: the binding that keeps one key from taking over
 * another key's agent, kept in a file of the coordinator's state directory. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

typedef struct idbind idbind_t;

int idbind_new(idbind_t **ret);
void idbind_free(idbind_t **bp);

/* Replaces the bindings with those of path ("KEY ID" lines, # comments); a missing file gives
 * none. -EINVAL with err naming the file and line when it is malformed (nothing changes). */
int idbind_load(idbind_t *b, const char *path, char *err, size_t errlen);
/* Writes the bindings to path atomically (beside it, synced, renamed) and clears the dirty mark.
 */
int idbind_save(idbind_t *b, const char *path, char *err, size_t errlen);

/* The id key stands for, or NULL. */
const char *idbind_id_of(const idbind_t *b, const char *key);
/* The key id is bound to, or NULL. */
const char *idbind_key_of(const idbind_t *b, const char *id);
/* Binds key to id (and id to key), replacing what key stood for; an id bound to another key is
 * refused with -EPERM. Marks the bindings dirty when something changed. 0 or -errno. */
int idbind_set(idbind_t *b, const char *key, const char *id);
/* Forgets key's binding (marks dirty when it had one). */
void idbind_remove(idbind_t *b, const char *key);
/* Forgets the binding of every key for which keep() is false. */
void idbind_retain(idbind_t *b, bool (*keep)(const char *key, void *userdata), void *userdata);
size_t idbind_count(const idbind_t *b);
/* True when changed since the last load or save. */
bool idbind_dirty(const idbind_t *b);
