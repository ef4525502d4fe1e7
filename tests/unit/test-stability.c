/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Tests of shared/stability.c: which figure a workload is judged by, the relative standard
 * deviation, when a step runs again (repeat, until_stddev, max_repeats), and the steady-state
 * criterion over a window of samples, each a row of a table.
 */
#include <check.h>
#include <math.h>
#include <stdlib.h>

#include "check-util.h"
#include "shared/stability.h"
#include "shared/util.h"

START_TEST(test_main_figure) {
        ck_assert_int_eq(workload_main_figure(WORKLOAD_READ), FIGURE_BANDWIDTH);
        ck_assert_int_eq(workload_main_figure(WORKLOAD_WRITE), FIGURE_BANDWIDTH);
        ck_assert_int_eq(workload_main_figure(WORKLOAD_STRIDE_READ), FIGURE_BANDWIDTH);
        ck_assert_int_eq(workload_main_figure(WORKLOAD_POSITION), FIGURE_BANDWIDTH);
        ck_assert_int_eq(workload_main_figure(WORKLOAD_RANDREAD), FIGURE_IOPS);
        ck_assert_int_eq(workload_main_figure(WORKLOAD_RANDRW), FIGURE_IOPS);
        ck_assert_int_eq(workload_main_figure(WORKLOAD_PING), FIGURE_IOPS);
        ck_assert_int_eq(workload_main_figure(WORKLOAD_METADATA), FIGURE_OPS);
        ck_assert_int_eq(workload_main_figure(WORKLOAD_SEEKS), FIGURE_OPS);
        ck_assert_str_eq(figure_kind_unit(FIGURE_BANDWIDTH), "MB/s");
        ck_assert_str_eq(figure_kind_unit(FIGURE_IOPS), "IOPS");
        ck_assert_str_eq(figure_kind_unit(FIGURE_OPS), "ops/s");
        ck_assert_ptr_null(figure_kind_unit(_FIGURE_KIND_MAX));

        /* 100 MB in 2 s; 5000 I/Os in 0.5 s; 300 operations in 3 s. */
        ck_assert_double_eq_tol(figure_value(FIGURE_BANDWIDTH, 100000000, 7, 0, 2000000), 50.0, 1e-9);
        ck_assert_double_eq_tol(figure_value(FIGURE_IOPS, 1, 5000, 0, 500000), 10000.0, 1e-9);
        ck_assert_double_eq_tol(figure_value(FIGURE_OPS, 1, 5, 300, 3000000), 100.0, 1e-9);
        ck_assert(isnan(figure_value(FIGURE_IOPS, 1, 5000, 0, 0)));
}
END_TEST

static const struct {
        double v[8];
        size_t n;
        double rsd; /* NAN: none */
} rsd_cases[] = {
        { { 100 }, 1, NAN },
        { { 100, 100 }, 2, 0.0 },
        /* mean 100, sample stddev sqrt(((−10)² + 10²) / 1) = 14.142... */
        { { 90, 110 }, 2, 14.142135623730951 },
        /* mean 5, sample variance 32/7 (the textbook 2,4,4,4,5,5,7,9) */
        { { 2, 4, 4, 4, 5, 5, 7, 9 }, 8, 42.76179870598791 },
        { { 0, 0, 0 }, 3, NAN },
        { { 1, -1 }, 2, NAN },
        { { 1, NAN, 2 }, 3, NAN },
        { { 1, INFINITY }, 2, NAN },
};

START_TEST(test_rsd) {
        double got = relative_stddev_pct(rsd_cases[_i].v, rsd_cases[_i].n);

        if (isnan(rsd_cases[_i].rsd))
                ck_assert_msg(isnan(got), "case %d: %g, expected none", _i, got);
        else
                ck_assert_double_eq_tol(got, rsd_cases[_i].rsd, 1e-9);
}
END_TEST

/* When a step runs again, after runs_done runs with these figures. */
static const struct {
        uint32_t repeat, until_milli, max_repeats;
        uint32_t runs_done;
        double figures[10];
        bool again;
        uint32_t min_runs, planned;
} repeat_cases[] = {
        /* A zeroed spec (as the job core's tests make them) runs once. */
        { 0, 0, 0, 1, { 0 }, false, 1, 1 },
        { 1, 0, 10, 1, { 0 }, false, 1, 1 },
        { 3, 0, 10, 1, { 0 }, true, 3, 3 },
        { 3, 0, 10, 2, { 0 }, true, 3, 3 },
        { 3, 0, 10, 3, { 0 }, false, 3, 3 },
        /* until_stddev: at least 3 runs, however stable the first two. */
        { 1, 5000, 10, 1, { 100 }, true, 3, 10 },
        { 1, 5000, 10, 2, { 100, 100 }, true, 3, 10 },
        { 1, 5000, 10, 3, { 100, 101, 99 }, false, 3, 10 },
        /* 1% below 5%; 20% not: on. */
        { 1, 5000, 10, 3, { 80, 100, 120 }, true, 3, 10 },
        /* ... until max_repeats, stable or not. */
        { 1, 5000, 10, 9, { 80, 100, 120, 80, 100, 120, 80, 100, 120 }, true, 3, 10 },
        { 1, 5000, 4, 4, { 80, 100, 120, 80 }, false, 3, 4 },
        /* below, strictly: rsd exactly 1% is not below 1%. */
        { 1, 1000, 10, 3, { 99, 100, 101 }, true, 3, 10 },
        { 1, 1001, 10, 3, { 99, 100, 101 }, false, 3, 10 },
        /* A larger repeat is the minimum. */
        { 5, 5000, 10, 4, { 100, 100, 100, 100 }, true, 5, 10 },
        { 5, 5000, 10, 5, { 100, 100, 100, 100, 100 }, false, 5, 10 },
        /* A figure that is not known is not stable. */
        { 1, 5000, 10, 3, { 100, NAN, 100 }, true, 3, 10 },
        /* 0.001% cannot be met by figures that differ at all. */
        { 1, 1, 5, 4, { 100, 100.01, 100, 100 }, true, 3, 5 },
};

