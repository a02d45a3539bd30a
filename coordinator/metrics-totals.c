/* Cumulative /metrics counters across runs: the totals of the runs that are over, sorted by
 * agent name, and the runs in progress followed between renderings (each run's counts move into
 * the totals once, when it is over). */
#include "metrics-totals.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "util.h"

/* Counts of one run agent over every interval it sent. */
void metrics_totals_sum_agent(const run_agent_t *a, metrics_totals_t *t)
{
        io_counts_add(&t->io, &a->recv_io);
        clat_buckets_add(&t->clat_read, &a->clat_read);
        clat_buckets_add(&t->clat_write, &a->clat_write);
}

void metrics_totals_add(metrics_totals_t *dst, const metrics_totals_t *src)
{
        io_counts_add(&dst->io, &src->io);
        clat_buckets_add(&dst->clat_read, &src->clat_read);
        clat_buckets_add(&dst->clat_write, &src->clat_write);
}

static int cmp_totals_name(const void *key, const void *elem)
{
        return strcmp(key, ((const metrics_totals_t *)elem)->name);
}

static const metrics_totals_t *find_base(const metrics_input_t *in, const char *name)
{
        if (!in->n_base)
                return NULL;
        return bsearch(name, in->base, in->n_base, sizeof(*in->base), cmp_totals_name);
}

static bool is_folded(const metrics_input_t *in, const coord_run_t *run)
{
        for (size_t i = 0; i < in->n_folded; i++)
                if (in->folded[i] && streq(in->folded[i], run->id))
                        return true;
        return false;
}

int metrics_collect(const metrics_input_t *in, metrics_totals_t **ret, size_t *n_ret)
{
        size_t n_run = 0;
        metrics_totals_t *t;
        bool *used = calloc(in->n_base + 1, sizeof(*used));
        size_t n = 0;

        for (size_t r = 0; r < in->n_runs; r++)
                n_run += is_folded(in, in->runs[r]) ? 0 : in->runs[r]->n_agents;
        t = calloc(n_run + in->n_base + 1, sizeof(*t));
        if (!t || !used) {
                free(t);
                free(used);
                return -ENOMEM;
        }
        /* Agents of the runs in progress: what they did before plus what they did in them. */
        for (size_t r = 0; r < in->n_runs; r++) {
                const coord_run_t *run = in->runs[r];
                const metrics_totals_t *rt = in->run_totals ? in->run_totals[r] : NULL;
                if (is_folded(in, run))
                        continue;
                for (size_t i = 0; i < run->n_agents; i++) {
                        const run_agent_t *a = &run->agents[i];
                        const metrics_totals_t *b = find_base(in, a->name);
                        if (a->server)
                                continue;
                        snprintf(t[n].name, sizeof(t[n].name), "%s", a->name);
                        snprintf(t[n].hostname, sizeof(t[n].hostname), "%s", a->hostname);
                        if (rt)
                                metrics_totals_add(&t[n], &rt[i]);
                        else
                                metrics_totals_sum_agent(a, &t[n]);
                        if (b) {
                                metrics_totals_add(&t[n], b);
                                used[b - in->base] = true;
                        }
                        n++;
                }
        }
        for (size_t i = 0; i < in->n_base; i++)
                if (!used[i])
                        t[n++] = in->base[i];

        free(used);
        *ret = t;
        *n_ret = n;
        return 0;
}

/* A run followed between renderings: its counts so far, one entry per agent. */
typedef struct tracked {
        char id[WIRE_MAX_ID + 1];
        metrics_totals_t *cur;
        size_t n_cur;
} tracked_t;

struct metrics_tally {
        /* Totals of runs that are over, sorted by agent name. */
        metrics_totals_t *base;
        size_t n_base, cap_base;
        /* Runs whose counts are in base (the last few), so that none counts twice. */
        char folded[METRICS_TALLY_FOLDED][WIRE_MAX_ID + 1];
        size_t next_folded;
        tracked_t *tracked;
        size_t n_tracked;
};

int metrics_tally_new(metrics_tally_t **ret)
{
        metrics_tally_t *t = calloc(1, sizeof(*t));
        if (!t)
                return -ENOMEM;
        *ret = t;
        return 0;
}

static int base_add(metrics_tally_t *m, const metrics_totals_t *t)
{
        metrics_totals_t *b;
        size_t lo = 0, hi = m->n_base;

        while (lo < hi) {
                size_t mid = (lo + hi) / 2;
                int c = strcmp(t->name, m->base[mid].name);
                if (c == 0) {
                        metrics_totals_add(&m->base[mid], t);
                        /* The host an agent name was last seen on. */
                        snprintf(m->base[mid].hostname, sizeof(m->base[mid].hostname), "%s",
                                 t->hostname);
                        return 0;
                }
                if (c < 0)
                        hi = mid;
                else
                        lo = mid + 1;
        }
        if (m->n_base == m->cap_base) {
                size_t cap = m->cap_base ? m->cap_base * 2 : 16;
                b = realloc(m->base, cap * sizeof(*b));
                if (!b)
                        return -ENOMEM;
                m->base = b;
                m->cap_base = cap;
        }
        memmove(&m->base[lo + 1], &m->base[lo], (m->n_base - lo) * sizeof(*m->base));
        m->base[lo] = *t;
        m->n_base++;
        return 0;
}

