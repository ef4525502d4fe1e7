/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Student's t from first principles: the CDF is the regularized incomplete beta function,
 *
 *     P(|T| >= |t|) = I_x(df/2, 1/2),  x = df / (df + t²),
 *
 * which is evaluated by its continued fraction (the classic one, convergent for
 * x < (a + 1) / (a + b + 2), with the symmetry I_x(a, b) = 1 - I_{1-x}(b, a) for the other side)
 * using the modified Lentz method. Quantiles invert the tail with Newton's method kept inside a
 * bracket (bisection when a step would leave it), so they converge for every df. Beyond
 * STATS_DF_NORMAL degrees of freedom, and for df = INFINITY, the normal distribution stands in:
 * the continued fraction needs about √df terms there, and the difference is below 10⁻⁵.
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>

#include "shared/stats.h"

#define STATS_DF_NORMAL 1e6
#define BETA_CF_ITERATIONS_MAX 10000
#define BETA_CF_EPSILON 1e-15
#define BETA_CF_TINY 1e-300
#define QUANTILE_ITERATIONS_MAX 200

double stats_mean(const double *x, size_t n) {
        double sum = 0;

        if (n == 0)
                return NAN;
        for (size_t i = 0; i < n; i++)
                sum += x[i];
        return sum / (double) n;
}

double stats_stddev(const double *x, size_t n) {
        double mean, m2 = 0;

        if (n < 2)
                return NAN;
        mean = stats_mean(x, n);
        for (size_t i = 0; i < n; i++)
                m2 += (x[i] - mean) * (x[i] - mean);
        return stats_stddev_from_m2(n, m2);
}

double stats_stddev_from_m2(uint64_t n, double m2) {
        if (n < 2 || isnan(m2))
                return NAN;
        return sqrt(fmax(m2, 0.0) / (double) (n - 1));
}

/* 1 / (1 + d1 / (1 + d2 / (1 + ...))), the continued fraction of I_x(a, b) after its prefactor:
 *     d_{2m+1} = -(a + m)(a + b + m) x / ((a + 2m)(a + 2m + 1))
 *     d_{2m}   = m (b - m) x / ((a + 2m - 1)(a + 2m))
 * by Lentz's method: f = f · C·D per term, C and D kept away from 0. */
static double beta_continued_fraction(double a, double b, double x) {
        double f = 1, c = 1, d = 0;

        for (int i = 1; i <= BETA_CF_ITERATIONS_MAX; i++) {
                double m = i / 2, num, delta;

                if (i % 2)
                        num = -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1));
                else
                        num = m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m));

                d = 1 + num * d;
                if (fabs(d) < BETA_CF_TINY)
                        d = BETA_CF_TINY;
                d = 1 / d;
                c = 1 + num / c;
                if (fabs(c) < BETA_CF_TINY)
                        c = BETA_CF_TINY;
                delta = c * d;
                f *= delta;
                if (fabs(delta - 1) < BETA_CF_EPSILON)
                        break;
        }
        return 1 / f;
}

/* I_x(a, b) with y = 1 - x given as well, so that callers who know y more precisely than 1 - x
 * (the t distribution near t = 0) do not lose it. */
static double incomplete_beta(double a, double b, double x, double y) {
        double front;

        if (x <= 0)
                return 0;
        if (y <= 0)
                return 1;
        front = exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log(y));
        if (x < (a + 1) / (a + b + 2))
                return front * beta_continued_fraction(a, b, x) / a;
        return 1 - front * beta_continued_fraction(b, a, y) / b;
}

double stats_incomplete_beta(double a, double b, double x) {
        if (!(a > 0) || !(b > 0) || !(x >= 0 && x <= 1) || isinf(a) || isinf(b))
                return NAN;
        return incomplete_beta(a, b, x, 1 - x);
}

static bool df_is_normal(double df) {
        return df > STATS_DF_NORMAL;
}

/* P(T >= t) for t >= 0. */
static double t_upper_tail(double t, double df) {
        double t2 = t * t;

        if (df_is_normal(df))
                return 0.5 * erfc(t / M_SQRT2);
        if (isinf(t2))
                return 0;
        return 0.5 * incomplete_beta(df / 2, 0.5, df / (df + t2), t2 / (df + t2));
}

static double t_density(double t, double df) {
        if (df_is_normal(df))
                return exp(-t * t / 2) / sqrt(2 * M_PI);
        return exp(lgamma((df + 1) / 2) - lgamma(df / 2) - 0.5 * log(df * M_PI) -
                   (df + 1) / 2 * log1p(t * t / df));
}

double stats_t_cdf(double t, double df) {
        if (!(df > 0) || isnan(t))
                return NAN;
        return t >= 0 ? 1 - t_upper_tail(t, df) : t_upper_tail(-t, df);
}

