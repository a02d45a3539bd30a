/* Enrolment on the coordinator: the tokens it issued (kept as the public keys derived from them,
 * never the tokens), the enrolments waiting for approval, and the decision on each request. */
#include "enroll.h"

#include <errno.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <zmq.h>

#include "enroll-token.h"
#include "util.h"

struct enroll {
        char *path;
        enroll_token_rec_t *tokens;
        size_t n_tokens;
        enroll_pending_t *pending;
        size_t n_pending;
        bool dirty;
};

#define STORE_VERSION 1

int enroll_roles_norm(char *const *roles, size_t n, char *out, size_t outlen, char *err,
                      size_t errlen)
{
        bool storage = false, client = false;
        for (size_t i = 0; i < n; i++) {
                /* "client,storage" in one element too, as a CLI option gives it. */
                char copy[64];
                snprintf(copy, sizeof(copy), "%s", roles[i]);
                for (char *save = NULL, *w = strtok_r(copy, ", ", &save); w;
                     w = strtok_r(NULL, ", ", &save)) {
                        if (streq(w, "storage"))
                                storage = true;
                        else if (streq(w, "client"))
                                client = true;
                        else
                                return errorf(err, errlen, -EINVAL,
                                              "role '%.64s': allowed: storage, client", w);
                }
                if (strlen(roles[i]) >= sizeof(copy))
                        return errorf(err, errlen, -EINVAL, "roles: '%.64s...' is too long",
                                      roles[i]);
        }
        snprintf(out, outlen, "%s%s%s", client ? "client" : "", client && storage ? "," : "",
                 storage ? "storage" : "");
        return 0;
}

bool enroll_roles_allowed(const char *allowed, char *const *roles, size_t n, char *err,
                          size_t errlen)
{
        if (strempty(allowed))
                return true;
        for (size_t i = 0; i < n; i++) {
                char copy[KEY_ROLES_LEN];
                bool ok = false;
                snprintf(copy, sizeof(copy), "%s", allowed);
                for (char *save = NULL, *w = strtok_r(copy, ",", &save); w && !ok;
                     w = strtok_r(NULL, ",", &save))
                        ok = streq(w, roles[i]);
                if (!ok) {
                        errorf(err, errlen, 0, "role '%.64s' is not granted (only %s)", roles[i],
                               allowed);
                        return false;
                }
        }
        return true;
}

/* --- the store on disk ------------------------------------------------------------------- */

static int bad(char *err, size_t errlen, const char *path, const char *what)
{
        return errorf(err, errlen, -EINVAL,
                      "%s: %s (the enrolment store is written by the coordinator only; move it "
                      "away to start with no tokens and no pending enrolments)",
                      path, what);
}

static bool get_str(json_t *o, const char *k, char *dst, size_t len, bool required)
{
        json_t *v = json_object_get(o, k);
        if (!v)
                return !required ? (dst[0] = 0, true) : false;
        if (!json_is_string(v) || json_string_length(v) >= len)
                return false;
        memcpy(dst, json_string_value(v), json_string_length(v) + 1);
        return true;
}

static bool get_key(json_t *o, const char *k, uint8_t key[32])
{
        char z85[KEY_Z85_LEN + 1];
        return get_str(o, k, z85, sizeof(z85), true) && keys_valid_z85(z85) &&
               zmq_z85_decode(key, z85);
}

static bool get_int(json_t *o, const char *k, int64_t min, int64_t max, int64_t *v)
{
        json_t *j = json_object_get(o, k);
        if (!json_is_integer(j) || json_integer_value(j) < min || json_integer_value(j) > max)
                return false;
        *v = json_integer_value(j);
        return true;
}

static bool roles_ok(const char *roles)
{
        return streq(roles, "") || streq(roles, "client") || streq(roles, "storage") ||
               streq(roles, "client,storage");
}

