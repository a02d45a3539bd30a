/* Which agent id each agent key stands for: the binding that keeps one key from taking over
 * another key's agent, kept in a file of the coordinator's state directory. */
#include "idbind.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "idmap.h"
#include "util.h"
#include "wire.h"

typedef struct binding {
        char key[WIRE_MAX_NAME + 1];
        char id[WIRE_MAX_ID + 1];
} binding_t;

struct idbind {
        binding_t **v;
        size_t n, cap;
        idmap_t *by_key, *by_id;
        bool dirty;
};

int idbind_new(idbind_t **ret)
{
        idbind_t *b = calloc(1, sizeof(*b));
        if (!b)
                return -ENOMEM;
        if (idmap_new(&b->by_key) < 0 || idmap_new(&b->by_id) < 0) {
                idbind_free(&b);
                return -ENOMEM;
        }
        *ret = b;
        return 0;
}

static void clear(idbind_t *b)
{
        for (size_t i = 0; i < b->n; i++) {
                idmap_remove(b->by_key, b->v[i]->key);
                idmap_remove(b->by_id, b->v[i]->id);
                free(b->v[i]);
        }
        b->n = 0;
}

void idbind_free(idbind_t **bp)
{
        idbind_t *b = *bp;
        if (!b)
                return;
        if (b->by_key && b->by_id)
                clear(b);
        free(b->v);
        idmap_free(&b->by_key);
        idmap_free(&b->by_id);
        free(b);
        *bp = NULL;
}

const char *idbind_id_of(const idbind_t *b, const char *key)
{
        binding_t *x = idmap_get(b->by_key, key);
        return x ? x->id : NULL;
}

const char *idbind_key_of(const idbind_t *b, const char *id)
{
        binding_t *x = idmap_get(b->by_id, id);
        return x ? x->key : NULL;
}

static void remove_at(idbind_t *b, size_t i)
{
        binding_t *x = b->v[i];
        idmap_remove(b->by_key, x->key);
        idmap_remove(b->by_id, x->id);
        free(x);
        b->v[i] = b->v[--b->n];
        b->dirty = true;
}

void idbind_remove(idbind_t *b, const char *key)
{
        for (size_t i = 0; i < b->n; i++)
                if (streq(b->v[i]->key, key)) {
                        remove_at(b, i);
                        return;
                }
}

void idbind_retain(idbind_t *b, bool (*keep)(const char *key, void *userdata), void *userdata)
{
        for (size_t i = 0; i < b->n;)
                if (keep(b->v[i]->key, userdata))
                        i++;
                else
                        remove_at(b, i);
}

int idbind_set(idbind_t *b, const char *key, const char *id)
{
        binding_t *x = idmap_get(b->by_key, key), *other = idmap_get(b->by_id, id);

        if (strempty(key) || strempty(id) || strlen(key) > WIRE_MAX_NAME || strlen(id) > WIRE_MAX_ID)
                return -EINVAL;
        if (other && other != x)
                return -EPERM;
        if (x) {
                if (streq(x->id, id))
                        return 0;
                /* The key moves to another id (its agent's state was wiped): the old id is free. */
                idmap_remove(b->by_id, x->id);
                snprintf(x->id, sizeof(x->id), "%s", id);
                if (idmap_put(b->by_id, x->id, x) < 0) {
                        idbind_remove(b, key);
                        return -ENOMEM;
                }
                b->dirty = true;
                return 0;
        }
        if (b->n == b->cap) {
                size_t cap = b->cap ? b->cap * 2 : 16;
                binding_t **v = realloc(b->v, cap * sizeof(*v));
                if (!v)
                        return -ENOMEM;
                b->v = v;
                b->cap = cap;
        }
        if (!(x = calloc(1, sizeof(*x))))
                return -ENOMEM;
        snprintf(x->key, sizeof(x->key), "%s", key);
        snprintf(x->id, sizeof(x->id), "%s", id);
        if (idmap_put(b->by_key, x->key, x) < 0) {
                free(x);
                return -ENOMEM;
        }
        if (idmap_put(b->by_id, x->id, x) < 0) {
                idmap_remove(b->by_key, x->key);
                free(x);
                return -ENOMEM;
        }
        b->v[b->n++] = x;
        b->dirty = true;
        return 0;
}

size_t idbind_count(const idbind_t *b)
{
        return b->n;
}

bool idbind_dirty(const idbind_t *b)
{
        return b->dirty;
}

/* Keys and ids are single words of printable characters. */
static bool word_ok(const char *s, size_t max)
{
        size_t n = strlen(s);
        if (n == 0 || n > max)
                return false;
        for (; *s; s++)
                if ((unsigned char)*s <= ' ' || *s == 0x7f)
                        return false;
        return true;
}

int idbind_load(idbind_t *b, const char *path, char *err, size_t errlen)
{
        idbind_t *nb = NULL;
        FILE *f = fopen(path, "re");
        char line[512];
        int lineno = 0, r = 0;

        if (!f && errno != ENOENT)
                return errorf(err, errlen, -errno, "%s: %s", path, strerror(errno));
        if ((r = idbind_new(&nb)) < 0) {
                if (f)
                        fclose(f);
                return r;
        }
        while (f && r == 0 && fgets(line, sizeof(line), f)) {
                char key[WIRE_MAX_NAME + 2], id[WIRE_MAX_ID + 2], extra[2];
                int k;
                lineno++;
                line[strcspn(line, "\n")] = 0;
                if (line[0] == '#' || line[strspn(line, " \t")] == 0)
                        continue;
                k = sscanf(line, "%65s %65s %1s", key, id, extra);
                if (k != 2 || !word_ok(key, WIRE_MAX_NAME) || !word_ok(id, WIRE_MAX_ID))
                        r = errorf(err, errlen, -EINVAL,
                                   "%s:%d: expected 'KEY-NAME AGENT-ID' (remove the file to start "
                                   "afresh: agents bind again at their next hello)",
                                   path, lineno);
                else if ((r = idbind_set(nb, key, id)) == -EPERM)
                        r = errorf(err, errlen, -EINVAL, "%s:%d: agent id %s is bound twice", path,
                                   lineno, id);
        }
        if (f)
                fclose(f);
        if (r < 0) {
                idbind_free(&nb);
                return r;
        }
        /* Swapped in whole: a bad file changes nothing. */
        clear(b);
        for (size_t i = 0; r == 0 && i < nb->n; i++)
                r = idbind_set(b, nb->v[i]->key, nb->v[i]->id);
        idbind_free(&nb);
        b->dirty = false;
        return r;
}

int idbind_save(idbind_t *b, const char *path, char *err, size_t errlen)
{
        size_t cap = 256 + b->n * (WIRE_MAX_NAME + WIRE_MAX_ID + 2), len;
        char *text = malloc(cap);
        int r;

        if (!text)
                return -ENOMEM;
        len = (size_t)snprintf(text, cap,
                               "# iofleet coordinator: the agent id each agent key stands for "
                               "(KEY-NAME AGENT-ID).\n# Written by the coordinator; a key of "
                               "agent_keys_dir that is removed loses its line at SIGHUP.\n");
        for (size_t i = 0; i < b->n; i++)
                len += (size_t)snprintf(text + len, cap - len, "%s %s\n", b->v[i]->key,
                                        b->v[i]->id);
        r = write_file_atomic(path, text, len, 0600);
        free(text);
        if (r < 0)
                return errorf(err, errlen, r, "%s: %s", path, strerror(-r));
        b->dirty = false;
        return 0;
}
