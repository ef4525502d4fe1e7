/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The SQLite store on real temporary files: migrations from an empty file, refusal of a newer
 * schema, WAL, and every write and query of db.h checked by reading the values back (through the
 * API, and through a second raw sqlite3 connection where users would look).
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "store/db.h"
#include "store/db-internal.h"
#include "shared/served.h"
#include "check-util.h"
#include "schema-migrations.h"
#include "shared/spec.h"
#include "shared/histogram.h"
#include "shared/util.h"

#define DB_FIXTURE_NAME "test-db"
#include "db-fixture.h"

/* ---- helpers: a raw connection, as a user with sqlite3 would have ---- */

static sqlite3 *raw_open(void) {
        sqlite3 *s = NULL;

        ck_assert_int_eq(sqlite3_open(dbpath, &s), SQLITE_OK);
        return s;
}

static int64_t raw_int(sqlite3 *s, const char *sql) {
        sqlite3_stmt *st = NULL;
        int64_t v;

        ck_assert_msg(sqlite3_prepare_v2(s, sql, -1, &st, NULL) == SQLITE_OK, "%s: %s", sql,
                      sqlite3_errmsg(s));
        ck_assert_int_eq(sqlite3_step(st), SQLITE_ROW);
        v = sqlite3_column_int64(st, 0);
        sqlite3_finalize(st);
        return v;
}

static char *raw_text(sqlite3 *s, const char *sql) {
        sqlite3_stmt *st = NULL;
        char *v;

        ck_assert_msg(sqlite3_prepare_v2(s, sql, -1, &st, NULL) == SQLITE_OK, "%s: %s", sql,
                      sqlite3_errmsg(s));
        ck_assert_int_eq(sqlite3_step(st), SQLITE_ROW);
        v = strdup((const char *) sqlite3_column_text(st, 0));
        sqlite3_finalize(st);
        return v;
}

static void raw_exec(sqlite3 *s, const char *sql) {
        ck_assert_msg(sqlite3_exec(s, sql, NULL, NULL, NULL) == SQLITE_OK, "%s: %s", sql,
                      sqlite3_errmsg(s));
}

/* ---- helpers: collecting rows handed out as DbFields ---- */

#define MAX_ROWS 64
#define MAX_COLS 128

typedef struct Row {
        size_t n;
        char *name[MAX_COLS];
        DbField f[MAX_COLS];
} Row;

typedef struct Rows {
        size_t n;
        Row row[MAX_ROWS];
        int stop_after; /* >0: return -ECANCELED after this many rows */
} Rows;

static int collect(const DbField *fields, size_t n_fields, void *userdata) {
        Rows *rows = userdata;
        Row *row;

        ck_assert_uint_lt(rows->n, MAX_ROWS);
        ck_assert_uint_le(n_fields, MAX_COLS);
        row = &rows->row[rows->n++];
        row->n = n_fields;
        for (size_t i = 0; i < n_fields; i++) {
                row->name[i] = strdup(fields[i].name);
                row->f[i] = fields[i];
                row->f[i].name = row->name[i];
                if (fields[i].type == DB_FIELD_TEXT)
                        row->f[i].s = strdup(fields[i].s);
        }
        if (rows->stop_after > 0 && rows->n >= (size_t) rows->stop_after)
                return -ECANCELED;
        return 0;
}

static void rows_clear(Rows *rows) {
        for (size_t r = 0; r < rows->n; r++)
                for (size_t i = 0; i < rows->row[r].n; i++) {
                        free(rows->row[r].name[i]);
                        if (rows->row[r].f[i].type == DB_FIELD_TEXT)
                                free((char *) rows->row[r].f[i].s);
                }
        *rows = (Rows) {};
}

static const DbField *field(const Row *row, const char *name) {
        for (size_t i = 0; i < row->n; i++)
                if (streq(row->f[i].name, name))
                        return &row->f[i];
        ck_abort_msg("no field %s", name);
        return NULL;
}

static int64_t field_int(const Row *row, const char *name) {
        const DbField *f = field(row, name);
        ck_assert_msg(f->type == DB_FIELD_INTEGER, "%s is not an integer (%d)", name, f->type);
        return f->i;
}

static double field_real(const Row *row, const char *name) {
        const DbField *f = field(row, name);
        ck_assert_msg(f->type == DB_FIELD_REAL, "%s is not a real (%d)", name, f->type);
        return f->d;
}

static const char *field_text(const Row *row, const char *name) {
        const DbField *f = field(row, name);
        ck_assert_msg(f->type == DB_FIELD_TEXT, "%s is not text (%d)", name, f->type);
        return f->s;
}

static bool field_null(const Row *row, const char *name) {
        return field(row, name)->type == DB_FIELD_NULL;
}

/* ---- helpers: fixtures ---- */

static uint64_t add_job(Db *db, const char *workload, const char *profile) {
        DbJob j = {
                .profile = profile,
                .workload = workload,
                .spec_json = "{\"target\":\"/tmp/x\",\"workload\":\"write\"}",
                .target = "/tmp/x",
                .label = "lbl",
                .submitted_by = 1000,
                .submitted_usec = 1700000000000000,
        };
        uint64_t id = 0;

        ck_assert_int_eq(db_job_insert(db, &j, &id), 0);
        ck_assert_uint_gt(id, 0);
        return id;
}

typedef struct RunDef {
        const char *workload;
        uint64_t started_usec;
        int64_t device_id;
        const char *device_name;
        const char *tags;        /* comma-separated */
        const char *fs_type;
        const char *label;
} RunDef;

static uint64_t add_run(Db *db, uint64_t job, uint32_t step, const RunDef *d) {
        DbRun run = {
                .job_id = job,
                .step = step,
                .spec = fixture_spec("workload=%s target=/tmp/x block_size=32K size=1G runtime_ms=10000 ramp_ms=1000 "
                                     "queue_depth=1 jobs=1 direct=true sync=end:fsync rwmix_read=50 pattern=random "
                                     "label=%s tags=%s", d->workload, d->label ?: "", d->tags ?: ""),
                .device_id = d->device_id,
                .device_name = d->device_name,
                .fs_type = d->fs_type,
                .mount_options = "rw,relatime",
                .environment = "{\"kernel\":\"6.1\"}",
                .started_usec = d->started_usec,
        };
        uint64_t id = 0;
        int r;

        r = db_run_begin(db, &run, &id);
        ck_assert_msg(r == 0, "db_run_begin: %s (%s)", strerror(-r), db_last_error(db));
        ck_assert_uint_gt(id, 0);
        return id;
}

static const RunDef plain_run = { .workload = "write", .started_usec = 1700000000000000, .device_id = -1 };

/* ---- schema ---- */

START_TEST(test_create_empty_file) {
        _cleanup_(db_closep) Db *db = NULL;
        static const char *const objects[][2] = {
                { "table", "devices" },
                { "table", "jobs" },
                { "table", "runs" },
                { "table", "sample_data" },
                { "view", "samples" },
                { "table", "run_histograms" },
                { "table", "run_tags" },
                { "view", "run_summary" },
                { "index", "jobs_state" },
                { "index", "jobs_profile" },
                { "index", "runs_device_workload_started" },
                { "index", "runs_started" },
                { "index", "runs_job" },
                { "index", "runs_workload_started" },
                { "index", "runs_fs_type_started" },
                { "index", "runs_label_started" },
                { "index", "runs_status_started" },
                { "index", "run_tags_tag" },
        };
        sqlite3 *s;
        int fd;

        /* An existing, empty file (as StateDirectory= plus touch would leave it). */
        fd = open(dbpath, O_CREAT | O_WRONLY | O_CLOEXEC, 0600);
        ck_assert_int_ge(fd, 0);
        close(fd);

        db = open_db();
        ck_assert_int_ge(db_schema_latest(), 1);
        ck_assert_int_eq(db_schema_version(db), db_schema_latest());

        s = raw_open();
        ck_assert_int_eq(raw_int(s, "PRAGMA user_version"), db_schema_latest());
        ck_assert_int_eq(raw_int(s, "PRAGMA application_id"), 0x424e4344);
        for (size_t i = 0; i < ELEMENTSOF(objects); i++) {
                char sql[200];
                snprintf(sql, sizeof(sql),
                         "SELECT count(*) FROM sqlite_master WHERE type = '%s' AND name = '%s'",
                         objects[i][0], objects[i][1]);
                ck_assert_msg(raw_int(s, sql) == 1, "missing %s %s", objects[i][0], objects[i][1]);
        }
        /* Chosen before the first table: the page size, and pages that pruning frees go back. */
        ck_assert_int_eq(raw_int(s, "PRAGMA page_size"), 4096);
        ck_assert_int_eq(raw_int(s, "PRAGMA auto_vacuum"), 2);
        sqlite3_close(s);
}
END_TEST

/* Every spec key the registry says a runs column records is a column of runs. */
START_TEST(test_registry_runs_columns) {
        _cleanup_(db_closep) Db *db = open_db();
        sqlite3 *s = raw_open();
        unsigned n = 0;

        for (SpecKey k = 0; k < _SPEC_KEY_MAX; k++) {
                const SpecKeyInfo *ki = spec_key_info(k);
                char sql[200];

                if (!ki->runs_column)
                        continue;
                snprintf(sql, sizeof(sql), "SELECT count(*) FROM pragma_table_info('runs') WHERE name = '%s'",
                         ki->runs_column);
                ck_assert_msg(raw_int(s, sql) == 1, "spec key %s: runs has no column %s", ki->name, ki->runs_column);
                n++;
        }
        ck_assert_uint_ge(n, 10);
        sqlite3_close(s);
}
END_TEST

/* The run's row holds every key the registry records in a runs column, as the step's text form
 * writes it: the insert is the registry's, fleet_uuid and fleet_host included. */
START_TEST(test_run_spec_columns) {
        _cleanup_(db_closep) Db *db = open_db();
        const JobSpec *spec = fixture_spec("workload=randrw target=/srv/b block_size=8K size=4M runtime_ms=2000 "
                                           "ramp_ms=500 queue_depth=4 jobs=2 direct=false sync=each:fdatasync "
                                           "rwmix_read=30 pattern=compressible:40 label=nightly tags=a,b "
                                           "fleet_uuid=0f8fad5b-d9cb-469f-a165-70867728950e fleet_host=root@h1");
        uint64_t job = add_job(db, "randrw", NULL), id = 0;
        unsigned n = 0;
        sqlite3 *s;

        ck_assert_int_eq(db_run_begin(db, &(DbRun) { .job_id = job, .spec = spec, .device_id = -1,
                                                     .started_usec = 1 }, &id), 0);
        s = raw_open();
        for (SpecKey k = 0; k < _SPEC_KEY_MAX; k++) {
                const SpecKeyInfo *ki = spec_key_info(k);
                _cleanup_free_ char *got = NULL, *sql = NULL;
                char buf[SPEC_TEXT_MAX], want[64];

                if (!ki->runs_column)
                        continue;
                ck_assert_int_ge(asprintf(&sql, "SELECT \"%s\" FROM runs WHERE id = %" PRIu64, ki->runs_column, id), 0);
                got = raw_text(s, sql);
                switch (ki->kind) {
                case SPEC_KIND_STRING:
                        ck_assert_msg(streq_ptr(got, spec_string_of(spec, k, buf)), "%s: %s", ki->name, strna(got));
                        break;
                case SPEC_KIND_STRV:
                        ck_assert_str_eq(got, "[\"a\",\"b\"]");
                        break;
                default:
                        snprintf(want, sizeof want, "%" PRIu64, spec_number_of(spec, k));
                        ck_assert_msg(streq_ptr(got, want), "%s: %s, not %s", ki->name, strna(got), want);
                }
                n++;
        }
        ck_assert_uint_ge(n, 16);
        {
                _cleanup_free_ char *t = raw_text(s, "SELECT workload || ' ' || sync || ' ' || pattern || ' ' || direct "
                                                     "|| ' ' || fleet_host FROM runs");
                ck_assert_str_eq(t, "randrw each:fdatasync compressible:40 0 root@h1");
        }
        sqlite3_close(s);
}
END_TEST

START_TEST(test_create_missing_file) {
        _cleanup_(db_closep) Db *db = NULL;
        struct stat st;

        ck_assert_int_ne(stat(dbpath, &st), 0);
        db = open_db();
        ck_assert_int_eq(stat(dbpath, &st), 0);
        ck_assert_int_eq(db_schema_version(db), db_schema_latest());
}
END_TEST

START_TEST(test_missing_directory) {
        Db *db = NULL;
        char p[300];

        snprintf(p, sizeof(p), "%s/no/such/dir/benchd.db", tmpdir);
        ck_assert_int_eq(db_open(p, &db), -ENOENT);
        ck_assert_ptr_null(db);
}
END_TEST

START_TEST(test_wal_and_pragmas) {
        _cleanup_(db_closep) Db *db = open_db();
        _cleanup_free_ char *mode = NULL;
        sqlite3 *s = raw_open();
        char wal[300];
        struct stat st;

        /* journal_mode=WAL is persistent: a second connection sees it. */
        mode = raw_text(s, "PRAGMA journal_mode");
        ck_assert_str_eq(mode, "wal");
        sqlite3_close(s);

        add_job(db, "write", NULL);
        snprintf(wal, sizeof(wal), "%s-wal", dbpath);
        ck_assert_int_eq(stat(wal, &st), 0);
}
END_TEST

START_TEST(test_reopen_idempotent) {
        Db *db = open_db();
        uint64_t id = add_job(db, "write", NULL);
        int n;

        db_close(db);
        for (int i = 0; i < 3; i++) {
                db = open_db();
                ck_assert_int_eq(db_schema_version(db), db_schema_latest());
                n = db_job_foreach(db, NULL, NULL, NULL) ; /* cb is required */
                ck_assert_int_eq(n, -EINVAL);
                db_close(db);
        }

        db = open_db();
        ck_assert_uint_eq(add_job(db, "read", NULL), id + 1);
        db_close(db);
}
END_TEST

START_TEST(test_newer_schema_refused) {
        _cleanup_free_ char *mode = NULL, *msg = NULL;
        Db *db = NULL;
        sqlite3 *s;
        char sql[64], wal[300];
        struct stat st;

        s = raw_open();
        raw_exec(s, "CREATE TABLE future (x)");
        snprintf(sql, sizeof(sql), "PRAGMA user_version = %d", db_schema_latest() + 1);
        raw_exec(s, sql);
        sqlite3_close(s);

        ck_assert_int_eq(db_open(dbpath, &db), -EPROTONOSUPPORT);
        ck_assert_ptr_null(db);
        ck_assert_int_eq(db_open_full(dbpath, &db, &msg), -EPROTONOSUPPORT);
        ck_assert_ptr_null(db);
        ck_assert_ptr_nonnull(msg);
        ck_assert_msg(strstr(msg, "newer than this benchd knows"), "message: %s", msg);

        /* Untouched: same version, still in rollback-journal mode, no tables of ours. */
        s = raw_open();
        ck_assert_int_eq(raw_int(s, "PRAGMA user_version"), db_schema_latest() + 1);
        mode = raw_text(s, "PRAGMA journal_mode");
        ck_assert_str_eq(mode, "delete");
        ck_assert_int_eq(raw_int(s, "SELECT count(*) FROM sqlite_master WHERE name = 'jobs'"), 0);
        sqlite3_close(s);
        snprintf(wal, sizeof(wal), "%s-wal", dbpath);
        ck_assert_int_ne(stat(wal, &st), 0);
}
END_TEST

START_TEST(test_garbage_file_refused) {
        static const char garbage[] = "this is not an SQLite database, not at all, no header here....."
                                      "................................................................";
        Db *db = NULL;
        int fd, r;

        fd = open(dbpath, O_CREAT | O_WRONLY | O_CLOEXEC, 0600);
        ck_assert_int_ge(fd, 0);
        ck_assert_int_eq(write(fd, garbage, sizeof(garbage)), (ssize_t) sizeof(garbage));
        close(fd);

        r = db_open(dbpath, &db);
        ck_assert_int_lt(r, 0);
        ck_assert_ptr_null(db);
}
END_TEST

