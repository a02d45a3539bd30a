/* sim-agents: thousands of simulated agents and one control client in one process, to measure how
 * one coordinator copes: registration, interval sums, the delay to each cluster figure. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <uuid/uuid.h>
#include <zmq.h>

#include "clock.h"
#include "hist.h"
#include "keys.h"
#include "sock.h"
#include "util.h"
#include "wire.h"

#define BODY(x) IOFLEET__ENVELOPE__BODY_##x

typedef struct sim_agent {
        void *s;
        char id[37], name[32];
        uint64_t seq;
        uint64_t rseq, acked; /* run messages numbered, and acknowledged by the coordinator */
        bool welcomed, prepared, finished;
        uint32_t rank, nagents; /* from its Prepare */
        int64_t next_hb;   /* CLOCK_MONOTONIC */
        int64_t last_sent; /* CLOCK_MONOTONIC */
        unsigned beats;
} sim_agent_t;

typedef struct sim {
        /* options */
        const char *endpoint, *control, *key, *coordinator_key;
        size_t n;
        uint64_t interval_ns, runtime_ns, lead_ns;
        int coord_pid;
        bool verbose; /* a line per interval on stderr */
        /* state */
        void *ctx, *ctl;
        sim_agent_t *a;
        zmq_pollitem_t *items;
        keypair_t kp;
        char coord_pub[64];
        uint64_t ctl_seq, hb_ns;
        size_t welcomed, hb_cursor;
        char run_id[WIRE_MAX_ID + 1];
        int64_t start_ns; /* timeline (CLOCK_REALTIME), from Start */
        bool started_sent, done;
        uint32_t next_k, n_k;
        /* After the last interval each agent's Finished waits its hold (wire_finish_hold_ns(),
         * as the agent's): the agents by rank (SIZE_MAX: none of that rank), the next one, and
         * when the last interval went (CLOCK_MONOTONIC). */
        size_t *fin_order, fin_next;
        int64_t fin_at;
        Iofleet__Hist clat;
        /* measurements */
        int64_t t_hello, t_welcomed;
        double *delay_ms, *send_lag_ms;
        size_t n_delay, n_lag, incomplete;
        uint64_t acks; /* Acks received */
        uint64_t cpu0, cpu1; /* clock ticks of the coordinator */
        int64_t cpu_t0, cpu_t1, t_last_iv, t_done;
        long rss_kib, hwm_kib;
        unsigned errors;
} sim_t;

static int send_to(sim_t *sim, sim_agent_t *a, envelope_t *e)
{
        e->seq = ++a->seq;
        a->last_sent = clock_mono_ns();
        return sock_send_env(a->s, NULL, e);
}

static void hello(sim_t *sim, sim_agent_t *a)
{
        envelope_t e = IOFLEET__ENVELOPE__INIT;
        Iofleet__Hello h = IOFLEET__HELLO__INIT;
        char *roles[] = {"client"}, *engines[] = {"null"};
        h.agent_id = a->id;
        h.name = a->name;
        h.hostname = "sim";
        h.version = IOFLEET_VERSION;
        h.boot_id = "sim-boot";
        h.roles = roles;
        h.n_roles = 1;
        h.engines = engines;
        h.n_engines = 1;
        e.body_case = BODY(HELLO);
        e.hello = &h;
        send_to(sim, a, &e);
}

/* As the agent beats (agent/session.c): a time probe on every other heartbeat, and the beats
 * between left out while the agent just sent something else. */
static void heartbeat(sim_t *sim, sim_agent_t *a)
{
        envelope_t e = IOFLEET__ENVELOPE__INIT;
        Iofleet__Heartbeat hb = IOFLEET__HEARTBEAT__INIT;
        if (a->beats++ % 2 == 0)
                hb.probe_t1 = (uint64_t)clock_real_ns();
        else if (clock_mono_ns() - a->last_sent < (int64_t)sim->hb_ns)
                return;
        hb.run_id = sim->run_id;
        e.body_case = BODY(HEARTBEAT);
        e.heartbeat = &hb;
        send_to(sim, a, &e);
}

