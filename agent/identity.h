/* Who this agent is: a UUID kept in its state directory, its hostname and the kernel's boot id. */
#pragma once

#include <stddef.h>

typedef struct identity {
        char id[37];
        char hostname[256];
        char boot_id[37];
} identity_t;

/* Reads STATE_DIR/agent-id, or makes a new UUID there (creating the directory) on first start.
 * A file that holds no valid UUID is an error naming it, never silently replaced. */
int identity_load(const char *state_dir, identity_t *id, char *err, size_t errlen);
