/* Unit tests for common/options-io.c and its table: the I/O pattern, pacing, offset and placement
 * options read as fio 3.33 reads them (bssplit's sorting and shares, zones, rw's suffix, sets of
 * CPUs and nodes), each error one line naming the option, a failed set leaving the job as it was,
 * and the whole-job rules among them. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "options.h"
#include "util.h"

#define KIB 1024ULL
#define NS_US 1000ULL
#define NS_MS 1000000ULL
#define NS_S 1000000000ULL

static void set_ok(job_spec_t *j, const char *key, const char *value)
{
        char err[256] = "";
        int r = job_option_set(j, key, value, err, sizeof(err));
        if (r != 0)
                fail_msg("%s=%s: %d %s", key, value ? value : "(null)", r, err);
}

static void job_with(job_spec_t *j, ...)
{
        va_list ap;
        const char *k;

        assert_int_equal(job_spec_init(j, "t"), 0);
        set_ok(j, "size", "1g");
        va_start(ap, j);
        while ((k = va_arg(ap, const char *)))
                set_ok(j, k, va_arg(ap, const char *));
        va_end(ap);
}

/* key=value fails with rc and a one-line message naming the option and containing want; the job
 * (with bssplit, zones and sets given before) is exactly as it was. */
static void set_fails(const char *key, const char *value, int rc, const char *want)
{
        job_spec_t j, before;
        char err[256];
        int r;

        job_with(&j, "bssplit", "4k/50:8k/50", "random_distribution", "zoned:50/50:50/50",
                 "cpus_allowed", "0-1", "rw", "randread:4", "nice", "3", NULL);
        before = j;
        r = job_option_set(&j, key, value, err, sizeof(err));
        if (r != rc)
                fail_msg("%s=%s: got %d (%s), want %d", key, value, r, r < 0 ? err : "", rc);
        assert_null(strchr(err, '\n'));
        if (!strstr(err, key))
                fail_msg("'%s' does not name '%s'", err, key);
        if (want && !strstr(err, want))
                fail_msg("'%s' does not contain '%s'", err, want);
        /* pointers are the same (nothing freed or replaced); the rest byte for byte */
        assert_memory_equal(&j, &before, sizeof(j));
        job_spec_done(&j);
}

static void validate_ok(const job_spec_t *j)
{
        char err[256];
        int r = job_spec_validate(j, err, sizeof(err));
        if (r != 0)
                fail_msg("validate: %d %s", r, err);
}

static void validate_fails(const job_spec_t *j, int rc, const char *want)
{
        char err[256];
        int r = job_spec_validate(j, err, sizeof(err));
        if (r != rc)
                fail_msg("validate = %d (%s), want %d", r, r < 0 ? err : "", rc);
        if (!strstr(err, want))
                fail_msg("'%s' does not contain '%s'", err, want);
}

static void test_defaults(void **state)
{
        job_spec_t j;
        (void)state;
        assert_int_equal(job_spec_init(&j, "t"), 0);
        assert_int_equal(j.bssplit[0].n, 0);
        assert_int_equal(j.rw_seq_nr, 1);
        assert_int_equal(j.rw_seq_add, 0);
        assert_int_equal(j.rw_sequencer, RW_SEQ_SEQUENTIAL);
        assert_int_equal(j.rate_cycle_ms, 1000);
        assert_true(j.latency_percentile == 100.0);
        assert_true(j.rand_center == -1.0);
        assert_int_equal(j.percentage_random[DDIR_READ], 100);
        assert_int_equal(j.percentage_random[DDIR_WRITE], 100);
        assert_int_equal(j.random_distribution, RAND_DIST_RANDOM);
        assert_int_equal(j.random_generator, RAND_GEN_DEFAULT);
        assert_int_equal(j.numa_mem_mode, NUMA_MEM_UNSET);
        assert_int_equal(j.prio, -1);
        assert_int_equal(j.prioclass, -1);
        assert_null(j.ioscheduler);
        job_spec_done(&j);
}

