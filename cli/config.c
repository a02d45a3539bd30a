/* What the CLI's commands share: its configuration, how it reaches the coordinator, its commands.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
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
        if (!path)
                return 0;
        return config_load_file(&cli_config_schema, c, path, err, errlen);
}

void cli_config_free(cli_config_t *c)
{
        config_free(&cli_config_schema, c);
}

int cli_connect(const cli_config_t *c, client_t **ret, char *err, size_t errlen)
{
        keypair_t kp, server;
        int r;

        if (strncmp(c->coordinator, "tcp://", 6) != 0)
                return client_connect(c->coordinator, NULL, NULL, ret, err, errlen);
        if ((r = keys_load(c->key, true, &kp, err, errlen)) < 0 ||
            (r = keys_load(c->coordinator_key, false, &server, err, errlen)) < 0)
                return r;
        return client_connect(c->coordinator, &kp, server.public_z85, ret, err, errlen);
}
