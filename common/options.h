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

/* --- Types of the I/O pattern, pacing, offset and placement options (fio's meanings) --- */

#define JOB_BSSPLIT_MAX 64 /* fio's BSSPLIT_MAX: weights per direction */
#define JOB_ZONES_MAX 256  /* fio's ZONESPLIT_MAX: zones of random_distribution=zoned */
#define JOB_CPUS_MAX 1024  /* CPUs cpus_allowed can name */
#define JOB_NODES_MAX 64   /* NUMA nodes numa_cpu_nodes / numa_mem_policy can name */

/* One block size of bssplit= and its weight in percent. */
typedef struct job_bs_weight {
        uint64_t bs;
        uint32_t perc;
} job_bs_weight_t;

/* bssplit= of one direction, in fio's order (ascending weight); n 0 when not given. */
typedef struct job_bssplit {
        uint32_t n;
        job_bs_weight_t e[JOB_BSSPLIT_MAX];
} job_bssplit_t;

/* One zone of random_distribution=zoned (size_perc of the file) or zoned_abs (size bytes): the
 * share of random I/Os (access_perc) that falls in it. Zones follow each other from offset 0. */
typedef struct job_zone {
        uint32_t access_perc;
        uint32_t size_perc;
        uint64_t size;
} job_zone_t;

typedef struct job_zones {
        uint32_t n;
        job_zone_t z[JOB_ZONES_MAX];
} job_zones_t;

/* A set of CPUs or NUMA nodes as a bitmap; n counts the members. */
typedef struct job_cpuset {
        uint32_t n;
        uint64_t bits[JOB_CPUS_MAX / 64];
} job_cpuset_t;

typedef enum rw_sequencer {
        RW_SEQ_SEQUENTIAL, /* rw=randread:N: N-1 sequential I/Os after each random one */
        RW_SEQ_IDENTICAL,  /* the same offset N times */
} rw_sequencer_t;

typedef enum thinktime_blocks_type {
        THINKTIME_COMPLETE, /* thinktime after thinktime_blocks completions (fio's default) */
        THINKTIME_ISSUE,    /* after thinktime_blocks submissions */
} thinktime_blocks_type_t;

typedef enum rate_process {
        RATE_LINEAR,  /* evenly spaced I/Os */
        RATE_POISSON, /* exponentially distributed gaps: a Poisson arrival process */
} rate_process_t;

typedef enum submit_mode {
        SUBMIT_INLINE,  /* the job's thread submits and reaps */
        SUBMIT_OFFLOAD, /* the job's thread paces; a pool of threads does the I/O */
} submit_mode_t;

typedef enum random_dist {
        RAND_DIST_RANDOM,
        RAND_DIST_ZIPF,
        RAND_DIST_PARETO,
        RAND_DIST_NORMAL,
        RAND_DIST_ZONED,
        RAND_DIST_ZONED_ABS,
} random_dist_t;

typedef enum random_gen {
        RAND_GEN_DEFAULT,      /* not given: iofleet's own streams (xoshiro, keyed bijection) */
        RAND_GEN_TAUSWORTHE,   /* fio's tausworthe: fio's own offsets, seeded as fio seeds */
        RAND_GEN_LFSR,         /* a maximal-length LFSR: every block once, no map */
        RAND_GEN_TAUSWORTHE64, /* fio's 64-bit variant */
} random_gen_t;

typedef enum cpus_policy {
        CPUS_SHARED, /* every clone may run on every CPU of the set */
        CPUS_SPLIT,  /* clone k gets the set's (k mod n)-th CPU */
} cpus_policy_t;

