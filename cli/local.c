/* --local=N: a private coordinator and N agents on this host for one run, with keys made for the
 * occasion. */
#include "local.h"

#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "client.h"
#include "keys.h"
#include "util.h"

#define LOCAL_START_TIMEOUT_MS 15000

typedef struct child {
        char name[64];
        pid_t pid;
        int notify_fd;
        int status;
        bool exited;
} child_t;

struct local_fleet {
        char dir[PATH_MAX];
        child_t *children; /* [0] coordinator, then agents */
        unsigned n;
        bool failed;
        bool verbose;
};

/* The daemons live next to this binary in a build tree or an install; else on PATH. */
static void find_binary(const char *name, char *buf, size_t len)
{
        char self[PATH_MAX];
        ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
        if (n > 0) {
                char *slash;
                self[n] = 0;
                slash = strrchr(self, '/');
                if (slash) {
                        *slash = 0;
                        snprintf(buf, len, "%s/%s", self, name);
                        if (access(buf, X_OK) == 0)
                                return;
                }
        }
        snprintf(buf, len, "%s", name);
}

static int notify_socket(const char *path)
{
        struct sockaddr_un sa = {.sun_family = AF_UNIX};
        int fd;
        if (strlen(path) >= sizeof(sa.sun_path))
                return -ENAMETOOLONG;
        snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
        fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
        if (fd < 0)
                return -errno;
        if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
                int r = -errno;
                close(fd);
                return r;
        }
        return fd;
}

static int spawn(local_fleet_t *f, child_t *c, char *const argv[], char *err, size_t errlen)
{
        char sock[PATH_MAX + 16], log[PATH_MAX + 16];
        pid_t parent = getpid();
        int r;

        snprintf(sock, sizeof(sock), "%s/%s.notify", f->dir, c->name);
        snprintf(log, sizeof(log), "%s/%s.log", f->dir, c->name);
        if ((r = notify_socket(sock)) < 0)
                return errorf(err, errlen, r, "notify socket %s: %s", sock, strerror(-r));
        c->notify_fd = r;
        c->pid = fork();
        if (c->pid < 0)
                return errorf(err, errlen, -errno, "fork: %s", strerror(errno));
        if (c->pid == 0) {
                /* The daemons must not outlive this CLI, whatever happens to it. */
                prctl(PR_SET_PDEATHSIG, SIGTERM);
                if (getppid() != parent)
                        _exit(1);
                setenv("NOTIFY_SOCKET", sock, 1);
                unsetenv("JOURNAL_STREAM");
                unsetenv("WATCHDOG_USEC");
                if (!f->verbose) {
                        int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
                        if (fd >= 0) {
                                dup2(fd, STDERR_FILENO);
                                dup2(fd, STDOUT_FILENO);
                        }
                }
                /* A ^C in the terminal reaches the CLI only; it stops the daemons itself. */
                setpgid(0, 0);
                execv(argv[0], argv);
                fprintf(stderr, "exec %s: %s\n", argv[0], strerror(errno));
                _exit(127);
        }
        return 0;
}

