/* Unit tests for fio's log files on the agent: common/fiolog.c (names, fio 3.33's line formats and
 * histogram bins), agent/fiolog-writer.c (per-I/O lines, averaging windows, log_max_value,
 * log_offset, histogram lines, the size limit) driven by a fake clock, and agent/log-ship.c
 * (whole lines, a torn tail, eof and why a log was cut, what went surviving a restart). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fileio.h"
#include "fiolog-writer.h"
#include "fiolog.h"
#include "log-ship.h"
#include "unit-job.h"
#include "unit.h"
#include "util.h"
#include "wire.h"

#define MS ((int64_t)NSEC_PER_MSEC)
#define EPOCH ((int64_t)1000 * (int64_t)NSEC_PER_SEC)

static char dir[64], logs[128];
static int dirfd_ = -1;

static int setup(void **state)
{
        (void)state;
        if (unit_scratch_make(dir, sizeof(dir), "test-fiolog") < 0)
                return -1;
        snprintf(logs, sizeof(logs), "%s/" LOGSHIP_DIR, dir);
        mkdir(logs, 0700);
        dirfd_ = open(logs, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        return dirfd_ < 0 ? -1 : 0;
}

static int teardown(void **state)
{
        (void)state;
        close(dirfd_);
        unit_scratch_remove(dir);
        return 0;
}

/* A job from key, value pairs ending with NULL, checked whole. */
static void job(job_spec_t *j, const char *name, ...)
{
        char err[256] = "";
        va_list ap;
        va_start(ap, name);
        job_named_v(j, name, ap);
        va_end(ap);
        if (job_spec_validate(j, err, sizeof(err)) < 0)
                fail_msg("%s", err);
}

/* The text of stream (job 0, clone 0, kind) in the log directory ("" when empty). */
static char *stream(unsigned kind)
{
        char name[64], path[256];
        char *text = NULL;
        size_t len = 0;
        logship_stream_name(name, sizeof(name), 0, 0, kind, "");
        snprintf(path, sizeof(path), "%s/%s", logs, name);
        if (read_full_file(path, 0, 1 << 24, &text, &len) < 0)
                fail_msg("%s cannot be read", path);
        return text;
}

static fiolog_writer_t *writer(const job_spec_t *j, uint64_t *shared, uint64_t max)
{
        fiolog_writer_params_t p = {.job = j,
                                    .dirfd = dirfd_,
                                    .shared_bytes = shared,
                                    .max_bytes = max};
        fiolog_writer_t *w = NULL;
        assert_int_equal(fiolog_writer_new(&p, &w), 0);
        assert_non_null(w);
        fiolog_writer_start(w, EPOCH);
        return w;
}

static int count_lines(const char *s)
{
        int n = 0;
        for (; *s; s++)
                n += *s == '\n';
        return n;
}

/* --- common/fiolog.c ------------------------------------------------------------------------ */

static void test_names(void **state)
{
        job_spec_t j;
        char buf[300];
        (void)state;
        job(&j, "seq", "write_bw_log", "", "write_lat_log", "/tmp/run/lat", "size", "1m", NULL);
        assert_int_equal(fiolog_kinds(&j), (1u << FIOLOG_BW) | (1u << FIOLOG_CLAT) |
                                               (1u << FIOLOG_SLAT) | (1u << FIOLOG_LAT));
        /* no value: the job's name; a path: its last component, the file going to the run
         * directory */
        assert_int_equal(fiolog_file_name(buf, sizeof(buf), &j, FIOLOG_BW, 3, "a1"), 0);
        assert_string_equal(buf, "seq_bw.3.log.a1");
        assert_int_equal(fiolog_file_name(buf, sizeof(buf), &j, FIOLOG_SLAT, 1, NULL), 0);
        assert_string_equal(buf, "lat_slat.1.log");
        /* per_job_logs=0: no thread number */
        assert_int_equal(fiolog_file_name(buf, sizeof(buf), &j, FIOLOG_CLAT, 0, "a1"), 0);
        assert_string_equal(buf, "lat_clat.log.a1");
        assert_string_equal(fiolog_kind_name(FIOLOG_HIST), "clat_hist");
        assert_null(fiolog_kind_name(FIOLOG_KINDS));
        job_spec_done(&j);

        /* a name longer than a file name can be */
        {
                char agent[250];
                memset(agent, 'a', sizeof(agent) - 1);
                agent[sizeof(agent) - 1] = 0;
                job(&j, "seq", "write_iops_log", "", "size", "1m", NULL);
                assert_int_equal(fiolog_file_name(buf, sizeof(buf), &j, FIOLOG_IOPS, 1, agent),
                                 -ENAMETOOLONG);
                job_spec_done(&j);
        }
}

