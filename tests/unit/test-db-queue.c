/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The queue of a job's writes (db-queue.h) on a real SQLite file. The database refuses writes for
 * real: PRAGMA query_only makes SQLite answer every write with SQLITE_READONLY (-EROFS) until it is
 * turned off again, which is what a read-only file or filesystem gives; the filesystem-full case
 * (SQLITE_FULL) is tests/integration/test-db-full.sh on a tmpfs. Refusals for good are real too:
 * a run that does not exist (a foreign key), a duplicate sample (the primary key).
 *
 * Each test checks what the database holds afterwards through a second, raw connection.
 */
#include <check.h>
#include <errno.h>
#include <inttypes.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "store/db-internal.h"
#include "check-util.h"
#include "shared/proto-record.h"
#include "store/db-queue.h"
#include "store/db.h"
#include "shared/util.h"

#define DB_FIXTURE_NAME "test-db-queue"
#include "db-fixture.h"

/* ---- helpers ---- */

/* The fault: every write of this connection is refused (SQLITE_READONLY), or allowed again. */
static void refuse_writes(Db *db, bool refuse) {
        ck_assert_int_eq(sqlite3_exec(db->sqlite, refuse ? "PRAGMA query_only = 1" : "PRAGMA query_only = 0",
                                      NULL, NULL, NULL), SQLITE_OK);
}

static int64_t raw_int(const char *sql) {
        sqlite3 *s = NULL;
        sqlite3_stmt *st = NULL;
        int64_t v;

        ck_assert_int_eq(sqlite3_open(dbpath, &s), SQLITE_OK);
        ck_assert_msg(sqlite3_prepare_v2(s, sql, -1, &st, NULL) == SQLITE_OK, "%s: %s", sql, sqlite3_errmsg(s));
        ck_assert_int_eq(sqlite3_step(st), SQLITE_ROW);
        v = sqlite3_column_int64(st, 0);
        sqlite3_finalize(st);
        sqlite3_close(s);
        return v;
}

/* The text of the one row sql returns, "(null)" for NULL; malloc'd. */
static char *raw_text(const char *sql) {
        sqlite3 *s = NULL;
        sqlite3_stmt *st = NULL;
        const char *t;
        char *v;

        ck_assert_int_eq(sqlite3_open(dbpath, &s), SQLITE_OK);
        ck_assert_msg(sqlite3_prepare_v2(s, sql, -1, &st, NULL) == SQLITE_OK, "%s: %s", sql, sqlite3_errmsg(s));
        ck_assert_int_eq(sqlite3_step(st), SQLITE_ROW);
        t = (const char *) sqlite3_column_text(st, 0);
        v = strdup(t ?: "(null)");
        sqlite3_finalize(st);
        sqlite3_close(s);
        return v;
}

static uint64_t add_job(Db *db) {
        DbJob j = { .spec_json = "{}", .target = "/tmp/x", .submitted_usec = 1 };
        uint64_t id = 0;

        ck_assert_int_eq(db_job_insert(db, &j, &id), 0);
        return id;
}

static uint64_t add_run(Db *db, uint64_t job, uint32_t step) {
        DbRun run = { .job_id = job, .step = step,
                      .spec = fixture_spec("workload=write target=/tmp/x block_size=4K size=1M queue_depth=1 jobs=1"),
                      .started_usec = 1700000000000000 };
        uint64_t id = 0;

        ck_assert_int_eq(db_run_begin(db, &run, &id), 0);
        return id;
}

static ProtoSample sample_at(uint64_t t_ms) {
        return (ProtoSample) { .t_ms = t_ms, .interval_us = 100000, .bytes_written = 4096 * t_ms,
                               .ios_written = t_ms, .iowait_pct = 1.5, .cpu_user_pct = 2, .cpu_sys_pct = 3,
                               .dev_util_pct = -1, .dev_queue = -1 };
}

static void add_samples(DbQueue *q, uint64_t run, uint64_t from, size_t n) {
        for (size_t i = 0; i < n; i++) {
                ProtoSample s = sample_at(from + i);
                ck_assert_int_eq(db_queue_add_records(q, run, &proto_record_sample, &s, 1), 0);
        }
}

