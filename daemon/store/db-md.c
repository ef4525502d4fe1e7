/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The md layouts' columns of a run (schema/0021-md-layout.sql): the array's name and resync mode
 * when the run begins (before its worker creates the array), what built it once the worker
 * reported, and the names recorded, which md-leftovers looks for. Statements are prepared per
 * call: at most two per md step, one per start-up.
 */
#include <errno.h>
#include <inttypes.h>
#include <sqlite3.h>
#include <stdlib.h>

#include "store/db-internal.h"
#include "store/db.h"
#include "shared/strv.h"
#include "shared/util.h"

static int set_run(Db *db, uint64_t run_id, const char *sql, void (*bind)(Binder *b, const void *data),
                   const void *data) {
        _cleanup_finalize_ sqlite3_stmt *st = NULL;
        Binder b;
        int r;

        r = db_prepare(db, sql, &st);
        if (r < 0)
                return r;
        b = binder(st);
        bind(&b, data);
        bind_u64(&b, run_id);
        return db_step_changed_one(db, &b, st, "run", run_id);
}

typedef struct MdBegin {
        const char *array, *resync;
} MdBegin;

static void bind_begin(Binder *b, const void *data) {
        const MdBegin *m = data;

        bind_text(b, m->array);
        bind_text(b, m->resync);
}

int db_run_set_md(Db *db, uint64_t run_id, const char *md_array, const char *md_resync) {
        MdBegin m = { md_array, md_resync };

        if (!md_array || !md_resync)
                return db_fail_msg(db, -EINVAL, "md run without an array name or resync mode");
        return set_run(db, run_id, "UPDATE runs SET md_array = ?, md_resync = ? WHERE id = ?", bind_begin, &m);
}

static void bind_layout(Binder *b, const void *data) {
        const DbRunFs *fs = data;

        bind_text(b, fs->layout_commands);
        bind_u64(b, fs->md_chunk_bytes);
        bind_u64(b, fs->md_resync_usec);
}

int db_run_set_layout(Db *db, uint64_t run_id, const DbRunFs *fs) {
        if (!fs || !fs->layout_commands || !fs->layout_commands[0])
                return 0;
        return set_run(db, run_id,
                       "UPDATE runs SET layout_commands = ?, md_chunk_bytes = ?, md_resync_usec = ? WHERE id = ?",
                       bind_layout, fs);
}

/* The 1024 newest names: more arrays than that are never assembled at once (each step stops its
 * own, and md-leftovers what a killed one left). */
int db_md_arrays_recorded(Db *db, char ***ret) {
        _cleanup_finalize_ sqlite3_stmt *st = NULL;
        _cleanup_strv_free_ char **names = NULL;
        int r;

        r = db_prepare(db,
                       "SELECT DISTINCT md_array FROM (SELECT md_array FROM runs WHERE md_array IS NOT NULL "
                       "ORDER BY id DESC LIMIT 1024)", &st);
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
