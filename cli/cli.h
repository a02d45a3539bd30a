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
        char from[4200];       /* where coordinator came from, for messages ("--coordinator") */
} cli_config_t;

extern const cfg_schema_t cli_config_schema;

/* Loads the CLI configuration: path if given, else $IOFLEET_CONFIG, ~/.config/iofleet/cli.conf
 * or /etc/iofleet/cli.conf when they exist, else built-in defaults. */
int cli_config_load(const char *path, cli_config_t *c, char *err, size_t errlen);
void cli_config_free(cli_config_t *c);
/* Sets the coordinator endpoint, saying where it came from (from: "--coordinator"). */
int cli_config_set_coordinator(cli_config_t *c, const char *endpoint, const char *from);
/* Checks a control endpoint: tcp://HOST:PORT or ipc://PATH; one line naming from and the fix. */
int cli_endpoint_check(const char *endpoint, const char *from, char *err, size_t errlen);
/* Connects to the configured coordinator (loading keys for tcp endpoints); err says which
 * endpoint and, for a missing key file, how to make it. */
int cli_connect(const cli_config_t *c, client_t **ret, char *err, size_t errlen);
/* The CLI's config (CONFIG or the default; COORDINATOR over it, as --coordinator) and a
 * connection, each failure said on stderr once: 0; 2, the config (nothing to free); 1, no
 * connection (cfg to free). */
int cli_open(const char *config, const char *coordinator, cli_config_t *cfg, client_t **c);

/* One request to the coordinator for a listing command (its table's --coordinator, --config,
 * --json, --help): its answer of type expect in *rep (NULL after --help or an error). Returns the
 * exit status: 0, 1 (no answer), 2 (bad options or configuration). */
int cli_query(int argc, char **argv, const char *cmd, envelope_t *req,
              Iofleet__Envelope__BodyCase expect, envelope_t **rep, bool *json);
/* An agent's clock offset from the coordinator's with its uncertainty, as iofleet agents shows
 * it: "+12.3µs ±4.1µs", "-" when unknown. */
void agents_format_offset(const Iofleet__AgentInfo *a, char *buf, size_t len);

int cmd_run(int argc, char **argv);
int cmd_agents(int argc, char **argv);
int cmd_enroll(int argc, char **argv);
/* iofleet agents --pending, approve NAME, revoke NAME (cli/cmd-enroll.c): 0 or 1 (said why). */
int enroll_list_pending(client_t *c, bool json);
int enroll_agent_action(client_t *c, const char *verb, const char *name);
int cmd_keygen(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_watch(int argc, char **argv);
int cmd_runs(int argc, char **argv);
