/* The I/O pattern, pacing, offset and placement options as fio 3.33 reads them: rw's ':' suffix,
 * bssplit, bsrange, random_distribution, latency_percentile, cpus_allowed, the NUMA options,
 * nice and the I/O priority; their defaults and the whole-job rules among them. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "options-fio.h"
#include "options-internal.h"
#include "parse.h"

const char *const options_rw_choices[] = {
    "read", "write", "randread", "randwrite", "rw", "readwrite", "randrw", NULL,
};
static const rw_mode_t rw_values[] = {
    RW_READ, RW_WRITE, RW_RANDREAD, RW_RANDWRITE, RW_RW, RW_RW, RW_RANDRW,
};
const char *const options_rw_sequencer_choices[] = {"sequential", "identical", NULL};
const char *const options_thinktime_type_choices[] = {"complete", "issue", NULL};
const char *const options_rate_process_choices[] = {"linear", "poisson", NULL};
const char *const options_submit_mode_choices[] = {"inline", "offload", NULL};
const char *const options_random_generator_choices[] = {"tausworthe", "lfsr", "tausworthe64",
                                                        NULL};
const int options_random_generator_values[] = {RAND_GEN_TAUSWORTHE, RAND_GEN_LFSR,
                                               RAND_GEN_TAUSWORTHE64};
const char *const options_cpus_policy_choices[] = {"shared", "split", NULL};

/* random_generator's value when not given (iofleet's own streams) is none of its choices. */
int options_validate_random_generator(const job_spec_t *j, char *err, size_t errlen)
{
        if ((unsigned)j->random_generator > RAND_GEN_TAUSWORTHE64) {
                options_err(err, errlen,
                            "random_generator: %d is not one of tausworthe, lfsr, tausworthe64",
                            (int)j->random_generator);
                return -EINVAL;
        }
        return 0;
}

/* fio's defaults of the distributions' parameter (FIO_DEF_ZIPF, FIO_DEF_PARETO). */
#define DEF_ZIPF 1.1
#define DEF_PARETO 0.2

static const char *const ddir_part[] = {"read", "write", "trim"};

void options_io_defaults(job_spec_t *j)
{
        j->rw_seq_nr = 1;
        j->rate_cycle_ms = 1000;
        j->latency_percentile = 100.0;
        j->rand_center = -1.0;
        j->percentage_random[DDIR_READ] = j->percentage_random[DDIR_WRITE] = 100;
        j->numa_mem_mode = NUMA_MEM_UNSET;
        j->prio = -1;
        j->prioclass = -1;
}

/* --- small parsers ------------------------------------------------------------------- */

/* A whole number in [min, max] (decimal or 0x hex), the whole string. */
static bool parse_long(const char *s, long long min, long long max, long long *ret)
{
        char *end;
        long long v;

        if (!*s || *s == ' ')
                return false;
        errno = 0;
        v = strtoll(s, &end, 0);
        if (errno || end == s || *end || v < min || v > max)
                return false;
        *ret = v;
        return true;
}

/* A finite number (fio's str_to_float), the whole string. */
static bool parse_double(const char *s, double *ret)
{
        char *end;
        double v;

        if (!*s || *s == ' ')
                return false;
        errno = 0;
        v = strtod(s, &end);
        if (errno || end == s || *end || !isfinite(v))
                return false;
        *ret = v;
        return true;
}

/* fio's str_split_parse(): "R,W,T" gives each direction its part ("" leaves it unset); a value
 * without ',' applies to all. fn parses one part into direction ddir. */
typedef int split_fn(job_spec_t *j, unsigned ddir, const char *key, const char *part, void *ctx,
                     char *err, size_t errlen);

static int split_ddir(const char *key, const char *value, job_spec_t *j, void *ctx, char *err,
                      size_t errlen, split_fn *fn)
{
        char vb[ECHO_BUF], *copy = strdup(value), *parts[3] = {0}, *p;
        size_t n = 0;
        int r = 0;

        if (!copy)
                return -ENOMEM;
        for (p = copy; n < 3; n++) {
                char *comma = strchr(p, ',');
                parts[n] = p;
                if (!comma || n == 2) {
                        n++;
                        break;
                }
                *comma = '\0';
                p = comma + 1;
        }
        if (n == 3 && strchr(parts[2], ',')) {
                options_err(err, errlen,
                            "%s: '%s' has more than 3 comma-separated parts (read,write,trim)", key,
                            options_echo(vb, value));
                free(copy);
                return -EINVAL;
        }
        if (n == 1) {
                r = fn(j, DDIR_READ, key, parts[0], ctx, err, errlen);
                if (r == 0)
                        r = fn(j, DDIR_WRITE, key, parts[0], ctx, err, errlen);
        } else {
                /* a trim part is checked and dropped: iofleet has no trim workloads */
                for (size_t d = 0; d < n && r == 0; d++)
                        r = fn(j, (unsigned)d, key, parts[d], ctx, err, errlen);
        }
        free(copy);
        return r;
}

/* --- rw with fio's ':' suffix ---------------------------------------------------------- */

/* rw=randread:8 (a new random offset every 8 I/Os), rw=write:4k (4k skipped after each
 * sequential I/O; fio also goes backwards with a negative value). Each rw= starts afresh from no
 * suffix, as fio's str_rw_cb. */
