/* A run's journal: records appended as the run changes, synced before acknowledgements, replayed
 * by a restarted coordinator. */
#include "journal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "log.h"
#include "util.h"

/* Every record: a header, then len bytes of payload. */
typedef struct jhead {
        uint32_t len;
        uint32_t sum;  /* FNV-1a over type, rank, now and the payload: a torn write shows */
        uint32_t type; /* J_* */
        uint32_t rank;
        int64_t now;
} jhead_t;

enum {
        J_MAGIC = 0x6a666f69, /* "iofj": the first record's rank */
        J_BEGIN = 1,          /* payload: run id */
        J_SUBMIT = 2,         /* payload: the SubmitRun envelope */
        J_AGENT = 3,          /* rank; payload: "id\tname\thostname\tboot_id\tpart" */
        J_MSG = 4,            /* rank; payload: the agent's envelope */
        J_LOST = 5,           /* rank */
        J_HELLO = 6,          /* rank; payload: "run_id\tphase\tmade" (an older journal's
                               * has no made: unknown) */
        J_CANCEL = 7,         /* rank = code; payload: why */
        J_DONE = 8,           /* rank = code; payload: message */
};

#define J_MAX_RECORD (WIRE_MAX_AGENT_MSG + 4096)
#define J_FLUSH_AT (256 * 1024)

struct journal {
        int fd;
        char path[4200];
        char *buf;
        size_t len, cap;
        int error; /* sticky: once a write failed, nothing more is claimed durable */
        uint64_t bytes;
};

static uint32_t fnv1a(uint32_t h, const void *p, size_t n)
{
        const uint8_t *b = p;
        for (size_t i = 0; i < n; i++) {
                h ^= b[i];
                h *= 16777619u;
        }
        return h;
}

static uint32_t record_sum(const jhead_t *h, const void *payload)
{
        uint32_t s = 2166136261u;
        s = fnv1a(s, &h->type, sizeof(h->type));
        s = fnv1a(s, &h->rank, sizeof(h->rank));
        s = fnv1a(s, &h->now, sizeof(h->now));
        return fnv1a(s, payload, h->len);
}

static int put(journal_t *j, uint32_t type, uint32_t rank, int64_t now, const void *payload,
               size_t len)
{
        jhead_t h = {.len = (uint32_t)len, .type = type, .rank = rank, .now = now};
        if (j->error)
                return j->error;
        if (len > J_MAX_RECORD)
                return -EMSGSIZE;
        if (j->len + sizeof(h) + len > j->cap) {
                size_t cap = j->cap ? j->cap : 64 * 1024;
                char *b;
                while (cap < j->len + sizeof(h) + len)
                        cap *= 2;
                if (!(b = realloc(j->buf, cap)))
                        return -ENOMEM;
                j->buf = b;
                j->cap = cap;
        }
        h.sum = record_sum(&h, payload);
        memcpy(j->buf + j->len, &h, sizeof(h));
        memcpy(j->buf + j->len + sizeof(h), payload, len);
        j->len += sizeof(h) + len;
        j->bytes += sizeof(h) + len;
        return 0;
}

static int write_out(journal_t *j)
{
        int r;
        if (j->error)
                return j->error;
        if ((r = write_all(j->fd, j->buf, j->len)) < 0) {
                j->error = r;
                log_error("journal %s: write failed: %s: acknowledgements stop", j->path,
                          strerror(-r));
                return j->error;
        }
        j->len = 0;
        return 0;
}

static int put_env(journal_t *j, uint32_t type, uint32_t rank, int64_t now, envelope_t *e)
{
        uint8_t *buf;
        size_t len;
        int r = wire_encode(e, &buf, &len);
        if (r < 0)
                return r;
        r = put(j, type, rank, now, buf, len);
        free(buf);
        return r;
}

static int open_fd(journal_t *j, int flags)
{
        j->fd = open(j->path, flags | O_WRONLY | O_APPEND | O_CLOEXEC, 0644);
        return j->fd < 0 ? -errno : 0;
}

