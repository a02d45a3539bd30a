/* Jobs from fio-style arguments and fio job files, as fio reads them: global options are the
 * defaults of the jobs that follow, each --name or [section] opens a job. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "config.h"
#include "jobfile.h"
#include "wire.h"

typedef struct jobargs_job {
        char *name;
        char *where;         /* "seq.fio:5: [seqread]" for a job file's section; NULL for --name */
        strv_t keys, values; /* in the order they apply: the globals it inherited, then its own */
        strv_t wheres;       /* per option "seq.fio:7: [global]"; "" for the command line */
        size_t n_global;     /* how many leading options are inherited globals */
        bool refused;        /* one of its job file options (or globals) was refused and left
                              * out: its whole-job checks would only restate that */
} jobargs_job_t;

typedef struct jobargs {
        strv_t gkeys, gvalues, gwheres; /* the global options a job opened now inherits */
        bool in_job;                    /* options go to the last job rather than the globals */
        jobargs_job_t *jobs;
        size_t n_jobs;
        size_t n_files;
        strv_t sections; /* fio's --section: the job sections to run from the job files */
        strv_t errors;   /* refused options of the job files, reported all at once by check */
        int error_code;  /* the first refusal's -errno */
        bool global_refused; /* a refused global: the jobs opened after it are incomplete */
} jobargs_t;

/* At most this many refusals are listed; the rest are counted. */
#define JOBARGS_MAX_ERRORS 200

/* Adds one command-line option in order. "name" opens a job, or, for a name starting with
 * "global", goes back to setting global options (fio's --name=global). 0 or -ENOMEM. */
int jobargs_add(jobargs_t *ja, const char *key, const char *value);
/* fio's --section=NAME: run only the job sections of that name from the job files (repeatable;
 * global sections always apply). Give it before the files. */
int jobargs_add_section(jobargs_t *ja, const char *name, char *err, size_t errlen);
/* Adds the jobs of an fio job file, after every command-line option, as fio does: the command
 * line's global options are defaults that the file's [global] and job sections override; a
 * file's [global] sections count for that file only; a job file after one that gave jobs runs
 * after them in fio (an implied stonewall, passed on as the option "stonewall"). io may be NULL
 * (the file system and getenv()). Checks each option through the option table: a refused one is
 * left out and kept for jobargs_check(), which reports them all with file, line, section and
 * key; err is for what stops the reading (the file itself: missing, syntax). */
int jobargs_add_file(jobargs_t *ja, const char *path, const jobfile_io_t *io, char *err,
                     size_t errlen);
/* As jobargs_add_file(), for a job file parsed already (a plan's job sections). */
int jobargs_add_jobfile(jobargs_t *ja, const jobfile_t *jf, const char *path, char *err,
                        size_t errlen);
/* Sets key=value on job (every job when job is NULL) after all of its own options, so that it
 * wins (a sweep point). 0, -ENOENT (no such job) or -ENOMEM. */
int jobargs_override(jobargs_t *ja, const char *job, const char *key, const char *value,
                     const char *where);
/* Checks every job through the option table (unknown options, values, whole-job rules), the
 * jobs' order (wait_for) and the wire's limits (names, counts, lengths). Every problem is
 * reported, one line each (newline-separated in err, the job files' refused options first):
 * which job, file, line and option. With no job at all the command-line options make one job
 * called "job". */
int jobargs_check(jobargs_t *ja, char *err, size_t errlen);
/* The jobs as they travel (global options first, then the job's own); free with
 * jobargs_free_wire(). */
int jobargs_to_wire(const jobargs_t *ja, Iofleet__Job ***ret, size_t *n);
void jobargs_free_wire(Iofleet__Job **jobs, size_t n);
/* The longest runtime when every job has one, else 0 (size-bound: the interval count is open). */
uint64_t jobargs_runtime_ns(const jobargs_t *ja);
void jobargs_free(jobargs_t *ja);

/* fio's --showcmd: the checked jobs as one iofleet command line (each --name with every option it
 * ends up with, quoted for a POSIX shell), on one line. 0 or -errno. */
int jobargs_showcmd(const jobargs_t *ja, FILE *f);
/* --parse-only: what the checked jobs are and in which order they run (groups one after another,
 * waits within a group). 0 or -errno. */
int jobargs_summary(const jobargs_t *ja, FILE *f);
