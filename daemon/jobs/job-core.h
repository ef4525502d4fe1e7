/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The life of a job as pure code: (stage, event) → (new stage, actions). A job is queued, then
 * running step by step, then succeeded, failed, cancelled or interrupted; on the way it waits
 * for the database whenever that refuses a write that may pass (docs/DESIGN.md, "The database"), and a
 * cancel or an interrupt may come in any stage. The core decides every transition and every
 * message a user reads about it; job.c does the actions (database writes, the step's verdict and
 * worker, timers, the owner's callbacks) and reports their outcome back as the next event. No
 * sd-bus, sd-event or SQLite here: tests/unit/test-job-core.c runs sequences of events through
 * it as rows of a table.
 *
 * A step may run more than once (repeat, until_stddev: shared/stability.h): when its run succeeded the
 * core decides, from the step's spec and the main figures of its runs so far (which the event
 * brings), whether the same step runs again or the next one; each repeat starts like a step
 * (BEGIN_STEP: verdict, run row, worker) once the results before it are stored. A filesystem
 * matrix that runs more than once runs in rounds instead (jobs/rounds.h): every step once, in the
 * round's order, then the next round; `repeat` is then the round, the same for every step of it,
 * and another round follows while any step of the one that ended wants another run.
 *
 * An action is either an effect (tell the owner, stop the worker, ...) or a request (write the
 * state, flush the queue, begin a step): a request's outcome is the next event (STORED,
 * STORE_FAILED, STEP_STARTED, ...). One event gives at most one request, and it comes last.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "jobs/worker-judge.h"
#include "shared/job-state.h"
#include "shared/spec.h"

typedef enum JobStage {
        JOB_STAGE_QUEUED,               /* waiting for the scheduler (and with waiting, for the database) */
        JOB_STAGE_STARTING,             /* its "running" is being stored */
        JOB_STAGE_CANCELLING,           /* queued; its cancellation is stored at once or not at all */
        JOB_STAGE_STEP_WAITING,         /* step `step` starts once what waits is stored */
        JOB_STAGE_STEP_STARTING,        /* step `step` is being set up: verdict, run row, worker */
        JOB_STAGE_STEP_RUNNING,         /* its worker runs */
        JOB_STAGE_ENDING,               /* it has ended (end_state): stored after what waits, then announced */
        JOB_STAGE_ENDED,
        _JOB_STAGE_MAX,
} JobStage;

/* What waits for the database before the job can go on (for messages). */
typedef enum JobAfterStore {
        JOB_AFTER_STORE_NONE,   /* nothing: only results wait */
        JOB_AFTER_STORE_START,  /* queued: "running" could not be stored; the scheduler tries again */
        JOB_AFTER_STORE_STEP,   /* the step `step` starts once its run can be recorded */
        JOB_AFTER_STORE_END,    /* the job has ended (end_state); that is announced once it is stored */
} JobAfterStore;

typedef enum JobEventType {
        JOB_EVENT_START,                /* the scheduler picked it */
        JOB_EVENT_CANCEL,               /* uid asks to cancel it */
        JOB_EVENT_INTERRUPT,            /* benchd stops */
        JOB_EVENT_RESULTS,              /* a batch of samples or a phase result waits to be stored */
        JOB_EVENT_RETRY,                /* the retry timer: the database may take writes again */
        JOB_EVENT_STORED,               /* the write a request asked for worked */
        JOB_EVENT_STORE_FAILED,         /* ... failed in a way that may pass (error) */
        JOB_EVENT_STORE_REFUSED,        /* STORE_RUNNING was refused for good (text: why) */
        JOB_EVENT_STEP_STARTED,         /* BEGIN_STEP: its run is recorded and its worker runs */
        JOB_EVENT_STEP_REFUSED,         /* BEGIN_STEP: the step cannot run (refusal, text) */
        JOB_EVENT_WORKER_ENDED,         /* the step's worker is gone (status, text, unsafe) */
        _JOB_EVENT_MAX,
} JobEventType;

typedef enum JobRefusal {
        JOB_REFUSED_VERDICT,            /* the step verdict: text the reason, error_name its name */
        JOB_REFUSED_SPEC,               /* the spec could not be serialised: text says why */
        JOB_REFUSED_RUN,                /* the database refused the run's row for good: text says why */
        JOB_REFUSED_WORKER,             /* the worker could not be started: text "PATH: why" */
        JOB_REFUSED_STOPPED,            /* not started: a cancel or interrupt came while it was set up
                                         * (its target being checked); no text */
} JobRefusal;

typedef struct JobEvent {
        JobEventType type;
        int error;                      /* STORE_FAILED: a negative errno */
        const char *text;               /* STORE_REFUSED, STEP_REFUSED, WORKER_ENDED (failed) */
        JobRefusal refusal;             /* STEP_REFUSED */
        const char *error_name;         /* STEP_REFUSED (verdict) */
        WorkerStatus status;            /* WORKER_ENDED */
        bool unsafe;                    /* WORKER_ENDED: the worker refused the target on safety grounds */
        uint32_t uid;                   /* CANCEL */
        /* WORKER_ENDED (succeeded): the main figures (stability.h) of the current step's succeeded
         * runs, this one last; borrowed. What until_stddev is judged on; may be empty otherwise. */
        const double *figures;
        size_t n_figures;
} JobEvent;

