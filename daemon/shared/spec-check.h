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
} TargetKind;

typedef struct TargetCheck {
        TargetKind kind;
        dev_t dev;              /* st_dev of the directory/file, st_rdev of a block device */
        uint32_t dio_align;     /* required offset/length alignment for O_DIRECT, bytes */
        uint64_t free_bytes;    /* available to unprivileged writers (directory targets) */
        uint64_t needed_bytes;  /* what the spec will lay out */
} TargetCheck;

/* 0 on success; -EINVAL (bad target or alignment) or -ENOSPC (not enough room) with a message in
 * *reterr saying what was wrong and what would be right. */
int spec_check_target(const JobSpec *s, TargetCheck *ret, char **reterr);

/* Bytes the spec's files occupy (size × jobs, or the metadata file set). */
uint64_t spec_needed_bytes(const JobSpec *s);
