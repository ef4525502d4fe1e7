/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The SQLite store, its pruning half: the samples of old runs removed in bounded steps
 * (db_prune_step()), and the freed pages given back to the filesystem in bounded steps too
 * (db_vacuum_step(), PRAGMA incremental_vacuum). SampleRetentionDays= and PruneSamples drive them
 * from the daemon's event loop (daemon/jobs/retention.c); a step is one transaction, so a reader
 * or the sample writer waits at most one step.
 *
 * Only sample_data loses rows: the runs (their summaries), histograms, phases, positions, jobs and
 * devices stay, so the history keeps every result and loses only its time series.
 *
 * A step walks the old runs in started_usec order (runs_started) and removes the samples of one
 * run after the other by primary key range, from its end. Its DbPrune remembers where it stopped, so a prune of
 * years of history visits each run once, however many steps it takes.
 */

#include <errno.h>
#include <inttypes.h>
#include <sqlite3.h>
#include <string.h>

#include "store/db-internal.h"
#include "store/db.h"

/* The next old run that has samples, from p->from_usec on: 1 with *ret_run and *ret_started, 0
 * when there is none, or -errno. */
static int prune_next_run(Db *db, const DbPrune *p, uint64_t *ret_run, uint64_t *ret_started) {
        _cleanup_finalize_ sqlite3_stmt *st = NULL;
        Binder b;
        int r;

        r = db_prepare(db,
                       "SELECT r.id, r.started_usec FROM runs AS r "
                       "WHERE r.started_usec >= ?1 AND r.started_usec < ?2 AND r.status != 'running' "
                       "AND EXISTS (SELECT 1 FROM sample_data AS d WHERE d.run_id = r.id) "
                       "ORDER BY r.started_usec, r.id LIMIT 1",
                       &st);
        if (r < 0)
                return r;
        b = binder(st);
        bind_u64(&b, p->from_usec);
        bind_u64(&b, MIN(p->before_usec, (uint64_t) INT64_MAX));
        r = binder_done(db, &b);
        if (r < 0)
                return r;
        r = db_step_row(db, st);
        if (r <= 0)
                return r;
        *ret_run = column_u64(st, 0);
        *ret_started = column_u64(st, 1);
        return 1;
}

/* Removes the last max samples of the run (in t_ms order), so that what stays of a run between
 * two steps still has the samples its implied intervals are derived from; *ret_n how many went. */
static int prune_run_samples(Db *db, uint64_t run_id, uint64_t max, uint64_t *ret_n) {
        _cleanup_finalize_ sqlite3_stmt *st = NULL;
        Binder b;
        int r, n;

        r = db_prepare(db,
                       "DELETE FROM sample_data WHERE run_id = ?1 AND t_ms >= "
                       "(SELECT min(t_ms) FROM (SELECT t_ms FROM sample_data WHERE run_id = ?1 "
                       "ORDER BY t_ms DESC LIMIT ?2))",
                       &st);
        if (r < 0)
                return r;
        b = binder(st);
        bind_u64(&b, run_id);
        bind_u64(&b, MIN(max, (uint64_t) INT64_MAX));
        r = binder_done(db, &b);
        if (r < 0)
                return r;
        r = db_step_row(db, st);
        if (r < 0)
                return r;
        n = sqlite3_changes(db->sqlite);
        *ret_n = n > 0 ? (uint64_t) n : 0;
        return 0;
}

int db_prune_step(Db *db, DbPrune *p, uint64_t max_samples) {
        DbPrune next;
        uint64_t left = max_samples;
        int more = 0, r;

        if (!p || max_samples == 0)
                return -EINVAL;
        if (p->before_usec == 0)
                return 0;

        r = db_begin(db);
        if (r < 0)
                return r;

        /* Progress is taken over only when the step commits. */
        next = *p;
        while (left > 0) {
                uint64_t run, started, n = 0;

                r = prune_next_run(db, &next, &run, &started);
                if (r < 0)
                        goto fail;
                if (r == 0) {
                        more = 0;
                        break;
                }
                r = prune_run_samples(db, run, left, &n);
                if (r < 0)
                        goto fail;
                if (run != next.last_run)
                        next.runs++;
                next.last_run = run;
                next.from_usec = started;
                next.samples += n;
                left -= MIN(n, left);
                more = 1;
        }

        r = db_commit(db);
        if (r < 0)
                goto fail;
        *p = next;
        return more;

fail:
        db_rollback(db);
        return r;
}

int db_file_stats(Db *db, DbFileStats *ret) {
        int64_t page_size, pages, free_pages, auto_vacuum;
        int r;

        r = db_pragma_int(db, "PRAGMA page_size", &page_size);
        if (r >= 0)
                r = db_pragma_int(db, "PRAGMA page_count", &pages);
        if (r >= 0)
                r = db_pragma_int(db, "PRAGMA freelist_count", &free_pages);
        if (r >= 0)
                r = db_pragma_int(db, "PRAGMA auto_vacuum", &auto_vacuum);
        if (r < 0)
                return r;
        *ret = (DbFileStats) {
                .page_size = (uint64_t) MAX(page_size, 0),
                .pages = (uint64_t) MAX(pages, 0),
                .free_pages = (uint64_t) MAX(free_pages, 0),
                .auto_vacuum = (int) auto_vacuum,
        };
        return 0;
}

int db_vacuum_step(Db *db, uint64_t max_pages) {
        _cleanup_finalize_ sqlite3_stmt *st = NULL;
        char sql[64];
        DbFileStats fs;
        int rc, r;

        if (max_pages == 0)
                return -EINVAL;
        r = db_file_stats(db, &fs);
        if (r < 0)
                return r;
        if (fs.auto_vacuum != 2)
                return 0;
        if (fs.free_pages > 0) {
                /* PRAGMA takes no parameters; this is our own integer. */
                snprintf(sql, sizeof(sql), "PRAGMA incremental_vacuum(%" PRIu64 ")", MIN(max_pages, (uint64_t) INT32_MAX));
                r = db_prepare(db, sql, &st);
                if (r < 0)
                        return r;
                while ((rc = sqlite3_step(st)) == SQLITE_ROW)
                        ;
                if (rc != SQLITE_DONE)
                        return db_fail(db, rc);
                r = db_file_stats(db, &fs);
                if (r < 0)
                        return r;
                if (fs.free_pages > 0)
                        return 1;
        }
        /* In WAL mode the file is cut to its new size when a checkpoint copies the last frames
         * back; a passive one never waits for readers (a later one finishes the job). */
        (void) sqlite3_wal_checkpoint_v2(db->sqlite, NULL, SQLITE_CHECKPOINT_PASSIVE, NULL, NULL);
        return 0;
}
