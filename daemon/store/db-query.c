/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The SQLite store, its reading half: the jobs table walked at start-up, and the history the bus
 * layer asks for (QueryRuns, GetRun, GetSamples, GetHistogram) handed back row by row as generic
 * named fields (DbField), so the bus layer can marshal a{sv} without knowing SQLite; and
 * CompareRuns' cells, aggregated by SQLite in one statement (DbCompareCell), so that comparing
 * thousands of runs moves a few hundred numbers, not the runs.
 *
 * Apart from db.c because it is a different job: db.c keeps the file's shape (migrations) and
 * writes; this file only reads, and every statement here is prepared per call, never cached, so a
 * callback may use the Db again while a walk is in progress. Filters become fixed SQL fragments
 * with bound values (struct Query), never formatted values.
 */

#include <assert.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "store/db-internal.h"
#include "store/db.h"

#define DB_QUERY_LIMIT_DEFAULT 100u
#define DB_QUERY_LIMIT_MAX 10000u

/* ---- jobs ---- */

/* Returns the number of jobs visited. Prepared per call, so cb may use the Db. */
#define JOB_COLUMNS \
        "id, state, profile, workload, spec, target, label, submitted_by, submitted_usec, started_usec, " \
        "finished_usec, error, steps, triggered_by"

int db_job_foreach_newest(Db *db, const char *state, uint64_t limit, int (*cb)(const DbJob *job, void *userdata),
                          void *userdata) {
        static const char *const queries[2][2] = {
                /* [limit > 0][state != NULL]; the newest `limit` through the primary key, then oldest first */
                { "SELECT " JOB_COLUMNS " FROM jobs ORDER BY id",
                  "SELECT " JOB_COLUMNS " FROM jobs WHERE state = ?1 ORDER BY id" },
                { "SELECT * FROM (SELECT " JOB_COLUMNS " FROM jobs ORDER BY id DESC LIMIT ?2) ORDER BY id",
                  "SELECT * FROM (SELECT " JOB_COLUMNS " FROM jobs WHERE state = ?1 ORDER BY id DESC LIMIT ?2) "
                  "ORDER BY id" },
        };
        _cleanup_finalize_ sqlite3_stmt *st = NULL;
        int n = 0, r;

        if (!cb)
                return -EINVAL;

        r = db_prepare(db, queries[limit > 0][state != NULL], &st);
        if (r < 0)
                return r;

        if (state || limit > 0) {
                Binder b = binder(st);
                if (state)
                        bind_text(&b, state);
                if (limit > 0) {
                        if (!state)
                                bind_null(&b);  /* ?1, unused */
                        bind_u64(&b, MIN(limit, (uint64_t) INT64_MAX));
                }
                r = binder_done(db, &b);
                if (r < 0)
                        return r;
        }

        for (;;) {
                DbJob job;

                r = db_step_row(db, st);
                if (r < 0)
                        return r;
                if (r == 0)
                        break;

                job = (DbJob) {
                        .id = column_u64(st, 0),
                        .state = column_text(st, 1),
                        .profile = column_text(st, 2),
                        .workload = column_text(st, 3),
                        .spec_json = column_text(st, 4),
                        .target = column_text(st, 5),
                        .label = column_text(st, 6),
                        .submitted_by = (uint32_t) sqlite3_column_int64(st, 7),
                        .submitted_usec = column_u64(st, 8),
                        .started_usec = column_u64(st, 9),
                        .finished_usec = column_u64(st, 10),
                        .error = column_text(st, 11),
                        .steps_json = column_text(st, 12),
                        .triggered_by = column_text(st, 13),
                };

                r = cb(&job, userdata);
                if (r < 0)
                        return r;
                if (n < INT_MAX)
                        n++;
        }

        return n;
}

int db_job_foreach(Db *db, const char *state, int (*cb)(const DbJob *job, void *userdata), void *userdata) {
        return db_job_foreach_newest(db, state, 0, cb, userdata);
}