/* Waits for READY=1 from the child; copies the value of var (if not NULL) into val. */
static int wait_ready(local_fleet_t *f, child_t *c, const char *var, char *val, size_t vlen,
                      char *err, size_t errlen)
{
        int64_t deadline = clock_mono_ns() + (int64_t)LOCAL_START_TIMEOUT_MS * 1000000;
        char buf[4096];

        for (;;) {
                struct pollfd p = {c->notify_fd, POLLIN, 0};
                int64_t left = (deadline - clock_mono_ns()) / 1000000;
                ssize_t n;
                int st;
                if (left <= 0)
                        return errorf(err, errlen, -ETIMEDOUT, "%s did not get ready within %ds",
                                      c->name, LOCAL_START_TIMEOUT_MS / 1000);
                if (waitpid(c->pid, &st, WNOHANG) == c->pid) {
                        c->exited = true;
                        c->status = st;
                        return errorf(err, errlen, -ECHILD, "%s exited during start-up (status %d)",
                                      c->name,
                                      WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
                }
                if (poll(&p, 1, left < 100 ? (int)left : 100) <= 0)
                        continue;
                n = recv(c->notify_fd, buf, sizeof(buf) - 1, 0);
                if (n <= 0)
                        continue;
                buf[n] = 0;
                if (var) {
                        char *v = strstr(buf, var);
                        if (v && v[strlen(var)] == '=') {
                                v += strlen(var) + 1;
                                snprintf(val, vlen, "%.*s", (int)strcspn(v, "\n"), v);
                        }
                }
                if (strstr(buf, "READY=1")) {
                        /* Nobody reads this socket from now on: close it, so that the daemon's
                         * later STATUS= messages fail at once instead of blocking on a full
                         * queue. */
                        char path[PATH_MAX + 16];
                        snprintf(path, sizeof(path), "%s/%s.notify", f->dir, c->name);
                        close(c->notify_fd);
                        c->notify_fd = -1;
                        unlink(path);
                        return 0;
                }
        }
}

static void print_log_tail(const local_fleet_t *f, const child_t *c)
{
        char path[PATH_MAX + 16], line[1024];
        char *lines[10] = {0};
        size_t n = 0;
        FILE *fp;
        snprintf(path, sizeof(path), "%s/%s.log", f->dir, c->name);
        fp = fopen(path, "re");
        if (!fp)
                return;
        while (fgets(line, sizeof(line), fp)) {
                free(lines[n % 10]);
                lines[n % 10] = strdup(line);
                n++;
        }
        fclose(fp);
        for (size_t i = n > 10 ? n - 10 : 0; i < n; i++) {
                fprintf(stderr, "  %s: %s", c->name, lines[i % 10] ? lines[i % 10] : "\n");
                free(lines[i % 10]);
                lines[i % 10] = NULL;
        }
}

/* Polls the coordinator until every agent is registered. */
static int wait_agents(const char *control_ep, unsigned n, char *err, size_t errlen)
{
        int64_t deadline = clock_mono_ns() + (int64_t)LOCAL_START_TIMEOUT_MS * 1000000;
        client_t *c = NULL;
        int r = client_connect(control_ep, NULL, NULL, &c, err, errlen);
        if (r < 0)
                return r;
        while (clock_mono_ns() < deadline) {
                envelope_t req = IOFLEET__ENVELOPE__INIT, *rep = NULL;
                Iofleet__ListAgents la = IOFLEET__LIST_AGENTS__INIT;
                size_t live = 0;
                req.body_case = IOFLEET__ENVELOPE__BODY_LIST_AGENTS;
                req.list_agents = &la;
                if (client_call(c, &req, 1000, IOFLEET__ENVELOPE__BODY_AGENT_LIST, &rep, err,
                                errlen) == 0) {
                        for (size_t i = 0; i < rep->agent_list->n_agents; i++)
                                live += streq(rep->agent_list->agents[i]->state, "idle");
                }
                wire_free(&rep);
                if (live >= n) {
                        client_free(&c);
                        return 0;
                }
                usleep(20000);
        }
        client_free(&c);
        return errorf(err, errlen, -ETIMEDOUT, "agents did not all register within %ds",
                      LOCAL_START_TIMEOUT_MS / 1000);
}

static int write_keys(local_fleet_t *f, const local_options_t *opt, char *err, size_t errlen)
{
        char path[PATH_MAX + 32];
        keypair_t kp;
        int r;

        snprintf(path, sizeof(path), "%s/agents.d", f->dir);
        mkdir(path, 0700);
        snprintf(path, sizeof(path), "%s/admins.d", f->dir);
        mkdir(path, 0700);
        if ((r = keys_generate(&kp)) < 0 ||
            (r = keys_write(f->dir, "coordinator", &kp, false, err, errlen)) < 0)
                return r < 0 && !err[0] ? errorf(err, errlen, r, "keygen: %s", strerror(-r)) : r;
        for (unsigned i = 0; i < opt->agents; i++) {
                char name[32], dst[PATH_MAX + 64], src[PATH_MAX + 64];
                snprintf(name, sizeof(name), "local-%u", i);
                if ((r = keys_generate(&kp)) < 0 ||
                    (r = keys_write(f->dir, name, &kp, false, err, errlen)) < 0)
                        return r;
                /* The allow-list holds exactly the keys made for this run. */
                snprintf(src, sizeof(src), "%s/%s.pub", f->dir, name);
                snprintf(dst, sizeof(dst), "%s/agents.d/%s.pub", f->dir, name);
                if (rename(src, dst) < 0)
                        return errorf(err, errlen, -errno, "%s: %s", dst, strerror(errno));
        }
        return 0;
}

int local_fleet_start(const local_options_t *opt, local_fleet_t **ret, char *control_ep,
                      size_t ep_len, char *err, size_t errlen)
{
        local_fleet_t *f = calloc(1, sizeof(*f));
        char coord_bin[PATH_MAX], agent_bin[PATH_MAX], agent_ep[512] = "";
        const char *tmp = getenv("TMPDIR");
        int r;

        if (!f)
                return -ENOMEM;
        f->verbose = opt->verbose;
        f->children = calloc(opt->agents + 1, sizeof(*f->children));
        if (!f->children) {
                free(f);
                return -ENOMEM;
        }
        snprintf(f->dir, sizeof(f->dir), "%s/iofleet-local-XXXXXX", tmp && *tmp ? tmp : "/tmp");
        if (!mkdtemp(f->dir)) {
                r = errorf(err, errlen, -errno, "scratch directory: %s", strerror(errno));
                free(f->children);
                free(f);
                return r;
        }
        *ret = f;
        for (unsigned i = 0; i <= opt->agents; i++)
                f->children[i].notify_fd = -1;
        if (!opt->insecure && (r = write_keys(f, opt, err, errlen)) < 0)
                goto fail;
        find_binary("iofleet-coordinator", coord_bin, sizeof(coord_bin));
        find_binary("iofleet-agent", agent_bin, sizeof(agent_bin));
        snprintf(control_ep, ep_len, "ipc://%s/control.sock", f->dir);

        {
                char a_ep[64], c_ep[PATH_MAX + 64], key[PATH_MAX + 64], akeys[PATH_MAX + 64],
                    ckeys[PATH_MAX + 64], results[PATH_MAX + 64], state[PATH_MAX + 64];
                child_t *c = &f->children[0];
                snprintf(c->name, sizeof(c->name), "coordinator");
                snprintf(a_ep, sizeof(a_ep), "--agent-endpoint=tcp://127.0.0.1:*");
                snprintf(c_ep, sizeof(c_ep), "--control-endpoint=%s", control_ep);
                snprintf(key, sizeof(key), "--key=%s/coordinator.key", f->dir);
                snprintf(akeys, sizeof(akeys), "--agent-keys-dir=%s/agents.d", f->dir);
                snprintf(ckeys, sizeof(ckeys), "--control-keys-dir=%s/admins.d", f->dir);
                snprintf(results, sizeof(results), "--results-dir=%s", opt->results_dir);
                snprintf(state, sizeof(state), "--state-dir=%s/coordinator-state", f->dir);
                char *argv[] = {coord_bin, a_ep,
                                c_ep,      key,
                                akeys,     ckeys,
                                results,   state,
                                opt->insecure ? "--insecure=true" : "--insecure=false",
                                /* a port of its own: never the system coordinator's */
                                "--metrics-listen=127.0.0.1:0",
                                /* Its agents are as short-lived as it: nothing to take up
                                 * after a restart that will not come. */
                                "--journal=false",
                                /* its agents' keys are made here: nothing to enrol */
                                "--enroll-endpoint=off",
                                NULL};
                if ((r = spawn(f, c, argv, err, errlen)) < 0)
                        goto fail;
                f->n = 1;
                if ((r = wait_ready(f, c, "IOFLEET_AGENT_ENDPOINT", agent_ep, sizeof(agent_ep), err,
                                    errlen)) < 0)
                        goto fail;
        }
        for (unsigned i = 0; i < opt->agents; i++) {
                child_t *c = &f->children[i + 1];
                char name[80], coord[600], ckey[PATH_MAX + 64], key[PATH_MAX + 64],
                    state[PATH_MAX + 64], work[PATH_MAX + 64], allow[2 * PATH_MAX + 64];
                snprintf(c->name, sizeof(c->name), "local-%u", i);
                snprintf(name, sizeof(name), "--name=%s", c->name);
                snprintf(coord, sizeof(coord), "--coordinator=%s", agent_ep);
                snprintf(ckey, sizeof(ckey), "--coordinator-key=%s/coordinator.pub", f->dir);
                snprintf(key, sizeof(key), "--key=%s/%s.key", f->dir, c->name);
                snprintf(state, sizeof(state), "--state-dir=%s/%s", f->dir, c->name);
                snprintf(work, sizeof(work), "--work-dir=%s", opt->work_dir);
                snprintf(allow, sizeof(allow), "--allow-paths=%s",
                         opt->allow_paths ? opt->allow_paths : opt->work_dir);
                char *argv[] = {agent_bin,
                                name,
                                coord,
                                ckey,
                                key,
                                state,
                                work,
                                allow,
                                "--roles=client,storage",
                                opt->insecure ? "--insecure=true" : "--insecure=false",
                                NULL};
                if ((r = spawn(f, c, argv, err, errlen)) < 0)
                        goto fail;
                f->n++;
        }
        for (unsigned i = 1; i < f->n; i++)
                if ((r = wait_ready(f, &f->children[i], NULL, NULL, 0, err, errlen)) < 0)
                        goto fail;
        if ((r = wait_agents(control_ep, opt->agents, err, errlen)) < 0)
                goto fail;
        return 0;
fail:
        f->failed = true;
        for (unsigned i = 0; i < f->n; i++)
                print_log_tail(f, &f->children[i]);
        return r;
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
        return remove(path);
}

int local_fleet_stop(local_fleet_t **fp)
{
        local_fleet_t *f = *fp;
        int rc = 0;

        if (!f)
                return 0;
        /* Agents first, so none of them sees its coordinator vanish mid-run. */
        for (unsigned i = f->n; i-- > 0;) {
                child_t *c = &f->children[i];
                int64_t deadline = clock_mono_ns() + 10 * (int64_t)NSEC_PER_SEC;
                if (c->pid <= 0 || c->exited)
                        continue;
                kill(c->pid, SIGTERM);
                while (!c->exited) {
                        if (waitpid(c->pid, &c->status, WNOHANG) == c->pid)
                                c->exited = true;
                        else if (clock_mono_ns() > deadline) {
                                fprintf(stderr, "iofleet: %s did not stop within 10s: killed\n",
                                        c->name);
                                kill(c->pid, SIGKILL);
                                waitpid(c->pid, &c->status, 0);
                                c->exited = true;
                                f->failed = true;
                        } else
                                usleep(5000);
                }
                if (!WIFEXITED(c->status) || WEXITSTATUS(c->status) != 0) {
                        fprintf(stderr, "iofleet: %s exited with status %d\n", c->name,
                                WIFEXITED(c->status) ? WEXITSTATUS(c->status)
                                                     : 128 + WTERMSIG(c->status));
                        f->failed = true;
                }
        }
        for (unsigned i = 0; i < f->n; i++)
                if (f->children[i].notify_fd >= 0)
                        close(f->children[i].notify_fd);
        if (f->failed) {
                fprintf(stderr, "iofleet: daemon logs kept in %s\n", f->dir);
                rc = -EIO;
        } else
                nftw(f->dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
        free(f->children);
        free(f);
        *fp = NULL;
        return rc;
}