static void dirstats(sim_t *sim, Iofleet__DirStats *d, uint64_t ios)
{
        iofleet__dir_stats__init(d);
        d->ios = ios;
        d->issued = ios;
        d->bytes = ios * 4096;
        d->clat = &sim->clat;
}

/* A Finished's totals also carry the total latency (an interval's carry clat only, as the
 * agent's: common/wire.c). */
static void dirstats_total(sim_t *sim, Iofleet__DirStats *d, uint64_t ios)
{
        dirstats(sim, d, ios);
        d->lat = &sim->clat;
}

/* Interval k of every agent: the same counters, the same run_seq (every agent sent the same run
 * messages), only the envelope's seq differs. The message is encoded once and each agent's copy
 * gets its seq (field 2, a varint) in front: protobuf takes fields in any order, so the bytes on
 * the wire decode to exactly what encoding each one would give. Encoding 9 500 Intervals with
 * their histograms one by one cost the simulator about 40 ms of the CPU the coordinator shares
 * at every interval's end, charged to the coordinator's delay. */
static void send_intervals(sim_t *sim, uint32_t k)
{
        envelope_t e = IOFLEET__ENVELOPE__INIT;
        Iofleet__Interval iv = IOFLEET__INTERVAL__INIT;
        Iofleet__DirStats rd;
        uint8_t *body = NULL, *buf = NULL;
        size_t len = 0;
        uint64_t common = sim->n ? sim->a[0].rseq + 1 : 0;
        dirstats(sim, &rd, 100);
        iv.run_id = sim->run_id;
        iv.run_seq = common;
        iv.index = k;
        iv.read = &rd;
        iv.last = k + 1 == sim->n_k;
        e.body_case = BODY(INTERVAL);
        e.interval = &iv;
        if (wire_encode(&e, &body, &len) < 0 || !(buf = malloc(len + 11))) {
                free(body);
                body = NULL;
        }
        for (size_t i = 0; i < sim->n; i++) {
                sim_agent_t *a = &sim->a[i];
                if (!body || a->rseq + 1 != common) {
                        /* Out of step with the others: its own encoding. */
                        iv.run_seq = ++a->rseq;
                        send_to(sim, a, &e);
                        iv.run_seq = common;
                        continue;
                }
                size_t n = 0;
                uint64_t seq = ++a->seq;
                buf[n++] = 2 << 3; /* field 2 (seq), varint */
                for (; seq >= 0x80; seq >>= 7)
                        buf[n++] = (uint8_t)(seq | 0x80);
                buf[n++] = (uint8_t)seq;
                memcpy(buf + n, body, len);
                a->last_sent = clock_mono_ns();
                a->rseq++;
                sock_send(a->s, NULL, buf, n + len);
        }
        free(body);
        free(buf);
}

static void send_finished(sim_t *sim, sim_agent_t *a)
{
        envelope_t e = IOFLEET__ENVELOPE__INIT;
        Iofleet__Finished f = IOFLEET__FINISHED__INIT;
        Iofleet__JobResult jr = IOFLEET__JOB_RESULT__INIT, *jp = &jr;
        Iofleet__DirStats rd;
        if (a->finished)
                return;
        a->finished = true;
        dirstats_total(sim, &rd, 100ULL * sim->next_k);
        jr.name = "sim";
        jr.numjobs = 1;
        jr.clone = -1;
        jr.read = &rd;
        jr.runtime_ns = sim->runtime_ns;
        jr.first_done_ns = jr.last_done_ns = sim->runtime_ns;
        f.run_id = sim->run_id;
        f.run_seq = ++a->rseq;
        f.intervals = sim->n_k;
        f.jobs = &jp;
        f.n_jobs = 1;
        f.error = "";
        e.body_case = BODY(FINISHED);
        e.finished = &f;
        send_to(sim, a, &e);
}

