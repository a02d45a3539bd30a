/* An agent's part of one run as a state machine fed (message | timer | runner event | host-work
 * event, now): numbered messages kept until acknowledged, orphan grace, teardown order. */
#include "agent-run.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fiolog.h"
#include "intervals.h"
#include "jobgroups.h"
#include "log-ship.h"
#include "log.h"
#include "options.h"
#include "run-queue.h"
#include "util.h"

#define STATE_FILE "state"

struct arun {
        char id[WIRE_MAX_ID + 1];
        arun_cfg_t cfg;
        char dir[4200];
        arun_phase_t phase;
        bool server;
        bool changes_host;
        rqueue_t *q;
        uint64_t grace_ns, interval_ns, max_intervals;
        int64_t start_mono;
        size_t next_interval;
        bool ran;             /* the runner was given the start instant */
        bool stop_requested;  /* Stop (or giving up) while the host was being prepared */
        int64_t next_force;   /* the workers were asked to stop: force their mount then (0: no) */
        bool connected;       /* a session with the coordinator */
        bool synced;          /* ... and it said where to resend from */
        bool orphaned;
        int64_t orphan_since;
        bool gave_up;         /* no coordinator for the whole grace, or the agent stops */
        bool dropped;         /* the coordinator will never collect: make nothing more */
        bool finished_made, restored_made;
        bool logs;            /* some job writes fio's log files: they go before Finished */
        bool draining;        /* the workers have ended; their logs go, then Finished */
        char why[256];        /* why the run ended early */
        uint64_t sent_upto;   /* sent in this session */
        /* Finished waits finish_hold_ns after the workers end (wire_finish_hold_ns(): by rank),
         * and with it what follows: messages from hold_from on wait until hold_until (0: none). */
        int64_t finish_hold_ns, hold_until;
        uint64_t hold_from;
        int64_t last_ack;     /* when an Ack last moved things on, or the last resend */
        uint64_t read_bytes, write_bytes; /* the agent's own count, from its intervals */
        /* Layout progress (best effort, not kept): the next report, and what the last said. */
        int64_t layout_next;
        bool layout_over, layout_sent;
        uint64_t layout_done, layout_total;
        char boot_id[40];     /* the host's boot the run was prepared in */
        /* Found from an earlier life that died in this phase: its end (Finished, Restored, or
         * an Error) is owed, made at the first Ack so that it is numbered after all the
         * coordinator has ("": nothing owed). */
        char owed[16];
        bool host_restarted;  /* ... and the host restarted since (another boot id) */
        uint64_t behind;      /* messages the coordinator had that the record here had lost */
        /* The cluster-wide stonewall: the last group reported ready, given its instant, and
         * reported started (0: none yet; group 0 is the run's own start). */
        unsigned group_ready, group_given, group_started;
};

static const char *const phase_names[] = {"preparing", "preparing", "prepared", "running",
                                          "running",   "serving",   "restoring", "done"};

/* --- the state file: what a restarted agent needs to find the run again ------------------- */

static void save(arun_t *ar)
{
        char path[4300], tmp[4300], text[1024];
        int len, fd;
        len = snprintf(text, sizeof(text),
                       "run_id=%s\nrole=%s\nphase=%s\nmade=%llu\nacked=%llu\nintervals=%zu\n"
                       "read_bytes=%llu\nwrite_bytes=%llu\nchanges_host=%d\nran=%d\nfinished=%d\n"
                       "restored=%d\nboot_id=%s\nhost_restarted=%d\nlogs=%d\n",
                       ar->id, ar->server ? "server" : "client",
                       ar->owed[0] ? ar->owed : phase_names[ar->phase],
                       (unsigned long long)rqueue_made(ar->q),
                       (unsigned long long)rqueue_acked(ar->q), ar->next_interval,
                       (unsigned long long)ar->read_bytes, (unsigned long long)ar->write_bytes,
                       ar->changes_host, ar->ran, ar->finished_made, ar->restored_made,
                       ar->boot_id, ar->host_restarted, ar->logs);
        snprintf(path, sizeof(path), "%s/" STATE_FILE, ar->dir);
        snprintf(tmp, sizeof(tmp), "%s/" STATE_FILE ".tmp", ar->dir);
        /* Replaced whole, not synced: it must survive the agent's death, not the host's. */
        fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        if (fd < 0)
                return;
        if (write(fd, text, (size_t)len) != len) {
                close(fd);
                unlink(tmp);
                return;
        }
        close(fd);
        if (rename(tmp, path) < 0)
                unlink(tmp);
}

typedef struct saved {
        char id[WIRE_MAX_ID + 1], role[16], phase[16], boot_id[40];
        uint64_t made, acked, intervals, read_bytes, write_bytes;
        int changes_host, ran, finished, restored, host_restarted, logs;
} saved_t;

