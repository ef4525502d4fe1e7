/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The regression detector: given the history of comparable runs of one figure (oldest first, each
 * with the key of its baseline segment) and a new run's value, is the new run a regression? Pure
 * arithmetic on numbers and strings: no database, no D-Bus, no clock, so that the rules below are
 * table- and series-tested directly (tests/unit/test-regress.c). store/db-regress.c feeds it from
 * the runs table.
 *
 * The method (docs/comparisons.md "Regressions found without asking" says the same in plain words):
 *   - Segments. A run's segment key names what must not change under a baseline (benchd gives the
 *     kernel release and the device's firmware). Only the trailing runs with the new run's key
 *     count; a new run whose key differs from the latest run's starts a new baseline segment, and
 *     the new segment needs its own runs before anything is judged.
 *   - Confirmation. One slow run is not a regression, two in a row are: the new run and the one
 *     before it are both judged against the baseline of the `window` runs before those two.
 *   - Baseline. The median of that window and its MAD (median absolute deviation) scaled by
 *     1.4826, which estimates the standard deviation of normal noise without being moved by the
 *     outliers themselves; at least `min_runs` runs, else there is not enough history. The scaled
 *     MAD is at least `mad_floor` of the median, so an identical history (MAD 0) does not make
 *     every rounding difference significant.
 *   - A run is beyond the baseline when it is worse than the median (lower for a throughput, higher
 *     for a latency; never the better direction) by more than k scaled MADs (significant) and by
 *     more than `min_effect` of the median (large enough to matter).
 *   - Episodes. The run that confirms a drop is flagged once; the runs after it that stay beyond
 *     continue that episode (a chain of beyond runs back to a flagged one) and are not flagged
 *     again. The window moves on, so a lasting drop becomes the new baseline after about half a
 *     window; a second drop later is a new episode.
 */
#pragma once

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>

/* The figures that are judged, by the names of their run_summary columns. */
typedef enum RegressMetric {
        REGRESS_METRIC_MB_PER_S,        /* 10^6 bytes/s, higher is better */
        REGRESS_METRIC_IOPS,            /* higher is better */
        REGRESS_METRIC_OPS_PER_S,       /* metadata operations/s, higher is better */
        REGRESS_METRIC_LAT_P99_NS,      /* 99th percentile latency, higher is worse */
        _REGRESS_METRIC_MAX,
        _REGRESS_METRIC_INVALID = -EINVAL,
} RegressMetric;

const char *regress_metric_to_string(RegressMetric m);
RegressMetric regress_metric_from_string(const char *s);
bool regress_metric_higher_is_worse(RegressMetric m);
/* The throughput figure of a workload: ops_per_s for metadata, iops for the random ones (randread,
 * randwrite, randrw, seeks), mb_per_s for the others; _REGRESS_METRIC_INVALID for ping (a latency
 * probe: its p99 is its figure) and unknown names. */
RegressMetric regress_main_metric(const char *workload);

#define REGRESS_MAD_SCALE 1.4826
#define REGRESS_WINDOW_MAX 1000u

typedef struct RegressConfig {
        double min_effect;      /* fraction of the median: 0.05 */
        double k;               /* scaled MADs: 3 */
        unsigned window;        /* baseline runs at most: 20 */
        unsigned min_runs;      /* baseline runs at least: 5 */
        double mad_floor;       /* the scaled MAD is at least this fraction of the median: 0.005 */
} RegressConfig;

#define REGRESS_CONFIG_DEFAULT \
        ((RegressConfig) { .min_effect = 0.05, .k = 3.0, .window = 20, .min_runs = 5, .mad_floor = 0.005 })

/* One benchd.conf assignment: RegressionMinEffect= (a percentage above 0 and below 100, "%"
 * optional: "5%", "2.5") and RegressionWindow= (runs, min_runs..REGRESS_WINDOW_MAX). Returns 1
 * when it was one of these and is applied, 0 when name is not ours, -EINVAL (with *reterr saying
 * what would be right) for a value out of range. */
int regress_config_set(RegressConfig *c, const char *name, const char *value, char **reterr);
/* 0 when c is usable, -EINVAL otherwise. */
int regress_config_check(const RegressConfig *c);
/* The method as stored with each flag (regressions.method), e.g.
 * "median-mad window=20 min_runs=5 k=3 min_effect=5% mad_floor=0.5% confirm=2". */
int regress_config_method(const RegressConfig *c, char **ret);

typedef struct RegressPoint {
        double value;
        const char *segment;    /* its baseline segment key; NULL is the same as "" */
        bool flagged;           /* this run was flagged for this figure */
} RegressPoint;

typedef enum RegressVerdict {
        REGRESS_NO_HISTORY,     /* fewer than min_runs runs of the segment before the two judged */
        REGRESS_WITHIN,         /* not beyond the baseline (or no usable median) */
        REGRESS_SUSPECT,        /* beyond, but the run before was not: not (yet) a regression */
        REGRESS_CONTINUES,      /* beyond twice in a row, in an episode already flagged */
        REGRESS_FLAGGED,        /* a regression */
        _REGRESS_VERDICT_MAX,
} RegressVerdict;

const char *regress_verdict_to_string(RegressVerdict v);

typedef struct RegressResult {
        RegressVerdict verdict;
        bool new_segment;       /* the new run starts a baseline segment (no history, or another key) */
        size_t segment_runs;    /* runs of the history in the new run's segment */
        size_t baseline_n;      /* runs in the baseline window (0 without one) */
        double median;          /* of the window, when baseline_n > 0 */
        double mad_scaled;      /* 1.4826 × MAD, floored */
        double change_pct;      /* (value - median) / median × 100; 0 without a median */
} RegressResult;

/* history: n runs, oldest first; value: the new run's, in segment. -EINVAL for an invalid config
 * or a value that is not finite (the history's too). */
int regress_detect(const RegressConfig *c, bool higher_is_worse, const RegressPoint *history, size_t n,
                   double value, const char *segment, RegressResult *ret);
