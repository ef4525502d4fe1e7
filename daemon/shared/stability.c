/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The figures and criteria of stability.h. Means and deviations are computed in two passes (the
 * mean first), which is exact enough for the at most a few thousand numbers a window or a step's
 * repeats hold, and has none of the cancellation of the one-pass sum of squares.
 */
#include <math.h>

#include "stability.h"
#include "stats.h"
#include "util.h"

FigureKind workload_main_figure(Workload w) {
        switch (w) {
        case WORKLOAD_RANDREAD:
        case WORKLOAD_RANDWRITE:
        case WORKLOAD_RANDRW:
        case WORKLOAD_PING:
                return FIGURE_IOPS;
        case WORKLOAD_SEEKS:
        case WORKLOAD_METADATA:
                return FIGURE_OPS;
        default:
                /* The sequential workloads, and any that moves a stream of bytes. */
                return FIGURE_BANDWIDTH;
        }
}

const char *figure_kind_unit(FigureKind k) {
        static const char *const units[_FIGURE_KIND_MAX] = {
                [FIGURE_BANDWIDTH] = "MB/s",
                [FIGURE_IOPS] = "IOPS",
                [FIGURE_OPS] = "ops/s",
        };
        return k >= 0 && k < _FIGURE_KIND_MAX ? units[k] : NULL;
}

double figure_value(FigureKind k, uint64_t bytes, uint64_t ios, uint64_t ops, uint64_t duration_usec) {
        double secs = (double) duration_usec / 1e6;

        if (duration_usec == 0)
                return NAN;
        switch (k) {
        case FIGURE_BANDWIDTH:
                return (double) bytes / 1e6 / secs;
        case FIGURE_IOPS:
                return (double) ios / secs;
        case FIGURE_OPS:
                return (double) ops / secs;
        default:
                return NAN;
        }
}

/* The mean of v[0..n-1], NAN when a value is not finite. */
static double mean_of(const double *v, size_t n) {
        for (size_t i = 0; i < n; i++)
                if (!isfinite(v[i]))
                        return NAN;
        return stats_mean(v, n);
}

double relative_stddev_pct(const double *v, size_t n) {
        double mean;

        if (n < 2)
                return NAN;
        mean = mean_of(v, n);
        if (!(mean > 0.0))
                return NAN;
        return stats_stddev(v, n) / mean * 100.0;
}

uint32_t stability_min_runs(const JobSpec *s) {
        uint32_t repeat = MAX(s->repeat, 1u);

        return s->until_stddev_milli > 0 ? MAX(repeat, SPEC_STABLE_RUNS_MIN) : repeat;
}

uint32_t stability_planned_runs(const JobSpec *s) {
        return s->until_stddev_milli > 0 ? MAX(s->max_repeats, stability_min_runs(s)) : stability_min_runs(s);
}

bool stability_repeat_again(const JobSpec *s, uint32_t runs_done, const double *figures, size_t n_figures) {
        double rsd;

        if (runs_done < stability_min_runs(s))
                return true;
        if (runs_done >= stability_planned_runs(s) || s->until_stddev_milli == 0)
                return false;
        rsd = relative_stddev_pct(figures, n_figures);
        /* NAN compares false: not stable. */
        return !(rsd < (double) s->until_stddev_milli / 1000.0);
}

bool steady_state_kind_iops(SteadyStateKind kind) {
        return kind == STEADY_STATE_IOPS || kind == STEADY_STATE_IOPS_SLOPE;
}

bool steady_state_met(SteadyStateKind kind, double limit_pct, const double *window, size_t n, double interval_s,
                      double *ret_pct) {
        double mean, pct = NAN;

        if (ret_pct)
                *ret_pct = NAN;
        if (n < 2 || !(interval_s > 0.0))
                return false;
        mean = mean_of(window, n);
        if (!(mean > 0.0))
                return false;

        switch (kind) {
        case STEADY_STATE_IOPS:
        case STEADY_STATE_BW: {
                double dev = 0.0;

                for (size_t i = 0; i < n; i++)
                        dev = MAX(dev, fabs(window[i] - mean));
                pct = dev / mean * 100.0;
                break;
        }
        case STEADY_STATE_IOPS_SLOPE:
        case STEADY_STATE_BW_SLOPE: {
                /* x_i = i × interval_s: its mean is (n - 1) / 2 × interval_s. */
                double xm = (double) (n - 1) / 2.0, sxy = 0.0, sxx = 0.0;

                for (size_t i = 0; i < n; i++) {
                        double dx = ((double) i - xm) * interval_s;
                        sxy += dx * (window[i] - mean);
                        sxx += dx * dx;
                }
                pct = fabs(sxy / sxx) / mean * 100.0;
                break;
        }
        default:
                return false;
        }
        if (ret_pct)
                *ret_pct = pct;
        return pct <= limit_pct;
}
