/* The coordinator daemon's configuration and its one poll loop around the registry and the run. */
#include "server.h"

#include <errno.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <systemd/sd-daemon.h>
#include <uuid/uuid.h>
#include <zmq.h>

#include "agent-list.h"
#include "clock.h"
#include "connguard.h"
#include "enroll-server.h"
#include "enroll.h"
#include "idbind.h"
#include "keys.h"
#include "log.h"
#include "metrics.h"
#include "ratelimit.h"
#include "registry.h"
#include "runs.h"
#include "sock.h"
#include "util.h"
#include "wire.h"
#include "zap.h"

typedef struct server {
        const coord_config_t *cfg;
        void *ctx, *agents_sock, *control_sock, *zap;
        keyring_t *agent_keys, *control_keys;
        registry_t *reg;
        runs_t *runs;
        metrics_t *metrics;
        run_out_t out;
        uint64_t control_seq;
        int64_t last_sync; /* mono: journals last synced for the Acks */
        int64_t sync_gap;  /* the next sync not before last_sync + this (sync_gap()) */
        int sigfd;
        bool quit;
        char agent_ep[256], control_ep[256];
        /* Security: who each key is, log floods, connections against descriptors. */
        idbind_t *bind;
        char bind_path[4096];
        ratelimit_t *rl;
        connguard_t *guard;
        connguard_budget_t budget;
        connguard_stats_t last_stats; /* at the last pressure report */
        /* Enrolment: agents holding a token get their key onto agents.d (enroll-server.c). */
        enroll_srv_t *enroll;
        char enroll_ep[256];
        int64_t next_pressure, next_flush;
        bool status_due;     /* STATUS= to be written (write_status()) */
        int64_t next_bind_save; /* mono: agent-id bindings saved not before */
        int64_t next_status; /* mono: not before */
} server_t;

/* Acks wait for the journals to be synced; syncs are batched this far apart. */
#define ACK_SYNC_NS (50 * (int64_t)NSEC_PER_MSEC)
#define SERVER_LOG_INTERVAL_NS (60 * (int64_t)NSEC_PER_SEC)
#define SERVER_LOG_BURST 5       /* lines per peer and interval about its bad input */
#define SERVER_LOG_PEERS 1024    /* peers told apart by the log rate limit */
#define SERVER_ZAP_BATCH 256     /* ZAP requests answered per loop turn */
#define SERVER_BIND_FILE "agent-keys"

static int64_t now_timeline(void)
{
        return clock_real_ns();
}

/* An Error to peer on socket s, now. */
static void send_error(void *s, const char *peer, uint64_t *seq, Iofleet__ErrorCode code,
                       const char *run_id, const char *msg)
{
        outbox_t ob = {0};
        error_push(&ob, peer, seq, code, run_id, msg);
        outbox_flush(&ob, s);
        outbox_done(&ob);
}

/* systemd's STATUS= line is due: it is written at the loop's turn, at most every
 * STATUS_EVERY_NS (counting the agents is a look at each: thousands joining must not each pay
 * for a count of all). */
#define STATUS_EVERY_NS (500 * (int64_t)NSEC_PER_MSEC)

static void update_status(server_t *srv)
{
        srv->status_due = true;
}

static void write_status(server_t *srv, int64_t now)
{
        size_t live = 0, busy = 0, n = runs_count(srv->runs);
        if (!srv->status_due || now < srv->next_status)
                return;
        srv->status_due = false;
        srv->next_status = now + STATUS_EVERY_NS;
        for (size_t i = 0; i < registry_count(srv->reg); i++) {
                agent_state_t st = registry_at(srv->reg, i)->state;
                live += st != AGENT_LOST && st != AGENT_GONE;
                busy += st == AGENT_BUSY;
        }
        if (n)
                sd_notifyf(0, "STATUS=%zu agents; %zu runs with %zu agents", live, n, busy);
        else
                sd_notifyf(0, "STATUS=%zu agents; idle", live);
}

/* Run messages address agents by id; they go to each agent's current connection. */
static void flush_agents(server_t *srv, outbox_t *ob)
{
        size_t failed;
        for (size_t i = 0; i < ob->n; i++) {
                outbox_item_t *it = &ob->items[i];
                coord_agent_t *a = registry_find(srv->reg, it->peer);
                snprintf(it->peer, sizeof(it->peer), "%s", a ? a->peer : "");
        }
        failed = outbox_flush(ob, srv->agents_sock);
        if (failed)
                log_debug("%zu messages to agents could not be sent (agents gone?)", failed);
}

static void flush(server_t *srv)
{
        flush_agents(srv, &srv->out.agents);
        outbox_flush(&srv->out.control, srv->control_sock);
}

/* The loop waits in fdatasync while the journals sync: on a busy disk (hundreds of ms a sync)
 * syncing every ACK_SYNC_NS would leave it little time for the agents' messages. The next sync
 * waits three times as long as the last took (at most ACK_SYNC_MAX_NS: the agents resend what
 * is not acknowledged within 5 s), so that syncing takes a quarter of the loop at most. */
#define ACK_SYNC_MAX_NS (1000 * (int64_t)NSEC_PER_MSEC)

static int64_t sync_gap(int64_t took)
{
        int64_t gap = 3 * took;
        return gap < ACK_SYNC_NS ? ACK_SYNC_NS : gap > ACK_SYNC_MAX_NS ? ACK_SYNC_MAX_NS : gap;
}

/* Acks say "kept": they go only once the journals holding what they acknowledge are synced,
 * in batches so that thousands of agents cost a few syncs a second (heartbeat answers carry
 * the rest: what is on disk at the last sync). While a run collects an interval (its end has
 * passed, not every agent's Interval is in: the burst), the Acks and the sync wait until it is
 * shown, at most ACK_SYNC_MAX_NS since the last sync: at 9 500 agents the burst's Acks would
 * take a third of the burst's CPU on the coordinator's host and the agents'. */
