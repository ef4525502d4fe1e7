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

#include <systemd/sd-event.h>

#include "jobs/leftovers.h"
#include "jobs/lvm-leftovers.h"
#include "jobs/md-leftovers.h"
#include "jobs/part-leftovers.h"
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

/* A device the kernel refused to release (open): tried again on a timer of the event loop, never
 * waited for, besides udev's next report of an md or device-mapper device. A killed worker's
 * namespace holds its mount until the last process in it has died of its parent's death, just
 * after benchd learns of the worker's end, and no udev event tells when that has happened: 50 ms
 * later, doubling, LEFTOVERS_RETRY_TRIES times (some 6 s in all). */
#define LEFTOVERS_RETRY_TRIES 7u
#define LEFTOVERS_RETRY_FIRST_USEC (50 * USEC_PER_MSEC)

static struct {
        sd_event_source *source;        /* floating (the event loop owns it); cleared when it goes */
        Db *db;
        uint64_t own_run;       /* idle always (a job may have started since), but this run's too */
        unsigned tries;
} retry;

static int clean_layout(Db *db, LeftoverLayout layout, const char *root, const char *when, bool idle,
                        uint64_t own_run, bool again, bool *busy) {
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
                        continue;
                }
                if (list[i].error == -EBUSY)
                        *busy = true;
                log_full_errno(list[i].error == -EBUSY && again ? LOG_INFO : LOG_WARNING, list[i].error,
                               "%s %s%s (/dev/%s) was left %s by a killed worker and cannot be %s %s: %m%s", t->what,
                               list[i].name, t->suffix, list[i].device, t->left, t->done, when,
                               list[i].error != -EBUSY ? "" : again ? " (it is still open; tried again shortly)" :
                               " (it is still open; benchd tries again when udev next reports an md or device-mapper "
                               "device, after the next step of the layout and at start-up)");
        }
        return released;
}

int leftovers_clean_at(Db *db, LeftoverLayout layout, const char *root, const char *when, bool idle,
                       uint64_t own_run) {
        bool busy = false;

        return clean_layout(db, layout, root, when, idle, own_run, false, &busy);
}

static int clean_all(Db *db, const char *when, bool idle, uint64_t own_run, bool again, bool *busy) {
        int released = 0;

        for (LeftoverLayout l = 0; l < _LEFTOVER_LAYOUT_MAX; l++) {
                int r = clean_layout(db, l, "", when, idle, own_run, again, busy);

                if (r > 0)
                        released += r;
        }
        return released;
}

static void retry_arm(sd_event *e, Db *db, uint64_t own_run);

static int on_retry(sd_event_source *s, uint64_t usec, void *userdata) {
        bool busy = false;

        retry.tries++;
        (void) clean_all(retry.db, "once a killed worker's processes were gone", true, retry.own_run,
                         retry.tries < LEFTOVERS_RETRY_TRIES, &busy);
        /* The partitions under them, after them. */
        if (part_leftovers_retry(retry.tries < LEFTOVERS_RETRY_TRIES) > 0)
                busy = true;
        if (busy && retry.tries < LEFTOVERS_RETRY_TRIES)
                retry_arm(sd_event_source_get_event(s), retry.db, retry.own_run);
        else
                retry.tries = 0;
        return 0;
}

static void on_retry_destroy(void *userdata) {
        retry.source = NULL;
}

static void retry_arm(sd_event *e, Db *db, uint64_t own_run) {
        uint64_t after = LEFTOVERS_RETRY_FIRST_USEC << MIN(retry.tries, 16u);
        int r;

        retry.db = db;
        retry.own_run = own_run;
        if (retry.source) {
                r = sd_event_source_set_time_relative(retry.source, after);
                if (r >= 0)
                        r = sd_event_source_set_enabled(retry.source, SD_EVENT_ONESHOT);
        } else {
                r = sd_event_add_time_relative(e, &retry.source, CLOCK_MONOTONIC, after, 0, on_retry, NULL);
                if (r >= 0) {
                        /* The loop owns it, as the supervisor's sweep (supervisor.c). */
                        (void) sd_event_source_set_destroy_callback(retry.source, on_retry_destroy);
                        r = sd_event_source_set_floating(retry.source, true);
                        sd_event_source_unref(retry.source);
                }
        }
        if (r < 0)
                log_warning_errno(r, "cannot arm the retry of what a killed worker left: %m");
}

void leftovers_retry_soon(sd_event *e, Db *db, uint64_t own_run) {
        if (!e)
                return;
        retry.tries = 0;
        retry_arm(e, db, own_run);
}

int leftovers_clean(Db *db, sd_event *e, LeftoverLayout layout, const char *when, bool idle, uint64_t own_run) {
        bool busy = false;
        int r = clean_layout(db, layout, "", when, idle, own_run, e != NULL, &busy);

        if (busy)
                leftovers_retry_soon(e, db, own_run);
        return r;
}

int leftovers_clean_all(Db *db, sd_event *e, const char *when, bool idle, uint64_t own_run) {
        bool busy = false;
        int r = clean_all(db, when, idle, own_run, e != NULL, &busy);

        if (busy)
                leftovers_retry_soon(e, db, own_run);
        return r;
}
