/* Job files as fio lays them out: their names, sizes and I/O regions; creating them and filling
 * missing or short files that will be read. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "agent-config.h"
#include "buffers.h"
#include "options.h"
#include "policy.h"

/* The default of filename_format: fio's $jobname.$jobnum.$filenum with the agent's name, so that
 * agents sharing a directory (an NFS export) never trample each other's files. */
#define LAYOUT_DEFAULT_FORMAT "$jobname.$agent.$jobnum.$filenum"
/* Engines without files (null) run over notional files of this size when the job has no size. */
#define LAYOUT_NOTIONAL_SIZE (1ULL << 30)

/* One file of one worker. */
typedef struct layout_file {
        char *path;       /* owned; NULL for engines without files */
        uint64_t base;    /* first byte of the I/O region: the job's offset */
        uint64_t io_size; /* bytes in the region; 0 until the file is opened when length is 0 */
        uint64_t length;  /* the length the file must have; 0: an existing file, as it is */
        bool fill;        /* missing data is written (some job reads the file), not only reserved */
        bool writes;      /* some job writes the file */
        bool owner;       /* this worker lays the file out (the first of those naming it) */
} layout_file_t;

/* The files of clone `clone` of job j, as fio names and sizes them: filename (a ':' separated
 * list, shared by every clone; relative names under directory) or else nrfiles files named by
 * filename_format ($jobname, $jobnum, $filenum, $agent) in directory (relative to work_dir;
 * work_dir when unset). Each file's region starts at offset and holds filesize - offset bytes, or
 * size / nrfiles when no filesize is given. with_files false (null engine): notional files without
 * paths. Files on this host are checked against cfg's policy (policy_resolve_path): a directory=
 * that must exist, each name (a missing tail is fine: layout makes it). On success *ret holds *n
 * files for layout_files_free(); on failure err names the job, the option and the path. */
int layout_plan(const agent_config_t *cfg, const job_spec_t *j, const char *agent,
                const char *work_dir, unsigned clone, bool with_files, layout_file_t **ret,
                size_t *n, char *err, size_t errlen);
void layout_files_free(layout_file_t **files, size_t n);

/* Expands filename_format for one file into buf; -ENAMETOOLONG when it does not fit. */
int layout_expand_name(const char *format, const char *job, const char *agent, unsigned jobnum,
                       unsigned filenum, char *buf, size_t len);

/* One file to lay out, and fio's options that say how (setup_files()/extend_file()). */
typedef struct layout_req {
        const char *path;
        uint64_t length;   /* the length the job needs; 0: an existing file, as it is */
        bool reads;        /* some job reads it: a short file is laid out anew, filled */
        bool writes;       /* some job writes it: a short file is replaced by an empty one */
        bool overwrite;    /* ... laid out in full all the same (fio's overwrite=1) */
        bool append;       /* file_append: its I/O starts at its end; nothing is replaced */
        bool direct;       /* fill through O_DIRECT, so layout does not fill the page cache */
        bool readonly;     /* a missing or short file is an error */
        bool allow_create; /* a missing file may be created (allow_file_create) */
        bool fsync;        /* what layout wrote is fsync'ed (create_fsync) */
        int fallocate;     /* JOB_FALLOCATE_*: how the length is reserved */
        uint64_t seed;     /* random content when content is NULL */
        buffers_t *content; /* the job's buffer options make the data written, block by block */
        uint64_t bs;        /* ... in blocks of this size (fio lays out in write blocks) */
        const int *stop;
        policy_undo_t *undo; /* what this call created */
        /* Progress (may be NULL; relaxed atomic adds, read by the agent's loop): each write as
         * it is made; on success the whole length in all (a file long enough, or only reserved,
         * at once). cfg's test_layout_rate (a test hook) paces the writes. */
        uint64_t *done;
} layout_req_t;

/* Lays out req->path as fio does: a file long enough is used as it is (even on a read-only
 * file system: looked at read-only first); a missing or short one is replaced (unlinked) and
 * made anew (created with missing directories as fio makes them), its length reserved as
 * fallocate= says, and, when it will be read (or overwrite=1), written in full with the job's
 * buffer contents (through O_DIRECT with aligned buffers when direct). file_append: only the
 * part after the file's end is reserved, and *base (may be NULL) gets that end. The file is
 * opened through cfg's policy (policy_open: beneath allow_paths, never through a symbolic
 * link); what this call created goes to req->undo. Only regular files are touched. -ECANCELED
 * soon after *stop becomes non-zero; err gets one line. */
int layout_file(const agent_config_t *cfg, const layout_req_t *req, uint64_t *base, char *err,
                size_t errlen);
/* Adds n bytes laid out to *done (NULL: nothing), for the agent's loop to read at any time. */
static inline void layout_count(uint64_t *done, uint64_t n)
{
        if (done && n)
                __atomic_fetch_add(done, n, __ATOMIC_RELAXED);
}
/* 0 when fd is a regular file; otherwise -EINVAL with err naming path and what it is. */
int layout_check_regular(int fd, const char *path, char *err, size_t errlen);
