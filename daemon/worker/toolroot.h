/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A root of a tool's own: the file tree mkfs (and later mdadm, lvm, tune2fs, e2fsck) runs in, so
 * that whatever its options say it finds nothing of the host to read or write. An empty tmpfs
 * holding, each bound read-only at the path it has on the host:
 *   - the programs, their ELF interpreter and the shared libraries they load (elfdeps.h: read from
 *     the files, not from ldd), with every symlink on the way reproduced as the same symlink, so
 *     /lib64/ld-linux-x86-64.so.2, /sbin/mkfs.ext4 -> mke2fs and a merged /usr (/lib -> usr/lib)
 *     resolve in the root exactly as on the host;
 *   - the configuration files the tool reads, under /config when the tool takes its path from an
 *     environment variable (MKE2FS_CONFIG=/config/mke2fs.conf), else at their own path; one the
 *     host does not have is left out, as the tool then uses its built-in defaults on the host too;
 *   - the sysfs files and directories it reads, and each device's sysfs directory (the whole disk's,
 *     for a partition) with the /sys/dev/block/M:m and /sys/block/NAME links to it, so libblkid's
 *     topology and mkfs.btrfs's rotational, zoned and discard checks see the device as on the host;
 *   - a /dev tmpfs with the devices under their kernel names and null, zero, full, random and
 *     urandom; an empty /proc for the sandbox's own procfs (its PID namespace: mkfs.btrfs and
 *     mkfs.xfs read /proc/self/mounts and /proc/swaps to refuse a device in use);
 *   - one directory bound writable, for the trial's image files.
 * Nothing else: no /etc, /root, /home, /var, /srv, /tmp of the host. mkfs -d /etc, --rootdir /root
 * or -p /etc/proto then fail on a path that does not exist.
 *
 * Why the closure rather than the library directories: binding /usr/lib read-only would be just as
 * robust for a tool that dlopen()s, but would put the whole of it (and, merged, /lib) in reach of
 * an option that copies a tree; the tools here load only what DT_NEEDED names (checked with strace
 * on Debian 12's e2fsprogs 1.47, btrfs-progs 6.2 and xfsprogs 6.1), and the closure compared with
 * ldd's answer is a unit test. The loader has no ld.so.cache in the root, so LD_LIBRARY_PATH
 * names the directories the libraries were found in.
 *
 * toolroot_new() builds it in the worker's private mount namespace (fsprep.c made one) on an
 * empty directory; the sandbox's child enters it with toolroot_enter() (procfs of its PID
 * namespace, pivot_root, every mount read-only but the writable one); toolroot_free() detaches
 * it. What would be left mounted goes with the worker's namespace anyway.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* Where files with an environment variable are bound, in the root. */
#define TOOLROOT_CONFIG_DIR "/config"

typedef struct ToolRootDevice {
        const char *name;       /* a kernel name: /dev/<name> in the root */
        dev_t dev;
} ToolRootDevice;

typedef struct ToolRootFile {
        const char *path;       /* absolute, on the host */
        const char *env;        /* NULL: bound at path; else bound at TOOLROOT_CONFIG_DIR/<its name>
                                 * and <env>=that path in the environment */
} ToolRootFile;

typedef struct ToolRootSpec {
        char *const *programs;          /* absolute paths */
        const ToolRootFile *files;      /* configuration, bound where the host has it */
        size_t n_files;
        char *const *sys;               /* paths under /sys, bound where the host has them */
        const ToolRootDevice *devices;
        size_t n_devices;
        const char *writable;           /* a directory bound read-write at its own path, or NULL */
        /* mdadm's root (layout-md.h): the host's whole /sys bound writable, as md is driven
         * through sysfs (the array's md/ attributes, new_dev, array_state) and the array's
         * directory appears only once mdadm made it; and the root's own /dev left writable, for
         * the node of the array mdadm makes (a tmpfs of the root: nothing reaches the host's). */
        bool md;
        /* LVM's root (layout-lvm.h): md's, and /dev/mapper/control made in its /dev, for lvm to
         * drive device-mapper and make the volume's node under the root's /dev/mapper. */
        bool dm;
        char *const *env;               /* more of the tool's environment ("LVM_SYSTEM_DIR=..."), or NULL */
} ToolRootSpec;

typedef enum ToolRootBind {
        TOOLROOT_BIND_READONLY,
        TOOLROOT_BIND_OPTIONAL,         /* read-only, left out when the host has no such path */
        TOOLROOT_BIND_WRITABLE,
} ToolRootBind;

typedef struct ToolRootEntry {
        char *source;           /* on the host */
        char *target;           /* in the root: source, or TOOLROOT_CONFIG_DIR/<name> */
        ToolRootBind bind;
} ToolRootEntry;

/* What toolroot_new() builds, worked out from a spec without mounting anything. */
typedef struct ToolRootPlan {
        ToolRootEntry *entries;
        size_t n_entries;
        char **env;             /* PATH, LANG=C, LD_LIBRARY_PATH, the files' variables; NULL-terminated */
} ToolRootPlan;

int toolroot_plan(const ToolRootSpec *spec, const char *ld_so_conf, ToolRootPlan *ret, char **reterr);
void toolroot_plan_clear(ToolRootPlan *p);

typedef struct ToolRoot ToolRoot;

/* Plans and builds the root on dir, an empty directory in a private mount namespace. Errors come
 * with a message naming the path. Needs CAP_SYS_ADMIN and CAP_MKNOD. */
int toolroot_new(const ToolRootSpec *spec, const char *dir, ToolRoot **ret, char **reterr);
/* Detaches the root (MNT_DETACH: a tool still running keeps it until it ends). NULL is fine. */
ToolRoot *toolroot_free(ToolRoot *r);
static inline void toolroot_freep(ToolRoot **r) {
        *r = toolroot_free(*r);
}

/* The environment the tool runs with. */
char *const *toolroot_env(const ToolRoot *r);

/* In the sandbox's child (a mount and PID namespace of its own, copied from the worker's): mounts
 * its procfs, makes the root its / (pivot_root, the old root detached; chroot where pivot_root is
 * refused, as on an initramfs), makes every mount read-only but the writable directory, and
 * enters /. 0, or -errno with *ret_what naming the step. Async-signal-safe apart from the
 * fallbacks of make-read-only on kernels before 5.12 (the child is a fork of a single thread). */
int toolroot_enter(const ToolRoot *r, const char **ret_what);
