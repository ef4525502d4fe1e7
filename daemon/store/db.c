/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The SQLite store, its writing half: opening and migrating the file, and writing jobs, runs,
 * samples and histograms (devices: db-devices.c). The reads the bus layer asks for (jobs at start-up, history
 * rows as generic named fields) are in db-query.c; both share the Db and its helpers through
 * db-internal.h.
 *
 * Shape: one connection, used from the daemon's single thread. The statements on the hot paths
 * (sample and histogram inserts, state changes) are prepared once and cached in the Db; the
 * queries that call back into the caller are prepared per call, so a callback may use the Db
 * again (even the same query) without tripping over a statement that is still stepping. Values
 * are only ever bound, never formatted into SQL. SQLite result codes become negative errnos in
 * db_fail() and nowhere else; the SQLite message of the last failure is kept for db_last_error().
 *
 * Migrations (schema/NNNN-*.sql, embedded at build time) are applied forward only, one
 * transaction each, driven by PRAGMA user_version; a database from a newer benchd is refused
 * before anything is written to it.
 */

#include <assert.h>
#include <errno.h>
#include <inttypes.h>
#include <json-c/json.h>
#include <math.h>
#include <sqlite3.h>
#include <systemd/sd-id128.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/db-internal.h"
#include "store/db.h"
#include "shared/util.h"
#include "schema-migrations.h"
#include "shared/histogram.h"
#include "shared/job-state.h"
#include "shared/json-util.h"
#include "shared/served.h"

#define DB_BUSY_TIMEOUT_MS 5000
/* Of a new file; chosen by measurement (tests/bench/history, schema/README.md "Storage"). */
#define DB_PAGE_SIZE 4096

static const char *const stmt_sql[_STMT_MAX] = {
        [STMT_BEGIN] = "BEGIN IMMEDIATE",
        [STMT_COMMIT] = "COMMIT",
        [STMT_ROLLBACK] = "ROLLBACK",
        [STMT_JOB_INSERT] =
                "INSERT INTO jobs (state, profile, workload, spec, target, label, submitted_by, "
                "submitted_usec, steps, triggered_by) VALUES ('queued', ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        /* 0 for a time means "leave as it is", so a caller finishing a job need not remember
         * when it started. */
        [STMT_JOB_SET_STATE] =
                "UPDATE jobs SET state = ?1, started_usec = COALESCE(?2, started_usec), "
                "finished_usec = COALESCE(?3, finished_usec), error = ?4 WHERE id = ?5",
        /* [STMT_RUN_BEGIN]: run_begin_sql(), from the spec registry's runs columns. */
        [STMT_RUN_SET_FS] =
                "UPDATE runs SET mkfs_command = ?, mkfs_output = ?, fs_uuid = ?, mkfs_usec = ?, fs_size_bytes = ?, "
                "fs_used_bytes = ?, fs_avail_bytes = ?, fs_inodes = ?, fs_inodes_free = ?, fs_commands = ?, "
                "layout_commands = ?, md_chunk_bytes = ?, md_resync_usec = ? WHERE id = ?",
        [STMT_RUN_FINISH] =
                "UPDATE runs SET status = ?, error = ? WHERE id = ?",
        /* started_usec becomes the start of the measured phase, so that started_usec and
         * duration_usec describe the same interval. */
        [STMT_RUN_FINISH_RESULT] =
                "UPDATE runs SET status = ?, error = ?, started_usec = COALESCE(?, started_usec), "
                "duration_usec = ?, bytes_read = ?, bytes_written = ?, ios_read = ?, "
                "ios_written = ?, ops = ?, lat_min_ns = ?, lat_mean_ns = ?, lat_stddev_ns = ?, "
                "lat_p50_ns = ?, lat_p90_ns = ?, lat_p95_ns = ?, lat_p99_ns = ?, lat_p999_ns = ?, "
                "lat_p9999_ns = ?, lat_max_ns = ?, iowait_pct = ?, cpu_user_pct = ?, "
                "cpu_sys_pct = ?, dev_util_pct = ?, device_name = COALESCE(device_name, ?), "
                "process_user_usec = ?, process_sys_usec = ?, device_bytes_read = ?, device_bytes_written = ?, "
                "backing_bytes_read = ?, backing_bytes_written = ?, served_from = ? "
                "WHERE id = ?",
        [STMT_RUN_INTERRUPT_STALE] =
                "UPDATE runs SET status = 'interrupted', "
                "error = COALESCE(error, 'benchd stopped while the run was in progress') "
                "WHERE status = 'running'",
        [STMT_RUN_EXISTS] = "SELECT 1 FROM runs WHERE id = ?",
        /* The t_ms a sample's interval is derived from (0 for the first), and, for a sample put
         * before others, the next one's interval made explicit, since its previous one changes. */
        [STMT_SAMPLE_PREV] =
                "SELECT COALESCE(max(t_ms), 0) FROM sample_data WHERE run_id = ? AND t_ms < ?",
        [STMT_SAMPLE_KEEP_NEXT] =
                "UPDATE sample_data SET interval_us = 1000 * (t_ms - ?3) WHERE run_id = ?1 AND interval_us IS NULL "
                "AND t_ms = (SELECT min(t_ms) FROM sample_data WHERE run_id = ?1 AND t_ms > ?2)",
        [STMT_HISTOGRAM_DELETE] = "DELETE FROM run_histograms WHERE run_id = ?",
        /* Buckets beyond INT64_MAX ns (292 years) are folded into one row at INT64_MAX. */
        [STMT_HISTOGRAM_INSERT] =
                "INSERT INTO run_histograms (run_id, upper_ns, count) VALUES (?, ?, ?) "
                "ON CONFLICT (run_id, upper_ns) DO UPDATE SET count = count + excluded.count",
        [STMT_DEVICE_UPSERT] =
                "INSERT INTO devices (identity, model, vendor, serial, wwn, firmware, size, "
                "rotational, logical_block_size, physical_block_size, first_seen_usec, "
                "last_seen_usec, last_name) "
                "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?11, ?12) "
                "ON CONFLICT (identity) DO UPDATE SET "
                "model = COALESCE(excluded.model, model), "
                "vendor = COALESCE(excluded.vendor, vendor), "
                "serial = COALESCE(excluded.serial, serial), "
                "wwn = COALESCE(excluded.wwn, wwn), "
                "firmware = COALESCE(excluded.firmware, firmware), "
                "size = COALESCE(excluded.size, size), "
                "rotational = COALESCE(excluded.rotational, rotational), "
                "logical_block_size = COALESCE(excluded.logical_block_size, logical_block_size), "
                "physical_block_size = COALESCE(excluded.physical_block_size, physical_block_size), "
                "last_seen_usec = MAX(last_seen_usec, excluded.last_seen_usec), "
                "last_name = COALESCE(excluded.last_name, last_name)",
        [STMT_DEVICE_ID] = "SELECT id FROM devices WHERE identity = ?",
        [STMT_DEVICE_EXISTS] = "SELECT 1 FROM devices WHERE id = ?",
        [STMT_DEVICE_COUNT_RUNS] = "SELECT count(*) FROM runs WHERE device_id = ?",
};

