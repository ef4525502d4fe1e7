/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libFuzzer target: arbitrary text as an ImportRuns document (benchctl import; another host's
 * benchctl export --format=benchd, so anyone's). It goes the daemon's way: the document through
 * db_import_document_parse(), each run through db_run_import(). The run's checks are SQLite's JSON
 * functions and the schema's CHECKs, done as the run is written, so there is no parse to stop at
 * before the database: the runs go into an in-memory database with the real schema (db_open()
 * migrates it), emptied again after every input so that inputs do not depend on each other.
 *
 * What must hold: a refusal says why (the document's message; db_last_error() for a run); a run
 * that imports is found by its uuid the second time (0: nothing written), the way a document
 * imported twice adds nothing; an imported run can be read back with GetRun's query (db_run_get).
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
        for (size_t i = 0; i < n && i < FUZZ_RUNS_MAX; i++) {
                json_object *run = json_object_array_get_idx(runs, i);
                const char *run_json;
                uint64_t id = 0, again = 0;

                if (!json_object_is_type(run, json_type_object))
                        continue; /* import_now() refuses the document here */
                run_json = json_object_to_json_string_ext(run, JSON_C_TO_STRING_PLAIN);
                r = db_run_import(db, run_json, host, &id);
                if (r < 0) {
                        if (r == -ENOMEM)
                                abort();
                        if (!db_last_error(db)[0])
                                abort(); /* a refusal must say which column and why */
                        continue;
                }
                if (r == 0)
                        continue; /* a run of this uuid came earlier in the document */
                if (id == 0)
                        abort();
                r = db_run_import(db, run_json, host, &again);
                if (r != 0)
                        abort(); /* the second import of a run must add nothing */
                json_object *uuid;
                RunBack back = {};
                if (!json_object_object_get_ex(run, "uuid", &uuid))
                        abort();
                back.uuid = json_object_get_string(uuid);
                if (db_get_run(db, id, on_run_row, &back) < 0 || back.rows != 1)
                        abort();
        }
        empty_db();
        return 0;
}
