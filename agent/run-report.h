/* What an agent reports of its run: its messages packed from the runner, the clock and the host's
 * settings, for the run's state machine (agent-run.h's arun_pack_fn). */
#pragma once

#include "session.h"

/* Packs the message p asks for from ag's run context (ag is user). 0 or -errno. */
int report_pack(void *user, arun_pack_t *p, uint8_t **buf, size_t *len);
