/* fio-style job options: one setter for the command line, job files and the wire, applying the
 * table of options-table.c; defaults; help. Whole-job checks are in options-validate.c. */
#include <assert.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "options-fio.h"
#include "options-internal.h"
#include "parse.h"
#include "suggest.h"

static const char *const rw_names[] = {
    [RW_READ] = "read",
    [RW_WRITE] = "write",
    [RW_RANDREAD] = "randread",
    [RW_RANDWRITE] = "randwrite",
    [RW_RW] = "rw",
    [RW_RANDRW] = "randrw",
    NULL,
};

/* --- messages -------------------------------------------------------------------------- */

/* Cuts a UTF-8 sequence that truncation left incomplete at the end of s. */
static void utf8_trim_tail(char *s)
{
        size_t len = strlen(s), i = len, cont = 0, need;
        unsigned char c;

        while (i > 0 && cont < 3 && ((unsigned char)s[i - 1] & 0xC0) == 0x80) {
                i--;
                cont++;
        }
        if (i == 0)
                return;
        c = (unsigned char)s[i - 1];
        if (c < 0xC0)
                return;
        need = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : 2;
        if (cont + 1 < need)
                s[i - 1] = '\0';
}

void options_err(char *err, size_t errlen, const char *fmt, ...)
{
        va_list ap;
        int n;

        if (!err || errlen == 0)
                return;
        va_start(ap, fmt);
        n = vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
        if (n < 0)
                err[0] = '\0';
        else if ((size_t)n >= errlen)
                utf8_trim_tail(err);
}

/* Quotes user text into buf (ECHO_BUF bytes) as one printable line, shortened with "...". */
const char *options_echo(char *buf, const char *s)
{
        size_t o = 0, i;

        for (i = 0; s[i]; i++) {
                unsigned char c = (unsigned char)s[i];

                if (i >= ECHO_MAX) {
                        buf[o] = '\0';
                        utf8_trim_tail(buf);
                        o = strlen(buf);
                        memcpy(buf + o, "...", 4);
                        return buf;
                }
                if (c == '\n' || c == '\r' || c == '\t') {
                        buf[o++] = '\\';
                        buf[o++] = c == '\n' ? 'n' : c == '\r' ? 'r' : 't';
                } else if (c < 0x20 || c == 0x7f) {
                        o += (size_t)snprintf(buf + o, 5, "\\x%02x", c);
                } else {
                        buf[o++] = (char)c;
                }
        }
        buf[o] = '\0';
        return buf;
}

/* "a, b, c" into buf; shortened safely when it does not fit. */
const char *options_join(char *buf, size_t n, const char *const *list, const char *sep)
{
        size_t o = 0;

        buf[0] = '\0';
        for (size_t i = 0; list[i] && o < n; i++) {
                int w = snprintf(buf + o, n - o, "%s%s", i ? sep : "", list[i]);
                if (w < 0)
                        break;
                o += (size_t)w;
        }
        return buf;
}

bool options_str_in(const char *s, const char *const *list)
{
        for (size_t i = 0; list && list[i]; i++)
                if (streq(s, list[i]))
                        return true;
        return false;
}

/* Shortest form that parse_size() reads back: "64k", "2g", or plain bytes. */
const char *options_format_size(char *buf, size_t n, uint64_t v)
{
        static const char units[] = "kmgtp";

        for (int i = 4; v && i >= 0; i--) {
                unsigned shift = 10 * (unsigned)(i + 1);
                if (v % (1ULL << shift) == 0) {
                        snprintf(buf, n, "%llu%c", (unsigned long long)(v >> shift), units[i]);
                        return buf;
                }
        }
        snprintf(buf, n, "%llu", (unsigned long long)v);
        return buf;
}

const char *options_format_value(char *buf, size_t n, const job_option_t *o, uint64_t v)
{
        if (o->type == OPT_SIZE)
                return options_format_size(buf, n, v);
        if (o->type == OPT_TIME)
                return format_duration(buf, n, v);
        snprintf(buf, n, "%llu", (unsigned long long)v);
        return buf;
}

/* --- rw modes ------------------------------------------------------------------------- */

const char *rw_mode_to_string(rw_mode_t m)
{
        if ((unsigned)m >= ELEMENTSOF(rw_names) - 1)
                return NULL;
        return rw_names[m];
}

