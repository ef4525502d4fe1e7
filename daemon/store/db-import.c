/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * ImportRuns' store side: the runs of a "benchd-export" document (benchctl export --format=benchd,
 * docs/fleet.md "Many machines") written into this host's history. The document comes from another
 * host, so from anyone, and each run is judged whole before anything of the document is written:
 *
 *   1. every column and every field of its samples, histogram, phases and positions read from
 *      json-c's parse by its JSON type and size (integers 0..INT64_MAX, finite numbers, strings
 *      without NUL of at most DB_IMPORT_TEXT_MAX bytes), into the structures a worker's frames
 *      decode into; the columns are every one of the runs table but the importer's own ids and
 *      origin host (db-import-columns.c: the schema's list, which GetRun exports whole), and the
 *      ones the daemon writes for a layout (md, LVM, partitions) are held to its rules;
 *   2. the spec its row records (workload, block_size, size, runtime_ms, ...: the registry's keys
 *      with a runs column) set and finalized by the spec registry, as SubmitJob's would be;
 *   3. its figures held to the rules its worker's frames were held to when it was measured
 *      (proto_run_plausible(), shared/proto-history.h, which replays it through
 *      shared/proto-plausible.c).
 *
 * A refusal names the run (its place in the document and its uuid), the column or field, and what
 * it should be. The whole document goes in one transaction: a refused run, or a database that
 * refuses a write, leaves none of it (db_runs_import()). A run whose uuid is here already is
 * skipped, which makes a second import of the same document add nothing. What is written is what
 * was judged: the values bound are the decoded ones, and the samples, histogram, phases and
 * positions go through the same inserts as a measured run's. A CHECK of the table the rules here
 * do not know of still refuses the run, named by its column (import_check_failure()).
 *
 * The document around the runs (format, version, host, the runs array) is parsed in
 * db-import-document.c (db_import_document_parse()), so that the daemon's ImportRuns and the fuzz
 * target (tests/fuzz/fuzz-import.c) read it alike.
 */
#include <errno.h>
#include <inttypes.h>
#include <json-c/json.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/db-import-internal.h"
#include "store/db-internal.h"
#include "store/db.h"
#include "shared/histogram.h"
#include "shared/job-state.h"
#include "shared/json-util.h"
#include "shared/proto-history.h"
#include "shared/spec.h"
#include "shared/served.h"
#include "shared/util.h"

#define IMPORT_JSON_MAX (1024u * 1024u)

#define N_COLUMNS_MAX IMPORT_COLUMNS_MAX

/* One run, read and judged. */
typedef struct ImportRun {
        const ImportColumns *cols;
        ImportValue v[N_COLUMNS_MAX];
        const char *device_identity;
        size_t device_identity_len;
        JobSpec spec;
        ProtoRun run;
        ProtoSample *samples;
        ProtoHistogramEntry *histogram;
        ProtoPhaseResult *phases;
        ProtoPositionResult *positions;
} ImportRun;

static void import_run_clear(ImportRun *r) {
        spec_clear(&r->spec);
        free(r->samples);
        free(r->histogram);
        free(r->phases);
        free(r->positions);
}

static const ImportValue *column(const ImportRun *r, const char *name) {
        const ImportValue *v = import_value(r->cols, r->v, name);

        if (!v)
                abort(); /* a name of ours that runs does not have: import_columns_make() checked them */
        return v;
}

/* ---- values ---- */

static const char *json_type_text(json_object *o) {
        switch (json_object_get_type(o)) {
        case json_type_boolean:
                return "a JSON boolean";
        case json_type_double:
                return "a JSON number with a fraction or an exponent";
        case json_type_int:
                return "a JSON integer";
        case json_type_object:
                return "a JSON object";
        case json_type_array:
                return "a JSON array";
        case json_type_string:
                return "a JSON string";
        default:
                return "JSON null";
        }
}

#define INT_RANGE "0 to 9223372036854775807"

/* An integer of 0..INT64_MAX; what names it in messages ("\"t_ms\" of sample 3 of 12"). */
static int read_int(json_object *o, const char *what, int64_t *ret, char **reterr) {
        int64_t v;

        if (!json_object_is_type(o, json_type_int)) {
                if (json_object_is_type(o, json_type_double))
                        return reterr_set(reterr, -EINVAL, "%s is %s: it should be an integer from " INT_RANGE, what,
                                          json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
                return reterr_set(reterr, -EINVAL, "%s is %s: it should be an integer from " INT_RANGE, what,
                                  json_type_text(o));
        }
        v = json_object_get_int64(o);
        /* json-c keeps what does not fit int64 as uint64 (and UINT64_MAX for anything larger). */
        if (v == INT64_MAX && json_object_get_uint64(o) > (uint64_t) INT64_MAX)
                return reterr_set(reterr, -EINVAL, "%s is larger than 9223372036854775807, the largest number the "
                                  "database stores: it should be an integer from " INT_RANGE, what);
        if (v < 0)
                return reterr_set(reterr, -EINVAL, "%s is %" PRIi64 ": it should be an integer from " INT_RANGE,
                                  what, v);
        *ret = v;
        return 0;
}

static int read_real(json_object *o, const char *what, double *ret, char **reterr) {
        double d;

        if (!json_object_is_type(o, json_type_double) && !json_object_is_type(o, json_type_int))
                return reterr_set(reterr, -EINVAL, "%s is %s: it should be a number", what, json_type_text(o));
        d = json_object_get_double(o);
        if (!isfinite(d))
                return reterr_set(reterr, -EINVAL, "%s is %s: it should be a finite number", what,
                                  isnan(d) ? "NaN" : d > 0 ? "Infinity" : "-Infinity");
        *ret = d;
        return 0;
}

static int read_text(json_object *o, const char *what, size_t max, const char **ret, size_t *ret_len,
                     char **reterr) {
        const char *s;
        size_t n;

        if (!json_object_is_type(o, json_type_string))
                return reterr_set(reterr, -EINVAL, "%s is %s: it should be a string", what, json_type_text(o));
        s = json_object_get_string(o);
        n = (size_t) json_object_get_string_len(o);
        if (n > max)
                return reterr_set(reterr, -EINVAL, "%s is a string of %zu bytes: it should have at most %zu", what,
                                  n, max);
        if (memchr(s, 0, n))
                return reterr_set(reterr, -EINVAL, "%s holds a NUL character: it should be text without one", what);
        *ret = s;
        *ret_len = n;
        return 0;
}

static int read_column(json_object *run, const ImportColumn *c, ImportValue *ret, char **reterr) {
        _cleanup_free_ char *what = NULL;
        ImportValue v = { .present = true };
        json_object *o = NULL;
        int r;

        if (!json_object_object_get_ex(run, c->name, &o) || !o) {
                if (c->required)
                        return reterr_set(reterr, -EINVAL, "\"%s\" is missing: every run has one", c->name);
                *ret = (ImportValue) {};
                return 0;
        }
        if (asprintf(&what, "\"%s\"", c->name) < 0)
                return -ENOMEM;
        switch (c->kind) {
        case IMPORT_INT:
                r = read_int(o, what, &v.i, reterr);
                break;
        case IMPORT_REAL:
                r = read_real(o, what, &v.d, reterr);
                break;
        case IMPORT_OFFSET:
                if (!json_object_is_type(o, json_type_int) ||
                    (v.i = json_object_get_int64(o)) < -IMPORT_OFFSET_MAX || v.i > IMPORT_OFFSET_MAX)
                        r = reterr_set(reterr, -EINVAL, "%s is %s: it should be an integer from -%" PRIi64 " to %" PRIi64
                                       " (microseconds, a day either way)", what,
                                       json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN),
                                       IMPORT_OFFSET_MAX, IMPORT_OFFSET_MAX);
                else
                        r = 0;
                break;
        case IMPORT_TEXT:
                r = read_text(o, what, DB_IMPORT_TEXT_MAX, &v.s, &v.len, reterr);
                break;
        default:
                if (json_object_is_type(o, json_type_object) || json_object_is_type(o, json_type_array)) {
                        v.s = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
                                                                JSON_C_TO_STRING_NOSLASHESCAPE);
                        if (!v.s)
                                return -ENOMEM;
                        v.len = strlen(v.s);
                        r = v.len > IMPORT_JSON_MAX ?
                                reterr_set(reterr, -EINVAL, "%s has %zu bytes of JSON: it should have at most %u",
                                           what, v.len, IMPORT_JSON_MAX) : 0;
                } else if (json_object_is_type(o, json_type_string))
                        r = read_text(o, what, IMPORT_JSON_MAX, &v.s, &v.len, reterr);
                else
                        r = reterr_set(reterr, -EINVAL, "%s is %s: it should be JSON (a string of it, an object "
                                       "or an array)", what, json_type_text(o));
                break;
        }
        if (r < 0)
                return r;
        *ret = v;
        return 0;
}

