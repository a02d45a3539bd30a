/* Unit tests for the CLI's option table and parser: --opt value and --opt=value, flags, job
 * options that never take the next argument, "--", -h, did-you-mean, endpoints, usage texts. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli-options.h"
#include "cli.h"
#include "options.h"
#include "suggest.h"
#include "util.h"

#define assert_contains(hay, needle)                                                               \
        do {                                                                                       \
                if (!strstr((hay), (needle)))                                                      \
                        fail_msg("'%s' does not mention '%s'", (hay), (needle));                   \
        } while (0)

/* Parses argv (a NULL-ended list after the command name) and writes each argument as
 * "o:NAME=VALUE", "j:KEY=VALUE", "h" or "a:OPERAND", space-separated, into out; returns the
 * parser's last result (0, or -EINVAL with err). */
static int parse(const char *command, char *out, size_t len, char *err, size_t errlen, ...)
{
        const cli_command_t *cmd = cli_command_find(command);
        char *argv[32];
        int argc = 0, r;
        va_list ap;
        cli_args_t a;
        cli_arg_t arg;
        size_t n = 0;

        assert_non_null(cmd);
        argv[argc++] = (char *)command;
        va_start(ap, errlen);
        for (char *s; (s = va_arg(ap, char *));)
                argv[argc++] = s;
        va_end(ap);
        out[0] = err[0] = 0;
        cli_args_init(&a, argc, argv);
        while ((r = cli_args_next(&a, cmd, &arg, err, errlen)) > 0) {
                if (arg.help)
                        n += (size_t)snprintf(out + n, len - n, "%sh", n ? " " : "");
                else if (arg.opt)
                        n += (size_t)snprintf(out + n, len - n, "%so:%s=%s", n ? " " : "",
                                              arg.opt->name, arg.value);
                else if (arg.job_key)
                        n += (size_t)snprintf(out + n, len - n, "%sj:%s=%s", n ? " " : "",
                                              arg.job_key, arg.value);
                else
                        n += (size_t)snprintf(out + n, len - n, "%sa:%s", n ? " " : "", arg.value);
        }
        return r;
}

static void test_value_forms(void **state)
{
        char out[512], err[512];

        assert_int_equal(
            parse("report", out, sizeof(out), err, sizeof(err), "--format", "csv", "runs/1", NULL),
            0);
        assert_string_equal(out, "o:format=csv a:runs/1");
        assert_int_equal(parse("report", out, sizeof(out), err, sizeof(err), "--format=md",
                               "--output", "t.md", "runs/1", NULL),
                         0);
        assert_string_equal(out, "o:format=md o:output=t.md a:runs/1");
        /* fio's single dash works for iofleet's own options too. */
        assert_int_equal(parse("run", out, sizeof(out), err, sizeof(err), "-local=2",
                               "--output-format", "json", NULL),
                         0);
        assert_string_equal(out, "o:local=2 o:output-format=json");
        /* '-' is an operand (standard input), and so is a value that starts with one dash. */
        assert_int_equal(
            parse("run", out, sizeof(out), err, sizeof(err), "--output", "-x", "-", NULL), 0);
        assert_string_equal(out, "o:output=-x a:-");
}

static void test_missing_values(void **state)
{
        char out[512], err[512];

        assert_int_equal(
            parse("run", out, sizeof(out), err, sizeof(err), "--output", "--per-host", NULL),
            -EINVAL);
        assert_contains(err, "--output needs a value");
        assert_contains(err, "not the option --per-host");
        assert_int_equal(parse("report", out, sizeof(out), err, sizeof(err), "--plots", NULL),
                         -EINVAL);
        assert_contains(err, "--plots needs a value: --plots=DIR or --plots DIR");
        assert_int_equal(parse("run", out, sizeof(out), err, sizeof(err), "--per-host=1", NULL),
                         -EINVAL);
        assert_contains(err, "--per-host takes no value");
        assert_int_equal(
            parse("run", out, sizeof(out), err, sizeof(err), "--output-format", "xml", NULL),
            -EINVAL);
        assert_contains(err, "'xml' is not one of normal|json");
}

