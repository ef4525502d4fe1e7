/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What the history verbs share with the device verbs: the QueryRuns filter from the command line,
 * the call itself, and CSV output of runs.
 */
#pragma once

#include <json-c/json.h>
#include <stdbool.h>
#include <stdio.h>
#include <systemd/sd-bus.h>

/* A QueryRuns filter from --device, --workload, ... as a JSON object of typed values. */
int run_filter_from_args(const BenchctlOptions *opts, json_object **ret);
/* QueryRuns; returns 0 or an exit code after printing the error. */
int query_runs(sd_bus *bus, json_object *filter, json_object **ret);
/* The same without printing anything; negative errno on failure. */
int query_runs_quiet(sd_bus *bus, json_object *filter, json_object **ret);
/* GetRun; returns 0 or an exit code after printing the error. */
int get_run(sd_bus *bus, uint64_t id, json_object **ret);
/* What `show RUN --json` prints: GetRun's columns, "samples" (all pages) and "histogram" (when the
 * daemon has one). Returns 0 or an exit code after printing the error. */
int run_details(sd_bus *bus, uint64_t id, json_object **ret);
/* What `compare --by COLUMN --json` prints for the filters on the command line (verbs-compare.c).
 * Returns 0 or an exit code after printing the error. */
int compare_groups_json(const BenchctlOptions *opts, sd_bus *bus, json_object **ret);
/* Manager.CompareRuns by by over filter's runs (QueryRuns' keys), with --baseline and --confidence:
 * {by, level, baseline, groups, cells}. Returns 0 or an exit code after printing the error. */
int compare_call(const BenchctlOptions *opts, sd_bus *bus, const char *by, json_object *filter, json_object **ret);
/* Prints such an object as compare --by's tables (a table per figure: rows of workload shapes,
 * columns of groups; mean ±interval, the % difference, ~ where it is not significant), with a
 * legend naming the test. Returns an exit code. */
int compare_print(const BenchctlOptions *opts, json_object *out);
/* Writes runs as CSV: a header of every key that appears (unless !header), then one line per run. */
int export_csv(FILE *f, json_object *runs, bool header);
