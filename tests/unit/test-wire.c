/* Unit tests for wire: round trips of every body, size/decode/version refusals, field checks, hist
 * and job helpers. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hist.h"
#include "options.h"
#include "util.h"
#include "wire.h"

#define assert_contains(hay, needle)                                                               \
        do {                                                                                       \
                if (!strstr((hay), (needle)))                                                      \
                        fail_msg("'%s' does not mention '%s'", (hay), (needle));                   \
        } while (0)

/* Encodes e, decodes it under the agent cap and checks that the decoded message packs to the very
 * same bytes, which protobuf-c's field-ordered packing makes a field-by-field comparison. */
static envelope_t *round_trip(envelope_t *e)
{
        uint8_t *buf = NULL, *buf2 = NULL;
        size_t len = 0, len2 = 0;
        envelope_t *d = NULL;
        char err[512] = "";
        int r;

        e->version = 0;
        assert_int_equal(wire_encode(e, &buf, &len), 0);
        assert_int_equal(e->version, PROTOCOL_VERSION);
        r = wire_decode(buf, len, WIRE_MAX_AGENT_MSG, &d, err, sizeof(err));
        if (r != 0)
                fail_msg("decode of %s failed: %d %s", wire_body_name(e), r, err);
        assert_non_null(d);
        assert_int_equal(d->version, PROTOCOL_VERSION);
        assert_int_equal(d->body_case, e->body_case);
        assert_int_equal(d->seq, e->seq);
        assert_string_equal(wire_body_name(d), wire_body_name(e));
        assert_int_equal(wire_encode(d, &buf2, &len2), 0);
        assert_int_equal(len2, len);
        assert_memory_equal(buf2, buf, len);
        free(buf);
        free(buf2);
        return d;
}

/* Encodes e and expects wire_decode to refuse it with -EBADMSG and a message naming needle. */
static void expect_bad(envelope_t *e, const char *needle)
{
        uint8_t *buf = NULL;
        size_t len = 0;
        envelope_t *d = NULL;
        char err[512] = "";
        int r;

        assert_int_equal(wire_encode(e, &buf, &len), 0);
        r = wire_decode(buf, len, WIRE_MAX_CONTROL_MSG, &d, err, sizeof(err));
        free(buf);
        if (r != -EBADMSG) {
                wire_free(&d);
                fail_msg("%s: expected -EBADMSG naming '%s', got %d (%s)", wire_body_name(e),
                         needle, r, err);
        }
        assert_null(d);
        assert_contains(err, needle);
        assert_null(strchr(err, '\n'));
}

static void expect_good(envelope_t *e)
{
        envelope_t *d = round_trip(e);
        wire_free(&d);
        assert_null(d);
}

/* A string of n copies of c, owned by the caller. */
static char *str_of(size_t n, char c)
{
        char *s = malloc(n + 1);
        assert_non_null(s);
        memset(s, c, n);
        s[n] = 0;
        return s;
}

/* ---- fixtures ---------------------------------------------------------------------------- */

typedef struct hist_fx {
        Iofleet__Hist h;
        uint32_t idx[3];
        uint64_t cnt[3];
} hist_fx_t;

/* A valid sparse histogram: 10 values in buckets 1, 5 and 200. */
static void hist_fx_init(hist_fx_t *f)
{
        iofleet__hist__init(&f->h);
        f->idx[0] = 1, f->idx[1] = 5, f->idx[2] = 200;
        f->cnt[0] = 2, f->cnt[1] = 3, f->cnt[2] = 5;
        f->h.index = f->idx;
        f->h.count = f->cnt;
        f->h.n_index = f->h.n_count = 3;
        f->h.n = 10;
        f->h.min = 1;
        f->h.max = hist_bucket_high(200);
        f->h.sum = 2 * 1 + 3 * 5 + 5 * hist_bucket_low(200);
        f->h.sumsq = 1e6;
}

typedef struct job_fx {
        Iofleet__Job job;
        Iofleet__JobOption opt[3];
        Iofleet__JobOption *opts[3];
        Iofleet__Job *jobs[1];
} job_fx_t;

static void job_fx_init(job_fx_t *f)
{
        static const char *kv[3][2] = {{"rw", "randread"}, {"bs", "4k"}, {"size", "1m"}};
        iofleet__job__init(&f->job);
        f->job.name = "j1";
        for (size_t i = 0; i < 3; i++) {
                iofleet__job_option__init(&f->opt[i]);
                f->opt[i].key = (char *)kv[i][0];
                f->opt[i].value = (char *)kv[i][1];
                f->opts[i] = &f->opt[i];
        }
        f->job.options = f->opts;
        f->job.n_options = 3;
        f->jobs[0] = &f->job;
}

typedef struct hello_fx {
        envelope_t e;
        Iofleet__Hello h;
        Iofleet__Label label[2];
        Iofleet__Label *labels[2];
        char *roles[2];
        char *engines[2];
} hello_fx_t;

static void hello_fx_init(hello_fx_t *f)
{
        iofleet__envelope__init(&f->e);
        iofleet__hello__init(&f->h);
        f->e.seq = 7;
        f->e.body_case = IOFLEET__ENVELOPE__BODY_HELLO;
        f->e.hello = &f->h;
        f->h.agent_id = "0b7e1c1e-8a66-4f0e-9a1a-2f4a3a1d2c3b";
        f->h.name = "node-1";
        f->h.hostname = "node-1.example.org";
        f->h.version = "0.1.0";
        f->h.boot_id = "5d2c7d7c-4a4b-4e61-8f0e-6d3a2b1c0f9e";
        f->roles[0] = "storage", f->roles[1] = "client";
        f->h.roles = f->roles;
        f->h.n_roles = 2;
        f->engines[0] = "psync", f->engines[1] = "null";
        f->h.engines = f->engines;
        f->h.n_engines = 2;
        for (size_t i = 0; i < 2; i++) {
                iofleet__label__init(&f->label[i]);
                f->labels[i] = &f->label[i];
        }
        f->label[0].key = "rack", f->label[0].value = "a1";
        f->label[1].key = "disk", f->label[1].value = "nvme";
        f->h.labels = f->labels;
        f->h.n_labels = 2;
}

typedef struct prepare_fx {
        envelope_t e;
        Iofleet__Prepare p;
        job_fx_t j;
} prepare_fx_t;

static void prepare_fx_init(prepare_fx_t *f)
{
        iofleet__envelope__init(&f->e);
        iofleet__prepare__init(&f->p);
        job_fx_init(&f->j);
        f->e.body_case = IOFLEET__ENVELOPE__BODY_PREPARE;
        f->e.prepare = &f->p;
        f->p.run_id = "run-1";
        f->p.rank = 2;
        f->p.nagents = 3;
        f->p.interval_ns = NSEC_PER_SEC;
        f->p.jobs = f->j.jobs;
        f->p.n_jobs = 1;
}

typedef struct interval_fx {
        envelope_t e;
        Iofleet__Interval iv;
        Iofleet__DirStats rd, wr;
        hist_fx_t rh, wh;
} interval_fx_t;

static void interval_fx_init(interval_fx_t *f)
{
        iofleet__envelope__init(&f->e);
        iofleet__interval__init(&f->iv);
        iofleet__dir_stats__init(&f->rd);
        iofleet__dir_stats__init(&f->wr);
        hist_fx_init(&f->rh);
        hist_fx_init(&f->wh);
        f->e.body_case = IOFLEET__ENVELOPE__BODY_INTERVAL;
        f->e.interval = &f->iv;
        f->iv.run_id = "run-1";
        f->iv.index = 12;
        f->iv.last = 1;
        f->rd.bytes = 40960;
        f->rd.ios = 10;
        f->rd.clat = &f->rh.h;
        f->wr.bytes = 4096;
        f->wr.ios = 10;
        f->wr.short_ios = 1;
        f->wr.errors = 2;
        f->wr.clat = &f->wh.h;
        f->iv.read = &f->rd;
        f->iv.write = &f->wr;
}

typedef struct finished_fx {
        envelope_t e;
        Iofleet__Finished f;
        Iofleet__JobResult jr;
        Iofleet__JobResult *jrs[1];
        Iofleet__DirStats rd;
        hist_fx_t rh;
} finished_fx_t;