/* ---- the lists: samples, histogram, phases, positions ---- */

/* Field i of an element: an object of named fields, or (GetHistogram's (tt)) an array. NULL when
 * absent or null. */
static json_object *element_field(json_object *el, size_t i, const char *name) {
        json_object *o = NULL;

        if (json_object_is_type(el, json_type_array))
                return i < json_object_array_length(el) ? json_object_array_get_idx(el, i) : NULL;
        if (!json_object_object_get_ex(el, name, &o))
                return NULL;
        return o;
}

/* The run's list key as an array of at most max elements, each an object or an array; 0 elements
 * when it is absent. */
static int read_list(json_object *run, const char *key, size_t max, json_object **ret, size_t *ret_n,
                     char **reterr) {
        json_object *l = NULL;
        size_t n;

        if (!json_object_object_get_ex(run, key, &l) || !l) {
                *ret = NULL;
                *ret_n = 0;
                return 0;
        }
        if (!json_object_is_type(l, json_type_array))
                return reterr_set(reterr, -EINVAL, "\"%s\" is %s: it should be an array", key, json_type_text(l));
        n = json_object_array_length(l);
        if (n > max)
                return reterr_set(reterr, n > DB_IMPORT_SAMPLES_MAX ? -E2BIG : -EINVAL,
                                  "\"%s\" has %zu elements: a run has at most %zu", key, n, max);
        for (size_t i = 0; i < n; i++) {
                json_object *el = json_object_array_get_idx(l, i);

                if (!json_object_is_type(el, json_type_object) && !json_object_is_type(el, json_type_array))
                        return reterr_set(reterr, -EINVAL, "element %zu of \"%s\" is %s: each should be an object",
                                          i + 1, key, json_type_text(el));
        }
        *ret = l;
        *ret_n = n;
        return 0;
}