/* A half-applied schema must not be possible: a failing migration leaves version 0 and no tables.
 * Simulated by a table that collides with the first migration. */
START_TEST(test_migration_is_atomic) {
        _cleanup_free_ char *msg = NULL;
        Db *db = NULL;
        sqlite3 *s;

        s = raw_open();
        raw_exec(s, "CREATE TABLE runs (x)");
        sqlite3_close(s);

        ck_assert_int_lt(db_open_full(dbpath, &db, &msg), 0);
        ck_assert_ptr_null(db);
        ck_assert_msg(strstr(msg, "schema migration 1"), "message: %s", msg);

        s = raw_open();
        ck_assert_int_eq(raw_int(s, "PRAGMA user_version"), 0);
        ck_assert_int_eq(raw_int(s, "SELECT count(*) FROM sqlite_master WHERE name = 'devices'"), 0);
        sqlite3_close(s);
}
END_TEST

/* The schema itself refuses what no writer should store, also for writers other than benchd. */
START_TEST(test_schema_checks) {
        _cleanup_(db_closep) Db *db = open_db();
        static const char *const refused[] = {
                "INSERT INTO jobs (state, spec, target, submitted_by, submitted_usec) "
                "VALUES ('done', '{}', '/t', 0, 1)",
                "INSERT INTO jobs (spec, target, submitted_by, submitted_usec) VALUES ('{', '/t', 0, 1)",
                "INSERT INTO devices (identity, first_seen_usec, last_seen_usec) VALUES ('sdb', 1, 1)",
                "INSERT INTO devices (identity, first_seen_usec, last_seen_usec) VALUES ('wwn:', 1, 1)",
                "INSERT INTO runs (workload, block_size, size, runtime_ms, ramp_ms, queue_depth, jobs, "
                "direct, target, started_usec, status) VALUES ('read', 1, 1, 0, 0, 1, 1, 0, '/t', 1, 'ok')",
                "INSERT INTO runs (workload, block_size, size, runtime_ms, ramp_ms, queue_depth, jobs, "
                "direct, target, started_usec) VALUES ('read', 1, 1, 0, 0, 1, 1, 2, '/t', 1)",
                "INSERT INTO runs (workload, block_size, size, runtime_ms, ramp_ms, queue_depth, jobs, "
                "direct, target, started_usec, tags) VALUES ('read', 1, 1, 0, 0, 1, 1, 0, '/t', 1, '\"x\"')",
                "INSERT INTO sample_data (run_id, t_ms, interval_us, bytes_read, bytes_written, ios_read, "
                "ios_written, ops) VALUES (999, 1, 1, 0, 0, 0, 0, 0)",
                "INSERT INTO run_histograms (run_id, upper_ns, count) VALUES (999, 1, 1)",
        };
        sqlite3 *s = raw_open();

        raw_exec(s, "PRAGMA foreign_keys = ON");
        for (size_t i = 0; i < ELEMENTSOF(refused); i++) {
                int rc = sqlite3_exec(s, refused[i], NULL, NULL, NULL);
                ck_assert_msg((rc & 0xff) == SQLITE_CONSTRAINT, "accepted: %s", refused[i]);
        }
        /* and accepts the plain case */
        raw_exec(s, "INSERT INTO runs (workload, block_size, size, runtime_ms, ramp_ms, queue_depth, "
                    "jobs, direct, target, started_usec, tags) "
                    "VALUES ('read', 1, 1, 0, 0, 1, 1, 0, '/t', 1, '[\"x\"]')");
        /* Basis points are 0..10000; the queue is not negative. */
        ck_assert_int_eq(sqlite3_exec(s, "INSERT INTO sample_data (run_id, t_ms, interval_us, ios_read, "
                                         "ios_written, ops, iowait_bp) VALUES (1, 1, 1, 0, 0, 0, 10001)",
                                      NULL, NULL, NULL) & 0xff, SQLITE_CONSTRAINT);
        ck_assert_int_eq(sqlite3_exec(s, "INSERT INTO sample_data (run_id, t_ms, interval_us, ios_read, "
                                         "ios_written, ops, dev_queue_milli) VALUES (1, 1, 1, 0, 0, 0, -1)",
                                      NULL, NULL, NULL) & 0xff, SQLITE_CONSTRAINT);
        /* samples is a view: readers only. */
        ck_assert_int_eq(sqlite3_exec(s, "INSERT INTO samples (run_id, t_ms, interval_us) VALUES (1, 2, 1)",
                                      NULL, NULL, NULL), SQLITE_ERROR);
        /* The run's tags, one row each (and again when they change). */
        ck_assert_int_eq(raw_int(s, "SELECT count(*) FROM run_tags WHERE run_id = 1 AND tag = 'x'"), 1);
        raw_exec(s, "UPDATE runs SET tags = '[\"y\",\"z\",\"y\"]' WHERE id = 1");
        {
                _cleanup_free_ char *tags = raw_text(s, "SELECT group_concat(tag) FROM (SELECT tag FROM run_tags "
                                                        "WHERE run_id = 1 ORDER BY tag)");
                ck_assert_str_eq(tags, "y,z");
        }
        sqlite3_close(s);
}
END_TEST

/* Another writer holding the lock: benchd waits (busy_timeout), then reports -EBUSY, and works
 * again once the lock is gone. */
START_TEST(test_busy) {
        _cleanup_(db_closep) Db *db = open_db();
        DbJob j = { .spec_json = "{}", .target = "/t" };
        sqlite3 *s = raw_open();
        uint64_t t0, id;
        Db *db2;

        raw_exec(s, "BEGIN IMMEDIATE");
        raw_exec(s, "INSERT INTO jobs (spec, target, submitted_by, submitted_usec) VALUES ('{}', '/t', 0, 1)");
        t0 = now_usec(CLOCK_MONOTONIC);
        ck_assert_int_eq(db_job_insert(db, &j, &id), -EBUSY);
        ck_assert_uint_ge(now_usec(CLOCK_MONOTONIC) - t0, 4 * USEC_PER_SEC);
        ck_assert_ptr_nonnull(strstr(db_last_error(db), "locked"));

        /* Opening an up-to-date database needs no write lock: a restart of benchd does not wait
         * for a user's transaction. */
        t0 = now_usec(CLOCK_MONOTONIC);
        db2 = open_db();
        ck_assert_uint_lt(now_usec(CLOCK_MONOTONIC) - t0, 2 * USEC_PER_SEC);
        db2 = db_close(db2);
        raw_exec(s, "COMMIT");
        sqlite3_close(s);

        ck_assert_int_eq(db_job_insert(db, &j, &id), 0);
        ck_assert_uint_eq(id, 2);
}
END_TEST

/* ---- jobs ---- */

typedef struct JobSeen {
        size_t n;
        uint64_t id[16];
        char state[16][16];
        uint64_t started[16], finished[16];
        char error[16][64];
        char spec[16][128];
        uint32_t submitted_by[16];
} JobSeen;

static int job_cb(const DbJob *job, void *userdata) {
        JobSeen *s = userdata;

        ck_assert_uint_lt(s->n, 16);
        s->id[s->n] = job->id;
        snprintf(s->state[s->n], sizeof(s->state[0]), "%s", job->state);
        s->started[s->n] = job->started_usec;
        s->finished[s->n] = job->finished_usec;
        snprintf(s->error[s->n], sizeof(s->error[0]), "%s", job->error ?: "");
        snprintf(s->spec[s->n], sizeof(s->spec[0]), "%s", job->spec_json);
        s->submitted_by[s->n] = job->submitted_by;
        s->n++;
        return 0;
}

static int job_cb_stop(const DbJob *job, void *userdata) {
        int *n = userdata;
        return ++*n >= 2 ? -ECANCELED : 0;
}

START_TEST(test_jobs) {
        _cleanup_(db_closep) Db *db = open_db();
        JobSeen seen = {};
        uint64_t a, b, c;
        int n = 0;

        a = add_job(db, "write", NULL);
        b = add_job(db, NULL, "dd");
        c = add_job(db, "read", NULL);
        ck_assert(a < b && b < c);

        ck_assert_int_eq(db_job_foreach(db, "queued", job_cb, &seen), 3);
        ck_assert_uint_eq(seen.n, 3);
        ck_assert_uint_eq(seen.id[0], a);
        ck_assert_uint_eq(seen.id[2], c);
        ck_assert_str_eq(seen.state[1], "queued");
        ck_assert_uint_eq(seen.started[1], 0);
        ck_assert_uint_eq(seen.submitted_by[1], 1000);
        ck_assert_str_eq(seen.spec[0], "{\"target\":\"/tmp/x\",\"workload\":\"write\"}");

        ck_assert_int_eq(db_job_set_state(db, a, "running", 111, 0, NULL), 0);
        /* 0 keeps the start time; the error is recorded. */
        ck_assert_int_eq(db_job_set_state(db, a, "failed", 0, 222, "disk full"), 0);
        ck_assert_int_eq(db_job_set_state(db, b, "running", 333, 0, NULL), 0);

        seen = (JobSeen) {};
        ck_assert_int_eq(db_job_foreach(db, "failed", job_cb, &seen), 1);
        ck_assert_uint_eq(seen.id[0], a);
        ck_assert_uint_eq(seen.started[0], 111);
        ck_assert_uint_eq(seen.finished[0], 222);
        ck_assert_str_eq(seen.error[0], "disk full");

        seen = (JobSeen) {};
        ck_assert_int_eq(db_job_foreach(db, "queued", job_cb, &seen), 1);
        ck_assert_uint_eq(seen.id[0], c);

        seen = (JobSeen) {};
        ck_assert_int_eq(db_job_foreach(db, NULL, job_cb, &seen), 3);
        ck_assert_str_eq(seen.state[0], "failed");
        ck_assert_str_eq(seen.state[1], "running");
        ck_assert_str_eq(seen.state[2], "queued");

        ck_assert_int_eq(db_job_foreach(db, NULL, job_cb_stop, &n), -ECANCELED);
        ck_assert_int_eq(n, 2);

        ck_assert_int_eq(db_job_set_state(db, a, "exploded", 0, 0, NULL), -EINVAL);
        ck_assert_int_eq(db_job_set_state(db, a, NULL, 0, 0, NULL), -EINVAL);
        ck_assert_int_eq(db_job_set_state(db, 9999, "failed", 0, 0, NULL), -ENOENT);
        ck_assert_ptr_nonnull(strstr(db_last_error(db), "9999"));
}
END_TEST

START_TEST(test_job_bad_spec) {
        _cleanup_(db_closep) Db *db = open_db();
        DbJob j = { .spec_json = "not json", .target = "/tmp" };
        uint64_t id = 77;

        ck_assert_int_eq(db_job_insert(db, &j, &id), -EINVAL);
        ck_assert_uint_eq(id, 77); /* untouched on failure */
        j.spec_json = NULL;
        ck_assert_int_eq(db_job_insert(db, &j, &id), -EINVAL);
}
END_TEST

START_TEST(test_job_ids_not_reused) {
        _cleanup_(db_closep) Db *db = open_db();
        uint64_t a = add_job(db, "write", NULL), b;
        sqlite3 *s = raw_open();
        char sql[64];

        snprintf(sql, sizeof(sql), "DELETE FROM jobs WHERE id = %" PRIu64, a);
        raw_exec(s, sql);
        sqlite3_close(s);
        b = add_job(db, "write", NULL);
        ck_assert_uint_gt(b, a);
}
END_TEST

/* ---- runs ---- */

static ProtoResult known_result(void) {
        return (ProtoResult) {
                .started_usec = 1700000000500000,
                .duration_usec = 2000000,             /* 2 s */
                .bytes_read = 0,
                .bytes_written = 200 * 1048576ull,    /* 200 MiB: 100 MiB/s */
                .ios_read = 0,
                .ios_written = 6400,                  /* 3200 IOPS */
                .ops = 0,
                .lat_min_ns = 1000,
                .lat_mean_ns = 300000,
                .lat_stddev_ns = 5000,
                .lat_p50_ns = 290000,
                .lat_p90_ns = 310000,
                .lat_p95_ns = 320000,
                .lat_p99_ns = 400000,
                .lat_p999_ns = 500000,
                .lat_p9999_ns = 600000,
                .lat_max_ns = 700000,
                .iowait_pct = 12.5,
                .cpu_user_pct = 1.5,
                .cpu_sys_pct = 3.25,
                .dev_util_pct = -1,
                .device = (char *) "loop7",
                .process_user_usec = 100000,
                .process_sys_usec = 500000,           /* 30% of one CPU */
                .counters = PROTO_COUNTERS_DEVICE,    /* no backing disk: NULL */
                .device_bytes_read = 4096,
                .device_bytes_written = 201 * 1048576ull,
                .served = SERVED_DEVICE,
        };
}

START_TEST(test_run_begin_finish) {
        _cleanup_(db_closep) Db *db = open_db();
        ProtoResult res = known_result();
        Rows rows = {};
        uint64_t job = add_job(db, "write", "dd"), run;
        const Row *row;

        run = add_run(db, job, 0, &plain_run);

        ck_assert_int_eq(db_get_run(db, run, collect, &rows), 1);
        row = &rows.row[0];
        ck_assert_int_eq(field_int(row, "id"), (int64_t) run);
        ck_assert_int_eq(field_int(row, "job_id"), (int64_t) job);
        ck_assert_str_eq(field_text(row, "status"), "running");
        ck_assert_str_eq(field_text(row, "profile"), "dd");
        ck_assert_str_eq(field_text(row, "workload"), "write");
        ck_assert_int_eq(field_int(row, "block_size"), 32768);
        ck_assert_int_eq(field_int(row, "direct"), 1);
        ck_assert_str_eq(field_text(row, "sync"), "end:fsync");
        ck_assert(field_null(row, "duration_usec"));
        ck_assert(field_null(row, "mib_per_s"));
        ck_assert(field_null(row, "device_id"));
        ck_assert(field_null(row, "device_name"));
        ck_assert_str_eq(field_text(row, "environment"), "{\"kernel\":\"6.1\"}");
        ck_assert_str_eq(field_text(row, "spec"), "{\"target\":\"/tmp/x\",\"workload\":\"write\"}");
        rows_clear(&rows);

        ck_assert_int_eq(db_run_finish(db, run, "running", NULL, NULL), -EINVAL);
        ck_assert_int_eq(db_run_finish(db, run, "bogus", NULL, NULL), -EINVAL);
        ck_assert_int_eq(db_run_finish(db, 4242, "succeeded", NULL, &res), -ENOENT);
        ck_assert_int_eq(db_run_finish(db, run, "succeeded", NULL, &res), 0);

        ck_assert_int_eq(db_get_run(db, run, collect, &rows), 1);
        row = &rows.row[0];
        ck_assert_str_eq(field_text(row, "status"), "succeeded");
        ck_assert(field_null(row, "error"));
        ck_assert_int_eq(field_int(row, "started_usec"), 1700000000500000);
        ck_assert_int_eq(field_int(row, "duration_usec"), 2000000);
        ck_assert_int_eq(field_int(row, "bytes_written"), 200 * 1048576);
        ck_assert_int_eq(field_int(row, "ios_written"), 6400);
        ck_assert_int_eq(field_int(row, "lat_min_ns"), 1000);
        ck_assert_int_eq(field_int(row, "lat_p90_ns"), 310000);
        ck_assert_int_eq(field_int(row, "lat_p999_ns"), 500000);
        ck_assert_int_eq(field_int(row, "lat_p9999_ns"), 600000);
        ck_assert_int_eq(field_int(row, "lat_max_ns"), 700000);
        ck_assert_double_eq(field_real(row, "iowait_pct"), 12.5);
        ck_assert_double_eq(field_real(row, "cpu_sys_pct"), 3.25);
        ck_assert(field_null(row, "dev_util_pct")); /* -1: unknown */
        ck_assert_str_eq(field_text(row, "device_name"), "loop7");
        ck_assert_double_eq_tol(field_real(row, "mib_per_s"), 100.0, 1e-9);
        ck_assert_double_eq_tol(field_real(row, "write_mib_per_s"), 100.0, 1e-9);
        ck_assert_double_eq_tol(field_real(row, "read_mib_per_s"), 0.0, 1e-9);
        ck_assert_double_eq_tol(field_real(row, "mb_per_s"), 104.8576, 1e-9);
        ck_assert_double_eq_tol(field_real(row, "iops"), 3200.0, 1e-9);
        ck_assert_double_eq_tol(field_real(row, "write_iops"), 3200.0, 1e-9);
        /* The worker's CPU time, the devices' counters and what they make of the run. */
        ck_assert_int_eq(field_int(row, "process_user_usec"), 100000);
        ck_assert_int_eq(field_int(row, "process_sys_usec"), 500000);
        ck_assert_double_eq_tol(field_real(row, "process_cpu_pct"), 30.0, 1e-9);
        ck_assert_int_eq(field_int(row, "device_bytes_read"), 4096);
        ck_assert_int_eq(field_int(row, "device_bytes_written"), 201 * 1048576);
        ck_assert(field_null(row, "backing_bytes_read"));
        ck_assert(field_null(row, "backing_bytes_written"));
        ck_assert_str_eq(field_text(row, "served_from"), "device");
        rows_clear(&rows);

        /* A run the page cache served, on a loop device whose image's disk saw nothing. */
        res.counters = PROTO_COUNTERS_DEVICE | PROTO_COUNTERS_BACKING;
        res.device_bytes_written = 0;
        res.served = SERVED_PAGE_CACHE;
        run = add_run(db, job, 2, &plain_run);
        ck_assert_int_eq(db_run_finish(db, run, "succeeded", NULL, &res), 0);
        ck_assert_int_eq(db_get_run(db, run, collect, &rows), 1);
        ck_assert_str_eq(field_text(&rows.row[0], "served_from"), "page-cache");
        ck_assert_int_eq(field_int(&rows.row[0], "backing_bytes_written"), 0);
        rows_clear(&rows);
        res = known_result();

        /* A failed run keeps its error and no summary. */
        run = add_run(db, job, 1, &plain_run);
        ck_assert_int_eq(db_run_finish(db, run, "failed", "worker crashed", NULL), 0);
        ck_assert_int_eq(db_get_run(db, run, collect, &rows), 1);
        ck_assert_str_eq(field_text(&rows.row[0], "status"), "failed");
        ck_assert_str_eq(field_text(&rows.row[0], "error"), "worker crashed");
        ck_assert(field_null(&rows.row[0], "bytes_written"));
        rows_clear(&rows);
}
END_TEST

