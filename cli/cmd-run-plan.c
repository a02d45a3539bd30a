/* iofleet run PLAN: --dry-run's listing, and a sweep run point by point, each configured, run
 * synchronized and put back before the next. */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "follow.h"
#include "plan.h"
#include "run-opts.h"
#include "util.h"

static void print_settings(FILE *f, const char *what, const kvlist_t *kv, const char *prefix)
{
        if (!kv->n)
                return;
        fprintf(f, "    %s:", what);
        for (size_t i = 0; i < kv->n; i++)
                fprintf(f, " %s%s=%s", prefix, kv->v[i].key, kv->v[i].value);
        fputc('\n', f);
}

/* --dry-run: the plan checked whole, and what each point will change. */
int plan_dry_run(const char *path, const char *clients, FILE *f)
{
        plan_t p;
        char err[2048];
        size_t n;
        if (plan_parse_clients(path, clients, &p, err, sizeof(err)) < 0) {
                fprintf(stderr, "iofleet run: %s\n", err);
                return -EINVAL;
        }
        n = plan_points(&p);
        fprintf(f, "plan %s: %zu point%s x %u repeat%s = %zu steps; on error: %s%s\n",
                p.name ? p.name : path, n, n == 1 ? "" : "s", p.repeat, p.repeat == 1 ? "" : "s",
                n * p.repeat, p.stop_on_error ? "stop" : "continue",
                p.stonewall ? "; stonewall" : "");
        for (size_t i = 0; i < n; i++) {
                plan_t q;
                kvlist_t chosen = {0};
                if (plan_point(&p, i, &q, &chosen, err, sizeof(err)) < 0) {
                        fprintf(stderr, "iofleet run: point %zu: %s\n", i, err);
                        kv_clear(&chosen);
                        plan_free(&p);
                        return -EINVAL;
                }
                fprintf(f, "point %zu:", i);
                for (size_t k = 0; k < chosen.n; k++)
                        fprintf(f, " %s=%s", chosen.v[k].key, chosen.v[k].value);
                fprintf(f, "%s\n", chosen.n ? "" : " (no sweep)");
                if (q.server.present) {
                        fprintf(f, "  server: %u agent(s) matching '%s'\n", q.server.count,
                                q.server.selector);
                        print_settings(f, "export", &q.server.settings, "");
                        print_settings(f, "sysctl", &q.server.sysctls, "");
                }
                if (q.client.count)
                        fprintf(f, "  clients: %u agent(s) matching '%s'\n", q.client.count,
                                *q.client.selector ? q.client.selector : "all");
                else
                        fprintf(f, "  clients: every agent matching '%s'\n",
                                *q.client.selector ? q.client.selector : "all");
                print_settings(f, "mount", &q.client.settings, "");
                print_settings(f, "sysctl", &q.client.sysctls, "");
                for (size_t j = 0; j < q.jobs.n_jobs; j++) {
                        const jobargs_job_t *jj = &q.jobs.jobs[j];
                        fprintf(f, "    job %s:", jj->name);
                        for (size_t k = 0; k < jj->keys.n; k++)
                                fprintf(f, " %s%s%s", jj->keys.v[k], *jj->values.v[k] ? "=" : "",
                                        jj->values.v[k]);
                        fputc('\n', f);
                }
                kv_clear(&chosen);
                plan_free(&q);
        }
        plan_free(&p);
        return 0;
}

/* A sweep's id: sortable by time, unique by a random tail, safe as a directory name. */
static void sweep_id(const plan_t *p, char *buf, size_t len)
{
        char when[32], name[40] = "";
        time_t t = time(NULL);
        struct tm tm;
        unsigned rnd = (unsigned)getpid() ^ (unsigned)clock_mono_ns();
        localtime_r(&t, &tm);
        strftime(when, sizeof(when), "%Y%m%d-%H%M%S", &tm);
        if (p->name) {
                size_t k = 0;
                for (const char *c = p->name; *c && k + 1 < sizeof(name); c++)
                        name[k++] = (isalnum((unsigned char)*c) || *c == '-' || *c == '_') ? *c
                                                                                            : '_';
                name[k] = 0;
        }
        snprintf(buf, len, "%s-%s%s%06x", when, name, *name ? "-" : "", rnd & 0xffffff);
}

/* Submits one step (point i of n, repeat rep) built as q, and follows it to its end; <0 when
 * it was refused or failed. */
