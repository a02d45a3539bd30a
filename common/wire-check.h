/* Wire validation: the checks a decoded Envelope's body passes before anyone reads it. */
#pragma once

#include <stddef.h>

#include "wire.h"

/* Checks e's body with the validator of its message type: every string bounded and printable,
 * every count and range within what the protocol allows. 0, or -EBADMSG with err naming the field
 * and what is allowed (also for a body of no known type). */
int wire_check_body(const envelope_t *e, char *err, size_t errlen);