static ProtoResult result_def(void) {
        return (ProtoResult) { .started_usec = 1700000000500000, .duration_usec = 2000000,
                               .bytes_written = 1 << 20, .ios_written = 256, .lat_min_ns = 10,
                               .lat_mean_ns = 20, .lat_max_ns = 30, .iowait_pct = 1, .cpu_user_pct = 2,
                               .cpu_sys_pct = 3, .dev_util_pct = -1, .device = (char *) "loop9" };
}

static char *queue_error(DbQueue *q, const char *base) {
        char *e = NULL;
        ck_assert_int_eq(db_queue_error(q, base, &e), 0);
        return e;
}

/* ---- tests ---- */

START_TEST(test_transient) {
        static const struct {
                int r;
                bool transient;
        } cases[] = {
                { -ENOSPC, true }, { -EBUSY, true }, { -EROFS, true }, { -EACCES, true },
                { -EIO, true }, { -ENOMEM, true },
                { -ENOENT, false }, { -EEXIST, false }, { -EINVAL, false }, { -ERANGE, false },
                { -EPROTONOSUPPORT, false }, { 0, false },
        };

        for (size_t i = 0; i < ELEMENTSOF(cases); i++)
                ck_assert_msg(db_error_is_transient(cases[i].r) == cases[i].transient, "%s",
                              strerror(-cases[i].r));
}
END_TEST

/* Everything a step writes, in order, when the database takes it at once. */
START_TEST(test_flush_in_order) {
        _cleanup_(db_closep) Db *db = open_db();
        _cleanup_(db_queue_freep) DbQueue *q = NULL;
        _cleanup_free_ char *err = NULL, *state = NULL, *status = NULL, *device = NULL;
        ProtoHistogramEntry h[] = { { 10, 5 }, { 11, 7 } };
        ProtoPhaseResult p = { .name = "create-seq", .ops = 10, .duration_usec = 1000, .lat_min_ns = 1,
                               .lat_mean_ns = 2, .lat_p50_ns = 2, .lat_p99_ns = 3, .lat_max_ns = 4 };
        ProtoPositionResult pos = { .index = 3, .offset_bytes = 12 << 20, .bytes = 4 << 20, .duration_usec = 20000,
                                    .lat_mean_ns = 1000000, .lat_max_ns = 2000000 };
        ProtoResult res = result_def();
        uint64_t job = add_job(db), run = add_run(db, job, 0);

        ck_assert_int_eq(db_queue_new(&q), 0);
        ck_assert(db_queue_is_empty(q));
        ck_assert_int_eq(db_queue_flush(q, db), 0);

        add_samples(q, run, 1, 25);
        ck_assert_int_eq(db_queue_add_records(q, run, &proto_record_phase_result, &p, 1), 0);
        ck_assert_int_eq(db_queue_add_records(q, run, &proto_record_position_result, &pos, 1), 0);
        add_samples(q, run, 26, 5);
        ck_assert_int_eq(db_queue_add_histogram(q, run, h, ELEMENTSOF(h)), 0);
        ck_assert_int_eq(db_queue_add_run_finish(q, run, "succeeded", NULL, &res), 0);
        ck_assert_int_eq(db_queue_add_job_state(q, job, "succeeded", 0, 1700000009000000, NULL), 0);
        ck_assert_uint_eq(db_queue_n_samples(q), 30);
        ck_assert(!db_queue_is_empty(q));

        ck_assert_int_eq(db_queue_flush(q, db), 0);
        ck_assert(db_queue_is_empty(q));
        ck_assert_uint_eq(db_queue_n_samples(q), 0);
        ck_assert(!db_queue_has_losses(q));
        ck_assert_ptr_null(err = queue_error(q, NULL));

        ck_assert_int_eq(raw_int("SELECT count(*) FROM samples"), 30);
        ck_assert_int_eq(raw_int("SELECT max(t_ms) FROM samples"), 30);
        ck_assert_int_eq(raw_int("SELECT count(*) FROM run_phases"), 1);
        ck_assert_int_eq(raw_int("SELECT offset_bytes FROM run_positions WHERE seq = 3"), 12 << 20);
        ck_assert_int_eq(raw_int("SELECT sum(count) FROM run_histograms"), 12);
        ck_assert_int_eq(raw_int("SELECT bytes_written FROM runs"), 1 << 20);
        status = raw_text("SELECT status FROM runs");
        ck_assert_str_eq(status, "succeeded");
        device = raw_text("SELECT device_name FROM runs");
        ck_assert_str_eq(device, "loop9");
        state = raw_text("SELECT state FROM jobs");
        ck_assert_str_eq(state, "succeeded");
        ck_assert_int_eq(raw_int("SELECT finished_usec FROM jobs"), 1700000009000000);
        ck_assert_int_eq(raw_int("SELECT error IS NULL FROM jobs"), 1);
}
END_TEST

