/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Tests of benchmarks when a disk appears: the pure rules (jobs/autorun.c) as tables, one row a
 * case (an identity known or not, the same or another firmware, either firmware unknown, a job
 * already queued or a row still waiting; scratch or not, profiles with and without steps that
 * only read), and the store's side (store/db-autorun.c) on a real SQLite file: the devices table
 * looked up before a sighting, the autoruns row recorded, a job inserted with its row marked
 * queued in one transaction, never a second time, and jobs.triggered_by.
 */
#include <check.h>
#include <errno.h>
#include <sqlite3.h>

#define DB_FIXTURE_NAME "test-autorun"
#include "check-util.h"
#include "db-fixture.h"
#include "jobs/autorun.h"
#include "shared/job-state.h"
#include "shared/spec.h"

/* ---- autorun_eligibility() ---- */

static const struct {
        bool known;
        const char *known_firmware, *firmware;
        DbAutorunState record;
        AutorunEligibility want;
} eligibility_cases[] = {
        /* Never seen: benchmarked, whatever udev says of its firmware. */
        { false, NULL, "fw1", DB_AUTORUN_NONE, AUTORUN_NEW_IDENTITY },
        { false, NULL, NULL, DB_AUTORUN_NONE, AUTORUN_NEW_IDENTITY },
        /* Seen with the same firmware: not. */
        { true, "fw1", "fw1", DB_AUTORUN_NONE, AUTORUN_KNOWN },
        /* Another firmware: benchmarked. */
        { true, "fw1", "fw2", DB_AUTORUN_NONE, AUTORUN_NEW_FIRMWARE },
        /* Firmware unknown on either side is no change. */
        { true, NULL, "fw1", DB_AUTORUN_NONE, AUTORUN_KNOWN },
        { true, "fw1", NULL, DB_AUTORUN_NONE, AUTORUN_KNOWN },
        { true, NULL, NULL, DB_AUTORUN_NONE, AUTORUN_KNOWN },
        /* A job was queued for this identity and firmware: never again, also when the database
         * now holds another firmware (the disk went back to an older one) or lost the device. */
        { true, "fw1", "fw1", DB_AUTORUN_QUEUED, AUTORUN_ALREADY_QUEUED },
        { true, "fw2", "fw1", DB_AUTORUN_QUEUED, AUTORUN_ALREADY_QUEUED },
        { false, NULL, "fw1", DB_AUTORUN_QUEUED, AUTORUN_ALREADY_QUEUED },
        /* Recorded when it appeared new, no job yet (unknown profile, queue full): the devices row
         * the sighting updated does not hide it. */
        { true, "fw1", "fw1", DB_AUTORUN_WAITING, AUTORUN_STILL_WAITING },
        { false, NULL, NULL, DB_AUTORUN_WAITING, AUTORUN_STILL_WAITING },
};

START_TEST(test_eligibility) {
        AutorunFacts f = {
                .known = eligibility_cases[_i].known,
                .known_firmware = eligibility_cases[_i].known_firmware,
                .firmware = eligibility_cases[_i].firmware,
                .record = eligibility_cases[_i].record,
        };
        AutorunEligibility e = autorun_eligibility(&f), want = eligibility_cases[_i].want;

        ck_assert_msg(e == want, "case %d: %s, expected %s", _i, autorun_eligibility_to_string(e),
                      autorun_eligibility_to_string(want));
        ck_assert(autorun_eligible(e) ==
                  (want == AUTORUN_NEW_IDENTITY || want == AUTORUN_NEW_FIRMWARE || want == AUTORUN_STILL_WAITING));
        ck_assert_ptr_nonnull(autorun_eligibility_to_string(e));
}
END_TEST

/* ---- autorun_plan() ---- */

#define W(x) WORKLOAD_##x
#define STEPS_MAX 4

