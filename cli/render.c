/* What people read: the live line per interval and a summary modelled on fio's, from the result
 * JSON. */
#include "render.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>
#include <time.h>

#include "clock.h"
#include "render-fio.h"
#include "util.h"

/* fio's binary units for bandwidth: KiB/s, MiB/s, GiB/s. */
static const char *bw_str(double bytes_per_s, char *buf, size_t len)
{
        static const char *const units[] = {"B/s", "KiB/s", "MiB/s", "GiB/s", "TiB/s"};
        size_t u = 0;
        while (bytes_per_s >= 1024 * 9.995 && u + 1 < ELEMENTSOF(units)) {
                bytes_per_s /= 1024;
                u++;
        }
        snprintf(buf, len, "%.1f%s", bytes_per_s, units[u]);
        return buf;
}

static const char *count_str(double v, char *buf, size_t len)
{
        if (v >= 9995e6)
                snprintf(buf, len, "%.1fG", v / 1e9);
        else if (v >= 9995e3)
                snprintf(buf, len, "%.1fM", v / 1e6);
        else if (v >= 9995)
                snprintf(buf, len, "%.1fk", v / 1e3);
        else
                snprintf(buf, len, "%.0f", v);
        return buf;
}

static const char *bytes_str(double b, char *buf, size_t len)
{
        static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
        size_t u = 0;
        while (b >= 1024 && u + 1 < ELEMENTSOF(units)) {
                b /= 1024;
                u++;
        }
        snprintf(buf, len, u ? "%.1f%s" : "%.0f%s", b, units[u]);
        return buf;
}

const char *render_eta(int64_t ns, char *buf, size_t len)
{
        /* Rounded up: "ETA 0s" while something is left would read as done. */
        int64_t s = ns < 0 ? -1 : (ns + (int64_t)NSEC_PER_SEC - 1) / (int64_t)NSEC_PER_SEC;
        if (s < 0)
                snprintf(buf, len, "?");
        else if (s < 60)
                snprintf(buf, len, "%llds", (long long)s);
        else if (s < 3600)
                snprintf(buf, len, "%lldm%02llds", (long long)(s / 60), (long long)(s % 60));
        else
                snprintf(buf, len, "%lldh%02lldm", (long long)(s / 3600), (long long)(s / 60 % 60));
        return buf;
}

/* "done of total (p%), rate, ETA e" of one agent or all. */
static int layout_figures(char *buf, size_t len, uint64_t done, uint64_t total, uint64_t rate,
                          int64_t eta_ns)
{
        char d[32], t[32], r[32], e[32];
        /* Floored: 100% only when everything is there. */
        unsigned pct = total ? (unsigned)((double)done * 100 / (double)total) : 100;
        if (done < total && pct > 99)
                pct = 99;
        return snprintf(buf, len, "%s of %s (%u%%), %s, ETA %s", bytes_str((double)done, d, sizeof(d)),
                        bytes_str((double)total, t, sizeof(t)), pct,
                        rate ? bw_str((double)rate, r, sizeof(r)) : done < total ? "?B/s" : "-",
                        done < total ? render_eta(eta_ns, e, sizeof(e)) : "0s");
}

void render_layout(char *buf, size_t len, const Iofleet__RunUpdate *u)
{
        const Iofleet__AgentLayout *s = u->layout_slowest;
        int o = snprintf(buf, len, "laying out: ");
        char d[32], t[32];
        if (o < 0 || (size_t)o >= len)
                return;
        o += layout_figures(buf + o, len - o, u->layout_done_bytes, u->layout_total_bytes,
                            u->layout_rate, u->layout_eta_ns);
        if ((size_t)o < len && u->layout_agents < u->agents)
                o += snprintf(buf + o, len - o, " (%u/%u agents)", u->layout_agents, u->agents);
        if ((size_t)o < len && s && u->layout_agents > 1)
                snprintf(buf + o, len - o, "; slowest: %s %s of %s", s->name,
                         bytes_str((double)s->done_bytes, d, sizeof(d)),
                         bytes_str((double)s->total_bytes, t, sizeof(t)));
}

void render_layout_agents(FILE *f, const Iofleet__RunUpdate *u)
{
        char line[256];
        for (size_t i = 0; i < u->n_layout_per_agent; i++) {
                const Iofleet__AgentLayout *a = u->layout_per_agent[i];
                layout_figures(line, sizeof(line), a->done_bytes, a->total_bytes, a->rate,
                               a->eta_ns);
                fprintf(f, "    %-16s %s\n", a->name, line);
        }
}

