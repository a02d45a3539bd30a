/* fio-style job options: the option table, one setter for the command line, job files and the wire,
 * whole-job checks. */
#include <assert.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "options.h"
#include "util.h"

#define JOB_NAME_MAX 64
#define JOB_PATH_MAX (PATH_MAX - 1)
#define JOB_BS_MAX (2ULL << 30)
#define JOB_SIZE_MAX ((uint64_t)INT64_MAX) /* offsets are off_t */
#define JOB_NUMJOBS_MAX 4096
#define JOB_RUNTIME_MAX (3650 * NSEC_PER_DAY) /* ten years */

#define ECHO_MAX 48 /* bytes of a user's value quoted back in a message */
#define ECHO_BUF (ECHO_MAX * 4 + 8)

typedef enum opt_type {
        OPT_STR,    /* char *: one of .choices, or any text .check accepts */
        OPT_ENUM,   /* rw_mode_t: index into .choices */
        OPT_SIZE,   /* uint64_t bytes, fio's int syntax with k/m/g/t/p */
        OPT_UINT32, /* uint32_t count, same syntax as fio reads any int */
        OPT_TIME,   /* uint64_t nanoseconds, fio's time syntax */
        OPT_BOOL,   /* bool */
} opt_type_t;

typedef struct job_option job_option_t;
struct job_option {
        const char *name;
        const char *aliases[2];
        opt_type_t type;
        size_t offset;                  /* of the field in job_spec_t */
        uint64_t min, max;              /* numeric types, in stored units */
        uint64_t unit_ns;               /* OPT_TIME: unit of a bare number */
        bool zero_unset;                /* 0 means "not given", exempt from min */
        bool per_ddir;                  /* fio takes "read,write,trim" values */
        bool fio_paths;                 /* fio's ':' separates several paths, '\:' escapes */
        const char *const *choices;     /* accepted values (OPT_STR, OPT_ENUM) */
        const char *const *fio_choices; /* real fio values iofleet does not do yet */
        int (*check)(const char *key, const char *s, char *err, size_t errlen);
        const char *range; /* help text of the range when not numeric */
        const char *def;   /* default as the user would write it */
        const char *example;
        const char *help;
};

/* offsetof() that refuses to compile when the field is not of type t. */
#define FIELD(t, f)                                                                                \
        (offsetof(job_spec_t, f) +                                                                 \
         0 * sizeof(char[__builtin_types_compatible_p(__typeof__(((job_spec_t *)0)->f), t) ? 1     \
                                                                                           : -1]))

static const char *const rw_names[] = {
    [RW_READ] = "read",
    [RW_WRITE] = "write",
    [RW_RANDREAD] = "randread",
    [RW_RANDWRITE] = "randwrite",
    NULL,
};
static const char *const rw_fio_names[] = {
    "trim", "randtrim", "rw", "readwrite", "randrw", "trimwrite", "randtrimwrite", NULL,
};
static const char *const engine_names[] = {"psync", "null", NULL};
static const char *const engine_fio_names[] = {
    "sync",         "vsync",    "pvsync",     "pvsync2",    "libaio",      "io_uring",
    "io_uring_cmd", "posixaio", "solarisaio", "windowsaio", "mmap",        "splice",
    "netsplice",    "sg",       "net",        "cpuio",      "rdma",        "rbd",
    "rados",        "e4defrag", "falloc",     "gfapi",      "gfapi_async", "libhdfs",
    "pmemblk",      "libpmem",  "dev-dax",    "ime_psync",  "ime_psyncv",  "ime_aio",
    "filecreate",   "filestat", "filedelete", "dircreate",  "dirstat",     "dirdelete",
    "http",         "nbd",      "nfs",        "exec",       "xnvme",       "libblkio",
    "libcufile",    "dfs",      "mtd",        "external",   NULL,
};

static int check_name(const char *key, const char *s, char *err, size_t errlen);
static int check_directory(const char *key, const char *s, char *err, size_t errlen);
static int check_filename(const char *key, const char *s, char *err, size_t errlen);

