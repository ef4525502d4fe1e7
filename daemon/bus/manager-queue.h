/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The shell of the queue core (manager-queue.c): what manager.c's handlers, manager-load.c and
 * manager-autorun.c call to have the queue do something, and the state it keeps in the Manager.
 * It feeds jobs/queue.c's pure core the events (a call, polkit's answer, the verdicts of the
 * targets, a job that started or ended, a removal of files that ended, SIGTERM, the bound on
 * shutdown) and carries out the actions the core answers with: the stages of a SubmitJob call
 * (polkit, the checks of its targets in a helper process, the insert, the reply), cancellations,
 * starting and forgetting jobs (the job list), the removals of files, the timers of the scheduler
 * and of the shutdown. It calls manager.c only through its accessors, and manager-load.c not at all
 * (the end of a removal is told through QueueShell.removal_done).
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <systemd/sd-bus.h>
#include <systemd/sd-event.h>

#include "bus/manager.h"
#include "jobs/job.h"
#include "jobs/queue.h"
#include "jobs/removals.h"

typedef struct Submit Submit;
typedef struct CancelCall CancelCall;

/* What manager-queue.c keeps in the Manager (manager_queue_shell()). */
typedef struct QueueShell {
        /* The queue's decisions (jobs/queue.h): the jobs' order and states, the calls on their way
         * in, whether benchd stops. The shell feeds it and does what it says. */
        Queue queue;
        Job *jobs_head, *jobs_tail;     /* the Job objects, in the queue's order */
        /* Removals of ended steps' files still running: no job starts while there are any, so that
         * no benchmark measures their I/O (the core counts them). */
        Removals *removals;
        /* SubmitJob calls on their way in (polkit, the verdicts of their steps, the insert), each
         * holding its message: answered when the core says, at the latest at shutdown. */
        Submit *submits;
        /* Cancellations of others' jobs waiting for polkit, each holding its message. */
        CancelCall *cancels;
        sd_event_source *dispatch_source;
        sd_event_source *exit_source;
        /* Told when the removal of job_id's files has ended (before the core hears of it): the
         * settling of a previous life's job (manager-load.c), wired up by manager.c. */
        void (*removal_done)(Manager *m, uint64_t job_id);
} QueueShell;

/* manager.c's accessor of the part above. */
QueueShell *manager_queue_shell(Manager *m);

/* What every job is given as its callbacks (JobContext.callbacks), userdata the Manager. */
extern const JobCallbacks manager_job_callbacks;

/* manager_new(): the core, the removals (removal_done is called when one ends) and the scheduler's
 * defer source (off until manager_schedule()). */
int manager_queue_init(Manager *m, const QueueConfig *config, Db *db);
int manager_queue_start(Manager *m);
/* manager_free(), in two halves so that the order of the teardown stays: first the jobs and the
 * SubmitJob calls (their checks killed), then the cancellations, the removals still running, the
 * core and the timers. Calls still waiting go unanswered: the bus is going too. */
void manager_queue_drop_jobs(Manager *m);
void manager_queue_clear(Manager *m);

/* Looks at the queue on the next loop iteration. */
void manager_schedule(Manager *m);
/* SubmitJob, its call read (the sender's uid, the spec finalized and its steps expanded): handed
 * to the core, which answers the call now or later. spec and steps are taken in every case (spec is
 * left initialised). Returns what the handler returns. */
int manager_submit_call(Manager *m, sd_bus_message *message, uint32_t uid, JobSpec *spec, JobSpec *steps,
                        size_t n_steps, sd_bus_error *error);
/* A queued job of a previous life, restored: appended to the queue (in order of submission) and
 * announced. A negative errno when the queue cannot take it: then j is the caller's to free. */
int manager_add_restored(Manager *m, Job *j);
/* The previous life's queue is restored: the scheduler looks at it. */
void manager_loaded(Manager *m);
/* Removes job_id's files in target (step < 0: of all its steps) in the background, as uid (whose
 * files they are), recorded in pending_removals until it has finished. 1 when the removal runs, 0
 * when there is nothing to remove, a negative errno when it could not be started. */
int manager_cleanup_files(Manager *m, const char *target, uint64_t job_id, int step, uint32_t uid);
/* Whether the removal of all of job_id's files in target runs. */
bool manager_removing_all(Manager *m, uint64_t job_id, const char *target);