bool rw_mode_is_read(rw_mode_t m)
{
        return m == RW_READ || m == RW_RANDREAD;
}

bool rw_mode_is_random(rw_mode_t m)
{
        return m == RW_RANDREAD || m == RW_RANDWRITE || m == RW_RANDRW;
}

bool rw_mode_has_read(rw_mode_t m)
{
        return m == RW_READ || m == RW_RANDREAD || m == RW_RW || m == RW_RANDRW;
}

bool rw_mode_has_write(rw_mode_t m)
{
        return m == RW_WRITE || m == RW_RANDWRITE || m == RW_RW || m == RW_RANDRW;
}

/* fio reads ':' in a path option as a separator of several paths and "\:" as a ':'. */
static int unescape_fio_path(const char *key, const char *s, char **ret, char *err, size_t errlen)
{
        char vb[ECHO_BUF];
        char *c = malloc(strlen(s) + 1), *o = c;

        if (!c)
                return -ENOMEM;
        for (const char *p = s; *p; p++) {
                if (p[0] == '\\' && p[1] == ':') {
                        *o++ = ':';
                        p++;
                } else if (*p == ':') {
                        options_err(err, errlen,
                                    "%s: '%s' lists several paths, which iofleet does not support "
                                    "yet (write '\\:' for a ':' inside a path)",
                                    key, options_echo(vb, s));
                        free(c);
                        return -EOPNOTSUPP;
                } else {
                        *o++ = *p;
                }
        }
        *o = '\0';
        *ret = c;
        return 0;
}

/* Index of value in o->choices, or -errno with a message. */
static int choice_find(const job_option_t *o, const char *key, const char *value, char *err,
                       size_t errlen)
{
        char vb[ECHO_BUF], list[256];
        const char *colon = strchr(value, ':');

        for (size_t i = 0; o->choices[i]; i++)
                if (streq(value, o->choices[i]))
                        return (int)i;
        options_join(list, sizeof(list), o->choices, ", ");
        if (streq(o->name, "ioengine") && streq(value, "exec")) {
                options_err(err, errlen,
                            "%s: fio's 'exec' is not supported by iofleet: it runs a program the job "
                            "names, and agents, running as root, run only programs their config "
                            "names (allow_commands) through exec_prerun/exec_postrun (use %s)",
                            key, list);
                return -EOPNOTSUPP;
        }
        if (options_str_in(value, o->fio_choices)) {
                options_err(err, errlen, "%s: fio's '%s' is not supported by iofleet yet (use %s)",
                            key, value, list);
                return -EOPNOTSUPP;
        }
        if (colon) {
                /* fio's "randread:8", "external:/path/engine.so" */
                char base[32];
                size_t n = (size_t)(colon - value);

                if (n < sizeof(base)) {
                        memcpy(base, value, n);
                        base[n] = '\0';
                        if (options_str_in(base, o->choices) ||
                            options_str_in(base, o->fio_choices)) {
                                options_err(err, errlen,
                                            "%s: fio's ':' suffix in '%s' is not supported by "
                                            "iofleet yet (use %s)",
                                            key, options_echo(vb, value), list);
                                return -EOPNOTSUPP;
                        }
                }
        }
        options_err(err, errlen, "%s: '%s' is not one of %s", key, options_echo(vb, value), list);
        return -EINVAL;
}

/* --- the table at work ---------------------------------------------------------------- */

static void *field_at(job_spec_t *j, size_t offset)
{
        return (char *)j + offset;
}

int options_range_error(const job_option_t *o, const char *key, const char *what, const char *shown,
                        char *err, size_t errlen)
{
        char lo[32], hi[32];

        options_err(err, errlen, "%s: %s%s is out of range %s..%s", key, what, shown,
                    options_format_value(lo, sizeof(lo), o, o->min),
                    options_format_value(hi, sizeof(hi), o, o->max));
        return -ERANGE;
}

