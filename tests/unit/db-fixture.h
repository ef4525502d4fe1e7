/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A real SQLite file in a fresh temporary directory for each test case of the store's tests:
 * setup() makes the directory, teardown() removes the file with its WAL, SHM and journal and the
 * directory, open_db() opens it through the store. Define DB_FIXTURE_NAME ("test-db") first.
 */
#pragma once

#include <check.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "shared/util.h"
#include "shared/spec.h"
#include "store/db.h"

#ifndef DB_FIXTURE_NAME
#error "define DB_FIXTURE_NAME before including db-fixture.h"
#endif

static char tmpdir[] = "/tmp/" DB_FIXTURE_NAME "-XXXXXX";
static char dbpath[256];

static void setup(void) {
        strcpy(tmpdir, "/tmp/" DB_FIXTURE_NAME "-XXXXXX");
        ck_assert_ptr_nonnull(mkdtemp(tmpdir));
        snprintf(dbpath, sizeof(dbpath), "%s/benchd.db", tmpdir);
}

/* The specs fixture_spec() made, freed at teardown. */
typedef struct FixtureSpec {
        JobSpec spec;
        struct FixtureSpec *next;
} FixtureSpec;
static FixtureSpec *fixture_specs;

/* A finalized step for DbRun.spec, from assignments separated by blanks (printf-style):
 * fixture_spec("workload=write target=/tmp/x block_size=%u", 4096). Valid until teardown(). */
_printf_(1, 2) _unused_ static const JobSpec *fixture_spec(const char *fmt, ...) {
        _cleanup_free_ char *text = NULL, *err = NULL;
        FixtureSpec *f = calloc(1, sizeof *f);
        char *save = NULL;
        va_list ap;
        int r;

        ck_assert_ptr_nonnull(f);
        va_start(ap, fmt);
        ck_assert_int_ge(vasprintf(&text, fmt, ap), 0);
        va_end(ap);
        spec_init(&f->spec);
        for (char *a = strtok_r(text, " ", &save); a; a = strtok_r(NULL, " ", &save)) {
                r = spec_set_assignment(&f->spec, a, &err);
                ck_assert_msg(r == 0, "%s: %s", a, err);
        }
        r = spec_finalize(&f->spec, &err);
        ck_assert_msg(r == 0, "%s: %s", text, err);
        f->next = fixture_specs;
        fixture_specs = f;
        return &f->spec;
}

static void teardown(void) {
        static const char *const suffixes[] = { "", "-wal", "-shm", "-journal" };
        char p[300];

        while (fixture_specs) {
                FixtureSpec *f = fixture_specs;

                fixture_specs = f->next;
                spec_clear(&f->spec);
                free(f);
        }

        for (size_t i = 0; i < ELEMENTSOF(suffixes); i++) {
                snprintf(p, sizeof(p), "%s%s", dbpath, suffixes[i]);
                (void) unlink(p);
        }
        (void) rmdir(tmpdir);
}

static Db *open_db(void) {
        Db *db = NULL;
        int r;

        r = db_open(dbpath, &db);
        ck_assert_msg(r == 0, "db_open: %s", strerror(-r));
        ck_assert_ptr_nonnull(db);
        return db;
}
