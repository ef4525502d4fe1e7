/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The history verbs: results, show, samples, export, import, compare. All of them read runs as JSON
 * objects (the run_summary columns, see schema/) and print either that JSON untouched (--json,
 * export) or tables in human units; the units are chosen in format.c.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "benchctl.h"
#include "bus.h"
#include "format.h"
#include "record.h"
#include "table.h"
#include "model.h"
#include "verbs-results.h"
#include "verbs-views.h"
#include "text.h"

/* "/mnt/t (sdb1)" */
static char *run_where(json_object *run) {
        const char *target = rec_str(run, "target") ?: "", *dev = run_device(run);
        char *s;

        if (dev && !strstr(target, dev)) {
                if (asprintf(&s, "%s (%s)", target, dev) < 0)
                        return NULL;
                return s;
        }
        return strdup(target);
}

int verb_results(int argc, char **argv, const BenchctlOptions *opts) {
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
        _cleanup_json_ json_object *filter = NULL, *runs = NULL;
        _cleanup_(table_freep) Table *t = NULL;
        static const char *const headers[] = {
                "RUN", "JOB", "WHEN", "WORKLOAD", "BS", "QD×J", "TARGET", "FS", "MiB/s", "IOPS", "P99", "STATUS"
        };
        uint64_t now = now_usec(CLOCK_REALTIME);
        size_t n;
        int r;

        if (run_filter_from_args(opts, &filter) < 0)
                return BENCHCTL_EXIT_FAILURE;
        r = bus_connect(opts, &bus);
        if (r != 0)
                return r;
        r = query_runs(bus, filter, &runs);
        if (r != 0)
                return r;

        if (opts->json) {
                print_json(runs);
                return BENCHCTL_EXIT_OK;
        }

        n = json_object_array_length(runs);
        if (n == 0) {
                if (opts->legend)
                        printf("No runs found.\n");
                return BENCHCTL_EXIT_OK;
        }
        if (table_new(headers, ELEMENTSOF(headers), &t) < 0)
                return BENCHCTL_EXIT_FAILURE;
        table_set_align(t, 0, TABLE_ALIGN_RIGHT);
        table_set_align(t, 1, TABLE_ALIGN_RIGHT);
        table_set_align(t, 4, TABLE_ALIGN_RIGHT);
        table_set_align(t, 5, TABLE_ALIGN_RIGHT);
        for (size_t c = 8; c <= 10; c++)
                table_set_align(t, c, TABLE_ALIGN_RIGHT);
        table_set_shrinkable(t, 6, 6);   /* target */
        table_set_shrinkable(t, 3, 5);   /* workload */

        for (size_t i = 0; i < n; i++) {
                json_object *run = json_object_array_get_idx(runs, i);
                _cleanup_free_ char *where = run_where(run);
                char a[FORMAT_BUF_MAX];

                table_add_cellf(t, "%" PRIu64, run_id(run));
                table_add_cellf(t, "%" PRIu64, rec_u64_or(run, "job_id", 0));
                table_add_cell(t, format_timestamp_short(a, sizeof a, run_started_usec(run), now));
                table_add_cell(t, rec_str(run, "workload"));
                table_add_cell(t, format_bytes(a, sizeof a, rec_u64_or(run, "block_size", 0)));
                table_add_cellf(t, "%" PRIu64 "×%" PRIu64, rec_u64_or(run, "queue_depth", 1), rec_u64_or(run, "jobs", 1));
                table_add_cell(t, where);
                table_add_cell(t, rec_str(run, "fs_type") ?: "-");
                table_add_cell(t, format_rate(a, sizeof a, run_bytes_per_sec(run), false));
                table_add_cell(t, format_iops(a, sizeof a, run_iops(run)));
                table_add_cell(t, format_latency_ns(a, sizeof a, run_latency_ns(run, "p99")));
                table_add_cell(t, rec_str(run, "status"));
        }
        table_print(t, opts->legend);
        if (opts->legend)
                printf("\n%zu run%s listed.\n", n, n == 1 ? "" : "s");
        return BENCHCTL_EXIT_OK;
}

