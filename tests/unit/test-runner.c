/* Tests for the agent's runner and workers: real threads and files, jobs from options and from
 * fields, shared files and resource limits. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cmocka.h>

#include "agent-config.h"
#include "clock.h"
#include "intervals.h"
#include "options.h"
#include "runner.h"
#include "util.h"

static char dir[256];
/* The agents' path policy: the scratch directory, and a root that does not exist. */
static agent_config_t cfg;

static int setup(void **state)
{
        snprintf(dir, sizeof(dir), "/tmp/test-runner.XXXXXX");
        assert_non_null(mkdtemp(dir));
        assert_int_equal(agent_config_defaults(&cfg), 0);
        assert_int_equal(strv_push(&cfg.allow_paths, dir), 0);
        assert_int_equal(strv_push(&cfg.allow_paths, "/nonexistent"), 0);
        return 0;
}

static int teardown(void **state)
{
        char cmd[300];
        snprintf(cmd, sizeof(cmd), "%s/small", dir);
        umount2(cmd, MNT_DETACH); /* a tmpfs test that failed half-way */
        snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
        assert_int_equal(system(cmd), 0);
        config_free(&agent_config_schema, &cfg);
        return 0;
}

/* A job from "key=value" strings, checked like any job. */
static job_spec_t *jobs_of(size_t n, const char *const *const *opts)
{
        job_spec_t *jobs = calloc(n, sizeof(*jobs));
        char err[512];
        assert_non_null(jobs);
        for (size_t j = 0; j < n; j++) {
                assert_int_equal(job_spec_init(&jobs[j], opts[j][0]), 0);
                for (size_t i = 1; opts[j][i]; i += 2) {
                        if (job_option_set(&jobs[j], opts[j][i], opts[j][i + 1], err, sizeof(err)) <
                            0)
                                fail_msg("%s", err);
                }
                if (job_spec_validate(&jobs[j], err, sizeof(err)) < 0)
                        fail_msg("%s", err);
        }
        return jobs;
}

/* Polls the runner's state until want (or failure); the test's own timeout catches a hang. */
static runner_state_t wait_state(runner_t *r, runner_state_t want)
{
        runner_state_t st;
        while ((st = runner_update(r)) != want && st != RUNNER_FAILED)
                usleep(1000);
        return st;
}

static runner_t *new_runner(size_t n, const char *const *const *opts, char *err, size_t errlen,
                            int *rc)
{
        runner_params_t p = {.cfg = &cfg, .agent_name = "a0", .rank = 0, .work_dir = dir};
        runner_t *r = NULL;
        p.jobs = jobs_of(n, opts);
        p.n_jobs = n;
        *rc = runner_new(&p, &r, err, errlen);
        return r;
}

static void run_now(runner_t *r)
{
        assert_int_equal(wait_state(r, RUNNER_PREPARED), RUNNER_PREPARED);
        assert_int_equal(runner_start_at(r, clock_mono_ns() + 5 * (int64_t)NSEC_PER_MSEC), 0);
        assert_int_equal(wait_state(r, RUNNER_DONE), RUNNER_DONE);
}

static void job_totals(runner_t *r, size_t job, runner_job_result_t *res, runner_dir_t d[2])
{
        assert_int_equal(runner_dir_init(&d[0]), 0);
        assert_int_equal(runner_dir_init(&d[1]), 0);
        runner_job_result(r, job, res, d);
}

/* Entries in a directory, or -1 when it cannot be read. */
static int count_entries(const char *path)
{
        DIR *d = opendir(path);
        struct dirent *e;
        int n = 0;
        if (!d)
                return -1;
        while ((e = readdir(d)))
                n += !streq(e->d_name, ".") && !streq(e->d_name, "..");
        closedir(d);
        return n;
}

static void test_write_then_read_exact_bytes(void **state)
{
        static const char *const w[] = {"w",  "rw",      "write", "bs",        "4k", "size",
                                        "1m", "numjobs", "2",     "directory", NULL, NULL};
        static const char *const rd[] = {"w",  "rw",      "randread", "bs",        "4k", "size",
                                         "1m", "numjobs", "2",        "directory", NULL, NULL};
        const char *const *wo[] = {w}, *const * ro[] = {rd};
        const char *wd[ELEMENTSOF(w)], *rdd[ELEMENTSOF(rd)];
        runner_job_result_t res;
        runner_dir_t d[2];
        char err[512], path[400];
        struct stat st;
        runner_t *r;
        int rc;

        memcpy(wd, w, sizeof(w));
        memcpy(rdd, rd, sizeof(rd));
        wd[10] = dir;
        rdd[10] = dir;
        wo[0] = wd;
        ro[0] = rdd;

        r = new_runner(1, wo, err, sizeof(err), &rc);
        assert_int_equal(rc, 0);
        assert_int_equal(runner_workers(r), 2);
        run_now(r);
        job_totals(r, 0, &res, d);
        /* A size-bound job moves exactly size bytes per clone. */
        assert_int_equal(d[1].bytes, 2 * (1 << 20));
        assert_int_equal(d[1].ios, 2 * 256);
        assert_int_equal(d[0].bytes, 0);
        assert_int_equal(d[1].clat->n, 512);
        assert_int_equal(res.error, 0);
        assert_true(res.last_done_ns >= res.first_done_ns);
        runner_dir_done(&d[0]);
        runner_dir_done(&d[1]);
        runner_destroy(&r);
        assert_null(r);

        /* Files are the agent's own: JOB.AGENT.CLONE.0. */
        snprintf(path, sizeof(path), "%s/w.a0.1.0", dir);
        assert_int_equal(stat(path, &st), 0);
        assert_int_equal(st.st_size, 1 << 20);

        r = new_runner(1, ro, err, sizeof(err), &rc);
        assert_int_equal(rc, 0);
        run_now(r);
        job_totals(r, 0, &res, d);
        assert_int_equal(d[0].bytes, 2 * (1 << 20));
        assert_int_equal(d[0].ios, 512);
        assert_int_equal(d[0].errors, 0);
        runner_dir_done(&d[0]);
        runner_dir_done(&d[1]);
        runner_destroy(&r);
}

