/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The worker's records, described once (proto-record.h), and the encoder and decoder that follow
 * the descriptions. The tables below are the one place a record's fields, wire order, bounds and
 * columns are written down; the typed functions of proto.h (proto_encode_sample(), ...) are these
 * with the description filled in.
 */

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "proto-internal.h"
#include "proto-plausible.h"
#include "proto-record.h"
#include "util.h"

#define I64 ((uint64_t) INT64_MAX)

#define FIELD(T, m, k, ...) \
        { .name = #m, .kind = (k), .offset = offsetof(T, m), .size = sizeof(((T *) NULL)->m), __VA_ARGS__ }
#define U32(T, m, ...) FIELD(T, m, PROTO_FIELD_U32, __VA_ARGS__)
#define U64(T, m, ...) FIELD(T, m, PROTO_FIELD_U64, __VA_ARGS__)
#define F64(T, m, lo, hi, ...) FIELD(T, m, PROTO_FIELD_F64, .min_f = (lo), .max_f = (hi), __VA_ARGS__)
#define NAME(T, m, maxlen, check, ...) \
        FIELD(T, m, PROTO_FIELD_NAME, .max = (maxlen), .valid_name = (check), .store = PROTO_STORE_TEXT, __VA_ARGS__)
#define FIELDS(a) .fields = (a), .n_fields = ELEMENTSOF(a)

/* ---- SAMPLE: one measurement interval (proto.h) ---- */

static const ProtoField sample_fields[] = {
        U64(ProtoSample, t_ms),
        U64(ProtoSample, interval_us, .store = PROTO_STORE_INTERVAL),
        U64(ProtoSample, bytes_read, .store = PROTO_STORE_BYTES, .ios = "ios_read"),
        U64(ProtoSample, bytes_written, .store = PROTO_STORE_BYTES, .ios = "ios_written"),
        U64(ProtoSample, ios_read),
        U64(ProtoSample, ios_written),
        U64(ProtoSample, ops),
        U64(ProtoSample, lat_mean_ns),
        U64(ProtoSample, lat_p50_ns),
        U64(ProtoSample, lat_p99_ns),
        U64(ProtoSample, lat_max_ns),
        F64(ProtoSample, iowait_pct, 0, 100, .column = "iowait_bp", .store = PROTO_STORE_BASIS_POINTS),
        F64(ProtoSample, cpu_user_pct, 0, 100, .column = "cpu_user_bp", .store = PROTO_STORE_BASIS_POINTS),
        F64(ProtoSample, cpu_sys_pct, 0, 100, .column = "cpu_sys_bp", .store = PROTO_STORE_BASIS_POINTS),
        F64(ProtoSample, dev_util_pct, 0, 100, .unknown = true, .column = "dev_util_bp",
            .store = PROTO_STORE_BASIS_POINTS),
        F64(ProtoSample, dev_queue, 0, INFINITY, .unknown = true, .column = "dev_queue_milli",
            .store = PROTO_STORE_MILLI),
        F64(ProtoSample, progress, 0, 1, .store = PROTO_STORE_NONE),
};

static bool sample_valid(const void *p) {
        const ProtoSample *m = p;

        return m->lat_p50_ns <= m->lat_p99_ns && m->lat_p99_ns <= m->lat_max_ns;
}

static int sample_plausible(ProtoTally *t, const void *m, const ProtoLimits *l, const ProtoClock *c, char **err) {
        return proto_sample_plausible(t, m, l, c, err);
}

const ProtoRecordDesc proto_record_sample = {
        .type = PROTO_SAMPLE,
        .name = "SAMPLE",
        .size = sizeof(ProtoSample),
        FIELDS(sample_fields),
        .valid = sample_valid,
        .plausible = sample_plausible,
        .table = "sample_data",         /* schema/0008-compact-samples.sql */
        .order_field = "t_ms",
        .batch_max = 4096,              /* DB_QUEUE_SAMPLES_MAX */
        .noun = "samples",
};

/* ---- PHASE_RESULT: one of the metadata workload's phases ---- */

static const ProtoField phase_result_fields[] = {
        NAME(ProtoPhaseResult, name, PROTO_PHASE_NAME_MAX, proto_phase_name_valid, .column = "phase"),
        U64(ProtoPhaseResult, ops, .max = I64),
        U64(ProtoPhaseResult, duration_usec, .max = I64),
        U64(ProtoPhaseResult, lat_min_ns, .max = I64),
        U64(ProtoPhaseResult, lat_mean_ns, .max = I64),
        U64(ProtoPhaseResult, lat_p50_ns, .max = I64),
        U64(ProtoPhaseResult, lat_p99_ns, .max = I64),
        U64(ProtoPhaseResult, lat_max_ns, .max = I64),
};

/* With ops, the latencies in order; without, all 0. */
static bool phase_result_valid(const void *p) {
        const ProtoPhaseResult *m = p;

        if (m->ops == 0)
                return m->lat_min_ns == 0 && m->lat_mean_ns == 0 && m->lat_p50_ns == 0 &&
                       m->lat_p99_ns == 0 && m->lat_max_ns == 0;
        return m->lat_min_ns <= m->lat_p50_ns && m->lat_p50_ns <= m->lat_p99_ns &&
               m->lat_p99_ns <= m->lat_max_ns &&
               m->lat_min_ns <= m->lat_mean_ns && m->lat_mean_ns <= m->lat_max_ns;
}

static int phase_result_plausible(ProtoTally *t, const void *m, const ProtoLimits *l, const ProtoClock *c,
                                  char **err) {
        return proto_phase_result_plausible(t, m, l, c, err);
}

const ProtoRecordDesc proto_record_phase_result = {
        .type = PROTO_PHASE_RESULT,
        .name = "PHASE_RESULT",
        .size = sizeof(ProtoPhaseResult),
        FIELDS(phase_result_fields),
        .valid = phase_result_valid,
        .check_on_encode = true,
        .plausible = phase_result_plausible,
        .table = "run_phases",          /* schema/0002-run-phases.sql */
        .seq_column = "seq",
        .noun = "phase",
        .label_field = "name",
};

/* ---- POSITION_RESULT: one offset of the position workload ---- */

static const ProtoField position_result_fields[] = {
        U32(ProtoPositionResult, index, .column = "seq"),
        U64(ProtoPositionResult, offset_bytes, .max = I64),
        U64(ProtoPositionResult, bytes, .max = I64),
        U64(ProtoPositionResult, duration_usec, .max = I64),
        U64(ProtoPositionResult, lat_mean_ns, .max = I64),
        U64(ProtoPositionResult, lat_max_ns, .max = I64),
};

/* With bytes, mean <= max; without, both 0. */
static bool position_result_valid(const void *p) {
        const ProtoPositionResult *m = p;

        if (m->bytes == 0)
                return m->lat_mean_ns == 0 && m->lat_max_ns == 0;
        return m->lat_mean_ns <= m->lat_max_ns;
}

static int position_result_plausible(ProtoTally *t, const void *m, const ProtoLimits *l, const ProtoClock *c,
                                     char **err) {
        return proto_position_result_plausible(t, m, l, c, err);
}

const ProtoRecordDesc proto_record_position_result = {
        .type = PROTO_POSITION_RESULT,
        .name = "POSITION_RESULT",
        .size = sizeof(ProtoPositionResult),
        FIELDS(position_result_fields),
        .valid = position_result_valid,
        .check_on_encode = true,
        .plausible = position_result_plausible,
        .table = "run_positions",       /* schema/0005-run-positions.sql */
        .noun = "position",
        .label_field = "index",
};

/* ---- STEADY_STATE: the step is steady at t_ms ---- */

static const ProtoField steady_state_fields[] = {
        U64(ProtoSteadyState, t_ms, .max = I64 / 1000u, .column = "steady_state_usec",
            .store = PROTO_STORE_USEC_OF_MS),
};

static int steady_state_plausible(ProtoTally *t, const void *m, const ProtoLimits *l, const ProtoClock *c,
                                  char **err) {
        return proto_steady_state_plausible(t, m, l, c, err);
}

const ProtoRecordDesc proto_record_steady_state = {
        .type = PROTO_STEADY_STATE,
        .name = "STEADY_STATE",
        .size = sizeof(ProtoSteadyState),
        FIELDS(steady_state_fields),
        .check_on_encode = true,
        .plausible = steady_state_plausible,
        /* Only a run that asked for a steady state (steady_state not NULL) records one. */
        .run_update = "steady_state = 1|steady_state IS NOT NULL",
        .noun = "the steady state",
};

const ProtoRecordDesc *const proto_records[] = {
        &proto_record_sample,
        &proto_record_phase_result,
        &proto_record_position_result,
        &proto_record_steady_state,
        NULL,
};

/* ---- following a description ---- */

const ProtoRecordDesc *proto_record_desc(unsigned type) {
        for (size_t i = 0; proto_records[i]; i++)
                if (proto_records[i]->type == type)
                        return proto_records[i];
        return NULL;
}

const ProtoField *proto_record_field(const ProtoRecordDesc *d, const char *name) {
        if (!d || !name)
                return NULL;
        for (size_t i = 0; i < d->n_fields; i++)
                if (streq(d->fields[i].name, name))
                        return &d->fields[i];
        return NULL;
}

uint64_t proto_field_u64(const ProtoField *f, const void *m) {
        const uint8_t *p = (const uint8_t *) m + f->offset;
        uint32_t v32;
        uint64_t v64;

        switch (f->kind) {
        case PROTO_FIELD_U32:
                memcpy(&v32, p, sizeof(v32));
                return v32;
        case PROTO_FIELD_U64:
                memcpy(&v64, p, sizeof(v64));
                return v64;
        default:
                return 0;
        }
}

double proto_field_f64(const ProtoField *f, const void *m) {
        double d = 0;

        if (f->kind == PROTO_FIELD_F64)
                memcpy(&d, (const uint8_t *) m + f->offset, sizeof(d));
        return d;
}

static const char *field_name(const ProtoField *f, const void *m) {
        return (const char *) m + f->offset;
}

static bool field_valid(const ProtoField *f, const void *m) {
        double d;

        switch (f->kind) {
        case PROTO_FIELD_U32:
        case PROTO_FIELD_U64:
                return f->max == 0 || proto_field_u64(f, m) <= f->max;
        case PROTO_FIELD_F64:
                d = proto_field_f64(f, m);
                return isfinite(d) && ((f->unknown && d == -1.0) || (d >= f->min_f && d <= f->max_f));
        case PROTO_FIELD_NAME:
                return strnlen(field_name(f, m), f->size) <= f->max && (!f->valid_name || f->valid_name(field_name(f, m)));
        }
        return false;
}

bool proto_record_valid(const ProtoRecordDesc *d, const void *m) {
        for (size_t i = 0; i < d->n_fields; i++)
                if (!field_valid(&d->fields[i], m))
                        return false;
        return !d->valid || d->valid(m);
}

size_t proto_record_payload_size(const ProtoRecordDesc *d, const void *m) {
        size_t n = 0;

        for (size_t i = 0; i < d->n_fields; i++) {
                const ProtoField *f = &d->fields[i];

                switch (f->kind) {
                case PROTO_FIELD_U32:
                        n += 4;
                        break;
                case PROTO_FIELD_U64:
                case PROTO_FIELD_F64:
                        n += 8;
                        break;
                case PROTO_FIELD_NAME:
                        n += 4 + strnlen(field_name(f, m), f->size - 1);
                        break;
                }
        }
        return n;
}

int proto_record_encode(const ProtoRecordDesc *d, const void *m, uint8_t **ret, size_t *ret_len) {
        Packer k;
        int r;

        if (!d || !m)
                return -EINVAL;
        if (d->check_on_encode && !proto_record_valid(d, m))
                return -EINVAL;
        r = packer_begin(&k, d->type, proto_record_payload_size(d, m));
        if (r < 0)
                return r;
        for (size_t i = 0; i < d->n_fields; i++) {
                const ProtoField *f = &d->fields[i];

                switch (f->kind) {
                case PROTO_FIELD_U32:
                        pack_u32(&k, (uint32_t) proto_field_u64(f, m));
                        break;
                case PROTO_FIELD_U64:
                        pack_u64(&k, proto_field_u64(f, m));
                        break;
                case PROTO_FIELD_F64:
                        pack_double(&k, proto_field_f64(f, m));
                        break;
                case PROTO_FIELD_NAME:
                        pack_string(&k, field_name(f, m), strnlen(field_name(f, m), f->size - 1));
                        break;
                }
        }
        return packer_finish(&k, ret, ret_len);
}

int proto_record_decode_as(const ProtoRecordDesc *d, const ProtoFrame *f, void *m) {
        ProtoRecord aside = {};         /* filled here, so that *m is untouched by a frame refused */
        uint8_t *buf = (uint8_t *) &aside.sample;
        Cursor c;

        if (!d || cursor_begin(&c, f, d->type) < 0)
                return -EBADMSG;
        /* Every described record is a member of ProtoRecord's union (proto.h). */
        if (d->size > sizeof(ProtoRecord) - offsetof(ProtoRecord, sample))
                return -EINVAL;
        for (size_t i = 0; i < d->n_fields; i++) {
                const ProtoField *fl = &d->fields[i];
                uint8_t *p = buf + fl->offset;
                uint32_t v32;
                uint64_t v64;
                double v;
                char *s;

                switch (fl->kind) {
                case PROTO_FIELD_U32:
                        v32 = take_u32(&c);
                        memcpy(p, &v32, sizeof(v32));
                        break;
                case PROTO_FIELD_U64:
                        v64 = take_u64(&c);
                        memcpy(p, &v64, sizeof(v64));
                        break;
                case PROTO_FIELD_F64:
                        v = take_double(&c);
                        memcpy(p, &v, sizeof(v));
                        break;
                case PROTO_FIELD_NAME:
                        s = take_string(&c, MIN((size_t) fl->max, fl->size - 1));
                        if (!s)
                                return -EBADMSG;
                        memcpy(p, s, strlen(s) + 1);
                        free(s);
                        break;
                }
        }
        if (!cursor_done(&c) || !proto_record_valid(d, buf))
                return -EBADMSG;
        memcpy(m, buf, d->size);
        return 0;
}

int proto_record_decode(const ProtoFrame *f, ProtoRecord *ret) {
        const ProtoRecordDesc *d = f ? proto_record_desc(f->type) : NULL;
        ProtoRecord rec = { .desc = d };
        int r;

        if (!d)
                return -EBADMSG;
        r = proto_record_decode_as(d, f, &rec.sample);
        if (r < 0)
                return r;
        *ret = rec;
        return 0;
}

/* ---- the typed functions of proto.h ---- */

int proto_encode_sample(const ProtoSample *m, uint8_t **ret, size_t *ret_len) {
        return proto_record_encode(&proto_record_sample, m, ret, ret_len);
}

int proto_encode_phase_result(const ProtoPhaseResult *m, uint8_t **ret, size_t *ret_len) {
        return proto_record_encode(&proto_record_phase_result, m, ret, ret_len);
}

int proto_encode_position_result(const ProtoPositionResult *m, uint8_t **ret, size_t *ret_len) {
        return proto_record_encode(&proto_record_position_result, m, ret, ret_len);
}

int proto_encode_steady_state(const ProtoSteadyState *m, uint8_t **ret, size_t *ret_len) {
        return proto_record_encode(&proto_record_steady_state, m, ret, ret_len);
}

int proto_decode_sample(const ProtoFrame *f, ProtoSample *ret) {
        return proto_record_decode_as(&proto_record_sample, f, ret);
}

int proto_decode_phase_result(const ProtoFrame *f, ProtoPhaseResult *ret) {
        return proto_record_decode_as(&proto_record_phase_result, f, ret);
}

int proto_decode_position_result(const ProtoFrame *f, ProtoPositionResult *ret) {
        return proto_record_decode_as(&proto_record_position_result, f, ret);
}

int proto_decode_steady_state(const ProtoFrame *f, ProtoSteadyState *ret) {
        return proto_record_decode_as(&proto_record_steady_state, f, ret);
}

bool proto_phase_name_valid(const char *name) {
        size_t n;

        if (!name)
                return false;
        n = strnlen(name, PROTO_PHASE_NAME_MAX + 1);
        if (n == 0 || n > PROTO_PHASE_NAME_MAX)
                return false;
        for (size_t i = 0; i < n; i++)
                if (!((name[i] >= 'a' && name[i] <= 'z') || name[i] == '-'))
                        return false;
        return true;
}