static void finished_fx_init(finished_fx_t *f)
{
        iofleet__envelope__init(&f->e);
        iofleet__finished__init(&f->f);
        iofleet__job_result__init(&f->jr);
        iofleet__dir_stats__init(&f->rd);
        hist_fx_init(&f->rh);
        f->e.body_case = IOFLEET__ENVELOPE__BODY_FINISHED;
        f->e.finished = &f->f;
        f->f.run_id = "run-1";
        f->f.error = "";
        f->jr.name = "j1";
        f->jr.numjobs = 4;
        f->jr.runtime_ns = 5 * NSEC_PER_SEC;
        f->jr.first_done_ns = 4 * NSEC_PER_SEC;
        f->jr.last_done_ns = 5 * NSEC_PER_SEC;
        f->jr.error = 0;
        f->jr.error_msg = "line one\n\tline two";
        f->rd.ios = 10;
        f->rd.clat = &f->rh.h;
        f->jr.read = &f->rd;
        f->jrs[0] = &f->jr;
        f->f.jobs = f->jrs;
        f->f.n_jobs = 1;
}

typedef struct submit_fx {
        envelope_t e;
        Iofleet__SubmitRun s;
        job_fx_t j;
} submit_fx_t;

static void submit_fx_init(submit_fx_t *f)
{
        iofleet__envelope__init(&f->e);
        iofleet__submit_run__init(&f->s);
        job_fx_init(&f->j);
        f->e.body_case = IOFLEET__ENVELOPE__BODY_SUBMIT_RUN;
        f->e.submit_run = &f->s;
        f->s.selector = "role=client,rack=a*";
        f->s.lead_ns = 2 * NSEC_PER_SEC;
        f->s.interval_ns = NSEC_PER_SEC;
        f->s.command_line = "iofleet run --rw=randread\n--bs=4k";
        f->s.jobs = f->j.jobs;
        f->s.n_jobs = 1;
}

typedef struct agents_fx {
        envelope_t e;
        Iofleet__AgentList al;
        Iofleet__RunAccepted ra;
        Iofleet__AgentInfo ai[2];
        Iofleet__AgentInfo *ais[2];
        Iofleet__Label label;
        Iofleet__Label *labels[1];
        char *roles[1];
} agents_fx_t;

static void agents_fx_init(agents_fx_t *f, bool accepted)
{
        iofleet__envelope__init(&f->e);
        iofleet__agent_list__init(&f->al);
        iofleet__run_accepted__init(&f->ra);
        iofleet__label__init(&f->label);
        f->label.key = "rack", f->label.value = "b2";
        f->labels[0] = &f->label;
        f->roles[0] = "client";
        for (size_t i = 0; i < 2; i++) {
                iofleet__agent_info__init(&f->ai[i]);
                f->ai[i].agent_id = i ? "id-2" : "id-1";
                f->ai[i].name = i ? "node-2" : "node-1";
                f->ai[i].hostname = "host";
                f->ai[i].version = "0.1.0";
                f->ai[i].state = i ? "busy" : "idle";
                f->ai[i].offset_ns = i ? -123456789 : 987654321;
                f->ai[i].rtt_ns = 55000;
                f->ai[i].joined_ns = 1;
                f->ai[i].last_seen_ns = 2;
                f->ai[i].roles = f->roles;
                f->ai[i].n_roles = 1;
                f->ai[i].labels = f->labels;
                f->ai[i].n_labels = 1;
                f->ais[i] = &f->ai[i];
        }
        if (accepted) {
                f->e.body_case = IOFLEET__ENVELOPE__BODY_RUN_ACCEPTED;
                f->e.run_accepted = &f->ra;
                f->ra.run_id = "run-9";
                f->ra.agents = f->ais;
                f->ra.n_agents = 2;
        } else {
                f->e.body_case = IOFLEET__ENVELOPE__BODY_AGENT_LIST;
                f->e.agent_list = &f->al;
                f->al.agents = f->ais;
                f->al.n_agents = 2;
        }
}

/* ---- round trips ------------------------------------------------------------------------- */

static void test_round_trip_hello(void **state)
{
        hello_fx_t f;
        envelope_t *d;

        hello_fx_init(&f);
        d = round_trip(&f.e);
        assert_int_equal(d->seq, 7);
        assert_string_equal(d->hello->name, "node-1");
        assert_string_equal(d->hello->agent_id, f.h.agent_id);
        assert_int_equal(d->hello->n_roles, 2);
        assert_string_equal(d->hello->roles[1], "client");
        assert_int_equal(d->hello->n_labels, 2);
        assert_string_equal(d->hello->labels[1]->value, "nvme");
        assert_string_equal(wire_body_name(d), "hello");
        wire_free(&d);
        assert_null(d);
        wire_free(&d); /* NULL-safe */
}

static void test_round_trip_small_bodies(void **state)
{
        envelope_t e;
        Iofleet__Welcome w = IOFLEET__WELCOME__INIT;
        Iofleet__Heartbeat hb = IOFLEET__HEARTBEAT__INIT;
        Iofleet__TimeProbe tp = IOFLEET__TIME_PROBE__INIT;
        Iofleet__TimeReply tr = IOFLEET__TIME_REPLY__INIT;
        Iofleet__Prepared pd = IOFLEET__PREPARED__INIT;
        Iofleet__Start st = IOFLEET__START__INIT;
        Iofleet__Started sd = IOFLEET__STARTED__INIT;
        Iofleet__Stop sp = IOFLEET__STOP__INIT;
        Iofleet__Error er = IOFLEET__ERROR__INIT;
        Iofleet__ListAgents la = IOFLEET__LIST_AGENTS__INIT;
        Iofleet__RunDone rd = IOFLEET__RUN_DONE__INIT;
        Iofleet__CancelRun cr = IOFLEET__CANCEL_RUN__INIT;
        envelope_t *d;

        iofleet__envelope__init(&e);
        e.seq = UINT64_MAX;
        e.body_case = IOFLEET__ENVELOPE__BODY_WELCOME;
        e.welcome = &w;
        w.coordinator_version = "0.1.0";
        w.heartbeat_ns = NSEC_PER_SEC;
        w.lost_after = 3;
        d = round_trip(&e);
        assert_int_equal(d->welcome->heartbeat_ns, NSEC_PER_SEC);
        assert_int_equal(d->welcome->lost_after, 3);
        wire_free(&d);

        e.body_case = IOFLEET__ENVELOPE__BODY_HEARTBEAT;
        e.heartbeat = &hb;
        hb.offset_ns = -(INT64_C(1) << 62);
        hb.rtt_ns = 12345;
        hb.run_id = "run-1";
        d = round_trip(&e);
        assert_int_equal(d->heartbeat->offset_ns, -(INT64_C(1) << 62));
        wire_free(&d);

        e.body_case = IOFLEET__ENVELOPE__BODY_TIME_PROBE;
        e.time_probe = &tp;
        tp.t1 = INT64_MIN;
        d = round_trip(&e);
        assert_true(d->time_probe->t1 == INT64_MIN);
        wire_free(&d);

        e.body_case = IOFLEET__ENVELOPE__BODY_TIME_REPLY;
        e.time_reply = &tr;
        tr.t1 = 1, tr.t2 = -2, tr.t3 = INT64_MAX;
        d = round_trip(&e);
        assert_true(d->time_reply->t2 == -2 && d->time_reply->t3 == INT64_MAX);
        wire_free(&d);

        e.body_case = IOFLEET__ENVELOPE__BODY_PREPARED;
        e.prepared = &pd;
        pd.run_id = "run-1", pd.offset_ns = -5, pd.rtt_ns = 6, pd.workers = 7;
        d = round_trip(&e);
        assert_int_equal(d->prepared->workers, 7);
        wire_free(&d);

        e.body_case = IOFLEET__ENVELOPE__BODY_START;
        e.start = &st;
        st.run_id = "run-1", st.start_ns = 1234567890123;
        d = round_trip(&e);
        assert_int_equal(d->start->start_ns, 1234567890123);
        wire_free(&d);

        e.body_case = IOFLEET__ENVELOPE__BODY_STARTED;
        e.started = &sd;
        sd.run_id = "run-1", sd.start_ns = 5, sd.host_mono_ns = 6, sd.workers_lag_ns = 7;
        d = round_trip(&e);
        assert_int_equal(d->started->host_mono_ns, 6);
        wire_free(&d);

        e.body_case = IOFLEET__ENVELOPE__BODY_STOP;
        e.stop = &sp;
        sp.run_id = "run-1", sp.reason = "user asked";
        d = round_trip(&e);
        assert_string_equal(d->stop->reason, "user asked");
        wire_free(&d);

        e.body_case = IOFLEET__ENVELOPE__BODY_ERROR;
        e.error = &er;
        er.code = IOFLEET__ERROR_CODE__ERROR_BAD_JOB;
        er.message = "job j1: bs: bad\n\tsecond line";
        d = round_trip(&e);
        assert_int_equal(d->error->code, IOFLEET__ERROR_CODE__ERROR_BAD_JOB);
        assert_string_equal(d->error->run_id, "");
        wire_free(&d);

        e.body_case = IOFLEET__ENVELOPE__BODY_LIST_AGENTS;
        e.list_agents = &la;
        d = round_trip(&e);
        assert_string_equal(wire_body_name(d), "list_agents");
        wire_free(&d);

        e.body_case = IOFLEET__ENVELOPE__BODY_RUN_DONE;
        e.run_done = &rd;
        rd.run_id = "run-1", rd.code = IOFLEET__ERROR_CODE__ERROR_NONE, rd.message = "done";
        rd.result_json = "{\n\t\"fio version\": \"iofleet\"\n}";
        rd.results_dir = "/var/lib/iofleet/results/run-1";
        d = round_trip(&e);
        assert_string_equal(d->run_done->result_json, rd.result_json);
        wire_free(&d);

        e.body_case = IOFLEET__ENVELOPE__BODY_CANCEL_RUN;
        e.cancel_run = &cr;
        cr.run_id = "run-1";
        d = round_trip(&e);
        assert_string_equal(d->cancel_run->run_id, "run-1");
        wire_free(&d);
}

