/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What a submission turns into, without the bus: the steps of its spec (the profile's, or the spec
 * itself; for a filesystem matrix those once per entry), and once its targets are judged, its row
 * in the jobs table and its Job. The queue core (queue.h) decides when; bus/manager.c calls these
 * for SubmitJob and benchd's own submissions, manager-load.c the first for jobs of a previous life.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "jobs/job.h"
#include "jobs/step-verdict.h"
#include "shared/job-state.h"
#include "shared/spec.h"

/* The job's steps: the profile's (looked up in profile_dirs, highest priority first), or the spec
 * (finalized) itself; for a filesystem matrix those once per entry. -errno, with *reterr saying
 * why for a spec or profile that cannot be expanded. */
int submit_expand(char *const *profile_dirs, const JobSpec *spec, JobSpec **ret_steps, size_t *ret_n, char **reterr);

typedef struct SubmitInsert {
        JobSpec *spec;                  /* finalized; moved into the Job */
        JobSpec **steps;                /* taken by the Job (*steps set to NULL, *n_steps to 0) */
        size_t *n_steps;
        uint32_t uid;
        JobTrigger trigger;
        int64_t autorun_id;             /* > 0: the autoruns row the job is queued for, in one transaction */
        /* One per step, or for a matrix one per device of spec->devices (none refused). */
        const StepVerdict *verdicts;
        size_t n_verdicts;
} SubmitInsert;

/* The job's row (state queued) and its Job, its steps' targets identified as the verdicts found them,
 * to be compared at each step's start. 0 with *ret; or a negative errno, with *ret_error_name (a
 * D-Bus error name) and *ret_text (what went wrong and what to do; freed by the caller) when it says
 * more: nothing is queued then. */
int submit_insert(const JobContext *ctx, const SubmitInsert *in, Job **ret, const char **ret_error_name,
                  char **ret_text);
