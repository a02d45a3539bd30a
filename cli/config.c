/* What the CLI's commands share: its configuration, how it reaches the coordinator, its commands.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "cli-options.h"
#include "keys.h"
#include "util.h"

#define F(f) .offset = offsetof(cli_config_t, f)
static const cfg_item_t cli_items[] = {
    {.name = "coordinator",
     .type = CFG_STRING,
     F(coordinator),
     .help = "the coordinator's control endpoint",
     .def = "ipc:///run/iofleet/control.sock"},
    {.name = "coordinator_key",
     .type = CFG_STRING,
     F(coordinator_key),
     .help = "the coordinator's public key, for a tcp:// control endpoint",
     .def = "/etc/iofleet/coordinator.pub"},
    {.name = "key",
     .type = CFG_STRING,
     F(key),
     .help = "this CLI's key pair, for a tcp:// control endpoint",
     .def = "/etc/iofleet/cli.key"},
};
#undef F

const cfg_schema_t cli_config_schema = {"cli", cli_items, ELEMENTSOF(cli_items), SIZE_MAX};

int cli_config_load(const char *path, cli_config_t *c, char *err, size_t errlen)
{
        char home[4096];
        const char *h = getenv("HOME"), *env = getenv("IOFLEET_CONFIG");
        int r;

        memset(c, 0, sizeof(*c));
        if (config_defaults(&cli_config_schema, c) < 0)
                return -ENOMEM;
        if (!path && env && *env)
                path = env;
        if (!path && h) {
                snprintf(home, sizeof(home), "%s/.config/iofleet/cli.conf", h);
                if (access(home, R_OK) == 0)
                        path = home;
        }
        if (!path && access("/etc/iofleet/cli.conf", R_OK) == 0)
                path = "/etc/iofleet/cli.conf";
        snprintf(c->from, sizeof(c->from), "the default");
        if (!path)
                return 0;
        r = config_load_file(&cli_config_schema, c, path, err, errlen);
        if (r >= 0 && !streq(c->coordinator, "ipc:///run/iofleet/control.sock"))
                snprintf(c->from, sizeof(c->from), "coordinator in %s", path);
        return r;
}

int cli_config_set_coordinator(cli_config_t *c, const char *endpoint, const char *from)
{
        snprintf(c->from, sizeof(c->from), "%s", from);
        return strdup_to(&c->coordinator, endpoint);
}

int cli_endpoint_check(const char *ep, const char *from, char *err, size_t errlen)
{
        const char *colon = strstr(ep, "://");
        if (strncmp(ep, "tcp://", 6) == 0 || strncmp(ep, "ipc://", 6) == 0) {
                if (ep[6])
                        return 0;
                return errorf(err, errlen, -EINVAL,
                              "%s: '%s' names no %s; write tcp://HOST:PORT or ipc://PATH", from,
                              ep, ep[0] == 't' ? "host" : "socket");
        }
        if (colon)
                return errorf(err, errlen, -EINVAL,
                              "%s: '%s': iofleet speaks tcp:// and ipc://, not %.*s://", from, ep,
                              (int)(colon - ep), ep);
        return errorf(err, errlen, -EINVAL,
                      "%s: '%s' has no scheme; write tcp://%s (with a key pair) or ipc://%s", from,
                      ep, ep, ep[0] == '/' ? ep : "/PATH");
}

void cli_config_free(cli_config_t *c)
{
        config_free(&cli_config_schema, c);
}

int cli_connect(const cli_config_t *c, client_t **ret, char *err, size_t errlen)
{
        keypair_t kp, server;
        char e[1024];
        int r;

        if ((r = cli_endpoint_check(c->coordinator, c->from, err, errlen)) < 0)
                return r;
        if (strncmp(c->coordinator, "tcp://", 6) != 0)
                return client_connect(c->coordinator, NULL, NULL, ret, err, errlen);
        /* CURVE on tcp: a missing key file is the usual first mistake; say what to do. */
        if (access(c->key, F_OK) < 0)
                return errorf(err, errlen, -ENOENT,
                              "%s needs this CLI's key pair, and %s does not exist: make one "
                              "with 'iofleet keygen NAME', put NAME.pub in the coordinator's "
                              "admins.d (then SIGHUP it) and set key=PATH/NAME.key in cli.conf",
                              c->coordinator, c->key);
        if (access(c->coordinator_key, F_OK) < 0)
                return errorf(err, errlen, -ENOENT,
                              "%s needs the coordinator's public key, and %s does not exist: "
                              "copy the coordinator's coordinator.pub there or set "
                              "coordinator_key=PATH in cli.conf",
                              c->coordinator, c->coordinator_key);
        if ((r = keys_load(c->key, true, &kp, e, sizeof(e))) < 0 ||
            (r = keys_load(c->coordinator_key, false, &server, e, sizeof(e))) < 0)
                return errorf(err, errlen, r, "%s: %s", c->coordinator, e);
        return client_connect(c->coordinator, &kp, server.public_z85, ret, err, errlen);
}

int cli_open(const char *config, const char *coordinator, cli_config_t *cfg, client_t **c)
{
        char err[1024];
        *c = NULL;
        if (cli_config_load(config, cfg, err, sizeof(err)) < 0) {
                fprintf(stderr, "iofleet: %s\n", err);
                return 2;
        }
        if (coordinator)
                cli_config_set_coordinator(cfg, coordinator, "--coordinator");
        if (cli_connect(cfg, c, err, sizeof(err)) < 0) {
                fprintf(stderr, "iofleet: %s\n", err);
                return 1;
        }
        return 0;
}

int cli_query(int argc, char **argv, const char *name, envelope_t *req,
              Iofleet__Envelope__BodyCase expect, envelope_t **rep, bool *json)
{
        const cli_command_t *cmd = cli_command_find(name);
        const char *config = NULL, *coordinator = NULL;
        cli_config_t cfg;
        client_t *c = NULL;
        cli_args_t args;
        cli_arg_t arg;
        char err[1024];
        int r, rc = 1;

        *rep = NULL;
        *json = false;
        cli_args_init(&args, argc, argv);
        while ((r = cli_args_next(&args, cmd, &arg, err, sizeof(err))) > 0) {
                if (arg.help) {
                        cli_usage(cmd, stdout);
                        return 0;
                } else if (!arg.opt) {
                        r = errorf(err, sizeof(err), -EINVAL, "'%s': takes no arguments",
                                   arg.value);
                        break;
                } else if (streq(arg.opt->name, "config"))
                        config = arg.value;
                else if (streq(arg.opt->name, "coordinator"))
                        coordinator = arg.value;
                else if (streq(arg.opt->name, "json"))
                        *json = true;
        }
        if (r < 0) {
                fprintf(stderr, "iofleet %s: %s\n", name, err);
                return 2;
        }
        if ((r = cli_open(config, coordinator, &cfg, &c)) == 2)
                return 2;
        if (r == 0 && client_call(c, req, 5000, expect, rep, err, sizeof(err)) < 0)
                fprintf(stderr, "iofleet: %s\n", err);
        else if (r == 0)
                rc = 0;
        client_free(&c);
        cli_config_free(&cfg);
        return rc;
}
