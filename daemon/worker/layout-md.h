/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The md array under a filesystem step's filesystem (layouts md-raid0, md-raid1, md-raid5,
 * md-raid10; ProtoFsSetup.md_name), built by fsprep.c between the members' checks and mkfs:
 *   - MAKE: `mdadm --create /dev/md/benchd-JOB-ENTRY --config=none --homehost=benchd --run
 *     --level=N --raid-devices=K [--assume-clean] [md_options] members...` on the members' kernel
 *     names, in a tool root of mdadm's own (toolroot.h, ToolRootSpec.md: the program and its
 *     libraries, the members' nodes, the host's /sys; no /etc, so no mdadm.conf, no /run/udev, so
 *     mdadm makes the array's node in the root's own /dev) and the sandbox (sandbox.h), timed; then
 *     with md_resync=wait the initial resync waited for (sync_action polled with POLLPRI until
 *     "idle"), timed;
 *   - MOUNT: `mdadm --assemble /dev/md/benchd-JOB-ENTRY --config=none --homehost=benchd --run
 *     members...`, the array the entry's first step made.
 * The array is found from the members' holders in sysfs (each member held by the same md device
 * and nothing else). Each command, its duration, exit and output goes into FS_INFO's
 * layout_commands, and the array's chunk size into md_chunk_bytes. layout_md_stop() stops it
 * (array_state "clear", as STOP_ARRAY does) once the filesystem is unmounted; an array a killed
 * worker left is stopped by benchd (daemon/jobs/md-leftovers.h).
 *
 * At the end of the entry's last step (FS_SETUP md_release), once the array is stopped,
 * layout_md_release() runs `mdadm --zero-superblock members...` in the same kind of root: the host's
 * incremental assembly (udev's mdadm -I on a linux_raid_member, at a change event or a reboot)
 * assembles any array whose members carry a superblock, of another homehost too (only under another
 * name), so the members keep none once the entry is done.
 *
 * The homehost "benchd" and the name "benchd-JOB-ENTRY" keep the array from being taken for one of
 * the host's own, and let benchd tell its arrays from the host's (md-leftovers).
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "fstool.h"
#include "shared/proto.h"

#define LAYOUT_MD_HOMEHOST "benchd"

typedef struct MdArray {
        char name[32];          /* kernel name, "md127"; "" when none */
        dev_t dev;
        char *commands;         /* the JSON array of what ran, for FS_INFO */
        uint64_t chunk_bytes;
        uint64_t resync_usec;
} MdArray;

/* mdadm's argv: --create (make) or --assemble, as the header says, on nodes; NULL-terminated. */
int layout_md_argv(const ProtoFsSetup *setup, bool make, char *const *nodes, size_t n, char ***ret);

/* The md device holding every one of the member kernel names (sysfs under sysroot, "" for the
 * host's): 0 and *ret_name ("md127"); -ENOENT when none holds them; -EBUSY when they are held by
 * different devices or by something other than one md device. */
int layout_md_find_holder(const char *sysroot, char *const *members, size_t n, char ret_name[static 32]);

/* Builds or assembles the setup's array on the members (released by the caller: mdadm claims them
 * itself); on success *ret is filled and the array assembled. On failure a message quoting mdadm;
 * an array that got assembled is stopped again. */
int layout_md_start(const ProtoFsSetup *setup, char *const *member_names, const dev_t *member_devs,
                    const FsPrepOptions *opts, MdArray *ret, char **reterr);
/* Stops the array (nothing may hold it open: unmount first). 0, or negative with a message. */
int layout_md_stop(MdArray *a, char **reterr);
/* md/degraded of the array: how many of its devices are missing or failed, 0 for a whole array.
 * -ENOENT for a level without redundancy (raid0), which has no such count: a member lost there
 * fails the I/O itself. */
int layout_md_degraded(const char *md, unsigned *ret);
/* Clears the md superblock of the members (kernel names; the array stopped): mdadm --zero-superblock
 * in the sandbox. *ret_commands (owned): the JSON array of what ran, also when mdadm failed (then
 * -EIO with a message quoting it). */
int layout_md_release(char *const *member_names, const dev_t *member_devs, uint32_t n, const FsPrepOptions *opts,
                      char **ret_commands, char **reterr);
/* md_options tried beforehand (benchd-worker --try-md-options, SubmitJob's trial): `mdadm --create`
 * with the array's argv as layout_md_argv() makes it for n members, in a root that holds no device
 * node at all and is given member paths that do not exist (LAYOUT_MD_TRY_MEMBER0, ...): mdadm checks
 * its options before it opens a member, so "cannot open LAYOUT_MD_TRY_MEMBER0" is its yes and any
 * other complaint its no. Nothing is created or opened. 0, or -EINVAL with a message quoting mdadm. */
#define LAYOUT_MD_TRY_NAME "benchd-0-0"
#define LAYOUT_MD_TRY_MEMBER "/dev/benchd-trial-absent-"
int layout_md_try(const char *layout, const char *md_options, unsigned n, const FsPrepOptions *opts, char **reterr);
void md_array_clear(MdArray *a);
