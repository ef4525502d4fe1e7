/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * partitions= of a filesystem matrix (FS_SETUP's partitions and partition): each member split into
 * that many equal GPT partitions and the entry's filesystem made on partition `partition` of each.
 *
 * At MAKE the members (claimed O_EXCL and judged as whole devices by fsmember.h) are wiped, and
 * sfdisk writes the table in the sandbox, as mkfs runs (a root with only sfdisk and the device),
 * with --no-reread --no-tell-kernel; its command, time and output are FS_INFO's first command. The
 * layout is benchd's own, given to sfdisk as its script: the first partition at 1 MiB, each the
 * same whole number of MiB, together as much of the device as GPT's backup table at its end
 * leaves (fspart_layout()). The kernel is then told of the partitions by BLKPG_ADD_PARTITION, as
 * partx --add does: a kernel without a GPT parser (CONFIG_EFI_PARTITION) or a loop device without
 * partscan would show none otherwise. At MOUNT (a later step of the entry) the table must be
 * there, exactly that layout as libblkid reads it, and the partitions are added again the same way.
 * The partitions are deleted from the kernel (BLKPG_DEL_PARTITION) when the step ends
 * (fspart_remove()); the table stays on the device, part of what the job made.
 */
#pragma once

#include <stdint.h>

#include "fsmember.h"
#include "fsprep.h"

typedef struct FsPartLayout {
        uint64_t start;         /* bytes */
        uint64_t size;
} FsPartLayout;

/* The layout of n (1..PROTO_FS_PARTITIONS_MAX) partitions on a device of size bytes with logical
 * sectors of sector bytes. -ENOSPC when each would be smaller than SPEC_PARTITION_SIZE_MIN. */
int fspart_layout(uint64_t size, uint32_t sector, uint32_t n, FsPartLayout *ret);
/* sfdisk's script for it: "label: gpt" and one "start=S, size=Z, type=L" line (sectors) each. */
char *fspart_script(const FsPartLayout *l, uint32_t n, uint32_t sector);
/* The kernel name of partition k of disk ("loop3" 2: "loop3p2", "sdb" 2: "sdb2"), and its dev_t as
 * sysfs says, or -ENOENT when the kernel has none. For the md layouts too: an array over the k-th
 * partition of every device takes partition_of(member, k). ret_dev may be NULL. */
int partition_of(const char *disk, uint32_t k, char **ret_name, dev_t *ret_dev);

/* Makes (MAKE) or finds (MOUNT) the table on each of b[0..setup->n_members), adds the partitions
 * to the kernel, and turns each b[i] into its partition setup->partition: name, node and dev, claimed
 * again O_EXCL (O_RDWR at MAKE); at MOUNT checked to carry the filesystem to mount. The disks'
 * names are kept in p for fspart_remove(). */
int fspart_prepare(FsPrep *p, const ProtoFsSetup *setup, FsMember *b, const FsPrepOptions *opts, ProtoFsInfo *info,
                   char **reterr);
/* Deletes from the kernel the partitions fspart_prepare() added. */
int fspart_remove(FsPrep *p, char **reterr);
