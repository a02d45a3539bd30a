/* Tests for agent/diskstats.c: /proc/diskstats lines of every kernel layout (14, 18 and 20
 * fields) and what is not one, and fio's choice of devices on a made-up sysfs tree: a partition
 * counts as its disk, a dm device brings its slaves (a slave on a partition as that disk), a file
 * system without a block device has none; the counters' growth between two readings. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "diskstats.h"
#include "unit.h"
#include "util.h"

static void test_parse_lines(void **state)
{
        diskstat_t d;
        const char *l14 = " 254       0 vda 32585240 7088914 3066346138 25808183 32461849 8202071 "
                          "3459178736 23008695 62 4077048 50022660";
        const char *l20 = "   7       0 loop0 911 0 295650 1313 422 190 181048 482 0 760 2025 0 0 "
                          "0 0 221 229\n";
        const char *l18 = "   8      17 sdb1 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15";
        (void)state;

        assert_int_equal(diskstats_parse_line(l14, strlen(l14), &d), 0);
        assert_int_equal(d.major, 254);
        assert_int_equal(d.minor, 0);
        assert_string_equal(d.name, "vda");
        assert_int_equal(d.v[DS_RD_IOS], 32585240);
        assert_int_equal(d.v[DS_WR_IOS], 32461849);
        assert_int_equal(d.v[DS_IO_TICKS], 4077048);
        assert_int_equal(d.v[DS_IN_QUEUE], 50022660);
        assert_int_equal(diskstats_parse_line(l20, strlen(l20), &d), 0);
        assert_string_equal(d.name, "loop0");
        assert_int_equal(d.v[DS_IN_QUEUE], 2025);
        assert_int_equal(diskstats_parse_line(l18, strlen(l18), &d), 0);
        assert_int_equal(d.v[DS_WR_TICKS], 8);
        /* the line ends where len says, even without a newline or a NUL */
        assert_int_equal(diskstats_parse_line(l14, strlen(l14) - 9, &d), -EINVAL);

        {
                static const char *const bad[] = {
                    "",
                    "\n",
                    " 8 0 sda 1 2 3 4 5 6 7 8 9 10",          /* 10 counters */
                    " 8 0 sda 1 2 3 4 5 6 7 8 9 10 x",        /* not a number */
                    " 8 0 sda 1 2 3 4 5 6 7 8 9 10 11 12 zz", /* a later field neither */
                    " 8 0 sda 1 2 3 4 5 6 7 8 9 10 99999999999999999999999",
                    " -8 0 sda 1 2 3 4 5 6 7 8 9 10 11",
                    " 4294967296 0 sda 1 2 3 4 5 6 7 8 9 10 11", /* major past 32 bits */
                    " 8 0 "                                      /* a name of 64 bytes */
                    "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
                    " 1 2 3 4 5 6 7 8 9 10 11",
                    " 8 0",
                };
                for (size_t i = 0; i < ELEMENTSOF(bad); i++)
                        if (diskstats_parse_line(bad[i], strlen(bad[i]), &d) != -EINVAL)
                                fail_msg("'%s' parsed", bad[i]);
        }
        {
                /* a NUL inside the line */
                char nul[] = " 8 0 sda 1 2 3 4 5 6 7 8 9 10 11 12";
                nul[30] = '\0';
                assert_int_equal(diskstats_parse_line(nul, sizeof(nul) - 1, &d), -EINVAL);
        }
}

/* A file with text in it, under dir. */
static void put(const char *dir, const char *rel, const char *text)
{
        char path[512];
        FILE *f;
        snprintf(path, sizeof(path), "%s/%s", dir, rel);
        assert_non_null(f = fopen(path, "w"));
        fputs(text, f);
        fclose(f);
}

static void mkdirs(const char *dir, const char *rel)
{
        char cmd[600];
        snprintf(cmd, sizeof(cmd), "mkdir -p '%s/%s'", dir, rel);
        assert_int_equal(system(cmd), 0);
}

