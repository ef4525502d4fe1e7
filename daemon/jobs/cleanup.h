/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Removing a job's own files (.benchd-<job>-* in a directory target) after a step ended, was
 * cancelled or crashed, or after benchd itself crashed. A metadata step leaves up to 2^24 files,
 * and unlinking them takes minutes on a slow disk, so the removal runs in a short-lived child
 * process (helper.h: fork, no exec) that the event loop only watches: a pidfd child source and a
 * timeout after which it is killed. cleanup_job_files() is the removal itself, synchronous and with no
 * event loop, for that child and for unit tests.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <systemd/sd-event.h>

#include "shared/util.h"

typedef struct Cleanup Cleanup;

typedef struct CleanupStats {
        uint64_t removed;       /* entries unlinked, at any depth (files, directories, links inside ours) */
        uint64_t skipped;       /* entries with our names that are not ours, left alone */
        uint64_t failed;        /* entries of ours that could not be removed */
        int error;              /* the first failure, negative errno; 0 when none */
} CleanupStats;

/* The rules: in target (a directory; anything else has no files of ours and gives 0), the entries
 * named target/.benchd-<job>-* (step < 0) or target/.benchd-<job>-<step>-* that are regular files or
 * directories owned by our effective uid (the uid the job's steps ran as: cleanup_spawn() runs it
 * as that user) on target's filesystem; a directory goes with everything
 * in it that is ours and on the same filesystem, at most CLEANUP_DEPTH_MAX levels down. Symlinks
 * are never followed: one inside our directory is unlinked, one at the top is not ours. Anything
 * else is left alone and counted in skipped (a directory holding it stays). Returns 0, or a negative errno when target could not
 * be read at all (nothing was removed then). */
#define CLEANUP_DEPTH_MAX 16u
int cleanup_job_files(const char *target, uint64_t job_id, int step, CleanupStats *ret);

typedef struct CleanupResult {
        CleanupStats stats;     /* what the child reported; zero when it reported nothing */
        bool finished;          /* the child ran to the end and reported */
        bool timed_out;         /* killed by us after the timeout */
        bool not_as_user;       /* finished without removing anything: it could not become the uid */
} CleanupResult;

/* Called once, after the child has been reaped; the Cleanup may be freed from here. */
typedef void (*CleanupDone)(Cleanup *c, const CleanupResult *result, void *userdata);

/* Ample for 2^24 files on a slow disk; after it the child is killed and what is left is logged. */
#define CLEANUP_TIMEOUT_USEC (30u * 60u * USEC_PER_SEC)

/* Starts the removal of job_id's files (step < 0: of all its steps) in target in a child process
 * that runs as uid (run-as.h; 0: stays root), the uid the job's steps ran as, whose files they are;
 * the outcome is logged, and cb is called when the child is gone (removed everything, failed, or
 * was killed after timeout_usec). */
int cleanup_spawn(sd_event *e, const char *target, uint64_t job_id, int step, uid_t uid, uint64_t timeout_usec,
                  CleanupDone cb, void *userdata, Cleanup **ret);
/* Without calling back; a still-running child is sent SIGKILL and reaped by the event loop once
 * it has gone (helper_free()). */
Cleanup *cleanup_free(Cleanup *c);

pid_t cleanup_pid(Cleanup *c);
uint64_t cleanup_job_id(Cleanup *c);
const char *cleanup_target(Cleanup *c);
/* The step whose files it removes; -1: all the job's. */
int cleanup_step(Cleanup *c);
/* Kills the child now; done reports timed_out = false, finished = false. */
void cleanup_kill(Cleanup *c);