/* Field i of element el (the n-th of total in list) as an integer; def when absent (required: an
 * error). */
static int field_int(json_object *el, const char *list, size_t n, size_t total, const char *const *fields,
                     size_t i, bool required, uint64_t def, uint64_t *ret, char **reterr) {
        _cleanup_free_ char *what = NULL;
        json_object *o = element_field(el, i, fields[i]);
        int64_t v;
        int r;

        if (asprintf(&what, "\"%s\" of %s %zu of %zu", fields[i], list, n, total) < 0)
                return -ENOMEM;
        if (!o) {
                if (required)
                        return reterr_set(reterr, -EINVAL, "%s is missing: it should be an integer from " INT_RANGE,
                                          what);
                *ret = def;
                return 0;
        }
        r = read_int(o, what, &v, reterr);
        if (r < 0)
                return r;
        *ret = (uint64_t) v;
        return 0;
}

/* A percentage or queue length: -1 (unknown) when absent. */
static int field_real(json_object *el, const char *list, size_t n, size_t total, const char *const *fields,
                      size_t i, double *ret, char **reterr) {
        _cleanup_free_ char *what = NULL;
        json_object *o = element_field(el, i, fields[i]);

        if (!o) {
                *ret = -1;
                return 0;
        }
        if (asprintf(&what, "\"%s\" of %s %zu of %zu", fields[i], list, n, total) < 0)
                return -ENOMEM;
        return read_real(o, what, ret, reterr);
}

static const char *const sample_fields[] = {
        "t_ms", "interval_us", "bytes_read", "bytes_written", "ios_read", "ios_written", "ops",
        "lat_mean_ns", "lat_p50_ns", "lat_p99_ns", "lat_max_ns",
        "iowait_pct", "cpu_user_pct", "cpu_sys_pct", "dev_util_pct", "dev_queue",
};

static int read_samples(json_object *run, ImportRun *ir, char **reterr) {
        json_object *l;
        size_t n;
        int r;

        r = read_list(run, "samples", DB_IMPORT_SAMPLES_MAX, &l, &n, reterr);
        if (r < 0 || n == 0)
                return r;
        ir->samples = calloc(n, sizeof(ProtoSample));
        if (!ir->samples)
                return -ENOMEM;
        for (size_t k = 0; k < n; k++) {
                json_object *el = json_object_array_get_idx(l, k);
                ProtoSample *s = &ir->samples[k];
                uint64_t *u[] = { &s->t_ms, &s->interval_us, &s->bytes_read, &s->bytes_written, &s->ios_read,
                                  &s->ios_written, &s->ops, &s->lat_mean_ns, &s->lat_p50_ns, &s->lat_p99_ns,
                                  &s->lat_max_ns };
                double *d[] = { &s->iowait_pct, &s->cpu_user_pct, &s->cpu_sys_pct, &s->dev_util_pct,
                                &s->dev_queue };

                for (size_t i = 0; i < ELEMENTSOF(u); i++) {
                        /* t_ms, the bytes and the ios are always there (GetSamples fills the bytes in). */
                        r = field_int(el, "sample", k + 1, n, sample_fields, i, i == 0 || (i >= 2 && i <= 5), 0, u[i],
                                      reterr);
                        if (r < 0)
                                return r;
                }
                /* GetSamples has interval_us always; without it, the time since the sample before. */
                if (!element_field(el, 1, sample_fields[1]) && s->t_ms >= (k > 0 ? s[-1].t_ms : 0))
                        s->interval_us = (s->t_ms - (k > 0 ? s[-1].t_ms : 0)) * USEC_PER_MSEC;
                for (size_t i = 0; i < ELEMENTSOF(d); i++) {
                        r = field_real(el, "sample", k + 1, n, sample_fields, ELEMENTSOF(u) + i, d[i], reterr);
                        if (r < 0)
                                return r;
                }
        }
        ir->run.samples = ir->samples;
        ir->run.n_samples = n;
        return 0;
}

