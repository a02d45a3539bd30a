/* Wire codec: the only place that packs and unpacks protobuf Envelopes, with size, version and
 * field checks. */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "fio-stats.h"
#include "hist.h"
#include "kv.h"
#include "iofleet.pb-c.h"

#define PROTOCOL_VERSION 2
/* Hard caps on one message, checked before decoding. */
#define WIRE_MAX_AGENT_MSG (16u << 20)
#define WIRE_MAX_CONTROL_MSG (64u << 20)

#define WIRE_MAX_ID 64
#define WIRE_MAX_NAME 64
#define WIRE_MAX_HOSTNAME 255
#define WIRE_MAX_LABELS 64
#define WIRE_MAX_LABEL_VALUE 256
#define WIRE_MAX_ROLES 8
#define WIRE_MAX_JOBS 64
/* Result entries in one Finished: a job's clones each get one without group_reporting. */
#define WIRE_MAX_RESULTS (WIRE_MAX_JOBS + 4096)
/* Samples of a steady-state window (one a second): ss_dur of an hour at most. */
#define WIRE_MAX_SS_SAMPLES 3600
#define WIRE_MAX_JOB_OPTIONS 256
#define WIRE_MAX_OPTION_VALUE 4096
#define WIRE_MAX_TEXT 4096
#define WIRE_MAX_INTERVALS 10000000u
#define WIRE_MAX_AGENTS 100000
/* Bytes one agent may report laying out (1 PiB): sums over agents stay far from overflow. */
#define WIRE_MAX_LAYOUT_BYTES (1ULL << 50)
#define WIRE_MAX_DEPTH 65536 /* iodepth */
#define WIRE_MAX_DISKS 64    /* devices an agent reports under disk_util */
#define WIRE_MAX_SETTINGS 256 /* server settings, mount options, sysctls, sweep parameters */
#define WIRE_MAX_PARTS 16
#define WIRE_MAX_POINTS 100000
/* fio's log files: bytes of one LogChunk, clones of one job (fio's numjobs), a stream's end. */
#define WIRE_MAX_LOG_CHUNK (1u << 20)
#define WIRE_MAX_CLONES 4096
#define WIRE_MAX_LOG_BYTES (UINT64_C(1) << 50)

typedef Iofleet__Envelope envelope_t;

/* Decodes one message of len bytes. Checks, in order: len <= cap (-EMSGSIZE), protobuf decoding
 * (-EBADMSG), protocol version (-EPROTO: *ret is still set so the caller can log the peer's
 * version and any Error it sent, but no logic may act on it), then the fields of the body
 * (-EBADMSG). err gets one line naming the problem. On success or -EPROTO the caller frees *ret
 * with wire_free(). */
int wire_decode(const void *buf, size_t len, size_t cap, envelope_t **ret, char *err,
                size_t errlen);
void wire_free(envelope_t **e);

/* Packs e (setting e->version) into a malloc'd buffer; 0 or -ENOMEM. */
int wire_encode(envelope_t *e, uint8_t **buf, size_t *len);

/* Name of the body type, for logs ("hello", "interval", ...). */
const char *wire_body_name(const envelope_t *e);

/* Fills pb from h (allocates pb->index/pb->count); free with wire_hist_done(). 0 or -ENOMEM. */
int wire_hist_from(Iofleet__Hist *pb, const hist_t *h);
void wire_hist_done(Iofleet__Hist *pb);
/* Adds a received histogram into h (decode already validated it). */
void wire_hist_add(hist_t *h, const Iofleet__Hist *pb);

/* One direction's counters as an agent keeps them (its runner's totals): bytes and IOs, errors,
 * and latency histograms (verify_errors: reads that failed verify=, counted in errors too). */
typedef struct wire_dir_counts {
        uint64_t bytes, ios, errors, short_ios, issued, dropped, syncs;
        uint64_t verify_errors;
        hist_t *clat, *slat, *lat, *sync_lat;
} wire_dir_counts_t;

/* A DirStats as it travels, with the memory its histograms need. */
typedef struct wire_dir {
        Iofleet__DirStats pb;
        Iofleet__Hist h[4];
} wire_dir_t;

/* Fills w with now (a Finished's totals: every histogram), or with now - before when before is
 * given (an interval's: the completion latency is its only histogram, all the coordinator sums
 * per interval; total, submission and sync latencies come whole in Finished). scratch is a
 * histogram to compute deltas in. Free with wire_dir_done(). */
void wire_dir_fill(wire_dir_t *w, const wire_dir_counts_t *now, const wire_dir_counts_t *before,
                   hist_t *scratch);
void wire_dir_done(wire_dir_t *w);

/* fio's job statistics as they travel, with the memory their buckets and samples need. */
typedef struct wire_fio {
        Iofleet__FioStats pb;
        Iofleet__SampleStat ss[4];
} wire_fio_t;

/* Points w->pb at f (f must outlive it); returns &w->pb. */
Iofleet__FioStats *wire_fio_fill(wire_fio_t *w, const fio_job_stats_t *f);
/* Adds a received FioStats (decode validated it; NULL adds nothing) into f. */
void wire_fio_add(fio_job_stats_t *f, const Iofleet__FioStats *pb);

#include "options.h"
/* Builds a job_spec from a job as it travelled: its name, then its options in order. Errors
 * (unknown option, bad value, invalid job) fill err with "job NAME: ..." */
int wire_job_spec(const Iofleet__Job *job, job_spec_t *spec, char *err, size_t errlen);

/* An agent's run message: Prepared, Started, Interval, Finished, Restored or an Error, the bodies
 * that carry run_id and a run_seq numbering them. */
bool wire_is_run_message(const envelope_t *e);
/* The run message number of such a message, 0 for other bodies or unnumbered ones;
 * wire_set_run_seq() sets it. */
uint64_t wire_run_seq(const envelope_t *e);
void wire_set_run_seq(envelope_t *e, uint64_t seq);
/* The run id of such a message, "" for other bodies. */
const char *wire_run_id(const envelope_t *e);

/* How long an agent of rank (0..nagents-1) holds its Finished after its last Interval: the
 * fleet's Finished (totals and histograms, about three Intervals' worth to read) come spread at
 * most one per WIRE_FINISH_STEP_NS and within WIRE_FINISH_SPREAD_MAX_NS in all, instead of
 * queued at the coordinator behind the last Intervals, which would then wait for them. */
#define WIRE_FINISH_STEP_NS (200 * (int64_t)1000)
#define WIRE_FINISH_SPREAD_MAX_NS (2 * (int64_t)1000000000)
int64_t wire_finish_hold_ns(uint32_t rank, uint32_t nagents);

/* Settings as they travel, borrowing the list's strings: *ptrs (and the returned array) are
 * malloc'd, free both with free(); NULL when out of memory. */
Iofleet__Setting *wire_settings(const kvlist_t *kv, Iofleet__Setting ***ptrs);
