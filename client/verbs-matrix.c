/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A filesystem matrix job as people publish it: `compare --job ID` prints one row per workload and
 * block size, one column per entry (filesystem, or filesystem and device, or btrfs RAID layout),
 * the mean MiB/s (ops/s for metadata) of the entry's runs, and under each row the % difference of
 * every entry against the baseline column (--baseline NAME; default the first entry, i.e. the first
 * filesystem listed). `show --job ID` adds how each entry's filesystem was made: mkfs time and the
 * capacity right after mkfs ("ext4 uses 3% right after mkfs"; USE% as df computes it, used / (used
 * + available), so space reserved for root counts as neither). --json gives the same numbers.
 *
 * The difference is (entry - baseline) / baseline: +20% means the entry moved 20% more data per
 * second than the baseline did.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "benchctl.h"
#include "bus.h"
#include "format.h"
#include "record.h"
#include "table.h"
#include "verbs-matrix.h"
#include "verbs-results.h"
#include "text.h"

#define MATRIX_ENTRIES_MAX 256u

typedef struct Entry {
        uint64_t index;         /* matrix_entry */
        char *name;
        json_object *first;     /* its first run (borrowed from the runs array) */
} Entry;

typedef struct Matrix {
        json_object *runs;      /* sorted by matrix_entry, step */
        Entry entries[MATRIX_ENTRIES_MAX];
        size_t n_entries;
        size_t baseline;
        json_object *rows;      /* row labels, in step order */
} Matrix;

static void matrix_clear(Matrix *m) {
        for (size_t i = 0; i < m->n_entries; i++)
                free(m->entries[i].name);
        json_object_put(m->rows);
        json_object_put(m->runs);
        *m = (Matrix) {};
}

static int run_order(const void *a, const void *b) {
        json_object *const *x = a, *const *y = b;
        uint64_t ex = rec_u64_or(*x, "matrix_entry", 0), ey = rec_u64_or(*y, "matrix_entry", 0);
        uint64_t sx = rec_u64_or(*x, "step", 0), sy = rec_u64_or(*y, "step", 0);

        if (ex != ey)
                return ex < ey ? -1 : 1;
        if (sx != sy)
                return sx < sy ? -1 : 1;
        return run_id(*x) < run_id(*y) ? -1 : run_id(*x) > run_id(*y);
}

/* The first member's kernel name, as the daemon names entries ("ext4 loop1"). */
static const char *first_member(json_object *run, char *buf, size_t l) {
        const char *m = rec_str(run, "members");
        _cleanup_json_ json_object *a = m ? json_tokener_parse(m) : NULL;
        const char *first = a && json_object_is_type(a, json_type_array) && json_object_array_length(a) > 0
                ? json_object_get_string(json_object_array_get_idx(a, 0)) : NULL;
        const char *slash = first ? strrchr(first, '/') : NULL;

        snprintf(buf, l, "%s", slash ? slash + 1 : first ?: "?");
        return buf;
}

static char *entry_name(json_object *run, bool several_single_devices) {
        const char *fs = rec_str(run, "fs_type") ?: "?", *layout = rec_str(run, "layout");
        char member[256], *s;

        if (layout && !streq(layout, "single")) {
                if (asprintf(&s, "%s %s", fs, layout) < 0)
                        return NULL;
                return s;
        }
        if (several_single_devices) {
                if (asprintf(&s, "%s %s", fs, first_member(run, member, sizeof member)) < 0)
                        return NULL;
                return s;
        }
        return strdup(fs);
}

/* "write 32 KiB Q1×1": what must be equal for two runs to be comparable, and the unit shown. */
static char *row_label(json_object *run) {
        char a[FORMAT_BUF_MAX], *s;

        if (asprintf(&s, "%s %s Q%" PRIu64 "×%" PRIu64, rec_str(run, "workload") ?: "?",
                     format_bytes(a, sizeof a, rec_u64_or(run, "block_size", 0)),
                     rec_u64_or(run, "queue_depth", 1), rec_u64_or(run, "jobs", 1)) < 0)
                return NULL;
        return s;
}

static bool run_is_metadata(json_object *run) {
        return streq_ptr(rec_str(run, "workload"), "metadata");
}

/* The figure a cell shows: MiB/s, or ops/s for metadata. */
static double run_figure(json_object *run) {
        if (run_is_metadata(run))
                return rec_double_or(run, "ops_per_s", NAN);
        return run_bytes_per_sec(run) / (1024.0 * 1024.0);
}