static const job_option_t job_options[] = {
    {
        .name = "name",
        .type = OPT_STR,
        .offset = FIELD(char *, name),
        .check = check_name,
        .range = "1-64 of A-Za-z0-9._-",
        .example = "seqread",
        .help = "Job name; becomes part of generated file names",
    },
    {
        .name = "rw",
        .aliases = {"readwrite"},
        .type = OPT_ENUM,
        .offset = FIELD(rw_mode_t, rw),
        .choices = rw_names,
        .fio_choices = rw_fio_names,
        .def = "read",
        .example = "randread",
        .help = "I/O pattern",
    },
    {
        .name = "bs",
        .aliases = {"blocksize"},
        .type = OPT_SIZE,
        .offset = FIELD(uint64_t, bs),
        .min = 1,
        .max = JOB_BS_MAX,
        .per_ddir = true,
        .def = "4k",
        .example = "4k",
        .help = "Block size of each I/O",
    },
    {
        .name = "size",
        .type = OPT_SIZE,
        .offset = FIELD(uint64_t, size),
        .min = 1,
        .max = JOB_SIZE_MAX,
        .zero_unset = true,
        .example = "1g",
        .help = "Bytes of file to work on, per job",
    },
    {
        .name = "numjobs",
        .type = OPT_UINT32,
        .offset = FIELD(uint32_t, numjobs),
        .min = 1,
        .max = JOB_NUMJOBS_MAX,
        .def = "1",
        .example = "4",
        .help = "Number of clones of this job, each with its own file",
    },
    {
        .name = "runtime",
        .aliases = {"timeout"},
        .type = OPT_TIME,
        .offset = FIELD(uint64_t, runtime_ns),
        .min = 0,
        .max = JOB_RUNTIME_MAX,
        .unit_ns = NSEC_PER_SEC,
        .def = "0",
        .example = "30s",
        .help = "Stop after this long (seconds if no unit); 0 = no limit",
    },
    {
        .name = "time_based",
        .type = OPT_BOOL,
        .offset = FIELD(bool, time_based),
        .def = "0",
        .example = "1",
        .help = "Loop over the workload until runtime has passed",
    },
    {
        .name = "directory",
        .type = OPT_STR,
        .offset = FIELD(char *, directory),
        .fio_paths = true,
        .check = check_directory,
        .range = "path",
        .example = "/mnt/test",
        .help = "Directory for the job's files",
    },
    {
        .name = "filename",
        .type = OPT_STR,
        .offset = FIELD(char *, filename),
        .fio_paths = true,
        .check = check_filename,
        .range = "path",
        .example = "/dev/nvme0n1",
        .help = "File or device to use instead of generated names",
    },
    {
        .name = "ioengine",
        .type = OPT_STR,
        .offset = FIELD(char *, ioengine),
        .choices = engine_names,
        .fio_choices = engine_fio_names,
        .def = "psync",
        .example = "psync",
        .help = "How I/O is issued: pread/pwrite, or nothing at all (null)",
    },
};

/* Real fio job options (and a few command-line flags) that iofleet does not implement yet,
 * separated by spaces;
 * naming one gets -EOPNOTSUPP rather than "unknown option". */
