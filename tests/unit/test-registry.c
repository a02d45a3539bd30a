/* Tests for the coordinator's registry: hello, agents bound to their keys (names, ids, one
 * agent per key, persisted bindings, revocation), leases, selection. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "idbind.h"
#include "registry.h"
#include "util.h"

#define SEC ((int64_t)NSEC_PER_SEC)

static char last_err[512]; /* what the last refused hello was told */

static coord_agent_t *hello(registry_t *reg, const char *peer, const char *id, const char *name,
                      const char *key, int64_t now, int expect)
{
        Iofleet__Hello h = IOFLEET__HELLO__INIT;
        Iofleet__Label l = IOFLEET__LABEL__INIT, *lp[] = {&l};
        char *roles[] = {"client"};
        coord_agent_t *a = NULL;
        char err[512] = "";
        int r;

        h.agent_id = (char *)id;
        h.name = (char *)name;
        h.hostname = "host";
        h.roles = roles;
        h.n_roles = 1;
        l.key = "rack";
        l.value = (char *)(name[0] == 'a' ? "r1" : "r2");
        h.labels = lp;
        h.n_labels = 1;
        r = registry_hello(reg, peer, &h, key, now, &a, err, sizeof(err));
        if (r != expect)
                fail_msg("hello %s/%s/%s: %d, expected %d (%s)", id, name, key, r, expect, err);
        if (r < 0) {
                assert_true(strlen(err) > 0);
                snprintf(last_err, sizeof(last_err), "%s", err);
                return NULL;
        }
        return a;
}

static void test_hello_and_lookup(void **state)
{
        registry_t *reg;
        coord_agent_t *a, *b;

        assert_int_equal(registry_new(&reg), 0);
        a = hello(reg, "00aa", "id-a", "alpha", "ka", 0, 0);
        b = hello(reg, "00bb", "id-b", "beta", "kb", 0, 0);
        assert_ptr_equal(registry_find(reg, "id-a"), a);
        assert_ptr_equal(registry_find_peer(reg, "00bb"), b);
        assert_null(registry_find_peer(reg, "00cc"));
        assert_string_equal(a->key_name, "ka");
        /* With a key, the agent goes by its key's name, whatever it calls itself. */
        assert_string_equal(a->name, "ka");
        assert_string_equal(b->name, "kb");
        assert_true(strv_contains(&a->labels, "rack=r1"));

        /* A reconnect on a new connection moves the agent to it. */
        a = hello(reg, "00a2", "id-a", "alpha", "ka", SEC, 0);
        assert_ptr_equal(registry_find_peer(reg, "00a2"), a);
        assert_null(registry_find_peer(reg, "00aa"));
        assert_int_equal(registry_count(reg), 2);
        registry_free(&reg);
        assert_null(reg);
}

static void test_refusals(void **state)
{
        registry_t *reg;
        assert_int_equal(registry_new(&reg), 0);
        hello(reg, "01", "id-a", "alpha", "ka", 0, 0);
        /* Another key may not take a live agent's identity, nor its name (it has its own). */
        hello(reg, "03", "id-a", "alpha", "kx", 0, -EPERM);
        assert_string_equal(registry_find(reg, "id-a")->peer, "01");
        hello(reg, "02", "id-x", "alpha", "kx", 0, 0);
        assert_non_null(registry_find_peer(reg, "02"));
        assert_string_equal(registry_find(reg, "id-x")->name, "kx");
        assert_string_equal(registry_find(reg, "id-a")->name, "ka");
        registry_free(&reg);
}

/* Without keys (insecure=true), names are what agents say; a live one's name is its own, and the
 * refusal does not tell whose. */
static void test_insecure_names(void **state)
{
        registry_t *reg;
        assert_int_equal(registry_new(&reg), 0);
        assert_string_equal(hello(reg, "01", "id-a", "alpha", "", 0, 0)->name, "alpha");
        hello(reg, "02", "id-x", "alpha", "", 0, -EEXIST);
        assert_null(strstr(last_err, "id-a"));
        assert_non_null(strstr(last_err, "alpha"));
        registry_free(&reg);
}

