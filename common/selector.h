/* Agent selectors: "role=client,rack=a1", "name=web*", "all"; every comma-separated term must
 * match. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "config.h"

typedef struct selector_subject {
        const char *name;
        const char *hostname;
        const strv_t *roles;
        const strv_t *labels; /* "key=value" */
} selector_subject_t;

/* Checks the syntax; err names the bad term. Empty or "all" selects every agent. */
int selector_validate(const char *sel, char *err, size_t errlen);
/* Terms: role=R, name=GLOB, host=GLOB, KEY=GLOB (a label), or a bare GLOB (the name). */
bool selector_match(const char *sel, const selector_subject_t *a);
