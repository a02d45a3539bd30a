/* Enrolment on the agent: with a token it pins the coordinator's key the token carries, makes its
 * own key pair if it has none, and asks the coordinator's enrolment endpoint to admit its public
 * key, over CURVE with the token's key pair and the pinned coordinator key. */
#include "agent-enroll.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <systemd/sd-daemon.h>
#include <zmq.h>

#include "clock.h"
#include "enroll-token.h"
#include "fileio.h"
#include "keys.h"
#include "log.h"
#include "sock.h"
#include "util.h"

/* Failed handshakes in a row (no ZAP verdict: the endpoint could not read ours) before the
 * agent concludes the endpoint does not hold the coordinator key the token carries. */
#define ENROLL_CRYPTO_FAILURES 3

int enroll_endpoint_of(const agent_config_t *cfg, char *buf, size_t len, char *err, size_t errlen)
{
        const char *c = cfg->coordinator, *host, *colon;

        if (!strempty(cfg->enroll_endpoint)) {
                if (strncmp(cfg->enroll_endpoint, "tcp://", 6) != 0 &&
                    strncmp(cfg->enroll_endpoint, "ipc://", 6) != 0)
                        return errorf(err, errlen, -EINVAL,
                                      "enroll_endpoint: '%s' is not a tcp:// or ipc:// endpoint",
                                      cfg->enroll_endpoint);
                snprintf(buf, len, "%s", cfg->enroll_endpoint);
                return 0;
        }
        if (strncmp(c, "tcp://", 6) != 0)
                return errorf(err, errlen, -EINVAL,
                              "enroll_endpoint: set it (the coordinator endpoint %s is not tcp://, "
                              "so its host cannot be taken from there)",
                              c);
        host = c + 6;
        colon = strrchr(host, ':');
        if (!colon || colon == host)
                return errorf(err, errlen, -EINVAL,
                              "enroll_endpoint: set it (no host:port in the coordinator endpoint "
                              "%s)",
                              c);
        snprintf(buf, len, "tcp://%.*s:%d", (int)(colon - host), host, ENROLL_PORT);
        return 0;
}

/* The token: from the command line, else the file when there is one. 0 with *tok filled, 1 when
 * there is none, or -ENOKEY (logged). */
static int read_token(const agent_config_t *cfg, enroll_token_t *tok, bool *from_file)
{
        char err[512], *text = NULL;
        struct stat st;
        int r;

        *from_file = false;
        if (!strempty(cfg->enroll_token))
                text = strdup(cfg->enroll_token);
        else {
                if (strempty(cfg->enroll_token_file) || stat(cfg->enroll_token_file, &st) < 0)
                        return 1;
                /* Whoever reads the token can enrol a host of theirs until it is used up. */
                if (st.st_mode & 077)
                        return log_error_errno(-ENOKEY,
                                               "%s: readable or writable by others than its owner "
                                               "(mode %04o): an enrolment token must be private; "
                                               "run: chmod 600 %s",
                                               cfg->enroll_token_file,
                                               (unsigned)(st.st_mode & 07777),
                                               cfg->enroll_token_file);
                r = read_full_file(cfg->enroll_token_file, READ_FULL_REGULAR, 4096, &text, NULL);
                if (r < 0)
                        return log_error_errno(r == -EFBIG || r == -EINVAL ? -ENOKEY : r,
                                               "%s: %s (it must hold one enrolment token)",
                                               cfg->enroll_token_file, strerror(-r));
                *from_file = true;
        }
        if (!text)
                return -ENOMEM;
        r = enroll_token_parse(text, tok, err, sizeof(err));
        explicit_bzero(text, strlen(text));
        free(text);
        if (r < 0)
                return log_error_errno(-ENOKEY, "%s: %s",
                                       *from_file ? cfg->enroll_token_file : "--enroll-token", err);
        return 0;
}

/* Makes the directory a file of path goes in. */
static void parent_dir(const char *path)
{
        char dir[4096], *slash;
        snprintf(dir, sizeof(dir), "%s", path);
        slash = strrchr(dir, '/');
        if (slash && slash != dir) {
                *slash = 0;
                mkdir_p(dir, 0755);
        }
}

/* The coordinator key the token carries must be the one this agent pins; with none pinned yet,
 * it becomes the pinned one. 0 or -ENOKEY (logged). */