static void link_to(const char *dir, const char *target, const char *rel)
{
        char path[512];
        snprintf(path, sizeof(path), "%s/%s", dir, rel);
        assert_int_equal(symlink(target, path), 0);
}

/* sysfs: sda (8:0) with sda1 (8:1); sdb (8:16); sdc (8:32) with sdc1 (8:33); dm-0 (254:0) over
 * sdb and sdc1. */
static void make_tree(const char *t)
{
        mkdirs(t, "sys/dev/block");
        mkdirs(t, "sys/devices/pci/block/sda/sda1");
        mkdirs(t, "sys/devices/pci/block/sdb");
        mkdirs(t, "sys/devices/pci/block/sdc/sdc1");
        mkdirs(t, "sys/devices/virtual/block/dm-0/slaves");
        put(t, "sys/devices/pci/block/sda/dev", "8:0\n");
        put(t, "sys/devices/pci/block/sda/sda1/dev", "8:1\n");
        put(t, "sys/devices/pci/block/sda/sda1/partition", "1\n");
        put(t, "sys/devices/pci/block/sdb/dev", "8:16\n");
        put(t, "sys/devices/pci/block/sdc/dev", "8:32\n");
        put(t, "sys/devices/pci/block/sdc/sdc1/dev", "8:33\n");
        put(t, "sys/devices/pci/block/sdc/sdc1/partition", "1\n");
        put(t, "sys/devices/virtual/block/dm-0/dev", "254:0\n");
        link_to(t, "../../devices/pci/block/sda", "sys/dev/block/8:0");
        link_to(t, "../../devices/pci/block/sda/sda1", "sys/dev/block/8:1");
        link_to(t, "../../devices/pci/block/sdb", "sys/dev/block/8:16");
        link_to(t, "../../devices/pci/block/sdc", "sys/dev/block/8:32");
        link_to(t, "../../devices/pci/block/sdc/sdc1", "sys/dev/block/8:33");
        link_to(t, "../../devices/virtual/block/dm-0", "sys/dev/block/254:0");
        link_to(t, "../../../../pci/block/sdb", "sys/devices/virtual/block/dm-0/slaves/sdb");
        link_to(t, "../../../../pci/block/sdc/sdc1", "sys/devices/virtual/block/dm-0/slaves/sdc1");
}

static const disk_util_t *find(const disks_t *d, const char *name)
{
        for (size_t i = 0; i < disks_count(d); i++)
                if (streq(disks_get(d, i)->name, name))
                        return disks_get(d, i);
        return NULL;
}

