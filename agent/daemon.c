/* The agent daemon: its one poll loop, and its part of a run (prepare, start, intervals, finish).
 */
#include "daemon.h"

#include <errno.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <systemd/sd-daemon.h>
#include <zmq.h>

#include "clock.h"
#include "engine.h"
#include "host.h"
#include "identity.h"
#include "intervals.h"
#include "jobgroups.h"
#include "steadystate.h"
#include "keys.h"
#include "log.h"
#include "policy.h"
#include "runner.h"
#include "serve.h"
#include "session.h"
#include "sock.h"
#include "util.h"
#include "wire.h"

/* A start further ahead than the longest lead (plus slack for clock error) is a bad instant. */
#define START_MAX_AHEAD_NS ((int64_t)(3600 + 60) * (int64_t)NSEC_PER_SEC)

static void run_free(agent_t *ag)
{
        run_ctx_t *run = ag->run;
        if (!run)
                return;
        runner_destroy(&run->runner);
        /* Whatever ended the run, the mount and sysctls go back (after the workers are gone). */
        if (ag->restore && restore_pending(ag->restore))
                host_teardown(ag->restore, &run->effective);
        kv_clear(&run->effective);
        runner_dir_done(&run->prev[0]);
        runner_dir_done(&run->prev[1]);
        if (run->tfd >= 0)
                close(run->tfd);
        free(run);
        ag->run = NULL;
        sd_notify(0, "STATUS=registered; idle");
}

static int64_t timeline_of_mono(agent_t *ag, int64_t mono)
{
        time_sample_t s = {};
        session_best_offset(ag, &s);
        /* mono -> the agent's own clock (with any test offset) -> the coordinator timeline */
        return clock_local_ns() - clock_mono_ns() + mono + s.offset_ns;
}

/* One direction as it travels, with the memory its three histograms need. */
typedef struct dir_wire {
        Iofleet__DirStats pb;
        Iofleet__Hist h[4];
} dir_wire_t;

static Iofleet__Hist *hist_part(Iofleet__Hist *pb, const hist_t *now, const hist_t *before,
                                hist_t *delta)
{
        if (before)
                hist_delta(delta, now, before);
        else
                hist_snapshot(delta, now);
        return wire_hist_from(pb, delta) == 0 ? pb : NULL;
}

/* Fills w with now, or with now - before (an interval) when before is given. */
static void dir_wire_fill(dir_wire_t *w, const runner_dir_t *now, const runner_dir_t *before,
                          hist_t *delta)
{
        Iofleet__DirStats *pb = &w->pb;
        iofleet__dir_stats__init(pb);
        memset(w->h, 0, sizeof(w->h));
        pb->bytes = now->bytes - (before ? before->bytes : 0);
        pb->ios = now->ios - (before ? before->ios : 0);
        pb->errors = now->errors - (before ? before->errors : 0);
        pb->short_ios = now->short_ios - (before ? before->short_ios : 0);
        pb->issued = now->issued - (before ? before->issued : 0);
        pb->dropped = now->dropped - (before ? before->dropped : 0);
        pb->clat = hist_part(&w->h[0], now->clat, before ? before->clat : NULL, delta);
        pb->slat = hist_part(&w->h[1], now->slat, before ? before->slat : NULL, delta);
        pb->lat = hist_part(&w->h[2], now->lat, before ? before->lat : NULL, delta);
        pb->syncs = now->syncs - (before ? before->syncs : 0);
        pb->verify_errors = now->verify_errors - (before ? before->verify_errors : 0);
        if (now->sync_lat && now->sync_lat->n)
                pb->sync_lat =
                    hist_part(&w->h[3], now->sync_lat, before ? before->sync_lat : NULL, delta);
}

static void dir_wire_done(dir_wire_t *w)
{
        for (int i = 0; i < 4; i++)
                wire_hist_done(&w->h[i]);
}

