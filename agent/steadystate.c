/* fio's steady-state detection (steadystate=, ss_dur=, ss_ramp=): one sample a second into a
 * rolling window, the job ended once the window meets the criterion. Pure: fed the counters. */
#include "steadystate.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

int steadystate_init(steadystate_t *ss, const ss_spec_t *spec, uint32_t dur_s)
{
        memset(ss, 0, sizeof(*ss));
        if (dur_s < 1 || dur_s > 3600)
                return -EINVAL;
        ss->spec = *spec;
        ss->dur = dur_s;
        ss->bw = calloc(dur_s, sizeof(*ss->bw));
        ss->iops = calloc(dur_s, sizeof(*ss->iops));
        if (!ss->bw || !ss->iops) {
                steadystate_done(ss);
                return -ENOMEM;
        }
        return 0;
}

void steadystate_done(steadystate_t *ss)
{
        free(ss->bw);
        free(ss->iops);
        ss->bw = ss->iops = NULL;
}

static const uint64_t *series(const steadystate_t *ss)
{
        return ss->spec.kind == SS_IOPS || ss->spec.kind == SS_IOPS_SLOPE ? ss->iops : ss->bw;
}

double steadystate_mean(const steadystate_t *ss, bool iops)
{
        const uint64_t *v = iops ? ss->iops : ss->bw;
        double sum = 0;
        for (uint32_t i = 0; i < ss->n; i++)
                sum += (double)v[i];
        return ss->n ? sum / ss->n : 0;
}

uint32_t steadystate_samples(const steadystate_t *ss, uint64_t *bw, uint64_t *iops)
{
        uint32_t first = ss->n == ss->dur ? ss->head : 0;
        for (uint32_t i = 0; i < ss->n; i++) {
                uint32_t k = (first + i) % ss->dur;
                if (bw)
                        bw[i] = ss->bw[k];
                if (iops)
                        iops[i] = ss->iops[k];
        }
        return ss->n;
}

/* The window against the criterion: every sample within the limit of the mean, or the least
 * squares slope below it; a percentage limit is of the mean. */
static bool judge(steadystate_t *ss)
{
        const uint64_t *v = series(ss);
        bool slope = ss->spec.kind == SS_IOPS_SLOPE || ss->spec.kind == SS_BW_SLOPE;
        double mean = 0, dev = 0, limit = ss->spec.limit;
        uint32_t first = ss->head, n = ss->dur;

        for (uint32_t i = 0; i < n; i++)
                mean += (double)v[i];
        mean /= n;
        if (ss->spec.percent)
                limit = limit * mean / 100.0;
        if (slope) {
                /* x = 0..n-1 in the order taken */
                double sx = 0, sy = 0, sxy = 0, sxx = 0;
                for (uint32_t i = 0; i < n; i++) {
                        double y = (double)v[(first + i) % n];
                        sx += i;
                        sy += y;
                        sxy += i * y;
                        sxx += (double)i * i;
                }
                ss->slope = n > 1 ? (n * sxy - sx * sy) / (n * sxx - sx * sx) : 0;
                ss->criterion =
                    ss->spec.percent ? (mean ? fabs(ss->slope) * 100.0 / mean : 0) : fabs(ss->slope);
                return fabs(ss->slope) <= limit;
        }
        for (uint32_t i = 0; i < n; i++) {
                double d = fabs((double)v[i] - mean);
                dev = d > dev ? d : dev;
        }
        ss->deviation = dev;
        ss->slope = 0;
        ss->criterion = ss->spec.percent ? (mean ? dev * 100.0 / mean : 0) : dev;
        return dev <= limit;
}

bool steadystate_sample(steadystate_t *ss, uint64_t bytes, uint64_t ios)
{
        if (!ss->primed) {
                ss->primed = true;
                ss->last_bytes = bytes;
                ss->last_ios = ios;
                return false;
        }
        ss->bw[ss->head] = bytes - ss->last_bytes;
        ss->iops[ss->head] = ios - ss->last_ios;
        ss->last_bytes = bytes;
        ss->last_ios = ios;
        ss->head = (ss->head + 1) % ss->dur;
        if (ss->n < ss->dur)
                ss->n++;
        if (ss->n < ss->dur || ss->attained)
                return ss->attained;
        ss->attained = judge(ss);
        return ss->attained;
}
