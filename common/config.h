/* Daemon and CLI configuration: INI files (libinih) and --key=value overrides through one key
 * table. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* A growable list of owned strings (roles; labels as "key=value"). */
typedef struct strv {
        char **v;
        size_t n;
} strv_t;

int strv_push(strv_t *l, const char *s);
void strv_clear(strv_t *l);
bool strv_contains(const strv_t *l, const char *s);

/* Parses an INI file with libinih, handing each key to handler with its line number (libinih's
 * own handler has none). Returns 0, the handler's first failure (handler returns 0 to stop),
 * or -EINVAL with err naming the first line that is not INI, is longer than libinih's buffer
 * (199 characters) or holds a NUL byte. */
typedef int (*ini_line_handler_t)(void *user, const char *section, const char *name,
                                  const char *value, int lineno);
int config_parse_ini(const char *path, ini_line_handler_t handler, void *user, char *err,
                     size_t errlen);

typedef enum cfg_type {
        CFG_STRING,   /* char *, owned */
        CFG_BOOL,     /* bool */
        CFG_DURATION, /* uint64_t ns; a bare number is seconds */
        CFG_UINT,     /* uint64_t within [min, max] */
        CFG_LIST,     /* strv_t, comma separated; replaces the previous value */
        CFG_CHOICE,   /* char *, one of the comma separated words in choices */
} cfg_type_t;

typedef struct cfg_item {
        const char *name;
        cfg_type_t type;
        size_t offset;
        uint64_t min, max;   /* CFG_UINT and CFG_DURATION bounds (0,0 = unbounded) */
        const char *choices; /* CFG_CHOICE and CFG_LIST: allowed words, NULL = any */
        const char *help;
} cfg_item_t;

typedef struct cfg_schema {
        const char *section; /* the main section, e.g. "agent" */
        const cfg_item_t *items;
        size_t n_items;
        size_t labels_offset; /* strv_t filled from a [labels] section; SIZE_MAX if none */
} cfg_schema_t;

/* Reads an INI file into target (which already holds defaults). Errors name file, line and key. */
int config_load_file(const cfg_schema_t *s, void *target, const char *path, char *err,
                     size_t errlen);
/* Sets one key; where prefixes errors ("--name", "agent.conf:3"). */
int config_set(const cfg_schema_t *s, void *target, const char *name, const char *value,
               const char *where, char *err, size_t errlen);
/* Parses daemon arguments: --config=FILE (loaded first), then --KEY=VALUE overrides for every
 * key of the table and --label=KEY=VALUE. Arguments the table does not know are handed to
 * extra() (which returns 1 when it took the argument, 0 when unknown, <0 on error); may be NULL. */
int config_parse_args(const cfg_schema_t *s, void *target, int argc, char **argv,
                      int (*extra)(void *target, const char *arg, char *err, size_t errlen),
                      char *err, size_t errlen);
void config_help(const cfg_schema_t *s, FILE *f);
/* Frees the strings and lists the table points at. */
void config_free(const cfg_schema_t *s, void *target);
