/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The fleet's figures of a step (fleet-sum.h). Pure: no bus, no clock; every time is on benchctl's
 * clock, microseconds.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fleet-sum.h"
#include "record.h"
#include "shared/fleet-interval.h"
#include "shared/histogram.h"
#include "shared/json-util.h"
#include "shared/util.h"

#define MIB (1024.0 * 1024.0)

typedef struct Host {
        const FleetMember *m;
        FleetSpan *spans;
        int64_t done;           /* the run's end */
        const char *reason;     /* why not in the sum */
        FleetHostSpans f;       /* its spans, whether it is in the sum, what it had in the interval */
} Host;

static int64_t rec_i64(json_object *o, const char *key) {
        json_object *v;

        if (!o || !json_object_object_get_ex(o, key, &v) || !v)
                return 0;
        if (json_object_is_type(v, json_type_double))
                return (int64_t) json_object_get_double(v);
        return json_object_get_int64(v);
}

static int host_spans(Host *h) {
        json_object *samples;
        size_t n;

        h->f.base = rec_i64(h->m->run, "started_usec") - rec_i64(h->m->run, "fleet_clock_offset_us");
        h->done = h->f.base + rec_i64(h->m->run, "duration_usec");
        if (!json_object_object_get_ex(h->m->run, "samples", &samples) || !json_object_is_type(samples, json_type_array))
                return 0;
        n = json_object_array_length(samples);
        h->spans = calloc(n ?: 1, sizeof(FleetSpan));
        if (!h->spans)
                return -ENOMEM;
        h->f.spans = h->spans;
        for (size_t i = 0; i < n; i++) {
                json_object *x = json_object_array_get_idx(samples, i);
                FleetSpan *s = &h->spans[h->f.n_spans];

                s->end = h->f.base + rec_i64(x, "t_ms") * 1000;
                s->begin = s->end - rec_i64(x, "interval_us");
                if (s->begin >= s->end)
                        continue;
                s->bytes = rec_u64_or(x, "bytes_read", 0) + rec_u64_or(x, "bytes_written", 0);
                s->ios = rec_u64_or(x, "ios_read", 0) + rec_u64_or(x, "ios_written", 0);
                h->f.n_spans++;
        }
        return 0;
}

/* Adds the run's histogram ([[upper_ns, count], ...]) to *sum; false when it has none. */
static bool histogram_add_run(Histogram *sum, json_object *run) {
        json_object *hist;
        bool any = false;

        if (!json_object_object_get_ex(run, "histogram", &hist) || !json_object_is_type(hist, json_type_array))
                return false;
        for (size_t i = 0; i < json_object_array_length(hist); i++) {
                json_object *b = json_object_array_get_idx(hist, i);
                int64_t upper, count;
                unsigned idx;

                if (!json_object_is_type(b, json_type_array) || json_object_array_length(b) < 2)
                        continue;
                upper = json_object_get_int64(json_object_array_get_idx(b, 0));
                count = json_object_get_int64(json_object_array_get_idx(b, 1));
                if (upper <= 0 || count <= 0)
                        continue;
                idx = histogram_bucket_index((uint64_t) upper);
                sum->buckets[idx] += (uint64_t) count;
                if (sum->count == 0 || histogram_bucket_lower(idx) < sum->min)
                        sum->min = histogram_bucket_lower(idx);
                sum->max = MAX(sum->max, histogram_bucket_upper(idx));
                sum->count += (uint64_t) count;
                any = true;
        }
        return any;
}

static void add_left_out(json_object *arr, const Host *h) {
        json_object *x = json_object_new_object();
        uint64_t bytes = 0, usec = 0;

        if (!x)
                return;
        json_object_object_add(x, "host", json_object_new_string(h->m->host));
        json_object_object_add(x, "reason", json_object_new_string(h->reason));
        if (h->m->run && rec_str(h->m->run, "status"))
                json_object_object_add(x, "status", json_object_new_string(rec_str(h->m->run, "status")));
        for (size_t k = 0; k < h->f.n_spans; k++) {
                bytes += h->spans[k].bytes;
                usec += (uint64_t) (h->spans[k].end - h->spans[k].begin);
        }
        json_object_object_add(x, "samples", json_object_new_uint64(h->f.n_spans));
        json_object_object_add(x, "bytes", json_object_new_uint64(bytes));
        json_object_object_add(x, "measured_usec", json_object_new_uint64(usec));
        if (usec > 0)
                json_object_object_add(x, "mib_per_s", json_object_new_double((double) bytes * 1e6 / (double) usec / MIB));
        json_object_array_add(arr, x);
}