/* Sends interval k: what every worker did since the previous one. */
static void send_interval(agent_t *ag, bool last)
{
        run_ctx_t *run = ag->run;
        envelope_t e = IOFLEET__ENVELOPE__INIT;
        Iofleet__Interval iv = IOFLEET__INTERVAL__INIT;
        dir_wire_t d[2];
        runner_dir_t now[2];
        hist_t *delta;

        if (runner_dir_init(&now[0]) < 0 || runner_dir_init(&now[1]) < 0 || hist_new(&delta) < 0) {
                runner_dir_done(&now[0]);
                runner_dir_done(&now[1]);
                return;
        }
        runner_totals(run->runner, now);
        for (int i = 0; i < 2; i++)
                dir_wire_fill(&d[i], &now[i], &run->prev[i], delta);
        iv.run_id = run->id;
        iv.index = (uint32_t)run->next_interval;
        iv.read = &d[0].pb;
        iv.write = &d[1].pb;
        iv.last = last;
        iv.meta_ops = runner_meta_ops_interval(run->runner);
        e.body_case = IOFLEET__ENVELOPE__BODY_INTERVAL;
        e.interval = &iv;
        session_send(ag, &e);
        for (int i = 0; i < 2; i++) {
                dir_wire_done(&d[i]);
                runner_dir_done(&run->prev[i]);
                run->prev[i] = now[i];
        }
        hist_free(&delta);
        run->next_interval++;
        sd_notifyf(0, "STATUS=run %s: interval %zu", run->id, run->next_interval);
}

static void arm_interval(run_ctx_t *run)
{
        int64_t t = run->start_mono + (int64_t)((run->next_interval + 1) * run->interval_ns);
        struct itimerspec its = {.it_value = {.tv_sec = t / (int64_t)NSEC_PER_SEC,
                                              .tv_nsec = t % (int64_t)NSEC_PER_SEC}};
        timerfd_settime(run->tfd, TFD_TIMER_ABSTIME, &its, NULL);
}

static void on_interval_timer(agent_t *ag)
{
        run_ctx_t *run = ag->run;
        uint64_t n;
        if (read(run->tfd, &n, sizeof(n)) < 0)
                return;
        /* The final interval of a timed run waits for the workers, so it holds their last I/Os. */
        if (run->max_intervals && run->next_interval + 1 >= run->max_intervals)
                return;
        send_interval(ag, false);
        arm_interval(run);
}

/* A metadata job's phases as they travel: one Phase per slot that ran, in slot order (the order
 * they run). */
typedef struct phases_wire {
        Iofleet__Phase pb[MD_SLOTS];
        Iofleet__Phase *ptr[MD_SLOTS];
        Iofleet__Hist h[MD_SLOTS];
        size_t n;
} phases_wire_t;

static int phases_wire_fill(phases_wire_t *pw, runner_t *runner, size_t job)
{
        metadata_phase_stats_t *st = malloc(sizeof(*st));
        int r = 0;

        memset(pw, 0, sizeof(*pw));
        if (!st)
                return -ENOMEM;
        for (int slot = 0; slot < MD_SLOTS; slot++) {
                Iofleet__Phase *ph = &pw->pb[pw->n];
                r = runner_job_phase(runner, job, slot, st);
                if (r < 0)
                        break;
                if (r == 0)
                        continue;
                iofleet__phase__init(ph);
                ph->name = (char *)metadata_slot_name(slot);
                ph->ops = st->ops;
                ph->errors = st->errors;
                ph->bytes = st->bytes;
                ph->elapsed_ns = st->elapsed_ns > 0 ? (uint64_t)st->elapsed_ns : 0;
                if ((r = wire_hist_from(&pw->h[pw->n], &st->lat)) < 0)
                        break;
                ph->lat = &pw->h[pw->n];
                pw->ptr[pw->n] = ph;
                pw->n++;
                r = 0;
        }
        free(st);
        return r;
}

static void phases_wire_done(phases_wire_t *pw)
{
        for (size_t i = 0; i < pw->n; i++)
                wire_hist_done(&pw->h[i]);
        pw->n = 0;
}

/* A job's steady-state block as it travels (fio's "steadystate"). */
typedef struct ss_wire {
        Iofleet__SteadyState pb;
        char ss[96], criterion[64];
        uint64_t *bw, *iops;
} ss_wire_t;

static Iofleet__SteadyState *ss_wire_fill(ss_wire_t *w, const steadystate_t *ss)
{
        iofleet__steady_state__init(&w->pb);
        ss_format(&ss->spec, w->ss, sizeof(w->ss));
        snprintf(w->criterion, sizeof(w->criterion), "%f%s", ss->criterion,
                 ss->spec.percent ? "%" : "");
        w->bw = calloc(ss->dur, sizeof(*w->bw));
        w->iops = calloc(ss->dur, sizeof(*w->iops));
        if (!w->bw || !w->iops)
                return NULL;
        w->pb.ss = w->ss;
        w->pb.criterion = w->criterion;
        w->pb.duration_s = ss->dur;
        w->pb.attained = ss->attained;
        w->pb.max_deviation = ss->deviation;
        w->pb.slope = ss->slope;
        w->pb.bw_mean = steadystate_mean(ss, false);
        w->pb.iops_mean = steadystate_mean(ss, true);
        w->pb.n_bw = w->pb.n_iops = steadystate_samples(ss, w->bw, w->iops);
        w->pb.bw = w->bw;
        w->pb.iops = w->iops;
        return &w->pb;
}

