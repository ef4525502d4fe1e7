/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What manager.c and manager-load.c share, and nothing else includes: the queue's few operations
 * start-up needs, and the settling of jobs a previous life left running, which ends when their
 * files are removed.
 */
#pragma once

#include <stdint.h>

#include "bus/manager-autorun.h"
#include "bus/manager-import.h"
#include "bus/manager-metrics.h"
#include "bus/manager.h"
#include "jobs/job.h"

/* A job a previous life left "running", settled (its state written) once its files are removed. */
typedef struct StaleSettle {
        uint64_t id;
        uint64_t started_usec;
        uint64_t finished_usec;
        const char *state;      /* job_state_to_string()'s */
        char *msg;
} StaleSettle;

/* What manager-load.c keeps in the Manager: the jobs being settled. */
typedef struct SettleState {
        StaleSettle *settles;
        size_t n_settles;
} SettleState;

/* The parts of the Manager that are the other files' (manager.c has the struct). */
AutorunState *manager_autorun_state(Manager *m);
ImportState *manager_import_state(Manager *m);
MetricsState *manager_metrics_state(Manager *m);
SettleState *manager_settle_state(Manager *m);
/* What every job is given. */
const JobContext *manager_job_context(Manager *m);
/* Whether the removal of all of job_id's files in target runs. */
bool manager_removing_all(Manager *m, uint64_t job_id, const char *target);

/* manager.c */
/* Looks at the queue on the next loop iteration. */
void manager_schedule(Manager *m);
/* A queued job of a previous life, restored: appended to the queue (in order of submission) and
 * announced. A negative errno when the queue cannot take it: then j is the caller's to free. */
int manager_add_restored(Manager *m, Job *j);
/* The previous life's queue is restored: the scheduler looks at it. */
void manager_loaded(Manager *m);
/* Removes job_id's files in target (step < 0: of all its steps) in the background, as uid (whose
 * files they are), recorded in pending_removals until it has finished. 1 when the removal runs, 0
 * when there is nothing to remove, a negative errno when it could not be started. */
int manager_cleanup_files(Manager *m, const char *target, uint64_t job_id, int step, uint32_t uid);

/* manager-load.c */
/* The removal of job_id's files has ended: a job being settled is written as settled now. */
void manager_settle_removed(Manager *m, uint64_t job_id);
/* Forgets the settles still waiting (at shutdown: the next start-up begins them again). */
void manager_settles_clear(Manager *m);
