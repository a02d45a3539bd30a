/* Plans: one INI file that says which agents serve and which are clients, the NFS server
 * settings, the client mount, sysctls, fio job sections and a sweep over any of them. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "jobargs.h"
#include "jobfile.h"
#include "kv.h"
#include "wire.h"

#define PLAN_MAX_POINTS 10000
#define PLAN_MAX_REPEAT 1000

typedef struct plan_part {
        bool present;
        char *selector;    /* which agents; default role=storage / role=client */
        unsigned count;    /* at most (and at least) this many; 0 = every matching agent */
        kvlist_t settings; /* server: NFS settings; client: mount options and mount/server/export */
        kvlist_t sysctls;
} plan_part_t;

/* One swept parameter: "server.sync", "client.rsize", "client.sysctl.net.core.rmem_max",
 * "clients", "JOB.KEY" or "global.KEY" (or a bare fio option: every job). */
typedef struct plan_param {
        char *name;
        strv_t values;
        int line;
} plan_param_t;

typedef struct plan {
        char *path;
        char *text;       /* the file as parsed: kept with the results */
        jobfile_t source; /* its entries as parsed once (includes, ${VAR} done): points are
                           * built from them */
        char *name;
        uint64_t interval_ns, lead_ns; /* 0 = the CLI's / coordinator's default */
        bool stonewall;
        bool stop_on_error;
        /* Failure handling: how long agents run on without the coordinator (and it waits for
         * them), the prepare deadline, and whether a partial run (an agent lost) still passes. */
        bool orphan_grace_set;
        uint64_t orphan_grace_ns;
        uint64_t prepare_timeout_ns; /* 0: from the jobs */
        bool continue_on_loss;
        unsigned repeat;
        strv_t degrade; /* rules as written: "bw < 100MiB/s for 3" */
        plan_part_t server, client;
        char *clients; /* --agents: picks the clients in place of [client] agents= */
        jobargs_t jobs;
        plan_param_t *params;
        size_t n_params;
} plan_t;

/* Whether the file at path is a plan (has a [plan], [server], [client] or [sweep] section)
 * rather than a plain fio job file. */
bool plan_file_is_plan(const char *path);
/* Reads and checks a plan: every section and key (errors name file, line and key), and every
 * point of its sweep through the same checks, so nothing runs unless all of it can. */
int plan_parse(const char *path, plan_t *p, char *err, size_t errlen);
/* The same, with the clients picked by a selector (the CLI's --agents) rather than by the plan's
 * [client] agents= (or every agent, for a plan without a [server] or [client]). */
int plan_parse_clients(const char *path, const char *clients, plan_t *p, char *err,
                       size_t errlen);
void plan_free(plan_t *p);

/* Number of sweep points (1 without a sweep). */
size_t plan_points(const plan_t *p);
/* Applies point i's values to p (a plan as built from its file, no point applied yet) and
 * lists them in chosen as parameter = value. 0 or -errno with err set. */
int plan_apply_point(plan_t *p, size_t i, kvlist_t *chosen, char *err, size_t errlen);
/* Builds sweep point i of a parsed plan p into *out as it will run: from the entries p was
 * parsed from (never the file again, so the plan checked is the plan that runs), applied and
 * checked. chosen (may be NULL) gets the point's parameter values. 0 or -errno with err set;
 * *out untouched on failure. *out has no source of its own: points come from p. */
int plan_point(const plan_t *p, size_t i, plan_t *out, kvlist_t *chosen, char *err, size_t errlen);
/* Checks a plan as it will run (after plan_apply_point() for a sweep point). */
int plan_check(plan_t *p, char *err, size_t errlen);

/* The SubmitRun parts of the plan; free with plan_wire_free(). */
typedef struct plan_wire {
        Iofleet__Part **parts;
        size_t n_parts;
        Iofleet__DegradeRule **degrade;
        size_t n_degrade;
} plan_wire_t;
int plan_to_wire(const plan_t *p, plan_wire_t *w, char *err, size_t errlen);
void plan_wire_free(plan_wire_t *w);

/* Parses a degrade rule "METRIC OP VALUE [for N]" (e.g. "bw < 100MiB/s for 3",
 * "clat_p99 > 5ms"): metrics read_bw, write_bw, bw (bytes/s), read_iops, write_iops, iops,
 * clat_p99 (a duration), errors (a count). 0 or -EINVAL with err set. */
int plan_degrade_parse(const char *text, Iofleet__DegradeRule *rule, char *err, size_t errlen);