/* ---- errors: the one place SQLite result codes become errnos ---- */

static int sqlite_to_errno(sqlite3 *s, int rc) {
        switch (rc & 0xff) {
        case SQLITE_BUSY:
        case SQLITE_LOCKED:
                return -EBUSY;
        case SQLITE_FULL:
                return -ENOSPC;
        case SQLITE_NOMEM:
                return -ENOMEM;
        case SQLITE_READONLY:
                return -EROFS;
        case SQLITE_NOTFOUND:
                return -ENOENT;
        case SQLITE_PERM:
        case SQLITE_AUTH:
                return -EACCES;
        case SQLITE_RANGE:
        case SQLITE_TOOBIG:
        case SQLITE_MISMATCH:
                return -EINVAL;
        case SQLITE_CANTOPEN:
                /* The OS error says whether the file (or its directory) was missing. */
                if (s && sqlite3_system_errno(s) == ENOENT)
                        return -ENOENT;
                return -EACCES;
        case SQLITE_CONSTRAINT:
                switch (rc) {
                case SQLITE_CONSTRAINT_UNIQUE:
                case SQLITE_CONSTRAINT_PRIMARYKEY:
                        return -EEXIST;
                case SQLITE_CONSTRAINT_FOREIGNKEY:
                        return -ENOENT; /* the referenced job, run or device does not exist */
                default:
                        return -EINVAL; /* CHECK, NOT NULL */
                }
        default:
                return -EIO;
        }
}

int db_fail(Db *db, int rc) {
        snprintf(db->error, sizeof(db->error), "%s", sqlite3_errmsg(db->sqlite));
        return sqlite_to_errno(db->sqlite, rc);
}

