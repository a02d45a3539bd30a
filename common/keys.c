/* CURVE key pairs in files, and the allow-list of public keys a coordinator accepts. */
#include "keys.h"

#include <ctype.h>
#include <dirent.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <ini.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <zmq.h>

#include "config.h"
#include "util.h"

int keys_generate(keypair_t *kp)
{
        memset(kp, 0, sizeof(*kp));
        if (!zmq_has("curve"))
                return -EOPNOTSUPP;
        if (zmq_curve_keypair(kp->public_z85, kp->secret_z85) < 0)
                return -errno;
        return 0;
}

bool keys_valid_z85(const char *s)
{
        uint8_t bin[32];
        if (!s || strlen(s) != KEY_Z85_LEN)
                return false;
        return zmq_z85_decode(bin, s) != NULL;
}

static int write_file(const char *path, mode_t mode, const char *text, bool force, char *err,
                      size_t errlen)
{
        _cleanup_(closep) int fd = -1;
        size_t n = strlen(text);
        int flags = O_WRONLY | O_CREAT | O_CLOEXEC | (force ? O_TRUNC : O_EXCL);

        fd = open(path, flags, mode);
        if (fd < 0)
                return errorf(err, errlen, -errno, "%s: %s%s", path, strerror(errno),
                              errno == EEXIST ? " (use --force to replace it)" : "");
        if (fchmod(fd, mode) < 0 || write(fd, text, n) != (ssize_t)n || fsync(fd) < 0)
                return errorf(err, errlen, errno ? -errno : -EIO, "%s: %s", path, strerror(errno));
        return 0;
}

bool keys_name_ok(const char *name)
{
        if (strempty(name) || strlen(name) > 64 || name[0] == '.')
                return false;
        for (const char *p = name; *p; p++)
                if (!(isalnum((unsigned char)*p) || *p == '-' || *p == '_' || *p == '.'))
                        return false;
        return true;
}

int keys_write(const char *dir, const char *name, const keypair_t *kp, bool force, char *err,
               size_t errlen)
{
        char path[4096], text[512];
        int r;

        if (!keys_name_ok(name))
                return errorf(err, errlen, -EINVAL,
                              "key name '%s': use 1-64 of A-Z a-z 0-9 . _ - (not starting with .)",
                              name ? name : "");
        snprintf(text, sizeof(text),
                 "# iofleet CURVE key pair '%s': keep this file secret (mode 0600)\n"
                 "[curve]\npublic-key = %s\nsecret-key = %s\n",
                 name, kp->public_z85, kp->secret_z85);
        snprintf(path, sizeof(path), "%s/%s.key", dir, name);
        if ((r = write_file(path, 0600, text, force, err, errlen)) < 0)
                return r;
        snprintf(text, sizeof(text),
                 "# iofleet CURVE public key '%s': copy to the peers that must trust it\n"
                 "[curve]\npublic-key = %s\n",
                 name, kp->public_z85);
        snprintf(path, sizeof(path), "%s/%s.pub", dir, name);
        return write_file(path, 0644, text, force, err, errlen);
}

struct load_ctx {
        keypair_t *kp;
        const char *path;
        char *err;
        size_t errlen;
        int r;
};

