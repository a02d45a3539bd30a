/* The agent daemon: its one poll loop around the session, and the shell that does what its run's
 * state machine (agent-run.c) asks: host work, the runner, the timer, sending. */
#include "daemon.h"
#include "agent-enroll.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <systemd/sd-daemon.h>
#include <zmq.h>

#include "clock.h"
#include "engine.h"
#include "host.h"
#include "iosched.h"
#include "identity.h"
#include "intervals.h"
#include "keys.h"
#include "log.h"
#include "policy.h"
#include "run-queue.h"
#include "run-report.h"
#include "log-ship.h"
#include "runner.h"
#include "session.h"
#include "sock.h"
#include "util.h"
#include "wire.h"

/* A start further ahead than the longest lead (plus slack for clock error) is a bad instant. */
#define START_MAX_AHEAD_NS ((int64_t)(3600 + 60) * (int64_t)NSEC_PER_SEC)
/* Sent and not acknowledged this long: sent again. */
#define RESEND_NS (5 * (int64_t)NSEC_PER_SEC)
/* A Prepare that comes while the last run ends (its host put back, its last Ack on the way)
 * waits this long for it before it is refused BUSY. */
#define NEXT_PREPARE_WAIT_NS (5 * (int64_t)NSEC_PER_SEC)
/* At SIGTERM, the run's end (its host put back: an unmount may take a minute) gets this long. */
#define STOP_WAIT_NS (75 * (int64_t)NSEC_PER_SEC)

static void run_dir_of(const agent_daemon_t *ag, const char *run_id, char *buf, size_t len)
{
        snprintf(buf, len, "%s/runs/%s", ag->cfg->state_dir, run_id);
}

static void ctx_free(agent_daemon_t *ag)
{
        run_ctx_t *run = ag->run;
        if (!run)
                return;
        hostwork_free(&run->work);
        runner_destroy(&run->runner);
        logship_close(&run->ship);
        arun_free(&run->ar);
        wire_free(&run->prepare);
        kv_clear(&run->effective);
        runner_dir_done(&run->prev[0]);
        runner_dir_done(&run->prev[1]);
        if (run->tfd >= 0)
                close(run->tfd);
        free(run);
        ag->run = NULL;
        sd_notify(0, "STATUS=registered; idle");
}

static run_ctx_t *ctx_new(const char *run_id)
{
        run_ctx_t *run = calloc(1, sizeof(*run));
        if (!run)
                return NULL;
        snprintf(run->id, sizeof(run->id), "%s", run_id);
        run->tfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
        if (run->tfd < 0 || hostwork_new(&run->work) < 0 || runner_dir_init(&run->prev[0]) < 0 ||
            runner_dir_init(&run->prev[1]) < 0) {
                if (run->tfd >= 0)
                        close(run->tfd);
                hostwork_free(&run->work);
                runner_dir_done(&run->prev[0]);
                runner_dir_done(&run->prev[1]);
                free(run);
                return NULL;
        }
        return run;
}

static void arm_timer(run_ctx_t *run)
{
        int64_t t = arun_next_deadline(run->ar);
        struct itimerspec its = {{0, 0}, {0, 0}};
        if (t != INT64_MAX) {
                if (t <= 0)
                        t = 1;
                its.it_value.tv_sec = t / (int64_t)NSEC_PER_SEC;
                its.it_value.tv_nsec = t % (int64_t)NSEC_PER_SEC;
        }
        timerfd_settime(run->tfd, TFD_TIMER_ABSTIME, &its, NULL);
}