static int load(const char *dir, saved_t *s)
{
        char path[4300], line[256];
        FILE *f;
        memset(s, 0, sizeof(*s));
        snprintf(path, sizeof(path), "%s/" STATE_FILE, dir);
        if (!(f = fopen(path, "re")))
                return -errno;
        while (fgets(line, sizeof(line), f)) {
                char *eq = strchr(line, '='), *v;
                unsigned long long u;
                if (!eq)
                        continue;
                *eq = 0;
                v = eq + 1;
                v[strcspn(v, "\n")] = 0;
                u = strtoull(v, NULL, 10);
                if (streq(line, "run_id"))
                        snprintf(s->id, sizeof(s->id), "%s", v);
                else if (streq(line, "role"))
                        snprintf(s->role, sizeof(s->role), "%s", v);
                else if (streq(line, "phase"))
                        snprintf(s->phase, sizeof(s->phase), "%s", v);
                else if (streq(line, "made"))
                        s->made = u;
                else if (streq(line, "acked"))
                        s->acked = u;
                else if (streq(line, "intervals"))
                        s->intervals = u;
                else if (streq(line, "read_bytes"))
                        s->read_bytes = u;
                else if (streq(line, "write_bytes"))
                        s->write_bytes = u;
                else if (streq(line, "changes_host"))
                        s->changes_host = (int)u;
                else if (streq(line, "ran"))
                        s->ran = (int)u;
                else if (streq(line, "finished"))
                        s->finished = (int)u;
                else if (streq(line, "restored"))
                        s->restored = (int)u;
                else if (streq(line, "host_restarted"))
                        s->host_restarted = (int)u;
                else if (streq(line, "boot_id"))
                        snprintf(s->boot_id, sizeof(s->boot_id), "%s", v);
                else if (streq(line, "logs"))
                        s->logs = (int)u;
        }
        fclose(f);
        return s->id[0] ? 0 : -EBADMSG;
}

int arun_peek(const char *dir, char *id, size_t idlen, char *phase, size_t phaselen)
{
        saved_t s;
        int r = load(dir, &s);
        if (r < 0)
                return r;
        snprintf(id, idlen, "%s", s.id);
        snprintf(phase, phaselen, "%s", s.phase);
        return 0;
}

/* --- messages ------------------------------------------------------------------------------- */

static void set_phase(arun_t *ar, arun_phase_t p)
{
        ar->phase = p;
        save(ar);
}

typedef struct sender {
        arun_t *ar;
        int64_t now;
        arun_out_t *out;
} sender_t;

/* Messages in flight (sent, not acknowledged) at most: after a long partition thousands are
 * waiting, and all of them at once would fill the socket's queue (ZeroMQ's high-water mark, a
 * thousand) so that heartbeats are dropped and the coordinator, busy with the backlog, takes
 * the agent for lost and the resend starts over. The rest follow as Acks come (every 50 ms). */
#define ARUN_SEND_WINDOW 256

static bool in_window(const arun_t *ar, uint64_t seq, int64_t now)
{
        if (ar->hold_from && seq >= ar->hold_from && now < ar->hold_until)
                return false;
        return seq <= rqueue_acked(ar->q) + ARUN_SEND_WINDOW;
}

static int send_one(void *user, uint64_t seq, const void *buf, size_t len)
{
        sender_t *s = user;
        if (!in_window(s->ar, seq, s->now))
                return 1;
        if (outbox_push_raw(&s->out->coord, "", buf, len) < 0)
                return -ENOMEM;
        s->ar->sent_upto = seq;
        return 0;
}

/* What was made but not sent yet goes, in order, as far as the window allows. */
static void pump(arun_t *ar, int64_t now, arun_out_t *out)
{
        sender_t s = {ar, now, out};
        if (ar->synced && ar->sent_upto < rqueue_made(ar->q) &&
            in_window(ar, ar->sent_upto + 1, now))
                rqueue_each(ar->q, ar->sent_upto, send_one, &s);
}

/* Everything not acknowledged goes (again), in order, a window at a time. */
static void resend(arun_t *ar, int64_t now, arun_out_t *out)
{
        ar->last_ack = now;
        ar->sent_upto = rqueue_acked(ar->q);
        pump(ar, now, out);
}

/* Numbers, keeps and (when the coordinator listens) sends one packed message. */
static int keep(arun_t *ar, const uint8_t *buf, size_t len, int64_t now, arun_out_t *out)
{
        int r;
        if (ar->dropped)
                return 0;
        if ((r = rqueue_push(ar->q, buf, len)) < 0)
                log_warning("run %s: message %llu is kept in memory only: %s", ar->id,
                            (unsigned long long)rqueue_made(ar->q), strerror(-r));
        if (r == -ENOMEM)
                return r;
        if (ar->synced && rqueue_made(ar->q) == ar->sent_upto + 1 &&
            in_window(ar, rqueue_made(ar->q), now)) {
                if (rqueue_pending(ar->q) == 1)
                        ar->last_ack = now;
                if (outbox_push_raw(&out->coord, "", buf, len) == 0)
                        ar->sent_upto = rqueue_made(ar->q);
        }
        return 0;
}