int options_set_rw(job_spec_t *j, const char *key, const char *value, char *err, size_t errlen)
{
        char vb[ECHO_BUF], list[256], mode[32];
        const char *colon = strchr(value, ':');
        size_t n = colon ? (size_t)(colon - value) : strlen(value);
        int m = -1;

        options_join(list, sizeof(list), options_rw_choices, ", ");
        if (n < sizeof(mode)) {
                memcpy(mode, value, n);
                mode[n] = '\0';
                for (size_t i = 0; options_rw_choices[i]; i++)
                        if (streq(mode, options_rw_choices[i]))
                                m = (int)i;
                if (m < 0 && options_str_in(mode, job_fio_unsupported_rw)) {
                        options_err(err, errlen,
                                    "%s: fio's '%s' is not supported by iofleet yet (use %s)", key,
                                    mode, list);
                        return -EOPNOTSUPP;
                }
        }
        if (m < 0) {
                options_err(err, errlen, "%s: '%s' is not one of %s", key, options_echo(vb, value),
                            list);
                return -EINVAL;
        }
        if (!colon) {
                j->rw = rw_values[m];
                j->rw_seq_nr = 1;
                j->rw_seq_add = 0;
                return 0;
        }
        if (rw_mode_is_random(rw_values[m])) {
                long long v;
                if (!parse_long(colon + 1, 1, UINT32_MAX, &v)) {
                        options_err(err, errlen,
                                    "%s: '%s': after a random mode, ':' takes the number of I/Os "
                                    "per new offset, 1..%u (e.g. %s=randread:8)",
                                    key, options_echo(vb, value), UINT32_MAX, key);
                        return -EINVAL;
                }
                j->rw = rw_values[m];
                j->rw_seq_nr = (uint32_t)v;
                j->rw_seq_add = 0;
        } else {
                const char *s = colon + 1, *why = NULL;
                bool neg = *s == '-';
                uint64_t v;
                if (parse_size_base_why(s + neg, j->kb_base, &v, &why) < 0 || v > JOB_SIZE_MAX) {
                        options_err(err, errlen,
                                    "%s: '%s': after a sequential mode, ':' takes the bytes to "
                                    "skip after each I/O, a size that may be negative (e.g. "
                                    "%s=write:4k)",
                                    key, options_echo(vb, value), key);
                        return -EINVAL;
                }
                j->rw = rw_values[m];
                j->rw_seq_nr = 1;
                j->rw_seq_add = neg ? -(int64_t)v : (int64_t)v;
        }
        return 0;
}

int options_validate_rw(const job_spec_t *j, char *err, size_t errlen)
{
        if (!rw_mode_to_string(j->rw)) {
                char list[256];
                options_err(err, errlen, "rw: %d is not one of %s", (int)j->rw,
                            options_join(list, sizeof(list), options_rw_choices, ", "));
                return -EINVAL;
        }
        if (j->rw_seq_nr == 0) {
                options_err(err, errlen, "rw: the I/Os per new offset (rw=randread:N) must be 1 or "
                                         "more, not 0");
                return -ERANGE;
        }
        if (j->rw_seq_add > (int64_t)JOB_SIZE_MAX || j->rw_seq_add < -(int64_t)JOB_SIZE_MAX) {
                options_err(err, errlen, "rw: the skip %lld is out of range",
                            (long long)j->rw_seq_add);
                return -ERANGE;
        }
        if (j->rw_seq_nr > 1 && !rw_mode_is_random(j->rw)) {
                options_err(err, errlen,
                            "rw: a count of I/Os per offset (:%u) only goes with a random mode",
                            (unsigned)j->rw_seq_nr);
                return -EINVAL;
        }
        if (j->rw_seq_add && rw_mode_is_random(j->rw)) {
                options_err(err, errlen, "rw: a skip in bytes only goes with a sequential mode");
                return -EINVAL;
        }
        return 0;
}

/* --- bssplit ------------------------------------------------------------------------- */

/* Sorts by weight, ascending, keeping the given order among equal weights (fio sorts with
 * qsort by weight; a stable order makes iofleet's choices repeat). */
static void sort_by_weight(job_bssplit_t *s)
{
        for (uint32_t i = 1; i < s->n; i++) {
                job_bs_weight_t x = s->e[i];
                uint32_t k = i;
                while (k > 0 && s->e[k - 1].perc > x.perc) {
                        s->e[k] = s->e[k - 1];
                        k--;
                }
                s->e[k] = x;
        }
}

/* One direction of bssplit=: "bs/perc:bs/perc:..." (an empty perc shares out what is left). */
static int bssplit_part(job_spec_t *j, unsigned ddir, const char *key, const char *part,
                        void *ctx, char *err, size_t errlen)
{
        char vb[ECHO_BUF], *copy, *save = NULL, *tok;
        job_bssplit_t s = {0};
        uint32_t missing = 0, sum = 0;
        int r = 0;

        if (!*part) {
                if (ddir < 2)
                        j->bssplit[ddir].n = 0;
                return 0;
        }
        copy = strdup(part);
        if (!copy)
                return -ENOMEM;
        for (tok = strtok_r(copy, ":", &save); tok; tok = strtok_r(NULL, ":", &save)) {
                char *slash = strchr(tok, '/');
                const char *why = NULL;
                uint64_t bs;
                long long perc = -1;

                if (s.n == JOB_BSSPLIT_MAX) {
                        options_err(err, errlen, "%s: %s part '%s' has more than %d block sizes",
                                    key, ddir_part[ddir], options_echo(vb, part), JOB_BSSPLIT_MAX);
                        r = -E2BIG;
                        goto out;
                }
                if (slash)
                        *slash = '\0';
                if (parse_size_base_why(tok, j->kb_base, &bs, &why) < 0 || bs < 1 ||
                    bs > JOB_BS_MAX) {
                        options_err(err, errlen,
                                    "%s: '%s' is not a block size 1..2g (entries are bs/percent, "
                                    "e.g. %s=4k/50:64k/50)",
                                    key, options_echo(vb, tok), key);
                        r = -EINVAL;
                        goto out;
                }
                if (slash && slash[1]) {
                        if (!parse_long(slash + 1, 0, 1000000, &perc)) {
                                options_err(err, errlen,
                                            "%s: '%s' is not a percentage (entries are "
                                            "bs/percent, e.g. %s=4k/50:64k/50)",
                                            key, options_echo(vb, slash + 1), key);
                                r = -EINVAL;
                                goto out;
                        }
                        /* fio: above 100 counts as 100, 0 as not given */
                        if (perc > 100)
                                perc = 100;
                        else if (perc == 0)
                                perc = -1;
                }
                s.e[s.n].bs = bs;
                s.e[s.n].perc = perc < 0 ? UINT32_MAX : (uint32_t)perc;
                if (perc < 0)
                        missing++;
                else
                        sum += (uint32_t)perc;
                s.n++;
        }
        if (!s.n) {
                options_err(err, errlen, "%s: '%s' names no block size", key,
                            options_echo(vb, part));
                r = -EINVAL;
                goto out;
        }
        if (sum > 100 && missing > 1) {
                options_err(err, errlen, "%s: the %s percentages of '%s' add up to more than 100",
                            key, ddir_part[ddir], options_echo(vb, part));
                r = -EINVAL;
                goto out;
        }
        if (missing) {
                /* fio: the rest is shared out evenly; a lone size without a weight is 100 % */
                uint32_t each = missing == 1 && s.n == 1 ? 100 : (sum > 100 ? 0 : (100 - sum) / missing);
                for (uint32_t i = 0; i < s.n; i++)
                        if (s.e[i].perc == UINT32_MAX)
                                s.e[i].perc = each;
        }
        sort_by_weight(&s);
        if (ddir < 2)
                j->bssplit[ddir] = s;
out:
        free(copy);
        return r;
}