typedef enum numa_mem_mode {
        NUMA_MEM_UNSET = -1,
        NUMA_MEM_DEFAULT = 0,
        NUMA_MEM_PREFER,
        NUMA_MEM_BIND,
        NUMA_MEM_INTERLEAVE,
        NUMA_MEM_LOCAL,
} numa_mem_mode_t;

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

        /* --- I/O pattern, pacing, offsets and placement (fio's meanings; common/options-io.c)
         * Every one of them is inert at its default: the worker's I/O path only looks at them
         * through flags computed once (agent/worker.c setup_run()). */
        job_bssplit_t bssplit[2];    /* block sizes by weight, per direction */
        uint64_t bs_min[2];          /* bsrange=: smallest block size; 0 when not given */
        uint64_t bs_max[2];          /* bsrange=: largest */
        bool bs_unaligned;           /* bsrange/bssplit sizes need not be multiples of the least */
        uint64_t blockalign[2];      /* ba=: random offsets are multiples of it; 0: the bs */
        uint32_t size_percent;       /* size=N%: N percent of each file as it is; 0: not given */
        uint64_t io_size;            /* io_size/io_limit: bytes of I/O; 0: size */
        uint64_t number_ios;         /* stop after this many I/Os; 0: no such limit */
        uint64_t offset_increment;   /* clone k's region starts at offset + k x this */
        uint32_t offset_increment_percent; /* the same as a percentage of the file */
        int64_t rw_seq_add;          /* rw=write:4k: bytes skipped after each sequential I/O (fio
                                      * also takes negative values: backwards) */
        uint32_t rw_seq_nr;          /* rw=randread:8: a new offset every 8 I/Os; default 1 */
        rw_sequencer_t rw_sequencer; /* what happens between those new offsets */
        uint64_t thinktime_ns;       /* stall this long after thinktime_blocks I/Os */
        uint64_t thinktime_spin_ns;  /* of which spinning on the CPU */
        uint32_t thinktime_blocks;   /* 0: not given (fio's 1) */
        thinktime_blocks_type_t thinktime_blocks_type;
        uint64_t thinktime_iotime_ns; /* stall after this long of I/O */
        rate_process_t rate_process;
        uint64_t rate_min[2];        /* bytes/s the job must keep up, per rate_cycle; 0: none */
        uint64_t rate_iops_min[2];   /* IOs/s the same way */
        uint32_t rate_cycle_ms;      /* the averaging window of rate_min; default 1000 */
        uint64_t latency_target_ns;  /* find the deepest queue whose latency stays below it */
        uint64_t latency_window_ns;  /* each depth's trial */
        double latency_percentile;   /* share of I/Os that must meet the target; default 100 */
        bool latency_run;            /* keep adjusting the depth instead of settling */
        uint64_t max_latency_ns[2];  /* an I/O slower than this ends the job with ETIMEDOUT */
        submit_mode_t io_submit_mode;
        random_dist_t random_distribution;
        double rand_param;           /* zipf theta, pareto power, normal deviation in percent */
        double rand_center;          /* 0..1 where the distribution's peak goes; -1: not given */
        job_zones_t zones[2];        /* zoned / zoned_abs, per direction */
        uint32_t percentage_random[2]; /* share of a random job's I/Os at random offsets; 100 */
        random_gen_t random_generator;
        job_cpuset_t cpus_allowed;   /* n 0: not given */
        cpus_policy_t cpus_allowed_policy;
        job_cpuset_t numa_cpu_nodes; /* n 0: not given */
        numa_mem_mode_t numa_mem_mode; /* NUMA_MEM_UNSET: not given */
        job_cpuset_t numa_mem_nodes;
        int32_t nice;                /* -20..19; default 0 */
        int32_t prio;                /* I/O priority level 0..7; -1: not given */
        int32_t prioclass;           /* I/O priority class 0..3; -1: not given */
        char *ioscheduler;           /* switch the files' devices to this scheduler for the run */
        bool hipri;                  /* pvsync2: RWF_HIPRI on every I/O */
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
        /* --- statistics (options-table-stats.c): what is measured and reported --- */
        bool clat_percentiles;      /* percentiles of clat in the result (default 1) */
        bool lat_percentiles;       /* ... of the total latency */
        bool slat_percentiles;      /* ... of the submission latency */
        char *percentile_list;      /* fio's "P:P:...", up to JOB_PERCENTILES_MAX; NULL: fio's */
        bool disable_lat, disable_clat, disable_slat; /* not measured: zeros in the result */
        bool disable_bw;            /* disable_bw_measurement: no bw/iops series figures */
        bool gtod_reduce;           /* all four of them, as fio */
        bool stats;                 /* the job is in the result (default 1) */
        int unified_rw;             /* unified_rw_reporting: JOB_UNIFIED_* */
        int kb_base;                /* 1024 (k = 1024, kib = 1000: fio's default) or 1000 */
        int unit_base;              /* output in bytes (8, and 0: automatic) or bits (1) */
        uint32_t sig_figs;          /* significant_figures of the normal output (default 4) */
        uint64_t bwavgtime_ns;      /* bandwidth samples every (default 500 ms) */
        uint64_t iopsavgtime_ns;    /* IOPS samples every (default 500 ms) */
        bool disk_util;             /* the devices under the job's files (default 1) */
        /* --- fio's log files (options-table-logs.c, common/fiolog.h) --- */
        char *bw_log, *iops_log, *lat_log, *hist_log; /* write_*_log: the files' prefix ("": the
                                                        * job's name); NULL: none written */
        uint64_t log_avg_ns;        /* log_avg_msec: one averaged line per window; 0: per I/O */
        uint64_t log_hist_ns;       /* log_hist_msec: a histogram line per window; 0: none */
        uint32_t log_hist_coarseness; /* each step halves the histogram's 1856 bins */
        bool log_max_value;         /* the window's largest value rather than its mean */
        bool log_offset;            /* each I/O's offset in the line */
        bool per_job_logs;          /* a file per clone (PREFIX_bw.N.log), default 1 */
        bool bw_avg_given, iops_avg_given; /* bwavgtime, iopsavgtime given: the logs' windows */
} job_spec_t;

