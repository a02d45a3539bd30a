/* fio's options of job order, files, buffers, verification and errors, as a table (the rest are in
 * options-table.c), with their defaults, the checks of their values and their whole-job rules. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "options-internal.h"
#include "options-values.h"
#include "pattern.h"

/* --- string checks -------------------------------------------------------------------- */

static int check_job_name(const char *key, const char *s, char *err, size_t errlen)
{
        return options_check_name(key, s, err, errlen);
}

/* --- the table ------------------------------------------------------------------------ */

static const char *const exit_what_choices[] = {"group", "stonewall", "all", NULL};
static const int exit_what_values[] = {JOB_EXIT_GROUP, JOB_EXIT_STONEWALL, JOB_EXIT_ALL};

const job_option_t options_table_files[] = {
    /* job order */
    {
        .name = "stonewall",
        .aliases = {"wait_for_previous"},
        .type = OPT_BOOL,
        .offset = FIELD(bool, stonewall),
        .def = "0",
        .help = "Start once every job before this one is done (a new group)",
    },
    {
        .name = "new_group",
        .type = OPT_BOOL,
        .offset = FIELD(bool, new_group),
        .def = "0",
        .help = "Start a new reporting group (groupid) without waiting",
    },
    {
        .name = "wait_for",
        .type = OPT_STR,
        .offset = FIELD(char *, wait_for),
        .check = check_job_name,
        .range = "an earlier job's name",
        .example = "prepare",
        .help = "Start once every clone of the named earlier job is done",
    },
    {
        .name = "exitall",
        .type = OPT_BOOL,
        .offset = FIELD(bool, exitall),
        .def = "0",
        .help = "When one job of the group ends, end the others (see exit_what)",
    },
    {
        .name = "exit_what",
        .type = OPT_ENUM,
        .offset = FIELD_ENUM(int, exit_what),
        .choices = exit_what_choices,
        .values = exit_what_values,
        .def = "group",
        .example = "all",
        .help = "What exitall ends: the group, the running jobs (stonewall), or all",
    },
    {
        .name = "exitall_on_error",
        .type = OPT_BOOL,
        .offset = FIELD(bool, exitall_on_error),
        .def = "0",
        .help = "When a job ends in error, end the others of its group",
    },
    {
        .name = "loops",
        .type = OPT_UINT32,
        .offset = FIELD(uint32_t, loops),
        .min = 1,
        .max = UINT32_MAX,
        .def = "1",
        .example = "3",
        .help = "Run the (size-bound) workload this many times",
    },
};

const size_t options_table_files_len = ELEMENTSOF(options_table_files);

void options_files_defaults(job_spec_t *j)
{
        j->loops = 1;
        j->exit_what = JOB_EXIT_GROUP;
        j->fallocate = JOB_FALLOCATE_NATIVE;
        j->create_fsync = true;
        j->create_serialize = true;
        j->allow_file_create = true;
        j->unique_filename = true;
        j->fadvise_hint = JOB_FADVISE_WORKLOAD;
        j->scramble_buffers = true;
        j->buffer_compress_chunk = 512;
        j->dedupe_mode = JOB_DEDUPE_REPEAT;
        j->dedupe_working_set_percentage = 5;
        j->do_verify = true;
        j->error_dump = true;
}

void options_files_done(job_spec_t *j)
{
        for (size_t i = 0; i < options_table_files_len; i++) {
                const job_option_t *o = &options_table_files[i];
                char **p;
                if (o->type != OPT_STR || o->no_effect)
                        continue;
                p = (char **)((char *)j + o->offset);
                free(*p);
                *p = NULL;
        }
}

int options_files_validate(const job_spec_t *j, char *err, size_t errlen)
{
        if (j->wait_for && j->name && streq(j->wait_for, j->name)) {
                options_err(err, errlen, "wait_for: a job cannot wait for itself (%s)", j->name);
                return -EINVAL;
        }
        return 0;
}
