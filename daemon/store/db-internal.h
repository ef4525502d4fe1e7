/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Private to the store's files (db.c, db-query.c, db-regress.c, db-prune.c, db-autorun.c): the Db
 * connection, the one place SQLite result codes become errnos (db_fail(), defined in db.c), and
 * the small statement helpers they share. db.c opens, migrates and writes; db-query.c reads;
 * db-regress.c checks runs for regressions; db-prune.c removes old samples in bounded steps;
 * db-autorun.c keeps the disks benchmarked when they appeared. Nothing outside the store
 * includes this header, and nothing here is a contract: db.h is.
 */
#pragma once

#include <inttypes.h>
#include <sqlite3.h>
#include <stdbool.h>
#include <stdint.h>

#include "store/db.h"

/* The statements prepared once and cached in the Db (their SQL is in db.c). */
typedef enum DbStmt {
        STMT_BEGIN,
        STMT_COMMIT,
        STMT_ROLLBACK,
        STMT_JOB_INSERT,
        STMT_JOB_SET_STATE,
        STMT_RUN_BEGIN,
        STMT_RUN_SET_FS,
        STMT_RUN_FINISH,
        STMT_RUN_FINISH_RESULT,
        STMT_RUN_INTERRUPT_STALE,
        STMT_RUN_EXISTS,
        STMT_SAMPLE_PREV,
        STMT_SAMPLE_KEEP_NEXT,
        STMT_HISTOGRAM_DELETE,
        STMT_HISTOGRAM_INSERT,
        STMT_DEVICE_UPSERT,
        STMT_DEVICE_ID,
        STMT_DEVICE_EXISTS,
        STMT_DEVICE_COUNT_RUNS,
        _STMT_MAX,
} DbStmt;

struct Db {
        sqlite3 *sqlite;
        sqlite3_stmt *stmts[_STMT_MAX];
        char error[1024];
        DbExplainHook explain;          /* db_set_explain_hook() */
        void *explain_userdata;
};

/* ---- errors (db.c) ---- */

/* Keeps sqlite3_errmsg() for db_last_error() and returns the errno for rc. */
int db_fail(Db *db, int rc);
/* Keeps the formatted message for db_last_error() and returns r. */
_printf_(3, 4) int db_fail_msg(Db *db, int r, const char *fmt, ...);

/* ---- statements (db.c) ---- */

/* A statement prepared for one call; the caller finalizes it (_cleanup_finalize_). */
int db_prepare(Db *db, const char *sql, sqlite3_stmt **ret);
/* The cached statement id; the caller resets it (_cleanup_reset_) when done. */
int db_stmt(Db *db, DbStmt id, sqlite3_stmt **ret);
/* Steps a statement expected to return one row: 1 with the row, 0 without, or -errno. */
int db_step_row(Db *db, sqlite3_stmt *st);
/* Steps a statement expected to finish without rows (or whose rows we ignore): 0 or -errno. */
int db_step_done(Db *db, sqlite3_stmt *st);
/* BEGIN IMMEDIATE, COMMIT, and a ROLLBACK that keeps the message of the failure before it. */
/* The integer a PRAGMA query (sql) returns; 0 when it returns no row. */
int db_pragma_int(Db *db, const char *sql, int64_t *ret);
int db_begin(Db *db);
int db_commit(Db *db);
void db_rollback(Db *db);
/* Steps st to the end, handing every row to cb (may be NULL) as named fields (db-query.c). Returns
 * the number of rows, the first negative return of cb, or -errno. */
int db_emit_rows(Db *db, sqlite3_stmt *st, DbRowCallback cb, void *userdata);
/* 0 when the run exists, -ENOENT (with a message) when it does not, or -errno. */
int db_run_exists(Db *db, uint64_t run_id);
/* The names of md arrays or volume groups the runs recorded (db-md.c). */
int db_layout_names_recorded(Db *db, const char *column, bool idle, uint64_t own_run, char ***ret);

/* ---- SQL functions of our own (db-query.c), registered on every connection db_open() makes ---- */

/* benchd_m2(x), the aggregate CompareRuns' standard deviations come from. */
int db_register_functions(Db *db);

