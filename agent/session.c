/* The agent's session with its coordinator: socket, CURVE, hello and backoff, heartbeats, clock
 * probes. */
#include "session.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <systemd/sd-daemon.h>
#include <zmq.h>

#include "engine.h"
#include "log.h"
#include "util.h"

int session_send(agent_daemon_t *ag, envelope_t *e)
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
        else if (r >= 0)
                ag->last_sent = clock_mono_ns();
        return r;
}

int session_send_raw(agent_daemon_t *ag, const void *buf, size_t len)
{
        int r;
        if (!ag->sock)
                return -ENOTCONN;
        r = sock_send(ag->sock, NULL, buf, len);
        if (r < 0 && r != -EAGAIN)
                log_debug("send a run message: %s", strerror(-r));
        else if (r >= 0)
                ag->last_sent = clock_mono_ns();
        return r;
}

void session_goodbye(agent_daemon_t *ag, const char *reason)
{
        envelope_t e = IOFLEET__ENVELOPE__INIT;
        Iofleet__Goodbye g = IOFLEET__GOODBYE__INIT;
        if (ag->state != SESSION_REGISTERED)
                return;
        g.reason = (char *)reason;
        e.body_case = IOFLEET__ENVELOPE__BODY_GOODBYE;
        e.goodbye = &g;
        session_send(ag, &e);
}

void session_error(agent_daemon_t *ag, Iofleet__ErrorCode code, const char *run_id, const char *msg)
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

void session_hello(agent_daemon_t *ag)
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
        if (ag->run && ag->run->ar) {
                /* The run it holds: the coordinator says where to resend from. */
                h.run_id = ag->run->id;
                h.run_phase = (char *)arun_phase_name(ag->run->ar);
                h.run_seq = arun_made(ag->run->ar);
        }
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

void session_probe(agent_daemon_t *ag)
{
        envelope_t e = IOFLEET__ENVELOPE__INIT;
        Iofleet__TimeProbe p = IOFLEET__TIME_PROBE__INIT;
        e.body_case = IOFLEET__ENVELOPE__BODY_TIME_PROBE;
        e.time_probe = &p;
        p.t1 = clock_local_ns();
        session_send(ag, &e);
}

void session_start_burst(agent_daemon_t *ag)
{
        ag->burst_since = clock_local_ns();
        ag->burst_left = PROBE_BURST;
        ag->next_burst_probe = clock_mono_ns();
        ag->burst_deadline = clock_mono_ns() + PROBE_BURST_WAIT_NS;
}

/* Best offset: from the latest burst if it has a sample, else from the recent window. */
int session_best_offset(agent_daemon_t *ag, time_sample_t *s)
{
        if (clock_sync_best(&ag->sync, ag->burst_since, s) == 0)
                return 0;
        return clock_sync_best(&ag->sync, INT64_MIN, s);
}

void session_heartbeat(agent_daemon_t *ag)
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
        hb.run_id = ag->run ? ag->run->id : (char *)"";
        /* A probe rides with every other heartbeat: the offset stays fresh between runs, and
         * the coordinator answers those (and the others only when it has been quiet for two).
         * A beat between, with nothing to carry, is left out when the agent has just sent
         * something else (an Interval): any message shows it alive. */
        if (ag->beats++ % 2 == 0)
                hb.probe_t1 = clock_local_ns();
        else if (clock_mono_ns() - ag->last_sent < ag->heartbeat_ns)
                return;
        e.body_case = IOFLEET__ENVELOPE__BODY_HEARTBEAT;
        e.heartbeat = &hb;
        session_send(ag, &e);
}

void session_close(agent_daemon_t *ag)
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

int session_open(agent_daemon_t *ag)
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

void session_on_monitor(agent_daemon_t *ag)
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
        case ZMQ_EVENT_HANDSHAKE_FAILED_AUTH: {
                char why[256];
                if (ag->enroll_pending) {
                        log_info("the coordinator at %s does not admit this agent yet: its "
                                 "enrolment waits for approval (iofleet agents approve)",
                                 ag->cfg->coordinator);
                        break;
                }
                snprintf(why, sizeof(why),
                         "it refused this agent's key (status %u): add %s's public key %s to "
                         "the coordinator's agent_keys_dir",
                         val, ag->name, ag->kp.public_z85);
                session_unreachable(ag, why);
                break;
        }
        case ZMQ_EVENT_HANDSHAKE_FAILED_NO_DETAIL:
        case ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL:
                session_unreachable(ag, "the CURVE handshake failed (is coordinator_key the "
                                        "coordinator's real public key?)");
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

