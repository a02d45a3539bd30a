/* NFS server settings: per-backend key table, checks, and rendering to exports/nfs.conf/ganesha. */
#include "nfs-settings.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "util.h"

#define K NFS_BACKEND_KERNEL
#define G NFS_BACKEND_GANESHA
#define BOOLS "true, false, yes, no, 1, 0 (a bare key is true)"
static const nfs_setting_t settings_table[] = {
    {"backend", K | G, "kernel, ganesha", "which NFS server serves the export", NULL},
    {"path", K | G, "an absolute path without spaces or quotes", "the exported directory", NULL},
    {"clients", K | G, "*, a host, a wildcard, @netgroup or ADDR/PREFIX", "who may mount it (default *)",
     NULL},
    {"access", K | G, "rw, ro", "read-write or read-only (default rw)", NULL},
    {"rw", K | G, BOOLS, "same as access=rw (false: access=ro)", NULL},
    {"ro", K | G, BOOLS, "same as access=ro (false: access=rw)", NULL},
    {"sync", K, BOOLS ", or sync, async", "kernel sync (true) or async (false) export",
     "ganesha has no sync/async export option; it has nfs_commit"},
    {"async", K, BOOLS, "kernel async export (false: sync)",
     "ganesha has no sync/async export option; it has nfs_commit"},
    {"root_squash", K | G, "root_squash, no_root_squash, all_squash, or " BOOLS,
     "how remote root (or everyone) is mapped", NULL},
    {"no_root_squash", K | G, BOOLS, "same as root_squash=no_root_squash", NULL},
    {"all_squash", K | G, BOOLS, "same as root_squash=all_squash", NULL},
    {"wdelay", K, BOOLS, "kernel: delay writes expecting more (wdelay/no_wdelay)",
     "ganesha has no wdelay export option"},
    {"subtree_check", K, BOOLS, "kernel: subtree_check/no_subtree_check",
     "ganesha has no subtree_check export option"},
    {"fsid", K, "root, 0-4294967295 or a UUID", "kernel: the export's fsid",
     "ganesha has no fsid export option (it has Filesystem_id, not settable here)"},
    {"sec", K | G, "comma list of sys, krb5, krb5i, krb5p (ganesha also none)",
     "security flavours (kernel sec=, ganesha SecType)", NULL},
    {"versions", K | G, "kernel: comma list of 3, 4, 4.0, 4.1, 4.2; ganesha: 3, 4",
     "NFS versions served (kernel: nfs.conf [nfsd] vers*; ganesha: Protocols)", NULL},
    {"threads", K, "1-8192", "kernel: nfsd threads ([nfsd] threads in nfs.conf)",
     "ganesha has no worker thread count in NFS_CORE_PARAM (ganesha-core-config(8)); "
     "it has no threads setting"},
    {"max_read", G, "4096-67108864 bytes (k/m suffixes)", "ganesha: MaxRead of the export",
     "the kernel has no max_read export option (see /proc/fs/nfsd/max_block_size)"},
    {"max_write", G, "4096-67108864 bytes (k/m suffixes)", "ganesha: MaxWrite of the export",
     "the kernel has no max_write export option (see /proc/fs/nfsd/max_block_size)"},
    {"delegations", G, "none, read, write, readwrite", "ganesha: Delegations of the export",
     "the kernel has no delegations export option"},
    {"nfs_commit", G, BOOLS, "ganesha: NFS_Commit (honour COMMIT) of the export",
     "the kernel has no nfs_commit export option; it has sync/async"},
    {"transports", G, "comma list of tcp, udp", "ganesha: Transports of the export",
     "the kernel has no transports export option"},
    {"pseudo", G, "an absolute path without spaces or quotes",
     "ganesha: the NFSv4 pseudo path (default: path)", "the kernel has no pseudo export option"},
    {"export_id", G, "1-65535", "ganesha: Export_Id (default 1)",
     "the kernel has no export_id option"},
};
#undef K
#undef G

const nfs_setting_t *nfs_settings_table(size_t *n)
{
        *n = ELEMENTSOF(settings_table);
        return settings_table;
}

static const nfs_setting_t *setting_find(const char *key)
{
        for (size_t i = 0; i < ELEMENTSOF(settings_table); i++)
                if (streq(settings_table[i].key, key))
                        return &settings_table[i];
        return NULL;
}

