/* Wire validation: one check per message body, each field bounded, named in the error; the
 * decoder dispatches to them by body case. */
#include "wire-check.h"

#include <errno.h>
#include <math.h>
#include <string.h>

#include "fiolog.h"
#include "util.h"

/* Strings from peers end up in logs, terminals and file names: printable, bounded, non-empty
 * where required. */
static int check_str(const char *s, size_t max, bool required, const char *what, char *err,
                     size_t errlen)
{
        size_t n;
        if (!s)
                s = "";
        n = strlen(s);
        if (required && n == 0)
                return errorf(err, errlen, -EBADMSG, "%s: missing", what);
        if (n > max)
                return errorf(err, errlen, -EBADMSG, "%s: %zu bytes, at most %zu allowed", what, n,
                              max);
        for (size_t i = 0; i < n; i++) {
                unsigned char c = (unsigned char)s[i];
                if (c < 0x20 || c == 0x7f)
                        return errorf(err, errlen, -EBADMSG,
                                      "%s: control character 0x%02x at byte %zu not allowed", what,
                                      c, i);
        }
        return 0;
}

/* Multi-line text (job option values, results) may hold newlines and tabs but no other controls. */
static int check_text(const char *s, size_t max, const char *what, char *err, size_t errlen)
{
        size_t n = s ? strlen(s) : 0;
        if (n > max)
                return errorf(err, errlen, -EBADMSG, "%s: %zu bytes, at most %zu allowed", what, n,
                              max);
        for (size_t i = 0; i < n; i++) {
                unsigned char c = (unsigned char)s[i];
                if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7f)
                        return errorf(err, errlen, -EBADMSG,
                                      "%s: control character 0x%02x at byte %zu not allowed", what,
                                      c, i);
        }
        return 0;
}

/* Agent names go into file names and CSV: the same alphabet the agent's own config allows. */
static int check_name(const char *s, const char *what, char *err, size_t errlen)
{
        for (const char *p = s; *p; p++)
                if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
                      (*p >= '0' && *p <= '9') || *p == '-' || *p == '_' || *p == '.'))
                        return errorf(err, errlen, -EBADMSG,
                                      "%s: '%c' not allowed (A-Z a-z 0-9 . _ - only)", what, *p);
        return 0;
}

/* A list of n strings: at most max_n (else too_many), each as check_str() wants it. */
static int check_strs(char **v, size_t n, size_t max_n, const char *too_many, size_t max,
                      bool required, const char *what, char *err, size_t errlen)
{
        int r;
        if (n > max_n)
                return errorf(err, errlen, -EBADMSG, "%s", too_many);
        for (size_t i = 0; i < n; i++)
                if ((r = check_str(v[i], max, required, what, err, errlen)) < 0)
                        return r;
        return 0;
}

/* Instants and durations a peer reports stay far from overflow when subtracted. */
#define WIRE_MAX_TIME (INT64_C(1) << 62)
static int check_time(int64_t t, const char *what, char *err, size_t errlen)
{
        if (t > WIRE_MAX_TIME || t < -WIRE_MAX_TIME)
                return errorf(err, errlen, -EBADMSG, "%s: %lld out of range -2^62..2^62", what,
                              (long long)t);
        return 0;
}

static int check_hist(const Iofleet__Hist *h, const char *what, char *err, size_t errlen)
{
        uint64_t total = 0;
        if (!h)
                return 0;
        if (h->n_index != h->n_count)
                return errorf(err, errlen, -EBADMSG, "%s: %zu bucket indexes but %zu counts", what,
                              h->n_index, h->n_count);
        if (h->n_index > HIST_BUCKETS)
                return errorf(err, errlen, -EBADMSG, "%s: %zu buckets, at most %u allowed", what,
                              h->n_index, HIST_BUCKETS);
        for (size_t i = 0; i < h->n_index; i++) {
                if (h->index[i] >= HIST_BUCKETS)
                        return errorf(err, errlen, -EBADMSG,
                                      "%s: bucket index %u out of range 0..%u", what, h->index[i],
                                      HIST_BUCKETS - 1);
                if (i > 0 && h->index[i] <= h->index[i - 1])
                        return errorf(err, errlen, -EBADMSG,
                                      "%s: bucket indexes must ascend strictly (%u after %u)", what,
                                      h->index[i], h->index[i - 1]);
                if (__builtin_add_overflow(total, h->count[i], &total))
                        return errorf(err, errlen, -EBADMSG, "%s: bucket counts overflow", what);
        }
        if (total != h->n)
                return errorf(err, errlen, -EBADMSG, "%s: n=%llu but buckets hold %llu", what,
                              (unsigned long long)h->n, (unsigned long long)total);
        if (h->n > 0 && h->min > h->max)
                return errorf(err, errlen, -EBADMSG, "%s: min %llu above max %llu", what,
                              (unsigned long long)h->min, (unsigned long long)h->max);
        if (!(h->sumsq >= 0))
                return errorf(err, errlen, -EBADMSG, "%s: sumsq must be a number >= 0", what);
        return 0;
}

static int check_dir(const Iofleet__DirStats *d, const char *what, char *err, size_t errlen)
{
        char w[64];
        if (!d)
                return 0;
        if (d->short_ios > d->ios || d->errors > UINT64_MAX / 2)
                return errorf(err, errlen, -EBADMSG, "%s: short_ios/errors out of range", what);
        int r;
        snprintf(w, sizeof(w), "%s.clat", what);
        if ((r = check_hist(d->clat, w, err, errlen)) < 0)
                return r;
        snprintf(w, sizeof(w), "%s.slat", what);
        if ((r = check_hist(d->slat, w, err, errlen)) < 0)
                return r;
        snprintf(w, sizeof(w), "%s.lat", what);
        if ((r = check_hist(d->lat, w, err, errlen)) < 0)
                return r;
        snprintf(w, sizeof(w), "%s.sync_lat", what);
        return check_hist(d->sync_lat, w, err, errlen);
}

static int check_labels(Iofleet__Label **l, size_t n, char *err, size_t errlen)
{
        int r;
        if (n > WIRE_MAX_LABELS)
                return errorf(err, errlen, -EBADMSG, "labels: %zu, at most %d allowed", n,
                              WIRE_MAX_LABELS);
        for (size_t i = 0; i < n; i++) {
                if ((r = check_str(l[i]->key, WIRE_MAX_NAME, true, "label key", err, errlen)) < 0 ||
                    (r = check_str(l[i]->value, WIRE_MAX_LABEL_VALUE, false, "label value", err,
                                   errlen)) < 0)
                        return r;
                if (strchr(l[i]->key, '='))
                        return errorf(err, errlen, -EBADMSG, "label key '%s': '=' not allowed",
                                      l[i]->key);
        }
        return 0;
}