static void test_read_lays_out_missing_and_short_files(void **state)
{
        static const char *const o[] = {"r",  "rw",       "read",  "bs",        "64k", "size",
                                        "2m", "filename", "short", "directory", NULL,  NULL};
        const char *od[ELEMENTSOF(o)];
        const char *const *opts[] = {od};
        char err[512], path[400];
        struct stat st;
        runner_t *r;
        int rc, fd;

        memcpy(od, o, sizeof(o));
        od[10] = dir;
        snprintf(path, sizeof(path), "%s/short", dir);
        fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        assert_true(fd >= 0);
        assert_int_equal(write(fd, "abc", 3), 3);
        close(fd);
        r = new_runner(1, opts, err, sizeof(err), &rc);
        assert_int_equal(rc, 0);
        run_now(r);
        assert_int_equal(stat(path, &st), 0);
        assert_int_equal(st.st_size, 2 << 20);
        runner_destroy(&r);
}

static void test_null_engine_and_per_job_runtime(void **state)
{
        static const char *const a[] = {"short", "ioengine",   "null", "rw",      "read",  "bs",
                                        "4k",    "time_based", "1",    "runtime", "100ms", NULL};
        static const char *const b[] = {"long", "ioengine",   "null", "rw",      "write", "bs",
                                        "4k",   "time_based", "1",    "runtime", "1s",    NULL};
        const char *const *opts[] = {a, b};
        runner_job_result_t ra, rb;
        runner_dir_t da[2], db[2];
        char err[512];
        runner_t *r;
        int rc;

        r = new_runner(2, opts, err, sizeof(err), &rc);
        assert_int_equal(rc, 0);
        run_now(r);
        job_totals(r, 0, &ra, da);
        job_totals(r, 1, &rb, db);
        assert_true(da[0].ios > 0);
        assert_true(db[1].ios > 0);
        /* Each job ends at its own runtime after the common start, not the longest one's. */
        assert_true(ra.last_done_ns >= 100 * NSEC_PER_MSEC);
        assert_true(ra.last_done_ns < NSEC_PER_SEC);
        assert_true(rb.last_done_ns >= NSEC_PER_SEC);
        for (int i = 0; i < 2; i++) {
                runner_dir_done(&da[i]);
                runner_dir_done(&db[i]);
        }
        runner_destroy(&r);
}

static void test_stop_before_a_far_start(void **state)
{
        static const char *const a[] = {"n",  "ioengine", "null", "rw", "read",
                                        "bs", "4k",       "size", "1m", NULL};
        const char *const *opts[] = {a};
        char err[512];
        runner_t *r;
        int rc;

        r = new_runner(1, opts, err, sizeof(err), &rc);
        assert_int_equal(rc, 0);
        assert_int_equal(wait_state(r, RUNNER_PREPARED), RUNNER_PREPARED);
        /* An hour ahead: a stop must still end the runner (the test would hang otherwise). */
        assert_int_equal(runner_start_at(r, clock_mono_ns() + 3600 * (int64_t)NSEC_PER_SEC), 0);
        runner_stop(r);
        assert_int_equal(wait_state(r, RUNNER_DONE), RUNNER_DONE);
        runner_destroy(&r);
}

