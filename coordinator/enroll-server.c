/* The coordinator's enrolment endpoint and the CLI's enrolment commands: a ROUTER socket that
 * only token holders get through, that takes nothing but EnrollRequest, and that puts the keys
 * it admits on the allow-list (agents.d) the rest of the coordinator reads. */
#include "enroll-server.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <zmq.h>

#include "clock.h"
#include "enroll-token.h"
#include "enroll.h"
#include "log.h"
#include "util.h"

/* An enrolment request is small: anything bigger is refused before decoding. */
#define ENROLL_MAX_MSG 8192
#define ENROLL_STORE_FILE "enroll.json"

struct enroll_srv {
        const coord_config_t *cfg;
        enroll_t *store;
        void *sock;
        bool listening; /* bound: tokens are worth making */
        uint8_t pk[32], sk[32];
        ratelimit_t *log_rl;      /* the coordinator's: log lines about refused peers */
        ratelimit_t *per_address; /* requests per address and minute */
        ratelimit_t *admissions;  /* requests per minute, all addresses together */
        int64_t next_flush;
        enroll_changed_fn changed;
        void *userdata;
};

int enroll_srv_new(void *ctx, const coord_config_t *cfg, const keypair_t *kp, ratelimit_t *log_rl,
                   enroll_changed_fn changed, void *userdata, enroll_srv_t **ret)
{
        enroll_srv_t *es = calloc(1, sizeof(*es));
        char path[4096], err[1024];
        int r;

        if (!es)
                return -ENOMEM;
        es->cfg = cfg;
        es->log_rl = log_rl;
        es->changed = changed;
        es->userdata = userdata;
        snprintf(path, sizeof(path), "%s/%s", cfg->state_dir, ENROLL_STORE_FILE);
        if ((r = enroll_open(path, &es->store, err, sizeof(err))) < 0) {
                log_error("enrolment: %s", err);
                enroll_srv_free(&es);
                return r;
        }
        if ((r = ratelimit_new(60 * (int64_t)NSEC_PER_SEC, ENROLL_REQUESTS_PER_ADDRESS, 4096,
                               &es->per_address)) < 0 ||
            (r = ratelimit_new(60 * (int64_t)NSEC_PER_SEC, ENROLL_REQUESTS_PER_MINUTE, 1,
                               &es->admissions)) < 0) {
                enroll_srv_free(&es);
                return r;
        }
        zmq_z85_decode(es->pk, kp->public_z85);
        if (kp->secret_z85[0])
                zmq_z85_decode(es->sk, kp->secret_z85);
        if (!cfg->insecure && !strempty(cfg->enroll_endpoint) &&
            !streq(cfg->enroll_endpoint, "off")) {
                es->sock = zmq_socket(ctx, ZMQ_ROUTER);
                if (!es->sock) {
                        r = -errno;
                        enroll_srv_free(&es);
                        return r;
                }
        } else if (cfg->insecure)
                log_info("enrolment: off (insecure=true: there are no keys to enrol)");
        *ret = es;
        return 0;
}

void *enroll_srv_socket(enroll_srv_t *es)
{
        return es ? es->sock : NULL;
}