static int load_handler(void *user, const char *section, const char *name, const char *value,
                        int lineno)
{
        struct load_ctx *c = user;
        char *dst;

        if (streq(section, "iofleet") && streq(name, "roles")) {
                /* Only storage and client, each at most once: the registry compares them. */
                char copy[KEY_ROLES_LEN];
                bool storage = false, client = false, ok = strlen(value) < sizeof(copy);
                snprintf(copy, sizeof(copy), "%s", value);
                for (char *save = NULL, *w = strtok_r(copy, ", ", &save); ok && w;
                     w = strtok_r(NULL, ", ", &save)) {
                        bool *seen = streq(w, "storage") ? &storage
                                     : streq(w, "client") ? &client
                                                          : NULL;
                        ok = seen && !*seen;
                        if (seen)
                                *seen = true;
                }
                if (!ok) {
                        c->r = errorf(c->err, c->errlen, -EINVAL,
                                      "%s:%d: roles '%s': allowed: storage, client (comma-joined, "
                                      "each once)",
                                      c->path, lineno, value);
                        return 0;
                }
                snprintf(c->kp->roles, sizeof(c->kp->roles), "%s%s%s", client ? "client" : "",
                         client && storage ? "," : "", storage ? "storage" : "");
                return 1;
        }
        if (!streq(section, "curve")) {
                c->r = errorf(c->err, c->errlen, -EINVAL,
                              "%s:%d: unexpected section [%s], only [curve] (and [iofleet] roles) "
                              "is allowed",
                              c->path, lineno, section);
                return 0;
        }
        if (streq(name, "public-key"))
                dst = c->kp->public_z85;
        else if (streq(name, "secret-key"))
                dst = c->kp->secret_z85;
        else {
                c->r = errorf(c->err, c->errlen, -EINVAL,
                              "%s:%d: unknown key '%s', allowed: public-key, secret-key", c->path,
                              lineno, name);
                return 0;
        }
        if (!keys_valid_z85(value)) {
                c->r = errorf(c->err, c->errlen, -EINVAL,
                              "%s:%d: %s is not a %d-character Z85 CURVE key", c->path, lineno,
                              name, KEY_Z85_LEN);
                return 0;
        }
        memcpy(dst, value, KEY_Z85_LEN + 1);
        return 1;
}

/* The Linux ACL xattr (linux/posix_acl_xattr.h): a version, then (tag, perm, id) entries. */
#define ACL_XATTR_VERSION 2
enum { ACL_USER_OBJ = 1, ACL_USER = 2, ACL_GROUP_OBJ = 4, ACL_GROUP = 8, ACL_MASK = 16,
       ACL_OTHER = 32 };
#define ACL_RW 6

/* Who besides the owner may read or write the file according to its ACL: 0, or -EPERM with err
 * naming them. -ENODATA when the file has no ACL (its mode bits tell everything). */
static int acl_check(const char *path, const struct stat *st, char *err, size_t errlen)
{
        uint8_t buf[4 + 8 * 64];
        ssize_t n = getxattr(path, "system.posix_acl_access", buf, sizeof(buf));
        unsigned mask = 7;
        uint32_t version;

        if (n < 0)
                return errno == ERANGE ? errorf(err, errlen, -EPERM,
                                                "%s: has a long ACL: a secret key must be private; "
                                                "run: setfacl -b %s; chmod 600 %s",
                                                path, path, path)
                                       : -ENODATA;
        memcpy(&version, buf, 4);
        if (n < 4 || le32toh(version) != ACL_XATTR_VERSION || (n - 4) % 8)
                return -ENODATA;
        for (ssize_t i = 4; i < n; i += 8) {
                uint16_t tag, perm;
                memcpy(&tag, buf + i, 2);
                memcpy(&perm, buf + i + 2, 2);
                if (le16toh(tag) == ACL_MASK)
                        mask = le16toh(perm);
        }
        for (ssize_t i = 4; i < n; i += 8) {
                uint16_t tag, perm;
                uint32_t id;
                char who[64];
                memcpy(&tag, buf + i, 2);
                memcpy(&perm, buf + i + 2, 2);
                memcpy(&id, buf + i + 4, 4);
                tag = le16toh(tag);
                perm = le16toh(perm);
                id = le32toh(id);
                /* The owner and this process's own user (systemd's LoadCredential= grants the
                 * service's user read access through an ACL entry) may read it. */
                if (tag == ACL_USER && id != st->st_uid && id != geteuid() &&
                    (perm & mask & ACL_RW))
                        snprintf(who, sizeof(who), "user %u", id);
                else if (tag == ACL_GROUP && (perm & mask & ACL_RW))
                        snprintf(who, sizeof(who), "group %u", id);
                else if (tag == ACL_GROUP_OBJ && (perm & mask & ACL_RW))
                        snprintf(who, sizeof(who), "its group");
                else if (tag == ACL_OTHER && (perm & ACL_RW))
                        snprintf(who, sizeof(who), "others");
                else
                        continue;
                return errorf(err, errlen, -EPERM,
                              "%s: its ACL lets %s read or write it: a secret key must be "
                              "private; run: setfacl -b %s; chmod 600 %s",
                              path, who, path, path);
        }
        return 0;
}