enum { JOB_UNIFIED_NONE = 0, JOB_UNIFIED_MIXED = 1, JOB_UNIFIED_BOTH = 2 };

#define JOB_PERCENTILES_MAX 20 /* fio's FIO_IO_U_LIST_MAX_LEN */
/* percentile_list's values, ascending, into p (JOB_PERCENTILES_MAX); their count, or -EINVAL with
 * one line in err. */
int job_percentile_list(const char *s, double *p, char *err, size_t errlen);

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
/* dst = src with copies of its strings. 0 or -ENOMEM (dst then holds nothing to free). */
int job_spec_copy(job_spec_t *dst, const job_spec_t *src);

/* Applies one option by its fio name. On failure writes one line into err naming the option
 * and what is allowed, and returns -ENOENT (unknown option), -EOPNOTSUPP (an fio option iofleet
 * does not implement), -EINVAL (bad value) or -ERANGE (out of range). */
int job_option_set(job_spec_t *j, const char *key, const char *value, char *err, size_t errlen);
/* Whether fio applies the option before the others of a job wherever it stands (kb_base: every
 * size follows it): callers set these in a first pass over a job's options. */
bool job_option_early(const char *key);
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

/* The smallest and largest block size of a direction: bs, or bsrange's bounds, or bssplit's
 * extremes; and whether they differ (the job mixes block sizes). */
uint64_t job_spec_bs_min(const job_spec_t *j, unsigned ddir);
uint64_t job_spec_bs_max(const job_spec_t *j, unsigned ddir);
bool job_spec_bs_varies(const job_spec_t *j, unsigned ddir);

/* offset_increment's shift of clone k's region: k x the increment, or k x its percentage of
 * file_size aligned down to the smallest block size, as fio; 0 when the percentage's file size is
 * not known yet (0). */
uint64_t job_spec_clone_shift(const job_spec_t *j, unsigned clone, uint64_t file_size);

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
