/* Plans: [plan], [server], [client] and [sweep] sections around fio job sections, read through
 * the job file parser and the option table that fio command lines use. */
#include "plan.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fileio.h"
#include "jobfile.h"
#include "mount-options.h"
#include "nfs-settings.h"
#include "options.h"
#include "parse.h"
#include "selector.h"
#include "sysctl-name.h"
#include "util.h"

static bool is_plan_section(const char *s)
{
        return streq(s, "plan") || streq(s, "server") || streq(s, "client") || streq(s, "sweep");
}

bool plan_file_is_plan(const char *path)
{
        /* By its section headers alone, so that a plan with an error is still read as a plan
         * and its error reported as one. */
        _cleanup_(freep) char *text = NULL;
        if (read_full_file(path, 0, JOBFILE_MAX_SIZE, &text, NULL) < 0)
                return false;
        for (const char *l = text; l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
                const char *p = l + strspn(l, " \t");
                char name[16];
                int end = 0;
                /* the whole header: [client1] or [servers] are fio jobs, not plan sections */
                if (*p == '[' && sscanf(p + 1, " %15[a-z] ]%n", name, &end) == 1 && end > 0 &&
                    is_plan_section(name))
                        return true;
        }
        return false;
}

static void part_free(plan_part_t *pp)
{
        free(pp->selector);
        kv_clear(&pp->settings);
        kv_clear(&pp->sysctls);
        memset(pp, 0, sizeof(*pp));
}

void plan_free(plan_t *p)
{
        if (!p)
                return;
        free(p->path);
        free(p->text);
        free(p->name);
        free(p->clients);
        strv_clear(&p->degrade);
        part_free(&p->server);
        part_free(&p->client);
        jobargs_free(&p->jobs);
        for (size_t i = 0; i < p->n_params; i++) {
                free(p->params[i].name);
                strv_clear(&p->params[i].values);
        }
        free(p->params);
        jobfile_free(&p->source);
        memset(p, 0, sizeof(*p));
}

/* "a,b,c", or "a|b|c" when a value itself holds commas (mount options=soft,intr). */
static int split_values(const char *v, strv_t *out)
{
        char sep = strchr(v, '|') ? '|' : ',';
        const char *s = v;
        for (;;) {
                const char *e = strchr(s, sep);
                size_t n = e ? (size_t)(e - s) : strlen(s);
                char buf[4096];
                while (n && (*s == ' ' || *s == '\t'))
                        s++, n--;
                while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
                        n--;
                if (!n || n >= sizeof(buf))
                        return -EINVAL;
                memcpy(buf, s, n);
                buf[n] = 0;
                if (strv_push(out, buf) < 0)
                        return -ENOMEM;
                if (!e)
                        return 0;
                s = e + 1;
        }
}

static bool job_exists(const plan_t *p, const char *name)
{
        for (size_t i = 0; i < p->jobs.n_jobs; i++)
                if (streq(p->jobs.jobs[i].name, name))
                        return true;
        return false;
}