static void test_prefix_refused(void **state)
{
        static const char *const bad[] = {"/tmp/", "logs/..", ".", "a\nb", NULL};
        job_spec_t j;
        char err[256];
        (void)state;
        for (size_t i = 0; bad[i]; i++) {
                assert_int_equal(job_spec_init(&j, "x"), 0);
                err[0] = 0;
                assert_int_equal(job_option_set(&j, "write_bw_log", bad[i], err, sizeof(err)),
                                 -EINVAL);
                assert_contains(err, "write_bw_log");
                job_spec_done(&j);
        }
        /* a log of the metadata workload, which has no I/O of its own */
        assert_int_equal(job_spec_init(&j, "md"), 0);
        assert_int_equal(job_option_set(&j, "ioengine", "metadata", err, sizeof(err)), 0);
        assert_int_equal(job_option_set(&j, "write_iops_log", "", err, sizeof(err)), 0);
        assert_int_equal(job_option_set(&j, "size", "1m", err, sizeof(err)), 0);
        assert_int_equal(job_spec_validate(&j, err, sizeof(err)), -EINVAL);
        assert_contains(err, "write_iops_log");
        job_spec_done(&j);
}

static void test_avg_windows(void **state)
{
        job_spec_t j;
        (void)state;
        /* fio 3.33's setup_log(): log_avg_msec, or the smaller of it and bwavgtime when that was
         * given (a bwavgtime left at its default does not shorten the window) */
        job(&j, "a", "write_bw_log", "", "log_avg_msec", "1000", "size", "1m", NULL);
        assert_int_equal(fiolog_avg_ms(&j, FIOLOG_BW), 1000);
        assert_int_equal(fiolog_avg_ms(&j, FIOLOG_CLAT), 1000);
        job_spec_done(&j);
        job(&j, "a", "write_bw_log", "", "log_avg_msec", "1000", "bwavgtime", "250", "size", "1m",
            NULL);
        assert_int_equal(fiolog_avg_ms(&j, FIOLOG_BW), 250);
        assert_int_equal(fiolog_avg_ms(&j, FIOLOG_IOPS), 1000);
        job_spec_done(&j);
        job(&j, "a", "write_bw_log", "", "iopsavgtime", "100", "size", "1m", NULL);
        assert_int_equal(fiolog_avg_ms(&j, FIOLOG_IOPS), 0); /* min(0, 100): per I/O */
        job_spec_done(&j);
}

static void test_hist_bins(void **state)
{
        (void)state;
        /* fio's plat_val_to_idx(): exact below 128 ns, then 64 bins per power of two */
        for (uint64_t v = 0; v < 128; v++)
                assert_int_equal(fiolog_hist_bin(v), v);
        assert_int_equal(fiolog_hist_bin(128), 128);
        assert_int_equal(fiolog_hist_bin(129), 128);
        assert_int_equal(fiolog_hist_bin(130), 129);
        assert_int_equal(fiolog_hist_bin(255), 191);
        assert_int_equal(fiolog_hist_bin(256), 192);
        assert_int_equal(fiolog_hist_bin(1000), 317); /* msb 9: (4 << 6) + (1000 >> 3 & 63) */
        assert_int_equal(fiolog_hist_bin(UINT64_MAX), FIOLOG_HIST_BINS - 1);
        /* every bin reached in order as values grow */
        for (uint64_t v = 1, last = 0; v < (UINT64_C(1) << 34); v += v / 64 + 1) {
                unsigned b = fiolog_hist_bin(v);
                assert_true(b >= last);
                last = b;
        }
}