int db_job_last_run(Db *db, uint64_t job_id, int (*cb)(const DbRunEnd *run, void *userdata),
                    void *userdata) {
        _cleanup_finalize_ sqlite3_stmt *st = NULL;
        DbRunEnd run;
        Binder b;
        int r;

        if (!cb)
                return -EINVAL;
        r = db_prepare(db,
                       "SELECT id, step, status, error, started_usec + duration_usec, \"repeat\" FROM runs "
                       "WHERE job_id = ? ORDER BY id DESC LIMIT 1",
                       &st);
        if (r < 0)
                return r;
        b = binder(st);
        bind_u64(&b, job_id);
        r = binder_done(db, &b);
        if (r < 0)
                return r;
        r = db_step_row(db, st);
        if (r <= 0)
                return r;

        run = (DbRunEnd) {
                .id = column_u64(st, 0),
                .step = (uint32_t) sqlite3_column_int64(st, 1),
                .status = column_text(st, 2),
                .error = column_text(st, 3),
                .ended_usec = column_u64(st, 4),
                .repeat = (uint32_t) sqlite3_column_int64(st, 5),
        };
        r = cb(&run, userdata);
        return r < 0 ? r : 1;
}

/* ---- history ---- */

/* Steps st to the end, handing every row to cb as named fields. Returns the number of rows, or
 * the first negative return of cb, or -errno. */
int db_emit_rows(Db *db, sqlite3_stmt *st, DbRowCallback cb, void *userdata) {
        _cleanup_free_ DbField *fields = NULL;
        int ncol, n = 0, r;

        ncol = sqlite3_column_count(st);
        fields = calloc(MAX(ncol, 1), sizeof(DbField));
        if (!fields)
                return -ENOMEM;

        for (;;) {
                r = db_step_row(db, st);
                if (r < 0)
                        return r;
                if (r == 0)
                        break;

                for (int i = 0; i < ncol; i++) {
                        DbField *f = fields + i;

                        *f = (DbField) { .name = sqlite3_column_name(st, i) };
                        switch (sqlite3_column_type(st, i)) {
                        case SQLITE_INTEGER:
                                f->type = DB_FIELD_INTEGER;
                                f->i = sqlite3_column_int64(st, i);
                                f->d = (double) f->i;
                                break;
                        case SQLITE_FLOAT:
                                f->type = DB_FIELD_REAL;
                                f->d = sqlite3_column_double(st, i);
                                break;
                        case SQLITE_TEXT:
                                f->type = DB_FIELD_TEXT;
                                f->s = column_text(st, i);
                                break;
                        default: /* NULL, and BLOB which the schema does not use */
                                f->type = DB_FIELD_NULL;
                                break;
                        }
                }

                if (cb) {
                        r = cb(fields, (size_t) ncol, userdata);
                        if (r < 0)
                                return r;
                }
                if (n < INT_MAX)
                        n++;
        }

        return n;
}

/* The WHERE clause of db_query_runs: each filter adds a fixed fragment and its bound values. */
typedef struct QueryArg {
        bool is_text;
        const char *s;
        uint64_t u;
} QueryArg;

typedef struct Query {
        char sql[4096];
        size_t len;
        QueryArg args[16];
        size_t n_args;
        bool where;
} Query;

static void query_append(Query *q, const char *s) {
        size_t l = strlen(s);

        assert(q->len + l < sizeof(q->sql)); /* fragments are fixed strings: a bug otherwise */
        memcpy(q->sql + q->len, s, l + 1);
        q->len += l;
}

static void query_arg_text(Query *q, const char *s) {
        assert(q->n_args < ELEMENTSOF(q->args));
        q->args[q->n_args++] = (QueryArg) { .is_text = true, .s = s };
}

static void query_arg_u64(Query *q, uint64_t u) {
        assert(q->n_args < ELEMENTSOF(q->args));
        q->args[q->n_args++] = (QueryArg) { .u = u };
}

static void query_cond(Query *q, const char *fragment) {
        query_append(q, q->where ? " AND " : " WHERE ");
        q->where = true;
        query_append(q, fragment);
}

static void query_text(Query *q, const char *fragment, const char *value) {
        if (!value)
                return;
        query_cond(q, fragment);
        query_arg_text(q, value);
}

/* The filter's conditions on run_summary (QueryRuns' keys but limit and offset), each a fixed
 * fragment with its bound values. */