_printf_(3, 4)
int db_fail_msg(Db *db, int r, const char *fmt, ...) {
        va_list ap;

        va_start(ap, fmt);
        vsnprintf(db->error, sizeof(db->error), fmt, ap);
        va_end(ap);
        return r;
}

bool db_error_is_transient(int r) {
        switch (r) {
        case -ENOSPC:
        case -EBUSY:
        case -EROFS:
        case -EACCES:
        case -EIO:
        case -ENOMEM:
                return true;
        default:
                return false;
        }
}

const char *db_last_error(Db *db) {
        if (!db)
                return "no database";
        return db->error[0] ? db->error : "no error";
}

/* ---- statements ---- */

/* Returns a cached statement; the caller resets it (_cleanup_reset_) when done. */
/* The columns of a new run: first those the spec registry names (bound by bind_spec_columns(), in
 * the registry's order), then the run's own (bound in db_run_begin()). */
static const char *run_begin_sql(void) {
        static const char own[] =
                "job_id, step, device_id, device_name, fs_type, mount_options, environment, started_usec, layout, "
                "members, matrix_entry, mkfs_options, \"repeat\", steady_state, uuid, \"round\", partitions, \"partition\", "
                "md_array, md_resync, lvm_vg, status";
        static char sql[4096];
        size_t n = 0, values = 0;

        if (sql[0])
                return sql;
        n += (size_t) snprintf(sql + n, sizeof sql - n, "INSERT INTO runs (");
        for (SpecKey k = 0; k < _SPEC_KEY_MAX; k++)
                if (spec_key_info(k)->runs_column) {
                        n += (size_t) snprintf(sql + n, sizeof sql - n, "\"%s\", ", spec_key_info(k)->runs_column);
                        values++;
                }
        n += (size_t) snprintf(sql + n, sizeof sql - n, "%s) VALUES (", own);
        values += 21; /* own's but status */
        for (size_t i = 0; i < values; i++)
                n += (size_t) snprintf(sql + n, sizeof sql - n, "?, ");
        n += (size_t) snprintf(sql + n, sizeof sql - n, "'running')");
        assert(n < sizeof sql);
        return sql;
}

int db_stmt(Db *db, DbStmt id, sqlite3_stmt **ret) {
        if (!db->stmts[id]) {
                int rc = sqlite3_prepare_v3(db->sqlite, stmt_sql[id] ?: run_begin_sql(), -1,
                                            SQLITE_PREPARE_PERSISTENT, &db->stmts[id], NULL);
                if (rc != SQLITE_OK)
                        return db_fail(db, rc);
        }
        *ret = db->stmts[id];
        return 0;
}

void db_set_explain_hook(Db *db, DbExplainHook hook, void *userdata) {
        db->explain = hook;
        db->explain_userdata = userdata;
}

/* The plan of sql, row by row, for db_set_explain_hook(). Its parameters are unbound: the plan
 * does not depend on their values (no STAT4). */
static int db_explain(Db *db, const char *sql) {
        _cleanup_free_ char *explain = NULL;
        sqlite3_stmt *st = NULL;
        int rc, r = 0;

        if (asprintf(&explain, "EXPLAIN QUERY PLAN %s", sql) < 0)
                return -ENOMEM;
        rc = sqlite3_prepare_v2(db->sqlite, explain, -1, &st, NULL);
        if (rc != SQLITE_OK)
                return db_fail(db, rc);
        while ((rc = sqlite3_step(st)) == SQLITE_ROW && r >= 0)
                r = db->explain(sql, (const char *) sqlite3_column_text(st, 3), db->explain_userdata);
        if (r >= 0 && rc != SQLITE_DONE && rc != SQLITE_ROW)
                r = db_fail(db, rc);
        sqlite3_finalize(st);
        return r;
}

int db_prepare(Db *db, const char *sql, sqlite3_stmt **ret) {
        sqlite3_stmt *st = NULL;
        int rc;

        if (db->explain) {
                int r = db_explain(db, sql);
                if (r < 0)
                        return r;
        }

        rc = sqlite3_prepare_v2(db->sqlite, sql, -1, &st, NULL);
        if (rc != SQLITE_OK)
                return db_fail(db, rc);
        *ret = st;
        return 0;
}

/* Steps a statement expected to finish without rows (or whose rows we ignore): 0 or -errno. */
int db_step_done(Db *db, sqlite3_stmt *st) {
        int rc = sqlite3_step(st);
        if (rc == SQLITE_DONE || rc == SQLITE_ROW)
                return 0;
        return db_fail(db, rc);
}

