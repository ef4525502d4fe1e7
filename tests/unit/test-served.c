/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Tests of shared/served.c: whether a run's bytes reached its device, as a table of what the
 * workload moved against what the device's counters (and a loop device's backing disk's) saw.
 */
#include <check.h>
#include <stdlib.h>

#include "check-util.h"
#include "shared/served.h"
#include "shared/util.h"

#define MiB (UINT64_C(1) << 20)

static const struct {
        const char *what;
        ServedInput in;
        ServedFrom want;
        bool writes;
} cases[] = {
        { "direct reads the device saw", { WORKLOAD_READ, 64 * MiB, 0, true, 64 * MiB, 0 }, SERVED_DEVICE, false },
        { "readahead adds to them", { WORKLOAD_READ, 64 * MiB, 0, true, 70 * MiB, 0 }, SERVED_DEVICE, false },
        { "exactly half is still the device's", { WORKLOAD_READ, 64 * MiB, 0, true, 32 * MiB, 0 }, SERVED_DEVICE,
          false },
        { "a byte short of half", { WORKLOAD_READ, 64 * MiB, 0, true, 32 * MiB - 1, 0 }, SERVED_PAGE_CACHE, false },
        { "a warm page cache", { WORKLOAD_READ, 64 * MiB, 0, true, 0, 0 }, SERVED_PAGE_CACHE, false },
        { "an odd byte count: half rounds up", { WORKLOAD_READ, 3, 0, true, 1, 0 }, SERVED_PAGE_CACHE, false },
        { "an odd byte count, met", { WORKLOAD_READ, 3, 0, true, 2, 0 }, SERVED_DEVICE, false },
        { "writes flushed inside the run (sync=end)", { WORKLOAD_WRITE, 0, 64 * MiB, true, 0, 66 * MiB },
          SERVED_DEVICE, false },
        { "buffered writes never flushed", { WORKLOAD_WRITE, 0, 64 * MiB, true, 0, 1 * MiB }, SERVED_PAGE_CACHE,
          true },
        { "a rewrite: reads met, writes not", { WORKLOAD_READ_MODIFY_WRITE, 8 * MiB, 8 * MiB, true, 8 * MiB, 0 },
          SERVED_PAGE_CACHE, true },
        { "a rewrite: reads short first", { WORKLOAD_READ_MODIFY_WRITE, 8 * MiB, 8 * MiB, true, 0, 0 },
          SERVED_PAGE_CACHE, false },
        { "seeks: reads met, write-backs flushed", { WORKLOAD_SEEKS, 64 * MiB, 6 * MiB, true, 70 * MiB, 7 * MiB },
          SERVED_DEVICE, false },
        /* Loop devices: their backing file's disk. */
        { "the disk under the image saw it", { WORKLOAD_POSITION, 64 * MiB, 0, true, 64 * MiB, 0, true, 64 * MiB, 0 },
          SERVED_DEVICE, false },
        { "holes of a sparse image", { WORKLOAD_POSITION, 64 * MiB, 0, true, 64 * MiB, 0, true, 0, 0 },
          SERVED_BACKING_FILE, false },
        { "the host cached the image's writes", { WORKLOAD_WRITE, 0, 64 * MiB, true, 0, 64 * MiB, true, 0, 0 },
          SERVED_BACKING_FILE, true },
        { "the page cache wins over the backing file", { WORKLOAD_READ, 64 * MiB, 0, true, 0, 0, true, 0, 0 },
          SERVED_PAGE_CACHE, false },
        { "no backing disk to ask (tmpfs)", { WORKLOAD_READ, 64 * MiB, 0, true, 64 * MiB, 0, false, 0, 0 },
          SERVED_DEVICE, false },
        /* Not judged. */
        { "no device counters (tmpfs)", { WORKLOAD_READ, 64 * MiB, 0, false, 0, 0 }, SERVED_UNKNOWN, false },
        { "metadata moves no blocks to speak of", { WORKLOAD_METADATA, 4096, 4096, true, 0, 0 }, SERVED_UNKNOWN,
          false },
        { "nothing moved", { WORKLOAD_READ, 0, 0, true, 0, 0 }, SERVED_UNKNOWN, false },
};

START_TEST(test_served) {
        bool writes = !cases[_i].writes;
        ServedFrom got = served_from(&cases[_i].in, &writes);

        ck_assert_msg(got == cases[_i].want, "%s: %d, expected %d", cases[_i].what, got, cases[_i].want);
        ck_assert_msg(writes == cases[_i].writes, "%s: writes %d", cases[_i].what, writes);
        ck_assert_int_eq(served_from(&cases[_i].in, NULL), cases[_i].want);
}
END_TEST

START_TEST(test_names) {
        ck_assert_ptr_null(served_from_to_string(SERVED_UNKNOWN));
        ck_assert_str_eq(served_from_to_string(SERVED_DEVICE), "device");
        ck_assert_str_eq(served_from_to_string(SERVED_PAGE_CACHE), "page-cache");
        ck_assert_str_eq(served_from_to_string(SERVED_BACKING_FILE), "backing-file");
        ck_assert_ptr_null(served_from_to_string(_SERVED_FROM_MAX));
        for (int i = SERVED_DEVICE; i < _SERVED_FROM_MAX; i++)
                ck_assert_int_eq(served_from_from_string(served_from_to_string(i)), i);
        ck_assert_int_eq(served_from_from_string("cache"), SERVED_UNKNOWN);
        ck_assert_int_eq(served_from_from_string(NULL), SERVED_UNKNOWN);
}
END_TEST

static Suite *served_suite(void) {
        Suite *s = suite_create("served");
        TCase *tc = tcase_create("core");

        tcase_add_loop_test(tc, test_served, 0, ELEMENTSOF(cases));
        tcase_add_test(tc, test_names);
        suite_add_tcase(s, tc);
        return s;
}

int main(void) {
        return check_run(served_suite());
}