int options_set_bssplit(job_spec_t *j, const char *key, const char *value, char *err,
                        size_t errlen)
{
        job_bssplit_t saved[2] = {j->bssplit[0], j->bssplit[1]};
        int r = split_ddir(key, value, j, NULL, err, errlen, bssplit_part);
        if (r < 0) {
                j->bssplit[0] = saved[0];
                j->bssplit[1] = saved[1];
        }
        return r;
}

int options_validate_bssplit(const job_spec_t *j, char *err, size_t errlen)
{
        for (unsigned d = 0; d < 2; d++) {
                const job_bssplit_t *s = &j->bssplit[d];
                if (s->n > JOB_BSSPLIT_MAX) {
                        options_err(err, errlen, "bssplit: %u %s block sizes, at most %d", s->n,
                                    ddir_part[d], JOB_BSSPLIT_MAX);
                        return -E2BIG;
                }
                for (uint32_t i = 0; i < s->n; i++)
                        if (!s->e[i].bs || s->e[i].bs > JOB_BS_MAX || s->e[i].perc > 100 ||
                            (i && s->e[i].perc < s->e[i - 1].perc)) {
                                options_err(err, errlen,
                                            "bssplit: %s entry %u (%llu bytes, %u%%) is not a "
                                            "block size 1..2g with a percentage 0..100 in "
                                            "ascending order",
                                            ddir_part[d], i, (unsigned long long)s->e[i].bs,
                                            s->e[i].perc);
                                return -EINVAL;
                        }
        }
        return 0;
}

/* --- bsrange ------------------------------------------------------------------------- */

/* One direction of bsrange=: "low-high" (or low:high; a single size is both); fio swaps a range
 * given high first. */
static int bsrange_part(job_spec_t *j, unsigned ddir, const char *key, const char *part,
                        void *ctx, char *err, size_t errlen)
{
        char vb[ECHO_BUF], lo_s[64], hi_s[64];
        const char *sep = strpbrk(part, "-:"), *why = NULL;
        uint64_t lo, hi;
        size_t n;

        if (!*part) {
                if (ddir < 2)
                        j->bs_min[ddir] = j->bs_max[ddir] = 0;
                return 0;
        }
        n = sep ? (size_t)(sep - part) : strlen(part);
        if (n >= sizeof(lo_s) || (sep && strlen(sep + 1) >= sizeof(hi_s)))
                goto bad;
        memcpy(lo_s, part, n);
        lo_s[n] = '\0';
        snprintf(hi_s, sizeof(hi_s), "%s", sep ? sep + 1 : lo_s);
        if (parse_size_base_why(lo_s, j->kb_base, &lo, &why) < 0 ||
            parse_size_base_why(hi_s, j->kb_base, &hi, &why) < 0 || !lo || !hi || lo > JOB_BS_MAX ||
            hi > JOB_BS_MAX)
                goto bad;
        if (lo > hi) {
                uint64_t t = lo;
                lo = hi;
                hi = t;
        }
        if (ddir < 2) {
                j->bs_min[ddir] = lo;
                j->bs_max[ddir] = hi;
        }
        return 0;
bad:
        options_err(err, errlen,
                    "%s: '%s' is not a range of block sizes 1..2g (low-high, e.g. %s=4k-64k or "
                    "%s=4k-16k,8k-64k)",
                    key, options_echo(vb, part), key, key);
        return -EINVAL;
}

int options_set_bsrange(job_spec_t *j, const char *key, const char *value, char *err,
                        size_t errlen)
{
        uint64_t lo[2] = {j->bs_min[0], j->bs_min[1]}, hi[2] = {j->bs_max[0], j->bs_max[1]};
        int r = split_ddir(key, value, j, NULL, err, errlen, bsrange_part);
        if (r < 0) {
                memcpy(j->bs_min, lo, sizeof(lo));
                memcpy(j->bs_max, hi, sizeof(hi));
        }
        return r;
}

int options_validate_bsrange(const job_spec_t *j, char *err, size_t errlen)
{
        for (unsigned d = 0; d < 2; d++)
                if ((j->bs_min[d] == 0) != (j->bs_max[d] == 0) || j->bs_min[d] > j->bs_max[d] ||
                    j->bs_max[d] > JOB_BS_MAX) {
                        options_err(err, errlen,
                                    "bsrange: %s range %llu-%llu is not low-high within 1..2g",
                                    ddir_part[d], (unsigned long long)j->bs_min[d],
                                    (unsigned long long)j->bs_max[d]);
                        return -EINVAL;
                }
        return 0;
}

/* --- random_distribution ------------------------------------------------------------- */

/* One direction of zoned / zoned_abs: "access/size:access/size:..." where access is a share of
 * the random I/Os and size a share of the file (zoned, an empty one sharing out the rest) or
 * bytes (zoned_abs, when *ctx is true). */
