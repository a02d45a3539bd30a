/* The log file options' table (fio 3.33's meanings): which of fio's logs a job writes, per I/O or
 * averaged over a window, and how their files are named (common/fiolog.c). */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "fiolog.h"
#include "options-internal.h"

static int check_prefix(const char *key, const char *s, char *err, size_t errlen)
{
        char echo[ECHO_BUF];
        const char *why = fiolog_check_prefix(s);
        if (!why)
                return 0;
        options_err(err, errlen, "%s: '%s' %s", key, options_echo(echo, s), why);
        return -EINVAL;
}

#define DAY_MS (24ULL * 3600 * 1000)

const job_option_t options_table_logs[] = {
    {
        .name = "write_bw_log",
        .type = OPT_STR,
        .offset = FIELD(char *, bw_log),
        .value_optional = true,
        .check = check_prefix,
        .range = "a file prefix (none: the job's name)",
        .example = "seq",
        .help = "Write fio's bandwidth log, PREFIX_bw.N.log.AGENT in the run directory",
    },
    {
        .name = "write_iops_log",
        .type = OPT_STR,
        .offset = FIELD(char *, iops_log),
        .value_optional = true,
        .check = check_prefix,
        .range = "a file prefix (none: the job's name)",
        .example = "seq",
        .help = "Write fio's IOPS log, PREFIX_iops.N.log.AGENT in the run directory",
    },
    {
        .name = "write_lat_log",
        .type = OPT_STR,
        .offset = FIELD(char *, lat_log),
        .value_optional = true,
        .check = check_prefix,
        .range = "a file prefix (none: the job's name)",
        .example = "seq",
        .help = "Write fio's latency logs: PREFIX_clat, _slat and _lat (.N.log.AGENT), in ns",
    },
    {
        .name = "write_hist_log",
        .type = OPT_STR,
        .offset = FIELD(char *, hist_log),
        .value_optional = true,
        .check = check_prefix,
        .range = "a file prefix (none: the job's name)",
        .example = "seq",
        .help = "Write fio's completion latency histogram log, PREFIX_clat_hist.N.log.AGENT "
                "(needs log_hist_msec)",
    },
    {
        .name = "log_avg_msec",
        .type = OPT_TIME,
        .offset = FIELD(uint64_t, log_avg_ns),
        .max = DAY_MS * NSEC_PER_MSEC,
        .unit_ns = NSEC_PER_MSEC,
        .def = "0",
        .example = "1000",
        .help = "Average each log's entries over this window (ms if no unit); 0 = one per I/O",
    },
    {
        .name = "log_hist_msec",
        .type = OPT_TIME,
        .offset = FIELD(uint64_t, log_hist_ns),
        .max = DAY_MS * NSEC_PER_MSEC,
        .unit_ns = NSEC_PER_MSEC,
        .def = "0",
        .example = "1000",
        .help = "A histogram line per direction every this long (ms if no unit); 0 = none",
    },
    {
        .name = "log_hist_coarseness",
        .type = OPT_UINT32,
        .offset = FIELD(uint32_t, log_hist_coarseness),
        .max = FIOLOG_COARSENESS_MAX,
        .def = "0",
        .example = "4",
        .help = "Each step halves the histogram log's 1856 bins",
    },
    {
        .name = "log_max_value",
        .type = OPT_BOOL,
        .offset = FIELD(bool, log_max_value),
        .def = "0",
        .help = "With log_avg_msec, log each window's largest value rather than its mean",
    },
    {
        .name = "log_offset",
        .type = OPT_BOOL,
        .offset = FIELD(bool, log_offset),
        .def = "0",
        .help = "Add each I/O's offset to the log lines",
    },
    {
        .name = "per_job_logs",
        .type = OPT_BOOL,
        .offset = FIELD(bool, per_job_logs),
        .def = "1",
        .help = "A log file per clone (.N); 0: one per job name, the clones' lines one after "
                "another",
    },
    {
        /* fio preallocates its in-memory logs; iofleet's go to a file as they are made */
        .name = "log_entries",
        .type = OPT_COUNT,
        .no_effect = true,
        .min = 1,
        .max = UINT32_MAX,
        .def = "1024",
        .example = "65536",
        .help = "Accepted for fio's job files; no effect (the logs are written as they go, "
                "never held whole in memory)",
    },
};
const size_t options_table_logs_len = ELEMENTSOF(options_table_logs);

void options_logs_defaults(job_spec_t *j)
{
        j->per_job_logs = true;
}

int options_logs_validate(const job_spec_t *j, char *err, size_t errlen)
{
        static const char *const names[] = {"write_bw_log", "write_iops_log", "write_lat_log",
                                            "write_lat_log", "write_lat_log", "write_hist_log"};
        unsigned kinds = fiolog_kinds(j);
        if (!kinds)
                return 0;
        if (j->ioengine && streq(j->ioengine, ENGINE_METADATA)) {
                options_err(err, errlen,
                            "%s: ioengine=metadata has no I/O of its own to log (its phases' "
                            "figures are in the result)",
                            names[__builtin_ctz(kinds)]);
                return -EINVAL;
        }
        return 0;
}
