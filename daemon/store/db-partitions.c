/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The partitions a step's worker may have left in the kernel (db.h, db_partition_runs_foreach()):
 * runs of partitions= still running (this host's: an imported run is never ours), with the
 * identities their job recorded for the members at SubmitJob (jobs.steps,
 * schema/0003-job-steps.sql), which part-leftovers compares with the devices as they are now. One statement at start-up and after a step of partitions=.
 */
#include <errno.h>
#include <sqlite3.h>
#include <stdlib.h>

#include "store/db-internal.h"
#include "store/db.h"
#include "shared/util.h"

int db_partition_runs_foreach(Db *db, uint64_t own_run, int (*cb)(const DbPartitionRun *r, void *userdata),
                              void *userdata) {
        _cleanup_finalize_ sqlite3_stmt *st = NULL;
        Binder b;
        int k;

        k = db_prepare(db,
                       "SELECT r.id, r.job_id, r.partitions, json_extract(j.steps, '$[' || r.step || '].members') "
                       "FROM runs AS r JOIN jobs AS j ON j.id = r.job_id "
                       "WHERE r.partitions IS NOT NULL AND r.status = 'running' AND r.origin_host IS NULL "
                       "AND (?1 = 0 OR r.id = ?1) "
                       "ORDER BY r.id", &st);
        if (k < 0)
                return k;
        b = binder(st);
        bind_u64(&b, own_run);
        k = binder_done(db, &b);
        if (k < 0)
                return k;
        while ((k = db_step_row(db, st)) > 0) {
                k = cb(&(DbPartitionRun) {
                                .run_id = column_u64(st, 0),
                                .job_id = column_u64(st, 1),
                                .partitions = (uint32_t) column_u64(st, 2),
                                .members_json = column_text(st, 3),
                        }, userdata);
                if (k < 0)
                        return k;
        }
        return k;
}