/* fio's bssplit: entries sorted by weight (ascending), empty weights sharing the rest out, a
 * single value for every direction, "R,W" per direction and an empty part leaving bs. */
static void test_bssplit(void **state)
{
        job_spec_t j;
        (void)state;

        job_with(&j, "bssplit", "4k/10:64k/50:32k/40", NULL);
        for (unsigned d = 0; d < 2; d++) {
                const job_bssplit_t *s = &j.bssplit[d];
                assert_int_equal(s->n, 3);
                assert_int_equal(s->e[0].bs, 4 * KIB);
                assert_int_equal(s->e[0].perc, 10);
                assert_int_equal(s->e[1].bs, 32 * KIB);
                assert_int_equal(s->e[1].perc, 40);
                assert_int_equal(s->e[2].bs, 64 * KIB);
                assert_int_equal(s->e[2].perc, 50);
        }
        assert_int_equal(job_spec_bs_min(&j, DDIR_READ), 4 * KIB);
        assert_int_equal(job_spec_bs_max(&j, DDIR_WRITE), 64 * KIB);
        assert_true(job_spec_bs_varies(&j, DDIR_READ));
        validate_ok(&j);
        job_spec_done(&j);

        /* the HOWTO's example: 50% 4k, 25% each for 1k and 32k */
        job_with(&j, "bssplit", "4k/50:1k/:32k/", NULL);
        assert_int_equal(j.bssplit[0].n, 3);
        assert_int_equal(j.bssplit[0].e[0].bs, 1 * KIB);
        assert_int_equal(j.bssplit[0].e[0].perc, 25);
        assert_int_equal(j.bssplit[0].e[1].bs, 32 * KIB);
        assert_int_equal(j.bssplit[0].e[1].perc, 25);
        assert_int_equal(j.bssplit[0].e[2].perc, 50);
        job_spec_done(&j);

        /* the issue's per-direction example, and the HOWTO's */
        job_with(&j, "bssplit", "4k/50:64k/50,8k/100", NULL);
        assert_int_equal(j.bssplit[DDIR_READ].n, 2);
        assert_int_equal(j.bssplit[DDIR_WRITE].n, 1);
        assert_int_equal(j.bssplit[DDIR_WRITE].e[0].bs, 8 * KIB);
        assert_int_equal(j.bssplit[DDIR_WRITE].e[0].perc, 100);
        assert_false(job_spec_bs_varies(&j, DDIR_WRITE));
        job_spec_done(&j);
        job_with(&j, "bssplit", "2k/50:4k/50,4k/90:8k/10", NULL);
        assert_int_equal(j.bssplit[DDIR_WRITE].e[0].bs, 8 * KIB); /* 10 before 90 */
        job_spec_done(&j);

        /* an empty direction keeps bs; a lone size is 100%; fio takes sums that are not 100 */
        job_with(&j, "bs", "16k", "bssplit", ",4k/50:8k/50", NULL);
        assert_int_equal(j.bssplit[DDIR_READ].n, 0);
        assert_int_equal(job_spec_bs_min(&j, DDIR_READ), 16 * KIB);
        assert_int_equal(j.bssplit[DDIR_WRITE].n, 2);
        job_spec_done(&j);
        job_with(&j, "bssplit", "8k", NULL);
        assert_int_equal(j.bssplit[0].e[0].perc, 100);
        job_spec_done(&j);
        job_with(&j, "bssplit", "4k/30:8k/30", NULL);
        assert_int_equal(j.bssplit[0].n, 2);
        validate_ok(&j);
        job_spec_done(&j);

        set_fails("bssplit", "4k/60:8k/50:16k/:32k/", -EINVAL, "add up to more than 100");
        set_fails("bssplit", "4q/50", -EINVAL, "is not a block size");
        set_fails("bssplit", "4k/x", -EINVAL, "is not a percentage");
        set_fails("bssplit", "4k,8k,16k,32k", -EINVAL, "more than 3");
        set_fails("bssplit", "0/100", -EINVAL, "is not a block size");
        {
                char many[1024] = "";
                for (int i = 1; i <= 65; i++)
                        snprintf(many + strlen(many), sizeof(many) - strlen(many), "%s%dk/1",
                                 i > 1 ? ":" : "", i);
                set_fails("bssplit", many, -E2BIG, "more than 64");
        }

        /* direct=1: every size a multiple of 512 */
        job_with(&j, "bssplit", "4k/50:1000/50", "direct", "1", NULL);
        validate_fails(&j, -EINVAL, "bssplit: 1000 is not a multiple of 512");
        job_spec_done(&j);
}

