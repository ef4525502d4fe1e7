/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The devices table: a disk recorded by its identity (upserted as udev reports it), whether one
 * is known, and how many runs were measured on it. The statements are db.c's cached ones
 * (db-internal.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/db-internal.h"
#include "store/db.h"
#include "shared/util.h"

int db_device_upsert(Db *db, const DbDevice *d, int64_t *ret_id) {
        _cleanup_reset_ sqlite3_stmt *st = NULL, *q = NULL;
        Binder b;
        int r;

        if (!d || !d->identity)
                return db_fail_msg(db, -EINVAL, "device without identity");

        r = db_stmt(db, STMT_DEVICE_UPSERT, &st);
        if (r < 0)
                return r;
        r = db_stmt(db, STMT_DEVICE_ID, &q);
        if (r < 0)
                return r;

        b = binder(st);
        bind_text(&b, d->identity);
        bind_text(&b, d->model);
        bind_text(&b, d->vendor);
        bind_text(&b, d->serial);
        bind_text(&b, d->wwn);
        bind_text(&b, d->firmware);
        bind_u64(&b, d->size);
        if (d->rotational >= 0)
                bind_i64(&b, d->rotational ? 1 : 0);
        else
                bind_null(&b);
        bind_u64_or_null(&b, d->logical_block_size);
        bind_u64_or_null(&b, d->physical_block_size);
        bind_u64(&b, d->seen_usec > 0 ? d->seen_usec : now_usec(CLOCK_REALTIME));
        bind_text(&b, d->name);
        r = binder_done(db, &b);
        if (r < 0)
                return r;

        r = db_step_done(db, st);
        if (r < 0)
                return r;

        b = binder(q);
        bind_text(&b, d->identity);
        r = binder_done(db, &b);
        if (r < 0)
                return r;
        r = db_step_row(db, q);
        if (r < 0)
                return r;
        if (r == 0)
                return db_fail_msg(db, -EIO, "device '%s' vanished after upsert", d->identity);

        if (ret_id)
                *ret_id = sqlite3_column_int64(q, 0);
        return 0;
}

int db_device_count_runs(Db *db, int64_t device_id, uint64_t *ret) {
        _cleanup_reset_ sqlite3_stmt *ex = NULL, *st = NULL;
        Binder b;
        int r;

        r = db_stmt(db, STMT_DEVICE_EXISTS, &ex);
        if (r < 0)
                return r;
        b = binder(ex);
        bind_i64(&b, device_id);
        r = binder_done(db, &b);
        if (r < 0)
                return r;
        r = db_step_row(db, ex);
        if (r < 0)
                return r;
        if (r == 0)
                return db_fail_msg(db, -ENOENT, "no device %" PRIi64, device_id);

        r = db_stmt(db, STMT_DEVICE_COUNT_RUNS, &st);
        if (r < 0)
                return r;
        b = binder(st);
        bind_i64(&b, device_id);
        r = binder_done(db, &b);
        if (r < 0)
                return r;
        r = db_step_row(db, st);
        if (r < 0)
                return r;

        if (ret)
                *ret = r > 0 ? column_u64(st, 0) : 0;
        return 0;
}
