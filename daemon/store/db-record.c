/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The worker's records into the database, as their descriptions say (shared/proto-record.h): a
 * row of the description's table per record (run_id, then each stored field's column, converted
 * as its `store` says), or an UPDATE of the run's row. One INSERT a record, made from the
 * description; nothing is looked up per record while the records come in order.
 *
 * The implied-interval rule lives here and only here (interval_implied()): a sample's interval_us
 * is stored as NULL when its t_ms minus the previous stored sample's (0 for the first) says it to
 * within 1 ms and 1 %, and the samples view (schema/0008-compact-samples.sql) gives back 1000 ×
 * that difference. Here, because the writer is the one who knows the previous sample without
 * asking: a batch of a run's samples is one look-up (the run's block size and its last t_ms), then
 * each sample's previous one is the sample before it. Stating it in SQL would cost a look-up of
 * the previous row per insert, which is what this replaced. Migration 0008 converted the rows of
 * older files once with the same rule written in SQL; a released migration is never edited
 * (schema/meson.build), and test-db holds the two to each other.
 *
 * HISTOGRAM (bucket upper bounds, folded) and RESULT (db_run_finish(), db.c) have logic of their
 * own and are written out.
 */

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/db-internal.h"
#include "store/db.h"
#include "shared/histogram.h"
#include "shared/proto-record.h"
#include "shared/util.h"

/* bytes as sample_data stores it: NULL (the view's ios × block_size) when that is what it is. */
static void bind_bytes(Binder *b, uint64_t bytes, uint64_t ios, uint64_t block_size) {
        uint64_t full;

        if (!__builtin_mul_overflow(ios, block_size, &full) && full == bytes && full <= (uint64_t) INT64_MAX)
                return bind_null(b);
        bind_u64(b, bytes);
}

/* A percentage as basis points (1/100 of a percent, rounded), negative (unknown) as NULL. */
static void bind_basis_points(Binder *b, double pct) {
        if (!(pct >= 0))
                return bind_null(b);
        bind_i64(b, llround(MIN(pct, 100.0) * 100.0));
}

/* In 1/1000, rounded; negative (unknown) as NULL. */
static void bind_milli(Binder *b, double v) {
        if (!(v >= 0))
                return bind_null(b);
        bind_i64(b, llround(MIN(v, 1e15) * 1000.0));
}

/* Whether the view's derived interval, 1000 × (t_ms − prev_ms), is within 1 ms and 1 % of the
 * measured one, so that the row need not hold it (schema/0008-compact-samples.sql). */
bool db_interval_implied(uint64_t interval_us, uint64_t t_ms, uint64_t prev_ms) {
        uint64_t derived, diff;

        if (prev_ms > t_ms || __builtin_mul_overflow(t_ms - prev_ms, UINT64_C(1000), &derived))
                return false;
        diff = derived > interval_us ? derived - interval_us : interval_us - derived;
        return diff <= MIN(UINT64_C(999), interval_us / 100);
}

/* A sample put before others (a late batch, an import out of order): the t_ms before t_ms among
 * the run's stored samples (0 when there is none), and the next one after t_ms, if its interval was
 * implied by that one, gets it written out, since its previous one changes. Only off the in-order
 * path. */
static int db_sample_neighbours(Db *db, uint64_t run_id, uint64_t t_ms, uint64_t *ret_prev) {
        _cleanup_reset_ sqlite3_stmt *prev = NULL, *keep = NULL;
        uint64_t p;
        Binder b;
        int r;

        r = db_stmt(db, STMT_SAMPLE_PREV, &prev);
        if (r < 0)
                return r;
        b = binder(prev);
        bind_u64(&b, run_id);
        bind_u64(&b, t_ms);
        r = binder_done(db, &b);
        if (r < 0)
                return r;
        r = db_step_row(db, prev);
        if (r < 0)
                return r;
        p = r > 0 ? column_u64(prev, 0) : 0;

        r = db_stmt(db, STMT_SAMPLE_KEEP_NEXT, &keep);
        if (r < 0)
                return r;
        b = binder(keep);
        bind_u64(&b, run_id);
        bind_u64(&b, t_ms);
        bind_u64(&b, p);
        r = binder_done(db, &b);
        if (r < 0)
                return r;
        r = db_step_done(db, keep);
        if (r < 0)
                return r;
        *ret_prev = p;
        return 0;
}

