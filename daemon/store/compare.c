/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The maths of a comparison on the aggregates SQLite computed: shared/stats for the intervals and
 * the tests, and the ordering of groups and cells, which SQL cannot do the way people read
 * (version order of names). A cell is compared with the baseline group's cell of its own row only:
 * different workloads, block sizes or queue shapes are different questions. Pairs are formed here
 * from the rounds SQLite averaged, by merging the two cells' rounds, which both come sorted by job
 * and round.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shared/stats.h"
#include "shared/util.h"
#include "store/compare.h"

void compare_clear(Compare *c) {
        for (size_t i = 0; i < c->n_cells; i++) {
                free(c->cells[i].workload);
                free(c->cells[i].rounds);
        }
        free(c->cells);
        for (size_t i = 0; i < c->n_groups; i++)
                free(c->groups[i].name);
        free(c->groups);
        *c = (Compare) {};
}

/* Makes room for one more element in *array (n used of *allocated), doubling. */
static int grow(void **array, size_t *allocated, size_t n, size_t size) {
        size_t want;
        void *p;

        if (n < *allocated)
                return 0;
        want = MAX(*allocated * 2, (size_t) 16);
        p = reallocarray(*array, want, size);
        if (!p)
                return -ENOMEM;
        *array = p;
        *allocated = want;
        return 0;
}

static int group_find_or_add(Compare *c, const char *name, int64_t order, uint64_t first_run, size_t *ret) {
        CompareGroup *g;

        /* A linear search: groups are a handful (filesystems, kernels, hosts) in any comparison a
         * person reads, and never more than COMPARE_CELLS_MAX. */
        for (size_t i = 0; i < c->n_groups; i++)
                if (c->groups[i].order == order && streq(c->groups[i].name, name)) {
                        c->groups[i].first_run = MIN(c->groups[i].first_run, first_run);
                        *ret = i;
                        return 0;
                }

        if (grow((void **) &c->groups, &c->n_groups_allocated, c->n_groups, sizeof(CompareGroup)) < 0)
                return -ENOMEM;
        g = c->groups;
        g[c->n_groups] = (CompareGroup) { .name = strdup(name), .order = order, .first_run = first_run };
        if (!g[c->n_groups].name)
                return -ENOMEM;
        *ret = c->n_groups++;
        return 0;
}

int compare_add(const DbCompareCell *cell, void *userdata) {
        Compare *c = userdata;
        CompareCell *new;
        size_t group;
        int r;

        if (c->n_cells >= COMPARE_CELLS_MAX)
                return -E2BIG;
        r = group_find_or_add(c, cell->group ?: "-", cell->group_order, cell->first_run, &group);
        if (r < 0)
                return r;
        if (grow((void **) &c->cells, &c->n_cells_allocated, c->n_cells, sizeof(CompareCell)) < 0)
                return -ENOMEM;
        new = &c->cells[c->n_cells];
        *new = (CompareCell) {
                .workload = strdup(cell->workload ?: "?"),
                .block_size = cell->block_size,
                .queue_depth = cell->queue_depth,
                .jobs = cell->jobs,
                .group = group,
                .runs = cell->runs,
                .first_run = cell->first_run,
                .round_runs = cell->round_runs,
        };
        if (!new->workload)
                return -ENOMEM;
        memcpy(new->aggregates, cell->figures, sizeof new->aggregates);
        c->n_cells++;
        c->runs += cell->runs;
        return 0;
}

/* Whether a round belongs to a cell: the same row and group (its group's name and order). */
static bool round_of_cell(const Compare *c, const CompareCell *cell, const DbCompareRound *r) {
        const CompareGroup *g = &c->groups[cell->group];

        return streq(cell->workload, r->workload ?: "?") && cell->block_size == r->block_size &&
               cell->queue_depth == r->queue_depth && cell->jobs == r->jobs && g->order == r->group_order &&
               streq(g->name, r->group ?: "-");
}

int compare_add_round(const DbCompareRound *round, void *userdata) {
        Compare *c = userdata;
        CompareCell *cell = NULL;

        if (c->n_rounds >= COMPARE_ROUNDS_MAX)
                return -E2BIG;
        /* The rounds come in the cells' order: look from the cell of the last one on, then from the
         * start (a round of no cell is a store that changed between the two walks). */
        for (size_t k = 0; k < c->n_cells && !cell; k++) {
                size_t i = (c->cursor + k) % c->n_cells;

                if (round_of_cell(c, &c->cells[i], round)) {
                        cell = &c->cells[i];
                        c->cursor = i;
                }
        }
        if (!cell)
                return -ENOENT;
        if (grow((void **) &cell->rounds, &cell->n_rounds_allocated, cell->n_rounds, sizeof(CompareRound)) < 0)
                return -ENOMEM;
        cell->rounds[cell->n_rounds] = (CompareRound) { .job_id = round->job_id, .round = round->round };
        memcpy(cell->rounds[cell->n_rounds].figures, round->figures, sizeof round->figures);
        cell->n_rounds++;
        c->n_rounds++;
        return 0;
}

