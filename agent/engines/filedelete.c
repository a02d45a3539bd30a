/* filedelete engine: unlinks each file (laid out first) and does no I/O to it, as fio's
 * filedelete; the unlink's latency is the job's. */
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include "fileops.h"

static int filedelete_op(void *data, int dirfd, const char *name)
{
        return unlinkat(dirfd, name, 0) < 0 ? -errno : 0;
}

FILEOPS_ENGINE(filedelete, "filedelete", 0, filedelete_op);
