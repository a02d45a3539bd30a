/* The kernel nfsd backend: [nfsd] keys of nfs.conf, an iofleet exports file, exportfs, and
 * nfs-server.service through sd-bus. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "log.h"
#include "nfs-server.h"
#include "nfs-settings.h"
#include "helper.h"
#include "util.h"

#define KERNEL_UNIT "nfs-server.service"
#define EXPORTFS_ENTRY "exportfs" /* the service entry whose restore reruns exportfs -ra */
#define EXPORTFS_TIMEOUT_MS 60000

static void exports_path(const agent_config_t *cfg, char *buf, size_t len)
{
        snprintf(buf, len, "%s/iofleet.exports", cfg->exports_dir);
}

/* exportfs ARG; its output in out. A non-zero exit is -EIO with err holding exportfs's own
 * message. */
static int run_exportfs(const agent_config_t *cfg, const char *arg, char *out, size_t outlen,
                        char *err, size_t errlen)
{
        const char *argv[] = {cfg->exportfs, arg, NULL};
        int status = 0;
        int r = helper_run(argv, EXPORTFS_TIMEOUT_MS, out, outlen, &status);
        if (r < 0)
                return errorf(err, errlen, r, "%s %s: %s", cfg->exportfs, arg, strerror(-r));
        if (status != 0) {
                size_t l = strlen(out);
                while (l > 0 && (out[l - 1] == '\n' || out[l - 1] == ' '))
                        out[--l] = 0;
                for (char *p = out; *p; p++)
                        if (*p == '\n')
                                *p = ' ';
                return errorf(err, errlen, -EIO, "%s %s failed (exit %d): %s", cfg->exportfs, arg,
                              status, out[0] ? out : "no message");
        }
        return 0;
}

/* The export of path as `exportfs -v` lists it ("PATH CLIENT(opts)"), which may wrap the
 * client onto the next line after a long path. */
static int find_export(const char *listing, const char *path, char *buf, size_t len)
{
        size_t pl = strlen(path);
        for (const char *l = listing; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
                if (strncmp(l, path, pl) != 0 || (l[pl] != ' ' && l[pl] != '\t' && l[pl] != '\n'))
                        continue;
                const char *p = l + pl;
                while (*p == ' ' || *p == '\t' || *p == '\n')
                        p++;
                size_t n = strcspn(p, "\n");
                snprintf(buf, len, "%s %.*s", path, (int)n, p);
                return 0;
        }
        return -ENOENT;
}

static void read_proc(const char *path, const char *key, kvlist_t *effective)
{
        char *data = NULL;
        if (nfs_read_file(path, &data, NULL) < 0)
                return;
        data[strcspn(data, "\n")] = 0;
        kv_set(effective, key, data);
        free(data);
}

/* An export serves nobody without nfsd: where the kernel says how many threads it runs
 * (/proc/fs/nfsd mounted), none is an error that names the way out. */
static int check_serving(bool bus, char *err, size_t errlen)
{
        char *data = NULL;
        if (nfs_read_file("/proc/fs/nfsd/threads", &data, NULL) < 0)
                return 0;
        long threads = strtol(data, NULL, 10);
        free(data);
        if (threads > 0)
                return 0;
        return errorf(err, errlen, -EHOSTDOWN,
                      "kernel nfsd runs no threads (/proc/fs/nfsd/threads is 0)%s",
                      bus ? " although " KERNEL_UNIT " is active"
                          : " and there is no systemd to start " KERNEL_UNIT
                            ": start nfsd (rpc.nfsd) on this host first");
}

/* The [nfsd] keys of export e edited into cfg->nfs_conf's text: *keys the keys, *newconf the new
 * text, *changed whether it differs (nothing read when e sets no key). */
