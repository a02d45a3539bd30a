/* The coordinator's runs: a table of the runs in progress, each with its journal, the agents each
 * holds, and the end of a run (result, RunDone, sweep record). */
#include "runs.h"

#include <dirent.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <uuid/uuid.h>

#include "agent-list.h"
#include "clock.h"
#include "idmap.h"
#include "journal.h"
#include "log.h"
#include "result.h"
#include "run-writer.h"
#include "run-logs.h"
#include "selector.h"
#include "sweep.h"
#include "util.h"

/* Runs in progress have a link here (to their directory) so a restarted coordinator finds their
 * journals; every run keeps one in .by-id so that a finished run is found by its id. */
#define ACTIVE_DIR ".active"
#define BY_ID_DIR ".by-id"

typedef struct slot {
        coord_run_t *run;
        journal_t *journal;
        char dir[4096];
        run_writer_t *writer; /* the run is over and its result being written */
} slot_t;

struct runs {
        runs_ctx_t ctx;
        slot_t *v;
        size_t n, cap;
        idmap_t *by_agent; /* agent id -> its slot's run (keys are the run's own agent ids) */
        uint64_t journal_bytes;
        int wake_fd; /* an eventfd the result writers wake the loop with */
};

int runs_new(const runs_ctx_t *ctx, runs_t **ret)
{
        runs_t *rs = calloc(1, sizeof(*rs));
        if (!rs)
                return -ENOMEM;
        rs->ctx = *ctx;
        if (idmap_new(&rs->by_agent) < 0) {
                free(rs);
                return -ENOMEM;
        }
        /* Without it a written result is noticed at the loop's next turn (100 ms at most). */
        rs->wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
        *ret = rs;
        return 0;
}

void runs_free(runs_t **rp)
{
        runs_t *rs = *rp;
        if (!rs)
                return;
        runs_wait(rs);
        for (size_t i = 0; i < rs->n; i++) {
                if (rs->v[i].journal) {
                        journal_sync(rs->v[i].journal);
                        log_info("run %s: left in progress; the next start of the coordinator "
                                 "takes it up (its journal is in %s)",
                                 rs->v[i].run->id, rs->v[i].dir);
                }
                journal_close(&rs->v[i].journal);
                run_free(&rs->v[i].run);
        }
        free(rs->v);
        idmap_free(&rs->by_agent);
        if (rs->wake_fd >= 0)
                close(rs->wake_fd);
        free(rs);
        *rp = NULL;
}

size_t runs_count(const runs_t *rs)
{
        return rs ? rs->n : 0;
}

coord_run_t *runs_at(const runs_t *rs, size_t i)
{
        return i < rs->n ? rs->v[i].run : NULL;
}

bool runs_journalled(const runs_t *rs, size_t i)
{
        return i < rs->n && rs->v[i].journal;
}

coord_run_t *runs_find(const runs_t *rs, const char *run_id)
{
        for (size_t i = 0; i < rs->n; i++)
                if (streq(rs->v[i].run->id, run_id))
                        return rs->v[i].run;
        return NULL;
}

coord_run_t *runs_of_agent(const runs_t *rs, const char *agent_id)
{
        return idmap_get(rs->by_agent, agent_id);
}

static slot_t *slot_of(runs_t *rs, const coord_run_t *run)
{
        for (size_t i = 0; i < rs->n; i++)
                if (rs->v[i].run == run)
                        return &rs->v[i];
        return NULL;
}

static const char *run_of_agent_cb(void *user, const char *id)
{
        coord_run_t *run = runs_of_agent(user, id);
        return run ? run->id : "";
}

static void push_error(runs_t *rs, const char *peer, Iofleet__ErrorCode code, const char *run_id,
                       const char *msg)
{
        error_push(&rs->ctx.out->control, peer, rs->ctx.control_seq, code, run_id, msg);
}

/* The run's journal hook: records go to its journal before the run acts on them. */
static void keep(void *user, coord_run_t *run, const run_rec_t *rec)
{
        slot_t *s = slot_of(user, run);
        if (s && s->journal && journal_append(s->journal, rec) < 0)
                log_error("run %s: its journal cannot be written: a coordinator restart would "
                          "lose what follows",
                          run->id);
}

/* The agents of a run are busy, and found from their ids. */
static int hold_agents(runs_t *rs, coord_run_t *run)
{
        for (size_t i = 0; i < run->n_agents; i++) {
                coord_agent_t *a = registry_find(rs->ctx.reg, run->agents[i].id);
                if (idmap_set(rs->by_agent, run->agents[i].id, run) < 0)
                        return -ENOMEM;
                if (a && a->state == AGENT_IDLE)
                        a->state = AGENT_BUSY;
        }
        return 0;
}

