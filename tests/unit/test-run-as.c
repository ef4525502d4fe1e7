/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Tests of becoming the caller (daemon/shared/run-as.c): the user database's groups (the primary
 * group first; a uid without a passwd entry is -ESRCH); and, as root (--root), a process that
 * becomes nobody has nobody's uids, gid and groups and nothing else, no capability in any set,
 * is not dumpable, has no_new_privs and still dies with its parent; the kernel then refuses it a
 * root-only file; a uid without a passwd entry is refused, not run with made-up groups; uid 0
 * changes nothing.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/capability.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "check-util.h"
#include "shared/run-as.h"
#include "shared/util.h"

/* A uid that no user database here knows. */
#define UNKNOWN_UID 41234u

static char secret[] = "/tmp/test-run-as.XXXXXX";

START_TEST(test_groups) {
        _cleanup_free_ gid_t *groups = NULL;
        gid_t gid = 99;
        size_t n = 0;

        ck_assert_int_eq(user_groups(0, &gid, &groups, &n), 0);
        ck_assert_uint_eq(gid, 0);
        ck_assert_uint_ge(n, 1);
        ck_assert_uint_eq(groups[0], 0);
        free(groups);
        groups = NULL;
        ck_assert_int_eq(user_groups(UNKNOWN_UID, &gid, &groups, &n), -ESRCH);
}
END_TEST

START_TEST(test_root_stays) {
        char *err = NULL;

        ck_assert_int_eq(run_as_user(0, &err), 0);
        ck_assert_ptr_null(err);
        ck_assert_uint_eq(geteuid(), getuid());
}
END_TEST

/* check forks every case, so the identity changes only the case's own process. */
START_TEST(test_become_nobody) {
        struct passwd *pw = getpwnam("nobody");
        struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
        struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3] = {};
        _cleanup_free_ gid_t *want = NULL;
        gid_t have[256], gid;
        uid_t r, e, s;
        size_t n_want = 0;
        int n, sig = 0;
        char *err = NULL;

        if (!pw)
                return; /* no nobody here: nothing to become */
        ck_assert_int_eq(user_groups(pw->pw_uid, &gid, &want, &n_want), 0);

        ck_assert_msg(run_as_user(pw->pw_uid, &err) == 0, "%s", strna(err));
        ck_assert_int_eq(getresuid(&r, &e, &s), 0);
        ck_assert_uint_eq(r, pw->pw_uid);
        ck_assert_uint_eq(e, pw->pw_uid);
        ck_assert_uint_eq(s, pw->pw_uid);
        ck_assert_uint_eq(getgid(), pw->pw_gid);
        ck_assert_uint_eq(getegid(), pw->pw_gid);
        n = getgroups(ELEMENTSOF(have), have);
        ck_assert_int_eq(n, (int) n_want);
        for (int i = 0; i < n; i++)
                ck_assert_uint_eq(have[i], want[i]);

        ck_assert_int_eq(syscall(SYS_capget, &h, d), 0);
        for (size_t i = 0; i < ELEMENTSOF(d); i++) {
                ck_assert_uint_eq(d[i].effective, 0);
                ck_assert_uint_eq(d[i].permitted, 0);
                ck_assert_uint_eq(d[i].inheritable, 0);
        }
        ck_assert_int_eq(prctl(PR_GET_DUMPABLE, 0, 0, 0, 0), 0);
        ck_assert_int_eq(prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0), 1);
        ck_assert_int_eq(prctl(PR_GET_PDEATHSIG, &sig, 0, 0, 0), 0);
        ck_assert_int_eq(sig, SIGKILL);

        /* The kernel's word now: root's file is closed, and there is no way back. */
        ck_assert_int_eq(open(secret, O_RDONLY | O_CLOEXEC), -1);
        ck_assert_int_eq(errno, EACCES);
        ck_assert_int_eq(setresuid(0, 0, 0), -1);
        ck_assert_int_eq(unlink(secret), -1);
}
END_TEST

START_TEST(test_unknown_uid) {
        char *err = NULL;

        ck_assert_int_eq(run_as_user(UNKNOWN_UID, &err), -EPERM);
        ck_assert_msg(err && strstr(err, "uid 41234") && strstr(err, "no entry in the user database"), "%s",
                      strna(err));
        free(err);
        /* Nothing changed. */
        ck_assert_uint_eq(geteuid(), 0);
}
END_TEST

/* Root's 0600 file, made and removed by the parent process: the case that becomes nobody cannot
 * remove it. */
static void secret_setup(void) {
        int fd = mkstemp(secret);

        ck_assert_int_ge(fd, 0);
        close(fd);
        ck_assert_int_eq(chmod(secret, 0600), 0);
}

static void secret_teardown(void) {
        (void) unlink(secret);
}

static Suite *run_as_suite(bool root) {
        Suite *s = suite_create(root ? "run-as-root" : "run-as");
        TCase *tc = tcase_create("identity");

        if (root) {
                tcase_add_unchecked_fixture(tc, secret_setup, secret_teardown);
                tcase_add_test(tc, test_become_nobody);
                tcase_add_test(tc, test_unknown_uid);
        } else {
                tcase_add_test(tc, test_groups);
                tcase_add_test(tc, test_root_stays);
        }
        suite_add_tcase(s, tc);
        return s;
}

int main(int argc, char **argv) {
        bool root = argc > 1 && streq(argv[1], "--root");

        if (root && geteuid() != 0) {
                printf("SKIP: changing identity needs root\n");
                return CHECK_EXIT_SKIP;
        }
        return check_run(run_as_suite(root));
}
