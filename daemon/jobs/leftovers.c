/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Layouts a killed worker left (leftovers.h): a read of the store, a walk of /sys/block and a
 * release per device found; done where benchd starts, where a worker of a layout's step has ended
 * and when udev reports an md or device-mapper device, all rare. Nothing here waits.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobs/leftovers.h"
#include "jobs/lvm-leftovers.h"
#include "jobs/md-leftovers.h"
#include "store/db.h"
#include "shared/log.h"
#include "shared/strv.h"
#include "shared/util.h"

typedef struct LeftoverTable {
        /* The names the runs recorded (db.h). */
        int (*recorded)(Db *db, bool idle, uint64_t own_run, char ***ret);
        /* The kernel names of the layout's devices in /sys/block. */
        const char *prefix;
        /* 1 and ret_name when the device carries one of names, 0 when not (leftovers_find()). */
        int (*is_ours)(const char *root, const char *device, char *const *names, char ret_name[static 33]);
        /* 0, or -errno (-EBUSY: open). */
        int (*release)(const char *root, const char *device);
        /* The log's words: "<what> <name><suffix> (/dev/<device>) was left <left> by a killed worker;
         * <done> it <when>". */
        const char *what, *suffix, *left, *done, *records;
} LeftoverTable;

static const LeftoverTable tables[_LEFTOVER_LAYOUT_MAX] = {
        [LEFTOVER_LVM] = {
                .recorded = db_lvm_vgs_recorded,
                .prefix = "dm-",
                .is_ours = lvm_leftover_is_ours,
                .release = lvm_leftover_remove,
                .what = "logical volume",
                .suffix = "/lv",
                .left = "active",
                .done = "deactivated",
                .records = "volume groups",
        },
        [LEFTOVER_MD] = {
                .recorded = db_md_arrays_recorded,
                .prefix = "md",
                .is_ours = md_leftover_is_ours,
                .release = md_leftover_stop,
                .what = "md array",
                .suffix = "",
                .left = "assembled",
                .done = "stopped",
                .records = "md arrays",
        },
};

static void closedirp(DIR **d) {
        if (*d)
                closedir(*d);
}

int leftovers_find(LeftoverLayout layout, const char *root, char *const *names, bool dry, Leftover **ret,
                   size_t *ret_n) {
        const LeftoverTable *t;
        _cleanup_(closedirp) DIR *d = NULL;
        _cleanup_free_ Leftover *list = NULL;
        char path[PATH_MAX];
        struct dirent *de;
        size_t n = 0;

        if (layout < 0 || layout >= _LEFTOVER_LAYOUT_MAX || !root || !ret || !ret_n)
                return -EINVAL;
        t = &tables[layout];
        snprintf(path, sizeof(path), "%s/sys/block", root);
        d = opendir(path);
        if (!d)
                return -errno;
        while ((de = readdir(d))) {
                Leftover l = {};
                Leftover *grown;

                if (strncmp(de->d_name, t->prefix, strlen(t->prefix)) != 0 || strlen(de->d_name) >= sizeof(l.device))
                        continue;
                if (t->is_ours(root, de->d_name, names, l.name) <= 0)
                        continue;
                snprintf(l.device, sizeof(l.device), "%s", de->d_name);
                if (!dry)
                        l.error = t->release(root, de->d_name);
                grown = realloc(list, (n + 1) * sizeof(Leftover));
                if (!grown)
                        return -ENOMEM;
                list = grown;
                list[n++] = l;
        }
        *ret = TAKE_PTR(list);
        *ret_n = n;
        return 0;
}

int leftovers_clean_at(Db *db, LeftoverLayout layout, const char *root, const char *when, bool idle,
                       uint64_t own_run) {
        const LeftoverTable *t;
        _cleanup_strv_free_ char **names = NULL;
        _cleanup_free_ Leftover *list = NULL;
        size_t n = 0;
        int r, released = 0;

        if (layout < 0 || layout >= _LEFTOVER_LAYOUT_MAX)
                return -EINVAL;
        t = &tables[layout];
        r = t->recorded(db, idle, own_run, &names);
        if (r < 0)
                return log_warning_errno(r, "cannot read the %s benchd recorded (%s) %s: the %ss a killed worker "
                                         "left stay %s", t->records, db_last_error(db), when, t->what, t->left);
        if (!names[0])
                return 0;
        r = leftovers_find(layout, root, names, false, &list, &n);
        if (r == -ENOENT)
                return 0;
        if (r < 0)
                return log_warning_errno(r, "cannot look for the %ss a killed worker left %s: %m", t->what, when);
        for (size_t i = 0; i < n; i++) {
                if (list[i].error == 0) {
                        log_notice("%s %s%s (/dev/%s) was left %s by a killed worker; %s it %s", t->what, list[i].name,
                                   t->suffix, list[i].device, t->left, t->done, when);
                        released++;
                } else
                        log_warning_errno(list[i].error, "%s %s%s (/dev/%s) was left %s by a killed worker and cannot "
                                          "be %s %s: %m%s", t->what, list[i].name, t->suffix, list[i].device, t->left,
                                          t->done, when, list[i].error == -EBUSY ? " (it is still open; benchd tries "
                                          "again when udev next reports an md or device-mapper device, after the "
                                          "next step of the layout and at start-up)" : "");
        }
        return released;
}

int leftovers_clean(Db *db, LeftoverLayout layout, const char *when, bool idle, uint64_t own_run) {
        return leftovers_clean_at(db, layout, "", when, idle, own_run);
}

int leftovers_clean_all(Db *db, const char *when, bool idle, uint64_t own_run) {
        int released = 0;

        for (LeftoverLayout l = 0; l < _LEFTOVER_LAYOUT_MAX; l++) {
                int r = leftovers_clean(db, l, when, idle, own_run);

                if (r > 0)
                        released += r;
        }
        return released;
}