static int load(enroll_t *e, char *err, size_t errlen)
{
        json_error_t je;
        json_t *doc, *arr, *o;
        size_t i;
        int64_t v;
        int r = 0;

        doc = json_load_file(e->path, JSON_REJECT_DUPLICATES, &je);
        if (!doc) {
                struct stat st;
                if (stat(e->path, &st) < 0 && errno == ENOENT)
                        return 0;
                return errorf(err, errlen, -EINVAL, "%s:%d: %s", e->path, je.line, je.text);
        }
        if (!get_int(doc, "version", STORE_VERSION, STORE_VERSION, &v)) {
                r = bad(err, errlen, e->path, "no \"version\": 1");
                goto out;
        }
        arr = json_object_get(doc, "tokens");
        if (arr && (!json_is_array(arr) || json_array_size(arr) > 4 * ENROLL_MAX_TOKENS)) {
                r = bad(err, errlen, e->path, "\"tokens\" is not an array of tokens");
                goto out;
        }
        e->tokens = calloc(json_array_size(arr) + 1, sizeof(*e->tokens));
        if (!e->tokens) {
                r = -ENOMEM;
                goto out;
        }
        json_array_foreach(arr, i, o) {
                enroll_token_rec_t *t = &e->tokens[e->n_tokens];
                int64_t count, used;
                json_t *ap = json_object_get(o, "approve");
                if (!get_str(o, "id", t->id, sizeof(t->id), true) ||
                    !get_key(o, "key", t->key) ||
                    !get_str(o, "roles", t->roles, sizeof(t->roles), false) ||
                    !roles_ok(t->roles) || !get_int(o, "count", 1, ENROLL_MAX_COUNT, &count) ||
                    !get_int(o, "used", 0, count, &used) ||
                    !get_int(o, "created", 0, INT64_MAX, &t->created) ||
                    !get_int(o, "expires", 0, INT64_MAX, &t->expires) ||
                    !get_str(o, "prefix", t->prefix, sizeof(t->prefix), false) ||
                    (t->prefix[0] && !keys_name_ok(t->prefix)) || (ap && !json_is_boolean(ap))) {
                        char what[64];
                        snprintf(what, sizeof(what), "token %zu is malformed", i + 1);
                        r = bad(err, errlen, e->path, what);
                        goto out;
                }
                t->count = (uint32_t)count;
                t->used = (uint32_t)used;
                t->approve = json_is_true(ap);
                e->n_tokens++;
        }
        arr = json_object_get(doc, "pending");
        if (arr && (!json_is_array(arr) || json_array_size(arr) > ENROLL_MAX_PENDING)) {
                r = bad(err, errlen, e->path, "\"pending\" is not an array of enrolments");
                goto out;
        }
        e->pending = calloc(json_array_size(arr) + 1, sizeof(*e->pending));
        if (!e->pending) {
                r = -ENOMEM;
                goto out;
        }
        json_array_foreach(arr, i, o) {
                enroll_pending_t *p = &e->pending[e->n_pending];
                if (!get_str(o, "name", p->name, sizeof(p->name), true) ||
                    !keys_name_ok(p->name) || !get_key(o, "key", p->key) ||
                    !get_str(o, "hostname", p->hostname, sizeof(p->hostname), false) ||
                    !get_str(o, "roles", p->roles, sizeof(p->roles), false) ||
                    !roles_ok(p->roles) ||
                    !get_str(o, "address", p->address, sizeof(p->address), false) ||
                    !get_int(o, "requested", 0, INT64_MAX, &p->requested) ||
                    !get_str(o, "token", p->token_id, sizeof(p->token_id), false)) {
                        char what[64];
                        snprintf(what, sizeof(what), "pending enrolment %zu is malformed", i + 1);
                        r = bad(err, errlen, e->path, what);
                        goto out;
                }
                e->n_pending++;
        }
out:
        json_decref(doc);
        return r;
}

