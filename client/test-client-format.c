/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * benchctl's own formatting and table fitting: differences and durations a user reads, the
 * --since parser, and that a table fits the terminal by cutting only shrinkable columns. The
 * number formatters it shares with the worker are tested in tests/unit/test-format.c.
 */
#include <check.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format.h"
#include "check-util.h"
#include "record.h"
#include "report-html.h"
#include "table.h"
#include "text.h"
#include "views-format.h"

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

        ck_assert_str_eq(format_repeat(buf, sizeof buf, false, 0, 1, NULL), "");
        ck_assert_str_eq(format_repeat(buf, sizeof buf, false, 0, 1, "0"), "");
        ck_assert_str_eq(format_repeat(buf, sizeof buf, false, 1, 5, NULL), "repeat 2/5");
        ck_assert_str_eq(format_repeat(buf, sizeof buf, false, 4, 5, ""), "repeat 5/5");
        ck_assert_str_eq(format_repeat(buf, sizeof buf, false, 2, 10, "5"), "repeat 3 (until stddev < 5%, at most 10)");
        ck_assert_str_eq(format_repeat(buf, sizeof buf, false, 0, 3, "2.5"), "repeat 1 (until stddev < 2.5%, at most 3)");
        ck_assert_str_eq(format_repeat(buf, sizeof buf, true, 1, 3, NULL), "round 2/3");
        ck_assert_str_eq(format_repeat(buf, sizeof buf, true, 2, 10, "5"), "round 3 (until stddev < 5%, at most 10)");
        ck_assert_str_eq(format_repeat(buf, sizeof buf, true, 0, 1, NULL), "");

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
        /* "µ" is one column; a newline in a cell cannot break the row: it is shown as \n. */
        ck_assert_str_eq(s,
                         "A      B\n"
                         "12 µs  x\\ny\n"
                         "5 ms   \n");
        free(s);
        ck_assert_uint_eq(utf8_width("12 µs"), 5);
        table_free(t);
}
END_TEST

/* Text from outside, escaped as systemctl does: (input, what is shown, its width in columns). */
static const struct {
        const char *in, *out;
        size_t width;
} escape_cases[] = {
        { "", "", 0 },
        { "loop9", "loop9", 5 },
        { "loop\x1b[31mRED\a", "loop\\x1b[31mRED\\a", 17 },   /* ESC and BEL: issue 21's device name */
        { "12 µs", "12 µs", 5 },                                 /* multi-byte UTF-8 stays, one column each */
        { "Größe €5 日本語 😀", "Größe €5 日本語 😀", 14 },
        { "tab\there", "tab\\there", 9 },
        { "\a\b\t\n\v\f\r", "\\a\\b\\t\\n\\v\\f\\r", 14 },
        { "\x01\x1f\x7f", "\\x01\\x1f\\x7f", 12 },                   /* C0 and DEL */
        { "a\xc2\x9b" "31mb", "a\\xc2\\x9b31mb", 13 },               /* C1 CSI, two bytes */
        { "\xc2\xa0nbsp", "\xc2\xa0nbsp", 5 },                        /* U+00A0 is no control */
        { "a\xff" "b", "a\\xff" "b", 6 },                                  /* not UTF-8 */
        { "\xe2\x82", "\\xe2\\x82", 8 },                            /* cut short */
        { "\xc0\xaf", "\\xc0\\xaf", 8 },                            /* overlong '/' */
        { "\xed\xa0\x80", "\\xed\\xa0\\x80", 12 },                 /* a UTF-16 surrogate */
        { "\xf4\x90\x80\x80", "\\xf4\\x90\\x80\\x80", 16 },         /* beyond U+10FFFF */
        { "back\\slash", "back\\slash", 10 },                         /* a backslash stays one */
};

