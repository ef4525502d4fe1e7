/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * shared/strv.h over tables of lists: length, push, contains, equal and sort, each with the NULL
 * list (which is an empty list everywhere), the empty list and lists with repeats; and
 * strdup_or_null.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "shared/strv.h"
#include "check-util.h"
#include "shared/util.h"

#define L(...) ((char *[]) { __VA_ARGS__, NULL })

/* ---- length and contains ---- */

static const struct {
        char **l;
        size_t length;
        const char *present, *absent;
} list_cases[] = {
        { NULL, 0, NULL, "a" },
        { L(NULL), 0, NULL, "" },
        { L("a"), 1, "a", "b" },
        { L("sda", "sda1", "sda2"), 3, "sda2", "sda3" },
        { L("x", "x", ""), 3, "", "xx" },
        { L("loop0p1", "loop0"), 2, "loop0", "loop" },  /* whole strings, not prefixes */
};

START_TEST(test_length_contains) {
        ck_assert_uint_eq(strv_length(list_cases[_i].l), list_cases[_i].length);
        if (list_cases[_i].present)
                ck_assert(strv_contains(list_cases[_i].l, list_cases[_i].present));
        ck_assert(!strv_contains(list_cases[_i].l, list_cases[_i].absent));
}
END_TEST

/* ---- equal ---- */

static const struct {
        char **a, **b;
        bool equal;
} equal_cases[] = {
        { NULL, NULL, true },
        { NULL, L(NULL), true },                /* NULL is the empty list */
        { L(NULL), NULL, true },
        { L("a"), NULL, false },
        { NULL, L("a"), false },
        { L("a", "b"), L("a", "b"), true },
        { L("a", "b"), L("b", "a"), false },    /* order counts */
        { L("a", "b"), L("a"), false },
        { L("a"), L("a", "b"), false },
        { L("a", ""), L("a", ""), true },
        { L("a", ""), L("a", "b"), false },
};

START_TEST(test_equal) {
        ck_assert_int_eq(strv_equal(equal_cases[_i].a, equal_cases[_i].b), equal_cases[_i].equal);
}
END_TEST

/* ---- push and sort ---- */

static const struct {
        const char *push[6];
        const char *sorted[6];
} push_cases[] = {
        { { NULL }, { NULL } },
        { { "a" }, { "a" } },
        { { "sdb", "sda", "sda2", "sda1" }, { "sda", "sda1", "sda2", "sdb" } },
        { { "b", "a", "b", "" }, { "", "a", "b", "b" } },       /* repeats kept: push does not dedup */
        { { "nvme0n1p10", "nvme0n1p2" }, { "nvme0n1p10", "nvme0n1p2" } }, /* strcmp order */
};

START_TEST(test_push_sort) {
        _cleanup_strv_free_ char **l = NULL;
        size_t n = 0;

        for (; push_cases[_i].push[n]; n++) {
                ck_assert_int_eq(strv_push(&l, push_cases[_i].push[n]), 0);
                ck_assert_uint_eq(strv_length(l), n + 1);
                ck_assert_str_eq(l[n], push_cases[_i].push[n]);
                ck_assert_ptr_ne(l[n], push_cases[_i].push[n]);        /* a copy */
                ck_assert_ptr_null(l[n + 1]);
        }
        if (n == 0) {
                ck_assert_ptr_null(l);
                ck_assert_int_eq(strv_new_empty(&l), 0);
                ck_assert_ptr_nonnull(l);
        }
        strv_sort(l);
        for (size_t i = 0; i < n; i++)
                ck_assert_str_eq(l[i], push_cases[_i].sorted[i]);
        ck_assert_ptr_null(l[n]);
}
END_TEST

START_TEST(test_sort_null) {
        strv_sort(NULL);        /* nothing to sort, nothing to crash on */
}
END_TEST

START_TEST(test_new_empty) {
        _cleanup_strv_free_ char **l = NULL;

        ck_assert_int_eq(strv_new_empty(&l), 0);
        ck_assert_ptr_nonnull(l);
        ck_assert_ptr_null(l[0]);
        ck_assert_uint_eq(strv_length(l), 0);
        ck_assert(strv_equal(l, NULL));
        ck_assert_int_eq(strv_push(&l, "x"), 0);
        ck_assert(strv_equal(l, L("x")));
}
END_TEST

START_TEST(test_strdup_or_null) {
        _cleanup_free_ char *s = (char *) 1, *t = NULL;
        const char *src = "mq-deadline";

        ck_assert_int_eq(strdup_or_null(NULL, &s), 0);
        ck_assert_ptr_null(s);
        ck_assert_int_eq(strdup_or_null(src, &t), 0);
        ck_assert_str_eq(t, src);
        ck_assert_ptr_ne(t, src);
}
END_TEST

static Suite *strv_suite(void) {
        Suite *s = suite_create("strv");
        TCase *tc = tcase_create("strv");

        tcase_add_loop_test(tc, test_length_contains, 0, ELEMENTSOF(list_cases));
        tcase_add_loop_test(tc, test_equal, 0, ELEMENTSOF(equal_cases));
        tcase_add_loop_test(tc, test_push_sort, 0, ELEMENTSOF(push_cases));
        tcase_add_test(tc, test_sort_null);
        tcase_add_test(tc, test_new_empty);
        tcase_add_test(tc, test_strdup_or_null);
        suite_add_tcase(s, tc);
        return s;
}

int main(void) {
        return check_run(strv_suite());
}
