/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What the job views share (verbs-views.c, views-anchors.c): a job's runs loaded once, the succeeded
 * ones in step order, and the figures of a run or the mean over several (repeats of a step, or runs
 * of one shape), NAN where a run does not have them. The views and exports of iozone and bonnie++,
 * the two anchors whose own files benchctl also writes, live in views-anchors.c.
 *
 * A filesystem matrix job's runs belong to entries (ext4, btrfs, ...: runs.matrix_entry), and every
 * figure a view shows must be one entry's: the job lists its entries, and job_runs_narrow() gives
 * the view of one entry's runs, which the views take like a job of their own. The runs are loaded
 * over the bus (model.c, which also fills the two fetchers the views call for more than
 * QueryRuns has); everything here is pure, so the client's unit test drives the views and exports
 * with runs of its own.
 */
#pragma once

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <systemd/sd-bus.h>

#include "benchctl.h"

/* More runs than any profile has steps times repeats. */
#define JOB_RUNS_MAX 10000

/* One entry of a filesystem matrix job. */
typedef struct JobEntry {
        uint64_t index;         /* runs.matrix_entry */
        char *name;             /* as the job's tables (and CompareRuns by matrix) name it: "ext4", "ext4 loop1"
                                 * (layout single over several devices), "btrfs raid1"; " #INDEX" added to a
                                 * name two entries share */
        char *label;            /* the name without spaces, for files and bonnie++'s name field: "ext4-loop1" */
        char *place;            /* where it ran: "ext4 on loop0", "btrfs raid1 on loop1+loop2" */
        json_object *first;     /* its first run, a succeeded one if it has any (borrowed) */
        size_t n_ok;            /* its succeeded runs */
        bool selected;          /* chosen by --entry/--fs-type (all, without them) */
} JobEntry;

typedef struct JobRuns JobRuns;
struct JobRuns {
        uint64_t job;
        sd_bus *bus;
        json_object *runs;      /* QueryRuns' reply */
        json_object **ok;       /* the succeeded runs, by step, repeat, id (borrowed from runs) */
        size_t n_ok;
        size_t n_other;         /* runs that did not succeed */
        const char *profile;    /* of the job, NULL for a single workload */
        json_object *env;       /* environment of the first succeeded run; NULL if unknown */
        json_object *first;     /* GetRun of that run */
        const BenchctlOptions *opts; /* the command line: --json, --no-legend */
        json_object **json_sink; /* set: a view hands its --json object here instead of printing it */
        JobEntry *entries;      /* a matrix job's entries in entry order; NULL and 0 for other jobs */
        size_t n_entries;
        const JobEntry *entry;  /* job_runs_narrow(): the entry these runs are of (borrowed) */
        bool borrowed;          /* job_runs_narrow(): everything but ok is the whole job's */
        /* GetRun of a run (the columns QueryRuns lacks: phases, spec) and GetProfile of the job's
         * profile (NULL when benchd does not know it); an exit code, or 0 with *ret. */
        int (*fetch_run)(const JobRuns *j, uint64_t id, json_object **ret);
        json_object *(*fetch_profile)(const JobRuns *j);
};

/* Connects, loads the job's runs (QueryRuns {"job": job}) and the first succeeded run's
 * environment (model.c). Returns 0 or an exit code after printing why (a job without runs:
 * NOT_FOUND). */
int job_runs_load(const BenchctlOptions *opts, uint64_t job, JobRuns *ret);
/* j->runs set (a reference it now owns): sorts out the succeeded runs, the profile and the
 * entries. 0, or -ENOMEM. */
int job_runs_index(JobRuns *j);
void job_runs_clear(JobRuns *j);
/* The runs of entry e (an index into j->entries) as a job of their own, sharing j's (ret's ok is
 * its own: job_runs_clear() frees only that). 0, or -ENOMEM. */
int job_runs_narrow(const JobRuns *j, size_t e, JobRuns *ret);
/* Marks the entries --entry NAME (a name, or a label) and --fs-type TYPE choose (NULL: any), all
 * when both are NULL. 0 when at least one is chosen; else -ENOENT, or -EINVAL for a job that is
 * no matrix, with *reterr (malloc'd) saying what would be right. */
int job_runs_select_entries(JobRuns *j, const char *entry, const char *fs_type, char **reterr);
size_t job_runs_n_selected(const JobRuns *j);

/* The CPUs of the runs' machine (environment "cpus"), 0 when not recorded; its host name. */
uint64_t job_cpus(const JobRuns *j);
const char *job_host(const JobRuns *j);
/* "Job 12 (bonnie profile) on /mnt/t (ext4, loop3), 5 succeeded runs: WHAT"; for one entry of a
 * matrix "Job 12 (dd profile), entry 1 of 2, ext4 on loop0: 2 succeeded runs: WHAT". */
void print_job_head(const JobRuns *j, const char *what);
/* Whether a view builds its --json object (--json, or a sink for `benchctl report`), and where the
 * object goes: into *j->json_sink (a new reference) or printed. One entry's view carries "entry"
 * (its name) and "place". */
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
/* The anchors' own files, written to f: one iozone -R report, or one bonnie++ CSV line, per chosen
 * entry of a matrix job (each titled, or named host-ENTRY, by it), else one for the job. */
int export_iozone(const JobRuns *j, FILE *f);
int export_bonnie_csv(const JobRuns *j, FILE *f);
