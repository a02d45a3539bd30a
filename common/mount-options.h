/* NFS client mount settings from a plan ([client] vers=, rsize=, nconnect=, hard, options=...)
 * checked against nfs(5) and rendered into a mount -o string, without I/O (the agent mounts
 * with it; the CLI validates plans with it). */
#pragma once

#include <stddef.h>

#include "kv.h"

#define MOUNT_OPTIONS_MAX 1024

/* Checks every key=value: known keys and their ranges (vers 3|4|4.0|4.1|4.2, rsize/wsize
 * 4096..1048576 in multiples of 1024 with k/m suffixes, nconnect 1..16, proto, timeo,
 * retrans, ac*, sec, port, flags such as hard/soft/noatime/nolock taking yes/no or nothing)
 * and options= raw items (same syntax; known names checked by the same rules), no key twice,
 * no contradictions (hard with soft, NFSv4 over udp). 0 or -EINVAL with err naming the key. */
int mount_options_check(const kvlist_t *opts, char *err, size_t errlen);
/* Checks and renders "vers=4.2,rsize=1048576,hard,..." (plan order; flags set to no left out)
 * into buf. 0, -EINVAL with err set, or -ENAMETOOLONG when it does not fit. */
int mount_options_render(const kvlist_t *opts, char *buf, size_t len, char *err, size_t errlen);
