/* The coordinator's configuration: its keys and their defaults. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "config.h"

typedef struct coord_config {
        char *agent_endpoint;
        char *control_endpoint;
        char *enroll_endpoint; /* "" or "off": no enrolment endpoint */
        char *key;
        char *agent_keys_dir;
        char *control_keys_dir;
        char *results_dir;
        char *state_dir; /* what must survive a restart: which agent id each key stands for */
        char *log_level;
        char *metrics_listen; /* HOST:PORT of /metrics; "" or "off": none */
        uint64_t heartbeat_ns;
        uint64_t lost_after;
        uint64_t lead_ns;
        uint64_t orphan_grace_ns; /* a run's default orphan grace */
        uint64_t fio_logs_max_mib; /* fio's log files one agent may leave in a run (0: no limit) */
        bool journal;             /* runs are journalled (a restart takes them up) */
        uint64_t handshake_timeout_ns; /* a connection must complete CURVE within it */
        bool insecure;
} coord_config_t;

extern const cfg_schema_t coord_config_schema;

/* Fills the built-in defaults; 0 or -ENOMEM. */
int coord_config_defaults(coord_config_t *c);
