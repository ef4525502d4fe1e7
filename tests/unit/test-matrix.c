/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Filesystem matrices (jobs/matrix.c): a job's steps become entry × steps in the documented order
 * (each filesystem on each device in turn for layout=single, across all devices for btrfs RAID),
 * each step narrowed to its entry (one filesystem, its members, target the first member, only its
 * own options), entries found again from the steps alone (a restored job), named as tables show
 * them, bounded, and the members judged one spec each. Then the order of rounds (jobs/rounds.c):
 * entries forward in even rounds and backward in odd ones, each entry's steps in order, the
 * visits and steps each other's inverse, the number of rounds the steps ask for, and the places
 * the progress line names.
 */

#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check-util.h"
#include "jobs/matrix.h"
#include "jobs/rounds.h"
#include "shared/strv.h"
#include "shared/util.h"

static void spec_build(JobSpec *s, const char *const *assignments) {
        _cleanup_free_ char *err = NULL;

        spec_init(s);
        for (const char *const *a = assignments; *a; a++)
                ck_assert_msg(spec_set_assignment(s, *a, &err) == 0, "'%s': %s", *a, strna(err));
        ck_assert_msg(spec_finalize(s, &err) == 0, "%s", strna(err));
}

/* The job and two base steps (write then read), as profile_expand() would give them. */
static void base_steps(const JobSpec *job, JobSpec base[2]) {
        for (size_t i = 0; i < 2; i++) {
                _cleanup_free_ char *err = NULL;
                spec_init(&base[i]);
                ck_assert_int_eq(spec_copy(job, &base[i]), 0);
                ck_assert_int_eq(spec_set_from_string(&base[i], "workload", i == 0 ? "write" : "read", &err), 0);
                ck_assert_msg(spec_finalize(&base[i], &err) == 0, "%s", strna(err));
        }
}

START_TEST(test_single_layout) {
        static const char *const a[] = {
                "workload=write", "filesystems=ext4,xfs", "devices=/dev/sdb,/dev/sdc", "destructive=true",
                "mkfs_options.ext4=-E lazy_itable_init=0", "mount_options.xfs=noatime", "size=16M", NULL };
        static const struct { const char *fs, *dev, *workload; bool starts; uint32_t entry; const char *name; } want[] = {
                { "ext4", "/dev/sdb", "write", true,  0, "ext4 sdb" },
                { "ext4", "/dev/sdb", "read",  false, 0, "ext4 sdb" },
                { "ext4", "/dev/sdc", "write", true,  1, "ext4 sdc" },
                { "ext4", "/dev/sdc", "read",  false, 1, "ext4 sdc" },
                { "xfs",  "/dev/sdb", "write", true,  2, "xfs sdb" },
                { "xfs",  "/dev/sdb", "read",  false, 2, "xfs sdb" },
                { "xfs",  "/dev/sdc", "write", true,  3, "xfs sdc" },
                { "xfs",  "/dev/sdc", "read",  false, 3, "xfs sdc" },
        };
        JobSpec job, base[2], *steps = NULL;
        _cleanup_free_ char *err = NULL;
        size_t n = 0;

        spec_build(&job, a);
        ck_assert_uint_eq(matrix_n_entries(&job), 4);
        base_steps(&job, base);
        ck_assert_msg(matrix_expand(&job, base, 2, &steps, &n, &err) == 0, "%s", strna(err));
        ck_assert_uint_eq(n, ELEMENTSOF(want));
        for (size_t i = 0; i < n; i++) {
                _cleanup_free_ char *name = matrix_entry_name(&steps[i], strv_length(job.devices));
                ck_assert(steps[i].finalized);
                ck_assert_uint_eq(strv_length(steps[i].filesystems), 1);
                ck_assert_str_eq(steps[i].filesystems[0], want[i].fs);
                ck_assert_uint_eq(strv_length(steps[i].devices), 1);
                ck_assert_str_eq(steps[i].devices[0], want[i].dev);
                ck_assert_str_eq(steps[i].target, want[i].dev);
                ck_assert_str_eq(workload_to_string(steps[i].workload), want[i].workload);
                ck_assert_msg(matrix_step_starts_entry(steps, i) == want[i].starts, "step %zu", i);
                ck_assert_uint_eq(matrix_step_entry(steps, i), want[i].entry);
                ck_assert_str_eq(name, want[i].name);
                /* Only the entry's own options. */
                if (streq(want[i].fs, "ext4")) {
                        ck_assert_str_eq(spec_map_get(&steps[i].mkfs_options, "ext4"), "-E lazy_itable_init=0");
                        ck_assert_ptr_null(spec_map_get(&steps[i].mount_options, "xfs"));
                        ck_assert_uint_eq(steps[i].mount_options.n, 0);
                } else {
                        ck_assert_uint_eq(steps[i].mkfs_options.n, 0);
                        ck_assert_str_eq(spec_map_get(&steps[i].mount_options, "xfs"), "noatime");
                }
        }
        spec_array_free(steps, n);
        spec_clear(&base[0]);
        spec_clear(&base[1]);
        spec_clear(&job);
}
END_TEST

