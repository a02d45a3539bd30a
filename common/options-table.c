/* fio's job options iofleet implements, as a table: names, fields, ranges, defaults, help; and the
 * checks of their string values. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "options-fio.h"
#include "options-internal.h"

/* --- string checks -------------------------------------------------------------------- */

int options_check_name(const char *key, const char *s, char *err, size_t errlen)
{
        char vb[ECHO_BUF];
        size_t len = strlen(s);

        if (len == 0) {
                options_err(err, errlen, "%s: must not be empty", key);
                return -EINVAL;
        }
        if (len > JOB_NAME_MAX) {
                options_err(err, errlen, "%s: length %zu is out of range 1..%d", key, len,
                            JOB_NAME_MAX);
                return -ERANGE;
        }
        for (const char *p = s; *p; p++) {
                char c = (char)((*p >= 'A' && *p <= 'Z') ? *p + 32 : *p);
                if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || c == '.' || c == '_' ||
                      c == '-')) {
                        options_err(err, errlen,
                                    "%s: '%s' may only contain A-Z, a-z, 0-9, '.', '_' and '-'",
                                    key, options_echo(vb, s));
                        return -EINVAL;
                }
        }
        return 0;
}

int options_check_directory(const char *key, const char *s, char *err, size_t errlen)
{
        char vb[ECHO_BUF];
        size_t len = strlen(s);

        if (len == 0) {
                options_err(err, errlen, "%s: must not be empty", key);
                return -EINVAL;
        }
        if (len > JOB_PATH_MAX) {
                options_err(err, errlen, "%s: length %zu is out of range 1..%d", key, len,
                            JOB_PATH_MAX);
                return -ERANGE;
        }
        for (const char *p = s; *p; p++)
                if ((unsigned char)*p < 0x20 || *p == 0x7f) {
                        options_err(err, errlen, "%s: '%s' contains a control character", key,
                                    options_echo(vb, s));
                        return -EINVAL;
                }
        return 0;
}

int options_check_filename(const char *key, const char *s, char *err, size_t errlen)
{
        if (streq(s, "-")) {
                options_err(err, errlen,
                            "%s: fio's '-' (stdin/stdout) is not supported by iofleet yet", key);
                return -EOPNOTSUPP;
        }
        return options_check_directory(key, s, err, errlen);
}

/* fio's $jobname, $jobnum, $filenum and $clientuid, and iofleet's $agent. As in fio, a token may
 * run on into other text ("$jobnum_x"), and a '$' that no letter follows stays as it is. */
