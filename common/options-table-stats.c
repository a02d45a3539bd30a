/* The statistics options' table (fio's meanings): which latencies are measured, which
 * percentiles the result reports, and whether a job is in it at all. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "options-internal.h"

static int cmp_double(const void *a, const void *b)
{
        double x = *(const double *)a, y = *(const double *)b;
        return x < y ? -1 : x > y;
}

int job_percentile_list(const char *s, double *p, char *err, size_t errlen)
{
        char echo[ECHO_BUF];
        int n = 0;

        for (const char *q = s;;) {
                char *end;
                double v;
                if (n == JOB_PERCENTILES_MAX) {
                        options_err(err, errlen,
                                    "percentile_list: '%s' has more than %d percentiles",
                                    options_echo(echo, s), JOB_PERCENTILES_MAX);
                        return -EINVAL;
                }
                errno = 0;
                v = strtod(q, &end);
                if (end == q || errno || !(v > 0 && v <= 100) || (*end && *end != ':')) {
                        options_err(err, errlen,
                                    "percentile_list: '%s' is not a ':'-separated list of "
                                    "percentiles above 0 and at most 100 (e.g. 50:99:99.9)",
                                    options_echo(echo, s));
                        return -EINVAL;
                }
                p[n++] = v;
                if (!*end)
                        break;
                q = end + 1;
        }
        qsort(p, (size_t)n, sizeof(*p), cmp_double); /* as fio sorts its list */
        return n;
}

static int check_percentiles(const char *key, const char *s, char *err, size_t errlen)
{
        double p[JOB_PERCENTILES_MAX];
        (void)key;
        return job_percentile_list(s, p, err, errlen) < 0 ? -EINVAL : 0;
}

static const char *const unified_choices[] = {"none", "mixed", "both", "0", "1", "2", NULL};
static const int unified_values[] = {JOB_UNIFIED_NONE, JOB_UNIFIED_MIXED, JOB_UNIFIED_BOTH,
                                     JOB_UNIFIED_NONE, JOB_UNIFIED_MIXED, JOB_UNIFIED_BOTH};

static const char *const kb_base_choices[] = {"1024", "1000", NULL};
static const int kb_base_values[] = {1024, 1000};
static const char *const unit_base_choices[] = {"0", "8", "1", NULL};
static const int unit_base_values[] = {0, 8, 1};