/* The client's runner, once its host is ready (the jobs' files live in its mount). */
static int make_runner(agent_daemon_t *ag, char *err, size_t errlen)
{
        run_ctx_t *run = ag->run;
        const Iofleet__Prepare *p = run->prepare->prepare;
        runner_params_t params = {.cfg = ag->cfg,
                                  .agent_name = ag->name,
                                  .rank = p->rank,
                                  .group_barrier = p->group_barrier,
                                  .log_bytes_max = p->fio_log_bytes_max};
        char work[4200], logs[4400];
        int r = 0;

        params.jobs = calloc(p->n_jobs + 1, sizeof(*params.jobs));
        if (!params.jobs)
                return errorf(err, errlen, -ENOMEM, "out of memory");
        if (ag->cfg->work_dir)
                snprintf(work, sizeof(work), "%s", ag->cfg->work_dir);
        else
                snprintf(work, sizeof(work), "%s/work", ag->cfg->state_dir);
        for (size_t i = 0; r >= 0 && i < p->n_jobs; i++) {
                if ((r = wire_job_spec(p->jobs[i], &params.jobs[i], err, errlen)) < 0)
                        break;
                params.n_jobs++;
                if ((r = host_job_defaults(p, run->mountpoint, &params.jobs[i], err, errlen)) < 0 ||
                    (r = policy_check_job(ag->cfg, &params.jobs[i], work, ag->name, err,
                                          errlen)) < 0)
                        break;
        }
        params.work_dir = work;
        run_dir_of(ag, run->id, logs, sizeof(logs) - sizeof(LOGSHIP_DIR) - 1);
        strcat(logs, "/" LOGSHIP_DIR);
        params.log_dir = logs;
        /* ioscheduler=: devices switched now (saved in the restore record, put back with the
         * sysctls and the mount when the run ends) */
        if (r >= 0)
                r = iosched_apply(ag->cfg, ag->restore, params.jobs, params.n_jobs, work, ag->name,
                                  &run->effective, err, errlen);
        if (r < 0) {
                for (size_t i = 0; i < params.n_jobs; i++)
                        job_spec_done(&params.jobs[i]);
                free(params.jobs);
                return r == -ENOMEM ? r : -EINVAL;
        }
        if (!ag->cfg->work_dir)
                mkdir(work, 0750);
        r = runner_new(&params, &run->runner, err, errlen);
        if (r >= 0)
                log_info("run %s: preparing %zu jobs, %zu workers (rank %u of %u)", run->id,
                         runner_njobs(run->runner), runner_workers(run->runner), p->rank,
                         p->nagents);
        return r;
}

static void start_host_work(agent_daemon_t *ag, hostwork_kind_t kind)
{
        run_ctx_t *run = ag->run;
        hostwork_job_t job = {.kind = kind,
                              .cfg = ag->cfg,
                              .restore = ag->restore,
                              .prepare = run->prepare ? run->prepare->prepare : NULL,
                              .effective = &run->effective,
                              .mountpoint = run->mountpoint,
                              .mplen = sizeof(run->mountpoint)};
        int r = hostwork_start(run->work, &job);
        if (r < 0) {
                arun_out_t out = {0};
                log_error("run %s: cannot start host work: %s", run->id, strerror(-r));
                if (kind == HOSTWORK_FORCE)
                        return; /* asked again in ARUN_FORCE_EVERY_NS */
                if (kind == HOSTWORK_TEARDOWN) {
                        /* No thread: do it here; the loop waits this once. */
                        int rc = host_teardown(ag->restore, &run->effective);
                        arun_host_done(run->ar, rc, clock_mono_ns(), &out);
                } else
                        arun_host_prepared(run->ar, r, "cannot start the host work (out of threads?)",
                                           clock_mono_ns(), &out);
                /* Rare: what it asks waits for the next turn of the loop. */
                for (size_t i = 0; i < out.coord.n; i++)
                        session_send_raw(ag, out.coord.items[i].buf, out.coord.items[i].len);
                outbox_done(&out.coord);
                return;
        }
        if (kind == HOSTWORK_SERVER)
                log_info("run %s: configuring the NFS server", run->id);
        sd_notifyf(0, "STATUS=run %s: %s", run->id,
                   kind == HOSTWORK_TEARDOWN ? "putting the host back"
                   : kind == HOSTWORK_FORCE  ? "workers blocked in I/O: forcing the mount"
                                             : "preparing the host");
}

/* Does what the run's state machine asked, sends what it made, and frees the run when it is
 * over. Loops while doing one thing asks for another (a failed runner, say). */
