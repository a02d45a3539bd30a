/* The NFS-Ganesha backend: an iofleet EXPORT file %included from ganesha.conf, and ganesha
 * restarted through systemd or, without it, the local ganesha_start command and pid file. */
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "log.h"
#include "nfs-server.h"
#include "nfs-settings.h"
#include "helper.h"
#include "util.h"

#define GANESHA_UNIT "nfs-ganesha.service"
#define GANESHA_LOCAL "ganesha" /* the service entry name when started by ganesha_start */
#define START_TIMEOUT_MS 30000
#define STOP_TIMEOUT_MS 15000

static void sleep_ms(int ms)
{
        nanosleep(&(struct timespec){ms / 1000, (long)(ms % 1000) * 1000000L}, NULL);
}

static int64_t now_ms(void)
{
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* ganesha_start split on spaces into argv (pointers into buf); the count, or -EINVAL. */
static int start_argv(const agent_config_t *cfg, char *buf, size_t len, const char **argv,
                      size_t max)
{
        if (strempty(cfg->ganesha_start))
                return -EINVAL;
        snprintf(buf, len, "%s", cfg->ganesha_start);
        size_t n = 0;
        for (char *save = NULL, *w = strtok_r(buf, " \t", &save); w && n + 1 < max;
             w = strtok_r(NULL, " \t", &save))
                argv[n++] = w;
        argv[n] = NULL;
        return n > 0 && argv[0][0] == '/' ? (int)n : -EINVAL;
}

/* The live process named in the pid file whose name is the started program's (so a stale pid
 * file naming a reused pid is not signalled); 0 when none. */
static pid_t pidfile_pid(const agent_config_t *cfg)
{
        char *data = NULL;
        if (strempty(cfg->ganesha_pidfile) || nfs_read_file(cfg->ganesha_pidfile, &data, NULL) < 0)
                return 0;
        char *end;
        long pid = strtol(data, &end, 10);
        bool ok = end != data && pid > 1 && pid < INT32_MAX;
        free(data);
        if (!ok || kill((pid_t)pid, 0) < 0)
                return 0;
        char path[64], comm[64] = "";
        snprintf(path, sizeof(path), "/proc/%ld/comm", pid);
        if (nfs_read_file(path, &data, NULL) == 0) {
                snprintf(comm, sizeof(comm), "%.*s", (int)strcspn(data, "\n"), data);
                free(data);
        }
        /* a zombie (ours, or one init has not reaped yet) counts as gone */
        int ws;
        if (waitpid((pid_t)pid, &ws, WNOHANG) == (pid_t)pid)
                return 0;
        snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
        if (nfs_read_file(path, &data, NULL) == 0) {
                const char *close_paren = strrchr(data, ')');
                bool zombie = close_paren && (close_paren[1] == ' ') &&
                              (close_paren[2] == 'Z' || close_paren[2] == 'X');
                free(data);
                if (zombie)
                        return 0;
        }
        char buf[1024];
        const char *argv[64];
        if (start_argv(cfg, buf, sizeof(buf), argv, ELEMENTSOF(argv)) > 0) {
                const char *base = strrchr(argv[0], '/') + 1;
                if (strncmp(comm, base, 15) != 0)
                        return 0;
        }
        return (pid_t)pid;
}

static bool port_open(const agent_config_t *cfg)
{
        char port[16];
        snprintf(port, sizeof(port), "%u", (unsigned)cfg->ganesha_port);
        struct addrinfo hints = {.ai_socktype = SOCK_STREAM, .ai_flags = AI_NUMERICHOST | AI_NUMERICSERV};
        struct addrinfo *ai = NULL;
        const char *addr = strempty(cfg->nfs_address) ? "127.0.0.1" : cfg->nfs_address;
        if (getaddrinfo(addr, port, &hints, &ai) != 0)
                return false;
        bool ok = false;
        int fd = socket(ai->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd >= 0) {
                ok = connect(fd, ai->ai_addr, ai->ai_addrlen) == 0;
                close(fd);
        }
        freeaddrinfo(ai);
        return ok;
}

static int local_stop(const agent_config_t *cfg, char *err, size_t errlen)
{
        pid_t pid = pidfile_pid(cfg);
        if (!pid)
                return 0;
        if (kill(pid, SIGTERM) < 0 && errno != ESRCH)
                return errorf(err, errlen, -errno, "ganesha pid %d: SIGTERM: %m", (int)pid);
        int64_t deadline = now_ms() + STOP_TIMEOUT_MS;
        while (pidfile_pid(cfg) == pid && now_ms() < deadline)
                sleep_ms(50);
        if (pidfile_pid(cfg) == pid) {
                log_warning("ganesha pid %d still runs %d s after SIGTERM; sending SIGKILL",
                            (int)pid, STOP_TIMEOUT_MS / 1000);
                kill(pid, SIGKILL);
                deadline = now_ms() + 5000;
                while (pidfile_pid(cfg) == pid && now_ms() < deadline)
                        sleep_ms(50);
                if (pidfile_pid(cfg) == pid)
                        return errorf(err, errlen, -ETIMEDOUT,
                                      "ganesha pid %d survives SIGKILL", (int)pid);
        }
        return 0;
}

/* The last line of ganesha's log (-L FILE in ganesha_start) that reports a problem. */
static void log_hint(const char *const *argv, char *buf, size_t len)
{
        buf[0] = 0;
        const char *logf = NULL;
        for (size_t i = 1; argv[i]; i++)
                if (streq(argv[i - 1], "-L"))
                        logf = argv[i];
        char *data = NULL;
        if (!logf || nfs_read_file(logf, &data, NULL) < 0)
                return;
        for (char *l = data; l && *l;) {
                char *nl = strchr(l, '\n');
                if (nl)
                        *nl = 0;
                if (strstr(l, " :CRIT :") || strstr(l, " :FATAL :") || strstr(l, " :MAJ :"))
                        snprintf(buf, len, "; its log %s says: %s", logf, l);
                l = nl ? nl + 1 : NULL;
        }
        free(data);
}

static int local_start(const agent_config_t *cfg, pid_t *ret, char *err, size_t errlen)
{
        char buf[1024];
        const char *argv[64];
        if (start_argv(cfg, buf, sizeof(buf), argv, ELEMENTSOF(argv)) < 0)
                return errorf(err, errlen, -EINVAL,
                              "ganesha_start: '%s' is not a command line starting with an "
                              "absolute program",
                              strempty(cfg->ganesha_start) ? "" : cfg->ganesha_start);
        char out[2048];
        int status = 0;
        int r = helper_run(argv, START_TIMEOUT_MS, out, sizeof(out), &status);
        if (r < 0)
                return errorf(err, errlen, r, "ganesha_start %s: %s%s", argv[0], strerror(-r),
                              r == -ETIMEDOUT ? " (it must daemonize: no -F)" : "");
        char hint[600];
        if (status != 0) {
                out[strcspn(out, "\n")] = 0;
                log_hint(argv, hint, sizeof(hint));
                return errorf(err, errlen, -EIO, "ganesha_start %s exited with %d: %s%s", argv[0],
                              status, out, hint);
        }
        int64_t deadline = now_ms() + START_TIMEOUT_MS;
        pid_t pid = 0;
        for (;;) {
                pid = pidfile_pid(cfg);
                if (pid && port_open(cfg))
                        break;
                if (now_ms() >= deadline) {
                        log_hint(argv, hint, sizeof(hint));
                        return errorf(err, errlen, -ETIMEDOUT,
                                      "ganesha did not come up within %d s (%s; port %s:%u %s)%s",
                                      START_TIMEOUT_MS / 1000,
                                      pid ? "pid file names a live ganesha"
                                          : "no live ganesha in ganesha_pidfile",
                                      cfg->nfs_address, (unsigned)cfg->ganesha_port,
                                      pid ? "refuses TCP" : "not checked", hint);
                }
                sleep_ms(100);
        }
        *ret = pid;
        return 0;
}

/* Restarts (stop if running, start, wait) or stops ganesha under its manager. */
static int ganesha_do(const agent_config_t *cfg, bool systemd, const char *what, pid_t *pid,
                      char *err, size_t errlen)
{
        if (systemd)
                return nfs_systemd_unit_do(GANESHA_UNIT, what, err, errlen);
        int r = local_stop(cfg, err, errlen);
        if (r < 0 || streq(what, "stop"))
                return r;
        pid_t p = 0;
        r = local_start(cfg, &p, err, errlen);
        if (r == 0 && pid)
                *pid = p;
        return r;
}

/* True when the config already %includes file. */
static bool has_include(const char *conf, const char *file)
{
        size_t fl = strlen(file);
        for (const char *l = conf; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
                while (*l == ' ' || *l == '\t')
                        l++;
                if (strncmp(l, "%include", 8) != 0)
                        continue;
                const char *p = l + 8;
                while (*p == ' ' || *p == '\t')
                        p++;
                if (*p == '"')
                        p++;
                if (strncmp(p, file, fl) == 0 && strchr("\"\r\n \t", p[fl]))
                        return true;
        }
        return false;
}

static int ganesha_apply(const agent_config_t *cfg, restore_t *r, const kvlist_t *settings,
                         kvlist_t *effective, char *err, size_t errlen)
{
        nfs_export_t e;
        int ret = nfs_settings_parse("ganesha", settings, &e, err, errlen);
        if (ret < 0)
                return ret;
        char why[256] = "";
        bool systemd = nfs_systemd_available(why, sizeof(why));
        bool running = false;
        if (systemd) {
                ret = nfs_systemd_unit_active(GANESHA_UNIT, &running, err, errlen);
                if (ret < 0)
                        return ret;
        } else {
                char buf[1024];
                const char *argv[64];
                if (start_argv(cfg, buf, sizeof(buf), argv, ELEMENTSOF(argv)) < 0)
                        return errorf(err, errlen, -EINVAL,
                                      "ganesha_start: %s; without systemd (%s) the agent "
                                      "config must name the command that starts ganesha",
                                      strempty(cfg->ganesha_start) ? "not set"
                                                                   : "needs an absolute program",
                                      why);
                running = pidfile_pid(cfg) != 0;
        }
        _cleanup_(freep) char *block = NULL, *conf = NULL;
        size_t conflen = 0;
        if (nfs_render_ganesha_export(&e, &block) < 0)
                return errorf(err, errlen, -ENOMEM, "out of memory");
        ret = nfs_read_file(cfg->ganesha_conf, &conf, &conflen);
        if (ret < 0)
                return errorf(err, errlen, ret, "ganesha_conf %s: %s", cfg->ganesha_conf,
                              strerror(-ret));

        /* The service first: the record is replayed last change first. */
        ret = restore_save_service(r, "ganesha", systemd ? GANESHA_UNIT : GANESHA_LOCAL, running);
        if (ret < 0)
                return errorf(err, errlen, ret, "restore record: ganesha: %s", strerror(-ret));
        ret = restore_save_file(r, cfg->ganesha_export_file);
        if (ret == 0)
                ret = restore_save_file(r, cfg->ganesha_conf);
        if (ret < 0)
                return errorf(err, errlen, ret, "restore record: ganesha files: %s",
                              strerror(-ret));

        size_t bl = strlen(block);
        static const char head[] = "# Written by iofleet-agent for a benchmark; its restore "
                                   "record puts the previous state back.\n";
        _cleanup_(freep) char *body = malloc(sizeof(head) + bl);
        if (!body)
                return errorf(err, errlen, -ENOMEM, "out of memory");
        memcpy(body, head, sizeof(head) - 1);
        memcpy(body + sizeof(head) - 1, block, bl + 1);
        ret = write_file_atomic(cfg->ganesha_export_file, body, strlen(body), 0644);
        if (ret < 0)
                return errorf(err, errlen, ret, "ganesha_export_file %s: %s",
                              cfg->ganesha_export_file, strerror(-ret));
        if (!has_include(conf, cfg->ganesha_export_file)) {
                size_t need = conflen + strlen(cfg->ganesha_export_file) + 32;
                _cleanup_(freep) char *nc = malloc(need);
                if (!nc)
                        return errorf(err, errlen, -ENOMEM, "out of memory");
                bool nl = conflen == 0 || conf[conflen - 1] == '\n';
                int n = snprintf(nc, need, "%s%s%%include \"%s\"\n", conf, nl ? "" : "\n",
                                 cfg->ganesha_export_file);
                ret = write_file_atomic(cfg->ganesha_conf, nc, (size_t)n, 0644);
                if (ret < 0)
                        return errorf(err, errlen, ret, "ganesha_conf %s: %s", cfg->ganesha_conf,
                                      strerror(-ret));
        }
        pid_t pid = 0;
        ret = ganesha_do(cfg, systemd, "restart", &pid, err, errlen);
        if (ret < 0)
                return ret;
        kv_set(effective, "export", block);
        if (systemd)
                kv_set(effective, "service", "restarted " GANESHA_UNIT);
        else {
                char p[32];
                snprintf(p, sizeof(p), "%d", (int)pid);
                kv_set(effective, "pid", p);
                kv_set(effective, "service", running ? "restarted by ganesha_start"
                                                     : "started by ganesha_start");
        }
        return 0;
}

static int ganesha_restore(void *user, const char *name, bool was_running, char *err,
                           size_t errlen)
{
        const agent_config_t *cfg = user;
        return ganesha_do(cfg, streq(name, GANESHA_UNIT), was_running ? "restart" : "stop", NULL,
                          err, errlen);
}

static restore_service_ops_t ganesha_ops = {.kind = "ganesha", .restore = ganesha_restore};

static const restore_service_ops_t *ganesha_service(const agent_config_t *cfg)
{
        ganesha_ops.user = (void *)cfg;
        return &ganesha_ops;
}

const nfs_backend_t nfs_backend_ganesha = {
    .name = "ganesha",
    .apply = ganesha_apply,
    .service = ganesha_service,
};