static void ss_wire_done(ss_wire_t *w)
{
        free(w->bw);
        free(w->iops);
        w->bw = w->iops = NULL;
}

/* Entries a job gets in Finished: one per clone, as fio reports without group_reporting, or one
 * for all its clones (group_reporting, and the metadata workload, whose phases merge). */
static unsigned entries_of(runner_t *r, size_t j)
{
        return runner_job_grouped(r, j) || runner_job_is_metadata(r, j) ? 1
                                                                        : runner_job_numjobs(r, j);
}

static void send_finished(agent_t *ag, const char *error)
{
        run_ctx_t *run = ag->run;
        size_t nj = runner_njobs(run->runner), n = 0, k = 0;
        envelope_t e = IOFLEET__ENVELOPE__INIT;
        Iofleet__Finished f = IOFLEET__FINISHED__INIT;
        Iofleet__JobResult *jr = NULL, **jp = NULL;
        dir_wire_t *ds = NULL;
        runner_dir_t *dirs = NULL;
        phases_wire_t *phases = NULL;
        ss_wire_t *ssw = NULL;
        hist_t *delta = NULL;

        for (size_t j = 0; j < nj; j++)
                n += entries_of(run->runner, j);
        jr = calloc(n, sizeof(*jr));
        jp = calloc(n, sizeof(*jp));
        ds = calloc(2 * n, sizeof(*ds));
        dirs = calloc(2 * n, sizeof(*dirs));
        phases = calloc(n, sizeof(*phases));
        ssw = calloc(n, sizeof(*ssw));
        if (!jr || !jp || !ds || !dirs || !phases || !ssw || hist_new(&delta) < 0)
                goto done;
        for (size_t j = 0; j < nj; j++) {
                unsigned clones = entries_of(run->runner, j);
                for (unsigned c = 0; c < clones; c++, k++) {
                        runner_job_result_t res;
                        runner_dir_init(&dirs[2 * k]);
                        runner_dir_init(&dirs[2 * k + 1]);
                        if (clones == 1 && runner_job_numjobs(run->runner, j) != 1)
                                runner_job_result(run->runner, j, &res, &dirs[2 * k]);
                        else
                                runner_clone_result(run->runner, j, c, &res, &dirs[2 * k]);
                        iofleet__job_result__init(&jr[k]);
                        jr[k].name = (char *)res.name;
                        jr[k].numjobs = clones == 1 ? res.numjobs : 1;
                        /* fio's job number for a clone's own entry; -1 for all clones merged */
                        jr[k].clone = clones == 1 && runner_job_numjobs(run->runner, j) != 1
                                          ? -1
                                          : (int32_t)c;
                        jr[k].runtime_ns = res.runtime_ns;
                        jr[k].first_done_ns = res.first_done_ns;
                        jr[k].last_done_ns = res.last_done_ns;
                        jr[k].error = res.error;
                        jr[k].error_offset = res.error_offset;
                        jr[k].end_syncs = res.end_syncs;
                        jr[k].groupid = res.groupid;
                        jr[k].start_ns = res.start_ns;
                        jr[k].first_error = res.first_error;
                        jr[k].total_err = res.total_err;
                        jr[k].error_msg = (char *)(res.errmsg ? res.errmsg : "");
                        if (runner_job_steadystate(run->runner, j))
                                jr[k].steadystate =
                                    ss_wire_fill(&ssw[k], runner_job_steadystate(run->runner, j));
                        for (int d = 0; d < 2; d++)
                                dir_wire_fill(&ds[2 * k + d], &dirs[2 * k + d], NULL, delta);
                        jr[k].read = &ds[2 * k].pb;
                        jr[k].write = &ds[2 * k + 1].pb;
                        if (runner_job_is_metadata(run->runner, j)) {
                                if (phases_wire_fill(&phases[k], run->runner, j) < 0)
                                        log_warning("run %s: job %s: no memory for its metadata "
                                                    "phases",
                                                    run->id, res.name);
                                jr[k].phases = phases[k].ptr;
                                jr[k].n_phases = phases[k].n;
                        }
                        jp[k] = &jr[k];
                        if (res.error && !error)
                                error = res.errmsg;
                }
        }
        f.run_id = run->id;
        f.jobs = jp;
        f.n_jobs = n;
        f.error = (char *)(error ? error : "");
        /* The mount and sysctls go back in run_free(), once the workers' files are closed. */
        e.body_case = IOFLEET__ENVELOPE__BODY_FINISHED;
        e.finished = &f;
        session_send_settings(ag, &e, &f.effective, &f.n_effective, &run->effective);
        log_info("run %s: finished%s%s", run->id, error ? ": " : "", error ? error : "");
done:
        for (size_t j = 0; dirs && ds && j < 2 * n; j++) {
                runner_dir_done(&dirs[j]);
                dir_wire_done(&ds[j]);
        }
        for (size_t j = 0; phases && j < n; j++)
                phases_wire_done(&phases[j]);
        for (size_t j = 0; ssw && j < n; j++)
                ss_wire_done(&ssw[j]);
        free(ssw);
        free(phases);
        hist_free(&delta);
        free(jr);
        free(jp);
        free(ds);
        free(dirs);
}