static int pin_coordinator(const agent_config_t *cfg, const enroll_token_t *tok)
{
        char z[KEY_Z85_LEN + 1], text[256], err[512];
        keypair_t pinned;
        int r;

        zmq_z85_encode(z, tok->coordinator, 32);
        if (access(cfg->coordinator_key, F_OK) == 0) {
                if (keys_load(cfg->coordinator_key, false, &pinned, err, sizeof(err)) < 0)
                        return log_error_errno(-ENOKEY, "coordinator key: %s", err);
                if (!streq(pinned.public_z85, z))
                        return log_error_errno(
                            -ENOKEY,
                            "the enrolment token names coordinator key %s, but this agent pins "
                            "%s (%s): the token comes from another coordinator; use one of the "
                            "coordinator in %s, or remove %s to pin the token's",
                            z, pinned.public_z85, cfg->coordinator_key, cfg->coordinator_key,
                            cfg->coordinator_key);
                return 0;
        }
        snprintf(text, sizeof(text),
                 "# iofleet CURVE public key 'coordinator': pinned from an enrolment token\n"
                 "[curve]\npublic-key = %s\n",
                 z);
        parent_dir(cfg->coordinator_key);
        if ((r = write_file_atomic(cfg->coordinator_key, text, strlen(text), 0644)) < 0)
                return log_error_errno(r, "%s: %m", cfg->coordinator_key);
        log_info("pinned the coordinator key %s from the enrolment token in %s", z,
                 cfg->coordinator_key);
        return 0;
}

/* This agent's key pair; made (DIR/NAME.key and .pub) when there is none. 0 or -errno. */
static int own_key(const agent_config_t *cfg, keypair_t *kp)
{
        char dir[4096], name[256], err[1024], *slash, *dot;
        int r;

        if (access(cfg->key, F_OK) < 0) {
                snprintf(dir, sizeof(dir), "%s", cfg->key);
                slash = strrchr(dir, '/');
                snprintf(name, sizeof(name), "%s", slash ? slash + 1 : dir);
                if (slash)
                        *slash = 0;
                else
                        snprintf(dir, sizeof(dir), ".");
                dot = strrchr(name, '.');
                if (!dot || !streq(dot, ".key"))
                        return log_error_errno(-ENOKEY,
                                               "agent key: %s does not exist, and only a file "
                                               "named NAME.key is made for enrolment",
                                               cfg->key);
                *dot = 0;
                parent_dir(cfg->key);
                if ((r = keys_generate(kp)) < 0 ||
                    (r = keys_write(dir[0] ? dir : "/", name, kp, false, err, sizeof(err))) < 0)
                        return log_error_errno(r < 0 ? r : -EIO, "agent key: %s",
                                               r == -EOPNOTSUPP ? "no CURVE in libzmq" : err);
                log_info("made this agent's key pair %s (public key %s)", cfg->key,
                         kp->public_z85);
        }
        if ((r = keys_load(cfg->key, true, kp, err, sizeof(err))) < 0)
                return log_error_errno(-ENOKEY, "agent key: %s", err);
        return 0;
}

static void marker_path(const agent_config_t *cfg, char *buf, size_t len)
{
        snprintf(buf, len, "%s/%s", cfg->state_dir, ENROLL_MARKER);
}

/* The token id the marker records, "" when there is none. */
static void marker_token(const agent_config_t *cfg, char id[ENROLL_ID_LEN + 1])
{
        char path[4200], *text = NULL, *p;
        id[0] = 0;
        marker_path(cfg, path, sizeof(path));
        if (read_full_file(path, READ_FULL_REGULAR, 4096, &text, NULL) < 0)
                return;
        if ((p = strstr(text, "token = ")))
                snprintf(id, ENROLL_ID_LEN + 1, "%.*s", ENROLL_ID_LEN, p + 8);
        free(text);
}

static void write_marker(const agent_config_t *cfg, const char *id, const char *name,
                         bool pending, const enroll_token_t *tok)
{
        char path[4200], text[512], z[KEY_Z85_LEN + 1];
        int r;

        zmq_z85_encode(z, tok->coordinator, 32);
        marker_path(cfg, path, sizeof(path));
        snprintf(text, sizeof(text),
                 "# written by iofleet-agent after its enrolment; remove it and give a new token "
                 "to enrol again\nname = %s\ntoken = %s\ncoordinator = %s\npending = %s\n"
                 "time = %lld\n",
                 name, id, z, pending ? "yes" : "no",
                 (long long)(clock_real_ns() / (int64_t)NSEC_PER_SEC));
        if ((r = write_file_atomic(path, text, strlen(text), 0600)) < 0)
                log_warning_errno(r, "%s: %m (the enrolment itself went through)", path);
}

