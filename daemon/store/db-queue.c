/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A job's writes the database has not taken yet (db-queue.h). An array of entries, oldest first.
 * The worker's records (shared/proto-record.h) take one kind of entry, whatever their type: their
 * description says how they batch, what a loss note calls them and how they are stored
 * (db_records_insert()). Consecutive samples of one run share an entry, so a flush writes them in one transaction (as
 * the batches were written before there was a queue). A flush writes entry after entry and
 * removes each one that is done, so a failure in the middle leaves exactly the rest.
 *
 * Losses are kept as a few notes with counts ("904 samples of run 7 (...)"), merged when the same
 * thing is lost again, so a long outage makes one note, not thousands.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/db-queue.h"
#include "shared/proto-record.h"

typedef enum DbQueueKind {
        DB_QUEUE_RECORDS,
        DB_QUEUE_HISTOGRAM,
        DB_QUEUE_RUN_FINISH,
        DB_QUEUE_JOB_STATE,
        DB_QUEUE_RUN_FS,
        DB_QUEUE_LAYOUT_RELEASED,
} DbQueueKind;

typedef struct DbQueueEntry {
        DbQueueKind kind;
        uint64_t id;                    /* the run, or for DB_QUEUE_JOB_STATE the job */

        const ProtoRecordDesc *desc;    /* DB_QUEUE_RECORDS: of what kind (shared/proto-record.h) */
        uint8_t *records;               /* n_records of desc->size bytes */
        size_t n_records, n_allocated;
        ProtoHistogramEntry *histogram; /* DB_QUEUE_HISTOGRAM */
        size_t n_histogram;
        char *status;                   /* DB_QUEUE_RUN_FINISH: run status, DB_QUEUE_JOB_STATE: job state */
        char *error;
        bool have_result;               /* DB_QUEUE_RUN_FINISH */
        ProtoResult result;             /* .device owned */
        uint64_t started_usec;          /* DB_QUEUE_JOB_STATE */
        uint64_t finished_usec;
        DbRunFs fs;                     /* DB_QUEUE_RUN_FS; its strings are the three below */
        char *fs_command, *fs_output, *fs_uuid, *fs_commands, *fs_layout_commands;
        char *released;                 /* DB_QUEUE_LAYOUT_RELEASED: the JSON array to add */
} DbQueueEntry;

typedef struct DbQueueLoss {
        char *what;     /* "samples of run 7 (more than 4096 waited for the database)" */
        uint64_t count; /* how many of them; shown when counted */
        bool counted;
} DbQueueLoss;

struct DbQueue {
        DbQueueEntry *entries;
        size_t n_entries, n_allocated;
        size_t n_samples;               /* records that batch (samples), over all entries */
        uint64_t n_dropped;             /* of them refused because of their batch_max */
        DbQueueLoss losses[DB_QUEUE_LOSSES_MAX];
        size_t n_losses;
};

static void entry_clear(DbQueueEntry *e) {
        free(e->records);
        free(e->histogram);
        free(e->status);
        free(e->error);
        free(e->result.device);
        free(e->fs_command);
        free(e->fs_output);
        free(e->fs_uuid);
        free(e->fs_commands);
        free(e->fs_layout_commands);
        free(e->released);
        *e = (DbQueueEntry) {};
}

int db_queue_new(DbQueue **ret) {
        DbQueue *q = calloc(1, sizeof(DbQueue));
        if (!q)
                return -ENOMEM;
        *ret = q;
        return 0;
}

void db_queue_clear(DbQueue *q) {
        if (!q)
                return;
        for (size_t i = 0; i < q->n_entries; i++)
                entry_clear(q->entries + i);
        q->n_entries = 0;
        q->n_samples = 0;
}

DbQueue *db_queue_free(DbQueue *q) {
        if (!q)
                return NULL;
        db_queue_clear(q);
        free(q->entries);
        for (size_t i = 0; i < q->n_losses; i++)
                free(q->losses[i].what);
        free(q);
        return NULL;
}

bool db_queue_is_empty(const DbQueue *q) {
        return !q || q->n_entries == 0;
}

size_t db_queue_n_samples(const DbQueue *q) {
        return q ? q->n_samples : 0;
}