/* One key is one agent: a second id under a live key is refused (without naming the live one's
 * id); once the key's agent is lost, the key moves to the new id and the old entry goes. */
static void test_one_key_one_agent(void **state)
{
        registry_t *reg;
        idbind_t *b;
        coord_agent_t *a;
        assert_int_equal(registry_new(&reg), 0);
        assert_int_equal(idbind_new(&b), 0);
        registry_set_bindings(reg, b);

        a = hello(reg, "01", "id-a", "h1", "h1", 0, 0);
        hello(reg, "02", "id-b", "h1", "h1", 0, -EBUSY);
        hello(reg, "02", "id-b", "other", "h1", 0, -EBUSY);
        assert_null(strstr(last_err, "id-a"));
        assert_int_equal(registry_count(reg), 1);
        assert_string_equal(idbind_id_of(b, "h1"), "id-a");
        /* The same agent on a new connection replaces its old session. */
        assert_ptr_equal(hello(reg, "03", "id-a", "h1", "h1", SEC, 0), a);
        assert_null(registry_find_peer(reg, "01"));
        assert_ptr_equal(registry_find_peer(reg, "03"), a);

        /* Its state directory wiped, it comes back with a new id after the old one is lost. */
        a->state = AGENT_LOST;
        a = hello(reg, "04", "id-c", "h1", "h1", 2 * SEC, 0);
        assert_int_equal(registry_count(reg), 1);
        assert_null(registry_find(reg, "id-a"));
        assert_null(registry_find_peer(reg, "03"));
        assert_string_equal(idbind_id_of(b, "h1"), "id-c");
        assert_null(idbind_key_of(b, "id-a"));

        /* A thousand hellos from one key with new ids and names: one agent, the rest refused. */
        for (int i = 0; i < 1000; i++) {
                char id[32], name[32], peer[16];
                snprintf(id, sizeof(id), "flood-%d", i);
                snprintf(name, sizeof(name), "n%d", i);
                snprintf(peer, sizeof(peer), "f%04x", i);
                hello(reg, peer, id, name, "evil", 3 * SEC, i == 0 ? 0 : -EBUSY);
        }
        assert_int_equal(registry_count(reg), 2);
        assert_int_equal(idbind_count(b), 2);
        registry_free(&reg);
        idbind_free(&b);
}

/* The attack of issue 9: h1's agent is lost, another key says hello with h1's id and name. It is
 * refused, also after a restart (the bindings come back from the state file), and the refusal
 * does not say which key holds the id. */
static void test_takeover_refused(void **state)
{
        char dir[] = "/tmp/test-registry.XXXXXX", path[64], err[256];
        registry_t *reg;
        idbind_t *b;
        coord_agent_t *a;

        assert_non_null(mkdtemp(dir));
        snprintf(path, sizeof(path), "%s/agent-keys", dir);
        assert_int_equal(registry_new(&reg), 0);
        assert_int_equal(idbind_new(&b), 0);
        registry_set_bindings(reg, b);
        a = hello(reg, "01", "id-h1", "h1", "h1", 0, 0);
        hello(reg, "02", "id-e", "evil", "evil", 0, 0);
        a->state = AGENT_LOST;
        hello(reg, "03", "id-h1", "h1", "evil", SEC, -EPERM);
        assert_null(strstr(last_err, "'h1'"));
        assert_int_equal(registry_find(reg, "id-h1")->state, AGENT_LOST);
        assert_true(idbind_dirty(b));
        assert_int_equal(idbind_save(b, path, err, sizeof(err)), 0);
        assert_false(idbind_dirty(b));
        registry_free(&reg);
        idbind_free(&b);

        /* A restarted coordinator: an empty registry, the bindings from the file. */
        assert_int_equal(registry_new(&reg), 0);
        assert_int_equal(idbind_new(&b), 0);
        assert_int_equal(idbind_load(b, path, err, sizeof(err)), 0);
        registry_set_bindings(reg, b);
        hello(reg, "11", "id-h1", "h1", "evil", 0, -EPERM);
        hello(reg, "12", "id-h1", "h1", "evil2", 0, -EPERM);
        /* The real h1 comes back under its key. */
        assert_string_equal(hello(reg, "13", "id-h1", "h1", "h1", 0, 0)->name, "h1");
        registry_free(&reg);
        idbind_free(&b);
        unlink(path);
        rmdir(dir);
}

