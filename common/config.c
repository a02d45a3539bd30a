/* Daemon and CLI configuration: INI files (libinih) and --key=value overrides through one key
 * table. */
#include "config.h"

#include <assert.h>
#include <errno.h>
#include <ini.h>
#include <jansson.h>
#include <stdarg.h>
#include <string.h>

#include "options.h"
#include "parse.h"
#include "util.h"

int strv_push(strv_t *l, const char *s)
{
        char **v = realloc(l->v, (l->n + 1) * sizeof(*v));
        if (!v)
                return -ENOMEM;
        l->v = v;
        if (!(v[l->n] = strdup(s)))
                return -ENOMEM;
        l->n++;
        return 0;
}

void strv_clear(strv_t *l)
{
        for (size_t i = 0; i < l->n; i++)
                free(l->v[i]);
        free(l->v);
        l->v = NULL;
        l->n = 0;
}

bool strv_contains(const strv_t *l, const char *s)
{
        for (size_t i = 0; i < l->n; i++)
                if (streq(l->v[i], s))
                        return true;
        return false;
}

static bool word_in(const char *choices, const char *w, size_t wlen)
{
        const char *p = choices;
        while (*p) {
                size_t n = strcspn(p, ",");
                if (n == wlen && strncmp(p, w, n) == 0)
                        return true;
                p += n + (p[n] == ',');
        }
        return false;
}

static const cfg_item_t *find_item(const cfg_schema_t *s, const char *name)
{
        for (size_t i = 0; i < s->n_items; i++)
                if (streq(s->items[i].name, name))
                        return &s->items[i];
        return NULL;
}

/* "--log-level" for log_level. */
static void option_name(const cfg_item_t *it, char *buf, size_t len)
{
        snprintf(buf, len, "--%s", it->name);
        for (char *p = buf + 2; *p; p++)
                if (*p == '_')
                        *p = '-';
}

static void known_keys(const cfg_schema_t *s, char *buf, size_t len)
{
        size_t off = 0;
        buf[0] = 0;
        for (size_t i = 0; i < s->n_items && off < len; i++)
                if (!(s->items[i].flags & CFG_TEST_HOOK))
                        off += snprintf(buf + off, len - off, "%s%s", off ? ", " : "",
                                        s->items[i].name);
}

static int set_list(const cfg_item_t *it, strv_t *l, const char *value, const char *where,
                    char *err, size_t errlen)
{
        strv_t n = {};
        const char *p = value;
        while (*p) {
                size_t len;
                char word[256];
                p += strspn(p, " \t,");
                len = strcspn(p, ", \t");
                if (len == 0)
                        break;
                if (len >= sizeof(word) || (it->choices && !word_in(it->choices, p, len))) {
                        strv_clear(&n);
                        return errorf(err, errlen, -EINVAL, "%s: '%.*s' is not one of %s", where,
                                      (int)len, p, it->choices ? it->choices : "short words");
                }
                snprintf(word, sizeof(word), "%.*s", (int)len, p);
                if (!strv_contains(&n, word) && strv_push(&n, word) < 0) {
                        strv_clear(&n);
                        return -ENOMEM;
                }
                p += len;
        }
        strv_clear(l);
        *l = n;
        return 0;
}

/* "10ms..10m", "2..1000", "-365d..365d": the bounds as --help shows them; "" when none. */
static const char *range_text(const cfg_item_t *it, char *buf, size_t len)
{
        char lo[32], hi[32];
        buf[0] = 0;
        if (it->type == CFG_SDURATION && it->max)
                snprintf(buf, len, "-%s..%s", format_duration(lo, sizeof(lo), it->max),
                         format_duration(hi, sizeof(hi), it->max));
        else if (it->type == CFG_DURATION && (it->min || it->max))
                snprintf(buf, len, "%s..%s", format_duration(lo, sizeof(lo), it->min),
                         format_duration(hi, sizeof(hi), it->max));
        else if (it->type == CFG_UINT && (it->min || it->max))
                snprintf(buf, len, "%llu..%llu", (unsigned long long)it->min,
                         (unsigned long long)it->max);
        return buf;
}

