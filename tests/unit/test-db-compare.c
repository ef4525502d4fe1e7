/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * CompareRuns below the bus: db_compare_runs() on a prepared database (runs inserted with plain
 * SQL, as an import or a user would leave them) gives one cell per row and group with the n, means
 * and squared deviations worked out by hand here; only succeeded runs count, the filter applies,
 * each group key groups by what it says; then compare_finish() orders groups the way people read
 * them (in the order they were first run), picks the baseline, and weighs every difference with
 * Welch's test, or, for runs of a matrix made in rounds, with the paired test over the rounds
 * (db_compare_rounds()): constructed rounds on a drifting machine give no false difference where
 * the same figures run entry by entry do, and a real 3% difference is found where Welch's test
 * misses it.
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
#include "shared/stats.h"
#include "shared/util.h"
#include "store/compare.h"
#include "store/db.h"

#define DB_FIXTURE_NAME "test-db-compare"
#include "db-fixture.h"

#define assert_close(got, want, tol)                                                               \
        ck_assert_msg(fabs((got) - (want)) <= (tol), "%s = %.15g, expected %.15g ± %g", #got,      \
                      (double) (got), (double) (want), (double) (tol))

/* One run as the test writes it: mib is its MiB/s over 1 s, iops is mib × 10; p50 0 is NULL. */
typedef struct TestRun {
        const char *workload;   /* NULL: write */
        uint64_t block_size;    /* 0: 32K */
        uint64_t queue_depth;   /* 0: 1 */
        const char *fs_type;
        double mib;
        int64_t p50_ns;
        int64_t p99_ns;
        const char *status;     /* NULL: succeeded */
        const char *environment;
        const char *device_name;
        const char *label;
        const char *tags;
        const char *layout;
        const char *members;
        int64_t matrix_entry;   /* 0: NULL, else entry + 1 */
        uint64_t started_usec;  /* 0: 1700000000000000 */
        int64_t round;          /* 0: NULL, else round + 1 */
} TestRun;

static uint64_t add_job_spec(Db *db, const char *spec) {
        DbJob j = {
                .workload = "write",
                .spec_json = spec,
                .target = "/tmp/x",
                .submitted_usec = 1700000000000000,
        };
        uint64_t id = 0;

        ck_assert_int_eq(db_job_insert(db, &j, &id), 0);
        return id;
}

static uint64_t add_job(Db *db) {
        return add_job_spec(db, "{}");
}

static void add_runs(uint64_t job, const TestRun *runs, size_t n) {
        sqlite3 *s = NULL;
        sqlite3_stmt *st = NULL;

        ck_assert_int_eq(sqlite3_open(dbpath, &s), SQLITE_OK);
        ck_assert_int_eq(sqlite3_exec(s, "PRAGMA busy_timeout = 5000; BEGIN", NULL, NULL, NULL), SQLITE_OK);
        ck_assert_int_eq(sqlite3_prepare_v2(s,
                "INSERT INTO runs (job_id, workload, block_size, size, runtime_ms, ramp_ms, queue_depth, jobs, "
                "direct, target, started_usec, duration_usec, status, bytes_read, bytes_written, ios_read, "
                "ios_written, ops, lat_p50_ns, lat_p99_ns, fs_type, environment, device_name, label, tags, "
                "layout, members, matrix_entry, \"round\") "
                "VALUES (?1, ?2, ?3, 1073741824, 0, 0, ?4, 1, 1, '/tmp/x', ?5, 1000000, ?6, 0, ?7, 0, ?8, 0, "
                "nullif(?9, 0), nullif(?10, 0), ?11, ?12, ?13, ?14, ?15, ?16, ?17, nullif(?18, 0) - 1, "
                "nullif(?19, 0) - 1)",
                -1, &st, NULL), SQLITE_OK);
        for (size_t i = 0; i < n; i++) {
                const TestRun *r = &runs[i];

                sqlite3_bind_int64(st, 1, (int64_t) job);
                sqlite3_bind_text(st, 2, r->workload ?: "write", -1, SQLITE_STATIC);
                sqlite3_bind_int64(st, 3, (int64_t) (r->block_size ?: 32768));
                sqlite3_bind_int64(st, 4, (int64_t) (r->queue_depth ?: 1));
                sqlite3_bind_int64(st, 5, (int64_t) (r->started_usec ?: 1700000000000000));
                sqlite3_bind_text(st, 6, r->status ?: "succeeded", -1, SQLITE_STATIC);
                sqlite3_bind_int64(st, 7, (int64_t) llround(r->mib * 1048576));
                sqlite3_bind_int64(st, 8, (int64_t) llround(r->mib * 10));
                sqlite3_bind_int64(st, 9, r->p50_ns);
                sqlite3_bind_int64(st, 10, r->p99_ns);
                sqlite3_bind_text(st, 11, r->fs_type, -1, SQLITE_STATIC);
                sqlite3_bind_text(st, 12, r->environment, -1, SQLITE_STATIC);
                sqlite3_bind_text(st, 13, r->device_name, -1, SQLITE_STATIC);
                sqlite3_bind_text(st, 14, r->label, -1, SQLITE_STATIC);
                sqlite3_bind_text(st, 15, r->tags, -1, SQLITE_STATIC);
                sqlite3_bind_text(st, 16, r->layout, -1, SQLITE_STATIC);
                sqlite3_bind_text(st, 17, r->members, -1, SQLITE_STATIC);
                sqlite3_bind_int64(st, 18, r->matrix_entry);
                sqlite3_bind_int64(st, 19, r->round);
                ck_assert_msg(sqlite3_step(st) == SQLITE_DONE, "insert: %s", sqlite3_errmsg(s));
                sqlite3_reset(st);
        }
        sqlite3_finalize(st);
        ck_assert_int_eq(sqlite3_exec(s, "COMMIT", NULL, NULL, NULL), SQLITE_OK);
        sqlite3_close(s);
}

