/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What the libcheck tests share: running a suite the same way everywhere (each case forked, so a
 * crash fails one case), and exit codes meson understands (77: skipped).
 *
 * A test whose cases need something of the machine (root, loop devices, a filesystem the kernel
 * may lack) cannot say "skipped" from inside a libcheck case: a case passes or fails. So such
 * cases are described with what they need (CheckCase: the TCase and a function naming what is
 * missing), and check_run_cases() asks first: a case whose need is not met is not run and is
 * reported skipped with the reason; the others run. The output is TAP (meson's protocol : 'tap'),
 * one line per test of a case that ran ("ok 3 - test-spec.c:loop:test_check_loop: Passed") and one
 * per case skipped ("ok 4 - loop # SKIP no loop device: /dev/loop-control is missing"), so meson
 * reports the test skipped only when every case was, and its log says which were and why.
 */
#pragma once

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#define CHECK_EXIT_SKIP 77

/* Runs s, frees it, and returns the exit code for main(). */
static inline int check_run(Suite *s) {
        SRunner *sr = srunner_create(s);
        int failed;

        srunner_run_all(sr, CK_NORMAL);
        failed = srunner_ntests_failed(sr);
        srunner_free(sr);
        return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

/* The directory for a test's temporary files: $TMPDIR (each test gets its own under run-test,
 * which removes whatever is left in it, and detaches loop devices backed there) or /tmp. */
static inline const char *check_tmpdir(void) {
        const char *t = getenv("TMPDIR");

        return t && t[0] == '/' ? t : "/tmp";
}

/* In a forked helper of a test case: die with the process that forked it (parent), also when
 * that one is killed, so no helper outlives its test. Returns false when the parent is gone
 * already (the caller then _exit()s). */
static inline bool check_die_with_parent(pid_t parent) {
        return prctl(PR_SET_PDEATHSIG, SIGKILL) == 0 && getppid() == parent;
}

/* In a forked helper that only waits to be killed: waits until the process owner (the test case's
 * process, which may be a grandparent: an orphan's parent is gone by design) has ended too, and
 * then exits, so that a helper a failed case did not kill does not pause() for ever. */
_Noreturn static inline void check_wait_for_owner(pid_t owner) {
        int fd = (int) syscall(SYS_pidfd_open, owner, 0);
        struct pollfd p = { .fd = fd, .events = POLLIN };

        if (fd < 0)
                _exit(errno == ESRCH ? EXIT_SUCCESS : EXIT_FAILURE);   /* gone already, or no pidfd */
        while (poll(&p, 1, -1) < 0 && errno == EINTR)
                ;
        _exit(EXIT_SUCCESS);
}

/* What the machine lacks for a case, on one line; NULL when it has everything. */
typedef const char *(*CheckMissing)(void);

typedef struct CheckCase {
        const char *name;       /* the TCase's name, for the skip line */
        TCase *tcase;
        CheckMissing missing;   /* NULL: the case needs nothing beyond the test itself */
} CheckCase;

static inline const char *check_missing_root(void) {
        return geteuid() == 0 ? NULL : "needs root";
}

/* Loop devices: root, the control device (the module loaded) and losetup. */
static inline const char *check_missing_loop(void) {
        if (geteuid() != 0)
                return "needs root (loop devices)";
        if (access("/dev/loop-control", F_OK) < 0)
                return "no loop devices: /dev/loop-control is missing (modprobe loop)";
        if (system("command -v losetup >/dev/null 2>&1") != 0)
                return "needs losetup (util-linux)";
        return NULL;
}

/* Whether the kernel knows the filesystem type (a line of /proc/filesystems). */
static inline bool check_have_filesystem(const char *type) {
        FILE *f = fopen("/proc/filesystems", "re");
        char line[128];
        bool found = false;

        if (!f)
                return false;
        while (!found && fgets(line, sizeof(line), f)) {
                char *t = strrchr(line, '\t');
                t = t ? t + 1 : line;
                t[strcspn(t, "\n")] = 0;
                found = strcmp(t, type) == 0;
        }
        fclose(f);
        return found;
}

/* Runs the cases (see the top of this file) as suite `suite`, in TAP; returns main()'s exit
 * code: 0 unless the output could not be made (meson reads the failures from the "not ok" lines). */
static inline int check_run_cases(const char *suite, const CheckCase *cases, size_t n) {
        unsigned number = 0;

        setvbuf(stdout, NULL, _IOLBF, 0);
        printf("TAP version 13\n");
        for (size_t i = 0; i < n; i++) {
                const char *missing = cases[i].missing ? cases[i].missing() : NULL;
                char tap[4096], line[8192];
                SRunner *sr;
                Suite *s;
                FILE *f;
                int fd;

                if (missing) {
                        printf("ok %u - %s # SKIP %s\n", ++number, cases[i].name, missing);
                        /* Freed with a runner, as a case that ran is (libcheck has no tcase_free()). */
                        s = suite_create(suite);
                        suite_add_tcase(s, cases[i].tcase);
                        srunner_free(srunner_create(s));
                        continue;
                }
                /* libcheck writes its TAP for the case to a file; we number its lines into ours. */
                snprintf(tap, sizeof(tap), "%s/check-tap.XXXXXX", check_tmpdir());
                fd = mkstemp(tap);
                if (fd < 0) {
                        printf("Bail out! cannot create a file in %s: %s\n", check_tmpdir(), strerror(errno));
                        return EXIT_FAILURE;
                }
                close(fd);
                s = suite_create(suite);
                suite_add_tcase(s, cases[i].tcase);
                sr = srunner_create(s);
                srunner_set_tap(sr, tap);
                srunner_run_all(sr, CK_SILENT);
                srunner_free(sr);
                f = fopen(tap, "re");
                (void) unlink(tap);
                if (!f) {
                        printf("Bail out! cannot read libcheck's output for case %s\n", cases[i].name);
                        return EXIT_FAILURE;
                }
                while (fgets(line, sizeof(line), f)) {
                        char *rest;
                        bool ok = strncmp(line, "ok ", 3) == 0;

                        if (!ok && strncmp(line, "not ok ", 7) != 0)
                                continue;       /* the plan, "1..N" */
                        /* " - ../tests/unit/test-x.c:case:test: Passed": the file's name is enough. */
                        rest = strstr(line, " - ");
                        if (rest) {
                                char *colon = strchr(rest + 3, ':'), *slash = NULL;
                                for (char *c = rest + 3; colon && c < colon; c++)
                                        if (*c == '/')
                                                slash = c;
                                rest = slash ? slash + 1 : rest + 3;
                        }
                        printf("%s %u - %s", ok ? "ok" : "not ok", ++number, rest ? rest : "\n");
                }
                fclose(f);
        }
        printf("1..%u\n", number);
        return EXIT_SUCCESS;
}
