/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The states of a job, the one list of their names: the Job object's State property, the
 * jobs.state column, the ListJobs filter and benchctl's waiting all use these words, so they are
 * spelled once; and what queued a job (TriggeredBy, jobs.triggered_by). Pure, for all three
 * programs.
 */
#pragma once

#include <stdbool.h>

typedef enum JobState {
        JOB_QUEUED,
        JOB_RUNNING,
        JOB_SUCCEEDED,
        JOB_FAILED,
        JOB_CANCELLED,
        JOB_INTERRUPTED,
        _JOB_STATE_MAX,
        _JOB_STATE_INVALID = -22,
} JobState;

/* NULL for a value that is no state. */
const char *job_state_to_string(JobState s);
/* _JOB_STATE_INVALID for NULL or a word that is no state. */
JobState job_state_from_string(const char *s);
/* The states a job never leaves: succeeded, failed, cancelled, interrupted. False for an invalid
 * value. A run ends in one of these too (runs.status). */
bool job_state_is_final(JobState s);

/* What queued a job: a SubmitJob call, or a disk that appeared with BENCHD_AUTORUN set. */
typedef enum JobTrigger {
        JOB_TRIGGER_BUS,
        JOB_TRIGGER_UDEV,
        _JOB_TRIGGER_MAX,
        _JOB_TRIGGER_INVALID = -22,
} JobTrigger;

/* "bus", "udev"; NULL for a value that is no trigger. */
const char *job_trigger_to_string(JobTrigger t);
/* _JOB_TRIGGER_INVALID for NULL or a word that is no trigger. */
JobTrigger job_trigger_from_string(const char *s);