START_TEST(test_run_missing_job_or_bad_tags) {
        _cleanup_(db_closep) Db *db = open_db();
        DbRun run = { .spec = fixture_spec("workload=write target=/tmp"), .started_usec = 1 };
        JobSpec none;
        uint64_t id = 0, job;

        run.job_id = 12345;
        ck_assert_int_eq(db_run_begin(db, &run, &id), -ENOENT);
        job = add_job(db, "write", NULL);
        run.job_id = job;
        /* A spec without a workload (a profile's) is no run's. */
        spec_init(&none);
        run.spec = &none;
        ck_assert_int_eq(db_run_begin(db, &run, &id), -EINVAL);
        run.spec = NULL;
        ck_assert_int_eq(db_run_begin(db, &run, &id), -EINVAL);
        run.spec = fixture_spec("workload=randrw target=/tmp rwmix_read=100 tags=a,b");
        ck_assert_int_eq(db_run_begin(db, &run, &id), 0);
        ck_assert_uint_gt(id, 0);
}
END_TEST

START_TEST(test_run_interrupt_stale) {
        _cleanup_(db_closep) Db *db = open_db();
        uint64_t job = add_job(db, "write", NULL), a, b, c;
        Rows rows = {};

        a = add_run(db, job, 0, &plain_run);
        b = add_run(db, job, 1, &plain_run);
        c = add_run(db, job, 2, &plain_run);
        ck_assert_int_eq(db_run_finish(db, b, "succeeded", NULL, NULL), 0);

        ck_assert_int_eq(db_run_interrupt_stale(db), 2);
        ck_assert_int_eq(db_run_interrupt_stale(db), 0);

        ck_assert_int_eq(db_get_run(db, a, collect, &rows), 1);
        ck_assert_int_eq(db_get_run(db, b, collect, &rows), 1);
        ck_assert_int_eq(db_get_run(db, c, collect, &rows), 1);
        ck_assert_str_eq(field_text(&rows.row[0], "status"), "interrupted");
        ck_assert_str_eq(field_text(&rows.row[1], "status"), "succeeded");
        ck_assert_str_eq(field_text(&rows.row[2], "status"), "interrupted");
        ck_assert(!field_null(&rows.row[0], "error"));
        rows_clear(&rows);
}
END_TEST

START_TEST(test_get_run_missing) {
        _cleanup_(db_closep) Db *db = open_db();
        Rows rows = {};

        ck_assert_int_eq(db_get_run(db, 1, collect, &rows), -ENOENT);
        ck_assert_int_eq(db_get_run(db, 0, collect, &rows), -ENOENT);
        ck_assert_uint_eq(rows.n, 0);
        ck_assert_int_eq(db_get_samples(db, 5, collect, &rows), -ENOENT);
        ck_assert_int_eq(db_get_histogram(db, 5, NULL, NULL), -ENOENT);
}
END_TEST

/* ---- samples ---- */

static ProtoSample sample_at(uint64_t i) {
        return (ProtoSample) {
                .t_ms = (i + 1) * 1000,
                .interval_us = 1000000 + i,
                .bytes_read = 10 * i,
                .bytes_written = 1048576 * (i + 1),
                .ios_read = i,
                .ios_written = 32 * (i + 1),
                .ops = 0,
                .lat_mean_ns = 1000 + i,
                .lat_p50_ns = 900 + i,
                .lat_p99_ns = 5000 + i,
                .lat_max_ns = 9000 + i,
                .iowait_pct = 0.5 * (double) i,
                .cpu_user_pct = 1.0,
                .cpu_sys_pct = 2.0,
                .dev_util_pct = i % 2 ? 50.0 : -1,
                .dev_queue = i % 2 ? 1.25 : -1,
                .progress = 0.1 * (double) i,
        };
}

START_TEST(test_samples) {
        _cleanup_(db_closep) Db *db = open_db();
        uint64_t run = add_run(db, add_job(db, "write", NULL), 0, &plain_run);
        ProtoSample s[10], late[2], dup[2];
        Rows rows = {};

        /* Inserted out of order; read back in t_ms order. */
        for (size_t i = 0; i < 10; i++)
                s[i] = sample_at(9 - i);
        ck_assert_int_eq(db_samples_insert(db, run, s, 10), 0);
        ck_assert_int_eq(db_samples_insert(db, run, NULL, 0), 0);

        ck_assert_int_eq(db_get_samples(db, run, collect, &rows), 10);
        for (size_t i = 0; i < 10; i++) {
                const Row *row = &rows.row[i];
                ProtoSample want = sample_at(i);

                ck_assert_int_eq(field_int(row, "t_ms"), (int64_t) want.t_ms);
                ck_assert_int_eq(field_int(row, "interval_us"), (int64_t) want.interval_us);
                ck_assert_int_eq(field_int(row, "bytes_read"), (int64_t) want.bytes_read);
                ck_assert_int_eq(field_int(row, "bytes_written"), (int64_t) want.bytes_written);
                ck_assert_int_eq(field_int(row, "ios_read"), (int64_t) want.ios_read);
                ck_assert_int_eq(field_int(row, "ios_written"), (int64_t) want.ios_written);
                ck_assert_int_eq(field_int(row, "ops"), 0);
                ck_assert_int_eq(field_int(row, "lat_mean_ns"), (int64_t) want.lat_mean_ns);
                ck_assert_int_eq(field_int(row, "lat_p50_ns"), (int64_t) want.lat_p50_ns);
                ck_assert_int_eq(field_int(row, "lat_p99_ns"), (int64_t) want.lat_p99_ns);
                ck_assert_int_eq(field_int(row, "lat_max_ns"), (int64_t) want.lat_max_ns);
                ck_assert_double_eq(field_real(row, "iowait_pct"), want.iowait_pct);
                ck_assert_double_eq(field_real(row, "cpu_user_pct"), 1.0);
                ck_assert_double_eq(field_real(row, "cpu_sys_pct"), 2.0);
                if (i % 2) {
                        ck_assert_double_eq(field_real(row, "dev_util_pct"), 50.0);
                        ck_assert_double_eq(field_real(row, "dev_queue"), 1.25);
                } else {
                        ck_assert(field_null(row, "dev_util_pct"));
                        ck_assert(field_null(row, "dev_queue"));
                }
        }
        rows_clear(&rows);

        /* A batch with a duplicate t_ms fails as a whole: nothing of it is kept. */
        late[0] = sample_at(20);
        late[1] = sample_at(3);
        ck_assert_int_eq(db_samples_insert(db, run, late, 2), -EEXIST);
        ck_assert_int_eq(db_get_samples(db, run, NULL, NULL), 10);

        /* The store is usable after the failed batch (the transaction was rolled back). */
        dup[0] = sample_at(20);
        dup[1] = sample_at(21);
        ck_assert_int_eq(db_samples_insert(db, run, dup, 2), 0);
        ck_assert_int_eq(db_get_samples(db, run, NULL, NULL), 12);

        /* Samples of a run that does not exist. */
        ck_assert_int_eq(db_samples_insert(db, run + 100, dup, 2), -ENOENT);

        /* The callback can stop the walk. */
        rows.stop_after = 3;
        ck_assert_int_eq(db_get_samples(db, run, collect, &rows), -ECANCELED);
        ck_assert_uint_eq(rows.n, 3);
        rows_clear(&rows);
}
END_TEST

START_TEST(test_samples_many) {
        _cleanup_(db_closep) Db *db = open_db();
        uint64_t run = add_run(db, add_job(db, "write", NULL), 0, &plain_run);
        _cleanup_free_ ProtoSample *s = calloc(5000, sizeof(ProtoSample));
        sqlite3 *raw;

        ck_assert_ptr_nonnull(s);
        for (size_t i = 0; i < 5000; i++)
                s[i] = sample_at(i);
        ck_assert_int_eq(db_samples_insert(db, run, s, 5000), 0);
        ck_assert_int_eq(db_get_samples(db, run, NULL, NULL), 5000);

        raw = raw_open();
        ck_assert_int_eq(raw_int(raw, "SELECT sum(bytes_written) FROM samples"),
                         (int64_t) 1048576 * 5000 * 5001 / 2);
        sqlite3_close(raw);
}
END_TEST

/* What sample_data holds: bytes only where they are not ios × the run's block size (32 KiB here),
 * percentages in basis points, the queue in 1/1000. */
START_TEST(test_samples_compact) {
        _cleanup_(db_closep) Db *db = open_db();
        uint64_t run = add_run(db, add_job(db, "write", NULL), 0, &plain_run);
        ProtoSample smp = sample_at(3);
        sqlite3 *s;

        ck_assert_int_eq(db_samples_insert(db, run, &smp, 1), 0);
        s = raw_open();
        /* bytes_written = 4 MiB = 128 × 32 KiB: implied; bytes_read = 30 for 3 I/Os: kept. */
        ck_assert_int_eq(raw_int(s, "SELECT bytes_written IS NULL FROM sample_data"), 1);
        ck_assert_int_eq(raw_int(s, "SELECT bytes_read FROM sample_data"), 30);
        ck_assert_int_eq(raw_int(s, "SELECT iowait_bp FROM sample_data"), 150);
        ck_assert_int_eq(raw_int(s, "SELECT cpu_sys_bp FROM sample_data"), 200);
        ck_assert_int_eq(raw_int(s, "SELECT dev_queue_milli FROM sample_data"), 1250);
        ck_assert_int_eq(raw_int(s, "SELECT typeof(iowait_bp) = 'integer' FROM sample_data"), 1);
        /* and the view, as users read it */
        ck_assert_int_eq(raw_int(s, "SELECT bytes_written FROM samples"), 4 << 20);
        ck_assert_int_eq(raw_int(s, "SELECT typeof(iowait_pct) = 'real' AND iowait_pct = 1.5 FROM samples"), 1);
        sqlite3_close(s);
}
END_TEST

/* interval_us is stored only where t_ms does not say it to within 1 ms and 1 %: after a lost
 * sample, for a last interval shorter than 1 ms; a sample put before others keeps theirs. */
START_TEST(test_samples_interval) {
        static const struct {
                uint64_t t_ms, interval_us;
                bool stored;
        } cases[] = {
                { 1000, 1000321, false },       /* the first: from 0 */
                { 2000, 999876, false },
                { 3001, 1000999, false },
                { 5001, 1000050, true },        /* the sample at 4001 was lost */
                { 5101, 100456, false },        /* sample_ms=100: 0.46 % */
                { 5201, 101200, true },         /* 1.2 % */
                { 5202, 312, true },            /* the last, 312 µs, given t_ms + 1 */
        };
        _cleanup_(db_closep) Db *db = open_db();
        uint64_t run = add_run(db, add_job(db, "write", NULL), 0, &plain_run);
        ProtoSample smp[ELEMENTSOF(cases)], early;
        Rows rows = {};
        sqlite3 *s;

        for (size_t i = 0; i < ELEMENTSOF(cases); i++)
                smp[i] = (ProtoSample) { .t_ms = cases[i].t_ms, .interval_us = cases[i].interval_us,
                                         .dev_util_pct = -1, .dev_queue = -1 };
        ck_assert_int_eq(db_samples_insert(db, run, smp, 3), 0);
        ck_assert_int_eq(db_samples_insert(db, run, smp + 3, ELEMENTSOF(cases) - 3), 0);

        s = raw_open();
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                char sql[200];

                snprintf(sql, sizeof(sql), "SELECT interval_us IS NOT NULL FROM sample_data WHERE t_ms = %" PRIu64,
                         cases[i].t_ms);
                ck_assert_msg(raw_int(s, sql) == cases[i].stored, "t_ms %" PRIu64, cases[i].t_ms);
        }
        sqlite3_close(s);

        ck_assert_int_eq(db_get_samples(db, run, collect, &rows), (int) ELEMENTSOF(cases));
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                int64_t got = field_int(&rows.row[i], "interval_us"), want = (int64_t) cases[i].interval_us;

                if (cases[i].stored)
                        ck_assert_int_eq(got, want);
                else
                        ck_assert_int_le(llabs(got - want), MIN(999, want / 100));
        }
        rows_clear(&rows);

        /* A sample put between 2000 and 3001 (a late batch): 3001's interval is written out, as it
         * was, and the newcomer's derived from 2000. Pages from the middle see the same. */
        early = (ProtoSample) { .t_ms = 2500, .interval_us = 500100, .dev_util_pct = -1, .dev_queue = -1 };
        ck_assert_int_eq(db_samples_insert(db, run, &early, 1), 0);
        ck_assert_int_eq(db_get_samples_page(db, run, 2500, 2, collect, &rows), 2);
        ck_assert_int_le(llabs(field_int(&rows.row[0], "interval_us") - 500100), 999);
        ck_assert_int_eq(field_int(&rows.row[1], "t_ms"), 3001);
        ck_assert_int_eq(field_int(&rows.row[1], "interval_us"), 1001000);
        rows_clear(&rows);
}
END_TEST

/* Values as the worker measures them come back within the stated resolution: 0.005 percentage
 * points (half a basis point), 0.0005 of a request; bytes and everything else exactly. */
