/* Unit tests for coordinator/run-logs.c: agents' LogChunks written into the run directory under
 * fio's client-mode names from the coordinator's own copy of the job; what a hostile agent sends
 * (another job, clone or log, a gap, bytes past its limit, a planted symbolic link) never lands
 * outside the run directory or past the limit; resends after a restart; a journal's replay;
 * per_job_logs=0's files put together at the end; the result's list. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fileio.h"
#include "fiolog.h"
#include "log.h"
#include "run-logs.h"
#include "run.h"
#include "unit.h"
#include "util.h"
#include "wire.h"

#define SEC ((int64_t)NSEC_PER_SEC)
#define T0 ((int64_t)1700000000 * SEC)

static char top[64], rundir[128];

typedef struct fx {
        coord_agent_t agents[2];
        coord_agent_t *ap[2];
        run_out_t out;
        coord_run_t *run;
        uint64_t seq[2]; /* each agent's run messages so far */
        uint64_t control_seq;
} fx_t;

static int setup(void **state)
{
        (void)state;
        return unit_scratch_make(top, sizeof(top), "test-run-logs");
}

static int teardown(void **state)
{
        (void)state;
        unit_scratch_remove(top);
        return 0;
}

static envelope_t *roundtrip(envelope_t *e, char *err, size_t errlen)
{
        uint8_t *buf = NULL;
        size_t len = 0;
        envelope_t *d = NULL;
        assert_int_equal(wire_encode(e, &buf, &len), 0);
        if (wire_decode(buf, len, WIRE_MAX_CONTROL_MSG, &d, err, errlen) < 0)
                d = NULL;
        free(buf);
        return d;
}

/* A run of one job ("opts" key, value pairs, NULL-ended) on two agents, its directory made. */
static void fx_start(fx_t *fx, uint64_t max_bytes, const char *const *opts)
{
        Iofleet__Job job = IOFLEET__JOB__INIT, *jp = &job;
        Iofleet__JobOption o[16], *op[16];
        Iofleet__SubmitRun s = IOFLEET__SUBMIT_RUN__INIT;
        envelope_t e = IOFLEET__ENVELOPE__INIT, *sub;
        char err[512] = "";
        size_t n = 0;
        static int k;

        memset(fx, 0, sizeof(*fx));
        for (size_t i = 0; i < 2; i++) {
                coord_agent_t *a = &fx->agents[i];
                snprintf(a->id, sizeof(a->id), "0b5e%04zx-6f1c-4a6e-9d0e-3c1f2a4b5c6d", i);
                snprintf(a->name, sizeof(a->name), "agent%zu", i);
                snprintf(a->hostname, sizeof(a->hostname), "host%zu", i);
                a->state = AGENT_BUSY;
                a->have_offset = true;
                fx->ap[i] = a;
        }
        for (; opts[2 * n]; n++) {
                iofleet__job_option__init(&o[n]);
                o[n].key = (char *)opts[2 * n];
                o[n].value = (char *)opts[2 * n + 1];
                op[n] = &o[n];
        }
        job.name = "seq";
        job.options = op;
        job.n_options = n;
        s.jobs = &jp;
        s.n_jobs = 1;
        s.interval_ns = SEC;
        s.fio_log_bytes_max = max_bytes;
        e.body_case = IOFLEET__ENVELOPE__BODY_SUBMIT_RUN;
        e.submit_run = &s;
        sub = roundtrip(&e, err, sizeof(err));
        assert_non_null(sub);
        if (run_new("run-1", "cli", &sub, fx->ap, NULL, 2, T0, &fx->out, &fx->run, err,
                    sizeof(err)) < 0)
                fail_msg("run_new: %s", err);
        fx->run->seq = &fx->control_seq;
        assert_non_null(fx->run->logs);
        snprintf(rundir, sizeof(rundir), "%s/run%d", top, k++);
        assert_int_equal(mkdir(rundir, 0755), 0);
        assert_int_equal(run_logs_set_dir(fx->run, rundir), 0);
}

