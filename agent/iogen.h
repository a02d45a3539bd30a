/* I/O generator: where a worker's next I/O goes and how long it is, for the jobs the plain fast path of
 * agent/worker.c does not cover: bssplit and bsrange (fio's draws, with fio's seeds), blockalign,
 * rw=read:4k holes and backwards I/O, rw=randread:N with rw_sequencer, percentage_random,
 * random_distribution (zipf, pareto, normal, zoned, zoned_abs), random_generator (fio's
 * tausworthe streams, an LFSR) and a random map that knows which blocks mixed sizes covered. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "options.h"

typedef struct iogen iogen_t;

typedef struct iogen_params {
        const job_spec_t *job;
        unsigned nfiles;
        const uint64_t *base; /* each file's region: first byte */
        const uint64_t *size; /* and length */
        const uint64_t *file_size; /* each file's whole length (NULL: the regions' ends) */
        uint64_t seed;        /* the worker's own streams (agent and clone apart) */
        unsigned thread_number; /* fio's td->thread_number: 1 + clones of the jobs before + clone */
} iogen_params_t;

/* Whether job j needs this module (else the worker's fast path does all). */
bool iogen_needed(const job_spec_t *j);

/* Sets the generator of one worker. 0, or -errno with one line in err (a map too large, ...). */
int iogen_new(const iogen_params_t *p, iogen_t **ret, char *err, size_t errlen);
void iogen_destroy(iogen_t **p);
/* A new loop over the files (fio's loops): every file's sequential position, random map and
 * LFSR pass start again; the random streams go on, as fio's do. */
void iogen_restart(iogen_t *p);

/* The next I/O of direction ddir on file fi: its absolute offset and length. Returns 0, or
 * IOGEN_PASS_END when it ends a pass over the file: the file's next I/O begins the next pass
 * (fio reopens the file there; with invalidate=1 the worker drops its cache first); or
 * IOGEN_LAST when it is the file's last I/O: sequential I/O with holes (rw=write:4k) reached the
 * end of a region that stops short of the file's end, where fio finishes with the file (unless
 * time_based or io_size make it go round). */
#define IOGEN_PASS_END 1
#define IOGEN_LAST 2
int iogen_next(iogen_t *p, unsigned fi, unsigned ddir, uint64_t *offset, uint64_t *len);
