/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Logical volumes a killed worker left active (lvm-leftovers.h), leftovers.c's row for LVM: sysfs
 * read, and DM_DEV_REMOVE on /dev/mapper/control for each found; done where benchd starts, where a
 * worker of an LVM step has ended and when udev reports an md or device-mapper device, all rare.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/dm-ioctl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "jobs/lvm-leftovers.h"
#include "shared/proto.h"
#include "shared/util.h"

static int read_line(const char *path, char *buf, size_t size) {
        _cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
        ssize_t k;

        if (fd < 0)
                return -errno;
        k = read(fd, buf, size - 1);
        if (k < 0)
                return -errno;
        buf[k] = 0;
        buf[strcspn(buf, "\n")] = 0;
        return 0;
}

/* The recorded group whose volume the device-mapper device is: 1 and ret_name, 0 when none. */
int lvm_leftover_is_ours(const char *root, const char *dm, char *const *names, char ret_name[static 33]) {
        char path[PATH_MAX], name[256], uuid[256];

        snprintf(path, sizeof(path), "%s/sys/block/%s/dm/name", root, dm);
        if (read_line(path, name, sizeof(name)) < 0)
                return 0;
        snprintf(path, sizeof(path), "%s/sys/block/%s/dm/uuid", root, dm);
        if (read_line(path, uuid, sizeof(uuid)) < 0 || strncmp(uuid, "LVM-", 4) != 0)
                return 0;
        for (char *const *n = names; n && *n; n++) {
                char want[256];

                if (!proto_fs_md_name_valid(*n) || proto_fs_lvm_dm_name(*n, want, sizeof(want)) < 0)
                        continue;
                if (streq(name, want)) {
                        snprintf(ret_name, 33, "%s", *n);
                        return 1;
                }
        }
        return 0;
}

int lvm_leftover_remove(const char *root, const char *dm) {
        struct dm_ioctl io = {
                .version = { DM_VERSION_MAJOR, 0, 0 },
                .data_size = sizeof(struct dm_ioctl),
                .data_start = sizeof(struct dm_ioctl),
        };
        _cleanup_close_ int fd = -EBADF;
        char path[PATH_MAX], dev[32];
        unsigned major, minor;

        /* By device number: the name could be another's by now only if the device went. */
        snprintf(path, sizeof(path), "%s/sys/block/%s/dev", root, dm);
        if (read_line(path, dev, sizeof(dev)) < 0 || sscanf(dev, "%u:%u", &major, &minor) != 2)
                return -ENODEV;
        snprintf(path, sizeof(path), "%s/dev/mapper/control", root);
        fd = open(path, O_RDWR | O_CLOEXEC);
        if (fd < 0)
                return -errno;
        io.dev = ((uint64_t) major << 8) | (minor & 0xff) | ((uint64_t) (minor & ~0xffu) << 12);
        /* Once: an open volume (EBUSY) is tried again later, never waited for (leftovers.h). */
        if (ioctl(fd, DM_DEV_REMOVE, &io) < 0)
                return -errno;
        return 0;
}
