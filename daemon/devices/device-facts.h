/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What the kernel says about a block device, gathered fresh: the tree of everything on it and its
 * holders (from sysfs, through shared/blockdev.h), mounts (libmount, matched by dev_t) and swap
 * (/proc/swaps) of the device and of everything on it, and a read-only libblkid probe. No D-Bus,
 * no event loop, no udev: the verdict and the inventory both build on it.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "devices/verdict.h"
#include "shared/mounts.h"

struct libmnt_table;


typedef struct BlkidInfo {
        char *type, *usage, *uuid, *label, *pt_type;
} BlkidInfo;

/* Read-only probe of /dev/<node> for superblocks and partition tables. An empty BlkidInfo for a
 * blank device; "ambivalent" as type when several signatures are found. */
int blkid_probe_node(const char *node, BlkidInfo *ret);
void blkid_info_clear(BlkidInfo *b);

typedef struct DeviceFacts {
        char *name;
        dev_t devnum;
        char **tree;            /* blockdev_tree(): the device, its partitions, and all their holders */
        char **holders;         /* direct holders of the device and of its partitions */
        VerdictMount *mounts;   /* mounts of anything in tree (strings owned here) */
        size_t n_mounts;
        char **own_mount_points;/* mount points of the device itself */
        char **swaps;           /* members of tree in use as swap */
        bool read_only;
        BlkidInfo blkid;        /* only when probed */
} DeviceFacts;

/* The machine-wide tables each device's facts are matched against: read once per event and shared
 * by every device it touches, instead of once per device. */
typedef struct DeviceTables {
        struct libmnt_table *mounts;    /* /proc/self/mountinfo */
        dev_t *swaps;                   /* swaps_read() */
        size_t n_swaps;
} DeviceTables;

int device_tables_load(DeviceTables *ret);
void device_tables_clear(DeviceTables *t);

/* tables: as device_tables_load() gave them, or NULL to read them now. probe: run libblkid on the
 * node (otherwise blkid stays empty and the caller fills it from udev). */
int device_facts_gather(const char *name, const DeviceTables *tables, bool probe, DeviceFacts *ret);
void device_facts_clear(DeviceFacts *f);

/* Fill a VerdictFacts view of f (pointers into f; valid while f lives). */
void device_facts_to_verdict(const DeviceFacts *f, bool scratch, const char *conf_path,
                             VerdictFacts *ret);

