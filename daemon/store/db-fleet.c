/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A run's part in a fleet run (schema/0019-fleet.sql): the fleet's uuid and the host's name when
 * the run begins, the clock offset, round trip and start time when Job.Start starts its step.
 * Statements are prepared per call: at most two per fleet step.
 */
#include <errno.h>
#include <inttypes.h>
#include <sqlite3.h>

#include "store/db-internal.h"
#include "store/db.h"
#include "shared/util.h"

int db_run_set_fleet(Db *db, uint64_t run_id, const DbRunFleet *f) {
        _cleanup_finalize_ sqlite3_stmt *st = NULL;
        Binder b;
        int r;

        if (!f || !f->uuid)
                return db_fail_msg(db, -EINVAL, "fleet run without a uuid");
        r = db_prepare(db,
                       "UPDATE runs SET fleet_uuid = ?, fleet_host = ?, fleet_clock_offset_us = ?, fleet_rtt_us = ?, "
                       "fleet_start_usec = ?, fleet_start_corrected = ? WHERE id = ?", &st);
        if (r < 0)
                return r;
        b = binder(st);
        bind_text(&b, f->uuid);
        bind_text(&b, f->host);
        if (f->started) {
                bind_i64(&b, f->clock_offset_us);
                bind_u64(&b, f->rtt_us);
                bind_u64(&b, f->start_usec);
                bind_i64(&b, f->corrected);
        } else {
                bind_null(&b);
                bind_null(&b);
                bind_null(&b);
                bind_null(&b);
        }
        bind_u64(&b, run_id);
        return db_step_changed_one(db, &b, st, "run", run_id);
}
