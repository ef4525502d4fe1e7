/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The worker's records into a real SQLite file, as their descriptions say (daemon/store/db-record.c):
 * every described record lands in its table (or its run's row) with each column holding its field;
 * samples that come in order cost one look-up a batch, not one a sample; and the implied-interval
 * rule of the writer is the one migration 0008 applied to older files.
 */
#include <check.h>
#include <errno.h>
#include <inttypes.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DB_FIXTURE_NAME "test-db-record"
#include "check-util.h"
#include "db-fixture.h"
#include "record-example.h"
#include "schema-migrations.h"
#include "shared/proto-record.h"
#include "store/db-internal.h"
#include "store/db-queue.h"

static sqlite3 *raw_open(void) {
        sqlite3 *s = NULL;

        ck_assert_int_eq(sqlite3_open(dbpath, &s), SQLITE_OK);
        return s;
}

static void raw_exec(sqlite3 *s, const char *sql) {
        char *err = NULL;

        ck_assert_msg(sqlite3_exec(s, sql, NULL, NULL, &err) == SQLITE_OK, "%s: %s", sql, err);
}

static int64_t raw_int(sqlite3 *s, const char *sql) {
        sqlite3_stmt *st = NULL;
        int64_t v;

        ck_assert_msg(sqlite3_prepare_v2(s, sql, -1, &st, NULL) == SQLITE_OK, "%s: %s", sql, sqlite3_errmsg(s));
        ck_assert_msg(sqlite3_step(st) == SQLITE_ROW, "%s: no row", sql);
        v = sqlite3_column_type(st, 0) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, 0);
        sqlite3_finalize(st);
        return v;
}

static uint64_t new_run(Db *db, bool steady) {
        DbJob j = { .workload = "write", .spec_json = "{}", .target = "/tmp/x", .submitted_usec = 1700000000000000 };
        DbRun run = { .step = 0,
                      .spec = fixture_spec("workload=write block_size=4K size=1M queue_depth=1 jobs=1 target=/tmp/x"),
                      .started_usec = 1700000000000000, .device_id = -1,
                      .steady_state_asked = steady };
        uint64_t id = 0;

        ck_assert_int_eq(db_job_insert(db, &j, &run.job_id), 0);
        ck_assert_int_eq(db_run_begin(db, &run, &id), 0);
        return id;
}

/* Each described record, queued as the supervisor hands it over (one tagged record) and flushed,
 * is where its description says, every stored column holding its field. */
START_TEST(test_records_stored) {
        _cleanup_(db_closep) Db *db = open_db();
        _cleanup_(db_queue_freep) DbQueue *q = NULL;
        sqlite3 *s;

        /* The queue's documented bound on waiting samples is the description's. */
        ck_assert_uint_eq(proto_record_sample.batch_max, DB_QUEUE_SAMPLES_MAX);
        ck_assert_int_eq(db_queue_new(&q), 0);
        for (size_t k = 0; proto_records[k]; k++) {
                const ProtoRecordDesc *d = proto_records[k];
                uint64_t run = new_run(db, true);
                ProtoRecord rec = { .desc = d };

                record_example(d, &rec.sample);
                ck_assert_int_eq(db_queue_add_record(q, run, &rec), 0);
                ck_assert_int_eq(db_queue_flush(q, db), 0);
                ck_assert(!db_queue_has_losses(q));

                s = raw_open();
                for (size_t i = 0; i < d->n_fields; i++) {
                        const ProtoField *f = &d->fields[i];
                        char sql[256];

                        if (f->store != PROTO_STORE_INTEGER && f->store != PROTO_STORE_USEC_OF_MS &&
                            f->store != PROTO_STORE_TEXT)
                                continue;
                        if (d->table)
                                snprintf(sql, sizeof(sql), "SELECT %s %s FROM %s WHERE run_id = %" PRIu64,
                                         f->column ?: f->name, f->store == PROTO_STORE_TEXT ? "= 'create-seq'" : "",
                                         d->table, run);
                        else
                                snprintf(sql, sizeof(sql), "SELECT %s FROM runs WHERE id = %" PRIu64,
                                         f->column ?: f->name, run);
                        if (f->store == PROTO_STORE_TEXT)
                                ck_assert_int_eq(raw_int(s, sql), 1);
                        else
                                ck_assert_msg((uint64_t) raw_int(s, sql) ==
                                                      proto_field_u64(f, &rec.sample) *
                                                              (f->store == PROTO_STORE_USEC_OF_MS ? 1000 : 1),
                                              "%s.%s: %s", d->name, f->name, sql);
                }
                sqlite3_close(s);
        }

        /* A record without a description, or of a run that is not there. */
        ck_assert_int_eq(db_queue_add_record(q, 1, &(ProtoRecord) {}), -EINVAL);
        {
                uint64_t plain = new_run(db, false);
                ProtoSteadyState st = { .t_ms = 5 };

                ck_assert_int_eq(db_records_insert(db, plain, &proto_record_steady_state, &st, 1), -ENOENT);
                ck_assert_int_eq(db_records_insert(db, 999999, &proto_record_steady_state, &st, 1), -ENOENT);
        }
}
END_TEST