/* Prepared goes out when the workers are ready and the fresh probe burst is in (or timed out). */
static void maybe_prepared(agent_t *ag)
{
        run_ctx_t *run = ag->run;
        envelope_t e = IOFLEET__ENVELOPE__INIT;
        Iofleet__Prepared p = IOFLEET__PREPARED__INIT;
        time_sample_t s = {};

        if (run->prepared_sent)
                return;
        if (clock_sync_best(&ag->sync, ag->burst_since, &s) < 0 &&
            clock_mono_ns() < ag->burst_deadline)
                return;
        if (ag->burst_left > 0 && clock_mono_ns() < ag->burst_deadline)
                return;
        if (session_best_offset(ag, &s) < 0) {
                session_error(ag, IOFLEET__ERROR_CODE__ERROR_PREPARE, run->id,
                              "no clock probe answered by the coordinator within 500ms: cannot "
                              "place the start instant");
                run_free(ag);
                return;
        }
        p.run_id = run->id;
        p.offset_ns = s.offset_ns;
        p.rtt_ns = (uint64_t)s.rtt_ns;
        p.workers = (uint32_t)runner_workers(run->runner);
        e.body_case = IOFLEET__ENVELOPE__BODY_PREPARED;
        e.prepared = &p;
        session_send_settings(ag, &e, &p.effective, &p.n_effective, &run->effective);
        run->prepared_sent = true;
        log_info("run %s: prepared %u workers; clock offset %lldns (rtt %lldns)", run->id,
                 p.workers, (long long)s.offset_ns, (long long)s.rtt_ns);
}

static void on_runner(agent_t *ag)
{
        run_ctx_t *run = ag->run;
        runner_state_t st = runner_update(run->runner);

        if (st == RUNNER_FAILED) {
                log_error("run %s: preparation failed: %s", run->id, runner_error(run->runner));
                session_error(ag, IOFLEET__ERROR_CODE__ERROR_PREPARE, run->id,
                              runner_error(run->runner));
                run_free(ag);
                return;
        }
        if (st == RUNNER_PREPARED) {
                maybe_prepared(ag);
                return;
        }
        if ((st == RUNNER_RUNNING || st == RUNNER_DONE) && !run->started_sent) {
                envelope_t e = IOFLEET__ENVELOPE__INIT;
                Iofleet__Started s = IOFLEET__STARTED__INIT;
                int64_t at = runner_started_mono(run->runner);
                s.run_id = run->id;
                s.start_ns = timeline_of_mono(ag, at);
                s.host_mono_ns = at;
                s.workers_lag_ns = runner_workers_lag_ns(run->runner);
                e.body_case = IOFLEET__ENVELOPE__BODY_STARTED;
                e.started = &s;
                session_send(ag, &e);
                run->started_sent = true;
                log_info("run %s: started %+lldns from the instant, %zu workers%s", run->id,
                         (long long)(at - run->start_mono), runner_workers(run->runner),
                         runner_started_realtime(run->runner)
                             ? ""
                             : " (no real-time priority for the starter: less precise)");
        }
        if (st == RUNNER_DONE) {
                size_t last =
                    intervals_final(runner_last_done_mono(run->runner) - run->start_mono,
                                    run->interval_ns, run->max_intervals, run->next_interval);
                while (run->next_interval < last)
                        send_interval(ag, false);
                send_interval(ag, true);
                send_finished(ag, NULL);
                run_free(ag);
        }
}

