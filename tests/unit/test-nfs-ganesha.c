/* Tests for the ganesha backend against a real ganesha.nfsd on loopback (scratch config, high
 * ports, started by ganesha_start): the export is served (checked with libnfs), and restore
 * puts the config back byte-identical and ganesha back to stopped / running as before. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <nfsc/libnfs.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agent-config.h"
#include "helper.h"
#include "nfs-server.h"
#include "util.h"

#define GANESHA "/usr/bin/ganesha.nfsd"
#define RPCBIND "/usr/sbin/rpcbind"
#define NFS_PORT 31049
#define MNT_PORT 31048

#define assert_contains(hay, needle)                                                               \
        do {                                                                                       \
                if (!strstr((hay), (needle)))                                                      \
                        fail_msg("'%s' does not mention '%s'", (hay), (needle));                   \
        } while (0)

typedef struct fx {
        char dir[64];
        char conf[128], exportfile[128], pidfile[128], log[128], export[128], state[128];
        char *orig;
        size_t origlen;
        agent_config_t cfg;
} fx_t;

static bool tcp_open(int port)
{
        struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        bool ok = fd >= 0 && connect(fd, (struct sockaddr *)&a, sizeof(a)) == 0;
        if (fd >= 0)
                close(fd);
        return ok;
}

/* NFSv3 needs rpcbind: start `rpcbind -f` when nothing listens on 111 (it may stay). */
static bool ensure_rpcbind(void)
{
        if (tcp_open(111))
                return true;
        if (access(RPCBIND, X_OK) < 0)
                return false;
        mkdir("/run/rpcbind", 0755);
        pid_t pid = fork();
        if (pid == 0) {
                setsid();
                int fd = open("/dev/null", O_RDWR | O_CLOEXEC);
                dup2(fd, 0);
                dup2(fd, 1);
                dup2(fd, 2);
                execl(RPCBIND, RPCBIND, "-f", (char *)NULL);
                _exit(127);
        }
        for (int i = 0; i < 100 && !tcp_open(111); i++)
                usleep(50000);
        return tcp_open(111);
}

static int setup(void **state)
{
        if (geteuid() != 0 || access(GANESHA, X_OK) < 0) {
                print_message("skipped: needs root and " GANESHA " (nfs-ganesha, "
                              "nfs-ganesha-vfs)\n");
                *state = NULL;
                return 0;
        }
        if (!ensure_rpcbind()) {
                print_message("skipped: no rpcbind on port 111 and " RPCBIND " did not start\n");
                *state = NULL;
                return 0;
        }
        if (tcp_open(NFS_PORT)) {
                print_message("skipped: port %d is taken\n", NFS_PORT);
                *state = NULL;
                return 0;
        }
        fx_t *f = calloc(1, sizeof(*f));
        snprintf(f->dir, sizeof(f->dir), "/tmp/test-nfs-ganesha.XXXXXX");
        assert_non_null(mkdtemp(f->dir));
        snprintf(f->conf, sizeof(f->conf), "%s/ganesha.conf", f->dir);
        snprintf(f->exportfile, sizeof(f->exportfile), "%s/iofleet-export.conf", f->dir);
        snprintf(f->pidfile, sizeof(f->pidfile), "%s/ganesha.pid", f->dir);
        snprintf(f->log, sizeof(f->log), "%s/ganesha.log", f->dir);
        snprintf(f->export, sizeof(f->export), "%s/export", f->dir);
        snprintf(f->state, sizeof(f->state), "%s/state", f->dir);
        assert_int_equal(mkdir(f->export, 0777), 0);
        char recovery[160], conf[2048];
        snprintf(recovery, sizeof(recovery), "%s/recovery", f->dir);
        assert_int_equal(mkdir(recovery, 0755), 0);
        /* ENVIRONMENT.md's working config without its EXPORT, and no final newline */
        int n = snprintf(conf, sizeof(conf),
                         "NFS_CORE_PARAM { Protocols = 3, 4; Bind_addr = 127.0.0.1; NFS_Port = %d; "
                         "MNT_Port = %d;\n  Enable_NLM = false; Enable_RQUOTA = false; Enable_UDP = "
                         "false; }\n"
                         "NFSV4 { Graceless = true; RecoveryBackend = fs; RecoveryRoot = %s; }\n"
                         "NFS_KRB5 { Active_krb5 = false; }\n"
                         "LOG { Default_Log_Level = EVENT; }",
                         NFS_PORT, MNT_PORT, recovery);
        assert_int_equal(write_file_atomic(f->conf, conf, (size_t)n, 0644), 0);
        assert_int_equal(nfs_read_file(f->conf, &f->orig, &f->origlen), 0);

        assert_int_equal(agent_config_defaults(&f->cfg), 0);
        char start[512];
        snprintf(start, sizeof(start), GANESHA " -f %s -L %s -p %s", f->conf, f->log, f->pidfile);
        assert_int_equal(strdup_to(&f->cfg.ganesha_start, start), 0);
        assert_int_equal(strdup_to(&f->cfg.ganesha_conf, f->conf), 0);
        assert_int_equal(strdup_to(&f->cfg.ganesha_export_file, f->exportfile), 0);
        assert_int_equal(strdup_to(&f->cfg.ganesha_pidfile, f->pidfile), 0);
        assert_int_equal(strdup_to(&f->cfg.state_dir, f->state), 0);
        assert_int_equal(strdup_to(&f->cfg.nfs_address, "127.0.0.1"), 0);
        f->cfg.ganesha_port = NFS_PORT;
        *state = f;
        return 0;
}