static void flush_acks(server_t *srv, bool now)
{
        int64_t t = clock_mono_ns();
        bool synced;
        if (!now && t - srv->last_sync < srv->sync_gap)
                return;
        if (!now && t - srv->last_sync < ACK_SYNC_MAX_NS &&
            runs_collecting(srv->runs, now_timeline()))
                return;
        if (!srv->out.acks.n && !runs_dirty(srv->runs))
                return;
        srv->last_sync = t;
        synced = runs_sync(srv->runs);
        srv->sync_gap = sync_gap(clock_mono_ns() - t);
        if (!synced) {
                /* Nothing is acknowledged that is not on disk: the agents keep it. */
                outbox_clear(&srv->out.acks);
                return;
        }
        flush_agents(srv, &srv->out.acks);
}

/* /metrics from every run in progress. */
static void update_metrics(server_t *srv)
{
        size_t n = runs_count(srv->runs);
        const coord_run_t *v[n + 1];
        for (size_t i = 0; i < n; i++)
                v[i] = runs_at(srv->runs, i);
        metrics_update(srv->metrics, srv->reg, v, n);
}

static void on_run_finished(void *user, const coord_run_t *run)
{
        /* Its last counts go into the cumulative /metrics counters before it is freed (it is
         * still among the runs). */
        update_metrics(user);
}

/* The degrade rules of the runs and how often each fired, for /metrics. */
static void publish_alerts(server_t *srv)
{
        metrics_alert_t al[64];
        size_t n = 0;
        if (!srv->metrics)
                return;
        for (size_t r = 0; r < runs_count(srv->runs); r++) {
                const degrade_t *d = &runs_at(srv->runs, r)->degrade;
                for (size_t i = 0; i < d->n_rules && n < ELEMENTSOF(al); i++, n++) {
                        snprintf(al[n].rule, sizeof(al[n].rule), "%s", d->rules[i]->text);
                        al[n].count = d->fired[i];
                }
        }
        if (n)
                metrics_set_alerts(srv->metrics, al, n);
}

static void after_run_event(server_t *srv)
{
        size_t before = runs_count(srv->runs);
        publish_alerts(srv);
        runs_settle(srv->runs, now_timeline());
        if (runs_count(srv->runs) != before) {
                /* A run ended: its last Acks go now, before anything that follows (the next
                 * run's Prepare) reaches the same agents. */
                flush_acks(srv, true);
                update_status(srv);
        }
        flush(srv);
}

static void on_lost(coord_agent_t *a, void *userdata)
{
        server_t *srv = userdata;
        log_warning("agent %s (%s) lost: nothing heard for %llu heartbeats", a->name, a->id,
                    (unsigned long long)srv->cfg->lost_after);
        runs_agent_lost(srv->runs, a, now_timeline());
        update_status(srv);
}

static void welcome(server_t *srv, coord_agent_t *a)
{
        envelope_t e = IOFLEET__ENVELOPE__INIT;
        Iofleet__Welcome w = IOFLEET__WELCOME__INIT;
        w.coordinator_version = IOFLEET_VERSION;
        w.heartbeat_ns = srv->cfg->heartbeat_ns;
        w.lost_after = (uint32_t)srv->cfg->lost_after;
        w.name = a->name;
        e.seq = ++a->seq_out;
        e.body_case = IOFLEET__ENVELOPE__BODY_WELCOME;
        e.welcome = &w;
        sock_send_env(srv->agents_sock, a->peer, &e);
}

/* Who a message came from, for logs and their rate limit: its key when it has one. */
static void agent_peer(const sock_msg_t *m, char *buf, size_t len)
{
        const char *user = sock_msg_user(m);
        if (user[0])
                snprintf(buf, len, "agent key '%s'", user);
        else
                snprintf(buf, len, "agent connection %s", m->peer);
}

/* True when a line about peer's bad input may be logged (at most SERVER_LOG_BURST a minute);
 * note then gets what to append about the lines held back before it. */
static bool log_allowed(server_t *srv, const char *peer, char *note, size_t notelen)
{
        uint64_t held = 0;
        if (!ratelimit_allow(srv->rl, peer, clock_mono_ns(), &held))
                return false;
        ratelimit_held_note(held, note, notelen);
        return true;
}

static void log_suppressed(const char *peer, uint64_t n, void *userdata)
{
        log_warning("%llu more log lines about %s suppressed in the last minute",
                    (unsigned long long)n, peer);
}

/* Whether a connection's key (name and public key, from its metadata) is still on the
 * allow-list: a SIGHUP may have removed or replaced it since the connection authenticated. */
static bool key_still_allowed(server_t *srv, const char *name, const char *z85)
{
        uint8_t now[32], then[32];
        if (srv->cfg->insecure || strempty(name))
                return true;
        if (!keyring_lookup_name(srv->agent_keys, name, now))
                return false;
        return strempty(z85) || (strlen(z85) == KEY_Z85_LEN && zmq_z85_decode(then, z85) &&
                                 memcmp(now, then, 32) == 0);
}

/* Bindings changed by Hellos are saved at most every BIND_SAVE_NS: one file, synced, for
 * however many agents joined meanwhile. */
#define BIND_SAVE_NS (1000 * (int64_t)NSEC_PER_MSEC)

static void save_bindings(server_t *srv);

static void save_bindings_due(server_t *srv, int64_t now)
{
        if (now < srv->next_bind_save)
                return;
        srv->next_bind_save = now + BIND_SAVE_NS;
        save_bindings(srv);
}

static void save_bindings(server_t *srv)
{
        char err[512];
        if (!srv->bind || !idbind_dirty(srv->bind))
                return;
        if (idbind_save(srv->bind, srv->bind_path, err, sizeof(err)) < 0)
                log_error("cannot save which agent id each key stands for: %s (kept in memory; "
                          "a restart forgets changes since the last save)",
                          err);
}

