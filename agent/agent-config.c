/* The agent's configuration: its key table (defaults and test hooks included) and whole-config
 * checks. */
#include "agent-config.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "options-values.h"
#include "options.h"
#include "sock.h"
#include "util.h"
#include "wire.h"

#define A(f) .offset = offsetof(agent_config_t, f)
static const cfg_item_t agent_items[] = {
    {.name = "name",
     .type = CFG_STRING,
     A(name),
     .help = "unique agent name, part of its file names",
     .def_doc = "the host name"},
    {.name = "coordinator",
     .type = CFG_STRING,
     A(coordinator),
     .help = "coordinator endpoint, e.g. tcp://coord.example:7460",
     .def = "tcp://127.0.0.1:7460"},
    {.name = "coordinator_key",
     .type = CFG_STRING,
     A(coordinator_key),
     .help = "the coordinator's public key file, pinned",
     .def = "/etc/iofleet/coordinator.pub"},
    {.name = "key",
     .type = CFG_STRING,
     A(key),
     .help = "this agent's CURVE key pair file",
     .def = "/etc/iofleet/agent.key"},
    {.name = "enroll_token_file",
     .type = CFG_STRING,
     A(enroll_token_file),
     .help = "an enrolment token (iofleet enroll create), private (0600): at start the agent "
             "makes its key if it has none, has the coordinator admit it, and removes the file",
     .def = "/etc/iofleet/enroll.token"},
    {.name = "enroll_endpoint",
     .type = CFG_STRING,
     A(enroll_endpoint),
     .help = "the coordinator's enrolment endpoint",
     .def_doc = "the coordinator's host, port 7462"},
    {.name = "enroll_timeout",
     .type = CFG_DURATION,
     A(enroll_timeout_ns),
     .min = NSEC_PER_SEC,
     .max = 3600 * NSEC_PER_SEC,
     .help = "how long enrolment keeps trying to reach the coordinator before the agent exits",
     .def = "60s"},
    {.name = "state_dir",
     .type = CFG_STRING,
     A(state_dir),
     .help = "identity and restore records",
     .def = "/var/lib/iofleet-agent"},
    {.name = "work_dir",
     .type = CFG_STRING,
     A(work_dir),
     .help = "directory for job files when a job names none",
     .def_doc = "STATE_DIR/work"},
    {.name = "allow_paths",
     .type = CFG_LIST,
     A(allow_paths),
     .help = "directories the agent may export, mount on or write job files in",
     .def_doc = "work_dir and mount_root"},
    {.name = "allow_commands",
     .type = CFG_LIST,
     A(allow_commands),
     .help = "programs jobs may run before or after themselves (fio's exec_prerun and "
             "exec_postrun), as NAME:/absolute/path, comma-separated: a job names one, never "
             "gives a command line",
     .def_doc = "none"},
    {.name = "allow_block_devices",
     .type = CFG_BOOL,
     A(allow_block_devices),
     .help = "let jobs write to block devices inside allow_paths",
     .def = "false"},
    {.name = "mount_root",
     .type = CFG_STRING,
     A(mount_root),
     .help = "client NFS mounts go to MOUNT_ROOT/<run-id>",
     .def = "/run/iofleet-agent/mnt"},
    {.name = "mount_bin",
     .type = CFG_STRING,
     A(mount_bin),
     .help = "mount program, absolute",
     .def = "/bin/mount"},
    {.name = "umount_bin",
     .type = CFG_STRING,
     A(umount_bin),
     .help = "umount program, absolute",
     .def = "/bin/umount"},
    {.name = "sysctl_root",
     .type = CFG_STRING,
     A(sysctl_root),
     .help = "where sysctls are read and written; a scratch tree in tests",
     .def = "/proc/sys"},
    {.name = "roles",
     .type = CFG_LIST,
     A(roles),
     .choices = "storage,client",
     .help = "what this host does in runs",
     .def_doc = "none, so only name and label selectors pick it"},
    {.name = "insecure",
     .type = CFG_BOOL,
     A(insecure),
     .help = "no CURVE: only to a loopback coordinator, warns at every start",
     .def = "false"},
    {.name = "log_level",
     .type = CFG_CHOICE,
     A(log_level),
     .choices = "debug,info,notice,warning,error",
     .help = "least severe messages logged",
     .def = "info"},
    {.name = "nfs_backend",
     .type = CFG_CHOICE,
     A(nfs_backend),
     .choices = "kernel,ganesha,none",
     .help = "NFS server this agent configures; with none it cannot serve",
     .def = "none"},
    {.name = "nfs_address",
     .type = CFG_STRING,
     A(nfs_address),
     .help = "address clients use to reach this NFS server",
     .def = "127.0.0.1"},
    {.name = "nfs_conf",
     .type = CFG_STRING,
     A(nfs_conf),
     .help = "kernel backend: nfs.conf whose [nfsd] threads/vers* it sets",
     .def = "/etc/nfs.conf"},
    {.name = "exports_dir",
     .type = CFG_STRING,
     A(exports_dir),
     .help = "kernel backend: directory of iofleet.exports",
     .def = "/etc/exports.d"},
    {.name = "exportfs",
     .type = CFG_STRING,
     A(exportfs),
     .help = "kernel backend: exportfs program, absolute",
     .def = "/usr/sbin/exportfs"},
    {.name = "ganesha_conf",
     .type = CFG_STRING,
     A(ganesha_conf),
     .help = "ganesha backend: main config that gets a %include line",
     .def = "/etc/ganesha/ganesha.conf"},
    {.name = "ganesha_export_file",
     .type = CFG_STRING,
     A(ganesha_export_file),
     .help = "ganesha backend: the EXPORT block file",
     .def = "/etc/ganesha/iofleet-export.conf"},
    {.name = "ganesha_start",
     .type = CFG_STRING,
     A(ganesha_start),
     .help = "ganesha backend without systemd: command line that starts ganesha, its program "
             "absolute",
     .def_doc = "none"},
    {.name = "ganesha_pidfile",
     .type = CFG_STRING,
     A(ganesha_pidfile),
     .help = "ganesha backend without systemd: ganesha's pid file",
     .def = "/run/ganesha.pid"},
    {.name = "ganesha_port",
     .type = CFG_UINT,
     A(ganesha_port),
     .min = 1,
     .max = 65535,
     .help = "ganesha backend: NFS port checked after a start",
     .def = "2049"},
    {.name = "test_clock_offset",
     .type = CFG_SDURATION,
     A(test_clock_offset_ns),
     .max = 365 * NSEC_PER_DAY,
     .help = "make this agent's clock read off by this much",
     .def = "0",
     .flags = CFG_TEST_HOOK},
    {.name = "test_protocol_version",
     .type = CFG_UINT,
     A(test_protocol_version),
     .min = 1,
     .max = 1000,
     .help = "claim this protocol version, to test refusals",
     .def_doc = "the real one",
     .flags = CFG_TEST_HOOK},
    {.name = "test_layout_rate",
     .type = CFG_UINT,
     A(test_layout_rate),
     .max = 1ULL << 40,
     .help = "write each file's layout at most this many bytes a second (0: as fast as it goes), "
             "so that tests see a layout's progress",
     .def = "0",
     .flags = CFG_TEST_HOOK},
};
#undef A