/* One number of option o into *ret; part names the direction of one of several values. */
static int parse_number(const job_option_t *o, const char *key, const char *s, const char *part,
                        int kb_base, uint64_t *ret, char *err, size_t errlen)
{
        char vb[ECHO_BUF], what[16] = "";
        const char *why = NULL;
        uint64_t v = 0;
        int r;

        if (part)
                snprintf(what, sizeof(what), "%s value ", part);
        if (o->fio_range && strpbrk(s + 1, "-:")) {
                options_err(err, errlen,
                            "%s: fio's range '%s' is not supported by iofleet yet (give one value, "
                            "e.g. %s=%s)",
                            key, options_echo(vb, s), key, o->example);
                return -EOPNOTSUPP;
        }
        if (o->per_ddir && strpbrk(s + 1, "-:")) {
                options_err(err, errlen,
                            "%s: %s'%s' is not a value (fio's ranges are not supported yet; "
                            "read,write values are separated by ',')",
                            key, what, options_echo(vb, s));
                return -EINVAL;
        }
        if (o->type == OPT_TIME)
                r = parse_duration_why(s, o->unit_ns, &v, &why);
        else
                r = parse_size_base_why(s, kb_base, &v, &why);
        if (r == -ERANGE)
                return options_range_error(o, key, what, options_echo(vb, s), err, errlen);
        if (r < 0) {
                if (o->type == OPT_UINT32 || o->type == OPT_COUNT)
                        options_err(err, errlen, "%s: %s'%s' is not a whole number (e.g. %s=%s)",
                                    key, what, options_echo(vb, s), key, o->example);
                else if (strchr(why, '(')) /* the reason brings its own hint */
                        options_err(err, errlen, "%s: %s'%s' %s", key, what, options_echo(vb, s),
                                    why);
                else
                        options_err(err, errlen, "%s: %s'%s' %s (e.g. %s=%s)", key, what,
                                    options_echo(vb, s), why, key, o->example);
                return r;
        }
        if ((v < o->min && !(o->zero_unset && v == 0)) || v > o->max)
                return options_range_error(o, key, what, options_echo(vb, s), err, errlen);
        *ret = v;
        return 0;
}

static void store_number(const job_option_t *o, job_spec_t *j, size_t offset, uint64_t v)
{
        if (o->no_effect)
                return;
        if (o->inverse)
                v = o->max - v;
        if (o->type == OPT_UINT32)
                *(uint32_t *)field_at(j, offset) = (uint32_t)v;
        else
                *(uint64_t *)field_at(j, offset) = v;
}

/* fio's "read,write,trim" values: an empty part leaves its direction alone, and the last part
 * also applies to the directions after it unless a ',' ends the value ("4k," is reads only). */
static int set_per_ddir(const job_option_t *o, const char *key, const char *value, job_spec_t *j,
                        char *err, size_t errlen)
{
        static const char *const ddir_names[] = {"read", "write", "trim"};
        char vb[ECHO_BUF], *copy = strdup(value), *parts[3], *p = copy, *comma;
        uint64_t v[3] = {0}, x;
        bool given[3] = {false}, any = false;
        size_t n = 0;
        int r = 0;

        if (!copy)
                return -ENOMEM;
        for (;;) {
                parts[n++] = p;
                comma = strchr(p, ',');
                if (!comma)
                        break;
                if (n == ELEMENTSOF(parts)) {
                        options_err(
                            err, errlen,
                            "%s: '%s' has more than 3 comma-separated values (read,write,trim)",
                            key, options_echo(vb, value));
                        r = -EINVAL;
                        goto out;
                }
                *comma = '\0';
                p = comma + 1;
        }
        for (size_t i = 0; i < n; i++) {
                if (!*parts[i])
                        continue;
                r = parse_number(o, key, parts[i], n > 1 ? ddir_names[i] : NULL, j->kb_base, &x,
                                 err, errlen);
                if (r < 0)
                        goto out;
                any = true;
                for (size_t d = i; d < ELEMENTSOF(v) && (d == i || i == n - 1); d++) {
                        v[d] = x;
                        given[d] = true;
                }
        }
        if (!any) {
                options_err(err, errlen, "%s: needs a value (e.g. %s=%s)", key, key, o->example);
                r = -EINVAL;
                goto out;
        }
        if (given[DDIR_READ])
                store_number(o, j, o->offset, v[DDIR_READ]);
        if (given[DDIR_WRITE])
                store_number(o, j, o->offset_write, v[DDIR_WRITE]);
        /* a trim value is checked and dropped: iofleet has no trim workloads */
out:
        free(copy);
        return r;
}

/* fio's "size=20%": a whole percentage 1..100 of what the file holds, stored apart from the
 * bytes (which it clears, as a later byte value clears the percentage). */
