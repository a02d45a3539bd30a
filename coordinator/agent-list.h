/* Agents as the CLI sees them: AgentList and RunAccepted replies; and Error replies. */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "registry.h"
#include "sock.h"

/* Queues an AgentList (accepted_run NULL) or a RunAccepted for accepted_run to peer, built from
 * agents; run_of(user, id) names the run holding each agent ("" or NULL: none). */
void agent_list_push(outbox_t *ob, const char *peer, uint64_t *seq, coord_agent_t **agents, size_t n,
                     const char *accepted_run, const char *(*run_of)(void *user, const char *id),
                     void *user);
/* Queues an Error to peer (a control client, or an agent by its connection). */
void error_push(outbox_t *ob, const char *peer, uint64_t *seq, Iofleet__ErrorCode code,
                        const char *run_id, const char *msg);
