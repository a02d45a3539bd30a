/* Small helpers shared by every module: one-line error messages, directory creation. */
#include "util.h"

#include <stdarg.h>
#include <stdio.h>
#include <sys/stat.h>

int errorf(char *err, size_t errlen, int r, const char *fmt, ...)
{
        va_list ap;
        if (err && errlen) {
                va_start(ap, fmt);
                vsnprintf(err, errlen, fmt, ap);
                va_end(ap);
        }
        return r;
}

int mkdir_p(const char *path, mode_t mode)
{
        char buf[4096];
        if (snprintf(buf, sizeof(buf), "%s", path) >= (int)sizeof(buf))
                return -ENAMETOOLONG;
        for (char *p = buf + 1; *p; p++)
                if (*p == '/') {
                        *p = 0;
                        if (mkdir(buf, 0755) < 0 && errno != EEXIST)
                                return -errno;
                        *p = '/';
                }
        if (mkdir(buf, mode) < 0 && errno != EEXIST)
                return -errno;
        return 0;
}
