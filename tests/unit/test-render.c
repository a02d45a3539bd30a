/* Unit tests for what people read: the live line's ramp marking and counter, the metadata
 * workload's bonnie++-style table, the agents' clock offset with its uncertainty, and a partial
 * point shown as such. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "render.h"
#include "util.h"

#define assert_contains(hay, needle)                                                               \
        do {                                                                                       \
                if (!strstr((hay), (needle)))                                                      \
                        fail_msg("'%s' does not mention '%s'", (hay), (needle));                   \
        } while (0)

static char *interval_line(uint32_t index, uint32_t ramp, uint64_t measured, uint64_t total)
{
        Iofleet__RunUpdate u = IOFLEET__RUN_UPDATE__INIT;
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);

        assert_non_null(f);
        u.kind = IOFLEET__RUN_UPDATE__KIND__KIND_INTERVAL;
        u.index = index;
        u.interval_ns = 1000000000;
        u.read_bytes = 100 << 20;
        u.read_ios = 100;
        u.reported = u.agents = 2;
        u.ramp_intervals = ramp;
        u.measured_intervals = measured;
        render_interval(f, &u, total, false);
        fclose(f);
        return buf;
}

static void test_ramp_and_counter(void **state)
{
        char *s;
        /* ramp_time=1 runtime=3: one ramp interval, then [1/3] .. [3/3], never [4/3]. */
        s = interval_line(0, 1, 3, 3);
        assert_contains(s, "[ramp 1/1] read 100.0MiB/s");
        free(s);
        s = interval_line(1, 1, 3, 3);
        assert_contains(s, "[ 1/3]");
        free(s);
        s = interval_line(3, 1, 3, 3);
        assert_contains(s, "[ 3/3]");
        free(s);
        /* The coordinator's measured count wins over the CLI's own estimate. */
        s = interval_line(2, 2, 5, 3);
        assert_contains(s, "[ 1/5]");
        free(s);
        /* An open-ended run counts without a total; an older coordinator (no ramp fields). */
        s = interval_line(4, 1, 0, 0);
        assert_contains(s, "[  4]");
        free(s);
        s = interval_line(3, 0, 0, 10);
        assert_contains(s, "[ 4/10]");
        free(s);
}

static const char metadata_doc[] =
    "{\"client_stats\": ["
    " {\"jobname\": \"md\", \"agent\": \"c1\", \"hostname\": \"h1\", \"error\": 0,"
    "  \"metadata\": {"
    "   \"seq_create\": {\"ops\": 1000, \"ops_per_sec\": 2000.0,"
    "     \"lat_ns\": {\"mean\": 250000.0, \"N\": 1000, \"percentile\": {\"99.000000\": 4000000}}},"
    "   \"seq_stat\": {\"ops\": 1000, \"ops_per_sec\": 500000.0,"
    "     \"lat_ns\": {\"mean\": 1500.0, \"N\": 1000, \"percentile\": {\"99.000000\": 3000}}},"
    "   \"rand_delete\": {\"ops\": 1000, \"ops_per_sec\": 12000.0,"
    "     \"lat_ns\": {\"mean\": 80000.0, \"N\": 1000, \"percentile\": {\"99.000000\": 32000}}}}},"
    " {\"jobname\": \"md\", \"agent\": \"c2\", \"hostname\": \"h2\", \"error\": 0,"
    "  \"metadata\": {\"seq_create\": {\"ops\": 1000, \"ops_per_sec\": 1000.0,"
    "     \"lat_ns\": {\"mean\": 500000.0, \"N\": 1000, \"percentile\": {\"99.000000\": "
    "9000000}}}}},"
    " {\"jobname\": \"All clients\", \"hostname\": \"All clients\", \"error\": 0,"
    "  \"metadata\": {\"seq_create\": {\"ops\": 2000, \"ops_per_sec\": 3000.0,"
    "     \"lat_ns\": {\"mean\": 375000.0, \"N\": 2000, \"percentile\": {\"99.000000\": "
    "9000000}}}}}"
    "], \"iofleet\": {\"run_id\": \"r\", \"status\": \"ok\", \"agents\": [{}, {}]}}";