/* Job options take their value after '=' only: the argument after them stays a job file. */
static void test_job_options_never_swallow(void **state)
{
        char out[512], err[512];

        assert_int_equal(parse("run", out, sizeof(out), err, sizeof(err), "--bs=4k", "--time_based",
                               "seq.fio", "--rw=randread", NULL),
                         0);
        assert_string_equal(out, "j:bs=4k j:time_based= a:seq.fio j:rw=randread");
        assert_int_equal(parse("run", out, sizeof(out), err, sizeof(err), "--bs", "seq.fio", NULL),
                         -EINVAL);
        assert_contains(err, "--bs needs a value: --bs=VALUE");
        assert_contains(err, "next argument stays a job file");
        /* An alias, and fio's options iofleet does not implement reach the job parser, which
         * names them. */
        assert_int_equal(
            parse("run", out, sizeof(out), err, sizeof(err), "--blocksize=1m", "--stonewall", NULL),
            0);
        assert_string_equal(out, "j:blocksize=1m j:stonewall=");
        /* Commands without job options do not take them. */
        assert_int_equal(parse("report", out, sizeof(out), err, sizeof(err), "--bs=4k", NULL),
                         -EINVAL);
        assert_contains(err, "unknown option '--bs=4k'");
}

static void test_double_dash_and_help(void **state)
{
        char out[512], err[512];

        assert_int_equal(parse("run", out, sizeof(out), err, sizeof(err), "--per-host", "--",
                               "--odd.fio", "-h", "--", NULL),
                         0);
        assert_string_equal(out, "o:per-host= a:--odd.fio a:-h a:--");
        assert_int_equal(parse("agents", out, sizeof(out), err, sizeof(err), "-h", "--help", NULL),
                         0);
        assert_string_equal(out, "h h");
}

static void test_did_you_mean(void **state)
{
        char out[512], err[512];

        assert_int_equal(parse("run", out, sizeof(out), err, sizeof(err), "--loc=2", NULL),
                         -EINVAL);
        assert_contains(err, "did you mean '--local'?");
        assert_int_equal(parse("run", out, sizeof(out), err, sizeof(err), "--per-hots", NULL),
                         -EINVAL);
        assert_contains(err, "did you mean '--per-host'?");
        /* Job options are offered beside the command's own. */
        assert_int_equal(parse("run", out, sizeof(out), err, sizeof(err), "--iodepht=4", NULL),
                         -EINVAL);
        assert_contains(err, "did you mean '--iodepth'?");
        assert_int_equal(parse("agents", out, sizeof(out), err, sizeof(err), "--jsno", NULL),
                         -EINVAL);
        assert_contains(err, "did you mean '--json'?");
        /* Nothing near: the line says where the list is. */
        assert_int_equal(parse("report", out, sizeof(out), err, sizeof(err), "--zzzzzz", NULL),
                         -EINVAL);
        assert_contains(err, "iofleet help report lists them");
}

static void test_suggest(void **state)
{
        suggest_t s;

        suggest_init(&s, "loc");
        suggest_offer(&s, "lead");
        suggest_offer(&s, "local");
        assert_string_equal(suggest_result(&s), "local");
        suggest_init(&s, "xy");
        suggest_offer(&s, "xyzzy"); /* a prefix of two characters is too little */
        assert_null(suggest_result(&s));
        suggest_init(&s, "iodpeth");
        suggest_offer(&s, "iodepth");
        assert_string_equal(suggest_result(&s), "iodepth");
        suggest_init(&s, "bs");
        suggest_offer(&s, "bs"); /* the same name is no suggestion */
        assert_null(suggest_result(&s));
}

