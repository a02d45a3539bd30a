/* What an agent reports of its run: Prepared, Started, Interval, Finished and Restored, packed
 * from its runner, its clock and its host's settings when the run's state machine asks. */
#include "run-report.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-daemon.h>

#include "clock.h"
#include "diskstats.h"
#include "log-ship.h"
#include "log.h"
#include "steadystate.h"
#include "util.h"

/* Run messages carry their run number; the session's sequence is for live messages only. */
static int encode(envelope_t *e, uint8_t **buf, size_t *len)
{
        e->seq = 0;
        return wire_encode(e, buf, len);
}

static int encode_settings(envelope_t *e, Iofleet__Setting ***field, size_t *n,
                           const kvlist_t *kv, uint8_t **buf, size_t *len)
{
        Iofleet__Setting **sp = NULL, *sv = wire_settings(kv, &sp);
        int r;
        if (!sv)
                return -ENOMEM;
        *field = sp;
        *n = kv->n;
        r = encode(e, buf, len);
        *field = NULL;
        *n = 0;
        free(sv);
        free(sp);
        return r;
}

static int64_t timeline_of_mono(agent_daemon_t *ag, int64_t mono)
{
        time_sample_t s = {};
        session_best_offset(ag, &s);
        /* mono -> the agent's own clock (with any test offset) -> the coordinator timeline */
        return clock_local_ns() - clock_mono_ns() + mono + s.offset_ns;
}

static int pack_prepared(agent_daemon_t *ag, run_ctx_t *run, const arun_pack_t *p, uint8_t **buf,
                         size_t *len)
{
        envelope_t e = IOFLEET__ENVELOPE__INIT;
        Iofleet__Prepared m = IOFLEET__PREPARED__INIT;
        time_sample_t s = {};
        session_best_offset(ag, &s);
        m.run_id = (char *)p->run_id;
        m.run_seq = p->run_seq;
        m.offset_ns = s.offset_ns;
        m.rtt_ns = (uint64_t)s.rtt_ns;
        m.workers = run->runner ? (uint32_t)runner_workers(run->runner) : 0;
        e.body_case = IOFLEET__ENVELOPE__BODY_PREPARED;
        e.prepared = &m;
        if (run->runner)
                log_info("run %s: prepared %u workers; clock offset %lldns (rtt %lldns)",
                         run->id, m.workers, (long long)s.offset_ns, (long long)s.rtt_ns);
        else
                log_info("run %s: NFS server configured: %s", run->id,
                         kv_get(&run->effective, "export") ? kv_get(&run->effective, "export")
                                                           : "");
        return encode_settings(&e, &m.effective, &m.n_effective, &run->effective, buf, len);
}

static int pack_started(agent_daemon_t *ag, run_ctx_t *run, const arun_pack_t *p, uint8_t **buf,
                        size_t *len)
{
        envelope_t e = IOFLEET__ENVELOPE__INIT;
        Iofleet__Started s = IOFLEET__STARTED__INIT;
        int64_t at = runner_started_mono(run->runner);
        s.run_id = (char *)p->run_id;
        s.run_seq = p->run_seq;
        s.start_ns = timeline_of_mono(ag, at);
        s.host_mono_ns = at;
        s.workers_lag_ns = runner_workers_lag_ns(run->runner);
        e.body_case = IOFLEET__ENVELOPE__BODY_STARTED;
        e.started = &s;
        log_info("run %s: started %+lldns from the instant, %zu workers%s", run->id,
                 (long long)(at - run->start_mono), runner_workers(run->runner),
                 runner_started_realtime(run->runner)
                     ? ""
                     : " (no real-time priority for the starter: less precise)");
        return encode(&e, buf, len);
}

