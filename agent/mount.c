/* Client NFS mounts: checks, the restore entry, mount(8) by absolute path, mountinfo read-back. */
#include "mount.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "helper.h"
#include "mount-options.h"
#include "mountinfo.h"
#include "policy.h"
#include "util.h"

#define MOUNT_TIMEOUT_MS 180000 /* mount.nfs retries for 2 minutes by default */

int nfs_mount_options(const kvlist_t *opts, char *buf, size_t len, char *err, size_t errlen)
{
        return mount_options_render(opts, buf, len, err, errlen);
}

static bool run_id_ok(const char *s)
{
        size_t n = s ? strlen(s) : 0;
        if (n == 0 || n > 128 || streq(s, ".") || streq(s, ".."))
                return false;
        for (size_t i = 0; i < n; i++)
                if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
                      (s[i] >= '0' && s[i] <= '9') || s[i] == '-' || s[i] == '_' || s[i] == '.'))
                        return false;
        return true;
}

static bool server_ok(const char *s)
{
        size_t n = s ? strlen(s) : 0;
        if (n == 0 || n > 253 || s[0] == '-')
                return false;
        for (size_t i = 0; i < n; i++)
                if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
                      (s[i] >= '0' && s[i] <= '9') || strchr("-.:[]", s[i])))
                        return false;
        return true;
}

static bool export_ok(const char *s)
{
        size_t n = s ? strlen(s) : 0;
        if (n == 0 || n >= 1024 || s[0] != '/')
                return false;
        for (size_t i = 0; i < n; i++)
                if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f || s[i] == ',')
                        return false;
        return !strstr(s, "/../") && !(n >= 3 && streq(s + n - 3, "/.."));
}

/* 1 when the directory fd (O_PATH will do) stands for has no entries, 0 when it has, -errno. */
static int dir_empty(int fd)
{
        int dfd = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        DIR *d = dfd < 0 ? NULL : fdopendir(dfd);
        if (!d) {
                int e = -errno;
                if (dfd >= 0)
                        close(dfd);
                return e;
        }
        struct dirent *de;
        int empty = 1;
        while ((de = readdir(d)))
                if (!streq(de->d_name, ".") && !streq(de->d_name, "..")) {
                        empty = 0;
                        break;
                }
        closedir(d);
        return empty;
}

/* The helper's own message: its last non-empty line. mount.nfs prints its error last; what
 * the helpers it starts print comes before (start-statd: "Created symlink ... rpc-statd"). */
static void last_line(char *s)
{
        size_t n = strlen(s);
        while (n > 0 && (s[n - 1] == '\n' || s[n - 1] == ' '))
                s[--n] = 0;
        char *nl = strrchr(s, '\n');
        if (nl)
                memmove(s, nl + 1, strlen(nl + 1) + 1);
}

int nfs_mount(const agent_config_t *cfg, restore_t *r, const char *run_id, const char *server,
              const char *export, const kvlist_t *options, char *dir, size_t dirlen,
              kvlist_t *effective, char *err, size_t errlen)
{
        return nfs_mount_fs(cfg, r, "nfs", run_id, server, export, options, dir, dirlen,
                            effective, err, errlen);
}

