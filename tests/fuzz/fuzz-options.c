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

/* Every field of the job, strings by value. */
static bool spec_equal(const job_spec_t *a, const job_spec_t *b)
{
        return str_eq_null(a->name, b->name) && a->rw == b->rw && a->rwmixread == b->rwmixread &&
               a->bs == b->bs && a->bs_write == b->bs_write && a->size == b->size &&
               a->filesize == b->filesize && a->nrfiles == b->nrfiles && a->offset == b->offset &&
               a->numjobs == b->numjobs && a->iodepth == b->iodepth &&
               a->iodepth_batch_submit == b->iodepth_batch_submit &&
               a->iodepth_batch_complete_min == b->iodepth_batch_complete_min &&
               a->direct == b->direct && a->invalidate == b->invalidate &&
               a->runtime_ns == b->runtime_ns && a->time_based == b->time_based &&
               a->ramp_time_ns == b->ramp_time_ns && a->startdelay_ns == b->startdelay_ns &&
               str_eq_null(a->directory, b->directory) && str_eq_null(a->filename, b->filename) &&
               str_eq_null(a->filename_format, b->filename_format) && a->fsync == b->fsync &&
               a->fdatasync == b->fdatasync && a->end_fsync == b->end_fsync &&
               a->rate[0] == b->rate[0] && a->rate[1] == b->rate[1] &&
               a->rate_iops[0] == b->rate_iops[0] && a->rate_iops[1] == b->rate_iops[1] &&
               a->randrepeat == b->randrepeat && a->randseed == b->randseed &&
               a->norandommap == b->norandommap && a->readonly == b->readonly &&
               a->verify == b->verify && a->verify_fatal == b->verify_fatal &&
               a->thread == b->thread && a->group_reporting == b->group_reporting &&
               str_eq_null(a->ioengine, b->ioengine) && a->metadata_dirs == b->metadata_dirs &&
               str_eq_null(a->metadata_order, b->metadata_order) &&
               a->randseed_set == b->randseed_set;
}

static void spec_copy(job_spec_t *dst, const job_spec_t *src)
{
        CHECK(job_spec_copy(dst, src) == 0);
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

static bool engine_is(const job_spec_t *j, const char *e)
{
        return j->ioengine && strcmp(j->ioengine, e) == 0;
}

/* What a job that validates promises the engines. */
static void check_valid(const job_spec_t *j)
{
        const bool rd = rw_mode_has_read(j->rw), wr = rw_mode_has_write(j->rw);
        const uint64_t region = job_spec_file_io_size(j);

        CHECK(j->bs >= 1 && j->bs_write >= 1 && j->numjobs >= 1 && j->nrfiles >= 1);
        CHECK(j->iodepth >= 1 && j->rwmixread <= 100 && j->ioengine && j->metadata_order);
        CHECK(rd || wr);
        /* time_based without a runtime is accepted: it runs until stopped */
        CHECK(j->iodepth_batch_submit <= j->iodepth && j->iodepth_batch_complete_min <= j->iodepth);
        CHECK(job_spec_batch_submit(j) >= 1 && job_spec_batch_submit(j) <= j->iodepth);
        CHECK(!(j->readonly && wr));
        CHECK(!((j->rate[0] || j->rate[1]) && (j->rate_iops[0] || j->rate_iops[1])));
        CHECK(j->verify == VERIFY_NONE || !engine_is(j, "null"));
        CHECK(j->size || j->filesize || j->size_percent || engine_is(j, "metadata") ||
              (engine_is(j, "null") && j->time_based));
        if ((j->size || j->filesize) && !engine_is(j, "metadata")) {
                CHECK(!j->filesize || j->offset < j->filesize);
                CHECK(!rd || (j->bs <= region && (!j->size || j->bs <= j->size)));
                CHECK(!wr || (j->bs_write <= region && (!j->size || j->bs_write <= j->size)));
                CHECK(j->offset + region <= (uint64_t)INT64_MAX);
        }
        if (j->direct && !engine_is(j, "null")) {
                CHECK(j->offset % 512 == 0);
                CHECK(!rd || j->bs % 512 == 0);
                CHECK(!wr || j->bs_write % 512 == 0);
        }
        if (!engine_is(j, "metadata"))
                CHECK(j->metadata_dirs == 1 && strcmp(j->metadata_order, "both") == 0);
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
                check_valid(&j);
        job_spec_done(&j);
        return 0;
}
