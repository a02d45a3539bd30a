/* iofleet agents: the coordinator's registry as a table (or JSON). */
#include <jansson.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli-options.h"
#include "cli.h"
#include "clock.h"
#include "util.h"

/* "+12.3µs ±4.1µs": the agent's clock against the coordinator's, in microseconds (seconds past
 * one second), and the uncertainty of the estimate; "-" when the agent has not said. */
void agents_format_offset(const Iofleet__AgentInfo *a, char *buf, size_t len)
{
        double off = a->clock_offset_ns / 1e3, err = a->clock_error_ns / 1e3;
        if (!a->clock_offset_known)
                snprintf(buf, len, "-");
        else if (off < 1e6 && off > -1e6)
                snprintf(buf, len, "%+.1f\u00b5s \u00b1%.1f\u00b5s", off, err);
        else
                snprintf(buf, len, "%+.6fs \u00b1%.1f\u00b5s", off / 1e6, err);
}

/* printf's widths count bytes; "µ" and "±" take two each but one column. */
static void print_padded(const char *s, int width)
{
        int cols = 0;
        for (const char *p = s; *p; p++)
                cols += ((unsigned char)*p & 0xc0) != 0x80;
        printf("%*s%s", width > cols ? width - cols : 0, "", s);
}

static void print_table(const Iofleet__AgentList *l)
{
        printf("%-36s  %-14s  %-16s  %-14s  %-20s  %-8s  %24s  %9s  %-5s  %s\n", "ID", "NAME",
               "HOSTNAME", "ROLES", "LABELS", "VERSION", "CLOCK OFFSET", "RTT", "STATE", "RUN");
        for (size_t i = 0; i < l->n_agents; i++) {
                const Iofleet__AgentInfo *a = l->agents[i];
                char roles[256] = "", labels[512] = "", off[64], rtt[32] = "-";
                size_t n = 0;
                for (size_t k = 0; k < a->n_roles; k++)
                        n += snprintf(roles + n, sizeof(roles) - n > 0 ? sizeof(roles) - n : 0,
                                      "%s%s", k ? "," : "", a->roles[k]);
                n = 0;
                for (size_t k = 0; k < a->n_labels && n < sizeof(labels); k++)
                        n += snprintf(labels + n, sizeof(labels) - n, "%s%s=%s", k ? "," : "",
                                      a->labels[k]->key, a->labels[k]->value);
                if (a->rtt_ns)
                        clock_format_duration((int64_t)a->rtt_ns, rtt, sizeof(rtt));
                agents_format_offset(a, off, sizeof(off));
                printf("%-36s  %-14s  %-16s  %-14s  %-20s  %-8s  ", a->agent_id, a->name,
                       a->hostname, roles[0] ? roles : "-", labels[0] ? labels : "-", a->version);
                print_padded(off, 24);
                printf("  %9s  %-5s  %s\n", rtt, a->state, strempty(a->run_id) ? "-" : a->run_id);
        }
}

