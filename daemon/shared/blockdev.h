/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Block device facts from sysfs, by dev_t (never by name): kernel name, whole disk of a
 * partition, the devices a dm/md device is built on, and the iostat counters. Used by the worker
 * (which device to sample for utilisation) and by the daemon (target resolution, inventory).
 * sysfs_root lets tests point at a recorded tree; NULL means "/sys".
 */
#pragma once

#include <stdint.h>
#include <sys/types.h>

/* "sda2" for the partition's dev_t (/sys/dev/block/MAJ:MIN). -ENOENT when it is not a block dev. */
int blockdev_name_from_devnum(const char *sysfs_root, dev_t dev, char **ret);
/* The whole disk of a partition ("sda2" -> "sda", "nvme0n1p1" -> "nvme0n1"); a copy of name
 * itself when it is not a partition. */
int blockdev_whole_disk(const char *sysfs_root, const char *name, char **ret);
/* The devices at the bottom of a stack (dm, md, LVM: following slaves/ recursively, partitions
 * mapped to their disks), NULL-terminated, deduplicated; { name } itself when it has no slaves. */
int blockdev_leaves(const char *sysfs_root, const char *name, char ***ret);

/* /sys/block/<name>/stat (Documentation/block/stat.rst). */
typedef struct BlockStat {
        uint64_t read_ios, read_merges, read_sectors, read_ticks_ms;
        uint64_t write_ios, write_merges, write_sectors, write_ticks_ms;
        uint64_t in_flight, io_ticks_ms, time_in_queue_ms;
} BlockStat;

int blockdev_read_stat(const char *sysfs_root, const char *name, BlockStat *ret);
/* Parses the text of a stat file (tests use recorded snapshots). */
int blockstat_parse(const char *text, BlockStat *ret);
/* As iostat computes them over an interval of interval_us: %util = Δio_ticks / interval, and the
 * average queue size (aqu-sz) = Δtime_in_queue / interval. */
double blockstat_util_pct(const BlockStat *a, const BlockStat *b, uint64_t interval_us);
double blockstat_queue(const BlockStat *a, const BlockStat *b, uint64_t interval_us);