/* Gone: no process, or a zombie nobody reaped yet. */
static bool dead(pid_t pid)
{
        char path[64], *d = NULL;
        snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
        if (nfs_read_file(path, &d, NULL) < 0)
                return true;
        const char *p = strrchr(d, ')');
        bool z = p && (p[2] == 'Z' || p[2] == 'X');
        free(d);
        return z;
}

static pid_t ganesha_pid(fx_t *f)
{
        char *d = NULL;
        if (nfs_read_file(f->pidfile, &d, NULL) < 0)
                return 0;
        pid_t pid = (pid_t)atoi(d);
        free(d);
        return pid > 1 && !dead(pid) ? pid : 0;
}

static void stop_ganesha(fx_t *f)
{
        pid_t pid = ganesha_pid(f);
        if (!pid)
                return;
        kill(pid, SIGTERM);
        for (int i = 0; i < 200 && !dead(pid); i++)
                usleep(50000);
        if (!dead(pid))
                kill(pid, SIGKILL);
}

static int teardown(void **state)
{
        fx_t *f = *state;
        if (!f)
                return 0;
        restore_t *r = NULL;
        if (restore_open(f->state, &r) == 0) {
                char err[512];
                if (restore_pending(r) && (nfs_backends_register(&f->cfg, r) < 0 ||
                                           restore_apply(r, err, sizeof(err)) < 0))
                        print_message("teardown: restore: %s\n", err);
                restore_close(&r);
        }
        stop_ganesha(f);
        const char *argv[] = {"/bin/rm", "-rf", f->dir, NULL};
        helper_run(argv, 30000, NULL, 0, NULL);
        config_free(&agent_config_schema, &f->cfg);
        free(f->orig);
        free(f);
        return 0;
}

static void mount_cb(int status, struct nfs_context *nfs, void *data, void *priv)
{
        int *res = priv;
        *res = status < 0 ? status : 1;
}

/* libnfs's nfs_mount() through its async form and a poll loop (bounded at 20 s), so that no
 * other nfs_mount symbol linked into the test can stand in for it. */
static int mount_sync(struct nfs_context *nfs, const char *server, const char *path)
{
        int res = 0;
        if (nfs_mount_async(nfs, server, path, mount_cb, &res) < 0)
                return -EIO;
        for (int i = 0; i < 200 && res == 0; i++) {
                struct pollfd p = {.fd = nfs_get_fd(nfs), .events = (short)nfs_which_events(nfs)};
                if (poll(&p, 1, 100) < 0)
                        return -errno;
                if (nfs_service(nfs, p.revents) < 0)
                        return -EIO;
        }
        return res == 1 ? 0 : res == 0 ? -ETIMEDOUT : res;
}

