/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * shared/format.h over tables of values: the units and rounding a user reads in benchctl's tables
 * and in the worker's standalone summary, "n/a" for what is unknown (negative, NaN, infinite),
 * and that a buffer too small is cut, never overrun.
 */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "shared/format.h"
#include "check-util.h"
#include "shared/util.h"

static const struct {
        uint64_t bytes;
        const char *text;
} bytes_cases[] = {
        { 0, "0 B" },
        { 512, "512 B" },
        { 1023, "1023 B" },
        { 1024, "1 KiB" },
        { 4096, "4 KiB" },
        { 32768, "32 KiB" },
        { 1536, "1.5 KiB" },
        { 1025 * 1024, "1.0 MiB" },            /* an exact KiB count past 1023 KiB is not "1025 KiB" */
        { UINT64_C(64) << 20, "64 MiB" },
        { (UINT64_C(3) << 29), "1.5 GiB" },
        { UINT64_C(1) << 40, "1 TiB" },
        { UINT64_C(500107862016), "465.8 GiB" },
        { UINT64_C(1) << 60, "1 EiB" },
        { UINT64_MAX, "16.0 EiB" },
};

START_TEST(test_format_bytes) {
        char buf[FORMAT_BUF_MAX];

        ck_assert_str_eq(format_bytes(buf, sizeof buf, bytes_cases[_i].bytes), bytes_cases[_i].text);
}
END_TEST

static const struct {
        double ns;
        const char *text;
} latency_cases[] = {
        { 0, "0 ns" },
        { 850, "850 ns" },
        { 999, "999 ns" },
        { 1000, "1.00 µs" },
        { 12345, "12.3 µs" },
        { 123456, "123 µs" },
        { 1e6, "1.00 ms" },
        { 1234567, "1.23 ms" },
        { 2.5e9, "2.50 s" },
        { 59.5e9, "59.5 s" },
        { 150e9, "150 s" },
        { -1, "n/a" },
        { NAN, "n/a" },
        { INFINITY, "n/a" },
};

START_TEST(test_format_latency) {
        char buf[FORMAT_BUF_MAX];

        ck_assert_str_eq(format_latency_ns(buf, sizeof buf, latency_cases[_i].ns), latency_cases[_i].text);
}
END_TEST

static const struct {
        double bytes_per_sec;
        bool with_unit;
        const char *text;
} rate_cases[] = {
        { 512.0 * 1048576.0, true, "512 MiB/s" },
        { 100.0 * 1048576.0, true, "100 MiB/s" },
        { 12.34 * 1048576.0, false, "12.3" },
        { 0.5 * 1048576.0, true, "0.50 MiB/s" },
        { 0, true, "0 MiB/s" },
        { -1, true, "n/a" },
        { NAN, true, "n/a" },
        { INFINITY, false, "n/a" },
};

START_TEST(test_format_rate) {
        char buf[FORMAT_BUF_MAX];

        ck_assert_str_eq(format_rate(buf, sizeof buf, rate_cases[_i].bytes_per_sec, rate_cases[_i].with_unit),
                         rate_cases[_i].text);
}
END_TEST

static const struct {
        double iops;
        const char *text;
} iops_cases[] = {
        { 0, "0" },
        { 950.4, "950" },
        { 9999, "9999" },
        { 10000, "10.0k" },
        { 16384, "16.4k" },
        { 1234567, "1.23M" },
        { -5, "n/a" },
        { NAN, "n/a" },
};

START_TEST(test_format_iops) {
        char buf[FORMAT_BUF_MAX];

        ck_assert_str_eq(format_iops(buf, sizeof buf, iops_cases[_i].iops), iops_cases[_i].text);
}
END_TEST

static const struct {
        double pct;
        const char *text;
} pct_cases[] = {
        { 0, "0.0%" },
        { 12.345, "12.3%" },
        { 100, "100.0%" },
        { -1, "n/a" },     /* the samplers' "unknown" */
        { NAN, "n/a" },
};

START_TEST(test_format_pct) {
        char buf[FORMAT_BUF_MAX];

        ck_assert_str_eq(format_pct(buf, sizeof buf, pct_cases[_i].pct), pct_cases[_i].text);
}
END_TEST

/* Each formatter returns the caller's buffer and cuts its text to fit: the bytes past the buffer
 * are untouched. */
START_TEST(test_small_buffer) {
        char buf[8];

        memset(buf, 'x', sizeof buf);
        ck_assert_ptr_eq(format_bytes(buf, 4, 1536), buf);
        ck_assert_str_eq(buf, "1.5");
        ck_assert_int_eq(buf[4], 'x');
        ck_assert_ptr_eq(format_latency_ns(buf, 4, 12345), buf);
        ck_assert_str_eq(buf, "12.");
        ck_assert_ptr_eq(format_rate(buf, 4, 512.0 * 1048576.0, true), buf);
        ck_assert_str_eq(buf, "512");
        ck_assert_ptr_eq(format_iops(buf, 3, 16384), buf);
        ck_assert_str_eq(buf, "16");
        ck_assert_ptr_eq(format_pct(buf, 2, 50), buf);
        ck_assert_str_eq(buf, "5");
        ck_assert_int_eq(buf[4], 'x');
}
END_TEST

static Suite *format_suite(void) {
        Suite *s = suite_create("format");
        TCase *tc = tcase_create("format");

        tcase_add_loop_test(tc, test_format_bytes, 0, ELEMENTSOF(bytes_cases));
        tcase_add_loop_test(tc, test_format_latency, 0, ELEMENTSOF(latency_cases));
        tcase_add_loop_test(tc, test_format_rate, 0, ELEMENTSOF(rate_cases));
        tcase_add_loop_test(tc, test_format_iops, 0, ELEMENTSOF(iops_cases));
        tcase_add_loop_test(tc, test_format_pct, 0, ELEMENTSOF(pct_cases));
        tcase_add_test(tc, test_small_buffer);
        suite_add_tcase(s, tc);
        return s;
}

int main(void) {
        return check_run(format_suite());
}
