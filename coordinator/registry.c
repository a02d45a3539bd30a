/* The coordinator's registry of agents: who joined, when each was last heard, clock offset, state.
 */
#include "registry.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "idmap.h"
#include "selector.h"
#include "util.h"

#define REGISTRY_FORGET_NS (3600 * (int64_t)NSEC_PER_SEC)

/* An agent with the registry's links: the other agents that go by the same name. */
typedef struct entry {
        coord_agent_t a;
        struct entry *name_next;
        bool named; /* in the by_name chain of a.name */
} entry_t;

/* Every agent message is looked up by connection and every run message by id: with thousands
 * of agents these are hash lookups, not scans. */
struct registry {
        coord_agent_t **agents;
        size_t n, cap;
        idmap_t *by_id;   /* a.id -> agent */
        idmap_t *by_peer; /* connection -> the agent whose Hello came on it last */
        idmap_t *by_name; /* name -> first entry of the chain of agents with that name */
        idbind_t *bind;   /* key -> the id it stands for (borrowed; NULL: none kept) */
};

int registry_new(registry_t **ret)
{
        registry_t *r = calloc(1, sizeof(*r));
        if (!r)
                return -ENOMEM;
        if (idmap_new(&r->by_id) < 0 || idmap_new(&r->by_peer) < 0 || idmap_new(&r->by_name) < 0) {
                registry_free(&r);
                return -ENOMEM;
        }
        *ret = r;
        return 0;
}

static entry_t *entry_of(coord_agent_t *a)
{
        return (entry_t *)((char *)a - offsetof(entry_t, a));
}

static void agent_free(coord_agent_t *a)
{
        strv_clear(&a->roles);
        strv_clear(&a->labels);
        strv_clear(&a->engines);
        free(entry_of(a));
}

/* Puts e at the head of the chain of its name; the map's key is the head's own name. */
static int name_link(registry_t *reg, entry_t *e)
{
        entry_t *head = idmap_get(reg->by_name, e->a.name);
        int r = idmap_set(reg->by_name, e->a.name, e);
        if (r < 0)
                return r;
        e->name_next = head;
        e->named = true;
        return 0;
}

static void name_unlink(registry_t *reg, entry_t *e)
{
        entry_t *head = idmap_get(reg->by_name, e->a.name);
        if (!e->named)
                return;
        if (head == e) {
                /* The key moves to the next entry's copy of the name: replacing never fails. */
                if (e->name_next)
                        idmap_set(reg->by_name, e->name_next->a.name, e->name_next);
                else
                        idmap_remove(reg->by_name, e->a.name);
        } else {
                for (entry_t *p = head; p; p = p->name_next)
                        if (p->name_next == e) {
                                p->name_next = e->name_next;
                                break;
                        }
        }
        e->name_next = NULL;
        e->named = false;
}

/* Takes a out of every index, before it is freed. */
static void unindex(registry_t *reg, coord_agent_t *a)
{
        name_unlink(reg, entry_of(a));
        if (idmap_get(reg->by_peer, a->peer) == a)
                idmap_remove(reg->by_peer, a->peer);
        idmap_remove(reg->by_id, a->id);
}

void registry_free(registry_t **rp)
{
        registry_t *r = *rp;
        if (!r)
                return;
        for (size_t i = 0; i < r->n; i++)
                agent_free(r->agents[i]);
        free(r->agents);
        idmap_free(&r->by_id);
        idmap_free(&r->by_peer);
        idmap_free(&r->by_name);
        free(r);
        *rp = NULL;
}

coord_agent_t *registry_find(registry_t *reg, const char *id)
{
        return idmap_get(reg->by_id, id);
}

coord_agent_t *registry_find_peer(registry_t *reg, const char *peer)
{
        return idmap_get(reg->by_peer, peer);
}

size_t registry_count(const registry_t *reg)
{
        return reg->n;
}

coord_agent_t *registry_at(registry_t *reg, size_t i)
{
        return i < reg->n ? reg->agents[i] : NULL;
}

void registry_set_bindings(registry_t *reg, idbind_t *bind)
{
        reg->bind = bind;
}

/* Lost or gone (said goodbye): its name and key are free for another agent. */
static bool agent_away(const coord_agent_t *a)
{
        return a->state == AGENT_LOST || a->state == AGENT_GONE;
}

/* Takes the i-th agent out of the registry and frees it; the last one takes its place. */
static void forget_at(registry_t *reg, size_t i)
{
        coord_agent_t *a = reg->agents[i];
        reg->agents[i] = reg->agents[--reg->n];
        unindex(reg, a);
        agent_free(a);
}

static void forget(registry_t *reg, coord_agent_t *a)
{
        for (size_t i = 0; i < reg->n; i++)
                if (reg->agents[i] == a) {
                        forget_at(reg, i);
                        return;
                }
}

