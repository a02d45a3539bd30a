/* Following a run from the CLI: submitting it, live lines, ^C, re-attaching to a coordinator that
 * went silent, and the result printed at the end; shared by iofleet run, watch and sweeps. */
#include "follow.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "clock.h"
#include "output.h"
#include "render.h"
#include "util.h"

/* Silent this long, the coordinator is asked again for the run (re-attaching after a restart
 * or a lost connection); the whole wait is bounded by --reattach-timeout. */
#define PING_AFTER_NS (5 * (int64_t)NSEC_PER_SEC)
#define REATTACH_DEFAULT_NS (120 * (int64_t)NSEC_PER_SEC)
/* Not on a terminal (or --verbose), the layout's progress is a line this often, and its end. */
#define LAYOUT_LINE_NS (3 * (int64_t)NSEC_PER_SEC)

/* What following one run knows. */
typedef struct follow {
        client_t *c;
        const run_opts_t *o;
        FILE *live;
        uint64_t total; /* intervals the run is to have, 0 unknown */
        char run_id[WIRE_MAX_ID + 1];
        bool cancel_sent, silent, attached;
        int64_t last_word, next_ping, reattach;
        char *dir;
        size_t dirlen;
        /* The layout's progress: on a terminal one line rewritten in place (open until another
         * line comes); otherwise a line every LAYOUT_LINE_NS. */
        bool tty, layout_open, layout_ended;
        int64_t layout_line;
} follow_t;

/* Returned by a step of the loop that does not end it. */
#define FOLLOW_ON 1

volatile sig_atomic_t run_interrupted;

static void on_sigint(int sig)
{
        run_interrupted++;
}

void follow_catch_signals(void)
{
        struct sigaction sa = {.sa_handler = on_sigint};
        sigaction(SIGINT, &sa, NULL);
        sigaction(SIGTERM, &sa, NULL);
}

int follow_submit(client_t *c, Iofleet__SubmitRun *s, FILE *live, char *run_id, size_t len)
{
        envelope_t req = IOFLEET__ENVELOPE__INIT, *acc = NULL;
        const Iofleet__RunAccepted *a;
        char err[2048];
        int r;

        req.body_case = IOFLEET__ENVELOPE__BODY_SUBMIT_RUN;
        req.submit_run = s;
        r = client_call(c, &req, 10000, IOFLEET__ENVELOPE__BODY_RUN_ACCEPTED, &acc, err,
                        sizeof(err));
        if (r < 0) {
                fprintf(stderr, "iofleet: %s\n", err);
                return r;
        }
        a = acc->run_accepted;
        snprintf(run_id, len, "%s", a->run_id);
        fprintf(live, "iofleet: run %s accepted on %zu agents:", a->run_id, a->n_agents);
        for (size_t i = 0; i < a->n_agents; i++)
                fprintf(live, " %s", a->agents[i]->name);
        fprintf(live, "\n");
        wire_free(&acc);
        return 0;
}

int follow_watch(client_t *c, const char *run_id)
{
        envelope_t req = IOFLEET__ENVELOPE__INIT;
        Iofleet__WatchRun w = IOFLEET__WATCH_RUN__INIT;
        w.run_id = (char *)run_id;
        req.body_case = IOFLEET__ENVELOPE__BODY_WATCH_RUN;
        req.watch_run = &w;
        return client_send(c, &req);
}

/* The result as --output and --output-format ask: each of fio's formats asked for (cli/output.c),
 * to a file or stdout. */
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

/* The layout line rewritten in place ends before anything else is written. */
static void end_layout_line(follow_t *f)
{
        if (!f->layout_open)
                return;
        fputc('\n', f->live);
        fflush(f->live);
        f->layout_open = false;
}

/* Files being laid out: the line in place on a terminal, else one every few seconds and the
 * last; --verbose adds a line per agent. */
static void on_layout(follow_t *f, const Iofleet__RunUpdate *u)
{
        bool done = u->layout_done_bytes >= u->layout_total_bytes && u->layout_agents >= u->agents;
        int64_t now = clock_mono_ns();
        char line[512];

        if (f->layout_ended)
                return; /* a late update after the last line: nothing new to say */
        render_layout(line, sizeof(line), u);
        if (f->tty && !f->o->verbose) {
                /* \r and erase to the end of the line: the line shrinks as well as grows. */
                fprintf(f->live, "\r\033[K%s", line);
                f->layout_open = true;
                if (done)
                        end_layout_line(f);
        } else if (done || !f->layout_line || now - f->layout_line >= LAYOUT_LINE_NS) {
                fprintf(f->live, "iofleet: %s\n", line);
                if (f->o->verbose || f->o->per_host)
                        render_layout_agents(f->live, u);
                f->layout_line = now;
        }
        f->layout_ended = done;
        fflush(f->live);
}