START_TEST(test_raid_layout) {
        static const char *const a[] = {
                "workload=write", "filesystems=btrfs", "layout=raid1", "devices=/dev/sdb,/dev/sdc",
                "destructive=true", NULL };
        JobSpec job, base[2], *steps = NULL;
        _cleanup_free_ char *err = NULL, *name = NULL;
        size_t n = 0;

        spec_build(&job, a);
        ck_assert_uint_eq(matrix_n_entries(&job), 1);
        base_steps(&job, base);
        ck_assert_msg(matrix_expand(&job, base, 2, &steps, &n, &err) == 0, "%s", strna(err));
        ck_assert_uint_eq(n, 2);
        for (size_t i = 0; i < n; i++) {
                ck_assert_uint_eq(strv_length(steps[i].devices), 2);
                ck_assert_str_eq(steps[i].devices[1], "/dev/sdc");
                ck_assert_str_eq(steps[i].target, "/dev/sdb");
                ck_assert_int_eq(steps[i].layout, LAYOUT_RAID1);
        }
        ck_assert(matrix_step_starts_entry(steps, 0));
        ck_assert(!matrix_step_starts_entry(steps, 1));
        name = matrix_entry_name(&steps[0], 2);
        ck_assert_str_eq(name, "btrfs raid1");

        /* One verdict unit per device; the first carries the matrix for the checks at submit. */
        JobSpec *units = NULL;
        size_t n_units = 0;
        ck_assert_int_eq(matrix_member_specs(&job, true, &units, &n_units), 0);
        ck_assert_uint_eq(n_units, 2);
        ck_assert_str_eq(units[0].target, "/dev/sdb");
        ck_assert_str_eq(units[1].target, "/dev/sdc");
        ck_assert(spec_is_matrix(&units[0]));
        ck_assert(!spec_is_matrix(&units[1]));
        for (size_t i = 0; i < 2; i++) {
                ck_assert(workload_writes(units[i].workload));
                ck_assert(units[i].destructive);
        }
        spec_array_free(units, n_units);
        ck_assert_int_eq(matrix_member_specs(&steps[1], false, &units, &n_units), 0);
        ck_assert(!spec_is_matrix(&units[0]));
        spec_array_free(units, n_units);

        spec_array_free(steps, n);
        spec_clear(&base[0]);
        spec_clear(&base[1]);
        spec_clear(&job);
}
END_TEST

