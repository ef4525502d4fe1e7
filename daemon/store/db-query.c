/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The SQLite store, its reading half: the jobs table walked at start-up, and the history the bus
 * layer asks for (QueryRuns, GetRun, GetSamples, GetHistogram) handed back row by row as generic
 * named fields (DbField), so the bus layer can marshal a{sv} without knowing SQLite.
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
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "store/db-internal.h"
#include "store/db.h"

#define DB_QUERY_LIMIT_DEFAULT 100u
#define DB_QUERY_LIMIT_MAX 10000u

/* ---- jobs ---- */

/* Returns the number of jobs visited. Prepared per call, so cb may use the Db. */
int db_job_foreach(Db *db, const char *state, int (*cb)(const DbJob *job, void *userdata),
                   void *userdata) {
        _cleanup_finalize_ sqlite3_stmt *st = NULL;
        int n = 0, r;

        if (!cb)
                return -EINVAL;

        r = db_prepare(db,
                       state ? "SELECT id, state, profile, workload, spec, target, label, submitted_by, "
                               "submitted_usec, started_usec, finished_usec, error, steps FROM jobs "
                               "WHERE state = ? ORDER BY id"
                             : "SELECT id, state, profile, workload, spec, target, label, submitted_by, "
                               "submitted_usec, started_usec, finished_usec, error, steps FROM jobs "
                               "ORDER BY id",
                       &st);
        if (r < 0)
                return r;

        if (state) {
                Binder b = binder(st);
                bind_text(&b, state);
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
                };

                r = cb(&job, userdata);
                if (r < 0)
                        return r;
                if (n < INT_MAX)
                        n++;
        }

        return n;
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
                       "SELECT id, step, status, error, started_usec + duration_usec FROM runs "
                       "WHERE job_id = ? ORDER BY step DESC, id DESC LIMIT 1",
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
        };
        r = cb(&run, userdata);
        return r < 0 ? r : 1;
}

/* ---- history ---- */

/* Steps st to the end, handing every row to cb as named fields. Returns the number of rows, or
 * the first negative return of cb, or -errno. */
static int db_emit_rows(Db *db, sqlite3_stmt *st, DbRowCallback cb, void *userdata) {
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
        char sql[2048];
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

/* Rows of run_summary, newest first; returns how many were handed to cb. f may be NULL. */
int db_query_runs(Db *db, const DbRunFilter *f, DbRowCallback cb, void *userdata) {
        static const DbRunFilter no_filter = {};
        _cleanup_finalize_ sqlite3_stmt *st = NULL;
        Query q = {};
        uint64_t limit;
        Binder b;
        int r;

        if (!f)
                f = &no_filter;

        query_append(&q, "SELECT * FROM run_summary");
        if (f->device) {
                /* Two indexable terms, so SQLite can use a multi-index OR. */
                query_cond(&q, "(device_name = ? OR device_id IN "
                               "(SELECT id FROM devices WHERE identity = ?))");
                query_arg_text(&q, f->device);
                query_arg_text(&q, f->device);
        }
        query_text(&q, "workload = ?", f->workload);
        query_text(&q, "profile = ?", f->profile);
        query_text(&q, "fs_type = ?", f->fs_type);
        query_text(&q, "label = ?", f->label);
        query_text(&q, "status = ?", f->status);
        /* run_tags (schema version 6) holds the strings of runs.tags, one row each. */
        query_text(&q, "id IN (SELECT run_id FROM run_tags WHERE tag = ?)", f->tag);
        if (f->job > 0) {
                query_cond(&q, "job_id = ?");
                query_arg_u64(&q, f->job);
        }
        /* [since, until): half-open, so consecutive windows do not count a run twice. */
        if (f->since_usec > 0) {
                query_cond(&q, "started_usec >= ?");
                query_arg_u64(&q, f->since_usec);
        }
        if (f->until_usec > 0) {
                query_cond(&q, "started_usec < ?");
                query_arg_u64(&q, f->until_usec);
        }

        limit = f->limit == 0 ? DB_QUERY_LIMIT_DEFAULT : MIN(f->limit, (uint64_t) DB_QUERY_LIMIT_MAX);
        query_append(&q, " ORDER BY started_usec DESC, id DESC LIMIT ? OFFSET ?");
        query_arg_u64(&q, limit);
        query_arg_u64(&q, f->offset);

        r = db_prepare(db, q.sql, &st);
        if (r < 0)
                return r;

        b = binder(st);
        for (size_t i = 0; i < q.n_args; i++) {
                if (q.args[i].is_text)
                        bind_text(&b, q.args[i].s);
                else
                        bind_u64(&b, q.args[i].u);
        }
        r = binder_done(db, &b);
        if (r < 0)
                return r;

        return db_emit_rows(db, st, cb, userdata);
}

/* run_summary's columns plus "environment" (runs) and "spec" (the job's). */
int db_get_run(Db *db, uint64_t run_id, DbRowCallback cb, void *userdata) {
        _cleanup_finalize_ sqlite3_stmt *st = NULL;
        Binder b;
        int r;

        r = db_prepare(db,
                       "SELECT s.*, r.environment AS environment, j.spec AS spec "
                       "FROM run_summary AS s "
                       "JOIN runs AS r ON r.id = s.id "
                       "LEFT JOIN jobs AS j ON j.id = s.job_id "
                       "WHERE s.id = ?",
                       &st);
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
