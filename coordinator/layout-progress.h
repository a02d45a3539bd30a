/* Files being laid out, as the coordinator sees a run's agents report it: per agent its last
 * report and a sliding window of them for its rate; sums, ETA and the slowest agent. No sockets,
 * no clock of its own. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Reports an agent's rate is taken over (about one a second), and the window's length. */
#define LAYOUT_SAMPLES 8
#define LAYOUT_WINDOW_NS (5 * (int64_t)1000000000)
/* An agent that has not reported for this long has not moved since (it reports changes only). */
#define LAYOUT_STALL_NS (2 * (int64_t)1000000000)

typedef struct layout_sample {
        int64_t t;
        uint64_t done;
} layout_sample_t;

typedef struct layout_agent {
        bool reported;
        uint64_t done, total;
        layout_sample_t s[LAYOUT_SAMPLES]; /* ring, oldest at head */
        unsigned n, head;
} layout_agent_t;

typedef struct layout_progress {
        layout_agent_t *agents;
        size_t n;
        size_t expected; /* agents that will report (the run's clients) */
} layout_progress_t;

/* One agent's figures at now: rate in bytes/s (0 unknown), eta_ns (0 done, -1 unknown). */
typedef struct layout_figures {
        uint64_t done, total, rate;
        int64_t eta_ns;
} layout_figures_t;

/* The run's: every agent that reported summed; eta when the last agent is done (-1 when some
 * agent's is unknown); slowest the agent not done with the latest ETA (an unknown one first,
 * then the least done), -1 when every one is done. */
typedef struct layout_sum {
        layout_figures_t all;
        size_t reported;
        bool complete; /* every expected agent reported, and every byte is done */
        long slowest;
        layout_figures_t slow;
} layout_sum_t;

/* n agents (by rank), expected of which will report. 0 or -ENOMEM. */
int layout_progress_init(layout_progress_t *l, size_t n, size_t expected);
void layout_progress_done(layout_progress_t *l);

/* Agent i reported done of total at now (the coordinator's clock). A report that goes back
 * (done lower, or another total: the agent started over) starts its window again. */
void layout_progress_note(layout_progress_t *l, size_t i, uint64_t done, uint64_t total,
                          int64_t now);
void layout_progress_agent(const layout_progress_t *l, size_t i, int64_t now,
                           layout_figures_t *f);
void layout_progress_sum(const layout_progress_t *l, int64_t now, layout_sum_t *s);
