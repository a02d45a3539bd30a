/* The restore record: saving what the agent is about to change on this host (the entry files
 * are agent/restore-record.c's) and putting everything back, newest first. */
#include "restore.h"
#include "restore-record.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

#include "fileio.h"
#include "kv.h"
#include "log.h"
#include "mountinfo.h"
#include "helper.h"
#include "sysctl-name.h"
#include "util.h"

int restore_open(const char *state_dir, restore_t **ret)
{
        if (strempty(state_dir))
                return -EINVAL;
        restore_t *r = calloc(1, sizeof(*r));
        if (!r)
                return -ENOMEM;
        r->dirfd = -1;
        r->next = 1;
        int e;
        if (asprintf(&r->dir, "%s/restore", state_dir) < 0) {
                r->dir = NULL;
                e = -ENOMEM;
                goto fail;
        }
        if ((e = mkdir_p(r->dir, 0700)) < 0)
                goto fail;
        r->dirfd = open(r->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
        if (r->dirfd < 0) {
                e = -errno;
                goto fail;
        }
        if ((e = restore_record_load(r)) < 0)
                goto fail;
        *ret = r;
        return 0;
fail:
        restore_close(&r);
        return e;
}

void restore_close(restore_t **rp)
{
        restore_t *r = *rp;
        if (!r)
                return;
        for (size_t i = 0; i < r->n; i++)
                restore_entry_free(&r->v[i]);
        free(r->v);
        if (r->dirfd >= 0)
                close(r->dirfd);
        free(r->dir);
        free(r);
        *rp = NULL;
}

int restore_register_service(restore_t *r, const restore_service_ops_t *ops)
{
        if (!ops || !restore_word_ok(ops->kind) || !ops->restore)
                return -EINVAL;
        for (size_t i = 0; i < r->n_ops; i++)
                if (streq(r->ops[i].kind, ops->kind)) {
                        r->ops[i] = *ops;
                        return 0;
                }
        if (r->n_ops == RESTORE_MAX_OPS)
                return -ENOSPC;
        r->ops[r->n_ops++] = *ops;
        return 0;
}

bool restore_pending(const restore_t *r)
{
        return r && r->n > 0;
}

/* ---- saving ---- */

static bool have(const restore_t *r, entry_kind_t kind, const char *a, const char *b)
{
        for (size_t i = 0; i < r->n; i++) {
                const entry_t *e = &r->v[i];
                if (e->kind != kind)
                        continue;
                if ((kind == ENTRY_FILE || kind == ENTRY_ATTR) && streq(e->a, a))
                        return true;
                if (kind == ENTRY_MOUNT && streq(e->b, b))
                        return true;
                if (kind == ENTRY_SERVICE && streq(e->a, a) && streq(e->b, b))
                        return true;
                /* net.core.somaxconn and net/core/somaxconn are one sysctl. */
                char x[SYSCTL_NAME_MAX + 1], y[SYSCTL_NAME_MAX + 1];
                if (kind == ENTRY_SYSCTL && streq(e->b, b) &&
                    sysctl_name_to_path(e->a, x, sizeof(x)) == 0 &&
                    sysctl_name_to_path(a, y, sizeof(y)) == 0 && streq(x, y))
                        return true;
        }
        return false;
}

int restore_save_file(restore_t *r, const char *path)
{
        if (!restore_path_ok(path) || path[strlen(path) - 1] == '/')
                return -EINVAL;
        if (have(r, ENTRY_FILE, path, NULL))
                return 0;
        entry_t e = {.kind = ENTRY_FILE};
        char *data = NULL;
        size_t len = 0;
        int ret;
        int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY | O_NONBLOCK);
        if (fd < 0) {
                if (errno != ENOENT)
                        return errno == ELOOP ? -EINVAL : -errno;
                e.flag = false;
        } else {
                struct stat st;
                if (fstat(fd, &st) < 0) {
                        ret = -errno;
                        close(fd);
                        return ret;
                }
                if (!S_ISREG(st.st_mode)) {
                        close(fd);
                        return -EINVAL;
                }
                ret = read_full_fd(fd, RESTORE_MAX_FILE, &data, &len);
                close(fd);
                if (ret < 0)
                        return ret;
                e.flag = true;
                e.mode = st.st_mode;
                e.uid = st.st_uid;
                e.gid = st.st_gid;
                e.size = len;
                e.hash = XXH64(data, len, 0);
                e.mtime_sec = st.st_mtim.tv_sec;
                e.mtime_nsec = st.st_mtim.tv_nsec;
        }
        e.a = strdup(path);
        ret = e.a ? restore_entry_commit(r, &e, data, len) : -ENOMEM;
        free(data);
        restore_entry_free(&e);
        return ret;
}

