/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The write-safety verdict: may a destructive (writing) job run on a block device? A pure function
 * over plain facts, so every rule is unit-tested with a table; gathering the facts (sysfs, libmount,
 * /proc/swaps, libblkid) lives in device-facts.c.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

typedef struct VerdictMount {
        const char *device;      /* kernel name of the mounted device: the device, a partition of
                                  * it, or something stacked on it */
        const char *path;        /* mount point */
        const char *fs_type;     /* may be NULL */
} VerdictMount;

typedef struct VerdictFacts {
        const char *name;              /* kernel name of the device, for messages */
        bool scratch;                  /* BENCHD_SCRATCH=1 or ScratchDevices= */
        bool read_only;                /* sysfs ro, or the node refused a write open */
        const VerdictMount *mounts;
        size_t n_mounts;
        const char *const *swaps;      /* NULL-terminated names in use as swap (the device, a
                                        * partition, or something stacked on it); may be NULL */
        const char *const *holders;    /* NULL-terminated dm/md holders of the device or of its
                                        * partitions; may be NULL */
        /* libblkid probe of the device itself: */
        const char *sig_type;          /* TYPE: ext4, swap, linux_raid_member, LVM2_member, ... */
        const char *sig_usage;         /* USAGE: filesystem, raid, crypto, other */
        const char *sig_uuid;
        const char *pt_type;           /* PTTYPE: gpt, dos, ... */
        const char *conf_path;         /* shown in the advice; NULL: /etc/benchd/benchd.conf */
        const char *scratch_note;      /* a device that is not scratch: why a ScratchDevices= name that
                                        * names it does not mark it (scratch.h); said with a
                                        * signature refusal. NULL: nothing to say */
} VerdictFacts;

/* 0 and *ret_reason = NULL when a destructive job may run; 1 and a reason that says what is wrong
 * and how to make it allowed when it may not; -ENOMEM. Scratch overrides only the signature rule:
 * a mounted, swapping, held or read-only device is refused even when marked scratch. */
int verdict_compute(const VerdictFacts *f, char **ret_reason);
