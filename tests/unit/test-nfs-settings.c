/* Unit tests for nfs-settings: every [server] key per backend, every error path, the rendered
 * export line, nfs.conf keys, ganesha block, and the nfs.conf line editor. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kv.h"
#include "nfs-settings.h"
#include "util.h"

#define assert_contains(hay, needle)                                                               \
        do {                                                                                       \
                if (!strstr((hay), (needle)))                                                      \
                        fail_msg("'%s' does not mention '%s'", (hay), (needle));                   \
        } while (0)

/* Builds a list from "key=value" strings (a string without '=' is a bare key), line i+1. */
static void build(kvlist_t *l, const char *const *kvs)
{
        for (int i = 0; kvs[i]; i++) {
                const char *eq = strchr(kvs[i], '=');
                char key[128];
                snprintf(key, sizeof(key), "%.*s", eq ? (int)(eq - kvs[i]) : (int)strlen(kvs[i]),
                         kvs[i]);
                assert_int_equal(kv_push(l, key, eq ? eq + 1 : "", i + 1), 0);
        }
}

static int check(const char *backend, const char *const *kvs, char *err, size_t errlen)
{
        kvlist_t l = {0};
        build(&l, kvs);
        err[0] = 0;
        int r = nfs_settings_check(backend, &l, err, errlen);
        kv_clear(&l);
        return r;
}

static nfs_export_t parse_ok(const char *backend, const char *const *kvs)
{
        kvlist_t l = {0};
        build(&l, kvs);
        char err[512] = "";
        nfs_export_t e;
        int r = nfs_settings_parse(backend, &l, &e, err, sizeof(err));
        if (r < 0)
                fail_msg("unexpected error: %s", err);
        kv_clear(&l);
        return e;
}

/* An error that mentions every needle (NULL-terminated). */
static void expect_err(const char *backend, const char *const *kvs, ...)
{
        char err[512];
        int r = check(backend, kvs, err, sizeof(err));
        if (r != -EINVAL)
                fail_msg("expected -EINVAL, got %d (err '%s')", r, err);
        va_list ap;
        va_start(ap, kvs);
        for (const char *n; (n = va_arg(ap, const char *));)
                assert_contains(err, n);
        va_end(ap);
}

#define L(...) ((const char *const[]){__VA_ARGS__, NULL})

static void test_minimal(void **state)
{
        nfs_export_t e = parse_ok("kernel", L("path=/nfs/export1"));
        assert_int_equal(e.backend, NFS_BACKEND_KERNEL);
        assert_string_equal(e.path, "/nfs/export1");
        assert_string_equal(e.clients, "*");
        assert_false(e.ro);
        assert_int_equal(e.sync, -1);
        char *line;
        assert_int_equal(nfs_render_kernel_export(&e, &line), 0);
        assert_string_equal(line, "/nfs/export1 *(rw,no_subtree_check)");
        free(line);
        /* the backend from the settings themselves */
        e = parse_ok(NULL, L("backend=ganesha", "path=/x"));
        assert_int_equal(e.backend, NFS_BACKEND_GANESHA);
        assert_int_equal(e.export_id, 1);
        /* the same backend given twice is fine */
        e = parse_ok("kernel", L("backend=kernel", "path=/x"));
        assert_int_equal(e.backend, NFS_BACKEND_KERNEL);
}

static void test_backend_errors(void **state)
{
        expect_err(NULL, L("path=/x"), "backend: missing", "kernel", "ganesha", NULL);
        expect_err(NULL, L("path=/x", "backend=zfs"), "line 2: ", "backend: 'zfs'", "kernel, ganesha",
                   NULL);
        expect_err("zfs", L("path=/x"), "backend: 'zfs'", NULL);
        expect_err("kernel", L("backend=ganesha", "path=/x"), "line 1: ", "'ganesha'", "'kernel'",
                   NULL);
        expect_err("kernel", L("clients=*"), "path: missing", NULL);
}

