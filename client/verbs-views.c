/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Views of a job by its profile and the exports in the anchors' formats (verbs-views.h). The runs
 * come from one QueryRuns {"job": ID}; only succeeded runs count, and several of one step (repeats)
 * or of one shape (the same workload and parameters) are averaged. GetRun is asked only for what
 * QueryRuns does not carry: the environment (host, CPU count) and a metadata run's phases. This
 * file picks the runs and computes the figures; views-format.c prints them the tools' way.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bus.h"
#include "config.h"
#include "format.h"
#include "record.h"
#include "shared/spec.h"
#include "table.h"
#include "verbs-results.h"
#include "verbs-views.h"
#include "views-format.h"

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
} JobRuns;

static void job_runs_clear(JobRuns *j) {
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

/* A JSON text column ("environment", "spec") as an object, or NULL. */
static json_object *json_column(json_object *o, const char *key) {
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

static int job_runs_load(uint64_t job, JobRuns *ret) {
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
static uint64_t job_cpus(const JobRuns *j) {
        return rec_u64_or(j->env, "cpus", 0);
}

static const char *job_host(const JobRuns *j) {
        return rec_str(j->env, "host") ?: "localhost";
}

/* "Job 12 (bonnie profile) on /mnt/t (ext4, loop3), 5 runs" */
static void print_job_head(const JobRuns *j, const char *what) {
        json_object *run = j->n_ok > 0 ? j->ok[0] : json_object_array_get_idx(j->runs, 0);
        const char *fs = rec_str(run, "fs_type"), *dev = run_device(run);

        printf("Job %" PRIu64 " (%s%s) on %s", j->job, j->profile ?: "no profile", j->profile ? " profile" : "",
               rec_str(run, "target") ?: "?");
        if (fs || dev)
                printf(" (%s%s%s)", fs ?: "", fs && dev ? ", " : "", dev ?: "");
        printf(", %zu succeeded run%s", j->n_ok, j->n_ok == 1 ? "" : "s");
        if (j->n_other > 0)
                printf(" (%zu more did not succeed and are left out)", j->n_other);
        printf("%s%s\n", what ? ": " : "", what ?: "");
}

/* ---- metrics ---- */

static double run_cpu_pct(json_object *run) {
        double u, s;

        if (!rec_double(run, "cpu_user_pct", &u) || !rec_double(run, "cpu_sys_pct", &s))
                return NAN;
        return u + s;
}

static double run_ops_per_sec(json_object *run) {
        uint64_t ops, us;
        double v;

        if (rec_double(run, "ops_per_s", &v))
                return v;
        if (rec_u64(run, "ops", &ops) && rec_u64(run, "duration_usec", &us) && us > 0)
                return (double) ops / ((double) us / 1e6);
        return run_iops(run);
}

static double run_lat_mean(json_object *run) {
        return run_latency_ns(run, "mean");
}

static double run_lat_max(json_object *run) {
        return run_latency_ns(run, "max");
}

static double run_lat_p50(json_object *run) {
        return run_latency_ns(run, "p50");
}

static double run_lat_p99(json_object *run) {
        return run_latency_ns(run, "p99");
}

static double run_iowait_pct(json_object *run) {
        return rec_double_or(run, "iowait_pct", NAN);
}

static double run_user_pct(json_object *run) {
        return rec_double_or(run, "cpu_user_pct", NAN);
}

static double run_sys_pct(json_object *run) {
        return rec_double_or(run, "cpu_sys_pct", NAN);
}

/* The mean of metric over runs (NAN when none has it), and its values. */
static double runs_mean(json_object **runs, size_t n, double (*metric)(json_object *), double *ret_stddev) {
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

typedef bool (*RunPredicate)(json_object *run, const void *arg);

static bool is_workload(json_object *run, const void *arg) {
        return streq_ptr(rec_str(run, "workload"), arg);
}

/* The succeeded runs for which pred holds, in order (borrowed). */
static size_t job_select(const JobRuns *j, RunPredicate pred, const void *arg, json_object ***ret) {
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

static json_object *json_number(double v) {
        return isfinite(v) ? json_object_new_double(v) : NULL;
}

/* ---- iozone ---- */

typedef struct IozoneKey {
        uint64_t size, block_size;
        const char *workload;
} IozoneKey;

static bool is_iozone_cell(json_object *run, const void *arg) {
        const IozoneKey *k = arg;

        return rec_u64_or(run, "size", 0) == k->size && rec_u64_or(run, "block_size", 0) == k->block_size &&
               streq_ptr(rec_str(run, "workload"), k->workload);
}

/* One cell per (file size, record size, test) the runs have, each the mean over its runs. */
static int iozone_cells(const JobRuns *j, IozoneCell **ret, size_t *ret_n) {
        _cleanup_free_ IozoneCell *cells = calloc(MAX(j->n_ok, (size_t) 1), sizeof(IozoneCell));
        size_t n = 0;

        if (!cells)
                return -ENOMEM;
        for (size_t i = 0; i < j->n_ok; i++) {
                json_object *run = j->ok[i];
                IozoneKey k = { rec_u64_or(run, "size", 0), rec_u64_or(run, "block_size", 0), rec_str(run, "workload") };
                _cleanup_free_ json_object **sel = NULL;
                int t = iozone_test_of_workload(k.workload);
                bool seen = false;
                size_t m;

                if (t < 0)
                        continue;
                for (size_t c = 0; c < n && !seen; c++)
                        seen = cells[c].file_size == k.size && cells[c].record_size == k.block_size && cells[c].test == t;
                if (seen)
                        continue;
                m = job_select(j, is_iozone_cell, &k, &sel);
                cells[n++] = (IozoneCell) {
                        .file_size = k.size,
                        .record_size = k.block_size,
                        .test = t,
                        .kb_per_s = runs_mean(sel, m, run_bytes_per_sec, NULL) / 1024.0,
                };
        }
        *ret = TAKE_PTR(cells);
        *ret_n = n;
        return 0;
}

static json_object *iozone_json(const IozoneCell *cells, size_t n) {
        json_object *sizes = json_object_new_array();

        for (size_t i = 0; sizes && i < n; i++) {
                json_object *fs = NULL, *records = NULL, *rec = NULL;
                char key[32];

                /* The file size's entry, then the record size's within it. */
                for (size_t k = 0; k < json_object_array_length(sizes); k++) {
                        json_object *e = json_object_array_get_idx(sizes, k);
                        if (rec_u64_or(e, "size", 0) == cells[i].file_size)
                                fs = e;
                }
                if (!fs) {
                        fs = json_object_new_object();
                        json_object_object_add(fs, "size", json_object_new_uint64(cells[i].file_size));
                        json_object_object_add(fs, "records", json_object_new_array());
                        json_object_array_add(sizes, fs);
                }
                json_object_object_get_ex(fs, "records", &records);
                for (size_t k = 0; k < json_object_array_length(records); k++) {
                        json_object *e = json_object_array_get_idx(records, k);
                        if (rec_u64_or(e, "block_size", 0) == cells[i].record_size)
                                rec = e;
                }
                if (!rec) {
                        rec = json_object_new_object();
                        json_object_object_add(rec, "block_size", json_object_new_uint64(cells[i].record_size));
                        json_object_array_add(records, rec);
                }
                snprintf(key, sizeof key, "%s", iozone_workloads[cells[i].test]);
                if (isfinite(cells[i].kb_per_s))
                        json_object_object_add(rec, key, json_object_new_int64((int64_t) cells[i].kb_per_s));
        }
        return sizes;
}

static int view_iozone(const JobRuns *j) {
        _cleanup_free_ IozoneCell *cells = NULL;
        size_t n;

        if (iozone_cells(j, &cells, &n) < 0)
                return BENCHCTL_EXIT_FAILURE;
        if (arg_json) {
                _cleanup_json_ json_object *o = json_object_new_object();
                json_object_object_add(o, "job", json_object_new_uint64(j->job));
                json_object_object_add(o, "profile", json_object_new_string(j->profile ?: ""));
                json_object_object_add(o, "view", json_object_new_string("iozone"));
                json_object_object_add(o, "unit", json_object_new_string("KB/s (1 KB = 1024 bytes)"));
                json_object_object_add(o, "file_sizes", iozone_json(cells, n));
                print_json(o);
                return BENCHCTL_EXIT_OK;
        }
        print_job_head(j, "iozone's record-size matrix");
        printf("\n");
        if (n == 0) {
                printf("No iozone test among the runs (write, rewrite, read, reread, randread, randwrite, "
                       "backward-read, stride-read).\n");
                return BENCHCTL_EXIT_OK;
        }
        return iozone_matrix_print(stdout, cells, n) < 0 ? BENCHCTL_EXIT_FAILURE : BENCHCTL_EXIT_OK;
}

/* ---- bonnie++ ---- */

/* The metadata step's own spec keys: what the job set, else what its profile step sets, else the
 * registry's defaults (0: no sizes, 1 directory). */
static uint64_t metadata_key(const JobRuns *j, json_object *run, json_object *job_spec, const char *key,
                             uint64_t fallback) {
        _cleanup_json_ json_object *steps = NULL;
        uint64_t v;

        if (rec_u64(job_spec, key, &v))
                return v;
        if (j->profile &&
            bus_call_manager_json(j->bus, "profile", "GetProfile", &steps, "s", j->profile) == 0 &&
            json_object_is_type(steps, json_type_array)) {
                json_object *step = json_object_array_get_idx(steps, rec_u64_or(run, "step", 0));
                const char *s = rec_str(step, key);
                if (s && parse_size(s, &v) >= 0)
                        return v;
        }
        return fallback;
}

static const char *const bonnie_phases[_BONNIE_FILE_MAX] = {
        [BONNIE_SEQ_CREATE] = "create-seq",
        [BONNIE_SEQ_STAT] = "stat-seq",
        [BONNIE_SEQ_DEL] = "delete-seq",
        [BONNIE_RAN_CREATE] = "create-rand",
        [BONNIE_RAN_STAT] = "stat-rand",
        [BONNIE_RAN_DEL] = "delete-rand",
};

static const char *const bonnie_io_workloads[_BONNIE_IO_MAX] = {
        [BONNIE_PUTC] = "putc",
        [BONNIE_PUT_BLOCK] = "write",
        [BONNIE_REWRITE] = "rewrite",
        [BONNIE_GETC] = "getc",
        [BONNIE_GET_BLOCK] = "read",
        [BONNIE_SEEKS] = "seeks",
};

static double run_kib_per_sec(json_object *run) {
        return run_bytes_per_sec(run) / 1024.0;
}

/* The metadata runs' phases, averaged over the runs, into b->file. */
static int bonnie_metadata(const JobRuns *j, json_object **runs, size_t n, double cpu_factor, BonnieResult *b) {
        double rate[_BONNIE_FILE_MAX] = {}, lat[_BONNIE_FILE_MAX] = {};
        size_t count[_BONNIE_FILE_MAX] = {};
        _cleanup_json_ json_object *spec = NULL;
        int r;

        for (size_t i = 0; i < n; i++) {
                _cleanup_json_ json_object *full = NULL;
                json_object *phases = NULL;

                r = get_run(j->bus, run_id(runs[i]), &full);
                if (r != 0)
                        return r;
                if (!spec)
                        spec = json_column(full, "spec");
                if (!json_object_object_get_ex(full, "phases", &phases) || !json_object_is_type(phases, json_type_array))
                        continue;
                for (size_t k = 0; k < json_object_array_length(phases); k++) {
                        json_object *p = json_object_array_get_idx(phases, k);
                        for (size_t t = 0; t < _BONNIE_FILE_MAX; t++) {
                                double v;
                                if (!streq_ptr(rec_str(p, "phase"), bonnie_phases[t]) || !rec_double(p, "ops_per_s", &v))
                                        continue;
                                rate[t] += v;
                                lat[t] += rec_double_or(p, "lat_max_ns", NAN);
                                count[t]++;
                                if (t == BONNIE_SEQ_CREATE && b->num_files == 0)
                                        b->num_files = rec_u64_or(p, "ops", 0);
                        }
                }
        }
        for (size_t t = 0; t < _BONNIE_FILE_MAX; t++)
                b->file[t] = count[t] == 0 ? (BonnieFigure) { NAN, NAN, NAN } :
                        (BonnieFigure) {
                                .rate = rate[t] / (double) count[t],
                                /* CPU is measured over the whole run: every phase shows the run's. */
                                .cpu_pct = runs_mean(runs, n, run_cpu_pct, NULL) * cpu_factor,
                                .latency_ns = lat[t] / (double) count[t],
                        };
        if (b->num_files > 0) {
                b->max_size = metadata_key(j, runs[0], spec, "file_size_max", 0);
                b->min_size = metadata_key(j, runs[0], spec, "file_size_min", 0);
                b->num_dirs = metadata_key(j, runs[0], spec, "dirs", 1);
        }
        return 0;
}

/* bonnie++'s figures from the runs. Returns 0, or an exit code. *ret_tests: how many tests have a
 * figure. */
static int bonnie_result(const JobRuns *j, BonnieResult *b, size_t *ret_tests) {
        uint64_t cpus = job_cpus(j);
        double cpu_factor = cpus > 0 ? (double) cpus : 1.0;
        _cleanup_free_ json_object **meta = NULL;
        size_t tests = 0, n_meta;
        int r;

        *b = (BonnieResult) {
                .version = "benchd-" BENCHD_VERSION,
                .name = job_host(j),
        };
        for (size_t t = 0; t < _BONNIE_IO_MAX; t++) {
                _cleanup_free_ json_object **sel = NULL;
                size_t n = job_select(j, is_workload, bonnie_io_workloads[t], &sel);

                b->io[t] = (BonnieFigure) { NAN, NAN, NAN };
                if (n == 0)
                        continue;
                tests++;
                b->io[t] = (BonnieFigure) {
                        .rate = runs_mean(sel, n, t == BONNIE_SEEKS ? run_ops_per_sec : run_kib_per_sec, NULL),
                        .cpu_pct = runs_mean(sel, n, run_cpu_pct, NULL) * cpu_factor,
                        .latency_ns = runs_mean(sel, n, run_lat_max, NULL),
                };
                if (t == BONNIE_SEEKS) {
                        b->seeks = rec_u64_or(sel[0], "ops", 0);
                        b->seek_procs = rec_u64_or(sel[0], "jobs", 1);
                } else if (b->file_size == 0 || t == BONNIE_PUT_BLOCK) {
                        b->file_size = rec_u64_or(sel[0], "size", 0);
                        b->chunk_size = rec_u64_or(sel[0], "block_size", 0);
                }
        }
        n_meta = job_select(j, is_workload, "metadata", &meta);
        for (size_t t = 0; t < _BONNIE_FILE_MAX; t++)
                b->file[t] = (BonnieFigure) { NAN, NAN, NAN };
        if (n_meta > 0) {
                r = bonnie_metadata(j, meta, n_meta, cpu_factor, b);
                if (r != 0)
                        return r;
                tests += b->num_files > 0;
        }
        *ret_tests = tests;
        return 0;
}

static void fields_freep(char ***p) {
        for (size_t i = 0; *p && (*p)[i]; i++)
                free((*p)[i]);
        free(*p);
}

static int bonnie_fields(const JobRuns *j, char ***ret) {
        BonnieResult b;
        size_t tests;
        int r;

        r = bonnie_result(j, &b, &tests);
        if (r != 0)
                return r;
        if (tests == 0) {
                fprintf(stderr, "benchctl: job %" PRIu64 " has no succeeded run of what bonnie++ measures (workloads "
                        "write, rewrite, read, seeks, metadata, putc, getc); run --profile bonnie for them\n", j->job);
                return BENCHCTL_EXIT_FAILURE;
        }
        if (bonnie_csv_fields(&b, ret) < 0)
                return BENCHCTL_EXIT_FAILURE;
        return 0;
}

static int view_bonnie(const JobRuns *j) {
        _cleanup_(fields_freep) char **fields = NULL;
        uint64_t cpus = job_cpus(j);
        int r;

        r = bonnie_fields(j, &fields);
        if (r != 0)
                return r;
        if (arg_json) {
                _cleanup_json_ json_object *o = json_object_new_object(), *f = json_object_new_object();
                _cleanup_free_ char *line = NULL;
                size_t len = 0;
                FILE *m = open_memstream(&line, &len);

                if (!o || !f || !m)
                        return BENCHCTL_EXIT_FAILURE;
                bonnie_csv_print(m, fields);
                fclose(m);
                line[strcspn(line, "\n")] = '\0';
                for (size_t i = 0; fields[i]; i++)
                        json_object_object_add(f, bonnie_csv_names[i], json_object_new_string(fields[i]));
                json_object_object_add(o, "job", json_object_new_uint64(j->job));
                json_object_object_add(o, "profile", json_object_new_string(j->profile ?: ""));
                json_object_object_add(o, "view", json_object_new_string("bonnie"));
                json_object_object_add(o, "cpus", cpus > 0 ? json_object_new_uint64(cpus) : NULL);
                json_object_object_add(o, "cpu_pct_of", json_object_new_string(cpus > 0 ? "one CPU" : "the machine"));
                json_object_object_add(o, "fields", json_object_get(f));
                json_object_object_add(o, "csv", json_object_new_string(line));
                print_json(o);
                return BENCHCTL_EXIT_OK;
        }
        print_job_head(j, "bonnie++'s table, as bon_csv2txt prints it");
        printf("\n");
        if (bonnie_text_print(stdout, fields) < 0)
                return BENCHCTL_EXIT_FAILURE;
        printf("\n/sec: K/sec (1024 bytes) for the data tests, seeks/s, files/s for create, read (stat), delete.\n");
        if (cpus > 0)
                printf("%%CP: percent of one CPU, as bonnie++ counts its own process: benchd's machine-wide user+sys\n"
                       "CPU over the run × %" PRIu64 " CPUs (the metadata tests share their run's figure).\n", cpus);
        else
                printf("%%CP: machine-wide user+sys CPU percent over the run (the CPU count is not recorded), not\n"
                       "bonnie++'s percent of one CPU.\n");
        printf("Latency: the slowest operation of the test. benchd prints measured figures where bonnie++\n"
               "prints +++++ (too fast to time); skipped tests are blank.\n");
        return BENCHCTL_EXIT_OK;
}

/* ---- CrystalDiskMark ---- */

typedef struct CrystalKey {
        bool random, write;
        uint64_t block_size, queue_depth, jobs;
} CrystalKey;

static bool crystal_key_of(json_object *run, CrystalKey *k) {
        const char *w = rec_str(run, "workload");

        if (!w)
                return false;
        if (streq(w, "read") || streq(w, "write"))
                k->random = false;
        else if (streq(w, "randread") || streq(w, "randwrite"))
                k->random = true;
        else
                return false;
        k->write = streq(w, "write") || streq(w, "randwrite");
        k->block_size = rec_u64_or(run, "block_size", 0);
        k->queue_depth = rec_u64_or(run, "queue_depth", 1);
        k->jobs = rec_u64_or(run, "jobs", 1);
        return true;
}

static bool is_crystal_cell(json_object *run, const void *arg) {
        const CrystalKey *want = arg;
        CrystalKey k;

        return crystal_key_of(run, &k) && k.random == want->random && k.write == want->write &&
               k.block_size == want->block_size && k.queue_depth == want->queue_depth && k.jobs == want->jobs;
}

/* CrystalDiskMark's order: sequential first, then the deeper queue, the larger block, more threads. */
static int crystal_order(const void *a, const void *b) {
        const CrystalKey *x = a, *y = b;

        if (x->random != y->random)
                return x->random ? 1 : -1;
        if (x->queue_depth != y->queue_depth)
                return x->queue_depth > y->queue_depth ? -1 : 1;
        if (x->block_size != y->block_size)
                return x->block_size > y->block_size ? -1 : 1;
        if (x->jobs != y->jobs)
                return x->jobs > y->jobs ? -1 : 1;
        return 0;
}

/* "SEQ1M Q8T1", "RND4K Q32T1" */
static void crystal_name(char *buf, size_t l, const CrystalKey *k) {
        uint64_t bs = k->block_size;

        if (bs >= (UINT64_C(1) << 20) && bs % (UINT64_C(1) << 20) == 0)
                snprintf(buf, l, "%s%" PRIu64 "M Q%" PRIu64 "T%" PRIu64, k->random ? "RND" : "SEQ", bs >> 20,
                         k->queue_depth, k->jobs);
        else if (bs >= 1024 && bs % 1024 == 0)
                snprintf(buf, l, "%s%" PRIu64 "K Q%" PRIu64 "T%" PRIu64, k->random ? "RND" : "SEQ", bs >> 10,
                         k->queue_depth, k->jobs);
        else
                snprintf(buf, l, "%s%" PRIu64 "B Q%" PRIu64 "T%" PRIu64, k->random ? "RND" : "SEQ", bs,
                         k->queue_depth, k->jobs);
}

typedef struct CrystalFigures {
        size_t n;
        double mb_per_s, iops, lat_us;
} CrystalFigures;

static CrystalFigures crystal_figures(const JobRuns *j, const CrystalKey *k) {
        _cleanup_free_ json_object **sel = NULL;
        CrystalFigures c = { .n = job_select(j, is_crystal_cell, k, &sel) };

        c.mb_per_s = runs_mean(sel, c.n, run_bytes_per_sec, NULL) / 1e6;
        c.iops = runs_mean(sel, c.n, run_iops, NULL);
        c.lat_us = runs_mean(sel, c.n, run_lat_mean, NULL) / 1e3;
        return c;
}

static json_object *crystal_json(const CrystalFigures *c) {
        json_object *o;

        if (c->n == 0)
                return NULL;
        o = json_object_new_object();
        json_object_object_add(o, "runs", json_object_new_uint64(c->n));
        json_object_object_add(o, "mb_per_s", json_number(c->mb_per_s));
        json_object_object_add(o, "iops", json_number(c->iops));
        json_object_object_add(o, "lat_mean_us", json_number(c->lat_us));
        return o;
}

static void crystal_cells(Table *t, const CrystalFigures *c) {
        if (c->n == 0) {
                for (size_t i = 0; i < 3; i++)
                        table_add_cell(t, "-");
                return;
        }
        table_add_cellf(t, "%.2f", c->mb_per_s);
        table_add_cellf(t, "%.2f", c->iops);
        table_add_cellf(t, "%.2f", c->lat_us);
}

static int view_crystal(const JobRuns *j) {
        static const char *const headers[] = {
                "TEST", "READ MB/s", "READ IOPS", "READ µs", "WRITE MB/s", "WRITE IOPS", "WRITE µs",
        };
        _cleanup_free_ CrystalKey *keys = calloc(MAX(j->n_ok, (size_t) 1), sizeof(CrystalKey));
        _cleanup_(table_freep) Table *t = NULL;
        _cleanup_json_ json_object *rows = json_object_new_array();
        size_t n = 0;

        if (!keys || !rows || table_new(headers, ELEMENTSOF(headers), &t) < 0)
                return BENCHCTL_EXIT_FAILURE;
        /* The rows: each (pattern, block size, queue depth, threads) the runs have. */
        for (size_t i = 0; i < j->n_ok; i++) {
                CrystalKey k;
                bool seen = false;

                if (!crystal_key_of(j->ok[i], &k))
                        continue;
                k.write = false;
                for (size_t c = 0; c < n && !seen; c++)
                        seen = crystal_order(&keys[c], &k) == 0;
                if (!seen)
                        keys[n++] = k;
        }
        qsort(keys, n, sizeof(CrystalKey), crystal_order);
        for (size_t c = 1; c < ELEMENTSOF(headers); c++)
                table_set_align(t, c, TABLE_ALIGN_RIGHT);
        for (size_t i = 0; i < n; i++) {
                CrystalKey rk = keys[i], wk = keys[i];
                CrystalFigures rd, wr;
                json_object *row = json_object_new_object();
                char name[64];

                wk.write = true;
                rd = crystal_figures(j, &rk);
                wr = crystal_figures(j, &wk);
                crystal_name(name, sizeof name, &rk);
                table_add_cell(t, name);
                crystal_cells(t, &rd);
                crystal_cells(t, &wr);
                json_object_object_add(row, "test", json_object_new_string(name));
                json_object_object_add(row, "block_size", json_object_new_uint64(rk.block_size));
                json_object_object_add(row, "queue_depth", json_object_new_uint64(rk.queue_depth));
                json_object_object_add(row, "jobs", json_object_new_uint64(rk.jobs));
                json_object_object_add(row, "read", crystal_json(&rd));
                json_object_object_add(row, "write", crystal_json(&wr));
                json_object_array_add(rows, row);
        }
        if (arg_json) {
                _cleanup_json_ json_object *o = json_object_new_object();
                json_object_object_add(o, "job", json_object_new_uint64(j->job));
                json_object_object_add(o, "profile", json_object_new_string(j->profile ?: ""));
                json_object_object_add(o, "view", json_object_new_string("crystal"));
                json_object_object_add(o, "tests", json_object_get(rows));
                print_json(o);
                return BENCHCTL_EXIT_OK;
        }
        print_job_head(j, "CrystalDiskMark's grid");
        printf("\n");
        if (n == 0) {
                printf("No read, write, randread or randwrite runs.\n");
                return BENCHCTL_EXIT_OK;
        }
        table_print(t, arg_legend);
        if (arg_legend)
                printf("\nMB/s = 10^6 bytes/s; µs = mean latency; Q = queue depth, T = threads (jobs).\n");
        return BENCHCTL_EXIT_OK;
}

/* ---- ioping ---- */

static int view_ping(const JobRuns *j) {
        _cleanup_free_ json_object **sel = NULL;
        size_t n = job_select(j, is_workload, "ping", &sel);
        PingSummary p = { .min_ns = NAN, .max_ns = NAN };
        double sq = 0, p50, p99;
        json_object *first;

        if (n == 0) {
                fprintf(stderr, "benchctl: job %" PRIu64 " has no succeeded ping run; run --profile ping for one\n", j->job);
                return BENCHCTL_EXIT_FAILURE;
        }
        /* The runs pooled: ioping's sum of request times, and the spread of all requests. */
        for (size_t i = 0; i < n; i++) {
                uint64_t k = rec_u64_or(sel[i], "ios_read", 0);
                double mean = run_lat_mean(sel[i]), sd = run_latency_ns(sel[i], "stddev");
                double lo = run_latency_ns(sel[i], "min"), hi = run_lat_max(sel[i]);

                p.requests += k;
                p.bytes += rec_u64_or(sel[i], "bytes_read", 0);
                p.wall_usec += rec_u64_or(sel[i], "duration_usec", 0);
                if (isfinite(mean)) {
                        p.busy_ns += (double) k * mean;
                        sq += (double) k * ((isfinite(sd) ? sd * sd : 0) + mean * mean);
                }
                if (isfinite(lo) && !(lo >= p.min_ns))
                        p.min_ns = lo;
                if (isfinite(hi) && !(hi <= p.max_ns))
                        p.max_ns = hi;
        }
        p.avg_ns = p.requests > 0 ? p.busy_ns / (double) p.requests : NAN;
        p.mdev_ns = p.requests > 0 ? sqrt(MAX(sq / (double) p.requests - p.avg_ns * p.avg_ns, 0.0)) : NAN;
        p50 = runs_mean(sel, n, run_lat_p50, NULL);
        p99 = runs_mean(sel, n, run_lat_p99, NULL);

        if (arg_json) {
                _cleanup_json_ json_object *o = json_object_new_object();
                _cleanup_free_ char *text = NULL;
                size_t len = 0;
                FILE *m = open_memstream(&text, &len);

                if (!o || !m)
                        return BENCHCTL_EXIT_FAILURE;
                ping_summary_print(m, &p);
                fclose(m);
                json_object_object_add(o, "job", json_object_new_uint64(j->job));
                json_object_object_add(o, "profile", json_object_new_string(j->profile ?: ""));
                json_object_object_add(o, "view", json_object_new_string("ping"));
                json_object_object_add(o, "runs", json_object_new_uint64(n));
                json_object_object_add(o, "requests", json_object_new_uint64(p.requests));
                json_object_object_add(o, "bytes", json_object_new_uint64(p.bytes));
                json_object_object_add(o, "busy_ns", json_number(p.busy_ns));
                json_object_object_add(o, "wall_usec", json_object_new_uint64(p.wall_usec));
                json_object_object_add(o, "iops", json_number(p.busy_ns > 0 ? (double) p.requests * 1e9 / p.busy_ns : NAN));
                json_object_object_add(o, "bytes_per_s", json_number(p.busy_ns > 0 ? (double) p.bytes * 1e9 / p.busy_ns : NAN));
                json_object_object_add(o, "lat_min_ns", json_number(p.min_ns));
                json_object_object_add(o, "lat_avg_ns", json_number(p.avg_ns));
                json_object_object_add(o, "lat_max_ns", json_number(p.max_ns));
                json_object_object_add(o, "lat_mdev_ns", json_number(p.mdev_ns));
                json_object_object_add(o, "lat_p50_ns", json_number(p50));
                json_object_object_add(o, "lat_p99_ns", json_number(p99));
                json_object_object_add(o, "text", json_object_new_string(text));
                print_json(o);
                return BENCHCTL_EXIT_OK;
        }
        first = sel[0];
        print_job_head(j, "ioping's summary");
        printf("\n--- %s (%s %s) ioping statistics ---\n", rec_str(first, "target") ?: "?",
               rec_str(first, "fs_type") ?: "device", run_device(first) ?: "");
        if (ping_summary_print(stdout, &p) < 0)
                return BENCHCTL_EXIT_FAILURE;
        {
                char a[FORMAT_BUF_MAX], b[FORMAT_BUF_MAX];
                printf("\nbenchd: latency p50 %s, p99 %s; \"completed in\" is the sum of the request times, as ioping\n"
                       "counts it, \"generated ... in\" the whole measured run.\n",
                       format_latency_ns(a, sizeof a, p50), format_latency_ns(b, sizeof b, p99));
        }
        return BENCHCTL_EXIT_OK;
}

/* ---- dd ---- */

/* The dd command that does what the run did: "dd if=/dev/zero of=FILE bs=32K count=8192 oflag=direct
 * conv=fsync". */
static void dd_command(char *buf, size_t l, json_object *run, bool write) {
        const char *sync = rec_str(run, "sync") ?: "none";
        uint64_t bs = rec_u64_or(run, "block_size", 0), size = rec_u64_or(run, "size", 0);
        bool direct = false;
        char b[32];
        const char *flags = "";

        rec_bool(run, "direct", &direct);
        if (bs % (UINT64_C(1) << 20) == 0 && bs > 0)
                snprintf(b, sizeof b, "%" PRIu64 "M", bs >> 20);
        else if (bs % 1024 == 0 && bs > 0)
                snprintf(b, sizeof b, "%" PRIu64 "K", bs >> 10);
        else
                snprintf(b, sizeof b, "%" PRIu64, bs);
        if (write)
                flags = streq(sync, "each:fsync") ? (direct ? " oflag=direct,sync" : " oflag=sync") :
                        streq(sync, "each:fdatasync") ? (direct ? " oflag=direct,dsync" : " oflag=dsync") :
                        direct ? " oflag=direct" : "";
        else
                flags = direct ? " iflag=direct" : "";
        snprintf(buf, l, "dd %s bs=%s count=%" PRIu64 "%s%s", write ? "if=/dev/zero of=FILE" : "if=FILE of=/dev/null",
                 b, bs > 0 ? size / bs : 0, flags,
                 !write ? "" : streq(sync, "end:fsync") ? " conv=fsync" : streq(sync, "end:fdatasync") ? " conv=fdatasync" : "");
}

static int view_dd(const JobRuns *j) {
        static const char *const dirs[] = { "write", "read" };
        _cleanup_json_ json_object *out = json_object_new_array();

        if (!out)
                return BENCHCTL_EXIT_FAILURE;
        if (!arg_json)
                print_job_head(j, "dd's closing lines");
        for (size_t d = 0; d < ELEMENTSOF(dirs); d++) {
                _cleanup_free_ json_object **sel = NULL;
                size_t n = job_select(j, is_workload, dirs[d], &sel);
                bool write = d == 0;
                json_object *o, *lines;
                char cmd[256], a[FORMAT_BUF_MAX], b[FORMAT_BUF_MAX], c[FORMAT_BUF_MAX], e[FORMAT_BUF_MAX],
                        g[FORMAT_BUF_MAX];
                double sd, mean;

                if (n == 0)
                        continue;
                dd_command(cmd, sizeof cmd, sel[0], write);
                o = json_object_new_object();
                lines = json_object_new_array();
                json_object_object_add(o, "workload", json_object_new_string(dirs[d]));
                json_object_object_add(o, "command", json_object_new_string(cmd));
                json_object_object_add(o, "lines", lines);
                if (!arg_json)
                        printf("\n%s, as %s:\n", dirs[d], cmd);
                for (size_t i = 0; i < n; i++) {
                        char line[256];
                        dd_format_summary(line, sizeof line, rec_u64_or(sel[i], write ? "bytes_written" : "bytes_read", 0),
                                          rec_u64_or(sel[i], "duration_usec", 0));
                        json_object_array_add(lines, json_object_new_string(line));
                        if (!arg_json)
                                printf("%s\n", line);
                }
                mean = runs_mean(sel, n, run_bytes_per_sec, &sd);
                json_object_object_add(o, "runs", json_object_new_uint64(n));
                json_object_object_add(o, "mb_per_s", json_number(mean / 1e6));
                json_object_object_add(o, "mb_per_s_stddev", n > 1 ? json_number(sd / 1e6) : NULL);
                {
                        double p50 = runs_mean(sel, n, run_lat_p50, NULL), p99 = runs_mean(sel, n, run_lat_p99, NULL);
                        double iow = runs_mean(sel, n, run_iowait_pct, NULL), usr = runs_mean(sel, n, run_user_pct, NULL);
                        double sys = runs_mean(sel, n, run_sys_pct, NULL);

                        json_object_object_add(o, "lat_p50_ns", json_number(p50));
                        json_object_object_add(o, "lat_p99_ns", json_number(p99));
                        json_object_object_add(o, "iowait_pct", json_number(iow));
                        json_object_object_add(o, "cpu_user_pct", json_number(usr));
                        json_object_object_add(o, "cpu_sys_pct", json_number(sys));
                        if (!arg_json) {
                                if (n > 1)
                                        printf("mean of %zu runs %.1f MB/s, stddev %.1f MB/s\n", n, mean / 1e6, sd / 1e6);
                                printf("benchd: latency p50 %s, p99 %s; iowait %s, CPU user %s sys %s (machine-wide)\n",
                                       format_latency_ns(a, sizeof a, p50), format_latency_ns(b, sizeof b, p99),
                                       format_pct(c, sizeof c, iow), format_pct(e, sizeof e, usr),
                                       format_pct(g, sizeof g, sys));
                        }
                }
                json_object_array_add(out, o);
        }
        if (arg_json) {
                _cleanup_json_ json_object *o = json_object_new_object();
                json_object_object_add(o, "job", json_object_new_uint64(j->job));
                json_object_object_add(o, "profile", json_object_new_string(j->profile ?: ""));
                json_object_object_add(o, "view", json_object_new_string("dd"));
                json_object_object_add(o, "directions", json_object_get(out));
                print_json(o);
        }
        return BENCHCTL_EXIT_OK;
}

/* ---- any other profile: one row per step ---- */

static bool is_step(json_object *run, const void *arg) {
        return rec_u64_or(run, "step", 0) == *(const uint64_t *) arg;
}

static json_object *stats_json(json_object **runs, size_t n, double (*metric)(json_object *), double scale) {
        json_object *o = json_object_new_object(), *values = json_object_new_array();
        double sd, mean = runs_mean(runs, n, metric, &sd);

        for (size_t i = 0; values && i < n; i++)
                json_object_array_add(values, json_number(metric(runs[i]) / scale));
        json_object_object_add(o, "mean", json_number(mean / scale));
        json_object_object_add(o, "stddev", json_number(sd / scale));
        json_object_object_add(o, "values", values);
        return o;
}

static double run_mb_per_s(json_object *run) {
        return run_bytes_per_sec(run) / 1e6;
}

static int view_steps(const JobRuns *j) {
        static const char *const headers[] = { "STEP", "WORKLOAD", "BS", "N", "MB/s", "±", "IOPS", "P99", "MB/s OF EACH RUN" };
        _cleanup_(table_freep) Table *t = NULL;
        _cleanup_json_ json_object *steps = json_object_new_array();
        uint64_t prev = UINT64_MAX;

        if (!steps || table_new(headers, ELEMENTSOF(headers), &t) < 0)
                return BENCHCTL_EXIT_FAILURE;
        for (size_t c = 0; c < ELEMENTSOF(headers) - 1; c++)
                if (c != 1)
                        table_set_align(t, c, TABLE_ALIGN_RIGHT);
        table_set_shrinkable(t, 8, 10);
        for (size_t i = 0; i < j->n_ok; i++) {
                uint64_t step = rec_u64_or(j->ok[i], "step", 0);
                _cleanup_free_ json_object **sel = NULL;
                _cleanup_free_ char *each = NULL;
                json_object *o;
                char a[FORMAT_BUF_MAX];
                double sd, mean;
                size_t n, len = 0;
                FILE *m;

                if (step == prev)
                        continue;
                prev = step;
                n = job_select(j, is_step, &step, &sel);
                mean = runs_mean(sel, n, run_mb_per_s, &sd);
                table_add_cellf(t, "%" PRIu64, step + 1);
                table_add_cell(t, rec_str(sel[0], "workload"));
                table_add_cell(t, format_bytes(a, sizeof a, rec_u64_or(sel[0], "block_size", 0)));
                table_add_cellf(t, "%zu", n);
                table_add_cell(t, isfinite(mean) ? (snprintf(a, sizeof a, "%.1f", mean), a) : "n/a");
                table_add_cell(t, n > 1 && isfinite(sd) ? (snprintf(a, sizeof a, "%.1f", sd), a) : "");
                table_add_cell(t, format_iops(a, sizeof a, runs_mean(sel, n, run_iops, NULL)));
                table_add_cell(t, format_latency_ns(a, sizeof a, runs_mean(sel, n, run_lat_p99, NULL)));
                m = open_memstream(&each, &len);
                if (!m)
                        return BENCHCTL_EXIT_FAILURE;
                for (size_t k = 0; n > 1 && k < n; k++)
                        fprintf(m, "%s%.1f", k > 0 ? " " : "", run_mb_per_s(sel[k]));
                fclose(m);
                table_add_cell(t, each);

                o = json_object_new_object();
                json_object_object_add(o, "step", json_object_new_uint64(step));
                json_object_object_add(o, "workload", json_object_new_string(rec_str(sel[0], "workload") ?: ""));
                json_object_object_add(o, "block_size", json_object_new_uint64(rec_u64_or(sel[0], "block_size", 0)));
                json_object_object_add(o, "n", json_object_new_uint64(n));
                json_object_object_add(o, "mb_per_s", stats_json(sel, n, run_bytes_per_sec, 1e6));
                json_object_object_add(o, "iops", stats_json(sel, n, run_iops, 1));
                json_object_object_add(o, "lat_p99_ns", stats_json(sel, n, run_lat_p99, 1));
                json_object_object_add(o, "runs", json_object_new_array());
                for (size_t k = 0; k < n; k++) {
                        json_object *ids = NULL;
                        json_object_object_get_ex(o, "runs", &ids);
                        json_object_array_add(ids, json_object_new_uint64(run_id(sel[k])));
                }
                json_object_array_add(steps, o);
        }
        if (arg_json) {
                _cleanup_json_ json_object *o = json_object_new_object();
                json_object_object_add(o, "job", json_object_new_uint64(j->job));
                json_object_object_add(o, "profile", j->profile ? json_object_new_string(j->profile) : NULL);
                json_object_object_add(o, "view", json_object_new_string("steps"));
                json_object_object_add(o, "steps", json_object_get(steps));
                print_json(o);
                return BENCHCTL_EXIT_OK;
        }
        print_job_head(j, NULL);
        printf("\n");
        if (j->n_ok == 0) {
                printf("No run succeeded.\n");
                return BENCHCTL_EXIT_OK;
        }
        table_print(t, arg_legend);
        if (arg_legend)
                printf("\nMB/s = 10^6 bytes/s, the mean over the step's N runs (± their standard deviation).\n");
        return BENCHCTL_EXIT_OK;
}

/* ---- entry points ---- */

int job_view(uint64_t job) {
        static const struct {
                const char *profile;
                int (*view)(const JobRuns *j);
        } views[] = {
                { "iozone", view_iozone },
                { "bonnie", view_bonnie },
                { "crystal", view_crystal },
                { "ping", view_ping },
                { "dd", view_dd },
        };
        _cleanup_(job_runs_clear) JobRuns j = {};
        int r;

        r = job_runs_load(job, &j);
        if (r != 0)
                return r;
        for (size_t i = 0; j.n_ok > 0 && i < ELEMENTSOF(views); i++)
                if (streq_ptr(j.profile, views[i].profile))
                        return views[i].view(&j);
        return view_steps(&j);
}

int job_export(uint64_t job, ExportFormat format) {
        _cleanup_(job_runs_clear) JobRuns j = {};
        int r;

        r = job_runs_load(job, &j);
        if (r != 0)
                return r;
        if (format == EXPORT_BONNIE_CSV) {
                _cleanup_(fields_freep) char **fields = NULL;

                r = bonnie_fields(&j, &fields);
                if (r != 0)
                        return r;
                r = bonnie_csv_print(stdout, fields);
        } else {
                _cleanup_free_ IozoneCell *cells = NULL;
                _cleanup_free_ char *preamble = NULL;
                json_object *run = j.n_ok > 0 ? j.ok[0] : NULL;
                size_t n;

                if (iozone_cells(&j, &cells, &n) < 0)
                        return BENCHCTL_EXIT_FAILURE;
                if (n == 0) {
                        fprintf(stderr, "benchctl: job %" PRIu64 " has no succeeded run of an iozone test (workloads write, "
                                "rewrite, read, reread, randread, randwrite, backward-read, stride-read); run "
                                "--profile iozone for them\n", job);
                        return BENCHCTL_EXIT_FAILURE;
                }
                if (asprintf(&preamble, "\tbenchd %s, job %" PRIu64 " (%s%s) on %s (%s), host %s\n", BENCHD_VERSION, job,
                             j.profile ?: "no profile", j.profile ? " profile" : "", rec_str(run, "target") ?: "?",
                             rec_str(run, "fs_type") ?: run_device(run) ?: "?", job_host(&j)) < 0)
                        return BENCHCTL_EXIT_FAILURE;
                r = iozone_report_print(stdout, preamble, cells, n);
        }
        if (r >= 0 && fflush(stdout) != 0)
                r = negative_errno();
        if (r < 0) {
                fprintf(stderr, "benchctl: export: cannot write: %s\n", strerror(-r));
                return BENCHCTL_EXIT_FAILURE;
        }
        return BENCHCTL_EXIT_OK;
}