static void test_devices(void **state)
{
        char t[64], sys[128], stats[128];
        disks_t *d = NULL;
        const disk_util_t *u;
        (void)state;

        assert_int_equal(unit_scratch_make(t, sizeof(t), "test-diskstats"), 0);
        make_tree(t);
        snprintf(sys, sizeof(sys), "%s/sys", t);
        snprintf(stats, sizeof(stats), "%s/diskstats", t);
        put(t, "diskstats",
            "   8       0 sda 100 1 800 50 200 2 1600 70 0 110 120\n"
            "   8       1 sda1 90 1 720 45 190 2 1520 66 0 100 111\n"
            "garbage that is not a line\n"
            "   8      16 sdb 10 0 80 5 20 0 160 7 0 11 12\n"
            "   8      32 sdc 30 0 240 9 40 0 320 8 0 15 17 0 0 0 0\n"
            "   8      33 sdc1 30 0 240 9 40 0 320 8 0 15 17 0 0 0 0\n"
            " 254       0 dm-0 40 0 320 14 60 0 480 15 0 26 29 0 0 0 0 0 0\n");
        assert_int_equal(disks_new(sys, stats, &d), 0);
        assert_int_equal(disks_begin(d, 1000 * (int64_t)NSEC_PER_MSEC), 0);
        /* the run's files: on sda1, on dm-0, on sda itself again, on tmpfs */
        assert_int_equal(disks_add(d, makedev(8, 1)), 0);
        assert_int_equal(disks_add(d, makedev(254, 0)), 0);
        assert_int_equal(disks_add(d, makedev(8, 0)), 0);
        assert_int_equal(disks_add(d, makedev(0, 45)), -ENOENT);
        assert_int_equal(disks_count(d), 0); /* nothing to show before the end */
        put(t, "diskstats",
            "   8       0 sda 150 3 1200 80 260 4 2100 90 1 410 520\n"
            "   8      16 sdb 20 0 160 10 30 0 240 9 0 21 22\n"
            "   8      32 sdc 30 0 240 9 45 1 360 10 0 18 19 0 0 0 0\n"
            " 254       0 dm-0 50 0 400 19 75 0 600 19 0 41 44 0 0 0 0 0 0\n");
        assert_int_equal(disks_end(d, 2500 * (int64_t)NSEC_PER_MSEC), 0);
        assert_int_equal(disks_count(d), 4); /* sda, dm-0, sdb, sdc: sda once */
        assert_non_null(u = find(d, "sda"));
        assert_string_equal(u->master, "");
        assert_int_equal(u->v[DS_RD_IOS], 50);
        assert_int_equal(u->v[DS_RD_MERGES], 2);
        assert_int_equal(u->v[DS_WR_IOS], 60);
        assert_int_equal(u->v[DS_WR_TICKS], 20);
        assert_int_equal(u->v[DS_IO_TICKS], 300);
        assert_int_equal(u->v[DS_IN_QUEUE], 400);
        assert_int_equal(u->msec, 1500);
        assert_non_null(u = find(d, "dm-0"));
        assert_string_equal(u->master, "");
        assert_int_equal(u->v[DS_WR_IOS], 15);
        assert_non_null(u = find(d, "sdb"));
        assert_string_equal(u->master, "dm-0");
        assert_int_equal(u->v[DS_RD_IOS], 10);
        assert_non_null(u = find(d, "sdc")); /* the slave was its partition sdc1 */
        assert_string_equal(u->master, "dm-0");
        assert_int_equal(u->v[DS_WR_IOS], 5);
        assert_null(find(d, "sda1"));
        assert_null(find(d, "sdc1"));
        disks_free(&d);
        assert_null(d);

        /* no readable counters: an error, and nothing to report */
        snprintf(stats, sizeof(stats), "%s/missing", t);
        assert_int_equal(disks_new(sys, stats, &d), 0);
        assert_int_equal(disks_begin(d, 0), -ENOENT);
        assert_int_equal(disks_end(d, 1), -ESRCH);
        assert_int_equal(disks_count(d), 0);
        disks_free(&d);
        unit_scratch_remove(t);
}

static void test_this_host(void **state)
{
        /* The real kernel: a directory on a block device has one, /proc itself has none. */
        disks_t *d = NULL;
        struct stat st;
        (void)state;

        assert_int_equal(disks_new("/sys", "/proc/diskstats", &d), 0);
        if (access("/proc/diskstats", R_OK) < 0) {
                disks_free(&d);
                skip();
        }
        assert_int_equal(disks_begin(d, 0), 0);
        assert_int_equal(stat("/proc", &st), 0);
        assert_int_equal(disks_add(d, st.st_dev), -ENOENT);
        assert_int_equal(stat("/tmp", &st), 0);
        if (major(st.st_dev) != 0) {
                assert_int_equal(disks_add(d, st.st_dev), 0);
                assert_int_equal(disks_end(d, (int64_t)NSEC_PER_SEC), 0);
                assert_true(disks_count(d) >= 1);
                assert_int_equal(disks_get(d, 0)->msec, 1000);
        }
        disks_free(&d);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_parse_lines),
            cmocka_unit_test(test_devices),
            cmocka_unit_test(test_this_host),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
