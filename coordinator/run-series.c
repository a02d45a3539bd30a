/* A run's interval series beyond memory: the window it keeps, the spool (the run directory's
 * intervals.csv) older intervals go to, and reading the whole series back. */
#include <errno.h>
#include <stdio.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "run-internal.h"
#include "util.h"

/* intervals.csv: a cluster row ("*", rank -1, how many reported) and a row per agent that
 * reported, per interval. */
static void csv_header(FILE *f)
{
        fputs("interval,start_s,agent,read_bytes,read_ios,write_bytes,write_ios,errors,meta_ops,"
              "agent_rank,reported,clat_p50_ns,clat_p99_ns\n",
              f);
}

static void csv_row(FILE *f, uint64_t interval_ns, const run_iv_row_t *row)
{
        const run_interval_t *v = &row->v;
        fprintf(f, "%zu,%.3f,%s,%llu,%llu,%llu,%llu,%llu,%llu,%ld,%u,%llu,%llu\n", row->k,
                row->k * interval_ns / 1e9, row->a ? row->a->name : "*",
                (unsigned long long)v->io.read_bytes, (unsigned long long)v->io.read_ios,
                (unsigned long long)v->io.write_bytes, (unsigned long long)v->io.write_ios,
                (unsigned long long)v->io.errors, (unsigned long long)v->io.meta_ops,
                row->a ? (long)row->a->rank : -1L, row->a ? 1u : row->reported,
                (unsigned long long)row->clat_p50_ns, (unsigned long long)row->clat_p99_ns);
}

/* The cluster's row of interval k (in memory). */
static run_iv_row_t cluster_row(const coord_run_t *run, size_t k)
{
        const cluster_interval_t *c = run_civ(run, k);
        return (run_iv_row_t){k,
                              NULL,
                              {c->io, true, true},
                              c->reported,
                              c->clat_p50_ns,
                              c->clat_p99_ns};
}

/* Writes intervals spooled .. upto - 1 to the spool. */
static void spool_upto(coord_run_t *run, size_t upto)
{
        for (size_t k = run->spooled; k < upto && k < run->n_civ; k++) {
                run_iv_row_t row = cluster_row(run, k);
                csv_row(run->spool, run->interval_ns, &row);
                for (size_t i = 0; i < run->n_agents; i++) {
                        const run_interval_t *v = run_agent_iv(&run->agents[i], k);
                        if (!v || !v->received)
                                continue;
                        row = (run_iv_row_t){k, &run->agents[i], *v, 1, 0, 0};
                        csv_row(run->spool, run->interval_ns, &row);
                }
        }
        if (upto > run->spooled)
                run->spooled = upto < run->n_civ ? upto : run->n_civ;
}

/* A soak run keeps a window of intervals behind the last one shown (for late agents and for
 * /metrics) and writes the older ones out, so that its memory stays flat. */
void run_spool_old(coord_run_t *run)
{
        size_t keep = RUN_KEEP_INTERVALS, drop;
        if (!run->spool)
                return;
        if (run->interval_ns && 2 * NSEC_PER_SEC / run->interval_ns + 8 > keep)
                keep = 2 * NSEC_PER_SEC / run->interval_ns + 8;
        /* In batches of keep, so that moving the window costs little per interval. */
        if (run->next_emit < run->civ_base + 2 * keep)
                return;
        drop = run->next_emit - keep;
        spool_upto(run, drop);
        fflush(run->spool);
        for (size_t k = run->civ_base; k < drop; k++)
                hist_free(&run_civ(run, k)->clat);
        memmove(run->civ, run->civ + (drop - run->civ_base),
                (run->n_civ - drop) * sizeof(*run->civ));
        run->civ_base = drop;
        for (size_t i = 0; i < run->n_agents; i++) {
                run_agent_t *a = &run->agents[i];
                size_t n = drop > a->iv_base ? drop - a->iv_base : 0;
                if (n > a->n_iv)
                        n = a->n_iv;
                memmove(a->iv, a->iv + n, (a->n_iv - n) * sizeof(*a->iv));
                memset(a->iv + a->n_iv - n, 0, n * sizeof(*a->iv));
                a->iv_base = drop;
        }
}

int run_set_spool(coord_run_t *run, const char *path)
{
        FILE *f = fopen(path, "we");
        if (!f)
                return -errno;
        csv_header(f);
        run->spool = f;
        snprintf(run->spool_path, sizeof(run->spool_path), "%s", path);
        return 0;
}

int run_keep_late(coord_run_t *run, const run_agent_t *a, size_t k, const run_interval_t *v)
{
        if (array_reserve((void **)&run->late, &run->cap_late, run->n_late, sizeof(*run->late)) < 0)
                return -ENOMEM;
        run->late[run->n_late++] = (run_late_t){k, a->rank, *v};
        return 0;
}

static int late_cmp(const void *x, const void *y)
{
        const run_late_t *a = x, *b = y;
        if (a->k != b->k)
                return a->k < b->k ? -1 : 1;
        return a->rank < b->rank ? -1 : a->rank > b->rank;
}

/* Parses one spool row; the agent's rank is -1 for a cluster row. The latency columns came
 * later: a row without them has none. */