static void fx_done(fx_t *fx)
{
        run_free(&fx->run);
        outbox_done(&fx->out.agents);
        outbox_done(&fx->out.control);
        outbox_done(&fx->out.acks);
}

/* Agent i's next chunk as the wire gives it to the run: 0, or -EBADMSG when the wire refuses
 * it. */
static int chunk(fx_t *fx, size_t i, uint32_t job, uint32_t clone, uint32_t kind, uint64_t offset,
                 const char *data, bool eof, const char *cut)
{
        envelope_t e = IOFLEET__ENVELOPE__INIT, *m;
        Iofleet__LogChunk c = IOFLEET__LOG_CHUNK__INIT;
        char err[256];
        int r;
        c.run_id = "run-1";
        c.job = job;
        c.clone = clone;
        c.kind = kind;
        c.offset = offset;
        c.data.data = (uint8_t *)data;
        c.data.len = strlen(data);
        c.eof = eof;
        c.cut = (char *)cut;
        c.run_seq = fx->seq[i] + 1;
        e.body_case = IOFLEET__ENVELOPE__BODY_LOG_CHUNK;
        e.log_chunk = &c;
        if (!(m = roundtrip(&e, err, sizeof(err))))
                return -EBADMSG;
        fx->seq[i]++;
        r = run_on_message(fx->run, fx->agents[i].id, &m, T0 + SEC, &fx->out);
        wire_free(&m);
        return r;
}

/* The file's text in the run directory, NULL when it is not there. */
static char *file(const char *name)
{
        char path[512], *text = NULL;
        size_t len;
        snprintf(path, sizeof(path), "%s/%s", rundir, name);
        return read_full_file(path, READ_FULL_NOFOLLOW, 1 << 20, &text, &len) < 0 ? NULL : text;
}

/* Names in dir, sorted, space-separated. */
static void listing(const char *d, char *buf, size_t n)
{
        struct dirent **v;
        int k = scandir(d, &v, NULL, alphasort);
        buf[0] = 0;
        for (int i = 0; i < k; i++) {
                if (v[i]->d_name[0] != '.') {
                        strncat(buf, v[i]->d_name, n - strlen(buf) - 2);
                        strcat(buf, " ");
                }
                free(v[i]);
        }
        free(v);
}