/* A secret key readable or writable by anyone but its owner is refused, with the command that
 * fixes it. */
static int check_private(const char *path, char *err, size_t errlen)
{
        struct stat st;
        int r;

        if (stat(path, &st) < 0)
                return 0; /* reading it says what is wrong */
        if (st.st_mode & (S_IROTH | S_IWOTH))
                return errorf(err, errlen, -EPERM,
                              "%s: readable or writable by others (mode %04o): a secret key must "
                              "be private; run: chmod 600 %s",
                              path, (unsigned)(st.st_mode & 07777), path);
        r = acl_check(path, &st, err, errlen);
        if (r != -ENODATA)
                return r;
        if (st.st_mode & (S_IRGRP | S_IWGRP))
                return errorf(err, errlen, -EPERM,
                              "%s: readable or writable by its group (mode %04o): a secret key "
                              "must be private; run: chmod 600 %s",
                              path, (unsigned)(st.st_mode & 07777), path);
        return 0;
}

int keys_load(const char *path, bool need_secret, keypair_t *kp, char *err, size_t errlen)
{
        keypair_t k = {};
        struct load_ctx c = {.kp = &k, .path = path, .err = err, .errlen = errlen};
        int r;

        r = config_parse_ini(path, load_handler, &c, err, errlen);
        if (r == -ECANCELED)
                return c.r;
        if (r < 0)
                return r;
        if (!k.public_z85[0])
                return errorf(err, errlen, -EINVAL, "%s: no public-key in [curve]", path);
        if (need_secret) {
                char derived[KEY_Z85_LEN + 1];
                if (!k.secret_z85[0])
                        return errorf(
                            err, errlen, -EINVAL,
                            "%s: no secret-key: this must be a .key file, not a .pub file", path);
                if (zmq_curve_public(derived, k.secret_z85) < 0 || !streq(derived, k.public_z85))
                        return errorf(err, errlen, -EINVAL,
                                      "%s: public-key does not belong to secret-key", path);
                /* Checked once the file is known to be a key pair, so that a .pub file given
                 * by mistake is named as such. */
                if ((r = check_private(path, err, errlen)) < 0)
                        return r;
        }
        *kp = k;
        return 0;
}

struct keyring {
        size_t n;
        uint8_t (*keys)[32];
        char **names;
        char (*roles)[KEY_ROLES_LEN];
};

static void keyring_clear(keyring_t *kr)
{
        for (size_t i = 0; i < kr->n; i++)
                free(kr->names[i]);
        free(kr->names);
        free(kr->keys);
        free(kr->roles);
}

void keyring_free(keyring_t **kr)
{
        if (*kr) {
                keyring_clear(*kr);
                free(*kr);
                *kr = NULL;
        }
}

static int name_cmp(const void *a, const void *b)
{
        return strcmp(*(char *const *)a, *(char *const *)b);
}

