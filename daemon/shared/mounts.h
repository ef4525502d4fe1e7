/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Mounts and swap by device number, for benchd (the device verdict, target resolution) and the
 * worker (what holds a device it cannot claim, claim.h): mountinfo through libmount, matched by
 * dev_t, and /proc/swaps.
 */
#pragma once

#include <stddef.h>
#include <sys/types.h>

struct libmnt_table;
struct libmnt_fs;

/* /proc/self/mountinfo as libmount reads it. */
int mount_table_load(struct libmnt_table **ret);
/* The block device behind a mount entry: mountinfo's MAJ:MIN, or for anonymous devices (btrfs)
 * the st_rdev of its /dev source; major 0 when there is none (tmpfs). */
dev_t mount_fs_devno(struct libmnt_fs *fs);
void mnt_free_tablep(struct libmnt_table **t);

/* dev_ts in use as swap: block swap areas by st_rdev, swap files by st_dev of their filesystem. */
int swaps_read(dev_t **ret, size_t *ret_n);
/* The file names in the text of /proc/swaps (header skipped, \ooo escapes undone). */
int swaps_parse(const char *text, char ***ret);