START_TEST(test_text_escape) {
        _cleanup_free_ char *e = text_escape(escape_cases[_i].in), *s = NULL;
        size_t len = 0;
        FILE *f;

        ck_assert_ptr_nonnull(e);
        ck_assert_msg(streq(e, escape_cases[_i].out), "row %d: \"%s\" shown as \"%s\"", _i, escape_cases[_i].out, e);
        ck_assert_uint_eq(text_width(escape_cases[_i].in), escape_cases[_i].width);
        ck_assert_uint_eq(utf8_width(e), escape_cases[_i].width); /* the width is the escaped text's */
        for (const char *p = e; *p; p++)
                ck_assert_msg((unsigned char) *p >= 0x20 && *p != 0x7f, "row %d: a control byte 0x%02x is left", _i,
                              (unsigned char) *p);
        f = open_memstream(&s, &len);
        ck_assert_ptr_nonnull(f);
        ck_assert_int_eq(text_fputs(escape_cases[_i].in, f), 0);
        fclose(f);
        ck_assert_str_eq(s, e);
}
END_TEST

static char *printed(const char *fmt, ...) _printf_(1, 2);
static char *printed(const char *fmt, ...) {
        char *s = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&s, &len);
        va_list ap;

        ck_assert_ptr_nonnull(f);
        va_start(ap, fmt);
        ck_assert_int_eq(text_vfprintf(f, fmt, ap), 0);
        va_end(ap);
        fclose(f);
        return s;
}

START_TEST(test_text_printf) {
        char *s;

        /* The format's own newline and tab stand; the arguments' are escaped. */
        s = printed("Device %s\n\t%s: %d%%\n", "loop\x1b[31mRED\a", "a\nb", 5);
        ck_assert_str_eq(s, "Device loop\\x1b[31mRED\\a\n\ta\\nb: 5%\n");
        free(s);
        /* Every conversion benchctl uses, with its arguments in order. */
        s = printed("[%-6s|%5.1f|%zu|%" PRIu64 "|%*s|%.*s|%c|%x|%lld|%g|%3u|%+.2Lf|%jd|%hhu]", "ab", 2.25,
                    (size_t) 7, UINT64_MAX, 4, "x", 2, "hello", 'z', 255u, -3LL, 1e-3, 9u, (long double) 1.5,
                    (intmax_t) -9, (unsigned char) 200);
        ck_assert_str_eq(s, "[ab    |  2.2|7|18446744073709551615|   x|he|z|ff|-3|0.001|  9|+1.50|-9|200]");
        free(s);
        /* Widths count the escape's bytes, as the escape is what is printed. */
        s = printed("[%-8s]", "\x1b");
        ck_assert_str_eq(s, "[\\x1b    ]");
        free(s);
        /* %m: the error text_fprintf_errno() was given, which it returns. */
        {
                char *m = NULL;
                size_t len = 0;
                FILE *f = open_memstream(&m, &len);

                ck_assert_ptr_nonnull(f);
                errno = 0;
                ck_assert_int_eq(text_fprintf_errno(f, -ENOENT, "open %s: %m [%-8m]", "a\nb"), -ENOENT);
                fclose(f);
                ck_assert_str_eq(m, "open a\\nb: No such file or directory [No such file or directory]");
                free(m);
        }
}
END_TEST

START_TEST(test_table_escapes) {
        static const char *const headers[] = { "ID", "DEVICE\x1b", "N" };
        Table *t = NULL;
        char *s;

        ck_assert_int_eq(table_new(headers, 3, &t), 0);
        table_set_shrinkable(t, 1, 3);
        table_set_align(t, 2, TABLE_ALIGN_RIGHT);
        table_add_cell(t, "1");
        table_add_cell(t, "loop\x1b[31mRED\a");
        table_add_cell(t, "7");
        table_add_cell(t, "2");
        table_add_cell(t, "sdb");
        table_add_cell(t, "12");
        s = render(t, 0, true);
        /* The escape's width is counted: the column is 17 wide, the rows stay aligned. */
        ck_assert_str_eq(s,
                         "ID  DEVICE\\x1b          N\n"
                         "1   loop\\x1b[31mRED\\a   7\n"
                         "2   sdb                12\n");
        ck_assert_ptr_null(strchr(s, 0x1b));
        ck_assert_ptr_null(strchr(s, 0x07));
        free(s);
        /* Cut inside an escape: the whole escape goes, the column is padded, then the ellipsis. */
        s = render(t, 15, false);
        ck_assert_str_eq(s,
                         "1  loop   …   7\n"
                         "2  sdb       12\n");
        free(s);
        table_free(t);
}
END_TEST