static void test_refusals(void **state)
{
        static const char *const nodir[] = {"j",  "rw",        "read",           "size",
                                            "1m", "directory", "/nonexistent/x", NULL};
        static const char *const dev[] = {"j",  "rw",       "write",     "size",
                                          "1m", "filename", "/dev/null", NULL};
        static const char *const many[] = {"j",  "ioengine", "null", "size",
                                           "1m", "numjobs",  "4096", NULL};
        static const char *const many2[] = {"k",  "ioengine", "null", "size",
                                            "1m", "numjobs",  "1",    NULL};
        const char *const *o1[] = {nodir}, *const * o2[] = {dev}, *const * o3[] = {many, many2};
        char err[512], link[400];
        runner_t *r;
        int rc;

        r = new_runner(1, o1, err, sizeof(err), &rc);
        assert_int_equal(rc, -ENOENT);
        assert_null(r);
        assert_non_null(strstr(err, "directory=/nonexistent/x does not exist"));

        /* A device in /dev is refused before anything starts. */
        r = new_runner(1, o2, err, sizeof(err), &rc);
        assert_int_equal(rc, -EPERM);
        assert_null(r);
        assert_non_null(strstr(err, "job j: filename=/dev/null: job file '/dev/null': /dev and "
                                    "below is never allowed"));

        /* A symbolic link where a job file goes is not followed. */
        {
                static const char *const l[] = {"lnk", "rw",        "write", "size",
                                                "64k", "directory", NULL,    NULL};
                const char *ld[ELEMENTSOF(l)];
                const char *const *o4[] = {ld};
                char target[400];
                memcpy(ld, l, sizeof(l));
                ld[6] = dir;
                snprintf(target, sizeof(target), "%s/target", dir);
                snprintf(link, sizeof(link), "%s/lnk.a0.0.0", dir);
                assert_int_equal(symlink(target, link), 0);
                r = new_runner(1, o4, err, sizeof(err), &rc);
                assert_int_equal(rc, -ELOOP);
                assert_null(r);
                assert_non_null(strstr(err, "lnk.a0.0.0"));
                assert_non_null(strstr(err, "a symbolic link; job files are never opened through"));
                assert_int_equal(access(target, F_OK), -1);
        }

        r = new_runner(2, o3, err, sizeof(err), &rc);
        assert_int_equal(rc, -E2BIG);
        assert_non_null(strstr(err, "4097 workers in all exceed this agent's limit of 4096"));
}

/* A job with fio's defaults set field by field, independent of the option table. */
static job_spec_t job_of(const char *name, const char *engine, rw_mode_t rw, uint64_t size)
{
        job_spec_t j;
        assert_int_equal(job_spec_init(&j, name), 0);
        j.rw = rw;
        j.rwmixread = 50;
        j.bs = j.bs_write = 4096;
        j.size = size;
        j.nrfiles = j.numjobs = j.iodepth = 1;
        j.iodepth_batch_submit = j.iodepth_batch_complete_min = 1;
        j.randrepeat = true;
        assert_int_equal(strdup_to(&j.ioengine, engine), 0);
        assert_int_equal(strdup_to(&j.directory, dir), 0);
        return j;
}

static runner_t *runner_of(job_spec_t *jobs, size_t n, char *err, size_t errlen, int *rc)
{
        runner_params_t p = {
            .cfg = &cfg, .agent_name = "a0", .work_dir = dir, .jobs = jobs, .n_jobs = n};
        runner_t *r = NULL;
        *rc = runner_new(&p, &r, err, errlen);
        return r;
}

static void test_shared_file_laid_out_once_to_the_largest(void **state)
{
        job_spec_t *jobs = calloc(2, sizeof(*jobs));
        runner_job_result_t res;
        runner_dir_t d[2];
        char err[512], path[400];
        struct stat st;
        runner_t *r;
        int rc;

        /* Two jobs name one file; the second needs more of it and has two clones. */
        jobs[0] = job_of("small", "psync", RW_READ, 1 << 20);
        jobs[1] = job_of("large", "io_uring", RW_RANDREAD, 3 << 20);
        jobs[1].numjobs = 2;
        jobs[1].iodepth = 8;
        assert_int_equal(strdup_to(&jobs[0].filename, "one"), 0);
        assert_int_equal(strdup_to(&jobs[1].filename, "one"), 0);
        r = runner_of(jobs, 2, err, sizeof(err), &rc);
        assert_int_equal(rc, 0);
        run_now(r);
        job_totals(r, 0, &res, d);
        assert_int_equal(res.error, 0);
        assert_int_equal(d[0].bytes, 1 << 20);
        runner_dir_done(&d[0]);
        runner_dir_done(&d[1]);
        job_totals(r, 1, &res, d);
        assert_int_equal(res.error, 0);
        assert_int_equal(d[0].bytes, 2 * (3 << 20));
        assert_int_equal(d[0].slat->n, 2 * 768);
        runner_dir_done(&d[0]);
        runner_dir_done(&d[1]);
        runner_destroy(&r);
        snprintf(path, sizeof(path), "%s/one", dir);
        assert_int_equal(stat(path, &st), 0);
        assert_int_equal(st.st_size, 3 << 20);
}

static void test_buffer_memory_counts_iodepth(void **state)
{
        uint64_t quarter = (uint64_t)sysconf(_SC_PHYS_PAGES) * (uint64_t)sysconf(_SC_PAGESIZE) / 4;
        uint64_t bs = 64 << 20;
        char err[512];
        runner_t *r;
        int rc;

        /* Deep enough that iodepth buffers of bs exceed a quarter of memory. */
        {
                job_spec_t *jobs = calloc(1, sizeof(*jobs));
                jobs[0] = job_of("deep", "libaio", RW_READ, bs);
                jobs[0].bs = jobs[0].bs_write = bs;
                jobs[0].iodepth = (uint32_t)(quarter / bs + 1);
                r = runner_of(jobs, 1, err, sizeof(err), &rc);
                assert_int_equal(rc, -E2BIG);
                assert_null(r);
                assert_non_null(strstr(err, "bs x iodepth x numjobs"));
        }
        /* A synchronous engine has one I/O at a time whatever its iodepth: one buffer. */
        {
                job_spec_t *jobs = calloc(1, sizeof(*jobs));
                jobs[0] = job_of("sync", "psync", RW_READ, bs);
                jobs[0].bs = jobs[0].bs_write = bs;
                jobs[0].iodepth = (uint32_t)(quarter / bs + 1);
                r = runner_of(jobs, 1, err, sizeof(err), &rc);
                assert_int_equal(rc, 0);
                runner_destroy(&r);
        }
}

