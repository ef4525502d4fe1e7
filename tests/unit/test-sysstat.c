/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * CPU and device accounting from recorded /proc/stat and /sys/block/<dev>/stat snapshots,
 * checked against values worked out by hand (as vmstat and iostat -x would print them).
 */
#include <check.h>
#include <errno.h>
#include <stdlib.h>

#include "shared/blockdev.h"
#include "check-util.h"
#include "shared/util.h"
#include "sysstat.h"

static const char proc_stat_a[] =
        "cpu  13351 0 5383 167801 2205 0 168 18 0 0\n"
        "cpu0 5189 0 2260 86734 280 0 15 7 0 0\n"
        "intr 1234 0 0\n";
/* +100 user +20 nice +50 system +600 idle +200 iowait +10 irq +15 softirq +5 steal = 1000 ticks */
static const char proc_stat_b[] =
        "cpu  13451 20 5433 168401 2405 10 183 23 0 0\n"
        "cpu0 5189 0 2260 86734 280 0 15 7 0 0\n";

START_TEST(test_cpustat_parse) {
        CpuStat s;
        ck_assert_int_eq(cpustat_parse(proc_stat_a, &s), 0);
        ck_assert_uint_eq(s.user, 13351);
        ck_assert_uint_eq(s.system, 5383);
        ck_assert_uint_eq(s.idle, 167801);
        ck_assert_uint_eq(s.iowait, 2205);
        ck_assert_uint_eq(s.softirq, 168);
        ck_assert_uint_eq(s.steal, 18);
}
END_TEST

static const char *const bad_proc_stat[] = {
        "",
        "cpu0 1 2 3 4 5 6 7\n",         /* no aggregate line */
        "cpu  1 2 3\n",                 /* too short */
        "cpu  a b c d e\n",
        "intr 1\ncpux 1 2 3 4 5\n",
};

START_TEST(test_cpustat_parse_bad) {
        CpuStat s;
        ck_assert_int_eq(cpustat_parse(bad_proc_stat[_i], &s), -EINVAL);
}
END_TEST

START_TEST(test_cpustat_parse_old_kernel) {
        /* five fields (2.5 kernels): later ones count as zero */
        CpuStat s;
        ck_assert_int_eq(cpustat_parse("intr 5\ncpu  10 1 20 30 40\n", &s), 0);
        ck_assert_uint_eq(s.iowait, 40);
        ck_assert_uint_eq(s.irq, 0);
}
END_TEST

START_TEST(test_cpustat_usage) {
        CpuStat a, b;
        CpuUsage u;

        ck_assert_int_eq(cpustat_parse(proc_stat_a, &a), 0);
        ck_assert_int_eq(cpustat_parse(proc_stat_b, &b), 0);
        cpustat_usage(&a, &b, &u);
        ck_assert_double_eq_tol(u.user_pct, 12.0, 1e-9);   /* (100 + 20) / 1000 */
        ck_assert_double_eq_tol(u.sys_pct, 7.5, 1e-9);     /* (50 + 10 + 15) / 1000 */
        ck_assert_double_eq_tol(u.iowait_pct, 20.0, 1e-9); /* 200 / 1000 */

        /* no tick passed, or counters went backwards: zeros, never NaN or huge numbers */
        cpustat_usage(&a, &a, &u);
        ck_assert(u.user_pct == 0 && u.sys_pct == 0 && u.iowait_pct == 0);
        cpustat_usage(&b, &a, &u);
        ck_assert(u.user_pct == 0 && u.sys_pct == 0 && u.iowait_pct == 0);
}
END_TEST

/* 17 fields (5.5+ kernels) then 1 s later: +2000 read ios, +800 ms io_ticks, +1500 ms in queue */
static const char blk_a[] =
        "   31879     7104  2361200    23686    10008     6669   700276     4533        0    14252    28592     5622       58   193632      312     1688       60\n";
static const char blk_b[] =
        "   33879     7104  2377200    24686    10008     6669   700276     4533        1    15052    30092     5622       58   193632      312     1688       60\n";

START_TEST(test_blockstat_deltas) {
        BlockStat a, b;

        ck_assert_int_eq(blockstat_parse(blk_a, &a), 0);
        ck_assert_int_eq(blockstat_parse(blk_b, &b), 0);
        ck_assert_uint_eq(a.read_ios, 31879);
        ck_assert_uint_eq(a.write_sectors, 700276);
        ck_assert_uint_eq(a.io_ticks_ms, 14252);
        ck_assert_uint_eq(b.in_flight, 1);

        ck_assert_double_eq_tol(blockstat_util_pct(&a, &b, 1000000), 80.0, 1e-9);
        ck_assert_double_eq_tol(blockstat_queue(&a, &b, 1000000), 1.5, 1e-9);
        /* over 2 s the same deltas halve */
        ck_assert_double_eq_tol(blockstat_util_pct(&a, &b, 2000000), 40.0, 1e-9);
        /* util saturates at 100% (io_ticks can run slightly ahead of our clock) */
        ck_assert_double_eq_tol(blockstat_util_pct(&a, &b, 500000), 100.0, 1e-9);
        /* backwards counters and empty intervals give 0 */
        ck_assert(blockstat_util_pct(&b, &a, 1000000) == 0);
        ck_assert(blockstat_util_pct(&a, &b, 0) == 0);

        /* the busiest of several devices, queues summed; none means unknown */
        BlockStat x[2] = { a, a }, y[2] = { b, a };
        double util, queue;
        blockstats_usage(x, y, 2, 1000000, &util, &queue);
        ck_assert_double_eq_tol(util, 80.0, 1e-9);
        ck_assert_double_eq_tol(queue, 1.5, 1e-9);
        blockstats_usage(x, y, 0, 1000000, &util, &queue);
        ck_assert(util == -1 && queue == -1);
}
END_TEST

START_TEST(test_blockstat_parse_old_and_bad) {
        BlockStat s;
        ck_assert_int_eq(blockstat_parse("1 2 3 4 5 6 7 8 9 10 11\n", &s), 0);
        ck_assert_uint_eq(s.time_in_queue_ms, 11);
        ck_assert_int_eq(blockstat_parse("1 2 3 4 5 6 7 8 9 10\n", &s), -EINVAL);
        ck_assert_int_eq(blockstat_parse("garbage", &s), -EINVAL);
        ck_assert_int_eq(blockstat_parse("", &s), -EINVAL);
}
END_TEST

START_TEST(test_cpustat_read_real) {
        CpuStat s;
        ck_assert_int_eq(cpustat_read(NULL, &s), 0);
        ck_assert_uint_gt(s.user + s.system + s.idle, 0);
        ck_assert_int_lt(cpustat_read("/nonexistent/stat", &s), 0);
}
END_TEST

static Suite *sysstat_suite(void) {
        Suite *s = suite_create("sysstat");
        TCase *tc = tcase_create("core");

        tcase_add_test(tc, test_cpustat_parse);
        tcase_add_loop_test(tc, test_cpustat_parse_bad, 0, ELEMENTSOF(bad_proc_stat));
        tcase_add_test(tc, test_cpustat_parse_old_kernel);
        tcase_add_test(tc, test_cpustat_usage);
        tcase_add_test(tc, test_blockstat_deltas);
        tcase_add_test(tc, test_blockstat_parse_old_and_bad);
        tcase_add_test(tc, test_cpustat_read_real);
        suite_add_tcase(s, tc);
        return s;
}

int main(void) {
        return check_run(sysstat_suite());
}
