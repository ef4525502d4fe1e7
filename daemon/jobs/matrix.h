/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Filesystem matrices (docs/DESIGN.md "Job spec"): a job with filesystems= runs its steps once per
 * entry, each entry a filesystem made on scratch devices. layout=single gives one entry per
 * filesystem and device (ext4 on loop1, ext4 on loop2, btrfs on loop1, ...: the seeds' "ext4 on one
 * partition, btrfs on the other", without the position of the partition mixed into it), a btrfs
 * RAID layout one entry per filesystem across all devices.
 *
 * The expansion is plain steps: every step of an entry carries filesystems=<its one filesystem>,
 * devices=<its members>, and only that filesystem's mkfs_options and mount_options, so a step says
 * by itself what it runs on (the worker is told the same, and the runs record it), a job restored
 * after a restart is the same job, and the entry a step belongs to is read off the steps: a step
 * starts an entry when its filesystem or members differ from the step before. The first step of
 * an entry makes the filesystem (wipe, mkfs, mount), the others mount what it made. Pure logic.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "shared/spec.h"

/* A job's steps at most (profile.h and verdict-query.h bound it the same). */
#define MATRIX_STEPS_MAX 256u

static inline bool spec_is_matrix(const JobSpec *s) {
        return s && s->filesystems && s->filesystems[0];
}

/* The entries of a finalized matrix job spec. */
size_t matrix_n_entries(const JobSpec *job);

/* Expands base[0..n_base-1] (the job's steps as profile_expand() or the single workload gave them,
 * finalized) into n_base × entries steps, entry by entry, each finalized. -EINVAL with a message
 * when there are too many. */
int matrix_expand(const JobSpec *job, const JobSpec *base, size_t n_base, JobSpec **ret_steps, size_t *ret_n,
                  char **reterr);

/* Whether step i of steps begins an entry (it makes the filesystem), and which entry it is in. */
bool matrix_step_starts_entry(const JobSpec *steps, size_t i);
uint32_t matrix_step_entry(const JobSpec *steps, size_t i);

/* The entry's name as tables show it: "ext4", "ext4 loop1" (single layout over several devices:
 * the kernel name of the member), "btrfs raid1"; with partitions= " p2" after it (the partition of
 * each member). n_job_devices: how many devices the job has. */
char *matrix_entry_name(const JobSpec *step, size_t n_job_devices);

/* What the verdict judges for a matrix step (or, at SubmitJob, a matrix job): one spec per member
 * device of s, each a destructive write to that device, so every member passes the write verdict
 * (scratch, or blank; never mounted, swap or held). with_checks: the first also keeps the matrix
 * keys, so that step_verdict() checks the system for them and tries mkfs (at SubmitJob). n ≥ 1. */
int matrix_member_specs(const JobSpec *s, bool with_checks, JobSpec **ret, size_t *ret_n);

/* What a matrix job left on its devices: for each device (its path in devices=), the filesystem
 * the job made on it last. A later entry's first step finds it there (the device is not wiped
 * between entries) and may erase exactly it, although the device is not scratch: it is the job's
 * own, like the filesystem a later step of the same entry mounts again. */
typedef struct MatrixMadeFs {
        char *device;
        char *fs_type;
        char *uuid;
} MatrixMadeFs;

typedef struct MatrixMade {
        MatrixMadeFs *made;
        size_t n;
} MatrixMade;

/* The entry with members devices made fs_type with uuid on them: recorded for each, replacing what
 * it had. -ENOMEM, -EINVAL for a NULL or empty type or UUID. */
int matrix_made_record(MatrixMade *m, char *const *devices, const char *fs_type, const char *uuid);
/* The filesystem the job made last on the members devices: what the entry's first step may find on
 * them. NULL when it made none there, or when the members carry different ones of its
 * filesystems (then none is taken for the job's own, and the verdict judges them as found). */
const MatrixMadeFs *matrix_made_on(const MatrixMade *m, char *const *devices);
void matrix_made_clear(MatrixMade *m);
