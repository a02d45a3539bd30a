/* NFS server settings: the [server] key table and the checks it drives. */
#include "nfs-settings.h"

#include <assert.h>
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
#define E(f) .offset = offsetof(nfs_export_t, f), .size = sizeof(((nfs_export_t *)0)->f)

static bool path_ok(const char *v, size_t max);
static bool clients_ok(const char *v, size_t max);
static bool fsid_ok(const char *v, size_t max);

static const nfs_word_t access_words[] = {{"rw", 0, 0}, {"ro", 1, 0}, {NULL, 0, 0}};
static const nfs_word_t sync_words[] = {{"sync", 1, 0}, {"async", 0, 0}, {NULL, 0, 0}};
static const nfs_word_t squash_words[] = {{"root_squash", NFS_SQUASH_ROOT, 0},
                                          {"no_root_squash", NFS_SQUASH_NONE, 0},
                                          {"all_squash", NFS_SQUASH_ALL, 0},
                                          {NULL, 0, 0}};
const nfs_word_t nfs_sec_words[] = {{"sys", NFS_SEC_SYS, 0},     {"krb5", NFS_SEC_KRB5, 0},
                                    {"krb5i", NFS_SEC_KRB5I, 0}, {"krb5p", NFS_SEC_KRB5P, 0},
                                    {"none", NFS_SEC_NONE, G},   {NULL, 0, 0}};
static const nfs_word_t version_words[] = {
    {"3", NFS_V3, 0},    {"4", NFS_V40 | NFS_V41 | NFS_V42, 0},
    {"4.0", NFS_V40, K}, {"4.1", NFS_V41, K},
    {"4.2", NFS_V42, K}, {NULL, 0, 0}};
static const nfs_word_t deleg_words[] = {{"none", NFS_DELEG_NONE, 0},
                                         {"read", NFS_DELEG_READ, 0},
                                         {"write", NFS_DELEG_WRITE, 0},
                                         {"readwrite", NFS_DELEG_RW, 0},
                                         {NULL, 0, 0}};
static const nfs_word_t transport_words[] = {
    {"tcp", NFS_TRANSPORT_TCP, 0}, {"udp", NFS_TRANSPORT_UDP, 0}, {NULL, 0, 0}};

/* A boolean into an int field: true gives t, false f. */
#define BOOL_TO(t, f) .type = NFS_SET_ENUM, .boolean = true, .if_true = (t), .if_false = (f)

