/* iofleet's commands and their options as one table: the argument parser, the usage texts, the
 * man page and the shell completions all read it, so that they never drift apart. */
#include "cli-options.h"

#include <errno.h>
#include <string.h>

#include "options.h"
#include "suggest.h"
#include "util.h"

#define COORDINATOR                                                                                \
        {                                                                                          \
                "coordinator", CLI_ENDPOINT, "ENDPOINT", NULL,                                     \
                    "the coordinator's control endpoint: ipc://PATH or\ntcp://HOST:PORT "          \
                    "(default: the CLI "                                                           \
                    "configuration)"                                                               \
        }
#define CONFIG                                                                                     \
        {                                                                                          \
                "config", CLI_FILE, "FILE", NULL,                                                  \
                    "CLI configuration file (default "                                             \
                    "$IOFLEET_CONFIG,\n~/.config/iofleet/cli.conf, "                               \
                    "/etc/iofleet/cli.conf)"                                                       \
        }
#define REATTACH                                                                                   \
        {                                                                                          \
                "reattach-timeout", CLI_DURATION, "DURATION", NULL,                                \
                    "how long to wait for a coordinator that went away\nbefore leaving with the "   \
                    "run id, 1s..7d (default 2m)"                                                  \
        }
#define OUTPUT_FORMAT                                                                              \
        {                                                                                          \
                "output-format", CLI_CHOICES, "FORMAT", "normal,json,json+,terse",                 \
                    "fio's: normal (summary), json (fio's JSON layout),\njson+ (with latency "       \
                    "bins), terse (version 3); several\ncomma-separated: json,normal"                \
        }

static const cli_option_t run_options[] = {
    {"local", CLI_NUMBER, "N", NULL, "a private coordinator and N agents (1..64) on this host"},
    COORDINATOR,
    {"agents", CLI_TEXT, "SELECTOR", NULL,
     "which agents: role=R, name=GLOB, host=GLOB, LABEL=V,\ncomma-joined (all must match); "
     "default all;\nwith a plan, its clients (in place of [client] agents=)"},
    {"dry-run", CLI_FLAG, NULL, NULL, "with a plan: check it and list the points, run nothing"},
    {"parse-only", CLI_FLAG, NULL, NULL,
     "check the jobs (every refused option, with file and\nline) and their order, run nothing"},
    {"showcmd", CLI_FLAG, NULL, NULL,
     "print the jobs as one equivalent command line, run\nnothing (fio's --showcmd)"},
    {"degrade", CLI_TEXT, "RULE", NULL,
     "alert when the cluster's figure breaks a threshold,\ne.g. 'bw < 100MiB/s for 3', "
     "'clat_p99 > 5ms' (repeatable)"},
    {"run-stonewall", CLI_FLAG, NULL, NULL,
     "stop every agent when the first one is done (IOR's\nstonewalling; fio's own stonewall "
     "orders jobs)"},
    {"orphan-grace", CLI_DURATION, "DURATION", NULL,
     "how long agents run on without the coordinator, keeping\nwhat they measure, and the run "
     "waits for an agent that\nlost touch, 0..7d (default: the coordinator's, 5m; 0:\nstop at "
     "once)"},
    {"prepare-timeout", CLI_DURATION, "DURATION", NULL,
     "the agents' time to prepare, 1s..7d (default: 2m plus\nthe files to lay out at 32MiB/s)"},
    {"on-agent-loss", CLI_CHOICE, "ACTION", "fail,continue",
     "a partial run (an agent lost, intervals missing) exits\nnon-zero (fail, default) or 0 "
     "(continue); the result\nsays partial either way"},
    REATTACH,
    {"section", CLI_TEXT, "NAME", NULL,
     "run only job section NAME of the job files (may be\nrepeated); [global] sections always "
     "apply"},
    {"output", CLI_FILE, "FILE", NULL, "write the result there instead of standard output"},
    OUTPUT_FORMAT,
    {"per-host", CLI_FLAG, NULL, NULL, "a live line per agent under each cluster line"},
    {"interval", CLI_DURATION, "DURATION", NULL, "reporting interval, 10ms..1h (default 1s)"},
    {"lead", CLI_DURATION, "DURATION", NULL,
     "from the start command to the start instant, 1ms..1h\n(default: the coordinator's, 2s)"},
    {"results-dir", CLI_DIR, "DIR", NULL,
     "with --local: where the run directory goes (default\n./iofleet-runs)"},
    {"insecure", CLI_FLAG, NULL, NULL, "with --local: no CURVE on loopback"},
    {"verbose", CLI_FLAG, NULL, NULL, "with --local: the daemons log to this terminal"},
    CONFIG,
    {"help-options", CLI_FLAG, NULL, NULL, "list the fio job options iofleet implements"},
    {NULL},
};

