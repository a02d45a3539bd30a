/* Sysctl names and values as plans give them: syntax checks and the /proc/sys relative path,
 * without I/O (shared by the agent and the CLI's plan validation). */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "kv.h"

#define SYSCTL_NAME_MAX 255
#define SYSCTL_VALUE_MAX 1024

/* Checks a name as sysctl(8) takes it: dotted (net.core.rmem_max, components of a-z 0-9 _) or
 * slash form (net/ipv4/conf/eth0.100/rp_filter, components of A-Z a-z 0-9 _ . : - but never
 * "." or ".."), no leading or trailing separator, below net, vm, fs or sunrpc (kernel.* holds
 * settings that run programs). 0, -EINVAL or -EPERM (other tree) with err set. */
int sysctl_name_check(const char *name, char *err, size_t errlen);
/* Checks a value: 1..SYSCTL_VALUE_MAX printable characters, spaces and tabs allowed (tcp_rmem
 * takes "4096 131072 6291456"), no newline. 0 or -EINVAL with err set. */
int sysctl_value_check(const char *value, char *err, size_t errlen);
/* Writes the path below the sysctl root ("net/core/rmem_max") for a checked name into buf.
 * 0, -EINVAL (bad name) or -ENAMETOOLONG. */
int sysctl_name_to_path(const char *name, char *buf, size_t len);
/* Checks every key=value of a plan's sysctl section; errors name the key and its plan line. */
int sysctl_settings_check(const kvlist_t *settings, char *err, size_t errlen);
