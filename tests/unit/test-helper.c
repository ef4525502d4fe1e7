/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Tests of the helper child (daemon/jobs/helper.c) on a real sd-event loop: a report longer than
 * a pipe's buffer arrives whole; one byte more than report_max is an overflow; the exit status
 * and signal are reported; the child holds none of our descriptors but stdio and the pipe; a
 * child that hangs is killed at the timeout, and called back for either once it is reaped or,
 * with done_at_timeout, at once; freeing a Helper never waits and its child is still reaped by
 * the loop; the callback comes exactly once, and no live pid is left.
 */

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "jobs/helper.h"
#include "shared/util.h"
#include "test-loop.h"

typedef struct Done {
        unsigned calls;
        HelperResult result;
        uint8_t *report;        /* a copy: the result's is valid during the callback only */
        bool free_it;
} Done;

static void on_done(Helper *h, const HelperResult *result, void *userdata) {
        Done *d = userdata;

        d->calls++;
        d->result = *result;
        d->report = malloc(result->report_size + 1);
        ck_assert_ptr_nonnull(d->report);
        memcpy(d->report, result->report, result->report_size);
        d->result.report = NULL;
        if (d->free_it)
                helper_free(h);
}


#define BIG (256u * 1024u)      /* four times a default pipe buffer */

static int child_big(int fd, void *userdata) {
        uint8_t *b = malloc(BIG);
        int r;

        if (!b)
                return 2;
        for (size_t i = 0; i < BIG; i++)
                b[i] = (uint8_t) (i * 7);
        r = helper_report(fd, b, BIG) < 0 ? 3 : 0;
        free(b);
        return r;
}

START_TEST(test_report) {
        sd_event *e = test_event_new();
        Helper *h = NULL;
        Done d = { .free_it = true };
        pid_t pid, live[4];

        ck_assert_int_eq(helper_spawn(e, &(HelperOptions) { .name = "test-helper", .report_max = BIG,
                                                           .timeout_usec = 60 * USEC_PER_SEC },
                                      child_big, NULL, on_done, &d, &h), 0);
        pid = helper_pid(h);
        ck_assert_int_gt(pid, 0);
        ck_assert_uint_eq(helper_live_pids(live, ELEMENTSOF(live)), 1);
        ck_assert_int_eq(live[0], pid);
        test_run_until_called(e, &d.calls);

        ck_assert(d.result.reaped);
        ck_assert(!d.result.timed_out);
        ck_assert(!d.result.overflow);
        ck_assert_int_eq(d.result.code, CLD_EXITED);
        ck_assert_int_eq(d.result.status, 0);
        ck_assert_uint_eq(d.result.report_size, BIG);
        for (size_t i = 0; i < BIG; i++)
                ck_assert_uint_eq(d.report[i], (uint8_t) (i * 7));
        ck_assert_uint_eq(helper_live_pids(NULL, 0), 0);
        free(d.report);
        sd_event_unref(e);
}
END_TEST

START_TEST(test_overflow) {
        sd_event *e = test_event_new();
        Helper *h = NULL;
        Done d = { .free_it = true };

        ck_assert_int_eq(helper_spawn(e, &(HelperOptions) { .report_max = BIG - 1, .timeout_usec = 60 * USEC_PER_SEC },
                                      child_big, NULL, on_done, &d, &h), 0);
        test_run_until_called(e, &d.calls);
        ck_assert(d.result.overflow);
        ck_assert(d.result.reaped);
        ck_assert_uint_eq(d.result.report_size, BIG - 1);
        free(d.report);
        sd_event_unref(e);
}
END_TEST

static int child_status(int fd, void *userdata) {
        return *(int *) userdata;
}

static int child_term(int fd, void *userdata) {
        /* The child's signals are back to their defaults. */
        raise(SIGTERM);
        return 1;
}

START_TEST(test_status) {
        sd_event *e = test_event_new();
        Helper *h = NULL;
        Done d = { .free_it = true }, k = { .free_it = true };
        int status = 3;

        ck_assert_int_eq(helper_spawn(e, &(HelperOptions) { .report_max = 16, .timeout_usec = 60 * USEC_PER_SEC },
                                      child_status, &status, on_done, &d, &h), 0);
        test_run_until_called(e, &d.calls);
        ck_assert_int_eq(d.result.code, CLD_EXITED);
        ck_assert_int_eq(d.result.status, 3);
        ck_assert_uint_eq(d.result.report_size, 0);

        ck_assert_int_eq(helper_spawn(e, &(HelperOptions) { .report_max = 16, .timeout_usec = 60 * USEC_PER_SEC },
                                      child_term, NULL, on_done, &k, &h), 0);
        test_run_until_called(e, &k.calls);
        ck_assert_int_eq(k.result.code, CLD_KILLED);
        ck_assert_int_eq(k.result.status, SIGTERM);
        free(d.report);
        free(k.report);
        sd_event_unref(e);
}
END_TEST

/* Reports whether the descriptor in userdata is open in the child, and whether stdio and the
 * pipe are. */
static int child_fds(int fd, void *userdata) {
        char r[3] = {
                fcntl(*(int *) userdata, F_GETFD) >= 0 ? 'o' : 'c',
                fcntl(2, F_GETFD) >= 0 ? 'o' : 'c',
                fd == 3 ? '3' : '?',
        };

        return helper_report(fd, r, sizeof(r)) < 0 ? 1 : 0;
}

