/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Formatting of standalone results (output.h). Sizes, MiB/s, IOPS, latencies and percentages are
 * spelled by shared/format.h, the code benchctl uses, so the worker's summary reads like benchctl's
 * ("4 KiB", "12.3 µs", "16.4k IOPS"); throughput is also given in decimal MB/s, as dd and fio's
 * "MB/s" print it, for holding the figures against theirs.
 */
#include <inttypes.h>
#include <json-c/json.h>
#include <math.h>
#include <string.h>

#include "output.h"
#include "shared/format.h"
#include "shared/proto-plausible.h"
#include "shared/served.h"
#include "shared/util.h"

static double per_second(uint64_t n, uint64_t usec) {
        return usec > 0 ? (double) n * 1e6 / (double) usec : 0;
}

/* Buffers for the figures of one line: each format_*() call of a line gets its own. */
#define F(x) char x[FORMAT_BUF_MAX]

int output_human(FILE *f, const JobSpec *spec, const EngineResult *r) {
        const ProtoResult *s = &r->summary;
        F(a); F(b); F(c); F(d); F(e); F(g);
        uint64_t bytes = s->bytes_read + s->bytes_written, ios = s->ios_read + s->ios_written;
        double secs = (double) s->duration_usec / 1e6;

        fprintf(f, "%s on %s: %s blocks, %u stream%s, queue depth %u, %s, sync %s\n",
                workload_to_string(spec->workload), spec->target, format_bytes(a, sizeof a, spec->block_size),
                spec->jobs, spec->jobs == 1 ? "" : "s", spec->queue_depth, spec->direct ? "direct" : "buffered",
                spec->sync == SYNC_NONE ? "none" : spec->sync == SYNC_END ? "at end" : "after each write");

        fprintf(f, "  done:       ");
        if (s->bytes_read > 0)
                fprintf(f, "%s read (%" PRIu64 " I/Os)  ", format_bytes(a, sizeof a, s->bytes_read), s->ios_read);
        if (s->bytes_written > 0)
                fprintf(f, "%s written (%" PRIu64 " I/Os)  ", format_bytes(b, sizeof b, s->bytes_written),
                        s->ios_written);
        if (s->ops > 0)
                fprintf(f, "%" PRIu64 " operations  ", s->ops);
        fprintf(f, "in %.3f s", secs);
        if (r->bytes_asked > 0)
                fprintf(f, " (asked %s)", format_bytes(c, sizeof c, r->bytes_asked));
        fputc('\n', f);
        if (spec->steady_state != STEADY_STATE_NONE) {
                char pct[32];

                spec_milli_text(spec->steady_state_milli, pct);
                if (r->steady_state)
                        fprintf(f, "  steady:     %s:%s%% reached at %.3f s, which ended the run\n",
                                steady_state_kind_to_string(spec->steady_state), pct, (double) r->steady_state_ms / 1e3);
                else
                        fprintf(f, "  steady:     %s:%s%% not reached\n", steady_state_kind_to_string(spec->steady_state),
                                pct);
        }

        if (bytes > 0)
                fprintf(f, "  throughput: %.1f MB/s (%s), %s IOPS\n", per_second(bytes, s->duration_usec) / 1e6,
                        format_rate(a, sizeof a, per_second(bytes, s->duration_usec), true),
                        format_iops(b, sizeof b, per_second(ios, s->duration_usec)));
        if (s->ops > 0)
                fprintf(f, "  operations: %s ops/s\n", format_iops(a, sizeof a, per_second(s->ops, s->duration_usec)));

        /* putc and getc time batches of characters, not each call (stream.h). */
        if (workload_per_char(spec->workload))
                fprintf(f, "  latency per batch of %u characters:\n", PROTO_CHAR_BATCH);
        fprintf(f, "  latency:    min %s  mean %s  stddev %s  max %s\n",
                format_latency_ns(a, sizeof a, s->lat_min_ns), format_latency_ns(b, sizeof b, s->lat_mean_ns),
                format_latency_ns(c, sizeof c, s->lat_stddev_ns), format_latency_ns(d, sizeof d, s->lat_max_ns));
        fprintf(f, "              p50 %s  p90 %s  p95 %s  p99 %s\n",
                format_latency_ns(a, sizeof a, s->lat_p50_ns), format_latency_ns(b, sizeof b, s->lat_p90_ns),
                format_latency_ns(c, sizeof c, s->lat_p95_ns), format_latency_ns(d, sizeof d, s->lat_p99_ns));
        fprintf(f, "              p99.9 %s  p99.99 %s\n", format_latency_ns(e, sizeof e, s->lat_p999_ns),
                format_latency_ns(g, sizeof g, s->lat_p9999_ns));
        if (r->read_histogram && r->write_histogram && r->read_histogram->count && r->write_histogram->count)
                fprintf(f, "  by dir:     read p50 %s p99 %s  write p50 %s p99 %s\n",
                        format_latency_ns(a, sizeof a, histogram_percentile(r->read_histogram, 50)),
                        format_latency_ns(b, sizeof b, histogram_percentile(r->read_histogram, 99)),
                        format_latency_ns(c, sizeof c, histogram_percentile(r->write_histogram, 50)),
                        format_latency_ns(d, sizeof d, histogram_percentile(r->write_histogram, 99)));
        fprintf(f, "  cpu:        user %s  sys %s  iowait %s (system-wide)\n",
                format_pct(a, sizeof a, s->cpu_user_pct), format_pct(b, sizeof b, s->cpu_sys_pct),
                format_pct(c, sizeof c, s->iowait_pct));
        fprintf(f, "              the worker's own: %s of one CPU (user %.3f s, sys %.3f s; bonnie++'s %%CP)\n",
                format_pct(a, sizeof a, s->duration_usec > 0 ? 100.0 * (double) (s->process_user_usec +
                           s->process_sys_usec) / (double) s->duration_usec : 0.0),
                (double) s->process_user_usec / 1e6, (double) s->process_sys_usec / 1e6);
        if (s->dev_util_pct >= 0)
                fprintf(f, "  device:     %s util %s\n", s->device && *s->device ? s->device : "?",
                        format_pct(a, sizeof a, s->dev_util_pct));
        else
                fprintf(f, "  device:     none found for the target (util unknown)\n");
        if (s->counters & PROTO_COUNTERS_DEVICE)
                fprintf(f, "              its counters: %s read, %s written%s\n",
                        format_bytes(a, sizeof a, s->device_bytes_read), format_bytes(b, sizeof b, s->device_bytes_written),
                        s->counters & PROTO_COUNTERS_BACKING ? "" : " (no loop device's backing disk to ask)");
        if (s->counters & PROTO_COUNTERS_BACKING)
                fprintf(f, "              under the loop device's backing file: %s read, %s written\n",
                        format_bytes(a, sizeof a, s->backing_bytes_read), format_bytes(b, sizeof b, s->backing_bytes_written));
        if (s->served == SERVED_PAGE_CACHE || s->served == SERVED_BACKING_FILE) {
                bool writes = false;

                (void) served_from(&(ServedInput) {
                        .workload = spec->workload, .bytes_read = s->bytes_read, .bytes_written = s->bytes_written,
                        .device_known = true, .device_read = s->device_bytes_read,
                        .device_written = s->device_bytes_written,
                        .backing_known = s->counters & PROTO_COUNTERS_BACKING, .backing_read = s->backing_bytes_read,
                        .backing_written = s->backing_bytes_written }, &writes);
                fprintf(f, "  +++++:      the %s were served by %s, not the device: the figures are the cache's\n",
                        writes ? "writes" : "reads",
                        s->served == SERVED_PAGE_CACHE ? "the page cache (the device saw less than half of them)" :
                        "the loop device's backing file (the host's cache or a sparse image's holes)");
        }

        if (r->n_streams > 1)
                for (unsigned i = 0; i < r->n_streams; i++) {
                        const StreamSummary *st = &r->streams[i];
                        fprintf(f, "  stream %u:   %.1f MB/s, %s IOPS, mean %s, p99 %s\n", i,
                                per_second(st->bytes_read + st->bytes_written, s->duration_usec) / 1e6,
                                format_iops(a, sizeof a, per_second(st->ios_read + st->ios_written, s->duration_usec)),
                                format_latency_ns(b, sizeof b, st->lat_mean_ns),
                                format_latency_ns(c, sizeof c, st->lat_p99_ns));
                }
        for (unsigned i = 0; i < r->n_phases; i++) {
                const PhaseSummary *p = &r->phases[i];
                fprintf(f, "  %-12s %10s ops/s  (%" PRIu64 " ops, mean %s, p99 %s, max %s)\n", p->name,
                        format_iops(a, sizeof a, per_second(p->ops, p->duration_usec)), p->ops,
                        format_latency_ns(b, sizeof b, p->lat_mean_ns), format_latency_ns(c, sizeof c, p->lat_p99_ns),
                        format_latency_ns(d, sizeof d, p->lat_max_ns));
        }
        if (r->n_positions > 0) {
                const ProtoPositionResult *last = &r->positions[r->n_positions - 1];
                uint64_t end = last->offset_bytes + last->bytes;

                fprintf(f, "  %8s  %10s  %9s  %9s  %9s\n", "POSITION", "OFFSET", "MB/s", "LAT-AVG", "LAT-MAX");
                for (unsigned i = 0; i < r->n_positions; i++) {
                        const ProtoPositionResult *p = &r->positions[i];
                        fprintf(f, "  %7.0f%%  %10s  %9.1f  %9s  %9s\n",
                                end > 0 ? 100.0 * (double) p->offset_bytes / (double) end : 0.0,
                                format_bytes(a, sizeof a, p->offset_bytes),
                                per_second(p->bytes, p->duration_usec) / 1e6,
                                format_latency_ns(b, sizeof b, p->lat_mean_ns),
                                format_latency_ns(c, sizeof c, p->lat_max_ns));
                }
        }
        return ferror(f) ? -EIO : 0;
}