static void test_round_trip_prepare(void **state)
{
        prepare_fx_t f;
        envelope_t *d;

        prepare_fx_init(&f);
        d = round_trip(&f.e);
        assert_int_equal(d->prepare->rank, 2);
        assert_int_equal(d->prepare->nagents, 3);
        assert_int_equal(d->prepare->n_jobs, 1);
        assert_string_equal(d->prepare->jobs[0]->name, "j1");
        assert_int_equal(d->prepare->jobs[0]->n_options, 3);
        assert_string_equal(d->prepare->jobs[0]->options[2]->key, "size");
        assert_string_equal(d->prepare->jobs[0]->options[2]->value, "1m");
        wire_free(&d);
}

static void test_round_trip_interval(void **state)
{
        interval_fx_t f;
        envelope_t *d;

        interval_fx_init(&f);
        d = round_trip(&f.e);
        assert_int_equal(d->interval->index, 12);
        assert_true(d->interval->last);
        assert_non_null(d->interval->read->clat);
        assert_int_equal(d->interval->read->clat->n_index, 3);
        assert_int_equal(d->interval->read->clat->index[2], 200);
        assert_int_equal(d->interval->write->clat->count[1], 3);
        assert_true(d->interval->write->clat->sumsq == 1e6);
        wire_free(&d);

        /* Directions and histograms are optional. */
        f.iv.write = NULL;
        f.rd.clat = NULL;
        d = round_trip(&f.e);
        assert_null(d->interval->write);
        assert_null(d->interval->read->clat);
        wire_free(&d);
}

static void test_round_trip_finished(void **state)
{
        finished_fx_t f;
        envelope_t *d;

        finished_fx_init(&f);
        d = round_trip(&f.e);
        assert_int_equal(d->finished->n_jobs, 1);
        assert_int_equal(d->finished->jobs[0]->numjobs, 4);
        assert_string_equal(d->finished->jobs[0]->error_msg, "line one\n\tline two");
        assert_int_equal(d->finished->jobs[0]->read->clat->n, 10);
        wire_free(&d);
}

static void test_round_trip_cli_bodies(void **state)
{
        submit_fx_t s;
        agents_fx_t a;
        Iofleet__RunUpdate ru = IOFLEET__RUN_UPDATE__INIT;
        Iofleet__AgentInterval ai = IOFLEET__AGENT_INTERVAL__INIT;
        Iofleet__AgentInterval *ais[1] = {&ai};
        envelope_t e, *d;

        submit_fx_init(&s);
        d = round_trip(&s.e);
        assert_string_equal(d->submit_run->selector, "role=client,rack=a*");
        assert_int_equal(d->submit_run->interval_ns, NSEC_PER_SEC);
        assert_string_equal(d->submit_run->jobs[0]->options[0]->value, "randread");
        wire_free(&d);

        /* interval 0 means "the coordinator's default" */
        s.s.interval_ns = 0;
        expect_good(&s.e);

        agents_fx_init(&a, false);
        d = round_trip(&a.e);
        assert_int_equal(d->agent_list->n_agents, 2);
        assert_string_equal(d->agent_list->agents[1]->state, "busy");
        assert_int_equal(d->agent_list->agents[1]->offset_ns, -123456789);
        wire_free(&d);
        a.al.n_agents = 0;
        expect_good(&a.e);

        agents_fx_init(&a, true);
        d = round_trip(&a.e);
        assert_string_equal(d->run_accepted->run_id, "run-9");
        assert_string_equal(d->run_accepted->agents[0]->labels[0]->value, "b2");
        wire_free(&d);

        iofleet__envelope__init(&e);
        e.body_case = IOFLEET__ENVELOPE__BODY_RUN_UPDATE;
        e.run_update = &ru;
        ru.run_id = "run-1";
        ru.kind = IOFLEET__RUN_UPDATE__KIND__KIND_INTERVAL;
        ru.index = 4;
        ru.read_bytes = 1 << 20;
        ru.reported = 2;
        ru.agents = 2;
        ru.message = "agent node-2 lost\n";
        ai.name = "node-2";
        ai.read_ios = 99;
        ru.per_agent = ais;
        ru.n_per_agent = 1;
        d = round_trip(&e);
        assert_int_equal(d->run_update->kind, IOFLEET__RUN_UPDATE__KIND__KIND_INTERVAL);
        assert_int_equal(d->run_update->per_agent[0]->read_ios, 99);
        wire_free(&d);
}

/* ---- size, decoding, version ------------------------------------------------------------- */

static void test_decode_cap(void **state)
{
        hello_fx_t f;
        uint8_t *buf, *garbage;
        size_t len;
        envelope_t *d = NULL;
        char err[256] = "";

        hello_fx_init(&f);
        assert_int_equal(wire_encode(&f.e, &buf, &len), 0);
        assert_int_equal(wire_decode(buf, len, len, &d, err, sizeof(err)), 0);
        wire_free(&d);
        assert_int_equal(wire_decode(buf, len, len - 1, &d, err, sizeof(err)), -EMSGSIZE);
        assert_null(d);
        assert_contains(err, "cap");
        free(buf);

        /* The cap is checked before decoding: garbage over the cap is -EMSGSIZE, not -EBADMSG. */
        len = WIRE_MAX_AGENT_MSG + 1;
        garbage = malloc(len);
        assert_non_null(garbage);
        memset(garbage, 0xff, len);
        assert_int_equal(wire_decode(garbage, len, WIRE_MAX_AGENT_MSG, &d, err, sizeof(err)),
                         -EMSGSIZE);
        assert_null(d);
        assert_int_equal(wire_decode(garbage, 64, WIRE_MAX_AGENT_MSG, &d, err, sizeof(err)),
                         -EBADMSG);
        assert_null(d);
        free(garbage);

        /* A NULL err is allowed. */
        assert_int_equal(wire_decode("x", 1, 0, &d, NULL, 0), -EMSGSIZE);
}

static void test_decode_garbage(void **state)
{
        static const uint8_t bad[][6] = {
            {0xff, 0xff, 0xff, 0xff, 0xff, 0xff}, /* unterminated varint */
            {0x52, 0x05, 0x0a, 0x03, 'a', 'b'},   /* hello: length runs past the end */
            {0x08, 0x01, 0x07, 0x00, 0x00, 0x00}, /* wire type 7 does not exist */
        };
        hello_fx_t f;
        uint8_t *buf;
        size_t len;
        envelope_t *d = NULL;
        char err[256];

        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                err[0] = 0;
                assert_int_equal(wire_decode(bad[i], sizeof(bad[i]), 1024, &d, err, sizeof(err)),
                                 -EBADMSG);
                assert_null(d);
                assert_contains(err, "Envelope");
        }

        /* Every truncation of a valid message fails cleanly (or still decodes as a prefix that
         * happens to be complete, which can only be the full message here). */
        hello_fx_init(&f);
        assert_int_equal(wire_encode(&f.e, &buf, &len), 0);
        for (size_t n = 1; n < len; n++) {
                int r = wire_decode(buf, n, 1024, &d, err, sizeof(err));
                assert_true(r == -EBADMSG || r == -EPROTO);
                if (r == -EPROTO)
                        wire_free(&d);
                assert_null(d);
        }
        free(buf);
}