static int pack_keep(arun_t *ar, arun_pack_t *p, int64_t now, arun_out_t *out)
{
        uint8_t *buf = NULL;
        size_t len = 0;
        int r;
        if (ar->dropped)
                return 0;
        p->run_id = ar->id;
        p->run_seq = rqueue_next(ar->q);
        if ((r = ar->cfg.pack(ar->cfg.user, p, &buf, &len)) < 0) {
                log_error("run %s: cannot pack a message: %s", ar->id, strerror(-r));
                return r;
        }
        r = keep(ar, buf, len, now, out);
        free(buf);
        return r;
}

static void make(arun_t *ar, arun_msg_t what, const char *error, int64_t now, arun_out_t *out)
{
        arun_pack_t p = {.what = what, .error = error ? error : ""};
        if (what == ARUN_MSG_FINISHED) {
                p.intervals = (uint32_t)ar->next_interval;
                ar->finished_made = true;
        }
        if (what == ARUN_MSG_RESTORED)
                ar->restored_made = true;
        pack_keep(ar, &p, now, out);
}

/* fio's log files: LogChunk messages, made while few messages wait for an Ack (the rest waits
 * in the files, on disk, not in memory); once the workers have ended (final), to each log's end.
 * all: regardless of the window (an agent restarted or stopping: into the queue's file). Returns
 * true while more may wait, false once the shipper has nothing left. */
#define ARUN_LOG_WINDOW 64

static bool make_logs(arun_t *ar, bool final, bool all, const char *cut, int64_t now,
                      arun_out_t *out)
{
        if (!ar->logs || ar->dropped)
                return false;
        while (all || rqueue_pending(ar->q) < ARUN_LOG_WINDOW) {
                arun_pack_t p = {.what = ARUN_MSG_LOG, .final = final, .cut = cut, .dir = ar->dir};
                uint8_t *buf = NULL;
                size_t len = 0;
                int r;
                p.run_id = ar->id;
                p.run_seq = rqueue_next(ar->q);
                if ((r = ar->cfg.pack(ar->cfg.user, &p, &buf, &len)) < 0 || !buf)
                        return false;
                r = keep(ar, buf, len, now, out);
                free(buf);
                if (r < 0)
                        return false;
        }
        return true;
}

static void make_interval(arun_t *ar, bool last, int64_t now, arun_out_t *out)
{
        arun_pack_t p = {.what = ARUN_MSG_INTERVAL, .interval = ar->next_interval, .last = last};
        if (pack_keep(ar, &p, now, out) < 0)
                return;
        ar->next_interval++;
        ar->read_bytes = p.read_bytes;
        ar->write_bytes = p.write_bytes;
        save(ar);
}

/* An Error that belongs to the run (numbered: the coordinator takes it once, in order). */
static void make_error(arun_t *ar, Iofleet__ErrorCode code, const char *msg, int64_t now,
                       arun_out_t *out)
{
        envelope_t e = IOFLEET__ENVELOPE__INIT;
        Iofleet__Error err = IOFLEET__ERROR__INIT;
        uint8_t *buf;
        size_t len;
        if (ar->dropped)
                return;
        err.code = code;
        err.message = (char *)msg;
        err.run_id = ar->id;
        err.run_seq = rqueue_next(ar->q);
        e.body_case = IOFLEET__ENVELOPE__BODY_ERROR;
        e.error = &err;
        if (wire_encode(&e, &buf, &len) < 0)
                return;
        keep(ar, buf, len, now, out);
        free(buf);
}

/* How far the layout is, when it changed since the last report (or none went yet). Not a run
 * message: not numbered, not kept, not resent, and not made at all without a session (a
 * partition loses it; the next one says more). */
static void layout_report(arun_t *ar, int64_t now, arun_out_t *out)
{
        arun_pack_t p = {.what = ARUN_MSG_LAYOUT, .run_id = ar->id};
        uint8_t *buf = NULL;
        size_t len = 0;
        if (!ar->connected || ar->dropped || ar->cfg.pack(ar->cfg.user, &p, &buf, &len) < 0)
                return;
        if (p.layout_total &&
            (!ar->layout_sent || p.layout_done != ar->layout_done ||
             p.layout_total != ar->layout_total) &&
            outbox_push_raw(&out->coord, "", buf, len) == 0) {
                ar->layout_sent = true;
                ar->layout_done = p.layout_done;
                ar->layout_total = p.layout_total;
        }
        free(buf);
}

/* --- life ----------------------------------------------------------------------------------- */

static int make_dir(const char *dir)
{
        return mkdir_p(dir, 0700);
}

