/* nfs engine (libnfs): NFSv3 from user space with no kernel mount, as fio's nfs engine. One
 * context (one TCP connection) per worker carries up to iodepth RPCs; the files live on the export
 * named by nfs_url. A reset or a silent server fails what is in flight, never hangs. */
#include <errno.h>
#include <fcntl.h>
#include <nfsc/libnfs.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include "clock.h"
#include "engine.h"
#include "layout.h"
#include "log.h"
#include "util.h"

/* An RPC unanswered this long fails, and the connection with it: a server that stopped answering
 * (no reset) ends the job within this, however the TCP connection behaves. */
#define NFS_TIMEOUT_MS 10000
/* Longest poll before looking at deadlines again; libnfs also runs its own timers here. */
#define NFS_SLICE_MS 100
#define NFS_LAYOUT_CHUNK (1u << 20)
#define NFS_LAYOUT_DEPTH 4

struct nfs_data;

/* One unit's RPC (indexed by io_unit_t.index): the callback finds its way back through it. */
typedef struct nfs_slot {
        struct nfs_data *d;
        io_unit_t *io;
        int64_t deadline;
        bool busy; /* in flight; false once failed with the connection (a late callback is void) */
} nfs_slot_t;

/* A control call (mount, open, stat, layout write...) the engine waits for. */
typedef struct nfs_op {
        bool done;
        int status;
        struct nfsfh *fh;
        struct nfs_stat_64 st;
} nfs_op_t;

typedef struct nfs_data {
        struct nfs_context *nfs; /* NULL once the connection is given up */
        char *url;
        bool mounted;
        unsigned depth;
        nfs_slot_t *slots;
        io_unit_t **ready; /* completed, not yet reaped: a ring of depth */
        unsigned ready_head, nready;
        io_unit_t **done; /* what the last getevents() reaped */
        unsigned queued;  /* queued since the last commit */
        unsigned inflight;
        int64_t next_check;
        struct nfsfh **fhs;
        unsigned nfhs;
        int dead; /* 0, or the -errno every I/O now fails with */
        char why[256];
} nfs_data_t;

/* --- the connection ------------------------------------------------------------------------- */

static void push_ready(nfs_data_t *d, nfs_slot_t *sl, int64_t result)
{
        sl->io->result = result;
        sl->busy = false;
        d->inflight--;
        d->ready[(d->ready_head + d->nready++) % d->depth] = sl->io;
}

static void close_cb(int err, struct nfs_context *nfs, void *data, void *priv)
{
        (void)err, (void)nfs, (void)data, (void)priv;
}

/* Gives the connection up: every I/O in flight fails with err, the context is destroyed (while
 * everything its callbacks point at is alive) and nothing is sent again. Returns err. */
static int kill_conn(nfs_data_t *d, int err, const char *why)
{
        if (d->dead)
                return d->dead;
        d->dead = err;
        snprintf(d->why, sizeof(d->why), "%s", why && *why ? why : strerror(-err));
        log_debug("nfs: %s: giving the connection up: %s", d->url, d->why);
        for (unsigned i = 0; i < d->depth; i++)
                if (d->slots[i].busy)
                        push_ready(d, &d->slots[i], err);
        if (d->nfs) {
                for (unsigned i = 0; i < d->nfhs; i++)
                        if (d->fhs[i])
                                nfs_close_async(d->nfs, d->fhs[i], close_cb, NULL);
                memset(d->fhs, 0, d->nfhs * sizeof(*d->fhs));
                nfs_destroy_context(d->nfs);
                d->nfs = NULL;
        }
        return err;
}

/* Runs the connection for up to timeout_ms: waits on its socket, lets libnfs read and write (and
 * run its timers), then fails the connection when an I/O waited past its deadline. 0, or the
 * -errno of a connection given up. */
