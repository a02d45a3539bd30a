/* Agent selectors: "role=client,rack=a1", "name=web*", "all"; every comma-separated term must
 * match. */
#include "selector.h"

#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <string.h>

#include "util.h"

int selector_validate(const char *sel, char *err, size_t errlen)
{
        const char *p = sel ? sel : "";
        while (*p) {
                size_t n = strcspn(p, ",");
                const char *eq = memchr(p, '=', n);
                if (n == 0 || n > 256 || (eq && (eq == p || eq == p + n - 1)) ||
                    (eq && memchr(eq + 1, '=', n - (eq + 1 - p)))) {
                        snprintf(err, errlen,
                                 "agents selector: bad term '%.*s' (use role=R, name=GLOB, "
                                 "host=GLOB, LABEL=VALUE or a name; join terms with ',')",
                                 (int)n, p);
                        return -EINVAL;
                }
                p += n + (p[n] == ',');
        }
        return 0;
}

static bool term_match(const char *key, const char *val, const selector_subject_t *a)
{
        if (!key)
                return streq(val, "all") || fnmatch(val, a->name, 0) == 0;
        if (streq(key, "role"))
                return strv_contains(a->roles, val);
        if (streq(key, "name"))
                return fnmatch(val, a->name, 0) == 0;
        if (streq(key, "host"))
                return a->hostname && fnmatch(val, a->hostname, 0) == 0;
        for (size_t i = 0; a->labels && i < a->labels->n; i++) {
                const char *l = a->labels->v[i], *eq = strchr(l, '=');
                if (eq && (size_t)(eq - l) == strlen(key) && strncmp(l, key, eq - l) == 0)
                        return fnmatch(val, eq + 1, 0) == 0;
        }
        return false;
}

bool selector_match(const char *sel, const selector_subject_t *a)
{
        const char *p = sel ? sel : "";
        while (*p) {
                char term[260], *eq;
                size_t n = strcspn(p, ",");
                snprintf(term, sizeof(term), "%.*s", (int)(n < 259 ? n : 259), p);
                eq = strchr(term, '=');
                if (eq)
                        *eq = 0;
                if (!term_match(eq ? term : NULL, eq ? eq + 1 : term, a))
                        return false;
                p += n + (p[n] == ',');
        }
        return true;
}