int enroll_srv_bind(enroll_srv_t *es, char *bound, size_t bound_len)
{
        const char *ep = es->cfg->enroll_endpoint;
        int64_t maxmsg = ENROLL_MAX_MSG;
        int one = 1, linger = 0, hwm = 1000, r;
        int handshake_ms = (int)(es->cfg->handshake_timeout_ns / NSEC_PER_MSEC);
        keypair_t kp = {};
        size_t len = bound_len;

        bound[0] = 0;
        if (!es->sock)
                return 0;
        if (strncmp(ep, "tcp://", 6) != 0 && strncmp(ep, "ipc://", 6) != 0)
                return log_error_errno(-EINVAL,
                                       "enroll_endpoint: '%s' is not a tcp:// or ipc:// endpoint "
                                       "(or off)",
                                       ep);
        zmq_setsockopt(es->sock, ZMQ_HANDSHAKE_IVL, &handshake_ms, sizeof(handshake_ms));
        zmq_setsockopt(es->sock, ZMQ_ROUTER_MANDATORY, &one, sizeof(one));
        zmq_setsockopt(es->sock, ZMQ_LINGER, &linger, sizeof(linger));
        zmq_setsockopt(es->sock, ZMQ_SNDHWM, &hwm, sizeof(hwm));
        zmq_setsockopt(es->sock, ZMQ_RCVHWM, &hwm, sizeof(hwm));
        zmq_setsockopt(es->sock, ZMQ_MAXMSGSIZE, &maxmsg, sizeof(maxmsg));
        zmq_z85_encode(kp.public_z85, es->pk, 32);
        zmq_z85_encode(kp.secret_z85, es->sk, 32);
        r = sock_curve_server(es->sock, &kp, ZAP_DOMAIN_ENROLL);
        memset(&kp, 0, sizeof(kp));
        if (r < 0)
                return log_error_errno(r, "%s: CURVE setup failed: %m", ep);
        if (zmq_bind(es->sock, ep) < 0) {
                /* Like /metrics: a coordinator whose enrolment port is taken still
                 * coordinates; iofleet enroll create then says there is no endpoint. */
                log_error_errno(-errno,
                                "cannot listen on %s (enroll_endpoint): %m; enrolment is off "
                                "until the coordinator is restarted with that port free",
                                ep);
                return 0;
        }
        zmq_getsockopt(es->sock, ZMQ_LAST_ENDPOINT, bound, &len);
        es->listening = true;
        return 0;
}

/* Logs a line about a refused peer: a few a minute per peer at most. */
static void log_refusal(enroll_srv_t *es, const char *peer, const char *fmt, ...) _printf_(3, 4);
static void log_refusal(enroll_srv_t *es, const char *peer, const char *fmt, ...)
{
        char line[1024], note[96];
        uint64_t held = 0;
        va_list ap;

        if (es->log_rl && !ratelimit_allow(es->log_rl, peer, clock_mono_ns(), &held))
                return;
        va_start(ap, fmt);
        vsnprintf(line, sizeof(line), fmt, ap);
        va_end(ap);
        log_warning("%s%s", line, ratelimit_held_note(held, note, sizeof(note)));
}

const char *enroll_srv_zap(enroll_srv_t *es, const uint8_t key[32], const char *address,
                           int64_t now_mono, char *user, size_t userlen)
{
        const enroll_token_rec_t *t;
        const char *why, *id;
        char peer[128];

        snprintf(peer, sizeof(peer), "enrolment from %s", address[0] ? address : "?");
        t = enroll_admits(es->store, key, clock_real_ns(), &why, &id);
        if (!t) {
                /* The token is never here to log: only its id, when it is one of ours. */
                if (id)
                        log_refusal(es, peer, "enrolment: refused %s: token %s is %s", address, id,
                                    why);
                else
                        log_refusal(es, peer,
                                    "enrolment: refused %s: not a token this coordinator issued "
                                    "(or one revoked)",
                                    address);
                return "400";
        }
        snprintf(user, userlen, "%s", t->id);
        return "200";
}

static void send_env(void *s, const char *peer, uint64_t *seq, envelope_t *e)
{
        e->seq = seq ? ++*seq : 0;
        sock_send_env(s, peer, e);
}

static void send_error(void *s, const char *peer, uint64_t *seq, Iofleet__ErrorCode code,
                       const char *msg)
{
        envelope_t e = IOFLEET__ENVELOPE__INIT;
        Iofleet__Error err = IOFLEET__ERROR__INIT;
        err.code = code;
        err.message = (char *)msg;
        err.run_id = "";
        e.body_case = IOFLEET__ENVELOPE__BODY_ERROR;
        e.error = &err;
        send_env(s, peer, seq, &e);
}