static int count_selects(unsigned type, void *userdata, void *p, void *x) {
        unsigned *n = userdata;

        if (type == SQLITE_TRACE_STMT && x && strncmp(x, "SELECT", 6) == 0)
                n[0]++;
        if (type == SQLITE_TRACE_STMT && x && strncmp(x, "INSERT", 6) == 0)
                n[1]++;
        return 0;
}

/* Samples in order: one look-up a batch (the run's block size and last t_ms), one INSERT a
 * sample, no SELECT of the sample before. */
START_TEST(test_samples_no_select) {
        _cleanup_(db_closep) Db *db = open_db();
        uint64_t run = new_run(db, false);
        ProtoSample smp[200], late;
        unsigned n[2] = {};

        for (size_t i = 0; i < ELEMENTSOF(smp); i++)
                smp[i] = (ProtoSample) { .t_ms = 100 * (i + 1), .interval_us = 100000 + (i % 3) * 2000,
                                         .dev_util_pct = -1, .dev_queue = -1 };
        ck_assert_int_eq(sqlite3_trace_v2(db->sqlite, SQLITE_TRACE_STMT, count_selects, n), SQLITE_OK);
        ck_assert_int_eq(db_samples_insert(db, run, smp, 150), 0);
        ck_assert_uint_eq(n[0], 1);
        ck_assert_uint_eq(n[1], 150);
        ck_assert_int_eq(db_samples_insert(db, run, smp + 150, 50), 0);
        ck_assert_uint_eq(n[0], 2);
        ck_assert_uint_eq(n[1], 200);

        /* Out of order: the neighbours are looked up then (and still stored right). */
        late = (ProtoSample) { .t_ms = 150, .interval_us = 50000, .dev_util_pct = -1, .dev_queue = -1 };
        ck_assert_int_eq(db_samples_insert(db, run, &late, 1), 0);
        ck_assert_uint_ge(n[0], 3);
        sqlite3_trace_v2(db->sqlite, 0, NULL, NULL);
        {
                sqlite3 *s = raw_open();

                /* 200, whose previous changed from 100 to 150, keeps its own interval written out. */
                ck_assert_int_eq(raw_int(s, "SELECT interval_us FROM sample_data WHERE t_ms = 200"), 102000);
                ck_assert_int_eq(raw_int(s, "SELECT interval_us FROM samples WHERE t_ms = 150"), 50000);
                ck_assert_int_eq(raw_int(s, "SELECT count(*) FROM sample_data"), 201);
                sqlite3_close(s);
        }
}
END_TEST

/* The implied-interval rule has one home, the writer (db_interval_implied()); migration 0008
 * applied it to the rows of older files in SQL, and a released migration is never edited. The
 * same samples, once migrated from a version-7 file and once written now, store interval_us in the
 * same rows, which are those db_interval_implied() says. The cases sit on each edge: 1 ms, 1 %. */
