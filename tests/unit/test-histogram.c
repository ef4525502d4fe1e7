/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The histogram against exact answers: percentiles within 1% of the sorted data's for random,
 * skewed and adversarial inputs; bucket bounds that tile the whole uint64 range; mean, stddev and
 * merge.
 */
#include <check.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>

#include "shared/histogram.h"
#include "check-util.h"
#include "shared/util.h"

static uint64_t rng_state = 0x243f6a8885a308d3ULL;

static uint64_t rnd(void) {
        /* splitmix64: deterministic, so failures reproduce */
        uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
        return z ^ (z >> 31);
}

static double rnd01(void) {
        return (double) (rnd() >> 11) / 9007199254740992.0;
}

static int cmp_u64(const void *a, const void *b) {
        uint64_t x = *(const uint64_t *) a, y = *(const uint64_t *) b;
        return x < y ? -1 : x > y;
}

typedef enum Dist {
        DIST_UNIFORM,
        DIST_LOGNORMAL,
        DIST_EQUAL,
        DIST_POWERS_OF_TWO,
        DIST_HUGE,
        DIST_SINGLE,
        DIST_SMALL,
        DIST_BIMODAL,
        _DIST_MAX,
} Dist;

static const char *const dist_names[] = {
        "uniform", "lognormal", "all-equal", "powers-of-two", "near-2^63", "single", "small-exact", "bimodal",
};

static uint64_t draw(Dist d, size_t i) {
        switch (d) {
        case DIST_UNIFORM:
                return 1000 + rnd() % 10000000;
        case DIST_LOGNORMAL: {
                /* Box-Muller, exp of N(11, 1.5): latencies of ~60 us with a long tail */
                double u1 = rnd01() + 1e-12, u2 = rnd01();
                double z = sqrt(-2 * log(u1)) * cos(2 * M_PI * u2);
                return (uint64_t) exp(11 + 1.5 * z);
        }
        case DIST_EQUAL:
                return 123457;
        case DIST_POWERS_OF_TWO:
                return UINT64_C(1) << (rnd() % 64);
        case DIST_HUGE:
                return (UINT64_C(1) << 63) + rnd() % (UINT64_C(1) << 62);
        case DIST_SINGLE:
                return 987654321;
        case DIST_SMALL:
                return rnd() % 200;
        case DIST_BIMODAL:
        default:
                return i % 2 ? 50000 + rnd() % 1000 : 5000000 + rnd() % 100000;
        }
}

static const double percentiles[] = { 1, 10, 25, 50, 75, 90, 95, 99, 99.9, 99.99, 100 };

START_TEST(test_percentile_error_bound) {
        Dist d = (Dist) _i;
        size_t n = d == DIST_SINGLE ? 1 : 100000;
        _cleanup_free_ uint64_t *v = malloc(n * sizeof(uint64_t));
        _cleanup_free_ Histogram *h = malloc(sizeof(Histogram));

        ck_assert_ptr_nonnull(v);
        ck_assert_ptr_nonnull(h);
        histogram_init(h);
        for (size_t i = 0; i < n; i++) {
                v[i] = draw(d, i);
                histogram_add(h, v[i]);
        }
        qsort(v, n, sizeof(uint64_t), cmp_u64);

        ck_assert_uint_eq(h->count, n);
        ck_assert_uint_eq(h->min, v[0]);
        ck_assert_uint_eq(h->max, v[n - 1]);

        for (size_t k = 0; k < ELEMENTSOF(percentiles); k++) {
                double p = percentiles[k];
                size_t rank = (size_t) ceil(p / 100.0 * (double) n);
                if (rank < 1)
                        rank = 1;
                uint64_t exact = v[rank - 1], got = histogram_percentile(h, p);
                double err = exact == 0 ? (double) got : fabs((double) got - (double) exact) / (double) exact;
                ck_assert_msg(err <= 0.01, "%s p%g: exact %" PRIu64 " got %" PRIu64 " (error %.4f%%)",
                              dist_names[d], p, exact, got, err * 100);
        }
}
END_TEST

START_TEST(test_bucket_bounds_tile_the_range) {
        /* Consecutive buckets touch, each bucket's bounds map back to it, widths stay <= 1/128 of
         * the lower bound, and the last bucket ends at UINT64_MAX. */
        ck_assert_uint_eq(histogram_bucket_lower(0), 0);
        for (unsigned i = 0; i < HISTOGRAM_BUCKETS; i++) {
                uint64_t lo = histogram_bucket_lower(i), hi = histogram_bucket_upper(i);
                ck_assert_uint_le(lo, hi);
                ck_assert_uint_eq(histogram_bucket_index(lo), i);
                ck_assert_uint_eq(histogram_bucket_index(hi), i);
                if (i + 1 < HISTOGRAM_BUCKETS)
                        ck_assert_uint_eq(hi + 1, histogram_bucket_lower(i + 1));
                if (lo >= HISTOGRAM_SUB_COUNT)
                        ck_assert_uint_le(hi - lo + 1, lo / HISTOGRAM_SUB_COUNT);
        }
        ck_assert_uint_eq(histogram_bucket_upper(HISTOGRAM_BUCKETS - 1), UINT64_MAX);
        ck_assert_uint_eq(histogram_bucket_index(UINT64_MAX), HISTOGRAM_BUCKETS - 1);
}
END_TEST