uint64_t db_queue_n_dropped(const DbQueue *q) {
        return q ? q->n_dropped : 0;
}

bool db_queue_has_losses(const DbQueue *q) {
        return q && q->n_losses > 0;
}

/* ---- losses ---- */

/* Notes count things lost (counted: "<count> <what>"), merging with an equal note. Past
 * DB_QUEUE_LOSSES_MAX notes, the last one becomes "more writes" and counts the rest. */
_printf_(4, 5)
static void queue_lose(DbQueue *q, uint64_t count, bool counted, const char *fmt, ...) {
        DbQueueLoss *l;
        va_list ap;
        char *what;
        int k;

        va_start(ap, fmt);
        k = vasprintf(&what, fmt, ap);
        va_end(ap);
        if (k < 0)
                what = NULL;

        for (size_t i = 0; what && i < q->n_losses; i++)
                if (streq(q->losses[i].what, what)) {
                        q->losses[i].count += count;
                        free(what);
                        return;
                }
        if (what && q->n_losses < DB_QUEUE_LOSSES_MAX - 1) {
                q->losses[q->n_losses++] = (DbQueueLoss) { .what = what, .count = count, .counted = counted };
                return;
        }
        free(what);

        /* Out of notes (or memory): the last one counts whatever else is lost. */
        l = &q->losses[DB_QUEUE_LOSSES_MAX - 1];
        if (q->n_losses < DB_QUEUE_LOSSES_MAX) {
                *l = (DbQueueLoss) { .what = strdup("more writes"), .counted = true };
                q->n_losses = DB_QUEUE_LOSSES_MAX;
        }
        l->count += count;
}

int db_queue_error(const DbQueue *q, const char *error, char **ret) {
        _cleanup_free_ char *buf = NULL;
        size_t size = 0;
        FILE *f;

        if (!db_queue_has_losses(q)) {
                if (!error) {
                        *ret = NULL;
                        return 0;
                }
                *ret = strdup(error);
                return *ret ? 0 : -ENOMEM;
        }

        f = open_memstream(&buf, &size);
        if (!f)
                return -ENOMEM;
        if (error)
                fprintf(f, "%s; ", error);
        fputs("not stored: ", f);
        for (size_t i = 0; i < q->n_losses; i++) {
                const DbQueueLoss *l = &q->losses[i];

                if (i > 0)
                        fputs("; ", f);
                if (l->counted)
                        fprintf(f, "%" PRIu64 " ", l->count);
                fputs(strna(l->what), f);
        }
        if (fclose(f) != 0)
                return -ENOMEM;
        *ret = TAKE_PTR(buf);
        return 0;
}

/* ---- adding ---- */

/* A new entry at the end, or NULL: out of memory, or beyond DB_QUEUE_ENTRIES_MAX (noted). */
static DbQueueEntry *queue_push(DbQueue *q, DbQueueKind kind, uint64_t id, const char *what) {
        DbQueueEntry *e;

        if (q->n_entries >= DB_QUEUE_ENTRIES_MAX) {
                queue_lose(q, 1, false, "%s (more than %u writes waited for the database)", what,
                           DB_QUEUE_ENTRIES_MAX);
                return NULL;
        }
        if (q->n_entries == q->n_allocated) {
                size_t n = MAX(q->n_allocated * 2, (size_t) 4);
                DbQueueEntry *a = realloc(q->entries, n * sizeof(DbQueueEntry));
                if (!a)
                        return NULL;
                q->entries = a;
                q->n_allocated = n;
        }
        e = &q->entries[q->n_entries++];
        *e = (DbQueueEntry) { .kind = kind, .id = id };
        return e;
}

/* "samples of run 7", "phase create-seq of run 7", "position 3 of run 7". */
static void record_what(const ProtoRecordDesc *d, const void *m, uint64_t run_id, char *buf, size_t size) {
        const ProtoField *f = proto_record_field(d, d->label_field);

        if (!f)
                snprintf(buf, size, "%s of run %" PRIu64, d->noun, run_id);
        else if (f->kind == PROTO_FIELD_NAME)
                snprintf(buf, size, "%s %s of run %" PRIu64, d->noun, (const char *) m + f->offset, run_id);
        else
                snprintf(buf, size, "%s %" PRIu64 " of run %" PRIu64, d->noun, proto_field_u64(f, m), run_id);
}

