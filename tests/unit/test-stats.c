/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * shared/stats against published figures: Student's t quantiles from the printed tables
 * (t_{0.975, 1} = 12.706, t_{0.975, 10} = 2.228, t_{0.975, ∞} = 1.960), Welch's test on R's `sleep`
 * data (t.test(extra ~ group): t = -1.8608, df = 17.776, p-value = 0.07939, as R's documentation
 * prints it) and on the first example of Wikipedia's "Welch's t-test" (t = -2.46, df = 25.0,
 * p = 0.021); the remaining digits, the CDF and incomplete beta values come from mpmath at 30
 * digits (betainc(a, b, 0, x, regularized=True)), an implementation independent of ours. Then the
 * edges: fewer than two observations, no spread, arguments outside the domains.
 */
#include <check.h>
#include <errno.h>
#include <math.h>
#include <stdbool.h>

#include "check-util.h"
#include "shared/stats.h"
#include "shared/util.h"

#define assert_close(got, want, tol)                                                               \
        ck_assert_msg(fabs((got) - (want)) <= (tol), "%s = %.15g, expected %.15g ± %g", #got,      \
                      (double) (got), (double) (want), (double) (tol))

static const struct {
        double p, df, t;
} quantiles[] = {
        /* printed tables, three decimals */
        { 0.975, 1, 12.706 },
        { 0.975, 10, 2.228 },
        { 0.975, 30, 2.042 },
        { 0.995, 5, 4.032 },
        { 0.95, 20, 1.725 },
        { 0.975, INFINITY, 1.960 },
        /* mpmath */
        { 0.975, 1, 12.7062047361747 },
        { 0.975, 2, 4.30265272974946 },
        { 0.975, 10, 2.22813885198627 },
        { 0.975, 30, 2.04227245630124 },
        { 0.995, 5, 4.03214298355523 },
        { 0.95, 20, 1.72471824292079 },
        { 0.9995, 1, 636.61924876879 },
        { 0.975, 4.5, 2.6589123472044 },        /* Welch's df are not integers */
        { 0.975, 1e5, 1.95998770753461 },
        { 0.975, INFINITY, 1.95996398454005 },
};

START_TEST(test_t_quantile) {
        double p = quantiles[_i].p, df = quantiles[_i].df, want = quantiles[_i].t;
        /* Three printed decimals are ±0.0005; the rest agree to 10 significant digits. */
        double tol = want == round(want * 1000) / 1000 ? 5e-4 : fabs(want) * 1e-10;

        assert_close(stats_t_quantile(p, df), want, tol);
        assert_close(stats_t_quantile(1 - p, df), -want, tol);
        assert_close(stats_t_cdf(stats_t_quantile(p, df), df), p, 1e-12);
}
END_TEST

START_TEST(test_t_cdf) {
        static const struct {
                double t, df, cdf;
        } cases[] = {
                { 2.0, 3, 0.930337015720578 },
                { -1.5, 7.5, 0.0872402852932321 },
                { 0.1, 1, 0.531725517430554 },
                { 10, 2, 0.995073771488337 },
                { 3.0, 100, 0.998296042328335 },
                { 0, 4, 0.5 },
                { 1.959963984540054, INFINITY, 0.975 },
        };

        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                assert_close(stats_t_cdf(cases[i].t, cases[i].df), cases[i].cdf, 1e-12);
                assert_close(stats_t_cdf(-cases[i].t, cases[i].df), 1 - cases[i].cdf, 1e-12);
                assert_close(stats_t_two_sided_p(cases[i].t, cases[i].df),
                             2 * fmin(cases[i].cdf, 1 - cases[i].cdf), 1e-12);
        }
        ck_assert(stats_t_two_sided_p(INFINITY, 3) == 0);
        ck_assert(stats_t_two_sided_p(1e200, 3) == 0);
        ck_assert(stats_t_cdf(-INFINITY, 3) == 0);
        ck_assert(isnan(stats_t_cdf(1, 0)));
        ck_assert(isnan(stats_t_cdf(1, -2)));
        ck_assert(isnan(stats_t_cdf(NAN, 2)));
        ck_assert(isnan(stats_t_quantile(0, 2)));
        ck_assert(isnan(stats_t_quantile(1, 2)));
        ck_assert(isnan(stats_t_quantile(0.5, NAN)));
        ck_assert(stats_t_quantile(0.5, 3) == 0);
}
END_TEST