static int plan_key(plan_t *p, const jobfile_entry_t *e, char *err, size_t errlen)
{
        const char *k = e->key, *v = e->value;
        uint64_t u;
        bool b;
        if (streq(k, "name")) {
                if (!*v || strlen(v) > WIRE_MAX_NAME)
                        return errorf(err, errlen, -EINVAL, "name: 1..%d characters",
                                      WIRE_MAX_NAME);
                return strdup_to(&p->name, v);
        }
        if (streq(k, "interval") || streq(k, "lead")) {
                bool iv = streq(k, "interval");
                if (parse_duration(v, NSEC_PER_SEC, &u) < 0 ||
                    u < (iv ? 10 : 1) * NSEC_PER_MSEC || u > 3600 * NSEC_PER_SEC)
                        return errorf(err, errlen, -EINVAL, "%s: '%s' is not a duration %s..1h",
                                      k, v, iv ? "10ms" : "1ms");
                *(iv ? &p->interval_ns : &p->lead_ns) = u;
                return 0;
        }
        if (streq(k, "stonewall")) {
                if (parse_bool(*v ? v : "1", &b) < 0)
                        return errorf(err, errlen, -EINVAL, "stonewall: '%s'; true or false", v);
                p->stonewall = b;
                return 0;
        }
        if (streq(k, "on_error")) {
                if (!streq(v, "continue") && !streq(v, "stop"))
                        return errorf(err, errlen, -EINVAL, "on_error: '%s'; continue or stop",
                                      v);
                p->stop_on_error = streq(v, "stop");
                return 0;
        }
        if (streq(k, "orphan_grace") || streq(k, "prepare_timeout")) {
                bool grace = streq(k, "orphan_grace");
                if (parse_duration(v, NSEC_PER_SEC, &u) < 0 || u > 7 * NSEC_PER_DAY ||
                    (!grace && u < NSEC_PER_SEC))
                        return errorf(err, errlen, -EINVAL, "%s: '%s' is not a duration %s..7d",
                                      k, v, grace ? "0" : "1s");
                if (grace) {
                        p->orphan_grace_ns = u;
                        p->orphan_grace_set = true;
                } else
                        p->prepare_timeout_ns = u;
                return 0;
        }
        if (streq(k, "on_agent_loss")) {
                if (!streq(v, "fail") && !streq(v, "continue"))
                        return errorf(err, errlen, -EINVAL,
                                      "on_agent_loss: '%s'; fail (a partial run is an error) or "
                                      "continue (it passes, still marked partial)",
                                      v);
                p->continue_on_loss = streq(v, "continue");
                return 0;
        }
        if (streq(k, "repeat")) {
                if (parse_size(v, &u) < 0 || u < 1 || u > PLAN_MAX_REPEAT)
                        return errorf(err, errlen, -EINVAL, "repeat: '%s'; 1..%d", v,
                                      PLAN_MAX_REPEAT);
                p->repeat = (unsigned)u;
                return 0;
        }
        if (streq(k, "degrade")) {
                Iofleet__DegradeRule r = IOFLEET__DEGRADE_RULE__INIT;
                int rc = plan_degrade_parse(v, &r, err, errlen);
                free(r.text);
                if (rc < 0)
                        return rc;
                return strv_push(&p->degrade, v);
        }
        return errorf(err, errlen, -EINVAL,
                      "'%s' is not a [plan] key; allowed: name, interval, lead, stonewall, "
                      "on_error, repeat, degrade, orphan_grace, prepare_timeout, on_agent_loss",
                      k);
}

static int part_key(plan_part_t *pp, bool server, const jobfile_entry_t *e, char *err,
                    size_t errlen)
{
        const char *k = e->key, *v = e->value;
        uint64_t u;
        if (streq(k, "agents")) {
                if (selector_validate(v, err, errlen) < 0)
                        return -EINVAL;
                return strdup_to(&pp->selector, v);
        }
        if (streq(k, "count")) {
                if (parse_size(v, &u) < 0 || u > WIRE_MAX_AGENTS)
                        return errorf(err, errlen, -EINVAL, "count: '%s'; 0 (all) ..%d", v,
                                      WIRE_MAX_AGENTS);
                pp->count = (unsigned)u;
                return 0;
        }
        if (strncmp(k, "sysctl.", 7) == 0)
                return kv_push(&pp->sysctls, k + 7, v, e->line);
        if (!server && streq(k, "mount") && !streq(v, "auto") && !streq(v, "yes") &&
            !streq(v, "no"))
                return errorf(err, errlen, -EINVAL, "mount: '%s'; auto, yes or no", v);
        return kv_push(&pp->settings, k, v, e->line);
}

