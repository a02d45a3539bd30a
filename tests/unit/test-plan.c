/* Plans: sections, defaults, sweep expansion and order, every error path, the wire form. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "plan.h"
#include "util.h"

static char path[64];

static const char *write_plan(const char *text)
{
        FILE *f;
        snprintf(path, sizeof(path), "/tmp/iofleet-test-plan-%d.plan", (int)getpid());
        f = fopen(path, "we");
        assert_non_null(f);
        fputs(text, f);
        fclose(f);
        return path;
}

static void parse_ok(const char *text, plan_t *p)
{
        char err[2048] = "";
        if (plan_parse(write_plan(text), p, err, sizeof(err)) < 0)
                fail_msg("plan_parse: %s", err);
}

/* Point i of the plan last written, as the CLI builds it: the file parsed and checked once, the
 * point built from that in memory. */
static int load_point(size_t i, plan_t *q, kvlist_t *chosen, char *err, size_t errlen)
{
        plan_t p;
        int r = plan_parse(path, &p, err, errlen);
        if (r < 0)
                return r;
        r = plan_point(&p, i, q, chosen, err, errlen);
        plan_free(&p);
        return r;
}

/* The plan fails with an error containing each of the words given. */
static void parse_fails(const char *text, const char *w1, const char *w2)
{
        plan_t p;
        char err[2048] = "";
        int r = plan_parse(write_plan(text), &p, err, sizeof(err));
        if (r >= 0) {
                plan_free(&p);
                fail_msg("plan accepted, expected an error with '%s'", w1);
        }
        if (!strstr(err, w1) || (w2 && !strstr(err, w2)))
                fail_msg("error '%s' lacks '%s' / '%s'", err, w1, w2 ? w2 : "");
        assert_null(strchr(err, '\n'));
}

#define JOB "[j]\nrw=read\nbs=4k\nsize=1m\n"

static void test_sections_and_defaults(void **state)
{
        plan_t p;
        parse_ok("[plan]\nname = t1\ninterval = 500ms\nlead = 3s\nstonewall\n"
                 "[server]\nbackend = kernel\npath = /srv/x\nthreads = 64\n"
                 "sysctl.net.core.rmem_max = 16777216\n"
                 "[client]\ncount = 2\nvers = 3\nrsize = 65536\n" JOB,
                 &p);
        assert_string_equal(p.name, "t1");
        assert_int_equal(p.interval_ns, 500 * NSEC_PER_MSEC);
        assert_int_equal(p.lead_ns, 3 * NSEC_PER_SEC);
        assert_true(p.stonewall);
        assert_true(p.server.present);
        assert_string_equal(p.server.selector, "role=storage");
        assert_int_equal(p.server.count, 1);
        assert_string_equal(kv_get(&p.server.settings, "threads"), "64");
        assert_string_equal(kv_get(&p.server.sysctls, "net.core.rmem_max"), "16777216");
        assert_null(kv_get(&p.server.settings, "sysctl.net.core.rmem_max"));
        assert_string_equal(p.client.selector, "role=client");
        assert_int_equal(p.client.count, 2);
        assert_string_equal(kv_get(&p.client.settings, "rsize"), "65536");
        assert_int_equal(p.jobs.n_jobs, 1);
        assert_int_equal(plan_points(&p), 1);
        assert_int_equal(p.repeat, 1);
        plan_free(&p);

        /* Without [server] and [client] the jobs run on every agent. */
        parse_ok(JOB, &p);
        assert_false(p.server.present);
        assert_string_equal(p.client.selector, "");
        plan_free(&p);
}