static int print_samples_table(const BenchctlOptions *opts, json_object *samples) {
        _cleanup_(table_freep) Table *t = NULL;
        static const char *const headers[] = {
                "T", "MiB/s", "IOPS", "MEAN", "P50", "P99", "MAX", "IOWAIT", "USER", "SYS", "UTIL"
        };
        uint64_t prev = 0;
        size_t n = json_object_array_length(samples);

        if (table_new(headers, ELEMENTSOF(headers), &t) < 0)
                return BENCHCTL_EXIT_FAILURE;
        for (size_t c = 0; c < ELEMENTSOF(headers); c++)
                table_set_align(t, c, TABLE_ALIGN_RIGHT);
        for (size_t i = 0; i < n; i++) {
                json_object *s = json_object_array_get_idx(samples, i);
                uint64_t t_ms = rec_u64_or(s, "t_ms", 0);
                char a[FORMAT_BUF_MAX];

                table_add_cellf(t, "%.1fs", (double) t_ms / 1e3);
                table_add_cell(t, format_rate(a, sizeof a, sample_bytes_per_sec(s, prev), false));
                table_add_cell(t, format_iops(a, sizeof a, sample_iops(s, prev)));
                table_add_cell(t, format_latency_ns(a, sizeof a, sample_latency_ns(s, "mean")));
                table_add_cell(t, format_latency_ns(a, sizeof a, sample_latency_ns(s, "p50")));
                table_add_cell(t, format_latency_ns(a, sizeof a, sample_latency_ns(s, "p99")));
                table_add_cell(t, format_latency_ns(a, sizeof a, sample_latency_ns(s, "max")));
                table_add_cell(t, format_pct(a, sizeof a, rec_double_or(s, "iowait_pct", NAN)));
                table_add_cell(t, format_pct(a, sizeof a, rec_double_or(s, "cpu_user_pct", NAN)));
                table_add_cell(t, format_pct(a, sizeof a, rec_double_or(s, "cpu_sys_pct", NAN)));
                table_add_cell(t, format_pct(a, sizeof a, rec_double_or(s, "dev_util_pct", NAN)));
                prev = t_ms;
        }
        table_print(t, opts->legend);
        if (opts->legend)
                printf("\n%zu sample%s.\n", n, n == 1 ? "" : "s");
        return BENCHCTL_EXIT_OK;
}

/* tags arrive as the JSON text of the column ('["a","b"]'); show them as "a, b". */
static char *tags_text(json_object *run) {
        const char *s = rec_str(run, "tags");
        _cleanup_json_ json_object *a = NULL;
        _cleanup_json_ json_object *wrap = NULL;

        if (!s || !*s)
                return NULL;
        a = json_tokener_parse(s);
        if (!a || !json_object_is_type(a, json_type_array))
                return strdup(s);
        wrap = json_object_new_object();
        if (!wrap)
                return NULL;
        json_object_object_add(wrap, "tags", json_object_get(a));
        return rec_to_text(wrap, "tags");
}

#define KW 11

/* Whether the figure is the device's (served_from, schema/README.md), with what its counters saw,
 * and what is under a loop device (the environment's "loop"). */
static void print_served(json_object *run) {
        char a[FORMAT_BUF_MAX], b[FORMAT_BUF_MAX], c[FORMAT_BUF_MAX], d[FORMAT_BUF_MAX];
        const char *s = rec_str(run, "served_from"), *env_text = rec_str(run, "environment");
        _cleanup_json_ json_object *env = env_text ? json_tokener_parse(env_text) : NULL;
        json_object *loops = NULL;
        uint64_t dr, dw;

        if (rec_u64(run, "device_bytes_read", &dr) && rec_u64(run, "device_bytes_written", &dw)) {
                uint64_t br, bw;

                kv_print(stdout, KW, "Device saw", "%s read, %s written (its own counters, in the measured phase)",
                         format_bytes(a, sizeof a, dr), format_bytes(b, sizeof b, dw));
                if (rec_u64(run, "backing_bytes_read", &br) && rec_u64(run, "backing_bytes_written", &bw))
                        kv_print(stdout, KW, "Image's disk", "%s read, %s written (under the loop device's backing "
                                 "file)", format_bytes(c, sizeof c, br), format_bytes(d, sizeof d, bw));
        }
        if (streq_ptr(s, "device"))
                kv_print(stdout, KW, "Served", "by the device");
        else if (streq_ptr(s, "page-cache"))
                kv_print(stdout, KW, "Served", "+++++ by the page cache, not the device: it saw less than half of "
                         "the bytes, so the figures are the cache's");
        else if (streq_ptr(s, "backing-file"))
                kv_print(stdout, KW, "Served", "+++++ by the loop device's backing file, not a disk (the host's "
                         "page cache, or a sparse image's holes): the figures are the cache's");
        if (env && json_object_object_get_ex(env, "loop", &loops) && json_object_is_type(loops, json_type_array))
                for (size_t i = 0; i < json_object_array_length(loops); i++) {
                        json_object *l = json_object_array_get_idx(loops, i);
                        bool sparse = false, dio = false, have_sparse = rec_bool(l, "backing_sparse", &sparse),
                             have_dio = rec_bool(l, "direct_io", &dio);

                        kv_print(stdout, KW, "Loop device", "%s over %s%s%s%s%s%s", rec_str(l, "name") ?: "?",
                                 rec_str(l, "backing_file") ?: "?", rec_str(l, "backing_fs") ? " on " : "",
                                 rec_str(l, "backing_fs") ?: "",
                                 streq_ptr(rec_str(l, "backing_fs"), "tmpfs") ? " (memory)" : "",
                                 have_sparse && sparse ? ", sparse (reads of its holes reach no disk)" : "",
                                 have_dio ? (dio ? ", direct I/O" : ", buffered by the host's page cache") : "");
                }
}

/* What the filesystem was made on, when more than one device as it is (schema 0020, 0021, 0023): the
 * layout, its md array and volume group as benchd named them, the partition. */