int journal_create(const char *dir, const char *run_id, int64_t now, const envelope_t *submit,
                   coord_agent_t **agents, const uint32_t *part_of, size_t n, journal_t **ret)
{
        journal_t *j = calloc(1, sizeof(*j));
        int r;
        if (!j)
                return -ENOMEM;
        snprintf(j->path, sizeof(j->path), "%s/" JOURNAL_NAME, dir);
        if ((r = open_fd(j, O_CREAT | O_TRUNC)) < 0) {
                free(j);
                return r;
        }
        r = put(j, J_BEGIN, J_MAGIC, now, run_id, strlen(run_id));
        if (r == 0)
                r = put_env(j, J_SUBMIT, 0, now, (envelope_t *)submit);
        for (size_t i = 0; r == 0 && i < n; i++) {
                char line[1024];
                int len = snprintf(line, sizeof(line), "%s\t%s\t%s\t%s\t%u", agents[i]->id,
                                   agents[i]->name, agents[i]->hostname, agents[i]->boot_id,
                                   part_of ? part_of[i] : 0);
                r = put(j, J_AGENT, (uint32_t)i, now, line, (size_t)len);
        }
        if (r == 0)
                r = journal_sync(j);
        if (r < 0) {
                unlink(j->path);
                journal_close(&j);
                return r;
        }
        *ret = j;
        return 0;
}

int journal_append(journal_t *j, const run_rec_t *rec)
{
        char text[WIRE_MAX_TEXT + WIRE_MAX_ID + 64];
        int r = 0, len;
        switch (rec->type) {
        case RUN_REC_MSG:
                if (rec->msg->body_case == IOFLEET__ENVELOPE__BODY_INTERVAL) {
                        /* The counters only: the histograms fed the live display, the result
                         * takes its latencies from Finished. */
                        envelope_t e = *rec->msg;
                        Iofleet__Interval iv = *rec->msg->interval;
                        Iofleet__DirStats d[2];
                        if (iv.read) {
                                d[0] = *iv.read;
                                d[0].clat = d[0].slat = d[0].lat = d[0].sync_lat = NULL;
                                iv.read = &d[0];
                        }
                        if (iv.write) {
                                d[1] = *iv.write;
                                d[1].clat = d[1].slat = d[1].lat = d[1].sync_lat = NULL;
                                iv.write = &d[1];
                        }
                        e.interval = &iv;
                        r = put_env(j, J_MSG, rec->rank, rec->now, &e);
                } else if (rec->msg->body_case == IOFLEET__ENVELOPE__BODY_LOG_CHUNK) {
                        /* Without its bytes: they are in their file, synced before the Ack. */
                        envelope_t e = *rec->msg;
                        Iofleet__LogChunk c = *rec->msg->log_chunk;
                        c.data.data = NULL;
                        c.data.len = 0;
                        e.log_chunk = &c;
                        r = put_env(j, J_MSG, rec->rank, rec->now, &e);
                } else
                        r = put_env(j, J_MSG, rec->rank, rec->now, (envelope_t *)rec->msg);
                break;
        case RUN_REC_LOST:
                r = put(j, J_LOST, rec->rank, rec->now, "", 0);
                break;
        case RUN_REC_HELLO:
                len = snprintf(text, sizeof(text), "%s\t%s\t%llu", rec->text ? rec->text : "",
                               rec->phase ? rec->phase : "", (unsigned long long)rec->made);
                r = put(j, J_HELLO, rec->rank, rec->now, text, (size_t)len);
                break;
        case RUN_REC_CANCEL:
                len = snprintf(text, sizeof(text), "%s", rec->text ? rec->text : "");
                r = put(j, J_CANCEL, (uint32_t)rec->code, rec->now, text, (size_t)len);
                break;
        }
        if (r == 0 && j->len >= J_FLUSH_AT)
                r = write_out(j);
        return r;
}

int journal_sync(journal_t *j)
{
        int r = write_out(j);
        if (r < 0)
                return r;
        if (fdatasync(j->fd) < 0) {
                j->error = -errno;
                log_error("journal %s: sync failed: %s: acknowledgements stop", j->path,
                          strerror(errno));
                return j->error;
        }
        return 0;
}

bool journal_dirty(const journal_t *j)
{
        return j && j->len > 0;
}

uint64_t journal_bytes(const journal_t *j)
{
        return j ? j->bytes : 0;
}

int journal_finish(journal_t **jp, int code, const char *message)
{
        journal_t *j = *jp;
        int r;
        if (!j)
                return 0;
        r = put(j, J_DONE, (uint32_t)code, 0, message, strlen(message));
        if (r == 0)
                r = journal_sync(j);
        if (r == 0 && unlink(j->path) < 0)
                r = -errno;
        journal_close(jp);
        return r;
}

void journal_close(journal_t **jp)
{
        journal_t *j = *jp;
        if (!j)
                return;
        if (j->len)
                write_out(j);
        if (j->fd >= 0)
                close(j->fd);
        free(j->buf);
        free(j);
        *jp = NULL;
}

