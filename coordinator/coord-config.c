/* The coordinator's configuration: its key table, defaults included. */
#include "coord-config.h"

#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "util.h"

#define C(f) .offset = offsetof(coord_config_t, f)
static const cfg_item_t coord_items[] = {
    {.name = "agent_endpoint",
     .type = CFG_STRING,
     C(agent_endpoint),
     .help = "where agents connect; tcp://127.0.0.1:* picks a free port",
     .def = "tcp://*:7460"},
    {.name = "control_endpoint",
     .type = CFG_STRING,
     C(control_endpoint),
     .help = "where the CLI connects",
     .def = "ipc:///run/iofleet/control.sock"},
    {.name = "enroll_endpoint",
     .type = CFG_STRING,
     C(enroll_endpoint),
     .help = "where agents holding an enrolment token (iofleet enroll create) connect to be "
             "admitted; off: none",
     .def = "tcp://*:7462"},
    {.name = "key",
     .type = CFG_STRING,
     C(key),
     .help = "this coordinator's CURVE key pair file",
     .def = "/etc/iofleet/coordinator.key"},
    {.name = "agent_keys_dir",
     .type = CFG_STRING,
     C(agent_keys_dir),
     .help = "allow-list: agents' *.pub files",
     .def = "/etc/iofleet/agents.d"},
    {.name = "control_keys_dir",
     .type = CFG_STRING,
     C(control_keys_dir),
     .help = "allow-list for a tcp control endpoint: CLI *.pub files",
     .def = "/etc/iofleet/admins.d"},
    {.name = "results_dir",
     .type = CFG_STRING,
     C(results_dir),
     .help = "one directory per run goes here",
     .def = "/var/lib/iofleet-coordinator/runs"},
    {.name = "state_dir",
     .type = CFG_STRING,
     C(state_dir),
     .help = "what must survive a restart, e.g. which agent id each agent key stands for",
     .def = "/var/lib/iofleet-coordinator"},
    {.name = "handshake_timeout",
     .type = CFG_DURATION,
     C(handshake_timeout_ns),
     .min = 100 * NSEC_PER_MSEC,
     .max = 300 * NSEC_PER_SEC,
     .help = "a connection that has not completed the CURVE handshake by then is closed",
     .def = "10s"},
    {.name = "heartbeat",
     .type = CFG_DURATION,
     C(heartbeat_ns),
     .min = 10 * NSEC_PER_MSEC,
     .max = 600 * NSEC_PER_SEC,
     .help = "heartbeat period both ways",
     .def = "1s"},
    {.name = "lost_after",
     .type = CFG_UINT,
     C(lost_after),
     .min = 2,
     .max = 1000,
     .help = "missed heartbeats before an agent is marked lost",
     .def = "5"},
    {.name = "lead",
     .type = CFG_DURATION,
     C(lead_ns),
     .min = 10 * NSEC_PER_MSEC,
     .max = 3600 * NSEC_PER_SEC,
     .help = "default time from Start to the start instant",
     .def = "2s"},
    {.name = "orphan_grace",
     .type = CFG_DURATION,
     C(orphan_grace_ns),
     .min = 0,
     .max = 7 * NSEC_PER_DAY,
     .help = "how long a run waits for an agent that lost touch, and the agent runs on without "
             "the coordinator, when the run does not say; 0 stops at once",
     .def = "5m"},
    {.name = "fio_logs_max_mib",
     .type = CFG_UINT,
     C(fio_logs_max_mib),
     .min = 0,
     .max = UINT64_C(1) << 30,
     .help = "the most MiB of fio's log files (write_bw_log, ...) one agent's jobs may leave in "
             "a run's directory (its logs stop there, and the result says so); 0: no limit",
     .def = "2048"},
    {.name = "journal",
     .type = CFG_BOOL,
     C(journal),
     .help = "journal each run in its directory, so that a restarted coordinator takes it up",
     .def = "true"},
    {.name = "insecure",
     .type = CFG_BOOL,
     C(insecure),
     .help = "no CURVE: only for loopback and ipc endpoints, warns at every start",
     .def = "false"},
    {.name = "metrics_listen",
     .type = CFG_STRING,
     C(metrics_listen),
     .help = "HOST:PORT serving Prometheus GET /metrics, unauthenticated; [::1]:PORT for IPv6, "
             "\"off\" or empty for none",
     .def = "127.0.0.1:9464"},
    {.name = "log_level",
     .type = CFG_CHOICE,
     C(log_level),
     .choices = "debug,info,notice,warning,error",
     .help = "least severe messages logged",
     .def = "info"},
};
#undef C

const cfg_schema_t coord_config_schema = {"coordinator", coord_items, ELEMENTSOF(coord_items),
                                          SIZE_MAX};

int coord_config_defaults(coord_config_t *c)
{
        memset(c, 0, sizeof(*c));
        return config_defaults(&coord_config_schema, c);
}
