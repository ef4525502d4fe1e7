/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A real SQLite file in a fresh temporary directory for each test case of the store's tests:
 * setup() makes the directory, teardown() removes the file with its WAL, SHM and journal and the
 * directory, open_db() opens it through the store. Define DB_FIXTURE_NAME ("test-db") first.
 */
#pragma once

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "shared/util.h"
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

static void teardown(void) {
        static const char *const suffixes[] = { "", "-wal", "-shm", "-journal" };
        char p[300];

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
