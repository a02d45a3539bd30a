/* NFS mount option table after nfs(5): checks, contradictions and the -o string. */
#include "mount-options.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

typedef enum mo_type {
        MO_FLAG,   /* bare word; plan value empty, yes/true/1/on or no/false/0/off */
        MO_UINT,   /* decimal within [min, max] */
        MO_SIZE,   /* bytes with k/m suffix, within [min, max], multiple of 1024 */
        MO_CHOICE, /* one of choices ("a|b|c") */
        MO_SEC,    /* colon-separated list of choices */
        MO_ADDR,   /* an IPv4/IPv6 address */
} mo_type_t;

typedef struct mo_item {
        const char *name;
        mo_type_t type;
        uint64_t min, max;
        const char *choices;
} mo_item_t;

static const mo_item_t items[] = {
    {"vers", MO_CHOICE, 0, 0, "3|4|4.0|4.1|4.2"},
    {"nfsvers", MO_CHOICE, 0, 0, "3|4|4.0|4.1|4.2"},
    {"minorversion", MO_UINT, 0, 2, NULL},
    {"rsize", MO_SIZE, 4096, 1048576, NULL},
    {"wsize", MO_SIZE, 4096, 1048576, NULL},
    {"nconnect", MO_UINT, 1, 16, NULL},
    {"proto", MO_CHOICE, 0, 0, "tcp|udp|rdma|tcp6|udp6|rdma6"},
    {"mountproto", MO_CHOICE, 0, 0, "tcp|udp|tcp6|udp6"},
    {"timeo", MO_UINT, 1, 6000, NULL},
    {"retrans", MO_UINT, 0, 100, NULL},
    {"retry", MO_UINT, 0, 10000, NULL},
    {"actimeo", MO_UINT, 0, 86400, NULL},
    {"acregmin", MO_UINT, 0, 86400, NULL},
    {"acregmax", MO_UINT, 0, 86400, NULL},
    {"acdirmin", MO_UINT, 0, 86400, NULL},
    {"acdirmax", MO_UINT, 0, 86400, NULL},
    {"port", MO_UINT, 0, 65535, NULL},
    {"mountport", MO_UINT, 0, 65535, NULL},
    {"mountvers", MO_UINT, 1, 3, NULL},
    {"namlen", MO_UINT, 1, 255, NULL},
    {"max_connect", MO_UINT, 1, 16, NULL},
    {"sec", MO_SEC, 0, 0, "sys|krb5|krb5i|krb5p|none"},
    {"lookupcache", MO_CHOICE, 0, 0, "all|none|pos|positive"},
    {"local_lock", MO_CHOICE, 0, 0, "none|all|flock|posix"},
    {"xprtsec", MO_CHOICE, 0, 0, "none|tls|mtls"},
    {"clientaddr", MO_ADDR, 0, 0, NULL},
    {"mounthost", MO_ADDR, 0, 0, NULL},
    {"hard", MO_FLAG, 0, 0, NULL},
    {"soft", MO_FLAG, 0, 0, NULL},
    {"softerr", MO_FLAG, 0, 0, NULL},
    {"intr", MO_FLAG, 0, 0, NULL},
    {"nointr", MO_FLAG, 0, 0, NULL},
    {"lock", MO_FLAG, 0, 0, NULL},
    {"nolock", MO_FLAG, 0, 0, NULL},
    {"ac", MO_FLAG, 0, 0, NULL},
    {"noac", MO_FLAG, 0, 0, NULL},
    {"cto", MO_FLAG, 0, 0, NULL},
    {"nocto", MO_FLAG, 0, 0, NULL},
    {"acl", MO_FLAG, 0, 0, NULL},
    {"noacl", MO_FLAG, 0, 0, NULL},
    {"rdirplus", MO_FLAG, 0, 0, NULL},
    {"nordirplus", MO_FLAG, 0, 0, NULL},
    {"sharecache", MO_FLAG, 0, 0, NULL},
    {"nosharecache", MO_FLAG, 0, 0, NULL},
    {"resvport", MO_FLAG, 0, 0, NULL},
    {"noresvport", MO_FLAG, 0, 0, NULL},
    {"fsc", MO_FLAG, 0, 0, NULL},
    {"nofsc", MO_FLAG, 0, 0, NULL},
    {"sync", MO_FLAG, 0, 0, NULL},
    {"async", MO_FLAG, 0, 0, NULL},
    {"ro", MO_FLAG, 0, 0, NULL},
    {"rw", MO_FLAG, 0, 0, NULL},
    {"atime", MO_FLAG, 0, 0, NULL},
    {"noatime", MO_FLAG, 0, 0, NULL},
    {"relatime", MO_FLAG, 0, 0, NULL},
    {"diratime", MO_FLAG, 0, 0, NULL},
    {"nodiratime", MO_FLAG, 0, 0, NULL},
    {"nosuid", MO_FLAG, 0, 0, NULL},
    {"nodev", MO_FLAG, 0, 0, NULL},
    {"noexec", MO_FLAG, 0, 0, NULL},
};