static void test_workload1(void **state)
{
        /* write-up 1: /nfs/export1 *(rw,no_root_squash), threads=160; no_subtree_check unless the
         * plan says otherwise, so exportfs does not warn */
        nfs_export_t e = parse_ok("kernel", L("path=/nfs/export1", "rw", "no_root_squash", "threads=160"));
        char *line;
        assert_int_equal(nfs_render_kernel_export(&e, &line), 0);
        assert_string_equal(line, "/nfs/export1 *(rw,no_root_squash,no_subtree_check)");
        free(line);
        kvlist_t keys = {0};
        assert_int_equal(nfs_render_nfsd_conf(&e, &keys), 0);
        assert_int_equal(keys.n, 1);
        assert_string_equal(kv_get(&keys, "threads"), "160");
        kv_clear(&keys);
}

static void test_kernel_all_keys(void **state)
{
        nfs_export_t e = parse_ok("kernel",
                                  L("path=/srv/a", "clients=10.0.0.0/24", "access=ro", "sync=false",
                                    "root_squash=all_squash", "wdelay=no", "subtree_check=0",
                                    "fsid=7", "sec=sys,krb5p", "versions=3,4.2", "threads=16"));
        char *line;
        assert_int_equal(nfs_render_kernel_export(&e, &line), 0);
        assert_string_equal(line, "/srv/a 10.0.0.0/24(ro,async,all_squash,no_wdelay,"
                                  "no_subtree_check,fsid=7,sec=sys:krb5p)");
        free(line);
        kvlist_t keys = {0};
        assert_int_equal(nfs_render_nfsd_conf(&e, &keys), 0);
        assert_int_equal(keys.n, 6);
        assert_string_equal(keys.v[0].key, "threads");
        assert_string_equal(kv_get(&keys, "threads"), "16");
        assert_string_equal(kv_get(&keys, "vers3"), "y");
        assert_string_equal(kv_get(&keys, "vers4"), "y");
        assert_string_equal(kv_get(&keys, "vers4.0"), "n");
        assert_string_equal(kv_get(&keys, "vers4.1"), "n");
        assert_string_equal(kv_get(&keys, "vers4.2"), "y");
        kv_clear(&keys);

        /* the other spellings */
        e = parse_ok("kernel", L("path=/a", "async", "root_squash", "wdelay", "subtree_check=yes",
                                 "fsid=root", "versions=4"));
        assert_int_equal(nfs_render_kernel_export(&e, &line), 0);
        assert_string_equal(line, "/a *(rw,async,root_squash,wdelay,subtree_check,fsid=root)");
        free(line);
        assert_int_equal(nfs_render_nfsd_conf(&e, &keys), 0);
        assert_string_equal(kv_get(&keys, "vers3"), "n");
        assert_string_equal(kv_get(&keys, "vers4.1"), "y");
        kv_clear(&keys);
        e = parse_ok("kernel", L("path=/a", "sync=sync", "ro", "root_squash=false",
                                 "fsid=6ba7b810-9dad-11d1-80b4-00c04fd430c8"));
        assert_int_equal(nfs_render_kernel_export(&e, &line), 0);
        assert_string_equal(line, "/a *(ro,sync,no_root_squash,no_subtree_check,fsid=6ba7b810-9dad-11d1-80b4-00c04fd430c8)");
        free(line);
        /* subtree_check=false says what the default renders */
        e = parse_ok("kernel", L("path=/a", "subtree_check=false"));
        assert_int_equal(nfs_render_kernel_export(&e, &line), 0);
        assert_string_equal(line, "/a *(rw,no_subtree_check)");
        free(line);
        e = parse_ok("kernel", L("path=/a", "sync=async", "rw=false", "all_squash=true"));
        assert_true(e.ro);
        assert_int_equal(e.sync, 0);
        assert_int_equal(e.squash, NFS_SQUASH_ALL);
        e = parse_ok("kernel", L("path=/a", "async=false", "ro=false", "no_root_squash=false"));
        assert_false(e.ro);
        assert_int_equal(e.sync, 1);
        assert_int_equal(e.squash, NFS_SQUASH_ROOT);
        e = parse_ok("kernel", L("path=/a", "clients=@trusted"));
        assert_string_equal(e.clients, "@trusted");
        e = parse_ok("kernel", L("path=/a", "clients=*.example.com"));
        assert_string_equal(e.clients, "*.example.com");
        e = parse_ok("kernel", L("path=/a", "threads=1"));
        assert_int_equal(e.threads, 1);
        e = parse_ok("kernel", L("path=/a", "threads=8192"));
        assert_int_equal(e.threads, 8192);
}

