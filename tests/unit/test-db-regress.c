/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The regression check on a real SQLite file, run after each run as benchd runs it: what is
 * comparable (device identity, workload parameters, filesystem, layout, succeeded), segments by
 * kernel and firmware from the environment, the flags and baseline_segment stored, a flag not
 * stored twice, the cascade, ListRegressions' filters, and the query plan of the history (an
 * index search on runs_series, not a scan).
 */
#include <check.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check-util.h"
#include "shared/util.h"
#include "store/db.h"

#define DB_FIXTURE_NAME "test-db-regress"
#include "db-fixture.h"

static uint64_t rng_state;

static double rnd_pm1(void) {
        uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
        z ^= z >> 31;
        return (double) (z >> 11) / 4503599627370496.0 - 1.0;
}

static sqlite3 *raw_open(void) {
        sqlite3 *s = NULL;

        ck_assert_int_eq(sqlite3_open(dbpath, &s), SQLITE_OK);
        return s;
}

static char *raw_text(sqlite3 *s, const char *sql) {
        sqlite3_stmt *st = NULL;
        char *v = NULL;

        ck_assert_msg(sqlite3_prepare_v2(s, sql, -1, &st, NULL) == SQLITE_OK, "%s: %s", sql, sqlite3_errmsg(s));
        if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
                v = strdup((const char *) sqlite3_column_text(st, 0));
        sqlite3_finalize(st);
        return v;
}

static int64_t raw_int(sqlite3 *s, const char *sql) {
        sqlite3_stmt *st = NULL;
        int64_t v;

        ck_assert_msg(sqlite3_prepare_v2(s, sql, -1, &st, NULL) == SQLITE_OK, "%s: %s", sql, sqlite3_errmsg(s));
        ck_assert_int_eq(sqlite3_step(st), SQLITE_ROW);
        v = sqlite3_column_int64(st, 0);
        sqlite3_finalize(st);
        return v;
}

static int64_t device(Db *db, const char *identity) {
        DbDevice d = { .identity = identity, .name = "sdq", .size = 1 << 30, .rotational = 0,
                       .seen_usec = 1700000000000000 };
        int64_t id = 0;

        ck_assert_int_eq(db_device_upsert(db, &d, &id), 0);
        return id;
}

/* One run as a step makes it; mb_per_s is its throughput (10^6 bytes/s over 1 s), p99 in ns. */
typedef struct RunDef {
        int64_t device_id;
        const char *workload;
        uint64_t block_size;
        const char *fs_type;
        const char *kernel, *firmware;
        const char *status;
        double mb_per_s;
        uint64_t p99_ns;
} RunDef;

static uint64_t clock_usec = 1700000000000000;

static uint64_t add_run(Db *db, const RunDef *d) {
        char env[256];
        ProtoResult res = {};
        uint64_t id = 0;
        int r;

        if (d->firmware)
                snprintf(env, sizeof env, "{\"host\":\"h\",\"kernel\":\"%s\",\"firmware\":\"%s\"}", d->kernel, d->firmware);
        else
                snprintf(env, sizeof env, "{\"host\":\"h\",\"kernel\":\"%s\"}", d->kernel);
        clock_usec += 60 * USEC_PER_SEC;
        DbRun run = {
                .spec = fixture_spec("workload=%s block_size=%" PRIu64 " size=64M runtime_ms=1000 queue_depth=1 "
                                     "jobs=1 direct=true sync=none pattern=random target=/mnt/x",
                                     d->workload ?: "write", (uint64_t) (d->block_size ?: 65536)),
                .device_id = d->device_id,
                .device_name = "sdq1",
                .fs_type = d->fs_type,
                .environment = env,
                .started_usec = clock_usec,
        };
        r = db_run_begin(db, &run, &id);
        ck_assert_msg(r == 0, "db_run_begin: %s (%s)", strerror(-r), db_last_error(db));
        res = (ProtoResult) {
                .started_usec = clock_usec,
                .duration_usec = USEC_PER_SEC,
                .bytes_written = (uint64_t) (d->mb_per_s * 1e6),
                .ios_written = (uint64_t) (d->mb_per_s * 1e6 / 65536),
                .lat_p99_ns = d->p99_ns,
                .dev_util_pct = -1,
        };
        r = db_run_finish(db, id, d->status ?: "succeeded", NULL, &res);
        ck_assert_msg(r == 0, "db_run_finish: %s (%s)", strerror(-r), db_last_error(db));
        return id;
}

