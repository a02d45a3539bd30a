/* iofleet-coordinator: arguments and configuration, then the server loop. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "log.h"
#include "server.h"
#include "util.h"

static void usage(FILE *f)
{
        fprintf(
            f, "Usage: iofleet-coordinator [--config=FILE] [--KEY=VALUE ...]\n\n"
               "Knows every agent, gives them one start instant and sums their bandwidth live.\n"
               "Runs in the foreground; stop it with SIGTERM, reload allow-lists with SIGHUP.\n\n");
        config_help(&coord_config_schema, f);
}

static int extra_arg(void *target, const char *arg, char *err, size_t errlen)
{
        if (streq(arg, "--help") || streq(arg, "-h")) {
                usage(stdout);
                exit(0);
        }
        if (streq(arg, "--version")) {
                printf("iofleet-coordinator %s\n", IOFLEET_VERSION);
                exit(0);
        }
        /* Hidden: the key table as JSON, for man pages and shell completion. */
        if (streq(arg, "--dump-config-table"))
                exit(config_dump_json(&coord_config_schema, "iofleet-coordinator", stdout) < 0 ? 1
                                                                                               : 0);
        return 0;
}

int main(int argc, char **argv)
{
        coord_config_t cfg;
        char err[4096];
        int r;

        log_setup("iofleet-coordinator", LOG_INFO);
        if (coord_config_defaults(&cfg) < 0)
                return 1;
        r = config_parse_args(&coord_config_schema, &cfg, argc, argv, extra_arg, err, sizeof(err));
        if (r < 0) {
                fprintf(stderr, "iofleet-coordinator: %s\n", err);
                config_free(&coord_config_schema, &cfg);
                return 2;
        }
        log_setup("iofleet-coordinator", log_level_from_string(cfg.log_level));
        r = server_run(&cfg);
        config_free(&coord_config_schema, &cfg);
        return r < 0 ? 1 : 0;
}
