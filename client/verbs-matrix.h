/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* compare --job ID and show --job ID for filesystem matrix jobs (verbs-matrix.c). */
#pragma once

#include <json-c/json.h>
#include <stdbool.h>
#include <stdint.h>
#include <systemd/sd-bus.h>

/* The job's table of workloads × entries with % rows against baseline (NULL: the first entry);
 * entries: also how each entry's filesystem was made (show --job). A BENCHCTL_EXIT_* code. */
int matrix_report(uint64_t job, const char *baseline, bool entries);
/* What `compare --job ID --json` prints, as an object (*ret). Returns 0 or an exit code after
 * printing why. */
int matrix_report_json(sd_bus *bus, uint64_t job, const char *baseline, json_object **ret);

/* 1 when the job has runs of a filesystem matrix, 0 when not, or minus a BENCHCTL_EXIT_* code
 * (benchd not reachable, ...). */
int matrix_job_probe(uint64_t job);