static void release_agents(runs_t *rs, coord_run_t *run)
{
        for (size_t i = 0; i < run->n_agents; i++) {
                coord_agent_t *a = registry_find(rs->ctx.reg, run->agents[i].id);
                if (idmap_get(rs->by_agent, run->agents[i].id) == run)
                        idmap_remove(rs->by_agent, run->agents[i].id);
                if (a && a->state == AGENT_BUSY)
                        a->state = AGENT_IDLE;
        }
}

static int add_slot(runs_t *rs, coord_run_t *run, journal_t *j, const char *dir)
{
        if (array_reserve((void **)&rs->v, &rs->cap, rs->n, sizeof(*rs->v)) < 0)
                return -ENOMEM;
        rs->v[rs->n] = (slot_t){run, j, "", NULL};
        snprintf(rs->v[rs->n].dir, sizeof(rs->v[0].dir), "%s", dir);
        rs->n++;
        run->keep = keep;
        run->keep_user = rs;
        run->seq = rs->ctx.control_seq;
        /* fio's log files go to the run's directory (after a replay: counted from there) */
        if (*dir)
                run_logs_set_dir(run, dir);
        return hold_agents(rs, run);
}

/* RESULTS/.active/RUN_ID and RESULTS/.by-id/RUN_ID: links to the run's directory. */
static void link_run(const runs_t *rs, const char *sub, const char *run_id, const char *dir)
{
        char d[4200], path[4300];
        snprintf(d, sizeof(d), "%s/%s", rs->ctx.cfg->results_dir, sub);
        mkdir(d, 0755);
        snprintf(path, sizeof(path), "%s/%s", d, run_id);
        unlink(path);
        if (symlink(dir, path) < 0)
                log_warning("cannot link %s to %s: %m", path, dir);
}

static void unlink_run(const runs_t *rs, const char *sub, const char *run_id)
{
        char path[4300];
        snprintf(path, sizeof(path), "%s/%s/%s", rs->ctx.cfg->results_dir, sub, run_id);
        unlink(path);
}

/* --- the end of a run ---------------------------------------------------------------------- */

/* A run whose result is written: the RunDone to whoever follows it, the sweep's record, its
 * journal closed, its agents free again. */
static void finish(runs_t *rs, size_t i)
{
        slot_t *s = &rs->v[i];
        coord_run_t *run = s->run;
        envelope_t e = IOFLEET__ENVELOPE__INIT;
        Iofleet__RunDone d = IOFLEET__RUN_DONE__INIT;
        run_written_t w;

        run_writer_finish(&s->writer, &w);
        run->code = w.code;
        snprintf(run->message, sizeof(run->message), "%s", w.message);
        if (!strempty(run->submit->submit_run->sweep_id))
                sweep_record(rs->ctx.cfg->results_dir, run->submit->submit_run, run->id,
                             run->code ? run->message : "");
        if (w.r < 0)
                log_error_errno(w.r, "run %s: results could not be written: %m", run->id);
        else {
                log_info("run %s finished (%s%s%s): results in %s, start skew %lluns", run->id,
                         w.status, run->code ? ": " : "", run->code ? run->message : "", w.dir,
                         (unsigned long long)run->start_skew_ns);
                link_run(rs, BY_ID_DIR, run->id, w.dir);
        }
        d.run_id = run->id;
        d.code = run->code;
        d.message = run->message;
        d.status = w.status;
        d.result_json = w.text ? w.text : "";
        d.results_dir = w.dir;
        e.body_case = IOFLEET__ENVELOPE__BODY_RUN_DONE;
        e.run_done = &d;
        if (run->control_peer[0]) {
                e.seq = ++*rs->ctx.control_seq;
                outbox_push(&rs->ctx.out->control, run->control_peer, &e);
        }
        for (size_t k = 0; k < run->n_watchers; k++) {
                e.seq = ++*rs->ctx.control_seq;
                outbox_push(&rs->ctx.out->control, run->watchers[k], &e);
        }
        free(w.text);
        if (s->journal)
                log_info("run %s: its journal took %llu bytes", run->id,
                         (unsigned long long)journal_bytes(s->journal));
        rs->journal_bytes += journal_bytes(s->journal);
        /* Written: the journal has served. */
        if (w.r >= 0 && journal_finish(&s->journal, run->code, run->message) < 0)
                log_warning("run %s: its journal could not be closed cleanly", run->id);
        journal_close(&s->journal);
        unlink_run(rs, ACTIVE_DIR, run->id);
        release_agents(rs, run);
        if (rs->ctx.finished)
                rs->ctx.finished(rs->ctx.user, run);
}

