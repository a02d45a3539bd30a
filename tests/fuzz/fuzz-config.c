/* libFuzzer target for configuration: the bytes as an INI file (a schema with a key of each type,
 * the agent's, coordinator's and CLI's own tables, then as a key file) and as arguments. */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "agent-config.h"
#include "cli.h"
#include "config.h"
#include "coord-config.h"
#include "keys.h"
#include "fuzz.h"
#include "util.h"


/* The agent's keys, plus one of each numeric type. */
typedef struct fcfg {
        char *name;
        char *coordinator;
        char *coordinator_key;
        char *key;
        char *state_dir;
        char *work_dir;
        strv_t roles;
        bool insecure;
        char *log_level;
        uint64_t heartbeat_ns;
        uint64_t lost_after;
        strv_t tags;
        strv_t labels;
} fcfg_t;

#define F(f) offsetof(fcfg_t, f)
static const cfg_item_t items[] = {
    {"name", CFG_STRING, F(name), 0, 0, NULL, "", NULL, NULL, 0},
    {"coordinator", CFG_STRING, F(coordinator), 0, 0, NULL, "", NULL, NULL, 0},
    {"coordinator_key", CFG_STRING, F(coordinator_key), 0, 0, NULL, "", NULL, NULL, 0},
    {"key", CFG_STRING, F(key), 0, 0, NULL, "", NULL, NULL, 0},
    {"state_dir", CFG_STRING, F(state_dir), 0, 0, NULL, "", NULL, NULL, 0},
    {"work_dir", CFG_STRING, F(work_dir), 0, 0, NULL, "", NULL, NULL, 0},
    {"roles", CFG_LIST, F(roles), 0, 0, "storage,client", "", NULL, NULL, 0},
    {"insecure", CFG_BOOL, F(insecure), 0, 0, NULL, "", NULL, NULL, 0},
    {"log_level", CFG_CHOICE, F(log_level), 0, 0, "debug,info,notice,warning,error", "", NULL, NULL,
     0},
    {"heartbeat", CFG_DURATION, F(heartbeat_ns), 10 * NSEC_PER_MSEC, 600 * NSEC_PER_SEC, NULL, "",
     NULL, NULL, 0},
    {"lost_after", CFG_UINT, F(lost_after), 2, 1000, NULL, "", NULL, NULL, 0},
    {"tags", CFG_LIST, F(tags), 0, 0, NULL, "", NULL, NULL, 0},
};
static const cfg_schema_t schema = {"agent", items, sizeof(items) / sizeof(items[0]), F(labels)};

static int fd = -1;
static char path[64];

/* One in-memory file, rewritten for every input. */
static void file_init(void)
{
        if (fd >= 0)
                return;
        fd = memfd_create("fuzz-config", MFD_CLOEXEC);
        CHECK(fd >= 0);
        snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
        file_init();
        return 0;
}

static void check_message(const char *err, size_t errlen)
{
        size_t len = strnlen(err, errlen);

        CHECK(len < errlen);
        CHECK(len > 0);
        CHECK(!memchr(err, '\n', len));
}

static bool word_in(const char *choices, const char *w)
{
        size_t n = strlen(w);
        for (const char *p = choices; *p;) {
                size_t k = strcspn(p, ",");
                if (k == n && strncmp(p, w, n) == 0)
                        return true;
                p += k + (p[k] == ',');
        }
        return false;
}

/* What the loader accepted obeys the table. */
static void check_config(const fcfg_t *c)
{
        for (size_t i = 0; i < c->roles.n; i++)
                CHECK(word_in("storage,client", c->roles.v[i]));
        CHECK(c->roles.n <= 2);
        if (c->log_level)
                CHECK(word_in("debug,info,notice,warning,error", c->log_level));
        CHECK(c->heartbeat_ns == 0 ||
              (c->heartbeat_ns >= 10 * NSEC_PER_MSEC && c->heartbeat_ns <= 600 * NSEC_PER_SEC));
        CHECK(c->lost_after == 0 || (c->lost_after >= 2 && c->lost_after <= 1000));
        for (size_t i = 0; i < c->tags.n; i++)
                CHECK(c->tags.v[i][0] && !strpbrk(c->tags.v[i], ", \t"));
        for (size_t i = 0; i < c->labels.n; i++) {
                const char *eq = strchr(c->labels.v[i], '=');
                CHECK(eq && eq > c->labels.v[i] && eq - c->labels.v[i] <= 64);
                CHECK(strlen(eq + 1) <= 256);
                for (size_t k = 0; k < i; k++) /* one entry per key */
                        CHECK(strncmp(c->labels.v[k], c->labels.v[i],
                                      (size_t)(eq - c->labels.v[i]) + 1) != 0);
        }
}