/* The unit checked at submit carries what the trials need: an md layout's md_options for mdadm's. */
START_TEST(test_member_specs_md) {
        static const char *const a[] = {
                "workload=write", "filesystems=ext4", "devices=/dev/sdb,/dev/sdc,/dev/sdd", "layout=md-raid5",
                "md_options=--layout=left-symmetric --chunk=64K", "destructive=true", NULL };
        JobSpec job, *units = NULL;
        size_t n_units = 0;

        spec_build(&job, a);
        ck_assert_int_eq(matrix_member_specs(&job, true, &units, &n_units), 0);
        ck_assert_uint_eq(n_units, 3);
        ck_assert_int_eq(units[0].layout, LAYOUT_MD_RAID5);
        ck_assert_str_eq(units[0].md_options, "--layout=left-symmetric --chunk=64K");
        ck_assert_ptr_null(units[1].md_options);
        spec_array_free(units, n_units);
        spec_clear(&job);
}
END_TEST

/* The unit that carries the matrix to the checks at submit carries what an LVM layout's fit is
 * checked with: lv_size and lvm_options (a 1G volume refused on two small disks at submit, not
 * when lvcreate fails). */
START_TEST(test_lvm_unit) {
        static const char *const a[] = {
                "workload=write", "filesystems=ext4", "layout=lvm", "devices=/dev/sdb,/dev/sdc",
                "destructive=true", "lv_size=1G", "lvm_options=--physicalextentsize=1M", NULL };
        JobSpec job, *units = NULL;
        size_t n_units = 0;

        spec_build(&job, a);
        ck_assert_int_eq(matrix_member_specs(&job, true, &units, &n_units), 0);
        ck_assert_uint_eq(n_units, 2);
        ck_assert_int_eq(units[0].layout, LAYOUT_LVM);
        ck_assert_uint_eq(units[0].lv_size, UINT64_C(1) << 30);
        ck_assert_str_eq(units[0].lvm_options, "--physicalextentsize=1M");
        spec_array_free(units, n_units);
        spec_clear(&job);
}
END_TEST

START_TEST(test_one_device_name) {
        static const char *const a[] = {
                "workload=write", "filesystems=ext4,btrfs", "target=/dev/sdb", "destructive=true", NULL };
        JobSpec job, base[2], *steps = NULL;
        _cleanup_free_ char *err = NULL, *n0 = NULL, *n2 = NULL;
        size_t n = 0;

        spec_build(&job, a);
        base_steps(&job, base);
        ck_assert_msg(matrix_expand(&job, base, 2, &steps, &n, &err) == 0, "%s", strna(err));
        ck_assert_uint_eq(n, 4);
        /* One device: entries are named by their filesystem alone. */
        n0 = matrix_entry_name(&steps[0], 1);
        n2 = matrix_entry_name(&steps[2], 1);
        ck_assert_str_eq(n0, "ext4");
        ck_assert_str_eq(n2, "btrfs");
        spec_array_free(steps, n);
        spec_clear(&base[0]);
        spec_clear(&base[1]);
        spec_clear(&job);
}
END_TEST

