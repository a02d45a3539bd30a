/* The agent's, coordinator's and CLI's key tables: defaults read back through the parser, help
 * that states each default once (from the table, never in the help text), test hooks kept off
 * config files, the JSON dump other programs read, and the deploy/ config templates listing
 * every key with the table's default. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent-config.h"
#include "cli.h"
#include "config.h"
#include "coord-config.h"
#include "unit.h"
#include "util.h"

typedef struct table {
        const cfg_schema_t *schema;
        const char *program;
        const char *deploy; /* the template under deploy/ */
        size_t size;        /* of the config struct */
} table_t;

static const table_t tables[] = {
    {&agent_config_schema, "iofleet-agent", "agent.conf", sizeof(agent_config_t)},
    {&coord_config_schema, "iofleet-coordinator", "coordinator.conf", sizeof(coord_config_t)},
    {&cli_config_schema, "iofleet", "cli.conf", sizeof(cli_config_t)},
};

static char *help_text(const cfg_schema_t *s)
{
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);
        assert_non_null(f);
        config_help(s, f);
        assert_int_equal(fclose(f), 0);
        return buf;
}

/* Every default is a value the key takes; the help says it, and the help text never does. */
static void test_defaults_and_help(void **state)
{
        for (size_t t = 0; t < ELEMENTSOF(tables); t++) {
                const cfg_schema_t *s = tables[t].schema;
                char *help = help_text(s), err[512];
                void *c = calloc(1, tables[t].size);
                assert_non_null(c);
                assert_int_equal(config_defaults(s, c), 0);
                for (size_t i = 0; i < s->n_items; i++) {
                        const cfg_item_t *it = &s->items[i];
                        char line[512];
                        assert_non_null(it->help);
                        if (strstr(it->help, "(default") || strstr(it->help, "default:"))
                                fail_msg("%s: help text '%s' states a default", it->name, it->help);
                        assert_false(it->def && it->def_doc);
                        if (it->def) {
                                err[0] = 0;
                                if (config_set(s, c, it->name, it->def, "default", err,
                                               sizeof(err)) < 0)
                                        fail_msg("%s: default '%s' refused: %s", it->name, it->def,
                                                 err);
                                snprintf(line, sizeof(line), "default %s", it->def);
                                assert_contains(help, line);
                        } else if (it->def_doc) {
                                snprintf(line, sizeof(line), "default: %s", it->def_doc);
                                assert_contains(help, line);
                        }
                        assert_contains(help, it->help);
                }
                config_free(s, c);
                free(c);
                free(help);
        }
}

/* The agent's test hooks: on the command line, listed apart, refused in a file. */
static void test_agent_test_hooks(void **state)
{
        agent_config_t c;
        char err[1024] = "", path[] = "/tmp/test-config-tables.XXXXXX";
        char *argv[] = {"iofleet-agent", "--test-clock-offset=-1500ms",
                        "--test-protocol-version=7"};
        char *help = help_text(&agent_config_schema);

        assert_int_equal(agent_config_defaults(&c), 0);
        assert_int_equal(c.test_clock_offset_ns, 0);
        assert_int_equal(c.test_protocol_version, 0);
        assert_int_equal(
            config_parse_args(&agent_config_schema, &c, 3, argv, NULL, err, sizeof(err)), 0);
        assert_int_equal(c.test_clock_offset_ns, -1500 * (int64_t)NSEC_PER_MSEC);
        assert_int_equal(c.test_protocol_version, 7);
        argv[1] = "--test-clock-offset=366d";
        assert_int_equal(
            config_parse_args(&agent_config_schema, &c, 2, argv, NULL, err, sizeof(err)), -ERANGE);
        assert_contains(err, "-365d..365d");
        assert_contains(help, "Test hooks (command line only):\n  --test-clock-offset=DURATION");

        int fd = mkstemp(path);
        assert_true(fd >= 0);
        const char text[] = "[agent]\ntest_protocol_version = 3\n";
        assert_int_equal(write(fd, text, sizeof(text) - 1), (ssize_t)sizeof(text) - 1);
        close(fd);
        assert_int_equal(config_load_file(&agent_config_schema, &c, path, err, sizeof(err)),
                         -EINVAL);
        assert_contains(err, ":2: [agent] test_protocol_version: a test hook");
        assert_contains(err, "--test-protocol-version=");
        unlink(path);
        config_free(&agent_config_schema, &c);
        free(help);
}