START_TEST(test_incomplete_beta) {
        static const struct {
                double a, b, x, want;
        } cases[] = {
                { 2, 3, 0.5, 0.6875 },                  /* exact: 11/16 */
                { 0.5, 0.5, 0.1, 0.204832764699133 },   /* (2/π) asin √0.1 */
                { 10, 0.5, 0.9, 0.15164090963471 },
                { 5, 5, 0.99, 0.999999987814631 },
                { 1.5, 20, 0.05, 0.44342120168569 },
                { 3, 4, 0, 0 },
                { 3, 4, 1, 1 },
        };

        for (size_t i = 0; i < ELEMENTSOF(cases); i++)
                assert_close(stats_incomplete_beta(cases[i].a, cases[i].b, cases[i].x), cases[i].want, 1e-13);
        /* Symmetry I_x(a, b) = 1 - I_{1-x}(b, a), both sides of the continued fraction's switch. */
        for (double x = 0.05; x < 1; x += 0.1)
                assert_close(stats_incomplete_beta(2.5, 7, x), 1 - stats_incomplete_beta(7, 2.5, 1 - x), 1e-13);
        ck_assert(isnan(stats_incomplete_beta(0, 1, 0.5)));
        ck_assert(isnan(stats_incomplete_beta(1, -1, 0.5)));
        ck_assert(isnan(stats_incomplete_beta(1, 1, 1.5)));
        ck_assert(isnan(stats_incomplete_beta(1, 1, NAN)));
}
END_TEST

/* R's `sleep` data: extra hours of sleep of ten patients under two drugs. */
static const double sleep1[] = { 0.7, -1.6, -0.2, -1.2, -0.1, 3.4, 3.7, 0.8, 0.0, 2.0 };
static const double sleep2[] = { 1.9, 0.8, 1.1, 0.1, -0.1, 4.4, 5.5, 1.6, 4.6, 3.4 };

START_TEST(test_mean_stddev) {
        static const double big[] = { 1e9 + 4, 1e9 + 7, 1e9 + 13, 1e9 + 16 };

        assert_close(stats_mean(sleep1, ELEMENTSOF(sleep1)), 0.75, 1e-15);
        assert_close(stats_stddev(sleep1, ELEMENTSOF(sleep1)), 1.78900965776, 1e-10);
        assert_close(stats_stddev(sleep2, ELEMENTSOF(sleep2)), 2.0022487358, 1e-10);
        /* Far from 0 with a small spread: a one-pass sum of squares would lose it. */
        assert_close(stats_stddev(big, ELEMENTSOF(big)), sqrt(30.0), 1e-9);
        ck_assert(isnan(stats_mean(sleep1, 0)));
        ck_assert(isnan(stats_stddev(sleep1, 1)));
        ck_assert(stats_stddev_from_m2(3, -1e-18) == 0);
        ck_assert(isnan(stats_stddev_from_m2(1, 4)));
}
END_TEST

