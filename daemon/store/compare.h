/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * CompareRuns' table: the cells db_compare_runs() aggregated (one per row — workload, block size,
 * queue depth, jobs — and group), their groups in display order, the baseline group, and for every
 * figure of every cell what can honestly be said: n, mean, sample standard deviation, the
 * confidence interval of the mean at the level asked for, and against the baseline group's cell
 * of the same row the difference in percent and a test of it (p-value, and whether
 * p < 1 - level). No D-Bus and no SQLite: the bus layer fills it from the store and marshals it;
 * the unit tests build it from cells of their own.
 *
 * The test. When every run of both cells was made in rounds (a filesystem matrix with repeats:
 * jobs/rounds.h), their runs of one job's round were made minutes apart and form a pair, and the
 * difference is the paired t-test's over the pairs (db_compare_rounds() hands them in, averaged
 * per cell and round): a drift of the machine that both members of a pair share cancels, and the
 * difference, its interval and its p-value are those of the per-round differences. Otherwise
 * (runs of different jobs, or not in rounds, or fewer than two pairs) it is Welch's t-test of the
 * two cells' means.
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
        bool has_test;          /* not the baseline, and both have n >= 2 (paired: two pairs) */
        double p_value;         /* two-sided: the paired test's when paired, else Welch's */
        bool significant;       /* has_test and p_value < 1 - level */
        bool paired;            /* the difference and the test are the pairs' (pairs of them) */
        uint64_t pairs;
        bool has_diff_interval; /* paired: the level interval of the difference, in % of the baseline */
        double diff_ci_low_pct, diff_ci_high_pct;
} CompareFigure;

/* One member of a pair: a cell's runs of one job's round, averaged. */
typedef struct CompareRound {
        uint64_t job_id;
        uint64_t round;
        double figures[_DB_FIGURE_MAX];
} CompareRound;

typedef struct CompareCell {
        char *workload;
        uint64_t block_size, queue_depth, jobs;
        size_t group;           /* index into Compare.groups */
        uint64_t runs;
        uint64_t first_run;
        uint64_t round_runs;    /* of runs, those made in rounds */
        DbFigureAggregate aggregates[_DB_FIGURE_MAX];
        CompareFigure figures[_DB_FIGURE_MAX];   /* after compare_finish() */
        CompareRound *rounds;   /* by job and round */
        size_t n_rounds, n_rounds_allocated;
} CompareCell;

typedef struct CompareGroup {
        char *name;
        int64_t order;          /* DbCompareCell.group_order */
        uint64_t first_run;     /* the smallest of its cells' */
} CompareGroup;

typedef struct Compare {
        CompareCell *cells;
        size_t n_cells, n_cells_allocated;
        CompareGroup *groups;
        size_t n_groups, n_groups_allocated;
        size_t baseline;        /* index into groups; meaningless without groups */
        double level;
        uint64_t runs;          /* runs in all cells */
        size_t n_rounds;        /* rounds in all cells */
        size_t cursor;          /* compare_add_round(): the cell the last round went to */
} Compare;

/* At most this many rounds in one table (one per cell, job and round; 64 bytes each): beyond it the
 * pairs are dropped and the cells compared by Welch's test. */
#define COMPARE_ROUNDS_MAX 65536u

void compare_clear(Compare *c);

/* Copies one cell in (a DbCompareCell callback: userdata is the Compare). -E2BIG beyond
 * COMPARE_CELLS_MAX cells, -ENOMEM. */
int compare_add(const DbCompareCell *cell, void *userdata);

/* Copies one round in, to its cell (a DbCompareRound callback, after every cell is added, in
 * db_compare_rounds()' order). -E2BIG beyond COMPARE_ROUNDS_MAX rounds, -ENOENT for a round
 * of no cell, -ENOMEM. */
int compare_add_round(const DbCompareRound *round, void *userdata);
/* Forgets every round (after -E2BIG: the cells are compared without pairs). */
void compare_drop_rounds(Compare *c);

/* Orders the groups (by order: the entry for "matrix", the job id for "job"; then in the order
 * their first runs were made, so that the first group is the one the user or the job ran first:
 * a matrix's first filesystem, the kernel measured before an upgrade; then by name in version
 * order) and the cells (by row, then group), makes group names unique (a name two orders share
 * gets " #<order>"), picks the baseline (its name, NULL or "": the first group) and computes every
 * figure at level (0 < level < 1). -ENOENT for a baseline that is no group's name, -EINVAL for a
 * level outside (0, 1). A table without cells is fine. */
int compare_finish(Compare *c, const char *baseline, double level);
