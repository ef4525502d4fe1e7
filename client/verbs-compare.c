/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * compare: runs side by side (compare RUN RUN...), or groups of runs (compare --by fs_type
 * [filters]) the way people tabulate ext4 against btrfs by hand: one row per workload, block size
 * and queue shape, one column per group, the mean of each group's runs, and every value with its
 * difference to the first column.
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
#include "verbs-matrix.h"
#include "verbs-results.h"

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

static int compare_runs(int argc, char **argv) {
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
        _cleanup_json_ json_object *runs = json_object_new_array();
        _cleanup_(table_freep) Table *t = NULL;
        _cleanup_free_ const char **headers = NULL;
        _cleanup_free_ char *header_text = NULL;
        size_t n = argc - 1, header_len = 0;
        int r;

        if (!runs)
                return BENCHCTL_EXIT_FAILURE;
        r = bus_connect(&bus);
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
        if (arg_json)
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
        table_print(t, arg_legend);
        return BENCHCTL_EXIT_OK;
}


/* ---- groups ---- */

/* The text a run is grouped by: any column of the run (fs_type, device_name, label, profile...). */
static char *group_of(json_object *run, const char *by) {
        char *s;

        if (streq(by, "tags")) {
                /* The column holds JSON text; "a, b" reads better as a group name. */
                const char *t = rec_str(run, "tags");
                _cleanup_json_ json_object *a = t ? json_tokener_parse(t) : NULL;
                _cleanup_json_ json_object *wrap = json_object_new_object();
                if (a && wrap) {
                        json_object_object_add(wrap, "tags", json_object_get(a));
                        s = rec_to_text(wrap, "tags");
                        if (s && *s)
                                return s;
                        free(s);
                }
                return strdup("-");
        }
        s = rec_to_text(run, by);
        if (s && !*s) {
                free(s);
                s = strdup("-");
        }
        return s;
}

/* "write 32 KiB Q1×1": what must be equal for two runs to be comparable. */
static char *row_of(json_object *run) {
        char a[FORMAT_BUF_MAX], *s;

        if (asprintf(&s, "%s %s Q%" PRIu64 "×%" PRIu64, rec_str(run, "workload") ?: "?",
                     format_bytes(a, sizeof a, rec_u64_or(run, "block_size", 0)),
                     rec_u64_or(run, "queue_depth", 1), rec_u64_or(run, "jobs", 1)) < 0)
                return NULL;
        return s;
}

static int str_index(json_object *array, const char *s) {
        for (size_t i = 0; i < json_object_array_length(array); i++)
                if (streq(json_object_get_string(json_object_array_get_idx(array, i)), s))
                        return (int) i;
        return -1;
}

static int str_cmp(const void *a, const void *b) {
        json_object *const *x = a, *const *y = b;
        return strverscmp(json_object_get_string(*x), json_object_get_string(*y));
}

typedef struct Cell {
        double sum[ELEMENTSOF(compare_metrics)];
        double ss[ELEMENTSOF(compare_metrics)];  /* squared deviations from the mean */
        unsigned n[ELEMENTSOF(compare_metrics)];
        unsigned runs;
} Cell;

static double cell_mean(const Cell *c, size_t m) {
        return c->n[m] > 0 ? c->sum[m] / c->n[m] : NAN;
}

/* The sample standard deviation of the group's runs, NAN for fewer than two. */
static double cell_stddev(const Cell *c, size_t m) {
        return c->n[m] > 1 ? sqrt(c->ss[m] / (c->n[m] - 1)) : NAN;
}

/* The runs the filters select, grouped: rows (workload shapes) × groups (values of --by). */
typedef struct Groups {
        json_object *runs, *rows, *groups;
        size_t n_runs, n_rows, n_groups;
        Cell *cells;            /* n_rows × n_groups */
} Groups;

static void groups_clear(Groups *g) {
        json_object_put(g->runs);
        json_object_put(g->rows);
        json_object_put(g->groups);
        free(g->cells);
        *g = (Groups) {};
}

static Cell *groups_cell(const Groups *g, json_object *run) {
        _cleanup_free_ char *row = row_of(run), *group = group_of(run, arg_by);

        if (!row || !group)
                return NULL;
        return &g->cells[str_index(g->rows, row) * g->n_groups + str_index(g->groups, group)];
}

