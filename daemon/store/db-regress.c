/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Regressions found without asking (schema/0007-regressions.sql): after a run succeeded, its
 * figures against the comparable runs before it, judged by the pure detector (shared/regress.h),
 * and the flags kept in the regressions table; and the list of flags for ListRegressions.
 *
 * What is comparable is decided here, in SQL: the same device identity, workload and parameters,
 * filesystem and layout, NULL matching NULL (IS), succeeded, before the run. The run's own values
 * of those columns are copied as sqlite3_values and bound back unchanged, so a NULL, an integer
 * and a text compare exactly as they are stored. The newest window + 1 comparable runs are read
 * from the runs_series index (INDEXED BY: the planner would rather sort), newest first, and stop there: the check costs a few index
 * steps per run whatever the history's length, which is why it may run on the daemon's loop.
 * Only when something is flagged is the history walked further back (at most
 * DB_REGRESS_SEGMENT_SCAN_MAX runs), to say where the baseline segment started.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/db-internal.h"
#include "store/db.h"

#define DB_REGRESS_LIMIT_DEFAULT 100u
#define DB_REGRESS_LIMIT_MAX 10000u

/* The run's columns that make a run comparable, in the order of the ?1.. parameters below. */
enum {
        KEY_DEVICE,
        KEY_WORKLOAD,
        KEY_BLOCK_SIZE,
        KEY_QUEUE_DEPTH,
        KEY_JOBS,
        KEY_SIZE,
        KEY_DIRECT,
        KEY_SYNC,
        KEY_PATTERN,
        KEY_RWMIX_READ,
        KEY_FS_TYPE,
        KEY_LAYOUT,
        KEY_STARTED,
        KEY_ID,
        _KEY_MAX,
};

/* ?1..?14 are the keys, ?15 the metric, ?16 the limit. */
#define COMPARABLE_WHERE \
        "r.status = 'succeeded' AND r.device_id = ?1 AND r.workload = ?2 AND r.block_size = ?3 " \
        "AND r.queue_depth = ?4 AND r.jobs = ?5 AND r.size = ?6 AND r.direct = ?7 AND r.sync IS ?8 " \
        "AND r.pattern IS ?9 AND r.rwmix_read IS ?10 AND r.fs_type IS ?11 AND r.layout IS ?12 " \
        "AND r.duration_usec > 0 AND (r.started_usec < ?13 OR (r.started_usec = ?13 AND r.id < ?14)) "

#define ENV_KERNEL "COALESCE(json_extract(r.environment, '$.kernel'), '')"
#define ENV_FIRMWARE "COALESCE(json_extract(r.environment, '$.firmware'), '')"

/* The figures, in run_summary's units. */
#define FIGURE_MB_PER_S "(COALESCE(r.bytes_read, 0) + COALESCE(r.bytes_written, 0)) * 1.0 / r.duration_usec"
#define FIGURE_IOPS "(COALESCE(r.ios_read, 0) + COALESCE(r.ios_written, 0)) * 1000000.0 / r.duration_usec"
#define FIGURE_OPS_PER_S "COALESCE(r.ops, 0) * 1000000.0 / r.duration_usec"

static const char history_sql[] =
        "SELECT r.started_usec, " ENV_KERNEL ", " ENV_FIRMWARE ", "
        "CASE ?15 WHEN 'iops' THEN " FIGURE_IOPS " WHEN 'ops_per_s' THEN " FIGURE_OPS_PER_S
        " ELSE " FIGURE_MB_PER_S " END, r.lat_p99_ns, "
        "EXISTS (SELECT 1 FROM regressions AS g WHERE g.run_id = r.id AND g.metric = ?15), "
        "EXISTS (SELECT 1 FROM regressions AS g WHERE g.run_id = r.id AND g.metric = 'lat_p99_ns') "
        "FROM runs AS r INDEXED BY runs_series WHERE " COMPARABLE_WHERE
        "ORDER BY r.started_usec DESC, r.id DESC LIMIT ?16";