int arun_new(const Iofleet__Prepare *p, const arun_cfg_t *cfg, int64_t now, arun_out_t *out,
             arun_t **ret)
{
        arun_t *ar = calloc(1, sizeof(*ar));
        uint64_t runtime = 0;
        int r;
        if (!ar)
                return -ENOMEM;
        snprintf(ar->id, sizeof(ar->id), "%s", p->run_id);
        ar->cfg = *cfg;
        snprintf(ar->dir, sizeof(ar->dir), "%s", cfg->dir);
        ar->server = streq(p->role ? p->role : "", "server");
        ar->changes_host = ar->server || p->n_mount || p->n_sysctls;
        ar->grace_ns = p->orphan_grace_ns;
        ar->interval_ns = p->interval_ns;
        ar->finish_hold_ns = wire_finish_hold_ns(p->rank, p->nagents);
        snprintf(ar->boot_id, sizeof(ar->boot_id), "%s", cfg->boot_id ? cfg->boot_id : "");
        ar->connected = ar->synced = true;
        ar->last_ack = now;
        /* The interval count of a timed run: both sides derive it from the jobs; groups
         * (stonewall) run one after another, so the run lasts their sum (0: open-ended). */
        {
                job_spec_t *specs = calloc(p->n_jobs + 1, sizeof(*specs));
                size_t n = 0;
                char err[256];
                for (size_t i = 0; specs && i < p->n_jobs; i++, n++)
                        if (wire_job_spec(p->jobs[i], &specs[i], err, sizeof(err)) < 0)
                                break;
                if (specs && n == p->n_jobs && n > 0)
                        runtime = jobgroups_span(specs, n);
                for (size_t i = 0; i < n; i++)
                        ar->logs |= fiolog_kinds(&specs[i]) != 0;
                for (size_t i = 0; i < n; i++)
                        job_spec_done(&specs[i]);
                free(specs);
                if (runtime)
                        ar->max_intervals = intervals_of_runtime(runtime, ar->interval_ns);
        }
        if ((r = make_dir(ar->dir)) < 0 || (r = rqueue_create(ar->dir, cfg->mem_bytes, &ar->q)) < 0) {
                free(ar);
                return r;
        }
        ar->phase = ARUN_HOST;
        save(ar);
        out->todo |= ARUN_DO_HOST;
        *ret = ar;
        return 0;
}

int arun_recover(const arun_cfg_t *cfg, int64_t now, arun_out_t *out, arun_t **ret)
{
        arun_t *ar;
        saved_t s;
        int r = load(cfg->dir, &s);
        if (r < 0)
                return r;
        if (!(ar = calloc(1, sizeof(*ar))))
                return -ENOMEM;
        snprintf(ar->id, sizeof(ar->id), "%s", s.id);
        ar->cfg = *cfg;
        snprintf(ar->dir, sizeof(ar->dir), "%s", cfg->dir);
        ar->server = streq(s.role, "server");
        ar->changes_host = s.changes_host;
        ar->ran = s.ran;
        ar->next_interval = s.intervals;
        ar->read_bytes = s.read_bytes;
        ar->write_bytes = s.write_bytes;
        ar->finished_made = s.finished;
        ar->restored_made = s.restored;
        ar->logs = s.logs;
        if ((r = rqueue_load(ar->dir, s.acked, cfg->mem_bytes, &ar->q)) < 0) {
                /* No queue to resend from: the coordinator has at least what the state says it
                 * acknowledged, and the numbering goes on from there. */
                if ((r = rqueue_create(ar->dir, cfg->mem_bytes, &ar->q)) < 0) {
                        free(ar);
                        return r;
                }
                rqueue_skip(ar->q, s.acked);
        }
        /* Another boot since the record (or since one found before a restart of this one). */
        ar->host_restarted = s.host_restarted || (s.boot_id[0] && cfg->boot_id &&
                                                  cfg->boot_id[0] && !streq(s.boot_id, cfg->boot_id));
        snprintf(ar->boot_id, sizeof(ar->boot_id), "%s", cfg->boot_id ? cfg->boot_id : s.boot_id);
        ar->phase = ARUN_DONE;
        if (!streq(s.phase, "done")) {
                /* It died mid-run: its workers and host changes went with it (the agent's
                 * start put the host back). Its end is owed to the coordinator, after what it
                 * missed (make_owed()). */
                snprintf(ar->owed, sizeof(ar->owed), "%s", s.phase[0] ? s.phase : "running");
                log_warning("run %s: %s in phase %s; what it had not delivered goes to the "
                            "coordinator (%llu intervals: read %llu bytes, wrote %llu bytes, the "
                            "agent's own count)",
                            ar->id,
                            ar->host_restarted ? "the host restarted" : "the agent was restarted",
                            ar->owed, (unsigned long long)s.intervals,
                            (unsigned long long)s.read_bytes, (unsigned long long)s.write_bytes);
        }
        save(ar);
        *ret = ar;
        return 0;
}

void arun_free(arun_t **arp)
{
        arun_t *ar = *arp;
        if (!ar)
                return;
        if (arun_over(ar)) {
                char path[4300];
                rqueue_remove(&ar->q);
                logship_remove(ar->dir);
                snprintf(path, sizeof(path), "%s/" STATE_FILE, ar->dir);
                unlink(path);
                rmdir(ar->dir);
        } else
                rqueue_close(&ar->q);
        free(ar);
        *arp = NULL;
}

