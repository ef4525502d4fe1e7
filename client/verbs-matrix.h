/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* compare --job ID and show --job ID for filesystem matrix jobs (verbs-matrix.c). */
#pragma once

#include <json-c/json.h>
#include <stdbool.h>
#include <stdint.h>
#include <systemd/sd-bus.h>

#include "job-runs.h"

/* compare --job ID: the job's entries compared (CompareRuns by matrix, with the filters, --baseline
 * and --confidence of the command line). A BENCHCTL_EXIT_* code. */
int matrix_compare(const BenchctlOptions *opts, uint64_t job);
/* What `compare --job ID --json` prints, as an object (*ret): compare --by's, plus "job". Returns
 * 0 or an exit code after printing why. */
int matrix_compare_json(const BenchctlOptions *opts, sd_bus *bus, uint64_t job, json_object **ret);
/* show --job ID of a matrix job, loaded: each chosen entry's view, how each filesystem was made,
 * the comparison (--json: {job, profile, view: "matrix", entries: [{..., view}], compare}). */
int matrix_show(JobRuns *j);