static void test_sweep_order_and_values(void **state)
{
        plan_t p;
        kvlist_t chosen = {0};
        char err[1024];
        const char *text = "[server]\nbackend = kernel\npath = /srv/x\n"
                           "[client]\ncount = 1\n"
                           "[sweep]\nserver.sync = true,false\nclient.options = soft,intr|hard\n"
                           "clients = 1,2\nrepeat = 3\non_error = stop\n" JOB;
        parse_ok(text, &p);
        assert_int_equal(plan_points(&p), 8);
        assert_int_equal(p.repeat, 3);
        assert_true(p.stop_on_error);
        assert_int_equal(p.n_params, 3);
        assert_string_equal(p.params[1].values.v[0], "soft,intr");
        plan_free(&p);

        /* The first parameter varies slowest, the last fastest: point 5 = (false, soft,intr, 2). */
        assert_int_equal(load_point(5, &p, &chosen, err, sizeof(err)), 0);
        assert_int_equal(chosen.n, 3);
        assert_string_equal(chosen.v[0].key, "server.sync");
        assert_string_equal(chosen.v[0].value, "false");
        assert_string_equal(chosen.v[1].value, "soft,intr");
        assert_string_equal(chosen.v[2].key, "clients");
        assert_string_equal(chosen.v[2].value, "2");
        assert_string_equal(kv_get(&p.server.settings, "sync"), "false");
        assert_string_equal(kv_get(&p.client.settings, "options"), "soft,intr");
        assert_int_equal(p.client.count, 2);
        kv_clear(&chosen);
        plan_free(&p);
}

static void test_sweep_job_options(void **state)
{
        plan_t p;
        kvlist_t chosen = {0};
        char err[1024];
        const char *text = "[sweep]\nrw = read,write\nb.bs = 1m,4k\n"
                           "[a]\nrw=randread\nbs=8k\nsize=1m\n[b]\nrw=read\nsize=1m\n";
        parse_ok(text, &p);
        assert_int_equal(plan_points(&p), 4);
        plan_free(&p);
        assert_int_equal(load_point(3, &p, &chosen, err, sizeof(err)), 0);
        /* A bare option goes to every job, after its own options, so that it wins. */
        for (size_t j = 0; j < 2; j++) {
                const jobargs_job_t *jj = &p.jobs.jobs[j];
                const char *rw = NULL, *bs = NULL;
                for (size_t k = 0; k < jj->keys.n; k++) {
                        if (streq(jj->keys.v[k], "rw"))
                                rw = jj->values.v[k];
                        if (streq(jj->keys.v[k], "bs"))
                                bs = jj->values.v[k];
                }
                assert_string_equal(rw, "write");
                assert_string_equal(bs, j == 0 ? "8k" : "4k");
        }
        kv_clear(&chosen);
        plan_free(&p);
}

static void test_tied_parameters(void **state)
{
        plan_t p;
        kvlist_t chosen = {0};
        char err[1024];
        parse_ok("[server]\nbackend = kernel\npath = /srv/x\n[client]\n"
                 "[sweep]\nclient.rsize+client.wsize = 8192,65536\n" JOB,
                 &p);
        assert_int_equal(plan_points(&p), 2);
        plan_free(&p);
        assert_int_equal(load_point(1, &p, &chosen, err, sizeof(err)), 0);
        assert_string_equal(chosen.v[0].key, "client.rsize+client.wsize");
        assert_string_equal(kv_get(&p.client.settings, "rsize"), "65536");
        assert_string_equal(kv_get(&p.client.settings, "wsize"), "65536");
        kv_clear(&chosen);
        plan_free(&p);
        parse_fails("[server]\nbackend = kernel\npath = /srv/x\n[client]\n"
                    "[sweep]\nclient.rsize+nojob.bs = 8192\n" JOB,
                    "nojob.bs", "no [nojob] section");
}