static void on_agent_msg(sim_t *sim, sim_agent_t *a, envelope_t *e)
{
        envelope_t r = IOFLEET__ENVELOPE__INIT;
        switch (e->body_case) {
        case BODY(WELCOME):
                if (!a->welcomed) {
                        a->welcomed = true;
                        sim->welcomed++;
                        sim->hb_ns = e->welcome->heartbeat_ns;
                        /* Spread evenly over one period, in the order the cursor visits. */
                        a->next_hb =
                            clock_mono_ns() + (int64_t)(sim->hb_ns * (size_t)(a - sim->a) / sim->n);
                }
                break;
        case BODY(PREPARE): {
                Iofleet__Prepared p = IOFLEET__PREPARED__INIT;
                snprintf(sim->run_id, sizeof(sim->run_id), "%s", e->prepare->run_id);
                sim->interval_ns = e->prepare->interval_ns;
                a->rank = e->prepare->rank;
                a->nagents = e->prepare->nagents;
                p.run_id = sim->run_id;
                p.run_seq = ++a->rseq;
                p.rtt_ns = 1000;
                p.workers = 1;
                r.body_case = BODY(PREPARED);
                r.prepared = &p;
                a->prepared = true;
                send_to(sim, a, &r);
                break;
        }
        case BODY(START):
                sim->start_ns = e->start->start_ns;
                break;
        case BODY(STOP):
                send_finished(sim, a);
                break;
        case BODY(HEARTBEAT):
                if (!e->heartbeat->ack_upto)
                        break;
                sim->acks++;
                if (e->heartbeat->ack_upto > a->acked)
                        a->acked = e->heartbeat->ack_upto;
                break;
        case BODY(ACK):
                sim->acks++;
                if (e->ack->upto > a->acked)
                        a->acked = e->ack->upto;
                break;
        case BODY(ERROR):
                if (sim->errors++ < 5)
                        fprintf(stderr, "sim-agents: %s: coordinator error: %s\n", a->name,
                                e->error->message);
                break;
        default:
                break;
        }
}

static long proc_status_kib(int pid, const char *field)
{
        char path[64], line[256];
        long v = -1;
        FILE *f;
        snprintf(path, sizeof(path), "/proc/%d/status", pid);
        f = fopen(path, "re");
        if (!f)
                return -1;
        while (fgets(line, sizeof(line), f))
                if (strncmp(line, field, strlen(field)) == 0 && line[strlen(field)] == ':')
                        v = strtol(line + strlen(field) + 1, NULL, 10);
        fclose(f);
        return v;
}

/* utime + stime of pid, in clock ticks. */
static uint64_t proc_cpu(int pid)
{
        char path[64], buf[4096], *p;
        unsigned long long ut = 0, st = 0;
        size_t n;
        FILE *f;
        snprintf(path, sizeof(path), "/proc/%d/stat", pid);
        f = fopen(path, "re");
        if (!f)
                return 0;
        n = fread(buf, 1, sizeof(buf) - 1, f);
        fclose(f);
        buf[n] = 0;
        p = strrchr(buf, ')');
        /* After the comm: state(3) ... utime(14) stime(15). */
        if (!p ||
            sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &ut, &st) != 2)
                return 0;
        return ut + st;
}

