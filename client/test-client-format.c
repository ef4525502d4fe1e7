/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * benchctl's own formatting and table fitting: differences and durations a user reads, the
 * --since parser, and that a table fits the terminal by cutting only shrinkable columns. The
 * number formatters it shares with the worker are tested in tests/unit/test-format.c.
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format.h"
#include "check-util.h"
#include "record.h"
#include "table.h"

START_TEST(test_format_diff_duration) {
        char buf[FORMAT_BUF_MAX];

        ck_assert_str_eq(format_diff_pct(buf, sizeof buf, 100, 112.34), "+12.3%");
        ck_assert_str_eq(format_diff_pct(buf, sizeof buf, 100, 96), "-4.0%");
        ck_assert_str_eq(format_diff_pct(buf, sizeof buf, 100, 100), "±0.0%");
        ck_assert_str_eq(format_diff_pct(buf, sizeof buf, 0, 5), "n/a");
        ck_assert_str_eq(format_duration(buf, sizeof buf, 850 * 1000), "850ms");
        ck_assert_str_eq(format_duration(buf, sizeof buf, 12300 * 1000), "12.3s");
        ck_assert_str_eq(format_duration(buf, sizeof buf, UINT64_C(303) * 1000000), "5min 3s");
}
END_TEST

START_TEST(test_format_repeat_left) {
        char buf[FORMAT_BUF_MAX];

        ck_assert_str_eq(format_repeat(buf, sizeof buf, 0, 1, NULL), "");
        ck_assert_str_eq(format_repeat(buf, sizeof buf, 0, 1, "0"), "");
        ck_assert_str_eq(format_repeat(buf, sizeof buf, 1, 5, NULL), "repeat 2/5");
        ck_assert_str_eq(format_repeat(buf, sizeof buf, 4, 5, ""), "repeat 5/5");
        ck_assert_str_eq(format_repeat(buf, sizeof buf, 2, 10, "5"), "repeat 3 (until stddev < 5%, at most 10)");
        ck_assert_str_eq(format_repeat(buf, sizeof buf, 0, 3, "2.5"), "repeat 1 (until stddev < 2.5%, at most 3)");

        /* 30 s for a quarter: 90 s to go. */
        ck_assert_str_eq(format_time_left(buf, sizeof buf, 30 * USEC_PER_SEC, 0.25), "~1min 30s left");
        ck_assert_str_eq(format_time_left(buf, sizeof buf, 10 * USEC_PER_SEC, 0.5), "~10.0s left");
        ck_assert_str_eq(format_time_left(buf, sizeof buf, 10 * USEC_PER_SEC, 0.999), "~10ms left");
        ck_assert_str_eq(format_time_left(buf, sizeof buf, 10 * USEC_PER_SEC, 1.0), "");
        ck_assert_str_eq(format_time_left(buf, sizeof buf, 10 * USEC_PER_SEC, 0.005), "");
        ck_assert_str_eq(format_time_left(buf, sizeof buf, 0, 0.5), "");
        ck_assert_str_eq(format_time_left(buf, sizeof buf, 10 * USEC_PER_SEC, NAN), "");
}
END_TEST

#define NOW (UINT64_C(1764480000) * 1000000) /* 2025-11-30 05:20:00 UTC */

static const struct {
        const char *text;
        int ret;
        uint64_t usec; /* for relative and epoch forms */
} time_cases[] = {
        { "7d", 0, NOW - UINT64_C(7) * 86400 * 1000000 },
        { "7d ago", 0, NOW - UINT64_C(7) * 86400 * 1000000 },
        { "12h", 0, NOW - UINT64_C(12) * 3600 * 1000000 },
        { "30min", 0, NOW - UINT64_C(30) * 60 * 1000000 },
        { "90s", 0, NOW - UINT64_C(90) * 1000000 },
        { "2w", 0, NOW - UINT64_C(14) * 86400 * 1000000 },
        { "@1700000000", 0, UINT64_C(1700000000) * 1000000 },
        { "now", 0, NOW },
        { "", -EINVAL, 0 },
        { "7", -EINVAL, 0 },
        { "7x", -EINVAL, 0 },
        { "d7", -EINVAL, 0 },
        { "-7d", -EINVAL, 0 },
        { "2026-13-01", -EINVAL, 0 },
        { "yesterdayish", -EINVAL, 0 },
};