/* Puts the host back and, for a runner never started, lets it go. */
static void teardown(arun_t *ar, arun_out_t *out)
{
        if (ar->phase == ARUN_LAYOUT || ar->phase == ARUN_PREPARED)
                out->todo |= ARUN_DO_FREE_RUNNER;
        out->todo |= ARUN_DO_TEARDOWN;
        set_phase(ar, ARUN_TEARDOWN);
}

/* The workers are asked to stop; a client whose workers are still blocked in I/O on its mount
 * long after gets ARUN_DO_FORCE (arun_tick). */
static void ask_stop(arun_t *ar, int64_t now, arun_out_t *out)
{
        out->todo |= ARUN_DO_STOP;
        if (!ar->next_force && !ar->server && ar->changes_host)
                ar->next_force = now + ARUN_FORCE_AFTER_NS;
}

/* The run ends before its time (Stop, the grace over, the agent stopping, a failure). */
static void end_early(arun_t *ar, int64_t now, arun_out_t *out)
{
        switch (ar->phase) {
        case ARUN_HOST:
                ar->stop_requested = true;
                break;
        case ARUN_LAYOUT:
        case ARUN_PREPARED:
        case ARUN_SERVING:
                teardown(ar, out);
                break;
        case ARUN_STARTING:
        case ARUN_RUNNING:
                if (ar->draining)
                        break; /* the workers have ended; only their logs are on their way */
                ask_stop(ar, now, out);
                break;
        case ARUN_TEARDOWN:
        case ARUN_DONE:
                break;
        }
}

void arun_host_prepared(arun_t *ar, int rc, const char *err, int64_t now, arun_out_t *out)
{
        if (ar->phase != ARUN_HOST)
                return;
        if (rc < 0) {
                make_error(ar,
                           rc == -EINVAL || rc == -EPERM ? IOFLEET__ERROR_CODE__ERROR_BAD_JOB
                                                         : IOFLEET__ERROR_CODE__ERROR_PREPARE,
                           err, now, out);
                teardown(ar, out);
                return;
        }
        if (ar->server) {
                make(ar, ARUN_MSG_PREPARED, NULL, now, out);
                set_phase(ar, ARUN_SERVING);
        } else {
                out->todo |= ARUN_DO_RUNNER;
                set_phase(ar, ARUN_LAYOUT);
                /* The first report as soon as the runner is there: it tells the total. */
                ar->layout_next = now;
        }
        if (ar->stop_requested)
                end_early(ar, now, out);
}

void arun_fail(arun_t *ar, Iofleet__ErrorCode code, const char *why, int64_t now, arun_out_t *out)
{
        if (ar->phase == ARUN_TEARDOWN || ar->phase == ARUN_DONE)
                return;
        make_error(ar, code, why, now, out);
        if (ar->phase == ARUN_STARTING || ar->phase == ARUN_RUNNING) {
                ask_stop(ar, now, out);
                return;
        }
        teardown(ar, out);
}

void arun_runner_prepared(arun_t *ar, int64_t now, arun_out_t *out)
{
        if (ar->phase != ARUN_LAYOUT || ar->layout_over)
                return;
        /* The last report, at once: the layout ends at its total. */
        layout_report(ar, now, out);
        ar->layout_over = true;
        out->todo |= ARUN_DO_BURST;
}

void arun_clock_ready(arun_t *ar, bool ok, int64_t now, arun_out_t *out)
{
        if (ar->phase != ARUN_LAYOUT)
                return;
        if (!ok) {
                arun_fail(ar, IOFLEET__ERROR_CODE__ERROR_PREPARE,
                          "no clock probe answered by the coordinator within 500ms: cannot place "
                          "the start instant",
                          now, out);
                return;
        }
        make(ar, ARUN_MSG_PREPARED, NULL, now, out);
        set_phase(ar, ARUN_PREPARED);
}

void arun_on_start(arun_t *ar, int64_t start_mono, const char *err, int64_t now, arun_out_t *out)
{
        if (ar->phase != ARUN_PREPARED)
                return; /* a Start sent again after it was heard */
        if (err) {
                arun_fail(ar, IOFLEET__ERROR_CODE__ERROR_PREPARE, err, now, out);
                return;
        }
        ar->start_mono = start_mono;
        ar->ran = true;
        out->todo |= ARUN_DO_START;
        out->start_mono = start_mono;
        set_phase(ar, ARUN_STARTING);
}

void arun_group_waiting(arun_t *ar, unsigned group, int64_t now, arun_out_t *out)
{
        arun_pack_t p = {.what = ARUN_MSG_GROUP_READY, .group = group};
        if (ar->phase != ARUN_RUNNING || group <= ar->group_ready)
                return;
        ar->group_ready = group;
        pack_keep(ar, &p, now, out);
}