const cfg_schema_t agent_config_schema = {"agent", agent_items, ELEMENTSOF(agent_items),
                                          offsetof(agent_config_t, labels)};

int agent_config_defaults(agent_config_t *c)
{
        memset(c, 0, sizeof(*c));
        return config_defaults(&agent_config_schema, c);
}

const char *agent_config_command(const agent_config_t *c, const char *name)
{
        size_t n = strlen(name);
        for (size_t i = 0; i < c->allow_commands.n; i++)
                if (strncmp(c->allow_commands.v[i], name, n) == 0 &&
                    c->allow_commands.v[i][n] == ':')
                        return c->allow_commands.v[i] + n + 1;
        return NULL;
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
        for (size_t i = 0; i < c->allow_commands.n; i++) {
                const char *e = c->allow_commands.v[i], *colon = strchr(e, ':');
                char name[80];
                if (colon && (size_t)(colon - e) < sizeof(name)) {
                        snprintf(name, sizeof(name), "%.*s", (int)(colon - e), e);
                        if (exec_name_valid(name) && colon[1] == '/' && !strchr(colon, ' '))
                                continue;
                }
                snprintf(err, errlen,
                         "allow_commands: '%s' is not NAME:/absolute/path (NAME of A-Za-z0-9._-, "
                         "the program without arguments)",
                         e);
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