static int zones_part(job_spec_t *j, unsigned ddir, const char *key, const char *part, void *ctx,
                      char *err, size_t errlen)
{
        bool zones_abs = *(const bool *)ctx;
        char vb[ECHO_BUF], *copy, *save = NULL, *tok;
        const char *kind = zones_abs ? "zoned_abs" : "zoned";
        job_zones_t z = {0};
        uint32_t access = 0, sizes = 0, missing = 0;
        int r = 0;

        if (!*part) {
                if (ddir < 2)
                        j->zones[ddir].n = 0;
                return 0;
        }
        copy = strdup(part);
        if (!copy)
                return -ENOMEM;
        for (tok = strtok_r(copy, ":", &save); tok; tok = strtok_r(NULL, ":", &save)) {
                char *slash = strchr(tok, '/');
                long long a;
                job_zone_t *zz = &z.z[z.n];

                if (z.n == JOB_ZONES_MAX) {
                        options_err(err, errlen, "%s: %s: more than %d zones", key, kind,
                                    JOB_ZONES_MAX);
                        r = -E2BIG;
                        goto out;
                }
                if (slash)
                        *slash = '\0';
                if (!parse_long(tok, 0, 100, &a)) {
                        options_err(err, errlen,
                                    "%s: %s: '%s' is not a share of the I/Os 0..100 (zones are "
                                    "access%%/size, e.g. %s=%s:60/10:40/90)",
                                    key, kind, options_echo(vb, tok), key, kind);
                        r = -EINVAL;
                        goto out;
                }
                zz->access_perc = (uint32_t)a;
                access += (uint32_t)a;
                if (zones_abs) {
                        const char *why = NULL;
                        if (!slash || !slash[1] ||
                            parse_size_base_why(slash + 1, j->kb_base, &zz->size, &why) < 0 ||
                            !zz->size || zz->size > JOB_SIZE_MAX) {
                                options_err(err, errlen,
                                            "%s: zoned_abs: zone %u needs a size in bytes after "
                                            "'/' (e.g. %s=zoned_abs:60/20g:40/100g)",
                                            key, (unsigned)z.n + 1, key);
                                r = -EINVAL;
                                goto out;
                        }
                } else if (slash && slash[1]) {
                        long long s;
                        if (!parse_long(slash + 1, 0, 1000000, &s)) {
                                options_err(err, errlen,
                                            "%s: zoned: '%s' is not a share of the file 0..100",
                                            key, options_echo(vb, slash + 1));
                                r = -EINVAL;
                                goto out;
                        }
                        /* fio: above 100 counts as 100, 0 as not given */
                        zz->size_perc = s > 100 ? 100 : s == 0 ? UINT32_MAX : (uint32_t)s;
                } else {
                        zz->size_perc = UINT32_MAX;
                }
                if (!zones_abs) {
                        if (zz->size_perc == UINT32_MAX)
                                missing++;
                        else
                                sizes += zz->size_perc;
                }
                z.n++;
        }
        if (access != 100 || sizes > 100) {
                options_err(err, errlen,
                            "%s: %s: the %s shares of the I/Os add up to %u%% and of the file to "
                            "%u%%; the I/Os must make 100%%, the file at most 100%%",
                            key, kind, ddir_part[ddir], access, sizes);
                r = -EINVAL;
                goto out;
        }
        if (missing) {
                uint32_t each = missing == 1 && z.n == 1 ? 100 : (100 - sizes) / missing;
                for (uint32_t i = 0; i < z.n; i++)
                        if (z.z[i].size_perc == UINT32_MAX)
                                z.z[i].size_perc = each;
        }
        if (ddir < 2)
                j->zones[ddir] = z;
out:
        free(copy);
        return r;
}

int options_set_random_distribution(job_spec_t *j, const char *key, const char *value, char *err,
                                    size_t errlen)
{
        static const char *const names[] = {"random", "zipf",  "pareto",
                                            "normal", "zoned", "zoned_abs", NULL};
        char vb[ECHO_BUF], list[128], name[16];
        const char *colon = strchr(value, ':');
        size_t n = colon ? (size_t)(colon - value) : strlen(value);
        job_zones_t saved[2];
        double param = 0, center = -1;
        int kind = -1, r;

        options_join(list, sizeof(list), names, ", ");
        if (n < sizeof(name)) {
                memcpy(name, value, n);
                name[n] = '\0';
                for (int i = 0; names[i]; i++)
                        if (streq(name, names[i]))
                                kind = i;
        }
        if (kind < 0) {
                if (strncmp(value, "zoned_abs=", 10) == 0 || strncmp(value, "zoned=", 6) == 0)
                        options_err(err, errlen,
                                    "%s: '%s': zones follow a ':' (e.g. %s=zoned:60/10:40/90), as "
                                    "fio reads them",
                                    key, options_echo(vb, value), key);
                else
                        options_err(err, errlen, "%s: '%s' is not one of %s", key,
                                    options_echo(vb, value), list);
                return -EINVAL;
        }
        if (kind == RAND_DIST_ZONED || kind == RAND_DIST_ZONED_ABS) {
                if (!colon || !colon[1]) {
                        options_err(err, errlen, "%s: %s needs its zones (e.g. %s=%s:60/10:40/90)",
                                    key, name, key, name);
                        return -EINVAL;
                }
                memcpy(saved, j->zones, sizeof(saved));
                j->zones[0].n = j->zones[1].n = 0;
                bool abs = kind == RAND_DIST_ZONED_ABS;
                r = split_ddir(key, colon + 1, j, &abs, err, errlen, zones_part);
                if (r < 0) {
                        memcpy(j->zones, saved, sizeof(saved));
                        return r;
                }
                j->random_distribution = (random_dist_t)kind;
                j->rand_param = 0;
                j->rand_center = -1;
                return 0;
        }
        if (kind == RAND_DIST_RANDOM) {
                if (colon) {
                        options_err(err, errlen, "%s: 'random' takes no parameter", key);
                        return -EINVAL;
                }
        } else {
                param = kind == RAND_DIST_ZIPF ? DEF_ZIPF : kind == RAND_DIST_PARETO ? DEF_PARETO : 0;
                if (colon) {
                        char p[64];
                        const char *c2 = strchr(colon + 1, ':');
                        size_t pn = c2 ? (size_t)(c2 - colon - 1) : strlen(colon + 1);
                        if (pn >= sizeof(p) || (memcpy(p, colon + 1, pn), p[pn] = '\0',
                                                !parse_double(p, &param)) ||
                            (c2 && !parse_double(c2 + 1, &center))) {
                                options_err(err, errlen,
                                            "%s: '%s' is not %s:NUMBER[:CENTER] (e.g. "
                                            "%s=zipf:1.2 or %s=zipf:1.2:0.25)",
                                            key, options_echo(vb, value), name, key, key);
                                return -EINVAL;
                        }
                        if (c2 && (center < 0 || center > 1)) {
                                options_err(err, errlen,
                                            "%s: center %g is out of range 0..1 (where in the "
                                            "file the peak goes)",
                                            key, center);
                                return -ERANGE;
                        }
                }
                if (kind == RAND_DIST_ZIPF && param == 1.0) {
                        options_err(err, errlen, "%s: zipf theta must be other than 1.0", key);
                        return -ERANGE;
                }
                if (kind == RAND_DIST_PARETO && (param <= 0 || param >= 1)) {
                        options_err(err, errlen, "%s: pareto power %g is out of range (0 < h < 1)",
                                    key, param);
                        return -ERANGE;
                }
                if (kind == RAND_DIST_NORMAL && (param < 0 || param >= 100)) {
                        options_err(err, errlen,
                                    "%s: normal deviation %g is out of range (0 <= percent < 100)",
                                    key, param);
                        return -ERANGE;
                }
                if (kind == RAND_DIST_ZIPF && (param <= 0 || param > 100)) {
                        options_err(err, errlen, "%s: zipf theta %g is out of range (0 < theta <= 100)",
                                    key, param);
                        return -ERANGE;
                }
        }
        j->random_distribution = (random_dist_t)kind;
        j->rand_param = param;
        j->rand_center = center;
        return 0;
}