START_TEST(test_kv_escapes) {
        char *s = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&s, &len);

        ck_assert_ptr_nonnull(f);
        kv_print(f, 8, "Device", "%s (%s)", "loop\x1b[2J", "host\a");
        kv_print(f, 8, "Ke\ty", "%d", 5);
        fclose(f);
        ck_assert_str_eq(s, "  Device: loop\\x1b[2J (host\\a)\n   Ke\\ty: 5\n");
        free(s);
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


/* Byte counts as GNU dd 9.1 abbreviated them (dd if=/dev/zero of=/dev/null bs=1M count=N
 * iflag=count_bytes): rounded to nearest, ties to even, one decimal below 10. */
static const struct {
        uint64_t bytes;
        const char *si, *iec;
} dd_sizes[] = {
        { 999, "", "" },
        { 1000, "1.0 kB", "" },
        { 1023, "1.0 kB", "" },
        { 1024, "1.0 kB", "1.0 KiB" },
        { 1050, "1.0 kB", "1.0 KiB" },
        { 1051, "1.1 kB", "1.0 KiB" },
        { 1150, "1.2 kB", "1.1 KiB" },
        { 1250, "1.2 kB", "1.2 KiB" },
        { 2560, "2.6 kB", "2.5 KiB" },
        { 9949, "9.9 kB", "9.7 KiB" },
        { 9950, "10 kB", "9.7 KiB" },
        { 10240, "10 kB", "10 KiB" },
        { 10500, "10 kB", "10 KiB" },
        { 11500, "12 kB", "11 KiB" },
        { 12500, "12 kB", "12 KiB" },
        { 99500, "100 kB", "97 KiB" },
        { 101500, "102 kB", "99 KiB" },
        { 999499, "999 kB", "976 KiB" },
        { 999500, "1.0 MB", "976 KiB" },
        { 1572864, "1.6 MB", "1.5 MiB" },
        { 32768000, "33 MB", "31 MiB" },
        { 268435456, "268 MB", "256 MiB" },
        { 1000000000, "1.0 GB", "954 MiB" },
        { 1073741824, "1.1 GB", "1.0 GiB" },
        { UINT64_C(10737418240), "11 GB", "10 GiB" },
};

START_TEST(test_dd_size) {
        char buf[FORMAT_BUF_MAX];

        ck_assert_str_eq(dd_format_size(buf, sizeof buf, dd_sizes[_i].bytes, false), dd_sizes[_i].si);
        ck_assert_str_eq(dd_format_size(buf, sizeof buf, dd_sizes[_i].bytes, true), dd_sizes[_i].iec);
}
END_TEST

START_TEST(test_dd_rate_and_line) {
        char buf[256];

        /* Rates dd printed for these bytes and seconds. */
        ck_assert_str_eq(dd_format_rate(buf, sizeof buf, 1 / 1.9838e-05), "50.4 kB/s");
        ck_assert_str_eq(dd_format_rate(buf, sizeof buf, 2 / 1.5965e-05), "125 kB/s");
        ck_assert_str_eq(dd_format_rate(buf, sizeof buf, 1000 / 1.516e-05), "66.0 MB/s");
        ck_assert_str_eq(dd_format_rate(buf, sizeof buf, 9949 / 3.4627e-05), "287 MB/s");
        ck_assert_str_eq(dd_format_rate(buf, sizeof buf, 99499 / 6.1344e-05), "1.6 GB/s");
        ck_assert_str_eq(dd_format_rate(buf, sizeof buf, 999499 / 0.000338703), "3.0 GB/s");
        ck_assert_str_eq(dd_format_rate(buf, sizeof buf, 1073741824 / 0.018374), "58.4 GB/s");
        ck_assert_str_eq(dd_format_rate(buf, sizeof buf, 512), "512 B/s");
        ck_assert_str_eq(dd_format_rate(buf, sizeof buf, INFINITY), "Infinity B/s");

        ck_assert_str_eq(dd_format_summary(buf, sizeof buf, 268435456, 1230000),
                         "268435456 bytes (268 MB, 256 MiB) copied, 1.23 s, 218 MB/s");
        ck_assert_str_eq(dd_format_summary(buf, sizeof buf, 268435456, 4779),
                         "268435456 bytes (268 MB, 256 MiB) copied, 0.004779 s, 56.2 GB/s");
        ck_assert_str_eq(dd_format_summary(buf, sizeof buf, 1000, 15),
                         "1000 bytes (1.0 kB) copied, 1.5e-05 s, 66.7 MB/s");
        ck_assert_str_eq(dd_format_summary(buf, sizeof buf, 1, 20), "1 byte copied, 2e-05 s, 50.0 kB/s");
        ck_assert_str_eq(dd_format_summary(buf, sizeof buf, 999, 2000000), "999 bytes copied, 2 s, 500 B/s");
}
END_TEST

