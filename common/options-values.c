/* Values of fio options with a syntax of their own (file_service_type, ignore_error,
 * steadystate, exec_*): parsed into plain structs, for the option checks and for the agent. */
#include "options-values.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

/* A float as fio's str_to_float reads a postfix: the whole text must be a number. */
static int to_double(const char *s, double *ret)
{
        char *end;
        double v;

        if (!*s)
                return -EINVAL;
        errno = 0;
        v = strtod(s, &end);
        if (errno || *end || !isfinite(v))
                return -EINVAL;
        *ret = v;
        return 0;
}

int fst_parse(const char *s, fst_t *ret, char *err, size_t errlen)
{
        static const struct {
                const char *name;
                fst_kind_t kind;
        } kinds[] = {
            {"roundrobin", FST_ROUNDROBIN}, {"random", FST_RANDOM}, {"sequential", FST_SEQUENTIAL},
            {"zipf", FST_ZIPF},             {"pareto", FST_PARETO}, {"normal", FST_NORMAL},
            {"gauss", FST_NORMAL},
        };
        fst_t f = {.kind = FST_ROUNDROBIN, .nr = 1};
        const char *colon;
        size_t n;
        bool found = false;

        if (strempty(s)) {
                *ret = f;
                return 0;
        }
        colon = strchr(s, ':');
        n = colon ? (size_t)(colon - s) : strlen(s);
        for (size_t i = 0; i < ELEMENTSOF(kinds) && !found; i++)
                if (strlen(kinds[i].name) == n && strncmp(s, kinds[i].name, n) == 0) {
                        f.kind = kinds[i].kind;
                        found = true;
                }
        if (!found)
                return errorf(err, errlen, -EINVAL,
                              "file_service_type: '%.40s' is not one of random, roundrobin, "
                              "sequential (each with :N I/Os per file), zipf, pareto, normal, "
                              "gauss (each with :VALUE)",
                              s);
        if (f.kind == FST_ZIPF)
                f.value = 1.1;
        else if (f.kind == FST_PARETO)
                f.value = 0.2;
        if (colon && f.kind <= FST_SEQUENTIAL) {
                char *end;
                unsigned long v;
                errno = 0;
                v = strtoul(colon + 1, &end, 10);
                if (!colon[1] || *end || errno || v < 1 || v > UINT32_MAX)
                        return errorf(err, errlen, -EINVAL,
                                      "file_service_type: ':%.20s' is not a count of I/Os 1..%u "
                                      "(e.g. random:8)",
                                      colon + 1, UINT32_MAX);
                f.nr = (uint32_t)v;
        } else if (colon) {
                if (to_double(colon + 1, &f.value) < 0)
                        return errorf(err, errlen, -EINVAL,
                                      "file_service_type: ':%.20s' is not a number (e.g. "
                                      "zipf:1.2)",
                                      colon + 1);
        }
        if (f.kind == FST_ZIPF && (f.value == 1.0 || f.value <= 0))
                return errorf(err, errlen, -EINVAL,
                              "file_service_type: zipf theta %g is out of range (above 0, other "
                              "than 1.0)",
                              f.value);
        if (f.kind == FST_PARETO && (f.value <= 0 || f.value >= 1))
                return errorf(err, errlen, -EINVAL,
                              "file_service_type: pareto %g is out of range (0 < h < 1)", f.value);
        if (f.kind == FST_NORMAL && (f.value < 0 || f.value > 100))
                return errorf(err, errlen, -EINVAL,
                              "file_service_type: normal deviation %g is out of range 0..100",
                              f.value);
        *ret = f;
        return 0;
}

/* The errnos fio's ignore_error names (its str2error table), by name. */
static const struct {
        const char *name;
        int e;
} errnos[] = {
    {"EPERM", EPERM},     {"ENOENT", ENOENT},   {"ESRCH", ESRCH},     {"EINTR", EINTR},
    {"EIO", EIO},         {"ENXIO", ENXIO},     {"E2BIG", E2BIG},     {"ENOEXEC", ENOEXEC},
    {"EBADF", EBADF},     {"ECHILD", ECHILD},   {"EAGAIN", EAGAIN},   {"ENOMEM", ENOMEM},
    {"EACCES", EACCES},   {"EFAULT", EFAULT},   {"ENOTBLK", ENOTBLK}, {"EBUSY", EBUSY},
    {"EEXIST", EEXIST},   {"EXDEV", EXDEV},     {"ENODEV", ENODEV},   {"ENOTDIR", ENOTDIR},
    {"EISDIR", EISDIR},   {"EINVAL", EINVAL},   {"ENFILE", ENFILE},   {"EMFILE", EMFILE},
    {"ENOTTY", ENOTTY},   {"ETXTBSY", ETXTBSY}, {"EFBIG", EFBIG},     {"ENOSPC", ENOSPC},
    {"ESPIPE", ESPIPE},   {"EROFS", EROFS},     {"EMLINK", EMLINK},   {"EPIPE", EPIPE},
    {"EDOM", EDOM},       {"ERANGE", ERANGE},   {"EDQUOT", EDQUOT},   {"EILSEQ", EILSEQ},
    {"ETIMEDOUT", ETIMEDOUT}, {"ESTALE", ESTALE}, {"ENOTSUP", ENOTSUP}, {"ECANCELED", ECANCELED},
};

