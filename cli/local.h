/* --local=N: a private coordinator and N agents on this host for one run, with keys made for the
 * occasion. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

typedef struct local_fleet local_fleet_t;

typedef struct local_options {
        unsigned agents;
        const char *results_dir; /* the coordinator writes the run here */
        const char *work_dir;    /* agents' default job directory */
        const char *allow_paths; /* where the agents may do I/O: what the job options name */
        bool insecure;           /* no CURVE even on loopback (default: CURVE) */
        bool verbose;            /* daemons log to this terminal instead of files */
} local_options_t;

/* Starts the daemons in a scratch directory and waits until every agent has registered. The
 * control endpoint to use goes to control_ep. */
int local_fleet_start(const local_options_t *opt, local_fleet_t **ret, char *control_ep,
                      size_t ep_len, char *err, size_t errlen);
/* Stops every daemon (SIGTERM, then SIGKILL after a grace), removes the scratch directory
 * unless something failed (its logs are kept and their path printed). 0 when all exited
 * cleanly. */
int local_fleet_stop(local_fleet_t **fp);
