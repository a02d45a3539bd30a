/* CURVE key pairs in files, and the allow-list of public keys a coordinator accepts. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define KEY_Z85_LEN 40

#define KEY_ROLES_LEN 32

typedef struct keypair {
        char public_z85[KEY_Z85_LEN + 1];
        char secret_z85[KEY_Z85_LEN + 1]; /* empty when only the public key is known */
        /* An allow-list entry's [iofleet] roles: the only roles its agent may claim, comma-joined
         * ("storage", "client", "client,storage"); empty: any. */
        char roles[KEY_ROLES_LEN];
} keypair_t;

/* Makes a new pair with libzmq's CURVE implementation; 0 or -errno. */
int keys_generate(keypair_t *kp);
/* True when s is 40 Z85 characters that decode to 32 bytes. */
bool keys_valid_z85(const char *s);
/* Writes DIR/NAME.key (both keys, mode 0600) and DIR/NAME.pub (public only, 0644). Refuses to
 * overwrite existing files unless force. err gets one line. */
int keys_write(const char *dir, const char *name, const keypair_t *kp, bool force, char *err,
               size_t errlen);
/* True when name may name a key: 1-64 of A-Z a-z 0-9 . _ - not starting with '.'. */
bool keys_name_ok(const char *name);
/* Puts DIR/NAME.pub (public key, and roles when not empty) on an allow-list: written beside it
 * and linked into place, so that readers never see half a file and an existing entry is never
 * replaced (-EEXIST). mode 0644. err gets one line. */
int keys_write_allowed(const char *dir, const char *name, const char *public_z85,
                       const char *roles, char *err, size_t errlen);
/* Reads a key file ([curve] public-key = ..., secret-key = ...; [iofleet] roles = ...). need_secret demands a secret
 * key; a secret key file's public key must match its secret key, and the file must be private:
 * -EPERM (err names the chmod that fixes it) when its group or others may read or write it,
 * through its mode or an ACL (an ACL entry for this process's own user, which systemd's
 * LoadCredential= adds, is fine). */
int keys_load(const char *path, bool need_secret, keypair_t *kp, char *err, size_t errlen);

/* Public keys allowed to connect, each with the file name it came from. */
typedef struct keyring keyring_t;
/* Loads every *.pub file of dir; any malformed file, or a file name that is not a valid agent name
 * (1-64 of A-Z a-z 0-9 . _ -), fails the whole load with one line naming it. An empty or missing
 * directory gives an empty ring (nobody may connect). */
int keyring_load_dir(const char *dir, keyring_t **ret, char *err, size_t errlen);
/* Name (file name without .pub) of the entry holding this 32-byte key, or NULL. */
const char *keyring_lookup(const keyring_t *kr, const uint8_t key[32]);
/* True when the ring has an entry of that name; its key goes to key (when not NULL). */
bool keyring_lookup_name(const keyring_t *kr, const char *name, uint8_t key[32]);
/* The roles entry name is limited to ("" = any; NULL when there is no such entry). */
const char *keyring_roles(const keyring_t *kr, const char *name);
size_t keyring_size(const keyring_t *kr);
void keyring_free(keyring_t **kr);