static int sysctl_file(const char *root, const char *name, char *buf, size_t len)
{
        char rel[SYSCTL_NAME_MAX + 1];
        int ret = sysctl_name_to_path(name, rel, sizeof(rel));
        if (ret < 0)
                return ret;
        if ((size_t)snprintf(buf, len, "%s/%s", root, rel) >= len)
                return -ENAMETOOLONG;
        return 0;
}

int restore_save_sysctl(restore_t *r, const char *sysctl_root, const char *name)
{
        char path[PATH_MAX];
        if (!restore_path_ok(sysctl_root))
                return -EINVAL;
        int ret = sysctl_file(sysctl_root, name, path, sizeof(path));
        if (ret < 0)
                return ret;
        if (have(r, ENTRY_SYSCTL, name, sysctl_root))
                return 0;
        char *value = NULL;
        size_t len = 0;
        ret = read_full_file(path, READ_FULL_NOFOLLOW, RESTORE_MAX_SYSCTL, &value, &len);
        if (ret < 0)
                return ret;
        if (memchr(value, 0, len)) {
                free(value);
                return -EINVAL;
        }
        entry_t e = {.kind = ENTRY_SYSCTL, .value = value};
        e.a = strdup(name);
        e.b = strdup(sysctl_root);
        ret = e.a && e.b ? restore_entry_commit(r, &e, NULL, 0) : -ENOMEM;
        restore_entry_free(&e);
        return ret;
}

int restore_save_service(restore_t *r, const char *kind, const char *name, bool was_running)
{
        if (!restore_word_ok(kind) || !restore_word_ok(name))
                return -EINVAL;
        if (have(r, ENTRY_SERVICE, kind, name))
                return 0;
        entry_t e = {.kind = ENTRY_SERVICE, .flag = was_running};
        e.a = strdup(kind);
        e.b = strdup(name);
        int ret = e.a && e.b ? restore_entry_commit(r, &e, NULL, 0) : -ENOMEM;
        restore_entry_free(&e);
        return ret;
}

int restore_save_mount(restore_t *r, const char *umount_bin, const char *mountpoint,
                       bool created_dir)
{
        if (!restore_path_ok(umount_bin) || !restore_path_ok(mountpoint))
                return -EINVAL;
        if (have(r, ENTRY_MOUNT, NULL, mountpoint))
                return 0;
        entry_t e = {.kind = ENTRY_MOUNT, .flag = created_dir};
        e.a = strdup(umount_bin);
        e.b = strdup(mountpoint);
        int ret = e.a && e.b ? restore_entry_commit(r, &e, NULL, 0) : -ENOMEM;
        restore_entry_free(&e);
        return ret;
}

int restore_save_attr(restore_t *r, const char *path, const char *value)
{
        if (!restore_path_ok(path) || strncmp(path, "/sys/", 5) != 0 || !restore_word_ok(value))
                return -EINVAL;
        if (have(r, ENTRY_ATTR, path, NULL))
                return 0;
        entry_t e = {.kind = ENTRY_ATTR};
        e.a = strdup(path);
        e.value = strdup(value);
        int ret = e.a && e.value ? restore_entry_commit(r, &e, NULL, 0) : -ENOMEM;
        restore_entry_free(&e);
        return ret;
}

