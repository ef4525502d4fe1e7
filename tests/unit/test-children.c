/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Tests of children.c with real processes: as a child subreaper, the test process adopts a
 * grandchild that called setsid() when its parent exits, and children_kill() then finds, kills and
 * reaps it, while a child named in keep[] is left alone. Each test runs in a process of its own
 * (check's fork mode), so the subreaper setting and the children stay inside it.
 */
#include <check.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "shared/children.h"
#include "check-util.h"
#include "shared/util.h"

static void sleep_ms(unsigned ms) {
        struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (long) (ms % 1000) * 1000000L };
        nanosleep(&ts, NULL);
}

/* True while pid exists (a zombie counts: it still holds the pid). */
static bool exists(pid_t pid) {
        return kill(pid, 0) == 0 || errno != ESRCH;
}

static bool listed(pid_t pid) {
        _cleanup_free_ pid_t *list = NULL;
        size_t n = 0;

        ck_assert_int_eq(children_list(&list, &n), 0);
        for (size_t i = 0; i < n; i++)
                if (list[i] == pid)
                        return true;
        return false;
}

/* The test case's process: what the sleepers wait for should a failed case not kill them. */
static pid_t owner;

/* Forks a child that sleeps until killed (or until the test case's process is gone). */
static pid_t spawn_sleeper(bool new_session) {
        pid_t pid;

        if (owner == 0)
                owner = getpid();
        pid = fork();
        ck_assert_int_ge(pid, 0);
        if (pid == 0) {
                if (new_session)
                        (void) setsid();
                check_wait_for_owner(owner);
        }
        return pid;
}

START_TEST(test_list_and_keep) {
        pid_t a = spawn_sleeper(false), b = spawn_sleeper(true);
        size_t reaped = 99;
        int found;

        ck_assert(listed(a));
        ck_assert(listed(b));
        ck_assert(!listed(getpid()));

        /* b is kept; a is killed, and reaped once it has died. */
        found = children_kill(&b, 1, &reaped);
        ck_assert_int_eq(found, 1);
        for (unsigned i = 0; i < 500 && exists(a); i++) {
                sleep_ms(10);
                found = children_kill(&b, 1, &reaped);
                ck_assert_int_ge(found, 0);
        }
        ck_assert_msg(!exists(a), "child %d was killed but is still there (a zombie?)", (int) a);
        ck_assert(exists(b));
        ck_assert(listed(b));
        ck_assert_int_eq(children_kill(&b, 1, NULL), 0);

        /* Nothing kept: b goes too. */
        for (unsigned i = 0; i < 500 && children_kill(NULL, 0, NULL) > 0; i++)
                sleep_ms(10);
        ck_assert(!exists(b));
        ck_assert_int_eq(waitpid(-1, NULL, WNOHANG), -1);
        ck_assert_int_eq(errno, ECHILD);
}
END_TEST

START_TEST(test_adopted_orphan) {
        int pipefd[2];
        pid_t middle, orphan;

        ck_assert_int_eq(prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0), 0);
        ck_assert_int_eq(pipe(pipefd), 0);
        owner = getpid();       /* not middle's: the orphan outlives middle by design */

        /* middle forks an orphan-to-be in a session of its own, tells us its pid, and exits. */
        middle = fork();
        ck_assert_int_ge(middle, 0);
        if (middle == 0) {
                pid_t o = spawn_sleeper(true);
                (void) !write(pipefd[1], &o, sizeof(o));
                _exit(0);
        }
        close(pipefd[1]);
        ck_assert_int_eq(read(pipefd[0], &orphan, sizeof(orphan)), (ssize_t) sizeof(orphan));
        close(pipefd[0]);
        ck_assert_int_eq(waitpid(middle, NULL, 0), middle);

        /* Its parent is gone: as the subreaper we have it now, and nothing else would end it. */
        ck_assert(exists(orphan));
        ck_assert(listed(orphan));
        for (unsigned i = 0; i < 500 && children_kill(NULL, 0, NULL) > 0; i++)
                sleep_ms(10);
        ck_assert_msg(!exists(orphan), "the adopted orphan %d outlived children_kill()", (int) orphan);
        ck_assert_int_eq(children_kill(NULL, 0, NULL), 0);
}
END_TEST

START_TEST(test_no_children) {
        _cleanup_free_ pid_t *list = NULL;
        size_t n = 99, reaped = 99;

        ck_assert_int_eq(children_list(&list, &n), 0);
        ck_assert_uint_eq(n, 0);
        ck_assert_int_eq(children_kill(NULL, 0, &reaped), 0);
        ck_assert_uint_eq(reaped, 0);
}
END_TEST

static Suite *children_suite(void) {
        Suite *s = suite_create("children");
        TCase *tc = tcase_create("core");

        tcase_set_timeout(tc, 30);
        tcase_add_test(tc, test_list_and_keep);
        tcase_add_test(tc, test_adopted_orphan);
        tcase_add_test(tc, test_no_children);
        suite_add_tcase(s, tc);
        return s;
}

int main(void) {
        return check_run(children_suite());
}