START_TEST(test_samples_resolution) {
        static const struct {
                double pct, queue;
                uint64_t bytes, ios;
        } cases[] = {
                { 0.0, 0.0, 0, 0 },
                { 100.0, 1024.0, 32768, 1 },
                { 100.0 * 1 / 3, 31.8765, 32768 * 5 + 1, 5 },   /* not whole blocks: kept as it is */
                { 100.0 * 7 / 800, 0.0004, 4096, 1 },            /* 7 ticks of 8 CPUs over 1 s */
                { 100.0 * 12345 / 25600, 255.9996, 0, 3 },       /* 256 CPUs */
                { 99.99999, 1e6 + 0.25, UINT64_C(1) << 40, (UINT64_C(1) << 40) / 32768 },
                { 0.004999, 0.00049, 1, 0 },
                { -1.0, -1.0, 12, 0 },                           /* unknown */
        };
        _cleanup_(db_closep) Db *db = open_db();
        uint64_t run = add_run(db, add_job(db, "write", NULL), 0, &plain_run);
        ProtoSample smp[ELEMENTSOF(cases)];
        Rows rows = {};

        for (size_t i = 0; i < ELEMENTSOF(cases); i++)
                smp[i] = (ProtoSample) {
                        .t_ms = 1000 * (i + 1), .interval_us = 999999 + i,
                        .bytes_read = cases[i].bytes, .ios_read = cases[i].ios,
                        .bytes_written = cases[i].bytes / 2, .ios_written = cases[i].ios,
                        .lat_mean_ns = 123457 + i, .lat_p50_ns = 120831, .lat_p99_ns = 901119, .lat_max_ns = 7654321,
                        .iowait_pct = cases[i].pct, .cpu_user_pct = cases[i].pct / 2, .cpu_sys_pct = cases[i].pct / 3,
                        .dev_util_pct = cases[i].pct, .dev_queue = cases[i].queue,
                };
        ck_assert_int_eq(db_samples_insert(db, run, smp, ELEMENTSOF(cases)), 0);
        ck_assert_int_eq(db_get_samples(db, run, collect, &rows), (int) ELEMENTSOF(cases));
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                const Row *row = &rows.row[i];
                const char *const pcts[] = { "iowait_pct", "cpu_user_pct", "cpu_sys_pct", "dev_util_pct" };
                const double want[] = { smp[i].iowait_pct, smp[i].cpu_user_pct, smp[i].cpu_sys_pct,
                                        smp[i].dev_util_pct };

                /* implied by t_ms: within 1 ms and 1 % */
                ck_assert_int_le(llabs(field_int(row, "interval_us") - (int64_t) smp[i].interval_us),
                                 MIN(999, (int64_t) smp[i].interval_us / 100));
                ck_assert_int_eq(field_int(row, "bytes_read"), (int64_t) smp[i].bytes_read);
                ck_assert_int_eq(field_int(row, "bytes_written"), (int64_t) smp[i].bytes_written);
                ck_assert_int_eq(field_int(row, "lat_mean_ns"), (int64_t) smp[i].lat_mean_ns);
                ck_assert_int_eq(field_int(row, "lat_max_ns"), 7654321);
                for (size_t k = 0; k < ELEMENTSOF(pcts); k++) {
                        if (want[k] < 0) {
                                ck_assert(field_null(row, pcts[k]));
                                continue;
                        }
                        /* 0 and whole basis points come back as integers-valued reals */
                        ck_assert_msg(fabs(field(row, pcts[k])->d - want[k]) <= 0.005 + 1e-9,
                                      "case %zu %s: %.6f stored as %.6f", i, pcts[k], want[k], field(row, pcts[k])->d);
                }
                if (cases[i].queue < 0)
                        ck_assert(field_null(row, "dev_queue"));
                else
                        ck_assert_msg(fabs(field(row, "dev_queue")->d - cases[i].queue) <= 0.0005 + 1e-9,
                                      "case %zu dev_queue: %.6f stored as %.6f", i, cases[i].queue,
                                      field(row, "dev_queue")->d);
        }
        rows_clear(&rows);
}
END_TEST

/* ---- histograms ---- */

typedef struct HistSeen {
        size_t n;
        uint64_t upper[64], count[64];
} HistSeen;

static int hist_cb(uint64_t upper_ns, uint64_t count, void *userdata) {
        HistSeen *h = userdata;

        ck_assert_uint_lt(h->n, 64);
        h->upper[h->n] = upper_ns;
        h->count[h->n] = count;
        h->n++;
        return 0;
}

START_TEST(test_histogram) {
        _cleanup_(db_closep) Db *db = open_db();
        uint64_t run = add_run(db, add_job(db, "write", NULL), 0, &plain_run);
        const ProtoHistogramEntry e[] = {
                { histogram_bucket_index(250000), 7 },
                { 3, 1 },
                { histogram_bucket_index(1000), 100 },
                { histogram_bucket_index(5000000), 2 },
                { 10, 0 }, /* empty buckets are not stored */
        };
        const ProtoHistogramEntry e2[] = { { 5, 9 } };
        const ProtoHistogramEntry bad[] = { { HISTOGRAM_BUCKETS, 1 } };
        HistSeen h = {};

        ck_assert_int_eq(db_histogram_insert(db, run, e, ELEMENTSOF(e)), 0);
        ck_assert_int_eq(db_get_histogram(db, run, hist_cb, &h), 4);
        ck_assert_uint_eq(h.n, 4);
        ck_assert_uint_eq(h.upper[0], histogram_bucket_upper(3));
        ck_assert_uint_eq(h.count[0], 1);
        ck_assert_uint_eq(h.upper[1], histogram_bucket_upper(histogram_bucket_index(1000)));
        ck_assert_uint_eq(h.count[1], 100);
        ck_assert_uint_eq(h.upper[2], histogram_bucket_upper(histogram_bucket_index(250000)));
        ck_assert_uint_eq(h.count[2], 7);
        ck_assert_uint_eq(h.upper[3], histogram_bucket_upper(histogram_bucket_index(5000000)));
        ck_assert_uint_eq(h.count[3], 2);
        ck_assert_uint_ge(h.upper[2], 250000);
        ck_assert_uint_lt(h.upper[2], 250000 + 250000 / 100);

        /* Replaces, does not add. */
        ck_assert_int_eq(db_histogram_insert(db, run, e2, 1), 0);
        h = (HistSeen) {};
        ck_assert_int_eq(db_get_histogram(db, run, hist_cb, &h), 1);
        ck_assert_uint_eq(h.upper[0], 5);
        ck_assert_uint_eq(h.count[0], 9);

        /* An out-of-range bucket is refused and the old histogram kept. */
        ck_assert_int_eq(db_histogram_insert(db, run, bad, 1), -EINVAL);
        ck_assert_int_eq(db_get_histogram(db, run, NULL, NULL), 1);
        ck_assert_int_eq(db_histogram_insert(db, run + 1, e2, 1), -ENOENT);
}
END_TEST

START_TEST(test_histogram_top_buckets) {
        _cleanup_(db_closep) Db *db = open_db();
        uint64_t run = add_run(db, add_job(db, "write", NULL), 0, &plain_run);
        const ProtoHistogramEntry e[] = {
                { HISTOGRAM_BUCKETS - 1, 1 },
                { HISTOGRAM_BUCKETS - 2, 2 },
                { 0, 3 },
        };
        HistSeen h = {};

        ck_assert_int_eq(db_histogram_insert(db, run, e, ELEMENTSOF(e)), 0);
        ck_assert_int_eq(db_get_histogram(db, run, hist_cb, &h), 2);
        ck_assert_uint_eq(h.upper[0], 0);
        ck_assert_uint_eq(h.count[0], 3);
        ck_assert_uint_eq(h.upper[1], (uint64_t) INT64_MAX);
        ck_assert_uint_eq(h.count[1], 3);
}
END_TEST

/* ---- devices ---- */

START_TEST(test_devices) {
        _cleanup_(db_closep) Db *db = open_db();
        DbDevice d = {
                .identity = "wwn:0x5000c500a1b2c3d4",
                .model = "ST4000DM004",
                .vendor = "ATA",
                .serial = "ZFN0ABCD",
                .wwn = "0x5000c500a1b2c3d4",
                .firmware = "0001",
                .name = "sdb",
                .size = 4000787030016,
                .rotational = 1,
                .logical_block_size = 512,
                .physical_block_size = 4096,
                .seen_usec = 1000,
        };
        int64_t id = 0, id2 = 0, id3 = 0;
        uint64_t n = 99;
        RunDef rd = plain_run;
        sqlite3 *s;

        ck_assert_int_eq(db_device_upsert(db, &d, &id), 0);
        ck_assert_int_gt(id, 0);

        /* Same disk, now sdc, firmware updated, model not reported this time. */
        d.name = "sdc";
        d.firmware = "0002";
        d.model = NULL;
        d.seen_usec = 2000;
        ck_assert_int_eq(db_device_upsert(db, &d, &id2), 0);
        ck_assert_int_eq(id2, id);

        s = raw_open();
        ck_assert_int_eq(raw_int(s, "SELECT first_seen_usec FROM devices"), 1000);
        ck_assert_int_eq(raw_int(s, "SELECT last_seen_usec FROM devices"), 2000);
        ck_assert_int_eq(raw_int(s, "SELECT count(*) FROM devices WHERE last_name = 'sdc' "
                                    "AND firmware = '0002' AND model = 'ST4000DM004'"), 1);
        sqlite3_close(s);

        d = (DbDevice) { .identity = "model:QEMU HARDDISK:1073741824:vda", .name = "vda", .rotational = -1 };
        ck_assert_int_eq(db_device_upsert(db, &d, &id3), 0);
        ck_assert_int_ne(id3, id);

        d.identity = "sdb"; /* not an identity */
        ck_assert_int_eq(db_device_upsert(db, &d, &id3), -EINVAL);
        d.identity = NULL;
        ck_assert_int_eq(db_device_upsert(db, &d, &id3), -EINVAL);

        ck_assert_int_eq(db_device_count_runs(db, id, &n), 0);
        ck_assert_uint_eq(n, 0);
        rd.device_id = id;
        rd.device_name = "sdc";
        add_run(db, add_job(db, "write", NULL), 0, &rd);
        add_run(db, add_job(db, "write", NULL), 0, &rd);
        ck_assert_int_eq(db_device_count_runs(db, id, &n), 0);
        ck_assert_uint_eq(n, 2);
        ck_assert_int_eq(db_device_count_runs(db, id3, &n), 0);
        ck_assert_uint_eq(n, 0);
        ck_assert_int_eq(db_device_count_runs(db, 4711, &n), -ENOENT);

        rd.device_id = 4711;
        ck_assert_int_eq(db_run_begin(db, &(DbRun) { .spec = fixture_spec("workload=read target=/dev/sdc"),
                                                     .device_id = 4711, .started_usec = 1 }, NULL),
                         -ENOENT);
}
END_TEST

/* ---- queries ---- */

#define DAY_USEC (UINT64_C(86400) * USEC_PER_SEC)
#define T0 UINT64_C(1700000000000000)

typedef struct QueryFixture {
        uint64_t job1, job2;
        uint64_t run[8];
        int64_t dev;
} QueryFixture;

/* Eight runs, started one day apart (run[0] oldest), over two jobs and two devices. */
static void query_fixture(Db *db, QueryFixture *q) {
        DbDevice d = { .identity = "serial:ABC123", .name = "sdb", .rotational = 0, .seen_usec = T0 };
        const RunDef defs[8] = {
                { "write",    T0 + 0 * DAY_USEC, 0, "sdb", "nightly", "ext4", "a" },
                { "read",     T0 + 1 * DAY_USEC, 0, "sdb", "nightly,x", "ext4", "a" },
                { "randread", T0 + 2 * DAY_USEC, 0, "sdb", NULL, "btrfs", "b" },
                { "randread", T0 + 3 * DAY_USEC, 0, "sdc", NULL, "btrfs", "b" },
                { "randread", T0 + 4 * DAY_USEC, -1, "nvme0n1", "x", "xfs", NULL },
                { "write",    T0 + 5 * DAY_USEC, -1, "nvme0n1", NULL, "xfs", NULL },
                { "randread", T0 + 6 * DAY_USEC, 0, NULL, "nightly", NULL, "a" },
                { "read",     T0 + 7 * DAY_USEC, -1, NULL, NULL, NULL, NULL },
        };

        ck_assert_int_eq(db_device_upsert(db, &d, &q->dev), 0);
        q->job1 = add_job(db, NULL, "crystal");
        q->job2 = add_job(db, "read", NULL);
        for (size_t i = 0; i < 8; i++) {
                RunDef rd = defs[i];
                if (rd.device_id == 0)
                        rd.device_id = q->dev; /* known identity; its name may have changed */
                q->run[i] = add_run(db, i < 5 ? q->job1 : q->job2, (uint32_t) (i < 5 ? i : i - 5), &rd);
        }
        ck_assert_int_eq(db_run_finish(db, q->run[3], "failed", "boom", NULL), 0);
}

typedef struct QueryCase {
        const char *what;
        DbRunFilter f;
        int job;          /* 1 or 2: filter on that fixture job */
        int expect[9];    /* indexes into QueryFixture.run, newest first, terminated by -1 */
} QueryCase;

static const QueryCase query_cases[] = {
        { "all, newest first", {}, 0, { 7, 6, 5, 4, 3, 2, 1, 0, -1 } },
        { "workload", { .workload = "randread" }, 0, { 6, 4, 3, 2, -1 } },
        { "workload, none", { .workload = "seeks" }, 0, { -1 } },
        { "device by kernel name", { .device = "sdb" }, 0, { 2, 1, 0, -1 } },
        { "device by identity", { .device = "serial:ABC123" }, 0, { 6, 3, 2, 1, 0, -1 } },
        { "device by name, no identity", { .device = "nvme0n1" }, 0, { 5, 4, -1 } },
        { "identity + workload", { .device = "serial:ABC123", .workload = "randread" }, 0,
          { 6, 3, 2, -1 } },
        { "identity + workload over a window", { .device = "serial:ABC123", .workload = "randread",
                                                 .since_usec = T0 + 3 * DAY_USEC }, 0, { 6, 3, -1 } },
        { "job 1", {}, 1, { 4, 3, 2, 1, 0, -1 } },
        { "job 2", {}, 2, { 7, 6, 5, -1 } },
        { "profile", { .profile = "crystal" }, 0, { 4, 3, 2, 1, 0, -1 } },
        { "fs_type", { .fs_type = "btrfs" }, 0, { 3, 2, -1 } },
        { "label", { .label = "a" }, 0, { 6, 1, 0, -1 } },
        { "status", { .status = "failed" }, 0, { 3, -1 } },
        { "status running", { .status = "running" }, 0, { 7, 6, 5, 4, 2, 1, 0, -1 } },
        { "tag nightly", { .tag = "nightly" }, 0, { 6, 1, 0, -1 } },
        { "tag x", { .tag = "x" }, 0, { 4, 1, -1 } },
        { "tag, substring does not match", { .tag = "night" }, 0, { -1 } },
        { "since (inclusive)", { .since_usec = T0 + 5 * DAY_USEC }, 0, { 7, 6, 5, -1 } },
        { "until (exclusive)", { .until_usec = T0 + 2 * DAY_USEC }, 0, { 1, 0, -1 } },
        { "window", { .since_usec = T0 + 2 * DAY_USEC, .until_usec = T0 + 4 * DAY_USEC }, 0,
          { 3, 2, -1 } },
        { "limit", { .limit = 3 }, 0, { 7, 6, 5, -1 } },
        { "limit + offset", { .limit = 2, .offset = 3 }, 0, { 4, 3, -1 } },
        { "offset past the end", { .offset = 100 }, 0, { -1 } },
        { "huge limit capped, still all", { .limit = UINT64_MAX }, 0, { 7, 6, 5, 4, 3, 2, 1, 0, -1 } },
        { "combined", { .workload = "randread", .tag = "nightly", .since_usec = T0 + DAY_USEC }, 0,
          { 6, -1 } },
        { "injection is just a value", { .workload = "x' OR 1=1 --" }, 0, { -1 } },
};

