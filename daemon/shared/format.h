/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The number formatting every human-facing output shares: benchctl's tables and blocks, the
 * worker's standalone summary and the size figures in spec-check's messages, so a latency or a
 * size reads the same wherever it is printed. Sizes in 1024-based units, rates in MiB/s,
 * latencies in ns/µs/ms/s. Pure functions writing into caller buffers (so a table cell costs no
 * allocation) and returning them, unit-tested alone (tests/unit/test-format.c). Only for people:
 * a size meant to be read back is spec_size_text()'s "32K".
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Big enough for every formatter here (and for client/format.h's). */
#define FORMAT_BUF_MAX 64

/* "512 B", "32 KiB", "1.5 GiB": integers when exact, else one decimal. */
const char *format_bytes(char *buf, size_t l, uint64_t bytes);
/* Bytes per second as "512.3 MiB/s" (with_unit) or "512.3"; "n/a" when negative or not finite. */
const char *format_rate(char *buf, size_t l, double bytes_per_sec, bool with_unit);
/* Operations per second: "950", "16.4k", "1.23M"; "n/a" when negative or not finite. */
const char *format_iops(char *buf, size_t l, double iops);
/* Latency from nanoseconds: "850 ns", "12.3 µs", "1.23 ms", "2.50 s"; "n/a" when negative or not
 * finite. */
const char *format_latency_ns(char *buf, size_t l, double ns);
/* A percentage 0..100 as "12.3%"; "n/a" when negative (unknown) or not finite. */
const char *format_pct(char *buf, size_t l, double pct);
