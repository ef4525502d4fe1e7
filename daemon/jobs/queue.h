/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The queue as pure code: (state, event) → actions, the way job-core.h is a job's life. The queue
 * is the jobs in order of submission (their ids, submitters and states), the SubmitJob calls on
 * their way in, the cancellations waiting for polkit, the removals of files under way, and whether
 * benchd stops. It decides:
 *   - admission: whether a submission may go on (benchd stopping, MaxQueue, MaxQueuedJobsPerUser=,
 *     the bound on calls being checked), again once its targets are judged, and what a refusal says;
 *   - the submit pipeline, as stages whose outcomes are events: polkit's answer (for callers but
 *     root), the verdicts of its targets (a helper process), the insert of its row and its Job,
 *     then the reply;
 *   - the order: the oldest queued job starts when nothing runs, no removal of files is under way
 *     and benchd does not stop; ended jobs linger, at most linger_max of them;
 *   - cancellations: at once for root and the submitter, after polkit for anyone else;
 *   - shutdown: the calls still waiting are refused, the running worker is interrupted, the loop
 *     exits when it and the removals are done, or after a bound.
 * bus/manager.c is the shell: it does the actions (polkit and verdict queries, the database insert,
 * the Job, the bus signals and replies, the timers) and reports their outcome back as the next
 * event. No sd-bus, sd-event or SQLite here: tests/unit/test-queue.c runs sequences of events
 * through it as rows of a table.
 *
 * Submissions and cancellations waiting for something are named by keys the core gives them (in
 * the first action that names them: ASK_POLKIT, CHECK_TARGETS, ASK_POLKIT_CANCEL); 0 names the
 * call of the event being handled when it was refused before it got a key. Texts in actions point
 * into the core or the event and are valid until the next call.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "jobs/step-verdict.h"
#include "shared/job-state.h"
#include "shared/spec.h"

/* SubmitJob calls (and benchd's own submissions) that may wait for polkit or the checks of their
 * targets at one time; more are refused with QueueFull. */
#define QUEUE_SUBMITS_MAX 16u
/* Cancellations of another user's job that may wait for polkit at one time. */
#define QUEUE_CANCELS_MAX 16u

/* How long shutdown waits for the worker to go, and then for the removal of files to end. */
#define QUEUE_STOP_WORKER_USEC (10u * 1000000u)
#define QUEUE_STOP_CLEANUP_USEC (50u * 1000000u)

/* The D-Bus errors the core's refusals name (sd-bus's; the core does not include it). */
#define QUEUE_ERROR_FAILED "org.freedesktop.DBus.Error.Failed"
#define QUEUE_ERROR_ACCESS_DENIED "org.freedesktop.DBus.Error.AccessDenied"
#define QUEUE_ERROR_LIMITS_EXCEEDED "org.freedesktop.DBus.Error.LimitsExceeded"

/* What a submission is told while benchd stops. */
#define QUEUE_MSG_SUBMIT_STOPPING "benchd is shutting down; submit the job again once it runs"

typedef struct QueueConfig {
        unsigned max_queue;             /* MaxQueue: queued jobs, all users */
        unsigned max_queued_per_user;   /* MaxQueuedJobsPerUser=: 0, no bound; root has none */
        unsigned linger_max;            /* ended jobs kept (JOB_LINGER_MAX) */
} QueueConfig;

