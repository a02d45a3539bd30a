/* Unit tests for keys: CURVE pairs written and read back, file modes, load errors, the allow-list
 * keyring. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <endian.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>
#include <zmq.h>

#include "keys.h"
#include "util.h"

#define assert_contains(hay, needle)                                                               \
        do {                                                                                       \
                if (!strstr((hay), (needle)))                                                      \
                        fail_msg("'%s' does not mention '%s'", (hay), (needle));                   \
        } while (0)

typedef struct fixture {
        char dir[64];
        char path[256];
        char err[1024];
} fixture_t;

static int setup(void **state)
{
        fixture_t *f = calloc(1, sizeof(*f));
        if (!f)
                return -1;
        strcpy(f->dir, "/tmp/test-keys.XXXXXX");
        if (!mkdtemp(f->dir))
                return -1;
        *state = f;
        return 0;
}

static int teardown(void **state)
{
        fixture_t *f = *state;
        char cmd[128];
        snprintf(cmd, sizeof(cmd), "rm -rf '%s'", f->dir);
        if (system(cmd) != 0)
                return -1;
        free(f);
        return 0;
}

static const char *path_in(fixture_t *f, const char *dir, const char *name)
{
        snprintf(f->path, sizeof(f->path), "%s/%s", dir, name);
        return f->path;
}

static const char *write_text(fixture_t *f, const char *name, const char *text)
{
        FILE *fp = fopen(path_in(f, f->dir, name), "we");
        assert_non_null(fp);
        assert_int_equal(fputs(text, fp) >= 0, 1);
        assert_int_equal(fclose(fp), 0);
        /* Key files are private, as keygen writes them. */
        assert_int_equal(chmod(f->path, 0600), 0);
        return f->path;
}

static void gen(keypair_t *kp)
{
        if (!zmq_has("curve"))
                skip();
        assert_int_equal(keys_generate(kp), 0);
}

static mode_t mode_of(const char *path)
{
        struct stat st;
        assert_int_equal(stat(path, &st), 0);
        return st.st_mode & 07777;
}

static void test_generate(void **state)
{
        keypair_t a, b;
        char derived[KEY_Z85_LEN + 1];

        gen(&a);
        gen(&b);
        assert_int_equal(strlen(a.public_z85), KEY_Z85_LEN);
        assert_int_equal(strlen(a.secret_z85), KEY_Z85_LEN);
        assert_true(keys_valid_z85(a.public_z85));
        assert_true(keys_valid_z85(a.secret_z85));
        assert_string_not_equal(a.public_z85, b.public_z85);
        assert_int_equal(zmq_curve_public(derived, a.secret_z85), 0);
        assert_string_equal(derived, a.public_z85);

        assert_false(keys_valid_z85(NULL));
        assert_false(keys_valid_z85(""));
        {
                char s[KEY_Z85_LEN + 2];
                memcpy(s, a.public_z85, KEY_Z85_LEN + 1);
                s[KEY_Z85_LEN - 1] = 0;
                assert_false(keys_valid_z85(s)); /* 39 */
                memcpy(s, a.public_z85, KEY_Z85_LEN);
                s[KEY_Z85_LEN] = 'a';
                s[KEY_Z85_LEN + 1] = 0;
                assert_false(keys_valid_z85(s)); /* 41 */
                memcpy(s, a.public_z85, KEY_Z85_LEN + 1);
                s[7] = '~'; /* not in the Z85 alphabet */
                assert_false(keys_valid_z85(s));
                s[7] = ' ';
                assert_false(keys_valid_z85(s));
        }
}

