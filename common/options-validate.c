/* Whole-job checks of fio-style options (ranges again, sizes against block sizes, contradictions)
 * and the values fio derives from them. */
#include <assert.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "options-internal.h"

static const void *cfield_at(const job_spec_t *j, size_t offset)
{
        return (const char *)j + offset;
}

uint32_t job_spec_nrfiles(const job_spec_t *j)
{
        return j->filename || j->nrfiles == 0 ? 1 : j->nrfiles;
}

uint64_t job_spec_file_io_size(const job_spec_t *j)
{
        if (j->filesize)
                return j->offset < j->filesize ? j->filesize - j->offset : 0;
        return j->size / job_spec_nrfiles(j);
}

uint32_t job_spec_batch_submit(const job_spec_t *j)
{
        return j->iodepth_batch_submit ? j->iodepth_batch_submit : j->iodepth;
}

bool job_spec_seed_is_fixed(const job_spec_t *j)
{
        return j->randrepeat || j->randseed_set;
}

static bool engine_is(const job_spec_t *j, const char *name)
{
        return j->ioengine && streq(j->ioengine, name);
}

static bool enum_known(const job_option_t *o, int v)
{
        for (size_t i = 0; o->choices[i]; i++)
                if ((o->values ? o->values[i] : (int)i) == v)
                        return true;
        return false;
}

static int validate_number(const job_spec_t *j, const job_option_t *o, size_t offset,
                           const char *what, char *err, size_t errlen)
{
        char shown[32];
        uint64_t v = o->type == OPT_UINT32 ? *(const uint32_t *)cfield_at(j, offset)
                                           : *(const uint64_t *)cfield_at(j, offset);

        if ((v < o->min && !(o->zero_unset && v == 0)) || v > o->max)
                return options_range_error(o, o->name, what,
                                           options_format_value(shown, sizeof(shown), o, v), err,
                                           errlen);
        return 0;
}

/* The struct is public (the wire fills it), so every field is checked again. */
static int validate_field(const job_spec_t *j, const job_option_t *o, char *err, size_t errlen)
{
        char vb[ECHO_BUF], list[256];
        const char *s;
        int r, v;

        if (o->no_effect || o->inverse) /* nothing stored, or checked by the option it inverts */
                return 0;
        switch (o->type) {
        case OPT_ENUM:
                if (o->validate)
                        return o->validate(j, err, errlen);
                v = *(const int *)cfield_at(j, o->offset);
                if (enum_known(o, v))
                        return 0;
                options_err(err, errlen, "%s: %d is not one of %s", o->name, v,
                            options_join(list, sizeof(list), o->choices, ", "));
                return -EINVAL;
        case OPT_STR:
                s = *(char *const *)cfield_at(j, o->offset);
                if (!s) {
                        if (!o->choices)
                                return 0;
                        options_err(err, errlen, "%s: required (e.g. %s=%s)", o->name, o->name,
                                    o->example);
                        return -EINVAL;
                }
                if (o->choices && !options_str_in(s, o->choices)) {
                        r = options_str_in(s, o->fio_choices) ? -EOPNOTSUPP : -EINVAL;
                        options_err(err, errlen, "%s: '%s' is not one of %s", o->name,
                                    options_echo(vb, s),
                                    options_join(list, sizeof(list), o->choices, ", "));
                        return r;
                }
                return o->check ? o->check(o->name, s, err, errlen) : 0;
        case OPT_SIZE:
        case OPT_COUNT:
        case OPT_UINT32:
        case OPT_TIME:
                r = validate_number(j, o, o->offset, o->per_ddir ? "read value " : "", err, errlen);
                if (r == 0 && o->per_ddir)
                        r = validate_number(j, o, o->offset_write, "write value ", err, errlen);
                return r;
        case OPT_CUSTOM:
                return o->validate ? o->validate(j, err, errlen) : 0;
        case OPT_BOOL:
                break;
        }
        return 0;
}

/* "size=64k", "filesize=12k minus offset=8k", "the per-file size 16k (size=64k over nrfiles=4)":
 * what the bytes each file's I/O covers come from. */