/* CFG_DURATION, CFG_SDURATION and CFG_UINT values. */
static int set_number(const cfg_item_t *it, void *field, const char *value, const char *where,
                      char *err, size_t errlen)
{
        bool neg = it->type == CFG_SDURATION && value[0] == '-';
        char range[80];
        uint64_t u;
        char *end;

        if (it->type == CFG_UINT) {
                errno = 0;
                u = strtoull(value, &end, 10);
                if (errno || end == value || *end || value[0] == '-')
                        return errorf(err, errlen, -EINVAL, "%s: '%s' is not a whole number", where,
                                      value);
        } else if (parse_duration(value + neg, NSEC_PER_SEC, &u) < 0)
                return errorf(err, errlen, -EINVAL, "%s: '%s' is not a duration (e.g. %s)", where,
                              value,
                              neg || it->type == CFG_SDURATION ? "2s, -150ms" : "500ms, 2s, 1m");
        if (it->type == CFG_DURATION && (it->min || it->max) && (u < it->min || u > it->max))
                return errorf(err, errlen, -ERANGE, "%s: %s is out of range %llums..%llums", where,
                              value, (unsigned long long)(it->min / NSEC_PER_MSEC),
                              (unsigned long long)(it->max / NSEC_PER_MSEC));
        if ((it->type == CFG_SDURATION && it->max && u > it->max) ||
            (it->type == CFG_UINT && (it->min || it->max) && (u < it->min || u > it->max)))
                return errorf(err, errlen, -ERANGE, "%s: %s is out of range %s", where, value,
                              range_text(it, range, sizeof(range)));
        if (it->type == CFG_SDURATION)
                *(int64_t *)field = neg ? -(int64_t)u : (int64_t)u;
        else
                *(uint64_t *)field = u;
        return 0;
}

int config_set(const cfg_schema_t *s, void *target, const char *name, const char *value,
               const char *where, char *err, size_t errlen)
{
        const cfg_item_t *it = find_item(s, name);
        void *field;
        char known[1024];

        if (!it) {
                known_keys(s, known, sizeof(known));
                return errorf(err, errlen, -ENOENT, "%s: unknown key '%s' (known: %s)", where, name,
                              known);
        }
        field = (char *)target + it->offset;
        switch (it->type) {
        case CFG_STRING:
                return strdup_to(field, value);
        case CFG_CHOICE:
                if (!word_in(it->choices, value, strlen(value)))
                        return errorf(err, errlen, -EINVAL, "%s: '%s' is not one of %s", where,
                                      value, it->choices);
                return strdup_to(field, value);
        case CFG_BOOL:
                if (parse_bool(value, field) < 0)
                        return errorf(err, errlen, -EINVAL,
                                      "%s: '%s' is not a boolean (true/false, yes/no, 1/0)", where,
                                      value);
                return 0;
        case CFG_DURATION:
        case CFG_SDURATION:
        case CFG_UINT:
                return set_number(it, field, value, where, err, errlen);
        case CFG_LIST:
                return set_list(it, field, value, where, err, errlen);
        }
        return -EINVAL;
}

int config_defaults(const cfg_schema_t *s, void *target)
{
        char err[256];
        for (size_t i = 0; i < s->n_items; i++) {
                const cfg_item_t *it = &s->items[i];
                int r = it->def
                            ? config_set(s, target, it->name, it->def, "default", err, sizeof(err))
                            : 0;
                if (r == -ENOMEM)
                        return r;
                /* A default the table cannot read is a programming error. */
                assert(r == 0);
        }
        return 0;
}

static int set_label(const cfg_schema_t *s, void *target, const char *key, const char *value,
                     const char *where, char *err, size_t errlen)
{
        strv_t *labels = (strv_t *)((char *)target + s->labels_offset);
        char kv[512];
        size_t klen = strlen(key);

        if (klen == 0 || klen > 64 || strpbrk(key, "=,\" \t") || strlen(value) > 256)
                return errorf(err, errlen, -EINVAL,
                              "%s: label '%s': keys are 1-64 characters without = , quotes or "
                              "spaces, values at most 256",
                              where, key);
        /* The coordinator refuses control characters from the wire: refuse them here, where
         * the operator can see which line is at fault. */
        for (const char *p = value; *p; p++)
                if ((unsigned char)*p < 0x20 || *p == 0x7f)
                        return errorf(err, errlen, -EINVAL,
                                      "%s: label '%s': control characters are not allowed in "
                                      "values",
                                      where, key);
        /* A later setting of the same key replaces the earlier one. */
        for (size_t i = 0; i < labels->n; i++)
                if (strncmp(labels->v[i], key, klen) == 0 && labels->v[i][klen] == '=') {
                        free(labels->v[i]);
                        labels->v[i] = labels->v[--labels->n];
                        break;
                }
        snprintf(kv, sizeof(kv), "%s=%s", key, value);
        return strv_push(labels, kv);
}

