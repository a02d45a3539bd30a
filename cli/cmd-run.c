/* iofleet run: its options, fio-style jobs submitted to the coordinator (or a --local fleet) and
 * followed to their result (cli/follow.c); plans go to cli/cmd-run-plan.c. */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "cli-options.h"
#include "follow.h"
#include "clock.h"
#include "jobargs.h"
#include "local.h"
#include "options.h"
#include "plan.h"
#include "run-opts.h"
#include "output.h"
#include "render.h"
#include "selector.h"
#include "util.h"


/* As fio: every command-line option first, wherever it stands, then the job files in order.
 * Returns 1 when -h or --help-options printed their text. */
static int parse_args(int argc, char **argv, run_opts_t *o, jobargs_t *ja, char *err, size_t errlen)
{
        const cli_command_t *cmd = cli_command_find("run");
        int n_files = 0, r;
        char **files = calloc((size_t)argc, sizeof(*files));
        cli_args_t args;
        cli_arg_t arg;

        if (!files)
                return errorf(err, errlen, -ENOMEM, "out of memory");
        cli_args_init(&args, argc, argv);
        while ((r = cli_args_next(&args, cmd, &arg, err, errlen)) > 0) {
                const char *key = arg.opt ? arg.opt->name : NULL, *v = arg.value;
                uint64_t u;
                if (arg.help) {
                        cli_usage(cmd, stdout);
                        r = 1;
                        goto out;
                }
                if (arg.job_key) {
                        if ((r = jobargs_add(ja, arg.job_key, v)) < 0)
                                goto out;
                        continue;
                }
                if (!key) {
                        files[n_files++] = (char *)v;
                        continue;
                }
                if (streq(key, "help-options")) {
                        job_options_help(stdout);
                        r = 1;
                        goto out;
                } else if (streq(key, "local")) {
                        char *end;
                        unsigned long n = strtoul(v, &end, 10);
                        if (!*v || *end || n < 1 || n > 64) {
                                r = errorf(err, errlen, -EINVAL,
                                           "--local: '%s' is not a number of agents 1..64", v);
                                goto out;
                        }
                        o->local = (unsigned)n;
                } else if (streq(key, "coordinator"))
                        o->coordinator = v;
                else if (streq(key, "section")) {
                        if ((r = jobargs_add_section(ja, v, err, errlen)) < 0)
                                goto out;
                } else if (streq(key, "agents")) {
                        if (selector_validate(v, err, errlen) < 0) {
                                r = -EINVAL;
                                goto out;
                        }
                        o->agents = v;
                } else if (streq(key, "output"))
                        o->output = v;
                else if (streq(key, "output-format"))
                        o->format = v;
                else if (streq(key, "config"))
                        o->config = v;
                else if (streq(key, "results-dir"))
                        o->results_dir = v;
                else if (streq(key, "per-host"))
                        o->per_host = true;
                else if (streq(key, "dry-run"))
                        o->dry_run = true;
                else if (streq(key, "parse-only"))
                        o->parse_only = true;
                else if (streq(key, "showcmd"))
                        o->showcmd = true;
                else if (streq(key, "degrade")) {
                        Iofleet__DegradeRule rule;
                        r = plan_degrade_parse(v, &rule, err, errlen);
                        free(rule.text);
                        if (r < 0 || (r = strv_push(&o->degrade, v)) < 0)
                                goto out;
                } else if (streq(key, "run-stonewall"))
                        o->stonewall = true;
                else if (streq(key, "orphan-grace") || streq(key, "prepare-timeout") ||
                         streq(key, "reattach-timeout")) {
                        bool grace = streq(key, "orphan-grace");
                        if (parse_duration(v, NSEC_PER_SEC, &u) < 0 || u > 7 * NSEC_PER_DAY ||
                            (!grace && u < NSEC_PER_SEC)) {
                                r = errorf(err, errlen, -EINVAL,
                                           "--%s: '%s' is not a duration %s..7d", key, v,
                                           grace ? "0" : "1s");
                                goto out;
                        }
                        if (grace) {
                                o->orphan_grace_ns = u;
                                o->orphan_grace_set = true;
                        } else if (streq(key, "prepare-timeout"))
                                o->prepare_timeout_ns = u;
                        else
                                o->reattach_ns = u;
                } else if (streq(key, "on-agent-loss")) {
                        if (!streq(v, "fail") && !streq(v, "continue")) {
                                r = errorf(err, errlen, -EINVAL,
                                           "--on-agent-loss: '%s' is not one of fail, continue", v);
                                goto out;
                        }
                        o->continue_on_loss = streq(v, "continue");
                }
                else if (streq(key, "insecure"))
                        o->insecure = true;
                else if (streq(key, "verbose"))
                        o->verbose = true;
                else if (streq(key, "interval") || streq(key, "lead")) {
                        if (parse_duration(v, NSEC_PER_SEC, &u) < 0 ||
                            u < (streq(key, "interval") ? 10 : 1) * NSEC_PER_MSEC ||
                            u > 3600 * NSEC_PER_SEC) {
                                r = errorf(err, errlen, -EINVAL,
                                           "--%s: '%s' is not a duration from %s to 1h", key, v,
                                           streq(key, "interval") ? "10ms" : "1ms");
                                goto out;
                        }
                        *(streq(key, "interval") ? &o->interval_ns : &o->lead_ns) = u;
                }
        }
        if (r < 0)
                goto out;
        r = -EINVAL;
        if (o->local && o->coordinator) {
                snprintf(err, errlen, "--local and --coordinator exclude each other");
                goto out;
        }
        if (!o->local && (o->insecure || o->results_dir || o->verbose)) {
                snprintf(err, errlen, "--insecure, --results-dir and --verbose go with --local");
                goto out;
        }
        if (n_files == 1 && plan_file_is_plan(files[0])) {
                if (ja->n_jobs || ja->gkeys.n) {
                        r = errorf(err, errlen, -EINVAL,
                                   "%s is a plan: fio options go in its job sections, or in "
                                   "its [sweep]",
                                   files[0]);
                        goto out;
                }
                o->plan = files[0];
                /* a plan checked without running is its dry run */
                o->dry_run |= o->parse_only;
                r = 0;
                goto out;
        }
        if (o->dry_run) {
                r = errorf(err, errlen, -EINVAL, "--dry-run goes with a plan file");
                goto out;
        }
        for (int i = 0; i < n_files; i++)
                if ((r = jobargs_add_file(ja, files[i], NULL, err, errlen)) < 0)
                        goto out;
        r = jobargs_check(ja, err, errlen);
        if (r == 0 && o->showcmd) {
                r = jobargs_showcmd(ja, stdout) < 0 ? -EIO : 1;
                goto out;
        }
        if (r == 0 && o->parse_only) {
                r = jobargs_summary(ja, stdout) < 0 ? -EIO : 1;
                goto out;
        }
out:
        free(files);
        if (r == -ENOMEM && !*err)
                snprintf(err, errlen, "out of memory");
        return r;
}

