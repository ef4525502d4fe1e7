/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Which kernel partitions benchd deletes as a killed worker's leftovers (daemon/jobs/part-leftovers.h),
 * over a sysfs tree made in a temporary directory: only partitions 1..N of the disk recorded, while
 * it has the disk sequence number recorded, at the offset and of the size partitions=N lays out, and
 * not held. The decision only: the deletion itself is BLKPG_DEL_PARTITION, which
 * tests/integration/test-partitions.sh sees done on a loop device. And the runs the store gives it.
 */
#include <check.h>
#include <errno.h>
#include <ftw.h>
#include <inttypes.h>
#include <stdarg.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "check-util.h"
#include "jobs/part-leftovers.h"
#include "store/db.h"
#include "shared/spec.h"
#include "shared/strv.h"
#include "shared/util.h"
#include "fake-sysfs.h"

static char *root;

/* 256 MiB in 512-byte sectors, as test-partitions' loop device. */
#define DISK_SECTORS 524288u

/* Paths under the test's own sysfs root. */
#define mkdirs(rel) fake_sysfs_mkdirs(root, (rel))
#define write_file(rel, ...) fake_sysfs_write(root, (rel), __VA_ARGS__)

static void disk(const char *name, unsigned minor, uint64_t diskseq) {
        char rel[128], target[128];

        snprintf(rel, sizeof(rel), "class/block/%s/queue", name);
        mkdirs(rel);
        snprintf(rel, sizeof(rel), "class/block/%s/diskseq", name);
        write_file(rel, "%" PRIu64 "\n", diskseq);
        snprintf(rel, sizeof(rel), "class/block/%s/size", name);
        write_file(rel, "%u\n", DISK_SECTORS);
        snprintf(rel, sizeof(rel), "class/block/%s/queue/logical_block_size", name);
        write_file(rel, "512\n");
        mkdirs("dev/block");
        snprintf(rel, sizeof(rel), "%s/dev/block/7:%u", root, minor);
        snprintf(target, sizeof(target), "../../class/block/%s", name);
        ck_assert_int_eq(symlink(target, rel), 0);
}

static void part(const char *name, unsigned k, uint64_t start, uint64_t size) {
        char rel[128];

        snprintf(rel, sizeof(rel), "class/block/%s/holders", name);
        mkdirs(rel);
        snprintf(rel, sizeof(rel), "class/block/%s/partition", name);
        write_file(rel, "%u\n", k);
        snprintf(rel, sizeof(rel), "class/block/%s/start", name);
        write_file(rel, "%" PRIu64 "\n", start / 512);
        snprintf(rel, sizeof(rel), "class/block/%s/size", name);
        write_file(rel, "%" PRIu64 "\n", size / 512);
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
        (void) st;
        (void) flag;
        (void) ftw;
        return remove(path);
}

static uint64_t start, each;

static void setup(void) {
        ck_assert_int_ge(asprintf(&root, "%s/test-part-leftovers-XXXXXX", getenv("TMPDIR") ?: "/tmp"), 0);
        ck_assert_ptr_nonnull(mkdtemp(root));
        ck_assert_int_eq(spec_partition_layout((uint64_t) DISK_SECTORS * 512, 512, 2, &start, &each), 0);
        /* loop3: the job's two partitions, as partitions=2 lays them out. */
        disk("loop3", 3, 41);
        part("loop3p1", 1, start, each);
        part("loop3p2", 2, start + each, each);
        /* loop4: partition 1 the job's, partition 2 somewhere else (not benchd's layout). */
        disk("loop4", 4, 42);
        part("loop4p1", 1, start, each);
        part("loop4p2", 2, start + each + 1048576, each - 1048576);
        /* loop5: partition 1 held by an md array. */
        disk("loop5", 5, 43);
        part("loop5p1", 1, start, each);
        mkdirs("class/block/loop5p1/holders/md127");
        /* loop6: no partitions in the kernel. */
        disk("loop6", 6, 44);
}

static void teardown(void) {
        ck_assert_int_eq(nftw(root, rm_one, 16, FTW_DEPTH | FTW_PHYS), 0);
        free(root);
        root = NULL;
}

START_TEST(test_own) {
        PartLeftover l;

        ck_assert_int_eq(part_leftovers_find(root, makedev(7, 3), 41, 2, &l), 0);
        ck_assert_str_eq(l.disk, "loop3");
        ck_assert_uint_eq(l.n, 2);
        ck_assert_str_eq(l.part[0].name, "loop3p1");
        ck_assert_uint_eq(l.part[0].number, 1);
        ck_assert_int_eq(l.part[0].error, 0);
        ck_assert_str_eq(l.part[1].name, "loop3p2");
        ck_assert_uint_eq(l.part[1].number, 2);
}
END_TEST

/* Not the device recorded: another disk sequence number, or none recorded. */
START_TEST(test_another_device) {
        PartLeftover l;

        ck_assert_int_eq(part_leftovers_find(root, makedev(7, 3), 40, 2, &l), -ESTALE);
        ck_assert_int_eq(part_leftovers_find(root, makedev(7, 3), 0, 2, &l), -ESTALE);
        ck_assert_int_eq(part_leftovers_find(root, makedev(7, 9), 41, 2, &l), -ENODEV);
        /* partitions=3 lays out other partitions: neither of loop3's is one of them. */
        ck_assert_int_eq(part_leftovers_find(root, makedev(7, 3), 41, 3, &l), 0);
        ck_assert_uint_eq(l.n, 0);
}
END_TEST