static int check_jobs(Iofleet__Job **jobs, size_t n, char *err, size_t errlen)
{
        int r;
        if (n == 0 || n > WIRE_MAX_JOBS)
                return errorf(err, errlen, -EBADMSG, "jobs: %zu, allowed 1..%d", n, WIRE_MAX_JOBS);
        for (size_t i = 0; i < n; i++) {
                if ((r = check_str(jobs[i]->name, WIRE_MAX_NAME, true, "job name", err, errlen)) <
                    0)
                        return r;
                if (jobs[i]->n_options > WIRE_MAX_JOB_OPTIONS)
                        return errorf(err, errlen, -EBADMSG, "job %s: %zu options, at most %d",
                                      jobs[i]->name, jobs[i]->n_options, WIRE_MAX_JOB_OPTIONS);
                if (jobs[i]->n_global > jobs[i]->n_options)
                        return errorf(err, errlen, -EBADMSG,
                                      "job %s: n_global %u above its %zu options", jobs[i]->name,
                                      jobs[i]->n_global, jobs[i]->n_options);
                for (size_t k = 0; k < jobs[i]->n_options; k++) {
                        Iofleet__JobOption *o = jobs[i]->options[k];
                        if ((r = check_str(o->key, WIRE_MAX_NAME, true, "job option key", err,
                                           errlen)) < 0 ||
                            (r = check_str(o->value, WIRE_MAX_OPTION_VALUE, false,
                                           "job option value", err, errlen)) < 0)
                                return r;
                }
        }
        return 0;
}

static int check_settings(Iofleet__Setting **v, size_t n, const char *what, char *err,
                          size_t errlen)
{
        int r;
        if (n > WIRE_MAX_SETTINGS)
                return errorf(err, errlen, -EBADMSG, "%s: %zu settings, at most %d", what, n,
                              WIRE_MAX_SETTINGS);
        for (size_t i = 0; i < n; i++)
                /* Values may be several lines: a ganesha EXPORT block as written. */
                if ((r = check_str(v[i]->key, WIRE_MAX_NAME * 2, true, what, err, errlen)) < 0 ||
                    (r = check_text(v[i]->value, WIRE_MAX_OPTION_VALUE, what, err, errlen)) < 0)
                        return r;
        return 0;
}

static int check_role(const char *role, bool empty_ok, const char *what, char *err, size_t errlen)
{
        int r;
        /* Checked as a string first, so that the refusal below never echoes control bytes. */
        if ((r = check_str(role, WIRE_MAX_NAME, false, what, err, errlen)) < 0)
                return r;
        if ((empty_ok && strempty(role)) || streq(role ? role : "", "client") ||
            streq(role ? role : "", "server"))
                return 0;
        return errorf(err, errlen, -EBADMSG, "%s: '%s'; allowed: client, server", what,
                      role ? role : "");
}

static int check_part(const Iofleet__Part *p, char *err, size_t errlen)
{
        int r;
        if ((r = check_role(p->role, false, "submit_run.part.role", err, errlen)) < 0 ||
            (r = check_str(p->selector, WIRE_MAX_TEXT, false, "submit_run.part.selector", err,
                           errlen)) < 0 ||
            (r = check_settings(p->server, p->n_server, "submit_run.part.server", err, errlen)) <
                0 ||
            (r = check_settings(p->mount, p->n_mount, "submit_run.part.mount", err, errlen)) < 0 ||
            (r = check_settings(p->sysctls, p->n_sysctls, "submit_run.part.sysctls", err, errlen)) <
                0)
                return r;
        if (p->count > WIRE_MAX_AGENTS)
                return errorf(err, errlen, -EBADMSG, "submit_run.part.count: at most %d",
                              WIRE_MAX_AGENTS);
        if (streq(p->role, "server"))
                return p->n_jobs ? errorf(err, errlen, -EBADMSG,
                                          "submit_run.part: a server part runs no jobs")
                                 : 0;
        return check_jobs(p->jobs, p->n_jobs, err, errlen);
}

static int check_degrade(const Iofleet__DegradeRule *d, char *err, size_t errlen)
{
        static const char *const metrics[] = {"read_bw",    "write_bw", "bw",       "read_iops",
                                              "write_iops", "iops",     "clat_p99", "errors"};
        bool known = false;
        int r;
        if ((r = check_str(d->metric, WIRE_MAX_NAME, true, "degrade.metric", err, errlen)) < 0 ||
            (r = check_str(d->op, 2, true, "degrade.op", err, errlen)) < 0)
                return r;
        for (size_t i = 0; i < ELEMENTSOF(metrics); i++)
                known |= streq(d->metric ? d->metric : "", metrics[i]);
        if (!known)
                return errorf(err, errlen, -EBADMSG,
                              "degrade.metric '%s': allowed read_bw, write_bw, bw, read_iops, "
                              "write_iops, iops, clat_p99, errors",
                              d->metric ? d->metric : "");
        if (!streq(d->op ? d->op : "", "<") && !streq(d->op ? d->op : "", ">"))
                return errorf(err, errlen, -EBADMSG, "degrade.op: '<' or '>'");
        if (!(d->threshold >= 0 && d->threshold < 1e30))
                return errorf(err, errlen, -EBADMSG, "degrade.threshold: 0..1e30");
        if (d->intervals < 1 || d->intervals > 1000000)
                return errorf(err, errlen, -EBADMSG, "degrade.intervals: 1..1000000");
        if ((r = check_text(d->text, WIRE_MAX_NAME * 4, "degrade.text", err, errlen)) < 0)
                return r;
        return 0;
}

static int check_agent_info(Iofleet__AgentInfo *a, char *err, size_t errlen)
{
        int r;
        if ((r = check_str(a->agent_id, WIRE_MAX_ID, true, "agent_id", err, errlen)) < 0 ||
            (r = check_str(a->name, WIRE_MAX_NAME, true, "name", err, errlen)) < 0 ||
            (r = check_str(a->hostname, WIRE_MAX_HOSTNAME, false, "hostname", err, errlen)) < 0 ||
            (r = check_str(a->version, WIRE_MAX_NAME, false, "version", err, errlen)) < 0 ||
            (r = check_str(a->state, WIRE_MAX_NAME, false, "state", err, errlen)) < 0 ||
            (r = check_str(a->run_id, WIRE_MAX_ID, false, "run_id", err, errlen)) < 0)
                return r;
        if (a->n_roles > WIRE_MAX_ROLES)
                return errorf(err, errlen, -EBADMSG, "roles: at most %d", WIRE_MAX_ROLES);
        for (size_t i = 0; i < a->n_roles; i++)
                if ((r = check_str(a->roles[i], WIRE_MAX_NAME, true, "role", err, errlen)) < 0)
                        return r;
        return check_labels(a->labels, a->n_labels, err, errlen);
}

/* The longest orphan grace and prepare timeout a run may ask for. */
#define WIRE_MAX_GRACE_NS (7 * 24 * 3600 * (uint64_t)NSEC_PER_SEC)