static const char fio_only_options[] =
    "allow_file_create allow_mounted_write allrandrepeat atomic ba blockalign "
    "bs_is_seq_rand bs_unaligned blocksize_unaligned bsrange blocksize_range bssplit "
    "buffer_compress_chunk buffer_compress_percentage buffer_pattern buffered cgroup "
    "clat_percentiles clocksource continue_on_error cpumask cpus_allowed "
    "cpus_allowed_policy create_fsync create_on_open create_only create_serialize "
    "dedupe_percentage description direct disable_bw_measurement disable_clat "
    "disable_lat disable_slat do_verify end_fsync eta eta-newline eta-interval "
    "exec_postrun exec_prerun exitall exitall_on_error fadvise_hint fallocate fdatasync "
    "file_append file_service_type filename_format filesize fill_device fill_fs "
    "fileoffset flow flow_id fsync fsync_on_close group_reporting gtod_reduce hipri "
    "ignore_error invalidate io_size io_limit io_submit_mode iodepth iodepth_batch "
    "iodepth_batch_submit iodepth_batch_complete iodepth_batch_complete_min "
    "iodepth_batch_complete_max iodepth_low iomem kb_base lat_percentiles "
    "latency_percentile latency_target latency_window lockfile log_avg_msec loops "
    "max_latency mem minimal new_group nice norandommap nrfiles nrfile number_ios "
    "numa_cpu_nodes numa_mem_policy offset offset_align offset_increment opendir "
    "openfiles output output-format overwrite percentage_random per_job_logs pre_read "
    "prio prioclass ramp_time random_distribution random_generator randrepeat randseed "
    "rate rate_iops rate_iops_min rate_min ratemin rate_process read_iolog readonly "
    "refill_buffers rw_sequencer rwmixread rwmixwrite scramble_buffers serialize_overlap "
    "softrandommap startdelay status-interval steadystate ss ss_dur ss_ramp stonewall "
    "sync sync_file_range thinktime thinktime_blocks thinktime_spin thread trim_backlog "
    "trim_percentage unique_filename unit_base uncached verify verify_backlog "
    "verify_fatal verify_interval verify_pattern wait_for wait_for_previous write_bw_log "
    "write_hist_log write_iolog write_iops_log write_lat_log zero_buffers zonemode "
    "zonerange zonesize zoneskip";

/* --- messages -------------------------------------------------------------------------- */

/* Cuts a UTF-8 sequence that truncation left incomplete at the end of s. */
static void utf8_trim_tail(char *s)
{
        size_t len = strlen(s), i = len, cont = 0, need;
        unsigned char c;

        while (i > 0 && cont < 3 && ((unsigned char)s[i - 1] & 0xC0) == 0x80) {
                i--;
                cont++;
        }
        if (i == 0)
                return;
        c = (unsigned char)s[i - 1];
        if (c < 0xC0)
                return;
        need = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : 2;
        if (cont + 1 < need)
                s[i - 1] = '\0';
}

static void err_set(char *err, size_t errlen, const char *fmt, ...) _printf_(3, 4);
static void err_set(char *err, size_t errlen, const char *fmt, ...)
{
        va_list ap;
        int n;

        if (!err || errlen == 0)
                return;
        va_start(ap, fmt);
        n = vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
        if (n < 0)
                err[0] = '\0';
        else if ((size_t)n >= errlen)
                utf8_trim_tail(err);
}

/* Quotes user text into buf (ECHO_BUF bytes) as one printable line, shortened with "...". */
static const char *echo(char *buf, const char *s)
{
        size_t o = 0, i;

        for (i = 0; s[i]; i++) {
                unsigned char c = (unsigned char)s[i];

                if (i >= ECHO_MAX) {
                        buf[o] = '\0';
                        utf8_trim_tail(buf);
                        o = strlen(buf);
                        memcpy(buf + o, "...", 4);
                        return buf;
                }
                if (c == '\n' || c == '\r' || c == '\t') {
                        buf[o++] = '\\';
                        buf[o++] = c == '\n' ? 'n' : c == '\r' ? 'r' : 't';
                } else if (c < 0x20 || c == 0x7f) {
                        o += (size_t)snprintf(buf + o, 5, "\\x%02x", c);
                } else {
                        buf[o++] = (char)c;
                }
        }
        buf[o] = '\0';
        return buf;
}

/* "a, b, c" into buf; shortened safely when it does not fit. */
static const char *join(char *buf, size_t n, const char *const *list, const char *sep)
{
        size_t o = 0;

        buf[0] = '\0';
        for (size_t i = 0; list[i] && o < n; i++) {
                int w = snprintf(buf + o, n - o, "%s%s", i ? sep : "", list[i]);
                if (w < 0)
                        break;
                o += (size_t)w;
        }
        return buf;
}

static bool str_in(const char *s, const char *const *list)
{
        for (size_t i = 0; list && list[i]; i++)
                if (streq(s, list[i]))
                        return true;
        return false;
}