void compare_drop_rounds(Compare *c) {
        for (size_t i = 0; i < c->n_cells; i++) {
                free(c->cells[i].rounds);
                c->cells[i].rounds = NULL;
                c->cells[i].n_rounds = c->cells[i].n_rounds_allocated = 0;
        }
        c->n_rounds = 0;
        c->cursor = 0;
}

static int group_cmp(const CompareGroup *x, const CompareGroup *y) {
        if (x->order != y->order)
                return x->order < y->order ? -1 : 1;
        if (x->first_run != y->first_run)
                return x->first_run < y->first_run ? -1 : 1;
        return strverscmp(x->name, y->name);
}

static int cell_row_cmp(const CompareCell *x, const CompareCell *y) {
        int r = strcmp(x->workload, y->workload);

        if (r != 0)
                return r;
        if (x->block_size != y->block_size)
                return x->block_size < y->block_size ? -1 : 1;
        if (x->queue_depth != y->queue_depth)
                return x->queue_depth < y->queue_depth ? -1 : 1;
        if (x->jobs != y->jobs)
                return x->jobs < y->jobs ? -1 : 1;
        return 0;
}

static int cell_cmp(const void *a, const void *b) {
        const CompareCell *x = a, *y = b;
        int r = cell_row_cmp(x, y);

        if (r != 0)
                return r;
        return x->group < y->group ? -1 : x->group > y->group;
}

typedef struct GroupSlot {
        CompareGroup group;
        size_t old;
} GroupSlot;

static int group_slot_cmp(const void *a, const void *b) {
        const GroupSlot *x = a, *y = b;
        int r = group_cmp(&x->group, &y->group);

        if (r != 0)
                return r;
        return x->old < y->old ? -1 : x->old > y->old;
}

/* Sorts the groups and renumbers the cells' group indices. */
static int compare_sort_groups(Compare *c) {
        _cleanup_free_ size_t *position = NULL;
        _cleanup_free_ GroupSlot *slots = NULL;

        if (c->n_groups == 0)
                return 0;
        position = calloc(c->n_groups, sizeof(size_t));
        slots = calloc(c->n_groups, sizeof(GroupSlot));
        if (!position || !slots)
                return -ENOMEM;

        for (size_t i = 0; i < c->n_groups; i++)
                slots[i] = (GroupSlot) { .group = c->groups[i], .old = i };
        qsort(slots, c->n_groups, sizeof(GroupSlot), group_slot_cmp);
        for (size_t i = 0; i < c->n_groups; i++) {
                c->groups[i] = slots[i].group;
                position[slots[i].old] = i;
        }
        for (size_t i = 0; i < c->n_cells; i++)
                c->cells[i].group = position[c->cells[i].group];
        return 0;
}

/* Two matrix entries made the same way on the same devices (differing only in mkfs options) have
 * the same name; a baseline must name one of them. Groups without an order are their names, so
 * unique already. */
static int compare_unique_names(Compare *c) {
        _cleanup_free_ bool *shared = NULL;

        shared = calloc(MAX(c->n_groups, (size_t) 1), sizeof(bool));
        if (!shared)
                return -ENOMEM;
        for (size_t i = 0; i < c->n_groups; i++)
                for (size_t j = i + 1; j < c->n_groups && c->groups[i].order >= 0; j++)
                        if (streq(c->groups[i].name, c->groups[j].name))
                                shared[i] = shared[j] = true;
        for (size_t i = 0; i < c->n_groups; i++) {
                char *s;

                if (!shared[i])
                        continue;
                if (asprintf(&s, "%s #%" PRIi64, c->groups[i].name, c->groups[i].order) < 0)
                        return -ENOMEM;
                free(c->groups[i].name);
                c->groups[i].name = s;
        }
        return 0;
}

static void figure_compute(CompareFigure *f, const DbFigureAggregate *a, double level) {
        *f = (CompareFigure) {
                .n = a->n,
                .mean = a->n > 0 ? a->mean : NAN,
                .stddev = stats_stddev_from_m2(a->n, a->m2),
        };
        if (isfinite(f->mean) &&
            stats_mean_interval(f->n, f->mean, f->stddev, level, &f->ci_low, &f->ci_high) >= 0)
                f->has_interval = true;
}

