/* The coordinator's registry of agents: who joined, when each was last heard, clock offset, state.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config.h"
#include "idbind.h"
#include "keys.h"
#include "sock.h"
#include "wire.h"

typedef enum agent_state {
        AGENT_IDLE,
        AGENT_BUSY, /* part of a run */
        AGENT_LOST, /* missed its lease; kept so people can see it went away */
        AGENT_GONE, /* said goodbye (stopped cleanly); kept as lost ones are */
} agent_state_t;

typedef struct coord_agent {
        char id[WIRE_MAX_ID + 1];
        char peer[SOCK_MAX_PEER + 1]; /* its current connection */
        char name[WIRE_MAX_NAME + 1];
        char hostname[WIRE_MAX_HOSTNAME + 1];
        char boot_id[WIRE_MAX_ID + 1];
        char version[WIRE_MAX_NAME + 1];
        char key_name[WIRE_MAX_NAME + 1]; /* allow-list entry it authenticated with */
        char key_z85[KEY_Z85_LEN + 1];    /* that entry's public key when it did */
        strv_t roles, labels, engines;
        int64_t joined_ns;    /* CLOCK_MONOTONIC */
        int64_t last_seen_ns; /* CLOCK_MONOTONIC: leases must not move with wall-clock steps */
        int64_t offset_ns;      /* coordinator timeline - agent monotonic clock */
        int64_t wall_offset_ns; /* coordinator wall clock - agent wall clock */
        uint64_t rtt_ns;
        bool have_offset, have_wall_offset;
        agent_state_t state;
        uint64_t seq_out; /* last sequence number sent to it */
        uint64_t seq_in;  /* last sequence number received from it */
        int64_t beat_answered_ns; /* CLOCK_MONOTONIC: the last heartbeat answered */
} coord_agent_t;

typedef struct registry registry_t;

int registry_new(registry_t **ret);
void registry_free(registry_t **rp);

/* Keeps key -> agent id bindings in bind (borrowed, may be NULL): registry_hello() consults and
 * updates them; the caller saves them when idbind_dirty(). */
void registry_set_bindings(registry_t *reg, idbind_t *bind);
/* Registers or refreshes the agent behind a Hello received on connection peer, which from now
 * on stands for that agent. With a key name (CURVE), the agent is named after its key, its id
 * is bound to the key, and one key stands for one agent: refuses (-EPERM) an id that belongs to
 * another key and (-EBUSY) a second live agent of the key; the key's lost agent of another id is
 * forgotten. Without (insecure), refuses (-EEXIST) a name a live agent holds. err, sent to the
 * peer, never names another agent's id. */
int registry_hello(registry_t *reg, const char *peer, const Iofleet__Hello *h, const char *key_name,
                   int64_t now, coord_agent_t **ret, char *err, size_t errlen);
coord_agent_t *registry_find(registry_t *reg, const char *id);
/* The agent speaking on connection peer (the last one whose Hello came on it), or NULL. Both
 * lookups are hash lookups. */
coord_agent_t *registry_find_peer(registry_t *reg, const char *peer);
size_t registry_count(const registry_t *reg);
coord_agent_t *registry_at(registry_t *reg, size_t i);

/* Marks agents not heard from since now - lease as lost, calling lost() for each newly lost
 * one, and forgets agents lost for more than an hour. Pointers to forgotten agents die. */
void registry_expire(registry_t *reg, int64_t now, int64_t lease_ns,
                     void (*lost)(coord_agent_t *a, void *userdata), void *userdata);
/* Forgets every agent with a key for which allowed() is false (a key removed from, or changed
 * in, the allow-list), calling dropped() first for each. Pointers to them die. */
void registry_revoke(registry_t *reg, bool (*allowed)(const coord_agent_t *a, void *userdata),
                     void (*dropped)(coord_agent_t *a, void *userdata), void *userdata);
/* The times a heartbeat or clock-probe answer is given. */
typedef struct registry_now {
        int64_t mono;   /* CLOCK_MONOTONIC: paces the heartbeat answers */
        int64_t t_recv; /* coordinator timeline when the message came: the probe's t2 */
        int64_t t_send; /* coordinator timeline the answer leaves at: the probe's t3 */
} registry_now_t;

/* How often agents beat and how many missed beats lose one (the coordinator's config). */
typedef struct registry_pace {
        uint64_t heartbeat_ns;
        uint64_t lost_after;
} registry_pace_t;

/* What the runs acknowledge in a heartbeat's answer to a: how far, and the run holding it
 * (*run_id, "" for none). Asked only when the answer goes out. */
typedef uint64_t (*registry_ack_fn)(void *user, coord_agent_t *a, const char **run_id);

/* Agent a's Heartbeat hb: its clock figures are noted, and it is answered in ob (addressed by
 * agent id) when it carries a time probe (the agent's own pace: every other beat), else when the
 * last answer is about two beats old: the agent's lease of us is lost_after beats, so half the
 * answers keep it, and thousands of agents cost half the messages. With a lease of fewer than 4
 * beats, every one. The answer carries the probe's times and what ack() acknowledges. 1 when
 * answered, 0 when not due, -errno when it could not be queued. */
int registry_heartbeat(coord_agent_t *a, const Iofleet__Heartbeat *hb, const registry_pace_t *pace,
                       const registry_now_t *now, registry_ack_fn ack, void *user, outbox_t *ob);
/* Agent a's TimeProbe: a TimeReply with the probe's t1 and now's t2, t3 in ob (by agent id).
 * 0 or -errno. */
int registry_time_probe(coord_agent_t *a, const Iofleet__TimeProbe *p, const registry_now_t *now,
                        outbox_t *ob);

/* Agents that are not lost and match the selector, sorted by name; the array is malloc'd. */
int registry_select(registry_t *reg, const char *selector, coord_agent_t ***ret, size_t *n);
const char *agent_state_to_string(agent_state_t s);