START_TEST(test_mean_interval) {
        double lo = 0, hi = 0;

        /* t.test(sleep1): 95 percent confidence interval -0.5297804 2.0297804 */
        ck_assert_int_eq(stats_mean_interval(10, 0.75, stats_stddev(sleep1, 10), 0.95, &lo, &hi), 0);
        assert_close(lo, -0.529780413526232, 1e-10);
        assert_close(hi, 2.029780413526232, 1e-10);
        /* A higher level is a wider interval around the same mean. */
        ck_assert_int_eq(stats_mean_interval(10, 0.75, stats_stddev(sleep1, 10), 0.99, &lo, &hi), 0);
        ck_assert(lo < -0.53 && hi > 2.03);
        assert_close((lo + hi) / 2, 0.75, 1e-12);
        /* Two observations 10 apart: 5 ± 12.706 · 7.071 / √2. */
        ck_assert_int_eq(stats_mean_interval(2, 5, sqrt(50), 0.95, &lo, &hi), 0);
        assert_close(hi - 5, 12.7062047361747 * 5, 1e-9);
        /* No spread: the interval is the mean. */
        ck_assert_int_eq(stats_mean_interval(5, 3, 0, 0.95, &lo, &hi), 0);
        ck_assert(lo == 3 && hi == 3);

        lo = hi = 42;
        ck_assert_int_eq(stats_mean_interval(1, 3, 0, 0.95, &lo, &hi), -EDOM);
        ck_assert_int_eq(stats_mean_interval(0, 3, 0, 0.95, &lo, &hi), -EDOM);
        ck_assert(lo == 42 && hi == 42);
        ck_assert_int_eq(stats_mean_interval(5, 3, 1, 1.0, &lo, &hi), -EINVAL);
        ck_assert_int_eq(stats_mean_interval(5, 3, 1, 0, &lo, &hi), -EINVAL);
        ck_assert_int_eq(stats_mean_interval(5, 3, -1, 0.95, &lo, &hi), -EINVAL);
        ck_assert_int_eq(stats_mean_interval(5, 3, NAN, 0.95, &lo, &hi), -EINVAL);
}
END_TEST

START_TEST(test_welch_published) {
        StatsWelch w;

        /* R: t.test(extra ~ group, data = sleep): t = -1.8608, df = 17.776, p-value = 0.07939 */
        ck_assert_int_eq(stats_welch(10, stats_mean(sleep2, 10), stats_stddev(sleep2, 10), 10,
                                     stats_mean(sleep1, 10), stats_stddev(sleep1, 10), &w), 0);
        assert_close(w.t, -1.8608, 5e-5);
        assert_close(w.df, 17.776, 5e-4);
        assert_close(w.p, 0.07939, 5e-6);
        assert_close(w.t, -1.86081346749, 1e-10);
        assert_close(w.df, 17.7764735162, 1e-9);
        assert_close(w.p, 0.0793941401874, 1e-11);

        /* Wikipedia, "Welch's t-test", example 1: t = -2.46, df = 25.0, p = 0.021 */
        static const double a1[] = { 27.5, 21.0, 19.0, 23.6, 17.0, 17.9, 16.9, 20.1, 21.9, 22.6, 23.1, 19.6,
                                     19.0, 21.7, 21.4 };
        static const double a2[] = { 27.1, 22.0, 20.8, 23.4, 23.4, 23.5, 25.8, 22.0, 24.8, 20.2, 21.9, 22.1,
                                     22.9, 20.5, 24.4 };
        ck_assert_int_eq(stats_welch(15, stats_mean(a2, 15), stats_stddev(a2, 15), 15, stats_mean(a1, 15),
                                     stats_stddev(a1, 15), &w), 0);
        assert_close(w.t, -2.46, 5e-3);
        assert_close(w.df, 25.0, 5e-2);
        assert_close(w.p, 0.021, 5e-4);
        assert_close(w.p, 0.0213780014629, 1e-11);

        /* Swapping the samples flips t and keeps df and p. */
        StatsWelch s;
        ck_assert_int_eq(stats_welch(15, stats_mean(a1, 15), stats_stddev(a1, 15), 15, stats_mean(a2, 15),
                                     stats_stddev(a2, 15), &s), 0);
        assert_close(s.t, -w.t, 1e-12);
        assert_close(s.df, w.df, 1e-9);
        assert_close(s.p, w.p, 1e-12);
}
END_TEST