int db_queue_add_records(DbQueue *q, uint64_t run_id, const ProtoRecordDesc *d, const void *records, size_t n) {
        DbQueueEntry *e = q->n_entries > 0 ? &q->entries[q->n_entries - 1] : NULL;
        size_t take = n;
        char what[96];

        if (n == 0)
                return 0;
        /* Records that do not batch: an entry each. */
        if (d->batch_max == 0) {
                for (size_t i = 0; i < n; i++) {
                        const uint8_t *m = (const uint8_t *) records + i * d->size;
                        uint8_t *copy = malloc(d->size);

                        if (!copy)
                                return -ENOMEM;
                        memcpy(copy, m, d->size);
                        record_what(d, m, run_id, what, sizeof(what));
                        e = queue_push(q, DB_QUEUE_RECORDS, run_id, what);
                        if (!e) {
                                free(copy);
                                if (q->n_entries < DB_QUEUE_ENTRIES_MAX)
                                        return -ENOMEM;
                                continue;
                        }
                        e->desc = d;
                        e->records = copy;
                        e->n_records = e->n_allocated = 1;
                }
                return 0;
        }

        /* Records that batch (samples): consecutive ones of a run share an entry, at most batch_max
         * of them wait. */
        take = MIN(n, d->batch_max - MIN(q->n_samples, d->batch_max));
        if (take < n) {
                q->n_dropped += n - take;
                queue_lose(q, n - take, true, "%s of run %" PRIu64 " (more than %zu waited for the database)", d->noun,
                           run_id, d->batch_max);
        }
        if (take == 0)
                return 0;

        if (!e || e->kind != DB_QUEUE_RECORDS || e->desc != d || e->id != run_id) {
                record_what(d, records, run_id, what, sizeof(what));
                e = queue_push(q, DB_QUEUE_RECORDS, run_id, what);
                if (!e)
                        return q->n_entries >= DB_QUEUE_ENTRIES_MAX ? 0 : -ENOMEM;
                e->desc = d;
        }
        if (e->n_records + take > e->n_allocated) {
                size_t want = MIN(MAX(e->n_allocated * 2, e->n_records + take), d->batch_max);
                uint8_t *a = realloc(e->records, want * d->size);
                if (!a) {
                        if (e->n_records == 0)
                                q->n_entries--; /* the entry just pushed: nothing in it yet */
                        return -ENOMEM;
                }
                e->records = a;
                e->n_allocated = want;
        }
        memcpy(e->records + e->n_records * d->size, records, take * d->size);
        e->n_records += take;
        q->n_samples += take;
        return 0;
}

int db_queue_add_record(DbQueue *q, uint64_t run_id, const ProtoRecord *record) {
        if (!record || !record->desc)
                return -EINVAL;
        return db_queue_add_records(q, run_id, record->desc, &record->sample, 1);
}

int db_queue_add_run_fs(DbQueue *q, uint64_t run_id, const DbRunFs *fs) {
        _cleanup_free_ char *command = strdup(fs->mkfs_command ?: ""), *output = strdup(fs->mkfs_output ?: ""),
                            *uuid = strdup(fs->fs_uuid ?: ""), *commands = NULL,
                            *layout = strdup(fs->layout_commands ?: "");
        char what[96];
        DbQueueEntry *e;

        if (!command || !output || !uuid || !layout)
                return -ENOMEM;
        if (fs->fs_commands_json && !(commands = strdup(fs->fs_commands_json)))
                return -ENOMEM;
        snprintf(what, sizeof(what), "how the filesystem of run %" PRIu64 " was made", run_id);
        e = queue_push(q, DB_QUEUE_RUN_FS, run_id, what);
        if (!e)
                return q->n_entries >= DB_QUEUE_ENTRIES_MAX ? 0 : -ENOMEM;
        e->fs = *fs;
        e->fs.mkfs_command = e->fs_command = TAKE_PTR(command);
        e->fs.mkfs_output = e->fs_output = TAKE_PTR(output);
        e->fs.fs_uuid = e->fs_uuid = TAKE_PTR(uuid);
        e->fs.fs_commands_json = e->fs_commands = TAKE_PTR(commands);
        e->fs.layout_commands = e->fs_layout_commands = TAKE_PTR(layout);
        return 0;
}

