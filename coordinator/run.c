/* A run as the coordinator drives it: prepare, one start instant, interval sums, finish; no
 * sockets. */
#include "run.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "intervals.h"
#include "jobgroups.h"
#include "log.h"
#include "run-internal.h"
#include "run-logs.h"
#include "util.h"

void run_push_update(coord_run_t *run, run_out_t *out, Iofleet__RunUpdate *u)
{
        envelope_t e = IOFLEET__ENVELOPE__INIT;
        u->run_id = run->id;
        e.body_case = IOFLEET__ENVELOPE__BODY_RUN_UPDATE;
        e.run_update = u;
        if (run->control_peer[0]) {
                e.seq = run->seq ? ++*run->seq : 0;
                outbox_push(&out->control, run->control_peer, &e);
        }
        for (size_t i = 0; i < run->n_watchers; i++) {
                e.seq = run->seq ? ++*run->seq : 0;
                outbox_push(&out->control, run->watchers[i], &e);
        }
}

int run_add_watcher(coord_run_t *run, const char *peer)
{
        /* The CLI that submitted the run gets everything already: a WatchRun from it (its
         * ping after a silence, its re-attach) must not make every update and the RunDone come
         * twice (the second RunDone was taken for the answer to the next sweep point's submit). */
        if (streq(run->control_peer, peer))
                return 1;
        for (size_t i = 0; i < run->n_watchers; i++)
                if (streq(run->watchers[i], peer))
                        return 1;
        if (run->n_watchers == RUN_MAX_WATCHERS)
                return -ENOSPC;
        snprintf(run->watchers[run->n_watchers++], sizeof(run->watchers[0]), "%s", peer);
        return 0;
}

void run_replay_alerts(coord_run_t *run, const char *peer, run_out_t *out)
{
        envelope_t e = IOFLEET__ENVELOPE__INIT;
        for (size_t i = 0; i < run->degrade.n_alerts; i++) {
                Iofleet__RunUpdate u = IOFLEET__RUN_UPDATE__INIT;
                char msg[512];
                degrade_describe(&run->degrade, &run->degrade.alerts[i], msg, sizeof(msg));
                u.run_id = run->id;
                u.kind = IOFLEET__RUN_UPDATE__KIND__KIND_ALERT;
                u.index = run->degrade.alerts[i].index;
                u.message = msg;
                e.body_case = IOFLEET__ENVELOPE__BODY_RUN_UPDATE;
                e.run_update = &u;
                e.seq = run->seq ? ++*run->seq : 0;
                outbox_push(&out->control, peer, &e);
        }
}

void run_event(coord_run_t *run, run_out_t *out, const char *fmt, ...)
{
        Iofleet__RunUpdate u = IOFLEET__RUN_UPDATE__INIT;
        char msg[1024];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, sizeof(msg), fmt, ap);
        va_end(ap);
        if (!run->replaying)
                log_info("run %s: %s", run->id, msg);
        u.kind = IOFLEET__RUN_UPDATE__KIND__KIND_EVENT;
        u.message = msg;
        run_push_update(run, out, &u);
}

static void send_agent(run_out_t *out, run_agent_t *a, envelope_t *e)
{
        outbox_push(&out->agents, a->id, e);
}

void run_send_stop(coord_run_t *run, run_agent_t *a, const char *reason, run_out_t *out)
{
        envelope_t e = IOFLEET__ENVELOPE__INIT;
        Iofleet__Stop s = IOFLEET__STOP__INIT;
        s.run_id = run->id;
        s.reason = (char *)reason;
        e.body_case = IOFLEET__ENVELOPE__BODY_STOP;
        e.stop = &s;
        a->stop_sent = true;
        send_agent(out, a, &e);
}

void run_send_start(coord_run_t *run, run_agent_t *a, run_out_t *out)
{
        envelope_t e = IOFLEET__ENVELOPE__INIT;
        Iofleet__Start s = IOFLEET__START__INIT;
        s.run_id = run->id;
        s.start_ns = run->start_ns;
        e.body_case = IOFLEET__ENVELOPE__BODY_START;
        e.start = &s;
        run_owed_drop(run, a);
        a->start_sent = true;
        run_owed_take(run, a);
        send_agent(out, a, &e);
}

void run_push_ack(coord_run_t *run, run_agent_t *a, run_out_t *out)
{
        envelope_t e = IOFLEET__ENVELOPE__INIT;
        Iofleet__Ack ack = IOFLEET__ACK__INIT;
        ack.run_id = run->id;
        ack.upto = a->rseq;
        e.body_case = IOFLEET__ENVELOPE__BODY_ACK;
        e.ack = &ack;
        a->rseq_acked = a->rseq;
        outbox_push(&out->acks, a->id, &e);
}

void run_keep_rec(coord_run_t *run, const run_rec_t *rec)
{
        if (run->keep && !run->replaying)
                run->keep(run->keep_user, run, rec);
}

/* The jobs of the run: the SubmitRun's own, or those of every client part of a plan. */
static int check_jobs(coord_run_t *run, size_t part, Iofleet__Job **jobs, size_t n_jobs,
                      uint64_t *max_runtime,
                      bool *all_timed, uint64_t *layout, char *err, size_t errlen)
{
        job_spec_t *specs = realloc(run->specs, (run->n_specs + n_jobs + 1) * sizeof(*specs));
        size_t first = run->n_specs;
        uint64_t span;
        if (!specs)
                return -ENOMEM;
        run->specs = specs;
        for (size_t i = 0; i < n_jobs; i++) {
                job_spec_t *spec = &run->specs[run->n_specs];
                for (size_t k = 0; k < run->n_specs; k++)
                        if (streq(run->specs[k].name, jobs[i]->name))
                                /* Results and default file names are per job name. */
                                return errorf(err, errlen, -EINVAL,
                                              "name: job '%s' is given twice; job names must "
                                              "differ",
                                              jobs[i]->name);
                memset(spec, 0, sizeof(*spec));
                if (wire_job_spec(jobs[i], spec, err, errlen) < 0)
                        return -EINVAL;
                run->n_specs++;
                /* What the agent lays out before it answers Prepared: its files, every clone. */
                *layout += (spec->filesize ? spec->filesize * job_spec_nrfiles(spec) : spec->size) *
                           (spec->numjobs ? spec->numjobs : 1);
        }
        /* The part's jobs in fio's order: a wait_for names an earlier job, groups add up. */
        {
                jobgroup_t *g = calloc(n_jobs ? n_jobs : 1, sizeof(*g));
                int r = g ? jobgroups_plan(run->specs + first, n_jobs, g, NULL, err, errlen)
                          : -ENOMEM;
                free(g);
                if (r < 0)
                        return r;
        }
        if (run_groups_plan(run, part, run->specs + first, n_jobs) < 0)
                return -ENOMEM;
        span = jobgroups_span(run->specs + first, n_jobs);
        if (!span && n_jobs)
                *all_timed = false;
        if (span > *max_runtime)
                *max_runtime = span;
        return 0;
}

