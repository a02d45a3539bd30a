/* iofleet's commands and their options as one table: the argument parser, the usage texts, the
 * man page and the shell completions all read it, so that they never drift apart. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* What an option's value (or a command's operands) is: how it is completed and documented. */
typedef enum cli_value {
        CLI_FLAG,     /* no value (an option); no operands (a command) */
        CLI_TEXT,     /* free text */
        CLI_FILE,     /* a file name */
        CLI_DIR,      /* a directory name */
        CLI_CHOICE,   /* one of .choices */
        CLI_CHOICES,  /* one or more of .choices, comma-separated (fio's json,normal) */
        CLI_NUMBER,   /* a whole number */
        CLI_DURATION, /* 500ms, 2s, 1h */
        CLI_ENDPOINT, /* tcp://HOST:PORT or ipc://PATH */
        CLI_COMMAND,  /* an iofleet command name (iofleet help CMD) */
} cli_value_t;

typedef struct cli_option {
        const char *name;    /* without the leading "--"; NULL ends a list */
        cli_value_t value;   /* CLI_FLAG: takes no value */
        const char *metavar; /* "FILE", "N": how usage texts name the value */
        const char *choices; /* CLI_CHOICE: the values, comma-joined */
        const char *help;    /* one or more lines, each at most ~60 columns */
} cli_option_t;

typedef struct cli_command {
        const char *name;
        const char *synopsis;    /* what follows "iofleet NAME" in the usage line */
        const char *summary;     /* one line for "iofleet -h" */
        const char *description; /* paragraphs for "iofleet help NAME" and the man page */
        const cli_option_t *options;
        cli_value_t operands;     /* what its non-option arguments are */
        const char *operand_name; /* "JOBFILE|PLAN", "RUN_DIR", "NAME", "RUN_ID", "COMMAND" */
        bool job_options;         /* also takes fio job options as --KEY=VALUE */
} cli_command_t;

extern const cli_command_t cli_commands[];
extern const size_t cli_n_commands;

/* The command called name, or NULL. */
const cli_command_t *cli_command_find(const char *name);

/* One argument as cli_args_next() understood it. */
typedef struct cli_arg {
        const cli_option_t *opt; /* one of the command's options; NULL for the others */
        bool help;               /* -h or --help */
        const char *job_key;     /* a job option's name (no dashes); NULL for the others */
        const char *value;       /* the option's value ("" for flags and a bare job option), or
                                  * the operand */
} cli_arg_t;

/* Walks a command's arguments (argv[0] is the command's name). */
typedef struct cli_args {
        int argc, i;
        char **argv;
        bool operands_only; /* after "--" */
        char key[128];
} cli_args_t;

void cli_args_init(cli_args_t *a, int argc, char **argv);
/* The next argument of cmd: 1 with *arg filled, 0 at the end, or -EINVAL with one line in err.
 * The rules, for --OPT and -OPT alike (one dash is fio's spelling):
 * - an option of the command that takes a value: --OPT=VALUE, or --OPT VALUE with the next
 *   argument as its value (it may not start with "--": "--output --per-host" is an error);
 * - a flag: --FLAG alone (--FLAG=VALUE is an error);
 * - a job option (commands with job_options): --KEY=VALUE, or --KEY alone for a boolean
 *   (fio's --time_based). It never takes the next argument, which stays a job file; --bs alone
 *   is an error that says to write --bs=VALUE;
 * - "--" ends the options: every later argument is an operand, even "-x"; "-" is an operand;
 * - anything else is an unknown option, named with the nearest known one ("did you mean"). */
int cli_args_next(cli_args_t *a, const cli_command_t *cmd, cli_arg_t *arg, char *err,
                  size_t errlen);

/* "iofleet NAME SYNOPSIS", the description and the options, as "iofleet help NAME" prints it. */
void cli_usage(const cli_command_t *cmd, FILE *f);
/* The commands and what each does, as "iofleet -h" prints it. */
void cli_usage_all(FILE *f);