/* A database that refuses writes: the flush stops with the errno, keeps everything, and writes
 * all of it once the database takes writes again. */
START_TEST(test_refused_then_stored) {
        _cleanup_(db_closep) Db *db = open_db();
        _cleanup_(db_queue_freep) DbQueue *q = NULL;
        _cleanup_free_ char *before = NULL, *state = NULL, *error = NULL;
        ProtoResult res = result_def();
        uint64_t job = add_job(db), run = add_run(db, job, 0);

        ck_assert_int_eq(db_queue_new(&q), 0);
        add_samples(q, run, 1, 10);
        refuse_writes(db, true);
        ck_assert_int_eq(db_queue_flush(q, db), -EROFS);
        ck_assert_ptr_nonnull(strstr(db_last_error(db), "readonly"));
        ck_assert_uint_eq(db_queue_n_samples(q), 10);

        /* More keeps coming while it refuses; nothing is lost, and the flush keeps failing. */
        add_samples(q, run, 11, 15);
        ck_assert_int_eq(db_queue_add_run_finish(q, run, "failed", "step 0 (write): boom", &res), 0);
        ck_assert_int_eq(db_queue_add_job_state(q, job, "failed", 0, 1700000009000000, "step 0 (write): boom"), 0);
        ck_assert_int_eq(db_queue_flush(q, db), -EROFS);
        ck_assert_int_eq(db_queue_flush(q, db), -EROFS);
        ck_assert_uint_eq(db_queue_n_samples(q), 25);
        ck_assert(!db_queue_has_losses(q));
        ck_assert_int_eq(raw_int("SELECT count(*) FROM samples"), 0);
        before = raw_text("SELECT state FROM jobs");
        ck_assert_str_eq(before, "queued");

        refuse_writes(db, false);
        ck_assert_int_eq(db_queue_flush(q, db), 0);
        ck_assert(db_queue_is_empty(q));
        ck_assert_int_eq(raw_int("SELECT count(*) FROM samples"), 25);
        ck_assert_int_eq(raw_int("SELECT count(DISTINCT t_ms) FROM samples WHERE t_ms BETWEEN 1 AND 25"), 25);
        state = raw_text("SELECT state FROM jobs");
        ck_assert_str_eq(state, "failed");
        error = raw_text("SELECT error FROM jobs");
        ck_assert_str_eq(error, "step 0 (write): boom");
}
END_TEST

/* The bound: while the database refuses writes at most DB_QUEUE_SAMPLES_MAX samples wait; the
 * rest are dropped, counted, and named in the error the job's row gets. */
START_TEST(test_samples_bound) {
        _cleanup_(db_closep) Db *db = open_db();
        _cleanup_(db_queue_freep) DbQueue *q = NULL;
        _cleanup_free_ char *alone = NULL, *with_base = NULL, *stored = NULL;
        uint64_t job = add_job(db), run = add_run(db, job, 0);
        char want[256];

        ck_assert_int_eq(db_queue_new(&q), 0);
        refuse_writes(db, true);
        add_samples(q, run, 1, DB_QUEUE_SAMPLES_MAX + 904);
        ck_assert_int_eq(db_queue_flush(q, db), -EROFS);
        ck_assert_uint_eq(db_queue_n_samples(q), DB_QUEUE_SAMPLES_MAX);
        ck_assert_uint_eq(db_queue_n_dropped(q), 904);
        ck_assert(db_queue_has_losses(q));

        snprintf(want, sizeof(want), "not stored: 904 samples of run %" PRIu64 " (more than %u waited for the database)",
                 run, DB_QUEUE_SAMPLES_MAX);
        alone = queue_error(q, NULL);
        ck_assert_str_eq(alone, want);
        with_base = queue_error(q, "boom");
        ck_assert_str_eq(with_base + strlen("boom; "), want);
        ck_assert(strncmp(with_base, "boom; ", 6) == 0);

        ck_assert_int_eq(db_queue_add_job_state(q, job, "succeeded", 0, 2, NULL), 0);
        refuse_writes(db, false);
        ck_assert_int_eq(db_queue_flush(q, db), 0);
        /* The first DB_QUEUE_SAMPLES_MAX are kept, the later ones dropped. */
        ck_assert_int_eq(raw_int("SELECT count(*) FROM samples"), DB_QUEUE_SAMPLES_MAX);
        ck_assert_int_eq(raw_int("SELECT max(t_ms) FROM samples"), DB_QUEUE_SAMPLES_MAX);
        stored = raw_text("SELECT error FROM jobs");
        ck_assert_str_eq(stored, want);
}
END_TEST