static const cli_option_t watch_options[] = {
    COORDINATOR,
    CONFIG,
    {"per-host", CLI_FLAG, NULL, NULL, "a live line per agent under each cluster line"},
    {"output", CLI_FILE, "FILE", NULL, "write the result there instead of standard output"},
    OUTPUT_FORMAT,
    REATTACH,
    {NULL},
};

static const cli_option_t agents_options[] = {
    COORDINATOR,
    CONFIG,
    {"json", CLI_FLAG, NULL, NULL, "a JSON array instead of the table"},
    {"pending", CLI_FLAG, NULL, NULL,
     "the enrolments waiting for approval instead of the\nagents"},
    {NULL},
};

static const cli_option_t runs_options[] = {
    COORDINATOR,
    CONFIG,
    {"json", CLI_FLAG, NULL, NULL, "a JSON array instead of the table"},
    {NULL},
};

static const cli_option_t enroll_options[] = {
    {"role", CLI_TEXT, "ROLES", NULL,
     "create: the only roles agents enrolled with the token\nmay take: storage, client or "
     "storage,client\n(default: any)"},
    {"count", CLI_NUMBER, "N", NULL, "create: how many agents the token admits, 1..10000\n(default 1)"},
    {"expires", CLI_DURATION, "DURATION", NULL,
     "create: the token's lifetime, 1min..30d (default 1h)"},
    {"name-prefix", CLI_TEXT, "PREFIX", NULL,
     "create: put PREFIX before the name each agent asks for"},
    {"approve", CLI_FLAG, NULL, NULL,
     "create: each enrolment waits for 'iofleet agents\napprove NAME'"},
    COORDINATOR,
    CONFIG,
    {"json", CLI_FLAG, NULL, NULL, "JSON instead of text"},
    {NULL},
};

static const cli_option_t keygen_options[] = {
    {"dir", CLI_DIR, "DIR", NULL, "where the key files go (default: the current directory)"},
    {"force", CLI_FLAG, NULL, NULL, "replace existing key files"},
    {NULL},
};

static const cli_option_t report_options[] = {
    {"format", CLI_CHOICE, "FORMAT", "text,csv,md,markdown",
     "text (aligned, default), csv or md (markdown)"},
    {"output", CLI_FILE, "FILE", NULL, "write the table there instead of standard output"},
    {"plots", CLI_DIR, "DIR", NULL, "where the SVG plots go (default RUN_DIR/plots)"},
    {"no-plots", CLI_FLAG, NULL, NULL, "no plots"},
    {NULL},
};

static const cli_option_t no_options[] = {{NULL}};

