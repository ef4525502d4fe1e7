/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * blockdev.h on a recorded sysfs tree built under a temporary directory (partitions, dm over
 * partitions of two disks, md over dm, a partitioned md array with dm on a partition, a holder
 * loop, a uevent-only dev entry, attributes such as ro, dev, queue/scheduler and diskseq), then on
 * the real /sys with a loop device of our own when we are root. The tree cases are what the
 * daemon's write verdict sees as "everything on a device".
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "shared/blockdev.h"
#include "check-util.h"
#include "shared/strv.h"
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
        snprintf(rel, sizeof(rel), "devices/%s/dev", devpath);
        snprintf(target, sizeof(target), "%s\n", majmin);
        write_file(rel, target);
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

/* Only the holders/ side: dev_devpath is held by holder_name (a recorded loop needs it alone). */
static void add_holder(const char *dev_devpath, const char *holder_name, const char *holder_devpath) {
        char rel[512], target[512];
        snprintf(rel, sizeof(rel), "devices/%s/holders", dev_devpath);
        mkdir_p(rel);
        snprintf(rel, sizeof(rel), "devices/%s/holders/%s", dev_devpath, holder_name);
        snprintf(target, sizeof(target), "%s/devices/%s", root, holder_devpath);
        symlink_rel(target, rel);
}