START_TEST(test_query_runs) {
        const QueryCase *c = &query_cases[_i];
        _cleanup_(db_closep) Db *db = open_db();
        QueryFixture q = {};
        DbRunFilter f = c->f;
        Rows rows = {};
        size_t n = 0;
        int r;

        query_fixture(db, &q);
        if (c->job)
                f.job = c->job == 1 ? q.job1 : q.job2;

        r = db_query_runs(db, &f, collect, &rows);
        ck_assert_msg(r >= 0, "%s: %s (%s)", c->what, strerror(-r), db_last_error(db));
        while (n < 8 && c->expect[n] >= 0)
                n++;
        ck_assert_msg((size_t) r == n && rows.n == n, "%s: %d rows, expected %zu", c->what, r, n);
        for (size_t i = 0; i < n; i++)
                ck_assert_msg(field_int(&rows.row[i], "id") == (int64_t) q.run[c->expect[i]],
                              "%s: row %zu is run %" PRIi64 ", expected %" PRIu64, c->what, i,
                              field_int(&rows.row[i], "id"), q.run[c->expect[i]]);
        rows_clear(&rows);
}
END_TEST

START_TEST(test_query_runs_fields) {
        _cleanup_(db_closep) Db *db = open_db();
        QueryFixture q = {};
        Rows rows = {};

        query_fixture(db, &q);
        ck_assert_int_eq(db_query_runs(db, NULL, collect, &rows), 8);
        /* run[6]: known device without a kernel name on the run row */
        ck_assert_str_eq(field_text(&rows.row[1], "device_identity"), "serial:ABC123");
        ck_assert_int_eq(field_int(&rows.row[1], "device_id"), q.dev);
        ck_assert(field_null(&rows.row[0], "device_identity"));
        ck_assert(field_null(&rows.row[1], "profile"));             /* job 2 has a workload */
        ck_assert_str_eq(field_text(&rows.row[3], "profile"), "crystal"); /* run[4], job 1 */
        ck_assert_str_eq(field_text(&rows.row[3], "tags"), "[\"x\"]");
        rows_clear(&rows);
}
END_TEST

START_TEST(test_query_limit_default_and_cap) {
        _cleanup_(db_closep) Db *db = open_db();
        uint64_t job = add_job(db, "write", NULL);
        sqlite3 *s;
        char sql[512];

        add_run(db, job, 0, &plain_run);
        /* Clone runs cheaply with SQL: 10100 rows. */
        s = raw_open();
        raw_exec(s, "PRAGMA busy_timeout = 5000");
        snprintf(sql, sizeof(sql),
                 "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 10100) "
                 "INSERT INTO runs (job_id, step, workload, block_size, size, runtime_ms, ramp_ms, "
                 "queue_depth, jobs, direct, target, started_usec) "
                 "SELECT job_id, step, workload, block_size, size, runtime_ms, ramp_ms, queue_depth, "
                 "jobs, direct, target, started_usec + i FROM runs, n WHERE runs.id = 1");
        raw_exec(s, sql);
        sqlite3_close(s);

        ck_assert_int_eq(db_query_runs(db, &(DbRunFilter) {}, NULL, NULL), 100);
        ck_assert_int_eq(db_query_runs(db, &(DbRunFilter) { .limit = 20000 }, NULL, NULL), 10000);
        ck_assert_int_eq(db_query_runs(db, &(DbRunFilter) { .limit = 10000, .offset = 10000 }, NULL,
                                       NULL), 101);
}
END_TEST

/* "workload X on device Y over the last 30 days" is an index search, not a scan. */
START_TEST(test_query_plan_uses_index) {
        _cleanup_(db_closep) Db *db = open_db();
        sqlite3 *s = raw_open();
        sqlite3_stmt *st = NULL;
        bool used = false, scanned = false;

        ck_assert_int_eq(sqlite3_prepare_v2(s,
                "EXPLAIN QUERY PLAN SELECT * FROM run_summary WHERE device_id = "
                "(SELECT id FROM devices WHERE identity = 'serial:X') AND workload = 'randread' "
                "AND started_usec >= 1700000000000000", -1, &st, NULL), SQLITE_OK);
        while (sqlite3_step(st) == SQLITE_ROW) {
                const char *detail = (const char *) sqlite3_column_text(st, 3);
                if (strstr(detail, "runs_device_workload_started"))
                        used = true;
                if (strstr(detail, "SCAN"))
                        scanned = true;
        }
        sqlite3_finalize(st);
        sqlite3_close(s);
        ck_assert(used);
        ck_assert(!scanned);
}
END_TEST

/* Deleting a job takes its runs, samples and histogram with it (documented pruning). */
START_TEST(test_cascade_delete) {
        _cleanup_(db_closep) Db *db = open_db();
        uint64_t job = add_job(db, "write", NULL), run = add_run(db, job, 0, &plain_run);
        ProtoSample smp = sample_at(0);
        ProtoHistogramEntry e = { 1, 1 };
        sqlite3 *s;

        ck_assert_int_eq(db_samples_insert(db, run, &smp, 1), 0);
        ck_assert_int_eq(db_histogram_insert(db, run, &e, 1), 0);

        s = raw_open();
        raw_exec(s, "PRAGMA foreign_keys = ON");
        raw_exec(s, "DELETE FROM jobs");
        ck_assert_int_eq(raw_int(s, "SELECT count(*) FROM runs"), 0);
        ck_assert_int_eq(raw_int(s, "SELECT count(*) FROM samples"), 0);
        ck_assert_int_eq(raw_int(s, "SELECT count(*) FROM run_histograms"), 0);
        sqlite3_close(s);
}
END_TEST

/* ---- phases (schema version 2) ---- */

static ProtoPhaseResult phase_def(const char *name, uint64_t ops) {
        ProtoPhaseResult p = {
                .ops = ops,
                .duration_usec = 500000,
                .lat_min_ns = ops ? 1000 : 0,
                .lat_mean_ns = ops ? 4000 : 0,
                .lat_p50_ns = ops ? 3000 : 0,
                .lat_p99_ns = ops ? 9000 : 0,
                .lat_max_ns = ops ? 20000 : 0,
        };
        snprintf(p.name, sizeof(p.name), "%s", name);
        return p;
}

START_TEST(test_run_phases) {
        static const char *const names[] = {
                "create-seq", "stat-seq", "delete-seq", "create-rand", "stat-rand", "delete-rand",
        };
        _cleanup_(db_closep) Db *db = open_db();
        uint64_t job = add_job(db, "metadata", NULL), run = add_run(db, job, 0, &plain_run);
        uint64_t other = add_run(db, job, 1, &plain_run);
        ProtoPhaseResult p;
        Rows rows = {};

        for (size_t i = 0; i < ELEMENTSOF(names); i++) {
                p = phase_def(names[i], 1000 * (i + 1));
                ck_assert_int_eq(db_run_phase_insert(db, run, &p), 0);
        }
        /* A phase with no operations: no rate, all latencies 0. */
        p = phase_def("idle", 0);
        p.duration_usec = 0;
        ck_assert_int_eq(db_run_phase_insert(db, run, &p), 0);

        /* The same name twice in a run is refused; in another run it is fine. */
        p = phase_def("stat-seq", 5);
        ck_assert_int_eq(db_run_phase_insert(db, run, &p), -EEXIST);
        ck_assert_int_eq(db_run_phase_insert(db, other, &p), 0);
        /* No such run; a name PHASE_RESULT would refuse; a number SQLite cannot hold. */
        ck_assert_int_eq(db_run_phase_insert(db, 999999, &p), -ENOENT);
        p = phase_def("Stat", 5);
        ck_assert_int_eq(db_run_phase_insert(db, other, &p), -EINVAL);
        p = phase_def("big", 5);
        p.duration_usec = UINT64_MAX;
        ck_assert_int_eq(db_run_phase_insert(db, other, &p), -ERANGE);

        ck_assert_int_eq(db_get_run_phases(db, run, collect, &rows), (int) ELEMENTSOF(names) + 1);
        for (size_t i = 0; i < ELEMENTSOF(names); i++) {
                const Row *row = &rows.row[i];
                ck_assert_str_eq(field_text(row, "phase"), names[i]);
                ck_assert_int_eq(field_int(row, "seq"), (int64_t) i);
                ck_assert_int_eq(field_int(row, "ops"), (int64_t) (1000 * (i + 1)));
                ck_assert_int_eq(field_int(row, "duration_usec"), 500000);
                /* ops / 0.5 s */
                ck_assert_double_eq_tol(field_real(row, "ops_per_s"), 2000.0 * (double) (i + 1), 1e-6);
                ck_assert_int_eq(field_int(row, "lat_min_ns"), 1000);
                ck_assert_int_eq(field_int(row, "lat_mean_ns"), 4000);
                ck_assert_int_eq(field_int(row, "lat_p50_ns"), 3000);
                ck_assert_int_eq(field_int(row, "lat_p99_ns"), 9000);
                ck_assert_int_eq(field_int(row, "lat_max_ns"), 20000);
        }
        ck_assert_str_eq(field_text(&rows.row[6], "phase"), "idle");
        ck_assert(field_null(&rows.row[6], "ops_per_s"));
        rows_clear(&rows);

        ck_assert_int_eq(db_get_run_phases(db, other, collect, &rows), 1);
        ck_assert_int_eq(field_int(&rows.row[0], "seq"), 0);
        rows_clear(&rows);
        ck_assert_int_eq(db_get_run_phases(db, 999999, collect, &rows), -ENOENT);
}
END_TEST

/* ---- positions (run_positions, 0005) ---- */

/* A matrix run: its entry columns at the start, how its filesystem was made later (schema 4);
 * other runs have NULL there; the CHECKs refuse what no matrix run can be. */
START_TEST(test_run_fs) {
        _cleanup_(db_closep) Db *db = open_db();
        uint64_t job = add_job(db, "dd", NULL), plain = add_run(db, job, 0, &plain_run), run;
        DbRun r = {
                .job_id = job, .step = 1, .device_id = -1,
                .spec = fixture_spec("workload=write block_size=32K size=1M direct=true sync=end:fsync pattern=random "
                                     "target=/dev/loop2"),
                .fs_type = "btrfs", .mount_options = "compress=zstd", .started_usec = 1700000000000000,
                .layout = "raid1", .members_json = "[\"/dev/loop2\",\"/dev/loop3\"]", .in_matrix = true,
                .matrix_entry = 2, .mkfs_options = "--nodesize 16k",
        };
        DbRunFs fs = {
                .mkfs_command = "mkfs.btrfs -d raid1 -m raid1 --nodesize 16k /dev/loop2 /dev/loop3",
                .mkfs_output = "btrfs-progs v6.2\nLabel: (null)", .fs_uuid = "5c1e3f2a-9d6b-4e8f-a1c2-3b4d5e6f7a8b",
                .mkfs_usec = 812345, .size_bytes = 671088640, .used_bytes = 6062080, .avail_bytes = 600000000,
                .inodes = 0, .inodes_free = 0,
        };
        Rows rows = {};
        sqlite3 *s;

        ck_assert_int_eq(db_run_begin(db, &r, &run), 0);
        ck_assert_int_eq(db_run_set_fs(db, run, &fs), 0);
        ck_assert_int_eq(db_run_set_fs(db, 999999, &fs), -ENOENT);
        ck_assert_int_eq(db_get_run(db, run, collect, &rows), 1);
        ck_assert_int_eq(field_int(&rows.row[0], "matrix_entry"), 2);
        ck_assert_int_eq(field_int(&rows.row[0], "mkfs_usec"), 812345);
        ck_assert_int_eq(field_int(&rows.row[0], "fs_size_bytes"), 671088640);
        ck_assert_int_eq(field_int(&rows.row[0], "fs_used_bytes"), 6062080);
        ck_assert_int_eq(field_int(&rows.row[0], "fs_avail_bytes"), 600000000);
        ck_assert_int_eq(field_int(&rows.row[0], "fs_inodes"), 0);
        rows_clear(&rows);
        ck_assert_int_eq(db_get_run(db, plain, collect, &rows), 1);
        ck_assert(field_null(&rows.row[0], "matrix_entry"));
        ck_assert(field_null(&rows.row[0], "layout"));
        ck_assert(field_null(&rows.row[0], "mkfs_command"));
        rows_clear(&rows);

        s = raw_open();
        {
                _cleanup_free_ char *t = raw_text(s, "SELECT layout || ' ' || json_array_length(members) || ' ' || mkfs_command "
                                                     "|| ' ' || fs_uuid || ' ' || mkfs_options FROM runs WHERE matrix_entry = 2");
                ck_assert_str_eq(t, "raid1 2 mkfs.btrfs -d raid1 -m raid1 --nodesize 16k /dev/loop2 /dev/loop3 "
                                    "5c1e3f2a-9d6b-4e8f-a1c2-3b4d5e6f7a8b --nodesize 16k");
        }
        ck_assert_int_ne(sqlite3_exec(s, "UPDATE runs SET layout = 'raid5'", NULL, NULL, NULL), SQLITE_OK);
        ck_assert_int_ne(sqlite3_exec(s, "UPDATE runs SET members = '{}'", NULL, NULL, NULL), SQLITE_OK);
        ck_assert_int_ne(sqlite3_exec(s, "UPDATE runs SET matrix_entry = -1", NULL, NULL, NULL), SQLITE_OK);
        ck_assert_int_ne(sqlite3_exec(s, "UPDATE runs SET fs_used_bytes = -1", NULL, NULL, NULL), SQLITE_OK);
        sqlite3_close(s);
}
END_TEST

/* Schema version 6: the repeat of a run, and whether (and when) it reached its steady state. */
START_TEST(test_run_repeats) {
        _cleanup_(db_closep) Db *db = open_db();
        uint64_t job = add_job(db, "dd", NULL), plain = add_run(db, job, 0, &plain_run), run, other;
        DbRun r = {
                .job_id = job, .step = 1, .device_id = -1,
                .spec = fixture_spec("workload=write block_size=32K size=1M runtime_ms=10000 direct=true "
                                     "sync=end:fsync pattern=random target=/srv"),
                .started_usec = 1700000000000000, .repeat = 2, .steady_state_asked = true,
        };
        Rows rows = {};
        sqlite3 *s;

        ck_assert_int_eq(db_run_begin(db, &r, &run), 0);
        r.repeat = 3;
        ck_assert_int_eq(db_run_begin(db, &r, &other), 0);
        ck_assert_int_eq(db_run_set_steady_state(db, run, 4200000), 0);
        /* Not for a run that did not ask, nor one that does not exist. */
        ck_assert_int_eq(db_run_set_steady_state(db, plain, 1000), -ENOENT);
        ck_assert_int_eq(db_run_set_steady_state(db, 999999, 1000), -ENOENT);

        ck_assert_int_eq(db_get_run(db, run, collect, &rows), 1);
        ck_assert_int_eq(field_int(&rows.row[0], "repeat"), 2);
        ck_assert_int_eq(field_int(&rows.row[0], "steady_state"), 1);
        ck_assert_int_eq(field_int(&rows.row[0], "steady_state_usec"), 4200000);
        rows_clear(&rows);
        ck_assert_int_eq(db_get_run(db, other, collect, &rows), 1);
        ck_assert_int_eq(field_int(&rows.row[0], "repeat"), 3);
        ck_assert_int_eq(field_int(&rows.row[0], "steady_state"), 0);
        ck_assert(field_null(&rows.row[0], "steady_state_usec"));
        rows_clear(&rows);
        ck_assert_int_eq(db_get_run(db, plain, collect, &rows), 1);
        ck_assert_int_eq(field_int(&rows.row[0], "repeat"), 0);
        ck_assert(field_null(&rows.row[0], "steady_state"));
        ck_assert(field_null(&rows.row[0], "steady_state_usec"));
        rows_clear(&rows);

        s = raw_open();
        ck_assert_int_ne(sqlite3_exec(s, "UPDATE runs SET \"repeat\" = -1", NULL, NULL, NULL), SQLITE_OK);
        ck_assert_int_ne(sqlite3_exec(s, "UPDATE runs SET steady_state = 2", NULL, NULL, NULL), SQLITE_OK);
        /* A time without "reached" is refused. */
        ck_assert_int_ne(sqlite3_exec(s, "UPDATE runs SET steady_state_usec = 5 WHERE steady_state = 0", NULL, NULL,
                                      NULL), SQLITE_OK);
        sqlite3_close(s);
}
END_TEST