static void save(enroll_srv_t *es)
{
        char err[1024];
        if (enroll_save(es->store, err, sizeof(err)) < 0)
                log_error("enrolment: cannot save the token store: %s (kept in memory; a restart "
                          "forgets the changes)",
                          err);
}

/* "client,storage" as the reply's roles (pointers into buf). */
static size_t roles_split(char *buf, char **v, size_t max)
{
        size_t n = 0;
        for (char *save = NULL, *w = strtok_r(buf, ",", &save); w && n < max;
             w = strtok_r(NULL, ",", &save))
                v[n++] = w;
        return n;
}

static void on_request(enroll_srv_t *es, const sock_msg_t *m, const char *addr,
                       const Iofleet__EnrollRequest *req, keyring_t *const *allowed)
{
        int64_t now = clock_mono_ns();
        enroll_decision_t d;
        uint8_t token_key[32];
        char agent_z85[KEY_Z85_LEN + 1], err[1024], peer[128], roles[KEY_ROLES_LEN], *rv[2];
        envelope_t e = IOFLEET__ENVELOPE__INIT;
        Iofleet__EnrollReply rep = IOFLEET__ENROLL_REPLY__INIT;

        snprintf(peer, sizeof(peer), "enrolment from %s", addr);
        if (!keys_valid_z85(sock_msg_key(m)) || !zmq_z85_decode(token_key, sock_msg_key(m))) {
                send_error(es->sock, m->peer, NULL, IOFLEET__ERROR_CODE__ERROR_INTERNAL,
                           "the connection has no token key");
                return;
        }
        zmq_z85_encode(agent_z85, req->agent_key.data, 32);
        if (now >= es->next_flush) {
                /* Forgets quiet addresses. */
                ratelimit_flush(es->per_address, now, NULL, NULL);
                ratelimit_flush(es->admissions, now, NULL, NULL);
                es->next_flush = now + (int64_t)NSEC_PER_SEC;
        }
        /* Only token holders get here; a flood of theirs waits its turn (the agent retries). */
        if (!ratelimit_allow(es->per_address, addr, now, NULL) ||
            !ratelimit_allow(es->admissions, "all", now, NULL)) {
                char note[256];
                snprintf(note, sizeof(note),
                         "more than %d enrolment requests a minute from %s (or %d from all): "
                         "try again in a minute",
                         ENROLL_REQUESTS_PER_ADDRESS, addr, ENROLL_REQUESTS_PER_MINUTE);
                snprintf(peer, sizeof(peer), "enrolment throttle for %s", addr);
                log_refusal(es, peer, "enrolment: %s", note);
                send_error(es->sock, m->peer, NULL, IOFLEET__ERROR_CODE__ERROR_BUSY, note);
                return;
        }
        enroll_decide(es->store, *allowed, es->cfg->agent_keys_dir, token_key, req, es->sk, addr,
                      clock_real_ns(), &d);
        if (d.outcome == ENROLL_ADMIT &&
            keys_write_allowed(es->cfg->agent_keys_dir, d.name, agent_z85, d.roles, err,
                               sizeof(err)) < 0) {
                log_error("enrolment: cannot add agent %s to the allow-list: %s", d.name, err);
                enroll_give_back(es->store, token_key);
                d.outcome = ENROLL_REFUSED;
                d.code = IOFLEET__ERROR_CODE__ERROR_INTERNAL;
                snprintf(d.message, sizeof(d.message),
                         "the coordinator cannot write its allow-list (its log says why)");
        }
        save(es);
        switch (d.outcome) {
        case ENROLL_REFUSED:
                log_refusal(es, peer, "enrolment: refused agent '%s' (host %s, key %s) from %s: %s",
                            req->name, req->hostname, agent_z85, addr, d.message);
                send_error(es->sock, m->peer, NULL, d.code, d.message);
                return;
        case ENROLL_ADMIT:
                log_notice("enrolment: agent %s admitted (host %s, key %s, roles %s) from %s with "
                           "token %s",
                           d.name, req->hostname, agent_z85, d.roles[0] ? d.roles : "any", addr,
                           d.token_id);
                /* Re-read agents.d now: the agent's first handshake may already be on its way. */
                es->changed(es->userdata);
                break;
        case ENROLL_PENDING:
                if (d.consumed)
                        log_notice("enrolment: agent %s (host %s, key %s) from %s with token %s "
                                   "waits for approval: iofleet agents approve %s",
                                   d.name, req->hostname, agent_z85, addr, d.token_id, d.name);
                break;
        case ENROLL_ALREADY:
                log_info("enrolment: agent %s (key %s) from %s is on the allow-list already",
                         d.name, agent_z85, addr);
                break;
        }
        snprintf(roles, sizeof(roles), "%s", d.roles);
        rep.name = d.name;
        rep.pending = d.outcome == ENROLL_PENDING;
        rep.roles = rv;
        rep.n_roles = roles_split(roles, rv, ELEMENTSOF(rv));
        rep.coordinator_version = IOFLEET_VERSION;
        e.body_case = IOFLEET__ENVELOPE__BODY_ENROLL_REPLY;
        e.enroll_reply = &rep;
        send_env(es->sock, m->peer, NULL, &e);
}