static void print_layout(json_object *run) {
        _cleanup_free_ char *text = NULL;
        const char *layout = rec_str(run, "layout"), *md = rec_str(run, "md_array"), *vg = rec_str(run, "lvm_vg"),
                *resync = rec_str(run, "md_resync");
        char a[FORMAT_BUF_MAX], b[FORMAT_BUF_MAX];
        uint64_t u, parts = 0, part = 0;
        size_t len = 0;
        FILE *f;

        rec_u64(run, "partitions", &parts);
        rec_u64(run, "partition", &part);
        if ((!layout || streq(layout, "single")) && parts == 0)
                return;
        f = open_memstream(&text, &len);
        if (!f)
                return;
        fputs(layout ?: "single", f);
        if (md) {
                fprintf(f, ", md array %s", md);
                if (resync)
                        fprintf(f, " (resync %s%s%s", resync, rec_u64(run, "md_resync_usec", &u) ? " " : "",
                                rec_u64(run, "md_resync_usec", &u) ? format_duration(a, sizeof a, u) : "");
                if (rec_u64(run, "md_chunk_bytes", &u) && u > 0)
                        fprintf(f, "%schunk %s", resync ? ", " : " (", format_bytes(b, sizeof b, u));
                if (resync || (rec_u64(run, "md_chunk_bytes", &u) && u > 0))
                        fputc(')', f);
        }
        if (vg) {
                fprintf(f, ", volume group %s", vg);
                if (rec_u64(run, "lv_bytes", &u))
                        fprintf(f, " (lv %s in %" PRIu64 " extents)", format_bytes(a, sizeof a, u),
                                rec_u64_or(run, "lv_extents", 0));
        }
        if (parts > 0)
                fprintf(f, ", partition %" PRIu64 " of %" PRIu64, part, parts);
        if (fclose(f) != 0 || !text)
                return;
        kv_print(stdout, KW, "Layout", "%s", text);
}

