/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The supervisor's judgement of a worker, as pure code: which frame may come in which stage
 * (HELLO, then the step's frames, then nothing after RESULT or ERROR), the protocol version, the
 * bounds (log lines, and through proto-plausible.h phase results and histogram entries), FS_INFO
 * exactly when the step is a filesystem step, whether
 * each decoded frame is plausible for the step, and, once the process has been reaped, how the
 * step ended (WorkerOutcome) from all of that and how the process exited. No fds, no processes,
 * no clock of its own: supervisor.c reads the socket, keeps the timers and signals, and asks the
 * judge; tests/unit/test-worker-judge.c feeds it frames built with the proto encoders.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "shared/proto-plausible.h"
#include "shared/proto-record.h"
#include "shared/proto.h"
#include "shared/spec.h"

typedef enum WorkerStatus {
        WORKER_SUCCEEDED,       /* RESULT received and a clean exit */
        WORKER_FAILED,          /* ERROR, crash, timeout, protocol violation */
        WORKER_STOPPED,         /* worker_stop() was called: cancel or shutdown */
} WorkerStatus;

typedef struct WorkerOutcome {
        WorkerStatus status;
        const char *error;                      /* WORKER_FAILED: what went wrong, for the user */
        const ProtoResult *result;              /* WORKER_SUCCEEDED */
        /* As received, once the RESULT checked it and no violation followed; else empty. */
        const ProtoHistogramEntry *histogram;
        size_t n_histogram;
        bool signalled;                         /* we had to signal it, so it could not clean up */
        bool unsafe;                            /* WORKER_FAILED: it refused the target on safety
                                                 * grounds (PROTO_ERROR_UNSAFE) */
} WorkerOutcome;

/* LOG frames a step may write into benchd's log; the rest are dropped (with one note). */
#define WORKER_LOG_MAX 200u
/* PHASE_RESULT frames accepted per step; one more is a protocol violation. */
#define WORKER_PHASE_RESULTS_MAX PROTO_PHASE_RESULTS_MAX

typedef enum WorkerStage {
        WORKER_STAGE_HELLO,     /* nothing but HELLO may come */
        WORKER_STAGE_RUNNING,   /* the SPEC was sent: the step's frames */
        WORKER_STAGE_DONE,      /* RESULT or ERROR received: only EOF may follow */
} WorkerStage;

typedef struct WorkerJudge {
        WorkerStage stage;
        ProtoLimits limits;     /* what the step's spec allows */
        ProtoTally tally;       /* what the worker said so far */
        bool got_result;
        ProtoResult result;
        char *error;            /* from an ERROR frame, sanitized */
        bool unsafe;            /* the ERROR was a refusal on safety grounds */
        char *failure;          /* ours: violation, timeout, a failed read; the first one wins */
        bool violated;          /* a protocol violation: nothing more it said is kept */
        ProtoHistogramEntry *histogram;
        size_t n_histogram;
        uint64_t n_logs;
        char *exit_error;       /* the outcome's message when it comes from the exit */
} WorkerJudge;

/* spec: the step's, finalized; it bounds what the worker may report. -EINVAL for a spec without a
 * workload. */
int worker_judge_init(WorkerJudge *j, const JobSpec *spec);
/* The size of the block device the step reads, when known (0: unknown): POSITION_RESULTs must lie
 * inside it. */
void worker_judge_set_device(WorkerJudge *j, uint64_t device_bytes);
void worker_judge_clear(WorkerJudge *j);

typedef enum WorkerVerdictKind {
        WORKER_VERDICT_NONE,            /* accepted, nothing to pass on (kept for the outcome, or a
                                         * LOG beyond WORKER_LOG_MAX) */
        WORKER_VERDICT_SEND_SPEC,       /* HELLO accepted: answer with the SPEC */
        WORKER_VERDICT_PHASE,           /* text: the engine's stage, for the owner */
        WORKER_VERDICT_RECORD,          /* record (SAMPLE, PHASE_RESULT, ...: proto-record.h), for
                                         * the owner */
        WORKER_VERDICT_FS_INFO,         /* fs_info, for the owner */
        WORKER_VERDICT_FS_RELEASED,     /* text: the JSON array of what released the md members */
        WORKER_VERDICT_LOG,             /* text at level, for our log */
        WORKER_VERDICT_LOGS_DROPPED,    /* the first LOG beyond WORKER_LOG_MAX: say so, once */
        WORKER_VERDICT_VIOLATION,       /* kill it: j->failure says what it did (when new_failure) */
} WorkerVerdictKind;

typedef struct WorkerVerdict {
        WorkerVerdictKind kind;
        int level;                      /* LOG: syslog priority */
        char *text;                     /* PHASE, LOG: owned, sanitized (valid UTF-8, no controls) */
        ProtoRecord record;             /* RECORD: decoded, within its bounds, plausible */
        ProtoFsInfo fs_info;            /* FS_INFO: owned */
        uint32_t hello_pid;             /* SEND_SPEC: the pid HELLO names (only logged if it differs) */
        bool new_failure;               /* VIOLATION: j->failure was set by it (else an earlier one stands) */
} WorkerVerdict;

void worker_verdict_clear(WorkerVerdict *v);

/* The step is a filesystem step: FS_SETUP (valid) is sent after the SPEC, so FS_INFO must come
 * once, before the first PHASE (proto_fs_info_plausible()). Before the first frame is judged. */
void worker_judge_expect_fs(WorkerJudge *j, const ProtoFsSetup *setup);

/* Judges one decoded frame in the worker's stage, against the spec, the clock and everything it
 * said before. After a VIOLATION nothing more may be fed. Returns ret->kind. */
WorkerVerdictKind worker_judge_frame(WorkerJudge *j, const ProtoFrame *f, const ProtoClock *clock,
                                     WorkerVerdict *ret);

/* A protocol violation found outside a frame (what: the rule it broke). True when it is the
 * failure reported, i.e. nothing failed before. */
bool worker_judge_violation(WorkerJudge *j, const char *what);
/* proto_reader_next() failed with r: garbage, another version, an oversized frame. */
bool worker_judge_stream_error(WorkerJudge *j, int r);
/* The socket reached EOF with pending bytes of a frame unread (a violation when not 0). */
bool worker_judge_eof(WorkerJudge *j, size_t pending);
/* Our own failure (a timeout, a failed read or write), not the worker's violation. */
bool worker_judge_fail(WorkerJudge *j, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* How the process ended. */
typedef struct WorkerExit {
        bool exited;            /* it exited with status; else it was killed by signal `status` */
        int status;
        bool stop_requested;    /* worker_stop() was called: a cancel or the shutdown */
        bool signalled;         /* we sent it a signal */
} WorkerExit;

/* The step's outcome, once the process is reaped: a stop we asked for (unless it had sent its
 * RESULT and exited cleanly), else our failure, else the worker's ERROR, else a RESULT with a
 * clean exit succeeds, else what the exit says. path: the worker's executable (named when exit
 * status 127 says it could not be executed). Pointers in *ret are into j. */
void worker_judge_outcome(WorkerJudge *j, const WorkerExit *e, const char *path, WorkerOutcome *ret);

/* "HELLO", "SAMPLE", ... or "unknown". */
const char *worker_frame_type_name(uint16_t type);