typedef struct Seen {
        unsigned n;
        uint64_t run_id[8];
        char metric[8][16];
        double value[8], median[8], change[8];
        uint64_t baseline_n[8], segment_usec[8];
        char identity[64];
} Seen;

static int on_flag(const DbRegression *g, void *userdata) {
        Seen *s = userdata;

        ck_assert_int_lt(s->n, 8);
        ck_assert_uint_gt(g->id, 0);
        s->run_id[s->n] = g->run_id;
        snprintf(s->metric[s->n], sizeof s->metric[0], "%s", g->metric);
        s->value[s->n] = g->value;
        s->median[s->n] = g->baseline_median;
        s->change[s->n] = g->change_pct;
        s->baseline_n[s->n] = g->baseline_n;
        s->segment_usec[s->n] = g->segment_started_usec;
        snprintf(s->identity, sizeof s->identity, "%s", g->device_identity);
        ck_assert_ptr_nonnull(strstr(g->method, "median-mad"));
        ck_assert_str_eq(g->workload, "write");
        s->n++;
        return 0;
}

/* Adds the run and checks it, as benchd does once its end is stored; returns the flags. */
static int add_checked(Db *db, const RunDef *d, Seen *seen, const char **ret_segment, uint64_t *ret_id) {
        RegressConfig c = REGRESS_CONFIG_DEFAULT;
        uint64_t id = add_run(db, d);
        int r;

        r = db_regress_check(db, id, &c, clock_usec + 1, on_flag, seen, ret_segment);
        ck_assert_msg(r >= 0, "db_regress_check: %s (%s)", strerror(-r), db_last_error(db));
        if (ret_id)
                *ret_id = id;
        return r;
}

START_TEST(test_sustained_drop) {
        _cleanup_(db_closep) Db *db = open_db();
        int64_t dev = device(db, "serial:A1");
        sqlite3 *s = raw_open();
        Seen seen = {};
        const char *segment;
        uint64_t first = 0, id = 0, flagged = 0;
        char *t;

        rng_state = 7;
        for (int i = 0; i < 20; i++) {
                ck_assert_int_eq(add_checked(db, &(RunDef) { .device_id = dev, .kernel = "6.1", .firmware = "FW1",
                                                             .mb_per_s = 500 * (1 + 0.01 * rnd_pm1()),
                                                             .p99_ns = 200000 },
                                             &seen, &segment, &id), 0);
                ck_assert_str_eq(segment, i == 0 ? "first" : "continues");
                if (i == 0)
                        first = id;
        }
        for (int i = 0; i < 3; i++) {
                int r = add_checked(db, &(RunDef) { .device_id = dev, .kernel = "6.1", .firmware = "FW1",
                                                    .mb_per_s = 450 * (1 + 0.01 * rnd_pm1()), .p99_ns = 200000 },
                                    &seen, &segment, &id);
                if (r > 0)
                        flagged = id;
        }
        ck_assert_int_eq(seen.n, 1);
        ck_assert_uint_gt(flagged, 0);
        ck_assert_uint_eq(seen.run_id[0], flagged);
        ck_assert_str_eq(seen.metric[0], "mb_per_s");
        ck_assert_str_eq(seen.identity, "serial:A1");
        ck_assert(fabs(seen.median[0] - 500) < 5);
        ck_assert(seen.change[0] < -7 && seen.change[0] > -13);
        ck_assert_uint_eq(seen.baseline_n[0], 20);
        /* The segment began with the first run (whose started_usec the result moved to its own). */
        {
                char q[128];
                snprintf(q, sizeof q, "SELECT started_usec FROM runs WHERE id = %" PRIu64, first);
                ck_assert_uint_eq(seen.segment_usec[0], (uint64_t) raw_int(s, q));
        }

        /* As a user sees it. */
        ck_assert_int_eq(raw_int(s, "SELECT count(*) FROM regressions"), 1);
        t = raw_text(s, "SELECT metric || ' ' || baseline_n || ' ' || (change_pct < -7) FROM regressions");
        ck_assert_str_eq(t, "mb_per_s 20 1");
        free(t);
        ck_assert_int_eq(raw_int(s, "SELECT count(*) FROM runs WHERE baseline_segment = 'first'"), 1);
        ck_assert_int_eq(raw_int(s, "SELECT count(*) FROM runs WHERE baseline_segment = 'continues'"), 22);

        /* Checked again (a restart, say): nothing new stored or announced. */
        {
                RegressConfig c = REGRESS_CONFIG_DEFAULT;
                ck_assert_int_eq(db_regress_check(db, flagged, &c, 1, on_flag, &seen, NULL), 0);
                ck_assert_int_eq(seen.n, 1);
        }

        /* The flag goes with its run. */
        {
                char q[128];
                snprintf(q, sizeof q, "PRAGMA foreign_keys = ON; DELETE FROM runs WHERE id = %" PRIu64, flagged);
                ck_assert_int_eq(sqlite3_exec(s, q, NULL, NULL, NULL), SQLITE_OK);
                ck_assert_int_eq(raw_int(s, "SELECT count(*) FROM regressions"), 0);
        }
        sqlite3_close(s);
}
END_TEST

