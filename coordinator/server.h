/* The coordinator daemon's configuration and its one poll loop around the registry and the run. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "coord-config.h"

/* Runs the coordinator until SIGTERM/SIGINT; 0 on a clean stop, -errno when it cannot start. */
int server_run(const coord_config_t *cfg);
