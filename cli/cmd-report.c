/* iofleet report RUN_DIR: the comparison table across sweep points, and SVG plots. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "cli-options.h"
#include "report.h"
#include "util.h"

int cmd_report(int argc, char **argv)
{
        report_format_t format = REPORT_TEXT;
        const char *run_dir = NULL, *output = NULL, *plots = NULL;
        bool no_plots = false;
        report_t *rep = NULL;
        const cli_command_t *cmd = cli_command_find("report");
        cli_args_t args;
        cli_arg_t arg;
        char err[2048] = "", plots_dir[4200];
        FILE *f = stdout;
        int r, rc = 1;

        cli_args_init(&args, argc, argv);
        while ((r = cli_args_next(&args, cmd, &arg, err, sizeof(err))) > 0) {
                const char *key = arg.opt ? arg.opt->name : NULL, *v = arg.value;
                if (arg.help) {
                        cli_usage(cmd, stdout);
                        return 0;
                } else if (key && streq(key, "format"))
                        format = streq(v, "csv") ? REPORT_CSV
                                 : streq(v, "md") || streq(v, "markdown") ? REPORT_MD
                                                  : REPORT_TEXT;
                else if (key && streq(key, "output"))
                        output = v;
                else if (key && streq(key, "plots"))
                        plots = v;
                else if (key && streq(key, "no-plots"))
                        no_plots = true;
                else if (run_dir) {
                        r = errorf(err, sizeof(err), -EINVAL, "one RUN_DIR only ('%s' and '%s')",
                                   run_dir, v);
                        break;
                } else
                        run_dir = v;
        }
        if (r < 0) {
                fprintf(stderr, "iofleet report: %s\n", err);
                return 2;
        }
        if (!run_dir) {
                fprintf(stderr, "iofleet report: which run? iofleet report [OPTIONS] RUN_DIR "
                                "(iofleet help report)\n");
                return 2;
        }
        if ((output && !*output) || (plots && !*plots)) {
                fprintf(stderr, "iofleet report: --%s: needs a non-empty value\n",
                        output && !*output ? "output" : "plots");
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
