/* Which of a job's files the next I/O goes to: fio's file_service_type (roundrobin, random,
 * sequential with their :N, zipf, pareto, normal) within the openfiles it works on at once. */
#include "fileservice.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { FS_IDLE = 0, FS_ACTIVE = 1, FS_DONE = 2 };

static double uniform(randmap_rng_t *r)
{
        return (double)(randmap_rng_next(r) >> 11) / 9007199254740992.0; /* [0, 1) */
}

/* The window: the first idle files become active until open_max are. */
static void fill_window(fileservice_t *fs)
{
        for (unsigned i = 0; i < fs->n && fs->active < fs->open_max; i++)
                if (fs->state[i] == FS_IDLE) {
                        fs->state[i] = FS_ACTIVE;
                        fs->active++;
                }
}

/* The distributions' chance of each rank, cumulated: zipf's 1/k^theta, pareto's and normal's
 * as fio's generators spread them over n ranges. */
static void build_cdf(fileservice_t *fs)
{
        double sum = 0, *w = fs->cdf;
        unsigned n = fs->n;

        for (unsigned k = 0; k < n; k++) {
                if (fs->fst.kind == FST_ZIPF)
                        w[k] = 1.0 / pow((double)(k + 1), fs->fst.value);
                else if (fs->fst.kind == FST_PARETO) {
                        /* fio: rank = n * u^(log h / log(1 - h)); the chance of rank k */
                        double p = log(fs->fst.value) / log(1.0 - fs->fst.value);
                        w[k] = pow((double)(k + 1) / n, 1.0 / p) - pow((double)k / n, 1.0 / p);
                } else {
                        /* normal around the middle, deviation fst.value percent of n (0: all
                         * files alike) */
                        double sd = n * fs->fst.value / 100.0, x = k + 0.5 - n / 2.0;
                        w[k] = sd > 0 ? exp(-x * x / (2 * sd * sd)) : 1.0;
                }
                sum += w[k];
        }
        for (unsigned k = 0; k < n; k++)
                w[k] = (k ? w[k - 1] : 0) + w[k] / sum;
        w[n - 1] = 1.0;
}

int fileservice_init(fileservice_t *fs, const fst_t *fst, unsigned nfiles, unsigned openfiles,
                     uint64_t seed)
{
        memset(fs, 0, sizeof(*fs));
        fs->fst = *fst;
        fs->n = nfiles ? nfiles : 1;
        fs->open_max = openfiles && openfiles < fs->n ? openfiles : fs->n;
        fs->simple = fst->kind == FST_ROUNDROBIN && fst->nr <= 1 && fs->open_max == fs->n;
        randmap_rng_seed(&fs->rng, seed ^ 0x66696c6573657276ULL);
        if (fs->simple)
                return 0;
        fs->state = calloc(fs->n, sizeof(*fs->state));
        if (!fs->state)
                return -ENOMEM;
        if (fst->kind >= FST_ZIPF) {
                fs->cdf = calloc(fs->n, sizeof(*fs->cdf));
                fs->rank = calloc(fs->n, sizeof(*fs->rank));
                if (!fs->cdf || !fs->rank)
                        return -ENOMEM;
                build_cdf(fs);
                /* fio hashes a drawn rank to a file so that the hot ones are not the first */
                for (unsigned i = 0; i < fs->n; i++)
                        fs->rank[i] = i;
                for (unsigned i = fs->n - 1; i > 0; i--) {
                        unsigned j = (unsigned)randmap_rng_below(&fs->rng, i + 1), t = fs->rank[i];
                        fs->rank[i] = fs->rank[j];
                        fs->rank[j] = t;
                }
        }
        fileservice_reset(fs);
        return 0;
}

void fileservice_done(fileservice_t *fs)
{
        free(fs->state);
        free(fs->cdf);
        free(fs->rank);
        memset(fs, 0, sizeof(*fs));
}

/* An active file at random (uniform, or by the distribution over every file's rank, skipping
 * those not in the window). */
static unsigned pick_random(fileservice_t *fs)
{
        if (fs->fst.kind == FST_RANDOM) {
                unsigned k = (unsigned)randmap_rng_below(&fs->rng, fs->active), i = 0;
                for (;; i++)
                        if (fs->state[i] == FS_ACTIVE && k-- == 0)
                                return i;
        }
        for (int tries = 0; tries < 64; tries++) {
                double u = uniform(&fs->rng);
                unsigned lo = 0, hi = fs->n - 1;
                while (lo < hi) {
                        unsigned mid = (lo + hi) / 2;
                        if (fs->cdf[mid] > u)
                                hi = mid;
                        else
                                lo = mid + 1;
                }
                if (fs->state[fs->rank[lo]] == FS_ACTIVE)
                        return fs->rank[lo];
        }
        for (unsigned i = 0;; i++) /* the window holds none of the likely ones */
                if (fs->state[i] == FS_ACTIVE)
                        return i;
}

void fileservice_next(fileservice_t *fs, bool pass_done)
{
        unsigned cur = fs->cur;

        if (fs->simple) {
                if (++fs->cur == fs->n)
                        fs->cur = 0;
                return;
        }
        if (pass_done && fs->state[cur] == FS_ACTIVE) {
                /* done until every file is: the next idle one joins the window */
                fs->state[cur] = FS_DONE;
                fs->active--;
                fs->done++;
                if (fs->done == fs->n) {
                        memset(fs->state, FS_IDLE, fs->n);
                        fs->done = 0;
                }
                fill_window(fs);
        } else if (fs->state[cur] == FS_ACTIVE && fs->left) {
                fs->left--;
                return;
        } else if (fs->state[cur] == FS_ACTIVE && fs->fst.kind == FST_SEQUENTIAL)
                return; /* a file to its end before the next */
        fs->left = fs->fst.kind <= FST_SEQUENTIAL && fs->fst.nr > 1 ? fs->fst.nr - 1 : 0;
        if (fs->fst.kind == FST_ROUNDROBIN || fs->fst.kind == FST_SEQUENTIAL) {
                /* the next active file after cur, in order */
                for (unsigned i = 1; i <= fs->n; i++) {
                        unsigned f = (cur + i) % fs->n;
                        if (fs->state[f] == FS_ACTIVE) {
                                fs->cur = f;
                                return;
                        }
                }
                return;
        }
        fs->cur = pick_random(fs);
}

void fileservice_reset(fileservice_t *fs)
{
        fs->cur = 0;
        fs->left = fs->fst.nr > 1 ? fs->fst.nr - 1 : 0;
        if (fs->simple)
                return;
        memset(fs->state, FS_IDLE, fs->n);
        fs->active = fs->done = 0;
        fill_window(fs);
        /* roundrobin and sequential begin with the first file, the others draw one */
        if (fs->fst.kind != FST_ROUNDROBIN && fs->fst.kind != FST_SEQUENTIAL) {
                fs->left = 0;
                fs->cur = pick_random(fs);
                fs->left = fs->fst.nr > 1 ? fs->fst.nr - 1 : 0;
        }
}