typedef struct exchange {
        const agent_config_t *cfg;
        const char *endpoint;
        const enroll_token_t *tok;
        const keypair_t *agent;
        const char *name, *hostname;
        uint8_t tpk[32], tsk[32];
} exchange_t;

static int send_request(void *sock, exchange_t *x)
{
        envelope_t e = IOFLEET__ENVELOPE__INIT;
        Iofleet__EnrollRequest q = IOFLEET__ENROLL_REQUEST__INIT;
        uint8_t apk[32], ask[32], nonce[ENROLL_NONCE_LEN], proof[ENROLL_PROOF_LEN];
        int r;

        zmq_z85_decode(apk, x->agent->public_z85);
        zmq_z85_decode(ask, x->agent->secret_z85);
        r = enroll_proof_make(apk, ask, x->tpk, x->tok->coordinator, nonce, proof);
        explicit_bzero(ask, sizeof(ask));
        if (r < 0)
                return r;
        q.agent_key = (ProtobufCBinaryData){32, apk};
        q.nonce = (ProtobufCBinaryData){sizeof(nonce), nonce};
        q.proof = (ProtobufCBinaryData){sizeof(proof), proof};
        q.name = (char *)x->name;
        q.hostname = (char *)x->hostname;
        q.roles = x->cfg->roles.v;
        q.n_roles = x->cfg->roles.n;
        q.version = IOFLEET_VERSION;
        e.body_case = IOFLEET__ENVELOPE__BODY_ENROLL_REQUEST;
        e.enroll_request = &q;
        return sock_send_env(sock, NULL, &e);
}

/* One connection to the endpoint: 0 with *ret (a reply), -EAGAIN (asked to try later, or a
 * handshake that failed without a verdict: a new connection may do), -ENOKEY (a refusal,
 * logged), -ETIMEDOUT (the deadline passed). libzmq gives up a connection whose handshake the
 * server refused, so each attempt has a socket of its own. */