static int json_index(json_object *array, const char *s) {
        for (size_t i = 0; i < json_object_array_length(array); i++)
                if (streq(json_object_get_string(json_object_array_get_idx(array, i)), s))
                        return (int) i;
        return -1;
}

static ssize_t entry_index(const Matrix *m, uint64_t index) {
        for (size_t i = 0; i < m->n_entries; i++)
                if (m->entries[i].index == index)
                        return (ssize_t) i;
        return -1;
}

/* The job's runs and entries. BENCHCTL_EXIT_* on failure, with a message. */
static int matrix_load(sd_bus *bus, uint64_t job, const char *baseline, Matrix *ret) {
        _cleanup_json_ json_object *filter = json_object_new_object(), *all = NULL;
        Matrix m = { .rows = json_object_new_array(), .runs = json_object_new_array() };
        _cleanup_json_ json_object *member_sets = json_object_new_array();
        bool several = false;
        int r;

        if (!filter || !m.rows || !m.runs || !member_sets) {
                matrix_clear(&m);
                return BENCHCTL_EXIT_FAILURE;
        }
        json_object_object_add(filter, "job", json_object_new_uint64(job));
        json_object_object_add(filter, "limit", json_object_new_uint64(10000));
        r = query_runs(bus, filter, &all);
        if (r != 0) {
                matrix_clear(&m);
                return r;
        }
        for (size_t i = 0; i < json_object_array_length(all); i++) {
                json_object *run = json_object_array_get_idx(all, i);
                uint64_t e;

                if (!rec_u64(run, "matrix_entry", &e))
                        continue;
                json_object_array_add(m.runs, json_object_get(run));
                if (streq_ptr(rec_str(run, "layout"), "single") && rec_str(run, "members") &&
                    json_index(member_sets, rec_str(run, "members")) < 0)
                        json_object_array_add(member_sets, json_object_new_string(rec_str(run, "members")));
        }
        if (json_object_array_length(m.runs) == 0) {
                fprintf(stderr, "benchctl: job %" PRIu64 " has no runs of a filesystem matrix (submit one with --set "
                        "filesystems=ext4,btrfs --set devices=...; for other jobs use benchctl compare --by or "
                        "benchctl results --job)\n", job);
                matrix_clear(&m);
                return BENCHCTL_EXIT_NOT_FOUND;
        }
        several = json_object_array_length(member_sets) > 1;
        json_object_array_sort(m.runs, run_order);

        for (size_t i = 0; i < json_object_array_length(m.runs); i++) {
                json_object *run = json_object_array_get_idx(m.runs, i);
                uint64_t e = rec_u64_or(run, "matrix_entry", 0);
                _cleanup_free_ char *row = row_label(run);

                if (!row) {
                        matrix_clear(&m);
                        return BENCHCTL_EXIT_FAILURE;
                }
                if (json_index(m.rows, row) < 0)
                        json_object_array_add(m.rows, json_object_new_string(row));
                if (entry_index(&m, e) >= 0 || m.n_entries >= MATRIX_ENTRIES_MAX)
                        continue;
                m.entries[m.n_entries] = (Entry) { .index = e, .name = entry_name(run, several), .first = run };
                if (!m.entries[m.n_entries].name) {
                        matrix_clear(&m);
                        return BENCHCTL_EXIT_FAILURE;
                }
                m.n_entries++;
        }

        m.baseline = 0;
        if (baseline) {
                size_t i;
                for (i = 0; i < m.n_entries; i++)
                        if (streq(m.entries[i].name, baseline))
                                break;
                if (i == m.n_entries) {
                        text_fprintf(stderr, "benchctl: --baseline %s: job %" PRIu64 " has no such entry; its "
                                     "entries are:", baseline, job);
                        for (size_t k = 0; k < m.n_entries; k++)
                                text_fprintf(stderr, "%s '%s'", k ? "," : "", m.entries[k].name);
                        fprintf(stderr, "\n");
                        matrix_clear(&m);
                        return BENCHCTL_EXIT_USAGE;
                }
                m.baseline = i;
        }
        *ret = m;
        return 0;
}

typedef struct Cell {
        double sum;
        double ss;              /* squared deviations from the mean */
        unsigned n;
} Cell;

static double cell_mean(const Cell *c) {
        return c->n > 0 ? c->sum / c->n : NAN;
}