int enroll_open(const char *path, enroll_t **ret, char *err, size_t errlen)
{
        enroll_t *e = calloc(1, sizeof(*e));
        int r;

        if (!e || !(e->path = strdup(path))) {
                free(e);
                return -ENOMEM;
        }
        if ((r = load(e, err, errlen)) < 0) {
                enroll_free(&e);
                return r;
        }
        *ret = e;
        return 0;
}

void enroll_free(enroll_t **ep)
{
        enroll_t *e = *ep;
        if (!e)
                return;
        free(e->path);
        free(e->tokens);
        free(e->pending);
        free(e);
        *ep = NULL;
}

static void z85(const uint8_t key[32], char out[KEY_Z85_LEN + 1])
{
        zmq_z85_encode(out, key, 32);
}

int enroll_save(enroll_t *e, char *err, size_t errlen)
{
        json_t *doc, *tokens, *pending;
        char *text;
        int r;

        if (!e->dirty)
                return 0;
        doc = json_object();
        tokens = json_array();
        pending = json_array();
        json_object_set_new(doc, "version", json_integer(STORE_VERSION));
        json_object_set_new(doc, "tokens", tokens);
        json_object_set_new(doc, "pending", pending);
        for (size_t i = 0; i < e->n_tokens; i++) {
                const enroll_token_rec_t *t = &e->tokens[i];
                char k[KEY_Z85_LEN + 1];
                z85(t->key, k);
                json_array_append_new(
                    tokens, json_pack("{s:s, s:s, s:s, s:I, s:I, s:I, s:I, s:s, s:b}", "id", t->id,
                                      "key", k, "roles", t->roles, "count", (json_int_t)t->count,
                                      "used", (json_int_t)t->used, "created",
                                      (json_int_t)t->created, "expires", (json_int_t)t->expires,
                                      "prefix", t->prefix, "approve", t->approve));
        }
        for (size_t i = 0; i < e->n_pending; i++) {
                const enroll_pending_t *p = &e->pending[i];
                char k[KEY_Z85_LEN + 1];
                z85(p->key, k);
                json_array_append_new(
                    pending, json_pack("{s:s, s:s, s:s, s:s, s:s, s:I, s:s}", "name", p->name,
                                       "key", k, "hostname", p->hostname, "roles", p->roles,
                                       "address", p->address, "requested",
                                       (json_int_t)p->requested, "token", p->token_id));
        }
        text = json_dumps(doc, JSON_INDENT(2));
        json_decref(doc);
        if (!text)
                return errorf(err, errlen, -ENOMEM, "out of memory");
        /* Token keys admit enrolments: the store is the coordinator's alone. */
        r = write_file_atomic(e->path, text, strlen(text), 0600);
        free(text);
        if (r < 0)
                return errorf(err, errlen, r, "%s: %s", e->path, strerror(-r));
        e->dirty = false;
        return 0;
}

/* --- tokens -------------------------------------------------------------------------------- */

/* Spent tokens a day past their end are forgotten. */
static void prune(enroll_t *e, int64_t now)
{
        size_t k = 0;
        for (size_t i = 0; i < e->n_tokens; i++) {
                enroll_token_rec_t *t = &e->tokens[i];
                bool spent = t->expires <= now || t->used >= t->count;
                if (spent && now - t->expires > ENROLL_KEEP_SPENT_NS)
                        continue;
                e->tokens[k++] = *t;
        }
        if (k != e->n_tokens)
                e->dirty = true;
        e->n_tokens = k;
}

static size_t live_tokens(enroll_t *e, int64_t now)
{
        size_t n = 0;
        for (size_t i = 0; i < e->n_tokens; i++)
                n += e->tokens[i].expires > now && e->tokens[i].used < e->tokens[i].count;
        return n;
}