static bool allowed_cb(const coord_agent_t *a, void *userdata)
{
        return !streq(a->key_name, userdata);
}

static void dropped_cb(coord_agent_t *a, void *userdata)
{
        (void)userdata;
        a->seq_out = 4242; /* seen before it is freed */
}

/* A key removed from the allow-list: its agents are forgotten, live or lost. */
static void test_revoke(void **state)
{
        registry_t *reg;
        assert_int_equal(registry_new(&reg), 0);
        hello(reg, "01", "id-a", "a", "ka", 0, 0);
        hello(reg, "02", "id-b", "b", "kb", 0, 0);
        hello(reg, "03", "id-c", "c", "", 0, 0); /* no key: never revoked */
        registry_revoke(reg, allowed_cb, dropped_cb, "kb");
        assert_int_equal(registry_count(reg), 2);
        assert_null(registry_find(reg, "id-b"));
        assert_null(registry_find_peer(reg, "02"));
        assert_non_null(registry_find(reg, "id-a"));
        registry_find(reg, "id-a")->state = AGENT_LOST;
        registry_revoke(reg, allowed_cb, NULL, "ka");
        assert_int_equal(registry_count(reg), 1);
        assert_non_null(registry_find(reg, "id-c"));
        /* The key's name is free for a new key of that name. */
        hello(reg, "04", "id-b2", "b", "kb", SEC, 0);
        registry_free(&reg);
}

static void lost_cb(coord_agent_t *a, void *userdata)
{
        (*(int *)userdata)++;
}

static void test_leases(void **state)
{
        registry_t *reg;
        coord_agent_t *a;
        int lost = 0;

        assert_int_equal(registry_new(&reg), 0);
        a = hello(reg, "01", "id-a", "alpha", "ka", 0, 0);
        hello(reg, "02", "id-b", "beta", "kb", 0, 0);
        a->last_seen_ns = 4 * SEC;
        registry_expire(reg, 5 * SEC, 5 * SEC, lost_cb, &lost);
        assert_int_equal(lost, 0);
        registry_expire(reg, 6 * SEC, 5 * SEC, lost_cb, &lost);
        assert_int_equal(lost, 1); /* beta, silent since 0 */
        assert_int_equal(registry_find(reg, "id-b")->state, AGENT_LOST);
        registry_expire(reg, 7 * SEC, 5 * SEC, lost_cb, &lost);
        assert_int_equal(lost, 1); /* reported once */

        /* A lost agent comes back. */
        hello(reg, "03", "id-b", "beta", "kb", 8 * SEC, 0);
        assert_int_equal(registry_find(reg, "id-b")->state, AGENT_IDLE);

        /* Lost for more than an hour: forgotten. */
        registry_expire(reg, 9 * SEC + 3600 * SEC, 5 * SEC, lost_cb, &lost);
        assert_int_equal(registry_count(reg), 2);
        registry_expire(reg, 20 * SEC + 3600 * SEC, 5 * SEC, lost_cb, &lost);
        assert_int_equal(registry_count(reg), 0);
        registry_free(&reg);
}

static void test_select(void **state)
{
        registry_t *reg;
        coord_agent_t **sel;
        size_t n;

        assert_int_equal(registry_new(&reg), 0);
        hello(reg, "01", "id-c", "charlie", "charlie", 0, 0);
        hello(reg, "02", "id-a", "alpha", "alpha", 0, 0);
        hello(reg, "03", "id-b", "bravo", "bravo", 0, 0);
        assert_int_equal(registry_select(reg, "", &sel, &n), 0);
        assert_int_equal(n, 3);
        /* Sorted by name: ranks are stable from run to run. */
        assert_string_equal(sel[0]->name, "alpha");
        assert_string_equal(sel[2]->name, "charlie");
        free(sel);
        assert_int_equal(registry_select(reg, "rack=r2", &sel, &n), 0);
        assert_int_equal(n, 2);
        free(sel);
        registry_find(reg, "id-b")->state = AGENT_LOST;
        assert_int_equal(registry_select(reg, "role=client", &sel, &n), 0);
        assert_int_equal(n, 2); /* lost agents are never selected */
        free(sel);
        registry_free(&reg);
}