static const struct {
        Workload steps[STEPS_MAX];
        size_t n;
        bool scratch;
        AutorunPlan want;
        bool keep[STEPS_MAX];
        bool writes;
} plan_cases[] = {
        /* quick: write, read, randread. Not scratch: the reads only. */
        { { W(WRITE), W(READ), W(RANDREAD) }, 3, false, AUTORUN_PLAN_READ_ONLY, { false, true, true }, false },
        /* Scratch: all of it, and the job writes. */
        { { W(WRITE), W(READ), W(RANDREAD) }, 3, true, AUTORUN_PLAN_AS_IS, { true, true, true }, true },
        /* ping: reads only, scratch or not. */
        { { W(PING) }, 1, false, AUTORUN_PLAN_AS_IS, { true }, false },
        { { W(PING) }, 1, true, AUTORUN_PLAN_AS_IS, { true }, false },
        /* Only writers (bonnie's seeks and metadata write too): nothing unless scratch. */
        { { W(WRITE), W(REWRITE), W(SEEKS), W(METADATA) }, 4, false, AUTORUN_PLAN_NOTHING, {}, false },
        { { W(RANDWRITE), W(RANDRW) }, 2, false, AUTORUN_PLAN_NOTHING, {}, false },
        { { W(WRITE), W(SEEKS) }, 2, true, AUTORUN_PLAN_AS_IS, { true, true }, true },
        /* Readers between writers keep their order. */
        { { W(READ), W(WRITE), W(POSITION), W(PUTC) }, 4, false, AUTORUN_PLAN_READ_ONLY,
          { true, false, true, false }, false },
        /* No steps: nothing. */
        { {}, 0, true, AUTORUN_PLAN_NOTHING, {}, false },
};

START_TEST(test_plan) {
        bool keep[STEPS_MAX], writes = true;
        AutorunPlan p;

        memset(keep, 0xff, sizeof(keep));
        p = autorun_plan(plan_cases[_i].steps, plan_cases[_i].n, plan_cases[_i].scratch, keep, &writes);
        ck_assert_msg(p == plan_cases[_i].want, "case %d: plan %d, expected %d", _i, p, plan_cases[_i].want);
        ck_assert_msg(writes == plan_cases[_i].writes, "case %d: writes %d", _i, writes);
        for (size_t k = 0; k < plan_cases[_i].n; k++)
                ck_assert_msg(keep[k] == plan_cases[_i].keep[k], "case %d, step %zu: keep %d", _i, k, keep[k]);
        /* keep and writes may be NULL. */
        ck_assert_int_eq(autorun_plan(plan_cases[_i].steps, plan_cases[_i].n, plan_cases[_i].scratch, NULL, NULL),
                         p);
}
END_TEST

START_TEST(test_trigger_names) {
        ck_assert_str_eq(job_trigger_to_string(JOB_TRIGGER_BUS), "bus");
        ck_assert_str_eq(job_trigger_to_string(JOB_TRIGGER_UDEV), "udev");
        ck_assert_ptr_null(job_trigger_to_string(_JOB_TRIGGER_MAX));
        ck_assert_int_eq(job_trigger_from_string("udev"), JOB_TRIGGER_UDEV);
        ck_assert_int_eq(job_trigger_from_string("timer"), _JOB_TRIGGER_INVALID);
        ck_assert_int_eq(job_trigger_from_string(NULL), _JOB_TRIGGER_INVALID);
}
END_TEST

/* ---- the store ---- */

static const DbJob test_job = {
        .state = "queued",
        .profile = "quick",
        .spec_json = "{\"profile\":\"quick\",\"target\":\"/dev/loop7\"}",
        .target = "/dev/loop7",
        .label = "autorun",
        .submitted_usec = 1000,
        .triggered_by = "udev",
};