static void test_write_load(void **state)
{
        fixture_t *f = *state;
        keypair_t kp, got;
        char text[512];
        FILE *fp;
        size_t n;

        gen(&kp);
        assert_int_equal(keys_write(f->dir, "node-1", &kp, false, f->err, sizeof(f->err)), 0);
        assert_int_equal(mode_of(path_in(f, f->dir, "node-1.key")), 0600);
        assert_int_equal(keys_load(f->path, true, &got, f->err, sizeof(f->err)), 0);
        assert_string_equal(got.public_z85, kp.public_z85);
        assert_string_equal(got.secret_z85, kp.secret_z85);

        assert_int_equal(mode_of(path_in(f, f->dir, "node-1.pub")), 0644);
        assert_int_equal(keys_load(f->path, false, &got, f->err, sizeof(f->err)), 0);
        assert_string_equal(got.public_z85, kp.public_z85);
        assert_string_equal(got.secret_z85, "");

        /* The .pub file holds no secret at all. */
        fp = fopen(f->path, "re");
        assert_non_null(fp);
        n = fread(text, 1, sizeof(text) - 1, fp);
        text[n] = 0;
        fclose(fp);
        assert_null(strstr(text, kp.secret_z85));
        assert_null(strstr(text, "secret-key"));
        assert_contains(text, "[curve]");

        /* A .key file also serves where only the public key is needed. */
        assert_int_equal(
            keys_load(path_in(f, f->dir, "node-1.key"), false, &got, f->err, sizeof(f->err)), 0);
        assert_string_equal(got.public_z85, kp.public_z85);

        /* Names with dots, dashes and underscores are fine. */
        assert_int_equal(keys_write(f->dir, "a.b_c-D9", &kp, false, f->err, sizeof(f->err)), 0);
}

static void test_write_refusals(void **state)
{
        fixture_t *f = *state;
        keypair_t kp, kp2, got;
        char long_name[66];

        gen(&kp);
        gen(&kp2);
        assert_int_equal(keys_write(f->dir, "n", &kp, false, f->err, sizeof(f->err)), 0);
        assert_int_equal(keys_write(f->dir, "n", &kp2, false, f->err, sizeof(f->err)), -EEXIST);
        assert_contains(f->err, "n.key");
        assert_contains(f->err, "--force");
        assert_int_equal(keys_load(path_in(f, f->dir, "n.key"), true, &got, f->err, sizeof(f->err)),
                         0);
        assert_string_equal(got.secret_z85, kp.secret_z85); /* untouched */

        assert_int_equal(keys_write(f->dir, "n", &kp2, true, f->err, sizeof(f->err)), 0);
        assert_int_equal(keys_load(path_in(f, f->dir, "n.key"), true, &got, f->err, sizeof(f->err)),
                         0);
        assert_string_equal(got.secret_z85, kp2.secret_z85);
        assert_int_equal(mode_of(f->path), 0600);
        assert_int_equal(
            keys_load(path_in(f, f->dir, "n.pub"), false, &got, f->err, sizeof(f->err)), 0);
        assert_string_equal(got.public_z85, kp2.public_z85);

        /* A forced write tightens a key file someone loosened. */
        assert_int_equal(chmod(path_in(f, f->dir, "n.key"), 0644), 0);
        assert_int_equal(keys_write(f->dir, "n", &kp2, true, f->err, sizeof(f->err)), 0);
        assert_int_equal(mode_of(path_in(f, f->dir, "n.key")), 0600);

        memset(long_name, 'x', 65);
        long_name[65] = 0;
        static const char *bad[] = {"", ".hidden", "a/b", "../up", "sp ace", "semi;colon"};
        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                assert_int_equal(keys_write(f->dir, bad[i], &kp, false, f->err, sizeof(f->err)),
                                 -EINVAL);
                assert_contains(f->err, "key name");
        }
        assert_int_equal(keys_write(f->dir, long_name, &kp, false, f->err, sizeof(f->err)),
                         -EINVAL);
        assert_int_equal(keys_write(f->dir, NULL, &kp, false, f->err, sizeof(f->err)), -EINVAL);
        long_name[64] = 0;
        assert_int_equal(keys_write(f->dir, long_name, &kp, false, f->err, sizeof(f->err)), 0);

        /* A directory that does not exist. */
        assert_int_equal(
            keys_write(path_in(f, f->dir, "nodir"), "n", &kp, false, f->err, sizeof(f->err)),
            -ENOENT);
        assert_contains(f->err, "nodir/n.key");
}

/* Loads text from a file and expects -EINVAL with an error naming the file and needle; kp must
 * stay untouched. */
static void expect_load_error(fixture_t *f, const char *text, bool need_secret, const char *needle)
{
        keypair_t kp, before;
        const char *p = write_text(f, "x.key", text);
        int r;

        memset(&kp, 0x41, sizeof(kp));
        before = kp;
        f->err[0] = 0;
        r = keys_load(p, need_secret, &kp, f->err, sizeof(f->err));
        if (r != -EINVAL)
                fail_msg("expected -EINVAL, got %d (%s) for:\n%s", r, f->err, text);
        assert_contains(f->err, p);
        assert_contains(f->err, needle);
        assert_memory_equal(&kp, &before, sizeof(kp));
}

