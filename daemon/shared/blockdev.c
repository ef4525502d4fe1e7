/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Block device facts from sysfs (blockdev.h). Everything goes through two entry points of the
 * sysfs layout, so that a test can record a small tree under a temporary directory:
 *   <root>/dev/block/MAJ:MIN    -> symlink to the device directory (or a directory with "uevent")
 *   <root>/class/block/<name>/  -> the device directory: "partition", "dev", "slaves/",
 *                                  "holders/", "stat", "queue/", partitions as subdirectories
 * A partition's whole disk is the directory that contains it (as in the kernel's tree), so the
 * name is never guessed from its spelling ("nvme0n1p1").
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "blockdev.h"
#include "strv.h"
#include "util.h"

#define BLOCKDEV_STACK_DEPTH_MAX 16
#define BLOCKDEV_LEAVES_MAX 256

static const char *root_or_default(const char *sysfs_root) {
        return sysfs_root ? sysfs_root : "/sys";
}

static bool name_is_valid(const char *name) {
        return name && *name && !strchr(name, '/') && !streq(name, ".") && !streq(name, "..") &&
               strlen(name) < NAME_MAX;
}

/* Reads a small sysfs file into a NUL-terminated buffer. */
static int read_small_file(const char *path, char *buf, size_t size) {
        _cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return -errno;
        ssize_t n = read(fd, buf, size - 1);
        if (n < 0)
                return -errno;
        buf[n] = 0;
        return (int) n;
}