/* A run that is over gets its result written off the loop (run-writer.c); once it is, it is
 * finished and freed. */
void runs_settle(runs_t *rs, int64_t now)
{
        uint64_t v;
        bool over = false;
        (void)now;
        for (size_t i = 0; i < rs->n && !over; i++)
                over = run_done(rs->v[i].run);
        if (!over)
                return; /* the common case: after each message, no read of the eventfd */
        if (rs->wake_fd >= 0)
                (void)eventfd_read(rs->wake_fd, &v);
        for (size_t i = 0; i < rs->n;) {
                slot_t *s = &rs->v[i];
                if (!run_done(s->run)) {
                        i++;
                        continue;
                }
                if (!s->writer) {
                        if (run_spool_finish(s->run) < 0)
                                log_error("run %s: the interval series could not be written "
                                          "completely to %s",
                                          s->run->id, s->run->spool_path);
                        /* fio's log files synced and made whole, on the loop that syncs the
                         * logs of the runs still going (the result lists them) */
                        run_logs_finish(s->run);
                        if (run_writer_start(s->run, rs->ctx.cfg->results_dir, rs->wake_fd,
                                             &s->writer) < 0) {
                                log_error("run %s: out of memory to write its result; trying "
                                          "again",
                                          s->run->id);
                                i++;
                                continue;
                        }
                }
                if (!run_writer_done(s->writer)) {
                        i++;
                        continue;
                }
                finish(rs, i);
                run_free(&rs->v[i].run);
                rs->v[i] = rs->v[--rs->n];
        }
}

void runs_wait(runs_t *rs)
{
        for (;;) {
                bool writing = false;
                runs_settle(rs, 0);
                for (size_t i = 0; i < rs->n; i++)
                        writing |= rs->v[i].writer != NULL;
                if (!writing)
                        return;
                if (rs->wake_fd >= 0) {
                        struct pollfd p = {rs->wake_fd, POLLIN, 0};
                        (void)poll(&p, 1, 100);
                } else
                        usleep(10000);
        }
}

int runs_fd(const runs_t *rs)
{
        return rs->wake_fd;
}

/* --- submitting ------------------------------------------------------------------------------ */

static void new_run_id(char *buf, size_t len)
{
        uuid_t u;
        char s[37];
        time_t t = time(NULL);
        struct tm tm;
        char when[32];
        uuid_generate_random(u);
        uuid_unparse_lower(u, s);
        localtime_r(&t, &tm);
        strftime(when, sizeof(when), "%Y%m%d-%H%M%S", &tm);
        /* Sortable by time, unique by the random tail. */
        snprintf(buf, len, "%s-%.6s", when, s);
}

/* "agent a1 is in run R1, agent a2 is in run R2": who holds the busy agents of sel. */
static int busy_error(runs_t *rs, coord_agent_t **sel, size_t n, char *err, size_t errlen)
{
        size_t shown = 0, busy = 0;
        int len = snprintf(err, errlen, "busy:");
        for (size_t i = 0; i < n; i++) {
                coord_run_t *r = runs_of_agent(rs, sel[i]->id);
                if (!r)
                        continue;
                if (shown < 4 && len < (int)errlen)
                        len += snprintf(err + len, errlen - len, "%s agent %s is in run %s",
                                        shown ? "," : "", sel[i]->name, r->id);
                shown++;
                busy++;
        }
        if (busy > shown && len < (int)errlen)
                snprintf(err + len, errlen - len, " (and %zu more)", busy - shown);
        if (busy > 4 && len < (int)errlen)
                snprintf(err + len, errlen - len, " (%zu agents busy in all)", busy);
        return -EBUSY;
}

/* The agents a selector picks, all of them free: 0, or -EINVAL (bad selector), -ENOENT (none),
 * -EBUSY (some are in another run, which err names) with err set. */
static int select_agents(runs_t *rs, const char *selector, coord_agent_t ***sel, size_t *n, char *err,
                         size_t errlen)
{
        if (selector_validate(selector, err, errlen) < 0)
                return -EINVAL;
        if (registry_select(rs->ctx.reg, selector, sel, n) < 0)
                return errorf(err, errlen, -ENOMEM, "out of memory");
        if (*n == 0)
                return errorf(err, errlen, -ENOENT,
                              "no agent matches '%s' (%zu agents known; see 'iofleet agents')",
                              strempty(selector) ? "all" : selector, registry_count(rs->ctx.reg));
        for (size_t i = 0; i < *n; i++)
                if (runs_of_agent(rs, (*sel)[i]->id))
                        return busy_error(rs, *sel, *n, err, errlen);
        return 0;
}

