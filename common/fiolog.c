/* fio's log files: kinds, file names as fio (and its client mode) makes them, line formats. */
#include "fiolog.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "util.h"

static const char *const kind_names[FIOLOG_KINDS] = {
    [FIOLOG_BW] = "bw",     [FIOLOG_IOPS] = "iops", [FIOLOG_CLAT] = "clat",
    [FIOLOG_SLAT] = "slat", [FIOLOG_LAT] = "lat",   [FIOLOG_HIST] = "clat_hist",
};

const char *fiolog_kind_name(fiolog_kind_t k)
{
        return (unsigned)k < FIOLOG_KINDS ? kind_names[k] : NULL;
}

static const char *value_of(const job_spec_t *j, fiolog_kind_t k)
{
        switch (k) {
        case FIOLOG_BW:
                return j->bw_log;
        case FIOLOG_IOPS:
                return j->iops_log;
        case FIOLOG_CLAT:
        case FIOLOG_SLAT:
        case FIOLOG_LAT:
                return j->lat_log;
        case FIOLOG_HIST:
                return j->hist_log;
        case FIOLOG_KINDS:
                break;
        }
        return NULL;
}

unsigned fiolog_kinds(const job_spec_t *j)
{
        unsigned m = 0;
        for (unsigned k = 0; k < FIOLOG_KINDS; k++)
                if (value_of(j, (fiolog_kind_t)k))
                        m |= 1u << k;
        return m;
}

const char *fiolog_prefix(const job_spec_t *j, fiolog_kind_t k)
{
        const char *v = value_of(j, k), *slash;
        if (strempty(v))
                return j->name ? j->name : "";
        slash = strrchr(v, '/');
        return slash ? slash + 1 : v;
}

const char *fiolog_check_prefix(const char *value)
{
        const char *slash, *base;
        if (strempty(value))
                return NULL; /* the job's name */
        for (const char *p = value; *p; p++)
                if ((unsigned char)*p < 0x20 || *p == 0x7f)
                        return "holds a control character";
        if (strlen(value) > 200)
                return "is longer than 200 bytes";
        slash = strrchr(value, '/');
        base = slash ? slash + 1 : value;
        if (!*base || streq(base, ".") || streq(base, ".."))
                return "names no file: its last component is the log's prefix (the log goes to "
                       "the run directory)";
        return NULL;
}

int fiolog_file_name(char *buf, size_t n, const job_spec_t *j, fiolog_kind_t k,
                     unsigned thread_number, const char *agent)
{
        char num[16] = "";
        int len;
        if (thread_number)
                snprintf(num, sizeof(num), ".%u", thread_number);
        len = snprintf(buf, n, "%s_%s%s.log%s%s", fiolog_prefix(j, k), fiolog_kind_name(k), num,
                       agent ? "." : "", agent ? agent : "");
        if (len < 0 || (size_t)len >= n || len > NAME_MAX)
                return -ENAMETOOLONG;
        return 0;
}

uint64_t fiolog_avg_ms(const job_spec_t *j, fiolog_kind_t k)
{
        uint64_t avg = j->log_avg_ns;
        if (k == FIOLOG_BW && j->bw_avg_given && j->bwavgtime_ns < avg)
                avg = j->bwavgtime_ns;
        if (k == FIOLOG_IOPS && j->iops_avg_given && j->iopsavgtime_ns < avg)
                avg = j->iopsavgtime_ns;
        return avg / NSEC_PER_MSEC;
}

/* Decimal digits of v at p; returns the end. Per-I/O logs write millions of these. */
static char *put_u64(char *p, uint64_t v)
{
        return p + put_decimal(p, v, 1);
}

static char *put_sep(char *p)
{
        *p++ = ',';
        *p++ = ' ';
        return p;
}

size_t fiolog_format_line(char *buf, uint64_t time_ms, uint64_t value, unsigned ddir, uint64_t bs,
                          bool with_offset, uint64_t offset)
{
        char *p = buf;
        p = put_sep(put_u64(p, time_ms));
        p = put_sep(put_u64(p, value));
        p = put_sep(put_u64(p, ddir));
        p = put_sep(put_u64(p, bs));
        if (with_offset)
                p = put_sep(put_u64(p, offset));
        *p++ = '0'; /* fio's command priority: iofleet issues every I/O at the job's own */
        *p++ = '\n';
        return (size_t)(p - buf);
}

size_t fiolog_format_hist(char *buf, uint64_t time_ms, unsigned ddir, uint64_t bs,
                          const uint64_t *bins, unsigned coarseness)
{
        unsigned stride = 1u << coarseness;
        char *p = buf;
        p = put_sep(put_u64(p, time_ms));
        p = put_sep(put_u64(p, ddir));
        p = put_u64(p, bs);
        for (unsigned i = 0; i < FIOLOG_HIST_BINS; i += stride) {
                uint64_t sum = 0;
                for (unsigned k = 0; k < stride; k++)
                        sum += bins[i + k];
                p = put_u64(put_sep(p), sum);
        }
        *p++ = '\n';
        return (size_t)(p - buf);
}

bool fiolog_text_ok(const uint8_t *data, size_t len)
{
        for (size_t i = 0; i < len; i++) {
                uint8_t c = data[i];
                if (!((c >= '0' && c <= '9') || c == ',' || c == ' ' || c == '\n'))
                        return false;
        }
        return true;
}