static int param_key(plan_t *p, const jobfile_entry_t *e, char *err, size_t errlen)
{
        plan_param_t *pp;
        uint64_t u;
        if (streq(e->key, "repeat") || streq(e->key, "on_error"))
                return plan_key(p, e, err, errlen);
        pp = realloc(p->params, (p->n_params + 1) * sizeof(*pp));
        if (!pp)
                return -ENOMEM;
        p->params = pp;
        pp = &p->params[p->n_params++];
        memset(pp, 0, sizeof(*pp));
        pp->line = e->line;
        if (!(pp->name = strdup(e->key)))
                return -ENOMEM;
        for (size_t i = 0; i + 1 < p->n_params; i++)
                if (streq(p->params[i].name, e->key))
                        return errorf(err, errlen, -EINVAL, "%s: swept twice", e->key);
        if (split_values(e->value, &pp->values) < 0)
                return errorf(err, errlen, -EINVAL,
                              "%s: '%s' is not a list of values (a,b,c or a|b|c; none empty)",
                              e->key, e->value);
        if (streq(e->key, "clients"))
                for (size_t i = 0; i < pp->values.n; i++)
                        if (parse_size(pp->values.v[i], &u) < 0 || u < 1 || u > WIRE_MAX_AGENTS)
                                return errorf(err, errlen, -EINVAL,
                                              "clients: '%s' is not a number of clients 1..%d",
                                              pp->values.v[i], WIRE_MAX_AGENTS);
        return 0;
}

/* The jobfile parser's reads, keeping the first (the plan file itself) as the plan's text: the
 * text stored with the results is the text that was parsed. */
static int capture_read(void *user, const char *path, char **data, size_t *size)
{
        char **text = user;
        int r = jobfile_read_file(path, data, size);
        if (r == 0 && !*text && !(*text = strndup(*data, *size))) {
                free(*data);
                return -ENOMEM;
        }
        return r;
}

/* Reads the file at path once, into p->source (its entries, includes and ${VAR} expanded) and
 * p->text. */
static int plan_load(const char *path, plan_t *p, char *err, size_t errlen)
{
        jobfile_io_t io = {.read_file = capture_read, .user = &p->text};
        memset(p, 0, sizeof(*p));
        if (!(p->path = strdup(path)))
                return errorf(err, errlen, -ENOMEM, "%s: out of memory", path);
        return jobfile_parse(path, &io, NULL, &p->source, err, errlen);
}

/* The keys of the plan's own sections into p; the job sections' entries into jobs (borrowed:
 * src owns the strings). */
static int plan_sections(plan_t *p, const jobfile_t *src, jobfile_t *jobs, char *err, size_t errlen)
{
        char e2[1024];
        for (size_t i = 0; i < src->n; i++) {
                const jobfile_entry_t *e = &src->entries[i];
                const char *s = e->section;
                int r;
                if (!is_plan_section(s)) {
                        jobs->entries[jobs->n++] = *e;
                        if (!e->key && !e->global)
                                jobs->n_job_sections++;
                        continue;
                }
                if (streq(s, "server"))
                        p->server.present = true;
                if (streq(s, "client"))
                        p->client.present = true;
                if (!e->key)
                        continue;
                r = streq(s, "plan")     ? plan_key(p, e, e2, sizeof(e2))
                    : streq(s, "server") ? part_key(&p->server, true, e, e2, sizeof(e2))
                    : streq(s, "client") ? part_key(&p->client, false, e, e2, sizeof(e2))
                                         : param_key(p, e, e2, sizeof(e2));
                if (r < 0)
                        return errorf(err, errlen, r, "%s:%d: [%s] %s", e->path, e->line, s,
                                      r == -ENOMEM ? "out of memory" : e2);
        }
        return 0;
}