void output_sample_line(FILE *f, const ProtoSample *s) {
        F(a); F(b); F(c); F(d);
        uint64_t bytes = s->bytes_read + s->bytes_written, ios = s->ios_read + s->ios_written;

        fprintf(f, "%7.1fs %3.0f%%  %9.1f MB/s %9s IOPS", (double) s->t_ms / 1e3, s->progress * 100,
                per_second(bytes, s->interval_us) / 1e6, format_iops(a, sizeof a, per_second(ios, s->interval_us)));
        if (s->ops > 0)
                fprintf(f, " %9s ops/s", format_iops(a, sizeof a, per_second(s->ops, s->interval_us)));
        fprintf(f, "  p50 %s  p99 %s  iowait %s", format_latency_ns(b, sizeof b, s->lat_p50_ns),
                format_latency_ns(c, sizeof c, s->lat_p99_ns), format_pct(d, sizeof d, s->iowait_pct));
        if (s->dev_util_pct >= 0)
                fprintf(f, "  util %s", format_pct(a, sizeof a, s->dev_util_pct));
        fputc('\n', f);
}

#undef F

static void add_u64(json_object *o, const char *k, uint64_t v) {
        json_object_object_add(o, k, json_object_new_uint64(v));
}

static void add_double(json_object *o, const char *k, double v) {
        json_object_object_add(o, k, isfinite(v) ? json_object_new_double(v) : NULL);
}

