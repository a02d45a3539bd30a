/* iofleet enroll (create, list, revoke enrolment tokens) and iofleet agents --pending, approve
 * NAME, revoke NAME: the coordinator's allow-list managed through its control endpoint. */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "cli-options.h"
#include "cli.h"
#include "parse.h"
#include "util.h"

/* Local time of a wall-clock instant, "2026-12-01 14:03:05". */
static void when(int64_t ns, char *buf, size_t len)
{
        time_t t = (time_t)(ns / (int64_t)NSEC_PER_SEC);
        struct tm tm;
        localtime_r(&t, &tm);
        strftime(buf, len, "%Y-%m-%d %H:%M:%S", &tm);
}

static void roles_join(char **roles, size_t n, char *buf, size_t len)
{
        size_t k = 0;
        buf[0] = 0;
        for (size_t i = 0; i < n && k < len; i++)
                k += snprintf(buf + k, len - k, "%s%s", i ? "," : "", roles[i]);
        if (!buf[0])
                snprintf(buf, len, "any");
}

static json_t *roles_json(char **roles, size_t n)
{
        json_t *a = json_array();
        for (size_t i = 0; i < n; i++)
                json_array_append_new(a, json_string(roles[i]));
        return a;
}

/* Prints a JSON document and frees it. */
static void print_json(json_t *doc)
{
        json_dumpf(doc, stdout, JSON_INDENT(2));
        printf("\n");
        json_decref(doc);
}

static int query(client_t *c, envelope_t **rep)
{
        envelope_t req = IOFLEET__ENVELOPE__INIT;
        Iofleet__EnrollQuery q = IOFLEET__ENROLL_QUERY__INIT;
        char err[1024];
        req.body_case = IOFLEET__ENVELOPE__BODY_ENROLL_QUERY;
        req.enroll_query = &q;
        if (client_call(c, &req, 5000, IOFLEET__ENVELOPE__BODY_ENROLL_STATE, rep, err,
                        sizeof(err)) < 0) {
                fprintf(stderr, "iofleet: %s\n", err);
                return 1;
        }
        return 0;
}

int enroll_list_pending(client_t *c, bool json)
{
        envelope_t *rep = NULL;
        const Iofleet__EnrollState *st;

        if (query(c, &rep))
                return 1;
        st = rep->enroll_state;
        if (json) {
                json_t *arr = json_array();
                for (size_t i = 0; i < st->n_pending; i++) {
                        const Iofleet__PendingAgent *p = st->pending[i];
                        json_array_append_new(
                            arr, json_pack("{s:s, s:s, s:s, s:o, s:s, s:I, s:s}", "name", p->name,
                                           "key", p->key, "hostname", p->hostname, "roles",
                                           roles_json(p->roles, p->n_roles), "address", p->address,
                                           "requested_ns", (json_int_t)p->requested_ns, "token",
                                           p->token_id));
                }
                print_json(arr);
        } else if (!st->n_pending)
                printf("no enrolment waits for approval\n");
        else {
                printf("%-20s  %-20s  %-14s  %-22s  %-19s  %-12s  %s\n", "NAME", "HOSTNAME", "ROLES",
                       "ADDRESS", "REQUESTED", "TOKEN", "KEY");
                for (size_t i = 0; i < st->n_pending; i++) {
                        const Iofleet__PendingAgent *p = st->pending[i];
                        char roles[64], t[32];
                        roles_join(p->roles, p->n_roles, roles, sizeof(roles));
                        when(p->requested_ns, t, sizeof(t));
                        printf("%-20s  %-20s  %-14s  %-22s  %-19s  %-12s  %s\n", p->name,
                               p->hostname, roles, p->address, t, p->token_id, p->key);
                }
        }
        wire_free(&rep);
        return 0;
}

/* approve NAME, revoke NAME, revoke-token ID. */
static int action(client_t *c, Iofleet__EnrollAction__Kind kind, const char *name)
{
        envelope_t req = IOFLEET__ENVELOPE__INIT, *rep = NULL;
        Iofleet__EnrollAction a = IOFLEET__ENROLL_ACTION__INIT;
        char err[1024];

        a.kind = kind;
        a.name = (char *)name;
        req.body_case = IOFLEET__ENVELOPE__BODY_ENROLL_ACTION;
        req.enroll_action = &a;
        if (client_call(c, &req, 5000, IOFLEET__ENVELOPE__BODY_ENROLL_ACTION_DONE, &rep, err,
                        sizeof(err)) < 0) {
                fprintf(stderr, "iofleet: %s\n", err);
                return 1;
        }
        printf("%s\n", rep->enroll_action_done->message);
        wire_free(&rep);
        return 0;
}

