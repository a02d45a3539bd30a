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
        CFG_STRING,    /* char *, owned */
        CFG_BOOL,      /* bool */
        CFG_DURATION,  /* uint64_t ns within [min, max]; a bare number is seconds */
        CFG_UINT,      /* uint64_t within [min, max] */
        CFG_LIST,      /* strv_t, comma separated; replaces the previous value */
        CFG_CHOICE,    /* char *, one of the comma separated words in choices */
        CFG_SDURATION, /* int64_t ns, "-" allowed ("-150ms"), |value| at most max */
} cfg_type_t;

/* cfg_item_t.flags */
enum {
        /* A test hook: only on the command line (--test-clock-offset=2s), refused in the file,
         * listed apart by config_help(). */
        CFG_TEST_HOOK = 1u << 0,
};

/* One configuration key: everything the parser, the defaults, --help, man pages and shell
 * completion need. (min, max) = (0, 0) means unbounded. */
typedef struct cfg_item {
        const char *name;
        cfg_type_t type;
        size_t offset;
        uint64_t min, max;   /* CFG_UINT, CFG_DURATION (ns) bounds; CFG_SDURATION: max only */
        const char *choices; /* CFG_CHOICE and CFG_LIST: allowed words, NULL = any */
        const char *help;    /* what it is, without its default (config_help() adds that) */
        const char *def;     /* the default, as a value read like the file's; NULL: none */
        const char *def_doc; /* a default worked out at run time, in words ("the host name") */
        unsigned flags;      /* CFG_TEST_HOOK */
} cfg_item_t;

/* A program's whole configuration. Other programs walk items[0..n_items) (or read
 * config_dump_json()'s output, which each daemon prints for --dump-config-table). */
typedef struct cfg_schema {
        const char *section; /* the main section, e.g. "agent" */
        const cfg_item_t *items;
        size_t n_items;
        size_t labels_offset; /* strv_t filled from a [labels] section; SIZE_MAX if none */
} cfg_schema_t;

/* Sets every key that has a default (cfg_item_t.def) to it, through config_set(); the other
 * fields are left alone. 0 or -ENOMEM. */
int config_defaults(const cfg_schema_t *s, void *target);
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
/* The keys for --help: each with its help, allowed values, range and default; [labels]; then
 * the test hooks. */
void config_help(const cfg_schema_t *s, FILE *f);
/* The table as one JSON object for other programs (man pages, shell completion):
 * {"program", "section", "labels": bool, "items": [{"name", "option" ("--log-level"), "type",
 * "metavar" (DURATION, N, BOOL, LIST, VALUE),
 * "help", "default" (or null), "default_doc", "choices": [...], "min", "max" (numbers; ns for
 * durations), "range" (as --help shows it), "test_hook": bool}]}. 0 or -ENOMEM. */
int config_dump_json(const cfg_schema_t *s, const char *program, FILE *f);
/* Frees the strings and lists the table points at. */
void config_free(const cfg_schema_t *s, void *target);