struct line_reader {
        FILE *f;
        int line;
        ini_line_handler_t handler;
        void *user;
        int stopped;
        int bad_line; /* a line the reader refused, 0 if none */
        bool bad_nul;
        int max_line;
};

/* Reads one line for libinih, counting lines for the messages. A line longer than libinih's
 * buffer would be split, its tail parsed as a line of its own; a NUL byte would cut it short:
 * both stop the parse instead, for config_parse_ini() to report. */
static char *read_line(char *str, int num, void *stream)
{
        struct line_reader *lr = stream;
        int c, n = 0;

        for (;;) {
                c = getc(lr->f);
                if (c == EOF || c == '\n')
                        break;
                if (c == 0 || n >= num - 1) {
                        lr->bad_line = lr->line + 1;
                        lr->bad_nul = c == 0;
                        lr->max_line = num - 1;
                        return NULL;
                }
                str[n++] = (char)c;
        }
        if (c == EOF && n == 0)
                return NULL;
        str[n] = 0;
        lr->line++;
        return str;
}

static int line_handler(void *user, const char *section, const char *name, const char *value)
{
        struct line_reader *lr = user;
        /* libinih goes on calling after a 0 (it only records the line): the first failure must
         * stay the result, and later lines must not be applied. */
        if (lr->stopped)
                return 0;
        if (!lr->handler(lr->user, section, name, value, lr->line)) {
                lr->stopped = 1;
                return 0;
        }
        return 1;
}

int config_parse_ini(const char *path, ini_line_handler_t handler, void *user, char *err,
                     size_t errlen)
{
        struct line_reader lr = {.handler = handler, .user = user};
        int line;

        lr.f = fopen(path, "re");
        if (!lr.f)
                return errorf(err, errlen, -errno, "%s: %s", path, strerror(errno));
        line = ini_parse_stream(read_line, &lr, line_handler, &lr);
        if (ferror(lr.f)) {
                int e = errno ? errno : EIO;
                fclose(lr.f);
                return errorf(err, errlen, -e, "%s: %s", path, strerror(e));
        }
        fclose(lr.f);
        if (lr.stopped)
                return -ECANCELED;
        if (lr.bad_line && line == 0 && lr.bad_nul)
                return errorf(err, errlen, -EINVAL, "%s:%d: NUL byte not allowed", path,
                              lr.bad_line);
        if (lr.bad_line && line == 0)
                return errorf(err, errlen, -EINVAL, "%s:%d: line longer than %d characters", path,
                              lr.bad_line, lr.max_line);
        if (line > 0)
                return errorf(err, errlen, -EINVAL,
                              "%s:%d: not an INI line (expected [section] or key = value)", path,
                              line);
        if (line < 0)
                return errorf(err, errlen, -EIO, "%s: cannot be read", path);
        return 0;
}

struct load_ctx {
        const cfg_schema_t *s;
        void *target;
        const char *path;
        char *err;
        size_t errlen;
        int r;
};

static int load_handler(void *user, const char *section, const char *name, const char *value,
                        int lineno)
{
        struct load_ctx *c = user;
        const cfg_item_t *it = find_item(c->s, name);
        char where[4200], opt[80];

        snprintf(where, sizeof(where), "%s:%d: [%s] %s", c->path, lineno, section, name);
        if (streq(section, c->s->section) && it && (it->flags & CFG_TEST_HOOK)) {
                option_name(it, opt, sizeof(opt));
                c->r = errorf(c->err, c->errlen, -EINVAL,
                              "%s: a test hook, only on the command line (%s=...)", where, opt);
        } else if (streq(section, c->s->section))
                c->r = config_set(c->s, c->target, name, value, where, c->err, c->errlen);
        else if (streq(section, "labels") && c->s->labels_offset != SIZE_MAX)
                c->r = set_label(c->s, c->target, name, value, where, c->err, c->errlen);
        else
                c->r =
                    errorf(c->err, c->errlen, -EINVAL,
                           "%s:%d: unknown section [%s], allowed: [%s]%s", c->path, lineno, section,
                           c->s->section, c->s->labels_offset != SIZE_MAX ? " and [labels]" : "");
        return c->r >= 0;
}

int config_load_file(const cfg_schema_t *s, void *target, const char *path, char *err,
                     size_t errlen)
{
        struct load_ctx c = {.s = s, .target = target, .path = path, .err = err, .errlen = errlen};
        int r = config_parse_ini(path, load_handler, &c, err, errlen);
        return r == -ECANCELED ? c.r : r;
}

