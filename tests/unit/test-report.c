/* Unit tests for iofleet report (cli/report*.c, cli/svg.c): the aggregation math, figures from a
 * result document, a sweep directory read back, the three table formats and the plots. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <ftw.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "report.h"
#include "svg.h"
#include "util.h"

#define MIB (1024.0 * 1024.0)

static void assert_near(double got, double want)
{
        if (fabs(got - want) > 1e-9 * fmax(1, fabs(want))) {
                print_error("got %.12g, want %.12g\n", got, want);
                fail();
        }
}

static void test_median(void **state)
{
        double odd[] = {3, 1, 2}, even[] = {4, 1, 3, 2}, one[] = {7};
        assert_near(report_median(odd, 3), 2);
        assert_near(report_median(even, 4), 2.5);
        assert_near(report_median(one, 1), 7);
        assert_true(isnan(report_median(NULL, 0)));
        /* The array comes back sorted: min and max are its ends. */
        assert_near(even[0], 1);
        assert_near(even[3], 4);
}

static void test_rsd(void **state)
{
        double v[] = {1, 2, 3, 4}, same[] = {5, 5}, zero[] = {-1, 1};
        /* sample stddev sqrt(5/3) over the mean 2.5 */
        assert_near(report_rsd(v, 4), sqrt(5.0 / 3.0) / 2.5 * 100);
        assert_near(report_rsd(same, 2), 0);
        assert_true(isnan(report_rsd(v, 1)));
        assert_true(isnan(report_rsd(zero, 2)));
}

static void test_efficiency(void **state)
{
        assert_near(report_efficiency(1, 100, 2, 150), 75);
        assert_near(report_efficiency(2, 100, 4, 200), 100);
        assert_near(report_efficiency(1, 100, 1, 100), 100);
        assert_near(report_efficiency(2, 100, 8, 800), 200);
        assert_true(isnan(report_efficiency(0, 100, 2, 150)));
        assert_true(isnan(report_efficiency(1, 0, 2, 150)));
        assert_true(isnan(report_efficiency(1, 100, 2, NAN)));
}

static void test_ticks(void **state)
{
        svg_ticks_t t;
        char buf[32];
        svg_ticks(0, 87, 6, &t);
        assert_near(t.first, 0);
        assert_near(t.step, 20);
        assert_int_equal(t.n, 6);
        svg_ticks(1, 2, 8, &t);
        assert_near(t.step, 0.2);
        assert_near(t.first, 1);
        assert_int_equal(t.n, 6);
        assert_string_equal(svg_tick_label(1.4, t.step, buf, sizeof(buf)), "1.4");
        assert_string_equal(svg_tick_label(-1e-17, 0.2, buf, sizeof(buf)), "0.0");
        assert_string_equal(svg_tick_label(1500, 500, buf, sizeof(buf)), "1500");
        /* One value: a range that holds it, starting at 0 for positive figures. */
        svg_ticks(5, 5, 6, &t);
        assert_true(t.first <= 5 && t.first + (t.n - 1) * t.step >= 5 && t.first == 0);
        svg_ticks(NAN, INFINITY, 6, &t);
        assert_true(t.n >= 2 && t.step > 0);
}

static void test_escape(void **state)
{
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);
        svg_escape(f, "a<b & \"c\">\x01");
        fclose(f);
        assert_string_equal(buf, "a&lt;b &amp; &quot;c&quot;&gt; ");
        free(buf);
}