/* ext4 against btrfs, two rows, with runs that must not count. */
static const TestRun fixture[] = {
        { .fs_type = "ext4", .mib = 100, .p50_ns = 1000, .environment = "{\"kernel\":\"6.1\",\"host\":\"a\"}" },
        { .fs_type = "ext4", .mib = 110, .p50_ns = 2000, .environment = "{\"kernel\":\"6.1\",\"host\":\"a\"}" },
        { .fs_type = "ext4", .mib = 120, .environment = "{\"kernel\":\"6.2\",\"host\":\"a\"}" },
        { .fs_type = "btrfs", .mib = 130, .p50_ns = 4000, .environment = "{\"kernel\":\"6.2\",\"host\":\"b\"}" },
        { .fs_type = "btrfs", .mib = 140, .p50_ns = 4000, .environment = "{\"kernel\":\"6.2\",\"host\":\"b\"}" },
        { .fs_type = "btrfs", .mib = 150, .p50_ns = 4000, .environment = "{\"kernel\":\"6.2\"}" },
        { .fs_type = "btrfs", .mib = 160, .p50_ns = 4000 },
        { .workload = "read", .block_size = 1 << 20, .queue_depth = 8, .fs_type = "ext4", .mib = 200 },
        { .workload = "read", .block_size = 1 << 20, .queue_depth = 8, .fs_type = "btrfs", .mib = 210 },
        { .workload = "read", .block_size = 1 << 20, .queue_depth = 8, .fs_type = "btrfs", .mib = 230 },
        /* never compared: not succeeded */
        { .fs_type = "ext4", .mib = 9999, .status = "failed" },
        { .fs_type = "btrfs", .mib = 9999, .status = "interrupted" },
        { .workload = "randread", .fs_type = "ext4", .mib = 9999, .status = "running" },
};

typedef struct Cells {
        size_t n;
        DbCompareCell cell[32];
        char text[32][2][64];
} Cells;

static int collect(const DbCompareCell *cell, void *userdata) {
        Cells *c = userdata;

        ck_assert_uint_lt(c->n, ELEMENTSOF(c->cell));
        c->cell[c->n] = *cell;
        snprintf(c->text[c->n][0], 64, "%s", cell->workload);
        snprintf(c->text[c->n][1], 64, "%s", cell->group);
        c->cell[c->n].workload = c->text[c->n][0];
        c->cell[c->n].group = c->text[c->n][1];
        c->n++;
        return 0;
}

static const DbCompareCell *find(const Cells *c, const char *workload, const char *group) {
        for (size_t i = 0; i < c->n; i++)
                if (streq(c->cell[i].workload, workload) && streq(c->cell[i].group, group))
                        return &c->cell[i];
        ck_abort_msg("no cell %s/%s", workload, group);
        return NULL;
}

