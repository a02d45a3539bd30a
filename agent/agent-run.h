/* An agent's part of one run as a state machine: Prepare to Finished and the host put back, every
 * message to the coordinator numbered and kept until acknowledged, the run carried through the
 * loss of its coordinator for the orphan grace. No sockets, threads or clocks: the daemon feeds
 * it (message | timer | runner event | host-work event, now) and does what the outbox asks. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sock.h"
#include "util.h"
#include "wire.h"

typedef enum arun_phase {
        ARUN_HOST,     /* the host is being prepared (server config, client mount) off the loop */
        ARUN_LAYOUT,   /* client: the runner lays out files; then a clock burst */
        ARUN_PREPARED, /* Prepared made; waiting for Start */
        ARUN_STARTING, /* the runner has the start instant */
        ARUN_RUNNING,
        ARUN_SERVING,  /* server: configured, until Stop */
        ARUN_TEARDOWN, /* the host is being put back off the loop */
        ARUN_DONE,     /* everything made; waiting for the last acknowledgement */
} arun_phase_t;

/* What the daemon must do after an input, in this order. */
enum {
        ARUN_DO_HOST = 1 << 0,        /* start preparing the host (by the Prepare's role) */
        ARUN_DO_RUNNER = 1 << 1,      /* build the runner from the jobs; it lays out files */
        ARUN_DO_BURST = 1 << 2,       /* fresh clock samples, then arun_clock_ready() */
        ARUN_DO_START = 1 << 3,       /* runner_start_at(out->start_mono) */
        ARUN_DO_STOP = 1 << 4,        /* runner_stop(): arun_runner_done() follows */
        ARUN_DO_FREE_RUNNER = 1 << 5, /* the runner is not needed any more */
        ARUN_DO_TEARDOWN = 1 << 6,    /* start putting the host back: arun_host_done() follows */
        ARUN_DO_FORCE = 1 << 7,       /* workers still blocked in I/O long after the stop: fail
                                       * the mount's pending requests (umount -f), so that they
                                       * return; asked again every ARUN_FORCE_EVERY_NS */
        ARUN_DO_START_GROUP = 1 << 8, /* runner_start_group_at(out->group, out->group_mono) */
};

/* A client's workers not ended this long after a stop are blocked in I/O on their mount (a
 * server that went away, or lost its export under them): ARUN_DO_FORCE, then again every
 * ARUN_FORCE_EVERY_NS until they end. 30 s is what the coordinator gives a stopped agent before
 * it gives it up (RUN_FINISH_GRACE_NS): I/O it still waits for (a long end_fsync) is never cut
 * short. */
#define ARUN_FORCE_AFTER_NS (30 * (int64_t)1000000000)
#define ARUN_FORCE_EVERY_NS (10 * (int64_t)1000000000)

typedef struct arun_out {
        outbox_t coord;     /* encoded messages for the coordinator, in order */
        unsigned todo;      /* ARUN_DO_* */
        int64_t start_mono; /* ARUN_DO_START */
        unsigned group;     /* ARUN_DO_START_GROUP */
        int64_t group_mono;
} arun_out_t;

/* Messages whose content the daemon holds (runner counters, clock, host settings). */
typedef enum arun_msg {
        ARUN_MSG_PREPARED,
        ARUN_MSG_STARTED,
        ARUN_MSG_INTERVAL,
        ARUN_MSG_FINISHED,
        ARUN_MSG_RESTORED,
        ARUN_MSG_LAYOUT, /* LayoutProgress: best effort, never numbered or kept */
        ARUN_MSG_GROUP_READY,   /* the cluster-wide stonewall: group laid out, waiting */
        ARUN_MSG_GROUP_STARTED, /* ... and the instant it started */
        ARUN_MSG_LOG,           /* a piece of fio's log files (agent/log-ship.c), if one waits */
} arun_msg_t;

typedef struct arun_pack {
        arun_msg_t what;
        const char *run_id;
        uint64_t run_seq;   /* to set in the message */
        size_t interval;    /* INTERVAL: its index */
        bool last;          /* INTERVAL: the agent's final one */
        const char *error;  /* FINISHED, RESTORED: "" or what went wrong */
        uint32_t intervals; /* FINISHED: how many the agent made */
        unsigned group;     /* GROUP_READY, GROUP_STARTED */
        const char *dir;    /* LOG: the run's directory (its logs/ is shipped) */
        bool final;         /* LOG: the workers have ended: every log to its end */
        const char *cut;    /* LOG, final: why the logs end early (the agent was restarted) */
        /* INTERVAL, filled by the packer: what the workers did so far (the agent's own count). */
        uint64_t read_bytes, write_bytes;
        /* LAYOUT, filled by the packer: bytes laid out of the total (0: nothing to report). */
        uint64_t layout_done, layout_total;
} arun_pack_t;

/* While a client's runner lays out files, a LayoutProgress goes at most this often, only when
 * it changed, and once more when the layout is complete. */
#define ARUN_LAYOUT_REPORT_NS ((int64_t)NSEC_PER_SEC)

/* Packs the message asked for into a malloc'd buffer; 0 or -errno (LAYOUT: -ENOENT when there
 * is no runner to ask). */
/* Packs the message asked for into a malloc'd buffer; 0 or -errno. LOG may pack nothing (*buf
 * left NULL): nothing waits. */
typedef int (*arun_pack_fn)(void *user, arun_pack_t *what, uint8_t **buf, size_t *len);

typedef struct arun_cfg {
        const char *dir;    /* the run's own directory (its queue and state files live there) */
        arun_pack_fn pack;
        void *user;
        size_t mem_bytes;   /* messages kept in memory, beyond it only in the file */
        int64_t resend_ns;  /* sent but unacknowledged this long: sent again */
        const char *boot_id; /* this boot of the host: a run found from another one lived
                              * through a reboot or a power cut (NULL: unknown) */
} arun_cfg_t;

