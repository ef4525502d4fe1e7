/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * ImportRuns' store side: one run of a "benchd-export" document (benchctl export --format=benchd,
 * README.md "Many machines") written into this host's history. The document comes from another
 * host, so from anyone: every column is looked at with SQLite's own JSON functions before anything
 * is written (its JSON type, its length), the schema's CHECKs then refuse values out of range, and
 * the samples, histogram, phases and positions go through the same inserts as a measured run's, so
 * they are stored exactly as benchd stores its own. A run whose uuid is here already is skipped,
 * which makes a second import of the same document add nothing. The document around the runs
 * (format, version, host, the runs array) is json-c's to parse (db_import_document_parse()), so
 * that the daemon's ImportRuns and the fuzz target (tests/fuzz/fuzz-import.c) read it alike.
 */
#include <errno.h>
#include <inttypes.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/db-internal.h"
#include "store/db.h"
#include "shared/histogram.h"
#include "shared/json-util.h"
#include "shared/util.h"

typedef enum ImportKind {
        IMPORT_INT,      /* a JSON integer */
        IMPORT_REAL,     /* a JSON number */
        IMPORT_TEXT,     /* a JSON string, at most DB_IMPORT_TEXT_MAX bytes */
        IMPORT_JSON,     /* a JSON string holding JSON, or the object/array itself; at most 1 MiB */
} ImportKind;

typedef struct ImportColumn {
        const char *name;
        ImportKind kind;
        bool required;
} ImportColumn;

/* The runs columns an export carries (GetRun's names), all but the ones that only mean something
 * on the measuring host (id, job_id, device_id): those are given here. */
static const ImportColumn import_columns[] = {
        { "uuid", IMPORT_TEXT, true },
        { "step", IMPORT_INT, true },
        { "repeat", IMPORT_INT, true },
        { "round", IMPORT_INT, false },
        { "workload", IMPORT_TEXT, true },
        { "block_size", IMPORT_INT, true },
        { "size", IMPORT_INT, true },
        { "runtime_ms", IMPORT_INT, true },
        { "ramp_ms", IMPORT_INT, true },
        { "queue_depth", IMPORT_INT, true },
        { "jobs", IMPORT_INT, true },
        { "direct", IMPORT_INT, true },
        { "sync", IMPORT_TEXT, false },
        { "rwmix_read", IMPORT_INT, false },
        { "pattern", IMPORT_TEXT, false },
        { "device_name", IMPORT_TEXT, false },
        { "target", IMPORT_TEXT, true },
        { "fs_type", IMPORT_TEXT, false },
        { "mount_options", IMPORT_TEXT, false },
        { "layout", IMPORT_TEXT, false },
        { "members", IMPORT_JSON, false },
        { "matrix_entry", IMPORT_INT, false },
        { "mkfs_command", IMPORT_TEXT, false },
        { "mkfs_options", IMPORT_TEXT, false },
        { "mkfs_usec", IMPORT_INT, false },
        { "fs_uuid", IMPORT_TEXT, false },
        { "fs_size_bytes", IMPORT_INT, false },
        { "fs_used_bytes", IMPORT_INT, false },
        { "fs_avail_bytes", IMPORT_INT, false },
        { "fs_inodes", IMPORT_INT, false },
        { "fs_inodes_free", IMPORT_INT, false },
        { "environment", IMPORT_JSON, false },
        { "label", IMPORT_TEXT, false },
        { "tags", IMPORT_JSON, false },
        { "started_usec", IMPORT_INT, true },
        { "duration_usec", IMPORT_INT, false },
        { "steady_state", IMPORT_INT, false },
        { "steady_state_usec", IMPORT_INT, false },
        { "status", IMPORT_TEXT, true },
        { "error", IMPORT_TEXT, false },
        { "bytes_read", IMPORT_INT, false },
        { "bytes_written", IMPORT_INT, false },
        { "ios_read", IMPORT_INT, false },
        { "ios_written", IMPORT_INT, false },
        { "ops", IMPORT_INT, false },
        { "lat_min_ns", IMPORT_INT, false },
        { "lat_mean_ns", IMPORT_INT, false },
        { "lat_stddev_ns", IMPORT_INT, false },
        { "lat_p50_ns", IMPORT_INT, false },
        { "lat_p90_ns", IMPORT_INT, false },
        { "lat_p95_ns", IMPORT_INT, false },
        { "lat_p99_ns", IMPORT_INT, false },
        { "lat_p999_ns", IMPORT_INT, false },
        { "lat_p9999_ns", IMPORT_INT, false },
        { "lat_max_ns", IMPORT_INT, false },
        { "iowait_pct", IMPORT_REAL, false },
        { "cpu_user_pct", IMPORT_REAL, false },
        { "cpu_sys_pct", IMPORT_REAL, false },
        { "dev_util_pct", IMPORT_REAL, false },
};

