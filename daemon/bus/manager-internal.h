/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What manager.c and manager-load.c share, and nothing else includes: the queue's few operations
 * start-up needs, and the settling of jobs a previous life left running, which ends when their
 * files are removed.
 */
#pragma once

#include <stdint.h>

#include "bus/manager.h"
#include "jobs/job.h"

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