/* A plan's parts in order, each taking (up to count of) the free agents its selector picks that
 * an earlier part did not take; every part needs at least one, a part without a count all. */
static int select_parts(runs_t *rs, const Iofleet__SubmitRun *s, coord_agent_t ***ret,
                        uint32_t **part_ret, size_t *n_ret, char *err, size_t errlen)
{
        size_t cap = registry_count(rs->ctx.reg) + 1, n = 0;
        coord_agent_t **all = calloc(cap, sizeof(*all));
        uint32_t *part_of = calloc(cap, sizeof(*part_of));
        int r = 0;

        if (!all || !part_of) {
                r = errorf(err, errlen, -ENOMEM, "out of memory");
                goto out;
        }
        for (size_t p = 0; p < s->n_parts && r == 0; p++) {
                const Iofleet__Part *part = s->parts[p];
                coord_agent_t **sel = NULL;
                size_t k = 0, taken = 0, busy = 0;
                char why[512];
                if (selector_validate(part->selector, why, sizeof(why)) < 0)
                        r = -EINVAL;
                else if (registry_select(rs->ctx.reg, part->selector, &sel, &k) < 0)
                        r = errorf(why, sizeof(why), -ENOMEM, "out of memory");
                for (size_t i = 0; r == 0 && i < k; i++) {
                        bool dup = false;
                        for (size_t j = 0; j < n; j++)
                                dup |= all[j] == sel[i];
                        if (dup || (part->count && taken >= part->count) || n + 1 >= cap)
                                continue;
                        if (runs_of_agent(rs, sel[i]->id)) {
                                busy++;
                                continue;
                        }
                        all[n] = sel[i];
                        part_of[n++] = p;
                        taken++;
                }
                /* Every agent a part without a count matches is wanted: one held elsewhere
                 * makes it busy; with a count, free ones stand in. */
                if (r == 0 && busy && (!part->count || taken < part->count))
                        r = busy_error(rs, sel, k, why, sizeof(why));
                else if (r == 0 && taken < (part->count ? part->count : 1))
                        r = errorf(why, sizeof(why), -ENOENT,
                                   "%u %s agent(s) wanted, %zu free match '%s'",
                                   part->count ? part->count : 1, part->role, taken,
                                   strempty(part->selector) ? "all" : part->selector);
                if (r < 0)
                        snprintf(err, errlen, "[%s] %s", part->role, why);
                free(sel);
        }
out:
        if (r < 0) {
                free(all);
                free(part_of);
                return r;
        }
        *ret = all;
        *part_ret = part_of;
        *n_ret = n;
        return 0;
}

static Iofleet__ErrorCode code_of(int r)
{
        switch (r) {
        case -EINVAL:
                return IOFLEET__ERROR_CODE__ERROR_BAD_JOB;
        case -ENOENT:
                return IOFLEET__ERROR_CODE__ERROR_NO_AGENTS;
        case -EBUSY:
                return IOFLEET__ERROR_CODE__ERROR_BUSY;
        default:
                return IOFLEET__ERROR_CODE__ERROR_INTERNAL;
        }
}

/* The run's directory, its spool and its journal: what survives the coordinator. */
static journal_t *open_dir(runs_t *rs, coord_run_t *run, coord_agent_t **sel, const uint32_t *part_of,
                           size_t n, const envelope_t *submit, int64_t now, char *dir,
                           size_t dirlen)
{
        char path[4200];
        journal_t *j = NULL;
        int r;
        result_dir_of(run, rs->ctx.cfg->results_dir, dir, dirlen);
        snprintf(path, sizeof(path), "%s/intervals.csv", dir);
        if ((r = mkdir_p(dir, 0755)) < 0 || (r = run_set_spool(run, path)) < 0) {
                log_warning("run %s: cannot write %s (%s): the series stays in memory", run->id,
                            path, strerror(-r));
                return NULL;
        }
        if (!rs->ctx.cfg->journal)
                return NULL;
        if ((r = journal_create(dir, run->id, now, submit, sel, part_of, n, &j)) < 0) {
                log_warning("run %s: cannot write its journal in %s (%s): a coordinator restart "
                            "would end it",
                            run->id, dir, strerror(-r));
                return NULL;
        }
        link_run(rs, ACTIVE_DIR, run->id, dir);
        return j;
}