START_TEST(test_aggregates_by_fs_type) {
        _cleanup_(db_closep) Db *db = open_db();
        Cells c = {};
        const DbCompareCell *x;

        add_runs(add_job(db), fixture, ELEMENTSOF(fixture));
        ck_assert_int_eq(db_compare_runs(db, "fs_type", NULL, collect, &c), 4);
        ck_assert_uint_eq(c.n, 4);

        /* Rows in order (read before write), groups within a row by name. */
        ck_assert_str_eq(c.cell[0].workload, "read");
        ck_assert_str_eq(c.cell[0].group, "btrfs");
        ck_assert_str_eq(c.cell[1].group, "ext4");
        ck_assert_str_eq(c.cell[2].workload, "write");
        ck_assert_uint_eq(c.cell[0].block_size, 1 << 20);
        ck_assert_uint_eq(c.cell[0].queue_depth, 8);
        ck_assert_uint_eq(c.cell[0].jobs, 1);
        ck_assert_int_eq(c.cell[0].group_order, -1);

        /* write/ext4: 100, 110, 120 MiB/s → mean 110, deviations -10 0 10 → m2 200; the failed
         * 9999 is not among them. p50 of two runs (1000, 2000): mean 1500, m2 500000. */
        x = find(&c, "write", "ext4");
        ck_assert_uint_eq(x->runs, 3);
        ck_assert_uint_eq(x->figures[DB_FIGURE_MIB_PER_S].n, 3);
        assert_close(x->figures[DB_FIGURE_MIB_PER_S].mean, 110, 1e-9);
        assert_close(x->figures[DB_FIGURE_MIB_PER_S].m2, 200, 1e-6);
        assert_close(x->figures[DB_FIGURE_IOPS].mean, 1100, 1e-9);
        assert_close(x->figures[DB_FIGURE_IOPS].m2, 20000, 1e-6);
        ck_assert_uint_eq(x->figures[DB_FIGURE_LAT_P50_NS].n, 2);
        assert_close(x->figures[DB_FIGURE_LAT_P50_NS].mean, 1500, 1e-9);
        assert_close(x->figures[DB_FIGURE_LAT_P50_NS].m2, 500000, 1e-6);
        ck_assert_uint_eq(x->figures[DB_FIGURE_LAT_P99_NS].n, 0);
        ck_assert(isnan(x->figures[DB_FIGURE_LAT_P99_NS].mean));
        ck_assert_uint_eq(x->figures[DB_FIGURE_OPS_PER_S].n, 3);
        assert_close(x->figures[DB_FIGURE_OPS_PER_S].mean, 0, 0);

        /* write/btrfs: 130..160 → mean 145, deviations ±5 ±15 → m2 500; p50 all 4000 → m2 0. */
        x = find(&c, "write", "btrfs");
        ck_assert_uint_eq(x->runs, 4);
        assert_close(x->figures[DB_FIGURE_MIB_PER_S].mean, 145, 1e-9);
        assert_close(x->figures[DB_FIGURE_MIB_PER_S].m2, 500, 1e-6);
        assert_close(x->figures[DB_FIGURE_LAT_P50_NS].m2, 0, 0);

        x = find(&c, "read", "btrfs");
        ck_assert_uint_eq(x->runs, 2);
        assert_close(x->figures[DB_FIGURE_MIB_PER_S].mean, 220, 1e-9);
        assert_close(x->figures[DB_FIGURE_MIB_PER_S].m2, 200, 1e-6);
        x = find(&c, "read", "ext4");
        ck_assert_uint_eq(x->runs, 1);
        assert_close(x->figures[DB_FIGURE_MIB_PER_S].m2, 0, 0);
}
END_TEST

START_TEST(test_group_keys) {
        _cleanup_(db_closep) Db *db = open_db();
        Cells c = {};

        add_runs(add_job(db), fixture, ELEMENTSOF(fixture));

        /* $.kernel of the environment: write has 6.1 (2 runs), 6.2 (4 runs), none (1 run). */
        ck_assert_int_eq(db_compare_runs(db, "kernel", &(DbRunFilter) { .workload = "write" }, collect, &c), 3);
        ck_assert_str_eq(c.cell[0].group, "-");
        ck_assert_uint_eq(c.cell[0].runs, 1);
        ck_assert_str_eq(c.cell[1].group, "6.1");
        ck_assert_uint_eq(c.cell[1].runs, 2);
        assert_close(c.cell[1].figures[DB_FIGURE_MIB_PER_S].mean, 105, 1e-9);
        ck_assert_str_eq(c.cell[2].group, "6.2");
        ck_assert_uint_eq(c.cell[2].runs, 4);
        assert_close(c.cell[2].figures[DB_FIGURE_MIB_PER_S].mean, (120 + 130 + 140 + 150) / 4.0, 1e-9);

        c = (Cells) {};
        ck_assert_int_eq(db_compare_runs(db, "host", &(DbRunFilter) { .workload = "write" }, collect, &c), 3);
        ck_assert_str_eq(find(&c, "write", "a")->group, "a");
        ck_assert_uint_eq(find(&c, "write", "a")->runs, 3);
        ck_assert_uint_eq(find(&c, "write", "-")->runs, 2);

        /* Filters as QueryRuns has them; status succeeded is what compare means anyway. */
        c = (Cells) {};
        ck_assert_int_eq(db_compare_runs(db, "fs_type", &(DbRunFilter) { .fs_type = "ext4", .status = "succeeded" },
                                         collect, &c), 2);
        ck_assert_int_eq(db_compare_runs(db, "label", &(DbRunFilter) { .since_usec = 1800000000000000 }, NULL,
                                         NULL), 0);
        ck_assert_int_eq(db_compare_runs(db, "fs_type", &(DbRunFilter) { .status = "failed" }, NULL, NULL), -EINVAL);
        ck_assert_ptr_nonnull(strstr(db_last_error(db), "only succeeded runs"));
        ck_assert_int_eq(db_compare_runs(db, "colour", NULL, NULL, NULL), -EINVAL);
        ck_assert_ptr_nonnull(strstr(db_last_error(db), "fs_type, label, device"));
        ck_assert(!db_compare_key_known("colour"));
        ck_assert(db_compare_key_known("matrix"));
}
END_TEST

