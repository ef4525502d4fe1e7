/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A job's runs for its views (job-runs.h), once loaded (model.c): only succeeded runs
 * count, ordered by step, repeat and id; a matrix job's entries are found from its runs
 * (matrix_entry, fs_type, layout, members) and named as the job's tables name them.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "job-runs.h"
#include "record.h"
#include "shared/json-util.h"
#include "shared/util.h"
#include "views-format.h"
#include "text.h"

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
        return j->opts->json || j->json_sink;
}

void job_json_emit(const JobRuns *j, json_object *o) {
        /* Every view says how many of its runs a cache served (each run's served_from is GetRun's). */
        if (json_object_is_type(o, json_type_object))
                json_object_object_add(o, "cache_served_runs", json_object_new_uint64(runs_cache_served(j->ok, j->n_ok)));
        if (j->entry) {
                json_object_object_add(o, "entry", json_object_new_string(j->entry->name));
                json_object_object_add(o, "place", json_object_new_string(j->entry->place));
        }
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

void job_runs_clear(JobRuns *j) {
        free(j->ok);
        if (!j->borrowed) {
                for (size_t i = 0; i < j->n_entries; i++) {
                        free(j->entries[i].name);
                        free(j->entries[i].label);
                        free(j->entries[i].place);
                }
                free(j->entries);
                json_object_put(j->runs);
                json_object_put(j->env);
                json_object_put(j->first);
                sd_bus_flush_close_unref(j->bus);
        }
        *j = (JobRuns) {};
}

/* The members' kernel names, joined by '+': "loop1+loop2". */
static char *members_text(json_object *run) {
        const char *m = rec_str(run, "members");
        _cleanup_json_ json_object *a = m ? json_tokener_parse(m) : NULL;
        _cleanup_free_ char *s = NULL;
        size_t len = 0;
        FILE *f;

        f = open_memstream(&s, &len);
        if (!f)
                return NULL;
        for (size_t i = 0; a && json_object_is_type(a, json_type_array) && i < json_object_array_length(a); i++) {
                const char *d = json_object_get_string(json_object_array_get_idx(a, i)) ?: "?";
                const char *slash = strrchr(d, '/');

                fprintf(f, "%s%s", i > 0 ? "+" : "", slash ? slash + 1 : d);
        }
        if (fclose(f) != 0)
                return NULL;
        return TAKE_PTR(s);
}

static bool run_layout_single(json_object *run) {
        const char *l = rec_str(run, "layout");

        return !l || streq(l, "single");
}

/* The entries of a matrix job, in entry order: the runs with a matrix_entry, named as
 * matrix_entry_name() does ("ext4", "ext4 loop1", "btrfs raid1", "ext4 p2"). */
static int job_find_entries(JobRuns *j) {
        _cleanup_json_ json_object *member_sets = json_object_new_array();
        size_t n = json_object_array_length(j->runs);
        bool several;

        if (!member_sets)
                return -ENOMEM;
        for (size_t i = 0; i < n; i++) {
                json_object *run = json_object_array_get_idx(j->runs, i);
                const char *members = rec_str(run, "members");
                uint64_t e;
                size_t k;
                bool seen = false;

                if (!rec_u64(run, "matrix_entry", &e))
                        continue;
                if (run_layout_single(run) && members) {
                        for (size_t m = 0; m < json_object_array_length(member_sets) && !seen; m++)
                                seen = streq(json_object_get_string(json_object_array_get_idx(member_sets, m)), members);
                        if (!seen)
                                json_object_array_add(member_sets, json_object_new_string(members));
                }
                for (k = 0; k < j->n_entries && j->entries[k].index != e; k++)
                        ;
                if (k == j->n_entries) {
                        JobEntry *a = reallocarray(j->entries, j->n_entries + 1, sizeof(JobEntry));

                        if (!a)
                                return -ENOMEM;
                        j->entries = a;
                        a[j->n_entries++] = (JobEntry) { .index = e, .first = run, .selected = true };
                }
                if (streq_ptr(rec_str(run, "status"), "succeeded")) {
                        /* Its first succeeded run describes it: a failed one may lack the filesystem. */
                        if (j->entries[k].n_ok == 0 || run_id(run) < run_id(j->entries[k].first))
                                j->entries[k].first = run;
                        j->entries[k].n_ok++;
                } else if (j->entries[k].n_ok == 0 && run_id(run) < run_id(j->entries[k].first))
                        j->entries[k].first = run;
        }
        several = json_object_array_length(member_sets) > 1;

        /* In entry order, whatever order QueryRuns gave (newest first). */
        for (size_t a = 1; a < j->n_entries; a++)
                for (size_t b = a; b > 0 && j->entries[b - 1].index > j->entries[b].index; b--) {
                        JobEntry t = j->entries[b];
                        j->entries[b] = j->entries[b - 1];
                        j->entries[b - 1] = t;
                }
        for (size_t k = 0; k < j->n_entries; k++) {
                JobEntry *e = &j->entries[k];
                json_object *run = e->first;
                const char *fs = rec_str(run, "fs_type") ?: "?", *layout = rec_str(run, "layout");
                _cleanup_free_ char *members = members_text(run);
                bool raid = !run_layout_single(run);
                uint64_t partition = 0;
                char part[24] = "";

                if (!members)
                        return -ENOMEM;
                if (rec_u64(run, "partition", &partition) && partition > 0)
                        snprintf(part, sizeof(part), " p%" PRIu64, partition);
                if (asprintf(&e->name, "%s%s%s%s%s%s", fs, raid ? " " : "", raid ? layout : "",
                             !raid && several ? " " : "", !raid && several ? members : "", part) < 0) {
                        e->name = NULL;
                        return -ENOMEM;
                }
                if (asprintf(&e->place, "%s%s%s on %s", fs, raid ? " " : "", raid ? layout : "",
                             *members ? members : "?") < 0) {
                        e->place = NULL;
                        return -ENOMEM;
                }
        }
        /* Two entries of one name (one filesystem made twice, with other options): apart by number,
         * as CompareRuns has them. */
        for (size_t k = 0; k < j->n_entries; k++) {
                bool shared = false;

                for (size_t m = 0; m < j->n_entries && !shared; m++)
                        shared = m != k && streq(j->entries[m].name, j->entries[k].name);
                if (shared) {
                        char *s;

                        if (asprintf(&s, "%s #%" PRIu64, j->entries[k].name, j->entries[k].index) < 0)
                                return -ENOMEM;
                        free(j->entries[k].name);
                        j->entries[k].name = s;
                }
        }
        for (size_t k = 0; k < j->n_entries; k++) {
                j->entries[k].label = strdup(j->entries[k].name);
                if (!j->entries[k].label)
                        return -ENOMEM;
                for (char *c = j->entries[k].label; *c; c++)
                        if (*c == ' ' || *c == ',' || *c == '/')
                                *c = '-';
                        else if (*c == '#')
                                *c = 'n';
        }
        return 0;
}

int job_runs_index(JobRuns *j) {
        size_t n = json_object_array_length(j->runs);

        j->ok = calloc(MAX(n, (size_t) 1), sizeof(json_object *));
        if (!j->ok)
                return -ENOMEM;
        for (size_t i = 0; i < n; i++) {
                json_object *run = json_object_array_get_idx(j->runs, i);
                const char *p = rec_str(run, "profile");

                if (!j->profile && p && *p)
                        j->profile = p;
                if (streq_ptr(rec_str(run, "status"), "succeeded"))
                        j->ok[j->n_ok++] = run;
                else
                        j->n_other++;
        }
        qsort(j->ok, j->n_ok, sizeof(json_object *), run_order);
        return job_find_entries(j);
}

int job_runs_narrow(const JobRuns *j, size_t e, JobRuns *ret) {
        JobRuns n = *j;
        size_t total = json_object_array_length(j->runs);

        n.borrowed = true;
        n.entry = &j->entries[e];
        n.n_ok = n.n_other = 0;
        n.ok = calloc(MAX(j->n_ok, (size_t) 1), sizeof(json_object *));
        if (!n.ok)
                return -ENOMEM;
        for (size_t i = 0; i < j->n_ok; i++)
                if (rec_u64_or(j->ok[i], "matrix_entry", UINT64_MAX) == n.entry->index)
                        n.ok[n.n_ok++] = j->ok[i];
        for (size_t i = 0; i < total; i++) {
                json_object *run = json_object_array_get_idx(j->runs, i);

                if (rec_u64_or(run, "matrix_entry", UINT64_MAX) == n.entry->index &&
                    !streq_ptr(rec_str(run, "status"), "succeeded"))
                        n.n_other++;
        }
        *ret = n;
        return 0;
}

/* "'ext4', 'btrfs'" */
static char *entries_text(const JobRuns *j) {
        _cleanup_free_ char *s = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&s, &len);

        if (!f)
                return NULL;
        for (size_t i = 0; i < j->n_entries; i++)
                fprintf(f, "%s'%s'", i > 0 ? ", " : "", j->entries[i].name);
        if (fclose(f) != 0)
                return NULL;
        return TAKE_PTR(s);
}

