/* The agent's path policy: allow_paths, system directories, block devices. */
#include "policy.h"

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "util.h"

static const char *const system_dirs[] = {"/etc", "/proc", "/sys", "/dev", "/boot", "/usr"};
static const char *const purposes[] = {"export", "job file", "mount point"};

/* realpath() of the longest existing prefix of path, with the rest appended as given. */
static int resolve(const char *path, char *out, size_t len)
{
        char buf[PATH_MAX];
        if (snprintf(buf, sizeof(buf), "%s", path) >= (int)sizeof(buf))
                return -ENAMETOOLONG;
        size_t n = strlen(buf);
        while (n > 1 && buf[n - 1] == '/')
                buf[--n] = 0;
        char *cut = NULL; /* where the non-existing rest begins in path */
        for (;;) {
                char real[PATH_MAX];
                if (realpath(buf, real)) {
                        const char *rest = cut ? path + (cut - buf) : "";
                        while (*rest == '/')
                                rest++;
                        int w = snprintf(out, len, "%s%s%s", real,
                                         *rest && !streq(real, "/") ? "/" : "", rest);
                        if (w < 0 || (size_t)w >= len)
                                return -ENAMETOOLONG;
                        /* Drop doubled and trailing slashes of the rest. */
                        char *o = out;
                        for (char *p = out; *p; p++)
                                if (!(*p == '/' && (p[1] == '/' || (p[1] == 0 && o > out))))
                                        *o++ = *p;
                        *o = 0;
                        return 0;
                }
                if (errno != ENOENT)
                        return -errno;
                char *slash = strrchr(buf, '/');
                if (!slash || slash == buf) {
                        /* Only "/" exists for sure; realpath("/") never fails. */
                        buf[1] = 0;
                        cut = buf + 1;
                        continue;
                }
                *slash = 0;
                cut = slash;
        }
}

static bool under(const char *path, const char *dir)
{
        size_t n = strlen(dir);
        if (n == 1 && dir[0] == '/')
                return true;
        return strncmp(path, dir, n) == 0 && (path[n] == 0 || path[n] == '/');
}

/* Checks resolved against one allow_paths entry (resolved the same way). */
static bool allowed_by(const char *resolved, const char *entry)
{
        char real[PATH_MAX];
        if (!entry || entry[0] != '/' || resolve(entry, real, sizeof(real)) < 0)
                return false;
        return !streq(real, "/") && under(resolved, real);
}

int policy_resolve_path(const agent_config_t *cfg, const char *path, int purpose, char *out,
                        size_t outlen, char *err, size_t errlen)
{
        if (purpose < PATH_EXPORT || purpose > PATH_MOUNT)
                return errorf(err, errlen, -EINVAL, "policy: unknown purpose %d", purpose);
        const char *what = purposes[purpose];
        size_t n = path ? strlen(path) : 0;
        if (n == 0 || path[0] != '/' || n >= PATH_MAX)
                return errorf(err, errlen, -EINVAL, "%s '%s': must be an absolute path (1-%d)",
                              what, path ? path : "", PATH_MAX - 1);
        for (const char *p = path; (p = strstr(p, "..")); p += 2)
                if (p[-1] == '/' && (p[2] == 0 || p[2] == '/'))
                        return errorf(err, errlen, -EINVAL, "%s '%s': '..' is not allowed", what,
                                      path);
        char real[PATH_MAX];
        int r = resolve(path, real, sizeof(real));
        if (r < 0)
                return errorf(err, errlen, r, "%s '%s': cannot resolve it: %s", what, path,
                              strerror(-r));
        struct stat st;
        bool exists = stat(real, &st) == 0;
        bool blockdev = exists && S_ISBLK(st.st_mode);
        if (streq(real, "/"))
                return errorf(err, errlen, -EPERM, "%s '%s': / is never allowed", what, path);
        for (size_t i = 0; i < ELEMENTSOF(system_dirs); i++) {
                /* A block device under /dev is one exception for job files; /dev/shm, the
                 * memory file system fio users benchmark RAM with, the other. */
                if (purpose == PATH_JOB_FILE && streq(system_dirs[i], "/dev") &&
                    (blockdev || under(real, "/dev/shm")))
                        continue;
                if (under(real, system_dirs[i]))
                        return errorf(err, errlen, -EPERM,
                                      "%s '%s'%s%s%s: %s and below is never allowed", what,
                                      path, streq(real, path) ? "" : " (resolves to ",
                                      streq(real, path) ? "" : real, streq(real, path) ? "" : ")",
                                      system_dirs[i]);
        }
        if (exists && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) {
                if (!blockdev || purpose != PATH_JOB_FILE)
                        return errorf(err, errlen, -EPERM,
                                      "%s '%s': a device or special file is not allowed here",
                                      what, path);
                if (!cfg->allow_block_devices)
                        return errorf(err, errlen, -EPERM,
                                      "job file '%s': a block device; allowed only with "
                                      "allow_block_devices=true in the agent config",
                                      path);
        }
        bool ok = false;
        if (cfg->allow_paths.n > 0) {
                for (size_t i = 0; !ok && i < cfg->allow_paths.n; i++)
                        ok = allowed_by(real, cfg->allow_paths.v[i]);
        } else {
                char work[PATH_MAX];
                if (cfg->work_dir)
                        snprintf(work, sizeof(work), "%s", cfg->work_dir);
                else
                        snprintf(work, sizeof(work), "%s/work",
                                 cfg->state_dir ? cfg->state_dir : "/var/lib/iofleet-agent");
                ok = allowed_by(real, work) || allowed_by(real, cfg->mount_root);
        }
        if (!ok)
                return errorf(err, errlen, -EPERM,
                              "%s '%s'%s%s%s: outside allow_paths (%s in the agent config)", what,
                              path, streq(real, path) ? "" : " (resolves to ",
                              streq(real, path) ? "" : real, streq(real, path) ? "" : ")",
                              cfg->allow_paths.n ? "set" : "default: work_dir and mount_root");
        if (out && snprintf(out, outlen, "%s", real) >= (int)outlen)
                return errorf(err, errlen, -ENAMETOOLONG, "%s '%s': resolved path too long",
                              what, path);
        return 0;
}

int policy_check_path(const agent_config_t *cfg, const char *path, int purpose, char *err,
                      size_t errlen)
{
        return policy_resolve_path(cfg, path, purpose, NULL, 0, err, errlen);
}