static void print_run_block(json_object *run) {
        char a[FORMAT_BUF_MAX], b[FORMAT_BUF_MAX], c[FORMAT_BUF_MAX], d[FORMAT_BUF_MAX], e[FORMAT_BUF_MAX],
                f[FORMAT_BUF_MAX];
        const char *s, *status = rec_str(run, "status") ?: "unknown";
        _cleanup_free_ char *tags = tags_text(run);
        uint64_t u, rd = rec_u64_or(run, "bytes_read", 0), wr = rec_u64_or(run, "bytes_written", 0);
        uint64_t ops = rec_u64_or(run, "ops", 0);
        const char *pattern = rec_str(run, "pattern");
        bool direct = false;
        double v;

        text_printf("Run %" PRIu64 ": %s %s\n", run_id(run), rec_str(run, "workload") ?: "?", status);
        if (rec_u64(run, "job_id", &u)) {
                s = rec_str(run, "profile");
                kv_print(stdout, KW, "Job", "%" PRIu64 ", step %" PRIu64 "%s%s, repeat %" PRIu64, u,
                         rec_u64_or(run, "step", 0) + 1, s && *s ? " of profile " : "", s && *s ? s : "",
                         rec_u64_or(run, "repeat", 0) + 1);
        }
        if ((s = rec_str(run, "origin_host")) && *s)
                kv_print(stdout, KW, "Imported", "from %s (benchctl import); measured there", s);
        kv_print(stdout, KW, "Target", "%s", rec_str(run, "target") ?: "");
        if ((s = run_device(run))) {
                const char *model = rec_str(run, "device_model"), *fs = rec_str(run, "fs_type"),
                           *opts = rec_str(run, "mount_options");
                kv_print(stdout, KW, "Device", "%s%s%s%s%s%s%s%s", s, model ? " (" : "", model ?: "", model ? ")" : "",
                         fs ? ", " : "", fs ?: "", opts ? " " : "", opts ?: "");
        } else if ((s = rec_str(run, "fs_type")))
                kv_print(stdout, KW, "Filesystem", "%s %s", s, rec_str(run, "mount_options") ?: "");
        print_layout(run);
        kv_print(stdout, KW, "Started", "%s, measured %s", format_timestamp(a, sizeof a, run_started_usec(run)),
                 format_duration(b, sizeof b, rec_u64_or(run, "duration_usec", 0)));
        rec_bool(run, "direct", &direct);
        kv_print(stdout, KW, "Spec", "block size %s, size %s, qd %" PRIu64 " × %" PRIu64 " job%s%s, sync %s%s%s",
                 format_bytes(a, sizeof a, rec_u64_or(run, "block_size", 0)),
                 format_bytes(b, sizeof b, rec_u64_or(run, "size", 0)),
                 rec_u64_or(run, "queue_depth", 1), rec_u64_or(run, "jobs", 1),
                 rec_u64_or(run, "jobs", 1) == 1 ? "" : "s", direct ? ", direct" : "",
                 rec_str(run, "sync") ?: "none",
                 pattern ? ", pattern " : "", pattern ?: "");
        if (rec_u64(run, "runtime_ms", &u) && u > 0)
                kv_print(stdout, KW, "Runtime", "%s (ramp %s)", format_duration(a, sizeof a, u * USEC_PER_MSEC),
                         format_duration(b, sizeof b, rec_u64_or(run, "ramp_ms", 0) * USEC_PER_MSEC));
        if (rec_u64(run, "steady_state", &u)) {
                _cleanup_json_ json_object *spec = NULL;
                const char *crit = NULL, *text = rec_str(run, "spec");

                if (text && (spec = json_tokener_parse(text)))
                        crit = rec_str(spec, "steady_state");
                if (u > 0)
                        kv_print(stdout, KW, "Steady", "%s%s%sreached after %s, which ended the run", crit ?: "",
                                 crit ? "%" : "", crit ? " " : "",
                                 format_duration(a, sizeof a, rec_u64_or(run, "steady_state_usec", 0)));
                else
                        kv_print(stdout, KW, "Steady", "%s%s%snot reached in the runtime", crit ?: "", crit ? "%" : "",
                                 crit ? " " : "");
        }
        kv_print(stdout, KW, "Throughput", "%s (read %s, written %s)",
                 format_rate(a, sizeof a, run_bytes_per_sec(run), true),
                 format_bytes(b, sizeof b, rd), format_bytes(c, sizeof c, wr));
        kv_print(stdout, KW, "IOPS", "%s (read %" PRIu64 ", written %" PRIu64 " I/Os)",
                 format_iops(a, sizeof a, run_iops(run)), rec_u64_or(run, "ios_read", 0), rec_u64_or(run, "ios_written", 0));
        if (ops > 0)
                kv_print(stdout, KW, "Operations", "%" PRIu64 " (%s/s)", ops,
                         format_iops(a, sizeof a, rec_double_or(run, "ops_per_s", NAN)));
        kv_print(stdout, KW, "Latency", "min %s, mean %s, stddev %s, max %s",
                 format_latency_ns(a, sizeof a, run_latency_ns(run, "min")),
                 format_latency_ns(b, sizeof b, run_latency_ns(run, "mean")),
                 format_latency_ns(c, sizeof c, run_latency_ns(run, "stddev")),
                 format_latency_ns(d, sizeof d, run_latency_ns(run, "max")));
        v = run_latency_ns(run, "p9999");
        kv_print(stdout, KW, "Percentiles", "p50 %s, p90 %s, p95 %s, p99 %s, p99.9 %s%s%s",
                 format_latency_ns(a, sizeof a, run_latency_ns(run, "p50")),
                 format_latency_ns(b, sizeof b, run_latency_ns(run, "p90")),
                 format_latency_ns(c, sizeof c, run_latency_ns(run, "p95")),
                 format_latency_ns(d, sizeof d, run_latency_ns(run, "p99")),
                 format_latency_ns(e, sizeof e, run_latency_ns(run, "p999")),
                 isnan(v) ? "" : ", p99.99 ", isnan(v) ? "" : format_latency_ns(f, sizeof f, v));
        kv_print(stdout, KW, "CPU", "user %s, system %s, iowait %s",
                 format_pct(a, sizeof a, rec_double_or(run, "cpu_user_pct", NAN)),
                 format_pct(b, sizeof b, rec_double_or(run, "cpu_sys_pct", NAN)),
                 format_pct(c, sizeof c, rec_double_or(run, "iowait_pct", NAN)));
        if (rec_double(run, "process_cpu_pct", &v))
                kv_print(stdout, KW, "Worker CPU", "%s of one CPU (user %s, system %s; bonnie++'s %%CP)",
                         format_pct(a, sizeof a, v),
                         format_duration(b, sizeof b, rec_u64_or(run, "process_user_usec", 0)),
                         format_duration(c, sizeof c, rec_u64_or(run, "process_sys_usec", 0)));
        if (rec_double(run, "dev_util_pct", &v) && v >= 0)
                kv_print(stdout, KW, "Device use", "%s", format_pct(f, sizeof f, v));
        print_served(run);
        if ((s = rec_str(run, "label")) && *s)
                kv_print(stdout, KW, "Label", "%s", s);
        if (tags && *tags)
                kv_print(stdout, KW, "Tags", "%s", tags);
        if ((s = rec_str(run, "error")) && *s)
                kv_print(stdout, KW, "Error", "%s", s);
}

/* The latency histogram in 1-2-5 bins, one bar each, from the first to the last non-empty bin. The
 * buckets are the daemon's (upper bound ns, count); a bucket goes to the bin its bound falls in. */
static void print_histogram(json_object *buckets) {
        static const double edges_ns[] = {
                1e3, 2e3, 5e3, 1e4, 2e4, 5e4, 1e5, 2e5, 5e5, 1e6, 2e6, 5e6, 1e7, 2e7, 5e7,
                1e8, 2e8, 5e8, 1e9, 2e9, 5e9, 1e10, INFINITY,
        };
        uint64_t bins[ELEMENTSOF(edges_ns)] = {}, total = 0, most = 0;
        size_t first = SIZE_MAX, last = 0, n = json_object_array_length(buckets);

        for (size_t i = 0; i < n; i++) {
                json_object *b = json_object_array_get_idx(buckets, i);
                double upper = (double) json_object_get_uint64(json_object_array_get_idx(b, 0));
                uint64_t count = json_object_get_uint64(json_object_array_get_idx(b, 1));
                size_t k = 0;

                while (upper > edges_ns[k])
                        k++;
                bins[k] += count;
                total += count;
        }
        if (total == 0)
                return;
        for (size_t k = 0; k < ELEMENTSOF(bins); k++)
                if (bins[k] > 0) {
                        first = MIN(first, k);
                        last = k;
                        most = MAX(most, bins[k]);
                }

        printf("\nLatency distribution (%" PRIu64 " I/Os):\n", total);
        for (size_t k = first; k <= last; k++) {
                char a[FORMAT_BUF_MAX], bar[40 * 3 + 1] = "";
                size_t width = (size_t) llround(40.0 * (double) bins[k] / (double) most);

                for (size_t j = 0; j < width; j++)
                        strcat(bar, "█");
                if (width == 0 && bins[k] > 0)
                        strcat(bar, "▏");
                /* printf pads bytes, and "µ" is two: pad by columns. */
                format_latency_ns(a, sizeof a, isinf(edges_ns[k]) ? edges_ns[k - 1] : edges_ns[k]);
                printf("  %s %*s%s  %6.2f%%  %s\n", isinf(edges_ns[k]) ? ">" : "≤",
                       (int) (8 - MIN(utf8_width(a), (size_t) 8)), "", a,
                       100.0 * (double) bins[k] / (double) total, bar);
        }
}

