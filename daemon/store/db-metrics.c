/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The latest figures of every series, for benchd's Prometheus textfile (bus/manager-metrics.c):
 * the newest succeeded run of each (device, workload, block_size, queue_depth, jobs, fs_type,
 * layout) measured on this host, found in one statement: runs imported from other hosts
 * (origin_host) are theirs to export, or a fleet would count them twice. The grouping walks the
 * partial index runs_local_series (schema/0015-local-metrics.sql: the series key and
 * started_usec, this host's succeeded runs only), named with INDEXED BY because the planner
 * otherwise prefers runs_status and sorts; the newest `limit` groups are then joined with their
 * run, device and job by primary key. This host's runs by status are counted on runs_status
 * (status, origin_host). Both walk the whole history's index once, reading no run rows, after runs
 * end and at start-up (docs/fleet.md "Many machines").
 */
#include <errno.h>
#include <math.h>
#include <sqlite3.h>
#include <string.h>

#include "shared/fleet-interval.h"
#include "store/db-internal.h"
#include "store/db.h"

static const char latest_sql[] =
        /* Grouped on the raw columns in runs_series' order (no sort), then NULL and "" merged, as
         * they are one label value. */
        "WITH grouped AS ("
        "  SELECT id, MAX(started_usec) AS started_usec, device_id, workload, block_size, queue_depth, jobs, "
        "         COALESCE(fs_type, '') AS fs, COALESCE(layout, '') AS lay "
        "  FROM runs INDEXED BY runs_local_series WHERE status = 'succeeded' AND origin_host IS NULL "
        "  GROUP BY device_id, workload, block_size, queue_depth, jobs, fs_type, layout), "
        "latest AS ("
        "  SELECT id, MAX(started_usec) AS started_usec FROM grouped "
        "  GROUP BY device_id, workload, block_size, queue_depth, jobs, fs, lay "
        "  ORDER BY started_usec DESC LIMIT ?1) "
        "SELECT r.id, COALESCE(d.identity, ''), COALESCE(d.last_name, r.device_name, ''), r.workload, "
        "       r.block_size, r.queue_depth, r.jobs, COALESCE(r.fs_type, ''), COALESCE(r.layout, ''), "
        "       COALESCE(j.profile, ''), r.step, r.started_usec, "
        "       CASE WHEN r.duration_usec > 0 THEN "
        "            (COALESCE(r.bytes_read, 0) + COALESCE(r.bytes_written, 0)) * 1000000.0 / r.duration_usec END, "
        "       CASE WHEN r.duration_usec > 0 THEN "
        "            (COALESCE(r.ios_read, 0) + COALESCE(r.ios_written, 0)) * 1000000.0 / r.duration_usec END, "
        "       r.lat_p50_ns / 1e9, r.lat_p99_ns / 1e9, r.lat_p999_ns / 1e9, "
        "       r.iowait_pct / 100.0, r.dev_util_pct / 100.0, "
        "       (SELECT group_concat(g.metric) FROM regressions AS g WHERE g.run_id = r.id), "
        "       CASE WHEN r.lat_mean_ns IS NOT NULL THEN COALESCE(r.ios_read, 0) + COALESCE(r.ios_written, 0) END, "
        "       r.lat_mean_ns * (COALESCE(r.ios_read, 0) + COALESCE(r.ios_written, 0)) / 1e9 "
        "FROM latest JOIN runs AS r ON r.id = latest.id "
        "LEFT JOIN devices AS d ON d.id = r.device_id "
        "LEFT JOIN jobs AS j ON j.id = r.job_id "
        "ORDER BY r.started_usec DESC, r.id DESC";

static double column_double_or_nan(sqlite3_stmt *st, int i) {
        return sqlite3_column_type(st, i) == SQLITE_NULL ? NAN : sqlite3_column_double(st, i);
}

static const char *column_text0(sqlite3_stmt *st, int i) {
        return column_text(st, i) ?: "";
}

int db_metrics_latest(Db *db, unsigned limit, int (*cb)(const DbMetricSeries *s, void *userdata),
                      void *userdata) {
        _cleanup_finalize_ sqlite3_stmt *st = NULL;
        int r, rc, n = 0;

        if (limit == 0 || limit > DB_METRICS_SERIES_MAX)
                limit = DB_METRICS_SERIES_MAX;
        r = db_prepare(db, latest_sql, &st);
        if (r < 0)
                return r;
        rc = sqlite3_bind_int64(st, 1, limit);
        if (rc != SQLITE_OK)
                return db_fail(db, rc);

        while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
                const char *flags = column_text(st, 19);
                DbMetricSeries s = {
                        .run_id = column_u64(st, 0),
                        .device_identity = column_text0(st, 1),
                        .device_name = column_text0(st, 2),
                        .workload = column_text0(st, 3),
                        .block_size = column_u64(st, 4),
                        .queue_depth = column_u64(st, 5),
                        .jobs = column_u64(st, 6),
                        .fs_type = column_text0(st, 7),
                        .layout = column_text0(st, 8),
                        .profile = column_text0(st, 9),
                        .step = column_u64(st, 10),
                        .started_usec = column_u64(st, 11),
                        .bytes_per_second = column_double_or_nan(st, 12),
                        .iops = column_double_or_nan(st, 13),
                        .lat_p50_seconds = column_double_or_nan(st, 14),
                        .lat_p99_seconds = column_double_or_nan(st, 15),
                        .lat_p999_seconds = column_double_or_nan(st, 16),
                        .iowait_ratio = column_double_or_nan(st, 17),
                        .device_util_ratio = column_double_or_nan(st, 18),
                        .lat_count = column_double_or_nan(st, 20),
                        .lat_sum_seconds = column_double_or_nan(st, 21),
                };

                /* group_concat of the flagged metric names: "mb_per_s,lat_p99_ns". */
                for (const char *p = flags; p && *p;) {
                        size_t len = strcspn(p, ",");
                        for (RegressMetric m = 0; m < _REGRESS_METRIC_MAX; m++) {
                                const char *name = regress_metric_to_string(m);
                                if (strlen(name) == len && strncmp(p, name, len) == 0)
                                        s.regressed[m] = true;
                        }
                        p += len;
                        if (*p == ',')
                                p++;
                }

                r = cb(&s, userdata);
                if (r < 0)
                        return r;
                n++;
        }
        if (rc != SQLITE_DONE)
                return db_fail(db, rc);
        return n;
}

