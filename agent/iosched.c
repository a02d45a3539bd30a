/* ioscheduler=: the block devices under a job's files switched to an I/O scheduler for the run,
 * each old scheduler saved in the restore record first (fio switches and leaves it so; the agent
 * puts it back), the result read back as the kernel shows it. */
#include "iosched.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "engine.h"
#include "fileio.h"
#include "layout.h"
#include "util.h"

/* The device number a path's I/O goes to: a block device's own, else its file system's (the
 * nearest existing ancestor's, for a file layout has not made yet). */
static int device_of(const char *path, dev_t *dev)
{
        char buf[PATH_MAX];
        struct stat st;

        snprintf(buf, sizeof(buf), "%s", path);
        for (;;) {
                char *slash;
                if (stat(buf, &st) == 0) {
                        *dev = S_ISBLK(st.st_mode) ? st.st_rdev : st.st_dev;
                        return 0;
                }
                if (errno != ENOENT)
                        return -errno;
                slash = strrchr(buf, '/');
                if (!slash || slash == buf)
                        return -ENOENT;
                *slash = '\0';
        }
}

/* The scheduler attribute of the whole disk holding dev ("/sys/block/NAME/queue/scheduler");
 * -ENODEV when dev is no block device (tmpfs, overlay, NFS). */
static int scheduler_path(dev_t dev, char *name, size_t nlen, char *path, size_t plen)
{
        char link[128], real[PATH_MAX], probe[PATH_MAX + 16];
        const char *base;

        snprintf(link, sizeof(link), "/sys/dev/block/%u:%u", major(dev), minor(dev));
        if (!realpath(link, real))
                return errno == ENOENT ? -ENODEV : -errno;
        /* a partition's attributes are its disk's */
        snprintf(probe, sizeof(probe), "%s/partition", real);
        if (access(probe, F_OK) == 0) {
                char *slash = strrchr(real, '/');
                if (slash)
                        *slash = '\0';
        }
        base = strrchr(real, '/');
        base = base ? base + 1 : real;
        snprintf(name, nlen, "%s", base);
        if ((size_t)snprintf(path, plen, "/sys/block/%s/queue/scheduler", base) >= plen)
                return -ENAMETOOLONG;
        return access(path, F_OK) == 0 ? 0 : -ENODEV;
}

/* The selected scheduler ("[x]") and whether want is offered, from a scheduler attribute. */
static int read_scheduler(const char *path, char *cur, size_t clen, const char *want, bool *offered,
                          char *list, size_t llen)
{
        char *text = NULL, *save = NULL, *tok;
        size_t len = 0, o = 0;
        int r = read_full_file(path, 0, 4096, &text, &len);

        if (r < 0)
                return r;
        cur[0] = list[0] = '\0';
        *offered = false;
        for (tok = strtok_r(text, " \n", &save); tok; tok = strtok_r(NULL, " \n", &save)) {
                size_t n = strlen(tok);
                if (tok[0] == '[' && n > 2 && tok[n - 1] == ']') {
                        tok[n - 1] = '\0';
                        tok++;
                        snprintf(cur, clen, "%s", tok);
                }
                if (streq(tok, want))
                        *offered = true;
                if (o < llen)
                        o += (size_t)snprintf(list + o, llen - o, "%s%s", o ? ", " : "", tok);
        }
        /* a device with a single scheduler lists it without brackets */
        if (!cur[0] && list[0] && !strchr(list, ','))
                snprintf(cur, clen, "%s", list);
        free(text);
        return 0;
}

