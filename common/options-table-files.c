/* fio's options of job order, files, buffers, verification and errors, as a table (the rest are in
 * options-table.c), with their defaults, the checks of their values and their whole-job rules. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "options-internal.h"
#include "options-values.h"
#include "pattern.h"

/* --- string checks -------------------------------------------------------------------- */

static int check_job_name(const char *key, const char *s, char *err, size_t errlen)
{
        return options_check_name(key, s, err, errlen);
}

static int check_fst(const char *key, const char *s, char *err, size_t errlen)
{
        fst_t f;
        (void)key;
        return fst_parse(s, &f, err, errlen);
}

static int check_ignore_error(const char *key, const char *s, char *err, size_t errlen)
{
        ignore_error_t ie;
        (void)key;
        return ignore_error_parse(s, &ie, err, errlen);
}

static int check_ss(const char *key, const char *s, char *err, size_t errlen)
{
        ss_spec_t ss;
        (void)key;
        return ss_parse(s, &ss, err, errlen);
}

/* exec_prerun / exec_postrun: a name the agents' configs may allow, never a command line. */
static int check_command_name(const char *key, const char *s, char *err, size_t errlen)
{
        char vb[ECHO_BUF];
        if (exec_name_valid(s))
                return 0;
        options_err(err, errlen,
                    "%s: '%s' is a command line; agents run as root, so a job only names a "
                    "program an agent's config allows (allow_commands = NAME:/absolute/path), "
                    "never gives one",
                    key, options_echo(vb, s));
        return -EOPNOTSUPP;
}

static int check_buffer_pattern(const char *key, const char *s, char *err, size_t errlen)
{
        pattern_t p;
        return pattern_parse(key, s, false, &p, err, errlen);
}

static int check_verify_pattern(const char *key, const char *s, char *err, size_t errlen)
{
        pattern_t p;
        return pattern_parse(key, s, true, &p, err, errlen);
}

/* --- the table ------------------------------------------------------------------------ */

static const char *const fallocate_choices[] = {"none", "native", "posix", "keep",
                                                 "truncate", "0", "1", NULL};
static const int fallocate_values[] = {JOB_FALLOCATE_NONE,  JOB_FALLOCATE_NATIVE,
                                       JOB_FALLOCATE_POSIX, JOB_FALLOCATE_KEEP,
                                       JOB_FALLOCATE_TRUNCATE, JOB_FALLOCATE_NONE,
                                       JOB_FALLOCATE_POSIX};
static const char *const fadvise_choices[] = {"0", "1", "sequential", "random", NULL};
static const int fadvise_values[] = {JOB_FADVISE_NONE, JOB_FADVISE_WORKLOAD, JOB_FADVISE_SEQUENTIAL,
                                     JOB_FADVISE_RANDOM};
static const char *const coe_choices[] = {"none", "read", "write", "io", "verify", "all",
                                           "0",    "1",    NULL};
static const int coe_values[] = {0, JOB_ERR_READ, JOB_ERR_WRITE, JOB_ERR_READ | JOB_ERR_WRITE,
                                 JOB_ERR_VERIFY, JOB_ERR_ALL, 0, JOB_ERR_ALL};
static const char *const dedupe_mode_choices[] = {"repeat", "working_set", NULL};
static const int dedupe_mode_values[] = {JOB_DEDUPE_REPEAT, JOB_DEDUPE_WORKING_SET};

static const char *const exit_what_choices[] = {"group", "stonewall", "all", NULL};
static const int exit_what_values[] = {JOB_EXIT_GROUP, JOB_EXIT_STONEWALL, JOB_EXIT_ALL};

