/* What the option modules share (options.c, options-table.c, options-validate.c): the table's
 * shape, the table itself and the message helpers. Nothing outside common/options*.c includes it.
 */
#pragma once

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "options.h"
#include "util.h"

#define JOB_NAME_MAX 64
#define JOB_PATH_MAX (PATH_MAX - 1)
#define JOB_BS_MAX (2ULL << 30)
#define JOB_SIZE_MAX ((uint64_t)INT64_MAX) /* offsets are off_t */
#define JOB_NUMJOBS_MAX 4096
#define JOB_NRFILES_MAX 1000000
#define JOB_IODEPTH_MAX 65536
#define JOB_RUNTIME_MAX (3650 * NSEC_PER_DAY) /* ten years */
#define JOB_DIRECT_ALIGN 512                  /* what O_DIRECT needs at the least */
#define JOB_RANDSEED_DEFAULT 0x89             /* fio's */

#define ECHO_MAX 48 /* bytes of a user's value quoted back in a message */
#define ECHO_BUF (ECHO_MAX * 4 + 8)

typedef enum opt_type {
        OPT_STR,    /* char *: one of .choices, or any text .check accepts */
        OPT_ENUM,   /* an enum field: choosing .choices[i] stores .values[i] */
        OPT_SIZE,   /* uint64_t bytes, fio's int syntax with k/m/g/t/p */
        OPT_COUNT,  /* uint64_t count, same syntax as fio reads any int */
        OPT_UINT32, /* uint32_t count, same syntax */
        OPT_TIME,   /* uint64_t nanoseconds, fio's time syntax */
        OPT_BOOL,   /* bool; no value means true, as fio's --time_based */
        OPT_CUSTOM, /* .set parses the value into the spec, .validate checks it again */
} opt_type_t;

typedef struct job_option {
        const char *name;
        const char *aliases[2];
        opt_type_t type;
        size_t offset;                  /* of the field in job_spec_t */
        size_t offset_write;            /* .per_ddir: the write direction's field */
        uint64_t min, max;              /* numeric types, in stored units */
        uint64_t unit_ns;               /* OPT_TIME: unit of a bare number */
        bool zero_unset;                /* 0 means "not given", exempt from min */
        bool per_ddir;                  /* fio's "read,write,trim" values; trim is ignored */
        bool inverse;                   /* sets another option's field: max - v, or !b */
        bool no_effect;                 /* checked, then dropped: fio display options */
        bool fio_range;                 /* fio also takes "low-high", which iofleet does not */
        bool fio_paths;                 /* fio's ':' separates several paths, '\:' escapes */
        bool sets_randseed;             /* also records that randseed was given */
        bool value_optional;            /* OPT_STR: may stand alone ("" stored), as fio's
                                         * write_bw_log without a name */
        size_t percent_offset;          /* OPT_SIZE: "N%" stores N (1..100) in this uint32_t
                                         * field and 0 in the bytes; 0: no percentages */
        size_t offset_given;            /* a bool field set when the option is given; 0 none */
        const char *const *choices;     /* accepted values (OPT_STR, OPT_ENUM) */
        const int *values;              /* OPT_ENUM: what each choice stores */
        const char *const *fio_choices; /* real fio values iofleet does not do yet */
        int (*check)(const char *key, const char *s, char *err, size_t errlen);
        /* OPT_CUSTOM: applies value (0 or -errno with one line in err), and checks the fields it
         * sets as the wire may have filled them. */
        int (*set)(job_spec_t *j, const char *key, const char *value, char *err, size_t errlen);
        int (*validate)(const job_spec_t *j, char *err, size_t errlen);
        const char *range; /* help text of the range when not numeric */
        const char *def;   /* default as the user would write it */
        const char *example;
        const char *help;
} job_option_t;

/* offsetof() that refuses to compile when the field is not of type t. */
#define FIELD(t, f)                                                                                \
        (offsetof(job_spec_t, f) +                                                                 \
         0 * sizeof(char[__builtin_types_compatible_p(__typeof__(((job_spec_t *)0)->f), t) ? 1     \
                                                                                           : -1]))
/* The same for an enum field, which the table reads and writes as an int. */
#define FIELD_ENUM(t, f) (FIELD(t, f) + 0 * sizeof(char[sizeof(t) == sizeof(int) ? 1 : -1]))

extern const job_option_t options_table[];
extern const size_t options_table_len;
/* Block sizes, I/O pattern, pacing, offsets and placement (options-table-io.c). */
extern const job_option_t options_table_io[];
extern const size_t options_table_io_len;
/* Job order, files, buffers, verification and errors (options-table-files.c). */
extern const job_option_t options_table_files[];
extern const size_t options_table_files_len;
/* Statistics: measured latencies, reported percentiles (options-table-stats.c). */
extern const job_option_t options_table_stats[];
extern const size_t options_table_stats_len;
void options_stats_defaults(job_spec_t *j);
/* fio's log files (options-table-logs.c). */
extern const job_option_t options_table_logs[];
extern const size_t options_table_logs_len;
void options_logs_defaults(job_spec_t *j);
int options_logs_validate(const job_spec_t *j, char *err, size_t errlen);
/* The i-th option over every table; NULL past the end. */
const job_option_t *options_at(size_t i);