static size_t strv_length(const char *const *list)
{
        size_t n = 0;

        while (list && list[n])
                n++;
        return n;
}

/* Shortest form that parse_size() reads back: "64k", "2g", or plain bytes. */
static const char *format_size(char *buf, size_t n, uint64_t v)
{
        static const char units[] = "kmgtp";

        for (int i = 4; v && i >= 0; i--) {
                unsigned shift = 10 * (unsigned)(i + 1);
                if (v % (1ULL << shift) == 0) {
                        snprintf(buf, n, "%llu%c", (unsigned long long)(v >> shift), units[i]);
                        return buf;
                }
        }
        snprintf(buf, n, "%llu", (unsigned long long)v);
        return buf;
}

/* Largest unit that divides exactly: "3650d", "90m", "1500ms", or nanoseconds. */
static const char *format_duration(char *buf, size_t n, uint64_t ns)
{
        static const struct {
                const char *name;
                uint64_t ns;
        } units[] = {
            {"d", NSEC_PER_DAY}, {"h", NSEC_PER_HOUR},  {"m", NSEC_PER_MIN},
            {"s", NSEC_PER_SEC}, {"ms", NSEC_PER_MSEC}, {"us", NSEC_PER_USEC},
        };

        for (size_t i = 0; ns && i < ELEMENTSOF(units); i++)
                if (ns % units[i].ns == 0) {
                        snprintf(buf, n, "%llu%s", (unsigned long long)(ns / units[i].ns),
                                 units[i].name);
                        return buf;
                }
        snprintf(buf, n, ns ? "%lluns" : "%llu", (unsigned long long)ns);
        return buf;
}

static const char *format_value(char *buf, size_t n, const job_option_t *o, uint64_t v)
{
        if (o->type == OPT_SIZE)
                return format_size(buf, n, v);
        if (o->type == OPT_TIME)
                return format_duration(buf, n, v);
        snprintf(buf, n, "%llu", (unsigned long long)v);
        return buf;
}

/* --- rw modes ------------------------------------------------------------------------- */

const char *rw_mode_to_string(rw_mode_t m)
{
        if ((unsigned)m >= ELEMENTSOF(rw_names) - 1)
                return NULL;
        return rw_names[m];
}

bool rw_mode_is_read(rw_mode_t m)
{
        return m == RW_READ || m == RW_RANDREAD;
}

bool rw_mode_is_random(rw_mode_t m)
{
        return m == RW_RANDREAD || m == RW_RANDWRITE;
}

/* --- string checks -------------------------------------------------------------------- */

static int check_name(const char *key, const char *s, char *err, size_t errlen)
{
        char vb[ECHO_BUF];
        size_t len = strlen(s);

        if (len == 0) {
                err_set(err, errlen, "%s: must not be empty", key);
                return -EINVAL;
        }
        if (len > JOB_NAME_MAX) {
                err_set(err, errlen, "%s: length %zu is out of range 1..%d", key, len,
                        JOB_NAME_MAX);
                return -ERANGE;
        }
        for (const char *p = s; *p; p++) {
                char c = (char)((*p >= 'A' && *p <= 'Z') ? *p + 32 : *p);
                if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || c == '.' || c == '_' ||
                      c == '-')) {
                        err_set(err, errlen,
                                "%s: '%s' may only contain A-Z, a-z, 0-9, '.', '_' and '-'", key,
                                echo(vb, s));
                        return -EINVAL;
                }
        }
        return 0;
}

static int check_directory(const char *key, const char *s, char *err, size_t errlen)
{
        char vb[ECHO_BUF];
        size_t len = strlen(s);

        if (len == 0) {
                err_set(err, errlen, "%s: must not be empty", key);
                return -EINVAL;
        }
        if (len > JOB_PATH_MAX) {
                err_set(err, errlen, "%s: length %zu is out of range 1..%d", key, len,
                        JOB_PATH_MAX);
                return -ERANGE;
        }
        for (const char *p = s; *p; p++)
                if ((unsigned char)*p < 0x20 || *p == 0x7f) {
                        err_set(err, errlen, "%s: '%s' contains a control character", key,
                                echo(vb, s));
                        return -EINVAL;
                }
        return 0;
}