static void apply(agent_daemon_t *ag, arun_out_t *out)
{
        for (int round = 0; round < 8; round++) {
                run_ctx_t *run = ag->run;
                unsigned todo = out->todo;
                int64_t now = clock_mono_ns();
                char err[1024] = "";
                out->todo = 0;
                /* A registered session takes them; otherwise they wait in the run's queue. */
                if (ag->state == SESSION_REGISTERED)
                        for (size_t i = 0; i < out->coord.n; i++)
                                session_send_raw(ag, out->coord.items[i].buf,
                                                 out->coord.items[i].len);
                outbox_clear(&out->coord);
                if (!run)
                        return;
                if (todo & ARUN_DO_HOST)
                        start_host_work(ag, arun_is_server(run->ar) ? HOSTWORK_SERVER
                                                                     : HOSTWORK_CLIENT);
                if (todo & ARUN_DO_RUNNER) {
                        int r = make_runner(ag, err, sizeof(err));
                        if (r < 0) {
                                log_error("run %s: cannot prepare: %s", run->id,
                                          err[0] ? err : strerror(-r));
                                arun_fail(run->ar,
                                          r == -EINVAL ? IOFLEET__ERROR_CODE__ERROR_BAD_JOB
                                                       : IOFLEET__ERROR_CODE__ERROR_PREPARE,
                                          err[0] ? err : strerror(-r), now, out);
                        } else
                                sd_notifyf(0, "STATUS=run %s: preparing", run->id);
                }
                if (todo & ARUN_DO_BURST) {
                        session_start_burst(ag);
                        run->burst = true;
                }
                if ((todo & ARUN_DO_START) && run->runner) {
                        run->start_mono = out->start_mono;
                        if (runner_start_at(run->runner, out->start_mono) < 0)
                                arun_fail(run->ar, IOFLEET__ERROR_CODE__ERROR_INTERNAL,
                                          "cannot start the workers", now, out);
                        else
                                sd_notifyf(0, "STATUS=run %s: starting", run->id);
                }
                if ((todo & ARUN_DO_START_GROUP) && run->runner) {
                        run->group_mono = out->group_mono;
                        if (runner_start_group_at(run->runner, out->group, out->group_mono) < 0)
                                arun_fail(run->ar, IOFLEET__ERROR_CODE__ERROR_INTERNAL,
                                          "cannot start the group: it does not wait", now, out);
                }
                if ((todo & ARUN_DO_STOP) && run->runner)
                        runner_stop(run->runner);
                if (todo & ARUN_DO_FREE_RUNNER) {
                        runner_destroy(&run->runner);
                        run->burst = false;
                }
                if ((todo & ARUN_DO_FORCE) && run->mountpoint[0] && !hostwork_busy(run->work)) {
                        log_warning("run %s: workers still blocked in I/O on %s long after the "
                                    "stop (its server gone?): failing the mount's pending "
                                    "requests (umount -f)",
                                    run->id, run->mountpoint);
                        start_host_work(ag, HOSTWORK_FORCE);
                }
                if (todo & ARUN_DO_TEARDOWN) {
                        if (hostwork_busy(run->work))
                                run->teardown_next = true; /* after the forced unmount */
                        else
                                start_host_work(ag, HOSTWORK_TEARDOWN);
                }
                if (!out->todo && !out->coord.n)
                        break;
        }
        if (ag->run && arun_over(ag->run->ar) && !hostwork_busy(ag->run->work)) {
                log_info("run %s: everything delivered; done", ag->run->id);
                ctx_free(ag);
        } else if (ag->run)
                arm_timer(ag->run);
}

/* How a run of this agent keeps its messages (the run's directory is set by the caller). */
static arun_cfg_t run_cfg(agent_daemon_t *ag)
{
        return (arun_cfg_t){.pack = report_pack,
                            .user = ag,
                            .mem_bytes = RQUEUE_MEM_BYTES,
                            .resend_ns = RESEND_NS,
                            .boot_id = ag->ident.boot_id};
}

static void on_prepare(agent_daemon_t *ag, envelope_t **msg)
{
        const Iofleet__Prepare *p = (*msg)->prepare;
        arun_cfg_t cfg = run_cfg(ag);
        arun_out_t out = {0};
        char dir[4300];
        int r;

        if (ag->run) {
                arun_phase_t ph = arun_phase(ag->run->ar);
                char err[256];
                if (ph == ARUN_DONE) {
                        /* Only its last messages wait for an Ack: ask again now (an Ack, or the
                         * coordinator saying it closed that run, frees this agent). */
                        arun_out_t again = {0};
                        arun_resend(ag->run->ar, clock_mono_ns(), &again);
                        apply(ag, &again);
                        outbox_done(&again.coord);
                }
                /* The coordinator is done with the last run and this one follows it: while the
                 * host is put back (off the loop) or the last Ack is on its way, the Prepare
                 * waits (take_next_prepare()). */
                if (arun_ending(ag->run->ar) && !ag->next_prepare) {
                        ag->next_prepare = *msg;
                        *msg = NULL;
                        ag->next_prepare_until = clock_mono_ns() + NEXT_PREPARE_WAIT_NS;
                        return;
                }
                if (ag->run) {
                        if (ph == ARUN_DONE)
                                snprintf(err, sizeof(err),
                                         "busy: the last messages of run %s are not "
                                         "acknowledged yet",
                                         ag->run->id);
                        else
                                snprintf(err, sizeof(err), "busy with run %s", ag->run->id);
                        session_error(ag, IOFLEET__ERROR_CODE__ERROR_BUSY, p->run_id, err);
                        return;
                }
        }
        if (!(ag->run = ctx_new(p->run_id))) {
                session_error(ag, IOFLEET__ERROR_CODE__ERROR_INTERNAL, p->run_id, "out of memory");
                return;
        }
        log_set_field("RUN_ID", p->run_id);
        run_dir_of(ag, p->run_id, dir, sizeof(dir));
        cfg.dir = dir;
        if ((r = arun_new(p, &cfg, clock_mono_ns(), &out, &ag->run->ar)) < 0) {
                char err[512];
                snprintf(err, sizeof(err), "cannot keep the run in %s: %s", dir, strerror(-r));
                log_error("run %s: %s", p->run_id, err);
                session_error(ag, IOFLEET__ERROR_CODE__ERROR_PREPARE, p->run_id, err);
                ctx_free(ag);
                return;
        }
        ag->run->prepare = *msg;
        *msg = NULL;
        apply(ag, &out);
}