static void test_formats(void **state)
{
        char buf[FIOLOG_HIST_LINE_MAX];
        uint64_t bins[FIOLOG_HIST_BINS] = {0};
        size_t n;
        (void)state;
        n = fiolog_format_line(buf, 500, 20480, 1, 4096, false, 0);
        assert_int_equal(n, strlen("500, 20480, 1, 4096, 0\n"));
        assert_memory_equal(buf, "500, 20480, 1, 4096, 0\n", n);
        n = fiolog_format_line(buf, 0, 1, 0, 4096, true, 6209536);
        assert_memory_equal(buf, "0, 1, 0, 4096, 6209536, 0\n", n);
        n = fiolog_format_line(buf, UINT64_MAX, UINT64_MAX, 1, UINT64_MAX, true, UINT64_MAX);
        assert_true(n < FIOLOG_LINE_MAX);

        bins[0] = 1;
        bins[317] = 2;
        bins[FIOLOG_HIST_BINS - 1] = 3;
        n = fiolog_format_hist(buf, 110, 0, 4096, bins, 0);
        buf[n] = 0;
        assert_int_equal(strncmp(buf, "110, 0, 4096, 1, 0, ", 20), 0);
        {
                /* fio's line: time, direction, block size, then every bin */
                int fields = 1;
                for (char *p = buf; *p; p++)
                        fields += *p == ',';
                assert_int_equal(fields, 3 + FIOLOG_HIST_BINS);
                assert_string_equal(buf + n - 4, ", 3\n");
        }
        /* log_hist_coarseness=6: 29 bins, each the sum of 64 */
        n = fiolog_format_hist(buf, 110, 1, 4096, bins, 6);
        buf[n] = 0;
        {
                int fields = 1;
                for (char *p = buf; *p; p++)
                        fields += *p == ',';
                assert_int_equal(fields, 3 + 29);
        }
        assert_int_equal(strncmp(buf, "110, 1, 4096, 1, 0, 0, 0, 2, ", 29), 0);
        assert_true(fiolog_text_ok((const uint8_t *)buf, n));
        assert_false(fiolog_text_ok((const uint8_t *)"1, 2/..", 7));
        assert_false(fiolog_text_ok((const uint8_t *)"1\0", 2));
}

/* --- agent/fiolog-writer.c -------------------------------------------------------------------- */

static void test_per_io(void **state)
{
        job_spec_t j;
        fiolog_writer_t *w;
        char *bw, *iops, *clat, *slat, *lat;
        (void)state;
        job(&j, "j", "write_bw_log", "", "write_iops_log", "", "write_lat_log", "", "log_offset",
            "1", "size", "1m", NULL);
        w = writer(&j, NULL, 0);
        /* an I/O of 4 KiB at offset 8192 completing 2.5 ms after time zero, 20 us clat */
        fiolog_writer_slat(w, 0, 4096, 8192, 3000, EPOCH + 2480 * (MS / 1000));
        fiolog_writer_io(w, 0, 4096, 8192, 20000, 23000, EPOCH + 2 * MS + MS / 2);
        fiolog_writer_io(w, 1, 4096, 0, 0, 0, EPOCH + 3 * MS);
        fiolog_writer_close(&w, EPOCH + 4 * MS);
        bw = stream(FIOLOG_BW);
        iops = stream(FIOLOG_IOPS);
        clat = stream(FIOLOG_CLAT);
        slat = stream(FIOLOG_SLAT);
        lat = stream(FIOLOG_LAT);
        /* bw per I/O is fio's bytes * 10^6 / clat ns (0 when the clat is 0) */
        assert_string_equal(bw, "2, 204800, 0, 4096, 8192, 0\n3, 0, 1, 4096, 0, 0\n");
        assert_string_equal(iops, "2, 1, 0, 4096, 8192, 0\n3, 1, 1, 4096, 0, 0\n");
        assert_string_equal(clat, "2, 20000, 0, 4096, 8192, 0\n3, 0, 1, 4096, 0, 0\n");
        assert_string_equal(slat, "2, 3000, 0, 4096, 8192, 0\n");
        /* a total latency of 0 is one not measured */
        assert_string_equal(lat, "2, 23000, 0, 4096, 8192, 0\n");
        free(bw);
        free(iops);
        free(clat);
        free(slat);
        free(lat);
        job_spec_done(&j);
}