/* Hello: the agent joins under its key's name, or is told why not (and the log says so, a few
 * times a minute per key at most). An agent back with its run hears where to resend from. */
static void on_hello(server_t *srv, const sock_msg_t *m, const envelope_t *e)
{
        const Iofleet__Hello *h = e->hello;
        Iofleet__ErrorCode code = IOFLEET__ERROR_CODE__ERROR_REFUSED;
        const char *user = sock_msg_user(m), *key = sock_msg_key(m);
        const char *was = srv->bind && user[0] ? idbind_id_of(srv->bind, user) : NULL;
        char err[512], note[96], prev[WIRE_MAX_ID + 1], who[128];
        coord_agent_t *a = NULL;
        int r;

        agent_peer(m, who, sizeof(who));
        snprintf(prev, sizeof(prev), "%s", was ? was : "");
        char why[256];
        if (!key_still_allowed(srv, user, key)) {
                code = IOFLEET__ERROR_CODE__ERROR_KEY_NOT_ALLOWED;
                r = errorf(err, sizeof(err), -EPERM,
                           "key '%s' is no longer in the coordinator's allow-list", user);
        } else if (!srv->cfg->insecure && user[0] &&
                   !enroll_roles_allowed(keyring_roles(srv->agent_keys, user), h->roles, h->n_roles,
                                         why, sizeof(why)))
                /* An allow-list entry may limit its agent's roles (an enrolment token's). */
                r = errorf(err, sizeof(err), -EPERM, "key '%s': %s; its agents.d entry says so",
                           user, why);
        else
                r = registry_hello(srv->reg, m->peer, h, user, clock_mono_ns(), &a, err,
                                   sizeof(err));
        if (r < 0) {
                if (log_allowed(srv, who, note, sizeof(note)))
                        log_warning("refused agent '%s' on host %s (%s, id %s): %s%s", h->name,
                                    h->hostname, who, h->agent_id, err, note);
                send_error(srv->agents_sock, m->peer, NULL, code, NULL, err);
                return;
        }
        snprintf(a->key_z85, sizeof(a->key_z85), "%s", key);
        /* The binding is saved at the loop's turn (save_bindings_due()): a fleet joining at
         * once would rewrite and sync the whole file once per agent. */
        if (log_allowed(srv, who, note, sizeof(note))) {
                if (prev[0] && !streq(prev, a->id))
                        log_notice("key '%s' now stands for agent id %s instead of %s (its agent's "
                                   "state directory was reset?)",
                                   a->key_name, a->id, prev);
                if (!streq(a->name, h->name))
                        log_notice("agent on host %s calls itself '%s': it goes by '%s', the "
                                   "name of its key in agent_keys_dir",
                                   a->hostname, h->name, a->name);
                log_info("agent %s joined: host %s, id %s, key %s, version %s%s%s%s", a->name,
                         a->hostname, a->id, a->key_name[0] ? a->key_name : "(insecure)",
                         a->version, strempty(h->run_id) ? "" : ", holding run ",
                         strempty(h->run_id) ? "" : h->run_id, note);
        }
        a->seq_in = e->seq;
        welcome(srv, a);
        /* After the Welcome: an agent back with its run hears where to resend from. */
        runs_agent_hello(srv->runs, a, h, now_timeline());
        update_status(srv);
}

static uint64_t ack_of_runs(void *user, coord_agent_t *a, const char **run_id)
{
        return runs_heartbeat(user, a, run_id);
}

/* Heartbeats and clock probes are answered by the registry into the agents' outbox, sent at
 * once: the probe's t3 is stamped now, and nothing slow may come between it and the send. */
static void on_beat(server_t *srv, coord_agent_t *a, const envelope_t *e, int64_t t_recv)
{
        registry_pace_t pace = {srv->cfg->heartbeat_ns, srv->cfg->lost_after};
        registry_now_t now = {clock_mono_ns(), t_recv, now_timeline()};
        if (e->body_case == IOFLEET__ENVELOPE__BODY_HEARTBEAT)
                registry_heartbeat(a, e->heartbeat, &pace, &now, ack_of_runs, srv->runs,
                                   &srv->out.agents);
        else
                registry_time_probe(a, e->time_probe, &now, &srv->out.agents);
        flush_agents(srv, &srv->out.agents);
}

/* An agent's message decoded into *ret, or refused (another protocol version, a bad message)
 * with an answer and a log line, a few a minute per peer. 0 or -errno. */
static int decode_agent_message(server_t *srv, const sock_msg_t *m, envelope_t **ret)
{
        envelope_t *e = NULL;
        char err[512], note[96], who[128];
        int r = wire_decode(m->data, m->len, WIRE_MAX_AGENT_MSG, &e, err, sizeof(err));
        if (r < 0)
                agent_peer(m, who, sizeof(who));
        if (r == -EPROTO) {
                if (log_allowed(srv, who, note, sizeof(note))) {
                        log_error("refused %s: %s%s", who, err, note);
                        send_error(srv->agents_sock, m->peer, NULL,
                                   IOFLEET__ERROR_CODE__ERROR_PROTOCOL_VERSION, NULL, err);
                }
                wire_free(&e);
                return r;
        }
        if (r < 0) {
                /* A flood of them gets a few answers and log lines a minute, not one each. */
                if (log_allowed(srv, who, note, sizeof(note))) {
                        log_warning("bad message from %s: %s%s", who, err, note);
                        send_error(srv->agents_sock, m->peer, NULL,
                                   IOFLEET__ERROR_CODE__ERROR_BAD_MESSAGE, NULL, err);
                }
                return r;
        }
        *ret = e;
        return 0;
}

