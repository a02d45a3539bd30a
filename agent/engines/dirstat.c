/* dirstat engine: stats a directory at each of the job's file names (made before the run) and
 * does no I/O, as fio's dirstat; the lookup's latency is the job's. */
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>

#include "fileops.h"

static int dirstat_op(void *data, int dirfd, const char *name)
{
        struct stat st;
        return fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0 ? -errno : 0;
}

FILEOPS_ENGINE(dirstat, "dirstat", ENGINE_DIR_LAYOUT, dirstat_op);