static const struct {
        uint64_t value;
        unsigned index;
} index_cases[] = {
        { 0, 0 },
        { 1, 1 },
        { 127, 127 },
        { 128, 128 },
        { 255, 255 },
        { 256, 256 },     /* group 2 starts: width 2 */
        { 257, 256 },
        { 258, 257 },
        { 1u << 20, (20 - 6) * 128 },
};

START_TEST(test_bucket_index_table) {
        ck_assert_uint_eq(histogram_bucket_index(index_cases[_i].value), index_cases[_i].index);
}
END_TEST

START_TEST(test_empty) {
        Histogram h;
        histogram_init(&h);
        ck_assert_uint_eq(histogram_percentile(&h, 50), 0);
        ck_assert(histogram_mean(&h) == 0);
        ck_assert(histogram_stddev(&h) == 0);
        ck_assert_uint_eq(h.count, 0);
}
END_TEST

START_TEST(test_mean_stddev) {
        static const uint64_t data[] = { 2, 4, 4, 4, 5, 5, 7, 9 }; /* mean 5, population stddev 2 */
        Histogram h;

        histogram_init(&h);
        for (size_t i = 0; i < ELEMENTSOF(data); i++)
                histogram_add(&h, data[i] * 1000000);
        ck_assert_double_eq_tol(histogram_mean(&h), 5e6, 1e-3);
        ck_assert_double_eq_tol(histogram_stddev(&h), 2e6, 1e-3);

        /* all equal and huge: exactly 0, not rounding noise */
        histogram_init(&h);
        for (int i = 0; i < 1000; i++)
                histogram_add(&h, UINT64_MAX - 5);
        ck_assert(histogram_stddev(&h) == 0);
        ck_assert_double_eq_tol(histogram_mean(&h) / (double) (UINT64_MAX - 5), 1.0, 1e-12);
}
END_TEST

START_TEST(test_merge) {
        _cleanup_free_ Histogram *a = malloc(sizeof(Histogram)), *b = malloc(sizeof(Histogram)),
                                 *all = malloc(sizeof(Histogram));
        histogram_init(a);
        histogram_init(b);
        histogram_init(all);

        for (int i = 0; i < 50000; i++) {
                uint64_t v = draw(DIST_LOGNORMAL, (size_t) i);
                histogram_add(i % 3 ? a : b, v);
                histogram_add(all, v);
        }
        histogram_merge(a, b);
        ck_assert_uint_eq(a->count, all->count);
        ck_assert_uint_eq(a->min, all->min);
        ck_assert_uint_eq(a->max, all->max);
        ck_assert_mem_eq(a->buckets, all->buckets, sizeof(a->buckets));
        ck_assert_double_eq_tol(histogram_mean(a), histogram_mean(all), 1e-6 * histogram_mean(all));
        ck_assert_double_eq_tol(histogram_stddev(a), histogram_stddev(all), 1e-6 * histogram_stddev(all));
        ck_assert_uint_eq(histogram_percentile(a, 99), histogram_percentile(all, 99));

        /* merging an empty histogram changes nothing, into an empty one copies */
        Histogram *empty = b;
        histogram_init(empty);
        histogram_merge(a, empty);
        ck_assert_uint_eq(a->min, all->min);
        histogram_merge(empty, all);
        ck_assert_uint_eq(empty->min, all->min);
        ck_assert_uint_eq(empty->count, all->count);
}
END_TEST

START_TEST(test_percentile_clamped) {
        Histogram h;
        histogram_init(&h);
        histogram_add(&h, 1000003);
        /* the bucket midpoint would differ; a single value must come back as itself */
        ck_assert_uint_eq(histogram_percentile(&h, 50), 1000003);
        ck_assert_uint_eq(histogram_percentile(&h, 100), 1000003);
        ck_assert_uint_eq(histogram_percentile(&h, 0.0001), 1000003);
}
END_TEST

static Suite *histogram_suite(void) {
        Suite *s = suite_create("histogram");
        TCase *tc = tcase_create("core");

        tcase_add_loop_test(tc, test_percentile_error_bound, 0, _DIST_MAX);
        tcase_add_test(tc, test_bucket_bounds_tile_the_range);
        tcase_add_loop_test(tc, test_bucket_index_table, 0, ELEMENTSOF(index_cases));
        tcase_add_test(tc, test_empty);
        tcase_add_test(tc, test_mean_stddev);
        tcase_add_test(tc, test_merge);
        tcase_add_test(tc, test_percentile_clamped);
        tcase_set_timeout(tc, 60);
        suite_add_tcase(s, tc);
        return s;
}

int main(void) {
        return check_run(histogram_suite());
}