void runs_submit(runs_t *rs, const char *peer, envelope_t **msg, int64_t now)
{
        Iofleet__SubmitRun *s = (*msg)->submit_run;
        envelope_t *copy = NULL;
        Iofleet__Duration grace = IOFLEET__DURATION__INIT;
        coord_agent_t **sel = NULL;
        uint32_t *part_of = NULL;
        size_t n = 0;
        char err[1024], id[64], dir[4096] = "";
        journal_t *j = NULL;
        coord_run_t *run = NULL;
        uint8_t *buf = NULL;
        size_t len;
        int r;

        r = s->n_parts ? select_parts(rs, s, &sel, &part_of, &n, err, sizeof(err))
                       : select_agents(rs, s->selector, &sel, &n, err, sizeof(err));
        if (r < 0) {
                if (!strempty(s->sweep_id))
                        sweep_record(rs->ctx.cfg->results_dir, s, "", err);
                push_error(rs, peer, code_of(r), NULL, err);
                goto out;
        }
        new_run_id(id, sizeof(id));
        if (s->lead_ns == 0)
                s->lead_ns = rs->ctx.cfg->lead_ns;
        if (!s->orphan_grace) {
                grace.ns = rs->ctx.cfg->orphan_grace_ns;
                s->orphan_grace = &grace;
        }
        /* the coordinator's own limit on its disk, whatever the client said */
        s->fio_log_bytes_max = rs->ctx.cfg->fio_logs_max_mib << 20;
        /* The journal keeps the SubmitRun as the run took it (defaults filled in). */
        if ((r = wire_encode(*msg, &buf, &len)) < 0 ||
            (r = wire_decode(buf, len, WIRE_MAX_CONTROL_MSG, &copy, err, sizeof(err))) < 0) {
                if (s->orphan_grace == &grace)
                        s->orphan_grace = NULL;
                push_error(rs, peer, IOFLEET__ERROR_CODE__ERROR_INTERNAL, NULL, "out of memory");
                goto out;
        }
        if (s->orphan_grace == &grace)
                s->orphan_grace = NULL;
        r = run_new(id, peer, &copy, sel, part_of, n, now, rs->ctx.out, &run, err, sizeof(err));
        if (r < 0) {
                if (!strempty(s->sweep_id))
                        sweep_record(rs->ctx.cfg->results_dir, s, "", err);
                push_error(rs, peer, code_of(r), NULL, err);
                goto out;
        }
        j = open_dir(rs, run, sel, part_of, n, run->submit, now, dir, sizeof(dir));
        if ((r = add_slot(rs, run, j, dir)) < 0) {
                push_error(rs, peer, IOFLEET__ERROR_CODE__ERROR_INTERNAL, NULL, "out of memory");
                if (slot_of(rs, run))
                        run_cancel(run, IOFLEET__ERROR_CODE__ERROR_INTERNAL, "out of memory", now,
                                   rs->ctx.out);
                else {
                        journal_close(&j);
                        run_free(&run);
                }
                goto out;
        }
        log_info("run %s submitted: %zu jobs on %zu agents", id, run->n_specs, n);
        agent_list_push(&rs->ctx.out->control, peer, rs->ctx.control_seq, sel, n, id,
                        run_of_agent_cb, rs);
out:
        wire_free(&copy);
        free(buf);
        free(sel);
        free(part_of);
}

/* --- following, cancelling, listing ---------------------------------------------------------- */

/* A finished run's RunDone, from its result on disk (iofleet watch after the end, or a CLI that
 * re-attaches after it). */
