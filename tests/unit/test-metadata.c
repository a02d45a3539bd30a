/* Unit tests for the metadata workload: phases and counts, spread, orders, cleanup, errors. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "metadata.h"
#include "util.h"

#define NAME "job.a0.0"

static char dir[256];
static int dirfd_ = -1; /* dir, opened as the runner opens a job's directory */

static int setup(void **state _unused_)
{
        snprintf(dir, sizeof(dir), "/var/tmp/test-metadata.XXXXXX");
        assert_non_null(mkdtemp(dir));
        dirfd_ = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
        assert_true(dirfd_ >= 0);
        return 0;
}

static int teardown(void **state _unused_)
{
        char cmd[300];
        snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
        assert_int_equal(system(cmd), 0);
        close(dirfd_);
        dirfd_ = -1;
        return 0;
}

static int64_t mono_ns(void)
{
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* Entries of path other than . and .., or -1 if it cannot be opened. */
static int count_entries(const char *path)
{
        DIR *d = opendir(path);
        struct dirent *e;
        int n = 0;
        if (!d)
                return -1;
        while ((e = readdir(d)))
                if (!streq(e->d_name, ".") && !streq(e->d_name, ".."))
                        n++;
        closedir(d);
        return n;
}

static metadata_params_t params(uint32_t nrfiles, uint64_t filesize, uint32_t dirs,
                                metadata_order_t order, const int *stop)
{
        return (metadata_params_t){
            .directory = dir,
            .dirfd = dirfd_,
            .name = NAME,
            .nrfiles = nrfiles,
            .filesize = filesize,
            .dirs = dirs,
            .order = order,
            .seed = 0x89,
            .stop = stop,
            .end_mono = INT64_MAX,
        };
}

static metadata_stats_t *stats(void)
{
        metadata_stats_t *st = NULL;
        assert_int_equal(metadata_stats_new(&st), 0);
        return st;
}

/* Every op counted once, in its histogram too, and nothing failed. */
static void assert_slot(const metadata_stats_t *st, int slot, uint64_t ops, uint64_t bytes)
{
        const metadata_phase_stats_t *ps = &st->phase[slot];
        if (ps->ops != ops || ps->lat.n != ops || ps->errors != 0 || ps->bytes != bytes)
                fail_msg("%s: ops %llu, lat.n %llu, errors %llu, bytes %llu; want %llu ops, %llu "
                         "bytes",
                         metadata_slot_name(slot), (unsigned long long)ps->ops,
                         (unsigned long long)ps->lat.n, (unsigned long long)ps->errors,
                         (unsigned long long)ps->bytes, (unsigned long long)ops,
                         (unsigned long long)bytes);
        if (ops)
                assert_true(ps->elapsed_ns > 0 && ps->lat.max > 0);
        else
                assert_int_equal(ps->elapsed_ns, 0);
}

static void test_all_phases_both_orders(void **state _unused_)
{
        metadata_params_t p = params(300, 0, 4, MD_ORDER_BOTH, NULL);
        metadata_stats_t *st = stats();
        char err[512];

        assert_int_equal(metadata_run(&p, st, err, sizeof(err)), 0);
        assert_string_equal(err, "");
        for (int s = 0; s < MD_SLOTS; s++)
                assert_slot(st, s, 300, 0);
        assert_int_equal(metadata_current(st), -1);
        assert_int_equal(metadata_total_ops(st), 8 * 300);
        assert_int_equal(st->cleaned, 0);
        /* Nothing left behind: neither files nor the directories. */
        assert_int_equal(count_entries(dir), 0);

        /* Stats accumulate over runs (a time_based job runs the passes again). */
        p.order = MD_ORDER_RANDOM;
        assert_int_equal(metadata_run(&p, st, err, sizeof(err)), 0);
        assert_int_equal(st->phase[metadata_slot(false, MD_CREATE)].ops, 300);
        assert_int_equal(st->phase[metadata_slot(true, MD_DELETE)].ops, 600);
        assert_int_equal(st->phase[metadata_slot(true, MD_READ)].lat.n, 600);
        assert_int_equal(count_entries(dir), 0);
        metadata_stats_free(&st);
        assert_null(st);
}

static void test_one_order_only(void **state _unused_)
{
        metadata_params_t p = params(50, 100, 1, MD_ORDER_SEQUENTIAL, NULL);
        metadata_stats_t *st = stats();

        assert_int_equal(metadata_run(&p, st, NULL, 0), 0);
        assert_slot(st, metadata_slot(false, MD_CREATE), 50, 5000);
        assert_slot(st, metadata_slot(false, MD_READ), 50, 5000);
        for (int ph = 0; ph < MD_PHASES; ph++)
                assert_slot(st, metadata_slot(true, (metadata_phase_t)ph), 0, 0);
        metadata_stats_free(&st);

        st = stats();
        p.order = MD_ORDER_RANDOM;
        assert_int_equal(metadata_run(&p, st, NULL, 0), 0);
        for (int ph = 0; ph < MD_PHASES; ph++) {
                assert_slot(st, metadata_slot(false, (metadata_phase_t)ph), 0, 0);
                assert_slot(st, metadata_slot(true, (metadata_phase_t)ph), 50,
                            ph == MD_CREATE || ph == MD_READ ? 5000 : 0);
        }
        assert_int_equal(count_entries(dir), 0);
        metadata_stats_free(&st);
}

/* Sizes below a stamp, across stamps, and across the 1 MiB chunk: every byte written is read. */
static void test_filesize_reads_back_what_was_written(void **state _unused_)
{
        static const uint64_t sizes[] = {1, 7, 4095, 10000, (3u << 20) / 2};
        for (size_t k = 0; k < ELEMENTSOF(sizes); k++) {
                uint32_t n = sizes[k] > (1u << 20) ? 3 : 40;
                metadata_params_t p = params(n, sizes[k], 3, MD_ORDER_BOTH, NULL);
                metadata_stats_t *st = stats();
                char err[512];

                if (metadata_run(&p, st, err, sizeof(err)) != 0)
                        fail_msg("filesize %llu: %s", (unsigned long long)sizes[k], err);
                for (int o = 0; o < 2; o++) {
                        assert_slot(st, metadata_slot(o, MD_CREATE), n, n * sizes[k]);
                        assert_slot(st, metadata_slot(o, MD_STAT), n, 0);
                        assert_slot(st, metadata_slot(o, MD_READ), n, n * sizes[k]);
                        assert_slot(st, metadata_slot(o, MD_DELETE), n, 0);
                }
                assert_int_equal(count_entries(dir), 0);
                metadata_stats_free(&st);
        }
}

static void test_file_order(void **state _unused_)
{
        enum { N = 1000 };
        static uint32_t a[N], b[N], c[N];
        static bool seen[N];
        int rc = metadata_slot(true, MD_CREATE), rs = metadata_slot(true, MD_STAT);
        size_t same;

        metadata_file_order(a, N, 42, metadata_slot(false, MD_STAT));
        for (uint32_t k = 0; k < N; k++)
                assert_int_equal(a[k], k);

        /* A random slot: every file once, not in name order. */
        metadata_file_order(a, N, 42, rc);
        for (uint32_t k = 0; k < N; k++) {
                assert_true(a[k] < N);
                assert_false(seen[a[k]]);
                seen[a[k]] = true;
        }
        same = 0;
        for (uint32_t k = 0; k < N; k++)
                same += a[k] == k;
        assert_true(same < 20);

        /* The same seed repeats it; another seed or another phase draws another. */
        metadata_file_order(b, N, 42, rc);
        assert_memory_equal(a, b, sizeof(a));
        metadata_file_order(b, N, 43, rc);
        metadata_file_order(c, N, 42, rs);
        assert_memory_not_equal(a, b, sizeof(a));
        assert_memory_not_equal(a, c, sizeof(a));

        /* Tiny sets. */
        metadata_file_order(a, 1, 42, rc);
        assert_int_equal(a[0], 0);
        metadata_file_order(a, 2, 42, rc);
        assert_int_equal(a[0] + a[1], 1);
}

static void leftover_path(char *buf, size_t len, uint32_t i, uint32_t nrfiles, uint32_t dirs)
{
        snprintf(buf, len, "%s/md.%s.%u/%07u", dir, NAME, (unsigned)((uint64_t)i * dirs / nrfiles),
                 i);
}

/* A file of an earlier run: the create that meets it fails with EEXIST naming it, after exactly
 * as many creates as precede it in the order; what was created is removed, the leftover kept. */
static void check_leftover(metadata_order_t order, uint32_t leftover, uint64_t want_ops)
{
        const uint32_t n = 500, dirs = 5;
        const int slot = metadata_slot(order == MD_ORDER_RANDOM, MD_CREATE);
        metadata_params_t p = params(n, 3000, dirs, order, NULL);
        metadata_stats_t *st = stats();
        char err[512], path[400], ldir[400];
        int fd;

        leftover_path(path, sizeof(path), leftover, n, dirs);
        snprintf(ldir, sizeof(ldir), "%s/md.%s.%u", dir, NAME, leftover * dirs / n);
        assert_int_equal(mkdir(ldir, 0755), 0);
        fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);
        assert_true(fd >= 0);
        assert_int_equal(write(fd, "old", 3), 3);
        close(fd);

        assert_int_equal(metadata_run(&p, st, err, sizeof(err)), -EEXIST);
        if (!strstr(err, path) || !strstr(err, "already exists") ||
            !strstr(err, metadata_slot_name(slot)) || strchr(err, '\n'))
                fail_msg("unclear error: %s", err);
        assert_int_equal(st->phase[slot].ops, want_ops);
        assert_int_equal(st->phase[slot].lat.n, want_ops);
        assert_int_equal(st->phase[slot].errors, 1);
        assert_int_equal(st->phase[slot].bytes, want_ops * 3000);
        assert_int_equal(st->cleaned, want_ops);
        for (int s = slot + 1; s < MD_SLOTS; s++)
                assert_int_equal(st->phase[s].ops, 0);
        assert_int_equal(metadata_current(st), -1);

        /* Only the leftover and its (pre-existing) directory remain, untouched. */
        assert_int_equal(count_entries(dir), 1);
        assert_int_equal(count_entries(ldir), 1);
        {
                struct stat sb;
                assert_int_equal(stat(path, &sb), 0);
                assert_int_equal(sb.st_size, 3);
        }
        assert_int_equal(unlink(path), 0);
        assert_int_equal(rmdir(ldir), 0);
        metadata_stats_free(&st);
}