static int kernel_conf_edit(const agent_config_t *cfg, const nfs_export_t *e, kvlist_t *keys,
                            char **newconf, size_t *newlen, bool *changed, char *err,
                            size_t errlen)
{
        _cleanup_(freep) char *conf = NULL;
        size_t conflen = 0;
        int ret;

        if (nfs_render_nfsd_conf(e, keys) < 0)
                return errorf(err, errlen, -ENOMEM, "out of memory");
        if (keys->n == 0)
                return 0;
        ret = nfs_read_file(cfg->nfs_conf, &conf, &conflen);
        if (ret == -ENOENT) {
                conf = strdup("");
                ret = conf ? 0 : -ENOMEM;
        }
        if (ret < 0)
                return errorf(err, errlen, ret, "nfs_conf %s: %s", cfg->nfs_conf, strerror(-ret));
        ret = nfs_conf_edit(conf, conflen, "nfsd", keys, newconf, newlen, changed);
        return ret < 0 ? errorf(err, errlen, ret, "out of memory") : 0;
}

/* Services first in the record: it is replayed last change first, so they come back after the
 * files they read. nfs-server is recorded when it will be restarted (new threads or versions)
 * or started (it was stopped: an export alone serves nobody). Then nfs.conf, recorded and
 * written when it changes. */
static int kernel_record_conf(const agent_config_t *cfg, restore_t *r, bool restart,
                              bool running, const char *newconf, size_t newlen, bool conf_changed,
                              char *err, size_t errlen)
{
        int ret;
        if (restart && (ret = restore_save_service(r, "kernel", KERNEL_UNIT, running)) < 0)
                return errorf(err, errlen, ret, "restore record: %s: %s", KERNEL_UNIT,
                              strerror(-ret));
        if ((ret = restore_save_service(r, "kernel", EXPORTFS_ENTRY, true)) < 0)
                return errorf(err, errlen, ret, "restore record: exportfs: %s", strerror(-ret));
        if (!conf_changed)
                return 0;
        if ((ret = restore_save_file(r, cfg->nfs_conf)) < 0)
                return errorf(err, errlen, ret, "restore record: %s: %s", cfg->nfs_conf,
                              strerror(-ret));
        if ((ret = write_file_atomic(cfg->nfs_conf, newconf, newlen, 0644)) < 0)
                return errorf(err, errlen, ret, "nfs_conf %s: writing: %s", cfg->nfs_conf,
                              strerror(-ret));
        return 0;
}

/* The export line written to iofleet's file in exports_dir, both recorded first. */
static int kernel_write_export(const agent_config_t *cfg, restore_t *r, const char *line,
                               char *err, size_t errlen)
{
        char expfile[4096], body[2048];
        int ret, n;

        exports_path(cfg, expfile, sizeof(expfile));
        /* Debian's nfs-kernel-server ships no /etc/exports.d: made for the step, removed after. */
        if ((ret = restore_mkdir(r, cfg->exports_dir, 0755)) < 0)
                return errorf(err, errlen, ret, "exports_dir %s: %s", cfg->exports_dir,
                              strerror(-ret));
        if ((ret = restore_save_file(r, expfile)) < 0)
                return errorf(err, errlen, ret, "restore record: %s: %s", expfile, strerror(-ret));
        n = snprintf(body, sizeof(body),
                     "# Written by iofleet-agent for a benchmark; its restore record puts the "
                     "previous state back.\n%s\n",
                     line);
        if (n >= (int)sizeof(body))
                return errorf(err, errlen, -E2BIG, "export line too long");
        if ((ret = write_file_atomic(expfile, body, (size_t)n, 0644)) < 0)
                return errorf(err, errlen, ret, "%s: writing: %s", expfile, strerror(-ret));
        return 0;
}

/* exportfs -ra, then the export of path as exportfs -v lists it into effective. */
static int kernel_exportfs(const agent_config_t *cfg, const char *path, kvlist_t *effective,
                           char *err, size_t errlen)
{
        char out[8192], exp[1024];
        int ret;
        if ((ret = run_exportfs(cfg, "-ra", out, sizeof(out), err, errlen)) < 0 ||
            (ret = run_exportfs(cfg, "-v", out, sizeof(out), err, errlen)) < 0)
                return ret;
        if (find_export(out, path, exp, sizeof(exp)) < 0)
                return errorf(err, errlen, -ENOENT,
                              "exportfs -v does not list %s after exportfs -ra", path);
        kv_set(effective, "export", exp);
        return 0;
}