void render_started(FILE *f, const Iofleet__RunUpdate *u)
{
        char skew[32], when[64];
        time_t secs = u->start_ns / 1000000000LL;
        struct tm tm;
        localtime_r(&secs, &tm);
        strftime(when, sizeof(when), "%H:%M:%S", &tm);
        fprintf(f, "iofleet: run %s started on %u agents at %s.%06lld; start skew %s (%s)%s\n",
                u->run_id, u->agents, when, (long long)(u->start_ns % 1000000000LL) / 1000,
                clock_format_duration((int64_t)u->start_skew_ns, skew, sizeof(skew)),
                u->message && u->message[0] ? u->message : "timeline",
                u->ramp_intervals ? "; ramp first, not counted" : "");
        fflush(f);
}

void render_interval(FILE *f, const Iofleet__RunUpdate *u, uint64_t total, bool per_host)
{
        double secs = u->interval_ns / 1e9;
        char rbw[32], wbw[32], rio[32], wio[32], p99[32], idx[32];

        if (u->measured_intervals)
                total = u->measured_intervals;
        if (u->index < u->ramp_intervals)
                snprintf(idx, sizeof(idx), "ramp %u/%u", u->index + 1, u->ramp_intervals);
        else if (total)
                snprintf(idx, sizeof(idx), "%*u/%" PRIu64, total >= 100 ? 3 : 2,
                         u->index - u->ramp_intervals + 1, total);
        else
                snprintf(idx, sizeof(idx), "%3u", u->index - u->ramp_intervals + 1);
        fprintf(f, "[%s] read %s %s IOPS | write %s %s IOPS | clat p99 %s | %u/%u agents%s\n", idx,
                bw_str(u->read_bytes / secs, rbw, sizeof(rbw)),
                count_str(u->read_ios / secs, rio, sizeof(rio)),
                bw_str(u->write_bytes / secs, wbw, sizeof(wbw)),
                count_str(u->write_ios / secs, wio, sizeof(wio)),
                u->clat_p99_ns ? clock_format_duration((int64_t)u->clat_p99_ns, p99, sizeof(p99))
                               : "-",
                u->reported, u->agents, u->errors ? " ERRORS" : "");
        if (u->n_missing) {
                /* A partial point is shown as such: who is missing from it. */
                fprintf(f, "        PARTIAL: missing");
                for (size_t i = 0; i < u->n_missing && i < 8; i++)
                        fprintf(f, " %s", u->missing[i]);
                if (u->n_missing > 8)
                        fprintf(f, " and %zu more", u->n_missing - 8);
                fputc('\n', f);
        }
        if (u->meta_ops)
                fprintf(f, "        metadata %s ops/s\n",
                        count_str(u->meta_ops / secs, rio, sizeof(rio)));
        if (per_host)
                for (size_t i = 0; i < u->n_per_agent; i++) {
                        const Iofleet__AgentInterval *a = u->per_agent[i];
                        fprintf(f, "    %-16s read %s %s IOPS | write %s %s IOPS%s\n", a->name,
                                bw_str(a->read_bytes / secs, rbw, sizeof(rbw)),
                                count_str(a->read_ios / secs, rio, sizeof(rio)),
                                bw_str(a->write_bytes / secs, wbw, sizeof(wbw)),
                                count_str(a->write_ios / secs, wio, sizeof(wio)),
                                a->errors ? " ERRORS" : "");
                }
        fflush(f);
}

double json_num(const json_t *o, const char *key)
{
        const json_t *v = json_object_get(o, key);
        return json_is_number(v) ? json_number_value(v) : 0;
}

/* A latency as bonnie++ prints it: whole units, the unit picked by magnitude. */
static const char *lat_str(double ns, char *buf, size_t len)
{
        if (!(ns > 0))
                snprintf(buf, len, "-");
        else if (ns < 10e3)
                snprintf(buf, len, "%.0fns", ns);
        else if (ns < 10e6)
                snprintf(buf, len, "%.0fus", ns / 1e3);
        else if (ns < 10e9)
                snprintf(buf, len, "%.0fms", ns / 1e6);
        else
                snprintf(buf, len, "%.0fs", ns / 1e9);
        return buf;
}

static const char *const md_orders[] = {"seq", "rand"};
static const char *const md_ops[] = {"create", "stat", "read", "delete"};

/* One entry's rows of the metadata table: files/s, mean and p99 latency per phase ("-" for a
 * phase it did not run). */