int nfs_mount_fs(const agent_config_t *cfg, restore_t *r, const char *fstype, const char *run_id,
                 const char *server, const char *export, const kvlist_t *options, char *dir,
                 size_t dirlen, kvlist_t *effective, char *err, size_t errlen)
{
        char opts[MOUNT_OPTIONS_MAX], root[PATH_MAX], path[PATH_MAX], source[1400];
        kvlist_t none = {0};
        int ret = nfs_mount_options(options ? options : &none, opts, sizeof(opts), err, errlen);
        if (ret < 0)
                return ret;
        if (!run_id_ok(fstype) || fstype[0] == '.')
                return errorf(err, errlen, -EINVAL, "mount: bad file system type '%s'",
                              fstype ? fstype : "");
        if (!run_id_ok(run_id))
                return errorf(err, errlen, -EINVAL,
                              "mount: run id '%s' must be 1-128 of A-Z a-z 0-9 . _ -",
                              run_id ? run_id : "");
        if (!server_ok(server))
                return errorf(err, errlen, -EINVAL,
                              "mount: server '%s' is not a host name or address",
                              server ? server : "");
        if (!export_ok(export))
                return errorf(err, errlen, -EINVAL,
                              "mount: export '%s' must be an absolute path without .. or commas",
                              export ? export : "");
        bool v6 = strchr(server, ':') && server[0] != '[';
        snprintf(source, sizeof(source), "%s%s%s:%s", v6 ? "[" : "", server, v6 ? "]" : "",
                 export);

        if (!cfg->mount_root || cfg->mount_root[0] != '/')
                return errorf(err, errlen, -EINVAL, "mount_root: not an absolute path");
        if ((ret = mkdir_p(cfg->mount_root, 0755)) < 0)
                return errorf(err, errlen, ret, "mount_root %s: cannot create it: %s",
                              cfg->mount_root, strerror(-ret));
        /* mountinfo shows resolved paths: work with the resolved mount root. */
        if (!realpath(cfg->mount_root, root))
                return errorf(err, errlen, -errno, "mount_root %s: %m", cfg->mount_root);
        if (snprintf(path, sizeof(path), "%s/%s", root, run_id) >= (int)sizeof(path))
                return errorf(err, errlen, -ENAMETOOLONG, "mount: mount point too long");
        /* Made (mkdirat) and held beneath mount_root through the path policy: canonical, and
         * no directory on the way writable by anyone but root, since mount(8) takes it by name. */
        char why[1024];
        policy_undo_t made = {0};
        int mfd = -1;
        if ((ret = policy_open(cfg, path, PATH_MOUNT, O_PATH | O_DIRECTORY | O_CREAT, 0755, &made,
                               &mfd, why, sizeof(why))) < 0)
                return errorf(err, errlen, ret, "mount: %s", why);
        bool created = made.n > 0;
        if (!created) {
                int m = mountinfo_find(NULL, path, NULL);
                if (m < 0)
                        ret = errorf(err, errlen, m, "mount: reading mountinfo: %s", strerror(-m));
                else if (m > 0)
                        ret = errorf(err, errlen, -EBUSY,
                                     "mount: %s is already a mount point; refusing to mount over "
                                     "it",
                                     path);
                else if ((m = dir_empty(mfd)) < 0)
                        ret = errorf(err, errlen, m, "mount: %s: %s", path, strerror(-m));
                else if (m == 0)
                        ret = errorf(err, errlen, -ENOTEMPTY,
                                     "mount: %s is not empty; refusing to mount over it", path);
                if (ret < 0)
                        goto out;
        }
        if ((ret = restore_save_mount(r, cfg->umount_bin, path, created)) < 0) {
                ret = errorf(err, errlen, ret, "mount: saving the restore record failed: %s",
                             strerror(-ret));
                goto out;
        }

        const char *argv[8];
        size_t a = 0;
        argv[a++] = cfg->mount_bin;
        argv[a++] = "-t";
        argv[a++] = fstype;
        if (opts[0]) {
                argv[a++] = "-o";
                argv[a++] = opts;
        }
        argv[a++] = source;
        argv[a++] = path;
        argv[a] = NULL;
        char out[1024];
        int status = 0;
        ret = helper_run(argv, MOUNT_TIMEOUT_MS, out, sizeof(out), &status);
        if (ret < 0 || status != 0) {
                if (ret < 0) {
                        ret = errorf(err, errlen, ret, "mount: running %s: %s", cfg->mount_bin,
                                     strerror(-ret));
                        goto out;
                }
                last_line(out);
                ret = errorf(err, errlen, -EIO, "mount %s on %s failed (exit %d): %s", source, path,
                             status, out[0] ? out : "no message");
                goto out;
        }
        /* Mounted: the directory is the restore record's to remove now. */
        policy_undo_clear(&made);

        mountinfo_entry_t e;
        /* mountinfo names where the kernel put it: exactly the path checked, or it is an error. */
        int m = mountinfo_find(NULL, path, &e);
        if (m <= 0) {
                ret = errorf(err, errlen, m < 0 ? m : -EIO,
                             "mount: %s exited 0 but %s is not in /proc/self/mountinfo",
                             cfg->mount_bin, path);
                goto out;
        }
        if (effective &&
            (kv_set(effective, "mount_options", e.super_options) < 0 ||
             kv_set(effective, "mount_flags", e.mount_options) < 0 ||
             kv_set(effective, "source", e.source) < 0 || kv_set(effective, "fstype", e.fstype) < 0 ||
             kv_set(effective, "mountpoint", path) < 0))
                ret = errorf(err, errlen, -ENOMEM, "mount: out of memory");
        mountinfo_entry_clear(&e);
        if (ret == 0 && dir && snprintf(dir, dirlen, "%s", path) >= (int)dirlen)
                ret = errorf(err, errlen, -ENAMETOOLONG, "mount: mount point too long");
out:
        /* A mount point made for a mount that did not happen goes again. */
        policy_undo_run(cfg, &made, NULL, 0);
        if (mfd >= 0)
                close(mfd);
        return ret;
}

int nfs_umount(const agent_config_t *cfg, const char *dir, char *err, size_t errlen)
{
        char root[PATH_MAX];
        if (!dir || !cfg->mount_root || !realpath(cfg->mount_root, root))
                return errorf(err, errlen, -EINVAL, "umount: no mount root");
        size_t n = strlen(root);
        if (strncmp(dir, root, n) != 0 || dir[n] != '/' || !run_id_ok(dir + n + 1))
                return errorf(err, errlen, -EPERM,
                              "umount: %s is not a directory directly under mount_root %s", dir,
                              root);
        int m = mountinfo_find(NULL, dir, NULL);
        if (m < 0)
                return errorf(err, errlen, m, "umount: reading mountinfo: %s", strerror(-m));
        if (m > 0) {
                /* umount(8) takes the name: it must still be canonical, in a directory only root
                 * can change. */
                char why[1024];
                int fd, r2 = policy_open(cfg, dir, PATH_MOUNT, O_PATH | O_DIRECTORY, 0, NULL, &fd,
                                         why, sizeof(why));
                if (r2 < 0)
                        return errorf(err, errlen, r2, "umount: %s", why);
                close(fd);
                const char *argv[] = {cfg->umount_bin, dir, NULL};
                char out[1024];
                int status = 0;
                int ret = helper_run(argv, MOUNT_TIMEOUT_MS, out, sizeof(out), &status);
                if (ret < 0)
                        return errorf(err, errlen, ret, "umount: running %s: %s", cfg->umount_bin,
                                      strerror(-ret));
                if (status != 0) {
                        last_line(out);
                        return errorf(err, errlen, -EBUSY, "umount %s failed (exit %d): %s", dir,
                                      status, out[0] ? out : "no message");
                }
        }
        if (rmdir(dir) < 0 && errno != ENOENT)
                return errorf(err, errlen, -errno, "umount: removing %s: %m", dir);
        return 0;
}