/* One line per problem (err holds them newline-separated), and how many when more than one. */
static void print_errors(const char *err)
{
        size_t n = 0;
        for (const char *p = err; *p;) {
                size_t len = strcspn(p, "\n");
                fprintf(stderr, "iofleet run: %.*s\n", (int)len, p);
                n += strncmp(p, "... and ", 8) ? 1 : strtoul(p + 8, NULL, 10);
                p += len + (p[len] == '\n');
        }
        if (n > 1)
                fprintf(stderr, "iofleet run: %zu problems above; nothing was run\n", n);
}

static char *command_line(int argc, char **argv)
{
        size_t len = 16;
        char *s;
        for (int i = 0; i < argc; i++)
                len += strlen(argv[i]) + 3;
        s = malloc(len);
        if (!s)
                return NULL;
        strcpy(s, "iofleet");
        for (int i = 0; i < argc; i++) {
                strcat(s, " ");
                strcat(s, argv[i]);
        }
        return s;
}

void run_opts_failure(const run_opts_t *o, const plan_t *plan, Iofleet__SubmitRun *s,
                      Iofleet__Duration d[2])
{
        iofleet__duration__init(&d[0]);
        iofleet__duration__init(&d[1]);
        if (plan && plan->orphan_grace_set) {
                d[0].ns = plan->orphan_grace_ns;
                s->orphan_grace = &d[0];
        } else if (o->orphan_grace_set) {
                d[0].ns = o->orphan_grace_ns;
                s->orphan_grace = &d[0];
        }
        d[1].ns = plan && plan->prepare_timeout_ns ? plan->prepare_timeout_ns : o->prepare_timeout_ns;
        if (d[1].ns)
                s->prepare_timeout = &d[1];
        s->continue_on_agent_loss = (plan && plan->continue_on_loss) || o->continue_on_loss;
}

/* dir/rel (rel absolute: rel) with ".", ".." and doubled slashes folded as text, into out. */
static void local_join(const char *dir, const char *rel, char *out, size_t len)
{
        char in[8192];
        size_t o = 0;
        snprintf(in, sizeof(in), "%s/%s", rel[0] == '/' ? "" : dir, rel);
        for (char *save = NULL, *c = strtok_r(in, "/", &save); c; c = strtok_r(NULL, "/", &save)) {
                if (streq(c, "."))
                        continue;
                if (streq(c, "..")) {
                        while (o > 0 && out[--o] != '/')
                                ;
                        continue;
                }
                if (o + 1 + strlen(c) + 1 > len)
                        break;
                o += (size_t)snprintf(out + o, len - o, "/%s", c);
        }
        if (o == 0)
                snprintf(out, len, "/");
        else
                out[o] = 0;
}