static void test_rate_windows(void **state)
{
        job_spec_t j;
        fiolog_writer_t *w;
        char *bw, *iops;
        (void)state;
        job(&j, "j", "write_bw_log", "", "write_iops_log", "", "log_avg_msec", "500", "size", "1m",
            NULL);
        w = writer(&j, NULL, 0);
        /* two reads and a write in [0, 500), nothing in [500, 1000), one read in [1000, 1500),
         * one write in [1500, 2000) the end reaches within fio's 1 ms slack */
        fiolog_writer_io(w, 0, 4096, 0, 1000, 1000, EPOCH + 100 * MS);
        fiolog_writer_io(w, 0, 4096, 0, 1000, 1000, EPOCH + 300 * MS);
        fiolog_writer_io(w, 1, 8192, 0, 1000, 1000, EPOCH + 400 * MS);
        fiolog_writer_io(w, 0, 4096, 0, 1000, 1000, EPOCH + 1200 * MS);
        fiolog_writer_io(w, 1, 4096, 0, 1000, 1000, EPOCH + 1700 * MS);
        fiolog_writer_close(&w, EPOCH + 1999 * MS);
        bw = stream(FIOLOG_BW);
        iops = stream(FIOLOG_IOPS);
        /* KiB/s and IO/s over the window, at its end, a line per direction that did something;
         * block size and offset 0 */
        assert_string_equal(bw, "500, 16, 0, 0, 0\n"
                                "500, 16, 1, 0, 0\n"
                                "1500, 8, 0, 0, 0\n"
                                "2000, 8, 1, 0, 0\n");
        assert_string_equal(iops, "500, 4, 0, 0, 0\n"
                                  "500, 2, 1, 0, 0\n"
                                  "1500, 2, 0, 0, 0\n"
                                  "2000, 2, 1, 0, 0\n");
        free(bw);
        free(iops);
        /* a worker that woke late ends a little before its last window: the window still
         * counts, over the time it covered (8 KiB in 480 ms) */
        w = writer(&j, NULL, 0);
        fiolog_writer_io(w, 0, 8192, 0, 1000, 1000, EPOCH + 1700 * MS);
        fiolog_writer_close(&w, EPOCH + 1980 * MS);
        bw = stream(FIOLOG_BW);
        assert_string_equal(bw, "2000, 16, 0, 0, 0\n");
        free(bw);
        /* a last window the end does not reach is left out, as fio's helper never samples it */
        w = writer(&j, NULL, 0);
        fiolog_writer_io(w, 0, 4096, 0, 1000, 1000, EPOCH + 100 * MS);
        fiolog_writer_close(&w, EPOCH + 400 * MS);
        bw = stream(FIOLOG_BW);
        assert_string_equal(bw, "");
        free(bw);
        job_spec_done(&j);
}

