/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * benchctl's model: what it fetches from benchd, below the verbs (model.h). The runs (QueryRuns,
 * GetRun with its samples and histogram, CompareRuns), a job's runs for its views (one QueryRuns
 * {"job": ID}; GetRun once, for the environment that QueryRuns' columns lack, and again by the
 * views that need a run's phases, through the fetchers set here; GetProfile for the profile's
 * steps) and the job list (ListJobs). The verbs format what these return; nothing here prints but
 * the error of a call that failed.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "benchctl.h"
#include "bus.h"
#include "job-runs.h"
#include "model.h"
#include "record.h"
#include "text.h"

int run_filter_from_args(const BenchctlOptions *opts, json_object **ret) {
        json_object *f = json_object_new_object();

        if (!f)
                return -ENOMEM;
        if (opts->device)
                json_object_object_add(f, "device", json_object_new_string(opts->device));
        if (opts->workload)
                json_object_object_add(f, "workload", json_object_new_string(opts->workload));
        if (opts->profile)
                json_object_object_add(f, "profile", json_object_new_string(opts->profile));
        if (opts->fs_type)
                json_object_object_add(f, "fs_type", json_object_new_string(opts->fs_type));
        if (opts->label)
                json_object_object_add(f, "label", json_object_new_string(opts->label));
        if (opts->tags && opts->tags[0])
                json_object_object_add(f, "tag", json_object_new_string(opts->tags[0]));
        if (opts->status)
                json_object_object_add(f, "status", json_object_new_string(opts->status));
        if (opts->job > 0)
                json_object_object_add(f, "job", json_object_new_uint64(opts->job));
        if (opts->since_usec > 0)
                json_object_object_add(f, "since_usec", json_object_new_uint64(opts->since_usec));
        if (opts->until_usec > 0)
                json_object_object_add(f, "until_usec", json_object_new_uint64(opts->until_usec));
        if (opts->limit > 0)
                json_object_object_add(f, "limit", json_object_new_uint64(opts->limit));
        if (opts->fleet)
                json_object_object_add(f, "fleet_uuid", json_object_new_string(opts->fleet));
        *ret = f;
        return 0;
}

int query_runs(sd_bus *bus, json_object *filter, json_object **ret) {
        return bus_call_manager_filter_json(bus, "query runs", "QueryRuns", filter, ret);
}

int query_runs_quiet(sd_bus *bus, json_object *filter, json_object **ret) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *m = NULL, *reply = NULL;
        int r;

        r = bus_new_manager_call(bus, "QueryRuns", &m);
        if (r >= 0)
                r = bus_append_filter(m, filter);
        if (r >= 0)
                r = sd_bus_call(bus, m, 0, NULL, &reply);
        if (r >= 0)
                r = bus_message_read_json(reply, ret);
        return r;
}

/* A Manager call with one run id, without printing errors. */
static int bus_call_manager_quiet(sd_bus *bus, const char *method, json_object **ret, uint64_t id) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        int r;

        r = sd_bus_call_method(bus, BENCHD_BUS_NAME, BENCHD_MANAGER_PATH, BENCHD_MANAGER_IFACE, method, NULL,
                               &reply, "t", id);
        if (r < 0)
                return r;
        return bus_message_read_json(reply, ret);
}

int get_run(sd_bus *bus, uint64_t id, json_object **ret) {
        char what[64];

        snprintf(what, sizeof what, "run %" PRIu64, id);
        return bus_call_manager_json(bus, what, "GetRun", ret, "t", id);
}

/* All of a run's samples, page by page (GetSamplesPage), so a week-long run at 100 ms, which no
 * single D-Bus reply may carry, reads as well as a short one. */