/* The Prepare that waited for the last run: taken once that run is freed, refused when it
 * waited too long (or dropped, with drop, when the session it came on is gone). */
static void take_next_prepare(agent_daemon_t *ag, bool drop)
{
        envelope_t *e = ag->next_prepare;
        char err[300];
        if (!e)
                return;
        if (!drop && ag->run && clock_mono_ns() < ag->next_prepare_until)
                return;
        ag->next_prepare = NULL;
        if (!drop && !ag->run)
                on_prepare(ag, &e);
        else if (!drop) {
                snprintf(err, sizeof(err), "busy: run %s is still ending (%s)", ag->run->id,
                         arun_phase_name(ag->run->ar));
                session_error(ag, IOFLEET__ERROR_CODE__ERROR_BUSY, e->prepare->run_id, err);
        }
        wire_free(&e);
}

/* The coordinator's instant, on this agent's clock, then on the kernel's monotonic: NULL, or
 * why it cannot be placed (why holds it). */
static const char *map_instant(agent_daemon_t *ag, int64_t at_ns, int64_t now, int64_t *mono, char *why,
                               size_t whylen)
{
        time_sample_t best = {};
        if (session_best_offset(ag, &best) < 0)
                return "no clock sample from the coordinator: cannot place the start";
        *mono = clock_local_to_mono(at_ns - best.offset_ns);
        if (*mono - now > START_MAX_AHEAD_NS) {
                snprintf(why, whylen,
                         "start instant %llds away: more than the longest lead (1h) allows",
                         (long long)((*mono - now) / (int64_t)NSEC_PER_SEC));
                return why;
        }
        return NULL;
}

static void on_start(agent_daemon_t *ag, const Iofleet__Start *s)
{
        run_ctx_t *run = ag->run;
        arun_out_t out = {0};
        int64_t mono = 0, now = clock_mono_ns();
        char why[160];
        const char *err;

        if (!run || !streq(run->id, s->run_id)) {
                session_error(ag, IOFLEET__ERROR_CODE__ERROR_INTERNAL, s->run_id,
                              "start for a run this agent has not prepared");
                return;
        }
        err = map_instant(ag, s->start_ns, now, &mono, why, sizeof(why));
        if (!err && mono <= now && arun_phase(run->ar) == ARUN_PREPARED)
                log_warning("run %s: start instant already passed by %lldns: starting now",
                            run->id, (long long)(now - mono));
        arun_on_start(run->ar, mono, err, now, &out);
        apply(ag, &out);
}

/* The cluster-wide stonewall: group s->group starts at the coordinator's instant. */
static void on_start_group(agent_daemon_t *ag, const Iofleet__StartGroup *s)
{
        run_ctx_t *run = ag->run;
        arun_out_t out = {0};
        int64_t mono = 0, now = clock_mono_ns();
        char why[160];
        const char *err;

        if (!run || !streq(run->id, s->run_id))
                return; /* a run already over here: nothing waits for it */
        err = map_instant(ag, s->start_ns, now, &mono, why, sizeof(why));
        if (!err && mono <= now && run->runner && runner_group_waiting(run->runner, NULL))
                log_warning("run %s: group %u's instant already passed by %lldns: starting now",
                            run->id, s->group, (long long)(now - mono));
        if (!err && mono <= 0)
                mono = now;
        arun_on_start_group(run->ar, s->group, mono, s->max_intervals, err, now, &out);
        apply(ag, &out);
        outbox_done(&out.coord);
}

/* A session from scratch: a fresh socket and handshake. A run carries on for its orphan grace
 * (its messages wait in its queue for the next session). */
static void reconnect(agent_daemon_t *ag)
{
        if (ag->run && ag->state == SESSION_REGISTERED) {
                arun_out_t out = {0};
                arun_session(ag->run->ar, false, clock_mono_ns(), &out);
                apply(ag, &out);
                outbox_done(&out.coord);
        }
        take_next_prepare(ag, true);
        session_close(ag);
        session_open(ag);
        sd_notify(0, "STATUS=reconnecting");
}

