/* Helpers unit tests share: a scratch directory made and removed whole, and assert_contains.
 * Include after cmocka.h. */
#pragma once

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define assert_contains(hay, needle)                                                               \
        do {                                                                                       \
                if (!strstr((hay), (needle)))                                                      \
                        fail_msg("'%s' does not mention '%s'", (hay), (needle));                   \
        } while (0)

/* Makes /tmp/NAME.XXXXXX into dir (len >= strlen(name) + 13); 0 or -1. */
static inline int unit_scratch_make(char *dir, size_t len, const char *name)
{
        snprintf(dir, len, "/tmp/%s.XXXXXX", name);
        return mkdtemp(dir) ? 0 : -1;
}

/* Removes dir and everything in it. */
static inline void unit_scratch_remove(const char *dir)
{
        pid_t pid = fork();
        if (pid == 0) {
                execl("/bin/rm", "rm", "-rf", "--", dir, (char *)NULL);
                _exit(127);
        }
        if (pid > 0)
                waitpid(pid, NULL, 0);
}