/* With CURVE, an agent is its key: the key's name is its name, its id is bound to the key for
 * good, and one key stands for one agent. Refusals tell the peer what is wrong with its own
 * hello, never another agent's id or which key holds what. *stale gets the key's lost agent
 * of another id, to be forgotten once this hello is admitted. */
static int check_keyed(registry_t *reg, const char *id, const char *key, coord_agent_t **stale,
                       char *err, size_t errlen)
{
        const char *bound = reg->bind ? idbind_key_of(reg->bind, id) : NULL;
        coord_agent_t *same = registry_find(reg, id);

        *stale = NULL;
        if ((bound && !streq(bound, key)) || (same && !streq(same->key_name, key)))
                return errorf(err, errlen, -EPERM,
                              "agent id %s belongs to another agent key: each host needs its own "
                              "state directory and its own key",
                              id);
        for (entry_t *e = idmap_get(reg->by_name, key); e; e = e->name_next) {
                coord_agent_t *o = &e->a;
                if (streq(o->id, id) || !streq(o->key_name, key))
                        continue;
                if (!agent_away(o))
                        return errorf(err, errlen, -EBUSY,
                                      "key '%s' already stands for a live agent on another "
                                      "connection: one key is one agent, give each host its own "
                                      "key (an agent whose state directory was reset is admitted "
                                      "once the old session is lost)",
                                      key);
                *stale = o;
        }
        return 0;
}

/* Without keys (insecure=true) agents go by the names they give; a live agent's name is its. */
static int check_named(registry_t *reg, const Iofleet__Hello *h, char *err, size_t errlen)
{
        for (entry_t *e = idmap_get(reg->by_name, h->name); e; e = e->name_next) {
                coord_agent_t *o = &e->a;
                if (!streq(o->id, h->agent_id) && !agent_away(o))
                        return errorf(err, errlen, -EEXIST,
                                      "name '%s' is already used by a live agent; give each agent "
                                      "its own name= in its config",
                                      h->name);
        }
        return 0;
}

int registry_hello(registry_t *reg, const char *peer, const Iofleet__Hello *h, const char *key_name,
                   int64_t now, coord_agent_t **ret, char *err, size_t errlen)
{
        bool keyed = !strempty(key_name);
        const char *name = keyed ? key_name : h->name;
        coord_agent_t *a, *stale = NULL;
        int r = keyed ? check_keyed(reg, h->agent_id, key_name, &stale, err, errlen)
                      : check_named(reg, h, err, errlen);

        if (r < 0)
                return r;
        if (keyed && reg->bind && (r = idbind_set(reg->bind, key_name, h->agent_id)) < 0)
                return errorf(err, errlen, r, "internal error: %s", strerror(-r));
        if (stale)
                forget(reg, stale);
        a = registry_find(reg, h->agent_id);
        if (!a) {
                coord_agent_t **n;
                entry_t *e;
                if (reg->n == reg->cap) {
                        size_t cap = reg->cap ? reg->cap * 2 : 16;
                        if (!(n = realloc(reg->agents, cap * sizeof(*n))))
                                return -ENOMEM;
                        reg->agents = n;
                        reg->cap = cap;
                }
                if (!(e = calloc(1, sizeof(*e))))
                        return -ENOMEM;
                a = &e->a;
                snprintf(a->id, sizeof(a->id), "%s", h->agent_id);
                if (idmap_put(reg->by_id, a->id, a) < 0) {
                        free(e);
                        return -ENOMEM;
                }
                reg->agents[reg->n++] = a;
        }
        /* The connection now stands for this agent, also if another agent said Hello on it
         * before; the connection this agent used before no longer does. */
        if (!streq(a->peer, peer)) {
                if (idmap_get(reg->by_peer, a->peer) == a)
                        idmap_remove(reg->by_peer, a->peer);
                snprintf(a->peer, sizeof(a->peer), "%s", peer);
        }
        if ((r = idmap_set(reg->by_peer, a->peer, a)) < 0)
                return r;
        if (!streq(a->name, name) || !entry_of(a)->named) {
                name_unlink(reg, entry_of(a));
                snprintf(a->name, sizeof(a->name), "%s", name);
                if ((r = name_link(reg, entry_of(a))) < 0)
                        return r;
        }
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
        a->have_wall_offset = false;
        a->state = AGENT_IDLE;
        a->seq_in = 0;
        *ret = a;
        return 0;
}

