/* fio's single-host layout in the result: json+ bins, latency distribution, jobs[]. */
#pragma once

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hist.h"

/* json+'s "bins" of a latency: {"NANOSECONDS": count} for each non-empty bucket, the bucket's
 * midpoint as its value (fio keys its own buckets the same way). */
json_t *result_fio_bins(const hist_t *h);

/* fio's latency_ns, latency_us and latency_ms (percent of the I/Os by completion latency) from
 * the histograms of every direction, added to a job entry. */
void result_fio_latency(json_t *entry, const hist_t *const *lat, size_t nlat);

/* fio's job fields iofleet has but client_stats lacked: eta, elapsed and an empty trim block. */
void result_fio_job_fields(json_t *entry, uint64_t runtime_ns);

/* fio's jobs[] of a client_stats array: one entry per agent's job (clone), as each host's own fio
 * would write it, plus "All clients" when there is more than one agent. The entries are the
 * client_stats ones, shared (not copied: thousands of agents' entries would be held twice). */
json_t *result_fio_jobs(const json_t *client_stats, size_t n_agents);
/* Whether a client_stats entry is in jobs[] too. */
bool result_fio_job_listed(const json_t *entry, size_t n_agents);