START_TEST(test_only_comparable_runs_count) {
        _cleanup_(db_closep) Db *db = open_db();
        int64_t dev = device(db, "serial:B1"), other = device(db, "serial:B2");
        Seen seen = {};
        const char *segment;

        rng_state = 9;
        for (int i = 0; i < 20; i++) {
                /* Fast runs on ext4 with 64K blocks; between them, slow ones that are not comparable. */
                add_checked(db, &(RunDef) { .device_id = dev, .fs_type = "ext4", .kernel = "6.1",
                                            .mb_per_s = 800 * (1 + 0.01 * rnd_pm1()) }, &seen, NULL, NULL);
                add_checked(db, &(RunDef) { .device_id = dev, .fs_type = "ext4", .block_size = 4096, .kernel = "6.1",
                                            .mb_per_s = 100 }, &seen, NULL, NULL);
                add_checked(db, &(RunDef) { .device_id = dev, .fs_type = "xfs", .kernel = "6.1", .mb_per_s = 200 },
                            &seen, NULL, NULL);
                add_checked(db, &(RunDef) { .device_id = dev, .fs_type = NULL, .kernel = "6.1", .mb_per_s = 300 },
                            &seen, NULL, NULL);
                add_checked(db, &(RunDef) { .device_id = other, .fs_type = "ext4", .kernel = "6.1", .mb_per_s = 50 },
                            &seen, NULL, NULL);
                add_checked(db, &(RunDef) { .device_id = dev, .workload = "read", .fs_type = "ext4", .kernel = "6.1",
                                            .mb_per_s = 10 }, &seen, NULL, NULL);
                add_checked(db, &(RunDef) { .device_id = dev, .fs_type = "ext4", .kernel = "6.1", .status = "failed",
                                            .mb_per_s = 1 }, &seen, &segment, NULL);
                ck_assert_ptr_null(segment);
        }
        ck_assert_int_eq(seen.n, 0);
        /* A run without a device identity is not checked. */
        ck_assert_int_eq(add_checked(db, &(RunDef) { .device_id = -1, .kernel = "6.1", .mb_per_s = 1 }, &seen,
                                     &segment, NULL), 0);
        ck_assert_ptr_null(segment);

        /* The fast ext4 series drops: flagged against its own baseline (about 800). */
        add_checked(db, &(RunDef) { .device_id = dev, .fs_type = "ext4", .kernel = "6.1", .mb_per_s = 600 }, &seen,
                    NULL, NULL);
        add_checked(db, &(RunDef) { .device_id = dev, .fs_type = "ext4", .kernel = "6.1", .mb_per_s = 600 }, &seen,
                    NULL, NULL);
        ck_assert_int_eq(seen.n, 1);
        ck_assert(fabs(seen.median[0] - 800) < 10);
        ck_assert_uint_eq(seen.baseline_n[0], 20);
}
END_TEST

