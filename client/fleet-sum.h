/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The fleet's figures of one step of a fleet run (docs/fleet.md "The fleet's figures"): pure, from
 * each host's run as `benchctl show RUN --json` has it (GetRun's columns, "samples" and
 * "histogram"), so benchctl run, show --fleet, report --fleet and the unit test (test-fleet-sum)
 * compute it the same way.
 *
 * Each host's samples are placed on benchctl's clock (the run's started_usec minus its
 * fleet_clock_offset_us, plus t_ms; each lasted interval_us). The hosts counted are those whose
 * run succeeded and has samples; the common interval is from the last of their measured-phase
 * begins to the first of their last sample ends. Each host's rate is its bytes (I/Os) over its
 * samples inside that interval (a sample beginning up to 1 ms before it counts: t_ms is rounded to
 * ms) divided by their time; the fleet's is the sum of the hosts'. A host with no sample inside is
 * left out and the interval is worked out again without it. Latency percentiles come from the
 * hosts' histograms added bucket by bucket (histograms add; percentiles do not).
 */
#pragma once

#include <json-c/json.h>
#include <stddef.h>
#include <stdint.h>

typedef struct FleetMember {
        const char *host;       /* the host's name in the fleet run (fleet_host) */
        json_object *run;       /* its run of this step (not owned); NULL: none */
        const char *missing;    /* with run NULL: why (e.g. "unreachable"); NULL: "no run" */
} FleetMember;

/* The step's figures as one JSON object (new reference; NULL only without memory):
 *   hosts               how many hosts are in the sum
 *   common_begin_usec   the common interval's begin on benchctl's clock (absent without one)
 *   common_usec         its length (0: no interval when every counted host was measuring)
 *   bytes_per_s, mib_per_s, iops   the hosts' rates over it, summed (absent without one)
 *   per_host            [{host, bytes, ios, usec, mib_per_s, iops}] of the hosts in the sum
 *   left_out            [{host, reason, status?, samples, bytes, measured_usec, mib_per_s?}]: the
 *                       hosts not in the sum, what their run was and what it measured
 *   lat_ios, lat_p50_ns, lat_p90_ns, lat_p99_ns, lat_p999_ns   from the added histograms of the
 *                       hosts in the sum (absent when none has one)
 *   first_done, last_done, done_apart_usec   the hosts in the sum whose run ended first and last
 *                       (benchctl's clock) and how far apart
 *   spread_pct          (max - min) / mean of the hosts' own MiB/s, with two hosts or more */
json_object *fleet_sum_step(const FleetMember *m, size_t n);

/* The sum over time: the common interval of step (what fleet_sum_step returned) cut into bins of
 * the samples' median interval; each sample's bytes are shared among the bins it overlaps by time.
 * [{"t_s": seconds from the interval's begin (the bin's begin), "mib_per_s": the sum,
 *   "hosts": {host: mib_per_s}}]; an empty array without a common interval. */
json_object *fleet_sum_timeline(const FleetMember *m, size_t n, json_object *step);