/* Returns 0 or an exit code after printing why. */
static int groups_load(sd_bus *bus, Groups *ret) {
        _cleanup_json_ json_object *filter = NULL;
        _cleanup_(groups_clear) Groups g = { .rows = json_object_new_array(), .groups = json_object_new_array() };
        int r;

        if (!g.rows || !g.groups || run_filter_from_args(&filter) < 0)
                return BENCHCTL_EXIT_FAILURE;
        if (!arg_status)
                json_object_object_add(filter, "status", json_object_new_string("succeeded"));
        if (arg_limit == 0)
                json_object_object_add(filter, "limit", json_object_new_uint64(10000));

        r = query_runs(bus, filter, &g.runs);
        if (r != 0)
                return r;
        g.n_runs = json_object_array_length(g.runs);
        if (g.n_runs > 0 && !json_object_object_get_ex(json_object_array_get_idx(g.runs, 0), arg_by, NULL) &&
            !streq(arg_by, "tags")) {
                fprintf(stderr, "benchctl: compare --by %s: runs have no such column; use one of fs_type, "
                        "device_name, device_model, label, profile, target, mount_options, job_id "
                        "(see benchctl results --json)\n", arg_by);
                return BENCHCTL_EXIT_USAGE;
        }

        for (size_t i = 0; i < g.n_runs; i++) {
                json_object *run = json_object_array_get_idx(g.runs, i);
                _cleanup_free_ char *row = row_of(run), *group = group_of(run, arg_by);
                if (!row || !group)
                        return BENCHCTL_EXIT_FAILURE;
                if (str_index(g.rows, row) < 0)
                        json_object_array_add(g.rows, json_object_new_string(row));
                if (str_index(g.groups, group) < 0)
                        json_object_array_add(g.groups, json_object_new_string(group));
        }
        json_object_array_sort(g.rows, str_cmp);
        json_object_array_sort(g.groups, str_cmp);
        g.n_rows = json_object_array_length(g.rows);
        g.n_groups = json_object_array_length(g.groups);
        if (g.n_rows == 0) {
                fprintf(stderr, "benchctl: compare: no runs match the filters\n");
                return BENCHCTL_EXIT_NOT_FOUND;
        }

        g.cells = calloc(g.n_rows * g.n_groups, sizeof(Cell));
        if (!g.cells)
                return BENCHCTL_EXIT_FAILURE;
        /* The sums, then the squared deviations from the means they give. */
        for (int pass = 0; pass < 2; pass++)
                for (size_t i = 0; i < g.n_runs; i++) {
                        json_object *run = json_object_array_get_idx(g.runs, i);
                        Cell *c = groups_cell(&g, run);

                        if (!c)
                                return BENCHCTL_EXIT_FAILURE;
                        if (pass == 0)
                                c->runs++;
                        for (size_t m = 0; m < ELEMENTSOF(compare_metrics); m++) {
                                double v = compare_metrics[m].get(run, compare_metrics[m].arg);
                                if (!isfinite(v))
                                        continue;
                                if (pass == 0) {
                                        c->sum[m] += v;
                                        c->n[m]++;
                                } else
                                        c->ss[m] += (v - cell_mean(c, m)) * (v - cell_mean(c, m));
                        }
                }
        *ret = g;
        g = (Groups) {};
        return 0;
}

/* A metric as --json shows it: MiB/s for the rate, else as measured. */
static json_object *metric_json(const CompareMetric *cm, double v) {
        double shown = streq(cm->json_key, "mib_per_s") ? v / (1024.0 * 1024.0) : v;

        return isfinite(shown) ? json_object_new_double(shown) : NULL;
}

static json_object *groups_json(const Groups *g) {
        json_object *out = json_object_new_array();

        for (size_t i = 0; out && i < g->n_rows; i++) {
                json_object *o = json_object_new_object(), *gr = json_object_new_object();
                json_object_object_add(o, "row", json_object_get(json_object_array_get_idx(g->rows, i)));
                for (size_t j = 0; j < g->n_groups; j++) {
                        const Cell *c = &g->cells[i * g->n_groups + j], *base = &g->cells[i * g->n_groups];
                        json_object *v = json_object_new_object(), *diff = json_object_new_object(),
                                    *sd = json_object_new_object();
                        json_object_object_add(v, "runs", json_object_new_int64(c->runs));
                        for (size_t m = 0; m < ELEMENTSOF(compare_metrics); m++) {
                                const CompareMetric *cm = &compare_metrics[m];
                                double x = cell_mean(c, m), b = cell_mean(base, m);
                                json_object_object_add(v, cm->json_key, metric_json(cm, x));
                                json_object_object_add(diff, cm->json_key,
                                                       isfinite(x) && isfinite(b) && b != 0
                                                               ? json_object_new_double((x - b) / b * 100.0) : NULL);
                                json_object_object_add(sd, cm->json_key, metric_json(cm, cell_stddev(c, m)));
                        }
                        json_object_object_add(v, "diff_pct", diff);
                        /* Of the runs, for error bars: null with fewer than two. */
                        json_object_object_add(v, "stddev", sd);
                        json_object_object_add(gr, json_object_get_string(json_object_array_get_idx(g->groups, j)), v);
                }
                json_object_object_add(o, "groups", gr);
                json_object_array_add(out, o);
        }
        return out;
}

