/* filecreate engine: creates each file (open with O_CREAT, empty) and does no I/O to it, as fio's
 * filecreate; the creation's latency is the job's. The files are not laid out first. */
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include "fileops.h"

static int filecreate_op(void *data, int dirfd, const char *name)
{
        int fd = openat(dirfd, name, O_CREAT | O_RDWR | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (fd < 0)
                return -errno;
        close(fd);
        return 0;
}

FILEOPS_ENGINE(filecreate, "filecreate", ENGINE_NO_LAYOUT, filecreate_op);
