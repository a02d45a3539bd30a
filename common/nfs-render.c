/* Checked NFS server settings rendered for the servers: the kernel export line, the nfs.conf
 * [nfsd] keys and the edit that sets them in place, the ganesha EXPORT block. Pure: no I/O. */
#include "nfs-settings.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/types.h>

#include "util.h"

/* A growable string built with open_memstream-like appends, without stdio. */
typedef struct sbuf {
        char *s;
        size_t n, cap;
        bool oom;
} sbuf_t;

/* Room for len more bytes and a NUL; false once out of memory. */
static bool sb_reserve(sbuf_t *b, size_t len)
{
        if (b->oom)
                return false;
        if (b->n + len + 1 <= b->cap)
                return true;
        size_t cap = b->cap * 2 + len + 256;
        char *s = realloc(b->s, cap);
        if (!s) {
                b->oom = true;
                return false;
        }
        b->s = s;
        b->cap = cap;
        return true;
}

_printf_(2, 3) static void sb_printf(sbuf_t *b, const char *fmt, ...)
{
        va_list ap;
        va_start(ap, fmt);
        int w = vsnprintf(NULL, 0, fmt, ap);
        va_end(ap);
        if (w < 0)
                b->oom = true;
        if (w < 0 || !sb_reserve(b, (size_t)w))
                return;
        va_start(ap, fmt);
        vsnprintf(b->s + b->n, b->cap - b->n, fmt, ap);
        va_end(ap);
        b->n += (size_t)w;
}

static void sb_append(sbuf_t *b, const char *p, size_t len)
{
        if (!sb_reserve(b, len))
                return;
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
        bool first = true;
        for (const nfs_word_t *w = nfs_sec_words; w->word; w++)
                if (sec & (unsigned)w->value) {
                        sb_printf(b, "%s%s", first ? "" : sep, w->word);
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

/* Each line of in, keeping its own ending; *ret is malloc'd. 0 or -ENOMEM. */
static int split_lines(const char *in, size_t inlen, cline_t **ret, size_t *n)
{
        size_t nlines = 0, cap = 0;
        cline_t *lines = NULL;
        for (size_t off = 0; off < inlen;) {
                const char *nl = memchr(in + off, '\n', inlen - off);
                size_t end = nl ? (size_t)(nl - in) : inlen;
                cline_t l = {in + off, end - off, "", 0};
                if (nl && l.len > 0 && l.p[l.len - 1] == '\r')
                        l.len--, l.eol = "\r\n", l.eollen = 2;
                else if (nl)
                        l.eol = "\n", l.eollen = 1;
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
        *ret = lines;
        *n = nlines;
        return 0;
}

static bool key_is(const char *k, size_t klen, const char *key)
{
        return strlen(key) == klen && strncasecmp(k, key, klen) == 0;
}

/* Whether key is set in a [section] block anywhere after line from. */
static bool key_later(const cline_t *lines, size_t from, size_t n, const char *section,
                      const char *key)
{
        char cur[128];
        snprintf(cur, sizeof(cur), "%s", section);
        for (size_t m = from + 1; m < n; m++) {
                const char *k, *v;
                size_t klen, vlen;
                if (line_section(&lines[m], cur, sizeof(cur)))
                        continue;
                if (strcasecmp(cur, section) == 0 && line_key(&lines[m], &k, &klen, &v, &vlen) &&
                    key_is(k, klen, key))
                        return true;
        }
        return false;
}

/* What an edit is doing: the output, the keys and which of them the file has now. */
typedef struct conf_edit {
        sbuf_t b;
        const char *section;
        const kvlist_t *keys;
        bool *found;
        const char *eol; /* for lines added: the file's first line ending */
        bool changed;
} conf_edit_t;

/* An active line of the section that keys give another value: written here with that value,
 * its indentation, spacing around '=' and ending kept. False when the line stays as it is. */
static bool rewrite_line(conf_edit_t *c, const cline_t *l)
{
        const char *k, *v;
        size_t klen, vlen;
        if (!line_key(l, &k, &klen, &v, &vlen))
                return false;
        for (size_t j = 0; j < c->keys->n; j++) {
                const kv_t *kv = &c->keys->v[j];
                if (!key_is(k, klen, kv->key))
                        continue;
                c->found[j] = true;
                if (strlen(kv->value) == vlen && memcmp(v, kv->value, vlen) == 0)
                        return false;
                sb_append(&c->b, l->p, (size_t)(v - l->p));
                sb_append(&c->b, kv->value, strlen(kv->value));
                sb_append(&c->b, v + vlen, (size_t)(l->p + l->len - (v + vlen)));
                sb_append(&c->b, l->eol, l->eollen);
                c->changed = true;
                return true;
        }
        return false;
}

/* After the section's first header (line i): the keys the section does not set further down. */
static void insert_missing(conf_edit_t *c, const cline_t *lines, size_t i, size_t n)
{
        if (lines[i].eollen == 0) /* a header on the last line without an ending */
                sb_append(&c->b, c->eol, strlen(c->eol));
        for (size_t j = 0; j < c->keys->n; j++)
                if (!key_later(lines, i, n, c->section, c->keys->v[j].key)) {
                        sb_printf(&c->b, "%s=%s%s", c->keys->v[j].key, c->keys->v[j].value, c->eol);
                        c->found[j] = true;
                        c->changed = true;
                }
}

/* No such section: appended at the end with the keys not found. */
static void append_section(conf_edit_t *c, const cline_t *lines, size_t n)
{
        bool any = false;
        for (size_t j = 0; j < c->keys->n; j++)
                any |= !c->found[j];
        if (!any)
                return;
        if (n > 0 && lines[n - 1].eollen == 0)
                sb_append(&c->b, c->eol, strlen(c->eol));
        sb_printf(&c->b, "[%s]%s", c->section, c->eol);
        for (size_t j = 0; j < c->keys->n; j++)
                if (!c->found[j])
                        sb_printf(&c->b, "%s=%s%s", c->keys->v[j].key, c->keys->v[j].value, c->eol);
        c->changed = true;
}

int nfs_conf_edit(const char *in, size_t inlen, const char *section, const kvlist_t *keys,
                  char **out, size_t *outlen, bool *changed)
{
        conf_edit_t c = {.section = section, .keys = keys};
        cline_t *lines;
        size_t nlines;
        char cur[128] = "";
        ssize_t header = -1;

        if (split_lines(in, inlen, &lines, &nlines) < 0)
                return -ENOMEM;
        c.eol = nlines > 0 && lines[0].eollen ? lines[0].eol : "\n";
        if (!(c.found = calloc(keys->n + 1, sizeof(bool)))) {
                free(lines);
                return -ENOMEM;
        }
        for (size_t i = 0; i < nlines; i++) {
                const cline_t *l = &lines[i];
                char name[128];
                if (line_section(l, name, sizeof(name))) {
                        snprintf(cur, sizeof(cur), "%s", name);
                        if (header < 0 && strcasecmp(cur, section) == 0)
                                header = (ssize_t)i;
                } else if (strcasecmp(cur, section) == 0 && rewrite_line(&c, l))
                        continue;
                sb_append(&c.b, l->p, l->len);
                sb_append(&c.b, l->eol, l->eollen);
                if ((ssize_t)i == header)
                        insert_missing(&c, lines, i, nlines);
        }
        if (header < 0)
                append_section(&c, lines, nlines);
        free(c.found);
        free(lines);
        int r = sb_finish(&c.b, out, outlen);
        if (r < 0)
                return r;
        *changed = c.changed;
        return 0;
}
