/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The tables of job state and trigger names (job-state.h).
 */
#include "job-state.h"
#include "util.h"

static const char *const job_state_table[_JOB_STATE_MAX] = {
        [JOB_QUEUED] = "queued",
        [JOB_RUNNING] = "running",
        [JOB_SUCCEEDED] = "succeeded",
        [JOB_FAILED] = "failed",
        [JOB_CANCELLED] = "cancelled",
        [JOB_INTERRUPTED] = "interrupted",
};

const char *job_state_to_string(JobState s) {
        return s >= 0 && s < _JOB_STATE_MAX ? job_state_table[s] : NULL;
}

JobState job_state_from_string(const char *s) {
        if (!s)
                return _JOB_STATE_INVALID;
        for (JobState i = 0; i < _JOB_STATE_MAX; i++)
                if (streq(job_state_table[i], s))
                        return i;
        return _JOB_STATE_INVALID;
}

bool job_state_is_final(JobState s) {
        return s >= 0 && s < _JOB_STATE_MAX && s != JOB_QUEUED && s != JOB_RUNNING;
}

static const char *const job_trigger_table[_JOB_TRIGGER_MAX] = {
        [JOB_TRIGGER_BUS] = "bus",
        [JOB_TRIGGER_UDEV] = "udev",
};

const char *job_trigger_to_string(JobTrigger t) {
        return t >= 0 && t < _JOB_TRIGGER_MAX ? job_trigger_table[t] : NULL;
}

JobTrigger job_trigger_from_string(const char *s) {
        if (!s)
                return _JOB_TRIGGER_INVALID;
        for (JobTrigger i = 0; i < _JOB_TRIGGER_MAX; i++)
                if (streq(job_trigger_table[i], s))
                        return i;
        return _JOB_TRIGGER_INVALID;
}
