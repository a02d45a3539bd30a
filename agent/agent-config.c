/* The agent's configuration: its keys, defaults, test hooks and whole-config checks. */
#include "agent-config.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "options.h"
#include "sock.h"
#include "util.h"
#include "wire.h"

#define A(f) offsetof(agent_config_t, f)
static const cfg_item_t agent_items[] = {
    {"name", CFG_STRING, A(name), 0, 0, NULL,
     "unique agent name, part of its file names (default: the hostname)"},
    {"coordinator", CFG_STRING, A(coordinator), 0, 0, NULL,
     "coordinator endpoint, e.g. tcp://coord.example:7460"},
    {"coordinator_key", CFG_STRING, A(coordinator_key), 0, 0, NULL,
     "the coordinator's public key file, pinned (default /etc/iofleet/coordinator.pub)"},
    {"key", CFG_STRING, A(key), 0, 0, NULL,
     "this agent's CURVE key pair file (default /etc/iofleet/agent.key)"},
    {"state_dir", CFG_STRING, A(state_dir), 0, 0, NULL,
     "identity and restore records (default /var/lib/iofleet-agent)"},
    {"work_dir", CFG_STRING, A(work_dir), 0, 0, NULL,
     "directory for job files when a job names none (default STATE_DIR/work)"},
    {"roles", CFG_LIST, A(roles), 0, 0, "storage,client", "storage and/or client"},
    {"insecure", CFG_BOOL, A(insecure), 0, 0, NULL,
     "no CURVE: only to a loopback coordinator, warns at every start (default false)"},
    {"log_level", CFG_CHOICE, A(log_level), 0, 0, "debug,info,notice,warning,error",
     "debug, info, notice, warning or error (default info)"},
};
#undef A

const cfg_schema_t agent_config_schema = {"agent", agent_items, ELEMENTSOF(agent_items),
                                          offsetof(agent_config_t, labels)};

int agent_config_defaults(agent_config_t *c)
{
        memset(c, 0, sizeof(*c));
        if (strdup_to(&c->coordinator, "tcp://127.0.0.1:7460") < 0 ||
            strdup_to(&c->coordinator_key, "/etc/iofleet/coordinator.pub") < 0 ||
            strdup_to(&c->key, "/etc/iofleet/agent.key") < 0 ||
            strdup_to(&c->state_dir, "/var/lib/iofleet-agent") < 0 ||
            strdup_to(&c->log_level, "info") < 0)
                return -ENOMEM;
        return 0;
}

int agent_config_extra_arg(void *target, const char *arg, char *err, size_t errlen)
{
        agent_config_t *c = target;
        if (strncmp(arg, "--test-clock-offset=", 20) == 0) {
                const char *v = arg + 20;
                bool neg = v[0] == '-';
                uint64_t ns;
                if (parse_duration(v + neg, NSEC_PER_SEC, &ns) < 0 ||
                    ns > 365ULL * 86400 * NSEC_PER_SEC) {
                        snprintf(err, errlen,
                                 "--test-clock-offset: '%s' is not a duration (e.g. 2s, -150ms)",
                                 v);
                        return -EINVAL;
                }
                c->test_clock_offset_ns = neg ? -(int64_t)ns : (int64_t)ns;
                return 1;
        }
        if (strncmp(arg, "--test-protocol-version=", 24) == 0) {
                char *end;
                unsigned long v = strtoul(arg + 24, &end, 10);
                if (*end || v == 0 || v > 1000) {
                        snprintf(err, errlen, "--test-protocol-version: 1..1000");
                        return -EINVAL;
                }
                c->test_protocol_version = (uint32_t)v;
                return 1;
        }
        return 0;
}

int agent_config_check(const agent_config_t *c, char *err, size_t errlen)
{
        const char *n = c->name;
        if (n) {
                size_t len = strlen(n);
                bool ok = len > 0 && len <= WIRE_MAX_NAME;
                for (const char *p = n; ok && *p; p++)
                        ok = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
                             (*p >= '0' && *p <= '9') || *p == '-' || *p == '_' || *p == '.';
                if (!ok) {
                        snprintf(err, errlen,
                                 "name: '%s' must be 1-%d of A-Z a-z 0-9 . _ - (it becomes part "
                                 "of file names)",
                                 n, WIRE_MAX_NAME);
                        return -EINVAL;
                }
        }
        if (c->labels.n > WIRE_MAX_LABELS) {
                snprintf(err, errlen, "labels: %zu given, at most %d allowed", c->labels.n,
                         WIRE_MAX_LABELS);
                return -E2BIG;
        }
        if (strncmp(c->coordinator, "tcp://", 6) != 0 &&
            strncmp(c->coordinator, "ipc://", 6) != 0) {
                snprintf(err, errlen, "coordinator: '%s' is not a tcp:// or ipc:// endpoint",
                         c->coordinator);
                return -EINVAL;
        }
        if (c->insecure && !sock_endpoint_is_local(c->coordinator)) {
                snprintf(err, errlen,
                         "insecure: only allowed with a loopback or ipc:// coordinator, not %s; "
                         "make keys with 'iofleet keygen'",
                         c->coordinator);
                return -EPERM;
        }
        return 0;
}
