/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The volume group under a filesystem step's filesystem (layouts lvm and md-raid1+lvm;
 * ProtoFsSetup.md_name is the group's name, benchd-JOB-ENTRY), built by fsprep.c between the
 * members' checks (and, over md-raid1+lvm, the md array of layout-md.h) and mkfs:
 *   - MAKE: `lvm pvcreate` on the physical volumes (the members, or the array), `lvm vgcreate
 *     --setautoactivation n GROUP pvs...`, `lvm lvcreate --name lv (--size Nb | --extents
 *     100%FREE) GROUP`, lvm_options going to the command that takes each (--dataalignment and
 *     --metadatasize to pvcreate, --physicalextentsize to vgcreate);
 *   - MOUNT: `lvm vgchange --activate y GROUP`, the group the entry's first step made.
 * Each runs in a tool root of LVM's own (toolroot.h, ToolRootSpec.dm: the program and its
 * libraries, the physical volumes' nodes, /dev/mapper/control, the host's /sys; its /dev a tmpfs
 * of the root, where lvm, told not to wait for udev, makes the volume's node itself) and the
 * sandbox (sandbox.h), with LVM_SYSTEM_DIR a directory of the worker's own whose lvm.conf accepts
 * exactly the physical volumes (devices/global_filter), reads no device list or hints from udev,
 * takes no udev sync or rules, writes no backup or archive, monitors nothing, and gives the group
 * the system ID "benchd": the host's LVM, with a system ID of its own or none, neither activates
 * nor shows it, and nothing is written to the host's /etc/lvm or /run/lvm.
 *
 * The volume is the device-mapper device named "benchd--JOB--ENTRY-lv" in sysfs, held by none
 * but the physical volumes. Each command, its duration, exit and output goes into FS_INFO's
 * layout_commands, the volume's size and extents into lv_bytes and lv_extents. layout_lvm_stop()
 * deactivates it (`lvm vgchange --activate n`) once the filesystem is unmounted, and with remove
 * (the entry's last step, PROTO_FS_LAYOUT_REMOVE) removes the group and wipes the labels
 * (`lvm vgremove --force`, `lvm pvremove`), each command recorded as at the start, for FS_RELEASED;
 * a volume a killed worker left active is removed by benchd (daemon/jobs/lvm-leftovers.h).
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "fstool.h"
#include "shared/proto.h"

#define LAYOUT_LVM_SYSTEM_ID "benchd"
#define LAYOUT_LVM_LV "lv"

typedef struct LvmVolume {
        char vg[PROTO_FS_MD_NAME_MAX + 1];      /* "" when none */
        char dm[32];            /* the volume's kernel name, "dm-3" */
        dev_t dev;
        char *commands;         /* the JSON array of what ran, for FS_INFO */
        uint64_t extents, bytes;
        /* The physical volumes' kernel names and devices, for the stop. */
        char pvs[PROTO_FS_MEMBERS_MAX][32];
        dev_t pv_devs[PROTO_FS_MEMBERS_MAX];
        uint32_t n_pvs;
} LvmVolume;

/* The lvm.conf of the worker's own for pvs (kernel names): see above. NULL on allocation failure. */
char *layout_lvm_config(char *const *pvs, size_t n);

/* lvm's argv for the setup's step: which 0 pvcreate, 1 vgcreate, 2 lvcreate (MAKE), 3 vgchange -ay
 * (MOUNT); nodes the physical volumes' /dev nodes. NULL-terminated. */
int layout_lvm_argv(const ProtoFsSetup *setup, unsigned which, char *const *nodes, size_t n, char ***ret);

/* Builds or activates the setup's group on the physical volumes pvs (kernel names and devices,
 * released by the caller: lvm opens them itself); on success *ret is filled and the volume
 * active. On failure a message quoting lvm; a volume that got active is deactivated again. */
int layout_lvm_start(const ProtoFsSetup *setup, char *const *pvs, const dev_t *pv_devs, size_t n_pvs,
                     const FsPrepOptions *opts, LvmVolume *ret, char **reterr);
/* Deactivates the group (nothing may hold the volume open: unmount first) and with remove removes
 * it and wipes the physical volume labels. 0, or negative with a message. *ret_note (may be NULL)
 * gets what ran: each command, its time and exit status, for the worker's log; *ret_commands (may
 * be NULL) the same as a JSON array of {"command","usec","exit","output"}, for FS_RELEASED (also
 * when a command failed; left as it was when none ran). */
int layout_lvm_stop(LvmVolume *v, bool remove, char **ret_note, char **ret_commands, char **reterr);
void lvm_volume_clear(LvmVolume *v);