static void md_rows(FILE *f, const char *label, json_t *md)
{
        static const char *const rows[] = {"files/s", "lat mean", "lat p99"};
        for (size_t r = 0; r < ELEMENTSOF(rows); r++) {
                fprintf(f, "%-20.20s %-8s", r ? "" : label, rows[r]);
                for (size_t o = 0; o < ELEMENTSOF(md_orders); o++) {
                        fprintf(f, " ");
                        for (size_t k = 0; k < ELEMENTSOF(md_ops); k++) {
                                char name[32], buf[32];
                                json_t *p, *lat;
                                snprintf(name, sizeof(name), "%s_%s", md_orders[o], md_ops[k]);
                                p = json_object_get(md, name);
                                lat = json_object_get(p, "lat_ns");
                                if (!p)
                                        snprintf(buf, sizeof(buf), "-");
                                else if (r == 0)
                                        count_str(json_num(p, "ops_per_sec"), buf, sizeof(buf));
                                else if (r == 1)
                                        lat_str(json_num(lat, "mean"), buf, sizeof(buf));
                                else
                                        lat_str(json_num(json_object_get(lat, "percentile"),
                                                    "99.000000"),
                                                buf, sizeof(buf));
                                fprintf(f, " %8s", buf);
                        }
                }
                fprintf(f, "\n");
        }
}

/* The metadata workload's phases as bonnie++'s file tests show them: sequential and random
 * create, stat, read and delete; files per second and latency, per agent (and job) and for all
 * clients. Nothing when no entry ran it. */
static void md_table(FILE *f, json_t *stats)
{
        json_t *entry, *all = NULL;
        size_t i, n = 0;
        const char *first_job = NULL;
        bool several_jobs = false, clones = false;

        json_array_foreach(stats, i, entry)
        {
                const char *job = json_string_value(json_object_get(entry, "jobname"));
                if (!json_is_object(json_object_get(entry, "metadata")))
                        continue;
                if (!json_string_value(json_object_get(entry, "agent"))) {
                        all = entry;
                        continue;
                }
                n++;
                clones |= json_integer_value(json_object_get(entry, "jobnum")) > 0;
                if (job && first_job && !streq(job, first_job))
                        several_jobs = true;
                first_job = first_job ? first_job : job;
        }
        if (!n)
                return;
        fprintf(f, "\nMetadata (bonnie++'s file tests): files/s and latency per phase\n");
        fprintf(f, "%-29s  %-35s  %-35s\n", "", "------------ Sequential -----------",
                "-------------- Random -------------");
        fprintf(f, "%-29s", "");
        for (size_t o = 0; o < ELEMENTSOF(md_orders); o++) {
                fprintf(f, " ");
                for (size_t k = 0; k < ELEMENTSOF(md_ops); k++)
                        fprintf(f, " %8s", md_ops[k]);
        }
        fprintf(f, "\n");
        json_array_foreach(stats, i, entry)
        {
                json_t *md = json_object_get(entry, "metadata");
                const char *agent = json_string_value(json_object_get(entry, "agent"));
                const char *job = json_string_value(json_object_get(entry, "jobname"));
                json_t *jobnum = json_object_get(entry, "jobnum");
                char label[160];
                size_t len;
                if (!json_is_object(md) || !agent)
                        continue;
                /* The agent, and which job (and clone) when there is more than one. */
                len = (size_t)snprintf(label, sizeof(label), "%s", agent);
                if (several_jobs && job && len < sizeof(label))
                        len += (size_t)snprintf(label + len, sizeof(label) - len, " %s", job);
                if (clones && json_is_integer(jobnum) && len < sizeof(label))
                        snprintf(label + len, sizeof(label) - len, ".%lld",
                                 (long long)json_integer_value(jobnum));
                md_rows(f, label, md);
        }
        if (all && n > 1)
                md_rows(f, "All clients", json_object_get(all, "metadata"));
}