int db_queue_add_layout_released(DbQueue *q, uint64_t run_id, const char *commands) {
        _cleanup_free_ char *copy = strdup(commands ?: "");
        char what[96];
        DbQueueEntry *e;

        if (!copy)
                return -ENOMEM;
        snprintf(what, sizeof(what), "what run %" PRIu64 " ran on its layout", run_id);
        e = queue_push(q, DB_QUEUE_LAYOUT_RELEASED, run_id, what);
        if (!e)
                return q->n_entries >= DB_QUEUE_ENTRIES_MAX ? 0 : -ENOMEM;
        e->released = TAKE_PTR(copy);
        return 0;
}

int db_queue_add_histogram(DbQueue *q, uint64_t run_id, const ProtoHistogramEntry *entries, size_t n) {
        _cleanup_free_ ProtoHistogramEntry *copy = NULL;
        char what[64];
        DbQueueEntry *e;

        if (n > 0) {
                copy = malloc(n * sizeof(ProtoHistogramEntry));
                if (!copy)
                        return -ENOMEM;
                memcpy(copy, entries, n * sizeof(ProtoHistogramEntry));
        }
        snprintf(what, sizeof(what), "the histogram of run %" PRIu64, run_id);
        e = queue_push(q, DB_QUEUE_HISTOGRAM, run_id, what);
        if (!e)
                return q->n_entries >= DB_QUEUE_ENTRIES_MAX ? 0 : -ENOMEM;
        e->histogram = TAKE_PTR(copy);
        e->n_histogram = n;
        return 0;
}

int db_queue_add_run_finish(DbQueue *q, uint64_t run_id, const char *status, const char *error,
                            const ProtoResult *result) {
        _cleanup_free_ char *s = NULL, *err = NULL, *device = NULL;
        char what[64];
        DbQueueEntry *e;

        s = strdup(strna(status));
        if (!s || (error && !(err = strdup(error))) || (result && result->device && !(device = strdup(result->device))))
                return -ENOMEM;
        snprintf(what, sizeof(what), "the end of run %" PRIu64, run_id);
        e = queue_push(q, DB_QUEUE_RUN_FINISH, run_id, what);
        if (!e)
                return q->n_entries >= DB_QUEUE_ENTRIES_MAX ? 0 : -ENOMEM;
        e->status = TAKE_PTR(s);
        e->error = TAKE_PTR(err);
        if (result) {
                e->have_result = true;
                e->result = *result;
                e->result.device = TAKE_PTR(device);
        }
        return 0;
}

int db_queue_add_job_state(DbQueue *q, uint64_t job_id, const char *state, uint64_t started_usec,
                           uint64_t finished_usec, const char *error) {
        _cleanup_free_ char *s = NULL, *err = NULL;
        char what[64];
        DbQueueEntry *e;

        s = strdup(strna(state));
        if (!s || (error && !(err = strdup(error))))
                return -ENOMEM;
        snprintf(what, sizeof(what), "the state of job %" PRIu64, job_id);
        e = queue_push(q, DB_QUEUE_JOB_STATE, job_id, what);
        if (!e)
                return q->n_entries >= DB_QUEUE_ENTRIES_MAX ? 0 : -ENOMEM;
        e->status = TAKE_PTR(s);
        e->error = TAKE_PTR(err);
        e->started_usec = started_usec;
        e->finished_usec = finished_usec;
        return 0;
}

/* ---- flushing ---- */

/* "No such file or directory: no run 7": the errno and SQLite's words, for a note. */
static const char *reason(Db *db, int r, char *buf, size_t size) {
        snprintf(buf, size, "%s: %s", strerror(-r), db_last_error(db));
        return buf;
}

/* The entry's records. Those that batch (samples) go in one transaction; when the database
 * refuses that for good, they go one by one, so one bad sample (a duplicate t_ms) costs only
 * itself. */