static const char *const run_phases[] = {"preparing", "prepared",  "running",
                                         "serving",   "restoring", "done"};

static int check_hello_run(const Iofleet__Hello *h, char *err, size_t errlen)
{
        int r;
        bool known = false;
        if ((r = check_str(h->run_id, WIRE_MAX_ID, false, "hello.run_id", err, errlen)) < 0 ||
            (r = check_str(h->run_phase, WIRE_MAX_NAME, false, "hello.run_phase", err, errlen)) < 0)
                return r;
        if (strempty(h->run_id))
                return strempty(h->run_phase) && h->run_seq == 0
                           ? 0
                           : errorf(err, errlen, -EBADMSG,
                                    "hello: run_phase and run_seq need a run_id");
        for (size_t i = 0; i < ELEMENTSOF(run_phases); i++)
                known |= streq(h->run_phase ? h->run_phase : "", run_phases[i]);
        if (!known)
                return errorf(err, errlen, -EBADMSG,
                              "hello.run_phase '%s': allowed preparing, prepared, running, "
                              "serving, restoring, done",
                              h->run_phase ? h->run_phase : "");
        return 0;
}

static int check_heartbeat(const Iofleet__Heartbeat *h, char *err, size_t errlen)
{
        int r;
        if ((r = check_str(h->run_id, WIRE_MAX_ID, false, "heartbeat.run_id", err, errlen)) < 0 ||
            (r = check_time(h->probe_t1, "heartbeat.probe_t1", err, errlen)) < 0 ||
            (r = check_time(h->probe_t2, "heartbeat.probe_t2", err, errlen)) < 0 ||
            (r = check_time(h->probe_t3, "heartbeat.probe_t3", err, errlen)) < 0)
                return r;
        if (h->ack_upto && strempty(h->run_id))
                return errorf(err, errlen, -EBADMSG, "heartbeat.ack_upto needs a run_id");
        return 0;
}

static int check_ack(const Iofleet__Ack *a, char *err, size_t errlen)
{
        return check_str(a->run_id, WIRE_MAX_ID, true, "ack.run_id", err, errlen);
}

static int check_restored(const Iofleet__Restored *r, char *err, size_t errlen)
{
        int rc;
        if ((rc = check_str(r->run_id, WIRE_MAX_ID, true, "restored.run_id", err, errlen)) < 0 ||
            (rc = check_text(r->error, WIRE_MAX_TEXT, "restored.error", err, errlen)) < 0)
                return rc;
        return check_settings(r->effective, r->n_effective, "restored.effective", err, errlen);
}

static int check_goodbye(const Iofleet__Goodbye *g, char *err, size_t errlen)
{
        return check_str(g->reason, WIRE_MAX_TEXT, false, "goodbye.reason", err, errlen);
}

static int check_run_info(const Iofleet__RunInfo *ri, char *err, size_t errlen)
{
        int r;
        if ((r = check_str(ri->run_id, WIRE_MAX_ID, true, "run_info.run_id", err, errlen)) < 0 ||
            (r = check_str(ri->phase, WIRE_MAX_NAME, false, "run_info.phase", err, errlen)) < 0 ||
            (r = check_str(ri->sweep_id, WIRE_MAX_ID, false, "run_info.sweep_id", err, errlen)) < 0)
                return r;
        return check_strs(ri->agents, ri->n_agents, WIRE_MAX_AGENTS, "run_info: too many agents",
                          WIRE_MAX_NAME, true, "run_info.agent", err, errlen);
}

static int check_run_list(const Iofleet__RunList *l, char *err, size_t errlen)
{
        int r;
        if (l->n_runs > WIRE_MAX_AGENTS)
                return errorf(err, errlen, -EBADMSG, "run_list: too many runs");
        for (size_t i = 0; i < l->n_runs; i++)
                if ((r = check_run_info(l->runs[i], err, errlen)) < 0)
                        return r;
        return 0;
}

/* A run's orphan grace and prepare timeout, when given. */
static int check_submit_durations(const Iofleet__SubmitRun *s, char *err, size_t errlen)
{
        if (s->orphan_grace && s->orphan_grace->ns > WIRE_MAX_GRACE_NS)
                return errorf(err, errlen, -EBADMSG, "submit_run.orphan_grace: at most 7 days");
        if (s->prepare_timeout &&
            (s->prepare_timeout->ns < NSEC_PER_SEC || s->prepare_timeout->ns > WIRE_MAX_GRACE_NS))
                return errorf(err, errlen, -EBADMSG, "submit_run.prepare_timeout: 1s..7 days");
        return 0;
}

/* An agent's roles as enrolment carries them: at most WIRE_MAX_ROLES of storage and client. */
static int check_roles(char **roles, size_t n, const char *what, char *err, size_t errlen)
{
        int r;
        if (n > WIRE_MAX_ROLES)
                return errorf(err, errlen, -EBADMSG, "%s: %zu, at most %d allowed", what, n,
                              WIRE_MAX_ROLES);
        for (size_t i = 0; i < n; i++) {
                if ((r = check_str(roles[i], WIRE_MAX_NAME, true, what, err, errlen)) < 0)
                        return r;
                if (!streq(roles[i], "storage") && !streq(roles[i], "client"))
                        return errorf(err, errlen, -EBADMSG, "%s: '%s'; allowed: storage, client",
                                      what, roles[i]);
        }
        return 0;
}

/* One validator per message body, in the order of the envelope's fields. */

static int check_nothing(const void *m, char *err, size_t errlen)
{
        (void)m, (void)err, (void)errlen;
        return 0;
}

static int check_hello(const Iofleet__Hello *h, char *err, size_t errlen)
{
        int r;
        if ((r = check_str(h->agent_id, WIRE_MAX_ID, true, "hello.agent_id", err, errlen)) < 0 ||
            (r = check_str(h->name, WIRE_MAX_NAME, true, "hello.name", err, errlen)) < 0 ||
            (r = check_name(h->name, "hello.name", err, errlen)) < 0 ||
            (r = check_str(h->hostname, WIRE_MAX_HOSTNAME, false, "hello.hostname", err, errlen)) <
                0 ||
            (r = check_str(h->version, WIRE_MAX_NAME, false, "hello.version", err, errlen)) < 0 ||
            (r = check_str(h->boot_id, WIRE_MAX_ID, false, "hello.boot_id", err, errlen)) < 0)
                return r;
        if (h->n_roles > WIRE_MAX_ROLES || h->n_engines > 32)
                return errorf(err, errlen, -EBADMSG,
                              "hello: at most %d roles and 32 engines allowed", WIRE_MAX_ROLES);
        if ((r = check_strs(h->roles, h->n_roles, SIZE_MAX, "", WIRE_MAX_NAME, true, "hello.role",
                            err, errlen)) < 0 ||
            (r = check_strs(h->engines, h->n_engines, SIZE_MAX, "", WIRE_MAX_NAME, true,
                            "hello.engine", err, errlen)) < 0 ||
            (r = check_hello_run(h, err, errlen)) < 0)
                return r;
        return check_labels(h->labels, h->n_labels, err, errlen);
}