static void test_errors(void **state)
{
        parse_fails("[plan]\nfoo = 1\n" JOB, ":2: [plan] 'foo' is not a [plan] key", "degrade");
        parse_fails("[plan]\ninterval = 1ms\n" JOB, "interval", "10ms..1h");
        parse_fails("[plan]\nrepeat = 0\n" JOB, "repeat", "1..1000");
        parse_fails("[plan]\non_error = maybe\n" JOB, "on_error", "continue or stop");
        parse_fails("[server]\npath = /srv/x\n" JOB, "backend: missing", "kernel or ganesha");
        parse_fails("[server]\nbackend = ganesha\npath = /srv/x\nsync = true\n" JOB, "line 4",
                    "ganesha has no sync/async");
        parse_fails("[server]\nbackend = kernel\npath = /srv/x\nthreads = 0\n" JOB, "threads",
                    NULL);
        parse_fails("[server]\nbackend = kernel\npath = /srv/x\nsysctl.kernel.core_pattern = x\n" JOB,
                    "kernel.core_pattern", NULL);
        parse_fails("[client]\nrsize = 1000\n" JOB, "[client]", "rsize");
        parse_fails("[client]\nmount = sometimes\n" JOB, "mount", "auto, yes or no");
        parse_fails("[client]\nmount = yes\n" JOB, "mount=yes", "server=");
        parse_fails("[client]\nagents = role==x\n" JOB, "[client]", NULL);
        parse_fails("[sweep]\nclients = 1,2\n" JOB, "clients", "no [client] section");
        parse_fails("[client]\n[sweep]\nclients = 0,2\n" JOB, "clients", "1..");
        parse_fails("[sweep]\nserver.sync = true\n" JOB, "server.sync", "no [server] section");
        parse_fails("[sweep]\nnojob.bs = 4k\n" JOB, "nojob.bs", "no [nojob] section");
        parse_fails("[sweep]\nbs = 4k,,8k\n" JOB, "bs", "none empty");
        parse_fails("[sweep]\nbs = 4k\nbs = 8k\n" JOB, "bs", "swept twice");
        /* A point that cannot run is found before anything runs, and named. */
        parse_fails("[sweep]\nbs = 4k,2m\n" JOB, "sweep point 1", "bs");
        parse_fails("[sweep]\nrwmixread = 50,150\n" JOB, "sweep point 1", "rwmixread");
        parse_fails("[plan]\nname = x\n", "no job section", NULL);
        parse_fails("[j]\nrw=sideways\n", "rw", NULL);
        parse_fails("[plan]\ndegrade = bw < fast\n" JOB, "degrade", "100MiB/s");
}

static void test_degrade(void **state)
{
        Iofleet__DegradeRule r;
        char err[512];
        assert_int_equal(plan_degrade_parse("bw < 100MiB/s for 3", &r, err, sizeof(err)), 0);
        assert_string_equal(r.metric, "bw");
        assert_string_equal(r.op, "<");
        assert_true(r.threshold == 100.0 * 1024 * 1024);
        assert_int_equal(r.intervals, 3);
        free(r.text);
        assert_int_equal(plan_degrade_parse("clat_p99 > 5ms", &r, err, sizeof(err)), 0);
        assert_true(r.threshold == 5e6);
        assert_int_equal(r.intervals, 1);
        free(r.text);
        assert_int_equal(plan_degrade_parse("iops < 2.5k for 2", &r, err, sizeof(err)), 0);
        assert_true(r.threshold == 2500);
        free(r.text);
        assert_int_equal(plan_degrade_parse("latency > 5ms", &r, err, sizeof(err)), -EINVAL);
        assert_non_null(strstr(err, "metric 'latency'"));
        assert_int_equal(plan_degrade_parse("bw = 5m", &r, err, sizeof(err)), -EINVAL);
        assert_int_equal(plan_degrade_parse("bw < 5m for 0", &r, err, sizeof(err)), -EINVAL);
        assert_int_equal(plan_degrade_parse("bw < 5m during 3", &r, err, sizeof(err)), -EINVAL);
}

static const char *setting(Iofleet__Setting **v, size_t n, const char *key)
{
        for (size_t i = 0; i < n; i++)
                if (streq(v[i]->key, key))
                        return v[i]->value;
        return NULL;
}