/* ---- statements made from a description ---- */

static const char *column_of(const ProtoField *f) {
        return f->column ?: f->name;
}

/* INSERT INTO table (run_id[, seq], columns...) VALUES (?1[, count], ?2, ...), or
 * UPDATE runs SET <set>, column = ?2, ... WHERE id = ?1 AND <where>. */
static int record_sql(const ProtoRecordDesc *d, char **ret) {
        _cleanup_free_ char *buf = NULL;
        size_t size = 0;
        unsigned k = 2;
        FILE *f;

        f = open_memstream(&buf, &size);
        if (!f)
                return -ENOMEM;
        if (d->run_update) {
                const char *bar = strchr(d->run_update, '|');

                fprintf(f, "UPDATE runs SET %.*s", bar ? (int) (bar - d->run_update) : (int) strlen(d->run_update),
                        d->run_update);
                for (size_t i = 0; i < d->n_fields; i++)
                        if (d->fields[i].store != PROTO_STORE_NONE)
                                fprintf(f, ", %s = ?%u", column_of(&d->fields[i]), k++);
                fprintf(f, " WHERE id = ?1%s%s", bar ? " AND " : "", bar ? bar + 1 : "");
        } else {
                fprintf(f, "INSERT INTO %s (run_id", d->table);
                if (d->seq_column)
                        fprintf(f, ", %s", d->seq_column);
                for (size_t i = 0; i < d->n_fields; i++)
                        if (d->fields[i].store != PROTO_STORE_NONE)
                                fprintf(f, ", %s", column_of(&d->fields[i]));
                fputs(") VALUES (?1", f);
                if (d->seq_column)
                        fprintf(f, ", (SELECT count(*) FROM %s WHERE run_id = ?1)", d->table);
                for (size_t i = 0; i < d->n_fields; i++)
                        if (d->fields[i].store != PROTO_STORE_NONE)
                                fprintf(f, ", ?%u", k++);
                fputs(")", f);
        }
        if (fclose(f) != 0)
                return -ENOMEM;
        *ret = TAKE_PTR(buf);
        return 0;
}

/* The run's block size (what stored bytes are measured against) and the largest value of the
 * description's order field among its stored rows (*ret_have false when there is none); -ENOENT
 * for an unknown run. One look-up a batch. */
static int record_run_facts(Db *db, uint64_t run_id, const ProtoRecordDesc *d, uint64_t *ret_block_size,
                            uint64_t *ret_last, bool *ret_have) {
        _cleanup_finalize_ sqlite3_stmt *st = NULL;
        _cleanup_free_ char *sql = NULL;
        const ProtoField *order = proto_record_field(d, d->order_field);
        Binder b;
        int r;

        if (order && d->table) {
                if (asprintf(&sql, "SELECT block_size, (SELECT max(%s) FROM %s WHERE run_id = ?1) FROM runs WHERE id = ?1",
                             column_of(order), d->table) < 0)
                        return -ENOMEM;
        } else if (!(sql = strdup("SELECT block_size, NULL FROM runs WHERE id = ?1")))
                return -ENOMEM;
        r = db_prepare(db, sql, &st);
        if (r < 0)
                return r;
        b = binder(st);
        bind_u64(&b, run_id);
        r = binder_done(db, &b);
        if (r < 0)
                return r;
        r = db_step_row(db, st);
        if (r < 0)
                return r;
        if (r == 0)
                return db_fail_msg(db, -ENOENT, "no run %" PRIu64, run_id);
        *ret_block_size = column_u64(st, 0);
        *ret_have = sqlite3_column_type(st, 1) != SQLITE_NULL;
        *ret_last = *ret_have ? column_u64(st, 1) : 0;
        return 0;
}

/* A transaction of the call's own, or none when the caller has one open (ImportRuns writes a whole
 * document in one, db_runs_import()): the caller then commits or rolls back all of it. */