const cli_command_t cli_commands[] = {
    {"run", "[OPTIONS] [--FIO-OPTION=VALUE ...] [JOBFILE ... | PLAN]",
     "run fio-style jobs on many agents at one instant",
     "Runs fio jobs on many agents at one instant and shows the summed bandwidth live.\n"
     "The jobs come from fio options on the command line, fio job files, or both, read\n"
     "as fio reads them (see --help-options for the options):\n"
     "\n"
     "  Command line: options before the first --name apply to every job; each --name\n"
     "    starts a job; --name=global goes back to options for the jobs after it. A job\n"
     "    option takes its value after '=' (--bs=4k); a boolean may stand alone\n"
     "    (--time_based). iofleet's own options also take it as the next argument\n"
     "    (--output-format json). '--' ends the options.\n"
     "  JOBFILE: fio's INI job file. [global] sets defaults for the sections below it\n"
     "    (a later [global] for the sections after it); every other [NAME] is a job.\n"
     "    Lines are key=value or a bare key (time_based); ';' and '#' start comments;\n"
     "    'include FILE' reads options from FILE (relative to the including file);\n"
     "    ${VAR} is an environment variable (unset is an error). '-' is standard input.\n"
     "  Both: the command line's global options are defaults under the job files; a\n"
     "    file's own settings win, as in fio. --name jobs run beside the files' jobs.\n"
     "  Several job files: fio runs each after the one before (stonewall), which\n"
     "    iofleet does not support yet.\n"
     "  PLAN: a plan file (iofleet.plan(5)): NFS server, client mount, sysctls, jobs\n"
     "    and a sweep; each point configured, run synchronized and put back before the\n"
     "    next.\n"
     "\n"
     "The live line of each interval sums every agent; intervals before ramp_time (and\n"
     "startdelay) are over are marked 'ramp' and not counted in [k/N].\n"
     "\n"
     "Agents that lose the coordinator run on for the orphan grace and deliver what\n"
     "they measured when it is back; a run in which an agent missed intervals is\n"
     "PARTIAL, never ok. A coordinator that goes silent is asked again for the run by\n"
     "its id (it may have restarted and taken the run up) for up to --reattach-timeout.\n"
     "Exit status: 0 run ok (or partial with --on-agent-loss=continue), 1 run failed\n"
     "or partial, 2 bad options, 3 left before the run's end was known (follow it with\n"
     "'iofleet watch RUN_ID').",
     run_options, CLI_FILE, "JOBFILE|PLAN", true},
    {"watch", "[OPTIONS] [RUN_ID]", "follow a run in progress from another terminal",
     "Follows the run in progress (or RUN_ID) from another terminal: its live lines and\n"
     "its result when it ends (a finished run's result at once). ^C stops watching, not\n"
     "the run. A coordinator that goes away is waited for up to --reattach-timeout.\n"
     "Exit status: 0 run ok, 1 run failed or partial, 2 no such run (or bad options),\n"
     "3 left before the run's end was known.",
     watch_options, CLI_TEXT, "RUN_ID", false},
    {"agents", "[OPTIONS] [approve NAME | revoke NAME]",
     "list the agents the coordinator knows; approve or revoke their keys",
     "Lists the agents the coordinator knows: id, name, hostname, roles, labels, version,\n"
     "the agent's clock offset from the coordinator's with its uncertainty (half the round\n"
     "trip of the probe behind it), the round trip, its state (idle, busy, lost, gone:\n"
     "stopped cleanly) and the run holding it.\n"
     "\n"
     "  --pending      the enrolments waiting for approval (tokens made with --approve).\n"
     "  approve NAME   admits a pending enrolment: NAME.pub joins agents.d.\n"
     "  revoke NAME    removes NAME's key from agents.d (the coordinator drops its session\n"
     "                 at once) or refuses NAME's pending enrolment.",
     agents_options, CLI_TEXT, "approve|revoke NAME", false},
    {"runs", "[OPTIONS]", "list the runs in progress",
     "Lists the runs in progress, several at once on disjoint agents: id, phase, start,\n"
     "agents (and how many are away), sweep. Follow one with 'iofleet watch RUN_ID'.",
     runs_options, CLI_FLAG, NULL, false},
    {"enroll", "[OPTIONS] create | list | revoke ID",
     "make enrolment tokens, so that agents join without copying keys",
     "Enrolment tokens let agents join without anyone copying keys. 'create' prints a new\n"
     "token on standard output (shown once: the coordinator keeps only a key derived from\n"
     "it). An agent started with it (its enroll_token_file, by default\n"
     "/etc/iofleet/enroll.token, mode 0600, or --enroll-token=) pins the coordinator's key\n"
     "the token carries, makes its key pair if it has none, and has its public key put in\n"
     "the coordinator's agents.d under its name (--name-prefix before it). A token admits\n"
     "--count agents until it --expires; with --approve each waits for 'iofleet agents\n"
     "approve NAME'. 'list' shows the tokens (id, roles, uses, expiry); 'revoke ID' ends one.",
     enroll_options, CLI_TEXT, "create|list|revoke ID", false},
    {"keygen", "[OPTIONS] NAME ...", "write CURVE key pairs",
     "Writes DIR/NAME.key (the pair; keep it secret, mode 0600) and DIR/NAME.pub\n"
     "(the public key) for each NAME. Copy an agent's .pub into the coordinator's\n"
     "agent_keys_dir (then send the coordinator SIGHUP); copy the coordinator's .pub to\n"
     "every agent (coordinator_key).",
     keygen_options, CLI_TEXT, "NAME", false},
    {"report", "[OPTIONS] RUN_DIR",
     "compare the points of a sweep (or one run): table and SVG plots",
     "Compares the points of a sweep (RUN_DIR/sweep.json and a result.json per point\n"
     "and repeat) or shows one run (RUN_DIR/result.json): one row per point with the\n"
     "varying parameters, read/write MiB/s, IOPS, clat p50/p99, metadata files/s and\n"
     "the start skew. Repeats of a point give the median and the relative sample\n"
     "standard deviation (+-rsd). When a 'clients' parameter varies, per-client MiB/s\n"
     "and the efficiency against linear scaling are added. Failed and partial runs\n"
     "(an agent lost, intervals missing) are marked and explained under the table. The plots: bandwidth, IOPS and latency over time per\n"
     "run; bars of bandwidth (read and write stacked), IOPS and latency per sweep point;\n"
     "scaling with the client count.",
     report_options, CLI_DIR, "RUN_DIR", false},
    {"help", "[COMMAND]", "say what a command does and its options",
     "Prints the usage of COMMAND, or the list of commands.", no_options, CLI_COMMAND, "COMMAND",
     false},
    {"version", "", "print the version", "Prints iofleet's version.", no_options, CLI_FLAG, NULL,
     false},
};