static int flush_records(DbQueue *q, Db *db, DbQueueEntry *e) {
        const ProtoRecordDesc *d = e->desc;
        char why[640], what[96];
        size_t i;
        int r;

        r = db_records_insert(db, e->id, d, e->records, e->n_records);
        if (r >= 0 || db_error_is_transient(r)) {
                if (r >= 0) {
                        if (d->batch_max > 0)
                                q->n_samples -= e->n_records;
                        e->n_records = 0;
                }
                return r;
        }
        if (d->batch_max == 0) {
                record_what(d, e->records, e->id, what, sizeof(what));
                queue_lose(q, 1, false, "%s (%s)", what, reason(db, r, why, sizeof(why)));
                e->n_records = 0;
                return 0;
        }

        for (i = 0; i < e->n_records; i++) {
                r = db_records_insert(db, e->id, d, e->records + i * d->size, 1);
                if (r < 0 && db_error_is_transient(r))
                        break;
                if (r < 0)
                        queue_lose(q, 1, true, "%s of run %" PRIu64 " (%s)", d->noun, e->id,
                                   reason(db, r, why, sizeof(why)));
        }
        /* The ones written or dropped go; the rest (after a transient failure) stay. */
        memmove(e->records, e->records + i * d->size, (e->n_records - i) * d->size);
        e->n_records -= i;
        q->n_samples -= i;
        return e->n_records == 0 ? 0 : r;
}

static int flush_entry(DbQueue *q, Db *db, DbQueueEntry *e) {
        _cleanup_free_ char *error = NULL;
        char why[640];
        int r;

        switch (e->kind) {
        case DB_QUEUE_RECORDS:
                return flush_records(q, db, e);
        case DB_QUEUE_RUN_FS:
                r = db_run_set_fs(db, e->id, &e->fs);
                if (r < 0 && !db_error_is_transient(r))
                        queue_lose(q, 1, false, "how the filesystem of run %" PRIu64 " was made (%s)", e->id,
                                   reason(db, r, why, sizeof(why)));
                break;
        case DB_QUEUE_LAYOUT_RELEASED:
                r = db_run_add_layout_commands(db, e->id, e->released);
                if (r < 0 && !db_error_is_transient(r))
                        queue_lose(q, 1, false, "what run %" PRIu64 " ran on its layout (%s)", e->id,
                                   reason(db, r, why, sizeof(why)));
                break;
        case DB_QUEUE_HISTOGRAM:
                r = db_histogram_insert(db, e->id, e->histogram, e->n_histogram);
                if (r < 0 && !db_error_is_transient(r))
                        queue_lose(q, 1, false, "the histogram of run %" PRIu64 " (%s)", e->id,
                                   reason(db, r, why, sizeof(why)));
                break;
        case DB_QUEUE_RUN_FINISH:
                r = db_run_finish(db, e->id, e->status, e->error, e->have_result ? &e->result : NULL);
                if (r < 0 && !db_error_is_transient(r))
                        queue_lose(q, 1, false, "the end of run %" PRIu64 " (%s)", e->id,
                                   reason(db, r, why, sizeof(why)));
                break;
        case DB_QUEUE_JOB_STATE:
                r = db_queue_error(q, e->error, &error);
                if (r < 0)
                        return r;
                r = db_job_set_state(db, e->id, e->status, e->started_usec, e->finished_usec, error);
                if (r < 0 && !db_error_is_transient(r))
                        queue_lose(q, 1, false, "the final state of job %" PRIu64 " (%s)", e->id,
                                   reason(db, r, why, sizeof(why)));
                break;
        default:
                r = 0;
        }
        return r < 0 && db_error_is_transient(r) ? r : 0;
}

int db_queue_flush(DbQueue *q, Db *db) {
        size_t done = 0;
        int r = 0;

        if (!q)
                return 0;
        while (done < q->n_entries) {
                r = flush_entry(q, db, &q->entries[done]);
                if (r < 0)
                        break;
                entry_clear(&q->entries[done]);
                done++;
        }
        memmove(q->entries, q->entries + done, (q->n_entries - done) * sizeof(DbQueueEntry));
        q->n_entries -= done;
        return r;
}
