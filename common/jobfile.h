/* fio job files: [sections], key=value and bare keys, comments, include, ${VAR}, read into an
 * ordered list of sections and options. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "config.h"

#define JOBFILE_MAX_SIZE (1u << 20)   /* one file */
#define JOBFILE_MAX_TOTAL (16u << 20) /* all files read for one job file, includes counted */
#define JOBFILE_MAX_LINE 8192         /* fio's OPT_LEN_MAX; also a value after ${VAR} expansion */
#define JOBFILE_MAX_INCLUDE_DEPTH 8   /* include within include within ... */
#define JOBFILE_MAX_INCLUDES 1024     /* include lines followed, in all */
#define JOBFILE_MAX_ENTRIES 65536     /* sections plus options */

/* One line that counts: a section header (key == NULL) or an option of the section above it. */
typedef struct jobfile_entry {
        char *section; /* the section's name, trimmed */
        bool global;   /* the section is a global one: its name starts with "global", as in fio */
        char *key;     /* trimmed; NULL for the header itself */
        char *value;   /* trimmed, ${VAR} expanded; "" for a bare key such as time_based */
        char *path;    /* the file the line is in: an included file for included lines */
        int line;      /* 1-based */
} jobfile_entry_t;

typedef struct jobfile {
        jobfile_entry_t *entries;
        size_t n;
        size_t n_job_sections; /* job sections seen, those --section left out included */
} jobfile_t;

/* What the parser reads through; NULL hooks (or a NULL jobfile_io_t) mean the file system ("-"
 * is standard input) and getenv(). Tests and the fuzzer pass their own. */
typedef struct jobfile_io {
        /* The whole file in a malloc'd buffer; 0, -ENOENT when missing, -EFBIG when larger than
         * JOBFILE_MAX_SIZE, or -errno. */
        int (*read_file)(void *user, const char *path, char **data, size_t *size);
        /* An environment variable's value, or NULL when it is not set. */
        const char *(*getenv)(void *user, const char *name);
        void *user;
} jobfile_io_t;

/* Reads the fio job file at path into *ret (free it with jobfile_free()). sections, when not NULL
 * and not empty, keeps only the job sections of those names (fio's --section; global sections
 * always count) and skips the lines of the others unread. Returns 0, or -EINVAL / -ENOENT / -EFBIG
 * / -errno with err naming file, line and key. *ret is untouched on failure. */
int jobfile_parse(const char *path, const jobfile_io_t *io, const strv_t *sections, jobfile_t *ret,
                  char *err, size_t errlen);
void jobfile_free(jobfile_t *jf);
/* What the parser reads a file with when no read_file hook is given: the file system, "-"
 * being standard input, at most JOBFILE_MAX_SIZE bytes (read_full_file()). For hooks that
 * wrap it. */
int jobfile_read_file(const char *path, char **data, size_t *size);
/* Whether fio reads a section of this name as a global one (any name that starts with "global"). */
bool jobfile_section_is_global(const char *name);
