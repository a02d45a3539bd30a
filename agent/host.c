/* What a step changes on this host (NFS server, sysctls, client mount) and putting it back. */
#include "host.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log.h"
#include "mount.h"
#include "nfs-server.h"
#include "nfs-settings.h"
#include "options.h"
#include "policy.h"
#include "sysctl.h"
#include "util.h"

int host_settings(Iofleet__Setting **v, size_t n, kvlist_t *kv)
{
        for (size_t i = 0; i < n; i++)
                if (kv_push(kv, v[i]->key, v[i]->value, 0) < 0)
                        return -ENOMEM;
        return 0;
}

int host_open(const agent_config_t *cfg, restore_t **ret)
{
        restore_t *r = NULL;
        char err[1024];
        int rc = restore_open(cfg->state_dir, &r);
        if (rc < 0)
                return log_error_errno(rc, "restore record in %s: %m", cfg->state_dir);
        if ((rc = nfs_backends_register(cfg, r)) < 0) {
                restore_close(&r);
                return log_error_errno(rc, "restore record: cannot register services: %m");
        }
        if (restore_pending(r)) {
                log_notice("restore record: a previous run of this agent left changes behind "
                           "(crash?); putting them back");
                if (restore_apply(r, err, sizeof(err)) < 0)
                        log_error("restore record: not everything could be put back: %s "
                                  "(kept for the next try)",
                                  err);
                else
                        log_notice("restore record: host configuration put back");
        }
        *ret = r;
        return 0;
}

/* Puts back a half-applied change at once, keeping the first error for the caller. */
static int undo(restore_t *r, int rc)
{
        char e[1024];
        if (restore_pending(r) && restore_apply(r, e, sizeof(e)) < 0)
                log_error("putting back after a failed prepare: %s", e);
        return rc;
}

int host_prepare_server(const agent_config_t *cfg, restore_t *r, const kvlist_t *settings_in,
                        const kvlist_t *sysctls_in, kvlist_t *effective, char *err, size_t errlen)
{
        const kvlist_t settings = *settings_in, sysctls = *sysctls_in;
        const nfs_backend_t *b;
        nfs_export_t exp;
        const char *backend = strempty(cfg->nfs_backend) ? "none" : cfg->nfs_backend;
        char e[1024];
        int rc, efd = -1;

        if (streq(backend, "none")) {
                rc = errorf(err, errlen, -EPERM,
                            "this agent serves no NFS: its config has nfs_backend=none (set "
                            "kernel or ganesha)");
                goto out;
        }
        if (kv_get(&settings, "backend") && !streq(kv_get(&settings, "backend"), backend)) {
                rc = errorf(err, errlen, -EINVAL,
                            "[server] backend=%s, but this agent's NFS server is %s "
                            "(nfs_backend in its config)",
                            kv_get(&settings, "backend"), backend);
                goto out;
        }
        if ((rc = nfs_settings_parse(backend, &settings, &exp, err, errlen)) < 0 ||
            (rc = sysctl_check(&sysctls, err, errlen)) < 0)
                goto out;
        /* Held open while the NFS server is set up: it looks the path up by name. */
        if ((rc = policy_open(cfg, exp.path, PATH_EXPORT, O_PATH | O_DIRECTORY, 0, NULL, &efd, e,
                              sizeof(e))) < 0) {
                rc = errorf(err, errlen, rc, "[server] path=%s: %s", exp.path, e);
                goto out;
        }
        if (!(b = nfs_backend_find(backend))) {
                rc = errorf(err, errlen, -EINVAL, "nfs_backend=%s: no such backend", backend);
                goto out;
        }
        if ((rc = sysctl_apply(cfg->sysctl_root, r, &sysctls, effective, err, errlen)) < 0 ||
            (rc = b->apply(cfg, r, &settings, effective, err, errlen)) < 0) {
                rc = undo(r, rc);
                goto out;
        }
        /* The server read the path by name: it must still lead to the directory checked. */
        if ((rc = policy_verify_named(cfg, exp.path, PATH_EXPORT, efd, e, sizeof(e))) < 0) {
                rc = undo(r, errorf(err, errlen, rc, "[server] path=%s: %s", exp.path, e));
                goto out;
        }
        kv_set(effective, "backend", backend);
        kv_set(effective, "address", cfg->nfs_address ? cfg->nfs_address : "");
        kv_set(effective, "export_path", exp.path);
        rc = 0;
out:
        if (efd >= 0)
                close(efd);
        return rc;
}

