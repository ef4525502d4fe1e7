/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What the history verbs share with the others: compare --by's data and tables, and CSV output of
 * runs. What they fetch from benchd is model.h's.
 */
#pragma once

#include <json-c/json.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <systemd/sd-bus.h>

/* What `compare --by COLUMN --json` prints for the filters on the command line (verbs-compare.c).
 * Returns 0 or an exit code after printing the error. */
int compare_groups_json(const BenchctlOptions *opts, sd_bus *bus, json_object **ret);
/* Prints such an object as compare --by's tables (a table per figure: rows of workload shapes,
 * columns of groups; mean ±interval, the % difference, ~ where it is not significant), with a
 * legend naming the test. Returns an exit code. */
int compare_print(const BenchctlOptions *opts, json_object *out);
/* compare --job ID: a filesystem matrix job's entries compared (CompareRuns by matrix, with the
 * filters, --baseline and --confidence of the command line). A BENCHCTL_EXIT_* code. */
int matrix_compare(const BenchctlOptions *opts, uint64_t job);
/* What `compare --job ID --json` prints, as an object (*ret): compare --by's, plus "job". Returns
 * 0 or an exit code after printing why. */
int matrix_compare_json(const BenchctlOptions *opts, sd_bus *bus, uint64_t job, json_object **ret);
/* Writes runs as CSV: a header of every key that appears (unless !header), then one line per run. */
int export_csv(FILE *f, json_object *runs, bool header);