static void on_agent_message(server_t *srv, sock_msg_t *m, int64_t t_recv)
{
        envelope_t *e = NULL;
        coord_agent_t *a;
        char who[128], note[96];

        if (decode_agent_message(srv, m, &e) < 0)
                return;
        if (e->body_case == IOFLEET__ENVELOPE__BODY_HELLO) {
                on_hello(srv, m, e);
                wire_free(&e);
                after_run_event(srv);
                return;
        }
        a = registry_find_peer(srv->reg, m->peer);
        if (!a || a->state == AGENT_LOST || a->state == AGENT_GONE) {
                log_debug("message %s from unregistered agent %s: asking it to say hello",
                          wire_body_name(e), m->peer);
                send_error(srv->agents_sock, m->peer, NULL,
                           IOFLEET__ERROR_CODE__ERROR_NOT_REGISTERED, NULL,
                           "not registered: send hello");
                wire_free(&e);
                return;
        }
        a->last_seen_ns = clock_mono_ns();
        if (e->seq != a->seq_in + 1)
                log_debug("agent %s: sequence %llu after %llu", a->name, (unsigned long long)e->seq,
                          (unsigned long long)a->seq_in);
        a->seq_in = e->seq;

        switch (e->body_case) {
        case IOFLEET__ENVELOPE__BODY_HEARTBEAT:
        case IOFLEET__ENVELOPE__BODY_TIME_PROBE:
                on_beat(srv, a, e, t_recv);
                break;
        case IOFLEET__ENVELOPE__BODY_GOODBYE:
                /* Stopping cleanly: gone now, not lost after a lease. */
                log_info("agent %s said goodbye: %s", a->name,
                         strempty(e->goodbye->reason) ? "stopping" : e->goodbye->reason);
                a->state = AGENT_GONE;
                runs_agent_lost(srv->runs, a, now_timeline());
                update_status(srv);
                break;
        case IOFLEET__ENVELOPE__BODY_ERROR:
                if (runs_agent_message(srv->runs, a, &e, now_timeline()) >= 0)
                        break;
                agent_peer(m, who, sizeof(who));
                if (log_allowed(srv, who, note, sizeof(note)))
                        log_warning("agent %s reports: %s%s", a->name, e->error->message, note);
                break;
        case IOFLEET__ENVELOPE__BODY_LAYOUT_PROGRESS:
                /* Best effort: one for a run that is over or started is simply late. */
                if (runs_layout_progress(srv->runs, a, e->layout_progress, now_timeline()) < 0)
                        log_debug("agent %s: layout progress for a run not preparing, ignored",
                                  a->name);
                break;
        default:
                /* the other run messages (wire_is_run_message(): Prepared, Interval, ...) */
                if (wire_is_run_message(e)) {
                        if (runs_agent_message(srv->runs, a, &e, now_timeline()) < 0)
                                log_debug("agent %s: %s for a run that is not current, ignored",
                                          a->name, wire_body_name(e));
                        break;
                }
                agent_peer(m, who, sizeof(who));
                if (!log_allowed(srv, who, note, sizeof(note)))
                        break;
                log_warning("agent %s sent %s, which agents may not send%s", a->name,
                            wire_body_name(e), note);
                send_error(srv->agents_sock, m->peer, &a->seq_out,
                           IOFLEET__ERROR_CODE__ERROR_BAD_MESSAGE, NULL,
                           "message type not allowed from an agent");
        }
        wire_free(&e);
        after_run_event(srv);
}

static const char *run_of_agent(void *user, const char *id)
{
        coord_run_t *run = runs_of_agent(user, id);
        return run ? run->id : "";
}

static void on_control_message(server_t *srv, sock_msg_t *m)
{
        envelope_t *e = NULL;
        char err[512];
        int r = wire_decode(m->data, m->len, WIRE_MAX_CONTROL_MSG, &e, err, sizeof(err));

        if (r < 0) {
                char who[128], note[96];
                const char *user = sock_msg_user(m);
                if (user[0])
                        snprintf(who, sizeof(who), "control key '%s'", user);
                else
                        snprintf(who, sizeof(who), "control connection %s", m->peer);
                if (log_allowed(srv, who, note, sizeof(note))) {
                        log_warning("bad control message from %s: %s%s", who, err, note);
                        send_error(srv->control_sock, m->peer, &srv->control_seq,
                                   r == -EPROTO ? IOFLEET__ERROR_CODE__ERROR_PROTOCOL_VERSION
                                                : IOFLEET__ERROR_CODE__ERROR_BAD_MESSAGE,
                                   NULL, err);
                }
                wire_free(&e);
                return;
        }
        switch (e->body_case) {
        case IOFLEET__ENVELOPE__BODY_LIST_AGENTS: {
                size_t n = registry_count(srv->reg);
                coord_agent_t **all = calloc(n ? n : 1, sizeof(*all));
                if (!all)
                        break;
                for (size_t i = 0; i < n; i++)
                        all[i] = registry_at(srv->reg, i);
                agent_list_push(&srv->out.control, m->peer, &srv->control_seq, all, n, NULL,
                                run_of_agent, srv->runs);
                free(all);
                break;
        }
        case IOFLEET__ENVELOPE__BODY_LIST_RUNS:
                runs_list(srv->runs, m->peer);
                break;
        case IOFLEET__ENVELOPE__BODY_SUBMIT_RUN:
                runs_submit(srv->runs, m->peer, &e, now_timeline());
                update_status(srv);
                break;
        case IOFLEET__ENVELOPE__BODY_WATCH_RUN:
                runs_watch(srv->runs, m->peer, e->watch_run);
                break;
        case IOFLEET__ENVELOPE__BODY_CANCEL_RUN:
                runs_cancel(srv->runs, m->peer, e->cancel_run, now_timeline());
                break;
        default: {
                char who[128];
                const char *user = sock_msg_user(m);
                snprintf(who, sizeof(who), "%s%s", user[0] ? "control key " : "the control socket",
                         user);
                if (srv->enroll && enroll_srv_on_control(srv->enroll, srv->control_sock, m->peer,
                                                         &srv->control_seq, e, who))
                        break;
                send_error(srv->control_sock, m->peer, &srv->control_seq,
                           IOFLEET__ERROR_CODE__ERROR_BAD_MESSAGE, NULL,
                           "message type not allowed on the control socket");
        }
        }
        wire_free(&e);
        after_run_event(srv);
}