static const char *const histogram_fields[] = { "upper_ns", "count" };

static int read_histogram(json_object *run, ImportRun *ir, char **reterr) {
        json_object *l;
        size_t n;
        int r;

        r = read_list(run, "histogram", HISTOGRAM_BUCKETS, &l, &n, reterr);
        if (r < 0 || n == 0)
                return r;
        ir->histogram = calloc(n, sizeof(ProtoHistogramEntry));
        if (!ir->histogram)
                return -ENOMEM;
        for (size_t k = 0; k < n; k++) {
                json_object *el = json_object_array_get_idx(l, k);
                uint64_t upper, count;
                unsigned i;

                r = field_int(el, "histogram bucket", k + 1, n, histogram_fields, 0, true, 0, &upper, reterr);
                if (r >= 0)
                        r = field_int(el, "histogram bucket", k + 1, n, histogram_fields, 1, true, 0, &count, reterr);
                if (r < 0)
                        return r;
                /* The bucket ending at upper, which must be one of the bounds. */
                i = histogram_bucket_index(upper);
                if (histogram_bucket_upper(i) != upper)
                        return reterr_set(reterr, -EINVAL, "histogram bucket %zu of %zu ends at %" PRIu64 " ns: it "
                                          "should end at one of benchd's bucket bounds (shared/histogram.h), e.g. "
                                          "%" PRIu64 " or %" PRIu64, k + 1, n, upper,
                                          i > 0 ? histogram_bucket_upper(i - 1) : histogram_bucket_upper(i),
                                          histogram_bucket_upper(i));
                ir->histogram[k] = (ProtoHistogramEntry) { .index = i, .count = count };
        }
        ir->run.histogram = ir->histogram;
        ir->run.n_histogram = n;
        return 0;
}

static const char *const phase_fields[] = {
        "phase", "ops", "duration_usec", "lat_min_ns", "lat_mean_ns", "lat_p50_ns", "lat_p99_ns", "lat_max_ns",
};

static int read_phases(json_object *run, ImportRun *ir, char **reterr) {
        json_object *l;
        size_t n;
        int r;

        r = read_list(run, "phases", PROTO_PHASE_RESULTS_MAX, &l, &n, reterr);
        if (r < 0 || n == 0)
                return r;
        ir->phases = calloc(n, sizeof(ProtoPhaseResult));
        if (!ir->phases)
                return -ENOMEM;
        for (size_t k = 0; k < n; k++) {
                json_object *el = json_object_array_get_idx(l, k), *name = element_field(el, 0, "phase");
                ProtoPhaseResult *p = &ir->phases[k];
                uint64_t *u[] = { &p->ops, &p->duration_usec, &p->lat_min_ns, &p->lat_mean_ns, &p->lat_p50_ns,
                                  &p->lat_p99_ns, &p->lat_max_ns };

                if (!name || !json_object_is_type(name, json_type_string) ||
                    !proto_phase_name_valid(json_object_get_string(name)) ||
                    (size_t) json_object_get_string_len(name) != strlen(json_object_get_string(name)))
                        return reterr_set(reterr, -EINVAL, "\"phase\" of phase %zu of %zu is not a phase name: it "
                                          "should be 1 to %u characters of a-z and '-' (e.g. create-seq)", k + 1, n,
                                          PROTO_PHASE_NAME_MAX);
                strcpy(p->name, json_object_get_string(name));
                for (size_t i = 0; i < ELEMENTSOF(u); i++) {
                        r = field_int(el, "phase", k + 1, n, phase_fields, i + 1, false, 0, u[i], reterr);
                        if (r < 0)
                                return r;
                }
        }
        ir->run.phases = ir->phases;
        ir->run.n_phases = n;
        return 0;
}

static const char *const position_fields[] = {
        "seq", "offset_bytes", "bytes", "duration_usec", "lat_mean_ns", "lat_max_ns",
};

