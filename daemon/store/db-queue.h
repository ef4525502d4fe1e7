/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The writes of one job that the database has not taken yet: its samples, phase and position
 * results, histograms, run ends and its final state, kept in the order they happened and written in that
 * order by db_queue_flush(). The order is what lets a reader trust the file: a job's final state
 * is stored only after everything of its runs, and a run's end only after its samples.
 *
 * A failure that may pass (db_error_is_transient(): the filesystem full, the file locked or
 * read-only, an I/O error) stops a flush and keeps everything for the next one. A write the
 * database refuses for good (a row that no longer exists, a value the schema rejects) is dropped
 * and noted; so are the samples beyond DB_QUEUE_SAMPLES_MAX, which is what bounds the memory a
 * long outage can take. The notes say what was lost, for the job's Error: nothing is dropped
 * silently. No event loop here: the caller decides when to flush again.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "store/db.h"
#include "shared/proto.h"
#include "shared/util.h"

/* Samples waiting at most (about 7 minutes at the shortest interval, 100 ms; 136 bytes each): the
 * sample description's batch_max (shared/proto-record.c), which test-db-record holds to this. */
#define DB_QUEUE_SAMPLES_MAX 4096u
/* Other writes waiting at most (phase and position results, histograms, run ends, job states). */
#define DB_QUEUE_ENTRIES_MAX 256u
/* Distinct notes of what was lost at most; later losses are counted in the last one. */
#define DB_QUEUE_LOSSES_MAX 16u

typedef struct DbQueue DbQueue;

int db_queue_new(DbQueue **ret);
DbQueue *db_queue_free(DbQueue *q);
DEFINE_TRIVIAL_CLEANUP_FUNC(DbQueue *, db_queue_free);

/* Each add copies what it is given; only -ENOMEM fails (and then nothing was added). What is beyond
 * the bounds is not added but noted as lost, and the add returns 0. */
/* One of the worker's records of the run (a sample, a phase or position result, a steady state:
 * record->desc says which), as its description says: records that batch (samples, batch_max) share
 * an entry with the run's records before them and at most batch_max wait; the others take an
 * entry each. -EINVAL for a record without a description. */
int db_queue_add_record(DbQueue *q, uint64_t run_id, const ProtoRecord *record);
/* n records of description d (n structs of d->size bytes), as db_queue_add_record() each. */
int db_queue_add_records(DbQueue *q, uint64_t run_id, const ProtoRecordDesc *d, const void *records, size_t n);
/* As db_run_set_fs(). */
int db_queue_add_run_fs(DbQueue *q, uint64_t run_id, const DbRunFs *fs);
/* FS_RELEASED's commands, appended to the run's layout_commands after its filesystem's record
 * (db_run_add_layout_commands()). */
int db_queue_add_layout_released(DbQueue *q, uint64_t run_id, const char *commands);
int db_queue_add_histogram(DbQueue *q, uint64_t run_id, const ProtoHistogramEntry *entries, size_t n);
/* As db_run_finish(); result may be NULL. */
int db_queue_add_run_finish(DbQueue *q, uint64_t run_id, const char *status, const char *error,
                            const ProtoResult *result);
/* As db_job_set_state(). The error stored is error with what the queue lost by then appended
 * (db_queue_error()), so a job's row says what of it is missing. */
int db_queue_add_job_state(DbQueue *q, uint64_t job_id, const char *state, uint64_t started_usec,
                           uint64_t finished_usec, const char *error);

/* Writes what is queued, oldest first. Returns 0 when the queue is empty afterwards, or the
 * transient -errno that stopped it (db_last_error() has SQLite's words), with the rest kept. */
int db_queue_flush(DbQueue *q, Db *db);

bool db_queue_is_empty(const DbQueue *q);
size_t db_queue_n_samples(const DbQueue *q);
/* Samples dropped so far because more than DB_QUEUE_SAMPLES_MAX waited. */
uint64_t db_queue_n_dropped(const DbQueue *q);
/* Forgets everything queued, without a note: for a caller that reports the failure otherwise. */
void db_queue_clear(DbQueue *q);

bool db_queue_has_losses(const DbQueue *q);
/* error, with "not stored: <what was lost>" appended when something was ("; "-separated), or
 * only that; *ret is NULL when there is neither. -ENOMEM. */
int db_queue_error(const DbQueue *q, const char *error, char **ret);
