/* The coordinator's registry of agents: who joined, when each was last heard, clock offset, state.
 */
#include "registry.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "selector.h"
#include "util.h"

#define REGISTRY_FORGET_NS (3600 * (int64_t)NSEC_PER_SEC)

struct registry {
        agent_t **agents;
        size_t n, cap;
};

int registry_new(registry_t **ret)
{
        registry_t *r = calloc(1, sizeof(*r));
        if (!r)
                return -ENOMEM;
        *ret = r;
        return 0;
}

static void agent_free(agent_t *a)
{
        strv_clear(&a->roles);
        strv_clear(&a->labels);
        strv_clear(&a->engines);
        free(a);
}

void registry_free(registry_t **rp)
{
        registry_t *r = *rp;
        if (!r)
                return;
        for (size_t i = 0; i < r->n; i++)
                agent_free(r->agents[i]);
        free(r->agents);
        free(r);
        *rp = NULL;
}

agent_t *registry_find(registry_t *reg, const char *id)
{
        for (size_t i = 0; i < reg->n; i++)
                if (streq(reg->agents[i]->id, id))
                        return reg->agents[i];
        return NULL;
}

agent_t *registry_find_peer(registry_t *reg, const char *peer)
{
        for (size_t i = 0; i < reg->n; i++)
                if (streq(reg->agents[i]->peer, peer))
                        return reg->agents[i];
        return NULL;
}

size_t registry_count(const registry_t *reg)
{
        return reg->n;
}

agent_t *registry_at(registry_t *reg, size_t i)
{
        return i < reg->n ? reg->agents[i] : NULL;
}

int registry_hello(registry_t *reg, const char *peer, const Iofleet__Hello *h, const char *key_name,
                   int64_t now, agent_t **ret, char *err, size_t errlen)
{
        agent_t *a;
        int r = 0;

        for (size_t i = 0; i < reg->n; i++) {
                agent_t *o = reg->agents[i];
                if (streq(o->name, h->name) && !streq(o->id, h->agent_id) &&
                    o->state != AGENT_LOST) {
                        snprintf(err, errlen,
                                 "name '%s' is already used by agent %s on %s; give each agent "
                                 "its own name= in its config",
                                 h->name, o->id, o->hostname);
                        return -EEXIST;
                }
        }
        a = registry_find(reg, h->agent_id);
        /* An agent id belongs to the key it first came with, while that agent lives: another
         * allowed key cannot take over its session (a cloned state directory, or worse). */
        if (a && a->state != AGENT_LOST && !streq(a->key_name, key_name ? key_name : "")) {
                snprintf(err, errlen,
                         "agent id %s is in use by a live agent with key '%s', not '%s'; give "
                         "each host its own state directory",
                         h->agent_id, a->key_name, key_name ? key_name : "");
                return -EPERM;
        }
        if (!a) {
                agent_t **n;
                if (reg->n == reg->cap) {
                        size_t cap = reg->cap ? reg->cap * 2 : 16;
                        if (!(n = realloc(reg->agents, cap * sizeof(*n))))
                                return -ENOMEM;
                        reg->agents = n;
                        reg->cap = cap;
                }
                if (!(a = calloc(1, sizeof(*a))))
                        return -ENOMEM;
                snprintf(a->id, sizeof(a->id), "%s", h->agent_id);
                reg->agents[reg->n++] = a;
        }
        snprintf(a->peer, sizeof(a->peer), "%s", peer);
        snprintf(a->name, sizeof(a->name), "%s", h->name);
        snprintf(a->hostname, sizeof(a->hostname), "%s", h->hostname);
        snprintf(a->boot_id, sizeof(a->boot_id), "%s", h->boot_id);
        snprintf(a->version, sizeof(a->version), "%s", h->version);
        snprintf(a->key_name, sizeof(a->key_name), "%s", key_name ? key_name : "");
        strv_clear(&a->roles);
        strv_clear(&a->labels);
        strv_clear(&a->engines);
        for (size_t i = 0; r == 0 && i < h->n_roles; i++)
                r = strv_push(&a->roles, h->roles[i]);
        for (size_t i = 0; r == 0 && i < h->n_engines; i++)
                r = strv_push(&a->engines, h->engines[i]);
        for (size_t i = 0; r == 0 && i < h->n_labels; i++) {
                char kv[WIRE_MAX_NAME + WIRE_MAX_LABEL_VALUE + 2];
                snprintf(kv, sizeof(kv), "%s=%s", h->labels[i]->key, h->labels[i]->value);
                r = strv_push(&a->labels, kv);
        }
        if (r < 0)
                return r;
        a->joined_ns = now;
        a->last_seen_ns = now;
        a->have_offset = false;
        a->state = AGENT_IDLE;
        a->seq_in = 0;
        *ret = a;
        return 0;
}

void registry_expire(registry_t *reg, int64_t now, int64_t lease_ns,
                     void (*lost)(agent_t *a, void *userdata), void *userdata)
{
        for (size_t i = 0; i < reg->n; i++) {
                agent_t *a = reg->agents[i];
                /* Lost agents stay listed for a while so people see they went away; agents whose
                 * state was wiped come back under new ids, so the old entries must go. */
                if (a->state == AGENT_LOST && now - a->last_seen_ns > REGISTRY_FORGET_NS) {
                        agent_free(a);
                        reg->agents[i--] = reg->agents[--reg->n];
                        continue;
                }
                if (a->state != AGENT_LOST && now - a->last_seen_ns > lease_ns) {
                        a->state = AGENT_LOST;
                        if (lost)
                                lost(a, userdata);
                }
        }
}

static int by_name(const void *x, const void *y)
{
        const agent_t *a = *(agent_t *const *)x, *b = *(agent_t *const *)y;
        int c = strcmp(a->name, b->name);
        return c ? c : strcmp(a->id, b->id);
}

int registry_select(registry_t *reg, const char *selector, agent_t ***ret, size_t *n)
{
        agent_t **v = calloc(reg->n ? reg->n : 1, sizeof(*v));
        size_t k = 0;
        if (!v)
                return -ENOMEM;
        for (size_t i = 0; i < reg->n; i++) {
                agent_t *a = reg->agents[i];
                selector_subject_t s = {a->name, a->hostname, &a->roles, &a->labels};
                if (a->state != AGENT_LOST && selector_match(selector, &s))
                        v[k++] = a;
        }
        qsort(v, k, sizeof(*v), by_name);
        *ret = v;
        *n = k;
        return 0;
}

const char *agent_state_to_string(agent_state_t s)
{
        switch (s) {
        case AGENT_IDLE:
                return "idle";
        case AGENT_BUSY:
                return "busy";
        case AGENT_LOST:
                return "lost";
        }
        return "?";
}