static void test_load_errors(void **state)
{
        fixture_t *f = *state;
        keypair_t a, b, kp;
        char text[512], bad[KEY_Z85_LEN + 1];

        gen(&a);
        gen(&b);

        assert_int_equal(
            keys_load(path_in(f, f->dir, "missing.key"), false, &kp, f->err, sizeof(f->err)),
            -ENOENT);
        assert_contains(f->err, "missing.key");

        snprintf(text, sizeof(text), "[keys]\npublic-key = %s\n", a.public_z85);
        expect_load_error(f, text, false, ":2: unexpected section [keys]");
        snprintf(text, sizeof(text), "public-key = %s\n", a.public_z85);
        expect_load_error(f, text, false, ":1: unexpected section []");

        snprintf(text, sizeof(text), "[curve]\npublic-key = %s\nprivate-key = %s\n", a.public_z85,
                 a.secret_z85);
        expect_load_error(f, text, false, ":3: unknown key 'private-key'");

        memcpy(bad, a.public_z85, sizeof(bad));
        bad[3] = '~';
        snprintf(text, sizeof(text), "[curve]\npublic-key = %s\n", bad);
        expect_load_error(f, text, false, ":2: public-key is not a 40-character Z85");
        snprintf(text, sizeof(text), "[curve]\npublic-key = %.39s\n", a.public_z85);
        expect_load_error(f, text, false, "public-key is not");
        snprintf(text, sizeof(text), "[curve]\npublic-key = %s\nsecret-key = %sA\n", a.public_z85,
                 a.secret_z85);
        expect_load_error(f, text, true, ":3: secret-key is not");
        snprintf(text, sizeof(text), "[curve]\npublic-key =\n");
        expect_load_error(f, text, false, "public-key is not");

        /* A .pub file where a secret is needed. */
        snprintf(text, sizeof(text), "[curve]\npublic-key = %s\n", a.public_z85);
        expect_load_error(f, text, true, "not a .pub file");

        /* A secret key without the public key. */
        snprintf(text, sizeof(text), "[curve]\nsecret-key = %s\n", a.secret_z85);
        expect_load_error(f, text, true, "no public-key");
        expect_load_error(f, "", false, "no public-key");
        expect_load_error(f, "# only a comment\n[curve]\n", false, "no public-key");

        /* Halves of two different pairs. */
        snprintf(text, sizeof(text), "[curve]\npublic-key = %s\nsecret-key = %s\n", a.public_z85,
                 b.secret_z85);
        expect_load_error(f, text, true, "does not belong");

        /* Not INI at all. */
        expect_load_error(f, "-----BEGIN PRIVATE KEY-----\n", false, ":1: not an INI line");

        /* Comments, blank lines and surrounding spaces are fine; a later line wins. */
        snprintf(text, sizeof(text),
                 "# mine\n\n[curve]\npublic-key =   %s  \nsecret-key=%s\npublic-key = %s\n",
                 b.public_z85, a.secret_z85, a.public_z85);
        assert_int_equal(
            keys_load(write_text(f, "ok.key", text), true, &kp, f->err, sizeof(f->err)), 0);
        assert_string_equal(kp.public_z85, a.public_z85);
        assert_string_equal(kp.secret_z85, a.secret_z85);
}

/* Writes an access ACL of (tag, perm, id) triples. false when the file system has no ACLs. */
static bool set_acl(const char *path, const uint32_t (*e)[3], size_t n)
{
        uint8_t buf[4 + 8 * 8];
        uint32_t v = htole32(2);
        memcpy(buf, &v, 4);
        for (size_t i = 0; i < n; i++) {
                uint16_t tag = htole16((uint16_t)e[i][0]), perm = htole16((uint16_t)e[i][1]);
                uint32_t id = htole32(e[i][2]);
                memcpy(buf + 4 + 8 * i, &tag, 2);
                memcpy(buf + 6 + 8 * i, &perm, 2);
                memcpy(buf + 8 + 8 * i, &id, 4);
        }
        return setxattr(path, "system.posix_acl_access", buf, 4 + 8 * n, 0) == 0;
}

/* A secret key its group or others may read or write is refused, naming the command that fixes
 * it; a public key may be read by anyone; systemd's LoadCredential= copy (0400 with an ACL entry
 * granting the service's user read access) is accepted. */