static int bind_socket(server_t *srv, void *s, const char *ep, const char *domain,
                       const keypair_t *kp, char *bound, size_t bound_len)
{
        size_t len = bound_len;
        bool agents = streq(domain, ZAP_DOMAIN_AGENTS);
        int64_t maxmsg = agents ? WIRE_MAX_AGENT_MSG : WIRE_MAX_CONTROL_MSG;
        int one = 1, linger = 0, hwm = 100000, r;
        int handshake_ms = (int)(srv->cfg->handshake_timeout_ns / NSEC_PER_MSEC);
        int backlog = (int)srv->budget.backlog;

        /* A peer that never completes CURVE holds a descriptor until the handshake times out;
         * connections already queued when accepting pauses still come in, up to the backlog
         * (thousands of agents connect at once when a fleet (re)starts: with ZeroMQ's backlog of
         * 100 most of their SYNs would be dropped and retried 1, 3, 7 s later). */
        zmq_setsockopt(s, ZMQ_HANDSHAKE_IVL, &handshake_ms, sizeof(handshake_ms));
        if (agents && backlog)
                zmq_setsockopt(s, ZMQ_BACKLOG, &backlog, sizeof(backlog));
        zmq_setsockopt(s, ZMQ_ROUTER_MANDATORY, &one, sizeof(one));
        zmq_setsockopt(s, ZMQ_LINGER, &linger, sizeof(linger));
        zmq_setsockopt(s, ZMQ_SNDHWM, &hwm, sizeof(hwm));
        zmq_setsockopt(s, ZMQ_RCVHWM, &hwm, sizeof(hwm));
        zmq_setsockopt(s, ZMQ_MAXMSGSIZE, &maxmsg, sizeof(maxmsg));
        if (strncmp(ep, "tcp://", 6) == 0) {
                if (srv->cfg->insecure) {
                        if (!sock_endpoint_is_local(ep))
                                return log_error_errno(
                                    -EPERM,
                                    "insecure=true is only allowed on loopback and "
                                    "ipc:// endpoints, not %s: make keys with "
                                    "'iofleet keygen' instead",
                                    ep);
                } else if ((r = sock_curve_server(s, kp, domain)) < 0)
                        return log_error_errno(r, "%s: CURVE setup failed: %m", ep);
        } else if (strncmp(ep, "ipc://", 6) == 0) {
                char dir[4096], *slash;
                snprintf(dir, sizeof(dir), "%s", ep + 6);
                slash = strrchr(dir, '/');
                if (slash && slash != dir) {
                        *slash = 0;
                        mkdir(dir, 0755);
                }
        }
        if (zmq_bind(s, ep) < 0)
                return log_error_errno(-errno, "cannot listen on %s: %m", ep);
        zmq_getsockopt(s, ZMQ_LAST_ENDPOINT, bound, &len);
        if (strncmp(bound, "ipc://", 6) == 0)
                /* The control socket is the CLI's door: owner and group only. */
                chmod(bound + 6, 0660);
        return 0;
}

/* Which agent id each key stands for survives restarts in the state directory. */
static int open_bindings(server_t *srv)
{
        char err[1024];
        int r;

        if ((r = mkdir_p(srv->cfg->state_dir, 0750)) < 0)
                return log_error_errno(r,
                                       "state_dir %s: %m (set state_dir= to a directory this user "
                                       "may write)",
                                       srv->cfg->state_dir);
        snprintf(srv->bind_path, sizeof(srv->bind_path), "%s/%s", srv->cfg->state_dir,
                 SERVER_BIND_FILE);
        if ((r = idbind_new(&srv->bind)) < 0)
                return r;
        if ((r = idbind_load(srv->bind, srv->bind_path, err, sizeof(err))) < 0)
                return log_error_errno(r, "%s", err);
        registry_set_bindings(srv->reg, srv->bind);
        log_debug("%zu agent keys bound to agent ids in %s", idbind_count(srv->bind),
                  srv->bind_path);
        return 0;
}

/* The descriptor limit as high as it may go, and shared out so that a flood of connections
 * never takes the ones the coordinator needs for its files, its CLI and /metrics. */
static void plan_descriptors(server_t *srv)
{
        unsigned nofile = 1024;
        int in_use, r = connguard_raise_nofile(&nofile);

        if (r < 0)
                log_warning_errno(r, "cannot raise the open files limit: %m");
        in_use = connguard_fds_in_use();
        /* libmicrohttpd's own descriptors are not open yet; /proc may be hidden. */
        connguard_budget(nofile, in_use > 0 ? (unsigned)in_use + 8 : 64, &srv->budget);
        log_info("file descriptors: limit %u; up to %u agent connections (accepting pauses "
                 "beyond), %u CLI, %u /metrics, %u kept for files",
                 nofile, srv->budget.agents_max, srv->budget.control_max, srv->budget.metrics_max,
                 srv->budget.reserve);
        if (nofile < 1024)
                log_warning("the open files limit is %u: raise LimitNOFILE= (or ulimit -n) for "
                            "more than %u agents",
                            nofile, srv->budget.agents_max);
}

static void reload_keys(server_t *srv, const char *why);

/* An enrolment changed agents.d: re-read it at once, as on SIGHUP. */
static void enroll_changed(void *userdata)
{
        reload_keys(userdata, "enrolment");
}