/* Whether a Prepare for part p changes the host (a mount, sysctls): the agent then puts it back
 * and says so (Restored) after its part. Both sides decide it from the Prepare alone. */
static bool part_changes_host(const Iofleet__SubmitRun *s, uint32_t p)
{
        return s->n_parts && p < s->n_parts &&
               (s->parts[p]->n_mount || s->parts[p]->n_sysctls ||
                streq(s->parts[p]->role, "server"));
}

/* Prepare for one agent: its part's jobs, settings and, for a client, the server to use. */
static void send_prepare(coord_run_t *run, run_agent_t *a, uint64_t seq, run_out_t *out)
{
        Iofleet__SubmitRun *s = run->submit->submit_run;
        envelope_t e = IOFLEET__ENVELOPE__INIT;
        Iofleet__Prepare p = IOFLEET__PREPARE__INIT;

        p.run_id = run->id;
        p.rank = a->rank;
        p.nagents = run->n_agents;
        p.interval_ns = run->interval_ns;
        p.orphan_grace_ns = run->orphan_grace_ns;
        p.group_barrier = run->group_barrier && a->n_groups > 1;
        p.fio_log_bytes_max = s->fio_log_bytes_max;
        if (s->n_parts) {
                Iofleet__Part *part = s->parts[a->part];
                p.role = part->role;
                p.jobs = part->jobs;
                p.n_jobs = part->n_jobs;
                p.server = part->server;
                p.n_server = part->n_server;
                p.mount = part->mount;
                p.n_mount = part->n_mount;
                p.sysctls = part->sysctls;
                p.n_sysctls = part->n_sysctls;
                p.nfs_server = run->nfs_server;
                p.nfs_export = run->nfs_export;
        } else {
                p.jobs = s->jobs;
                p.n_jobs = s->n_jobs;
        }
        e.seq = seq;
        e.body_case = IOFLEET__ENVELOPE__BODY_PREPARE;
        e.prepare = &p;
        a->prepare_sent = true;
        /* Until then it has nothing to put back. */
        a->restored = !part_changes_host(s, a->part);
        send_agent(out, a, &e);
}

int run_new(const char *id, const char *control_peer, envelope_t **submit, coord_agent_t **agents,
            const uint32_t *part_of, size_t n_agents, int64_t now, run_out_t *out, coord_run_t **ret,
            char *err, size_t errlen)
{
        Iofleet__SubmitRun *s = (*submit)->submit_run;
        coord_run_t *run;
        uint64_t max_runtime = 0, layout = 0;
        bool all_timed = true;
        int r = 0;

        run = calloc(1, sizeof(*run));
        if (!run)
                return -ENOMEM;
        snprintf(run->id, sizeof(run->id), "%s", id);
        snprintf(run->control_peer, sizeof(run->control_peer), "%s",
                 control_peer ? control_peer : "");
        run->agents = calloc(n_agents ? n_agents : 1, sizeof(*run->agents));
        if (!run->agents || idmap_new(&run->by_id) < 0) {
                run_free(&run);
                return -ENOMEM;
        }
        /* Every job is checked here, so that no agent is touched by a run that cannot work. */
        if (s->n_parts) {
                for (size_t i = 0; i < s->n_parts && r == 0; i++)
                        r = check_jobs(run, i, s->parts[i]->jobs, s->parts[i]->n_jobs, &max_runtime,
                                       &all_timed, &layout, err, errlen);
        } else
                r = check_jobs(run, 0, s->jobs, s->n_jobs, &max_runtime, &all_timed, &layout, err,
                               errlen);
        if (r < 0) {
                run_free(&run);
                return r;
        }
        if ((r = degrade_init(&run->degrade, s->degrade, s->n_degrade)) < 0) {
                run_free(&run);
                return r;
        }
        run->submit = *submit;
        *submit = NULL;
        run->interval_ns = s->interval_ns ? s->interval_ns : NSEC_PER_SEC;
        run->lead_ns = s->lead_ns ? s->lead_ns : 2 * NSEC_PER_SEC;
        run->submitted_ns = now;
        run->orphan_grace_ns = s->orphan_grace ? s->orphan_grace->ns : 0;
        run->continue_on_loss = s->continue_on_agent_loss;
        /* Laying out files takes the longest: a deadline that grows with them (a pessimistic
         * rate), so that an agent that never answers cannot hold the run forever. */
        run->prepare_timeout_ns = s->prepare_timeout
                                      ? s->prepare_timeout->ns
                                      : RUN_PREPARE_BASE_NS + layout / RUN_LAYOUT_RATE * NSEC_PER_SEC;
        run->prepare_deadline_ns = now + (int64_t)run->prepare_timeout_ns;
        /* With a runtime on every job the run cannot last longer than the longest of them. */
        if (all_timed)
                run->max_intervals = intervals_of_runtime(max_runtime, run->interval_ns);
        run->stop_deadline_ns = INT64_MAX;
        run->finish_deadline_ns = INT64_MAX;
        run->agent_due_ns = INT64_MAX;

        for (size_t i = 0; i < n_agents; i++) {
                run_agent_t *a = &run->agents[i];
                snprintf(a->id, sizeof(a->id), "%s", agents[i]->id);
                snprintf(a->name, sizeof(a->name), "%s", agents[i]->name);
                snprintf(a->hostname, sizeof(a->hostname), "%s", agents[i]->hostname);
                snprintf(a->boot_id, sizeof(a->boot_id), "%s", agents[i]->boot_id);
                a->rank = i;
                a->last_index = -1;
                a->restored = true;
                a->part = part_of ? part_of[i] : 0;
                a->server = s->n_parts && a->part < s->n_parts &&
                            streq(s->parts[a->part]->role, "server");
                run->n_servers += a->server;
                run->n_agents++;
                /* An id given twice is found as its first agent, as a scan would. */
                if (idmap_put(run->by_id, a->id, a) == -ENOMEM) {
                        run_free(&run);
                        return errorf(err, errlen, -ENOMEM, "out of memory indexing %zu agents",
                                      n_agents);
                }
        }
        if (run_groups_init(run) < 0) {
                run_free(&run);
                return errorf(err, errlen, -ENOMEM, "out of memory for the run's groups");
        }
        if (run_logs_new(run) < 0) {
                run_free(&run);
                return errorf(err, errlen, -ENOMEM, "out of memory for the run's log files");
        }
        /* Servers first: the clients mount what the servers export. */
        for (size_t i = 0; i < n_agents; i++)
                if (run->agents[i].server || !run->n_servers)
                        send_prepare(run, &run->agents[i], ++agents[i]->seq_out, out);
        run->clients_prepare_sent = !run->n_servers;
        run->phase = RUN_PREPARING;
        *ret = run;
        return 0;
}