int host_prepare_client(const agent_config_t *cfg, restore_t *r, const Iofleet__Prepare *p,
                        char *mountpoint, size_t mplen, kvlist_t *effective, char *err,
                        size_t errlen)
{
        kvlist_t sysctls = {0}, mount = {0}, opts = {0};
        const char *mode, *server, *export;
        int rc;

        mountpoint[0] = 0;
        if ((rc = host_settings(p->sysctls, p->n_sysctls, &sysctls)) < 0 ||
            (rc = host_settings(p->mount, p->n_mount, &mount)) < 0)
                goto out;
        if ((rc = sysctl_check(&sysctls, err, errlen)) < 0)
                goto out;
        mode = kv_get(&mount, "mount");
        server = kv_get(&mount, "server") ? kv_get(&mount, "server") : p->nfs_server;
        export = kv_get(&mount, "export") ? kv_get(&mount, "export") : p->nfs_export;
        for (size_t i = 0; i < mount.n; i++)
                if (!streq(mount.v[i].key, "mount") && !streq(mount.v[i].key, "server") &&
                    !streq(mount.v[i].key, "export") &&
                    (rc = kv_push(&opts, mount.v[i].key, mount.v[i].value, 0)) < 0)
                        goto out;
        if ((rc = mount_options_check(&opts, err, errlen)) < 0)
                goto out;
        if (mode && streq(mode, "yes") && (strempty(server) || strempty(export))) {
                rc = errorf(err, errlen, -EINVAL,
                            "mount=yes but no server to mount: the server reported no address "
                            "(nfs_address in its config) and the plan names no server=/export=");
                goto out;
        }
        if ((rc = sysctl_apply(cfg->sysctl_root, r, &sysctls, effective, err, errlen)) < 0) {
                rc = undo(r, rc);
                goto out;
        }
        if (mode && streq(mode, "yes")) {
                rc = nfs_mount(cfg, r, p->run_id, server, export, &opts, mountpoint, mplen,
                               effective, err, errlen);
                if (rc < 0) {
                        rc = undo(r, rc);
                        goto out;
                }
        }
        rc = 0;
out:
        kv_clear(&sysctls);
        kv_clear(&mount);
        kv_clear(&opts);
        return rc;
}

int host_job_defaults(const Iofleet__Prepare *p, const char *mountpoint, job_spec_t *spec,
                      char *err, size_t errlen)
{
        char buf[8192], e[512];
        const char *port = NULL, *mountport = NULL, *server = p->nfs_server,
                   *export = p->nfs_export;
        int rc;

        for (size_t i = 0; i < p->n_mount; i++) {
                const char *k = p->mount[i]->key, *v = p->mount[i]->value;
                if (streq(k, "port"))
                        port = v;
                else if (streq(k, "mountport"))
                        mountport = v;
                else if (streq(k, "server"))
                        server = v;
                else if (streq(k, "export"))
                        export = v;
        }
        if (!strempty(mountpoint)) {
                /* A relative directory is taken inside the mount, none means the mount itself. */
                if (strempty(spec->directory))
                        snprintf(buf, sizeof(buf), "%s", mountpoint);
                else if (spec->directory[0] != '/')
                        snprintf(buf, sizeof(buf), "%s/%s", mountpoint, spec->directory);
                else
                        buf[0] = 0;
                if (buf[0] && (rc = job_option_set(spec, "directory", buf, e, sizeof(e))) < 0)
                        return errorf(err, errlen, rc, "job %s: %s", spec->name, e);
        }
        if (spec->ioengine && streq(spec->ioengine, "nfs") && strempty(spec->nfs_url)) {
                if (strempty(server) || strempty(export))
                        return errorf(err, errlen, -EINVAL,
                                      "job %s: nfs_url: ioengine=nfs needs it "
                                      "(nfs://SERVER/EXPORT[?options]), or a plan with a "
                                      "[server] (or server= and export= in [client])",
                                      spec->name);
                snprintf(buf, sizeof(buf), "nfs://%s%s%s%s%s%s%s", server,
                         export[0] == '/' ? "" : "/", export, port || mountport ? "?" : "",
                         port ? "nfsport=" : "", port ? port : "",
                         mountport ? (port ? "&mountport=" : "mountport=") : "");
                if (mountport)
                        strncat(buf, mountport, sizeof(buf) - strlen(buf) - 1);
                if ((rc = job_option_set(spec, "nfs_url", buf, e, sizeof(e))) < 0)
                        return errorf(err, errlen, rc, "job %s: %s", spec->name, e);
        }
        return 0;
}

int host_teardown(restore_t *r, kvlist_t *effective)
{
        char err[1024];
        int rc;
        if (!restore_pending(r)) {
                kv_set(effective, "restored", "nothing to put back");
                return 0;
        }
        rc = restore_apply(r, err, sizeof(err));
        if (rc < 0) {
                char msg[1100];
                snprintf(msg, sizeof(msg), "failed: %s", err);
                kv_set(effective, "restored", msg);
                return log_error_errno(rc, "putting back the host's configuration: %s", err);
        }
        kv_set(effective, "restored", "yes");
        log_info("host configuration put back");
        return 0;
}