static void on_prepare(agent_t *ag, const Iofleet__Prepare *p)
{
        runner_params_t params = {.cfg = ag->cfg, .agent_name = ag->name, .rank = p->rank};
        char err[1024] = "", work[4200];
        run_ctx_t *run;
        int r;

        if (ag->run || ag->serve) {
                snprintf(err, sizeof(err), "busy with run %s", ag->run ? ag->run->id : serve_run_id(ag));
                session_error(ag, IOFLEET__ERROR_CODE__ERROR_BUSY, p->run_id, err);
                return;
        }
        log_set_field("RUN_ID", p->run_id);
        if (streq(p->role, "server")) {
                serve_start(ag, p);
                return;
        }
        run = calloc(1, sizeof(*run));
        params.jobs = calloc(p->n_jobs, sizeof(*params.jobs));
        if (!run || !params.jobs) {
                free(run);
                free(params.jobs);
                session_error(ag, IOFLEET__ERROR_CODE__ERROR_INTERNAL, p->run_id, "out of memory");
                return;
        }
        run->tfd = -1;
        snprintf(run->id, sizeof(run->id), "%s", p->run_id);
        run->interval_ns = p->interval_ns;
        if (ag->cfg->work_dir)
                snprintf(work, sizeof(work), "%s", ag->cfg->work_dir);
        else
                snprintf(work, sizeof(work), "%s/work", ag->cfg->state_dir);
        /* Sysctls and the NFS mount first: the jobs' files live in the mount. */
        r = host_prepare_client(ag->cfg, ag->restore, p, run->mountpoint, sizeof(run->mountpoint),
                                &run->effective, err, sizeof(err));
        for (size_t i = 0; r >= 0 && i < p->n_jobs; i++) {
                if ((r = wire_job_spec(p->jobs[i], &params.jobs[i], err, sizeof(err))) < 0)
                        break;
                params.n_jobs++;
                if ((r = host_job_defaults(p, run->mountpoint, &params.jobs[i], err,
                                           sizeof(err))) < 0 ||
                    (r = policy_check_job(ag->cfg, &params.jobs[i], work, ag->name, err,
                                          sizeof(err))) < 0)
                        break;
        }
        if (params.n_jobs == p->n_jobs) {
                /* Groups run one after another: the run lasts their sum (0: open-ended). */
                run->runtime_ns = jobgroups_span(params.jobs, params.n_jobs);
                run->max_intervals = intervals_of_runtime(run->runtime_ns, run->interval_ns);
        }
        params.work_dir = work;
        if (r < 0 || params.n_jobs != p->n_jobs) {
                for (size_t i = 0; i < params.n_jobs; i++)
                        job_spec_done(&params.jobs[i]);
                free(params.jobs);
                r = -EINVAL;
        } else {
                if (!ag->cfg->work_dir)
                        mkdir(work, 0750);
                r = runner_new(&params, &run->runner, err, sizeof(err));
        }
        if (r >= 0 && (r = runner_dir_init(&run->prev[0])) >= 0 &&
            (r = runner_dir_init(&run->prev[1])) >= 0) {
                run->tfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
                if (run->tfd < 0)
                        r = -errno;
        }
        ag->run = run;
        if (r < 0) {
                log_error("run %s: cannot prepare: %s", p->run_id, err[0] ? err : strerror(-r));
                session_error(ag,
                              r == -EINVAL ? IOFLEET__ERROR_CODE__ERROR_BAD_JOB
                                           : IOFLEET__ERROR_CODE__ERROR_PREPARE,
                              p->run_id, err[0] ? err : strerror(-r));
                run_free(ag);
                return;
        }
        log_info("run %s: preparing %zu jobs, %zu workers (rank %u of %u)", run->id,
                 runner_njobs(run->runner), runner_workers(run->runner), p->rank, p->nagents);
        sd_notifyf(0, "STATUS=run %s: preparing", run->id);
        session_start_burst(ag);
}

static void on_start(agent_t *ag, const Iofleet__Start *s)
{
        run_ctx_t *run = ag->run;
        time_sample_t best = {};
        int64_t local, mono, now;
        int r;

        if (!run || !streq(run->id, s->run_id)) {
                session_error(ag, IOFLEET__ERROR_CODE__ERROR_INTERNAL, s->run_id,
                              "start for a run this agent has not prepared");
                return;
        }
        if (session_best_offset(ag, &best) < 0) {
                session_error(ag, IOFLEET__ERROR_CODE__ERROR_PREPARE, run->id,
                              "no clock sample from the coordinator: cannot place the start");
                run_free(ag);
                return;
        }
        /* The coordinator's instant, on this agent's clock, then on the kernel's monotonic. */
        local = s->start_ns - best.offset_ns;
        mono = clock_local_to_mono(local);
        now = clock_mono_ns();
        if (mono - now > START_MAX_AHEAD_NS) {
                char why[160];
                snprintf(why, sizeof(why),
                         "start instant %llds away: more than the longest lead (1h) allows",
                         (long long)((mono - now) / (int64_t)NSEC_PER_SEC));
                session_error(ag, IOFLEET__ERROR_CODE__ERROR_PREPARE, run->id, why);
                run_free(ag);
                return;
        }
        if (mono <= now)
                log_warning("run %s: start instant already passed by %lldns: starting now", run->id,
                            (long long)(now - mono));
        run->start_mono = mono;
        r = runner_start_at(run->runner, mono);
        if (r < 0) {
                session_error(ag, IOFLEET__ERROR_CODE__ERROR_INTERNAL, run->id, "cannot start");
                run_free(ag);
                return;
        }
        arm_interval(run);
        sd_notifyf(0, "STATUS=run %s: starting", run->id);
}