static void test_kernel_errors(void **state)
{
        expect_err("kernel", L("path=relative"), "line 1: ", "path: 'relative'", "absolute", NULL);
        expect_err("kernel", L("path=/a b"), "path: '/a b'", NULL);
        expect_err("kernel", L("path=/a/../b"), "path:", NULL);
        expect_err("kernel", L("path=/a\"b"), "path:", NULL);
        expect_err("kernel", L("path=/a(rw)"), "path:", NULL);
        expect_err("kernel", L("path=/a", "clients="), "line 2: ", "clients: ''", NULL);
        expect_err("kernel", L("path=/a", "clients=a b"), "clients: 'a b'", NULL);
        expect_err("kernel", L("path=/a", "clients=x(rw)"), "clients:", NULL);
        expect_err("kernel", L("path=/a", "access=rwx"), "access: 'rwx'", "rw, ro", NULL);
        expect_err("kernel", L("path=/a", "rw=maybe"), "rw: 'maybe'", "true, false", NULL);
        expect_err("kernel", L("path=/a", "ro=2"), "ro: '2'", NULL);
        expect_err("kernel", L("path=/a", "sync=sometimes"), "sync: 'sometimes'", "async", NULL);
        expect_err("kernel", L("path=/a", "async=x"), "async: 'x'", NULL);
        expect_err("kernel", L("path=/a", "root_squash=some"), "root_squash: 'some'",
                   "no_root_squash", NULL);
        expect_err("kernel", L("path=/a", "no_root_squash=x"), "no_root_squash: 'x'", NULL);
        expect_err("kernel", L("path=/a", "all_squash=x"), "all_squash: 'x'", NULL);
        expect_err("kernel", L("path=/a", "wdelay=x"), "wdelay: 'x'", NULL);
        expect_err("kernel", L("path=/a", "subtree_check=x"), "subtree_check: 'x'", NULL);
        expect_err("kernel", L("path=/a", "fsid=-1"), "fsid: '-1'", "UUID", NULL);
        expect_err("kernel", L("path=/a", "fsid=4294967296"), "fsid: '4294967296'", NULL);
        expect_err("kernel", L("path=/a", "fsid=abc"), "fsid: 'abc'", NULL);
        expect_err("kernel", L("path=/a", "sec=sys,krb6"), "sec: 'krb6'", "krb5p", NULL);
        expect_err("kernel", L("path=/a", "sec=none"), "sec: 'none'", "kernel", NULL);
        expect_err("kernel", L("path=/a", "sec="), "sec: ''", NULL);
        expect_err("kernel", L("path=/a", "versions=2"), "versions: '2'", "3, 4, 4.0, 4.1, 4.2",
                   NULL);
        expect_err("kernel", L("path=/a", "versions=3,,4"), "versions: ''", NULL);
        expect_err("kernel", L("path=/a", "threads=0"), "threads: '0'", "1-8192", NULL);
        expect_err("kernel", L("path=/a", "threads=8193"), "threads: '8193'", "1-8192", NULL);
        expect_err("kernel", L("path=/a", "threads=-3"), "threads: '-3'", NULL);
        expect_err("kernel", L("path=/a", "threads=16k"), "threads: '16k'", NULL);
        expect_err("kernel", L("path=/a", "threads=99999999999999999999999"), "threads:", NULL);
        /* conflicts and repeats name both lines */
        expect_err("kernel", L("path=/a", "access=rw", "ro"), "line 3: ", "ro: conflicts with access",
                   "line 2", NULL);
        expect_err("kernel", L("path=/a", "sync", "async"), "line 3: ", "async: conflicts with sync",
                   NULL);
        expect_err("kernel", L("path=/a", "no_root_squash", "all_squash"), "all_squash: conflicts",
                   NULL);
        expect_err("kernel", L("path=/a", "threads=8", "threads=9"), "line 3: ", "threads: given twice",
                   "line 2", NULL);
        expect_err("kernel", L("path=/a", "path=/b"), "path: given twice", NULL);
        /* unknown keys list what the backend has */
        expect_err("kernel", L("path=/a", "nconnect=16"), "line 2: ", "'nconnect' is not a [server] setting",
                   "kernel has:", "threads", NULL);
        /* ganesha-only keys on the kernel */
        expect_err("kernel", L("path=/a", "max_read=1m"), "max_read: the kernel has no max_read", NULL);
        expect_err("kernel", L("path=/a", "max_write=1m"), "max_write: the kernel has no", NULL);
        expect_err("kernel", L("path=/a", "delegations=read"), "delegations: the kernel has no", NULL);
        expect_err("kernel", L("path=/a", "nfs_commit=true"), "nfs_commit: the kernel has no",
                   "sync/async", NULL);
        expect_err("kernel", L("path=/a", "transports=tcp"), "transports: the kernel has no", NULL);
        expect_err("kernel", L("path=/a", "pseudo=/p"), "pseudo: the kernel has no", NULL);
        expect_err("kernel", L("path=/a", "export_id=3"), "export_id: the kernel has no", NULL);
}