void run_free(coord_run_t **rp)
{
        coord_run_t *run = *rp;
        if (!run)
                return;
        for (size_t i = 0; i < run->n_specs; i++)
                job_spec_done(&run->specs[i]);
        free(run->specs);
        run_groups_free(run);
        run_logs_free(&run->logs);
        for (size_t i = 0; i < run->n_agents; i++) {
                free(run->agents[i].iv);
                wire_free(&run->agents[i].finished);
                kv_clear(&run->agents[i].effective);
        }
        free(run->agents);
        idmap_free(&run->by_id);
        for (size_t i = run->civ_base; i < run->n_civ; i++)
                hist_free(&run_civ(run, i)->clat);
        degrade_done(&run->degrade);
        if (run->spool)
                fclose(run->spool);
        free(run->civ);
        free(run->late);
        layout_progress_done(&run->layout);
        wire_free(&run->submit);
        free(run);
        *rp = NULL;
}

bool run_expects(const coord_run_t *run, const run_agent_t *a, size_t k)
{
        if (a->server || !a->start_sent)
                return false;
        return a->last_index < 0 || (int64_t)k <= a->last_index;
}

/* An agent still owes interval k (the display waits for it) unless it is away, finished its part
 * earlier, or failed. */
static bool owes_interval(const run_agent_t *a, size_t k)
{
        if (a->server || a->lost || a->gone || a->error[0])
                return false;
        if (a->last_index >= 0 && (int64_t)k > a->last_index)
                return false;
        if (a->done && a->last_index < 0)
                return false;
        return true;
}

/* Degrade rules on the interval just shown: an alert goes to the log (and journal), the live
 * display and, at the end, the result. */
static void check_degrade(coord_run_t *run, size_t k, run_out_t *out)
{
        const cluster_interval_t *c = run_civ(run, k);
        degrade_sample_t smp = {c->io, run->interval_ns, c->clat};
        size_t before = run->degrade.n_alerts, fired;
        if (!run->degrade.n_rules)
                return;
        fired = degrade_feed(&run->degrade, k, &smp);
        for (size_t i = before; i < run->degrade.n_alerts; i++) {
                Iofleet__RunUpdate u = IOFLEET__RUN_UPDATE__INIT;
                char msg[512];
                degrade_describe(&run->degrade, &run->degrade.alerts[i], msg, sizeof(msg));
                if (!run->replaying)
                        log_warning("run %s: ALERT %s", run->id, msg);
                u.kind = IOFLEET__RUN_UPDATE__KIND__KIND_ALERT;
                u.index = k;
                u.message = msg;
                run_push_update(run, out, &u);
        }
        if (fired > run->degrade.n_alerts - before && !run->replaying)
                log_warning("run %s: %zu more alerts (only the first %d are kept)", run->id,
                            fired - (run->degrade.n_alerts - before), DEGRADE_MAX_ALERTS);
}

/* Which intervals the live display counts: the ramp ones (before every job's startdelay and
 * ramp_time are over) are shown as such, the counter runs over the measured ones. */
static void run_progress(const coord_run_t *run, Iofleet__RunUpdate *u)
{
        uint64_t ramp = intervals_ramp(intervals_counting_from(run->specs, run->n_specs),
                                       run->interval_ns);
        u->ramp_intervals = ramp > UINT32_MAX ? UINT32_MAX : (uint32_t)ramp;
        u->measured_intervals = run->max_intervals > ramp ? run->max_intervals - ramp : 0;
}

/* The cluster's interval k for the live display: its sums, each agent's figures, and the agents
 * that were to deliver it and had not (a partial point is shown as such, never as a whole). */
static void emit_interval(coord_run_t *run, size_t k, run_out_t *out)
{
        cluster_interval_t *c = run_civ(run, k);
        Iofleet__RunUpdate u = IOFLEET__RUN_UPDATE__INIT;
        Iofleet__AgentInterval *pa = calloc(run->n_agents, sizeof(*pa));
        Iofleet__AgentInterval **pp = calloc(run->n_agents, sizeof(*pp));
        char **missing = calloc(run->n_agents + 1, sizeof(*missing));
        size_t n = 0, expected = 0, n_missing = 0;

        for (size_t i = 0; i < run->n_agents; i++) {
                run_agent_t *a = &run->agents[i];
                run_interval_t *iv = run_agent_iv(a, k);
                bool got = iv && iv->received;
                if (run_expects(run, a, k) || got)
                        expected++;
                if (!got) {
                        if (run_expects(run, a, k) && missing)
                                missing[n_missing++] = a->name;
                        continue;
                }
                iv->shown = true;
                if (!pa || !pp)
                        continue;
                iofleet__agent_interval__init(&pa[n]);
                pa[n].name = a->name;
                pa[n].read_bytes = iv->io.read_bytes;
                pa[n].read_ios = iv->io.read_ios;
                pa[n].write_bytes = iv->io.write_bytes;
                pa[n].write_ios = iv->io.write_ios;
                pa[n].errors = iv->io.errors;
                pp[n] = &pa[n];
                n++;
        }
        u.kind = IOFLEET__RUN_UPDATE__KIND__KIND_INTERVAL;
        run_progress(run, &u);
        u.index = k;
        u.interval_ns = run->interval_ns;
        u.read_bytes = c->io.read_bytes;
        u.read_ios = c->io.read_ios;
        u.write_bytes = c->io.write_bytes;
        u.write_ios = c->io.write_ios;
        u.errors = c->io.errors;
        u.meta_ops = c->io.meta_ops;
        u.reported = c->reported;
        u.agents = expected;
        u.per_agent = pp;
        u.n_per_agent = n;
        u.missing = missing;
        u.n_missing = n_missing;
        u.start_ns = run->start_ns;
        if (c->clat) {
                static const double ps[2] = {50.0, 99.0};
                uint64_t v[2];
                hist_percentiles(c->clat, ps, 2, v);
                c->clat_p50_ns = v[0];
                c->clat_p99_ns = v[1];
        }
        u.clat_p99_ns = c->clat_p99_ns;
        run_push_update(run, out, &u);
        free(pa);
        free(pp);
        free(missing);
        c->emitted = true;
        check_degrade(run, k, out);
        /* The last shown interval's latency stays for /metrics until the next one is shown. */
        if (k > 0 && run_civ(run, k - 1))
                hist_free(&run_civ(run, k - 1)->clat);
}

