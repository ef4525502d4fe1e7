/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * benchctl's own time formatting and parsing (format.h). The daemon hands out raw integers
 * (microseconds since the epoch, durations in microseconds); timestamps and durations are chosen
 * here, sizes, rates and latencies in shared/format.c, so --json stays exact and tables stay
 * short. Pure: no bus, no globals except the local time zone.
 */
#include <ctype.h>
#include <inttypes.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "format.h"
#include "shared/util.h"

const char *format_timestamp(char *buf, size_t l, uint64_t usec) {
        struct tm tm;
        time_t t;

        if (usec == 0) {
                snprintf(buf, l, "n/a");
                return buf;
        }
        t = (time_t) (usec / USEC_PER_SEC);
        if (!localtime_r(&t, &tm) || strftime(buf, l, "%Y-%m-%d %H:%M:%S", &tm) == 0)
                snprintf(buf, l, "@%" PRIu64, usec / USEC_PER_SEC);
        return buf;
}

const char *format_timestamp_short(char *buf, size_t l, uint64_t usec, uint64_t now_usec) {
        time_t t = (time_t) (usec / USEC_PER_SEC), now = (time_t) (now_usec / USEC_PER_SEC);
        struct tm tm, tm_now;

        if (usec == 0) {
                snprintf(buf, l, "n/a");
                return buf;
        }
        if (!localtime_r(&t, &tm) || !localtime_r(&now, &tm_now) ||
            strftime(buf, l, tm.tm_year == tm_now.tm_year ? "%m-%d %H:%M" : "%Y-%m-%d", &tm) == 0)
                snprintf(buf, l, "@%" PRIu64, usec / USEC_PER_SEC);
        return buf;
}

const char *format_duration(char *buf, size_t l, uint64_t usec) {
        uint64_t s = usec / USEC_PER_SEC;

        if (usec < USEC_PER_SEC)
                snprintf(buf, l, "%" PRIu64 "ms", usec / USEC_PER_MSEC);
        else if (s < 60)
                snprintf(buf, l, "%.1fs", (double) usec / (double) USEC_PER_SEC);
        else if (s < 3600)
                snprintf(buf, l, "%" PRIu64 "min %" PRIu64 "s", s / 60, s % 60);
        else if (s < 86400)
                snprintf(buf, l, "%" PRIu64 "h %" PRIu64 "min", s / 3600, (s % 3600) / 60);
        else
                snprintf(buf, l, "%" PRIu64 "d %" PRIu64 "h", s / 86400, (s % 86400) / 3600);
        return buf;
}

const char *format_repeat(char *buf, size_t l, bool rounds, uint64_t repeat, uint64_t repeats,
                          const char *until_stddev) {
        bool until = until_stddev && *until_stddev && !streq(until_stddev, "0");
        const char *word = rounds ? "round" : "repeat";

        if (l > 0)
                buf[0] = 0;
        if (until)
                snprintf(buf, l, "%s %" PRIu64 " (until stddev < %s%%, at most %" PRIu64 ")", word, repeat + 1,
                         until_stddev, repeats);
        else if (repeats > 1)
                snprintf(buf, l, "%s %" PRIu64 "/%" PRIu64, word, repeat + 1, repeats);
        return buf;
}

const char *format_time_left(char *buf, size_t l, uint64_t elapsed_usec, double progress) {
        char d[FORMAT_BUF_MAX];

        if (l > 0)
                buf[0] = 0;
        if (!isfinite(progress) || progress < 0.01 || progress >= 1.0 || elapsed_usec == 0)
                return buf;
        snprintf(buf, l, "~%s left",
                 format_duration(d, sizeof d, (uint64_t) ((double) elapsed_usec * (1.0 - progress) / progress)));
        return buf;
}

const char *format_diff_pct(char *buf, size_t l, double base, double value) {
        if (!isfinite(base) || !isfinite(value) || base == 0.0) {
                snprintf(buf, l, "n/a");
                return buf;
        }
        double d = (value - base) / base * 100.0;
        if (fabs(d) < 0.05)
                snprintf(buf, l, "±0.0%%");
        else
                snprintf(buf, l, "%+.1f%%", d);
        return buf;
}