static const char *kind_name(ImportKind k) {
        switch (k) {
        case IMPORT_INT:
                return "an integer";
        case IMPORT_REAL:
                return "a number";
        case IMPORT_TEXT:
                return "a string";
        default:
                return "JSON (a string of it, an object or an array)";
        }
}

/* The JSON path of a column: $."name" (names are ours, never the document's). */
static void column_path(char *buf, size_t n, const char *name) {
        snprintf(buf, n, "$.\"%s\"", name);
}

static int check_columns(Db *db, const char *run_json) {
        _cleanup_finalize_ sqlite3_stmt *st = NULL;
        int r;

        r = db_prepare(db, "SELECT json_type(?1, ?2), length(CAST(json_extract(?1, ?2) AS BLOB))", &st);
        if (r < 0)
                return r;
        for (size_t i = 0; i < ELEMENTSOF(import_columns); i++) {
                const ImportColumn *c = import_columns + i;
                const char *type;
                char path[64];
                bool ok;
                int64_t len;

                column_path(path, sizeof path, c->name);
                sqlite3_reset(st);
                if (sqlite3_bind_text(st, 1, run_json, -1, SQLITE_STATIC) != SQLITE_OK ||
                    sqlite3_bind_text(st, 2, path, -1, SQLITE_TRANSIENT) != SQLITE_OK)
                        return db_fail_msg(db, -ENOMEM, "cannot bind the run's JSON");
                r = db_step_row(db, st);
                if (r < 0)
                        return r;
                type = (const char *) sqlite3_column_text(st, 0);
                len = sqlite3_column_int64(st, 1);
                if (!type || strcmp(type, "null") == 0) {
                        if (c->required)
                                return db_fail_msg(db, -EINVAL, "imported run has no \"%s\": every run needs it, as %s",
                                                   c->name, kind_name(c->kind));
                        continue;
                }
                switch (c->kind) {
                case IMPORT_INT:
                        ok = streq(type, "integer");
                        break;
                case IMPORT_REAL:
                        ok = streq(type, "integer") || streq(type, "real");
                        break;
                case IMPORT_TEXT:
                        ok = streq(type, "text") && len <= (int64_t) DB_IMPORT_TEXT_MAX;
                        break;
                default:
                        ok = (streq(type, "text") || streq(type, "object") || streq(type, "array")) &&
                             len <= 1024 * 1024;
                        break;
                }
                if (!ok)
                        return db_fail_msg(db, -EINVAL, "imported run's \"%s\" is a JSON %s%s: it should be %s%s",
                                           c->name, type, len > (int64_t) DB_IMPORT_TEXT_MAX ? " too long" : "",
                                           kind_name(c->kind),
                                           c->kind == IMPORT_TEXT ? " of at most 64 KiB" : "");
        }
        return 0;
}

/* 1 when a run of this uuid is stored already, 0 when not. */
static int uuid_known(Db *db, const char *uuid) {
        _cleanup_finalize_ sqlite3_stmt *st = NULL;
        int r;

        r = db_prepare(db, "SELECT 1 FROM runs WHERE uuid = ?", &st);
        if (r < 0)
                return r;
        if (sqlite3_bind_text(st, 1, uuid, -1, SQLITE_STATIC) != SQLITE_OK)
                return db_fail_msg(db, -ENOMEM, "cannot bind the uuid");
        return db_step_row(db, st);
}