/* "line 12: " when line is known. */
_printf_(5, 6) static int fail(char *err, size_t errlen, int line, int r, const char *fmt, ...)
{
        char msg[512];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, sizeof(msg), fmt, ap);
        va_end(ap);
        if (line > 0)
                return errorf(err, errlen, r, "line %d: %s", line, msg);
        return errorf(err, errlen, r, "%s", msg);
}

static int parse_bool(const char *v)
{
        static const char *const yes[] = {"", "true", "yes", "y", "1", "on"};
        static const char *const no[] = {"false", "no", "n", "0", "off"};
        for (size_t i = 0; i < ELEMENTSOF(yes); i++)
                if (strcasecmp(v, yes[i]) == 0)
                        return 1;
        for (size_t i = 0; i < ELEMENTSOF(no); i++)
                if (strcasecmp(v, no[i]) == 0)
                        return 0;
        return -EINVAL;
}

static bool path_ok(const char *v, size_t max)
{
        if (v[0] != '/' || strlen(v) >= max)
                return false;
        for (const unsigned char *p = (const unsigned char *)v; *p; p++)
                if (*p <= ' ' || *p == '"' || *p == '\'' || *p == '\\' || *p == '(' ||
                    *p == ')' || *p == ';' || *p == '{' || *p == '}' || *p == '#' || *p == 0x7f)
                        return false;
        /* no "." or ".." components */
        for (const char *p = v; (p = strchr(p, '/')); p++)
                if ((p[1] == '.' && (p[2] == '/' || !p[2])) ||
                    (p[1] == '.' && p[2] == '.' && (p[3] == '/' || !p[3])))
                        return false;
        return true;
}

static bool clients_ok(const char *v, size_t max)
{
        if (!*v || strlen(v) >= max)
                return false;
        for (const unsigned char *p = (const unsigned char *)v; *p; p++)
                if (!isalnum(*p) && !strchr(".*?:/@_-[]", *p))
                        return false;
        return true;
}

/* Splits a comma list and maps each word through names[] to bits; 0 or -EINVAL with *bad set. */
static int parse_words(const char *v, const char *const *names, const unsigned *bits, size_t n,
                       unsigned *ret, char *bad, size_t badlen)
{
        unsigned mask = 0;
        const char *p = v;
        for (;;) {
                while (*p == ' ')
                        p++;
                size_t len = strcspn(p, ",");
                size_t wl = len;
                while (wl > 0 && p[wl - 1] == ' ')
                        wl--;
                bool found = false;
                for (size_t i = 0; i < n && !found; i++)
                        if (strlen(names[i]) == wl && strncasecmp(p, names[i], wl) == 0) {
                                mask |= bits[i];
                                found = true;
                        }
                if (!found) {
                        snprintf(bad, badlen, "%.*s", (int)wl, p);
                        return -EINVAL;
                }
                if (!p[len])
                        break;
                p += len + 1;
        }
        *ret = mask;
        return 0;
}

static int parse_uint(const char *v, uint64_t min, uint64_t max, bool sizes, uint64_t *ret)
{
        if (!isdigit((unsigned char)v[0]))
                return -EINVAL;
        errno = 0;
        char *end;
        unsigned long long x = strtoull(v, &end, 10);
        if (errno)
                return -EINVAL;
        if (sizes && *end) {
                unsigned long long mul = 0;
                if (strcasecmp(end, "k") == 0 || strcasecmp(end, "kib") == 0)
                        mul = 1024;
                else if (strcasecmp(end, "m") == 0 || strcasecmp(end, "mib") == 0)
                        mul = 1024 * 1024;
                if (!mul || x > UINT64_MAX / mul)
                        return -EINVAL;
                x *= mul;
                end += strlen(end);
        }
        if (*end || x < min || x > max)
                return -EINVAL;
        *ret = x;
        return 0;
}

static bool fsid_ok(const char *v)
{
        if (streq(v, "root"))
                return true;
        uint64_t x;
        if (parse_uint(v, 0, UINT32_MAX, false, &x) == 0)
                return true;
        /* a UUID: 32 hex digits, dashes allowed between */
        size_t hex = 0;
        for (const char *p = v; *p; p++) {
                if (isxdigit((unsigned char)*p))
                        hex++;
                else if (*p != '-' || p == v || !p[1])
                        return false;
        }
        return hex == 32;
}