/* The run itself: its keys (columns 0..13, KEY_*), then what the check needs. */
static const char run_sql[] =
        "SELECT r.device_id, r.workload, r.block_size, r.queue_depth, r.jobs, r.size, r.direct, r.sync, "
        "r.pattern, r.rwmix_read, r.fs_type, r.layout, r.started_usec, r.id, "
        "r.status, r.duration_usec, " ENV_KERNEL ", " ENV_FIRMWARE ", "
        FIGURE_MB_PER_S ", " FIGURE_IOPS ", " FIGURE_OPS_PER_S ", r.lat_p99_ns, d.identity, r.device_name "
        "FROM runs AS r LEFT JOIN devices AS d ON d.id = r.device_id WHERE r.id = ?";

typedef struct RunKeys {
        sqlite3_value *key[_KEY_MAX];
        bool checkable;         /* succeeded, with a device and a duration */
        uint64_t started_usec;
        char *workload;
        char *kernel, *firmware;
        double figure[_REGRESS_METRIC_MAX];
        bool have[_REGRESS_METRIC_MAX];
        char *identity, *device_name;
} RunKeys;

static void run_keys_clear(RunKeys *k) {
        for (size_t i = 0; i < _KEY_MAX; i++)
                sqlite3_value_free(k->key[i]);
        free(k->workload);
        free(k->kernel);
        free(k->firmware);
        free(k->identity);
        free(k->device_name);
        *k = (RunKeys) {};
}

static int strdup_column(sqlite3_stmt *st, int i, char **ret) {
        const char *s = column_text(st, i);

        *ret = NULL;
        if (!s)
                return 0;
        *ret = strdup(s);
        return *ret ? 0 : -ENOMEM;
}

static int run_keys_load(Db *db, uint64_t run_id, RunKeys *ret) {
        _cleanup_finalize_ sqlite3_stmt *st = NULL;
        RunKeys k = {};
        RegressMetric main;
        Binder b;
        int r;

        r = db_prepare(db, run_sql, &st);
        if (r < 0)
                return r;
        b = binder(st);
        bind_u64(&b, run_id);
        r = db_step_found_one(db, &b, st, "run", run_id);
        if (r < 0)
                return r;

        for (int i = 0; i < _KEY_MAX; i++)
                if (!(k.key[i] = sqlite3_value_dup(sqlite3_column_value(st, i)))) {
                        run_keys_clear(&k);
                        return -ENOMEM;
                }
        k.started_usec = column_u64(st, KEY_STARTED);
        if (strdup_column(st, KEY_WORKLOAD, &k.workload) < 0 || strdup_column(st, 16, &k.kernel) < 0 ||
            strdup_column(st, 17, &k.firmware) < 0 || strdup_column(st, 22, &k.identity) < 0 ||
            strdup_column(st, 23, &k.device_name) < 0) {
                run_keys_clear(&k);
                return -ENOMEM;
        }
        k.checkable = streq_ptr(column_text(st, 14), "succeeded") &&
                      sqlite3_column_type(st, KEY_DEVICE) == SQLITE_INTEGER &&
                      sqlite3_column_type(st, 15) == SQLITE_INTEGER && sqlite3_column_int64(st, 15) > 0 &&
                      k.workload && k.identity;

        main = regress_main_metric(k.workload);
        if (main >= 0) {
                int col = main == REGRESS_METRIC_MB_PER_S ? 18 : main == REGRESS_METRIC_IOPS ? 19 : 20;
                k.figure[main] = sqlite3_column_double(st, col);
                k.have[main] = sqlite3_column_type(st, col) != SQLITE_NULL && isfinite(k.figure[main]);
        }
        if (sqlite3_column_type(st, 21) == SQLITE_INTEGER && sqlite3_column_int64(st, 21) > 0) {
                k.figure[REGRESS_METRIC_LAT_P99_NS] = (double) sqlite3_column_int64(st, 21);
                k.have[REGRESS_METRIC_LAT_P99_NS] = true;
        }
        *ret = k;
        return 0;
}