static int insert_run(Db *db, const char *run_json, const char *origin_host, uint64_t *ret_id) {
        _cleanup_finalize_ sqlite3_stmt *st = NULL;
        char sql[8192], *p = sql;
        size_t left = sizeof sql;
        int n, r;

#define APPEND(...)                                                                 \
        do {                                                                        \
                n = snprintf(p, left, __VA_ARGS__);                                 \
                if (n < 0 || (size_t) n >= left)                                    \
                        return db_fail_msg(db, -ENOBUFS, "import statement too long"); \
                p += n;                                                             \
                left -= (size_t) n;                                                 \
        } while (0)

        APPEND("INSERT INTO runs (job_id, device_id, origin_host");
        for (size_t i = 0; i < ELEMENTSOF(import_columns); i++)
                APPEND(", \"%s\"", import_columns[i].name);
        /* The device of the same identity, if this host has it (a disk moved here, or one host
         * importing its own runs back). */
        APPEND(") VALUES (NULL, (SELECT id FROM devices WHERE identity = json_extract(?1, '$.device_identity')), ?2");
        for (size_t i = 0; i < ELEMENTSOF(import_columns); i++)
                APPEND(", json_extract(?1, '$.\"%s\"')", import_columns[i].name);
        APPEND(")");
#undef APPEND

        r = db_prepare(db, sql, &st);
        if (r < 0)
                return r;
        if (sqlite3_bind_text(st, 1, run_json, -1, SQLITE_STATIC) != SQLITE_OK ||
            sqlite3_bind_text(st, 2, origin_host, -1, SQLITE_STATIC) != SQLITE_OK)
                return db_fail_msg(db, -ENOMEM, "cannot bind the run's JSON");
        r = db_step_done(db, st);
        if (r < 0)
                return r;
        *ret_id = (uint64_t) sqlite3_last_insert_rowid(db->sqlite);
        return 0;
}

/* Every element of the run's list `key` as a row of the given columns; cb gets the statement,
 * whose column i is the element's field i (column 0 holds its JSON type, to check it is an
 * object). */
static int foreach_element(Db *db, const char *run_json, const char *key, const char *const *fields,
                           size_t n_fields, int (*cb)(Db *db, sqlite3_stmt *st, uint64_t run_id, void *userdata),
                           uint64_t run_id, void *userdata) {
        _cleanup_finalize_ sqlite3_stmt *st = NULL;
        char sql[8192], *p = sql;
        size_t left = sizeof sql;
        int n, r;

        n = snprintf(p, left, "SELECT json_type(value)");
        p += n, left -= (size_t) n;
        for (size_t i = 0; i < n_fields; i++) {
                /* An element may be an object of named fields, or (GetHistogram's (tt)) an array. */
                n = snprintf(p, left,
                             ", CASE json_type(value) WHEN 'array' THEN json_extract(value, '$[%zu]') "
                             "ELSE json_extract(value, '$.\"%s\"') END, "
                             "CASE json_type(value) WHEN 'array' THEN json_type(value, '$[%zu]') "
                             "ELSE json_type(value, '$.\"%s\"') END",
                             i, fields[i], i, fields[i]);
                if (n < 0 || (size_t) n >= left)
                        return db_fail_msg(db, -ENOBUFS, "import statement too long");
                p += n, left -= (size_t) n;
        }
        n = snprintf(p, left, " FROM json_each(?1, '$.\"%s\"')", key);
        if (n < 0 || (size_t) n >= left)
                return db_fail_msg(db, -ENOBUFS, "import statement too long");

        r = db_prepare(db, sql, &st);
        if (r < 0)
                return r;
        if (sqlite3_bind_text(st, 1, run_json, -1, SQLITE_STATIC) != SQLITE_OK)
                return db_fail_msg(db, -ENOMEM, "cannot bind the run's JSON");
        for (;;) {
                const char *type;

                r = db_step_row(db, st);
                if (r < 0)
                        return r;
                if (r == 0)
                        return 0;
                type = (const char *) sqlite3_column_text(st, 0);
                if (!type || (!streq(type, "object") && !streq(type, "array")))
                        return db_fail_msg(db, -EINVAL, "imported run's \"%s\" has a JSON %s: each should be an object",
                                           key, type ?: "null");
                r = cb(db, st, run_id, userdata);
                if (r < 0)
                        return r;
        }
}