static int submit_step(client_t *c, const run_opts_t *o, const plan_t *p, const plan_t *q,
                       const plan_wire_t *w, const kvlist_t *chosen, size_t i, unsigned rep,
                       const char *sid, FILE *live, char *dir, size_t dirlen)
{
        Iofleet__SubmitRun s = IOFLEET__SUBMIT_RUN__INIT;
        Iofleet__Setting **pp = NULL, *pv = wire_settings(chosen, &pp);
        Iofleet__Duration durations[2];
        char **names = calloc(p->n_params + 1, sizeof(*names)), run_id[WIRE_MAX_ID + 1];
        int r;

        for (size_t k = 0; names && k < p->n_params; k++)
                names[k] = p->params[k].name;
        s.parts = w->parts;
        s.n_parts = w->n_parts;
        s.degrade = w->degrade;
        s.n_degrade = w->n_degrade;
        s.lead_ns = q->lead_ns ? q->lead_ns : o->lead_ns;
        s.interval_ns = q->interval_ns   ? q->interval_ns
                        : o->interval_ns ? o->interval_ns
                                         : NSEC_PER_SEC;
        s.command_line = q->text;
        s.stonewall = q->stonewall || o->stonewall;
        s.plan_name = q->name ? q->name : "";
        s.sweep_id = (char *)sid;
        s.point = i;
        s.repeat = rep;
        s.point_params = pp;
        s.n_point_params = pv ? chosen->n : 0;
        s.sweep_params = names;
        s.n_sweep_params = names ? p->n_params : 0;
        run_opts_failure(o, q, &s, durations);
        r = follow_submit(c, &s, live, run_id, sizeof(run_id));
        if (r >= 0)
                r = follow_run(c, o, run_id, jobargs_runtime_ns(&q->jobs) / s.interval_ns, live,
                               dir, dirlen);
        free(pv);
        free(pp);
        free(names);
        return r;
}

/* One step of the sweep: point i built from the plan checked, announced, run. -EINVAL (with
 * *built false) when the point cannot be built; else submit_step()'s result. */
static int run_step(client_t *c, const run_opts_t *o, const plan_t *p, size_t i, unsigned rep,
                    const char *sid, FILE *live, char *dir, size_t dirlen, bool *built)
{
        plan_t q;
        plan_wire_t w;
        kvlist_t chosen = {0};
        char err[2048];
        int r = plan_point(p, i, &q, &chosen, err, sizeof(err));

        *built = false;
        if (r == 0 && (r = plan_to_wire(&q, &w, err, sizeof(err))) < 0)
                plan_free(&q);
        if (r < 0) {
                fprintf(stderr, "iofleet run: %s\n", err);
                kv_clear(&chosen);
                return -EINVAL;
        }
        *built = true;
        if (*sid) {
                fprintf(live, "iofleet: point %zu/%zu", i + 1, plan_points(p));
                if (p->repeat > 1)
                        fprintf(live, " repeat %u/%u", rep + 1, p->repeat);
                for (size_t k = 0; k < chosen.n; k++)
                        fprintf(live, " %s=%s", chosen.v[k].key, chosen.v[k].value);
                fputc('\n', live);
        }
        r = submit_step(c, o, p, &q, &w, &chosen, i, rep, sid, live, dir, dirlen);
        plan_wire_free(&w);
        kv_clear(&chosen);
        plan_free(&q);
        return r;
}

/* Runs every point of a plan in order: each configured, run synchronized, torn down and put
 * back by the agents before the next; a failing point is recorded and the sweep goes on unless
 * the plan says on_error=stop. Every point is built from the plan as parsed and checked, never
 * from its file again. */
int run_plan(client_t *c, const run_opts_t *o, const plan_t *p, FILE *live)
{
        char sid[128] = "", dir[PATH_MAX] = "";
        size_t n = plan_points(p), failed = 0, done = 0;
        int rc = 0;

        if (n > 1 || p->repeat > 1)
                sweep_id(p, sid, sizeof(sid));
        for (size_t i = 0; i < n && !run_interrupted; i++)
                for (unsigned rep = 0; rep < p->repeat && !run_interrupted; rep++) {
                        bool built;
                        int r = run_step(c, o, p, i, rep, sid, live, dir, sizeof(dir), &built);
                        if (!built) {
                                rc = r;
                                goto stop;
                        }
                        done++;
                        failed += r < 0;
                        /* The CLI lost the coordinator: the sweep cannot go on from here. */
                        if (r < 0 && (p->stop_on_error || r == -EINTR || r == -ETIMEDOUT ||
                                      r == -ENOENT)) {
                                rc = r;
                                goto stop;
                        }
                }
stop:
        if (*sid) {
                char *slash = strrchr(dir, '/');
                if (slash)
                        *slash = 0;
                fprintf(live, "iofleet: sweep %s: %zu of %zu steps ran, %zu failed%s%s%s\n", sid,
                        done, n * p->repeat, failed, *dir ? "; results in " : "", dir,
                        *dir ? " (iofleet report DIR)" : "");
        }
        if (rc == 0 && (failed || run_interrupted))
                rc = -EIO;
        return rc;
}