/* The metadata workload's phases (GetRun's "phases"), one row each, bonnie++'s order. */
static int print_phases_table(const BenchctlOptions *opts, json_object *phases) {
        _cleanup_(table_freep) Table *t = NULL;
        static const char *const headers[] = { "PHASE", "OPS", "TIME", "OPS/S", "MEAN", "P50", "P99", "MAX" };
        size_t n = json_object_array_length(phases);

        if (table_new(headers, ELEMENTSOF(headers), &t) < 0)
                return BENCHCTL_EXIT_FAILURE;
        for (size_t c = 1; c < ELEMENTSOF(headers); c++)
                table_set_align(t, c, TABLE_ALIGN_RIGHT);
        for (size_t i = 0; i < n; i++) {
                json_object *p = json_object_array_get_idx(phases, i);
                char a[FORMAT_BUF_MAX];

                table_add_cell(t, rec_str(p, "phase") ?: "?");
                table_add_cellf(t, "%" PRIu64, rec_u64_or(p, "ops", 0));
                table_add_cell(t, format_duration(a, sizeof a, rec_u64_or(p, "duration_usec", 0)));
                table_add_cell(t, format_iops(a, sizeof a, rec_double_or(p, "ops_per_s", NAN)));
                table_add_cell(t, format_latency_ns(a, sizeof a, rec_double_or(p, "lat_mean_ns", NAN)));
                table_add_cell(t, format_latency_ns(a, sizeof a, rec_double_or(p, "lat_p50_ns", NAN)));
                table_add_cell(t, format_latency_ns(a, sizeof a, rec_double_or(p, "lat_p99_ns", NAN)));
                table_add_cell(t, format_latency_ns(a, sizeof a, rec_double_or(p, "lat_max_ns", NAN)));
        }
        printf("\nPhases:\n");
        table_print(t, opts->legend);
        return BENCHCTL_EXIT_OK;
}

/* Where an offset lies on the device, in percent: of the end of the last position, which is the
 * device's end (to within one block). */
static double position_pct(json_object *p, uint64_t end) {
        return end > 0 ? 100.0 * (double) rec_u64_or(p, "offset_bytes", 0) / (double) end : 0.0;
}

/* The position workload's offsets (GetRun's "positions"), one row each from the start of the
 * device, then the slowest and the fastest. MB/s are decimal (10^6 B/s), as run_position_summary's
 * mb_per_s and GNOME Disks' benchmark show them. */
static int print_positions_table(const BenchctlOptions *opts, json_object *positions) {
        _cleanup_(table_freep) Table *t = NULL;
        static const char *const headers[] = { "POSITION", "OFFSET", "MB/s", "LAT-AVG", "LAT-MAX" };
        size_t n = json_object_array_length(positions), slow = SIZE_MAX, fast = SIZE_MAX;
        json_object *last = json_object_array_get_idx(positions, n - 1);
        uint64_t end = rec_u64_or(last, "offset_bytes", 0) + rec_u64_or(last, "bytes", 0);

        if (table_new(headers, ELEMENTSOF(headers), &t) < 0)
                return BENCHCTL_EXIT_FAILURE;
        for (size_t c = 0; c < ELEMENTSOF(headers); c++)
                table_set_align(t, c, TABLE_ALIGN_RIGHT);
        for (size_t i = 0; i < n; i++) {
                json_object *p = json_object_array_get_idx(positions, i);
                double mb = rec_double_or(p, "mb_per_s", NAN);
                char a[FORMAT_BUF_MAX];

                table_add_cellf(t, "%.0f%%", position_pct(p, end));
                table_add_cell(t, format_bytes(a, sizeof a, rec_u64_or(p, "offset_bytes", 0)));
                if (isfinite(mb))
                        table_add_cellf(t, "%.1f", mb);
                else
                        table_add_cell(t, "n/a");
                table_add_cell(t, format_latency_ns(a, sizeof a, rec_double_or(p, "lat_mean_ns", NAN)));
                table_add_cell(t, format_latency_ns(a, sizeof a, rec_double_or(p, "lat_max_ns", NAN)));
                if (!isfinite(mb))
                        continue;
                if (slow == SIZE_MAX ||
                    mb < rec_double_or(json_object_array_get_idx(positions, slow), "mb_per_s", NAN))
                        slow = i;
                if (fast == SIZE_MAX ||
                    mb > rec_double_or(json_object_array_get_idx(positions, fast), "mb_per_s", NAN))
                        fast = i;
        }
        printf("\nPositions:\n");
        table_print(t, opts->legend);
        if (slow != SIZE_MAX) {
                json_object *ps = json_object_array_get_idx(positions, slow),
                            *pf = json_object_array_get_idx(positions, fast);
                double s_mb = rec_double_or(ps, "mb_per_s", NAN), f_mb = rec_double_or(pf, "mb_per_s", NAN);

                printf("\nslowest %.1f MB/s at %.0f%%, fastest %.1f MB/s at %.0f%%", s_mb, position_pct(ps, end),
                       f_mb, position_pct(pf, end));
                if (s_mb > 0)
                        printf(" (fastest/slowest %.2f)", f_mb / s_mb);
                printf("\n");
        }
        return BENCHCTL_EXIT_OK;
}