/* A --local fleet may do I/O where the user's own job options point (and the current
 * directory): the agents' allow_paths. A relative directory or file is the current
 * directory's; a file counts by its directory, a filename_format by the part before its last
 * '/' (when no $token is in it); one the job will make by its nearest existing parent.
 * Comma-joined into buf. */
static void local_allow_paths(const jobargs_t *ja, const char *cwd, char *buf, size_t len)
{
        size_t used = *buf ? strlen(buf) : (size_t)snprintf(buf, len, "%s", cwd);
        for (size_t i = 0; i < ja->n_jobs; i++) {
                const jobargs_job_t *j = &ja->jobs[i];
                const char *dir = cwd;
                for (size_t k = 0; k < j->keys.n; k++)
                        if (streq(j->keys.v[k], "directory") && !strchr(j->values.v[k], ':'))
                                dir = j->values.v[k];
                for (size_t k = 0; k < j->keys.n; k++) {
                        bool is_dir = streq(j->keys.v[k], "directory") ||
                                      streq(j->keys.v[k], "opendir"),
                             is_fmt = streq(j->keys.v[k], "filename_format");
                        char *v, *save = NULL, base[8192];
                        if (!is_dir && !is_fmt && !streq(j->keys.v[k], "filename"))
                                continue;
                        if (!(v = strdup(j->values.v[k])))
                                continue;
                        local_join(cwd, dir, base, sizeof(base));
                        for (char *p = strtok_r(v, ":", &save); p; p = strtok_r(NULL, ":", &save)) {
                                char path[8192], *slash;
                                if (strchr(p, ','))
                                        continue;
                                struct stat st;
                                local_join(is_dir ? cwd : base, p, path, sizeof(path));
                                if (!is_dir && (slash = strrchr(path, '/')))
                                        *(slash == path ? slash + 1 : slash) = 0;
                                if (is_fmt && strchr(path, '$'))
                                        continue;
                                /* A directory the job will make: its nearest existing one. */
                                while (!streq(path, "/") && stat(path, &st) < 0 &&
                                       errno == ENOENT && (slash = strrchr(path, '/')))
                                        *(slash == path ? slash + 1 : slash) = 0;
                                if (streq(path, "/"))
                                        continue;
                                if (used + strlen(path) + 2 < len)
                                        used +=
                                            (size_t)snprintf(buf + used, len - used, ",%s", path);
                        }
                        free(v);
                }
        }
}

/* --local: a coordinator and o->local agents of our own, allowed where the jobs (every point's,
 * for a plan) do their I/O; cfg then points at it. 0, or <0 said on stderr. */
static int start_local(const run_opts_t *o, const jobargs_t *ja, const plan_t *plan, FILE *live,
                       cli_config_t *cfg, local_fleet_t **fleet)
{
        local_options_t lo = {.agents = o->local, .insecure = o->insecure, .verbose = o->verbose};
        char err[2048], control_ep[PATH_MAX + 32], results[PATH_MAX], cwd[PATH_MAX], allow[8192];
        int r;

        if (!getcwd(cwd, sizeof(cwd)))
                snprintf(cwd, sizeof(cwd), ".");
        if (o->results_dir && o->results_dir[0] == '/')
                snprintf(results, sizeof(results), "%s", o->results_dir);
        else
                snprintf(results, sizeof(results), "%s/%s", cwd,
                         o->results_dir ? o->results_dir : "iofleet-runs");
        lo.results_dir = results;
        lo.work_dir = cwd;
        allow[0] = 0;
        local_allow_paths(ja, cwd, allow, sizeof(allow));
        /* Every point's jobs: a sweep may move their directory. */
        for (size_t i = 0; o->plan && i < plan_points(plan); i++) {
                plan_t q;
                if (plan_point(plan, i, &q, NULL, err, sizeof(err)) < 0)
                        continue;
                local_allow_paths(&q.jobs, cwd, allow, sizeof(allow));
                plan_free(&q);
        }
        lo.allow_paths = allow;
        fprintf(live, "iofleet: starting a local coordinator and %u agents\n", o->local);
        if ((r = local_fleet_start(&lo, fleet, control_ep, sizeof(control_ep), err,
                                   sizeof(err))) < 0) {
                fprintf(stderr, "iofleet: local fleet: %s\n", err);
                return r;
        }
        cli_config_set_coordinator(cfg, control_ep, "the local fleet");
        return 0;
}