static bool watch_finished(runs_t *rs, const char *peer, const char *run_id)
{
        envelope_t e = IOFLEET__ENVELOPE__INIT;
        Iofleet__RunDone d = IOFLEET__RUN_DONE__INIT;
        char link[4300], dir[4096], path[4200];
        ssize_t n;
        json_t *doc;
        json_error_t je;
        char *text;
        snprintf(link, sizeof(link), "%s/" BY_ID_DIR "/%s", rs->ctx.cfg->results_dir, run_id);
        if (strchr(run_id, '/') || (n = readlink(link, dir, sizeof(dir) - 1)) < 0)
                return false;
        dir[n] = 0;
        snprintf(path, sizeof(path), "%s/result.json", dir);
        /* The file's own text when it fits in a message, else only what it says. */
        text = result_read_text(dir, RESULT_MAX_SENT);
        doc = text ? json_loads(text, 0, &je) : json_load_file(path, 0, &je);
        if (!doc) {
                free(text);
                return false;
        }
        d.run_id = (char *)run_id;
        d.status = (char *)result_status(doc, NULL, 0);
        d.code = streq(d.status, "ok") ? IOFLEET__ERROR_CODE__ERROR_NONE
                 : streq(d.status, "partial") ? IOFLEET__ERROR_CODE__ERROR_PARTIAL
                 : streq(d.status, "cancelled") ? IOFLEET__ERROR_CODE__ERROR_CANCELLED
                                                : IOFLEET__ERROR_CODE__ERROR_IO;
        d.message = (char *)result_error(doc);
        if (d.code && strempty(d.message))
                d.message = (char *)d.status;
        d.result_json = text ? text : "";
        d.results_dir = dir;
        e.seq = ++*rs->ctx.control_seq;
        e.body_case = IOFLEET__ENVELOPE__BODY_RUN_DONE;
        e.run_done = &d;
        outbox_push(&rs->ctx.out->control, peer, &e);
        free(text);
        json_decref(doc);
        return true;
}

void runs_watch(runs_t *rs, const char *peer, const Iofleet__WatchRun *w)
{
        coord_run_t *run = NULL;
        coord_agent_t **sel;
        size_t n = 0;
        if (!strempty(w->run_id))
                run = runs_find(rs, w->run_id);
        else if (rs->n == 1)
                run = rs->v[0].run;
        else if (rs->n > 1) {
                char err[1024];
                int len = snprintf(err, sizeof(err), "%zu runs in progress; name one:", rs->n);
                for (size_t i = 0; i < rs->n && len < (int)sizeof(err) - 80; i++)
                        len += snprintf(err + len, sizeof(err) - len, " %s", rs->v[i].run->id);
                push_error(rs, peer, IOFLEET__ERROR_CODE__ERROR_BUSY, "", err);
                return;
        }
        if (!run) {
                if (!strempty(w->run_id) && watch_finished(rs, peer, w->run_id))
                        return;
                push_error(rs, peer, IOFLEET__ERROR_CODE__ERROR_UNKNOWN_RUN, w->run_id,
                           strempty(w->run_id) ? "no run in progress"
                                               : "no such run, in progress or finished");
                return;
        }
        int added = run_add_watcher(run, peer);
        if (added < 0) {
                push_error(rs, peer, IOFLEET__ERROR_CODE__ERROR_BUSY, run->id,
                           "too many watchers of this run (16)");
                return;
        }
        sel = calloc(run->n_agents + 1, sizeof(*sel));
        for (size_t i = 0; sel && i < run->n_agents; i++) {
                coord_agent_t *a = registry_find(rs->ctx.reg, run->agents[i].id);
                if (a)
                        sel[n++] = a;
        }
        log_debug("run %s: watched from %s", run->id, peer);
        agent_list_push(&rs->ctx.out->control, peer, rs->ctx.control_seq, sel, n, run->id,
                        run_of_agent_cb, rs);
        free(sel);
        /* Attached late: what was raised before is news to it too (not to a peer that got
         * everything already: a CLI's ping). */
        if (added == 0)
                run_replay_alerts(run, peer, rs->ctx.out);
}

void runs_cancel(runs_t *rs, const char *peer, const Iofleet__CancelRun *c, int64_t now)
{
        coord_run_t *run = !strempty(c->run_id) ? runs_find(rs, c->run_id)
                     : rs->n == 1         ? rs->v[0].run
                                          : NULL;
        if (!run) {
                push_error(rs, peer, IOFLEET__ERROR_CODE__ERROR_UNKNOWN_RUN, c->run_id,
                           rs->n > 1 && strempty(c->run_id)
                               ? "several runs in progress: name the one to cancel"
                               : "no such run in progress");
                return;
        }
        run_cancel(run, IOFLEET__ERROR_CODE__ERROR_CANCELLED, "cancelled by the user", now,
                   rs->ctx.out);
}

static const char *phase_name(run_phase_t p)
{
        static const char *const names[] = {"preparing", "starting", "running", "stopping",
                                            "done"};
        return p <= RUN_DONE ? names[p] : "?";
}