static void print_json(const Iofleet__AgentList *l)
{
        json_t *arr = json_array();
        for (size_t i = 0; i < l->n_agents; i++) {
                const Iofleet__AgentInfo *a = l->agents[i];
                json_t *o = json_object(), *roles = json_array(), *labels = json_object();
                for (size_t k = 0; k < a->n_roles; k++)
                        json_array_append_new(roles, json_string(a->roles[k]));
                for (size_t k = 0; k < a->n_labels; k++)
                        json_object_set_new(labels, a->labels[k]->key,
                                            json_string(a->labels[k]->value));
                json_object_set_new(o, "id", json_string(a->agent_id));
                json_object_set_new(o, "name", json_string(a->name));
                json_object_set_new(o, "hostname", json_string(a->hostname));
                json_object_set_new(o, "roles", roles);
                json_object_set_new(o, "labels", labels);
                json_object_set_new(o, "version", json_string(a->version));
                /* offset_ns maps the agent's monotonic clock onto the coordinator's timeline;
                 * clock_offset_ns compares the two wall clocks. */
                json_object_set_new(o, "offset_ns", json_integer(a->offset_ns));
                json_object_set_new(o, "clock_offset_ns",
                                    a->clock_offset_known ? json_integer(a->clock_offset_ns)
                                                          : json_null());
                json_object_set_new(o, "clock_error_ns",
                                    a->clock_offset_known
                                        ? json_integer((json_int_t)a->clock_error_ns)
                                        : json_null());
                json_object_set_new(o, "rtt_ns", json_integer((json_int_t)a->rtt_ns));
                json_object_set_new(o, "state", json_string(a->state));
                json_object_set_new(o, "run_id", json_string(a->run_id ? a->run_id : ""));
                json_object_set_new(o, "joined_ns", json_integer(a->joined_ns));
                json_object_set_new(o, "last_seen_ns", json_integer(a->last_seen_ns));
                json_array_append_new(arr, o);
        }
        json_dumpf(arr, stdout, JSON_INDENT(2));
        printf("\n");
        json_decref(arr);
}

int cmd_agents(int argc, char **argv)
{
        const char *config = NULL, *coordinator = NULL, *operand[3] = {NULL};
        bool json = false, pending = false;
        size_t n_operands = 0;
        cli_config_t cfg;
        client_t *c = NULL;
        envelope_t req = IOFLEET__ENVELOPE__INIT, *rep = NULL;
        Iofleet__ListAgents la = IOFLEET__LIST_AGENTS__INIT;
        const cli_command_t *cmd = cli_command_find("agents");
        cli_args_t args;
        cli_arg_t arg;
        char err[1024];
        int r, rc = 1;

        cli_args_init(&args, argc, argv);
        while ((r = cli_args_next(&args, cmd, &arg, err, sizeof(err))) > 0) {
                if (arg.help) {
                        cli_usage(cmd, stdout);
                        return 0;
                } else if (!arg.opt) {
                        if (n_operands < ELEMENTSOF(operand))
                                operand[n_operands] = arg.value;
                        n_operands++;
                } else if (streq(arg.opt->name, "config"))
                        config = arg.value;
                else if (streq(arg.opt->name, "coordinator"))
                        coordinator = arg.value;
                else if (streq(arg.opt->name, "json"))
                        json = true;
                else if (streq(arg.opt->name, "pending"))
                        pending = true;
        }
        /* approve NAME, revoke NAME: the keys of the allow-list (cli/cmd-enroll.c). */
        if (r == 0 && n_operands &&
            (n_operands != 2 || !(streq(operand[0], "approve") || streq(operand[0], "revoke"))))
                r = errorf(err, sizeof(err), -EINVAL,
                           "'%s': the operands are approve NAME or revoke NAME (iofleet help "
                           "agents)",
                           operand[0]);
        if (r == 0 && n_operands && pending)
                r = errorf(err, sizeof(err), -EINVAL, "--pending lists; it takes no operands");
        if (r < 0) {
                fprintf(stderr, "iofleet agents: %s\n", err);
                return 2;
        }
        if ((r = cli_open(config, coordinator, &cfg, &c)) == 2)
                return 2;
        if (r)
                goto out;
        if (n_operands || pending) {
                rc = n_operands ? enroll_agent_action(c, operand[0], operand[1])
                                : enroll_list_pending(c, json);
                goto out;
        }
        req.body_case = IOFLEET__ENVELOPE__BODY_LIST_AGENTS;
        req.list_agents = &la;
        if (client_call(c, &req, 5000, IOFLEET__ENVELOPE__BODY_AGENT_LIST, &rep, err, sizeof(err)) <
            0) {
                fprintf(stderr, "iofleet: %s\n", err);
                goto out;
        }
        if (json)
                print_json(rep->agent_list);
        else
                print_table(rep->agent_list);
        rc = 0;
out:
        wire_free(&rep);
        client_free(&c);
        cli_config_free(&cfg);
        return rc;
}