int options_check_filename_format(const char *key, const char *s, char *err, size_t errlen)
{
        static const char *const tokens[] = {"jobname", "jobnum", "filenum", "clientuid", "agent"};
        char vb[ECHO_BUF], word[ECHO_MAX + 1];
        int r = options_check_directory(key, s, err, errlen);

        for (const char *p = s; r == 0 && (p = strchr(p, '$')); p++) {
                bool known = false;
                size_t n;

                for (size_t i = 0; i < ELEMENTSOF(tokens) && !known; i++)
                        known = strncmp(p + 1, tokens[i], strlen(tokens[i])) == 0;
                n = strspn(p + 1, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_");
                if (known || n == 0)
                        continue;
                snprintf(word, sizeof(word), "%.*s", (int)(n < ECHO_MAX ? n : ECHO_MAX), p + 1);
                options_err(err, errlen,
                            "%s: unknown token '$%s' in '%s' (known: $jobname, $jobnum, $filenum, "
                            "$clientuid, $agent)",
                            key, word, options_echo(vb, s));
                r = -EINVAL;
        }
        return r;
}

/* nfs://SERVER/EXPORT[?opt=v&...] as libnfs reads it. libnfs 4.0's NFSv4 fails writes of 4 KiB
 * or more, so version=4 is refused here rather than at the first large write. */
int options_check_nfs_url(const char *key, const char *s, char *err, size_t errlen)
{
        char vb[ECHO_BUF];
        const char *host = s + 6, *q;
        int r = options_check_directory(key, s, err, errlen);

        if (r < 0)
                return r;
        if (strncmp(s, "nfs://", 6) != 0 || !*host || *host == '/' || !strchr(host, '/') ||
            strchr(host, '/')[1] == 0 || strchr(host, '/')[1] == '?') {
                options_err(err, errlen,
                            "%s: '%s' is not nfs://SERVER/EXPORT[?nfsport=N&mountport=M...]", key,
                            options_echo(vb, s));
                return -EINVAL;
        }
        for (q = strchr(s, '?'); q; q = strchr(q, '&')) {
                q++;
                if (strncmp(q, "version=", 8) == 0 && strncmp(q + 8, "3", 1) != 0) {
                        options_err(err, errlen,
                                    "%s: %.12s: only NFSv3 is supported (libnfs's NFSv4 fails "
                                    "writes of 4 KiB or more); use version=3 or leave it out",
                                    key, q);
                        return -EINVAL;
                }
        }
        return 0;
}

/* --- the table ------------------------------------------------------------------------ */

static const char *const verify_choices[] = {"0",   "crc32c", "crc32c-intel", "xxhash",
                                             "md5", "sha256", "meta",         "pattern",
                                             "null", NULL};
static const int verify_values[] = {VERIFY_NONE,   VERIFY_CRC32C, VERIFY_CRC32C,
                                    VERIFY_XXHASH, VERIFY_MD5,    VERIFY_SHA256,
                                    VERIFY_META,   VERIFY_PATTERN, VERIFY_NULL};
#define ENGINE_NAME(name, kind) #name,
static const char *const engine_names[] = {ENGINE_LIST(ENGINE_NAME) NULL};
#undef ENGINE_NAME
static const char *const order_names[] = {"sequential", "random", "both", NULL};
static const char *const eta_names[] = {"always", "never", "auto", NULL};

#define NO_EFFECT "Accepted, no effect: a display option of fio's"

const job_option_t options_table[] = {
    {
        .name = "name",
        .type = OPT_STR,
        .offset = FIELD(char *, name),
        .check = options_check_name,
        .range = "1-64 of A-Za-z0-9._-",
        .example = "seqread",
        .help = "Job name; becomes part of generated file names",
    },
    {
        .name = "description",
        .type = OPT_STR,
        .no_effect = true,
        .range = "text",
        .example = "nightly",
        .help = "Text describing the job (accepted, no effect)",
    },
    {
        .name = "rw",
        .aliases = {"readwrite"},
        .type = OPT_CUSTOM,
        .set = options_set_rw,
        .validate = options_validate_rw,
        .range = "read|write|randread|randwrite|rw|readwrite|randrw[:N]",
        .choices = options_rw_choices,
        .def = "read",
        .example = "randread",
        .help = "I/O pattern (rw, randrw mix by rwmixread); randread:8: 8 I/Os per offset, "
                "write:4k: skip 4k after each",
    },
    {
        .name = "rwmixread",
        .type = OPT_UINT32,
        .offset = FIELD(uint32_t, rwmixread),
        .max = 100,
        .def = "50",
        .example = "70",
        .help = "Percent of reads in rw/randrw; sets rwmixwrite to the rest",
    },
    {
        .name = "rwmixwrite",
        .type = OPT_UINT32,
        .offset = FIELD(uint32_t, rwmixread),
        .max = 100,
        .inverse = true,
        .def = "50",
        .example = "30",
        .help = "Percent of writes in rw/randrw; sets rwmixread to the rest",
    },
    {
        .name = "bs",
        .aliases = {"blocksize"},
        .type = OPT_SIZE,
        .offset = FIELD(uint64_t, bs),
        .offset_write = FIELD(uint64_t, bs_write),
        .min = 1,
        .max = JOB_BS_MAX,
        .per_ddir = true,
        .def = "4k",
        .example = "4k",
        .help = "Block size; bs=read,write[,trim] sets each direction (trim is ignored)",
    },
    {
        .name = "size",
        .type = OPT_SIZE,
        .offset = FIELD(uint64_t, size),
        .percent_offset = FIELD(uint32_t, size_percent),
        .min = 1,
        .max = JOB_SIZE_MAX,
        .zero_unset = true,
        .range = "1..8e, or 1%..100% of the files",
        .example = "1g",
        .help = "Bytes per job clone, split over its files, or N% of each existing file; 0 = not "
                "given",
    },
    {
        .name = "filesize",
        .type = OPT_SIZE,
        .offset = FIELD(uint64_t, filesize),
        .min = 1,
        .max = JOB_SIZE_MAX,
        .zero_unset = true,
        .fio_range = true,
        .example = "1m",
        .help = "Size of each file; size then only caps the bytes of I/O; 0 = not given",
    },
    {
        .name = "nrfiles",
        .aliases = {"nrfile", "nr_files"},
        .type = OPT_UINT32,
        .offset = FIELD(uint32_t, nrfiles),
        .min = 1,
        .max = JOB_NRFILES_MAX,
        .def = "1",
        .example = "10",
        .help = "Files per job clone (ignored with filename=, as fio does)",
    },
    {
        .name = "offset",
        .aliases = {"fileoffset"},
        .type = OPT_SIZE,
        .offset = FIELD(uint64_t, offset),
        .max = JOB_SIZE_MAX,
        .def = "0",
        .example = "1g",
        .help = "Where I/O starts in each file",
    },
    {
        .name = "numjobs",
        .type = OPT_UINT32,
        .offset = FIELD(uint32_t, numjobs),
        .min = 1,
        .max = JOB_NUMJOBS_MAX,
        .def = "1",
        .example = "4",
        .help = "Number of clones of this job, each with its own files",
    },
    {
        .name = "iodepth",
        .type = OPT_UINT32,
        .offset = FIELD(uint32_t, iodepth),
        .min = 1,
        .max = JOB_IODEPTH_MAX,
        .def = "1",
        .example = "32",
        .help = "I/Os in flight (synchronous engines do one at a time, as in fio)",
    },
    {
        .name = "iodepth_batch_submit",
        .aliases = {"iodepth_batch"},
        .type = OPT_UINT32,
        .offset = FIELD(uint32_t, iodepth_batch_submit),
        .max = JOB_IODEPTH_MAX,
        .def = "1",
        .example = "16",
        .help = "I/Os submitted at once, at most iodepth; 0 = iodepth",
    },
    {
        .name = "iodepth_batch_complete_min",
        .aliases = {"iodepth_batch_complete"},
        .type = OPT_UINT32,
        .offset = FIELD(uint32_t, iodepth_batch_complete_min),
        .max = JOB_IODEPTH_MAX,
        .def = "1",
        .example = "1",
        .help = "Completions waited for at once, at most iodepth; 0 = poll",
    },
    {
        .name = "ioengine",
        .type = OPT_STR,
        .offset = FIELD(char *, ioengine),
        .choices = engine_names,
        .fio_choices = job_fio_unsupported_engines,
        .def = ENGINE_DEFAULT,
        .example = ENGINE_DEFAULT,
        .help = "How I/O is issued; null does none; metadata runs the metadata workload",
    },
    {
        .name = "direct",
        .type = OPT_BOOL,
        .offset = FIELD(bool, direct),
        .def = "0",
        .help = "O_DIRECT: bs and offset must then be multiples of 512",
    },
    {
        .name = "buffered",
        .type = OPT_BOOL,
        .offset = FIELD(bool, direct),
        .inverse = true,
        .def = "1",
        .help = "The opposite of direct: buffered=0 is direct=1",
    },
    {
        .name = "invalidate",
        .type = OPT_BOOL,
        .offset = FIELD(bool, invalidate),
        .def = "1",
        .help = "Drop the page cache of the job's files before it starts",
    },
    {
        .name = "runtime",
        .aliases = {"timeout"},
        .type = OPT_TIME,
        .offset = FIELD(uint64_t, runtime_ns),
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
        .help = "Loop over the workload until runtime has passed",
    },
    {
        .name = "ramp_time",
        .type = OPT_TIME,
        .offset = FIELD(uint64_t, ramp_time_ns),
        .max = JOB_RUNTIME_MAX,
        .unit_ns = NSEC_PER_SEC,
        .def = "0",
        .example = "10s",
        .help = "Run this long before counting (seconds if no unit)",
    },
    {
        .name = "startdelay",
        .type = OPT_TIME,
        .offset = FIELD(uint64_t, startdelay_ns),
        .max = JOB_RUNTIME_MAX,
        .unit_ns = NSEC_PER_SEC,
        .fio_range = true,
        .def = "0",
        .example = "5s",
        .help = "Start this long after the common start (seconds if no unit)",
    },
    {
        .name = "directory",
        .type = OPT_STR,
        .offset = FIELD(char *, directory),
        .fio_paths = true,
        .check = options_check_directory,
        .range = "path",
        .example = "/mnt/test",
        .help = "Directory for the job's files",
    },
    {
        .name = "filename",
        .type = OPT_STR,
        .offset = FIELD(char *, filename),
        .fio_paths = true,
        .check = options_check_filename,
        .range = "path",
        .example = "/dev/nvme0n1",
        .help = "File or device to use instead of generated names",
    },
    {
        .name = "filename_format",
        .type = OPT_STR,
        .offset = FIELD(char *, filename_format),
        .check = options_check_filename_format,
        .range = "path with $jobname $jobnum $filenum $clientuid $agent",
        .example = "data.$filenum",
        .help = "How file names are made (fio's default: $jobname.$jobnum.$filenum)",
    },
    {
        .name = "fsync",
        .type = OPT_UINT32,
        .offset = FIELD(uint32_t, fsync),
        .max = UINT32_MAX,
        .def = "0",
        .example = "32",
        .help = "fsync the file after every N writes; 0 = never",
    },
    {
        .name = "fdatasync",
        .type = OPT_UINT32,
        .offset = FIELD(uint32_t, fdatasync),
        .max = UINT32_MAX,
        .def = "0",
        .example = "32",
        .help = "fdatasync the file after every N writes; 0 = never",
    },
    {
        .name = "end_fsync",
        .type = OPT_BOOL,
        .offset = FIELD(bool, end_fsync),
        .def = "0",
        .help = "fsync each file when the job's writes are done",
    },
    {
        .name = "rate",
        .type = OPT_SIZE,
        .offset = FIELD(uint64_t, rate[DDIR_READ]),
        .offset_write = FIELD(uint64_t, rate[DDIR_WRITE]),
        .max = JOB_SIZE_MAX,
        .per_ddir = true,
        .def = "0",
        .example = "100m",
        .help = "Bytes/s cap per clone; rate=read,write[,trim]; 0 = none",
    },
    {
        .name = "rate_iops",
        .type = OPT_COUNT,
        .offset = FIELD(uint64_t, rate_iops[DDIR_READ]),
        .offset_write = FIELD(uint64_t, rate_iops[DDIR_WRITE]),
        .max = UINT32_MAX,
        .per_ddir = true,
        .def = "0",
        .example = "1000",
        .help = "IOs/s cap per clone; rate_iops=read,write[,trim]; 0 = none",
    },
    {
        .name = "randrepeat",
        .aliases = {"allrandrepeat"},
        .type = OPT_BOOL,
        .offset = FIELD(bool, randrepeat),
        .def = "1",
        .help = "Same random offsets run after run (randseed overrides 0)",
    },
    {
        .name = "randseed",
        .type = OPT_COUNT,
        .offset = FIELD(uint64_t, randseed),
        .max = UINT64_MAX,
        .sets_randseed = true,
        .def = "0x89",
        .example = "1234",
        .help = "Seed of the random offsets",
    },
    {
        .name = "norandommap",
        .type = OPT_BOOL,
        .offset = FIELD(bool, norandommap),
        .def = "0",
        .help = "Random offsets may repeat instead of covering each block once",
    },
    {
        .name = "readonly",
        .type = OPT_BOOL,
        .offset = FIELD(bool, readonly),
        .def = "0",
        .help = "Refuse the job if it would write",
    },
    {
        .name = "verify",
        .type = OPT_ENUM,
        .offset = FIELD_ENUM(verify_kind_t, verify),
        .choices = verify_choices,
        .values = verify_values,
        .fio_choices = job_fio_unsupported_verify,
        .offset_given = FIELD(bool, verify_set),
        .def = "0",
        .example = "crc32c",
        .help = "Check data: writes then reads back; read jobs check what was written",
    },
    {
        .name = "verify_fatal",
        .type = OPT_BOOL,
        .offset = FIELD(bool, verify_fatal),
        .def = "0",
        .help = "Stop the job at the first verify failure",
    },
    {
        .name = "thread",
        .type = OPT_BOOL,
        .offset = FIELD(bool, thread),
        .def = "0",
        .help = "Accepted, no effect: iofleet's workers are always threads",
    },
    {
        .name = "group_reporting",
        .type = OPT_BOOL,
        .offset = FIELD(bool, group_reporting),
        .def = "0",
        .help = "Report each job as a whole instead of per clone",
    },
    {
        .name = "eta",
        .type = OPT_STR,
        .no_effect = true,
        .choices = eta_names,
        .def = "auto",
        .example = "never",
        .help = NO_EFFECT,
    },
    {
        .name = "eta-newline",
        .type = OPT_TIME,
        .no_effect = true,
        .max = JOB_RUNTIME_MAX,
        .unit_ns = NSEC_PER_SEC,
        .def = "0",
        .example = "1",
        .help = NO_EFFECT,
    },
    {
        .name = "eta-interval",
        .type = OPT_TIME,
        .no_effect = true,
        .max = JOB_RUNTIME_MAX,
        .unit_ns = NSEC_PER_SEC,
        .def = "1s",
        .example = "1s",
        .help = NO_EFFECT,
    },
    {
        .name = "metadata_dirs",
        .type = OPT_UINT32,
        .offset = FIELD(uint32_t, metadata_dirs),
        .min = 1,
        .max = JOB_NRFILES_MAX,
        .def = "1",
        .example = "16",
        .help = "ioengine=metadata: directories the files are spread over",
    },
    {
        .name = "metadata_order",
        .type = OPT_STR,
        .offset = FIELD(char *, metadata_order),
        .choices = order_names,
        .def = "both",
        .example = "random",
        .help = "ioengine=metadata: file order of each phase",
    },
    {
        .name = "nfs_url",
        .type = OPT_STR,
        .offset = FIELD(char *, nfs_url),
        .check = options_check_nfs_url,
        .range = "nfs://SERVER/EXPORT[?nfsport=N&mountport=M&...]",
        .example = "nfs://10.0.0.1/export?nfsport=2049&mountport=20048",
        .help = "ioengine=nfs: the NFSv3 export (libnfs URL) the job's files are relative to",
    },
};

const size_t options_table_len = ELEMENTSOF(options_table);
