/* iofleet runs: the runs in progress on the coordinator, several at once on disjoint agents. */
#include <jansson.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "util.h"

static void print_table(const Iofleet__RunList *l)
{
        printf("%-24s  %-9s  %-8s  %6s  %4s  %-28s  %s\n", "RUN", "PHASE", "STARTED", "AGENTS",
               "AWAY", "SWEEP", "AGENT NAMES");
        for (size_t i = 0; i < l->n_runs; i++) {
                const Iofleet__RunInfo *r = l->runs[i];
                char when[16] = "-", names[256] = "";
                size_t n = 0;
                if (r->start_ns) {
                        time_t t = r->start_ns / 1000000000LL;
                        struct tm tm;
                        localtime_r(&t, &tm);
                        strftime(when, sizeof(when), "%H:%M:%S", &tm);
                }
                for (size_t k = 0; k < r->n_agents && n + 1 < sizeof(names); k++)
                        n += (size_t)snprintf(names + n, sizeof(names) - n, "%s%s", k ? "," : "",
                                              r->agents[k]);
                printf("%-24s  %-9s  %-8s  %6zu  %4u  %-28s  %s\n", r->run_id, r->phase, when,
                       r->n_agents, r->lost, strempty(r->sweep_id) ? "-" : r->sweep_id, names);
        }
        if (!l->n_runs)
                printf("(no run in progress)\n");
}

static void print_json(const Iofleet__RunList *l)
{
        json_t *arr = json_array();
        for (size_t i = 0; i < l->n_runs; i++) {
                const Iofleet__RunInfo *r = l->runs[i];
                json_t *o = json_object(), *agents = json_array();
                for (size_t k = 0; k < r->n_agents; k++)
                        json_array_append_new(agents, json_string(r->agents[k]));
                json_object_set_new(o, "run_id", json_string(r->run_id));
                json_object_set_new(o, "phase", json_string(r->phase));
                json_object_set_new(o, "start_ns", json_integer(r->start_ns));
                json_object_set_new(o, "agents", agents);
                json_object_set_new(o, "away", json_integer(r->lost));
                json_object_set_new(o, "sweep_id", json_string(r->sweep_id ? r->sweep_id : ""));
                json_array_append_new(arr, o);
        }
        json_dumpf(arr, stdout, JSON_INDENT(2));
        printf("\n");
        json_decref(arr);
}

int cmd_runs(int argc, char **argv)
{
        envelope_t req = IOFLEET__ENVELOPE__INIT, *rep = NULL;
        Iofleet__ListRuns lr = IOFLEET__LIST_RUNS__INIT;
        bool json;
        int rc;

        req.body_case = IOFLEET__ENVELOPE__BODY_LIST_RUNS;
        req.list_runs = &lr;
        rc = cli_query(argc, argv, "runs", &req, IOFLEET__ENVELOPE__BODY_RUN_LIST, &rep, &json);
        if (rep && json)
                print_json(rep->run_list);
        else if (rep)
                print_table(rep->run_list);
        wire_free(&rep);
        return rc;
}
