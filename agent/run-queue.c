/* An agent's run messages until acknowledged: memory up to a bound, written through to a file in
 * the run's directory, resent in order, found again after a restart. */
#include "run-queue.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util.h"

/* A record in the file: header, then len bytes. No fsync: the file outlives the agent's death
 * (kill -9), which is what it is for; a host crash takes the page cache with it. */
typedef struct qhead {
        uint64_t seq;
        uint32_t len;
        uint32_t sum;
} qhead_t;

typedef struct qent {
        uint64_t seq;
        off_t off; /* of its record in the file, -1 when it is not there */
        uint32_t len;
        uint8_t *buf; /* NULL beyond the memory bound: read from the file */
} qent_t;

struct rqueue {
        char path[4200];
        int fd;
        off_t end;
        qent_t *v; /* pending messages, a ring: head .. head + n - 1 */
        size_t head, n, cap;
        uint64_t made, acked;
        size_t mem, mem_limit;
        off_t acked_end; /* the file up to here holds acknowledged records only */
};

static uint32_t sum_of(uint64_t seq, const void *buf, size_t len)
{
        const uint8_t *b = buf;
        uint32_t h = 2166136261u;
        for (int i = 0; i < 8; i++) {
                h ^= (uint8_t)(seq >> (8 * i));
                h *= 16777619u;
        }
        for (size_t i = 0; i < len; i++) {
                h ^= b[i];
                h *= 16777619u;
        }
        return h;
}

static qent_t *at(const rqueue_t *q, size_t i)
{
        return &q->v[(q->head + i) % q->cap];
}

static int grow(rqueue_t *q)
{
        size_t cap = q->cap ? q->cap * 2 : 64;
        qent_t *v = malloc(cap * sizeof(*v));
        if (!v)
                return -ENOMEM;
        for (size_t i = 0; i < q->n; i++)
                v[i] = *at(q, i);
        free(q->v);
        q->v = v;
        q->head = 0;
        q->cap = cap;
        return 0;
}

static rqueue_t *alloc(const char *dir, size_t mem_bytes)
{
        rqueue_t *q = calloc(1, sizeof(*q));
        if (!q)
                return NULL;
        snprintf(q->path, sizeof(q->path), "%s/" RQUEUE_FILE, dir);
        q->fd = -1;
        q->mem_limit = mem_bytes;
        return q;
}

