/* Tests for fio's job order as jobgroups.c derives it: serial and reporting groups, waits, and
 * the run's span. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "jobgroups.h"
#include "util.h"

/* n jobs named j0.. with runtime 1s (+ the options a caller sets after). */
static void jobs_init(job_spec_t *j, size_t n)
{
        char name[8];
        for (size_t i = 0; i < n; i++) {
                snprintf(name, sizeof(name), "j%zu", i);
                assert_int_equal(job_spec_init(&j[i], name), 0);
                j[i].runtime_ns = NSEC_PER_SEC;
                j[i].time_based = true;
        }
}

static void jobs_done(job_spec_t *j, size_t n)
{
        for (size_t i = 0; i < n; i++)
                job_spec_done(&j[i]);
}

/* fio's sample: a, b together; c stonewall; d new_group; e wait_for=d. groupids 0 0 1 2 2. */
static void test_fio_order(void **state)
{
        job_spec_t j[5];
        jobgroup_t g[5];
        uint32_t n = 0;
        char err[256];

        (void)state;
        jobs_init(j, 5);
        j[2].stonewall = true;
        j[3].new_group = true;
        assert_int_equal(strdup_to(&j[4].wait_for, "j3"), 0);
        assert_int_equal(jobgroups_plan(j, 5, g, &n, err, sizeof(err)), 0);
        assert_int_equal(n, 2);
        static const uint32_t group[] = {0, 0, 1, 1, 1}, groupid[] = {0, 0, 1, 2, 2};
        static const int32_t waits[] = {-1, -1, -1, -1, 3};
        for (int i = 0; i < 5; i++) {
                assert_int_equal(g[i].group, group[i]);
                assert_int_equal(g[i].groupid, groupid[i]);
                assert_int_equal(g[i].waits_for, waits[i]);
        }
        /* a and b 1s, c and d 1s, e after d: 3s */
        assert_int_equal(jobgroups_span(j, 5), 3 * NSEC_PER_SEC);
        jobs_done(j, 5);
}

/* A stonewall on the first job waits for nothing; a wait for a job of an earlier group is no
 * wait; forward references and self-waits are refused. */
static void test_edges(void **state)
{
        job_spec_t j[3];
        jobgroup_t g[3];
        uint32_t n = 0;
        char err[256];

        (void)state;
        jobs_init(j, 3);
        j[0].stonewall = true;
        j[0].new_group = true;
        j[2].stonewall = true;
        assert_int_equal(strdup_to(&j[2].wait_for, "j0"), 0);
        assert_int_equal(jobgroups_plan(j, 3, g, &n, err, sizeof(err)), 0);
        assert_int_equal(n, 2);
        assert_int_equal(g[0].group, 0);
        assert_int_equal(g[0].groupid, 0);
        assert_int_equal(g[2].group, 1);
        assert_int_equal(g[2].waits_for, -1);
        assert_int_equal(strdup_to(&j[0].wait_for, "j2"), 0);
        assert_int_equal(jobgroups_plan(j, 3, g, &n, err, sizeof(err)), -EINVAL);
        assert_non_null(strstr(err, "job j0: wait_for=j2 names no job given before it"));
        assert_int_equal(jobgroups_span(j, 3), 0);
        jobs_done(j, 3);
}

/* The span: startdelay and ramp count, an untimed job makes the run open-ended. */
static void test_span(void **state)
{
        job_spec_t j[3];

        (void)state;
        jobs_init(j, 3);
        j[0].ramp_time_ns = NSEC_PER_SEC;
        j[1].startdelay_ns = 3 * NSEC_PER_SEC;
        j[2].stonewall = true;
        assert_int_equal(jobgroups_span(j, 3), 5 * NSEC_PER_SEC);
        j[2].runtime_ns = 0;
        assert_int_equal(jobgroups_span(j, 3), 0);
        jobs_done(j, 3);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_fio_order),
            cmocka_unit_test(test_edges),
            cmocka_unit_test(test_span),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