static void test_bsrange_and_align(void **state)
{
        job_spec_t j;
        (void)state;

        job_with(&j, "bsrange", "1k-4k", NULL);
        assert_int_equal(j.bs_min[0], 1 * KIB);
        assert_int_equal(j.bs_max[1], 4 * KIB);
        validate_ok(&j);
        job_spec_done(&j);
        job_with(&j, "blocksize_range", "8k-4k,2k:16k", NULL); /* fio swaps a range high first */
        assert_int_equal(j.bs_min[DDIR_READ], 4 * KIB);
        assert_int_equal(j.bs_max[DDIR_READ], 8 * KIB);
        assert_int_equal(j.bs_min[DDIR_WRITE], 2 * KIB);
        assert_int_equal(j.bs_max[DDIR_WRITE], 16 * KIB);
        job_spec_done(&j);
        set_fails("bsrange", "4k-", -EINVAL, "is not a range");
        set_fails("bsrange", "0-4k", -EINVAL, "is not a range");
        set_fails("bsrange", "1k-4g", -EINVAL, "is not a range");

        job_with(&j, "bsrange", "1k-4k", "bs_unaligned", "1", "direct", "1", NULL);
        validate_fails(&j, -EINVAL, "bs_unaligned: direct=1 needs");
        job_spec_done(&j);
        job_with(&j, "blocksize_unaligned", NULL, "ba", "512,4k", NULL);
        assert_true(j.bs_unaligned);
        assert_int_equal(j.blockalign[DDIR_READ], 512);
        assert_int_equal(j.blockalign[DDIR_WRITE], 4096);
        job_spec_done(&j);
        job_with(&j, "blockalign", "100", "direct", "1", NULL);
        validate_fails(&j, -EINVAL, "ba: 100 is not a multiple of 512");
        job_spec_done(&j);
}

static void test_sizes_and_counts(void **state)
{
        job_spec_t j;
        (void)state;

        job_with(&j, "size", "20%", "io_limit", "10g", "number_ios", "1000",
                 "offset_increment", "25%", NULL);
        assert_int_equal(j.size, 0);
        assert_int_equal(j.size_percent, 20);
        assert_int_equal(j.io_size, 10 * KIB * KIB * KIB);
        assert_int_equal(j.number_ios, 1000);
        assert_int_equal(j.offset_increment_percent, 25);
        /* 25% of a 1 MiB file, in whole 4k blocks, per clone */
        assert_int_equal(job_spec_clone_shift(&j, 2, 1048576), 2 * 262144);
        validate_ok(&j); /* a share of files as they are needs no size */
        set_ok(&j, "size", "1g"); /* a later byte value replaces the percentage */
        assert_int_equal(j.size_percent, 0);
        set_ok(&j, "offset_increment", "1m");
        assert_int_equal(j.offset_increment_percent, 0);
        assert_int_equal(job_spec_clone_shift(&j, 3, 0), 3 * 1048576);
        job_spec_done(&j);

        job_with(&j, "size", "50%", "filesize", "1m", NULL);
        validate_fails(&j, -EINVAL, "exclude each other");
        job_spec_done(&j);
}

