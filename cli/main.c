/* iofleet: the command-line interface (run, watch, agents, keygen, report). */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "cli-options.h"
#include "log.h"
#include "suggest.h"
#include "util.h"

static int unknown_command(const char *name)
{
        suggest_t s;
        suggest_init(&s, name);
        for (size_t i = 0; i < cli_n_commands; i++)
                suggest_offer(&s, cli_commands[i].name);
        fprintf(stderr, "iofleet: unknown command '%s'", name);
        if (suggest_result(&s))
                fprintf(stderr, " (did you mean '%s'?)", suggest_result(&s));
        fprintf(stderr, "; commands:");
        for (size_t i = 0; i < cli_n_commands; i++)
                fprintf(stderr, "%s %s", i ? "," : "", cli_commands[i].name);
        fprintf(stderr, "\n");
        return 2;
}

/* iofleet help [COMMAND] */
static int cmd_help(int argc, char **argv)
{
        const cli_command_t *cmd;
        if (argc < 2) {
                cli_usage_all(stdout);
                return 0;
        }
        if (argc > 2) {
                fprintf(stderr, "iofleet help: one command at a time\n");
                return 2;
        }
        if (!(cmd = cli_command_find(argv[1])))
                return unknown_command(argv[1]);
        cli_usage(cmd, stdout);
        return 0;
}

static int cmd_version(int argc, char **argv)
{
        if (argc > 1 && (streq(argv[1], "-h") || streq(argv[1], "--help"))) {
                cli_usage(cli_command_find("version"), stdout);
                return 0;
        }
        printf("iofleet %s\n", IOFLEET_VERSION);
        return 0;
}

int main(int argc, char **argv)
{
        static const struct {
                const char *name;
                int (*fn)(int argc, char **argv);
        } cmds[] = {
            {"run", cmd_run},       {"watch", cmd_watch},   {"agents", cmd_agents},
            {"runs", cmd_runs},     {"keygen", cmd_keygen}, {"report", cmd_report},
            {"help", cmd_help},     {"enroll", cmd_enroll}, {"version", cmd_version},
        };

        log_setup("iofleet", LOG_WARNING);
        if (argc < 2) {
                cli_usage_all(stderr);
                return 2;
        }
        /* Hidden: cli.conf's key table as JSON, for man pages and shell completion. */
        if (streq(argv[1], "--dump-config-table"))
                return config_dump_json(&cli_config_schema, "iofleet", stdout) < 0 ? 1 : 0;
        if (streq(argv[1], "-h") || streq(argv[1], "--help")) {
                cli_usage_all(stdout);
                return 0;
        }
        if (streq(argv[1], "--version"))
                return cmd_version(1, argv + 1);
        for (size_t i = 0; i < ELEMENTSOF(cmds); i++)
                if (streq(argv[1], cmds[i].name))
                        return cmds[i].fn(argc - 1, argv + 1);
        return unknown_command(argv[1]);
}