static void test_interval_arithmetic(void **state)
{
        const uint64_t s = NSEC_PER_SEC;
        assert_int_equal(intervals_of_runtime(0, s), 0);
        assert_int_equal(intervals_of_runtime(10 * s, s), 10);
        assert_int_equal(intervals_of_runtime(10 * s + 1, s), 11);
        assert_int_equal(intervals_of_runtime(2500 * NSEC_PER_MSEC, s), 3);
        /* Work just past a 10 s run's end is folded into interval 9, not a 10th. */
        assert_int_equal(intervals_final((int64_t)(10 * s + 12345), s, 10, 9), 9);
        /* A size-bound agent ends in the interval holding its last worker's end. */
        assert_int_equal(intervals_final((int64_t)(3 * s + 1), s, 0, 0), 3);
        assert_int_equal(intervals_final((int64_t)(3 * s - 1), s, 0, 0), 2);
        /* Never before the next one still to send, nor negative. */
        assert_int_equal(intervals_final((int64_t)(1 * s), s, 0, 4), 4);
        assert_int_equal(intervals_final(-5, s, 0, 0), 0);
}

/* ioengine=metadata through the runner: no layout, every phase of both orders runs nrfiles
 * operations per clone, and the directory is left as it was. */
static void test_metadata_job_counts_every_phase(void **state)
{
        static const char *const o[] = {"md", "ioengine",      "metadata", "nrfiles",
                                        "50", "filesize",      "1k",       "numjobs",
                                        "2",  "metadata_dirs", "3",        NULL};
        const char *const *jo[] = {o};
        metadata_phase_stats_t *ph = malloc(sizeof(*ph));
        runner_job_result_t res;
        runner_dir_t d[2];
        char err[512];
        runner_t *r;
        int rc;

        assert_non_null(ph);
        r = new_runner(1, jo, err, sizeof(err), &rc);
        if (rc < 0)
                fail_msg("%s", err);
        assert_int_equal(runner_workers(r), 2);
        assert_true(runner_job_is_metadata(r, 0));
        run_now(r);
        job_totals(r, 0, &res, d);
        assert_int_equal(res.error, 0);
        assert_int_equal(d[0].ios + d[1].ios, 0);
        for (int slot = 0; slot < MD_SLOTS; slot++) {
                assert_int_equal(runner_job_phase(r, 0, slot, ph), 1);
                assert_int_equal(ph->ops, 2 * 50);
                assert_int_equal(ph->errors, 0);
                assert_int_equal(ph->lat.n, 2 * 50);
                assert_true(ph->elapsed_ns > 0);
                if (slot % MD_PHASES == MD_CREATE || slot % MD_PHASES == MD_READ)
                        assert_int_equal(ph->bytes, 2 * 50 * 1024);
                else
                        assert_int_equal(ph->bytes, 0);
        }
        assert_int_equal(runner_job_phase(r, 0, MD_SLOTS, ph), -EINVAL);
        /* All of it in the first interval, nothing after. */
        assert_int_equal(runner_meta_ops_interval(r), 2 * 50 * MD_SLOTS);
        assert_int_equal(runner_meta_ops_interval(r), 0);
        runner_dir_done(&d[0]);
        runner_dir_done(&d[1]);
        runner_destroy(&r);
        assert_int_equal(count_entries(dir), 0);

        /* Only the sequential order: the random slots did not run. */
        {
                static const char *const q[] = {"mq", "ioengine",       "metadata",   "nrfiles",
                                                "7",  "metadata_order", "sequential", NULL};
                const char *const *qo[] = {q};
                r = new_runner(1, qo, err, sizeof(err), &rc);
                assert_int_equal(rc, 0);
                run_now(r);
                assert_int_equal(runner_job_phase(r, 0, metadata_slot(false, MD_DELETE), ph), 1);
                assert_int_equal(ph->ops, 7);
                assert_int_equal(runner_job_phase(r, 0, metadata_slot(true, MD_CREATE), ph), 0);
                runner_destroy(&r);
        }
        free(ph);
}