int keyring_load_dir(const char *dir, keyring_t **ret, char *err, size_t errlen)
{
        keyring_t *kr = calloc(1, sizeof(*kr));
        DIR *d;
        struct dirent *de;
        char **files = NULL;
        size_t nfiles = 0;
        int r = 0;

        if (!kr)
                return -ENOMEM;
        d = opendir(dir);
        if (!d) {
                if (errno == ENOENT) {
                        *ret = kr;
                        return 0;
                }
                r = errorf(err, errlen, -errno, "%s: %s", dir, strerror(errno));
                free(kr);
                return r;
        }
        while ((de = readdir(d))) {
                size_t len = strlen(de->d_name);
                char **nf;
                if (de->d_name[0] == '.' || len < 5 || !streq(de->d_name + len - 4, ".pub"))
                        continue;
                nf = realloc(files, (nfiles + 1) * sizeof(*files));
                if (!nf || !(nf[nfiles] = strdup(de->d_name))) {
                        files = nf ? nf : files;
                        r = -ENOMEM;
                        break;
                }
                files = nf;
                nfiles++;
        }
        closedir(d);
        if (r == 0 && nfiles) {
                /* Sorted so duplicate reports and logs are stable. */
                qsort(files, nfiles, sizeof(*files), name_cmp);
                kr->keys = calloc(nfiles, sizeof(*kr->keys));
                kr->names = calloc(nfiles, sizeof(*kr->names));
                kr->roles = calloc(nfiles, sizeof(*kr->roles));
                if (!kr->keys || !kr->names || !kr->roles)
                        r = -ENOMEM;
        }
        for (size_t i = 0; r == 0 && i < nfiles; i++) {
                char path[4096];
                keypair_t kp;
                snprintf(path, sizeof(path), "%s/%s", dir, files[i]);
                files[i][strlen(files[i]) - 4] = 0;
                /* The name becomes the agent's name, which goes into file names and logs. */
                if (!keys_name_ok(files[i])) {
                        r = errorf(err, errlen, -EINVAL,
                                   "%s: a key's name (its file name without .pub) must be 1-64 of "
                                   "A-Z a-z 0-9 . _ - not starting with '.': rename the file",
                                   path);
                        break;
                }
                if ((r = keys_load(path, false, &kp, err, errlen)) < 0)
                        break;
                zmq_z85_decode(kr->keys[kr->n], kp.public_z85);
                memcpy(kr->roles[kr->n], kp.roles, KEY_ROLES_LEN);
                kr->names[kr->n] = strdup(files[i]);
                if (!kr->names[kr->n]) {
                        r = -ENOMEM;
                        break;
                }
                kr->n++;
        }
        for (size_t i = 0; i < nfiles; i++)
                free(files[i]);
        free(files);
        if (r < 0) {
                keyring_free(&kr);
                return r;
        }
        *ret = kr;
        return 0;
}

const char *keyring_lookup(const keyring_t *kr, const uint8_t key[32])
{
        for (size_t i = 0; kr && i < kr->n; i++)
                if (memcmp(kr->keys[i], key, 32) == 0)
                        return kr->names[i];
        return NULL;
}

bool keyring_lookup_name(const keyring_t *kr, const char *name, uint8_t key[32])
{
        for (size_t i = 0; kr && i < kr->n; i++)
                if (streq(kr->names[i], name)) {
                        if (key)
                                memcpy(key, kr->keys[i], 32);
                        return true;
                }
        return false;
}

const char *keyring_roles(const keyring_t *kr, const char *name)
{
        for (size_t i = 0; kr && i < kr->n; i++)
                if (streq(kr->names[i], name))
                        return kr->roles[i];
        return NULL;
}

int keys_write_allowed(const char *dir, const char *name, const char *public_z85,
                       const char *roles, char *err, size_t errlen)
{
        char path[4096], tmp[4200], text[512];
        int r = 0;

        if (!keys_name_ok(name))
                return errorf(err, errlen, -EINVAL,
                              "key name '%s': use 1-64 of A-Z a-z 0-9 . _ - (not starting with .)",
                              name);
        if (!keys_valid_z85(public_z85))
                return errorf(err, errlen, -EINVAL, "not a %d-character Z85 CURVE key",
                              KEY_Z85_LEN);
        snprintf(text, sizeof(text),
                 "# iofleet CURVE public key '%s': the agent holding its secret key joins as %s\n"
                 "[curve]\npublic-key = %s\n%s%s%s",
                 name, name, public_z85, strempty(roles) ? "" : "[iofleet]\nroles = ",
                 strempty(roles) ? "" : roles, strempty(roles) ? "" : "\n");
        snprintf(path, sizeof(path), "%s/%s.pub", dir, name);
        /* A dot file: allow-list readers skip it while it is written. */
        snprintf(tmp, sizeof(tmp), "%s/.%s.pub.%d", dir, name, (int)getpid());
        unlink(tmp);
        if ((r = write_file(tmp, 0644, text, false, err, errlen)) < 0)
                return r;
        if (link(tmp, path) < 0)
                r = errorf(err, errlen, -errno, "%s: %s", path,
                           errno == EEXIST ? "already exists" : strerror(errno));
        unlink(tmp);
        if (r == 0) {
                _cleanup_(closep) int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
                if (dfd >= 0)
                        fsync(dfd);
        }
        return r;
}

size_t keyring_size(const keyring_t *kr)
{
        return kr ? kr->n : 0;
}
