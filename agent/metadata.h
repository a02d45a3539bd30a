/* The metadata workload (ioengine=metadata): create, stat, read and delete many files. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hist.h"

/* The operations of one pass over the files, in the order they run. */
typedef enum metadata_phase {
        MD_CREATE, /* open(O_CREAT|O_EXCL), write filesize bytes, close */
        MD_STAT,   /* lstat, checks type and size */
        MD_READ,   /* open, read filesize bytes, close */
        MD_DELETE, /* unlink */
        MD_PHASES,
} metadata_phase_t;

/* Which passes run: sequential (name order) first, then random (a fresh shuffle per phase). */
typedef enum metadata_order {
        MD_ORDER_SEQUENTIAL = 1u << 0,
        MD_ORDER_RANDOM = 1u << 1,
        MD_ORDER_BOTH = MD_ORDER_SEQUENTIAL | MD_ORDER_RANDOM,
} metadata_order_t;

/* Phase slots: sequential create..delete, then random create..delete. */
#define MD_SLOTS (2 * MD_PHASES)
#define MD_MAX_DIRS 1000000u /* as the option table's metadata_dirs range */
/* Files are numbered with at least this many digits, as bonnie++ does. */
#define MD_NAME_DIGITS 7

static inline int metadata_slot(bool random, metadata_phase_t phase)
{
        return (random ? MD_PHASES : 0) + (int)phase;
}

/* One phase of one order. Written by the worker alone with relaxed stores; any thread may read
 * them (relaxed loads, or metadata_phase_snapshot()) while it runs. */
typedef struct metadata_phase_stats {
        uint64_t ops;       /* operations completed */
        uint64_t errors;    /* operations failed (the first failure ends the workload) */
        uint64_t bytes;     /* written by create, read by read */
        int64_t elapsed_ns; /* from the phase's start to its latest completed operation */
        hist_t lat;         /* per operation; create and read time the whole open..close */
} metadata_phase_stats_t;

typedef struct metadata_stats {
        metadata_phase_stats_t phase[MD_SLOTS];
        int current;      /* slot running now, -1 before the first and after the last */
        uint64_t cleaned; /* files removed by the cleanup after a stop or a failure */
} metadata_stats_t;

typedef struct metadata_params {
        const char *directory; /* the directory the job works in, as named in messages */
        int dirfd;             /* that directory, opened (O_PATH will do) by the caller through the
                                * path policy: every name below it is looked up from this fd */
        const char *name;      /* unique per job, agent and clone ("JOB.AGENT.CLONE"); no '/' */
        uint32_t nrfiles;      /* files per pass, >= 1 */
        uint64_t filesize;     /* bytes written to and read from each file; 0: empty files */
        uint32_t dirs;         /* directories the files are spread over, 1..MD_MAX_DIRS */
        metadata_order_t order;
        uint64_t seed;    /* the random orders and the file data; same seed, same run */
        const int *stop;  /* read relaxed before each operation; NULL: never */
        int64_t end_mono; /* CLOCK_MONOTONIC ns at which to stop; INT64_MAX: none */
} metadata_params_t;

/* Empties st: counters zero, histograms empty, current -1. Call before another thread reads it;
 * metadata_run() only adds to it, so that repeated runs (time_based) accumulate. */
void metadata_stats_init(metadata_stats_t *st);
/* Allocates an initialised metadata_stats_t (about 350 KB); 0 or -ENOMEM. */
int metadata_stats_new(metadata_stats_t **ret);
void metadata_stats_free(metadata_stats_t **sp); /* NULL-safe, sets *sp = NULL */

/* Runs the passes that p->order names over p->nrfiles files in DIRECTORY/md.NAME.D/NNNNNNN
 * (D = 0..dirs-1, made first and removed last, except those that already existed; file i lives in
 * directory i * dirs / nrfiles). Every operation is relative to p->dirfd and to the md.NAME.D
 * directories opened beneath it without following links, so a name swapped for a symbolic link
 * is refused, never followed. A file already there is an error (EEXIST), never reused. The
 * first failing operation is counted and ends the workload. Whatever ends it, every file it
 * created is removed before it returns. Returns 0 when every phase ran to the end, 1 when the stop
 * flag or the end time cut it short, -errno on failure with one line in err naming the file.
 * Memory: 4 bytes per file for a random order, plus a buffer of min(filesize, 1 MiB). */
int metadata_run(const metadata_params_t *p, metadata_stats_t *st, char *err, size_t errlen);

/* Fills idx with the order in which slot visits files 0..n-1: 0, 1, ... for a sequential slot,
 * a permutation drawn from seed (a different one per phase) for a random slot. */
void metadata_file_order(uint32_t *idx, uint32_t n, uint64_t seed, int slot);

/* "sequential", "random", "both"; NULL means "both" (the default). -EINVAL for anything else. */
int metadata_order_from_string(const char *s);
/* "seq_create", "seq_stat", ..., "rand_delete"; "unknown" when slot is out of range. */
const char *metadata_slot_name(int slot);

/* For other threads while the worker runs: the slot running now (-1 if none), a copy of one
 * slot's counters (slot in 0..MD_SLOTS-1), and the operations completed over all slots. */
int metadata_current(const metadata_stats_t *st);
void metadata_phase_snapshot(metadata_phase_stats_t *dst, const metadata_stats_t *st, int slot);
uint64_t metadata_total_ops(const metadata_stats_t *st);
