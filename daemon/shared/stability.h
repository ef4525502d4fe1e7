/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Whether figures are stable: the one "main figure" of a run (what a repeat compares and what
 * benchctl shows first), the relative standard deviation that decides whether a step runs again
 * (repeat, until_stddev, max_repeats: the Phoronix Test Suite's method), and the steady-state
 * criterion that ends a time-based step early (steady_state: fio's ss=). benchd's job core asks
 * the first two, benchd-worker's engine the third, benchctl names the figure the same way. Pure
 * maths on numbers: no I/O, no clock; tests/unit/test-stability.c holds the tables.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "spec.h"

/* The figure a workload is judged by. */
typedef enum FigureKind {
        FIGURE_BANDWIDTH,       /* MB/s (10^6 bytes a second): the sequential workloads */
        FIGURE_IOPS,            /* I/Os a second: the random ones, ping */
        FIGURE_OPS,             /* operations a second: metadata, seeks (bonnie++'s seeks/s) */
        _FIGURE_KIND_MAX,
} FigureKind;

FigureKind workload_main_figure(Workload w);
/* "MB/s", "IOPS", "ops/s". */
const char *figure_kind_unit(FigureKind k);
/* The figure of a run's totals over duration_usec; NAN when the duration is 0. */
double figure_value(FigureKind k, uint64_t bytes, uint64_t ios, uint64_t ops, uint64_t duration_usec);

/* Sample standard deviation over mean, in percent, of v[0..n-1]; NAN for n < 2, or when the mean
 * is not above 0 or a figure is not finite. */
double relative_stddev_pct(const double *v, size_t n);

/* Runs a step makes at least and plans at most: repeat without until_stddev; with it at least
 * MAX(repeat, SPEC_STABLE_RUNS_MIN) and at most max_repeats. Both ≥ 1 (a zeroed spec runs once). */
uint32_t stability_min_runs(const JobSpec *s);
uint32_t stability_planned_runs(const JobSpec *s);
/* After runs_done succeeded runs of step s whose figures are figures[0..n_figures-1] (their main
 * figures, in order): whether it runs again. Below the minimum: yes; at the plan: no; between,
 * with until_stddev: while the relative standard deviation is not below it (an unknown one is
 * not below it). */
bool stability_repeat_again(const JobSpec *s, uint32_t runs_done, const double *figures, size_t n_figures);

/* The steady-state criterion over window[0..n-1], the figure (IOPS or bytes a second) of each
 * sample of the window in time order, interval_s apart: for iops and bw every sample within
 * limit_pct percent of the window's mean; for the slopes the least-squares slope (figure per
 * second) within limit_pct percent of the mean. False for n < 2, a mean not above 0 or a figure
 * not finite. *ret_pct (may be NULL): the largest deviation, or the slope, in percent of the mean
 * (NAN when not computable). */
bool steady_state_met(SteadyStateKind kind, double limit_pct, const double *window, size_t n, double interval_s,
                      double *ret_pct);
/* Whether a steady-state criterion watches IOPS (else bandwidth). */
bool steady_state_kind_iops(SteadyStateKind kind);