static int check_welcome(const Iofleet__Welcome *w, char *err, size_t errlen)
{
        int r;
        if (w->heartbeat_ns < NSEC_PER_MSEC * 10 || w->heartbeat_ns > NSEC_PER_SEC * 3600 ||
            w->lost_after < 2 || w->lost_after > 1000)
                return errorf(err, errlen, -EBADMSG,
                              "welcome: heartbeat must be 10ms..1h and lost_after 2..1000");
        if ((r = check_str(w->coordinator_version, WIRE_MAX_NAME, false,
                           "welcome.coordinator_version", err, errlen)) < 0 ||
            (r = check_str(w->name, WIRE_MAX_NAME, false, "welcome.name", err, errlen)) < 0)
                return r;
        return check_name(w->name ? w->name : "", "welcome.name", err, errlen);
}

static int check_prepare(const Iofleet__Prepare *p, char *err, size_t errlen)
{
        int r;
        if ((r = check_str(p->run_id, WIRE_MAX_ID, true, "prepare.run_id", err, errlen)) < 0)
                return r;
        if (p->nagents == 0 || p->nagents > WIRE_MAX_AGENTS || p->rank >= p->nagents)
                return errorf(err, errlen, -EBADMSG, "prepare: rank %u / nagents %u out of range",
                              p->rank, p->nagents);
        if (p->interval_ns < NSEC_PER_MSEC * 10 || p->interval_ns > NSEC_PER_SEC * 3600)
                return errorf(err, errlen, -EBADMSG, "prepare: interval must be 10ms..1h");
        if (p->orphan_grace_ns > WIRE_MAX_GRACE_NS)
                return errorf(err, errlen, -EBADMSG, "prepare.orphan_grace_ns: at most 7 days");
        if ((r = check_role(p->role, true, "prepare.role", err, errlen)) < 0 ||
            (r = check_settings(p->server, p->n_server, "prepare.server", err, errlen)) < 0 ||
            (r = check_settings(p->mount, p->n_mount, "prepare.mount", err, errlen)) < 0 ||
            (r = check_settings(p->sysctls, p->n_sysctls, "prepare.sysctls", err, errlen)) < 0 ||
            (r = check_str(p->nfs_server, WIRE_MAX_HOSTNAME, false, "prepare.nfs_server", err,
                           errlen)) < 0 ||
            (r = check_str(p->nfs_export, WIRE_MAX_OPTION_VALUE, false, "prepare.nfs_export", err,
                           errlen)) < 0)
                return r;
        if (streq(p->role, "server"))
                return p->n_jobs ? errorf(err, errlen, -EBADMSG, "prepare: a server runs no jobs")
                                 : 0;
        return check_jobs(p->jobs, p->n_jobs, err, errlen);
}

static int check_prepared(const Iofleet__Prepared *p, char *err, size_t errlen)
{
        int r;
        if ((r = check_settings(p->effective, p->n_effective, "prepared.effective", err, errlen)) <
            0)
                return r;
        return check_str(p->run_id, WIRE_MAX_ID, true, "prepared.run_id", err, errlen);
}

static int check_start(const Iofleet__Start *s, char *err, size_t errlen)
{
        return check_str(s->run_id, WIRE_MAX_ID, true, "start.run_id", err, errlen);
}

static int check_started(const Iofleet__Started *s, char *err, size_t errlen)
{
        int r;
        if ((r = check_time(s->start_ns, "started.start_ns", err, errlen)) < 0 ||
            (r = check_time(s->host_mono_ns, "started.host_mono_ns", err, errlen)) < 0 ||
            (r = check_time(s->workers_lag_ns > (UINT64_C(1) << 61) ? INT64_MAX
                                                                    : (int64_t)s->workers_lag_ns,
                            "started.workers_lag_ns", err, errlen)) < 0)
                return r;
        return check_str(s->run_id, WIRE_MAX_ID, true, "started.run_id", err, errlen);
}

static int check_interval(const Iofleet__Interval *iv, char *err, size_t errlen)
{
        int r;
        if ((r = check_str(iv->run_id, WIRE_MAX_ID, true, "interval.run_id", err, errlen)) < 0)
                return r;
        if (iv->index >= WIRE_MAX_INTERVALS)
                return errorf(err, errlen, -EBADMSG, "interval.index %u out of range 0..%u",
                              iv->index, WIRE_MAX_INTERVALS - 1);
        if ((r = check_dir(iv->read, "interval.read", err, errlen)) < 0)
                return r;
        return check_dir(iv->write, "interval.write", err, errlen);
}

static int check_stop(const Iofleet__Stop *s, char *err, size_t errlen)
{
        int r;
        if ((r = check_str(s->run_id, WIRE_MAX_ID, true, "stop.run_id", err, errlen)) < 0)
                return r;
        return check_str(s->reason, WIRE_MAX_TEXT, false, "stop.reason", err, errlen);
}

/* fio's series of samples: counts in order, mean and deviation numbers >= 0. */
static int check_sample(const Iofleet__SampleStat *s, const char *what, char *err, size_t errlen)
{
        if (!s)
                return 0;
        if (s->samples && s->min > s->max)
                return errorf(err, errlen, -EBADMSG, "%s: min %llu above max %llu", what,
                              (unsigned long long)s->min, (unsigned long long)s->max);
        if (!isfinite(s->mean) || s->mean < 0 || !isfinite(s->s) || s->s < 0)
                return errorf(err, errlen, -EBADMSG, "%s: mean and s must be numbers >= 0", what);
        return 0;
}

/* A job's depths, batches, samples and CPU usage: seven buckets or none, times that add up
 * across agents without overflowing. */
static int check_fio_stats(const Iofleet__FioStats *f, char *err, size_t errlen)
{
        const Iofleet__SampleStat *ss[] = {f->read_bw, f->write_bw, f->read_iops, f->write_iops};
        static const char *const names[] = {"finished.job.fio.read_bw", "finished.job.fio.write_bw",
                                            "finished.job.fio.read_iops",
                                            "finished.job.fio.write_iops"};
        int r;

        if ((f->n_depth && f->n_depth != FIO_DEPTH_BUCKETS) ||
            (f->n_submit && f->n_submit != FIO_DEPTH_BUCKETS) ||
            (f->n_complete && f->n_complete != FIO_DEPTH_BUCKETS))
                return errorf(err, errlen, -EBADMSG,
                              "finished.job.fio: depth, submit and complete have %d buckets or "
                              "none",
                              FIO_DEPTH_BUCKETS);
        if (f->usr_ns > WIRE_MAX_TIME || f->sys_ns > WIRE_MAX_TIME || f->run_ns > WIRE_MAX_TIME)
                return errorf(err, errlen, -EBADMSG,
                              "finished.job.fio: usr_ns, sys_ns, run_ns out of range 0..2^62");
        if (f->latency_depth > WIRE_MAX_DEPTH)
                return errorf(err, errlen, -EBADMSG,
                              "finished.job.fio.latency_depth %u out of range 0..%d",
                              f->latency_depth, WIRE_MAX_DEPTH);
        for (size_t i = 0; i < ELEMENTSOF(ss); i++)
                if ((r = check_sample(ss[i], names[i], err, errlen)) < 0)
                        return r;
        return 0;
}

