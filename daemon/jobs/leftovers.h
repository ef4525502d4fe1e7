/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What a killed worker left of a layout on the host: an md array assembled (md-leftovers.h), a
 * logical volume active (lvm-leftovers.h). A worker releases its layout when its step ends; one
 * killed with SIGKILL, or with benchd, cannot. benchd records the layout's name, benchd-JOB-ENTRY,
 * in the run's row before the worker creates it (runs.md_array, runs.lvm_vg), and looks for what
 * carries one of the recorded names when a step's worker has ended, at start-up and when udev
 * reports an md or device-mapper device.
 *
 * What is common to the layouts is here: the names from the store, the walk of ROOT/sys/block over
 * the devices of the layout's kind, the release of each one found, and the log. What is each
 * layout's own is a row of a table (leftovers.c): the store's column, the kernel names it looks at
 * ("md", "dm-"), how a device is known for one of the recorded names and how it is released (STOP_ARRAY
 * through sysfs; DM_DEV_REMOVE), and the words of the log. A layout added is a row added.
 *
 * A device that is open (EBUSY: mounted in a namespace still alive, udev's probe of it) is never
 * waited for in the daemon: it is tried again at udev's next report of an md or device-mapper
 * device, when the next step of the layout has ended and at the next start-up, and, given the event
 * loop, on a timer for some 6 s (the last processes of a killed worker's namespace, which hold its
 * mount, die just after benchd learns of the worker's end, and no udev event says when).
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <systemd/sd-event.h>

typedef enum LeftoverLayout {
        LEFTOVER_LVM,           /* first: a volume over md-raid1+lvm holds the array under it */
        LEFTOVER_MD,
        _LEFTOVER_LAYOUT_MAX,
} LeftoverLayout;

typedef struct Leftover {
        char device[32];        /* the kernel name, "md127", "dm-3" */
        char name[33];          /* the recorded name it carries, "benchd-4-1" */
        int error;              /* 0: released (or dry); else -errno of the release */
} Leftover;

/* Finds the devices of the layout under root ("" for the host's; a directory a test made) that
 * carry one of names and, unless dry, releases each; *ret lists them (each with its release's
 * outcome), *ret_n how many. 0, or -errno when root's /sys/block cannot be read (-ENOENT: no block
 * devices in sysfs, nothing to do). */
int leftovers_find(LeftoverLayout layout, const char *root, char *const *names, bool dry, Leftover **ret,
                   size_t *ret_n);

typedef struct Db Db;

/* The names db recorded for the layout, then leftovers_find() under root, each device released or
 * not logged (when: "at start-up", "after job 4's step 2"). With idle, not the names of runs still
 * running, whose workers may be using them with nothing holding them open, but own_run's (after a
 * step: its run; 0 for none). The number released, or -errno. */
int leftovers_clean_at(Db *db, LeftoverLayout layout, const char *root, const char *when, bool idle,
                       uint64_t own_run);
/* The same on the host; with e, what was open is tried again on a timer of e (50 ms later,
 * doubling, 7 times; leftovers_retry_soon()). */
int leftovers_clean(Db *db, sd_event *e, LeftoverLayout layout, const char *when, bool idle, uint64_t own_run);
/* Every layout, in the table's order (volumes before the arrays under them). The number released. */
int leftovers_clean_all(Db *db, sd_event *e, const char *when, bool idle, uint64_t own_run);
/* Arms that retry (nothing without e): every layout's cleaning, idle (whatever the call that found
 * something open said: a job may have started since) but for own_run, and the partitions
 * part-leftovers.h keeps pending, until nothing is open or the tries are spent. */
void leftovers_retry_soon(sd_event *e, Db *db, uint64_t own_run);
