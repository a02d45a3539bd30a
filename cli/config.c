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

#define F(f) offsetof(cli_config_t, f)
static const cfg_item_t cli_items[] = {
    {"coordinator", CFG_STRING, F(coordinator), 0, 0, NULL,
     "the coordinator's control endpoint (default ipc:///run/iofleet/control.sock)"},
    {"coordinator_key", CFG_STRING, F(coordinator_key), 0, 0, NULL,
     "the coordinator's public key, for a tcp:// control endpoint"},
    {"key", CFG_STRING, F(key), 0, 0, NULL,
     "this CLI's key pair, for a tcp:// control endpoint (default /etc/iofleet/cli.key)"},
};
#undef F

const cfg_schema_t cli_config_schema = {"cli", cli_items, ELEMENTSOF(cli_items), SIZE_MAX};

int cli_config_load(const char *path, cli_config_t *c, char *err, size_t errlen)
{
        char home[4096];
        const char *h = getenv("HOME"), *env = getenv("IOFLEET_CONFIG");

        memset(c, 0, sizeof(*c));
        if (strdup_to(&c->coordinator, "ipc:///run/iofleet/control.sock") < 0 ||
            strdup_to(&c->coordinator_key, "/etc/iofleet/coordinator.pub") < 0 ||
            strdup_to(&c->key, "/etc/iofleet/cli.key") < 0)
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

int cli_query(int argc, char **argv, const char *cmd, void (*usage)(FILE *f), envelope_t *req,
              Iofleet__Envelope__BodyCase expect, envelope_t **rep, bool *json)
{
        const char *config = NULL, *coordinator = NULL;
        cli_config_t cfg;
        client_t *c = NULL;
        char err[1024];
        int rc = 1;

        *rep = NULL;
        *json = false;
        for (int i = 1; i < argc; i++) {
                if (strncmp(argv[i], "--config=", 9) == 0)
                        config = argv[i] + 9;
                else if (strncmp(argv[i], "--coordinator=", 14) == 0)
                        coordinator = argv[i] + 14;
                else if (streq(argv[i], "--json"))
                        *json = true;
                else if (streq(argv[i], "--help")) {
                        usage(stdout);
                        return 0;
                } else {
                        fprintf(stderr,
                                "iofleet %s: unknown option '%s' (allowed: --coordinator, "
                                "--config, --json)\n",
                                cmd, argv[i]);
                        return 2;
                }
        }
        if (cli_config_load(config, &cfg, err, sizeof(err)) < 0) {
                fprintf(stderr, "iofleet: %s\n", err);
                return 2;
        }
        if (coordinator)
                strdup_to(&cfg.coordinator, coordinator);
        if (cli_connect(&cfg, &c, err, sizeof(err)) < 0 ||
            client_call(c, req, 5000, expect, rep, err, sizeof(err)) < 0)
                fprintf(stderr, "iofleet: %s\n", err);
        else
                rc = 0;
        client_free(&c);
        cli_config_free(&cfg);
        return rc;
}
