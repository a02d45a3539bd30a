/* The agent's session with its coordinator: socket, CURVE, hello and backoff, heartbeats, clock
 * probes. */
#include "session.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <systemd/sd-daemon.h>
#include <zmq.h>

#include "engine.h"
#include "log.h"
#include "util.h"

int session_send(agent_t *ag, envelope_t *e)
{
        int r;
        if (!ag->sock)
                return -ENOTCONN;
        e->seq = ++ag->seq;
        if (ag->cfg->test_protocol_version)
                e->version = ag->cfg->test_protocol_version;
        r = sock_send_env(ag->sock, NULL, e);
        if (r < 0 && r != -EAGAIN)
                log_debug("send %s: %s", wire_body_name(e), strerror(-r));
        return r;
}

void session_error(agent_t *ag, Iofleet__ErrorCode code, const char *run_id, const char *msg)
{
        envelope_t e = IOFLEET__ENVELOPE__INIT;
        Iofleet__Error err = IOFLEET__ERROR__INIT;
        err.code = code;
        err.message = (char *)msg;
        err.run_id = (char *)(run_id ? run_id : "");
        e.body_case = IOFLEET__ENVELOPE__BODY_ERROR;
        e.error = &err;
        session_send(ag, &e);
}

void session_hello(agent_t *ag)
{
        envelope_t e = IOFLEET__ENVELOPE__INIT;
        Iofleet__Hello h = IOFLEET__HELLO__INIT;
        Iofleet__Label labels[WIRE_MAX_LABELS], *lp[WIRE_MAX_LABELS];
        char keys[WIRE_MAX_LABELS][WIRE_MAX_NAME + 1];
        const char *const *engines = engine_names();
        size_t n = 0;

        while (engines[n])
                n++;
        h.agent_id = ag->ident.id;
        h.name = (char *)ag->name;
        h.hostname = ag->ident.hostname;
        h.roles = ag->cfg->roles.v;
        h.n_roles = ag->cfg->roles.n;
        h.version = IOFLEET_VERSION;
        h.engines = (char **)engines;
        h.n_engines = n;
        h.boot_id = ag->ident.boot_id;
        for (size_t i = 0; i < ag->cfg->labels.n && i < WIRE_MAX_LABELS; i++) {
                const char *kv = ag->cfg->labels.v[i], *eq = strchr(kv, '=');
                iofleet__label__init(&labels[i]);
                snprintf(keys[i], sizeof(keys[i]), "%.*s", (int)(eq - kv), kv);
                labels[i].key = keys[i];
                labels[i].value = (char *)eq + 1;
                lp[i] = &labels[i];
                h.n_labels++;
        }
        h.labels = lp;
        e.body_case = IOFLEET__ENVELOPE__BODY_HELLO;
        e.hello = &h;
        session_send(ag, &e);
        ag->state = SESSION_HELLO_SENT;
        ag->next_hello = clock_mono_ns() + ag->backoff_ns;
        ag->backoff_ns = ag->backoff_ns * 2 > BACKOFF_MAX_NS ? BACKOFF_MAX_NS : ag->backoff_ns * 2;
}

void session_probe(agent_t *ag)
{
        envelope_t e = IOFLEET__ENVELOPE__INIT;
        Iofleet__TimeProbe p = IOFLEET__TIME_PROBE__INIT;
        e.body_case = IOFLEET__ENVELOPE__BODY_TIME_PROBE;
        e.time_probe = &p;
        p.t1 = clock_local_ns();
        session_send(ag, &e);
}

void session_start_burst(agent_t *ag)
{
        ag->burst_since = clock_local_ns();
        ag->burst_left = PROBE_BURST;
        ag->next_burst_probe = clock_mono_ns();
        ag->burst_deadline = clock_mono_ns() + PROBE_BURST_WAIT_NS;
}

/* Best offset: from the latest burst if it has a sample, else from the recent window. */
int session_best_offset(agent_t *ag, time_sample_t *s)
{
        if (clock_sync_best(&ag->sync, ag->burst_since, s) == 0)
                return 0;
        return clock_sync_best(&ag->sync, INT64_MIN, s);
}

void session_heartbeat(agent_t *ag)
{
        envelope_t e = IOFLEET__ENVELOPE__INIT;
        Iofleet__Heartbeat hb = IOFLEET__HEARTBEAT__INIT;
        time_sample_t s;
        if (session_best_offset(ag, &s) == 0) {
                hb.offset_ns = s.offset_ns;
                hb.rtt_ns = (uint64_t)s.rtt_ns;
                /* offset_ns maps the monotonic clock, so it holds the coordinator's time since
                 * the epoch minus the agent's since boot; people compare wall clocks. */
                hb.wall_offset_ns = s.offset_ns - (clock_real_ns() - clock_mono_ns());
                hb.wall_offset_known = true;
        }
        hb.run_id = ag->run ? ag->run->id : "";
        e.body_case = IOFLEET__ENVELOPE__BODY_HEARTBEAT;
        e.heartbeat = &hb;
        session_send(ag, &e);
        /* One probe per heartbeat keeps the offset fresh between runs. */
        session_probe(ag);
}

void session_close(agent_t *ag)
{
        if (ag->sock) {
                /* Give the last messages (an Error saying the agent is stopping) a moment to
                 * leave; the socket otherwise drops them at once. */
                int linger = 500;
                zmq_setsockopt(ag->sock, ZMQ_LINGER, &linger, sizeof(linger));
                zmq_close(ag->sock);
        }
        if (ag->monitor)
                zmq_close(ag->monitor);
        ag->sock = ag->monitor = NULL;
        ag->state = SESSION_DISCONNECTED;
}