/* The comparable runs of k, newest first, at most limit; metric is ?15. */
static int comparable_prepare(Db *db, const char *sql, const RunKeys *k, RegressMetric metric, uint64_t limit,
                              sqlite3_stmt **ret) {
        _cleanup_finalize_ sqlite3_stmt *st = NULL;
        int r, rc = SQLITE_OK;

        r = db_prepare(db, sql, &st);
        if (r < 0)
                return r;
        for (int i = 0; i < _KEY_MAX && rc == SQLITE_OK; i++)
                rc = sqlite3_bind_value(st, i + 1, k->key[i]);
        if (rc == SQLITE_OK)
                rc = sqlite3_bind_text(st, 15, regress_metric_to_string(metric) ?: "mb_per_s", -1, SQLITE_STATIC);
        if (rc == SQLITE_OK)
                rc = sqlite3_bind_int64(st, 16, (int64_t) MIN(limit, (uint64_t) INT64_MAX));
        if (rc != SQLITE_OK)
                return db_fail(db, rc);
        *ret = TAKE_PTR(st);
        return 0;
}

/* The comparable history, oldest first, as the detector takes it: the main figure's and p99's. */
typedef struct History {
        size_t n, cap;
        uint64_t *started;
        char **kernel, **firmware, **segment;
        RegressPoint *main, *p99;
        size_t n_main, n_p99;
} History;

static void history_clear(History *h) {
        for (size_t i = 0; i < h->cap; i++) {
                free(h->kernel ? h->kernel[i] : NULL);
                free(h->firmware ? h->firmware[i] : NULL);
                free(h->segment ? h->segment[i] : NULL);
        }
        free(h->started);
        free(h->kernel);
        free(h->firmware);
        free(h->segment);
        free(h->main);
        free(h->p99);
        *h = (History) {};
}

static char *segment_key(const char *kernel, const char *firmware) {
        char *s;

        if (asprintf(&s, "%s\n%s", kernel ?: "", firmware ?: "") < 0)
                return NULL;
        return s;
}

static int history_load(Db *db, const RunKeys *k, RegressMetric main, unsigned window, History *ret) {
        _cleanup_finalize_ sqlite3_stmt *st = NULL;
        _cleanup_(history_clear) History h = {};
        size_t max = (size_t) window + 1;
        int r;

        h.started = calloc(max, sizeof(uint64_t));
        h.kernel = calloc(max, sizeof(char *));
        h.firmware = calloc(max, sizeof(char *));
        h.segment = calloc(max, sizeof(char *));
        h.main = calloc(max, sizeof(RegressPoint));
        h.p99 = calloc(max, sizeof(RegressPoint));
        h.cap = max;
        if (!h.started || !h.kernel || !h.firmware || !h.segment || !h.main || !h.p99)
                return -ENOMEM;

        r = comparable_prepare(db, history_sql, k, main, max, &st);
        if (r < 0)
                return r;
        /* Newest first from SQLite; stored from the end so that the arrays are oldest first. */
        for (;;) {
                size_t i;

                r = db_step_row(db, st);
                if (r < 0)
                        return r;
                if (r == 0 || h.n == max)
                        break;
                i = max - 1 - h.n;
                h.started[i] = column_u64(st, 0);
                if (strdup_column(st, 1, &h.kernel[i]) < 0 || strdup_column(st, 2, &h.firmware[i]) < 0 ||
                    !(h.segment[i] = segment_key(h.kernel[i], h.firmware[i])))
                        return -ENOMEM;
                h.n++;
                h.main[i] = (RegressPoint) { .value = sqlite3_column_double(st, 3), .segment = h.segment[i],
                                             .flagged = sqlite3_column_int(st, 5) != 0 };
                h.p99[i] = (RegressPoint) { .value = (double) sqlite3_column_int64(st, 4), .segment = h.segment[i],
                                            .flagged = sqlite3_column_int(st, 6) != 0 };
                if (sqlite3_column_type(st, 3) == SQLITE_NULL || !isfinite(h.main[i].value))
                        h.main[i].segment = NULL, h.main[i].value = NAN;
                if (sqlite3_column_type(st, 4) != SQLITE_INTEGER || sqlite3_column_int64(st, 4) <= 0)
                        h.p99[i].value = NAN;
        }
        /* Move the rows to the front when fewer than max came. */
        if (h.n < max) {
                size_t off = max - h.n;
                memmove(h.started, h.started + off, h.n * sizeof(uint64_t));
                memmove(h.kernel, h.kernel + off, h.n * sizeof(char *));
                memmove(h.firmware, h.firmware + off, h.n * sizeof(char *));
                memmove(h.segment, h.segment + off, h.n * sizeof(char *));
                memmove(h.main, h.main + off, h.n * sizeof(RegressPoint));
                memmove(h.p99, h.p99 + off, h.n * sizeof(RegressPoint));
                for (size_t i = h.n; i < max; i++)
                        h.kernel[i] = h.firmware[i] = h.segment[i] = NULL;
        }
        *ret = h;
        h = (History) {};
        return 0;
}

