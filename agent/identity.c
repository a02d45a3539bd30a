/* Who this agent is: a UUID kept in its state directory, its hostname and the kernel's boot id. */
#include "identity.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <uuid/uuid.h>

#include "fileio.h"
#include "util.h"

/* The first line of a small file (at most 4 KiB), without its newline, cut to fit in buf. */
static int read_line(const char *path, char *buf, size_t len)
{
        _cleanup_(freep) char *data = NULL;
        int r = read_full_file(path, 0, 4096, &data, NULL);
        if (r < 0)
                return r;
        snprintf(buf, len, "%.*s", (int)strcspn(data, "\n"), data);
        return 0;
}

int identity_load(const char *state_dir, identity_t *id, char *err, size_t errlen)
{
        char path[4096], tmp[4200], line[128];
        uuid_t u;
        int r;

        memset(id, 0, sizeof(*id));
        if (gethostname(id->hostname, sizeof(id->hostname) - 1) < 0)
                snprintf(id->hostname, sizeof(id->hostname), "unknown");
        if (read_line("/proc/sys/kernel/random/boot_id", id->boot_id, sizeof(id->boot_id)) < 0)
                id->boot_id[0] = 0;

        snprintf(path, sizeof(path), "%s/agent-id", state_dir);
        r = read_line(path, line, sizeof(line));
        if (r == 0) {
                if (uuid_parse(line, u) < 0) {
                        snprintf(err, errlen,
                                 "%s: '%s' is not a UUID (remove the file to make a new identity)",
                                 path, line);
                        return -EINVAL;
                }
                uuid_unparse_lower(u, id->id);
                return 0;
        }
        if (r != -ENOENT) {
                snprintf(err, errlen, "%s: %s", path, strerror(-r));
                return r;
        }
        if ((r = mkdir_p(state_dir, 0750)) < 0) {
                snprintf(err, errlen, "state directory %s: %s", state_dir, strerror(-r));
                return r;
        }
        uuid_generate_random(u);
        uuid_unparse_lower(u, id->id);
        /* Written aside and renamed, so a crash never leaves half an identity. */
        snprintf(tmp, sizeof(tmp), "%s.tmp", path);
        {
                _cleanup_(closep) int fd =
                    open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
                char text[64];
                int n = snprintf(text, sizeof(text), "%s\n", id->id);
                if (fd < 0 || write(fd, text, n) != n || fsync(fd) < 0 || rename(tmp, path) < 0) {
                        r = -errno;
                        snprintf(err, errlen, "%s: %s", path, strerror(errno));
                        unlink(tmp);
                        return r;
                }
        }
        return 0;
}
