/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A job's runs for its views (job-runs.h). One QueryRuns {"job": ID} brings them all; only
 * succeeded runs count, ordered by step, repeat (a column another branch adds; 0 when absent) and
 * id. GetRun is asked once, for the environment (host, CPU count) that QueryRuns' columns lack.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bus.h"
#include "job-runs.h"
#include "record.h"
#include "verbs-results.h"
#include "views-format.h"
#include "text.h"

void job_runs_clear(JobRuns *j) {
        free(j->ok);
        json_object_put(j->runs);
        json_object_put(j->env);
        json_object_put(j->first);
        sd_bus_flush_close_unref(j->bus);
        *j = (JobRuns) {};
}

static int run_order(const void *a, const void *b) {
        json_object *x = *(json_object *const *) a, *y = *(json_object *const *) b;
        uint64_t kx[3] = { rec_u64_or(x, "step", 0), rec_u64_or(x, "repeat", 0), run_id(x) };
        uint64_t ky[3] = { rec_u64_or(y, "step", 0), rec_u64_or(y, "repeat", 0), run_id(y) };

        for (size_t i = 0; i < 3; i++)
                if (kx[i] != ky[i])
                        return kx[i] < ky[i] ? -1 : 1;
        return 0;
}

bool job_wants_json(const JobRuns *j) {
        return arg_json || j->json_sink;
}

void job_json_emit(const JobRuns *j, json_object *o) {
        /* Every view says how many of its runs a cache served (each run's served_from is GetRun's). */
        if (json_object_is_type(o, json_type_object))
                json_object_object_add(o, "cache_served_runs", json_object_new_uint64(runs_cache_served(j->ok, j->n_ok)));
        if (j->json_sink) {
                json_object_put(*j->json_sink);
                *j->json_sink = json_object_get(o);
        } else
                print_json(o);
}

/* A JSON text column ("environment", "spec") as an object, or NULL. */
json_object *json_column(json_object *o, const char *key) {
        const char *s = rec_str(o, key);
        json_object *v;

        if (!s)
                return NULL;
        v = json_tokener_parse(s);
        if (v && !json_object_is_type(v, json_type_object)) {
                json_object_put(v);
                return NULL;
        }
        return v;
}

int job_runs_load(uint64_t job, JobRuns *ret) {
        _cleanup_json_ json_object *filter = json_object_new_object();
        JobRuns j = { .job = job };
        size_t n;
        int r;

        if (!filter)
                return BENCHCTL_EXIT_FAILURE;
        json_object_object_add(filter, "job", json_object_new_uint64(job));
        json_object_object_add(filter, "limit", json_object_new_uint64(JOB_RUNS_MAX));
        r = bus_connect(&j.bus);
        if (r != 0)
                return r;
        r = query_runs(j.bus, filter, &j.runs);
        if (r != 0) {
                job_runs_clear(&j);
                return r;
        }
        n = json_object_array_length(j.runs);
        if (n == 0) {
                fprintf(stderr, "benchctl: job %" PRIu64 " has no runs (yet); benchctl status %" PRIu64
                        " shows the job, benchctl jobs --all lists the jobs there are\n", job, job);
                job_runs_clear(&j);
                return BENCHCTL_EXIT_NOT_FOUND;
        }
        j.ok = calloc(n, sizeof(json_object *));
        if (!j.ok) {
                job_runs_clear(&j);
                return BENCHCTL_EXIT_FAILURE;
        }
        for (size_t i = 0; i < n; i++) {
                json_object *run = json_object_array_get_idx(j.runs, i);
                const char *p = rec_str(run, "profile");

                if (!j.profile && p && *p)
                        j.profile = p;
                if (streq_ptr(rec_str(run, "status"), "succeeded"))
                        j.ok[j.n_ok++] = run;
                else
                        j.n_other++;
        }
        qsort(j.ok, j.n_ok, sizeof(json_object *), run_order);
        /* The environment is not in QueryRuns' columns; one run's is the machine's. */
        if (j.n_ok > 0) {
                r = get_run(j.bus, run_id(j.ok[0]), &j.first);
                if (r != 0) {
                        job_runs_clear(&j);
                        return r;
                }
                j.env = json_column(j.first, "environment");
        }
        *ret = j;
        return 0;
}

/* The number of CPUs the run's machine had, 0 when the environment does not say. */
uint64_t job_cpus(const JobRuns *j) {
        return rec_u64_or(j->env, "cpus", 0);
}

const char *job_host(const JobRuns *j) {
        return rec_str(j->env, "host") ?: "localhost";
}

/* "Job 12 (bonnie profile) on /mnt/t (ext4, loop3), 5 runs" */
void print_job_head(const JobRuns *j, const char *what) {
        json_object *run = j->n_ok > 0 ? j->ok[0] : json_object_array_get_idx(j->runs, 0);
        const char *fs = rec_str(run, "fs_type"), *dev = run_device(run);

        text_printf("Job %" PRIu64 " (%s%s) on %s", j->job, j->profile ?: "no profile", j->profile ? " profile" : "",
                    rec_str(run, "target") ?: "?");
        if (fs || dev)
                text_printf(" (%s%s%s)", fs ?: "", fs && dev ? ", " : "", dev ?: "");
        printf(", %zu succeeded run%s", j->n_ok, j->n_ok == 1 ? "" : "s");
        if (j->n_other > 0)
                printf(" (%zu more did not succeed and are left out)", j->n_other);
        text_printf("%s%s\n", what ? ": " : "", what ?: "");
}