static void test_metadata_table(void **state)
{
        json_error_t je;
        json_t *doc = json_loads(metadata_doc, 0, &je);
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);

        assert_non_null(doc);
        assert_non_null(f);
        render_summary(f, doc, NULL);
        fclose(f);
        assert_contains(buf, "Sequential");
        assert_contains(buf, "Random");
        assert_contains(buf, "  create     stat     read   delete    create     stat     read");
        /* c1: files/s then mean and p99 latency; phases it did not run show "-". */
        assert_contains(buf, "c1                   files/s       2000   500.0k        -        - "
                             "        -        -        -    12.0k");
        assert_contains(buf, "lat mean     250us   1500ns        -        -         -        -  "
                             "      -     80us");
        assert_contains(buf, "lat p99     4000us   3000ns");
        assert_contains(buf, "c2                   files/s       1000");
        assert_contains(buf, "All clients          files/s       3000");
        json_decref(doc);
        free(buf);
}

/* A partial point is shown as such: live, who is missing from it; at the end, each agent that
 * fell short (or came back) and the run's partial status. */
static void test_partial(void **state)
{
        static const char doc_text[] =
            "{\"client_stats\": [], \"iofleet\": {\"run_id\": \"r\", \"status\": \"partial\","
            " \"partial\": \"agent c2 lost; 3 intervals missing\", \"agents\": ["
            "  {\"name\": \"c1\", \"status\": \"rejoined\", \"missing_intervals\": 0,"
            "   \"away_ns\": 15200000000},"
            "  {\"name\": \"c2\", \"status\": \"lost\", \"lost\": true,"
            "   \"missing_intervals\": 3},"
            "  {\"name\": \"c3\", \"status\": \"ok\", \"missing_intervals\": 0,"
            "   \"effective\": {\"restored\": \"yes\"}},"
            "  {\"name\": \"c4\", \"status\": \"ok\", \"missing_intervals\": 0,"
            "   \"effective\": {\"restored\": \"failed: umount: target is busy\"}}]}}";
        Iofleet__RunUpdate u = IOFLEET__RUN_UPDATE__INIT;
        char *names[10] = {"a0", "a1", "a2", "a3", "a4", "a5", "a6", "a7", "a8", "a9"};
        char *buf = NULL;
        size_t len = 0;
        json_error_t je;
        json_t *doc = json_loads(doc_text, 0, &je);
        FILE *f = open_memstream(&buf, &len);

        assert_non_null(doc);
        assert_non_null(f);
        u.kind = IOFLEET__RUN_UPDATE__KIND__KIND_INTERVAL;
        u.index = 3;
        u.interval_ns = 1000000000;
        u.reported = 1;
        u.agents = 3;
        u.missing = names;
        u.n_missing = 2;
        render_interval(f, &u, 10, false);
        fflush(f);
        assert_contains(buf, "1/3 agents");
        assert_contains(buf, "PARTIAL: missing a0 a1\n");
        /* Many missing: the first eight and how many more. */
        u.n_missing = 10;
        render_interval(f, &u, 10, false);
        fflush(f);
        assert_contains(buf, "PARTIAL: missing a0 a1 a2 a3 a4 a5 a6 a7 and 2 more\n");
        /* A whole interval says nothing of the kind. */
        u.n_missing = 0;
        fclose(f);
        free(buf);
        buf = NULL;
        f = open_memstream(&buf, &len);
        render_interval(f, &u, 10, false);
        fflush(f);
        assert_null(strstr(buf, "PARTIAL"));
        render_summary(f, doc, NULL);
        fclose(f);
        assert_contains(buf,
                        "iofleet: agent c1: rejoined after 15.2s away; every interval delivered");
        assert_contains(buf, "iofleet: agent c2: lost; 3 intervals missing");
        assert_null(strstr(buf, "agent c3"));
        /* A host not put back is said, whatever else: here c4's unmount failed. */
        assert_contains(buf, "iofleet: agent c4: its host is NOT known to be put back: failed: "
                             "umount: target is busy");
        assert_contains(buf, "iofleet: PARTIAL run: agent c2 lost; 3 intervals missing");
        json_decref(doc);
        free(buf);
}