static inline void stmt_resetp(sqlite3_stmt **st) {
        if (*st) {
                sqlite3_reset(*st);
                sqlite3_clear_bindings(*st);
        }
}
#define _cleanup_reset_ _cleanup_(stmt_resetp)

static inline void stmt_finalizep(sqlite3_stmt **st) {
        sqlite3_finalize(*st);
}
#define _cleanup_finalize_ _cleanup_(stmt_finalizep)

/* Binds parameters in order, remembering the first failure, so call sites read as a list. */
typedef struct Binder {
        sqlite3_stmt *st;
        int idx;
        int rc;
        bool overflow;
} Binder;

static inline Binder binder(sqlite3_stmt *st) {
        return (Binder) { .st = st, .idx = 1, .rc = SQLITE_OK };
}

static inline void bind_rc(Binder *b, int rc) {
        if (b->rc == SQLITE_OK && rc != SQLITE_OK)
                b->rc = rc;
        b->idx++;
}

static inline void bind_null(Binder *b) {
        bind_rc(b, sqlite3_bind_null(b->st, b->idx));
}

static inline void bind_text(Binder *b, const char *s) {
        if (!s)
                return bind_null(b);
        bind_rc(b, sqlite3_bind_text(b->st, b->idx, s, -1, SQLITE_STATIC));
}

/* A text the statement keeps a copy of (for a buffer that goes before the statement steps). */
static inline void bind_text_copy(Binder *b, const char *s) {
        if (!s)
                return bind_null(b);
        bind_rc(b, sqlite3_bind_text(b->st, b->idx, s, -1, SQLITE_TRANSIENT));
}

static inline void bind_i64(Binder *b, int64_t v) {
        bind_rc(b, sqlite3_bind_int64(b->st, b->idx, v));
}

static inline void bind_u64(Binder *b, uint64_t v) {
        if (v > (uint64_t) INT64_MAX) {
                b->overflow = true;
                return bind_null(b);
        }
        bind_i64(b, (int64_t) v);
}

/* 0 becomes NULL: "not yet", "none". */
static inline void bind_u64_or_null(Binder *b, uint64_t v) {
        if (v == 0)
                return bind_null(b);
        bind_u64(b, v);
}

static inline void bind_double(Binder *b, double v) {
        bind_rc(b, sqlite3_bind_double(b->st, b->idx, v));
}

/* Negative means unknown (dev_util_pct, dev_queue) and is stored as NULL. */
static inline void bind_double_or_null(Binder *b, double v) {
        if (!(v >= 0))
                return bind_null(b);
        bind_double(b, v);
}

static inline int binder_done(Db *db, const Binder *b) {
        if (b->rc != SQLITE_OK)
                return db_fail(db, b->rc);
        if (b->overflow)
                return db_fail_msg(db, -ERANGE, "value too large for an SQLite INTEGER");
        return 0;
}

/* Runs st, bound by b, as a write of one row of `what` (a job, a run): -ENOENT, "no <what> <id>",
 * when it changed none; 0 when it did. */
static inline int db_step_changed_one(Db *db, const Binder *b, sqlite3_stmt *st, const char *what, uint64_t id) {
        int r = binder_done(db, b);

        if (r >= 0)
                r = db_step_done(db, st);
        if (r < 0)
                return r;
        if (sqlite3_changes(db->sqlite) == 0)
                return db_fail_msg(db, -ENOENT, "no %s %" PRIu64, what, id);
        return 0;
}

/* Runs st, bound by b, as a look-up of one row of `what`: -ENOENT, "no <what> <id>", when there is
 * none; 0 with the row to read. */
static inline int db_step_found_one(Db *db, const Binder *b, sqlite3_stmt *st, const char *what, uint64_t id) {
        int r = binder_done(db, b);

        if (r >= 0)
                r = db_step_row(db, st);
        if (r < 0)
                return r;
        if (r == 0)
                return db_fail_msg(db, -ENOENT, "no %s %" PRIu64, what, id);
        return 0;
}

static inline const char *column_text(sqlite3_stmt *st, int i) {
        return (const char *) sqlite3_column_text(st, i);
}

static inline uint64_t column_u64(sqlite3_stmt *st, int i) {
        int64_t v = sqlite3_column_int64(st, i);
        return v > 0 ? (uint64_t) v : 0;
}