/* ---- metrics ---- */

double run_cpu_pct(json_object *run) {
        double u, s;

        if (!rec_double(run, "cpu_user_pct", &u) || !rec_double(run, "cpu_sys_pct", &s))
                return NAN;
        return u + s;
}

double run_process_cpu_pct(json_object *run) {
        double v;

        return rec_double(run, "process_cpu_pct", &v) ? v : NAN;
}

void print_job_cache_notes(const JobRuns *j) {
        for (size_t i = 0; i < j->n_ok; i++) {
                uint64_t step = rec_u64_or(j->ok[i], "step", 0);
                _cleanup_free_ json_object **sel = calloc(j->n_ok, sizeof(json_object *));
                bool first = true;
                size_t n = 0;
                char what[128];

                if (!sel)
                        return;
                /* Each step once, at its first run. */
                for (size_t k = 0; k < j->n_ok; k++)
                        if (rec_u64_or(j->ok[k], "step", 0) == step) {
                                first = first && k >= i;
                                sel[n++] = j->ok[k];
                        }
                if (!first)
                        continue;
                snprintf(what, sizeof what, "step %" PRIu64 " (%s, %" PRIu64 " bytes a block)", step + 1,
                         rec_str(j->ok[i], "workload") ?: "?", rec_u64_or(j->ok[i], "block_size", 0));
                print_cache_note(what, sel, n);
        }
}

size_t runs_cache_served(json_object **runs, size_t n) {
        size_t k = 0;

        for (size_t i = 0; i < n; i++)
                k += run_cache_served(runs[i]);
        return k;
}

void print_cache_note(const char *what, json_object **runs, size_t n) {
        size_t page = 0, backing = 0;

        for (size_t i = 0; i < n; i++) {
                const char *s = rec_str(runs[i], "served_from");
                page += streq_ptr(s, "page-cache");
                backing += streq_ptr(s, "backing-file");
        }
        if (page > 0)
                printf("+++++ %s: %zu of %zu run%s served by the page cache, not the device (its counters saw less "
                       "than half of the bytes): the figure is the cache's\n", what, page, n, n == 1 ? " was" : "s were");
        if (backing > 0)
                printf("+++++ %s: %zu of %zu run%s served by a loop device's backing file (the host's cache, or a "
                       "sparse image's holes), not a disk: the figure is the cache's\n", what, backing, n,
                       n == 1 ? " was" : "s were");
}

double run_ops_per_sec(json_object *run) {
        uint64_t ops, us;
        double v;

        if (rec_double(run, "ops_per_s", &v))
                return v;
        if (rec_u64(run, "ops", &ops) && rec_u64(run, "duration_usec", &us) && us > 0)
                return (double) ops / ((double) us / 1e6);
        return run_iops(run);
}

double run_lat_mean(json_object *run) {
        return run_latency_ns(run, "mean");
}

double run_lat_max(json_object *run) {
        return run_latency_ns(run, "max");
}

double run_lat_p50(json_object *run) {
        return run_latency_ns(run, "p50");
}

double run_lat_p99(json_object *run) {
        return run_latency_ns(run, "p99");
}

double run_iowait_pct(json_object *run) {
        return rec_double_or(run, "iowait_pct", NAN);
}

double run_user_pct(json_object *run) {
        return rec_double_or(run, "cpu_user_pct", NAN);
}

double run_sys_pct(json_object *run) {
        return rec_double_or(run, "cpu_sys_pct", NAN);
}

/* The mean of metric over runs (NAN when none has it), and its values. */
double runs_mean(json_object **runs, size_t n, double (*metric)(json_object *), double *ret_stddev) {
        _cleanup_free_ double *v = calloc(MAX(n, (size_t) 1), sizeof(double));
        double mean = NAN, sd = NAN;

        if (v) {
                for (size_t i = 0; i < n; i++)
                        v[i] = metric(runs[i]);
                stats_mean_stddev(v, n, &mean, &sd);
        }
        if (ret_stddev)
                *ret_stddev = sd;
        return mean;
}

bool is_workload(json_object *run, const void *arg) {
        return streq_ptr(rec_str(run, "workload"), arg);
}

/* The succeeded runs for which pred holds, in order (borrowed). */
size_t job_select(const JobRuns *j, RunPredicate pred, const void *arg, json_object ***ret) {
        json_object **sel = calloc(MAX(j->n_ok, (size_t) 1), sizeof(json_object *));
        size_t n = 0;

        if (!sel) {
                *ret = NULL;
                return 0;
        }
        for (size_t i = 0; i < j->n_ok; i++)
                if (pred(j->ok[i], arg))
                        sel[n++] = j->ok[i];
        *ret = sel;
        return n;
}

json_object *json_number(double v) {
        return isfinite(v) ? json_object_new_double(v) : NULL;
}
