/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * One benchd-worker process running one job step: spawned with a clean environment in its own
 * process group, fed its spec over a socketpair, read frame by frame on the event loop, timed out,
 * stopped, and reaped by pidfd. Everything the worker sends is untrusted: a frame that is malformed
 * or implausible for the step's spec (shared/proto-plausible.h) is a protocol violation, which
 * kills it and fails the step with a message naming the violation; callbacks only ever see frames
 * that passed; the rules, and the outcome (WorkerOutcome), are the judge's (worker-judge.h). The
 * owner learns what happened through callbacks; the last one, finished, comes exactly once, after
 * the process is reaped, and after every process it left behind was killed.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <systemd/sd-event.h>

#include "jobs/worker-judge.h"
#include "shared/proto.h"
#include "shared/proto-record.h"
#include "shared/spec.h"
#include "shared/util.h"

typedef struct Worker Worker;

typedef struct WorkerCallbacks {
        void (*phase)(Worker *w, const char *phase, void *userdata);
        /* One of the worker's records (SAMPLE, PHASE_RESULT, POSITION_RESULT, STEADY_STATE;
         * record->desc says which: shared/proto-record.h), validated: a well-formed frame within the
         * bounds of its description, and plausible for the step (its description's rule,
         * proto-plausible.h: samples in order and within the spec and the clock, each phase once,
         * positions in order inside the device when worker_set_device() told its size, a steady
         * state only when asked). May be NULL. */
        void (*record)(Worker *w, const ProtoRecord *record, void *userdata);
        /* The Worker may be freed from here. */
        void (*finished)(Worker *w, const WorkerOutcome *outcome, void *userdata);
        /* The filesystem a filesystem step (worker_set_fs_setup()) made or mounted, validated: sent
         * once, before the step's first PHASE, for the fs_type asked for, its figures consistent
         * (proto_fs_info_plausible()). May be NULL. */
        void (*fs_info)(Worker *w, const ProtoFsInfo *info, void *userdata);
        /* What the step ran on its layout at its end (FS_RELEASED: an LVM group's deactivation and
         * removal, the release of an md array's members on the entry's last step, FS_SETUP
         * md_release), a JSON array of {"command", "usec", "exit", "output"}, once, after FS_INFO.
         * May be NULL. */
        void (*fs_released)(Worker *w, const char *commands, void *userdata);
} WorkerCallbacks;

/* timeout_usec: from spawn to the end; then SIGTERM, and SIGKILL WORKER_KILL_USEC later. */
#define WORKER_KILL_USEC (5 * USEC_PER_SEC)

/* spec is the step's (finalized, with a workload): it bounds what the worker may report;
 * spec_text is what the worker is sent (spec_to_text() of it). run_as: 0, or the caller the worker
 * becomes before it touches the target (--run-as; a directory or file step of a caller other than
 * root, see shared/run-as.h); the guard must then be of a directory or file. -EINVAL for a spec
 * without a workload. A failure after fork() leaves no process behind: it is killed and reaped. */
int worker_spawn(sd_event *event, const char *path, uint64_t job_id, uint32_t step, const JobSpec *spec,
                 const char *spec_text, uid_t run_as, uint64_t timeout_usec, const WorkerCallbacks *cb,
                 void *userdata, Worker **ret);
/* What the worker is to verify about its target (sent with the SPEC). Call right after
 * worker_spawn(), before the event loop runs again; without it the guard is PROTO_GUARD_NONE. */
void worker_set_guard(Worker *w, const ProtoGuard *guard);
/* The size of the block device the step reads (0: unknown), as the step's verdict found it; it
 * bounds the worker's POSITION_RESULTs. Call with worker_set_guard(). */
void worker_set_device(Worker *w, uint64_t device_bytes);

/* Makes the step a filesystem step: FS_SETUP (a copy of setup) is sent right after the SPEC, and
 * the worker must answer with FS_INFO before the step begins. Call right after worker_spawn(),
 * like worker_set_guard(); the SPEC's text must then have no target (spec_to_worker_text() of a
 * matrix step; the worker reads FS_SETUP only then) and its guard must be PROTO_GUARD_NONE (the members carry theirs). -EINVAL
 * for a setup proto_fs_setup_valid() refuses, -EBUSY when one was set already, -ENOMEM. */
int worker_set_fs_setup(Worker *w, const ProtoFsSetup *setup);
/* Asks the worker to stop (SIGTERM to its process group, SIGKILL later); finished() reports
 * WORKER_STOPPED unless it had already ended otherwise. */
void worker_stop(Worker *w, uint64_t kill_after_usec);
/* Kills (SIGKILL) and reaps a still-running worker, and what it left behind, and frees
 * everything without calling back. */
Worker *worker_free(Worker *w);
pid_t worker_pid(Worker *w);
/* A fleet step's START (shared/proto.h): its measured phase begins now, start_usec being the
 * time it was given. One frame of 24 bytes on the socket, which the worker is waiting to read. */
int worker_send_start(Worker *w, uint64_t start_usec);
/* Moves the step's timeout by_usec later (a fleet step's wait for its start is not its run). */
int worker_extend_timeout(Worker *w, uint64_t by_usec);

/* The grace a step gets past its estimate unless benchd.conf's StepTimeoutGraceSec= says otherwise. */
#define WORKER_STEP_GRACE_SEC_DEFAULT 60u
/* The timeout for a step: its runtime plus ramp, or for size-bounded steps an estimate at a
 * pessimistic 10 MB/s, plus grace_usec (0: WORKER_STEP_GRACE_SEC_DEFAULT); capped. */
uint64_t worker_timeout_usec(const JobSpec *s, uint64_t grace_usec);
