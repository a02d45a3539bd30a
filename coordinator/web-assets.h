/* The live web page's files (web/), compiled into the coordinator by cmake/embed.cmake. */
#pragma once

#include <stddef.h>

typedef struct web_asset {
        const char *path; /* "/index.html" */
        const char *type; /* Content-Type */
        const unsigned char *data;
        size_t len;
} web_asset_t;

/* Ends with an entry whose path is NULL. */
extern const web_asset_t web_assets[];
