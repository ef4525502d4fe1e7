/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Logical volumes a killed worker left active (docs/matrices.md "How an LVM entry runs"). A worker
 * deactivates its volume group when its step ends (daemon/worker/layout-lvm.h); one killed with
 * SIGKILL, or with benchd, cannot. benchd records each group's name, benchd-JOB-ENTRY, in the run's
 * row before the worker creates or activates it (runs.lvm_vg, schema/0023-lvm-layout.sql), and
 * after each LVM step and at start-up removes every device-mapper device whose name is the one
 * logical volume of one of the recorded groups: "benchd--JOB--ENTRY-lv" (device-mapper doubles the
 * dashes of the group's name and joins group and volume with one) with a uuid of LVM's
 * ("LVM-..."). Nothing else is touched: the host's volumes, one benchd has no record of, one of
 * another name. The removal is device-mapper's DM_DEV_REMOVE, what `dmsetup remove` and
 * `lvchange -an` end with: the kernel refuses it (EBUSY) while anything holds the volume open, so
 * a mounted one stays and is reported. No LVM tool runs here and no metadata is written: what
 * stays on the members is the group's metadata and the physical volume labels (system ID benchd,
 * autoactivation off, so the host's LVM neither shows nor activates it; the next job of the same
 * devices wipes them, as DESIGN.md says which jobs may).
 *
 * The decision reads a sysfs tree under a root ("" for the host's, a directory a test made):
 * ROOT/sys/block/dm-N/dm/name and ROOT/sys/block/dm-N/dm/uuid.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct LvmLeftover {
        char device[32];        /* "dm-3" */
        char name[33];          /* the group, "benchd-4-1" */
        int remove_error;       /* 0: removed; else -errno of the removal */
} LvmLeftover;

/* Finds the device-mapper devices under root that are the volume of one of names and, unless dry,
 * removes each; *ret lists them, *ret_n how many. 0, or -errno when root's /sys/block cannot be
 * read (-ENOENT: nothing to do). */
int lvm_leftovers_remove(const char *root, char *const *names, bool dry, LvmLeftover **ret, size_t *ret_n);

typedef struct Db Db;

/* The names db recorded, then lvm_leftovers_remove() on the host, each volume removed or not
 * logged (when: "at start-up", "after job 4's step 2"). With own_run (after a step: its run), not
 * the groups of other runs still running: another job's worker may have its volume active and not
 * yet mounted. The number removed, or -errno. */
int lvm_leftovers_clean(Db *db, const char *when, uint64_t own_run);