/* Interval k still waits for agent a. */
static bool owes_unsent(const run_agent_t *a, size_t k)
{
        const run_interval_t *iv = run_agent_iv(a, k);
        return owes_interval(a, k) && (!iv || !iv->received);
}

/* civ[k].owed counts the agents interval k waits for, for the intervals not shown yet (k >=
 * next_emit), so that completeness is a comparison, not a scan of every agent per message.
 * Whatever changes what an agent owes goes between run_owed_drop() and run_owed_take(). */
void run_owed_drop(coord_run_t *run, const run_agent_t *a)
{
        for (size_t k = run->next_emit; k < run->n_civ; k++)
                if (owes_unsent(a, k))
                        run_civ(run, k)->owed--;
        run_groups_drop(run, a);
}

void run_owed_take(coord_run_t *run, const run_agent_t *a)
{
        for (size_t k = run->next_emit; k < run->n_civ; k++)
                if (owes_unsent(a, k))
                        run_civ(run, k)->owed++;
        run_groups_take(run, a);
        run_agent_due(run, a);
}

static int64_t agent_deadline(const coord_run_t *run, const run_agent_t *a)
{
        if (a->lost && !a->gone)
                return a->lost_at + (int64_t)run->orphan_grace_ns;
        if (a->done && !a->restored && !a->lost)
                return a->done_at + RUN_RESTORE_GRACE_NS;
        return INT64_MAX;
}

void run_agent_due(coord_run_t *run, const run_agent_t *a)
{
        int64_t t = agent_deadline(run, a);
        if (t < run->agent_due_ns)
                run->agent_due_ns = t;
}

static void agent_due_recompute(coord_run_t *run)
{
        run->agent_due_ns = INT64_MAX;
        for (size_t i = 0; i < run->n_agents; i++)
                run_agent_due(run, &run->agents[i]);
}

static uint32_t owed_scan(const coord_run_t *run, size_t k)
{
        uint32_t n = 0;
        for (size_t i = 0; i < run->n_agents; i++)
                n += owes_unsent(&run->agents[i], k);
        return n;
}

static bool interval_complete(const coord_run_t *run, size_t k)
{
        return run_civ(run, k)->owed == 0;
}

/* How long after its end an interval waits for late agents; run_next_deadline() must agree. */
static int64_t emit_slack(const coord_run_t *run)
{
        int64_t slack = (int64_t)run->interval_ns / 2;
        if (slack < 100 * (int64_t)NSEC_PER_MSEC)
                slack = 100 * NSEC_PER_MSEC;
        return slack;
}

/* Shows intervals in order: each as soon as every agent that owes it has sent it, or once its
 * deadline has passed (force), so that one slow agent cannot freeze the live display. */
static void emit_ready(coord_run_t *run, int64_t now, bool all, run_out_t *out)
{
        int64_t slack = emit_slack(run);
        while (run->next_emit < run->n_civ) {
                size_t k = run->next_emit;
                if (!all && !interval_complete(run, k) && now < run_interval_end(run, k) + slack)
                        break;
                /* Once per interval: a change that missed owed_drop/owed_take shows here. */
                if (owed_scan(run, k) != run_civ(run, k)->owed)
                        log_error("run %s: interval %zu: %u agents owe it but %u were counted",
                                  run->id, k, owed_scan(run, k), run_civ(run, k)->owed);
                emit_interval(run, k, out);
                run->next_emit++;
        }
        run_spool_old(run);
}

/* Room for interval k (k >= the bases): arrays hold base .. base + length - 1. */
static int grow_intervals(coord_run_t *run, run_agent_t *a, size_t k)
{
        size_t rk = k - a->iv_base;
        if (rk >= a->n_iv) {
                size_t n = rk + 1 > a->n_iv * 2 ? rk + 1 : a->n_iv * 2;
                run_interval_t *iv = realloc(a->iv, n * sizeof(*iv));
                if (!iv)
                        return -ENOMEM;
                memset(iv + a->n_iv, 0, (n - a->n_iv) * sizeof(*iv));
                a->iv = iv;
                a->n_iv = n;
        }
        if (k >= run->n_civ) {
                size_t len = run->n_civ - run->civ_base, rc = k - run->civ_base;
                if (rc >= run->cap_civ) {
                        size_t n = rc + 1 > run->cap_civ * 2 ? rc + 1 : run->cap_civ * 2;
                        cluster_interval_t *c = realloc(run->civ, n * sizeof(*c));
                        if (!c)
                                return -ENOMEM;
                        run->civ = c;
                        run->cap_civ = n;
                }
                memset(run->civ + len, 0, (rc + 1 - len) * sizeof(*run->civ));
                /* Once per new interval: who it waits for. */
                for (size_t j = run->n_civ; j <= k; j++)
                        run->civ[j - run->civ_base].owed = owed_scan(run, j);
                /* Cluster intervals exist up to the highest index any agent reported. */
                run->n_civ = k + 1;
        }
        return 0;
}

/* Stonewalling (IOR, elbencho): the first agent done stops every other one, so that the rate
 * of the step is the rate while all of them ran. */
static void stonewall(coord_run_t *run, run_agent_t *first, int64_t now, run_out_t *out)
{
        run->stonewall_ns = now;
        run_event(run, out, "stonewall: agent %s finished first; stopping the others", first->name);
        for (size_t i = 0; i < run->n_agents; i++) {
                run_agent_t *a = &run->agents[i];
                if (a != first && !a->server && !a->done && !a->gone && a->last_index < 0)
                        run_send_stop(run, a, "stonewall", out);
        }
}

