/* The agent's configuration: its key table (defaults and test hooks included) and whole-config
 * checks. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config.h"

typedef struct agent_config {
        char *name;
        char *coordinator;
        char *coordinator_key;
        char *key;
        char *state_dir;
        char *work_dir;
        char *log_level;
        /* Host state the agent may touch (agent/policy.c, mount.c, sysctl.c). */
        strv_t allow_paths;       /* empty: work_dir and mount_root */
        bool allow_block_devices;
        /* Programs a job may have run (fio's exec_prerun/exec_postrun name one): "NAME:/path"
         * each; empty: none. A job names a command, never gives a command line. */
        strv_t allow_commands;
        char *mount_root;
        char *mount_bin;
        char *umount_bin;
        char *sysctl_root;
        strv_t roles;
        strv_t labels;
        bool insecure;
        /* Enrolment (agent/enroll.c): a token from the command line (--enroll-token=, not in the
         * table: a config file is no place for it) or the file; where and how long to try. */
        char *enroll_token;
        char *enroll_token_file;
        char *enroll_endpoint; /* NULL: the coordinator's host, port 7462 */
        uint64_t enroll_timeout_ns;
        /* NFS server side (agent/nfs-*.c). */
        char *nfs_backend; /* kernel, ganesha or none */
        char *nfs_address;
        char *nfs_conf;
        char *exports_dir;
        char *exportfs;
        char *ganesha_conf;
        char *ganesha_export_file;
        char *ganesha_start;
        char *ganesha_pidfile;
        uint64_t ganesha_port;
        /* Test hooks, command line only. */
        int64_t test_clock_offset_ns;
        uint64_t test_protocol_version; /* 0: the real one */
        uint64_t test_layout_rate;      /* bytes/s each file is laid out at, at most; 0 unpaced */
} agent_config_t;

extern const cfg_schema_t agent_config_schema;

/* Zeroes c and sets the table's defaults; 0 or -ENOMEM. */
int agent_config_defaults(agent_config_t *c);
/* The program allow_commands maps name to, or NULL when it names none. */
const char *agent_config_command(const agent_config_t *c, const char *name);
/* Checks the whole configuration (name syntax, endpoint, insecure only on loopback). */
int agent_config_check(const agent_config_t *c, char *err, size_t errlen);