static void on_control_msg(sim_t *sim, envelope_t *e)
{
        int64_t now = clock_real_ns();
        switch (e->body_case) {
        case BODY(RUN_ACCEPTED):
                if (e->run_accepted->n_agents != sim->n)
                        fprintf(stderr, "sim-agents: run accepted on %zu agents, not %zu\n",
                                e->run_accepted->n_agents, sim->n);
                break;
        case BODY(RUN_UPDATE): {
                Iofleet__RunUpdate *u = e->run_update;
                if (u->kind == IOFLEET__RUN_UPDATE__KIND__KIND_STARTED) {
                        sim->cpu0 = proc_cpu(sim->coord_pid);
                        sim->cpu_t0 = clock_mono_ns();
                } else if (u->kind == IOFLEET__RUN_UPDATE__KIND__KIND_INTERVAL) {
                        int64_t end = u->start_ns + (int64_t)((u->index + 1) * u->interval_ns);
                        if (sim->n_delay < sim->n_k)
                                sim->delay_ms[sim->n_delay++] = (double)(now - end) / 1e6;
                        if (sim->verbose)
                                fprintf(stderr,
                                        "sim-agents: interval %u: shown %.1f ms after its end, "
                                        "%u of %zu agents\n",
                                        u->index, (double)(now - end) / 1e6, u->reported, sim->n);
                        if (u->reported < sim->n)
                                sim->incomplete++;
                        sim->t_last_iv = now;
                        sim->cpu1 = proc_cpu(sim->coord_pid);
                        sim->cpu_t1 = clock_mono_ns();
                        sim->rss_kib = proc_status_kib(sim->coord_pid, "VmRSS");
                } else if (u->kind == IOFLEET__RUN_UPDATE__KIND__KIND_EVENT)
                        fprintf(stderr, "sim-agents: event: %s\n", u->message);
                break;
        }
        case BODY(RUN_DONE):
                sim->t_done = now;
                sim->hwm_kib = proc_status_kib(sim->coord_pid, "VmHWM");
                if (e->run_done->code)
                        fprintf(stderr, "sim-agents: run done with error: %s\n",
                                e->run_done->message);
                sim->done = true;
                break;
        case BODY(ERROR):
                fprintf(stderr, "sim-agents: control error: %s\n", e->error->message);
                sim->errors++;
                sim->done = true;
                break;
        default:
                break;
        }
}

static int submit(sim_t *sim)
{
        envelope_t e = IOFLEET__ENVELOPE__INIT;
        Iofleet__SubmitRun s = IOFLEET__SUBMIT_RUN__INIT;
        Iofleet__Job job = IOFLEET__JOB__INIT, *jp = &job;
        Iofleet__JobOption o[6], *op[6];
        char runtime[32];
        const char *kv[6][2] = {{"ioengine", "null"}, {"rw", "read"},      {"bs", "4k"},
                                {"size", "1m"},       {"time_based", "1"}, {"runtime", runtime}};
        snprintf(runtime, sizeof(runtime), "%" PRIu64 "ms",
                 (uint64_t)(sim->runtime_ns / NSEC_PER_MSEC));
        for (size_t i = 0; i < 6; i++) {
                iofleet__job_option__init(&o[i]);
                o[i].key = (char *)kv[i][0];
                o[i].value = (char *)kv[i][1];
                op[i] = &o[i];
        }
        job.name = "sim";
        job.options = op;
        job.n_options = 6;
        s.jobs = &jp;
        s.n_jobs = 1;
        s.interval_ns = sim->interval_ns;
        s.lead_ns = sim->lead_ns;
        s.command_line = "sim-agents";
        e.seq = ++sim->ctl_seq;
        e.body_case = BODY(SUBMIT_RUN);
        e.submit_run = &s;
        return sock_send_env(sim->ctl, NULL, &e);
}

static int open_agent(sim_t *sim, size_t i)
{
        sim_agent_t *a = &sim->a[i];
        int linger = 0, hwm = 10000;
        uuid_t u;
        uuid_generate_random(u);
        uuid_unparse_lower(u, a->id);
        snprintf(a->name, sizeof(a->name), "sim-%05zu", i);
        a->s = zmq_socket(sim->ctx, ZMQ_DEALER);
        if (!a->s)
                return -errno;
        zmq_setsockopt(a->s, ZMQ_LINGER, &linger, sizeof(linger));
        zmq_setsockopt(a->s, ZMQ_SNDHWM, &hwm, sizeof(hwm));
        zmq_setsockopt(a->s, ZMQ_RCVHWM, &hwm, sizeof(hwm));
        if (sim->key && sock_curve_client(a->s, &sim->kp, sim->coord_pub) < 0)
                return -EINVAL;
        if (zmq_connect(a->s, sim->endpoint) < 0)
                return -errno;
        sim->items[i].socket = a->s;
        sim->items[i].events = ZMQ_POLLIN;
        return 0;
}