int options_validate_random_distribution(const job_spec_t *j, char *err, size_t errlen)
{
        random_dist_t k = j->random_distribution;
        double p = j->rand_param;

        if ((unsigned)k > RAND_DIST_ZONED_ABS || isnan(p) || isnan(j->rand_center) ||
            (j->rand_center != -1 && (j->rand_center < 0 || j->rand_center > 1)) ||
            (k == RAND_DIST_ZIPF && (p <= 0 || p > 100 || p == 1.0)) ||
            (k == RAND_DIST_PARETO && (p <= 0 || p >= 1)) ||
            (k == RAND_DIST_NORMAL && (p < 0 || p >= 100))) {
                options_err(err, errlen,
                            "random_distribution: kind %d with parameter %g and center %g is out "
                            "of range",
                            (int)k, p, j->rand_center);
                return -ERANGE;
        }
        for (unsigned d = 0; d < 2; d++) {
                uint32_t access = 0, sizes = 0;
                if (j->zones[d].n > JOB_ZONES_MAX) {
                        options_err(err, errlen, "random_distribution: %u zones, at most %d",
                                    j->zones[d].n, JOB_ZONES_MAX);
                        return -E2BIG;
                }
                for (uint32_t i = 0; i < j->zones[d].n; i++) {
                        access += j->zones[d].z[i].access_perc;
                        sizes += j->zones[d].z[i].size_perc;
                }
                if (j->zones[d].n && (access != 100 || (k == RAND_DIST_ZONED && sizes > 100))) {
                        options_err(err, errlen,
                                    "random_distribution: the %s zones' shares add up to %u%% "
                                    "of the I/Os and %u%% of the file",
                                    ddir_part[d], access, sizes);
                        return -EINVAL;
                }
        }
        return 0;
}

/* --- latency_percentile -------------------------------------------------------------- */

int options_set_latency_percentile(job_spec_t *j, const char *key, const char *value, char *err,
                                   size_t errlen)
{
        char vb[ECHO_BUF];
        double v;

        if (!parse_double(value, &v) || v < 0 || v > 100) {
                options_err(err, errlen, "%s: '%s' is not a percentage 0..100 (e.g. %s=99.9)", key,
                            options_echo(vb, value), key);
                return -EINVAL;
        }
        j->latency_percentile = v;
        return 0;
}

int options_validate_latency_percentile(const job_spec_t *j, char *err, size_t errlen)
{
        if (!(j->latency_percentile >= 0 && j->latency_percentile <= 100)) {
                options_err(err, errlen, "latency_percentile: %g is out of range 0..100",
                            j->latency_percentile);
                return -ERANGE;
        }
        return 0;
}

/* --- CPU and node sets ----------------------------------------------------------------- */

static void set_add(job_cpuset_t *s, unsigned i)
{
        if (!(s->bits[i / 64] & (1ULL << (i % 64)))) {
                s->bits[i / 64] |= 1ULL << (i % 64);
                s->n++;
        }
}

/* "0,5,8-15" (fio's cpus_allowed; numa_parse_nodestring's lists, and "all" when all_ok) into s,
 * members below max. */
static int parse_set(const char *key, const char *what, const char *value, unsigned max,
                     bool all_ok, job_cpuset_t *s, char *err, size_t errlen)
{
        char vb[ECHO_BUF], *copy, *save = NULL, *tok;
        job_cpuset_t out = {0};
        int r = 0;

        if (all_ok && streq(value, "all")) {
                for (unsigned i = 0; i < max; i++)
                        set_add(&out, i);
                *s = out;
                return 0;
        }
        copy = strdup(value);
        if (!copy)
                return -ENOMEM;
        for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
                char *dash = strchr(tok + 1, '-');
                long long lo, hi;
                if (dash)
                        *dash = '\0';
                if (!parse_long(tok, 0, max - 1, &lo) ||
                    (dash ? !parse_long(dash + 1, 0, max - 1, &hi) : (hi = lo, false)) || hi < lo) {
                        options_err(err, errlen,
                                    "%s: '%s' is not a list of %s 0..%u (e.g. %s=0,2,4-7%s)", key,
                                    options_echo(vb, value), what, max - 1, key,
                                    all_ok ? " or all" : "");
                        r = -EINVAL;
                        goto out;
                }
                for (long long i = lo; i <= hi; i++)
                        set_add(&out, (unsigned)i);
        }
        if (!out.n) {
                options_err(err, errlen, "%s: '%s' names no %s", key, options_echo(vb, value),
                            what);
                r = -EINVAL;
                goto out;
        }
        *s = out;
