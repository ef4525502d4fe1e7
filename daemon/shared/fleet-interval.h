/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The interval when every host of a fleet run's step was measuring, and each host's bytes and I/Os
 * in it (docs/fleet.md "The fleet's figures"): shared by benchctl (client/fleet-sum.c, which adds
 * the rest of the figures) and benchd's Prometheus fleet total (bus/manager-metrics.c). Pure: every
 * time is on benchctl's clock, microseconds (a host's run began at its started_usec minus its
 * fleet_clock_offset_us; a sample ends t_ms after that and lasted interval_us).
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct FleetSpan {
        int64_t begin, end;
        uint64_t bytes, ios;
} FleetSpan;

typedef struct FleetHostSpans {
        /* In: the host's samples in time order, and its measured phase's begin. */
        const FleetSpan *spans;
        size_t n_spans;
        int64_t base;
        bool in;                /* in: may be in the sum (its run succeeded, n_spans > 0); out: is */
        /* Out, for those in the sum: its samples inside the common interval. */
        uint64_t bytes, ios, usec;
        bool not_measuring;     /* out: left out for having no sample inside the interval */
} FleetHostSpans;

/* t_ms is rounded to ms: a sample beginning this much before the common interval counts. */
#define FLEET_BEGIN_SLACK_USEC 1000

/* The common interval of the hosts marked in: from the last of their begins to the first of their
 * last sample ends; each host's samples inside it (beginning no earlier than FLEET_BEGIN_SLACK_USEC
 * before it, ending in it) are added up. A host with none is left out (in = false,
 * not_measuring), the one of the latest begin first, and the interval is worked out again without
 * it. Returns true with the interval, false when no host is left or the hosts' times do not
 * overlap. */
bool fleet_common_interval(FleetHostSpans *h, size_t n, int64_t *ret_begin, int64_t *ret_end);
