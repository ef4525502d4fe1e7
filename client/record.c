/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Field access and derived metrics for benchd's records (record.h). The daemon sends raw counters
 * (bytes, ios, nanoseconds, microseconds); rates are computed here from counters and durations, and
 * only when those are missing from a precomputed column, so that the numbers in a table and in
 * --json always agree with the database.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record.h"
#include "shared/util.h"

static json_object *field(json_object *o, const char *key) {
        json_object *v = NULL;

        if (!o || !json_object_is_type(o, json_type_object))
                return NULL;
        if (!json_object_object_get_ex(o, key, &v))
                return NULL;
        return v;
}

const char *rec_str(json_object *o, const char *key) {
        json_object *v = field(o, key);

        if (!v || !json_object_is_type(v, json_type_string))
                return NULL;
        return json_object_get_string(v);
}

bool rec_u64(json_object *o, const char *key, uint64_t *ret) {
        json_object *v = field(o, key);

        if (!v)
                return false;
        switch (json_object_get_type(v)) {
        case json_type_int:
                if (json_object_get_int64(v) < 0)
                        return false; /* negative: e.g. device_id -1 */
                *ret = json_object_get_uint64(v);
                return true;
        case json_type_double: {
                double d = json_object_get_double(v);
                if (!isfinite(d) || d < 0)
                        return false;
                *ret = (uint64_t) d;
                return true;
        }
        case json_type_string: {
                const char *s = json_object_get_string(v);
                char *end;
                errno = 0;
                unsigned long long n = strtoull(s, &end, 10);
                if (errno != 0 || end == s || *end != '\0' || s[0] == '-')
                        return false;
                *ret = n;
                return true;
        }
        default:
                return false;
        }
}

bool rec_double(json_object *o, const char *key, double *ret) {
        json_object *v = field(o, key);

        if (!v)
                return false;
        switch (json_object_get_type(v)) {
        case json_type_int:
        case json_type_double:
                *ret = json_object_get_double(v);
                return isfinite(*ret);
        case json_type_string: {
                const char *s = json_object_get_string(v);
                char *end;
                errno = 0;
                double d = strtod(s, &end);
                if (errno != 0 || end == s || *end != '\0')
                        return false;
                *ret = d;
                return true;
        }
        default:
                return false;
        }
}

bool rec_bool(json_object *o, const char *key, bool *ret) {
        json_object *v = field(o, key);

        if (!v)
                return false;
        if (json_object_is_type(v, json_type_boolean) || json_object_is_type(v, json_type_int)) {
                *ret = json_object_get_boolean(v);
                return true;
        }
        return false;
}

uint64_t rec_u64_or(json_object *o, const char *key, uint64_t fallback) {
        uint64_t v;
        return rec_u64(o, key, &v) ? v : fallback;
}

double rec_double_or(json_object *o, const char *key, double fallback) {
        double v;
        return rec_double(o, key, &v) ? v : fallback;
}

char *rec_to_text(json_object *o, const char *key) {
        json_object *v = field(o, key);

        if (!v)
                return strdup("");
        switch (json_object_get_type(v)) {
        case json_type_null:
                return strdup("");
        case json_type_string:
                return strdup(json_object_get_string(v));
        case json_type_array: {
                char *s = NULL;
                size_t len = 0;
                FILE *f = open_memstream(&s, &len);
                if (!f)
                        return NULL;
                for (size_t i = 0; i < json_object_array_length(v); i++) {
                        json_object *item = json_object_array_get_idx(v, i);
                        fprintf(f, "%s%s", i > 0 ? ", " : "",
                                json_object_is_type(item, json_type_string) ? json_object_get_string(item)
                                                                             : json_object_to_json_string(item));
                }
                if (fclose(f) != 0) {
                        free(s);
                        return NULL;
                }
                return s;
        }
        default:
                return strdup(json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN));
        }
}