/* nfs-server restarted (or started) when it is to be, else why not, into effective. */
static int kernel_restart(const agent_config_t *cfg, bool bus, bool restart, bool running,
                          bool conf_changed, const char *why, kvlist_t *effective, char *err,
                          size_t errlen)
{
        int ret;
        if (restart) {
                /* RestartUnit starts a stopped unit. */
                if ((ret = nfs_systemd_unit_do(KERNEL_UNIT, "restart", err, errlen)) < 0)
                        return ret;
                kv_set(effective, "service",
                       running ? "restarted " KERNEL_UNIT : "started " KERNEL_UNIT " (it was stopped)");
        } else if (conf_changed) {
                char msg[320];
                snprintf(msg, sizeof(msg), "not restarted: %s", why);
                log_warning("%s changed but %s was %s; nfsd keeps its old threads/versions",
                            cfg->nfs_conf, KERNEL_UNIT, msg);
                kv_set(effective, "service", msg);
        } else
                kv_set(effective, "service", bus ? "not restarted: threads and versions unchanged"
                                                 : "not restarted: threads and versions unchanged; "
                                                   "no systemd to check nfs-server.service");
        return 0;
}

static int kernel_apply(const agent_config_t *cfg, restore_t *r, const kvlist_t *settings,
                        kvlist_t *effective, char *err, size_t errlen)
{
        _cleanup_(freep) char *line = NULL, *newconf = NULL;
        kvlist_t keys = {0};
        size_t newlen = 0;
        bool conf_changed = false, bus, running = false, restart;
        char why[256] = "";
        nfs_export_t e;
        int ret = nfs_settings_parse("kernel", settings, &e, err, errlen);

        if (ret < 0)
                return ret;
        if (nfs_render_kernel_export(&e, &line) < 0)
                return errorf(err, errlen, -ENOMEM, "out of memory");
        if ((ret = kernel_conf_edit(cfg, &e, &keys, &newconf, &newlen, &conf_changed, err,
                                    errlen)) < 0)
                goto out;
        bus = nfs_systemd_available(why, sizeof(why));
        if (bus && (ret = nfs_systemd_unit_active(KERNEL_UNIT, &running, err, errlen)) < 0)
                goto out;
        restart = bus && (conf_changed || !running);
        if ((ret = kernel_record_conf(cfg, r, restart, running, newconf, newlen, conf_changed, err,
                                      errlen)) < 0 ||
            (ret = kernel_write_export(cfg, r, line, err, errlen)) < 0 ||
            (ret = kernel_exportfs(cfg, e.path, effective, err, errlen)) < 0 ||
            (ret = kernel_restart(cfg, bus, restart, running, conf_changed, why, effective, err,
                                  errlen)) < 0 ||
            (ret = check_serving(bus, err, errlen)) < 0)
                goto out;
        for (size_t i = 0; i < keys.n; i++) {
                char k[64];
                snprintf(k, sizeof(k), "nfs.conf nfsd.%s", keys.v[i].key);
                kv_set(effective, k, keys.v[i].value);
        }
        read_proc("/proc/fs/nfsd/threads", "threads", effective);
        read_proc("/proc/fs/nfsd/versions", "versions", effective);
out:
        kv_clear(&keys);
        return ret;
}

static int kernel_restore(void *user, const char *name, bool was_running, char *err,
                          size_t errlen)
{
        const agent_config_t *cfg = user;
        if (streq(name, EXPORTFS_ENTRY)) {
                char out[8192];
                return run_exportfs(cfg, "-ra", out, sizeof(out), err, errlen);
        }
        return nfs_systemd_unit_do(name, was_running ? "restart" : "stop", err, errlen);
}

static restore_service_ops_t kernel_ops = {.kind = "kernel", .restore = kernel_restore};

static const restore_service_ops_t *kernel_service(const agent_config_t *cfg)
{
        kernel_ops.user = (void *)cfg;
        return &kernel_ops;
}

const nfs_backend_t nfs_backend_kernel = {
    .name = "kernel",
    .apply = kernel_apply,
    .service = kernel_service,
};
