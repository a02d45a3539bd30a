/* Which of a job's files the next I/O goes to: fio's file_service_type (roundrobin, random,
 * sequential with their :N, zipf, pareto, normal) within the openfiles it works on at once. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "options-values.h"
#include "randmap.h"

typedef struct fileservice {
        fst_t fst;
        unsigned n;        /* files */
        unsigned open_max; /* openfiles: files worked on at once */
        unsigned cur;      /* the file of the next I/O */
        uint32_t left;     /* I/Os left on cur before another is chosen */
        bool simple;       /* roundrobin:1 over every file: no bookkeeping */
        uint8_t *state;    /* per file: FS_IDLE, FS_ACTIVE (in the window), FS_DONE (this pass) */
        unsigned active, done;
        double *cdf;       /* zipf, pareto, normal: the chance of each rank, cumulated */
        unsigned *rank;    /* rank -> file, shuffled so that the hot files are spread */
        randmap_rng_t rng;
} fileservice_t;

/* For nfiles files, openfiles of them at once (0: all), with the job's seed. 0 or -ENOMEM. */
int fileservice_init(fileservice_t *fs, const fst_t *fst, unsigned nfiles, unsigned openfiles,
                     uint64_t seed);
void fileservice_done(fileservice_t *fs);

/* After an I/O on fs->cur; pass_done: it was that file's last block of the pass over it (the file
 * is done until every file is, as fio closes a finished file and opens the next). Sets fs->cur
 * for the next I/O. */
void fileservice_next(fileservice_t *fs, bool pass_done);

/* A new loop over the workload: every file again, the window from the first ones. */
void fileservice_reset(fileservice_t *fs);