START_TEST(test_run_positions) {
        _cleanup_(db_closep) Db *db = open_db();
        uint64_t job = add_job(db, "position", NULL), run = add_run(db, job, 0, &plain_run);
        uint64_t other = add_run(db, job, 1, &plain_run);
        ProtoPositionResult p;
        Rows rows = {};
        sqlite3 *s;

        /* Inserted out of order: seq is the index, not the arrival. */
        for (uint32_t i = 4; i-- > 0;) {
                p = (ProtoPositionResult) { .index = i, .offset_bytes = (uint64_t) i * (20 << 20), .bytes = 4 << 20,
                                            .duration_usec = 40000 + 10000 * i, .lat_mean_ns = 1000000,
                                            .lat_max_ns = 3000000 };
                ck_assert_int_eq(db_run_position_insert(db, run, &p), 0);
        }
        /* One read in no measurable time: no rate. */
        p = (ProtoPositionResult) { .index = 0, .bytes = 4096, .lat_mean_ns = 1, .lat_max_ns = 1 };
        ck_assert_int_eq(db_run_position_insert(db, other, &p), 0);

        /* The same index twice, no such run, figures POSITION_RESULT refuses, a number SQLite cannot hold. */
        ck_assert_int_eq(db_run_position_insert(db, other, &p), -EEXIST);
        ck_assert_int_eq(db_run_position_insert(db, 999999, &p), -ENOENT);
        p = (ProtoPositionResult) { .index = 1, .bytes = 0 };
        ck_assert_int_eq(db_run_position_insert(db, other, &p), -EINVAL);
        p = (ProtoPositionResult) { .index = 1, .bytes = 4096, .lat_mean_ns = 5, .lat_max_ns = 4 };
        ck_assert_int_eq(db_run_position_insert(db, other, &p), -EINVAL);
        p = (ProtoPositionResult) { .index = 1, .bytes = 4096, .offset_bytes = UINT64_MAX };
        ck_assert_int_eq(db_run_position_insert(db, other, &p), -EINVAL);
        /* The schema's own bound on seq (SPEC_POSITIONS_MAX positions): a CHECK, so -EINVAL. */
        p = (ProtoPositionResult) { .index = 1000, .bytes = 4096 };
        ck_assert_int_eq(db_run_position_insert(db, other, &p), -EINVAL);

        ck_assert_int_eq(db_get_run_positions(db, run, collect, &rows), 4);
        for (int i = 0; i < 4; i++) {
                const Row *row = &rows.row[i];
                ck_assert_int_eq(field_int(row, "seq"), i);
                ck_assert_int_eq(field_int(row, "offset_bytes"), (int64_t) i * (20 << 20));
                ck_assert_int_eq(field_int(row, "bytes"), 4 << 20);
                ck_assert_int_eq(field_int(row, "duration_usec"), 40000 + 10000 * i);
                /* bytes / duration: decimal MB/s, as run_summary's mb_per_s; and MiB/s. */
                ck_assert_double_eq_tol(field_real(row, "mb_per_s"), 4194304.0 / (40000 + 10000 * i), 1e-9);
                ck_assert_double_eq_tol(field_real(row, "mib_per_s"), 4.0 * 1e6 / (40000 + 10000 * i), 1e-9);
                ck_assert_int_eq(field_int(row, "lat_mean_ns"), 1000000);
                ck_assert_int_eq(field_int(row, "lat_max_ns"), 3000000);
        }
        rows_clear(&rows);
        ck_assert_int_eq(db_get_run_positions(db, other, collect, &rows), 1);
        ck_assert(field_null(&rows.row[0], "mb_per_s"));
        ck_assert(field_null(&rows.row[0], "mib_per_s"));
        rows_clear(&rows);
        ck_assert_int_eq(db_get_run_positions(db, 999999, collect, &rows), -ENOENT);
        /* A run of another workload has none. */
        ck_assert_int_eq(db_get_run_positions(db, add_run(db, job, 2, &plain_run), collect, &rows), 0);

        /* The CHECKs hold for anyone writing the file, and the rows go with their run. */
        s = raw_open();
        ck_assert_int_ne(sqlite3_exec(s, "INSERT INTO run_positions VALUES (1, 9, 0, 0, 1, 0, 0)", NULL, NULL, NULL),
                         SQLITE_OK);
        ck_assert_int_ne(sqlite3_exec(s, "INSERT INTO run_positions VALUES (1, 9, -1, 1, 1, 0, 0)", NULL, NULL, NULL),
                         SQLITE_OK);
        ck_assert_int_ne(sqlite3_exec(s, "INSERT INTO run_positions VALUES (1, 9, 0, 1, 1, 5, 4)", NULL, NULL, NULL),
                         SQLITE_OK);
        raw_exec(s, "PRAGMA foreign_keys = ON");
        raw_exec(s, "DELETE FROM jobs");
        ck_assert_int_eq(raw_int(s, "SELECT count(*) FROM run_positions"), 0);
        sqlite3_close(s);
}
END_TEST

/* A database written by a benchd of schema version 1 is migrated to the newest version when
 * opened, keeping its rows, and gains run_phases. */
START_TEST(test_migrate_from_version_1) {
        sqlite3 *s;
        uint64_t job, run;
        ProtoSample smp = sample_at(3);
        ProtoPhaseResult p = phase_def("create-seq", 10);
        Rows rows = {};

        ck_assert_int_ge(db_schema_latest(), 2);
        s = raw_open();
        raw_exec(s, "BEGIN");
        raw_exec(s, schema_migrations[0]);
        raw_exec(s, "PRAGMA user_version = 1");
        raw_exec(s, "COMMIT");
        raw_exec(s, "INSERT INTO jobs (state, spec, target, submitted_by, submitted_usec) "
                    "VALUES ('succeeded', '{}', '/tmp/x', 0, 1700000000000000)");
        raw_exec(s, "INSERT INTO runs (job_id, step, workload, block_size, size, runtime_ms, ramp_ms, "
                    "queue_depth, jobs, direct, target, started_usec, status, ops, duration_usec) "
                    "VALUES (1, 0, 'metadata', 0, 0, 0, 0, 1, 1, 0, '/tmp/x', 1700000000000000, "
                    "'succeeded', 600, 3000000)");
        ck_assert_int_eq(raw_int(s, "SELECT count(*) FROM sqlite_master WHERE name = 'run_phases'"), 0);
        sqlite3_close(s);

        {
                _cleanup_(db_closep) Db *db = open_db();

                ck_assert_int_eq(db_schema_version(db), db_schema_latest());
                ck_assert_int_eq(db_get_run(db, 1, collect, &rows), 1);
                ck_assert_str_eq(field_text(&rows.row[0], "workload"), "metadata");
                ck_assert_int_eq(field_int(&rows.row[0], "ops"), 600);
                ck_assert_double_eq_tol(field_real(&rows.row[0], "ops_per_s"), 200.0, 1e-9);
                rows_clear(&rows);
                /* The old run has no phases, and can be given some. */
                ck_assert_int_eq(db_get_run_phases(db, 1, collect, &rows), 0);
                ck_assert_int_eq(db_run_phase_insert(db, 1, &p), 0);
                /* New rows go on from the old ones. */
                job = add_job(db, "metadata", NULL);
                ck_assert_uint_eq(job, 2);
                run = add_run(db, job, 0, &plain_run);
                ck_assert_uint_eq(run, 2);
                ck_assert_int_eq(db_samples_insert(db, run, &smp, 1), 0);
        }

        s = raw_open();
        ck_assert_int_eq(raw_int(s, "PRAGMA user_version"), db_schema_latest());
        ck_assert_int_eq(raw_int(s, "SELECT count(*) FROM runs"), 2);
        ck_assert_int_eq(raw_int(s, "SELECT ops FROM run_phases WHERE run_id = 1"), 10);
        /* run_phases goes with its run. */
        raw_exec(s, "PRAGMA foreign_keys = ON");
        raw_exec(s, "DELETE FROM jobs WHERE id = 1");
        ck_assert_int_eq(raw_int(s, "SELECT count(*) FROM run_phases"), 0);
        sqlite3_close(s);
}
END_TEST

/* A database of schema version 5 (samples a table of REAL percentages) is migrated to compact
 * samples when opened: every sample's values within the stated resolution, bytes exact, the
 * samples of a run that no longer exists dropped, tags indexed, and the file given incremental
 * auto-vacuum. */
/* A version 4 UUID in canonical lower-case form. */
static void assert_uuid_v4(const char *u) {
        ck_assert_ptr_nonnull(u);
        ck_assert_msg(db_uuid_valid(u), "not a canonical uuid: %s", u);
        ck_assert_int_eq(u[14], '4');
        ck_assert_ptr_nonnull(strchr("89ab", u[19]));
}

/* Runs before version 10 get distinct uuids in the migration; new runs get one from db_run_begin. */
START_TEST(test_migrate_run_uuids) {
        sqlite3 *s;
        Rows rows = {};
        char first[DB_UUID_STRING_MAX];

        s = raw_open();
        raw_exec(s, "BEGIN");
        for (int v = 0; v < 9; v++)
                raw_exec(s, schema_migrations[v]);
        raw_exec(s, "PRAGMA user_version = 9");
        raw_exec(s, "COMMIT");
        for (int i = 0; i < 50; i++)
                raw_exec(s, "INSERT INTO runs (step, workload, block_size, size, runtime_ms, ramp_ms, "
                            "queue_depth, jobs, direct, target, started_usec, status) "
                            "VALUES (0, 'write', 4096, 0, 0, 0, 1, 1, 0, '/tmp/x', 1700000000000000, 'succeeded')");
        sqlite3_close(s);

        {
                _cleanup_(db_closep) Db *db = open_db();
                uint64_t run;

                ck_assert_int_eq(db_schema_version(db), db_schema_latest());
                ck_assert_int_eq(db_get_run(db, 1, collect, &rows), 1);
                assert_uuid_v4(field_text(&rows.row[0], "uuid"));
                snprintf(first, sizeof first, "%s", field_text(&rows.row[0], "uuid"));
                rows_clear(&rows);
                run = add_run(db, 0, 0, &plain_run);
                ck_assert_int_eq(db_get_run(db, run, collect, &rows), 1);
                assert_uuid_v4(field_text(&rows.row[0], "uuid"));
                ck_assert_str_ne(field_text(&rows.row[0], "uuid"), first);
                rows_clear(&rows);
        }
        s = raw_open();
        ck_assert_int_eq(raw_int(s, "SELECT count(DISTINCT uuid) FROM runs"), 51);
        ck_assert_int_eq(raw_int(s, "SELECT count(*) FROM runs WHERE uuid GLOB "
                                    "'[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]-"
                                    "[0-9a-f][0-9a-f][0-9a-f][0-9a-f]-4[0-9a-f][0-9a-f][0-9a-f]-"
                                    "[89ab][0-9a-f][0-9a-f][0-9a-f]-*' AND length(uuid) = 36"), 51);
        ck_assert_int_eq(raw_int(s, "SELECT count(*) FROM runs WHERE origin_host IS NOT NULL"), 0);
        sqlite3_close(s);
}
END_TEST

/* Version 22 makes runs again for its layout CHECK: a database of version 21 keeps every run with its
 * id, the rows referring to them (which enforced foreign keys would have deleted with the old table),
 * the AUTOINCREMENT counter, the indexes, triggers and views; the new layouts are taken, others not. */
START_TEST(test_migrate_runs_layouts) {
        static const char run_sql[] =
                "INSERT INTO runs (id, job_id, step, workload, block_size, size, runtime_ms, ramp_ms, queue_depth, "
                "jobs, direct, target, started_usec, status, tags, layout, md_array, md_resync) "
                "VALUES (%d, 1, %d, 'write', 4096, 0, 0, 0, 1, 1, 0, '/tmp/x', 1700000000000000, 'succeeded', "
                "'[\"nightly\"]', 'md-raid1', 'benchd-1-0', 'wait')";
        _cleanup_free_ char *indexes = NULL, *indexes_after = NULL;
        sqlite3 *s;
        char sql[1024];
        Rows rows = {};

        ck_assert_int_ge(db_schema_latest(), 22);
        s = raw_open();
        raw_exec(s, "BEGIN");
        for (int v = 0; v < 21; v++)
                raw_exec(s, schema_migrations[v]);
        raw_exec(s, "PRAGMA user_version = 21");
        raw_exec(s, "COMMIT");
        raw_exec(s, "PRAGMA foreign_keys = ON");
        raw_exec(s, "INSERT INTO jobs (state, spec, target, submitted_by, submitted_usec) "
                    "VALUES ('succeeded', '{}', '/tmp/x', 0, 1700000000000000)");
        for (int i = 1; i <= 3; i++) {
                snprintf(sql, sizeof sql, run_sql, i, i - 1);
                raw_exec(s, sql);
        }
        /* Version 21 refuses the layouts 22 adds. */
        ck_assert_int_ne(sqlite3_exec(s, "UPDATE runs SET layout = 'md-raid5' WHERE id = 1", NULL, NULL, NULL),
                         SQLITE_OK);
        raw_exec(s, "INSERT INTO sample_data (run_id, t_ms, ios_read, ios_written, ops) VALUES (1, 1000, 5, 0, 0)");
        raw_exec(s, "INSERT INTO sample_data (run_id, t_ms, ios_read, ios_written, ops) VALUES (2, 1000, 7, 0, 0)");
        raw_exec(s, "INSERT INTO run_histograms (run_id, upper_ns, count) VALUES (1, 1000, 3)");
        raw_exec(s, "INSERT INTO run_phases (run_id, phase, seq, ops, duration_usec, lat_min_ns, lat_mean_ns, "
                    "lat_p50_ns, lat_p99_ns, lat_max_ns) VALUES (2, 'create', 0, 1, 1, 1, 1, 1, 1, 1)");
        /* Run 3 deleted: the counter stays at 3, its id is never given again. */
        raw_exec(s, "DELETE FROM runs WHERE id = 3");
        ck_assert_int_eq(raw_int(s, "SELECT count(*) FROM run_tags"), 2);
        indexes = raw_text(s, "SELECT group_concat(name, ',') FROM (SELECT name FROM sqlite_master WHERE "
                              "tbl_name = 'runs' AND type IN ('index', 'trigger') ORDER BY name)");
        sqlite3_close(s);

        {
                _cleanup_(db_closep) Db *db = open_db();
                int64_t fk = 0;
                uint64_t run;

                ck_assert_int_eq(db_schema_version(db), db_schema_latest());
                /* benchd's own connection enforces foreign keys again after the migrations. */
                ck_assert_int_eq(db_pragma_int(db, "PRAGMA foreign_keys", &fk), 0);
                ck_assert_int_eq(fk, 1);
                ck_assert_int_eq(db_get_run(db, 2, collect, &rows), 1);
                ck_assert_str_eq(field_text(&rows.row[0], "layout"), "md-raid1");
                rows_clear(&rows);
                run = add_run(db, 1, 5, &plain_run);
                ck_assert_uint_eq(run, 4);
        }

        s = raw_open();
        ck_assert_int_eq(raw_int(s, "SELECT count(*) FROM runs"), 3);
        ck_assert_int_eq(raw_int(s, "SELECT count(*) FROM runs WHERE md_array = 'benchd-1-0' AND md_resync = 'wait'"), 2);
        ck_assert_int_eq(raw_int(s, "SELECT count(*) FROM sample_data"), 2);
        ck_assert_int_eq(raw_int(s, "SELECT ios_read FROM samples WHERE run_id = 2"), 7);
        ck_assert_int_eq(raw_int(s, "SELECT count(*) FROM run_histograms"), 1);
        ck_assert_int_eq(raw_int(s, "SELECT count(*) FROM run_phases"), 1);
        ck_assert_int_eq(raw_int(s, "SELECT count(*) FROM run_tags"), 2);
        ck_assert_int_eq(raw_int(s, "SELECT count(*) FROM run_summary WHERE layout = 'md-raid1'"), 2);
        ck_assert_int_eq(raw_int(s, "SELECT count(*) FROM pragma_foreign_key_check"), 0);
        /* Those of version 21 again; later versions' own (version 23's runs_lvm_vg) besides. */
        indexes_after = raw_text(s, "SELECT group_concat(name, ',') FROM (SELECT name FROM sqlite_master WHERE "
                                    "tbl_name = 'runs' AND type IN ('index', 'trigger') AND name != 'runs_lvm_vg' "
                                    "ORDER BY name)");
        ck_assert_str_eq(indexes_after, indexes);
        ck_assert_int_eq(raw_int(s, "SELECT count(*) FROM sqlite_master WHERE name = 'runs_lvm_vg'"), 1);
        ck_assert_ptr_nonnull(strstr(indexes, "runs_tags_insert"));
        ck_assert_ptr_nonnull(strstr(indexes, "runs_md_array"));
        /* Every layout a matrix job has, and no other. */
        static const char *const layouts[] = { "single", "raid0", "raid1", "raid10", "md-raid0", "md-raid1",
                                               "md-raid5", "md-raid10", "lvm", "md-raid1+lvm" };
        for (size_t i = 0; i < ELEMENTSOF(layouts); i++) {
                snprintf(sql, sizeof sql, "UPDATE runs SET layout = '%s' WHERE id = 1", layouts[i]);
                raw_exec(s, sql);
        }
        ck_assert_int_ne(sqlite3_exec(s, "UPDATE runs SET layout = 'md-raid6' WHERE id = 1", NULL, NULL, NULL),
                         SQLITE_OK);
        /* The triggers work on the new table: a tag update re-indexes. */
        raw_exec(s, "UPDATE runs SET tags = '[\"a\",\"b\"]' WHERE id = 1");
        ck_assert_int_eq(raw_int(s, "SELECT count(*) FROM run_tags WHERE run_id = 1"), 2);
        /* The references still cascade from the new table. */
        raw_exec(s, "PRAGMA foreign_keys = ON");
        raw_exec(s, "DELETE FROM runs WHERE id = 1");
        ck_assert_int_eq(raw_int(s, "SELECT count(*) FROM sample_data WHERE run_id = 1"), 0);
        ck_assert_int_eq(raw_int(s, "SELECT count(*) FROM run_histograms"), 0);
        ck_assert_int_eq(raw_int(s, "SELECT count(*) FROM run_tags WHERE run_id = 1"), 0);
        ck_assert_int_eq(raw_int(s, "SELECT count(*) FROM sample_data"), 1);
        sqlite3_close(s);
}
END_TEST

