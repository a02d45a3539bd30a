/* iofleet run: submit fio-style jobs to the coordinator (or a --local fleet), show them live, keep
 * the result. */
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


volatile sig_atomic_t run_interrupted;

static void on_sigint(int sig)
{
        run_interrupted++;
}

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

static int write_output(const run_opts_t *o, json_t *doc, const char *results_dir)
{
        FILE *f = stdout;
        if (o->output && !(f = fopen(o->output, "we"))) {
                fprintf(stderr, "iofleet: --output=%s: %s\n", o->output, strerror(errno));
                return -errno;
        }
        if (output_write(f, o->format, doc, results_dir) < 0)
                fprintf(stderr, "iofleet: writing the result failed\n");
        if (f != stdout && fclose(f) != 0) {
                fprintf(stderr, "iofleet: --output=%s: %s\n", o->output, strerror(errno));
                return -errno;
        }
        return 0;
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

/* Silent this long, the coordinator is asked again for the run (re-attaching after a restart
 * or a lost connection); the whole wait is bounded by --reattach-timeout. */
#define PING_AFTER_NS (5 * (int64_t)NSEC_PER_SEC)
#define REATTACH_DEFAULT_NS (120 * (int64_t)NSEC_PER_SEC)

static void send_watch(client_t *c, const char *run_id)
{
        envelope_t req = IOFLEET__ENVELOPE__INIT;
        Iofleet__WatchRun w = IOFLEET__WATCH_RUN__INIT;
        w.run_id = (char *)run_id;
        req.body_case = IOFLEET__ENVELOPE__BODY_WATCH_RUN;
        req.watch_run = &w;
        client_send(c, &req);
}

/* Follows the run until RunDone: live lines, a cancel on the first ^C, the result at the end.
 * A coordinator that goes silent is asked again for the run by its id (it may have restarted and
 * taken the run up); after --reattach-timeout the CLI leaves, saying how to follow the run. */
int run_follow(client_t *c, const run_opts_t *o, const char *run_id_in, uint64_t total,
               FILE *live, char *dir, size_t dirlen)
{
        bool cancel_sent = false, silent = false, attached = !o->watch;
        char run_id[WIRE_MAX_ID + 1];
        int64_t last_word = clock_mono_ns(), next_ping = 0;
        int64_t reattach = o->reattach_ns ? (int64_t)o->reattach_ns : REATTACH_DEFAULT_NS;
        char err[1024];

        snprintf(run_id, sizeof(run_id), "%s", run_id_in ? run_id_in : "");
        for (;;) {
                envelope_t *e = NULL;
                int r;
                if (run_interrupted && o->watch) {
                        fprintf(stderr, "\niofleet: no longer watching; the run goes on\n");
                        return -EINTR;
                }
                if (run_interrupted && !cancel_sent) {
                        envelope_t req = IOFLEET__ENVELOPE__INIT;
                        Iofleet__CancelRun cr = IOFLEET__CANCEL_RUN__INIT;
                        fprintf(stderr,
                                "\niofleet: cancelling the run (^C again to leave at once)\n");
                        req.body_case = IOFLEET__ENVELOPE__BODY_CANCEL_RUN;
                        req.cancel_run = &cr;
                        client_send(c, &req);
                        cancel_sent = true;
                }
                if (run_interrupted > 1)
                        return -EINTR;
                r = client_recv(c, 1000, &e, err, sizeof(err));
                if (r == -ETIMEDOUT || r == -EINTR) {
                        int64_t now = clock_mono_ns();
                        if (now - last_word >= PING_AFTER_NS && now >= next_ping) {
                                /* Still there, and still following this run? */
                                send_watch(c, run_id);
                                next_ping = now + PING_AFTER_NS;
                        }
                        if (!silent && now - last_word >= 2 * PING_AFTER_NS) {
                                silent = true;
                                fprintf(stderr,
                                        "iofleet: no word from the coordinator for %llds; trying "
                                        "to re-attach to run %s (for up to %llds)\n",
                                        (long long)((now - last_word) / (int64_t)NSEC_PER_SEC),
                                        run_id,
                                        (long long)(reattach / (int64_t)NSEC_PER_SEC));
                        }
                        if (now - last_word >= reattach) {
                                fprintf(stderr,
                                        "iofleet: the coordinator has not answered for %llds: "
                                        "leaving. Run %s may still go on; follow it with "
                                        "'iofleet watch %s'\n",
                                        (long long)((now - last_word) / (int64_t)NSEC_PER_SEC),
                                        run_id, run_id);
                                return -ETIMEDOUT;
                        }
                        continue;
                }
                if (r < 0) {
                        fprintf(stderr, "iofleet: bad message from the coordinator: %s\n", err);
                        continue;
                }
                last_word = clock_mono_ns();
                next_ping = 0;
                if (silent && e->body_case != IOFLEET__ENVELOPE__BODY_ERROR) {
                        silent = false;
                        fprintf(stderr, "iofleet: re-attached to run %s\n", run_id);
                }
                switch (e->body_case) {
                case IOFLEET__ENVELOPE__BODY_RUN_ACCEPTED:
                        /* iofleet watch's answer, or a re-attach's: the run goes on. */
                        if (!attached)
                                fprintf(live, "iofleet: watching run %s on %zu agents\n",
                                        e->run_accepted->run_id, e->run_accepted->n_agents);
                        attached = true;
                        snprintf(run_id, sizeof(run_id), "%s", e->run_accepted->run_id);
                        break;
                case IOFLEET__ENVELOPE__BODY_RUN_UPDATE: {
                        Iofleet__RunUpdate *u = e->run_update;
                        if (u->kind == IOFLEET__RUN_UPDATE__KIND__KIND_STARTED)
                                render_started(live, u);
                        else if (u->kind == IOFLEET__RUN_UPDATE__KIND__KIND_INTERVAL)
                                render_interval(live, u, total, o->per_host);
                        else if (u->kind == IOFLEET__RUN_UPDATE__KIND__KIND_ALERT)
                                fprintf(live, "iofleet: ALERT: %s\n", u->message);
                        else if (u->message && *u->message)
                                fprintf(live, "iofleet: %s\n", u->message);
                        break;
                }
                case IOFLEET__ENVELOPE__BODY_RUN_DONE: {
                        Iofleet__RunDone *d = e->run_done;
                        json_error_t je;
                        json_t *doc;
                        char path[4200];
                        if (!*d->result_json && *d->results_dir) {
                                /* A result too large to travel: read where the coordinator put
                                 * it (works when the CLI shares its file system). */
                                snprintf(path, sizeof(path), "%s/result.json", d->results_dir);
                                doc = json_load_file(path, 0, &je);
                        } else
                                doc = json_loads(d->result_json, 0, &je);
                        int rc = d->code == IOFLEET__ERROR_CODE__ERROR_NONE ? 0 : -EIO;
                        if (dir)
                                snprintf(dir, dirlen, "%s", d->results_dir);
                        if (d->code != IOFLEET__ERROR_CODE__ERROR_NONE)
                                fprintf(stderr, "iofleet: run %s did not complete: %s\n", d->run_id,
                                        d->message);
                        else if (streq(d->status ? d->status : "", "partial"))
                                fprintf(stderr,
                                        "iofleet: run %s is PARTIAL (on_agent_loss=continue): not "
                                        "every agent delivered every interval; see the result\n",
                                        d->run_id);
                        if (!doc) {
                                fprintf(stderr,
                                        "iofleet: the result could not be read: %s (the "
                                        "coordinator keeps it in %s)\n",
                                        je.text, d->results_dir);
                                wire_free(&e);
                                return -EIO;
                        }
                        if (write_output(o, doc, d->results_dir) < 0)
                                rc = -EIO;
                        if (o->output || output_machine(o->format))
                                fprintf(live, "iofleet: result in %s%s%s/result.json\n",
                                        o->output ? o->output : "", o->output ? " and " : "",
                                        d->results_dir);
                        json_decref(doc);
                        wire_free(&e);
                        return rc;
                }
                case IOFLEET__ENVELOPE__BODY_ERROR:
                        fprintf(stderr, "iofleet: %s\n", e->error->message);
                        if (!attached) {
                                /* iofleet watch of a run that is not there. */
                                wire_free(&e);
                                return -ENOENT;
                        }
                        if (e->error->code == IOFLEET__ERROR_CODE__ERROR_UNKNOWN_RUN &&
                            streq(e->error->run_id ? e->error->run_id : "", run_id)) {
                                /* A coordinator that has neither the run nor its result. */
                                fprintf(stderr,
                                        "iofleet: run %s is not known to the coordinator any "
                                        "more: its outcome is unknown\n",
                                        run_id);
                                wire_free(&e);
                                return -ENOENT;
                        }
                        break;
                default:
                        break;
                }
                wire_free(&e);
        }
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

int cmd_run(int argc, char **argv)
{
        run_opts_t o = {0};
        jobargs_t ja = {0};
        cli_config_t cfg = {0};
        client_t *c = NULL;
        local_fleet_t *fleet = NULL;
        Iofleet__Job **jobs = NULL;
        size_t n_jobs = 0;
        char err[16384] = "", control_ep[PATH_MAX + 32], results[PATH_MAX], cwd[PATH_MAX];
        char allow[8192];
        plan_t plan = {0}; /* a plan file, read and checked once */
        Iofleet__DegradeRule rules[64] = {0}, *rule_ptrs[64];
        Iofleet__Duration durations[2];
        char run_id[WIRE_MAX_ID + 1] = "";
        char *cmdline = NULL;
        FILE *live;
        int r, rc = 1;
        struct sigaction sa = {.sa_handler = on_sigint};

        if ((r = parse_args(argc, argv, &o, &ja, err, sizeof(err))) != 0) {
                if (r < 0)
                        print_errors(err);
                jobargs_free(&ja);
                strv_clear(&o.degrade);
                return r < 0 ? 2 : 0;
        }
        live = output_machine(o.format) && !o.output ? stderr : stdout;
        if (o.plan && o.dry_run) {
                rc = plan_dry_run(o.plan, stdout) < 0 ? 2 : 0;
                goto out;
        }
        /* The whole plan, every point, is checked before any host is touched. */
        if (o.plan && plan_parse(o.plan, &plan, err, sizeof(err)) < 0) {
                fprintf(stderr, "iofleet run: %s\n", err);
                rc = 2;
                goto out;
        }
        sigaction(SIGINT, &sa, NULL);
        sigaction(SIGTERM, &sa, NULL);

        if ((r = cli_config_load(o.config, &cfg, err, sizeof(err))) < 0) {
                fprintf(stderr, "iofleet: %s\n", err);
                rc = 2;
                goto out;
        }
        if (o.local) {
                local_options_t lo = {
                    .agents = o.local, .insecure = o.insecure, .verbose = o.verbose};
                if (!getcwd(cwd, sizeof(cwd)))
                        snprintf(cwd, sizeof(cwd), ".");
                if (o.results_dir && o.results_dir[0] == '/')
                        snprintf(results, sizeof(results), "%s", o.results_dir);
                else
                        snprintf(results, sizeof(results), "%s/%s", cwd,
                                 o.results_dir ? o.results_dir : "iofleet-runs");
                lo.results_dir = results;
                lo.work_dir = cwd;
                allow[0] = 0;
                local_allow_paths(&ja, cwd, allow, sizeof(allow));
                /* Every point's jobs: a sweep may move their directory. */
                for (size_t i = 0; o.plan && i < plan_points(&plan); i++) {
                        plan_t q;
                        if (plan_point(&plan, i, &q, NULL, err, sizeof(err)) < 0)
                                continue;
                        local_allow_paths(&q.jobs, cwd, allow, sizeof(allow));
                        plan_free(&q);
                }
                lo.allow_paths = allow;
                fprintf(live, "iofleet: starting a local coordinator and %u agents\n", o.local);
                if ((r = local_fleet_start(&lo, &fleet, control_ep, sizeof(control_ep), err,
                                           sizeof(err))) < 0) {
                        fprintf(stderr, "iofleet: local fleet: %s\n", err);
                        goto out;
                }
                cli_config_set_coordinator(&cfg, control_ep, "the local fleet");
        } else if (o.coordinator)
                cli_config_set_coordinator(&cfg, o.coordinator, "--coordinator");

        if ((r = cli_connect(&cfg, &c, err, sizeof(err))) < 0) {
                fprintf(stderr, "iofleet: %s\n", err);
                goto out;
        }
        if (o.plan) {
                rc = run_plan(c, &o, &plan, live) < 0 ? 1 : 0;
                goto out;
        }
        if ((r = jobargs_to_wire(&ja, &jobs, &n_jobs)) < 0)
                goto out;
        cmdline = command_line(argc, argv);
        {
                envelope_t req = IOFLEET__ENVELOPE__INIT, *rep = NULL;
                Iofleet__SubmitRun s = IOFLEET__SUBMIT_RUN__INIT;
                s.jobs = jobs;
                s.n_jobs = n_jobs;
                s.selector = (char *)(o.agents ? o.agents : "");
                s.lead_ns = o.lead_ns;
                s.interval_ns = o.interval_ns ? o.interval_ns : NSEC_PER_SEC;
                s.command_line = cmdline ? cmdline : "";
                s.stonewall = o.stonewall;
                run_opts_failure(&o, NULL, &s, durations);
                for (size_t i = 0; i < o.degrade.n && i < ELEMENTSOF(rules); i++) {
                        iofleet__degrade_rule__init(&rules[i]);
                        if (plan_degrade_parse(o.degrade.v[i], &rules[i], err, sizeof(err)) < 0)
                                continue;
                        rule_ptrs[s.n_degrade++] = &rules[i];
                }
                s.degrade = rule_ptrs;
                req.body_case = IOFLEET__ENVELOPE__BODY_SUBMIT_RUN;
                req.submit_run = &s;
                if (client_call(c, &req, 10000, IOFLEET__ENVELOPE__BODY_RUN_ACCEPTED, &rep, err,
                                sizeof(err)) < 0) {
                        fprintf(stderr, "iofleet: %s\n", err);
                        goto out;
                }
                snprintf(run_id, sizeof(run_id), "%s", rep->run_accepted->run_id);
                fprintf(live, "iofleet: run %s accepted on %zu agents:", rep->run_accepted->run_id,
                        rep->run_accepted->n_agents);
                for (size_t i = 0; i < rep->run_accepted->n_agents; i++)
                        fprintf(live, " %s", rep->run_accepted->agents[i]->name);
                fprintf(live, "\n");
                wire_free(&rep);
        }
        {
                uint64_t runtime = jobargs_runtime_ns(&ja);
                uint64_t iv = o.interval_ns ? o.interval_ns : NSEC_PER_SEC;
                r = run_follow(c, &o, run_id, runtime ? (runtime + iv - 1) / iv : 0, live, NULL,
                               0);
        }
        /* 3: the CLI left before the run's end was known (see run_follow). */
        rc = r == -ETIMEDOUT || r == -ENOENT ? 3 : r < 0 ? 1 : 0;
out:
        client_free(&c);
        if (fleet && local_fleet_stop(&fleet) < 0 && rc == 0)
                rc = 1;
        jobargs_free_wire(jobs, n_jobs);
        jobargs_free(&ja);
        cli_config_free(&cfg);
        free(cmdline);
        for (size_t i = 0; i < ELEMENTSOF(rules); i++)
                free(rules[i].text);
        plan_free(&plan);
        strv_clear(&o.degrade);
        return rc;
}

/* iofleet watch [RUN]: follows a run started elsewhere (another terminal, a sweep, a soak run)
 * with the same live lines and final summary as iofleet run; ^C leaves without stopping it. */
int cmd_watch(int argc, char **argv)
{
        run_opts_t o = {.watch = true};
        cli_config_t cfg = {0};
        client_t *c = NULL;
        const char *run_id = "";
        char err[2048] = "";
        struct sigaction sa = {.sa_handler = on_sigint};
        envelope_t req = IOFLEET__ENVELOPE__INIT;
        Iofleet__WatchRun w = IOFLEET__WATCH_RUN__INIT;
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
        sigaction(SIGINT, &sa, NULL);
        sigaction(SIGTERM, &sa, NULL);
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
        w.run_id = (char *)run_id;
        req.body_case = IOFLEET__ENVELOPE__BODY_WATCH_RUN;
        req.watch_run = &w;
        if (client_send(c, &req) < 0) {
                fprintf(stderr, "iofleet watch: cannot send to the coordinator\n");
                goto out;
        }
        /* RunAccepted and the live lines, or at once the RunDone of a finished run. */
        r = run_follow(c, &o, run_id, 0, live, NULL, 0);
        rc = r == -ETIMEDOUT ? 3 : r == -ENOENT ? 2 : r < 0 ? 1 : 0;
out:
        client_free(&c);
        cli_config_free(&cfg);
        return rc;
}
