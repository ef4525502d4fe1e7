/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * benchctl's model: the runs and jobs it fetches from benchd over the bus, as JSON (the columns of
 * schema/README.md "View `run_summary`", the Job properties), for the verbs above to format.
 * Errors are printed, as bus.h's calls print them, and returned as BENCHCTL_EXIT_* (the _quiet calls print
 * nothing and return -errno). A job's runs for its views: job_runs_load() (job-runs.h).
 */
#pragma once

#include <json-c/json.h>
#include <stdint.h>
#include <systemd/sd-bus.h>

#include "benchctl.h"

/* The QueryRuns filter of the command line's --device, --workload, ..., --limit. -ENOMEM. */
int run_filter_from_args(const BenchctlOptions *opts, json_object **ret);
/* QueryRuns: an array of runs. */
int query_runs(sd_bus *bus, json_object *filter, json_object **ret);
int query_runs_quiet(sd_bus *bus, json_object *filter, json_object **ret);
/* GetRun: one run's columns. */
int get_run(sd_bus *bus, uint64_t id, json_object **ret);
/* Every page of GetSamplesPage: the run's samples in one array. */
int get_samples(sd_bus *bus, uint64_t id, json_object **ret);
/* GetHistogram, printing nothing: -errno when benchd has none. */
int get_histogram_quiet(sd_bus *bus, uint64_t id, json_object **ret);
/* GetRun, all of GetSamplesPage and GetHistogram: the run with its "samples" and "histogram". */
int run_details(sd_bus *bus, uint64_t id, json_object **ret);
/* CompareRuns by by over the runs of filter, with --baseline and --confidence: {"by", "level",
 * "baseline", "groups", "cells"}. */
int compare_call(const BenchctlOptions *opts, sd_bus *bus, const char *by, json_object *filter, json_object **ret);
/* ListJobs: an array of jobs; what names the call in its error. */
int list_jobs(sd_bus *bus, const char *what, json_object *filter, json_object **ret);
