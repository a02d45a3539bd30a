/* Sysctl name and value syntax, and the path below /proc/sys a name stands for. */
#include "sysctl-name.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "util.h"

static bool dotted_char(char c)
{
        return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
}

static bool slash_char(char c)
{
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
               c == '_' || c == '.' || c == ':' || c == '-';
}

int sysctl_name_check(const char *name, char *err, size_t errlen)
{
        size_t len = name ? strlen(name) : 0;
        if (len == 0 || len > SYSCTL_NAME_MAX)
                return errorf(err, errlen, -EINVAL, "sysctl name: 1-%d characters, got %zu",
                              SYSCTL_NAME_MAX, len);
        bool slash = strchr(name, '/') != NULL;
        char sep = slash ? '/' : '.';
        /* kernel.* holds core_pattern, modprobe and the like, which run programs: a plan
         * never gets to set them. */
        static const char *const trees[] = {"net", "vm", "fs", "sunrpc"};
        bool tree_ok = false;
        for (size_t i = 0; i < ELEMENTSOF(trees); i++) {
                size_t tl = strlen(trees[i]);
                tree_ok |= strncmp(name, trees[i], tl) == 0 && name[tl] == sep;
        }
        if (!tree_ok)
                return errorf(err, errlen, -EPERM,
                              "sysctl name '%s': only net.*, vm.*, fs.* and sunrpc.* may be set",
                              name);
        const char *p = name;
        for (;;) {
                const char *end = strchr(p, sep);
                size_t n = end ? (size_t)(end - p) : strlen(p);
                if (n == 0)
                        return errorf(err, errlen, -EINVAL,
                                      "sysctl name '%s': empty component (no leading, trailing or "
                                      "doubled '%c')",
                                      name, sep);
                if ((n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' && p[1] == '.'))
                        return errorf(err, errlen, -EINVAL,
                                      "sysctl name '%s': '.' and '..' are not components", name);
                for (size_t i = 0; i < n; i++)
                        if (!(slash ? slash_char(p[i]) : dotted_char(p[i])))
                                return errorf(
                                    err, errlen, -EINVAL,
                                    "sysctl name '%s': character '%c' not allowed (dotted names: "
                                    "a-z 0-9 _ per component; slash form also A-Z . : -)",
                                    name, p[i] >= 0x20 && p[i] < 0x7f ? p[i] : '?');
                if (!end)
                        break;
                p = end + 1;
        }
        return 0;
}

int sysctl_value_check(const char *value, char *err, size_t errlen)
{
        size_t len = value ? strlen(value) : 0;
        if (len == 0 || len > SYSCTL_VALUE_MAX)
                return errorf(err, errlen, -EINVAL, "sysctl value: 1-%d characters, got %zu",
                              SYSCTL_VALUE_MAX, len);
        for (size_t i = 0; i < len; i++) {
                unsigned char c = (unsigned char)value[i];
                if (c != '\t' && (c < 0x20 || c == 0x7f))
                        return errorf(err, errlen, -EINVAL,
                                      "sysctl value: control character 0x%02x at %zu (printable "
                                      "text, spaces and tabs only)",
                                      c, i);
        }
        return 0;
}

int sysctl_name_to_path(const char *name, char *buf, size_t len)
{
        if (sysctl_name_check(name, NULL, 0) < 0)
                return -EINVAL;
        size_t n = strlen(name);
        if (n + 1 > len)
                return -ENAMETOOLONG;
        bool slash = strchr(name, '/') != NULL;
        for (size_t i = 0; i <= n; i++)
                buf[i] = (!slash && name[i] == '.') ? '/' : name[i];
        return 0;
}

int sysctl_settings_check(const kvlist_t *settings, char *err, size_t errlen)
{
        char e[256];
        for (size_t i = 0; i < settings->n; i++) {
                const kv_t *kv = &settings->v[i];
                int r = sysctl_name_check(kv->key, e, sizeof(e));
                if (r >= 0)
                        r = sysctl_value_check(kv->value, e, sizeof(e));
                if (r < 0) {
                        if (kv->line > 0)
                                return errorf(err, errlen, r, "line %d: %s", kv->line, e);
                        return errorf(err, errlen, r, "%s", e);
                }
                char a[SYSCTL_NAME_MAX + 1], b[SYSCTL_NAME_MAX + 1];
                sysctl_name_to_path(kv->key, a, sizeof(a));
                for (size_t j = 0; j < i; j++)
                        if (sysctl_name_to_path(settings->v[j].key, b, sizeof(b)) == 0 &&
                            streq(a, b))
                                return errorf(err, errlen, -EINVAL,
                                              "sysctl '%s' given twice (lines %d and %d)",
                                              kv->key, settings->v[j].line, kv->line);
        }
        return 0;
}
