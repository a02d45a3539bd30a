/* libFuzzer target for iofleet report: the bytes as a result document, and as sweep.json over a
 * scratch run directory whose point p1 holds the same bytes as its result.json; then the table in
 * every format and the plots. */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz.h"
#include "report.h"
#include "util.h"

static char dir[64], plots[96];

static void put(const char *name, const uint8_t *data, size_t size)
{
        char path[128];
        int fd;
        snprintf(path, sizeof(path), "%s/%s", dir, name);
        fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        CHECK(fd >= 0);
        CHECK(write(fd, data, size) == (ssize_t)size);
        close(fd);
}

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
        return remove(path);
}

static void cleanup(void)
{
        nftw(dir, remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* p0 holds a small sound result, so that sweeps have something to compare against. */
static void setup(void)
{
        static const char sound[] =
            "{\"client_stats\": [{\"jobname\": \"All clients\", \"read\": {\"bw_bytes\": 1048576, "
            "\"iops\": 256, \"clat_ns\": {\"N\": 1, \"percentile\": {\"50.000000\": 1000, "
            "\"99.000000\": 2000}}}, \"write\": {\"bw_bytes\": 0, \"iops\": 0}}], \"iofleet\": "
            "{\"status\": \"ok\", \"start_skew_ns\": 10, \"interval_ns\": 1000000000, \"agents\": "
            "[{\"name\": \"a\"}], \"intervals\": [{\"read_bytes\": 1048576, \"agents\": "
            "[{\"name\": "
            "\"a\", \"read_bytes\": 1048576}]}]}}";
        char path[128];
        snprintf(dir, sizeof(dir), "/tmp/fuzz-report.XXXXXX");
        CHECK(mkdtemp(dir));
        atexit(cleanup);
        snprintf(plots, sizeof(plots), "%s/plots", dir);
        snprintf(path, sizeof(path), "%s/p0", dir);
        CHECK(mkdir(path, 0755) == 0);
        snprintf(path, sizeof(path), "%s/p1", dir);
        CHECK(mkdir(path, 0755) == 0);
        put("p0/result.json", (const uint8_t *)sound, strlen(sound));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        double fig[REPORT_N_FIGS];
        char err[1024];
        json_t *doc;
        report_t *r = NULL;

        if (!dir[0])
                setup();
        doc = json_loadb((const char *)data, size, 0, NULL);
        if (doc) {
                err[0] = 0;
                if (report_figures(doc, fig, err, sizeof(err)) < 0)
                        CHECK(err[0]); /* every refusal says why */
                json_decref(doc);
        }
        put("sweep.json", data, size);
        put("p1/result.json", data, size);
        err[0] = 0;
        if (report_load(dir, &r, err, sizeof(err)) < 0) {
                CHECK(err[0] && !strchr(err, '\n'));
                CHECK(!r);
                return 0;
        }
        for (int fmt = REPORT_TEXT; fmt <= REPORT_MD; fmt++) {
                char *buf = NULL;
                size_t len = 0;
                FILE *f = open_memstream(&buf, &len);
                CHECK(f);
                CHECK(report_write(f, r, (report_format_t)fmt) == 0);
                fclose(f);
                free(buf);
        }
        if (r->n_points <= 64)
                report_plots(r, plots, err, sizeof(err));
        report_free(&r);
        return 0;
}