const job_option_t options_table_stats[] = {
    {
        .name = "clat_percentiles",
        .type = OPT_BOOL,
        .offset = FIELD(bool, clat_percentiles),
        .def = "1",
        .help = "Report percentiles of the completion latency",
    },
    {
        .name = "lat_percentiles",
        .type = OPT_BOOL,
        .offset = FIELD(bool, lat_percentiles),
        .def = "0",
        .help = "Report percentiles of the total latency (submission included)",
    },
    {
        .name = "slat_percentiles",
        .type = OPT_BOOL,
        .offset = FIELD(bool, slat_percentiles),
        .def = "0",
        .help = "Report percentiles of the submission latency",
    },
    {
        .name = "percentile_list",
        .type = OPT_STR,
        .offset = FIELD(char *, percentile_list),
        .check = check_percentiles,
        .range = "up to 20 percentiles, ':'-separated",
        .example = "50:99:99.9",
        .help = "The percentiles reported (fio's 17 by default)",
    },
    {
        .name = "disable_lat",
        .type = OPT_BOOL,
        .offset = FIELD(bool, disable_lat),
        .def = "0",
        .help = "Do not measure the total latency (reported as zeros)",
    },
    {
        .name = "disable_clat",
        .type = OPT_BOOL,
        .offset = FIELD(bool, disable_clat),
        .def = "0",
        .help = "Do not measure the completion latency (reported as zeros)",
    },
    {
        .name = "disable_slat",
        .type = OPT_BOOL,
        .offset = FIELD(bool, disable_slat),
        .def = "0",
        .help = "Do not measure the submission latency (reported as zeros)",
    },
    {
        .name = "disable_bw_measurement",
        .aliases = {"disable_bw"},
        .type = OPT_BOOL,
        .offset = FIELD(bool, disable_bw),
        .def = "0",
        .help = "No bandwidth and IOPS series figures (bw_min, iops_mean, ...)",
    },
    {
        .name = "gtod_reduce",
        .type = OPT_BOOL,
        .offset = FIELD(bool, gtod_reduce),
        .def = "0",
        .help = "All four disable_* options: no latencies, only counts",
    },
    {
        .name = "unified_rw_reporting",
        .type = OPT_ENUM,
        .offset = FIELD_ENUM(int, unified_rw),
        .choices = unified_choices,
        .values = unified_values,
        .def = "none",
        .example = "mixed",
        .help = "Reads and writes reported together as 'mixed' (both: and apart)",
    },
    {
        .name = "stats",
        .type = OPT_BOOL,
        .offset = FIELD(bool, stats),
        .def = "1",
        .help = "Report the job (0: it runs, and is left out of the result)",
    },
    {
        .name = "kb_base",
        .type = OPT_ENUM,
        .offset = FIELD_ENUM(int, kb_base),
        .choices = kb_base_choices,
        .values = kb_base_values,
        .def = "1024",
        .example = "1000",
        .help = "Sizes: 1024 reads k as 1024 and kib as 1000 (fio's compatibility mode), 1000 "
                "the reverse; the normal output's first unit follows it",
    },
    {
        .name = "unit_base",
        .type = OPT_ENUM,
        .offset = FIELD_ENUM(int, unit_base),
        .choices = unit_base_choices,
        .values = unit_base_values,
        .def = "0",
        .example = "1",
        .help = "The normal output's bandwidth in bytes (8, or 0: automatic) or bits (1)",
    },
    {
        .name = "significant_figures",
        .type = OPT_UINT32,
        .offset = FIELD(uint32_t, sig_figs),
        .min = 1,
        .max = 10,
        .def = "4",
        .example = "6",
        .help = "Digits of the normal output's IOPS, bandwidth and sizes",
    },
    {
        .name = "bwavgtime",
        .type = OPT_TIME,
        .offset = FIELD(uint64_t, bwavgtime_ns),
        .offset_given = FIELD(bool, bw_avg_given),
        .unit_ns = NSEC_PER_MSEC,
        .min = NSEC_PER_MSEC,
        .max = NSEC_PER_DAY,
        .def = "500",
        .example = "1000",
        .help = "Bandwidth samples (bw_min, bw_mean, ...) over this time each, in ms; the bw log "
                "takes the smaller of it and log_avg_msec",
    },
    {
        .name = "iopsavgtime",
        .type = OPT_TIME,
        .offset = FIELD(uint64_t, iopsavgtime_ns),
        .offset_given = FIELD(bool, iops_avg_given),
        .unit_ns = NSEC_PER_MSEC,
        .min = NSEC_PER_MSEC,
        .max = NSEC_PER_DAY,
        .def = "500",
        .example = "1000",
        .help = "IOPS samples (iops_min, iops_mean, ...) over this time each, in ms; the IOPS log "
                "takes the smaller of it and log_avg_msec",
    },
    {
        .name = "disk_util",
        .type = OPT_BOOL,
        .offset = FIELD(bool, disk_util),
        .def = "1",
        .help = "Report the devices under the job's files (reads, writes, utilization)",
    },
};
const size_t options_table_stats_len = ELEMENTSOF(options_table_stats);

void options_stats_defaults(job_spec_t *j)
{
        j->clat_percentiles = true;
        j->stats = true;
        j->kb_base = 1024;
        j->sig_figs = 4;
        j->bwavgtime_ns = 500 * NSEC_PER_MSEC;
        j->iopsavgtime_ns = 500 * NSEC_PER_MSEC;
        j->disk_util = true;
}