/* The points of one figure with a value (a run without a p99 is left out of p99's history). */
static size_t points_compact(RegressPoint *p, size_t n) {
        size_t k = 0;

        for (size_t i = 0; i < n; i++)
                if (isfinite(p[i].value))
                        p[k++] = p[i];
        return k;
}

/* What runs.baseline_segment says of the run, from the comparable run before it. */
static const char *segment_text(const RunKeys *k, const History *h) {
        bool kernel, firmware;

        if (h->n == 0)
                return "first";
        kernel = !streq_ptr(h->kernel[h->n - 1], k->kernel);
        firmware = !streq_ptr(h->firmware[h->n - 1], k->firmware);
        return kernel && firmware ? "kernel+firmware" : kernel ? "kernel" : firmware ? "firmware" : "continues";
}

/* Where the run's segment started: the oldest of the comparable runs before it with its kernel and
 * firmware, with none of another between. */
static int segment_start(Db *db, const RunKeys *k, uint64_t *ret) {
        static const char sql[] =
                "SELECT r.started_usec, " ENV_KERNEL ", " ENV_FIRMWARE " FROM runs AS r INDEXED BY runs_series WHERE " COMPARABLE_WHERE
                "ORDER BY r.started_usec DESC, r.id DESC LIMIT ?16";
        _cleanup_finalize_ sqlite3_stmt *st = NULL;
        uint64_t start = k->started_usec;
        int r;

        r = comparable_prepare(db, sql, k, REGRESS_METRIC_MB_PER_S, DB_REGRESS_SEGMENT_SCAN_MAX, &st);
        if (r < 0)
                return r;
        for (;;) {
                r = db_step_row(db, st);
                if (r < 0)
                        return r;
                if (r == 0 || !streq_ptr(column_text(st, 1), k->kernel) || !streq_ptr(column_text(st, 2), k->firmware))
                        break;
                start = column_u64(st, 0);
        }
        *ret = start;
        return 0;
}

typedef struct Flag {
        RegressMetric metric;
        double value;
        RegressResult res;
        uint64_t id;
} Flag;