int get_samples(sd_bus *bus, uint64_t id, json_object **ret) {
        _cleanup_json_ json_object *all = json_object_new_array();
        uint64_t from_ms = 0;
        char what[64];
        int r;

        if (!all)
                return BENCHCTL_EXIT_FAILURE;
        snprintf(what, sizeof what, "samples of run %" PRIu64, id);
        for (;;) {
                _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
                _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
                _cleanup_json_ json_object *page = NULL;
                uint64_t next_ms;

                r = sd_bus_call_method(bus, BENCHD_BUS_NAME, BENCHD_MANAGER_PATH, BENCHD_MANAGER_IFACE,
                                       "GetSamplesPage", &error, &reply, "ttu", id, from_ms, (uint32_t) 0);
                if (r < 0)
                        return bus_error_exit(what, &error, r);
                r = bus_message_read_json(reply, &page);
                if (r >= 0)
                        r = sd_bus_message_read(reply, "t", &next_ms);
                if (r < 0) {
                        text_fprintf_errno(stderr, r, "benchctl: %s: cannot parse the reply: %m\n", what);
                        return BENCHCTL_EXIT_FAILURE;
                }
                for (size_t i = 0; i < json_object_array_length(page); i++)
                        json_object_array_add(all, json_object_get(json_object_array_get_idx(page, i)));
                if (next_ms == 0 || next_ms <= from_ms)
                        break;
                from_ms = next_ms;
        }
        *ret = TAKE_PTR(all);
        return 0;
}

int get_histogram_quiet(sd_bus *bus, uint64_t id, json_object **ret) {
        return bus_call_manager_quiet(bus, "GetHistogram", ret, id);
}

int run_details(sd_bus *bus, uint64_t id, json_object **ret) {
        _cleanup_json_ json_object *run = NULL, *samples = NULL, *histogram = NULL;
        int r;

        r = get_run(bus, id, &run);
        if (r != 0)
                return r;
        r = get_samples(bus, id, &samples);
        if (r != 0)
                return r;
        /* The run's columns at the top level, its samples and histogram under their names; best
         * effort for the histogram: a daemon without histograms still shows the rest. */
        json_object_object_add(run, "samples", TAKE_PTR(samples));
        if (get_histogram_quiet(bus, id, &histogram) >= 0)
                json_object_object_add(run, "histogram", TAKE_PTR(histogram));
        *ret = TAKE_PTR(run);
        return 0;
}

int compare_call(const BenchctlOptions *opts, sd_bus *bus, const char *by, json_object *filter, json_object **ret) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *m = NULL, *reply = NULL;
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        _cleanup_json_ json_object *groups = NULL, *baseline = NULL, *cells = NULL, *out = NULL;
        int r;

        r = bus_new_manager_call(bus, "CompareRuns", &m);
        if (r >= 0)
                r = sd_bus_message_append(m, "s", by);
        if (r >= 0)
                r = bus_append_filter(m, filter);
        if (r >= 0)
                r = sd_bus_message_open_container(m, 'a', "{sv}");
        if (r >= 0 && opts->baseline)
                r = sd_bus_message_append(m, "{sv}", "baseline", "s", opts->baseline);
        if (r >= 0 && opts->confidence > 0)
                r = sd_bus_message_append(m, "{sv}", "level", "d", opts->confidence);
        if (r >= 0)
                r = sd_bus_message_close_container(m);
        if (r < 0) {
                text_fprintf_errno(stderr, r, "benchctl: compare: cannot build the call: %m\n");
                return BENCHCTL_EXIT_FAILURE;
        }
        r = sd_bus_call(bus, m, 0, &error, &reply);
        if (r < 0)
                return bus_error_exit("compare runs", &error, r);
        r = bus_message_read_json(reply, &groups);
        if (r >= 0)
                r = bus_message_read_json(reply, &baseline);
        if (r >= 0)
                r = bus_message_read_json(reply, &cells);
        if (r < 0) {
                text_fprintf_errno(stderr, r, "benchctl: compare runs: cannot parse the reply: %m\n");
                return BENCHCTL_EXIT_FAILURE;
        }
        out = json_object_new_object();
        if (!out)
                return BENCHCTL_EXIT_FAILURE;
        json_object_object_add(out, "by", json_object_new_string(by));
        json_object_object_add(out, "level", json_object_new_double(opts->confidence > 0 ? opts->confidence : 0.95));
        json_object_object_add(out, "baseline", TAKE_PTR(baseline));
        json_object_object_add(out, "groups", TAKE_PTR(groups));
        json_object_object_add(out, "cells", TAKE_PTR(cells));
        *ret = TAKE_PTR(out);
        return 0;
}

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

int list_jobs(sd_bus *bus, const char *what, json_object *filter, json_object **ret) {
        return bus_call_manager_filter_json(bus, what, "ListJobs", filter, ret);
}
