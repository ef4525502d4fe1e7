/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The filesystem of a filesystem-matrix step (FS_SETUP in shared/proto.h), made and mounted where
 * nobody else sees it: a private mount namespace of the worker's own, with a tmpfs over /tmp
 * holding the mount point. The members are claimed O_EXCL and checked against what benchd checked
 * (dev_t, diskseq) and against what they carry (libblkid); at stage MAKE they are wiped and mkfs
 * runs in a sandbox whose root holds nothing of the host but mkfs itself (toolroot.h) and which
 * can write to nothing but the members; at stage MOUNT they must carry the
 * filesystem an earlier step made. fsprep_finish() unmounts; a worker that dies takes its
 * namespace, and so the mount, with it.
 *
 * Also the trial mkfs behind `benchd-worker --try-mkfs`: the same argv, root and sandbox on sparse
 * image files in a tmpfs of its own (PROTO_TRY_MKFS_IMAGE_DIR, the root's one writable
 * directory), so benchd can reject options before a device is touched. It checks no option
 * itself: what mkfs_options may say is benchd's rule (spec-mkfs.c, at SubmitJob); the root is what
 * holds whatever an option asks.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fstool.h"
#include "sandbox.h"
#include "shared/proto.h"
#include "toolroot.h"

/* In the worker's mount namespace only: a tmpfs (mode 0700) over /tmp, the mount point and the
 * directory mkfs's root is built on in it. */
#define FSPREP_DIR FSTOOL_DIR
#define FSPREP_MOUNT_POINT FSPREP_DIR "/benchd-fs"

/* --try-mkfs images: min(max(size, FSPREP_TRY_SIZE_MIN), FSPREP_TRY_SIZE_MAX) each (xfs refuses
 * filesystems below 300 MiB). */
#define FSPREP_TRY_SIZE_MIN (UINT64_C(320) << 20)
#define FSPREP_TRY_SIZE_MAX (UINT64_C(1) << 30)

typedef struct FsPrep {
        bool tmpfs_mounted;
        bool fs_mounted;
        /* partitions=: the disks whose partitions 1..n_partitions it added to the kernel */
        char *part_disks[PROTO_FS_MEMBERS_MAX];
        uint32_t n_part_disks;
        uint32_t n_partitions;
        /* The md array under the filesystem (layout-md.h), stopped by fsprep_finish(): its kernel
         * name, "" when none. */
        char md_name[32];
        /* Its md/degraded when the step had made or assembled it (layout_md_degraded()), for
         * fsprep_check_layout(); md_degraded_known false for raid0, which has none. */
        unsigned md_degraded_start;
        bool md_degraded_known;
        /* The entry's last step (FS_SETUP md_release): the members whose md superblocks
         * fsprep_finish() clears once the array is stopped. */
        bool md_release;
        uint32_t n_md_members;
        char md_member_names[PROTO_FS_MEMBERS_MAX][64];
        dev_t md_member_devs[PROTO_FS_MEMBERS_MAX];
        /* What fsprep_finish() ran on the layout: the group's deactivation and removal (LVM), then the
         * release of the array's members (md_release), the JSON array for FS_RELEASED, owned; NULL
         * when nothing ran. */
        char *released;
        /* The volume group under it (layout-lvm.h), deactivated by fsprep_finish() before the array
         * is stopped, and removed with lvm_remove: its name ("" when none) and physical volumes. */
        char lvm_vg[PROTO_FS_MD_NAME_MAX + 1];
        char lvm_pvs[PROTO_FS_MEMBERS_MAX][32];
        dev_t lvm_pv_devs[PROTO_FS_MEMBERS_MAX];
        uint32_t n_lvm_pvs;
        bool lvm_remove;
        char *layout_note;      /* what fsprep_finish() ran on the layout, for the log; freed by the caller */
} FsPrep;

/* Enters a mount namespace of our own, claims and checks the members, wipes them and runs mkfs
 * (stage MAKE), and mounts the filesystem on FSPREP_MOUNT_POINT. On success *ret is filled (owned,
 * proto_fs_info_clear()) and valid for proto_encode_fs_info(). Failures come with a message:
 * -EPERM (PROTO_ERROR_UNSAFE) when a member is in use, is not the device benchd checked, carries a
 * signature it may not wipe or not the filesystem to mount; -EINVAL when mkfs or the mount failed;
 * -ECANCELED when stopped. Whatever was mounted stays so until fsprep_finish(). */
int fsprep_setup(FsPrep *p, const ProtoFsSetup *setup, const FsPrepOptions *opts, ProtoFsInfo *ret,
                 char **reterr);
/* Unmounts the filesystem and the tmpfs (lazily when busy), deactivates (and removes) the volume
 * group under it and stops the md array; with md_release then clears the members' md superblocks
 * (layout_md_release()); what ran on the layout in p->released. 1 when
 * a lazy unmount was needed, 0, or negative when even that failed or the release failed; a message
 * in *reterr when not 0. */
int fsprep_finish(FsPrep *p, char **reterr);

/* After the workload: the md array under the filesystem has lost no member since the step made or
 * assembled it (md/degraded has not grown: a member failed, or was failed by the host, as udev's
 * `mdadm --incremental --fail` does on a member's remove event). -EIO with a message naming the
 * array and the counts when it has: the figures are not those of the layout the job asked for.
 * 0 without an md array. */
int fsprep_check_layout(const FsPrep *p, char **reterr);

/* --try-md-options: layout_md_try() in a mount namespace and tmpfs of its own. */
int fsprep_try_md(const char *layout, const char *md_options, unsigned n_members, const FsPrepOptions *opts,
                  char **reterr);

/* --try-mkfs: mkfs as fsprep_setup() would run it, on n_members sparse images of
 * fsprep_try_image_size(size). 0 when it succeeded; -EINVAL with "mkfs.FS rejected the options
 * '...': <its output>" when it did not; other errors with a message. Needs CAP_SYS_ADMIN. */
int fsprep_try_mkfs(const char *fs_type, const char *layout, const char *mkfs_options, unsigned n_members,
                    uint64_t size, const FsPrepOptions *opts, char **reterr);
uint64_t fsprep_try_image_size(uint64_t size);

/* The pure parts, for tests. */

/* argv of mkfs: "mkfs.<fs_type>", for btrfs raid0/raid1/raid10 "-d L -m L", the blank-separated
 * words of mkfs_options, then the members; NULL-terminated. No force flag is ever added. */
int fsprep_mkfs_argv(const char *fs_type, const char *layout, const char *mkfs_options, char *const *members,
                     size_t n_members, char ***ret);
