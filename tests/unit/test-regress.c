/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The regression detector on synthetic series from a fixed-seed PRNG, fed run by run as benchd
 * feeds it (each run judged against the runs before it, a flag remembered with its run): a
 * sustained 10% drop after stable runs is flagged within 3 runs and once; ±3% noise never is; one
 * outlier is not; a firmware change starts a new segment that needs its own runs; the better
 * direction never counts; an identical history uses the MAD floor. And the configuration keys.
 */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check-util.h"
#include "shared/regress.h"
#include "shared/util.h"

static uint64_t rng_state;

static void rng_seed(uint64_t seed) {
        rng_state = seed;
}

static uint64_t rnd(void) {
        /* splitmix64: deterministic, so a failure reproduces */
        uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
        return z ^ (z >> 31);
}

/* Uniform in [-1, 1). */
static double rnd_pm1(void) {
        return (double) (rnd() >> 11) / 4503599627370496.0 - 1.0;
}

/* base × (1 ± noise), uniformly. */
static double noisy(double base, double noise) {
        return base * (1.0 + noise * rnd_pm1());
}

#define SERIES_MAX 512

typedef struct Series {
        RegressPoint p[SERIES_MAX];
        size_t n;
        unsigned flags;
        long first_flag;        /* index of the first flagged run, -1: none */
} Series;

static void series_init(Series *s) {
        memset(s, 0, sizeof(*s));
        s->first_flag = -1;
}

/* Judges v against the series so far, then appends it (flagged when it was). */
static RegressVerdict feed(Series *s, const RegressConfig *c, bool higher_is_worse, double v, const char *segment,
                           RegressResult *ret) {
        RegressResult res;

        ck_assert_int_lt(s->n, SERIES_MAX);
        ck_assert_int_eq(regress_detect(c, higher_is_worse, s->p, s->n, v, segment, &res), 0);
        if (res.verdict == REGRESS_FLAGGED) {
                if (s->first_flag < 0)
                        s->first_flag = (long) s->n;
                s->flags++;
        }
        s->p[s->n++] = (RegressPoint) { .value = v, .segment = segment, .flagged = res.verdict == REGRESS_FLAGGED };
        if (ret)
                *ret = res;
        return res.verdict;
}

/* ---- the three series of the issue ---- */

START_TEST(test_sustained_drop_flagged_within_3_runs) {
        RegressConfig c = REGRESS_CONFIG_DEFAULT;

        for (uint64_t seed = 1; seed <= 50; seed++) {
                Series s;
                RegressResult res;

                rng_seed(seed);
                series_init(&s);
                for (int i = 0; i < 20; i++)
                        ck_assert_int_ne(feed(&s, &c, false, noisy(500.0, 0.01), "6.1\nFW1", NULL), REGRESS_FLAGGED);
                ck_assert_int_eq(s.flags, 0);
                /* The drop: 10% lower, same noise, from run 20 on. */
                for (int i = 0; i < 3; i++)
                        feed(&s, &c, false, noisy(450.0, 0.01), "6.1\nFW1", &res);
                ck_assert_msg(s.flags == 1, "seed %lu: %u flags in the 3 runs after the drop", (unsigned long) seed,
                              s.flags);
                ck_assert_int_ge(s.first_flag, 20);
                ck_assert_int_le(s.first_flag, 22);
                /* The flag's figures: the baseline is the stable level, the change about -10%. */
                {
                        RegressResult r;
                        ck_assert_int_eq(regress_detect(&c, false, s.p, (size_t) s.first_flag,
                                                        s.p[s.first_flag].value, "6.1\nFW1", &r), 0);
                        ck_assert_int_eq(r.verdict, REGRESS_FLAGGED);
                        ck_assert_int_eq(r.baseline_n, 20);
                        ck_assert(fabs(r.median - 500.0) < 5.0);
                        ck_assert(r.change_pct < -7.0 && r.change_pct > -13.0);
                }
                /* It stays down: one episode, one flag; the baseline moves to the new level. */
                for (int i = 0; i < 40; i++)
                        feed(&s, &c, false, noisy(450.0, 0.01), "6.1\nFW1", &res);
                ck_assert_int_eq(s.flags, 1);
                ck_assert_int_eq(res.verdict, REGRESS_WITHIN);
                ck_assert(fabs(res.median - 450.0) < 5.0);
                /* A second drop, once the first is the baseline, is a new episode. */
                for (int i = 0; i < 3; i++)
                        feed(&s, &c, false, noisy(380.0, 0.01), "6.1\nFW1", NULL);
                ck_assert_int_eq(s.flags, 2);
        }
}
END_TEST

