/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Waiting for a job to end (submit --wait, run, watch): a live progress line on a terminal from
 * the job's PropertiesChanged, and the end from Manager.JobRemoved. The matches are installed by
 * job_wait_new(), before the job is submitted, so that a job ending quickly cannot be missed.
 */
#pragma once

#include <json-c/json.h>
#include <stdbool.h>
#include <stdint.h>
#include <systemd/sd-bus.h>

#include "shared/job-state.h"
#include "shared/util.h"

typedef struct JobWait JobWait;

/* Subscribes to the signals. Returns 0, or prints the error and returns an exit code (>0). */
int job_wait_new(sd_bus *bus, bool json, JobWait **ret);
JobWait *job_wait_free(JobWait *w);
DEFINE_TRIVIAL_CLEANUP_FUNC(JobWait *, job_wait_free);

/* Follows job id until it ends, then prints its result (or the final job properties as JSON with
 * --json). Returns the exit code: 0 when the job succeeded, 1 when it failed, was cancelled or
 * interrupted, or waiting was interrupted; 4 when there is no such job. */
int job_wait_run(JobWait *w, uint64_t id);

/* The job's properties from its object, or from ListJobs {all} when the object is gone (the job
 * ended more than a while ago). 0, or prints the error and returns an exit code (4: no such job). */
int job_get(sd_bus *bus, uint64_t id, json_object **ret);

/* Jobs read back from the database (ListJobs {all}) carry no Runs: adds them from QueryRuns, in
 * step order. Best effort. */
void job_add_runs_from_history(sd_bus *bus, uint64_t id, json_object *props);

/* The object path of a job. */
int job_path(uint64_t id, char **ret);

/* The until_stddev a job was submitted with ("5", "2.5"), read from its Spec property, in buf; NULL
 * when none was given. */
const char *job_until_stddev(json_object *props, char *buf, size_t size);
/* Where a running job is, from its properties: "step 2 of 3 write, repeat 2/5" (or "repeat 3 (until
 * stddev < 5%, at most 10)"; compact leaves the until part out); "" for a job of one step run once
 * without a workload name. */
void job_where_text(json_object *props, bool compact, char *buf, size_t size);