/* Without keys: several agents over time under one name: only a live one holds it; renames,
 * losses and forgetting keep the others findable. */
static void test_names(void **state)
{
        registry_t *reg;
        coord_agent_t *a, *b, *c;
        int lost = 0;

        assert_int_equal(registry_new(&reg), 0);
        a = hello(reg, "01", "id-a", "alpha", "", 0, 0);
        a->state = AGENT_LOST;
        b = hello(reg, "02", "id-b", "alpha", "", 0, 0);
        /* a is back but b holds the name now. */
        hello(reg, "03", "id-a", "alpha", "", SEC, -EEXIST);
        b->state = AGENT_LOST;
        c = hello(reg, "04", "id-c", "alpha", "", SEC, 0);
        c->state = AGENT_LOST;
        /* Three entries named alpha, all lost: a takes it back. */
        assert_ptr_equal(hello(reg, "03", "id-a", "alpha", "", 2 * SEC, 0), a);
        hello(reg, "05", "id-b", "alpha", "", 2 * SEC, -EEXIST);
        /* a renames itself: alpha is free, alef is a's. */
        assert_ptr_equal(hello(reg, "03", "id-a", "alef", "", 3 * SEC, 0), a);
        assert_string_equal(a->name, "alef");
        hello(reg, "06", "id-d", "alef", "", 3 * SEC, -EEXIST);
        assert_ptr_equal(hello(reg, "05", "id-b", "alpha", "", 3 * SEC, 0), b);
        hello(reg, "06", "id-d", "alpha", "", 3 * SEC, -EEXIST);
        /* c (lost since 1 s, in the middle of alpha's chain) is forgotten; b still holds the
         * name. */
        b->last_seen_ns = a->last_seen_ns = 3600 * SEC;
        registry_expire(reg, 3602 * SEC, 3600 * SEC, lost_cb, &lost);
        assert_int_equal(registry_count(reg), 2);
        assert_null(registry_find(reg, "id-c"));
        assert_null(registry_find_peer(reg, "04"));
        hello(reg, "06", "id-d", "alpha", "", 3602 * SEC, -EEXIST);
        assert_ptr_equal(registry_find(reg, "id-b"), b);
        /* A forgotten id may come back as a new agent. */
        c = hello(reg, "07", "id-c", "gamma", "", 3602 * SEC, 0);
        assert_ptr_equal(registry_find(reg, "id-c"), c);
        assert_ptr_equal(registry_find_peer(reg, "07"), c);
        registry_free(&reg);
}

/* A connection stands for the agent whose Hello came on it last. */
static void test_peer_taken_over(void **state)
{
        registry_t *reg;
        coord_agent_t *a, *b;

        assert_int_equal(registry_new(&reg), 0);
        a = hello(reg, "0a", "id-a", "alpha", "ka", 0, 0);
        b = hello(reg, "0a", "id-b", "beta", "kb", 0, 0);
        assert_ptr_equal(registry_find_peer(reg, "0a"), b);
        /* a moving to its own connection does not take b's away. */
        assert_ptr_equal(hello(reg, "0c", "id-a", "alpha", "ka", SEC, 0), a);
        assert_ptr_equal(registry_find_peer(reg, "0a"), b);
        assert_ptr_equal(registry_find_peer(reg, "0c"), a);
        /* The same Hello again on the same connection changes nothing. */
        assert_ptr_equal(hello(reg, "0c", "id-a", "alpha", "ka", SEC, 0), a);
        assert_ptr_equal(registry_find_peer(reg, "0c"), a);
        registry_free(&reg);
}

/* What registry_hello must answer without keys, from a plain scan of the registry. */
static int scan_expect(registry_t *reg, const char *id, const char *name)
{
        for (size_t i = 0; i < registry_count(reg); i++) {
                coord_agent_t *o = registry_at(reg, i);
                if (streq(o->name, name) && !streq(o->id, id) && o->state != AGENT_LOST)
                        return -EEXIST;
        }
        return 0;
}

