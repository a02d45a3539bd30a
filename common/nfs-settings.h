/* NFS server settings of a plan's [server] section: the per-backend key table, checks, and the
 * kernel export line, nfs.conf keys and ganesha EXPORT block they render to. Pure: no I/O. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kv.h"

enum {
        NFS_BACKEND_KERNEL = 1 << 0,
        NFS_BACKEND_GANESHA = 1 << 1,
};

enum { NFS_V3 = 1 << 0, NFS_V40 = 1 << 1, NFS_V41 = 1 << 2, NFS_V42 = 1 << 3 };
enum { NFS_SEC_SYS = 1 << 0, NFS_SEC_KRB5 = 1 << 1, NFS_SEC_KRB5I = 1 << 2, NFS_SEC_KRB5P = 1 << 3,
       NFS_SEC_NONE = 1 << 4 };
enum { NFS_SQUASH_UNSET = -1, NFS_SQUASH_ROOT, NFS_SQUASH_NONE, NFS_SQUASH_ALL };
enum { NFS_DELEG_UNSET = -1, NFS_DELEG_NONE, NFS_DELEG_READ, NFS_DELEG_WRITE, NFS_DELEG_RW };
enum { NFS_TRANSPORT_TCP = 1 << 0, NFS_TRANSPORT_UDP = 1 << 1 };

/* How a [server] value is read and where it goes in nfs_export_t. */
typedef enum nfs_setting_type {
        NFS_SET_BACKEND, /* the backend itself: read before every other key */
        NFS_SET_STRING,  /* valid() checks it; copied into a char[size] field */
        NFS_SET_ENUM,    /* a word of words[] or, when boolean, a boolean; into an int field */
        NFS_SET_WORDS,   /* a comma list of words[], their values OR'd into an unsigned field */
        NFS_SET_UINT,    /* a decimal number within [min, max]; unsigned or uint64_t by size */
        NFS_SET_SIZE,    /* as NFS_SET_UINT, with k/m (KiB/MiB) suffixes */
} nfs_setting_type_t;

/* A word a key takes: its value, and which backends have it (0: every backend with the key). */
typedef struct nfs_word {
        const char *word;
        int value;
        unsigned backends;
} nfs_word_t;

/* Keys of one group exclude each other: access/rw/ro, sync/async, the squash keys. */
enum { NFS_GROUP_NONE, NFS_GROUP_ACCESS, NFS_GROUP_SYNC, NFS_GROUP_SQUASH, NFS_GROUPS };

/* One key a [server] section may hold: what it is (for errors, help and man pages) and how it
 * is read. */
typedef struct nfs_setting {
        const char *key;
        unsigned backends; /* NFS_BACKEND_* that have it */
        const char *range; /* allowed values, as shown in errors and help */
        const char *help;
        const char *instead; /* for a backend without it: what that backend has instead */
        const char *def;     /* default, as a value of this key; NULL: the server's own */
        const char *example; /* a value it takes, for help and man pages */
        nfs_setting_type_t type;
        size_t offset, size;                           /* the field in nfs_export_t and its size */
        bool (*valid)(const char *value, size_t size); /* NFS_SET_STRING */
        const nfs_word_t *words;                       /* ENUM, WORDS; ends with a NULL word */
        bool boolean;          /* ENUM: true/false, yes/no, on/off, 1/0 also (a bare key is true) */
        int if_true, if_false; /* ENUM: the field's value for a boolean */
        uint64_t min, max;     /* UINT, SIZE */
        const char *what; /* WORDS: what a word is, "%s" the backend ("a %s security flavour") */
        const char *note; /* WORDS: why a backend lacks some words, after their list */
        unsigned group;   /* NFS_GROUP_* */
} nfs_setting_t;

/* The security flavours (sec=), for the table and the renderers. */
extern const nfs_word_t nfs_sec_words[];

/* The table of every [server] key; *n gets its length. */
const nfs_setting_t *nfs_settings_table(size_t *n);

/* A checked [server] section. Tri-state fields are -1 when not given. */
typedef struct nfs_export {
        int backend; /* NFS_BACKEND_KERNEL or NFS_BACKEND_GANESHA */
        char path[1024];
        char pseudo[1024]; /* ganesha; "" = same as path */
        char clients[256]; /* default "*" */
        int ro;            /* 0 rw, 1 ro; the other ints are -1 (NFS_*_UNSET) when not given */
        int sync;
        int squash;
        int wdelay;
        int subtree_check;
        char fsid[64];
        unsigned sec;      /* NFS_SEC_*, 0 = not given */
        unsigned versions; /* NFS_V*, 0 = not given */
        unsigned threads;  /* 0 = not given */
        uint64_t max_read, max_write; /* 0 = not given */
        int delegations;
        int nfs_commit;
        unsigned transports; /* NFS_TRANSPORT_*, 0 = not given */
        unsigned export_id;  /* ganesha, default 1 */
} nfs_export_t;

/* Checks settings for backend ("kernel" or "ganesha"; NULL = the settings' own backend key).
 * 0 or -EINVAL with err naming the line, the key, the value and what is allowed. */
int nfs_settings_check(const char *backend, const kvlist_t *settings, char *err, size_t errlen);
/* As nfs_settings_check(), filling *out (untouched on error). */
int nfs_settings_parse(const char *backend, const kvlist_t *settings, nfs_export_t *out,
                       char *err, size_t errlen);

/* The kernel export line, e.g. "/nfs/export1 *(rw,no_root_squash,sync)", no newline;
 * *ret is malloc'd. 0 or -ENOMEM. */
int nfs_render_kernel_export(const nfs_export_t *e, char **ret);
/* The [nfsd] keys of nfs.conf to set (threads, vers3, vers4, vers4.0..vers4.2) appended to
 * keys, in that order; none when the settings name neither threads nor versions. */
int nfs_render_nfsd_conf(const nfs_export_t *e, kvlist_t *keys);
/* The ganesha EXPORT { ... } block, several lines ending in a newline; *ret is malloc'd. */
int nfs_render_ganesha_export(const nfs_export_t *e, char **ret);

/* Edits an INI file's text (nfs.conf syntax) so that section's keys hold the given values and
 * every other byte stays: an active "key = value" line in that section is rewritten in place
 * (its line ending kept), a missing key is inserted right after the section header, a missing
 * section is appended at the end. Comments ("# threads=8") are left alone. *out is malloc'd;
 * *changed tells whether anything differs. 0 or -ENOMEM. */
int nfs_conf_edit(const char *in, size_t inlen, const char *section, const kvlist_t *keys,
                  char **out, size_t *outlen, bool *changed);