/* Field i of the element (foreach_element's column 1 + 2i, its JSON type 2 + 2i). */
static int field_u64(Db *db, sqlite3_stmt *st, const char *key, const char *const *fields, size_t i,
                     bool required, uint64_t *ret) {
        const char *type = (const char *) sqlite3_column_text(st, 2 + 2 * (int) i);

        if (!type || streq(type, "null")) {
                if (required)
                        return db_fail_msg(db, -EINVAL, "an element of the imported run's \"%s\" has no \"%s\": "
                                           "it needs one, a non-negative integer", key, fields[i]);
                *ret = 0;
                return 0;
        }
        if (!streq(type, "integer") || sqlite3_column_int64(st, 1 + 2 * (int) i) < 0)
                return db_fail_msg(db, -EINVAL, "an element of the imported run's \"%s\" has a \"%s\" that is "
                                   "not a non-negative integer", key, fields[i]);
        *ret = (uint64_t) sqlite3_column_int64(st, 1 + 2 * (int) i);
        return 0;
}

static int field_pct(Db *db, sqlite3_stmt *st, const char *key, const char *const *fields, size_t i, double *ret) {
        const char *type = (const char *) sqlite3_column_text(st, 2 + 2 * (int) i);

        if (!type || streq(type, "null")) {
                *ret = -1; /* unknown, stored as NULL */
                return 0;
        }
        if (!streq(type, "integer") && !streq(type, "real"))
                return db_fail_msg(db, -EINVAL, "an element of the imported run's \"%s\" has a \"%s\" that is "
                                   "not a number", key, fields[i]);
        *ret = sqlite3_column_double(st, 1 + 2 * (int) i);
        if (!(*ret >= 0 && *ret <= 1e6))
                return db_fail_msg(db, -EINVAL, "an element of the imported run's \"%s\" has a \"%s\" of %g: "
                                   "it should be 0 or more", key, fields[i], *ret);
        return 0;
}

static const char *const sample_fields[] = {
        "t_ms", "interval_us", "bytes_read", "bytes_written", "ios_read", "ios_written", "ops",
        "lat_mean_ns", "lat_p50_ns", "lat_p99_ns", "lat_max_ns",
        "iowait_pct", "cpu_user_pct", "cpu_sys_pct", "dev_util_pct", "dev_queue",
};

typedef struct SampleBuf {
        ProtoSample *samples;
        size_t n, allocated;
} SampleBuf;

static int on_sample(Db *db, sqlite3_stmt *st, uint64_t run_id, void *userdata) {
        SampleBuf *buf = userdata;
        ProtoSample s = {};
        uint64_t *u[] = { &s.t_ms, &s.interval_us, &s.bytes_read, &s.bytes_written, &s.ios_read, &s.ios_written,
                          &s.ops, &s.lat_mean_ns, &s.lat_p50_ns, &s.lat_p99_ns, &s.lat_max_ns };
        double *d[] = { &s.iowait_pct, &s.cpu_user_pct, &s.cpu_sys_pct, &s.dev_util_pct, &s.dev_queue };
        int r;

        (void) run_id;
        if (buf->n >= DB_IMPORT_SAMPLES_MAX)
                return db_fail_msg(db, -E2BIG, "imported run has more than %u samples", DB_IMPORT_SAMPLES_MAX);
        for (size_t i = 0; i < ELEMENTSOF(u); i++) {
                /* t_ms, the bytes and the ios are always there (GetSamples fills the bytes in). */
                r = field_u64(db, st, "samples", sample_fields, i, i == 0 || (i >= 2 && i <= 5), u[i]);
                if (r < 0)
                        return r;
        }
        for (size_t i = 0; i < ELEMENTSOF(d); i++) {
                r = field_pct(db, st, "samples", sample_fields, ELEMENTSOF(u) + i, d[i]);
                if (r < 0)
                        return r;
        }
        if (buf->n == buf->allocated) {
                size_t a = buf->allocated ? buf->allocated * 2 : 256;
                ProtoSample *n = realloc(buf->samples, a * sizeof *n);
                if (!n)
                        return db_fail_msg(db, -ENOMEM, "out of memory for the imported samples");
                buf->samples = n;
                buf->allocated = a;
        }
        buf->samples[buf->n++] = s;
        return 0;
}

