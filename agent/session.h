/* The agent's session with its coordinator: socket, CURVE, hello and backoff, heartbeats, clock
 * probes. */
#pragma once

#include "kv.h"
#include "restore.h"

#include <stdbool.h>
#include <stdint.h>

#include "agent-config.h"
#include "agent-run.h"
#include "clock.h"
#include "hostwork.h"
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

/* This agent's part of a run: its state machine and what the daemon keeps for it. */
typedef struct run_ctx {
        char id[WIRE_MAX_ID + 1];
        arun_t *ar;
        envelope_t *prepare; /* the Prepare as received (NULL for a run found after a restart) */
        runner_t *runner;
        runner_dir_t prev[2]; /* totals when the previous interval was packed */
        int64_t start_mono;
        int64_t group_mono;   /* the instant the last group was given (the cluster's stonewall) */
        int tfd;              /* the run's timer: arun_next_deadline() */
        kvlist_t effective;   /* sysctls and mount (or the export) as they took effect, then the
                                 restore */
        char mountpoint[4096]; /* the NFS mount the jobs run in; "" without one */
        hostwork_t *work;     /* host prepare and put-back, off the loop */
        bool burst;           /* Prepared waits for the clock burst */
        bool teardown_next;   /* the put-back waits for a forced unmount still running */
        struct logship *ship; /* fio's log files on their way (agent/log-ship.h), once asked */
} run_ctx_t;

typedef struct agent_daemon {
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
        int64_t stop_deadline; /* mono: SIGTERM during a run waits this long for its end */
        int64_t ack_wait_until; /* mono: at the end, Acks of the last messages are waited for */
        session_state_t state;
        uint64_t seq;
        int64_t heartbeat_ns;
        uint32_t lost_after;
        int64_t last_heard;     /* mono */
        int64_t last_sent;      /* mono: the last message that left */
        int64_t next_heartbeat; /* mono */
        unsigned beats;         /* heartbeats sent: every other one carries a time probe */
        int64_t next_hello;     /* mono */
        int64_t backoff_ns;
        clock_sync_t sync;
        int64_t burst_since; /* local clock: samples since then belong to the current burst */
        int burst_left;
        int64_t next_burst_probe;
        int64_t burst_deadline;
        run_ctx_t *run;
        /* A Prepare that came while the last run was putting the host back or waiting for its
         * last Ack: taken when that run is freed, refused BUSY at next_prepare_until. */
        envelope_t *next_prepare;
        int64_t next_prepare_until; /* mono */
        restore_t *restore; /* what this agent changed on the host, to put back */
        /* Why the coordinator cannot be reached, and when that was last said (once, then at
         * backoff: never a line per retry). */
        char unreachable[256];
        int64_t next_unreachable_log;
        int64_t unreachable_every;
        int probe_fd; /* a plain TCP connect that finds the reason, or -1 */
        int64_t probe_deadline;
        char probe_why[256];
} agent_daemon_t;

/* Sends e to the coordinator (stamping its sequence number); -ENOTCONN without a socket. */
int session_send(agent_daemon_t *ag, envelope_t *e);
/* Sends an encoded message as it is (a run message, numbered by its run). */
int session_send_raw(agent_daemon_t *ag, const void *buf, size_t len);
/* Goodbye: the agent stops cleanly, so the coordinator lists it gone at once. */
void session_goodbye(agent_daemon_t *ag, const char *reason);
void session_error(agent_daemon_t *ag, Iofleet__ErrorCode code, const char *run_id, const char *msg);
/* Hello with identity, roles, labels and engines; schedules the next one with backoff. */
void session_hello(agent_daemon_t *ag);
void session_probe(agent_daemon_t *ag);
/* A burst of PROBE_BURST probes: a fresh offset before a start. */
void session_start_burst(agent_daemon_t *ag);
/* The offset to trust: the latest burst's best sample, else the window's; -ENODATA if none. */
int session_best_offset(agent_daemon_t *ag, time_sample_t *s);
/* A heartbeat carrying the current offset, and one probe. */
void session_heartbeat(agent_daemon_t *ag);
void session_close(agent_daemon_t *ag);
/* A new DEALER to the coordinator, with CURVE and a monitor for handshake events. */
int session_open(agent_daemon_t *ag);
/* Says why the coordinator cannot be reached: once, then at a doubling interval (at most a
 * minute) while the same reason lasts. */
void session_unreachable(agent_daemon_t *ag, const char *why);
/* Without a session for a few seconds: finds out why (a TCP probe) and says so. */
void session_check_reach(agent_daemon_t *ag);
/* Reads one monitor event: logs refusals, says hello at once on a new connection. */
void session_on_monitor(agent_daemon_t *ag);