out:
        free(copy);
        return r;
}

static bool set_valid(const job_cpuset_t *s, unsigned max)
{
        uint32_t n = 0;
        for (unsigned i = 0; i < JOB_CPUS_MAX; i++)
                if (s->bits[i / 64] & (1ULL << (i % 64))) {
                        if (i >= max)
                                return false;
                        n++;
                }
        return n == s->n;
}

int options_set_cpus_allowed(job_spec_t *j, const char *key, const char *value, char *err,
                             size_t errlen)
{
        return parse_set(key, "CPUs", value, JOB_CPUS_MAX, false, &j->cpus_allowed, err, errlen);
}

/* fio's cpumask: a number whose bit i allows CPU i (as fio, the bits of an int). */
int options_set_cpumask(job_spec_t *j, const char *key, const char *value, char *err,
                        size_t errlen)
{
        char vb[ECHO_BUF];
        job_cpuset_t s = {0};
        long long v;

        if (!parse_long(value, 1, UINT32_MAX, &v)) {
                options_err(err, errlen,
                            "%s: '%s' is not a CPU bit mask 1..0xffffffff (bit i allows CPU i; "
                            "e.g. %s=0x3, or cpus_allowed=0,1)",
                            key, options_echo(vb, value), key);
                return -EINVAL;
        }
        for (unsigned i = 0; i < 32; i++)
                if (v & (1LL << i))
                        set_add(&s, i);
        j->cpus_allowed = s;
        return 0;
}

int options_validate_cpus_allowed(const job_spec_t *j, char *err, size_t errlen)
{
        if (!set_valid(&j->cpus_allowed, JOB_CPUS_MAX) ||
            (unsigned)j->cpus_allowed_policy > CPUS_SPLIT) {
                options_err(err, errlen, "cpus_allowed: the set or its policy is out of range");
                return -EINVAL;
        }
        return 0;
}

int options_set_numa_cpu_nodes(job_spec_t *j, const char *key, const char *value, char *err,
                               size_t errlen)
{
        return parse_set(key, "NUMA nodes", value, JOB_NODES_MAX, true, &j->numa_cpu_nodes, err,
                         errlen);
}

int options_validate_numa_cpu_nodes(const job_spec_t *j, char *err, size_t errlen)
{
        if (!set_valid(&j->numa_cpu_nodes, JOB_NODES_MAX)) {
                options_err(err, errlen, "numa_cpu_nodes: nodes out of range 0..%d",
                            JOB_NODES_MAX - 1);
                return -EINVAL;
        }
        return 0;
}

/* fio's numa_mem_policy: mode[:nodes] with default and local taking no nodes, prefer exactly one,
 * bind a list, interleave a list or, without one, all nodes. */
int options_set_numa_mem_policy(job_spec_t *j, const char *key, const char *value, char *err,
                                size_t errlen)
{
        static const char *const modes[] = {"default", "prefer", "bind", "interleave", "local",
                                            NULL};
        char vb[ECHO_BUF], mode[16];
        const char *colon = strchr(value, ':');
        size_t n = colon ? (size_t)(colon - value) : strlen(value);
        job_cpuset_t nodes = {0};
        int m = -1, r;

        if (n < sizeof(mode)) {
                memcpy(mode, value, n);
                mode[n] = '\0';
                for (int i = 0; modes[i]; i++)
                        if (streq(mode, modes[i]))
                                m = i;
        }
        if (m < 0) {
                options_err(err, errlen,
                            "%s: '%s' is not MODE[:NODES] with MODE one of default, prefer, bind, "
                            "interleave, local",
                            key, options_echo(vb, value));
                return -EINVAL;
        }
        if ((m == NUMA_MEM_DEFAULT || m == NUMA_MEM_LOCAL) && colon) {
                options_err(err, errlen, "%s: '%s' takes no node list", key, mode);
                return -EINVAL;
        }
        if ((m == NUMA_MEM_PREFER || m == NUMA_MEM_BIND) && (!colon || !colon[1])) {
                options_err(err, errlen, "%s: '%s' needs a node list (e.g. %s=%s:0)", key, mode,
                            key, mode);
                return -EINVAL;
        }
        if (colon) {
                r = parse_set(key, "NUMA nodes", colon + 1, JOB_NODES_MAX, true, &nodes, err,
                              errlen);
                if (r < 0)
                        return r;
                if (m == NUMA_MEM_PREFER && nodes.n != 1) {
                        options_err(err, errlen, "%s: 'prefer' takes exactly one node", key);
                        return -EINVAL;
                }
        } else if (m == NUMA_MEM_INTERLEAVE) {
                parse_set(key, "NUMA nodes", "all", JOB_NODES_MAX, true, &nodes, err, errlen);
        }
        j->numa_mem_mode = (numa_mem_mode_t)m;
        j->numa_mem_nodes = nodes;
        return 0;
}

int options_validate_numa_mem_policy(const job_spec_t *j, char *err, size_t errlen)
{
        numa_mem_mode_t m = j->numa_mem_mode;
        if (m < NUMA_MEM_UNSET || m > NUMA_MEM_LOCAL ||
            !set_valid(&j->numa_mem_nodes, JOB_NODES_MAX) ||
            ((m == NUMA_MEM_PREFER || m == NUMA_MEM_BIND || m == NUMA_MEM_INTERLEAVE) &&
             !j->numa_mem_nodes.n) ||
            (m == NUMA_MEM_PREFER && j->numa_mem_nodes.n != 1)) {
                options_err(err, errlen, "numa_mem_policy: mode %d with %u nodes is not valid",
                            (int)m, j->numa_mem_nodes.n);
                return -EINVAL;
        }
        return 0;
}

/* --- nice and the I/O priority --------------------------------------------------------- */