static void on_welcome(agent_daemon_t *ag, const Iofleet__Welcome *w)
{
        ag->state = SESSION_REGISTERED;
        ag->heartbeat_ns = (int64_t)w->heartbeat_ns;
        ag->lost_after = w->lost_after;
        ag->backoff_ns = BACKOFF_MIN_NS;
        ag->next_heartbeat = clock_mono_ns();
        log_info("registered with coordinator %s (version %s)%s%s", ag->cfg->coordinator,
                 w->coordinator_version, ag->run ? "; holding run " : "",
                 ag->run ? ag->run->id : "");
        /* With CURVE an agent is known by its key's name, whatever it calls itself. */
        if (!strempty(w->name) && !streq(w->name, ag->name)) {
                log_notice("the coordinator knows this agent as '%s' (the name of its key in the "
                           "coordinator's agent_keys_dir), not '%s'",
                           w->name, ag->name);
                snprintf(ag->key_name, sizeof(ag->key_name), "%s", w->name);
                ag->name = ag->key_name;
        }
        sd_notify(0, ag->run ? "STATUS=registered; in a run" : "STATUS=registered; idle");
        session_start_burst(ag);
        if (ag->run) {
                arun_out_t out = {0};
                /* The Ack that follows says where to resend from. */
                arun_session(ag->run->ar, true, clock_mono_ns(), &out);
                apply(ag, &out);
        }
}

static void on_error(agent_daemon_t *ag, const Iofleet__Error *e)
{
        switch (e->code) {
        case IOFLEET__ERROR_CODE__ERROR_NOT_REGISTERED:
                /* A restarted coordinator: the run carries on; hello again says which it is. */
                log_info("coordinator does not know us (restarted?): saying hello again");
                ag->backoff_ns = BACKOFF_MIN_NS;
                if (ag->state == SESSION_REGISTERED && ag->run) {
                        arun_out_t out = {0};
                        arun_session(ag->run->ar, false, clock_mono_ns(), &out);
                        apply(ag, &out);
                }
                session_hello(ag);
                break;
        case IOFLEET__ERROR_CODE__ERROR_UNKNOWN_RUN:
                if (ag->run && streq(ag->run->id, e->run_id ? e->run_id : "")) {
                        arun_out_t out = {0};
                        arun_unknown(ag->run->ar, e->message, clock_mono_ns(), &out);
                        apply(ag, &out);
                } else
                        log_warning("coordinator reports: %s", e->message);
                break;
        case IOFLEET__ERROR_CODE__ERROR_KEY_NOT_ALLOWED:
                /* A new handshake tells whether the key is still admitted. */
                log_error("coordinator dropped this agent: %s; reconnecting to %s", e->message,
                          ag->cfg->coordinator);
                reconnect(ag);
                break;
        case IOFLEET__ERROR_CODE__ERROR_PROTOCOL_VERSION:
        case IOFLEET__ERROR_CODE__ERROR_REFUSED: {
                char why[WIRE_MAX_TEXT + 64];
                snprintf(why, sizeof(why), "it refused this agent: %s", e->message);
                session_unreachable(ag, why);
                break;
        }
        default:
                log_warning("coordinator reports: %s", e->message);
        }
}

static void on_message(agent_daemon_t *ag, sock_msg_t *m, int64_t t4)
{
        envelope_t *e = NULL;
        arun_out_t out = {0};
        char err[512];
        int r = wire_decode(m->data, m->len, WIRE_MAX_AGENT_MSG, &e, err, sizeof(err));

        if (r == -EPROTO) {
                char why[1024];
                snprintf(why, sizeof(why), "it refused this agent: %s%s%s", err,
                         e->body_case == IOFLEET__ENVELOPE__BODY_ERROR ? ": " : "",
                         e->body_case == IOFLEET__ENVELOPE__BODY_ERROR ? e->error->message : "");
                session_unreachable(ag, why);
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
                on_welcome(ag, e->welcome);
                break;
        case IOFLEET__ENVELOPE__BODY_HEARTBEAT: {
                const Iofleet__Heartbeat *hb = e->heartbeat;
                time_sample_t s;
                if (hb->probe_t1 && hb->probe_t2 &&
                    clock_sample(hb->probe_t1, hb->probe_t2, hb->probe_t3, t4, &s) == 0)
                        clock_sync_add(&ag->sync, &s);
                if (hb->ack_upto && ag->run && streq(ag->run->id, hb->run_id)) {
                        arun_on_ack(ag->run->ar, hb->ack_upto, clock_mono_ns(), &out);
                        apply(ag, &out);
                }
                break;
        }
        case IOFLEET__ENVELOPE__BODY_TIME_REPLY: {
                time_sample_t s;
                if (clock_sample(e->time_reply->t1, e->time_reply->t2, e->time_reply->t3, t4, &s) ==
                    0)
                        clock_sync_add(&ag->sync, &s);
                break;
        }
        case IOFLEET__ENVELOPE__BODY_ERROR:
                on_error(ag, e->error);
                break;
        case IOFLEET__ENVELOPE__BODY_PREPARE:
                on_prepare(ag, &e);
                break;
        case IOFLEET__ENVELOPE__BODY_START:
                on_start(ag, e->start);
                break;
        case IOFLEET__ENVELOPE__BODY_START_GROUP:
                on_start_group(ag, e->start_group);
                break;
        case IOFLEET__ENVELOPE__BODY_STOP:
                if (ag->run && streq(ag->run->id, e->stop->run_id)) {
                        arun_on_stop(ag->run->ar, e->stop->reason, clock_mono_ns(), &out);
                        apply(ag, &out);
                }
                break;
        case IOFLEET__ENVELOPE__BODY_ACK:
                if (ag->run && streq(ag->run->id, e->ack->run_id)) {
                        arun_on_ack(ag->run->ar, e->ack->upto, clock_mono_ns(), &out);
                        apply(ag, &out);
                }
                break;
        default:
                log_warning("coordinator sent %s, which an agent does not expect",
                            wire_body_name(e));
        }
        wire_free(&e);
        outbox_done(&out.coord);
}