static int name_from_uevent(const char *dir, char **ret) {
        _cleanup_free_ char *path = NULL;
        char buf[4096];
        int r;

        if (asprintf(&path, "%s/uevent", dir) < 0)
                return -ENOMEM;
        r = read_small_file(path, buf, sizeof(buf));
        if (r < 0)
                return r;
        char *save = NULL;
        for (char *line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
                if (strncmp(line, "DEVNAME=", 8) == 0 && name_is_valid(line + 8)) {
                        char *s = strdup(line + 8);
                        if (!s)
                                return -ENOMEM;
                        *ret = s;
                        return 0;
                }
        return -ENOENT;
}

static int devnum_path(const char *sysfs_root, dev_t dev, char **ret) {
        if (asprintf(ret, "%s/dev/block/%u:%u", root_or_default(sysfs_root), major(dev), minor(dev)) < 0)
                return -ENOMEM;
        return 0;
}

int blockdev_name_from_devnum(const char *sysfs_root, dev_t dev, char **ret) {
        _cleanup_free_ char *path = NULL;
        char target[PATH_MAX];
        int r;

        if (major(dev) == 0)
                return -ENOENT; /* anonymous devices (tmpfs, overlay, btrfs subvolumes) */

        r = devnum_path(sysfs_root, dev, &path);
        if (r < 0)
                return r;

        ssize_t n = readlink(path, target, sizeof(target) - 1);
        if (n < 0) {
                if (errno == EINVAL) /* a plain directory in a recorded tree */
                        return name_from_uevent(path, ret);
                return -errno;
        }
        target[n] = 0;

        const char *base = strrchr(target, '/');
        base = base ? base + 1 : target;
        if (!name_is_valid(base))
                return -ENOENT;

        char *s = strdup(base);
        if (!s)
                return -ENOMEM;
        *ret = s;
        return 0;
}

static int class_path(const char *sysfs_root, const char *name, const char *attr, char **ret) {
        if (!name_is_valid(name))
                return -EINVAL;
        if (asprintf(ret, "%s/class/block/%s%s%s", root_or_default(sysfs_root), name,
                     attr ? "/" : "", attr ? attr : "") < 0)
                return -ENOMEM;
        return 0;
}

int blockdev_whole_disk(const char *sysfs_root, const char *name, char **ret) {
        _cleanup_free_ char *dir = NULL, *part = NULL, *resolved = NULL;
        int r;

        r = class_path(sysfs_root, name, NULL, &dir);
        if (r < 0)
                return r;
        if (access(dir, F_OK) < 0)
                return -errno;
        r = class_path(sysfs_root, name, "partition", &part);
        if (r < 0)
                return r;

        if (access(part, F_OK) < 0) {
                char *s = strdup(name);
                if (!s)
                        return -ENOMEM;
                *ret = s;
                return 0;
        }

        /* A partition's directory sits inside its disk's directory. */
        resolved = realpath(dir, NULL);
        if (!resolved)
                return -errno;
        char *slash = strrchr(resolved, '/');
        if (!slash || slash == resolved)
                return -ENOENT;
        *slash = 0;
        slash = strrchr(resolved, '/');
        const char *disk = slash ? slash + 1 : resolved;
        if (!name_is_valid(disk))
                return -ENOENT;

        char *s = strdup(disk);
        if (!s)
                return -ENOMEM;
        *ret = s;
        return 0;
}

static int leaves_collect(const char *sysfs_root, const char *name, unsigned depth, char ***list) {
        _cleanup_free_ char *slaves = NULL;
        int r;

        if (depth > BLOCKDEV_STACK_DEPTH_MAX)
                return -ELOOP;

        r = class_path(sysfs_root, name, "slaves", &slaves);
        if (r < 0)
                return r;

        DIR *d = opendir(slaves);
        bool any = false;
        if (d) {
                struct dirent *de;
                while ((de = readdir(d))) {
                        if (de->d_name[0] == '.')
                                continue;
                        any = true;
                        r = leaves_collect(sysfs_root, de->d_name, depth + 1, list);
                        if (r < 0) {
                                closedir(d);
                                return r;
                        }
                }
                closedir(d);
        }
        if (any)
                return 0;

        /* A leaf: map a partition to its disk, add once. */
        _cleanup_free_ char *disk = NULL;
        r = blockdev_whole_disk(sysfs_root, name, &disk);
        if (r < 0)
                return r;
        if (strv_contains(*list, disk))
                return 0;
        if (strv_length(*list) >= BLOCKDEV_LEAVES_MAX)
                return -E2BIG;
        return strv_push(list, disk);
}

int blockdev_leaves(const char *sysfs_root, const char *name, char ***ret) {
        _cleanup_strv_free_ char **list = NULL;
        int r;

        r = strv_new_empty(&list);
        if (r < 0)
                return r;
        r = leaves_collect(sysfs_root, name, 0, &list);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(list);
        return 0;
}

/* A sysfs attribute as text, trailing newlines and blanks stripped. */
static int read_attr_file(const char *path, char **ret) {
        char buf[4096];
        size_t n;
        int r;

        r = read_small_file(path, buf, sizeof(buf));
        if (r < 0)
                return r;
        n = (size_t) r;
        while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
                buf[--n] = 0;
        char *s = strdup(buf);
        if (!s)
                return -ENOMEM;
        *ret = s;
        return 0;
}

static int read_u64_file(const char *path, uint64_t *ret) {
        _cleanup_free_ char *s = NULL;
        char *end;
        int r;

        r = read_attr_file(path, &s);
        if (r < 0)
                return r;
        errno = 0;
        unsigned long long v = strtoull(s, &end, 10);
        if (errno != 0 || end == s || *end != 0)
                return -EINVAL;
        *ret = v;
        return 0;
}

int blockdev_read(const char *sysfs_root, const char *name, const char *attr, char **ret) {
        _cleanup_free_ char *path = NULL;
        int r;

        r = class_path(sysfs_root, name, attr, &path);
        if (r < 0)
                return r;
        return read_attr_file(path, ret);
}

int blockdev_read_u64(const char *sysfs_root, const char *name, const char *attr, uint64_t *ret) {
        _cleanup_free_ char *path = NULL;
        int r;

        r = class_path(sysfs_root, name, attr, &path);
        if (r < 0)
                return r;
        return read_u64_file(path, ret);
}

bool blockdev_is_partition(const char *sysfs_root, const char *name) {
        _cleanup_free_ char *path = NULL;

        if (class_path(sysfs_root, name, "partition", &path) < 0)
                return false;
        return access(path, F_OK) == 0;
}

int blockdev_devnum(const char *sysfs_root, const char *name, dev_t *ret) {
        _cleanup_free_ char *s = NULL;
        unsigned maj, min;
        int r;

        r = blockdev_read(sysfs_root, name, "dev", &s);
        if (r < 0)
                return r;
        if (sscanf(s, "%u:%u", &maj, &min) != 2)
                return -EINVAL;
        *ret = makedev(maj, min);
        return 0;
}

int blockdev_scheduler(const char *sysfs_root, const char *name, char **ret) {
        _cleanup_free_ char *disk = NULL, *s = NULL;
        char *b, *e;
        int r;

        r = blockdev_whole_disk(sysfs_root, name, &disk);
        if (r < 0)
                return r;
        r = blockdev_read(sysfs_root, disk, "queue/scheduler", &s);
        if (r < 0)
                return r;
        b = strchr(s, '[');
        e = b ? strchr(b, ']') : NULL;
        if (b && e) {
                *e = 0;
                memmove(s, b + 1, strlen(b + 1) + 1);
        }
        *ret = TAKE_PTR(s);
        return 0;
}

static void closedirp(DIR **d) {
        if (*d)
                closedir(*d);
}

/* The entries of a directory, sorted; with partitions_only those that have a "partition"
 * attribute. A missing directory is an empty list. */
static int list_dir(const char *path, bool partitions_only, char ***ret) {
        _cleanup_(closedirp) DIR *d = NULL;
        _cleanup_strv_free_ char **l = NULL;
        struct dirent *de;
        int r;

        r = strv_new_empty(&l);
        if (r < 0)
                return r;
        d = opendir(path);
        if (!d) {
                if (errno != ENOENT)
                        return negative_errno();
                *ret = TAKE_PTR(l);
                return 0;
        }
        while ((de = readdir(d))) {
                if (de->d_name[0] == '.')
                        continue;
                if (partitions_only) {
                        char sub[512];
                        snprintf(sub, sizeof(sub), "%s/partition", de->d_name);
                        if (faccessat(dirfd(d), sub, F_OK, 0) < 0)
                                continue;
                }
                r = strv_push(&l, de->d_name);
                if (r < 0)
                        return r;
        }
        strv_sort(l);
        *ret = TAKE_PTR(l);
        return 0;
}

int blockdev_list(const char *sysfs_root, const char *name, const char *dir, char ***ret) {
        _cleanup_free_ char *path = NULL;
        int r;

        if (!dir)
                return -EINVAL;
        r = class_path(sysfs_root, name, dir, &path);
        if (r < 0)
                return r;
        return list_dir(path, false, ret);
}

int blockdev_partitions(const char *sysfs_root, const char *name, char ***ret) {
        _cleanup_free_ char *path = NULL;
        int r;

        r = class_path(sysfs_root, name, NULL, &path);
        if (r < 0)
                return r;
        if (blockdev_is_partition(sysfs_root, name))
                return strv_new_empty(ret);
        return list_dir(path, true, ret);
}

int blockdev_attr_u64_by_devnum(const char *sysfs_root, dev_t dev, const char *attr, uint64_t *ret) {
        _cleanup_free_ char *dir = NULL, *path = NULL, *part = NULL, *real = NULL, *parent = NULL;
        char *slash;
        int r;

        if (major(dev) == 0)
                return -ENODEV;
        r = devnum_path(sysfs_root, dev, &dir);
        if (r < 0)
                return r;
        if (asprintf(&path, "%s/%s", dir, attr) < 0)
                return -ENOMEM;
        if (read_u64_file(path, ret) >= 0)
                return 0;

        real = realpath(dir, NULL);
        if (!real)
                return -errno;
        if (asprintf(&part, "%s/partition", dir) < 0)
                return -ENOMEM;
        if (access(part, F_OK) < 0)
                return -ENOENT;  /* a whole disk without the attribute */
        slash = strrchr(real, '/');
        if (!slash || slash == real)
                return -ENOENT;
        *slash = 0;
        if (asprintf(&parent, "%s/%s", real, attr) < 0)
                return -ENOMEM;
        return read_u64_file(parent, ret);
}

static int push_new(char ***l, const char *s) {
        return strv_contains(*l, s) ? 0 : strv_push(l, s);
}

int blockdev_tree(const char *sysfs_root, const char *name, char ***ret_tree, char ***ret_direct_holders) {
        _cleanup_strv_free_ char **tree = NULL, **direct = NULL, **parts = NULL;
        size_t n_direct;
        int r;

        if (!name_is_valid(name))
                return -EINVAL;
        r = strv_push(&tree, name);
        if (r < 0)
                return r;
        r = blockdev_partitions(sysfs_root, name, &parts);
        if (r < 0)
                return r;
        for (char **p = parts; *p; p++)
                if ((r = strv_push(&tree, *p)) < 0)
                        return r;
        n_direct = 1 + strv_length(parts);      /* the device and its partitions */
        r = strv_new_empty(&direct);
        if (r < 0)
                return r;

        /* Breadth first: the tree grows while we walk it. */
        for (size_t i = 0; i < strv_length(tree) && i < BLOCKDEV_TREE_MAX; i++) {
                _cleanup_strv_free_ char **holders = NULL, **hparts = NULL;

                r = blockdev_list(sysfs_root, tree[i], "holders", &holders);
                if (r < 0)
                        return r;
                for (char **h = holders; *h; h++) {
                        if (i < n_direct && (r = push_new(&direct, *h)) < 0)
                                return r;
                        if ((r = push_new(&tree, *h)) < 0)
                                return r;
                }
                if (i >= n_direct) {
                        /* Partitions of stacked devices (a partitioned md array, multipath). */
                        r = blockdev_partitions(sysfs_root, tree[i], &hparts);
                        if (r < 0)
                                return r;
                        for (char **p = hparts; *p; p++)
                                if ((r = push_new(&tree, *p)) < 0)
                                        return r;
                }
        }
        *ret_tree = TAKE_PTR(tree);
        if (ret_direct_holders)
                *ret_direct_holders = TAKE_PTR(direct);
        return 0;
}

int blockstat_parse(const char *text, BlockStat *ret) {
        uint64_t v[11];
        const char *p = text;

        if (!text)
                return -EINVAL;
        for (size_t i = 0; i < ELEMENTSOF(v); i++) {
                char *end;
                while (*p == ' ' || *p == '\t')
                        p++;
                if (*p < '0' || *p > '9')
                        return -EINVAL;
                errno = 0;
                v[i] = strtoull(p, &end, 10);
                if (errno != 0)
                        return -EINVAL;
                p = end;
        }
        /* Newer kernels append discard and flush fields; we only need the first eleven. */

        *ret = (BlockStat) {
                .read_ios = v[0], .read_merges = v[1], .read_sectors = v[2], .read_ticks_ms = v[3],
                .write_ios = v[4], .write_merges = v[5], .write_sectors = v[6], .write_ticks_ms = v[7],
                .in_flight = v[8], .io_ticks_ms = v[9], .time_in_queue_ms = v[10],
        };
        return 0;
}

int blockdev_read_stat(const char *sysfs_root, const char *name, BlockStat *ret) {
        _cleanup_free_ char *path = NULL;
        char buf[512];
        int r;

        r = class_path(sysfs_root, name, "stat", &path);
        if (r < 0)
                return r;
        r = read_small_file(path, buf, sizeof(buf));
        if (r < 0)
                return r;
        return blockstat_parse(buf, ret);
}

/* Counters are monotonic; a decrease (device re-created) gives 0 rather than a huge delta. */
static uint64_t delta(uint64_t a, uint64_t b) {
        return b >= a ? b - a : 0;
}

double blockstat_util_pct(const BlockStat *a, const BlockStat *b, uint64_t interval_us) {
        if (interval_us == 0)
                return 0;
        double pct = (double) delta(a->io_ticks_ms, b->io_ticks_ms) * 1000.0 * 100.0 / (double) interval_us;
        return pct > 100.0 ? 100.0 : pct;
}

double blockstat_queue(const BlockStat *a, const BlockStat *b, uint64_t interval_us) {
        if (interval_us == 0)
                return 0;
        return (double) delta(a->time_in_queue_ms, b->time_in_queue_ms) * 1000.0 / (double) interval_us;
}