static int check_filename(const char *key, const char *s, char *err, size_t errlen)
{
        if (streq(s, "-")) {
                err_set(err, errlen, "%s: fio's '-' (stdin/stdout) is not supported by iofleet yet",
                        key);
                return -EOPNOTSUPP;
        }
        return check_directory(key, s, err, errlen);
}

/* fio reads ':' in a path option as a separator of several paths and "\:" as a ':'. */
static int unescape_fio_path(const char *key, const char *s, char **ret, char *err, size_t errlen)
{
        char vb[ECHO_BUF];
        char *c = malloc(strlen(s) + 1), *o = c;

        if (!c)
                return -ENOMEM;
        for (const char *p = s; *p; p++) {
                if (p[0] == '\\' && p[1] == ':') {
                        *o++ = ':';
                        p++;
                } else if (*p == ':') {
                        err_set(err, errlen,
                                "%s: '%s' lists several paths, which iofleet does not support "
                                "yet (write '\\:' for a ':' inside a path)",
                                key, echo(vb, s));
                        free(c);
                        return -EOPNOTSUPP;
                } else {
                        *o++ = *p;
                }
        }
        *o = '\0';
        *ret = c;
        return 0;
}

/* Index of value in o->choices, or -errno with a message. */
static int choice_find(const job_option_t *o, const char *key, const char *value, char *err,
                       size_t errlen)
{
        char vb[ECHO_BUF], list[256];
        const char *colon = strchr(value, ':');

        for (size_t i = 0; o->choices[i]; i++)
                if (streq(value, o->choices[i]))
                        return (int)i;
        join(list, sizeof(list), o->choices, ", ");
        if (str_in(value, o->fio_choices)) {
                err_set(err, errlen, "%s: fio's '%s' is not supported by iofleet yet (use %s)", key,
                        value, list);
                return -EOPNOTSUPP;
        }
        if (colon) {
                /* fio's "randread:8", "external:/path/engine.so" */
                char base[32];
                size_t n = (size_t)(colon - value);

                if (n < sizeof(base)) {
                        memcpy(base, value, n);
                        base[n] = '\0';
                        if (str_in(base, o->choices) || str_in(base, o->fio_choices)) {
                                err_set(err, errlen,
                                        "%s: fio's ':' suffix in '%s' is not supported by "
                                        "iofleet yet (use %s)",
                                        key, echo(vb, value), list);
                                return -EOPNOTSUPP;
                        }
                }
        }
        err_set(err, errlen, "%s: '%s' is not one of %s", key, echo(vb, value), list);
        return -EINVAL;
}

/* --- the table at work ---------------------------------------------------------------- */

static void *field_of(job_spec_t *j, const job_option_t *o)
{
        return (char *)j + o->offset;
}

static const void *cfield_of(const job_spec_t *j, const job_option_t *o)
{
        return (const char *)j + o->offset;
}

static int range_error(const job_option_t *o, const char *key, const char *shown, char *err,
                       size_t errlen)
{
        char lo[32], hi[32];

        err_set(err, errlen, "%s: %s is out of range %s..%s", key, shown,
                format_value(lo, sizeof(lo), o, o->min), format_value(hi, sizeof(hi), o, o->max));
        return -ERANGE;
}