/* Runner events: laid out (then the clock burst), running, done. */
static void on_runner(agent_daemon_t *ag)
{
        run_ctx_t *run = ag->run;
        arun_out_t out = {0};
        runner_state_t st;
        int64_t now = clock_mono_ns();

        if (!run || !run->runner)
                return;
        st = runner_update(run->runner);
        if (st == RUNNER_FAILED) {
                log_error("run %s: preparation failed: %s", run->id, runner_error(run->runner));
                arun_fail(run->ar, IOFLEET__ERROR_CODE__ERROR_PREPARE, runner_error(run->runner),
                          now, &out);
        } else if (st == RUNNER_PREPARED && !run->burst) {
                arun_runner_prepared(run->ar, now, &out);
        } else if (st == RUNNER_RUNNING || st == RUNNER_DONE) {
                unsigned g;
                arun_runner_running(run->ar, now, &out);
                /* The cluster-wide stonewall: groups started, and the one waiting, if any. */
                for (g = 1; g < runner_groups(run->runner); g++)
                        if (runner_group_started_mono(run->runner, g))
                                arun_group_started(run->ar, g, now, &out);
                if (st == RUNNER_RUNNING && runner_group_waiting(run->runner, &g))
                        arun_group_waiting(run->ar, g, now, &out);
        }
        if (st == RUNNER_DONE) {
                arun_runner_done(run->ar, runner_last_done_mono(run->runner), now, &out);
        }
        apply(ag, &out);
        outbox_done(&out.coord);
}

static void on_host_work(agent_daemon_t *ag)
{
        run_ctx_t *run = ag->run;
        hostwork_kind_t kind;
        arun_out_t out = {0};
        char err[1024];
        int rc;
        if (!run || hostwork_collect(run->work, &kind, &rc, err, sizeof(err)) < 0)
                return;
        if (kind == HOSTWORK_FORCE) {
                /* EBUSY is the rule: the workers still hold their files, the requests failed. */
                log_info("run %s: umount -f %s: %s", run->id, run->mountpoint,
                         rc == 0 ? "unmounted" : err);
                if (run->teardown_next) {
                        run->teardown_next = false;
                        start_host_work(ag, HOSTWORK_TEARDOWN);
                }
                return;
        }
        if (kind == HOSTWORK_TEARDOWN)
                arun_host_done(run->ar, rc, clock_mono_ns(), &out);
        else {
                if (rc < 0)
                        log_error("run %s: cannot prepare the host: %s", run->id, err);
                arun_host_prepared(run->ar, rc, err, clock_mono_ns(), &out);
        }
        apply(ag, &out);
        outbox_done(&out.coord);
}

static void on_run_timer(agent_daemon_t *ag)
{
        uint64_t n;
        arun_out_t out = {0};
        if (!ag->run || read(ag->run->tfd, &n, sizeof(n)) < 0)
                return;
        arun_tick(ag->run->ar, clock_mono_ns(), &out);
        apply(ag, &out);
        outbox_done(&out.coord);
}