static const char *const histogram_fields[] = { "upper_ns", "count" };

typedef struct HistBuf {
        ProtoHistogramEntry entries[HISTOGRAM_BUCKETS];
        size_t n;
} HistBuf;

static int on_bucket(Db *db, sqlite3_stmt *st, uint64_t run_id, void *userdata) {
        HistBuf *h = userdata;
        uint64_t upper, count;
        unsigned i;
        int r;

        (void) run_id;
        r = field_u64(db, st, "histogram", histogram_fields, 0, true, &upper);
        if (r >= 0)
                r = field_u64(db, st, "histogram", histogram_fields, 1, true, &count);
        if (r < 0)
                return r;
        if (h->n >= HISTOGRAM_BUCKETS)
                return db_fail_msg(db, -E2BIG, "imported run's histogram has more than %u buckets", HISTOGRAM_BUCKETS);
        /* The bucket holding upper, which must end there. */
        i = histogram_bucket_index(upper);
        if (histogram_bucket_upper(i) == upper) {
                h->entries[h->n++] = (ProtoHistogramEntry) { .index = i, .count = count };
                return 0;
        }
        return db_fail_msg(db, -EINVAL, "imported run's histogram has a bucket ending at %" PRIu64 " ns: "
                           "it should be one of benchd's bucket bounds (shared/histogram.h)", upper);
}

static const char *const phase_fields[] = {
        "phase", "ops", "duration_usec", "lat_min_ns", "lat_mean_ns", "lat_p50_ns", "lat_p99_ns", "lat_max_ns",
};

static int on_phase(Db *db, sqlite3_stmt *st, uint64_t run_id, void *userdata) {
        ProtoPhaseResult ph = {};
        uint64_t *u[] = { &ph.ops, &ph.duration_usec, &ph.lat_min_ns, &ph.lat_mean_ns, &ph.lat_p50_ns,
                          &ph.lat_p99_ns, &ph.lat_max_ns };
        const char *type = (const char *) sqlite3_column_text(st, 2), *name;
        int r;

        (void) userdata;
        name = (const char *) sqlite3_column_text(st, 1);
        if (!type || !streq(type, "text") || !name || strlen(name) == 0 || strlen(name) > PROTO_PHASE_NAME_MAX)
                return db_fail_msg(db, -EINVAL, "a phase of the imported run has no \"phase\" name of 1..%u characters",
                                   PROTO_PHASE_NAME_MAX);
        strcpy(ph.name, name);
        for (size_t i = 0; i < ELEMENTSOF(u); i++) {
                r = field_u64(db, st, "phases", phase_fields, i + 1, false, u[i]);
                if (r < 0)
                        return r;
        }
        return db_run_phase_insert(db, run_id, &ph);
}

static const char *const position_fields[] = {
        "seq", "offset_bytes", "bytes", "duration_usec", "lat_mean_ns", "lat_max_ns",
};