static int read_positions(json_object *run, ImportRun *ir, char **reterr) {
        json_object *l;
        size_t n;
        int r;

        r = read_list(run, "positions", SPEC_POSITIONS_MAX, &l, &n, reterr);
        if (r < 0 || n == 0)
                return r;
        ir->positions = calloc(n, sizeof(ProtoPositionResult));
        if (!ir->positions)
                return -ENOMEM;
        for (size_t k = 0; k < n; k++) {
                json_object *el = json_object_array_get_idx(l, k);
                ProtoPositionResult *p = &ir->positions[k];
                uint64_t *u[] = { &p->offset_bytes, &p->bytes, &p->duration_usec, &p->lat_mean_ns, &p->lat_max_ns };
                uint64_t seq;

                r = field_int(el, "position", k + 1, n, position_fields, 0, true, 0, &seq, reterr);
                if (r < 0)
                        return r;
                if (seq >= SPEC_POSITIONS_MAX)
                        return reterr_set(reterr, -EINVAL, "\"seq\" of position %zu of %zu is %" PRIu64 ": it should "
                                          "be 0 to %u", k + 1, n, seq, SPEC_POSITIONS_MAX - 1);
                p->index = (uint32_t) seq;
                for (size_t i = 0; i < ELEMENTSOF(u); i++) {
                        r = field_int(el, "position", k + 1, n, position_fields, i + 1, false, 0, u[i], reterr);
                        if (r < 0)
                                return r;
                }
        }
        ir->run.positions = ir->positions;
        ir->run.n_positions = n;
        return 0;
}

/* ---- the run ---- */

/* The spec its row records, through the registry: each key with a runs column, then
 * spec_finalize(), as a SubmitJob spec would be. */
static int read_spec(ImportRun *ir, char **reterr) {
        int r;

        spec_init(&ir->spec);
        for (SpecKey k = 0; k < _SPEC_KEY_MAX; k++) {
                const SpecKeyInfo *ki = &spec_key_table[k];
                const ImportValue *v;
                SpecValue sv;

                if (!ki->runs_column || ki->kind == SPEC_KIND_STRV)
                        continue; /* tags: a JSON column of their own */
                v = column(ir, ki->runs_column);
                if (!v->present)
                        continue;
                switch (ki->kind) {
                case SPEC_KIND_STRING:
                        sv = (SpecValue) { .type = SPEC_VALUE_STRING, .s = v->s };
                        break;
                case SPEC_KIND_BOOL:
                        if (v->i > 1)
                                return reterr_set(reterr, -EINVAL, "\"%s\" is %" PRIi64 ": it should be 0 or 1",
                                                  ki->runs_column, v->i);
                        sv = (SpecValue) { .type = SPEC_VALUE_BOOL, .b = v->i == 1 };
                        break;
                default:
                        sv = (SpecValue) { .type = SPEC_VALUE_UINT, .u = (uint64_t) v->i };
                        break;
                }
                r = spec_set(&ir->spec, ki->name, &sv, reterr);
                if (r < 0)
                        return r;
        }
        return spec_finalize(&ir->spec, reterr);
}