static void test_secret_mode(void **state)
{
        fixture_t *f = *state;
        keypair_t a, kp;
        char text[512], fix[300];
        static const mode_t loose[] = {0644, 0640, 0604, 0620, 0602, 0660, 0666};
        enum { USER_OBJ = 1, USER = 2, GROUP_OBJ = 4, MASK = 16, OTHER = 32 };

        gen(&a);
        snprintf(text, sizeof(text), "[curve]\npublic-key = %s\nsecret-key = %s\n", a.public_z85,
                 a.secret_z85);
        write_text(f, "s.key", text);
        snprintf(fix, sizeof(fix), "chmod 600 %s", f->path);
        for (size_t i = 0; i < ELEMENTSOF(loose); i++) {
                assert_int_equal(chmod(f->path, loose[i]), 0);
                memset(&kp, 0, sizeof(kp));
                assert_int_equal(keys_load(f->path, true, &kp, f->err, sizeof(f->err)), -EPERM);
                assert_contains(f->err, fix);
                assert_string_equal(kp.secret_z85, ""); /* untouched */
        }
        /* Owner-only modes are fine; read as a public key, a loose mode does not matter. */
        assert_int_equal(chmod(f->path, 0400), 0);
        assert_int_equal(keys_load(f->path, true, &kp, f->err, sizeof(f->err)), 0);
        assert_int_equal(chmod(f->path, 0600), 0);
        assert_int_equal(keys_load(f->path, true, &kp, f->err, sizeof(f->err)), 0);
        assert_string_equal(kp.secret_z85, a.secret_z85);
        assert_int_equal(chmod(f->path, 0644), 0);
        assert_int_equal(keys_load(f->path, false, &kp, f->err, sizeof(f->err)), 0);

        /* ACLs: the group bits of the mode show the mask, not the group's own permission. */
        {
                const uint32_t self[][3] = {{USER_OBJ, 4, 0}, {USER, 4, (uint32_t)geteuid()},
                                            {GROUP_OBJ, 0, 0}, {MASK, 4, 0}, {OTHER, 0, 0}};
                const uint32_t stranger[][3] = {{USER_OBJ, 4, 0}, {USER, 4, 4242},
                                                {GROUP_OBJ, 0, 0}, {MASK, 4, 0}, {OTHER, 0, 0}};
                const uint32_t masked[][3] = {{USER_OBJ, 6, 0}, {USER, 6, 4242},
                                              {GROUP_OBJ, 4, 0}, {MASK, 0, 0}, {OTHER, 0, 0}};
                const uint32_t group[][3] = {{USER_OBJ, 6, 0}, {GROUP_OBJ, 4, 0}, {MASK, 4, 0},
                                             {OTHER, 0, 0}};
                if (!set_acl(f->path, self, ELEMENTSOF(self))) {
                        /* No ACL support here: what the mode says was tested above. */
                        return;
                }
                /* LoadCredential=: root's file, mode 0440 on stat, this user may read it. */
                assert_int_equal(keys_load(f->path, true, &kp, f->err, sizeof(f->err)), 0);
                assert_true(set_acl(f->path, stranger, ELEMENTSOF(stranger)));
                assert_int_equal(keys_load(f->path, true, &kp, f->err, sizeof(f->err)), -EPERM);
                assert_contains(f->err, "user 4242");
                assert_contains(f->err, "setfacl -b");
                assert_contains(f->err, fix);
                /* A mask of nothing grants nothing. */
                assert_true(set_acl(f->path, masked, ELEMENTSOF(masked)));
                assert_int_equal(keys_load(f->path, true, &kp, f->err, sizeof(f->err)), 0);
                assert_true(set_acl(f->path, group, ELEMENTSOF(group)));
                assert_int_equal(keys_load(f->path, true, &kp, f->err, sizeof(f->err)), -EPERM);
                assert_contains(f->err, "its group");
        }
}