/* ^C: watching, leave; running, cancel the run once, and leave at the second. */
static int on_interrupt(follow_t *f)
{
        if (run_interrupted)
                end_layout_line(f);
        if (run_interrupted && f->o->watch) {
                fprintf(stderr, "\niofleet: no longer watching; the run goes on\n");
                return -EINTR;
        }
        if (run_interrupted && !f->cancel_sent) {
                envelope_t req = IOFLEET__ENVELOPE__INIT;
                Iofleet__CancelRun cr = IOFLEET__CANCEL_RUN__INIT;
                fprintf(stderr, "\niofleet: cancelling the run (^C again to leave at once)\n");
                req.body_case = IOFLEET__ENVELOPE__BODY_CANCEL_RUN;
                req.cancel_run = &cr;
                client_send(f->c, &req);
                f->cancel_sent = true;
        }
        return run_interrupted > 1 ? -EINTR : FOLLOW_ON;
}

/* No word from the coordinator: ask again for the run, say so once, give up after reattach. */
static int on_silence(follow_t *f)
{
        int64_t now = clock_mono_ns(), quiet = now - f->last_word;
        if (quiet >= PING_AFTER_NS && now >= f->next_ping) {
                /* Still there, and still following this run? */
                follow_watch(f->c, f->run_id);
                f->next_ping = now + PING_AFTER_NS;
        }
        if (!f->silent && quiet >= 2 * PING_AFTER_NS) {
                end_layout_line(f);
                f->silent = true;
                fprintf(stderr,
                        "iofleet: no word from the coordinator for %llds; trying to re-attach to "
                        "run %s (for up to %llds)\n",
                        (long long)(quiet / (int64_t)NSEC_PER_SEC), f->run_id,
                        (long long)(f->reattach / (int64_t)NSEC_PER_SEC));
        }
        if (quiet >= f->reattach) {
                end_layout_line(f);
                fprintf(stderr,
                        "iofleet: the coordinator has not answered for %llds: leaving. Run %s may "
                        "still go on; follow it with 'iofleet watch %s'\n",
                        (long long)(quiet / (int64_t)NSEC_PER_SEC), f->run_id, f->run_id);
                return -ETIMEDOUT;
        }
        return FOLLOW_ON;
}

/* A live line: the run started, an interval, an alert, or what the coordinator says. */
static void on_update(follow_t *f, const Iofleet__RunUpdate *u)
{
        if (u->kind == IOFLEET__RUN_UPDATE__KIND__KIND_LAYOUT)
                on_layout(f, u);
        else if (u->kind == IOFLEET__RUN_UPDATE__KIND__KIND_STARTED)
                render_started(f->live, u);
        else if (u->kind == IOFLEET__RUN_UPDATE__KIND__KIND_INTERVAL)
                render_interval(f->live, u, f->total, f->o->per_host);
        else if (u->kind == IOFLEET__RUN_UPDATE__KIND__KIND_ALERT)
                fprintf(f->live, "iofleet: ALERT: %s\n", u->message);
        else if (u->message && *u->message)
                fprintf(f->live, "iofleet: %s\n", u->message);
}

/* The run's end: how it ended, and its result written as asked. 0, or -EIO when the run failed
 * or its result could not be read or written. */
static int on_done(follow_t *f, const Iofleet__RunDone *d)
{
        const run_opts_t *o = f->o;
        int rc = d->code == IOFLEET__ERROR_CODE__ERROR_NONE ? 0 : -EIO;
        json_error_t je;
        json_t *doc;
        char path[4200];

        if (!*d->result_json && *d->results_dir) {
                /* A result too large to travel: read where the coordinator put it (works when
                 * the CLI shares its file system). */
                snprintf(path, sizeof(path), "%s/result.json", d->results_dir);
                doc = json_load_file(path, 0, &je);
        } else
                doc = json_loads(d->result_json, 0, &je);
        if (f->dir)
                snprintf(f->dir, f->dirlen, "%s", d->results_dir);
        if (d->code != IOFLEET__ERROR_CODE__ERROR_NONE)
                fprintf(stderr, "iofleet: run %s did not complete: %s\n", d->run_id, d->message);
        else if (streq(d->status ? d->status : "", "partial"))
                fprintf(stderr,
                        "iofleet: run %s is PARTIAL (on_agent_loss=continue): not every agent "
                        "delivered every interval; see the result\n",
                        d->run_id);
        if (!doc) {
                fprintf(stderr,
                        "iofleet: the result could not be read: %s (the coordinator keeps it in "
                        "%s)\n",
                        je.text, d->results_dir);
                return -EIO;
        }
        if (write_output(o, doc, d->results_dir) < 0)
                rc = -EIO;
        if (o->output || output_machine(o->format))
                fprintf(f->live, "iofleet: result in %s%s%s/result.json\n",
                        o->output ? o->output : "", o->output ? " and " : "", d->results_dir);
        json_decref(doc);
        return rc;
}