typedef enum QueueEventType {
        QUEUE_EVENT_SUBMIT,             /* a SubmitJob call (uid), or benchd's own (internal, uid 0) */
        QUEUE_EVENT_POLKIT,             /* submit: polkit answered (error 0: allowed; else error_name, text) */
        QUEUE_EVENT_POLKIT_FAILED,      /* submit: polkit could not be asked (error) */
        QUEUE_EVENT_VERDICTS,           /* submit: the verdicts of its targets (verdicts, spec, steps) */
        QUEUE_EVENT_CHECK_FAILED,       /* submit: the check could not be started (error) */
        QUEUE_EVENT_INSERTED,           /* submit: its row and Job exist (job: the id) */
        QUEUE_EVENT_INSERT_FAILED,      /* submit: nothing was queued (error; error_name and text, or none) */
        QUEUE_EVENT_RESTORED,           /* restart: job (uid) of a previous life is queued again */
        QUEUE_EVENT_LOADED,             /* restart: the previous life's queue is restored */
        QUEUE_EVENT_DISPATCH,           /* the scheduler looks at the queue */
        QUEUE_EVENT_JOB_STARTED,        /* job runs (its "running" is stored) */
        QUEUE_EVENT_JOB_ENDED,          /* job ended in state (stored) */
        QUEUE_EVENT_JOB_EXPIRED,        /* job has lingered long enough */
        QUEUE_EVENT_CANCEL,             /* uid asks to cancel job, whose state is state */
        QUEUE_EVENT_CANCEL_POLKIT,      /* cancel: polkit answered (error 0: allowed; else error_name, text) */
        QUEUE_EVENT_CANCEL_POLKIT_FAILED, /* cancel: polkit could not be asked (error) */
        QUEUE_EVENT_CLEANUP_STARTED,    /* a removal of files runs */
        QUEUE_EVENT_CLEANUP_DONE,       /* ... has ended */
        QUEUE_EVENT_STOP,               /* SIGTERM: benchd stops */
        QUEUE_EVENT_EXIT_TIMEOUT,       /* the bound on shutdown has passed */
        _QUEUE_EVENT_MAX,
} QueueEventType;

typedef struct QueueEvent {
        QueueEventType type;
        uint64_t key;                   /* POLKIT*, VERDICTS, CHECK_FAILED, INSERT*, CANCEL_POLKIT* */
        uint64_t job;                   /* INSERTED, RESTORED, JOB_*, CANCEL */
        uint32_t uid;                   /* SUBMIT, RESTORED, CANCEL */
        bool internal;                  /* SUBMIT: benchd's own (uid 0, no polkit) */
        JobState state;                 /* JOB_ENDED, CANCEL: the job's */
        int error;                      /* a negative errno: POLKIT*, CHECK_FAILED, INSERT_FAILED */
        const char *error_name;         /* POLKIT, CANCEL_POLKIT, INSERT_FAILED: the refusal's, or NULL */
        const char *text;               /* ... its message, or NULL */
        const char *target;             /* CHECK_FAILED: the job's target, for the message */
        /* VERDICTS: one per step, or for a matrix one per device of spec->devices; borrowed. */
        const StepVerdict *verdicts;
        size_t n_verdicts;
        const JobSpec *spec;
        const JobSpec *steps;
        size_t n_steps;
} QueueEvent;

typedef enum QueueActionType {
        /* Requests: their outcome is the next event about key. */
        QUEUE_ACTION_ASK_POLKIT,        /* key: ask polkit (POLKIT or POLKIT_FAILED) */
        QUEUE_ACTION_CHECK_TARGETS,     /* key: check the targets (VERDICTS or CHECK_FAILED) */
        QUEUE_ACTION_INSERT,            /* key: insert its row and make its Job (INSERTED or INSERT_FAILED) */
        QUEUE_ACTION_ASK_POLKIT_CANCEL, /* key: ask polkit about cancel of job (CANCEL_POLKIT*) */
        /* Effects. */
        QUEUE_ACTION_REFUSE,            /* key: answer the submission with the refusal (error; error_name
                                         * and text, or none: the errno alone), and forget it */
        QUEUE_ACTION_REPLY,             /* key: answer the submission: job is queued; forget it */
        QUEUE_ACTION_JOB_QUEUED,        /* job is new in the queue: its object, the log */
        QUEUE_ACTION_CHANGED,           /* QueueLength, RunningJob changed */
        QUEUE_ACTION_SCHEDULE,          /* look at the queue on the next loop iteration (DISPATCH) */
        QUEUE_ACTION_START,             /* start job */
        QUEUE_ACTION_NOTIFY_RUNNING,    /* sd_notify: job runs, n queued */
        QUEUE_ACTION_NOTIFY_IDLE,       /* sd_notify: nothing runs, n queued */
        QUEUE_ACTION_JOB_REMOVED,       /* the JobRemoved signal of job */
        QUEUE_ACTION_WRITE_METRICS,     /* rewrite benchd.prom (a job that did not succeed counts too) */
        QUEUE_ACTION_FORGET_JOB,        /* job's object goes and the Job is freed */
        QUEUE_ACTION_CANCEL_JOB,        /* cancel job for uid now and answer the call (key, or 0: this one) */
        QUEUE_ACTION_REFUSE_CANCEL,     /* answer the cancel call (key, or 0: this one) with the refusal */
        QUEUE_ACTION_STOPPING,          /* benchd stops: log it, abort what else waits (imports) */
        QUEUE_ACTION_INTERRUPT,         /* interrupt job (its worker is stopped, it ends interrupted) */
        QUEUE_ACTION_ARM_EXIT,          /* (re)arm the shutdown bound, usec from now (EXIT_TIMEOUT) */
        QUEUE_ACTION_EXIT,              /* leave the event loop (worker: the worker did not go in time;
                                         * n: removals still running, abandoned) */
        _QUEUE_ACTION_MAX,
} QueueActionType;