/* Prepared goes out when the workers are ready and the fresh probe burst is in (or timed out). */
static void check_burst(agent_daemon_t *ag)
{
        run_ctx_t *run = ag->run;
        arun_out_t out = {0};
        time_sample_t s = {};
        if (!run || !run->burst)
                return;
        if (clock_sync_best(&ag->sync, ag->burst_since, &s) < 0 &&
            clock_mono_ns() < ag->burst_deadline)
                return;
        if (ag->burst_left > 0 && clock_mono_ns() < ag->burst_deadline)
                return;
        run->burst = false;
        arun_clock_ready(run->ar, session_best_offset(ag, &s) == 0, clock_mono_ns(), &out);
        apply(ag, &out);
        outbox_done(&out.coord);
}

static void tick(agent_daemon_t *ag)
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
        session_check_reach(ag);
        if (ag->burst_left > 0 && now >= ag->next_burst_probe) {
                session_probe(ag);
                ag->burst_left--;
                ag->next_burst_probe = now + PROBE_BURST_GAP_NS;
        }
        check_burst(ag);
        if (ag->run && ag->run->runner)
                on_runner(ag);
}

static int64_t next_wakeup(const agent_daemon_t *ag)
{
        int64_t t = clock_mono_ns() + 200 * (int64_t)NSEC_PER_MSEC;
        if (ag->state != SESSION_REGISTERED && ag->next_hello < t)
                t = ag->next_hello;
        if (ag->state == SESSION_REGISTERED && ag->next_heartbeat < t)
                t = ag->next_heartbeat;
        if (ag->burst_left > 0 && ag->next_burst_probe < t)
                t = ag->next_burst_probe;
        if (ag->run && ag->run->burst && ag->burst_deadline < t)
                t = ag->burst_deadline;
        if (ag->next_prepare && ag->next_prepare_until < t)
                t = ag->next_prepare_until;
        return t;
}

/* A run an earlier life of the agent left in its state directory: what it did not deliver goes
 * to the coordinator at the next session. */
static void recover_run(agent_daemon_t *ag)
{
        char runs[4200], dir[4600], id[WIRE_MAX_ID + 1], phase[32];
        arun_cfg_t cfg = run_cfg(ag);
        arun_out_t out = {0};
        struct dirent *de;
        DIR *dp;
        snprintf(runs, sizeof(runs), "%s/runs", ag->cfg->state_dir);
        if (!(dp = opendir(runs)))
                return;
        while (!ag->run && (de = readdir(dp))) {
                if (de->d_name[0] == '.')
                        continue;
                snprintf(dir, sizeof(dir), "%s/%s", runs, de->d_name);
                if (arun_peek(dir, id, sizeof(id), phase, sizeof(phase)) < 0)
                        continue;
                if (!(ag->run = ctx_new(id)))
                        break;
                /* The start put the host back already: that is what the Restored says. */
                kv_set(&ag->run->effective, "restored",
                       restore_pending(ag->restore) ? "failed: see the agent's log" : "yes");
                cfg.dir = dir;
                if (arun_recover(&cfg, clock_mono_ns(), &out, &ag->run->ar) < 0) {
                        ctx_free(ag);
                        continue;
                }
                log_info("run %s: found from before a restart (phase %s): %llu messages for the "
                         "coordinator",
                         id, phase, (unsigned long long)arun_pending(ag->run->ar));
                /* Nothing to send before a session says where from. */
                arun_session(ag->run->ar, false, clock_mono_ns(), &out);
                arun_session(ag->run->ar, true, clock_mono_ns(), &out);
                outbox_clear(&out.coord);
                apply(ag, &out);
        }
        closedir(dp);
        outbox_done(&out.coord);
}

static int setup(agent_daemon_t *ag)
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
                enroll_result_t en;
                /* A token: the key is made and admitted first (agent/enroll.c). */
                if ((r = enroll_agent(cfg, ag->name, ag->ident.hostname, &en)) < 0)
                        return r;
                ag->enroll_pending = en.done && en.pending;
                /* -ENOKEY: a configuration to finish, not a failure a restart cures (exit 78). */
                if ((r = keys_load(cfg->key, true, &ag->kp, err, sizeof(err))) < 0)
                        return log_error_errno(-ENOKEY,
                                               "agent key: %s (make one with 'iofleet keygen')", err);
                if ((r = keys_load(cfg->coordinator_key, false, &ag->server, err, sizeof(err))) < 0)
                        return log_error_errno(-ENOKEY, "coordinator key: %s", err);
        }
        /* Before anything else: put back what a crashed predecessor left changed. */
        if ((r = host_open(cfg, &ag->restore)) < 0)
                return r;
        recover_run(ag);
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