void enroll_srv_on_readable(enroll_srv_t *es, keyring_t *const *allowed)
{
        /* Bounded batches: one busy endpoint must not starve the agents. */
        for (int i = 0; i < 100 && es->sock; i++) {
                sock_msg_t m;
                envelope_t *e = NULL;
                char err[512], peer[128];
                const char *addr;
                int r;

                if (sock_recv(es->sock, true, &m) < 0)
                        break;
                addr = sock_msg_addr(&m);
                if (!addr[0])
                        addr = "?";
                snprintf(peer, sizeof(peer), "enrolment from %s", addr);
                r = wire_decode(m.data, m.len, ENROLL_MAX_MSG, &e, err, sizeof(err));
                if (r < 0) {
                        log_refusal(es, peer, "enrolment: bad message from %s: %s", addr, err);
                        send_error(es->sock, m.peer, NULL,
                                   r == -EPROTO ? IOFLEET__ERROR_CODE__ERROR_PROTOCOL_VERSION
                                                : IOFLEET__ERROR_CODE__ERROR_BAD_MESSAGE,
                                   err);
                } else if (e->body_case != IOFLEET__ENVELOPE__BODY_ENROLL_REQUEST) {
                        log_refusal(es, peer,
                                    "enrolment: %s from %s refused: only enrol "
                                    "requests are taken on the enrolment endpoint",
                                    wire_body_name(e), addr);
                        send_error(es->sock, m.peer, NULL, IOFLEET__ERROR_CODE__ERROR_BAD_MESSAGE,
                                   "only enroll_request is taken on the enrolment endpoint");
                } else
                        on_request(es, &m, addr, e->enroll_request, allowed);
                wire_free(&e);
                sock_msg_done(&m);
        }
}

/* --- the CLI's commands -------------------------------------------------------------------- */

static void reply_done(void *s, const char *peer, uint64_t *seq, const char *msg)
{
        envelope_t e = IOFLEET__ENVELOPE__INIT;
        Iofleet__EnrollActionDone d = IOFLEET__ENROLL_ACTION_DONE__INIT;
        d.message = (char *)msg;
        e.body_case = IOFLEET__ENVELOPE__BODY_ENROLL_ACTION_DONE;
        e.enroll_action_done = &d;
        send_env(s, peer, seq, &e);
}

