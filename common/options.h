/* fio-style job options: one table drives the command line, job files and the wire. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "engine-list.h"
#include "parse.h"
#include "suggest.h"

typedef enum rw_mode {
        RW_READ,
        RW_WRITE,
        RW_RANDREAD,
        RW_RANDWRITE,
        RW_RW,     /* "rw" / "readwrite": sequential mixed, rwmixread percent reads */
        RW_RANDRW, /* random mixed */
} rw_mode_t;

typedef enum verify_kind {
        VERIFY_NONE,
        VERIFY_CRC32C,
        VERIFY_XXHASH, /* a fast 64-bit hash */
        VERIFY_MD5,
        VERIFY_SHA256,
        VERIFY_META,    /* fio's deprecated meta: the header alone is checked */
        VERIFY_PATTERN, /* no header: every byte must be verify_pattern */
        VERIFY_NULL,    /* fio's null: pretends, checks nothing */
} verify_kind_t;

/* Directions, as fio indexes them. */
enum { DDIR_READ = 0, DDIR_WRITE = 1 };

/* A parsed job section. Strings are owned (NULL when unset). Sizes in bytes, times in ns;
 * [DDIR_READ], [DDIR_WRITE] pairs come from fio's "read,write" values. */
typedef struct job_spec {
        char *name;
        rw_mode_t rw;        /* default read */
        uint32_t rwmixread;  /* percent of reads for rw/randrw; default 50 (rwmixwrite sets 100-x) */
        uint64_t bs;         /* read block size, default 4096 ("bs=4k" sets both) */
        uint64_t bs_write;   /* write block size, default = bs */
        uint64_t size;       /* total per job (split over nrfiles); 0 = not given */
        uint64_t filesize;   /* size of each file; 0 = size / nrfiles */
        uint32_t nrfiles;    /* files per job, default 1 */
        uint64_t offset;     /* where I/O starts in each file, default 0 */
        uint32_t numjobs;    /* default 1 */
        uint32_t iodepth;    /* default 1 */
        uint32_t iodepth_batch_submit;       /* default 1 ("iodepth_batch" is an alias) */
        uint32_t iodepth_batch_complete_min; /* default 1 */
        bool direct;         /* O_DIRECT; "buffered=0" sets it */
        bool invalidate;     /* drop the page cache of the job's files before it runs; default 1 */
        uint64_t runtime_ns; /* 0 = not given */
        bool time_based;
        uint64_t ramp_time_ns;  /* run this long before counting */
        uint64_t startdelay_ns; /* start this long after the common start */
        char *directory;
        char *filename;
        char *filename_format; /* fio's $jobname, $jobnum, $filenum, plus iofleet's $agent */
        uint32_t fsync;        /* fsync after every N writes; 0 = never */
        uint32_t fdatasync;    /* fdatasync after every N writes; 0 = never */
        bool end_fsync;        /* fsync each file when the job's writes are done */
        uint64_t rate[2];      /* bytes/s cap per direction, 0 = none */
        uint64_t rate_iops[2]; /* IOs/s cap per direction, 0 = none */
        bool randrepeat;       /* default 1: the same random offsets run after run */
        uint64_t randseed;     /* default fio's 0x89 */
        bool norandommap;      /* random offsets may repeat (default: each block once per pass) */
        bool readonly;         /* refuse any write job */
        verify_kind_t verify;
        bool verify_fatal;
        bool thread;           /* accepted: iofleet's workers are always threads */
        bool group_reporting;  /* one result entry per job instead of one per clone */
        char *ioengine;        /* ENGINE_LIST name (engine-list.h); default ENGINE_DEFAULT */
        /* The metadata workload (ioengine=metadata; iofleet's own, in the spirit of bonnie++'s
         * file tests): nrfiles files of filesize bytes per clone, spread over metadata_dirs
         * directories, created, stat'ed, read and deleted in the orders metadata_order names. */
        uint32_t metadata_dirs;   /* default 1 */
        char *metadata_order;     /* "sequential", "random" or "both" (default) */
        char *nfs_url;            /* ioengine=nfs: nfs://SERVER/EXPORT[?libnfs options], NFSv3 */
        bool randseed_set;        /* randseed was given: fio then seeds from it even with
                                   * randrepeat=0 (see job_spec_seed_is_fixed()) */

        /* --- job order, files, buffers, verification, errors (options-table-files.c) --- */
        /* Job order (common/jobgroups.h derives groups and waits from these). */
        bool stonewall;          /* wait for every job before this one ("wait_for_previous") */
        bool new_group;          /* a new reporting group */
        char *wait_for;          /* start once every clone of this earlier job is done */
        bool exitall;            /* the first job of the group to end ends the others */
        bool exitall_on_error;   /* a job ending in error ends the others of its group */
        int exit_what;           /* JOB_EXIT_*: which jobs exitall ends */
        uint32_t loops;          /* passes over the workload (size-bound jobs), default 1 */
        /* Files. */
        int fallocate;           /* JOB_FALLOCATE_*: how space is reserved for written files */
        bool create_on_open;     /* no layout: the job's open creates the file */
        bool create_only;        /* lay out the files, run nothing */
        bool create_fsync;       /* fsync what layout wrote (default 1) */
        bool create_serialize;   /* workers lay out one at a time (default 1) */
        bool allow_file_create;  /* a missing file may be created (default 1) */
        bool overwrite;          /* a written file is laid out in full before the job */
        bool file_append;        /* I/O starts at each file's end (offset = its size) */
        bool unique_filename;    /* generated names carry the agent (fio: the client) (1) */
        bool unlink;             /* remove the job's files when it is done */
        bool unlink_each_loop;   /* ... and after each of its loops */
        bool fsync_on_close;     /* fsync a written file when it is closed */
        bool pre_read;           /* read the files into the page cache before the start */
        int fadvise_hint;        /* JOB_FADVISE_*, default JOB_FADVISE_WORKLOAD */
        char *file_service_type; /* random|roundrobin|sequential[:N], zipf|pareto|normal[:x] */
        uint32_t openfiles;      /* files open at once; 0 = all of them */
        char *opendir;           /* every regular file below this directory is a job file */
        /* Buffers (agent/buffers.c). */
        bool zero_buffers;
        bool refill_buffers;
        bool scramble_buffers;      /* default 1 */
        bool scramble_set;          /* scramble_buffers was given (zeroes and patterns are
                                     * otherwise written unscrambled, as fio's) */
        char *buffer_pattern;       /* fio's pattern syntax (common/pattern.h) */
        uint32_t buffer_compress_percentage;
        uint64_t buffer_compress_chunk; /* default 512; 0 = the block */
        uint32_t dedupe_percentage;
        int dedupe_mode;            /* JOB_DEDUPE_REPEAT or JOB_DEDUPE_WORKING_SET */
        uint32_t dedupe_working_set_percentage; /* default 5 */
        /* Verification beyond verify= (agent/verify.c). */
        bool verify_set;            /* verify= was given (verify_pattern sets pattern otherwise) */
        char *verify_pattern;       /* fio's pattern syntax, with %o */
        bool do_verify;             /* read back after writing (default 1) */
        uint64_t verify_backlog;    /* read back every N blocks written; 0 = at the end */
        uint64_t verify_backlog_batch; /* blocks read back each time; 0 = verify_backlog */
        bool verify_only;           /* no writes: check what an earlier run wrote */
        uint64_t verify_interval;   /* a header every this many bytes; 0 = one per block */
        uint64_t verify_offset;     /* the header swapped to this offset in the block */
        /* Errors and limits. */
        int continue_on_error;      /* JOB_ERR_* bits of the errors that do not end the job */
        char *ignore_error;         /* READ_LIST,WRITE_LIST,VERIFY_LIST of errnos ':'-separated */
        bool error_dump;            /* log each error, not only the fatal one (default 1) */
        char *steadystate;          /* iops|iops_slope|bw|bw_slope:LIMIT[%] */
        uint64_t ss_dur_ns;         /* the steady-state window; 0 = no detection */
        uint64_t ss_ramp_ns;        /* time before the window starts collecting */
        /* Programs: names the agent's config maps to programs (allow_commands). */
        char *exec_prerun;
        char *exec_postrun;
} job_spec_t;

