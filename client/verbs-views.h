/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A job's runs in the shape of the tool its profile imitates (`benchctl show --job ID`): iozone's
 * record-size matrix, bonnie++'s table, CrystalDiskMark's grid, ioping's summary, dd's closing
 * lines, else a per-step table; and the exports in the anchors' own file formats
 * (`benchctl export --format bonnie-csv|iozone --job ID`). Repeated runs of a step are averaged.
 */
#pragma once

#include <stdint.h>

#include "benchctl.h"

/* Prints the view of job's runs, chosen by their profile (--json: the same figures as an object).
 * Returns an exit code. */
int job_view(uint64_t job);
/* The --json object of that view for a loaded job (job-runs.h), for `benchctl report`: *ret is a
 * new reference; nothing is printed but errors. Returns an exit code. */
struct JobRuns;
int job_view_json(struct JobRuns *j, struct json_object **ret);
/* Writes job's runs to stdout as format (EXPORT_BONNIE_CSV or EXPORT_IOZONE). Returns an exit code. */
int job_export(uint64_t job, ExportFormat format);