static int pump(nfs_data_t *d, int timeout_ms)
{
        struct pollfd p;
        int64_t now;
        int r, soerr = 0;

        if (d->dead)
                return d->dead;
        p.fd = nfs_get_fd(d->nfs);
        p.events = (short)nfs_which_events(d->nfs);
        p.revents = 0;
        if (p.fd < 0)
                return kill_conn(d, -ENOTCONN, "no connection to the server");
        r = poll(&p, 1, timeout_ms);
        if (r < 0 && errno != EINTR)
                return kill_conn(d, -errno, "poll on the connection failed");
        if (r > 0 && (p.revents & POLLERR)) {
                socklen_t len = sizeof(soerr);
                if (getsockopt(p.fd, SOL_SOCKET, SO_ERROR, &soerr, &len) < 0 || !soerr)
                        soerr = 0;
        }
        if (nfs_service(d->nfs, r > 0 ? p.revents : 0) < 0) {
                char why[200];
                /* libnfs cannot go on with this socket (reset, closed, refused): what it had in
                 * flight will never complete. */
                snprintf(why, sizeof(why), "connection to the server lost: %s",
                         nfs_get_error(d->nfs) ? nfs_get_error(d->nfs) : "socket error");
                return kill_conn(d, soerr ? -soerr : -ECONNRESET, why);
        }
        now = clock_mono_ns();
        if (d->inflight && now >= d->next_check) {
                d->next_check = now + NFS_SLICE_MS * (int64_t)NSEC_PER_MSEC;
                for (unsigned i = 0; i < d->depth; i++)
                        if (d->slots[i].busy && d->slots[i].deadline <= now)
                                return kill_conn(d, -ETIMEDOUT,
                                                 "the server did not answer within "
                                                 "10 s");
        }
        return 0;
}

static void op_cb(int err, struct nfs_context *nfs, void *data, void *priv)
{
        nfs_op_t *op = priv;
        (void)nfs;
        op->status = err;
        if (err >= 0 && data && op->fh == (void *)op)
                op->fh = data; /* an open: the caller asked for the handle */
        else if (err < 0 && data)
                log_debug("nfs: %s", (const char *)data);
        op->done = true;
}

static void stat_cb(int err, struct nfs_context *nfs, void *data, void *priv)
{
        nfs_op_t *op = priv;
        if (err >= 0 && data)
                op->st = *(const struct nfs_stat_64 *)data;
        op_cb(err, nfs, NULL, priv);
}

/* Waits for the control calls ops[0..n) (one at least done unless all) within the timeout. On a
 * stop or a timeout the connection is given up, so no callback can come after the caller's ops
 * are gone. 0 or -errno. */
static int wait_ops(nfs_data_t *d, nfs_op_t *ops, const bool *busy, unsigned n, bool all,
                    const int *stop)
{
        int64_t deadline = clock_mono_ns() + NFS_TIMEOUT_MS * (int64_t)NSEC_PER_MSEC;
        for (;;) {
                unsigned pending = 0, finished = 0;
                int r;
                for (unsigned i = 0; i < n; i++) {
                        if (busy && !busy[i])
                                continue;
                        if (ops[i].done)
                                finished++;
                        else
                                pending++;
                }
                if (!pending || (!all && finished))
                        return 0;
                if (stop && __atomic_load_n(stop, __ATOMIC_RELAXED))
                        return kill_conn(d, -ECANCELED, "stopped");
                if (clock_mono_ns() >= deadline)
                        return kill_conn(d, -ETIMEDOUT, "the server did not answer within 10 s");
                if ((r = pump(d, NFS_SLICE_MS)) < 0)
                        return r;
        }
}

static int wait_op(nfs_data_t *d, nfs_op_t *op, const int *stop)
{
        int r = wait_ops(d, op, NULL, 1, true, stop);
        return r < 0 ? r : op->status;
}

static const char *nfs_why(const nfs_data_t *d)
{
        if (d->dead)
                return d->why;
        return d->nfs && nfs_get_error(d->nfs) ? nfs_get_error(d->nfs) : "";
}

/* Mounts the export at the first file: the failure then reaches the job with its reason. */
static int mount_export(nfs_data_t *d, char *err, size_t errlen)
{
        struct nfs_url *u;
        nfs_op_t op = {0};
        int r;

        if (d->mounted)
                return 0;
        if (d->dead)
                return errorf(err, errlen, d->dead, "nfs_url=%s: %s", d->url, d->why);
        u = nfs_parse_url_dir(d->nfs, d->url);
        if (!u)
                return errorf(err, errlen, -EINVAL, "nfs_url=%s: %s", d->url,
                              nfs_get_error(d->nfs) ? nfs_get_error(d->nfs) : "not a valid URL");
        if (!u->server || !*u->server || !u->path || !*u->path) {
                nfs_destroy_url(u);
                return errorf(err, errlen, -EINVAL,
                              "nfs_url=%s: must be nfs://SERVER/EXPORT[?options]", d->url);
        }
        /* libnfs takes its URL options (nfsport, mountport, autoreconnect, ...) when it parses
         * the URL; it would reconnect for ever by default, so give up on a reset unless the URL
         * asks otherwise. */
        r = nfs_mount_async(d->nfs, u->server, u->path, op_cb, &op);
        if (r == 0)
                r = wait_op(d, &op, NULL);
        if (r < 0) {
                r = errorf(err, errlen, r, "nfs_url=%s: cannot mount %s from %s: %s", d->url,
                           u->path, u->server, *nfs_why(d) ? nfs_why(d) : strerror(-r));
                nfs_destroy_url(u);
                return r;
        }
        nfs_destroy_url(u);
        d->mounted = true;
        return 0;
}

