/* iofleet watch [RUN]: a run started elsewhere followed like iofleet run's own (cli/follow.c). */
#include <errno.h>
#include <stdio.h>

#include "cli.h"
#include "cli-options.h"
#include "follow.h"
#include "output.h"
#include "util.h"

/* iofleet watch [RUN]: follows a run started elsewhere (another terminal, a sweep, a soak run)
 * with the same live lines and final summary as iofleet run; ^C leaves without stopping it. */
int cmd_watch(int argc, char **argv)
{
        run_opts_t o = {.watch = true};
        cli_config_t cfg = {0};
        client_t *c = NULL;
        const char *run_id = "";
        char err[2048] = "";
        const cli_command_t *cmd = cli_command_find("watch");
        cli_args_t args;
        cli_arg_t arg;
        FILE *live;
        int r, rc = 1;

        cli_args_init(&args, argc, argv);
        while ((r = cli_args_next(&args, cmd, &arg, err, sizeof(err))) > 0) {
                const char *key = arg.opt ? arg.opt->name : NULL;
                if (arg.help) {
                        cli_usage(cmd, stdout);
                        return 0;
                } else if (!key && *run_id) {
                        r = errorf(err, sizeof(err), -EINVAL, "one RUN_ID only ('%s' and '%s')",
                                   run_id, arg.value);
                        break;
                } else if (!key)
                        run_id = arg.value;
                else if (streq(key, "coordinator"))
                        o.coordinator = arg.value;
                else if (streq(key, "config"))
                        o.config = arg.value;
                else if (streq(key, "per-host"))
                        o.per_host = true;
                else if (streq(key, "output"))
                        o.output = arg.value;
                else if (streq(key, "output-format"))
                        o.format = arg.value;
                else if (streq(key, "reattach-timeout")) {
                        if (parse_duration(arg.value, NSEC_PER_SEC, &o.reattach_ns) < 0 ||
                            o.reattach_ns < NSEC_PER_SEC || o.reattach_ns > 7 * NSEC_PER_DAY) {
                                r = errorf(err, sizeof(err), -EINVAL,
                                           "--reattach-timeout: '%s' is not a duration 1s..7d",
                                           arg.value);
                                break;
                        }
                }
        }
        if (r < 0) {
                fprintf(stderr, "iofleet watch: %s\n", err);
                return 2;
        }
        live = output_machine(o.format) && !o.output ? stderr : stdout;
        follow_catch_signals();
        if (cli_config_load(o.config, &cfg, err, sizeof(err)) < 0) {
                fprintf(stderr, "iofleet: %s\n", err);
                return 2;
        }
        if (o.coordinator)
                cli_config_set_coordinator(&cfg, o.coordinator, "--coordinator");
        if (cli_connect(&cfg, &c, err, sizeof(err)) < 0) {
                fprintf(stderr, "iofleet: %s\n", err);
                goto out;
        }
        if (follow_watch(c, run_id) < 0) {
                fprintf(stderr, "iofleet watch: cannot send to the coordinator\n");
                goto out;
        }
        /* RunAccepted and the live lines, or at once the RunDone of a finished run. */
        r = follow_run(c, &o, run_id, 0, live, NULL, 0);
        rc = r == -ETIMEDOUT ? 3 : r == -ENOENT ? 2 : r < 0 ? 1 : 0;
out:
        client_free(&c);
        cli_config_free(&cfg);
        return rc;
}
