/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Escaping text from outside for the terminal (text.h). One character at a time, so that a table
 * can measure and cut escaped text at a character's edge without escaping it twice.
 * text_vfprintf() walks its format once, handing each conversion with its own arguments to
 * fprintf(), and a %s's argument escaped: the format string stays the caller's, literal and
 * checked by the compiler at the call (_printf_), while what it quotes cannot carry a control
 * sequence.
 */
#include <errno.h>
#include <inttypes.h>
#include <json-c/json.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "text.h"

static const char hex[] = "0123456789abcdef";

static size_t escape_byte(unsigned char c, char *buf) {
        static const struct {
                unsigned char c;
                char e;
        } named[] = {
                { '\a', 'a' }, { '\b', 'b' }, { '\t', 't' }, { '\n', 'n' }, { '\v', 'v' }, { '\f', 'f' }, { '\r', 'r' },
        };

        buf[0] = '\\';
        for (size_t i = 0; i < ELEMENTSOF(named); i++)
                if (named[i].c == c) {
                        buf[1] = named[i].e;
                        return 2;
                }
        buf[1] = 'x';
        buf[2] = hex[c >> 4];
        buf[3] = hex[c & 15];
        return 4;
}

size_t text_escape_char(const char *s, char buf[static TEXT_ESCAPE_CHAR_MAX], size_t *ret_len, size_t *ret_width) {
        size_t n = utf8_char_len(s), len = 0;

        if (n == 0) {
                /* Not UTF-8: this byte alone, and the next character starts after it. */
                len = escape_byte((unsigned char) s[0], buf);
                n = 1;
        } else if (utf8_is_control(s, n)) {
                for (size_t i = 0; i < n; i++)
                        len += escape_byte((unsigned char) s[i], buf + len);
        } else {
                memcpy(buf, s, n);
                *ret_len = n;
                *ret_width = 1;
                return n;
        }
        *ret_len = len;
        *ret_width = len; /* escapes are ASCII */
        return n;
}

size_t text_width(const char *s) {
        size_t w = 0;

        while (s && *s) {
                char buf[TEXT_ESCAPE_CHAR_MAX];
                size_t len, cw;

                s += text_escape_char(s, buf, &len, &cw);
                w += cw;
        }
        return w;
}

char *text_escape(const char *s) {
        size_t n = 0;
        char *e;

        s = s ?: "";
        /* At most four bytes for each byte of s. */
        e = malloc(strlen(s) * 4 + 1);
        if (!e)
                return NULL;
        while (*s) {
                size_t len, cw;

                s += text_escape_char(s, e + n, &len, &cw);
                n += len;
        }
        e[n] = 0;
        return e;
}

int text_fputs(const char *s, FILE *f) {
        while (s && *s) {
                char buf[TEXT_ESCAPE_CHAR_MAX];
                size_t len, cw;

                s += text_escape_char(s, buf, &len, &cw);
                if (fwrite(buf, 1, len, f) != len)
                        return -EIO;
        }
        return 0;
}

/* ---- printf with escaped arguments ---- */

typedef enum Length {
        LEN_NONE,
        LEN_HH,
        LEN_H,
        LEN_L,
        LEN_LL,
        LEN_J,
        LEN_Z,
        LEN_T,
        LEN_BIG_L,
} Length;