static void test_lat_windows(void **state)
{
        job_spec_t j;
        fiolog_writer_t *w;
        char *clat;
        (void)state;
        job(&j, "j", "write_lat_log", "", "log_avg_msec", "500", "size", "1m", NULL);
        w = writer(&j, NULL, 0);
        /* fio's add_log_sample(): the window ends at the first sample a whole window after it
         * began, that sample in it, the line at its time; the rounded mean */
        fiolog_writer_io(w, 0, 4096, 0, 1000, 0, EPOCH + 100 * MS);
        fiolog_writer_io(w, 0, 4096, 0, 3000, 0, EPOCH + 400 * MS);
        fiolog_writer_io(w, 0, 4096, 0, 5001, 0, EPOCH + 502 * MS);
        fiolog_writer_io(w, 0, 4096, 0, 2000, 0, EPOCH + 700 * MS);
        fiolog_writer_io(w, 1, 4096, 0, 7000, 0, EPOCH + 800 * MS);
        /* the writes' window began at 0 (fio's avg_last): their first sample ends it; the end
         * writes the windows still holding samples */
        fiolog_writer_close(&w, EPOCH + 900 * MS);
        clat = stream(FIOLOG_CLAT);
        assert_string_equal(clat, "502, 3000, 0, 0, 0\n"
                                  "800, 7000, 1, 0, 0\n"
                                  "900, 2000, 0, 0, 0\n");
        free(clat);
        job_spec_done(&j);

        /* log_max_value: the window's largest */
        job(&j, "j", "write_lat_log", "", "log_avg_msec", "500", "log_max_value", "1", "size",
            "1m", NULL);
        w = writer(&j, NULL, 0);
        fiolog_writer_io(w, 0, 4096, 0, 1000, 0, EPOCH + 100 * MS);
        fiolog_writer_io(w, 0, 4096, 0, 9000, 0, EPOCH + 200 * MS);
        fiolog_writer_io(w, 0, 4096, 0, 3000, 0, EPOCH + 600 * MS);
        fiolog_writer_close(&w, EPOCH + 700 * MS);
        clat = stream(FIOLOG_CLAT);
        assert_string_equal(clat, "600, 9000, 0, 0, 0\n");
        free(clat);
        job_spec_done(&j);

        /* disable_clat: nothing in the clat log, which still exists (fio leaves it empty) */
        job(&j, "j", "write_lat_log", "", "disable_clat", "1", "size", "1m", NULL);
        w = writer(&j, NULL, 0);
        fiolog_writer_io(w, 0, 4096, 0, 1000, 2000, EPOCH + 100 * MS);
        fiolog_writer_close(&w, EPOCH + 700 * MS);
        clat = stream(FIOLOG_CLAT);
        assert_string_equal(clat, "");
        free(clat);
        clat = stream(FIOLOG_LAT);
        assert_string_equal(clat, "100, 2000, 0, 4096, 0\n");
        free(clat);
        job_spec_done(&j);
}

/* The bins of histogram line l of text (0: first), summed, and its first three fields. */
static uint64_t hist_line(const char *text, int l, uint64_t head[3], int *fields)
{
        const char *p = text;
        uint64_t sum = 0;
        int f = 0;
        for (; l > 0; l--)
                p = strchr(p, '\n') + 1;
        while (*p && *p != '\n') {
                uint64_t v = strtoull(p, (char **)&p, 10);
                if (f < 3)
                        head[f] = v;
                else
                        sum += v;
                f++;
                if (*p == ',')
                        p += 2;
        }
        *fields = f;
        return sum;
}

static void test_hist(void **state)
{
        job_spec_t j;
        fiolog_writer_t *w;
        uint64_t head[3];
        int fields;
        char *h;
        (void)state;
        job(&j, "j", "write_hist_log", "", "log_hist_msec", "100", "size", "1m", NULL);
        w = writer(&j, NULL, 0);
        /* fio's hist_last starts at the first completion; a line at the first one a whole
         * window later, holding that window's completions (not the run's so far) */
        fiolog_writer_io(w, 0, 4096, 0, 1000, 0, EPOCH + 10 * MS);
        fiolog_writer_io(w, 0, 4096, 0, 1000, 0, EPOCH + 50 * MS);
        fiolog_writer_io(w, 0, 4096, 0, 3000, 0, EPOCH + 110 * MS);
        fiolog_writer_io(w, 1, 8192, 0, 100, 0, EPOCH + 150 * MS);
        fiolog_writer_io(w, 0, 4096, 0, 1000, 0, EPOCH + 160 * MS);
        fiolog_writer_io(w, 0, 4096, 0, 1000, 0, EPOCH + 215 * MS);
        fiolog_writer_io(w, 1, 8192, 0, 100, 0, EPOCH + 260 * MS);
        fiolog_writer_close(&w, EPOCH + 300 * MS);
        h = stream(FIOLOG_HIST);
        assert_int_equal(count_lines(h), 3);
        assert_int_equal(hist_line(h, 0, head, &fields), 3);
        assert_int_equal(fields, 3 + FIOLOG_HIST_BINS);
        assert_int_equal(head[0], 110);
        assert_int_equal(head[1], 0);
        assert_int_equal(head[2], 4096);
        /* hist_last moved on by a window (110): the next read line at 215 holds 2 */
        assert_int_equal(hist_line(h, 1, head, &fields), 2);
        assert_int_equal(head[0], 215);
        assert_int_equal(hist_line(h, 2, head, &fields), 2);
        assert_int_equal(head[0], 260);
        assert_int_equal(head[1], 1);
        assert_int_equal(head[2], 8192);
        /* bin 317 holds the 1000 ns samples: field 3 + 317 of the first line */
        {
                const char *p = h;
                for (int f = 0; f < 3 + 317; f++)
                        p = strchr(p, ',') + 2;
                assert_int_equal(strtoull(p, NULL, 10), 2);
        }
        free(h);
        job_spec_done(&j);

        /* write_hist_log without log_hist_msec: an empty file, as fio's */
        job(&j, "j", "write_hist_log", "", "log_hist_coarseness", "3", "size", "1m", NULL);
        w = writer(&j, NULL, 0);
        fiolog_writer_io(w, 0, 4096, 0, 1000, 0, EPOCH + 10 * MS);
        fiolog_writer_close(&w, EPOCH + 3000 * MS);
        h = stream(FIOLOG_HIST);
        assert_string_equal(h, "");
        free(h);
        job_spec_done(&j);
}

