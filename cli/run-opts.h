/* What iofleet run's pieces share: its options, following a run, and running plans. */
#pragma once

#include <signal.h>
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
        bool parse_only; /* check the jobs and stop */
        bool showcmd;    /* print the jobs as a command line and stop */
} run_opts_t;

/* ^C and SIGTERM count here; the first cancels the run (or, when watching, leaves). */
extern volatile sig_atomic_t run_interrupted;

/* Follows the run until RunDone: live lines, a cancel on the first ^C, the result at the end;
 * dir (may be NULL) gets the run's results directory. 0, or -errno when the run failed. */
int run_follow(client_t *c, const run_opts_t *o, uint64_t total, FILE *live, char *dir,
               size_t dirlen);
/* --dry-run: checks the plan whole and lists its points and what each changes. */
int plan_dry_run(const char *path, FILE *f);
/* Runs every point (and repeat) of plan, read from o->plan and checked by plan_parse(), in order
 * (cli/cmd-run-plan.c). */
int run_plan(client_t *c, const run_opts_t *o, const plan_t *plan, FILE *live);