/* Every agent is found by its id and its connection (connections are never reused here). */
static void check_lookups(registry_t *reg)
{
        for (size_t i = 0; i < registry_count(reg); i++) {
                coord_agent_t *a = registry_at(reg, i);
                assert_ptr_equal(registry_find(reg, a->id), a);
                assert_ptr_equal(registry_find_peer(reg, a->peer), a);
        }
}

/* Random state changes and expiries, shared by both random tests. */
static void random_step(registry_t *reg, unsigned op, unsigned *seed, int64_t now, int step,
                        int *lost)
{
        if (op < 9 && registry_count(reg)) {
                coord_agent_t *a = registry_at(reg, (size_t)rand_r(seed) % registry_count(reg));
                a->state = op == 6 ? AGENT_LOST : op == 7 ? AGENT_BUSY : AGENT_IDLE;
                a->last_seen_ns = now;
        } else if (op >= 9) {
                registry_expire(reg, now, 300 * SEC, lost_cb, lost);
                /* Now and then every lost agent is forgotten. */
                if (step % 50 == 9)
                        registry_expire(reg, now + 3700 * SEC, 300 * SEC, lost_cb, lost);
        }
}

/* Without keys: random hellos, state changes and expiries over hundreds of agents, each Hello's
 * outcome and every lookup checked against a plain scan of the registry. */
static void test_against_scan(void **state)
{
        enum { IDS = 400, NAMES = 150 };
        registry_t *reg;
        unsigned seed = 7;
        int64_t now = 0;
        int lost = 0;
        size_t conn = 0;

        assert_int_equal(registry_new(&reg), 0);
        for (int step = 0; step < 20000; step++) {
                unsigned op = (unsigned)rand_r(&seed) % 10;
                now += SEC;
                if (op < 6) {
                        char id[32], name[32], peer[32];
                        coord_agent_t *a;
                        snprintf(id, sizeof(id), "id-%d", rand_r(&seed) % IDS);
                        snprintf(name, sizeof(name), "n%d", rand_r(&seed) % NAMES);
                        snprintf(peer, sizeof(peer), "%08zx", conn++);
                        a = hello(reg, peer, id, name, "", now, scan_expect(reg, id, name));
                        if (a)
                                assert_ptr_equal(registry_find_peer(reg, peer), a);
                } else
                        random_step(reg, op, &seed, now, step, &lost);
                if (step % 101 == 0)
                        check_lookups(reg);
        }
        assert_true(lost > 0);
        registry_expire(reg, now + 10000 * SEC, 300 * SEC, lost_cb, &lost);
        registry_expire(reg, now + 20000 * SEC, 300 * SEC, lost_cb, &lost);
        assert_int_equal(registry_count(reg), 0);
        assert_null(registry_find(reg, "id-1"));
        registry_free(&reg);
}

/* With keys and bindings: random hellos of random ids under random keys, against a model of the
 * rules (an id is its key's; a key has one live agent, a lost one gives way to a new id). */
