/* fio's single-host layout in the result: json+ bins, latency distribution, jobs[]. */
#pragma once

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fio-stats.h"
#include "hist.h"
#include "iofleet.pb-c.h"
#include "options.h"

/* json+'s "bins" of a latency: {"NANOSECONDS": count} for each non-empty bucket, the bucket's
 * midpoint as its value (fio keys its own buckets the same way). */
json_t *result_fio_bins(const hist_t *h);

/* fio's latency_ns, latency_us and latency_ms (percent of total, the I/Os issued, by completion
 * latency; a non-empty bucket at least 0.01) from the histograms of every direction, added to a
 * job entry. total 0: the histograms' own count. */
void result_fio_latency(json_t *entry, const hist_t *const *lat, size_t nlat, uint64_t total);

/* fio's job fields iofleet has but client_stats lacked: eta, elapsed (from the start instant to
 * the job's end, in whole seconds rounded up; fio counts from its own start) and an empty trim
 * block. */
void result_fio_job_fields(json_t *entry, uint64_t elapsed_ns);

/* fio's jobs[] of a client_stats array: one entry per agent's job (clone), as each host's own fio
 * would write it, plus "All clients" when there is more than one agent. The entries are the
 * client_stats ones, shared (not copied: thousands of agents' entries would be held twice). */
json_t *result_fio_jobs(const json_t *client_stats, size_t n_agents);

/* fio's usr_cpu, sys_cpu, ctx, majf, minf, iodepth_level (shares of issued, the I/Os issued),
 * iodepth_submit and iodepth_complete of a job entry. */
void result_fio_usage(json_t *entry, const fio_job_stats_t *f, uint64_t issued);
/* fio's latency_depth, latency_target (ns), latency_percentile, latency_window (us): what fio
 * 3.33 writes for every job (spec NULL: no latency target). */
void result_fio_latency_target(json_t *entry, uint32_t depth, const job_spec_t *spec);
/* A job's own options ("job options"), and the options of every job's [global] sections
 * ("global options", NULL when there are none, as fio leaves the key out). */
json_t *result_fio_job_options(const Iofleet__Job *job);
json_t *result_fio_global_options(Iofleet__Job *const *jobs, size_t n);
/* An agent's devices (fio's disk_util entries, with aggr_* for a device with slaves and the
 * agent's hostname and name as fio's client mode adds its host's) appended to arr. */
void result_fio_disk_util(json_t *arr, Iofleet__DiskUtil *const *d, size_t n, const char *hostname,
                          const char *agent);
/* Whether a client_stats entry is in jobs[] too. */
bool result_fio_job_listed(const json_t *entry, size_t n_agents);