/* A migration may not add rows that refer to nothing; rows a user left so (deleting runs in sqlite3,
 * where foreign keys are off by default) do not keep the file from opening. */
START_TEST(test_migrate_orphans_kept) {
        sqlite3 *s;

        s = raw_open();
        raw_exec(s, "BEGIN");
        for (int v = 0; v < 21; v++)
                raw_exec(s, schema_migrations[v]);
        raw_exec(s, "PRAGMA user_version = 21");
        raw_exec(s, "COMMIT");
        raw_exec(s, "INSERT INTO sample_data (run_id, t_ms, ios_read, ios_written, ops) VALUES (42, 1000, 5, 0, 0)");
        sqlite3_close(s);
        {
                _cleanup_(db_closep) Db *db = open_db();

                ck_assert_int_eq(db_schema_version(db), db_schema_latest());
        }
        s = raw_open();
        ck_assert_int_eq(raw_int(s, "SELECT count(*) FROM pragma_foreign_key_check"), 1);
        sqlite3_close(s);
}
END_TEST

/* ListJobs all=true limit=N: the newest N, oldest first, also within a state, without a count. */
static int collect_job_id(const DbJob *j, void *userdata) {
        char *buf = userdata;
        size_t len = strlen(buf);

        snprintf(buf + len, 256 - len, "%" PRIu64 " ", j->id);
        return 0;
}

START_TEST(test_job_foreach_newest) {
        Db *db = open_db();
        uint64_t id[6];
        char list[256];

        for (size_t i = 0; i < ELEMENTSOF(id); i++)
                id[i] = add_job(db, "write", NULL);
        for (size_t i = 0; i < ELEMENTSOF(id); i += 2)
                ck_assert_int_eq(db_job_set_state(db, id[i], "running", 1, 0, NULL), 0);

#define NEWEST(state, limit, want)                                                                  \
        do {                                                                                        \
                list[0] = '\0';                                                                     \
                ck_assert_int_ge(db_job_foreach_newest(db, state, limit, collect_job_id, list), 0); \
                ck_assert_str_eq(list, want);                                                       \
        } while (0)
        NEWEST(NULL, 2, "5 6 ");
        NEWEST(NULL, 0, "1 2 3 4 5 6 ");
        NEWEST(NULL, 100, "1 2 3 4 5 6 ");
        NEWEST("running", 2, "3 5 ");
        NEWEST("queued", 1, "6 ");
        NEWEST("failed", 3, "");
#undef NEWEST
        db_close(db);
}
END_TEST

/* Removals under way: recorded once (with the uid they run as, kept from the first record), listed
 * oldest first, a step's row ended alone, step -1 ending every row of the job in that target (and
 * no other), and the rows still there after a reopen. */
static int collect_removal(const DbRemoval *r, void *userdata) {
        char *buf = userdata;
        size_t len = strlen(buf);

        snprintf(buf + len, 512 - len, "%" PRIu64 ":%d:%s:%" PRIu32 ";", r->job_id, r->step, r->target, r->uid);
        return 0;
}

START_TEST(test_pending_removals) {
        Db *db = open_db();
        char list[512] = "";

        ck_assert_int_eq(db_removal_begin(db, &(DbRemoval) { 7, 0, "/srv/a", 1000 }, 100), 0);
        ck_assert_int_eq(db_removal_begin(db, &(DbRemoval) { 7, 0, "/srv/a", 1000 }, 300), 0);
        ck_assert_int_eq(db_removal_begin(db, &(DbRemoval) { 7, 1, "/srv/a", 1000 }, 200), 0);
        ck_assert_int_eq(db_removal_begin(db, &(DbRemoval) { 7, 2, "/srv/b", 4294967294u }, 250), 0);
        ck_assert_int_eq(db_removal_begin(db, &(DbRemoval) { 9, -1, "/srv/a" }, 50), 0);
        ck_assert_int_eq(db_removal_foreach(db, collect_removal, list), 0);
        ck_assert_str_eq(list, "9:-1:/srv/a:0;7:0:/srv/a:1000;7:1:/srv/a:1000;7:2:/srv/b:4294967294;");

        ck_assert_int_eq(db_removal_end(db, &(DbRemoval) { 7, 1, "/srv/a" }), 0);
        db_close(db);
        db = open_db();
        list[0] = '\0';
        ck_assert_int_eq(db_removal_foreach(db, collect_removal, list), 0);
        ck_assert_str_eq(list, "9:-1:/srv/a:0;7:0:/srv/a:1000;7:2:/srv/b:4294967294;");
        /* All of job 7's in /srv/a, not its /srv/b one, nor job 9's. */
        ck_assert_int_eq(db_removal_end(db, &(DbRemoval) { 7, -1, "/srv/a" }), 0);
        list[0] = '\0';
        ck_assert_int_eq(db_removal_foreach(db, collect_removal, list), 0);
        ck_assert_str_eq(list, "9:-1:/srv/a:0;7:2:/srv/b:4294967294;");

        ck_assert_int_eq(db_removal_begin(db, &(DbRemoval) { 7, 3, "/srv/a", UINT32_MAX }, 1), -EINVAL);
        ck_assert_int_eq(db_removal_begin(db, &(DbRemoval) { 0, 0, "/srv/a" }, 1), -EINVAL);
        ck_assert_int_eq(db_removal_begin(db, &(DbRemoval) { 7, -2, "/srv/a" }, 1), -EINVAL);
        ck_assert_int_eq(db_removal_begin(db, &(DbRemoval) { 7, 0, "" }, 1), -EINVAL);
        ck_assert_int_eq(db_removal_end(db, &(DbRemoval) { 7, 0, NULL }), -EINVAL);
        db_close(db);
}
END_TEST

/* ScratchDevices= bindings: kept per path while benchd.conf keeps its modification time. */
START_TEST(test_scratch_bindings) {
        Db *db = open_db();
        char *id = NULL;

        ck_assert_int_eq(db_scratch_binding_get(db, "/dev/loop2", 1000, &id), 0);
        ck_assert_int_eq(db_scratch_binding_set(db, "/dev/loop2", "loop-file:/a.img (inode 1 on 254:0)", 1000, 5), 0);
        ck_assert_int_eq(db_scratch_binding_set(db, "/dev/sdb", "serial:A", 1000, 5), 0);
        db_close(db);
        db = open_db();
        ck_assert_int_eq(db_scratch_binding_get(db, "/dev/loop2", 1000, &id), 1);
        ck_assert_str_eq(id, "loop-file:/a.img (inode 1 on 254:0)");
        free(id);
        id = NULL;
        /* benchd.conf written since: no binding, and a new one replaces the old. */
        ck_assert_int_eq(db_scratch_binding_get(db, "/dev/loop2", 2000, &id), 0);
        ck_assert_ptr_null(id);
        ck_assert_int_eq(db_scratch_binding_set(db, "/dev/loop2", "loop-file:/b.img (inode 2 on 254:0)", 2000, 6), 0);
        ck_assert_int_eq(db_scratch_binding_get(db, "/dev/loop2", 1000, &id), 0);
        ck_assert_int_eq(db_scratch_binding_get(db, "/dev/loop2", 2000, &id), 1);
        ck_assert_str_eq(id, "loop-file:/b.img (inode 2 on 254:0)");
        free(id);
        id = NULL;
        ck_assert_int_eq(db_scratch_binding_get(db, "/dev/sdb", 1000, &id), 1);
        ck_assert_str_eq(id, "serial:A");
        free(id);
        ck_assert_int_eq(db_scratch_binding_set(db, "/dev/sdc", "", 1000, 5), -EINVAL);
        ck_assert_int_eq(db_scratch_binding_set(db, NULL, "serial:A", 1000, 5), -EINVAL);
        db_close(db);
}
END_TEST

/* A removal recorded by a benchd of schema version 13, when every step ran as root: after the
 * migration it runs as uid 0, and a uid out of range is refused by the table itself. */
START_TEST(test_migrate_removal_uid) {
        char list[512] = "";
        sqlite3 *s;

        ck_assert_int_ge(db_schema_latest(), 16);
        s = raw_open();
        raw_exec(s, "BEGIN");
        for (int v = 0; v < 13; v++)
                raw_exec(s, schema_migrations[v]);
        raw_exec(s, "PRAGMA user_version = 13");
        raw_exec(s, "COMMIT");
        raw_exec(s, "INSERT INTO pending_removals (job_id, step, target, since_usec) VALUES (3, -1, '/srv/x', 5)");
        sqlite3_close(s);
        {
                _cleanup_(db_closep) Db *db = open_db();

                ck_assert_int_eq(db_schema_version(db), db_schema_latest());
                ck_assert_int_eq(db_removal_foreach(db, collect_removal, list), 0);
                ck_assert_str_eq(list, "3:-1:/srv/x:0;");
        }
        s = raw_open();
        ck_assert_int_ne(sqlite3_exec(s, "INSERT INTO pending_removals (job_id, step, target, since_usec, uid) "
                                         "VALUES (4, 0, '/srv/x', 5, -1)", NULL, NULL, NULL), SQLITE_OK);
        sqlite3_close(s);
}
END_TEST

START_TEST(test_uuid_valid) {
        ck_assert(db_uuid_valid("0123abcd-4567-4def-8901-23456789abcd"));
        ck_assert(!db_uuid_valid("0123ABCD-4567-4def-8901-23456789abcd"));
        ck_assert(!db_uuid_valid("0123abcd-4567-4def-8901-23456789abc"));
        ck_assert(!db_uuid_valid("0123abcd04567-4def-8901-23456789abcd"));
        ck_assert(!db_uuid_valid("0123abcd-4567-4def-8901-23456789abcdx"));
        ck_assert(!db_uuid_valid(""));
        ck_assert(!db_uuid_valid(NULL));
}
END_TEST

START_TEST(test_migrate_from_version_7) {
        static const struct {
                int64_t bytes_read, ios_read, bytes_written, ios_written;
                const char *iowait, *user, *sys, *util, *queue;  /* SQL literals */
        } old[] = {
                { 4096 * 10, 10, 0, 0, "12.5", "0.125", "3.3333333333", "99.87", "31.2345" },
                { 4096 * 10 + 7, 10, 1, 0, "0", "100", "0.004", "NULL", "NULL" },
                { 0, 0, 4096 * 3, 3, "45.678901", "7.0", "0.0", "100.0", "0.0004" },
        };
        sqlite3 *s;
        Rows rows = {};

        s = raw_open();
        raw_exec(s, "BEGIN");
        for (int v = 0; v < 7; v++)
                raw_exec(s, schema_migrations[v]);
        raw_exec(s, "PRAGMA user_version = 7");
        raw_exec(s, "COMMIT");
        ck_assert_int_eq(raw_int(s, "PRAGMA auto_vacuum"), 0);
        raw_exec(s, "INSERT INTO jobs (state, spec, target, submitted_by, submitted_usec) "
                    "VALUES ('succeeded', '{}', '/tmp/x', 0, 1700000000000000)");
        raw_exec(s, "INSERT INTO runs (job_id, step, workload, block_size, size, runtime_ms, ramp_ms, "
                    "queue_depth, jobs, direct, target, started_usec, status, tags) "
                    "VALUES (1, 0, 'randrw', 4096, 0, 0, 0, 1, 1, 0, '/tmp/x', 1700000000000000, "
                    "'succeeded', '[\"nightly\",\"a\"]')");
        for (size_t i = 0; i < ELEMENTSOF(old); i++) {
                char sql[1024];

                snprintf(sql, sizeof(sql),
                         "INSERT INTO samples VALUES (1, %zu, %zu, %" PRIi64 ", %" PRIi64 ", %" PRIi64 ", %" PRIi64
                         ", 0, 1000, 900, 5000, 9000, %s, %s, %s, %s, %s)",
                         1000 * (i + 1), 1000000 + i, old[i].bytes_read, old[i].bytes_written, old[i].ios_read,
                         old[i].ios_written, old[i].iowait, old[i].user, old[i].sys, old[i].util, old[i].queue);
                raw_exec(s, sql);
        }
        /* A sample of a run deleted with foreign keys off: unreachable, not copied. */
        raw_exec(s, "INSERT INTO samples VALUES (77, 1, 1, 0, 0, 0, 0, 0, NULL, NULL, NULL, NULL, "
                    "NULL, NULL, NULL, NULL, NULL)");
        sqlite3_close(s);

        {
                _cleanup_(db_closep) Db *db = open_db();

                ck_assert_int_eq(db_schema_version(db), db_schema_latest());
                ck_assert_int_eq(db_get_samples(db, 1, collect, &rows), (int) ELEMENTSOF(old));
                for (size_t i = 0; i < ELEMENTSOF(old); i++) {
                        const Row *row = &rows.row[i];
                        const char *const cols[] = { "iowait_pct", "cpu_user_pct", "cpu_sys_pct", "dev_util_pct",
                                                     "dev_queue" };
                        const char *const lits[] = { old[i].iowait, old[i].user, old[i].sys, old[i].util,
                                                     old[i].queue };

                        ck_assert_int_eq(field_int(row, "t_ms"), (int64_t) (1000 * (i + 1)));
                        ck_assert_int_le(llabs(field_int(row, "interval_us") - (int64_t) (1000000 + i)), 999);
                        ck_assert_int_eq(field_int(row, "bytes_read"), old[i].bytes_read);
                        ck_assert_int_eq(field_int(row, "bytes_written"), old[i].bytes_written);
                        ck_assert_int_eq(field_int(row, "ios_read"), old[i].ios_read);
                        ck_assert_int_eq(field_int(row, "lat_p99_ns"), 5000);
                        for (size_t k = 0; k < ELEMENTSOF(cols); k++) {
                                double want, tol = k == 4 ? 0.0005 : 0.005;

                                if (streq(lits[k], "NULL")) {
                                        ck_assert(field_null(row, cols[k]));
                                        continue;
                                }
                                want = strtod(lits[k], NULL);
                                ck_assert_msg(fabs(field(row, cols[k])->d - want) <= tol + 1e-9,
                                              "sample %zu %s: %s became %.6f", i, cols[k], lits[k],
                                              field(row, cols[k])->d);
                        }
                }
                rows_clear(&rows);
        }

        s = raw_open();
        ck_assert_int_eq(raw_int(s, "PRAGMA user_version"), db_schema_latest());
        ck_assert_int_eq(raw_int(s, "SELECT count(*) FROM sample_data"), (int64_t) ELEMENTSOF(old));
        ck_assert_int_eq(raw_int(s, "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'samples'"), 0);
        /* Whole blocks are implied, the rest kept. */
        ck_assert_int_eq(raw_int(s, "SELECT count(*) FROM sample_data WHERE bytes_read IS NULL"), 2);
        ck_assert_int_eq(raw_int(s, "SELECT bytes_read FROM sample_data WHERE t_ms = 2000"), 4096 * 10 + 7);
        ck_assert_int_eq(raw_int(s, "SELECT count(*) FROM run_tags WHERE run_id = 1"), 2);
        ck_assert_int_eq(raw_int(s, "PRAGMA auto_vacuum"), 2);
        /* Version 7's runs_comparable, unused since version 9, is gone (version 13). */
        ck_assert_int_eq(raw_int(s, "SELECT count(*) FROM sqlite_master WHERE name = 'runs_comparable'"), 0);
        ck_assert_int_eq(raw_int(s, "SELECT count(*) FROM sqlite_master WHERE name = 'runs_series'"), 1);
        sqlite3_close(s);
}
END_TEST