/* Both sides, as the kernel records a stack: <holder>/slaves/<slave> and <slave>/holders/<holder>. */
static void add_slave(const char *holder_devpath, const char *slave_name, const char *slave_devpath) {
        char rel[512], target[512];
        snprintf(rel, sizeof(rel), "devices/%s/slaves", holder_devpath);
        mkdir_p(rel);
        snprintf(rel, sizeof(rel), "devices/%s/slaves/%s", holder_devpath, slave_name);
        snprintf(target, sizeof(target), "%s/devices/%s", root, slave_devpath);
        symlink_rel(target, rel);
        add_holder(slave_devpath, strrchr(holder_devpath, '/') + 1, holder_devpath);
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

        /* attributes: queue/ and diskseq only on whole disks, as the kernel has them */
        mkdir_p("devices/pci0/ata1/block/sda/queue");
        write_file("devices/pci0/ata1/block/sda/queue/scheduler", "none [mq-deadline] kyber bfq\n");
        write_file("devices/pci0/ata1/block/sda/queue/logical_block_size", "4096\n");
        write_file("devices/pci0/ata1/block/sda/diskseq", "7\n");
        write_file("devices/pci0/ata1/block/sda/size", "1000\n");
        write_file("devices/pci0/ata1/block/sda/ro", "0\n");
        write_file("devices/pci0/ata1/block/sda/sda2/size", "400\n");
        write_file("devices/pci0/ata1/block/sda/sda2/ro", "1\n");
        mkdir_p("devices/pci0/ata2/block/sdb/queue");
        write_file("devices/pci0/ata2/block/sdb/queue/scheduler", "none\n");
        mkdir_p("devices/pci0/nvme/nvme0/nvme0n1/queue");
        write_file("devices/pci0/nvme/nvme0/nvme0n1/queue/scheduler", "[none] mq-deadline \n");

        /* a disk with two partitions and nothing on them */
        add_dev("pci0/virtio1/block/vda", "vda", "252:0", false);
        add_dev("pci0/virtio1/block/vda/vda2", "vda2", "252:2", true);
        add_dev("pci0/virtio1/block/vda/vda1", "vda1", "252:1", true);

        /* md1 on sdc and sdd, partitioned; dm-1 on md1p1 */
        add_dev("pci0/ata3/block/sdc", "sdc", "8:32", false);
        add_dev("pci0/ata4/block/sdd", "sdd", "8:48", false);
        add_dev("virtual/block/md1", "md1", "9:1", false);
        add_slave("virtual/block/md1", "sdc", "pci0/ata3/block/sdc");
        add_slave("virtual/block/md1", "sdd", "pci0/ata4/block/sdd");
        add_dev("virtual/block/md1/md1p1", "md1p1", "259:10", true);
        add_dev("virtual/block/md1/md1p2", "md1p2", "259:11", true);
        add_dev("virtual/block/dm-1", "dm-1", "254:1", false);
        add_slave("virtual/block/dm-1", "md1p1", "virtual/block/md1/md1p1");

        /* a holder loop, which only a recorded (or corrupt) tree has */
        add_dev("virtual/block/cyc0", "cyc0", "250:0", false);
        add_dev("virtual/block/cyc1", "cyc1", "250:1", false);
        add_holder("virtual/block/cyc0", "cyc1", "virtual/block/cyc1");
        add_holder("virtual/block/cyc1", "cyc0", "virtual/block/cyc0");
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

static const struct {
        const char *name, *attr, *value;
        int error;
} read_cases[] = {
        { "sda", "queue/scheduler", "none [mq-deadline] kyber bfq", 0 },        /* newline stripped */
        { "nvme0n1", "queue/scheduler", "[none] mq-deadline", 0 },             /* and a trailing blank */
        { "sda2", "dev", "8:2", 0 },
        { "sda2", "queue/scheduler", NULL, -ENOENT },   /* a partition has no queue/ */
        { "nope", "ro", NULL, -ENOENT },
        { "../sda", "ro", NULL, -EINVAL },
        { "..", "ro", NULL, -EINVAL },
        { "", "ro", NULL, -EINVAL },
};

START_TEST(test_read) {
        _cleanup_free_ char *v = NULL;
        int r = blockdev_read(root, read_cases[_i].name, read_cases[_i].attr, &v);

        ck_assert_int_eq(r, read_cases[_i].error);
        if (r == 0)
                ck_assert_str_eq(v, read_cases[_i].value);
        else
                ck_assert_ptr_null(v);
}
END_TEST

static const struct {
        const char *name, *attr;
        uint64_t value;
        int error;
} u64_cases[] = {
        { "sda", "ro", 0, 0 },
        { "sda2", "ro", 1, 0 },                 /* the partition's own, not the disk's */
        { "sda", "size", 1000, 0 },
        { "sda2", "size", 400, 0 },
        { "sda", "queue/logical_block_size", 4096, 0 },
        { "sda", "queue/scheduler", 0, -EINVAL },       /* not a number */
        { "sda2", "dev", 0, -EINVAL },                  /* "8:2" is not one either */
        { "sdb", "ro", 0, -ENOENT },
        { "../sda", "ro", 0, -EINVAL },
};

START_TEST(test_read_u64) {
        uint64_t v = 12345;
        int r = blockdev_read_u64(root, u64_cases[_i].name, u64_cases[_i].attr, &v);

        ck_assert_int_eq(r, u64_cases[_i].error);
        ck_assert_uint_eq(v, r == 0 ? u64_cases[_i].value : 12345);     /* untouched on failure */
}
END_TEST

static const struct {
        const char *name;
        unsigned maj, min;
        int error;
} name_devnum_cases[] = {
        { "sda", 8, 0, 0 },
        { "sda2", 8, 2, 0 },
        { "nvme0n1p1", 259, 1, 0 },
        { "md1p2", 259, 11, 0 },
        { "nope", 0, 0, -ENOENT },
        { "a/b", 0, 0, -EINVAL },
};

START_TEST(test_devnum) {
        dev_t d = 0;
        int r = blockdev_devnum(root, name_devnum_cases[_i].name, &d);

        ck_assert_int_eq(r, name_devnum_cases[_i].error);
        if (r == 0) {
                ck_assert_uint_eq(major(d), name_devnum_cases[_i].maj);
                ck_assert_uint_eq(minor(d), name_devnum_cases[_i].min);
        }
}
END_TEST

static const struct {
        const char *name, *scheduler;
        int error;
} scheduler_cases[] = {
        { "sda", "mq-deadline", 0 },    /* the bracketed one of "none [mq-deadline] kyber bfq" */
        { "sda2", "mq-deadline", 0 },   /* a partition's is its disk's */
        { "sda1", "mq-deadline", 0 },
        { "sdb", "none", 0 },           /* no brackets: the whole text */
        { "nvme0n1p1", "none", 0 },     /* "[none] mq-deadline" */
        { "md0", NULL, -ENOENT },       /* no queue/ recorded */
        { "nope", NULL, -ENOENT },
};

START_TEST(test_scheduler) {
        _cleanup_free_ char *v = NULL;
        int r = blockdev_scheduler(root, scheduler_cases[_i].name, &v);

        ck_assert_int_eq(r, scheduler_cases[_i].error);
        if (r == 0)
                ck_assert_str_eq(v, scheduler_cases[_i].scheduler);
}
END_TEST

START_TEST(test_is_partition) {
        ck_assert(blockdev_is_partition(root, "sda2"));
        ck_assert(blockdev_is_partition(root, "sda1"));
        ck_assert(blockdev_is_partition(root, "md1p1"));
        ck_assert(!blockdev_is_partition(root, "sda"));
        ck_assert(!blockdev_is_partition(root, "md1"));
        ck_assert(!blockdev_is_partition(root, "nope"));
        ck_assert(!blockdev_is_partition(root, "../sda/sda2"));
}
END_TEST

/* Lists: NULL-terminated expectations, compared in order (both are sorted). */
static void assert_list(char **got, const char *const *want, const char *what) {
        size_t n = 0;

        for (; want[n]; n++) {
                ck_assert_msg(got[n], "%s: missing %s at %zu", what, want[n], n);
                ck_assert_msg(streq(got[n], want[n]), "%s: %s at %zu, expected %s", what, got[n], n, want[n]);
        }
        ck_assert_msg(!got[n], "%s: unexpected %s at %zu", what, got[n], n);
}

static const struct {
        const char *name, *dir;
        const char *list[4];
        int error;
} list_cases[] = {
        { "md0", "slaves", { "dm-0", "sda1", "sdb" }, 0 },      /* sorted */
        { "sda2", "holders", { "dm-0" }, 0 },
        { "sda1", "holders", { "md0" }, 0 },
        { "sdc", "holders", { "md1" }, 0 },
        { "sda", "holders", {}, 0 },            /* no directory: empty */
        { "nope", "holders", {}, 0 },
        { "../sda", "holders", {}, -EINVAL },
};

START_TEST(test_list) {
        _cleanup_strv_free_ char **l = NULL;
        int r = blockdev_list(root, list_cases[_i].name, list_cases[_i].dir, &l);

        ck_assert_int_eq(r, list_cases[_i].error);
        if (r == 0)
                assert_list(l, list_cases[_i].list, list_cases[_i].name);
}
END_TEST

static const struct {
        const char *name;
        const char *parts[4];
} partitions_cases[] = {
        { "sda", { "sda1", "sda2" } },
        { "vda", { "vda1", "vda2" } },  /* sorted, whatever order they appeared in */
        { "nvme0n1", { "nvme0n1p1" } },
        { "md1", { "md1p1", "md1p2" } },
        { "sda2", {} },                 /* a partition has none */
        { "sdb", {} },
        { "nope", {} },
};

START_TEST(test_partitions) {
        _cleanup_strv_free_ char **l = NULL;

        ck_assert_int_eq(blockdev_partitions(root, partitions_cases[_i].name, &l), 0);
        assert_list(l, partitions_cases[_i].parts, partitions_cases[_i].name);
}
END_TEST

static const struct {
        unsigned maj, min;
        const char *attr;
        uint64_t value;
        int error;
} by_devnum_cases[] = {
        { 8, 0, "diskseq", 7, 0 },
        { 8, 2, "diskseq", 7, 0 },      /* a partition's diskseq is its disk's */
        { 8, 1, "diskseq", 7, 0 },
        { 8, 2, "queue/logical_block_size", 4096, 0 },  /* and so is its logical block size */
        { 8, 2, "size", 400, 0 },       /* but an attribute of its own is its own */
        { 8, 0, "size", 1000, 0 },
        { 8, 16, "diskseq", 0, -ENOENT },       /* a whole disk without it: no fallback */
        { 8, 1, "nonexistent", 0, -ENOENT },    /* neither partition nor disk */
        { 7, 3, "diskseq", 0, -ENOENT },        /* uevent-only entry */
        { 8, 99, "diskseq", 0, -ENOENT },       /* no such device */
        { 0, 42, "diskseq", 0, -ENODEV },       /* anonymous (tmpfs, overlay, btrfs) */
};

START_TEST(test_attr_by_devnum) {
        uint64_t v = 12345;
        int r = blockdev_attr_u64_by_devnum(root, makedev(by_devnum_cases[_i].maj, by_devnum_cases[_i].min),
                                            by_devnum_cases[_i].attr, &v);

        ck_assert_int_eq(r, by_devnum_cases[_i].error);
        ck_assert_uint_eq(v, r == 0 ? by_devnum_cases[_i].value : 12345);
}
END_TEST

static const struct {
        const char *name;
        const char *tree[8];
        const char *holders[4];
        int error;
} tree_cases[] = {
        /* a disk with two partitions and nothing on them */
        { "vda", { "vda", "vda1", "vda2" }, {}, 0 },
        /* partitions first, then holders breadth first: md0 on sda1, dm-0 on sda2, md0 on dm-0 */
        { "sda", { "sda", "sda1", "sda2", "md0", "dm-0" }, { "md0", "dm-0" }, 0 },
        /* a partition: no partitions of its own; md0 holds dm-0, not sda2 directly */
        { "sda2", { "sda2", "dm-0", "md0" }, { "dm-0" }, 0 },
        { "nvme0n1", { "nvme0n1", "nvme0n1p1", "dm-0", "md0" }, { "dm-0" }, 0 },
        { "sdb", { "sdb", "md0" }, { "md0" }, 0 },
        { "md0", { "md0" }, {}, 0 },
        /* a stacked device with partitions: md1's partitions and the dm on one of them */
        { "sdc", { "sdc", "md1", "md1p1", "md1p2", "dm-1" }, { "md1" }, 0 },
        { "md1", { "md1", "md1p1", "md1p2", "dm-1" }, { "dm-1" }, 0 },
        /* a holder loop ends: each member once */
        { "cyc0", { "cyc0", "cyc1" }, { "cyc1" }, 0 },
        { "cyc1", { "cyc1", "cyc0" }, { "cyc0" }, 0 },
        /* unknown to sysfs: just itself (the caller has read its dev first) */
        { "nope", { "nope" }, {}, 0 },
        { "../sda", {}, {}, -EINVAL },
        { "", {}, {}, -EINVAL },
};

START_TEST(test_tree) {
        _cleanup_strv_free_ char **tree = NULL, **holders = NULL;
        int r = blockdev_tree(root, tree_cases[_i].name, &tree, &holders);

        ck_assert_int_eq(r, tree_cases[_i].error);
        if (r < 0) {
                ck_assert_ptr_null(tree);
                ck_assert_ptr_null(holders);
                return;
        }
        assert_list(tree, tree_cases[_i].tree, tree_cases[_i].name);
        assert_list(holders, tree_cases[_i].holders, tree_cases[_i].name);
}
END_TEST

START_TEST(test_tree_without_holders_out) {
        _cleanup_strv_free_ char **tree = NULL;

        ck_assert_int_eq(blockdev_tree(root, "sda2", &tree, NULL), 0);
        assert_list(tree, (const char *const[]) { "sda2", "dm-0", "md0", NULL }, "sda2");
}
END_TEST

/* A chain c0 <- c1 <- ... longer than BLOCKDEV_TREE_MAX, in a tree of its own. */
static void chain_setup(void) {
        char name[32], devpath[64], majmin[32], holder[32], holder_devpath[64];
        const unsigned n = BLOCKDEV_TREE_MAX + 8;

        ck_assert_ptr_nonnull(mkdtemp(root));
        mkdir_p("class/block");
        mkdir_p("dev/block");
        for (unsigned i = 0; i < n; i++) {
                snprintf(name, sizeof(name), "c%u", i);
                snprintf(devpath, sizeof(devpath), "virtual/block/c%u", i);
                snprintf(majmin, sizeof(majmin), "251:%u", i);
                add_dev(devpath, name, majmin, false);
        }
        for (unsigned i = 0; i + 1 < n; i++) {
                snprintf(devpath, sizeof(devpath), "virtual/block/c%u", i);
                snprintf(holder, sizeof(holder), "c%u", i + 1);
                snprintf(holder_devpath, sizeof(holder_devpath), "virtual/block/c%u", i + 1);
                add_holder(devpath, holder, holder_devpath);
        }
}

/* The holders of the first BLOCKDEV_TREE_MAX members are followed, so the last one found is
 * c<BLOCKDEV_TREE_MAX>. */
START_TEST(test_tree_bounded) {
        _cleanup_strv_free_ char **tree = NULL, **holders = NULL;
        char name[32];

        ck_assert_int_eq(blockdev_tree(root, "c0", &tree, &holders), 0);
        ck_assert_uint_eq(strv_length(tree), BLOCKDEV_TREE_MAX + 1);
        for (unsigned i = 0; i <= BLOCKDEV_TREE_MAX; i++) {
                snprintf(name, sizeof(name), "c%u", i);
                ck_assert_str_eq(tree[i], name);
        }
        snprintf(name, sizeof(name), "c%u", BLOCKDEV_TREE_MAX + 1);
        ck_assert(!strv_contains(tree, name));
        assert_list(holders, (const char *const[]) { "c1", NULL }, "c0");
}
END_TEST

/* The real /sys, with a loop device on an image of our own. */
START_TEST(test_real_sys_loop) {
        char img[PATH_MAX], cmd[PATH_MAX + 64], dev[64] = "";
        int fd;

        snprintf(img, sizeof(img), "%s/test-blockdev-img-XXXXXX", check_tmpdir());
        fd = mkstemp(img);
        ck_assert_int_ge(fd, 0);
        ck_assert_int_eq(ftruncate(fd, 8 << 20), 0);
        close(fd);

        snprintf(cmd, sizeof(cmd), "losetup -f --show '%s'", img);
        FILE *p = popen(cmd, "r");
        ck_assert_ptr_nonnull(p);
        if (!fgets(dev, sizeof(dev), p))
                dev[0] = 0;
        pclose(p);
        dev[strcspn(dev, "\n")] = 0;
        if (!*dev) {
                unlink(img);
                /* check_missing_loop() found the control device: losetup had to work. */
                ck_abort_msg("losetup -f --show %s gave no device", img);
        }

        struct stat st;
        _cleanup_free_ char *name = NULL, *disk = NULL;
        _cleanup_strv_free_ char **leaves = NULL, **tree = NULL, **holders = NULL;
        BlockStat bs;
        dev_t devnum = 0;
        uint64_t size = 0, ro = 2;
        int r1 = stat(dev, &st);
        int r2 = r1 == 0 ? blockdev_name_from_devnum(NULL, st.st_rdev, &name) : -1;
        int r3 = r2 == 0 ? blockdev_whole_disk(NULL, name, &disk) : -1;
        int r4 = r3 == 0 ? blockdev_leaves(NULL, name, &leaves) : -1;
        int r5 = r2 == 0 ? blockdev_read_stat(NULL, name, &bs) : -1;
        int r6 = r2 == 0 ? blockdev_devnum(NULL, name, &devnum) : -1;
        int r7 = r2 == 0 ? blockdev_tree(NULL, name, &tree, &holders) : -1;
        int r8 = r1 == 0 ? blockdev_attr_u64_by_devnum(NULL, st.st_rdev, "size", &size) : -1;
        int r9 = r2 == 0 ? blockdev_read_u64(NULL, name, "ro", &ro) : -1;
        bool part = r2 == 0 && blockdev_is_partition(NULL, name);

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
        ck_assert_int_eq(r6, 0);
        ck_assert_uint_eq(devnum, st.st_rdev);
        ck_assert_int_eq(r7, 0);
        ck_assert_str_eq(tree[0], name);        /* nothing on a fresh loop device */
        ck_assert_ptr_null(tree[1]);
        ck_assert_ptr_null(holders[0]);
        ck_assert_int_eq(r8, 0);
        ck_assert_uint_eq(size, (8 << 20) / 512);
        ck_assert_int_eq(r9, 0);
        ck_assert_uint_eq(ro, 0);
        ck_assert(!part);
}
END_TEST

/* The real /sys case needs a loop device of our own: it is test-blockdev-root (--root), skipped
 * with the reason where the machine has none (check_run_cases()). */
static int blockdev_root_cases(void) {
        TCase *tc = tcase_create("real");

        tcase_add_test(tc, test_real_sys_loop);
        return check_run_cases("blockdev-root", (const CheckCase[]) { { "real", tc, check_missing_loop } }, 1);
}

static Suite *blockdev_suite(void) {
        Suite *s = suite_create("blockdev");
        TCase *tc;

        tc = tcase_create("recorded");

        /* Built once in the parent and removed there, also when a case fails (a failed case's
         * process ends before a checked teardown would run). The cases only read it. */
        tcase_add_unchecked_fixture(tc, tree_setup, tree_teardown);
        tcase_add_loop_test(tc, test_name_from_devnum, 0, ELEMENTSOF(devnum_cases));
        tcase_add_loop_test(tc, test_whole_disk, 0, ELEMENTSOF(whole_cases));
        tcase_add_loop_test(tc, test_leaves, 0, ELEMENTSOF(leaves_cases));
        tcase_add_test(tc, test_read_stat);
        tcase_add_loop_test(tc, test_read, 0, ELEMENTSOF(read_cases));
        tcase_add_loop_test(tc, test_read_u64, 0, ELEMENTSOF(u64_cases));
        tcase_add_loop_test(tc, test_devnum, 0, ELEMENTSOF(name_devnum_cases));
        tcase_add_loop_test(tc, test_scheduler, 0, ELEMENTSOF(scheduler_cases));
        tcase_add_test(tc, test_is_partition);
        tcase_add_loop_test(tc, test_list, 0, ELEMENTSOF(list_cases));
        tcase_add_loop_test(tc, test_partitions, 0, ELEMENTSOF(partitions_cases));
        tcase_add_loop_test(tc, test_attr_by_devnum, 0, ELEMENTSOF(by_devnum_cases));
        tcase_add_loop_test(tc, test_tree, 0, ELEMENTSOF(tree_cases));
        tcase_add_test(tc, test_tree_without_holders_out);
        suite_add_tcase(s, tc);

        tc = tcase_create("bounded");
        tcase_add_unchecked_fixture(tc, chain_setup, tree_teardown);
        tcase_add_test(tc, test_tree_bounded);
        suite_add_tcase(s, tc);
        return s;
}

int main(int argc, char **argv) {
        if (argc > 1 && strcmp(argv[1], "--root") == 0)
                return blockdev_root_cases();
        return check_run(blockdev_suite());
}