static void on_create(enroll_srv_t *es, void *s, const char *peer, uint64_t *seq,
                      const Iofleet__EnrollCreate *c, const char *who)
{
        const enroll_token_rec_t *t;
        char text[ENROLL_TOKEN_TEXT_LEN + 1], err[512];
        envelope_t e = IOFLEET__ENVELOPE__INIT;
        Iofleet__EnrollToken tok = IOFLEET__ENROLL_TOKEN__INIT;
        int r;

        if (!es->listening) {
                send_error(s, peer, seq, IOFLEET__ERROR_CODE__ERROR_REFUSED,
                           es->cfg->insecure
                               ? "enrolment needs CURVE: this coordinator runs with insecure=true"
                           : es->sock ? "this coordinator could not listen on its enroll_endpoint "
                                        "(its log says why)"
                                      : "this coordinator has no enrolment endpoint (enroll_endpoint "
                                        "= off in its config)");
                return;
        }
        r = enroll_create(es->store, es->pk, c, clock_real_ns(), text, sizeof(text), &t, err,
                          sizeof(err));
        if (r < 0) {
                send_error(s, peer, seq,
                           r == -EINVAL ? IOFLEET__ERROR_CODE__ERROR_BAD_MESSAGE
                                        : IOFLEET__ERROR_CODE__ERROR_REFUSED,
                           err);
                return;
        }
        save(es);
        {
                time_t until = (time_t)(t->expires / (int64_t)NSEC_PER_SEC);
                struct tm tm;
                gmtime_r(&until, &tm);
                strftime(err, sizeof(err), "%Y-%m-%dT%H:%M:%SZ", &tm);
        }
        log_notice("enrolment: token %s made by %s: %u enrolment(s), roles %s, until %s%s%s%s",
                   t->id, who, t->count, t->roles[0] ? t->roles : "any", err,
                   t->prefix[0] ? ", names prefixed " : "", t->prefix,
                   t->approve ? ", each waits for approval" : "");
        tok.token = text;
        tok.id = (char *)t->id;
        tok.expires_at_ns = t->expires;
        tok.count = t->count;
        e.body_case = IOFLEET__ENVELOPE__BODY_ENROLL_TOKEN;
        e.enroll_token = &tok;
        send_env(s, peer, seq, &e);
        memset(text, 0, sizeof(text));
}