/* Parameters that name a part or a job must find it; "a+b" ties keys to one value. */
static int params_check(const plan_t *p, char *err, size_t errlen)
{
        for (size_t i = 0; i < p->n_params; i++) {
                char names[512], *save = NULL;
                snprintf(names, sizeof(names), "%s", p->params[i].name);
                for (char *n = strtok_r(names, "+", &save); n; n = strtok_r(NULL, "+", &save)) {
                        const char *dot = strchr(n, '.');
                        char sect[256];
                        if (streq(n, "clients") && !p->client.present && !p->server.present)
                                return errorf(err, errlen, -EINVAL,
                                              "%s:%d: [sweep] clients: the plan has no [client] "
                                              "section",
                                              p->path, p->params[i].line);
                        if (!dot)
                                continue;
                        snprintf(sect, sizeof(sect), "%.*s", (int)(dot - n), n);
                        if ((streq(sect, "server") && !p->server.present) ||
                            (!streq(sect, "server") && !streq(sect, "client") &&
                             !jobfile_section_is_global(sect) && !job_exists(p, sect)))
                                return errorf(err, errlen, -EINVAL,
                                              "%s:%d: [sweep] %s: no [%s] section in the plan",
                                              p->path, p->params[i].line, n, sect);
                }
        }
        return 0;
}

/* Builds p (path and text already set) from the parsed entries of its file, in memory: every
 * section, without the whole-plan checks. The plan and each of its points are built so. */
static int plan_build(plan_t *p, const jobfile_t *src, char *err, size_t errlen)
{
        jobfile_t jobs = {0};
        int r;

        p->repeat = 1;
        if (!(jobs.entries = calloc(src->n ? src->n : 1, sizeof(*jobs.entries))))
                return -ENOMEM;
        r = plan_sections(p, src, &jobs, err, errlen);
        if (r == 0 && jobs.n_job_sections == 0)
                r = errorf(err, errlen, -EINVAL,
                           "%s: no job section; a plan runs its [JOBNAME] sections (fio options) "
                           "on the clients",
                           p->path);
        if (r == 0)
                r = jobargs_add_jobfile(&p->jobs, &jobs, p->path, err, errlen);
        free(jobs.entries);
        if (r < 0)
                return r;
        if (!p->server.selector && (r = strdup_to(&p->server.selector, "role=storage")) < 0)
                return r;
        if (p->server.present && !p->server.count)
                p->server.count = 1;
        if (p->clients) {
                free(p->client.selector);
                if (!(p->client.selector = strdup(p->clients)))
                        return -ENOMEM;
        }
        /* Without a [server] and a [client], the jobs run on every agent, as on the command line.
         */
        if (!p->client.selector &&
            (r = strdup_to(&p->client.selector,
                           p->server.present || p->client.present ? "role=client" : "")) < 0)
                return r;
        return params_check(p, err, errlen);
}

size_t plan_points(const plan_t *p)
{
        size_t n = 1;
        for (size_t i = 0; i < p->n_params; i++)
                n *= p->params[i].values.n;
        return n;
}

static int part_set(plan_part_t *pp, const char *key, const char *value)
{
        if (strncmp(key, "sysctl.", 7) == 0)
                return kv_set(&pp->sysctls, key + 7, value);
        return kv_set(&pp->settings, key, value);
}

/* One sweep value to every key its parameter names ("client.rsize+client.wsize": both). */
static int apply_value(plan_t *p, const char *names_in, const char *v, const char *where)
{
        char names[512], *save = NULL;
        int r = 0;
        snprintf(names, sizeof(names), "%s", names_in);
        for (char *n = strtok_r(names, "+", &save); n && r >= 0; n = strtok_r(NULL, "+", &save)) {
                const char *dot = strchr(n, '.');
                char sect[256];
                if (streq(n, "clients")) {
                        p->client.count = (unsigned)strtoul(v, NULL, 10);
                        continue;
                }
                if (!dot) {
                        r = jobargs_override(&p->jobs, NULL, n, v, where);
                        continue;
                }
                snprintf(sect, sizeof(sect), "%.*s", (int)(dot - n), n);
                if (streq(sect, "server"))
                        r = part_set(&p->server, dot + 1, v);
                else if (streq(sect, "client"))
                        r = part_set(&p->client, dot + 1, v);
                else
                        r = jobargs_override(&p->jobs,
                                             jobfile_section_is_global(sect) ? NULL : sect, dot + 1,
                                             v, where);
        }
        return r;
}

