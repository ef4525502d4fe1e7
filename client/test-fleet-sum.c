/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The fleet's figures of a step (client/fleet-sum.c, docs/fleet.md "The fleet's figures"), from
 * runs made up here whose sums are worked out by hand in the comments: the common interval on
 * offset-corrected time, which samples count, the sum, the hosts left out and what they measured,
 * percentiles from added histograms, first and last done, the spread, and the sum over time.
 */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "check-util.h"
#include "fleet-sum.h"
#include "shared/histogram.h"
#include "shared/json-util.h"

#define MIB (1024 * 1024)

static json_object *jget(json_object *o, const char *key) {
        json_object *v = NULL;
        ck_assert_msg(json_object_object_get_ex(o, key, &v), "no key %s in %s", key, json_object_to_json_string(o));
        return v;
}

static double jnum(json_object *o, const char *key) {
        return json_object_get_double(jget(o, key));
}

/* A run: measured phase began at started_usec on the host's clock, whose offset from benchctl's is
 * offset_us; n samples of 250 ms, each of bytes (the first of first_bytes). */
static json_object *make_run(const char *status, int64_t started_usec, int64_t offset_us, int n, uint64_t first_bytes,
                             uint64_t bytes, double mib_per_s, uint64_t hist_upper) {
        json_object *run = json_object_new_object(), *samples = json_object_new_array();

        json_object_object_add(run, "status", json_object_new_string(status));
        json_object_object_add(run, "started_usec", json_object_new_int64(started_usec));
        json_object_object_add(run, "fleet_clock_offset_us", json_object_new_int64(offset_us));
        json_object_object_add(run, "duration_usec", json_object_new_int64(n * 250000));
        json_object_object_add(run, "mib_per_s", json_object_new_double(mib_per_s));
        for (int i = 0; i < n; i++) {
                json_object *s = json_object_new_object();
                uint64_t b = i == 0 ? first_bytes : bytes;

                json_object_object_add(s, "t_ms", json_object_new_int64((i + 1) * 250));
                json_object_object_add(s, "interval_us", json_object_new_int64(250000));
                json_object_object_add(s, "bytes_written", json_object_new_uint64(b));
                json_object_object_add(s, "ios_written", json_object_new_uint64(b / 4096));
                json_object_array_add(samples, s);
        }
        json_object_object_add(run, "samples", samples);
        if (hist_upper > 0) {
                json_object *h = json_object_new_array(), *b = json_object_new_array();
                json_object_array_add(b, json_object_new_uint64(hist_upper));
                json_object_array_add(b, json_object_new_uint64(10));
                json_object_array_add(h, b);
                json_object_object_add(run, "histogram", h);
        }
        return run;
}

/* Three hosts, on benchctl's clock:
 *   a: began 1.000 s (offset 0), 8 samples ending 1.25 .. 3.00 s; the first 100 MiB, then 1 MiB
 *      each: 4 MiB/s after its first sample;
 *   b: began 1.100 s on its clock, 50 ms ahead of ours: 1.050 s; 2 MiB each: 8 MiB/s;
 *   c: began 1.170 s on its clock, 30 ms behind: 1.200 s; 0.5 MiB each: 2 MiB/s.
 * The common interval is 1.200 s (c's begin) to 3.000 s (a's last end): a's samples ending 1.50 ..
 * 3.00 (7; its 100 MiB one began at 1.00, before it), b's ending 1.55 .. 2.80 (6), c's ending
 * 1.45 .. 2.95 (7). Sum: 4 + 8 + 2 = 14 MiB/s, 14 × 256 IOPS. */
static json_object *a, *b, *c;

static void make_abc(void) {
        a = make_run("succeeded", 1000000, 0, 8, 100 * MIB, MIB, 4, 1000);
        b = make_run("succeeded", 1100000, 50000, 8, 2 * MIB, 2 * MIB, 8, 2000);
        c = make_run("succeeded", 1170000, -30000, 8, MIB / 2, MIB / 2, 2, 0);
}

static void put_abc(void) {
        json_object_put(a);
        json_object_put(b);
        json_object_put(c);
}

