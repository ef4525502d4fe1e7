/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The device inventory (issue 4): every block device udev knows, exported as
 * /org/benchd/Benchd1/device/<escaped name> objects, following udev and mount changes on the
 * daemon's event loop; target resolution for runs; the write-safety verdict for destructive jobs.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <systemd/sd-bus.h>
#include <systemd/sd-event.h>

typedef struct Db Db;
typedef struct DeviceManager DeviceManager;

/* conf_path: benchd.conf (ScratchDevices=); a missing file is fine. Registers the object tree under
 * /org/benchd/Benchd1/device on bus. Without udevd it still enumerates, and logs that hot-plug is
 * not followed. */
int device_manager_new(sd_bus *bus, sd_event *event, Db *db, const char *conf_path,
                       DeviceManager **ret);
DeviceManager *device_manager_free(DeviceManager *m);

/* 0 when a destructive (writing) job may run on the block device dev (st_rdev), with whether it is
 * marked scratch in *ret_scratch (may be NULL); -EPERM with the verdict's reason in *ret_reason
 * (mounted, swap, held by dm/md, signature, read-only, ...). Gathers fresh facts every time: it is
 * called at SubmitJob and again at every step start. own_fs_type/own_fs_uuid (both or neither):
 * a filesystem of exactly this type and UUID, and nothing else, does not count as a signature: the
 * one an earlier step of the same matrix entry made (its later steps mount it again). */
int device_manager_check_destructive(DeviceManager *m, dev_t dev, const char *own_fs_type, const char *own_fs_uuid,
                                    char **ret_reason, bool *ret_scratch);

/* What a run records about where it ran. */
typedef struct TargetInfo {
        int64_t device_id;       /* devices.id of the physical device, -1 when unknown */
        char *device_name;       /* kernel name of the device under the target (e.g. "loop0") */
        char *fs_type;           /* NULL for a raw device */
        char *mount_point;
        char *mount_options;
        char *environment_json;  /* host, kernel, cpu, scheduler, stack, benchd version */
} TargetInfo;

int device_manager_resolve_target(DeviceManager *m, const char *target, TargetInfo *ret);
void target_info_clear(TargetInfo *t);
