/* Files being laid out, as the coordinator sees a run's agents report it: per-agent windows, the
 * rate and ETA from them, the sums and the slowest agent. */
#include "layout-progress.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int layout_progress_init(layout_progress_t *l, size_t n, size_t expected)
{
        memset(l, 0, sizeof(*l));
        if (!(l->agents = calloc(n ? n : 1, sizeof(*l->agents))))
                return -ENOMEM;
        l->n = n;
        l->expected = expected;
        return 0;
}

void layout_progress_done(layout_progress_t *l)
{
        free(l->agents);
        memset(l, 0, sizeof(*l));
}

static const layout_sample_t *sample(const layout_agent_t *a, unsigned k)
{
        return &a->s[(a->head + k) % LAYOUT_SAMPLES];
}

void layout_progress_note(layout_progress_t *l, size_t i, uint64_t done, uint64_t total,
                          int64_t now)
{
        layout_agent_t *a;
        if (i >= l->n)
                return;
        a = &l->agents[i];
        if (a->reported && (done < a->done || total != a->total))
                a->n = a->head = 0; /* started over: the old window says nothing of the new */
        a->reported = true;
        a->done = done;
        a->total = total;
        if (a->n == LAYOUT_SAMPLES) {
                a->head = (a->head + 1) % LAYOUT_SAMPLES;
                a->n--;
        }
        a->s[(a->head + a->n) % LAYOUT_SAMPLES] = (layout_sample_t){now, done};
        a->n++;
}

void layout_progress_agent(const layout_progress_t *l, size_t i, int64_t now,
                           layout_figures_t *f)
{
        const layout_agent_t *a = i < l->n ? &l->agents[i] : NULL;
        const layout_sample_t *last, *ref = NULL;
        int64_t end;

        memset(f, 0, sizeof(*f));
        f->eta_ns = -1;
        if (!a || !a->reported)
                return;
        f->done = a->done;
        f->total = a->total;
        if (a->done >= a->total) {
                f->eta_ns = 0;
                return;
        }
        last = sample(a, a->n - 1);
        /* Silent since its last report: it has not moved (it reports every change). */
        end = now - last->t > LAYOUT_STALL_NS ? now : last->t;
        /* From the last sample at or before the window's start (so the rate spans the whole
         * window), else the oldest. */
        for (unsigned k = 0; k + 1 < a->n; k++) {
                const layout_sample_t *s = sample(a, k);
                if (!ref || s->t <= end - LAYOUT_WINDOW_NS)
                        ref = s;
        }
        if (!ref || end <= ref->t || last->done <= ref->done)
                return;
        f->rate = (uint64_t)((double)(last->done - ref->done) * 1e9 / (double)(end - ref->t));
        if (f->rate)
                f->eta_ns = (int64_t)((double)(a->total - a->done) * 1e9 / (double)f->rate);
}

/* Whether x is further from done than y (the slowest sorts first). */
static bool slower(const layout_figures_t *x, const layout_figures_t *y)
{
        if ((x->eta_ns < 0) != (y->eta_ns < 0))
                return x->eta_ns < 0;
        if (x->eta_ns != y->eta_ns && x->eta_ns >= 0)
                return x->eta_ns > y->eta_ns;
        /* Both unknown, or the same: the smaller share done. */
        return (double)x->done / (double)x->total < (double)y->done / (double)y->total;
}

void layout_progress_sum(const layout_progress_t *l, int64_t now, layout_sum_t *s)
{
        bool unknown = false;
        memset(s, 0, sizeof(*s));
        s->slowest = -1;
        for (size_t i = 0; i < l->n; i++) {
                layout_figures_t f;
                if (!l->agents[i].reported)
                        continue;
                layout_progress_agent(l, i, now, &f);
                s->reported++;
                s->all.done += f.done;
                s->all.total += f.total;
                s->all.rate += f.rate;
                if (f.eta_ns < 0)
                        unknown = true;
                else if (f.eta_ns > s->all.eta_ns)
                        s->all.eta_ns = f.eta_ns;
                if (f.done < f.total && (s->slowest < 0 || slower(&f, &s->slow))) {
                        s->slowest = (long)i;
                        s->slow = f;
                }
        }
        if (unknown)
                s->all.eta_ns = -1;
        s->complete = s->reported >= l->expected && s->all.done == s->all.total;
}
