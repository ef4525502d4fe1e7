/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Small helpers shared by benchd, benchd-worker and benchctl: cleanup attributes for owned locals,
 * ownership transfer, time, and the one way a caller's string is quoted in a message.
 * libsystemd's internal macros are not public, so we keep our own few.
 */
#pragma once

#include <errno.h>
#include <stdarg.h>
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

/* A message for the caller in *reterr (when reterr is not NULL), replacing any there: the one way
 * pure code says what was wrong. Returns r, so `return reterr_set(reterr, -EINVAL, "...", ...);`.
 * reterr_set_once() keeps a message already there: the innermost failure names the cause best. */
_printf_(3, 0)
static inline int reterr_setv(char **reterr, int r, const char *fmt, va_list ap) {
        char *m = NULL;

        if (!reterr)
                return r;
        if (vasprintf(&m, fmt, ap) < 0)
                m = NULL;
        free(*reterr);
        *reterr = m;
        return r;
}

_printf_(3, 4)
static inline int reterr_set(char **reterr, int r, const char *fmt, ...) {
        va_list ap;

        va_start(ap, fmt);
        r = reterr_setv(reterr, r, fmt, ap);
        va_end(ap);
        return r;
}

_printf_(3, 4)
static inline int reterr_set_once(char **reterr, int r, const char *fmt, ...) {
        va_list ap;

        if (!reterr || *reterr)
                return r;
        va_start(ap, fmt);
        r = reterr_setv(reterr, r, fmt, ap);
        va_end(ap);
        return r;
}

/* Returns -errno from the current errno, never 0 (for libc calls that "failed" without errno). */
static inline int negative_errno(void) {
        return errno > 0 ? -errno : -EIO;
}

/* Length of the valid UTF-8 character at s (1 to 4 bytes), or 0 when s does not start one
 * (a stray continuation byte, an overlong form, a surrogate, beyond U+10FFFF). s is NUL-terminated,
 * so a truncated sequence stops at the NUL. */
static inline size_t utf8_char_len(const char *s) {
        const unsigned char *u = (const unsigned char *) s;
        size_t n;

        if (u[0] < 0x80)
                return 1;
        if (u[0] >= 0xc2 && u[0] <= 0xdf)
                n = 2;
        else if (u[0] >= 0xe0 && u[0] <= 0xef)
                n = 3;
        else if (u[0] >= 0xf0 && u[0] <= 0xf4)
                n = 4;
        else
                return 0;
        for (size_t i = 1; i < n; i++)
                if ((u[i] & 0xc0) != 0x80)
                        return 0;
        if ((u[0] == 0xe0 && u[1] < 0xa0) || (u[0] == 0xed && u[1] >= 0xa0) ||
            (u[0] == 0xf0 && u[1] < 0x90) || (u[0] == 0xf4 && u[1] >= 0x90))
                return 0;
        return n;
}

/* Whether the character of n bytes at s (as utf8_char_len() measured it) is a control character:
 * C0, DEL, or C1 (U+0080..U+009F, encoded 0xc2 0x80..0x9f). */
static inline bool utf8_is_control(const char *s, size_t n) {
        const unsigned char *u = (const unsigned char *) s;

        return (n == 1 && (u[0] < 0x20 || u[0] == 0x7f)) || (n == 2 && u[0] == 0xc2 && u[1] < 0xa0);
}

/* Sums and products that stop at UINT64_MAX instead of wrapping around. */
static inline uint64_t u64_add_sat(uint64_t a, uint64_t b) {
        uint64_t r;
        return __builtin_add_overflow(a, b, &r) ? UINT64_MAX : r;
}

static inline uint64_t u64_mul_sat(uint64_t a, uint64_t b) {
        uint64_t r;
        return __builtin_mul_overflow(a, b, &r) ? UINT64_MAX : r;
}

/* Caller input (a target, key, value, profile name) quoted in a message: at most CALLER_TEXT_MAX
 * bytes of it, cut at a character boundary and marked with "…" when longer, control characters
 * and bytes that are not UTF-8 shown as '?', so that the message stays short, printable and valid
 * on D-Bus whatever the caller sent. */
#define CALLER_TEXT_MAX 200u
#define CALLER_TEXT_BUF (CALLER_TEXT_MAX + sizeof("…"))

static inline const char *caller_text(const char *s, char buf[static CALLER_TEXT_BUF]) {
        size_t o = 0;

        if (!s)
                s = "";
        while (*s) {
                size_t n = utf8_char_len(s);

                if (o + MAX(n, (size_t) 1) > CALLER_TEXT_MAX) {
                        memcpy(buf + o, "…", sizeof("…"));
                        return buf;
                }
                if (n == 0 || utf8_is_control(s, n)) {
                        buf[o++] = '?';
                        s += MAX(n, (size_t) 1);
                        continue;
                }
                memcpy(buf + o, s, n);
                o += n;
                s += n;
        }
        buf[o] = 0;
        return buf;
}

/* caller_text() into a buffer that lives until the end of the enclosing block: for arguments, e.g.
 * fail(reterr, "target %s ...", CALLER_TEXT(s->target)). */
#define CALLER_TEXT(s) caller_text((s), (char[CALLER_TEXT_BUF]) {})