const job_option_t options_table_files[] = {
    /* job order */
    {
        .name = "stonewall",
        .aliases = {"wait_for_previous"},
        .type = OPT_BOOL,
        .offset = FIELD(bool, stonewall),
        .def = "0",
        .help = "Start once every job before this one is done (a new group)",
    },
    {
        .name = "new_group",
        .type = OPT_BOOL,
        .offset = FIELD(bool, new_group),
        .def = "0",
        .help = "Start a new reporting group (groupid) without waiting",
    },
    {
        .name = "wait_for",
        .type = OPT_STR,
        .offset = FIELD(char *, wait_for),
        .check = check_job_name,
        .range = "an earlier job's name",
        .example = "prepare",
        .help = "Start once every clone of the named earlier job is done",
    },
    {
        .name = "exitall",
        .type = OPT_BOOL,
        .offset = FIELD(bool, exitall),
        .def = "0",
        .help = "When one job of the group ends, end the others (see exit_what)",
    },
    {
        .name = "exit_what",
        .type = OPT_ENUM,
        .offset = FIELD_ENUM(int, exit_what),
        .choices = exit_what_choices,
        .values = exit_what_values,
        .def = "group",
        .example = "all",
        .help = "What exitall ends: the group, the running jobs (stonewall), or all",
    },
    {
        .name = "exitall_on_error",
        .type = OPT_BOOL,
        .offset = FIELD(bool, exitall_on_error),
        .def = "0",
        .help = "When a job ends in error, end the others of its group",
    },
    {
        .name = "loops",
        .type = OPT_UINT32,
        .offset = FIELD(uint32_t, loops),
        .min = 1,
        .max = UINT32_MAX,
        .def = "1",
        .example = "3",
        .help = "Run the (size-bound) workload this many times",
    },
    /* files (agent/layout.c, agent/fileservice.c) */
    {
        .name = "fallocate",
        .type = OPT_ENUM,
        .offset = FIELD_ENUM(int, fallocate),
        .choices = fallocate_choices,
        .values = fallocate_values,
        .def = "native",
        .example = "none",
        .help = "How files written are reserved: native/posix allocate, keep keeps the size, "
                "truncate only sizes, none does nothing",
    },
    {
        .name = "create_on_open",
        .type = OPT_BOOL,
        .offset = FIELD(bool, create_on_open),
        .def = "0",
        .help = "No layout: the job's open creates its files",
    },
    {
        .name = "create_only",
        .type = OPT_BOOL,
        .offset = FIELD(bool, create_only),
        .def = "0",
        .help = "Lay out the files, do no I/O",
    },
    {
        .name = "create_fsync",
        .type = OPT_BOOL,
        .offset = FIELD(bool, create_fsync),
        .def = "1",
        .help = "fsync what layout wrote",
    },
    {
        .name = "create_serialize",
        .type = OPT_BOOL,
        .offset = FIELD(bool, create_serialize),
        .def = "1",
        .help = "The agent's workers lay out one at a time (files not interleaved on disk)",
    },
    {
        .name = "allow_file_create",
        .type = OPT_BOOL,
        .offset = FIELD(bool, allow_file_create),
        .def = "1",
        .help = "A missing (or too short) file may be made; 0: it is an error",
    },
    {
        .name = "overwrite",
        .type = OPT_BOOL,
        .offset = FIELD(bool, overwrite),
        .def = "0",
        .help = "A written file too short is laid out in full first (not only reserved)",
    },
    {
        .name = "file_append",
        .type = OPT_BOOL,
        .offset = FIELD(bool, file_append),
        .def = "0",
        .help = "I/O starts at each file's end (offset = its size)",
    },
    {
        .name = "unique_filename",
        .type = OPT_BOOL,
        .offset = FIELD(bool, unique_filename),
        .def = "1",
        .help = "Generated names carry the agent's name; 0: fio's $jobname.$jobnum.$filenum",
    },
    {
        .name = "unlink",
        .type = OPT_BOOL,
        .offset = FIELD(bool, unlink),
        .def = "0",
        .help = "Remove the job's files when it is done",
    },
    {
        .name = "unlink_each_loop",
        .type = OPT_BOOL,
        .offset = FIELD(bool, unlink_each_loop),
        .def = "0",
        .help = "Remove (and make afresh) the job's files after each loop",
    },
    {
        .name = "fsync_on_close",
        .type = OPT_BOOL,
        .offset = FIELD(bool, fsync_on_close),
        .def = "0",
        .help = "fsync a written file when it is closed",
    },
    {
        .name = "pre_read",
        .type = OPT_BOOL,
        .offset = FIELD(bool, pre_read),
        .def = "0",
        .help = "Read the files into the page cache before the start (clears invalidate)",
    },
    {
        .name = "fadvise_hint",
        .type = OPT_ENUM,
        .offset = FIELD_ENUM(int, fadvise_hint),
        .choices = fadvise_choices,
        .values = fadvise_values,
        .def = "1",
        .example = "random",
        .help = "posix_fadvise of the files: 1 as the workload, sequential, random, 0 none",
    },
    {
        .name = "file_service_type",
        .type = OPT_STR,
        .offset = FIELD(char *, file_service_type),
        .check = check_fst,
        .range = "roundrobin|random|sequential[:N], zipf|pareto|normal|gauss[:V]",
        .def = "roundrobin",
        .example = "random:8",
        .help = "Which file the next I/O goes to",
    },
    {
        .name = "openfiles",
        .type = OPT_UINT32,
        .offset = FIELD(uint32_t, openfiles),
        .min = 1,
        .max = JOB_NRFILES_MAX,
        .zero_unset = true,
        .example = "4",
        .help = "Files worked on at once (each done before the next joins); 0 = all",
    },
    {
        .name = "opendir",
        .type = OPT_STR,
        .offset = FIELD(char *, opendir),
        .check = options_check_directory,
        .range = "path",
        .example = "/mnt/data",
        .help = "Every regular file below this directory is one of the job's files",
    },
    /* errors and limits */
    {
        .name = "continue_on_error",
        .type = OPT_ENUM,
        .offset = FIELD_ENUM(int, continue_on_error),
        .choices = coe_choices,
        .values = coe_values,
        .def = "none",
        .example = "io",
        .help = "Go on after EIO/EILSEQ of these kinds (counted as total_err, first_error)",
    },
    {
        .name = "ignore_error",
        .type = OPT_STR,
        .offset = FIELD(char *, ignore_error),
        .check = check_ignore_error,
        .range = "READ_LIST,WRITE_LIST,VERIFY_LIST (errnos ':'-separated)",
        .example = "EAGAIN,ENOSPC:EDQUOT",
        .help = "The errors, per kind, to go on after (instead of EIO and EILSEQ)",
    },
    {
        .name = "error_dump",
        .type = OPT_BOOL,
        .offset = FIELD(bool, error_dump),
        .def = "1",
        .help = "Log every error gone on after (at most a line a second), not only the fatal one",
    },
    {
        .name = "steadystate",
        .aliases = {"ss"},
        .type = OPT_STR,
        .offset = FIELD(char *, steadystate),
        .check = check_ss,
        .range = "iops|iops_slope|bw|bw_slope:LIMIT[%]",
        .example = "iops_slope:0.1%",
        .help = "End the job once the ss_dur window meets this (see ss_dur, ss_ramp)",
    },
    {
        .name = "steadystate_duration",
        .aliases = {"ss_dur"},
        .type = OPT_TIME,
        .offset = FIELD(uint64_t, ss_dur_ns),
        .max = 3600 * NSEC_PER_SEC,
        .unit_ns = NSEC_PER_SEC,
        .def = "0",
        .example = "30s",
        .help = "The steady-state window, one sample a second; 0 = no detection",
    },
    {
        .name = "steadystate_ramp_time",
        .aliases = {"ss_ramp"},
        .type = OPT_TIME,
        .offset = FIELD(uint64_t, ss_ramp_ns),
        .max = JOB_RUNTIME_MAX,
        .unit_ns = NSEC_PER_SEC,
        .def = "0",
        .example = "10s",
        .help = "Run this long before the steady-state window collects",
    },
    /* programs: refused by an agent whose config does not name them (agent/execcmd.c) */
    {
        .name = "exec_prerun",
        .type = OPT_STR,
        .offset = FIELD(char *, exec_prerun),
        .check = check_command_name,
        .range = "a command name the agents allow",
        .example = "drop-caches",
        .help = "Run the program the agent's allow_commands names so, before the job",
    },
    {
        .name = "exec_postrun",
        .type = OPT_STR,
        .offset = FIELD(char *, exec_postrun),
        .check = check_command_name,
        .range = "a command name the agents allow",
        .example = "collect-stats",
        .help = "Run the program the agent's allow_commands names so, after the job",
    },
    /* verification beyond verify= (agent/vstate.c) */
    {
        .name = "verify_pattern",
        .type = OPT_STR,
        .offset = FIELD(char *, verify_pattern),
        .check = check_verify_pattern,
        .range = "0xHEX, decimal, \"text\", %o (the block's offset), combined",
        .example = "0xdeadbeef",
        .help = "Written blocks hold this pattern (after the header); alone it is verify=pattern",
    },
    {
        .name = "do_verify",
        .type = OPT_BOOL,
        .offset = FIELD(bool, do_verify),
        .def = "1",
        .help = "Read back and check what a (size-bound) write job wrote, once it is written",
    },
    {
        .name = "verify_backlog",
        .type = OPT_COUNT,
        .offset = FIELD(uint64_t, verify_backlog),
        .max = UINT32_MAX,
        .def = "0",
        .example = "1024",
        .help = "Read back written blocks every N completed writes; 0 = at the end",
    },
    {
        .name = "verify_backlog_batch",
        .type = OPT_COUNT,
        .offset = FIELD(uint64_t, verify_backlog_batch),
        .max = UINT32_MAX,
        .def = "0",
        .example = "256",
        .help = "Blocks read back each time (the oldest first); 0 = verify_backlog",
    },
    {
        .name = "verify_only",
        .type = OPT_BOOL,
        .offset = FIELD(bool, verify_only),
        .def = "0",
        .help = "Write nothing: check that every block still holds what an earlier run wrote",
    },
    {
        .name = "verify_interval",
        .type = OPT_SIZE,
        .offset = FIELD(uint64_t, verify_interval),
        .max = JOB_BS_MAX,
        .def = "0",
        .example = "512",
        .help = "A verify header every this many bytes of a block (dividing bs); 0 = one per block",
    },
    {
        .name = "verify_offset",
        .type = OPT_SIZE,
        .offset = FIELD(uint64_t, verify_offset),
        .max = JOB_BS_MAX,
        .def = "0",
        .example = "1024",
        .help = "The header swapped to this offset of each block before writing",
    },
    /* buffers (agent/buffers.c) */
    {
        .name = "zero_buffers",
        .type = OPT_BOOL,
        .offset = FIELD(bool, zero_buffers),
        .def = "0",
        .help = "Write zeroes (unscrambled unless scramble_buffers is given)",
    },
    {
        .name = "refill_buffers",
        .type = OPT_BOOL,
        .offset = FIELD(bool, refill_buffers),
        .def = "0",
        .help = "New random content for every write",
    },
    {
        .name = "scramble_buffers",
        .type = OPT_BOOL,
        .offset = FIELD(bool, scramble_buffers),
        .offset_given = FIELD(bool, scramble_set),
        .def = "1",
        .help = "Change a few bytes of every 512 per write, so that writes do not deduplicate",
    },
    {
        .name = "buffer_pattern",
        .type = OPT_STR,
        .offset = FIELD(char *, buffer_pattern),
        .check = check_buffer_pattern,
        .range = "0xHEX, decimal, \"text\", combined",
        .example = "0xdeadbeef",
        .help = "Fill written buffers with this pattern",
    },
    {
        .name = "buffer_compress_percentage",
        .type = OPT_UINT32,
        .offset = FIELD(uint32_t, buffer_compress_percentage),
        .max = 100,
        .def = "0",
        .example = "50",
        .help = "Written data compresses by this percent (zeroes or the pattern after random)",
    },
    {
        .name = "buffer_compress_chunk",
        .type = OPT_SIZE,
        .offset = FIELD(uint64_t, buffer_compress_chunk),
        .max = JOB_BS_MAX,
        .def = "512",
        .example = "4k",
        .help = "Random/fixed region size of buffer_compress_percentage; 0 = the block",
    },
    {
        .name = "dedupe_percentage",
        .type = OPT_UINT32,
        .offset = FIELD(uint32_t, dedupe_percentage),
        .max = 100,
        .def = "0",
        .example = "30",
        .help = "This percent of written blocks repeat earlier ones",
    },
    {
        .name = "dedupe_mode",
        .type = OPT_ENUM,
        .offset = FIELD_ENUM(int, dedupe_mode),
        .choices = dedupe_mode_choices,
        .values = dedupe_mode_values,
        .def = "repeat",
        .example = "working_set",
        .help = "Duplicates repeat the last unique write, or one of a working set",
    },
    {
        .name = "dedupe_working_set_percentage",
        .type = OPT_UINT32,
        .offset = FIELD(uint32_t, dedupe_working_set_percentage),
        .max = 100,
        .def = "5",
        .example = "10",
        .help = "dedupe_mode=working_set: the set is this percent of the file's blocks",
    },
};