/* A session from scratch: any run stops (without a coordinator nobody collects its results, nor
 * tells a run's NFS server when the clients are done), then a fresh socket and handshake. */
static void reconnect(agent_t *ag)
{
        if (ag->run) {
                runner_stop(ag->run->runner);
                run_free(ag);
        }
        serve_abort(ag);
        session_close(ag);
        session_open(ag);
        sd_notify(0, "STATUS=reconnecting");
}

static void on_message(agent_t *ag, sock_msg_t *m, int64_t t4)
{
        envelope_t *e = NULL;
        char err[512];
        int r = wire_decode(m->data, m->len, WIRE_MAX_AGENT_MSG, &e, err, sizeof(err));

        if (r == -EPROTO) {
                log_error("coordinator %s refused: %s%s%s", ag->cfg->coordinator, err,
                          e->body_case == IOFLEET__ENVELOPE__BODY_ERROR ? ": " : "",
                          e->body_case == IOFLEET__ENVELOPE__BODY_ERROR ? e->error->message : "");
                wire_free(&e);
                return;
        }
        if (r < 0) {
                log_warning("bad message from the coordinator: %s", err);
                return;
        }
        ag->last_heard = clock_mono_ns();
        switch (e->body_case) {
        case IOFLEET__ENVELOPE__BODY_WELCOME:
                ag->state = SESSION_REGISTERED;
                ag->heartbeat_ns = (int64_t)e->welcome->heartbeat_ns;
                ag->lost_after = e->welcome->lost_after;
                ag->backoff_ns = BACKOFF_MIN_NS;
                ag->next_heartbeat = clock_mono_ns();
                log_info("registered with coordinator %s (version %s)", ag->cfg->coordinator,
                         e->welcome->coordinator_version);
                /* With CURVE an agent is known by its key's name, whatever it calls itself. */
                if (!strempty(e->welcome->name) && !streq(e->welcome->name, ag->name)) {
                        log_notice("the coordinator knows this agent as '%s' (the name of its "
                                   "key in the coordinator's agent_keys_dir), not '%s'",
                                   e->welcome->name, ag->name);
                        snprintf(ag->key_name, sizeof(ag->key_name), "%s", e->welcome->name);
                        ag->name = ag->key_name;
                }
                sd_notify(0, "STATUS=registered; idle");
                session_start_burst(ag);
                break;
        case IOFLEET__ENVELOPE__BODY_HEARTBEAT:
                break;
        case IOFLEET__ENVELOPE__BODY_TIME_REPLY: {
                time_sample_t s;
                if (clock_sample(e->time_reply->t1, e->time_reply->t2, e->time_reply->t3, t4, &s) ==
                    0)
                        clock_sync_add(&ag->sync, &s);
                break;
        }
        case IOFLEET__ENVELOPE__BODY_ERROR:
                switch (e->error->code) {
                case IOFLEET__ERROR_CODE__ERROR_NOT_REGISTERED:
                        log_info("coordinator does not know us (restarted?): saying hello again");
                        ag->backoff_ns = BACKOFF_MIN_NS;
                        if (ag->run) {
                                runner_stop(ag->run->runner);
                        }
                        session_hello(ag);
                        break;
                case IOFLEET__ERROR_CODE__ERROR_PROTOCOL_VERSION:
                case IOFLEET__ERROR_CODE__ERROR_REFUSED:
                        log_error("coordinator refused this agent: %s", e->error->message);
                        break;
                case IOFLEET__ERROR_CODE__ERROR_KEY_NOT_ALLOWED:
                        /* A new handshake tells whether the key is still admitted. */
                        log_error("coordinator dropped this agent: %s; reconnecting",
                                  e->error->message);
                        reconnect(ag);
                        wire_free(&e);
                        return;
                default:
                        log_warning("coordinator reports: %s", e->error->message);
                }
                break;
        case IOFLEET__ENVELOPE__BODY_PREPARE:
                on_prepare(ag, e->prepare);
                break;
        case IOFLEET__ENVELOPE__BODY_START:
                on_start(ag, e->start);
                break;
        case IOFLEET__ENVELOPE__BODY_STOP: {
                runner_state_t st;
                if (ag->serve && streq(serve_run_id(ag), e->stop->run_id))
                        serve_stop(ag, e->stop->reason);
                if (ag->run && streq(ag->run->id, e->stop->run_id)) {
                        log_info("run %s: stop: %s", ag->run->id, e->stop->reason);
                        runner_stop(ag->run->runner);
                        st = runner_update(ag->run->runner);
                        if (st == RUNNER_PREPARING || st == RUNNER_PREPARED)
                                /* Never started: nothing to report. */
                                run_free(ag);
                }
                break;
        }
        default:
                log_warning("coordinator sent %s, which an agent does not expect",
                            wire_body_name(e));
        }
        wire_free(&e);
}