int restore_mkdir(restore_t *r, const char *path, mode_t mode)
{
        char buf[PATH_MAX];
        struct stat st;
        if (!restore_path_ok(path) || streq(path, "/"))
                return -EINVAL;
        if (snprintf(buf, sizeof(buf), "%s", path) >= (int)sizeof(buf))
                return -ENAMETOOLONG;
        for (char *p = buf + 1;; p++) {
                if (*p != '/' && *p != 0)
                        continue;
                char c = *p;
                *p = 0;
                if (lstat(buf, &st) < 0) {
                        if (errno != ENOENT)
                                return -errno;
                        entry_t e = {.kind = ENTRY_DIR};
                        e.a = strdup(buf);
                        int ret = e.a ? restore_entry_commit(r, &e, NULL, 0) : -ENOMEM;
                        restore_entry_free(&e);
                        if (ret < 0)
                                return ret;
                        if (mkdir(buf, c ? 0755 : mode) < 0 && errno != EEXIST)
                                return -errno;
                } else if (!S_ISDIR(st.st_mode))
                        return -ENOTDIR;
                if (!c)
                        return 0;
                *p = c;
        }
}

/* ---- putting back ---- */

static int fsync_parent(const char *path)
{
        char dir[PATH_MAX];
        snprintf(dir, sizeof(dir), "%s", path);
        char *slash = strrchr(dir, '/');
        if (slash == dir)
                slash[1] = 0;
        else if (slash)
                *slash = 0;
        int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0)
                return -errno;
        int ret = fsync(fd) < 0 ? -errno : 0;
        close(fd);
        return ret;
}

static int apply_file(restore_t *r, const entry_t *e, char *err, size_t errlen)
{
        if (!e->flag) {
                if (unlink(e->a) < 0 && errno != ENOENT)
                        return errorf(err, errlen, -errno, "file %s: cannot remove it: %m", e->a);
                fsync_parent(e->a);
                return 0;
        }
        char name[64];
        restore_entry_name(e->num, "data", name, sizeof(name));
        char *data = NULL;
        size_t len = 0;
        int ret = read_full_file_at(r->dirfd, name, READ_FULL_NOFOLLOW | READ_FULL_NONBLOCK,
                                    RESTORE_MAX_FILE, &data, &len);
        if (ret < 0)
                return errorf(err, errlen, ret, "file %s: saved copy %s/%s: %s", e->a, r->dir,
                              name, strerror(-ret));
        if (len != e->size || XXH64(data, len, 0) != e->hash) {
                free(data);
                return errorf(err, errlen, -EBADMSG,
                              "file %s: saved copy %s/%s does not match its record (size or "
                              "xxh64)",
                              e->a, r->dir, name);
        }
        char tmp[PATH_MAX];
        const char *slash = strrchr(e->a, '/');
        if (snprintf(tmp, sizeof(tmp), "%.*s.%s.iofleet-restore.XXXXXX", (int)(slash - e->a + 1),
                     e->a, slash + 1) >= (int)sizeof(tmp)) {
                free(data);
                return errorf(err, errlen, -ENAMETOOLONG, "file %s: name too long", e->a);
        }
        int fd = mkostemp(tmp, O_CLOEXEC);
        if (fd < 0) {
                free(data);
                return errorf(err, errlen, -errno, "file %s: cannot create %s: %m", e->a, tmp);
        }
        ret = write_all(fd, data, len);
        free(data);
        const char *what = "write";
        /* Owner before mode: chown clears set-id bits. */
        if (ret == 0 && fchown(fd, e->uid, e->gid) < 0)
                ret = -errno, what = "chown";
        if (ret == 0 && fchmod(fd, e->mode & 07777) < 0)
                ret = -errno, what = "chmod";
        struct timespec ts[2] = {{.tv_nsec = UTIME_OMIT},
                                 {.tv_sec = e->mtime_sec, .tv_nsec = e->mtime_nsec}};
        if (ret == 0)
                futimens(fd, ts);
        if (ret == 0 && fsync(fd) < 0)
                ret = -errno, what = "fsync";
        close(fd);
        if (ret == 0 && rename(tmp, e->a) < 0)
                ret = -errno, what = "rename";
        if (ret < 0) {
                unlink(tmp);
                return errorf(err, errlen, ret, "file %s: %s failed: %s", e->a, what,
                              strerror(-ret));
        }
        fsync_parent(e->a);
        return 0;
}