static Host *hosts_new(const FleetMember *m, size_t n) {
        Host *hosts = calloc(n ?: 1, sizeof(Host));

        if (!hosts)
                return NULL;
        for (size_t i = 0; i < n; i++) {
                const char *status;

                hosts[i].m = &m[i];
                if (!m[i].run) {
                        hosts[i].reason = m[i].missing ?: "no run";
                        continue;
                }
                if (host_spans(&hosts[i]) < 0) {
                        for (size_t j = 0; j <= i; j++)
                                free(hosts[j].spans);
                        free(hosts);
                        return NULL;
                }
                status = rec_str(m[i].run, "status");
                if (!streq_ptr(status, "succeeded"))
                        hosts[i].reason = "its run did not succeed";
                else if (hosts[i].f.n_spans == 0)
                        hosts[i].reason = "its run has no samples";
                else
                        hosts[i].f.in = true;
        }
        return hosts;
}

static void hosts_free(Host *hosts, size_t n) {
        for (size_t i = 0; hosts && i < n; i++)
                free(hosts[i].spans);
        free(hosts);
}

/* Decides the hosts in the sum and the common interval; names why the others are left out. */
static bool settle(Host *hosts, size_t n, int64_t *cs, int64_t *ce) {
        _cleanup_free_ FleetHostSpans *f = calloc(n ?: 1, sizeof(FleetHostSpans));
        bool common;

        if (!f)
                return false;
        for (size_t i = 0; i < n; i++)
                f[i] = hosts[i].f;
        common = fleet_common_interval(f, n, cs, ce);
        for (size_t i = 0; i < n; i++) {
                if (f[i].not_measuring)
                        hosts[i].reason = "it was not measuring while the others were";
                hosts[i].f = f[i];
        }
        return common;
}

json_object *fleet_sum_step(const FleetMember *m, size_t n) {
        _cleanup_json_ json_object *o = json_object_new_object();
        json_object *per, *left;
        Host *hosts;
        _cleanup_free_ Histogram *hist = calloc(1, sizeof(Histogram));
        int64_t cs = 0, ce = 0, first_done = INT64_MAX, last_done = INT64_MIN;
        const char *first_host = NULL, *last_host = NULL;
        double sum_bps = 0, sum_iops = 0, min_mib = INFINITY, max_mib = -INFINITY, sum_mib = 0;
        size_t members = 0, with_mib = 0;
        bool common, has_hist = false;

        if (!o || !hist)
                return NULL;
        hosts = hosts_new(m, n);
        if (!hosts)
                return NULL;
        histogram_init(hist);
        common = settle(hosts, n, &cs, &ce);

        per = json_object_new_array();
        left = json_object_new_array();
        for (size_t i = 0; i < n; i++) {
                Host *h = &hosts[i];
                double mib;

                if (!h->f.in) {
                        add_left_out(left, h);
                        continue;
                }
                members++;
                if (h->done < first_done) {
                        first_done = h->done;
                        first_host = h->m->host;
                }
                if (h->done > last_done) {
                        last_done = h->done;
                        last_host = h->m->host;
                }
                if (rec_double(h->m->run, "mib_per_s", &mib)) {
                        sum_mib += mib;
                        with_mib++;
                        min_mib = MIN(min_mib, mib);
                        max_mib = MAX(max_mib, mib);
                }
                if (histogram_add_run(hist, h->m->run))
                        has_hist = true;
                if (common) {
                        json_object *x = json_object_new_object();
                        double bps = (double) h->f.bytes * 1e6 / (double) h->f.usec;
                        double iops = (double) h->f.ios * 1e6 / (double) h->f.usec;

                        json_object_object_add(x, "host", json_object_new_string(h->m->host));
                        json_object_object_add(x, "bytes", json_object_new_uint64(h->f.bytes));
                        json_object_object_add(x, "ios", json_object_new_uint64(h->f.ios));
                        json_object_object_add(x, "usec", json_object_new_uint64(h->f.usec));
                        json_object_object_add(x, "mib_per_s", json_object_new_double(bps / MIB));
                        json_object_object_add(x, "iops", json_object_new_double(iops));
                        json_object_array_add(per, x);
                        sum_bps += bps;
                        sum_iops += iops;
                }
        }
        json_object_object_add(o, "hosts", json_object_new_uint64(members));
        json_object_object_add(o, "common_usec", json_object_new_int64(common ? ce - cs : 0));
        if (common) {
                json_object_object_add(o, "common_begin_usec", json_object_new_int64(cs));
                json_object_object_add(o, "bytes_per_s", json_object_new_double(sum_bps));
                json_object_object_add(o, "mib_per_s", json_object_new_double(sum_bps / MIB));
                json_object_object_add(o, "iops", json_object_new_double(sum_iops));
        }
        json_object_object_add(o, "per_host", per);
        json_object_object_add(o, "left_out", left);
        if (has_hist) {
                json_object_object_add(o, "lat_ios", json_object_new_uint64(hist->count));
                json_object_object_add(o, "lat_p50_ns", json_object_new_uint64(histogram_percentile(hist, 50)));
                json_object_object_add(o, "lat_p90_ns", json_object_new_uint64(histogram_percentile(hist, 90)));
                json_object_object_add(o, "lat_p99_ns", json_object_new_uint64(histogram_percentile(hist, 99)));
                json_object_object_add(o, "lat_p999_ns", json_object_new_uint64(histogram_percentile(hist, 99.9)));
        }
        if (first_host) {
                json_object_object_add(o, "first_done", json_object_new_string(first_host));
                json_object_object_add(o, "last_done", json_object_new_string(last_host));
                json_object_object_add(o, "done_apart_usec", json_object_new_int64(last_done - first_done));
        }
        if (with_mib >= 2 && sum_mib > 0)
                json_object_object_add(o, "spread_pct",
                                       json_object_new_double((max_mib - min_mib) / (sum_mib / (double) with_mib) * 100));
        hosts_free(hosts, n);
        return TAKE_PTR(o);
}