static void test_decode_version(void **state)
{
        hello_fx_t f;
        Iofleet__Error er = IOFLEET__ERROR__INIT;
        envelope_t e;
        uint8_t *buf;
        size_t len;
        envelope_t *d = NULL;
        char err[256] = "";

        hello_fx_init(&f);
        f.e.version = PROTOCOL_VERSION + 1;
        f.h.name = "bad\x01name"; /* fields are not judged once the version is wrong */
        assert_int_equal(wire_encode(&f.e, &buf, &len), 0);
        assert_int_equal(wire_decode(buf, len, WIRE_MAX_AGENT_MSG, &d, err, sizeof(err)), -EPROTO);
        free(buf);
        assert_non_null(d);
        assert_int_equal(d->version, PROTOCOL_VERSION + 1);
        assert_int_equal(d->body_case, IOFLEET__ENVELOPE__BODY_HELLO);
        {
                char want[64];
                snprintf(want, sizeof(want), "version %u", PROTOCOL_VERSION + 1);
                assert_contains(err, want);
                snprintf(want, sizeof(want), "speaks %u", PROTOCOL_VERSION);
                assert_contains(err, want);
        }
        wire_free(&d);

        /* A peer refusing us sends an Error we must still be able to log. */
        iofleet__envelope__init(&e);
        e.version = 99;
        e.body_case = IOFLEET__ENVELOPE__BODY_ERROR;
        e.error = &er;
        er.code = IOFLEET__ERROR_CODE__ERROR_PROTOCOL_VERSION;
        er.message = "speak version 99";
        assert_int_equal(wire_encode(&e, &buf, &len), 0);
        assert_int_equal(e.version, 99); /* a set version is left alone */
        assert_int_equal(wire_decode(buf, len, WIRE_MAX_AGENT_MSG, &d, err, sizeof(err)), -EPROTO);
        free(buf);
        assert_non_null(d);
        assert_string_equal(d->error->message, "speak version 99");
        assert_contains(err, "99");
        wire_free(&d);

        /* Version 0 (field absent) is a mismatch too; wire_encode would fill it in, so pack
         * by hand. */
        e.version = 0;
        len = iofleet__envelope__get_packed_size(&e);
        buf = malloc(len);
        assert_non_null(buf);
        iofleet__envelope__pack(&e, buf);
        assert_int_equal(wire_decode(buf, len, WIRE_MAX_AGENT_MSG, &d, err, sizeof(err)), -EPROTO);
        assert_contains(err, "version 0");
        wire_free(&d);
        free(buf);

        /* An empty message is a valid Envelope of version 0. */
        assert_int_equal(wire_decode("", 0, WIRE_MAX_AGENT_MSG, &d, err, sizeof(err)), -EPROTO);
        wire_free(&d);
}

static void test_no_body(void **state)
{
        envelope_t e;

        iofleet__envelope__init(&e);
        expect_bad(&e, "body");
}

static void test_unknown_fields(void **state)
{
        /* Welcome{heartbeat_ns=1s, lost_after=3} plus an unknown field. */
        static const uint8_t newer[] = {0x08, 0x02, 0x5a, 0x0a, 0x10, 0x80, 0x94,
                                        0xeb, 0xdc, 0x03, 0x18, 0x03, 0x78, 0x01};
        /* The same with field number 0 (fixed64) spelt as the two-byte tag 0x81 0x00, which
         * protobuf-c keeps but would pack back as 0x01, a tag it refuses. */
        static const uint8_t zero_inner[] = {0x08, 0x02, 0x5a, 0x12, 0x10, 0x80, 0x94, 0xeb,
                                             0xdc, 0x03, 0x18, 0x03, 0x81, 0x00, 1,    2,
                                             3,    4,    5,    6,    7,    8};
        static const uint8_t zero_outer[] = {0x08, 0x02, 0x81, 0x00, 1,    2,    3,    4,
                                             5,    6,    7,    8,    0x5a, 0x08, 0x10, 0x80,
                                             0x94, 0xeb, 0xdc, 0x03, 0x18, 0x03};
        envelope_t *d = NULL, *d2 = NULL;
        uint8_t *buf;
        size_t len;
        char err[256] = "";

        /* A field from a newer peer of the same protocol version is ignored, and survives
         * being passed on. */
        assert_int_equal(wire_decode(newer, sizeof(newer), 1024, &d, err, sizeof(err)), 0);
        assert_int_equal(d->welcome->lost_after, 3);
        assert_int_equal(wire_encode(d, &buf, &len), 0);
        assert_int_equal(len, sizeof(newer));
        assert_memory_equal(buf, newer, len);
        assert_int_equal(wire_decode(buf, len, 1024, &d2, err, sizeof(err)), 0);
        free(buf);
        wire_free(&d);
        wire_free(&d2);

        assert_int_equal(wire_decode(zero_inner, sizeof(zero_inner), 1024, &d, err, sizeof(err)),
                         -EBADMSG);
        assert_null(d);
        assert_contains(err, "field number 0");
        assert_contains(err, "Welcome");
        assert_int_equal(wire_decode(zero_outer, sizeof(zero_outer), 1024, &d, err, sizeof(err)),
                         -EBADMSG);
        assert_null(d);
        assert_contains(err, "Envelope");
}

/* ---- field checks ------------------------------------------------------------------------ */

static void test_check_strings(void **state)
{
        hello_fx_t f;
        char *s64 = str_of(WIRE_MAX_ID, 'a'), *s65 = str_of(WIRE_MAX_ID + 1, 'a');
        char *h255 = str_of(WIRE_MAX_HOSTNAME, 'h'), *h256 = str_of(WIRE_MAX_HOSTNAME + 1, 'h');

        hello_fx_init(&f);
        f.h.name = "a\x01"
                   "b";
        expect_bad(&f.e, "hello.name");
        expect_bad(&f.e, "control character 0x01");
        f.h.name = "a\x7f";
        expect_bad(&f.e, "hello.name");
        f.h.name = "tab\there"; /* one-line fields take no tabs either */
        expect_bad(&f.e, "hello.name");
        f.h.name = "";
        expect_bad(&f.e, "hello.name: missing");
        f.h.name = s65;
        expect_bad(&f.e, "hello.name");
        expect_bad(&f.e, "65 bytes");
        f.h.name = s64;
        expect_good(&f.e);
        /* Agent names become file names and CSV fields: a fixed alphabet. */
        f.h.name = "n\xc3\xa9ud";
        expect_bad(&f.e, "hello.name: '");
        f.h.name = "a/b";
        expect_bad(&f.e, "hello.name: '/' not allowed");
        f.h.name = "a,b";
        expect_bad(&f.e, "hello.name: ',' not allowed");
        f.h.name = "web-01.rack_2";
        expect_good(&f.e);
        f.h.hostname = "h\xc3\xb4te"; /* UTF-8 is fine where it is only shown */
        expect_good(&f.e);
        f.h.hostname = "h";

        f.h.agent_id = s65;
        expect_bad(&f.e, "hello.agent_id");
        f.h.agent_id = s64;
        expect_good(&f.e);
        f.h.hostname = h256;
        expect_bad(&f.e, "hello.hostname");
        f.h.hostname = h255;
        expect_good(&f.e);
        f.h.boot_id = "x\ny";
        expect_bad(&f.e, "hello.boot_id");
        f.h.boot_id = "";
        f.h.version = "1\x1b[31m";
        expect_bad(&f.e, "hello.version");
        f.h.version = "";
        expect_good(&f.e);

        f.roles[1] = "cli\x02"
                     "ent";
        expect_bad(&f.e, "hello.role");
        f.roles[1] = "";
        expect_bad(&f.e, "hello.role");
        f.roles[1] = "client";
        f.engines[0] = s65;
        expect_bad(&f.e, "hello.engine");
        f.engines[0] = "psync";

        f.label[0].key = "ra\x03"
                         "ck";
        expect_bad(&f.e, "label key");
        f.label[0].key = "";
        expect_bad(&f.e, "label key");
        f.label[0].key = "a=b";
        expect_bad(&f.e, "label key");
        f.label[0].key = s65;
        expect_bad(&f.e, "label key");
        f.label[0].key = "rack";
        f.label[0].value = "a\x04";
        expect_bad(&f.e, "label value");
        f.label[0].value = "";
        expect_good(&f.e);

        free(s64);
        free(s65);
        free(h255);
        free(h256);
}