const size_t options_table_files_len = ELEMENTSOF(options_table_files);

void options_files_defaults(job_spec_t *j)
{
        j->loops = 1;
        j->exit_what = JOB_EXIT_GROUP;
        j->fallocate = JOB_FALLOCATE_NATIVE;
        j->create_fsync = true;
        j->create_serialize = true;
        j->allow_file_create = true;
        j->unique_filename = true;
        j->fadvise_hint = JOB_FADVISE_WORKLOAD;
        j->scramble_buffers = true;
        j->buffer_compress_chunk = 512;
        j->dedupe_mode = JOB_DEDUPE_REPEAT;
        j->dedupe_working_set_percentage = 5;
        j->do_verify = true;
        j->error_dump = true;
}

int options_files_validate(const job_spec_t *j, char *err, size_t errlen)
{
        if (j->verify_only && j->time_based) {
                options_err(err, errlen, "verify_only: time_based jobs cannot be verified "
                                         "afterwards (fio refuses it too)");
                return -EINVAL;
        }
        if (j->verify_only && !j->verify_set && strempty(j->verify_pattern)) {
                options_err(err, errlen, "verify_only: needs verify= (what was written)");
                return -EINVAL;
        }
        if (j->verify == VERIFY_PATTERN && strempty(j->verify_pattern)) {
                options_err(err, errlen, "verify: pattern needs verify_pattern=");
                return -EINVAL;
        }
        if (j->verify_offset && j->verify_offset < 48) {
                options_err(err, errlen,
                            "verify_offset: %llu is inside the 48-byte header (0, or 48 and up)",
                            (unsigned long long)j->verify_offset);
                return -ERANGE;
        }
        if (j->ss_dur_ns && j->ss_dur_ns < NSEC_PER_SEC) {
                options_err(err, errlen, "ss_dur: at least 1s (one sample a second)");
                return -ERANGE;
        }
        if (j->wait_for && j->name && streq(j->wait_for, j->name)) {
                options_err(err, errlen, "wait_for: a job cannot wait for itself (%s)", j->name);
                return -EINVAL;
        }
        return 0;
}