START_TEST(test_parse_time) {
        uint64_t v = 12345;
        int r = parse_time_spec(time_cases[_i].text, NOW, &v);

        ck_assert_int_eq(r, time_cases[_i].ret);
        if (r == 0)
                ck_assert_uint_eq(v, time_cases[_i].usec);
        else
                ck_assert_uint_eq(v, 12345); /* untouched on failure */
}
END_TEST

START_TEST(test_parse_date) {
        uint64_t a, b;

        setenv("TZ", "UTC", 1);
        tzset();
        ck_assert_int_eq(parse_time_spec("2026-11-01", NOW, &a), 0);
        ck_assert_uint_eq(a, UINT64_C(1793491200) * 1000000);
        ck_assert_int_eq(parse_time_spec("2026-11-01 12:30", NOW, &b), 0);
        ck_assert_uint_eq(b - a, UINT64_C(45000) * 1000000);
        ck_assert_int_eq(parse_time_spec("2026-11-01T12:30:15", NOW, &b), 0);
        ck_assert_uint_eq(b - a, UINT64_C(45015) * 1000000);
        ck_assert_int_eq(parse_time_spec("today", NOW, &b), 0);
        ck_assert_uint_eq(b, UINT64_C(1764460800) * 1000000);
        ck_assert_int_eq(parse_time_spec("yesterday", NOW, &b), 0);
        ck_assert_uint_eq(b, UINT64_C(1764374400) * 1000000);

        char buf[FORMAT_BUF_MAX];
        ck_assert_str_eq(format_timestamp_short(buf, sizeof buf, NOW - 3600 * UINT64_C(1000000), NOW), "11-30 04:20");
        ck_assert_str_eq(format_timestamp_short(buf, sizeof buf, UINT64_C(1700000000) * 1000000, NOW), "2023-11-14");
        ck_assert_str_eq(format_timestamp_short(buf, sizeof buf, 0, NOW), "n/a");
        ck_assert_str_eq(format_timestamp(buf, sizeof buf, NOW), "2025-11-30 05:20:00");
}
END_TEST

static char *render(const Table *t, size_t width, bool legend) {
        char *s = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&s, &len);

        ck_assert_ptr_nonnull(f);
        ck_assert_int_eq(table_print_width(t, f, width, legend), 0);
        fclose(f);
        return s;
}

START_TEST(test_table_layout) {
        static const char *const headers[] = { "ID", "TARGET", "MiB/s" };
        Table *t = NULL;
        char *s;

        ck_assert_int_eq(table_new(headers, 3, &t), 0);
        table_set_align(t, 0, TABLE_ALIGN_RIGHT);
        table_set_align(t, 2, TABLE_ALIGN_RIGHT);
        table_set_shrinkable(t, 1, 6);
        table_add_cell(t, "1");
        table_add_cell(t, "/mnt/scratch/a-very-long-directory");
        table_add_cell(t, "512");
        table_add_cell(t, "12");
        table_add_cell(t, "/tmp");
        table_add_cell(t, "7.5");
        ck_assert_uint_eq(table_rows(t), 2);

        /* Unlimited: nothing is cut, columns are padded to the widest cell. */
        s = render(t, 0, true);
        ck_assert_str_eq(s,
                         "ID  TARGET                              MiB/s\n"
                         " 1  /mnt/scratch/a-very-long-directory    512\n"
                         "12  /tmp                                  7.5\n");
        free(s);

        /* 30 columns: only TARGET shrinks, with an ellipsis, and every line is 30 wide. */
        s = render(t, 30, true);
        ck_assert_str_eq(s,
                         "ID  TARGET               MiB/s\n"
                         " 1  /mnt/scratch/a-ver…    512\n"
                         "12  /tmp                   7.5\n");
        free(s);

        /* Too narrow even at the minimum: the shrinkable column stops at its minimum. */
        s = render(t, 5, false);
        ck_assert_str_eq(s,
                         " 1  /mnt/…  512\n"
                         "12  /tmp    7.5\n");
        free(s);
        table_free(t);
}
END_TEST