int enroll_create(enroll_t *e, const uint8_t coordinator_pk[32], const Iofleet__EnrollCreate *req,
                  int64_t now, char *text, size_t textlen, const enroll_token_rec_t **rec,
                  char *err, size_t errlen)
{
        enroll_token_t tok;
        enroll_token_rec_t t = {0}, *nt;
        uint8_t sk[32];
        int r;

        if (req->count < 1 || req->count > ENROLL_MAX_COUNT)
                return errorf(err, errlen, -EINVAL, "count: %u, allowed 1..%d", req->count,
                              ENROLL_MAX_COUNT);
        if ((int64_t)req->expires_ns < ENROLL_MIN_TTL_NS ||
            (int64_t)req->expires_ns > ENROLL_MAX_TTL_NS)
                return errorf(err, errlen, -EINVAL, "expires: allowed 1min..30d");
        if (!strempty(req->name_prefix) &&
            (strlen(req->name_prefix) > ENROLL_MAX_PREFIX || !keys_name_ok(req->name_prefix)))
                return errorf(err, errlen, -EINVAL,
                              "name prefix '%s': 1-%d of A-Z a-z 0-9 . _ - not starting with '.'",
                              req->name_prefix, ENROLL_MAX_PREFIX);
        if ((r = enroll_roles_norm(req->roles, req->n_roles, t.roles, sizeof(t.roles), err,
                                   errlen)) < 0)
                return r;
        prune(e, now);
        if (live_tokens(e, now) >= ENROLL_MAX_TOKENS)
                return errorf(err, errlen, -ENOSPC,
                              "%d tokens are live already: revoke some (iofleet enroll revoke ID)",
                              ENROLL_MAX_TOKENS);
        nt = realloc(e->tokens, (e->n_tokens + 1) * sizeof(*e->tokens));
        if (!nt)
                return errorf(err, errlen, -ENOMEM, "out of memory");
        e->tokens = nt;
        enroll_token_new(coordinator_pk, &tok);
        enroll_token_keypair(&tok, t.key, sk);
        r = enroll_token_format(&tok, text, textlen);
        enroll_token_wipe(&tok);
        memset(sk, 0, sizeof(sk));
        if (r < 0)
                return errorf(err, errlen, r, "token buffer too small");
        enroll_token_id(t.key, t.id);
        t.count = req->count;
        t.created = now;
        t.expires = now + (int64_t)req->expires_ns;
        snprintf(t.prefix, sizeof(t.prefix), "%s", req->name_prefix ? req->name_prefix : "");
        t.approve = req->approve;
        e->tokens[e->n_tokens] = t;
        *rec = &e->tokens[e->n_tokens++];
        e->dirty = true;
        return 0;
}

static enroll_token_rec_t *token_by_key(enroll_t *e, const uint8_t key[32])
{
        for (size_t i = 0; i < e->n_tokens; i++)
                if (memcmp(e->tokens[i].key, key, 32) == 0)
                        return &e->tokens[i];
        return NULL;
}

const enroll_token_rec_t *enroll_admits(enroll_t *e, const uint8_t key[32], int64_t now,
                                        const char **why, const char **id)
{
        enroll_token_rec_t *t = token_by_key(e, key);
        *id = t ? t->id : NULL;
        if (!t)
                *why = "unknown";
        else if (t->expires <= now)
                *why = "expired";
        else if (t->used >= t->count)
                *why = "used up";
        else
                return t;
        return NULL;
}

void enroll_give_back(enroll_t *e, const uint8_t token_key[32])
{
        enroll_token_rec_t *t = token_by_key(e, token_key);
        if (t && t->used > 0) {
                t->used--;
                e->dirty = true;
        }
}

int enroll_token_remove(enroll_t *e, const char *id)
{
        for (size_t i = 0; i < e->n_tokens; i++)
                if (streq(e->tokens[i].id, id)) {
                        memmove(&e->tokens[i], &e->tokens[i + 1],
                                (e->n_tokens - i - 1) * sizeof(*e->tokens));
                        e->n_tokens--;
                        e->dirty = true;
                        return 0;
                }
        return -ENOENT;
}

/* --- requests ------------------------------------------------------------------------------ */

static enroll_pending_t *pending_by_key(enroll_t *e, const uint8_t key[32])
{
        for (size_t i = 0; i < e->n_pending; i++)
                if (memcmp(e->pending[i].key, key, 32) == 0)
                        return &e->pending[i];
        return NULL;
}