/* --- the ops table -------------------------------------------------------------------------- */

static void nfs_cleanup(void *data)
{
        nfs_data_t *d = data;
        if (!d)
                return;
        if (d->nfs) {
                for (unsigned i = 0; i < d->nfhs; i++)
                        if (d->fhs[i])
                                nfs_close_async(d->nfs, d->fhs[i], close_cb, NULL);
                nfs_destroy_context(d->nfs);
        }
        free(d->fhs);
        free(d->slots);
        free(d->ready);
        free(d->done);
        free(d->url);
        free(d);
}

static int nfs_init(const engine_setup_t *setup, void **data)
{
        const char *url = setup->job->nfs_url;
        nfs_data_t *d;
        unsigned n = setup->depth ? setup->depth : 1;

        if (!url || !*url)
                return -EINVAL; /* job_spec_validate() requires it with ioengine=nfs */
        d = calloc(1, sizeof(*d));
        if (!d)
                return -ENOMEM;
        d->depth = n;
        d->slots = calloc(n, sizeof(*d->slots));
        d->ready = calloc(n, sizeof(*d->ready));
        d->done = calloc(n, sizeof(*d->done));
        d->url = strdup(url);
        d->nfs = nfs_init_context();
        if (!d->slots || !d->ready || !d->done || !d->url || !d->nfs) {
                nfs_cleanup(d);
                return -ENOMEM;
        }
        for (unsigned i = 0; i < n; i++)
                d->slots[i].d = d;
        /* Before the URL is parsed, so that its own autoreconnect= wins. */
        nfs_set_autoreconnect(d->nfs, 0);
        /* Only a backstop: pump() fails a silent connection first, with ETIMEDOUT, where
         * libnfs's own timer would fail single RPCs with EINTR. */
        nfs_set_timeout(d->nfs, 2 * NFS_TIMEOUT_MS);
        *data = d;
        return 0;
}

static void fill_chunk(uint64_t *buf, size_t n, uint64_t *x)
{
        /* xorshift: data that neither compresses nor deduplicates, as layout.c writes. */
        for (size_t i = 0; i < (n + 7) / 8; i++) {
                *x ^= *x << 13;
                *x ^= *x >> 7;
                *x ^= *x << 17;
                buf[i] = *x;
        }
}

