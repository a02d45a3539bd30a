/* iofleet report RUN_DIR: the comparison table across sweep points, and SVG plots. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "report.h"
#include "util.h"

static void usage(FILE *f)
{
        fprintf(f,
                "Usage: iofleet report [OPTIONS] RUN_DIR\n\n"
                "Compares the points of a sweep (RUN_DIR/sweep.json and a result.json per point\n"
                "and repeat) or shows one run (RUN_DIR/result.json): one row per point with the\n"
                "varying parameters, read/write MiB/s, IOPS, clat p50/p99, metadata files/s and\n"
                "the start skew. Repeats of a point give the median and the relative sample\n"
                "standard deviation (±rsd). When a 'clients' parameter varies, per-client MiB/s\n"
                "and the efficiency against linear scaling are added. Failed runs are marked and\n"
                "explained under the table.\n\n"
                "Options:\n"
                "  --format=FORMAT   text (aligned, default), csv or md (Markdown)\n"
                "  --output=FILE     write the table there instead of standard output\n"
                "  --plots=DIR       where the SVG plots go (default RUN_DIR/plots)\n"
                "  --no-plots        no plots\n");
}

int cmd_report(int argc, char **argv)
{
        report_format_t format = REPORT_TEXT;
        const char *run_dir = NULL, *output = NULL, *plots = NULL;
        bool no_plots = false;
        report_t *rep = NULL;
        char err[2048] = "", plots_dir[4200];
        FILE *f = stdout;
        int r, rc = 1;

        for (int i = 1; i < argc; i++) {
                const char *a = argv[i];
                if (streq(a, "--help") || streq(a, "-h")) {
                        usage(stdout);
                        return 0;
                } else if (!strncmp(a, "--format=", 9)) {
                        const char *v = a + 9;
                        if (streq(v, "text"))
                                format = REPORT_TEXT;
                        else if (streq(v, "csv"))
                                format = REPORT_CSV;
                        else if (streq(v, "md") || streq(v, "markdown"))
                                format = REPORT_MD;
                        else {
                                fprintf(stderr,
                                        "iofleet report: --format: '%s' is not one of text, csv, "
                                        "md\n",
                                        v);
                                return 2;
                        }
                } else if (!strncmp(a, "--output=", 9) && a[9])
                        output = a + 9;
                else if (!strncmp(a, "--plots=", 8) && a[8])
                        plots = a + 8;
                else if (streq(a, "--no-plots"))
                        no_plots = true;
                else if (a[0] == '-' && a[1]) {
                        fprintf(stderr,
                                "iofleet report: unknown option '%s' (options: --format, "
                                "--output, --plots, --no-plots)\n",
                                a);
                        return 2;
                } else if (run_dir) {
                        fprintf(stderr, "iofleet report: one RUN_DIR only ('%s' and '%s')\n",
                                run_dir, a);
                        return 2;
                } else
                        run_dir = a;
        }
        if (!run_dir) {
                usage(stderr);
                return 2;
        }
        if ((r = report_load(run_dir, &rep, err, sizeof(err))) < 0) {
                fprintf(stderr, "iofleet report: %s\n", *err ? err : strerror(-r));
                return 1;
        }
        if (output && !(f = fopen(output, "we"))) {
                fprintf(stderr, "iofleet report: --output=%s: %s\n", output, strerror(errno));
                goto out;
        }
        if ((r = report_write(f, rep, format)) < 0) {
                fprintf(stderr, "iofleet report: writing the table%s%s: %s\n", output ? " to " : "",
                        output ? output : "", strerror(-r));
                goto out;
        }
        if (f != stdout) {
                r = fclose(f);
                f = stdout;
                if (r != 0) {
                        fprintf(stderr, "iofleet report: --output=%s: %s\n", output,
                                strerror(errno));
                        goto out;
                }
        }
        if (!no_plots) {
                snprintf(plots_dir, sizeof(plots_dir), "%s", plots ? plots : "");
                if (!plots)
                        snprintf(plots_dir, sizeof(plots_dir), "%s/plots", run_dir);
                if ((r = report_plots(rep, plots_dir, err, sizeof(err))) < 0) {
                        fprintf(stderr, "iofleet report: plots: %s\n", *err ? err : strerror(-r));
                        goto out;
                }
                fprintf(output ? stdout : stderr, "iofleet report: %d plot%s in %s/\n", r,
                        r == 1 ? "" : "s", plots_dir);
        }
        rc = 0;
out:
        if (f != stdout)
                fclose(f);
        report_free(&rep);
        return rc;
}
