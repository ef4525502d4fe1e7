/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The removals of ended jobs' files under way: each recorded in pending_removals first (with the
 * uid whose files they are), so that a benchd that dies before it finishes removes them at its next
 * start, then run in a helper process (cleanup.h), and the record dropped once it finished with
 * nothing left. The owner (the Manager) counts them in the queue core: no job starts while one
 * runs, so that no benchmark measures that unlinking.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <systemd/sd-event.h>

#include "store/db.h"

typedef struct Removals Removals;

/* A removal of job_id's files has ended (finished, given up, or killed after its timeout; logged). */
typedef void (*RemovalDone)(Removals *r, uint64_t job_id, void *userdata);

/* e, db: borrowed, they outlive it. */
int removals_new(sd_event *e, Db *db, RemovalDone done, void *userdata, Removals **ret);
/* Without calling back: the removals still running are killed (the next start-up begins them again). */
Removals *removals_free(Removals *r);

/* Removes job_id's files in target (step < 0: of all its steps) in the background, as uid. 1 when the
 * removal runs (done follows), 0 when there is nothing to remove (no target), a negative errno when it
 * could not be started (logged, with what to remove by hand). */
int removals_start(Removals *r, const char *target, uint64_t job_id, int step, uint32_t uid);

size_t removals_count(const Removals *r);
/* Whether the removal of all of job_id's files in target runs. */
bool removals_has_all(const Removals *r, uint64_t job_id, const char *target);
/* Shutdown gives up on them: each is logged with what to remove by hand. */
void removals_log_abandoned(const Removals *r);