START_TEST(test_segments) {
        _cleanup_(db_closep) Db *db = open_db();
        int64_t dev = device(db, "serial:C1");
        Seen seen = {};
        const char *segment;
        uint64_t id, seg_first = 0;

        for (int i = 0; i < 20; i++)
                add_checked(db, &(RunDef) { .device_id = dev, .kernel = "6.1", .firmware = "FW1", .mb_per_s = 500 },
                            &seen, NULL, NULL);
        /* New firmware, 10% slower: a new segment, not a regression. */
        for (int i = 0; i < 10; i++) {
                add_checked(db, &(RunDef) { .device_id = dev, .kernel = "6.1", .firmware = "FW2", .mb_per_s = 450 },
                            &seen, &segment, &id);
                ck_assert_str_eq(segment, i == 0 ? "firmware" : "continues");
                if (i == 0)
                        seg_first = id;
        }
        add_checked(db, &(RunDef) { .device_id = dev, .kernel = "6.2", .firmware = "FW2", .mb_per_s = 450 }, &seen,
                    &segment, NULL);
        ck_assert_str_eq(segment, "kernel");
        add_checked(db, &(RunDef) { .device_id = dev, .kernel = "6.3", .firmware = "FW3", .mb_per_s = 450 }, &seen,
                    &segment, NULL);
        ck_assert_str_eq(segment, "kernel+firmware");
        /* An environment without firmware (a run from before benchd recorded it) is firmware "". */
        add_checked(db, &(RunDef) { .device_id = dev, .kernel = "6.3", .mb_per_s = 450 }, &seen, &segment, NULL);
        ck_assert_str_eq(segment, "firmware");
        ck_assert_int_eq(seen.n, 0);

        /* Back on 6.1/FW2 is a new segment again (what is compared is the run before) … */
        add_checked(db, &(RunDef) { .device_id = dev, .kernel = "6.1", .firmware = "FW2", .mb_per_s = 450 }, &seen,
                    &segment, &seg_first);
        ck_assert_str_eq(segment, "kernel+firmware");
        for (int i = 0; i < 6; i++)
                add_checked(db, &(RunDef) { .device_id = dev, .kernel = "6.1", .firmware = "FW2", .mb_per_s = 450 },
                            &seen, NULL, NULL);
        ck_assert_int_eq(seen.n, 0);
        /* … whose own 7 runs are the baseline of a drop, which started with its first run. */
        add_checked(db, &(RunDef) { .device_id = dev, .kernel = "6.1", .firmware = "FW2", .mb_per_s = 400 }, &seen,
                    NULL, NULL);
        add_checked(db, &(RunDef) { .device_id = dev, .kernel = "6.1", .firmware = "FW2", .mb_per_s = 400 }, &seen,
                    NULL, &id);
        ck_assert_int_eq(seen.n, 1);
        ck_assert_uint_eq(seen.run_id[0], id);
        ck_assert_uint_eq(seen.baseline_n[0], 7);
        ck_assert(fabs(seen.median[0] - 450) < 1e-6);
        {
                sqlite3 *s = raw_open();
                char q[128];
                snprintf(q, sizeof q, "SELECT started_usec FROM runs WHERE id = %" PRIu64, seg_first);
                ck_assert_uint_eq(seen.segment_usec[0], (uint64_t) raw_int(s, q));
                sqlite3_close(s);
        }
}
END_TEST