typedef struct QueueAction {
        QueueActionType type;
        uint64_t key;
        uint64_t job;
        uint32_t uid;                   /* CANCEL_JOB, JOB_QUEUED */
        unsigned n;                     /* NOTIFY_*: jobs queued; EXIT: removals left */
        uint64_t usec;                  /* ARM_EXIT */
        int error;                      /* REFUSE, REFUSE_CANCEL: a negative errno */
        const char *error_name;         /* REFUSE, REFUSE_CANCEL; NULL: the errno's */
        const char *text;               /* ... the message; NULL with error_name NULL */
        bool worker;                    /* EXIT */
} QueueAction;

/* The most one event gives: STOP refuses every call waiting, then STOPPING, INTERRUPT, ARM_EXIT. */
#define QUEUE_ACTIONS_MAX (QUEUE_SUBMITS_MAX + QUEUE_CANCELS_MAX + 8u)

typedef struct QueueActions {
        QueueAction actions[QUEUE_ACTIONS_MAX];
        size_t n;
} QueueActions;

typedef struct QueueJob {
        uint64_t id;
        uint32_t uid;                   /* its submitter */
        JobState state;                 /* queued, running or final */
} QueueJob;

typedef enum QueueSubmitStage {
        QUEUE_SUBMIT_POLKIT,            /* polkit is asked */
        QUEUE_SUBMIT_CHECKING,          /* its targets are checked */
        QUEUE_SUBMIT_INSERTING,         /* its row and Job are being made */
} QueueSubmitStage;

typedef struct QueueSubmit {
        uint64_t key;
        uint32_t uid;
        bool internal;
        QueueSubmitStage stage;
} QueueSubmit;

typedef struct QueueCancel {
        uint64_t key;
        uint64_t job;
        uint32_t uid;
} QueueCancel;

typedef struct Queue {
        QueueConfig config;
        QueueJob *jobs;                 /* in order of submission */
        size_t n_jobs, n_allocated;
        QueueSubmit submits[QUEUE_SUBMITS_MAX];        /* oldest first */
        unsigned n_submits;
        QueueCancel cancels[QUEUE_CANCELS_MAX];        /* oldest first */
        unsigned n_cancels;
        uint64_t next_key;
        uint64_t running;               /* the job that runs, or 0 */
        unsigned n_cleanups;            /* removals of files under way: no job starts meanwhile */
        bool stopping;
        bool stop_extended;             /* the bound was extended for the removals */
        char *text;                     /* the last formatted message */
        char stop_texts[QUEUE_CANCELS_MAX][96]; /* STOP: the answers to the cancellations waiting */
} Queue;

void queue_init(Queue *q, const QueueConfig *config);
void queue_clear(Queue *q);

/* Applies e: the new state in q, what to do in *ret. -EINVAL for an event that cannot happen (a key
 * or job the queue does not know, a job that is already there), -ENOMEM; then nothing changed and
 * *ret is empty. */
int queue_handle(Queue *q, const QueueEvent *e, QueueActions *ret);

/* The jobs queued (not yet running, not ended). */
unsigned queue_length(const Queue *q);
const QueueJob *queue_find(const Queue *q, uint64_t id);
bool queue_is_stopping(const Queue *q);

/* The message of a cancel of job id, which has ended (state: its name, or more). */
int queue_not_cancellable_text(uint64_t id, const char *state, char **ret);

const char *queue_event_type_to_string(QueueEventType t);
const char *queue_action_type_to_string(QueueActionType t);
