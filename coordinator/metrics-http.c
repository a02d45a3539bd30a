/* The /metrics HTTP server: a libmicrohttpd thread that serves the snapshot the coordinator loop
 * renders (metrics-render.c, with the totals of metrics-totals.c) when a scrape asks for one. */
#include "metrics.h"

#include <arpa/inet.h>
#include <errno.h>
#include <microhttpd.h>
#include <netdb.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "log.h"
#include "metrics-totals.h"
#include "web-state.h"
#include "web.h"
#include "util.h"

/* How long a scrape waits for the coordinator loop to render; then it gets the last snapshot. */
#define METRICS_WAIT_S 2
#define METRICS_CONTENT_TYPE "text/plain; version=0.0.4; charset=utf-8"

struct metrics {
        struct MHD_Daemon *daemon;
        uint16_t port;
        pthread_mutex_t lock;    /* guards text, len, gen and wanted: the HTTP thread uses them */
        pthread_cond_t rendered; /* after each rendering */
        char *text;
        size_t len;
        char *json; /* /api/state, rendered with text */
        size_t json_len;
        char *results_dir;      /* what /api/runs lists and /results/ serves; NULL: nothing */
        uint64_t gen;           /* renderings so far */
        bool wanted;            /* a scrape waits for a rendering */
        bool rendering;         /* one is under way: it read the state before a new request */
        int wake_fd;            /* eventfd, readable while wanted: wakes the coordinator loop */
        metrics_tally_t *tally; /* counts across runs */
        metrics_alert_t *alerts;
        size_t n_alerts;
};

/* --- the snapshot, rendered by the coordinator loop ------------------------------------ */

/* Asks the coordinator loop for a rendering (lock held); the ticket is the generation that
 * answers it. A rendering under way may have read the state before the request: the one after
 * it answers. */
static uint64_t want_locked(metrics_t *m)
{
        if (!m->wanted) {
                m->wanted = true;
                if (m->wake_fd >= 0)
                        (void)eventfd_write(m->wake_fd, 1);
        }
        return m->gen + 1 + m->rendering;
}

uint64_t metrics_want(metrics_t *m)
{
        uint64_t ticket;
        pthread_mutex_lock(&m->lock);
        ticket = want_locked(m);
        pthread_mutex_unlock(&m->lock);
        return ticket;
}

bool metrics_answered(metrics_t *m, uint64_t ticket)
{
        bool done;
        pthread_mutex_lock(&m->lock);
        done = m->gen >= ticket;
        pthread_mutex_unlock(&m->lock);
        return done;
}

int metrics_fd(const metrics_t *m)
{
        return m ? m->wake_fd : -1;
}

void metrics_update(metrics_t *m, registry_t *reg, const coord_run_t *const *runs, size_t n_runs)
{
        bool finished = false, wanted;
        metrics_input_t in = {};
        const char *folded[METRICS_TALLY_FOLDED];
        const metrics_totals_t **totals = NULL;
        char *text = NULL, *json = NULL;
        size_t len = 0, json_len = 0;

        for (size_t r = 0; m && r < n_runs; r++)
                finished |= run_done(runs[r]) && !metrics_tally_folded(m->tally, runs[r]->id);
        if (!m)
                return;
        pthread_mutex_lock(&m->lock);
        wanted = m->wanted;
        if (wanted && m->wake_fd >= 0) {
                eventfd_t v;
                (void)eventfd_read(m->wake_fd, &v);
        }
        m->wanted = false;
        m->rendering = wanted || finished;
        pthread_mutex_unlock(&m->lock);
        if (!wanted && !finished)
                return;
        if (metrics_tally_track(m->tally, runs, n_runs) < 0) {
                /* The scrape gets the last snapshot now rather than at its timeout. */
                log_warning("metrics: out of memory: the snapshot is not updated");
        } else {
                totals = metrics_tally_input(m->tally, runs, n_runs, folded, &in);
                in.reg = reg;
                in.runs = runs;
                in.n_runs = n_runs;
                in.alerts = m->alerts;
                in.n_alerts = m->n_alerts;
                if (metrics_render(&in, &text, &len) < 0 ||
                    web_state_render(&in, &json, &json_len) < 0)
                        log_warning("metrics: out of memory: the snapshot is not updated");
                free(totals);
        }
        pthread_mutex_lock(&m->lock);
        if (text) {
                free(m->text);
                m->text = text;
                m->len = len;
        }
        if (json) {
                free(m->json);
                m->json = json;
                m->json_len = json_len;
        }
        m->gen++;
        m->rendering = false;
        pthread_cond_broadcast(&m->rendered);
        pthread_mutex_unlock(&m->lock);
}

