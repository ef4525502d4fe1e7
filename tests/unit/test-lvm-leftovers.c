/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Which device-mapper devices benchd removes as a killed worker's leftover logical volumes
 * (daemon/jobs/lvm-leftovers.h), over a sysfs tree made in a temporary directory: only LVM's
 * devices (uuid "LVM-...") named as the volume "lv" of a recorded group benchd-JOB-ENTRY. The
 * decision only (dry): the removal itself is DM_DEV_REMOVE, which tests/vm/guest-lvm.sh sees done.
 * And the names the store records for it, with the volume's extents and size.
 */
#include <check.h>
#include <sqlite3.h>
#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check-util.h"
#include "jobs/leftovers.h"
#include "store/db.h"
#include "shared/proto.h"
#include "shared/spec.h"
#include "shared/strv.h"
#include "shared/util.h"
#include "fake-sysfs.h"

static char *root;

/* Paths under the test's own sysfs root. */
#define mkdirs(rel) fake_sysfs_mkdirs(root, (rel))
#define write_file(rel, ...) fake_sysfs_write(root, (rel), __VA_ARGS__)

static void dm(const char *dev, const char *name, const char *uuid) {
        char rel[128];

        snprintf(rel, sizeof(rel), "sys/block/%s/dm", dev);
        mkdirs(rel);
        snprintf(rel, sizeof(rel), "sys/block/%s/dm/name", dev);
        write_file(rel, "%s", name);
        snprintf(rel, sizeof(rel), "sys/block/%s/dm/uuid", dev);
        write_file(rel, "%s", uuid);
        snprintf(rel, sizeof(rel), "sys/block/%s/dev", dev);
        write_file(rel, "254:0\n");
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
        (void) st;
        (void) flag;
        (void) ftw;
        return remove(path);
}

static void setup(void) {
        ck_assert_int_ge(asprintf(&root, "%s/test-lvm-leftovers-XXXXXX", getenv("TMPDIR") ?: "/tmp"), 0);
        ck_assert_ptr_nonnull(mkdtemp(root));
        mkdirs("sys/block/loop1");                                          /* not dm: never looked at */
        dm("dm-0", "benchd--4--1-lv\n", "LVM-abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ01\n");
        dm("dm-1", "benchd--9--0-lv\n", "LVM-x\n");                         /* benchd's form, not recorded */
        dm("dm-2", "benchd--4--1-lv\n", "CRYPT-LUKS2-x\n");                 /* not LVM's */
        dm("dm-3", "benchd--4--1-home\n", "LVM-y\n");                       /* another volume of the group */
        dm("dm-4", "vg0-root\n", "LVM-z\n");                                /* the host's */
        dm("dm-5", "benchd--5--0-lv\n", "LVM-w\n");                         /* ours */
}

static void teardown(void) {
        ck_assert_int_eq(nftw(root, rm_one, 16, FTW_DEPTH | FTW_PHYS), 0);
        free(root);
        root = NULL;
}

static int by_device(const void *a, const void *b) {
        return strcmp(((const Leftover *) a)->device, ((const Leftover *) b)->device);
}

START_TEST(test_decide) {
        char *const recorded[] = { (char *) "benchd-4-1", (char *) "benchd-5-0", (char *) "vg0", NULL };
        _cleanup_free_ Leftover *list = NULL;
        size_t n = 0;

        ck_assert_int_eq(leftovers_find(LEFTOVER_LVM, root, recorded, true, &list, &n), 0);
        ck_assert_uint_eq(n, 2);
        qsort(list, n, sizeof(Leftover), by_device);
        ck_assert_str_eq(list[0].device, "dm-0");
        ck_assert_str_eq(list[0].name, "benchd-4-1");
        ck_assert_str_eq(list[1].device, "dm-5");
        ck_assert_str_eq(list[1].name, "benchd-5-0");
        ck_assert_int_eq(list[0].error, 0);
}
END_TEST

START_TEST(test_none) {
        char *const none[] = { NULL };
        _cleanup_free_ Leftover *list = NULL;
        char path[PATH_MAX + 32];
        size_t n = 7;

        ck_assert_int_eq(leftovers_find(LEFTOVER_LVM, root, none, true, &list, &n), 0);
        ck_assert_uint_eq(n, 0);
        snprintf(path, sizeof(path), "%s/nothing", root);
        ck_assert_int_eq(leftovers_find(LEFTOVER_LVM, path, none, true, &list, &n), -ENOENT);
}
END_TEST

START_TEST(test_dm_name) {
        char buf[64];

        ck_assert_int_eq(proto_fs_lvm_dm_name("benchd-12-3", buf, sizeof(buf)), 0);
        ck_assert_str_eq(buf, "benchd--12--3-lv");
        ck_assert_int_eq(proto_fs_lvm_dm_name("benchd-12-3", buf, 16), -ENAMETOOLONG);
        ck_assert_int_eq(proto_fs_lvm_dm_name("benchd-12-3", buf, 17), 0);
}
END_TEST