/* The sample standard deviation of the entry's runs (repeats), NAN for fewer than two. */
static double cell_stddev(const Cell *c) {
        return c->n > 1 ? sqrt(c->ss / (c->n - 1)) : NAN;
}

static Cell *matrix_cells(const Matrix *m) {
        size_t n_rows = json_object_array_length(m->rows);
        Cell *cells = calloc(MAX(n_rows * m->n_entries, (size_t) 1), sizeof(Cell));

        if (!cells)
                return NULL;
        /* The sums, then the squared deviations from the means they give. */
        for (int pass = 0; pass < 2; pass++)
                for (size_t i = 0; i < json_object_array_length(m->runs); i++) {
                        json_object *run = json_object_array_get_idx(m->runs, i);
                        _cleanup_free_ char *row = row_label(run);
                        ssize_t e = entry_index(m, rec_u64_or(run, "matrix_entry", 0));
                        int k = row ? json_index(m->rows, row) : -1;
                        Cell *c;
                        double v;

                        if (e < 0 || k < 0 || !streq_ptr(rec_str(run, "status"), "succeeded"))
                                continue;
                        v = run_figure(run);
                        if (!isfinite(v))
                                continue;
                        c = &cells[(size_t) k * m->n_entries + (size_t) e];
                        if (pass == 0) {
                                c->sum += v;
                                c->n++;
                        } else
                                c->ss += (v - cell_mean(c)) * (v - cell_mean(c));
                }
        return cells;
}

/* A run of the row k. */
static json_object *row_run(const Matrix *m, size_t k) {
        const char *row = json_object_get_string(json_object_array_get_idx(m->rows, k));

        for (size_t i = 0; i < json_object_array_length(m->runs); i++) {
                json_object *run = json_object_array_get_idx(m->runs, i);
                _cleanup_free_ char *label = row_label(run);
                if (label && streq(label, row))
                        return run;
        }
        return NULL;
}

/* The row's unit, from any of its runs. */
static const char *row_unit(const Matrix *m, size_t k) {
        json_object *run = row_run(m, k);

        return run && run_is_metadata(run) ? "ops/s" : "MiB/s";
}

static json_object *entry_to_json(const Entry *e) {
        json_object *o = json_object_new_object();
        static const char *const keys[] = {
                "fs_type", "layout", "mkfs_command", "mkfs_options", "mkfs_usec", "mount_options", "fs_uuid",
                "fs_size_bytes", "fs_used_bytes", "fs_avail_bytes", "fs_inodes", "fs_inodes_free",
        };
        const char *members = rec_str(e->first, "members");
        json_object *v;

        if (!o)
                return NULL;
        json_object_object_add(o, "entry", json_object_new_uint64(e->index));
        json_object_object_add(o, "name", json_object_new_string(e->name));
        for (size_t i = 0; i < ELEMENTSOF(keys); i++)
                if (json_object_object_get_ex(e->first, keys[i], &v))
                        json_object_object_add(o, keys[i], json_object_get(v));
        json_object_object_add(o, "members", members ? json_tokener_parse(members) : NULL);
        return o;
}