/* A metadata failure ends the job with an error and a message naming the file, as an I/O error. */
static void test_metadata_failure_is_a_job_error(void **state)
{
        static const char *const o[] = {"mf", "ioengine", "metadata", "nrfiles", "5", NULL};
        const char *const *jo[] = {o};
        runner_job_result_t res;
        runner_dir_t d[2];
        char err[512], path[400];
        runner_t *r;
        int rc;

        /* File 3 of the first directory is already there: creating it fails with EEXIST. */
        snprintf(path, sizeof(path), "%s/md.mf.a0.0.0", dir);
        assert_int_equal(mkdir(path, 0755), 0);
        snprintf(path, sizeof(path), "%s/md.mf.a0.0.0/0000003", dir);
        assert_int_equal(mkdir(path, 0755), 0);
        r = new_runner(1, jo, err, sizeof(err), &rc);
        assert_int_equal(rc, 0);
        run_now(r);
        job_totals(r, 0, &res, d);
        assert_int_equal(res.error, EEXIST);
        assert_non_null(strstr(res.errmsg, "0000003"));
        runner_dir_done(&d[0]);
        runner_dir_done(&d[1]);
        runner_destroy(&r);
        /* What it made is gone; what was there stays. */
        assert_int_equal(count_entries(path), 0);
}

/* A write job with verify= and a later read job with verify= over the same files: every block
 * checks out. Then one block damaged on disk is found, named with its offset, and counted. */
static void test_verify_write_then_read(void **state)
{
        const char *w[] = {"v",    "rw",     "write",  "bs",        "4k", "size",
                           "256k", "verify", "crc32c", "directory", dir,  NULL};
        const char *rd[] = {"v",    "rw",     "randread", "bs",        "4k", "size",
                            "256k", "verify", "crc32c",   "directory", dir,  NULL};
        const char *rf[] = {"v",      "rw",     "read",         "bs", "4k",        "size", "256k",
                            "verify", "crc32c", "verify_fatal", "1",  "directory", dir,    NULL};
        const char *const *wo[] = {w}, *const * ro[] = {rd}, *const * fo[] = {rf};
        runner_job_result_t res;
        runner_dir_t d[2];
        char err[512], path[400];
        runner_t *r;
        int rc, fd;

        r = new_runner(1, wo, err, sizeof(err), &rc);
        assert_int_equal(rc, 0);
        run_now(r);
        job_totals(r, 0, &res, d);
        assert_int_equal(res.error, 0);
        assert_int_equal(d[1].ios, 64);
        runner_dir_done(&d[0]);
        runner_dir_done(&d[1]);
        runner_destroy(&r);

        r = new_runner(1, ro, err, sizeof(err), &rc);
        assert_int_equal(rc, 0);
        run_now(r);
        job_totals(r, 0, &res, d);
        assert_int_equal(res.error, 0);
        assert_int_equal(d[0].ios, 64);
        assert_int_equal(d[0].errors, 0);
        assert_int_equal(d[0].verify_errors, 0);
        runner_dir_done(&d[0]);
        runner_dir_done(&d[1]);
        runner_destroy(&r);

        /* Flip bytes in the payload of the block at 40960. */
        snprintf(path, sizeof(path), "%s/v.a0.0.0", dir);
        fd = open(path, O_WRONLY | O_CLOEXEC);
        assert_true(fd >= 0);
        assert_int_equal(pwrite(fd, "damage", 6, 40960 + 1000), 6);
        close(fd);

        /* Not fatal: the job reads on, counts one bad block, reports it. */
        r = new_runner(1, ro, err, sizeof(err), &rc);
        assert_int_equal(rc, 0);
        run_now(r);
        job_totals(r, 0, &res, d);
        assert_int_equal(res.error, EILSEQ);
        assert_int_equal(res.error_offset, 40960);
        assert_non_null(strstr(res.errmsg, "offset 40960"));
        assert_non_null(strstr(res.errmsg, "corrupt"));
        assert_int_equal(d[0].verify_errors, 1);
        assert_int_equal(d[0].errors, 1);
        assert_int_equal(d[0].ios, 63);
        assert_int_equal(d[0].issued, 64);
        runner_dir_done(&d[0]);
        runner_dir_done(&d[1]);
        runner_destroy(&r);

        /* verify_fatal: a sequential read stops at the bad block, the 11th. */
        r = new_runner(1, fo, err, sizeof(err), &rc);
        assert_int_equal(rc, 0);
        run_now(r);
        job_totals(r, 0, &res, d);
        assert_int_equal(res.error, EILSEQ);
        assert_int_equal(res.error_offset, 40960);
        assert_int_equal(d[0].verify_errors, 1);
        assert_int_equal(d[0].ios, 10);
        runner_dir_done(&d[0]);
        runner_dir_done(&d[1]);
        runner_destroy(&r);

        /* A file written without verify= holds no headers: every block is never-written. */
        {
                const char *p[] = {"p",    "rw",  "write",     "bs", "4k",
                                   "size", "64k", "directory", dir,  NULL};
                const char *q[] = {"p",   "rw",     "read",   "bs",        "4k", "size",
                                   "64k", "verify", "crc32c", "directory", dir,  NULL};
                const char *const *po[] = {p}, *const * qo[] = {q};
                r = new_runner(1, po, err, sizeof(err), &rc);
                assert_int_equal(rc, 0);
                run_now(r);
                runner_destroy(&r);
                r = new_runner(1, qo, err, sizeof(err), &rc);
                assert_int_equal(rc, 0);
                run_now(r);
                job_totals(r, 0, &res, d);
                assert_int_equal(d[0].verify_errors, 16);
                assert_non_null(strstr(res.errmsg, "offset 0"));
                runner_dir_done(&d[0]);
                runner_dir_done(&d[1]);
                runner_destroy(&r);
        }
}

