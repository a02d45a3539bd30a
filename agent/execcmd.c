/* fio's exec_prerun and exec_postrun: a program the agent's own config names (allow_commands),
 * run without a shell or arguments, its output to JOB.prerun.txt / JOB.postrun.txt. */
#include "execcmd.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "options-values.h"
#include "util.h"

extern char **environ;

static int check_one(const agent_config_t *cfg, const job_spec_t *j, const char *key,
                     const char *v, char *err, size_t errlen)
{
        char list[512] = "";
        size_t o = 0;

        if (strempty(v))
                return 0;
        if (!exec_name_valid(v))
                return errorf(err, errlen, -EPERM,
                              "job %s: %s: '%.60s' is a command line; the agent runs as root, so "
                              "a job only names a program the agent's config allows "
                              "(allow_commands = NAME:/absolute/path) and never gives one",
                              j->name, key, v);
        if (agent_config_command(cfg, v))
                return 0;
        for (size_t i = 0; i < cfg->allow_commands.n && o < sizeof(list); i++) {
                const char *e = cfg->allow_commands.v[i];
                o += (size_t)snprintf(list + o, sizeof(list) - o, "%s%.*s", i ? ", " : "",
                                      (int)strcspn(e, ":"), e);
        }
        return errorf(err, errlen, -EPERM,
                      "job %s: %s=%s: this agent's config allows no such command (allow_commands "
                      "= NAME:/absolute/path; it allows %s): the agent runs as root, and runs "
                      "only programs its owner named",
                      j->name, key, v, o ? list : "none");
}

int execcmd_check(const agent_config_t *cfg, const job_spec_t *j, char *err, size_t errlen)
{
        int r = check_one(cfg, j, "exec_prerun", j->exec_prerun, err, errlen);
        return r < 0 ? r : check_one(cfg, j, "exec_postrun", j->exec_postrun, err, errlen);
}

int execcmd_run(const agent_config_t *cfg, const job_spec_t *j, const char *phase,
                const char *name, const char *dir, const int *stop, policy_undo_t *undo,
                char *err, size_t errlen)
{
        const char *prog = agent_config_command(cfg, name);
        char out[4200], e[1024], env_job[128], env_phase[64];
        char *argv[] = {(char *)prog, NULL};
        char *envp[] = {"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
                        env_job, env_phase, NULL};
        posix_spawn_file_actions_t fa;
        pid_t pid;
        int fd, r, status = 0;
        int64_t killed = 0;

        if (!prog) {
                r = execcmd_check(cfg, j, err, errlen);
                return r < 0 ? r
                             : errorf(err, errlen, -EPERM, "job %s: exec_%s=%s is not allowed",
                                      j->name, phase, name);
        }
        snprintf(env_job, sizeof(env_job), "IOFLEET_JOB=%s", j->name);
        snprintf(env_phase, sizeof(env_phase), "IOFLEET_PHASE=%s", phase);
        if (snprintf(out, sizeof(out), "%s/%s.%s.txt", dir, j->name, phase) >= (int)sizeof(out))
                return errorf(err, errlen, -ENAMETOOLONG, "job %s: %s: output path too long",
                              j->name, phase);
        r = policy_open(cfg, out, PATH_JOB_FILE, O_WRONLY | O_CREAT | O_TRUNC, 0644, undo, &fd, e,
                        sizeof(e));
        if (r < 0)
                return errorf(err, errlen, r, "job %s: exec_%s: %s", j->name, phase, e);
        posix_spawn_file_actions_init(&fa);
        posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
        posix_spawn_file_actions_adddup2(&fa, fd, STDOUT_FILENO);
        posix_spawn_file_actions_adddup2(&fa, fd, STDERR_FILENO);
        r = -posix_spawn(&pid, prog, &fa, NULL, argv, envp);
        posix_spawn_file_actions_destroy(&fa);
        close(fd);
        if (r < 0)
                return errorf(err, errlen, r, "job %s: exec_%s=%s: cannot run %s: %s", j->name,
                              phase, name, prog, strerror(-r));
        for (;;) {
                pid_t w = waitpid(pid, &status, WNOHANG);
                if (w == pid)
                        break;
                if (w < 0 && errno != EINTR)
                        return errorf(err, errlen, -errno, "job %s: exec_%s: waitpid: %s",
                                      j->name, phase, strerror(errno));
                if (__atomic_load_n(stop, __ATOMIC_RELAXED) && !killed) {
                        kill(pid, SIGTERM);
                        killed = clock_mono_ns();
                } else if (killed && clock_mono_ns() - killed > 2 * (int64_t)NSEC_PER_SEC)
                        kill(pid, SIGKILL);
                clock_sleep_until_mono(clock_mono_ns() + 10 * (int64_t)NSEC_PER_MSEC, 0);
        }
        if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
                return 0;
        if (WIFEXITED(status))
                return errorf(err, errlen, -ECHILD, "job %s: exec_%s=%s (%s) exited with %d; see %s",
                              j->name, phase, name, prog, WEXITSTATUS(status), out);
        return errorf(err, errlen, -ECHILD, "job %s: exec_%s=%s (%s) ended by signal %d", j->name,
                      phase, name, prog, WTERMSIG(status));
}
