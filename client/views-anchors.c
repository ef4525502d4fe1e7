/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The two anchors whose own files benchctl writes as well as shows (job-runs.h): iozone (the
 * record-size matrix, and -R's report with `export --format iozone`) and bonnie++ (the 2.00 CSV
 * line with `export --format bonnie-csv`, and the table bon_csv2txt renders from it). The figures
 * come from the runs here, averaged over runs of the same shape; views-format.c lays them out. A
 * filesystem matrix job is exported entry by entry: a report, or a CSV line, per entry, each
 * titled (or named host-ENTRY) by it, so that no figure mixes two filesystems and bon_csv2html
 * draws the entries as rows of one table.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "job-runs.h"
#include "record.h"
#include "shared/json-util.h"
#include "shared/spec.h"
#include "shared/util.h"
#include "views-format.h"
#include "text.h"

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
                /* The same integer KB/s as the matrix. */
                if (isfinite(cells[i].kb_per_s))
                        json_object_object_add(rec, iozone_workloads[cells[i].test],
                                               json_object_new_int64((int64_t) cells[i].kb_per_s));
        }
        return sizes;
}

int view_iozone(const JobRuns *j) {
        _cleanup_free_ IozoneCell *cells = NULL;
        size_t n;

        if (iozone_cells(j, &cells, &n) < 0)
                return BENCHCTL_EXIT_FAILURE;
        if (job_wants_json(j)) {
                _cleanup_json_ json_object *o = json_object_new_object();
                json_object_object_add(o, "job", json_object_new_uint64(j->job));
                json_object_object_add(o, "profile", json_object_new_string(j->profile ?: ""));
                json_object_object_add(o, "view", json_object_new_string("iozone"));
                json_object_object_add(o, "unit", json_object_new_string("KB/s (1 KB = 1024 bytes)"));
                json_object_object_add(o, "file_sizes", iozone_json(cells, n));
                job_json_emit(j, o);
                return BENCHCTL_EXIT_OK;
        }
        print_job_head(j, "iozone's record-size matrix");
        printf("\n");
        if (n == 0) {
                printf("No iozone test among the runs (write, rewrite, read, reread, randread, randwrite, "
                       "backward-read, stride-read).\n");
                return BENCHCTL_EXIT_OK;
        }
        if (iozone_matrix_print(stdout, cells, n) < 0)
                return BENCHCTL_EXIT_FAILURE;
        if (runs_cache_served(j->ok, j->n_ok) > 0)
                printf("\n");
        print_job_cache_notes(j);
        return BENCHCTL_EXIT_OK;
}

/* ---- bonnie++ ---- */

/* A metadata step's own spec key: what the job set, else what its profile step sets (the profile as
 * benchd has it now), else the registry's default. */
static uint64_t metadata_key(json_object *job_spec, json_object *steps, json_object *run, const char *key,
                             uint64_t fallback) {
        json_object *step = json_object_is_type(steps, json_type_array) ?
                json_object_array_get_idx(steps, rec_u64_or(run, "step", 0)) : NULL;
        const char *s = rec_str(step, key);
        uint64_t v;

        if (rec_u64(job_spec, key, &v))
                return v;
        if (s && parse_size(s, &v) >= 0)
                return v;
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

/* bonnie++'s Rewrite counts the file once, though it reads and writes every block. */
static double run_written_kib_per_sec(json_object *run) {
        uint64_t b, us;

        if (!rec_u64(run, "bytes_written", &b) || !rec_u64(run, "duration_usec", &us) || us == 0)
                return NAN;
        return (double) b / ((double) us / 1e6) / 1024.0;
}

/* bonnie++'s %CP: the worker's own CPU time (process_cpu_pct) when every run has it, else, for runs
 * from before benchd kept it, the machine-wide figure × the CPU count. */
static double bonnie_cpu_pct(json_object **runs, size_t n, double cpu_factor) {
        for (size_t i = 0; i < n; i++)
                if (!isfinite(run_process_cpu_pct(runs[i])))
                        return runs_mean(runs, n, run_cpu_pct, NULL) * cpu_factor;
        return runs_mean(runs, n, run_process_cpu_pct, NULL);
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

                r = j->fetch_run ? j->fetch_run(j, run_id(runs[i]), &full) : BENCHCTL_EXIT_FAILURE;
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
                                .cpu_pct = bonnie_cpu_pct(runs, n, cpu_factor),
                                .latency_ns = lat[t] / (double) count[t],
                        };
        if (b->num_files > 0) {
                _cleanup_json_ json_object *steps = j->fetch_profile ? j->fetch_profile(j) : NULL;

                /* The registry's defaults: no file sizes, one directory. */
                b->max_size = metadata_key(spec, steps, runs[0], "file_size_max", 0);
                b->min_size = metadata_key(spec, steps, runs[0], "file_size_min", 0);
                b->num_dirs = metadata_key(spec, steps, runs[0], "dirs", 1);
        }
        return 0;
}