static const nfs_setting_t settings_table[] = {
    {.key = "backend",
     .example = "kernel",
     .backends = K | G,
     .range = "kernel, ganesha",
     .help = "which NFS server serves the export",
     .type = NFS_SET_BACKEND},
    {.key = "path",
     .example = "/srv/nfs/bench",
     .backends = K | G,
     .range = "an absolute path without spaces or quotes",
     .help = "the exported directory",
     .type = NFS_SET_STRING,
     E(path),
     .valid = path_ok},
    {.key = "clients",
     .example = "10.0.0.0/24",
     .backends = K | G,
     .range = "*, a host, a wildcard, @netgroup or ADDR/PREFIX",
     .help = "who may mount it",
     .def = "*",
     .type = NFS_SET_STRING,
     E(clients),
     .valid = clients_ok},
    {.key = "access",
     .example = "ro",
     .backends = K | G,
     .range = "rw, ro",
     .help = "read-write or read-only",
     .def = "rw",
     .type = NFS_SET_ENUM,
     E(ro),
     .words = access_words,
     .group = NFS_GROUP_ACCESS},
    {.key = "rw",
     .example = "true",
     .backends = K | G,
     .range = BOOLS,
     .help = "same as access=rw (false: access=ro)",
     BOOL_TO(0, 1),
     E(ro),
     .group = NFS_GROUP_ACCESS},
    {.key = "ro",
     .example = "true",
     .backends = K | G,
     .range = BOOLS,
     .help = "same as access=ro (false: access=rw)",
     BOOL_TO(1, 0),
     E(ro),
     .group = NFS_GROUP_ACCESS},
    {.key = "sync",
     .example = "false",
     .backends = K,
     .range = BOOLS ", or sync, async",
     .help = "kernel sync (true) or async (false) export",
     .instead = "ganesha has no sync/async export option; it has nfs_commit",
     BOOL_TO(1, 0),
     E(sync),
     .words = sync_words,
     .group = NFS_GROUP_SYNC},
    {.key = "async",
     .example = "true",
     .backends = K,
     .range = BOOLS,
     .help = "kernel async export (false: sync)",
     .instead = "ganesha has no sync/async export option; it has nfs_commit",
     BOOL_TO(0, 1),
     E(sync),
     .group = NFS_GROUP_SYNC},
    {.key = "root_squash",
     .example = "no_root_squash",
     .backends = K | G,
     .range = "root_squash, no_root_squash, all_squash, or " BOOLS,
     .help = "how remote root (or everyone) is mapped",
     BOOL_TO(NFS_SQUASH_ROOT, NFS_SQUASH_NONE),
     E(squash),
     .words = squash_words,
     .group = NFS_GROUP_SQUASH},
    {.key = "no_root_squash",
     .example = "true",
     .backends = K | G,
     .range = BOOLS,
     .help = "same as root_squash=no_root_squash",
     BOOL_TO(NFS_SQUASH_NONE, NFS_SQUASH_ROOT),
     E(squash),
     .group = NFS_GROUP_SQUASH},
    {.key = "all_squash",
     .example = "false",
     .backends = K | G,
     .range = BOOLS,
     .help = "same as root_squash=all_squash",
     BOOL_TO(NFS_SQUASH_ALL, NFS_SQUASH_ROOT),
     E(squash),
     .group = NFS_GROUP_SQUASH},
    {.key = "wdelay",
     .example = "false",
     .backends = K,
     .range = BOOLS,
     .help = "kernel: delay writes expecting more (wdelay/no_wdelay)",
     .instead = "ganesha has no wdelay export option",
     BOOL_TO(1, 0),
     E(wdelay)},
    {.key = "subtree_check",
     .example = "false",
     .backends = K,
     .range = BOOLS,
     .help = "kernel: subtree_check/no_subtree_check",
     .instead = "ganesha has no subtree_check export option",
     BOOL_TO(1, 0),
     E(subtree_check)},
    {.key = "fsid",
     .example = "root",
     .backends = K,
     .range = "root, 0-4294967295 or a UUID",
     .help = "kernel: the export's fsid",
     .instead = "ganesha has no fsid export option (it has Filesystem_id, not settable here)",
     .type = NFS_SET_STRING,
     E(fsid),
     .valid = fsid_ok},
    {.key = "sec",
     .example = "sys,krb5p",
     .backends = K | G,
     .range = "comma list of sys, krb5, krb5i, krb5p (ganesha also none)",
     .help = "security flavours (kernel sec=, ganesha SecType)",
     .type = NFS_SET_WORDS,
     E(sec),
     .words = nfs_sec_words,
     .what = "a %s security flavour"},
    {.key = "versions",
     .example = "3,4",
     .backends = K | G,
     .range = "kernel: comma list of 3, 4, 4.0, 4.1, 4.2; ganesha: 3, 4",
     .help = "NFS versions served (kernel: nfs.conf [nfsd] vers*; ganesha: Protocols)",
     .type = NFS_SET_WORDS,
     E(versions),
     .words = version_words,
     .what = "an NFS version %s serves",
     .note = "ganesha's export Protocols has no minor versions"},
    {.key = "threads",
     .example = "64",
     .backends = K,
     .range = "1-8192",
     .help = "kernel: nfsd threads ([nfsd] threads in nfs.conf)",
     .instead = "ganesha has no worker thread count in NFS_CORE_PARAM (ganesha-core-config(8)); "
                "it has no threads setting",
     .type = NFS_SET_UINT,
     E(threads),
     .min = 1,
     .max = 8192},
    {.key = "max_read",
     .example = "1m",
     .backends = G,
     .range = "4096-67108864 bytes (k/m suffixes)",
     .help = "ganesha: MaxRead of the export",
     .instead = "the kernel has no max_read export option (see /proc/fs/nfsd/max_block_size)",
     .type = NFS_SET_SIZE,
     E(max_read),
     .min = 4096,
     .max = 64 << 20},
    {.key = "max_write",
     .example = "1m",
     .backends = G,
     .range = "4096-67108864 bytes (k/m suffixes)",
     .help = "ganesha: MaxWrite of the export",
     .instead = "the kernel has no max_write export option (see /proc/fs/nfsd/max_block_size)",
     .type = NFS_SET_SIZE,
     E(max_write),
     .min = 4096,
     .max = 64 << 20},
    {.key = "delegations",
     .example = "readwrite",
     .backends = G,
     .range = "none, read, write, readwrite",
     .help = "ganesha: Delegations of the export",
     .instead = "the kernel has no delegations export option",
     .type = NFS_SET_ENUM,
     E(delegations),
     .words = deleg_words},
    {.key = "nfs_commit",
     .example = "true",
     .backends = G,
     .range = BOOLS,
     .help = "ganesha: NFS_Commit (honour COMMIT) of the export",
     .instead = "the kernel has no nfs_commit export option; it has sync/async",
     BOOL_TO(1, 0),
     E(nfs_commit)},
    {.key = "transports",
     .example = "tcp",
     .backends = G,
     .range = "comma list of tcp, udp",
     .help = "ganesha: Transports of the export",
     .instead = "the kernel has no transports export option",
     .type = NFS_SET_WORDS,
     E(transports),
     .words = transport_words,
     .what = "a transport%.0s"},
    {.key = "pseudo",
     .example = "/bench",
     .backends = G,
     .range = "an absolute path without spaces or quotes",
     .help = "ganesha: the NFSv4 pseudo path (default: path)",
     .instead = "the kernel has no pseudo export option",
     .type = NFS_SET_STRING,
     E(pseudo),
     .valid = path_ok},
    {.key = "export_id",
     .example = "2",
     .backends = G,
     .range = "1-65535",
     .help = "ganesha: Export_Id",
     .instead = "the kernel has no export_id option",
     .def = "1",
     .type = NFS_SET_UINT,
     E(export_id),
     .min = 1,
     .max = 65535},
};
#undef BOOL_TO
#undef E
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