START_TEST(test_noise_3pct_never_flagged) {
        RegressConfig c = REGRESS_CONFIG_DEFAULT;

        for (uint64_t seed = 1; seed <= 50; seed++) {
                Series s;
                unsigned suspects = 0;

                rng_seed(seed * 7919);
                series_init(&s);
                for (int i = 0; i < 100; i++) {
                        RegressVerdict v = feed(&s, &c, false, noisy(1000.0, 0.03), "k", NULL);
                        ck_assert_int_ne(v, REGRESS_CONTINUES);
                        suspects += v == REGRESS_SUSPECT;
                }
                ck_assert_msg(s.flags == 0, "seed %lu: ±3%% noise flagged %u times", (unsigned long) seed, s.flags);
                ck_assert_int_eq(suspects, 0);
                /* The same noise on a latency (higher is worse) is not flagged either. */
                series_init(&s);
                for (int i = 0; i < 100; i++)
                        feed(&s, &c, true, noisy(200000.0, 0.03), "k", NULL);
                ck_assert_int_eq(s.flags, 0);
        }
}
END_TEST

START_TEST(test_firmware_change_starts_new_segment) {
        RegressConfig c = REGRESS_CONFIG_DEFAULT;
        RegressResult res;
        Series s;

        rng_seed(42);
        series_init(&s);
        for (int i = 0; i < 20; i++)
                feed(&s, &c, false, noisy(500.0, 0.01), "6.1\nFW1", NULL);

        /* New firmware, 10% slower: not compared with FW1's runs. */
        ck_assert_int_eq(feed(&s, &c, false, noisy(450.0, 0.01), "6.1\nFW2", &res), REGRESS_NO_HISTORY);
        ck_assert(res.new_segment);
        ck_assert_int_eq(res.segment_runs, 0);
        ck_assert_int_eq(res.baseline_n, 0);
        /* Its own 5 baseline runs and the run before the judged one come first. */
        for (int i = 1; i < 6; i++) {
                ck_assert_int_eq(feed(&s, &c, false, noisy(450.0, 0.01), "6.1\nFW2", &res), REGRESS_NO_HISTORY);
                ck_assert(!res.new_segment);
                ck_assert_int_eq(res.segment_runs, (size_t) i);
        }
        ck_assert_int_eq(feed(&s, &c, false, noisy(450.0, 0.01), "6.1\nFW2", &res), REGRESS_WITHIN);
        ck_assert_int_eq(res.baseline_n, 5);
        ck_assert(fabs(res.median - 450.0) < 5.0);
        for (int i = 0; i < 20; i++)
                feed(&s, &c, false, noisy(450.0, 0.01), "6.1\nFW2", NULL);
        ck_assert_int_eq(s.flags, 0);

        /* Within the new segment, a drop is judged against it alone. */
        feed(&s, &c, false, noisy(400.0, 0.01), "6.1\nFW2", NULL);
        ck_assert_int_eq(feed(&s, &c, false, noisy(400.0, 0.01), "6.1\nFW2", &res), REGRESS_FLAGGED);
        ck_assert(fabs(res.median - 450.0) < 5.0);

        /* A kernel change is a segment too; back to the old key is a new segment again. */
        ck_assert_int_eq(feed(&s, &c, false, 400.0, "6.2\nFW2", &res), REGRESS_NO_HISTORY);
        ck_assert(res.new_segment);
        ck_assert_int_eq(feed(&s, &c, false, 400.0, "6.1\nFW1", &res), REGRESS_NO_HISTORY);
        ck_assert(res.new_segment);
        /* A NULL key is the empty one. */
        ck_assert_int_eq(regress_detect(&c, false, (RegressPoint[]) { { 1.0, NULL, false } }, 1, 1.0, "", &res), 0);
        ck_assert(!res.new_segment);
}
END_TEST

/* ---- the confirmation rule and the direction ---- */

START_TEST(test_single_outlier_not_flagged) {
        RegressConfig c = REGRESS_CONFIG_DEFAULT;
        RegressResult res;
        Series s;

        rng_seed(3);
        series_init(&s);
        for (int i = 0; i < 20; i++)
                feed(&s, &c, false, noisy(300.0, 0.01), "", NULL);
        ck_assert_int_eq(feed(&s, &c, false, 200.0, "", &res), REGRESS_SUSPECT);
        ck_assert(res.change_pct < -30.0);
        ck_assert_int_eq(feed(&s, &c, false, noisy(300.0, 0.01), "", NULL), REGRESS_WITHIN);
        ck_assert_int_eq(feed(&s, &c, false, 200.0, "", NULL), REGRESS_SUSPECT);
        for (int i = 0; i < 5; i++)
                feed(&s, &c, false, noisy(300.0, 0.01), "", NULL);
        ck_assert_int_eq(s.flags, 0);
}
END_TEST