START_TEST(test_repeat_again) {
        JobSpec s;

        spec_init(&s);
        s.workload = WORKLOAD_WRITE;
        s.repeat = repeat_cases[_i].repeat;
        s.until_stddev_milli = repeat_cases[_i].until_milli;
        s.max_repeats = repeat_cases[_i].max_repeats;
        ck_assert_uint_eq(stability_min_runs(&s), repeat_cases[_i].min_runs);
        ck_assert_uint_eq(stability_planned_runs(&s), repeat_cases[_i].planned);
        ck_assert_msg(stability_repeat_again(&s, repeat_cases[_i].runs_done, repeat_cases[_i].figures,
                                             repeat_cases[_i].runs_done) == repeat_cases[_i].again,
                      "case %d: expected %s", _i, repeat_cases[_i].again ? "again" : "done");
}
END_TEST

static const struct {
        SteadyStateKind kind;
        double limit;
        double w[10];
        size_t n;
        double interval_s;
        bool met;
        double pct; /* NAN: none */
} steady_cases[] = {
        /* mean 100, largest deviation 2: 2% */
        { STEADY_STATE_IOPS, 2.0, { 100, 102, 98, 100 }, 4, 1.0, true, 2.0 },
        { STEADY_STATE_BW, 1.999, { 100, 102, 98, 100 }, 4, 1.0, false, 2.0 },
        { STEADY_STATE_IOPS, 5.0, { 100, 100 }, 2, 1.0, true, 0.0 },
        /* too few samples, a stalled window, garbage */
        { STEADY_STATE_IOPS, 5.0, { 100 }, 1, 1.0, false, NAN },
        { STEADY_STATE_BW, 5.0, { 0, 0, 0 }, 3, 1.0, false, NAN },
        { STEADY_STATE_BW, 5.0, { 100, NAN, 100 }, 3, 1.0, false, NAN },
        { STEADY_STATE_BW, 5.0, { 100, 100 }, 2, 0.0, false, NAN },
        /* rising by 1 a sample of 0.5 s: slope 2/s over a mean of 101.5: 1.97% */
        { STEADY_STATE_IOPS_SLOPE, 2.0, { 100, 101, 102, 103 }, 4, 0.5, true, 1.9704433497536946 },
        { STEADY_STATE_BW_SLOPE, 1.9, { 100, 101, 102, 103 }, 4, 0.5, false, 1.9704433497536946 },
        /* alternating: slope 40/42 a second over a mean of 100 */
        { STEADY_STATE_BW_SLOPE, 0.9, { 90, 110, 90, 110, 90, 110, 90, 110 }, 8, 1.0, false, 0.9523809523809523 },
        /* noisy but flat: the slope is 0 where the deviation is 10% */
        { STEADY_STATE_BW_SLOPE, 0.5, { 90, 110, 110, 90, 90, 110, 110, 90 }, 8, 1.0, true, 0.0 },
        { STEADY_STATE_BW, 5.0, { 90, 110, 110, 90, 90, 110, 110, 90 }, 8, 1.0, false, 10.0 },
        { STEADY_STATE_NONE, 5.0, { 100, 100 }, 2, 1.0, false, NAN },
};

START_TEST(test_steady_state) {
        double pct;
        bool met = steady_state_met(steady_cases[_i].kind, steady_cases[_i].limit, steady_cases[_i].w,
                                    steady_cases[_i].n, steady_cases[_i].interval_s, &pct);

        ck_assert_msg(met == steady_cases[_i].met, "case %d: %s (%g%%)", _i, met ? "met" : "not met", pct);
        if (!isnan(steady_cases[_i].pct))
                ck_assert_double_eq_tol(pct, steady_cases[_i].pct, 1e-9);
        else
                ck_assert_msg(isnan(pct), "case %d: %g, expected none", _i, pct);
        ck_assert(steady_state_met(steady_cases[_i].kind, steady_cases[_i].limit, steady_cases[_i].w,
                                   steady_cases[_i].n, steady_cases[_i].interval_s, NULL) == met);
}
END_TEST

START_TEST(test_steady_kind) {
        ck_assert(steady_state_kind_iops(STEADY_STATE_IOPS));
        ck_assert(steady_state_kind_iops(STEADY_STATE_IOPS_SLOPE));
        ck_assert(!steady_state_kind_iops(STEADY_STATE_BW));
        ck_assert(!steady_state_kind_iops(STEADY_STATE_BW_SLOPE));
        ck_assert_str_eq(steady_state_kind_to_string(STEADY_STATE_BW_SLOPE), "bw_slope");
        ck_assert_ptr_null(steady_state_kind_to_string(STEADY_STATE_NONE));
}
END_TEST

static Suite *stability_suite(void) {
        Suite *s = suite_create("stability");
        TCase *tc = tcase_create("stability");

        tcase_add_test(tc, test_main_figure);
        tcase_add_loop_test(tc, test_rsd, 0, ELEMENTSOF(rsd_cases));
        tcase_add_loop_test(tc, test_repeat_again, 0, ELEMENTSOF(repeat_cases));
        tcase_add_loop_test(tc, test_steady_state, 0, ELEMENTSOF(steady_cases));
        tcase_add_test(tc, test_steady_kind);
        suite_add_tcase(s, tc);
        return s;
}

int main(void) {
        return check_run(stability_suite());
}
