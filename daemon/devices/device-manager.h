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

/* A whole device (not a partition) whose udev record carries BENCHD_AUTORUN=PROFILE was seen:
 * added, changed, or found by an enumeration (at start-up: it may have appeared while benchd was
 * not running). Told before the sighting is recorded in the devices table, so known and
 * known_firmware say what the table held before. Strings are valid during the call only. */
typedef struct DeviceAppearance {
        bool first;                     /* not in the inventory before: a loop device's attach is a
                                         * "change", a disk seen at start-up an "enumerate" */
        const char *name;               /* kernel name, "sdb" */
        const char *node;               /* "/dev/sdb" */
        const char *identity;           /* devices.identity */
        bool stable;                    /* it has a WWN or a serial: identity does not change with its
                                         * size or name */
        const char *model;              /* NULL: none reported */
        const char *firmware;           /* NULL: none reported */
        const char *autorun;            /* the BENCHD_AUTORUN value: a profile name, unchecked */
        bool scratch;                   /* BENCHD_SCRATCH=1 or ScratchDevices= */
        bool known;                     /* the devices table had the identity */
        const char *known_firmware;     /* its firmware there (NULL: none recorded, or not known) */
} DeviceAppearance;

/* What the inventory tells its owner; all may be NULL. */
typedef struct DeviceCallbacks {
        void (*appeared)(const DeviceAppearance *a, void *userdata);
        /* udev added or changed an md or device-mapper device (once a wake-up, after its events
         * are taken in). */
        void (*layout_reported)(void *userdata);
        void *userdata;
} DeviceCallbacks;

/* conf_path: benchd.conf (ScratchDevices=); a missing file is fine. Registers the object tree under
 * /org/benchd/Benchd1/device on bus. Without udevd it still enumerates, and logs that hot-plug is
 * not followed. callbacks (may be NULL) is copied; its appeared() is first called from here, for
 * the devices the enumeration finds. */
int device_manager_new(sd_bus *bus, sd_event *event, Db *db, const char *conf_path,
                       const DeviceCallbacks *callbacks, DeviceManager **ret);
DeviceManager *device_manager_free(DeviceManager *m);

/* 0 when a destructive (writing) job may run on the block device dev (st_rdev), with whether it is
 * marked scratch in *ret_scratch (may be NULL); -EPERM with the verdict's reason in *ret_reason
 * (mounted, swap, held by dm/md, signature, read-only, ...). Gathers fresh facts every time (the
 * device's identity for ScratchDevices=, its holders and mounts, a libblkid probe): it is called at
 * SubmitJob and again at every step start, in a helper process. own_fs_type/own_fs_uuid (both or neither):
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