int db_metrics_run_counts(Db *db, uint64_t ret_counts[static 4]) {
        static const char *const statuses[4] = { "succeeded", "failed", "cancelled", "interrupted" };
        _cleanup_finalize_ sqlite3_stmt *st = NULL;
        uint64_t counts[4] = {};
        int r, rc;

        r = db_prepare(db, "SELECT status, COUNT(*) FROM runs WHERE origin_host IS NULL GROUP BY status", &st);
        if (r < 0)
                return r;
        while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
                const char *status = column_text0(st, 0);
                for (size_t i = 0; i < 4; i++)
                        if (streq(status, statuses[i]))
                                counts[i] = column_u64(st, 1);
        }
        if (rc != SQLITE_DONE)
                return db_fail(db, rc);
        memcpy(ret_counts, counts, sizeof counts);
        return 0;
}

/* The newest fleet step of each series with two hosts' succeeded runs or more (runs_fleet: the
 * fleet runs only). Bare columns of a MAX() aggregate are those of the row with the maximum. */
static const char fleet_steps_sql[] =
        "WITH steps AS ("
        "  SELECT fleet_uuid, step, workload, block_size, queue_depth, jobs, COALESCE(fs_type, '') AS fs, "
        "         MAX(started_usec) AS started_usec "
        "  FROM runs INDEXED BY runs_fleet WHERE fleet_uuid IS NOT NULL AND status = 'succeeded' "
        "  GROUP BY fleet_uuid, step HAVING COUNT(DISTINCT fleet_host) >= 2) "
        "SELECT fleet_uuid, step, workload, block_size, queue_depth, jobs, fs, MAX(started_usec) AS started "
        "FROM steps GROUP BY workload, block_size, queue_depth, jobs, fs "
        "ORDER BY started DESC LIMIT ?1";

/* One run per host (its first, should a host have given two). */
static const char fleet_runs_sql[] =
        "SELECT MIN(id), started_usec - COALESCE(fleet_clock_offset_us, 0) FROM runs INDEXED BY runs_fleet "
        "WHERE fleet_uuid = ?1 AND step = ?2 AND status = 'succeeded' GROUP BY fleet_host";

static const char fleet_samples_sql[] =
        "SELECT t_ms, interval_us, COALESCE(bytes_read, 0) + COALESCE(bytes_written, 0), "
        "       COALESCE(ios_read, 0) + COALESCE(ios_written, 0) "
        "FROM samples WHERE run_id = ?1 ORDER BY t_ms";

typedef struct FleetHostLoad {
        FleetSpan *spans;
        size_t n, allocated;
} FleetHostLoad;