/* partitions=2: each entry on partition 1, then 2, of the same members; partition= alone picks one. */
START_TEST(test_partitions) {
        static const char *const a[] = {
                "workload=write", "filesystems=ext4,ext4-from-ext3", "target=/dev/sdb", "destructive=true",
                "partitions=2", NULL };
        static const char *const one[] = {
                "workload=write", "filesystems=ext4", "target=/dev/sdb", "destructive=true", "partitions=3",
                "partition=2", NULL };
        static const char *const names[] = { "ext4 p1", "ext4 p2", "ext4-from-ext3 p1", "ext4-from-ext3 p2" };
        JobSpec job, base[2], *steps = NULL;
        _cleanup_free_ char *err = NULL;
        size_t n = 0;

        spec_build(&job, a);
        ck_assert_uint_eq(matrix_n_entries(&job), 4);
        base_steps(&job, base);
        ck_assert_msg(matrix_expand(&job, base, 2, &steps, &n, &err) == 0, "%s", strna(err));
        ck_assert_uint_eq(n, 8);
        for (size_t i = 0; i < n; i++) {
                _cleanup_free_ char *name = matrix_entry_name(&steps[i], 1);

                ck_assert_str_eq(name, names[i / 2]);
                ck_assert_uint_eq(steps[i].partitions, 2);
                ck_assert_uint_eq(steps[i].partition, i / 2 % 2 + 1);
                ck_assert_uint_eq(matrix_step_entry(steps, i), i / 2);
                ck_assert(matrix_step_starts_entry(steps, i) == (i % 2 == 0));
        }
        spec_array_free(steps, n);
        spec_clear(&base[0]);
        spec_clear(&base[1]);
        spec_clear(&job);

        spec_build(&job, one);
        ck_assert_uint_eq(matrix_n_entries(&job), 1);
        base_steps(&job, base);
        ck_assert_msg(matrix_expand(&job, base, 2, &steps, &n, &err) == 0, "%s", strna(err));
        ck_assert_uint_eq(n, 2);
        ck_assert_uint_eq(steps[0].partition, 2);
        ck_assert_uint_eq(steps[1].partition, 2);
        spec_array_free(steps, n);
        spec_clear(&base[0]);
        spec_clear(&base[1]);
        spec_clear(&job);
}
END_TEST

START_TEST(test_too_many_steps) {
        static const char *const a[] = {
                "workload=write", "filesystems=ext2,ext3,ext4,xfs,btrfs,f2fs,vfat,nilfs2",
                "devices=/dev/sdb,/dev/sdc,/dev/sdd,/dev/sde", "destructive=true", NULL };
        JobSpec job, *base, *steps = NULL;
        _cleanup_free_ char *err = NULL;
        size_t n = 99;

        spec_build(&job, a);
        /* 8 filesystems × 4 devices = 32 entries; 9 steps each is 288 > 256. */
        base = calloc(9, sizeof(JobSpec));
        ck_assert_ptr_nonnull(base);
        for (size_t i = 0; i < 9; i++) {
                spec_init(&base[i]);
                ck_assert_int_eq(spec_copy(&job, &base[i]), 0);
        }
        ck_assert_int_eq(matrix_expand(&job, base, 9, &steps, &n, &err), -EINVAL);
        ck_assert_ptr_null(steps);
        ck_assert_uint_eq(n, 99);
        ck_assert_msg(err && strstr(err, "288 steps") && strstr(err, "at most 256"), "%s", strna(err));
        /* 8 steps each is 256: fine. */
        free(err);
        err = NULL;
        ck_assert_msg(matrix_expand(&job, base, 8, &steps, &n, &err) == 0, "%s", strna(err));
        ck_assert_uint_eq(n, 256);
        ck_assert_uint_eq(matrix_step_entry(steps, 255), 31);
        spec_array_free(steps, n);
        spec_array_free(base, 9);
        spec_clear(&job);
}
END_TEST

/* Three entries of two steps (ext4, xfs, btrfs on one device, write then read), in rounds. */
START_TEST(test_rounds_order) {
        static const char *const a[] = {
                "workload=write", "filesystems=ext4,xfs,btrfs", "devices=/dev/loop0", "destructive=true",
                "size=16M", "repeat=3", NULL };
        /* The steps are ext4 0 1, xfs 2 3, btrfs 4 5. */
        static const uint32_t want[3][6] = {
                { 0, 1, 2, 3, 4, 5 },
                { 4, 5, 2, 3, 0, 1 },
                { 0, 1, 2, 3, 4, 5 },
        };
        static const char *const fs[] = { "ext4", "xfs", "btrfs" };
        JobSpec job, base[2], *steps = NULL;
        _cleanup_free_ char *err = NULL;
        size_t n = 0;

        spec_build(&job, a);
        base_steps(&job, base);
        ck_assert_msg(matrix_expand(&job, base, 2, &steps, &n, &err) == 0, "%s", strna(err));
        ck_assert_uint_eq(n, 6);
        ck_assert(rounds_apply(steps, n));
        ck_assert_uint_eq(rounds_min(steps, n), 3);
        ck_assert_uint_eq(rounds_max(steps, n), 3);
        for (uint32_t r = 0; r < 3; r++)
                for (uint32_t v = 0; v < n; v++) {
                        uint32_t step = rounds_step(steps, n, r, v);

                        ck_assert_msg(step == want[r][v], "round %u visit %u: step %u, want %u", r, v, step,
                                      want[r][v]);
                        ck_assert_uint_eq(rounds_visit(steps, n, r, step), v);
                        /* A visit of an entry begins where the entry does: its filesystem is made there. */
                        ck_assert(matrix_step_starts_entry(steps, step) == (v % 2 == 0));
                }
        for (size_t i = 0; i < n; i++) {
                _cleanup_free_ char *place = rounds_entry_place(&steps[i]);
                char w[64];

                snprintf(w, sizeof w, "%s on loop0", fs[i / 2]);
                ck_assert_str_eq(place, w);
        }
        spec_array_free(steps, n);
        spec_clear(&base[0]);
        spec_clear(&base[1]);
        spec_clear(&job);
}
END_TEST

