/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Checks of a finalized JobSpec against the running system: the target exists and is of a kind
 * the workload accepts, direct-I/O alignment (statx STATX_DIOALIGN, else the logical block size),
 * and free space for the files benchd will create. Used by benchd at SubmitJob (so nothing bad is
 * queued) and again by benchd-worker before it touches anything.
 */
#pragma once

#include <stdint.h>
#include <sys/types.h>

#include "spec.h"

typedef enum TargetKind {
        TARGET_DIRECTORY,
        TARGET_FILE,
        TARGET_BLOCK,
        _TARGET_KIND_MAX,
        _TARGET_KIND_INVALID = -22,
} TargetKind;

typedef struct TargetCheck {
        TargetKind kind;
        dev_t dev;              /* st_dev of the directory/file, st_rdev of a block device */
        uint64_t ino;           /* st_ino of the directory/file; 0 for a block device */
        uint64_t diskseq;       /* a block device's sysfs diskseq (new on every attach/media change,
                                 * kernel >= 5.15); 0 when unknown or not a block device */
        uint32_t dio_align;     /* required offset/length alignment for O_DIRECT, bytes */
        uint64_t free_bytes;    /* available to unprivileged writers (directory targets) */
        uint64_t needed_bytes;  /* what the spec will lay out */
        uint64_t device_bytes;  /* a block device's size, for a spec with a workload; else 0 */
} TargetCheck;

/* The files a worker may open: benchd sets its workers' RLIMIT_NOFILE to this where its own hard
 * limit allows (jobs/supervisor.c). A metadata step holds each of its dirs directories open
 * (worker/target.c) besides at most SPEC_WORKER_FILES_RESERVE others, so dirs is checked against
 * what this process's hard limit leaves of it. */
#define SPEC_WORKER_FILES_MAX (4096u + SPEC_DIRS_MAX)
#define SPEC_WORKER_FILES_RESERVE 64u

/* 0 on success; -EINVAL (bad target or alignment), -ENOSPC (not enough room) or -EPERM (a writing
 * workload on a block device without destructive=true) with a message in *reterr saying what was
 * wrong and what would be right. destructive=true on a directory or file target is -EINVAL: it
 * means nothing there, and accepting it would let a later swap of the path to a device inherit it. */
int spec_check_target(const JobSpec *s, TargetCheck *ret, char **reterr);

/* Only the identity of target (kind, dev, ino, diskseq; following symlinks as spec_check_target()
 * does), without judging it: what step starts compare with the submit before anything else. -EINVAL
 * with a message for a path that is missing or of another kind. */
int target_identify(const char *target, TargetCheck *ret, char **reterr);

/* Whether two checks found the same object: the kind, then dev+inode (directory, file) or
 * dev_t+diskseq (block device; a diskseq of 0 on either side is not compared). 0 when they are;
 * -ESTALE with a message in *reterr naming what changed, for the target path shown as target. */
int target_check_same(const char *target, const TargetCheck *then, const TargetCheck *now, char **reterr);
const char *target_kind_to_string(TargetKind k);
TargetKind target_kind_from_string(const char *s);

/* Bytes the spec's files occupy (size × jobs, or the metadata file set); for position, the most it
 * reads (positions × size). */
uint64_t spec_needed_bytes(const JobSpec *s);

/* The checks of a filesystem matrix (spec->filesystems; 0 at once without one) against this
 * machine, for a finalized spec: mkfs.<fs> of each filesystem is installed (/usr/sbin, /sbin,
 * /usr/bin or /bin) and the kernel knows the filesystem (/proc/filesystems or a module; when that
 * cannot be told, it is assumed), the layout's md or LVM machinery is here, and every member of
 * devices is a block device, none twice under two names. -EINVAL with a message saying what is
 * missing and what would do instead; -EOPNOTSUPP for md and LVM layouts this machine could do but
 * benchd does not build yet. Not a judgement of whether a device may be erased: that is the
 * device verdict's, per device, as for target. Not wired in by itself: benchd calls it at
 * SubmitJob and step start next to spec_check_target(). */
int spec_check_matrix(const JobSpec *s, char **reterr);
/* The same, with root put in front of the paths of the tool and kernel probes (not of devices):
 * for tests, with a directory laid out like / (usr/sbin/mkfs.*, proc/filesystems, ...). */
int spec_check_matrix_root(const JobSpec *s, const char *root, char **reterr);