int enroll_agent_action(client_t *c, const char *verb, const char *name)
{
        return action(c,
                      streq(verb, "approve") ? IOFLEET__ENROLL_ACTION__KIND__KIND_APPROVE
                                             : IOFLEET__ENROLL_ACTION__KIND__KIND_REVOKE,
                      name);
}

static int list_tokens(client_t *c, bool json)
{
        envelope_t *rep = NULL;
        const Iofleet__EnrollState *st;

        if (query(c, &rep))
                return 1;
        st = rep->enroll_state;
        if (json) {
                json_t *arr = json_array();
                for (size_t i = 0; i < st->n_tokens; i++) {
                        const Iofleet__EnrollTokenInfo *t = st->tokens[i];
                        json_array_append_new(
                            arr, json_pack("{s:s, s:o, s:I, s:I, s:I, s:I, s:s, s:b, s:s}", "id",
                                           t->id, "roles", roles_json(t->roles, t->n_roles),
                                           "count", (json_int_t)t->count, "used",
                                           (json_int_t)t->used, "created_ns",
                                           (json_int_t)t->created_ns, "expires_ns",
                                           (json_int_t)t->expires_at_ns, "name_prefix",
                                           t->name_prefix, "approve", t->approve, "state",
                                           t->state));
                }
                print_json(arr);
        } else if (!st->n_tokens)
                printf("no enrolment tokens (iofleet enroll create makes one)\n");
        else {
                printf("%-12s  %-14s  %11s  %-19s  %-12s  %-8s  %s\n", "ID", "ROLES", "USED/COUNT",
                       "EXPIRES", "NAME PREFIX", "APPROVE", "STATE");
                for (size_t i = 0; i < st->n_tokens; i++) {
                        const Iofleet__EnrollTokenInfo *t = st->tokens[i];
                        char roles[64], exp[32], used[32];
                        roles_join(t->roles, t->n_roles, roles, sizeof(roles));
                        when(t->expires_at_ns, exp, sizeof(exp));
                        snprintf(used, sizeof(used), "%u/%u", t->used, t->count);
                        printf("%-12s  %-14s  %11s  %-19s  %-12s  %-8s  %s\n", t->id, roles, used,
                               exp, t->name_prefix[0] ? t->name_prefix : "-",
                               t->approve ? "yes" : "no", t->state);
                }
        }
        wire_free(&rep);
        return 0;
}

static int create(client_t *c, Iofleet__EnrollCreate *req, bool json)
{
        envelope_t e = IOFLEET__ENVELOPE__INIT, *rep = NULL;
        const Iofleet__EnrollToken *t;
        char err[1024], exp[32];

        e.body_case = IOFLEET__ENVELOPE__BODY_ENROLL_CREATE;
        e.enroll_create = req;
        if (client_call(c, &e, 5000, IOFLEET__ENVELOPE__BODY_ENROLL_TOKEN, &rep, err,
                        sizeof(err)) < 0) {
                fprintf(stderr, "iofleet: %s\n", err);
                return 1;
        }
        t = rep->enroll_token;
        when(t->expires_at_ns, exp, sizeof(exp));
        if (json) {
                json_t *o = json_pack("{s:s, s:s, s:I, s:I}", "token", t->token, "id", t->id,
                                      "expires_ns", (json_int_t)t->expires_at_ns, "count",
                                      (json_int_t)t->count);
                print_json(o);
        } else {
                /* The token alone on standard output, for TOKEN=$(iofleet enroll create ...). */
                printf("%s\n", t->token);
                fprintf(stderr,
                        "iofleet: token %s admits %u agent(s) until %s; put it in each agent's "
                        "/etc/iofleet/enroll.token (mode 0600) and start the agent. It is shown "
                        "once.\n",
                        t->id, t->count, exp);
        }
        explicit_bzero(t->token, strlen(t->token));
        wire_free(&rep);
        return 0;
}