/* The summary columns, as the worker's RESULT: all of them or none (a run without a result). */
static int read_result(ImportRun *ir, char **reterr) {
        static const char *const counts[] = {
                "duration_usec", "bytes_read", "bytes_written", "ios_read", "ios_written", "ops", "lat_min_ns",
                "lat_mean_ns", "lat_stddev_ns", "lat_p50_ns", "lat_p90_ns", "lat_p95_ns", "lat_p99_ns",
                "lat_p999_ns", "lat_p9999_ns", "lat_max_ns",
        };
        static const char *const shares[] = { "iowait_pct", "cpu_user_pct", "cpu_sys_pct", "dev_util_pct" };
        ProtoResult *res = &ir->run.result;
        uint64_t *u[] = { &res->duration_usec, &res->bytes_read, &res->bytes_written, &res->ios_read,
                          &res->ios_written, &res->ops, &res->lat_min_ns, &res->lat_mean_ns, &res->lat_stddev_ns,
                          &res->lat_p50_ns, &res->lat_p90_ns, &res->lat_p95_ns, &res->lat_p99_ns,
                          &res->lat_p999_ns, &res->lat_p9999_ns, &res->lat_max_ns };
        double *d[] = { &res->iowait_pct, &res->cpu_user_pct, &res->cpu_sys_pct, &res->dev_util_pct };
        const char *status = column(ir, "status")->s;
        size_t have = 0;

        for (size_t i = 0; i < ELEMENTSOF(counts); i++)
                have += column(ir, counts[i])->present;
        if (have > 0 && have < ELEMENTSOF(counts)) {
                const char *given = NULL, *missing = NULL;

                for (size_t i = 0; i < ELEMENTSOF(counts); i++)
                        if (column(ir, counts[i])->present)
                                given = given ?: counts[i];
                        else
                                missing = missing ?: counts[i];
                return reterr_set(reterr, -EINVAL, "\"%s\" is missing, but \"%s\" is given: a run's result has all "
                                  "of duration_usec, the bytes, I/Os, ops and latencies, or none of them", missing,
                                  given);
        }
        if (have == 0 && streq(status, "succeeded"))
                return reterr_set(reterr, -EINVAL, "\"duration_usec\" is missing: a succeeded run has its result "
                                  "(duration_usec, the bytes, I/Os, ops and latencies)");
        ir->run.has_result = have > 0;
        for (size_t i = 0; i < ELEMENTSOF(counts); i++)
                *u[i] = (uint64_t) column(ir, counts[i])->i;
        for (size_t i = 0; i < ELEMENTSOF(shares); i++) {
                const ImportValue *v = column(ir, shares[i]);
                *d[i] = v->present ? v->d : -1;
        }
        res->started_usec = ir->run.started_usec;

        /* What RESULT carries after the device (schema 17): the worker's CPU time, the devices'
         * counters in pairs, and the verdict on them, which the worker's rules judge as they do a
         * RESULT's (proto-plausible.c: exactly what served_from() makes of the counters). */
        res->process_user_usec = (uint64_t) column(ir, "process_user_usec")->i;
        res->process_sys_usec = (uint64_t) column(ir, "process_sys_usec")->i;
        if (column(ir, "device_bytes_read")->present != column(ir, "device_bytes_written")->present ||
            column(ir, "backing_bytes_read")->present != column(ir, "backing_bytes_written")->present)
                return reterr_set(reterr, -EINVAL, "a device's byte counts come in pairs: \"device_bytes_read\" with "
                                  "\"device_bytes_written\", \"backing_bytes_read\" with \"backing_bytes_written\"");
        if (column(ir, "device_bytes_read")->present) {
                res->counters |= PROTO_COUNTERS_DEVICE;
                res->device_bytes_read = (uint64_t) column(ir, "device_bytes_read")->i;
                res->device_bytes_written = (uint64_t) column(ir, "device_bytes_written")->i;
        }
        if (column(ir, "backing_bytes_read")->present) {
                if (!(res->counters & PROTO_COUNTERS_DEVICE))
                        return reterr_set(reterr, -EINVAL, "\"backing_bytes_read\" is given without "
                                          "\"device_bytes_read\": a loop device's backing disk is counted with it");
                res->counters |= PROTO_COUNTERS_BACKING;
                res->backing_bytes_read = (uint64_t) column(ir, "backing_bytes_read")->i;
                res->backing_bytes_written = (uint64_t) column(ir, "backing_bytes_written")->i;
        }
        if (column(ir, "served_from")->present) {
                res->served = served_from_from_string(column(ir, "served_from")->s);
                if (res->served == SERVED_UNKNOWN)
                        return reterr_set(reterr, -EINVAL, "\"served_from\" is '%s': it should be device, page-cache "
                                          "or backing-file", CALLER_TEXT(column(ir, "served_from")->s));
        }
        return 0;
}

static int read_run(json_object *run, ImportRun *ir, char **reterr) {
        const ImportValue *status, *steady, *steady_usec;
        json_object *o = NULL;
        int r;

        for (size_t i = 0; i < ir->cols->n; i++) {
                r = read_column(run, &ir->cols->c[i], &ir->v[i], reterr);
                if (r < 0)
                        return r;
        }
        if (!db_uuid_valid(column(ir, "uuid")->s))
                return reterr_set(reterr, -EINVAL, "\"uuid\" is not of the form xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx "
                                  "(lower-case hex)");
        status = column(ir, "status");
        if (streq(status->s, "running"))
                return reterr_set(reterr, -EINVAL, "\"status\" is running: export the run once it has ended");
        if (!job_state_is_final(job_state_from_string(status->s)))
                return reterr_set(reterr, -EINVAL, "\"status\" is '%s': it should be succeeded, failed, cancelled "
                                  "or interrupted", CALLER_TEXT(status->s));
        if (json_object_object_get_ex(run, "device_identity", &o) && o) {
                r = read_text(o, "\"device_identity\"", DB_IMPORT_TEXT_MAX, &ir->device_identity,
                              &ir->device_identity_len, reterr);
                if (r < 0)
                        return r;
        }

        r = import_layout_check(ir->cols, ir->v, reterr);
        if (r < 0)
                return r;

        r = read_spec(ir, reterr);
        if (r < 0)
                return r;

        ir->run.started_usec = (uint64_t) column(ir, "started_usec")->i;
        steady = column(ir, "steady_state");
        steady_usec = column(ir, "steady_state_usec");
        if (steady->present && steady->i > 1)
                return reterr_set(reterr, -EINVAL, "\"steady_state\" is %" PRIi64 ": it should be 0 (not reached), "
                                  "1 (reached) or absent (not asked for)", steady->i);
        if (steady_usec->present && !(steady->present && steady->i == 1))
                return reterr_set(reterr, -EINVAL, "\"steady_state_usec\" is given, but \"steady_state\" is not 1: "
                                  "only a run that reached its steady state says when");
        ir->run.steady_state_asked = steady->present;
        ir->run.steady_state = steady_usec->present;
        ir->run.steady_state_usec = (uint64_t) steady_usec->i;
        r = read_result(ir, reterr);
        if (r < 0)
                return r;

        r = read_samples(run, ir, reterr);
        if (r >= 0)
                r = read_histogram(run, ir, reterr);
        if (r >= 0)
                r = read_phases(run, ir, reterr);
        if (r >= 0)
                r = read_positions(run, ir, reterr);
        return r;
}