void runs_list(runs_t *rs, const char *peer)
{
        envelope_t e = IOFLEET__ENVELOPE__INIT;
        Iofleet__RunList list = IOFLEET__RUN_LIST__INIT;
        Iofleet__RunInfo *ri = calloc(rs->n + 1, sizeof(*ri));
        Iofleet__RunInfo **rp = calloc(rs->n + 1, sizeof(*rp));
        char ***names = calloc(rs->n + 1, sizeof(*names));
        if (!ri || !rp || !names) {
                push_error(rs, peer, IOFLEET__ERROR_CODE__ERROR_INTERNAL, NULL, "out of memory");
                goto out;
        }
        for (size_t i = 0; i < rs->n; i++) {
                const coord_run_t *run = rs->v[i].run;
                iofleet__run_info__init(&ri[i]);
                names[i] = calloc(run->n_agents + 1, sizeof(**names));
                for (size_t k = 0; names[i] && k < run->n_agents; k++) {
                        names[i][k] = (char *)run->agents[k].name;
                        ri[i].lost += run->agents[k].lost;
                }
                ri[i].run_id = (char *)run->id;
                ri[i].phase = (char *)phase_name(run->phase);
                ri[i].agents = names[i];
                ri[i].n_agents = names[i] ? run->n_agents : 0;
                ri[i].start_ns = run->start_ns;
                ri[i].sweep_id = run->submit->submit_run->sweep_id;
                rp[i] = &ri[i];
        }
        list.runs = rp;
        list.n_runs = rs->n;
        e.seq = ++*rs->ctx.control_seq;
        e.body_case = IOFLEET__ENVELOPE__BODY_RUN_LIST;
        e.run_list = &list;
        outbox_push(&rs->ctx.out->control, peer, &e);
out:
        for (size_t i = 0; names && i < rs->n; i++)
                free(names[i]);
        free(names);
        free(ri);
        free(rp);
}

/* --- agents ------------------------------------------------------------------------------------ */

/* An agent holds messages of a run this coordinator does not have (over, or never known): it
 * may forget them. */
static void unknown_run(runs_t *rs, coord_agent_t *a, const char *run_id)
{
        envelope_t e = IOFLEET__ENVELOPE__INIT;
        Iofleet__Error err = IOFLEET__ERROR__INIT;
        char msg[256], link[4300], dir[4096];
        snprintf(link, sizeof(link), "%s/" BY_ID_DIR "/%s", rs->ctx.cfg->results_dir, run_id);
        snprintf(msg, sizeof(msg), "run %s is %s", run_id,
                 !strchr(run_id, '/') && readlink(link, dir, sizeof(dir)) > 0
                     ? "over: its result was written without what this agent still holds"
                     : "not known to this coordinator");
        err.code = IOFLEET__ERROR_CODE__ERROR_UNKNOWN_RUN;
        err.message = msg;
        err.run_id = (char *)run_id;
        e.body_case = IOFLEET__ENVELOPE__BODY_ERROR;
        e.error = &err;
        outbox_push(&rs->ctx.out->agents, a->id, &e);
}

int runs_agent_message(runs_t *rs, coord_agent_t *a, envelope_t **e, int64_t now)
{
        coord_run_t *run = runs_of_agent(rs, a->id);
        const char *rid = wire_run_id(*e);
        int r;
        if (!run || (!strempty(rid) && !streq(rid, run->id))) {
                /* Numbered messages of a run it holds that is not here: tell it, once per
                 * message it sends (it stops sending when it hears). */
                if (wire_run_seq(*e) && !strempty(rid) && !runs_find(rs, rid))
                        unknown_run(rs, a, rid);
                return -ESRCH;
        }
        r = run_on_message(run, a->id, e, now, rs->ctx.out);
        return r == -EALREADY ? 0 : r;
}

int runs_layout_progress(runs_t *rs, coord_agent_t *a, const Iofleet__LayoutProgress *m, int64_t now)
{
        coord_run_t *run = runs_of_agent(rs, a->id);
        return run ? run_on_layout_progress(run, a->id, m, now, rs->ctx.out) : -ESRCH;
}

void runs_agent_hello(runs_t *rs, coord_agent_t *a, const Iofleet__Hello *h, int64_t now)
{
        coord_run_t *run = runs_of_agent(rs, a->id);
        if (!run && !strempty(h->run_id)) {
                /* A re-adopted run, or one whose agent the registry had forgotten. */
                const run_agent_t *ra;
                run = runs_find(rs, h->run_id);
                ra = run ? idmap_get(run->by_id, a->id) : NULL;
                if (!ra || idmap_set(rs->by_agent, ra->id, run) < 0)
                        run = NULL;
        }
        if (run) {
                if (a->state == AGENT_IDLE)
                        a->state = AGENT_BUSY;
                run_agent_hello(run, a->id, h->run_id ? h->run_id : "",
                                h->run_phase ? h->run_phase : "",
                                strempty(h->run_id) ? RUN_MADE_UNKNOWN : h->run_seq, now,
                                rs->ctx.out);
                return;
        }
        if (!strempty(h->run_id))
                unknown_run(rs, a, h->run_id);
}