/* Writes [off, length) of fh with a few writes in flight. 0 or -errno with err set. */
static int layout_fill(nfs_data_t *d, struct nfsfh *fh, const engine_file_t *f, uint64_t off,
                       uint64_t *counted, char *err, size_t errlen)
{
        nfs_op_t ops[NFS_LAYOUT_DEPTH];
        bool busy[NFS_LAYOUT_DEPTH] = {false};
        uint64_t at[NFS_LAYOUT_DEPTH], len[NFS_LAYOUT_DEPTH];
        uint64_t x = (f->seed ^ 0x2545f4914f6cdd1dULL) | 1;
        uint64_t *buf = malloc((size_t)NFS_LAYOUT_DEPTH * NFS_LAYOUT_CHUNK);
        unsigned outstanding = 0;
        int r = 0;

        if (!buf)
                return errorf(err, errlen, -ENOMEM, "no memory to lay out %s", f->path);
        while (off < f->length || outstanding) {
                for (unsigned i = 0; i < NFS_LAYOUT_DEPTH && off < f->length; i++) {
                        uint64_t *b = buf + (size_t)i * (NFS_LAYOUT_CHUNK / 8);
                        if (busy[i])
                                continue;
                        len[i] = f->length - off < NFS_LAYOUT_CHUNK ? f->length - off
                                                                    : NFS_LAYOUT_CHUNK;
                        at[i] = off;
                        fill_chunk(b, (size_t)len[i], &x);
                        memset(&ops[i], 0, sizeof(ops[i]));
                        if ((r = nfs_pwrite_async(d->nfs, fh, off, len[i], b, op_cb, &ops[i])) <
                            0) {
                                r = errorf(err, errlen, -EIO, "laying out %s at offset %llu: %s",
                                           f->path, (unsigned long long)off, nfs_why(d));
                                kill_conn(d, -EIO, "a layout write could not be queued");
                                goto out;
                        }
                        busy[i] = true;
                        outstanding++;
                        off += len[i];
                }
                if ((r = wait_ops(d, ops, busy, NFS_LAYOUT_DEPTH, false, f->stop)) < 0) {
                        r = errorf(err, errlen, r, "laying out %s: %s", f->path,
                                   r == -ECANCELED ? "stopped" : nfs_why(d));
                        goto out;
                }
                for (unsigned i = 0; i < NFS_LAYOUT_DEPTH; i++) {
                        if (!busy[i] || !ops[i].done)
                                continue;
                        busy[i] = false;
                        outstanding--;
                        if (ops[i].status == (int)len[i]) {
                                layout_count(f->done, len[i]);
                                *counted += len[i];
                        }
                        if (ops[i].status != (int)len[i]) {
                                int e = ops[i].status < 0 ? ops[i].status : -EIO;
                                r = errorf(err, errlen, e, "laying out %s at offset %llu: %s",
                                           f->path, (unsigned long long)at[i],
                                           ops[i].status < 0 ? strerror(-e) : "short write");
                                /* The others in flight point at buf: nothing may come back. */
                                kill_conn(d, e, "a layout write failed");
                                goto out;
                        }
                }
        }
out:
        free(buf);
        return r;
}

/* Lays out f as layout_file() does, over NFS: create, extend (filled or sparse), commit. */
static int layout_one(nfs_data_t *d, const engine_file_t *f, char *err, size_t errlen)
{
        nfs_op_t op = {0};
        struct nfsfh *fh = NULL;
        int flags = (f->readonly ? O_RDONLY : O_RDWR) | (f->readonly || !f->length ? 0 : O_CREAT) |
                    O_NOFOLLOW;
        uint64_t size, counted = 0;
        int r;

        op.fh = (void *)&op;
        r = nfs_open2_async(d->nfs, f->path, flags, 0644, op_cb, &op);
        if (r == 0)
                r = wait_op(d, &op, f->stop);
        if (r < 0) {
                if (f->readonly && r == -ENOENT)
                        return errorf(err, errlen, r,
                                      "readonly: %s does not exist and readonly forbids creating "
                                      "it",
                                      f->path);
                if (!f->length && r == -ENOENT)
                        return errorf(err, errlen, r,
                                      "size: %s does not exist on %s; give size= (or filesize=) "
                                      "to lay it out",
                                      f->path, d->url);
                return errorf(err, errlen, r, "cannot %s %s on %s: %s",
                              f->readonly ? "open" : "create", f->path, d->url,
                              *nfs_why(d) ? nfs_why(d) : strerror(-r));
        }
        fh = op.fh;
        memset(&op, 0, sizeof(op));
        r = nfs_fstat64_async(d->nfs, fh, stat_cb, &op);
        if (r == 0)
                r = wait_op(d, &op, f->stop);
        if (r < 0) {
                r = errorf(err, errlen, r, "stat of %s on %s: %s", f->path, d->url, nfs_why(d));
                goto out;
        }
        if (!S_ISREG(op.st.nfs_mode)) {
                r = errorf(err, errlen, -EINVAL,
                           "%s on %s is not a regular file: iofleet reads and writes regular "
                           "files only",
                           f->path, d->url);
                goto out;
        }
        size = op.st.nfs_size;
        if (size >= f->length)
                goto out;
        if (f->readonly) {
                r = errorf(err, errlen, -EROFS,
                           "readonly: %s holds %llu bytes, the job needs %llu, and readonly "
                           "forbids laying it out",
                           f->path, (unsigned long long)size, (unsigned long long)f->length);
                goto out;
        }
        if (!f->fill) {
                /* NFSv3 has no fallocate: a sparse extension is what fio's falloc=none does. */
                memset(&op, 0, sizeof(op));
                r = nfs_ftruncate_async(d->nfs, fh, f->length, op_cb, &op);
                if (r == 0)
                        r = wait_op(d, &op, f->stop);
                if (r < 0) {
                        r = errorf(err, errlen, r, "cannot extend %s to %llu bytes: %s", f->path,
                                   (unsigned long long)f->length, nfs_why(d));
                        goto out;
                }
        } else {
                log_debug("nfs: laying out %s: %llu of %llu bytes missing", f->path,
                          (unsigned long long)(f->length - size), (unsigned long long)f->length);
                /* What is there already counts as done at once. */
                layout_count(f->done, size);
                counted = size;
                if ((r = layout_fill(d, fh, f, size, &counted, err, errlen)) < 0)
                        goto out;
        }
        /* COMMIT, as fio's create_fsync: the layout is on stable storage before the job. */
        memset(&op, 0, sizeof(op));
        r = nfs_fsync_async(d->nfs, fh, op_cb, &op);
        if (r == 0)
                r = wait_op(d, &op, f->stop);
        if (r < 0)
                r = errorf(err, errlen, r, "commit of %s after laying it out: %s", f->path,
                           nfs_why(d));
out:
        /* Long enough already, extended, or filled: all of its length is done. */
        if (r == 0 && f->length > counted)
                layout_count(f->done, f->length - counted);
        if (d->nfs)
                nfs_close_async(d->nfs, fh, close_cb, NULL);
        return r;
}