enum { JOB_EXIT_GROUP = 0, JOB_EXIT_STONEWALL = 1, JOB_EXIT_ALL = 2 };
enum {
        JOB_FALLOCATE_NONE = 0,
        JOB_FALLOCATE_NATIVE = 1, /* posix_fallocate, falling back to nothing */
        JOB_FALLOCATE_POSIX = 2,
        JOB_FALLOCATE_KEEP = 3,     /* fallocate(FALLOC_FL_KEEP_SIZE) */
        JOB_FALLOCATE_TRUNCATE = 4, /* ftruncate to the size, nothing allocated */
};
enum {
        JOB_FADVISE_NONE = 0,
        JOB_FADVISE_WORKLOAD = 1, /* random or sequential, as the workload is */
        JOB_FADVISE_SEQUENTIAL = 2,
        JOB_FADVISE_RANDOM = 3,
};
enum { JOB_DEDUPE_REPEAT = 0, JOB_DEDUPE_WORKING_SET = 1 };
/* continue_on_error's error types, as fio's. */
enum { JOB_ERR_READ = 1, JOB_ERR_WRITE = 2, JOB_ERR_VERIFY = 4, JOB_ERR_ALL = 7 };

/* Fills defaults; name may be NULL. 0 or -ENOMEM. */
int job_spec_init(job_spec_t *j, const char *name);
void job_spec_done(job_spec_t *j);