START_TEST(test_welch_edges) {
        StatsWelch w = { .t = 42 };

        /* Fewer than two observations in either sample: no test, nothing written. */
        ck_assert_int_eq(stats_welch(1, 5, 0, 10, 6, 1, &w), -EDOM);
        ck_assert_int_eq(stats_welch(10, 5, 1, 1, 6, 0, &w), -EDOM);
        ck_assert_int_eq(stats_welch(0, 5, 0, 0, 6, 0, &w), -EDOM);
        ck_assert(w.t == 42);
        ck_assert_int_eq(stats_welch(3, 5, -1, 3, 6, 1, &w), -EINVAL);
        ck_assert_int_eq(stats_welch(3, 5, 1, 3, NAN, 1, &w), -EINVAL);

        /* No spread in either: equal means are not different, different ones certainly are. */
        ck_assert_int_eq(stats_welch(4, 100, 0, 5, 100, 0, &w), 0);
        ck_assert(w.p == 1 && w.t == 0);
        ck_assert_int_eq(stats_welch(4, 100, 0, 5, 120, 0, &w), 0);
        ck_assert(w.p == 0 && isinf(w.t) && w.t > 0 && isnan(w.df));
        ck_assert_int_eq(stats_welch(4, 100, 0, 5, 80, 0, &w), 0);
        ck_assert(w.p == 0 && isinf(w.t) && w.t < 0);

        /* Spread in one only: df is that sample's n - 1. */
        ck_assert_int_eq(stats_welch(4, 100, 0, 6, 110, 5, &w), 0);
        assert_close(w.df, 5, 1e-12);
        assert_close(w.t, 10 / (5 / sqrt(6)), 1e-12);
        assert_close(w.p, stats_t_two_sided_p(w.t, 5), 1e-15);

        /* Tight groups 20% apart: significant; wide overlapping ones: not. */
        ck_assert_int_eq(stats_welch(5, 100, 1, 5, 120, 1, &w), 0);
        ck_assert(w.p < 1e-6);
        ck_assert_int_eq(stats_welch(5, 100, 30, 5, 112, 30, &w), 0);
        ck_assert(w.p > 0.5);
}
END_TEST

/* R's `sleep` data is paired (the same ten patients under both drugs): t.test(sleep2, sleep1,
 * paired = TRUE) gives t = 4.0621, df = 9, p-value = 0.002833, 95 percent confidence interval
 * 0.7001142 2.4598858, mean difference 1.58. */
START_TEST(test_paired_published) {
        StatsPaired p;

        ck_assert_int_eq(stats_paired(sleep1, sleep2, ELEMENTSOF(sleep1), 0.95, &p), 0);
        ck_assert_uint_eq(p.n, 10);
        assert_close(p.mean_diff, 1.58, 1e-12);
        assert_close(p.t, 4.0621, 5e-5);
        assert_close(p.df, 9, 0);
        assert_close(p.p, 0.002833, 5e-7);
        assert_close(p.ci_low, 0.7001142, 5e-8);
        assert_close(p.ci_high, 2.4598858, 5e-8);
        /* The other way round: the same test, the sign turned. */
        ck_assert_int_eq(stats_paired(sleep2, sleep1, ELEMENTSOF(sleep1), 0.95, &p), 0);
        assert_close(p.t, -4.0621, 5e-5);
        assert_close(p.ci_high, -0.7001142, 5e-8);
}
END_TEST

/* A filesystem matrix of two entries, A and B, measured in 6 rounds on a machine whose figures drift
 * by +1% a visit (12 visits: the machine warms up, a neighbour's load goes away), with a little
 * noise. Each visit's figure is 100 (A's true figure; B's is given) + drift + noise. visit_time()
 * says when each entry was measured in a schedule: entry by entry (A six times, then B six
 * times: how matrices ran before rounds), or in rounds alternating the order (A B, B A, A B, ...:
 * how they run now). */
#define DRIFT_ROUNDS 6

static double drift_figure(double truth, unsigned visit) {
        return truth + 1.0 * visit + 0.3 * sin(visit * 2.1);
}

static void drift_schedule(bool rounds, double truth_b, double a[static DRIFT_ROUNDS], double b[static DRIFT_ROUNDS]) {
        for (unsigned r = 0; r < DRIFT_ROUNDS; r++) {
                unsigned va, vb;

                if (rounds) {
                        va = 2 * r + (r % 2);           /* A first in even rounds, second in odd ones */
                        vb = 2 * r + 1 - (r % 2);
                } else {
                        va = r;
                        vb = DRIFT_ROUNDS + r;
                }
                a[r] = drift_figure(100, va);
                b[r] = drift_figure(truth_b, vb);
        }
}