static int count_rows(const char *sql) {
        sqlite3 *s = NULL;
        sqlite3_stmt *st = NULL;
        int n = -1;

        ck_assert_int_eq(sqlite3_open_v2(dbpath, &s, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
        ck_assert_int_eq(sqlite3_prepare_v2(s, sql, -1, &st, NULL), SQLITE_OK);
        if (sqlite3_step(st) == SQLITE_ROW)
                n = sqlite3_column_int(st, 0);
        sqlite3_finalize(st);
        sqlite3_close(s);
        return n;
}

START_TEST(test_device_find) {
        _cleanup_(db_closep) Db *db = open_db();
        char *fw = (char *) "untouched";
        int64_t id;

        ck_assert_int_eq(db_device_find(db, "serial:S1", &fw), 0);
        ck_assert_str_eq(fw, "untouched");
        ck_assert_int_eq(db_device_upsert(db, &(DbDevice) { .identity = "serial:S1", .firmware = "fw1",
                                                            .name = "sdb", .rotational = -1 }, &id), 0);
        ck_assert_int_eq(db_device_find(db, "serial:S1", &fw), 1);
        ck_assert_str_eq(fw, "fw1");
        free(fw);
        /* Without a firmware ever reported: known, firmware NULL. */
        ck_assert_int_eq(db_device_upsert(db, &(DbDevice) { .identity = "serial:S2", .name = "sdc",
                                                            .rotational = -1 }, &id), 0);
        fw = (char *) "untouched";
        ck_assert_int_eq(db_device_find(db, "serial:S2", &fw), 1);
        ck_assert_ptr_null(fw);
        ck_assert_int_eq(db_device_find(db, "serial:S2", NULL), 1);
}
END_TEST

/* The autoruns key: a stable identity as it is; without one, model and name, never the size. */
START_TEST(test_key) {
        static const struct {
                const char *identity;
                bool stable;
                const char *model, *name, *want;
                int r;
        } t[] = {
                { "serial:S1", true, "SSD", "sdb", "serial:S1", 0 },
                { "wwn:0x5000c500a1b2c3d4", true, NULL, "sdc", "wwn:0x5000c500a1b2c3d4", 0 },
                /* The loop device: four sizes, one key. */
                { "model::67108864:loop3", false, NULL, "loop3", "model::loop3", 0 },
                { "model::134217728:loop3", false, NULL, "loop3", "model::loop3", 0 },
                { "model:QEMU HARDDISK:10737418240:sdd", false, "QEMU HARDDISK", "sdd", "model:QEMU HARDDISK:sdd", 0 },
                { "model:QEMU HARDDISK:21474836480:sdd", false, "QEMU HARDDISK", "sdd", "model:QEMU HARDDISK:sdd", 0 },
                { NULL, true, NULL, "sdb", NULL, -EINVAL },
                { "model::1:", false, NULL, "", NULL, -EINVAL },
        };

        for (size_t i = 0; i < ELEMENTSOF(t); i++) {
                _cleanup_free_ char *key = NULL;
                int r = autorun_key(t[i].identity, t[i].stable, t[i].model, t[i].name, &key);

                ck_assert_msg(r == t[i].r, "case %zu: %d", i, r);
                if (r == 0)
                        ck_assert_str_eq(key, t[i].want);
        }
}
END_TEST

/* Known under any size, by model and name, only for devices without WWN or serial. */
START_TEST(test_device_find_model) {
        _cleanup_(db_closep) Db *db = open_db();
        char *fw = NULL;
        int64_t id;

        ck_assert_int_eq(db_device_find_model(db, NULL, "loop3", &fw), 0);
        ck_assert_int_eq(db_device_upsert(db, &(DbDevice) { .identity = "model::67108864:loop3", .size = 67108864,
                                                            .name = "loop3", .rotational = -1 }, &id), 0);
        ck_assert_int_eq(db_device_find_model(db, NULL, "loop3", &fw), 1);
        ck_assert_ptr_null(fw);
        ck_assert_int_eq(db_device_find_model(db, "", "loop3", NULL), 1);
        ck_assert_int_eq(db_device_find_model(db, NULL, "loop4", NULL), 0);
        ck_assert_int_eq(db_device_find_model(db, "SSD", "loop3", NULL), 0);
        ck_assert_int_eq(db_device_upsert(db, &(DbDevice) { .identity = "model:QEMU:1024:sdd", .model = "QEMU",
                                                            .firmware = "2.5+", .size = 1024, .name = "sdd",
                                                            .rotational = -1 }, &id), 0);
        ck_assert_int_eq(db_device_find_model(db, "QEMU", "sdd", &fw), 1);
        ck_assert_str_eq(fw, "2.5+");
        free(fw);
        /* A disk with a serial that was once named sdd is another disk. */
        ck_assert_int_eq(db_device_upsert(db, &(DbDevice) { .identity = "serial:S9", .serial = "S9", .model = "X",
                                                            .name = "sde", .rotational = -1 }, &id), 0);
        ck_assert_int_eq(db_device_find_model(db, "X", "sde", NULL), 0);
}
END_TEST

START_TEST(test_autorun_once) {
        _cleanup_(db_closep) Db *db = open_db();
        DbAutorunState state;
        int64_t id, id2, none_id;
        uint64_t job, job_id, other;

        ck_assert_int_eq(db_autorun_get(db, "serial:S1", "fw1", &state, &id, &job), 0);
        ck_assert_int_eq(state, DB_AUTORUN_NONE);

        ck_assert_int_eq(db_autorun_add(db, "serial:S1", "fw1", "quick", "sdb", 5, &id), 0);
        ck_assert_int_gt(id, 0);
        ck_assert_int_eq(db_autorun_get(db, "serial:S1", "fw1", &state, &id2, &job), 0);
        ck_assert_int_eq(state, DB_AUTORUN_WAITING);
        ck_assert_int_eq(id2, id);
        ck_assert_uint_eq(job, 0);
        /* Adding again keeps the row (and its id); the profile follows the rule while it waits. */
        ck_assert_int_eq(db_autorun_add(db, "serial:S1", "fw1", "ping", "sdc", 6, &id2), 0);
        ck_assert_int_eq(id2, id);
        ck_assert_int_eq(count_rows("SELECT count(*) FROM autoruns WHERE profile = 'ping' AND device_name = 'sdc'"), 1);
        ck_assert_int_eq(db_autorun_set_reason(db, id, "unknown profile 'qiuck'"), 1);
        ck_assert_int_eq(db_autorun_set_reason(db, id, "unknown profile 'qiuck'"), 0);
        ck_assert_int_eq(db_autorun_set_reason(db, id, "queue full"), 1);
        ck_assert_int_eq(db_autorun_set_reason(db, id + 100, "x"), -ENOENT);

        /* The job and the mark together. */
        ck_assert_int_eq(db_job_insert_autorun(db, &test_job, id, &job_id), 0);
        ck_assert_int_eq(db_autorun_get(db, "serial:S1", "fw1", &state, NULL, &job), 0);
        ck_assert_int_eq(state, DB_AUTORUN_QUEUED);
        ck_assert_uint_eq(job, job_id);
        ck_assert_int_eq(count_rows("SELECT count(*) FROM autoruns WHERE reason IS NULL AND queued_usec = 1000"), 1);
        ck_assert_int_eq(count_rows("SELECT count(*) FROM jobs WHERE triggered_by = 'udev'"), 1);

        /* Never twice: the second insert fails and leaves no job behind. */
        ck_assert_int_eq(db_job_insert_autorun(db, &test_job, id, &other), -EALREADY);
        ck_assert_int_eq(count_rows("SELECT count(*) FROM jobs"), 1);
        /* ... and a queued row is not turned back into a waiting one. */
        ck_assert_int_eq(db_autorun_add(db, "serial:S1", "fw1", "quick", "sdd", 7, &id2), 0);
        ck_assert_int_eq(id2, id);
        ck_assert_int_eq(db_autorun_get(db, "serial:S1", "fw1", &state, NULL, NULL), 0);
        ck_assert_int_eq(state, DB_AUTORUN_QUEUED);

        /* Another firmware is another row; no firmware is stored as "". */
        ck_assert_int_eq(db_autorun_add(db, "serial:S1", "fw2", "quick", "sdb", 8, &id2), 0);
        ck_assert_int_ne(id2, id);
        ck_assert_int_eq(db_autorun_add(db, "serial:S1", NULL, "quick", "sdb", 9, &none_id), 0);
        ck_assert_int_eq(db_autorun_get(db, "serial:S1", NULL, &state, &id2, NULL), 0);
        ck_assert_int_eq(state, DB_AUTORUN_WAITING);
        ck_assert_int_eq(id2, none_id);
        ck_assert_int_eq(count_rows("SELECT count(*) FROM autoruns WHERE firmware = ''"), 1);

        ck_assert_int_eq(count_rows("SELECT count(*) FROM autoruns"), 3);

        /* A deleted job (as schema/README.md shows) leaves its mark: still never again. */
        {
                sqlite3 *raw = NULL;

                ck_assert_int_eq(sqlite3_open(dbpath, &raw), SQLITE_OK);
                sqlite3_busy_timeout(raw, 5000);
                ck_assert_int_eq(sqlite3_exec(raw, "PRAGMA foreign_keys = ON; DELETE FROM jobs;", NULL, NULL, NULL),
                                 SQLITE_OK);
                sqlite3_close(raw);
        }
        ck_assert_int_eq(db_autorun_get(db, "serial:S1", "fw1", &state, NULL, &job), 0);
        ck_assert_int_eq(state, DB_AUTORUN_QUEUED);
        ck_assert_uint_eq(job, 0);
}
END_TEST

START_TEST(test_autorun_survives_reopen) {
        Db *db = open_db();
        DbAutorunState state;
        int64_t id;
        uint64_t job_id, bus_id;

        ck_assert_int_eq(db_autorun_add(db, "wwn:0x5000c500a1b2c3d4", "A1", "quick", "sdb", 5, &id), 0);
        ck_assert_int_eq(db_job_insert_autorun(db, &test_job, id, &job_id), 0);
        /* A job of SubmitJob's: triggered by the bus, also when the caller says nothing. */
        ck_assert_int_eq(db_job_insert(db, &(DbJob) { .spec_json = "{}", .target = "/tmp", .submitted_usec = 2 },
                                       &bus_id), 0);
        db_close(db);

        db = open_db();
        ck_assert_int_eq(db_autorun_get(db, "wwn:0x5000c500a1b2c3d4", "A1", &state, NULL, NULL), 0);
        ck_assert_int_eq(state, DB_AUTORUN_QUEUED);
        db_close(db);
        ck_assert_int_eq(count_rows("SELECT count(*) FROM jobs WHERE triggered_by = 'bus'"), 1);
        /* Rows from before version 11 read as triggered by the bus. */
        ck_assert_int_eq(count_rows("SELECT count(*) FROM pragma_table_info('jobs') WHERE name = 'triggered_by' "
                                    "AND dflt_value = '''bus'''"), 1);
}
END_TEST

/* The schema refuses a trigger it does not know, an identity of no known form, an empty profile. */
START_TEST(test_autorun_schema_checks) {
        _cleanup_(db_closep) Db *db = open_db();
        uint64_t id;
        int64_t aid;

        ck_assert_int_eq(db_job_insert(db, &(DbJob) { .spec_json = "{}", .target = "/tmp", .triggered_by = "timer" },
                                       &id), -EINVAL);
        ck_assert_int_eq(db_autorun_add(db, "sdb", "fw1", "quick", "sdb", 1, &aid), -EINVAL);
        ck_assert_int_eq(db_autorun_add(db, "serial:S1", "fw1", "", "sdb", 1, &aid), -EINVAL);
}
END_TEST

static Suite *autorun_suite(void) {
        Suite *s = suite_create("autorun");
        TCase *tc = tcase_create("rules");
        TCase *store = tcase_create("store");

        tcase_add_loop_test(tc, test_eligibility, 0, ELEMENTSOF(eligibility_cases));
        tcase_add_loop_test(tc, test_plan, 0, ELEMENTSOF(plan_cases));
        tcase_add_test(tc, test_trigger_names);
        tcase_add_test(tc, test_key);
        suite_add_tcase(s, tc);

        tcase_add_checked_fixture(store, setup, teardown);
        tcase_add_test(store, test_device_find);
        tcase_add_test(store, test_device_find_model);
        tcase_add_test(store, test_autorun_once);
        tcase_add_test(store, test_autorun_survives_reopen);
        tcase_add_test(store, test_autorun_schema_checks);
        suite_add_tcase(s, store);
        return s;
}

int main(void) {
        return check_run(autorun_suite());
}
