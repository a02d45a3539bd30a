/* Degrade rules of long runs, evaluated on each cluster interval as it is shown. */
#include "degrade.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

int degrade_init(degrade_t *d, Iofleet__DegradeRule *const *rules, size_t n)
{
        memset(d, 0, sizeof(*d));
        if (!n)
                return 0;
        d->streak = calloc(n, sizeof(*d->streak));
        d->fired = calloc(n, sizeof(*d->fired));
        if (!d->streak || !d->fired) {
                degrade_done(d);
                return -ENOMEM;
        }
        d->rules = (const Iofleet__DegradeRule *const *)rules;
        d->n_rules = n;
        return 0;
}

void degrade_done(degrade_t *d)
{
        free(d->streak);
        free(d->fired);
        free(d->alerts);
        memset(d, 0, sizeof(*d));
}

double degrade_metric(const Iofleet__DegradeRule *r, const degrade_sample_t *s)
{
        double secs = s->interval_ns ? s->interval_ns / 1e9 : 1;
        const char *m = r->metric;
        if (streq(m, "read_bw"))
                return s->io.read_bytes / secs;
        if (streq(m, "write_bw"))
                return s->io.write_bytes / secs;
        if (streq(m, "bw"))
                return (s->io.read_bytes + s->io.write_bytes) / secs;
        if (streq(m, "read_iops"))
                return s->io.read_ios / secs;
        if (streq(m, "write_iops"))
                return s->io.write_ios / secs;
        if (streq(m, "iops"))
                return (s->io.read_ios + s->io.write_ios) / secs;
        if (streq(m, "clat_p99"))
                return s->clat && s->clat->n ? (double)hist_percentile(s->clat, 99.0) : 0;
        return (double)s->io.errors;
}

size_t degrade_feed(degrade_t *d, uint64_t index, const degrade_sample_t *s)
{
        size_t fired = 0;
        for (size_t i = 0; i < d->n_rules; i++) {
                const Iofleet__DegradeRule *r = d->rules[i];
                double v = degrade_metric(r, s);
                bool breaks = r->op[0] == '<' ? v < r->threshold : v > r->threshold;
                /* A latency rule has nothing to say about an interval without completions. */
                if (streq(r->metric, "clat_p99") && (!s->clat || !s->clat->n))
                        breaks = false;
                if (!breaks) {
                        d->streak[i] = 0;
                        continue;
                }
                if (++d->streak[i] != r->intervals)
                        continue;
                /* Once per streak: the rule fires again only after a good interval. */
                d->fired[i]++;
                fired++;
                if (d->n_alerts < DEGRADE_MAX_ALERTS) {
                        degrade_alert_t *a = realloc(d->alerts, (d->n_alerts + 1) * sizeof(*a));
                        if (!a)
                                continue;
                        d->alerts = a;
                        d->alerts[d->n_alerts++] = (degrade_alert_t){(uint32_t)i, index, v};
                }
        }
        return fired;
}

static void human(const Iofleet__DegradeRule *r, double v, char *buf, size_t len)
{
        const char *m = r->metric;
        if (strstr(m, "_bw") || streq(m, "bw"))
                snprintf(buf, len, "%.1f MiB/s", v / (1024.0 * 1024.0));
        else if (strstr(m, "iops"))
                snprintf(buf, len, "%.0f IOPS", v);
        else if (streq(m, "clat_p99"))
                snprintf(buf, len, "%.3f ms", v / 1e6);
        else
                snprintf(buf, len, "%.0f", v);
}

void degrade_describe(const degrade_t *d, const degrade_alert_t *a, char *buf, size_t len)
{
        const Iofleet__DegradeRule *r = d->rules[a->rule];
        char v[64], t[64];
        human(r, a->value, v, sizeof(v));
        human(r, r->threshold, t, sizeof(t));
        snprintf(buf, len, "degrade '%s': %s %s %s for %u interval%s, up to interval %llu",
                 r->text && *r->text ? r->text : r->metric, v, r->op[0] == '<' ? "below" : "above",
                 t, r->intervals, r->intervals == 1 ? "" : "s", (unsigned long long)a->index);
}