START_TEST(test_latency) {
        _cleanup_(db_closep) Db *db = open_db();
        int64_t dev = device(db, "serial:D1");
        sqlite3 *s = raw_open();
        Seen seen = {};
        uint64_t first = 0, id;
        char q[128];

        for (int i = 0; i < 10; i++) {
                add_checked(db, &(RunDef) { .device_id = dev, .kernel = "6.1", .mb_per_s = 500, .p99_ns = 100000 },
                            &seen, NULL, &id);
                if (i == 0)
                        first = id;
        }
        /* Lower latency is no regression; higher, twice, is. Throughput unchanged. */
        for (int i = 0; i < 3; i++)
                add_checked(db, &(RunDef) { .device_id = dev, .kernel = "6.1", .mb_per_s = 500, .p99_ns = 50000 },
                            &seen, NULL, NULL);
        ck_assert_int_eq(seen.n, 0);
        add_checked(db, &(RunDef) { .device_id = dev, .kernel = "6.1", .mb_per_s = 500, .p99_ns = 150000 }, &seen,
                    NULL, NULL);
        ck_assert_int_eq(add_checked(db, &(RunDef) { .device_id = dev, .kernel = "6.1", .mb_per_s = 500,
                                                      .p99_ns = 150000 }, &seen, NULL, NULL), 1);
        ck_assert_int_eq(seen.n, 1);
        ck_assert_str_eq(seen.metric[0], "lat_p99_ns");
        ck_assert(fabs(seen.median[0] - 100000) < 1);
        ck_assert(fabs(seen.change[0] - 50) < 1e-6);
        snprintf(q, sizeof q, "SELECT started_usec FROM runs WHERE id = %" PRIu64, first);
        ck_assert_uint_eq(seen.segment_usec[0], (uint64_t) raw_int(s, q));
        sqlite3_close(s);
}
END_TEST

typedef struct Listed {
        unsigned n;
        char metric[8][16];
        int64_t run_id[8];
} Listed;

static int on_listed(const DbField *fields, size_t n, void *userdata) {
        Listed *l = userdata;

        ck_assert_int_lt(l->n, 8);
        for (size_t i = 0; i < n; i++) {
                if (streq(fields[i].name, "metric"))
                        snprintf(l->metric[l->n], sizeof l->metric[0], "%s", fields[i].s);
                if (streq(fields[i].name, "run_id"))
                        l->run_id[l->n] = fields[i].i;
        }
        l->n++;
        return 0;
}

START_TEST(test_query_regressions) {
        _cleanup_(db_closep) Db *db = open_db();
        int64_t a = device(db, "serial:E1"), b = device(db, "serial:E2");
        Seen seen = {};
        Listed l;
        uint64_t since;

        for (int i = 0; i < 8; i++) {
                add_checked(db, &(RunDef) { .device_id = a, .kernel = "6.1", .mb_per_s = 500, .p99_ns = 1000 }, &seen,
                            NULL, NULL);
                add_checked(db, &(RunDef) { .device_id = b, .kernel = "6.1", .mb_per_s = 500, .p99_ns = 1000 }, &seen,
                            NULL, NULL);
        }
        for (int i = 0; i < 2; i++)
                add_checked(db, &(RunDef) { .device_id = a, .kernel = "6.1", .mb_per_s = 300, .p99_ns = 3000 }, &seen,
                            NULL, NULL);
        since = clock_usec + 1;
        for (int i = 0; i < 2; i++)
                add_checked(db, &(RunDef) { .device_id = b, .kernel = "6.1", .mb_per_s = 300, .p99_ns = 1000 }, &seen,
                            NULL, NULL);
        ck_assert_int_eq(seen.n, 3);

        l = (Listed) {};
        ck_assert_int_eq(db_query_regressions(db, NULL, on_listed, &l), 3);
        /* Newest run first: b's, then a's two figures. */
        ck_assert_str_eq(l.metric[0], "mb_per_s");
        ck_assert_int_gt(l.run_id[0], l.run_id[1]);
        ck_assert_int_eq(l.run_id[1], l.run_id[2]);

        l = (Listed) {};
        ck_assert_int_eq(db_query_regressions(db, &(DbRegressionFilter) { .device = "serial:E1" }, on_listed, &l), 2);
        l = (Listed) {};
        ck_assert_int_eq(db_query_regressions(db, &(DbRegressionFilter) { .device = "sdq1" }, on_listed, &l), 3);
        l = (Listed) {};
        ck_assert_int_eq(db_query_regressions(db, &(DbRegressionFilter) { .metric = "lat_p99_ns" }, on_listed, &l), 1);
        l = (Listed) {};
        ck_assert_int_eq(db_query_regressions(db, &(DbRegressionFilter) { .since_usec = since },
                                              on_listed, &l), 1);
        l = (Listed) {};
        ck_assert_int_eq(db_query_regressions(db, &(DbRegressionFilter) { .limit = 1 }, on_listed, &l), 1);
        l = (Listed) {};
        ck_assert_int_eq(db_query_regressions(db, &(DbRegressionFilter) { .workload = "read" }, on_listed, &l), 0);
        l = (Listed) {};
        ck_assert_int_eq(db_query_regressions(db, &(DbRegressionFilter) { .run = 1 }, on_listed, &l), 0);
}
END_TEST