/* Writes the database refuses for good are dropped and noted, and do not hold up the rest: a
 * duplicate sample costs only itself, a run that does not exist costs its writes. */
START_TEST(test_refused_for_good) {
        _cleanup_(db_closep) Db *db = open_db();
        _cleanup_(db_queue_freep) DbQueue *q = NULL;
        _cleanup_free_ char *error = NULL, *stored = NULL, *later = NULL;
        ProtoResult res = result_def();
        ProtoHistogramEntry h[] = { { 10, 5 } };
        uint64_t job = add_job(db), run = add_run(db, job, 0);
        ProtoSample dup = sample_at(3);

        ck_assert_int_eq(db_queue_new(&q), 0);
        add_samples(q, run, 1, 5);
        ck_assert_int_eq(db_queue_add_records(q, run, &proto_record_sample, &dup, 1), 0);
        add_samples(q, run, 6, 4);
        add_samples(q, 4242, 1, 3);
        ck_assert_int_eq(db_queue_add_histogram(q, 4242, h, 1), 0);
        ck_assert_int_eq(db_queue_add_run_finish(q, 4242, "succeeded", NULL, &res), 0);
        ck_assert_int_eq(db_queue_add_run_finish(q, run, "succeeded", NULL, &res), 0);
        ck_assert_int_eq(db_queue_add_job_state(q, job, "succeeded", 0, 2, NULL), 0);

        ck_assert_int_eq(db_queue_flush(q, db), 0);
        ck_assert(db_queue_is_empty(q));
        ck_assert_int_eq(raw_int("SELECT count(*) FROM samples"), 9);
        ck_assert_int_eq(raw_int("SELECT count(*) FROM runs WHERE status = 'succeeded'"), 1);

        error = queue_error(q, NULL);
        ck_assert_msg(strstr(error, "not stored: 1 samples of run ") == error, "%s", error);
        ck_assert_msg(strstr(error, "UNIQUE constraint failed"), "%s", error);
        ck_assert_msg(strstr(error, "; 3 samples of run 4242 ("), "%s", error);
        ck_assert_msg(strstr(error, "; the histogram of run 4242 (No such file or directory: no run 4242)"), "%s", error);
        ck_assert_msg(strstr(error, "; the end of run 4242 (No such file or directory: no run 4242)"), "%s", error);
        /* The job's row says the same. */
        stored = raw_text("SELECT error FROM jobs");
        ck_assert_str_eq(stored, error);

        /* A job that does not exist: its state is lost too, and said so. */
        ck_assert_int_eq(db_queue_add_job_state(q, 777, "succeeded", 0, 2, NULL), 0);
        ck_assert_int_eq(db_queue_flush(q, db), 0);
        later = queue_error(q, NULL);
        ck_assert_msg(strstr(later, "; the final state of job 777 (No such file or directory: no job 777)"), "%s", later);
}
END_TEST

/* Writes other than samples are bounded too, and so are the notes of what was lost. */
START_TEST(test_bounds) {
        _cleanup_(db_closep) Db *db = open_db();
        _cleanup_(db_queue_freep) DbQueue *q = NULL;
        _cleanup_free_ char *error = NULL;
        uint64_t job = add_job(db), run = add_run(db, job, 0);
        ProtoPhaseResult p = { .ops = 0 };

        ck_assert_int_eq(db_queue_new(&q), 0);
        refuse_writes(db, true);
        for (unsigned i = 0; i < DB_QUEUE_ENTRIES_MAX + 40; i++) {
                snprintf(p.name, sizeof(p.name), "phase-%c%c", 'a' + i / 26 % 26, 'a' + i % 26);
                ck_assert_int_eq(db_queue_add_records(q, run, &proto_record_phase_result, &p, 1), 0);
        }
        ck_assert_int_eq(db_queue_flush(q, db), -EROFS);
        ck_assert(db_queue_has_losses(q));
        error = queue_error(q, NULL);
        /* DB_QUEUE_LOSSES_MAX - 1 named, the rest counted in the last note. */
        ck_assert_msg(strstr(error, "not stored: phase phase-jw of run "), "%s", error);
        ck_assert_msg(strstr(error, "(more than 256 writes waited for the database)"), "%s", error);
        ck_assert_msg(strstr(error, "; 25 more writes"), "%s", error);

        refuse_writes(db, false);
        ck_assert_int_eq(db_queue_flush(q, db), 0);
        ck_assert_int_eq(raw_int("SELECT count(*) FROM run_phases"), DB_QUEUE_ENTRIES_MAX);
}
END_TEST