static const char *region_text(const job_spec_t *j, char *buf, size_t n)
{
        char a[32], b[32], c[32];

        if (j->filesize && j->offset)
                snprintf(buf, n, "filesize=%s minus offset=%s",
                         options_format_size(a, sizeof(a), j->filesize),
                         options_format_size(b, sizeof(b), j->offset));
        else if (j->filesize)
                snprintf(buf, n, "filesize=%s", options_format_size(a, sizeof(a), j->filesize));
        else if (job_spec_nrfiles(j) > 1)
                snprintf(buf, n, "the per-file size %s (size=%s over nrfiles=%u)",
                         options_format_size(a, sizeof(a), job_spec_file_io_size(j)),
                         options_format_size(b, sizeof(b), j->size), (unsigned)job_spec_nrfiles(j));
        else
                snprintf(buf, n, "size=%s", options_format_size(c, sizeof(c), j->size));
        return buf;
}

/* Block sizes of the directions the job uses: fn(j, bs, label) for each. */
/* Block sizes of the directions the job uses: fn(j, bs, label) for each, the smallest of a
 * bsrange/bssplit mix (what fio checks sizes against). */
static int for_each_bs(const job_spec_t *j, char *err, size_t errlen,
                       int (*fn)(const job_spec_t *j, uint64_t bs, const char *label, char *err,
                                 size_t errlen))
{
        uint64_t rbs = job_spec_bs_min(j, DDIR_READ), wbs = job_spec_bs_min(j, DDIR_WRITE);
        bool differ = rbs != wbs;
        int r = 0;

        if (rw_mode_has_read(j->rw))
                r = fn(j, rbs, differ ? "read block size " : "", err, errlen);
        if (r == 0 && rw_mode_has_write(j->rw) && (differ || !rw_mode_has_read(j->rw)))
                r = fn(j, wbs, differ ? "write block size " : "", err, errlen);
        return r;
}

static int check_bs_fits(const job_spec_t *j, uint64_t bs, const char *label, char *err,
                         size_t errlen)
{
        char a[32], where[160];

        if (bs <= job_spec_file_io_size(j))
                return 0;
        options_err(err, errlen, "bs: %s%s is larger than %s", label,
                    options_format_size(a, sizeof(a), bs), region_text(j, where, sizeof(where)));
        return -EINVAL;
}

/* fio: "size too small, must not be less than minimum block size" (with filesize, size only caps
 * the I/O, so it is not covered by the per-file check). */
static int check_bs_within_size(const job_spec_t *j, uint64_t bs, const char *label, char *err,
                                size_t errlen)
{
        char a[32], b[32];

        if (!j->size || j->size >= bs)
                return 0;
        options_err(err, errlen, "bs: %s%s is larger than size=%s", label,
                    options_format_size(a, sizeof(a), bs),
                    options_format_size(b, sizeof(b), j->size));
        return -EINVAL;
}

static int check_bs_aligned(const job_spec_t *j, uint64_t bs, const char *label, char *err,
                            size_t errlen)
{
        char a[32];

        (void)j;
        if (bs % JOB_DIRECT_ALIGN == 0)
                return 0;
        options_err(err, errlen, "bs: %s%s is not a multiple of %d, which direct=1 needs", label,
                    options_format_size(a, sizeof(a), bs), JOB_DIRECT_ALIGN);
        return -EINVAL;
}

/* Sizes, offsets and block sizes against each other, as fio lays files out. */
static int validate_layout(const job_spec_t *j, char *err, size_t errlen)
{
        char a[32], b[32];
        int r;

        if (j->size_percent && !j->filesize)
                return 0; /* a share of files as they are: sized on the agent, when opened */
        if (!j->size && !j->filesize) {
                /* opendir's files are used as they are */
                if (engine_is(j, ENGINE_METADATA) || !strempty(j->opendir))
                        return 0;
                if (!engine_is(j, "null")) {
                        options_err(err, errlen, "size: required (e.g. size=1g, or filesize=...)");
                        return -EINVAL;
                }
                if (!j->time_based) {
                        options_err(err, errlen,
                                    "size: required (e.g. size=1g, or filesize=...) unless "
                                    "ioengine=null runs time_based");
                        return -EINVAL;
                }
                return 0;
        }
        if (engine_is(j, ENGINE_METADATA)) /* whole files, of any size: no block or offset rules */
                return 0;
        if (j->filesize && j->offset >= j->filesize) {
                options_err(err, errlen,
                            "offset: %s is out of range (it must be below filesize=%s)",
                            options_format_size(a, sizeof(a), j->offset),
                            options_format_size(b, sizeof(b), j->filesize));
                return -ERANGE;
        }
        if (!j->filesize && job_spec_file_io_size(j) > JOB_SIZE_MAX - j->offset) {
                options_err(err, errlen,
                            "offset: %s plus %s per file is out of range (files end by byte "
                            "2^63-1)",
                            options_format_size(a, sizeof(a), j->offset),
                            options_format_size(b, sizeof(b), job_spec_file_io_size(j)));
                return -ERANGE;
        }
        r = for_each_bs(j, err, errlen, check_bs_fits);
        if (r < 0)
                return r;
        return for_each_bs(j, err, errlen, check_bs_within_size);
}

