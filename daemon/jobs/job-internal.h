/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What the step runner's two files share (not for use outside daemon/jobs/job*.c): job.c runs the
 * job (storing, steps, the dispatch), job-worker.c takes what the worker of a step tells it (its
 * records, its phase, its filesystem, its end) through job_worker_callbacks.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "jobs/job.h"
#include "jobs/supervisor.h"
#include "shared/log.h"

#define job_log(j, level, fmt, ...) log_full((level), "job %" PRIu64 ": " fmt, (j)->id, ##__VA_ARGS__)
#define job_log_errno(j, level, error, fmt, ...) \
        log_full_errno((level), (error), "job %" PRIu64 ": " fmt, (j)->id, ##__VA_ARGS__)

/* The owner's changed callback with the properties named. */
void job_changed_strv(Job *j, const char *const *names);
#define job_changed(j, ...) job_changed_strv((j), (const char *const[]) { __VA_ARGS__, NULL })

/* Progress over every run the job plans, the current one at fraction. */
void job_set_progress(Job *j, double fraction);
/* Whether the current run makes its matrix entry's filesystem. */
bool job_run_makes_fs(const Job *j);
/* Hands an event to the core and does what it returns. */
int job_dispatch(Job *j, JobEvent e);

/* job-worker.c: what the worker of a step tells the job. */
extern const WorkerCallbacks job_worker_callbacks;
/* "ext4 loop1 (entry 2 of the matrix): text" for a matrix step, NULL for other steps. */
char *job_entry_text(Job *j, const char *text);
/* Queues how the filesystem of run_id was made. */
void job_queue_run_fs(Job *j, uint64_t run_id, const ProtoFsInfo *info);