/* A btrfs RAID entry is named by its layout and all its members. */
START_TEST(test_rounds_place_raid) {
        static const char *const a[] = {
                "workload=write", "filesystems=btrfs", "layout=raid1", "devices=/dev/loop1,/dev/disk/by-id/x-2",
                "destructive=true", "size=16M", NULL };
        JobSpec job, base[2], *steps = NULL;
        _cleanup_free_ char *err = NULL, *place = NULL;
        size_t n = 0;

        spec_build(&job, a);
        base_steps(&job, base);
        ck_assert_msg(matrix_expand(&job, base, 2, &steps, &n, &err) == 0, "%s", strna(err));
        place = rounds_entry_place(&steps[0]);
        ck_assert_str_eq(place, "btrfs raid1 on loop1+x-2");
        /* Once: no rounds. */
        ck_assert(!rounds_apply(steps, n));
        spec_array_free(steps, n);
        spec_clear(&base[0]);
        spec_clear(&base[1]);
        spec_clear(&job);
}
END_TEST

/* How many rounds the steps ask for, and which jobs run in rounds at all. */
static const struct {
        const char *a[4];
        bool apply;
        uint32_t min, max;
} rounds_cases[] = {
        { { "filesystems=ext4,btrfs", "repeat=1", NULL }, false, 1, 1 },
        { { "filesystems=ext4,btrfs", "repeat=2", NULL }, true, 2, 2 },
        { { "filesystems=ext4", "repeat=2", NULL }, true, 2, 2 },
        { { "filesystems=ext4,btrfs", "until_stddev=5", "max_repeats=7", NULL }, true, 3, 7 },
        { { "filesystems=ext4,btrfs", "repeat=4", "until_stddev=5", "max_repeats=7" }, true, 4, 7 },
        /* Not a matrix: repeats run step by step, as they always did. */
        { { "repeat=3", NULL }, false, 3, 3 },
};

START_TEST(test_rounds_plan) {
        JobSpec job, base[2], *steps = base;
        _cleanup_free_ char *err = NULL;
        size_t n = 2;

        spec_init(&job);
        ck_assert_int_eq(spec_set_assignment(&job, "workload=write", &err), 0);
        ck_assert_int_eq(spec_set_assignment(&job, "size=16M", &err), 0);
        ck_assert_int_eq(spec_set_assignment(&job, "target=/dev/loop0", &err), 0);
        ck_assert_int_eq(spec_set_assignment(&job, "destructive=true", &err), 0);
        for (size_t k = 0; k < ELEMENTSOF(rounds_cases[_i].a) && rounds_cases[_i].a[k]; k++)
                ck_assert_msg(spec_set_assignment(&job, rounds_cases[_i].a[k], &err) == 0, "'%s': %s",
                              rounds_cases[_i].a[k], strna(err));
        ck_assert_msg(spec_finalize(&job, &err) == 0, "%s", strna(err));
        base_steps(&job, base);
        if (spec_is_matrix(&job))
                ck_assert_msg(matrix_expand(&job, base, 2, &steps, &n, &err) == 0, "%s", strna(err));
        ck_assert(rounds_apply(steps, n) == rounds_cases[_i].apply);
        ck_assert_uint_eq(rounds_min(steps, n), rounds_cases[_i].min);
        ck_assert_uint_eq(rounds_max(steps, n), rounds_cases[_i].max);
        if (steps != base)
                spec_array_free(steps, n);
        spec_clear(&base[0]);
        spec_clear(&base[1]);
        spec_clear(&job);
}
END_TEST

