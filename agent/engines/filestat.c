/* filestat engine: stats each file (laid out first) and does no I/O to it, as fio's filestat;
 * the lookup's latency is the job's. A final symbolic link is not followed (lstat), as the
 * agent's path policy never follows one. */
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>

#include "fileops.h"

static int filestat_op(void *data, int dirfd, const char *name)
{
        struct stat st;
        return fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0 ? -errno : 0;
}

FILEOPS_ENGINE(filestat, "filestat", 0, filestat_op);