/* One line into err (when there is room), cut on a UTF-8 boundary. */
void options_err(char *err, size_t errlen, const char *fmt, ...) _printf_(3, 4);
/* Quotes user text into buf (ECHO_BUF bytes) as one printable line, shortened with "...". */
const char *options_echo(char *buf, const char *s);
/* "a, b, c" into buf (n bytes). */
const char *options_join(char *buf, size_t n, const char *const *list, const char *sep);
bool options_str_in(const char *s, const char *const *list);
/* Shortest form parse_size() reads back: "64k", "2g", or plain bytes. */
const char *options_format_size(char *buf, size_t n, uint64_t v);
/* A value of o as the user would write it: a size, a duration or a plain number. */
const char *options_format_value(char *buf, size_t n, const job_option_t *o, uint64_t v);
/* "key: <what><shown> is out of range min..max"; returns -ERANGE. */
int options_range_error(const job_option_t *o, const char *key, const char *what, const char *shown,
                        char *err, size_t errlen);

/* The checks of string values the table names: 0 or -errno with a message naming key. */
int options_check_name(const char *key, const char *s, char *err, size_t errlen);
int options_check_directory(const char *key, const char *s, char *err, size_t errlen);
int options_check_filename(const char *key, const char *s, char *err, size_t errlen);
int options_check_filename_format(const char *key, const char *s, char *err, size_t errlen);
int options_check_nfs_url(const char *key, const char *s, char *err, size_t errlen);

/* The I/O pattern, pacing, offset and placement options (options-io.c): their custom setters and
 * checks, the table's choices, the defaults job_spec_init() gives them, and the whole-job rules
 * job_spec_validate() applies to them. */
int options_set_rw(job_spec_t *j, const char *key, const char *value, char *err, size_t errlen);
int options_validate_rw(const job_spec_t *j, char *err, size_t errlen);
int options_set_bssplit(job_spec_t *j, const char *key, const char *value, char *err,
                        size_t errlen);
int options_validate_bssplit(const job_spec_t *j, char *err, size_t errlen);
int options_set_bsrange(job_spec_t *j, const char *key, const char *value, char *err,
                        size_t errlen);
int options_validate_bsrange(const job_spec_t *j, char *err, size_t errlen);
int options_set_random_distribution(job_spec_t *j, const char *key, const char *value, char *err,
                                    size_t errlen);
int options_validate_random_distribution(const job_spec_t *j, char *err, size_t errlen);
int options_set_latency_percentile(job_spec_t *j, const char *key, const char *value, char *err,
                                   size_t errlen);
int options_validate_latency_percentile(const job_spec_t *j, char *err, size_t errlen);
int options_set_cpus_allowed(job_spec_t *j, const char *key, const char *value, char *err,
                             size_t errlen);
int options_set_cpumask(job_spec_t *j, const char *key, const char *value, char *err,
                        size_t errlen);
int options_validate_cpus_allowed(const job_spec_t *j, char *err, size_t errlen);
int options_set_numa_cpu_nodes(job_spec_t *j, const char *key, const char *value, char *err,
                               size_t errlen);
int options_validate_numa_cpu_nodes(const job_spec_t *j, char *err, size_t errlen);
int options_set_numa_mem_policy(job_spec_t *j, const char *key, const char *value, char *err,
                                size_t errlen);
int options_validate_numa_mem_policy(const job_spec_t *j, char *err, size_t errlen);
int options_set_nice(job_spec_t *j, const char *key, const char *value, char *err, size_t errlen);
int options_validate_nice(const job_spec_t *j, char *err, size_t errlen);
int options_set_prio(job_spec_t *j, const char *key, const char *value, char *err, size_t errlen);
int options_validate_prio(const job_spec_t *j, char *err, size_t errlen);
int options_check_ioscheduler(const char *key, const char *s, char *err, size_t errlen);
int options_validate_random_generator(const job_spec_t *j, char *err, size_t errlen);
void options_io_defaults(job_spec_t *j);
int options_validate_io(const job_spec_t *j, char *err, size_t errlen);
extern const char *const options_rw_choices[];
extern const char *const options_rw_sequencer_choices[];
extern const char *const options_thinktime_type_choices[];
extern const char *const options_rate_process_choices[];
extern const char *const options_submit_mode_choices[];
extern const char *const options_random_generator_choices[];
extern const int options_random_generator_values[];
extern const char *const options_cpus_policy_choices[];
/* options-table-files.c's: defaults of its fields (job_spec_done() frees its strings). */
void options_files_defaults(job_spec_t *j);
/* The whole-job rules of those options (verify_only with time_based, ...). */
int options_files_validate(const job_spec_t *j, char *err, size_t errlen);