START_TEST(test_sum_common_interval) {
        _cleanup_json_ json_object *o = NULL;
        json_object *per;

        make_abc();
        FleetMember m[] = { { "a", a, NULL }, { "b", b, NULL }, { "c", c, NULL } };
        o = fleet_sum_step(m, 3);
        ck_assert_ptr_nonnull(o);
        ck_assert_int_eq(json_object_get_int64(jget(o, "hosts")), 3);
        ck_assert_int_eq(json_object_get_int64(jget(o, "common_begin_usec")), 1200000);
        ck_assert_int_eq(json_object_get_int64(jget(o, "common_usec")), 1800000);
        ck_assert_double_eq_tol(jnum(o, "mib_per_s"), 14.0, 1e-9);
        ck_assert_double_eq_tol(jnum(o, "bytes_per_s"), 14.0 * MIB, 1e-3);
        ck_assert_double_eq_tol(jnum(o, "iops"), 14.0 * 256, 1e-6);
        per = jget(o, "per_host");
        ck_assert_int_eq(json_object_array_length(per), 3);
        ck_assert_int_eq(json_object_get_int64(jget(json_object_array_get_idx(per, 0), "usec")), 7 * 250000);
        ck_assert_int_eq(json_object_get_int64(jget(json_object_array_get_idx(per, 1), "usec")), 6 * 250000);
        ck_assert_int_eq(json_object_get_int64(jget(json_object_array_get_idx(per, 1), "bytes")), 12 * MIB);
        ck_assert_double_eq_tol(jnum(json_object_array_get_idx(per, 2), "mib_per_s"), 2.0, 1e-9);
        ck_assert_int_eq(json_object_array_length(jget(o, "left_out")), 0);
        /* Done at 3.00 (a), 3.05 (b), 3.20 (c). */
        ck_assert_str_eq(json_object_get_string(jget(o, "first_done")), "a");
        ck_assert_str_eq(json_object_get_string(jget(o, "last_done")), "c");
        ck_assert_int_eq(json_object_get_int64(jget(o, "done_apart_usec")), 200000);
        /* The runs' own MiB/s 4, 8, 2: (8 - 2) / (14 / 3). */
        ck_assert_double_eq_tol(jnum(o, "spread_pct"), 6.0 / (14.0 / 3.0) * 100, 1e-9);
        put_abc();
}
END_TEST

/* a's 10 I/Os in the bucket of 1000 ns and b's 10 in that of 2000 ns: the median is a's bucket,
 * p99 b's, as a histogram of all 20 says; c has no histogram and changes nothing. */
START_TEST(test_sum_latency) {
        _cleanup_json_ json_object *o = NULL;
        Histogram h;

        make_abc();
        FleetMember m[] = { { "a", a, NULL }, { "b", b, NULL }, { "c", c, NULL } };
        o = fleet_sum_step(m, 3);
        histogram_init(&h);
        for (int i = 0; i < 10; i++) {
                histogram_add(&h, histogram_bucket_lower(histogram_bucket_index(1000)));
                histogram_add(&h, histogram_bucket_upper(histogram_bucket_index(2000)));
        }
        ck_assert_int_eq(json_object_get_int64(jget(o, "lat_ios")), 20);
        ck_assert_uint_eq((uint64_t) json_object_get_int64(jget(o, "lat_p50_ns")), histogram_percentile(&h, 50));
        ck_assert_uint_eq((uint64_t) json_object_get_int64(jget(o, "lat_p99_ns")), histogram_percentile(&h, 99));
        ck_assert_int_lt(json_object_get_int64(jget(o, "lat_p50_ns")), 1010);
        ck_assert_int_gt(json_object_get_int64(jget(o, "lat_p99_ns")), 1990);
        put_abc();
}
END_TEST

/* A failed run, a host unreachable, a host that measured only after the others were done: each left
 * out, named with what it measured, and the sum of the others as before. */