/* Remembers which key set a group of exclusive keys (access, sync, squash) first. */
typedef struct seen {
        const char *key;
        int line;
} seen_t;

static int exclusive(seen_t *s, const kv_t *kv, char *err, size_t errlen)
{
        if (s->key) {
                if (s->line > 0)
                        return fail(err, errlen, kv->line, -EINVAL,
                                    "%s: conflicts with %s given on line %d", kv->key, s->key,
                                    s->line);
                return fail(err, errlen, kv->line, -EINVAL, "%s: conflicts with %s given before",
                            kv->key, s->key);
        }
        s->key = kv->key;
        s->line = kv->line;
        return 0;
}

static const char *backend_name(int b)
{
        return b == NFS_BACKEND_GANESHA ? "ganesha" : "kernel";
}

static int backend_from(const char *v)
{
        if (streq(v, "kernel"))
                return NFS_BACKEND_KERNEL;
        if (streq(v, "ganesha"))
                return NFS_BACKEND_GANESHA;
        return -EINVAL;
}

int nfs_settings_parse(const char *backend, const kvlist_t *settings, nfs_export_t *out,
                       char *err, size_t errlen)
{
        const kvlist_t empty = {0};
        if (!settings)
                settings = &empty;

        /* The backend: the argument, else the settings' own key; both must agree. */
        int b = 0, bline = 0;
        const char *bval = backend;
        for (size_t i = 0; i < settings->n; i++)
                if (streq(settings->v[i].key, "backend")) {
                        const kv_t *kv = &settings->v[i];
                        if (backend_from(kv->value) < 0)
                                return fail(err, errlen, kv->line, -EINVAL,
                                            "backend: '%s' is not a backend; allowed: kernel, "
                                            "ganesha",
                                            kv->value);
                        if (bval && !streq(bval, kv->value))
                                return fail(err, errlen, kv->line, -EINVAL,
                                            "backend: '%s' given, but the server is '%s'",
                                            kv->value, bval);
                        bval = kv->value;
                        bline = kv->line;
                }
        if (!bval)
                return errorf(err, errlen, -EINVAL,
                              "backend: missing; the [server] section needs backend=kernel or "
                              "backend=ganesha");
        b = backend_from(bval);
        if (b < 0)
                return fail(err, errlen, bline, -EINVAL,
                            "backend: '%s' is not a backend; allowed: kernel, ganesha", bval);

        nfs_export_t e = {
            .backend = b,
            .sync = -1,
            .squash = NFS_SQUASH_UNSET,
            .wdelay = -1,
            .subtree_check = -1,
            .delegations = NFS_DELEG_UNSET,
            .nfs_commit = -1,
            .export_id = 1,
        };
        strcpy(e.clients, "*");
        seen_t s_access = {0}, s_sync = {0}, s_squash = {0};
        bool have_path = false;

        for (size_t i = 0; i < settings->n; i++) {
                const kv_t *kv = &settings->v[i];
                const char *k = kv->key, *v = kv->value;
                int line = kv->line;
                const nfs_setting_t *st = setting_find(k);
                if (!st) {
                        char keys[512] = "";
                        size_t n = 0;
                        for (size_t j = 0; j < ELEMENTSOF(settings_table); j++)
                                if (settings_table[j].backends & b)
                                        n += snprintf(keys + n, n < sizeof(keys) ? sizeof(keys) - n : 0,
                                                      "%s%s", n ? ", " : "",
                                                      settings_table[j].key);
                        return fail(err, errlen, line, -EINVAL,
                                    "'%s' is not a [server] setting; %s has: %s", k,
                                    backend_name(b), keys);
                }
                if (!(st->backends & b))
                        return fail(err, errlen, line, -EINVAL, "%s: %s", k, st->instead);
                for (size_t j = 0; j < i; j++)
                        if (streq(settings->v[j].key, k) && !streq(k, "backend")) {
                                if (settings->v[j].line > 0)
                                        return fail(err, errlen, line, -EINVAL,
                                                    "%s: given twice (also on line %d)", k,
                                                    settings->v[j].line);
                                return fail(err, errlen, line, -EINVAL, "%s: given twice", k);
                        }

                int bv = parse_bool(v);
                uint64_t u;
                unsigned mask;
                char bad[64];
#define BAD() fail(err, errlen, line, -EINVAL, "%s: '%s' is not allowed; allowed: %s", k, v, st->range)
                if (streq(k, "backend")) {
                        /* handled above */
                } else if (streq(k, "path") || streq(k, "pseudo")) {
                        if (!path_ok(v, sizeof(e.path)))
                                return BAD();
                        if (streq(k, "path")) {
                                strcpy(e.path, v);
                                have_path = true;
                        } else
                                strcpy(e.pseudo, v);
                } else if (streq(k, "clients")) {
                        if (!clients_ok(v, sizeof(e.clients)))
                                return BAD();
                        strcpy(e.clients, v);
                } else if (streq(k, "access")) {
                        if (!streq(v, "rw") && !streq(v, "ro"))
                                return BAD();
                        int r = exclusive(&s_access, kv, err, errlen);
                        if (r < 0)
                                return r;
                        e.ro = streq(v, "ro");
                } else if (streq(k, "rw") || streq(k, "ro")) {
                        if (bv < 0)
                                return BAD();
                        int r = exclusive(&s_access, kv, err, errlen);
                        if (r < 0)
                                return r;
                        e.ro = streq(k, "ro") ? bv : !bv;
                } else if (streq(k, "sync") || streq(k, "async")) {
                        if (streq(k, "sync") && streq(v, "sync"))
                                bv = 1;
                        else if (streq(k, "sync") && streq(v, "async"))
                                bv = 0;
                        if (bv < 0)
                                return BAD();
                        int r = exclusive(&s_sync, kv, err, errlen);
                        if (r < 0)
                                return r;
                        e.sync = streq(k, "sync") ? bv : !bv;
                } else if (streq(k, "root_squash")) {
                        if (streq(v, "root_squash"))
                                e.squash = NFS_SQUASH_ROOT;
                        else if (streq(v, "no_root_squash"))
                                e.squash = NFS_SQUASH_NONE;
                        else if (streq(v, "all_squash"))
                                e.squash = NFS_SQUASH_ALL;
                        else if (bv >= 0)
                                e.squash = bv ? NFS_SQUASH_ROOT : NFS_SQUASH_NONE;
                        else
                                return BAD();
                        int r = exclusive(&s_squash, kv, err, errlen);
                        if (r < 0)
                                return r;
                } else if (streq(k, "no_root_squash") || streq(k, "all_squash")) {
                        if (bv < 0)
                                return BAD();
                        int r = exclusive(&s_squash, kv, err, errlen);
                        if (r < 0)
                                return r;
                        if (streq(k, "no_root_squash"))
                                e.squash = bv ? NFS_SQUASH_NONE : NFS_SQUASH_ROOT;
                        else
                                e.squash = bv ? NFS_SQUASH_ALL : NFS_SQUASH_ROOT;
                } else if (streq(k, "wdelay") || streq(k, "subtree_check") ||
                           streq(k, "nfs_commit")) {
                        if (bv < 0)
                                return BAD();
                        *(streq(k, "wdelay")          ? &e.wdelay
                          : streq(k, "subtree_check") ? &e.subtree_check
                                                      : &e.nfs_commit) = bv;
                } else if (streq(k, "fsid")) {
                        if (!fsid_ok(v) || strlen(v) >= sizeof(e.fsid))
                                return BAD();
                        strcpy(e.fsid, v);
                } else if (streq(k, "sec")) {
                        static const char *const n[] = {"sys", "krb5", "krb5i", "krb5p", "none"};
                        static const unsigned bits[] = {NFS_SEC_SYS, NFS_SEC_KRB5, NFS_SEC_KRB5I,
                                                        NFS_SEC_KRB5P, NFS_SEC_NONE};
                        size_t nn = b == NFS_BACKEND_GANESHA ? 5 : 4;
                        if (parse_words(v, n, bits, nn, &mask, bad, sizeof(bad)) < 0)
                                return fail(err, errlen, line, -EINVAL,
                                            "sec: '%s' is not a %s security flavour; allowed: %s",
                                            bad, backend_name(b),
                                            b == NFS_BACKEND_GANESHA ? "sys, krb5, krb5i, krb5p, none"
                                                                     : "sys, krb5, krb5i, krb5p");
                        e.sec = mask;
                } else if (streq(k, "versions")) {
                        static const char *const n[] = {"3", "4", "4.0", "4.1", "4.2"};
                        static const unsigned bits[] = {NFS_V3, NFS_V40 | NFS_V41 | NFS_V42,
                                                        NFS_V40, NFS_V41, NFS_V42};
                        size_t nn = b == NFS_BACKEND_GANESHA ? 2 : 5;
                        if (parse_words(v, n, bits, nn, &mask, bad, sizeof(bad)) < 0)
                                return fail(err, errlen, line, -EINVAL,
                                            "versions: '%s' is not an NFS version %s serves; "
                                            "allowed: %s",
                                            bad, backend_name(b),
                                            b == NFS_BACKEND_GANESHA
                                                ? "3, 4 (ganesha's export Protocols has no minor "
                                                  "versions)"
                                                : "3, 4, 4.0, 4.1, 4.2");
                        e.versions = mask;
                } else if (streq(k, "threads")) {
                        if (parse_uint(v, 1, 8192, false, &u) < 0)
                                return BAD();
                        e.threads = (unsigned)u;
                } else if (streq(k, "max_read") || streq(k, "max_write")) {
                        if (parse_uint(v, 4096, 64 * 1024 * 1024, true, &u) < 0)
                                return BAD();
                        *(streq(k, "max_read") ? &e.max_read : &e.max_write) = u;
                } else if (streq(k, "delegations")) {
                        if (streq(v, "none"))
                                e.delegations = NFS_DELEG_NONE;
                        else if (streq(v, "read"))
                                e.delegations = NFS_DELEG_READ;
                        else if (streq(v, "write"))
                                e.delegations = NFS_DELEG_WRITE;
                        else if (streq(v, "readwrite"))
                                e.delegations = NFS_DELEG_RW;
                        else
                                return BAD();
                } else if (streq(k, "transports")) {
                        static const char *const n[] = {"tcp", "udp"};
                        static const unsigned bits[] = {NFS_TRANSPORT_TCP, NFS_TRANSPORT_UDP};
                        if (parse_words(v, n, bits, 2, &mask, bad, sizeof(bad)) < 0)
                                return fail(err, errlen, line, -EINVAL,
                                            "transports: '%s' is not a transport; allowed: %s",
                                            bad, st->range);
                        e.transports = mask;
                } else if (streq(k, "export_id")) {
                        if (parse_uint(v, 1, 65535, false, &u) < 0)
                                return BAD();
                        e.export_id = (unsigned)u;
                }
#undef BAD
        }
        if (!have_path)
                return errorf(err, errlen, -EINVAL,
                              "path: missing; the [server] section needs path=/absolute/dir to "
                              "export");
        *out = e;
        return 0;
}