static int on_position(Db *db, sqlite3_stmt *st, uint64_t run_id, void *userdata) {
        ProtoPositionResult pos = {};
        uint64_t idx;
        uint64_t *u[] = { &pos.offset_bytes, &pos.bytes, &pos.duration_usec, &pos.lat_mean_ns, &pos.lat_max_ns };
        int r;

        (void) userdata;
        r = field_u64(db, st, "positions", position_fields, 0, true, &idx);
        if (r < 0)
                return r;
        if (idx > UINT32_MAX)
                return db_fail_msg(db, -EINVAL, "a position of the imported run has a seq beyond 2^32");
        pos.index = (uint32_t) idx;
        for (size_t i = 0; i < ELEMENTSOF(u); i++) {
                r = field_u64(db, st, "positions", position_fields, i + 1, false, u[i]);
                if (r < 0)
                        return r;
        }
        return db_run_position_insert(db, run_id, &pos);
}

static int import_lists(Db *db, const char *run_json, uint64_t id) {
        SampleBuf samples = {};
        HistBuf *hist;
        int r;

        r = foreach_element(db, run_json, "samples", sample_fields, ELEMENTSOF(sample_fields), on_sample, id,
                            &samples);
        if (r >= 0)
                r = db_samples_insert(db, id, samples.samples, samples.n);
        free(samples.samples);
        if (r < 0)
                return r;

        hist = calloc(1, sizeof *hist);
        if (!hist)
                return db_fail_msg(db, -ENOMEM, "out of memory for the imported histogram");
        r = foreach_element(db, run_json, "histogram", histogram_fields, ELEMENTSOF(histogram_fields), on_bucket,
                            id, hist);
        if (r >= 0 && hist->n > 0)
                r = db_histogram_insert(db, id, hist->entries, hist->n);
        free(hist);
        if (r < 0)
                return r;

        r = foreach_element(db, run_json, "phases", phase_fields, ELEMENTSOF(phase_fields), on_phase, id, NULL);
        if (r < 0)
                return r;
        return foreach_element(db, run_json, "positions", position_fields, ELEMENTSOF(position_fields), on_position,
                               id, NULL);
}

int db_run_import(Db *db, const char *run_json, const char *origin_host, uint64_t *ret_id) {
        _cleanup_finalize_ sqlite3_stmt *st = NULL;
        _cleanup_free_ char *uuid = NULL, *status = NULL;
        uint64_t id = 0;
        int r;

        if (!run_json || !origin_host || strlen(origin_host) == 0 || strlen(origin_host) > 255)
                return db_fail_msg(db, -EINVAL, "import needs the run's JSON and a host name of 1..255 characters");

        /* json_valid first: the other JSON functions fail on malformed JSON rather than say so. */
        r = db_prepare(db, "SELECT CASE WHEN json_valid(?1) THEN json_type(?1) = 'object' ELSE 0 END, "
                           "CASE WHEN json_valid(?1) THEN json_extract(?1, '$.uuid') END, "
                           "CASE WHEN json_valid(?1) THEN json_extract(?1, '$.status') END", &st);
        if (r < 0)
                return r;
        if (sqlite3_bind_text(st, 1, run_json, -1, SQLITE_STATIC) != SQLITE_OK)
                return db_fail_msg(db, -ENOMEM, "cannot bind the run's JSON");
        r = db_step_row(db, st);
        if (r < 0)
                return r;
        if (r == 0 || sqlite3_column_int(st, 0) != 1)
                return db_fail_msg(db, -EINVAL, "imported run is not a JSON object");
        if (sqlite3_column_type(st, 1) != SQLITE_TEXT ||
            !db_uuid_valid((const char *) sqlite3_column_text(st, 1)))
                return db_fail_msg(db, -EINVAL, "imported run has no \"uuid\" of the form "
                                   "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx (lower-case hex)");
        uuid = strdup((const char *) sqlite3_column_text(st, 1));
        if (sqlite3_column_type(st, 2) == SQLITE_TEXT)
                status = strdup((const char *) sqlite3_column_text(st, 2));
        if (!uuid)
                return db_fail_msg(db, -ENOMEM, "out of memory");
        if (status && streq(status, "running"))
                return db_fail_msg(db, -EINVAL, "imported run %s is still running: export it once it has ended", uuid);

        r = check_columns(db, run_json);
        if (r < 0)
                return r;
        r = uuid_known(db, uuid);
        if (r < 0)
                return r;
        if (r > 0)
                return 0;

        r = insert_run(db, run_json, origin_host, &id);
        if (r < 0)
                return r;
        r = import_lists(db, run_json, id);
        if (r < 0) {
                /* All or nothing: the run goes again, with what it had (ON DELETE CASCADE). */
                _cleanup_finalize_ sqlite3_stmt *del = NULL;
                if (db_prepare(db, "DELETE FROM runs WHERE id = ?", &del) >= 0 &&
                    sqlite3_bind_int64(del, 1, (int64_t) id) == SQLITE_OK)
                        (void) db_step_done(db, del);
                return r;
        }
        if (ret_id)
                *ret_id = id;
        return 1;
}

