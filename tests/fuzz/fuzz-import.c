/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libFuzzer target: arbitrary text as an ImportRuns document (benchctl import; another host's
 * benchctl export --format=benchd, so anyone's). It goes the daemon's way: the document through
 * db_import_document_parse(), its runs through db_runs_import(), which reads every column, holds
 * the run to the spec registry's and the worker's plausibility rules (proto_run_plausible()) and
 * writes the document in one transaction, into an in-memory database with the real schema
 * (db_open() migrates it), emptied again after every input so that inputs do not depend on each
 * other. "Now" is fixed, so an input means the same at every run.
 *
 * What must hold: a refusal says why (the document's message; db_last_error() for a run) and
 * leaves the database as it was (no run, sample or histogram bucket); a document that imports
 * accounts for every run (imported + skipped), adds nothing the second time (every run skipped),
 * and each of its runs can be read back by its uuid with GetRun's query (db_get_run).
 */
#include <errno.h>
#include <json-c/json.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "shared/json-util.h"
#include "shared/util.h"
#include "store/db-internal.h"
#include "store/db.h"

/* More runs than this in one input are not imported: a few show what many would. */
#define FUZZ_RUNS_MAX 8u
/* 2027-01-15: after every run of the seeds. */
#define FUZZ_NOW_USEC UINT64_C(1800000000000000)

static Db *db;

int LLVMFuzzerInitialize(int *argc, char ***argv) {
        (void) argc;
        (void) argv;
        if (db_open(":memory:", &db) < 0)
                abort();
        return 0;
}

static void empty_db(void) {
        /* Samples, histograms, phases and positions go with their run (ON DELETE CASCADE). */
        if (sqlite3_exec(db->sqlite, "DELETE FROM runs; DELETE FROM devices;", NULL, NULL, NULL) != SQLITE_OK)
                abort();
}

static int64_t rows(const char *sql) {
        sqlite3_stmt *st = NULL;
        int64_t n;

        if (sqlite3_prepare_v2(db->sqlite, sql, -1, &st, NULL) != SQLITE_OK || sqlite3_step(st) != SQLITE_ROW)
                abort();
        n = sqlite3_column_int64(st, 0);
        sqlite3_finalize(st);
        return n;
}

/* The id of the run of this uuid (0: none). */
static uint64_t run_id_of(const char *uuid) {
        sqlite3_stmt *st = NULL;
        uint64_t id = 0;

        if (sqlite3_prepare_v2(db->sqlite, "SELECT id FROM runs WHERE uuid = ?", -1, &st, NULL) != SQLITE_OK ||
            sqlite3_bind_text(st, 1, uuid, -1, SQLITE_STATIC) != SQLITE_OK)
                abort();
        if (sqlite3_step(st) == SQLITE_ROW)
                id = (uint64_t) sqlite3_column_int64(st, 0);
        sqlite3_finalize(st);
        return id;
}

/* GetRun's row of an imported run: exactly one, with the document's uuid. */
typedef struct RunBack {
        const char *uuid;
        unsigned rows;
} RunBack;

static int on_run_row(const DbField *fields, size_t n_fields, void *userdata) {
        RunBack *back = userdata;

        back->rows++;
        for (size_t i = 0; i < n_fields; i++)
                if (fields[i].name && streq(fields[i].name, "uuid") &&
                    (fields[i].type != DB_FIELD_TEXT || !streq(fields[i].s, back->uuid)))
                        abort();
        return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        _cleanup_json_ json_object *doc = NULL;
        _cleanup_free_ char *text = NULL, *err = NULL;
        json_object *runs;
        const char *host;
        uint64_t imported = 0, skipped = 0;
        size_t n;
        int r;

        text = malloc(size + 1);
        if (!text)
                return 0;
        memcpy(text, data, size);
        text[size] = 0;

        r = db_import_document_parse(text, &doc, &host, &runs, &err);
        if (r < 0) {
                if (r != -EINVAL || !err || !err[0])
                        abort();
                return 0;
        }
        if (!host || !host[0] || !json_object_is_type(runs, json_type_array))
                abort();

        n = json_object_array_length(runs);
        if (n > FUZZ_RUNS_MAX) {
                json_object_array_del_idx(runs, FUZZ_RUNS_MAX, n - FUZZ_RUNS_MAX);
                n = FUZZ_RUNS_MAX;
        }
        r = db_runs_import(db, runs, host, FUZZ_NOW_USEC, &imported, &skipped);
        if (r < 0) {
                if (r == -ENOMEM || !db_last_error(db)[0])
                        abort(); /* a refusal must say which run and column, and why */
                if (rows("SELECT count(*) FROM runs") != 0 || rows("SELECT count(*) FROM sample_data") != 0 ||
                    rows("SELECT count(*) FROM run_histograms") != 0)
                        abort(); /* nothing of a refused document is kept */
                return 0;
        }
        if (imported + skipped != n || rows("SELECT count(*) FROM runs") != (int64_t) imported)
                abort();
        /* The second import of the document adds nothing. */
        if (db_runs_import(db, runs, host, FUZZ_NOW_USEC, &imported, &skipped) != 0 || imported != 0 ||
            skipped != n)
                abort();
        for (size_t i = 0; i < n; i++) {
                json_object *uuid;
                RunBack back = {};
                uint64_t id;

                if (!json_object_object_get_ex(json_object_array_get_idx(runs, i), "uuid", &uuid))
                        abort();
                back.uuid = json_object_get_string(uuid);
                id = run_id_of(back.uuid);
                if (id == 0 || db_get_run(db, id, on_run_row, &back) < 0 || back.rows != 1)
                        abort();
        }
        empty_db();
        return 0;
}
