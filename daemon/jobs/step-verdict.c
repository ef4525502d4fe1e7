/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The step verdict (step-verdict.h), in the order of how much is at stake: a caller other than
 * root could reach the target (if not, it hears nothing more about it), the target is what the
 * spec allows (spec_check_target: kind, destructive=true, alignment, free space), it is the object
 * that was checked at submit, the caller could use it, and a writing step on a block device passes
 * the device verdict (mounted, swap, holders, read-only, signatures unless scratch), with fresh
 * facts every time.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-bus.h>

#include "jobs/caller-access.h"
#include "jobs/matrix.h"
#include "jobs/mkfs-trial.h"
#include "jobs/step-verdict.h"
#include "shared/bus-names.h"
#include "shared/fs-entry.h"
#include "shared/util.h"

static int refuse(StepVerdict *v, const char *name, int r, char *reason, const char *fallback) {
        v->error_name = name;
        free(v->reason);
        v->reason = reason ?: strdup(fallback);
        v->error = r < 0 ? r : -EPERM;
        return v->error;
}

int step_verdict(DeviceManager *devices, const JobSpec *s, const TargetCheck *submitted, const VerdictOptions *opts,
                 StepVerdict *v) {
        char *err = NULL, *reason = NULL;
        int r;

        *v = (StepVerdict) {};
        /* Before anything looks at the target for a caller other than root: whether the caller could
         * look it up at all. Beyond a directory it may not search, every target gets this one
         * answer, so that whether it exists, what it is and how long it is stay unsaid. */
        if (opts && opts->caller_uid != 0) {
                r = caller_may_reach(s->target, opts->caller_uid, &err);
                if (r == -EACCES)
                        return refuse(v, SD_BUS_ERROR_ACCESS_DENIED, r, err, "the caller may not reach the target");
                if (r < 0)
                        return refuse(v, BENCHD_ERROR_INVALID_SPEC, r, err,
                                      "whether the caller may reach the target cannot be told");
        }

        /* Then whether it is the same object at all: a directory swapped for a device must be
         * refused as that, not judged as the device it now is. */
        if (submitted && submitted->kind >= 0) {
                TargetCheck now;

                r = target_identify(s->target, &now, &err);
                if (r < 0)
                        return refuse(v, BENCHD_ERROR_UNSAFE, r, err, "the target is gone");
                r = target_check_same(s->target, submitted, &now, &err);
                if (r < 0)
                        return refuse(v, BENCHD_ERROR_UNSAFE, r, err, "the target changed since it was submitted");
        }

        r = spec_check_target(s, &v->check, &err);
        if (r == -ENOSPC)
                return refuse(v, BENCHD_ERROR_NO_SPACE, r, err, "not enough free space on the target");
        if (r == -EPERM)
                return refuse(v, BENCHD_ERROR_UNSAFE, r, err, "writing to the target is refused");
        if (r < 0)
                return refuse(v, BENCHD_ERROR_INVALID_SPEC, r, err, "the target cannot be used");

        /* And again on what spec_check_target() found, which stat()ed the path once more. */
        if (submitted && submitted->kind >= 0) {
                r = target_check_same(s->target, submitted, &v->check, &err);
                if (r < 0)
                        return refuse(v, BENCHD_ERROR_UNSAFE, r, err, "the target changed since it was submitted");
        }

        /* Root acts for the caller only where the caller could act: block devices are polkit's. */
        if (opts && opts->caller_uid != 0 && (v->check.kind == TARGET_DIRECTORY || v->check.kind == TARGET_FILE)) {
                r = caller_may_use(s->target, v->check.kind == TARGET_DIRECTORY, workload_writes(s->workload),
                                   opts->caller_uid, &err);
                if (r == -EACCES)
                        return refuse(v, SD_BUS_ERROR_ACCESS_DENIED, r, err, "the caller may not use the target");
                if (r < 0)
                        return refuse(v, BENCHD_ERROR_INVALID_SPEC, r, err,
                                      "whether the caller may use the target cannot be told");
        }

        if (spec_is_matrix(s) && (!submitted || submitted->kind < 0)) {
                r = spec_check_matrix(s, &err);
                if (r < 0)
                        return refuse(v, BENCHD_ERROR_INVALID_SPEC, r, err, "the filesystem matrix cannot run here");
                r = mkfs_trial(opts ? opts->worker_path : NULL, s, &err);
                if (r < 0)
                        return refuse(v, BENCHD_ERROR_INVALID_SPEC, r, err, "mkfs rejected the options");
        }

        if (v->check.kind != TARGET_BLOCK || !workload_writes(s->workload))
                return 0;
        /* Without destructive=true spec_check_target() has refused already. */
        if (!devices) {
                if (asprintf(&reason, "the device inventory is not running, so the safety of writing to %s cannot "
                             "be checked; see benchd's log", CALLER_TEXT(s->target)) < 0)
                        reason = NULL;
                return refuse(v, BENCHD_ERROR_UNSAFE, -EPERM, reason, "the device inventory is not running");
        }
        /* An entry's own filesystem is what libblkid reads: ext4-from-ext3 made an ext4. */
        r = device_manager_check_destructive(devices, v->check.dev,
                                             opts && opts->own_fs_type ? fs_entry_mount_type(opts->own_fs_type) : NULL,
                                             opts ? opts->own_fs_uuid : NULL, &err, &v->scratch);
        if (r == -EPERM) {
                if (asprintf(&reason, "writing to %s is refused: %s", CALLER_TEXT(s->target), strna(err)) < 0)
                        reason = NULL;
                free(err);
                return refuse(v, BENCHD_ERROR_UNSAFE, r, reason, "the device is in use");
        }
        if (r < 0) {
                if (asprintf(&reason, "cannot check whether writing to %s is safe: %s", CALLER_TEXT(s->target),
                             strerror(-r)) < 0)
                        reason = NULL;
                return refuse(v, BENCHD_ERROR_UNSAFE, r, reason, "cannot check whether writing is safe");
        }
        return 0;
}

void step_verdict_clear(StepVerdict *v) {
        free(v->reason);
        *v = (StepVerdict) {};
}

void step_verdict_guard(const StepVerdict *v, ProtoGuard *ret) {
        static const uint32_t kinds[_TARGET_KIND_MAX] = {
                [TARGET_DIRECTORY] = PROTO_GUARD_DIRECTORY,
                [TARGET_FILE] = PROTO_GUARD_FILE,
                [TARGET_BLOCK] = PROTO_GUARD_BLOCK,
        };

        *ret = (ProtoGuard) {
                .kind = v->check.kind >= 0 && v->check.kind < _TARGET_KIND_MAX ? kinds[v->check.kind] : PROTO_GUARD_NONE,
                .flags = v->scratch ? PROTO_GUARD_SCRATCH : 0,
                .dev = (uint64_t) v->check.dev,
                .ino = v->check.ino,
                .diskseq = v->check.diskseq,
        };
}
