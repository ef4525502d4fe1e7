/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The regression detector (regress.h has the method). The window is at most REGRESS_WINDOW_MAX
 * values, sorted twice (for the median, then for the median of the deviations); nothing here
 * keeps state between calls: what the history says is all there is, including which runs were
 * already flagged.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shared/regress.h"
#include "shared/util.h"

static const char *const metric_table[_REGRESS_METRIC_MAX] = {
        [REGRESS_METRIC_MB_PER_S] = "mb_per_s",
        [REGRESS_METRIC_IOPS] = "iops",
        [REGRESS_METRIC_OPS_PER_S] = "ops_per_s",
        [REGRESS_METRIC_LAT_P99_NS] = "lat_p99_ns",
};

const char *regress_metric_to_string(RegressMetric m) {
        if (m < 0 || m >= _REGRESS_METRIC_MAX)
                return NULL;
        return metric_table[m];
}

RegressMetric regress_metric_from_string(const char *s) {
        for (int i = 0; s && i < _REGRESS_METRIC_MAX; i++)
                if (streq(s, metric_table[i]))
                        return (RegressMetric) i;
        return _REGRESS_METRIC_INVALID;
}

bool regress_metric_higher_is_worse(RegressMetric m) {
        return m == REGRESS_METRIC_LAT_P99_NS;
}

RegressMetric regress_main_metric(const char *workload) {
        static const char *const sequential[] = {
                "read", "write", "rewrite", "reread", "backward-read", "stride-read", "position", "putc", "getc",
                "read-modify-write",
        };
        static const char *const random[] = { "randread", "randwrite", "randrw", "seeks" };

        if (!workload)
                return _REGRESS_METRIC_INVALID;
        if (streq(workload, "metadata"))
                return REGRESS_METRIC_OPS_PER_S;
        for (size_t i = 0; i < ELEMENTSOF(random); i++)
                if (streq(workload, random[i]))
                        return REGRESS_METRIC_IOPS;
        for (size_t i = 0; i < ELEMENTSOF(sequential); i++)
                if (streq(workload, sequential[i]))
                        return REGRESS_METRIC_MB_PER_S;
        return _REGRESS_METRIC_INVALID;
}

static const char *const verdict_table[_REGRESS_VERDICT_MAX] = {
        [REGRESS_NO_HISTORY] = "no-history",
        [REGRESS_WITHIN] = "within",
        [REGRESS_SUSPECT] = "suspect",
        [REGRESS_CONTINUES] = "continues",
        [REGRESS_FLAGGED] = "flagged",
};

const char *regress_verdict_to_string(RegressVerdict v) {
        if (v < 0 || v >= _REGRESS_VERDICT_MAX)
                return NULL;
        return verdict_table[v];
}

/* ---- configuration ---- */

int regress_config_check(const RegressConfig *c) {
        if (!c || !(c->min_effect >= 0 && c->min_effect < 1) || !(c->k > 0 && isfinite(c->k)) ||
            c->min_runs < 2 || c->window < c->min_runs || c->window > REGRESS_WINDOW_MAX ||
            !(c->mad_floor >= 0 && c->mad_floor < 1))
                return -EINVAL;
        return 0;
}

int regress_config_set(RegressConfig *c, const char *name, const char *value, char **reterr) {
        char *end;
        double d;

        if (!name || !value)
                return 0;
        if (streq(name, "RegressionMinEffect")) {
                errno = 0;
                d = strtod(value, &end);
                if (end != value && *end == '%')
                        end++;
                if (errno != 0 || end == value || *end || !(d > 0 && d < 100))
                        return reterr_set(reterr, -EINVAL,
                                          "RegressionMinEffect=%s: expected a percentage above 0 and below 100, "
                                          "e.g. RegressionMinEffect=5%%", value);
                c->min_effect = d / 100.0;
                return 1;
        }
        if (streq(name, "RegressionWindow")) {
                unsigned long v;

                errno = 0;
                v = strtoul(value, &end, 10);
                if (errno != 0 || end == value || *end || value[0] == '-' || v < c->min_runs || v > REGRESS_WINDOW_MAX)
                        return reterr_set(reterr, -EINVAL,
                                          "RegressionWindow=%s: expected a number of runs from %u to %u, "
                                          "e.g. RegressionWindow=20", value, c->min_runs, REGRESS_WINDOW_MAX);
                c->window = (unsigned) v;
                return 1;
        }
        return 0;
}