void arun_on_start_group(arun_t *ar, unsigned group, int64_t start_mono, uint64_t max_intervals,
                         const char *err, int64_t now, arun_out_t *out)
{
        /* Sent again (a rejoin), or for a group this agent has not reported waiting: left. */
        if (ar->phase != ARUN_RUNNING || group != ar->group_ready || group <= ar->group_given)
                return;
        if (err) {
                arun_fail(ar, IOFLEET__ERROR_CODE__ERROR_PREPARE, err, now, out);
                return;
        }
        ar->group_given = group;
        /* The run grew by the barrier's waits: its intervals go on counting to the new end. */
        if (ar->max_intervals && max_intervals > ar->max_intervals)
                ar->max_intervals = max_intervals;
        out->todo |= ARUN_DO_START_GROUP;
        out->group = group;
        out->group_mono = start_mono;
}

void arun_group_started(arun_t *ar, unsigned group, int64_t now, arun_out_t *out)
{
        arun_pack_t p = {.what = ARUN_MSG_GROUP_STARTED, .group = group};
        if (ar->phase != ARUN_RUNNING || group != ar->group_given || group <= ar->group_started)
                return;
        ar->group_started = group;
        pack_keep(ar, &p, now, out);
}

uint64_t arun_max_intervals(const arun_t *ar)
{
        return ar->max_intervals;
}

void arun_runner_running(arun_t *ar, int64_t now, arun_out_t *out)
{
        if (ar->phase != ARUN_STARTING)
                return;
        make(ar, ARUN_MSG_STARTED, NULL, now, out);
        set_phase(ar, ARUN_RUNNING);
}

/* The workers' part is over: Finished (from the runner's results), the runner let go, then
 * the host put back. */
static void finish(arun_t *ar, int64_t now, arun_out_t *out)
{
        if (ar->finish_hold_ns && !ar->gave_up) {
                ar->hold_from = rqueue_next(ar->q);
                ar->hold_until = now + ar->finish_hold_ns;
        }
        make(ar, ARUN_MSG_FINISHED, ar->gave_up ? ar->why : "", now, out);
        out->todo |= ARUN_DO_FREE_RUNNER;
        teardown(ar, out);
}

/* While draining: the next window of the logs, and Finished once none is left; all: the rest at
 * once (the agent gives up or stops: its queue's file takes them). */
static void drain(arun_t *ar, bool all, int64_t now, arun_out_t *out)
{
        if (ar->phase != ARUN_RUNNING)
                return;
        if (ar->draining && make_logs(ar, true, all, NULL, now, out))
                return;
        ar->draining = false;
        finish(ar, now, out);
}

void arun_runner_done(arun_t *ar, int64_t end_mono, int64_t now, arun_out_t *out)
{
        size_t last;
        if (ar->phase == ARUN_STARTING)
                /* Stopped before the instant, or every job ended at once. */
                arun_runner_running(ar, now, out);
        if (ar->phase != ARUN_RUNNING)
                return;
        /* The final interval holds the workers' last I/Os; none is skipped. */
        last = intervals_final(end_mono - ar->start_mono, ar->interval_ns, ar->max_intervals,
                               ar->next_interval);
        while (ar->next_interval < last)
                make_interval(ar, false, now, out);
        make_interval(ar, true, now, out);
        /* fio's logs go first, a window at a time as Acks come (the loop stays free for the
         * heartbeats however much the workers logged), then Finished and the host put back */
        ar->draining = ar->logs && !ar->dropped;
        drain(ar, false, now, out);
}

void arun_host_done(arun_t *ar, int rc, int64_t now, arun_out_t *out)
{
        if (ar->phase != ARUN_TEARDOWN)
                return;
        if (ar->server)
                /* A server's Finished says it put the server back: the run waits for that. */
                make(ar, ARUN_MSG_FINISHED, ar->gave_up ? ar->why : "", now, out);
        else if (ar->changes_host)
                make(ar, ARUN_MSG_RESTORED, rc < 0 ? "the host could not be put back wholly" : "",
                     now, out);
        set_phase(ar, ARUN_DONE);
}

void arun_on_stop(arun_t *ar, const char *why, int64_t now, arun_out_t *out)
{
        if (ar->phase != ARUN_TEARDOWN && ar->phase != ARUN_DONE)
                log_info("run %s: stop: %s", ar->id, why);
        end_early(ar, now, out);
}

/* The end an earlier life of the agent owes (arun_recover()): before it was ready it failed to
 * prepare, after it it finished early; a server's Finished says its host is back, a client's
 * Restored does. What is missing from the run is the coordinator's to say (the gaps of the
 * result): the record here may be older than what the agent had delivered. */
