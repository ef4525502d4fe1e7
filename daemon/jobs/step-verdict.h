/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Whether a step may run on its target now: the checks made at SubmitJob and made again, in full,
 * at every step start (restored jobs included), because a queue can be long and a device can be
 * formatted, mounted or swapped for another in the meantime. The worker checks once more on what
 * it opens (see worker/target.c); this is the daemon's word.
 *
 * step_verdict() stats the target, reads sysfs and probes the device with libblkid: any of that
 * can hang on a dying disk or a stuck mount, so benchd's event loop never calls it itself but runs
 * it in a helper process (verdict-query.h).
 */
#pragma once

#include <stdbool.h>

#include "devices/device-manager.h"
#include "shared/proto.h"
#include "shared/spec-check.h"
#include "shared/spec.h"

typedef struct StepVerdict {
        TargetCheck check;      /* what the target is now */
        bool scratch;           /* a block device marked scratch */
        const char *error_name; /* on refusal: BENCHD_ERROR_INVALID_SPEC, _NO_SPACE or _UNSAFE */
        char *reason;           /* on refusal: what is wrong and what would make it right */
        int error;              /* on refusal: the negative errno step_verdict() returned */
} StepVerdict;

/* What a verdict is told besides the step (all may be NULL). */
typedef struct VerdictOptions {
        /* A later step of a matrix entry: the filesystem the entry's first step made (its type and
         * UUID) is the job's own and does not count as a signature on the members. The first step
         * of a later entry: the same for the filesystem an earlier entry made on its members. */
        const char *own_fs_type;
        const char *own_fs_uuid;
        /* benchd-worker, for the trial mkfs of a matrix at SubmitJob. */
        const char *worker_path;
        /* Who the job is for: a caller other than root may use only a directory it could create
         * files in and a file it could open itself (caller-access.h). 0: root, or benchd itself. */
        uid_t caller_uid;
} VerdictOptions;

/* 0 when step s may run, with v->check and v->scratch filled; a negative errno with v->error_name
 * and v->reason otherwise. submitted: the identity recorded at SubmitJob, or NULL (or an unknown
 * kind) at SubmitJob itself; a target that is no longer that object is Unsafe. devices may be NULL
 * (no inventory): writes to block devices are then refused.
 *
 * At SubmitJob (submitted NULL) a spec with filesystems= is also checked against the system
 * (spec_check_matrix(): mkfs tools, kernel filesystems, layouts) and its mkfs options are tried
 * on sparse image files by `benchd-worker --try-mkfs`, so options mkfs rejects are refused as
 * InvalidSpec, quoting mkfs, before anything is written. */
int step_verdict(DeviceManager *devices, const JobSpec *s, const TargetCheck *submitted, const VerdictOptions *opts,
                 StepVerdict *v);
void step_verdict_clear(StepVerdict *v);

/* What the worker is to verify on what it opens. */
void step_verdict_guard(const StepVerdict *v, ProtoGuard *ret);
