/* Plan sysctls written under the sysctl root after their old values went to the restore
 * record, and read back. */
#include "sysctl.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "fileio.h"
#include "sysctl-name.h"
#include "util.h"

int sysctl_check(const kvlist_t *settings, char *err, size_t errlen)
{
        return sysctl_settings_check(settings, err, errlen);
}

/* A sysctl's value as the kernel shows it, without its trailing newlines; -EFBIG when it does
 * not fit in len. */
static int read_value(const char *path, char *buf, size_t len)
{
        _cleanup_(freep) char *data = NULL;
        size_t n;
        int r = read_full_file(path, READ_FULL_NOFOLLOW, len - 1, &data, &n);
        if (r < 0)
                return r;
        while (n > 0 && data[n - 1] == '\n')
                n--;
        memcpy(buf, data, n);
        buf[n] = 0;
        return 0;
}

static int write_value(const char *path, const char *value)
{
        /* O_TRUNC matters for a scratch tree; procfs ignores it. One write, as sysctl(8)
         * does: the kernel parses the whole buffer at once. */
        int fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC | O_NOFOLLOW);
        if (fd < 0)
                return -errno;
        char buf[SYSCTL_VALUE_MAX + 2];
        int n = snprintf(buf, sizeof(buf), "%s\n", value);
        ssize_t w;
        do
                w = write(fd, buf, (size_t)n);
        while (w < 0 && errno == EINTR);
        int ret = w < 0 ? -errno : (w != n ? -EIO : 0);
        if (close(fd) < 0 && ret == 0)
                ret = -errno;
        return ret;
}

int sysctl_apply(const char *root, restore_t *r, const kvlist_t *settings, kvlist_t *effective,
                 char *err, size_t errlen)
{
        if (strempty(root) || root[0] != '/')
                return errorf(err, errlen, -EINVAL, "sysctl_root: '%s' is not an absolute path",
                              root ? root : "");
        int ret = sysctl_settings_check(settings, err, errlen);
        if (ret < 0)
                return ret;
        for (size_t i = 0; i < settings->n; i++) {
                const char *name = settings->v[i].key, *value = settings->v[i].value;
                char rel[SYSCTL_NAME_MAX + 1], path[PATH_MAX];
                if ((ret = sysctl_name_to_path(name, rel, sizeof(rel))) < 0 ||
                    snprintf(path, sizeof(path), "%s/%s", root, rel) >= (int)sizeof(path))
                        return errorf(err, errlen, ret < 0 ? ret : -ENAMETOOLONG,
                                      "sysctl %s: bad name or root", name);
                ret = restore_save_sysctl(r, root, name);
                if (ret == -ENOENT)
                        return errorf(err, errlen, ret, "sysctl %s: no such setting (%s)", name,
                                      path);
                if (ret < 0)
                        return errorf(err, errlen, ret,
                                      "sysctl %s: saving its current value failed: %s", name,
                                      strerror(-ret));
                ret = write_value(path, value);
                if (ret < 0)
                        return errorf(err, errlen, ret, "sysctl %s: the kernel refused '%s': %s",
                                      name, value, strerror(-ret));
                char back[SYSCTL_VALUE_MAX * 4];
                ret = read_value(path, back, sizeof(back));
                if (ret < 0)
                        return errorf(err, errlen, ret, "sysctl %s: reading it back failed: %s",
                                      name, strerror(-ret));
                if (effective && (ret = kv_set(effective, name, back)) < 0)
                        return errorf(err, errlen, ret, "sysctl %s: out of memory", name);
        }
        return 0;
}