static void on_interval(coord_run_t *run, run_agent_t *a, const Iofleet__Interval *m, int64_t now,
                        run_out_t *out)
{
        size_t k = m->index;
        cluster_interval_t *c;
        run_interval_t *iv, v;

        /* Interval k cannot have ended before start + (k+1)*interval: nothing before the start,
         * no index beyond the clock (one interval of slack for clock error) or beyond a timed
         * run's end is accepted, let alone allocated for. */
        int64_t elapsed = run->start_ns && now > run->start_ns ? now - run->start_ns : -1;
        uint64_t limit = elapsed < 0 ? 0 : (uint64_t)elapsed / run->interval_ns + 1;
        if (run->max_intervals && limit > run->max_intervals)
                limit = run->max_intervals;
        if (k >= limit) {
                if (!run->replaying)
                        log_warning("run %s: agent %s sent interval %zu; only %llu can exist now",
                                    run->id, a->name, k, (unsigned long long)limit);
                return;
        }
        v = (run_interval_t){
            .io = {.read_bytes = m->read ? m->read->bytes : 0,
                   .read_ios = m->read ? m->read->ios : 0,
                   .write_bytes = m->write ? m->write->bytes : 0,
                   .write_ios = m->write ? m->write->ios : 0,
                   .errors = (m->read ? m->read->errors : 0) + (m->write ? m->write->errors : 0),
                   .meta_ops = m->meta_ops},
            .received = true,
        };
        if (m->last) {
                run_owed_drop(run, a);
                a->last_index = k;
                run_owed_take(run, a);
                if (run->submit->submit_run->stonewall && !run->stonewall_ns)
                        stonewall(run, a, now, out);
        }
        /* Run messages are accepted once each, in order: every interval here is new, and
         * /metrics counts it now, shown or late. */
        io_counts_add(&a->recv_io, &v.io);
        if (m->read)
                clat_buckets_add_wire(&a->clat_read, m->read->clat);
        if (m->write)
                clat_buckets_add_wire(&a->clat_write, m->write->clat);
        if (k < a->iv_base || k < run->civ_base) {
                /* It left memory (and went to the spool) before it came, as an agent back from
                 * a partition resends: kept aside and merged into the written series. */
                if (run_keep_late(run, a, k, &v) < 0)
                        run->late_dropped++;
                return;
        }
        if (grow_intervals(run, a, k) < 0)
                return;
        iv = run_agent_iv(a, k);
        if (iv->received) {
                log_debug("run %s: agent %s sent interval %zu twice", run->id, a->name, k);
                return;
        }
        *iv = v;
        if (k >= run->next_emit && owes_interval(a, k))
                run_civ(run, k)->owed--;

        c = run_civ(run, k);
        io_counts_add(&c->io, &iv->io);
        c->reported++;
        if (!c->emitted && (!c->clat ? hist_new(&c->clat) : 0) == 0) {
                if (m->read)
                        wire_hist_add(c->clat, m->read->clat);
                if (m->write)
                        wire_hist_add(c->clat, m->write->clat);
        }
        emit_ready(run, now, false, out);
}

/* Every client is done and has put its host back (its mount gone): only now are the servers
 * told to tear down, so that no client unmounts from a server already put back. */
static void stop_servers(coord_run_t *run, int64_t now, run_out_t *out)
{
        run->servers_stopped = true;
        for (size_t i = 0; i < run->n_agents; i++) {
                run_agent_t *a = &run->agents[i];
                if (a->server && !a->done && !a->gone)
                        run_send_stop(run, a, "step over", out);
        }
        if (run->phase != RUN_STOPPING) {
                run->phase = RUN_STOPPING;
                run->finish_deadline_ns = now + RUN_FINISH_GRACE_NS;
        }
}

static void check_all_finished(coord_run_t *run, int64_t now, run_out_t *out)
{
        bool any = false, servers_left = false;
        if (run->phase == RUN_DONE)
                return;
        /* An agent away may come back with its data within the orphan grace. */
        for (; run->hint_finished < run->n_agents; run->hint_finished++) {
                const run_agent_t *a = &run->agents[run->hint_finished];
                if (!a->server && !a->done && !a->gone)
                        return;
        }
        /* Measurements are in; clients may still be unmounting. */
        if (run->phase != RUN_STOPPING) {
                run->phase = RUN_STOPPING;
                run->finish_deadline_ns = now + RUN_FINISH_GRACE_NS;
        }
        for (; run->hint_restored < run->n_agents; run->hint_restored++) {
                const run_agent_t *a = &run->agents[run->hint_restored];
                if (!a->server && !a->restored && !a->gone)
                        return;
        }
        for (size_t i = 0; i < run->n_agents; i++) {
                const run_agent_t *a = &run->agents[i];
                servers_left |= a->server && !a->done && !a->gone;
                any |= !a->server && a->done && !a->error[0];
        }
        if (servers_left) {
                if (!run->servers_stopped)
                        stop_servers(run, now, out);
                return;
        }
        /* A run in which no agent finished its part measured nothing: never report it ok. */
        if (!any && run->code == IOFLEET__ERROR_CODE__ERROR_NONE) {
                run->code = IOFLEET__ERROR_CODE__ERROR_IO;
                snprintf(run->message, sizeof(run->message),
                         "no agent finished its part (lost or failed)");
        }
        emit_ready(run, now, true, out);
        run->phase = RUN_DONE;
        /* The agents may forget everything they sent: the run is over. */
        for (size_t i = 0; i < run->n_agents; i++) {
                run_agent_t *a = &run->agents[i];
                if (!a->lost && a->rseq > a->rseq_acked)
                        run_push_ack(run, a, out);
        }
}

static void start_all(coord_run_t *run, int64_t now, run_out_t *out)
{
        run->start_ns = now + (int64_t)run->lead_ns;
        for (size_t i = 0; i < run->n_agents; i++) {
                run_agent_t *a = &run->agents[i];
                if (a->lost || a->gone || a->server || a->error[0])
                        continue;
                run_send_start(run, a, out);
        }
        if (run->max_intervals)
                run->stop_deadline_ns = run->start_ns +
                                        (int64_t)(run->max_intervals * run->interval_ns) +
                                        RUN_STOP_GRACE_NS;
        run->phase = RUN_STARTING;
}

/* Start skew: the spread of the achieved start instants. Agents on one kernel share
 * CLOCK_MONOTONIC, so their own readings show the true spread, free of offset estimates. */
bool run_shared_clock(const coord_run_t *run)
{
        bool shared = run->n_agents > 0;
        const char *boot = NULL;
        for (size_t i = 0; i < run->n_agents; i++) {
                if (run->agents[i].server)
                        continue;
                if (!boot)
                        boot = run->agents[i].boot_id;
                if (!run->agents[i].boot_id[0] || !streq(run->agents[i].boot_id, boot))
                        shared = false;
        }
        return shared;
}