const enroll_pending_t *enroll_pending_find(enroll_t *e, const char *name)
{
        for (size_t i = 0; i < e->n_pending; i++)
                if (streq(e->pending[i].name, name))
                        return &e->pending[i];
        return NULL;
}

int enroll_pending_remove(enroll_t *e, const char *name)
{
        for (size_t i = 0; i < e->n_pending; i++)
                if (streq(e->pending[i].name, name)) {
                        memmove(&e->pending[i], &e->pending[i + 1],
                                (e->n_pending - i - 1) * sizeof(*e->pending));
                        e->n_pending--;
                        e->dirty = true;
                        return 0;
                }
        return -ENOENT;
}

static void refuse(enroll_decision_t *d, Iofleet__ErrorCode code, const char *fmt, ...)
    _printf_(3, 4);
static void refuse(enroll_decision_t *d, Iofleet__ErrorCode code, const char *fmt, ...)
{
        va_list ap;
        d->outcome = ENROLL_REFUSED;
        d->code = code;
        va_start(ap, fmt);
        vsnprintf(d->message, sizeof(d->message), fmt, ap);
        va_end(ap);
}

/* Who holds name on the allow-list: its key, read from the ring or, for an entry added since the
 * ring was read, from its file. False when nobody does. */
static bool name_holder(const keyring_t *allowed, const char *agents_dir, const char *name,
                        uint8_t key[32], char *roles, size_t roleslen)
{
        char path[4096], err[512];
        keypair_t kp;

        if (keyring_lookup_name(allowed, name, key)) {
                snprintf(roles, roleslen, "%s", keyring_roles(allowed, name));
                return true;
        }
        snprintf(path, sizeof(path), "%s/%s.pub", agents_dir, name);
        if (keys_load(path, false, &kp, err, sizeof(err)) < 0)
                /* Unreadable or malformed: taken all the same, never replaced. */
                return access(path, F_OK) == 0 ? (memset(key, 0, 32), roles[0] = 0, true) : false;
        zmq_z85_decode(key, kp.public_z85);
        snprintf(roles, roleslen, "%s", kp.roles);
        return true;
}