/* The devices under an agent's files: kernel names, bounded. */
static int check_disk_util(Iofleet__DiskUtil **d, size_t n, char *err, size_t errlen)
{
        int r;
        if (n > WIRE_MAX_DISKS)
                return errorf(err, errlen, -EBADMSG, "finished.disk_util: %zu devices, at most %d",
                              n, WIRE_MAX_DISKS);
        for (size_t i = 0; i < n; i++) {
                if ((r = check_str(d[i]->name, WIRE_MAX_NAME, true, "finished.disk_util.name", err,
                                   errlen)) < 0 ||
                    (r = check_str(d[i]->master, WIRE_MAX_NAME, false, "finished.disk_util.master",
                                   err, errlen)) < 0)
                        return r;
                if (d[i]->msec > WIRE_MAX_TIME)
                        return errorf(err, errlen, -EBADMSG,
                                      "finished.disk_util.msec out of range 0..2^62");
        }
        return 0;
}

/* One job's result in a Finished. */
static int check_job_result(const Iofleet__JobResult *j, char *err, size_t errlen)
{
        int r;
        if ((r = check_str(j->name, WIRE_MAX_NAME, true, "finished.job.name", err, errlen)) < 0 ||
            (r = check_text(j->error_msg, WIRE_MAX_TEXT, "finished.job.error_msg", err, errlen)) <
                0 ||
            (r = check_dir(j->read, "finished.job.read", err, errlen)) < 0 ||
            (r = check_dir(j->write, "finished.job.write", err, errlen)) < 0)
                return r;
        if (j->n_phases > 16)
                return errorf(err, errlen, -EBADMSG, "finished.job: %zu phases, at most 16",
                              j->n_phases);
        for (size_t q = 0; q < j->n_phases; q++)
                if ((r = check_str(j->phases[q]->name, WIRE_MAX_NAME, true,
                                   "finished.job.phase.name", err, errlen)) < 0 ||
                    (r = check_hist(j->phases[q]->lat, "finished.job.phase.lat", err, errlen)) < 0)
                        return r;
        if (j->clone < -1 || j->clone > 65535)
                return errorf(err, errlen, -EBADMSG, "finished.job.clone %d out of range -1..65535",
                              j->clone);
        if (j->first_done_ns > j->last_done_ns)
                return errorf(err, errlen, -EBADMSG, "finished.job: first_done after last_done");
        if (j->groupid > WIRE_MAX_JOBS)
                return errorf(err, errlen, -EBADMSG, "finished.job.groupid %u out of range 0..%d",
                              j->groupid, WIRE_MAX_JOBS);
        if (j->steadystate &&
            ((r = check_str(j->steadystate->ss, WIRE_MAX_NAME, false, "finished.job.steadystate.ss",
                            err, errlen)) < 0 ||
             (r = check_str(j->steadystate->criterion, WIRE_MAX_NAME, false,
                            "finished.job.steadystate.criterion", err, errlen)) < 0))
                return r;
        if (j->steadystate && (j->steadystate->n_iops > WIRE_MAX_SS_SAMPLES ||
                               j->steadystate->n_bw > WIRE_MAX_SS_SAMPLES))
                return errorf(err, errlen, -EBADMSG,
                              "finished.job.steadystate: more than %d samples",
                              WIRE_MAX_SS_SAMPLES);
        return j->fio ? check_fio_stats(j->fio, err, errlen) : 0;
}

static int check_finished(const Iofleet__Finished *f, char *err, size_t errlen)
{
        int r;
        if ((r = check_str(f->run_id, WIRE_MAX_ID, true, "finished.run_id", err, errlen)) < 0 ||
            (r = check_text(f->error, WIRE_MAX_TEXT, "finished.error", err, errlen)) < 0 ||
            (r = check_settings(f->effective, f->n_effective, "finished.effective", err, errlen)) <
                0)
                return r;
        if (f->intervals > WIRE_MAX_INTERVALS)
                return errorf(err, errlen, -EBADMSG, "finished.intervals: at most %u",
                              WIRE_MAX_INTERVALS);
        if (f->n_jobs > WIRE_MAX_RESULTS)
                return errorf(err, errlen, -EBADMSG, "finished: %zu results, at most %d", f->n_jobs,
                              WIRE_MAX_RESULTS);
        for (size_t i = 0; i < f->n_jobs; i++)
                if ((r = check_job_result(f->jobs[i], err, errlen)) < 0)
                        return r;
        return check_disk_util(f->disk_util, f->n_disk_util, err, errlen);
}

/* The cluster-wide stonewall's messages: a group after the first, of at most WIRE_MAX_JOBS. */
static int check_group(uint32_t group, const char *what, char *err, size_t errlen)
{
        if (group == 0 || group >= WIRE_MAX_JOBS)
                return errorf(err, errlen, -EBADMSG, "%s.group %u out of range 1..%d", what, group,
                              WIRE_MAX_JOBS - 1);
        return 0;
}

static int check_group_ready(const Iofleet__GroupReady *g, char *err, size_t errlen)
{
        int r;
        if ((r = check_str(g->run_id, WIRE_MAX_ID, true, "group_ready.run_id", err, errlen)) < 0)
                return r;
        return check_group(g->group, "group_ready", err, errlen);
}

static int check_start_group(const Iofleet__StartGroup *g, char *err, size_t errlen)
{
        int r;
        if ((r = check_str(g->run_id, WIRE_MAX_ID, true, "start_group.run_id", err, errlen)) < 0 ||
            (r = check_time(g->start_ns, "start_group.start_ns", err, errlen)) < 0)
                return r;
        if (g->max_intervals > WIRE_MAX_INTERVALS)
                return errorf(err, errlen, -EBADMSG,
                              "start_group.max_intervals %llu out of range 0..%u",
                              (unsigned long long)g->max_intervals, WIRE_MAX_INTERVALS);
        return check_group(g->group, "start_group", err, errlen);
}

static int check_group_started(const Iofleet__GroupStarted *g, char *err, size_t errlen)
{
        int r;
        if ((r = check_str(g->run_id, WIRE_MAX_ID, true, "group_started.run_id", err, errlen)) <
                0 ||
            (r = check_time(g->start_ns, "group_started.start_ns", err, errlen)) < 0 ||
            (r = check_time(g->host_mono_ns, "group_started.host_mono_ns", err, errlen)) < 0)
                return r;
        return check_group(g->group, "group_started", err, errlen);
}