/* Writes len bytes of pattern c at path (relative to dir). */
static void put_file(const char *rel, size_t len, int c)
{
        char path[400], *buf = malloc(len ? len : 1);
        int fd;
        assert_non_null(buf);
        memset(buf, c, len);
        snprintf(path, sizeof(path), "%s/%s", dir, rel);
        fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        assert_true(fd >= 0);
        assert_int_equal(write(fd, buf, len), (ssize_t)len);
        close(fd);
        free(buf);
}

/* Whether rel (under dir) holds exactly len bytes of c. */
static bool file_is(const char *rel, size_t len, int c)
{
        char path[400], buf[4096];
        size_t got = 0;
        ssize_t n;
        int fd;
        snprintf(path, sizeof(path), "%s/%s", dir, rel);
        fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return false;
        while ((n = read(fd, buf, sizeof(buf))) > 0) {
                for (ssize_t i = 0; i < n; i++)
                        if (buf[i] != (char)c) {
                                close(fd);
                                return false;
                        }
                got += (size_t)n;
        }
        close(fd);
        return got == len;
}

static bool exists(const char *rel)
{
        char path[400];
        struct stat st;
        snprintf(path, sizeof(path), "%s/%s", dir, rel);
        return lstat(path, &st) == 0;
}

/* A small tmpfs at dir/small (1.5 MiB) holding a 4 KiB file "pre"; skips where mounts are not
 * allowed. teardown() unmounts it. */
/* Layout progress: files long enough count at once, a short one its present part at once, what
 * is written as it goes, a reserved (written-only) file when reserved, a shared file once; it
 * only grows, and ends at the total when the runner is prepared. Paced by the test hook so that
 * the middle can be seen. */
static void test_layout_progress_counts(void **state)
{
        job_spec_t *jobs = calloc(3, sizeof(*jobs));
        uint64_t done = 0, total = 0, last = 0;
        bool middle = false;
        char err[512];
        runner_t *r;
        int rc;

        cfg.test_layout_rate = 4 << 20;
        put_file("full", 1 << 20, 'f');
        put_file("short", 100 << 10, 's');
        jobs[0] = job_of("reads", "psync", RW_READ, 3 << 20);
        assert_int_equal(strdup_to(&jobs[0].filename, "full:short:none"), 0);
        jobs[1] = job_of("writes", "psync", RW_WRITE, 2 << 20);
        assert_int_equal(strdup_to(&jobs[1].filename, "wfile"), 0);
        jobs[2] = job_of("shares", "psync", RW_READ, 1 << 20);
        assert_int_equal(strdup_to(&jobs[2].filename, "full"), 0);
        r = runner_of(jobs, 3, err, sizeof(err), &rc);
        assert_int_equal(rc, 0);
        runner_layout_progress(r, &done, &total);
        assert_int_equal(total, 5 << 20);
        while (runner_update(r) == RUNNER_PREPARING) {
                runner_layout_progress(r, &done, &total);
                assert_true(done >= last);
                assert_true(done <= total);
                /* The full file is done before any paced write; the short one is laid out anew
                 * (as fio does), the write-only job's file only reserved, done when it is. */
                middle |= done > (1 << 20) + (100 << 10) && done < total;
                last = done;
                usleep(1000);
        }
        assert_int_equal(runner_update(r), RUNNER_PREPARED);
        runner_layout_progress(r, &done, &total);
        assert_int_equal(done, 5 << 20);
        assert_int_equal(total, 5 << 20);
        assert_true(middle);
        assert_true(file_is("full", 1 << 20, 'f'));
        runner_destroy(&r);
        cfg.test_layout_rate = 0;
}

static void mount_small(char *small, size_t len)
{
        snprintf(small, len, "%s/small", dir);
        assert_int_equal(mkdir(small, 0755), 0);
        if (mount("iofleet-test", small, "tmpfs", 0, "size=1536k") < 0) {
                fprintf(stderr, "skipped: cannot mount a tmpfs here: %s\n", strerror(errno));
                skip();
        }
        put_file("small/pre", 4096, 'q');
}

/* A failed prepare takes back what its layout made, files and directories, and nothing else. The
 * last job fills its file system; a worker whose layout fails waits for the others' layouts
 * before it reports, so the other jobs have laid out their files by then. */
