/* The coordinator's configuration: its keys and their defaults. */
#include "coord-config.h"

#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "util.h"

#define C(f) offsetof(coord_config_t, f)
static const cfg_item_t coord_items[] = {
    {"agent_endpoint", CFG_STRING, C(agent_endpoint), 0, 0, NULL,
     "where agents connect (default tcp://*:7460; tcp://127.0.0.1:* picks a free port)"},
    {"control_endpoint", CFG_STRING, C(control_endpoint), 0, 0, NULL,
     "where the CLI connects (default ipc:///run/iofleet/control.sock)"},
    {"key", CFG_STRING, C(key), 0, 0, NULL,
     "this coordinator's CURVE key pair file (default /etc/iofleet/coordinator.key)"},
    {"agent_keys_dir", CFG_STRING, C(agent_keys_dir), 0, 0, NULL,
     "allow-list: agents' *.pub files (default /etc/iofleet/agents.d)"},
    {"control_keys_dir", CFG_STRING, C(control_keys_dir), 0, 0, NULL,
     "allow-list for a tcp control endpoint: CLI *.pub files (default /etc/iofleet/admins.d)"},
    {"results_dir", CFG_STRING, C(results_dir), 0, 0, NULL,
     "one directory per run goes here (default /var/lib/iofleet-coordinator/runs)"},
    {"state_dir", CFG_STRING, C(state_dir), 0, 0, NULL,
     "what must survive a restart, e.g. which agent id each agent key stands for (default "
     "/var/lib/iofleet-coordinator)"},
    {"handshake_timeout", CFG_DURATION, C(handshake_timeout_ns), 100 * NSEC_PER_MSEC,
     300 * NSEC_PER_SEC, NULL,
     "a connection that has not completed the CURVE handshake by then is closed (default 10s)"},
    {"heartbeat", CFG_DURATION, C(heartbeat_ns), 10 * NSEC_PER_MSEC, 600 * NSEC_PER_SEC, NULL,
     "heartbeat period both ways (default 1s)"},
    {"lost_after", CFG_UINT, C(lost_after), 2, 1000, NULL,
     "missed heartbeats before an agent is marked lost (default 5)"},
    {"lead", CFG_DURATION, C(lead_ns), 10 * NSEC_PER_MSEC, 3600 * NSEC_PER_SEC, NULL,
     "default time from Start to the start instant (default 2s)"},
    {"insecure", CFG_BOOL, C(insecure), 0, 0, NULL,
     "no CURVE: only for loopback and ipc endpoints, warns at every start (default false)"},
    {"metrics_listen", CFG_STRING, C(metrics_listen), 0, 0, NULL,
     "HOST:PORT serving Prometheus GET /metrics, unauthenticated ([::1]:PORT for IPv6; \"off\" "
     "or empty: none; default 127.0.0.1:9464)"},
    {"log_level", CFG_CHOICE, C(log_level), 0, 0, "debug,info,notice,warning,error",
     "debug, info, notice, warning or error (default info)"},
};
#undef C

const cfg_schema_t coord_config_schema = {"coordinator", coord_items, ELEMENTSOF(coord_items),
                                          SIZE_MAX};

int coord_config_defaults(coord_config_t *c)
{
        memset(c, 0, sizeof(*c));
        c->heartbeat_ns = NSEC_PER_SEC;
        c->lost_after = 5;
        c->lead_ns = 2 * NSEC_PER_SEC;
        c->handshake_timeout_ns = 10 * NSEC_PER_SEC;
        if (strdup_to(&c->agent_endpoint, "tcp://*:7460") < 0 ||
            strdup_to(&c->control_endpoint, "ipc:///run/iofleet/control.sock") < 0 ||
            strdup_to(&c->key, "/etc/iofleet/coordinator.key") < 0 ||
            strdup_to(&c->agent_keys_dir, "/etc/iofleet/agents.d") < 0 ||
            strdup_to(&c->control_keys_dir, "/etc/iofleet/admins.d") < 0 ||
            strdup_to(&c->results_dir, "/var/lib/iofleet-coordinator/runs") < 0 ||
            strdup_to(&c->state_dir, "/var/lib/iofleet-coordinator") < 0 ||
            strdup_to(&c->log_level, "info") < 0 ||
            strdup_to(&c->metrics_listen, "127.0.0.1:9464") < 0)
                return -ENOMEM;
        return 0;
}