/* The history is an index search, not a scan of runs and no sort: the plan of the check's own
 * statements, as db_regress_check() prepares them (db_set_explain_hook()), on a history of
 * comparable runs. */
typedef struct HistoryPlan {
        unsigned statements;    /* the history statement's plans seen */
        char plan[4096];
} HistoryPlan;

static int history_plan_hook(const char *sql, const char *detail, void *userdata) {
        HistoryPlan *h = userdata;
        size_t k = strlen(h->plan);

        if (!strstr(sql, "ORDER BY r.started_usec DESC, r.id DESC"))
                return 0;
        h->statements++;
        snprintf(h->plan + k, sizeof h->plan - k, "%s;", detail);
        return 0;
}

START_TEST(test_query_plan) {
        _cleanup_(db_closep) Db *db = open_db();
        RegressConfig c = REGRESS_CONFIG_DEFAULT;
        int64_t dev = device(db, "serial:PLAN");
        HistoryPlan h = {};
        uint64_t id = 0;

        for (int i = 0; i < 5; i++)
                id = add_run(db, &(RunDef) { .device_id = dev, .kernel = "6.1", .firmware = "FW1", .mb_per_s = 500,
                                             .p99_ns = 200000 });
        db_set_explain_hook(db, history_plan_hook, &h);
        ck_assert_int_ge(db_regress_check(db, id, &c, 1, NULL, NULL, NULL), 0);
        db_set_explain_hook(db, NULL, NULL);
        ck_assert_msg(h.statements > 0, "db_regress_check() prepared no history statement");
        /* runs_series (version 9, the Prometheus export's) has the comparable keys and fs_type and
         * layout before started_usec. The check names it: on a file without statistics the
         * planner would rather take runs_status_started (version 8) and sort. */
        ck_assert_msg(strstr(h.plan, "USING INDEX runs_series"), "plan: %s", h.plan);
        ck_assert_msg(!strstr(h.plan, "TEMP B-TREE"), "plan sorts: %s", h.plan);
        ck_assert_msg(!strstr(h.plan, "SCAN r "), "plan scans runs: %s", h.plan);
}
END_TEST

START_TEST(test_invalid) {
        _cleanup_(db_closep) Db *db = open_db();
        RegressConfig c = REGRESS_CONFIG_DEFAULT;

        ck_assert_int_eq(db_regress_check(db, 12345, &c, 1, NULL, NULL, NULL), -ENOENT);
        c.window = 2;
        ck_assert_int_eq(db_regress_check(db, 1, &c, 1, NULL, NULL, NULL), -EINVAL);
}
END_TEST

static Suite *db_regress_suite(void) {
        Suite *s = suite_create("db-regress");
        TCase *tc = tcase_create("core");

        tcase_add_checked_fixture(tc, setup, teardown);
        tcase_add_test(tc, test_sustained_drop);
        tcase_add_test(tc, test_only_comparable_runs_count);
        tcase_add_test(tc, test_segments);
        tcase_add_test(tc, test_latency);
        tcase_add_test(tc, test_query_regressions);
        tcase_add_test(tc, test_query_plan);
        tcase_add_test(tc, test_invalid);
        suite_add_tcase(s, tc);
        return s;
}

int main(void) {
        return check_run(db_regress_suite());
}