int options_set_nice(job_spec_t *j, const char *key, const char *value, char *err, size_t errlen)
{
        char vb[ECHO_BUF];
        long long v;

        if (!parse_long(value, -20, 19, &v)) {
                options_err(err, errlen, "%s: '%s' is out of range -20..19", key,
                            options_echo(vb, value));
                return -ERANGE;
        }
        j->nice = (int32_t)v;
        return 0;
}

int options_validate_nice(const job_spec_t *j, char *err, size_t errlen)
{
        if (j->nice < -20 || j->nice > 19) {
                options_err(err, errlen, "nice: %d is out of range -20..19", (int)j->nice);
                return -ERANGE;
        }
        return 0;
}

/* prio (level 0..7, 0 the highest) and prioclass (0 none, 1 realtime, 2 best-effort, 3 idle), as
 * ionice(1) and fio take them. */
int options_set_prio(job_spec_t *j, const char *key, const char *value, char *err, size_t errlen)
{
        bool cls = streq(key, "prioclass");
        char vb[ECHO_BUF];
        long long v;

        if (!parse_long(value, 0, cls ? 3 : 7, &v)) {
                options_err(err, errlen, "%s: '%s' is out of range 0..%d%s", key,
                            options_echo(vb, value), cls ? 3 : 7,
                            cls ? " (1 realtime, 2 best-effort, 3 idle)" : " (0 is the highest)");
                return -ERANGE;
        }
        *(cls ? &j->prioclass : &j->prio) = (int32_t)v;
        return 0;
}

int options_validate_prio(const job_spec_t *j, char *err, size_t errlen)
{
        if (j->prio < -1 || j->prio > 7 || j->prioclass < -1 || j->prioclass > 3) {
                options_err(err, errlen, "prio: level %d or class %d is out of range", (int)j->prio,
                            (int)j->prioclass);
                return -ERANGE;
        }
        return 0;
}

/* A scheduler's name as the kernel lists them in queue/scheduler. */
int options_check_ioscheduler(const char *key, const char *s, char *err, size_t errlen)
{
        char vb[ECHO_BUF];
        size_t n = strlen(s);

        if (n == 0 || n > 32 || strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789_-") != n) {
                options_err(err, errlen,
                            "%s: '%s' is not a scheduler name (a-z, 0-9, '_', '-'; e.g. "
                            "mq-deadline, kyber, bfq, none)",
                            key, options_echo(vb, s));
                return -EINVAL;
        }
        return 0;
}

/* --- whole-job rules ------------------------------------------------------------------- */

static bool engine_is(const job_spec_t *j, const char *name)
{
        return j->ioengine && streq(j->ioengine, name);
}

/* The engines io_submit_mode=offload may run from several threads at once: synchronous, and
 * keeping no state of their own between I/Os (sync and vsync keep each file's position). */
static bool engine_offloads(const job_spec_t *j)
{
        static const char *const engines[] = {"psync", "pvsync", "pvsync2", "mmap", NULL};
        return j->ioengine && options_str_in(j->ioengine, engines);
}

uint64_t job_spec_bs_min(const job_spec_t *j, unsigned ddir)
{
        uint64_t bs = ddir == DDIR_WRITE ? j->bs_write : j->bs;
        if (j->bssplit[ddir].n) {
                bs = UINT64_MAX;
                for (uint32_t i = 0; i < j->bssplit[ddir].n; i++)
                        if (j->bssplit[ddir].e[i].bs < bs)
                                bs = j->bssplit[ddir].e[i].bs;
        } else if (j->bs_min[ddir])
                bs = j->bs_min[ddir];
        return bs ? bs : 4096;
}

uint64_t job_spec_bs_max(const job_spec_t *j, unsigned ddir)
{
        uint64_t bs = ddir == DDIR_WRITE ? j->bs_write : j->bs;
        if (j->bssplit[ddir].n) {
                bs = 0;
                for (uint32_t i = 0; i < j->bssplit[ddir].n; i++)
                        if (j->bssplit[ddir].e[i].bs > bs)
                                bs = j->bssplit[ddir].e[i].bs;
        } else if (j->bs_max[ddir])
                bs = j->bs_max[ddir];
        return bs ? bs : 4096;
}

uint64_t job_spec_clone_shift(const job_spec_t *j, unsigned clone, uint64_t file_size)
{
        uint64_t inc = j->offset_increment;
        if (j->offset_increment_percent) {
                uint64_t a = job_spec_bs_min(j, DDIR_READ) < job_spec_bs_min(j, DDIR_WRITE)
                                 ? job_spec_bs_min(j, DDIR_READ)
                                 : job_spec_bs_min(j, DDIR_WRITE);
                inc = (uint64_t)((unsigned __int128)file_size * j->offset_increment_percent / 100);
                inc -= inc % a;
        }
        return inc * clone;
}

bool job_spec_bs_varies(const job_spec_t *j, unsigned ddir)
{
        return job_spec_bs_min(j, ddir) != job_spec_bs_max(j, ddir);
}