static bool fsid_ok(const char *v, size_t max)
{
        if (strlen(v) >= max)
                return false;
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

static bool word_for(const nfs_word_t *w, int backend)
{
        return !w->backends || (w->backends & backend);
}

/* The words a backend has, "a, b, c", and the note when it lacks some. */
static void words_allowed(const nfs_setting_t *st, int backend, char *buf, size_t len)
{
        size_t n = 0;
        bool lacks = false;
        buf[0] = 0;
        for (const nfs_word_t *w = st->words; w->word; w++) {
                if (!word_for(w, backend)) {
                        lacks = true;
                        continue;
                }
                n += snprintf(buf + n, n < len ? len - n : 0, "%s%s", n ? ", " : "", w->word);
        }
        if (lacks && st->note && n < len)
                snprintf(buf + n, len - n, " (%s)", st->note);
}

/* A comma list of words, OR'd; an unknown word, or one this backend lacks, names the list. */
static int parse_words(const nfs_setting_t *st, int backend, const char *v, int line, unsigned *ret,
                       char *err, size_t errlen)
{
        unsigned mask = 0;
        for (const char *p = v;; p++) {
                p += strspn(p, " ");
                size_t len = strcspn(p, ","), wl = len;
                while (wl > 0 && p[wl - 1] == ' ')
                        wl--;
                const nfs_word_t *w = st->words;
                while (w->word && !(word_for(w, backend) && strlen(w->word) == wl &&
                                    strncasecmp(p, w->word, wl) == 0))
                        w++;
                if (!w->word) {
                        char what[64], allowed[256];
                        snprintf(what, sizeof(what), st->what, backend_name(backend));
                        words_allowed(st, backend, allowed, sizeof(allowed));
                        return fail(err, errlen, line, -EINVAL, "%s: '%.*s' is not %s; allowed: %s",
                                    st->key, (int)wl, p, what, allowed);
                }
                mask |= (unsigned)w->value;
                p += len;
                if (!*p)
                        break;
        }
        *ret = mask;
        return 0;
}

/* An ENUM value: one of the words, else a boolean when the key takes one. */
static int parse_enum(const nfs_setting_t *st, const char *v, int *ret)
{
        for (const nfs_word_t *w = st->words; w && w->word; w++)
                if (streq(v, w->word)) {
                        *ret = w->value;
                        return 0;
                }
        int b = st->boolean ? parse_bool(v) : -EINVAL;
        if (b < 0)
                return b;
        *ret = b ? st->if_true : st->if_false;
        return 0;
}

/* Reads value v of key st into e; -EINVAL with err naming line, key, value and what is
 * allowed. */
static int setting_apply(const nfs_setting_t *st, int backend, const char *v, int line,
                         nfs_export_t *e, char *err, size_t errlen)
{
        void *field = (char *)e + st->offset;
        uint64_t u;
        int x, r = 0;
        switch (st->type) {
        case NFS_SET_BACKEND:
                return 0; /* read before the others */
        case NFS_SET_STRING:
                if (!st->valid(v, st->size))
                        r = -EINVAL;
                else
                        snprintf(field, st->size, "%s", v);
                break;
        case NFS_SET_ENUM:
                if ((r = parse_enum(st, v, &x)) == 0)
                        *(int *)field = x;
                break;
        case NFS_SET_WORDS:
                return parse_words(st, backend, v, line, field, err, errlen);
        case NFS_SET_UINT:
        case NFS_SET_SIZE:
                r = parse_uint(v, st->min, st->max, st->type == NFS_SET_SIZE, &u);
                if (r == 0 && st->size == sizeof(uint64_t))
                        *(uint64_t *)field = u;
                else if (r == 0)
                        *(unsigned *)field = (unsigned)u;
                break;
        }
        if (r < 0)
                return fail(err, errlen, line, -EINVAL, "%s: '%s' is not allowed; allowed: %s",
                            st->key, v, st->range);
        return 0;
}

/* The table's defaults: tri-states and enums unset (-1), then every default value. */
static void export_defaults(nfs_export_t *e, int backend)
{
        *e = (nfs_export_t){.backend = backend};
        for (size_t i = 0; i < ELEMENTSOF(settings_table); i++)
                if (settings_table[i].type == NFS_SET_ENUM)
                        *(int *)((char *)e + settings_table[i].offset) = -1;
        for (size_t i = 0; i < ELEMENTSOF(settings_table); i++)
                if (settings_table[i].def) {
                        int r = setting_apply(&settings_table[i], backend, settings_table[i].def, 0,
                                              e, NULL, 0);
                        assert(r == 0);
                        (void)r;
                }
}

/* The backend: the argument, else the settings' own key; both must agree. */
static int backend_of(const char *backend, const kvlist_t *settings, char *err, size_t errlen)
{
        const char *bval = backend;
        int bline = 0;
        for (size_t i = 0; i < settings->n; i++) {
                const kv_t *kv = &settings->v[i];
                if (!streq(kv->key, "backend"))
                        continue;
                if (backend_from(kv->value) < 0)
                        return fail(err, errlen, kv->line, -EINVAL,
                                    "backend: '%s' is not a backend; allowed: kernel, ganesha",
                                    kv->value);
                if (bval && !streq(bval, kv->value))
                        return fail(err, errlen, kv->line, -EINVAL,
                                    "backend: '%s' given, but the server is '%s'", kv->value, bval);
                bval = kv->value;
                bline = kv->line;
        }
        if (!bval)
                return errorf(err, errlen, -EINVAL,
                              "backend: missing; the [server] section needs backend=kernel or "
                              "backend=ganesha");
        if (backend_from(bval) < 0)
                return fail(err, errlen, bline, -EINVAL,
                            "backend: '%s' is not a backend; allowed: kernel, ganesha", bval);
        return backend_from(bval);
}

/* The table entry for settings->v[i]: known, for this backend, not given before. */
static int setting_lookup(const kvlist_t *settings, size_t i, int backend,
                          const nfs_setting_t **ret, char *err, size_t errlen)
{
        const kv_t *kv = &settings->v[i];
        const nfs_setting_t *st = setting_find(kv->key);
        if (!st) {
                char keys[512] = "";
                size_t n = 0;
                for (size_t j = 0; j < ELEMENTSOF(settings_table); j++)
                        if (settings_table[j].backends & backend)
                                n += snprintf(keys + n, n < sizeof(keys) ? sizeof(keys) - n : 0,
                                              "%s%s", n ? ", " : "", settings_table[j].key);
                return fail(err, errlen, kv->line, -EINVAL,
                            "'%s' is not a [server] setting; %s has: %s", kv->key,
                            backend_name(backend), keys);
        }
        if (!(st->backends & backend))
                return fail(err, errlen, kv->line, -EINVAL, "%s: %s", kv->key, st->instead);
        for (size_t j = 0; j < i && st->type != NFS_SET_BACKEND; j++)
                if (streq(settings->v[j].key, kv->key)) {
                        if (settings->v[j].line > 0)
                                return fail(err, errlen, kv->line, -EINVAL,
                                            "%s: given twice (also on line %d)", kv->key,
                                            settings->v[j].line);
                        return fail(err, errlen, kv->line, -EINVAL, "%s: given twice", kv->key);
                }
        *ret = st;
        return 0;
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

int nfs_settings_parse(const char *backend, const kvlist_t *settings, nfs_export_t *out, char *err,
                       size_t errlen)
{
        const kvlist_t empty = {0};
        seen_t seen[NFS_GROUPS] = {{0}};
        nfs_export_t e;
        int b, r;

        if (!settings)
                settings = &empty;
        if ((b = backend_of(backend, settings, err, errlen)) < 0)
                return b;
        export_defaults(&e, b);
        for (size_t i = 0; i < settings->n; i++) {
                const kv_t *kv = &settings->v[i];
                const nfs_setting_t *st = NULL;
                if ((r = setting_lookup(settings, i, b, &st, err, errlen)) < 0 ||
                    (r = setting_apply(st, b, kv->value, kv->line, &e, err, errlen)) < 0 ||
                    (st->group && (r = exclusive(&seen[st->group], kv, err, errlen)) < 0))
                        return r;
        }
        if (!e.path[0])
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
