/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * CompareRuns' table: the cells db_compare_runs() aggregated (one per row — workload, block size,
 * queue depth, jobs — and group), their groups in display order, the baseline group, and for every
 * figure of every cell what can honestly be said: n, mean, sample standard deviation, the
 * confidence interval of the mean at the level asked for, and against the baseline group's cell
 * of the same row the difference in percent and Welch's t-test (p-value, and whether
 * p < 1 - level). No D-Bus and no SQLite: the bus layer fills it from the store and marshals it;
 * the unit tests build it from cells of their own.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "store/db.h"

/* At most this many cells in one table (a cell is about 1.5 KiB of reply: 4096 of them stay well
 * inside the 16 MiB a history reply may carry). */
#define COMPARE_CELLS_MAX 4096u

typedef struct CompareFigure {
        uint64_t n;             /* runs with the figure */
        double mean;            /* NAN when n is 0 */
        double stddev;          /* NAN when n < 2 */
        bool has_interval;      /* n >= 2 */
        double ci_low, ci_high;
        bool has_diff;          /* not the baseline, and the baseline's mean is known and not 0 */
        double diff_pct;        /* (mean - baseline's) / baseline's · 100 */
        bool has_test;          /* not the baseline, and both have n >= 2 */
        double p_value;         /* Welch's, two-sided */
        bool significant;       /* has_test and p_value < 1 - level */
} CompareFigure;

typedef struct CompareCell {
        char *workload;
        uint64_t block_size, queue_depth, jobs;
        size_t group;           /* index into Compare.groups */
        uint64_t runs;
        DbFigureAggregate aggregates[_DB_FIGURE_MAX];
        CompareFigure figures[_DB_FIGURE_MAX];   /* after compare_finish() */
} CompareCell;

typedef struct CompareGroup {
        char *name;
        int64_t order;          /* DbCompareCell.group_order */
} CompareGroup;

typedef struct Compare {
        CompareCell *cells;
        size_t n_cells, n_cells_allocated;
        CompareGroup *groups;
        size_t n_groups, n_groups_allocated;
        size_t baseline;        /* index into groups; meaningless without groups */
        double level;
        uint64_t runs;          /* runs in all cells */
} Compare;

void compare_clear(Compare *c);

/* Copies one cell in (a DbCompareCell callback: userdata is the Compare). -E2BIG beyond
 * COMPARE_CELLS_MAX cells, -ENOMEM. */
int compare_add(const DbCompareCell *cell, void *userdata);

/* Orders the groups (by order, then by name in version order: loop2 before loop10) and the cells
 * (by row, then group), makes group names unique (a name two orders share gets " #<order>"),
 * picks the baseline (its name, NULL or "": the first group) and computes every figure at level
 * (0 < level < 1). -ENOENT for a baseline that is no group's name, -EINVAL for a level outside
 * (0, 1). A table without cells is fine. */
int compare_finish(Compare *c, const char *baseline, double level);
