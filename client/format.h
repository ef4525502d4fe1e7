/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The formatting only benchctl needs: timestamps in local time and the reverse for --since,
 * durations, differences in percent, terminal widths. The number formatters it shares with the
 * worker's summary (sizes, rates, IOPS, latencies, percentages) are shared/format.h, included here
 * so a verb needs one header. Pure functions writing into caller buffers (so a table cell costs no
 * allocation), unit-tested alone.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "shared/format.h"

/* A wall clock time in local time, "2026-11-30 07:04:12"; "n/a" for 0. */
const char *format_timestamp(char *buf, size_t l, uint64_t usec);
/* For lists: "11-30 07:04" within the year of now_usec, "2025-11-30" before it; "n/a" for 0. */
const char *format_timestamp_short(char *buf, size_t l, uint64_t usec, uint64_t now_usec);
/* A duration: "850ms", "12.3s", "5min 3s", "2h 5min". */
const char *format_duration(char *buf, size_t l, uint64_t usec);
/* "+12.3%", "-4.0%", "±0.0%"; "n/a" when base is 0. */
const char *format_diff_pct(char *buf, size_t l, double base, double value);

/* Where a step is among its runs, for progress lines: "repeat 2/5" (repeat is 0-based, repeats the
 * runs planned), with until_stddev (its text, e.g. "5"; NULL, "" or "0": none) "repeat 3 (until
 * stddev < 5%, at most 10)"; "" for a step that runs once. rounds: a filesystem matrix in rounds,
 * "round 2/5". */
const char *format_repeat(char *buf, size_t l, bool rounds, uint64_t repeat, uint64_t repeats,
                          const char *until_stddev);
/* An estimate of the time left from how long the job has run and its progress (0..1): elapsed ×
 * (1 − progress) / progress, as "~2min 5s left"; "" while it cannot tell (progress below 1%, or
 * nothing elapsed) and at 100%. */
const char *format_time_left(char *buf, size_t l, uint64_t elapsed_usec, double progress);

/* --since/--until: "7d", "12h", "30min", "90s", "2w" (before now_usec), "2026-11-01",
 * "2026-11-01 12:30[:45]" (local time), "@1764480000" (epoch seconds), "now", "today",
 * "yesterday". -EINVAL for anything else. */
int parse_time_spec(const char *s, uint64_t now_usec, uint64_t *ret_usec);

/* The number of terminal columns the UTF-8 string takes (code points; no wide characters in our
 * output). */
size_t utf8_width(const char *s);
