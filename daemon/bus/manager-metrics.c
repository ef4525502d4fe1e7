/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * benchd's results in Prometheus, through node_exporter's textfile collector: after each run's end
 * is stored, and at start-up, MetricsTextfileDir=/benchd.prom is replaced by the figures of the
 * newest run of every series (store/db-metrics.c), so the file is whole after a restart and no
 * collector of our own is needed. Each family is gathered in a memory stream of its own while the
 * series are walked once (the format wants a family's samples together), then the streams are
 * joined and the file replaced atomically (shared/prom-text.h).
 *
 * The rewrite is deferred to the next loop iteration (manager_write_metrics()), so that what ends
 * together is written once.
 *
 * Labels are bounded: a series is a device identity (the devices table), workload, block size,
 * queue depth, jobs, filesystem and layout, and at most DB_METRICS_SERIES_MAX of them, the newest,
 * are written. The job's label, free text, is not a label here. Runs like the regression check
 * run on the event loop: one grouped index scan and a file of at most a few hundred kilobytes.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bus/manager-metrics.h"
#include "bus/manager.h"
#include "bus/manager-internal.h"
#include "shared/log.h"
#include "shared/prom-text.h"

enum {
        FAMILY_THROUGHPUT,
        FAMILY_IOPS,
        FAMILY_LATENCY,
        FAMILY_IOWAIT,
        FAMILY_UTIL,
        FAMILY_TIMESTAMP,
        FAMILY_REGRESSION,
        FAMILY_RUNS,
        FAMILY_FLEET_THROUGHPUT,
        FAMILY_FLEET_IOPS,
        FAMILY_FLEET_HOSTS,
        _FAMILY_MAX,
};

static const struct {
        const char *name, *type, *help;
} families[_FAMILY_MAX] = {
        [FAMILY_THROUGHPUT] = { "benchd_run_throughput_bytes_per_second", "gauge",
                                "Bytes read and written per second by the newest succeeded run of the series." },
        [FAMILY_IOPS] = { "benchd_run_iops", "gauge",
                          "I/O operations per second (reads and writes) of the newest succeeded run of the series." },
        /* A summary, as the format spells quantiles (a gauge may not carry the label), of one run:
         * its _count and _sum are the run's I/Os and their latencies added up, so they start
         * again at each new run (rate() over them means nothing; the quantiles are the figures). */
        [FAMILY_LATENCY] = { "benchd_run_latency_seconds", "summary",
                             "Per-I/O latency quantiles of the newest succeeded run of the series." },
        [FAMILY_IOWAIT] = { "benchd_run_iowait_ratio", "gauge",
                            "Share of CPU time in iowait (0..1) during the newest succeeded run of the series." },
        [FAMILY_UTIL] = { "benchd_run_device_utilization_ratio", "gauge",
                          "Share of time the device was busy (0..1) during the newest succeeded run of the series." },
        [FAMILY_TIMESTAMP] = { "benchd_run_timestamp_seconds", "gauge",
                               "When the newest succeeded run of the series started (Unix time)." },
        [FAMILY_REGRESSION] = { "benchd_run_regression", "gauge",
                                "1 when the newest succeeded run of the series was flagged as a regression of "
                                "the metric (benchctl regressions), else 0." },
        [FAMILY_RUNS] = { "benchd_runs_total", "counter",
                          "Runs in the database by final status." },
        /* A fleet run gathered here (docs/fleet.md "Gathering a fleet run"): its hosts' runs are
         * imported, so the per-run families above leave them out; these are the fleet's sums. */
        [FAMILY_FLEET_THROUGHPUT] = { "benchd_fleet_throughput_bytes_per_second", "gauge",
                                      "Bytes read and written per second by all hosts of the newest fleet run of "
                                      "the series, summed over the interval when every host was measuring." },
        [FAMILY_FLEET_IOPS] = { "benchd_fleet_iops", "gauge",
                                "I/O operations per second of all hosts of the newest fleet run of the series, "
                                "summed over the interval when every host was measuring." },
        [FAMILY_FLEET_HOSTS] = { "benchd_fleet_hosts", "gauge",
                                 "Hosts in the sum of the newest fleet run of the series (0: no interval when "
                                 "every host was measuring)." },
};

typedef struct MetricsText {
        FILE *f[_FAMILY_MAX];
        char *buf[_FAMILY_MAX];
        size_t len[_FAMILY_MAX];
} MetricsText;

static void metrics_text_clear(MetricsText *t) {
        for (size_t i = 0; i < _FAMILY_MAX; i++) {
                if (t->f[i])
                        fclose(t->f[i]);
                free(t->buf[i]);
        }
}

/* The series' labels, then extra (NULL-terminated pairs) appended. */
#define SERIES_LABELS_MAX 12
static void series_labels(const DbMetricSeries *s, char nums[3][24], const char *extra_name,
                          const char *extra_value, PromLabel ret[static SERIES_LABELS_MAX]) {
        size_t n = 0;

        snprintf(nums[0], 24, "%" PRIu64, s->block_size);
        snprintf(nums[1], 24, "%" PRIu64, s->queue_depth);
        snprintf(nums[2], 24, "%" PRIu64, s->jobs);
        ret[n++] = (PromLabel) { "device_identity", s->device_identity };
        ret[n++] = (PromLabel) { "device", s->device_name };
        ret[n++] = (PromLabel) { "workload", s->workload };
        ret[n++] = (PromLabel) { "block_size", nums[0] };
        ret[n++] = (PromLabel) { "queue_depth", nums[1] };
        ret[n++] = (PromLabel) { "jobs", nums[2] };
        ret[n++] = (PromLabel) { "fs_type", s->fs_type };
        ret[n++] = (PromLabel) { "layout", s->layout };
        ret[n++] = (PromLabel) { "profile", s->profile };
        if (extra_name)
                ret[n++] = (PromLabel) { extra_name, extra_value };
        ret[n] = (PromLabel) {};
}

/* name_suffix: NULL, or a summary's "_sum" and "_count". */
static int write_series_sample_full(MetricsText *t, int family, const char *name_suffix, const DbMetricSeries *s,
                                    const char *extra_name, const char *extra_value, double value) {
        _cleanup_free_ char *name = NULL;
        PromLabel labels[SERIES_LABELS_MAX];
        char nums[3][24];

        if (isnan(value))
                return 0;       /* the run has no such figure: no sample */
        if (asprintf(&name, "%s%s", families[family].name, name_suffix ?: "") < 0)
                return -ENOMEM;
        series_labels(s, nums, extra_name, extra_value, labels);
        return prom_write_sample(t->f[family], name, labels, value);
}

static int write_series_sample(MetricsText *t, int family, const DbMetricSeries *s, const char *extra_name,
                               const char *extra_value, double value) {
        return write_series_sample_full(t, family, NULL, s, extra_name, extra_value, value);
}

static int on_series(const DbMetricSeries *s, void *userdata) {
        MetricsText *t = userdata;
        RegressMetric main_metric = regress_main_metric(s->workload);
        int r = 0;

        r = write_series_sample(t, FAMILY_THROUGHPUT, s, NULL, NULL, s->bytes_per_second);
        if (r >= 0)
                r = write_series_sample(t, FAMILY_IOPS, s, NULL, NULL, s->iops);
        if (r >= 0)
                r = write_series_sample(t, FAMILY_LATENCY, s, "quantile", "0.5", s->lat_p50_seconds);
        if (r >= 0)
                r = write_series_sample(t, FAMILY_LATENCY, s, "quantile", "0.99", s->lat_p99_seconds);
        if (r >= 0)
                r = write_series_sample(t, FAMILY_LATENCY, s, "quantile", "0.999", s->lat_p999_seconds);
        if (r >= 0 && !isnan(s->lat_p50_seconds))
                r = write_series_sample_full(t, FAMILY_LATENCY, "_sum", s, NULL, NULL, s->lat_sum_seconds);
        if (r >= 0 && !isnan(s->lat_p50_seconds))
                r = write_series_sample_full(t, FAMILY_LATENCY, "_count", s, NULL, NULL, s->lat_count);
        if (r >= 0)
                r = write_series_sample(t, FAMILY_IOWAIT, s, NULL, NULL, s->iowait_ratio);
        if (r >= 0)
                r = write_series_sample(t, FAMILY_UTIL, s, NULL, NULL, s->device_util_ratio);
        if (r >= 0)
                r = write_series_sample(t, FAMILY_TIMESTAMP, s, NULL, NULL, (double) s->started_usec / 1e6);
        /* The figures the regression check judges: the workload's throughput figure and the p99. */
        if (r >= 0 && main_metric >= 0)
                r = write_series_sample(t, FAMILY_REGRESSION, s, "metric", regress_metric_to_string(main_metric),
                                        s->regressed[main_metric] ? 1 : 0);
        if (r >= 0)
                r = write_series_sample(t, FAMILY_REGRESSION, s, "metric",
                                        regress_metric_to_string(REGRESS_METRIC_LAT_P99_NS),
                                        s->regressed[REGRESS_METRIC_LAT_P99_NS] ? 1 : 0);
        return r;
}

/* A fleet series' labels: the shape of its job, and the fleet run it is now. */
static int on_fleet_series(const DbFleetSeries *s, void *userdata) {
        MetricsText *t = userdata;
        char nums[3][24];
        int r;

        snprintf(nums[0], 24, "%" PRIu64, s->block_size);
        snprintf(nums[1], 24, "%" PRIu64, s->queue_depth);
        snprintf(nums[2], 24, "%" PRIu64, s->jobs);
        const PromLabel labels[] = {
                { "workload", s->workload },
                { "block_size", nums[0] },
                { "queue_depth", nums[1] },
                { "jobs", nums[2] },
                { "fs_type", s->fs_type },
                {},
        };

        r = prom_write_sample(t->f[FAMILY_FLEET_HOSTS], families[FAMILY_FLEET_HOSTS].name, labels, (double) s->hosts);
        if (r < 0 || s->hosts == 0)
                return r;
        r = prom_write_sample(t->f[FAMILY_FLEET_THROUGHPUT], families[FAMILY_FLEET_THROUGHPUT].name, labels,
                              s->bytes_per_second);
        if (r >= 0)
                r = prom_write_sample(t->f[FAMILY_FLEET_IOPS], families[FAMILY_FLEET_IOPS].name, labels, s->iops);
        return r;
}

static int metrics_render(Db *db, char **ret, size_t *ret_len) {
        static const char *const statuses[4] = { "succeeded", "failed", "cancelled", "interrupted" };
        _cleanup_(metrics_text_clear) MetricsText t = {};
        _cleanup_free_ char *out = NULL;
        uint64_t counts[4];
        size_t len = 0;
        FILE *all;
        int r;

        for (size_t i = 0; i < _FAMILY_MAX; i++) {
                t.f[i] = open_memstream(&t.buf[i], &t.len[i]);
                if (!t.f[i])
                        return -ENOMEM;
                r = prom_write_family(t.f[i], families[i].name, families[i].type, families[i].help);
                if (r < 0)
                        return r;
        }
        r = db_metrics_latest(db, DB_METRICS_SERIES_MAX, on_series, &t);
        if (r < 0)
                return r;
        r = db_metrics_fleet(db, on_fleet_series, &t);
        if (r < 0)
                return r;
        r = db_metrics_run_counts(db, counts);
        if (r < 0)
                return r;
        for (size_t i = 0; i < 4; i++) {
                r = prom_write_sample(t.f[FAMILY_RUNS], families[FAMILY_RUNS].name,
                                      (const PromLabel[]) { { "status", statuses[i] }, {} }, (double) counts[i]);
                if (r < 0)
                        return r;
        }

        all = open_memstream(&out, &len);
        if (!all)
                return -ENOMEM;
        for (size_t i = 0; i < _FAMILY_MAX; i++) {
                if (fflush(t.f[i]) != 0) {
                        fclose(all);
                        return -ENOMEM;
                }
                fwrite(t.buf[i], 1, t.len[i], all);
        }
        if (fclose(all) != 0)
                return -ENOMEM;
        *ret = TAKE_PTR(out);
        *ret_len = len;
        return 0;
}

static void metrics_write_now(Manager *m) {
        _cleanup_free_ char *text = NULL;
        size_t len = 0;
        int r;

        r = metrics_render(manager_db(m), &text, &len);
        if (r < 0) {
                log_warning_errno(r, "cannot read the latest figures for %s/%s: %m (%s); the file keeps its previous "
                                  "content", manager_metrics_dir(m), MANAGER_METRICS_FILE, db_last_error(manager_db(m)));
                return;
        }
        r = prom_replace_file(manager_metrics_dir(m), MANAGER_METRICS_FILE, text, len);
        if (r < 0)
                log_warning_errno(r, "cannot write %s/%s: %m; set MetricsTextfileDir= in benchd.conf to a writable "
                                  "directory node_exporter reads (--collector.textfile.directory), or empty to turn "
                                  "the export off", manager_metrics_dir(m), MANAGER_METRICS_FILE);
}

static int on_metrics_write(sd_event_source *s, void *userdata) {
        metrics_write_now(userdata);
        return 0;
}

void manager_write_metrics(Manager *m) {
        int r;

        if (!manager_metrics_dir(m) || !manager_metrics_dir(m)[0])
                return;
        if (!manager_metrics_state(m)->metrics_source) {
                r = sd_event_add_defer(manager_event(m), &manager_metrics_state(m)->metrics_source, on_metrics_write, m);
                if (r < 0) {
                        metrics_write_now(m);
                        return;
                }
        }
        (void) sd_event_source_set_enabled(manager_metrics_state(m)->metrics_source, SD_EVENT_ONESHOT);
}

void manager_metrics_flush(Manager *m) {
        int enabled = SD_EVENT_OFF;

        if (!manager_metrics_state(m)->metrics_source)
                return;
        if (sd_event_source_get_enabled(manager_metrics_state(m)->metrics_source, &enabled) >= 0 && enabled != SD_EVENT_OFF)
                metrics_write_now(m);
        manager_metrics_state(m)->metrics_source = sd_event_source_disable_unref(manager_metrics_state(m)->metrics_source);
}
