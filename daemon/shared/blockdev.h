/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Block device facts from sysfs, the one reader of /sys/class/block and /sys/dev/block for all
 * three programs: kernel name by dev_t, whole disk of a partition, attributes, partitions,
 * holders and slaves, the tree of everything built on a device, the devices a dm/md device is
 * built on, and the iostat counters. Used by the worker (which device to sample for utilisation,
 * whether the device it is about to write is held), by the spec check (alignment, diskseq) and by
 * the daemon (target resolution, inventory, the write verdict). sysfs_root lets tests point at a
 * recorded tree; NULL means "/sys". Names are kernel names ("sda2"); one with a '/', "." or ".."
 * is -EINVAL.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* How many members of a tree blockdev_tree() follows the holders of. */
#define BLOCKDEV_TREE_MAX 256

/* "sda2" for the partition's dev_t (/sys/dev/block/MAJ:MIN). -ENOENT when it is not a block dev. */
int blockdev_name_from_devnum(const char *sysfs_root, dev_t dev, char **ret);
/* The whole disk of a partition ("sda2" -> "sda", "nvme0n1p1" -> "nvme0n1"); a copy of name
 * itself when it is not a partition. */
int blockdev_whole_disk(const char *sysfs_root, const char *name, char **ret);
/* The devices at the bottom of a stack (dm, md, LVM: following slaves/ recursively, partitions
 * mapped to their disks), NULL-terminated, deduplicated; { name } itself when it has no slaves. */
int blockdev_leaves(const char *sysfs_root, const char *name, char ***ret);

/* <root>/class/block/<name>/<attr> ("ro", "queue/rotational"), trailing newlines and blanks
 * stripped; as a number for _u64 (-EINVAL when it is not one). */
int blockdev_read(const char *sysfs_root, const char *name, const char *attr, char **ret);
int blockdev_read_u64(const char *sysfs_root, const char *name, const char *attr, uint64_t *ret);
bool blockdev_is_partition(const char *sysfs_root, const char *name);
/* The dev_t in <name>/dev ("8:2"). */
int blockdev_devnum(const char *sysfs_root, const char *name, dev_t *ret);
/* The selected I/O scheduler ("mq-deadline" of "none [mq-deadline] bfq"), or "none"; of the
 * disk when name is a partition. */
int blockdev_scheduler(const char *sysfs_root, const char *name, char **ret);
/* Names in <name>/<dir>/ ("holders", "slaves"), sorted; an empty list when there is no such
 * directory. */
int blockdev_list(const char *sysfs_root, const char *name, const char *dir, char ***ret);
/* Partitions of a whole disk ("sda1", "md1p1"), sorted; empty for a partition. */
int blockdev_partitions(const char *sysfs_root, const char *name, char ***ret);
/* An attribute of the block device dev read through <root>/dev/block/MAJ:MIN/<attr>. A partition
 * has neither queue/ nor a diskseq of its own: when it lacks attr, its disk (the directory that
 * contains it) answers. -ENODEV for major 0 (tmpfs, overlay, btrfs subvolumes: no block device
 * behind st_dev), -ENOENT when neither has it. */
int blockdev_attr_u64_by_devnum(const char *sysfs_root, dev_t dev, const char *attr, uint64_t *ret);

/* Everything on a device, which a write to it would destroy: name itself, its partitions, then
 * their holders breadth first, recursively, with the partitions of stacked devices (a
 * partitioned md array); each once, so a loop in a recorded tree ends. The holders of the first
 * BLOCKDEV_TREE_MAX members are followed. ret_direct_holders (optional): the holders of name and
 * of its partitions. A name sysfs does not know gives { name } and no holders. */
int blockdev_tree(const char *sysfs_root, const char *name, char ***ret_tree, char ***ret_direct_holders);

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