int plan_apply_point(plan_t *p, size_t i, kvlist_t *chosen, char *err, size_t errlen)
{
        size_t idx = i;
        int r;
        if (i >= plan_points(p))
                return errorf(err, errlen, -EINVAL, "point %zu: the sweep has %zu", i,
                              plan_points(p));
        /* The first parameter varies slowest, as the rows of a hand-made table. */
        for (size_t k = p->n_params; k-- > 0;) {
                plan_param_t *pp = &p->params[k];
                const char *n = pp->name, *v = pp->values.v[idx % pp->values.n];
                char where[1200];
                idx /= pp->values.n;
                snprintf(where, sizeof(where), "%s:%d: [sweep] %s=%s:", p->path, pp->line, n, v);
                if (chosen && (r = kv_push(chosen, n, v, pp->line)) < 0)
                        return r;
                if ((r = apply_value(p, n, v, where)) < 0)
                        return errorf(err, errlen, r, "%s %s", where, strerror(-r));
        }
        if (chosen) {
                /* Listed in the plan's order. */
                for (size_t a = 0, b = chosen->n ? chosen->n - 1 : 0; a < b; a++, b--) {
                        kv_t t = chosen->v[a];
                        chosen->v[a] = chosen->v[b];
                        chosen->v[b] = t;
                }
        }
        return 0;
}

/* The engine a job will use: its last ioengine option. */
static const char *job_engine(const jobargs_job_t *j)
{
        const char *e = ENGINE_DEFAULT;
        for (size_t i = 0; i < j->keys.n; i++)
                if (streq(j->keys.v[i], "ioengine"))
                        e = j->values.v[i];
        return e;
}

/* mount=auto: a kernel mount when there is a server to mount and a job needs files through the
 * kernel; jobs on the nfs engine connect on their own. */
static const char *mount_mode(const plan_t *p)
{
        const char *m = kv_get(&p->client.settings, "mount");
        bool file_jobs = false;
        if (m && !streq(m, "auto"))
                return m;
        if (!p->server.present && !kv_get(&p->client.settings, "server"))
                return "no";
        for (size_t i = 0; i < p->jobs.n_jobs; i++)
                file_jobs |= !streq(job_engine(&p->jobs.jobs[i]), "nfs");
        return file_jobs ? "yes" : "no";
}

/* The client's settings that are mount options, without plan keys (mount, server, export). */
static int mount_only(const kvlist_t *in, kvlist_t *out)
{
        for (size_t i = 0; i < in->n; i++) {
                const char *k = in->v[i].key;
                if (streq(k, "mount") || streq(k, "server") || streq(k, "export"))
                        continue;
                if (kv_push(out, k, in->v[i].value, in->v[i].line) < 0)
                        return -ENOMEM;
        }
        return 0;
}

int plan_check(plan_t *p, char *err, size_t errlen)
{
        char e[1024];
        int r;
        if (p->server.present) {
                if (!kv_get(&p->server.settings, "backend"))
                        return errorf(err, errlen, -EINVAL,
                                      "%s: [server] backend: missing; kernel or ganesha", p->path);
                if ((r = nfs_settings_check(NULL, &p->server.settings, e, sizeof(e))) < 0 ||
                    (r = sysctl_settings_check(&p->server.sysctls, e, sizeof(e))) < 0)
                        return errorf(err, errlen, r, "%s: [server] %s", p->path, e);
        }
        {
                kvlist_t m = {0};
                r = mount_only(&p->client.settings, &m);
                if (r == 0)
                        r = mount_options_check(&m, e, sizeof(e));
                kv_clear(&m);
                if (r < 0)
                        return errorf(err, errlen, r, "%s: [client] %s", p->path, e);
        }
        if ((r = sysctl_settings_check(&p->client.sysctls, e, sizeof(e))) < 0)
                return errorf(err, errlen, r, "%s: [client] %s", p->path, e);
        if (streq(mount_mode(p), "yes") && !p->server.present &&
            (!kv_get(&p->client.settings, "server") || !kv_get(&p->client.settings, "export")))
                return errorf(err, errlen, -EINVAL,
                              "%s: [client] mount=yes: needs a [server] section, or server= "
                              "and export=",
                              p->path);
        return jobargs_check(&p->jobs, err, errlen);
}