void enroll_decide(enroll_t *e, const keyring_t *allowed, const char *agents_dir,
                   const uint8_t token_key[32], const Iofleet__EnrollRequest *req,
                   const uint8_t coordinator_sk[32], const char *address, int64_t now,
                   enroll_decision_t *d)
{
        const enroll_token_rec_t *tc;
        enroll_token_rec_t *t;
        enroll_pending_t *p;
        const char *why, *id, *have;
        char roles[KEY_ROLES_LEN], why_role[256], full[WIRE_MAX_NAME + 2], held_roles[KEY_ROLES_LEN];
        uint8_t held[32];

        memset(d, 0, sizeof(*d));
        if (req->agent_key.len != 32 ||
            !enroll_proof_check(req->agent_key.data, token_key, coordinator_sk, req->nonce.data,
                                req->nonce.len, req->proof.data, req->proof.len)) {
                refuse(d, IOFLEET__ERROR_CODE__ERROR_ENROLL_PROOF,
                       "the request does not prove that it holds the secret key of the public "
                       "key it enrols");
                return;
        }
        /* One key, one name: a key already admitted or waiting keeps the name it has (a
         * repeated request, even once its token is spent, changes nothing). */
        if ((have = keyring_lookup(allowed, req->agent_key.data))) {
                d->outcome = ENROLL_ALREADY;
                snprintf(d->name, sizeof(d->name), "%s", have);
                snprintf(d->roles, sizeof(d->roles), "%s", keyring_roles(allowed, have));
                return;
        }
        if ((p = pending_by_key(e, req->agent_key.data))) {
                d->outcome = ENROLL_PENDING;
                snprintf(d->name, sizeof(d->name), "%s", p->name);
                snprintf(d->roles, sizeof(d->roles), "%s", p->roles);
                return;
        }
        tc = enroll_admits(e, token_key, now, &why, &id);
        if (id)
                snprintf(d->token_id, sizeof(d->token_id), "%s", id);
        if (!tc) {
                refuse(d, IOFLEET__ERROR_CODE__ERROR_ENROLL_TOKEN, "enrolment token %s is %s",
                       id ? id : "", why);
                return;
        }
        t = token_by_key(e, token_key);
        if (enroll_roles_norm(req->roles, req->n_roles, roles, sizeof(roles), why_role,
                              sizeof(why_role)) < 0 ||
            !enroll_roles_allowed(t->roles, req->roles, req->n_roles, why_role,
                                  sizeof(why_role))) {
                refuse(d, IOFLEET__ERROR_CODE__ERROR_ENROLL_ROLE,
                       "%s by enrolment token %s: set roles = %s in the agent's config, or make a "
                       "token for these roles",
                       why_role, t->id, t->roles);
                return;
        }
        snprintf(full, sizeof(full), "%s%s", t->prefix, req->name);
        if (strlen(full) > WIRE_MAX_NAME || !keys_name_ok(full)) {
                refuse(d, IOFLEET__ERROR_CODE__ERROR_ENROLL_NAME,
                       "name '%.80s' (token prefix '%s' + '%.64s'): 1-%d of A-Z a-z 0-9 . _ - "
                       "not starting with '.'",
                       full, t->prefix, req->name, WIRE_MAX_NAME);
                return;
        }
        if (name_holder(allowed, agents_dir, full, held, held_roles, sizeof(held_roles))) {
                if (memcmp(held, req->agent_key.data, 32) == 0) {
                        d->outcome = ENROLL_ALREADY;
                        snprintf(d->name, sizeof(d->name), "%s", full);
                        snprintf(d->roles, sizeof(d->roles), "%s", held_roles);
                        return;
                }
                refuse(d, IOFLEET__ERROR_CODE__ERROR_ENROLL_NAME,
                       "the name '%s' belongs to another key: give this agent another name "
                       "(name = in its config), or revoke the old key first (iofleet agents "
                       "revoke %s)",
                       full, full);
                return;
        }
        if (enroll_pending_find(e, full)) {
                refuse(d, IOFLEET__ERROR_CODE__ERROR_ENROLL_NAME,
                       "the name '%s' is waiting for approval with another key: give this agent "
                       "another name, or refuse the other (iofleet agents revoke %s)",
                       full, full);
                return;
        }
        if (t->approve && e->n_pending >= ENROLL_MAX_PENDING) {
                refuse(d, IOFLEET__ERROR_CODE__ERROR_REFUSED,
                       "%d enrolments wait for approval already", ENROLL_MAX_PENDING);
                return;
        }
        t->used++;
        e->dirty = true;
        d->consumed = true;
        snprintf(d->name, sizeof(d->name), "%s", full);
        snprintf(d->roles, sizeof(d->roles), "%s", t->roles);
        if (!t->approve) {
                d->outcome = ENROLL_ADMIT;
                return;
        }
        p = realloc(e->pending, (e->n_pending + 1) * sizeof(*e->pending));
        if (!p) {
                t->used--;
                d->consumed = false;
                refuse(d, IOFLEET__ERROR_CODE__ERROR_INTERNAL, "out of memory");
                return;
        }
        e->pending = p;
        p = &e->pending[e->n_pending++];
        memset(p, 0, sizeof(*p));
        snprintf(p->name, sizeof(p->name), "%s", full);
        memcpy(p->key, req->agent_key.data, 32);
        snprintf(p->hostname, sizeof(p->hostname), "%s", req->hostname ? req->hostname : "");
        snprintf(p->roles, sizeof(p->roles), "%s", t->roles);
        snprintf(p->address, sizeof(p->address), "%s", address ? address : "");
        p->requested = now;
        snprintf(p->token_id, sizeof(p->token_id), "%s", t->id);
        d->outcome = ENROLL_PENDING;
}