/* A result document as the coordinator writes it, reduced to what report reads. */
static json_t *make_doc(double read_bw, double write_bw, double skew_ns, const char *status,
                        bool intervals)
{
        json_t *all =
            json_pack("{s:s, s:{s:f, s:f, s:{s:i, s:{s:i, s:i}}}, s:{s:f, s:f, s:{s:i}}}",
                      "jobname", "All clients", "read", "bw_bytes", read_bw, "iops", read_bw / 4096,
                      "clat_ns", "N", 10, "percentile", "50.000000", 100000, "99.000000", 900000,
                      "write", "bw_bytes", write_bw, "iops", write_bw / 4096, "clat_ns", "N", 0);
        json_t *io = json_pack("{s:s, s:s, s:f, s:i}", "run_id", "r", "status", status,
                               "start_skew_ns", skew_ns, "interval_ns", 1000000000);
        json_t *agent = json_pack("{s:s, s:f}", "jobname", "j", "read", 1.0);
        if (intervals) {
                json_t *ivs = json_array();
                json_object_set_new(io, "agents",
                                    json_pack("[{s:s}, {s:s}]", "name", "a0", "name", "a1"));
                for (int k = 0; k < 3; k++)
                        json_array_append_new(
                            ivs, json_pack("{s:f, s:i, s:i, s:[{s:s, s:f, s:i}, {s:s, s:f, s:i}]}",
                                           "read_bytes", read_bw, "write_bytes", 0, "meta_ops", 0,
                                           "agents", "name", "a0", "read_bytes", read_bw / 2,
                                           "write_bytes", 0, "name", "a1", "read_bytes",
                                           read_bw / 2, "write_bytes", 0));
                json_object_set_new(io, "intervals", ivs);
        }
        return json_pack("{s:[o, o], s:o}", "client_stats", agent, all, "iofleet", io);
}

static void test_figures(void **state)
{
        double fig[REPORT_N_FIGS];
        char err[256] = "";
        json_t *doc = make_doc(2 * MIB, 0, 2500, "ok", false), *all;

        assert_int_equal(report_figures(doc, fig, err, sizeof(err)), 0);
        assert_near(fig[REPORT_READ_BW], 2);
        assert_near(fig[REPORT_WRITE_BW], 0);
        assert_near(fig[REPORT_TOTAL_BW], 2);
        assert_near(fig[REPORT_READ_IOPS], 512);
        assert_near(fig[REPORT_READ_P50], 100);
        assert_near(fig[REPORT_READ_P99], 900);
        assert_true(isnan(fig[REPORT_WRITE_P50])); /* no writes: no latency, not 0 */
        assert_true(isnan(fig[REPORT_CREATE]));
        assert_near(fig[REPORT_SKEW], 2.5);

        /* Metadata: the sequential and random phases of one operation together. */
        all = json_array_get(json_object_get(doc, "client_stats"), 1);
        json_object_set_new(all, "metadata",
                            json_pack("{s:{s:i, s:i}, s:{s:i, s:i}, s:{s:i, s:i}}", "seq_create",
                                      "ops", 100, "elapsed_ns", 1000000000, "rand_create", "ops",
                                      300, "elapsed_ns", 1000000000, "seq_delete", "ops", 50,
                                      "elapsed_ns", 500000000));
        assert_int_equal(report_figures(doc, fig, err, sizeof(err)), 0);
        assert_near(fig[REPORT_CREATE], 200);
        assert_near(fig[REPORT_DELETE], 100);
        assert_true(isnan(fig[REPORT_STAT]));

        json_object_set_new(json_object_get(all, "read"), "bw_bytes", json_string("fast"));
        assert_int_equal(report_figures(doc, fig, err, sizeof(err)), -EINVAL);
        assert_string_equal(err,
                            "client_stats[\"All clients\"].read.bw_bytes: wrong type, expected a "
                            "number");
        json_object_set_new(all, "jobname", json_string("x"));
        assert_int_equal(report_figures(doc, fig, err, sizeof(err)), -EINVAL);
        assert_string_equal(err, "client_stats: no \"All clients\" entry");
        json_object_del(doc, "client_stats");
        assert_int_equal(report_figures(doc, fig, err, sizeof(err)), -EINVAL);
        assert_string_equal(err, "client_stats: missing, expected an array");
        json_decref(doc);
}

/* A scratch sweep: mode=a with clients 1, 2, 4; 2 repeats each, one failed by the sweep and one
 * result.json missing. */
static char dir[64];

static void write_doc(const char *sub, json_t *doc)
{
        char path[256];
        snprintf(path, sizeof(path), "%s/%s", dir, sub);
        mkdir(path, 0755);
        snprintf(path, sizeof(path), "%s/%s/result.json", dir, sub);
        assert_int_equal(json_dump_file(doc, path, 0), 0);
        json_decref(doc);
}