int plan_point(const plan_t *p, size_t i, plan_t *out, kvlist_t *chosen, char *err, size_t errlen)
{
        plan_t q = {0};
        int r = -ENOMEM;
        if ((q.path = strdup(p->path)) && (!p->text || (q.text = strdup(p->text))) &&
            (!p->clients || (q.clients = strdup(p->clients))))
                r = plan_build(&q, &p->source, err, errlen);
        else
                errorf(err, errlen, r, "out of memory");
        if (r == 0)
                r = plan_apply_point(&q, i, chosen, err, errlen);
        if (r == 0)
                r = plan_check(&q, err, errlen);
        if (r < 0) {
                plan_free(&q);
                return r;
        }
        *out = q;
        return 0;
}

int plan_parse(const char *path, plan_t *p, char *err, size_t errlen)
{
        return plan_parse_clients(path, NULL, p, err, errlen);
}

int plan_parse_clients(const char *path, const char *clients, plan_t *p, char *err,
                       size_t errlen)
{
        size_t n;
        int r = plan_load(path, p, err, errlen);
        if (r == 0 && clients && !(p->clients = strdup(clients)))
                r = errorf(err, errlen, -ENOMEM, "out of memory");
        if (r == 0)
                r = plan_build(p, &p->source, err, errlen);
        if (r < 0) {
                plan_free(p);
                return r;
        }
        n = plan_points(p);
        if (n > PLAN_MAX_POINTS || n * p->repeat > PLAN_MAX_POINTS) {
                r = errorf(err, errlen, -EINVAL,
                           "%s: [sweep] %zu points x %u repeats; at most %d steps", path, n,
                           p->repeat, PLAN_MAX_POINTS);
                plan_free(p);
                return r;
        }
        /* Every point is checked before anything runs, built as it will run. */
        for (size_t i = 0; i < n; i++) {
                plan_t q;
                char e[2048];
                if ((r = plan_point(p, i, &q, NULL, e, sizeof(e))) < 0) {
                        if (r != -ENOMEM && n > 1)
                                errorf(err, errlen, r, "sweep point %zu: %s", i, e);
                        else
                                snprintf(err, errlen, "%s", e);
                        plan_free(p);
                        return r;
                }
                plan_free(&q);
        }
        return 0;
}

static int settings_to_wire(const kvlist_t *kv, Iofleet__Setting ***ret, size_t *n)
{
        Iofleet__Setting **v = calloc(kv->n + 1, sizeof(*v));
        if (!v)
                return -ENOMEM;
        *ret = v;
        for (size_t i = 0; i < kv->n; i++) {
                if (!(v[i] = malloc(sizeof(*v[i]))))
                        return -ENOMEM;
                iofleet__setting__init(v[i]);
                v[i]->key = strdup(kv->v[i].key);
                v[i]->value = strdup(kv->v[i].value);
                *n = i + 1;
                if (!v[i]->key || !v[i]->value)
                        return -ENOMEM;
        }
        return 0;
}

static void settings_free(Iofleet__Setting **v, size_t n)
{
        for (size_t i = 0; i < n; i++) {
                free(v[i]->key);
                free(v[i]->value);
                free(v[i]);
        }
        free(v);
}

