/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The entries filesystems= may name beyond a plain filesystem: what is made, with which mkfs, what
 * runs on it after mkfs and what the kernel then mounts. A plain name (ext4, btrfs, xfs) is all
 * three itself. ext4-from-ext3 is the seeds' conversion in place: mkfs.ext3, then
 * `tune2fs -O extents,uninit_bg,dir_index` and `e2fsck -fyD` on the device, mounted as ext4
 * (daemon/worker/fsconvert.c runs it). Pure, shared by the spec checks, benchd and the worker.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

typedef struct FsEntry {
        const char *name;               /* as filesystems= spells it */
        const char *mkfs_type;          /* mkfs.<mkfs_type> makes it */
        const char *mount_type;         /* what libblkid reads and mount(2) is given afterwards */
        const char *const *programs;    /* what it runs after mkfs (NULL-terminated), or NULL */
} FsEntry;

/* The entry named so, or NULL for a plain filesystem name. */
const FsEntry *fs_entry_find(const char *name);
/* name, or for an entry its mkfs's / mount's filesystem. */
const char *fs_entry_mkfs_type(const char *name);
const char *fs_entry_mount_type(const char *name);
/* Whether name is converted after mkfs (fsconvert.c). */
bool fs_entry_converts(const char *name);
/* The entries' names, comma-separated, for messages. */
const char *fs_entry_names(void);