START_TEST(test_group_tags_devices_matrix) {
        _cleanup_(db_closep) Db *db = open_db();
        static const TestRun runs[] = {
                { .fs_type = "ext4", .mib = 10, .device_name = "loop10", .tags = "[\"a\",\"b\"]", .label = "",
                  .layout = "single", .members = "[\"/dev/loop10\"]", .matrix_entry = 1 + 1 },
                { .fs_type = "ext4", .mib = 20, .device_name = "loop2", .tags = "[\"a\",\"b\"]",
                  .layout = "single", .members = "[\"/dev/loop2\"]", .matrix_entry = 0 + 1 },
                { .fs_type = "btrfs", .mib = 30, .device_name = "loop2", .layout = "raid1",
                  .members = "[\"/dev/loop2\",\"/dev/disk/by-id/x-loop3\"]", .matrix_entry = 2 + 1 },
                { .fs_type = "ext4", .mib = 40, .device_name = "loop2", .layout = "single",
                  .members = "[\"/dev/loop2\"]", .matrix_entry = 3 + 1 },
                { .fs_type = "xfs", .mib = 50, .device_name = "loop2" },       /* not an entry */
        };
        Compare cmp = {};
        Cells c = {};

        add_runs(add_job(db), runs, ELEMENTSOF(runs));

        ck_assert_int_eq(db_compare_runs(db, "tags", NULL, collect, &c), 2);
        ck_assert_str_eq(c.cell[0].group, "-");
        ck_assert_str_eq(c.cell[1].group, "a, b");
        ck_assert_uint_eq(c.cell[1].runs, 2);
        c = (Cells) {};
        ck_assert_int_eq(db_compare_runs(db, "label", NULL, collect, &c), 1);  /* "" and NULL: "-" */

        /* Groups in the order their first runs were made: loop10's came first. */
        ck_assert_int_eq(db_compare_runs(db, "device_name", NULL, compare_add, &cmp), 2);
        ck_assert_int_eq(compare_finish(&cmp, NULL, 0.95), 0);
        ck_assert_uint_eq(cmp.n_groups, 2);
        ck_assert_str_eq(cmp.groups[0].name, "loop10");
        ck_assert_str_eq(cmp.groups[1].name, "loop2");
        ck_assert_str_eq(cmp.groups[cmp.baseline].name, "loop10");
        ck_assert_uint_eq(cmp.cells[1].group, 1);
        ck_assert_uint_eq(cmp.cells[1].runs, 4);
        compare_clear(&cmp);

        /* Matrix entries in entry order, named by filesystem, layout and members; two entries of the
         * same name apart by their numbers; runs outside the matrix left out. */
        ck_assert_int_eq(db_compare_runs(db, "matrix", NULL, compare_add, &cmp), 4);
        ck_assert_int_eq(compare_finish(&cmp, NULL, 0.95), 0);
        ck_assert_uint_eq(cmp.n_groups, 4);
        ck_assert_str_eq(cmp.groups[0].name, "ext4 loop2 #0");
        ck_assert_str_eq(cmp.groups[1].name, "ext4 loop10");
        ck_assert_str_eq(cmp.groups[2].name, "btrfs raid1 loop2+x-loop3");
        ck_assert_str_eq(cmp.groups[3].name, "ext4 loop2 #3");
        ck_assert_int_eq(cmp.groups[2].order, 2);
        ck_assert_uint_eq(cmp.runs, 4);
        compare_clear(&cmp);
}
END_TEST

/* Entries named as the job's own tables name them, from the devices its spec lists: the
 * filesystem alone on one device, the device too on several, the layout alone across them. */
START_TEST(test_matrix_names_by_job) {
        _cleanup_(db_closep) Db *db = open_db();
        uint64_t one = add_job_spec(db, "{\"devices\":[\"/dev/loop0\"]}");
        uint64_t two = add_job_spec(db, "{\"devices\":[\"/dev/loop1\",\"/dev/loop2\"]}");
        static const TestRun a[] = {
                { .fs_type = "ext4", .mib = 1, .layout = "single", .members = "[\"/dev/loop0\"]", .matrix_entry = 1 },
                { .fs_type = "btrfs", .mib = 2, .layout = "single", .members = "[\"/dev/loop0\"]", .matrix_entry = 2 },
        };
        static const TestRun b[] = {
                { .fs_type = "ext4", .mib = 1, .layout = "single", .members = "[\"/dev/loop1\"]", .matrix_entry = 1 },
                { .fs_type = "ext4", .mib = 2, .layout = "single", .members = "[\"/dev/loop2\"]", .matrix_entry = 2 },
                { .fs_type = "btrfs", .mib = 3, .layout = "raid1", .members = "[\"/dev/loop1\",\"/dev/loop2\"]",
                  .matrix_entry = 3 },
        };
        Compare cmp = {};

        add_runs(one, a, ELEMENTSOF(a));
        add_runs(two, b, ELEMENTSOF(b));
        ck_assert_int_eq(db_compare_runs(db, "matrix", &(DbRunFilter) { .job = one }, compare_add, &cmp), 2);
        ck_assert_int_eq(compare_finish(&cmp, "btrfs", 0.95), 0);
        ck_assert_str_eq(cmp.groups[0].name, "ext4");
        ck_assert_str_eq(cmp.groups[1].name, "btrfs");
        compare_clear(&cmp);
        ck_assert_int_eq(db_compare_runs(db, "matrix", &(DbRunFilter) { .job = two }, compare_add, &cmp), 3);
        ck_assert_int_eq(compare_finish(&cmp, NULL, 0.95), 0);
        ck_assert_str_eq(cmp.groups[0].name, "ext4 loop1");
        ck_assert_str_eq(cmp.groups[1].name, "ext4 loop2");
        ck_assert_str_eq(cmp.groups[2].name, "btrfs raid1");
        compare_clear(&cmp);
}
END_TEST