START_TEST(test_descriptors) {
        sd_event *e = test_event_new();
        Helper *h = NULL;
        Done d = { .free_it = true };
        int p[2];

        /* Like the bus socket: not close-on-exec would not matter, there is no exec. */
        ck_assert_int_eq(pipe(p), 0);
        ck_assert_int_ge(p[1], 4);
        ck_assert_int_eq(helper_spawn(e, &(HelperOptions) { .report_max = 16, .timeout_usec = 60 * USEC_PER_SEC },
                                      child_fds, &p[1], on_done, &d, &h), 0);
        test_run_until_called(e, &d.calls);
        ck_assert_uint_eq(d.result.report_size, 3);
        ck_assert_int_eq(memcmp(d.report, "co3", 3), 0);
        close(p[0]);
        close(p[1]);
        free(d.report);
        sd_event_unref(e);
}
END_TEST

static int child_hang(int fd, void *userdata) {
        for (;;)
                pause();
        return 0;
}

START_TEST(test_timeout) {
        sd_event *e = test_event_new();
        Helper *h = NULL;
        Done d = { .free_it = true };

        ck_assert_int_eq(helper_spawn(e, &(HelperOptions) { .report_max = 16, .timeout_usec = 200 * USEC_PER_MSEC },
                                      child_hang, NULL, on_done, &d, &h), 0);
        test_run_until_called(e, &d.calls);
        /* Called back once it was reaped. */
        ck_assert(d.result.timed_out);
        ck_assert(d.result.reaped);
        ck_assert_int_eq(d.result.code, CLD_KILLED);
        ck_assert_int_eq(d.result.status, SIGKILL);
        ck_assert_uint_eq(helper_live_pids(NULL, 0), 0);
        free(d.report);
        sd_event_unref(e);
}
END_TEST

/* Called back at the timeout, not waiting for the child; the child is still reaped by the loop
 * and forgotten, and nobody is called again: whether the Helper was freed in the callback (its
 * child handed to the loop) or only after the child was reaped. */
START_TEST(test_done_at_timeout) {
        for (int free_it = 1; free_it >= 0; free_it--) {
                sd_event *e = test_event_new();
                Helper *h = NULL;
                Done d = { .free_it = free_it };
                pid_t pid;

                ck_assert_int_eq(helper_spawn(e, &(HelperOptions) { .report_max = 16,
                                                                   .timeout_usec = 200 * USEC_PER_MSEC,
                                                                   .done_at_timeout = true },
                                              child_hang, NULL, on_done, &d, &h), 0);
                pid = helper_pid(h);
                test_run_until_called(e, &d.calls);
                ck_assert(d.result.timed_out);
                ck_assert(!d.result.reaped);
                test_run_until_reaped(e, pid);
                ck_assert_uint_eq(helper_live_pids(NULL, 0), 0);
                ck_assert_uint_eq(d.calls, 1);
                if (!free_it)
                        helper_free(h);
                free(d.report);
                sd_event_unref(e);
        }
}
END_TEST

START_TEST(test_free) {
        sd_event *e = test_event_new();
        Helper *h = NULL;
        Done d = {};
        pid_t pid;

        ck_assert_int_eq(helper_spawn(e, &(HelperOptions) { .report_max = 16, .timeout_usec = 60 * USEC_PER_SEC },
                                      child_hang, NULL, on_done, &d, &h), 0);
        pid = helper_pid(h);
        h = helper_free(h);
        /* Killed, not waited for: the loop reaps it, and no callback comes. */
        test_run_until_reaped(e, pid);
        ck_assert_uint_eq(d.calls, 0);
        ck_assert_uint_eq(helper_live_pids(NULL, 0), 0);
        sd_event_unref(e);
}
END_TEST

START_TEST(test_invalid) {
        sd_event *e = test_event_new();
        Helper *h = NULL;
        Done d = {};

        ck_assert_int_eq(helper_spawn(e, &(HelperOptions) { .report_max = 0 }, child_hang, NULL, on_done, &d, &h),
                         -EINVAL);
        ck_assert_int_eq(helper_spawn(NULL, &(HelperOptions) { .report_max = 1 }, child_hang, NULL, on_done, &d, &h),
                         -EINVAL);
        ck_assert_ptr_null(h);
        ck_assert_uint_eq(helper_live_pids(NULL, 0), 0);
        sd_event_unref(e);
}
END_TEST

static Suite *helper_suite(void) {
        Suite *s = suite_create("helper");
        TCase *tc = tcase_create("helper");

        tcase_set_timeout(tc, 120);
        tcase_add_test(tc, test_report);
        tcase_add_test(tc, test_overflow);
        tcase_add_test(tc, test_status);
        tcase_add_test(tc, test_descriptors);
        tcase_add_test(tc, test_timeout);
        tcase_add_test(tc, test_done_at_timeout);
        tcase_add_test(tc, test_free);
        tcase_add_test(tc, test_invalid);
        suite_add_tcase(s, tc);
        return s;
}

int main(void) {
        SRunner *sr = srunner_create(helper_suite());
        int failed;

        srunner_run_all(sr, CK_NORMAL);
        failed = srunner_ntests_failed(sr);
        srunner_free(sr);
        return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