static int nfs_open_file(void *data, unsigned index, const engine_file_t *f, uint64_t *size,
                         char *err, size_t errlen)
{
        nfs_data_t *d = data;
        nfs_op_t op = {0};
        struct nfsfh *fh;
        int r;

        if ((r = mount_export(d, err, errlen)) < 0)
                return r;
        if (f->layout)
                return layout_one(d, f, err, errlen);
        if (index >= d->nfhs) {
                struct nfsfh **n = realloc(d->fhs, (index + 1) * sizeof(*n));
                if (!n)
                        return errorf(err, errlen, -ENOMEM, "no memory for %u files", index + 1);
                memset(n + d->nfhs, 0, (index + 1 - d->nfhs) * sizeof(*n));
                d->fhs = n;
                d->nfhs = index + 1;
        }
        if (d->fhs[index])
                return errorf(err, errlen, -EEXIST, "%s: file %u is already open", f->path, index);
        op.fh = (void *)&op;
        r = nfs_open2_async(d->nfs, f->path, (f->writes ? O_RDWR : O_RDONLY) | O_NOFOLLOW, 0,
                            op_cb, &op);
        if (r == 0)
                r = wait_op(d, &op, NULL);
        if (r < 0)
                return errorf(err, errlen, r, "cannot open %s on %s: %s", f->path, d->url,
                              *nfs_why(d) ? nfs_why(d) : strerror(-r));
        fh = op.fh;
        d->fhs[index] = fh;
        memset(&op, 0, sizeof(op));
        r = nfs_fstat64_async(d->nfs, fh, stat_cb, &op);
        if (r == 0)
                r = wait_op(d, &op, NULL);
        if (r < 0)
                return errorf(err, errlen, r, "stat of %s on %s: %s", f->path, d->url, nfs_why(d));
        if (!S_ISREG(op.st.nfs_mode))
                return errorf(err, errlen, -EINVAL,
                              "%s on %s is not a regular file: iofleet reads and writes regular "
                              "files only",
                              f->path, d->url);
        *size = op.st.nfs_size;
        return 0;
}

static int nfs_sync(void *data, unsigned index, bool datasync, char *err, size_t errlen)
{
        nfs_data_t *d = data;
        nfs_op_t op = {0};
        int r;

        /* NFSv3 has one COMMIT for both: the server makes data and metadata stable. */
        (void)datasync;
        if (d->dead)
                return errorf(err, errlen, d->dead, "commit on %s: %s", d->url, d->why);
        if (index >= d->nfhs || !d->fhs[index])
                return errorf(err, errlen, -EBADF, "commit on %s: file %u is not open", d->url,
                              index);
        r = nfs_fsync_async(d->nfs, d->fhs[index], op_cb, &op);
        if (r == 0)
                r = wait_op(d, &op, NULL);
        if (r < 0)
                return errorf(err, errlen, r, "commit on %s: %s", d->url,
                              *nfs_why(d) ? nfs_why(d) : strerror(-r));
        return 0;
}