/* Steps a statement expected to return one row: 1 with the row, 0 without, or -errno. */
int db_step_row(Db *db, sqlite3_stmt *st) {
        int rc = sqlite3_step(st);
        if (rc == SQLITE_ROW)
                return 1;
        if (rc == SQLITE_DONE)
                return 0;
        return db_fail(db, rc);
}

static int db_exec_cached(Db *db, DbStmt id) {
        _cleanup_reset_ sqlite3_stmt *st = NULL;
        int r;

        r = db_stmt(db, id, &st);
        if (r < 0)
                return r;
        return db_step_done(db, st);
}

int db_begin(Db *db) {
        return db_exec_cached(db, STMT_BEGIN);
}

int db_commit(Db *db) {
        return db_exec_cached(db, STMT_COMMIT);
}

/* Keeps the message of the failure that made us roll back. */
void db_rollback(Db *db) {
        char saved[sizeof(db->error)];

        if (sqlite3_get_autocommit(db->sqlite))
                return; /* SQLite already rolled back (e.g. after SQLITE_FULL) */
        memcpy(saved, db->error, sizeof(saved));
        (void) db_exec_cached(db, STMT_ROLLBACK);
        memcpy(db->error, saved, sizeof(saved));
}

/* ---- opening and migrations ---- */

int db_schema_latest(void) {
        return (int) ELEMENTSOF(schema_migrations);
}

int db_pragma_int(Db *db, const char *sql, int64_t *ret) {
        _cleanup_finalize_ sqlite3_stmt *st = NULL;
        int r;

        r = db_prepare(db, sql, &st);
        if (r < 0)
                return r;
        r = db_step_row(db, st);
        if (r < 0)
                return r;
        *ret = r > 0 ? sqlite3_column_int64(st, 0) : 0;
        return 0;
}

static int db_user_version(Db *db, int *ret) {
        int64_t v;
        int r = db_pragma_int(db, "PRAGMA user_version", &v);

        if (r < 0)
                return r;
        *ret = (int) v;
        return 0;
}

int db_schema_version(Db *db) {
        int v, r;

        r = db_user_version(db, &v);
        if (r < 0)
                return r;
        return v;
}

static int db_exec(Db *db, const char *sql) {
        int rc = sqlite3_exec(db->sqlite, sql, NULL, NULL, NULL);
        if (rc != SQLITE_OK)
                return db_fail(db, rc);
        return 0;
}

static int db_check_version(Db *db, int version) {
        if (version < 0)
                return db_fail_msg(db, -EPROTONOSUPPORT, "database schema version %d is not one of benchd's",
                                   version);
        if (version > db_schema_latest())
                return db_fail_msg(db, -EPROTONOSUPPORT,
                                   "database schema version %d is newer than this benchd knows (%d)",
                                   version, db_schema_latest());
        return 0;
}

/* The rows referring to no row of the table they name (PRAGMA foreign_key_check): counted before and
 * after each migration, which fails when it made more (foreign keys are not enforced while
 * migrations run, see db_migrate_all()). Not zero: a user who deleted runs with sqlite3, where
 * enforcement is off by default, left some, and those do not keep the file from opening. */
static int db_foreign_key_orphans(Db *db, int64_t *ret) {
        return db_pragma_int(db, "SELECT count(*) FROM pragma_foreign_key_check", ret);
}

/* One migration per transaction. The version is re-read inside the write transaction, so two
 * processes opening a fresh file cannot both apply the same migration. Foreign keys are not
 * enforced while migrations run (a pragma that only takes effect outside a transaction): one that
 * makes a table again (0022) drops the old one, which with enforcement would delete the rows of
 * every table referring to it; each migration is checked with PRAGMA foreign_key_check instead:
 * it may not add rows that refer to nothing. */
