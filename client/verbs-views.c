/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * `benchctl show --job ID` and `export --format bonnie-csv|iozone --job ID` (verbs-views.h): the
 * view is picked by the job's profile. This file has the views whose tools write no file of their
 * own (CrystalDiskMark's grid, ioping's summary, dd's lines) and the per-step table for any other
 * profile; iozone and bonnie++ are views-anchors.c, the runs and their figures job-runs.c, the
 * layouts views-format.c. Several succeeded runs of one step (repeats) or one shape are averaged.
 * A filesystem matrix job is shown entry by entry, each entry's runs as a job of their own, then
 * its entries compared (compare --job, verbs-compare.c); no view averages two filesystems.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bus.h"
#include "format.h"
#include "job-runs.h"
#include "record.h"
#include "table.h"
#include "verbs-results.h"
#include "model.h"
#include "verbs-views.h"
#include "views-format.h"
#include "text.h"

/* ---- CrystalDiskMark ---- */

typedef struct CrystalKey {
        bool random, write;
        uint64_t block_size, queue_depth, jobs;
} CrystalKey;

static bool crystal_key_of(json_object *run, CrystalKey *k) {
        const char *w = rec_str(run, "workload");

        if (!w)
                return false;
        /* The crystal profile's sequential writes overwrite a laid-out file (rewrite), as KDiskMark's. */
        if (streq(w, "read") || streq(w, "write") || streq(w, "rewrite"))
                k->random = false;
        else if (streq(w, "randread") || streq(w, "randwrite"))
                k->random = true;
        else
                return false;
        k->write = streq(w, "write") || streq(w, "rewrite") || streq(w, "randwrite");
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
        const BenchctlOptions *opts = j->opts;
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
        if (job_wants_json(j)) {
                _cleanup_json_ json_object *o = json_object_new_object();
                json_object_object_add(o, "job", json_object_new_uint64(j->job));
                json_object_object_add(o, "profile", json_object_new_string(j->profile ?: ""));
                json_object_object_add(o, "view", json_object_new_string("crystal"));
                json_object_object_add(o, "tests", json_object_get(rows));
                job_json_emit(j, o);
                return BENCHCTL_EXIT_OK;
        }
        print_job_head(j, "CrystalDiskMark's grid");
        printf("\n");
        if (n == 0) {
                printf("No read, write, randread or randwrite runs.\n");
                return BENCHCTL_EXIT_OK;
        }
        table_print(t, opts->legend);
        print_job_cache_notes(j);
        if (opts->legend)
                printf("\nMB/s = 10^6 bytes/s; µs = mean latency; Q = queue depth, T = threads (jobs).\n");
        return BENCHCTL_EXIT_OK;
}

/* ---- ioping ---- */

static int view_ping(const JobRuns *j) {
        _cleanup_free_ json_object **sel = NULL;
        size_t n = job_select(j, is_workload, "ping", &sel);
        PingSummary p = { .min_ns = NAN, .max_ns = NAN };
        double sq = 0, p50, p99;
        char a[FORMAT_BUF_MAX], b[FORMAT_BUF_MAX];
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
                if (isfinite(lo) && (isnan(p.min_ns) || lo < p.min_ns))
                        p.min_ns = lo;
                if (isfinite(hi) && (isnan(p.max_ns) || hi > p.max_ns))
                        p.max_ns = hi;
        }
        p.avg_ns = p.requests > 0 ? p.busy_ns / (double) p.requests : NAN;
        /* ioping's mdev: the deviation of all requests from their mean, the runs' pooled. */
        p.mdev_ns = p.requests > 0 ? sqrt(MAX(sq / (double) p.requests - p.avg_ns * p.avg_ns, 0.0)) : NAN;
        p50 = runs_mean(sel, n, run_lat_p50, NULL);
        p99 = runs_mean(sel, n, run_lat_p99, NULL);

        if (job_wants_json(j)) {
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
                job_json_emit(j, o);
                return BENCHCTL_EXIT_OK;
        }
        first = sel[0];
        print_job_head(j, "ioping's summary");
        text_printf("\n--- %s (%s %s) ioping statistics ---\n", rec_str(first, "target") ?: "?",
                    rec_str(first, "fs_type") ?: "device", run_device(first) ?: "");
        if (ping_summary_print(stdout, &p) < 0)
                return BENCHCTL_EXIT_FAILURE;
        print_cache_note("ping", sel, n);
        printf("\nbenchd: latency p50 %s, p99 %s; \"completed in\" is the sum of the request times, as ioping\n"
               "counts it, \"generated ... in\" the whole measured run.\n",
               format_latency_ns(a, sizeof a, p50), format_latency_ns(b, sizeof b, p99));
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
        if (!job_wants_json(j))
                print_job_head(j, "dd's closing lines");
        for (size_t d = 0; d < ELEMENTSOF(dirs); d++) {
                _cleanup_free_ json_object **sel = NULL;
                size_t n = job_select(j, is_workload, dirs[d], &sel);
                bool write = d == 0;
                json_object *o, *lines;
                char cmd[256], a[FORMAT_BUF_MAX], b[FORMAT_BUF_MAX], c[FORMAT_BUF_MAX], e[FORMAT_BUF_MAX],
                        g[FORMAT_BUF_MAX];
                double sd, mean, p50, p99, iow, usr, sys;

                if (n == 0)
                        continue;
                dd_command(cmd, sizeof cmd, sel[0], write);
                mean = runs_mean(sel, n, run_bytes_per_sec, &sd);
                p50 = runs_mean(sel, n, run_lat_p50, NULL);
                p99 = runs_mean(sel, n, run_lat_p99, NULL);
                iow = runs_mean(sel, n, run_iowait_pct, NULL);
                usr = runs_mean(sel, n, run_user_pct, NULL);
                sys = runs_mean(sel, n, run_sys_pct, NULL);

                o = json_object_new_object();
                lines = json_object_new_array();
                json_object_object_add(o, "workload", json_object_new_string(dirs[d]));
                json_object_object_add(o, "command", json_object_new_string(cmd));
                json_object_object_add(o, "lines", lines);
                json_object_object_add(o, "runs", json_object_new_uint64(n));
                json_object_object_add(o, "mb_per_s", json_number(mean / 1e6));
                json_object_object_add(o, "mb_per_s_stddev", n > 1 ? json_number(sd / 1e6) : NULL);
                json_object_object_add(o, "lat_p50_ns", json_number(p50));
                json_object_object_add(o, "lat_p99_ns", json_number(p99));
                json_object_object_add(o, "iowait_pct", json_number(iow));
                json_object_object_add(o, "cpu_user_pct", json_number(usr));
                json_object_object_add(o, "cpu_sys_pct", json_number(sys));
                json_object_array_add(out, o);

                if (!job_wants_json(j))
                        printf("\n%s, as %s:\n", dirs[d], cmd);
                /* dd's line for each run, as if dd had been run that many times. */
                for (size_t i = 0; i < n; i++) {
                        char line[256];

                        dd_format_summary(line, sizeof line, rec_u64_or(sel[i], write ? "bytes_written" : "bytes_read", 0),
                                          rec_u64_or(sel[i], "duration_usec", 0));
                        json_object_array_add(lines, json_object_new_string(line));
                        if (!job_wants_json(j))
                                printf("%s\n", line);
                }
                if (job_wants_json(j))
                        continue;
                if (n > 1)
                        printf("mean of %zu runs %.1f MB/s, stddev %.1f MB/s\n", n, mean / 1e6, sd / 1e6);
                print_cache_note(dirs[d], sel, n);
                printf("benchd: latency p50 %s, p99 %s; iowait %s, CPU user %s sys %s (machine-wide)\n",
                       format_latency_ns(a, sizeof a, p50), format_latency_ns(b, sizeof b, p99),
                       format_pct(c, sizeof c, iow), format_pct(e, sizeof e, usr), format_pct(g, sizeof g, sys));
        }
        if (job_wants_json(j)) {
                _cleanup_json_ json_object *o = json_object_new_object();
                json_object_object_add(o, "job", json_object_new_uint64(j->job));
                json_object_object_add(o, "profile", json_object_new_string(j->profile ?: ""));
                json_object_object_add(o, "view", json_object_new_string("dd"));
                json_object_object_add(o, "directions", json_object_get(out));
                job_json_emit(j, o);
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
        const BenchctlOptions *opts = j->opts;
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
        if (job_wants_json(j)) {
                _cleanup_json_ json_object *o = json_object_new_object();
                json_object_object_add(o, "job", json_object_new_uint64(j->job));
                json_object_object_add(o, "profile", j->profile ? json_object_new_string(j->profile) : NULL);
                json_object_object_add(o, "view", json_object_new_string("steps"));
                json_object_object_add(o, "steps", json_object_get(steps));
                job_json_emit(j, o);
                return BENCHCTL_EXIT_OK;
        }
        print_job_head(j, NULL);
        printf("\n");
        if (j->n_ok == 0) {
                printf("No run succeeded.\n");
                return BENCHCTL_EXIT_OK;
        }
        table_print(t, opts->legend);
        print_job_cache_notes(j);
        if (opts->legend)
                printf("\nMB/s = 10^6 bytes/s, the mean over the step's N runs (± their standard deviation).\n");
        return BENCHCTL_EXIT_OK;
}

/* ---- entry points ---- */

int job_view_one(const JobRuns *j) {
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

        for (size_t i = 0; j->n_ok > 0 && i < ELEMENTSOF(views); i++)
                if (streq_ptr(j->profile, views[i].profile))
                        return views[i].view(j);
        return view_steps(j);
}

/* The filters of results that a whole job's view does not take: an error naming the one given and
 * what would be right, rather than a view that silently shows something else. */
static int refuse_run_filters(const BenchctlOptions *opts, const char *what) {
        const struct {
                const char *opt;
                bool given;
        } f[] = {
                { "--device", opts->device },
                { "--workload", opts->workload },
                { "--profile", opts->profile },
                { "--label", opts->label },
                { "--tag", opts->tags && opts->tags[0] },
                { "--status", opts->status },
                { "--since", opts->since_usec > 0 },
                { "--until", opts->until_usec > 0 },
                { "--limit", opts->limit > 0 },
        };

        for (size_t i = 0; i < ELEMENTSOF(f); i++)
                if (f[i].given) {
                        fprintf(stderr, "benchctl: %s --job shows a whole job, so %s does not apply; choose the "
                                "entries of a filesystem matrix with --entry NAME or --fs-type TYPE, or list runs "
                                "with benchctl results --job ID %s ...\n", what, f[i].opt, f[i].opt);
                        return BENCHCTL_EXIT_USAGE;
                }
        return 0;
}

int job_runs_load_selected(const BenchctlOptions *opts, uint64_t job, const char *what, JobRuns *ret) {
        _cleanup_(job_runs_clear) JobRuns j = {};
        _cleanup_free_ char *err = NULL;
        int r;

        r = refuse_run_filters(opts, what);
        if (r != 0)
                return r;
        r = job_runs_load(opts, job, &j);
        if (r != 0)
                return r;
        r = job_runs_select_entries(&j, opts->entry, opts->fs_type, &err);
        if (r < 0) {
                text_fprintf(stderr, "benchctl: %s --job %" PRIu64 ": %s\n", what, job, err ?: strerror(-r));
                return r == -ENOENT ? BENCHCTL_EXIT_NOT_FOUND : BENCHCTL_EXIT_USAGE;
        }
        *ret = j;
        j = (JobRuns) {};
        return 0;
}

/* ---- show --job ID of a filesystem matrix: per entry (--entry/--fs-type choose), the view of the
 * job's profile as its tool would print it, then how each entry's filesystem was made: mkfs time and
 * the capacity right after mkfs ("ext4 uses 3% right after mkfs"; USE% as df computes it, used /
 * (used + available), so space reserved for root counts as neither), and how many times (once per
 * round), then the comparison (compare --job). --json gives the same as one object. ---- */

static uint64_t entry_made(const JobRuns *j, const JobEntry *e) {
        _cleanup_json_ json_object *seen = json_object_new_array();
        uint64_t n = 0;

        for (size_t i = 0; seen && i < json_object_array_length(j->runs); i++) {
                json_object *run = json_object_array_get_idx(j->runs, i);
                const char *uuid = rec_str(run, "fs_uuid");
                bool known = false;

                if (!uuid || rec_u64_or(run, "matrix_entry", UINT64_MAX) != e->index)
                        continue;
                for (size_t k = 0; k < json_object_array_length(seen) && !known; k++)
                        known = streq(json_object_get_string(json_object_array_get_idx(seen, k)), uuid);
                if (!known) {
                        json_object_array_add(seen, json_object_new_string(uuid));
                        n++;
                }
        }
        return n;
}

static json_object *entry_to_json(const JobRuns *j, const JobEntry *e) {
        json_object *o = json_object_new_object();
        static const char *const keys[] = {
                "fs_type", "layout", "mkfs_command", "mkfs_options", "mkfs_usec", "mount_options", "fs_uuid",
                "fs_size_bytes", "fs_used_bytes", "fs_avail_bytes", "fs_inodes", "fs_inodes_free",
                "partitions", "partition",
        };
        const char *members = rec_str(e->first, "members"), *commands = rec_str(e->first, "fs_commands");
        json_object *v;

        if (!o)
                return NULL;
        json_object_object_add(o, "entry", json_object_new_uint64(e->index));
        json_object_object_add(o, "name", json_object_new_string(e->name));
        json_object_object_add(o, "place", json_object_new_string(e->place));
        for (size_t i = 0; i < ELEMENTSOF(keys); i++)
                if (json_object_object_get_ex(e->first, keys[i], &v))
                        json_object_object_add(o, keys[i], json_object_get(v));
        json_object_object_add(o, "members", members ? json_tokener_parse(members) : NULL);
        json_object_object_add(o, "fs_commands", commands ? json_tokener_parse(commands) : NULL);
        json_object_object_add(o, "runs", json_object_new_uint64(e->n_ok));
        json_object_object_add(o, "filesystems_made", json_object_new_uint64(entry_made(j, e)));
        return o;
}

static int print_entries_table(const JobRuns *j) {
        const BenchctlOptions *opts = j->opts;
        _cleanup_(table_freep) Table *t = NULL;
        static const char *const headers[] = {
                "ENTRY", "MEMBERS", "MKFS", "MADE", "SIZE", "USED", "USE%", "AVAIL", "INODES",
        };

        if (table_new(headers, ELEMENTSOF(headers), &t) < 0)
                return BENCHCTL_EXIT_FAILURE;
        for (size_t c = 2; c < ELEMENTSOF(headers); c++)
                table_set_align(t, c, TABLE_ALIGN_RIGHT);
        table_set_shrinkable(t, 1, 8);
        for (size_t e = 0; e < j->n_entries; e++) {
                json_object *run = j->entries[e].first;
                _cleanup_free_ char *members = NULL;
                _cleanup_json_ json_object *wrap = json_object_new_object();
                const char *mj = rec_str(run, "members");
                char a[FORMAT_BUF_MAX];
                uint64_t size, used, avail, usec;
                bool have_size, have_used, have_avail;

                if (wrap && mj) {
                        json_object_object_add(wrap, "members", json_tokener_parse(mj));
                        members = rec_to_text(wrap, "members");
                }
                table_add_cell(t, j->entries[e].name);
                table_add_cell(t, members ?: "-");
                table_add_cell(t, rec_u64(run, "mkfs_usec", &usec) ? format_duration(a, sizeof a, usec) : "-");
                table_add_cellf(t, "%" PRIu64 "×", entry_made(j, &j->entries[e]));
                have_size = rec_u64(run, "fs_size_bytes", &size);
                have_used = rec_u64(run, "fs_used_bytes", &used);
                have_avail = rec_u64(run, "fs_avail_bytes", &avail);
                table_add_cell(t, have_size ? format_bytes(a, sizeof a, size) : "-");
                table_add_cell(t, have_used ? format_bytes(a, sizeof a, used) : "-");
                /* As df shows it: of what is there for users, used plus available. */
                if (have_used && have_avail && used + avail > 0)
                        table_add_cellf(t, "%.1f%%", (double) used * 100.0 / (double) (used + avail));
                else
                        table_add_cell(t, "-");
                table_add_cell(t, have_avail ? format_bytes(a, sizeof a, avail) : "-");
                if (rec_u64(run, "fs_inodes", &size))
                        table_add_cellf(t, "%" PRIu64, size);
                else
                        table_add_cell(t, "-");
        }
        if (table_print(t, opts->legend) < 0)
                return BENCHCTL_EXIT_FAILURE;
        if (opts->legend)
                printf("\nMKFS: how long mkfs took; MADE: how many times the entry's filesystem was made (afresh at "
                       "each visit of a matrix in rounds); SIZE, USED, USE%% (of used + available, as df), AVAIL, "
                       "INODES: right after the first mkfs.\n");
        return BENCHCTL_EXIT_OK;
}

static int matrix_show(JobRuns *j) {
        const BenchctlOptions *opts = j->opts;
        _cleanup_json_ json_object *compare = NULL, *entries = NULL;
        size_t shown = 0;
        int r;

        if (job_wants_json(j)) {
                entries = json_object_new_array();
                if (!entries)
                        return BENCHCTL_EXIT_FAILURE;
        }
        for (size_t e = 0; e < j->n_entries; e++) {
                _cleanup_(job_runs_clear) JobRuns n = {};
                _cleanup_json_ json_object *view = NULL;

                if (!j->entries[e].selected)
                        continue;
                if (job_runs_narrow(j, e, &n) < 0)
                        return BENCHCTL_EXIT_FAILURE;
                if (entries) {
                        json_object *o = entry_to_json(j, &j->entries[e]);

                        if (!o)
                                return BENCHCTL_EXIT_FAILURE;
                        json_object_array_add(entries, o);
                        if (n.n_ok == 0) {
                                json_object_object_add(o, "view", NULL);
                                continue;
                        }
                        n.json_sink = &view;
                        r = job_view_one(&n);
                        if (r != 0)
                                return r;
                        json_object_object_add(o, "view", TAKE_PTR(view));
                        continue;
                }
                if (shown++ > 0)
                        printf("\n");
                if (n.n_ok == 0) {
                        print_job_head(&n, "no run of the entry succeeded");
                        continue;
                }
                r = job_view_one(&n);
                if (r != 0)
                        return r;
        }

        r = matrix_compare_json(opts, j->bus, j->job, &compare);
        if (r != 0)
                return r;
        if (entries) {
                _cleanup_json_ json_object *o = json_object_new_object();

                if (!o)
                        return BENCHCTL_EXIT_FAILURE;
                json_object_object_add(o, "job", json_object_new_uint64(j->job));
                json_object_object_add(o, "profile", j->profile ? json_object_new_string(j->profile) : NULL);
                json_object_object_add(o, "view", json_object_new_string("matrix"));
                json_object_object_add(o, "entries", TAKE_PTR(entries));
                json_object_object_add(o, "compare", TAKE_PTR(compare));
                job_json_emit(j, o);
                return BENCHCTL_EXIT_OK;
        }
        printf("\nJob %" PRIu64 ": a filesystem matrix of %zu entr%s; how each filesystem was made\n\n", j->job,
               j->n_entries, j->n_entries == 1 ? "y" : "ies");
        r = print_entries_table(j);
        if (r != 0)
                return r;
        printf("\nThe entries compared (benchctl compare --job %" PRIu64 ")\n\n", j->job);
        return compare_print(opts, compare);
}

int job_view_loaded(JobRuns *j) {
        return j->n_entries > 0 ? matrix_show(j) : job_view_one(j);
}

int job_view(const BenchctlOptions *opts, uint64_t job) {
        _cleanup_(job_runs_clear) JobRuns j = {};
        int r;

        r = job_runs_load_selected(opts, job, "show", &j);
        if (r != 0)
                return r;
        return job_view_loaded(&j);
}

int job_view_json(JobRuns *j, json_object **ret) {
        _cleanup_json_ json_object *o = NULL;
        int r;

        j->json_sink = &o;
        r = job_view_loaded(j);
        j->json_sink = NULL;
        if (r != 0)
                return r;
        if (!o)
                return BENCHCTL_EXIT_FAILURE;
        *ret = TAKE_PTR(o);
        return 0;
}

int job_export(const BenchctlOptions *opts, uint64_t job, ExportFormat format) {
        _cleanup_(job_runs_clear) JobRuns j = {};
        int r;

        r = job_runs_load_selected(opts, job, "export", &j);
        if (r != 0)
                return r;
        return format == EXPORT_BONNIE_CSV ? export_bonnie_csv(&j, stdout) : export_iozone(&j, stdout);
}
