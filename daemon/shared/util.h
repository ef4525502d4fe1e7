/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Small helpers shared by benchd, benchd-worker and benchctl: cleanup attributes for owned locals,
 * ownership transfer, time. libsystemd's internal macros are not public, so we keep our own few.
 */
#pragma once

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define _cleanup_(f) __attribute__((cleanup(f)))
#define _unused_ __attribute__((unused))
#define _printf_(a, b) __attribute__((format(printf, a, b)))
#define _pure_ __attribute__((pure))
#define _likely_(x) __builtin_expect(!!(x), 1)
#define _unlikely_(x) __builtin_expect(!!(x), 0)

#define ELEMENTSOF(x) (sizeof(x) / sizeof((x)[0]))
#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define MAX(a, b) ((a) > (b) ? (a) : (b))

/* Hand ownership on: returns the value and clears the variable so its cleanup does nothing. */
#define TAKE_PTR(p) ({ __typeof__(p) _take_tmp = (p); (p) = NULL; _take_tmp; })
#define TAKE_FD(fd) ({ int _take_fd = (fd); (fd) = -1; _take_fd; })

static inline void freep(void *p) {
        free(*(void **) p);
}
#define _cleanup_free_ _cleanup_(freep)

static inline void closep(int *fd) {
        if (*fd >= 0) {
                int saved = errno;
                close(*fd);
                errno = saved;
        }
}
#define _cleanup_close_ _cleanup_(closep)

static inline void fclosep(FILE **f) {
        if (*f)
                fclose(*f);
}
#define _cleanup_fclose_ _cleanup_(fclosep)

static inline void strv_free(char **l) {
        if (!l)
                return;
        for (char **i = l; *i; i++)
                free(*i);
        free(l);
}
static inline void strv_freep(char ***l) {
        strv_free(*l);
}
#define _cleanup_strv_free_ _cleanup_(strv_freep)

/* Defines name##p(type *p) calling func(*p) when *p is non-NULL, for _cleanup_(). */
#define DEFINE_TRIVIAL_CLEANUP_FUNC(type, func)                 \
        static inline void func##p(type *p) {                   \
                if (*p)                                         \
                        func(*p);                               \
        }

#define USEC_PER_SEC  UINT64_C(1000000)
#define USEC_PER_MSEC UINT64_C(1000)
#define NSEC_PER_SEC  UINT64_C(1000000000)
#define NSEC_PER_USEC UINT64_C(1000)
#define NSEC_PER_MSEC UINT64_C(1000000)

static inline uint64_t now_nsec(clockid_t clock) {
        struct timespec ts;
        clock_gettime(clock, &ts);
        return (uint64_t) ts.tv_sec * NSEC_PER_SEC + (uint64_t) ts.tv_nsec;
}

static inline uint64_t now_usec(clockid_t clock) {
        return now_nsec(clock) / NSEC_PER_USEC;
}

static inline bool streq_ptr(const char *a, const char *b) {
        if (!a || !b)
                return a == b;
        return strcmp(a, b) == 0;
}
#define streq(a, b) (strcmp((a), (b)) == 0)

static inline const char *strna(const char *s) {
        return s ? s : "n/a";
}

/* Returns -errno from the current errno, never 0 (for libc calls that "failed" without errno). */
static inline int negative_errno(void) {
        return errno > 0 ? -errno : -EIO;
}