static int db_migrate_all(Db *db) {
        for (;;) {
                int64_t orphans = 0, orphans_after = 0;
                char pragma[64];
                int version, r;

                r = db_begin(db);
                if (r < 0)
                        return r;

                r = db_user_version(db, &version);
                if (r >= 0)
                        r = db_check_version(db, version);
                if (r < 0)
                        goto fail;
                if (version == db_schema_latest())
                        return db_commit(db);

                r = db_foreign_key_orphans(db, &orphans);
                if (r < 0)
                        goto fail;
                r = db_exec(db, schema_migrations[version]);
                if (r < 0) {
                        char msg[sizeof(db->error)];

                        memcpy(msg, db->error, sizeof(msg));
                        db_fail_msg(db, r, "schema migration %d: %s", version + 1, msg);
                        goto fail;
                }

                /* PRAGMA takes no parameters; this is our own integer, not input. */
                snprintf(pragma, sizeof(pragma), "PRAGMA user_version = %d", version + 1);
                r = db_exec(db, pragma);
                if (r < 0)
                        goto fail;
                r = db_foreign_key_orphans(db, &orphans_after);
                if (r < 0)
                        goto fail;
                if (orphans_after > orphans) {
                        r = db_fail_msg(db, -EBADMSG, "schema migration %d left %" PRIi64 " rows referring to "
                                        "no row (PRAGMA foreign_key_check)", version + 1, orphans_after - orphans);
                        goto fail;
                }

                r = db_commit(db);
                if (r < 0)
                        goto fail;
                continue;
        fail:
                db_rollback(db);
                return r;
        }
}

static int db_migrate(Db *db) {
        int r, k;

        r = db_exec(db, "PRAGMA foreign_keys = OFF");
        if (r < 0)
                return r;
        r = db_migrate_all(db);
        k = db_exec(db, "PRAGMA foreign_keys = ON");
        return r < 0 ? r : k;
}

/* A file made before schema version 8 has no auto-vacuum: turned on once, after its migration,
 * by rewriting the file (VACUUM, which needs room for a copy of it for a while). When that fails
 * the file works as before; the pages pruned samples free are then reused, not given back. */
static void db_enable_auto_vacuum(Db *db) {
        char saved[sizeof(db->error)];
        int64_t mode;

        /* (its statement is finalized on return: VACUUM refuses to run while one is) */
        if (db_pragma_int(db, "PRAGMA auto_vacuum", &mode) < 0 || mode != 0)
                return;
        memcpy(saved, db->error, sizeof(saved));
        if (db_exec(db, "PRAGMA auto_vacuum = INCREMENTAL") >= 0)
                (void) db_exec(db, "VACUUM");
        memcpy(db->error, saved, sizeof(saved));
}

static int db_open_internal(const char *path, Db *db) {
        int64_t pages;
        int version, rc, r;

        rc = sqlite3_open_v2(path, &db->sqlite, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL);
        if (rc != SQLITE_OK) {
                if (!db->sqlite)
                        return -ENOMEM;
                r = db_fail(db, rc);
                return db_fail_msg(db, r, "cannot open %s: %s", path, sqlite3_errmsg(db->sqlite));
        }

        sqlite3_extended_result_codes(db->sqlite, 1);
        sqlite3_busy_timeout(db->sqlite, DB_BUSY_TIMEOUT_MS);
        r = db_register_functions(db);
        if (r < 0)
                return r;

        /* Refuse a newer schema before anything (even the journal mode) is written. */
        r = db_user_version(db, &version);
        if (r < 0)
                return r;
        r = db_check_version(db, version);
        if (r < 0)
                return r;

        /* A new file: its page size and incremental auto-vacuum (so that pruned samples give
         * their space back) can only be chosen before the first table, and before WAL. */
        r = db_pragma_int(db, "PRAGMA page_count", &pages);
        if (r < 0)
                return r;
        if (pages == 0) {
                char pragma[64];

                snprintf(pragma, sizeof(pragma), "PRAGMA page_size = %d", DB_PAGE_SIZE);
                r = db_exec(db, pragma);
                if (r < 0)
                        return r;
                r = db_exec(db, "PRAGMA auto_vacuum = INCREMENTAL");
                if (r < 0)
                        return r;
        }

        /* Readers (sqlite3 by users, benchctl export) never block the daemon's writes. */
        r = db_exec(db, "PRAGMA journal_mode = WAL");
        if (r < 0)
                return r;
        r = db_exec(db, "PRAGMA synchronous = NORMAL");
        if (r < 0)
                return r;
        /* The WAL is truncated back to this after a checkpoint, so one big batch cannot leave a
         * large file behind for ever. */
        r = db_exec(db, "PRAGMA journal_size_limit = 67108864");
        if (r < 0)
                return r;
        r = db_exec(db, "PRAGMA foreign_keys = ON");
        if (r < 0)
                return r;

        /* Up to date: no write transaction (and so no wait for a lock) just to find that out. */
        if (version == db_schema_latest())
                return 0;
        r = db_migrate(db);
        if (r < 0)
                return r;
        db_enable_auto_vacuum(db);
        return 0;
}