START_TEST(test_ioping) {
        char buf[FORMAT_BUF_MAX], *text = NULL;
        size_t len = 0;
        FILE *f;

        ck_assert_str_eq(ioping_format(buf, sizeof buf, 9, IOPING_UNIT_COUNT), "9");
        ck_assert_str_eq(ioping_format(buf, sizeof buf, 3234, IOPING_UNIT_COUNT), "3.23 k");
        ck_assert_str_eq(ioping_format(buf, sizeof buf, 36864, IOPING_UNIT_SIZE), "36 KiB");
        ck_assert_str_eq(ioping_format(buf, sizeof buf, 13237043, IOPING_UNIT_SIZE), "12.6 MiB");
        ck_assert_str_eq(ioping_format(buf, sizeof buf, 4096, IOPING_UNIT_SIZE), "4 KiB");
        ck_assert_str_eq(ioping_format(buf, sizeof buf, 100, IOPING_UNIT_SIZE), "100 B");
        ck_assert_str_eq(ioping_format(buf, sizeof buf, 159600, IOPING_UNIT_TIME), "159.6 us");
        ck_assert_str_eq(ioping_format(buf, sizeof buf, 2790000, IOPING_UNIT_TIME), "2.79 ms");
        ck_assert_str_eq(ioping_format(buf, sizeof buf, 9000000000, IOPING_UNIT_TIME), "9 s");
        ck_assert_str_eq(ioping_format(buf, sizeof buf, 0, IOPING_UNIT_TIME), "0 ns");

        f = open_memstream(&text, &len);
        ck_assert_ptr_nonnull(f);
        ck_assert_int_eq(ping_summary_print(f, &(PingSummary) {
                .requests = 9, .bytes = 36864, .busy_ns = 2787300, .wall_usec = 9000000,
                .min_ns = 159600, .avg_ns = 309700, .max_ns = 437800, .mdev_ns = 95500,
        }), 0);
        fclose(f);
        ck_assert_str_eq(text, "9 requests completed in 2.79 ms, 36 KiB read, 3.23 k iops, 12.6 MiB/s\n"
                               "generated 9 requests in 9 s, 36 KiB, 1 iops, 4 KiB/s\n"
                               "min/avg/max/mdev = 159.6 us / 309.7 us / 437.8 us / 95.5 us\n");
        free(text);
}
END_TEST