static void test_no_line(void **state)
{
        /* entries without a line number give no "line 0:" prefix */
        kvlist_t l = {0};
        assert_int_equal(kv_push(&l, "path", "/a", 0), 0);
        assert_int_equal(kv_push(&l, "threads", "0", 0), 0);
        char err[256];
        assert_int_equal(nfs_settings_check("kernel", &l, err, sizeof(err)), -EINVAL);
        assert_string_equal(err, "threads: '0' is not allowed; allowed: 1-8192");
        assert_int_equal(kv_push(&l, "access", "ro", 0), 0);
        assert_int_equal(kv_push(&l, "ro", "", 0), 0);
        kv_set(&l, "threads", "4");
        assert_int_equal(nfs_settings_check("kernel", &l, err, sizeof(err)), -EINVAL);
        assert_string_equal(err, "ro: conflicts with access given before");
        kv_clear(&l);
        assert_int_equal(nfs_settings_check("kernel", NULL, err, sizeof(err)), -EINVAL);
        assert_contains(err, "path: missing");
}

static void test_ganesha_all_keys(void **state)
{
        nfs_export_t e = parse_ok(
            "ganesha", L("path=/srv/export", "pseudo=/export", "export_id=7", "access=rw",
                         "no_root_squash", "sec=sys", "versions=3,4", "transports=tcp",
                         "max_read=1m", "max_write=65536", "delegations=readwrite", "nfs_commit=true"));
        char *b;
        assert_int_equal(nfs_render_ganesha_export(&e, &b), 0);
        assert_string_equal(b, "EXPORT {\n"
                               "\tExport_Id = 7;\n"
                               "\tPath = \"/srv/export\";\n"
                               "\tPseudo = \"/export\";\n"
                               "\tAccess_Type = RW;\n"
                               "\tSquash = No_Root_Squash;\n"
                               "\tSecType = sys;\n"
                               "\tProtocols = 3, 4;\n"
                               "\tTransports = TCP;\n"
                               "\tMaxRead = 1048576;\n"
                               "\tMaxWrite = 65536;\n"
                               "\tDelegations = Readwrite;\n"
                               "\tNFS_Commit = true;\n"
                               "\tFSAL {\n\t\tName = VFS;\n\t}\n"
                               "}\n");
        free(b);
        /* defaults, clients, ro, other spellings */
        e = parse_ok("ganesha", L("path=/s", "clients=192.168.1.0/24", "ro", "all_squash",
                                  "sec=krb5,none", "versions=4", "transports=udp,tcp",
                                  "delegations=none", "nfs_commit=off", "max_read=4k"));
        assert_int_equal(nfs_render_ganesha_export(&e, &b), 0);
        assert_string_equal(b, "EXPORT {\n"
                               "\tExport_Id = 1;\n"
                               "\tPath = \"/s\";\n"
                               "\tPseudo = \"/s\";\n"
                               "\tAccess_Type = None;\n"
                               "\tSquash = All_Squash;\n"
                               "\tSecType = krb5, none;\n"
                               "\tProtocols = 4;\n"
                               "\tTransports = TCP, UDP;\n"
                               "\tMaxRead = 4096;\n"
                               "\tDelegations = None;\n"
                               "\tNFS_Commit = false;\n"
                               "\tCLIENT {\n\t\tClients = 192.168.1.0/24;\n\t\tAccess_Type = RO;\n\t}\n"
                               "\tFSAL {\n\t\tName = VFS;\n\t}\n"
                               "}\n");
        free(b);
        e = parse_ok("ganesha", L("path=/s", "root_squash", "delegations=read", "versions=3"));
        assert_int_equal(nfs_render_ganesha_export(&e, &b), 0);
        assert_contains(b, "Squash = Root_Squash;");
        assert_contains(b, "Delegations = Read;");
        assert_contains(b, "Protocols = 3;");
        free(b);
        e = parse_ok("ganesha", L("path=/s", "delegations=write", "max_write=64m", "export_id=65535"));
        assert_int_equal(e.delegations, NFS_DELEG_WRITE);
        assert_int_equal(e.max_write, 64 * 1024 * 1024);
        assert_int_equal(e.export_id, 65535);
        /* ganesha has no nfs.conf keys */
        kvlist_t keys = {0};
        assert_int_equal(nfs_render_nfsd_conf(&e, &keys), 0);
        assert_int_equal(keys.n, 0);
}