static void query_filter(Query *q, const DbRunFilter *f) {
        if (f->device) {
                /* Two indexable terms, so SQLite can use a multi-index OR. */
                query_cond(q, "(device_name = ? OR device_id IN "
                              "(SELECT id FROM devices WHERE identity = ?))");
                query_arg_text(q, f->device);
                query_arg_text(q, f->device);
        }
        query_text(q, "workload = ?", f->workload);
        query_text(q, "profile = ?", f->profile);
        query_text(q, "fs_type = ?", f->fs_type);
        query_text(q, "label = ?", f->label);
        query_text(q, "status = ?", f->status);
        query_text(q, "fleet_uuid = ?", f->fleet_uuid);
        /* run_tags (schema version 8) holds the strings of runs.tags, one row each. */
        query_text(q, "id IN (SELECT run_id FROM run_tags WHERE tag = ?)", f->tag);
        if (f->job > 0) {
                query_cond(q, "job_id = ?");
                query_arg_u64(q, f->job);
        }
        /* [since, until): half-open, so consecutive windows do not count a run twice. */
        if (f->since_usec > 0) {
                query_cond(q, "started_usec >= ?");
                query_arg_u64(q, f->since_usec);
        }
        if (f->until_usec > 0) {
                query_cond(q, "started_usec < ?");
                query_arg_u64(q, f->until_usec);
        }
}

/* Prepares q's statement and binds its values. */
static int query_prepare(Db *db, const Query *q, sqlite3_stmt **ret) {
        _cleanup_finalize_ sqlite3_stmt *st = NULL;
        Binder b;
        int r;

        r = db_prepare(db, q->sql, &st);
        if (r < 0)
                return r;

        b = binder(st);
        for (size_t i = 0; i < q->n_args; i++) {
                if (q->args[i].is_text)
                        bind_text(&b, q->args[i].s);
                else
                        bind_u64(&b, q->args[i].u);
        }
        r = binder_done(db, &b);
        if (r < 0)
                return r;

        *ret = TAKE_PTR(st);
        return 0;
}

/* Rows of run_summary, newest first; returns how many were handed to cb. f may be NULL. */
int db_query_runs(Db *db, const DbRunFilter *f, DbRowCallback cb, void *userdata) {
        static const DbRunFilter no_filter = {};
        _cleanup_finalize_ sqlite3_stmt *st = NULL;
        Query q = {};
        uint64_t limit;
        int r;

        if (!f)
                f = &no_filter;

        query_append(&q, "SELECT * FROM run_summary");
        query_filter(&q, f);

        limit = f->limit == 0 ? DB_QUERY_LIMIT_DEFAULT : MIN(f->limit, (uint64_t) DB_QUERY_LIMIT_MAX);
        query_append(&q, " ORDER BY started_usec DESC, id DESC LIMIT ? OFFSET ?");
        query_arg_u64(&q, limit);
        query_arg_u64(&q, f->offset);

        r = query_prepare(db, &q, &st);
        if (r < 0)
                return r;
        return db_emit_rows(db, st, cb, userdata);
}

/* GetRun's columns: run_summary's, every column of runs that run_summary lacks (environment, uuid,
 * origin_host, mkfs_output, the md and LVM layouts' columns, ...: read from the schema, so that a
 * migration's new column is exported without a change here, and ImportRuns, which takes the same
 * list, reads it back), and "spec" (the job's). */
static int get_run_sql(Db *db, char **ret) {
        _cleanup_finalize_ sqlite3_stmt *st = NULL;
        _cleanup_free_ char *sql = NULL;
        size_t len = 0;
        FILE *f;
        int r;

        /* A read of the schema, a hundred rows whatever the history holds: not one of the queries
         * whose plans are checked to be searches (db_prepare()'s explain hook). */
        r = sqlite3_prepare_v2(db->sqlite, "SELECT name FROM pragma_table_info('runs') WHERE name NOT IN "
                               "(SELECT name FROM pragma_table_info('run_summary')) ORDER BY cid", -1, &st, NULL);
        if (r != SQLITE_OK)
                return db_fail(db, r);
        f = open_memstream(&sql, &len);
        if (!f)
                return db_fail_msg(db, -ENOMEM, "out of memory");
        fputs("SELECT s.*", f);
        for (;;) {
                const char *name;

                r = db_step_row(db, st);
                if (r <= 0)
                        break;
                name = (const char *) sqlite3_column_text(st, 0);
                /* Names of the schema's (letters, digits, '_'); quoted, as "round" and "partition" must be. */
                if (name)
                        fprintf(f, ", r.\"%s\" AS \"%s\"", name, name);
        }
        fputs(", j.spec AS spec FROM run_summary AS s JOIN runs AS r ON r.id = s.id "
              "LEFT JOIN jobs AS j ON j.id = s.job_id WHERE s.id = ?", f);
        if (fclose(f) != 0)
                return db_fail_msg(db, -ENOMEM, "out of memory");
        if (r < 0)
                return r;
        *ret = TAKE_PTR(sql);
        return 0;
}

