/* Sysctls from a plan's [sysctl] section: checked, saved in the restore record, written under
 * the sysctl root and read back as the kernel took them. */
#pragma once

#include <stddef.h>

#include "kv.h"
#include "restore.h"

/* Checks names and values without I/O (plan validation). 0 or -errno with err set. */
int sysctl_check(const kvlist_t *settings, char *err, size_t errlen);
/* For each name=value: saves the old value in r, writes the value under root (/proc/sys, or a
 * scratch tree) and puts what reads back (the kernel may clamp or reformat it; trailing
 * newline removed) into effective under the name as given. Stops at the first failure with
 * err naming the sysctl; what was written before stays in r for restore_apply(). */
int sysctl_apply(const char *root, restore_t *r, const kvlist_t *settings, kvlist_t *effective,
                 char *err, size_t errlen);
