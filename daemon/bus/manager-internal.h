/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What the Manager's files (manager*.c) share, and nothing else includes: the parts of the Manager
 * that are theirs, and the settling of jobs a previous life left running (manager-load.c), which
 * ends when their files are removed. The queue's operations are manager-queue.h's.
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

/* manager-load.c */
/* The removal of job_id's files has ended: a job being settled is written as settled now. */
void manager_settle_removed(Manager *m, uint64_t job_id);
/* Forgets the settles still waiting (at shutdown: the next start-up begins them again). */
void manager_settles_clear(Manager *m);