/* A partition not where partitions=N puts it is someone else's; a held one is listed as busy. */
START_TEST(test_not_ours_and_held) {
        PartLeftover l;

        ck_assert_int_eq(part_leftovers_find(root, makedev(7, 4), 42, 2, &l), 0);
        ck_assert_uint_eq(l.n, 1);
        ck_assert_str_eq(l.part[0].name, "loop4p1");
        ck_assert_int_eq(part_leftovers_find(root, makedev(7, 5), 43, 2, &l), 0);
        ck_assert_uint_eq(l.n, 1);
        ck_assert_str_eq(l.part[0].name, "loop5p1");
        ck_assert_int_eq(l.part[0].error, -EBUSY);
        ck_assert_int_eq(part_leftovers_find(root, makedev(7, 6), 44, 2, &l), 0);
        ck_assert_uint_eq(l.n, 0);
}
END_TEST

/* What the store gives part-leftovers: the runs of partitions= still running, with the members'
 * identities of their step from jobs.steps; after a step, only its own run. */
static int collect(const DbPartitionRun *r, void *userdata) {
        char ***out = userdata;
        char *line = NULL;

        ck_assert_int_ge(asprintf(&line, "%" PRIu64 " %" PRIu32 " %s", r->run_id, r->partitions,
                                  r->members_json ?: "null"), 0);
        ck_assert_int_eq(strv_push(out, line), 0);
        free(line);
        return 0;
}

START_TEST(test_store) {
        _cleanup_(db_closep) Db *db = NULL;
        _cleanup_strv_free_ char **got = NULL;
        _cleanup_free_ char *err = NULL;
        char path[PATH_MAX + 32], want[256];
        const char *steps = "[{\"spec\":{},\"target\":{}},{\"spec\":{},\"target\":{},\"members\":[{\"kind\":"
                            "\"block\",\"dev_major\":7,\"dev_minor\":3,\"ino\":0,\"diskseq\":41}]}]";
        DbJob j = {
                .workload = "write", .spec_json = "{}", .target = "/dev/loop3", .submitted_usec = 1700000000000000,
                .steps_json = steps,
        };
        uint64_t job = 0, run[3];
        JobSpec spec;

        snprintf(path, sizeof(path), "%s/benchd.db", root);
        ck_assert_int_eq(db_open(path, &db), 0);
        ck_assert_msg(db_job_insert(db, &j, &job) == 0, "%s", db_last_error(db));
        spec_init(&spec);
        ck_assert_msg(spec_set_assignment(&spec, "workload=write", &err) == 0, "%s", err);
        ck_assert_msg(spec_set_assignment(&spec, "target=/dev/loop3", &err) == 0, "%s", err);
        ck_assert_msg(spec_set_assignment(&spec, "size=1M", &err) == 0, "%s", err);
        ck_assert_msg(spec_finalize(&spec, &err) == 0, "%s", err);
        /* Run 0: step 0, no partitions; runs 1 and 2: step 1 with partitions=2. */
        for (size_t i = 0; i < 3; i++) {
                DbRun r = {
                        .job_id = job, .step = i == 0 ? 0 : 1, .spec = &spec, .device_id = -1,
                        .started_usec = 1700000000000000, .layout = "single", .in_matrix = true, .fs_type = "ext4",
                        .partitions = i == 0 ? 0 : 2, .partition = i == 0 ? 0 : (uint32_t) i,
                };
                ck_assert_msg(db_run_begin(db, &r, &run[i]) == 0, "%s", db_last_error(db));
        }
        ck_assert_int_eq(db_run_finish(db, run[1], "failed", "x", NULL), 0);
        ck_assert_int_eq(db_partition_runs_foreach(db, 0, collect, &got), 0);
        ck_assert_uint_eq(strv_length(got), 1);
        snprintf(want, sizeof(want), "%" PRIu64 " 2 [{\"kind\":\"block\",\"dev_major\":7,\"dev_minor\":3,\"ino\":0,"
                 "\"diskseq\":41}]", run[2]);
        ck_assert_str_eq(got[0], want);
        strv_free(got);
        got = NULL;
        /* After run 1's step (it is failed by now): only it, were it running. */
        ck_assert_int_eq(db_partition_runs_foreach(db, run[1], collect, &got), 0);
        ck_assert_ptr_null(got);
        ck_assert_int_eq(db_partition_runs_foreach(db, run[2], collect, &got), 0);
        ck_assert_uint_eq(strv_length(got), 1);
        spec_clear(&spec);
}
END_TEST

int main(void) {
        Suite *s = suite_create("part-leftovers");
        TCase *tc = tcase_create("find");

        tcase_add_checked_fixture(tc, setup, teardown);
        tcase_add_test(tc, test_own);
        tcase_add_test(tc, test_another_device);
        tcase_add_test(tc, test_not_ours_and_held);
        tcase_add_test(tc, test_store);
        suite_add_tcase(s, tc);
        return check_run(s);
}