void render_summary(FILE *f, json_t *doc, const char *results_dir)
{
        json_t *stats = json_object_get(doc, "client_stats"), *io = json_object_get(doc, "iofleet");
        json_t *entry, *agents = json_object_get(io, "agents");
        size_t i;
        char skew[32], a[32], b[32], c[32];

        json_array_foreach(stats, i, entry)
        {
                const char *job = json_string_value(json_object_get(entry, "jobname"));
                const char *agent = json_string_value(json_object_get(entry, "agent"));
                render_fmt_t fmt;
                render_fio_fmt(doc, entry, &fmt);
                if (agent)
                        fprintf(f, "%s: (groupid=%.0f, agent=%s, host=%s): err=%2.0f\n", job,
                                json_num(entry, "groupid"), agent,
                                json_string_value(json_object_get(entry, "hostname")),
                                json_num(entry, "error"));
                else
                        fprintf(f, "%s: (groupid=0, agents=%zu): err=%2.0f\n", job,
                                json_array_size(agents), json_num(entry, "error"));
                render_fio_entry(f, entry, &fmt);
        }

        md_table(f, stats);
        {
                render_fmt_t fmt;
                render_fio_fmt(doc, json_array_get(stats, 0), &fmt);
                render_fio_groups(f, stats, &fmt);
        }
        render_fio_disks(f, doc);
        fprintf(f,
                "\niofleet: run %s: %s; %zu agents; start skew %s (%s), every worker running "
                "within %s; %zu intervals of %s\n",
                json_string_value(json_object_get(io, "run_id")),
                json_string_value(json_object_get(io, "status")), json_array_size(agents),
                clock_format_duration((int64_t)json_num(io, "start_skew_ns"), skew, sizeof(skew)),
                json_string_value(json_object_get(io, "start_skew_basis")),
                clock_format_duration((int64_t)json_num(io, "start_skew_workers_ns"), b, sizeof(b)),
                json_array_size(json_object_get(io, "intervals")),
                clock_format_duration((int64_t)json_num(io, "interval_ns"), a, sizeof(a)));
        {
                /* Size-bound workers end at different times: fio's whole-run figure hides how
                 * fast the cluster went while all of them were running. */
                json_t *done = json_object_get(io, "done");
                double first = json_num(done, "first_done_ns"), last = json_num(done, "last_done_ns");
                if (json_is_object(done) && last > first * 1.05)
                        for (int w = 0; w < 2; w++) {
                                double fb = json_num(done, w ? "first_done_write_bw_bytes"
                                                        : "first_done_read_bw_bytes");
                                double lb = json_num(done, w ? "last_done_write_bw_bytes"
                                                        : "last_done_read_bw_bytes");
                                if (fb == 0 && lb == 0)
                                        continue;
                                fprintf(f,
                                        "iofleet: %s first done %s at %s (all workers running), "
                                        "last done %s at %s\n",
                                        w ? "write" : "read", bw_str(fb, a, sizeof(a)),
                                        clock_format_duration((int64_t)first, skew, sizeof(skew)),
                                        bw_str(lb, b, sizeof(b)),
                                        clock_format_duration((int64_t)last, c, sizeof(c)));
                        }
        }
        json_array_foreach(agents, i, entry)
        {
                const char *err = json_string_value(json_object_get(entry, "error"));
                const char *st = json_string_value(json_object_get(entry, "status"));
                double missing = json_num(entry, "missing_intervals");
                if (json_is_true(json_object_get(entry, "lost")) || err || missing ||
                    (st && streq(st, "rejoined")))
                        fprintf(f, "iofleet: agent %s: %s%s%s", json_string_value(json_object_get(entry, "name")),
                                st ? st : "lost", err ? ": " : "", err ? err : "");
                else
                        continue;
                if (missing)
                        fprintf(f, "; %.0f intervals missing", missing);
                else if (st && streq(st, "rejoined"))
                        fprintf(f, " after %.1fs away; every interval delivered",
                                json_num(entry, "away_ns") / 1e9);
                fputc('\n', f);
        }
        json_array_foreach(agents, i, entry)
        {
                /* A host left changed is said loudly, whatever the figures' status. */
                const char *restored = json_string_value(
                    json_object_get(json_object_get(entry, "effective"), "restored"));
                if (restored && !streq(restored, "yes"))
                        fprintf(f, "iofleet: agent %s: its host is NOT known to be put back: %s\n",
                                json_string_value(json_object_get(entry, "name")), restored);
        }
        {
                const char *st = json_string_value(json_object_get(io, "status"));
                const char *why = json_string_value(json_object_get(io, "partial"));
                if (st && streq(st, "partial"))
                        fprintf(f, "iofleet: PARTIAL run: %s\n",
                                why ? why
                                    : json_string_value(json_object_get(io, "error"))
                                          ? json_string_value(json_object_get(io, "error"))
                                          : "not every agent delivered every interval");
        }
        if (results_dir && *results_dir)
                fprintf(f, "iofleet: results in %s/ (result.json, intervals.csv)\n", results_dir);
}