static int document_error(char **reterr, const char *what) {
        if (asprintf(reterr, "the import is not a benchd export document: %s; give what benchctl export "
                     "--format=benchd writes ({\"format\": \"benchd-export\", \"version\": 1, "
                     "\"host\": ..., \"runs\": [...]})", what) < 0)
                return -ENOMEM;
        return -EINVAL;
}

int db_import_document_parse(const char *text, struct json_object **ret_doc, const char **ret_host,
                             struct json_object **ret_runs, char **reterr) {
        _cleanup_json_ json_object *doc = NULL;
        json_tokener *tok = NULL;
        json_object *v, *runs;
        size_t n, len;

        len = strlen(text);
        if (len > DB_IMPORT_DOCUMENT_MAX) {
                if (asprintf(reterr, "the import document has %zu bytes, more than the %u one import takes: "
                             "export fewer runs at a time", len, DB_IMPORT_DOCUMENT_MAX) < 0)
                        return -ENOMEM;
                return -EINVAL;
        }

        tok = json_tokener_new_ex(64);
        if (!tok)
                return -ENOMEM;
        doc = json_tokener_parse_ex(tok, text, (int) len);
        if (!doc || json_tokener_get_error(tok) != json_tokener_success) {
                int k = asprintf(reterr, "the import document is not JSON (%s, at byte %zu): give what benchctl "
                                 "export --format=benchd writes",
                                 json_tokener_error_desc(json_tokener_get_error(tok)),
                                 json_tokener_get_parse_end(tok));
                json_tokener_free(tok);
                return k < 0 ? -ENOMEM : -EINVAL;
        }
        json_tokener_free(tok);

        if (!json_object_is_type(doc, json_type_object))
                return document_error(reterr, "it is not a JSON object");
        if (!json_object_object_get_ex(doc, "format", &v) || !json_object_is_type(v, json_type_string) ||
            !streq(json_object_get_string(v), "benchd-export"))
                return document_error(reterr, "its \"format\" is not \"benchd-export\"");
        if (!json_object_object_get_ex(doc, "version", &v) || !json_object_is_type(v, json_type_int) ||
            json_object_get_int64(v) != 1)
                return document_error(reterr, "its \"version\" is not 1, the one this benchd reads");
        if (!json_object_object_get_ex(doc, "host", &v) || !json_object_is_type(v, json_type_string) ||
            json_object_get_string_len(v) < 1 || json_object_get_string_len(v) > 255)
                return document_error(reterr, "its \"host\" is not a host name of 1..255 characters");
        *ret_host = json_object_get_string(v);
        if (!json_object_object_get_ex(doc, "runs", &runs) || !json_object_is_type(runs, json_type_array))
                return document_error(reterr, "it has no \"runs\" array");
        n = json_object_array_length(runs);
        if (n > DB_IMPORT_RUNS_MAX) {
                if (asprintf(reterr, "the import document has %zu runs, more than the %u one import takes: "
                             "export fewer at a time", n, DB_IMPORT_RUNS_MAX) < 0)
                        return -ENOMEM;
                return -EINVAL;
        }
        *ret_runs = runs;
        *ret_doc = TAKE_PTR(doc);
        return 0;
}