static void test_leftover_sequential(void **state _unused_)
{
        check_leftover(MD_ORDER_SEQUENTIAL, 321, 321);
        check_leftover(MD_ORDER_BOTH, 0, 0);
}

/* The number of creates before the leftover proves the random pass ran the permutation that
 * metadata_file_order() draws, not name order. */
static void test_leftover_random(void **state _unused_)
{
        static uint32_t idx[500];
        const int slot = metadata_slot(true, MD_CREATE);
        uint32_t leftover = 7, pos = 0;

        metadata_file_order(idx, 500, 0x89, slot);
        while (idx[pos] != leftover)
                pos++;
        assert_int_not_equal(pos, leftover);
        check_leftover(MD_ORDER_RANDOM, leftover, pos);
}

/* A helper thread acting while the workload runs. */
typedef struct watch {
        metadata_stats_t *st;
        int *stop;
        int slot; /* stop mode: set *stop once phase[slot].ops reaches ops */
        uint64_t ops;
        uint32_t nrfiles, dirs; /* list mode */
        uint64_t filesize;
        int done; /* set by the test once metadata_run() returned */
        bool listed;
        int counts[16];
        bool misplaced, alike;
        bool backwards; /* reader mode: a counter went down */
        uint64_t samples;
} watch_t;

static void *stop_after(void *arg)
{
        watch_t *w = arg;
        while (!__atomic_load_n(&w->done, __ATOMIC_ACQUIRE)) {
                if (__atomic_load_n(&w->st->phase[w->slot].ops, __ATOMIC_RELAXED) >= w->ops) {
                        __atomic_store_n(w->stop, 1, __ATOMIC_RELAXED);
                        break;
                }
                sched_yield();
        }
        return NULL;
}

