/* The restore record's files (agent/restore-record.c): one entry file per change, written and
 * synced before the change, read back at the next start; shared with agent/restore.c only. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "restore.h"

#define RESTORE_MAGIC "iofleet-restore=1"
#define RESTORE_END "end=1"
#define RESTORE_MAX_FILE (16u << 20) /* a saved file's bytes */
#define RESTORE_MAX_ENTRY 65536u     /* an entry file, escaped values included */
#define RESTORE_MAX_SYSCTL 65536u    /* a sysctl value as read */
#define RESTORE_MAX_NUM 99999999u
#define RESTORE_MAX_OPS 8
#define RESTORE_UMOUNT_TIMEOUT_MS 30000 /* then MNT_FORCE, then MNT_DETACH */

typedef enum entry_kind {
        ENTRY_FILE,
        ENTRY_SYSCTL,
        ENTRY_SERVICE,
        ENTRY_MOUNT,
        ENTRY_DIR,
        ENTRY_ATTR, /* a sysfs attribute (a device's I/O scheduler) and the value to write back */
        ENTRY_BAD,  /* committed but unreadable: kept and reported, never guessed at */
} entry_kind_t;

typedef struct entry {
        unsigned num;
        entry_kind_t kind;
        char *a;     /* file, dir, attr: path; sysctl: name; service: kind; mount: umount_bin */
        char *b;     /* sysctl: root; service: name; mount: mountpoint */
        char *value; /* sysctl: the old value, exactly as read; attr: what to write back; bad: why */
        bool flag;   /* file: existed; service: was_running; mount: created_dir */
        mode_t mode;
        uid_t uid;
        gid_t gid;
        uint64_t size, hash;
        int64_t mtime_sec, mtime_nsec;
} entry_t;

struct restore {
        int dirfd;
        char *dir;
        entry_t *v;
        size_t n;
        unsigned next;
        restore_service_ops_t ops[RESTORE_MAX_OPS];
        size_t n_ops;
};

void restore_entry_free(entry_t *e);
/* NNNNNNNN.SUFFIX, the name of entry num's files. */
void restore_entry_name(unsigned num, const char *suffix, char *buf, size_t len);
/* Writes e (and a saved file's bytes) durably and adds it to r; 0 or -errno. */
int restore_entry_commit(restore_t *r, entry_t *e, const char *data, size_t datalen);
/* Paths and words a record may hold: absolute, bounded, no control characters. */
bool restore_path_ok(const char *p);
bool restore_word_ok(const char *s);
/* The number of an entry file's name (and where its suffix starts), or 0. */
unsigned restore_name_num(const char *name, const char **suffix);
/* Loads the record in r->dir: committed entries in order; torn ones (no end marker) ignored,
 * unreadable committed ones kept as ENTRY_BAD. 0 or -errno. */
int restore_record_load(restore_t *r);