static void test_endpoints(void **state)
{
        char err[512];

        assert_int_equal(cli_endpoint_check("tcp://coord:7461", "--coordinator", err, sizeof(err)),
                         0);
        assert_int_equal(
            cli_endpoint_check("ipc:///run/iofleet/control.sock", "x", err, sizeof(err)), 0);
        assert_int_equal(cli_endpoint_check("coord:7461", "--coordinator", err, sizeof(err)),
                         -EINVAL);
        assert_string_equal(err, "--coordinator: 'coord:7461' has no scheme; write "
                                 "tcp://coord:7461 (with a key pair) or ipc:///PATH");
        assert_int_equal(cli_endpoint_check("/run/x.sock", "cli.conf", err, sizeof(err)), -EINVAL);
        assert_contains(err, "ipc:///run/x.sock");
        assert_int_equal(cli_endpoint_check("http://coord", "--coordinator", err, sizeof(err)),
                         -EINVAL);
        assert_contains(err, "not http://");
        assert_int_equal(cli_endpoint_check("tcp://", "--coordinator", err, sizeof(err)), -EINVAL);
        assert_contains(err, "names no host");
}

/* A tcp:// endpoint whose key files are missing: one line saying which and how to make them. */
static void test_tcp_without_keys(void **state)
{
        cli_config_t c = {0};
        client_t *cl = NULL;
        char err[1024];

        assert_int_equal(cli_config_load("/dev/null", &c, err, sizeof(err)), 0);
        assert_int_equal(cli_config_set_coordinator(&c, "tcp://127.0.0.1:9", "--coordinator"), 0);
        assert_int_equal(strdup_to(&c.key, "/nonexistent/cli.key"), 0);
        assert_int_equal(cli_connect(&c, &cl, err, sizeof(err)), -ENOENT);
        assert_null(cl);
        assert_null(strchr(err, '\n'));
        assert_contains(err, "/nonexistent/cli.key does not exist");
        assert_contains(err, "iofleet keygen");
        cli_config_free(&c);
}

/* Every option of every command is in its usage text, and -h of every command works. */
static void test_usage_lists_every_option(void **state)
{
        for (size_t i = 0; i < cli_n_commands; i++) {
                const cli_command_t *cmd = &cli_commands[i];
                char *buf = NULL, name[80];
                size_t len = 0;
                FILE *f = open_memstream(&buf, &len);
                assert_non_null(f);
                cli_usage(cmd, f);
                fclose(f);
                snprintf(name, sizeof(name), "Usage: iofleet %s", cmd->name);
                assert_contains(buf, name);
                for (const cli_option_t *o = cmd->options; o->name; o++) {
                        const char *at;
                        snprintf(name, sizeof(name), "--%s", o->name);
                        assert_contains(buf, name);
                        /* Its help never runs into it: a space or a new line between. */
                        snprintf(name, sizeof(name), "\n  --%s%s", o->name,
                                 o->value == CLI_FLAG ? "" : "=");
                        if (!(at = strstr(buf, name)))
                                fail_msg("--%s: no line of its own", o->name);
                        at += 3 + strcspn(at + 3, " \n"); /* past the new line, indent and name */
                        if (strncmp(at, "  ", 2) != 0 && *at != '\n')
                                fail_msg("--%s: its help runs into it", o->name);
                        /* Each help line fits a terminal beside the 28 columns of names. */
                        for (const char *h = o->help; *h;) {
                                size_t n = strcspn(h, "\n");
                                if (n > 60)
                                        fail_msg("--%s: help line of %zu columns", o->name, n);
                                h += n + (h[n] == '\n');
                        }
                }
                free(buf);
        }
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_value_forms),
            cmocka_unit_test(test_missing_values),
            cmocka_unit_test(test_job_options_never_swallow),
            cmocka_unit_test(test_double_dash_and_help),
            cmocka_unit_test(test_did_you_mean),
            cmocka_unit_test(test_suggest),
            cmocka_unit_test(test_endpoints),
            cmocka_unit_test(test_tcp_without_keys),
            cmocka_unit_test(test_usage_lists_every_option),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