void registry_expire(registry_t *reg, int64_t now, int64_t lease_ns,
                     void (*lost)(coord_agent_t *a, void *userdata), void *userdata)
{
        for (size_t i = 0; i < reg->n; i++) {
                coord_agent_t *a = reg->agents[i];
                /* Lost agents stay listed for a while so people see they went away; agents whose
                 * state was wiped come back under new ids, so the old entries must go. */
                bool away = agent_away(a);
                if (away && now - a->last_seen_ns > REGISTRY_FORGET_NS) {
                        forget_at(reg, i--);
                        continue;
                }
                if (!away && now - a->last_seen_ns > lease_ns) {
                        a->state = AGENT_LOST;
                        if (lost)
                                lost(a, userdata);
                }
        }
}

void registry_revoke(registry_t *reg, bool (*allowed)(const coord_agent_t *a, void *userdata),
                     void (*dropped)(coord_agent_t *a, void *userdata), void *userdata)
{
        for (size_t i = 0; i < reg->n; i++) {
                coord_agent_t *a = reg->agents[i];
                if (strempty(a->key_name) || allowed(a, userdata))
                        continue;
                if (dropped)
                        dropped(a, userdata);
                forget_at(reg, i--);
        }
}

static int by_name(const void *x, const void *y)
{
        const coord_agent_t *a = *(coord_agent_t *const *)x, *b = *(coord_agent_t *const *)y;
        int c = strcmp(a->name, b->name);
        return c ? c : strcmp(a->id, b->id);
}

int registry_select(registry_t *reg, const char *selector, coord_agent_t ***ret, size_t *n)
{
        coord_agent_t **v = calloc(reg->n ? reg->n : 1, sizeof(*v));
        size_t k = 0;
        if (!v)
                return -ENOMEM;
        for (size_t i = 0; i < reg->n; i++) {
                coord_agent_t *a = reg->agents[i];
                selector_subject_t s = {a->name, a->hostname, &a->roles, &a->labels};
                if (!agent_away(a) && selector_match(selector, &s))
                        v[k++] = a;
        }
        qsort(v, k, sizeof(*v), by_name);
        *ret = v;
        *n = k;
        return 0;
}

/* Is a heartbeat's answer due? Notes when it was given. */
static bool beat_due(coord_agent_t *a, const Iofleet__Heartbeat *hb, const registry_pace_t *pace,
                     int64_t mono)
{
        int64_t beat = (int64_t)pace->heartbeat_ns;
        if (hb->probe_t1 || pace->lost_after < 4 || mono - a->beat_answered_ns >= beat * 3 / 2) {
                a->beat_answered_ns = mono;
                return true;
        }
        return false;
}

/* An answer to agent a, numbered in its sequence, queued by its id. */
static int push_answer(coord_agent_t *a, envelope_t *rep, outbox_t *ob)
{
        rep->seq = ++a->seq_out;
        return outbox_push(ob, a->id, rep);
}

int registry_heartbeat(coord_agent_t *a, const Iofleet__Heartbeat *hb, const registry_pace_t *pace,
                       const registry_now_t *now, registry_ack_fn ack, void *user, outbox_t *ob)
{
        /* One answer: liveness, the time probe riding along, and the Ack of what is on disk. */
        envelope_t rep = IOFLEET__ENVELOPE__INIT;
        Iofleet__Heartbeat ans = IOFLEET__HEARTBEAT__INIT;
        const char *run_id = "";
        int r;

        if (hb->rtt_ns) {
                a->offset_ns = hb->offset_ns;
                a->rtt_ns = hb->rtt_ns;
                a->have_offset = true;
                a->wall_offset_ns = hb->wall_offset_ns;
                a->have_wall_offset = hb->wall_offset_known;
        }
        if (!beat_due(a, hb, pace, now->mono))
                return 0;
        ans.ack_upto = ack ? ack(user, a, &run_id) : 0;
        ans.run_id = (char *)run_id;
        if (hb->probe_t1) {
                ans.probe_t1 = hb->probe_t1;
                ans.probe_t2 = now->t_recv;
                ans.probe_t3 = now->t_send;
        }
        rep.body_case = IOFLEET__ENVELOPE__BODY_HEARTBEAT;
        rep.heartbeat = &ans;
        r = push_answer(a, &rep, ob);
        return r < 0 ? r : 1;
}

int registry_time_probe(coord_agent_t *a, const Iofleet__TimeProbe *p, const registry_now_t *now,
                        outbox_t *ob)
{
        envelope_t rep = IOFLEET__ENVELOPE__INIT;
        Iofleet__TimeReply tr = IOFLEET__TIME_REPLY__INIT;
        tr.t1 = p->t1;
        tr.t2 = now->t_recv;
        tr.t3 = now->t_send;
        rep.body_case = IOFLEET__ENVELOPE__BODY_TIME_REPLY;
        rep.time_reply = &tr;
        return push_answer(a, &rep, ob);
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
        case AGENT_GONE:
                return "gone";
        }
        return "?";
}
