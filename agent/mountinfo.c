/* /proc/self/mountinfo parsing: fields, octal escapes, optional fields, lookups by mount point. */
#include "mountinfo.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

/* Copies the field [s, s+n) undoing the kernel's \ooo escapes (space, tab, newline, backslash). */
static char *unescape(const char *s, size_t n)
{
        char *o = malloc(n + 1), *q = o;
        if (!o)
                return NULL;
        for (size_t i = 0; i < n; i++) {
                if (s[i] == '\\' && i + 3 < n && s[i + 1] >= '0' && s[i + 1] <= '3' &&
                    s[i + 2] >= '0' && s[i + 2] <= '7' && s[i + 3] >= '0' && s[i + 3] <= '7') {
                        char c = (char)((s[i + 1] - '0') * 64 + (s[i + 2] - '0') * 8 +
                                        (s[i + 3] - '0'));
                        if (c == 0) {
                                free(o);
                                return NULL;
                        }
                        *q++ = c;
                        i += 3;
                } else {
                        *q++ = s[i];
                }
        }
        *q = 0;
        return o;
}

/* Splits the next space-separated field off *p; false at the end of the line. */
static bool next_field(const char **p, const char **start, size_t *len)
{
        const char *s = *p;
        while (*s == ' ')
                s++;
        if (!*s || *s == '\n')
                return false;
        const char *e = s;
        while (*e && *e != ' ' && *e != '\n')
                e++;
        *start = s;
        *len = (size_t)(e - s);
        *p = e;
        return true;
}

static bool parse_uint(const char *s, size_t n, unsigned *v)
{
        if (n == 0 || n > 10)
                return false;
        unsigned long long x = 0;
        for (size_t i = 0; i < n; i++) {
                if (s[i] < '0' || s[i] > '9')
                        return false;
                x = x * 10 + (unsigned)(s[i] - '0');
        }
        if (x > 0xffffffffULL)
                return false;
        *v = (unsigned)x;
        return true;
}

int mountinfo_parse_line(const char *line, mountinfo_entry_t *ret)
{
        mountinfo_entry_t e = {0};
        const char *p = line, *f;
        size_t n;

        if (!next_field(&p, &f, &n) || !parse_uint(f, n, &e.id))
                return -EINVAL;
        if (!next_field(&p, &f, &n) || !parse_uint(f, n, &e.parent_id))
                return -EINVAL;
        if (!next_field(&p, &f, &n))
                return -EINVAL;
        const char *colon = memchr(f, ':', n);
        if (!colon || !parse_uint(f, (size_t)(colon - f), &e.major) ||
            !parse_uint(colon + 1, n - (size_t)(colon - f) - 1, &e.minor))
                return -EINVAL;
        if (!next_field(&p, &f, &n) || !(e.root = unescape(f, n)))
                goto fail;
        if (!next_field(&p, &f, &n) || !(e.mountpoint = unescape(f, n)))
                goto fail;
        if (!next_field(&p, &f, &n) || !(e.mount_options = strndup(f, n)))
                goto fail;
        /* Optional fields (zero or more "tag[:value]") end at a lone "-". */
        const char *opt_start = NULL, *opt_end = NULL;
        for (;;) {
                if (!next_field(&p, &f, &n))
                        goto fail;
                if (n == 1 && f[0] == '-')
                        break;
                if (!opt_start)
                        opt_start = f;
                opt_end = f + n;
        }
        e.optional = opt_start ? strndup(opt_start, (size_t)(opt_end - opt_start)) : strdup("");
        if (!e.optional)
                goto fail;
        if (!next_field(&p, &f, &n) || !(e.fstype = unescape(f, n)))
                goto fail;
        if (!next_field(&p, &f, &n) || !(e.source = unescape(f, n)))
                goto fail;
        /* Super options may be missing on very old kernels; treat that as empty. */
        if (next_field(&p, &f, &n))
                e.super_options = strndup(f, n);
        else
                e.super_options = strdup("");
        if (!e.super_options)
                goto fail;
        if (e.root[0] != '/' || e.mountpoint[0] != '/')
                goto fail;
        *ret = e;
        return 0;
fail:
        mountinfo_entry_clear(&e);
        return -EINVAL;
}

void mountinfo_entry_clear(mountinfo_entry_t *e)
{
        free(e->root);
        free(e->mountpoint);
        free(e->mount_options);
        free(e->optional);
        free(e->fstype);
        free(e->source);
        free(e->super_options);
        *e = (mountinfo_entry_t){0};
}

int mountinfo_find(const char *path, const char *mountpoint, mountinfo_entry_t *ret)
{
        FILE *f = fopen(path ? path : "/proc/self/mountinfo", "re");
        if (!f)
                return -errno;
        char *line = NULL;
        size_t cap = 0;
        int found = 0;
        mountinfo_entry_t best = {0};
        while (getline(&line, &cap, f) > 0) {
                mountinfo_entry_t e;
                if (mountinfo_parse_line(line, &e) < 0)
                        continue;
                if (streq(e.mountpoint, mountpoint)) {
                        mountinfo_entry_clear(&best);
                        best = e;
                        found = 1;
                } else {
                        mountinfo_entry_clear(&e);
                }
        }
        free(line);
        fclose(f);
        if (found && ret)
                *ret = best;
        else
                mountinfo_entry_clear(&best);
        return found;
}
