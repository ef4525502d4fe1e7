/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A sysfs of the tests' own making under a temporary root, for the code that reads /sys/block and
 * /sys/class/block through a root argument (the leftovers' decisions, blockdev.c): directories made
 * with their parents, attribute files written whole.
 */
#pragma once

#include <check.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "shared/util.h"

/* root/rel, with every directory on the way. */
static inline void fake_sysfs_mkdirs(const char *root, const char *rel) {
        char path[PATH_MAX + 300];

        snprintf(path, sizeof(path), "%s/%s", root, rel);
        for (char *p = path + strlen(root) + 1; *p; p++)
                if (*p == '/') {
                        *p = 0;
                        ck_assert(mkdir(path, 0755) == 0 || errno == EEXIST);
                        *p = '/';
                }
        ck_assert(mkdir(path, 0755) == 0 || errno == EEXIST);
}

/* root/rel holding the formatted text, as a sysfs attribute reads. */
static inline void fake_sysfs_write(const char *root, const char *rel, const char *fmt, ...) _printf_(3, 4);
static inline void fake_sysfs_write(const char *root, const char *rel, const char *fmt, ...) {
        char path[PATH_MAX + 300];
        va_list ap;
        FILE *f;

        snprintf(path, sizeof(path), "%s/%s", root, rel);
        f = fopen(path, "we");
        ck_assert_ptr_nonnull(f);
        va_start(ap, fmt);
        vfprintf(f, fmt, ap);
        va_end(ap);
        ck_assert_int_eq(fclose(f), 0);
}