int db_open_full(const char *path, Db **ret, char **ret_error) {
        _cleanup_(db_closep) Db *db = NULL;
        int r;

        if (!path || !ret)
                return -EINVAL;

        db = calloc(1, sizeof(Db));
        if (!db)
                return -ENOMEM;

        r = db_open_internal(path, db);
        if (r < 0) {
                if (ret_error)
                        *ret_error = strdup(db->error[0] ? db->error : strerror(-r));
                return r;
        }

        db->error[0] = 0;
        *ret = TAKE_PTR(db);
        return 0;
}

int db_open(const char *path, Db **ret) {
        return db_open_full(path, ret, NULL);
}

Db *db_close(Db *db) {
        if (!db)
                return NULL;
        for (size_t i = 0; i < _STMT_MAX; i++)
                sqlite3_finalize(db->stmts[i]);
        /* Refreshes the query planner's statistics where they matter; cheap, and only on close. */
        if (db->sqlite && sqlite3_db_readonly(db->sqlite, "main") == 0)
                (void) sqlite3_exec(db->sqlite, "PRAGMA optimize", NULL, NULL, NULL);
        sqlite3_close_v2(db->sqlite);
        free(db);
        return NULL;
}

/* ---- jobs ---- */

int db_job_insert(Db *db, const DbJob *job, uint64_t *ret_id) {
        _cleanup_reset_ sqlite3_stmt *st = NULL;
        Binder b;
        int r;

        if (!job || !job->spec_json || !job->target)
                return db_fail_msg(db, -EINVAL, "job without spec or target");

        r = db_stmt(db, STMT_JOB_INSERT, &st);
        if (r < 0)
                return r;

        b = binder(st);
        bind_text(&b, job->profile);
        bind_text(&b, job->workload);
        bind_text(&b, job->spec_json);
        bind_text(&b, job->target);
        bind_text(&b, job->label);
        bind_i64(&b, job->submitted_by);
        bind_u64(&b, job->submitted_usec);
        bind_text(&b, job->steps_json);
        bind_text(&b, job->triggered_by ?: "bus");
        r = binder_done(db, &b);
        if (r < 0)
                return r;

        r = db_step_done(db, st);
        if (r < 0)
                return r;

        if (ret_id)
                *ret_id = (uint64_t) sqlite3_last_insert_rowid(db->sqlite);
        return 0;
}

/* A time of 0 leaves the stored one as it is; error replaces the stored one (NULL clears it).
 * -EINVAL for an unknown state, -ENOENT for an unknown job. */
int db_job_set_state(Db *db, uint64_t id, const char *state, uint64_t started_usec,
                     uint64_t finished_usec, const char *error) {
        _cleanup_reset_ sqlite3_stmt *st = NULL;
        Binder b;
        int r;

        if (job_state_from_string(state) < 0)
                return db_fail_msg(db, -EINVAL, "invalid job state '%s'", strna(state));

        r = db_stmt(db, STMT_JOB_SET_STATE, &st);
        if (r < 0)
                return r;

        b = binder(st);
        bind_text(&b, state);
        bind_u64_or_null(&b, started_usec);
        bind_u64_or_null(&b, finished_usec);
        bind_text(&b, error);
        bind_u64(&b, id);
        return db_step_changed_one(db, &b, st, "job", id);
}

/* ---- runs ---- */

int db_uuid_new(char ret[static DB_UUID_STRING_MAX]) {
        sd_id128_t id;
        int r;

        r = sd_id128_randomize(&id); /* a version 4 UUID, variant bits set */
        if (r < 0)
                return r;
        snprintf(ret, DB_UUID_STRING_MAX, SD_ID128_UUID_FORMAT_STR, SD_ID128_FORMAT_VAL(id));
        return 0;
}

bool db_uuid_valid(const char *s) {
        if (!s || strlen(s) != 36)
                return false;
        for (size_t i = 0; i < 36; i++) {
                if (i == 8 || i == 13 || i == 18 || i == 23) {
                        if (s[i] != '-')
                                return false;
                } else if (!strchr("0123456789abcdef", s[i]))
                        return false;
        }
        return true;
}

/* job_id 0 and device_id <= 0 are stored as NULL; -ENOENT when the job or device does not exist,
 * -EINVAL for values the schema's CHECKs refuse (tags not a JSON array, rwmix_read > 100). */