static void io_cb(int err, struct nfs_context *nfs, void *data, void *priv)
{
        nfs_slot_t *sl = priv;
        io_unit_t *io = sl->io;
        (void)nfs;

        if (!sl->busy)
                return; /* failed already with its connection */
        if (err >= 0 && io->ddir == DDIR_READ) {
                if ((uint64_t)err > io->len)
                        err = (int)io->len;
                if (err && data)
                        memcpy(io->buf, data, (size_t)err);
        } else if (err < 0) {
                if (data)
                        log_debug("nfs: %s at offset %llu: %s",
                                  io->ddir == DDIR_WRITE ? "write" : "read",
                                  (unsigned long long)io->offset, (const char *)data);
                /* libnfs reports a transport failure (the socket reset or closed under the RPC)
                 * as EFAULT and a cancelled or timed-out RPC as EINTR: say what happened. */
                if (err == -EFAULT)
                        err = -ECONNRESET;
                else if (err == -EINTR)
                        err = -ETIMEDOUT;
        }
        push_ready(sl->d, sl, err);
}

static int nfs_queue(void *data, io_unit_t *io)
{
        nfs_data_t *d = data;
        nfs_slot_t *sl = &d->slots[io->index];
        struct nfsfh *fh;
        int r;

        if (d->dead)
                return d->dead;
        if (io->file >= d->nfhs || !(fh = d->fhs[io->file]))
                return -EBADF;
        sl->io = io;
        sl->busy = true;
        sl->deadline = clock_mono_ns() + NFS_TIMEOUT_MS * (int64_t)NSEC_PER_MSEC;
        d->inflight++;
        if (io->ddir == DDIR_WRITE)
                r = nfs_pwrite_async(d->nfs, fh, io->offset, io->len, io->buf, io_cb, sl);
        else
                r = nfs_pread_async(d->nfs, fh, io->offset, io->len, io_cb, sl);
        if (r < 0) {
                sl->busy = false;
                d->inflight--;
                log_debug("nfs: cannot queue a %s: %s", io->ddir == DDIR_WRITE ? "write" : "read",
                          nfs_why(d));
                return -EIO;
        }
        d->queued++;
        return ENGINE_QUEUED;
}

static int nfs_commit(void *data)
{
        nfs_data_t *d = data;
        int n = (int)d->queued;

        d->queued = 0;
        /* libnfs only queues: send what it can now rather than at the next poll. A connection
         * lost here fails the I/Os, which come back through getevents(). */
        if (!d->dead && nfs_service(d->nfs, POLLOUT) < 0)
                kill_conn(d, -ECONNRESET, "connection to the server lost while sending");
        return n;
}

static unsigned take(nfs_data_t *d, unsigned n, unsigned max)
{
        while (n < max && d->nready) {
                d->done[n++] = d->ready[d->ready_head];
                d->ready_head = (d->ready_head + 1) % d->depth;
                d->nready--;
        }
        return n;
}

static int nfs_getevents(void *data, unsigned min, unsigned max, int64_t timeout_ns)
{
        nfs_data_t *d = data;
        int64_t end = timeout_ns >= 0 ? clock_mono_ns() + timeout_ns : INT64_MAX;
        unsigned n;

        if (max > d->depth)
                max = d->depth;
        n = take(d, 0, max);
        while (n < min && !d->dead) {
                int64_t left = end - clock_mono_ns();
                int ms;
                if (left <= 0)
                        break;
                ms = left > NFS_SLICE_MS * (int64_t)NSEC_PER_MSEC
                         ? NFS_SLICE_MS
                         : (int)((left + NSEC_PER_MSEC - 1) / NSEC_PER_MSEC);
                pump(d, ms);
                n = take(d, n, max);
        }
        if (d->dead)
                n = take(d, n, max);
        return (int)n;
}

static io_unit_t *nfs_event(void *data, unsigned i)
{
        nfs_data_t *d = data;
        return d->done[i];
}

const engine_ops_t engine_nfs = {
    .version = ENGINE_OPS_VERSION,
    .name = "nfs",
    .flags = ENGINE_OWN_FILES,
    .init = nfs_init,
    .cleanup = nfs_cleanup,
    .queue = nfs_queue,
    .commit = nfs_commit,
    .getevents = nfs_getevents,
    .event = nfs_event,
    .open_file = nfs_open_file,
    .sync = nfs_sync,
};