static void test_names_and_bytes(void **state)
{
        static const char *const opts[] = {"size", "1m", "numjobs", "2", "write_bw_log",
                                           "/etc/../tmp/bw", "write_lat_log", "", NULL};
        fx_t fx;
        char *t;
        json_t *j;
        (void)state;
        fx_start(&fx, 0, opts);
        assert_int_equal(chunk(&fx, 0, 0, 0, FIOLOG_BW, 0, "500, 16, 0, 0, 0\n", false, ""), 0);
        assert_int_equal(chunk(&fx, 0, 0, 0, FIOLOG_BW, 17, "1000, 8, 0, 0, 0\n", true, ""), 0);
        assert_int_equal(chunk(&fx, 0, 0, 1, FIOLOG_CLAT, 0, "3, 900, 1, 4096, 0\n", true, ""), 0);
        assert_int_equal(chunk(&fx, 1, 0, 0, FIOLOG_SLAT, 0, "", true, ""), 0);
        /* the value's last component names the file; fio's thread number; the agent appended */
        t = file("bw_bw.1.log.agent0");
        assert_string_equal(t, "500, 16, 0, 0, 0\n1000, 8, 0, 0, 0\n");
        free(t);
        t = file("seq_clat.2.log.agent0");
        assert_string_equal(t, "3, 900, 1, 4096, 0\n");
        free(t);
        /* an empty log is an empty file, as fio's */
        t = file("seq_slat.1.log.agent1");
        assert_string_equal(t, "");
        free(t);
        /* a resend after an agent's restart writes the same bytes at the same place */
        assert_int_equal(chunk(&fx, 0, 0, 0, FIOLOG_BW, 0, "500, 16, 0, 0, 0\n", false, ""), 0);
        t = file("bw_bw.1.log.agent0");
        assert_string_equal(t, "500, 16, 0, 0, 0\n1000, 8, 0, 0, 0\n");
        free(t);
        assert_int_equal(run_logs_sync(fx.run), 0);
        /* chunks are acknowledged at the next sync every 32, not at the agent's heartbeat */
        assert_int_equal(fx.out.acks.n, 0);
        for (uint64_t off = 34, k = 0; k < 32; k++, off += 17)
                assert_int_equal(chunk(&fx, 0, 0, 0, FIOLOG_BW, off, "1500, 8, 0, 0, 0\n", false,
                                       ""),
                                 0);
        assert_int_equal(fx.out.acks.n, 1);
        j = run_logs_json(fx.run);
        assert_int_equal(json_array_size(j), 2);
        assert_string_equal(json_string_value(json_object_get(json_array_get(j, 0), "agent")),
                            "agent0");
        assert_int_equal(json_integer_value(json_object_get(json_array_get(j, 0), "bytes")),
                         34 + 19 + 32 * 17);
        {
                json_t *f = json_array_get(json_object_get(json_array_get(j, 0), "files"), 0);
                assert_string_equal(json_string_value(json_object_get(f, "file")),
                                    "bw_bw.1.log.agent0");
                assert_true(json_is_true(json_object_get(f, "complete")));
        }
        json_decref(j);
        fx_done(&fx);
}

static void test_hostile(void **state)
{
        static const char *const opts[] = {"size", "1m", "write_iops_log", "x", NULL};
        fx_t fx;
        char names[1024], up[256], *t;
        json_t *j;
        (void)state;
        fx_start(&fx, 0, opts);
        /* what the wire refuses: bytes that are no log's, a kind past the last, a cut without
         * the end */
        assert_int_equal(chunk(&fx, 0, 0, 0, FIOLOG_IOPS, 0, "../../etc/passwd\n", false, ""),
                         -EBADMSG);
        assert_int_equal(chunk(&fx, 0, 0, 0, 9, 0, "1, 1, 0, 4096, 0\n", false, ""), -EBADMSG);
        assert_int_equal(chunk(&fx, 0, 0, 0, FIOLOG_IOPS, 0, "", false, "why"), -EBADMSG);
        assert_int_equal(chunk(&fx, 0, 63, 0, FIOLOG_IOPS, (UINT64_C(1) << 50), "1\n", false, ""),
                         -EBADMSG);
        /* what the run leaves: another job, clone or log than the agent's, a gap */
        assert_int_equal(chunk(&fx, 0, 1, 0, FIOLOG_IOPS, 0, "1, 1, 0, 4096, 0\n", false, ""), 0);
        assert_int_equal(chunk(&fx, 0, 0, 1, FIOLOG_IOPS, 0, "1, 1, 0, 4096, 0\n", false, ""), 0);
        assert_int_equal(chunk(&fx, 0, 0, 0, FIOLOG_BW, 0, "1, 1, 0, 4096, 0\n", false, ""), 0);
        assert_int_equal(chunk(&fx, 0, 0, 0, FIOLOG_IOPS, 4096, "1, 1, 0, 4096, 0\n", false, ""),
                         0);
        /* a symbolic link planted where the log goes is not followed */
        snprintf(up, sizeof(up), "%s/outside", top);
        {
                char link[512];
                snprintf(link, sizeof(link), "%s/x_iops.1.log.agent1", rundir);
                assert_int_equal(symlink(up, link), 0);
        }
        assert_int_equal(chunk(&fx, 1, 0, 0, FIOLOG_IOPS, 0, "1, 1, 0, 4096, 0\n", false, ""), 0);
        assert_int_equal(access(up, F_OK), -1);
        /* only the agents' own logs' names (agent0's empty: its gap was left) */
        listing(rundir, names, sizeof(names));
        assert_string_equal(names, "x_iops.1.log.agent0 x_iops.1.log.agent1 ");
        t = file("x_iops.1.log.agent0");
        assert_string_equal(t, "");
        free(t);
        listing(top, names, sizeof(names));
        assert_int_equal(strstr(names, "outside") == NULL, 1);
        j = run_logs_json(fx.run);
        assert_int_equal(json_integer_value(
                             json_object_get(json_array_get(j, 0), "refused_chunks")),
                         4);
        assert_contains(json_string_value(json_object_get(json_array_get(j, 0), "refused")),
                        "its part has 1 jobs");
        assert_contains(json_string_value(json_object_get(json_array_get(j, 1), "refused")),
                        "symbolic link");
        json_decref(j);
        /* the honest agent's own log still goes where it belongs */
        assert_int_equal(chunk(&fx, 0, 0, 0, FIOLOG_IOPS, 0, "1, 1, 0, 4096, 0\n", true, ""), 0);
        t = file("x_iops.1.log.agent0");
        assert_string_equal(t, "1, 1, 0, 4096, 0\n");
        free(t);
        fx_done(&fx);
}