int cmd_enroll(int argc, char **argv)
{
        const cli_command_t *cmd = cli_command_find("enroll");
        const char *config = NULL, *coordinator = NULL, *operand[3] = {NULL};
        Iofleet__EnrollCreate req = IOFLEET__ENROLL_CREATE__INIT;
        char *roles[2] = {NULL}, role_buf[64];
        const char *role_arg = NULL;
        bool json = false, create_opts = false;
        size_t n_operands = 0;
        cli_config_t cfg;
        client_t *c = NULL;
        cli_args_t args;
        cli_arg_t arg;
        char err[1024];
        int r, rc = 1;

        req.count = 1;
        req.expires_ns = 3600 * NSEC_PER_SEC;
        cli_args_init(&args, argc, argv);
        while ((r = cli_args_next(&args, cmd, &arg, err, sizeof(err))) > 0) {
                const char *o = arg.opt ? arg.opt->name : "";
                if (arg.help) {
                        cli_usage(cmd, stdout);
                        return 0;
                } else if (!arg.opt) {
                        if (n_operands < ELEMENTSOF(operand))
                                operand[n_operands] = arg.value;
                        n_operands++;
                } else if (streq(o, "config"))
                        config = arg.value;
                else if (streq(o, "coordinator"))
                        coordinator = arg.value;
                else if (streq(o, "json"))
                        json = true;
                else {
                        create_opts = true;
                        if (streq(o, "role"))
                                role_arg = arg.value;
                        else if (streq(o, "name-prefix"))
                                req.name_prefix = (char *)arg.value;
                        else if (streq(o, "approve"))
                                req.approve = true;
                        else if (streq(o, "count")) {
                                uint64_t n;
                                if (parse_size(arg.value, &n) < 0 || n < 1 || n > 10000) {
                                        r = errorf(err, sizeof(err), -EINVAL,
                                                   "--count=%s: a whole number 1..10000",
                                                   arg.value);
                                        break;
                                }
                                req.count = (uint32_t)n;
                        } else if (streq(o, "expires")) {
                                uint64_t ns;
                                if (parse_duration(arg.value, NSEC_PER_SEC, &ns) < 0 ||
                                    ns < 60 * NSEC_PER_SEC || ns > 30 * NSEC_PER_DAY) {
                                        r = errorf(err, sizeof(err), -EINVAL,
                                                   "--expires=%s: a duration 1min..30d (e.g. "
                                                   "30min, 1h, 7d)",
                                                   arg.value);
                                        break;
                                }
                                req.expires_ns = ns;
                        }
                }
        }
        if (r == 0) {
                bool ok = (n_operands == 1 && (streq(operand[0], "create") ||
                                               streq(operand[0], "list"))) ||
                          (n_operands == 2 && streq(operand[0], "revoke"));
                if (!ok && n_operands)
                        r = errorf(err, sizeof(err), -EINVAL,
                                   "'%s': say create, list or revoke ID (iofleet help enroll)",
                                   operand[0]);
                else if (!ok)
                        r = errorf(err, sizeof(err), -EINVAL,
                                   "say create, list or revoke ID (iofleet help enroll)");
                else if (create_opts && !streq(operand[0], "create"))
                        r = errorf(err, sizeof(err), -EINVAL,
                                   "--role, --count, --expires, --name-prefix and --approve go "
                                   "with create");
        }
        if (r < 0) {
                fprintf(stderr, "iofleet enroll: %s\n", err);
                return 2;
        }
        if (role_arg) {
                /* "storage,client": one role per element, as the wire carries them. */
                snprintf(role_buf, sizeof(role_buf), "%s", role_arg);
                for (char *save = NULL, *w = strtok_r(role_buf, ", ", &save);
                     w && req.n_roles < ELEMENTSOF(roles); w = strtok_r(NULL, ", ", &save)) {
                        if (!streq(w, "storage") && !streq(w, "client")) {
                                fprintf(stderr,
                                        "iofleet enroll: --role: '%s' is not a role; allowed: "
                                        "storage, client (comma-joined)\n",
                                        w);
                                return 2;
                        }
                        roles[req.n_roles++] = w;
                }
                req.roles = roles;
        }
        if ((r = cli_open(config, coordinator, &cfg, &c)) == 2)
                return 2;
        if (r)
                goto out;
        if (streq(operand[0], "create"))
                rc = create(c, &req, json);
        else if (streq(operand[0], "list"))
                rc = list_tokens(c, json);
        else
                rc = action(c, IOFLEET__ENROLL_ACTION__KIND__KIND_REVOKE_TOKEN, operand[1]);
out:
        client_free(&c);
        cli_config_free(&cfg);
        return rc;
}