double stats_t_two_sided_p(double t, double df) {
        if (!(df > 0) || isnan(t))
                return NAN;
        return fmin(1.0, 2 * t_upper_tail(fabs(t), df));
}

double stats_t_quantile(double p, double df) {
        double q, lo = 0, hi = 1, t;

        if (!(p > 0 && p < 1) || !(df > 0))
                return NAN;
        if (p == 0.5)
                return 0;
        if (p < 0.5)
                return -stats_t_quantile(1 - p, df);

        /* Solve P(T >= t) = q on t > 0; the tail falls as t grows. */
        q = 1 - p;
        while (t_upper_tail(hi, df) > q) {
                lo = hi;
                hi *= 2;
                if (isinf(hi))
                        return INFINITY;
        }
        t = (lo + hi) / 2;
        for (int i = 0; i < QUANTILE_ITERATIONS_MAX; i++) {
                double excess = t_upper_tail(t, df) - q, next;

                if (excess == 0)
                        break;
                if (excess > 0)
                        lo = t;
                else
                        hi = t;
                next = t + excess / t_density(t, df);
                if (!(next > lo && next < hi))
                        next = (lo + hi) / 2;
                if (fabs(next - t) <= 1e-14 * next) {
                        t = next;
                        break;
                }
                t = next;
        }
        return t;
}

int stats_mean_interval(uint64_t n, double mean, double stddev, double level, double *ret_low,
                        double *ret_high) {
        double half;

        if (!(level > 0 && level < 1) || !(stddev >= 0) || isinf(stddev) || !isfinite(mean))
                return -EINVAL;
        if (n < 2)
                return -EDOM;

        half = stats_t_quantile((1 + level) / 2, (double) (n - 1)) * stddev / sqrt((double) n);
        *ret_low = mean - half;
        *ret_high = mean + half;
        return 0;
}

int stats_welch(uint64_t n_a, double mean_a, double stddev_a, uint64_t n_b, double mean_b, double stddev_b,
                StatsWelch *ret) {
        double va, vb, se2, t, df;

        if (!(stddev_a >= 0) || !(stddev_b >= 0) || isinf(stddev_a) || isinf(stddev_b) ||
            !isfinite(mean_a) || !isfinite(mean_b))
                return -EINVAL;
        if (n_a < 2 || n_b < 2)
                return -EDOM;

        va = stddev_a * stddev_a / (double) n_a;
        vb = stddev_b * stddev_b / (double) n_b;
        se2 = va + vb;
        if (se2 == 0) {
                /* No spread at all: the means are certainly equal or certainly not. */
                *ret = (StatsWelch) {
                        .t = mean_a == mean_b ? 0 : copysign(INFINITY, mean_b - mean_a),
                        .df = NAN,
                        .p = mean_a == mean_b ? 1 : 0,
                };
                return 0;
        }

        t = (mean_b - mean_a) / sqrt(se2);
        df = se2 * se2 / (va * va / (double) (n_a - 1) + vb * vb / (double) (n_b - 1));
        *ret = (StatsWelch) {
                .t = t,
                .df = df,
                .p = stats_t_two_sided_p(t, df),
        };
        return 0;
}

int stats_paired(const double *a, const double *b, size_t n, double level, StatsPaired *ret) {
        double mean = 0, m2 = 0, sd, half;

        if (!(level > 0 && level < 1))
                return -EINVAL;
        for (size_t i = 0; i < n; i++)
                if (!isfinite(a[i]) || !isfinite(b[i]))
                        return -EINVAL;
        if (n < 2)
                return -EDOM;

        /* Welford over the differences: one pass, no cancellation of a small spread far from 0. */
        for (size_t i = 0; i < n; i++) {
                double d = b[i] - a[i], delta = d - mean;

                mean += delta / (double) (i + 1);
                m2 += delta * (d - mean);
        }
        sd = stats_stddev_from_m2(n, m2);
        *ret = (StatsPaired) {
                .n = n,
                .mean_diff = mean,
                .stddev_diff = sd,
                .df = (double) (n - 1),
        };
        if (sd == 0) {
                /* Every pair differs by the same amount: certainly that amount. */
                ret->t = mean == 0 ? 0 : copysign(INFINITY, mean);
                ret->p = mean == 0 ? 1 : 0;
                ret->ci_low = ret->ci_high = mean;
                return 0;
        }
        ret->t = mean / (sd / sqrt((double) n));
        ret->p = stats_t_two_sided_p(ret->t, ret->df);
        half = stats_t_quantile((1 + level) / 2, ret->df) * sd / sqrt((double) n);
        ret->ci_low = mean - half;
        ret->ci_high = mean + half;
        return 0;
}
