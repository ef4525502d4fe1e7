/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Tests of the pure parts of the worker's filesystem steps (daemon/worker/fsprep.c): the mkfs
 * command line (the layout's flags, the options split on blanks, the members last, never a force
 * flag), what of mkfs's output FS_INFO may carry (valid UTF-8, progress counters rendered, no
 * control characters but newline and tab, never longer), the part of it a failure message quotes,
 * and the --try-mkfs image size. The namespaces, the sandbox and the mounts need root and real
 * devices: tests/integration/test-worker-fs.sh.
 */
#include <check.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "check-util.h"
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fsmember.h"
#include "fsconvert.h"
#include "fspart.h"
#include "fsprep.h"
#include "layout-md.h"
#include "shared/proto.h"
#include "shared/strv.h"
#include "shared/util.h"

static const struct {
        const char *fs_type, *layout, *options;
        size_t n_members;
        const char *want;       /* argv joined by '|' */
        int ret;
} argv_cases[] = {
        { "ext4", "single", "", 1, "mkfs.ext4|/dev/loop3", 0 },
        { "ext4", "single", "-b 4096  -O ^has_journal\t-E lazy_itable_init=0 ", 1,
          "mkfs.ext4|-b|4096|-O|^has_journal|-E|lazy_itable_init=0|/dev/loop3", 0 },
        { "xfs", "single", "-f", 1, "mkfs.xfs|-f|/dev/loop3", 0 },  /* the user's, not ours */
        { "btrfs", "single", "", 2, "mkfs.btrfs|/dev/loop3|/dev/loop4", 0 },
        { "btrfs", "raid1", "", 2, "mkfs.btrfs|-d|raid1|-m|raid1|/dev/loop3|/dev/loop4", 0 },
        { "btrfs", "raid0", "--nodesize 16k", 2,
          "mkfs.btrfs|-d|raid0|-m|raid0|--nodesize|16k|/dev/loop3|/dev/loop4", 0 },
        { "btrfs", "raid10", "", 4, "mkfs.btrfs|-d|raid10|-m|raid10|/dev/loop3|/dev/loop4|/dev/loop5|/dev/loop6", 0 },
        { "ext4", "single", "   ", 1, "mkfs.ext4|/dev/loop3", 0 },
        { "ext4", "single", "a b c d e f g h i j k l m n o p q r s t u v w x y z", 1,
          "mkfs.ext4|a|b|c|d|e|f|g|h|i|j|k|l|m|n|o|p|q|r|s|t|u|v|w|x|y|z|/dev/loop3", 0 },
};

START_TEST(test_mkfs_argv) {
        char *members[] = { (char *) "/dev/loop3", (char *) "/dev/loop4", (char *) "/dev/loop5",
                            (char *) "/dev/loop6" };
        _cleanup_strv_free_ char **argv = NULL;
        char got[1024] = "";

        ck_assert_int_eq(fsprep_mkfs_argv(argv_cases[_i].fs_type, argv_cases[_i].layout, argv_cases[_i].options,
                                          members, argv_cases[_i].n_members, &argv), argv_cases[_i].ret);
        for (size_t i = 0; argv[i]; i++) {
                if (i > 0)
                        strcat(got, "|");
                strcat(got, argv[i]);
        }
        ck_assert_str_eq(got, argv_cases[_i].want);
}
END_TEST

/* The longest options there can be (every other byte a blank: the most words) still fit. */
START_TEST(test_mkfs_argv_bound) {
        char options[PROTO_FS_OPTIONS_MAX + 1];
        char *members[PROTO_FS_MEMBERS_MAX];
        _cleanup_strv_free_ char **argv = NULL;

        for (size_t i = 0; i < PROTO_FS_OPTIONS_MAX; i++)
                options[i] = i % 2 ? ' ' : 'x';
        options[PROTO_FS_OPTIONS_MAX] = 0;
        for (size_t i = 0; i < ELEMENTSOF(members); i++)
                members[i] = (char *) "/dev/loop9";
        ck_assert_int_eq(fsprep_mkfs_argv("btrfs", "raid10", options, members, ELEMENTSOF(members), &argv), 0);
        ck_assert_uint_eq(strv_length(argv), 1 + 4 + PROTO_FS_OPTIONS_MAX / 2 + PROTO_FS_MEMBERS_MAX);
}
END_TEST