static void test_failed_prepare_removes_its_layout(void **state)
{
        char small[400], err[512];
        const char *a[] = {"first",     "rw", "read",     "size",          "256k",
                           "directory", dir,  "filename", "made/by/first", NULL};
        const char *b[] = {"again",     "rw", "read",     "size", "256k",
                           "directory", dir,  "filename", "pre",  NULL};
        const char *c[] = {"keeps",
                           "rw",
                           "write",
                           "size",
                           "64k",
                           "numjobs",
                           "2",
                           "directory",
                           dir,
                           "filename_format",
                           "keep/$jobname.$jobnum",
                           NULL};
        const char *d[] = {"second",    "rw", "read",     "size", "4m",
                           "directory", NULL, "filename", "fill", NULL};
        const char *const *o[] = {a, b, c, d};
        runner_t *r;
        int rc;

        mount_small(small, sizeof(small));
        d[6] = small;
        put_file("pre", 1 << 20, 'p');
        {
                char k[400];
                snprintf(k, sizeof(k), "%s/keep", dir);
                assert_int_equal(mkdir(k, 0755), 0);
        }
        r = new_runner(4, o, err, sizeof(err), &rc);
        assert_int_equal(rc, 0);
        assert_int_equal(wait_state(r, RUNNER_PREPARED), RUNNER_FAILED);
        assert_non_null(strstr(runner_error(r), "job second: laying out "));
        assert_non_null(strstr(runner_error(r), "No space left on device"));
        /* Laid out indeed, before the failure was reported. */
        assert_true(exists("made/by/first") && exists("keep/keeps.0") && exists("keep/keeps.1"));
        runner_destroy(&r);
        assert_false(exists("made/by/first") || exists("made/by") || exists("made"));
        assert_false(exists("keep/keeps.0") || exists("keep/keeps.1"));
        assert_false(exists("small/fill"));
        /* What was there before stays as it was. */
        assert_true(exists("keep"));
        assert_true(file_is("pre", 1 << 20, 'p'));
        assert_true(file_is("small/pre", 4096, 'q'));
        assert_int_equal(umount2(small, MNT_DETACH), 0);
}

/* A file with a second name (a hard link) is laid out and read as it is, never written. */
static void test_hard_linked_file_is_read_not_written(void **state)
{
        const char *rd[] = {"r", "rw", "read", "size", "64k", "directory", dir, "filename", "h",
                            NULL};
        const char *wr[] = {"w", "rw", "write", "size", "64k", "directory", dir, "filename", "h",
                            NULL};
        const char *const *ro[] = {rd}, *const *wo[] = {wr};
        char a[400], b[400], err[512];
        runner_t *r;
        int rc;

        put_file("h", 64 << 10, 'h');
        snprintf(a, sizeof(a), "%s/h", dir);
        snprintf(b, sizeof(b), "%s/h-other-name", dir);
        assert_int_equal(link(a, b), 0);
        r = new_runner(1, ro, err, sizeof(err), &rc);
        assert_int_equal(rc, 0);
        run_now(r);
        runner_destroy(&r);
        r = new_runner(1, wo, err, sizeof(err), &rc);
        assert_int_equal(rc, 0);
        assert_int_equal(wait_state(r, RUNNER_PREPARED), RUNNER_FAILED);
        assert_non_null(strstr(runner_error(r), "has 2 hard links"));
        runner_destroy(&r);
        assert_true(file_is("h", 64 << 10, 'h'));
}

/* A run prepared but never started (called off elsewhere) leaves nothing either; a run that ran
 * keeps its files, as fio does. */
static void test_unstarted_run_removes_its_layout(void **state)
{
        const char *a[] = {"p",         "rw", "write",    "size",  "64k",
                           "directory", dir,  "filename", "sub/p", NULL};
        const char *const *o[] = {a};
        char err[512];
        runner_t *r;
        int rc;

        r = new_runner(1, o, err, sizeof(err), &rc);
        assert_int_equal(rc, 0);
        assert_int_equal(wait_state(r, RUNNER_PREPARED), RUNNER_PREPARED);
        assert_true(exists("sub/p"));
        runner_destroy(&r);
        assert_false(exists("sub/p") || exists("sub"));

        r = new_runner(1, o, err, sizeof(err), &rc);
        assert_int_equal(rc, 0);
        run_now(r);
        runner_destroy(&r);
        assert_true(exists("sub/p"));
}

/* A layout that fills its (small tmpfs) file system fails, and gives the space back. */
static void test_full_filesystem_gives_the_space_back(void **state)
{
        const char *a[] = {"fill",    "rw", "read",      "size", "2m",
                           "nrfiles", "2",  "directory", NULL,   NULL};
        const char *const *o[] = {a};
        char small[400], err[512];
        struct statvfs before, after;
        runner_t *r;
        int rc;

        mount_small(small, sizeof(small));
        assert_int_equal(statvfs(small, &before), 0);
        a[8] = small;
        r = new_runner(1, o, err, sizeof(err), &rc);
        assert_int_equal(rc, 0);
        assert_int_equal(wait_state(r, RUNNER_PREPARED), RUNNER_FAILED);
        assert_non_null(strstr(runner_error(r), "No space left on device"));
        runner_destroy(&r);
        assert_false(exists("small/fill.a0.0.0") || exists("small/fill.a0.0.1"));
        assert_true(file_is("small/pre", 4096, 'q'));
        assert_int_equal(statvfs(small, &after), 0);
        assert_int_equal(after.f_bfree, before.f_bfree);
        assert_int_equal(umount2(small, MNT_DETACH), 0);
}

/* Job order with the group barrier (the coordinator's cluster-wide stonewall): the second group
 * lays out only once the first has ended, then waits, laid out, for the instant it is given; the
 * first group's file is gone by then (unlink) and the second makes its own. */
