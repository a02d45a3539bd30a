/* A run's files being laid out, on the coordinator: the agents' LayoutProgress noted (best
 * effort: not journalled, not acknowledged) and RunUpdate{KIND_LAYOUT} for the live line. */
#include <errno.h>
#include <stdlib.h>

#include "util.h"
#include "run-internal.h"

/* The live line at most this often; the first this long after the first report (a layout quicker
 * than that shows nothing). */
#define RUN_LAYOUT_SHOW_NS ((int64_t)NSEC_PER_SEC)
/* Agents listed one by one in an update, at most (the sums cover them all). */
#define RUN_LAYOUT_PER_AGENT_MAX 1024

static void agent_layout(Iofleet__AgentLayout *pb, const run_agent_t *a,
                         const layout_figures_t *f)
{
        iofleet__agent_layout__init(pb);
        pb->name = (char *)a->name;
        pb->done_bytes = f->done;
        pb->total_bytes = f->total;
        pb->rate = f->rate;
        pb->eta_ns = f->eta_ns;
}

static void show(coord_run_t *run, int64_t now, run_out_t *out)
{
        Iofleet__RunUpdate u = IOFLEET__RUN_UPDATE__INIT;
        Iofleet__AgentLayout slow, *per = NULL, **pp = NULL;
        layout_sum_t s;
        size_t n = 0;

        layout_progress_sum(&run->layout, now, &s);
        u.kind = IOFLEET__RUN_UPDATE__KIND__KIND_LAYOUT;
        u.agents = (uint32_t)run->layout.expected;
        u.layout_agents = (uint32_t)s.reported;
        u.layout_done_bytes = s.all.done;
        u.layout_total_bytes = s.all.total;
        u.layout_rate = s.all.rate;
        u.layout_eta_ns = s.all.eta_ns;
        if (s.slowest >= 0) {
                agent_layout(&slow, &run->agents[s.slowest], &s.slow);
                u.layout_slowest = &slow;
        }
        /* Per agent, as far as memory allows: the sums say the rest. */
        per = calloc(s.reported ? s.reported : 1, sizeof(*per));
        pp = calloc(s.reported ? s.reported : 1, sizeof(*pp));
        for (size_t i = 0; per && pp && i < run->layout.n && n < RUN_LAYOUT_PER_AGENT_MAX; i++) {
                layout_figures_t f;
                if (!run->layout.agents[i].reported)
                        continue;
                layout_progress_agent(&run->layout, i, now, &f);
                agent_layout(&per[n], &run->agents[i], &f);
                pp[n] = &per[n];
                n++;
        }
        u.layout_per_agent = pp;
        u.n_layout_per_agent = per && pp ? n : 0;
        run_push_update(run, out, &u);
        free(per);
        free(pp);
        run->layout_shown = true;
        run->layout_shown_ns = now;
        run->layout_dirty = false;
}

int run_on_layout_progress(coord_run_t *run, const char *agent_id, const Iofleet__LayoutProgress *m,
                           int64_t now, run_out_t *out)
{
        run_agent_t *a = run_find_agent(run, agent_id);
        layout_sum_t s;

        if (!a || a->lost || a->server || run->phase != RUN_PREPARING ||
            !streq(m->run_id, run->id))
                return -ESRCH;
        if (!run->layout.agents) {
                size_t clients = 0;
                for (size_t i = 0; i < run->n_agents; i++)
                        clients += !run->agents[i].server;
                if (layout_progress_init(&run->layout, run->n_agents, clients) < 0)
                        return -ENOMEM;
                run->layout_first_ns = now;
        }
        layout_progress_note(&run->layout, (size_t)(a - run->agents), m->done_bytes,
                             m->total_bytes, now);
        run->layout_dirty = true;
        /* The end of a layout that was shown goes at once: the line ends at its total. */
        layout_progress_sum(&run->layout, now, &s);
        if (run->layout_shown && s.complete)
                show(run, now, out);
        return 0;
}

int64_t run_layout_deadline(const coord_run_t *run)
{
        int64_t t;
        if (run->phase != RUN_PREPARING || !run->layout_dirty)
                return INT64_MAX;
        t = run->layout_first_ns + RUN_LAYOUT_SHOW_NS;
        if (run->layout_shown && run->layout_shown_ns + RUN_LAYOUT_SHOW_NS > t)
                t = run->layout_shown_ns + RUN_LAYOUT_SHOW_NS;
        return t;
}

void run_layout_tick(coord_run_t *run, int64_t now, run_out_t *out)
{
        if (now >= run_layout_deadline(run))
                show(run, now, out);
}