static void test_wire_parts_and_mount_modes(void **state)
{
        plan_t p;
        plan_wire_t w;
        char err[512];

        /* Jobs on files through the kernel: mount=auto becomes yes. */
        parse_ok("[server]\nbackend = kernel\npath = /srv/x\n[client]\nnconnect = 16\n"
                 "[plan]\ndegrade = bw < 1g for 2\n" JOB,
                 &p);
        assert_int_equal(plan_to_wire(&p, &w, err, sizeof(err)), 0);
        assert_int_equal(w.n_parts, 2);
        assert_string_equal(w.parts[0]->role, "server");
        assert_int_equal(w.parts[0]->count, 1);
        assert_string_equal(setting(w.parts[0]->server, w.parts[0]->n_server, "path"), "/srv/x");
        assert_int_equal(w.parts[0]->n_jobs, 0);
        assert_string_equal(w.parts[1]->role, "client");
        assert_string_equal(setting(w.parts[1]->mount, w.parts[1]->n_mount, "mount"), "yes");
        assert_string_equal(setting(w.parts[1]->mount, w.parts[1]->n_mount, "nconnect"), "16");
        assert_int_equal(w.parts[1]->n_jobs, 1);
        assert_int_equal(w.n_degrade, 1);
        plan_wire_free(&w);
        plan_free(&p);

        /* Jobs on the nfs engine connect by themselves: mount=auto becomes no. */
        parse_ok("[server]\nbackend = ganesha\npath = /srv/x\n[client]\nport = 2049\n"
                 "[j]\nioengine=nfs\nrw=read\nsize=1m\n",
                 &p);
        assert_int_equal(plan_to_wire(&p, &w, err, sizeof(err)), 0);
        assert_string_equal(setting(w.parts[1]->mount, w.parts[1]->n_mount, "mount"), "no");
        assert_string_equal(setting(w.parts[1]->mount, w.parts[1]->n_mount, "port"), "2049");
        plan_wire_free(&w);
        plan_free(&p);

        /* No server at all: a plain run, no mount settings. */
        parse_ok(JOB, &p);
        assert_int_equal(plan_to_wire(&p, &w, err, sizeof(err)), 0);
        assert_int_equal(w.n_parts, 1);
        assert_int_equal(w.parts[0]->n_mount, 0);
        plan_wire_free(&w);
        plan_free(&p);
}

static void test_is_plan(void **state)
{
        assert_true(plan_file_is_plan(write_plan("[server]\nbackend=kernel\n" JOB)));
        assert_true(plan_file_is_plan(write_plan("[sweep]\nbs=4k\n" JOB)));
        assert_false(plan_file_is_plan(write_plan("[global]\nbs=4k\n" JOB)));
        assert_false(plan_file_is_plan("/nonexistent/plan"));
        /* fio jobs whose names begin like a plan's sections are jobs */
        assert_false(plan_file_is_plan(write_plan("[client1]\nrw=read\n[server2]\nrw=write\n")));
        assert_false(plan_file_is_plan(write_plan("[sweeper]\nrw=read\n[planned ]\nrw=read\n")));
        assert_true(plan_file_is_plan(write_plan("  [ client ]\nmount=no\n" JOB)));
}

/* --agents picks a plan's clients in place of [client] agents=, in every point of its sweep. */
static void test_clients_from_cli(void **state)
{
        plan_t p, q;
        char err[512];
        const char *file =
            write_plan("[client]\nagents=role=client\n[sweep]\nbs=4k,8k\n" JOB);
        assert_int_equal(plan_parse_clients(file, "name=rackb-*", &p, err, sizeof(err)), 0);
        assert_string_equal(p.client.selector, "name=rackb-*");
        assert_int_equal(plan_point(&p, 1, &q, NULL, err, sizeof(err)), 0);
        assert_string_equal(q.client.selector, "name=rackb-*");
        plan_free(&q);
        plan_free(&p);
        /* without it, the plan's own choice */
        assert_int_equal(plan_parse_clients(file, NULL, &p, err, sizeof(err)), 0);
        assert_string_equal(p.client.selector, "role=client");
        plan_free(&p);
}

