/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The LVM layouts' columns of a run (schema/0023-lvm-layout.sql; the volume group's name is written
 * by the run's insert, db_run_begin()): the logical volume's extents and size once the worker
 * reported, and the names recorded, which lvm-leftovers looks for. Statements are prepared per
 * call: one per LVM step, one per start-up.
 */
#include <errno.h>
#include <inttypes.h>
#include <sqlite3.h>
#include <stdlib.h>

#include "store/db-internal.h"
#include "store/db.h"
#include "shared/proto.h"
#include "shared/strv.h"
#include "shared/util.h"

int db_run_set_lv(Db *db, uint64_t run_id, const DbRunFs *fs) {
        _cleanup_finalize_ sqlite3_stmt *st = NULL;
        Binder b;
        int r;

        if (!fs || fs->lv_extents == 0 || fs->lv_bytes == 0)
                return 0;
        r = db_prepare(db, "UPDATE runs SET lv_extents = ?, lv_bytes = ? WHERE id = ?", &st);
        if (r < 0)
                return r;
        b = binder(st);
        bind_u64(&b, fs->lv_extents);
        bind_u64(&b, fs->lv_bytes);
        bind_u64(&b, run_id);
        r = binder_done(db, &b);
        if (r < 0)
                return r;
        r = db_step_done(db, st);
        if (r < 0)
                return r;
        if (sqlite3_changes(db->sqlite) == 0)
                return db_fail_msg(db, -ENOENT, "no run %" PRIu64, run_id);
        return 0;
}

/* The 1024 newest names: more groups than that are never active at once (each step deactivates its
 * own, and lvm-leftovers what a killed one left). */
int db_lvm_vgs_recorded(Db *db, bool idle, uint64_t own_run, char ***ret) {
        return db_layout_names_recorded(db, "lvm_vg", idle, own_run, ret);
}