/* Reads two stamps' worth of a file. */
static void read_blocks(const char *path, char *buf, size_t len)
{
        int fd = open(path, O_RDONLY);
        if (fd < 0 || read(fd, buf, len) != (ssize_t)len)
                memset(buf, 0, len);
        if (fd >= 0)
                close(fd);
}

/* While the sequential stat and read phases run, every file exists: count them per directory,
 * check each sits where file i * dirs / nrfiles belongs, and that the data does not repeat. */
static void *list_files(void *arg)
{
        watch_t *w = arg;
        const int s0 = metadata_slot(false, MD_STAT), s1 = metadata_slot(false, MD_READ);
        while (!__atomic_load_n(&w->done, __ATOMIC_ACQUIRE)) {
                int c = metadata_current(w->st);
                if (c != s0 && c != s1) {
                        usleep(50);
                        continue;
                }
                memset(w->counts, 0, sizeof(w->counts));
                w->misplaced = w->alike = false;
                for (uint32_t d = 0; d < w->dirs; d++) {
                        char path[400];
                        struct dirent *e;
                        DIR *dh;
                        snprintf(path, sizeof(path), "%s/md.%s.%u", dir, NAME, d);
                        if (!(dh = opendir(path)))
                                continue;
                        while ((e = readdir(dh))) {
                                if (e->d_name[0] == '.')
                                        continue;
                                unsigned long i = strtoul(e->d_name, NULL, 10);
                                w->counts[d]++;
                                if (strlen(e->d_name) != 7 ||
                                    (uint64_t)i * w->dirs / w->nrfiles != d)
                                        w->misplaced = true;
                        }
                        closedir(dh);
                }
                {
                        /* Two blocks of two files: four different 4 KiB blocks. */
                        static char a[8192], b[8192];
                        char path[400];
                        snprintf(path, sizeof(path), "%s/md.%s.0/0000000", dir, NAME);
                        read_blocks(path, a, sizeof(a));
                        snprintf(path, sizeof(path), "%s/md.%s.0/0000001", dir, NAME);
                        read_blocks(path, b, sizeof(b));
                        w->alike = !memcmp(a, a + 4096, 4096) || !memcmp(a, b, 4096) ||
                                   !memcmp(a + 4096, b + 4096, 4096) || !memcmp(b, b + 4096, 4096);
                }
                /* The listing counts only if no file could have gone meanwhile. */
                c = metadata_current(w->st);
                w->listed = c == s0 || c == s1;
                break;
        }
        return NULL;
}