int db_get_run(Db *db, uint64_t run_id, DbRowCallback cb, void *userdata) {
        _cleanup_finalize_ sqlite3_stmt *st = NULL;
        _cleanup_free_ char *sql = NULL;
        Binder b;
        int r;

        r = get_run_sql(db, &sql);
        if (r < 0)
                return r;
        r = db_prepare(db, sql, &st);
        if (r < 0)
                return r;

        b = binder(st);
        bind_u64(&b, run_id);
        r = binder_done(db, &b);
        if (r < 0)
                return r;

        r = db_emit_rows(db, st, cb, userdata);
        if (r == 0)
                return db_fail_msg(db, -ENOENT, "no run %" PRIu64, run_id);
        return r;
}

/* limit < 0: all of them. */
static int db_samples(Db *db, uint64_t run_id, uint64_t from_ms, int64_t limit, DbRowCallback cb,
                      void *userdata) {
        _cleanup_finalize_ sqlite3_stmt *st = NULL;
        Binder b;
        int r;

        r = db_run_exists(db, run_id);
        if (r < 0)
                return r;

        /* (run_id, t_ms) is the primary key: a page is a range search, however deep. */
        r = db_prepare(db,
                       "SELECT t_ms, interval_us, bytes_read, bytes_written, ios_read, ios_written, "
                       "ops, lat_mean_ns, lat_p50_ns, lat_p99_ns, lat_max_ns, iowait_pct, "
                       "cpu_user_pct, cpu_sys_pct, dev_util_pct, dev_queue "
                       "FROM samples WHERE run_id = ? AND t_ms >= ? ORDER BY t_ms LIMIT ?",
                       &st);
        if (r < 0)
                return r;

        b = binder(st);
        bind_u64(&b, run_id);
        bind_u64(&b, MIN(from_ms, (uint64_t) INT64_MAX));
        bind_i64(&b, limit);
        r = binder_done(db, &b);
        if (r < 0)
                return r;

        return db_emit_rows(db, st, cb, userdata);
}

int db_get_samples(Db *db, uint64_t run_id, DbRowCallback cb, void *userdata) {
        return db_samples(db, run_id, 0, -1, cb, userdata);
}

int db_get_samples_page(Db *db, uint64_t run_id, uint64_t from_ms, uint64_t limit, DbRowCallback cb,
                        void *userdata) {
        return db_samples(db, run_id, from_ms, (int64_t) MIN(limit, (uint64_t) INT64_MAX), cb, userdata);
}

int db_get_run_phases(Db *db, uint64_t run_id, DbRowCallback cb, void *userdata) {
        _cleanup_finalize_ sqlite3_stmt *st = NULL;
        Binder b;
        int r;

        r = db_run_exists(db, run_id);
        if (r < 0)
                return r;

        r = db_prepare(db,
                       "SELECT phase, seq, ops, duration_usec, ops_per_s, lat_min_ns, lat_mean_ns, "
                       "lat_p50_ns, lat_p99_ns, lat_max_ns "
                       "FROM run_phase_summary WHERE run_id = ? ORDER BY seq",
                       &st);
        if (r < 0)
                return r;

        b = binder(st);
        bind_u64(&b, run_id);
        r = binder_done(db, &b);
        if (r < 0)
                return r;

        return db_emit_rows(db, st, cb, userdata);
}

int db_get_run_positions(Db *db, uint64_t run_id, DbRowCallback cb, void *userdata) {
        _cleanup_finalize_ sqlite3_stmt *st = NULL;
        Binder b;
        int r;

        r = db_run_exists(db, run_id);
        if (r < 0)
                return r;

        r = db_prepare(db,
                       "SELECT seq, offset_bytes, bytes, duration_usec, mb_per_s, mib_per_s, lat_mean_ns, "
                       "lat_max_ns FROM run_position_summary WHERE run_id = ? ORDER BY seq",
                       &st);
        if (r < 0)
                return r;

        b = binder(st);
        bind_u64(&b, run_id);
        r = binder_done(db, &b);
        if (r < 0)
                return r;

        return db_emit_rows(db, st, cb, userdata);
}