/* ---- writing ---- */

/* The INSERT of a run's row: the import columns bound as ?3..., the device by identity (?1), the
 * origin host (?2). */
static int prepare_insert(Db *db, const ImportColumns *cols, sqlite3_stmt **ret) {
        char sql[8192], *p = sql;
        size_t left = sizeof sql;
        int n;

#define APPEND(...)                                                                 \
        do {                                                                        \
                n = snprintf(p, left, __VA_ARGS__);                                 \
                if (n < 0 || (size_t) n >= left)                                    \
                        return db_fail_msg(db, -ENOBUFS, "import statement too long"); \
                p += n;                                                             \
                left -= (size_t) n;                                                 \
        } while (0)

        APPEND("INSERT INTO runs (job_id, device_id, origin_host");
        for (size_t i = 0; i < cols->n; i++)
                APPEND(", \"%s\"", cols->c[i].name);
        /* The device of the same identity, if this host has it (a disk moved here, or one host
         * importing its own runs back). */
        APPEND(") VALUES (NULL, (SELECT id FROM devices WHERE identity = ?1), ?2");
        for (size_t i = 0; i < cols->n; i++)
                APPEND(", ?%zu", i + 3);
        APPEND(")");
#undef APPEND
        return db_prepare(db, sql, ret);
}

static int bind_value(sqlite3_stmt *st, int idx, const ImportColumn *c, const ImportValue *v) {
        if (!v->present)
                return sqlite3_bind_null(st, idx);
        switch (c->kind) {
        case IMPORT_INT:
        case IMPORT_OFFSET:
                return sqlite3_bind_int64(st, idx, v->i);
        case IMPORT_REAL:
                /* -1: unknown, stored as NULL as the daemon stores its own. */
                return v->d < 0 ? sqlite3_bind_null(st, idx) : sqlite3_bind_double(st, idx, v->d);
        default:
                return sqlite3_bind_text(st, idx, v->s, (int) v->len, SQLITE_STATIC);
        }
}

static int insert_run(Db *db, sqlite3_stmt *st, const ImportRun *ir, const char *origin_host, uint64_t *ret_id) {
        int rc;

        sqlite3_reset(st);
        sqlite3_clear_bindings(st);
        rc = ir->device_identity ?
                sqlite3_bind_text(st, 1, ir->device_identity, (int) ir->device_identity_len, SQLITE_STATIC) :
                sqlite3_bind_null(st, 1);
        if (rc == SQLITE_OK)
                rc = sqlite3_bind_text(st, 2, origin_host, -1, SQLITE_STATIC);
        for (size_t i = 0; i < ir->cols->n && rc == SQLITE_OK; i++)
                rc = bind_value(st, (int) i + 3, &ir->cols->c[i], &ir->v[i]);
        if (rc != SQLITE_OK)
                return db_fail(db, rc);
        rc = db_step_done(db, st);
        if (rc < 0)
                return rc;
        *ret_id = (uint64_t) sqlite3_last_insert_rowid(db->sqlite);
        return 0;
}

static int insert_lists(Db *db, const ImportRun *ir, uint64_t id) {
        int r;

        r = db_samples_insert(db, id, ir->run.samples, ir->run.n_samples);
        if (r >= 0 && ir->run.n_histogram > 0)
                r = db_histogram_insert(db, id, ir->run.histogram, ir->run.n_histogram);
        for (size_t i = 0; r >= 0 && i < ir->run.n_phases; i++)
                r = db_run_phase_insert(db, id, &ir->run.phases[i]);
        for (size_t i = 0; r >= 0 && i < ir->run.n_positions; i++)
                r = db_run_position_insert(db, id, &ir->run.positions[i]);
        return r;
}