/* A queue cleared by a caller that reports the failure itself forgets its writes without a note. */
START_TEST(test_clear) {
        _cleanup_(db_closep) Db *db = open_db();
        _cleanup_(db_queue_freep) DbQueue *q = NULL;
        uint64_t job = add_job(db), run = add_run(db, job, 0);

        ck_assert_int_eq(db_queue_new(&q), 0);
        add_samples(q, run, 1, 3);
        ck_assert_int_eq(db_queue_add_job_state(q, job, "cancelled", 0, 2, "cancelled"), 0);
        db_queue_clear(q);
        ck_assert(db_queue_is_empty(q));
        ck_assert_uint_eq(db_queue_n_samples(q), 0);
        ck_assert(!db_queue_has_losses(q));
        ck_assert_int_eq(db_queue_flush(q, db), 0);
        ck_assert_int_eq(raw_int("SELECT count(*) FROM samples"), 0);
}
END_TEST

/* What start-up reads to settle a job left running: its newest run. */
static int copy_run(const DbRunEnd *run, void *userdata) {
        DbRunEnd *out = userdata;

        *out = *run;
        out->status = strdup(run->status);
        out->error = run->error ? strdup(run->error) : NULL;
        return 0;
}

START_TEST(test_job_last_run) {
        _cleanup_(db_closep) Db *db = open_db();
        ProtoResult res = result_def();
        uint64_t job = add_job(db), other = add_job(db), r0, r1;
        DbRunEnd seen = {};

        ck_assert_int_eq(db_job_last_run(db, job, copy_run, &seen), 0);

        r0 = add_run(db, job, 0);
        ck_assert_int_eq(db_job_last_run(db, job, copy_run, &seen), 1);
        ck_assert_uint_eq(seen.id, r0);
        ck_assert_str_eq(seen.status, "running");
        ck_assert_uint_eq(seen.ended_usec, 0);
        free((char *) seen.status);

        ck_assert_int_eq(db_run_finish(db, r0, "succeeded", NULL, &res), 0);
        r1 = add_run(db, job, 1);
        ck_assert_int_eq(db_run_finish(db, r1, "failed", "step 1 (write): boom", NULL), 0);
        (void) add_run(db, other, 0);
        ck_assert_int_eq(db_job_last_run(db, job, copy_run, &seen), 1);
        ck_assert_uint_eq(seen.id, r1);
        ck_assert_uint_eq(seen.step, 1);
        ck_assert_str_eq(seen.status, "failed");
        ck_assert_str_eq(seen.error, "step 1 (write): boom");
        free((char *) seen.status);
        free((char *) seen.error);

        /* A summary gives the end: the measured phase's start plus its duration. */
        ck_assert_int_eq(db_run_finish(db, r1, "succeeded", NULL, &res), 0);
        ck_assert_int_eq(db_job_last_run(db, job, copy_run, &seen), 1);
        ck_assert_uint_eq(seen.ended_usec, 1700000000500000 + 2000000);
        free((char *) seen.status);
        free((char *) seen.error);
}
END_TEST

int main(void) {
        Suite *s = suite_create("db-queue");
        TCase *tc = tcase_create("queue");

        tcase_add_checked_fixture(tc, setup, teardown);
        tcase_add_test(tc, test_transient);
        tcase_add_test(tc, test_flush_in_order);
        tcase_add_test(tc, test_refused_then_stored);
        tcase_add_test(tc, test_samples_bound);
        tcase_add_test(tc, test_refused_for_good);
        tcase_add_test(tc, test_bounds);
        tcase_add_test(tc, test_clear);
        tcase_add_test(tc, test_job_last_run);
        tcase_set_timeout(tc, 60);
        suite_add_tcase(s, tc);

        return check_run(s);
}