/* Switches one device; done[] remembers the devices already switched (n of them). */
static int switch_one(restore_t *r, const job_spec_t *j, const char *file, dev_t *done, size_t *n,
                      size_t max, kvlist_t *effective, char *err, size_t errlen)
{
        char name[64], path[PATH_MAX], cur[64], list[512], key[96];
        bool offered;
        dev_t dev;
        int fd, rc;

        if ((rc = device_of(file, &dev)) < 0)
                return errorf(err, errlen, rc, "job %s: ioscheduler: %s: %s", j->name, file,
                              strerror(-rc));
        for (size_t i = 0; i < *n; i++)
                if (done[i] == dev)
                        return 0;
        rc = scheduler_path(dev, name, sizeof(name), path, sizeof(path));
        if (rc == -ENODEV)
                return errorf(err, errlen, rc,
                              "job %s: ioscheduler=%s: %s is on no block device with an I/O "
                              "scheduler (device %u:%u)",
                              j->name, j->ioscheduler, file, major(dev), minor(dev));
        if (rc < 0 || (rc = read_scheduler(path, cur, sizeof(cur), j->ioscheduler, &offered, list,
                                           sizeof(list))) < 0)
                return errorf(err, errlen, rc, "job %s: ioscheduler: %s: %s", j->name, path,
                              strerror(-rc));
        if (!offered)
                return errorf(err, errlen, -EINVAL,
                              "job %s: ioscheduler=%s: device %s offers %s", j->name,
                              j->ioscheduler, name, list);
        if (!streq(cur, j->ioscheduler)) {
                if ((rc = restore_save_attr(r, path, cur)) < 0)
                        return errorf(err, errlen, rc,
                                      "job %s: ioscheduler: cannot record %s's scheduler %s in "
                                      "the restore record: %s",
                                      j->name, name, cur, strerror(-rc));
                fd = open(path, O_WRONLY | O_CLOEXEC | O_NOFOLLOW);
                if (fd < 0 || write(fd, j->ioscheduler, strlen(j->ioscheduler)) < 0) {
                        rc = -errno;
                        if (fd >= 0)
                                close(fd);
                        return errorf(err, errlen, rc, "job %s: ioscheduler=%s: writing %s: %s",
                                      j->name, j->ioscheduler, path, strerror(-rc));
                }
                close(fd);
                if ((rc = read_scheduler(path, cur, sizeof(cur), j->ioscheduler, &offered, list,
                                         sizeof(list))) < 0)
                        return errorf(err, errlen, rc, "job %s: ioscheduler: %s: %s", j->name,
                                      path, strerror(-rc));
                if (!streq(cur, j->ioscheduler))
                        return errorf(err, errlen, -EIO,
                                      "job %s: ioscheduler=%s: device %s still uses %s after "
                                      "the switch",
                                      j->name, j->ioscheduler, name, cur);
        }
        if (*n < max)
                done[(*n)++] = dev;
        snprintf(key, sizeof(key), "ioscheduler.%s", name);
        kv_set(effective, key, cur);
        return 0;
}

int iosched_apply(const agent_config_t *cfg, restore_t *r, const job_spec_t *jobs, size_t njobs,
                  const char *work_dir, const char *agent, kvlist_t *effective, char *err,
                  size_t errlen)
{
        dev_t done[64];
        size_t ndone = 0;

        for (size_t i = 0; i < njobs; i++) {
                const job_spec_t *j = &jobs[i];
                const engine_ops_t *e = engine_find(j->ioengine);
                unsigned clones = strempty(j->filename) && j->numjobs ? j->numjobs : 1;
                if (strempty(j->ioscheduler))
                        continue;
                if (!e || (e->flags & (ENGINE_NO_FILES | ENGINE_OWN_FILES)))
                        return errorf(err, errlen, -EINVAL,
                                      "job %s: ioscheduler: ioengine=%s uses no local device",
                                      j->name, j->ioengine);
                for (unsigned c = 0; c < clones; c++) {
                        layout_file_t *files = NULL;
                        size_t n = 0;
                        int rc = layout_plan(cfg, j, agent, work_dir, c, true, &files, &n, err,
                                             errlen);
                        for (size_t f = 0; rc >= 0 && f < n; f++)
                                rc = switch_one(r, j, files[f].path, done, &ndone,
                                                sizeof(done) / sizeof(done[0]), effective, err,
                                                errlen);
                        layout_files_free(&files, n);
                        if (rc < 0)
                                return rc;
                }
        }
        return 0;
}
