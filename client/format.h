/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Number and time formatting for benchctl's tables and blocks: sizes in 1024-based units, rates in
 * MiB/s, latencies in ns/µs/ms/s, timestamps in local time, and the reverse for --since. Pure
 * functions writing into caller buffers (so a table cell costs no allocation), unit-tested alone.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define FORMAT_BUF_MAX 64

/* "512 B", "32 KiB", "1.5 GiB": integers when exact, else one decimal. */
const char *format_bytes(char *buf, size_t l, uint64_t bytes);
/* Bytes per second as "512.3 MiB/s" (with_unit) or "512.3". */
const char *format_rate(char *buf, size_t l, double bytes_per_sec, bool with_unit);
/* Operations per second: "950", "16.4k", "1.23M". */
const char *format_iops(char *buf, size_t l, double iops);
/* Latency from nanoseconds: "850 ns", "12.3 µs", "1.23 ms", "2.50 s". */
const char *format_latency_ns(char *buf, size_t l, double ns);
/* A wall clock time in local time, "2026-11-30 07:04:12"; "n/a" for 0. */
const char *format_timestamp(char *buf, size_t l, uint64_t usec);
/* For lists: "11-30 07:04" within the year of now_usec, "2025-11-30" before it; "n/a" for 0. */
const char *format_timestamp_short(char *buf, size_t l, uint64_t usec, uint64_t now_usec);
/* A duration: "850ms", "12.3s", "5min 3s", "2h 5min". */
const char *format_duration(char *buf, size_t l, uint64_t usec);
/* "+12.3%", "-4.0%", "±0.0%"; "n/a" when base is 0. */
const char *format_diff_pct(char *buf, size_t l, double base, double value);
/* A percentage 0..100 as "12.3%"; "n/a" when negative (unknown). */
const char *format_pct(char *buf, size_t l, double pct);

/* --since/--until: "7d", "12h", "30min", "90s", "2w" (before now_usec), "2026-11-01",
 * "2026-11-01 12:30[:45]" (local time), "@1764480000" (epoch seconds), "now", "today",
 * "yesterday". -EINVAL for anything else. */
int parse_time_spec(const char *s, uint64_t now_usec, uint64_t *ret_usec);

/* The number of terminal columns the UTF-8 string takes (code points; no wide characters in our
 * output). */
size_t utf8_width(const char *s);
