/* Enrolment on the agent: with a token (--enroll-token= or enroll_token_file) it pins the
 * coordinator's key the token carries, makes its own key pair if it has none, and asks the
 * coordinator's enrolment endpoint to admit its public key, over CURVE with the token's key pair
 * and the pinned coordinator key, so that a man in the middle learns nothing and admits nothing. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "agent-config.h"
#include "wire.h"

/* STATE_DIR/enrolled: what the last enrolment gave (a token given on the command line is not
 * used twice; deployment tools look for it). */
#define ENROLL_MARKER "enrolled"
#define ENROLL_PORT 7462

typedef struct enroll_result {
        bool done;    /* an enrolment took place at this start */
        bool pending; /* the coordinator waits for the operator's approval */
        char name[WIRE_MAX_NAME + 1];
} enroll_result_t;

/* The enrolment endpoint an agent uses: enroll_endpoint, else the coordinator endpoint's host
 * with port ENROLL_PORT. -EINVAL with err when it cannot be worked out. */
int enroll_endpoint_of(const agent_config_t *cfg, char *buf, size_t len, char *err, size_t errlen);

/* Enrols this agent when it holds a token; nothing to do otherwise (res->done false). 0, or
 * -ENOKEY when the token, the pinned key or the coordinator's answer needs the operator (a
 * restart does not cure it), -ETIMEDOUT when the endpoint did not answer within
 * enroll_timeout, another -errno on local failures; each logged once, naming the fix. */
int enroll_agent(const agent_config_t *cfg, const char *name, const char *hostname,
                 enroll_result_t *res);