/* 1 when a run of this uuid is stored already, 0 when not. */
static int uuid_known(Db *db, sqlite3_stmt *st, const char *uuid) {
        sqlite3_reset(st);
        if (sqlite3_bind_text(st, 1, uuid, -1, SQLITE_STATIC) != SQLITE_OK)
                return db_fail_msg(db, -ENOMEM, "cannot bind the uuid");
        return db_step_row(db, st);
}

/* The refusal of run i of n, by its place and uuid, into the Db's message. */
static int refuse(Db *db, int r, size_t i, size_t n, const char *uuid, const char *why) {
        return db_fail_msg(db, r, "run %zu of %zu in the import document%s%s%s: %s; nothing of the document was "
                           "imported", i + 1, n, uuid ? " (uuid " : "", uuid ? CALLER_TEXT(uuid) : "",
                           uuid ? ")" : "", why);
}

int db_runs_import(Db *db, json_object *runs, const char *origin_host, uint64_t now_usec,
                   uint64_t *ret_imported, uint64_t *ret_skipped) {
        _cleanup_finalize_ sqlite3_stmt *ins = NULL, *known = NULL;
        uint64_t imported = 0, skipped = 0;
        ImportColumns cols;
        size_t n;
        int r;

        if (!origin_host || strlen(origin_host) == 0 || strlen(origin_host) > 255)
                return db_fail_msg(db, -EINVAL, "import needs a host name of 1..255 characters");
        if (!json_object_is_type(runs, json_type_array))
                return db_fail_msg(db, -EINVAL, "the import document has no \"runs\" array");
        n = json_object_array_length(runs);
        if (n > DB_IMPORT_RUNS_MAX)
                return db_fail_msg(db, -EINVAL, "the import document has %zu runs, more than the %u one import "
                                   "takes: export fewer at a time", n, DB_IMPORT_RUNS_MAX);

        r = import_columns_make(db, &cols);
        if (r >= 0)
                r = prepare_insert(db, &cols, &ins);
        if (r >= 0)
                r = db_prepare(db, "SELECT 1 FROM runs WHERE uuid = ?", &known);
        if (r < 0)
                return r;
        r = db_begin(db);
        if (r < 0)
                return r;

        for (size_t i = 0; i < n; i++) {
                _cleanup_free_ char *err = NULL;
                json_object *run = json_object_array_get_idx(runs, i);
                ImportRun ir = { .cols = &cols };
                uint64_t id = 0;

                if (!json_object_is_type(run, json_type_object)) {
                        r = refuse(db, -EINVAL, i, n, NULL, "it is not a JSON object");
                        goto fail;
                }
                r = read_run(run, &ir, &err);
                if (r >= 0)
                        r = proto_run_plausible(&ir.spec, &ir.run, now_usec, &err);
                if (r < 0) {
                        const ImportValue *uuid = column(&ir, "uuid");

                        if (r == -ERANGE) /* implausible: refused like any other bad value */
                                r = -EINVAL;
                        if (r != -ENOMEM)
                                r = refuse(db, r, i, n, uuid->present ? uuid->s : NULL,
                                           err ?: "it is not a run benchd can have measured");
                        import_run_clear(&ir);
                        goto fail;
                }

                r = uuid_known(db, known, column(&ir, "uuid")->s);
                if (r > 0)
                        skipped++;
                else if (r == 0) {
                        r = insert_run(db, ins, &ir, origin_host, &id);
                        if (r >= 0)
                                r = insert_lists(db, &ir, id);
                        if (r >= 0)
                                imported++;
                }
                if (r < 0) {
                        char why[sizeof(db->error)];

                        /* A CHECK of runs this file does not know of: named as the others are. */
                        if (import_check_failure(&cols, ir.v, db_last_error(db), why, sizeof why))
                                r = -EINVAL;
                        else
                                snprintf(why, sizeof why, "%s", db_last_error(db));
                        r = refuse(db, r, i, n, column(&ir, "uuid")->s, why);
                        import_run_clear(&ir);
                        goto fail;
                }
                import_run_clear(&ir);
        }

        r = db_commit(db);
        if (r < 0)
                goto fail;
        if (ret_imported)
                *ret_imported = imported;
        if (ret_skipped)
                *ret_skipped = skipped;
        return 0;

fail:
        db_rollback(db);
        return r;
}
