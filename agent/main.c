/* iofleet-agent: arguments and configuration, then the daemon loop. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon.h"
#include "log.h"
#include "util.h"

static void usage(FILE *f)
{
        fprintf(f,
                "Usage: iofleet-agent [--config=FILE] [--KEY=VALUE ...] [--label=KEY=VALUE ...]\n\n"
                "Runs storage workloads on command of an iofleet coordinator.\n"
                "Runs in the foreground; stop it with SIGTERM.\n\n"
                "  --enroll-token=TOKEN  enrol with this token (iofleet enroll create) before\n"
                "                        joining; enroll_token_file keeps it out of ps(1)\n\n");
        config_help(&agent_config_schema, f);
}

static int extra_arg(void *target, const char *arg, char *err, size_t errlen)
{
        if (streq(arg, "--help") || streq(arg, "-h")) {
                usage(stdout);
                exit(0);
        }
        if (streq(arg, "--version")) {
                printf("iofleet-agent %s\n", IOFLEET_VERSION);
                exit(0);
        }
        /* Not a config key: a token has no place in a file others may read. */
        if (strncmp(arg, "--enroll-token=", 15) == 0) {
                agent_config_t *cfg = target;
                free(cfg->enroll_token);
                cfg->enroll_token = strdup(arg + 15);
                return cfg->enroll_token ? 1 : -ENOMEM;
        }
        /* Hidden: the key table as JSON, for man pages and shell completion. */
        if (streq(arg, "--dump-config-table"))
                exit(config_dump_json(&agent_config_schema, "iofleet-agent", stdout) < 0 ? 1 : 0);
        return 0;
}

int main(int argc, char **argv)
{
        agent_config_t cfg;
        char err[4096];
        int r;

        log_setup("iofleet-agent", LOG_INFO);
        if (agent_config_defaults(&cfg) < 0)
                return 1;
        r = config_parse_args(&agent_config_schema, &cfg, argc, argv, extra_arg, err, sizeof(err));
        if (r >= 0)
                r = agent_config_check(&cfg, err, sizeof(err));
        if (r < 0) {
                fprintf(stderr, "iofleet-agent: %s\n", err);
                free(cfg.enroll_token);
                config_free(&agent_config_schema, &cfg);
                return 2;
        }
        log_setup("iofleet-agent", log_level_from_string(cfg.log_level));
        r = daemon_run(&cfg);
        if (cfg.enroll_token)
                explicit_bzero(cfg.enroll_token, strlen(cfg.enroll_token));
        free(cfg.enroll_token);
        config_free(&agent_config_schema, &cfg);
        /* 78 (EX_CONFIG): a key is missing; the unit does not restart for that. */
        return r == -ENOKEY ? 78 : r < 0 ? 1 : 0;
}