int rqueue_create(const char *dir, size_t mem_bytes, rqueue_t **ret)
{
        rqueue_t *q = alloc(dir, mem_bytes);
        if (!q)
                return -ENOMEM;
        q->fd = open(q->path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        if (q->fd < 0) {
                int r = -errno;
                free(q);
                return r;
        }
        *ret = q;
        return 0;
}

static int add(rqueue_t *q, uint64_t seq, off_t off, const void *buf, size_t len)
{
        qent_t *e;
        int r;
        if (q->n == q->cap && (r = grow(q)) < 0)
                return r;
        e = at(q, q->n);
        *e = (qent_t){seq, off, (uint32_t)len, NULL};
        if (q->mem + len <= q->mem_limit && (e->buf = malloc(len ? len : 1))) {
                memcpy(e->buf, buf, len);
                q->mem += len;
        }
        q->n++;
        return 0;
}

int rqueue_load(const char *dir, uint64_t acked, size_t mem_bytes, rqueue_t **ret)
{
        rqueue_t *q = alloc(dir, mem_bytes);
        uint8_t *buf = NULL;
        int r = 0;
        if (!q)
                return -ENOMEM;
        q->fd = open(q->path, O_RDWR | O_CLOEXEC);
        if (q->fd < 0) {
                r = -errno;
                free(q);
                return r;
        }
        q->acked = q->made = acked;
        for (;;) {
                qhead_t h;
                off_t off = q->end;
                if (pread(q->fd, &h, sizeof(h), off) != sizeof(h) || h.len > (64u << 20))
                        break;
                free(buf);
                if (!(buf = malloc(h.len ? h.len : 1))) {
                        r = -ENOMEM;
                        break;
                }
                if (pread(q->fd, buf, h.len, off + (off_t)sizeof(h)) != (ssize_t)h.len ||
                    sum_of(h.seq, buf, h.len) != h.sum)
                        break;
                if (h.seq <= q->acked) {
                        q->end = q->acked_end = off + (off_t)sizeof(h) + h.len;
                        continue;
                }
                if (off == 0 && h.seq > q->acked + 1)
                        /* The file was started over (compact()) once everything before this
                         * record was acknowledged: the state file that said acked is older. */
                        q->acked = q->made = h.seq - 1;
                if (h.seq != q->made + 1)
                        break; /* not the queue it was: stop at what is consistent (and cut it) */
                if ((r = add(q, h.seq, off, buf, h.len)) < 0)
                        break;
                q->end = off + (off_t)sizeof(h) + h.len;
                q->made = h.seq;
        }
        free(buf);
        if (r < 0) {
                rqueue_close(&q);
                return r;
        }
        /* A torn end goes: later records follow the last whole one. */
        if (ftruncate(q->fd, q->end) < 0) {
                r = -errno;
                rqueue_close(&q);
                return r;
        }
        *ret = q;
        return 0;
}

static void free_entries(rqueue_t *q)
{
        for (size_t i = 0; i < q->n; i++)
                free(at(q, i)->buf);
        free(q->v);
        q->v = NULL;
        q->n = q->cap = q->head = 0;
}

void rqueue_close(rqueue_t **qp)
{
        rqueue_t *q = *qp;
        if (!q)
                return;
        free_entries(q);
        if (q->fd >= 0)
                close(q->fd);
        free(q);
        *qp = NULL;
}

void rqueue_remove(rqueue_t **qp)
{
        if (*qp)
                unlink((*qp)->path);
        rqueue_close(qp);
}

uint64_t rqueue_next(const rqueue_t *q)
{
        return q->made + 1;
}

int rqueue_push(rqueue_t *q, const void *buf, size_t len)
{
        qhead_t h = {q->made + 1, (uint32_t)len, sum_of(q->made + 1, buf, len)};
        off_t off = -1;
        int r = 0;
        if (q->fd >= 0) {
                errno = 0;
                if (pwrite(q->fd, &h, sizeof(h), q->end) == sizeof(h) &&
                    pwrite(q->fd, buf, len, q->end + (off_t)sizeof(h)) == (ssize_t)len) {
                        off = q->end;
                        q->end += (off_t)sizeof(h) + (off_t)len;
                } else
                        r = errno ? -errno : -EIO;
        }
        if (add(q, h.seq, off, buf, len) < 0)
                return -ENOMEM;
        if (off < 0 && !at(q, q->n - 1)->buf) {
                /* Neither in the file nor in memory: it cannot be kept. */
                q->n--;
                return r < 0 ? r : -ENOMEM;
        }
        q->made = h.seq;
        return r;
}

/* The file holds acknowledged records only up to acked_end: when nothing is pending it starts
 * over, so that a soak run's file stays small. */
static void compact(rqueue_t *q)
{
        if (q->fd < 0 || q->n || q->end == 0)
                return;
        if (ftruncate(q->fd, 0) == 0)
                q->end = q->acked_end = 0;
}

size_t rqueue_ack(rqueue_t *q, uint64_t upto)
{
        size_t k = 0;
        while (q->n && at(q, 0)->seq <= upto) {
                qent_t *e = at(q, 0);
                if (e->buf)
                        q->mem -= e->len;
                free(e->buf);
                if (e->off >= 0)
                        q->acked_end = e->off + (off_t)sizeof(qhead_t) + e->len;
                q->head = (q->head + 1) % q->cap;
                q->n--;
                k++;
        }
        if (upto > q->acked)
                q->acked = upto > q->made ? q->made : upto;
        /* Room again: the oldest pending ones come back into memory as they are resent. */
        compact(q);
        return k;
}

void rqueue_skip(rqueue_t *q, uint64_t upto)
{
        if (upto <= q->made)
                return;
        rqueue_ack(q, q->made);
        q->made = q->acked = upto;
}

int rqueue_each(rqueue_t *q, uint64_t after,
                int (*cb)(void *user, uint64_t seq, const void *buf, size_t len), void *user)
{
        uint8_t *tmp = NULL;
        int r = 0;
        for (size_t i = 0; i < q->n && r == 0; i++) {
                qent_t *e = at(q, i);
                if (e->seq <= after)
                        continue;
                if (e->buf) {
                        r = cb(user, e->seq, e->buf, e->len);
                        continue;
                }
                free(tmp);
                if (!(tmp = malloc(e->len ? e->len : 1))) {
                        r = -ENOMEM;
                        break;
                }
                if (pread(q->fd, tmp, e->len, e->off + (off_t)sizeof(qhead_t)) != (ssize_t)e->len) {
                        r = -EIO;
                        break;
                }
                r = cb(user, e->seq, tmp, e->len);
        }
        free(tmp);
        return r < 0 ? r : 0;
}

uint64_t rqueue_made(const rqueue_t *q)
{
        return q->made;
}

uint64_t rqueue_acked(const rqueue_t *q)
{
        return q->acked;
}

size_t rqueue_pending(const rqueue_t *q)
{
        return q->n;
}

size_t rqueue_mem_bytes(const rqueue_t *q)
{
        return q->mem;
}