/* Seconds of a run's measured phase. */
static double run_seconds(json_object *run) {
        uint64_t us;

        if (rec_u64(run, "duration_usec", &us) && us > 0)
                return (double) us / 1e6;
        return NAN;
}

/* The bytes both ways over secs; NAN when the record counts no bytes or secs is unknown. */
static double measured_bytes_per_sec(json_object *rec, double secs) {
        uint64_t rd = 0, wr = 0;
        bool have_r = rec_u64(rec, "bytes_read", &rd), have_w = rec_u64(rec, "bytes_written", &wr);

        if ((have_r || have_w) && isfinite(secs))
                return (double) (rd + wr) / secs;
        return NAN;
}

/* The I/Os both ways over secs, else the record's own iops; NAN when neither is known. */
static double ios_per_sec(json_object *rec, double secs) {
        uint64_t rd = 0, wr = 0, ops = 0;
        bool have_r = rec_u64(rec, "ios_read", &rd), have_w = rec_u64(rec, "ios_written", &wr);
        double v;

        if ((have_r || have_w) && isfinite(secs)) {
                /* Metadata workloads count operations, not I/Os. */
                if (rd + wr == 0 && rec_u64(rec, "ops", &ops) && ops > 0)
                        return (double) ops / secs;
                return (double) (rd + wr) / secs;
        }
        if (rec_double(rec, "iops", &v))
                return v;
        return NAN;
}

double run_bytes_per_sec(json_object *run) {
        double v = measured_bytes_per_sec(run, run_seconds(run));

        if (isfinite(v))
                return v;
        if (rec_double(run, "mib_per_s", &v))
                return v * 1024.0 * 1024.0;
        if (rec_double(run, "mb_per_s", &v))
                return v * 1e6;
        return NAN;
}

double run_iops(json_object *run) {
        return ios_per_sec(run, run_seconds(run));
}

double run_latency_ns(json_object *run, const char *name) {
        char key[64];
        double v;

        snprintf(key, sizeof key, "lat_%s_ns", name);
        if (rec_double(run, key, &v))
                return v;
        snprintf(key, sizeof key, "lat_%s_us", name);
        if (rec_double(run, key, &v))
                return v * 1e3;
        return NAN;
}

uint64_t run_id(json_object *run) {
        uint64_t id;

        if (rec_u64(run, "id", &id) || rec_u64(run, "run_id", &id))
                return id;
        return 0;
}

uint64_t run_started_usec(json_object *run) {
        return rec_u64_or(run, "started_usec", 0);
}

const char *run_device(json_object *run) {
        const char *s = rec_str(run, "device_name");

        if (!s || !*s)
                s = rec_str(run, "device");
        return s && *s ? s : NULL;
}

bool run_cache_served(json_object *run) {
        const char *s = rec_str(run, "served_from");

        return s && (streq(s, "page-cache") || streq(s, "backing-file"));
}

static double sample_seconds(json_object *sample, uint64_t prev_t_ms) {
        uint64_t us, t_ms;

        if (rec_u64(sample, "interval_us", &us) && us > 0)
                return (double) us / 1e6;
        if (rec_u64(sample, "t_ms", &t_ms) && t_ms > prev_t_ms)
                return (double) (t_ms - prev_t_ms) / 1e3;
        return NAN;
}

double sample_bytes_per_sec(json_object *sample, uint64_t prev_t_ms) {
        double v = measured_bytes_per_sec(sample, sample_seconds(sample, prev_t_ms));

        if (isfinite(v))
                return v;
        if (rec_double(sample, "mb_per_s", &v))
                return v * 1e6;
        return NAN;
}

double sample_iops(json_object *sample, uint64_t prev_t_ms) {
        return ios_per_sec(sample, sample_seconds(sample, prev_t_ms));
}

double sample_latency_ns(json_object *sample, const char *name) {
        return run_latency_ns(sample, name);
}
