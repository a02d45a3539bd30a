/* dirdelete engine: removes a directory at each of the job's file names (made before the run)
 * and does no I/O, as fio's dirdelete; the rmdir's latency is the job's. */
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include "fileops.h"

static int dirdelete_op(void *data, int dirfd, const char *name)
{
        return unlinkat(dirfd, name, AT_REMOVEDIR) < 0 ? -errno : 0;
}

FILEOPS_ENGINE(dirdelete, "dirdelete", ENGINE_DIR_LAYOUT, dirdelete_op);