int session_open(agent_t *ag)
{
        int one = 1, linger = 0, ivl = 100, ivl_max = 5000, connect_ms = 5000;
        int64_t maxmsg = WIRE_MAX_AGENT_MSG;
        char mon[64];
        int r;

        ag->sock = zmq_socket(ag->ctx, ZMQ_DEALER);
        if (!ag->sock)
                return -errno;
        /* Queue nothing for a coordinator that is not there: stale heartbeats help nobody. */
        zmq_setsockopt(ag->sock, ZMQ_IMMEDIATE, &one, sizeof(one));
        zmq_setsockopt(ag->sock, ZMQ_LINGER, &linger, sizeof(linger));
        zmq_setsockopt(ag->sock, ZMQ_RECONNECT_IVL, &ivl, sizeof(ivl));
        zmq_setsockopt(ag->sock, ZMQ_RECONNECT_IVL_MAX, &ivl_max, sizeof(ivl_max));
        /* A coordinator pausing new connections leaves the SYN unanswered: a fresh attempt every
         * few seconds gets in soon after it resumes, not after TCP's minute-long backoff. */
        zmq_setsockopt(ag->sock, ZMQ_CONNECT_TIMEOUT, &connect_ms, sizeof(connect_ms));
        zmq_setsockopt(ag->sock, ZMQ_MAXMSGSIZE, &maxmsg, sizeof(maxmsg));
        if (!ag->cfg->insecure &&
            (r = sock_curve_client(ag->sock, &ag->kp, ag->server.public_z85)) < 0)
                return log_error_errno(r, "CURVE setup: %m");
        /* Handshake failures are silent on a DEALER: a monitor tells us the coordinator refused. */
        snprintf(mon, sizeof(mon), "inproc://agent-monitor-%d", ++ag->monitor_seq);
        if (zmq_socket_monitor(ag->sock, mon,
                               ZMQ_EVENT_HANDSHAKE_FAILED_AUTH |
                                   ZMQ_EVENT_HANDSHAKE_FAILED_NO_DETAIL |
                                   ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL |
                                   ZMQ_EVENT_HANDSHAKE_SUCCEEDED | ZMQ_EVENT_DISCONNECTED) == 0) {
                ag->monitor = zmq_socket(ag->ctx, ZMQ_PAIR);
                if (ag->monitor && zmq_connect(ag->monitor, mon) < 0) {
                        zmq_close(ag->monitor);
                        ag->monitor = NULL;
                }
        }
        if (zmq_connect(ag->sock, ag->cfg->coordinator) < 0)
                return log_error_errno(-errno, "connect %s: %m", ag->cfg->coordinator);
        ag->last_heard = clock_mono_ns();
        ag->state = SESSION_DISCONNECTED;
        ag->next_hello = clock_mono_ns();
        return 0;
}

void session_on_monitor(agent_t *ag)
{
        zmq_msg_t m;
        uint16_t ev;
        uint32_t val;

        zmq_msg_init(&m);
        if (zmq_msg_recv(&m, ag->monitor, ZMQ_DONTWAIT) < 0) {
                zmq_msg_close(&m);
                return;
        }
        if (zmq_msg_size(&m) < 6) {
                zmq_msg_close(&m);
                return;
        }
        memcpy(&ev, zmq_msg_data(&m), 2);
        memcpy(&val, (char *)zmq_msg_data(&m) + 2, 4);
        zmq_msg_close(&m);
        /* The second frame (the endpoint) is not needed. */
        zmq_msg_init(&m);
        zmq_msg_recv(&m, ag->monitor, ZMQ_DONTWAIT);
        zmq_msg_close(&m);

        switch (ev) {
        case ZMQ_EVENT_HANDSHAKE_FAILED_AUTH:
                if (ag->enroll_pending) {
                        log_info("the coordinator at %s does not admit this agent yet: its "
                                 "enrolment waits for approval (iofleet agents approve)",
                                 ag->cfg->coordinator);
                        break;
                }
                log_error("the coordinator at %s refused this agent's key (status %u): add %s's "
                          "public key %s to the coordinator's agent_keys_dir",
                          ag->cfg->coordinator, val, ag->name, ag->kp.public_z85);
                break;
        case ZMQ_EVENT_HANDSHAKE_FAILED_NO_DETAIL:
        case ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL:
                log_error("CURVE handshake with %s failed (is coordinator_key the coordinator's "
                          "real public key?)",
                          ag->cfg->coordinator);
                break;
        case ZMQ_EVENT_HANDSHAKE_SUCCEEDED:
                log_debug("connected to %s", ag->cfg->coordinator);
                /* A new connection: say hello now rather than at the end of the backoff. */
                if (ag->state != SESSION_REGISTERED) {
                        ag->backoff_ns = BACKOFF_MIN_NS;
                        session_hello(ag);
                }
                break;
        case ZMQ_EVENT_DISCONNECTED:
                log_info("disconnected from %s", ag->cfg->coordinator);
                break;
        }
}

/* Sends e with kv as its effective settings (the message's fields point at them meanwhile). */
void session_send_settings(agent_t *ag, envelope_t *e, Iofleet__Setting ***field, size_t *n,
                           const kvlist_t *kv)
{
        Iofleet__Setting **sp = NULL, *sv = wire_settings(kv, &sp);
        if (sv) {
                *field = sp;
                *n = kv->n;
        }
        session_send(ag, e);
        *field = NULL;
        *n = 0;
        free(sv);
        free(sp);
}