/* Mounts path over NFSv3 with libnfs and writes a file; 0 or the libnfs error in err. */
static int nfs_probe(const char *path, const char *file, char *err, size_t errlen)
{
        struct nfs_context *nfs = nfs_init_context();
        assert_non_null(nfs);
        char url[512];
        snprintf(url, sizeof(url), "nfs://127.0.0.1%s?nfsport=%d&mountport=%d", path, NFS_PORT,
                 MNT_PORT);
        struct nfs_url *u = nfs_parse_url_dir(nfs, url);
        int r = -EINVAL;
        if (!u)
                snprintf(err, errlen, "url: %s", nfs_get_error(nfs));
        else if ((r = mount_sync(nfs, u->server, u->path)) < 0)
                snprintf(err, errlen, "mount: %s", nfs_get_error(nfs));
        else {
                struct nfsfh *fh = NULL;
                r = nfs_open2(nfs, file, O_CREAT | O_WRONLY, 0644, &fh);
                if (r < 0)
                        snprintf(err, errlen, "open: %s", nfs_get_error(nfs));
                else {
                        r = nfs_write(nfs, fh, 6, "hello\n");
                        if (r < 0)
                                snprintf(err, errlen, "write: %s", nfs_get_error(nfs));
                        nfs_close(nfs, fh);
                }
        }
        if (u)
                nfs_destroy_url(u);
        nfs_destroy_context(nfs);
        return r < 0 ? r : 0;
}

static int apply(fx_t *f, restore_t *r, kvlist_t *eff, char *err, size_t errlen)
{
        kvlist_t s = {0};
        kv_push(&s, "path", f->export, 1);
        kv_push(&s, "no_root_squash", "", 2);
        kv_push(&s, "versions", "3,4", 3);
        kv_push(&s, "transports", "tcp", 4);
        kv_push(&s, "max_write", "1m", 5);
        kv_push(&s, "nfs_commit", "true", 6);
        int ret = nfs_backend_find("ganesha")->apply(&f->cfg, r, &s, eff, err, errlen);
        kv_clear(&s);
        return ret;
}

static void check_restored(fx_t *f)
{
        char *now = NULL;
        size_t len;
        assert_int_equal(nfs_read_file(f->conf, &now, &len), 0);
        assert_int_equal(len, f->origlen);
        assert_memory_equal(now, f->orig, len);
        free(now);
        assert_int_equal(access(f->exportfile, F_OK), -1);
}

/* Stopped before: apply starts it serving the export; restore stops it. */
static void test_from_stopped(void **state)
{
        fx_t *f = *state;
        if (!f)
                skip();
        restore_t *r = NULL;
        assert_int_equal(restore_open(f->state, &r), 0);
        assert_int_equal(nfs_backends_register(&f->cfg, r), 0);
        kvlist_t eff = {0};
        char err[1024] = "";
        if (apply(f, r, &eff, err, sizeof(err)) < 0)
                fail_msg("apply: %s", err);
        assert_contains(kv_get(&eff, "export"), "NFS_Commit = true;");
        assert_contains(kv_get(&eff, "service"), "started by ganesha_start");
        pid_t pid = ganesha_pid(f);
        assert_true(pid > 0);
        assert_int_equal(atoi(kv_get(&eff, "pid")), pid);
        char *conf = NULL;
        assert_int_equal(nfs_read_file(f->conf, &conf, NULL), 0);
        char inc[256];
        snprintf(inc, sizeof(inc), "Default_Log_Level = EVENT; }\n%%include \"%s\"\n", f->exportfile);
        assert_contains(conf, inc);
        free(conf);
        if (nfs_probe(f->export, "/probe", err, sizeof(err)) < 0)
                fail_msg("NFSv3 to the export: %s", err);
        char probe[200];
        snprintf(probe, sizeof(probe), "%s/probe", f->export);
        assert_int_equal(access(probe, F_OK), 0);

        if (restore_apply(r, err, sizeof(err)) < 0)
                fail_msg("restore: %s", err);
        check_restored(f);
        assert_int_equal(ganesha_pid(f), 0);
        assert_false(tcp_open(NFS_PORT));
        kv_clear(&eff);
        restore_close(&r);
}