/* --- reading back ------------------------------------------------------------------------- */

typedef struct reader {
        FILE *f;
        jhead_t h;
        char *payload;
        size_t cap;
        long good; /* offset after the last whole record */
} reader_t;

/* The next whole record: 1, 0 at the end (or at a torn record), -errno. */
static int next(reader_t *rd)
{
        if (fread(&rd->h, sizeof(rd->h), 1, rd->f) != 1)
                return 0;
        if (rd->h.len > J_MAX_RECORD)
                return 0;
        if (rd->h.len + 1 > rd->cap) {
                char *p = realloc(rd->payload, rd->h.len + 1);
                if (!p)
                        return -ENOMEM;
                rd->payload = p;
                rd->cap = rd->h.len + 1;
        }
        if (rd->h.len && fread(rd->payload, rd->h.len, 1, rd->f) != 1)
                return 0;
        rd->payload[rd->h.len] = 0;
        if (record_sum(&rd->h, rd->payload) != rd->h.sum)
                return 0;
        rd->good = ftell(rd->f);
        return 1;
}

static int decode(const reader_t *rd, envelope_t **e)
{
        char err[256];
        return wire_decode(rd->payload, rd->h.len, WIRE_MAX_CONTROL_MSG, e, err, sizeof(err));
}

/* The agents of the run as the journal lists them, for run_new(). */
typedef struct jagents {
        coord_agent_t *v;
        coord_agent_t **p;
        uint32_t *part;
        size_t n, cap;
} jagents_t;

static int add_agent(jagents_t *ja, const char *line)
{
        char f[5][256] = {{0}};
        const char *s = line;
        if (ja->n == ja->cap) {
                size_t cap = ja->cap ? ja->cap * 2 : 16;
                coord_agent_t *v = realloc(ja->v, cap * sizeof(*v));
                uint32_t *part;
                if (!v)
                        return -ENOMEM;
                ja->v = v;
                if (!(part = realloc(ja->part, cap * sizeof(*part))))
                        return -ENOMEM;
                ja->part = part;
                ja->cap = cap;
        }
        for (int i = 0; i < 5; i++) {
                const char *tab = strchr(s, '\t');
                size_t n = tab ? (size_t)(tab - s) : strlen(s);
                snprintf(f[i], sizeof(f[i]), "%.*s", (int)n, s);
                if (!tab)
                        break;
                s = tab + 1;
        }
        memset(&ja->v[ja->n], 0, sizeof(ja->v[0]));
        snprintf(ja->v[ja->n].id, sizeof(ja->v[0].id), "%s", f[0]);
        snprintf(ja->v[ja->n].name, sizeof(ja->v[0].name), "%s", f[1]);
        snprintf(ja->v[ja->n].hostname, sizeof(ja->v[0].hostname), "%s", f[2]);
        snprintf(ja->v[ja->n].boot_id, sizeof(ja->v[0].boot_id), "%s", f[3]);
        ja->part[ja->n] = (uint32_t)strtoul(f[4], NULL, 10);
        ja->n++;
        return 0;
}

static int make_run(const char *id, int64_t now, envelope_t **submit, jagents_t *ja,
                    const char *spool_path, run_out_t *out, coord_run_t **run, char *err, size_t errlen)
{
        int r;
        free(ja->p);
        if (!(ja->p = calloc(ja->n + 1, sizeof(*ja->p))))
                return -ENOMEM;
        for (size_t i = 0; i < ja->n; i++)
                ja->p[i] = &ja->v[i];
        r = run_new(id, "", submit, ja->p, ja->part, ja->n, now, out, run, err, errlen);
        if (r < 0)
                return r;
        (*run)->replaying = true;
        if (spool_path && (r = run_set_spool(*run, spool_path)) < 0)
                log_warning("run %s: cannot rewrite %s (%s): the series stays in memory", id,
                            spool_path, strerror(-r));
        return 0;
}