static void drain(sim_t *sim, void *s, sim_agent_t *a)
{
        for (int b = 0; b < 64; b++) {
                sock_msg_t m;
                envelope_t *e = NULL;
                char err[256];
                if (sock_recv(s, false, &m) < 0)
                        break;
                if (wire_decode(m.data, m.len, WIRE_MAX_CONTROL_MSG, &e, err, sizeof(err)) == 0) {
                        if (a)
                                on_agent_msg(sim, a, e);
                        else
                                on_control_msg(sim, e);
                } else
                        fprintf(stderr, "sim-agents: bad message: %s\n", err);
                wire_free(&e);
                sock_msg_done(&m);
        }
}

/* The last interval went: the agents' Finished follow, each after its hold. The hold grows with
 * the rank, and the coordinator numbers an agent's ranks 0..n-1: in rank order is in hold order.
 * An agent without a rank of its own (none can be) sends at once. */
static void finish_order(sim_t *sim)
{
        sim->fin_at = clock_mono_ns();
        sim->fin_order = malloc(sim->n * sizeof(*sim->fin_order));
        for (size_t i = 0; sim->fin_order && i < sim->n; i++)
                sim->fin_order[i] = SIZE_MAX;
        for (size_t i = 0; i < sim->n; i++) {
                uint32_t r = sim->a[i].rank;
                if (sim->fin_order && r < sim->n && sim->fin_order[r] == SIZE_MAX)
                        sim->fin_order[r] = i;
                else
                        send_finished(sim, &sim->a[i]);
        }
}

/* Sends what the clock says is due: Started at the start instant, then interval k of every
 * agent at start + (k+1)*interval, heartbeats spread evenly over the period. */
static void timers(sim_t *sim)
{
        int64_t now = clock_real_ns(), mono = clock_mono_ns();

        if (sim->start_ns && !sim->started_sent && now >= sim->start_ns) {
                for (size_t i = 0; i < sim->n; i++) {
                        envelope_t e = IOFLEET__ENVELOPE__INIT;
                        Iofleet__Started st = IOFLEET__STARTED__INIT;
                        st.run_id = sim->run_id;
                        st.run_seq = ++sim->a[i].rseq;
                        st.start_ns = clock_real_ns();
                        st.host_mono_ns = clock_mono_ns();
                        e.body_case = BODY(STARTED);
                        e.started = &st;
                        send_to(sim, &sim->a[i], &e);
                }
                sim->started_sent = true;
        }
        while (sim->started_sent && sim->next_k < sim->n_k &&
               now >= sim->start_ns + (int64_t)((sim->next_k + 1) * sim->interval_ns)) {
                int64_t end = sim->start_ns + (int64_t)((sim->next_k + 1) * sim->interval_ns);
                send_intervals(sim, sim->next_k);
                sim->send_lag_ms[sim->n_lag++] = (double)(clock_real_ns() - end) / 1e6;
                if (sim->verbose)
                        fprintf(
                            stderr,
                            "sim-agents: interval %u: sent %.1f ms after its end (from %.1f ms)\n",
                            sim->next_k, sim->send_lag_ms[sim->n_lag - 1],
                            (double)(now - end) / 1e6);
                sim->next_k++;
                if (sim->next_k == sim->n_k)
                        finish_order(sim);
                now = clock_real_ns();
        }
        while (sim->fin_order && sim->fin_next < sim->n) {
                size_t i = sim->fin_order[sim->fin_next];
                if (i != SIZE_MAX) {
                        sim_agent_t *a = &sim->a[i];
                        if (clock_mono_ns() < sim->fin_at + wire_finish_hold_ns(a->rank, a->nagents))
                                break;
                        send_finished(sim, a);
                }
                sim->fin_next++;
        }
        for (size_t c = 0; sim->hb_ns && c < sim->n; c++) {
                sim_agent_t *a = &sim->a[sim->hb_cursor];
                if (!a->welcomed) {
                        /* Not in yet: it must not hold up the heartbeats of those after it. */
                        sim->hb_cursor = (sim->hb_cursor + 1) % sim->n;
                        continue;
                }
                if (mono < a->next_hb)
                        break;
                heartbeat(sim, a);
                a->next_hb += (int64_t)sim->hb_ns;
                if (a->next_hb < mono)
                        a->next_hb = mono + (int64_t)sim->hb_ns;
                sim->hb_cursor = (sim->hb_cursor + 1) % sim->n;
        }
}

