/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The device manager (issue 4). This first cut only resolves targets (stat, dev_t, kernel name,
 * filesystem and mount options through libmount, matched by dev_t) and refuses every destructive
 * job: the daemon links against the final API while the inventory and the verdict are written.
 */
#include <errno.h>
#include <fcntl.h>
#include <libmount.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "devices/device-manager.h"
#include "shared/util.h"

struct DeviceManager {
        sd_bus *bus;
        sd_event *event;
        Db *db;
        char *conf_path;
};

int device_manager_new(sd_bus *bus, sd_event *event, Db *db, const char *conf_path,
                       DeviceManager **ret) {
        DeviceManager *m = calloc(1, sizeof(*m));
        if (!m)
                return -ENOMEM;
        m->bus = sd_bus_ref(bus);
        m->event = sd_event_ref(event);
        m->db = db;
        if (conf_path) {
                m->conf_path = strdup(conf_path);
                if (!m->conf_path) {
                        device_manager_free(m);
                        return -ENOMEM;
                }
        }
        *ret = m;
        return 0;
}

DeviceManager *device_manager_free(DeviceManager *m) {
        if (!m)
                return NULL;
        sd_bus_unref(m->bus);
        sd_event_unref(m->event);
        free(m->conf_path);
        free(m);
        return NULL;
}

int device_manager_check_destructive(DeviceManager *m, dev_t dev, char **ret_reason) {
        char *reason = NULL;

        if (asprintf(&reason, "device %u:%u: the write-safety verdict is not available yet; "
                     "destructive jobs are refused", major(dev), minor(dev)) < 0)
                return -ENOMEM;
        *ret_reason = reason;
        return -EPERM;
}

static int name_from_devnum(dev_t dev, char **ret) {
        char path[64], buf[4096];
        ssize_t n;

        snprintf(path, sizeof(path), "/sys/dev/block/%u:%u", major(dev), minor(dev));
        n = readlink(path, buf, sizeof(buf) - 1);
        if (n < 0)
                return negative_errno();
        buf[n] = 0;
        char *base = strrchr(buf, '/');
        char *name = strdup(base ? base + 1 : buf);
        if (!name)
                return -ENOMEM;
        *ret = name;
        return 0;
}

static void mnt_free_tablep(struct libmnt_table **t) {
        if (*t)
                mnt_free_table(*t);
}

int device_manager_resolve_target(DeviceManager *m, const char *target, TargetInfo *ret) {
        TargetInfo t = { .device_id = -1 };
        struct stat st;
        dev_t dev;
        int r;

        if (stat(target, &st) < 0)
                return negative_errno();
        dev = S_ISBLK(st.st_mode) ? st.st_rdev : st.st_dev;

        r = name_from_devnum(dev, &t.device_name);
        if (r < 0 && r != -ENOENT)
                goto fail;

        if (!S_ISBLK(st.st_mode)) {
                _cleanup_(mnt_free_tablep) struct libmnt_table *tb = mnt_new_table();
                if (!tb) {
                        r = -ENOMEM;
                        goto fail;
                }
                r = mnt_table_parse_mtab(tb, NULL);
                if (r < 0)
                        goto fail;
                struct libmnt_fs *fs = mnt_table_find_devno(tb, dev, MNT_ITER_BACKWARD);
                if (fs) {
                        const char *s;
                        if ((s = mnt_fs_get_fstype(fs)) && !(t.fs_type = strdup(s)))
                                goto oom;
                        if ((s = mnt_fs_get_target(fs)) && !(t.mount_point = strdup(s)))
                                goto oom;
                        if ((s = mnt_fs_get_options(fs)) && !(t.mount_options = strdup(s)))
                                goto oom;
                }
        }
        t.environment_json = strdup("{}");
        if (!t.environment_json)
                goto oom;
        *ret = t;
        return 0;
oom:
        r = -ENOMEM;
fail:
        target_info_clear(&t);
        return r;
}

void target_info_clear(TargetInfo *t) {
        if (!t)
                return;
        free(t->device_name);
        free(t->fs_type);
        free(t->mount_point);
        free(t->mount_options);
        free(t->environment_json);
        *t = (TargetInfo) { .device_id = -1 };
}