static void test_keyed_against_model(void **state)
{
        enum { IDS = 300, KEYS = 40 };
        int key_of_id[IDS], id_of_key[KEYS];
        registry_t *reg;
        idbind_t *b;
        unsigned seed = 11;
        int64_t now = 0;
        int lost = 0, admitted = 0, refused = 0;
        size_t conn = 0;

        for (int i = 0; i < IDS; i++)
                key_of_id[i] = -1;
        for (int k = 0; k < KEYS; k++)
                id_of_key[k] = -1;
        assert_int_equal(registry_new(&reg), 0);
        assert_int_equal(idbind_new(&b), 0);
        registry_set_bindings(reg, b);
        for (int step = 0; step < 20000; step++) {
                unsigned op = (unsigned)rand_r(&seed) % 10;
                now += SEC;
                if (op < 6) {
                        int i = rand_r(&seed) % IDS, k = rand_r(&seed) % KEYS, expect = 0;
                        char id[32], key[16], peer[32];
                        coord_agent_t *a;
                        snprintf(id, sizeof(id), "id-%d", i);
                        snprintf(key, sizeof(key), "k%d", k);
                        snprintf(peer, sizeof(peer), "%08zx", conn++);
                        if (key_of_id[i] >= 0 && key_of_id[i] != k)
                                expect = -EPERM;
                        else
                                for (size_t j = 0; j < registry_count(reg); j++) {
                                        coord_agent_t *o = registry_at(reg, j);
                                        if (streq(o->key_name, key) && !streq(o->id, id) &&
                                            o->state != AGENT_LOST)
                                                expect = -EBUSY;
                                }
                        a = hello(reg, peer, id, "whatever", key, now, expect);
                        if (a) {
                                admitted++;
                                assert_string_equal(a->name, key);
                                if (id_of_key[k] >= 0)
                                        key_of_id[id_of_key[k]] = -1;
                                id_of_key[k] = i;
                                key_of_id[i] = k;
                        } else
                                refused++;
                } else
                        random_step(reg, op, &seed, now, step, &lost);
                if (step % 101)
                        continue;
                check_lookups(reg);
                /* One entry per key at most, and the bindings are the model's. */
                for (size_t j = 0; j < registry_count(reg); j++)
                        for (size_t l = j + 1; l < registry_count(reg); l++)
                                assert_string_not_equal(registry_at(reg, j)->key_name,
                                                        registry_at(reg, l)->key_name);
                for (int k = 0; k < KEYS; k++) {
                        char key[16], id[32];
                        snprintf(key, sizeof(key), "k%d", k);
                        snprintf(id, sizeof(id), "id-%d", id_of_key[k]);
                        if (id_of_key[k] < 0)
                                assert_null(idbind_id_of(b, key));
                        else
                                assert_string_equal(idbind_id_of(b, key), id);
                }
        }
        assert_true(admitted > 100 && refused > 100 && lost > 0);
        registry_free(&reg);
        idbind_free(&b);
}

/* The fake runs behind a heartbeat's Ack: counts how often they were asked. */
typedef struct beat_runs {
        int asked;
        uint64_t upto;
        const char *run_id;
} beat_runs_t;

static uint64_t beat_ack(void *user, coord_agent_t *a, const char **run_id)
{
        beat_runs_t *br = user;
        (void)a;
        br->asked++;
        *run_id = br->run_id;
        return br->upto;
}

/* The one message in ob, decoded; the box is emptied. */
static envelope_t *take_one(outbox_t *ob, const char *to)
{
        envelope_t *e = NULL;
        char err[256];
        assert_int_equal(ob->n, 1);
        assert_string_equal(ob->items[0].peer, to);
        assert_int_equal(wire_decode(ob->items[0].buf, ob->items[0].len, WIRE_MAX_AGENT_MSG, &e,
                                     err, sizeof(err)),
                         0);
        outbox_clear(ob);
        return e;
}

/* Heartbeats and clock probes are answered through the outbox, without sockets: clock figures
 * noted, probes answered with their times, plain beats every 1.5 beats (every one with a short
 * lease), the Ack asked of the runs only when an answer goes. */
