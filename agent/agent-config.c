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
    {"allow_paths", CFG_LIST, A(allow_paths), 0, 0, NULL,
     "directories the agent may export, mount on or write job files in (default: work_dir and "
     "mount_root)"},
    {"allow_block_devices", CFG_BOOL, A(allow_block_devices), 0, 0, NULL,
     "let jobs write to block devices inside allow_paths (default false)"},
    {"mount_root", CFG_STRING, A(mount_root), 0, 0, NULL,
     "client NFS mounts go to MOUNT_ROOT/<run-id> (default /run/iofleet-agent/mnt)"},
    {"mount_bin", CFG_STRING, A(mount_bin), 0, 0, NULL,
     "mount program, absolute (default /bin/mount)"},
    {"umount_bin", CFG_STRING, A(umount_bin), 0, 0, NULL,
     "umount program, absolute (default /bin/umount)"},
    {"sysctl_root", CFG_STRING, A(sysctl_root), 0, 0, NULL,
     "where sysctls are read and written (default /proc/sys; a scratch tree in tests)"},
    {"roles", CFG_LIST, A(roles), 0, 0, "storage,client", "storage and/or client"},
    {"insecure", CFG_BOOL, A(insecure), 0, 0, NULL,
     "no CURVE: only to a loopback coordinator, warns at every start (default false)"},
    {"log_level", CFG_CHOICE, A(log_level), 0, 0, "debug,info,notice,warning,error",
     "debug, info, notice, warning or error (default info)"},
    {"nfs_backend", CFG_CHOICE, A(nfs_backend), 0, 0, "kernel,ganesha,none",
     "NFS server this agent configures: kernel, ganesha or none (default none: cannot serve)"},
    {"nfs_address", CFG_STRING, A(nfs_address), 0, 0, NULL,
     "address clients use to reach this NFS server (default 127.0.0.1)"},
    {"nfs_conf", CFG_STRING, A(nfs_conf), 0, 0, NULL,
     "kernel backend: nfs.conf whose [nfsd] threads/vers* it sets (default /etc/nfs.conf)"},
    {"exports_dir", CFG_STRING, A(exports_dir), 0, 0, NULL,
     "kernel backend: directory of iofleet.exports (default /etc/exports.d)"},
    {"exportfs", CFG_STRING, A(exportfs), 0, 0, NULL,
     "kernel backend: exportfs program, absolute (default /usr/sbin/exportfs)"},
    {"ganesha_conf", CFG_STRING, A(ganesha_conf), 0, 0, NULL,
     "ganesha backend: main config that gets a %include line (default /etc/ganesha/ganesha.conf)"},
    {"ganesha_export_file", CFG_STRING, A(ganesha_export_file), 0, 0, NULL,
     "ganesha backend: the EXPORT block file (default /etc/ganesha/iofleet-export.conf)"},
    {"ganesha_start", CFG_STRING, A(ganesha_start), 0, 0, NULL,
     "ganesha backend without systemd: command line that starts ganesha (absolute program)"},
    {"ganesha_pidfile", CFG_STRING, A(ganesha_pidfile), 0, 0, NULL,
     "ganesha backend without systemd: ganesha's pid file (default /run/ganesha.pid)"},
    {"ganesha_port", CFG_UINT, A(ganesha_port), 1, 65535, NULL,
     "ganesha backend: NFS port checked after a start (default 2049)"},
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
        if (strdup_to(&c->mount_root, "/run/iofleet-agent/mnt") < 0 ||
            strdup_to(&c->mount_bin, "/bin/mount") < 0 ||
            strdup_to(&c->umount_bin, "/bin/umount") < 0 ||
            strdup_to(&c->sysctl_root, "/proc/sys") < 0)
                return -ENOMEM;
        if (strdup_to(&c->nfs_backend, "none") < 0 ||
            strdup_to(&c->nfs_address, "127.0.0.1") < 0 ||
            strdup_to(&c->nfs_conf, "/etc/nfs.conf") < 0 ||
            strdup_to(&c->exports_dir, "/etc/exports.d") < 0 ||
            strdup_to(&c->exportfs, "/usr/sbin/exportfs") < 0 ||
            strdup_to(&c->ganesha_conf, "/etc/ganesha/ganesha.conf") < 0 ||
            strdup_to(&c->ganesha_export_file, "/etc/ganesha/iofleet-export.conf") < 0 ||
            strdup_to(&c->ganesha_pidfile, "/run/ganesha.pid") < 0)
                return -ENOMEM;
        c->ganesha_port = 2049;
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
        const struct {
                const char *key, *value;
        } host_paths[] = {{"mount_root", c->mount_root},
                          {"mount_bin", c->mount_bin},
                          {"umount_bin", c->umount_bin},
                          {"sysctl_root", c->sysctl_root}};
        for (size_t i = 0; i < ELEMENTSOF(host_paths); i++)
                if (!host_paths[i].value || host_paths[i].value[0] != '/') {
                        snprintf(err, errlen, "%s: '%s' must be an absolute path",
                                 host_paths[i].key,
                                 host_paths[i].value ? host_paths[i].value : "");
                        return -EINVAL;
                }
        for (size_t i = 0; i < c->allow_paths.n; i++)
                if (c->allow_paths.v[i][0] != '/' || streq(c->allow_paths.v[i], "/")) {
                        snprintf(err, errlen,
                                 "allow_paths: '%s' must be an absolute directory other than /",
                                 c->allow_paths.v[i]);
                        return -EINVAL;
                }
        const struct {
                const char *key, *value;
        } nfs_paths[] = {{"nfs_conf", c->nfs_conf},
                         {"exports_dir", c->exports_dir},
                         {"exportfs", c->exportfs},
                         {"ganesha_conf", c->ganesha_conf},
                         {"ganesha_export_file", c->ganesha_export_file},
                         {"ganesha_start", c->ganesha_start},
                         {"ganesha_pidfile", c->ganesha_pidfile}};
        for (size_t i = 0; i < ELEMENTSOF(nfs_paths); i++)
                if (nfs_paths[i].value && nfs_paths[i].value[0] != '/') {
                        snprintf(err, errlen, "%s: '%s' must be an absolute path",
                                 nfs_paths[i].key, nfs_paths[i].value);
                        return -EINVAL;
                }
        return 0;
}
