/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A block device as a plain value and its bus vtable (see device.h). Identity comes from udev
 * properties where udevd has recorded them, else from sysfs attributes of the whole disk; fs
 * fields come from udev's blkid run, else from our own read-only probe. The dynamic part goes
 * through device-facts.c and the pure verdict, so the WriteVerdict property and the check
 * SubmitJob makes apply the same rules.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <libudev.h>
#include <linux/loop.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "store/db.h"
#include "devices/device-facts.h"
#include "devices/device.h"
#include "devices/verdict.h"
#include "shared/blockdev.h"
#include "shared/strv.h"
#include "shared/util.h"

static bool startswith(const char *s, const char *prefix) {
        return s && strncmp(s, prefix, strlen(prefix)) == 0;
}

static int strdup_nonempty(const char *s, char **ret) {
        if (!s || !*s) {
                *ret = NULL;
                return 0;
        }
        *ret = strdup(s);
        return *ret ? 0 : -ENOMEM;
}

bool device_udev_is_exported(struct udev_device *d) {
        const char *name = udev_device_get_sysname(d);
        const char *devtype = udev_device_get_devtype(d);
        char *s = NULL;

        if (!name)
                return false;
        if (startswith(name, "loop") && streq_ptr(devtype, "disk")) {
                /* A loop device without a backing file is only a free slot. */
                if (blockdev_read(NULL, name, "loop/backing_file", &s) < 0)
                        return false;
                free(s);
        }
        return true;
}

Device *device_free(Device *d) {
        if (!d)
                return NULL;
        free(d->name);
        free(d->path);
        free(d->node);
        free(d->sys_path);
        strv_free(d->symlinks);
        free(d->type);
        free(d->volume);
        free(d->vendor);
        free(d->model);
        free(d->serial);
        free(d->wwn);
        free(d->firmware);
        free(d->identity);
        free(d->bind_identity);
        free(d->backing_file);
        free(d->autorun);
        free(d->scheduler);
        free(d->fs_type);
        free(d->fs_uuid);
        free(d->fs_label);
        free(d->fs_usage);
        free(d->partition_table);
        strv_free(d->mount_points);
        strv_free(d->holders);
        strv_free(d->slaves);
        free(d->write_verdict);
        free(d->scratch_reason);
        free(d);
        return NULL;
}

DEFINE_TRIVIAL_CLEANUP_FUNC(Device *, device_free);

const char *device_type_of(const char *name, const char *devtype) {
        if (devtype ? streq(devtype, "partition") : blockdev_is_partition(NULL, name))
                return "partition";
        if (startswith(name, "loop"))
                return "loop";
        if (startswith(name, "dm-"))
                return "dm";
        if (startswith(name, "md"))
                return "md";
        if (startswith(name, "zram"))
                return "zram";
        if (startswith(name, "sr"))
                return "rom";
        if (startswith(name, "nbd"))
                return "nbd";
        return "disk";
}

/* What an md or dm device is: udev's MD_LEVEL, or DM_VG_NAME and DM_LV_NAME (LVM), or DM_NAME;
 * sysfs's md/level and dm/name when udev's records may be stale. */
static int device_volume(struct udev_device *u, bool probe, const char *name, const char *type, char **ret) {
        const char *level = NULL, *vg = NULL, *lv = NULL, *dm = NULL;
        _cleanup_free_ char *sys = NULL;

        *ret = NULL;
        if (streq_ptr(type, "md")) {
                level = probe ? NULL : udev_device_get_property_value(u, "MD_LEVEL");
                if (!level && blockdev_read(NULL, name, "md/level", &sys) >= 0)
                        level = sys;
                return level && *level ? strdup_nonempty(level, ret) : 0;
        }
        if (!streq_ptr(type, "dm"))
                return 0;
        if (!probe) {
                vg = udev_device_get_property_value(u, "DM_VG_NAME");
                lv = udev_device_get_property_value(u, "DM_LV_NAME");
                dm = udev_device_get_property_value(u, "DM_NAME");
        }
        if (vg && *vg && lv && *lv)
                return asprintf(ret, "lvm %s/%s", vg, lv) < 0 ? -ENOMEM : 0;
        if (!dm && blockdev_read(NULL, name, "dm/name", &sys) >= 0)
                dm = sys;
        return dm && *dm ? strdup_nonempty(dm, ret) : 0;
}