START_TEST(test_iozone) {
        const IozoneCell cells[] = {
                { 65536 * 1024, 4096, IOZONE_WRITE, 123456.9 },
                { 65536 * 1024, 4096, IOZONE_READ, 2345678 },
                { 65536 * 1024, 16384, IOZONE_WRITE, 234567 },
                { 65536 * 1024, 16384, IOZONE_STRIDE_READ, 99 },
                { 131072 * 1024, 16384, IOZONE_WRITE, 7 },
        };
        char *text = NULL;
        size_t len = 0;
        FILE *f;

        ck_assert_int_eq(iozone_test_of_workload("backward-read"), IOZONE_BACKWARD_READ);
        ck_assert_int_eq(iozone_test_of_workload("seeks"), -1);

        f = open_memstream(&text, &len);
        ck_assert_int_eq(iozone_matrix_print(f, cells, ELEMENTSOF(cells)), 0);
        fclose(f);
        ck_assert_str_eq(text,
                "File size 64 MiB (65536 kB), KB/s (1 KB = 1024 bytes):\n"
                "                                                                    random    random      bkwd    stride\n"
                "              kB  reclen     write   rewrite      read    reread      read     write      read      read\n"
                "           65536       4    123456         -   2345678         -         -         -         -         -\n"
                "           65536      16    234567         -         -         -         -         -         -        99\n"
                "\n"
                "File size 128 MiB (131072 kB), KB/s (1 KB = 1024 bytes):\n"
                "                                                                    random    random      bkwd    stride\n"
                "              kB  reclen     write   rewrite      read    reread      read     write      read      read\n"
                "          131072      16         7         -         -         -         -         -         -         -\n");
        free(text);

        text = NULL;
        f = open_memstream(&text, &len);
        ck_assert_int_eq(iozone_report_print(f, "\tbenchd\n", cells, ELEMENTSOF(cells)), 0);
        fclose(f);
        ck_assert_str_eq(text,
                "\tbenchd\n"
                "\tOutput is in kBytes/sec\n"
                "\n"
                "Excel output is below:\n"
                "\n"
                "\"Writer report\"\n"
                "\t\"4\"\t\"16\"\n"
                "\"65536\"\t123456\t234567\n"
                "\"131072\"\t\t7\n"
                "\n"
                "\"Reader report\"\n"
                "\t\"4\"\t\"16\"\n"
                "\"65536\"\t2345678\t\n"
                "\"131072\"\t\t\n"
                "\n"
                "\"Stride read report\"\n"
                "\t\"4\"\t\"16\"\n"
                "\"65536\"\t\t99\n"
                "\"131072\"\t\t\n");
        free(text);
}
END_TEST

/* The fields of a bonnie++ result, and the table bon_csv2txt (Debian's bonnie++ 2.00a) printed
 * from the very same line. */