int db_get_histogram(Db *db, uint64_t run_id,
                     int (*cb)(uint64_t upper_ns, uint64_t count, void *userdata), void *userdata) {
        _cleanup_finalize_ sqlite3_stmt *st = NULL;
        Binder b;
        int n = 0, r;

        r = db_run_exists(db, run_id);
        if (r < 0)
                return r;

        r = db_prepare(db, "SELECT upper_ns, count FROM run_histograms WHERE run_id = ? "
                           "ORDER BY upper_ns", &st);
        if (r < 0)
                return r;

        b = binder(st);
        bind_u64(&b, run_id);
        r = binder_done(db, &b);
        if (r < 0)
                return r;

        for (;;) {
                r = db_step_row(db, st);
                if (r < 0)
                        return r;
                if (r == 0)
                        break;
                if (cb) {
                        r = cb(column_u64(st, 0), column_u64(st, 1), userdata);
                        if (r < 0)
                                return r;
                }
                if (n < INT_MAX)
                        n++;
        }
        return n;
}

/* ---- compare ---- */

static const char *const figure_columns[_DB_FIGURE_MAX] = {
        [DB_FIGURE_MIB_PER_S] = "mib_per_s",
        [DB_FIGURE_IOPS] = "iops",
        [DB_FIGURE_OPS_PER_S] = "ops_per_s",
        [DB_FIGURE_LAT_P50_NS] = "lat_p50_ns",
        [DB_FIGURE_LAT_P99_NS] = "lat_p99_ns",
};

const char *db_figure_to_string(DbFigure f) {
        return f >= 0 && f < _DB_FIGURE_MAX ? figure_columns[f] : NULL;
}

/* A matrix entry's name as the job's tables name it (jobs/matrix.h, matrix_entry_name()): "ext4"
 * when the job has one device, "ext4 loop1" for layout=single over several, "btrfs raid1" for a
 * layout across all of them; the members (their last path components: replace(v, rtrim(v, <v
 * without '/'>), '') strips everything up to the last '/') also when the job's devices are not
 * known (an imported run): "btrfs raid1 loop2+loop3"; " p2" after it for a job with partitions=. */
#define MATRIX_JOB_DEVICES                                                                         \
        "(SELECT json_array_length(j.spec, '$.devices') FROM jobs AS j WHERE j.id = run_summary.job_id)"
#define MATRIX_ENTRY_NAME                                                                          \
        "fs_type || CASE WHEN layout IS NULL OR layout = 'single' THEN '' ELSE ' ' || layout END || " \
        "CASE WHEN " MATRIX_JOB_DEVICES " = 1 OR (" MATRIX_JOB_DEVICES " > 1 AND layout IS NOT NULL AND " \
        "layout != 'single') THEN '' ELSE " \
        "coalesce(' ' || (SELECT group_concat(replace(m.value, rtrim(m.value, replace(m.value, '/', '')), " \
        "''), '+') FROM json_each(run_summary.members) AS m), '') END || " \
        "coalesce(' p' || run_summary.\"partition\", '')"

/* What each group key groups by, as an expression on run_summary, and the order of its groups
 * when not their names. Fixed text chosen by name, never the caller's. */
static const struct {
        const char *name;
        const char *expr;
        const char *order;
        const char *cond;       /* runs without a place in such groups */
} compare_keys[] = {
        { "fs_type",       "fs_type" },
        { "label",         "label" },
        { "device",        "coalesce(device_identity, device_name)" },
        { "device_name",   "device_name" },
        { "device_model",  "device_model" },
        { "kernel",        "(SELECT json_extract(e.environment, '$.kernel') FROM runs AS e "
                           "WHERE e.id = run_summary.id)" },
        { "host",          "(SELECT json_extract(e.environment, '$.host') FROM runs AS e "
                           "WHERE e.id = run_summary.id)" },
        { "layout",        "layout" },
        { "matrix",        MATRIX_ENTRY_NAME, "matrix_entry", "matrix_entry IS NOT NULL" },
        { "profile",       "profile" },
        { "tags",          "(SELECT group_concat(t.value, ', ') FROM json_each(run_summary.tags) AS t)" },
        { "job",           "job_id", "job_id" },
        { "mount_options", "mount_options" },
        { "target",        "target" },
        /* A fleet run's hosts by their name in it: the environment's host is the same on hosts
         * that share a name, and a fleet's runs gathered into one history need telling apart. */
        { "fleet_host",    "fleet_host", NULL, "fleet_host IS NOT NULL" },
};