/* Pairs that cannot both be set. */
static const char *const conflicts[][2] = {
    {"hard", "soft"},   {"hard", "softerr"}, {"soft", "softerr"},    {"intr", "nointr"},
    {"lock", "nolock"}, {"ac", "noac"},      {"cto", "nocto"},       {"acl", "noacl"},
    {"sync", "async"},  {"ro", "rw"},        {"atime", "noatime"},   {"rdirplus", "nordirplus"},
    {"fsc", "nofsc"},   {"vers", "nfsvers"}, {"resvport", "noresvport"},
    {"sharecache", "nosharecache"},          {"diratime", "nodiratime"},
};

static const mo_item_t *find_item(const char *name)
{
        for (size_t i = 0; i < ELEMENTSOF(items); i++)
                if (streq(items[i].name, name))
                        return &items[i];
        return NULL;
}

static bool in_choices(const char *choices, char sep, const char *v, size_t n)
{
        const char *c = choices;
        while (*c) {
                const char *e = strchr(c, sep);
                size_t cn = e ? (size_t)(e - c) : strlen(c);
                if (cn == n && strncmp(c, v, n) == 0)
                        return true;
                if (!e)
                        break;
                c = e + 1;
        }
        return false;
}

/* Flag values: 1 set, 0 left out, -1 not a yes/no. */
static int flag_value(const char *v)
{
        if (!*v || streq(v, "yes") || streq(v, "true") || streq(v, "1") || streq(v, "on"))
                return 1;
        if (streq(v, "no") || streq(v, "false") || streq(v, "0") || streq(v, "off"))
                return 0;
        return -1;
}

static bool addr_ok(const char *v)
{
        size_t n = strlen(v);
        if (n == 0 || n > 45)
                return false;
        for (size_t i = 0; i < n; i++)
                if (!strchr("0123456789abcdefABCDEF:.", v[i]))
                        return false;
        return true;
}

