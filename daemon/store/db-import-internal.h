/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Private to ImportRuns' store side: db-import.c reads and writes a run, db-import-columns.c says
 * which columns a run of the document has (the runs table's own, PRAGMA table_info) and holds the
 * ones the daemon writes for a layout (md, LVM, partitions) to their rules.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "store/db.h"

typedef enum ImportKind {
        IMPORT_INT,      /* a JSON integer, 0..INT64_MAX */
        IMPORT_REAL,     /* a finite JSON number */
        IMPORT_TEXT,     /* a JSON string, at most DB_IMPORT_TEXT_MAX bytes */
        IMPORT_JSON,     /* a JSON string holding JSON, or the object/array itself; at most 1 MiB */
        IMPORT_OFFSET,   /* a JSON integer of either sign, at most IMPORT_OFFSET_MAX from 0 (a clock offset) */
} ImportKind;

#define IMPORT_OFFSET_MAX (INT64_C(86400) * 1000000)

typedef struct ImportColumn {
        char name[64];
        ImportKind kind;
        bool required;
} ImportColumn;

/* More than runs has columns (about 100): a migration that passes it is told so at the first import. */
#define IMPORT_COLUMNS_MAX 192u

typedef struct ImportColumns {
        ImportColumn c[IMPORT_COLUMNS_MAX];
        size_t n;
} ImportColumns;

/* A column's value as the document has it. Strings point into the run's json_object. */
typedef struct ImportValue {
        bool present;           /* not absent, not null */
        int64_t i;
        double d;
        const char *s;
        size_t len;
} ImportValue;

/* The columns of a run in the document: every column of runs but the importer's own (id, job_id,
 * device_id, origin_host), uuid first, then in the table's order; each one's kind from the spec registry when a key
 * is recorded there, else from import_kinds[] (JSON, a clock offset), else from its declared type
 * (INTEGER, REAL, TEXT); required when NOT NULL without a default, and uuid, step, repeat and
 * status. A column of another type, or a name the registry or import_kinds[] gives that runs does
 * not have, fails with a message (-EUCLEAN). */
int import_columns_make(Db *db, ImportColumns *ret);
/* Whether name is one of the importer's own columns (given by the importing host, never read from
 * the document). */
bool import_column_is_own(const char *name);

/* The value of column name among cols' values v; NULL when cols has no such column. */
const ImportValue *import_value(const ImportColumns *cols, const ImportValue *v, const char *name);

/* The columns the daemon writes for a layout (schema/0020-fs-commands-partitions.sql,
 * 0021-md-layout.sql, 0023-lvm-layout.sql), held to the rules the daemon writes them by: the md
 * ones only for a layout that builds an md array, the LVM ones only for an LVM layout, the names of
 * benchd's form, the commands JSON arrays, partitions with partition. 0, or -EINVAL with a message
 * naming the column, its value and what it should be. */
int import_layout_check(const ImportColumns *cols, const ImportValue *v, char **reterr);

/* A CHECK of runs that refused the row, made into a message naming the column (the first import
 * column the constraint's text names), its value and the rule: into buf. False when msg is no
 * CHECK failure. */
bool import_check_failure(const ImportColumns *cols, const ImportValue *v, const char *msg, char *buf,
                          size_t size);