/* Interval k: what every worker did since the previous one. */
static int pack_interval(run_ctx_t *run, arun_pack_t *p, uint8_t **buf, size_t *len)
{
        envelope_t e = IOFLEET__ENVELOPE__INIT;
        Iofleet__Interval iv = IOFLEET__INTERVAL__INIT;
        wire_dir_t d[2];
        runner_dir_t now[2];
        hist_t *delta = NULL;
        int r;

        if (!run->runner)
                return -ENODEV;
        if ((r = runner_dir_init(&now[0])) < 0 || (r = runner_dir_init(&now[1])) < 0 ||
            (r = hist_new(&delta)) < 0) {
                runner_dir_done(&now[0]);
                runner_dir_done(&now[1]);
                return r;
        }
        runner_totals(run->runner, now);
        for (int i = 0; i < 2; i++)
                wire_dir_fill(&d[i], &now[i], &run->prev[i], delta);
        iv.run_id = (char *)p->run_id;
        iv.run_seq = p->run_seq;
        iv.index = (uint32_t)p->interval;
        iv.read = &d[0].pb;
        iv.write = &d[1].pb;
        iv.last = p->last;
        iv.meta_ops = runner_meta_ops_interval(run->runner);
        e.body_case = IOFLEET__ENVELOPE__BODY_INTERVAL;
        e.interval = &iv;
        r = encode(&e, buf, len);
        for (int i = 0; i < 2; i++) {
                wire_dir_done(&d[i]);
                runner_dir_done(&run->prev[i]);
                run->prev[i] = now[i];
        }
        hist_free(&delta);
        /* The agent's own count of what its workers did, as its intervals report it. */
        p->read_bytes = run->prev[0].bytes;
        p->write_bytes = run->prev[1].bytes;
        sd_notifyf(0, "STATUS=run %s: interval %zu", run->id, p->interval + 1);
        return r;
}

/* A metadata job's phases as they travel: one Phase per slot that ran, in slot order. */
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

/* Entries a job gets in Finished: one per clone, as fio reports without group_reporting, or one
 * for all its clones (group_reporting, and the metadata workload, whose phases merge). */
