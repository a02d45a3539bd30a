/* fio's disk_util: the block devices under a run's files (a partition counts as its disk; a
 * device-mapper or md device brings its slaves), and what /proc/diskstats counted for them
 * between the run's start and its end. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define DISK_NAME_MAX 64
#define DISKS_MAX 64 /* devices reported (WIRE_MAX_DISKS) */

/* The counters of a /proc/diskstats line, in its order (Documentation/admin-guide/iostats). */
enum {
        DS_RD_IOS,
        DS_RD_MERGES,
        DS_RD_SECTORS,
        DS_RD_TICKS, /* ms */
        DS_WR_IOS,
        DS_WR_MERGES,
        DS_WR_SECTORS,
        DS_WR_TICKS,
        DS_IN_FLIGHT,
        DS_IO_TICKS, /* ms the device was busy */
        DS_IN_QUEUE, /* weighted ms */
        DISKSTAT_FIELDS,
};

typedef struct diskstat {
        unsigned major, minor;
        char name[DISK_NAME_MAX];
        uint64_t v[DISKSTAT_FIELDS];
} diskstat_t;

/* One line of /proc/diskstats (proc(5)): major, minor, name and at least the eleven counters
 * above; the fields later kernels add (discards, flushes) are ignored. The line need not end in
 * a newline nor in a NUL (len bytes). 0, or -EINVAL for anything else (nothing is kept). */
int diskstats_parse_line(const char *line, size_t len, diskstat_t *d);

/* A device as reported: its counters' growth from the start to the end, over msec. */
typedef struct disk_util {
        char name[DISK_NAME_MAX];
        char master[DISK_NAME_MAX]; /* a slave: the device it is under; "" for none */
        uint64_t v[DISKSTAT_FIELDS];
        uint64_t msec;
} disk_util_t;

typedef struct disks disks_t;

/* paths: the kernel's files, "/sys" and "/proc/diskstats" outside tests. 0 or -ENOMEM. */
int disks_new(const char *sysfs, const char *diskstats, disks_t **ret);
void disks_free(disks_t **dp);
/* The start: every device's counters at now (CLOCK_MONOTONIC). 0 or -errno. */
int disks_begin(disks_t *d, int64_t now);
/* A device a file is on (its st_dev) and, as fio, what it reports with it: the whole disk for a
 * partition, and the slaves of a dm or md device (each also for itself). 0; -ENOENT when st_dev
 * is no block device (tmpfs, NFS, overlayfs: fio reports nothing for them); -E2BIG when full. */
int disks_add(disks_t *d, uint64_t st_dev);
/* The end: the growth of each added device's counters since disks_begin(). 0 or -errno. */
int disks_end(disks_t *d, int64_t now);
/* The devices after disks_end(), in the order added. */
size_t disks_count(const disks_t *d);
const disk_util_t *disks_get(const disks_t *d, size_t i);