int options_validate_io(const job_spec_t *j, char *err, size_t errlen)
{
        char a[32], b[32];

        if (j->thinktime_spin_ns > j->thinktime_ns) {
                options_err(err, errlen,
                            "thinktime_spin: %s is longer than thinktime=%s, of which it is the "
                            "spinning part",
                            format_duration(a, sizeof(a), j->thinktime_spin_ns),
                            format_duration(b, sizeof(b), j->thinktime_ns));
                return -EINVAL;
        }
        if (!j->thinktime_ns && (j->thinktime_spin_ns || j->thinktime_blocks ||
                                 j->thinktime_iotime_ns || j->thinktime_blocks_type)) {
                options_err(err, errlen,
                            "thinktime: thinktime_spin, thinktime_blocks, thinktime_blocks_type "
                            "and thinktime_iotime only apply with a thinktime");
                return -EINVAL;
        }
        if (j->rate_process == RATE_POISSON && !j->rate[0] && !j->rate[1] && !j->rate_iops[0] &&
            !j->rate_iops[1]) {
                options_err(err, errlen,
                            "rate_process: poisson paces a rate; give rate= or rate_iops= too");
                return -EINVAL;
        }
        for (unsigned d = 0; d < 2; d++) {
                if (j->rate_min[d] && j->rate_iops_min[d]) {
                        options_err(err, errlen,
                                    "rate_min: rate_min and rate_iops_min exclude each other "
                                    "(give one)");
                        return -EINVAL;
                }
                if (j->rate[d] && j->rate_min[d] > j->rate[d]) {
                        options_err(err, errlen, "rate_min: %s %s/s is above rate=%s/s",
                                    ddir_part[d], options_format_size(a, sizeof(a), j->rate_min[d]),
                                    options_format_size(b, sizeof(b), j->rate[d]));
                        return -EINVAL;
                }
                if (j->rate_iops[d] && j->rate_iops_min[d] > j->rate_iops[d]) {
                        options_err(err, errlen, "rate_iops_min: %s %llu is above rate_iops=%llu",
                                    ddir_part[d], (unsigned long long)j->rate_iops_min[d],
                                    (unsigned long long)j->rate_iops[d]);
                        return -EINVAL;
                }
        }
        if (j->io_submit_mode == SUBMIT_OFFLOAD && !engine_offloads(j)) {
                options_err(err, errlen,
                            "io_submit_mode: offload hands I/Os to threads running a synchronous "
                            "engine that keeps no file position (psync, pvsync, pvsync2, mmap), "
                            "not ioengine=%s",
                            j->ioengine ? j->ioengine : "?");
                return -EINVAL;
        }
        if (j->latency_window_ns && !j->latency_target_ns) {
                options_err(err, errlen, "latency_window: only applies with a latency_target");
                return -EINVAL;
        }
        if (j->hipri && !engine_is(j, "pvsync2") && !engine_is(j, "io_uring")) {
                options_err(err, errlen,
                            "hipri: only ioengine=pvsync2 (RWF_HIPRI) and io_uring (polled "
                            "completions) use it");
                return -EINVAL;
        }
        if (j->hipri && engine_is(j, "io_uring") && !j->direct) {
                options_err(err, errlen,
                            "hipri: io_uring polls only direct I/O; give direct=1 as well");
                return -EINVAL;
        }
        if (j->size_percent && j->filesize) {
                options_err(err, errlen,
                            "size: a percentage of the files (size=%u%%) and filesize= exclude "
                            "each other",
                            (unsigned)j->size_percent);
                return -EINVAL;
        }
        if (j->offset_increment_percent > 100) {
                options_err(err, errlen, "offset_increment: %u%% is out of range 1..100",
                            (unsigned)j->offset_increment_percent);
                return -ERANGE;
        }
        if (j->size_percent > 100) {
                options_err(err, errlen, "size: %u%% is out of range 1..100",
                            (unsigned)j->size_percent);
                return -ERANGE;
        }
        if (j->numa_cpu_nodes.n && j->cpus_allowed.n) {
                options_err(err, errlen,
                            "numa_cpu_nodes: both it and cpus_allowed pin the job's CPUs; give one");
                return -EINVAL;
        }
        if (j->cpus_allowed_policy == CPUS_SPLIT && !j->cpus_allowed.n) {
                options_err(err, errlen,
                            "cpus_allowed_policy: split shares out a cpus_allowed= set; give one");
                return -EINVAL;
        }
        if (engine_is(j, "ftruncate") && rw_mode_has_read(j->rw)) {
                options_err(err, errlen,
                            "ioengine: ftruncate only writes (each write sets the file's size); "
                            "rw=%s reads",
                            rw_mode_to_string(j->rw));
                return -EINVAL;
        }
        if (j->readonly && (engine_is(j, "falloc") || engine_is(j, "filecreate") ||
                            engine_is(j, "filedelete") || engine_is(j, "dircreate") ||
                            engine_is(j, "dirdelete"))) {
                options_err(err, errlen, "readonly: ioengine=%s changes the files", j->ioengine);
                return -EINVAL;
        }
        if (j->ioscheduler && engine_is(j, "null")) {
                options_err(err, errlen, "ioscheduler: ioengine=null uses no device");
                return -EINVAL;
        }
        if (j->direct && !engine_is(j, "null")) {
                for (unsigned d = 0; d < 2; d++) {
                        if (j->bs_unaligned && (j->bssplit[d].n || j->bs_min[d])) {
                                options_err(err, errlen,
                                            "bs_unaligned: direct=1 needs block sizes that are "
                                            "multiples of %d",
                                            JOB_DIRECT_ALIGN);
                                return -EINVAL;
                        }
                        for (uint32_t i = 0; i < j->bssplit[d].n; i++)
                                if (j->bssplit[d].e[i].bs % JOB_DIRECT_ALIGN) {
                                        options_err(err, errlen,
                                                    "bssplit: %s is not a multiple of %d, which "
                                                    "direct=1 needs",
                                                    options_format_size(a, sizeof(a),
                                                                        j->bssplit[d].e[i].bs),
                                                    JOB_DIRECT_ALIGN);
                                        return -EINVAL;
                                }
                        if ((j->bs_min[d] % JOB_DIRECT_ALIGN) ||
                            (j->blockalign[d] % JOB_DIRECT_ALIGN)) {
                                options_err(err, errlen,
                                            "%s: %s is not a multiple of %d, which direct=1 needs",
                                            j->bs_min[d] % JOB_DIRECT_ALIGN ? "bsrange" : "ba",
                                            options_format_size(
                                                a, sizeof(a),
                                                j->bs_min[d] % JOB_DIRECT_ALIGN ? j->bs_min[d]
                                                                                : j->blockalign[d]),
                                            JOB_DIRECT_ALIGN);
                                return -EINVAL;
                        }
                        if (j->rw_seq_add % JOB_DIRECT_ALIGN) {
                                options_err(err, errlen,
                                            "rw: the skip %lld is not a multiple of %d, which "
                                            "direct=1 needs",
                                            (long long)j->rw_seq_add, JOB_DIRECT_ALIGN);
                                return -EINVAL;
                        }
                }
        }
        return 0;
}