static void compute_skew(coord_run_t *run)
{
        bool shared = run_shared_clock(run);
        int64_t lo = INT64_MAX, hi = INT64_MIN, wlo = INT64_MAX, whi = INT64_MIN;

        for (size_t i = 0; i < run->n_agents; i++) {
                run_agent_t *a = &run->agents[i];
                int64_t t, w;
                if (!a->started)
                        continue;
                t = shared ? a->host_mono_ns : a->start_ns;
                /* When each agent's last worker was running: the start as the storage sees it. */
                w = t + (int64_t)a->workers_lag_ns;
                lo = t < lo ? t : lo;
                hi = t > hi ? t : hi;
                wlo = w < wlo ? w : wlo;
                whi = w > whi ? w : whi;
        }
        run->skew_shared_clock = shared;
        run->start_skew_ns = hi >= lo ? (uint64_t)(hi - lo) : 0;
        run->start_skew_workers_ns = whi >= wlo ? (uint64_t)(whi - wlo) : 0;
}

/* Every agent given the start has started, or is away or failed: the run is running, and the
 * CLI hears the skew. */
static void check_all_started(coord_run_t *run, run_out_t *out)
{
        Iofleet__RunUpdate u = IOFLEET__RUN_UPDATE__INIT;
        bool any = false;

        if (run->phase != RUN_STARTING)
                return;
        for (; run->hint_started < run->n_agents; run->hint_started++) {
                const run_agent_t *a = &run->agents[run->hint_started];
                if (!a->server && !a->started && !a->lost && !a->gone && !a->error[0])
                        return;
        }
        for (size_t i = 0; i < run->n_agents; i++)
                any |= run->agents[i].started;
        if (!any)
                return;
        compute_skew(run);
        run->phase = RUN_RUNNING;
        u.kind = IOFLEET__RUN_UPDATE__KIND__KIND_STARTED;
        run_progress(run, &u);
        u.start_ns = run->start_ns;
        u.start_skew_ns = run->start_skew_ns;
        u.agents = run->n_agents;
        u.interval_ns = run->interval_ns;
        u.message = run->skew_shared_clock ? "shared clock" : "timeline";
        run_push_update(run, out, &u);
}

void run_fail_agent(coord_run_t *run, run_agent_t *a, Iofleet__ErrorCode code, const char *msg,
                    int64_t now, run_out_t *out)
{
        run_owed_drop(run, a);
        snprintf(a->error, sizeof(a->error), "%s", msg);
        run_owed_take(run, a);
        if (run->phase == RUN_PREPARING ||
            (run->phase == RUN_STARTING && code != IOFLEET__ERROR_CODE__ERROR_TIMEOUT)) {
                char why[1200];
                snprintf(why, sizeof(why), "agent %s: %s", a->name, msg);
                run_cancel(run, code, why, now, out);
                return;
        }
        /* Its Finished will not come: the run completes without waiting for its lease. */
        run_event(run, out, "agent %s failed: %s", a->name, msg);
        if (!a->done) {
                a->done = true;
                a->done_at = now;
                run_agent_due(run, a);
        }
        run_check_all(run, now, out);
}

/* Settings an agent reports in effect; later reports (teardown) add to and update earlier ones. */
static void keep_effective(run_agent_t *a, Iofleet__Setting **v, size_t n)
{
        for (size_t i = 0; i < n; i++)
                if (kv_set(&a->effective, v[i]->key, v[i]->value) < 0)
                        log_warning("agent %s: out of memory keeping its settings", a->name);
}

/* Servers ready: the clients get their Prepare. Everyone ready: the start instant goes out. */
static void check_all_prepared(coord_run_t *run, int64_t now, run_out_t *out)
{
        if (run->phase != RUN_PREPARING)
                return;
        if (!run->clients_prepare_sent) {
                bool served = false;
                for (size_t i = 0; i < run->n_agents; i++) {
                        const run_agent_t *a = &run->agents[i];
                        if (a->server && !a->prepared && !a->lost && !a->gone && !a->done)
                                return;
                        served |= a->server && a->prepared;
                }
                if (!served) {
                        run_cancel(run, IOFLEET__ERROR_CODE__ERROR_PREPARE,
                                   "the NFS server agent was lost before it was ready", now, out);
                        return;
                }
                run->clients_prepare_sent = true;
                /* The clients' own time to prepare starts now. */
                run->prepare_deadline_ns = now + (int64_t)run->prepare_timeout_ns;
                for (size_t i = 0; i < run->n_agents; i++)
                        if (!run->agents[i].server && !run->agents[i].lost &&
                            !run->agents[i].gone)
                                send_prepare(run, &run->agents[i], 0, out);
                return;
        }
        for (; run->hint_prepared < run->n_agents; run->hint_prepared++) {
                const run_agent_t *a = &run->agents[run->hint_prepared];
                if (!a->prepared && !a->lost && !a->gone && !a->done)
                        return;
        }
        start_all(run, now, out);
}

void run_check_all(coord_run_t *run, int64_t now, run_out_t *out)
{
        check_all_prepared(run, now, out);
        check_all_started(run, out);
        run_groups_check(run, now, out);
        check_all_finished(run, now, out);
}

/* Numbered run messages are taken in order only: a duplicate (a resend of what arrived) or one
 * after a gap (what came between was dropped while the link was down) is left, and the agent
 * gets an Ack to resend from. 0: take it; -EALREADY: leave it. */
static int take_in_order(coord_run_t *run, run_agent_t *a, uint64_t rseq, run_out_t *out)
{
        if (rseq == 0)
                return 0; /* not numbered: never resent, so never a duplicate */
        if (rseq == a->rseq + 1) {
                a->rseq = rseq;
                a->ack_owed = false;
                return 0;
        }
        /* One Ack per gap or run of duplicates, not one per message. */
        if (!a->ack_owed) {
                run_push_ack(run, a, out);
                a->ack_owed = true;
        }
        if (!run->replaying)
                log_debug("run %s: agent %s: run message %llu after %llu: %s", run->id, a->name,
                          (unsigned long long)rseq, (unsigned long long)a->rseq,
                          rseq <= a->rseq ? "a duplicate" : "a gap");
        return -EALREADY;
}