START_TEST(test_bonnie) {
        BonnieResult b = {
                .version = "benchd-0.1.0",
                .name = "refhost",
                .file_size = 8 << 20,
                .chunk_size = 8192,
                .seeks = 8192,
                .seek_procs = 5,
                .io = {
                        [BONNIE_PUTC] = { NAN, NAN, NAN },
                        [BONNIE_PUT_BLOCK] = { 12345.9, 3.7, 68000 },
                        [BONNIE_REWRITE] = { 2345.2, 4.99, 62000 },
                        [BONNIE_GETC] = { NAN, NAN, NAN },
                        [BONNIE_GET_BLOCK] = { 45678, 5, 32900 },
                        [BONNIE_SEEKS] = { 123.4, 9.2, 5573000 },
                },
                .num_files = 1024,
                .max_size = 64,
                .min_size = 4,
                .num_dirs = 4,
                .file = {
                        { 5000, 20, 190000 }, { 60000, 30, 12000 }, { 7000, 25, 409000 },
                        { 4000, 20, 267000 }, { 50000, 30, 51000 }, { 6000, 25, 211000 },
                },
        };
        const char *line = "1.98,benchd-0.1.0,refhost,1,,8M,,8192,5,,,12345,3,2345,4,,,45678,5,123.4,9,1,64,4,,4,"
                           "5000,20,60000,30,7000,25,4000,20,50000,30,6000,25,,68us,62us,,32us,5573us,190us,12us,"
                           "409us,267us,51us,211us\n";
        char **fields = NULL, *text = NULL, buf[FORMAT_BUF_MAX];
        size_t len = 0, n = 0;
        FILE *f;

        ck_assert_str_eq(bonnie_format_latency(buf, sizeof buf, 99999000), "99999us");
        ck_assert_str_eq(bonnie_format_latency(buf, sizeof buf, 150000000), "150ms");
        ck_assert_str_eq(bonnie_format_latency(buf, sizeof buf, 120e9), "120s");
        ck_assert_str_eq(bonnie_format_latency(buf, sizeof buf, NAN), "");

        ck_assert_int_eq(bonnie_csv_fields(&b, &fields), 0);
        while (fields[n])
                n++;
        ck_assert_uint_eq(n, BONNIE_CSV_FIELDS);
        f = open_memstream(&text, &len);
        ck_assert_int_eq(bonnie_csv_print(f, fields), 0);
        fclose(f);
        ck_assert_str_eq(text, line);
        free(text);

        text = NULL;
        f = open_memstream(&text, &len);
        ck_assert_int_eq(bonnie_text_print(f, fields), 0);
        fclose(f);
        ck_assert_str_eq(text,
                "Version     2.00a   ------Sequential Output------ --Sequential Input- --Random-\n"
                "                    -Per Chr- --Block-- -Rewrite- -Per Chr- --Block-- --Seeks--\n"
                "Name:Size etc        /sec %CP  /sec %CP  /sec %CP  /sec %CP  /sec %CP  /sec %CP\n"
                "refhost  8M::8192:5           12.1m   3 2345k   4           44.6m   5 123.4   9\n"
                "Latency                          68us      62us                32us    5573us\n"
                "                    ------Sequential Create------ --------Random Create--------\n"
                "                    -Create-- --Read--- -Delete-- -Create-- --Read--- -Delete--\n"
                "      files:max:min  /sec %CP  /sec %CP  /sec %CP  /sec %CP  /sec %CP  /sec %CP\n"
                "refhost    1:64:4:4  5000  20 60000  30  7000  25  4000  20 50000  30  6000  25\n"
                "Latency               190us      12us     409us     267us      51us     211us\n");
        free(text);
        for (size_t i = 0; fields[i]; i++)
                free(fields[i]);
        free(fields);

        /* Without metadata tests and seeks: their fields are blank, the table has no file part. */
        b.num_files = 0;
        b.seeks = b.seek_procs = 0;
        b.io[BONNIE_SEEKS] = (BonnieFigure) { NAN, NAN, NAN };
        b.file_size = UINT64_C(2) << 30;
        b.chunk_size = 4096;
        ck_assert_int_eq(bonnie_csv_fields(&b, &fields), 0);
        ck_assert_str_eq(fields[5], "2G");
        ck_assert_str_eq(fields[6], "4k");
        ck_assert_str_eq(fields[19], "");
        ck_assert_str_eq(fields[21], "");
        ck_assert_str_eq(fields[26], "");
        text = NULL;
        f = open_memstream(&text, &len);
        ck_assert_int_eq(bonnie_text_print(f, fields), 0);
        fclose(f);
        ck_assert_ptr_null(strstr(text, "files:max:min"));
        ck_assert_ptr_nonnull(strstr(text, "refhost       2G:4k           12.1m   3 2345k   4           44.6m   5          \n"));
        free(text);
        for (size_t i = 0; fields[i]; i++)
                free(fields[i]);
        free(fields);
}
END_TEST

START_TEST(test_report_json_escape) {
        static const struct {
                const char *in, *out;
        } cases[] = {
                { "{}", "{}" },
                { "{\"a\":\"</script>\"}", "{\"a\":\"<\\/script>\"}" },
                { "\"</SCRIPT><//\"", "\"<\\/SCRIPT><\\//\"" },
                { "\"<!-- x -->\"", "\"<\\u0021-- x -->\"" },
                { "\"a<b <\"", "\"a<b <\"" },
                { "\"<<!--</\"", "\"<<\\u0021--<\\/\"" },
                { "", "" },
        };

        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                char *e = report_json_escape(cases[i].in);
                ck_assert_ptr_nonnull(e);
                ck_assert_str_eq(e, cases[i].out);
                /* What the escape leaves can stand in a script element. */
                ck_assert(report_script_inlinable(e));
                free(e);
        }
        ck_assert(!report_script_inlinable("var a = '</script>';"));
        ck_assert(!report_script_inlinable("x </ScRiPt y"));
        ck_assert(!report_script_inlinable("<!-- x"));
        ck_assert(report_script_inlinable("a < b && c </ d; '</scrip'"));
}
END_TEST