/* A string list as a JSON array of strings; NULL when empty, or without memory (*oom). */
static char *strv_json(char **l, bool *oom) {
        _cleanup_json_ json_object *a = NULL;
        char *ret;

        if (!l || !l[0])
                return NULL;
        a = json_object_new_array();
        for (char **t = l; a && *t; t++)
                if (json_object_array_add(a, json_object_new_string(*t)) < 0)
                        a = (json_object_put(a), NULL);
        ret = a ? strdup(json_object_to_json_string_ext(a, JSON_C_TO_STRING_PLAIN)) : NULL;
        *oom = !ret;
        return ret;
}

/* Every key of the step whose registry row names a runs column, in the registry's order. */
static void bind_spec_columns(Binder *b, const JobSpec *spec) {
        for (SpecKey k = 0; k < _SPEC_KEY_MAX; k++) {
                const SpecKeyInfo *ki = spec_key_info(k);
                char buf[SPEC_TEXT_MAX];

                if (!ki->runs_column)
                        continue;
                switch (ki->kind) {
                case SPEC_KIND_STRING:
                        bind_text_copy(b, spec_string_of(spec, k, buf));
                        break;
                case SPEC_KIND_STRV: {
                        bool oom = false;
                        _cleanup_free_ char *json = strv_json(spec_strv_of(spec, k), &oom);

                        if (oom)
                                bind_rc(b, SQLITE_NOMEM);
                        else
                                bind_text_copy(b, json);
                        break;
                }
                case SPEC_KIND_MAP:
                        bind_null(b);
                        break;
                default:
                        bind_u64(b, spec_number_of(spec, k));
                }
        }
}

int db_run_begin(Db *db, const DbRun *run, uint64_t *ret_id) {
        _cleanup_reset_ sqlite3_stmt *st = NULL;
        char uuid[DB_UUID_STRING_MAX];
        Binder b;
        int r;

        if (!run || !run->spec || !workload_to_string(run->spec->workload) || !run->spec->target)
                return db_fail_msg(db, -EINVAL, "run without workload or target");

        /* The run's name on every host it is imported into (schema/0010-run-uuids.sql). */
        r = db_uuid_new(uuid);
        if (r < 0)
                return db_fail_msg(db, r, "cannot make a run uuid: %s", strerror(-r));

        r = db_stmt(db, STMT_RUN_BEGIN, &st);
        if (r < 0)
                return r;

        b = binder(st);
        bind_spec_columns(&b, run->spec);
        bind_u64_or_null(&b, run->job_id);
        bind_i64(&b, run->step);
        if (run->device_id > 0) /* -1 (and 0, of a zero-initialised DbRun): no device */
                bind_i64(&b, run->device_id);
        else
                bind_null(&b);
        bind_text(&b, run->device_name);
        bind_text(&b, run->fs_type);
        bind_text(&b, run->mount_options);
        bind_text(&b, run->environment);
        bind_u64(&b, run->started_usec);
        bind_text(&b, run->layout);
        bind_text(&b, run->members_json);
        if (run->in_matrix)
                bind_i64(&b, run->matrix_entry);
        else
                bind_null(&b);
        bind_text(&b, run->mkfs_options);
        bind_i64(&b, run->repeat);
        if (run->steady_state_asked)
                bind_i64(&b, 0);
        else
                bind_null(&b);
        bind_text(&b, uuid);
        if (run->in_round)
                bind_i64(&b, run->round);
        else
                bind_null(&b);
        if (run->partitions) {
                bind_i64(&b, run->partitions);
                bind_i64(&b, run->partition);
        } else {
                bind_null(&b);
                bind_null(&b);
        }
        bind_text(&b, run->md_array);
        bind_text(&b, run->md_resync);
        bind_text(&b, run->lvm_vg);
        r = binder_done(db, &b);
        if (r < 0)
                return r;

        r = db_step_done(db, st);
        if (r < 0)
                return r;

        if (ret_id)
                *ret_id = (uint64_t) sqlite3_last_insert_rowid(db->sqlite);
        return 0;
}

/* Negative percentages of the result (unknown) are stored as NULL; result->device fills
 * device_name only when the run had none. */