static int set_percent(const job_option_t *o, const char *key, const char *value, job_spec_t *j,
                       char *err, size_t errlen)
{
        char vb[ECHO_BUF], *end;
        unsigned long v;

        errno = 0;
        v = strtoul(value, &end, 10);
        if (end == value || *end != '%' || end[1] || errno || v < 1 || v > 100 ||
            value[0] == '-' || value[0] == '+' || value[0] == ' ') {
                options_err(err, errlen,
                            "%s: '%s' is not a percentage (a whole number 1..100 followed by %%, "
                            "e.g. %s=20%%)",
                            key, options_echo(vb, value), key);
                return -EINVAL;
        }
        if (!o->no_effect) {
                *(uint32_t *)field_at(j, o->percent_offset) = (uint32_t)v;
                *(uint64_t *)field_at(j, o->offset) = 0;
        }
        return 0;
}

static int set_number(const job_option_t *o, const char *key, const char *value, job_spec_t *j,
                      char *err, size_t errlen)
{
        uint64_t v = 0;
        int r;

        if (o->per_ddir)
                return set_per_ddir(o, key, value, j, err, errlen);
        if (o->percent_offset && value[0] && value[strlen(value) - 1] == '%')
                return set_percent(o, key, value, j, err, errlen);
        r = parse_number(o, key, value, NULL, j->kb_base, &v, err, errlen);
        if (r < 0)
                return r;
        store_number(o, j, o->offset, v);
        if (o->percent_offset && !o->no_effect)
                *(uint32_t *)field_at(j, o->percent_offset) = 0;
        if (o->sets_randseed)
                j->randseed_set = true;
        return 0;
}

static int set_string(const job_option_t *o, const char *key, const char *value, job_spec_t *j,
                      char *err, size_t errlen)
{
        char *copy = NULL, **dst = field_at(j, o->offset);
        int r;

        if (o->choices) {
                r = choice_find(o, key, value, err, errlen);
                if (r < 0)
                        return r;
                value = o->choices[r];
        }
        if (o->fio_paths) {
                r = unescape_fio_path(key, value, &copy, err, errlen);
                if (r < 0)
                        return r;
        } else {
                copy = strdup(value);
                if (!copy)
                        return -ENOMEM;
        }
        if (o->check) {
                r = o->check(key, copy, err, errlen);
                if (r < 0) {
                        free(copy);
                        return r;
                }
        }
        if (o->no_effect) {
                free(copy);
                return 0;
        }
        free(*dst);
        *dst = copy;
        return 0;
}

static int set_enum(const job_option_t *o, const char *key, const char *value, job_spec_t *j,
                    char *err, size_t errlen)
{
        int r = choice_find(o, key, value, err, errlen);

        if (r < 0)
                return r;
        if (!o->no_effect)
                *(int *)field_at(j, o->offset) = o->values ? o->values[r] : r;
        return 0;
}

const job_option_t *options_at(size_t i)
{
        if (i < options_table_len)
                return &options_table[i];
        i -= options_table_len;
        if (i < options_table_io_len)
                return &options_table_io[i];
        i -= options_table_io_len;
        if (i < options_table_files_len)
                return &options_table_files[i];
        i -= options_table_files_len;
        if (i < options_table_stats_len)
                return &options_table_stats[i];
        i -= options_table_stats_len;
        return i < options_table_logs_len ? &options_table_logs[i] : NULL;
}

static const job_option_t *option_find(const char *key)
{
        const job_option_t *o;

        for (size_t i = 0; (o = options_at(i)); i++) {
                if (streq(key, o->name))
                        return o;
                for (size_t a = 0; a < ELEMENTSOF(o->aliases) && o->aliases[a]; a++)
                        if (streq(key, o->aliases[a]))
                                return o;
        }
        return NULL;
}

/* --- unknown options ------------------------------------------------------------------ */

/* Copies the next space-separated word of *p into buf (n bytes); false at the end. */
static bool next_word(const char **p, char *buf, size_t n)
{
        const char *s = *p + strspn(*p, " ");
        size_t len = strcspn(s, " ");

        if (len == 0 || len >= n)
                return false;
        memcpy(buf, s, len);
        buf[len] = '\0';
        *p = s + len;
        return true;
}