static int setup(server_t *srv)
{
        keypair_t kp = {};
        char err[1024];
        sigset_t mask;
        int r;

        if (srv->cfg->insecure)
                log_warning("insecure=true: CURVE is off, any process that can reach the "
                            "endpoints can control this coordinator and its agents");
        else {
                if ((r = keys_load(srv->cfg->key, true, &kp, err, sizeof(err))) < 0)
                        return log_error_errno(r,
                                               "coordinator key: %s (make one with 'iofleet "
                                               "keygen coordinator')",
                                               err);
                if ((r = keyring_load_dir(srv->cfg->agent_keys_dir, &srv->agent_keys, err,
                                          sizeof(err))) < 0)
                        return log_error_errno(r, "agent allow-list: %s", err);
                if ((r = keyring_load_dir(srv->cfg->control_keys_dir, &srv->control_keys, err,
                                          sizeof(err))) < 0)
                        return log_error_errno(r, "control allow-list: %s", err);
                log_info("allow-lists: %zu agent keys from %s, %zu control keys from %s",
                         keyring_size(srv->agent_keys), srv->cfg->agent_keys_dir,
                         keyring_size(srv->control_keys), srv->cfg->control_keys_dir);
                if (keyring_size(srv->agent_keys) == 0)
                        log_warning("no agent keys in %s: no agent can join until one is added "
                                    "(then send SIGHUP)",
                                    srv->cfg->agent_keys_dir);
        }
        if ((r = registry_new(&srv->reg)) < 0)
                return r;
        {
                runs_ctx_t rc = {.cfg = srv->cfg,
                                 .reg = srv->reg,
                                 .control_seq = &srv->control_seq,
                                 .out = &srv->out,
                                 .finished = on_run_finished,
                                 .user = srv};
                if ((r = runs_new(&rc, &srv->runs)) < 0)
                        return r;
        }
        if (!srv->cfg->insecure && (r = open_bindings(srv)) < 0)
                return r;
        if ((r = ratelimit_new(SERVER_LOG_INTERVAL_NS, SERVER_LOG_BURST, SERVER_LOG_PEERS,
                               &srv->rl)) < 0)
                return r;
        srv->ctx = zmq_ctx_new();
        if (!srv->ctx)
                return -errno;
        if (!srv->cfg->insecure && (r = zap_open(srv->ctx, &srv->zap)) < 0)
                return log_error_errno(r, "ZAP handler: %m");
        srv->agents_sock = zmq_socket(srv->ctx, ZMQ_ROUTER);
        srv->control_sock = zmq_socket(srv->ctx, ZMQ_ROUTER);
        if (!srv->agents_sock || !srv->control_sock)
                return -errno;
        plan_descriptors(srv);
        if ((r = enroll_srv_new(srv->ctx, srv->cfg, &kp, srv->rl, enroll_changed, srv,
                                &srv->enroll)) < 0)
                return r;
        /* The monitors must be in place before the listeners open. */
        if ((r = connguard_new(srv->ctx, srv->agents_sock, srv->control_sock,
                               enroll_srv_socket(srv->enroll), &srv->budget, &srv->guard)) < 0)
                return log_error_errno(r, "socket monitors: %m");
        if ((r = bind_socket(srv, srv->agents_sock, srv->cfg->agent_endpoint, ZAP_DOMAIN_AGENTS,
                             &kp, srv->agent_ep, sizeof(srv->agent_ep))) < 0 ||
            (r = bind_socket(srv, srv->control_sock, srv->cfg->control_endpoint, ZAP_DOMAIN_CONTROL,
                             &kp, srv->control_ep, sizeof(srv->control_ep))) < 0 ||
            (r = enroll_srv_bind(srv->enroll, srv->enroll_ep, sizeof(srv->enroll_ep))) < 0)
                return r;
        memset(&kp, 0, sizeof(kp));
        if ((r = connguard_start(srv->guard)) < 0)
                return log_error_errno(r, "connection guard thread: %m");

        sigemptyset(&mask);
        sigaddset(&mask, SIGTERM);
        sigaddset(&mask, SIGINT);
        sigaddset(&mask, SIGHUP);
        sigprocmask(SIG_BLOCK, &mask, NULL);
        srv->sigfd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
        if (srv->sigfd < 0)
                return -errno;
        signal(SIGPIPE, SIG_IGN);
        return 0;
}

static bool agent_key_allowed(const coord_agent_t *a, void *userdata)
{
        return key_still_allowed(userdata, a->key_name, a->key_z85);
}

static bool key_name_allowed(const char *key, void *userdata)
{
        server_t *srv = userdata;
        return keyring_lookup_name(srv->agent_keys, key, NULL);
}

static void agent_dropped(coord_agent_t *a, void *userdata)
{
        server_t *srv = userdata;
        char msg[256];

        if (a->state == AGENT_LOST || a->state == AGENT_GONE) {
                log_info("allow-list: %s agent %s (id %s) forgotten: key '%s' left the allow-list",
                         a->state == AGENT_LOST ? "lost" : "gone", a->name, a->id, a->key_name);
                return;
        }
        log_warning("allow-list: agent %s (id %s) dropped: key '%s' left or changed in the allow-list",
                    a->name, a->id, a->key_name);
        snprintf(msg, sizeof(msg), "key '%s' is no longer in the coordinator's allow-list",
                 a->key_name);
        /* The agent reconnects on being told, and its new handshake is refused; messages on
         * its old connection get "not registered" and a hello on it is refused. Its run counts
         * it lost (it is about to be forgotten). */
        send_error(srv->agents_sock, a->peer, &a->seq_out,
                   IOFLEET__ERROR_CODE__ERROR_KEY_NOT_ALLOWED, NULL, msg);
        runs_agent_lost(srv->runs, a, now_timeline());
}

/* After the allow-list changed: sessions of keys it no longer holds (or holds with another public
 * key) end, lost agents of removed keys are forgotten, and so are the removed keys' bindings. */
static void revoke_keys(server_t *srv)
{
        registry_revoke(srv->reg, agent_key_allowed, agent_dropped, srv);
        if (srv->bind) {
                idbind_retain(srv->bind, key_name_allowed, srv);
                save_bindings(srv);
        }
        update_status(srv);
        after_run_event(srv);
}

