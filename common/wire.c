/* Wire codec: the only place that packs and unpacks protobuf Envelopes, with size, version and
 * field checks. */
#include "wire.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

static int check_role(const char *role, bool empty_ok, const char *what, char *err,
                      size_t errlen)
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
            (r = check_settings(p->sysctls, p->n_sysctls, "submit_run.part.sysctls", err,
                                errlen)) < 0)
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
        static const char *const metrics[] = {"read_bw",   "write_bw",   "bw",       "read_iops",
                                              "write_iops", "iops",      "clat_p99", "errors"};
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

static const char *const run_phases[] = {"preparing", "prepared", "running",
                                         "serving",   "restoring", "done"};

static int check_hello_run(const Iofleet__Hello *h, char *err, size_t errlen)
{
        int r;
        bool known = false;
        if ((r = check_str(h->run_id, WIRE_MAX_ID, false, "hello.run_id", err, errlen)) < 0 ||
            (r = check_str(h->run_phase, WIRE_MAX_NAME, false, "hello.run_phase", err, errlen)) <
                0)
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
                return errorf(err, errlen, -EBADMSG, "start_group.max_intervals %llu out of range "
                              "0..%u", (unsigned long long)g->max_intervals, WIRE_MAX_INTERVALS);
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

static int check_goodbye(const Iofleet__Goodbye *g, char *err, size_t errlen)
{
        return check_str(g->reason, WIRE_MAX_TEXT, false, "goodbye.reason", err, errlen);
}

static int check_run_info(const Iofleet__RunInfo *ri, char *err, size_t errlen)
{
        int r;
        if ((r = check_str(ri->run_id, WIRE_MAX_ID, true, "run_info.run_id", err, errlen)) < 0 ||
            (r = check_str(ri->phase, WIRE_MAX_NAME, false, "run_info.phase", err, errlen)) < 0 ||
            (r = check_str(ri->sweep_id, WIRE_MAX_ID, false, "run_info.sweep_id", err, errlen)) <
                0)
                return r;
        if (ri->n_agents > WIRE_MAX_AGENTS)
                return errorf(err, errlen, -EBADMSG, "run_info: too many agents");
        for (size_t i = 0; i < ri->n_agents; i++)
                if ((r = check_str(ri->agents[i], WIRE_MAX_NAME, true, "run_info.agent", err,
                                   errlen)) < 0)
                        return r;
        return 0;
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

static int check_body(const envelope_t *e, char *err, size_t errlen)
{
        int r;
        switch (e->body_case) {
        case IOFLEET__ENVELOPE__BODY_HELLO: {
                Iofleet__Hello *h = e->hello;
                if ((r = check_str(h->agent_id, WIRE_MAX_ID, true, "hello.agent_id", err, errlen)) <
                        0 ||
                    (r = check_str(h->name, WIRE_MAX_NAME, true, "hello.name", err, errlen)) < 0 ||
                    (r = check_name(h->name, "hello.name", err, errlen)) < 0 ||
                    (r = check_str(h->hostname, WIRE_MAX_HOSTNAME, false, "hello.hostname", err,
                                   errlen)) < 0 ||
                    (r = check_str(h->version, WIRE_MAX_NAME, false, "hello.version", err,
                                   errlen)) < 0 ||
                    (r = check_str(h->boot_id, WIRE_MAX_ID, false, "hello.boot_id", err, errlen)) <
                        0)
                        return r;
                if (h->n_roles > WIRE_MAX_ROLES || h->n_engines > 32)
                        return errorf(err, errlen, -EBADMSG,
                                      "hello: at most %d roles and 32 engines allowed",
                                      WIRE_MAX_ROLES);
                for (size_t i = 0; i < h->n_roles; i++)
                        if ((r = check_str(h->roles[i], WIRE_MAX_NAME, true, "hello.role", err,
                                           errlen)) < 0)
                                return r;
                for (size_t i = 0; i < h->n_engines; i++)
                        if ((r = check_str(h->engines[i], WIRE_MAX_NAME, true, "hello.engine", err,
                                           errlen)) < 0)
                                return r;
                if ((r = check_hello_run(h, err, errlen)) < 0)
                        return r;
                return check_labels(h->labels, h->n_labels, err, errlen);
        }
        case IOFLEET__ENVELOPE__BODY_ACK:
                return check_ack(e->ack, err, errlen);
        case IOFLEET__ENVELOPE__BODY_RESTORED:
                return check_restored(e->restored, err, errlen);
        case IOFLEET__ENVELOPE__BODY_GOODBYE:
                return check_goodbye(e->goodbye, err, errlen);
        case IOFLEET__ENVELOPE__BODY_GROUP_READY:
                return check_group_ready(e->group_ready, err, errlen);
        case IOFLEET__ENVELOPE__BODY_START_GROUP:
                return check_start_group(e->start_group, err, errlen);
        case IOFLEET__ENVELOPE__BODY_GROUP_STARTED:
                return check_group_started(e->group_started, err, errlen);
        case IOFLEET__ENVELOPE__BODY_LIST_RUNS:
                return 0;
        case IOFLEET__ENVELOPE__BODY_RUN_LIST:
                return check_run_list(e->run_list, err, errlen);
        case IOFLEET__ENVELOPE__BODY_WELCOME:
                if (e->welcome->heartbeat_ns < NSEC_PER_MSEC * 10 ||
                    e->welcome->heartbeat_ns > NSEC_PER_SEC * 3600 || e->welcome->lost_after < 2 ||
                    e->welcome->lost_after > 1000)
                        return errorf(err, errlen, -EBADMSG,
                                      "welcome: heartbeat must be 10ms..1h and lost_after 2..1000");
                if ((r = check_str(e->welcome->coordinator_version, WIRE_MAX_NAME, false,
                                   "welcome.coordinator_version", err, errlen)) < 0 ||
                    (r = check_str(e->welcome->name, WIRE_MAX_NAME, false, "welcome.name", err,
                                   errlen)) < 0)
                        return r;
                return check_name(e->welcome->name ? e->welcome->name : "", "welcome.name", err,
                                  errlen);
        case IOFLEET__ENVELOPE__BODY_HEARTBEAT:
                return check_heartbeat(e->heartbeat, err, errlen);
        case IOFLEET__ENVELOPE__BODY_TIME_PROBE:
        case IOFLEET__ENVELOPE__BODY_TIME_REPLY:
        case IOFLEET__ENVELOPE__BODY_LIST_AGENTS:
                return 0;
        case IOFLEET__ENVELOPE__BODY_PREPARE:
                if ((r = check_str(e->prepare->run_id, WIRE_MAX_ID, true, "prepare.run_id", err,
                                   errlen)) < 0)
                        return r;
                if (e->prepare->nagents == 0 || e->prepare->nagents > WIRE_MAX_AGENTS ||
                    e->prepare->rank >= e->prepare->nagents)
                        return errorf(err, errlen, -EBADMSG,
                                      "prepare: rank %u / nagents %u out of range",
                                      e->prepare->rank, e->prepare->nagents);
                if (e->prepare->interval_ns < NSEC_PER_MSEC * 10 ||
                    e->prepare->interval_ns > NSEC_PER_SEC * 3600)
                        return errorf(err, errlen, -EBADMSG, "prepare: interval must be 10ms..1h");
                if (e->prepare->orphan_grace_ns > WIRE_MAX_GRACE_NS)
                        return errorf(err, errlen, -EBADMSG,
                                      "prepare.orphan_grace_ns: at most 7 days");
                if ((r = check_role(e->prepare->role, true, "prepare.role", err, errlen)) < 0 ||
                    (r = check_settings(e->prepare->server, e->prepare->n_server, "prepare.server",
                                        err, errlen)) < 0 ||
                    (r = check_settings(e->prepare->mount, e->prepare->n_mount, "prepare.mount",
                                        err, errlen)) < 0 ||
                    (r = check_settings(e->prepare->sysctls, e->prepare->n_sysctls,
                                        "prepare.sysctls", err, errlen)) < 0 ||
                    (r = check_str(e->prepare->nfs_server, WIRE_MAX_HOSTNAME, false,
                                   "prepare.nfs_server", err, errlen)) < 0 ||
                    (r = check_str(e->prepare->nfs_export, WIRE_MAX_OPTION_VALUE, false,
                                   "prepare.nfs_export", err, errlen)) < 0)
                        return r;
                if (streq(e->prepare->role, "server"))
                        return e->prepare->n_jobs ? errorf(err, errlen, -EBADMSG,
                                                           "prepare: a server runs no jobs")
                                                  : 0;
                return check_jobs(e->prepare->jobs, e->prepare->n_jobs, err, errlen);
        case IOFLEET__ENVELOPE__BODY_PREPARED:
                if ((r = check_settings(e->prepared->effective, e->prepared->n_effective,
                                        "prepared.effective", err, errlen)) < 0)
                        return r;
                return check_str(e->prepared->run_id, WIRE_MAX_ID, true, "prepared.run_id", err,
                                 errlen);
        case IOFLEET__ENVELOPE__BODY_START:
                return check_str(e->start->run_id, WIRE_MAX_ID, true, "start.run_id", err, errlen);
        case IOFLEET__ENVELOPE__BODY_STARTED:
                if ((r = check_time(e->started->start_ns, "started.start_ns", err, errlen)) < 0 ||
                    (r = check_time(e->started->host_mono_ns, "started.host_mono_ns", err,
                                    errlen)) < 0 ||
                    (r = check_time(e->started->workers_lag_ns > (UINT64_C(1) << 61)
                                        ? INT64_MAX
                                        : (int64_t)e->started->workers_lag_ns,
                                    "started.workers_lag_ns", err, errlen)) < 0)
                        return r;
                return check_str(e->started->run_id, WIRE_MAX_ID, true, "started.run_id", err,
                                 errlen);
        case IOFLEET__ENVELOPE__BODY_INTERVAL:
                if ((r = check_str(e->interval->run_id, WIRE_MAX_ID, true, "interval.run_id", err,
                                   errlen)) < 0)
                        return r;
                if (e->interval->index >= WIRE_MAX_INTERVALS)
                        return errorf(err, errlen, -EBADMSG, "interval.index %u out of range 0..%u",
                                      e->interval->index, WIRE_MAX_INTERVALS - 1);
                if ((r = check_dir(e->interval->read, "interval.read", err, errlen)) < 0)
                        return r;
                return check_dir(e->interval->write, "interval.write", err, errlen);
        case IOFLEET__ENVELOPE__BODY_STOP:
                if ((r = check_str(e->stop->run_id, WIRE_MAX_ID, true, "stop.run_id", err,
                                   errlen)) < 0)
                        return r;
                return check_str(e->stop->reason, WIRE_MAX_TEXT, false, "stop.reason", err, errlen);
        case IOFLEET__ENVELOPE__BODY_FINISHED: {
                Iofleet__Finished *f = e->finished;
                if ((r = check_str(f->run_id, WIRE_MAX_ID, true, "finished.run_id", err, errlen)) <
                        0 ||
                    (r = check_text(f->error, WIRE_MAX_TEXT, "finished.error", err, errlen)) < 0 ||
                    (r = check_settings(f->effective, f->n_effective, "finished.effective", err,
                                        errlen)) < 0)
                        return r;
                if (f->intervals > WIRE_MAX_INTERVALS)
                        return errorf(err, errlen, -EBADMSG, "finished.intervals: at most %u",
                                      WIRE_MAX_INTERVALS);
                if (f->n_jobs > WIRE_MAX_RESULTS)
                        return errorf(err, errlen, -EBADMSG, "finished: %zu results, at most %d",
                                      f->n_jobs, WIRE_MAX_RESULTS);
                for (size_t i = 0; i < f->n_jobs; i++) {
                        Iofleet__JobResult *j = f->jobs[i];
                        if ((r = check_str(j->name, WIRE_MAX_NAME, true, "finished.job.name", err,
                                           errlen)) < 0 ||
                            (r = check_text(j->error_msg, WIRE_MAX_TEXT, "finished.job.error_msg",
                                            err, errlen)) < 0 ||
                            (r = check_dir(j->read, "finished.job.read", err, errlen)) < 0 ||
                            (r = check_dir(j->write, "finished.job.write", err, errlen)) < 0)
                                return r;
                        if (j->n_phases > 16)
                                return errorf(err, errlen, -EBADMSG,
                                              "finished.job: %zu phases, at most 16", j->n_phases);
                        for (size_t q = 0; q < j->n_phases; q++)
                                if ((r = check_str(j->phases[q]->name, WIRE_MAX_NAME, true,
                                                   "finished.job.phase.name", err, errlen)) < 0 ||
                                    (r = check_hist(j->phases[q]->lat, "finished.job.phase.lat",
                                                    err, errlen)) < 0)
                                        return r;
                        if (j->clone < -1 || j->clone > 65535)
                                return errorf(err, errlen, -EBADMSG,
                                              "finished.job.clone %d out of range -1..65535",
                                              j->clone);
                        if (j->first_done_ns > j->last_done_ns)
                                return errorf(err, errlen, -EBADMSG,
                                              "finished.job: first_done after last_done");
                        if (j->groupid > WIRE_MAX_JOBS)
                                return errorf(err, errlen, -EBADMSG,
                                              "finished.job.groupid %u out of range 0..%d",
                                              j->groupid, WIRE_MAX_JOBS);
                        if (j->steadystate &&
                            ((r = check_str(j->steadystate->ss, WIRE_MAX_NAME, false,
                                            "finished.job.steadystate.ss", err, errlen)) < 0 ||
                             (r = check_str(j->steadystate->criterion, WIRE_MAX_NAME, false,
                                            "finished.job.steadystate.criterion", err, errlen)) < 0))
                                return r;
                        if (j->steadystate && (j->steadystate->n_iops > WIRE_MAX_SS_SAMPLES ||
                                               j->steadystate->n_bw > WIRE_MAX_SS_SAMPLES))
                                return errorf(err, errlen, -EBADMSG,
                                              "finished.job.steadystate: more than %d samples",
                                              WIRE_MAX_SS_SAMPLES);
                }
                return 0;
        }
        case IOFLEET__ENVELOPE__BODY_ERROR:
                if ((r = check_text(e->error->message, WIRE_MAX_TEXT, "error.message", err,
                                    errlen)) < 0)
                        return r;
                return check_str(e->error->run_id, WIRE_MAX_ID, false, "error.run_id", err, errlen);
        case IOFLEET__ENVELOPE__BODY_AGENT_LIST:
                if (e->agent_list->n_agents > WIRE_MAX_AGENTS)
                        return errorf(err, errlen, -EBADMSG, "agent_list: too many agents");
                for (size_t i = 0; i < e->agent_list->n_agents; i++)
                        if ((r = check_agent_info(e->agent_list->agents[i], err, errlen)) < 0)
                                return r;
                return 0;
        case IOFLEET__ENVELOPE__BODY_SUBMIT_RUN: {
                Iofleet__SubmitRun *s = e->submit_run;
                if ((r = check_str(s->selector, WIRE_MAX_TEXT, false, "submit_run.selector", err,
                                   errlen)) < 0 ||
                    (r = check_text(s->command_line, WIRE_MAX_TEXT * 16, "submit_run.command_line",
                                    err, errlen)) < 0)
                        return r;
                if (s->lead_ns > NSEC_PER_SEC * 3600 || s->interval_ns > NSEC_PER_SEC * 3600)
                        return errorf(err, errlen, -EBADMSG,
                                      "submit_run: lead and interval must be at most 1h");
                if (s->interval_ns != 0 && s->interval_ns < NSEC_PER_MSEC * 10)
                        return errorf(err, errlen, -EBADMSG,
                                      "submit_run: interval must be at least 10ms");
                if ((r = check_submit_durations(s, err, errlen)) < 0 ||
                    (r = check_str(s->sweep_id, WIRE_MAX_ID, false, "submit_run.sweep_id", err,
                                   errlen)) < 0 ||
                    (r = check_name(s->sweep_id ? s->sweep_id : "", "submit_run.sweep_id", err,
                                    errlen)) < 0 ||
                    (r = check_str(s->plan_name, WIRE_MAX_NAME, false, "submit_run.plan_name", err,
                                   errlen)) < 0 ||
                    (r = check_settings(s->point_params, s->n_point_params,
                                        "submit_run.point_params", err, errlen)) < 0)
                        return r;
                if (s->sweep_id && s->sweep_id[0] == '.')
                        return errorf(err, errlen, -EBADMSG,
                                      "submit_run.sweep_id: must not start with '.'");
                if (s->n_sweep_params > WIRE_MAX_SETTINGS || s->n_degrade > 64 ||
                    s->n_parts > WIRE_MAX_PARTS || s->point > WIRE_MAX_POINTS ||
                    s->repeat > WIRE_MAX_POINTS)
                        return errorf(err, errlen, -EBADMSG,
                                      "submit_run: at most %d sweep parameters, 64 degrade rules, "
                                      "%d parts, point and repeat below %d",
                                      WIRE_MAX_SETTINGS, WIRE_MAX_PARTS, WIRE_MAX_POINTS);
                for (size_t i = 0; i < s->n_sweep_params; i++)
                        if ((r = check_str(s->sweep_params[i], WIRE_MAX_NAME * 2, true,
                                           "submit_run.sweep_params", err, errlen)) < 0)
                                return r;
                for (size_t i = 0; i < s->n_degrade; i++)
                        if ((r = check_degrade(s->degrade[i], err, errlen)) < 0)
                                return r;
                if (s->n_parts) {
                        if (s->n_jobs)
                                return errorf(err, errlen, -EBADMSG,
                                              "submit_run: jobs go in the parts of a plan");
                        for (size_t i = 0; i < s->n_parts; i++)
                                if ((r = check_part(s->parts[i], err, errlen)) < 0)
                                        return r;
                        return 0;
                }
                return check_jobs(s->jobs, s->n_jobs, err, errlen);
        }
        case IOFLEET__ENVELOPE__BODY_RUN_ACCEPTED:
                if ((r = check_str(e->run_accepted->run_id, WIRE_MAX_ID, true,
                                   "run_accepted.run_id", err, errlen)) < 0)
                        return r;
                for (size_t i = 0; i < e->run_accepted->n_agents; i++)
                        if ((r = check_agent_info(e->run_accepted->agents[i], err, errlen)) < 0)
                                return r;
                return 0;
        case IOFLEET__ENVELOPE__BODY_RUN_UPDATE:
                if ((r = check_str(e->run_update->run_id, WIRE_MAX_ID, true, "run_update.run_id",
                                   err, errlen)) < 0 ||
                    (r = check_text(e->run_update->message, WIRE_MAX_TEXT, "run_update.message",
                                    err, errlen)) < 0)
                        return r;
                if (e->run_update->n_per_agent > WIRE_MAX_AGENTS)
                        return errorf(err, errlen, -EBADMSG, "run_update: too many agents");
                for (size_t i = 0; i < e->run_update->n_per_agent; i++)
                        if ((r = check_str(e->run_update->per_agent[i]->name, WIRE_MAX_NAME, false,
                                           "run_update.per_agent.name", err, errlen)) < 0)
                                return r;
                if (e->run_update->n_missing > WIRE_MAX_AGENTS)
                        return errorf(err, errlen, -EBADMSG, "run_update: too many missing agents");
                for (size_t i = 0; i < e->run_update->n_missing; i++)
                        if ((r = check_str(e->run_update->missing[i], WIRE_MAX_NAME, true,
                                           "run_update.missing", err, errlen)) < 0)
                                return r;
                return 0;
        case IOFLEET__ENVELOPE__BODY_RUN_DONE:
                if ((r = check_str(e->run_done->run_id, WIRE_MAX_ID, false, "run_done.run_id", err,
                                   errlen)) < 0 ||
                    (r = check_text(e->run_done->message, WIRE_MAX_TEXT, "run_done.message", err,
                                    errlen)) < 0 ||
                    (r = check_text(e->run_done->result_json, WIRE_MAX_CONTROL_MSG,
                                    "run_done.result_json", err, errlen)) < 0 ||
                    (r = check_str(e->run_done->status, WIRE_MAX_NAME, false, "run_done.status",
                                   err, errlen)) < 0)
                        return r;
                return check_str(e->run_done->results_dir, WIRE_MAX_TEXT, false,
                                 "run_done.results_dir", err, errlen);
        case IOFLEET__ENVELOPE__BODY_CANCEL_RUN:
                return check_str(e->cancel_run->run_id, WIRE_MAX_ID, false, "cancel_run.run_id",
                                 err, errlen);
        case IOFLEET__ENVELOPE__BODY_WATCH_RUN:
                return check_str(e->watch_run->run_id, WIRE_MAX_ID, false, "watch_run.run_id",
                                 err, errlen);
        case IOFLEET__ENVELOPE__BODY_ENROLL_REQUEST: {
                const Iofleet__EnrollRequest *q = e->enroll_request;
                if (q->agent_key.len != 32 || q->nonce.len != 24 || q->proof.len != 80)
                        return errorf(err, errlen, -EBADMSG,
                                      "enroll_request: agent_key, nonce and proof must be 32, 24 "
                                      "and 80 bytes, not %zu, %zu and %zu",
                                      q->agent_key.len, q->nonce.len, q->proof.len);
                if ((r = check_str(q->name, WIRE_MAX_NAME, true, "enroll_request.name", err,
                                   errlen)) < 0 ||
                    (r = check_name(q->name, "enroll_request.name", err, errlen)) < 0 ||
                    (r = check_str(q->hostname, WIRE_MAX_HOSTNAME, false,
                                   "enroll_request.hostname", err, errlen)) < 0 ||
                    (r = check_str(q->version, WIRE_MAX_NAME, false, "enroll_request.version",
                                   err, errlen)) < 0)
                        return r;
                return check_roles(q->roles, q->n_roles, "enroll_request.roles", err, errlen);
        }
        case IOFLEET__ENVELOPE__BODY_ENROLL_REPLY:
                if ((r = check_str(e->enroll_reply->name, WIRE_MAX_NAME, true,
                                   "enroll_reply.name", err, errlen)) < 0 ||
                    (r = check_name(e->enroll_reply->name, "enroll_reply.name", err, errlen)) < 0 ||
                    (r = check_str(e->enroll_reply->coordinator_version, WIRE_MAX_NAME, false,
                                   "enroll_reply.coordinator_version", err, errlen)) < 0)
                        return r;
                return check_roles(e->enroll_reply->roles, e->enroll_reply->n_roles,
                                   "enroll_reply.roles", err, errlen);
        case IOFLEET__ENVELOPE__BODY_ENROLL_CREATE: {
                const Iofleet__EnrollCreate *c = e->enroll_create;
                if (c->count < 1 || c->count > 10000)
                        return errorf(err, errlen, -EBADMSG, "enroll_create.count: %u, allowed 1..10000",
                                      c->count);
                if (c->expires_ns < 60 * NSEC_PER_SEC || c->expires_ns > 30 * NSEC_PER_DAY)
                        return errorf(err, errlen, -EBADMSG,
                                      "enroll_create.expires: allowed 1min..30d");
                if ((r = check_str(c->name_prefix, 32, false, "enroll_create.name_prefix", err,
                                   errlen)) < 0 ||
                    (r = check_name(c->name_prefix ? c->name_prefix : "",
                                    "enroll_create.name_prefix", err, errlen)) < 0)
                        return r;
                return check_roles(c->roles, c->n_roles, "enroll_create.roles", err, errlen);
        }
        case IOFLEET__ENVELOPE__BODY_ENROLL_TOKEN:
                if ((r = check_str(e->enroll_token->token, 256, true, "enroll_token.token", err,
                                   errlen)) < 0)
                        return r;
                return check_str(e->enroll_token->id, WIRE_MAX_ID, true, "enroll_token.id", err,
                                 errlen);
        case IOFLEET__ENVELOPE__BODY_ENROLL_QUERY:
                return 0;
        case IOFLEET__ENVELOPE__BODY_ENROLL_STATE: {
                const Iofleet__EnrollState *st = e->enroll_state;
                if (st->n_tokens > 100000 || st->n_pending > WIRE_MAX_AGENTS)
                        return errorf(err, errlen, -EBADMSG, "enroll_state: too many entries");
                for (size_t i = 0; i < st->n_tokens; i++) {
                        const Iofleet__EnrollTokenInfo *t = st->tokens[i];
                        if ((r = check_str(t->id, WIRE_MAX_ID, true, "token.id", err, errlen)) <
                                0 ||
                            (r = check_str(t->name_prefix, WIRE_MAX_NAME, false,
                                           "token.name_prefix", err, errlen)) < 0 ||
                            (r = check_str(t->state, WIRE_MAX_NAME, false, "token.state", err,
                                           errlen)) < 0 ||
                            (r = check_roles(t->roles, t->n_roles, "token.roles", err, errlen)) <
                                0)
                                return r;
                }
                for (size_t i = 0; i < st->n_pending; i++) {
                        const Iofleet__PendingAgent *p = st->pending[i];
                        if ((r = check_str(p->name, WIRE_MAX_NAME, true, "pending.name", err,
                                           errlen)) < 0 ||
                            (r = check_name(p->name, "pending.name", err, errlen)) < 0 ||
                            (r = check_str(p->key, 40, false, "pending.key", err, errlen)) < 0 ||
                            (r = check_str(p->hostname, WIRE_MAX_HOSTNAME, false,
                                           "pending.hostname", err, errlen)) < 0 ||
                            (r = check_str(p->address, 256, false, "pending.address", err,
                                           errlen)) < 0 ||
                            (r = check_str(p->token_id, WIRE_MAX_ID, false, "pending.token_id",
                                           err, errlen)) < 0 ||
                            (r = check_roles(p->roles, p->n_roles, "pending.roles", err, errlen)) <
                                0)
                                return r;
                }
                return 0;
        }
        case IOFLEET__ENVELOPE__BODY_ENROLL_ACTION:
                if (e->enroll_action->kind < IOFLEET__ENROLL_ACTION__KIND__KIND_APPROVE ||
                    e->enroll_action->kind > IOFLEET__ENROLL_ACTION__KIND__KIND_REVOKE_TOKEN)
                        return errorf(err, errlen, -EBADMSG,
                                      "enroll_action.kind: %d, allowed 1 (approve), 2 (revoke), "
                                      "3 (revoke token)",
                                      (int)e->enroll_action->kind);
                if ((r = check_str(e->enroll_action->name, WIRE_MAX_NAME, true,
                                   "enroll_action.name", err, errlen)) < 0)
                        return r;
                return check_name(e->enroll_action->name, "enroll_action.name", err, errlen);
        case IOFLEET__ENVELOPE__BODY_ENROLL_ACTION_DONE:
                return check_text(e->enroll_action_done->message, WIRE_MAX_TEXT,
                                  "enroll_action_done.message", err, errlen);
        case IOFLEET__ENVELOPE__BODY__NOT_SET:
        default:
                return errorf(err, errlen, -EBADMSG, "message has no known body (field %d)",
                              (int)e->body_case);
        }
}

/* protobuf-c keeps a field numbered 0 as an unknown field when its tag is spelt with a redundant
 * varint byte, then packs it back in the one-byte form its own decoder refuses: a message holding
 * one would not survive being passed on (the coordinator forwards jobs to agents). Returns the
 * name of the message type holding one, or NULL. */
static const char *find_field_zero(const ProtobufCMessage *m)
{
        const char *base = (const char *)m, *r;

        for (unsigned i = 0; i < m->n_unknown_fields; i++)
                if (m->unknown_fields[i].tag == 0)
                        return m->descriptor->name;
        for (unsigned i = 0; i < m->descriptor->n_fields; i++) {
                const ProtobufCFieldDescriptor *f = &m->descriptor->fields[i];
                if (f->type != PROTOBUF_C_TYPE_MESSAGE)
                        continue;
                if (f->label == PROTOBUF_C_LABEL_REPEATED) {
                        size_t n = *(const size_t *)(base + f->quantifier_offset);
                        ProtobufCMessage *const *v =
                            *(ProtobufCMessage *const *const *)(base + f->offset);
                        for (size_t k = 0; k < n; k++)
                                if ((r = find_field_zero(v[k])))
                                        return r;
                        continue;
                }
                /* members of a oneof share their storage: only the set one is a message */
                if ((f->flags & PROTOBUF_C_FIELD_FLAG_ONEOF) &&
                    *(const uint32_t *)(base + f->quantifier_offset) != f->id)
                        continue;
                const ProtobufCMessage *sub = *(ProtobufCMessage *const *)(base + f->offset);
                if (sub && (r = find_field_zero(sub)))
                        return r;
        }
        return NULL;
}

typedef struct decode_budget {
        size_t left;
        bool exceeded;
} decode_budget_t;

static void *budget_alloc(void *data, size_t size)
{
        decode_budget_t *b = data;
        if (size > b->left) {
                b->exceeded = true;
                return NULL;
        }
        b->left -= size;
        return malloc(size);
}

/* Plain free(): what the budget allocated is malloc'd, so wire_free() can use the default
 * allocator long after the budget is gone. */
static void budget_free(void *data, void *p)
{
        free(p);
}

int wire_decode(const void *buf, size_t len, size_t cap, envelope_t **ret, char *err, size_t errlen)
{
        const char *zero;
        envelope_t *e;
        int r;

        if (len > cap)
                return errorf(err, errlen, -EMSGSIZE, "message of %zu bytes exceeds the cap of %zu",
                              len, cap);
        {
                /* protobuf-c may allocate far more than the message's size (empty repeated
                 * messages cost a struct each): a budget keeps a peer from turning 16 MiB on
                 * the wire into gigabytes here. Packed histograms need up to 8x. */
                decode_budget_t b = {.left = 16 * len + 64 * 1024};
                ProtobufCAllocator a = {
                    .alloc = budget_alloc, .free = budget_free, .allocator_data = &b};
                e = iofleet__envelope__unpack(&a, len, buf);
                if (!e && b.exceeded)
                        return errorf(err, errlen, -EBADMSG,
                                      "message of %zu bytes needs more than %zu bytes decoded", len,
                                      16 * len + 64 * 1024);
        }
        if (!e)
                return errorf(err, errlen, -EBADMSG, "message of %zu bytes is not a valid Envelope",
                              len);
        if (e->version != PROTOCOL_VERSION) {
                *ret = e;
                return errorf(err, errlen, -EPROTO,
                              "peer speaks protocol version %u, this side speaks %u", e->version,
                              PROTOCOL_VERSION);
        }
        zero = find_field_zero(&e->base);
        r = zero ? errorf(err, errlen, -EBADMSG, "%s: field number 0 not allowed", zero)
                 : check_body(e, err, errlen);
        if (r < 0) {
                iofleet__envelope__free_unpacked(e, NULL);
                return r;
        }
        *ret = e;
        return 0;
}

void wire_free(envelope_t **e)
{
        if (*e) {
                iofleet__envelope__free_unpacked(*e, NULL);
                *e = NULL;
        }
}

int wire_encode(envelope_t *e, uint8_t **buf, size_t *len)
{
        size_t n;
        uint8_t *b;

        if (e->version == 0)
                e->version = PROTOCOL_VERSION;
        n = iofleet__envelope__get_packed_size(e);
        b = malloc(n ? n : 1);
        if (!b)
                return -ENOMEM;
        iofleet__envelope__pack(e, b);
        *buf = b;
        *len = n;
        return 0;
}

const char *wire_body_name(const envelope_t *e)
{
        const ProtobufCFieldDescriptor *f = protobuf_c_message_descriptor_get_field(
            &iofleet__envelope__descriptor, (unsigned)e->body_case);
        return f ? f->name : "unknown";
}

int wire_hist_from(Iofleet__Hist *pb, const hist_t *h)
{
        size_t n = hist_to_sparse(h, NULL, NULL, 0);
        uint64_t total = 0;

        iofleet__hist__init(pb);
        pb->min = h->min;
        pb->max = h->max;
        pb->sum = h->sum;
        pb->sumsq = h->sumsq;
        if (n > 0) {
                pb->index = malloc(n * sizeof(*pb->index));
                pb->count = malloc(n * sizeof(*pb->count));
                if (!pb->index || !pb->count) {
                        wire_hist_done(pb);
                        return -ENOMEM;
                }
                pb->n_index = pb->n_count = hist_to_sparse(h, pb->index, pb->count, n);
        }
        /* n is the sum of the buckets sent, not h->n: a snapshot taken while a worker records
         * can hold a count whose bucket it has not caught yet, and the receiver checks that the
         * two agree. */
        for (size_t i = 0; i < pb->n_index; i++)
                total += pb->count[i];
        pb->n = total;
        if (total == 0)
                pb->min = pb->max = 0;
        else if (pb->min > pb->max) {
                pb->min = hist_bucket_low(pb->index[0]);
                pb->max = hist_bucket_high(pb->index[pb->n_index - 1]);
        }
        return 0;
}

void wire_hist_done(Iofleet__Hist *pb)
{
        free(pb->index);
        free(pb->count);
        pb->index = NULL;
        pb->count = NULL;
        pb->n_index = pb->n_count = 0;
}

void wire_hist_add(hist_t *h, const Iofleet__Hist *pb)
{
        if (!pb || pb->n == 0)
                return;
        /* Straight into h: this runs for every interval of every agent, and a temporary
         * histogram would cost a clear and a full merge of all its buckets each time. */
        if (hist_add_sparse(h, pb->index, pb->count, pb->n_index) < 0)
                return; /* wire_decode validated it; unreachable for decoded messages */
        h->n += pb->n;
        h->sum += pb->sum;
        h->sumsq += pb->sumsq;
        if (pb->min < h->min)
                h->min = pb->min;
        if (pb->max > h->max)
                h->max = pb->max;
}

int wire_job_spec(const Iofleet__Job *job, job_spec_t *spec, char *err, size_t errlen)
{
        char e[512];
        int r = job_spec_init(spec, job->name);
        if (r < 0)
                return r;
        for (size_t i = 0; i < job->n_options; i++) {
                r = job_option_set(spec, job->options[i]->key, job->options[i]->value, e,
                                   sizeof(e));
                if (r < 0)
                        goto fail;
        }
        r = job_spec_validate(spec, e, sizeof(e));
        if (r >= 0)
                return 0;
fail:
        snprintf(err, errlen, "job %s: %s", job->name, e);
        job_spec_done(spec);
        return r;
}

Iofleet__Setting *wire_settings(const kvlist_t *kv, Iofleet__Setting ***ptrs)
{
        Iofleet__Setting *v = calloc(kv->n + 1, sizeof(*v));
        *ptrs = calloc(kv->n + 1, sizeof(**ptrs));
        if (!v || !*ptrs) {
                free(v);
                free(*ptrs);
                *ptrs = NULL;
                return NULL;
        }
        for (size_t i = 0; i < kv->n; i++) {
                iofleet__setting__init(&v[i]);
                v[i].key = kv->v[i].key;
                v[i].value = kv->v[i].value;
                (*ptrs)[i] = &v[i];
        }
        return v;
}

/* An agent's run messages: the bodies that carry run_id and a run_seq numbering them. */
bool wire_is_run_message(const envelope_t *e)
{
        switch (e->body_case) {
        case IOFLEET__ENVELOPE__BODY_PREPARED:
        case IOFLEET__ENVELOPE__BODY_STARTED:
        case IOFLEET__ENVELOPE__BODY_INTERVAL:
        case IOFLEET__ENVELOPE__BODY_FINISHED:
        case IOFLEET__ENVELOPE__BODY_RESTORED:
        case IOFLEET__ENVELOPE__BODY_ERROR:
        case IOFLEET__ENVELOPE__BODY_GROUP_READY:
        case IOFLEET__ENVELOPE__BODY_GROUP_STARTED:
                return true;
        default:
                return false;
        }
}

/* Field name of a run message's body, found through its descriptor (every run message has
 * run_id and run_seq); NULL for other bodies. */
static void *run_field(const envelope_t *e, const char *name)
{
        const ProtobufCFieldDescriptor *bf, *f;
        ProtobufCMessage *body;
        if (!wire_is_run_message(e))
                return NULL;
        bf = protobuf_c_message_descriptor_get_field(&iofleet__envelope__descriptor,
                                                     (unsigned)e->body_case);
        body = bf ? *(ProtobufCMessage **)((char *)e + bf->offset) : NULL;
        f = body ? protobuf_c_message_descriptor_get_field_by_name(body->descriptor, name) : NULL;
        return f ? (char *)body + f->offset : NULL;
}

uint64_t wire_run_seq(const envelope_t *e)
{
        const uint64_t *seq = run_field(e, "run_seq");
        return seq ? *seq : 0;
}

void wire_set_run_seq(envelope_t *e, uint64_t seq)
{
        uint64_t *p = run_field(e, "run_seq");
        if (p)
                *p = seq;
}

const char *wire_run_id(const envelope_t *e)
{
        char **id = run_field(e, "run_id");
        return id && *id ? *id : "";
}

static Iofleet__Hist *hist_part(Iofleet__Hist *pb, const hist_t *now, const hist_t *before,
                                hist_t *delta)
{
        if (before)
                hist_delta(delta, now, before);
        else
                hist_snapshot(delta, now);
        return wire_hist_from(pb, delta) == 0 ? pb : NULL;
}

void wire_dir_fill(wire_dir_t *w, const wire_dir_counts_t *now, const wire_dir_counts_t *before,
                   hist_t *scratch)
{
        Iofleet__DirStats *pb = &w->pb;
        iofleet__dir_stats__init(pb);
        memset(w->h, 0, sizeof(w->h));
        pb->bytes = now->bytes - (before ? before->bytes : 0);
        pb->ios = now->ios - (before ? before->ios : 0);
        pb->errors = now->errors - (before ? before->errors : 0);
        pb->short_ios = now->short_ios - (before ? before->short_ios : 0);
        pb->issued = now->issued - (before ? before->issued : 0);
        pb->dropped = now->dropped - (before ? before->dropped : 0);
        pb->clat = hist_part(&w->h[0], now->clat, before ? before->clat : NULL, scratch);
        pb->slat = hist_part(&w->h[1], now->slat, before ? before->slat : NULL, scratch);
        pb->lat = hist_part(&w->h[2], now->lat, before ? before->lat : NULL, scratch);
        pb->syncs = now->syncs - (before ? before->syncs : 0);
        pb->verify_errors = now->verify_errors - (before ? before->verify_errors : 0);
        if (now->sync_lat && now->sync_lat->n)
                pb->sync_lat = hist_part(&w->h[3], now->sync_lat,
                                         before ? before->sync_lat : NULL, scratch);
}

void wire_dir_done(wire_dir_t *w)
{
        for (int i = 0; i < 4; i++)
                wire_hist_done(&w->h[i]);
}