int nfs_settings_check(const char *backend, const kvlist_t *settings, char *err, size_t errlen)
{
        nfs_export_t e;
        return nfs_settings_parse(backend, settings, &e, err, errlen);
}

/* A growable string built with open_memstream-like appends, without stdio. */
typedef struct sbuf {
        char *s;
        size_t n, cap;
        bool oom;
} sbuf_t;

_printf_(2, 3) static void sb_printf(sbuf_t *b, const char *fmt, ...)
{
        if (b->oom)
                return;
        for (;;) {
                va_list ap;
                va_start(ap, fmt);
                int w = vsnprintf(b->s ? b->s + b->n : NULL, b->s ? b->cap - b->n : 0, fmt, ap);
                va_end(ap);
                if (w < 0) {
                        b->oom = true;
                        return;
                }
                if (b->s && b->n + (size_t)w < b->cap) {
                        b->n += (size_t)w;
                        return;
                }
                size_t cap = (b->cap ? b->cap * 2 : 256) + (size_t)w;
                char *s = realloc(b->s, cap);
                if (!s) {
                        b->oom = true;
                        return;
                }
                b->s = s;
                b->cap = cap;
        }
}

static void sb_append(sbuf_t *b, const char *p, size_t len)
{
        if (b->oom)
                return;
        if (b->n + len + 1 > b->cap) {
                size_t cap = b->cap * 2 + len + 256;
                char *s = realloc(b->s, cap);
                if (!s) {
                        b->oom = true;
                        return;
                }
                b->s = s;
                b->cap = cap;
        }
        memcpy(b->s + b->n, p, len);
        b->n += len;
        b->s[b->n] = 0;
}