static void test_limit(void **state)
{
        static const char *const opts[] = {"size", "1m", "numjobs", "2", "write_iops_log", "",
                                           NULL};
        fx_t fx;
        char line[64] = "100, 1, 0, 4096, 0\n"; /* 19 bytes */
        json_t *j, *files;
        (void)state;
        fx_start(&fx, 50, opts);
        assert_int_equal(chunk(&fx, 0, 0, 0, FIOLOG_IOPS, 0, line, false, ""), 0);
        assert_int_equal(chunk(&fx, 0, 0, 1, FIOLOG_IOPS, 0, line, false, ""), 0);
        /* a third would pass 50 bytes: left, the log marked cut */
        assert_int_equal(chunk(&fx, 0, 0, 0, FIOLOG_IOPS, 19, line, true, ""), 0);
        /* rewriting what is there grows nothing: allowed */
        assert_int_equal(chunk(&fx, 0, 0, 1, FIOLOG_IOPS, 0, line, true, ""), 0);
        j = run_logs_json(fx.run);
        assert_int_equal(json_integer_value(json_object_get(json_array_get(j, 0), "bytes")), 38);
        files = json_object_get(json_array_get(j, 0), "files");
        assert_false(json_is_true(json_object_get(json_array_get(files, 0), "complete")));
        assert_contains(json_string_value(json_object_get(json_array_get(files, 0), "cut")),
                        "fio_logs_max_mib");
        assert_true(json_is_true(json_object_get(json_array_get(files, 1), "complete")));
        json_decref(j);
        fx_done(&fx);
}

static void test_per_job_logs_0(void **state)
{
        static const char *const opts[] = {"size",   "1m", "numjobs", "2", "write_bw_log", "b",
                                           "per_job_logs", "0", NULL};
        fx_t fx;
        char names[1024], *t;
        json_t *j;
        (void)state;
        fx_start(&fx, 0, opts);
        assert_int_equal(chunk(&fx, 0, 0, 1, FIOLOG_BW, 0, "5, 2, 0, 4096, 0\n", true, ""), 0);
        assert_int_equal(chunk(&fx, 0, 0, 0, FIOLOG_BW, 0, "4, 1, 0, 4096, 0\n", true, ""), 0);
        run_logs_finish(fx.run);
        /* fio's per_job_logs=0: one file per job name, the clones one after another */
        t = file("b_bw.log.agent0");
        assert_string_equal(t, "4, 1, 0, 4096, 0\n5, 2, 0, 4096, 0\n");
        free(t);
        listing(rundir, names, sizeof(names));
        assert_string_equal(names, "b_bw.log.agent0 ");
        /* again (a coordinator restarted while it ended the run): the file stays whole */
        run_logs_finish(fx.run);
        t = file("b_bw.log.agent0");
        assert_string_equal(t, "4, 1, 0, 4096, 0\n5, 2, 0, 4096, 0\n");
        free(t);
        j = run_logs_json(fx.run);
        {
                json_t *files = json_object_get(json_array_get(j, 0), "files");
                assert_int_equal(json_array_size(files), 1);
                assert_int_equal(json_integer_value(
                                     json_object_get(json_array_get(files, 0), "bytes")),
                                 34);
        }
        json_decref(j);
        fx_done(&fx);
}

