/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A record its description allows, made from the description alone (proto-record.h): every field
 * a value of its own, rising in table order, so that the description's rules between fields
 * (latencies in order) hold and a field read at another place shows. For test-proto-record and
 * proto-vectors (which hands the same records to worker_proto.py).
 */
#pragma once

#include <math.h>
#include <string.h>

#include "shared/proto-record.h"

/* The example value of field i of a U32/U64 field: distinct bytes, below every bound. */
static inline uint64_t record_example_u64(const ProtoField *f, size_t i) {
        uint64_t v = f->kind == PROTO_FIELD_U32 ? (uint64_t) (i + 1) : (UINT64_C(0x0100) + i) << 24 | (0x11u * (i + 1));

        return f->max != 0 && v > f->max ? f->max - (16 - i) : v;
}

/* Multiples of 1/8, exact in binary and in JSON. */
static inline double record_example_f64(const ProtoField *f, size_t i) {
        if (isinf(f->max_f))
                return f->min_f + (double) i + 0.5;
        return f->min_f + (f->max_f - f->min_f) / 8.0 * (double) (i % 7 + 1);
}

static inline void record_example(const ProtoRecordDesc *d, void *m) {
        memset(m, 0, d->size);
        for (size_t i = 0; i < d->n_fields; i++) {
                const ProtoField *f = &d->fields[i];
                uint8_t *p = (uint8_t *) m + f->offset;
                uint64_t v = record_example_u64(f, i);
                uint32_t v32 = (uint32_t) v;
                double x = record_example_f64(f, i);

                switch (f->kind) {
                case PROTO_FIELD_U32:
                        memcpy(p, &v32, sizeof(v32));
                        break;
                case PROTO_FIELD_U64:
                        memcpy(p, &v, sizeof(v));
                        break;
                case PROTO_FIELD_F64:
                        memcpy(p, &x, sizeof(x));
                        break;
                case PROTO_FIELD_NAME:
                        strncpy((char *) p, "create-seq", f->size - 1);
                        break;
                }
        }
}