static void make_sweep(void)
{
        char path[256];
        json_t *sweep;
        snprintf(dir, sizeof(dir), "/tmp/test-report.XXXXXX");
        assert_non_null(mkdtemp(dir));
        /* clients=1: 100 and 120 MiB/s; clients=2: 150 (the other repeat failed); clients=4:
         * 300 and no result.json for the second. */
        write_doc("p0r0", make_doc(100 * MIB, 0, 1000, "ok", true));
        write_doc("p0r1", make_doc(120 * MIB, 0, 3000, "ok", false));
        write_doc("p1r0", make_doc(150 * MIB, 0, 2000, "ok", false));
        write_doc("p1r1", make_doc(999 * MIB, 0, 2000, "ok", false));
        write_doc("p2r0", make_doc(200 * MIB, 100 * MIB, 2000, "ok", false));
        sweep = json_pack(
            "{s:s, s:[s, s], s:[{s:i, s:i, s:{s:s, s:s}, s:s, s:s}, {s:i, s:i, s:{s:s, s:s}, s:s, "
            "s:s}, {s:i, s:i, s:{s:s, s:s}, s:s}, {s:i, s:i, s:{s:s, s:s}, s:s, s:s}, {s:i, s:i, "
            "s:{s:s, s:s}, s:s, s:s}, {s:i, s:i, s:{s:s, s:s}, s:s, s:s}]}",
            "run_id", "sw", "parameters", "mode", "clients", "points", "index", 2, "repeat", 0,
            "params", "mode", "a", "clients", "4", "dir", "p2r0", "error", "", "index", 0, "repeat",
            0, "params", "mode", "a", "clients", "1", "dir", "p0r0", "error", "", "index", 0,
            "repeat", 1, "params", "mode", "a", "clients", "1", "dir", "p0r1", "index", 1, "repeat",
            0, "params", "mode", "a", "clients", "2", "dir", "p1r0", "error", "", "index", 1,
            "repeat", 1, "params", "mode", "a", "clients", "2", "dir", "p1r1", "error",
            "agent a1 lost, during the run", "index", 2, "repeat", 1, "params", "mode", "a",
            "clients", "4", "dir", "p2r1", "error", "");
        assert_non_null(sweep);
        snprintf(path, sizeof(path), "%s/sweep.json", dir);
        assert_int_equal(json_dump_file(sweep, path, 0), 0);
        json_decref(sweep);
}

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
        return remove(path);
}

static void remove_sweep(void)
{
        assert_int_equal(nftw(dir, remove_one, 16, FTW_DEPTH | FTW_PHYS), 0);
}

static char *render(const report_t *r, report_format_t fmt)
{
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);
        assert_int_equal(report_write(f, r, fmt), 0);
        fclose(f);
        return buf;
}

/* Fields of one CSV line (RFC 4180 quotes); the count. */
static size_t csv_fields(const char *line, char fields[][128], size_t max)
{
        size_t n = 0, k = 0;
        bool quoted = false;
        for (const char *c = line;; c++) {
                if (quoted && *c == '"' && c[1] == '"') {
                        fields[n][k++] = *c++;
                        continue;
                }
                if (*c == '"') {
                        quoted = !quoted;
                        continue;
                }
                if (!*c || *c == '\r' || *c == '\n' || (!quoted && *c == ',')) {
                        fields[n][k] = 0;
                        n++;
                        k = 0;
                        if (!*c || *c == '\r' || *c == '\n' || n == max)
                                return n;
                        continue;
                }
                if (k < 127)
                        fields[n][k++] = *c;
        }
}

static int column(char head[][128], size_t n, const char *name)
{
        for (size_t i = 0; i < n; i++)
                if (streq(head[i], name))
                        return (int)i;
        fail_msg("no CSV column %s", name);
        return -1;
}