static int sb_finish(sbuf_t *b, char **ret, size_t *len)
{
        if (!b->oom && !b->s)
                sb_append(b, "", 0);
        if (b->oom) {
                free(b->s);
                return -ENOMEM;
        }
        *ret = b->s;
        if (len)
                *len = b->n;
        return 0;
}

static void sec_list(sbuf_t *b, unsigned sec, const char *sep)
{
        static const char *const n[] = {"sys", "krb5", "krb5i", "krb5p", "none"};
        bool first = true;
        for (size_t i = 0; i < ELEMENTSOF(n); i++)
                if (sec & (1u << i)) {
                        sb_printf(b, "%s%s", first ? "" : sep, n[i]);
                        first = false;
                }
}

int nfs_render_kernel_export(const nfs_export_t *e, char **ret)
{
        sbuf_t b = {0};
        sb_printf(&b, "%s %s(%s", e->path, e->clients, e->ro ? "ro" : "rw");
        if (e->sync >= 0)
                sb_printf(&b, ",%s", e->sync ? "sync" : "async");
        if (e->squash == NFS_SQUASH_ROOT)
                sb_printf(&b, ",root_squash");
        else if (e->squash == NFS_SQUASH_NONE)
                sb_printf(&b, ",no_root_squash");
        else if (e->squash == NFS_SQUASH_ALL)
                sb_printf(&b, ",all_squash");
        if (e->wdelay >= 0)
                sb_printf(&b, ",%s", e->wdelay ? "wdelay" : "no_wdelay");
        /* Always one of the two: exportfs warns about every export that names neither. */
        sb_printf(&b, ",%s", e->subtree_check > 0 ? "subtree_check" : "no_subtree_check");
        if (e->fsid[0])
                sb_printf(&b, ",fsid=%s", e->fsid);
        if (e->sec) {
                sb_printf(&b, ",sec=");
                sec_list(&b, e->sec, ":");
        }
        sb_printf(&b, ")");
        return sb_finish(&b, ret, NULL);
}