static int set_number(const job_option_t *o, const char *key, const char *value, job_spec_t *j,
                      char *err, size_t errlen)
{
        char vb[ECHO_BUF];
        const char *why = NULL;
        uint64_t v = 0;
        int r;

        if (o->per_ddir && strchr(value, ',')) {
                err_set(err, errlen,
                        "%s: separate read,write,trim values ('%s') are not supported by "
                        "iofleet yet",
                        key, echo(vb, value));
                return -EOPNOTSUPP;
        }
        if (o->type == OPT_TIME)
                r = parse_duration_why(value, o->unit_ns, &v, &why);
        else
                r = parse_size_why(value, &v, &why);
        if (r == -ERANGE)
                return range_error(o, key, echo(vb, value), err, errlen);
        if (r < 0) {
                if (o->type == OPT_UINT32)
                        err_set(err, errlen, "%s: '%s' is not a whole number (e.g. %s=%s)", key,
                                echo(vb, value), key, o->example);
                else if (strchr(why, '(')) /* the reason brings its own hint */
                        err_set(err, errlen, "%s: '%s' %s", key, echo(vb, value), why);
                else
                        err_set(err, errlen, "%s: '%s' %s (e.g. %s=%s)", key, echo(vb, value), why,
                                key, o->example);
                return r;
        }
        if ((v < o->min && !(o->zero_unset && v == 0)) || v > o->max)
                return range_error(o, key, echo(vb, value), err, errlen);

        if (o->type == OPT_UINT32)
                *(uint32_t *)field_of(j, o) = (uint32_t)v;
        else
                *(uint64_t *)field_of(j, o) = v;
        return 0;
}

static int set_string(const job_option_t *o, const char *key, const char *value, job_spec_t *j,
                      char *err, size_t errlen)
{
        char *copy = NULL, **dst = field_of(j, o);
        int r;

        if (o->choices) {
                r = choice_find(o, key, value, err, errlen);
                if (r < 0)
                        return r;
                value = o->choices[r];
        }
        if (o->fio_paths) {
                r = unescape_fio_path(key, value, &copy, err, errlen);
                if (r < 0)
                        return r;
        } else {
                copy = strdup(value);
                if (!copy)
                        return -ENOMEM;
        }
        if (o->check) {
                r = o->check(key, copy, err, errlen);
                if (r < 0) {
                        free(copy);
                        return r;
                }
        }
        free(*dst);
        *dst = copy;
        return 0;
}

static const job_option_t *option_find(const char *key)
{
        for (size_t i = 0; i < ELEMENTSOF(job_options); i++) {
                const job_option_t *o = &job_options[i];
                if (streq(key, o->name))
                        return o;
                for (size_t a = 0; a < ELEMENTSOF(o->aliases) && o->aliases[a]; a++)
                        if (streq(key, o->aliases[a]))
                                return o;
        }
        return NULL;
}

/* Levenshtein distance, for "did you mean"; keys are short, longer ones are not compared. */
static size_t edit_distance(const char *a, const char *b)
{
        size_t la = strlen(a), lb = strlen(b), prev[33], cur[33];

        if (la > 32 || lb > 32)
                return SIZE_MAX;
        for (size_t j = 0; j <= lb; j++)
                prev[j] = j;
        for (size_t i = 1; i <= la; i++) {
                cur[0] = i;
                for (size_t j = 1; j <= lb; j++) {
                        size_t sub = prev[j - 1] + (a[i - 1] != b[j - 1]);
                        size_t del = prev[j] + 1, ins = cur[j - 1] + 1;
                        cur[j] = sub < del ? (sub < ins ? sub : ins) : (del < ins ? del : ins);
                }
                memcpy(prev, cur, sizeof(size_t) * (lb + 1));
        }
        return prev[lb];
}

/* Copies the next space-separated word of *p into buf (n bytes); false at the end. */
static bool next_word(const char **p, char *buf, size_t n)
{
        const char *s = *p + strspn(*p, " ");
        size_t len = strcspn(s, " ");

        if (len == 0 || len >= n)
                return false;
        memcpy(buf, s, len);
        buf[len] = '\0';
        *p = s + len;
        return true;
}

static bool word_in(const char *w, const char *words)
{
        char buf[64];

        while (next_word(&words, buf, sizeof(buf)))
                if (streq(w, buf))
                        return true;
        return false;
}

static void consider(const char *key, const char *cand, char *best, size_t *best_d)
{
        size_t lk = strlen(key), lc = strlen(cand), d;

        if ((lk > lc ? lk - lc : lc - lk) > 2) /* at least that many edits: never suggested */
                return;
        d = edit_distance(key, cand);

        if (d < *best_d) {
                *best_d = d;
                snprintf(best, 64, "%s", cand);
        }
}