static void test_files_spread_over_directories(void **state _unused_)
{
        const uint32_t n = 2000, dirs = 7;
        watch_t w = {.nrfiles = n, .dirs = dirs, .filesize = 16384};
        char err[512];

        /* The listing races the workload; a miss (the phases ended first) is retried. */
        for (int attempt = 0; attempt < 10 && !w.listed; attempt++) {
                metadata_params_t p = params(n, w.filesize, dirs, MD_ORDER_SEQUENTIAL, NULL);
                pthread_t t;
                w.st = stats();
                w.done = 0;
                assert_int_equal(pthread_create(&t, NULL, list_files, &w), 0);
                assert_int_equal(metadata_run(&p, w.st, err, sizeof(err)), 0);
                __atomic_store_n(&w.done, 1, __ATOMIC_RELEASE);
                pthread_join(t, NULL);
                metadata_stats_free(&w.st);
                assert_int_equal(count_entries(dir), 0);
        }
        assert_true(w.listed);
        int total = 0;
        for (uint32_t d = 0; d < dirs; d++) {
                /* 2000 / 7: 285 or 286 each. */
                assert_true(w.counts[d] == 285 || w.counts[d] == 286);
                total += w.counts[d];
        }
        assert_int_equal(total, n);
        assert_false(w.misplaced);
        assert_false(w.alike);
}

static void check_stop_mid(int slot)
{
        int stop = 0;
        const uint32_t n = 200000;
        metadata_params_t p =
            params(n, 0, 3, slot < MD_PHASES ? MD_ORDER_BOTH : MD_ORDER_RANDOM, &stop);
        watch_t w = {.st = stats(), .stop = &stop, .slot = slot, .ops = 100};
        char err[512];
        pthread_t t;
        int r;

        assert_int_equal(pthread_create(&t, NULL, stop_after, &w), 0);
        r = metadata_run(&p, w.st, err, sizeof(err));
        __atomic_store_n(&w.done, 1, __ATOMIC_RELEASE);
        pthread_join(t, NULL);
        if (r != 1)
                fail_msg("metadata_run: %d %s", r, err);
        uint64_t ops = w.st->phase[slot].ops;
        assert_true(ops >= 100 && ops < n);
        assert_int_equal(w.st->phase[slot].lat.n, ops);
        assert_int_equal(w.st->phase[slot].errors, 0);
        for (int s = slot + 1; s < MD_SLOTS; s++)
                assert_int_equal(w.st->phase[s].ops, 0);
        /* The files created so far are removed by the cleanup, outside the phase figures. */
        assert_int_equal(w.st->cleaned, ops);
        assert_int_equal(count_entries(dir), 0);
        metadata_stats_free(&w.st);
}

static void test_stop_mid_create(void **state _unused_)
{
        check_stop_mid(metadata_slot(false, MD_CREATE));
}

static void test_stop_mid_random_create(void **state _unused_)
{
        check_stop_mid(metadata_slot(true, MD_CREATE));
}

