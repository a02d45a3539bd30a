/* Clocks, the NTP-style offset estimate between an agent and the coordinator timeline, and precise
 * sleeps. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* True kernel clocks. */
int64_t clock_mono_ns(void);
int64_t clock_real_ns(void);

/* An agent's own clock: CLOCK_MONOTONIC plus an offset injected by tests
 * (--test-clock-offset), so that one host can play agents whose clocks disagree. */
void clock_set_test_offset(int64_t offset_ns);
int64_t clock_local_ns(void);
/* Converts a reading of clock_local_ns() back to the true CLOCK_MONOTONIC. */
int64_t clock_local_to_mono(int64_t local_ns);

/* One probe: t1 agent send, t2 coordinator receive, t3 coordinator send, t4 agent receive. */
typedef struct time_sample {
        int64_t offset_ns; /* coordinator timeline - agent clock */
        int64_t rtt_ns;    /* round trip less the coordinator's hold time */
        int64_t at_ns;     /* agent clock when taken (t4) */
} time_sample_t;

/* Computes a sample; -EINVAL when the timestamps are inconsistent (negative round trip) or
 * so far apart that their differences do not fit in 64 bits. */
int clock_sample(int64_t t1, int64_t t2, int64_t t3, int64_t t4, time_sample_t *ret);

/* The agent keeps its recent samples and trusts the one with the smallest round trip: its
 * offset error is bounded by half that round trip. */
#define CLOCK_SYNC_WINDOW 16
typedef struct clock_sync {
        time_sample_t samples[CLOCK_SYNC_WINDOW];
        size_t n, next;
} clock_sync_t;

void clock_sync_reset(clock_sync_t *cs);
void clock_sync_add(clock_sync_t *cs, const time_sample_t *s);
/* Best sample among those taken at or after since_ns (agent clock); -ENODATA if none. */
int clock_sync_best(const clock_sync_t *cs, int64_t since_ns, time_sample_t *ret);

/* Sleeps with clock_nanosleep(TIMER_ABSTIME) until spin_ns before target (CLOCK_MONOTONIC),
 * then spins (yielding) until target; returns the CLOCK_MONOTONIC reading at wake-up. */
int64_t clock_sleep_until_mono(int64_t target_ns, int64_t spin_ns);

/* Formats a duration for people: "812ns", "35.2us", "1.25ms", "2.000s". */
const char *clock_format_duration(int64_t ns, char *buf, size_t len);