static int parse_relative(const char *s, uint64_t *ret_usec) {
        static const struct {
                const char *suffix;
                uint64_t usec;
        } units[] = {
                { "s",       USEC_PER_SEC },
                { "sec",     USEC_PER_SEC },
                { "m",       60 * USEC_PER_SEC },
                { "min",     60 * USEC_PER_SEC },
                { "h",       3600 * USEC_PER_SEC },
                { "hour",    3600 * USEC_PER_SEC },
                { "hours",   3600 * USEC_PER_SEC },
                { "d",       86400 * USEC_PER_SEC },
                { "day",     86400 * USEC_PER_SEC },
                { "days",    86400 * USEC_PER_SEC },
                { "w",       7 * 86400 * USEC_PER_SEC },
                { "week",    7 * 86400 * USEC_PER_SEC },
                { "weeks",   7 * 86400 * USEC_PER_SEC },
        };
        char *end;
        unsigned long long n;

        if (!isdigit((unsigned char) s[0]))
                return -EINVAL;
        errno = 0;
        n = strtoull(s, &end, 10);
        if (errno != 0)
                return -EINVAL;
        while (*end == ' ')
                end++;
        if (*end == '\0')
                return -EINVAL; /* a bare number is ambiguous; ask for a unit */
        /* " ago" is accepted and ignored: "7d ago" means what "7d" means. */
        for (size_t i = 0; i < ELEMENTSOF(units); i++) {
                size_t n_suffix = strlen(units[i].suffix);
                if (strncmp(end, units[i].suffix, n_suffix) == 0 &&
                    (end[n_suffix] == '\0' || streq(end + n_suffix, " ago"))) {
                        if (n > UINT64_MAX / units[i].usec)
                                return -ERANGE;
                        *ret_usec = n * units[i].usec;
                        return 0;
                }
        }
        return -EINVAL;
}

static int parse_absolute(const char *s, uint64_t *ret_usec) {
        static const char *const formats[] = {
                "%Y-%m-%d %H:%M:%S",
                "%Y-%m-%d %H:%M",
                "%Y-%m-%dT%H:%M:%S",
                "%Y-%m-%dT%H:%M",
                "%Y-%m-%d",
        };

        for (size_t i = 0; i < ELEMENTSOF(formats); i++) {
                struct tm tm = { .tm_isdst = -1 };
                const char *end = strptime(s, formats[i], &tm);
                if (!end || *end != '\0')
                        continue;
                time_t t = mktime(&tm);
                if (t == (time_t) -1 || t < 0)
                        return -EINVAL;
                *ret_usec = (uint64_t) t * USEC_PER_SEC;
                return 0;
        }
        return -EINVAL;
}

static uint64_t start_of_day(uint64_t usec) {
        time_t t = (time_t) (usec / USEC_PER_SEC);
        struct tm tm;

        if (!localtime_r(&t, &tm))
                return usec;
        tm.tm_hour = tm.tm_min = tm.tm_sec = 0;
        tm.tm_isdst = -1;
        t = mktime(&tm);
        return t < 0 ? usec : (uint64_t) t * USEC_PER_SEC;
}

int parse_time_spec(const char *s, uint64_t now_usec, uint64_t *ret_usec) {
        uint64_t v;
        int r;

        if (!s || !*s)
                return -EINVAL;
        if (streq(s, "now")) {
                *ret_usec = now_usec;
                return 0;
        }
        if (streq(s, "today")) {
                *ret_usec = start_of_day(now_usec);
                return 0;
        }
        if (streq(s, "yesterday")) {
                *ret_usec = start_of_day(start_of_day(now_usec) - 1);
                return 0;
        }
        if (s[0] == '@') {
                char *end;
                if (!isdigit((unsigned char) s[1]))
                        return -EINVAL;
                errno = 0;
                unsigned long long secs = strtoull(s + 1, &end, 10);
                if (errno != 0 || *end != '\0' || secs > UINT64_MAX / USEC_PER_SEC)
                        return -EINVAL;
                *ret_usec = secs * USEC_PER_SEC;
                return 0;
        }
        r = parse_absolute(s, &v);
        if (r >= 0) {
                *ret_usec = v;
                return 0;
        }
        r = parse_relative(s, &v);
        if (r < 0)
                return r;
        *ret_usec = v >= now_usec ? 0 : now_usec - v;
        return 0;
}

size_t utf8_width(const char *s) {
        size_t n = 0;

        for (const unsigned char *p = (const unsigned char *) s; *p; p++)
                if ((*p & 0xc0) != 0x80)
                        n++;
        return n;
}