static void test_keyring(void **state)
{
        fixture_t *f = *state;
        keypair_t kp[3], other;
        static const char *names[3] = {"zeta", "alpha", "node-7"};
        keyring_t *kr = NULL;
        uint8_t bin[32];

        for (size_t i = 0; i < 3; i++) {
                gen(&kp[i]);
                assert_int_equal(
                    keys_write(f->dir, names[i], &kp[i], false, f->err, sizeof(f->err)), 0);
        }
        gen(&other);
        /* Ignored: not *.pub, hidden, the bare suffix. */
        write_text(f, "README", "not a key\n");
        write_text(f, ".hidden.pub", "garbage\n");
        write_text(f, ".pub", "garbage\n");
        write_text(f, "x.pub.bak", "garbage\n");

        assert_int_equal(keyring_load_dir(f->dir, &kr, f->err, sizeof(f->err)), 0);
        assert_non_null(kr);
        assert_int_equal(keyring_size(kr), 3);
        for (size_t i = 0; i < 3; i++) {
                assert_non_null(zmq_z85_decode(bin, kp[i].public_z85));
                assert_non_null(keyring_lookup(kr, bin));
                assert_string_equal(keyring_lookup(kr, bin), names[i]);
                /* a secret key is not a public one */
                assert_non_null(zmq_z85_decode(bin, kp[i].secret_z85));
                assert_null(keyring_lookup(kr, bin));
        }
        assert_non_null(zmq_z85_decode(bin, other.public_z85));
        assert_null(keyring_lookup(kr, bin));
        memset(bin, 0, sizeof(bin));
        assert_null(keyring_lookup(kr, bin));
        keyring_free(&kr);
        assert_null(kr);
        keyring_free(&kr);
        assert_int_equal(keyring_size(NULL), 0);
        assert_null(keyring_lookup(NULL, bin));

        /* One malformed file fails the whole load, naming it; *ret is untouched. */
        write_text(f, "broken.pub", "[curve]\npublic-key = short\n");
        kr = (keyring_t *)0x1;
        assert_int_equal(keyring_load_dir(f->dir, &kr, f->err, sizeof(f->err)), -EINVAL);
        assert_true(kr == (keyring_t *)0x1);
        assert_contains(f->err, "broken.pub");
        kr = NULL;
        unlink(f->path);

        /* A key's name becomes an agent's name: one that could not be is refused, naming it. */
        assert_int_equal(keys_write(f->dir, "ok", &other, false, f->err, sizeof(f->err)), 0);
        {
                char from[300];
                snprintf(from, sizeof(from), "%s", path_in(f, f->dir, "ok.pub"));
                assert_int_equal(rename(from, path_in(f, f->dir, "web 01.pub")), 0);
        }
        assert_int_equal(keyring_load_dir(f->dir, &kr, f->err, sizeof(f->err)), -EINVAL);
        assert_contains(f->err, "web 01.pub");
        assert_contains(f->err, "rename the file");
        assert_null(kr);
        unlink(path_in(f, f->dir, "web 01.pub"));
        assert_int_equal(keyring_load_dir(f->dir, &kr, f->err, sizeof(f->err)), 0);
        assert_true(keyring_lookup_name(kr, "node-7", bin));
        {
                uint8_t want[32];
                assert_non_null(zmq_z85_decode(want, kp[2].public_z85));
                assert_memory_equal(bin, want, 32);
        }
        assert_false(keyring_lookup_name(kr, "node", NULL));
        assert_false(keyring_lookup_name(NULL, "node-7", NULL));
        keyring_free(&kr);
}

static void test_keyring_empty(void **state)
{
        fixture_t *f = *state;
        keyring_t *kr = NULL;
        uint8_t bin[32] = {1};

        /* Missing directory: an empty ring, nobody may connect. */
        assert_int_equal(keyring_load_dir(path_in(f, f->dir, "none"), &kr, f->err, sizeof(f->err)),
                         0);
        assert_non_null(kr);
        assert_int_equal(keyring_size(kr), 0);
        assert_null(keyring_lookup(kr, bin));
        keyring_free(&kr);

        /* Empty directory: the same. */
        assert_int_equal(keyring_load_dir(f->dir, &kr, f->err, sizeof(f->err)), 0);
        assert_int_equal(keyring_size(kr), 0);
        keyring_free(&kr);

        /* A file where the directory should be is an error that names it. */
        write_text(f, "file", "x\n");
        assert_true(keyring_load_dir(f->path, &kr, f->err, sizeof(f->err)) < 0);
        assert_null(kr);
        assert_contains(f->err, "file");
}

#define TEST(t) cmocka_unit_test_setup_teardown(t, setup, teardown)

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_generate), TEST(test_write_load), TEST(test_write_refusals),
            TEST(test_load_errors),          TEST(test_keyring),    TEST(test_keyring_empty),
            TEST(test_secret_mode),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
