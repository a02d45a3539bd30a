/* A job's paths, each clone's, as the layout names them, checked through the path policy. */
#include "policy.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engine.h"
#include "layout.h"
#include "util.h"

int policy_job_dir(const job_spec_t *j, const char *work_dir, char *buf, size_t len)
{
        int n;
        if (strempty(j->directory))
                n = snprintf(buf, len, "%s", work_dir ? work_dir : "");
        else if (j->directory[0] == '/')
                n = snprintf(buf, len, "%s", j->directory);
        else
                n = snprintf(buf, len, "%s/%s", work_dir ? work_dir : "", j->directory);
        return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

int policy_check_job(const agent_config_t *cfg, const job_spec_t *j, const char *work_dir,
                     const char *agent, char *err, size_t errlen)
{
        const engine_ops_t *eng = j->ioengine ? engine_find(j->ioengine) : NULL;
        char dir[PATH_MAX], e[1024];
        layout_file_t *files = NULL;
        size_t n = 0;
        int r;

        if (eng && (eng->flags & ENGINE_OWN_FILES))
                return 0;
        if (j->ioengine && streq(j->ioengine, "metadata")) {
                int fd;
                if (policy_job_dir(j, work_dir, dir, sizeof(dir)) < 0)
                        return errorf(err, errlen, -ENAMETOOLONG, "job %s: directory too long",
                                      j->name);
                r = policy_open(cfg, dir, PATH_JOB_DIR, O_PATH | O_DIRECTORY, 0, NULL, &fd, e,
                                sizeof(e));
                if (r == -ENOENT)
                        return errorf(err, errlen, r, "job %s: directory=%s does not exist",
                                      j->name, dir);
                if (r < 0)
                        return errorf(err, errlen, r, "job %s: directory=%s: %s", j->name,
                                      j->directory ? j->directory : dir, e);
                close(fd);
                return 0;
        }
        /* The names of every clone: filename_format differs by $jobnum, filename does not. */
        for (unsigned clone = 0; clone < (strempty(j->filename) && j->numjobs ? j->numjobs : 1);
             clone++) {
                r = layout_plan(cfg, j, agent, work_dir, clone,
                                !(eng && (eng->flags & ENGINE_NO_FILES)), &files, &n, err, errlen);
                if (r < 0)
                        return r;
                layout_files_free(&files, n);
        }
        return 0;
}

int policy_unlink(const agent_config_t *cfg, const char *path, char *err, size_t errlen)
{
        const char *slash = strrchr(path ? path : "", '/');
        char dir[PATH_MAX], e[1024];
        struct stat st;
        int dfd, r;

        if (!slash || !slash[1] || streq(slash + 1, ".") || streq(slash + 1, "..") ||
            (size_t)(slash - path) >= sizeof(dir))
                return errorf(err, errlen, -EINVAL, "%s: not a file's path", path ? path : "");
        snprintf(dir, sizeof(dir), "%.*s", slash == path ? 1 : (int)(slash - path), path);
        /* The directory beneath allow_paths, then the name in it, never followed. */
        r = policy_open(cfg, dir, PATH_JOB_DIR, O_PATH | O_DIRECTORY, 0, NULL, &dfd, e, sizeof(e));
        if (r < 0)
                return errorf(err, errlen, r, "removing %s: %s", path, e);
        if (fstatat(dfd, slash + 1, &st, AT_SYMLINK_NOFOLLOW) < 0)
                r = -errno;
        else if (!S_ISREG(st.st_mode))
                r = -EPERM;
        else if (unlinkat(dfd, slash + 1, 0) < 0)
                r = -errno;
        close(dfd);
        if (r == -EPERM)
                return errorf(err, errlen, r, "removing %s: not a regular file; left alone", path);
        if (r < 0)
                return errorf(err, errlen, r, "removing %s: %s", path, strerror(-r));
        return 0;
}