static bool parse_row(const coord_run_t *run, const char *line, run_iv_row_t *row, long *rank)
{
        unsigned long long v[7], p50 = 0, p99 = 0;
        char agent[WIRE_MAX_NAME + 2];
        unsigned reported;
        size_t k;
        double t;
        if (sscanf(line, "%zu,%lf,%65[^,],%llu,%llu,%llu,%llu,%llu,%llu,%ld,%u,%llu,%llu", &k, &t,
                   agent, &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], rank, &reported, &p50,
                   &p99) < 11)
                return false;
        if (*rank >= (long)run->n_agents)
                return false;
        memset(row, 0, sizeof(*row));
        row->reported = reported;
        row->k = k;
        row->a = *rank < 0 ? NULL : &run->agents[*rank];
        row->v = (run_interval_t){{v[0], v[1], v[2], v[3], v[4], v[5]}, true, true};
        row->clat_p50_ns = p50;
        row->clat_p99_ns = p99;
        return true;
}

/* Rewrites the spool with the late intervals in their places (and in their cluster rows): the
 * series stays one ordered file however late an agent brought its part. */
static int merge_late(coord_run_t *run)
{
        char tmp[4300], line[512];
        FILE *in, *out;
        size_t li = 0;
        int r = 0;

        qsort(run->late, run->n_late, sizeof(*run->late), late_cmp);
        snprintf(tmp, sizeof(tmp), "%s.merge", run->spool_path);
        if (!(in = fopen(run->spool_path, "re")))
                return -errno;
        if (!(out = fopen(tmp, "we"))) {
                r = -errno;
                fclose(in);
                return r;
        }
        csv_header(out);
        if (!fgets(line, sizeof(line), in))
                line[0] = 0;
        /* Cluster row of k, then its agents' rows: late rows go after those of their k. */
        bool have = fgets(line, sizeof(line), in) != NULL;
        while (have) {
                run_iv_row_t row;
                long rank;
                if (!parse_row(run, line, &row, &rank) || rank >= 0) {
                        have = fgets(line, sizeof(line), in) != NULL;
                        continue;
                }
                size_t k = row.k, from = li;
                while (li < run->n_late && run->late[li].k < k)
                        li++; /* an interval the series never had: cannot be */
                from = li;
                while (li < run->n_late && run->late[li].k == k) {
                        io_counts_add(&row.v.io, &run->late[li].v.io);
                        row.reported++;
                        li++;
                }
                csv_row(out, run->interval_ns, &row);
                while ((have = fgets(line, sizeof(line), in) != NULL)) {
                        run_iv_row_t ar;
                        if (!parse_row(run, line, &ar, &rank))
                                continue;
                        if (rank < 0)
                                break;
                        csv_row(out, run->interval_ns, &ar);
                }
                for (size_t j = from; j < li; j++) {
                        run_iv_row_t lr = {k, &run->agents[run->late[j].rank], run->late[j].v, 1, 0, 0};
                        csv_row(out, run->interval_ns, &lr);
                }
        }
        if (fflush(out) != 0 || ferror(out))
                r = -EIO;
        if (fclose(out) != 0 && r == 0)
                r = -errno;
        fclose(in);
        if (r == 0 && rename(tmp, run->spool_path) < 0)
                r = -errno;
        if (r < 0)
                unlink(tmp);
        return r;
}

int run_spool_finish(coord_run_t *run)
{
        int r = 0;
        if (!run->spool)
                return 0;
        spool_upto(run, run->n_civ);
        if (fflush(run->spool) != 0 || ferror(run->spool))
                r = -EIO;
        if (fclose(run->spool) != 0 && r == 0)
                r = -errno;
        run->spool = NULL;
        if (r == 0 && run->n_late) {
                log_info("run %s: %zu agent intervals came after they had been written out (an "
                         "agent back from a partition): merged into the series",
                         run->id, run->n_late);
                r = merge_late(run);
        }
        if (run->late_dropped)
                log_warning("run %s: %llu late intervals could not be kept (out of memory); they "
                            "count in the totals, not in the series",
                            run->id, (unsigned long long)run->late_dropped);
        return r;
}

static int each_from_spool(const coord_run_t *run, int (*cb)(void *, const run_iv_row_t *), void *user)
{
        FILE *f = fopen(run->spool_path, "re");
        char line[512];
        int r = 0;
        if (!f)
                return -errno;
        if (!fgets(line, sizeof(line), f)) {
                fclose(f);
                return 0;
        }
        while (r >= 0 && fgets(line, sizeof(line), f)) {
                run_iv_row_t row;
                long rank;
                if (parse_row(run, line, &row, &rank))
                        r = cb(user, &row);
        }
        fclose(f);
        return r;
}

int run_intervals_each(const coord_run_t *run, int (*cb)(void *user, const run_iv_row_t *row),
                       void *user)
{
        if (run->spool_path[0] && !run->spool)
                return each_from_spool(run, cb, user);
        for (size_t k = run->civ_base; k < run->n_civ; k++) {
                run_iv_row_t row = cluster_row(run, k);
                int r = cb(user, &row);
                if (r < 0)
                        return r;
                for (size_t i = 0; i < run->n_agents; i++) {
                        const run_interval_t *v = run_agent_iv(&run->agents[i], k);
                        if (!v || !v->received)
                                continue;
                        row = (run_iv_row_t){k, &run->agents[i], *v, 0, 0, 0};
                        if ((r = cb(user, &row)) < 0)
                                return r;
                }
        }
        return 0;
}

typedef struct csv_out {
        FILE *f;
        uint64_t interval_ns;
} csv_out_t;

static int csv_each(void *user, const run_iv_row_t *row)
{
        const csv_out_t *o = user;
        csv_row(o->f, o->interval_ns, row);
        return 0;
}

int run_write_csv(const coord_run_t *run, const char *path)
{
        csv_out_t o = {fopen(path, "we"), run->interval_ns};
        if (!o.f)
                return -errno;
        csv_header(o.f);
        run_intervals_each(run, csv_each, &o);
        return fclose(o.f) != 0 ? -errno : 0;
}