START_TEST(test_interval_rule_of_migration) {
        static const struct {
                uint64_t t_ms, interval_us;
        } cases[] = {
                { 1000, 1000321 }, { 2000, 999876 }, { 3001, 1000999 }, { 5001, 1000050 }, { 5101, 100456 },
                { 5201, 101200 }, { 5202, 312 }, { 6202, 1000999 }, { 7202, 1001000 }, { 7302, 101010 },
                { 7402, 99000 }, { 7502, 100990 }, { 7503, 1000 }, { 7600, 97030 }, { 7700, 101000 },
        };
        ProtoSample smp[ELEMENTSOF(cases)];
        uint64_t run;
        sqlite3 *s;

        s = raw_open();
        raw_exec(s, "BEGIN");
        for (int v = 0; v < 7; v++)
                raw_exec(s, schema_migrations[v]);
        raw_exec(s, "PRAGMA user_version = 7");
        raw_exec(s, "COMMIT");
        raw_exec(s, "INSERT INTO jobs (state, spec, target, submitted_by, submitted_usec) "
                    "VALUES ('succeeded', '{}', '/tmp/x', 0, 1700000000000000)");
        raw_exec(s, "INSERT INTO runs (job_id, step, workload, block_size, size, runtime_ms, ramp_ms, "
                    "queue_depth, jobs, direct, target, started_usec, status) "
                    "VALUES (1, 0, 'write', 4096, 0, 0, 0, 1, 1, 0, '/tmp/x', 1700000000000000, 'succeeded')");
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                char sql[256];

                snprintf(sql, sizeof(sql), "INSERT INTO samples VALUES (1, %" PRIu64 ", %" PRIu64 ", 0, 0, 0, 0, 0, "
                         "NULL, NULL, NULL, NULL, 0, 0, 0, NULL, NULL)", cases[i].t_ms, cases[i].interval_us);
                raw_exec(s, sql);
                smp[i] = (ProtoSample) { .t_ms = cases[i].t_ms, .interval_us = cases[i].interval_us,
                                         .dev_util_pct = -1, .dev_queue = -1 };
        }
        sqlite3_close(s);

        {
                _cleanup_(db_closep) Db *db = open_db();      /* migrates, through 0008 */

                run = new_run(db, false);
                ck_assert_int_eq(db_samples_insert(db, run, smp, ELEMENTSOF(smp)), 0);
        }

        s = raw_open();
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                char sql[256];
                int64_t migrated, written;
                bool implied = db_interval_implied(cases[i].interval_us, cases[i].t_ms, i > 0 ? cases[i - 1].t_ms : 0);

                snprintf(sql, sizeof(sql), "SELECT interval_us IS NULL FROM sample_data WHERE run_id = 1 AND t_ms = %" PRIu64,
                         cases[i].t_ms);
                migrated = raw_int(s, sql);
                snprintf(sql, sizeof(sql), "SELECT interval_us IS NULL FROM sample_data WHERE run_id = %" PRIu64
                         " AND t_ms = %" PRIu64, run, cases[i].t_ms);
                written = raw_int(s, sql);
                ck_assert_msg(migrated == written && written == implied,
                              "t_ms %" PRIu64 ": migration %s, writer %s, rule %s", cases[i].t_ms,
                              migrated ? "implied" : "stored", written ? "implied" : "stored",
                              implied ? "implied" : "stored");
        }
        /* Both kinds of rows occur, so the comparison means something. */
        ck_assert_int_gt(raw_int(s, "SELECT count(*) FROM sample_data WHERE run_id = 1 AND interval_us IS NULL"), 3);
        ck_assert_int_gt(raw_int(s, "SELECT count(*) FROM sample_data WHERE run_id = 1 AND interval_us IS NOT NULL"), 3);
        sqlite3_close(s);
}
END_TEST

int main(void) {
        Suite *s = suite_create("db-record");
        TCase *tc = tcase_create("core");

        tcase_add_checked_fixture(tc, setup, teardown);
        tcase_add_test(tc, test_records_stored);
        tcase_add_test(tc, test_samples_no_select);
        tcase_add_test(tc, test_interval_rule_of_migration);
        suite_add_tcase(s, tc);
        return check_run(s);
}
