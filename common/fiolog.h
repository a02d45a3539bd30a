/* fio's log files (write_bw_log, write_iops_log, write_lat_log, write_hist_log): their kinds,
 * file names, line formats and fio 3.33's latency histogram bins, shared by the agent that
 * writes them and the coordinator that keeps them. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "options.h"

/* One log of one job clone. The numbers travel on the wire (LogChunk.kind): append only. */
typedef enum fiolog_kind {
        FIOLOG_BW = 0,   /* PREFIX_bw: KiB/s */
        FIOLOG_IOPS = 1, /* PREFIX_iops */
        FIOLOG_CLAT = 2, /* PREFIX_clat: completion latency, ns (write_lat_log) */
        FIOLOG_SLAT = 3, /* PREFIX_slat: submission latency, ns (write_lat_log) */
        FIOLOG_LAT = 4,  /* PREFIX_lat: total latency, ns (write_lat_log) */
        FIOLOG_HIST = 5, /* PREFIX_clat_hist: completion latency histograms (write_hist_log) */
        FIOLOG_KINDS = 6,
} fiolog_kind_t;

/* fio 3.33's latency histogram: FIO_IO_U_PLAT_BITS 6, 29 groups of 64 bins; a hist log line
 * holds FIOLOG_HIST_BINS >> log_hist_coarseness of them. */
#define FIOLOG_PLAT_BITS 6
#define FIOLOG_PLAT_VAL (1u << FIOLOG_PLAT_BITS)
#define FIOLOG_HIST_BINS (29u * FIOLOG_PLAT_VAL)
#define FIOLOG_COARSENESS_MAX 6

/* Longest line of a kind: a plain one ("time, value, ddir, bs, offset, prio"), and a histogram
 * line of 1856 counts. */
#define FIOLOG_LINE_MAX 128
#define FIOLOG_HIST_LINE_MAX (64 + FIOLOG_HIST_BINS * 22)

/* "bw", "iops", "clat", "slat", "lat", "clat_hist"; NULL out of range. */
const char *fiolog_kind_name(fiolog_kind_t k);
/* The kinds job j writes: bit (1 << kind). write_lat_log writes clat, slat and lat. */
unsigned fiolog_kinds(const job_spec_t *j);
/* The prefix of kind k's files: the last path component of the write_*_log value, or the job's
 * name when the value is empty (fio's "jobname_type.x.log"). */
const char *fiolog_prefix(const job_spec_t *j, fiolog_kind_t k);
/* fio's file name into buf: PREFIX_KIND.N.log (N fio's thread number, as with per_job_logs) or,
 * with thread_number 0, PREFIX_KIND.log (per_job_logs=0); then ".AGENT" when agent is given, as
 * fio's client mode appends the host. 0, or -ENAMETOOLONG (too long for one file name). */
int fiolog_file_name(char *buf, size_t n, const job_spec_t *j, fiolog_kind_t k,
                     unsigned thread_number, const char *agent);
/* A write_*_log value's problem, or NULL when it is fine: it names the file's prefix. */
const char *fiolog_check_prefix(const char *value);

/* The averaging window of kind k in ms (0: one line per I/O), as fio 3.33 sets it up:
 * log_avg_msec, or for bw (iops) the smaller of it and bwavgtime (iopsavgtime) when that was
 * given. */
uint64_t fiolog_avg_ms(const job_spec_t *j, fiolog_kind_t k);

/* fio's plat_val_to_idx(): the histogram bin of a latency of ns nanoseconds. */
static inline unsigned fiolog_hist_bin(uint64_t ns)
{
        unsigned msb, err, idx;
        if (ns < 2 * FIOLOG_PLAT_VAL)
                return (unsigned)ns;
        msb = 63u - (unsigned)__builtin_clzll(ns);
        err = msb - FIOLOG_PLAT_BITS;
        idx = ((err + 1) << FIOLOG_PLAT_BITS) + (unsigned)((ns >> err) & (FIOLOG_PLAT_VAL - 1));
        return idx < FIOLOG_HIST_BINS - 1 ? idx : FIOLOG_HIST_BINS - 1;
}

/* fio's line of a plain log: "TIME, VALUE, DDIR, BS[, OFFSET], PRIO\n" (flush_samples()), into
 * buf (FIOLOG_LINE_MAX bytes). Returns its length. */
size_t fiolog_format_line(char *buf, uint64_t time_ms, uint64_t value, unsigned ddir, uint64_t bs,
                          bool with_offset, uint64_t offset);
/* fio's histogram line: "TIME, DDIR, BS, C0, C1, ...\n" with the FIOLOG_HIST_BINS counts summed
 * by 1 << coarseness, into buf (FIOLOG_HIST_LINE_MAX bytes). Returns its length. */
size_t fiolog_format_hist(char *buf, uint64_t time_ms, unsigned ddir, uint64_t bs,
                          const uint64_t *bins, unsigned coarseness);
/* Whether data holds only what fio's log lines are made of (digits, ", " and newlines). */
bool fiolog_text_ok(const uint8_t *data, size_t len);
