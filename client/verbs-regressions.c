/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * benchctl regressions: the regressions benchd flagged after its runs (ListRegressions), newest
 * first, with the run's figure against its baseline's median; --json prints the rows as benchd
 * sent them. The filters are results' own that ListRegressions takes: --device, --workload,
 * --since, --until, -n.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "benchctl.h"
#include "bus.h"
#include "format.h"
#include "record.h"
#include "table.h"

static int regression_filter_from_args(const BenchctlOptions *opts, json_object **ret) {
        json_object *f = json_object_new_object();

        if (!f)
                return -ENOMEM;
        if (opts->device)
                json_object_object_add(f, "device", json_object_new_string(opts->device));
        if (opts->workload)
                json_object_object_add(f, "workload", json_object_new_string(opts->workload));
        if (opts->since_usec > 0)
                json_object_object_add(f, "since_usec", json_object_new_uint64(opts->since_usec));
        if (opts->until_usec > 0)
                json_object_object_add(f, "until_usec", json_object_new_uint64(opts->until_usec));
        if (opts->limit > 0)
                json_object_object_add(f, "limit", json_object_new_uint64(opts->limit));
        *ret = f;
        return 0;
}

/* A figure in its metric's unit, as results shows it: MiB/s, IOPS, ops/s, a latency. */
static const char *format_figure(char *buf, size_t l, const char *metric, double v) {
        char a[FORMAT_BUF_MAX];

        if (streq_ptr(metric, "mb_per_s"))
                return format_rate(buf, l, v * 1e6, true);
        if (streq_ptr(metric, "iops"))
                snprintf(buf, l, "%s IOPS", format_iops(a, sizeof a, v));
        else if (streq_ptr(metric, "ops_per_s"))
                snprintf(buf, l, "%s ops/s", format_iops(a, sizeof a, v));
        else if (streq_ptr(metric, "lat_p99_ns"))
                return format_latency_ns(buf, l, v);
        else
                snprintf(buf, l, "%g", v);
        return buf;
}

static const char *metric_name(const char *metric) {
        if (streq_ptr(metric, "mb_per_s"))
                return "throughput";
        if (streq_ptr(metric, "iops"))
                return "IOPS";
        if (streq_ptr(metric, "ops_per_s"))
                return "ops/s";
        if (streq_ptr(metric, "lat_p99_ns"))
                return "p99 latency";
        return metric ?: "-";
}

int verb_regressions(int argc, char **argv, const BenchctlOptions *opts) {
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
        _cleanup_json_ json_object *filter = NULL, *rows = NULL;
        _cleanup_(table_freep) Table *t = NULL;
        static const char *const headers[] = {
                "WHEN", "DEVICE", "WORKLOAD", "METRIC", "VALUE", "BASELINE", "CHANGE", "RUN"
        };
        uint64_t now = now_usec(CLOCK_REALTIME);
        size_t n;
        int r;

        if (regression_filter_from_args(opts, &filter) < 0)
                return BENCHCTL_EXIT_FAILURE;
        r = bus_connect(opts, &bus);
        if (r != 0)
                return r;
        r = bus_call_manager_filter_json(bus, "list regressions", "ListRegressions", filter, &rows);
        if (r != 0)
                return r;

        if (opts->json) {
                print_json(rows);
                return BENCHCTL_EXIT_OK;
        }

        n = json_object_array_length(rows);
        if (n == 0) {
                if (opts->legend)
                        printf("No regressions found.\n");
                return BENCHCTL_EXIT_OK;
        }
        if (table_new(headers, ELEMENTSOF(headers), &t) < 0)
                return BENCHCTL_EXIT_FAILURE;
        for (size_t c = 4; c < ELEMENTSOF(headers); c++)
                table_set_align(t, c, TABLE_ALIGN_RIGHT);
        table_set_shrinkable(t, 1, 8);   /* device */
        table_set_shrinkable(t, 2, 5);   /* workload */

        for (size_t i = 0; i < n; i++) {
                json_object *g = json_object_array_get_idx(rows, i);
                const char *metric = rec_str(g, "metric");
                const char *name = rec_str(g, "device_name"), *identity = rec_str(g, "device_identity");
                double value = rec_double_or(g, "value", NAN), median = rec_double_or(g, "baseline_median", NAN);
                uint64_t qd = rec_u64_or(g, "queue_depth", 1), jobs = rec_u64_or(g, "jobs", 1);
                char a[FORMAT_BUF_MAX], b[FORMAT_BUF_MAX];

                table_add_cell(t, format_timestamp_short(a, sizeof a, rec_u64_or(g, "started_usec", 0), now));
                if (name && identity)
                        table_add_cellf(t, "%s (%s)", name, identity);
                else
                        table_add_cell(t, name ?: identity ?: "-");
                if (qd > 1 || jobs > 1)
                        table_add_cellf(t, "%s %s Q%" PRIu64 "×%" PRIu64, strna(rec_str(g, "workload")),
                                        format_bytes(a, sizeof a, rec_u64_or(g, "block_size", 0)), qd, jobs);
                else
                        table_add_cellf(t, "%s %s", strna(rec_str(g, "workload")),
                                        format_bytes(a, sizeof a, rec_u64_or(g, "block_size", 0)));
                table_add_cell(t, metric_name(metric));
                table_add_cell(t, format_figure(a, sizeof a, metric, value));
                table_add_cell(t, format_figure(b, sizeof b, metric, median));
                table_add_cell(t, format_diff_pct(a, sizeof a, median, value));
                table_add_cellf(t, "%" PRIu64, rec_u64_or(g, "run_id", 0));
        }
        table_print(t, opts->legend);
        if (opts->legend)
                printf("\n%zu regression%s listed (baseline: the median of the comparable runs before; "
                       "benchctl show RUN for a run).\n", n, n == 1 ? "" : "s");
        return BENCHCTL_EXIT_OK;
}