static void test_clock_offset(void **state)
{
        Iofleet__AgentInfo a = IOFLEET__AGENT_INFO__INIT;
        char buf[64];

        agents_format_offset(&a, buf, sizeof(buf));
        assert_string_equal(buf, "-");
        a.clock_offset_known = true;
        a.clock_offset_ns = 12345;
        a.clock_error_ns = 4100;
        agents_format_offset(&a, buf, sizeof(buf));
        assert_string_equal(buf, "+12.3\u00b5s \u00b14.1\u00b5s");
        a.clock_offset_ns = -2000000000LL;
        agents_format_offset(&a, buf, sizeof(buf));
        assert_string_equal(buf, "-2.000000s \u00b14.1\u00b5s");
}

/* The layout's live line: sums, share, rate, ETA and the slowest agent; what is not known yet
 * says so; agents that have not reported are counted; a line per agent for --verbose. */
static void test_layout_line(void **state)
{
        Iofleet__RunUpdate u = IOFLEET__RUN_UPDATE__INIT;
        Iofleet__AgentLayout slow = IOFLEET__AGENT_LAYOUT__INIT, a2 = IOFLEET__AGENT_LAYOUT__INIT;
        Iofleet__AgentLayout *per[2] = {&slow, &a2};
        char line[512], eta[32], *buf = NULL;
        size_t len = 0;
        FILE *f;

        u.kind = IOFLEET__RUN_UPDATE__KIND__KIND_LAYOUT;
        u.agents = u.layout_agents = 3;
        u.layout_done_bytes = 1288490189;  /* 1.2 GiB */
        u.layout_total_bytes = 3221225472; /* 3 GiB */
        u.layout_rate = 410 << 20;
        u.layout_eta_ns = 3500000000;
        slow.name = "c2";
        slow.done_bytes = 322122547;
        slow.total_bytes = 1073741824;
        slow.rate = 100 << 20;
        slow.eta_ns = 3500000000;
        u.layout_slowest = &slow;
        render_layout(line, sizeof(line), &u);
        assert_string_equal(line, "laying out: 1.2GiB of 3.0GiB (40%), 410.0MiB/s, ETA 4s; "
                                  "slowest: c2 307.2MiB of 1.0GiB");
        /* The first report: no rate, no ETA; one agent of three heard so far. */
        u.layout_rate = 0;
        u.layout_eta_ns = -1;
        u.layout_agents = 1;
        u.layout_slowest = NULL;
        render_layout(line, sizeof(line), &u);
        assert_string_equal(line,
                            "laying out: 1.2GiB of 3.0GiB (40%), ?B/s, ETA ? (1/3 agents)");
        /* Almost done is not 100%; done is. */
        u.layout_agents = 3;
        u.layout_done_bytes = u.layout_total_bytes - 1;
        render_layout(line, sizeof(line), &u);
        assert_contains(line, "(99%)");
        u.layout_done_bytes = u.layout_total_bytes;
        u.layout_eta_ns = 0;
        render_layout(line, sizeof(line), &u);
        assert_string_equal(line, "laying out: 3.0GiB of 3.0GiB (100%), -, ETA 0s");
        assert_string_equal(render_eta(125 * 1000000000LL, eta, sizeof(eta)), "2m05s");
        assert_string_equal(render_eta(3720 * 1000000000LL, eta, sizeof(eta)), "1h02m");
        assert_string_equal(render_eta(1, eta, sizeof(eta)), "1s");
        /* Per agent. */
        a2.name = "c1";
        a2.done_bytes = a2.total_bytes = 1 << 20;
        u.layout_per_agent = per;
        u.n_layout_per_agent = 2;
        f = open_memstream(&buf, &len);
        assert_non_null(f);
        render_layout_agents(f, &u);
        fclose(f);
        assert_contains(buf, "    c2               307.2MiB of 1.0GiB (29%), 100.0MiB/s, ETA 4s\n");
        assert_contains(buf, "    c1               1.0MiB of 1.0MiB (100%), -, ETA 0s\n");
        free(buf);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_ramp_and_counter),
            cmocka_unit_test(test_metadata_table),
            cmocka_unit_test(test_clock_offset),
            cmocka_unit_test(test_layout_line),
            cmocka_unit_test(test_partial),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