/* A piece of one of fio's log files: which stream is the coordinator's to check against the
 * run's jobs; here only what any chunk may be. */
static int check_log_chunk(const Iofleet__LogChunk *c, char *err, size_t errlen)
{
        uint64_t end;
        int r;
        if ((r = check_str(c->run_id, WIRE_MAX_ID, true, "log_chunk.run_id", err, errlen)) < 0 ||
            (r = check_str(c->cut, 256, false, "log_chunk.cut", err, errlen)) < 0)
                return r;
        if (c->job >= WIRE_MAX_JOBS)
                return errorf(err, errlen, -EBADMSG, "log_chunk.job: %u out of range 0..%u",
                              c->job, WIRE_MAX_JOBS - 1);
        if (c->clone >= WIRE_MAX_CLONES)
                return errorf(err, errlen, -EBADMSG, "log_chunk.clone: %u out of range 0..%u",
                              c->clone, WIRE_MAX_CLONES - 1);
        if (c->kind >= FIOLOG_KINDS)
                return errorf(err, errlen, -EBADMSG, "log_chunk.kind: %u out of range 0..%u",
                              c->kind, FIOLOG_KINDS - 1);
        if (c->data.len > WIRE_MAX_LOG_CHUNK)
                return errorf(err, errlen, -EBADMSG, "log_chunk.data: %zu bytes, at most %u",
                              c->data.len, WIRE_MAX_LOG_CHUNK);
        if (__builtin_add_overflow(c->offset, (uint64_t)c->data.len, &end) ||
            end > WIRE_MAX_LOG_BYTES)
                return errorf(err, errlen, -EBADMSG,
                              "log_chunk.offset: %llu + %zu bytes past 2^50",
                              (unsigned long long)c->offset, c->data.len);
        if (!fiolog_text_ok(c->data.data, c->data.len))
                return errorf(err, errlen, -EBADMSG,
                              "log_chunk.data: only digits, ', ' and newlines are allowed");
        if (!c->eof && !strempty(c->cut))
                return errorf(err, errlen, -EBADMSG, "log_chunk.cut: only with eof");
        if (!c->run_seq)
                return errorf(err, errlen, -EBADMSG, "log_chunk.run_seq: missing");
        return 0;
}

static int check_error(const Iofleet__Error *m, char *err, size_t errlen)
{
        int r;
        if ((r = check_text(m->message, WIRE_MAX_TEXT, "error.message", err, errlen)) < 0)
                return r;
        return check_str(m->run_id, WIRE_MAX_ID, false, "error.run_id", err, errlen);
}

static int check_agent_list(const Iofleet__AgentList *l, char *err, size_t errlen)
{
        int r;
        if (l->n_agents > WIRE_MAX_AGENTS)
                return errorf(err, errlen, -EBADMSG, "agent_list: too many agents");
        for (size_t i = 0; i < l->n_agents; i++)
                if ((r = check_agent_info(l->agents[i], err, errlen)) < 0)
                        return r;
        return 0;
}

/* A SubmitRun's sweep parameters, degrade rules and parts (or jobs). */
static int check_submit_lists(const Iofleet__SubmitRun *s, char *err, size_t errlen)
{
        int r;
        if (s->n_sweep_params > WIRE_MAX_SETTINGS || s->n_degrade > 64 ||
            s->n_parts > WIRE_MAX_PARTS || s->point > WIRE_MAX_POINTS ||
            s->repeat > WIRE_MAX_POINTS)
                return errorf(err, errlen, -EBADMSG,
                              "submit_run: at most %d sweep parameters, 64 degrade rules, "
                              "%d parts, point and repeat below %d",
                              WIRE_MAX_SETTINGS, WIRE_MAX_PARTS, WIRE_MAX_POINTS);
        if ((r = check_strs(s->sweep_params, s->n_sweep_params, SIZE_MAX, "", WIRE_MAX_NAME * 2,
                            true, "submit_run.sweep_params", err, errlen)) < 0)
                return r;
        for (size_t i = 0; i < s->n_degrade; i++)
                if ((r = check_degrade(s->degrade[i], err, errlen)) < 0)
                        return r;
        if (!s->n_parts)
                return check_jobs(s->jobs, s->n_jobs, err, errlen);
        if (s->n_jobs)
                return errorf(err, errlen, -EBADMSG, "submit_run: jobs go in the parts of a plan");
        for (size_t i = 0; i < s->n_parts; i++)
                if ((r = check_part(s->parts[i], err, errlen)) < 0)
                        return r;
        return 0;
}

static int check_submit_run(const Iofleet__SubmitRun *s, char *err, size_t errlen)
{
        int r;
        if ((r = check_str(s->selector, WIRE_MAX_TEXT, false, "submit_run.selector", err, errlen)) <
                0 ||
            (r = check_text(s->command_line, WIRE_MAX_TEXT * 16, "submit_run.command_line", err,
                            errlen)) < 0)
                return r;
        if (s->lead_ns > NSEC_PER_SEC * 3600 || s->interval_ns > NSEC_PER_SEC * 3600)
                return errorf(err, errlen, -EBADMSG,
                              "submit_run: lead and interval must be at most 1h");
        if (s->interval_ns != 0 && s->interval_ns < NSEC_PER_MSEC * 10)
                return errorf(err, errlen, -EBADMSG, "submit_run: interval must be at least 10ms");
        if ((r = check_submit_durations(s, err, errlen)) < 0 ||
            (r = check_str(s->sweep_id, WIRE_MAX_ID, false, "submit_run.sweep_id", err, errlen)) <
                0 ||
            (r = check_name(s->sweep_id ? s->sweep_id : "", "submit_run.sweep_id", err, errlen)) <
                0 ||
            (r = check_str(s->plan_name, WIRE_MAX_NAME, false, "submit_run.plan_name", err,
                           errlen)) < 0 ||
            (r = check_settings(s->point_params, s->n_point_params, "submit_run.point_params", err,
                                errlen)) < 0)
                return r;
        if (s->sweep_id && s->sweep_id[0] == '.')
                return errorf(err, errlen, -EBADMSG,
                              "submit_run.sweep_id: must not start with '.'");
        return check_submit_lists(s, err, errlen);
}

static int check_run_accepted(const Iofleet__RunAccepted *a, char *err, size_t errlen)
{
        int r;
        if ((r = check_str(a->run_id, WIRE_MAX_ID, true, "run_accepted.run_id", err, errlen)) < 0)
                return r;
        for (size_t i = 0; i < a->n_agents; i++)
                if ((r = check_agent_info(a->agents[i], err, errlen)) < 0)
                        return r;
        return 0;
}