int metrics_set_alerts(metrics_t *m, const metrics_alert_t *alerts, size_t n)
{
        metrics_alert_t *a = NULL;
        if (n) {
                a = malloc(n * sizeof(*a));
                if (!a)
                        return -ENOMEM;
                memcpy(a, alerts, n * sizeof(*a));
        }
        free(m->alerts);
        m->alerts = a;
        m->n_alerts = n;
        return 0;
}

char *metrics_snapshot(metrics_t *m)
{
        char *s = NULL;
        pthread_mutex_lock(&m->lock);
        if (m->text)
                s = strdup(m->text);
        pthread_mutex_unlock(&m->lock);
        return s;
}

/* --- HTTP ------------------------------------------------------------------------------ */

int metrics_set_results_dir(metrics_t *m, const char *dir)
{
        char *d = dir ? strdup(dir) : NULL;
        if (dir && !d)
                return -ENOMEM;
        free(m->results_dir);
        m->results_dir = d;
        return 0;
}

/* What every answer carries: nothing sniffed, nothing framed, and (for the page) nothing loaded
 * from anywhere but here. */
static void secure(struct MHD_Response *resp, const char *csp)
{
        MHD_add_response_header(resp, "X-Content-Type-Options", "nosniff");
        MHD_add_response_header(resp, "X-Frame-Options", "DENY");
        MHD_add_response_header(resp, "Content-Security-Policy", csp);
}

#define CSP_PAGE                                                                                   \
        "default-src 'self'; img-src 'self'; object-src 'none'; base-uri 'none'; "                 \
        "frame-ancestors 'none'"
/* Files of the results directory are shown, never run: no script in a plot. */
#define CSP_FILE "default-src 'none'; style-src 'unsafe-inline'; sandbox"

static enum MHD_Result send_resp(struct MHD_Connection *c, unsigned status,
                                 struct MHD_Response *resp, const char *type, const char *csp)
{
        enum MHD_Result ret;
        if (!resp)
                return MHD_NO;
        MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, type);
        secure(resp, csp);
        if (status == MHD_HTTP_METHOD_NOT_ALLOWED)
                MHD_add_response_header(resp, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
        ret = MHD_queue_response(c, status, resp);
        MHD_destroy_response(resp);
        return ret;
}

static enum MHD_Result reply_as(struct MHD_Connection *c, unsigned status, const char *text,
                                size_t len, bool copy, const char *type)
{
        return send_resp(
            c, status,
            MHD_create_response_from_buffer(len, (void *)text,
                                            copy ? MHD_RESPMEM_MUST_COPY : MHD_RESPMEM_PERSISTENT),
            type, CSP_PAGE);
}

static enum MHD_Result reply(struct MHD_Connection *c, unsigned status, const char *text,
                             size_t len, bool copy)
{
        return reply_as(c, status, text, len, copy,
                        status == MHD_HTTP_OK ? METRICS_CONTENT_TYPE : "text/plain; charset=utf-8");
}

#define FAIL(c, status, msg) reply(c, status, msg, sizeof(msg) - 1, false)

/* Waits (lock held) up to METRICS_WAIT_S for the coordinator loop's next rendering. The request
 * and the generation it waits for are taken under one lock: asked for apart, a rendering that
 * ran between them answered the request but not the wait, which then waited the whole
 * METRICS_WAIT_S for a rendering nobody had asked for (and, the HTTP thread being one, held the
 * next scrape too: Prometheus's 1 s timeout failed two scrapes in a row in CI). */
static void wait_rendering(metrics_t *m)
{
        uint64_t want = want_locked(m);
        struct timespec until;

        clock_gettime(CLOCK_MONOTONIC, &until);
        until.tv_sec += METRICS_WAIT_S;
        while (m->gen < want && pthread_cond_timedwait(&m->rendered, &m->lock, &until) == 0)
                ;
}

/* /metrics or /api/state: a fresh rendering from the coordinator loop (rendering thousands of
 * agents' series costs it nothing while nobody asks). */
static enum MHD_Result reply_snapshot(metrics_t *m, struct MHD_Connection *c, bool json)
{
        enum MHD_Result ret;
        pthread_mutex_lock(&m->lock);
        wait_rendering(m);
        if (json && m->json) {
                struct MHD_Response *resp =
                    MHD_create_response_from_buffer(m->json_len, m->json, MHD_RESPMEM_MUST_COPY);
                if (resp)
                        MHD_add_response_header(resp, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
                ret = send_resp(c, MHD_HTTP_OK, resp, "application/json", CSP_PAGE);
        } else if (!json && m->text)
                ret = reply(c, MHD_HTTP_OK, m->text, m->len, true);
        else
                ret = FAIL(c, MHD_HTTP_SERVICE_UNAVAILABLE,
                           "no snapshot yet: try again in a second\n");
        pthread_mutex_unlock(&m->lock);
        return ret;
}

static enum MHD_Result reply_runs(metrics_t *m, struct MHD_Connection *c)
{
        char *text = NULL;
        size_t len = 0;
        enum MHD_Result ret;
        int r = m->results_dir ? web_runs_json(m->results_dir, &text, &len) : 0;

