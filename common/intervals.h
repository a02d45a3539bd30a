/* Interval arithmetic both sides must agree on: how many a timed run has, which one is final. */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "options.h"

/* How long a timed job lasts from the common start: its start delay and ramp, then its runtime;
 * 0 for a job without a runtime. */
static inline uint64_t intervals_job_span(const job_spec_t *j)
{
        return j->runtime_ns ? j->startdelay_ns + j->ramp_time_ns + j->runtime_ns : 0;
}

/* When counting begins, from the common start: no job counts before its start delay and ramp
 * are over, so intervals that start before the earliest such instant are not measured. */
static inline uint64_t intervals_counting_from(const job_spec_t *specs, size_t n)
{
        uint64_t from = UINT64_MAX;
        for (size_t i = 0; i < n; i++) {
                uint64_t t = specs[i].startdelay_ns + specs[i].ramp_time_ns;
                from = t < from ? t : from;
        }
        return from == UINT64_MAX ? 0 : from;
}

/* Intervals before counting begins: those that start before from (ceil(from / interval)). */
static inline uint64_t intervals_ramp(uint64_t from_ns, uint64_t interval_ns)
{
        return (from_ns + interval_ns - 1) / interval_ns;
}

/* Intervals of a run whose longest job runtime is runtime_ns: ceil(runtime / interval); 0 when a
 * job has no runtime (the run is open-ended). */
static inline uint64_t intervals_of_runtime(uint64_t runtime_ns, uint64_t interval_ns)
{
        return runtime_ns ? (runtime_ns + interval_ns - 1) / interval_ns : 0;
}

/* An agent's final interval: the one holding its last worker's end (end_ns after the start),
 * folded into the last interval of a timed run (max > 0) so that work finishing just past the
 * end does not open an interval of its own, and never before next, the next one to send. */
static inline size_t intervals_final(int64_t end_ns, uint64_t interval_ns, uint64_t max,
                                     size_t next)
{
        size_t last = end_ns > 0 ? (size_t)((uint64_t)end_ns / interval_ns) : 0;
        if (max && last >= max)
                last = (size_t)max - 1;
        return last < next ? next : last;
}