static int cmp_double(const void *a, const void *b)
{
        double x = *(const double *)a, y = *(const double *)b;
        return x < y ? -1 : x > y;
}

/* fio's rank rule: the ceil(p * n)-th smallest. */
static double pct(double *v, size_t n, double p)
{
        size_t r;
        if (!n)
                return -1;
        qsort(v, n, sizeof(*v), cmp_double);
        r = (size_t)(p * (double)n + 0.999999);
        return v[r ? r - 1 : 0];
}

static void usage(FILE *f)
{
        fprintf(f, "Usage: sim-agents --endpoint=tcp://127.0.0.1:PORT --control=ipc://PATH "
                   "--agents=N [--interval=MS] [--runtime=MS] [--lead=MS] [--coord-pid=PID] "
                   "[--key=AGENT.key --coordinator-key=COORD.pub] [--verbose]\n"
                   "Prints one line of key=value figures for the run.\n");
}

static int parse_args(sim_t *sim, int argc, char **argv)
{
        static const struct option opts[] = {{"endpoint", required_argument, NULL, 'e'},
                                             {"control", required_argument, NULL, 'c'},
                                             {"agents", required_argument, NULL, 'n'},
                                             {"interval", required_argument, NULL, 'i'},
                                             {"runtime", required_argument, NULL, 'r'},
                                             {"lead", required_argument, NULL, 'l'},
                                             {"coord-pid", required_argument, NULL, 'p'},
                                             {"key", required_argument, NULL, 'k'},
                                             {"coordinator-key", required_argument, NULL, 'K'},
                                             {"verbose", no_argument, NULL, 'v'},
                                             {"help", no_argument, NULL, 'h'},
                                             {}};
        int c;
        sim->interval_ns = NSEC_PER_SEC;
        sim->runtime_ns = 20 * NSEC_PER_SEC;
        sim->lead_ns = 2 * NSEC_PER_SEC;
        while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
                switch (c) {
                case 'e':
                        sim->endpoint = optarg;
                        break;
                case 'c':
                        sim->control = optarg;
                        break;
                case 'n':
                        sim->n = strtoul(optarg, NULL, 10);
                        break;
                case 'i':
                        sim->interval_ns = strtoull(optarg, NULL, 10) * NSEC_PER_MSEC;
                        break;
                case 'r':
                        sim->runtime_ns = strtoull(optarg, NULL, 10) * NSEC_PER_MSEC;
                        break;
                case 'l':
                        sim->lead_ns = strtoull(optarg, NULL, 10) * NSEC_PER_MSEC;
                        break;
                case 'p':
                        sim->coord_pid = atoi(optarg);
                        break;
                case 'k':
                        sim->key = optarg;
                        break;
                case 'K':
                        sim->coordinator_key = optarg;
                        break;
                case 'v':
                        sim->verbose = true;
                        break;
                case 'h':
                        usage(stdout);
                        return 1;
                default:
                        usage(stderr);
                        return -EINVAL;
                }
        }
        if (!sim->endpoint || !sim->control || sim->n < 1 || sim->n > WIRE_MAX_AGENTS ||
            sim->interval_ns < 10 * NSEC_PER_MSEC || sim->runtime_ns < sim->interval_ns ||
            sim->coord_pid <= 0 || !sim->key != !sim->coordinator_key) {
                fprintf(stderr, "sim-agents: need --endpoint, --control, --coord-pid, --agents "
                                "1..100000, --interval >= 10 ms, --runtime >= interval, and "
                                "--key with --coordinator-key or neither\n");
                return -EINVAL;
        }
        return 0;
}

