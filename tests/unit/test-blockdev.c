/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * blockdev.h on a recorded sysfs tree built under a temporary directory (partitions, dm over
 * partitions of two disks, md over dm, a uevent-only dev entry), then on the real /sys with a loop
 * device of our own when we are root.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "shared/blockdev.h"
#include "shared/util.h"

static char root[] = "/tmp/test-blockdev-XXXXXX";

static void mkdir_p(const char *rel) {
        char path[4096];
        snprintf(path, sizeof(path), "%s/%s", root, rel);
        for (char *p = path + strlen(root) + 1; *p; p++)
                if (*p == '/') {
                        *p = 0;
                        mkdir(path, 0755);
                        *p = '/';
                }
        mkdir(path, 0755);
}

static void write_file(const char *rel, const char *text) {
        char path[4096];
        snprintf(path, sizeof(path), "%s/%s", root, rel);
        FILE *f = fopen(path, "we");
        ck_assert_ptr_nonnull(f);
        fputs(text, f);
        fclose(f);
}

static void symlink_rel(const char *target, const char *rel) {
        char path[4096];
        snprintf(path, sizeof(path), "%s/%s", root, rel);
        ck_assert_int_eq(symlink(target, path), 0);
}

/* A device directory under devices/, linked from class/block and dev/block like the kernel does. */
static void add_dev(const char *devpath, const char *name, const char *majmin, bool partition) {
        char rel[512], target[512];

        snprintf(rel, sizeof(rel), "devices/%s", devpath);
        mkdir_p(rel);
        snprintf(rel, sizeof(rel), "devices/%s/stat", devpath);
        write_file(rel, "1 2 3 4 5 6 7 8 9 10 11 12 13 14 15\n");
        if (partition) {
                snprintf(rel, sizeof(rel), "devices/%s/partition", devpath);
                write_file(rel, "1\n");
        }
        snprintf(target, sizeof(target), "../../devices/%s", devpath);
        snprintf(rel, sizeof(rel), "class/block/%s", name);
        symlink_rel(target, rel);
        snprintf(rel, sizeof(rel), "dev/block/%s", majmin);
        symlink_rel(target, rel);
}

static void add_slave(const char *holder_devpath, const char *slave_name, const char *slave_devpath) {
        char rel[512], target[512];
        snprintf(rel, sizeof(rel), "devices/%s/slaves", holder_devpath);
        mkdir_p(rel);
        snprintf(rel, sizeof(rel), "devices/%s/slaves/%s", holder_devpath, slave_name);
        /* relative like the kernel's; depth of holder_devpath + "slaves/" */
        snprintf(target, sizeof(target), "%s/devices/%s", root, slave_devpath);
        symlink_rel(target, rel);
}

static void tree_setup(void) {
        ck_assert_ptr_nonnull(mkdtemp(root));
        mkdir_p("class/block");
        mkdir_p("dev/block");
        add_dev("pci0/ata1/block/sda", "sda", "8:0", false);
        add_dev("pci0/ata1/block/sda/sda1", "sda1", "8:1", false);
        write_file("devices/pci0/ata1/block/sda/sda1/partition", "1\n");
        add_dev("pci0/ata1/block/sda/sda2", "sda2", "8:2", true);
        add_dev("pci0/ata2/block/sdb", "sdb", "8:16", false);
        add_dev("pci0/nvme/nvme0/nvme0n1", "nvme0n1", "259:0", false);
        add_dev("pci0/nvme/nvme0/nvme0n1/nvme0n1p1", "nvme0n1p1", "259:1", true);
        add_dev("virtual/block/dm-0", "dm-0", "254:0", false);
        add_slave("virtual/block/dm-0", "sda2", "pci0/ata1/block/sda/sda2");
        add_slave("virtual/block/dm-0", "nvme0n1p1", "pci0/nvme/nvme0/nvme0n1/nvme0n1p1");
        add_dev("virtual/block/md0", "md0", "9:0", false);
        add_slave("virtual/block/md0", "dm-0", "virtual/block/dm-0");
        add_slave("virtual/block/md0", "sdb", "pci0/ata2/block/sdb");
        add_slave("virtual/block/md0", "sda1", "pci0/ata1/block/sda/sda1");
        /* a dev entry recorded as a plain directory with a uevent file */
        mkdir_p("dev/block/7:3");
        write_file("dev/block/7:3/uevent", "MAJOR=7\nMINOR=3\nDEVNAME=loop3\nDEVTYPE=disk\n");
}

static void tree_teardown(void) {
        char cmd[512];
        snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
        ck_assert_int_eq(system(cmd), 0);
        strcpy(root, "/tmp/test-blockdev-XXXXXX");
}

static const struct {
        unsigned maj, min;
        const char *name;
        int error;
} devnum_cases[] = {
        { 8, 0, "sda", 0 },
        { 8, 2, "sda2", 0 },
        { 259, 1, "nvme0n1p1", 0 },
        { 254, 0, "dm-0", 0 },
        { 7, 3, "loop3", 0 },
        { 8, 99, NULL, -ENOENT },
        { 0, 42, NULL, -ENOENT },       /* anonymous (tmpfs, overlay, btrfs) */
};

START_TEST(test_name_from_devnum) {
        _cleanup_free_ char *name = NULL;
        int r = blockdev_name_from_devnum(root, makedev(devnum_cases[_i].maj, devnum_cases[_i].min), &name);

        ck_assert_int_eq(r, devnum_cases[_i].error);
        if (r == 0)
                ck_assert_str_eq(name, devnum_cases[_i].name);
        else
                ck_assert_ptr_null(name);
}
END_TEST