static void test_ganesha_errors(void **state)
{
        expect_err("ganesha", L("path=/a", "sync=true"), "line 2: ",
                   "ganesha has no sync/async export option; it has nfs_commit", NULL);
        expect_err("ganesha", L("path=/a", "async"), "ganesha has no sync/async", NULL);
        expect_err("ganesha", L("path=/a", "wdelay"), "wdelay: ganesha has no wdelay", NULL);
        expect_err("ganesha", L("path=/a", "subtree_check=no"), "ganesha has no subtree_check", NULL);
        expect_err("ganesha", L("path=/a", "fsid=1"), "ganesha has no fsid", NULL);
        expect_err("ganesha", L("path=/a", "threads=16"), "threads: ganesha has no worker thread",
                   NULL);
        expect_err("ganesha", L("path=/a", "versions=4.1"), "versions: '4.1'", "ganesha", "3, 4",
                   NULL);
        expect_err("ganesha", L("path=/a", "sec=krb7"), "sec: 'krb7'", "none", NULL);
        expect_err("ganesha", L("path=/a", "max_read=1000"), "max_read: '1000'", "4096-67108864",
                   NULL);
        expect_err("ganesha", L("path=/a", "max_read=65m"), "max_read: '65m'", NULL);
        expect_err("ganesha", L("path=/a", "max_write=1g"), "max_write: '1g'", NULL);
        expect_err("ganesha", L("path=/a", "max_write=k"), "max_write: 'k'", NULL);
        expect_err("ganesha", L("path=/a", "max_write=99999999999999999999m"), "max_write:", NULL);
        expect_err("ganesha", L("path=/a", "delegations=all"), "delegations: 'all'", "readwrite",
                   NULL);
        expect_err("ganesha", L("path=/a", "nfs_commit=perhaps"), "nfs_commit: 'perhaps'", NULL);
        expect_err("ganesha", L("path=/a", "transports=rdma"), "transports: 'rdma'", "tcp, udp",
                   NULL);
        expect_err("ganesha", L("path=/a", "pseudo=rel"), "pseudo: 'rel'", NULL);
        expect_err("ganesha", L("path=/a", "export_id=0"), "export_id: '0'", "1-65535", NULL);
        expect_err("ganesha", L("path=/a", "export_id=65536"), "export_id: '65536'", NULL);
        expect_err("ganesha", L("path=/a", "nope=1"), "'nope' is not a [server] setting",
                   "ganesha has:", "nfs_commit", NULL);
}