static void test_check_text(void **state)
{
        finished_fx_t f;
        envelope_t e;
        Iofleet__Stop sp = IOFLEET__STOP__INIT;
        Iofleet__Error er = IOFLEET__ERROR__INIT;
        char *t4096 = str_of(WIRE_MAX_TEXT, 't'), *t4097 = str_of(WIRE_MAX_TEXT + 1, 't');

        finished_fx_init(&f);
        f.f.error = "first\nsecond\tthird";
        expect_good(&f.e);
        f.f.error = "bell\a";
        expect_bad(&f.e, "finished.error");
        f.f.error = t4097;
        expect_bad(&f.e, "finished.error");
        f.f.error = t4096;
        expect_good(&f.e);
        f.f.error = "";
        f.jr.error_msg = "cr\r";
        expect_bad(&f.e, "finished.job.error_msg");
        f.jr.error_msg = "";
        f.jr.name = "";
        expect_bad(&f.e, "finished.job.name");
        f.jr.name = "j1";
        f.f.run_id = "";
        expect_bad(&f.e, "finished.run_id");

        iofleet__envelope__init(&e);
        e.body_case = IOFLEET__ENVELOPE__BODY_STOP;
        e.stop = &sp;
        sp.run_id = "r";
        sp.reason = "a\nb"; /* one-line text */
        expect_bad(&e, "stop.reason");
        sp.run_id = "";
        expect_bad(&e, "stop.run_id");

        e.body_case = IOFLEET__ENVELOPE__BODY_ERROR;
        e.error = &er;
        er.message = "x\x1f";
        expect_bad(&e, "error.message");
        er.message = "ok";
        er.run_id = "r\x01";
        expect_bad(&e, "error.run_id");

        free(t4096);
        free(t4097);
}

static void test_check_counts(void **state)
{
        hello_fx_t f;
        agents_fx_t a;
        Iofleet__Label label[WIRE_MAX_LABELS + 1], *labels[WIRE_MAX_LABELS + 1];
        char keys[WIRE_MAX_LABELS + 1][8];
        char *roles[WIRE_MAX_ROLES + 1], *engines[33];

        hello_fx_init(&f);
        for (size_t i = 0; i < ELEMENTSOF(label); i++) {
                iofleet__label__init(&label[i]);
                snprintf(keys[i], sizeof(keys[i]), "k%zu", i);
                label[i].key = keys[i];
                label[i].value = "v";
                labels[i] = &label[i];
        }
        f.h.labels = labels;
        f.h.n_labels = WIRE_MAX_LABELS;
        expect_good(&f.e);
        f.h.n_labels = WIRE_MAX_LABELS + 1;
        expect_bad(&f.e, "labels");
        f.h.n_labels = 0;

        for (size_t i = 0; i < ELEMENTSOF(roles); i++)
                roles[i] = "client";
        f.h.roles = roles;
        f.h.n_roles = WIRE_MAX_ROLES;
        expect_good(&f.e);
        f.h.n_roles = WIRE_MAX_ROLES + 1;
        expect_bad(&f.e, "roles");
        f.h.n_roles = 0;

        for (size_t i = 0; i < ELEMENTSOF(engines); i++)
                engines[i] = "null";
        f.h.engines = engines;
        f.h.n_engines = 32;
        expect_good(&f.e);
        f.h.n_engines = 33;
        expect_bad(&f.e, "engines");

        /* The same limits apply to agents listed to the CLI. */
        agents_fx_init(&a, false);
        a.ai[1].roles = roles;
        a.ai[1].n_roles = WIRE_MAX_ROLES + 1;
        expect_bad(&a.e, "roles");
        a.ai[1].n_roles = 1;
        a.ai[1].labels = labels;
        a.ai[1].n_labels = WIRE_MAX_LABELS + 1;
        expect_bad(&a.e, "labels");
        a.ai[1].n_labels = 1;
        a.ai[0].name = "";
        expect_bad(&a.e, "name");
        a.ai[0].name = "n";
        a.ai[0].state = "idle\n";
        expect_bad(&a.e, "state");

        agents_fx_init(&a, true);
        a.ai[0].agent_id = "";
        expect_bad(&a.e, "agent_id");
}

static void test_check_jobs(void **state)
{
        prepare_fx_t f;
        submit_fx_t s;
        Iofleet__Job *jobs[WIRE_MAX_JOBS + 1];
        Iofleet__JobOption opt[WIRE_MAX_JOB_OPTIONS + 1], *opts[WIRE_MAX_JOB_OPTIONS + 1];
        char *v4096 = str_of(WIRE_MAX_OPTION_VALUE, 'v'),
             *v4097 = str_of(WIRE_MAX_OPTION_VALUE + 1, 'v');

        prepare_fx_init(&f);
        for (size_t i = 0; i < ELEMENTSOF(jobs); i++)
                jobs[i] = &f.j.job;
        f.p.jobs = jobs;
        f.p.n_jobs = WIRE_MAX_JOBS;
        expect_good(&f.e);
        f.p.n_jobs = WIRE_MAX_JOBS + 1;
        expect_bad(&f.e, "jobs");
        f.p.n_jobs = 0;
        expect_bad(&f.e, "jobs");
        f.p.n_jobs = 1;

        for (size_t i = 0; i < ELEMENTSOF(opt); i++) {
                iofleet__job_option__init(&opt[i]);
                opt[i].key = "bs";
                opt[i].value = "4k";
                opts[i] = &opt[i];
        }
        f.j.job.options = opts;
        f.j.job.n_options = WIRE_MAX_JOB_OPTIONS;
        expect_good(&f.e);
        f.j.job.n_options = WIRE_MAX_JOB_OPTIONS + 1;
        expect_bad(&f.e, "options");
        expect_bad(&f.e, "job j1");
        f.j.job.n_options = 1;

        opt[0].key = "";
        expect_bad(&f.e, "job option key");
        opt[0].key = "b\x05s";
        expect_bad(&f.e, "job option key");
        opt[0].key = "bs";
        opt[0].value = v4097;
        expect_bad(&f.e, "job option value");
        opt[0].value = v4096;
        expect_good(&f.e);
        opt[0].value = "4k\x06";
        expect_bad(&f.e, "job option value");
        opt[0].value = "4k";
        f.j.job.name = "";
        expect_bad(&f.e, "job name");
        f.j.job.name = "j\x07";
        expect_bad(&f.e, "job name");

        /* SubmitRun carries jobs under the same rules. */
        submit_fx_init(&s);
        s.s.n_jobs = 0;
        expect_bad(&s.e, "jobs");
        s.s.jobs = jobs;
        s.s.n_jobs = WIRE_MAX_JOBS + 1;
        expect_bad(&s.e, "jobs");

        free(v4096);
        free(v4097);
}

/* fio's job statistics (JobResult.fio), the agent's devices (Finished.disk_util) and a job's
 * [global] options (Job.n_global): round trip and bounds. */
