/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * For the tests of code that runs helper processes on an sd-event loop (test-cleanup,
 * test-helper, test-verdict-query): a loop that can watch children, and running it until a
 * callback has come or a child has been reaped, each bounded by a minute so that a hang fails the
 * test instead of stalling it.
 */
#pragma once

#include <check.h>
#include <errno.h>
#include <signal.h>
#include <sys/wait.h>
#include <systemd/sd-event.h>

#include "shared/util.h"

static inline sd_event *test_event_new(void) {
        sd_event *e = NULL;
        sigset_t ss;

        /* sd-event watches children only with SIGCHLD blocked. */
        sigemptyset(&ss);
        sigaddset(&ss, SIGCHLD);
        ck_assert_int_eq(sigprocmask(SIG_BLOCK, &ss, NULL), 0);
        ck_assert_int_ge(sd_event_new(&e), 0);
        return e;
}

/* Runs e until *calls is no longer 0, at most a minute; then it must be exactly 1. */
static inline void test_run_until_called(sd_event *e, const unsigned *calls) {
        uint64_t end = now_usec(CLOCK_MONOTONIC) + 60 * USEC_PER_SEC;

        while (*calls == 0 && now_usec(CLOCK_MONOTONIC) < end)
                ck_assert_int_ge(sd_event_run(e, 100 * USEC_PER_MSEC), 0);
        ck_assert_uint_eq(*calls, 1);
}

/* Runs e until pid is no child of ours any more (reaped by the loop), at most a minute. */
static inline void test_run_until_reaped(sd_event *e, pid_t pid) {
        uint64_t end = now_usec(CLOCK_MONOTONIC) + 60 * USEC_PER_SEC;

        for (;;) {
                siginfo_t si = {};

                /* WNOWAIT: only look; ECHILD once the loop has reaped it. */
                if (waitid(P_PID, (id_t) pid, &si, WEXITED | WNOHANG | WNOWAIT) < 0) {
                        ck_assert_int_eq(errno, ECHILD);
                        return;
                }
                ck_assert_msg(now_usec(CLOCK_MONOTONIC) < end, "child %d was not reaped", (int) pid);
                ck_assert_int_ge(sd_event_run(e, 100 * USEC_PER_MSEC), 0);
        }
}