static int cmp_i64(const void *a, const void *b) {
        int64_t x = *(const int64_t *) a, y = *(const int64_t *) b;
        return x < y ? -1 : x > y;
}

json_object *fleet_sum_timeline(const FleetMember *m, size_t n, json_object *step) {
        _cleanup_json_ json_object *out = json_object_new_array();
        _cleanup_free_ int64_t *ivs = NULL;
        _cleanup_free_ double *bins = NULL;
        int64_t cs, len, width;
        size_t n_ivs = 0, n_bins, in = 0;
        Host *hosts;

        if (!out)
                return NULL;
        len = rec_i64(step, "common_usec");
        if (len <= 0 || !json_object_object_get_ex(step, "common_begin_usec", NULL))
                return TAKE_PTR(out);
        cs = rec_i64(step, "common_begin_usec");
        hosts = hosts_new(m, n);
        if (!hosts)
                return NULL;
        /* The hosts of the sum are those per_host names. */
        for (size_t i = 0; i < n; i++) {
                json_object *per;
                bool named = false;

                if (json_object_object_get_ex(step, "per_host", &per))
                        for (size_t k = 0; k < json_object_array_length(per); k++)
                                if (streq_ptr(rec_str(json_object_array_get_idx(per, k), "host"), m[i].host))
                                        named = true;
                hosts[i].f.in = hosts[i].f.in && named;
                if (hosts[i].f.in) {
                        in++;
                        n_ivs += hosts[i].f.n_spans;
                }
        }
        ivs = calloc(n_ivs ?: 1, sizeof(int64_t));
        if (!ivs || in == 0) {
                hosts_free(hosts, n);
                return ivs ? TAKE_PTR(out) : NULL;
        }
        n_ivs = 0;
        for (size_t i = 0; i < n; i++)
                for (size_t k = 0; hosts[i].f.in && k < hosts[i].f.n_spans; k++)
                        ivs[n_ivs++] = hosts[i].spans[k].end - hosts[i].spans[k].begin;
        qsort(ivs, n_ivs, sizeof(int64_t), cmp_i64);
        width = MIN(ivs[n_ivs / 2], len);
        n_bins = (size_t) (len / width);
        bins = calloc(n_bins * n, sizeof(double));
        if (!bins) {
                hosts_free(hosts, n);
                return NULL;
        }
        for (size_t i = 0; i < n; i++)
                for (size_t k = 0; hosts[i].f.in && k < hosts[i].f.n_spans; k++) {
                        const FleetSpan *s = &hosts[i].spans[k];

                        for (size_t b = 0; b < n_bins; b++) {
                                int64_t bb = cs + (int64_t) b * width, be = bb + width;
                                int64_t ob = MAX(bb, s->begin), oe = MIN(be, s->end);

                                if (oe > ob)
                                        bins[b * n + i] += (double) s->bytes * (double) (oe - ob) /
                                                           (double) (s->end - s->begin);
                        }
                }
        for (size_t b = 0; b < n_bins; b++) {
                json_object *x = json_object_new_object(), *hs = json_object_new_object();
                double sum = 0;

                for (size_t i = 0; i < n; i++) {
                        double mib;

                        if (!hosts[i].f.in)
                                continue;
                        mib = bins[b * n + i] * 1e6 / (double) width / MIB;
                        json_object_object_add(hs, m[i].host, json_object_new_double(mib));
                        sum += mib;
                }
                json_object_object_add(x, "t_s", json_object_new_double((double) b * (double) width / 1e6));
                json_object_object_add(x, "mib_per_s", json_object_new_double(sum));
                json_object_object_add(x, "hosts", hs);
                json_object_array_add(out, x);
        }
        hosts_free(hosts, n);
        return TAKE_PTR(out);
}
