/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The steps of a job as they are kept in the jobs row (jobs.steps, schema version 3): each step's
 * finalized spec and the identity its target had when it was checked at SubmitJob. Stored at
 * submit so that a job restored after a restart is the job that was submitted (an edited profile
 * file changes nothing), and so that every step start can tell whether its target is still the
 * object that was checked. Pure: JSON in and out, no database, bus or filesystem.
 */
#pragma once

#include <stddef.h>

#include "shared/spec-check.h"
#include "shared/spec.h"

/* The most member devices a matrix step has (the spec's devices= bound). */
#define JOB_STEP_MEMBERS_MAX 16u

/* One identity per step. An identity whose kind is _TARGET_KIND_INVALID is unknown (a job from
 * before version 3): such a step is checked at start, but cannot be compared with its submit.
 * members: NULL, or JOB_STEP_MEMBERS_MAX identities per step (step i's at i × JOB_STEP_MEMBERS_MAX),
 * of which a matrix step uses one per device in its devices=, in that order; kept in the step's
 * object as "members": [identity, ...]. */
int job_steps_to_json(const JobSpec *steps, const TargetCheck *idents, const TargetCheck *members, size_t n,
                      char **ret);
/* Reads job_steps_to_json() back into finalized specs. -EINVAL with a message on anything else.
 * *ret_members is NULL when no step has members. */
int job_steps_from_json(const char *json, JobSpec **ret_steps, TargetCheck **ret_idents, TargetCheck **ret_members,
                        size_t *ret_n, char **reterr);