/* What --dump-config-table prints: every item, as the table has it. */
static void test_dump_json(void **state)
{
        for (size_t t = 0; t < ELEMENTSOF(tables); t++) {
                const cfg_schema_t *s = tables[t].schema;
                char *buf = NULL;
                size_t len = 0;
                json_error_t je;
                FILE *f = open_memstream(&buf, &len);
                assert_int_equal(config_dump_json(s, tables[t].program, f), 0);
                fclose(f);
                json_t *doc = json_loads(buf, JSON_REJECT_DUPLICATES, &je);
                if (!doc)
                        fail_msg("not JSON: %s", je.text);
                assert_string_equal(json_string_value(json_object_get(doc, "program")),
                                    tables[t].program);
                assert_string_equal(json_string_value(json_object_get(doc, "section")), s->section);
                json_t *items = json_object_get(doc, "items");
                assert_int_equal(json_array_size(items), s->n_items);
                for (size_t i = 0; i < s->n_items; i++) {
                        json_t *it = json_array_get(items, i),
                               *def = json_object_get(it, "default");
                        assert_string_equal(json_string_value(json_object_get(it, "name")),
                                            s->items[i].name);
                        assert_string_equal(json_string_value(json_object_get(it, "help")),
                                            s->items[i].help);
                        if (s->items[i].def)
                                assert_string_equal(json_string_value(def), s->items[i].def);
                        else
                                assert_true(json_is_null(def));
                        assert_int_equal(json_integer_value(json_object_get(it, "max")),
                                         s->items[i].max);
                        assert_int_equal(json_is_true(json_object_get(it, "test_hook")),
                                         !!(s->items[i].flags & CFG_TEST_HOOK));
                        if (s->items[i].choices)
                                assert_true(json_array_size(json_object_get(it, "choices")) >= 2);
                }
                json_decref(doc);
                free(buf);
        }
}

/* deploy/NAME.conf lists each key of the table once as "#key = value" in its section, with the
 * table's default where there is one, and no key the table lacks and no test hook. */
static void test_deploy_templates(void **state)
{
        for (size_t t = 0; t < ELEMENTSOF(tables); t++) {
                const cfg_schema_t *s = tables[t].schema;
                char path[512], line[1024], section[64] = "";
                unsigned *seen = calloc(s->n_items, sizeof(*seen));
                snprintf(path, sizeof(path), "%s/deploy/%s", IOFLEET_SOURCE_DIR, tables[t].deploy);
                FILE *f = fopen(path, "re");
                if (!f)
                        fail_msg("%s: cannot be read", path);
                while (fgets(line, sizeof(line), f)) {
                        char key[64], value[512] = "";
                        line[strcspn(line, "\n")] = 0;
                        if (sscanf(line, "[%63[^]]]", section) == 1 || !streq(section, s->section))
                                continue;
                        if (sscanf(line, "#%63[a-z_] = %511[^\n]", key, value) < 1)
                                continue;
                        size_t i = 0;
                        while (i < s->n_items && !streq(s->items[i].name, key))
                                i++;
                        if (i == s->n_items)
                                fail_msg("%s: '%s' is not a key of [%s]", path, key, s->section);
                        if (s->items[i].flags & CFG_TEST_HOOK)
                                fail_msg("%s: test hook '%s' listed", path, key);
                        if (s->items[i].def && !streq(value, s->items[i].def))
                                fail_msg("%s: '%s = %s', but the default is '%s'", path, key, value,
                                         s->items[i].def);
                        seen[i]++;
                }
                fclose(f);
                for (size_t i = 0; i < s->n_items; i++)
                        if (!(s->items[i].flags & CFG_TEST_HOOK) && seen[i] != 1)
                                fail_msg("%s: '%s' listed %u times, want once", path,
                                         s->items[i].name, seen[i]);
                free(seen);
        }
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_defaults_and_help),
            cmocka_unit_test(test_agent_test_hooks),
            cmocka_unit_test(test_dump_json),
            cmocka_unit_test(test_deploy_templates),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
