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

/* Prints the view of job's runs, chosen by their profile (--json: the same figures as an object); a
 * filesystem matrix entry by entry (the entries --entry and --fs-type choose), then compared.
 * Returns an exit code. */
int job_view(const BenchctlOptions *opts, uint64_t job);
struct JobRuns;
/* The view of a loaded job, or of one entry's runs (job_runs_narrow()): the profile's own. */
int job_view_one(const struct JobRuns *j);
/* The view of a loaded job: job_view_one(), or for a matrix every chosen entry's and the comparison. */
int job_view_loaded(struct JobRuns *j);
/* The --json object of that view for a loaded job (job-runs.h), for `benchctl report`: *ret is a
 * new reference; nothing is printed but errors. Returns an exit code. */
int job_view_json(struct JobRuns *j, struct json_object **ret);
/* Loads a job for what ("show", "report", "export"): refuses the filters of results that do not
 * apply to a whole job, and marks the entries --entry and --fs-type choose (an error naming the
 * entries there are when none is, or when the job is no matrix). Returns 0 or an exit code. */
int job_runs_load_selected(const BenchctlOptions *opts, uint64_t job, const char *what, struct JobRuns *ret);
/* Writes job's runs to stdout as format (EXPORT_BONNIE_CSV or EXPORT_IOZONE): one report or line
 * per chosen entry of a matrix. Returns an exit code. */
int job_export(const BenchctlOptions *opts, uint64_t job, ExportFormat format);
