/* libFuzzer target for the agent's host-state parsers: the bytes as a mountinfo line, as
 * mount settings and sysctls (key=value lines), and as a restore record entry file loaded by
 * restore_open() (never applied). */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz.h"
#include "kv.h"
#include "log.h"
#include "mount-options.h"
#include "mountinfo.h"
#include "restore.h"
#include "sysctl-name.h"
#include "util.h"

static char state[64];

static void cleanup(void)
{
        char dir[128];
        snprintf(dir, sizeof(dir), "%s/restore", state);
        rmdir(dir);
        rmdir(state);
}

static void load_record(const uint8_t *data, size_t size)
{
        char dir[128], path[160];
        if (!state[0]) {
                strcpy(state, "/tmp/fuzz-host.XXXXXX");
                CHECK(mkdtemp(state));
                log_setup("fuzz-host", LOG_ERR);
                atexit(cleanup);
        }
        snprintf(dir, sizeof(dir), "%s/restore", state);
        CHECK(mkdir_p(dir, 0700) == 0);
        snprintf(path, sizeof(path), "%s/00000001.entry", dir);
        int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        CHECK(fd >= 0);
        CHECK(write(fd, data, size) == (ssize_t)size);
        close(fd);
        restore_t *r = NULL;
        if (restore_open(state, &r) == 0) {
                (void)restore_pending(r);
                restore_close(&r);
        }
        unlink(path);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        if (size > 65536)
                return 0;
        char *s = malloc(size + 1);
        CHECK(s);
        memcpy(s, data, size);
        s[size] = 0;

        mountinfo_entry_t e;
        if (mountinfo_parse_line(s, &e) == 0) {
                CHECK(e.mountpoint[0] == '/' && e.root[0] == '/');
                mountinfo_entry_clear(&e);
        }

        kvlist_t kv = {0};
        char *save = NULL;
        for (char *line = strtok_r(s, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
                char *eq = strchr(line, '=');
                if (eq)
                        *eq = 0;
                kv_push(&kv, line, eq ? eq + 1 : "", 1);
        }
        char buf[MOUNT_OPTIONS_MAX], err[256];
        int r = mount_options_render(&kv, buf, sizeof(buf), err, sizeof(err));
        CHECK((r == 0) == (mount_options_check(&kv, err, sizeof(err)) == 0) ||
              r == -ENAMETOOLONG);
        if (sysctl_settings_check(&kv, err, sizeof(err)) == 0)
                for (size_t i = 0; i < kv.n; i++) {
                        char p[SYSCTL_NAME_MAX + 1];
                        CHECK(sysctl_name_to_path(kv.v[i].key, p, sizeof(p)) == 0);
                        CHECK(!strstr(p, "..") || strstr(p, "..") != p);
                }
        kv_clear(&kv);
        free(s);

        load_record(data, size);
        return 0;
}