static json_object *matrix_json(const Matrix *m, const Cell *cells, uint64_t job) {
        _cleanup_json_ json_object *out = json_object_new_object();
        json_object *entries = json_object_new_array(), *rows = json_object_new_array();
        size_t n_rows = json_object_array_length(m->rows);

        if (!out || !entries || !rows) {
                json_object_put(entries);
                json_object_put(rows);
                return NULL;
        }
        json_object_object_add(out, "job", json_object_new_uint64(job));
        json_object_object_add(out, "baseline", json_object_new_string(m->entries[m->baseline].name));
        for (size_t e = 0; e < m->n_entries; e++)
                json_object_array_add(entries, entry_to_json(&m->entries[e]));
        json_object_object_add(out, "entries", entries);
        for (size_t k = 0; k < n_rows; k++) {
                json_object *o = json_object_new_object(), *values = json_object_new_object(),
                            *diff = json_object_new_object();
                double b = cell_mean(&cells[k * m->n_entries + m->baseline]);
                json_object *run = row_run(m, k);

                json_object_object_add(o, "row", json_object_get(json_object_array_get_idx(m->rows, k)));
                json_object_object_add(o, "unit", json_object_new_string(row_unit(m, k)));
                /* What the label says, as fields. */
                json_object_object_add(o, "workload", json_object_new_string(rec_str(run, "workload") ?: "?"));
                json_object_object_add(o, "block_size", json_object_new_uint64(rec_u64_or(run, "block_size", 0)));
                json_object_object_add(o, "queue_depth", json_object_new_uint64(rec_u64_or(run, "queue_depth", 1)));
                json_object_object_add(o, "jobs", json_object_new_uint64(rec_u64_or(run, "jobs", 1)));
                for (size_t e = 0; e < m->n_entries; e++) {
                        const Cell *c = &cells[k * m->n_entries + e];
                        json_object *v = json_object_new_object();
                        double x = cell_mean(c);

                        json_object_object_add(v, "mean", isfinite(x) ? json_object_new_double(x) : NULL);
                        /* Of the repeats, for error bars: null with fewer than two. */
                        json_object_object_add(v, "stddev", isfinite(cell_stddev(c)) ?
                                               json_object_new_double(cell_stddev(c)) : NULL);
                        json_object_object_add(v, "runs", json_object_new_uint64(c->n));
                        json_object_object_add(values, m->entries[e].name, v);
                        if (e != m->baseline)
                                json_object_object_add(diff, m->entries[e].name,
                                                       isfinite(x) && isfinite(b) && b != 0
                                                               ? json_object_new_double((x - b) / b * 100.0) : NULL);
                }
                json_object_object_add(o, "values", values);
                json_object_object_add(o, "diff_pct", diff);
                json_object_array_add(rows, o);
        }
        json_object_object_add(out, "rows", rows);
        return TAKE_PTR(out);
}

static int print_entries_table(const Matrix *m) {
        _cleanup_(table_freep) Table *t = NULL;
        static const char *const headers[] = { "ENTRY", "MEMBERS", "MKFS", "SIZE", "USED", "USE%", "AVAIL", "INODES" };

        if (table_new(headers, ELEMENTSOF(headers), &t) < 0)
                return BENCHCTL_EXIT_FAILURE;
        for (size_t c = 2; c < ELEMENTSOF(headers); c++)
                table_set_align(t, c, TABLE_ALIGN_RIGHT);
        table_set_shrinkable(t, 1, 8);
        for (size_t e = 0; e < m->n_entries; e++) {
                json_object *run = m->entries[e].first;
                _cleanup_free_ char *members = NULL;
                char a[FORMAT_BUF_MAX];
                uint64_t size, used, usec;
                _cleanup_json_ json_object *wrap = json_object_new_object();
                const char *mj = rec_str(run, "members");

                if (wrap && mj) {
                        json_object_object_add(wrap, "members", json_tokener_parse(mj));
                        members = rec_to_text(wrap, "members");
                }
                table_add_cell(t, m->entries[e].name);
                table_add_cell(t, members ?: "-");
                table_add_cell(t, rec_u64(run, "mkfs_usec", &usec) ? format_duration(a, sizeof a, usec) : "-");
                bool have_size = rec_u64(run, "fs_size_bytes", &size), have_used = rec_u64(run, "fs_used_bytes", &used);
                table_add_cell(t, have_size ? format_bytes(a, sizeof a, size) : "-");
                table_add_cell(t, have_used ? format_bytes(a, sizeof a, used) : "-");
                uint64_t avail;
                bool have_avail = rec_u64(run, "fs_avail_bytes", &avail);
                /* As df shows it: of what is there for users, used plus available. */
                if (have_used && have_avail && used + avail > 0)
                        table_add_cellf(t, "%.1f%%", (double) used * 100.0 / (double) (used + avail));
                else
                        table_add_cell(t, "-");
                table_add_cell(t, have_avail ? format_bytes(a, sizeof a, avail) : "-");
                if (rec_u64(run, "fs_inodes", &size))
                        table_add_cellf(t, "%" PRIu64, size);
                else
                        table_add_cell(t, "-");
        }
        return table_print(t, arg_legend) < 0 ? BENCHCTL_EXIT_FAILURE : BENCHCTL_EXIT_OK;
}