static ssize_t compare_key_index(const char *by) {
        for (size_t i = 0; i < ELEMENTSOF(compare_keys); i++)
                if (streq_ptr(by, compare_keys[i].name))
                        return (ssize_t) i;
        return -1;
}

bool db_compare_key_known(const char *by) {
        return compare_key_index(by) >= 0;
}

/* benchd_m2(x): the sum of squared deviations of the non-NULL x from their mean, by Welford's
 * online algorithm (one pass, and numerically stable: a sum of squares minus the square of a sum
 * loses a small spread far from 0, this does not). NULL when no x was given. */
typedef struct Welford {
        uint64_t n;
        double mean;
        double m2;
} Welford;

static void welford_step(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
        Welford *w;
        double x, d;

        if (argc != 1 || sqlite3_value_type(argv[0]) == SQLITE_NULL)
                return;
        w = sqlite3_aggregate_context(ctx, sizeof(Welford));
        if (!w)
                return sqlite3_result_error_nomem(ctx);
        x = sqlite3_value_double(argv[0]);
        w->n++;
        d = x - w->mean;
        w->mean += d / (double) w->n;
        w->m2 += d * (x - w->mean);
}

static void welford_final(sqlite3_context *ctx) {
        Welford *w = sqlite3_aggregate_context(ctx, 0);

        if (!w || w->n == 0)
                return sqlite3_result_null(ctx);
        sqlite3_result_double(ctx, w->m2);
}

int db_register_functions(Db *db) {
        int rc;

        rc = sqlite3_create_function(db->sqlite, "benchd_m2", 1, SQLITE_UTF8 | SQLITE_DETERMINISTIC, NULL, NULL,
                                     welford_step, welford_final);
        return rc == SQLITE_OK ? 0 : db_fail(db, rc);
}

/* The matching runs of a comparison, one row each with its row (workload, block_size, queue_depth,
 * jobs), group (grp, grp_order), id, job_id, round (rnd) and figures (f0, f1, ...): the FROM of
 * both aggregations below; cond (NULL: none) narrows the runs before their groups are worked out.
 * -EINVAL for an unknown key or another status, with a message. */
static int compare_source(Db *db, const char *by, const DbRunFilter *f, const char *cond, Query *q) {
        DbRunFilter filter = {};
        ssize_t k;

        k = compare_key_index(by);
        if (k < 0)
                return db_fail_msg(db, -EINVAL, "cannot compare by '%s'; the keys are " DB_COMPARE_KEYS,
                                   by ?: "");
        if (f)
                filter = *f;
        if (filter.status && !streq(filter.status, "succeeded"))
                return db_fail_msg(db, -EINVAL, "only succeeded runs are compared, not %s runs",
                                   filter.status);
        filter.status = "succeeded";

        query_append(q, " FROM (SELECT workload, block_size, queue_depth, jobs, coalesce(nullif(CAST(");
        query_append(q, compare_keys[k].expr);
        query_append(q, " AS TEXT), ''), '-') AS grp, ");
        query_append(q, compare_keys[k].order ?: "-1");
        query_append(q, " AS grp_order, id, job_id, \"round\" AS rnd");
        for (DbFigure i = 0; i < _DB_FIGURE_MAX; i++) {
                char col[64];

                snprintf(col, sizeof col, ", %s AS f%d", figure_columns[i], i);
                query_append(q, col);
        }
        query_append(q, " FROM run_summary");
        query_filter(q, &filter);
        if (compare_keys[k].cond)
                query_cond(q, compare_keys[k].cond);
        if (cond)
                query_cond(q, cond);
        query_append(q, ")");
        return 0;
}

/* The columns of a cell after its row, group, group_order, runs, first run and runs in rounds:
 * count, mean and m2 of each figure. */
#define COMPARE_FIGURE_COLUMN0 9

/* One statement, one pass: the inner SELECT picks the matching runs with their row, group and
 * figures (the filter's conditions are those of QueryRuns, on its indexes), the GROUP BY counts,
 * averages and takes benchd_m2() per cell. */