/* Far from zero with a tiny spread: the squared deviations survive (a sum of squares of 1e12
 * would not: its rounding error is larger than the whole spread). */
START_TEST(test_numeric_stability) {
        _cleanup_(db_closep) Db *db = open_db();
        static const TestRun runs[] = {
                { .fs_type = "ext4", .mib = 1, .p99_ns = 1000000000004 },
                { .fs_type = "ext4", .mib = 1, .p99_ns = 1000000000007 },
                { .fs_type = "ext4", .mib = 1, .p99_ns = 1000000000013 },
                { .fs_type = "ext4", .mib = 1, .p99_ns = 1000000000016 },
        };
        Cells c = {};

        add_runs(add_job(db), runs, ELEMENTSOF(runs));
        ck_assert_int_eq(db_compare_runs(db, "fs_type", NULL, collect, &c), 1);
        assert_close(c.cell[0].figures[DB_FIGURE_LAT_P99_NS].mean, 1000000000010.0, 1e-3);
        assert_close(c.cell[0].figures[DB_FIGURE_LAT_P99_NS].m2, 90, 1e-3);
        assert_close(stats_stddev_from_m2(4, c.cell[0].figures[DB_FIGURE_LAT_P99_NS].m2), sqrt(30), 1e-6);
}
END_TEST

START_TEST(test_compare_against_baseline) {
        _cleanup_(db_closep) Db *db = open_db();
        static const double ext4[] = { 100, 110, 120 }, btrfs[] = { 130, 140, 150, 160 };
        const CompareCell *w_btrfs, *w_ext4, *r_ext4;
        const CompareFigure *f;
        Compare cmp = {};
        StatsWelch w;
        double lo, hi;

        add_runs(add_job(db), fixture, ELEMENTSOF(fixture));
        ck_assert_int_eq(db_compare_runs(db, "fs_type", NULL, compare_add, &cmp), 4);
        ck_assert_int_eq(compare_finish(&cmp, NULL, 0.95), 0);
        /* ext4 was run first: it is the first group, and the baseline unless one is named. */
        ck_assert_str_eq(cmp.groups[0].name, "ext4");
        ck_assert_str_eq(cmp.groups[cmp.baseline].name, "ext4");
        compare_clear(&cmp);

        ck_assert_int_eq(db_compare_runs(db, "fs_type", NULL, compare_add, &cmp), 4);
        ck_assert_int_eq(compare_finish(&cmp, "btrfs", 0.95), 0);
        ck_assert_uint_eq(cmp.runs, 10);
        ck_assert_uint_eq(cmp.n_groups, 2);
        ck_assert_str_eq(cmp.groups[cmp.baseline].name, "btrfs");
        r_ext4 = &cmp.cells[0];
        w_ext4 = &cmp.cells[2];
        w_btrfs = &cmp.cells[3];
        ck_assert_str_eq(w_ext4->workload, "write");
        ck_assert_str_eq(cmp.groups[w_ext4->group].name, "ext4");

        /* The baseline has its interval, and no difference to itself. */
        f = &w_btrfs->figures[DB_FIGURE_MIB_PER_S];
        ck_assert_int_eq(stats_mean_interval(4, 145, stats_stddev(btrfs, 4), 0.95, &lo, &hi), 0);
        ck_assert(f->has_interval && !f->has_diff && !f->has_test && !f->significant);
        assert_close(f->stddev, stats_stddev(btrfs, 4), 1e-9);
        assert_close(f->ci_low, lo, 1e-9);
        assert_close(f->ci_high, hi, 1e-9);

        /* ext4 against it: (110 - 145) / 145, and Welch on the same numbers. */
        f = &w_ext4->figures[DB_FIGURE_MIB_PER_S];
        ck_assert(f->has_diff && f->has_test);
        assert_close(f->diff_pct, (110.0 - 145.0) / 145.0 * 100.0, 1e-9);
        ck_assert_int_eq(stats_welch(4, 145, stats_stddev(btrfs, 4), 3, 110, stats_stddev(ext4, 3), &w), 0);
        assert_close(f->p_value, w.p, 1e-12);
        ck_assert(f->p_value < 0.05);
        ck_assert(f->significant);
        /* p50: 1500 against 4000 without spread in the baseline; p99: nobody has it. */
        ck_assert(w_ext4->figures[DB_FIGURE_LAT_P50_NS].has_test);
        ck_assert(!w_ext4->figures[DB_FIGURE_LAT_P99_NS].has_diff);
        ck_assert(!w_ext4->figures[DB_FIGURE_LAT_P99_NS].has_interval);
        ck_assert(!w_ext4->figures[DB_FIGURE_OPS_PER_S].has_diff);       /* against 0 */

        /* read/ext4 is one run: a mean and a difference, no interval and no test. */
        f = &r_ext4->figures[DB_FIGURE_MIB_PER_S];
        ck_assert(!f->has_interval && isnan(f->stddev));
        ck_assert(f->has_diff && !f->has_test && !f->significant);
        assert_close(f->diff_pct, (200.0 - 220.0) / 220.0 * 100.0, 1e-9);
        compare_clear(&cmp);

        /* Against ext4 instead, at 99%: the signs turn; p stays; significant is p < 0.01. */
        ck_assert_int_eq(db_compare_runs(db, "fs_type", NULL, compare_add, &cmp), 4);
        ck_assert_int_eq(compare_finish(&cmp, "ext4", 0.99), 0);
        ck_assert_str_eq(cmp.groups[cmp.baseline].name, "ext4");
        f = &cmp.cells[3].figures[DB_FIGURE_MIB_PER_S];
        assert_close(f->diff_pct, (145.0 - 110.0) / 110.0 * 100.0, 1e-9);
        assert_close(f->p_value, w.p, 1e-12);
        ck_assert(f->significant == (w.p < 0.01));
        ck_assert(!f->paired);
        ck_assert(cmp.cells[3].figures[DB_FIGURE_MIB_PER_S].ci_high - cmp.cells[3].figures[DB_FIGURE_MIB_PER_S].ci_low >
                  hi - lo);
        compare_clear(&cmp);

        ck_assert_int_eq(db_compare_runs(db, "fs_type", NULL, compare_add, &cmp), 4);
        ck_assert_int_eq(compare_finish(&cmp, "zfs", 0.95), -ENOENT);
        compare_clear(&cmp);
        ck_assert_int_eq(compare_finish(&cmp, "zfs", 0.95), 0);         /* nothing to compare: fine */
        ck_assert_int_eq(compare_finish(&cmp, NULL, 1.0), -EINVAL);
}
END_TEST