int run_on_message(coord_run_t *run, const char *agent_id, envelope_t **msg, int64_t now, run_out_t *out)
{
        run_agent_t *a = run_find_agent(run, agent_id);
        envelope_t *m = *msg;
        run_rec_t rec = {.type = RUN_REC_MSG, .now = now, .msg = m};

        /* Over: its result is being written from it, and nothing changes it any more. */
        if (!a || a->lost || run->phase == RUN_DONE)
                return -ESRCH;
        if (!streq(wire_run_id(m), run->id)) {
                /* An Error without a run id concerns this run too (the agent refused it). */
                if (m->body_case != IOFLEET__ENVELOPE__BODY_ERROR || !strempty(wire_run_id(m)))
                        return -ESRCH;
        }
        if (!wire_is_run_message(m))
                return -ESRCH;
        if (take_in_order(run, a, wire_run_seq(m), out) < 0)
                return -EALREADY;
        rec.rank = a->rank;
        run_keep_rec(run, &rec);
        if (a->gone) {
                /* Back after it was given up, while the run still goes on: it counts again. */
                run_owed_drop(run, a);
                a->gone = false;
                a->rejoined = true;
                run_owed_take(run, a);
                run_reset_hints(run);
        }
        switch (m->body_case) {
        case IOFLEET__ENVELOPE__BODY_PREPARED:
                a->prepared = true;
                a->offset_ns = m->prepared->offset_ns;
                a->rtt_ns = m->prepared->rtt_ns;
                keep_effective(a, m->prepared->effective, m->prepared->n_effective);
                if (a->server && !run->nfs_server[0]) {
                        const char *addr = kv_get(&a->effective, "address");
                        const char *path = kv_get(&a->effective, "export_path");
                        snprintf(run->nfs_server, sizeof(run->nfs_server), "%s", addr ? addr : "");
                        snprintf(run->nfs_export, sizeof(run->nfs_export), "%s", path ? path : "");
                }
                check_all_prepared(run, now, out);
                return 0;
        case IOFLEET__ENVELOPE__BODY_STARTED:
                a->started = true;
                a->start_ns = m->started->start_ns;
                a->host_mono_ns = m->started->host_mono_ns;
                a->workers_lag_ns = m->started->workers_lag_ns;
                check_all_started(run, out);
                return 0;
        case IOFLEET__ENVELOPE__BODY_INTERVAL:
                on_interval(run, a, m->interval, now, out);
                return 0;
        case IOFLEET__ENVELOPE__BODY_GROUP_READY:
                run_on_group_ready(run, a, m->group_ready, now, out);
                return 0;
        case IOFLEET__ENVELOPE__BODY_GROUP_STARTED:
                run_on_group_started(run, a, m->group_started, now, out);
                return 0;
        case IOFLEET__ENVELOPE__BODY_LOG_CHUNK:
                run_logs_chunk(run, a, m->log_chunk, now);
                /* An agent sends fio's logs a window at a time (64 messages); an Ack at the next
                 * sync (tens of ms) rather than the next heartbeat keeps them flowing */
                if (a->rseq - a->rseq_acked >= RUN_LOG_ACK_EVERY)
                        run_push_ack(run, a, out);
                return 0;
        case IOFLEET__ENVELOPE__BODY_FINISHED:
                if (a->finished)
                        return -EALREADY;
                run_owed_drop(run, a);
                a->done = true;
                a->done_at = now;
                if (m->finished->error && m->finished->error[0]) {
                        snprintf(a->error, sizeof(a->error), "%s", m->finished->error);
                        run_event(run, out, "agent %s failed: %s", a->name, a->error);
                }
                run_owed_take(run, a);
                keep_effective(a, m->finished->effective, m->finished->n_effective);
                /* A server's Finished comes after it put the server back. */
                if (a->server)
                        a->restored = true;
                a->finished = *msg; /* the result needs its totals and histograms */
                *msg = NULL;
                /* Its part is over: an Ack now lets it forget the lot. */
                if (m->finished->run_seq)
                        run_push_ack(run, a, out);
                /* A group waited for it no more. */
                run_groups_check(run, now, out);
                check_all_finished(run, now, out);
                return 0;
        case IOFLEET__ENVELOPE__BODY_RESTORED:
                keep_effective(a, m->restored->effective, m->restored->n_effective);
                if (!strempty(m->restored->error) && !run->replaying)
                        log_warning("run %s: agent %s could not put its host back: %s", run->id,
                                    a->name, m->restored->error);
                a->restored = true;
                if (m->restored->run_seq)
                        run_push_ack(run, a, out);
                check_all_finished(run, now, out);
                return 0;
        case IOFLEET__ENVELOPE__BODY_ERROR:
                /* A refusal outside any run of its own (BUSY, a bad Prepare) changed nothing. */
                if (!m->error->run_seq)
                        a->restored = true;
                else
                        run_push_ack(run, a, out);
                run_fail_agent(run, a, m->error->code, m->error->message, now, out);
                return 0;
        default:
                return -ESRCH;
        }
}

void run_cancel(coord_run_t *run, Iofleet__ErrorCode code, const char *why, int64_t now, run_out_t *out)
{
        run_rec_t rec = {.type = RUN_REC_CANCEL, .now = now, .text = why, .code = code};
        if (run->phase == RUN_DONE)
                return;
        run_keep_rec(run, &rec);
        if (run->code == IOFLEET__ERROR_CODE__ERROR_NONE) {
                /* A cancelled run must never read as a good one, whatever code came with it. */
                run->code = code != IOFLEET__ERROR_CODE__ERROR_NONE
                                ? code
                                : IOFLEET__ERROR_CODE__ERROR_INTERNAL;
                snprintf(run->message, sizeof(run->message), "%s", why);
        }
        run_event(run, out, "stopping: %s", why);
        /* Clients first; servers wait until the clients have put their hosts back. */
        for (size_t i = 0; i < run->n_agents; i++)
                if (!run->agents[i].done && !run->agents[i].gone && !run->agents[i].server)
                        run_send_stop(run, &run->agents[i], why, out);
        if (run->phase == RUN_PREPARING || run->phase == RUN_STARTING) {
                /* Nothing ran: there are no results to wait for, only hosts to put back. */
                for (size_t i = 0; i < run->n_agents; i++) {
                        run_agent_t *a = &run->agents[i];
                        if (a->server && a->prepare_sent)
                                continue;
                        run_owed_drop(run, a);
                        a->done = true;
                        if (!a->done_at)
                                a->done_at = now;
                        run_owed_take(run, a);
                }
        }
        if (run->phase != RUN_STOPPING) {
                run->phase = RUN_STOPPING;
                run->finish_deadline_ns = now + RUN_FINISH_GRACE_NS;
        }
        check_all_finished(run, now, out);
}