START_TEST(test_direction) {
        RegressConfig c = REGRESS_CONFIG_DEFAULT;
        RegressResult res;
        Series s;

        /* Faster is never a regression of a throughput. */
        rng_seed(5);
        series_init(&s);
        for (int i = 0; i < 20; i++)
                feed(&s, &c, false, noisy(300.0, 0.01), "", NULL);
        for (int i = 0; i < 10; i++)
                ck_assert_int_eq(feed(&s, &c, false, 400.0, "", NULL), REGRESS_WITHIN);
        ck_assert_int_eq(s.flags, 0);

        /* A latency: higher is worse, lower is not. */
        series_init(&s);
        for (int i = 0; i < 20; i++)
                feed(&s, &c, true, noisy(100000.0, 0.01), "", NULL);
        for (int i = 0; i < 10; i++)
                ck_assert_int_eq(feed(&s, &c, true, 70000.0, "", NULL), REGRESS_WITHIN);
        ck_assert_int_eq(s.flags, 0);
        series_init(&s);
        for (int i = 0; i < 20; i++)
                feed(&s, &c, true, noisy(100000.0, 0.01), "", NULL);
        ck_assert_int_eq(feed(&s, &c, true, 125000.0, "", NULL), REGRESS_SUSPECT);
        ck_assert_int_eq(feed(&s, &c, true, 125000.0, "", &res), REGRESS_FLAGGED);
        ck_assert(res.change_pct > 20.0 && res.change_pct < 30.0);
        ck_assert_int_eq(feed(&s, &c, true, 125000.0, "", NULL), REGRESS_CONTINUES);
}
END_TEST

/* Significant but small: a 3% drop on a ±0.2% history is beyond 3 MADs but under the 5% effect. */
START_TEST(test_min_effect) {
        RegressConfig c = REGRESS_CONFIG_DEFAULT;
        Series s;

        rng_seed(11);
        series_init(&s);
        for (int i = 0; i < 20; i++)
                feed(&s, &c, false, noisy(1000.0, 0.002), "", NULL);
        for (int i = 0; i < 5; i++)
                ck_assert_int_eq(feed(&s, &c, false, 970.0, "", NULL), REGRESS_WITHIN);
        ck_assert_int_eq(s.flags, 0);

        /* With RegressionMinEffect=2% it is one. */
        ck_assert_int_eq(regress_config_set(&c, "RegressionMinEffect", "2%", NULL), 1);
        rng_seed(11);
        series_init(&s);
        for (int i = 0; i < 20; i++)
                feed(&s, &c, false, noisy(1000.0, 0.002), "", NULL);
        feed(&s, &c, false, 970.0, "", NULL);
        ck_assert_int_eq(feed(&s, &c, false, 970.0, "", NULL), REGRESS_FLAGGED);
}
END_TEST

/* ---- edge cases ---- */

START_TEST(test_zero_mad_floor) {
        RegressConfig c = REGRESS_CONFIG_DEFAULT;
        RegressPoint h[20];
        RegressResult res;

        for (size_t i = 0; i < ELEMENTSOF(h); i++)
                h[i] = (RegressPoint) { .value = 100.0, .segment = "" };
        /* MAD 0: the floor, 0.5% of the median, is what the deviation is measured in. */
        ck_assert_int_eq(regress_detect(&c, false, h, 20, 100.0, "", &res), 0);
        ck_assert_int_eq(res.verdict, REGRESS_WITHIN);
        ck_assert(fabs(res.median - 100.0) < 1e-9);
        ck_assert(fabs(res.mad_scaled - 0.5) < 1e-9);

        /* Without a minimum effect, 1% is within 3 floors (1.5%), 2% beyond. */
        c.min_effect = 0;
        h[19].value = 99.0;
        ck_assert_int_eq(regress_detect(&c, false, h, 20, 99.0, "", &res), 0);
        ck_assert_int_eq(res.verdict, REGRESS_WITHIN);
        h[19].value = 98.0;
        ck_assert_int_eq(regress_detect(&c, false, h, 20, 98.0, "", &res), 0);
        ck_assert_int_eq(res.verdict, REGRESS_FLAGGED);
        ck_assert_int_eq(res.baseline_n, 19);

        /* And with the default 5%: 6% twice is a regression. */
        c = REGRESS_CONFIG_DEFAULT;
        h[19].value = 94.0;
        ck_assert_int_eq(regress_detect(&c, false, h, 20, 94.0, "", &res), 0);
        ck_assert_int_eq(res.verdict, REGRESS_FLAGGED);
        ck_assert(fabs(res.change_pct + 6.0) < 1e-9);
}
END_TEST