static void on_action(enroll_srv_t *es, void *s, const char *peer, uint64_t *seq,
                      const Iofleet__EnrollAction *a, const char *who)
{
        const char *name = a->name;
        const enroll_pending_t *p;
        char msg[1024], err[1024], path[4096], z[KEY_Z85_LEN + 1];

        if (a->kind != IOFLEET__ENROLL_ACTION__KIND__KIND_REVOKE_TOKEN && !keys_name_ok(name)) {
                snprintf(msg, sizeof(msg),
                         "'%s' is not an agent name (1-64 of A-Z a-z 0-9 . _ - not starting "
                         "with '.')",
                         name);
                send_error(s, peer, seq, IOFLEET__ERROR_CODE__ERROR_NOT_FOUND, msg);
                return;
        }
        switch (a->kind) {
        case IOFLEET__ENROLL_ACTION__KIND__KIND_APPROVE:
                if (!(p = enroll_pending_find(es->store, name))) {
                        snprintf(msg, sizeof(msg),
                                 "no enrolment of '%s' waits for approval (iofleet agents "
                                 "--pending lists them)",
                                 name);
                        send_error(s, peer, seq, IOFLEET__ERROR_CODE__ERROR_NOT_FOUND, msg);
                        return;
                }
                zmq_z85_encode(z, p->key, 32);
                if (keys_write_allowed(es->cfg->agent_keys_dir, name, z, p->roles, err,
                                       sizeof(err)) < 0) {
                        snprintf(msg, sizeof(msg), "cannot approve %s: %s", name, err);
                        send_error(s, peer, seq, IOFLEET__ERROR_CODE__ERROR_INTERNAL, msg);
                        return;
                }
                log_notice("enrolment: agent %s (key %s) approved by %s", name, z, who);
                enroll_pending_remove(es->store, name);
                save(es);
                es->changed(es->userdata);
                snprintf(msg, sizeof(msg), "%s approved: it joins at its next attempt", name);
                break;
        case IOFLEET__ENROLL_ACTION__KIND__KIND_REVOKE:
                if (enroll_pending_find(es->store, name)) {
                        enroll_pending_remove(es->store, name);
                        save(es);
                        log_notice("enrolment: pending agent %s refused by %s", name, who);
                        snprintf(msg, sizeof(msg), "the pending enrolment of %s is refused", name);
                        break;
                }
                snprintf(path, sizeof(path), "%s/%s.pub", es->cfg->agent_keys_dir, name);
                if (unlink(path) < 0) {
                        int r = errno;
                        snprintf(msg, sizeof(msg), "%s: %s%s", path, strerror(r),
                                 r == ENOENT ? " (no such agent key; iofleet agents lists the "
                                               "agents)"
                                             : "");
                        send_error(s, peer, seq,
                                   r == ENOENT ? IOFLEET__ERROR_CODE__ERROR_NOT_FOUND
                                               : IOFLEET__ERROR_CODE__ERROR_INTERNAL,
                                   msg);
                        return;
                }
                log_notice("enrolment: agent %s's key revoked by %s", name, who);
                /* Re-reading agents.d drops the key's session, as on SIGHUP. */
                es->changed(es->userdata);
                snprintf(msg, sizeof(msg),
                         "%s's key left the allow-list (%s removed); its session is dropped", name,
                         path);
                break;
        case IOFLEET__ENROLL_ACTION__KIND__KIND_REVOKE_TOKEN:
                if (enroll_token_remove(es->store, name) < 0) {
                        snprintf(msg, sizeof(msg),
                                 "no token %s (iofleet enroll list shows the tokens)", name);
                        send_error(s, peer, seq, IOFLEET__ERROR_CODE__ERROR_NOT_FOUND, msg);
                        return;
                }
                save(es);
                log_notice("enrolment: token %s revoked by %s", name, who);
                snprintf(msg, sizeof(msg), "token %s revoked: it admits nobody from now on", name);
                break;
        default:
                send_error(s, peer, seq, IOFLEET__ERROR_CODE__ERROR_BAD_MESSAGE, "unknown action");
                return;
        }
        reply_done(s, peer, seq, msg);
}

bool enroll_srv_on_control(enroll_srv_t *es, void *control_sock, const char *peer, uint64_t *seq,
                           const envelope_t *e, const char *who)
{
        switch (e->body_case) {
        case IOFLEET__ENVELOPE__BODY_ENROLL_CREATE:
                on_create(es, control_sock, peer, seq, e->enroll_create, who);
                return true;
        case IOFLEET__ENVELOPE__BODY_ENROLL_QUERY: {
                envelope_t rep = IOFLEET__ENVELOPE__INIT;
                Iofleet__EnrollState st;
                if (enroll_state(es->store, clock_real_ns(), &st) < 0) {
                        send_error(control_sock, peer, seq, IOFLEET__ERROR_CODE__ERROR_INTERNAL,
                                   "out of memory");
                        return true;
                }
                rep.body_case = IOFLEET__ENVELOPE__BODY_ENROLL_STATE;
                rep.enroll_state = &st;
                send_env(control_sock, peer, seq, &rep);
                enroll_state_done(&st);
                save(es);
                return true;
        }
        case IOFLEET__ENVELOPE__BODY_ENROLL_ACTION:
                on_action(es, control_sock, peer, seq, e->enroll_action, who);
                return true;
        default:
                return false;
        }
}

void enroll_srv_free(enroll_srv_t **esp)
{
        enroll_srv_t *es = *esp;
        if (!es)
                return;
        if (es->sock)
                zmq_close(es->sock);
        enroll_free(&es->store);
        ratelimit_free(&es->per_address);
        ratelimit_free(&es->admissions);
        memset(es->sk, 0, sizeof(es->sk));
        free(es);
        *esp = NULL;
}