static void test_rw_suffix(void **state)
{
        job_spec_t j;
        (void)state;

        job_with(&j, "rw", "randread:8", "rw_sequencer", "identical", NULL);
        assert_int_equal(j.rw, RW_RANDREAD);
        assert_int_equal(j.rw_seq_nr, 8);
        assert_int_equal(j.rw_sequencer, RW_SEQ_IDENTICAL);
        validate_ok(&j);
        /* each rw= starts afresh, as fio's str_rw_cb */
        set_ok(&j, "rw", "write:4k");
        assert_int_equal(j.rw, RW_WRITE);
        assert_int_equal(j.rw_seq_nr, 1);
        assert_int_equal(j.rw_seq_add, 4096);
        set_ok(&j, "readwrite", "read:-8k");
        assert_int_equal(j.rw_seq_add, -8192);
        set_ok(&j, "rw", "randrw");
        assert_int_equal(j.rw_seq_add, 0);
        job_spec_done(&j);

        set_fails("rw", "randread:x", -EINVAL, "I/Os per new offset");
        set_fails("rw", "read:4q", -EINVAL, "bytes to skip");
        set_fails("rw", "trim:8", -EOPNOTSUPP, "not supported by iofleet yet");
        set_fails("rw_sequencer", "backwards", -EINVAL, "is not one of sequential, identical");

        /* the wire can carry a skip with a random mode: refused */
        job_with(&j, "rw", "randread", NULL);
        j.rw_seq_add = 4096;
        validate_fails(&j, -EINVAL, "rw: a skip in bytes only goes with a sequential mode");
        job_spec_done(&j);
}

static void test_distributions(void **state)
{
        job_spec_t j;
        (void)state;

        job_with(&j, "random_distribution", "zipf", NULL);
        assert_int_equal(j.random_distribution, RAND_DIST_ZIPF);
        assert_true(fabs(j.rand_param - 1.1) < 1e-12); /* fio's default theta */
        set_ok(&j, "random_distribution", "zipf:1.2:0.25");
        assert_true(fabs(j.rand_param - 1.2) < 1e-12);
        assert_true(fabs(j.rand_center - 0.25) < 1e-12);
        set_ok(&j, "random_distribution", "pareto");
        assert_true(fabs(j.rand_param - 0.2) < 1e-12);
        assert_true(j.rand_center == -1);
        set_ok(&j, "random_distribution", "normal:5");
        assert_int_equal(j.random_distribution, RAND_DIST_NORMAL);
        validate_ok(&j);
        job_spec_done(&j);

        /* the HOWTO's zones: the rest of the file shared out when a size is left empty */
        job_with(&j, "random_distribution", "zoned:60/10:30/20:8/30:2/40", NULL);
        assert_int_equal(j.zones[DDIR_READ].n, 4);
        assert_int_equal(j.zones[DDIR_WRITE].z[3].access_perc, 2);
        assert_int_equal(j.zones[DDIR_WRITE].z[3].size_perc, 40);
        set_ok(&j, "random_distribution", "zoned:80/:20/,50/50:50/50");
        assert_int_equal(j.zones[DDIR_READ].z[0].size_perc, 50);
        assert_int_equal(j.zones[DDIR_WRITE].z[1].access_perc, 50);
        set_ok(&j, "random_distribution", "zoned_abs:60/20g:30/100g:10/500g");
        assert_int_equal(j.random_distribution, RAND_DIST_ZONED_ABS);
        assert_int_equal(j.zones[DDIR_READ].z[1].size, 100ULL << 30);
        validate_ok(&j);
        job_spec_done(&j);

        set_fails("random_distribution", "zipf:1", -ERANGE, "other than 1.0");
        set_fails("random_distribution", "pareto:1.5", -ERANGE, "0 < h < 1");
        set_fails("random_distribution", "normal:100", -ERANGE, "0 <= percent < 100");
        set_fails("random_distribution", "zipf:1.2:2", -ERANGE, "center 2");
        set_fails("random_distribution", "zipf:x", -EINVAL, "NUMBER[:CENTER]");
        set_fails("random_distribution", "random:1", -EINVAL, "takes no parameter");
        set_fails("random_distribution", "zoned:60/10:30/20", -EINVAL, "add up to 90%");
        set_fails("random_distribution", "zoned:60/80:40/80", -EINVAL, "of the file to 160%");
        set_fails("random_distribution", "zoned_abs:60/20g:40", -EINVAL, "needs a size");
        set_fails("random_distribution", "zoned_abs=60/20G:40/20G", -EINVAL, "follow a ':'");
        set_fails("random_distribution", "gaussian", -EINVAL, "is not one of random, zipf");
}