int nfs_render_nfsd_conf(const nfs_export_t *e, kvlist_t *keys)
{
        char v[16];
        int r = 0;
        if (e->threads) {
                snprintf(v, sizeof(v), "%u", e->threads);
                r = kv_push(keys, "threads", v, 0);
        }
        if (r == 0 && e->versions) {
                static const struct {
                        const char *key;
                        unsigned bits;
                } vers[] = {{"vers3", NFS_V3},
                            {"vers4", NFS_V40 | NFS_V41 | NFS_V42},
                            {"vers4.0", NFS_V40},
                            {"vers4.1", NFS_V41},
                            {"vers4.2", NFS_V42}};
                for (size_t i = 0; i < ELEMENTSOF(vers) && r == 0; i++)
                        r = kv_push(keys, vers[i].key, (e->versions & vers[i].bits) ? "y" : "n", 0);
        }
        return r;
}

int nfs_render_ganesha_export(const nfs_export_t *e, char **ret)
{
        static const char *const squash[] = {"Root_Squash", "No_Root_Squash", "All_Squash"};
        static const char *const deleg[] = {"None", "Read", "Write", "Readwrite"};
        const char *access = e->ro ? "RO" : "RW";
        bool all = streq(e->clients, "*");
        sbuf_t b = {0};
        sb_printf(&b, "EXPORT {\n");
        sb_printf(&b, "\tExport_Id = %u;\n", e->export_id);
        sb_printf(&b, "\tPath = \"%s\";\n", e->path);
        sb_printf(&b, "\tPseudo = \"%s\";\n", e->pseudo[0] ? e->pseudo : e->path);
        sb_printf(&b, "\tAccess_Type = %s;\n", all ? access : "None");
        if (e->squash != NFS_SQUASH_UNSET)
                sb_printf(&b, "\tSquash = %s;\n", squash[e->squash]);
        if (e->sec) {
                sb_printf(&b, "\tSecType = ");
                sec_list(&b, e->sec, ", ");
                sb_printf(&b, ";\n");
        }
        if (e->versions) {
                bool v3 = e->versions & NFS_V3, v4 = e->versions & ~NFS_V3;
                sb_printf(&b, "\tProtocols = %s%s%s;\n", v3 ? "3" : "", v3 && v4 ? ", " : "",
                          v4 ? "4" : "");
        }
        if (e->transports) {
                bool tcp = e->transports & NFS_TRANSPORT_TCP,
                     udp = e->transports & NFS_TRANSPORT_UDP;
                sb_printf(&b, "\tTransports = %s%s%s;\n", tcp ? "TCP" : "", tcp && udp ? ", " : "",
                          udp ? "UDP" : "");
        }
        if (e->max_read)
                sb_printf(&b, "\tMaxRead = %llu;\n", (unsigned long long)e->max_read);
        if (e->max_write)
                sb_printf(&b, "\tMaxWrite = %llu;\n", (unsigned long long)e->max_write);
        if (e->delegations != NFS_DELEG_UNSET)
                sb_printf(&b, "\tDelegations = %s;\n", deleg[e->delegations]);
        if (e->nfs_commit >= 0)
                sb_printf(&b, "\tNFS_Commit = %s;\n", e->nfs_commit ? "true" : "false");
        if (!all)
                sb_printf(&b, "\tCLIENT {\n\t\tClients = %s;\n\t\tAccess_Type = %s;\n\t}\n",
                          e->clients, access);
        sb_printf(&b, "\tFSAL {\n\t\tName = VFS;\n\t}\n");
        sb_printf(&b, "}\n");
        return sb_finish(&b, ret, NULL);
}