static int fleet_step_sum(Db *db, DbFleetSeries *s) {
        _cleanup_finalize_ sqlite3_stmt *runs = NULL, *samples = NULL;
        FleetHostLoad *load = NULL;
        FleetHostSpans *hosts = NULL;
        size_t n = 0;
        int64_t cs, ce;
        int r, rc;

        r = db_prepare(db, fleet_runs_sql, &runs);
        if (r < 0)
                return r;
        r = db_prepare(db, fleet_samples_sql, &samples);
        if (r < 0)
                return r;
        if (sqlite3_bind_text(runs, 1, s->fleet_uuid, -1, SQLITE_TRANSIENT) != SQLITE_OK ||
            sqlite3_bind_int64(runs, 2, (sqlite3_int64) s->step) != SQLITE_OK)
                return db_fail(db, sqlite3_errcode(db->sqlite));
        while ((rc = sqlite3_step(runs)) == SQLITE_ROW) {
                FleetHostLoad *l;
                void *p;

                p = realloc(hosts, (n + 1) * sizeof(FleetHostSpans));
                if (!p) {
                        r = -ENOMEM;
                        goto finish;
                }
                hosts = p;
                p = realloc(load, (n + 1) * sizeof(FleetHostLoad));
                if (!p) {
                        r = -ENOMEM;
                        goto finish;
                }
                load = p;
                l = &load[n];
                *l = (FleetHostLoad) {};
                hosts[n] = (FleetHostSpans) { .base = sqlite3_column_int64(runs, 1) };
                n++;
                sqlite3_reset(samples);
                sqlite3_bind_int64(samples, 1, sqlite3_column_int64(runs, 0));
                while ((rc = sqlite3_step(samples)) == SQLITE_ROW) {
                        FleetSpan sp = {
                                .end = hosts[n - 1].base + sqlite3_column_int64(samples, 0) * 1000,
                                .bytes = column_u64(samples, 2),
                                .ios = column_u64(samples, 3),
                        };

                        sp.begin = sp.end - sqlite3_column_int64(samples, 1);
                        if (sp.begin >= sp.end)
                                continue;
                        if (l->n == l->allocated) {
                                size_t a = l->allocated ? l->allocated * 2 : 64;
                                p = realloc(l->spans, a * sizeof(FleetSpan));
                                if (!p) {
                                        r = -ENOMEM;
                                        goto finish;
                                }
                                l->spans = p;
                                l->allocated = a;
                        }
                        l->spans[l->n++] = sp;
                }
                if (rc != SQLITE_DONE) {
                        r = db_fail(db, rc);
                        goto finish;
                }
        }
        if (rc != SQLITE_DONE) {
                r = db_fail(db, rc);
                goto finish;
        }
        for (size_t i = 0; i < n; i++) {
                hosts[i].spans = load[i].spans;
                hosts[i].n_spans = load[i].n;
                hosts[i].in = load[i].n > 0;
        }
        s->hosts = 0;
        s->bytes_per_second = s->iops = 0;
        if (fleet_common_interval(hosts, n, &cs, &ce))
                for (size_t i = 0; i < n; i++) {
                        if (!hosts[i].in)
                                continue;
                        s->hosts++;
                        s->bytes_per_second += (double) hosts[i].bytes * 1e6 / (double) hosts[i].usec;
                        s->iops += (double) hosts[i].ios * 1e6 / (double) hosts[i].usec;
                }
        r = 0;
finish:
        for (size_t i = 0; i < n; i++)
                free(load[i].spans);
        free(load);
        free(hosts);
        return r;
}

int db_metrics_fleet(Db *db, int (*cb)(const DbFleetSeries *s, void *userdata), void *userdata) {
        _cleanup_finalize_ sqlite3_stmt *st = NULL;
        int r, rc, n = 0;

        r = db_prepare(db, fleet_steps_sql, &st);
        if (r < 0)
                return r;
        rc = sqlite3_bind_int64(st, 1, DB_METRICS_FLEET_SERIES_MAX);
        if (rc != SQLITE_OK)
                return db_fail(db, rc);
        while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
                DbFleetSeries s = {
                        .fleet_uuid = column_text0(st, 0),
                        .step = column_u64(st, 1),
                        .workload = column_text0(st, 2),
                        .block_size = column_u64(st, 3),
                        .queue_depth = column_u64(st, 4),
                        .jobs = column_u64(st, 5),
                        .fs_type = column_text0(st, 6),
                        .started_usec = column_u64(st, 7),
                };

                r = fleet_step_sum(db, &s);
                if (r < 0)
                        return r;
                r = cb(&s, userdata);
                if (r < 0)
                        return r;
                n++;
        }
        if (rc != SQLITE_DONE)
                return db_fail(db, rc);
        return n;
}