/* Checks one option; on success *out gets the text to render ("" to leave it out). */
static int check_one(const char *key, const char *v, char *out, size_t outlen, char *err,
                     size_t errlen)
{
        const mo_item_t *it = find_item(key);
        if (!it)
                return errorf(err, errlen, -EINVAL,
                              "%s: not an NFS mount option iofleet knows (see nfs(5); pass others "
                              "with options=)",
                              key);
        char *end;
        unsigned long long x;
        switch (it->type) {
        case MO_FLAG: {
                int f = flag_value(v);
                if (f < 0)
                        return errorf(err, errlen, -EINVAL, "%s: '%s'; a flag takes yes or no",
                                      key, v);
                snprintf(out, outlen, "%s", f ? key : "");
                return 0;
        }
        case MO_UINT:
                errno = 0;
                x = strtoull(v, &end, 10);
                if (!*v || *end || errno || v[0] == '-' || x < it->min || x > it->max)
                        return errorf(err, errlen, -EINVAL, "%s: '%s'; %llu..%llu", key, v,
                                      (unsigned long long)it->min,
                                      (unsigned long long)it->max);
                snprintf(out, outlen, "%s=%llu", key, x);
                return 0;
        case MO_SIZE:
                errno = 0;
                x = strtoull(v, &end, 10);
                if (*v && !errno && v[0] != '-' && (*end == 'k' || *end == 'K') && !end[1] &&
                    x <= it->max)
                        x *= 1024, end++;
                else if (*v && !errno && v[0] != '-' && (*end == 'm' || *end == 'M') &&
                         !end[1] && x <= it->max)
                        x *= 1024 * 1024, end++;
                /* The kernel rounds other values silently (nfs(5)); a benchmark must get the
                 * size it asked for, so they are refused. */
                if (!*v || *end || errno || v[0] == '-' || x < it->min || x > it->max ||
                    x % 1024)
                        return errorf(err, errlen, -EINVAL,
                                      "%s: '%s'; %llu..%llu bytes in multiples of 1024 (k and m "
                                      "suffixes allowed)",
                                      key, v, (unsigned long long)it->min,
                                      (unsigned long long)it->max);
                snprintf(out, outlen, "%s=%llu", key, x);
                return 0;
        case MO_CHOICE:
                if (!in_choices(it->choices, '|', v, strlen(v)))
                        return errorf(err, errlen, -EINVAL, "%s: '%s'; one of %s", key, v,
                                      it->choices);
                snprintf(out, outlen, "%s=%s", key, v);
                return 0;
        case MO_SEC: {
                const char *p = v;
                for (;;) {
                        const char *e = strchr(p, ':');
                        size_t n = e ? (size_t)(e - p) : strlen(p);
                        if (!in_choices(it->choices, '|', p, n))
                                return errorf(err, errlen, -EINVAL,
                                              "%s: '%s'; one or more of %s separated by ':'",
                                              key, v, it->choices);
                        if (!e)
                                break;
                        p = e + 1;
                }
                snprintf(out, outlen, "%s=%s", key, v);
                return 0;
        }
        case MO_ADDR:
                if (!addr_ok(v))
                        return errorf(err, errlen, -EINVAL, "%s: '%s'; an IPv4 or IPv6 address",
                                      key, v);
                snprintf(out, outlen, "%s=%s", key, v);
                return 0;
        }
        return -EINVAL;
}

static bool raw_char(char c, bool value)
{
        if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')
                return true;
        return value && ((c >= 'A' && c <= 'Z') || strchr(".:/+-@", c));
}