static int apply_sysctl(const entry_t *e, char *err, size_t errlen)
{
        char path[PATH_MAX];
        int ret = sysctl_file(e->b, e->a, path, sizeof(path));
        if (ret < 0)
                return errorf(err, errlen, ret, "sysctl %s: bad name or root", e->a);
        int fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC | O_NOFOLLOW);
        if (fd < 0)
                return errorf(err, errlen, -errno, "sysctl %s: cannot open %s: %m", e->a, path);
        size_t len = strlen(e->value);
        ret = len ? write_all(fd, e->value, len) : 0;
        if (close(fd) < 0 && ret == 0)
                ret = -errno;
        if (ret < 0)
                return errorf(err, errlen, ret, "sysctl %s: writing back '%.*s' failed: %s", e->a,
                              (int)strcspn(e->value, "\n"), e->value, strerror(-ret));
        return 0;
}

static int apply_service(restore_t *r, const entry_t *e, char *err, size_t errlen)
{
        for (size_t i = 0; i < r->n_ops; i++)
                if (streq(r->ops[i].kind, e->a)) {
                        char e2[512] = "";
                        int ret = r->ops[i].restore(r->ops[i].user, e->b, e->flag, e2, sizeof(e2));
                        if (ret < 0)
                                return errorf(err, errlen, ret, "service %s %s: %s", e->a, e->b,
                                              e2[0] ? e2 : strerror(-ret));
                        return 0;
                }
        return errorf(err, errlen, -ENOENT,
                      "service %s (kind %s): no backend of kind '%s' registered to restore it",
                      e->b, e->a, e->a);
}

/* A mount the umount program could not take off (busy: workers still in I/O on a server that
 * went away; or no answer within the time): MNT_FORCE first — for NFS it fails the mount's
 * pending requests, so blocked I/O returns EIO and the files can close — then MNT_DETACH, which
 * takes the mount out of the tree at once and leaves the kernel to let go of it when its last
 * file closes. Either way nothing is left mounted for the next run or the admin to find. */
static int force_off(const entry_t *e, const char *why, char *err, size_t errlen)
{
        const char *how = "forced off (umount -f)";
        if (umount2(e->b, MNT_FORCE) < 0) {
                int fe = errno;
                if (fe == EINVAL || fe == ENOENT)
                        how = "gone meanwhile";
                else if (umount2(e->b, MNT_DETACH) == 0)
                        how = "detached (umount -l: the kernel lets go once its last file "
                              "closes)";
                else if (errno == EINVAL || errno == ENOENT)
                        how = "gone meanwhile";
                else
                        return errorf(err, errlen, -errno,
                                      "mount %s: %s; umount -f: %s; umount -l: %m", e->b, why,
                                      strerror(fe));
        }
        log_warning("restore: mount %s: %s; %s", e->b, why, how);
        return 0;
}

static int apply_mount(const entry_t *e, char *err, size_t errlen)
{
        int m = mountinfo_find(NULL, e->b, NULL);
        if (m < 0)
                return errorf(err, errlen, m, "mount %s: reading /proc/self/mountinfo: %s", e->b,
                              strerror(-m));
        if (m > 0) {
                const char *argv[] = {e->a, e->b, NULL};
                char out[512], why[700];
                int status = 0;
                int ret = helper_run(argv, RESTORE_UMOUNT_TIMEOUT_MS, out, sizeof(out), &status);
                if (ret < 0 || status != 0) {
                        out[strcspn(out, "\n")] = 0;
                        if (ret == -ETIMEDOUT)
                                snprintf(why, sizeof(why), "%s did not finish within %ds", e->a,
                                         RESTORE_UMOUNT_TIMEOUT_MS / 1000);
                        else if (ret < 0)
                                snprintf(why, sizeof(why), "running %s: %s", e->a,
                                         strerror(-ret));
                        else
                                snprintf(why, sizeof(why), "%s exited with %d: %s", e->a, status,
                                         out[0] ? out : "no message");
                        /* The umount program may have got it off after all (a timeout in the
                         * server's goodbye happens after the mount left the tree). */
                        m = mountinfo_find(NULL, e->b, NULL);
                        if (m < 0)
                                return errorf(err, errlen, m, "mount %s: %s; reading mountinfo: %s",
                                              e->b, why, strerror(-m));
                        if (m > 0 && (ret = force_off(e, why, err, errlen)) < 0)
                                return ret;
                }
        }
        if (e->flag && rmdir(e->b) < 0 && errno != ENOENT)
                return errorf(err, errlen, -errno, "mount %s: removing the directory: %m", e->b);
        return 0;
}