START_TEST(test_sum_left_out) {
        _cleanup_json_ json_object *o = NULL, *failed = NULL, *late = NULL;
        json_object *left, *x;

        make_abc();
        failed = make_run("failed", 1000000, 0, 3, MIB, MIB, 4, 0);
        late = make_run("succeeded", 9000000, 0, 4, MIB, MIB, 4, 0);
        FleetMember m[] = { { "a", a, NULL }, { "d", failed, NULL }, { "b", b, NULL }, { "e", NULL, "unreachable" },
                            { "c", c, NULL }, { "f", late, NULL } };
        o = fleet_sum_step(m, ELEMENTSOF(m));
        ck_assert_int_eq(json_object_get_int64(jget(o, "hosts")), 3);
        ck_assert_double_eq_tol(jnum(o, "mib_per_s"), 14.0, 1e-9);
        left = jget(o, "left_out");
        ck_assert_int_eq(json_object_array_length(left), 3);
        x = json_object_array_get_idx(left, 0);
        ck_assert_str_eq(json_object_get_string(jget(x, "host")), "d");
        ck_assert_str_eq(json_object_get_string(jget(x, "status")), "failed");
        ck_assert_str_eq(json_object_get_string(jget(x, "reason")), "its run did not succeed");
        ck_assert_int_eq(json_object_get_int64(jget(x, "samples")), 3);
        ck_assert_int_eq(json_object_get_int64(jget(x, "measured_usec")), 750000);
        ck_assert_double_eq_tol(jnum(x, "mib_per_s"), 4.0, 1e-9);
        x = json_object_array_get_idx(left, 1);
        ck_assert_str_eq(json_object_get_string(jget(x, "host")), "e");
        ck_assert_str_eq(json_object_get_string(jget(x, "reason")), "unreachable");
        ck_assert_int_eq(json_object_get_int64(jget(x, "samples")), 0);
        x = json_object_array_get_idx(left, 2);
        ck_assert_str_eq(json_object_get_string(jget(x, "host")), "f");
        ck_assert_str_eq(json_object_get_string(jget(x, "reason")), "it was not measuring while the others were");
        ck_assert_str_eq(json_object_get_string(jget(o, "last_done")), "c");
        put_abc();
}
END_TEST

/* One host: its own rate over its samples; no spread. No host with a run: no sum at all. */
START_TEST(test_sum_one_and_none) {
        _cleanup_json_ json_object *o = NULL, *none = NULL;

        make_abc();
        FleetMember one[] = { { "b", b, NULL } };
        o = fleet_sum_step(one, 1);
        ck_assert_int_eq(json_object_get_int64(jget(o, "hosts")), 1);
        ck_assert_double_eq_tol(jnum(o, "mib_per_s"), 8.0, 1e-9);
        ck_assert(!json_object_object_get_ex(o, "spread_pct", NULL));

        FleetMember zero[] = { { "x", NULL, "unreachable" }, { "y", NULL, NULL } };
        none = fleet_sum_step(zero, 2);
        ck_assert_int_eq(json_object_get_int64(jget(none, "hosts")), 0);
        ck_assert_int_eq(json_object_get_int64(jget(none, "common_usec")), 0);
        ck_assert(!json_object_object_get_ex(none, "mib_per_s", NULL));
        ck_assert_str_eq(json_object_get_string(jget(json_object_array_get_idx(jget(none, "left_out"), 1), "reason")),
                         "no run");
        put_abc();
}
END_TEST

/* Over time: 1.8 s in bins of 250 ms (the samples' interval): 7 bins from 1.20 s. Bin 0 holds a
 * fifth of a's 100 MiB sample (1.00-1.25 overlaps 1.20-1.45 by 50 ms); every other bin is 14 MiB/s. */
START_TEST(test_sum_timeline) {
        _cleanup_json_ json_object *o = NULL, *t = NULL;

        make_abc();
        FleetMember m[] = { { "a", a, NULL }, { "b", b, NULL }, { "c", c, NULL } };
        o = fleet_sum_step(m, 3);
        t = fleet_sum_timeline(m, 3, o);
        ck_assert_ptr_nonnull(t);
        ck_assert_int_eq(json_object_array_length(t), 7);
        for (size_t i = 1; i < 7; i++) {
                json_object *x = json_object_array_get_idx(t, i);
                ck_assert_double_eq_tol(jnum(x, "t_s"), 0.25 * (double) i, 1e-9);
                ck_assert_double_eq_tol(jnum(x, "mib_per_s"), 14.0, 1e-9);
                ck_assert_double_eq_tol(jnum(jget(x, "hosts"), "b"), 8.0, 1e-9);
        }
        /* a: 20 MiB + 4/5 of 1 MiB; b: 2 × 0.6 + 2 × 0.4... all at 8 MiB/s; c: 2 MiB/s. */
        ck_assert_double_eq_tol(jnum(jget(json_object_array_get_idx(t, 0), "hosts"), "a"), (20.0 + 0.8) * 4, 1e-9);
        put_abc();
}
END_TEST

static Suite *suite(void) {
        Suite *s = suite_create("fleet-sum");
        TCase *tc = tcase_create("core");

        tcase_add_test(tc, test_sum_common_interval);
        tcase_add_test(tc, test_sum_latency);
        tcase_add_test(tc, test_sum_left_out);
        tcase_add_test(tc, test_sum_one_and_none);
        tcase_add_test(tc, test_sum_timeline);
        suite_add_tcase(s, tc);
        return s;
}

int main(void) {
        return check_run(suite());
}