/* done of total bytes laid out: done <= total <= WIRE_MAX_LAYOUT_BYTES. */
static int check_layout_bytes(uint64_t done, uint64_t total, const char *what, char *err,
                              size_t errlen)
{
        if (total > WIRE_MAX_LAYOUT_BYTES)
                return errorf(err, errlen, -EBADMSG, "%s.total_bytes %llu exceeds %llu", what,
                              (unsigned long long)total, WIRE_MAX_LAYOUT_BYTES);
        if (done > total)
                return errorf(err, errlen, -EBADMSG, "%s.done_bytes %llu exceeds total_bytes %llu",
                              what, (unsigned long long)done, (unsigned long long)total);
        return 0;
}

static int check_layout_progress(const Iofleet__LayoutProgress *p, char *err, size_t errlen)
{
        int r = check_str(p->run_id, WIRE_MAX_ID, true, "layout_progress.run_id", err, errlen);
        return r < 0 ? r
                     : check_layout_bytes(p->done_bytes, p->total_bytes, "layout_progress", err,
                                          errlen);
}

static int check_agent_layout(const Iofleet__AgentLayout *a, const char *what, char *err,
                              size_t errlen)
{
        int r = check_str(a->name, WIRE_MAX_NAME, false, what, err, errlen);
        return r < 0 ? r : check_layout_bytes(a->done_bytes, a->total_bytes, what, err, errlen);
}

static int check_run_update(const Iofleet__RunUpdate *u, char *err, size_t errlen)
{
        int r;
        if ((r = check_str(u->run_id, WIRE_MAX_ID, true, "run_update.run_id", err, errlen)) < 0 ||
            (r = check_text(u->message, WIRE_MAX_TEXT, "run_update.message", err, errlen)) < 0)
                return r;
        if (u->n_per_agent > WIRE_MAX_AGENTS || u->n_layout_per_agent > WIRE_MAX_AGENTS)
                return errorf(err, errlen, -EBADMSG, "run_update: too many agents");
        for (size_t i = 0; i < u->n_per_agent; i++)
                if ((r = check_str(u->per_agent[i]->name, WIRE_MAX_NAME, false,
                                   "run_update.per_agent.name", err, errlen)) < 0)
                        return r;
        if (u->layout_done_bytes > u->layout_total_bytes)
                return errorf(err, errlen, -EBADMSG,
                              "run_update.layout_done_bytes exceeds layout_total_bytes");
        if (u->layout_slowest &&
            (r = check_agent_layout(u->layout_slowest, "run_update.layout_slowest", err,
                                    errlen)) < 0)
                return r;
        for (size_t i = 0; i < u->n_layout_per_agent; i++)
                if ((r = check_agent_layout(u->layout_per_agent[i], "run_update.layout_per_agent",
                                            err, errlen)) < 0)
                        return r;
        return check_strs(u->missing, u->n_missing, WIRE_MAX_AGENTS,
                          "run_update: too many missing agents", WIRE_MAX_NAME, true,
                          "run_update.missing", err, errlen);
}

static int check_run_done(const Iofleet__RunDone *d, char *err, size_t errlen)
{
        int r;
        if ((r = check_str(d->run_id, WIRE_MAX_ID, false, "run_done.run_id", err, errlen)) < 0 ||
            (r = check_text(d->message, WIRE_MAX_TEXT, "run_done.message", err, errlen)) < 0 ||
            (r = check_text(d->result_json, WIRE_MAX_CONTROL_MSG, "run_done.result_json", err,
                            errlen)) < 0 ||
            (r = check_str(d->status, WIRE_MAX_NAME, false, "run_done.status", err, errlen)) < 0)
                return r;
        return check_str(d->results_dir, WIRE_MAX_TEXT, false, "run_done.results_dir", err, errlen);
}

static int check_cancel_run(const Iofleet__CancelRun *c, char *err, size_t errlen)
{
        return check_str(c->run_id, WIRE_MAX_ID, false, "cancel_run.run_id", err, errlen);
}

static int check_watch_run(const Iofleet__WatchRun *w, char *err, size_t errlen)
{
        return check_str(w->run_id, WIRE_MAX_ID, false, "watch_run.run_id", err, errlen);
}

static int check_enroll_request(const Iofleet__EnrollRequest *q, char *err, size_t errlen)
{
        int r;
        if (q->agent_key.len != 32 || q->nonce.len != 24 || q->proof.len != 80)
                return errorf(err, errlen, -EBADMSG,
                              "enroll_request: agent_key, nonce and proof must be 32, 24 "
                              "and 80 bytes, not %zu, %zu and %zu",
                              q->agent_key.len, q->nonce.len, q->proof.len);
        if ((r = check_str(q->name, WIRE_MAX_NAME, true, "enroll_request.name", err, errlen)) < 0 ||
            (r = check_name(q->name, "enroll_request.name", err, errlen)) < 0 ||
            (r = check_str(q->hostname, WIRE_MAX_HOSTNAME, false, "enroll_request.hostname", err,
                           errlen)) < 0 ||
            (r = check_str(q->version, WIRE_MAX_NAME, false, "enroll_request.version", err,
                           errlen)) < 0)
                return r;
        return check_roles(q->roles, q->n_roles, "enroll_request.roles", err, errlen);
}

static int check_enroll_reply(const Iofleet__EnrollReply *p, char *err, size_t errlen)
{
        int r;
        if ((r = check_str(p->name, WIRE_MAX_NAME, true, "enroll_reply.name", err, errlen)) < 0 ||
            (r = check_name(p->name, "enroll_reply.name", err, errlen)) < 0 ||
            (r = check_str(p->coordinator_version, WIRE_MAX_NAME, false,
                           "enroll_reply.coordinator_version", err, errlen)) < 0)
                return r;
        return check_roles(p->roles, p->n_roles, "enroll_reply.roles", err, errlen);
}

static int check_enroll_create(const Iofleet__EnrollCreate *c, char *err, size_t errlen)
{
        int r;
        if (c->count < 1 || c->count > 10000)
                return errorf(err, errlen, -EBADMSG, "enroll_create.count: %u, allowed 1..10000",
                              c->count);
        if (c->expires_ns < 60 * NSEC_PER_SEC || c->expires_ns > 30 * NSEC_PER_DAY)
                return errorf(err, errlen, -EBADMSG, "enroll_create.expires: allowed 1min..30d");
        if ((r = check_str(c->name_prefix, 32, false, "enroll_create.name_prefix", err, errlen)) <
                0 ||
            (r = check_name(c->name_prefix ? c->name_prefix : "", "enroll_create.name_prefix", err,
                            errlen)) < 0)
                return r;
        return check_roles(c->roles, c->n_roles, "enroll_create.roles", err, errlen);
}

static int check_enroll_token(const Iofleet__EnrollToken *t, char *err, size_t errlen)
{
        int r;
        if ((r = check_str(t->token, 256, true, "enroll_token.token", err, errlen)) < 0)
                return r;
        return check_str(t->id, WIRE_MAX_ID, true, "enroll_token.id", err, errlen);
}