/* --- what the CLI sees --------------------------------------------------------------------- */

/* "client,storage" as a malloc'd string array for the wire. */
static char **split_roles(const char *roles, size_t *n)
{
        char **v = calloc(3, sizeof(*v)), copy[KEY_ROLES_LEN];
        *n = 0;
        if (!v)
                return NULL;
        snprintf(copy, sizeof(copy), "%s", roles);
        for (char *save = NULL, *w = strtok_r(copy, ",", &save); w && *n < 2;
             w = strtok_r(NULL, ",", &save))
                if (!(v[(*n)++] = strdup(w)))
                        (*n)--;
        return v;
}

static void free_roles(char **v, size_t n)
{
        for (size_t i = 0; i < n; i++)
                free(v[i]);
        free(v);
}

int enroll_state(enroll_t *e, int64_t now, Iofleet__EnrollState *st)
{
        iofleet__enroll_state__init(st);
        prune(e, now);
        st->tokens = calloc(e->n_tokens + 1, sizeof(*st->tokens));
        st->pending = calloc(e->n_pending + 1, sizeof(*st->pending));
        if (!st->tokens || !st->pending)
                goto oom;
        for (size_t i = 0; i < e->n_tokens; i++) {
                const enroll_token_rec_t *t = &e->tokens[i];
                Iofleet__EnrollTokenInfo *ti = calloc(1, sizeof(*ti));
                if (!ti)
                        goto oom;
                iofleet__enroll_token_info__init(ti);
                st->tokens[st->n_tokens++] = ti;
                ti->id = strdup(t->id);
                ti->roles = split_roles(t->roles, &ti->n_roles);
                ti->count = t->count;
                ti->used = t->used;
                ti->created_ns = t->created;
                ti->expires_at_ns = t->expires;
                ti->name_prefix = strdup(t->prefix);
                ti->approve = t->approve;
                ti->state = strdup(t->expires <= now ? "expired"
                                   : t->used >= t->count ? "used up"
                                                        : "live");
                if (!ti->id || !ti->roles || !ti->name_prefix || !ti->state)
                        goto oom;
        }
        for (size_t i = 0; i < e->n_pending; i++) {
                const enroll_pending_t *p = &e->pending[i];
                Iofleet__PendingAgent *pa = calloc(1, sizeof(*pa));
                char k[KEY_Z85_LEN + 1];
                if (!pa)
                        goto oom;
                iofleet__pending_agent__init(pa);
                st->pending[st->n_pending++] = pa;
                z85(p->key, k);
                pa->name = strdup(p->name);
                pa->key = strdup(k);
                pa->hostname = strdup(p->hostname);
                pa->roles = split_roles(p->roles, &pa->n_roles);
                pa->address = strdup(p->address);
                pa->requested_ns = p->requested;
                pa->token_id = strdup(p->token_id);
                if (!pa->name || !pa->key || !pa->hostname || !pa->roles || !pa->address ||
                    !pa->token_id)
                        goto oom;
        }
        return 0;
oom:
        enroll_state_done(st);
        return -ENOMEM;
}

void enroll_state_done(Iofleet__EnrollState *st)
{
        for (size_t i = 0; i < st->n_tokens; i++) {
                Iofleet__EnrollTokenInfo *ti = st->tokens[i];
                free(ti->id);
                free_roles(ti->roles, ti->n_roles);
                free(ti->name_prefix);
                free(ti->state);
                free(ti);
        }
        for (size_t i = 0; i < st->n_pending; i++) {
                Iofleet__PendingAgent *pa = st->pending[i];
                free(pa->name);
                free(pa->key);
                free(pa->hostname);
                free_roles(pa->roles, pa->n_roles);
                free(pa->address);
                free(pa->token_id);
                free(pa);
        }
        free(st->tokens);
        free(st->pending);
        st->tokens = NULL;
        st->pending = NULL;
        st->n_tokens = st->n_pending = 0;
}