static void apply(coord_run_t *run, const reader_t *rd, run_out_t *out)
{
        const run_agent_t *a = rd->h.rank < run->n_agents ? &run->agents[rd->h.rank] : NULL;
        envelope_t *e = NULL;
        char *tab;
        run_tick(run, rd->h.now, out);
        switch (rd->h.type) {
        case J_MSG:
                if (a && decode(rd, &e) == 0)
                        run_on_message(run, a->id, &e, rd->h.now, out);
                wire_free(&e);
                break;
        case J_LOST:
                if (a)
                        run_agent_lost(run, a->id, rd->h.now, out);
                break;
        case J_HELLO:
                tab = strchr(rd->payload, '\t');
                if (a && tab) {
                        char *made = strchr(tab + 1, '\t');
                        *tab = 0;
                        if (made)
                                *made++ = 0;
                        run_agent_hello(run, a->id, rd->payload, tab + 1,
                                        made ? strtoull(made, NULL, 10) : RUN_MADE_UNKNOWN,
                                        rd->h.now, out);
                }
                break;
        case J_CANCEL:
                run_cancel(run, (Iofleet__ErrorCode)rd->h.rank, rd->payload, rd->h.now, out);
                break;
        default:
                break;
        }
        /* Nobody hears what a replay says. */
        outbox_clear(&out->agents);
        outbox_clear(&out->control);
        outbox_clear(&out->acks);
}

int journal_replay(const char *dir, const char *spool_path, coord_run_t **ret, journal_t **jret,
                   char *err, size_t errlen)
{
        reader_t rd = {0};
        jagents_t ja = {0};
        envelope_t *submit = NULL;
        run_out_t out = {0};
        coord_run_t *run = NULL;
        journal_t *j = NULL;
        char path[4200], id[WIRE_MAX_ID + 1] = "";
        int64_t begun = 0;
        bool done = false;
        int r;

        snprintf(path, sizeof(path), "%s/" JOURNAL_NAME, dir);
        if (!(rd.f = fopen(path, "re")))
                return errno == ENOENT ? -ENOENT
                                       : errorf(err, errlen, -errno, "%s: %s", path, strerror(errno));
        while ((r = next(&rd)) > 0) {
                switch (rd.h.type) {
                case J_BEGIN:
                        if (rd.h.rank != J_MAGIC) {
                                r = errorf(err, errlen, -EBADMSG, "%s: not an iofleet journal",
                                           path);
                                goto out;
                        }
                        snprintf(id, sizeof(id), "%s", rd.payload);
                        begun = rd.h.now;
                        continue;
                case J_SUBMIT:
                        if (decode(&rd, &submit) < 0 ||
                            submit->body_case != IOFLEET__ENVELOPE__BODY_SUBMIT_RUN) {
                                r = errorf(err, errlen, -EBADMSG, "%s: its SubmitRun is unreadable",
                                           path);
                                goto out;
                        }
                        continue;
                case J_AGENT:
                        if ((r = add_agent(&ja, rd.payload)) < 0)
                                goto out;
                        continue;
                case J_DONE:
                        done = true;
                        continue;
                default:
                        break;
                }
                if (!run) {
                        if (!id[0] || !submit) {
                                r = errorf(err, errlen, -EBADMSG, "%s: no beginning", path);
                                goto out;
                        }
                        if ((r = make_run(id, begun, &submit, &ja, spool_path, &out, &run, err,
                                          errlen)) < 0)
                                goto out;
                }
                apply(run, &rd, &out);
        }
        if (r < 0)
                goto out;
        if (done) {
                r = -EALREADY;
                goto out;
        }
        if (!run) {
                if (!id[0] || !submit) {
                        r = errorf(err, errlen, -EBADMSG, "%s: no beginning", path);
                        goto out;
                }
                if ((r = make_run(id, begun, &submit, &ja, spool_path, &out, &run, err, errlen)) <
                    0)
                        goto out;
                outbox_clear(&out.agents);
        }
        run->replaying = false;
        /* Whatever followed the last whole record was torn by the crash: appends go after it. */
        if (truncate(path, rd.good) < 0) {
                r = errorf(err, errlen, -errno, "%s: cannot cut its torn end: %s", path,
                           strerror(errno));
                goto out;
        }
        if (!(j = calloc(1, sizeof(*j)))) {
                r = -ENOMEM;
                goto out;
        }
        snprintf(j->path, sizeof(j->path), "%s", path);
        if ((r = open_fd(j, 0)) < 0) {
                errorf(err, errlen, r, "%s: %s", path, strerror(-r));
                free(j);
                j = NULL;
                goto out;
        }
        *ret = run;
        *jret = j;
        run = NULL;
        r = 0;
out:
        if (rd.f)
                fclose(rd.f);
        free(rd.payload);
        wire_free(&submit);
        run_free(&run);
        free(ja.v);
        free(ja.p);
        free(ja.part);
        outbox_done(&out.agents);
        outbox_done(&out.control);
        outbox_done(&out.acks);
        return r;
}
