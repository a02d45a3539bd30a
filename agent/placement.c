/* Where and how a worker thread runs, as fio places its jobs: CPU affinity, NUMA memory policy,
 * nice value and I/O priority, each applied to the calling thread only. */
#include "placement.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "fileio.h"
#include "util.h"

/* The kernel's ABI (linux/mempolicy.h, linux/ioprio.h). */
#define MEMPOLICY_DEFAULT 0
#define MEMPOLICY_PREFERRED 1
#define MEMPOLICY_BIND 2
#define MEMPOLICY_INTERLEAVE 3
#define MEMPOLICY_LOCAL 4
#define IOPRIO_WHO_THREAD 1 /* IOPRIO_WHO_PROCESS: a tid names one thread */
#define IOPRIO_CLASS_SHIFT 13
#define IOPRIO_CLASS_BE 2

bool placement_needed(const job_spec_t *j)
{
        return j->cpus_allowed.n || j->numa_cpu_nodes.n || j->numa_mem_mode != NUMA_MEM_UNSET ||
               j->nice || j->prio >= 0 || j->prioclass >= 0;
}

static bool in_set(const job_cpuset_t *s, unsigned i)
{
        return i < JOB_CPUS_MAX && (s->bits[i / 64] >> (i % 64)) & 1;
}

/* Reads a sysfs list file ("0-3,8") into s. 0 or -errno. */
static int read_list(const char *path, job_cpuset_t *s)
{
        char *text = NULL, *save = NULL, *tok;
        size_t len = 0;
        int r = read_full_file(path, 0, 65536, &text, &len);

        memset(s, 0, sizeof(*s));
        if (r < 0)
                return r;
        for (tok = strtok_r(text, ",\n", &save); tok; tok = strtok_r(NULL, ",\n", &save)) {
                unsigned lo, hi;
                int n = sscanf(tok, "%u-%u", &lo, &hi);
                if (n < 1)
                        continue;
                if (n == 1)
                        hi = lo;
                for (unsigned i = lo; i <= hi && i < JOB_CPUS_MAX; i++)
                        if (!in_set(s, i)) {
                                s->bits[i / 64] |= 1ULL << (i % 64);
                                s->n++;
                        }
        }
        free(text);
        return 0;
}

/* "0-3,8" into buf, for messages. */
static const char *list_text(const job_cpuset_t *s, char *buf, size_t len)
{
        size_t o = 0;
        buf[0] = 0;
        for (unsigned i = 0; i < JOB_CPUS_MAX && o < len; i++) {
                unsigned e = i;
                int w;
                if (!in_set(s, i))
                        continue;
                while (in_set(s, e + 1))
                        e++;
                w = e > i ? snprintf(buf + o, len - o, "%s%u-%u", o ? "," : "", i, e)
                          : snprintf(buf + o, len - o, "%s%u", o ? "," : "", i);
                if (w < 0)
                        break;
                o += (size_t)w;
                i = e;
        }
        return buf;
}

/* The CPUs of a node set, from sysfs; -ENOENT with err for a node this host lacks. */
static int node_cpus(const char *sysfs, const char *key, const job_cpuset_t *nodes,
                     job_cpuset_t *cpus, char *err, size_t errlen)
{
        char path[512], have[256];
        job_cpuset_t online;

        snprintf(path, sizeof(path), "%s/devices/system/node/online", sysfs);
        if (read_list(path, &online) < 0) {
                /* a kernel without NUMA support knows one node, 0, with every CPU */
                memset(&online, 0, sizeof(online));
                online.bits[0] = 1;
                online.n = 1;
        }
        memset(cpus, 0, sizeof(*cpus));
        /* "all" (every node the option can name) means the nodes this host has */
        if (nodes->n == JOB_NODES_MAX)
                nodes = &online;
        for (unsigned n = 0; n < JOB_NODES_MAX; n++) {
                job_cpuset_t c;
                if (!in_set(nodes, n))
                        continue;
                if (!in_set(&online, n)) {
                        snprintf(err, errlen, "%s: NUMA node %u does not exist on this agent "
                                              "(nodes %s)",
                                 key, n, list_text(&online, have, sizeof(have)));
                        return -ENOENT;
                }
                snprintf(path, sizeof(path), "%s/devices/system/node/node%u/cpulist", sysfs, n);
                if (read_list(path, &c) < 0) {
                        long ncpu = sysconf(_SC_NPROCESSORS_CONF);
                        memset(&c, 0, sizeof(c));
                        for (long i = 0; i < ncpu && i < JOB_CPUS_MAX; i++) {
                                c.bits[i / 64] |= 1ULL << (i % 64);
                                c.n++;
                        }
                }
                for (unsigned i = 0; i < JOB_CPUS_MAX / 64; i++)
                        cpus->bits[i] |= c.bits[i];
        }
        for (unsigned i = 0; i < JOB_CPUS_MAX; i++)
                cpus->n += in_set(cpus, i);
        return 0;
}