/* The known option nearest to key into best (64 bytes), if near enough to be a typo. */
static bool suggest(const char *key, char *best)
{
        const char *words = fio_only_options;
        size_t best_d = SIZE_MAX;
        char w[64];

        for (size_t i = 0; i < ELEMENTSOF(job_options); i++) {
                consider(key, job_options[i].name, best, &best_d);
                for (size_t a = 0; a < ELEMENTSOF(job_options[i].aliases); a++)
                        if (job_options[i].aliases[a])
                                consider(key, job_options[i].aliases[a], best, &best_d);
        }
        while (next_word(&words, w, sizeof(w)))
                consider(key, w, best, &best_d);
        return best_d <= (strlen(key) >= 6 ? 2u : 1u);
}

int job_option_set(job_spec_t *j, const char *key, const char *value, char *err, size_t errlen)
{
        char kb[ECHO_BUF], vb[ECHO_BUF];
        const job_option_t *o;
        char hint[64];
        bool b;
        int r;

        assert(j);
        assert(key);

        if (key[0] == '-' && key[1] == '-')
                key += 2;
        o = option_find(key);
        if (!o) {
                if (word_in(key, fio_only_options)) {
                        err_set(err, errlen, "fio option '%s' is not supported by iofleet yet",
                                key);
                        return -EOPNOTSUPP;
                }
                if (suggest(key, hint))
                        err_set(err, errlen, "unknown option '%s' (did you mean '%s'?)",
                                echo(kb, key), hint);
                else
                        err_set(err, errlen, "unknown option '%s'", echo(kb, key));
                return -ENOENT;
        }

        if (o->type == OPT_BOOL) {
                /* fio's "--time_based" with no value means on */
                if (parse_bool(value ? value : "", &b) < 0) {
                        err_set(err, errlen,
                                "%s: '%s' is not a boolean (1/0, true/false, yes/no, on/off)", key,
                                echo(vb, value));
                        return -EINVAL;
                }
                *(bool *)field_of(j, o) = b;
                return 0;
        }
        if (strempty(value)) {
                err_set(err, errlen, "%s: needs a value (e.g. %s=%s)", key, key, o->example);
                return -EINVAL;
        }

        switch (o->type) {
        case OPT_ENUM:
                r = choice_find(o, key, value, err, errlen);
                if (r < 0)
                        return r;
                *(rw_mode_t *)field_of(j, o) = (rw_mode_t)r;
                return 0;
        case OPT_STR:
                return set_string(o, key, value, j, err, errlen);
        case OPT_SIZE:
        case OPT_UINT32:
        case OPT_TIME:
                return set_number(o, key, value, j, err, errlen);
        case OPT_BOOL:
                break;
        }
        assert(!"unhandled option type");
        return -EINVAL;
}

/* --- whole jobs ----------------------------------------------------------------------- */

int job_spec_init(job_spec_t *j, const char *name)
{
        job_spec_t n = {
            .rw = RW_READ,
            .bs = 4096,
            .numjobs = 1,
        };

        assert(j);
        if (name) {
                n.name = strdup(name);
                if (!n.name)
                        return -ENOMEM;
        }
        n.ioengine = strdup("psync");
        if (!n.ioengine) {
                free(n.name);
                return -ENOMEM;
        }
        *j = n;
        return 0;
}

void job_spec_done(job_spec_t *j)
{
        if (!j)
                return;
        free(j->name);
        free(j->directory);
        free(j->filename);
        free(j->ioengine);
        j->name = j->directory = j->filename = j->ioengine = NULL;
}