/* An Error: the end when watching a run that is not there, or when the coordinator has neither
 * the run nor its result; else said and followed on. */
static int on_error(follow_t *f, const Iofleet__Error *e)
{
        fprintf(stderr, "iofleet: %s\n", e->message);
        if (!f->attached)
                return -ENOENT; /* iofleet watch of a run that is not there */
        if (e->code == IOFLEET__ERROR_CODE__ERROR_UNKNOWN_RUN &&
            streq(e->run_id ? e->run_id : "", f->run_id)) {
                fprintf(stderr,
                        "iofleet: run %s is not known to the coordinator any more: its outcome "
                        "is unknown\n",
                        f->run_id);
                return -ENOENT;
        }
        return FOLLOW_ON;
}

/* One message from the coordinator: FOLLOW_ON, or how following ends. */
static int on_message(follow_t *f, const envelope_t *e)
{
        /* Another run's traffic (a WatchRun ping's answer that crossed the last run's end, in a
         * sweep) is not this run's. */
        if (f->run_id[0] && wire_run_id(e)[0] && !streq(wire_run_id(e), f->run_id) &&
            (e->body_case == IOFLEET__ENVELOPE__BODY_RUN_UPDATE ||
             e->body_case == IOFLEET__ENVELOPE__BODY_RUN_DONE ||
             e->body_case == IOFLEET__ENVELOPE__BODY_RUN_ACCEPTED))
                return FOLLOW_ON;
        f->last_word = clock_mono_ns();
        f->next_ping = 0;
        if (e->body_case != IOFLEET__ENVELOPE__BODY_RUN_UPDATE ||
            e->run_update->kind != IOFLEET__RUN_UPDATE__KIND__KIND_LAYOUT)
                end_layout_line(f);
        if (f->silent && e->body_case != IOFLEET__ENVELOPE__BODY_ERROR) {
                f->silent = false;
                fprintf(stderr, "iofleet: re-attached to run %s\n", f->run_id);
        }
        switch (e->body_case) {
        case IOFLEET__ENVELOPE__BODY_RUN_ACCEPTED:
                /* iofleet watch's answer, or a re-attach's: the run goes on. */
                if (!f->attached)
                        fprintf(f->live, "iofleet: watching run %s on %zu agents\n",
                                e->run_accepted->run_id, e->run_accepted->n_agents);
                f->attached = true;
                snprintf(f->run_id, sizeof(f->run_id), "%s", e->run_accepted->run_id);
                return FOLLOW_ON;
        case IOFLEET__ENVELOPE__BODY_RUN_UPDATE:
                on_update(f, e->run_update);
                return FOLLOW_ON;
        case IOFLEET__ENVELOPE__BODY_RUN_DONE:
                return on_done(f, e->run_done);
        case IOFLEET__ENVELOPE__BODY_ERROR:
                return on_error(f, e->error);
        default:
                return FOLLOW_ON;
        }
}

int follow_run(client_t *c, const run_opts_t *o, const char *run_id, uint64_t total, FILE *live,
               char *dir, size_t dirlen)
{
        follow_t f = {.c = c,
                      .o = o,
                      .live = live,
                      .total = total,
                      .attached = !o->watch,
                      .last_word = clock_mono_ns(),
                      .reattach = o->reattach_ns ? (int64_t)o->reattach_ns : REATTACH_DEFAULT_NS,
                      .dir = dir,
                      .dirlen = dirlen,
                      .tty = isatty(fileno(live))};
        char err[1024];
        int r = FOLLOW_ON;

        snprintf(f.run_id, sizeof(f.run_id), "%s", run_id ? run_id : "");
        while (r == FOLLOW_ON) {
                envelope_t *e = NULL;
                if ((r = on_interrupt(&f)) != FOLLOW_ON)
                        break;
                r = client_recv(c, 1000, &e, err, sizeof(err));
                if (r == -ETIMEDOUT || r == -EINTR)
                        r = on_silence(&f);
                else if (r < 0) {
                        fprintf(stderr, "iofleet: bad message from the coordinator: %s\n", err);
                        r = FOLLOW_ON;
                } else
                        r = on_message(&f, e);
                wire_free(&e);
        }
        end_layout_line(&f);
        return r;
}