int compare_groups_json(sd_bus *bus, json_object **ret) {
        _cleanup_(groups_clear) Groups g = {};
        json_object *o;
        int r;

        r = groups_load(bus, &g);
        if (r != 0)
                return r;
        o = groups_json(&g);
        if (!o)
                return BENCHCTL_EXIT_FAILURE;
        *ret = o;
        return 0;
}

static int compare_groups(void) {
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
        _cleanup_(groups_clear) Groups g = {};
        int r;

        r = bus_connect(&bus);
        if (r != 0)
                return r;
        r = groups_load(bus, &g);
        if (r != 0)
                return r;

        if (arg_json) {
                _cleanup_json_ json_object *out = groups_json(&g);
                if (!out)
                        return BENCHCTL_EXIT_FAILURE;
                print_json(out);
                return BENCHCTL_EXIT_OK;
        }

        /* One table per metric: rows are workloads, columns the groups, the first is the base. */
        for (size_t m = 0; m < ELEMENTSOF(compare_metrics); m++) {
                const CompareMetric *cm = &compare_metrics[m];
                _cleanup_(table_freep) Table *t = NULL;
                _cleanup_free_ const char **headers = calloc(g.n_groups + 1, sizeof(char *));

                if (!headers)
                        return BENCHCTL_EXIT_FAILURE;
                headers[0] = cm->label;
                for (size_t j = 0; j < g.n_groups; j++)
                        headers[j + 1] = json_object_get_string(json_object_array_get_idx(g.groups, j));
                if (table_new(headers, g.n_groups + 1, &t) < 0)
                        return BENCHCTL_EXIT_FAILURE;
                for (size_t j = 1; j <= g.n_groups; j++)
                        table_set_align(t, j, TABLE_ALIGN_RIGHT);
                for (size_t i = 0; i < g.n_rows; i++) {
                        double b = cell_mean(&g.cells[i * g.n_groups], m);
                        table_add_cell(t, json_object_get_string(json_object_array_get_idx(g.rows, i)));
                        for (size_t j = 0; j < g.n_groups; j++) {
                                const Cell *c = &g.cells[i * g.n_groups + j];
                                double x = cell_mean(c, m);
                                char a[FORMAT_BUF_MAX], d[FORMAT_BUF_MAX];
                                if (c->runs == 0)
                                        table_add_cell(t, "-");
                                else if (j == 0 || !isfinite(b))
                                        table_add_cell(t, cm->format(a, sizeof a, x));
                                else
                                        table_add_cellf(t, "%s (%s)", cm->format(a, sizeof a, x),
                                                        format_diff_pct(d, sizeof d, b, x));
                        }
                }
                if (m > 0)
                        printf("\n");
                table_print(t, true);
        }
        if (arg_legend)
                printf("\n%zu run%s in %zu group%s by %s; means per group, differences against %s.\n", g.n_runs,
                       g.n_runs == 1 ? "" : "s", g.n_groups, g.n_groups == 1 ? "" : "s", arg_by,
                       json_object_get_string(json_object_array_get_idx(g.groups, 0)));
        return BENCHCTL_EXIT_OK;
}

int verb_compare(int argc, char **argv) {
        if (arg_job > 0 && !arg_by && argc == 1)
                return matrix_report(arg_job, arg_baseline, false);
        if (arg_baseline && !arg_job) {
                fprintf(stderr, "benchctl: compare --baseline goes with --job ID (a filesystem matrix job)\n");
                return BENCHCTL_EXIT_USAGE;
        }
        if (arg_by) {
                if (argc > 1) {
                        fprintf(stderr, "benchctl: compare takes either RUN ids or --by COLUMN with filters, not both\n");
                        return BENCHCTL_EXIT_USAGE;
                }
                return compare_groups();
        }
        if (argc < 3) {
                fprintf(stderr, "benchctl: compare needs at least two RUN ids, or --by COLUMN (e.g. --by fs_type)\n");
                return BENCHCTL_EXIT_USAGE;
        }
        return compare_runs(argc, argv);
}
