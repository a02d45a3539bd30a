/* When a worker's I/Os may go and when it must stop, beyond plain rates: fio's thinktime (with
 * _spin, _blocks, _blocks_type, _iotime), rate_process=poisson, rate_min / rate_iops_min over
 * rate_cycle, latency_target's search for the deepest queue that meets it, and max_latency. A
 * state machine fed the worker's counts and clock: it decides, the worker sleeps and reaps. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "fiorand.h"
#include "options.h"

typedef struct pacing {
        /* thinktime */
        uint64_t think_ns, spin_ns, iotime_ns;
        uint64_t think_blocks; /* 0: only thinktime_iotime triggers */
        bool by_issue;         /* thinktime_blocks_type=issue */
        uint64_t last_blocks;  /* the count at the last stall */
        int64_t last_think;    /* when the last stall ended (iotime) */
        /* rate_process=poisson */
        bool poisson;
        double gap_ns[2]; /* mean time between I/Os of a direction; 0: unpaced */
        int64_t next_ns[2];
        fiorand_t prng[2];
        /* rate_min, rate_iops_min */
        uint64_t rate_min[2], iops_min[2];
        int64_t cycle_ns, settle_end;
        bool have_base[2];
        uint64_t base_bytes[2], base_ios[2];
        int64_t base_t[2];
        /* latency_target */
        uint64_t lat_target, lat_window;
        double lat_percentile;
        bool lat_run;
        unsigned qd, qd_low, qd_high, depth, stable;
        uint64_t win_ios, win_failed;
        int64_t win_start;
        bool final_run;
        /* max_latency */
        uint64_t max_lat[2];
} pacing_t;

/* Whether job j uses any of it (else the worker never calls in). */
bool pacing_needed(const job_spec_t *j);

/* Sets p for job j at depth (the worker's iodepth) with the clock at now; seed feeds the Poisson
 * gaps. The queue depth starts at 1 under latency_target, else at depth. */
void pacing_init(pacing_t *p, const job_spec_t *j, unsigned depth, uint64_t seed, int64_t now);

/* thinktime: whether a stall is due after the worker's I/O counts (completed, issued) at now. */
bool pacing_think_due(const pacing_t *p, uint64_t done, uint64_t issued, int64_t now);
/* Records the stall that ended at now, with the counts it was due at. */
void pacing_think_done(pacing_t *p, uint64_t done, uint64_t issued, int64_t now);

/* rate_process=poisson: the instant the next I/O of ddir may start; pacing_poisson_next() after
 * it was issued draws the gap to the one after (exponential, mean 1/rate). */
static inline int64_t pacing_poisson_due(const pacing_t *p, unsigned ddir)
{
        return p->gap_ns[ddir] > 0 ? p->next_ns[ddir] : INT64_MIN;
}
void pacing_poisson_next(pacing_t *p, unsigned ddir);
/* Restarts the Poisson clocks at now (the end of ramp_time). */
void pacing_restart(pacing_t *p, int64_t now);

/* rate_min / rate_iops_min: checks the worker's counted bytes and I/Os of each direction at now
 * (fio: not in the first 2 s, then once per rate_cycle). 0, or -EIO with one line in err naming
 * the direction, the minimum and what was reached. */
int pacing_check_min(pacing_t *p, const uint64_t bytes[2], const uint64_t ios[2], int64_t now,
                     char *err, size_t errlen);

/* latency_target: what one counted I/O's latency means. */
enum {
        PACING_LAT_OK = 0,
        PACING_LAT_DOWN = 1,  /* above the target at percentile 100: the depth went down */
        PACING_LAT_FATAL = 2, /* above the target at depth 1: the job fails (ETIMEDOUT) */
};
int pacing_lat_sample(pacing_t *p, uint64_t lat_ns, int64_t now);
/* At the end of each latency_window (checked with the clock at now): what the search does. */
enum {
        PACING_WIN_NONE = 0,
        PACING_WIN_CHANGED = 1, /* the depth changed */
        PACING_WIN_FINAL = 2,   /* the depth is found: counting starts for one last window */
        PACING_WIN_DONE = 3,    /* that window is over: the job ends */
};
int pacing_lat_window(pacing_t *p, int64_t now);