START_TEST(test_report_file_name) {
        static const uint64_t one[] = { 31 }, two[] = { 31, 35 }, six[] = { 1, 2, 3, 4, 5, 6 };
        static const struct {
                ReportSelection sel;
                const char *name;
        } cases[] = {
                { { .kind = REPORT_JOB, .job = 12 }, "benchd-job-12.html" },
                { { .kind = REPORT_RUNS, .runs = one, .n_runs = 1 }, "benchd-run-31.html" },
                { { .kind = REPORT_RUNS, .runs = two, .n_runs = 2 }, "benchd-runs-31-35.html" },
                { { .kind = REPORT_RUNS, .runs = six, .n_runs = 6 }, "benchd-runs-1-2-3-4-and-2-more.html" },
                { { .kind = REPORT_COMPARE, .by = "fs_type" }, "benchd-compare-fs_type.html" },
                { { .kind = REPORT_COMPARE, .by = "label", .workload = "write", .fs_type = "ext4" },
                  "benchd-compare-label-write-ext4.html" },
                { { .kind = REPORT_HISTORY }, "benchd-history.html" },
                { { .kind = REPORT_HISTORY, .device = "/dev/sdb", .workload = "write" }, "benchd-history-sdb-write.html" },
                /* Nothing that leaves the directory, hides, or needs quoting in a shell. */
                { { .kind = REPORT_HISTORY, .label = "../../etc/x y" }, "benchd-history-x_y.html" },
                { { .kind = REPORT_HISTORY, .label = "a/" }, "benchd-history-a_.html" },
                { { .kind = REPORT_HISTORY, .label = "..", .profile = "dd" }, "benchd-history-dd-...html" },
                { { .kind = REPORT_HISTORY, .label = "$(rm -rf ~);'\"" }, "benchd-history-__rm_-rf______.html" },
                { { .kind = REPORT_HISTORY, .device = "nvme0n1p2", .label = "" }, "benchd-history-nvme0n1p2.html" },
                { { .kind = REPORT_FLEET, .fleet = "6a1e3c0d-8d57-4b7e-9a3e-0c1d2e3f4a5b" },
                  "benchd-fleet-6a1e3c0d-8d57-4b7e-9a3e-0c1d2e3f4a5b.html" },
                { { .kind = REPORT_FLEET, .fleet = "../x" }, "benchd-fleet-x.html" },
        };

        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                char *name = NULL;
                ck_assert_int_eq(report_file_name(&cases[i].sel, &name), 0);
                ck_assert_str_eq(name, cases[i].name);
                free(name);
        }
        {
                char *name = NULL;
                ck_assert_int_eq(report_file_name(&(ReportSelection) { .kind = REPORT_RUNS }, &name), -EINVAL);
                ck_assert_int_eq(report_file_name(&(ReportSelection) { .kind = _REPORT_KIND_MAX }, &name), -EINVAL);
                ck_assert_int_eq(report_file_name(&(ReportSelection) { .kind = REPORT_FLEET }, &name), -EINVAL);
                ck_assert_ptr_null(name);
        }
        ck_assert_str_eq(report_kind_to_string(REPORT_HISTORY), "history");
        ck_assert_str_eq(report_kind_to_string(REPORT_FLEET), "fleet");
}
END_TEST