/* Re-reads both allow-lists (why: "SIGHUP", "enrolment", for the log). */
static void reload_keys(server_t *srv, const char *why)
{
        keyring_t *a = NULL, *c = NULL;
        char err[1024];
        if (srv->cfg->insecure)
                return;
        if (keyring_load_dir(srv->cfg->agent_keys_dir, &a, err, sizeof(err)) < 0 ||
            keyring_load_dir(srv->cfg->control_keys_dir, &c, err, sizeof(err)) < 0) {
                log_error("%s: allow-lists not reloaded, keeping the old ones: %s", why, err);
                keyring_free(&a);
                return;
        }
        keyring_free(&srv->agent_keys);
        keyring_free(&srv->control_keys);
        srv->agent_keys = a;
        srv->control_keys = c;
        log_info("%s: allow-lists reloaded: %zu agent keys, %zu control keys", why,
                 keyring_size(a), keyring_size(c));
        revoke_keys(srv);
}

static void on_signal(server_t *srv)
{
        struct signalfd_siginfo si;
        while (read(srv->sigfd, &si, sizeof(si)) == sizeof(si)) {
                if (si.ssi_signo == SIGHUP)
                        reload_keys(srv, "SIGHUP");
                else {
                        log_info("signal %d: stopping", (int)si.ssi_signo);
                        srv->quit = true;
                }
        }
}

/* A flood of CLI connections on an ipc control socket: re-binding closes them all (the CLI
 * reconnects by itself). */
static void rebind_control(server_t *srv)
{
        if (zmq_unbind(srv->control_sock, srv->control_ep) < 0 ||
            zmq_bind(srv->control_sock, srv->control_ep) < 0) {
                log_error("control endpoint %s: cannot re-bind: %m", srv->control_ep);
                return;
        }
        if (strncmp(srv->control_ep, "ipc://", 6) == 0)
                chmod(srv->control_ep + 6, 0660);
        connguard_control_rebound(srv->guard);
}

/* Once a second: summaries of suppressed log lines, and while connections press on the
 * descriptor limit, one warning a minute with the counts. */
static void watch_pressure(server_t *srv, int64_t now)
{
        connguard_stats_t st, *o = &srv->last_stats;

        if (connguard_control_full(srv->guard))
                rebind_control(srv);
        if (now < srv->next_flush)
                return;
        srv->next_flush = now + (int64_t)NSEC_PER_SEC;
        ratelimit_flush(srv->rl, now, log_suppressed, NULL);
        if (now < srv->next_pressure)
                return;
        connguard_stats(srv->guard, &st);
        if (st.paused || st.control_paused || st.pauses != o->pauses ||
            st.control_rebinds != o->control_rebinds || st.accept_failed != o->accept_failed) {
                log_warning("connections under pressure: %u agent connections open (accepting "
                            "%s at %u, file descriptor limit %u), %u CLI connections; in the last "
                            "minute %llu accepted, %llu completed the CURVE handshake, %llu "
                            "failed or timed out, %llu refused by the allow-list, accepting "
                            "paused %llu times, %llu accept errors, control endpoint re-bound "
                            "%llu times",
                            st.agents_open, st.paused ? "paused" : "pauses",
                            srv->budget.agents_max, srv->budget.nofile, st.control_open,
                            (unsigned long long)(st.accepted - o->accepted),
                            (unsigned long long)(st.handshakes - o->handshakes),
                            (unsigned long long)(st.handshake_failed - o->handshake_failed),
                            (unsigned long long)(st.auth_failed - o->auth_failed),
                            (unsigned long long)(st.pauses - o->pauses),
                            (unsigned long long)(st.accept_failed - o->accept_failed),
                            (unsigned long long)(st.control_rebinds - o->control_rebinds));
                srv->next_pressure = now + SERVER_LOG_INTERVAL_NS;
                *o = st;
        }
}

static void teardown(server_t *srv)
{
        /* Runs with a journal stay for the next start to take up; the others end now. */
        for (size_t i = 0; srv->runs && i < runs_count(srv->runs); i++)
                if (!runs_journalled(srv->runs, i))
                        run_cancel(runs_at(srv->runs, i), IOFLEET__ERROR_CODE__ERROR_CANCELLED,
                                   "the coordinator is stopping", now_timeline(), &srv->out);
        if (srv->runs) {
                runs_wait(srv->runs);
                flush_acks(srv, true);
                flush(srv);
        }
        save_bindings(srv);
        runs_free(&srv->runs);
        outbox_done(&srv->out.agents);
        outbox_done(&srv->out.control);
        outbox_done(&srv->out.acks);
        /* The monitors are read until the sockets are closed: libzmq blocks on an unread one. */
        connguard_quiesce(srv->guard);
        if (srv->agents_sock)
                zmq_close(srv->agents_sock);
        if (srv->control_sock)
                zmq_close(srv->control_sock);
        enroll_srv_free(&srv->enroll);
        if (srv->zap)
                zmq_close(srv->zap);
        connguard_free(&srv->guard);
        if (srv->ctx)
                zmq_ctx_term(srv->ctx);
        if (strncmp(srv->control_ep, "ipc://", 6) == 0)
                unlink(srv->control_ep + 6);
        metrics_free(&srv->metrics);
        registry_free(&srv->reg);
        idbind_free(&srv->bind);
        ratelimit_free(&srv->rl);
        keyring_free(&srv->agent_keys);
        keyring_free(&srv->control_keys);
        if (srv->sigfd >= 0)
                close(srv->sigfd);
}