static unsigned entries_of(runner_t *r, size_t j)
{
        return runner_job_grouped(r, j) || runner_job_is_metadata(r, j) ? 1
                                                                        : runner_job_numjobs(r, j);
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

/* fio's disk_util of the agent: the devices under its files, as they travel. */
typedef struct disks_wire {
        Iofleet__DiskUtil pb[DISKS_MAX];
        Iofleet__DiskUtil *ptr[DISKS_MAX];
        size_t n;
} disks_wire_t;

static void disks_wire_fill(disks_wire_t *w, const disks_t *d)
{
        w->n = 0;
        for (size_t i = 0; i < disks_count(d) && w->n < DISKS_MAX; i++) {
                const disk_util_t *u = disks_get(d, i);
                Iofleet__DiskUtil *pb = &w->pb[w->n];
                iofleet__disk_util__init(pb);
                pb->name = (char *)u->name;
                pb->master = (char *)u->master;
                pb->read_ios = u->v[DS_RD_IOS];
                pb->write_ios = u->v[DS_WR_IOS];
                pb->read_merges = u->v[DS_RD_MERGES];
                pb->write_merges = u->v[DS_WR_MERGES];
                pb->read_sectors = u->v[DS_RD_SECTORS];
                pb->write_sectors = u->v[DS_WR_SECTORS];
                pb->read_ticks = u->v[DS_RD_TICKS];
                pb->write_ticks = u->v[DS_WR_TICKS];
                pb->io_ticks = u->v[DS_IO_TICKS];
                pb->in_queue = u->v[DS_IN_QUEUE];
                pb->msec = u->msec;
                w->ptr[w->n++] = pb;
        }
}

static int pack_finished(run_ctx_t *run, const arun_pack_t *p, uint8_t **buf, size_t *len)
{
        size_t nj = run->runner ? runner_njobs(run->runner) : 0, n = 0, k = 0;
        envelope_t e = IOFLEET__ENVELOPE__INIT;
        Iofleet__Finished f = IOFLEET__FINISHED__INIT;
        Iofleet__JobResult *jr = NULL, **jp = NULL;
        wire_dir_t *ds = NULL;
        runner_dir_t *dirs = NULL;
        phases_wire_t *phases = NULL;
        ss_wire_t *ssw = NULL;
        disks_wire_t *dw = NULL;
        wire_fio_t *fw = NULL;
        runner_job_result_t *res = NULL;
        hist_t *delta = NULL;
        const char *error = strempty(p->error) ? NULL : p->error;
        int r = -ENOMEM;

        for (size_t j = 0; j < nj; j++)
                n += entries_of(run->runner, j);
        jr = calloc(n + 1, sizeof(*jr));
        jp = calloc(n + 1, sizeof(*jp));
        ds = calloc(2 * n + 1, sizeof(*ds));
        dirs = calloc(2 * n + 1, sizeof(*dirs));
        phases = calloc(n + 1, sizeof(*phases));
        ssw = calloc(n + 1, sizeof(*ssw));
        fw = calloc(n + 1, sizeof(*fw));
        dw = calloc(1, sizeof(*dw));
        res = calloc(n + 1, sizeof(*res));
        if (!jr || !jp || !ds || !dirs || !phases || !ssw || !fw || !res || !dw ||
            hist_new(&delta) < 0)
                goto done;
        for (size_t j = 0; j < nj; j++) {
                unsigned clones = entries_of(run->runner, j);
                for (unsigned c = 0; c < clones; c++, k++) {
                        runner_dir_init(&dirs[2 * k]);
                        runner_dir_init(&dirs[2 * k + 1]);
                        if (clones == 1 && runner_job_numjobs(run->runner, j) != 1)
                                runner_job_result(run->runner, j, &res[k], &dirs[2 * k]);
                        else
                                runner_clone_result(run->runner, j, c, &res[k], &dirs[2 * k]);
                        iofleet__job_result__init(&jr[k]);
                        jr[k].name = (char *)res[k].name;
                        jr[k].numjobs = clones == 1 ? res[k].numjobs : 1;
                        /* fio's job number for a clone's own entry; -1 for all clones merged */
                        jr[k].clone = clones == 1 && runner_job_numjobs(run->runner, j) != 1
                                          ? -1
                                          : (int32_t)c;
                        jr[k].runtime_ns = res[k].runtime_ns;
                        jr[k].first_done_ns = res[k].first_done_ns;
                        jr[k].last_done_ns = res[k].last_done_ns;
                        jr[k].error = res[k].error;
                        jr[k].error_offset = res[k].error_offset;
                        jr[k].end_syncs = res[k].end_syncs;
                        jr[k].groupid = res[k].groupid;
                        jr[k].start_ns = res[k].start_ns;
                        jr[k].first_error = res[k].first_error;
                        jr[k].total_err = res[k].total_err;
                        jr[k].fio = wire_fio_fill(&fw[k], &res[k].fio);
                        jr[k].error_msg = (char *)(res[k].errmsg ? res[k].errmsg : "");
                        if (runner_job_steadystate(run->runner, j))
                                jr[k].steadystate =
                                    ss_wire_fill(&ssw[k], runner_job_steadystate(run->runner, j));
                        for (int d = 0; d < 2; d++)
                                wire_dir_fill(&ds[2 * k + d], &dirs[2 * k + d], NULL, delta);
                        jr[k].read = &ds[2 * k].pb;
                        jr[k].write = &ds[2 * k + 1].pb;
                        if (runner_job_is_metadata(run->runner, j)) {
                                if (phases_wire_fill(&phases[k], run->runner, j) < 0)
                                        log_warning("run %s: job %s: no memory for its metadata "
                                                    "phases",
                                                    run->id, res[k].name);
                                jr[k].phases = phases[k].ptr;
                                jr[k].n_phases = phases[k].n;
                        }
                        jp[k] = &jr[k];
                        if (res[k].error && !error)
                                error = res[k].errmsg;
                }
        }
        f.run_id = (char *)p->run_id;
        f.run_seq = p->run_seq;
        f.intervals = p->intervals;
        f.jobs = jp;
        f.n_jobs = n;
        f.error = (char *)(error ? error : "");
        if (run->runner) {
                disks_wire_fill(dw, runner_disks(run->runner));
                f.disk_util = dw->ptr;
                f.n_disk_util = dw->n;
        }
        e.body_case = IOFLEET__ENVELOPE__BODY_FINISHED;
        e.finished = &f;
        r = encode_settings(&e, &f.effective, &f.n_effective, &run->effective, buf, len);
        if (run->runner)
                log_info("run %s: finished after %u intervals: read %llu bytes, wrote %llu bytes "
                         "(the agent's own count)%s%s",
                         run->id, p->intervals, (unsigned long long)run->prev[0].bytes,
                         (unsigned long long)run->prev[1].bytes, error ? ": " : "",
                         error ? error : "");
done:
        for (size_t j = 0; dirs && ds && j < 2 * n; j++) {
                runner_dir_done(&dirs[j]);
                wire_dir_done(&ds[j]);
        }
        for (size_t j = 0; phases && j < n; j++)
                phases_wire_done(&phases[j]);
        for (size_t j = 0; ssw && j < n; j++)
                ss_wire_done(&ssw[j]);
        free(ssw);
        free(fw);
        free(res);
        free(dw);
        free(phases);
        hist_free(&delta);
        free(jr);
        free(jp);
        free(ds);
        free(dirs);
        return r;
}

static int pack_restored(run_ctx_t *run, const arun_pack_t *p, uint8_t **buf, size_t *len)
{
        envelope_t e = IOFLEET__ENVELOPE__INIT;
        Iofleet__Restored m = IOFLEET__RESTORED__INIT;
        m.run_id = (char *)p->run_id;
        m.run_seq = p->run_seq;
        m.error = (char *)(p->error ? p->error : "");
        e.body_case = IOFLEET__ENVELOPE__BODY_RESTORED;
        e.restored = &m;
        log_info("run %s: host put back: %s", run->id,
                 kv_get(&run->effective, "restored") ? kv_get(&run->effective, "restored") : "yes");
        return encode_settings(&e, &m.effective, &m.n_effective, &run->effective, buf, len);
}

/* How far the runner's layout is; -ENOENT without a runner. */
static int pack_layout(run_ctx_t *run, arun_pack_t *p, uint8_t **buf, size_t *len)
{
        envelope_t e = IOFLEET__ENVELOPE__INIT;
        Iofleet__LayoutProgress m = IOFLEET__LAYOUT_PROGRESS__INIT;
        if (!run->runner)
                return -ENOENT;
        runner_layout_progress(run->runner, &p->layout_done, &p->layout_total);
        m.run_id = (char *)p->run_id;
        m.done_bytes = p->layout_done;
        m.total_bytes = p->layout_total;
        e.body_case = IOFLEET__ENVELOPE__BODY_LAYOUT_PROGRESS;
        e.layout_progress = &m;
        return encode(&e, buf, len);
}

/* The cluster-wide stonewall: group p->group laid out and waiting. */
static int pack_group_ready(run_ctx_t *run, const arun_pack_t *p, uint8_t **buf, size_t *len)
{
        envelope_t e = IOFLEET__ENVELOPE__INIT;
        Iofleet__GroupReady m = IOFLEET__GROUP_READY__INIT;
        m.run_id = (char *)p->run_id;
        m.run_seq = p->run_seq;
        m.group = p->group;
        e.body_case = IOFLEET__ENVELOPE__BODY_GROUP_READY;
        e.group_ready = &m;
        log_info("run %s: group %u laid out; waiting for every agent to end group %u", run->id,
                 p->group, p->group - 1);
        return encode(&e, buf, len);
}

/* ... and the instant it started, on the timeline and on this host's own clock. */
static int pack_group_started(agent_daemon_t *ag, run_ctx_t *run, const arun_pack_t *p, uint8_t **buf,
                              size_t *len)
{
        envelope_t e = IOFLEET__ENVELOPE__INIT;
        Iofleet__GroupStarted m = IOFLEET__GROUP_STARTED__INIT;
        int64_t at = runner_group_started_mono(run->runner, p->group);
        if (!at)
                return -ENODEV;
        m.run_id = (char *)p->run_id;
        m.run_seq = p->run_seq;
        m.group = p->group;
        m.start_ns = timeline_of_mono(ag, at);
        m.host_mono_ns = at;
        e.body_case = IOFLEET__ENVELOPE__BODY_GROUP_STARTED;
        e.group_started = &m;
        log_info("run %s: group %u started %+lldns from its instant", run->id, p->group,
                 (long long)(at - run->group_mono));
        return encode(&e, buf, len);
}

/* The next piece of fio's log files, if one waits: the shipper is opened on the run's directory
 * the first time (after an agent restart too, with no runner). */
static int pack_log(run_ctx_t *run, const arun_pack_t *p, uint8_t **buf, size_t *len)
{
        int r;
        *buf = NULL;
        if (!run->ship && (r = logship_open(p->dir, &run->ship)) < 0)
                return r == -ENOENT ? 0 : r; /* no log was ever made */
        r = logship_next(run->ship, p->run_id, p->run_seq, p->final, p->cut, buf, len);
        return r < 0 ? r : 0;
}

int report_pack(void *user, arun_pack_t *p, uint8_t **buf, size_t *len)
{
        agent_daemon_t *ag = user;
        run_ctx_t *run = ag->run;
        if (!run)
                return -ENOENT;
        switch (p->what) {
        case ARUN_MSG_PREPARED:
                return pack_prepared(ag, run, p, buf, len);
        case ARUN_MSG_STARTED:
                return run->runner ? pack_started(ag, run, p, buf, len) : -ENODEV;
        case ARUN_MSG_INTERVAL:
                return pack_interval(run, p, buf, len);
        case ARUN_MSG_FINISHED:
                return pack_finished(run, p, buf, len);
        case ARUN_MSG_RESTORED:
                return pack_restored(run, p, buf, len);
        case ARUN_MSG_LAYOUT:
                return pack_layout(run, p, buf, len);
        case ARUN_MSG_GROUP_READY:
                return pack_group_ready(run, p, buf, len);
        case ARUN_MSG_GROUP_STARTED:
                return run->runner ? pack_group_started(ag, run, p, buf, len) : -ENODEV;
        case ARUN_MSG_LOG:
                return pack_log(run, p, buf, len);
        }
        return -EINVAL;
}
