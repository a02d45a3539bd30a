/* Runs a helper program (mount, umount) by absolute path with an argv array, no shell, and
 * collects what it printed. */
#pragma once

#include <stddef.h>

/* Runs argv[0] (an absolute path) with argv, stdin from /dev/null, a fixed environment
 * (PATH=/usr/sbin:/usr/bin:/sbin:/bin, LC_ALL=C) and stdout+stderr collected into out (NUL
 * terminated, cut at outlen - 1). Kills it after timeout_ms (0 = no limit). Returns 0 when it
 * ran, with *status its exit code or 128 + the signal that ended it; -EINVAL for a relative
 * path, -ETIMEDOUT, or the -errno of posix_spawn. */
int helper_run(const char *const argv[], int timeout_ms, char *out, size_t outlen, int *status);
