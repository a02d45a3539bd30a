/* The agent daemon: its one poll loop around the session and its part of a run. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "agent-config.h"

/* Runs the agent until SIGTERM/SIGINT; 0 on a clean stop, -errno when it cannot start. */
int daemon_run(const agent_config_t *cfg);