static void tick(agent_t *ag)
{
        int64_t now = clock_mono_ns();

        if (ag->state != SESSION_REGISTERED && now >= ag->next_hello) {
                if (ag->state == SESSION_HELLO_SENT &&
                    now - ag->last_heard > 10 * (int64_t)NSEC_PER_SEC) {
                        /* A fresh socket, in case the old connection is wedged. */
                        session_close(ag);
                        if (session_open(ag) < 0)
                                return;
                }
                session_hello(ag);
        }
        if (ag->state == SESSION_REGISTERED) {
                if (now - ag->last_heard > ag->heartbeat_ns * (int64_t)ag->lost_after) {
                        log_warning(
                            "coordinator lost: nothing heard for %u heartbeats; reconnecting",
                            ag->lost_after);
                        reconnect(ag);
                        return;
                }
                if (now >= ag->next_heartbeat) {
                        session_heartbeat(ag);
                        ag->next_heartbeat = now + ag->heartbeat_ns;
                }
        }
        if (ag->burst_left > 0 && now >= ag->next_burst_probe) {
                session_probe(ag);
                ag->burst_left--;
                ag->next_burst_probe = now + PROBE_BURST_GAP_NS;
        }
        if (ag->run)
                on_runner(ag);
}

static int64_t next_wakeup(const agent_t *ag)
{
        int64_t t = clock_mono_ns() + 200 * (int64_t)NSEC_PER_MSEC;
        if (ag->state != SESSION_REGISTERED && ag->next_hello < t)
                t = ag->next_hello;
        if (ag->state == SESSION_REGISTERED && ag->next_heartbeat < t)
                t = ag->next_heartbeat;
        if (ag->burst_left > 0 && ag->next_burst_probe < t)
                t = ag->next_burst_probe;
        if (ag->run && !ag->run->prepared_sent && ag->burst_deadline < t)
                t = ag->burst_deadline;
        return t;
}

static int setup(agent_t *ag)
{
        const agent_config_t *cfg = ag->cfg;
        char err[1024];
        sigset_t mask;
        int r;

        if ((r = identity_load(cfg->state_dir, &ag->ident, err, sizeof(err))) < 0)
                return log_error_errno(r, "identity: %s", err);
        ag->name = cfg->name ? cfg->name : ag->ident.hostname;
        log_set_field("AGENT_ID", ag->ident.id);
        if (cfg->test_clock_offset_ns)
                log_warning("test hook: this agent's clock reads %+lldns off",
                            (long long)cfg->test_clock_offset_ns);
        clock_set_test_offset(cfg->test_clock_offset_ns);
        if (cfg->insecure)
                log_warning("insecure=true: CURVE is off; anyone on this host can impersonate the "
                            "coordinator to this agent");
        else {
                /* -ENOKEY: a configuration to finish, not a failure a restart cures (exit 78). */
                if ((r = keys_load(cfg->key, true, &ag->kp, err, sizeof(err))) < 0)
                        return log_error_errno(-ENOKEY, "agent key: %s (make one with 'iofleet keygen')",
                                               err);
                if ((r = keys_load(cfg->coordinator_key, false, &ag->server, err, sizeof(err))) < 0)
                        return log_error_errno(-ENOKEY, "coordinator key: %s", err);
        }
        /* Before anything else: put back what a crashed predecessor left changed. */
        if ((r = host_open(cfg, &ag->restore)) < 0)
                return r;
        ag->ctx = zmq_ctx_new();
        if (!ag->ctx)
                return -errno;
        ag->backoff_ns = BACKOFF_MIN_NS;
        if ((r = session_open(ag)) < 0)
                return r;
        sigemptyset(&mask);
        sigaddset(&mask, SIGTERM);
        sigaddset(&mask, SIGINT);
        sigprocmask(SIG_BLOCK, &mask, NULL);
        ag->sigfd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
        if (ag->sigfd < 0)
                return -errno;
        signal(SIGPIPE, SIG_IGN);
        return 0;
}