/* The daemons' and the CLI's own tables, from their defaults: the file (argc == 0) or the
 * arguments; whatever is refused gets one line. */
static void fuzz_real(int argc, char **argv)
{
        static const struct {
                const cfg_schema_t *s;
                size_t size;
        } real[] = {{&agent_config_schema, sizeof(agent_config_t)},
                    {&coord_config_schema, sizeof(coord_config_t)},
                    {&cli_config_schema, sizeof(cli_config_t)}};
        char err[512];
        for (size_t i = 0; i < sizeof(real) / sizeof(real[0]); i++) {
                void *c = calloc(1, real[i].size);
                CHECK(c && config_defaults(real[i].s, c) == 0);
                memset(err, 'X', sizeof(err));
                int r = argc ? config_parse_args(real[i].s, c, argc, argv, NULL, err, sizeof(err))
                             : config_load_file(real[i].s, c, path, err, sizeof(err));
                if (r < 0)
                        check_message(err, sizeof(err));
                config_free(real[i].s, c);
                free(c);
        }
}

static void fuzz_file(void)
{
        fcfg_t c = {};
        keypair_t kp;
        char err[512];
        int r;

        memset(err, 'X', sizeof(err));
        r = config_load_file(&schema, &c, path, err, sizeof(err));
        if (r < 0) {
                check_message(err, sizeof(err));
                CHECK(strstr(err, path) != NULL);
        } else {
                CHECK(r == 0);
        }
        check_config(&c);
        config_free(&schema, &c);
        fuzz_real(0, NULL);

        /* Key files go through the same INI reader. */
        memset(err, 'X', sizeof(err));
        r = keys_load(path, false, &kp, err, sizeof(err));
        if (r < 0) {
                check_message(err, sizeof(err));
        } else {
                CHECK(keys_valid_z85(kp.public_z85));
                CHECK(!kp.secret_z85[0] || keys_valid_z85(kp.secret_z85));
        }
        memset(err, 'X', sizeof(err));
        r = keys_load(path, true, &kp, err, sizeof(err));
        if (r < 0)
                check_message(err, sizeof(err));
        else
                CHECK(keys_valid_z85(kp.secret_z85));
}

/* The bytes as a command line, one argument per line. --config is left out: a fuzzer must not
 * open paths it made up. */
static void fuzz_args(const uint8_t *data, size_t size)
{
        char *copy = malloc(size + 1), *argv[64];
        int argc = 0;
        fcfg_t c = {};
        char err[512];
        int r;

        CHECK(copy);
        memcpy(copy, data, size);
        copy[size] = 0;
        argv[argc++] = "fuzz";
        for (char *p = copy, *nl; p && argc < 64; p = nl) {
                nl = strchr(p, '\n');
                if (nl)
                        *nl++ = 0;
                if (strncmp(p, "--config", 8) != 0)
                        argv[argc++] = p;
        }
        memset(err, 'X', sizeof(err));
        r = config_parse_args(&schema, &c, argc, argv, NULL, err, sizeof(err));
        if (r < 0)
                check_message(err, sizeof(err));
        check_config(&c);
        config_free(&schema, &c);
        fuzz_real(argc, argv);
        free(copy);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        if (size > 64 * 1024)
                return 0;
        file_init();
        CHECK(ftruncate(fd, 0) == 0);
        CHECK(pwrite(fd, data, size, 0) == (ssize_t)size);

        fuzz_file();
        fuzz_args(data, size);
        return 0;
}