/* One conversion: spec is "%...c" alone, with stars '*' fields before the value. */
#define EMIT(type, value_expr)                                                                  \
        do {                                                                                    \
                type v_ = (value_expr);                                                         \
                if (stars == 0)                                                                 \
                        fprintf(f, spec, v_);                                                   \
                else if (stars == 1)                                                            \
                        fprintf(f, spec, star[0], v_);                                          \
                else                                                                            \
                        fprintf(f, spec, star[0], star[1], v_);                                 \
        } while (0)

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
int text_vfprintf(FILE *f, const char *fmt, va_list ap) {
        const char *p = fmt;
        int error = errno; /* %m's, before anything written here can change it */

        while (*p) {
                const char *pct = strchr(p, '%'), *q;
                char spec[32];
                int stars = 0, star[2] = {};
                Length len = LEN_NONE;
                char conv;

                if (!pct) {
                        fputs(p, f);
                        break;
                }
                fwrite(p, 1, (size_t) (pct - p), f);
                q = pct + 1;
                if (*q == '%') {
                        fputc('%', f);
                        p = q + 1;
                        continue;
                }
                q += strspn(q, "-+ #0'I");
                if (*q == '*') {
                        star[stars++] = va_arg(ap, int);
                        q++;
                } else
                        q += strspn(q, "0123456789");
                if (*q == '.') {
                        q++;
                        if (*q == '*') {
                                star[stars++] = va_arg(ap, int);
                                q++;
                        } else
                                q += strspn(q, "0123456789");
                }
                switch (*q) {
                case 'h':
                        len = q[1] == 'h' ? LEN_HH : LEN_H;
                        q += len == LEN_HH ? 2 : 1;
                        break;
                case 'l':
                        len = q[1] == 'l' ? LEN_LL : LEN_L;
                        q += len == LEN_LL ? 2 : 1;
                        break;
                case 'j':
                        len = LEN_J;
                        q++;
                        break;
                case 'z':
                        len = LEN_Z;
                        q++;
                        break;
                case 't':
                        len = LEN_T;
                        q++;
                        break;
                case 'L':
                        len = LEN_BIG_L;
                        q++;
                        break;
                }
                conv = *q++;
                if ((size_t) (q - pct) >= sizeof spec)
                        return -EINVAL;
                memcpy(spec, pct, (size_t) (q - pct));
                spec[q - pct] = 0;

                switch (conv) {
                case 'd':
                case 'i':
                        switch (len) {
                        case LEN_L:
                                EMIT(long, va_arg(ap, long));
                                break;
                        case LEN_LL:
                                EMIT(long long, va_arg(ap, long long));
                                break;
                        case LEN_J:
                                EMIT(intmax_t, va_arg(ap, intmax_t));
                                break;
                        case LEN_Z:
                                EMIT(ssize_t, va_arg(ap, ssize_t));
                                break;
                        case LEN_T:
                                EMIT(ptrdiff_t, va_arg(ap, ptrdiff_t));
                                break;
                        case LEN_BIG_L:
                                return -EINVAL;
                        default:
                                EMIT(int, va_arg(ap, int));
                        }
                        break;
                case 'u':
                case 'o':
                case 'x':
                case 'X':
                        switch (len) {
                        case LEN_L:
                                EMIT(unsigned long, va_arg(ap, unsigned long));
                                break;
                        case LEN_LL:
                                EMIT(unsigned long long, va_arg(ap, unsigned long long));
                                break;
                        case LEN_J:
                                EMIT(uintmax_t, va_arg(ap, uintmax_t));
                                break;
                        case LEN_Z:
                                EMIT(size_t, va_arg(ap, size_t));
                                break;
                        case LEN_T:
                                EMIT(ptrdiff_t, va_arg(ap, ptrdiff_t));
                                break;
                        case LEN_BIG_L:
                                return -EINVAL;
                        default:
                                EMIT(unsigned, va_arg(ap, unsigned));
                        }
                        break;
                case 'c':
                        if (len != LEN_NONE)
                                return -EINVAL;
                        EMIT(int, va_arg(ap, int));
                        break;
                case 'e':
                case 'f':
                case 'g':
                case 'a':
                case 'E':
                case 'F':
                case 'G':
                case 'A':
                        if (len == LEN_BIG_L)
                                EMIT(long double, va_arg(ap, long double));
                        else
                                EMIT(double, va_arg(ap, double));
                        break;
                case 'p':
                        EMIT(void *, va_arg(ap, void *));
                        break;
                case 's': {
                        _cleanup_free_ char *e = NULL;

                        if (len != LEN_NONE)
                                return -EINVAL;
                        e = text_escape(va_arg(ap, const char *) ?: "(null)");
                        if (!e)
                                return -ENOMEM;
                        EMIT(const char *, e);
                        break;
                }
                case 'm':
                        /* glibc's: the text of errno as it was at the call (text_fprintf_errno()). */
                        if (len != LEN_NONE)
                                return -EINVAL;
                        spec[q - pct - 1] = 's';
                        EMIT(const char *, strerror(error));
                        break;
                default:
                        return -EINVAL;
                }
                p = q;
        }
        return ferror(f) ? -EIO : 0;
}
#pragma GCC diagnostic pop

int text_fprintf(FILE *f, const char *fmt, ...) {
        va_list ap;
        int r;

        va_start(ap, fmt);
        r = text_vfprintf(f, fmt, ap);
        va_end(ap);
        return r;
}

int text_fprintf_errno(FILE *f, int error, const char *fmt, ...) {
        va_list ap;

        errno = abs(error);
        va_start(ap, fmt);
        (void) text_vfprintf(f, fmt, ap);
        va_end(ap);
        errno = abs(error); /* as it was, for a caller that goes on to read it */
        return error;
}

int text_printf(const char *fmt, ...) {
        va_list ap;
        int r;

        va_start(ap, fmt);
        r = text_vfprintf(stdout, fmt, ap);
        va_end(ap);
        return r;
}

static int json_flags = JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE;

void print_json_set_short(bool short_form) {
        json_flags = (short_form ? JSON_C_TO_STRING_PLAIN : JSON_C_TO_STRING_PRETTY) | JSON_C_TO_STRING_NOSLASHESCAPE;
}

void print_json(json_object *o) {
        printf("%s\n", json_object_to_json_string_ext(o, json_flags));
}

int parse_id_arg(const char *what, const char *s, uint64_t *ret) {
        char *end;

        errno = 0;
        if (s && s[0] >= '0' && s[0] <= '9') {
                unsigned long long v = strtoull(s, &end, 10);
                if (errno == 0 && *end == '\0' && v > 0) {
                        *ret = v;
                        return 0;
                }
        }
        text_fprintf(stderr, "benchctl: invalid %s '%s': expected a positive number, e.g. 12\n", what, strna(s));
        return -EINVAL;
}