static int db_begin_own(Db *db, bool *ret_own) {
        *ret_own = sqlite3_get_autocommit(db->sqlite);
        return *ret_own ? db_begin(db) : 0;
}

static int db_commit_own(Db *db, bool own) {
        return own ? db_commit(db) : 0;
}

static void db_rollback_own(Db *db, bool own) {
        if (own)
                db_rollback(db);
}

/* Binds m's stored fields after run_id (prev_ms: the order field's previous value, for
 * PROTO_STORE_INTERVAL). */
static void record_bind(Binder *b, const ProtoRecordDesc *d, const void *m, uint64_t block_size, uint64_t prev_ms) {
        const ProtoField *order = proto_record_field(d, d->order_field);

        for (size_t i = 0; i < d->n_fields; i++) {
                const ProtoField *f = &d->fields[i];
                uint64_t v = proto_field_u64(f, m), usec;

                switch (f->store) {
                case PROTO_STORE_NONE:
                        break;
                case PROTO_STORE_INTEGER:
                        bind_u64(b, v);
                        break;
                case PROTO_STORE_TEXT:
                        bind_text(b, (const char *) m + f->offset);
                        break;
                case PROTO_STORE_BASIS_POINTS:
                        bind_basis_points(b, proto_field_f64(f, m));
                        break;
                case PROTO_STORE_MILLI:
                        bind_milli(b, proto_field_f64(f, m));
                        break;
                case PROTO_STORE_BYTES:
                        bind_bytes(b, v, proto_field_u64(proto_record_field(d, f->ios), m), block_size);
                        break;
                case PROTO_STORE_INTERVAL:
                        if (order && db_interval_implied(v, proto_field_u64(order, m), prev_ms))
                                bind_null(b);
                        else
                                bind_u64(b, v);
                        break;
                case PROTO_STORE_USEC_OF_MS:
                        bind_u64(b, __builtin_mul_overflow(v, UINT64_C(1000), &usec) ? UINT64_MAX : usec);
                        break;
                }
        }
}

int db_records_insert(Db *db, uint64_t run_id, const ProtoRecordDesc *d, const void *records, size_t n) {
        _cleanup_finalize_ sqlite3_stmt *st = NULL;
        _cleanup_free_ char *sql = NULL;
        const ProtoField *order;
        uint64_t block_size = 0, last = 0;
        bool own, have = false;
        int r;

        if (!d || (!d->table && !d->run_update))
                return -EINVAL;
        if (n == 0)
                return 0;
        if (!records)
                return -EINVAL;
        order = proto_record_field(d, d->order_field);
        /* What a name field may hold, the description says; numbers SQLite cannot hold are -ERANGE
         * from the binder. */
        for (size_t k = 0; k < n; k++)
                for (size_t i = 0; i < d->n_fields; i++) {
                        const ProtoField *f = &d->fields[i];
                        const char *s = (const char *) records + k * d->size + f->offset;

                        if (f->kind == PROTO_FIELD_NAME && f->valid_name && !f->valid_name(s))
                                return db_fail_msg(db, -EINVAL, "invalid %s %s", d->noun, f->name);
                }

        r = record_sql(d, &sql);
        if (r < 0)
                return r;
        r = db_prepare(db, sql, &st);
        if (r < 0)
                return r;

        r = db_begin_own(db, &own);
        if (r < 0)
                return r;
        /* In the transaction, so the run cannot go between the look-up and the inserts. */
        r = record_run_facts(db, run_id, d, &block_size, &last, &have);
        if (r < 0)
                goto fail;

        for (size_t k = 0; k < n; k++) {
                const void *m = (const uint8_t *) records + k * d->size;
                uint64_t prev = have ? last : 0;
                Binder b;

                if (order) {
                        uint64_t t = proto_field_u64(order, m);

                        if (!have || t > last) {
                                /* In order: the one before is the last stored, or none. */
                                last = t;
                                have = true;
                        } else {
                                r = db_sample_neighbours(db, run_id, t, &prev);
                                if (r < 0)
                                        goto fail;
                        }
                }
                b = binder(st);
                bind_u64(&b, run_id);
                record_bind(&b, d, m, block_size, prev);
                r = binder_done(db, &b);
                if (r >= 0)
                        r = db_step_done(db, st);
                sqlite3_reset(st);
                if (r >= 0 && d->run_update && sqlite3_changes(db->sqlite) == 0)
                        r = db_fail_msg(db, -ENOENT, "no run %" PRIu64 " that records %s", run_id, d->noun);
                if (r < 0)
                        goto fail;
        }

        r = db_commit_own(db, own);
        if (r < 0)
                goto fail;
        return 0;

fail:
        db_rollback_own(db, own);
        return r;
}

