/* fio's steady-state detection (steadystate=, ss_dur=, ss_ramp=): one sample a second into a
 * rolling window, the job ended once the window meets the criterion. Pure: fed the counters. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "options-values.h"

typedef struct steadystate {
        ss_spec_t spec;
        uint32_t dur;        /* the window, in one-second samples */
        uint64_t *bw, *iops; /* ring of the last dur samples: bytes/s and IO/s */
        uint32_t head, n;    /* next slot, samples held */
        uint64_t last_bytes, last_ios;
        bool primed;         /* a first reading taken: later ones give deltas */
        bool attained;
        double deviation, slope, criterion; /* of the last judgement */
} steadystate_t;

/* dur_s one-second samples (1..3600). 0 or -EINVAL/-ENOMEM. */
int steadystate_init(steadystate_t *ss, const ss_spec_t *spec, uint32_t dur_s);
void steadystate_done(steadystate_t *ss);

/* One reading of the job's totals, a second after the one before (the first only primes).
 * Returns true when the window is full and meets the criterion: the job is to end. */
bool steadystate_sample(steadystate_t *ss, uint64_t bytes, uint64_t ios);

/* The window's samples in the order taken (n of them) and their means. */
uint32_t steadystate_samples(const steadystate_t *ss, uint64_t *bw, uint64_t *iops);
double steadystate_mean(const steadystate_t *ss, bool iops);