int verb_show(int argc, char **argv, const BenchctlOptions *opts) {
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
        _cleanup_json_ json_object *run = NULL;
        json_object *samples = NULL, *histogram = NULL, *phases = NULL, *positions = NULL; /* borrowed from run */
        uint64_t id;
        int r;

        /* show --fleet UUID: a fleet run gathered into this history (verbs-fleet.c). */
        if (opts->fleet) {
                if (argc > 1 || opts->job) {
                        fprintf(stderr, "benchctl: show --fleet UUID takes no run id and no --job\n");
                        return BENCHCTL_EXIT_USAGE;
                }
                return fleet_show(opts);
        }
        /* show --job ID: a filesystem matrix (verbs-views.c), or the job's runs in its profile's
         * shape (verbs-views.c). */
        if (argc < 2) {
                if (opts->job == 0) {
                        fprintf(stderr, "benchctl: show needs a run id, or --job ID for a job's runs\n");
                        return BENCHCTL_EXIT_USAGE;
                }
                return job_view(opts, opts->job);
        }
        if (parse_id_arg("run id", argv[1], &id) < 0)
                return BENCHCTL_EXIT_USAGE;
        r = bus_connect(opts, &bus);
        if (r != 0)
                return r;
        r = run_details(bus, id, &run);
        if (r != 0)
                return r;
        if (opts->json) {
                print_json(run);
                return BENCHCTL_EXIT_OK;
        }
        /* run_details() put them under their names; a daemon without histograms has none. */
        json_object_object_get_ex(run, "samples", &samples);
        json_object_object_get_ex(run, "histogram", &histogram);
        print_run_block(run);
        /* The metadata workload's phases; --json has them as the run's "phases" already. */
        if (json_object_object_get_ex(run, "phases", &phases) && json_object_is_type(phases, json_type_array) &&
            json_object_array_length(phases) > 0) {
                r = print_phases_table(opts, phases);
                if (r != 0)
                        return r;
        }
        /* The position workload's offsets; --json has them as the run's "positions". */
        if (json_object_object_get_ex(run, "positions", &positions) &&
            json_object_is_type(positions, json_type_array) && json_object_array_length(positions) > 0) {
                r = print_positions_table(opts, positions);
                if (r != 0)
                        return r;
        }
        if (histogram)
                print_histogram(histogram);
        if (json_object_array_length(samples) > 0) {
                printf("\n");
                return print_samples_table(opts, samples);
        }
        return BENCHCTL_EXIT_OK;
}

int verb_samples(int argc, char **argv, const BenchctlOptions *opts) {
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
        _cleanup_json_ json_object *samples = NULL;
        uint64_t id;
        int r;

        if (argc == 1) {
                if (opts->job == 0) {
                        fprintf(stderr, "benchctl: samples needs a RUN id (or show --job ID for a job's runs)\n");
                        return BENCHCTL_EXIT_USAGE;
                }
                return job_view(opts, opts->job);
        }
        if (parse_id_arg("run id", argv[1], &id) < 0)
                return BENCHCTL_EXIT_USAGE;
        r = bus_connect(opts, &bus);
        if (r != 0)
                return r;
        r = get_samples(bus, id, &samples);
        if (r != 0)
                return r;
        if (opts->json) {
                print_json(samples);
                return BENCHCTL_EXIT_OK;
        }
        if (json_object_array_length(samples) == 0) {
                if (opts->legend)
                        printf("Run %" PRIu64 " has no samples.\n", id);
                return BENCHCTL_EXIT_OK;
        }
        return print_samples_table(opts, samples);
}

/* prune --older-than=TIME: PruneSamples, which answers when the samples are gone and their space
 * given back; that takes seconds per million samples, so the call may wait long. */
#define PRUNE_TIMEOUT_USEC (3600ULL * 1000000ULL)

