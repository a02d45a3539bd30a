/* What a step changes on this host and how it is put back: the NFS server's configuration,
 * sysctls, the client mount, all through the restore record. */
#pragma once

#include <stddef.h>

#include "agent-config.h"
#include "kv.h"
#include "restore.h"
#include "wire.h"

/* Opens the restore record and, when a previous life of the agent left changes behind (a crash,
 * kill -9), puts them back now. 0, or -errno when the record cannot be opened (the agent must
 * not change anything then); a failed replay is logged and kept for the next try. */
int host_open(const agent_config_t *cfg, restore_t **ret);

/* A server's Prepare: checks the settings against this agent's backend and allow_paths, then
 * applies sysctls and the export (saving each original first). effective gets what took effect,
 * with "address" (nfs_address) and "export_path" for the clients. 0 or -errno with err set;
 * on failure whatever was changed is already put back. */
int host_prepare_server(const agent_config_t *cfg, restore_t *r, const kvlist_t *settings,
                        const kvlist_t *sysctls, kvlist_t *effective, char *err, size_t errlen);

/* A client's Prepare: sysctls, then with mount=yes the NFS mount of nfs_server:nfs_export under
 * the mount root (mountpoint gets its path, "" without a mount). 0 or -errno with err set. */
int host_prepare_client(const agent_config_t *cfg, restore_t *r, const Iofleet__Prepare *p,
                        char *mountpoint, size_t mplen, kvlist_t *effective, char *err,
                        size_t errlen);

/* A client's jobs where the plan left them open: directory inside the mount point, the nfs
 * engine's URL from the server, its export and the port options. Applied to the spec after the
 * wire's options. 0 or -EINVAL with err set. */
int host_job_defaults(const Iofleet__Prepare *p, const char *mountpoint, job_spec_t *spec,
                      char *err, size_t errlen);

/* Appends wire settings to a list; 0 or -ENOMEM. */
int host_settings(Iofleet__Setting **v, size_t n, kvlist_t *kv);

/* Puts everything back (restore_apply) and notes the outcome in effective as "restored". */
int host_teardown(restore_t *r, kvlist_t *effective);