static int store(Db *db, uint64_t run_id, const char *segment, Flag *flags, size_t n_flags, uint64_t segment_usec,
                 uint64_t now, const char *method, size_t *ret_stored) {
        _cleanup_finalize_ sqlite3_stmt *up = NULL, *ins = NULL;
        size_t stored = 0;
        Binder b;
        int r;

        r = db_prepare(db, "UPDATE runs SET baseline_segment = ? WHERE id = ?", &up);
        if (r >= 0 && n_flags > 0)
                r = db_prepare(db,
                               "INSERT INTO regressions (run_id, metric, value, baseline_median, baseline_mad, "
                               "baseline_n, change_pct, segment_started_usec, detected_usec, method) "
                               "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (run_id, metric) DO NOTHING",
                               &ins);
        if (r < 0)
                return r;

        r = db_begin(db);
        if (r < 0)
                return r;
        b = binder(up);
        bind_text(&b, segment);
        bind_u64(&b, run_id);
        r = binder_done(db, &b);
        if (r >= 0)
                r = db_step_done(db, up);
        for (size_t i = 0; r >= 0 && i < n_flags; i++) {
                b = binder(ins);
                bind_u64(&b, run_id);
                bind_text(&b, regress_metric_to_string(flags[i].metric));
                bind_double(&b, flags[i].value);
                bind_double(&b, flags[i].res.median);
                bind_double(&b, flags[i].res.mad_scaled);
                bind_u64(&b, flags[i].res.baseline_n);
                bind_double(&b, flags[i].res.change_pct);
                bind_u64(&b, segment_usec);
                bind_u64(&b, now);
                bind_text(&b, method);
                r = binder_done(db, &b);
                if (r >= 0)
                        r = db_step_done(db, ins);
                /* Checked before: the flag is there already, and is not announced twice. */
                flags[i].id = r >= 0 && sqlite3_changes(db->sqlite) > 0 ? (uint64_t) sqlite3_last_insert_rowid(db->sqlite)
                                                                        : 0;
                stored += flags[i].id > 0;
                sqlite3_reset(ins);
        }
        if (r >= 0)
                r = db_commit(db);
        if (r < 0) {
                db_rollback(db);
                return r;
        }
        *ret_stored = stored;
        return 0;
}

int db_regress_check(Db *db, uint64_t run_id, const RegressConfig *c, uint64_t now_usec,
                     int (*cb)(const DbRegression *g, void *userdata), void *userdata, const char **ret_segment) {
        _cleanup_(run_keys_clear) RunKeys k = {};
        _cleanup_(history_clear) History h = {};
        _cleanup_free_ char *method = NULL, *segment = NULL;
        const RegressMetric order[] = { REGRESS_METRIC_MB_PER_S, REGRESS_METRIC_IOPS, REGRESS_METRIC_OPS_PER_S,
                                        REGRESS_METRIC_LAT_P99_NS };
        RegressMetric main;
        Flag flags[_REGRESS_METRIC_MAX];
        size_t n_flags = 0, stored = 0;
        uint64_t segment_usec = 0;
        const char *text;
        int r;

        if (regress_config_check(c) < 0)
                return db_fail_msg(db, -EINVAL, "invalid regression configuration");
        if (ret_segment)
                *ret_segment = NULL;

        r = run_keys_load(db, run_id, &k);
        if (r < 0)
                return r;
        if (!k.checkable)
                return 0;

        main = regress_main_metric(k.workload);
        r = history_load(db, &k, main, c->window, &h);
        if (r < 0)
                return r;
        segment = segment_key(k.kernel, k.firmware);
        if (!segment)
                return -ENOMEM;
        text = segment_text(&k, &h);

        for (size_t i = 0; i < ELEMENTSOF(order); i++) {
                RegressMetric m = order[i];
                RegressPoint *p = m == REGRESS_METRIC_LAT_P99_NS ? h.p99 : h.main;
                RegressResult res;
                size_t n;

                if (!k.have[m] || (m != REGRESS_METRIC_LAT_P99_NS && m != main))
                        continue;
                n = points_compact(p, h.n);
                r = regress_detect(c, regress_metric_higher_is_worse(m), p, n, k.figure[m], segment, &res);
                if (r < 0)
                        return db_fail_msg(db, r, "cannot judge %s of run %" PRIu64, regress_metric_to_string(m),
                                           run_id);
                if (res.verdict == REGRESS_FLAGGED)
                        flags[n_flags++] = (Flag) { .metric = m, .value = k.figure[m], .res = res };
        }

        if (n_flags > 0) {
                r = segment_start(db, &k, &segment_usec);
                if (r < 0)
                        return r;
                r = regress_config_method(c, &method);
                if (r < 0)
                        return r;
        }
        r = store(db, run_id, text, flags, n_flags, segment_usec, now_usec, method, &stored);
        if (r < 0)
                return r;
        if (ret_segment)
                *ret_segment = text;

        for (size_t i = 0; cb && i < n_flags; i++) {
                DbRegression g;

                if (flags[i].id == 0)
                        continue;
                g = (DbRegression) {
                        .id = flags[i].id,
                        .run_id = run_id,
                        .metric = regress_metric_to_string(flags[i].metric),
                        .value = flags[i].value,
                        .baseline_median = flags[i].res.median,
                        .baseline_mad = flags[i].res.mad_scaled,
                        .baseline_n = flags[i].res.baseline_n,
                        .change_pct = flags[i].res.change_pct,
                        .segment_started_usec = segment_usec,
                        .detected_usec = now_usec,
                        .method = method,
                        .workload = k.workload,
                        .device_identity = k.identity,
                        .device_name = k.device_name,
                };
                r = cb(&g, userdata);
                if (r < 0)
                        return r;
        }
        return (int) stored;
}