void runs_agent_lost(runs_t *rs, coord_agent_t *a, int64_t now)
{
        coord_run_t *run = runs_of_agent(rs, a->id);
        if (run)
                run_agent_lost(run, a->id, now, rs->ctx.out);
}

uint64_t runs_heartbeat(runs_t *rs, coord_agent_t *a, const char **run_id)
{
        coord_run_t *run = runs_of_agent(rs, a->id);
        *run_id = run ? run->id : "";
        return run ? run_heartbeat_ack(run, a->id) : 0;
}

void runs_tick(runs_t *rs, int64_t now)
{
        for (size_t i = 0; i < rs->n; i++)
                run_tick(rs->v[i].run, now, rs->ctx.out);
}

int64_t runs_next_deadline(const runs_t *rs)
{
        int64_t t = INT64_MAX;
        for (size_t i = 0; i < rs->n; i++) {
                int64_t d = run_next_deadline(rs->v[i].run);
                t = d < t ? d : t;
        }
        return t;
}

bool runs_collecting(const runs_t *rs, int64_t now)
{
        for (size_t i = 0; i < rs->n; i++)
                if (run_collecting(rs->v[i].run, now))
                        return true;
        return false;
}

bool runs_sync(runs_t *rs)
{
        bool ok = true;
        for (size_t i = 0; i < rs->n; i++) {
                journal_t *j = rs->v[i].journal;
                /* the log files' bytes first: the journal's records of them say they are kept */
                if (run_logs_sync(rs->v[i].run) < 0) {
                        ok = false;
                        continue;
                }
                if (journal_dirty(j) && journal_sync(j) < 0) {
                        ok = false;
                        continue;
                }
                /* A run being written is read by its writer: it has nothing new anyway. */
                if (!rs->v[i].writer)
                        run_synced(rs->v[i].run);
        }
        return ok;
}

bool runs_dirty(const runs_t *rs)
{
        for (size_t i = 0; i < rs->n; i++)
                /* A run without a journal has nothing to sync, but its messages become
                 * "kept" only at a sync. */
                if (!rs->v[i].journal || journal_dirty(rs->v[i].journal))
                        return true;
        return false;
}

uint64_t runs_journal_bytes(const runs_t *rs)
{
        uint64_t b = rs->journal_bytes;
        for (size_t i = 0; i < rs->n; i++)
                b += journal_bytes(rs->v[i].journal);
        return b;
}

/* --- taking up what a previous coordinator left ---------------------------------------------- */

size_t runs_recover(runs_t *rs, int64_t now)
{
        char d[4200];
        size_t n = 0;
        DIR *dp;
        struct dirent *de;
        snprintf(d, sizeof(d), "%s/" ACTIVE_DIR, rs->ctx.cfg->results_dir);
        if (!(dp = opendir(d)))
                return 0;
        while ((de = readdir(dp))) {
                char link[4500], dir[4096], spool[4200], err[1024] = "";
                coord_run_t *run = NULL;
                journal_t *j = NULL;
                ssize_t len;
                int r;
                if (de->d_name[0] == '.')
                        continue;
                snprintf(link, sizeof(link), "%s/%s", d, de->d_name);
                if ((len = readlink(link, dir, sizeof(dir) - 1)) < 0)
                        continue;
                dir[len] = 0;
                snprintf(spool, sizeof(spool), "%s/intervals.csv", dir);
                r = journal_replay(dir, spool, &run, &j, err, sizeof(err));
                if (r == -EALREADY || r == -ENOENT) {
                        /* It had ended, or left nothing to take up. */
                        unlink(link);
                        continue;
                }
                if (r < 0) {
                        log_error("run %s: cannot take it up: %s", de->d_name, err);
                        unlink(link);
                        continue;
                }
                if (add_slot(rs, run, j, dir) < 0) {
                        journal_close(&j);
                        run_free(&run);
                        continue;
                }
                run_readopt(run, now, rs->ctx.out);
                log_info("run %s: taken up from its journal (%s): %zu agents, phase %s; waiting "
                         "up to %llus for them to come back",
                         run->id, dir, run->n_agents, phase_name(run->phase),
                         (unsigned long long)(run->orphan_grace_ns / NSEC_PER_SEC));
                n++;
        }
        closedir(dp);
        /* Nobody to tell yet: those who follow re-attach. */
        outbox_clear(&rs->ctx.out->control);
        return n;
}