const size_t cli_n_commands = ELEMENTSOF(cli_commands);

const cli_command_t *cli_command_find(const char *name)
{
        for (size_t i = 0; i < cli_n_commands; i++)
                if (streq(cli_commands[i].name, name))
                        return &cli_commands[i];
        return NULL;
}

static const cli_option_t *option_find(const cli_command_t *cmd, const char *name)
{
        for (const cli_option_t *o = cmd->options; o->name; o++)
                if (streq(o->name, name))
                        return o;
        return NULL;
}

static bool choice_ok(const char *choices, const char *v)
{
        size_t n = strlen(v);
        for (const char *p = choices; *p;) {
                size_t len = strcspn(p, ",");
                if (len == n && strncmp(p, v, n) == 0)
                        return true;
                p += len + (p[len] == ',');
        }
        return false;
}

/* Each of a comma-separated list of values is one of choices (and none is empty). */
static bool choices_ok(const char *choices, const char *v)
{
        char one[64];

        for (const char *p = v;;) {
                size_t len = strcspn(p, ",");
                if (!len || len >= sizeof(one))
                        return false;
                memcpy(one, p, len);
                one[len] = '\0';
                if (!choice_ok(choices, one))
                        return false;
                if (!p[len])
                        return true;
                p += len + 1;
        }
}

static int unknown(const cli_command_t *cmd, const char *arg, const char *key, char *err,
                   size_t errlen)
{
        suggest_t s;
        char name[SUGGEST_MAX + 2];

        suggest_init(&s, key);
        for (const cli_option_t *o = cmd->options; o->name; o++)
                suggest_offer(&s, o->name);
        suggest_offer(&s, "help");
        if (cmd->job_options)
                job_options_offer(&s);
        if (suggest_result(&s)) {
                snprintf(name, sizeof(name), "--%s", suggest_result(&s));
                return errorf(err, errlen, -EINVAL, "unknown option '%s' (did you mean '%s'?)", arg,
                              name);
        }
        return errorf(err, errlen, -EINVAL, "unknown option '%s' (iofleet help %s lists them%s)",
                      arg, cmd->name, cmd->job_options ? "; --help-options the job options" : "");
}

void cli_args_init(cli_args_t *a, int argc, char **argv)
{
        memset(a, 0, sizeof(*a));
        a->argc = argc;
        a->argv = argv;
        a->i = 1;
}

