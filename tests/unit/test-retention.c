/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The retention of samples (daemon/jobs/retention.c) on a real database and a real sd-event loop:
 * a prune asked for removes the samples of old runs only, in many steps with the loop's other
 * sources served in between, and answers once; SampleRetentionDays= prunes at start-up by itself;
 * prunes queue up to the bound; freeing the Retention answers what waits with -ECANCELED; and
 * benchd.conf's SampleRetentionDays= is parsed or refused with a message that says what is right.
 */

#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-event.h>

#include "check-util.h"
#include "jobs/retention.h"
#include "shared/util.h"

#define DB_FIXTURE_NAME "test-retention"
#include "db-fixture.h"

#define DAY_USEC (UINT64_C(86400) * USEC_PER_SEC)

typedef struct Answer {
        int calls;
        int r;
        DbPrune result;
} Answer;

static void on_done(int r, const DbPrune *result, void *userdata) {
        Answer *a = userdata;

        a->calls++;
        a->r = r;
        a->result = *result;
}

/* A job with runs[i] started ages[i] days ago, finished, with n samples each. */
static void fill(Db *db, const unsigned *ages, size_t n_runs, size_t n) {
        uint64_t now = now_usec(CLOCK_REALTIME), job = 0;
        _cleanup_free_ ProtoSample *s = calloc(n, sizeof(ProtoSample));

        ck_assert_ptr_nonnull(s);
        ck_assert_int_eq(db_job_insert(db, &(DbJob) { .spec_json = "{}", .target = "/tmp/x", .submitted_usec = now },
                                       &job), 0);
        for (size_t i = 0; i < n_runs; i++) {
                DbRun run = { .job_id = job, .step = (uint32_t) i, .device_id = -1,
                              .spec = fixture_spec("workload=write block_size=4K target=/tmp/x"),
                              .started_usec = now - ages[i] * DAY_USEC - 1 };
                uint64_t id;

                ck_assert_int_eq(db_run_begin(db, &run, &id), 0);
                for (size_t k = 0; k < n; k++)
                        s[k] = (ProtoSample) { .t_ms = 1000 * (k + 1), .interval_us = 1000000, .ios_written = 3,
                                               .bytes_written = 3 * 4096, .iowait_pct = 1.5, .dev_util_pct = -1,
                                               .dev_queue = -1 };
                ck_assert_int_eq(db_samples_insert(db, id, s, n), 0);
                ck_assert_int_eq(db_run_finish(db, id, "succeeded", NULL, NULL), 0);
        }
}

static int count_samples(Db *db, uint64_t run) {
        return db_get_samples(db, run, NULL, NULL);
}

/* Counts the iterations in which something other than the prune ran; pending again at once, as
 * a steady stream of bus calls would be. */
static int on_tick(sd_event_source *s, void *userdata) {
        (*(unsigned *) userdata)++;
        return sd_event_source_set_enabled(s, SD_EVENT_ONESHOT);
}

START_TEST(test_prune_asked) {
        static const unsigned ages[] = { 40, 35, 31, 29, 1 };
        _cleanup_(sd_event_unrefp) sd_event *e = NULL;
        _cleanup_(retention_freep) Retention *r = NULL;
        _cleanup_(db_closep) Db *db = open_db();
        sd_event_source *tick = NULL;
        Answer a = {};
        unsigned ticks = 0;

        fill(db, ages, ELEMENTSOF(ages), 2 * RETENTION_STEP_SAMPLES + 10);
        ck_assert_int_ge(sd_event_new(&e), 0);
        ck_assert_int_ge(sd_event_add_defer(e, &tick, on_tick, &ticks), 0);
        /* As idle as the prune's steps, so the two take turns; anything more urgent comes first. */
        ck_assert_int_ge(sd_event_source_set_priority(tick, SD_EVENT_PRIORITY_IDLE), 0);
        ck_assert_int_ge(sd_event_source_set_enabled(tick, SD_EVENT_ONESHOT), 0);
        ck_assert_int_eq(retention_new(e, db, 0, &r), 0);

        ck_assert_int_eq(retention_prune(r, now_usec(CLOCK_REALTIME) - 30 * DAY_USEC, on_done, &a), 0);
        while (a.calls == 0 && ticks < 100000)
                ck_assert_int_ge(sd_event_run(e, 0), 0);
        ck_assert_int_eq(a.calls, 1);
        ck_assert_int_eq(a.r, 0);
        ck_assert_uint_eq(a.result.runs, 3);
        ck_assert_uint_eq(a.result.samples, 3 * (2 * RETENTION_STEP_SAMPLES + 10));
        /* at least 7 steps for that many samples, and the loop served the tick between any two */
        ck_assert_uint_ge(ticks, 7);
        for (uint64_t run = 1; run <= 3; run++)
                ck_assert_int_eq(count_samples(db, run), 0);
        ck_assert_int_eq(count_samples(db, 4), 2 * RETENTION_STEP_SAMPLES + 10);
        ck_assert_int_eq(count_samples(db, 5), 2 * RETENTION_STEP_SAMPLES + 10);

        /* Answered once only. */
        for (int i = 0; i < 10; i++)
                ck_assert_int_ge(sd_event_run(e, 0), 0);
        ck_assert_int_eq(a.calls, 1);
        sd_event_source_disable_unref(tick);
}
END_TEST