static json_object *sample_to_json(const ProtoSample *s) {
        json_object *o = json_object_new_object();
        add_u64(o, "t_ms", s->t_ms);
        add_u64(o, "interval_us", s->interval_us);
        add_u64(o, "bytes_read", s->bytes_read);
        add_u64(o, "bytes_written", s->bytes_written);
        add_u64(o, "ios_read", s->ios_read);
        add_u64(o, "ios_written", s->ios_written);
        add_u64(o, "ops", s->ops);
        add_u64(o, "lat_mean_ns", s->lat_mean_ns);
        add_u64(o, "lat_p50_ns", s->lat_p50_ns);
        add_u64(o, "lat_p99_ns", s->lat_p99_ns);
        add_u64(o, "lat_max_ns", s->lat_max_ns);
        add_double(o, "iowait_pct", s->iowait_pct);
        add_double(o, "cpu_user_pct", s->cpu_user_pct);
        add_double(o, "cpu_sys_pct", s->cpu_sys_pct);
        add_double(o, "dev_util_pct", s->dev_util_pct);
        add_double(o, "dev_queue", s->dev_queue);
        add_double(o, "progress", s->progress);
        return o;
}

int output_json(FILE *f, const JobSpec *spec, const EngineResult *r, const ProtoSample *samples, size_t n_samples) {
        const ProtoResult *s = &r->summary;
        _cleanup_free_ char *spec_json = NULL;
        json_object *root = json_object_new_object(), *o, *a;

        if (!root)
                return -ENOMEM;
        if (spec_to_json(spec, &spec_json) >= 0)
                json_object_object_add(root, "spec", json_tokener_parse(spec_json));

        o = json_object_new_object();
        add_u64(o, "started_usec", s->started_usec);
        add_u64(o, "duration_usec", s->duration_usec);
        add_u64(o, "bytes_asked", r->bytes_asked);
        add_u64(o, "bytes_read", s->bytes_read);
        add_u64(o, "bytes_written", s->bytes_written);
        add_u64(o, "ios_read", s->ios_read);
        add_u64(o, "ios_written", s->ios_written);
        add_u64(o, "ops", s->ops);
        add_double(o, "bandwidth_bytes_per_sec", per_second(s->bytes_read + s->bytes_written, s->duration_usec));
        add_double(o, "iops", per_second(s->ios_read + s->ios_written, s->duration_usec));
        add_u64(o, "lat_min_ns", s->lat_min_ns);
        add_u64(o, "lat_mean_ns", s->lat_mean_ns);
        add_u64(o, "lat_stddev_ns", s->lat_stddev_ns);
        add_u64(o, "lat_p50_ns", s->lat_p50_ns);
        add_u64(o, "lat_p90_ns", s->lat_p90_ns);
        add_u64(o, "lat_p95_ns", s->lat_p95_ns);
        add_u64(o, "lat_p99_ns", s->lat_p99_ns);
        add_u64(o, "lat_p999_ns", s->lat_p999_ns);
        add_u64(o, "lat_p9999_ns", s->lat_p9999_ns);
        add_u64(o, "lat_max_ns", s->lat_max_ns);
        add_double(o, "iowait_pct", s->iowait_pct);
        add_double(o, "cpu_user_pct", s->cpu_user_pct);
        add_double(o, "cpu_sys_pct", s->cpu_sys_pct);
        add_double(o, "dev_util_pct", s->dev_util_pct);
        json_object_object_add(o, "device", json_object_new_string(s->device ? s->device : ""));
        add_u64(o, "process_user_usec", s->process_user_usec);
        add_u64(o, "process_sys_usec", s->process_sys_usec);
        if (s->counters & PROTO_COUNTERS_DEVICE) {
                add_u64(o, "device_bytes_read", s->device_bytes_read);
                add_u64(o, "device_bytes_written", s->device_bytes_written);
        }
        if (s->counters & PROTO_COUNTERS_BACKING) {
                add_u64(o, "backing_bytes_read", s->backing_bytes_read);
                add_u64(o, "backing_bytes_written", s->backing_bytes_written);
        }
        json_object_object_add(o, "served_from", served_from_to_string(s->served) ?
                               json_object_new_string(served_from_to_string(s->served)) : NULL);
        if (spec->steady_state != STEADY_STATE_NONE) {
                json_object_object_add(o, "steady_state", json_object_new_boolean(r->steady_state));
                if (r->steady_state)
                        add_u64(o, "steady_state_ms", r->steady_state_ms);
        }
        json_object_object_add(root, "result", o);

        /* Latency by direction, as fio reports it (randrw mixes both in the summary). */
        const Histogram *dirs[2] = { r->read_histogram, r->write_histogram };
        static const char *const dir_names[2] = { "read", "write" };
        for (unsigned d = 0; d < 2; d++) {
                const Histogram *h = dirs[d];
                if (!h || h->count == 0)
                        continue;
                o = json_object_new_object();
                add_u64(o, "ios", h->count);
                add_u64(o, "lat_min_ns", h->min);
                add_u64(o, "lat_mean_ns", (uint64_t) histogram_mean(h));
                add_u64(o, "lat_p50_ns", histogram_percentile(h, 50));
                add_u64(o, "lat_p90_ns", histogram_percentile(h, 90));
                add_u64(o, "lat_p99_ns", histogram_percentile(h, 99));
                add_u64(o, "lat_p999_ns", histogram_percentile(h, 99.9));
                add_u64(o, "lat_max_ns", h->max);
                json_object_object_add(root, dir_names[d], o);
        }

        a = json_object_new_array();
        for (unsigned i = 0; i < r->n_streams; i++) {
                const StreamSummary *st = &r->streams[i];
                o = json_object_new_object();
                add_u64(o, "bytes_read", st->bytes_read);
                add_u64(o, "bytes_written", st->bytes_written);
                add_u64(o, "ios_read", st->ios_read);
                add_u64(o, "ios_written", st->ios_written);
                add_u64(o, "ops", st->ops);
                add_u64(o, "lat_mean_ns", st->lat_mean_ns);
                add_u64(o, "lat_p50_ns", st->lat_p50_ns);
                add_u64(o, "lat_p99_ns", st->lat_p99_ns);
                add_u64(o, "lat_max_ns", st->lat_max_ns);
                json_object_array_add(a, o);
        }
        json_object_object_add(root, "streams", a);

        a = json_object_new_array();
        for (unsigned i = 0; i < r->n_phases; i++) {
                const PhaseSummary *p = &r->phases[i];
                o = json_object_new_object();
                json_object_object_add(o, "name", json_object_new_string(p->name));
                add_u64(o, "ops", p->ops);
                add_u64(o, "duration_usec", p->duration_usec);
                add_double(o, "ops_per_sec", per_second(p->ops, p->duration_usec));
                add_u64(o, "lat_min_ns", p->lat_min_ns);
                add_u64(o, "lat_mean_ns", p->lat_mean_ns);
                add_u64(o, "lat_p50_ns", p->lat_p50_ns);
                add_u64(o, "lat_p99_ns", p->lat_p99_ns);
                add_u64(o, "lat_max_ns", p->lat_max_ns);
                json_object_array_add(a, o);
        }
        json_object_object_add(root, "phases", a);

        a = json_object_new_array();
        for (unsigned i = 0; i < r->n_positions; i++) {
                const ProtoPositionResult *p = &r->positions[i];
                o = json_object_new_object();
                add_u64(o, "seq", p->index);
                add_u64(o, "offset_bytes", p->offset_bytes);
                add_u64(o, "bytes", p->bytes);
                add_u64(o, "duration_usec", p->duration_usec);
                add_double(o, "mb_per_s", per_second(p->bytes, p->duration_usec) / 1e6);
                add_u64(o, "lat_mean_ns", p->lat_mean_ns);
                add_u64(o, "lat_max_ns", p->lat_max_ns);
                json_object_array_add(a, o);
        }
        json_object_object_add(root, "positions", a);

        a = json_object_new_array();
        for (size_t i = 0; i < n_samples; i++)
                json_object_array_add(a, sample_to_json(&samples[i]));
        json_object_object_add(root, "samples", a);

        a = json_object_new_array();
        for (unsigned i = 0; r->histogram && i < HISTOGRAM_BUCKETS; i++)
                if (r->histogram->buckets[i] > 0) {
                        json_object *pair = json_object_new_array();
                        json_object_array_add(pair, json_object_new_uint64(histogram_bucket_upper(i)));
                        json_object_array_add(pair, json_object_new_uint64(r->histogram->buckets[i]));
                        json_object_array_add(a, pair);
                }
        json_object_object_add(root, "histogram", a);

        fputs(json_object_to_json_string_ext(root, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE), f);
        fputc('\n', f);
        json_object_put(root);
        return ferror(f) ? -EIO : 0;
}
