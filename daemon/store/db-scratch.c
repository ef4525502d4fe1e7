/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The bindings of ScratchDevices= paths (schema/0014-scratch-bindings.sql): which identity a
 * kernel name or link was bound to when benchd first saw the device, kept until benchd.conf is
 * written again (its modification time is the key's second half), so that a restart after a
 * swap or a reboot does not bind the name to whatever disk carries it now. Statements are
 * prepared per call: a few per start and per device that appears.
 */
#include <errno.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "store/db-internal.h"
#include "store/db.h"
#include "shared/util.h"

int db_scratch_binding_get(Db *db, const char *spelling, int64_t conf_mtime_nsec, char **ret_identity) {
        _cleanup_finalize_ sqlite3_stmt *st = NULL;
        const char *identity;
        Binder b;
        int r;

        if (!spelling)
                return db_fail_msg(db, -EINVAL, "scratch binding without a name");
        r = db_prepare(db, "SELECT identity FROM scratch_bindings WHERE spelling = ? AND conf_mtime_nsec = ?", &st);
        if (r < 0)
                return r;
        b = binder(st);
        bind_text(&b, spelling);
        bind_i64(&b, conf_mtime_nsec);
        r = binder_done(db, &b);
        if (r < 0)
                return r;
        r = db_step_row(db, st);
        if (r <= 0)
                return r;
        identity = column_text(st, 0);
        if (!identity)
                return 0;
        *ret_identity = strdup(identity);
        return *ret_identity ? 1 : -ENOMEM;
}

int db_scratch_binding_set(Db *db, const char *spelling, const char *identity, int64_t conf_mtime_nsec,
                           uint64_t now_usec) {
        _cleanup_finalize_ sqlite3_stmt *st = NULL;
        Binder b;
        int r;

        if (!spelling || !identity)
                return db_fail_msg(db, -EINVAL, "scratch binding without a name or identity");
        r = db_prepare(db,
                       "INSERT INTO scratch_bindings (spelling, identity, conf_mtime_nsec, bound_usec) "
                       "VALUES (?1, ?2, ?3, ?4) ON CONFLICT (spelling) DO UPDATE SET identity = excluded.identity, "
                       "conf_mtime_nsec = excluded.conf_mtime_nsec, bound_usec = excluded.bound_usec", &st);
        if (r < 0)
                return r;
        b = binder(st);
        bind_text(&b, spelling);
        bind_text(&b, identity);
        bind_i64(&b, conf_mtime_nsec);
        bind_u64(&b, now_usec);
        r = binder_done(db, &b);
        if (r < 0)
                return r;
        return db_step_done(db, st);
}