        if (r < 0)
                return FAIL(c, MHD_HTTP_INTERNAL_SERVER_ERROR,
                            "cannot list the results directory\n");
        if (!text)
                return reply_as(c, MHD_HTTP_OK, "[]", 2, false, "application/json");
        ret = send_resp(c, MHD_HTTP_OK,
                        MHD_create_response_from_buffer(len, text, MHD_RESPMEM_MUST_FREE),
                        "application/json", CSP_PAGE);
        return ret;
}

static enum MHD_Result reply_result(metrics_t *m, struct MHD_Connection *c, const char *rest)
{
        const char *type = NULL;
        uint64_t size = 0;
        int fd = -1, r;
        struct MHD_Response *resp;

        r = m->results_dir ? web_result_open(m->results_dir, rest, &fd, &size, &type) : -ENOENT;
        if (r == -EINVAL)
                return FAIL(c, MHD_HTTP_NOT_FOUND,
                            "not found: /results/RUN/ serves result.json, intervals.csv and "
                            "plots/NAME.svg\n");
        if (r < 0)
                return FAIL(c, MHD_HTTP_NOT_FOUND, "not found\n");
        resp = MHD_create_response_from_fd64(size, fd); /* takes fd */
        if (!resp) {
                close(fd);
                return MHD_NO;
        }
        return send_resp(c, MHD_HTTP_OK, resp, type, CSP_FILE);
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
                                  const char *method, const char *version, const char *upload_data,
                                  size_t *upload_data_size, void **req_cls)
{
        static int first;
        metrics_t *m = cls;
        const web_asset_t *asset = NULL;
        bool metrics = false, state = false, runs = false, result = false;

        /* The first call only announces the request; a body, if any, is ignored. */
        if (!*req_cls) {
                *req_cls = &first;
                return MHD_YES;
        }
        if (*upload_data_size) {
                *upload_data_size = 0;
                return MHD_YES;
        }
        metrics = streq(url, "/metrics");
        state = streq(url, "/api/state");
        runs = streq(url, "/api/runs");
        result = strncmp(url, "/results/", 9) == 0;
        if (!metrics && !state && !runs && !result && !(asset = web_asset(url)))
                return FAIL(c, MHD_HTTP_NOT_FOUND,
                            "not found: / (the live page), /metrics, /api/state, /api/runs and "
                            "/results/ are served here\n");
        if (!streq(method, MHD_HTTP_METHOD_GET) && !streq(method, MHD_HTTP_METHOD_HEAD))
                return FAIL(c, MHD_HTTP_METHOD_NOT_ALLOWED, "method not allowed: use GET\n");
        if (metrics || state)
                return reply_snapshot(m, c, state);
        if (runs)
                return reply_runs(m, c);
        if (result)
                return reply_result(m, c, url + 9);
        return reply_as(c, MHD_HTTP_OK, (const char *)asset->data, asset->len, false, asset->type);
}

/* "HOST:PORT" or "[V6]:PORT" into an address; "*" as host means every address. */
static int parse_listen(const char *listen, struct sockaddr_storage *ss, socklen_t *sslen)
{
        char host[256], *colon;
        const char *port;
        struct addrinfo hints = {.ai_socktype = SOCK_STREAM,
                                 .ai_flags = AI_PASSIVE | AI_NUMERICSERV},
                        *ai = NULL;
        unsigned long p;
        char *end;

        if (listen[0] == '[') {
                const char *close = strchr(listen, ']');
                if (!close || close[1] != ':' || (size_t)(close - listen - 1) >= sizeof(host))
                        return -EINVAL;
                snprintf(host, sizeof(host), "%.*s", (int)(close - listen - 1), listen + 1);
                port = close + 2;
                hints.ai_flags |= AI_NUMERICHOST;
        } else {
                if (strlen(listen) >= sizeof(host))
                        return -EINVAL;
                snprintf(host, sizeof(host), "%s", listen);
                colon = strrchr(host, ':');
                if (!colon || strchr(host, ':') != colon)
                        return -EINVAL;
                *colon = 0;
                port = listen + (colon - host) + 1;
        }
        errno = 0;
        p = strtoul(port, &end, 10);
        if (!*port || *end || errno || p > 65535 || !host[0])
                return -EINVAL;
        if (getaddrinfo(streq(host, "*") ? NULL : host, port, &hints, &ai) != 0 || !ai)
                return -EINVAL;
        memcpy(ss, ai->ai_addr, ai->ai_addrlen);
        *sslen = ai->ai_addrlen;
        freeaddrinfo(ai);
        return 0;
}

static bool is_loopback(const struct sockaddr_storage *ss)
{
        if (ss->ss_family == AF_INET)
                return (ntohl(((const struct sockaddr_in *)ss)->sin_addr.s_addr) >> 24) == 127;
        if (ss->ss_family == AF_INET6) {
                const struct in6_addr *a = &((const struct sockaddr_in6 *)ss)->sin6_addr;
                return IN6_IS_ADDR_LOOPBACK(a) ||
                       (IN6_IS_ADDR_V4MAPPED(a) && a->s6_addr[12] == 127);
        }
        return false;
}

int metrics_new(const char *listen, unsigned max_connections, metrics_t **ret)
{
        struct sockaddr_storage ss = {};
        socklen_t sslen = 0;
        const union MHD_DaemonInfo *info;
        unsigned flags = MHD_USE_AUTO_INTERNAL_THREAD;
        metrics_t *m;
        int r;

        if (!listen || !listen[0] || streq(listen, "off")) {
                *ret = NULL;
                return 0;
        }
        if (parse_listen(listen, &ss, &sslen) < 0) {
                log_error("metrics_listen: '%s' is not HOST:PORT ([V6]:PORT for IPv6, PORT "
                          "0..65535), nor 'off'",
                          listen);
                return -EINVAL;
        }
        if (!is_loopback(&ss))
                log_notice("metrics_listen=%s: /metrics is served without authentication to "
                           "anyone who can reach that address",
                           listen);
        m = calloc(1, sizeof(*m));
        if (!m)
                return -ENOMEM;
        if (metrics_tally_new(&m->tally) < 0) {
                free(m);
                return -ENOMEM;
        }
        pthread_mutex_init(&m->lock, NULL);
        {
                pthread_condattr_t ca;
                pthread_condattr_init(&ca);
                pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
                pthread_cond_init(&m->rendered, &ca);
                pthread_condattr_destroy(&ca);
        }
        m->wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
        if (m->wake_fd < 0) {
                r = -errno;
                pthread_cond_destroy(&m->rendered);
                pthread_mutex_destroy(&m->lock);
                metrics_tally_free(&m->tally);
                free(m);
                return r;
        }
        if (ss.ss_family == AF_INET6)
                flags |= MHD_USE_IPv6;
        /* Scrapers are few and quick. Idle connections are closed after a few seconds, no
         * address holds more than half the connections (so one flooding host leaves room for
         * the scraper), and the limit stays within the descriptors the coordinator set aside;
         * epoll (MHD_USE_AUTO picks it) serves descriptors beyond FD_SETSIZE. */
        if (max_connections < 2)
                max_connections = 2;
        m->daemon = MHD_start_daemon(flags, 0, NULL, NULL, on_request, m, MHD_OPTION_SOCK_ADDR,
                                     (struct sockaddr *)&ss, MHD_OPTION_CONNECTION_LIMIT,
                                     max_connections, MHD_OPTION_PER_IP_CONNECTION_LIMIT,
                                     max_connections / 2, MHD_OPTION_CONNECTION_TIMEOUT,
                                     (unsigned)METRICS_IDLE_TIMEOUT_S, MHD_OPTION_END);
        if (!m->daemon) {
                r = errno ? -errno : -EADDRINUSE;
                metrics_free(&m);
                return r;
        }
        info = MHD_get_daemon_info(m->daemon, MHD_DAEMON_INFO_BIND_PORT);
        m->port = info ? info->port : 0;
        *ret = m;
        return 0;
}

uint16_t metrics_port(const metrics_t *m)
{
        return m ? m->port : 0;
}

void metrics_free(metrics_t **mp)
{
        metrics_t *m = *mp;
        if (!m)
                return;
        if (m->daemon)
                MHD_stop_daemon(m->daemon);
        pthread_mutex_destroy(&m->lock);
        pthread_cond_destroy(&m->rendered);
        if (m->wake_fd >= 0)
                close(m->wake_fd);
        free(m->text);
        free(m->json);
        free(m->results_dir);
        free(m->alerts);
        metrics_tally_free(&m->tally);
        free(m);
        *mp = NULL;
}