static int attempt(exchange_t *x, void *ctx, int64_t deadline, int *crypto_fails,
                   envelope_t **ret)
{
        void *sock = NULL, *mon = NULL;
        int one = 1, linger = 0, ivl = 500, ivl_max = 5000, connect_ms = 5000;
        int64_t maxmsg = 65536, next_try = INT64_MAX;
        keypair_t tk = {};
        char monep[64], server[KEY_Z85_LEN + 1], err[512];
        static int seq;
        int r;

        if (!(sock = zmq_socket(ctx, ZMQ_DEALER)))
                return -errno;
        zmq_z85_encode(tk.public_z85, x->tpk, 32);
        zmq_z85_encode(tk.secret_z85, x->tsk, 32);
        zmq_z85_encode(server, x->tok->coordinator, 32);
        r = sock_curve_client(sock, &tk, server);
        explicit_bzero(&tk, sizeof(tk));
        if (r < 0)
                goto out;
        /* Sent once a handshake has succeeded, so a failed one loses nothing. */
        zmq_setsockopt(sock, ZMQ_IMMEDIATE, &one, sizeof(one));
        zmq_setsockopt(sock, ZMQ_LINGER, &linger, sizeof(linger));
        zmq_setsockopt(sock, ZMQ_RECONNECT_IVL, &ivl, sizeof(ivl));
        zmq_setsockopt(sock, ZMQ_RECONNECT_IVL_MAX, &ivl_max, sizeof(ivl_max));
        zmq_setsockopt(sock, ZMQ_CONNECT_TIMEOUT, &connect_ms, sizeof(connect_ms));
        zmq_setsockopt(sock, ZMQ_MAXMSGSIZE, &maxmsg, sizeof(maxmsg));
        snprintf(monep, sizeof(monep), "inproc://enroll-monitor-%d", ++seq);
        if (zmq_socket_monitor(sock, monep,
                               ZMQ_EVENT_HANDSHAKE_SUCCEEDED | ZMQ_EVENT_HANDSHAKE_FAILED_AUTH |
                                   ZMQ_EVENT_HANDSHAKE_FAILED_NO_DETAIL |
                                   ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL) < 0 ||
            !(mon = zmq_socket(ctx, ZMQ_PAIR)) || zmq_connect(mon, monep) < 0) {
                r = -errno;
                goto out;
        }
        zmq_setsockopt(mon, ZMQ_LINGER, &linger, sizeof(linger));
        if (zmq_connect(sock, x->endpoint) < 0) {
                r = log_error_errno(-ENOKEY, "enrolment: cannot connect to %s: %m", x->endpoint);
                goto out;
        }
        r = -ETIMEDOUT;
        while (clock_mono_ns() < deadline) {
                zmq_pollitem_t items[2] = {{sock, 0, ZMQ_POLLIN, 0}, {mon, 0, ZMQ_POLLIN, 0}};
                uint16_t ev;
                uint32_t val;
                int64_t wait = deadline - clock_mono_ns();

                if (next_try - clock_mono_ns() < wait)
                        wait = next_try - clock_mono_ns();
                sd_notify(0, "WATCHDOG=1");
                if (zmq_poll(items, 2, wait > 0 ? wait / (int64_t)NSEC_PER_MSEC + 1 : 0) < 0 &&
                    errno != EINTR) {
                        r = -errno;
                        goto out;
                }
                if (clock_mono_ns() >= next_try) {
                        next_try = INT64_MAX;
                        send_request(sock, x);
                }
                while (sock_monitor_event(mon, &ev, &val, NULL, 0) == 0) {
                        switch (ev) {
                        case ZMQ_EVENT_HANDSHAKE_SUCCEEDED:
                                *crypto_fails = 0;
                                send_request(sock, x);
                                break;
                        case ZMQ_EVENT_HANDSHAKE_FAILED_AUTH:
                                if (val == 300) {
                                        log_info("enrolment: the coordinator asks to try later "
                                                 "(too many attempts from this address)");
                                        r = -EAGAIN;
                                        goto out;
                                }
                                r = log_error_errno(
                                    -ENOKEY,
                                    "enrolment: the coordinator at %s refused the token (status "
                                    "%u): it is unknown, expired, used up or revoked (the "
                                    "coordinator's log says which; iofleet enroll list shows its "
                                    "tokens); make a new one with iofleet enroll create",
                                    x->endpoint, val);
                                goto out;
                        case ZMQ_EVENT_HANDSHAKE_FAILED_NO_DETAIL:
                        case ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL:
                                if (++*crypto_fails < ENROLL_CRYPTO_FAILURES)
                                        break;
                                r = log_error_errno(
                                    -ENOKEY,
                                    "enrolment: %s did not complete the CURVE handshake with the "
                                    "coordinator key the token carries (%d attempts): it is not "
                                    "that coordinator (wrong enroll_endpoint, or someone in "
                                    "between); nothing was sent",
                                    x->endpoint, *crypto_fails);
                                goto out;
                        }
                }
                if (items[0].revents & ZMQ_POLLIN) {
                        sock_msg_t m;
                        envelope_t *e = NULL;
                        if (sock_recv(sock, false, &m) < 0)
                                continue;
                        r = wire_decode(m.data, m.len, (size_t)maxmsg, &e, err, sizeof(err));
                        sock_msg_done(&m);
                        if (r < 0) {
                                r = log_error_errno(-ENOKEY, "enrolment: bad answer from %s: %s",
                                                    x->endpoint, err);
                                wire_free(&e);
                                goto out;
                        }
                        if (e->body_case == IOFLEET__ENVELOPE__BODY_ENROLL_REPLY) {
                                *ret = e;
                                r = 0;
                                goto out;
                        }
                        if (e->body_case == IOFLEET__ENVELOPE__BODY_ERROR &&
                            e->error->code == IOFLEET__ERROR_CODE__ERROR_BUSY) {
                                log_info("enrolment: %s; trying again in 10s", e->error->message);
                                next_try = clock_mono_ns() + 10 * (int64_t)NSEC_PER_SEC;
                                wire_free(&e);
                                r = -ETIMEDOUT;
                                continue;
                        }
                        r = log_error_errno(
                            -ENOKEY, "enrolment refused by the coordinator: %s",
                            e->body_case == IOFLEET__ENVELOPE__BODY_ERROR ? e->error->message
                                                                          : wire_body_name(e));
                        wire_free(&e);
                        goto out;
                }
        }
out:
        if (mon)
                zmq_close(mon);
        zmq_close(sock);
        return r;
}