/* A udev property (unless udev's records may be stale), else the first sysfs attribute of the disk
 * that exists. */
static int identity_field(struct udev_device *u, bool use_udev, const char *prop, const char *disk,
                          const char *const *attrs, char **ret) {
        const char *v = use_udev ? udev_device_get_property_value(u, prop) : NULL;
        int r;

        if (v && *v)
                return strdup_nonempty(v, ret);
        for (; attrs && *attrs; attrs++) {
                char *s = NULL;
                r = blockdev_read(NULL, disk, *attrs, &s);
                if (r == -ENOMEM)
                        return r;
                if (r >= 0 && *s) {
                        *ret = s;
                        return 0;
                }
                free(s);
        }
        *ret = NULL;
        return 0;
}

int device_identity(const Device *d, char **ret) {
        int r;

        if (d->wwn)
                r = asprintf(ret, "wwn:%s", d->wwn);
        else if (d->serial)
                r = asprintf(ret, "serial:%s", d->serial);
        else
                r = asprintf(ret, "model:%s:%" PRIu64 ":%s", d->model ?: "", d->size, d->name);
        return r < 0 ? -ENOMEM : 0;
}

/* The inode and device of a loop device's backing file, as the kernel holds them: a file of the
 * same name made since is another file. */
static int loop_backing_inode(const char *disk, uint64_t *ret_ino, uint64_t *ret_dev) {
        _cleanup_free_ char *node = NULL;
        struct loop_info64 info = {};
        struct stat st;
        dev_t want;
        int fd, r;

        r = blockdev_devnum(NULL, disk, &want);
        if (r < 0)
                return r;
        if (asprintf(&node, "/dev/%s", disk) < 0)
                return -ENOMEM;
        /* Read-only: no change event, no claim; a loop device opens without I/O. */
        fd = open(node, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
        if (fd < 0)
                return -errno;
        if (fstat(fd, &st) < 0)
                r = -errno;
        else if (!S_ISBLK(st.st_mode) || st.st_rdev != want)
                r = -ENODEV;
        else if (ioctl(fd, LOOP_GET_STATUS64, &info) < 0)
                r = -errno;
        close(fd);
        if (r < 0)
                return r;
        *ret_ino = info.lo_inode;
        *ret_dev = info.lo_device;
        return 0;
}

int device_bind_identity(const Device *d, char **ret) {
        _cleanup_free_ char *disk = NULL, *base = NULL, *backing = NULL;
        uint64_t ino = 0, dev = 0, part;
        int r;

        *ret = NULL;
        r = blockdev_whole_disk(NULL, d->name, &disk);
        if (r < 0)
                return r == -ENOMEM ? r : 0;
        if (startswith(disk, "loop")) {
                if (blockdev_read(NULL, disk, "loop/backing_file", &backing) < 0 || !*backing)
                        return 0;       /* a free slot: nothing to tell */
                /* A loop device set up to detach at its last close (losetup --autoclear) would be
                 * detached by our open if nobody else holds it: then its path alone. */
                if (blockdev_read_u64(NULL, disk, "loop/autoclear", &part) >= 0 && part != 0)
                        r = asprintf(&base, "loop-file:%s", backing);
                else {
                        r = loop_backing_inode(disk, &ino, &dev);
                        if (r == -ENOMEM)
                                return r;
                        if (r < 0)
                                return 0;
                        r = asprintf(&base, "loop-file:%s (inode %" PRIu64 " on %u:%u)", backing, ino,
                                     major((dev_t) dev), minor((dev_t) dev));
                }
                if (r < 0) {
                        base = NULL;
                        return -ENOMEM;
                }
        } else if (!d->identity)
                return 0;
        else if (!(base = strdup(d->identity)))
                return -ENOMEM;

        if (!streq(disk, d->name)) {
                if (blockdev_read_u64(NULL, d->name, "partition", &part) < 0)
                        return 0;
                if (asprintf(ret, "%s partition %" PRIu64, base, part) < 0) {
                        *ret = NULL;
                        return -ENOMEM;
                }
                return 0;
        }
        *ret = TAKE_PTR(base);
        return 0;
}

int device_new_from_udev(struct udev_device *u, bool probe, Device **ret) {
        _cleanup_(device_freep) Device *d = NULL;
        _cleanup_free_ char *disk = NULL;
        static const char *const vendor_attrs[] = { "device/vendor", NULL };
        static const char *const model_attrs[] = { "device/model", NULL };
        static const char *const serial_attrs[] = { "serial", "device/serial", NULL };
        static const char *const wwn_attrs[] = { "wwid", "device/wwid", NULL };
        static const char *const fw_attrs[] = { "device/rev", "device/firmware_rev", NULL };
        struct udev_list_entry *e;
        const char *name = udev_device_get_sysname(u);
        const char *devtype = udev_device_get_devtype(u);
        uint64_t v;
        int r;

        if (!name)
                return -EINVAL;
        d = calloc(1, sizeof(*d));
        if (!d)
                return -ENOMEM;
        d->db_id = -1;
        d->devnum = udev_device_get_devnum(u);
        if (!(d->name = strdup(name)))
                return -ENOMEM;
        r = sd_bus_path_encode(DEVICE_PREFIX, name, &d->path);
        if (r < 0)
                return r;
        if ((r = strdup_nonempty(udev_device_get_devnode(u), &d->node)) < 0 ||
            (r = strdup_nonempty(udev_device_get_syspath(u), &d->sys_path)) < 0 ||
            (r = strdup_nonempty(device_type_of(name, devtype), &d->type)) < 0)
                return r;
        if (!d->node && asprintf(&d->node, "/dev/%s", name) < 0)
                return -ENOMEM;
        if (!(d->symlinks = calloc(1, sizeof(char *))))
                return -ENOMEM;
        udev_list_entry_foreach(e, udev_device_get_devlinks_list_entry(u))
                if ((r = strv_push(&d->symlinks, udev_list_entry_get_name(e))) < 0)
                        return r;

        r = blockdev_whole_disk(NULL, name, &disk);
        if (r < 0)
                return r;
        if ((r = identity_field(u, !probe, "ID_VENDOR", disk, vendor_attrs, &d->vendor)) < 0 ||
            (r = identity_field(u, !probe, "ID_MODEL", disk, model_attrs, &d->model)) < 0 ||
            (r = identity_field(u, !probe, "ID_SERIAL_SHORT", disk, serial_attrs, &d->serial)) < 0 ||
            (r = identity_field(u, !probe, "ID_WWN", disk, wwn_attrs, &d->wwn)) < 0 ||
            (r = identity_field(u, !probe, "ID_REVISION", disk, fw_attrs, &d->firmware)) < 0)
                return r;
        if (streq(d->type, "loop"))
                (void) blockdev_read(NULL, name, "loop/backing_file", &d->backing_file);

        if (blockdev_read_u64(NULL, name, "size", &v) >= 0)
                d->size = v * 512;
        if (blockdev_read_u64(NULL, disk, "queue/logical_block_size", &v) >= 0)
                d->logical_block_size = (uint32_t) v;
        if (blockdev_read_u64(NULL, disk, "queue/physical_block_size", &v) >= 0)
                d->physical_block_size = (uint32_t) v;
        if (blockdev_read_u64(NULL, disk, "queue/rotational", &v) >= 0)
                d->rotational = v != 0;
        if (blockdev_read_u64(NULL, disk, "removable", &v) >= 0)
                d->removable = v != 0;
        if (blockdev_read_u64(NULL, name, "ro", &v) >= 0)
                d->read_only = v != 0;
        (void) blockdev_scheduler(NULL, name, &d->scheduler);

        /* When we probe, udev's records are absent or stale (udevd not running): a stale
         * BENCHD_SCRATCH=1 must not unlock writes. */
        d->udev_scratch = !probe && streq_ptr(udev_device_get_property_value(u, "BENCHD_SCRATCH"), "1");
        /* The same for the benchmark a rule asks for when the disk appears: only udevd's own word. */
        if (!probe && (r = strdup_nonempty(udev_device_get_property_value(u, "BENCHD_AUTORUN"), &d->autorun)) < 0)
                return r;

        if (probe) {
                BlkidInfo b = {};
                if (d->size > 0 && (d->probe_error = blkid_probe_node(d->node, &b)) >= 0) {
                        d->fs_type = TAKE_PTR(b.type);
                        d->fs_uuid = TAKE_PTR(b.uuid);
                        d->fs_label = TAKE_PTR(b.label);
                        d->fs_usage = TAKE_PTR(b.usage);
                        d->partition_table = TAKE_PTR(b.pt_type);
                }
                blkid_info_clear(&b);
        } else {
                if ((r = strdup_nonempty(udev_device_get_property_value(u, "ID_FS_TYPE"), &d->fs_type)) < 0 ||
                    (r = strdup_nonempty(udev_device_get_property_value(u, "ID_FS_UUID"), &d->fs_uuid)) < 0 ||
                    (r = strdup_nonempty(udev_device_get_property_value(u, "ID_FS_LABEL"), &d->fs_label)) < 0 ||
                    (r = strdup_nonempty(udev_device_get_property_value(u, "ID_FS_USAGE"), &d->fs_usage)) < 0)
                        return r;
                /* udev copies the disk's table type onto its partitions: only a disk carries one. */
                if (!streq(d->type, "partition") &&
                    (r = strdup_nonempty(udev_device_get_property_value(u, "ID_PART_TABLE_TYPE"),
                                         &d->partition_table)) < 0)
                        return r;
        }

        r = device_volume(u, probe, d->name, d->type, &d->volume);
        if (r < 0)
                return r;

        r = device_identity(d, &d->identity);
        if (r < 0)
                return r;
        r = device_bind_identity(d, &d->bind_identity);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(d);
        return 0;
}

static int push_changed(char ***changed, const char *name) {
        if (!changed || strv_contains(*changed, name))
                return 0;
        return strv_push(changed, name);
}

/* Each sets a dynamic property to its new value (taking a pointer value) and records its name in
 * changed when the value differs; an equal value is left to its owner. */
static int update_str(char **field, char **value, const char *name, char ***changed) {
        if (streq_ptr(*field, *value))
                return 0;
        free(*field);
        *field = TAKE_PTR(*value);
        return push_changed(changed, name);
}

static int update_strv(char ***field, char ***value, const char *name, char ***changed) {
        if (strv_equal(*field, *value))
                return 0;
        strv_free(*field);
        *field = TAKE_PTR(*value);
        return push_changed(changed, name);
}

static int update_bool(bool *field, bool value, const char *name, char ***changed) {
        if (*field == value)
                return 0;
        *field = value;
        return push_changed(changed, name);
}

int device_update_dynamic(Device *d, const DeviceTables *tables, const DeviceScratch *config_scratch,
                          const char *conf_path, char ***changed) {
        _cleanup_strv_free_ char **holders = NULL, **slaves = NULL;
        _cleanup_free_ char *verdict = NULL, *scratch_reason = NULL;
        const DeviceScratch none = {};
        DeviceFacts f = {};
        VerdictFacts vf;
        bool in_use, swap, scratch;
        int r;

        r = device_facts_gather(d->name, tables, false, &f);
        if (r < 0) {
                /* Unknown is not "allowed": say why instead of leaving the verdict empty. */
                _cleanup_free_ char *why = NULL;
                if (asprintf(&why, "%s: cannot read its mounts and holders (%s)", d->name, strerror(-r)) >= 0)
                        (void) update_str(&d->write_verdict, &why, "WriteVerdict", changed);
                return r;
        }
        r = blockdev_list(NULL, d->name, "holders", &holders);
        if (r < 0)
                goto out;
        r = blockdev_list(NULL, d->name, "slaves", &slaves);
        if (r < 0)
                goto out;
        swap = strv_contains(f.swaps, d->name);
        in_use = f.n_mounts > 0 || strv_length(f.swaps) > 0 || strv_length(f.holders) > 0;
        if (!config_scratch)
                config_scratch = &none;
        scratch = d->udev_scratch || config_scratch->listed;
        /* Which setting marks it; the udev rule's word when ScratchDevices= does not. */
        if (!config_scratch->listed && d->udev_scratch)
                scratch_reason = strdup("BENCHD_SCRATCH=1 (udev)");
        else if (config_scratch->reason)
                scratch_reason = strdup(config_scratch->reason);
        if (!scratch_reason && (config_scratch->reason || d->udev_scratch)) {
                r = -ENOMEM;
                goto out;
        }

        device_facts_to_verdict(&f, scratch, conf_path, &vf);
        vf.scratch_note = scratch ? NULL : config_scratch->note;
        vf.sig_type = d->fs_type;
        vf.sig_usage = d->fs_usage;
        vf.sig_uuid = d->fs_uuid;
        vf.pt_type = d->partition_table;
        r = verdict_compute(&vf, &verdict);
        if (r < 0)
                goto out;
        if (r == 0 && d->probe_error < 0 &&
            asprintf(&verdict, "%s: cannot read its signatures (%s); writing is refused",
                     d->name, strerror(-d->probe_error)) < 0) {
                verdict = NULL;
                r = -ENOMEM;
                goto out;
        }

        if ((r = update_strv(&d->mount_points, &f.own_mount_points, "MountPoints", changed)) < 0 ||
            (r = update_strv(&d->holders, &holders, "Holders", changed)) < 0 ||
            (r = update_strv(&d->slaves, &slaves, "Slaves", changed)) < 0 ||
            (r = update_bool(&d->in_use, in_use, "InUse", changed)) < 0 ||
            (r = update_bool(&d->swap, swap, "Swap", changed)) < 0 ||
            (r = update_bool(&d->scratch, scratch, "Scratch", changed)) < 0 ||
            (r = update_str(&d->scratch_reason, &scratch_reason, "ScratchReason", changed)) < 0 ||
            (r = update_bool(&d->read_only, f.read_only, "ReadOnly", changed)) < 0 ||
            (r = update_str(&d->write_verdict, &verdict, "WriteVerdict", changed)) < 0)
                goto out;
        r = 0;
out:
        device_facts_clear(&f);
        return r;
}

/* ---- properties ---- */


static int property_get_string(sd_bus *bus, const char *path, const char *interface,
                               const char *property, sd_bus_message *reply, void *userdata,
                               sd_bus_error *error) {
        const char *s = *(char **) userdata;

        return sd_bus_message_append_basic(reply, 's', s ?: "");
}

static int property_get_strv(sd_bus *bus, const char *path, const char *interface,
                             const char *property, sd_bus_message *reply, void *userdata,
                             sd_bus_error *error) {
        char **l = *(char ***) userdata;
        static char *empty[] = { NULL };

        return sd_bus_message_append_strv(reply, l ?: empty);
}

static int property_get_bool(sd_bus *bus, const char *path, const char *interface,
                             const char *property, sd_bus_message *reply, void *userdata,
                             sd_bus_error *error) {
        int b = *(bool *) userdata;

        return sd_bus_message_append_basic(reply, 'b', &b);
}

static int property_get_u64(sd_bus *bus, const char *path, const char *interface,
                            const char *property, sd_bus_message *reply, void *userdata,
                            sd_bus_error *error) {
        return sd_bus_message_append_basic(reply, 't', userdata);
}

static int property_get_u32(sd_bus *bus, const char *path, const char *interface,
                            const char *property, sd_bus_message *reply, void *userdata,
                            sd_bus_error *error) {
        return sd_bus_message_append_basic(reply, 'u', userdata);
}

static int property_get_history_id(sd_bus *bus, const char *path, const char *interface,
                                   const char *property, sd_bus_message *reply, void *userdata,
                                   sd_bus_error *error) {
        int64_t id = *(int64_t *) userdata;

        return sd_bus_message_append(reply, "x", id);
}

static int property_get_history_runs(sd_bus *bus, const char *path, const char *interface,
                                     const char *property, sd_bus_message *reply, void *userdata,
                                     sd_bus_error *error) {
        Device *d = userdata;
        uint64_t n = 0;

        if (d->db && d->db_id >= 0 && db_device_count_runs(d->db, d->db_id, &n) < 0)
                n = 0;
        return sd_bus_message_append(reply, "t", n);
}

#define STR(n, f)  SD_BUS_PROPERTY(n, "s", property_get_string, offsetof(Device, f), SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE)
#define STRV(n, f) SD_BUS_PROPERTY(n, "as", property_get_strv, offsetof(Device, f), SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE)
#define BOOL(n, f) SD_BUS_PROPERTY(n, "b", property_get_bool, offsetof(Device, f), SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE)

const sd_bus_vtable device_vtable[] = {
        SD_BUS_VTABLE_START(0),
        STR("Name", name),
        STR("Node", node),
        STR("SysPath", sys_path),
        STRV("Symlinks", symlinks),
        STR("Type", type),
        STR("Volume", volume),
        STR("Vendor", vendor),
        STR("Model", model),
        STR("Serial", serial),
        STR("WWN", wwn),
        STR("Firmware", firmware),
        STR("Identity", identity),
        SD_BUS_PROPERTY("HistoryId", "x", property_get_history_id, offsetof(Device, db_id),
                        SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("HistoryRuns", "t", property_get_history_runs, 0, 0),
        STR("BackingFile", backing_file),
        SD_BUS_PROPERTY("Size", "t", property_get_u64, offsetof(Device, size),
                        SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("LogicalBlockSize", "u", property_get_u32, offsetof(Device, logical_block_size),
                        SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("PhysicalBlockSize", "u", property_get_u32, offsetof(Device, physical_block_size),
                        SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        BOOL("Rotational", rotational),
        BOOL("Removable", removable),
        BOOL("ReadOnly", read_only),
        STR("Scheduler", scheduler),
        STR("FsType", fs_type),
        STR("FsUuid", fs_uuid),
        STR("FsLabel", fs_label),
        STR("FsUsage", fs_usage),
        STR("PartitionTable", partition_table),
        STRV("MountPoints", mount_points),
        STRV("Holders", holders),
        STRV("Slaves", slaves),
        BOOL("InUse", in_use),
        BOOL("Swap", swap),
        BOOL("Scratch", scratch),
        STR("ScratchReason", scratch_reason),
        STR("AutoRun", autorun),
        STR("WriteVerdict", write_verdict),
        SD_BUS_VTABLE_END,
};

/* Whether the field behind property v (at v->x.property.offset, of its D-Bus signature) holds the
 * same value in a and b. */
static bool prop_equal(const sd_bus_vtable *v, const Device *a, const Device *b) {
        const uint8_t *x = (const uint8_t *) a + v->x.property.offset;
        const uint8_t *y = (const uint8_t *) b + v->x.property.offset;
        const char *sig = v->x.property.signature;

        if (streq(sig, "s"))
                return streq_ptr(*(char *const *) x, *(char *const *) y);
        if (streq(sig, "as"))
                return strv_equal(*(char **const *) x, *(char **const *) y);
        if (streq(sig, "b"))
                return *(const bool *) x == *(const bool *) y;
        if (streq(sig, "t"))
                return *(const uint64_t *) x == *(const uint64_t *) y;
        if (streq(sig, "u"))
                return *(const uint32_t *) x == *(const uint32_t *) y;
        if (streq(sig, "x"))
                return *(const int64_t *) x == *(const int64_t *) y;
        return false;
}

/* The properties compared are the vtable's that emit changes: each of those is a Device field at
 * its offset, so the interface is listed once (device_vtable) and a new property cannot be left
 * out of PropertiesChanged. */
int device_diff(const Device *a, const Device *b, char ***changed) {
        int r;

        for (const sd_bus_vtable *v = device_vtable; v->type != _SD_BUS_VTABLE_END; v++) {
                if (v->type != _SD_BUS_VTABLE_PROPERTY || !(v->flags & SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE))
                        continue;
                if (!prop_equal(v, a, b) && (r = push_changed(changed, v->x.property.member)) < 0)
                        return r;
        }
        return 0;
}
