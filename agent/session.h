/* The agent's session with its coordinator: socket, CURVE, hello and backoff, heartbeats, clock
 * probes. */
#pragma once

#include "kv.h"
#include "restore.h"

#include <stdbool.h>
#include <stdint.h>

#include "agent-config.h"
#include "clock.h"
#include "identity.h"
#include "keys.h"
#include "runner.h"
#include "sock.h"
#include "wire.h"

typedef enum session_state {
        SESSION_DISCONNECTED,
        SESSION_HELLO_SENT,
        SESSION_REGISTERED,
} session_state_t;

/* Probes sent back to back before every start, and how long to wait for their replies. */
#define PROBE_BURST 8
#define PROBE_BURST_GAP_NS (2 * (int64_t)NSEC_PER_MSEC)
#define PROBE_BURST_WAIT_NS (500 * (int64_t)NSEC_PER_MSEC)
#define BACKOFF_MIN_NS ((int64_t)NSEC_PER_SEC / 2)
#define BACKOFF_MAX_NS (30 * (int64_t)NSEC_PER_SEC)

typedef struct run_ctx {
        char id[WIRE_MAX_ID + 1];
        runner_t *runner;
        uint64_t interval_ns;
        uint64_t runtime_ns;    /* longest runtime of its jobs; 0 when any is size-bound only */
        uint64_t max_intervals; /* from runtime_ns */
        bool prepared_sent, started_sent;
        int64_t start_mono;
        size_t next_interval; /* index of the next Interval to send */
        runner_dir_t prev[2]; /* totals when the previous interval was sent */
        int tfd;              /* interval timer */
        kvlist_t effective;   /* sysctls and mount as they took effect, then the restore */
        char mountpoint[4096]; /* the NFS mount the jobs run in; "" without one */
} run_ctx_t;

typedef struct serve_ctx serve_ctx_t; /* agent/serve.c: this agent as a run's NFS server */

typedef struct agent {
        const agent_config_t *cfg;
        identity_t ident;
        const char *name;
        char key_name[WIRE_MAX_NAME + 1]; /* the name the coordinator gives it: its key's */
        bool enroll_pending; /* enrolled at this start, waiting for the operator's approval */
        keypair_t kp, server;
        void *ctx, *sock, *monitor;
        int monitor_seq;
        int sigfd;
        bool quit;
        session_state_t state;
        uint64_t seq;
        int64_t heartbeat_ns;
        uint32_t lost_after;
        int64_t last_heard;     /* mono */
        int64_t next_heartbeat; /* mono */
        int64_t next_hello;     /* mono */
        int64_t backoff_ns;
        clock_sync_t sync;
        int64_t burst_since; /* local clock: samples since then belong to the current burst */
        int burst_left;
        int64_t next_burst_probe;
        int64_t burst_deadline;
        run_ctx_t *run;
        serve_ctx_t *serve;  /* the run it serves NFS for, if any */
        restore_t *restore; /* what this agent changed on the host, to put back */
} agent_t;

/* Sends e to the coordinator (stamping its sequence number); -ENOTCONN without a socket. */
int session_send(agent_t *ag, envelope_t *e);
/* Sends e with kv as the effective settings *field / *n point at while it is packed (Prepared,
 * Finished). */
void session_send_settings(agent_t *ag, envelope_t *e, Iofleet__Setting ***field, size_t *n,
                           const kvlist_t *kv);
void session_error(agent_t *ag, Iofleet__ErrorCode code, const char *run_id, const char *msg);
/* Hello with identity, roles, labels and engines; schedules the next one with backoff. */
void session_hello(agent_t *ag);
void session_probe(agent_t *ag);
/* A burst of PROBE_BURST probes: a fresh offset before a start. */
void session_start_burst(agent_t *ag);
/* The offset to trust: the latest burst's best sample, else the window's; -ENODATA if none. */
int session_best_offset(agent_t *ag, time_sample_t *s);
/* A heartbeat carrying the current offset, and one probe. */
void session_heartbeat(agent_t *ag);
void session_close(agent_t *ag);
/* A new DEALER to the coordinator, with CURVE and a monitor for handshake events. */
int session_open(agent_t *ag);
/* Reads one monitor event: logs refusals, says hello at once on a new connection. */
void session_on_monitor(agent_t *ag);