static const struct {
        const char *name, *disk;
        int error;
} whole_cases[] = {
        { "sda", "sda", 0 },
        { "sda2", "sda", 0 },
        { "sda1", "sda", 0 },
        { "nvme0n1p1", "nvme0n1", 0 },  /* not guessed from the spelling */
        { "dm-0", "dm-0", 0 },
        { "nope", NULL, -ENOENT },
        { "../sda", NULL, -EINVAL },
        { "", NULL, -EINVAL },
};

START_TEST(test_whole_disk) {
        _cleanup_free_ char *disk = NULL;
        int r = blockdev_whole_disk(root, whole_cases[_i].name, &disk);

        ck_assert_int_eq(r, whole_cases[_i].error);
        if (r == 0)
                ck_assert_str_eq(disk, whole_cases[_i].disk);
}
END_TEST

static const struct {
        const char *name;
        const char *leaves[4];
} leaves_cases[] = {
        { "sda", { "sda" } },
        { "sda2", { "sda" } },
        { "dm-0", { "sda", "nvme0n1" } },
        /* md0 = dm-0 (sda2, nvme0n1p1) + sdb + sda1: sda only once */
        { "md0", { "sda", "nvme0n1", "sdb" } },
};

START_TEST(test_leaves) {
        _cleanup_strv_free_ char **l = NULL;
        size_t n = 0, expected = 0;

        ck_assert_int_eq(blockdev_leaves(root, leaves_cases[_i].name, &l), 0);
        for (; l[n]; n++) {
                bool found = false;
                for (size_t j = 0; j < ELEMENTSOF(leaves_cases[_i].leaves) && leaves_cases[_i].leaves[j]; j++)
                        found = found || streq(l[n], leaves_cases[_i].leaves[j]);
                ck_assert_msg(found, "%s: unexpected leaf %s", leaves_cases[_i].name, l[n]);
        }
        while (expected < ELEMENTSOF(leaves_cases[_i].leaves) && leaves_cases[_i].leaves[expected])
                expected++;
        ck_assert_uint_eq(n, expected);
}
END_TEST

START_TEST(test_read_stat) {
        BlockStat s;
        ck_assert_int_eq(blockdev_read_stat(root, "sda2", &s), 0);
        ck_assert_uint_eq(s.read_ios, 1);
        ck_assert_uint_eq(s.io_ticks_ms, 10);
        ck_assert_uint_eq(s.time_in_queue_ms, 11);
        ck_assert_int_eq(blockdev_read_stat(root, "nope", &s), -ENOENT);
        ck_assert_int_eq(blockdev_read_stat(root, "../../etc", &s), -EINVAL);
}
END_TEST

/* The real /sys, with a loop device on an image of our own. */
START_TEST(test_real_sys_loop) {
        char img[] = "/tmp/test-blockdev-img-XXXXXX", cmd[512], dev[64] = "";
        int fd = mkstemp(img);
        ck_assert_int_ge(fd, 0);
        ck_assert_int_eq(ftruncate(fd, 8 << 20), 0);
        close(fd);

        if (geteuid() != 0) {
                unlink(img);
                return; /* nothing to attach without root; the recorded tree covers the logic */
        }
        snprintf(cmd, sizeof(cmd), "losetup -f --show '%s'", img);
        FILE *p = popen(cmd, "r");
        ck_assert_ptr_nonnull(p);
        if (!fgets(dev, sizeof(dev), p))
                dev[0] = 0;
        pclose(p);
        dev[strcspn(dev, "\n")] = 0;
        if (!*dev) {
                unlink(img);
                return; /* no loop support in this container */
        }

        struct stat st;
        _cleanup_free_ char *name = NULL, *disk = NULL;
        _cleanup_strv_free_ char **leaves = NULL;
        BlockStat bs;
        int r1 = stat(dev, &st);
        int r2 = r1 == 0 ? blockdev_name_from_devnum(NULL, st.st_rdev, &name) : -1;
        int r3 = r2 == 0 ? blockdev_whole_disk(NULL, name, &disk) : -1;
        int r4 = r3 == 0 ? blockdev_leaves(NULL, name, &leaves) : -1;
        int r5 = r2 == 0 ? blockdev_read_stat(NULL, name, &bs) : -1;

        snprintf(cmd, sizeof(cmd), "losetup -d '%s'", dev);
        (void) !system(cmd);
        unlink(img);

        ck_assert_int_eq(r1, 0);
        ck_assert_int_eq(r2, 0);
        ck_assert_str_eq(name, strrchr(dev, '/') + 1);
        ck_assert_int_eq(r3, 0);
        ck_assert_str_eq(disk, name);
        ck_assert_int_eq(r4, 0);
        ck_assert_str_eq(leaves[0], name);
        ck_assert_ptr_null(leaves[1]);
        ck_assert_int_eq(r5, 0);
}
END_TEST

static Suite *blockdev_suite(void) {
        Suite *s = suite_create("blockdev");
        TCase *tc = tcase_create("recorded");

        tcase_add_checked_fixture(tc, tree_setup, tree_teardown);
        tcase_add_loop_test(tc, test_name_from_devnum, 0, ELEMENTSOF(devnum_cases));
        tcase_add_loop_test(tc, test_whole_disk, 0, ELEMENTSOF(whole_cases));
        tcase_add_loop_test(tc, test_leaves, 0, ELEMENTSOF(leaves_cases));
        tcase_add_test(tc, test_read_stat);
        suite_add_tcase(s, tc);

        tc = tcase_create("real");
        tcase_add_test(tc, test_real_sys_loop);
        suite_add_tcase(s, tc);
        return s;
}

int main(void) {
        SRunner *sr = srunner_create(blockdev_suite());
        srunner_run_all(sr, CK_NORMAL);
        int failed = srunner_ntests_failed(sr);
        srunner_free(sr);
        return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