int verb_prune(int argc, char **argv, const BenchctlOptions *opts) {
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *m = NULL, *reply = NULL;
        uint64_t runs = 0, samples = 0;
        int r;

        if (opts->older_than_usec == 0) {
                fprintf(stderr, "benchctl: prune needs --older-than=TIME, e.g. --older-than=90d or "
                                "--older-than=2026-11-01\n");
                return BENCHCTL_EXIT_USAGE;
        }
        r = bus_connect(opts, &bus);
        if (r != 0)
                return r;
        r = bus_new_manager_call(bus, "PruneSamples", &m);
        if (r >= 0)
                r = sd_bus_message_append(m, "t", opts->older_than_usec);
        if (r >= 0)
                r = sd_bus_call(bus, m, PRUNE_TIMEOUT_USEC, &error, &reply);
        if (r >= 0)
                r = sd_bus_message_read(reply, "tt", &runs, &samples);
        if (r < 0)
                return bus_error_exit("prune samples", &error, r);

        if (opts->json) {
                _cleanup_json_ json_object *o = json_object_new_object();

                if (!o)
                        return BENCHCTL_EXIT_FAILURE;
                json_object_object_add(o, "runs", json_object_new_int64((int64_t) runs));
                json_object_object_add(o, "samples", json_object_new_int64((int64_t) samples));
                print_json(o);
                return BENCHCTL_EXIT_OK;
        }
        printf("Removed %" PRIu64 " samples of %" PRIu64 " runs; their summaries and histograms stay.\n",
               samples, runs);
        return BENCHCTL_EXIT_OK;
}

/* RFC 4180: quote when needed, double the quotes. */
static void csv_field(FILE *f, const char *s) {
        if (!strpbrk(s, ",\"\r\n")) {
                fputs(s, f);
                return;
        }
        fputc('"', f);
        for (; *s; s++) {
                if (*s == '"')
                        fputc('"', f);
                fputc(*s, f);
        }
        fputc('"', f);
}

int export_csv(FILE *f, json_object *runs, bool header) {
        _cleanup_json_ json_object *columns = json_object_new_array(), *seen = json_object_new_object();
        size_t n = json_object_array_length(runs);

        if (!columns || !seen)
                return -ENOMEM;
        /* The union of the keys, in the order they first appear. */
        for (size_t i = 0; i < n; i++) {
                json_object *run = json_object_array_get_idx(runs, i);
                if (!json_object_is_type(run, json_type_object))
                        continue;
                json_object_object_foreach(run, key, value) {
                        (void) value;
                        if (json_object_object_get_ex(seen, key, NULL))
                                continue;
                        json_object_object_add(seen, key, NULL);
                        json_object_array_add(columns, json_object_new_string(key));
                }
        }

        for (size_t c = 0; header && c < json_object_array_length(columns); c++) {
                if (c > 0)
                        fputc(',', f);
                csv_field(f, json_object_get_string(json_object_array_get_idx(columns, c)));
        }
        if (header)
                fputc('\n', f);
        for (size_t i = 0; i < n; i++) {
                json_object *run = json_object_array_get_idx(runs, i);
                for (size_t c = 0; c < json_object_array_length(columns); c++) {
                        const char *key = json_object_get_string(json_object_array_get_idx(columns, c));
                        json_object *v = NULL;
                        if (c > 0)
                                fputc(',', f);
                        if (!json_object_object_get_ex(run, key, &v) || !v)
                                continue;
                        if (json_object_is_type(v, json_type_string))
                                csv_field(f, json_object_get_string(v));
                        else
                                csv_field(f, json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN));
                }
                fputc('\n', f);
        }
        return fflush(f) == 0 ? 0 : negative_errno();
}

/* export --format=benchd: {"format": "benchd-export", "version": 1, "host": this host, "runs": [...]},
 * each run as show --json has it (GetRun's columns with uuid and environment, "samples",
 * "histogram", "phases", "positions"), for benchctl import (ImportRuns) on another host. */
static int export_benchd(sd_bus *bus, json_object *runs) {
        _cleanup_json_ json_object *doc = json_object_new_object(), *full = json_object_new_array();
        char host[256] = {};
        int r;

        if (!doc || !full)
                return BENCHCTL_EXIT_FAILURE;
        if (gethostname(host, sizeof host - 1) < 0 || host[0] == '\0') {
                text_fprintf_errno(stderr, -errno, "benchctl: export: cannot tell this host's name (gethostname: %m); "
                                   "set one with hostnamectl\n");
                return BENCHCTL_EXIT_FAILURE;
        }
        for (size_t i = 0; i < json_object_array_length(runs); i++) {
                json_object *run = NULL;
                uint64_t id = rec_u64_or(json_object_array_get_idx(runs, i), "id", 0);

                if (id == 0)
                        continue;
                r = run_details(bus, id, &run);
                if (r != 0)
                        return r;
                json_object_array_add(full, run);
        }
        json_object_object_add(doc, "format", json_object_new_string("benchd-export"));
        json_object_object_add(doc, "version", json_object_new_int(1));
        json_object_object_add(doc, "host", json_object_new_string(host));
        json_object_object_add(doc, "runs", TAKE_PTR(full));
        print_json(doc);
        return BENCHCTL_EXIT_OK;
}