static int check_token_info(const Iofleet__EnrollTokenInfo *t, char *err, size_t errlen)
{
        int r;
        if ((r = check_str(t->id, WIRE_MAX_ID, true, "token.id", err, errlen)) < 0 ||
            (r = check_str(t->name_prefix, WIRE_MAX_NAME, false, "token.name_prefix", err,
                           errlen)) < 0 ||
            (r = check_str(t->state, WIRE_MAX_NAME, false, "token.state", err, errlen)) < 0)
                return r;
        return check_roles(t->roles, t->n_roles, "token.roles", err, errlen);
}

static int check_pending_agent(const Iofleet__PendingAgent *p, char *err, size_t errlen)
{
        int r;
        if ((r = check_str(p->name, WIRE_MAX_NAME, true, "pending.name", err, errlen)) < 0 ||
            (r = check_name(p->name, "pending.name", err, errlen)) < 0 ||
            (r = check_str(p->key, 40, false, "pending.key", err, errlen)) < 0 ||
            (r = check_str(p->hostname, WIRE_MAX_HOSTNAME, false, "pending.hostname", err,
                           errlen)) < 0 ||
            (r = check_str(p->address, 256, false, "pending.address", err, errlen)) < 0 ||
            (r = check_str(p->token_id, WIRE_MAX_ID, false, "pending.token_id", err, errlen)) < 0)
                return r;
        return check_roles(p->roles, p->n_roles, "pending.roles", err, errlen);
}

static int check_enroll_state(const Iofleet__EnrollState *st, char *err, size_t errlen)
{
        int r;
        if (st->n_tokens > 100000 || st->n_pending > WIRE_MAX_AGENTS)
                return errorf(err, errlen, -EBADMSG, "enroll_state: too many entries");
        for (size_t i = 0; i < st->n_tokens; i++)
                if ((r = check_token_info(st->tokens[i], err, errlen)) < 0)
                        return r;
        for (size_t i = 0; i < st->n_pending; i++)
                if ((r = check_pending_agent(st->pending[i], err, errlen)) < 0)
                        return r;
        return 0;
}

static int check_enroll_action(const Iofleet__EnrollAction *a, char *err, size_t errlen)
{
        int r;
        if (a->kind < IOFLEET__ENROLL_ACTION__KIND__KIND_APPROVE ||
            a->kind > IOFLEET__ENROLL_ACTION__KIND__KIND_REVOKE_TOKEN)
                return errorf(err, errlen, -EBADMSG,
                              "enroll_action.kind: %d, allowed 1 (approve), 2 (revoke), "
                              "3 (revoke token)",
                              (int)a->kind);
        if ((r = check_str(a->name, WIRE_MAX_NAME, true, "enroll_action.name", err, errlen)) < 0)
                return r;
        return check_name(a->name, "enroll_action.name", err, errlen);
}

static int check_enroll_action_done(const Iofleet__EnrollActionDone *d, char *err, size_t errlen)
{
        return check_text(d->message, WIRE_MAX_TEXT, "enroll_action_done.message", err, errlen);
}

/* Every body the envelope may carry: its case, its field and its validator. */
#define WIRE_BODIES(X)                                                                             \
        X(HELLO, hello, check_hello)                                                               \
        X(WELCOME, welcome, check_welcome)                                                         \
        X(HEARTBEAT, heartbeat, check_heartbeat)                                                   \
        X(TIME_PROBE, time_probe, check_nothing)                                                   \
        X(TIME_REPLY, time_reply, check_nothing)                                                   \
        X(GOODBYE, goodbye, check_goodbye)                                                         \
        X(PREPARE, prepare, check_prepare)                                                         \
        X(PREPARED, prepared, check_prepared)                                                      \
        X(START, start, check_start)                                                               \
        X(STARTED, started, check_started)                                                         \
        X(INTERVAL, interval, check_interval)                                                      \
        X(STOP, stop, check_stop)                                                                  \
        X(FINISHED, finished, check_finished)                                                      \
        X(ACK, ack, check_ack)                                                                     \
        X(RESTORED, restored, check_restored)                                                      \
        X(ERROR, error, check_error)                                                               \
        X(GROUP_READY, group_ready, check_group_ready)                                             \
        X(START_GROUP, start_group, check_start_group)                                             \
        X(GROUP_STARTED, group_started, check_group_started)                                       \
        X(LOG_CHUNK, log_chunk, check_log_chunk)                                                   \
        X(LIST_AGENTS, list_agents, check_nothing)                                                 \
        X(AGENT_LIST, agent_list, check_agent_list)                                                \
        X(SUBMIT_RUN, submit_run, check_submit_run)                                                \
        X(RUN_ACCEPTED, run_accepted, check_run_accepted)                                          \
        X(RUN_UPDATE, run_update, check_run_update)                                                \
        X(RUN_DONE, run_done, check_run_done)                                                      \
        X(CANCEL_RUN, cancel_run, check_cancel_run)                                                \
        X(WATCH_RUN, watch_run, check_watch_run)                                                   \
        X(LIST_RUNS, list_runs, check_nothing)                                                     \
        X(RUN_LIST, run_list, check_run_list)                                                      \
        X(ENROLL_REQUEST, enroll_request, check_enroll_request)                                    \
        X(ENROLL_REPLY, enroll_reply, check_enroll_reply)                                          \
        X(ENROLL_CREATE, enroll_create, check_enroll_create)                                       \
        X(ENROLL_TOKEN, enroll_token, check_enroll_token)                                          \
        X(ENROLL_QUERY, enroll_query, check_nothing)                                               \
        X(ENROLL_STATE, enroll_state, check_enroll_state)                                          \
        X(ENROLL_ACTION, enroll_action, check_enroll_action)                                       \
        X(ENROLL_ACTION_DONE, enroll_action_done, check_enroll_action_done)                        \
        X(LAYOUT_PROGRESS, layout_progress, check_layout_progress)

typedef int (*body_check_fn)(const envelope_t *e, char *err, size_t errlen);

/* The envelope's field handed to its validator, one line per body. */
#define BODY_CHECK(CASE, field, fn)                                                                \
        static int body_##field(const envelope_t *e, char *err, size_t errlen)                     \
        {                                                                                          \
                return fn(e->field, err, errlen);                                                  \
        }
WIRE_BODIES(BODY_CHECK)
#undef BODY_CHECK

/* Indexed by body case (the envelope's field number). */
static const body_check_fn body_checks[] = {
#define BODY_ENTRY(CASE, field, fn) [IOFLEET__ENVELOPE__BODY_##CASE] = body_##field,
    WIRE_BODIES(BODY_ENTRY)
#undef BODY_ENTRY
};

int wire_check_body(const envelope_t *e, char *err, size_t errlen)
{
        size_t c = (size_t)e->body_case;
        if (c >= ELEMENTSOF(body_checks) || !body_checks[c])
                return errorf(err, errlen, -EBADMSG, "message has no known body (field %d)",
                              (int)e->body_case);
        return body_checks[c](e, err, errlen);
}