START_TEST(test_recorded_names) {
        _cleanup_(db_closep) Db *db = NULL;
        _cleanup_strv_free_ char **names = NULL;
        char path[PATH_MAX + 32];
        DbJob j = {
                .workload = "write", .spec_json = "{}", .target = "/dev/loop1", .submitted_usec = 1700000000000000,
        };
        uint64_t job = 0, run[2];
        _cleanup_free_ char *err = NULL;
        JobSpec spec;

        snprintf(path, sizeof(path), "%s/benchd.db", root);
        ck_assert_int_eq(db_open(path, &db), 0);
        ck_assert_int_eq(db_lvm_vgs_recorded(db, false, 0, &names), 0);
        ck_assert_ptr_null(names[0]);
        strv_free(names);
        names = NULL;
        ck_assert_int_eq(db_job_insert(db, &j, &job), 0);
        spec_init(&spec);
        ck_assert_msg(spec_set_assignment(&spec, "workload=write", &err) == 0, "%s", err);
        ck_assert_msg(spec_set_assignment(&spec, "target=/dev/loop1", &err) == 0, "%s", err);
        ck_assert_msg(spec_set_assignment(&spec, "size=1M", &err) == 0, "%s", err);
        ck_assert_msg(spec_finalize(&spec, &err) == 0, "%s", err);
        for (size_t i = 0; i < 2; i++) {
                DbRun r = {
                        .job_id = job, .step = (uint32_t) i, .spec = &spec, .device_id = -1,
                        .started_usec = 1700000000000000, .layout = "lvm", .in_matrix = true, .fs_type = "ext4",
                        .lvm_vg = i == 0 ? "benchd-1-0" : "benchd-1-1",
                };
                ck_assert_msg(db_run_begin(db, &r, &run[i]) == 0, "%s", db_last_error(db));
        }
        ck_assert_int_eq(db_lvm_vgs_recorded(db, false, 0, &names), 0);
        ck_assert_uint_eq(strv_length(names), 2);
        ck_assert(strv_contains(names, "benchd-1-0") && strv_contains(names, "benchd-1-1"));
        strv_free(names);
        names = NULL;
        /* Both running: after run 0's step, run 1's group is another worker's, left alone. */
        ck_assert_int_eq(db_lvm_vgs_recorded(db, true, run[0], &names), 0);
        ck_assert_uint_eq(strv_length(names), 1);
        ck_assert(strv_contains(names, "benchd-1-0"));
        strv_free(names);
        names = NULL;
        ck_assert_int_eq(db_run_finish(db, run[1], "failed", "x", NULL), 0);
        ck_assert_int_eq(db_lvm_vgs_recorded(db, true, run[0], &names), 0);
        ck_assert_uint_eq(strv_length(names), 2);
        /* The volume's extents and size, with the filesystem's record, read back with sqlite. */
        DbRunFs fs = {
                .mkfs_command = "mkfs.ext4 /dev/dm-0", .mkfs_output = "", .fs_uuid = "abc", .size_bytes = 1,
                .layout_commands = "[{\"command\":\"lvm pvcreate --yes /dev/loop1\"}]", .lv_extents = 24,
                .lv_bytes = UINT64_C(100663296),
        };
        ck_assert_msg(db_run_set_fs(db, run[0], &fs) == 0, "%s", db_last_error(db));
        {
                sqlite3 *q = NULL;
                sqlite3_stmt *st = NULL;

                ck_assert_int_eq(sqlite3_open_v2(path, &q, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
                ck_assert_int_eq(sqlite3_prepare_v2(q, "SELECT lvm_vg, lv_extents, lv_bytes, md_array FROM runs "
                                                       "WHERE id = ?", -1, &st, NULL), SQLITE_OK);
                sqlite3_bind_int64(st, 1, (sqlite3_int64) run[0]);
                ck_assert_int_eq(sqlite3_step(st), SQLITE_ROW);
                ck_assert_str_eq((const char *) sqlite3_column_text(st, 0), "benchd-1-0");
                ck_assert_int_eq(sqlite3_column_int64(st, 1), 24);
                ck_assert_int_eq(sqlite3_column_int64(st, 2), 100663296);
                ck_assert_int_eq(sqlite3_column_type(st, 3), SQLITE_NULL);
                sqlite3_finalize(st);
                sqlite3_close(q);
        }
        spec_clear(&spec);
}
END_TEST

int main(void) {
        Suite *s = suite_create("lvm-leftovers");
        TCase *tc = tcase_create("core");

        tcase_add_checked_fixture(tc, setup, teardown);
        tcase_add_test(tc, test_decide);
        tcase_add_test(tc, test_none);
        tcase_add_test(tc, test_dm_name);
        tcase_add_test(tc, test_recorded_names);
        suite_add_tcase(s, tc);
        return check_run(s);
}