static int part_to_wire(const plan_t *p, bool server, Iofleet__Part **ret)
{
        const plan_part_t *pp = server ? &p->server : &p->client;
        Iofleet__Part *w = calloc(1, sizeof(*w));
        int r;
        if (!w)
                return -ENOMEM;
        iofleet__part__init(w);
        *ret = w;
        w->role = server ? "server" : "client";
        w->selector = strdup(pp->selector ? pp->selector : "");
        w->count = pp->count;
        if (!w->selector)
                return -ENOMEM;
        if ((r = settings_to_wire(&pp->sysctls, &w->sysctls, &w->n_sysctls)) < 0)
                return r;
        if (server)
                return settings_to_wire(&pp->settings, &w->server, &w->n_server);
        if ((r = jobargs_to_wire(&p->jobs, &w->jobs, &w->n_jobs)) < 0)
                return r;
        if (streq(mount_mode(p), "no") && !p->server.present && !pp->settings.n)
                return 0;
        {
                kvlist_t m = {0};
                r = kv_set(&m, "mount", mount_mode(p));
                for (size_t i = 0; r == 0 && i < pp->settings.n; i++)
                        if (!streq(pp->settings.v[i].key, "mount"))
                                r = kv_push(&m, pp->settings.v[i].key, pp->settings.v[i].value,
                                            0);
                if (r == 0)
                        r = settings_to_wire(&m, &w->mount, &w->n_mount);
                kv_clear(&m);
        }
        return r;
}

int plan_to_wire(const plan_t *p, plan_wire_t *w, char *err, size_t errlen)
{
        int r = 0;
        memset(w, 0, sizeof(*w));
        w->parts = calloc(2, sizeof(*w->parts));
        w->degrade = calloc(p->degrade.n + 1, sizeof(*w->degrade));
        if (!w->parts || !w->degrade)
                r = -ENOMEM;
        if (r == 0 && p->server.present && (r = part_to_wire(p, true, &w->parts[0])) >= 0)
                w->n_parts = 1;
        if (r == 0) {
                r = part_to_wire(p, false, &w->parts[w->n_parts]);
                if (w->parts[w->n_parts])
                        w->n_parts++;
        }
        for (size_t i = 0; r == 0 && i < p->degrade.n; i++) {
                if (!(w->degrade[i] = calloc(1, sizeof(**w->degrade)))) {
                        r = -ENOMEM;
                        break;
                }
                w->n_degrade++;
                r = plan_degrade_parse(p->degrade.v[i], w->degrade[i], err, errlen);
        }
        if (r < 0) {
                if (r == -ENOMEM)
                        snprintf(err, errlen, "out of memory");
                plan_wire_free(w);
        }
        return r;
}

void plan_wire_free(plan_wire_t *w)
{
        for (size_t i = 0; i < w->n_parts; i++) {
                Iofleet__Part *pt = w->parts[i];
                free(pt->selector);
                settings_free(pt->server, pt->n_server);
                settings_free(pt->mount, pt->n_mount);
                settings_free(pt->sysctls, pt->n_sysctls);
                jobargs_free_wire(pt->jobs, pt->n_jobs);
                free(pt);
        }
        free(w->parts);
        for (size_t i = 0; i < w->n_degrade; i++) {
                free(w->degrade[i]->text);
                free(w->degrade[i]);
        }
        free(w->degrade);
        memset(w, 0, sizeof(*w));
}

/* A count or a rate without a byte unit: 2500, 2.5k, 1M (powers of 1000). */
static int parse_number(const char *s, double *ret)
{
        char *end;
        double v = strtod(s, &end);
        if (end == s || !isfinite(v) || v < 0)
                return -EINVAL;
        if (*end == 'k' || *end == 'K')
                v *= 1e3, end++;
        else if (*end == 'm' || *end == 'M')
                v *= 1e6, end++;
        else if (*end == 'g' || *end == 'G')
                v *= 1e9, end++;
        if (streq(end, "/s"))
                end += 2;
        if (*end)
                return -EINVAL;
        *ret = v;
        return 0;
}