int main(int argc, char **argv)
{
        sim_t sim = {};
        hist_t h;
        char err[512];
        int r, linger = 0;

        if ((r = parse_args(&sim, argc, argv)) != 0)
                return r > 0 ? 0 : 2;
        if (sim.key) {
                keypair_t ck;
                if (keys_load(sim.key, true, &sim.kp, err, sizeof(err)) < 0 ||
                    keys_load(sim.coordinator_key, false, &ck, err, sizeof(err)) < 0) {
                        fprintf(stderr, "sim-agents: %s\n", err);
                        return 1;
                }
                snprintf(sim.coord_pub, sizeof(sim.coord_pub), "%s", ck.public_z85);
        }
        sim.n_k = (uint32_t)(sim.runtime_ns / sim.interval_ns);
        sim.delay_ms = calloc(sim.n_k + 1, sizeof(double));
        sim.send_lag_ms = calloc(sim.n_k + 1, sizeof(double));
        sim.a = calloc(sim.n, sizeof(*sim.a));
        sim.items = calloc(sim.n + 1, sizeof(*sim.items));
        if (!sim.delay_ms || !sim.send_lag_ms || !sim.a || !sim.items)
                return 1;
        /* A small latency histogram, as a real agent's interval carries. */
        hist_init(&h);
        for (uint64_t v = 0; v < 100; v++)
                hist_record(&h, 20000 + v * 300);
        if (wire_hist_from(&sim.clat, &h) < 0)
                return 1;

        sim.ctx = zmq_ctx_new();
        zmq_ctx_set(sim.ctx, ZMQ_MAX_SOCKETS, (int)sim.n + 64);
        sim.ctl = zmq_socket(sim.ctx, ZMQ_DEALER);
        zmq_setsockopt(sim.ctl, ZMQ_LINGER, &linger, sizeof(linger));
        if (!sim.ctl || zmq_connect(sim.ctl, sim.control) < 0) {
                fprintf(stderr, "sim-agents: control %s: %s\n", sim.control, zmq_strerror(errno));
                return 1;
        }
        sim.items[sim.n].socket = sim.ctl;
        sim.items[sim.n].events = ZMQ_POLLIN;
        sim.t_hello = clock_mono_ns();
        for (size_t i = 0; i < sim.n; i++) {
                if ((r = open_agent(&sim, i)) < 0) {
                        fprintf(stderr, "sim-agents: agent %zu: %s (raise ulimit -n?)\n", i,
                                strerror(-r));
                        return 1;
                }
                hello(&sim, &sim.a[i]);
        }

        bool submitted = false;
        int64_t next_sweep = 0;
        int64_t give_up = clock_mono_ns() + 120 * (int64_t)NSEC_PER_SEC;
        while (!sim.done) {
                int64_t now = clock_mono_ns();
                if (now > give_up) {
                        fprintf(stderr,
                                "sim-agents: gave up: %zu of %zu agents welcomed, %u of %u "
                                "intervals sent\n",
                                sim.welcomed, sim.n, sim.next_k, sim.n_k);
                        return 1;
                }
                if (!submitted && sim.welcomed == sim.n) {
                        sim.t_welcomed = now;
                        if (submit(&sim) < 0)
                                return 1;
                        submitted = true;
                        give_up = now + (int64_t)(sim.lead_ns + sim.runtime_ns) +
                                  120 * (int64_t)NSEC_PER_SEC;
                }
                /* Polling thousands of sockets costs milliseconds of the CPU the coordinator
                 * shares: the agents' sockets are swept every 20 ms until the start (Welcome,
                 * Prepare, Start), then every 500 ms (Stop, heartbeat replies); the control
                 * socket, whose arrival times are measured, is polled all the time. */
                bool sweep = now >= next_sweep;
                zmq_pollitem_t *items = sweep ? sim.items : &sim.items[sim.n];
                int n_items = sweep ? (int)sim.n + 1 : 1;
                if (zmq_poll(items, n_items, sweep ? 0 : 2) < 0 && errno != EINTR)
                        return 1;
                for (int i = 0; i < n_items; i++)
                        if (items[i].revents & ZMQ_POLLIN)
                                drain(&sim, items[i].socket,
                                      items[i].socket != sim.ctl ? &sim.a[i] : NULL);
                if (sweep)
                        next_sweep = now + (sim.started_sent ? 500 : 20) * (int64_t)NSEC_PER_MSEC;
                timers(&sim);
        }

        /* The Acks of the last messages follow the RunDone: a moment to collect them. */
        for (int64_t until = clock_mono_ns() + 300 * (int64_t)NSEC_PER_MSEC; clock_mono_ns() < until;) {
                if (zmq_poll(sim.items, (int)sim.n, 50) < 0 && errno != EINTR)
                        break;
                for (size_t i = 0; i < sim.n; i++)
                        if (sim.items[i].revents & ZMQ_POLLIN)
                                drain(&sim, sim.items[i].socket, &sim.a[i]);
        }
        size_t unacked = 0;
        for (size_t i = 0; i < sim.n; i++)
                unacked += sim.a[i].acked < sim.a[i].rseq;
        double cpu_s = (double)(sim.cpu1 - sim.cpu0) / (double)sysconf(_SC_CLK_TCK);
        double wall_s = (double)(sim.cpu_t1 - sim.cpu_t0) / 1e9;
        printf("agents=%zu interval_ms=%" PRIu64 " intervals=%zu/%u incomplete=%zu "
               "join_s=%.2f cpu_pct=%.1f rss_mib=%.1f hwm_mib=%.1f delay_p50_ms=%.2f "
               "delay_p99_ms=%.2f delay_max_ms=%.2f send_lag_p50_ms=%.2f send_lag_max_ms=%.2f "
               "done_after_s=%.2f errors=%u acks=%llu unacked=%zu\n",
               sim.n, (uint64_t)(sim.interval_ns / NSEC_PER_MSEC), sim.n_delay, sim.n_k,
               sim.incomplete, (double)(sim.t_welcomed - sim.t_hello) / 1e9,
               wall_s > 0 ? 100.0 * cpu_s / wall_s : -1.0, (double)sim.rss_kib / 1024.0,
               (double)sim.hwm_kib / 1024.0, pct(sim.delay_ms, sim.n_delay, 0.5),
               pct(sim.delay_ms, sim.n_delay, 0.99), pct(sim.delay_ms, sim.n_delay, 1.0),
               pct(sim.send_lag_ms, sim.n_lag, 0.5), pct(sim.send_lag_ms, sim.n_lag, 1.0),
               (double)(sim.t_done - sim.t_last_iv) / 1e9, sim.errors,
               (unsigned long long)sim.acks, unacked);
        for (size_t i = 0; i < sim.n; i++)
                zmq_close(sim.a[i].s);
        zmq_close(sim.ctl);
        zmq_ctx_term(sim.ctx);
        wire_hist_done(&sim.clat);
        free(sim.fin_order);
        free(sim.a);
        free(sim.items);
        free(sim.delay_ms);
        free(sim.send_lag_ms);
        return sim.n_delay == sim.n_k && !sim.errors ? 0 : 1;
}