/* Running before (with no export): apply restarts it with the export; restore restarts it with
 * the old config, which serves nothing. */
static void test_from_running(void **state)
{
        fx_t *f = *state;
        if (!f)
                skip();
        const char *argv[] = {GANESHA, "-f", f->conf, "-L", f->log, "-p", f->pidfile, NULL};
        int st;
        assert_int_equal(helper_run(argv, 30000, NULL, 0, &st), 0);
        assert_int_equal(st, 0);
        for (int i = 0; i < 200 && !(ganesha_pid(f) && tcp_open(NFS_PORT)); i++)
                usleep(50000);
        pid_t before = ganesha_pid(f);
        assert_true(before > 0);
        char err[1024] = "";
        assert_true(nfs_probe(f->export, "/probe0", err, sizeof(err)) < 0);

        restore_t *r = NULL;
        assert_int_equal(restore_open(f->state, &r), 0);
        assert_int_equal(nfs_backends_register(&f->cfg, r), 0);
        kvlist_t eff = {0};
        if (apply(f, r, &eff, err, sizeof(err)) < 0)
                fail_msg("apply: %s", err);
        assert_contains(kv_get(&eff, "service"), "restarted by ganesha_start");
        pid_t during = ganesha_pid(f);
        assert_true(during > 0 && during != before);
        assert_true(dead(before));
        if (nfs_probe(f->export, "/probe1", err, sizeof(err)) < 0)
                fail_msg("NFSv3 to the export: %s", err);

        if (restore_apply(r, err, sizeof(err)) < 0)
                fail_msg("restore: %s", err);
        check_restored(f);
        pid_t after = ganesha_pid(f);
        assert_true(after > 0 && after != during);
        assert_true(tcp_open(NFS_PORT));
        assert_true(nfs_probe(f->export, "/probe2", err, sizeof(err)) < 0);
        kv_clear(&eff);
        restore_close(&r);
}

/* A config ganesha refuses: the start fails with a message, and restore still works. */
static void test_bad_start(void **state)
{
        fx_t *f = *state;
        if (!f)
                skip();
        char bad[256];
        snprintf(bad, sizeof(bad), "%s/nope", f->dir);
        assert_int_equal(strdup_to(&f->cfg.ganesha_start, "relative/ganesha.nfsd"), 0);
        restore_t *r = NULL;
        assert_int_equal(restore_open(f->state, &r), 0);
        kvlist_t eff = {0};
        char err[1024] = "";
        assert_int_equal(apply(f, r, &eff, err, sizeof(err)), -EINVAL);
        assert_contains(err, "ganesha_start");
        assert_false(restore_pending(r));
        /* a program that runs and exits non-zero */
        snprintf(bad, sizeof(bad), "/bin/false %s", f->conf);
        assert_int_equal(strdup_to(&f->cfg.ganesha_start, bad), 0);
        assert_int_equal(nfs_backends_register(&f->cfg, r), 0);
        assert_int_equal(apply(f, r, &eff, err, sizeof(err)), -EIO);
        assert_contains(err, "exited with 1");
        if (restore_apply(r, err, sizeof(err)) < 0)
                fail_msg("restore: %s", err);
        check_restored(f);
        kv_clear(&eff);
        restore_close(&r);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test_setup_teardown(test_from_stopped, setup, teardown),
            cmocka_unit_test_setup_teardown(test_from_running, setup, teardown),
            cmocka_unit_test_setup_teardown(test_bad_start, setup, teardown),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