static void test_generators_and_mix(void **state)
{
        job_spec_t j;
        (void)state;

        job_with(&j, "random_generator", "lfsr", "percentage_random", "80,30", NULL);
        assert_int_equal(j.random_generator, RAND_GEN_LFSR);
        assert_int_equal(j.percentage_random[DDIR_READ], 80);
        assert_int_equal(j.percentage_random[DDIR_WRITE], 30);
        set_ok(&j, "percentage_sequential", "20"); /* older fio: the rest */
        assert_int_equal(j.percentage_random[DDIR_READ], 80);
        assert_int_equal(j.percentage_random[DDIR_WRITE], 80);
        set_ok(&j, "random_generator", "tausworthe64");
        assert_int_equal(j.random_generator, RAND_GEN_TAUSWORTHE64);
        validate_ok(&j);
        j.random_generator = (random_gen_t)9;
        validate_fails(&j, -EINVAL, "random_generator: 9");
        job_spec_done(&j);
        set_fails("percentage_random", "101", -ERANGE, "out of range 0..100");
        set_fails("random_generator", "mersenne", -EINVAL, "tausworthe, lfsr, tausworthe64");
}

static void test_pacing(void **state)
{
        job_spec_t j;
        (void)state;

        job_with(&j, "thinktime", "100", "thinktime_spin", "20", "thinktime_blocks", "8",
                 "thinktime_blocks_type", "issue", "thinktime_iotime", "9", "rate_iops", "1000",
                 "rate_process", "poisson", "rate_iops_min", "500", "ratecycle", "250",
                 "latency_target", "2ms", "latency_window", "1s", "latency_percentile", "99.9",
                 "latency_run", "1", "max_latency", "10ms,20ms", "ioengine", "psync",
                 "io_submit_mode", "offload", NULL);
        assert_int_equal(j.thinktime_ns, 100 * NS_US); /* microseconds without a unit */
        assert_int_equal(j.thinktime_spin_ns, 20 * NS_US);
        assert_int_equal(j.thinktime_blocks, 8);
        assert_int_equal(j.thinktime_blocks_type, THINKTIME_ISSUE);
        assert_int_equal(j.thinktime_iotime_ns, 9 * NS_S); /* seconds without a unit */
        assert_int_equal(j.rate_process, RATE_POISSON);
        assert_int_equal(j.rate_iops_min[DDIR_WRITE], 500);
        assert_int_equal(j.rate_cycle_ms, 250);
        assert_int_equal(j.latency_target_ns, 2 * NS_MS);
        assert_int_equal(j.latency_window_ns, NS_S);
        assert_true(fabs(j.latency_percentile - 99.9) < 1e-9);
        assert_true(j.latency_run);
        assert_int_equal(j.max_latency_ns[DDIR_READ], 10 * NS_MS);
        assert_int_equal(j.max_latency_ns[DDIR_WRITE], 20 * NS_MS);
        assert_int_equal(j.io_submit_mode, SUBMIT_OFFLOAD);
        validate_ok(&j);
        job_spec_done(&j);

        job_with(&j, "ratemin", "10m", NULL);
        assert_int_equal(j.rate_min[DDIR_READ], 10 << 20);
        job_spec_done(&j);

        set_fails("latency_percentile", "100.5", -EINVAL, "0..100");
        set_fails("thinktime_blocks_type", "always", -EINVAL, "complete, issue");
        set_fails("rate_process", "bursty", -EINVAL, "linear, poisson");

        job_with(&j, "thinktime", "10", "thinktime_spin", "20", NULL);
        validate_fails(&j, -EINVAL, "thinktime_spin: 20us is longer than thinktime=10us");
        job_spec_done(&j);
        job_with(&j, "thinktime_blocks", "4", NULL);
        validate_fails(&j, -EINVAL, "only apply with a thinktime");
        job_spec_done(&j);
        job_with(&j, "rate_process", "poisson", NULL);
        validate_fails(&j, -EINVAL, "poisson paces a rate");
        job_spec_done(&j);
        job_with(&j, "rate", "10m", "rate_min", "20m", NULL);
        validate_fails(&j, -EINVAL, "rate_min: read 20m/s is above rate=10m/s");
        job_spec_done(&j);
        job_with(&j, "rate_min", "1m", "rate_iops_min", "10", NULL);
        validate_fails(&j, -EINVAL, "exclude each other");
        job_spec_done(&j);
        job_with(&j, "ioengine", "libaio", "io_submit_mode", "offload", NULL);
        validate_fails(&j, -EINVAL, "not ioengine=libaio");
        job_spec_done(&j);
        job_with(&j, "ioengine", "sync", "io_submit_mode", "offload", NULL);
        validate_fails(&j, -EINVAL, "keeps no file position");
        job_spec_done(&j);
        job_with(&j, "latency_window", "1s", NULL);
        validate_fails(&j, -EINVAL, "only applies with a latency_target");
        job_spec_done(&j);
}