/* One physical line of the input: [p, p+len) without its ending, eol the ending ("", "\n",
 * "\r\n"). */
typedef struct cline {
        const char *p;
        size_t len;
        const char *eol;
        size_t eollen;
} cline_t;

static const char *skip_ws(const char *p, const char *end)
{
        while (p < end && (*p == ' ' || *p == '\t'))
                p++;
        return p;
}

/* The section a header line opens ("nfsd" from "[nfsd]"), written to name; false otherwise. */
static bool line_section(const cline_t *l, char *name, size_t namelen)
{
        const char *end = l->p + l->len;
        const char *p = skip_ws(l->p, end);
        if (p >= end || *p != '[')
                return false;
        const char *close = memchr(p, ']', (size_t)(end - p));
        if (!close)
                return false;
        const char *s = skip_ws(p + 1, close), *t = close;
        while (t > s && (t[-1] == ' ' || t[-1] == '\t'))
                t--;
        snprintf(name, namelen, "%.*s", (int)(t - s), s);
        return true;
}

/* For an active "key = value" line: the key's span and the value's span (trimmed). */
static bool line_key(const cline_t *l, const char **k, size_t *klen, const char **v, size_t *vlen)
{
        const char *end = l->p + l->len;
        const char *p = skip_ws(l->p, end);
        if (p >= end || *p == '#' || *p == ';' || *p == '[')
                return false;
        const char *eq = memchr(p, '=', (size_t)(end - p));
        if (!eq)
                return false;
        const char *ke = eq;
        while (ke > p && (ke[-1] == ' ' || ke[-1] == '\t'))
                ke--;
        const char *vs = skip_ws(eq + 1, end), *ve = end;
        while (ve > vs && (ve[-1] == ' ' || ve[-1] == '\t'))
                ve--;
        *k = p;
        *klen = (size_t)(ke - p);
        *v = vs;
        *vlen = (size_t)(ve - vs);
        return true;
}

