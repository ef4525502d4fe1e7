/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Logical volumes a killed worker left active (docs/matrices.md "How an LVM entry runs"), LVM's row
 * of leftovers.h. A worker deactivates its volume group when its step ends
 * (daemon/worker/layout-lvm.h); one killed with SIGKILL, or with benchd, cannot. benchd records
 * each group's name, benchd-JOB-ENTRY, in the run's row before the worker creates or activates it
 * (runs.lvm_vg, schema/0023-lvm-layout.sql), and after each LVM step (not the groups of other runs
 * still running), at start-up and when udev reports an md or device-mapper device removes every
 * device-mapper device whose name is the one logical volume of one of the recorded groups:
 * "benchd--JOB--ENTRY-lv" (device-mapper doubles the dashes of the group's name and joins group and
 * volume with one) with a uuid of LVM's ("LVM-..."). Nothing else is touched: the host's volumes,
 * one benchd has no record of, one of another name. The removal is device-mapper's DM_DEV_REMOVE,
 * what `dmsetup remove` and `lvchange -an` end with: the kernel refuses it (EBUSY) while anything
 * holds the volume open, so a mounted one stays, is reported and is tried again later
 * (leftovers.h). No LVM tool runs here and no metadata is written: what stays on the members is the
 * group's metadata and the physical volume labels (system ID benchd, autoactivation off, so the
 * host's LVM neither shows nor activates it; the next job of the same devices wipes them, as
 * DESIGN.md says which jobs may).
 *
 * The decision reads a sysfs tree under a root ("" for the host's, a directory a test made):
 * ROOT/sys/block/dm-N/dm/name and ROOT/sys/block/dm-N/dm/uuid.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* leftovers.c's row for LVM: whether the device-mapper device under root (ROOT/sys/block/DM) is the
 * volume of one of names: 1 and ret_name (the group, "benchd-4-1"), 0 when not. */
int lvm_leftover_is_ours(const char *root, const char *dm, char *const *names, char ret_name[static 33]);
/* Removes it (DM_DEV_REMOVE on ROOT/dev/mapper/control, by its device number), once. 0, or -errno
 * (-EBUSY while it is open). */
int lvm_leftover_remove(const char *root, const char *dm);
