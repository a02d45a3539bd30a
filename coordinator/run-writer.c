/* A finished run's result written in a thread of its own, so that the coordinator's loop goes on
 * while thousands of agents' entries are built and written. */
#include "run-writer.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log.h"
#include "result.h"
#include "util.h"

struct run_writer {
        const coord_run_t *run;
        char results_dir[4096];
        int wake_fd;
        pthread_t thread;
        bool threaded;
        atomic_bool done;
        run_written_t out;
};

/* What finishing a run wrote: the result (partial when the result says so and the plan did not
 * say to go on: never a silent ok), and its text for the RunDone when it fits. */
static void write_result(run_writer_t *w)
{
        const coord_run_t *run = w->run;
        run_written_t *o = &w->out;
        json_t *doc = NULL;

        o->code = run->code;
        snprintf(o->message, sizeof(o->message), "%s", run->message);
        snprintf(o->status, sizeof(o->status), "error");
        o->r = result_head(run, &doc);
        if (o->r < 0)
                return;
        snprintf(o->status, sizeof(o->status), "%s",
                 result_status(doc, o->partial, sizeof(o->partial)));
        if (streq(o->status, "partial") && o->code == IOFLEET__ERROR_CODE__ERROR_NONE &&
            !run->continue_on_loss) {
                o->code = IOFLEET__ERROR_CODE__ERROR_PARTIAL;
                snprintf(o->message, sizeof(o->message), "partial: %s", o->partial);
                result_set_error(doc, o->message);
        }
        /* Dumped once, into the file; the RunDone carries the file's text when it fits in a
         * control message (the CLI reads a bigger one from the directory). */
        o->r = result_write_dir(run, doc, w->results_dir, o->dir, sizeof(o->dir));
        if (o->r >= 0 && !(o->text = result_read_text(o->dir, RESULT_MAX_SENT)))
                log_warning("run %s: result not sent to the CLI (bigger than %zu bytes, or "
                            "unreadable): it is in %s",
                            run->id, (size_t)RESULT_MAX_SENT, o->dir);
        json_decref(doc);
}

static void signal_done(run_writer_t *w)
{
        uint64_t one = 1;
        atomic_store(&w->done, true);
        if (w->wake_fd >= 0 && write(w->wake_fd, &one, sizeof(one)) < 0 && errno != EAGAIN)
                log_warning("run %s: cannot wake the loop after writing the result: %m",
                            w->run->id);
}

static void *writer_thread(void *user)
{
        run_writer_t *w = user;
        write_result(w);
        signal_done(w);
        return NULL;
}

int run_writer_start(const coord_run_t *run, const char *results_dir, int wake_fd,
                     run_writer_t **ret)
{
        run_writer_t *w = calloc(1, sizeof(*w));
        int r;
        if (!w)
                return -ENOMEM;
        w->run = run;
        w->wake_fd = wake_fd;
        snprintf(w->results_dir, sizeof(w->results_dir), "%s", results_dir);
        atomic_init(&w->done, false);
        if ((r = pthread_create(&w->thread, NULL, writer_thread, w)) != 0) {
                log_warning("run %s: no thread to write its result (%s): writing it now",
                            run->id, strerror(r));
                write_result(w);
                signal_done(w);
        } else
                w->threaded = true;
        *ret = w;
        return 0;
}

bool run_writer_done(run_writer_t *w)
{
        return atomic_load(&w->done);
}

void run_writer_finish(run_writer_t **wp, run_written_t *out)
{
        run_writer_t *w = *wp;
        if (!w)
                return;
        if (w->threaded)
                pthread_join(w->thread, NULL);
        *out = w->out;
        free(w);
        *wp = NULL;
}