static void test_fio_stats(void **state)
{
        finished_fx_t f;
        prepare_fx_t p;
        envelope_t *d;
        fio_job_stats_t st = {.depth = {1, 2, 3, 4, 5, 6, 7},
                              .submit = {0, 9},
                              .total_submit = 9,
                              .usr_ns = 5,
                              .run_ns = 100,
                              .latency_depth = 8};
        fio_job_stats_t back = {0};
        wire_fio_t w;
        Iofleet__DiskUtil du, du2, *dus[WIRE_MAX_DISKS + 1];
        Iofleet__JobOption opt;
        Iofleet__JobOption *opts[1] = {&opt};
        (void)state;

        fio_sstat_add(&st.bw[0], 100);
        fio_sstat_add(&st.bw[0], 300);
        finished_fx_init(&f);
        f.jr.fio = wire_fio_fill(&w, &st);
        iofleet__disk_util__init(&du);
        du.name = "vda";
        du.read_ios = 7;
        du.msec = 1500;
        iofleet__disk_util__init(&du2);
        du2.name = "sdb";
        du2.master = "dm-0";
        for (size_t i = 0; i < ELEMENTSOF(dus); i++)
                dus[i] = &du;
        dus[1] = &du2;
        f.f.disk_util = dus;
        f.f.n_disk_util = 2;
        d = round_trip(&f.e);
        wire_fio_add(&back, d->finished->jobs[0]->fio);
        assert_memory_equal(back.depth, st.depth, sizeof(st.depth));
        assert_int_equal(back.submit[1], 9);
        assert_int_equal(back.total_submit, 9);
        assert_int_equal(back.run_ns, 100);
        assert_int_equal(back.latency_depth, 8);
        assert_int_equal(back.bw[0].samples, 2);
        assert_int_equal(back.bw[0].max, 300);
        assert_true(back.bw[0].mean == 200);
        assert_int_equal(d->finished->n_disk_util, 2);
        assert_string_equal(d->finished->disk_util[1]->master, "dm-0");
        assert_int_equal(d->finished->disk_util[0]->msec, 1500);
        wire_free(&d);

        f.f.n_disk_util = WIRE_MAX_DISKS + 1;
        expect_bad(&f.e, "disk_util");
        f.f.n_disk_util = 2;
        du2.name = "";
        expect_bad(&f.e, "disk_util.name");
        du2.name = "sd\x01b";
        expect_bad(&f.e, "disk_util.name");
        du2.name = "sdb";
        du2.master = "dm\n0";
        expect_bad(&f.e, "disk_util.master");
        du2.master = "dm-0";
        du2.msec = UINT64_MAX;
        expect_bad(&f.e, "disk_util.msec");
        du2.msec = 0;
        expect_good(&f.e);

        w.pb.n_depth = 5;
        expect_bad(&f.e, "finished.job.fio");
        w.pb.n_depth = 0; /* none at all is fine */
        expect_good(&f.e);
        w.pb.n_depth = FIO_DEPTH_BUCKETS;
        w.ss[0].min = 500; /* above max */
        expect_bad(&f.e, "read_bw");
        w.ss[0].min = 100;
        w.ss[3].mean = -1;
        expect_bad(&f.e, "write_iops");
        w.ss[3].mean = 0;
        w.pb.usr_ns = UINT64_MAX;
        expect_bad(&f.e, "usr_ns");
        w.pb.usr_ns = 5;
        w.pb.latency_depth = WIRE_MAX_DEPTH + 1;
        expect_bad(&f.e, "latency_depth");
        w.pb.latency_depth = 8;
        expect_good(&f.e);

        prepare_fx_init(&p);
        iofleet__job_option__init(&opt);
        opt.key = "directory";
        opt.value = "/srv";
        p.j.job.options = opts;
        p.j.job.n_options = 1;
        p.j.job.n_global = 1;
        d = round_trip(&p.e);
        assert_int_equal(d->prepare->jobs[0]->n_global, 1);
        wire_free(&d);
        p.j.job.n_global = 2;
        expect_bad(&p.e, "n_global");
}

static void test_check_hist(void **state)
{
        interval_fx_t f;
        finished_fx_t g;
        uint32_t idx2[2] = {3, 3};
        uint64_t cnt2[2] = {UINT64_MAX, 1};

        interval_fx_init(&f);
        expect_good(&f.e);

        f.rh.h.n_count = 2;
        expect_bad(&f.e, "interval.read.clat");
        expect_bad(&f.e, "3 bucket indexes but 2 counts");
        f.rh.h.n_count = 3;

        f.wh.idx[2] = HIST_BUCKETS;
        expect_bad(&f.e, "interval.write.clat");
        expect_bad(&f.e, "out of range");
        f.wh.idx[2] = HIST_BUCKETS - 1;
        f.wh.h.max = UINT64_MAX;
        expect_good(&f.e);
        f.wh.idx[2] = 200;
        f.wh.h.max = hist_bucket_high(200);

        f.rh.idx[1] = 1; /* repeats the previous index */
        expect_bad(&f.e, "interval.read.clat");
        expect_bad(&f.e, "ascend");
        f.rh.idx[1] = 0; /* descends */
        expect_bad(&f.e, "ascend");
        f.rh.idx[1] = 5;

        f.rh.h.n = 11;
        expect_bad(&f.e, "interval.read.clat");
        expect_bad(&f.e, "n=11");
        f.rh.h.n = 10;

        f.rh.h.sumsq = -1;
        expect_bad(&f.e, "interval.read.clat");
        expect_bad(&f.e, "sumsq");
        f.rh.h.sumsq = NAN;
        expect_bad(&f.e, "sumsq");
        f.rh.h.sumsq = 0;
        expect_good(&f.e);

        f.rh.h.min = f.rh.h.max + 1;
        expect_bad(&f.e, "min");
        f.rh.h.min = 1;

        /* Counts that wrap uint64 when summed. */
        f.rh.h.index = idx2;
        f.rh.h.count = cnt2;
        f.rh.h.n_index = f.rh.h.n_count = 2;
        idx2[1] = 4;
        f.rh.h.n = 0;
        expect_bad(&f.e, "overflow");

        /* More entries than there are buckets. */
        {
                size_t n = HIST_BUCKETS + 1;
                uint32_t *bi = calloc(n, sizeof(*bi));
                uint64_t *bc = calloc(n, sizeof(*bc));
                assert_non_null(bi);
                assert_non_null(bc);
                for (size_t i = 0; i < n; i++)
                        bi[i] = (uint32_t)i;
                f.rh.h.index = bi;
                f.rh.h.count = bc;
                f.rh.h.n_index = f.rh.h.n_count = n;
                f.rh.h.n = 0;
                expect_bad(&f.e, "interval.read.clat");
                free(bi);
                free(bc);
        }

        interval_fx_init(&f);
        f.wr.short_ios = f.wr.ios + 1;
        expect_bad(&f.e, "interval.write");

        /* Histograms inside results are checked the same way. */
        finished_fx_init(&g);
        g.rh.h.n = 3;
        expect_bad(&g.e, "finished.job.read.clat");
}

static void test_check_ranges(void **state)
{
        prepare_fx_t p;
        interval_fx_t iv;
        submit_fx_t s;
        finished_fx_t f;
        envelope_t e;
        Iofleet__Welcome w = IOFLEET__WELCOME__INIT;

        prepare_fx_init(&p);
        p.p.rank = 3;
        expect_bad(&p.e, "rank");
        p.p.rank = 99;
        expect_bad(&p.e, "rank 99");
        p.p.rank = 0;
        p.p.nagents = 0;
        expect_bad(&p.e, "nagents");
        p.p.nagents = WIRE_MAX_AGENTS + 1;
        expect_bad(&p.e, "nagents");
        p.p.nagents = 1;
        expect_good(&p.e);
        p.p.interval_ns = 10 * NSEC_PER_MSEC - 1;
        expect_bad(&p.e, "interval");
        p.p.interval_ns = 3600 * NSEC_PER_SEC + 1;
        expect_bad(&p.e, "interval");
        p.p.interval_ns = 10 * NSEC_PER_MSEC;
        expect_good(&p.e);
        p.p.run_id = "";
        expect_bad(&p.e, "prepare.run_id");

        interval_fx_init(&iv);
        iv.iv.index = WIRE_MAX_INTERVALS;
        expect_bad(&iv.e, "interval.index");
        iv.iv.index = WIRE_MAX_INTERVALS - 1;
        expect_good(&iv.e);
        iv.iv.run_id = "";
        expect_bad(&iv.e, "interval.run_id");

        submit_fx_init(&s);
        s.s.interval_ns = 10 * NSEC_PER_MSEC - 1;
        expect_bad(&s.e, "interval");
        s.s.interval_ns = 1;
        expect_bad(&s.e, "at least 10ms");
        s.s.interval_ns = 10 * NSEC_PER_MSEC;
        expect_good(&s.e);
        s.s.lead_ns = 3600 * NSEC_PER_SEC + 1;
        expect_bad(&s.e, "lead");
        s.s.lead_ns = 0;
        s.s.selector = "role=\x01";
        expect_bad(&s.e, "submit_run.selector");
        s.s.selector = "";
        s.s.command_line = "run\x02";
        expect_bad(&s.e, "submit_run.command_line");

        finished_fx_init(&f);
        f.jr.first_done_ns = f.jr.last_done_ns + 1;
        expect_bad(&f.e, "first_done");
        f.jr.first_done_ns = f.jr.last_done_ns;
        expect_good(&f.e);
        f.f.n_jobs = 0;
        expect_good(&f.e);

        iofleet__envelope__init(&e);
        e.body_case = IOFLEET__ENVELOPE__BODY_WELCOME;
        e.welcome = &w;
        w.heartbeat_ns = NSEC_PER_SEC;
        w.lost_after = 1;
        expect_bad(&e, "lost_after");
        w.lost_after = 3;
        w.heartbeat_ns = 0;
        expect_bad(&e, "heartbeat");
}

/* ---- hist helpers ------------------------------------------------------------------------ */