static int validate_field(const job_spec_t *j, const job_option_t *o, char *err, size_t errlen)
{
        char vb[ECHO_BUF], list[256], shown[32];
        uint64_t v;

        switch (o->type) {
        case OPT_ENUM: {
                unsigned idx = (unsigned)*(const rw_mode_t *)cfield_of(j, o);
                if (idx >= strv_length(o->choices)) {
                        err_set(err, errlen, "%s: %u is not one of %s", o->name, idx,
                                join(list, sizeof(list), o->choices, ", "));
                        return -EINVAL;
                }
                return 0;
        }
        case OPT_STR: {
                const char *s = *(char *const *)cfield_of(j, o);
                if (!s) {
                        if (!o->choices)
                                return 0;
                        err_set(err, errlen, "%s: required (e.g. %s=%s)", o->name, o->name,
                                o->example);
                        return -EINVAL;
                }
                if (o->choices && !str_in(s, o->choices)) {
                        int r = str_in(s, o->fio_choices) ? -EOPNOTSUPP : -EINVAL;
                        err_set(err, errlen, "%s: '%s' is not one of %s", o->name, echo(vb, s),
                                join(list, sizeof(list), o->choices, ", "));
                        return r;
                }
                return o->check ? o->check(o->name, s, err, errlen) : 0;
        }
        case OPT_SIZE:
        case OPT_TIME:
                v = *(const uint64_t *)cfield_of(j, o);
                break;
        case OPT_UINT32:
                v = *(const uint32_t *)cfield_of(j, o);
                break;
        case OPT_BOOL:
        default:
                return 0;
        }
        if ((v < o->min && !(o->zero_unset && v == 0)) || v > o->max)
                return range_error(o, o->name, format_value(shown, sizeof(shown), o, v), err,
                                   errlen);
        return 0;
}

int job_spec_validate(const job_spec_t *j, char *err, size_t errlen)
{
        char a[32], b[32];
        int r;

        assert(j);
        for (size_t i = 0; i < ELEMENTSOF(job_options); i++) {
                r = validate_field(j, &job_options[i], err, errlen);
                if (r < 0)
                        return r;
        }
        if (j->time_based && j->runtime_ns == 0) {
                err_set(err, errlen, "time_based: needs runtime=... (e.g. runtime=30s)");
                return -EINVAL;
        }
        if (j->size == 0) {
                if (!streq(j->ioengine, "null")) {
                        err_set(err, errlen, "size: required (e.g. size=1g)");
                        return -EINVAL;
                }
                if (!j->time_based) {
                        err_set(err, errlen,
                                "size: required (e.g. size=1g) unless ioengine=null runs "
                                "time_based with a runtime");
                        return -EINVAL;
                }
        } else if (j->bs > j->size) {
                err_set(err, errlen, "bs: %s is larger than size=%s",
                        format_size(a, sizeof(a), j->bs), format_size(b, sizeof(b), j->size));
                return -EINVAL;
        }
        return 0;
}

/* --- help ----------------------------------------------------------------------------- */

static const char *const type_names[] = {
    [OPT_STR] = "str",    [OPT_ENUM] = "str",  [OPT_SIZE] = "size",
    [OPT_UINT32] = "int", [OPT_TIME] = "time", [OPT_BOOL] = "bool",
};

void job_options_help(FILE *f)
{
        char range[256], lo[32], hi[32];

        fprintf(f, "%-11s %-5s %-8s %-30s %s\n", "option", "type", "default", "range",
                "description");
        for (size_t i = 0; i < ELEMENTSOF(job_options); i++) {
                const job_option_t *o = &job_options[i];

                if (o->choices)
                        join(range, sizeof(range), o->choices, "|");
                else if (o->type == OPT_BOOL)
                        snprintf(range, sizeof(range), "0|1");
                else if (o->range)
                        snprintf(range, sizeof(range), "%s", o->range);
                else
                        snprintf(range, sizeof(range), "%s..%s",
                                 format_value(lo, sizeof(lo), o, o->min),
                                 format_value(hi, sizeof(hi), o, o->max));
                fprintf(f, "%-11s %-5s %-8s %-30s %s", o->name, type_names[o->type],
                        o->def ? o->def : "-", range, o->help);
                for (size_t a = 0; a < ELEMENTSOF(o->aliases) && o->aliases[a]; a++)
                        fprintf(f, "%s%s", a ? ", " : " (alias: ", o->aliases[a]);
                fputs(o->aliases[0] ? ")\n" : "\n", f);
        }
}
