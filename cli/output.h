/* The run's result in fio's output formats: normal, json, json+, terse (version 3). */
#pragma once

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

/* Whether the comma-separated format list fmt (NULL: "normal") names format f. */
bool output_has(const char *fmt, const char *f);
/* Whether fmt asks for a machine-readable format (json, json+, terse): the live display then goes
 * to stderr when the result goes to stdout. */
bool output_machine(const char *fmt);
/* Writes doc to f in each format of fmt, in order. 0 or -errno. */
int output_write(FILE *f, const char *fmt, json_t *doc, const char *results_dir);