START_TEST(test_not_enough_history) {
        RegressConfig c = REGRESS_CONFIG_DEFAULT;
        RegressPoint h[6];
        RegressResult res;

        for (size_t i = 0; i < ELEMENTSOF(h); i++)
                h[i] = (RegressPoint) { .value = 100.0, .segment = "s" };
        h[5].value = 50.0;
        ck_assert_int_eq(regress_detect(&c, false, NULL, 0, 50.0, "s", &res), 0);
        ck_assert_int_eq(res.verdict, REGRESS_NO_HISTORY);
        ck_assert(res.new_segment);
        /* 4 baseline runs and prev: not enough. */
        ck_assert_int_eq(regress_detect(&c, false, h + 1, 5, 50.0, "s", &res), 0);
        ck_assert_int_eq(res.verdict, REGRESS_NO_HISTORY);
        ck_assert(!res.new_segment);
        /* 5 and prev: judged. */
        ck_assert_int_eq(regress_detect(&c, false, h, 6, 50.0, "s", &res), 0);
        ck_assert_int_eq(res.verdict, REGRESS_FLAGGED);
        ck_assert_int_eq(res.baseline_n, 5);
        /* The window is the last RegressionWindow runs before prev. */
        ck_assert_int_eq(regress_config_set(&c, "RegressionWindow", "5", NULL), 1);
        {
                RegressPoint big[30];
                for (size_t i = 0; i < 30; i++)
                        big[i] = (RegressPoint) { .value = i < 24 ? 1000.0 : 100.0, .segment = "s" };
                big[29].value = 100.0;
                ck_assert_int_eq(regress_detect(&c, false, big, 30, 100.0, "s", &res), 0);
                ck_assert_int_eq(res.baseline_n, 5);
                ck_assert(fabs(res.median - 100.0) < 1e-9);
                ck_assert_int_eq(res.verdict, REGRESS_WITHIN);
        }
}
END_TEST

START_TEST(test_invalid) {
        RegressConfig c = REGRESS_CONFIG_DEFAULT, bad;
        RegressPoint h[8];
        RegressResult res;

        for (size_t i = 0; i < ELEMENTSOF(h); i++)
                h[i] = (RegressPoint) { .value = 0.0 };
        /* A median of 0 has no fraction: nothing is flagged. */
        ck_assert_int_eq(regress_detect(&c, false, h, 8, 0.0, NULL, &res), 0);
        ck_assert_int_eq(res.verdict, REGRESS_WITHIN);
        ck_assert(res.change_pct == 0.0);

        ck_assert_int_eq(regress_detect(&c, false, h, 8, NAN, NULL, &res), -EINVAL);
        ck_assert_int_eq(regress_detect(&c, false, h, 8, INFINITY, NULL, &res), -EINVAL);
        h[3].value = NAN;
        ck_assert_int_eq(regress_detect(&c, false, h, 8, 1.0, NULL, &res), -EINVAL);
        ck_assert_int_eq(regress_detect(&c, false, NULL, 3, 1.0, NULL, &res), -EINVAL);
        bad = c;
        bad.window = 3;
        ck_assert_int_eq(regress_detect(&bad, false, NULL, 0, 1.0, NULL, &res), -EINVAL);
        bad = c;
        bad.k = 0;
        ck_assert_int_eq(regress_config_check(&bad), -EINVAL);
        ck_assert_int_eq(regress_config_check(&c), 0);
}
END_TEST

/* ---- configuration and names ---- */