static void test_table(void **state)
{
        size_t n;
        const nfs_setting_t *t = nfs_settings_table(&n);
        assert_true(n >= 20);
        for (size_t i = 0; i < n; i++) {
                assert_non_null(t[i].key);
                assert_non_null(t[i].range);
                assert_non_null(t[i].help);
                assert_true(t[i].backends != 0);
                /* a backend without the key gets a reason */
                if (t[i].backends != (NFS_BACKEND_KERNEL | NFS_BACKEND_GANESHA))
                        assert_non_null(t[i].instead);
        }
}

/* Parses path=/a (unless the key is path) and key=value. */
static nfs_export_t with_key(const char *backend, const char *key, const char *value)
{
        char kv[128];
        snprintf(kv, sizeof(kv), "%s=%s", key, value);
        return streq(key, "path") ? parse_ok(backend, L(kv)) : parse_ok(backend, L("path=/a", kv));
}

/* The table drives the parse: each entry says how it is read, its default is a value it
 * accepts and what the parse starts from, and each key is taken by every backend it names. */
static void test_table_drives_parse(void **state)
{
        size_t n;
        const nfs_setting_t *t = nfs_settings_table(&n);
        for (size_t i = 0; i < n; i++) {
                switch (t[i].type) {
                case NFS_SET_STRING:
                        assert_non_null(t[i].valid);
                        break;
                case NFS_SET_ENUM:
                        assert_true(t[i].words || t[i].boolean);
                        break;
                case NFS_SET_WORDS:
                        assert_non_null(t[i].words);
                        assert_non_null(t[i].what);
                        break;
                case NFS_SET_UINT:
                case NFS_SET_SIZE:
                        assert_true(t[i].min <= t[i].max && t[i].max > 0);
                        break;
                case NFS_SET_BACKEND:
                        assert_string_equal(t[i].key, "backend");
                        continue;
                }
                assert_true(t[i].offset + t[i].size <= sizeof(nfs_export_t));
                for (int b = NFS_BACKEND_KERNEL; b <= NFS_BACKEND_GANESHA; b <<= 1) {
                        if (!(t[i].backends & b))
                                continue;
                        const char *bn = b == NFS_BACKEND_KERNEL ? "kernel" : "ganesha";
                        assert_non_null(t[i].example);
                        with_key(bn, t[i].key, t[i].example);
                        if (!t[i].def)
                                continue;
                        /* the default is taken, and is what a parse without the key holds */
                        nfs_export_t e = with_key(bn, t[i].key, t[i].def);
                        nfs_export_t none = parse_ok(bn, L("path=/a"));
                        if (streq(t[i].key, "path"))
                                continue;
                        assert_memory_equal((char *)&e + t[i].offset, (char *)&none + t[i].offset,
                                            t[i].size);
                }
        }
}

/* nfs_conf_edit on text: returns the edited text (caller frees). */
static char *edit(const char *in, const char *const *kvs, bool *changed)
{
        kvlist_t keys = {0};
        build(&keys, kvs);
        char *out;
        size_t outlen;
        assert_int_equal(nfs_conf_edit(in, strlen(in), "nfsd", &keys, &out, &outlen, changed), 0);
        assert_int_equal(strlen(out), outlen);
        kv_clear(&keys);
        return out;
}

