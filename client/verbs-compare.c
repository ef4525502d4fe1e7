/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * compare: runs side by side (compare RUN RUN...), or groups of runs (compare --by fs_type
 * [filters]) the way people tabulate ext4 against btrfs by hand: one row per workload, block size
 * and queue shape, one column per group, and every value with its difference to the baseline
 * column. The groups are aggregated by benchd (CompareRuns: in SQL, with confidence intervals and
 * Welch's test, or the paired test over the rounds of a matrix), so the client moves a few hundred
 * numbers, not thousands of runs, and says which differences are within the noise. A filesystem
 * matrix job (compare --job ID) is the same table of its entries (CompareRuns by matrix).
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "benchctl.h"
#include "bus.h"
#include "format.h"
#include "record.h"
#include "table.h"
#include "model.h"
#include "verbs-results.h"
#include "text.h"

typedef struct CompareMetric {
        const char *label;
        const char *json_key;
        double (*get)(json_object *run, const char *arg);
        const char *arg;
        const char *(*format)(char *buf, size_t l, double v);
} CompareMetric;

static double metric_rate(json_object *run, const char *arg) {
        return run_bytes_per_sec(run);
}

static double metric_iops(json_object *run, const char *arg) {
        return run_iops(run);
}

static const char *fmt_rate(char *buf, size_t l, double v) {
        return format_rate(buf, l, v, true);
}

static const CompareMetric compare_metrics[] = {
        { "MiB/s", "mib_per_s",  metric_rate,    NULL,   fmt_rate },
        { "IOPS",  "iops",       metric_iops,    NULL,   format_iops },
        { "p50",   "lat_p50_ns", run_latency_ns, "p50",  format_latency_ns },
        { "p99",   "lat_p99_ns", run_latency_ns, "p99",  format_latency_ns },
};

static int compare_json(json_object *runs) {
        _cleanup_json_ json_object *out = json_object_new_array();
        json_object *first = json_object_array_get_idx(runs, 0);

        if (!out)
                return BENCHCTL_EXIT_FAILURE;
        for (size_t i = 0; i < json_object_array_length(runs); i++) {
                json_object *run = json_object_array_get_idx(runs, i), *o = json_object_new_object(),
                            *diff = json_object_new_object();
                json_object_object_add(o, "id", json_object_new_uint64(run_id(run)));
                for (size_t m = 0; m < ELEMENTSOF(compare_metrics); m++) {
                        const CompareMetric *cm = &compare_metrics[m];
                        double base = cm->get(first, cm->arg), v = cm->get(run, cm->arg);
                        double value = streq(cm->json_key, "mib_per_s") ? v / (1024.0 * 1024.0) : v;
                        json_object_object_add(o, cm->json_key, isfinite(value) ? json_object_new_double(value) : NULL);
                        json_object_object_add(diff, cm->json_key,
                                               isfinite(base) && isfinite(v) && base != 0
                                                       ? json_object_new_double((v - base) / base * 100.0) : NULL);
                }
                json_object_object_add(o, "diff_pct", diff);
                json_object_object_add(o, "run", json_object_get(run));
                json_object_array_add(out, o);
        }
        print_json(out);
        return BENCHCTL_EXIT_OK;
}

static int compare_runs(const BenchctlOptions *opts, int argc, char **argv) {
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
        _cleanup_json_ json_object *runs = json_object_new_array();
        _cleanup_(table_freep) Table *t = NULL;
        _cleanup_free_ const char **headers = NULL;
        _cleanup_free_ char *header_text = NULL;
        size_t n = argc - 1, header_len = 0;
        int r;

        if (!runs)
                return BENCHCTL_EXIT_FAILURE;
        r = bus_connect(opts, &bus);
        if (r != 0)
                return r;
        for (size_t i = 0; i < n; i++) {
                json_object *run = NULL;
                uint64_t id;
                if (parse_id_arg("run id", argv[i + 1], &id) < 0)
                        return BENCHCTL_EXIT_USAGE;
                r = get_run(bus, id, &run);
                if (r != 0)
                        return r;
                json_object_array_add(runs, run);
        }
        if (opts->json)
                return compare_json(runs);

        /* One column per run, the first is the base of the percentages. */
        headers = calloc(n + 1, sizeof(char *));
        header_text = calloc(n, 32);
        if (!headers || !header_text)
                return BENCHCTL_EXIT_FAILURE;
        headers[0] = "";
        for (size_t i = 0; i < n; i++) {
                char *h = header_text + header_len;
                header_len += snprintf(h, 32, "RUN %" PRIu64, run_id(json_object_array_get_idx(runs, i))) + 1;
                headers[i + 1] = h;
        }
        if (table_new(headers, n + 1, &t) < 0)
                return BENCHCTL_EXIT_FAILURE;
        for (size_t i = 1; i <= n; i++) {
                table_set_align(t, i, TABLE_ALIGN_RIGHT);
                table_set_shrinkable(t, i, 8);
        }

        static const char *const text_rows[][2] = {
                { "workload", "workload" },
                { "fs", "fs_type" },
                { "device", "device_name" },
                { "target", "target" },
                { "label", "label" },
        };
        for (size_t k = 0; k < ELEMENTSOF(text_rows); k++) {
                table_add_cell(t, text_rows[k][0]);
                for (size_t i = 0; i < n; i++)
                        table_add_cell(t, rec_str(json_object_array_get_idx(runs, i), text_rows[k][1]) ?: "-");
        }
        table_add_cell(t, "bs qd×jobs");
        for (size_t i = 0; i < n; i++) {
                json_object *run = json_object_array_get_idx(runs, i);
                char a[FORMAT_BUF_MAX];
                table_add_cellf(t, "%s %" PRIu64 "×%" PRIu64, format_bytes(a, sizeof a, rec_u64_or(run, "block_size", 0)),
                                rec_u64_or(run, "queue_depth", 1), rec_u64_or(run, "jobs", 1));
        }
        for (size_t m = 0; m < ELEMENTSOF(compare_metrics); m++) {
                const CompareMetric *cm = &compare_metrics[m];
                double base = cm->get(json_object_array_get_idx(runs, 0), cm->arg);

                table_add_cell(t, cm->label);
                for (size_t i = 0; i < n; i++) {
                        double v = cm->get(json_object_array_get_idx(runs, i), cm->arg);
                        char a[FORMAT_BUF_MAX], b[FORMAT_BUF_MAX];
                        if (i == 0)
                                table_add_cell(t, cm->format(a, sizeof a, v));
                        else
                                table_add_cellf(t, "%s (%s)", cm->format(a, sizeof a, v),
                                                format_diff_pct(b, sizeof b, base, v));
                }
        }
        table_print(t, opts->legend);
        return BENCHCTL_EXIT_OK;
}


/* ---- groups: CompareRuns ---- */

/* The figures of CompareRuns' cells, in the order the tables are printed. */
typedef struct GroupFigure {
        const char *label;
        const char *key;                /* the figure's key in a cell */
        double scale;                   /* to the unit the formatter takes */
        const char *(*format)(char *buf, size_t l, double v);
        bool only_if_nonzero;           /* a table only when some cell has it (ops/s: metadata) */
} GroupFigure;

static const GroupFigure group_figures[] = {
        { "MiB/s", "mib_per_s",  1024.0 * 1024.0, fmt_rate },
        { "IOPS",  "iops",       1.0,             format_iops },
        { "ops/s", "ops_per_s",  1.0,             format_iops, true },
        { "p50",   "lat_p50_ns", 1.0,             format_latency_ns },
        { "p99",   "lat_p99_ns", 1.0,             format_latency_ns },
};

/* "write 32 KiB Q1×1": what must be equal for two runs to be comparable. */
static char *row_of(json_object *cell) {
        char a[FORMAT_BUF_MAX], *s;

        if (asprintf(&s, "%s %s Q%" PRIu64 "×%" PRIu64, rec_str(cell, "workload") ?: "?",
                     format_bytes(a, sizeof a, rec_u64_or(cell, "block_size", 0)),
                     rec_u64_or(cell, "queue_depth", 1), rec_u64_or(cell, "jobs", 1)) < 0)
                return NULL;
        return s;
}

static int str_index(json_object *array, const char *s) {
        for (size_t i = 0; i < json_object_array_length(array); i++)
                if (streq(json_object_get_string(json_object_array_get_idx(array, i)), s))
                        return (int) i;
        return -1;
}

/* The cell text of one figure: "145.0 MiB/s ±8.9%" (the half-width of the interval, in percent
 * of the mean), "200.0 MiB/s (1 run)" without an interval, and for a group other than the
 * baseline the difference, "(-24.1%)", marked "~" when it is not significant. */
static char *figure_text(const GroupFigure *gf, json_object *fig, bool is_baseline) {
        char a[FORMAT_BUF_MAX], h[FORMAT_BUF_MAX], d[64], *s;
        double mean, lo, hi, diff;
        uint64_t n = rec_u64_or(fig, "n", 0);
        bool significant = false;

        if (n == 0 || !rec_double(fig, "mean", &mean))
                return strdup("-");
        gf->format(a, sizeof a, mean * gf->scale);
        if (rec_double(fig, "ci_low", &lo) && rec_double(fig, "ci_high", &hi)) {
                if (mean != 0)
                        snprintf(h, sizeof h, " ±%.1f%%", (hi - lo) / 2 / fabs(mean) * 100.0);
                else
                        snprintf(h, sizeof h, " ±%s", gf->format((char[FORMAT_BUF_MAX]) {}, FORMAT_BUF_MAX,
                                                                 (hi - lo) / 2 * gf->scale));
        } else
                snprintf(h, sizeof h, " (%" PRIu64 " run%s)", n, n == 1 ? "" : "s");
        *d = 0;
        if (!is_baseline && rec_double(fig, "diff_pct", &diff)) {
                (void) rec_bool(fig, "significant", &significant);
                if (fabs(diff) < 0.05)
                        snprintf(d, sizeof d, " (±0.0%%%s)", significant ? "" : " ~");
                else
                        snprintf(d, sizeof d, " (%+.1f%%%s)", diff, significant ? "" : " ~");
        }
        if (asprintf(&s, "%s%s%s", a, h, d) < 0)
                return NULL;
        return s;
}

static bool figure_present(const GroupFigure *gf, json_object *cells) {
        for (size_t i = 0; i < json_object_array_length(cells); i++) {
                json_object *fig = NULL;
                double mean;

                if (json_object_object_get_ex(json_object_array_get_idx(cells, i), gf->key, &fig) &&
                    rec_double(fig, "mean", &mean) && (!gf->only_if_nonzero || mean != 0))
                        return true;
        }
        return false;
}

/* Which tests the differences of cells were weighed by: bit 0 Welch's, bit 1 the paired one; and
 * the fewest and most pairs of the paired ones. */
static unsigned tests_used(json_object *cells, uint64_t *ret_min_pairs, uint64_t *ret_max_pairs) {
        unsigned used = 0;

        *ret_min_pairs = UINT64_MAX;
        *ret_max_pairs = 0;
        for (size_t i = 0; i < json_object_array_length(cells); i++)
                for (size_t k = 0; k < ELEMENTSOF(group_figures); k++) {
                        json_object *fig = NULL;
                        const char *test;

                        if (!json_object_object_get_ex(json_object_array_get_idx(cells, i), group_figures[k].key, &fig))
                                continue;
                        test = rec_str(fig, "test");
                        if (streq_ptr(test, "welch"))
                                used |= 1;
                        else if (streq_ptr(test, "paired")) {
                                uint64_t p = rec_u64_or(fig, "pairs", 0);

                                used |= 2;
                                *ret_min_pairs = MIN(*ret_min_pairs, p);
                                *ret_max_pairs = MAX(*ret_max_pairs, p);
                        }
                }
        return used;
}

/* One table per figure: a row per workload shape, a column per group. */
static int compare_groups_print(const BenchctlOptions *opts, json_object *groups, const char *baseline, json_object *cells, const char *by,
                                double level) {
        _cleanup_json_ json_object *rows = json_object_new_array();
        size_t n_groups = json_object_array_length(groups), n_rows, printed = 0;
        _cleanup_free_ json_object **grid = NULL;
        uint64_t runs = 0;

        if (!rows)
                return BENCHCTL_EXIT_FAILURE;
        for (size_t i = 0; i < json_object_array_length(cells); i++) {
                _cleanup_free_ char *row = row_of(json_object_array_get_idx(cells, i));
                if (!row)
                        return BENCHCTL_EXIT_FAILURE;
                if (str_index(rows, row) < 0)
                        json_object_array_add(rows, json_object_new_string(row));
                runs += rec_u64_or(json_object_array_get_idx(cells, i), "runs", 0);
        }
        n_rows = json_object_array_length(rows);
        grid = calloc(MAX(n_rows * n_groups, (size_t) 1), sizeof(json_object *));
        if (!grid)
                return BENCHCTL_EXIT_FAILURE;
        for (size_t i = 0; i < json_object_array_length(cells); i++) {
                json_object *cell = json_object_array_get_idx(cells, i);
                _cleanup_free_ char *row = row_of(cell);
                int ri = row ? str_index(rows, row) : -1, gi = str_index(groups, rec_str(cell, "group") ?: "");
                if (ri >= 0 && gi >= 0)
                        grid[ri * n_groups + gi] = cell;
        }

        /* How many runs each cell has, then the figures. */
        for (ssize_t m = -1; m < (ssize_t) ELEMENTSOF(group_figures); m++) {
                const GroupFigure *gf = m >= 0 ? &group_figures[m] : NULL;
                _cleanup_(table_freep) Table *t = NULL;
                _cleanup_free_ const char **headers = calloc(n_groups + 1, sizeof(char *));

                if (!headers)
                        return BENCHCTL_EXIT_FAILURE;
                if (gf && !figure_present(gf, cells))
                        continue;
                headers[0] = gf ? gf->label : "RUNS";
                for (size_t j = 0; j < n_groups; j++)
                        headers[j + 1] = json_object_get_string(json_object_array_get_idx(groups, j));
                if (table_new(headers, n_groups + 1, &t) < 0)
                        return BENCHCTL_EXIT_FAILURE;
                for (size_t j = 1; j <= n_groups; j++)
                        table_set_align(t, j, TABLE_ALIGN_RIGHT);
                for (size_t i = 0; i < n_rows; i++) {
                        table_add_cell(t, json_object_get_string(json_object_array_get_idx(rows, i)));
                        for (size_t j = 0; j < n_groups; j++) {
                                json_object *cell = grid[i * n_groups + j], *fig = NULL;
                                _cleanup_free_ char *text = NULL;

                                if (!cell)
                                        table_add_cell(t, "-");
                                else if (!gf)
                                        table_add_cellf(t, "%" PRIu64, rec_u64_or(cell, "runs", 0));
                                else {
                                        bool is_baseline = streq_ptr(rec_str(cell, "group"), baseline);
                                        text = json_object_object_get_ex(cell, gf->key, &fig)
                                                ? figure_text(gf, fig, is_baseline) : strdup("-");
                                        if (!text)
                                                return BENCHCTL_EXIT_FAILURE;
                                        table_add_cell(t, text);
                                }
                        }
                }
                if (printed++ > 0)
                        printf("\n");
                table_print(t, true);
        }
        if (opts->legend) {
                double pct = level * 100;
                uint64_t lo, hi;
                unsigned used = tests_used(cells, &lo, &hi);
                char pairs[64] = "";

                if (used & 2)
                        snprintf(pairs, sizeof pairs, lo == hi ? "%" PRIu64 : "%" PRIu64 "-%" PRIu64, lo, hi);
                text_printf("\n%" PRIu64 " run%s in %zu group%s by %s. Each cell: the mean of its runs ±the "
                            "half-width of its %.4g%% confidence interval (Student's t), in %% of the mean; (%%) the "
                            "difference against %s.\n~: not significant at %.4g%% (%s%s%s%s%s), or too few runs to "
                            "tell.\n",
                            runs, runs == 1 ? "" : "s", n_groups, n_groups == 1 ? "" : "s", by, pct, baseline, pct,
                            used & 2 ? "the paired t-test over the " : "", pairs, used & 2 ? " rounds, which drift "
                            "common to a round cancels" : "", used == 3 ? "; elsewhere " : "",
                            used & 1 || used == 0 ? "Welch's t-test" : "");
        }
        return BENCHCTL_EXIT_OK;
}

/* Manager.CompareRuns by by over the filter's runs, as compare --by --json prints it (and as
 * benchctl report embeds it): {by, level, baseline, groups, cells}. 0 with *ret, or an exit code
 * after saying why. */
/* ---- compare --job ID: a filesystem matrix's entries (CompareRuns by matrix, aggregated by benchd):
 * one row per workload shape, one column per entry (filesystem, or filesystem and device, or btrfs
 * RAID layout), the mean of each figure ±the half-width of its confidence interval, and the %
 * difference of every entry against the baseline column (--baseline NAME; default the first entry,
 * i.e. the first filesystem listed), marked ~ where it is not significant. A matrix that ran in
 * rounds (repeat=N) is weighed by the paired t-test over its rounds, so drift common to a round
 * cancels. The difference is (entry - baseline) / baseline: +20% means the entry moved 20% more
 * data per second than the baseline did. ---- */

int matrix_compare_json(const BenchctlOptions *opts, sd_bus *bus, uint64_t job, json_object **ret) {
        _cleanup_json_ json_object *filter = NULL, *out = NULL;
        json_object *cells = NULL;
        int r;

        if (opts->limit > 0) {
                fprintf(stderr, "benchctl: compare --job compares every run of the job, so --limit does not "
                        "apply; narrow the rows with --workload, or leave it out\n");
                return BENCHCTL_EXIT_USAGE;
        }
        if (run_filter_from_args(opts, &filter) < 0)
                return BENCHCTL_EXIT_FAILURE;
        json_object_object_add(filter, "job", json_object_new_uint64(job));
        r = compare_call(opts, bus, "matrix", filter, &out);
        if (r != 0)
                return r;
        json_object_object_get_ex(out, "cells", &cells);
        if (json_object_array_length(cells) == 0) {
                fprintf(stderr, "benchctl: job %" PRIu64 " has no succeeded runs of a filesystem matrix%s (submit one "
                        "with --set filesystems=ext4,btrfs --set devices=...; for other jobs use benchctl compare "
                        "--by or benchctl results --job)\n", job,
                        json_object_object_length(filter) > 1 ? " that match the filters" : "");
                return BENCHCTL_EXIT_NOT_FOUND;
        }
        json_object_object_add(out, "job", json_object_new_uint64(job));
        *ret = TAKE_PTR(out);
        return 0;
}

int matrix_compare(const BenchctlOptions *opts, uint64_t job) {
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
        _cleanup_json_ json_object *out = NULL;
        int r;

        r = bus_connect(opts, &bus);
        if (r != 0)
                return r;
        r = matrix_compare_json(opts, bus, job, &out);
        if (r != 0)
                return r;
        if (opts->json) {
                print_json(out);
                return BENCHCTL_EXIT_OK;
        }
        if (opts->legend)
                printf("Job %" PRIu64 ": a filesystem matrix, its entries compared\n\n", job);
        return compare_print(opts, out);
}

/* How many filesystems the entry's runs were on: one per visit (fs_uuid; a matrix in rounds makes
 * it afresh at every visit). */
int compare_groups_json(const BenchctlOptions *opts, sd_bus *bus, json_object **ret) {
        _cleanup_json_ json_object *filter = NULL;

        if (opts->limit > 0) {
                fprintf(stderr, "benchctl: compare --by counts every run that matches the filters, so --limit "
                        "does not apply; narrow the runs with --since, --until, --job or the other filters\n");
                return BENCHCTL_EXIT_USAGE;
        }
        if (run_filter_from_args(opts, &filter) < 0)
                return BENCHCTL_EXIT_FAILURE;
        /* --fleet UUID: its hosts are the fleet's names for them (docs/fleet.md "Gathering a fleet run"). */
        if (opts->fleet && streq(opts->by, "host"))
                return compare_call(opts, bus, "fleet_host", filter, ret);
        return compare_call(opts, bus, opts->by, filter, ret);
}

int compare_print(const BenchctlOptions *opts, json_object *out) {
        json_object *groups = NULL, *baseline = NULL, *cells = NULL;
        double level = rec_double_or(out, "level", 0.95);

        json_object_object_get_ex(out, "groups", &groups);
        json_object_object_get_ex(out, "baseline", &baseline);
        json_object_object_get_ex(out, "cells", &cells);
        return compare_groups_print(opts, groups, json_object_get_string(baseline), cells, rec_str(out, "by") ?: "?", level);
}

static int compare_groups(const BenchctlOptions *opts) {
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
        _cleanup_json_ json_object *out = NULL;
        json_object *cells = NULL;
        int r;

        r = bus_connect(opts, &bus);
        if (r != 0)
                return r;
        r = compare_groups_json(opts, bus, &out);
        if (r != 0)
                return r;
        if (opts->json) {
                print_json(out);
                return BENCHCTL_EXIT_OK;
        }
        json_object_object_get_ex(out, "cells", &cells);
        if (json_object_array_length(cells) == 0) {
                fprintf(stderr, "benchctl: compare: no succeeded runs match the filters\n");
                return BENCHCTL_EXIT_NOT_FOUND;
        }
        return compare_print(opts, out);
}

int verb_compare(int argc, char **argv, const BenchctlOptions *opts) {
        if (opts->fleet && (!opts->by || argc > 1 || opts->job > 0)) {
                fprintf(stderr, "benchctl: compare --fleet UUID goes with --by host (the fleet run's hosts) or "
                        "another --by KEY, and no RUN ids or --job\n");
                return BENCHCTL_EXIT_USAGE;
        }
        if (opts->job > 0 && !opts->by && argc == 1)
                return matrix_compare(opts, opts->job);
        if (opts->baseline && !opts->job && !opts->by) {
                fprintf(stderr, "benchctl: compare --baseline goes with --by COLUMN (a group) or --job ID "
                        "(a filesystem matrix entry)\n");
                return BENCHCTL_EXIT_USAGE;
        }
        if (opts->by) {
                if (argc > 1) {
                        fprintf(stderr, "benchctl: compare takes either RUN ids or --by COLUMN with filters, not both\n");
                        return BENCHCTL_EXIT_USAGE;
                }
                return compare_groups(opts);
        }
        if (argc < 3) {
                fprintf(stderr, "benchctl: compare needs at least two RUN ids, or --by COLUMN (e.g. --by fs_type)\n");
                return BENCHCTL_EXIT_USAGE;
        }
        return compare_runs(opts, argc, argv);
}
