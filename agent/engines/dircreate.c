/* dircreate engine: makes a directory at each of the job's file names (mode 0700) and does no
 * I/O, as fio's dircreate; the mkdir's latency is the job's. Nothing is laid out first. */
#include <errno.h>
#include <sys/stat.h>

#include "fileops.h"

static int dircreate_op(void *data, int dirfd, const char *name)
{
        return mkdirat(dirfd, name, 0700) < 0 ? -errno : 0;
}

FILEOPS_ENGINE(dircreate, "dircreate", ENGINE_NO_LAYOUT, dircreate_op);