/* The last value a job gives key, or NULL. */
static const char *job_value(const plan_t *p, size_t job, const char *key)
{
        const jobargs_job_t *j = &p->jobs.jobs[job];
        const char *v = NULL;
        for (size_t k = 0; k < j->keys.n; k++)
                if (streq(j->keys.v[k], key))
                        v = j->values.v[k];
        return v;
}

/* The plan checked is the plan that runs: points are built from what was parsed, so a plan file
 * (or a file it includes) edited, broken or removed after the check changes no point. */
static void test_points_from_parsed_plan(void **state)
{
        plan_t p, q;
        kvlist_t chosen = {0};
        char err[1024] = "", inc[96];
        FILE *f;

        snprintf(inc, sizeof(inc), "/tmp/iofleet-test-plan-%d.inc", (int)getpid());
        assert_non_null(f = fopen(inc, "we"));
        fputs("rw=read\nsize=1m\n", f);
        fclose(f);
        {
                char text[256];
                snprintf(text, sizeof(text), "[sweep]\nbs = 4k,1m\n[j]\ninclude %s\n", inc);
                parse_ok(text, &p);
        }
        assert_int_equal(plan_points(&p), 2);
        assert_non_null(strstr(p.text, "bs = 4k,1m"));

        /* Edited after the check: other values, one of them invalid, another job, and the
         * included file rewritten too. */
        write_plan("[sweep]\nbs = 8k,bogus\n[k]\nrw=write\nsize=2m\n");
        assert_non_null(f = fopen(inc, "we"));
        fputs("rw=randwrite\nsize=3m\n", f);
        fclose(f);
        assert_int_equal(plan_point(&p, 1, &q, &chosen, err, sizeof(err)), 0);
        assert_int_equal(chosen.n, 1);
        assert_string_equal(chosen.v[0].value, "1m");
        assert_int_equal(q.jobs.n_jobs, 1);
        assert_string_equal(q.jobs.jobs[0].name, "j");
        assert_string_equal(job_value(&q, 0, "bs"), "1m");
        assert_string_equal(job_value(&q, 0, "rw"), "read");
        assert_string_equal(job_value(&q, 0, "size"), "1m");
        /* The text that travels with the results is the text that was checked. */
        assert_non_null(strstr(q.text, "bs = 4k,1m"));
        assert_null(strstr(q.text, "bogus"));
        kv_clear(&chosen);
        plan_free(&q);

        /* Removed: the points still build. */
        unlink(path);
        unlink(inc);
        assert_int_equal(plan_point(&p, 0, &q, NULL, err, sizeof(err)), 0);
        assert_string_equal(job_value(&q, 0, "bs"), "4k");
        plan_free(&q);
        /* A point past the sweep is an error, and leaves *out alone. */
        memset(&q, 0xa5, sizeof(q));
        assert_int_equal(plan_point(&p, 2, &q, NULL, err, sizeof(err)), -EINVAL);
        assert_non_null(strstr(err, "the sweep has 2"));
        plan_free(&p);
}

static int teardown(void **state)
{
        unlink(path);
        return 0;
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_sections_and_defaults),
            cmocka_unit_test(test_sweep_order_and_values),
            cmocka_unit_test(test_sweep_job_options),
            cmocka_unit_test(test_tied_parameters),
            cmocka_unit_test(test_errors),
            cmocka_unit_test(test_degrade),
            cmocka_unit_test(test_wire_parts_and_mount_modes),
            cmocka_unit_test(test_is_plan),
            cmocka_unit_test(test_clients_from_cli),
            cmocka_unit_test(test_points_from_parsed_plan),
        };
        return cmocka_run_group_tests(tests, NULL, teardown);
}