static void make_owed(arun_t *ar, int64_t now, arun_out_t *out)
{
        bool preparing = streq(ar->owed, "preparing") || streq(ar->owed, "prepared");
        const char *who = ar->host_restarted ? "the host restarted" : "the agent was restarted";
        if (preparing)
                snprintf(ar->why, sizeof(ar->why), "%s",
                         ar->host_restarted
                             ? "the host restarted while the agent was preparing the run"
                             : "the agent was restarted while preparing the run");
        else if (ar->server)
                snprintf(ar->why, sizeof(ar->why),
                         "%s during the run (the agent's start put back the server it had "
                         "configured)",
                         who);
        else if (ar->behind)
                snprintf(ar->why, sizeof(ar->why),
                         "%s during the run (its workers stopped; its record of the run was %llu "
                         "messages behind what it had delivered, lost with the host's last "
                         "writes)",
                         who, (unsigned long long)ar->behind);
        else
                snprintf(ar->why, sizeof(ar->why),
                         "%s during the run (its workers stopped after interval %zu)", who,
                         ar->next_interval);
        ar->owed[0] = 0;
        if (preparing)
                make_error(ar, IOFLEET__ERROR_CODE__ERROR_PREPARE, ar->why, now, out);
        /* what its workers logged before they died goes first, to its last whole line */
        if (!preparing && !ar->finished_made)
                make_logs(ar, true, true, ar->why, now, out);
        if ((!preparing || ar->server) && !ar->finished_made)
                make(ar, ARUN_MSG_FINISHED, preparing ? "" : ar->why, now, out);
        if (ar->changes_host && !ar->server && !ar->restored_made)
                make(ar, ARUN_MSG_RESTORED, "", now, out);
        save(ar);
}

void arun_on_ack(arun_t *ar, uint64_t upto, int64_t now, arun_out_t *out)
{
        size_t before = rqueue_pending(ar->q);
        bool sync = !ar->synced && ar->connected;
        if (sync && upto > rqueue_made(ar->q)) {
                /* The first word of a session: the coordinator has more of this run than the
                 * record here (the host lost its last writes). Numbers up to upto are taken. */
                ar->behind += upto - rqueue_made(ar->q);
                log_warning("run %s: the coordinator has %llu of this agent's messages, its "
                            "record here %llu (lost with the host's last writes): numbering goes "
                            "on from %llu",
                            ar->id, (unsigned long long)upto,
                            (unsigned long long)rqueue_made(ar->q), (unsigned long long)upto + 1);
                rqueue_skip(ar->q, upto);
        } else if (upto > rqueue_made(ar->q)) {
                log_warning("run %s: the coordinator acknowledges message %llu; only %llu were "
                            "made",
                            ar->id, (unsigned long long)upto,
                            (unsigned long long)rqueue_made(ar->q));
                upto = rqueue_made(ar->q);
        }
        if (rqueue_ack(ar->q, upto) || before == 0)
                ar->last_ack = now;
        if (sync) {
                /* Back in a session: the coordinator has everything up to upto. */
                if (ar->orphaned)
                        log_info("run %s: back with the coordinator after %.1fs; resending %zu "
                                 "messages from %llu",
                                 ar->id, (double)(now - ar->orphan_since) / NSEC_PER_SEC,
                                 rqueue_pending(ar->q), (unsigned long long)upto + 1);
                ar->synced = true;
                ar->orphaned = false;
                resend(ar, now, out);
                if (ar->owed[0])
                        make_owed(ar, now, out);
        }
        if (ar->sent_upto < upto)
                ar->sent_upto = upto;
        /* The window moved on: what waited behind it goes. */
        pump(ar, now, out);
        if (ar->draining)
                drain(ar, false, now, out);
        else if (ar->phase == ARUN_RUNNING)
                make_logs(ar, false, false, NULL, now, out);
        save(ar);
}

void arun_unknown(arun_t *ar, const char *why, int64_t now, arun_out_t *out)
{
        if (ar->dropped)
                return;
        log_warning("run %s: %s; %zu messages will not be delivered%s", ar->id, why,
                    rqueue_pending(ar->q),
                    ar->phase == ARUN_DONE ? "" : "; stopping it and putting the host back");
        ar->dropped = true;
        ar->orphaned = false;
        snprintf(ar->why, sizeof(ar->why), "the coordinator no longer has the run");
        ar->gave_up = true;
        end_early(ar, now, out);
        if (ar->draining)
                drain(ar, true, now, out);
}

static void give_up(arun_t *ar, const char *why, int64_t now, arun_out_t *out)
{
        if (ar->gave_up)
                return;
        ar->gave_up = true;
        snprintf(ar->why, sizeof(ar->why), "%s", why);
        if (ar->phase != ARUN_TEARDOWN && ar->phase != ARUN_DONE)
                log_warning("run %s: %s: stopping, putting the host back and keeping %s for the "
                            "coordinator",
                            ar->id, why, "what it made");
        end_early(ar, now, out);
        /* logs still on their way go into the queue at once: the host is put back now */
        if (ar->draining)
                drain(ar, true, now, out);
}