int daemon_run(const agent_config_t *cfg)
{
        agent_t ag = {.cfg = cfg, .sigfd = -1};
        uint64_t watchdog_usec = 0;
        int64_t next_watchdog = 0;
        int r;

        r = setup(&ag);
        if (r < 0)
                goto out;
        sd_watchdog_enabled(0, &watchdog_usec);
        log_info("agent %s (%s) ready: coordinator %s%s", ag.name, ag.ident.id, cfg->coordinator,
                 cfg->insecure ? " (INSECURE)" : "");
        sd_notify(0, "READY=1\nSTATUS=connecting");

        while (!ag.quit) {
                zmq_pollitem_t items[6] = {
                    {ag.sock, 0, ZMQ_POLLIN, 0},
                    {NULL, ag.sigfd, ZMQ_POLLIN, 0},
                    {ag.monitor, 0, ZMQ_POLLIN, 0},
                    {NULL, ag.run ? runner_fd(ag.run->runner) : -1, ZMQ_POLLIN, 0},
                    {NULL, ag.run ? ag.run->tfd : -1, ZMQ_POLLIN, 0},
                    {NULL, serve_fd(&ag), ZMQ_POLLIN, 0},
                };
                int n = 6;
                int64_t timeout = next_wakeup(&ag) - clock_mono_ns();
                log_set_field("RUN_ID", ag.run ? ag.run->id : ag.serve ? serve_run_id(&ag) : NULL);
                if (!ag.monitor)
                        items[2] = (zmq_pollitem_t){NULL, -1, 0, 0};
                if (zmq_poll(items, n, timeout > 0 ? timeout / (int64_t)NSEC_PER_MSEC + 1 : 0) <
                        0 &&
                    errno != EINTR) {
                        r = log_error_errno(-errno, "poll: %m");
                        break;
                }
                if (items[1].revents & ZMQ_POLLIN) {
                        struct signalfd_siginfo si;
                        while (read(ag.sigfd, &si, sizeof(si)) == sizeof(si)) {
                                log_info("signal %d: stopping", (int)si.ssi_signo);
                                ag.quit = true;
                        }
                }
                if (items[5].revents & ZMQ_POLLIN)
                        serve_on_event(&ag);
                if (ag.monitor && (items[2].revents & ZMQ_POLLIN))
                        session_on_monitor(&ag);
                for (int i = 0; i < 100 && (items[0].revents & ZMQ_POLLIN) && ag.sock; i++) {
                        sock_msg_t m;
                        int64_t t4;
                        if (sock_recv(ag.sock, false, &m) < 0)
                                break;
                        t4 = clock_local_ns();
                        on_message(&ag, &m, t4);
                        sock_msg_done(&m);
                }
                if (ag.run && (items[4].revents & ZMQ_POLLIN))
                        on_interval_timer(&ag);
                if (ag.run && (items[3].revents & ZMQ_POLLIN))
                        on_runner(&ag);
                tick(&ag);
                if (watchdog_usec && clock_mono_ns() >= next_watchdog) {
                        sd_notify(0, "WATCHDOG=1");
                        next_watchdog = clock_mono_ns() + (int64_t)watchdog_usec * 1000 / 2;
                }
        }
        sd_notify(0, "STOPPING=1\nSTATUS=stopping");
        if (ag.run) {
                session_error(&ag, IOFLEET__ERROR_CODE__ERROR_CANCELLED, ag.run->id,
                              "the agent is stopping");
                runner_stop(ag.run->runner);
                run_free(&ag);
        }
        if (ag.serve) {
                session_error(&ag, IOFLEET__ERROR_CODE__ERROR_CANCELLED, serve_run_id(&ag),
                              "the agent is stopping");
                serve_abort(&ag);
        }
        restore_close(&ag.restore);
out:
        session_close(&ag);
        if (ag.ctx)
                zmq_ctx_term(ag.ctx);
        if (ag.sigfd >= 0)
                close(ag.sigfd);
        if (r == 0)
                log_info("agent stopped");
        return r;
}