/* The paired test of figure k of cell x against base: the rounds both have, merged by (job, round).
 * False when there are fewer than two pairs (or no memory): Welch's test then. */
static bool figure_paired(CompareFigure *f, const CompareCell *base, const CompareCell *x, DbFigure k,
                          double level) {
        _cleanup_free_ double *a = NULL, *b = NULL;
        size_t i = 0, j = 0, n = 0;
        StatsPaired p;
        double mean_a;

        /* Only cells all of whose runs were made in rounds: a run outside them has no partner. */
        if (base->round_runs != base->runs || x->round_runs != x->runs)
                return false;
        a = calloc(MAX(MIN(base->n_rounds, x->n_rounds), (size_t) 1), sizeof(double));
        b = calloc(MAX(MIN(base->n_rounds, x->n_rounds), (size_t) 1), sizeof(double));
        if (!a || !b)
                return false;
        while (i < base->n_rounds && j < x->n_rounds) {
                const CompareRound *u = &base->rounds[i], *v = &x->rounds[j];

                if (u->job_id != v->job_id || u->round != v->round) {
                        if (u->job_id < v->job_id || (u->job_id == v->job_id && u->round < v->round))
                                i++;
                        else
                                j++;
                        continue;
                }
                if (isfinite(u->figures[k]) && isfinite(v->figures[k])) {
                        a[n] = u->figures[k];
                        b[n] = v->figures[k];
                        n++;
                }
                i++;
                j++;
        }
        if (stats_paired(a, b, n, level, &p) < 0)
                return false;
        mean_a = stats_mean(a, n);
        f->paired = true;
        f->pairs = n;
        f->has_test = true;
        f->p_value = p.p;
        f->significant = p.p < 1 - level;
        /* The pairs' own: with every round complete, the same as the means' difference. */
        if (isfinite(mean_a) && mean_a != 0) {
                f->has_diff = true;
                f->diff_pct = p.mean_diff / mean_a * 100.0;
                f->has_diff_interval = true;
                f->diff_ci_low_pct = p.ci_low / mean_a * 100.0;
                f->diff_ci_high_pct = p.ci_high / mean_a * 100.0;
        }
        return true;
}

static void figure_against(CompareFigure *f, const CompareFigure *base, double level) {
        StatsWelch w;

        if (isfinite(f->mean) && isfinite(base->mean) && base->mean != 0) {
                f->has_diff = true;
                f->diff_pct = (f->mean - base->mean) / base->mean * 100.0;
        }
        if (f->has_interval && base->has_interval &&
            stats_welch(base->n, base->mean, base->stddev, f->n, f->mean, f->stddev, &w) >= 0) {
                f->has_test = true;
                f->p_value = w.p;
                f->significant = w.p < 1 - level;
        }
}

int compare_finish(Compare *c, const char *baseline, double level) {
        int r;

        if (!(level > 0 && level < 1))
                return -EINVAL;
        c->level = level;

        r = compare_sort_groups(c);
        if (r < 0)
                return r;
        r = compare_unique_names(c);
        if (r < 0)
                return r;
        if (c->n_cells > 1)
                qsort(c->cells, c->n_cells, sizeof(CompareCell), cell_cmp);

        c->baseline = 0;
        if (baseline && *baseline && c->n_groups > 0) {
                size_t i;

                for (i = 0; i < c->n_groups; i++)
                        if (streq(c->groups[i].name, baseline))
                                break;
                if (i == c->n_groups)
                        return -ENOENT;
                c->baseline = i;
        }

        for (size_t i = 0; i < c->n_cells; i++)
                for (DbFigure k = 0; k < _DB_FIGURE_MAX; k++)
                        figure_compute(&c->cells[i].figures[k], &c->cells[i].aggregates[k], level);

        /* Row by row: the cells of one row are adjacent, the baseline's (if it has one) among them. */
        for (size_t start = 0, end; start < c->n_cells; start = end) {
                const CompareCell *base = NULL;

                for (end = start; end < c->n_cells && cell_row_cmp(&c->cells[start], &c->cells[end]) == 0; end++)
                        if (c->cells[end].group == c->baseline)
                                base = &c->cells[end];
                if (!base)
                        continue;
                for (size_t i = start; i < end; i++) {
                        if (&c->cells[i] == base)
                                continue;
                        for (DbFigure k = 0; k < _DB_FIGURE_MAX; k++)
                                if (!figure_paired(&c->cells[i].figures[k], base, &c->cells[i], k, level))
                                        figure_against(&c->cells[i].figures[k], &base->figures[k], level);
                }
        }
        return 0;
}
