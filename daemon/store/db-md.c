/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The md arrays' names the runs recorded (schema/0021-md-layout.sql; db_run_begin() writes them),
 * which md-leftovers looks for. The statement is prepared per call: after an md step, at start-up
 * and when udev reports an md or device-mapper device (for LVM too).
 */
#include <assert.h>
#include <errno.h>
#include <inttypes.h>
#include <sqlite3.h>
#include <stdlib.h>

#include "store/db-internal.h"
#include "store/db.h"
#include "shared/strv.h"
#include "shared/util.h"

/* The 1024 newest names: more arrays than that are never assembled at once (each step stops its
 * own, and md-leftovers what a killed one left). A running run's name is that of an array its
 * worker may be using; the entry's earlier runs carry the same name. */
/* The names a layout column (md_array, lvm_vg: a constant of benchd's, never the caller's text)
 * records, each once: this host's runs only. An imported run's (origin_host set, ImportRuns) names
 * an array or group of the host that measured it, which is never this host's to stop or
 * deactivate, even where a name is the same (benchd-JOB-ENTRY counts jobs on each host alone). idle leaves out those of runs still running other than own_run: their
 * workers may be using the array or group with nothing holding it open. */
int db_layout_names_recorded(Db *db, const char *column, bool idle, uint64_t own_run, char ***ret) {
        _cleanup_finalize_ sqlite3_stmt *st = NULL;
        _cleanup_strv_free_ char **names = NULL;
        char sql[512];
        Binder b;
        int r;

        assert(streq(column, "md_array") || streq(column, "lvm_vg"));
        snprintf(sql, sizeof(sql),
                 "SELECT DISTINCT %1$s FROM (SELECT %1$s FROM runs WHERE %1$s IS NOT NULL AND origin_host IS NULL "
                 "AND (?1 = 0 OR %1$s NOT IN (SELECT %1$s FROM runs WHERE status = 'running' AND "
                 "%1$s IS NOT NULL AND id != ?2)) ORDER BY id DESC LIMIT 1024)", column);
        r = db_prepare(db, sql, &st);
        if (r < 0)
                return r;
        b = binder(st);
        bind_u64(&b, idle);
        bind_u64(&b, own_run);
        r = binder_done(db, &b);
        if (r < 0)
                return r;
        for (;;) {
                const char *name;

                r = db_step_row(db, st);
                if (r < 0)
                        return r;
                if (r == 0)
                        break;
                name = column_text(st, 0);
                if (name) {
                        r = strv_push(&names, name);
                        if (r < 0)
                                return r;
                }
        }
        if (!names) {
                names = calloc(1, sizeof(char *));
                if (!names)
                        return -ENOMEM;
        }
        *ret = TAKE_PTR(names);
        return 0;
}

int db_md_arrays_recorded(Db *db, bool idle, uint64_t own_run, char ***ret) {
        return db_layout_names_recorded(db, "md_array", idle, own_run, ret);
}

int db_run_add_layout_commands(Db *db, uint64_t run_id, const char *commands) {
        _cleanup_finalize_ sqlite3_stmt *st = NULL;
        Binder b;
        int r;

        if (!commands)
                return db_fail_msg(db, -EINVAL, "no layout commands to add to run %" PRIu64, run_id);
        /* The run's commands, then the new ones, in their order. */
        r = db_prepare(db,
                       "UPDATE runs SET layout_commands = (SELECT json_group_array(json(v)) FROM ("
                       "SELECT value AS v, 0 AS g, key AS k FROM json_each(coalesce(runs.layout_commands, '[]')) "
                       "UNION ALL SELECT value, 1, key FROM json_each(?1) ORDER BY g, k)) "
                       "WHERE id = ?2 AND json_valid(?1) AND json_type(?1) = 'array'", &st);
        if (r < 0)
                return r;
        b = binder(st);
        bind_text(&b, commands);
        bind_u64(&b, run_id);
        r = binder_done(db, &b);
        if (r < 0)
                return r;
        r = db_step_done(db, st);
        if (r < 0)
                return r;
        if (sqlite3_changes(db->sqlite) == 0)
                return db_fail_msg(db, -ENOENT, "no run %" PRIu64 " to add layout commands to, or they are not a "
                                   "JSON array", run_id);
        return 0;
}
