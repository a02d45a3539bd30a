/* fio 3.33's normal output, line for line, from the result's fio layout: a job entry's
 * directions, latency distribution, cpu and I/O depth lines, the run status groups and the disk
 * stats, in the units kb_base, unit_base and significant_figures ask for. */
#pragma once

#include <jansson.h>
#include <stdio.h>

/* How numbers are written (fio's kb_base, unit_base, significant_figures). */
typedef struct render_fmt {
        int kb_base;       /* 1024: IEC first ("KiB/s (kB/s)"), 1000: SI first */
        int unit_base;     /* 1: bits; 8 (or 0): bytes */
        unsigned sig_figs; /* significant figures, 1..10 */
} render_fmt_t;

/* The format entry's job asked for: its job options over the document's global options, fio's
 * defaults for what neither gives (an entry without options: the first job entry's). */
void render_fio_fmt(json_t *doc, json_t *entry, render_fmt_t *fmt);
/* A job entry after its header line: read, write (and mixed) blocks with latencies, percentiles
 * and bw/iops lines, then the latency distribution, cpu, IO depths, submit, complete, issued
 * rwts, errors and latency lines. */
void render_fio_entry(FILE *f, json_t *entry, const render_fmt_t *fmt);
/* "Run status group N (all jobs):" over the agents' entries of each reporting group. */
void render_fio_groups(FILE *f, json_t *stats, const render_fmt_t *fmt);
/* "Disk stats (read/write):" and a line per device (the agent's name first when several agents
 * report); nothing when no device was under the files. */
void render_fio_disks(FILE *f, json_t *doc);