/* A bandwidth: 100MiB/s, 100m, 1.5GiB/s, 800KB/s; k, m, g, t are powers of 1024 whether
 * written k, K, KB or KiB (a rule is not an fio option: no kb_base quirk). */
static int parse_rate(const char *s, double *ret)
{
        static const char units[] = "kmgt";
        char *end;
        double v = strtod(s, &end);
        const char *u;
        if (end == s || !isfinite(v) || v < 0)
                return -EINVAL;
        if (*end && (u = strchr(units, (char)(*end | 0x20)))) {
                for (long i = 0; i <= u - units; i++)
                        v *= 1024;
                end++;
                if (*end == 'i')
                        end++;
        }
        if (*end == 'B' || *end == 'b')
                end++;
        if (streq(end, "/s"))
                end += 2;
        if (*end)
                return -EINVAL;
        *ret = v;
        return 0;
}

int plan_degrade_parse(const char *text, Iofleet__DegradeRule *rule, char *err, size_t errlen)
{
        char metric[32], op[4], value[64], word[8];
        unsigned n = 1;
        int k = sscanf(text, "%31s %3s %63s %7s %u", metric, op, value, word, &n);
        double th;
        iofleet__degrade_rule__init(rule);
        rule->text = NULL; /* owned once set; the default empty string is not */
        if (!(k == 3 || (k == 5 && streq(word, "for"))) || n < 1 || n > 1000000)
                return errorf(err, errlen, -EINVAL,
                              "degrade '%s': want METRIC < or > VALUE [for N], e.g. "
                              "'bw < 100MiB/s for 3' or 'clat_p99 > 5ms'",
                              text);
        if (!streq(op, "<") && !streq(op, ">"))
                return errorf(err, errlen, -EINVAL, "degrade '%s': '%s' is not < or >", text, op);
        if (streq(metric, "bw") || streq(metric, "read_bw") || streq(metric, "write_bw")) {
                if (parse_rate(value, &th) < 0)
                        return errorf(err, errlen, -EINVAL,
                                      "degrade '%s': '%s' is not a rate such as 100MiB/s", text,
                                      value);
        } else if (streq(metric, "clat_p99")) {
                uint64_t ns;
                if (parse_duration(value, NSEC_PER_USEC, &ns) < 0)
                        return errorf(err, errlen, -EINVAL,
                                      "degrade '%s': '%s' is not a latency such as 5ms", text,
                                      value);
                th = (double)ns;
        } else if (streq(metric, "iops") || streq(metric, "read_iops") ||
                   streq(metric, "write_iops") || streq(metric, "errors")) {
                if (parse_number(value, &th) < 0)
                        return errorf(err, errlen, -EINVAL,
                                      "degrade '%s': '%s' is not a number such as 2500 or 2.5k",
                                      text, value);
        } else
                return errorf(err, errlen, -EINVAL,
                              "degrade '%s': metric '%s'; allowed bw, read_bw, write_bw, iops, "
                              "read_iops, write_iops, clat_p99, errors",
                              text, metric);
        rule->metric = (char *)(streq(metric, "bw")           ? "bw"
                                : streq(metric, "read_bw")    ? "read_bw"
                                : streq(metric, "write_bw")   ? "write_bw"
                                : streq(metric, "iops")       ? "iops"
                                : streq(metric, "read_iops")  ? "read_iops"
                                : streq(metric, "write_iops") ? "write_iops"
                                : streq(metric, "clat_p99")   ? "clat_p99"
                                                              : "errors");
        rule->op = (char *)(op[0] == '<' ? "<" : ">");
        rule->threshold = th;
        rule->intervals = n;
        rule->text = strdup(text);
        return rule->text ? 0 : -ENOMEM;
}