int server_run(const coord_config_t *cfg)
{
        server_t srv = {.cfg = cfg, .sigfd = -1, .sync_gap = ACK_SYNC_NS};
        uint64_t watchdog_usec = 0;
        int64_t next_watchdog = 0, next_expire = 0;
        int r;

        r = setup(&srv);
        if (r < 0) {
                teardown(&srv);
                return r;
        }
        /* After setup(): the HTTP thread inherits the blocked signals the signalfd reads. */
        r = metrics_new(cfg->metrics_listen, srv.budget.metrics_max, &srv.metrics);
        if (r == -EINVAL) {
                teardown(&srv);
                return r;
        }
        if (r < 0)
                log_warning("metrics_listen=%s: cannot listen (%s): /metrics is off",
                            cfg->metrics_listen, strerror(-r));
        else if (srv.metrics) {
                if (metrics_set_results_dir(srv.metrics, cfg->results_dir) < 0)
                        log_warning("metrics: out of memory: the web page lists no past run");
                log_info("metrics: GET /metrics on %s, port %u (the live page at /)",
                         cfg->metrics_listen, (unsigned)metrics_port(srv.metrics));
        }
        r = 0; /* a coordinator without /metrics still coordinates, and exits 0 */
        if (runs_recover(srv.runs, now_timeline()))
                update_status(&srv);
        sd_watchdog_enabled(0, &watchdog_usec);
        log_info("coordinator %s ready: agents on %s, control on %s, enrolment %s%s%s",
                 IOFLEET_VERSION, srv.agent_ep, srv.control_ep,
                 srv.enroll_ep[0] ? "on " : "off", srv.enroll_ep,
                 cfg->insecure ? " (INSECURE)" : "");
        sd_notifyf(0,
                   "READY=1\nSTATUS=0 agents; idle\nIOFLEET_AGENT_ENDPOINT=%s\n"
                   "IOFLEET_CONTROL_ENDPOINT=%s\nIOFLEET_ENROLL_ENDPOINT=%s",
                   srv.agent_ep, srv.control_ep, srv.enroll_ep);

        while (!srv.quit) {
                zmq_pollitem_t items[7] = {
                    {srv.agents_sock, 0, ZMQ_POLLIN, 0},
                    {srv.control_sock, 0, ZMQ_POLLIN, 0},
                    {NULL, srv.sigfd, ZMQ_POLLIN, 0},
                };
                int nitems = 3, zap_item = -1, enroll_item = -1;
                if (srv.zap) {
                        zap_item = nitems;
                        items[nitems++] = (zmq_pollitem_t){srv.zap, 0, ZMQ_POLLIN, 0};
                }
                if (srv.zap && enroll_srv_socket(srv.enroll)) {
                        enroll_item = nitems;
                        items[nitems++] =
                            (zmq_pollitem_t){enroll_srv_socket(srv.enroll), 0, ZMQ_POLLIN, 0};
                }
                /* A result written off the loop wakes it: the run is finished. */
                if (runs_fd(srv.runs) >= 0)
                        items[nitems++] = (zmq_pollitem_t){NULL, runs_fd(srv.runs), ZMQ_POLLIN, 0};
                /* A scrape waiting for a rendering wakes the loop; update_metrics() renders. */
                if (srv.metrics)
                        items[nitems++] =
                            (zmq_pollitem_t){NULL, metrics_fd(srv.metrics), ZMQ_POLLIN, 0};
                int64_t now = clock_mono_ns(), timeout_ms = 100;
                int64_t d = runs_next_deadline(srv.runs) - now_timeline();
                if (d < timeout_ms * (int64_t)NSEC_PER_MSEC)
                        timeout_ms = d > 0 ? d / (int64_t)NSEC_PER_MSEC + 1 : 0;
                if (srv.out.acks.n && timeout_ms > srv.sync_gap / (int64_t)NSEC_PER_MSEC)
                        timeout_ms = srv.sync_gap / (int64_t)NSEC_PER_MSEC;
                if (zmq_poll(items, nitems, timeout_ms) < 0 && errno != EINTR) {
                        r = log_error_errno(-errno, "poll: %m");
                        break;
                }
                /* Handshakes wait for these answers: a flood of them must not starve the
                 * real agents' reconnects. */
                for (int i = 0; zap_item >= 0 && i < SERVER_ZAP_BATCH &&
                                (items[zap_item].revents & ZMQ_POLLIN);
                     i++)
                        if (zap_handle(srv.zap, srv.agent_keys, srv.control_keys, srv.enroll, srv.rl,
                                       clock_mono_ns()) < 0)
                                break;
                if (items[2].revents & ZMQ_POLLIN)
                        on_signal(&srv);
                if (enroll_item >= 0 && (items[enroll_item].revents & ZMQ_POLLIN))
                        enroll_srv_on_readable(srv.enroll, &srv.agent_keys);
                /* Bounded batches so one busy socket cannot starve the other. */
                for (int i = 0; i < 1000 && (items[0].revents & ZMQ_POLLIN); i++) {
                        sock_msg_t m;
                        if (sock_recv(srv.agents_sock, true, &m) < 0)
                                break;
                        on_agent_message(&srv, &m, now_timeline());
                        sock_msg_done(&m);
                }
                for (int i = 0; i < 100 && (items[1].revents & ZMQ_POLLIN); i++) {
                        sock_msg_t m;
                        if (sock_recv(srv.control_sock, true, &m) < 0)
                                break;
                        on_control_message(&srv, &m);
                        sock_msg_done(&m);
                }
                now = clock_mono_ns();
                if (now >= next_expire) {
                        registry_expire(srv.reg, clock_mono_ns(),
                                        (int64_t)(cfg->heartbeat_ns * cfg->lost_after), on_lost,
                                        &srv);
                        next_expire = now + (int64_t)cfg->heartbeat_ns / 2;
                }
                runs_tick(srv.runs, now_timeline());
                after_run_event(&srv);
                flush_acks(&srv, false);
                update_metrics(&srv);
                write_status(&srv, now);
                save_bindings_due(&srv, now);
                watch_pressure(&srv, now);
                if (watchdog_usec && now >= next_watchdog) {
                        sd_notify(0, "WATCHDOG=1");
                        next_watchdog = now + (int64_t)watchdog_usec * 1000 / 2;
                }
        }
        sd_notify(0, "STOPPING=1\nSTATUS=stopping");
        teardown(&srv);
        log_info("coordinator stopped");
        return r < 0 ? r : 0;
}