int verb_export(int argc, char **argv, const BenchctlOptions *opts) {
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
        _cleanup_json_ json_object *runs = NULL;
        int r;

        /* A job in an anchor's own format (verbs-views.c). */
        if (opts->format == EXPORT_BONNIE_CSV || opts->format == EXPORT_IOZONE) {
                if (opts->job == 0 || argc > 1) {
                        text_fprintf(stderr, "benchctl: export --format=%s writes one job: give --job ID and no run ids\n",
                                     opts->format == EXPORT_IOZONE ? "iozone" : "bonnie-csv");
                        return BENCHCTL_EXIT_USAGE;
                }
                return job_export(opts, opts->job, opts->format);
        }
        r = bus_connect(opts, &bus);
        if (r != 0)
                return r;
        if (argc > 1) {
                runs = json_object_new_array();
                if (!runs)
                        return BENCHCTL_EXIT_FAILURE;
                for (int i = 1; i < argc; i++) {
                        json_object *run = NULL;
                        uint64_t id;
                        if (parse_id_arg("run id", argv[i], &id) < 0)
                                return BENCHCTL_EXIT_USAGE;
                        r = get_run(bus, id, &run);
                        if (r != 0)
                                return r;
                        json_object_array_add(runs, run);
                }
        } else {
                _cleanup_json_ json_object *filter = NULL;
                if (run_filter_from_args(opts, &filter) < 0)
                        return BENCHCTL_EXIT_FAILURE;
                r = query_runs(bus, filter, &runs);
                if (r != 0)
                        return r;
        }

        if (opts->format == EXPORT_BENCHD)
                return export_benchd(bus, runs);
        if (opts->json || opts->format == EXPORT_JSON) {
                print_json(runs);
                return BENCHCTL_EXIT_OK;
        }
        r = export_csv(stdout, runs, opts->legend);
        if (r < 0) {
                text_fprintf_errno(stderr, r, "benchctl: export: %m\n");
                return BENCHCTL_EXIT_FAILURE;
        }
        return BENCHCTL_EXIT_OK;
}

/* import FILE: ImportRuns with the document, read whole (at most IMPORT_FILE_MAX, what benchd
 * takes). Writing many runs' samples takes a while: the call may wait long. */
#define IMPORT_FILE_MAX (64u * 1024u * 1024u)
#define IMPORT_TIMEOUT_USEC (3600ULL * 1000000ULL)

int verb_import(int argc, char **argv, const BenchctlOptions *opts) {
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        _cleanup_free_ char *buf = NULL;
        const char *path = argv[1];
        uint64_t imported = 0, skipped = 0;
        size_t n = 0, allocated = 0;
        FILE *f;
        int r;

        f = streq(path, "-") ? stdin : fopen(path, "re");
        if (!f) {
                text_fprintf_errno(stderr, -errno, "benchctl: import: cannot open %s: %m; give the file benchctl "
                                   "export --format=benchd wrote, or - for stdin\n", path);
                return BENCHCTL_EXIT_FAILURE;
        }
        for (;;) {
                size_t k;

                if (n + 65536 + 1 > allocated) {
                        size_t a = allocated ? allocated * 2 : 1024 * 1024;
                        char *p = realloc(buf, a);
                        if (!p) {
                                if (f != stdin)
                                        fclose(f);
                                return BENCHCTL_EXIT_FAILURE;
                        }
                        buf = p;
                        allocated = a;
                }
                k = fread(buf + n, 1, 65536, f);
                n += k;
                if (n > IMPORT_FILE_MAX) {
                        text_fprintf(stderr, "benchctl: import: %s is larger than %u bytes, all one import takes: "
                                     "export fewer runs at a time (RUN ids, --since, --job)\n", path, IMPORT_FILE_MAX);
                        if (f != stdin)
                                fclose(f);
                        return BENCHCTL_EXIT_FAILURE;
                }
                if (k == 0)
                        break;
        }
        r = ferror(f);
        if (f != stdin)
                fclose(f);
        if (r) {
                text_fprintf(stderr, "benchctl: import: cannot read %s\n", path);
                return BENCHCTL_EXIT_FAILURE;
        }
        buf[n] = '\0';
        if (strlen(buf) != n) {
                text_fprintf(stderr, "benchctl: import: %s has a NUL byte: it is not the JSON benchctl export "
                             "--format=benchd writes\n", path);
                return BENCHCTL_EXIT_FAILURE;
        }

        r = bus_connect(opts, &bus);
        if (r != 0)
                return r;
        {
                _cleanup_(sd_bus_message_unrefp) sd_bus_message *m = NULL;

                r = bus_new_manager_call(bus, "ImportRuns", &m);
                if (r >= 0)
                        r = sd_bus_message_append(m, "s", buf);
                if (r >= 0)
                        r = sd_bus_call(bus, m, IMPORT_TIMEOUT_USEC, &error, &reply);
        }
        if (r >= 0)
                r = sd_bus_message_read(reply, "tt", &imported, &skipped);
        if (r < 0)
                return bus_error_exit("import runs", &error, r);

        if (opts->json) {
                _cleanup_json_ json_object *o = json_object_new_object();

                if (!o)
                        return BENCHCTL_EXIT_FAILURE;
                json_object_object_add(o, "imported", json_object_new_int64((int64_t) imported));
                json_object_object_add(o, "skipped", json_object_new_int64((int64_t) skipped));
                print_json(o);
                return BENCHCTL_EXIT_OK;
        }
        printf("Imported %" PRIu64 " runs; skipped %" PRIu64 " already in this history.\n", imported, skipped);
        return BENCHCTL_EXIT_OK;
}