static const struct {
        const char *in;
        size_t len;             /* 0: strlen(in) */
        const char *out;
} clean_cases[] = {
        { "plain\n\tindented\n", 0, "plain\n\tindented\n" },
        /* mke2fs's counters: "0/50" then as many backspaces, and blanks at the end of the line. */
        { "Writing inode tables:  0/50\b\b\b\b\b     \b\b\b\b\bdone                            \n", 0,
          "Writing inode tables: done\n" },
        { "50%\r100%\n", 0, "100%\n" },
        { "dos line\r\n", 0, "dos line\n" },
        { "\b\bnothing to erase\n", 0, "nothing to erase\n" },
        { "a\xc3\xa4\b\bb\n", 0, "b\n" },                               /* a backspace erases a character */
        { "esc \x1b[1mbold\x7f\n", 0, "esc ?[1mbold?\n" },
        { "C1 \xc2\x85 and \xff\n", 0, "C1 ? and ?\n" },
        { "nul\0byte", 8, "nul?byte" },
        { "cut \xe6\x97\xa5\xe6\x97", 0, "cut \xe6\x97\xa5" },          /* the half 日 at the end goes */
        { "cut \xc3", 0, "cut " },
        { "whole \xf0\x9f\x98\x80", 0, "whole \xf0\x9f\x98\x80" },
        { "", 0, "" },
};

START_TEST(test_output_clean) {
        size_t len = clean_cases[_i].len ?: strlen(clean_cases[_i].in);
        _cleanup_free_ char *buf = malloc(len + 1);
        size_t n;

        memcpy(buf, clean_cases[_i].in, len);
        n = fstool_output_clean(buf, len);
        ck_assert_msg(streq(buf, clean_cases[_i].out), "row %d: \"%s\", expected \"%s\"", _i, buf, clean_cases[_i].out);
        ck_assert_uint_eq(n, strlen(buf));
        ck_assert_uint_le(n, len);
        /* What comes out is what FS_INFO may carry. */
        ck_assert(proto_fs_info_valid(&(ProtoFsInfo) { .fs_type = (char *) "ext4", .uuid = (char *) "",
                                                       .mkfs_command = (char *) "", .mkfs_output = buf,
                                                       .mount_options = (char *) "" }));
}
END_TEST

static const struct {
        const char *in, *out;
} summary_cases[] = {
        { "mke2fs 1.47.0 (5-Feb-2023)\n\nInvalid filesystem option set: no_such\n",
          "mke2fs 1.47.0 (5-Feb-2023); Invalid filesystem option set: no_such" },
        { "mkfs.xfs: invalid option -- 'Q'\nunknown option -Q\nUsage: mkfs.xfs\n/* blocksize */\t\t[-b size=num]\n",
          "mkfs.xfs: invalid option -- 'Q'; unknown option -Q" },
        { "  padded  \n\t\n", "padded" },
        { "usage: mkfs [options]\n", "no output" },
        { "", "no output" },
};

START_TEST(test_output_summary) {
        _cleanup_free_ char *s = fstool_output_summary(summary_cases[_i].in);

        ck_assert_str_eq(s, summary_cases[_i].out);
}
END_TEST

/* Long output is cut, at a character boundary, and marked. */
START_TEST(test_output_summary_long) {
        char in[3 * FSTOOL_SUMMARY_MAX];
        _cleanup_free_ char *s = NULL;
        size_t n = 0;

        while (n + 3 < sizeof(in) - 1) {
                memcpy(in + n, "\xc3\xa4", 2);  /* ä */
                n += 2;
        }
        in[n] = 0;
        s = fstool_output_summary(in);
        ck_assert_uint_le(strlen(s), FSTOOL_SUMMARY_MAX + strlen("…"));
        ck_assert(strlen(s) > FSTOOL_SUMMARY_MAX - 4);
        ck_assert_str_eq(s + strlen(s) - strlen("…"), "…");
        for (const char *p = s; *p;) {
                size_t k = utf8_char_len(p);
                ck_assert_uint_gt(k, 0);
                p += k;
        }
}
END_TEST