int regress_config_method(const RegressConfig *c, char **ret) {
        if (asprintf(ret, "median-mad window=%u min_runs=%u k=%g min_effect=%g%% mad_floor=%g%% confirm=2", c->window,
                     c->min_runs, c->k, c->min_effect * 100.0, c->mad_floor * 100.0) < 0)
                return -ENOMEM;
        return 0;
}

/* ---- the detector ---- */

static int cmp_double(const void *a, const void *b) {
        double x = *(const double *) a, y = *(const double *) b;
        return x < y ? -1 : x > y;
}

/* Sorts v. */
static double median_sorted(double *v, size_t n) {
        qsort(v, n, sizeof(double), cmp_double);
        return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
}

typedef struct Baseline {
        double median, mad_scaled;
} Baseline;

/* How much worse than the median x is (negative: better). */
static double worse_by(const Baseline *b, bool higher_is_worse, double x) {
        return higher_is_worse ? x - b->median : b->median - x;
}

static bool beyond(const RegressConfig *c, const Baseline *b, bool higher_is_worse, double x) {
        double d = worse_by(b, higher_is_worse, x);

        return d > c->k * b->mad_scaled && d / b->median > c->min_effect;
}

int regress_detect(const RegressConfig *c, bool higher_is_worse, const RegressPoint *history, size_t n,
                   double value, const char *segment, RegressResult *ret) {
        _cleanup_free_ double *w = NULL;
        RegressResult res = { .verdict = REGRESS_NO_HISTORY };
        size_t m = 0, first, prev;
        Baseline b;

        if (regress_config_check(c) < 0 || !isfinite(value) || (n > 0 && !history))
                return -EINVAL;
        for (size_t i = 0; i < n; i++)
                if (!isfinite(history[i].value))
                        return -EINVAL;

        /* The current segment: the trailing runs with the new run's key. */
        while (m < n && streq_ptr(history[n - 1 - m].segment ?: "", segment ?: ""))
                m++;
        res.segment_runs = m;
        res.new_segment = m == 0;

        /* The two judged are the new run and prev; the window is the runs before prev. */
        if (m < 1 || m - 1 < c->min_runs) {
                *ret = res;
                return 0;
        }
        prev = n - 1;
        res.baseline_n = MIN((size_t) c->window, m - 1);
        first = prev - res.baseline_n;

        w = malloc(res.baseline_n * sizeof(double));
        if (!w)
                return -ENOMEM;
        for (size_t i = 0; i < res.baseline_n; i++)
                w[i] = history[first + i].value;
        b.median = median_sorted(w, res.baseline_n);
        for (size_t i = 0; i < res.baseline_n; i++)
                w[i] = fabs(history[first + i].value - b.median);
        b.mad_scaled = MAX(REGRESS_MAD_SCALE * median_sorted(w, res.baseline_n), c->mad_floor * fabs(b.median));

        res.median = b.median;
        res.mad_scaled = b.mad_scaled;
        res.verdict = REGRESS_WITHIN;
        if (!(b.median > 0)) {
                /* Nothing to be a fraction of: a figure that is 0 does not drop. */
                *ret = res;
                return 0;
        }
        res.change_pct = (value - b.median) / b.median * 100.0;

        if (!beyond(c, &b, higher_is_worse, value)) {
                *ret = res;
                return 0;
        }
        if (!beyond(c, &b, higher_is_worse, history[prev].value)) {
                res.verdict = REGRESS_SUSPECT;
                *ret = res;
                return 0;
        }
        /* Confirmed. Already reported, when the chain of beyond runs before it leads to a flag. */
        res.verdict = REGRESS_FLAGGED;
        for (size_t i = prev + 1; i-- > n - m;) {
                if (!beyond(c, &b, higher_is_worse, history[i].value))
                        break;
                if (history[i].flagged) {
                        res.verdict = REGRESS_CONTINUES;
                        break;
                }
        }
        *ret = res;
        return 0;
}
