/* iofleet: the command-line interface (run, agents, keygen). */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "log.h"
#include "util.h"

static void usage(FILE *f)
{
        fprintf(
            f, "Usage: iofleet COMMAND [OPTIONS]\n\n"
               "Commands:\n"
               "  run       run fio-style jobs on many agents at one instant (iofleet run --help)\n"
               "  agents    list the agents the coordinator knows\n"
               "  keygen    write CURVE key pairs\n"
               "  report    compare the points of a sweep (or one run): table and SVG plots\n"
               "  watch     follow a run in progress from another terminal\n"
               "  version   print the version\n");
}

int main(int argc, char **argv)
{
        log_setup("iofleet", LOG_WARNING);
        if (argc < 2 || streq(argv[1], "--help") || streq(argv[1], "help")) {
                usage(argc < 2 ? stderr : stdout);
                return argc < 2 ? 2 : 0;
        }
        /* Hidden: cli.conf's key table as JSON, for man pages and shell completion. */
        if (streq(argv[1], "--dump-config-table"))
                return config_dump_json(&cli_config_schema, "iofleet", stdout) < 0 ? 1 : 0;
        if (streq(argv[1], "run"))
                return cmd_run(argc - 1, argv + 1);
        if (streq(argv[1], "agents"))
                return cmd_agents(argc - 1, argv + 1);
        if (streq(argv[1], "keygen"))
                return cmd_keygen(argc - 1, argv + 1);
        if (streq(argv[1], "report"))
                return cmd_report(argc - 1, argv + 1);
        if (streq(argv[1], "watch"))
                return cmd_watch(argc - 1, argv + 1);
        if (streq(argv[1], "version") || streq(argv[1], "--version")) {
                printf("iofleet %s\n", IOFLEET_VERSION);
                return 0;
        }
        fprintf(stderr,
                "iofleet: unknown command '%s' (commands: run, agents, keygen, report, version)\n",
                argv[1]);
        return 2;
}