/* Deadlines of agents still connected: Started after the start instant, Finished after Stop,
 * Restored after Finished. */
/* Started is overdue: the agents that did not start are stopped and counted as failed. */
static void tick_start(coord_run_t *run, int64_t now, run_out_t *out)
{
        for (size_t i = 0; i < run->n_agents; i++) {
                run_agent_t *a = &run->agents[i];
                if (a->lost || a->gone || !a->start_sent || a->started || a->error[0])
                        continue;
                run_send_stop(run, a, "did not start", out);
                run_fail_agent(run, a, IOFLEET__ERROR_CODE__ERROR_TIMEOUT,
                               "no Started within 10s of the start instant", now, out);
        }
}

/* Restored is overdue from a client that said it finished: its put-back stays unknown. */
static void tick_restore(coord_run_t *run, int64_t now, run_out_t *out)
{
        bool changed = false;
        for (size_t i = 0; i < run->n_agents; i++) {
                run_agent_t *a = &run->agents[i];
                if (a->lost || a->gone || !a->done || a->restored ||
                    now < a->done_at + RUN_RESTORE_GRACE_NS)
                        continue;
                char why[128];
                snprintf(why, sizeof(why), "unknown: no word within %llds of its end",
                         (long long)(RUN_RESTORE_GRACE_NS / NSEC_PER_SEC));
                kv_set(&a->effective, "restored", why);
                a->restored = true;
                run_event(run, out, "agent %s did not say its host is put back within %llds",
                          a->name, (long long)(RUN_RESTORE_GRACE_NS / NSEC_PER_SEC));
                changed = true;
        }
        /* The servers may go now. */
        if (changed)
                check_all_finished(run, now, out);
}

void run_tick(coord_run_t *run, int64_t now, run_out_t *out)
{
        if (run->phase == RUN_DONE)
                return;
        if (run->phase == RUN_PREPARING && now >= run->prepare_deadline_ns) {
                char why[1024];
                size_t n = 0;
                int len = snprintf(why, sizeof(why), "no Prepared within %llus (prepare_timeout) from",
                                   (unsigned long long)(run->prepare_timeout_ns / NSEC_PER_SEC));
                for (size_t i = 0; i < run->n_agents && len < (int)sizeof(why) - 80; i++) {
                        const run_agent_t *a = &run->agents[i];
                        if (!a->prepare_sent || a->prepared || a->gone)
                                continue;
                        len += snprintf(why + len, sizeof(why) - len, "%s %s", n++ ? "," : "",
                                        a->name);
                }
                run_cancel(run, IOFLEET__ERROR_CODE__ERROR_TIMEOUT, why, now, out);
        }
        run_layout_tick(run, now, out);
        if (now >= run->agent_due_ns) {
                run_tick_away(run, now, out);
                tick_restore(run, now, out);
                agent_due_recompute(run);
        }
        if (run->phase == RUN_STARTING && now >= run->start_ns + RUN_START_GRACE_NS)
                tick_start(run, now, out);
        if (run->phase == RUN_RUNNING || run->phase == RUN_STOPPING)
                emit_ready(run, now, false, out);
        run_groups_tick(run, now, out);
        /* A group waiting for its agents has its own deadline; its release moves the end. */
        if (run->phase == RUN_RUNNING && now >= run->stop_deadline_ns && !run_groups_pending(run)) {
                run_event(run, out,
                          "runtime is over but not every agent has finished: stopping them");
                for (size_t i = 0; i < run->n_agents; i++)
                        if (!run->agents[i].done && !run->agents[i].gone && !run->agents[i].server)
                                run_send_stop(run, &run->agents[i], "runtime over", out);
                run->phase = RUN_STOPPING;
                run->finish_deadline_ns = now + RUN_FINISH_GRACE_NS;
        }
        if (run->phase == RUN_STOPPING && now >= run->finish_deadline_ns) {
                /* Connected agents that are stuck; those away have their orphan grace. */
                for (size_t i = 0; i < run->n_agents; i++) {
                        run_agent_t *a = &run->agents[i];
                        bool stuck = a->server ? run->servers_stopped && !a->done : !a->done;
                        if (!stuck || a->lost || a->gone)
                                continue;
                        run_owed_drop(run, a);
                        a->gone = true;
                        snprintf(a->error, sizeof(a->error),
                                 "did not finish within %llds of being stopped",
                                 (long long)(RUN_FINISH_GRACE_NS / NSEC_PER_SEC));
                        run_owed_take(run, a);
                }
                run->finish_deadline_ns = now + RUN_FINISH_GRACE_NS;
                check_all_finished(run, now, out);
        }
}

int64_t run_next_deadline(const coord_run_t *run)
{
        int64_t t = INT64_MAX;
        if (run->phase == RUN_DONE)
                return t;
        if (run->phase == RUN_PREPARING)
                t = run->prepare_deadline_ns < run_layout_deadline(run) ? run->prepare_deadline_ns
                                                                       : run_layout_deadline(run);
        if (run->phase == RUN_STARTING && run->start_ns + RUN_START_GRACE_NS < t)
                t = run->start_ns + RUN_START_GRACE_NS;
        if (run->phase == RUN_RUNNING || run->phase == RUN_STOPPING) {
                if (run->next_emit < run->n_civ &&
                    run_interval_end(run, run->next_emit) + emit_slack(run) < t)
                        t = run_interval_end(run, run->next_emit) + emit_slack(run);
                if (run->phase == RUN_RUNNING && run->stop_deadline_ns < t &&
                    !run_groups_pending(run))
                        t = run->stop_deadline_ns;
                if (run_groups_next_deadline(run) < t)
                        t = run_groups_next_deadline(run);
                if (run->phase == RUN_STOPPING && run->finish_deadline_ns < t)
                        t = run->finish_deadline_ns;
        }
        return run->agent_due_ns < t ? run->agent_due_ns : t;
}

bool run_collecting(const coord_run_t *run, int64_t now)
{
        size_t k = run->next_emit;
        int64_t end;
        if (run->phase != RUN_RUNNING && run->phase != RUN_STOPPING)
                return false;
        if (run->max_intervals && k >= run->max_intervals)
                return false;
        end = run_interval_end(run, k);
        return now >= end && now < end + emit_slack(run);
}

bool run_done(const coord_run_t *run)
{
        return run->phase == RUN_DONE;
}