/* What a later entry's first step may find on its members: the filesystem the job made there last. */
START_TEST(test_made) {
        _cleanup_(matrix_made_clear) MatrixMade m = {};
        char *l1[] = { (char *) "/dev/loop1", NULL }, *l2[] = { (char *) "/dev/loop2", NULL };
        char *both[] = { (char *) "/dev/loop1", (char *) "/dev/loop2", NULL };
        char *other[] = { (char *) "/dev/loop3", NULL };
        const MatrixMadeFs *f;

        ck_assert_ptr_null(matrix_made_on(&m, l1));
        /* filesystems=ext4,xfs devices=loop1,loop2: ext4 on loop1, ext4 on loop2, then xfs on loop1 finds
         * the first entry's ext4, not the second's. */
        ck_assert_int_eq(matrix_made_record(&m, l1, "ext4", "u-1"), 0);
        ck_assert_int_eq(matrix_made_record(&m, l2, "ext4", "u-2"), 0);
        f = matrix_made_on(&m, l1);
        ck_assert_ptr_nonnull(f);
        ck_assert_str_eq(f->fs_type, "ext4");
        ck_assert_str_eq(f->uuid, "u-1");
        ck_assert_str_eq(matrix_made_on(&m, l2)->uuid, "u-2");
        ck_assert_ptr_null(matrix_made_on(&m, other));
        /* The next one replaces it. */
        ck_assert_int_eq(matrix_made_record(&m, l1, "xfs", "u-3"), 0);
        ck_assert_str_eq(matrix_made_on(&m, l1)->fs_type, "xfs");
        ck_assert_str_eq(matrix_made_on(&m, l1)->uuid, "u-3");
        ck_assert_uint_eq(m.n, 2);
        /* Members that carry different filesystems of the job: none is taken for its own. */
        ck_assert_ptr_null(matrix_made_on(&m, both));
        /* One filesystem across both (btrfs raid1): its UUID on each. */
        ck_assert_int_eq(matrix_made_record(&m, both, "btrfs", "u-4"), 0);
        ck_assert_str_eq(matrix_made_on(&m, both)->uuid, "u-4");
        ck_assert_int_eq(matrix_made_record(&m, both, "btrfs", ""), -EINVAL);
        ck_assert_int_eq(matrix_made_record(&m, both, NULL, "u-5"), -EINVAL);
}
END_TEST

int main(void) {
        Suite *s = suite_create("matrix");
        TCase *tc = tcase_create("core");

        tcase_add_test(tc, test_single_layout);
        tcase_add_test(tc, test_raid_layout);
        tcase_add_test(tc, test_lvm_unit);
        tcase_add_test(tc, test_one_device_name);
        tcase_add_test(tc, test_member_specs_md);
        tcase_add_test(tc, test_partitions);
        tcase_add_test(tc, test_too_many_steps);
        tcase_add_test(tc, test_made);
        tcase_add_test(tc, test_rounds_order);
        tcase_add_test(tc, test_rounds_place_raid);
        tcase_add_loop_test(tc, test_rounds_plan, 0, ELEMENTSOF(rounds_cases));
        suite_add_tcase(s, tc);
        return check_run(s);
}