static void assert_hist_equal(const hist_t *a, const hist_t *b)
{
        assert_int_equal(a->n, b->n);
        assert_int_equal(a->min, b->min);
        assert_int_equal(a->max, b->max);
        assert_int_equal(a->sum, b->sum);
        assert_true(a->sumsq == b->sumsq);
        assert_memory_equal(a->buckets, b->buckets, sizeof(a->buckets));
}

static void test_hist_round_trip(void **state)
{
        hist_t *h, *got, *twice;
        Iofleet__Hist pb;
        interval_fx_t f;
        envelope_t *d;
        uint64_t v = 1;

        assert_int_equal(hist_new(&h), 0);
        assert_int_equal(hist_new(&got), 0);
        assert_int_equal(hist_new(&twice), 0);
        for (int i = 0; i < 5000; i++) {
                hist_record(h, v % (UINT64_C(1) << 50));
                v = v * 6364136223846793005ULL + 1442695040888963407ULL;
        }
        hist_record(h, 0);
        hist_record(h, UINT64_MAX);

        /* Through the wire: encode, decode (which validates), add. */
        assert_int_equal(wire_hist_from(&pb, h), 0);
        assert_int_equal(pb.n_index, pb.n_count);
        assert_true(pb.n_index > 100);
        interval_fx_init(&f);
        f.rd.clat = &pb;
        d = round_trip(&f.e);
        wire_hist_add(got, d->interval->read->clat);
        assert_hist_equal(got, h);

        /* Adding into a non-empty histogram is hist_merge. */
        wire_hist_add(got, d->interval->read->clat);
        hist_merge(twice, h);
        hist_merge(twice, h);
        assert_hist_equal(got, twice);
        wire_free(&d);
        wire_hist_done(&pb);
        assert_null(pb.index);
        assert_int_equal(pb.n_index, 0);

        /* An empty histogram travels as nothing and adds nothing. */
        hist_init(got);
        hist_init(twice);
        assert_int_equal(wire_hist_from(&pb, got), 0);
        assert_int_equal(pb.n, 0);
        assert_int_equal(pb.min, 0);
        assert_int_equal(pb.n_index, 0);
        f.rd.clat = &pb;
        d = round_trip(&f.e);
        wire_hist_add(got, d->interval->read->clat);
        wire_hist_add(got, NULL);
        assert_hist_equal(got, twice);
        wire_free(&d);
        wire_hist_done(&pb);

        hist_free(&h);
        hist_free(&got);
        hist_free(&twice);
}

/* ---- job specs --------------------------------------------------------------------------- */

static void test_job_spec(void **state)
{
        job_fx_t f;
        Iofleet__JobOption bad = IOFLEET__JOB_OPTION__INIT;
        job_spec_t spec;
        char err[256];

        job_fx_init(&f);
        err[0] = 0;
        assert_int_equal(wire_job_spec(&f.job, &spec, err, sizeof(err)), 0);
        assert_string_equal(spec.name, "j1");
        assert_int_equal(spec.rw, RW_RANDREAD);
        assert_int_equal(spec.bs, 4096);
        assert_int_equal(spec.size, 1 << 20);
        job_spec_done(&spec);

        /* Unknown option: named, with the job. */
        f.opts[1] = &bad;
        bad.key = "frobnicate";
        bad.value = "1";
        assert_int_equal(wire_job_spec(&f.job, &spec, err, sizeof(err)), -ENOENT);
        assert_contains(err, "job j1");
        assert_contains(err, "frobnicate");

        /* Bad value. */
        bad.key = "bs";
        bad.value = "lots";
        assert_true(wire_job_spec(&f.job, &spec, err, sizeof(err)) < 0);
        assert_contains(err, "job j1");
        assert_contains(err, "bs");
        assert_contains(err, "lots");

        /* Each option valid, the job as a whole not: bs above size. */
        bad.value = "2m";
        assert_true(wire_job_spec(&f.job, &spec, err, sizeof(err)) < 0);
        assert_contains(err, "job j1");

        /* Neither size nor runtime. */
        f.job.n_options = 1;
        assert_true(wire_job_spec(&f.job, &spec, err, sizeof(err)) < 0);
        assert_contains(err, "job j1");
}

/* Empty sub-messages cost two bytes on the wire and a whole struct decoded: a Finished full of
 * them must hit the decode budget, not take gigabytes. */
static void test_decode_budget(void **state)
{
        const size_t n = 1000000, inner = 2 * n + 4;
        uint8_t *buf = malloc(inner + 32), *p = buf;
        envelope_t *e = NULL;
        char err[256];
        size_t k;

        assert_non_null(buf);
        *p++ = 0x08; /* version = 1 */
        *p++ = 0x01;
        *p++ = 0xaa; /* field 21 (finished), length-delimited */
        *p++ = 0x01;
        for (k = inner; k >= 0x80; k >>= 7)
                *p++ = (uint8_t)(k | 0x80);
        *p++ = (uint8_t)k;
        *p++ = 0x0a; /* run_id = "r1" */
        *p++ = 0x02;
        *p++ = 'r';
        *p++ = '1';
        for (size_t i = 0; i < n; i++) {
                *p++ = 0x12; /* jobs: an empty JobResult */
                *p++ = 0x00;
        }
        assert_int_equal(
            wire_decode(buf, (size_t)(p - buf), WIRE_MAX_AGENT_MSG, &e, err, sizeof(err)),
            -EBADMSG);
        assert_null(e);
        assert_non_null(strstr(err, "needs more than"));
        free(buf);
}

static void test_check_started_times(void **state)
{
        envelope_t e = IOFLEET__ENVELOPE__INIT, *d = NULL;
        Iofleet__Started st = IOFLEET__STARTED__INIT;
        uint8_t *buf;
        size_t len;
        char err[256];
        const struct {
                int64_t start, mono;
                uint64_t lag;
                const char *field;
        } bad[] = {
            {INT64_MAX, 0, 0, "started.start_ns"},
            {0, INT64_MIN, 0, "started.host_mono_ns"},
            {0, 0, UINT64_MAX, "started.workers_lag_ns"},
        };
        st.run_id = "r";
        e.body_case = IOFLEET__ENVELOPE__BODY_STARTED;
        e.started = &st;
        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                st.start_ns = bad[i].start;
                st.host_mono_ns = bad[i].mono;
                st.workers_lag_ns = bad[i].lag;
                assert_int_equal(wire_encode(&e, &buf, &len), 0);
                assert_int_equal(wire_decode(buf, len, WIRE_MAX_AGENT_MSG, &d, err, sizeof(err)),
                                 -EBADMSG);
                assert_non_null(strstr(err, bad[i].field));
                free(buf);
        }
        st.start_ns = INT64_C(1) << 61;
        st.host_mono_ns = -(INT64_C(1) << 61);
        st.workers_lag_ns = 5000;
        assert_int_equal(wire_encode(&e, &buf, &len), 0);
        assert_int_equal(wire_decode(buf, len, WIRE_MAX_AGENT_MSG, &d, err, sizeof(err)), 0);
        wire_free(&d);
        free(buf);
}


/* Protocol 2: run messages numbered, Acks, Restored, Goodbye, Hello with its run, the run's
 * failure options, a run list; each validated on its own. */