START_TEST(test_table_utf8_and_control) {
        static const char *const headers[] = { "A", "B" };
        Table *t = NULL;
        char *s;

        ck_assert_int_eq(table_new(headers, 2, &t), 0);
        table_add_cell(t, "12 µs");
        table_add_cell(t, "x\ny");
        table_add_cell(t, "5 ms");
        table_add_cell(t, NULL);
        s = render(t, 0, true);
        /* "µ" is one column; a newline in a cell cannot break the row. */
        ck_assert_str_eq(s,
                         "A      B\n"
                         "12 µs  x?y\n"
                         "5 ms   \n");
        free(s);
        ck_assert_uint_eq(utf8_width("12 µs"), 5);
        table_free(t);
}
END_TEST

START_TEST(test_record_metrics) {
        /* A run as QueryRuns sends it: counters in bytes, I/Os and ns, a duration in µs. */
        json_object *run = json_tokener_parse(
                "{\"id\": 7, \"bytes_read\": 0, \"bytes_written\": 67108864, \"ios_read\": 0,"
                " \"ios_written\": 2048, \"duration_usec\": 500000, \"lat_p99_ns\": 1234567,"
                " \"mib_per_s\": 999.0, \"device_name\": \"\", \"device_id\": -1,"
                " \"tags\": [\"a\", \"b\"], \"label\": null}");
        json_object *meta = json_tokener_parse(
                "{\"run_id\": 8, \"ios_read\": 0, \"ios_written\": 0, \"ops\": 300,"
                " \"duration_usec\": 2000000, \"mib_per_s\": 1.5, \"lat_p50_us\": 2.5}");
        json_object *sample = json_tokener_parse(
                "{\"t_ms\": 1500, \"bytes_read\": 1048576, \"bytes_written\": 0, \"ios_read\": 256,"
                " \"ios_written\": 0}");
        char *text;
        uint64_t u;

        ck_assert_ptr_nonnull(run);
        ck_assert_ptr_nonnull(meta);
        ck_assert_ptr_nonnull(sample);
        /* Computed from the counters (64 MiB in 0.5 s), not from a precomputed column. */
        ck_assert_double_eq_tol(run_bytes_per_sec(run), 128.0 * 1048576.0, 1e-6);
        ck_assert_double_eq_tol(run_iops(run), 4096.0, 1e-9);
        ck_assert_double_eq_tol(run_latency_ns(run, "p99"), 1234567.0, 1e-9);
        ck_assert(isnan(run_latency_ns(run, "p50")));
        ck_assert_uint_eq(run_id(run), 7);
        ck_assert_ptr_null(run_device(run));
        ck_assert(!rec_u64(run, "device_id", &u));     /* -1 is not an id */
        ck_assert_ptr_null(rec_str(run, "label"));     /* null is not a string */
        text = rec_to_text(run, "tags");
        ck_assert_str_eq(text, "a, b");
        free(text);

        /* Metadata runs count operations; latencies in µs are converted. */
        ck_assert_double_eq_tol(run_iops(meta), 150.0, 1e-9);
        /* Without byte counters the view's mib_per_s column is used. */
        ck_assert_double_eq_tol(run_bytes_per_sec(meta), 1.5 * 1048576.0, 1e-6);
        ck_assert_double_eq_tol(run_latency_ns(meta, "p50"), 2500.0, 1e-9);
        ck_assert_uint_eq(run_id(meta), 8);

        /* A sample without interval_us: the interval is the distance to the previous sample. */
        ck_assert_double_eq_tol(sample_bytes_per_sec(sample, 1000), 2.0 * 1048576.0, 1e-6);
        ck_assert_double_eq_tol(sample_iops(sample, 1000), 512.0, 1e-9);
        ck_assert(isnan(sample_iops(sample, 1500)));

        json_object_put(run);
        json_object_put(meta);
        json_object_put(sample);
}
END_TEST

static Suite *suite(void) {
        Suite *s = suite_create("client-format");
        TCase *tc = tcase_create("core");

        tcase_add_test(tc, test_format_diff_duration);
        tcase_add_test(tc, test_format_repeat_left);
        tcase_add_loop_test(tc, test_parse_time, 0, sizeof time_cases / sizeof time_cases[0]);
        tcase_add_test(tc, test_parse_date);
        tcase_add_test(tc, test_table_layout);
        tcase_add_test(tc, test_table_utf8_and_control);
        tcase_add_test(tc, test_record_metrics);
        suite_add_tcase(s, tc);
        return s;
}

int main(void) {
        return check_run(suite());
}