static void test_replay(void **state)
{
        static const char *const opts[] = {"size", "1m", "write_iops_log", "", NULL};
        fx_t fx;
        char *t;
        json_t *j;
        (void)state;
        fx_start(&fx, 100, opts);
        assert_int_equal(chunk(&fx, 0, 0, 0, FIOLOG_IOPS, 0, "1, 1, 0, 4096, 0\n", false, ""), 0);
        assert_int_equal(chunk(&fx, 0, 0, 0, FIOLOG_IOPS, 17, "2, 1, 0, 4096, 0\n", false, ""),
                         0);
        assert_int_equal(run_logs_sync(fx.run), 0);
        /* a restarted coordinator replays the journal (chunks without their bytes), then counts
         * what the files hold */
        {
                char dir[128];
                snprintf(dir, sizeof(dir), "%s", rundir);
                run_logs_free(&fx.run->logs);
                assert_int_equal(run_logs_new(fx.run), 0);
                fx.run->replaying = true;
                fx.seq[0] = 0;
                fx.run->agents[0].rseq = 0;
                assert_int_equal(chunk(&fx, 0, 0, 0, FIOLOG_IOPS, 0, "", false, ""), 0);
                assert_int_equal(chunk(&fx, 0, 0, 0, FIOLOG_IOPS, 17, "", false, ""), 0);
                fx.run->replaying = false;
                assert_int_equal(run_logs_set_dir(fx.run, dir), 0);
        }
        /* the agent resends from what was acknowledged: a chunk already there, then the rest */
        assert_int_equal(chunk(&fx, 0, 0, 0, FIOLOG_IOPS, 17, "2, 1, 0, 4096, 0\n", false, ""),
                         0);
        assert_int_equal(chunk(&fx, 0, 0, 0, FIOLOG_IOPS, 34, "3, 1, 0, 4096, 0\n", true, ""), 0);
        t = file("seq_iops.1.log.agent0");
        assert_string_equal(t, "1, 1, 0, 4096, 0\n2, 1, 0, 4096, 0\n3, 1, 0, 4096, 0\n");
        free(t);
        /* and the limit counts what was there before the restart */
        j = run_logs_json(fx.run);
        assert_int_equal(json_integer_value(json_object_get(json_array_get(j, 0), "bytes")), 51);
        json_decref(j);
        assert_int_equal(chunk(&fx, 0, 0, 0, FIOLOG_IOPS, 51, "4, 1, 0, 4096, 0\n", false, ""),
                         0);
        assert_int_equal(chunk(&fx, 0, 0, 0, FIOLOG_IOPS, 68, "5, 1, 0, 4096, 0\n", false, ""),
                         0);
        assert_int_equal(chunk(&fx, 0, 0, 0, FIOLOG_IOPS, 85, "6, 1, 0, 4096, 0\n", false, ""),
                         0);
        t = file("seq_iops.1.log.agent0");
        assert_int_equal(strlen(t), 85);
        free(t);
        fx_done(&fx);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_names_and_bytes), cmocka_unit_test(test_hostile),
            cmocka_unit_test(test_limit),           cmocka_unit_test(test_per_job_logs_0),
            cmocka_unit_test(test_replay),
        };
        log_setup("test-run-logs", LOG_ERR);
        return cmocka_run_group_tests(tests, setup, teardown);
}