START_TEST(test_compare_noisy_and_clear) {
        _cleanup_(db_closep) Db *db = open_db();
        /* Two groups of 5 with a wide, overlapping spread, 12% apart in the mean: noise. Two tight
         * groups 20% apart: a real difference. */
        static const TestRun runs[] = {
                { .label = "a", .mib = 60 },  { .label = "a", .mib = 140 },
                { .label = "a", .mib = 90 },  { .label = "a", .mib = 120 },
                { .label = "a", .mib = 90 },
                { .label = "b", .mib = 80 },  { .label = "b", .mib = 150 },
                { .label = "b", .mib = 100 }, { .label = "b", .mib = 130 },
                { .label = "b", .mib = 100 },
#define READ(l, v) { .workload = "read", .label = l, .mib = v }
                READ("a", 100), READ("a", 101), READ("a", 99), READ("a", 100.5),
                READ("a", 99.5),
                READ("b", 120), READ("b", 121), READ("b", 119), READ("b", 120.5),
                READ("b", 119.5),
#undef READ
        };
        Compare cmp = {};
        const CompareFigure *noisy, *clear;

        add_runs(add_job(db), runs, ELEMENTSOF(runs));
        ck_assert_int_eq(db_compare_runs(db, "label", NULL, compare_add, &cmp), 4);
        ck_assert_int_eq(compare_finish(&cmp, "a", 0.95), 0);
        clear = &cmp.cells[1].figures[DB_FIGURE_MIB_PER_S];     /* read, b */
        noisy = &cmp.cells[3].figures[DB_FIGURE_MIB_PER_S];     /* write, b */
        ck_assert_str_eq(cmp.cells[3].workload, "write");
        assert_close(noisy->diff_pct, 12.0, 1e-9);
        ck_assert(noisy->has_test && !noisy->significant && noisy->p_value > 0.5);
        assert_close(clear->diff_pct, 20.0, 1e-9);
        ck_assert(clear->has_test && clear->significant && clear->p_value < 1e-6);
        compare_clear(&cmp);
}
END_TEST

/* The drifting machine of test-stats.c's rounds: +1% a visit, a little noise. */
static double drift_figure(double truth, unsigned visit) {
        return truth + 1.0 * visit + 0.3 * sin(visit * 2.1);
}

#define ROUNDS 6

/* A matrix of ext4 (entry 0, baseline) and btrfs (entry 1): write, where both are 100, and read,
 * where btrfs is truly 3% faster. rounds: in alternating rounds (A B, B A, ...: runs.round set);
 * else entry by entry (all of ext4's runs, then btrfs's: no rounds). */