START_TEST(test_report_page) {
        char *text = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&text, &len);
        ReportPage p = {
                .title = "Job <1> & \"x\"",
                .generator = "benchctl 0.1.0",
                .css = "body { color: red; }\n",
                .chart_js = "var Chart = 1;",
                .chart_js_origin = "/usr/share/javascript/chart.js/chart.min.js",
                .page_js = "build();",
                .data_json = "{\"a\":\"<\\/b>\"}",
        };

        ck_assert_int_eq(report_html_write(f, &p), 0);
        fclose(f);
        ck_assert(strncmp(text, "<!DOCTYPE html>\n", 16) == 0);
        ck_assert_ptr_nonnull(strstr(text, "<title>Job &lt;1&gt; &amp; &quot;x&quot;</title>"));
        ck_assert_ptr_nonnull(strstr(text, "<script type=\"application/json\" id=\"benchd-data\">{\"a\":\"<\\/b>\"}</script>"));
        ck_assert_ptr_nonnull(strstr(text, "<pre id=\"benchd-report-state\" hidden>"));
        /* The data and the error collector come before the library, the page's script after it. */
        ck_assert(strstr(text, "benchd-data") < strstr(text, "window.onerror"));
        ck_assert(strstr(text, "window.onerror") < strstr(text, "var Chart = 1;"));
        ck_assert(strstr(text, "var Chart = 1;") < strstr(text, "build();"));
        ck_assert_ptr_null(strstr(text, " src="));
        free(text);

        /* Control characters and bytes that are not UTF-8 in the title (a group name from another
         * host): shown as the terminal shows them, none of them in the page; UTF-8 stays. */
        text = NULL;
        f = open_memstream(&text, &len);
        p.title = "Runs by device_name: loop\x1b[31mRED\a, \xff" "x, µ<";
        ck_assert_int_eq(report_html_write(f, &p), 0);
        fclose(f);
        ck_assert_ptr_nonnull(strstr(text, "<title>Runs by device_name: loop\\x1b[31mRED\\a, \\xffx, µ&lt;</title>"));
        ck_assert_ptr_nonnull(strstr(text, "<h1>Runs by device_name: loop\\x1b[31mRED\\a, \\xffx, µ&lt;</h1>"));
        ck_assert_ptr_null(strchr(text, 0x1b));
        ck_assert_ptr_null(strchr(text, 0x07));
        ck_assert_ptr_null(strchr(text, 0xff));
        free(text);
        p.title = "Job <1> & \"x\"";

        /* A script that would end its element early is refused, not written. */
        text = NULL;
        f = open_memstream(&text, &len);
        p.chart_js = "x = '</script>';";
        ck_assert_int_eq(report_html_write(f, &p), -EINVAL);
        p.chart_js = "ok";
        p.data_json = "{\"a\":\"</b>\"}";
        ck_assert_int_eq(report_html_write(f, &p), -EINVAL);
        fclose(f);
        ck_assert_uint_eq(len, 0);
        free(text);
}
END_TEST

START_TEST(test_stats) {
        double mean, sd;
        const double v[] = { 10, NAN, 12, 14 };

        ck_assert_uint_eq(stats_mean_stddev(v, ELEMENTSOF(v), &mean, &sd), 3);
        ck_assert_double_eq_tol(mean, 12, 1e-12);
        ck_assert_double_eq_tol(sd, 2, 1e-12);
        ck_assert_uint_eq(stats_mean_stddev(v, 1, &mean, &sd), 1);
        ck_assert_double_eq_tol(sd, 0, 1e-12);
        ck_assert_uint_eq(stats_mean_stddev(v + 1, 1, &mean, &sd), 0);
        ck_assert(isnan(mean));
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
        tcase_add_loop_test(tc, test_text_escape, 0, ELEMENTSOF(escape_cases));
        tcase_add_test(tc, test_text_printf);
        tcase_add_test(tc, test_table_escapes);
        tcase_add_test(tc, test_kv_escapes);
        tcase_add_test(tc, test_record_metrics);
        tcase_add_loop_test(tc, test_dd_size, 0, ELEMENTSOF(dd_sizes));
        tcase_add_test(tc, test_dd_rate_and_line);
        tcase_add_test(tc, test_ioping);
        tcase_add_test(tc, test_iozone);
        tcase_add_test(tc, test_bonnie);
        tcase_add_test(tc, test_stats);
        tcase_add_test(tc, test_report_json_escape);
        tcase_add_test(tc, test_report_file_name);
        tcase_add_test(tc, test_report_page);
        suite_add_tcase(s, tc);
        return s;
}

int main(void) {
        return check_run(suite());
}