static void test_limit(void **state)
{
        job_spec_t j;
        fiolog_writer_t *w;
        uint64_t shared = 0;
        char *iops, *why = NULL, path[256];
        size_t len;
        (void)state;
        job(&j, "j", "write_iops_log", "", "size", "1m", NULL);
        /* 64 KiB for the agent's logs together: a flush that would pass it cuts the log */
        w = writer(&j, &shared, 64 << 10);
        for (int i = 0; i < 5000; i++)
                fiolog_writer_io(w, 0, 4096, 0, 1000, 1000, EPOCH + i * MS);
        fiolog_writer_close(&w, EPOCH + 6000 * MS);
        iops = stream(FIOLOG_IOPS);
        assert_true(strlen(iops) <= 64 << 10);
        assert_true(strlen(iops) > 0);
        assert_int_equal(shared, strlen(iops));
        /* whole lines only, and the reason for the shipper */
        assert_int_equal(iops[strlen(iops) - 1], '\n');
        snprintf(path, sizeof(path), "%s/0.0.%u.cut", logs, FIOLOG_IOPS);
        assert_int_equal(read_full_file(path, 0, 4096, &why, &len), 0);
        assert_contains(why, "fio_logs_max_mib");
        unlink(path);
        free(why);
        free(iops);
        job_spec_done(&j);
}

/* --- agent/log-ship.c ----------------------------------------------------------------------- */

typedef struct chunk {
        uint32_t job, clone, kind;
        uint64_t offset;
        char data[LOGSHIP_CHUNK + 1];
        bool eof;
        char cut[256];
} chunk_t;

/* The next chunk of the shipper, decoded as the coordinator would (wire checks included): 1, or 0
 * when nothing waits. */
static int next(logship_t *l, uint64_t seq, bool final, chunk_t *c)
{
        uint8_t *buf = NULL;
        size_t len = 0;
        envelope_t *e = NULL;
        char err[256];
        int r = logship_next(l, "run-1", seq, final, NULL, &buf, &len);
        assert_true(r >= 0);
        if (r == 0)
                return 0;
        if (wire_decode(buf, len, WIRE_MAX_AGENT_MSG, &e, err, sizeof(err)) < 0)
                fail_msg("a LogChunk the coordinator refuses: %s", err);
        free(buf);
        assert_int_equal(e->body_case, IOFLEET__ENVELOPE__BODY_LOG_CHUNK);
        assert_int_equal(e->log_chunk->run_seq, seq);
        c->job = e->log_chunk->job;
        c->clone = e->log_chunk->clone;
        c->kind = e->log_chunk->kind;
        c->offset = e->log_chunk->offset;
        if (e->log_chunk->data.len)
                memcpy(c->data, e->log_chunk->data.data, e->log_chunk->data.len);
        c->data[e->log_chunk->data.len] = 0;
        c->eof = e->log_chunk->eof;
        snprintf(c->cut, sizeof(c->cut), "%s", e->log_chunk->cut);
        wire_free(&e);
        return 1;
}