typedef enum JobActionType {
        /* Requests: their outcome is the next event. */
        JOB_ACTION_STORE_RUNNING,       /* write state running: STORED, STORE_FAILED or STORE_REFUSED */
        JOB_ACTION_STORE_CANCEL,        /* store the end (state, text) at once or not at all, nothing
                                         * queued kept on failure: STORED or STORE_FAILED */
        JOB_ACTION_BEGIN_STEP,          /* verdict, run row and worker of step: STEP_STARTED,
                                         * STEP_REFUSED, or STORE_FAILED for the run row */
        JOB_ACTION_FLUSH,               /* write what waits: STORED or STORE_FAILED */
        JOB_ACTION_STORE_END,           /* queue the end (state, text) after what waits, and flush:
                                         * STORED or STORE_FAILED */
        /* Effects. */
        JOB_ACTION_SCHEDULE,            /* ask the owner to look at the queue */
        JOB_ACTION_ANNOUNCE_STARTED,    /* it is running now (stored): tell the owner and the bus */
        JOB_ACTION_STOP_WORKER,         /* stop the step's worker (interrupt: benchd stops, kill sooner) */
        JOB_ACTION_FINISH_RUN,          /* the worker of step ended: queue its run's end (state; text its
                                         * error, NULL when it succeeded) and let the worker go */
        JOB_ACTION_REMOVE_FILES,        /* remove step's files in the background */
        JOB_ACTION_NEXT_STEP,           /* step is now the current one (in rounds: its run is repeat, the
                                         * round): tell the bus */
        JOB_ACTION_REPEAT_STEP,         /* step runs again, as repeat (0-based): tell the bus */
        JOB_ACTION_STORE_WAIT,          /* a write failed (error): try again later, say so in Error */
        JOB_ACTION_STORE_GIVE_UP,       /* a write failed (error) while benchd stops and no worker is
                                         * left: benchd exits with it not stored; the next start-up
                                         * settles the job from its runs */
        JOB_ACTION_ANNOUNCE_END,        /* its end (state) is stored: tell the owner and the bus */
        JOB_ACTION_REPLY,               /* the answer to CANCEL: error, 0 or a negative errno */
        _JOB_ACTION_MAX,
} JobActionType;

typedef struct JobAction {
        JobActionType type;
        uint32_t step;                  /* BEGIN_STEP, FINISH_RUN, REMOVE_FILES, NEXT_STEP, REPEAT_STEP */
        uint32_t repeat;                /* BEGIN_STEP, FINISH_RUN, REPEAT_STEP: the run's repeat of the step */
        JobState state;                 /* FINISH_RUN: the run's; STORE_CANCEL, STORE_END, ANNOUNCE_END: the job's */
        const char *text;               /* FINISH_RUN, STORE_CANCEL, STORE_END: the error; points into the core */
        int error;                      /* STORE_WAIT, STORE_GIVE_UP, REPLY */
        bool interrupt;                 /* STOP_WORKER */
} JobAction;

#define JOB_ACTIONS_MAX 6u

typedef struct JobActions {
        JobAction actions[JOB_ACTIONS_MAX];
        size_t n;
} JobActions;

typedef struct JobCore {
        JobStage stage;
        JobState state;                 /* what the bus and the jobs row say */
        uint32_t step;                  /* the current step */
        uint32_t repeat;                /* its current run, 0-based (runs.repeat); in rounds, the round */
        bool rounds;                    /* a matrix in rounds (rounds.h) */
        uint32_t visit;                 /* in rounds: the current step's position in its round */
        bool round_again;               /* in rounds: a step of this round wants another run */
        size_t n_steps;
        const JobSpec *steps;           /* borrowed: their workloads name the step in messages */
        bool waiting;                   /* a write failed; the retry timer is armed */
        bool cancel_requested;
        bool interrupt_requested;
        JobState end_state;             /* CANCELLING, ENDING, ENDED */
        char *end_error;                /* the job's error at its end */
        char *run_error;                /* the error of the last run that did not succeed */
} JobCore;

/* steps: n_steps ≥ 1, borrowed for the core's life. */
void job_core_init(JobCore *c, const JobSpec *steps, size_t n_steps);
void job_core_clear(JobCore *c);

/* Applies e: the new stage in c, what to do in *ret (texts in it point into c and are valid until
 * the next call). -EINVAL for an event that cannot happen in the stage; then nothing changed and
 * *ret is empty. */
int job_core_handle(JobCore *c, const JobEvent *e, JobActions *ret);

JobAfterStore job_core_after_store(const JobCore *c);
/* Whether a step's worker runs (it must be stopped and waited for before the job can end). */
bool job_core_has_worker(const JobCore *c);

const char *job_stage_to_string(JobStage s);
const char *job_event_type_to_string(JobEventType t);
const char *job_action_type_to_string(JobActionType t);