/* The jobs of the command line (no plan) submitted as one run and followed to its end: the
 * exit status (3: the CLI left before the run's end was known, see follow_run()). */
static int run_jobs(client_t *c, const run_opts_t *o, const jobargs_t *ja, int argc, char **argv,
                    FILE *live)
{
        Iofleet__SubmitRun s = IOFLEET__SUBMIT_RUN__INIT;
        Iofleet__DegradeRule rules[64] = {0}, *rule_ptrs[64];
        Iofleet__Duration durations[2];
        Iofleet__Job **jobs = NULL;
        size_t n_jobs = 0;
        char run_id[WIRE_MAX_ID + 1] = "", err[2048], *cmdline = NULL;
        uint64_t runtime = jobargs_runtime_ns(ja);
        int r, rc;

        if (jobargs_to_wire(ja, &jobs, &n_jobs) < 0)
                return 1;
        cmdline = command_line(argc, argv);
        s.jobs = jobs;
        s.n_jobs = n_jobs;
        s.selector = (char *)(o->agents ? o->agents : "");
        s.lead_ns = o->lead_ns;
        s.interval_ns = o->interval_ns ? o->interval_ns : NSEC_PER_SEC;
        s.command_line = cmdline ? cmdline : "";
        s.stonewall = o->stonewall;
        run_opts_failure(o, NULL, &s, durations);
        for (size_t i = 0; i < o->degrade.n && i < ELEMENTSOF(rules); i++) {
                iofleet__degrade_rule__init(&rules[i]);
                if (plan_degrade_parse(o->degrade.v[i], &rules[i], err, sizeof(err)) < 0)
                        continue;
                rule_ptrs[s.n_degrade++] = &rules[i];
        }
        s.degrade = rule_ptrs;
        if (follow_submit(c, &s, live, run_id, sizeof(run_id)) < 0)
                rc = 1;
        else {
                r = follow_run(c, o, run_id,
                               runtime ? (runtime + s.interval_ns - 1) / s.interval_ns : 0, live,
                               NULL, 0);
                rc = r == -ETIMEDOUT || r == -ENOENT ? 3 : r < 0 ? 1 : 0;
        }
        jobargs_free_wire(jobs, n_jobs);
        free(cmdline);
        for (size_t i = 0; i < ELEMENTSOF(rules); i++)
                free(rules[i].text);
        return rc;
}

int cmd_run(int argc, char **argv)
{
        run_opts_t o = {0};
        jobargs_t ja = {0};
        cli_config_t cfg = {0};
        client_t *c = NULL;
        local_fleet_t *fleet = NULL;
        char err[16384] = ""; /* every refused option of the job files, a line each */
        plan_t plan = {0}; /* a plan file, read and checked once */
        FILE *live;
        int r, rc = 1;

        if ((r = parse_args(argc, argv, &o, &ja, err, sizeof(err))) != 0) {
                if (r < 0)
                        print_errors(err);
                jobargs_free(&ja);
                strv_clear(&o.degrade);
                return r < 0 ? 2 : 0;
        }
        live = output_machine(o.format) && !o.output ? stderr : stdout;
        if (o.plan && o.dry_run) {
                rc = plan_dry_run(o.plan, o.agents, stdout) < 0 ? 2 : 0;
                goto out;
        }
        /* The whole plan, every point, is checked before any host is touched. */
        if (o.plan && plan_parse_clients(o.plan, o.agents, &plan, err, sizeof(err)) < 0) {
                fprintf(stderr, "iofleet run: %s\n", err);
                rc = 2;
                goto out;
        }
        follow_catch_signals();
        if ((r = cli_config_load(o.config, &cfg, err, sizeof(err))) < 0) {
                fprintf(stderr, "iofleet: %s\n", err);
                rc = 2;
                goto out;
        }
        if (o.local) {
                if (start_local(&o, &ja, &plan, live, &cfg, &fleet) < 0)
                        goto out;
        } else if (o.coordinator)
                cli_config_set_coordinator(&cfg, o.coordinator, "--coordinator");
        if ((r = cli_connect(&cfg, &c, err, sizeof(err))) < 0) {
                fprintf(stderr, "iofleet: %s\n", err);
                goto out;
        }
        if (o.plan)
                rc = run_plan(c, &o, &plan, live) < 0 ? 1 : 0;
        else
                rc = run_jobs(c, &o, &ja, argc, argv, live);
out:
        client_free(&c);
        if (fleet && local_fleet_stop(&fleet) < 0 && rc == 0)
                rc = 1;
        jobargs_free(&ja);
        cli_config_free(&cfg);
        plan_free(&plan);
        strv_clear(&o.degrade);
        return rc;
}