static void on_signal(agent_daemon_t *ag)
{
        struct signalfd_siginfo si;
        while (read(ag->sigfd, &si, sizeof(si)) == sizeof(si)) {
                log_info("signal %d: stopping", (int)si.ssi_signo);
                if (ag->quit && !ag->stop_deadline)
                        continue;
                ag->quit = true;
                if (ag->run && !ag->stop_deadline) {
                        arun_out_t out = {0};
                        /* The run ends now; its host is put back first (below, in the loop). */
                        ag->stop_deadline = clock_mono_ns() + STOP_WAIT_NS;
                        arun_shutdown(ag->run->ar, clock_mono_ns(), &out);
                        apply(ag, &out);
                        outbox_done(&out.coord);
                } else if (ag->stop_deadline)
                        ag->stop_deadline = clock_mono_ns(); /* a second signal: now */
        }
}

/* The agent stops once its run (if any) has put the host back, or after STOP_WAIT_NS. */
static bool may_stop(agent_daemon_t *ag)
{
        int64_t now = clock_mono_ns();
        if (!ag->quit)
                return false;
        if (!ag->run || now >= ag->stop_deadline)
                return true;
        if (arun_phase(ag->run->ar) != ARUN_DONE)
                return false;
        /* Put back: a moment for the coordinator to acknowledge the last messages, which
         * otherwise wait in the state directory for the next start. */
        if (!ag->ack_wait_until)
                ag->ack_wait_until = now + (int64_t)NSEC_PER_SEC;
        return ag->state != SESSION_REGISTERED || now >= ag->ack_wait_until;
}

int daemon_run(const agent_config_t *cfg)
{
        agent_daemon_t ag = {.cfg = cfg, .sigfd = -1, .probe_fd = -1};
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

        while (!may_stop(&ag)) {
                run_ctx_t *run = ag.run;
                zmq_pollitem_t items[6] = {
                    {ag.sock, 0, ZMQ_POLLIN, 0},
                    {NULL, ag.sigfd, ZMQ_POLLIN, 0},
                    {ag.monitor, 0, ZMQ_POLLIN, 0},
                    {NULL, run && run->runner ? runner_fd(run->runner) : -1, ZMQ_POLLIN, 0},
                    {NULL, run ? run->tfd : -1, ZMQ_POLLIN, 0},
                    {NULL, run ? hostwork_fd(run->work) : -1, ZMQ_POLLIN, 0},
                };
                int64_t timeout = next_wakeup(&ag) - clock_mono_ns();
                log_set_field("RUN_ID", ag.run ? ag.run->id : NULL);
                if (!ag.monitor)
                        items[2] = (zmq_pollitem_t){NULL, -1, 0, 0};
                if (zmq_poll(items, 6, timeout > 0 ? timeout / (int64_t)NSEC_PER_MSEC + 1 : 0) <
                        0 &&
                    errno != EINTR) {
                        r = log_error_errno(-errno, "poll: %m");
                        break;
                }
                if (items[1].revents & ZMQ_POLLIN)
                        on_signal(&ag);
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
                /* The run may have ended (and been freed) while handling messages. */
                if (ag.run == run && (items[5].revents & ZMQ_POLLIN))
                        on_host_work(&ag);
                if (ag.run == run && (items[4].revents & ZMQ_POLLIN))
                        on_run_timer(&ag);
                if (ag.run == run && (items[3].revents & ZMQ_POLLIN))
                        on_runner(&ag);
                tick(&ag);
                take_next_prepare(&ag, ag.quit);
                if (watchdog_usec && clock_mono_ns() >= next_watchdog) {
                        sd_notify(0, "WATCHDOG=1");
                        next_watchdog = clock_mono_ns() + (int64_t)watchdog_usec * 1000 / 2;
                }
        }
        sd_notify(0, "STOPPING=1\nSTATUS=stopping");
        if (ag.run) {
                /* Out of time (or a second signal): whatever the run still had changed goes
                 * back now; what it made stays in its directory for the next start. Workers
                 * blocked on a mount whose server went away are let go first (umount -f fails
                 * its pending requests; EBUSY, as they hold their files, is expected). */
                if (ag.run->runner && ag.run->mountpoint[0] && !hostwork_busy(ag.run->work))
                        (void)umount2(ag.run->mountpoint, MNT_FORCE);
                runner_destroy(&ag.run->runner);
                hostwork_wait(ag.run->work);
                if (ag.restore && restore_pending(ag.restore))
                        host_teardown(ag.restore, &ag.run->effective);
                ctx_free(&ag);
        }
        take_next_prepare(&ag, true);
        session_goodbye(&ag, "the agent is stopping");
        restore_close(&ag.restore);
out:
        session_close(&ag);
        if (ag.ctx)
                zmq_ctx_term(ag.ctx);
        if (ag.sigfd >= 0)
                close(ag.sigfd);
        if (ag.probe_fd >= 0)
                close(ag.probe_fd);
        if (r == 0)
                log_info("agent stopped");
        return r;
}