/* ---- every query benchctl makes is an index search ---- */

typedef struct Plans {
        bool filtered;  /* the query has a WHERE term: no scan at all, not even of an index */
        size_t n;       /* plan rows seen */
        char *bad;      /* the first scan, and its statement */
} Plans;

/* A scan of a table is what would grow with the history. Without a filter, walking runs_started
 * newest first is the answer (it stops at the limit); with one, every access must be a search, or
 * a rare value would walk the whole index. */
static int plan_hook(const char *sql, const char *detail, void *userdata) {
        Plans *p = userdata;

        p->n++;
        if (!p->bad && strncmp(detail, "SCAN ", 5) == 0 && (p->filtered || !strstr(detail, "USING")))
                ck_assert_int_ge(asprintf(&p->bad, "%s in %s", detail, sql), 0);
        return 0;
}

static void plans_check(Plans *p, const char *what) {
        ck_assert_msg(p->n > 0, "%s: no plan seen", what);
        ck_assert_msg(!p->bad, "%s: %s", what, p->bad);
        *p = (Plans) { .filtered = p->filtered };
}

/* Every QueryRuns filter of query_cases, alone and combined, as db-query.c builds it. */
START_TEST(test_query_plan_each_filter) {
        const QueryCase *c = &query_cases[_i];
        _cleanup_(db_closep) Db *db = open_db();
        QueryFixture q = {};
        DbRunFilter f = c->f;
        Plans plans = {};

        query_fixture(db, &q);
        if (c->job)
                f.job = c->job == 1 ? q.job1 : q.job2;
        plans.filtered = f.device || f.workload || f.profile || f.fs_type || f.label || f.tag || f.status ||
                         f.job || f.since_usec || f.until_usec;
        db_set_explain_hook(db, plan_hook, &plans);
        ck_assert_int_ge(db_query_runs(db, &f, NULL, NULL), 0);
        plans_check(&plans, c->what);
}
END_TEST

START_TEST(test_query_plan_run_samples_histogram) {
        _cleanup_(db_closep) Db *db = open_db();
        QueryFixture q = {};
        Plans plans = {};
        ProtoSample smp = sample_at(1);

        query_fixture(db, &q);
        ck_assert_int_eq(db_samples_insert(db, q.run[2], &smp, 1), 0);
        plans.filtered = true;
        db_set_explain_hook(db, plan_hook, &plans);
        ck_assert_int_eq(db_get_run(db, q.run[2], NULL, NULL), 1);
        plans_check(&plans, "GetRun");
        ck_assert_int_eq(db_get_samples(db, q.run[2], NULL, NULL), 1);
        plans_check(&plans, "GetSamples");
        ck_assert_int_eq(db_get_samples_page(db, q.run[2], 500, 10, NULL, NULL), 1);
        plans_check(&plans, "GetSamplesPage");
        ck_assert_int_eq(db_get_histogram(db, q.run[2], NULL, NULL), 0);
        plans_check(&plans, "GetHistogram");
        ck_assert_int_ge(db_get_run_phases(db, q.run[2], NULL, NULL), 0);
        plans_check(&plans, "GetRun's phases");
        ck_assert_int_ge(db_get_run_positions(db, q.run[2], NULL, NULL), 0);
        plans_check(&plans, "GetRun's positions");
        ck_assert_int_ge(db_prune_step(db, &(DbPrune) { .before_usec = T0 + 3 * DAY_USEC }, 10), 0);
        plans_check(&plans, "a prune step");
}
END_TEST

/* ---- pruning ---- */

static void add_samples(Db *db, uint64_t run, size_t n) {
        _cleanup_free_ ProtoSample *s = calloc(n, sizeof(ProtoSample));

        ck_assert_ptr_nonnull(s);
        for (size_t i = 0; i < n; i++)
                s[i] = sample_at(i);
        ck_assert_int_eq(db_samples_insert(db, run, s, n), 0);
}

/* Only the samples of runs that started before the bound and are not running go; the runs, their
 * histograms, phases and positions stay. Small steps give the same result as one big one. */
START_TEST(test_prune_samples) {
        _cleanup_(db_closep) Db *db = open_db();
        uint64_t job = add_job(db, "write", NULL), run[5];
        const uint64_t started[5] = { T0, T0 + DAY_USEC, T0 + DAY_USEC, T0 + 2 * DAY_USEC, T0 };
        ProtoHistogramEntry e = { 200, 5 };
        ProtoPhaseResult ph = phase_def("create-seq", 3);
        ProtoPositionResult pos = { .index = 0, .bytes = 4096, .duration_usec = 5, .lat_mean_ns = 1, .lat_max_ns = 2 };
        ProtoResult res = known_result();
        DbPrune p = { .before_usec = T0 + 2 * DAY_USEC };
        sqlite3 *s;
        int r, steps = 0;

        for (size_t i = 0; i < 5; i++) {
                run[i] = add_run(db, job, (uint32_t) i, &(RunDef) { .workload = "write", .started_usec = started[i],
                                                                    .device_id = -1 });
                add_samples(db, run[i], 10 + i);
                ck_assert_int_eq(db_histogram_insert(db, run[i], &e, 1), 0);
                ck_assert_int_eq(db_run_phase_insert(db, run[i], &ph), 0);
                ck_assert_int_eq(db_run_position_insert(db, run[i], &pos), 0);
                if (i < 4) /* run[4] is still running: never pruned */
                        ck_assert_int_eq(db_run_finish(db, run[i], "succeeded", NULL, i == 0 ? &res : NULL), 0);
        }
        /* db_run_finish with a result moves started_usec to the measured phase's start */
        s = raw_open();
        raw_exec(s, "PRAGMA busy_timeout = 5000");
        raw_exec(s, "UPDATE runs SET started_usec = 1700000000000000 WHERE id = 1");
        sqlite3_close(s);

        while ((r = db_prune_step(db, &p, 7)) > 0)
                ck_assert_int_lt(++steps, 100);
        ck_assert_int_eq(r, 0);
        /* runs 0, 1, 2: 10 + 11 + 12 samples, in steps of at most 7 (the fifth finds the end) */
        ck_assert_uint_eq(p.runs, 3);
        ck_assert_uint_eq(p.samples, 33);
        ck_assert_int_eq(steps, 4);

        ck_assert_int_eq(db_get_samples(db, run[0], NULL, NULL), 0);
        ck_assert_int_eq(db_get_samples(db, run[1], NULL, NULL), 0);
        ck_assert_int_eq(db_get_samples(db, run[2], NULL, NULL), 0);
        ck_assert_int_eq(db_get_samples(db, run[3], NULL, NULL), 13);
        ck_assert_int_eq(db_get_samples(db, run[4], NULL, NULL), 14);

        s = raw_open();
        ck_assert_int_eq(raw_int(s, "SELECT count(*) FROM runs"), 5);
        ck_assert_int_eq(raw_int(s, "SELECT count(*) FROM run_histograms"), 5);
        ck_assert_int_eq(raw_int(s, "SELECT count(*) FROM run_phases"), 5);
        ck_assert_int_eq(raw_int(s, "SELECT count(*) FROM run_positions"), 5);
        ck_assert_int_eq(raw_int(s, "SELECT count(*) FROM jobs"), 1);
        ck_assert_int_eq(raw_int(s, "SELECT bytes_written FROM runs WHERE id = 1"), (int64_t) res.bytes_written);
        sqlite3_close(s);

        /* Again: nothing left to do. A bound of 0 prunes nothing. */
        p = (DbPrune) { .before_usec = T0 + 2 * DAY_USEC };
        ck_assert_int_eq(db_prune_step(db, &p, 1000), 0);
        ck_assert_uint_eq(p.samples, 0);
        p = (DbPrune) {};
        ck_assert_int_eq(db_prune_step(db, &p, 1000), 0);
        ck_assert_int_eq(db_prune_step(db, &p, 0), -EINVAL);
        ck_assert_int_eq(db_get_samples(db, run[3], NULL, NULL), 13);
}
END_TEST

static off_t file_size(const char *path) {
        struct stat st;

        ck_assert_int_eq(stat(path, &st), 0);
        return st.st_size;
}

/* After a prune, incremental vacuum gives the space back: the file shrinks. */
START_TEST(test_prune_vacuum_shrinks) {
        _cleanup_(db_closep) Db *db = open_db();
        uint64_t job = add_job(db, "write", NULL), keep;
        DbPrune p = { .before_usec = T0 + DAY_USEC };
        DbFileStats fs;
        off_t before, after;
        sqlite3 *s;
        int r, steps = 0;

        for (int i = 0; i < 20; i++)
                add_samples(db, add_run(db, job, (uint32_t) i, &plain_run), 2000);
        keep = add_run(db, job, 20, &(RunDef) { .workload = "write", .started_usec = T0 + 2 * DAY_USEC,
                                                 .device_id = -1 });
        add_samples(db, keep, 100);
        for (uint64_t id = 1; id <= keep; id++)
                ck_assert_int_eq(db_run_finish(db, id, "succeeded", NULL, NULL), 0);

        s = raw_open();
        raw_exec(s, "PRAGMA wal_checkpoint(TRUNCATE)");
        before = file_size(dbpath);

        while ((r = db_prune_step(db, &p, 5000)) > 0)
                ck_assert_int_lt(++steps, 100);
        ck_assert_int_eq(r, 0);
        ck_assert_uint_eq(p.samples, 40000);
        ck_assert_uint_eq(p.runs, 20);
        ck_assert_int_eq(db_file_stats(db, &fs), 0);
        ck_assert_uint_gt(fs.free_pages, 100);

        steps = 0;
        while ((r = db_vacuum_step(db, 64)) > 0)
                ck_assert_int_lt(++steps, 10000);
        ck_assert_int_eq(r, 0);
        ck_assert_int_gt(steps, 1); /* bounded: more than one step for this many pages */
        ck_assert_int_eq(db_file_stats(db, &fs), 0);
        ck_assert_uint_eq(fs.free_pages, 0);

        raw_exec(s, "PRAGMA wal_checkpoint(TRUNCATE)");
        after = file_size(dbpath);
        sqlite3_close(s);
        ck_assert_msg(after * 4 < before, "the file went from %jd to %jd bytes only", (intmax_t) before,
                      (intmax_t) after);
        ck_assert_int_eq(db_get_samples(db, keep, NULL, NULL), 100);
}
END_TEST

int main(void) {
        Suite *s = suite_create("db");
        TCase *tc_schema = tcase_create("schema");
        TCase *tc_jobs = tcase_create("jobs");
        TCase *tc_runs = tcase_create("runs");
        TCase *tc_query = tcase_create("query");

        tcase_add_checked_fixture(tc_schema, setup, teardown);
        tcase_add_test(tc_schema, test_create_empty_file);
        tcase_add_test(tc_schema, test_create_missing_file);
        tcase_add_test(tc_schema, test_registry_runs_columns);
        tcase_add_test(tc_schema, test_missing_directory);
        tcase_add_test(tc_schema, test_wal_and_pragmas);
        tcase_add_test(tc_schema, test_reopen_idempotent);
        tcase_add_test(tc_schema, test_newer_schema_refused);
        tcase_add_test(tc_schema, test_garbage_file_refused);
        tcase_add_test(tc_schema, test_migration_is_atomic);
        tcase_add_test(tc_schema, test_schema_checks);
        tcase_add_test(tc_schema, test_busy);
        tcase_set_timeout(tc_schema, 30);
        suite_add_tcase(s, tc_schema);

        tcase_add_checked_fixture(tc_jobs, setup, teardown);
        tcase_add_test(tc_jobs, test_jobs);
        tcase_add_test(tc_jobs, test_job_bad_spec);
        tcase_add_test(tc_jobs, test_job_ids_not_reused);
        suite_add_tcase(s, tc_jobs);

        tcase_add_checked_fixture(tc_runs, setup, teardown);
        tcase_add_test(tc_runs, test_run_begin_finish);
        tcase_add_test(tc_runs, test_run_missing_job_or_bad_tags);
        tcase_add_test(tc_runs, test_run_spec_columns);
        tcase_add_test(tc_runs, test_run_interrupt_stale);
        tcase_add_test(tc_runs, test_get_run_missing);
        tcase_add_test(tc_runs, test_samples);
        tcase_add_test(tc_runs, test_samples_many);
        tcase_add_test(tc_runs, test_samples_compact);
        tcase_add_test(tc_runs, test_samples_resolution);
        tcase_add_test(tc_runs, test_samples_interval);
        tcase_add_test(tc_runs, test_histogram);
        tcase_add_test(tc_runs, test_histogram_top_buckets);
        tcase_add_test(tc_runs, test_devices);
        tcase_add_test(tc_runs, test_cascade_delete);
        tcase_add_test(tc_runs, test_run_phases);
        tcase_add_test(tc_runs, test_run_positions);
        tcase_add_test(tc_runs, test_run_fs);
        tcase_add_test(tc_runs, test_run_repeats);
        tcase_add_test(tc_runs, test_migrate_from_version_1);
        tcase_add_test(tc_runs, test_migrate_from_version_7);
        tcase_add_test(tc_runs, test_prune_samples);
        tcase_add_test(tc_runs, test_prune_vacuum_shrinks);
        tcase_add_test(tc_runs, test_migrate_run_uuids);
        tcase_add_test(tc_runs, test_uuid_valid);
        tcase_add_test(tc_runs, test_pending_removals);
        tcase_add_test(tc_runs, test_scratch_bindings);
        tcase_add_test(tc_runs, test_migrate_removal_uid);
        tcase_add_test(tc_runs, test_job_foreach_newest);
        tcase_add_test(tc_runs, test_migrate_runs_layouts);
        tcase_add_test(tc_runs, test_migrate_orphans_kept);
        suite_add_tcase(s, tc_runs);

        tcase_add_checked_fixture(tc_query, setup, teardown);
        tcase_add_loop_test(tc_query, test_query_runs, 0, ELEMENTSOF(query_cases));
        tcase_add_test(tc_query, test_query_runs_fields);
        tcase_add_test(tc_query, test_query_limit_default_and_cap);
        tcase_add_test(tc_query, test_query_plan_uses_index);
        tcase_add_loop_test(tc_query, test_query_plan_each_filter, 0, ELEMENTSOF(query_cases));
        tcase_add_test(tc_query, test_query_plan_run_samples_histogram);
        tcase_set_timeout(tc_query, 60);
        suite_add_tcase(s, tc_query);

        return check_run(s);
}