static void test_protocol2_bodies(void **state)
{
        envelope_t e = IOFLEET__ENVELOPE__INIT, *d;
        Iofleet__Ack ack = IOFLEET__ACK__INIT;
        Iofleet__Restored res = IOFLEET__RESTORED__INIT;
        Iofleet__Goodbye bye = IOFLEET__GOODBYE__INIT;
        Iofleet__Setting set = IOFLEET__SETTING__INIT, *sp = &set;
        Iofleet__Interval iv = IOFLEET__INTERVAL__INIT;
        hello_fx_t f;

        /* Ack: a run id, any upto. */
        ack.run_id = "run-1";
        ack.upto = UINT64_MAX;
        e.body_case = IOFLEET__ENVELOPE__BODY_ACK;
        e.ack = &ack;
        d = round_trip(&e);
        assert_int_equal(d->ack->upto, UINT64_MAX);
        wire_free(&d);
        ack.run_id = "";
        expect_bad(&e, "ack.run_id: missing");
        ack.run_id = "run\x1b";
        expect_bad(&e, "ack.run_id");

        /* Restored: its settings and error as text, its number. */
        set.key = "restored";
        set.value = "failed: umount: target is busy\n(retried lazily)";
        res.run_id = "run-1";
        res.effective = &sp;
        res.n_effective = 1;
        res.run_seq = 9;
        e.body_case = IOFLEET__ENVELOPE__BODY_RESTORED;
        e.restored = &res;
        d = round_trip(&e);
        assert_int_equal(wire_run_seq(d), 9);
        assert_string_equal(wire_run_id(d), "run-1");
        wire_free(&d);
        res.error = "bad\x01";
        expect_bad(&e, "restored.error");
        res.error = "";
        set.key = "";
        expect_bad(&e, "restored.effective");
        set.key = "restored";
        res.run_id = NULL;
        expect_bad(&e, "restored.run_id");

        /* Goodbye. */
        bye.reason = "the agent is stopping";
        e.body_case = IOFLEET__ENVELOPE__BODY_GOODBYE;
        e.goodbye = &bye;
        expect_good(&e);
        bye.reason = "\x7f";
        expect_bad(&e, "goodbye.reason");

        /* Hello with the run it holds: a known phase, and nothing of a run without its id. */
        hello_fx_init(&f);
        f.h.run_id = "run-1";
        f.h.run_phase = "running";
        f.h.run_seq = 42;
        expect_good(&f.e);
        f.h.run_phase = "sleeping";
        expect_bad(&f.e, "hello.run_phase 'sleeping'");
        f.h.run_phase = "";
        expect_bad(&f.e, "hello.run_phase ''");
        f.h.run_id = "";
        f.h.run_phase = "";
        expect_bad(&f.e, "run_seq need a run_id");
        f.h.run_seq = 0;
        expect_good(&f.e);

        /* The run number travels on every run message and on nothing else. */
        iv.run_id = "run-1";
        iv.run_seq = 7;
        e.body_case = IOFLEET__ENVELOPE__BODY_INTERVAL;
        e.interval = &iv;
        d = round_trip(&e);
        assert_int_equal(wire_run_seq(d), 7);
        wire_set_run_seq(d, 8);
        assert_int_equal(d->interval->run_seq, 8);
        wire_free(&d);
        e.body_case = IOFLEET__ENVELOPE__BODY_GOODBYE;
        assert_int_equal(wire_run_seq(&e), 0);
        assert_string_equal(wire_run_id(&e), "");
}

static void test_protocol2_control(void **state)
{
        envelope_t e = IOFLEET__ENVELOPE__INIT, *d;
        Iofleet__SubmitRun s = IOFLEET__SUBMIT_RUN__INIT;
        Iofleet__Duration g = IOFLEET__DURATION__INIT, p = IOFLEET__DURATION__INIT;
        Iofleet__RunList l = IOFLEET__RUN_LIST__INIT;
        Iofleet__RunInfo ri = IOFLEET__RUN_INFO__INIT, *rp = &ri;
        Iofleet__RunUpdate u = IOFLEET__RUN_UPDATE__INIT;
        Iofleet__RunDone rd = IOFLEET__RUN_DONE__INIT;
        char *agents[2] = {"a1", "b\x02"}, *missing[1] = {"a\n"};
        job_fx_t j;

        job_fx_init(&j);
        s.jobs = j.jobs;
        s.n_jobs = 1;
        e.body_case = IOFLEET__ENVELOPE__BODY_SUBMIT_RUN;
        e.submit_run = &s;
        /* Absent durations mean "the default"; 0 is a real grace. */
        d = round_trip(&e);
        assert_null(d->submit_run->orphan_grace);
        wire_free(&d);
        s.orphan_grace = &g;
        s.prepare_timeout = &p;
        p.ns = NSEC_PER_MIN;
        d = round_trip(&e);
        assert_non_null(d->submit_run->orphan_grace);
        assert_int_equal(d->submit_run->orphan_grace->ns, 0);
        wire_free(&d);
        g.ns = 8 * NSEC_PER_DAY;
        expect_bad(&e, "submit_run.orphan_grace: at most 7 days");
        g.ns = 7 * NSEC_PER_DAY;
        expect_good(&e);
        p.ns = NSEC_PER_SEC - 1;
        expect_bad(&e, "submit_run.prepare_timeout: 1s..7 days");

        ri.run_id = "run-1";
        ri.phase = "running";
        ri.agents = agents;
        ri.n_agents = 1;
        l.runs = &rp;
        l.n_runs = 1;
        e.body_case = IOFLEET__ENVELOPE__BODY_RUN_LIST;
        e.run_list = &l;
        expect_good(&e);
        ri.n_agents = 2;
        expect_bad(&e, "run_info.agent");
        ri.n_agents = 1;
        ri.run_id = "";
        expect_bad(&e, "run_info.run_id");

        u.run_id = "run-1";
        u.missing = missing;
        u.n_missing = 1;
        e.body_case = IOFLEET__ENVELOPE__BODY_RUN_UPDATE;
        e.run_update = &u;
        expect_bad(&e, "run_update.missing");
        missing[0] = "a1";
        expect_good(&e);

        rd.run_id = "run-1";
        rd.status = "partial";
        e.body_case = IOFLEET__ENVELOPE__BODY_RUN_DONE;
        e.run_done = &rd;
        expect_good(&e);
        rd.status = "ok\tno";
        expect_bad(&e, "run_done.status");
}

/* fio's log files: what a LogChunk may carry (which stream is the coordinator's to check). */
static void test_log_chunk(void **state)
{
        envelope_t e = IOFLEET__ENVELOPE__INIT;
        Iofleet__LogChunk c = IOFLEET__LOG_CHUNK__INIT;
        uint8_t big[WIRE_MAX_LOG_CHUNK + 1];
        (void)state;
        c.run_id = "r1";
        c.job = 1;
        c.clone = 3;
        c.kind = 5;
        c.offset = 4096;
        c.data.data = (uint8_t *)"500, 16, 0, 0, 0\n";
        c.data.len = 17;
        c.run_seq = 7;
        e.body_case = IOFLEET__ENVELOPE__BODY_LOG_CHUNK;
        e.log_chunk = &c;
        expect_good(&e);
        assert_true(wire_is_run_message(&e));
        assert_int_equal(wire_run_seq(&e), 7);
        c.eof = true;
        c.cut = "the agent's disk is full";
        expect_good(&e);
        c.eof = false;
        expect_bad(&e, "log_chunk.cut");
        c.cut = "";
        c.kind = 6;
        expect_bad(&e, "log_chunk.kind");
        c.kind = 0;
        c.job = WIRE_MAX_JOBS;
        expect_bad(&e, "log_chunk.job");
        c.job = 0;
        c.clone = WIRE_MAX_CLONES;
        expect_bad(&e, "log_chunk.clone");
        c.clone = 0;
        c.data.data = (uint8_t *)"../x\n";
        c.data.len = 5;
        expect_bad(&e, "log_chunk.data");
        c.data.data = (uint8_t *)"1\0002\n";
        c.data.len = 4;
        expect_bad(&e, "log_chunk.data");
        memset(big, '1', sizeof(big));
        c.data.data = big;
        c.data.len = sizeof(big);
        expect_bad(&e, "log_chunk.data");
        c.data.len = 1;
        c.offset = UINT64_MAX;
        expect_bad(&e, "log_chunk.offset");
        c.offset = 0;
        c.run_seq = 0;
        expect_bad(&e, "log_chunk.run_seq");
        c.run_seq = 1;
        c.run_id = "";
        expect_bad(&e, "log_chunk.run_id");
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_round_trip_hello),
            cmocka_unit_test(test_round_trip_small_bodies),
            cmocka_unit_test(test_round_trip_prepare),
            cmocka_unit_test(test_round_trip_interval),
            cmocka_unit_test(test_round_trip_finished),
            cmocka_unit_test(test_round_trip_cli_bodies),
            cmocka_unit_test(test_decode_cap),
            cmocka_unit_test(test_decode_budget),
            cmocka_unit_test(test_check_started_times),
            cmocka_unit_test(test_decode_garbage),
            cmocka_unit_test(test_decode_version),
            cmocka_unit_test(test_no_body),
            cmocka_unit_test(test_unknown_fields),
            cmocka_unit_test(test_check_strings),
            cmocka_unit_test(test_check_text),
            cmocka_unit_test(test_check_counts),
            cmocka_unit_test(test_check_jobs),
            cmocka_unit_test(test_check_hist),
            cmocka_unit_test(test_check_ranges),
            cmocka_unit_test(test_fio_stats),
            cmocka_unit_test(test_hist_round_trip),
            cmocka_unit_test(test_job_spec),
            cmocka_unit_test(test_protocol2_bodies),
            cmocka_unit_test(test_protocol2_control),
            cmocka_unit_test(test_log_chunk),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