static void add_matrix(Db *db, uint64_t job, bool rounds) {
        TestRun runs[2 * 2 * ROUNDS];
        size_t n = 0;

        for (unsigned r = 0; r < ROUNDS; r++)
                for (unsigned e = 0; e < 2; e++)
                        for (unsigned w = 0; w < 2; w++) {
                                /* Each visit of an entry runs write then read. */
                                unsigned slot = rounds ? 2 * r + (r % 2 == 0 ? e : 1 - e) : e * ROUNDS + r;
                                double truth = w == 1 && e == 1 ? 103 : 100;

                                runs[n++] = (TestRun) {
                                        .workload = w == 0 ? "write" : "read",
                                        .fs_type = e == 0 ? "ext4" : "btrfs",
                                        .layout = "single",
                                        .members = "[\"/dev/loop0\"]",
                                        .matrix_entry = e + 1,
                                        .mib = drift_figure(truth, slot),
                                        .round = rounds ? r + 1 : 0,
                                };
                        }
        add_runs(job, runs, n);
}

static const CompareFigure *cell_figure(const Compare *cmp, const char *workload, const char *group) {
        for (size_t i = 0; i < cmp->n_cells; i++)
                if (streq(cmp->cells[i].workload, workload) && streq(cmp->groups[cmp->cells[i].group].name, group))
                        return &cmp->cells[i].figures[DB_FIGURE_MIB_PER_S];
        ck_abort_msg("no cell %s/%s", workload, group);
        return NULL;
}

START_TEST(test_compare_paired_rounds) {
        _cleanup_(db_closep) Db *db = open_db();
        uint64_t in_rounds = add_job(db), entry_by_entry = add_job(db);
        const CompareFigure *write, *read;
        Compare cmp = {};

        add_matrix(db, in_rounds, true);
        add_matrix(db, entry_by_entry, false);

        /* In rounds: the pairs of each round, the paired test. No false difference on write; the
         * real 3% on read found. */
        ck_assert_int_eq(db_compare_runs(db, "matrix", &(DbRunFilter) { .job = in_rounds }, compare_add, &cmp), 4);
        ck_assert_int_eq(db_compare_rounds(db, "matrix", &(DbRunFilter) { .job = in_rounds }, compare_add_round, &cmp),
                         4 * ROUNDS);
        ck_assert_int_eq(compare_finish(&cmp, NULL, 0.95), 0);
        ck_assert_str_eq(cmp.groups[cmp.baseline].name, "ext4 loop0");
        write = cell_figure(&cmp, "write", "btrfs loop0");
        read = cell_figure(&cmp, "read", "btrfs loop0");
        ck_assert(write->paired && write->pairs == ROUNDS && write->has_test && !write->significant);
        ck_assert_msg(write->p_value > 0.5, "p = %g", write->p_value);
        ck_assert(write->has_diff_interval && write->diff_ci_low_pct < 0 && write->diff_ci_high_pct > 0);
        ck_assert(read->paired && read->significant);
        ck_assert_msg(read->p_value < 0.01, "p = %g", read->p_value);
        ck_assert(read->diff_ci_low_pct > 0);
        /* Complete rounds: the pairs' difference is the means' difference. */
        assert_close(read->diff_pct, (read->mean - cell_figure(&cmp, "read", "ext4 loop0")->mean) /
                     cell_figure(&cmp, "read", "ext4 loop0")->mean * 100, 1e-9);
        compare_clear(&cmp);

        /* The same rounds without their pairs (too many of them): Welch's test misses the 3%. */
        ck_assert_int_eq(db_compare_runs(db, "matrix", &(DbRunFilter) { .job = in_rounds }, compare_add, &cmp), 4);
        ck_assert_int_eq(db_compare_rounds(db, "matrix", &(DbRunFilter) { .job = in_rounds }, compare_add_round, &cmp),
                         4 * ROUNDS);
        compare_drop_rounds(&cmp);
        ck_assert_int_eq(compare_finish(&cmp, NULL, 0.95), 0);
        read = cell_figure(&cmp, "read", "btrfs loop0");
        ck_assert(!read->paired && read->has_test && !read->significant);
        compare_clear(&cmp);

        /* Entry by entry, the same machine: btrfs's runs come six visits later, and Welch's test
         * calls the drift a difference on write, where there is none. */
        ck_assert_int_eq(db_compare_runs(db, "matrix", &(DbRunFilter) { .job = entry_by_entry }, compare_add, &cmp), 4);
        ck_assert_int_eq(db_compare_rounds(db, "matrix", &(DbRunFilter) { .job = entry_by_entry }, compare_add_round,
                                           &cmp), 0);
        ck_assert_int_eq(compare_finish(&cmp, NULL, 0.95), 0);
        write = cell_figure(&cmp, "write", "btrfs loop0");
        ck_assert(!write->paired && write->significant && write->diff_pct > 4);
        compare_clear(&cmp);

        /* Both jobs by fs_type: runs outside rounds have no partner, so Welch's test for all. */
        ck_assert_int_eq(db_compare_runs(db, "fs_type", NULL, compare_add, &cmp), 4);
        ck_assert_int_eq(db_compare_rounds(db, "fs_type", NULL, compare_add_round, &cmp), 4 * ROUNDS);
        ck_assert_int_eq(compare_finish(&cmp, NULL, 0.95), 0);
        ck_assert(!cell_figure(&cmp, "read", "btrfs")->paired);
        compare_clear(&cmp);
}
END_TEST