int db_compare_runs(Db *db, const char *by, const DbRunFilter *f,
                    int (*cb)(const DbCompareCell *cell, void *userdata), void *userdata) {
        _cleanup_finalize_ sqlite3_stmt *st = NULL;
        Query q = {};
        int n = 0, r;

        query_append(&q, "SELECT workload, block_size, queue_depth, jobs, grp, grp_order, count(*), min(id), "
                         "count(rnd)");
        for (DbFigure i = 0; i < _DB_FIGURE_MAX; i++) {
                char col[96];

                snprintf(col, sizeof col, ", count(f%1$d), avg(f%1$d), benchd_m2(f%1$d)", i);
                query_append(&q, col);
        }
        r = compare_source(db, by, f, NULL, &q);
        if (r < 0)
                return r;
        query_append(&q, " GROUP BY workload, block_size, queue_depth, jobs, grp_order, grp "
                         "ORDER BY workload, block_size, queue_depth, jobs, grp_order, grp");

        r = query_prepare(db, &q, &st);
        if (r < 0)
                return r;

        for (;;) {
                DbCompareCell cell;

                r = db_step_row(db, st);
                if (r < 0)
                        return r;
                if (r == 0)
                        break;

                cell = (DbCompareCell) {
                        .workload = column_text(st, 0),
                        .block_size = column_u64(st, 1),
                        .queue_depth = column_u64(st, 2),
                        .jobs = column_u64(st, 3),
                        .group = column_text(st, 4),
                        .group_order = sqlite3_column_int64(st, 5),
                        .runs = column_u64(st, 6),
                        .first_run = column_u64(st, 7),
                        .round_runs = column_u64(st, 8),
                };
                for (DbFigure i = 0; i < _DB_FIGURE_MAX; i++) {
                        int c = COMPARE_FIGURE_COLUMN0 + 3 * i;
                        DbFigureAggregate *a = &cell.figures[i];

                        a->n = column_u64(st, c);
                        a->mean = a->n > 0 ? sqlite3_column_double(st, c + 1) : NAN;
                        a->m2 = a->n > 0 ? sqlite3_column_double(st, c + 2) : NAN;
                }
                if (cb) {
                        r = cb(&cell, userdata);
                        if (r < 0)
                                return r;
                }
                if (n < INT_MAX)
                        n++;
        }
        return n;
}

/* The same runs, those made in rounds, per cell and (job, round): the pairs are formed from these
 * by the caller, and they are at most as many as the runs. */
int db_compare_rounds(Db *db, const char *by, const DbRunFilter *f,
                      int (*cb)(const DbCompareRound *round, void *userdata), void *userdata) {
        _cleanup_finalize_ sqlite3_stmt *st = NULL;
        Query q = {};
        int n = 0, r;

        query_append(&q, "SELECT workload, block_size, queue_depth, jobs, grp, grp_order, job_id, rnd, count(*)");
        for (DbFigure i = 0; i < _DB_FIGURE_MAX; i++) {
                char col[32];

                snprintf(col, sizeof col, ", avg(f%d)", i);
                query_append(&q, col);
        }
        /* Through runs_rounds (schema 18): a history without rounds is not walked a second time. */
        r = compare_source(db, by, f, "id IN (SELECT id FROM runs WHERE \"round\" IS NOT NULL AND job_id IS NOT NULL)",
                           &q);
        if (r < 0)
                return r;
        query_append(&q, " GROUP BY workload, block_size, queue_depth, jobs, grp_order, grp, job_id, rnd "
                         "ORDER BY workload, block_size, queue_depth, jobs, grp_order, grp, job_id, rnd");

        r = query_prepare(db, &q, &st);
        if (r < 0)
                return r;

        for (;;) {
                DbCompareRound round;

                r = db_step_row(db, st);
                if (r < 0)
                        return r;
                if (r == 0)
                        break;

                round = (DbCompareRound) {
                        .workload = column_text(st, 0),
                        .block_size = column_u64(st, 1),
                        .queue_depth = column_u64(st, 2),
                        .jobs = column_u64(st, 3),
                        .group = column_text(st, 4),
                        .group_order = sqlite3_column_int64(st, 5),
                        .job_id = column_u64(st, 6),
                        .round = column_u64(st, 7),
                        .runs = column_u64(st, 8),
                };
                for (DbFigure i = 0; i < _DB_FIGURE_MAX; i++)
                        round.figures[i] = sqlite3_column_type(st, 9 + i) == SQLITE_NULL ? NAN :
                                sqlite3_column_double(st, 9 + i);
                if (cb) {
                        r = cb(&round, userdata);
                        if (r < 0)
                                return r;
                }
                if (n < INT_MAX)
                        n++;
        }
        return n;
}