static void put(const char *name, const char *text)
{
        char path[256];
        int fd;
        snprintf(path, sizeof(path), "%s/%s", logs, name);
        fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
        assert_true(fd >= 0);
        assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
        close(fd);
}

static void test_ship(void **state)
{
        logship_t *l = NULL;
        chunk_t c;
        (void)state;
        logship_remove(dir);
        mkdir(logs, 0700);
        close(dirfd_);
        dirfd_ = open(logs, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        put("0.0.0", "500, 16, 0, 0, 0\n1000, 1");  /* a line being written */
        put("0.1.2", "");                            /* a log nothing went into */
        put("0.0.0.cut", "ignored: not a stream");
        assert_int_equal(logship_open(dir, &l), 0);
        assert_int_equal(logship_backlog(l), strlen("500, 16, 0, 0, 0\n1000, 1"));
        /* while the workers run: whole lines only */
        assert_int_equal(next(l, 1, false, &c), 1);
        assert_int_equal(c.kind, 0);
        assert_int_equal(c.offset, 0);
        assert_string_equal(c.data, "500, 16, 0, 0, 0\n");
        assert_false(c.eof);
        assert_int_equal(next(l, 2, false, &c), 0);
        put("0.0.0", "0, 0, 0, 0\n");
        assert_int_equal(next(l, 2, false, &c), 1);
        assert_int_equal(c.offset, strlen("500, 16, 0, 0, 0\n"));
        assert_string_equal(c.data, "1000, 10, 0, 0, 0\n");
        /* an agent restart: what went is found again (never less than what went) */
        logship_close(&l);
        assert_int_equal(logship_open(dir, &l), 0);
        assert_int_equal(next(l, 3, false, &c), 0);
        /* the end: every stream closes with eof, a torn last line stays behind, the cut's
         * reason goes with it */
        put("0.0.0", "1500, 3");
        for (uint64_t seq = 3; seq <= 4; seq++) {
                assert_int_equal(next(l, seq, true, &c), 1);
                assert_true(c.eof);
                assert_string_equal(c.data, "");
                if (c.clone == 0)
                        assert_string_equal(c.cut, "ignored: not a stream");
                else {
                        assert_int_equal(c.kind, 2);
                        assert_string_equal(c.cut, "");
                }
        }
        assert_int_equal(next(l, 5, true, &c), 0);
        logship_close(&l);
        /* once delivered, the directory goes */
        logship_remove(dir);
        assert_int_equal(access(logs, F_OK), -1);
        mkdir(logs, 0700);
        close(dirfd_);
        dirfd_ = open(logs, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
}

static void test_ship_big(void **state)
{
        logship_t *l = NULL;
        chunk_t c;
        uint64_t off = 0;
        char line[64];
        int chunks = 0;
        (void)state;
        /* 3.2 chunks of lines: chunks of at most LOGSHIP_CHUNK, each ending a line, contiguous */
        for (int i = 0; off < LOGSHIP_CHUNK * 16 / 5; i++) {
                snprintf(line, sizeof(line), "%d, %d, 0, 4096, 0\n", i, i * 7);
                put("1.0.1", line);
                off += strlen(line);
        }
        assert_int_equal(logship_open(dir, &l), 0);
        for (uint64_t at = 0, seq = 1; next(l, seq, true, &c); seq++, chunks++) {
                size_t n = strlen(c.data);
                assert_int_equal(c.offset, at);
                assert_true(n <= LOGSHIP_CHUNK);
                assert_true(n == 0 || c.data[n - 1] == '\n');
                at += n;
                if (c.eof)
                        assert_int_equal(at, off);
        }
        assert_true(chunks >= 4);
        logship_close(&l);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_names),        cmocka_unit_test(test_prefix_refused),
            cmocka_unit_test(test_avg_windows),  cmocka_unit_test(test_hist_bins),
            cmocka_unit_test(test_formats),      cmocka_unit_test(test_per_io),
            cmocka_unit_test(test_rate_windows), cmocka_unit_test(test_lat_windows),
            cmocka_unit_test(test_hist),         cmocka_unit_test(test_limit),
            cmocka_unit_test(test_ship),         cmocka_unit_test(test_ship_big),
        };
        return cmocka_run_group_tests(tests, setup, teardown);
}