static double welch_p(const double *a, const double *b, size_t n) {
        StatsWelch w;

        ck_assert_int_eq(stats_welch(n, stats_mean(a, n), stats_stddev(a, n), n, stats_mean(b, n),
                                     stats_stddev(b, n), &w), 0);
        return w.p;
}

START_TEST(test_paired_drift_cancels) {
        double a[DRIFT_ROUNDS], b[DRIFT_ROUNDS];
        StatsPaired p;

        /* No real difference. Entry by entry, B is measured 6 visits later than A: 6% "faster", and
         * the unpaired test, seeing two tight groups, calls that significant. A false difference. */
        drift_schedule(false, 100, a, b);
        ck_assert_msg(welch_p(a, b, DRIFT_ROUNDS) < 0.001, "Welch p = %g", welch_p(a, b, DRIFT_ROUNDS));
        /* In alternating rounds, each pair shares its round's drift: the paired test sees
         * differences of about ±1 around 0, not significant. */
        drift_schedule(true, 100, a, b);
        ck_assert_int_eq(stats_paired(a, b, DRIFT_ROUNDS, 0.95, &p), 0);
        ck_assert_msg(p.p > 0.5, "paired p = %g", p.p);
        ck_assert(p.ci_low < 0 && p.ci_high > 0);
        assert_close(p.mean_diff, 0, 0.2);
}
END_TEST

START_TEST(test_paired_finds_real_difference) {
        double a[DRIFT_ROUNDS], b[DRIFT_ROUNDS];
        StatsPaired p;

        /* B is really 3% faster, under the same drift, in rounds. The drift spreads each entry's six
         * figures over 11%, so the unpaired test cannot tell 3% from noise; the pairs can. */
        drift_schedule(true, 103, a, b);
        ck_assert_msg(welch_p(a, b, DRIFT_ROUNDS) > 0.1, "Welch p = %g", welch_p(a, b, DRIFT_ROUNDS));
        ck_assert_int_eq(stats_paired(a, b, DRIFT_ROUNDS, 0.95, &p), 0);
        ck_assert_msg(p.p < 0.01, "paired p = %g", p.p);
        ck_assert(p.ci_low > 0);
        assert_close(p.mean_diff, 3, 0.5);
}
END_TEST

START_TEST(test_paired_edges) {
        static const double x[] = { 1, 2, 3 }, y[] = { 2, 3, 4 }, z[] = { 1, 2, NAN };
        StatsPaired p = { .t = 42 };

        ck_assert_int_eq(stats_paired(x, y, 1, 0.95, &p), -EDOM);
        ck_assert_int_eq(stats_paired(x, y, 0, 0.95, &p), -EDOM);
        ck_assert(p.t == 42);
        ck_assert_int_eq(stats_paired(x, z, 3, 0.95, &p), -EINVAL);
        ck_assert_int_eq(stats_paired(x, y, 3, 1, &p), -EINVAL);
        /* Every pair 1 apart: certainly different; every pair equal: certainly not. */
        ck_assert_int_eq(stats_paired(x, y, 3, 0.95, &p), 0);
        ck_assert(p.p == 0 && isinf(p.t) && p.t > 0 && p.ci_low == 1 && p.ci_high == 1);
        ck_assert_int_eq(stats_paired(x, x, 3, 0.95, &p), 0);
        ck_assert(p.p == 1 && p.t == 0);
}
END_TEST

static Suite *stats_suite(void) {
        Suite *s = suite_create("stats");
        TCase *tc = tcase_create("core");

        tcase_add_loop_test(tc, test_t_quantile, 0, ELEMENTSOF(quantiles));
        tcase_add_test(tc, test_t_cdf);
        tcase_add_test(tc, test_incomplete_beta);
        tcase_add_test(tc, test_mean_stddev);
        tcase_add_test(tc, test_mean_interval);
        tcase_add_test(tc, test_welch_published);
        tcase_add_test(tc, test_welch_edges);
        tcase_add_test(tc, test_paired_published);
        tcase_add_test(tc, test_paired_drift_cancels);
        tcase_add_test(tc, test_paired_finds_real_difference);
        tcase_add_test(tc, test_paired_edges);
        suite_add_tcase(s, tc);
        return s;
}

int main(void) {
        return check_run(stats_suite());
}