/* A directory the agent made: removed when empty; one that holds files now is not ours alone. */
static int apply_attr(const entry_t *e, char *err, size_t errlen)
{
        int fd = open(e->a, O_WRONLY | O_CLOEXEC | O_NOFOLLOW);
        if (fd < 0)
                return errorf(err, errlen, -errno, "%s: cannot open: %m", e->a);
        int ret = write_all(fd, e->value, strlen(e->value));
        if (close(fd) < 0 && ret == 0)
                ret = -errno;
        if (ret < 0)
                return errorf(err, errlen, ret, "%s: writing back '%s' failed: %s", e->a, e->value,
                              strerror(-ret));
        return 0;
}

static int apply_dir(const entry_t *e, char *err, size_t errlen)
{
        if (rmdir(e->a) == 0 || errno == ENOENT)
                return 0;
        if (errno == ENOTEMPTY || errno == EEXIST) {
                log_warning("restore: %s was made by the agent but holds files now: left in place",
                            e->a);
                return 0;
        }
        return errorf(err, errlen, -errno, "directory %s: removing it: %m", e->a);
}

/* Removes what is left in the record directory once nothing is pending (incomplete writes,
 * stray temporaries). */
static void sweep(restore_t *r)
{
        int fd = openat(r->dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0)
                return;
        DIR *d = fdopendir(fd);
        if (!d) {
                close(fd);
                return;
        }
        struct dirent *de;
        while ((de = readdir(d))) {
                const char *suffix;
                if (restore_name_num(de->d_name, &suffix) > 0)
                        unlinkat(r->dirfd, de->d_name, 0);
        }
        closedir(d);
        fsync(r->dirfd);
        r->next = 1;
}

int restore_apply(restore_t *r, char *err, size_t errlen)
{
        int first = 0;
        size_t failed = 0;
        if (err && errlen)
                err[0] = 0;
        for (size_t i = r->n; i-- > 0;) {
                entry_t *e = &r->v[i];
                char msg[1024] = "";
                int ret;
                switch (e->kind) {
                case ENTRY_FILE:
                        ret = apply_file(r, e, msg, sizeof(msg));
                        break;
                case ENTRY_SYSCTL:
                        ret = apply_sysctl(e, msg, sizeof(msg));
                        break;
                case ENTRY_SERVICE:
                        ret = apply_service(r, e, msg, sizeof(msg));
                        break;
                case ENTRY_MOUNT:
                        ret = apply_mount(e, msg, sizeof(msg));
                        break;
                case ENTRY_DIR:
                        ret = apply_dir(e, msg, sizeof(msg));
                        break;
                case ENTRY_ATTR:
                        ret = apply_attr(e, msg, sizeof(msg));
                        break;
                default:
                        ret = errorf(msg, sizeof(msg), -EBADMSG,
                                     "%s/%08u.entry: %s; put back by hand and remove the file",
                                     r->dir, e->num, e->value ? e->value : "unreadable");
                        break;
                }
                if (ret < 0) {
                        log_warning("restore: %s", msg);
                        if (!first) {
                                first = ret;
                                errorf(err, errlen, ret, "%s", msg);
                        }
                        failed++;
                        continue;
                }
                char name[64];
                restore_entry_name(e->num, "entry", name, sizeof(name));
                unlinkat(r->dirfd, name, 0);
                restore_entry_name(e->num, "data", name, sizeof(name));
                unlinkat(r->dirfd, name, 0);
                restore_entry_free(e);
                memmove(&r->v[i], &r->v[i + 1], (r->n - i - 1) * sizeof(*r->v));
                r->n--;
        }
        if (failed == 0) {
                sweep(r);
                return 0;
        }
        fsync(r->dirfd);
        if (failed > 1 && err && errlen) {
                size_t l = strlen(err);
                snprintf(err + l, errlen - l, " (and %zu more not put back)", failed - 1);
        }
        return first;
}
