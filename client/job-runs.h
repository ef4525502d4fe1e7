/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What the job views share (verbs-views.c, views-anchors.c): a job's runs loaded once, the succeeded
 * ones in step order, and the figures of a run or the mean over several (repeats of a step, or runs
 * of one shape), NAN where a run does not have them. The views and exports of iozone and bonnie++,
 * the two anchors whose own files benchctl also writes, live in views-anchors.c.
 */
#pragma once

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <systemd/sd-bus.h>

#include "benchctl.h"

/* More runs than any profile has steps times repeats. */
#define JOB_RUNS_MAX 10000

typedef struct JobRuns {
        uint64_t job;
        sd_bus *bus;
        json_object *runs;      /* QueryRuns' reply */
        json_object **ok;       /* the succeeded runs, by step, repeat, id (borrowed from runs) */
        size_t n_ok;
        size_t n_other;         /* runs that did not succeed */
        const char *profile;    /* of the job, NULL for a single workload */
        json_object *env;       /* environment of the first succeeded run; NULL if unknown */
        json_object *first;     /* GetRun of that run */
        json_object **json_sink; /* set: a view hands its --json object here instead of printing it */
} JobRuns;

/* Connects, loads the job's runs (QueryRuns {"job": job}) and the first succeeded run's
 * environment. Returns 0 or an exit code after printing why (a job without runs: NOT_FOUND). */
int job_runs_load(uint64_t job, JobRuns *ret);
void job_runs_clear(JobRuns *j);
/* The CPUs of the runs' machine (environment "cpus"), 0 when not recorded; its host name. */
uint64_t job_cpus(const JobRuns *j);
const char *job_host(const JobRuns *j);
/* "Job 12 (bonnie profile) on /mnt/t (ext4, loop3), 5 succeeded runs: WHAT" */
void print_job_head(const JobRuns *j, const char *what);
/* Whether a view builds its --json object (--json, or a sink for `benchctl report`), and where the
 * object goes: into *j->json_sink (a new reference) or printed. */
bool job_wants_json(const JobRuns *j);
void job_json_emit(const JobRuns *j, json_object *o);
/* A JSON text column of a record ("environment", "spec") parsed, or NULL. */
json_object *json_column(json_object *o, const char *key);

typedef bool (*RunPredicate)(json_object *run, const void *arg);
/* The succeeded runs for which pred holds, in order (the array is malloc'd, the runs borrowed). */
size_t job_select(const JobRuns *j, RunPredicate pred, const void *arg, json_object ***ret);
/* pred: the run's workload is arg (a string). */
bool is_workload(json_object *run, const void *arg);

/* A run's figures. */
double run_cpu_pct(json_object *run);           /* cpu_user_pct + cpu_sys_pct, machine-wide */
double run_process_cpu_pct(json_object *run);   /* the worker's own CPU, % of one CPU (bonnie++'s %CP) */
double run_ops_per_sec(json_object *run);       /* ops_per_s (metadata, seeks), else I/Os per second */
double run_lat_mean(json_object *run);
double run_lat_max(json_object *run);
double run_lat_p50(json_object *run);
double run_lat_p99(json_object *run);
double run_iowait_pct(json_object *run);
double run_user_pct(json_object *run);
double run_sys_pct(json_object *run);
/* The mean of a figure over runs (NAN when none has it), and the sample standard deviation. */
double runs_mean(json_object **runs, size_t n, double (*metric)(json_object *), double *ret_stddev);

/* How many of the runs a cache served rather than their device (run_cache_served()). */
size_t runs_cache_served(json_object **runs, size_t n);
/* Under a figure of runs: "+++++ WHAT: K of N runs were served by the page cache, not the device
 * ..." when a cache served any of them; nothing otherwise. */
void print_cache_note(const char *what, json_object **runs, size_t n);
/* print_cache_note() for each step of the job whose runs a cache served. */
void print_job_cache_notes(const JobRuns *j);

/* A number for --json; null when not finite. */
json_object *json_number(double v);

/* views-anchors.c */
int view_iozone(const JobRuns *j);
int view_bonnie(const JobRuns *j);
int export_iozone(const JobRuns *j);
int export_bonnie_csv(const JobRuns *j);