static bool word_in(const char *w, const char *words)
{
        char buf[64];

        while (next_word(&words, buf, sizeof(buf)))
                if (streq(w, buf))
                        return true;
        return false;
}

void job_options_offer(suggest_t *s)
{
        const char *words = job_fio_unsupported_options;
        const job_option_t *o;
        char w[64];

        for (size_t i = 0; (o = options_at(i)); i++) {
                suggest_offer(s, o->name);
                for (size_t a = 0; a < ELEMENTSOF(o->aliases); a++)
                        if (o->aliases[a])
                                suggest_offer(s, o->aliases[a]);
        }
        while (next_word(&words, w, sizeof(w)))
                suggest_offer(s, w);
}

int job_option_known(const char *key)
{
        const job_option_t *o = option_find(key);
        if (o)
                return o->type == OPT_BOOL || o->value_optional ? JOB_OPTION_FLAG
                                                                : JOB_OPTION_VALUE;
        return word_in(key, job_fio_unsupported_options) ? JOB_OPTION_UNSUPPORTED : -ENOENT;
}

static int set_value(const job_option_t *o, const char *key, const char *value, job_spec_t *j,
                     char *err, size_t errlen)
{
        char vb[ECHO_BUF];
        bool b;

        if (o->type == OPT_BOOL) {
                /* fio's "--time_based" with no value means on */
                if (parse_bool(value ? value : "", &b) < 0) {
                        options_err(err, errlen,
                                    "%s: '%s' is not a boolean (1/0, true/false, yes/no, on/off)",
                                    key, options_echo(vb, value));
                        return -EINVAL;
                }
                if (!o->no_effect)
                        *(bool *)field_at(j, o->offset) = o->inverse ? !b : b;
                return 0;
        }
        if (strempty(value) && o->value_optional && o->type == OPT_STR)
                return set_string(o, key, "", j, err, errlen);
        if (strempty(value)) {
                options_err(err, errlen, "%s: needs a value (e.g. %s=%s)", key, key, o->example);
                return -EINVAL;
        }

        switch (o->type) {
        case OPT_ENUM:
                return set_enum(o, key, value, j, err, errlen);
        case OPT_STR:
                return set_string(o, key, value, j, err, errlen);
        case OPT_SIZE:
        case OPT_COUNT:
        case OPT_UINT32:
        case OPT_TIME:
                return set_number(o, key, value, j, err, errlen);
        case OPT_CUSTOM:
                return o->set(j, key, value, err, errlen);
        case OPT_BOOL:
                break;
        }
        assert(!"unhandled option type");
        return -EINVAL;
}

int job_option_set(job_spec_t *j, const char *key, const char *value, char *err, size_t errlen)
{
        char kb[ECHO_BUF];
        const job_option_t *o;
        suggest_t hint;
        int r;

        assert(j);
        assert(key);

        if (key[0] == '-' && key[1] == '-')
                key += 2;
        o = option_find(key);
        if (!o) {
                if (word_in(key, job_fio_unsupported_options)) {
                        options_err(err, errlen, "fio option '%s' is not supported by iofleet yet",
                                    key);
                        return -EOPNOTSUPP;
                }
                suggest_init(&hint, key);
                job_options_offer(&hint);
                if (suggest_result(&hint))
                        options_err(err, errlen, "unknown option '%s' (did you mean '%s'?)",
                                    options_echo(kb, key), suggest_result(&hint));
                else
                        options_err(err, errlen, "unknown option '%s'", options_echo(kb, key));
                return -ENOENT;
        }

        r = set_value(o, key, value, j, err, errlen);
        if (r >= 0 && o->offset_given)
                *(bool *)field_at(j, o->offset_given) = true;
        return r;
}

bool job_option_early(const char *key)
{
        if (key[0] == '-' && key[1] == '-')
                key += 2;
        return streq(key, "kb_base"); /* fio's option priority 1 */
}

/* --- defaults ------------------------------------------------------------------------- */

