/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The statistics behind "is this difference real": mean and sample standard deviation, Student's t
 * distribution (CDF and quantiles, through the regularized incomplete beta function), the
 * confidence interval of a mean, Welch's two-sample t-test (unequal variances, Welch–
 * Satterthwaite degrees of freedom, two-sided p-value) and the paired t-test. A run is one
 * observation: benchmarks on one machine spread 20-40% from run to run, so a difference between
 * two means says little until it is weighed against that spread. When the two samples were taken
 * in pairs close together in time (a filesystem matrix run in rounds: ext4 then btrfs, round after
 * round), the paired test weighs the difference against the spread of the pairs' differences
 * instead, so a drift of the machine that both members of a pair share cancels.
 *
 * Pure maths on doubles, no allocation; the store's compare (CompareRuns) and the unit tests call
 * it. Functions that cannot answer for their input (fewer than two observations) return -EDOM and
 * leave their outputs alone; the distribution functions return NAN for arguments outside their
 * domain. df may be INFINITY, for the normal distribution.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

/* The confidence level a caller gets when it names none: 95%. */
#define STATS_LEVEL_DEFAULT 0.95

/* Arithmetic mean; NAN for n == 0. */
double stats_mean(const double *x, size_t n);
/* Sample standard deviation (n - 1 in the denominator), two passes; NAN for n < 2. */
double stats_stddev(const double *x, size_t n);
/* The sample standard deviation from m2, the sum of squared deviations from the mean; NAN for
 * n < 2. A tiny negative m2 (rounding) counts as 0. */
double stats_stddev_from_m2(uint64_t n, double m2);

/* The regularized incomplete beta function I_x(a, b), for a, b > 0 and 0 <= x <= 1 (a continued
 * fraction, evaluated by Lentz's method); NAN outside. */
double stats_incomplete_beta(double a, double b, double x);

/* P(T <= t) for Student's t with df > 0 degrees of freedom. */
double stats_t_cdf(double t, double df);
/* P(|T| >= |t|): the two-sided p-value of the statistic t. */
double stats_t_two_sided_p(double t, double df);
/* The t with P(T <= t) = p, for 0 < p < 1; t_{0.975, 10} = 2.228. */
double stats_t_quantile(double p, double df);

/* The level (0 < level < 1, e.g. 0.95) confidence interval of the mean of n observations with
 * sample standard deviation stddev: mean ± t_{(1 + level) / 2, n - 1} · stddev / √n. -EDOM for
 * n < 2 (no spread is known from one run), -EINVAL for a level outside (0, 1) or a negative or
 * not finite stddev. */
int stats_mean_interval(uint64_t n, double mean, double stddev, double level, double *ret_low,
                        double *ret_high);

typedef struct StatsWelch {
        double t;       /* (mean_b - mean_a) / standard error; ±INFINITY when both spreads are 0 */
        double df;      /* Welch–Satterthwaite; NAN when both spreads are 0 */
        double p;       /* two-sided; 1 for equal means without spread, 0 for different ones */
} StatsWelch;

/* Welch's t-test of the means of two samples (sizes n, means, sample standard deviations): is
 * b's mean different from a's, not assuming equal variances. -EDOM when a sample has fewer than
 * two observations, -EINVAL for a negative or not finite stddev. */
int stats_welch(uint64_t n_a, double mean_a, double stddev_a, uint64_t n_b, double mean_b, double stddev_b,
                StatsWelch *ret);

typedef struct StatsPaired {
        uint64_t n;             /* pairs */
        double mean_diff;       /* the mean of b_i - a_i */
        double stddev_diff;     /* their sample standard deviation */
        double ci_low, ci_high; /* the level confidence interval of mean_diff */
        double t;               /* mean_diff / (stddev_diff / √n); ±INFINITY when every difference is the same
                                 * and not 0 */
        double df;              /* n - 1 */
        double p;               /* two-sided; 1 for differences all 0, 0 for differences all the same other value */
} StatsPaired;

/* The paired t-test of n pairs (a_i, b_i), b against a: is the mean of b_i - a_i different from 0?
 * Also the level confidence interval of that mean. -EDOM for n < 2, -EINVAL for a level outside
 * (0, 1) or a value that is not finite. */
int stats_paired(const double *a, const double *b, size_t n, double level, StatsPaired *ret);