static void test_heartbeat_answers(void **state)
{
        registry_t *reg;
        coord_agent_t *a;
        outbox_t ob = {0};
        beat_runs_t br = {0, 7, "run-1"};
        registry_pace_t pace = {SEC, 5};
        registry_now_t now = {100 * SEC, 5000, 5100};
        Iofleet__Heartbeat hb = IOFLEET__HEARTBEAT__INIT;
        Iofleet__TimeProbe tp = IOFLEET__TIME_PROBE__INIT;
        envelope_t *e;

        assert_int_equal(registry_new(&reg), 0);
        a = hello(reg, "00aa", "id-a", "alpha", "ka", 0, 0);
        a->seq_out = 3;

        /* A probe rides along: answered with t1, t2 (received), t3 (sent) and the Ack. */
        hb.probe_t1 = 4000;
        hb.rtt_ns = 250000;
        hb.offset_ns = -42;
        hb.wall_offset_ns = 17;
        hb.wall_offset_known = true;
        assert_int_equal(registry_heartbeat(a, &hb, &pace, &now, beat_ack, &br, &ob), 1);
        assert_true(a->have_offset && a->have_wall_offset);
        assert_int_equal(a->offset_ns, -42);
        assert_int_equal(a->rtt_ns, 250000);
        assert_int_equal(a->wall_offset_ns, 17);
        e = take_one(&ob, "id-a");
        assert_int_equal(e->body_case, IOFLEET__ENVELOPE__BODY_HEARTBEAT);
        assert_int_equal(e->seq, 4);
        assert_int_equal(e->heartbeat->probe_t1, 4000);
        assert_int_equal(e->heartbeat->probe_t2, 5000);
        assert_int_equal(e->heartbeat->probe_t3, 5100);
        assert_int_equal(e->heartbeat->ack_upto, 7);
        assert_string_equal(e->heartbeat->run_id, "run-1");
        wire_free(&e);
        assert_int_equal(br.asked, 1);

        /* A plain beat a second later: the last answer is fresh, none goes, nothing is acked. */
        hb = (Iofleet__Heartbeat)IOFLEET__HEARTBEAT__INIT;
        now.mono += SEC;
        assert_int_equal(registry_heartbeat(a, &hb, &pace, &now, beat_ack, &br, &ob), 0);
        assert_int_equal(ob.n, 0);
        assert_int_equal(br.asked, 1);
        assert_int_equal(a->seq_out, 4);
        assert_int_equal(a->offset_ns, -42); /* no figures in it: the last ones stay */

        /* Half a beat later (1.5 since the last answer): answered, no probe times in it. */
        now.mono += SEC / 2;
        assert_int_equal(registry_heartbeat(a, &hb, &pace, &now, beat_ack, &br, &ob), 1);
        e = take_one(&ob, "id-a");
        assert_int_equal(e->seq, 5);
        assert_int_equal(e->heartbeat->probe_t1, 0);
        assert_int_equal(e->heartbeat->probe_t3, 0);
        assert_int_equal(e->heartbeat->ack_upto, 7);
        wire_free(&e);

        /* A lease of fewer than 4 beats: every beat is answered. */
        pace.lost_after = 3;
        assert_int_equal(registry_heartbeat(a, &hb, &pace, &now, beat_ack, &br, &ob), 1);
        outbox_clear(&ob);
        assert_int_equal(br.asked, 3);

        /* No run holds it: an answer with nothing acknowledged. */
        br = (beat_runs_t){0, 0, ""};
        assert_int_equal(registry_heartbeat(a, &hb, &pace, &now, beat_ack, &br, &ob), 1);
        e = take_one(&ob, "id-a");
        assert_int_equal(e->heartbeat->ack_upto, 0);
        assert_string_equal(e->heartbeat->run_id, "");
        wire_free(&e);

        /* A clock probe of its own: a TimeReply with its t1 and our t2, t3. */
        tp.t1 = 123;
        assert_int_equal(registry_time_probe(a, &tp, &now, &ob), 0);
        e = take_one(&ob, "id-a");
        assert_int_equal(e->body_case, IOFLEET__ENVELOPE__BODY_TIME_REPLY);
        assert_int_equal(e->seq, a->seq_out);
        assert_int_equal(e->time_reply->t1, 123);
        assert_int_equal(e->time_reply->t2, 5000);
        assert_int_equal(e->time_reply->t3, 5100);
        wire_free(&e);

        outbox_done(&ob);
        registry_free(&reg);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_hello_and_lookup),
            cmocka_unit_test(test_refusals),
            cmocka_unit_test(test_insecure_names),
            cmocka_unit_test(test_one_key_one_agent),
            cmocka_unit_test(test_takeover_refused),
            cmocka_unit_test(test_revoke),
            cmocka_unit_test(test_leases),
            cmocka_unit_test(test_select),
            cmocka_unit_test(test_names),
            cmocka_unit_test(test_peer_taken_over),
            cmocka_unit_test(test_against_scan),
            cmocka_unit_test(test_keyed_against_model),
            cmocka_unit_test(test_heartbeat_answers),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