bool metrics_tally_folded(const metrics_tally_t *m, const char *id)
{
        for (size_t i = 0; i < METRICS_TALLY_FOLDED; i++)
                if (streq(m->folded[i], id))
                        return true;
        return false;
}

static void untrack(metrics_tally_t *m, size_t i)
{
        free(m->tracked[i].cur);
        m->tracked[i] = m->tracked[--m->n_tracked];
}

/* Moves tracked run i's counts into the cumulative totals. run (when given) is over: every
 * interval it holds is summed instead of what was summed so far. */
static void fold(metrics_tally_t *m, size_t i, const coord_run_t *run)
{
        tracked_t *tr = &m->tracked[i];
        for (size_t a = 0; a < tr->n_cur; a++) {
                metrics_totals_t t = tr->cur[a];
                if (run && a < run->n_agents) {
                        memset(&t, 0, sizeof(t));
                        snprintf(t.name, sizeof(t.name), "%s", run->agents[a].name);
                        snprintf(t.hostname, sizeof(t.hostname), "%s", run->agents[a].hostname);
                        metrics_totals_sum_agent(&run->agents[a], &t);
                }
                if (run && a < run->n_agents && run->agents[a].server)
                        continue;
                if (base_add(m, &t) < 0)
                        log_warning("metrics: out of memory: counters of agent %s lost", t.name);
        }
        snprintf(m->folded[m->next_folded], sizeof(m->folded[0]), "%s", tr->id);
        m->next_folded = (m->next_folded + 1) % METRICS_TALLY_FOLDED;
        untrack(m, i);
}

static tracked_t *find_tracked(metrics_tally_t *m, const char *id)
{
        for (size_t i = 0; i < m->n_tracked; i++)
                if (streq(m->tracked[i].id, id))
                        return &m->tracked[i];
        return NULL;
}

/* Follows the runs: sums the intervals each has shown since the last call; a run that is over
 * moves into the totals. */
int metrics_tally_track(metrics_tally_t *m, const coord_run_t *const *runs, size_t n)
{
        for (size_t i = 0; i < m->n_tracked;) {
                bool present = false;
                for (size_t r = 0; r < n && !present; r++)
                        present = streq(runs[r]->id, m->tracked[i].id);
                if (present)
                        i++;
                else
                        fold(m, i, NULL); /* it went away without being seen done */
        }
        for (size_t r = 0; r < n; r++) {
                const coord_run_t *run = runs[r];
                tracked_t *tr;
                if (metrics_tally_folded(m, run->id))
                        continue;
                if (!(tr = find_tracked(m, run->id))) {
                        tracked_t *v = realloc(m->tracked, (m->n_tracked + 1) * sizeof(*v));
                        if (!v)
                                return -ENOMEM;
                        m->tracked = v;
                        tr = &v[m->n_tracked];
                        memset(tr, 0, sizeof(*tr));
                        if (!(tr->cur = calloc(run->n_agents + 1, sizeof(*tr->cur))))
                                return -ENOMEM;
                        m->n_tracked++;
                        tr->n_cur = run->n_agents;
                        snprintf(tr->id, sizeof(tr->id), "%s", run->id);
                        for (size_t i = 0; i < run->n_agents; i++) {
                                snprintf(tr->cur[i].name, sizeof(tr->cur[i].name), "%s",
                                         run->agents[i].name);
                                snprintf(tr->cur[i].hostname, sizeof(tr->cur[i].hostname), "%s",
                                         run->agents[i].hostname);
                        }
                }
                for (size_t i = 0; i < tr->n_cur && i < run->n_agents; i++) {
                        metrics_totals_t *c = &tr->cur[i];
                        memset(&c->io, 0, sizeof(c->io));
                        memset(&c->clat_read, 0, sizeof(c->clat_read));
                        memset(&c->clat_write, 0, sizeof(c->clat_write));
                        metrics_totals_sum_agent(&run->agents[i], c);
                }
                if (run_done(run))
                        fold(m, (size_t)(tr - m->tracked), run);
        }
        return 0;
}

const metrics_totals_t **metrics_tally_input(const metrics_tally_t *t, const coord_run_t *const *runs,
                                             size_t n, const char **folded, metrics_input_t *in)
{
        const metrics_totals_t **totals = calloc(n + 1, sizeof(*totals));

        for (size_t r = 0; totals && r < n; r++) {
                const tracked_t *tr = NULL;
                for (size_t i = 0; i < t->n_tracked && !tr; i++)
                        if (streq(t->tracked[i].id, runs[r]->id))
                                tr = &t->tracked[i];
                totals[r] = tr && tr->n_cur == runs[r]->n_agents ? tr->cur : NULL;
        }
        for (size_t i = 0; i < METRICS_TALLY_FOLDED; i++)
                folded[i] = t->folded[i];
        in->folded = folded;
        in->n_folded = METRICS_TALLY_FOLDED;
        in->base = t->base;
        in->n_base = t->n_base;
        in->run_totals = totals;
        return totals;
}

void metrics_tally_free(metrics_tally_t **tp)
{
        metrics_tally_t *t = *tp;
        if (!t)
                return;
        free(t->base);
        while (t->n_tracked)
                untrack(t, 0);
        free(t->tracked);
        free(t);
        *tp = NULL;
}