int cli_args_next(cli_args_t *a, const cli_command_t *cmd, cli_arg_t *arg, char *err, size_t errlen)
{
        const char *s, *eq, *name;
        const cli_option_t *o;
        int known;

        memset(arg, 0, sizeof(*arg));
        if (a->i >= a->argc)
                return 0;
        s = a->argv[a->i++];
        if (!a->operands_only && streq(s, "--")) {
                a->operands_only = true;
                return cli_args_next(a, cmd, arg, err, errlen);
        }
        if (a->operands_only || s[0] != '-' || !s[1]) {
                arg->value = s;
                return 1;
        }
        if (streq(s, "-h") || streq(s, "--help") || streq(s, "-help")) {
                arg->help = true;
                arg->value = "";
                return 1;
        }
        name = s + (s[1] == '-' ? 2 : 1);
        eq = strchr(name, '=');
        if ((eq ? (size_t)(eq - name) : strlen(name)) >= sizeof(a->key))
                return errorf(err, errlen, -EINVAL, "unknown option '%.60s...'", s);
        snprintf(a->key, sizeof(a->key), "%.*s", eq ? (int)(eq - name) : (int)strlen(name), name);
        if (!a->key[0])
                return errorf(err, errlen, -EINVAL, "'%s' is not an option", s);
        if ((o = option_find(cmd, a->key))) {
                arg->opt = o;
                if (o->value == CLI_FLAG) {
                        if (eq)
                                return errorf(err, errlen, -EINVAL, "--%s takes no value ('%s')",
                                              o->name, s);
                        arg->value = "";
                        return 1;
                }
                if (eq)
                        arg->value = eq + 1;
                else if (a->i < a->argc && strncmp(a->argv[a->i], "--", 2) != 0)
                        arg->value = a->argv[a->i++];
                else
                        return errorf(err, errlen, -EINVAL,
                                      "--%s needs a value: --%s=%s or --%s %s%s%s", o->name,
                                      o->name, o->metavar, o->name, o->metavar,
                                      a->i < a->argc ? "; not the option " : "",
                                      a->i < a->argc ? a->argv[a->i] : "");
                if ((o->value == CLI_CHOICE && !choice_ok(o->choices, arg->value)) ||
                    (o->value == CLI_CHOICES && !choices_ok(o->choices, arg->value))) {
                        char list[128];
                        snprintf(list, sizeof(list), "%s", o->choices);
                        for (char *c = list; (c = strchr(c, ','));)
                                *c = '|';
                        return errorf(err, errlen, -EINVAL, "--%s: '%s' is not one of %s%s",
                                      o->name, arg->value, list,
                                      o->value == CLI_CHOICES ? " (or several of them, comma-separated)"
                                                              : "");
                }
                return 1;
        }
        if (cmd->job_options && (known = job_option_known(a->key)) >= 0) {
                arg->job_key = a->key;
                arg->value = eq ? eq + 1 : "";
                if (!eq && known == JOB_OPTION_VALUE)
                        return errorf(err, errlen, -EINVAL,
                                      "--%s needs a value: --%s=VALUE (job options take theirs "
                                      "after '=', so that the next argument stays a job file)",
                                      a->key, a->key);
                return 1;
        }
        return unknown(cmd, s, a->key, err, errlen);
}

static void option_usage(const cli_option_t *o, FILE *f)
{
        char head[64];
        const char *h = o->help;

        if (o->value == CLI_FLAG)
                snprintf(head, sizeof(head), "--%s", o->name);
        else if (o->value == CLI_CHOICE || o->value == CLI_CHOICES) {
                snprintf(head, sizeof(head), "--%s=%s", o->name, o->choices);
                for (char *c = strchr(head, '='); c && (c = strchr(c, ','));)
                        *c = '|';
        } else
                snprintf(head, sizeof(head), "--%s=%s", o->name, o->metavar);
        /* The help starts on the next line when the option leaves no space before it. */
        fprintf(f, "  %-26s", head);
        if (strlen(head) >= 26)
                fprintf(f, "\n  %-26s", "");
        while (*h) {
                size_t n = strcspn(h, "\n");
                fprintf(f, "%.*s\n", (int)n, h);
                h += n;
                if (*h == '\n' && *++h)
                        fprintf(f, "  %-26s", "");
        }
}

void cli_usage(const cli_command_t *cmd, FILE *f)
{
        fprintf(f, "Usage: iofleet %s%s%s\n\n%s\n", cmd->name, *cmd->synopsis ? " " : "",
                cmd->synopsis, cmd->description);
        if (!cmd->options[0].name)
                return;
        fprintf(f, "\nOptions (--OPT=VALUE or --OPT VALUE; -h or --help for this text):\n");
        for (const cli_option_t *o = cmd->options; o->name; o++)
                option_usage(o, f);
}

void cli_usage_all(FILE *f)
{
        fprintf(f, "Usage: iofleet COMMAND [OPTIONS] [ARGUMENTS]\n\nCommands:\n");
        for (size_t i = 0; i < cli_n_commands; i++)
                fprintf(f, "  %-9s %s\n", cli_commands[i].name, cli_commands[i].summary);
        fprintf(f, "\n'iofleet help COMMAND' or 'iofleet COMMAND -h' says more; man iofleet.\n");
}
