/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Block device facts from sysfs (blockdev.h). Everything goes through two entry points of the
 * sysfs layout, so that a test can record a small tree under a temporary directory:
 *   <root>/dev/block/MAJ:MIN    -> symlink to the device directory (or a directory with "uevent")
 *   <root>/class/block/<name>/  -> the device directory: "partition", "slaves/", "stat"
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

int blockdev_name_from_devnum(const char *sysfs_root, dev_t dev, char **ret) {
        _cleanup_free_ char *path = NULL;
        char target[PATH_MAX];

        if (major(dev) == 0)
                return -ENOENT; /* anonymous devices (tmpfs, overlay, btrfs subvolumes) */

        if (asprintf(&path, "%s/dev/block/%u:%u", root_or_default(sysfs_root), major(dev), minor(dev)) < 0)
                return -ENOMEM;

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

static bool strv_contains(char **l, size_t n, const char *s) {
        for (size_t i = 0; i < n; i++)
                if (streq(l[i], s))
                        return true;
        return false;
}

static int leaves_collect(const char *sysfs_root, const char *name, unsigned depth, char ***list, size_t *n) {
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
                        r = leaves_collect(sysfs_root, de->d_name, depth + 1, list, n);
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
        if (strv_contains(*list, *n, disk))
                return 0;
        if (*n >= BLOCKDEV_LEAVES_MAX)
                return -E2BIG;

        char **l = realloc(*list, (*n + 2) * sizeof(char *));
        if (!l)
                return -ENOMEM;
        *list = l;
        l[(*n)++] = TAKE_PTR(disk);
        l[*n] = NULL;
        return 0;
}

int blockdev_leaves(const char *sysfs_root, const char *name, char ***ret) {
        _cleanup_strv_free_ char **list = NULL;
        size_t n = 0;
        int r;

        list = calloc(1, sizeof(char *));
        if (!list)
                return -ENOMEM;
        r = leaves_collect(sysfs_root, name, 0, &list, &n);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(list);
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
