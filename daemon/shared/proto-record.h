/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The worker's records, each described once. A record is a frame the worker sends about its step
 * that benchd checks, keeps and stores as it is: SAMPLE, PHASE_RESULT, POSITION_RESULT,
 * STEADY_STATE. Its description (ProtoRecordDesc, in proto-record.c) says, field by field and in
 * wire order: the member of its struct, its wire width, its bounds, and the column it is stored
 * in. From that alone come
 *   - the encoder and the decoder (proto_record_encode(), proto_record_decode(): little-endian
 *     fields in table order, the exact payload length, every bound; rules between fields are the
 *     description's `valid`);
 *   - what the supervisor passes on (one ProtoRecord, tagged by its description, instead of a
 *     callback per type), the judge's check against the step (`plausible`, proto-plausible.h);
 *   - the job's queue entry and the database insert (daemon/store/db-record.c: `table`, each
 *     field's `column` and `store` conversion).
 * Frames with logic of their own (HELLO, SPEC, PHASE/LOG, ERROR, HISTOGRAM, RESULT and the
 * filesystem frames) stay written out in proto.c and proto-fs.c.
 *
 * Adding a record type: its number in enum ProtoType and its struct (proto.h, with a member in
 * ProtoRecord's union), one ProtoRecordDesc in proto-record.c, the table it is stored in (a
 * schema migration), the worker's call of proto_record_encode(), and its fields in the tests'
 * copy (tests/integration/worker_proto.py, RECORDS). docs/HACKING.md, "Adding a record type".
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "proto.h"

typedef enum ProtoFieldKind {
        PROTO_FIELD_U32,
        PROTO_FIELD_U64,
        PROTO_FIELD_F64,        /* an IEEE 754 bit pattern in a u64; always finite */
        PROTO_FIELD_NAME,       /* u32 length + bytes, into a char[] of the struct; valid_name() */
} ProtoFieldKind;

/* How a field becomes its column (daemon/store/db-record.c). */
typedef enum ProtoStore {
        PROTO_STORE_INTEGER,    /* as it is (at most INT64_MAX, or the insert fails with -ERANGE) */
        PROTO_STORE_TEXT,       /* PROTO_FIELD_NAME */
        PROTO_STORE_NONE,       /* not stored */
        PROTO_STORE_BASIS_POINTS, /* a percentage in 1/100 of a percent, rounded; -1 (unknown): NULL */
        PROTO_STORE_MILLI,      /* in 1/1000, rounded; -1 (unknown): NULL */
        PROTO_STORE_BYTES,      /* NULL when it is the field `ios` times the run's block size */
        PROTO_STORE_INTERVAL,   /* usec; NULL when the record's order field (ms) minus the one
                                 * before it says it to within 1 ms and 1 % (the implied-interval
                                 * rule, db-record.c) */
        PROTO_STORE_USEC_OF_MS, /* ms stored as usec */
} ProtoStore;

typedef struct ProtoField {
        const char *name;       /* the struct member, and the name worker_proto.py uses */
        ProtoFieldKind kind;
        size_t offset;
        size_t size;            /* of the member (NAME: the buffer, NUL included) */
        uint64_t max;           /* U32, U64: the largest value (0: any); NAME: the longest length */
        double min_f, max_f;    /* F64: the range */
        bool unknown;           /* F64: -1 (unknown) is allowed too */
        bool (*valid_name)(const char *s); /* NAME */
        const char *column;     /* where it is stored (NULL: the member's name) */
        ProtoStore store;
        const char *ios;        /* PROTO_STORE_BYTES: the field with the count of I/Os */
} ProtoField;

typedef struct ProtoTally ProtoTally;
typedef struct ProtoLimits ProtoLimits;
typedef struct ProtoClock ProtoClock;

typedef struct ProtoRecordDesc {
        ProtoType type;
        const char *name;       /* "SAMPLE": the frame type's name without PROTO_ */
        size_t size;            /* of its struct */
        const ProtoField *fields;
        size_t n_fields;
        /* The rules between fields (a latency order, all 0 without I/O), or NULL. */
        bool (*valid)(const void *m);
        /* The encoder refuses (-EINVAL) what the decoder would; false: it sends what it is given
         * (SAMPLE: tests and fuzzers send bad ones on purpose). */
        bool check_on_encode;
        /* What the step, the clock and the records before it allow (proto-plausible.h), or NULL. */
        int (*plausible)(ProtoTally *t, const void *m, const ProtoLimits *l, const ProtoClock *c, char **reterr);

        /* Where it is stored: a row of table per record (with run_id), or with run_update an
         * UPDATE of the run's row (`SET <columns> ... WHERE id = run_id AND <run_update>`). */
        const char *table;
        const char *run_update; /* the UPDATE's extra SET and WHERE, "<set>|<where>" */
        const char *seq_column; /* a column holding the arrival order in the run, or NULL */
        const char *order_field;/* rows ordered by this field (ms; PROTO_STORE_INTERVAL's base) */
        /* In the job's queue: consecutive records of one run share an entry, at most batch_max
         * waiting (0: one entry each, at most DB_QUEUE_ENTRIES_MAX); what a loss note calls them
         * ("samples", "phase", "position", "the steady state"), and the field naming one. */
        size_t batch_max;
        const char *noun;
        const char *label_field;
} ProtoRecordDesc;

extern const ProtoRecordDesc proto_record_sample, proto_record_phase_result, proto_record_position_result,
        proto_record_steady_state;
/* The described records, in type order; NULL-terminated. */
extern const ProtoRecordDesc *const proto_records[];
/* Its description, or NULL for a frame type that is not a described record. */
const ProtoRecordDesc *proto_record_desc(unsigned type);
/* The field named name, or NULL. */
const ProtoField *proto_record_field(const ProtoRecordDesc *d, const char *name);
/* The value of an integer field (U32, U64) of m. */
uint64_t proto_field_u64(const ProtoField *f, const void *m);
double proto_field_f64(const ProtoField *f, const void *m);

/* The payload's length on the wire. */
size_t proto_record_payload_size(const ProtoRecordDesc *d, const void *m);
/* Every field within its bounds and the description's rules between fields. */
bool proto_record_valid(const ProtoRecordDesc *d, const void *m);
/* A whole frame of m (a d->size struct). -EINVAL for what the decoder would refuse (when
 * d->check_on_encode), -ENOMEM. */
int proto_record_encode(const ProtoRecordDesc *d, const void *m, uint8_t **ret, size_t *ret_len);
/* Fills m (d->size bytes): the frame's type must be d's, the payload exactly the fields, each in
 * its bounds; -EBADMSG otherwise. Nothing is owned. */
int proto_record_decode_as(const ProtoRecordDesc *d, const ProtoFrame *f, void *m);
/* The same for whichever described record the frame is; -EBADMSG for any other frame. */
int proto_record_decode(const ProtoFrame *f, ProtoRecord *ret);