static void test_stop_or_end_before_start(void **state _unused_)
{
        int stop = 1;
        metadata_params_t p = params(100, 10, 2, MD_ORDER_BOTH, &stop);
        metadata_stats_t *st = stats();

        assert_int_equal(metadata_run(&p, st, NULL, 0), 1);
        assert_int_equal(metadata_total_ops(st), 0);
        assert_int_equal(count_entries(dir), 0);

        stop = 0;
        p.end_mono = mono_ns();
        assert_int_equal(metadata_run(&p, st, NULL, 0), 1);
        assert_int_equal(metadata_total_ops(st), 0);
        assert_int_equal(st->cleaned, 0);
        assert_int_equal(metadata_current(st), -1);
        assert_int_equal(count_entries(dir), 0);
        metadata_stats_free(&st);
}

/* An end time in the middle ends the run with what it did, and the files gone. */
static void test_end_time(void **state _unused_)
{
        metadata_params_t p = params(1000000, 0, 2, MD_ORDER_BOTH, NULL);
        metadata_stats_t *st = stats();

        p.end_mono = mono_ns() + 20 * 1000000LL;
        assert_int_equal(metadata_run(&p, st, NULL, 0), 1);
        uint64_t ops = st->phase[0].ops;
        assert_true(ops < 1000000);
        assert_int_equal(st->cleaned, ops);
        assert_int_equal(count_entries(dir), 0);
        metadata_stats_free(&st);
}

static void *read_while_running(void *arg)
{
        watch_t *w = arg;
        static metadata_phase_stats_t snap;
        uint64_t last_total = 0, last_ops[MD_SLOTS] = {0};
        while (!__atomic_load_n(&w->done, __ATOMIC_ACQUIRE)) {
                int c = metadata_current(w->st);
                uint64_t total = metadata_total_ops(w->st);
                if (total < last_total)
                        w->backwards = true;
                last_total = total;
                if (c >= 0) {
                        metadata_phase_snapshot(&snap, w->st, c);
                        if (snap.ops < last_ops[c])
                                w->backwards = true;
                        last_ops[c] = snap.ops;
                        w->samples++;
                }
        }
        return NULL;
}

/* Another thread reads the counters as the agent's interval reporter would. */
static void test_counters_readable_while_running(void **state _unused_)
{
        metadata_params_t p = params(3000, 0, 2, MD_ORDER_BOTH, NULL);
        watch_t w = {.st = stats()};
        pthread_t t;

        assert_int_equal(pthread_create(&t, NULL, read_while_running, &w), 0);
        assert_int_equal(metadata_run(&p, w.st, NULL, 0), 0);
        __atomic_store_n(&w.done, 1, __ATOMIC_RELEASE);
        pthread_join(t, NULL);
        assert_false(w.backwards);
        assert_int_equal(metadata_total_ops(w.st), 8 * 3000);
        metadata_stats_free(&w.st);
}

static void test_bad_parameters(void **state _unused_)
{
        metadata_stats_t *st = stats();
        metadata_params_t p;
        char err[512], missing[300];

        p = params(0, 0, 1, MD_ORDER_BOTH, NULL);
        assert_int_equal(metadata_run(&p, st, err, sizeof(err)), -ERANGE);
        assert_non_null(strstr(err, "nrfiles"));
        p = params(10, 0, 0, MD_ORDER_BOTH, NULL);
        assert_int_equal(metadata_run(&p, st, err, sizeof(err)), -ERANGE);
        assert_non_null(strstr(err, "metadata_dirs"));
        p = params(10, 0, MD_MAX_DIRS + 1, MD_ORDER_BOTH, NULL);
        assert_int_equal(metadata_run(&p, st, err, sizeof(err)), -ERANGE);
        p = params(10, 0, 1, 0, NULL);
        assert_int_equal(metadata_run(&p, st, err, sizeof(err)), -EINVAL);
        assert_non_null(strstr(err, "metadata_order"));
        p = params(10, 0, 1, MD_ORDER_BOTH, NULL);
        p.name = "a/b";
        assert_int_equal(metadata_run(&p, st, err, sizeof(err)), -EINVAL);
        p.name = "";
        assert_int_equal(metadata_run(&p, st, err, sizeof(err)), -EINVAL);

        snprintf(missing, sizeof(missing), "%s/nope", dir);
        p = params(10, 0, 1, MD_ORDER_BOTH, NULL);
        p.directory = missing;
        p.dirfd = -1; /* the runner found no such directory to open */
        assert_int_equal(metadata_run(&p, st, err, sizeof(err)), -EBADF);
        assert_non_null(strstr(err, missing));
        assert_non_null(strstr(err, "not opened"));

        /* Something that is not a directory where one of ours goes. */
        {
                char path[400];
                int fd;
                snprintf(path, sizeof(path), "%s/md.%s.1", dir, NAME);
                fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);
                assert_true(fd >= 0);
                close(fd);
                p = params(10, 0, 3, MD_ORDER_BOTH, NULL);
                assert_int_equal(metadata_run(&p, st, err, sizeof(err)), -ENOTDIR);
                assert_non_null(strstr(err, path));
                /* Directory 0 was made, then removed again. */
                assert_int_equal(count_entries(dir), 1);
                unlink(path);
        }
        assert_int_equal(metadata_total_ops(st), 0);

        assert_int_equal(metadata_order_from_string(NULL), MD_ORDER_BOTH);
        assert_int_equal(metadata_order_from_string("both"), MD_ORDER_BOTH);
        assert_int_equal(metadata_order_from_string("sequential"), MD_ORDER_SEQUENTIAL);
        assert_int_equal(metadata_order_from_string("random"), MD_ORDER_RANDOM);
        assert_int_equal(metadata_order_from_string("rand"), -EINVAL);
        assert_string_equal(metadata_slot_name(0), "seq_create");
        assert_string_equal(metadata_slot_name(metadata_slot(true, MD_STAT)), "rand_stat");
        assert_string_equal(metadata_slot_name(MD_SLOTS), "unknown");
        assert_string_equal(metadata_slot_name(-1), "unknown");
        metadata_stats_free(&st);
}