static void test_placement(void **state)
{
        job_spec_t j;
        (void)state;

        job_with(&j, "cpus_allowed", "0,5,8-10", "cpus_allowed_policy", "split", "nice", "-5",
                 "prio", "4", "prioclass", "3", "ioscheduler", "mq-deadline", NULL);
        assert_int_equal(j.cpus_allowed.n, 5);
        assert_int_equal(j.cpus_allowed.bits[0], (1ULL << 0) | (1ULL << 5) | (7ULL << 8));
        assert_int_equal(j.cpus_allowed_policy, CPUS_SPLIT);
        assert_int_equal(j.nice, -5);
        assert_int_equal(j.prio, 4);
        assert_int_equal(j.prioclass, 3);
        assert_string_equal(j.ioscheduler, "mq-deadline");
        validate_ok(&j);
        set_ok(&j, "cpumask", "0x12");
        assert_int_equal(j.cpus_allowed.n, 2);
        assert_int_equal(j.cpus_allowed.bits[0], 0x12);
        job_spec_done(&j);

        job_with(&j, "numa_cpu_nodes", "all", "numa_mem_policy", "interleave", NULL);
        assert_int_equal(j.numa_cpu_nodes.n, 64);
        assert_int_equal(j.numa_mem_mode, NUMA_MEM_INTERLEAVE);
        assert_int_equal(j.numa_mem_nodes.n, 64);
        set_ok(&j, "numa_mem_policy", "bind:0-1");
        assert_int_equal(j.numa_mem_nodes.n, 2);
        set_ok(&j, "numa_mem_policy", "local");
        assert_int_equal(j.numa_mem_mode, NUMA_MEM_LOCAL);
        assert_int_equal(j.numa_mem_nodes.n, 0);
        validate_ok(&j);
        job_spec_done(&j);

        set_fails("cpus_allowed", "0,x", -EINVAL, "is not a list of CPUs");
        set_fails("cpus_allowed", "3-1", -EINVAL, "is not a list of CPUs");
        set_fails("cpus_allowed", "1024", -EINVAL, "0..1023");
        set_fails("cpumask", "0", -EINVAL, "bit mask");
        set_fails("numa_cpu_nodes", "64", -EINVAL, "0..63");
        set_fails("numa_mem_policy", "prefer:0,1", -EINVAL, "exactly one node");
        set_fails("numa_mem_policy", "bind", -EINVAL, "needs a node list");
        set_fails("numa_mem_policy", "local:0", -EINVAL, "takes no node list");
        set_fails("numa_mem_policy", "spread:0", -EINVAL, "default, prefer, bind");
        set_fails("nice", "20", -ERANGE, "-20..19");
        set_fails("prio", "8", -ERANGE, "0..7");
        set_fails("prioclass", "4", -ERANGE, "0..3");
        set_fails("ioscheduler", "BFQ", -EINVAL, "is not a scheduler name");

        job_with(&j, "cpus_allowed", "0", "numa_cpu_nodes", "0", NULL);
        validate_fails(&j, -EINVAL, "give one");
        job_spec_done(&j);
        job_with(&j, "cpus_allowed_policy", "split", NULL);
        validate_fails(&j, -EINVAL, "give one");
        job_spec_done(&j);
}