const char *errno_name(int e)
{
        for (size_t i = 0; i < ELEMENTSOF(errnos); i++)
                if (errnos[i].e == e)
                        return errnos[i].name;
        return NULL;
}

static int one_errno(const char *tok, size_t n, int *ret)
{
        char buf[32], *end;
        long v;

        if (n == 0 || n >= sizeof(buf))
                return -EINVAL;
        memcpy(buf, tok, n);
        buf[n] = 0;
        if (buf[0] == 'E') {
                for (size_t i = 0; i < ELEMENTSOF(errnos); i++)
                        if (streq(buf, errnos[i].name)) {
                                *ret = errnos[i].e;
                                return 0;
                        }
                return -EINVAL;
        }
        errno = 0;
        v = strtol(buf, &end, 10);
        if (*end || errno || v < 1 || v > 4095)
                return -EINVAL;
        *ret = (int)v;
        return 0;
}

int ignore_error_parse(const char *s, ignore_error_t *ret, char *err, size_t errlen)
{
        static const char *const types[] = {"read", "write", "verify"};
        ignore_error_t ie = {0};
        const char *p = s;
        int type = 0;

        for (;;) {
                size_t n = strcspn(p, ",");
                const char *end = p + n;
                if (type >= 3)
                        return errorf(err, errlen, -EINVAL,
                                      "ignore_error: more than 3 lists (read,write,verify)");
                for (const char *t = p; t < end;) {
                        size_t k = strcspn(t, ":,");
                        int e;
                        if (k > (size_t)(end - t))
                                k = (size_t)(end - t);
                        if (k == 0) {
                                t++;
                                continue;
                        }
                        if (one_errno(t, k, &e) < 0)
                                return errorf(err, errlen, -EINVAL,
                                              "ignore_error: '%.*s' in the %s list is not an "
                                              "errno name (EIO, ENOSPC, ...) or number",
                                              (int)(k > 24 ? 24 : k), t, types[type]);
                        if (ie.n[type] >= IGNORE_ERROR_MAX)
                                return errorf(err, errlen, -E2BIG,
                                              "ignore_error: more than %d errors in the %s list",
                                              IGNORE_ERROR_MAX, types[type]);
                        ie.err[type][ie.n[type]++] = e;
                        t += k;
                }
                type++;
                if (!*end)
                        break;
                p = end + 1;
        }
        *ret = ie;
        return 0;
}

bool ignore_error_has(const ignore_error_t *ie, int type, int e)
{
        if (type < 0 || type > 2)
                return false;
        for (size_t i = 0; i < ie->n[type]; i++)
                if (ie->err[type][i] == e)
                        return true;
        return false;
}

static const char *const ss_names[] = {"iops", "iops_slope", "bw", "bw_slope"};

int ss_parse(const char *s, ss_spec_t *ret, char *err, size_t errlen)
{
        ss_spec_t ss = {0};
        const char *colon = strchr(s, ':');
        char num[64];
        size_t n = colon ? (size_t)(colon - s) : strlen(s), len;
        bool found = false;

        for (size_t i = 0; i < ELEMENTSOF(ss_names) && !found; i++)
                if (strlen(ss_names[i]) == n && strncmp(s, ss_names[i], n) == 0) {
                        ss.kind = (ss_kind_t)i;
                        found = true;
                }
        if (!found || !colon)
                return errorf(err, errlen, -EINVAL,
                              "steadystate: '%.40s' is not CRITERION:LIMIT with CRITERION one "
                              "of iops, iops_slope, bw, bw_slope (e.g. iops_slope:0.1%%)",
                              s);
        len = strlen(colon + 1);
        if (len == 0 || len >= sizeof(num))
                return errorf(err, errlen, -EINVAL, "steadystate: needs a limit after ':'");
        memcpy(num, colon + 1, len + 1);
        if (num[len - 1] == '%') {
                ss.percent = true;
                num[len - 1] = 0;
        }
        if (to_double(num, &ss.limit) < 0 || ss.limit < 0)
                return errorf(err, errlen, -EINVAL,
                              "steadystate: '%.20s' is not a limit (a number >= 0, or a "
                              "percentage of the mean such as 0.1%%)",
                              colon + 1);
        *ret = ss;
        return 0;
}

void ss_format(const ss_spec_t *ss, char *buf, size_t len)
{
        snprintf(buf, len, "%s:%f%s", ss_names[ss->kind], ss->limit, ss->percent ? "%" : "");
}

bool exec_name_valid(const char *s)
{
        size_t n = strlen(s);
        if (n == 0 || n > 64)
                return false;
        for (const char *p = s; *p; p++)
                if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
                      (*p >= '0' && *p <= '9') || *p == '.' || *p == '_' || *p == '-'))
                        return false;
        return true;
}