/* The options actually set, as name -> rendered text, in plan order (raw items expanded). */
static int collect(const kvlist_t *opts, kvlist_t *set, char *err, size_t errlen)
{
        char out[256];
        for (size_t i = 0; i < opts->n; i++) {
                const char *k = opts->v[i].key, *v = opts->v[i].value;
                int line = opts->v[i].line;
                int r;
                if (!streq(k, "options")) {
                        if ((r = check_one(k, v, out, sizeof(out), err, errlen)) < 0)
                                return r;
                        if (kv_get(set, k))
                                return errorf(err, errlen, -EINVAL, "%s: given twice", k);
                        if ((r = kv_push(set, k, out, line)) < 0)
                                return r;
                        continue;
                }
                /* options=a,b=c: raw items; names a-z 0-9 _, values also A-Z . : / + - @. */
                const char *p = v;
                while (*p) {
                        const char *e = strchr(p, ',');
                        size_t n = e ? (size_t)(e - p) : strlen(p);
                        char item[256], *eq;
                        if (n == 0 || n >= sizeof(item))
                                return errorf(err, errlen, -EINVAL,
                                              "options: '%s' has an empty or overlong item", v);
                        memcpy(item, p, n);
                        item[n] = 0;
                        eq = strchr(item, '=');
                        if (eq)
                                *eq++ = 0;
                        bool ok = item[0] != 0 && (!eq || *eq);
                        for (char *c = item; ok && *c; c++)
                                ok = raw_char(*c, false);
                        for (char *c = eq; ok && c && *c; c++)
                                ok = raw_char(*c, true);
                        if (!ok)
                                return errorf(err, errlen, -EINVAL,
                                              "options: item '%.*s'; name (a-z 0-9 _) or "
                                              "name=value (also A-Z . : / + - @)",
                                              (int)n, p);
                        if (streq(item, "options"))
                                return errorf(err, errlen, -EINVAL, "options: nested options=");
                        if (find_item(item)) {
                                if ((r = check_one(item, eq ? eq : "", out, sizeof(out), err,
                                                   errlen)) < 0)
                                        return r;
                                /* A flag written as a bare word is set; name=no is no flag. */
                                if (find_item(item)->type == MO_FLAG && eq)
                                        return errorf(err, errlen, -EINVAL,
                                                      "options: '%s' is a flag, give it bare",
                                                      item);
                        } else {
                                snprintf(out, sizeof(out), "%s%s%s", item, eq ? "=" : "",
                                         eq ? eq : "");
                        }
                        if (kv_get(set, item))
                                return errorf(err, errlen, -EINVAL, "%s: given twice", item);
                        if ((r = kv_push(set, item, out, line)) < 0)
                                return r;
                        if (!e)
                                break;
                        p = e + 1;
                        if (!*p)
                                return errorf(err, errlen, -EINVAL,
                                              "options: '%s' ends with a comma", v);
                }
        }
        return 0;
}

static bool is_set(const kvlist_t *set, const char *k)
{
        const char *v = kv_get(set, k);
        return v && *v;
}

static int check_set(const kvlist_t *set, char *err, size_t errlen)
{
        for (size_t i = 0; i < ELEMENTSOF(conflicts); i++)
                if (is_set(set, conflicts[i][0]) && is_set(set, conflicts[i][1]))
                        return errorf(err, errlen, -EINVAL, "%s and %s contradict each other",
                                      conflicts[i][0], conflicts[i][1]);
        const char *vers = kv_get(set, "vers");
        if (!vers)
                vers = kv_get(set, "nfsvers");
        const char *proto = kv_get(set, "proto");
        if (vers && proto && !strstr(vers, "=3") && strstr(proto, "=udp"))
                return errorf(err, errlen, -EINVAL,
                              "proto=udp: NFSv4 runs over tcp or rdma only (vers=3 for udp)");
        if (vers && is_set(set, "minorversion") && strstr(vers, "=3"))
                return errorf(err, errlen, -EINVAL, "minorversion: only with vers=4");
        return 0;
}

int mount_options_check(const kvlist_t *opts, char *err, size_t errlen)
{
        kvlist_t set = {0};
        int r = collect(opts, &set, err, errlen);
        if (r == 0)
                r = check_set(&set, err, errlen);
        kv_clear(&set);
        return r;
}

int mount_options_render(const kvlist_t *opts, char *buf, size_t len, char *err, size_t errlen)
{
        kvlist_t set = {0};
        int r = collect(opts, &set, err, errlen);
        if (r == 0)
                r = check_set(&set, err, errlen);
        size_t used = 0;
        if (len)
                buf[0] = 0;
        for (size_t i = 0; r == 0 && i < set.n; i++) {
                const char *t = set.v[i].value;
                if (!*t)
                        continue;
                int n = snprintf(buf + used, len - used, "%s%s", used ? "," : "", t);
                if (n < 0 || (size_t)n >= len - used || used + (size_t)n >= MOUNT_OPTIONS_MAX)
                        r = errorf(err, errlen, -ENAMETOOLONG,
                                   "mount options: longer than %d characters",
                                   MOUNT_OPTIONS_MAX - 1);
                else
                        used += (size_t)n;
        }
        kv_clear(&set);
        return r;
}