/* A link planted where one of the workload's directories goes is refused, never followed: the
 * directory it points to stays empty. */
static void test_planted_link_is_not_followed(void **state _unused_)
{
        metadata_params_t p = params(30, 10, 3, MD_ORDER_BOTH, NULL);
        metadata_stats_t *st = stats();
        char out[300], lnk[400], err[512];

        snprintf(out, sizeof(out), "%s.outside", dir);
        assert_int_equal(mkdir(out, 0755), 0);
        snprintf(lnk, sizeof(lnk), "%s/md.%s.2", dir, NAME);
        assert_int_equal(symlink(out, lnk), 0);
        assert_int_equal(metadata_run(&p, st, err, sizeof(err)), -ENOTDIR);
        assert_non_null(strstr(err, lnk));
        assert_int_equal(count_entries(out), 0);
        /* Only the link is left: directories 0 and 1 were made and removed again. */
        assert_int_equal(count_entries(dir), 1);
        assert_int_equal(unlink(lnk), 0);
        assert_int_equal(rmdir(out), 0);
        metadata_stats_free(&st);
}

/* A directory given with trailing slashes works as without. */
static void test_trailing_slash(void **state _unused_)
{
        char d2[300];
        metadata_params_t p = params(20, 0, 2, MD_ORDER_SEQUENTIAL, NULL);
        metadata_stats_t *st = stats();
        snprintf(d2, sizeof(d2), "%s//", dir);
        p.directory = d2;
        assert_int_equal(metadata_run(&p, st, NULL, 0), 0);
        assert_int_equal(st->phase[0].ops, 20);
        assert_int_equal(count_entries(dir), 0);
        metadata_stats_free(&st);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test_setup_teardown(test_all_phases_both_orders, setup, teardown),
            cmocka_unit_test_setup_teardown(test_one_order_only, setup, teardown),
            cmocka_unit_test_setup_teardown(test_filesize_reads_back_what_was_written, setup,
                                            teardown),
            cmocka_unit_test(test_file_order),
            cmocka_unit_test_setup_teardown(test_leftover_sequential, setup, teardown),
            cmocka_unit_test_setup_teardown(test_leftover_random, setup, teardown),
            cmocka_unit_test_setup_teardown(test_files_spread_over_directories, setup, teardown),
            cmocka_unit_test_setup_teardown(test_stop_mid_create, setup, teardown),
            cmocka_unit_test_setup_teardown(test_stop_mid_random_create, setup, teardown),
            cmocka_unit_test_setup_teardown(test_stop_or_end_before_start, setup, teardown),
            cmocka_unit_test_setup_teardown(test_end_time, setup, teardown),
            cmocka_unit_test_setup_teardown(test_counters_readable_while_running, setup, teardown),
            cmocka_unit_test_setup_teardown(test_bad_parameters, setup, teardown),
            cmocka_unit_test_setup_teardown(test_trailing_slash, setup, teardown),
            cmocka_unit_test_setup_teardown(test_planted_link_is_not_followed, setup, teardown),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