static void test_groups_wait_for_their_instant(void **state)
{
        job_spec_t *jobs = calloc(3, sizeof(*jobs));
        runner_params_t p = {.cfg = &cfg, .agent_name = "a0", .work_dir = dir, .jobs = jobs,
                             .n_jobs = 3, .group_barrier = true};
        runner_job_result_t res[3];
        runner_dir_t d[2];
        char err[512];
        runner_t *r = NULL;
        unsigned g = 99;
        uint64_t done, total;
        int64_t at;

        jobs[0] = job_of("first", "psync", RW_WRITE, 1 << 20);
        jobs[0].unlink = true;
        assert_int_equal(strdup_to(&jobs[0].filename, "grp"), 0);
        jobs[1] = job_of("second", "psync", RW_READ, 1 << 20);
        jobs[1].stonewall = true;
        assert_int_equal(strdup_to(&jobs[1].filename, "grp"), 0);
        jobs[2] = job_of("third", "psync", RW_READ, 1 << 20);
        assert_int_equal(strdup_to(&jobs[2].wait_for, "second"), 0);
        assert_int_equal(strdup_to(&jobs[2].filename, "grp"), 0);
        assert_int_equal(runner_new(&p, &r, err, sizeof(err)), 0);
        assert_int_equal(runner_groups(r), 2);
        assert_int_equal(wait_state(r, RUNNER_PREPARED), RUNNER_PREPARED);
        /* the layout before the run is the first group's: the second lays out when it ends */
        runner_layout_progress(r, &done, &total);
        assert_int_equal(total, 1 << 20);
        assert_int_equal(done, 1 << 20);
        assert_false(runner_group_waiting(r, &g));
        assert_int_equal(runner_start_at(r, clock_mono_ns() + 5 * (int64_t)NSEC_PER_MSEC), 0);
        while (!runner_group_waiting(r, &g)) {
                assert_int_not_equal(runner_update(r), RUNNER_DONE);
                usleep(1000);
        }
        assert_int_equal(g, 1);
        assert_int_equal(runner_start_group_at(r, 2, clock_mono_ns()), -EINVAL);
        /* laid out anew: the first group's file was removed when it ended */
        assert_true(exists("grp"));
        at = clock_mono_ns() + 100 * (int64_t)NSEC_PER_MSEC;
        assert_int_equal(runner_start_group_at(r, 1, at), 0);
        assert_int_equal(wait_state(r, RUNNER_DONE), RUNNER_DONE);
        for (int i = 0; i < 3; i++) {
                assert_int_equal(runner_dir_init(&d[0]), 0);
                assert_int_equal(runner_dir_init(&d[1]), 0);
                runner_job_result(r, (size_t)i, &res[i], d);
                assert_int_equal(res[i].error, 0);
                assert_int_equal(d[i == 0].bytes, 1 << 20);
                runner_dir_done(&d[0]);
                runner_dir_done(&d[1]);
        }
        assert_int_equal(res[0].groupid, 0);
        assert_int_equal(res[1].groupid, 1);
        assert_int_equal(res[2].groupid, 1);
        /* the second group began at its instant, the waiter after the second job's end */
        assert_true(res[1].start_ns + 5 * NSEC_PER_MSEC >= res[0].last_done_ns + 100 * NSEC_PER_MSEC);
        assert_true(res[2].start_ns >= res[1].last_done_ns);
        runner_destroy(&r);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test_setup_teardown(test_write_then_read_exact_bytes, setup, teardown),
            cmocka_unit_test_setup_teardown(test_read_lays_out_missing_and_short_files, setup,
                                            teardown),
            cmocka_unit_test_setup_teardown(test_null_engine_and_per_job_runtime, setup, teardown),
            cmocka_unit_test_setup_teardown(test_stop_before_a_far_start, setup, teardown),
            cmocka_unit_test_setup_teardown(test_refusals, setup, teardown),
            cmocka_unit_test_setup_teardown(test_failed_prepare_removes_its_layout, setup,
                                            teardown),
            cmocka_unit_test_setup_teardown(test_unstarted_run_removes_its_layout, setup, teardown),
            cmocka_unit_test_setup_teardown(test_hard_linked_file_is_read_not_written, setup,
                                            teardown),
            cmocka_unit_test_setup_teardown(test_full_filesystem_gives_the_space_back, setup,
                                            teardown),
            cmocka_unit_test_setup_teardown(test_shared_file_laid_out_once_to_the_largest, setup,
                                            teardown),
            cmocka_unit_test_setup_teardown(test_buffer_memory_counts_iodepth, setup, teardown),
            cmocka_unit_test_setup_teardown(test_layout_progress_counts, setup, teardown),
            cmocka_unit_test_setup_teardown(test_groups_wait_for_their_instant, setup, teardown),
            cmocka_unit_test(test_interval_arithmetic),
            cmocka_unit_test_setup_teardown(test_metadata_job_counts_every_phase, setup, teardown),
            cmocka_unit_test_setup_teardown(test_metadata_failure_is_a_job_error, setup, teardown),
            cmocka_unit_test_setup_teardown(test_verify_write_then_read, setup, teardown),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