/* The exchange: attempts until a reply (0, *ret set), a refusal (-ENOKEY, logged) or the
 * deadline (-ETIMEDOUT, logged). */
static int exchange(exchange_t *x, envelope_t **ret)
{
        void *ctx = zmq_ctx_new();
        int64_t deadline = clock_mono_ns() + (int64_t)x->cfg->enroll_timeout_ns;
        int64_t backoff = 2 * (int64_t)NSEC_PER_SEC;
        int crypto_fails = 0, r;

        if (!ctx)
                return -errno;
        log_info("enrolling at %s as '%s'", x->endpoint, x->name);
        while ((r = attempt(x, ctx, deadline, &crypto_fails, ret)) == -EAGAIN &&
               clock_mono_ns() + backoff < deadline) {
                /* Told to wait: a few seconds, more each time, within the deadline. */
                int64_t until = clock_mono_ns() + backoff;
                while (clock_mono_ns() < until) {
                        sd_notify(0, "WATCHDOG=1");
                        clock_sleep_until_mono(until < clock_mono_ns() + (int64_t)NSEC_PER_SEC
                                                   ? until
                                                   : clock_mono_ns() + (int64_t)NSEC_PER_SEC,
                                               0);
                }
                backoff = backoff * 2 > 30 * (int64_t)NSEC_PER_SEC ? 30 * (int64_t)NSEC_PER_SEC
                                                                   : backoff * 2;
        }
        zmq_ctx_term(ctx);
        if (r == -EAGAIN || r == -ETIMEDOUT)
                r = log_error_errno(-ETIMEDOUT,
                                    "enrolment: no answer from %s within %llus: is the coordinator "
                                    "up, and its enroll_endpoint (port %d by default) reachable "
                                    "from here?",
                                    x->endpoint,
                                    (unsigned long long)(x->cfg->enroll_timeout_ns / NSEC_PER_SEC),
                                    ENROLL_PORT);
        return r;
}

int enroll_agent(const agent_config_t *cfg, const char *name, const char *hostname,
                 enroll_result_t *res)
{
        enroll_token_t tok;
        exchange_t x = {.cfg = cfg, .tok = &tok, .name = name, .hostname = hostname};
        keypair_t agent;
        envelope_t *rep = NULL;
        char endpoint[4096], err[512], id[ENROLL_ID_LEN + 1], seen[ENROLL_ID_LEN + 1];
        bool from_file;
        int r;

        memset(res, 0, sizeof(*res));
        if ((r = read_token(cfg, &tok, &from_file)) != 0)
                return r > 0 ? 0 : r;
        x.agent = &agent;
        enroll_token_keypair(&tok, x.tpk, x.tsk);
        enroll_token_id(x.tpk, id);
        marker_token(cfg, seen);
        if (!from_file && streq(seen, id)) {
                /* --enroll-token= in a unit stays there across restarts: used once. */
                log_debug("enrolment token %s was used already (%s/%s)", id, cfg->state_dir,
                          ENROLL_MARKER);
                r = 0;
                goto out;
        }
        if ((r = enroll_endpoint_of(cfg, endpoint, sizeof(endpoint), err, sizeof(err))) < 0) {
                r = log_error_errno(-ENOKEY, "%s", err);
                goto out;
        }
        x.endpoint = endpoint;
        sd_notifyf(0, "STATUS=enrolling at %s", endpoint);
        if ((r = pin_coordinator(cfg, &tok)) < 0 || (r = own_key(cfg, &agent)) < 0 ||
            (r = exchange(&x, &rep)) < 0)
                goto out;
        res->done = true;
        res->pending = rep->enroll_reply->pending;
        snprintf(res->name, sizeof(res->name), "%s", rep->enroll_reply->name);
        write_marker(cfg, id, res->name, res->pending, &tok);
        if (from_file && unlink(cfg->enroll_token_file) < 0 && errno != ENOENT)
                log_warning("%s: cannot remove the used token: %m", cfg->enroll_token_file);
        if (res->pending)
                log_notice("enrolled as %s: waiting for the operator's approval (on the "
                           "coordinator: iofleet agents approve %s)",
                           res->name, res->name);
        else
                log_notice("enrolled as %s with token %s: the coordinator admits this agent's key",
                           res->name, id);
out:
        wire_free(&rep);
        enroll_token_wipe(&tok);
        explicit_bzero(x.tsk, sizeof(x.tsk));
        explicit_bzero(&agent, sizeof(agent));
        return r;
}
