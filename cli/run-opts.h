/* What iofleet run's pieces share: its options and running plans. */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "client.h"
#include "config.h"
#include "plan.h"

typedef struct run_opts {
        unsigned local;
        const char *coordinator;
        const char *agents;
        const char *output;
        const char *format;
        const char *config;
        const char *results_dir;
        bool per_host;
        bool insecure;
        bool verbose;
        uint64_t interval_ns;
        uint64_t lead_ns;
        const char *plan; /* the one file is a plan */
        bool watch;       /* iofleet watch: ^C leaves, the run goes on */
        strv_t degrade;   /* --degrade rules, as written */
        bool dry_run;
        bool stonewall;
        bool orphan_grace_set;
        uint64_t orphan_grace_ns;
        uint64_t prepare_timeout_ns; /* 0: from the jobs */
        bool continue_on_loss;
        uint64_t reattach_ns; /* how long run/watch try to reach a coordinator that went away */
        bool parse_only; /* check the jobs and stop */
        bool showcmd;    /* print the jobs as a command line and stop */
} run_opts_t;

/* The failure options of a SubmitRun (plan settings over the command line's); durations point
 * into d[2], which must live as long as s. */
void run_opts_failure(const run_opts_t *o, const plan_t *plan, Iofleet__SubmitRun *s,
                      Iofleet__Duration d[2]);

/* --dry-run: checks the plan whole and lists its points and what each changes. */
int plan_dry_run(const char *path, const char *clients, FILE *f);
/* Runs every point (and repeat) of plan, read from o->plan and checked by plan_parse(), in order
 * (cli/cmd-run-plan.c). */
int run_plan(client_t *c, const run_opts_t *o, const plan_t *plan, FILE *live);