START_TEST(test_config_set) {
        static const struct {
                const char *name, *value;
                int r;
                double min_effect;
                unsigned window;
        } cases[] = {
                { "RegressionMinEffect", "5%", 1, 0.05, 20 },
                { "RegressionMinEffect", "2.5", 1, 0.025, 20 },
                { "RegressionMinEffect", "12.5%", 1, 0.125, 20 },
                { "RegressionMinEffect", "0", -EINVAL, 0.05, 20 },
                { "RegressionMinEffect", "100%", -EINVAL, 0.05, 20 },
                { "RegressionMinEffect", "-3%", -EINVAL, 0.05, 20 },
                { "RegressionMinEffect", "5%%", -EINVAL, 0.05, 20 },
                { "RegressionMinEffect", "five", -EINVAL, 0.05, 20 },
                { "RegressionMinEffect", "", -EINVAL, 0.05, 20 },
                { "RegressionWindow", "30", 1, 0.05, 30 },
                { "RegressionWindow", "5", 1, 0.05, 5 },
                { "RegressionWindow", "4", -EINVAL, 0.05, 20 },
                { "RegressionWindow", "1001", -EINVAL, 0.05, 20 },
                { "RegressionWindow", "-20", -EINVAL, 0.05, 20 },
                { "RegressionWindow", "20 runs", -EINVAL, 0.05, 20 },
                { "ScratchDevices", "/dev/loop0", 0, 0.05, 20 },
        };

        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                RegressConfig c = REGRESS_CONFIG_DEFAULT;
                _cleanup_free_ char *err = NULL;
                int r = regress_config_set(&c, cases[i].name, cases[i].value, &err);

                ck_assert_msg(r == cases[i].r, "%s=%s: %d", cases[i].name, cases[i].value, r);
                ck_assert(fabs(c.min_effect - cases[i].min_effect) < 1e-12);
                ck_assert_uint_eq(c.window, cases[i].window);
                if (r < 0) {
                        /* The message names the key and an example of a right value. */
                        ck_assert_ptr_nonnull(err);
                        ck_assert_ptr_nonnull(strstr(err, cases[i].name));
                        ck_assert_ptr_nonnull(strstr(err, "e.g."));
                } else
                        ck_assert_ptr_null(err);
        }
}
END_TEST

START_TEST(test_method_and_metrics) {
        RegressConfig c = REGRESS_CONFIG_DEFAULT;
        _cleanup_free_ char *m = NULL;

        ck_assert_int_eq(regress_config_method(&c, &m), 0);
        ck_assert_str_eq(m, "median-mad window=20 min_runs=5 k=3 min_effect=5% mad_floor=0.5% confirm=2");

        ck_assert_int_eq(regress_main_metric("write"), REGRESS_METRIC_MB_PER_S);
        ck_assert_int_eq(regress_main_metric("backward-read"), REGRESS_METRIC_MB_PER_S);
        ck_assert_int_eq(regress_main_metric("randrw"), REGRESS_METRIC_IOPS);
        ck_assert_int_eq(regress_main_metric("seeks"), REGRESS_METRIC_IOPS);
        ck_assert_int_eq(regress_main_metric("metadata"), REGRESS_METRIC_OPS_PER_S);
        ck_assert_int_eq(regress_main_metric("ping"), _REGRESS_METRIC_INVALID);
        ck_assert_int_eq(regress_main_metric("nonsense"), _REGRESS_METRIC_INVALID);
        ck_assert_int_eq(regress_main_metric(NULL), _REGRESS_METRIC_INVALID);
        for (int i = 0; i < _REGRESS_METRIC_MAX; i++)
                ck_assert_int_eq(regress_metric_from_string(regress_metric_to_string(i)), i);
        ck_assert_int_eq(regress_metric_from_string("mib_per_s"), _REGRESS_METRIC_INVALID);
        ck_assert(regress_metric_higher_is_worse(REGRESS_METRIC_LAT_P99_NS));
        ck_assert(!regress_metric_higher_is_worse(REGRESS_METRIC_IOPS));
        ck_assert_str_eq(regress_verdict_to_string(REGRESS_FLAGGED), "flagged");
}
END_TEST

static Suite *regress_suite(void) {
        Suite *s = suite_create("regress");
        TCase *tc = tcase_create("core");

        tcase_add_test(tc, test_sustained_drop_flagged_within_3_runs);
        tcase_add_test(tc, test_noise_3pct_never_flagged);
        tcase_add_test(tc, test_firmware_change_starts_new_segment);
        tcase_add_test(tc, test_single_outlier_not_flagged);
        tcase_add_test(tc, test_direction);
        tcase_add_test(tc, test_min_effect);
        tcase_add_test(tc, test_zero_mad_floor);
        tcase_add_test(tc, test_not_enough_history);
        tcase_add_test(tc, test_invalid);
        tcase_add_test(tc, test_config_set);
        tcase_add_test(tc, test_method_and_metrics);
        suite_add_tcase(s, tc);
        return s;
}

int main(void) {
        return check_run(regress_suite());
}