/* ---- the typed entries of db.h ---- */

/* All or nothing: a duplicate t_ms (-EEXIST) or an unknown run (-ENOENT) leaves none of the batch. */
int db_samples_insert(Db *db, uint64_t run_id, const ProtoSample *samples, size_t n) {
        return db_records_insert(db, run_id, &proto_record_sample, samples, n);
}

int db_run_phase_insert(Db *db, uint64_t run_id, const ProtoPhaseResult *phase) {
        if (!phase || !proto_phase_name_valid(phase->name))
                return db_fail_msg(db, -EINVAL, "invalid phase name");
        return db_records_insert(db, run_id, &proto_record_phase_result, phase, 1);
}

/* The store is stricter than the wire here: an offset read no byte of is not a row. */
int db_run_position_insert(Db *db, uint64_t run_id, const ProtoPositionResult *p) {
        if (!p || p->bytes == 0 || p->lat_mean_ns > p->lat_max_ns || p->offset_bytes > (uint64_t) INT64_MAX ||
            p->bytes > (uint64_t) INT64_MAX || p->duration_usec > (uint64_t) INT64_MAX ||
            p->lat_max_ns > (uint64_t) INT64_MAX)
                return db_fail_msg(db, -EINVAL, "invalid position figures");
        return db_records_insert(db, run_id, &proto_record_position_result, p, 1);
}

int db_run_set_steady_state(Db *db, uint64_t run_id, uint64_t usec) {
        ProtoSteadyState m = { .t_ms = usec / 1000 };

        return db_records_insert(db, run_id, &proto_record_steady_state, &m, 1);
}

/* ---- HISTOGRAM: logic of its own ---- */

/* Buckets are stored by their upper bound (histogram_bucket_upper()); empty ones are skipped, a
 * bucket given twice is summed. */
int db_histogram_insert(Db *db, uint64_t run_id, const ProtoHistogramEntry *entries, size_t n) {
        _cleanup_reset_ sqlite3_stmt *del = NULL, *ins = NULL;
        Binder b;
        bool own;
        int r;

        if (n > 0 && !entries)
                return -EINVAL;
        for (size_t i = 0; i < n; i++)
                if (entries[i].index >= HISTOGRAM_BUCKETS)
                        return db_fail_msg(db, -EINVAL, "histogram bucket %" PRIu32 " out of range",
                                           entries[i].index);

        r = db_run_exists(db, run_id);
        if (r < 0)
                return r;

        r = db_stmt(db, STMT_HISTOGRAM_DELETE, &del);
        if (r < 0)
                return r;
        r = db_stmt(db, STMT_HISTOGRAM_INSERT, &ins);
        if (r < 0)
                return r;

        r = db_begin_own(db, &own);
        if (r < 0)
                return r;

        b = binder(del);
        bind_u64(&b, run_id);
        r = binder_done(db, &b);
        if (r >= 0)
                r = db_step_done(db, del);
        if (r < 0)
                goto fail;

        for (size_t i = 0; i < n; i++) {
                uint64_t upper = histogram_bucket_upper(entries[i].index);

                if (entries[i].count == 0)
                        continue;

                b = binder(ins);
                bind_u64(&b, run_id);
                bind_u64(&b, MIN(upper, (uint64_t) INT64_MAX));
                bind_u64(&b, entries[i].count);
                r = binder_done(db, &b);
                if (r >= 0)
                        r = db_step_done(db, ins);
                sqlite3_reset(ins);
                if (r < 0)
                        goto fail;
        }

        r = db_commit_own(db, own);
        if (r < 0)
                goto fail;
        return 0;

fail:
        db_rollback_own(db, own);
        return r;
}