void arun_session(arun_t *ar, bool up, int64_t now, arun_out_t *out)
{
        if (up) {
                ar->connected = true;
                ar->synced = false;
                return;
        }
        ar->connected = ar->synced = false;
        if (ar->orphaned || ar->dropped || arun_over(ar))
                return;
        ar->orphaned = true;
        ar->orphan_since = now;
        if (!ar->grace_ns) {
                give_up(ar, "the coordinator was lost and the run has no orphan grace", now, out);
                return;
        }
        if (ar->phase != ARUN_DONE)
                log_warning("run %s: the coordinator was lost; carrying on for the orphan grace "
                            "(%llus), keeping every message for it",
                            ar->id, (unsigned long long)(ar->grace_ns / NSEC_PER_SEC));
}

void arun_shutdown(arun_t *ar, int64_t now, arun_out_t *out)
{
        give_up(ar, "the agent is stopping", now, out);
}

void arun_tick(arun_t *ar, int64_t now, arun_out_t *out)
{
        if (ar->phase == ARUN_LAYOUT && !ar->layout_over && now >= ar->layout_next) {
                layout_report(ar, now, out);
                ar->layout_next = now + ARUN_LAYOUT_REPORT_NS;
        }
        /* Interval k covers [start + k*iv, start + (k+1)*iv); a timed run's final one waits for
         * the workers so that it holds their last I/Os. */
        while (ar->phase == ARUN_RUNNING && !ar->draining &&
               now >= ar->start_mono + (int64_t)((ar->next_interval + 1) * ar->interval_ns) &&
               (!ar->max_intervals || ar->next_interval + 1 < ar->max_intervals))
                make_interval(ar, false, now, out);
        if (ar->draining)
                drain(ar, false, now, out);
        else if (ar->phase == ARUN_RUNNING)
                make_logs(ar, false, false, NULL, now, out);
        if (ar->next_force && (ar->phase == ARUN_STARTING || ar->phase == ARUN_RUNNING) &&
            now >= ar->next_force) {
                out->todo |= ARUN_DO_FORCE;
                ar->next_force = now + ARUN_FORCE_EVERY_NS;
        }
        if (ar->orphaned && !ar->gave_up && now >= ar->orphan_since + (int64_t)ar->grace_ns) {
                char why[128];
                snprintf(why, sizeof(why), "no coordinator for the whole orphan grace (%llus)",
                         (unsigned long long)(ar->grace_ns / NSEC_PER_SEC));
                give_up(ar, why, now, out);
        }
        /* Finished's hold is over: it goes, and what waited behind it. */
        if (ar->hold_from && now >= ar->hold_until) {
                ar->hold_from = 0;
                pump(ar, now, out);
        }
        /* Sent, not acknowledged for long: the coordinator dropped them (a gap): again. */
        if (ar->synced && rqueue_pending(ar->q) && now >= ar->last_ack + ar->cfg.resend_ns)
                resend(ar, now, out);
}

void arun_resend(arun_t *ar, int64_t now, arun_out_t *out)
{
        if (ar->synced && rqueue_pending(ar->q))
                resend(ar, now, out);
}

int64_t arun_next_deadline(const arun_t *ar)
{
        int64_t t = INT64_MAX;
        if (ar->phase == ARUN_LAYOUT && !ar->layout_over)
                t = ar->layout_next;
        if (ar->phase == ARUN_RUNNING && !ar->draining &&
            (!ar->max_intervals || ar->next_interval + 1 < ar->max_intervals))
                t = ar->start_mono + (int64_t)((ar->next_interval + 1) * ar->interval_ns);
        if (ar->next_force && (ar->phase == ARUN_STARTING || ar->phase == ARUN_RUNNING) &&
            ar->next_force < t)
                t = ar->next_force;
        if (ar->orphaned && !ar->gave_up && ar->orphan_since + (int64_t)ar->grace_ns < t)
                t = ar->orphan_since + (int64_t)ar->grace_ns;
        if (ar->synced && rqueue_pending(ar->q) && ar->last_ack + ar->cfg.resend_ns < t)
                t = ar->last_ack + ar->cfg.resend_ns;
        if (ar->hold_from && ar->hold_until < t)
                t = ar->hold_until;
        return t;
}

const char *arun_id(const arun_t *ar)
{
        return ar->id;
}

arun_phase_t arun_phase(const arun_t *ar)
{
        return ar->phase;
}

const char *arun_phase_name(const arun_t *ar)
{
        return phase_names[ar->phase];
}

bool arun_is_server(const arun_t *ar)
{
        return ar->server;
}

uint64_t arun_made(const arun_t *ar)
{
        return rqueue_made(ar->q);
}

uint64_t arun_pending(const arun_t *ar)
{
        return rqueue_pending(ar->q);
}

bool arun_ending(const arun_t *ar)
{
        return ar->phase == ARUN_TEARDOWN || ar->phase == ARUN_DONE || ar->stop_requested ||
               ar->gave_up;
}

bool arun_over(const arun_t *ar)
{
        return ar->phase == ARUN_DONE &&
               (ar->dropped || (rqueue_pending(ar->q) == 0 && !ar->owed[0]));
}
