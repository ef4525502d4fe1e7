/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The store's side of benchmarks when a disk appears (schema/0011-autoruns.sql): whether the
 * devices table knows an identity, and the autoruns rows that make "at most one job per identity
 * and firmware" hold across restarts. The job and the row that says it was queued are written in
 * one transaction, so a crash between the two can neither lose the mark (and queue a second job
 * later) nor leave a mark without its job. Statements are prepared per call: these run once per
 * disk that appears, not on a hot path.
 */
#include <errno.h>
#include <inttypes.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "store/db-internal.h"
#include "store/db.h"
#include "shared/util.h"

int db_device_find(Db *db, const char *identity, char **ret_firmware) {
        _cleanup_finalize_ sqlite3_stmt *st = NULL;
        const char *fw;
        Binder b;
        int r;

        if (!identity)
                return db_fail_msg(db, -EINVAL, "device without identity");
        r = db_prepare(db, "SELECT firmware FROM devices WHERE identity = ?", &st);
        if (r < 0)
                return r;
        b = binder(st);
        bind_text(&b, identity);
        r = binder_done(db, &b);
        if (r < 0)
                return r;
        r = db_step_row(db, st);
        if (r <= 0)
                return r;
        if (ret_firmware) {
                fw = column_text(st, 0);
                if (fw && !(*ret_firmware = strdup(fw)))
                        return -ENOMEM;
                if (!fw)
                        *ret_firmware = NULL;
        }
        return 1;
}

int db_device_find_model(Db *db, const char *model, const char *name, char **ret_firmware) {
        _cleanup_finalize_ sqlite3_stmt *st = NULL;
        const char *fw;
        Binder b;
        int r;

        if (!name)
                return db_fail_msg(db, -EINVAL, "device without a name");
        /* devices.identity of such a device is model:<model>:<size>:<name>, with last_name its name. */
        r = db_prepare(db, "SELECT firmware FROM devices WHERE identity GLOB 'model:*' AND wwn IS NULL AND "
                       "serial IS NULL AND COALESCE(model, '') = ? AND last_name = ? "
                       "ORDER BY last_seen_usec DESC LIMIT 1", &st);
        if (r < 0)
                return r;
        b = binder(st);
        bind_text(&b, model ?: "");
        bind_text(&b, name);
        r = binder_done(db, &b);
        if (r < 0)
                return r;
        r = db_step_row(db, st);
        if (r <= 0)
                return r;
        if (ret_firmware) {
                fw = column_text(st, 0);
                if (fw && !(*ret_firmware = strdup(fw)))
                        return -ENOMEM;
                if (!fw)
                        *ret_firmware = NULL;
        }
        return 1;
}

int db_autorun_get(Db *db, const char *identity, const char *firmware, DbAutorunState *ret_state,
                   int64_t *ret_id, uint64_t *ret_job) {
        _cleanup_finalize_ sqlite3_stmt *st = NULL;
        Binder b;
        int r;

        r = db_prepare(db, "SELECT id, state, job_id FROM autoruns WHERE identity = ? AND firmware = ?", &st);
        if (r < 0)
                return r;
        b = binder(st);
        bind_text(&b, identity);
        bind_text(&b, firmware ?: "");
        r = binder_done(db, &b);
        if (r < 0)
                return r;
        r = db_step_row(db, st);
        if (r < 0)
                return r;
        if (r == 0) {
                *ret_state = DB_AUTORUN_NONE;
                if (ret_id)
                        *ret_id = 0;
                if (ret_job)
                        *ret_job = 0;
                return 0;
        }
        *ret_state = streq_ptr(column_text(st, 1), "queued") ? DB_AUTORUN_QUEUED : DB_AUTORUN_WAITING;
        if (ret_id)
                *ret_id = sqlite3_column_int64(st, 0);
        if (ret_job)
                *ret_job = column_u64(st, 2);
        return 0;
}