static void test_sweep(void **state)
{
        report_t *r = NULL;
        char err[512] = "", *out, *line, *save = NULL;
        static char head[64][128], row[64][128];
        size_t nh = 0, rows = 0;

        make_sweep();
        assert_int_equal(report_load(dir, &r, err, sizeof(err)), 0);
        assert_true(r->sweep);
        assert_int_equal(r->n_points, 3);
        assert_int_equal(r->clients_param, 1);
        /* Sorted by index; repeats grouped. */
        assert_int_equal(r->points[0].index, 0);
        assert_int_equal(r->points[0].n_runs, 2);
        assert_int_equal(r->points[0].n_ok, 2);
        assert_near(r->points[0].median[REPORT_READ_BW], 110);
        assert_near(r->points[0].rsd[REPORT_READ_BW], sqrt(200.0) / 110 * 100);
        assert_near(r->points[0].lo[REPORT_READ_BW], 100);
        assert_near(r->points[0].hi[REPORT_READ_BW], 120);
        assert_near(r->points[0].median[REPORT_SKEW], 2);
        /* The failed repeat's 999 MiB/s is not compared. */
        assert_int_equal(r->points[1].n_ok, 1);
        assert_near(r->points[1].median[REPORT_READ_BW], 150);
        assert_true(isnan(r->points[1].rsd[REPORT_READ_BW]));
        assert_string_equal(r->points[1].runs[1].error, "agent a1 lost, during the run");
        /* Missing result.json: an error on that run, named. */
        assert_int_equal(r->points[2].n_ok, 1);
        assert_non_null(strstr(r->points[2].runs[1].error, "p2r1/result.json: No such file"));
        /* Scaling from the smallest client count: 110 MiB/s per client. */
        assert_near(r->points[0].efficiency, 100);
        assert_near(r->points[1].per_client, 75);
        assert_near(r->points[1].efficiency, 75.0 / 110 * 100);
        assert_near(r->points[2].median[REPORT_TOTAL_BW], 300);
        assert_near(r->points[2].efficiency, 75.0 / 110 * 100);

        out = render(r, REPORT_CSV);
        for (line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
                size_t n = csv_fields(line, rows ? row : head, 64);
                if (!rows)
                        nh = n;
                else {
                        assert_int_equal(n, nh);
                        assert_int_equal(atoi(row[0]), rows - 1);
                }
                if (rows == 2) {
                        assert_string_equal(row[column(head, nh, "clients")], "2");
                        assert_string_equal(row[column(head, nh, "read_mib_s_median")], "150.000");
                        assert_string_equal(row[column(head, nh, "read_mib_s_rsd_pct")], "");
                        assert_string_equal(row[column(head, nh, "runs_ok")], "1");
                        assert_string_equal(row[column(head, nh, "efficiency_pct")], "68.182");
                        assert_string_equal(row[column(head, nh, "error")],
                                            "repeat 1: agent a1 lost, during the run");
                }
                rows++;
        }
        assert_int_equal(rows, 4);
        assert_string_equal(head[1], "mode");
        free(out);

        out = render(r, REPORT_TEXT);
        assert_non_null(strstr(out, "read MiB/s med±rsd"));
        assert_non_null(strstr(out, "efficiency % vs linear"));
        assert_non_null(strstr(out, "[1] point 1 repeat 1 (p1r1): agent a1 lost, during the run"));
        assert_non_null(strstr(out, "[2] point 2 repeat 1 (p2r1): p2r1/result.json:"));
        assert_null(strstr(out, "create files/s")); /* no metadata: no empty columns */
        free(out);

        out = render(r, REPORT_MD);
        assert_non_null(strstr(out, "| point | mode | clients | runs ok |"));
        assert_non_null(strstr(out, "| ---: | --- | --- | ---: |"));
        assert_non_null(strstr(out, "- [1] point 1 repeat 1"));
        free(out);

        {
                char plots[128], path[256];
                struct stat st;
                FILE *f;
                snprintf(plots, sizeof(plots), "%s/plots", dir);
                /* One timeline (only p0r0 has intervals), the scaling curve and the bars. */
                assert_int_equal(report_plots(r, plots, err, sizeof(err)), 3);
                snprintf(path, sizeof(path), "%s/timeline-p0r0.svg", plots);
                assert_int_equal(stat(path, &st), 0);
                f = fopen(path, "re");
                assert_non_null(f);
                assert_non_null(fgets(path, sizeof(path), f));
                assert_string_equal(path, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
                fclose(f);
                snprintf(path, sizeof(path), "%s/scaling.svg", plots);
                assert_int_equal(stat(path, &st), 0);
                snprintf(path, sizeof(path), "%s/bars.svg", plots);
                assert_int_equal(stat(path, &st), 0);
        }
        report_free(&r);
        assert_null(r);
        remove_sweep();
}

/* A partial run (an agent lost, intervals missing): its figures count, marked PARTIAL with the
 * reason in every format; a failed one's do not. */
static void test_partial(void **state)
{
        report_t *r = NULL;
        char err[512] = "", *out;
        json_t *doc = make_doc(80 * MIB, 0, 1000, "partial", false);

        json_object_set_new(json_object_get(doc, "iofleet"), "partial",
                            json_string("agent a1 lost; 4 intervals missing"));
        /* on_agent_loss=fail (the default): the run also says why it exited non-zero. */
        json_object_set_new(json_object_get(doc, "iofleet"), "error",
                            json_string("partial: agent a1 lost; 4 intervals missing"));
        snprintf(dir, sizeof(dir), "/tmp/test-report.XXXXXX");
        assert_non_null(mkdtemp(dir));
        write_doc(".", doc);
        assert_int_equal(report_load(dir, &r, err, sizeof(err)), 0);
        assert_false(r->sweep);
        assert_int_equal(r->n_points, 1);
        assert_int_equal(r->points[0].n_ok, 1);
        assert_null(r->points[0].runs[0].error);
        assert_string_equal(r->points[0].runs[0].partial, "agent a1 lost; 4 intervals missing");
        assert_near(r->points[0].median[REPORT_READ_BW], 80);
        out = render(r, REPORT_TEXT);
        assert_non_null(strstr(out, "[1]"));
        assert_non_null(strstr(out, "PARTIAL: agent a1 lost; 4 intervals missing"));
        free(out);
        out = render(r, REPORT_CSV);
        assert_non_null(strstr(out, "repeat 0: PARTIAL: agent a1 lost; 4 intervals missing"));
        free(out);
        out = render(r, REPORT_MD);
        assert_non_null(strstr(out, "PARTIAL: agent a1 lost; 4 intervals missing"));
        free(out);
        report_free(&r);
        remove_sweep();
}

static void test_bad_input(void **state)
{
        report_t *r = NULL;
        char err[512], path[256];
        FILE *f;

        make_sweep();
        snprintf(path, sizeof(path), "%s/sweep.json", dir);
        f = fopen(path, "we");
        fputs("{\"parameters\": [\"a\"], \"points\": [{\"index\": 0, \"params\": {\"a\": \"x\"}, "
              "\"dir\": \"../up\"}]}",
              f);
        fclose(f);
        assert_int_equal(report_load(dir, &r, err, sizeof(err)), -EINVAL);
        assert_null(r);
        assert_non_null(strstr(err, "sweep.json: points[0].dir: '../up' is not a directory"));

        f = fopen(path, "we");
        fputs("{\"parameters\": [\"a\"], \"points\": [{\"index\": 0, \"params\": {}, \"dir\": "
              "\"p0r0\"}]}",
              f);
        fclose(f);
        assert_int_equal(report_load(dir, &r, err, sizeof(err)), -EINVAL);
        assert_non_null(strstr(err, "sweep.json: points[0].params.a: missing"));

        f = fopen(path, "we");
        fputs("{\"parameters\": [\"a\"], \"points\": [", f);
        fclose(f);
        assert_int_equal(report_load(dir, &r, err, sizeof(err)), -EINVAL);
        assert_non_null(strstr(err, "sweep.json: line 1 column"));

        /* One run: result.json itself must be sound. */
        unlink(path);
        snprintf(path, sizeof(path), "%s/p0r0", dir);
        assert_int_equal(report_load(path, &r, err, sizeof(err)), 0);
        assert_false(r->sweep);
        assert_int_equal(r->n_points, 1);
        assert_near(r->points[0].median[REPORT_READ_BW], 100);
        report_free(&r);
        assert_int_equal(report_load(dir, &r, err, sizeof(err)), -ENOENT);
        assert_non_null(strstr(err, "/result.json: No such file, and no sweep.json"));
        remove_sweep();
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_median),     cmocka_unit_test(test_rsd),
            cmocka_unit_test(test_efficiency), cmocka_unit_test(test_ticks),
            cmocka_unit_test(test_escape),     cmocka_unit_test(test_figures),
            cmocka_unit_test(test_sweep),      cmocka_unit_test(test_partial),
            cmocka_unit_test(test_bad_input),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
