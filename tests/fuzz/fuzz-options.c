/* libFuzzer target for job options: "key=value" lines applied to a fresh job, then validated. */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "options.h"


static bool str_eq_null(const char *a, const char *b)
{
        return a == b || (a && b && strcmp(a, b) == 0);
}

static bool spec_equal(const job_spec_t *a, const job_spec_t *b)
{
        return str_eq_null(a->name, b->name) && a->rw == b->rw && a->bs == b->bs &&
               a->size == b->size && a->numjobs == b->numjobs && a->runtime_ns == b->runtime_ns &&
               a->time_based == b->time_based && str_eq_null(a->directory, b->directory) &&
               str_eq_null(a->filename, b->filename) && str_eq_null(a->ioengine, b->ioengine);
}

static char *dup_or_null(const char *s)
{
        char *c;

        if (!s)
                return NULL;
        c = strdup(s);
        CHECK(c);
        return c;
}

static void spec_copy(job_spec_t *dst, const job_spec_t *src)
{
        *dst = *src;
        dst->name = dup_or_null(src->name);
        dst->directory = dup_or_null(src->directory);
        dst->filename = dup_or_null(src->filename);
        dst->ioengine = dup_or_null(src->ioengine);
}

/* An error message is one terminated line that fits, and says something when it can. */
static void check_message(const char *err, size_t errlen)
{
        size_t len = strnlen(err, errlen);

        CHECK(len < errlen);
        CHECK(!memchr(err, '\n', len));
        CHECK(errlen == 1 || len > 0);
}

/* The value parsers alone: what they accept reads back the same way. */
static void check_parsers(const char *value)
{
        char buf[64];
        uint64_t v = 42, w = 0;
        bool b;

        if (parse_size(value, &v) == 0) {
                snprintf(buf, sizeof(buf), "%llu", (unsigned long long)v);
                CHECK(parse_size(buf, &w) == 0 && w == v);
        } else {
                CHECK(v == 42);
        }
        v = 42;
        if (parse_duration(value, 1000000000ULL, &v) == 0) {
                if (v % 1000 == 0) {
                        snprintf(buf, sizeof(buf), "%lluus", (unsigned long long)(v / 1000));
                        CHECK(parse_duration(buf, 1, &w) == 0 && w == v);
                }
        } else {
                CHECK(v == 42);
        }
        (void)parse_bool(value, &b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        const uint8_t *p = data, *end = data + size;
        unsigned lineno = 0;
        job_spec_t j;
        char err[256];
        int r;

        if (size > 64 * 1024)
                return 0;
        if (job_spec_init(&j, "fuzz") < 0)
                return 0;

        while (p < end) {
                const uint8_t *nl = memchr(p, '\n', (size_t)(end - p));
                size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);
                /* every fourth line gets a short buffer, to exercise truncation */
                size_t errlen = lineno % 4 == 3 ? 1 + len % 24 : sizeof(err);
                char *line = malloc(len + 1), *eq;
                const char *value = NULL;
                job_spec_t before;

                CHECK(line);
                memcpy(line, p, len);
                line[len] = '\0'; /* a NUL inside the line just ends it early */
                eq = strchr(line, '=');
                if (eq) {
                        *eq = '\0';
                        value = eq + 1; /* "key" alone passes NULL, like fio's --time_based */
                }

                spec_copy(&before, &j);
                memset(err, 'X', sizeof(err));
                r = job_option_set(&j, line, value, err, errlen);
                CHECK(r == 0 || r == -ENOENT || r == -EOPNOTSUPP || r == -EINVAL || r == -ERANGE ||
                      r == -ENOMEM);
                if (r < 0) {
                        check_message(err, errlen);
                        CHECK(spec_equal(&j, &before)); /* untouched on failure */
                }
                job_spec_done(&before);
                if (value)
                        check_parsers(value);

                free(line);
                lineno++;
                p = nl ? nl + 1 : end;
        }

        memset(err, 'X', sizeof(err));
        r = job_spec_validate(&j, err, sizeof(err));
        CHECK(r == 0 || r == -EOPNOTSUPP || r == -EINVAL || r == -ERANGE);
        if (r < 0)
                check_message(err, sizeof(err));
        else
                CHECK(j.bs >= 1 && j.numjobs >= 1 && j.ioengine &&
                      (j.size == 0 || j.bs <= j.size) && (!j.time_based || j.runtime_ns > 0));

        job_spec_done(&j);
        return 0;
}
