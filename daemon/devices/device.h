/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * One block device as exported on the bus (org.benchd.Benchd1.Device, see
 * dbus/org.benchd.Benchd1.Device.xml): identity from udev, sizes and queue from sysfs, filesystem
 * from udev or libblkid, and the dynamic part (mounts, holders, swap, verdict) recomputed when
 * mounts or devices change. Devices are plain values: a change builds a new one and the manager
 * compares old and new to emit PropertiesChanged.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <systemd/sd-bus.h>

struct udev_device;
typedef struct Db Db;
struct DeviceTables;

#define DEVICE_PREFIX "/org/benchd/Benchd1/device"
#define DEVICE_INTERFACE "org.benchd.Benchd1.Device"

typedef struct Device {
        char *name;
        char *path;             /* object path */
        dev_t devnum;
        char *node;
        char *sys_path;
        char **symlinks;
        char *type;             /* disk, partition, loop, md, dm, zram, rom, ... */
        char *volume;           /* md: its RAID level ("raid1"); dm: "lvm VG/LV" for a logical volume,
                                 * else its dm name; NULL for other devices */
        char *vendor, *model, *serial, *wwn, *firmware;
        char *identity;         /* wwn:..., serial:..., model:...:size:name */
        char *bind_identity;    /* what a ScratchDevices= path binds to (device_bind_identity());
                                 * NULL when it cannot be told */
        int64_t db_id;          /* devices.id, -1 when not recorded */
        Db *db;                 /* borrowed, for the history count; may be NULL */
        char *backing_file;     /* loop devices */
        uint64_t size;
        uint32_t logical_block_size, physical_block_size;
        bool rotational, removable, read_only;
        char *scheduler;
        char *fs_type, *fs_uuid, *fs_label, *fs_usage, *partition_table;
        bool udev_scratch;      /* BENCHD_SCRATCH=1 */
        char *autorun;          /* BENCHD_AUTORUN=PROFILE (a udev rule's opt-in), NULL without */
        int probe_error;        /* <0: the libblkid probe failed, the signature is unknown */

        /* Dynamic: recomputed on mount and device changes. */
        char **mount_points;
        char **holders, **slaves;
        bool in_use, swap, scratch;
        char *scratch_reason;   /* which setting marks it scratch, or why a name that names it does
                                 * not (ScratchReason); NULL: nothing names it */
        char *write_verdict;    /* NULL: destructive writes allowed */
} Device;

/* disk, partition, loop, md, dm, zram, rom, nbd; devtype NULL: ask sysfs about partitions. */
const char *device_type_of(const char *name, const char *devtype);

/* Whether d should be exported at all: loop devices without a backing file are not devices yet. */
bool device_udev_is_exported(struct udev_device *d);

/* The static part from udev and sysfs. probe: read fs signatures with libblkid (udev has none). */
int device_new_from_udev(struct udev_device *d, bool probe, Device **ret);
Device *device_free(Device *d);

/* What ScratchDevices= says of a device (devices/scratch.h, judged by the manager). */
typedef struct DeviceScratch {
        bool listed;            /* an entry marks it scratch */
        const char *reason;     /* which one, or why the entry that names it does not; NULL: none does */
        const char *note;       /* for a signature refusal: why a name that names it does not mark it */
} DeviceScratch;

/* The dynamic part. tables: the current mounts and swaps (NULL: read them now); scratch: what
 * ScratchDevices= says of it (NULL: nothing). Appends the names of the properties that changed to
 * *changed if non-NULL. */
int device_update_dynamic(Device *d, const struct DeviceTables *tables, const DeviceScratch *scratch,
                          const char *conf_path, char ***changed);

/* Appends to *changed the property names whose values differ between a and b. */
int device_diff(const Device *a, const Device *b, char ***changed);

/* "wwn:<WWN>", else "serial:<serial>", else "model:<model>:<size>:<name>". */
int device_identity(const Device *d, char **ret);

/* What tells this device from another under the same name, for ScratchDevices= (scratch.h): a
 * loop device's backing file with its inode and device ("loop-file:/srv/a.img (inode 12 on
 * 254:0)", read with LOOP_GET_STATUS64; the path alone for one that detaches at its last close,
 * which opening it could detach), else its identity; a partition's is its disk's followed by
 * " partition N". NULL (and 0) when it cannot be told: a loop device without a backing file. */
int device_bind_identity(const Device *d, char **ret);

extern const sd_bus_vtable device_vtable[];
