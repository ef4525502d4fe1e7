/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Where a job target lives: the block device under a directory, file or device node (by dev_t,
 * through libmount for files), the physical device at the bottom of its stack, the filesystem and
 * its options; and the run environment recorded with every run (host, kernel, CPU, schedulers,
 * the block stack, the device's firmware, benchd's version) as JSON.
 */
#pragma once

typedef struct TargetLocation {
        char *device_name;      /* kernel name of the block device under the target, NULL if none */
        char *physical_name;    /* the disk under it (single leaf of a dm/md stack), or NULL */
        char *fs_type;          /* NULL for a raw device */
        char *mount_point;
        char *mount_options;
} TargetLocation;

int target_locate(const char *target, TargetLocation *ret);
void target_location_clear(TargetLocation *l);

/* device_name may be NULL (a tmpfs target): the stack and schedulers are then empty. firmware: the
 * physical device's firmware revision (devices.firmware), recorded as "firmware" so that a run
 * says which firmware it ran on (the regression check's segments); NULL or "" for none. */
int target_environment_json(const char *device_name, const char *firmware, char **ret);