/* Pairs are of one job's round: two jobs' round 0 are not a pair, and a round one entry did not
 * get to (the job was cancelled) has none. */
START_TEST(test_compare_pairs_by_job_and_round) {
        _cleanup_(db_closep) Db *db = open_db();
        uint64_t j1 = add_job(db), j2 = add_job(db);
#define RUN(fs, e, r, v) { .fs_type = fs, .matrix_entry = (e) + 1, .round = (r) + 1, .mib = (v), .layout = "single", \
                           .members = "[\"/dev/loop0\"]" }
        static const TestRun a[] = {
                RUN("ext4", 0, 0, 100), RUN("btrfs", 1, 0, 110), RUN("btrfs", 1, 1, 111), RUN("ext4", 0, 1, 101),
                RUN("ext4", 0, 2, 100),                 /* cancelled before btrfs's visit */
        };
        static const TestRun b[] = {
                RUN("ext4", 0, 0, 50), RUN("btrfs", 1, 0, 56), RUN("btrfs", 1, 1, 54), RUN("ext4", 0, 1, 49),
        };
#undef RUN
        const CompareFigure *f;
        Compare cmp = {};

        add_runs(j1, a, ELEMENTSOF(a));
        add_runs(j2, b, ELEMENTSOF(b));
        ck_assert_int_eq(db_compare_runs(db, "fs_type", NULL, compare_add, &cmp), 2);
        ck_assert_int_eq(db_compare_rounds(db, "fs_type", NULL, compare_add_round, &cmp), 9);
        ck_assert_int_eq(compare_finish(&cmp, NULL, 0.95), 0);
        ck_assert_str_eq(cmp.groups[cmp.baseline].name, "ext4");
        f = cell_figure(&cmp, "write", "btrfs");
        /* Pairs (100, 110), (101, 111), (50, 56), (49, 54): differences 10, 10, 6, 5. */
        ck_assert(f->paired);
        ck_assert_uint_eq(f->pairs, 4);
        assert_close(f->diff_pct, (10 + 10 + 6 + 5) / 4.0 / ((100 + 101 + 50 + 49) / 4.0) * 100, 1e-6);
        compare_clear(&cmp);
}
END_TEST

START_TEST(test_compare_rounds_bound) {
        Compare cmp = {};
        DbCompareCell cell = { .workload = "write", .group = "g", .group_order = -1, .runs = 2, .round_runs = 2 };
        DbCompareRound round = { .workload = "write", .group = "g", .group_order = -1, .job_id = 1, .runs = 1 };

        ck_assert_int_eq(compare_add(&cell, &cmp), 0);
        for (unsigned i = 0; i < COMPARE_ROUNDS_MAX; i++) {
                round.round = i;
                ck_assert_int_eq(compare_add_round(&round, &cmp), 0);
        }
        ck_assert_int_eq(compare_add_round(&round, &cmp), -E2BIG);
        compare_drop_rounds(&cmp);
        ck_assert_uint_eq(cmp.cells[0].n_rounds, 0);
        /* A round of no cell. */
        round.group = "h";
        ck_assert_int_eq(compare_add_round(&round, &cmp), -ENOENT);
        ck_assert_int_eq(compare_finish(&cmp, NULL, 0.95), 0);
        compare_clear(&cmp);
}
END_TEST

START_TEST(test_compare_cells_max) {
        Compare cmp = {};
        DbCompareCell cell = { .workload = "write", .group = "g", .group_order = -1, .runs = 1 };

        for (unsigned i = 0; i < COMPARE_CELLS_MAX; i++) {
                cell.block_size = i + 1;
                ck_assert_int_eq(compare_add(&cell, &cmp), 0);
        }
        ck_assert_int_eq(compare_add(&cell, &cmp), -E2BIG);
        ck_assert_uint_eq(cmp.n_groups, 1);
        ck_assert_int_eq(compare_finish(&cmp, "g", 0.95), 0);
        compare_clear(&cmp);
}
END_TEST

static Suite *compare_suite(void) {
        Suite *s = suite_create("db-compare");
        TCase *tc = tcase_create("core");

        tcase_add_checked_fixture(tc, setup, teardown);
        tcase_add_test(tc, test_aggregates_by_fs_type);
        tcase_add_test(tc, test_group_keys);
        tcase_add_test(tc, test_group_tags_devices_matrix);
        tcase_add_test(tc, test_numeric_stability);
        tcase_add_test(tc, test_compare_against_baseline);
        tcase_add_test(tc, test_compare_noisy_and_clear);
        tcase_add_test(tc, test_compare_cells_max);
        tcase_add_test(tc, test_compare_paired_rounds);
        tcase_add_test(tc, test_matrix_names_by_job);
        tcase_add_test(tc, test_compare_pairs_by_job_and_round);
        tcase_add_test(tc, test_compare_rounds_bound);
        suite_add_tcase(s, tc);
        return s;
}

int main(void) {
        return check_run(compare_suite());
}