int job_runs_select_entries(JobRuns *j, const char *entry, const char *fs_type, char **reterr) {
        _cleanup_free_ char *names = NULL;
        size_t n = 0;

        *reterr = NULL;
        if (j->n_entries == 0) {
                json_object *run = j->n_ok > 0 ? j->ok[0] : json_object_array_get_idx(j->runs, 0);

                if (!entry && !fs_type)
                        return 0;
                if (asprintf(reterr, "job %" PRIu64 " is not a filesystem matrix (its runs are on %s%s%s), so %s "
                             "selects nothing; leave it out, or give the id of a matrix job (one submitted with "
                             "--set filesystems=...)", j->job, rec_str(run, "target") ?: "?",
                             rec_str(run, "fs_type") ? ", " : "", rec_str(run, "fs_type") ?: "",
                             entry ? "--entry" : "--fs-type") < 0)
                        *reterr = NULL;
                return -EINVAL;
        }
        for (size_t i = 0; i < j->n_entries; i++) {
                JobEntry *e = &j->entries[i];

                e->selected = (!entry || streq(entry, e->name) || streq(entry, e->label)) &&
                              (!fs_type || streq_ptr(fs_type, rec_str(e->first, "fs_type")));
                n += e->selected;
        }
        if (n > 0)
                return 0;
        names = entries_text(j);
        if (asprintf(reterr, "job %" PRIu64 " has no entry %s%s%s%s%s%s; its entries are %s", j->job,
                     entry ? "'" : "", entry ?: "", entry ? "'" : "", entry && fs_type ? " " : "",
                     fs_type ? "on " : "", fs_type ?: "", strna(names)) < 0)
                *reterr = NULL;
        return -ENOENT;
}

size_t job_runs_n_selected(const JobRuns *j) {
        size_t n = 0;

        for (size_t i = 0; i < j->n_entries; i++)
                n += j->entries[i].selected;
        return n;
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

        text_printf("Job %" PRIu64 " (%s%s)", j->job, j->profile ?: "no profile", j->profile ? " profile" : "");
        if (j->entry)
                text_printf(", entry %zu of %zu, %s:", (size_t) (j->entry - j->entries) + 1, j->n_entries,
                            j->entry->place);
        else {
                text_printf(" on %s", rec_str(run, "target") ?: "?");
                if (fs || dev)
                        text_printf(" (%s%s%s)", fs ?: "", fs && dev ? ", " : "", dev ?: "");
                printf(",");
        }
        printf(" %zu succeeded run%s", j->n_ok, j->n_ok == 1 ? "" : "s");
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
