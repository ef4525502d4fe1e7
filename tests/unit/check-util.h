/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What the libcheck tests share: running a suite the same way everywhere (each case forked, so a
 * crash fails one case), and exit codes meson understands (77: skipped).
 */
#pragma once

#include <check.h>
#include <stdlib.h>

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