int nfs_conf_edit(const char *in, size_t inlen, const char *section, const kvlist_t *keys,
                  char **out, size_t *outlen, bool *changed)
{
        /* Split into lines, keeping each line's own ending. */
        size_t nlines = 0, cap = 0;
        cline_t *lines = NULL;
        for (size_t off = 0; off < inlen;) {
                const char *nl = memchr(in + off, '\n', inlen - off);
                size_t end = nl ? (size_t)(nl - in) : inlen;
                cline_t l = {in + off, end - off, "", 0};
                if (nl) {
                        if (l.len > 0 && l.p[l.len - 1] == '\r') {
                                l.len--;
                                l.eol = "\r\n";
                                l.eollen = 2;
                        } else {
                                l.eol = "\n";
                                l.eollen = 1;
                        }
                }
                if (nlines == cap) {
                        cap = cap ? cap * 2 : 64;
                        cline_t *nlp = realloc(lines, cap * sizeof(*lines));
                        if (!nlp) {
                                free(lines);
                                return -ENOMEM;
                        }
                        lines = nlp;
                }
                lines[nlines++] = l;
                off = nl ? end + 1 : inlen;
        }
        /* New lines take the file's first line ending. */
        const char *eol = nlines > 0 && lines[0].eollen ? lines[0].eol : "\n";

        bool *found = calloc(keys->n + 1, sizeof(bool));
        if (!found) {
                free(lines);
                return -ENOMEM;
        }
        bool diff = false;
        sbuf_t b = {0};
        /* Pass 1: rewrite active keys inside every [section]. */
        char cur[128] = "";
        ssize_t header = -1;
        for (size_t i = 0; i < nlines; i++) {
                const cline_t *l = &lines[i];
                char name[128];
                const char *k, *v;
                size_t klen, vlen;
                if (line_section(l, name, sizeof(name))) {
                        snprintf(cur, sizeof(cur), "%s", name);
                        if (header < 0 && strcasecmp(cur, section) == 0)
                                header = (ssize_t)i;
                } else if (strcasecmp(cur, section) == 0 && line_key(l, &k, &klen, &v, &vlen)) {
                        for (size_t j = 0; j < keys->n; j++) {
                                const kv_t *kv = &keys->v[j];
                                if (strlen(kv->key) != klen || strncasecmp(k, kv->key, klen) != 0)
                                        continue;
                                found[j] = true;
                                if (strlen(kv->value) == vlen && memcmp(v, kv->value, vlen) == 0)
                                        break;
                                /* keep the indentation and spacing around '=' */
                                sb_append(&b, l->p, (size_t)(v - l->p));
                                sb_append(&b, kv->value, strlen(kv->value));
                                sb_append(&b, v + vlen, (size_t)(l->p + l->len - (v + vlen)));
                                sb_append(&b, l->eol, l->eollen);
                                diff = true;
                                goto next;
                        }
                }
                sb_append(&b, l->p, l->len);
                sb_append(&b, l->eol, l->eollen);
                /* missing keys go right after the first header of the section */
                if ((ssize_t)i == header) {
                        if (l->eollen == 0) /* a header on the last line without an ending */
                                sb_append(&b, eol, strlen(eol));
                        /* a key set further down the section is rewritten there instead */
                        for (size_t j = 0; j < keys->n; j++) {
                                bool present = false;
                                char sec2[128];
                                snprintf(sec2, sizeof(sec2), "%s", section);
                                for (size_t m = i + 1; m < nlines && !present; m++) {
                                        const char *k2, *v2;
                                        size_t k2len, v2len;
                                        if (line_section(&lines[m], sec2, sizeof(sec2)))
                                                continue;
                                        if (strcasecmp(sec2, section) == 0 &&
                                            line_key(&lines[m], &k2, &k2len, &v2, &v2len) &&
                                            strlen(keys->v[j].key) == k2len &&
                                            strncasecmp(k2, keys->v[j].key, k2len) == 0)
                                                present = true;
                                }
                                if (!present) {
                                        sb_printf(&b, "%s=%s%s", keys->v[j].key, keys->v[j].value,
                                                  eol);
                                        found[j] = true;
                                        diff = true;
                                }
                        }
                }
        next:;
        }
        if (header < 0) {
                bool any = false;
                for (size_t j = 0; j < keys->n; j++)
                        any |= !found[j];
                if (any) {
                        if (nlines > 0 && lines[nlines - 1].eollen == 0)
                                sb_append(&b, eol, strlen(eol));
                        sb_printf(&b, "[%s]%s", section, eol);
                        for (size_t j = 0; j < keys->n; j++)
                                if (!found[j])
                                        sb_printf(&b, "%s=%s%s", keys->v[j].key, keys->v[j].value,
                                                  eol);
                        diff = true;
                }
        }
        free(found);
        free(lines);
        int r = sb_finish(&b, out, outlen);
        if (r < 0)
                return r;
        *changed = diff;
        return 0;
}