static void test_engine_rules(void **state)
{
        job_spec_t j;
        (void)state;

        job_with(&j, "ioengine", "ftruncate", "rw", "randwrite", NULL);
        validate_ok(&j);
        set_ok(&j, "rw", "read");
        validate_fails(&j, -EINVAL, "ftruncate only writes");
        job_spec_done(&j);
        job_with(&j, "ioengine", "filedelete", "readonly", "1", NULL);
        validate_fails(&j, -EINVAL, "readonly: ioengine=filedelete changes the files");
        job_spec_done(&j);
        job_with(&j, "ioengine", "psync", "hipri", "1", NULL);
        validate_fails(&j, -EINVAL, "hipri: only ioengine=pvsync2");
        job_spec_done(&j);
        job_with(&j, "ioengine", "io_uring", "hipri", "1", NULL);
        validate_fails(&j, -EINVAL, "direct=1");
        set_ok(&j, "direct", "1");
        validate_ok(&j);
        job_spec_done(&j);
        job_with(&j, "ioengine", "null", "ioscheduler", "none", NULL);
        validate_fails(&j, -EINVAL, "uses no device");
        job_spec_done(&j);
}

/* Every option of this half and its aliases is known, none is on the refused list any more. */
static void test_known(void **state)
{
        static const char *const names[] = {
            "bssplit",          "bsrange",          "blocksize_range",    "bs_unaligned",
            "blocksize_unaligned", "ba",            "blockalign",         "io_size",
            "io_limit",         "number_ios",       "offset_increment",   "rw_sequencer",
            "thinktime",        "thinktime_spin",   "thinktime_blocks",   "thinktime_blocks_type",
            "thinktime_iotime", "rate_process",     "rate_min",           "ratemin",
            "rate_iops_min",    "rate_cycle",       "ratecycle",          "latency_target",
            "latency_window",   "latency_percentile", "latency_run",      "max_latency",
            "io_submit_mode",   "random_distribution", "percentage_random", "percentage_sequential",
            "random_generator", "cpus_allowed",     "cpumask",            "cpus_allowed_policy",
            "numa_cpu_nodes",   "numa_mem_policy",  "nice",               "prio",
            "prioclass",        "ioscheduler",      "hipri",
        };
        (void)state;
        for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
                int k = job_option_known(names[i]);
                if (k != JOB_OPTION_VALUE && k != JOB_OPTION_FLAG)
                        fail_msg("%s: %d", names[i], k);
        }
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_defaults),       cmocka_unit_test(test_bssplit),
            cmocka_unit_test(test_bsrange_and_align), cmocka_unit_test(test_sizes_and_counts),
            cmocka_unit_test(test_rw_suffix),      cmocka_unit_test(test_distributions),
            cmocka_unit_test(test_generators_and_mix), cmocka_unit_test(test_pacing),
            cmocka_unit_test(test_placement),      cmocka_unit_test(test_engine_rules),
            cmocka_unit_test(test_known),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
