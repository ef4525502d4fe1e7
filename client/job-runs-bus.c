/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A job's runs, loaded for its views (job-runs.h): one QueryRuns {"job": ID} brings them all; GetRun
 * is asked once, for the environment (host, CPU count) that QueryRuns' columns lack, and again by
 * the views that need a run's phases (bonnie++'s metadata tests), through the fetchers set here.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bus.h"
#include "job-runs.h"
#include "record.h"
#include "verbs-results.h"

static int fetch_run(const JobRuns *j, uint64_t id, json_object **ret) {
        return get_run(j->bus, id, ret);
}

/* The profile's steps (GetProfile), NULL when benchd does not know it (any more). */
static json_object *fetch_profile(const JobRuns *j) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        json_object *steps = NULL;

        if (!j->profile ||
            sd_bus_call_method(j->bus, BENCHD_BUS_NAME, BENCHD_MANAGER_PATH, BENCHD_MANAGER_IFACE, "GetProfile", NULL,
                               &reply, "s", j->profile) < 0 ||
            bus_message_read_json(reply, &steps) < 0)
                return NULL;
        return steps;
}

int job_runs_load(const BenchctlOptions *opts, uint64_t job, JobRuns *ret) {
        _cleanup_json_ json_object *filter = json_object_new_object();
        JobRuns j = { .job = job, .opts = opts, .fetch_run = fetch_run, .fetch_profile = fetch_profile };
        int r;

        if (!filter)
                return BENCHCTL_EXIT_FAILURE;
        json_object_object_add(filter, "job", json_object_new_uint64(job));
        json_object_object_add(filter, "limit", json_object_new_uint64(JOB_RUNS_MAX));
        r = bus_connect(opts, &j.bus);
        if (r != 0)
                return r;
        r = query_runs(j.bus, filter, &j.runs);
        if (r != 0) {
                job_runs_clear(&j);
                return r;
        }
        if (json_object_array_length(j.runs) == 0) {
                fprintf(stderr, "benchctl: job %" PRIu64 " has no runs (yet); benchctl status %" PRIu64
                        " shows the job, benchctl jobs --all lists the jobs there are\n", job, job);
                job_runs_clear(&j);
                return BENCHCTL_EXIT_NOT_FOUND;
        }
        if (job_runs_index(&j) < 0) {
                job_runs_clear(&j);
                return BENCHCTL_EXIT_FAILURE;
        }
        /* The environment is not in QueryRuns' columns; one run's is the machine's. */
        if (j.n_ok > 0) {
                r = get_run(j.bus, run_id(j.ok[0]), &j.first);
                if (r != 0) {
                        job_runs_clear(&j);
                        return r;
                }
                j.env = json_column(j.first, "environment");
        }
        *ret = j;
        return 0;
}
