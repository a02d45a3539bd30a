/* /proc/self/mountinfo lines parsed (proc(5)): octal escapes, optional fields up to "-", the
 * file system type, source and super options. */
#pragma once

#include <stdbool.h>

typedef struct mountinfo_entry {
        unsigned id, parent_id, major, minor;
        char *root;          /* unescaped */
        char *mountpoint;    /* unescaped */
        char *mount_options; /* per-mount: rw,noatime */
        char *optional;      /* "shared:1 master:2" or "" */
        char *fstype;        /* nfs4, tmpfs */
        char *source;        /* unescaped: server:/export */
        char *super_options; /* per-superblock: rw,vers=4.2,rsize=1048576,... */
} mountinfo_entry_t;

/* Parses one line (with or without its newline) into e. 0 or -EINVAL (malformed or out of memory;
 * e untouched). */
int mountinfo_parse_line(const char *line, mountinfo_entry_t *e);
void mountinfo_entry_clear(mountinfo_entry_t *e);
/* Finds the topmost mount at mountpoint (compared unescaped) in the mountinfo file path (NULL
 * means /proc/self/mountinfo). 1 with *e filled (when e is not NULL), 0 when none, -errno.
 * Malformed lines are skipped. */
int mountinfo_find(const char *path, const char *mountpoint, mountinfo_entry_t *e);