static int print_compare_table(const Matrix *m, const Cell *cells) {
        _cleanup_(table_freep) Table *t = NULL;
        _cleanup_free_ const char **headers = calloc(m->n_entries + 2, sizeof(char *));
        size_t n_rows = json_object_array_length(m->rows);
        char pct_label[300];

        if (!headers)
                return BENCHCTL_EXIT_FAILURE;
        headers[0] = "WORKLOAD";
        headers[1] = "UNIT";
        for (size_t e = 0; e < m->n_entries; e++)
                headers[e + 2] = m->entries[e].name;
        if (table_new(headers, m->n_entries + 2, &t) < 0)
                return BENCHCTL_EXIT_FAILURE;
        for (size_t c = 2; c < m->n_entries + 2; c++)
                table_set_align(t, c, TABLE_ALIGN_RIGHT);
        snprintf(pct_label, sizeof pct_label, "  %% vs %s", m->entries[m->baseline].name);

        for (size_t k = 0; k < n_rows; k++) {
                double b = cell_mean(&cells[k * m->n_entries + m->baseline]);

                table_add_cell(t, json_object_get_string(json_object_array_get_idx(m->rows, k)));
                table_add_cell(t, row_unit(m, k));
                for (size_t e = 0; e < m->n_entries; e++) {
                        const Cell *c = &cells[k * m->n_entries + e];
                        if (c->n == 0)
                                table_add_cell(t, "-");
                        else
                                table_add_cellf(t, "%.1f", cell_mean(c));
                }
                if (m->n_entries < 2)
                        continue;
                table_add_cell(t, pct_label);
                table_add_cell(t, "");
                for (size_t e = 0; e < m->n_entries; e++) {
                        double x = cell_mean(&cells[k * m->n_entries + e]);
                        char d[FORMAT_BUF_MAX];
                        if (e == m->baseline)
                                table_add_cell(t, "-");
                        else if (!isfinite(x) || !isfinite(b))
                                table_add_cell(t, "n/a");
                        else
                                table_add_cell(t, format_diff_pct(d, sizeof d, b, x));
                }
        }
        if (table_print(t, arg_legend) < 0)
                return BENCHCTL_EXIT_FAILURE;
        if (arg_legend)
                text_printf("\nMeans of the succeeded runs of each entry; %% rows: (entry - %s) / %s.\n",
                            m->entries[m->baseline].name, m->entries[m->baseline].name);
        return BENCHCTL_EXIT_OK;
}

int matrix_report(uint64_t job, const char *baseline, bool entries) {
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
        _cleanup_free_ Cell *cells = NULL;
        Matrix m = {};
        int r;

        r = bus_connect(&bus);
        if (r != 0)
                return r;
        r = matrix_load(bus, job, baseline, &m);
        if (r != 0)
                return r;
        cells = matrix_cells(&m);
        if (!cells) {
                matrix_clear(&m);
                return BENCHCTL_EXIT_FAILURE;
        }
        if (arg_json) {
                _cleanup_json_ json_object *o = matrix_json(&m, cells, job);
                if (o)
                        print_json(o);
                r = o ? BENCHCTL_EXIT_OK : BENCHCTL_EXIT_FAILURE;
        } else {
                if (entries) {
                        printf("Job %" PRIu64 ": a filesystem matrix of %zu entr%s\n\n", job, m.n_entries,
                               m.n_entries == 1 ? "y" : "ies");
                        r = print_entries_table(&m);
                        if (r == 0)
                                printf("\n");
                }
                if (r == 0)
                        r = print_compare_table(&m, cells);
        }
        matrix_clear(&m);
        return r;
}

int matrix_report_json(sd_bus *bus, uint64_t job, const char *baseline, json_object **ret) {
        _cleanup_free_ Cell *cells = NULL;
        Matrix m = {};
        json_object *o;
        int r;

        r = matrix_load(bus, job, baseline, &m);
        if (r != 0)
                return r;
        cells = matrix_cells(&m);
        o = cells ? matrix_json(&m, cells, job) : NULL;
        matrix_clear(&m);
        if (!o)
                return BENCHCTL_EXIT_FAILURE;
        *ret = o;
        return 0;
}

int matrix_job_probe(uint64_t job) {
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
        _cleanup_json_ json_object *filter = json_object_new_object(), *runs = NULL;
        int r;

        if (!filter)
                return -BENCHCTL_EXIT_FAILURE;
        r = bus_connect(&bus);
        if (r != 0)
                return -r;
        json_object_object_add(filter, "job", json_object_new_uint64(job));
        json_object_object_add(filter, "limit", json_object_new_uint64(1));
        r = query_runs(bus, filter, &runs);
        if (r != 0)
                return -r;
        for (size_t i = 0; i < json_object_array_length(runs); i++) {
                uint64_t e;
                if (rec_u64(json_object_array_get_idx(runs, i), "matrix_entry", &e))
                        return 1;
        }
        return 0;
}
