/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The removals of job files under way (schema/0012-pending-removals.sql, 0016-removal-uid.sql, db.h): a row before the
 * removing process starts, gone once it has finished, read back at start-up. One small statement
 * per removal, which happens once per step.
 */
#include <errno.h>
#include <sqlite3.h>
#include <stdlib.h>

#include "store/db-internal.h"
#include "store/db.h"
#include "shared/util.h"

static int removal_valid(Db *db, const DbRemoval *r) {
        if (!r || r->job_id == 0 || r->job_id > INT64_MAX || r->step < -1 || !r->target || !r->target[0] ||
            r->uid == UINT32_MAX)
                return db_fail_msg(db, -EINVAL, "a removal needs a job id, a step (-1 or more), a target and a uid");
        return 0;
}

int db_removal_begin(Db *db, const DbRemoval *r, uint64_t now_usec) {
        _cleanup_finalize_ sqlite3_stmt *st = NULL;
        Binder b;
        int k;

        k = removal_valid(db, r);
        if (k < 0)
                return k;
        k = db_prepare(db,
                       "INSERT INTO pending_removals (job_id, step, target, since_usec, uid) VALUES (?, ?, ?, ?, ?) "
                       "ON CONFLICT (job_id, step, target) DO NOTHING",
                       &st);
        if (k < 0)
                return k;
        b = binder(st);
        bind_u64(&b, r->job_id);
        bind_i64(&b, r->step);
        bind_text(&b, r->target);
        bind_u64(&b, now_usec);
        bind_u64(&b, r->uid);
        k = binder_done(db, &b);
        if (k < 0)
                return k;
        return db_step_done(db, st);
}

int db_removal_end(Db *db, const DbRemoval *r) {
        _cleanup_finalize_ sqlite3_stmt *st = NULL;
        Binder b;
        int k;

        k = removal_valid(db, r);
        if (k < 0)
                return k;
        k = db_prepare(db, "DELETE FROM pending_removals WHERE job_id = ?1 AND target = ?3 AND (step = ?2 OR ?2 = -1)",
                       &st);
        if (k < 0)
                return k;
        b = binder(st);
        bind_u64(&b, r->job_id);
        bind_i64(&b, r->step);
        bind_text(&b, r->target);
        k = binder_done(db, &b);
        if (k < 0)
                return k;
        return db_step_done(db, st);
}

int db_removal_foreach(Db *db, int (*cb)(const DbRemoval *r, void *userdata), void *userdata) {
        _cleanup_finalize_ sqlite3_stmt *st = NULL;
        int k;

        k = db_prepare(db, "SELECT job_id, step, target, uid FROM pending_removals ORDER BY since_usec, job_id, step", &st);
        if (k < 0)
                return k;
        while ((k = db_step_row(db, st)) > 0) {
                const char *target = column_text(st, 2);

                if (!target)
                        continue;
                k = cb(&(DbRemoval) {
                                .job_id = column_u64(st, 0),
                                .step = sqlite3_column_int(st, 1),
                                .target = target,
                                .uid = (uint32_t) column_u64(st, 3),
                        }, userdata);
                if (k < 0)
                        return k;
        }
        return k;
}