int config_parse_args(const cfg_schema_t *s, void *target, int argc, char **argv,
                      int (*extra)(void *target, const char *arg, char *err, size_t errlen),
                      char *err, size_t errlen)
{
        int r;

        /* The file first, so that the command line overrides it whatever the order. */
        for (int i = 1; i < argc; i++)
                if (strncmp(argv[i], "--config=", 9) == 0 &&
                    (r = config_load_file(s, target, argv[i] + 9, err, errlen)) < 0)
                        return r;
        for (int i = 1; i < argc; i++) {
                const char *a = argv[i], *eq;
                char name[128];
                if (strncmp(a, "--config=", 9) == 0)
                        continue;
                if (extra) {
                        r = extra(target, a, err, errlen);
                        if (r < 0)
                                return r;
                        if (r > 0)
                                continue;
                }
                if (strncmp(a, "--", 2) != 0)
                        return errorf(err, errlen, -EINVAL, "unexpected argument '%s' (see --help)",
                                      a);
                eq = strchr(a, '=');
                snprintf(name, sizeof(name), "%.*s", eq ? (int)(eq - a - 2) : (int)strlen(a + 2),
                         a + 2);
                for (char *p = name; *p; p++)
                        if (*p == '-')
                                *p = '_';
                if (streq(name, "label") && s->labels_offset != SIZE_MAX) {
                        const char *kv = eq ? eq + 1 : "", *e2 = strchr(kv, '=');
                        char key[128];
                        if (!e2)
                                return errorf(err, errlen, -EINVAL,
                                              "--label: '%s' is not KEY=VALUE", kv);
                        snprintf(key, sizeof(key), "%.*s", (int)(e2 - kv), kv);
                        if ((r = set_label(s, target, key, e2 + 1, "--label", err, errlen)) < 0)
                                return r;
                        continue;
                }
                if (!eq) {
                        const cfg_item_t *it = find_item(s, name);
                        if (it && it->type == CFG_BOOL) {
                                *(bool *)((char *)target + it->offset) = true;
                                continue;
                        }
                        return errorf(err, errlen, -EINVAL, "%s: needs a value (--%s=VALUE)", a,
                                      name);
                }
                char where[160];
                snprintf(where, sizeof(where), "--%s", name);
                if ((r = config_set(s, target, name, eq + 1, where, err, errlen)) < 0)
                        return r;
        }
        return 0;
}

/* What a value looks like, for --help and man pages: DURATION, N, BOOL, LIST or VALUE. */
static const char *value_name(const cfg_item_t *it)
{
        switch (it->type) {
        case CFG_DURATION:
        case CFG_SDURATION:
                return "DURATION";
        case CFG_UINT:
                return "N";
        case CFG_BOOL:
                return "BOOL";
        case CFG_LIST:
                return "LIST";
        case CFG_STRING:
        case CFG_CHOICE:
                break;
        }
        return "VALUE";
}

/* What --help says after an item's help: "(one of a, b; 1..9; default x)". */
static void help_details(const cfg_item_t *it, char *buf, size_t len)
{
        char range[80], choices[256] = "";
        size_t n = 0;
        if (it->choices) {
                size_t k = (size_t)snprintf(choices, sizeof(choices), "%s ",
                                            it->type == CFG_LIST ? "any of" : "one of");
                for (const char *p = it->choices; *p && k + 3 < sizeof(choices); p++) {
                        if (*p == ',')
                                choices[k++] = ',', choices[k++] = ' ';
                        else
                                choices[k++] = *p;
                        choices[k] = 0;
                }
        }
        bool doc = !it->def || !*it->def;
        const char *parts[] = {choices, range_text(it, range, sizeof(range)),
                               doc ? it->def_doc : it->def};
        buf[0] = 0;
        for (size_t i = 0; i < ELEMENTSOF(parts); i++) {
                if (!parts[i] || !*parts[i] || n >= len)
                        continue;
                n += snprintf(buf + n, len - n, "%s%s%s", n ? "; " : " (",
                              i < 2 ? ""
                              : doc ? "default: "
                                    : "default ",
                              parts[i]);
        }
        if (n && n < len)
                snprintf(buf + n, len - n, ")");
}