/* "tcp://HOST:PORT" (HOST may be [v6]): a plain TCP connect says why the coordinator cannot be
 * reached, which ZeroMQ's reconnects never tell. Non-blocking; probe_check() reads it. */
static void probe_start(agent_daemon_t *ag)
{
        char host[256], *colon;
        const char *ep = ag->cfg->coordinator;
        struct addrinfo hints = {.ai_socktype = SOCK_STREAM}, *ai = NULL;
        int fd;
        if (ag->probe_fd >= 0 || strncmp(ep, "tcp://", 6) != 0)
                return;
        snprintf(host, sizeof(host), "%s", ep + 6);
        colon = strrchr(host, ':');
        if (!colon)
                return;
        *colon = 0;
        if (host[0] == '[' && colon[-1] == ']') {
                memmove(host, host + 1, strlen(host));
                host[strlen(host) - 1] = 0;
        }
        if (getaddrinfo(host, colon + 1, &hints, &ai) != 0 || !ai) {
                snprintf(ag->probe_why, sizeof(ag->probe_why), "cannot resolve '%s'", host);
                return;
        }
        fd = socket(ai->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        if (fd >= 0 && connect(fd, ai->ai_addr, ai->ai_addrlen) < 0 && errno != EINPROGRESS) {
                snprintf(ag->probe_why, sizeof(ag->probe_why), "%s", strerror(errno));
                close(fd);
                fd = -1;
        }
        freeaddrinfo(ai);
        ag->probe_fd = fd;
        ag->probe_deadline = clock_mono_ns() + 2 * (int64_t)NSEC_PER_SEC;
}

/* The probe's answer, when it has one: a reason for the next line about it. */
static void probe_check(agent_daemon_t *ag)
{
        struct pollfd p = {ag->probe_fd, POLLOUT, 0};
        int err = 0;
        socklen_t len = sizeof(err);
        if (ag->probe_fd < 0)
                return;
        if (poll(&p, 1, 0) == 1) {
                getsockopt(ag->probe_fd, SOL_SOCKET, SO_ERROR, &err, &len);
                snprintf(ag->probe_why, sizeof(ag->probe_why), "%s",
                         err ? strerror(err) : "TCP connects, but no ZeroMQ session yet");
        } else if (clock_mono_ns() < ag->probe_deadline)
                return;
        else
                snprintf(ag->probe_why, sizeof(ag->probe_why),
                         "no answer to a TCP connect within 2s (host down, or filtered)");
        close(ag->probe_fd);
        ag->probe_fd = -1;
}

void session_unreachable(agent_daemon_t *ag, const char *why)
{
        int64_t now = clock_mono_ns();
        bool again = streq(ag->unreachable, why);
        if (again && now < ag->next_unreachable_log)
                return;
        if (!again || !ag->unreachable_every)
                ag->unreachable_every = (int64_t)NSEC_PER_SEC;
        else if (ag->unreachable_every * 2 > 60 * (int64_t)NSEC_PER_SEC)
                ag->unreachable_every = 60 * (int64_t)NSEC_PER_SEC;
        else
                ag->unreachable_every *= 2;
        ag->next_unreachable_log = now + ag->unreachable_every;
        snprintf(ag->unreachable, sizeof(ag->unreachable), "%s", why);
        log_error("cannot reach the coordinator at %s: %s (retrying; said again in %llds if it "
                  "lasts)",
                  ag->cfg->coordinator, why,
                  (long long)(ag->unreachable_every / (int64_t)NSEC_PER_SEC));
}

void session_check_reach(agent_daemon_t *ag)
{
        int64_t now = clock_mono_ns();
        if (ag->state == SESSION_REGISTERED) {
                if (ag->unreachable[0])
                        log_info("coordinator %s reached again", ag->cfg->coordinator);
                ag->unreachable[0] = 0;
                ag->unreachable_every = 0;
                ag->probe_why[0] = 0;
                if (ag->probe_fd >= 0) {
                        close(ag->probe_fd);
                        ag->probe_fd = -1;
                }
                return;
        }
        /* A few seconds without a session before it is worth a line. */
        if (now - ag->last_heard < 3 * (int64_t)NSEC_PER_SEC)
                return;
        probe_check(ag);
        if (ag->probe_why[0]) {
                char why[320];
                snprintf(why, sizeof(why), "%s", ag->probe_why);
                ag->probe_why[0] = 0;
                session_unreachable(ag, why);
                return;
        }
        if (now >= ag->next_unreachable_log)
                probe_start(ag);
}