/* Whether every run of the job has the worker's own CPU time. */
static bool bonnie_process_cpu(const JobRuns *j) {
        for (size_t i = 0; i < j->n_ok; i++)
                if (!isfinite(run_process_cpu_pct(j->ok[i])))
                        return false;
        return j->n_ok > 0;
}

/* bonnie++'s figures from the runs, named name. Returns 0, or an exit code. *ret_tests: how many
 * tests have a figure. */
static int bonnie_result(const JobRuns *j, const char *name, BonnieResult *b, size_t *ret_tests) {
        uint64_t cpus = job_cpus(j);
        double cpu_factor = cpus > 0 ? (double) cpus : 1.0;
        _cleanup_free_ json_object **meta = NULL;
        size_t tests = 0, n_meta;
        int r;

        *b = (BonnieResult) {
                .version = "benchd-" BENCHD_VERSION,
                .name = name,
        };
        for (size_t t = 0; t < _BONNIE_IO_MAX; t++) {
                _cleanup_free_ json_object **sel = NULL;
                /* Rewrite: bonnie++'s read-modify-write, or (jobs from before it) iozone's rewrite. */
                size_t n = job_select(j, is_workload, t == BONNIE_REWRITE ? "read-modify-write" :
                                      bonnie_io_workloads[t], &sel);
                bool rmw = t == BONNIE_REWRITE && n > 0;

                if (t == BONNIE_REWRITE && n == 0) {
                        free(sel);
                        n = job_select(j, is_workload, bonnie_io_workloads[t], &sel);
                }

                b->io[t] = (BonnieFigure) { NAN, NAN, NAN };
                if (n == 0)
                        continue;
                tests++;
                b->io[t] = (BonnieFigure) {
                        .rate = runs_mean(sel, n, t == BONNIE_SEEKS ? run_ops_per_sec :
                                          rmw ? run_written_kib_per_sec : run_kib_per_sec, NULL),
                        .cpu_pct = bonnie_cpu_pct(sel, n, cpu_factor),
                        .latency_ns = runs_mean(sel, n, run_lat_max, NULL),
                        .cache = runs_cache_served(sel, n) > 0,
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

/* The fields of the runs' line: bonnie++'s name field is the machine ("-m"), for one entry of a
 * matrix host-ENTRY ("db1-ext4"), so that bon_csv2html's rows say which filesystem each is. */
static int bonnie_fields(const JobRuns *j, char ***ret) {
        _cleanup_free_ char *name = NULL;
        BonnieResult b;
        size_t tests;
        int r;

        if (j->entry && asprintf(&name, "%s-%s", job_host(j), j->entry->label) < 0)
                return BENCHCTL_EXIT_FAILURE;
        r = bonnie_result(j, name ?: job_host(j), &b, &tests);
        if (r != 0)
                return r;
        if (tests == 0) {
                text_fprintf(stderr, "benchctl: job %" PRIu64 "%s%s has no succeeded run of what bonnie++ measures "
                             "(workloads write, rewrite, read, seeks, metadata, putc, getc); run --profile bonnie "
                             "for them\n", j->job, j->entry ? ", entry " : "", j->entry ? j->entry->name : "");
                return BENCHCTL_EXIT_FAILURE;
        }
        if (bonnie_csv_fields(&b, ret) < 0)
                return BENCHCTL_EXIT_FAILURE;
        return 0;
}

int view_bonnie(const JobRuns *j) {
        _cleanup_(fields_freep) char **fields = NULL;
        uint64_t cpus = job_cpus(j);
        int r;

        r = bonnie_fields(j, &fields);
        if (r != 0)
                return r;
        if (job_wants_json(j)) {
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
                json_object_object_add(o, "cpu_pct_of", json_object_new_string(
                                               bonnie_process_cpu(j) ? "one CPU, the worker's own" :
                                               cpus > 0 ? "one CPU" : "the machine"));
                json_object_object_add(o, "fields", json_object_get(f));
                json_object_object_add(o, "csv", json_object_new_string(line));
                job_json_emit(j, o);
                return BENCHCTL_EXIT_OK;
        }
        print_job_head(j, "bonnie++'s table, as bon_csv2txt prints it");
        printf("\n");
        if (bonnie_text_print(stdout, fields) < 0)
                return BENCHCTL_EXIT_FAILURE;
        printf("\n/sec: K/sec (1024 bytes) for the data tests, seeks/s, files/s for create, read (stat), delete.\n");
        if (bonnie_process_cpu(j))
                printf("%%CP: percent of one CPU, as bonnie++ counts its own process: benchd-worker's and its streams'\n"
                       "CPU time over the run (the metadata tests share their run's figure).\n");
        else if (cpus > 0)
                printf("%%CP: percent of one CPU, as bonnie++ counts its own process: benchd's machine-wide user+sys\n"
                       "CPU over the run × %" PRIu64 " CPUs (runs from before benchd kept its own CPU time; the\n"
                       "metadata tests share their run's figure).\n", cpus);
        else
                printf("%%CP: machine-wide user+sys CPU percent over the run (the CPU count is not recorded), not\n"
                       "bonnie++'s percent of one CPU.\n");
        printf("Latency: the slowest operation of the test. +++++: a cache served the test, not the device (its\n"
               "counters saw less than half of the bytes), where bonnie++ prints +++++ for a test too fast to\n"
               "time; benchd prints what it measured for those. Skipped tests are blank.\n");
        return BENCHCTL_EXIT_OK;
}

/* ---- exports ---- */

static int export_finish(FILE *f, int r) {
        if (r >= 0 && fflush(f) != 0)
                r = negative_errno();
        if (r < 0) {
                text_fprintf_errno(stderr, r, "benchctl: export: cannot write: %m\n");
                return BENCHCTL_EXIT_FAILURE;
        }
        return BENCHCTL_EXIT_OK;
}

/* Calls one() for the job, or for each chosen entry of a matrix job as a job of its own. */
static int export_entries(const JobRuns *j, FILE *f, int (*one)(const JobRuns *j, FILE *f)) {
        if (j->n_entries == 0)
                return one(j, f);
        for (size_t e = 0; e < j->n_entries; e++) {
                _cleanup_(job_runs_clear) JobRuns n = {};
                int r;

                if (!j->entries[e].selected)
                        continue;
                if (job_runs_narrow(j, e, &n) < 0)
                        return BENCHCTL_EXIT_FAILURE;
                r = one(&n, f);
                if (r != 0)
                        return r;
        }
        return BENCHCTL_EXIT_OK;
}

static int export_bonnie_csv_one(const JobRuns *j, FILE *f) {
        _cleanup_(fields_freep) char **fields = NULL;
        int r;

        r = bonnie_fields(j, &fields);
        if (r != 0)
                return r;
        return export_finish(f, bonnie_csv_print(f, fields));
}

int export_bonnie_csv(const JobRuns *j, FILE *f) {
        return export_entries(j, f, export_bonnie_csv_one);
}

static int export_iozone_one(const JobRuns *j, FILE *f) {
        _cleanup_free_ IozoneCell *cells = NULL;
        _cleanup_free_ char *preamble = NULL;
        json_object *run = j->n_ok > 0 ? j->ok[0] : NULL;
        size_t n, preamble_size = 0;
        FILE *m;
        int r;

        if (iozone_cells(j, &cells, &n) < 0)
                return BENCHCTL_EXIT_FAILURE;
        if (n == 0) {
                text_fprintf(stderr, "benchctl: job %" PRIu64 "%s%s has no succeeded run of an iozone test "
                             "(workloads write, rewrite, read, reread, randread, randwrite, backward-read, "
                             "stride-read); run --profile iozone for them\n", j->job, j->entry ? ", entry " : "",
                             j->entry ? j->entry->name : "");
                return BENCHCTL_EXIT_FAILURE;
        }
        /* iozone's own preamble lines start with a tab, as these, the names in them escaped. One entry's
         * report says which filesystem it is first, as iozone's title line would, after an empty line
         * that ends the entry before it. The cells a cache served, not the device, are said there too:
         * the report's cells are numbers. */
        for (const JobEntry *e = j->entry ? j->entries : NULL; e && e < j->entry; e++)
                if (e->selected) {
                        fputc('\n', f);
                        break;
                }
        m = open_memstream(&preamble, &preamble_size);
        if (!m)
                return BENCHCTL_EXIT_FAILURE;
        if (j->entry)
                r = text_fprintf(m, "\t%s: benchd %s, job %" PRIu64 " (%s%s), filesystem matrix entry %zu of %zu, "
                                 "host %s\n", j->entry->place, BENCHD_VERSION, j->job, j->profile ?: "no profile",
                                 j->profile ? " profile" : "", (size_t) (j->entry - j->entries) + 1, j->n_entries,
                                 job_host(j));
        else
                r = text_fprintf(m, "\tbenchd %s, job %" PRIu64 " (%s%s) on %s (%s), host %s\n", BENCHD_VERSION,
                                 j->job, j->profile ?: "no profile", j->profile ? " profile" : "",
                                 rec_str(run, "target") ?: "?", rec_str(run, "fs_type") ?: run_device(run) ?: "?",
                                 job_host(j));
        if (r >= 0 && runs_cache_served(j->ok, j->n_ok) > 0)
                fputs("\t+++++ Some cells are the page cache's, not the device's: benchctl show --job names them\n", m);
        if (fclose(m) != 0 || r < 0)
                return BENCHCTL_EXIT_FAILURE;
        return export_finish(f, iozone_report_print(f, preamble, cells, n));
}

int export_iozone(const JobRuns *j, FILE *f) {
        return export_entries(j, f, export_iozone_one);
}