static int set_affinity(const char *key, const job_cpuset_t *want, char *err, size_t errlen)
{
        long ncpu = sysconf(_SC_NPROCESSORS_CONF);
        cpu_set_t set;
        char have[64];
        int r;

        CPU_ZERO(&set);
        for (unsigned i = 0; i < JOB_CPUS_MAX; i++) {
                if (!in_set(want, i))
                        continue;
                if (i >= CPU_SETSIZE || (long)i >= ncpu) {
                        snprintf(have, sizeof(have), "0-%ld", ncpu - 1);
                        snprintf(err, errlen, "%s: CPU %u does not exist on this agent (CPUs %s)",
                                 key, i, have);
                        return -EINVAL;
                }
                CPU_SET(i, &set);
        }
        r = pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
        if (r) {
                snprintf(err, errlen, "%s: the agent may not run on those CPUs: %s (its cgroup's "
                                      "cpuset?)",
                         key, strerror(r));
                return -r;
        }
        return 0;
}

/* fio's split: the clone's own CPU, the set's (clone mod n)-th. */
static job_cpuset_t split_one(const job_cpuset_t *s, unsigned clone)
{
        job_cpuset_t one = {0};
        unsigned k = s->n ? clone % s->n : 0;
        for (unsigned i = 0; i < JOB_CPUS_MAX; i++)
                if (in_set(s, i) && k-- == 0) {
                        one.bits[i / 64] = 1ULL << (i % 64);
                        one.n = 1;
                        break;
                }
        return one;
}

static int set_mempolicy_of(const job_spec_t *j, const char *sysfs, char *err, size_t errlen)
{
        static const int modes[] = {[NUMA_MEM_DEFAULT] = MEMPOLICY_DEFAULT,
                                    [NUMA_MEM_PREFER] = MEMPOLICY_PREFERRED,
                                    [NUMA_MEM_BIND] = MEMPOLICY_BIND,
                                    [NUMA_MEM_INTERLEAVE] = MEMPOLICY_INTERLEAVE,
                                    [NUMA_MEM_LOCAL] = MEMPOLICY_LOCAL};
        unsigned long mask[JOB_NODES_MAX / (8 * sizeof(unsigned long))] = {0};
        job_cpuset_t cpus, nodes = j->numa_mem_nodes;
        char path[512];
        int r;

        if (nodes.n &&
            (r = node_cpus(sysfs, "numa_mem_policy", &nodes, &cpus, err, errlen)) < 0)
                return r;
        if (nodes.n == JOB_NODES_MAX) { /* "all": the nodes this host has */
                snprintf(path, sizeof(path), "%s/devices/system/node/online", sysfs);
                if (read_list(path, &nodes) < 0) {
                        memset(&nodes, 0, sizeof(nodes));
                        nodes.bits[0] = 1;
                        nodes.n = 1;
                }
        }
        for (unsigned n = 0; n < JOB_NODES_MAX; n++)
                if (in_set(&nodes, n))
                        mask[n / (8 * sizeof(unsigned long))] |= 1UL
                                                                 << (n % (8 * sizeof(unsigned long)));
        if (syscall(SYS_set_mempolicy, modes[j->numa_mem_mode], nodes.n ? mask : NULL,
                    nodes.n ? (unsigned long)JOB_NODES_MAX + 1 : 0UL) < 0) {
                r = -errno;
                if (r == -ENOSYS)
                        snprintf(err, errlen,
                                 "numa_mem_policy: this agent's kernel has no NUMA support "
                                 "(set_mempolicy: %s)",
                                 strerror(-r));
                else
                        snprintf(err, errlen, "numa_mem_policy: set_mempolicy: %s", strerror(-r));
                return r;
        }
        return 0;
}

int placement_apply(const job_spec_t *j, unsigned clone, const char *sysfs, char *err,
                    size_t errlen)
{
        pid_t tid = (pid_t)syscall(SYS_gettid);
        int r;

        if (j->cpus_allowed.n) {
                job_cpuset_t s = j->cpus_allowed_policy == CPUS_SPLIT
                                     ? split_one(&j->cpus_allowed, clone)
                                     : j->cpus_allowed;
                if ((r = set_affinity("cpus_allowed", &s, err, errlen)) < 0)
                        return r;
        }
        if (j->numa_cpu_nodes.n) {
                job_cpuset_t cpus;
                if ((r = node_cpus(sysfs, "numa_cpu_nodes", &j->numa_cpu_nodes, &cpus, err,
                                   errlen)) < 0 ||
                    (r = set_affinity("numa_cpu_nodes", &cpus, err, errlen)) < 0)
                        return r;
        }
        if (j->numa_mem_mode != NUMA_MEM_UNSET &&
            (r = set_mempolicy_of(j, sysfs, err, errlen)) < 0)
                return r;
        if (j->nice && setpriority(PRIO_PROCESS, (id_t)tid, j->nice) < 0) {
                r = -errno;
                snprintf(err, errlen, "nice: cannot set %d: %s", (int)j->nice, strerror(-r));
                return r;
        }
        if (j->prio >= 0 || j->prioclass >= 0) {
                /* fio: no class (or class 0) with a level means best-effort */
                int cls = j->prioclass > 0 ? j->prioclass : IOPRIO_CLASS_BE;
                int level = j->prio >= 0 ? j->prio : 0;
                if (syscall(SYS_ioprio_set, IOPRIO_WHO_THREAD, tid,
                            (cls << IOPRIO_CLASS_SHIFT) | level) < 0) {
                        r = -errno;
                        snprintf(err, errlen, "prio: cannot set class %d level %d: %s", cls, level,
                                 strerror(-r));
                        return r;
                }
        }
        return 0;
}
