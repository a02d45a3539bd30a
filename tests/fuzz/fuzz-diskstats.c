/* libFuzzer target for the agent's /proc/diskstats reader: the bytes line by line through
 * diskstats_parse_line() (a parsed line has a printable name and nothing else), and whole as the
 * file disks_begin() and disks_end() read. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "diskstats.h"
#include "fuzz.h"

static char path[64];

static void cleanup(void)
{
        unlink(path);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        const char *p = (const char *)data, *end = p + size;
        disks_t *d = NULL;
        int fd;

        if (size > (1u << 20))
                return 0;
        while (p < end) {
                const char *nl = memchr(p, '\n', (size_t)(end - p));
                size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);
                diskstat_t s;
                if (diskstats_parse_line(p, len, &s) == 0) {
                        size_t n = strlen(s.name);
                        CHECK(n > 0 && n < sizeof(s.name));
                        for (size_t i = 0; i < n; i++)
                                CHECK(s.name[i] > 0x20 && s.name[i] < 0x7f);
                }
                p += len + 1;
        }
        if (!path[0]) {
                strcpy(path, "/tmp/fuzz-diskstats.XXXXXX");
                fd = mkstemp(path);
                CHECK(fd >= 0);
                close(fd);
                atexit(cleanup);
        }
        fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
        CHECK(fd >= 0);
        CHECK(write(fd, data, size) == (ssize_t)size);
        close(fd);
        CHECK(disks_new("/nonexistent-sysfs", path, &d) == 0);
        CHECK(disks_begin(d, 0) == 0);
        CHECK(disks_add(d, 0x0801) < 0); /* no sysfs: no device */
        CHECK(disks_end(d, 1) == 0);
        CHECK(disks_count(d) == 0);
        disks_free(&d);
        return 0;
}
