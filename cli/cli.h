/* What the CLI's commands share: its configuration, how it reaches the coordinator, its commands.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "client.h"
#include "config.h"

typedef struct cli_config {
        char *coordinator;     /* control endpoint */
        char *coordinator_key; /* the coordinator's public key (tcp control endpoints) */
        char *key;             /* this CLI's key pair (tcp control endpoints) */
} cli_config_t;

extern const cfg_schema_t cli_config_schema;

/* Loads the CLI configuration: path if given, else $IOFLEET_CONFIG, ~/.config/iofleet/cli.conf
 * or /etc/iofleet/cli.conf when they exist, else built-in defaults. */
int cli_config_load(const char *path, cli_config_t *c, char *err, size_t errlen);
void cli_config_free(cli_config_t *c);
/* Connects to the configured coordinator (loading keys for tcp endpoints). */
int cli_connect(const cli_config_t *c, client_t **ret, char *err, size_t errlen);

/* One request to the coordinator for a listing command (--coordinator, --config, --json,
 * --help): its answer of type expect in *rep (NULL after --help or an error). Returns the exit
 * status: 0, 1 (no answer), 2 (bad options or configuration). */
int cli_query(int argc, char **argv, const char *cmd, void (*usage)(FILE *f), envelope_t *req,
              Iofleet__Envelope__BodyCase expect, envelope_t **rep, bool *json);

int cmd_run(int argc, char **argv);
int cmd_agents(int argc, char **argv);
int cmd_keygen(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_watch(int argc, char **argv);
int cmd_runs(int argc, char **argv);