typedef struct arun arun_t;

/* A Prepare while connected: a run in ARUN_HOST (ARUN_DO_HOST asked). changes_host says whether
 * the step changes this host (a mount, sysctls, a server): the agent then reports Restored. The
 * run's directory is created. 0 or -errno. */
int arun_new(const Iofleet__Prepare *p, const arun_cfg_t *cfg, int64_t now, arun_out_t *out,
             arun_t **ret);
/* What an earlier life of the agent left in cfg->dir: its messages not yet acknowledged, and,
 * when it died mid-run, a Finished saying so and (when it had changed the host, which the
 * agent's start put back) a Restored. The run is ARUN_DONE. Those last messages are made at the
 * first Ack of a session, numbered after everything the coordinator has: after a power cut the
 * files here may be older than what the coordinator acknowledged, and a number it holds given
 * to another message would be taken for a duplicate and lost. 0, -ENOENT, or -errno. */
int arun_recover(const arun_cfg_t *cfg, int64_t now, arun_out_t *out, arun_t **ret);
/* Frees; the run's files stay unless it is over (arun_over()). NULL-safe. */
void arun_free(arun_t **arp);

/* Host work done: the host prepared (rc < 0: it failed, err says why; what it changed is put
 * back by the teardown that follows). */
void arun_host_prepared(arun_t *ar, int rc, const char *err, int64_t now, arun_out_t *out);
/* The host put back (rc < 0: not wholly; the Restored says what). */
void arun_host_done(arun_t *ar, int rc, int64_t now, arun_out_t *out);
/* The runner could not be built or failed to prepare: code and why for the Error. */
void arun_fail(arun_t *ar, Iofleet__ErrorCode code, const char *why, int64_t now, arun_out_t *out);
/* Runner events: every file laid out (the last LayoutProgress goes if it changed); running since
 * the start instant; every worker ended at end_mono (CLOCK_MONOTONIC). */
void arun_runner_prepared(arun_t *ar, int64_t now, arun_out_t *out);
void arun_runner_running(arun_t *ar, int64_t now, arun_out_t *out);
void arun_runner_done(arun_t *ar, int64_t end_mono, int64_t now, arun_out_t *out);
/* The cluster-wide stonewall (a Prepare with group_barrier): the runner's group `group` is laid
 * out and waits (GroupReady goes out once per group); the coordinator's StartGroup, its instant
 * mapped to CLOCK_MONOTONIC (err non-NULL when it could not be) and the run's interval count,
 * grown by the barrier's waits (ARUN_DO_START_GROUP, once per group: a duplicate, or one for
 * a group not reported ready, is left); the group started (GroupStarted, once per group). */
void arun_group_waiting(arun_t *ar, unsigned group, int64_t now, arun_out_t *out);
void arun_on_start_group(arun_t *ar, unsigned group, int64_t start_mono, uint64_t max_intervals,
                         const char *err, int64_t now, arun_out_t *out);
void arun_group_started(arun_t *ar, unsigned group, int64_t now, arun_out_t *out);
/* The interval count of a timed run as it stands (0: open-ended). */
uint64_t arun_max_intervals(const arun_t *ar);
/* The clock burst before Prepared is over; ok when it gave a sample. */
void arun_clock_ready(arun_t *ar, bool ok, int64_t now, arun_out_t *out);

/* Coordinator messages. Start carries the instant already mapped to CLOCK_MONOTONIC (the daemon
 * has the clock); err non-NULL when it could not be (no sample, too far ahead). */
void arun_on_start(arun_t *ar, int64_t start_mono, const char *err, int64_t now, arun_out_t *out);
void arun_on_stop(arun_t *ar, const char *why, int64_t now, arun_out_t *out);
void arun_on_ack(arun_t *ar, uint64_t upto, int64_t now, arun_out_t *out);
/* The coordinator has no such run (over, or it restarted without it): nobody will collect. */
void arun_unknown(arun_t *ar, const char *why, int64_t now, arun_out_t *out);

/* The session: down when the coordinator is lost (the orphan grace starts), up after a Welcome
 * (messages wait for the Ack that tells where to resend from; an Ack then beyond what this run
 * made means its record is older than what it delivered: the numbering goes on after it). */
void arun_session(arun_t *ar, bool up, int64_t now, arun_out_t *out);
/* Timers: layout progress, interval boundaries, the orphan grace, resends. */
void arun_tick(arun_t *ar, int64_t now, arun_out_t *out);
int64_t arun_next_deadline(const arun_t *ar);
/* Sends what is not acknowledged again, now (a session waiting on it). */
void arun_resend(arun_t *ar, int64_t now, arun_out_t *out);
/* The agent stops (SIGTERM): the run ends now, its host is put back, what it made is kept. */
void arun_shutdown(arun_t *ar, int64_t now, arun_out_t *out);

/* Facts for the daemon and for the Hello. */
const char *arun_id(const arun_t *ar);
arun_phase_t arun_phase(const arun_t *ar);
const char *arun_phase_name(const arun_t *ar);
bool arun_is_server(const arun_t *ar);
uint64_t arun_made(const arun_t *ar);
uint64_t arun_pending(const arun_t *ar);
/* Its part is over and nothing waits to be acknowledged (or nobody will collect it): free it. */
bool arun_over(const arun_t *ar);
/* Told to stop, given up, putting the host back or done: a next run's Prepare may wait for it. */
bool arun_ending(const arun_t *ar);
/* Reads the state file a run left in dir: its id and phase ("" when none). 0 or -errno. */
int arun_peek(const char *dir, char *id, size_t idlen, char *phase, size_t phaselen);
