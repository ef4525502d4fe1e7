/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Logical volumes a killed worker left active (lvm-leftovers.h): sysfs read, and DM_DEV_REMOVE on
 * /dev/mapper/control for each found; done where benchd starts and where a worker of an LVM step
 * has ended, both rare.
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
#include "store/db.h"
#include "shared/proto.h"
#include "shared/log.h"
#include "shared/strv.h"
#include "shared/util.h"

static void closedirp(DIR **d) {
        if (*d)
                closedir(*d);
}

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
static int dm_device_is_ours(const char *root, const char *dm, char *const *names, char ret_name[static 33]) {
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

/* How long dm_remove() keeps trying a volume that is open: udev's blkid probe after the volume
 * changed holds it for a moment. */
#define DM_REMOVE_BUSY_TRIES 50
#define DM_REMOVE_BUSY_PAUSE_USEC 100000

static int dm_remove(const char *root, const char *dm) {
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
        for (unsigned i = 0;; i++) {
                struct dm_ioctl io = {
                        .version = { DM_VERSION_MAJOR, 0, 0 },
                        .data_size = sizeof(struct dm_ioctl),
                        .data_start = sizeof(struct dm_ioctl),
                        .dev = ((uint64_t) major << 8) | (minor & 0xff) | ((uint64_t) (minor & ~0xffu) << 12),
                };

                if (ioctl(fd, DM_DEV_REMOVE, &io) >= 0)
                        return 0;
                if (errno != EBUSY || i + 1 >= DM_REMOVE_BUSY_TRIES)
                        return -errno;
                (void) usleep(DM_REMOVE_BUSY_PAUSE_USEC);
        }
}

int lvm_leftovers_remove(const char *root, char *const *names, bool dry, LvmLeftover **ret, size_t *ret_n) {
        _cleanup_(closedirp) DIR *d = NULL;
        _cleanup_free_ LvmLeftover *list = NULL;
        char path[PATH_MAX];
        struct dirent *de;
        size_t n = 0;

        snprintf(path, sizeof(path), "%s/sys/block", root);
        d = opendir(path);
        if (!d)
                return -errno;
        while ((de = readdir(d))) {
                LvmLeftover l = {};
                LvmLeftover *grown;

                if (strncmp(de->d_name, "dm-", 3) != 0 || strlen(de->d_name) >= sizeof(l.device))
                        continue;
                if (dm_device_is_ours(root, de->d_name, names, l.name) <= 0)
                        continue;
                snprintf(l.device, sizeof(l.device), "%s", de->d_name);
                if (!dry)
                        l.remove_error = dm_remove(root, de->d_name);
                grown = realloc(list, (n + 1) * sizeof(LvmLeftover));
                if (!grown)
                        return -ENOMEM;
                list = grown;
                list[n++] = l;
        }
        *ret = TAKE_PTR(list);
        *ret_n = n;
        return 0;
}

int lvm_leftovers_clean(Db *db, const char *when, uint64_t own_run) {
        _cleanup_strv_free_ char **names = NULL;
        _cleanup_free_ LvmLeftover *list = NULL;
        size_t n = 0;
        int r, removed = 0;

        r = db_lvm_vgs_recorded(db, own_run, &names);
        if (r < 0)
                return log_warning_errno(r, "cannot read the volume groups benchd recorded (%s) %s: logical volumes "
                                         "a killed worker left stay active", db_last_error(db), when);
        if (!names[0])
                return 0;
        r = lvm_leftovers_remove("", names, false, &list, &n);
        if (r == -ENOENT)
                return 0;
        if (r < 0)
                return log_warning_errno(r, "cannot look for logical volumes a killed worker left %s: %m", when);
        for (size_t i = 0; i < n; i++) {
                if (list[i].remove_error == 0) {
                        log_notice("logical volume %s/lv (/dev/%s) was left active by a killed worker; deactivated "
                                   "it %s", list[i].name, list[i].device, when);
                        removed++;
                } else
                        log_warning_errno(list[i].remove_error, "logical volume %s/lv (/dev/%s) was left active by a "
                                          "killed worker and cannot be deactivated %s: %m%s", list[i].name,
                                          list[i].device, when, list[i].remove_error == -EBUSY ? " (it stayed open "
                                          "for 5 s; benchd tries again after the next LVM step and at start-up)" : "");
        }
        return removed;
}