/* Applies one option by its fio name. On failure writes one line into err naming the option
 * and what is allowed, and returns -ENOENT (unknown option), -EOPNOTSUPP (an fio option iofleet
 * does not implement), -EINVAL (bad value) or -ERANGE (out of range). */
int job_option_set(job_spec_t *j, const char *key, const char *value, char *err, size_t errlen);
/* Checks the job as a whole (bs <= size, a size or a runtime, time_based needs runtime, ...). */
int job_spec_validate(const job_spec_t *j, char *err, size_t errlen);

const char *rw_mode_to_string(rw_mode_t m);
/* True for the modes that only read (read, randread). */
bool rw_mode_is_read(rw_mode_t m);
/* True for random offsets (randread, randwrite, randrw). */
bool rw_mode_is_random(rw_mode_t m);
/* Whether the mode issues reads / writes at all (rw and randrw do both). */
bool rw_mode_has_read(rw_mode_t m);
bool rw_mode_has_write(rw_mode_t m);

/* Values fio derives from the options, so that every reader derives them the same way. */
/* Files each clone works on: 1 when filename= is given (fio ignores nrfiles then), else nrfiles. */
uint32_t job_spec_nrfiles(const job_spec_t *j);
/* Bytes of each file the job does I/O in, from offset on: filesize - offset when filesize is
 * given (size then only caps the total I/O: fio's io_size defaults to it), else
 * size / job_spec_nrfiles(); 0 when neither is given (null engine, time_based). */
uint64_t job_spec_file_io_size(const job_spec_t *j);
/* I/Os submitted at once: iodepth_batch_submit, fio's 0 meaning iodepth. */
uint32_t job_spec_batch_submit(const job_spec_t *j);
/* True when random offsets come from randseed (randrepeat=1, or randseed given), false when fio
 * would seed from the system's entropy (randrepeat=0 and no randseed). */
bool job_spec_seed_is_fixed(const job_spec_t *j);

/* Prints the supported options with their meaning, range and default. */
void job_options_help(FILE *f);

/* One job option as documentation and shell completion show it. */
typedef struct job_option_doc {
        const char *name;
        const char *aliases[2];     /* NULL when absent */
        const char *type;           /* "str", "int", "size", "time", "bool" */
        const char *def;            /* as the user would write it; NULL when none */
        const char *help;
        const char *const *choices; /* fixed values (NULL-ended), or NULL */
        bool flag;                  /* a boolean: given alone means 1 (fio's --time_based) */
        bool path;                  /* its value is a file or directory */
        char range[256];            /* "1..64", "read|write|...", "path" */
} job_option_doc_t;

/* Fills d with the i-th option of the table; false past the end. */
bool job_option_doc(size_t i, job_option_doc_t *d);

/* What job_option_known() says of a name. */
enum {
        JOB_OPTION_VALUE = 0,       /* implemented, needs a value (bs=4k) */
        JOB_OPTION_FLAG = 1,        /* implemented boolean, may stand alone (time_based) */
        JOB_OPTION_UNSUPPORTED = 2, /* fio's, not implemented by iofleet yet */
};
/* Whether key (an option name or alias, without dashes) is a job option: JOB_OPTION_*, or
 * -ENOENT when neither iofleet nor fio knows it. */
int job_option_known(const char *key);
/* Offers every job option name, alias and fio name iofleet knows to a "did you mean" search. */
void job_options_offer(suggest_t *s);