static char *join(char **argv) {
        size_t len = 1;
        char *s;

        for (size_t i = 0; argv[i]; i++)
                len += strlen(argv[i]) + 1;
        s = calloc(1, len);
        ck_assert_ptr_nonnull(s);
        for (size_t i = 0; argv[i]; i++) {
                if (i)
                        strcat(s, " ");
                strcat(s, argv[i]);
        }
        return s;
}

static int mkdir_p(const char *path, mode_t mode) {
        char buf[PATH_MAX];

        snprintf(buf, sizeof(buf), "%s", path);
        for (char *p = buf + 1; *p; p++)
                if (*p == '/') {
                        *p = 0;
                        if (mkdir(buf, mode) < 0 && errno != EEXIST)
                                return -errno;
                        *p = '/';
                }
        return mkdir(buf, mode) < 0 && errno != EEXIST ? -errno : 0;
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
        (void) st, (void) flag, (void) ftw;
        return remove(path);
}

static int rm_rf(const char *path) {
        return nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* mdadm's command lines: the name, homehost, no config, --run; at create the level, count,
 * --assume-clean (not for RAID0, which has no resync) and md_options' words; members last. */
START_TEST(test_md_argv) {
        char *nodes[] = { (char *) "/dev/loop1", (char *) "/dev/loop2", (char *) "/dev/loop3" };
        ProtoFsSetup s = {
                .stage = PROTO_FS_STAGE_MAKE, .fs_type = (char *) "ext4", .layout = (char *) "md-raid1",
                .md_name = (char *) "benchd-4-1", .md_options = (char *) "--bitmap=none  --metadata=1.2",
                .md_resync = PROTO_MD_RESYNC_ASSUME_CLEAN,
        };
        _cleanup_strv_free_ char **argv = NULL;
        _cleanup_free_ char *line = NULL;

        ck_assert_int_eq(layout_md_argv(&s, true, nodes, 2, &argv), 0);
        line = join(argv);
        ck_assert_str_eq(line, "mdadm --create /dev/md/benchd-4-1 --config=none --homehost=benchd --run --level=1 "
                         "--raid-devices=2 --assume-clean --bitmap=none --metadata=1.2 /dev/loop1 /dev/loop2");
        strv_free(argv);
        free(line);
        s.layout = (char *) "md-raid0";
        s.md_options = NULL;
        ck_assert_int_eq(layout_md_argv(&s, true, nodes, 3, &argv), 0);
        line = join(argv);
        ck_assert_str_eq(line, "mdadm --create /dev/md/benchd-4-1 --config=none --homehost=benchd --run --level=0 "
                         "--raid-devices=3 /dev/loop1 /dev/loop2 /dev/loop3");
        strv_free(argv);
        free(line);
        /* Assembling takes nothing of the creation's options. */
        s.md_options = (char *) "--chunk=64K";
        ck_assert_int_eq(layout_md_argv(&s, false, nodes, 2, &argv), 0);
        line = join(argv);
        ck_assert_str_eq(line, "mdadm --assemble /dev/md/benchd-4-1 --config=none --homehost=benchd --run "
                         "/dev/loop1 /dev/loop2");
        strv_free(argv);
        argv = NULL;
        /* Not an md layout, not benchd's name, one member. */
        s.layout = (char *) "single";
        ck_assert_int_eq(layout_md_argv(&s, true, nodes, 2, &argv), -EINVAL);
        s.layout = (char *) "md-raid1";
        s.md_name = (char *) "md0";
        ck_assert_int_eq(layout_md_argv(&s, true, nodes, 2, &argv), -EINVAL);
        s.md_name = (char *) "benchd-4-1";
        ck_assert_int_eq(layout_md_argv(&s, true, nodes, 1, &argv), -EINVAL);
        ck_assert_ptr_null(argv);
}
END_TEST

static void make_holder(const char *root, const char *member, const char *holder) {
        char path[PATH_MAX];

        snprintf(path, sizeof(path), "%s/sys/class/block/%s/holders", root, member);
        ck_assert_int_eq(mkdir_p(path, 0755), 0);
        if (holder) {
                snprintf(path, sizeof(path), "%s/sys/class/block/%s/holders/%s", root, member, holder);
                ck_assert_int_eq(mkdir(path, 0755), 0);
        }
}

/* The array is the one md device that holds every member, over a sysfs tree made here. */
START_TEST(test_md_find_holder) {
        char name[32], *both[] = { (char *) "loop1", (char *) "loop2" },
             *other[] = { (char *) "loop1", (char *) "loop3" }, *free_one[] = { (char *) "loop4" },
             *dm[] = { (char *) "loop5" }, *two[] = { (char *) "loop6" }, *none[] = { (char *) "loop9" };
        const char *tmp = getenv("TMPDIR");
        _cleanup_free_ char *dir = NULL;

        ck_assert_int_ge(asprintf(&dir, "%s/test-fsprep-XXXXXX", tmp ?: "/tmp"), 0);
        ck_assert_ptr_nonnull(mkdtemp(dir));
        make_holder(dir, "loop1", "md127");
        make_holder(dir, "loop2", "md127");
        make_holder(dir, "loop3", "md126");
        make_holder(dir, "loop4", NULL);
        make_holder(dir, "loop5", "dm-0");
        make_holder(dir, "loop6", "md125");
        make_holder(dir, "loop6", "md124");

        ck_assert_int_eq(layout_md_find_holder(dir, both, 2, name), 0);
        ck_assert_str_eq(name, "md127");
        ck_assert_int_eq(layout_md_find_holder(dir, other, 2, name), -EBUSY);
        ck_assert_int_eq(layout_md_find_holder(dir, free_one, 1, name), -ENOENT);
        ck_assert_int_eq(layout_md_find_holder(dir, dm, 1, name), -EBUSY);
        ck_assert_int_eq(layout_md_find_holder(dir, two, 1, name), -EBUSY);
        ck_assert_int_eq(layout_md_find_holder(dir, none, 1, name), -ENOENT);
        ck_assert_int_eq(rm_rf(dir), 0);
}
END_TEST

/* Which md members a make step may take over: the job's own arrays' ("benchd:benchd-JOB-*"). */
START_TEST(test_md_label_ours) {
        ck_assert(fsmember_md_label_ours("benchd:benchd-4-0", "benchd-4-1", false));
        ck_assert(fsmember_md_label_ours("benchd:benchd-4-1", "benchd-4-1", true));
        ck_assert(!fsmember_md_label_ours("benchd:benchd-4-0", "benchd-4-1", true));
        ck_assert(!fsmember_md_label_ours("benchd:benchd-41-0", "benchd-4-1", false));
        ck_assert(!fsmember_md_label_ours("benchd:benchd-5-0", "benchd-4-1", false));
        ck_assert(!fsmember_md_label_ours("host:benchd-4-0", "benchd-4-1", false));
        ck_assert(!fsmember_md_label_ours("benchd-4-0", "benchd-4-1", false));
        ck_assert(!fsmember_md_label_ours("benchd:benchd-4-", "benchd-4-1", false));
        ck_assert(!fsmember_md_label_ours("benchd:benchd-4-0x", "benchd-4-1", false));
        ck_assert(!fsmember_md_label_ours(NULL, "benchd-4-1", false));
        ck_assert(!fsmember_md_label_ours("benchd:benchd-4-0", NULL, false));
}
END_TEST

START_TEST(test_try_image_size) {
        ck_assert_uint_eq(fsprep_try_image_size(0), FSPREP_TRY_SIZE_MIN);
        ck_assert_uint_eq(fsprep_try_image_size(UINT64_C(100) << 20), FSPREP_TRY_SIZE_MIN);
        ck_assert_uint_eq(fsprep_try_image_size(UINT64_C(512) << 20), UINT64_C(512) << 20);
        ck_assert_uint_eq(fsprep_try_image_size(UINT64_C(1) << 40), FSPREP_TRY_SIZE_MAX);
}
END_TEST

/* partitions=: 1 MiB aligned, equal whole MiB, the backup GPT left free at the end. */
START_TEST(test_partition_layout) {
        FsPartLayout l[PROTO_FS_PARTITIONS_MAX];
        _cleanup_free_ char *script = NULL;
        uint64_t size = UINT64_C(256) << 20;

        ck_assert_int_eq(fspart_layout(size, 512, 2, l), 0);
        ck_assert_uint_eq(l[0].start, UINT64_C(1) << 20);
        ck_assert_uint_eq(l[0].size, UINT64_C(127) << 20);
        ck_assert_uint_eq(l[1].start, UINT64_C(128) << 20);
        ck_assert_uint_eq(l[1].size, UINT64_C(127) << 20);
        ck_assert_uint_le(l[1].start + l[1].size, size - 33 * 512);
        script = fspart_script(l, 2, 512);
        ck_assert_str_eq(script, "label: gpt\nstart=2048, size=260096, type=L\nstart=262144, size=260096, type=L\n");
        /* 4K sectors: the backup is 5 sectors; the partitions stay whole MiB. */
        ck_assert_int_eq(fspart_layout(size, 4096, 3, l), 0);
        ck_assert_uint_eq(l[2].start + l[2].size <= size - 5 * 4096, true);
        ck_assert_uint_eq(l[0].size % (UINT64_C(1) << 20), 0);
        /* 16 MiB each at least; sectors and counts out of range. */
        ck_assert_int_eq(fspart_layout(UINT64_C(40) << 20, 512, 3, l), -ENOSPC);
        ck_assert_int_eq(fspart_layout(UINT64_C(40) << 20, 512, 2, l), 0);
        ck_assert_int_eq(fspart_layout(size, 512, 0, l), -EINVAL);
        ck_assert_int_eq(fspart_layout(size, 512, PROTO_FS_PARTITIONS_MAX + 1, l), -EINVAL);
        ck_assert_int_eq(fspart_layout(size, 1000, 2, l), -EINVAL);
        ck_assert_int_eq(fspart_layout(UINT64_C(1) << 20, 512, 1, l), -ENOSPC);
}
END_TEST

/* ext4-from-ext3: tune2fs, then e2fsck, whose 1 (errors corrected) is success; nothing else converts. */
START_TEST(test_convert_argv) {
        _cleanup_strv_free_ char **a = fsconvert_argv("ext4-from-ext3", 0, "/dev/loop3"),
                                 **b = fsconvert_argv("ext4-from-ext3", 1, "/dev/loop3"),
                                 **c = fsconvert_argv("ext4-from-ext3", 2, "/dev/loop3"),
                                 **d = fsconvert_argv("ext4", 0, "/dev/loop3");

        ck_assert_ptr_nonnull(a);
        ck_assert_ptr_nonnull(b);
        ck_assert_ptr_null(c);
        ck_assert_ptr_null(d);
        ck_assert_uint_eq(strv_length(a), 4);
        ck_assert_str_eq(a[0], "tune2fs");
        ck_assert_str_eq(a[1], "-O");
        ck_assert_str_eq(a[2], "extents,uninit_bg,dir_index");
        ck_assert_str_eq(a[3], "/dev/loop3");
        ck_assert_uint_eq(strv_length(b), 3);
        ck_assert_str_eq(b[0], "e2fsck");
        ck_assert_str_eq(b[1], "-fyD");
        ck_assert_str_eq(b[2], "/dev/loop3");
        ck_assert(fsconvert_status_ok(0, 0));
        ck_assert(!fsconvert_status_ok(0, 1));
        ck_assert(fsconvert_status_ok(1, 0));
        ck_assert(fsconvert_status_ok(1, 1));
        ck_assert(!fsconvert_status_ok(1, 2));
        ck_assert(!fsconvert_status_ok(1, 4));
}
END_TEST

static Suite *fsprep_suite(void) {
        Suite *s = suite_create("fsprep");
        TCase *tc = tcase_create("fsprep");

        tcase_add_loop_test(tc, test_mkfs_argv, 0, ELEMENTSOF(argv_cases));
        tcase_add_test(tc, test_mkfs_argv_bound);
        tcase_add_loop_test(tc, test_output_clean, 0, ELEMENTSOF(clean_cases));
        tcase_add_loop_test(tc, test_output_summary, 0, ELEMENTSOF(summary_cases));
        tcase_add_test(tc, test_output_summary_long);
        tcase_add_test(tc, test_try_image_size);
        tcase_add_test(tc, test_partition_layout);
        tcase_add_test(tc, test_convert_argv);
        tcase_add_test(tc, test_md_argv);
        tcase_add_test(tc, test_md_find_holder);
        tcase_add_test(tc, test_md_label_ours);
        suite_add_tcase(s, tc);
        return s;
}

int main(void) {
        return check_run(fsprep_suite());
}
