/* Values of fio options with a syntax of their own (file_service_type, ignore_error,
 * steadystate, exec_*): parsed into plain structs, for the option checks and for the agent. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "options.h"

/* file_service_type */
typedef enum fst_kind {
        FST_ROUNDROBIN = 0, /* fio's default */
        FST_RANDOM,
        FST_SEQUENTIAL,
        FST_ZIPF,
        FST_PARETO,
        FST_NORMAL, /* "normal" and "gauss" */
} fst_kind_t;

typedef struct fst {
        fst_kind_t kind;
        uint32_t nr;  /* random/roundrobin/sequential: I/Os before switching file (default 1) */
        double value; /* zipf theta (default 1.1), pareto h (0.2), normal deviation % (0) */
} fst_t;

/* NULL or "" is fio's default, roundrobin:1. 0 or -EINVAL with err. */
int fst_parse(const char *s, fst_t *ret, char *err, size_t errlen);

/* ignore_error: errnos that do not end the job, per error type (read, write, verify). */
#define IGNORE_ERROR_MAX 32
typedef struct ignore_error {
        int err[3][IGNORE_ERROR_MAX];
        size_t n[3];
} ignore_error_t;

/* "READ_LIST,WRITE_LIST,VERIFY_LIST", each a ':'-separated list of E-names or numbers. */
int ignore_error_parse(const char *s, ignore_error_t *ret, char *err, size_t errlen);
/* Whether errno e of type (0 read, 1 write, 2 verify) is in the list. */
bool ignore_error_has(const ignore_error_t *ie, int type, int e);
/* An errno's symbolic name ("EIO"), or NULL when it has none in the table. */
const char *errno_name(int e);

/* steadystate / ss */
typedef enum ss_kind { SS_IOPS = 0, SS_IOPS_SLOPE, SS_BW, SS_BW_SLOPE } ss_kind_t;
typedef struct ss_spec {
        ss_kind_t kind;
        double limit;
        bool percent; /* limit is a percentage of the window's mean */
} ss_spec_t;

int ss_parse(const char *s, ss_spec_t *ret, char *err, size_t errlen);
/* fio's text of it: "iops_slope:0.100000%" */
void ss_format(const ss_spec_t *ss, char *buf, size_t len);

/* exec_prerun/exec_postrun: the name of a command the agent's config allows
 * (allow_commands = NAME:/abs/path). A name is 1-64 of [A-Za-z0-9._-]; anything else (a command
 * line) is told apart so that the agent can say why it refuses it. */
bool exec_name_valid(const char *s);