int db_run_set_fs(Db *db, uint64_t run_id, const DbRunFs *fs) {
        _cleanup_reset_ sqlite3_stmt *st = NULL;
        Binder b;
        int r;

        r = db_stmt(db, STMT_RUN_SET_FS, &st);
        if (r < 0)
                return r;
        b = binder(st);
        bind_text(&b, fs->mkfs_command && fs->mkfs_command[0] ? fs->mkfs_command : NULL);
        bind_text(&b, fs->mkfs_output);
        bind_text(&b, fs->fs_uuid && fs->fs_uuid[0] ? fs->fs_uuid : NULL);
        bind_u64(&b, fs->mkfs_usec);
        bind_u64(&b, fs->size_bytes);
        bind_u64(&b, fs->used_bytes);
        bind_u64(&b, fs->avail_bytes);
        bind_u64(&b, fs->inodes);
        bind_u64(&b, fs->inodes_free);
        bind_text(&b, fs->fs_commands_json);
        /* What built the layout under it (an md array): only when there was one. */
        if (fs->layout_commands && fs->layout_commands[0]) {
                bind_text(&b, fs->layout_commands);
                bind_u64(&b, fs->md_chunk_bytes);
                bind_u64(&b, fs->md_resync_usec);
        } else {
                bind_null(&b);
                bind_null(&b);
                bind_null(&b);
        }
        bind_u64(&b, run_id);
        r = db_step_changed_one(db, &b, st, "run", run_id);
        if (r < 0)
                return r;
        return db_run_set_lv(db, run_id, fs);
}

int db_run_finish(Db *db, uint64_t run_id, const char *status, const char *error,
                  const ProtoResult *result) {
        _cleanup_reset_ sqlite3_stmt *st = NULL;
        Binder b;
        int r;

        /* A run ends in one of the final states of a job. */
        if (!job_state_is_final(job_state_from_string(status)))
                return db_fail_msg(db, -EINVAL, "invalid final run status '%s'", strna(status));

        r = db_stmt(db, result ? STMT_RUN_FINISH_RESULT : STMT_RUN_FINISH, &st);
        if (r < 0)
                return r;

        b = binder(st);
        bind_text(&b, status);
        bind_text(&b, error);
        if (result) {
                bind_u64_or_null(&b, result->started_usec);
                bind_u64(&b, result->duration_usec);
                bind_u64(&b, result->bytes_read);
                bind_u64(&b, result->bytes_written);
                bind_u64(&b, result->ios_read);
                bind_u64(&b, result->ios_written);
                bind_u64(&b, result->ops);
                bind_u64(&b, result->lat_min_ns);
                bind_u64(&b, result->lat_mean_ns);
                bind_u64(&b, result->lat_stddev_ns);
                bind_u64(&b, result->lat_p50_ns);
                bind_u64(&b, result->lat_p90_ns);
                bind_u64(&b, result->lat_p95_ns);
                bind_u64(&b, result->lat_p99_ns);
                bind_u64(&b, result->lat_p999_ns);
                bind_u64(&b, result->lat_p9999_ns);
                bind_u64(&b, result->lat_max_ns);
                bind_double_or_null(&b, result->iowait_pct);
                bind_double_or_null(&b, result->cpu_user_pct);
                bind_double_or_null(&b, result->cpu_sys_pct);
                bind_double_or_null(&b, result->dev_util_pct);
                bind_text(&b, result->device && result->device[0] ? result->device : NULL);
                bind_u64(&b, result->process_user_usec);
                bind_u64(&b, result->process_sys_usec);
                if (result->counters & PROTO_COUNTERS_DEVICE) {
                        bind_u64(&b, result->device_bytes_read);
                        bind_u64(&b, result->device_bytes_written);
                } else {
                        bind_null(&b);
                        bind_null(&b);
                }
                if (result->counters & PROTO_COUNTERS_BACKING) {
                        bind_u64(&b, result->backing_bytes_read);
                        bind_u64(&b, result->backing_bytes_written);
                } else {
                        bind_null(&b);
                        bind_null(&b);
                }
                bind_text(&b, served_from_to_string(result->served));
        }
        bind_u64(&b, run_id);
        return db_step_changed_one(db, &b, st, "run", run_id);
}

int db_run_interrupt_stale(Db *db) {
        int r, n;

        r = db_exec_cached(db, STMT_RUN_INTERRUPT_STALE);
        if (r < 0)
                return r;
        n = sqlite3_changes(db->sqlite);
        return MAX(n, 0);
}

int db_run_exists(Db *db, uint64_t run_id) {
        _cleanup_reset_ sqlite3_stmt *st = NULL;
        Binder b;
        int r;

        r = db_stmt(db, STMT_RUN_EXISTS, &st);
        if (r < 0)
                return r;
        b = binder(st);
        bind_u64(&b, run_id);
        return db_step_found_one(db, &b, st, "run", run_id);
}