int db_autorun_add(Db *db, const char *identity, const char *firmware, const char *profile,
                   const char *device_name, uint64_t now_usec, int64_t *ret_id) {
        _cleanup_finalize_ sqlite3_stmt *st = NULL;
        DbAutorunState state;
        Binder b;
        int r;

        if (!identity || !profile)
                return db_fail_msg(db, -EINVAL, "autorun without identity or profile");
        r = db_prepare(db,
                       "INSERT INTO autoruns (identity, firmware, profile, device_name, appeared_usec) "
                       "VALUES (?1, ?2, ?3, ?4, ?5) ON CONFLICT (identity, firmware) DO UPDATE SET "
                       "profile = excluded.profile, device_name = excluded.device_name WHERE state = 'waiting'",
                       &st);
        if (r < 0)
                return r;
        b = binder(st);
        bind_text(&b, identity);
        bind_text(&b, firmware ?: "");
        bind_text(&b, profile);
        bind_text(&b, device_name);
        bind_u64(&b, now_usec);
        r = binder_done(db, &b);
        if (r < 0)
                return r;
        r = db_step_done(db, st);
        if (r < 0)
                return r;
        return db_autorun_get(db, identity, firmware, &state, ret_id, NULL);
}

static int db_autorun_exists(Db *db, int64_t id) {
        _cleanup_finalize_ sqlite3_stmt *st = NULL;
        Binder b;
        int r;

        r = db_prepare(db, "SELECT 1 FROM autoruns WHERE id = ?", &st);
        if (r < 0)
                return r;
        b = binder(st);
        bind_i64(&b, id);
        r = binder_done(db, &b);
        if (r < 0)
                return r;
        r = db_step_row(db, st);
        if (r < 0)
                return r;
        return r > 0 ? 0 : db_fail_msg(db, -ENOENT, "no autorun %" PRIi64, id);
}

int db_autorun_set_reason(Db *db, int64_t id, const char *reason) {
        _cleanup_finalize_ sqlite3_stmt *st = NULL;
        Binder b;
        int r;

        r = db_prepare(db, "UPDATE autoruns SET reason = ?1 WHERE id = ?2 AND reason IS NOT ?1", &st);
        if (r < 0)
                return r;
        b = binder(st);
        bind_text(&b, reason);
        bind_i64(&b, id);
        r = binder_done(db, &b);
        if (r < 0)
                return r;
        r = db_step_done(db, st);
        if (r < 0)
                return r;
        if (sqlite3_changes(db->sqlite) > 0)
                return 1;
        r = db_autorun_exists(db, id);
        return r < 0 ? r : 0;
}

int db_job_insert_autorun(Db *db, const DbJob *job, int64_t autorun_id, uint64_t *ret_id) {
        _cleanup_finalize_ sqlite3_stmt *st = NULL;
        uint64_t id;
        Binder b;
        int r;

        r = db_prepare(db,
                       "UPDATE autoruns SET state = 'queued', job_id = ?, queued_usec = ?, reason = NULL "
                       "WHERE id = ? AND state = 'waiting'",
                       &st);
        if (r < 0)
                return r;
        r = db_begin(db);
        if (r < 0)
                return r;
        r = db_job_insert(db, job, &id);
        if (r < 0)
                goto fail;
        b = binder(st);
        bind_u64(&b, id);
        bind_u64(&b, job->submitted_usec);
        bind_i64(&b, autorun_id);
        r = binder_done(db, &b);
        if (r >= 0)
                r = db_step_done(db, st);
        if (r < 0)
                goto fail;
        if (sqlite3_changes(db->sqlite) == 0) {
                r = db_fail_msg(db, -EALREADY, "autorun %" PRIi64 " is not waiting: its job was queued already",
                                autorun_id);
                goto fail;
        }
        r = db_commit(db);
        if (r < 0)
                goto fail;
        if (ret_id)
                *ret_id = id;
        return 0;
fail:
        db_rollback(db);
        return r;
}