void config_help(const cfg_schema_t *s, FILE *f)
{
        char details[512], opt[80];
        bool hooks = false;
        fprintf(f, "Configuration keys ([%s] in the config file, or --KEY=VALUE):\n", s->section);
        for (size_t i = 0; i < s->n_items; i++) {
                hooks |= s->items[i].flags & CFG_TEST_HOOK;
                if (s->items[i].flags & CFG_TEST_HOOK)
                        continue;
                help_details(&s->items[i], details, sizeof(details));
                fprintf(f, "  %-20s %s%s\n", s->items[i].name, s->items[i].help, details);
        }
        if (s->labels_offset != SIZE_MAX)
                fprintf(f, "  %-20s %s\n", "[labels] k = v",
                        "free labels for agent selection (or --label=KEY=VALUE)");
        if (hooks)
                fprintf(f, "\nTest hooks (command line only):\n");
        for (size_t i = 0; hooks && i < s->n_items; i++) {
                if (!(s->items[i].flags & CFG_TEST_HOOK))
                        continue;
                option_name(&s->items[i], opt, sizeof(opt));
                help_details(&s->items[i], details, sizeof(details));
                int pad = strlen(opt) < 29 ? (int)(29 - strlen(opt)) : 0;
                fprintf(f, "  %s=%-*s %s%s\n", opt, pad, value_name(&s->items[i]), s->items[i].help,
                        details);
        }
}

static const char *const type_names[] = {
    [CFG_STRING] = "string",
    [CFG_BOOL] = "bool",
    [CFG_DURATION] = "duration",
    [CFG_UINT] = "uint",
    [CFG_LIST] = "list",
    [CFG_CHOICE] = "choice",
    [CFG_SDURATION] = "signed-duration",
};

/* One item as JSON; NULL when out of memory. */
static json_t *item_json(const cfg_item_t *it)
{
        char opt[80], range[80];
        json_t *o = json_object(), *choices = json_array();
        option_name(it, opt, sizeof(opt));
        for (const char *p = it->choices; p && *p;) {
                size_t n = strcspn(p, ",");
                json_array_append_new(choices, json_stringn(p, n));
                p += n + (p[n] == ',');
        }
        if (!o || !choices || json_object_set_new(o, "name", json_string(it->name)) < 0 ||
            json_object_set_new(o, "option", json_string(opt)) < 0 ||
            json_object_set_new(o, "type", json_string(type_names[it->type])) < 0 ||
            json_object_set_new(o, "metavar", json_string(value_name(it))) < 0 ||
            json_object_set_new(o, "help", json_string(it->help)) < 0 ||
            json_object_set_new(o, "default", it->def ? json_string(it->def) : json_null()) < 0 ||
            json_object_set_new(o, "default_doc",
                                it->def_doc ? json_string(it->def_doc) : json_null()) < 0 ||
            json_object_set_new(o, "choices", json_incref(choices)) < 0 ||
            json_object_set_new(o, "min", json_integer((json_int_t)it->min)) < 0 ||
            json_object_set_new(o, "max", json_integer((json_int_t)it->max)) < 0 ||
            json_object_set_new(o, "range", json_string(range_text(it, range, sizeof(range)))) <
                0 ||
            json_object_set_new(o, "test_hook", json_boolean(it->flags & CFG_TEST_HOOK)) < 0) {
                json_decref(o);
                o = NULL;
        }
        json_decref(choices);
        return o;
}

int config_dump_json(const cfg_schema_t *s, const char *program, FILE *f)
{
        json_t *doc = json_pack("{s:s, s:s, s:b, s:[]}", "program", program, "section", s->section,
                                "labels", s->labels_offset != SIZE_MAX, "items");
        json_t *items = doc ? json_object_get(doc, "items") : NULL;
        int r = items ? 0 : -ENOMEM;
        for (size_t i = 0; r == 0 && i < s->n_items; i++) {
                json_t *it = item_json(&s->items[i]);
                if (!it || json_array_append_new(items, it) < 0)
                        r = -ENOMEM;
        }
        if (r == 0 && json_dumpf(doc, f, JSON_INDENT(2)) < 0)
                r = -EIO;
        if (r == 0)
                fputc('\n', f);
        json_decref(doc);
        return r;
}

void config_free(const cfg_schema_t *s, void *target)
{
        for (size_t i = 0; i < s->n_items; i++) {
                void *field = (char *)target + s->items[i].offset;
                if (s->items[i].type == CFG_STRING || s->items[i].type == CFG_CHOICE) {
                        free(*(char **)field);
                        *(char **)field = NULL;
                } else if (s->items[i].type == CFG_LIST)
                        strv_clear(field);
        }
        if (s->labels_offset != SIZE_MAX)
                strv_clear((strv_t *)((char *)target + s->labels_offset));
}