/* SampleRetentionDays=30: the runs older than 30 days lose their samples once the loop runs. */
START_TEST(test_retention_days) {
        static const unsigned ages[] = { 400, 31, 29 };
        _cleanup_(sd_event_unrefp) sd_event *e = NULL;
        _cleanup_(retention_freep) Retention *r = NULL;
        _cleanup_(db_closep) Db *db = open_db();
        int i;

        fill(db, ages, ELEMENTSOF(ages), 50);
        ck_assert_int_ge(sd_event_new(&e), 0);
        ck_assert_int_eq(retention_new(e, db, 30, &r), 0);
        for (i = 0; i < 1000 && (count_samples(db, 1) > 0 || count_samples(db, 2) > 0); i++)
                ck_assert_int_ge(sd_event_run(e, 0), 0);
        ck_assert_int_lt(i, 1000);
        ck_assert_int_eq(count_samples(db, 3), 50);
        ck_assert_int_eq(retention_new(e, db, RETENTION_DAYS_MAX + 1, &(Retention *) { NULL }), -EINVAL);
}
END_TEST

START_TEST(test_queue_bound_and_free) {
        _cleanup_(sd_event_unrefp) sd_event *e = NULL;
        _cleanup_(db_closep) Db *db = open_db();
        Retention *r = NULL;
        Answer a[RETENTION_REQUESTS_MAX + 1] = {};

        ck_assert_int_ge(sd_event_new(&e), 0);
        ck_assert_int_eq(retention_new(e, db, 0, &r), 0);
        for (unsigned i = 0; i < RETENTION_REQUESTS_MAX; i++)
                ck_assert_int_eq(retention_prune(r, 1, on_done, &a[i]), 0);
        ck_assert_int_eq(retention_prune(r, 1, on_done, &a[RETENTION_REQUESTS_MAX]), -EBUSY);
        retention_free(r);
        for (unsigned i = 0; i < RETENTION_REQUESTS_MAX; i++) {
                ck_assert_int_eq(a[i].calls, 1);
                ck_assert_int_eq(a[i].r, -ECANCELED);
        }
        ck_assert_int_eq(a[RETENTION_REQUESTS_MAX].calls, 0);
}
END_TEST

static const struct {
        const char *text;
        int r;
        unsigned days;
} conf_cases[] = {
        { "", 0, 0 },
        { "[Daemon]\nSampleRetentionDays=90\n", 0, 90 },
        { "ScratchDevices=/dev/loop0\nSampleRetentionDays = 0\n", 0, 0 },
        { "SampleRetentionDays=7\nSampleRetentionDays=\n", 0, 0 },
        { "SampleRetentionDays=36500\n", 0, 36500 },
        { "SampleRetentionDays=36501\n", -EINVAL, 0 },
        { "SampleRetentionDays=30d\n", -EINVAL, 0 },
        { "SampleRetentionDays=-1\n", -EINVAL, 0 },
};

START_TEST(test_conf) {
        _cleanup_free_ char *error = NULL;
        char path[300];
        unsigned days = 4711;
        FILE *f;
        int r;

        snprintf(path, sizeof(path), "%s/benchd.conf", tmpdir);
        f = fopen(path, "we");
        ck_assert_ptr_nonnull(f);
        fputs(conf_cases[_i].text, f);
        fclose(f);
        r = retention_conf_parse(path, &days, &error);
        unlink(path);
        ck_assert_int_eq(r, conf_cases[_i].r);
        if (r == 0)
                ck_assert_uint_eq(days, conf_cases[_i].days);
        else
                ck_assert_msg(error && strstr(error, "SampleRetentionDays=365"), "message: %s", strna(error));
}
END_TEST

START_TEST(test_conf_missing) {
        unsigned days = 4711;

        ck_assert_int_eq(retention_conf_parse("/nonexistent/benchd.conf", &days, NULL), 0);
        ck_assert_uint_eq(days, 0);
}
END_TEST

int main(void) {
        Suite *s = suite_create("retention");
        TCase *tc = tcase_create("retention");

        tcase_add_checked_fixture(tc, setup, teardown);
        tcase_set_timeout(tc, 60);
        tcase_add_test(tc, test_prune_asked);
        tcase_add_test(tc, test_retention_days);
        tcase_add_test(tc, test_queue_bound_and_free);
        tcase_add_loop_test(tc, test_conf, 0, ELEMENTSOF(conf_cases));
        tcase_add_test(tc, test_conf_missing);
        suite_add_tcase(s, tc);
        return check_run(s);
}