int job_spec_init(job_spec_t *j, const char *name)
{
        job_spec_t n = {
            .rw = RW_READ,
            .rwmixread = 50,
            .bs = 4096,
            .bs_write = 4096,
            .nrfiles = 1,
            .numjobs = 1,
            .iodepth = 1,
            .iodepth_batch_submit = 1,
            .iodepth_batch_complete_min = 1,
            .invalidate = true,
            .randrepeat = true,
            .randseed = JOB_RANDSEED_DEFAULT,
            .verify = VERIFY_NONE,
            .metadata_dirs = 1,
        };

        assert(j);
        if (name && !(n.name = strdup(name)))
                goto fail;
        if (!(n.ioengine = strdup(ENGINE_DEFAULT)) || !(n.metadata_order = strdup("both")))
                goto fail;
        options_io_defaults(&n);
        options_files_defaults(&n);
        options_stats_defaults(&n);
        options_logs_defaults(&n);
        *j = n;
        return 0;
fail:
        job_spec_done(&n);
        return -ENOMEM;
}

/* Calls f on every string field of j once: the table's OPT_STR options (name, ioengine, the
 * paths, ...), whatever table they are in, so that a new one is freed and copied too. */
static void each_string(job_spec_t *j, void (*f)(char **p, void *u), void *u)
{
        const job_option_t *o;

        for (size_t i = 0; (o = options_at(i)); i++) {
                bool seen = false;
                if (o->type != OPT_STR || o->no_effect)
                        continue;
                for (size_t k = 0; k < i && !seen; k++) {
                        const job_option_t *e = options_at(k);
                        seen = e->type == OPT_STR && !e->no_effect && e->offset == o->offset;
                }
                if (!seen)
                        f(field_at(j, o->offset), u);
        }
}

static void string_free(char **p, void *u)
{
        (void)u;
        free(*p);
        *p = NULL;
}

/* Replaces *p with a copy (NULL when out of memory, and *failed). */
static void string_dup(char **p, void *u)
{
        bool *failed = u;
        if (*p && !(*p = strdup(*p)))
                *failed = true;
}

void job_spec_done(job_spec_t *j)
{
        if (!j)
                return;
        each_string(j, string_free, NULL);
}

int job_spec_copy(job_spec_t *dst, const job_spec_t *src)
{
        bool failed = false;

        *dst = *src;
        each_string(dst, string_dup, &failed);
        if (failed) {
                job_spec_done(dst); /* every string is a copy or NULL */
                return -ENOMEM;
        }
        return 0;
}

/* --- help ----------------------------------------------------------------------------- */

static const char *const type_names[] = {
    [OPT_STR] = "str",    [OPT_ENUM] = "str",  [OPT_SIZE] = "size", [OPT_COUNT] = "int",
    [OPT_UINT32] = "int", [OPT_TIME] = "time", [OPT_BOOL] = "bool", [OPT_CUSTOM] = "str",
};

bool job_option_doc(size_t i, job_option_doc_t *d)
{
        const job_option_t *o;
        char lo[32], hi[32];

        if (!(o = options_at(i)))
                return false;
        memset(d, 0, sizeof(*d));
        d->name = o->name;
        d->aliases[0] = o->aliases[0];
        d->aliases[1] = o->aliases[1];
        d->type = type_names[o->type];
        d->def = o->def;
        d->help = o->help;
        d->choices = o->choices;
        d->flag = o->type == OPT_BOOL;
        d->path = o->fio_paths;
        if (o->choices)
                options_join(d->range, sizeof(d->range), o->choices, "|");
        else if (o->type == OPT_BOOL)
                snprintf(d->range, sizeof(d->range), "0|1");
        else if (o->range)
                snprintf(d->range, sizeof(d->range), "%s", o->range);
        else
                snprintf(d->range, sizeof(d->range), "%s..%s",
                         options_format_value(lo, sizeof(lo), o, o->min),
                         options_format_value(hi, sizeof(hi), o, o->max));
        return true;
}

void job_options_help(FILE *f)
{
        job_option_doc_t d;

        fprintf(f, "%-26s %-4s %-9s %-30s %s\n", "option", "type", "default", "range",
                "description");
        for (size_t i = 0; job_option_doc(i, &d); i++) {
                fprintf(f, "%-26s %-4s %-9s %-30s %s", d.name, d.type, d.def ? d.def : "-",
                        d.range, d.help);
                for (size_t a = 0; a < ELEMENTSOF(d.aliases) && d.aliases[a]; a++)
                        fprintf(f, "%s%s", a ? ", " : " (alias: ", d.aliases[a]);
                fputs(d.aliases[0] ? ")\n" : "\n", f);
        }
}