int db_query_regressions(Db *db, const DbRegressionFilter *f, DbRowCallback cb, void *userdata) {
        static const DbRegressionFilter no_filter = {};
        _cleanup_finalize_ sqlite3_stmt *st = NULL;
        uint64_t limit;
        Binder b;
        int r;

        if (!f)
                f = &no_filter;
        /* The regressions table holds flags only, a small table: the filters are fixed terms that
         * a NULL parameter switches off. */
        r = db_prepare(db,
                       "SELECT g.id AS id, g.run_id AS run_id, g.metric AS metric, g.value AS value, "
                       "g.baseline_median AS baseline_median, g.baseline_mad AS baseline_mad, "
                       "g.baseline_n AS baseline_n, g.change_pct AS change_pct, "
                       "g.segment_started_usec AS segment_started_usec, g.detected_usec AS detected_usec, "
                       "g.method AS method, r.started_usec AS started_usec, r.job_id AS job_id, "
                       "r.workload AS workload, r.block_size AS block_size, r.queue_depth AS queue_depth, "
                       "r.jobs AS jobs, r.fs_type AS fs_type, r.layout AS layout, r.target AS target, "
                       "r.label AS label, r.device_id AS device_id, r.device_name AS device_name, "
                       "d.identity AS device_identity, d.model AS device_model "
                       "FROM regressions AS g JOIN runs AS r ON r.id = g.run_id "
                       "LEFT JOIN devices AS d ON d.id = r.device_id "
                       "WHERE (?1 IS NULL OR r.device_name = ?1 OR d.identity = ?1) "
                       "AND (?2 IS NULL OR r.workload = ?2) AND (?3 IS NULL OR g.metric = ?3) "
                       "AND (?4 IS NULL OR g.run_id = ?4) AND (?5 IS NULL OR r.started_usec >= ?5) "
                       "AND (?6 IS NULL OR r.started_usec < ?6) "
                       "ORDER BY r.started_usec DESC, g.run_id DESC, g.metric LIMIT ?7 OFFSET ?8",
                       &st);
        if (r < 0)
                return r;

        limit = f->limit == 0 ? DB_REGRESS_LIMIT_DEFAULT : MIN(f->limit, (uint64_t) DB_REGRESS_LIMIT_MAX);
        b = binder(st);
        bind_text(&b, f->device);
        bind_text(&b, f->workload);
        bind_text(&b, f->metric);
        bind_u64_or_null(&b, f->run);
        bind_u64_or_null(&b, f->since_usec);
        bind_u64_or_null(&b, f->until_usec);
        bind_u64(&b, limit);
        bind_u64(&b, f->offset);
        r = binder_done(db, &b);
        if (r < 0)
                return r;
        return db_emit_rows(db, st, cb, userdata);
}