static int validate_rules(const job_spec_t *j, char *err, size_t errlen)
{
        char a[32];

        if (j->readonly && rw_mode_has_write(j->rw)) {
                options_err(err, errlen, "readonly: rw=%s would write", rw_mode_to_string(j->rw));
                return -EINVAL;
        }
        if (j->readonly && engine_is(j, ENGINE_METADATA)) {
                options_err(err, errlen, "readonly: ioengine=metadata creates and deletes files");
                return -EINVAL;
        }
        if (!engine_is(j, ENGINE_METADATA) &&
            (j->metadata_dirs != 1 || (j->metadata_order && !streq(j->metadata_order, "both")))) {
                options_err(err, errlen, "%s: only ioengine=metadata uses it",
                            j->metadata_dirs != 1 ? "metadata_dirs" : "metadata_order");
                return -EINVAL;
        }
        /* ioengine=nfs without nfs_url: a plan's client gets it from the server it is given
         * (agent/host.c); the agent refuses the job at prepare when nothing fills it in. */
        if (!engine_is(j, "nfs") && j->nfs_url) {
                options_err(err, errlen, "nfs_url: only ioengine=nfs uses it");
                return -EINVAL;
        }
        if (j->iodepth_batch_submit > j->iodepth) {
                options_err(err, errlen,
                            "iodepth_batch_submit: %u is out of range 0..%u (at most iodepth=%u; "
                            "0 means iodepth)",
                            j->iodepth_batch_submit, j->iodepth, j->iodepth);
                return -ERANGE;
        }
        if (j->iodepth_batch_complete_min > j->iodepth) {
                options_err(err, errlen,
                            "iodepth_batch_complete_min: %u is out of range 0..%u (at most "
                            "iodepth=%u)",
                            j->iodepth_batch_complete_min, j->iodepth, j->iodepth);
                return -ERANGE;
        }
        if ((j->rate[DDIR_READ] || j->rate[DDIR_WRITE]) &&
            (j->rate_iops[DDIR_READ] || j->rate_iops[DDIR_WRITE])) {
                options_err(err, errlen, "rate: rate and rate_iops exclude each other (give one)");
                return -EINVAL;
        }
        if (j->verify != VERIFY_NONE && engine_is(j, "null")) {
                options_err(err, errlen,
                            "verify: ioengine=null keeps no data to verify (use verify=0)");
                return -EINVAL;
        }
        if (j->direct && !engine_is(j, "null")) {
                if (j->offset % JOB_DIRECT_ALIGN) {
                        options_err(err, errlen,
                                    "offset: %s is not a multiple of %d, which direct=1 needs",
                                    options_format_size(a, sizeof(a), j->offset), JOB_DIRECT_ALIGN);
                        return -EINVAL;
                }
                return for_each_bs(j, err, errlen, check_bs_aligned);
        }
        return 0;
}

int job_spec_validate(const job_spec_t *j, char *err, size_t errlen)
{
        const job_option_t *o;
        int r;

        assert(j);
        for (size_t i = 0; (o = options_at(i)); i++) {
                r = validate_field(j, o, err, errlen);
                if (r < 0)
                        return r;
        }
        /* time_based without a runtime runs until it is stopped (a soak run, ended by a cancel
         * or a stonewall), as fio runs such a job until it is killed. */
        /* the I/O pattern's rules first: they name bssplit, bsrange, ba where the general ones
         * would say bs */
        r = options_validate_io(j, err, errlen);
        if (r < 0)
                return r;
        r = validate_rules(j, err, errlen);
        if (r < 0)
                return r;
        if ((r = options_files_validate(j, err, errlen)) < 0)
                return r;
        if ((r = options_logs_validate(j, err, errlen)) < 0)
                return r;
        return validate_layout(j, err, errlen);
}