static void test_conf_edit(void **state)
{
        bool ch;
        /* Debian's layout: commented keys stay, the key goes after the header */
        char *o = edit("[general]\npipefs-directory=/run/rpc_pipefs\n#\n[nfsd]\n# debug=0\n"
                       "# threads=8\n# vers3=y\n\n[statd]\n# port=0\n",
                       L("threads=160", "vers3=n"), &ch);
        assert_true(ch);
        assert_string_equal(o, "[general]\npipefs-directory=/run/rpc_pipefs\n#\n[nfsd]\nthreads=160\n"
                               "vers3=n\n# debug=0\n# threads=8\n# vers3=y\n\n[statd]\n# port=0\n");
        free(o);
        /* an active key is rewritten in place, spacing kept; [mountd] threads untouched */
        o = edit("[mountd]\nthreads = 4\n[nfsd]\n  threads = 8   \nhost=\n",
                 L("threads=16"), &ch);
        assert_true(ch);
        assert_string_equal(o, "[mountd]\nthreads = 4\n[nfsd]\n  threads = 16   \nhost=\n");
        free(o);
        /* the same value: nothing changes */
        o = edit("[nfsd]\nthreads=16\n", L("threads=16"), &ch);
        assert_false(ch);
        assert_string_equal(o, "[nfsd]\nthreads=16\n");
        free(o);
        /* no [nfsd] section, no trailing newline: the section is appended */
        o = edit("[general]\nx=1", L("threads=8", "vers4.2=y"), &ch);
        assert_true(ch);
        assert_string_equal(o, "[general]\nx=1\n[nfsd]\nthreads=8\nvers4.2=y\n");
        free(o);
        /* empty file */
        o = edit("", L("threads=8"), &ch);
        assert_string_equal(o, "[nfsd]\nthreads=8\n");
        free(o);
        /* CRLF: the replaced line keeps \r\n, inserted lines take the file's ending */
        o = edit("[nfsd]\r\nvers3=y\r\n; threads=1\r\n", L("vers3=n", "threads=2"), &ch);
        assert_string_equal(o, "[nfsd]\r\nthreads=2\r\nvers3=n\r\n; threads=1\r\n");
        free(o);
        /* header on the last line without an ending */
        o = edit("[nfsd]", L("threads=3"), &ch);
        assert_string_equal(o, "[nfsd]\nthreads=3\n");
        free(o);
        /* a key further down, after another section and a second [nfsd] */
        o = edit("[NFSD]\nudp=n\n[x]\nthreads=1\n[ nfsd ]\nThreads=5\n", L("threads=7", "vers3=y"),
                 &ch);
        assert_string_equal(o, "[NFSD]\nvers3=y\nudp=n\n[x]\nthreads=1\n[ nfsd ]\nThreads=7\n");
        free(o);
        /* nothing to set */
        o = edit("[nfsd]\n# threads=8", (const char *const[]){NULL}, &ch);
        assert_false(ch);
        assert_string_equal(o, "[nfsd]\n# threads=8");
        free(o);
        /* a line that is neither section nor key is left as is */
        o = edit("[nfsd]\ngarbage line\nthreads=1\n", L("threads=2"), &ch);
        assert_string_equal(o, "[nfsd]\ngarbage line\nthreads=2\n");
        free(o);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_minimal),
            cmocka_unit_test(test_backend_errors),
            cmocka_unit_test(test_workload1),
            cmocka_unit_test(test_kernel_all_keys),
            cmocka_unit_test(test_kernel_errors),
            cmocka_unit_test(test_no_line),
            cmocka_unit_test(test_ganesha_all_keys),
            cmocka_unit_test(test_ganesha_errors),
            cmocka_unit_test(test_table),
            cmocka_unit_test(test_table_drives_parse),
            cmocka_unit_test(test_conf_edit),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
