/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * ImportRuns' store side (db-import.c) on a real SQLite file: a plausible run goes in and reads
 * back; each row of import_refused[] is that run with one thing wrong (a type, a range, a rule a
 * worker's frames are held to) and must be refused with a message naming the column, with nothing
 * written; each row of import_accepted[] is a run a real history holds (samples pruned, no
 * histogram, a failed run without a result, control characters in a name) and must go in. A
 * document is all or nothing, and the real export in tests/fuzz/corpus/import goes in whole.
 *
 * Rows are merge patches of the plausible run (a key set to null is removed), parsed by json-c as
 * ImportRuns' documents are, so NaN and Infinity can be written in them.
 */
#include <check.h>
#include <errno.h>
#include <limits.h>
#include <inttypes.h>
#include <json-c/json.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check-util.h"
#include "shared/histogram.h"
#include "shared/json-util.h"
#include "shared/spec.h"
#include "shared/strv.h"
#include "shared/util.h"
#include "store/db.h"

#define DB_FIXTURE_NAME "test-db-import"
#include "db-fixture.h"

/* Now for the rules: a day after the fixture's runs. */
#define NOW_USEC UINT64_C(1700086400000000)

/* A randread of two 4 KiB reads in 2 s, one a sample, each 100 µs: every figure consistent. The
 * histogram's bucket is filled in (%1$" PRIu64 "). */
#define RUN_JSON                                                                                      \
        "{\"uuid\":\"0123abcd-4567-4def-8901-23456789abcd\",\"step\":0,\"repeat\":0,"                 \
        "\"workload\":\"randread\",\"block_size\":4096,\"size\":1048576,\"runtime_ms\":2000,"         \
        "\"ramp_ms\":0,\"queue_depth\":4,\"jobs\":1,\"direct\":1,\"target\":\"/dev/loop9\","          \
        "\"device_name\":\"loop9\",\"device_identity\":\"nowhere-here\","                             \
        "\"environment\":\"{\\\"host\\\":\\\"other-host\\\"}\",\"tags\":\"[\\\"a\\\"]\","             \
        "\"started_usec\":1700000000000000,\"duration_usec\":2000000,\"status\":\"succeeded\","       \
        "\"bytes_read\":8192,\"bytes_written\":0,\"ios_read\":2,\"ios_written\":0,\"ops\":0,"         \
        "\"lat_min_ns\":100000,\"lat_mean_ns\":100000,\"lat_stddev_ns\":0,\"lat_p50_ns\":100000,"     \
        "\"lat_p90_ns\":100000,\"lat_p95_ns\":100000,\"lat_p99_ns\":100000,\"lat_p999_ns\":100000,"   \
        "\"lat_p9999_ns\":100000,\"lat_max_ns\":100000,"                                              \
        "\"iowait_pct\":2.5,\"cpu_user_pct\":1.5,\"cpu_sys_pct\":3.0,\"dev_util_pct\":10.0,"          \
        "\"samples\":[{\"t_ms\":1000,\"interval_us\":1000000,\"bytes_read\":4096,\"bytes_written\":0," \
        "\"ios_read\":1,\"ios_written\":0,\"ops\":0,\"lat_mean_ns\":100000,\"lat_p50_ns\":100000,"    \
        "\"lat_p99_ns\":100000,\"lat_max_ns\":100000,\"iowait_pct\":2.5,\"cpu_user_pct\":1.5,"        \
        "\"cpu_sys_pct\":3.0,\"dev_util_pct\":10.0,\"dev_queue\":0.4},"                               \
        "{\"t_ms\":2000,\"bytes_read\":4096,\"bytes_written\":0,\"ios_read\":1,\"ios_written\":0,"    \
        "\"lat_mean_ns\":100000,\"lat_p50_ns\":100000,\"lat_p99_ns\":100000,\"lat_max_ns\":100000}]," \
        "\"histogram\":[[%1$" PRIu64 ",2]]}"

static uint64_t bucket_upper(uint64_t ns) {
        return histogram_bucket_upper(histogram_bucket_index(ns));
}

/* The run with patch put over it (RFC 7396 at the top level: null removes a key); @BUCKET@ in the
 * patch is the fixture's histogram bucket. */
static json_object *run_with(const char *patch) {
        _cleanup_free_ char *text = NULL, *expanded = NULL;
        json_object *run, *p;
        const char *at;

        ck_assert_int_ge(asprintf(&text, RUN_JSON, bucket_upper(100000)), 0);
        run = json_tokener_parse(text);
        ck_assert_ptr_nonnull(run);
        if (!patch)
                return run;
        at = strstr(patch, "@BUCKET@");
        if (at) {
                ck_assert_int_ge(asprintf(&expanded, "%.*s%" PRIu64 "%s", (int) (at - patch), patch,
                                          bucket_upper(100000), at + strlen("@BUCKET@")), 0);
                patch = expanded;
        }
        p = json_tokener_parse(patch);
        ck_assert_msg(p, "patch does not parse: %s", patch);
        json_object_object_foreach(p, key, value) {
                if (value)
                        json_object_object_add(run, key, json_object_get(value));
                else
                        json_object_object_del(run, key);
        }
        json_object_put(p);
        return run;
}

/* A "runs" array of the given runs (owned by it). */
static json_object *runs_of(json_object *a, json_object *b) {
        json_object *l = json_object_new_array();

        ck_assert_ptr_nonnull(l);
        json_object_array_add(l, a);
        if (b)
                json_object_array_add(l, b);
        return l;
}

static int64_t count(const char *table) {
        _cleanup_free_ char *sql = NULL;
        sqlite3 *s = NULL;
        sqlite3_stmt *st = NULL;
        int64_t n;

        ck_assert_int_ge(asprintf(&sql, "SELECT count(*) FROM %s", table), 0);
        ck_assert_int_eq(sqlite3_open(dbpath, &s), SQLITE_OK);
        ck_assert_int_eq(sqlite3_prepare_v2(s, sql, -1, &st, NULL), SQLITE_OK);
        ck_assert_int_eq(sqlite3_step(st), SQLITE_ROW);
        n = sqlite3_column_int64(st, 0);
        sqlite3_finalize(st);
        sqlite3_close(s);
        return n;
}

/* A document of the import fuzz corpus (tests/fuzz/corpus/import), whole, NUL-terminated. */
static char *read_corpus(const char *name) {
        char path[PATH_MAX];
        char *text;
        FILE *f;
        long n;

        snprintf(path, sizeof(path), "%s/%s", IMPORT_CORPUS_DIR, name);
        f = fopen(path, "re");
        ck_assert_msg(f, "%s: %m", path);
        ck_assert_int_eq(fseek(f, 0, SEEK_END), 0);
        n = ftell(f);
        ck_assert_int_ge(n, 0);
        rewind(f);
        text = calloc(1, (size_t) n + 1);
        ck_assert_ptr_nonnull(text);
        ck_assert_uint_eq(fread(text, 1, (size_t) n, f), (size_t) n);
        fclose(f);
        return text;
}

static char *raw_text(const char *sql) {
        sqlite3 *s = NULL;
        sqlite3_stmt *st = NULL;
        char *v;

        ck_assert_int_eq(sqlite3_open(dbpath, &s), SQLITE_OK);
        ck_assert_msg(sqlite3_prepare_v2(s, sql, -1, &st, NULL) == SQLITE_OK, "%s", sql);
        ck_assert_int_eq(sqlite3_step(st), SQLITE_ROW);
        v = sqlite3_column_type(st, 0) == SQLITE_NULL ? NULL : strdup((const char *) sqlite3_column_text(st, 0));
        sqlite3_finalize(st);
        sqlite3_close(s);
        return v;
}

START_TEST(test_import_run) {
        _cleanup_(db_closep) Db *db = open_db();
        _cleanup_json_ json_object *runs = runs_of(run_with(NULL), NULL);
        _cleanup_free_ char *name = NULL, *host = NULL, *bytes = NULL, *p99 = NULL;
        uint64_t imported = 0, skipped = 0;

        ck_assert_msg(db_runs_import(db, runs, "other-host", NOW_USEC, &imported, &skipped) == 0, "%s",
                      db_last_error(db));
        ck_assert_uint_eq(imported, 1);
        ck_assert_uint_eq(skipped, 0);
        /* Idempotent by uuid. */
        ck_assert_int_eq(db_runs_import(db, runs, "other-host", NOW_USEC, &imported, &skipped), 0);
        ck_assert_uint_eq(imported, 0);
        ck_assert_uint_eq(skipped, 1);

        ck_assert_int_eq(count("runs WHERE job_id IS NULL AND device_id IS NULL AND origin_host = 'other-host'"), 1);
        name = raw_text("SELECT device_name FROM runs");
        ck_assert_str_eq(name, "loop9");
        host = raw_text("SELECT json_extract(environment, '$.host') FROM runs");
        ck_assert_str_eq(host, "other-host");
        bytes = raw_text("SELECT group_concat(bytes_read) FROM (SELECT bytes_read FROM samples ORDER BY t_ms)");
        ck_assert_str_eq(bytes, "4096,4096");
        p99 = raw_text("SELECT lat_p99_ns FROM runs");
        ck_assert_str_eq(p99, "100000");
        ck_assert_int_eq(count("run_histograms"), 1);
}
END_TEST

/* One thing wrong each: refused, naming it. */
static const struct {
        const char *patch;
        const char *want;
} import_refused[] = {
        /* Types and ranges of the columns. */
        { "{\"block_size\":\"4096\"}", "\"block_size\" is a JSON string: it should be an integer from 0 to" },
        { "{\"block_size\":-1}", "\"block_size\" is -1: it should be an integer from 0 to 9223372036854775807" },
        { "{\"direct\":2}", "\"direct\" is 2: it should be 0 or 1" },
        { "{\"status\":\"running\"}", "\"status\" is running" },
        { "{\"status\":\"weird\"}", "\"status\" is 'weird': it should be succeeded, failed, cancelled or interrupted" },
        { "{\"uuid\":\"not-a-uuid\"}", "\"uuid\" is not of the form" },
        { "{\"uuid\":null}", "\"uuid\" is missing" },
        { "{\"workload\":null}", "\"workload\" is missing" },
        { "{\"tags\":\"{}\"}", "tags" },
        { "{\"environment\":\"{broken\"}", "environment" },
        { "{\"device_name\":\"a\\u0000b\"}", "\"device_name\" holds a NUL character" },
        { "{\"cpu_user_pct\":\"high\"}", "\"cpu_user_pct\" is a JSON string: it should be a number" },
        { "{\"lat_p99_ns\":null}", "\"lat_p99_ns\" is missing, but \"duration_usec\" is given" },
        { "{\"steady_state\":0,\"steady_state_usec\":1000000}", "\"steady_state_usec\" is given, but" },
        /* The spec the row records, by the registry's rules. */
        { "{\"queue_depth\":0}", "queue_depth" },
        { "{\"ramp_ms\":5000}", "ramp_ms: 5000 is not less than runtime_ms 2000" },
        { "{\"workload\":\"teleport\"}", "workload: 'teleport' is not a workload" },
        /* The lists. */
        { "{\"samples\":[{\"t_ms\":-5,\"bytes_read\":0,\"bytes_written\":0,\"ios_read\":0,\"ios_written\":0}]}",
          "\"t_ms\" of sample 1 of 1 is -5" },
        { "{\"samples\":[{\"t_ms\":5}]}", "\"bytes_read\" of sample 1 of 1 is missing" },
        { "{\"samples\":[7]}", "element 1 of \"samples\" is a JSON integer" },
        { "{\"histogram\":[[12345,1]]}", "histogram bucket 1 of 1 ends at 12345 ns" },
        { "{\"histogram\":[[1000,\"x\"]]}", "\"count\" of histogram bucket 1 of 1 is a JSON string" },
        { "{\"phases\":[{\"phase\":\"\"}]}", "\"phase\" of phase 1 of 1 is not a phase name" },
        /* Issue 21's imports: what a worker's frames could not have said. */
        { "{\"bytes_read\":18446744073709551621}", "\"bytes_read\" is larger than 9223372036854775807" },
        { "{\"bytes_read\":4503599627370496,\"ios_read\":1099511627776,\"duration_usec\":29000,"
          "\"samples\":null,\"histogram\":null}", "bytes in 29000 us, faster than the ceiling of 1000000000000 bytes/s" },
        { "{\"bytes_read\":9223372036854775807,\"duration_usec\":29000,\"samples\":null}",
          "RESULT bytes_read=9223372036854775807 in ios_read=2: every I/O of this step moves 1 to 4096 bytes" },
        { "{\"started_usec\":4611686018427387904}", "started_usec=4611686018427387904 (148108-" },
        { "{\"started_usec\":-1}", "\"started_usec\" is -1: it should be an integer from 0 to" },
        { "{\"duration_usec\":0}", "duration_usec=0, but the run moved 8192 bytes in 2 I/Os" },
        { "{\"cpu_user_pct\":NaN}", "\"cpu_user_pct\" is NaN: it should be a finite number" },
        { "{\"iowait_pct\":Infinity}", "\"iowait_pct\" is Infinity: it should be a finite number" },
        { "{\"cpu_user_pct\":1e308}", "RESULT cpu_user_pct=1e+308 is not a percentage (0 to 100)" },
        { "{\"dev_util_pct\":-50}", "RESULT dev_util_pct=-50 is neither a percentage (0 to 100) nor -1" },
        { "{\"cpu_user_pct\":60,\"cpu_sys_pct\":50}", "shares of the CPU time add up to at most 100" },
        /* Latencies, histogram, samples: consistent with each other. */
        { "{\"lat_p50_ns\":200000}", "RESULT latencies out of order" },
        { "{\"lat_stddev_ns\":5000000}", "lat_stddev_ns=5000000 is larger than latencies from 100000 to 100000" },
        { "{\"lat_max_ns\":300000}", "is not in the highest non-empty HISTOGRAM bucket" },
        { "{\"histogram\":[[@BUCKET@,3]]}", "the HISTOGRAM holds 3 latencies, but RESULT counts 2 I/Os" },
        { "{\"bytes_read\":4096,\"ios_read\":1}", "RESULT bytes_read=4096 but the samples add up to 8192, more" },
        { "{\"bytes_read\":9000}", "RESULT bytes_read=9000 in ios_read=2: every I/O of this step moves 1 to 4096" },
        { "{\"bytes_written\":4096,\"ios_written\":1}", "but a randread step does not write in its measured phase" },
        { "{\"ops\":2}", "RESULT ops=2 from a randread step" },
        { "{\"samples\":[{\"t_ms\":1000,\"bytes_read\":8192,\"bytes_written\":0,\"ios_read\":2,\"ios_written\":0,"
          "\"lat_mean_ns\":100000,\"lat_p50_ns\":100000,\"lat_p99_ns\":100000,\"lat_max_ns\":100000,"
          "\"iowait_pct\":150}]}", "sample 1 of 1: SAMPLE iowait_pct=150 is not a percentage" },
        { "{\"samples\":[{\"t_ms\":9000,\"bytes_read\":8192,\"bytes_written\":0,\"ios_read\":2,\"ios_written\":0}]}",
          "sample 1 ends at t_ms=9000, after the measured phase's duration_usec=2000000" },
        { "{\"samples\":[{\"t_ms\":1000,\"bytes_read\":8192,\"bytes_written\":0,\"ios_read\":2,\"ios_written\":0,"
          "\"lat_p50_ns\":5,\"lat_p99_ns\":4,\"lat_max_ns\":100000}]}", "sample 1 of 1: SAMPLE latencies out of order" },
        { "{\"phases\":[{\"phase\":\"create-seq\",\"ops\":1,\"duration_usec\":1000,\"lat_min_ns\":10,\"lat_mean_ns\":10,"
          "\"lat_p50_ns\":10,\"lat_p99_ns\":10,\"lat_max_ns\":10}]}", "phase 1 of 1: PHASE_RESULT create-seq from a "
          "randread step" },
        { "{\"positions\":[{\"seq\":0,\"offset_bytes\":0,\"bytes\":4096}]}",
          "position 1 of 1: POSITION_RESULT 0 from a randread step" },
        { "{\"steady_state\":1,\"steady_state_usec\":1500000}", "steady_state_usec: STEADY_STATE t_ms=1500 is not the "
          "end of the latest SAMPLE" },
        { "{\"duration_usec\":null,\"bytes_read\":null,\"bytes_written\":null,\"ios_read\":null,\"ios_written\":null,"
          "\"ops\":null,\"lat_min_ns\":null,\"lat_mean_ns\":null,\"lat_stddev_ns\":null,\"lat_p50_ns\":null,"
          "\"lat_p90_ns\":null,\"lat_p95_ns\":null,\"lat_p99_ns\":null,\"lat_p999_ns\":null,\"lat_p9999_ns\":null,"
          "\"lat_max_ns\":null}", "\"duration_usec\" is missing: a succeeded run has its result" },
};

START_TEST(test_import_refused) {
        _cleanup_(db_closep) Db *db = open_db();
        const char *patch = import_refused[_i].patch;
        _cleanup_json_ json_object *runs = NULL, *good = NULL;
        uint64_t imported = 7, skipped = 7;
        int r;

        runs = runs_of(run_with(patch), NULL);
        r = db_runs_import(db, runs, "other-host", NOW_USEC, &imported, &skipped);
        ck_assert_msg(r == -EINVAL, "%s: %d (%s)", patch, r, db_last_error(db));
        ck_assert_msg(strstr(db_last_error(db), import_refused[_i].want),
                      "%s: \"%s\" does not say \"%s\"", patch, db_last_error(db), import_refused[_i].want);
        ck_assert_msg(strstr(db_last_error(db), "run 1 of 1 in the import document"), "%s", db_last_error(db));
        /* Named by its uuid, whichever column is wrong. */
        ck_assert_msg(strstr(patch, "uuid") || strstr(db_last_error(db), "(uuid 0123abcd-4567-4def-8901-23456789abcd)"),
                      "%s", db_last_error(db));
        ck_assert_uint_eq(imported, 7); /* not written on failure */
        ck_assert_int_eq(count("runs"), 0);
        ck_assert_int_eq(count("sample_data"), 0);
        ck_assert_int_eq(count("run_histograms"), 0);

        /* And the run as it should be goes in: nothing half-written was left. */
        good = runs_of(run_with(NULL), NULL);
        ck_assert_int_eq(db_runs_import(db, good, "other-host", NOW_USEC, &imported, &skipped), 0);
        ck_assert_uint_eq(imported, 1);
}
END_TEST

/* What real histories hold: each goes in. */
static const char *const import_accepted[] = {
        "{\"samples\":null}",                           /* pruned by SampleRetentionDays= */
        "{\"histogram\":null}",                         /* the database did not take it */
        "{\"samples\":[{\"t_ms\":1000,\"bytes_read\":4096,\"bytes_written\":0,\"ios_read\":1,\"ios_written\":0,"
        "\"lat_mean_ns\":100000,\"lat_p50_ns\":100000,\"lat_p99_ns\":100000,\"lat_max_ns\":100000}]}", /* one lost */
        "{\"status\":\"failed\",\"error\":\"disk gone\",\"duration_usec\":null,\"bytes_read\":null,"
        "\"bytes_written\":null,\"ios_read\":null,\"ios_written\":null,\"ops\":null,\"lat_min_ns\":null,"
        "\"lat_mean_ns\":null,\"lat_stddev_ns\":null,\"lat_p50_ns\":null,\"lat_p90_ns\":null,\"lat_p95_ns\":null,"
        "\"lat_p99_ns\":null,\"lat_p999_ns\":null,\"lat_p9999_ns\":null,\"lat_max_ns\":null,\"iowait_pct\":null,"
        "\"cpu_user_pct\":null,\"cpu_sys_pct\":null,\"dev_util_pct\":null}",
        "{\"device_name\":\"loop\\u001b[31mRED\\u0007\"}", /* shown escaped by benchctl, stored as given */
        "{\"dev_util_pct\":null,\"iowait_pct\":null}",
        "{\"steady_state\":0}",
        "{\"steady_state\":1,\"steady_state_usec\":2000000}",
        "{\"cpu_user_pct\":94.5,\"cpu_sys_pct\":3.0,\"iowait_pct\":2.5}",
        "{\"started_usec\":1700172797000000}",       /* ends within the day after now */
};

START_TEST(test_import_accepted) {
        _cleanup_(db_closep) Db *db = open_db();
        _cleanup_json_ json_object *runs = runs_of(run_with(import_accepted[_i]), NULL);
        uint64_t imported = 0, skipped = 0;

        ck_assert_msg(db_runs_import(db, runs, "other-host", NOW_USEC, &imported, &skipped) == 0, "%s: %s",
                      import_accepted[_i], db_last_error(db));
        ck_assert_uint_eq(imported, 1);
        ck_assert_int_eq(count("runs"), 1);
}
END_TEST

START_TEST(test_import_stored_as_given) {
        _cleanup_(db_closep) Db *db = open_db();
        _cleanup_json_ json_object *runs = runs_of(run_with(import_accepted[4]), NULL);
        _cleanup_free_ char *name = NULL, *util = NULL;

        ck_assert_int_eq(db_runs_import(db, runs, "other-host", NOW_USEC, NULL, NULL), 0);
        name = raw_text("SELECT hex(device_name) FROM runs");
        ck_assert_str_eq(name, "6C6F6F701B5B33316D5245440" "7"); /* loop ESC [31m RED BEL */
        json_object_put(runs);
        runs = runs_of(run_with("{\"uuid\":\"0123abcd-4567-4def-8901-23456789abce\",\"dev_util_pct\":-1}"), NULL);
        ck_assert_int_eq(db_runs_import(db, runs, "other-host", NOW_USEC, NULL, NULL), 0);
        util = raw_text("SELECT dev_util_pct FROM runs WHERE uuid LIKE '%abce'");
        ck_assert_ptr_null(util); /* -1: unknown, stored as the daemon stores its own */
}
END_TEST

/* A document is all or nothing: a refused second run leaves the first out too. */
START_TEST(test_import_all_or_nothing) {
        _cleanup_(db_closep) Db *db = open_db();
        _cleanup_json_ json_object *bad = NULL, *good = NULL, *twice = NULL;
        uint64_t imported = 0, skipped = 0;

        bad = runs_of(run_with(NULL), run_with("{\"uuid\":\"0123abcd-4567-4def-8901-23456789abce\","
                                                "\"cpu_user_pct\":1e308}"));
        ck_assert_int_eq(db_runs_import(db, bad, "other-host", NOW_USEC, &imported, &skipped), -EINVAL);
        ck_assert_msg(strstr(db_last_error(db), "run 2 of 2 in the import document (uuid "
                             "0123abcd-4567-4def-8901-23456789abce): RESULT cpu_user_pct=1e+308"), "%s",
                      db_last_error(db));
        ck_assert_msg(strstr(db_last_error(db), "nothing of the document was imported"), "%s", db_last_error(db));
        ck_assert_int_eq(count("runs"), 0);
        ck_assert_int_eq(count("sample_data"), 0);

        good = runs_of(run_with(NULL), run_with("{\"uuid\":\"0123abcd-4567-4def-8901-23456789abce\"}"));
        ck_assert_int_eq(db_runs_import(db, good, "other-host", NOW_USEC, &imported, &skipped), 0);
        ck_assert_uint_eq(imported, 2);
        ck_assert_int_eq(count("runs"), 2);
        ck_assert_int_eq(count("sample_data"), 4);

        /* The same uuid twice in one document: once. */
        twice = runs_of(run_with("{\"uuid\":\"0123abcd-4567-4def-8901-23456789abcf\"}"),
                        run_with("{\"uuid\":\"0123abcd-4567-4def-8901-23456789abcf\"}"));
        ck_assert_int_eq(db_runs_import(db, twice, "other-host", NOW_USEC, &imported, &skipped), 0);
        ck_assert_uint_eq(imported, 1);
        ck_assert_uint_eq(skipped, 1);

        /* Not a JSON object, and no host. */
        json_object_put(bad);
        bad = json_object_new_array();
        json_object_array_add(bad, json_object_new_int(7));
        ck_assert_int_eq(db_runs_import(db, bad, "other-host", NOW_USEC, NULL, NULL), -EINVAL);
        ck_assert_msg(strstr(db_last_error(db), "run 1 of 1 in the import document: it is not a JSON object"), "%s",
                      db_last_error(db));
        ck_assert_int_eq(db_runs_import(db, good, "", NOW_USEC, NULL, NULL), -EINVAL);
}
END_TEST

START_TEST(test_import_text_limit) {
        _cleanup_(db_closep) Db *db = open_db();
        _cleanup_free_ char *big = malloc(DB_IMPORT_TEXT_MAX + 2);
        _cleanup_json_ json_object *runs = NULL;
        json_object *run;

        ck_assert_ptr_nonnull(big);
        memset(big, 'x', DB_IMPORT_TEXT_MAX + 1);
        big[DB_IMPORT_TEXT_MAX + 1] = 0;
        run = run_with(NULL);
        json_object_object_add(run, "label", json_object_new_string(big));
        runs = runs_of(run, NULL);
        ck_assert_int_eq(db_runs_import(db, runs, "other-host", NOW_USEC, NULL, NULL), -EINVAL);
        ck_assert_msg(strstr(db_last_error(db), "\"label\" is a string of 65537 bytes: it should have at most 65536"),
                      "%s", db_last_error(db));
}
END_TEST

/* Every column a spec registry row names is imported as given: the import's columns come from the
 * registry as the run's INSERT does (a key recorded in a new column needs nothing in db-import.c). */
START_TEST(test_import_registry_columns) {
        _cleanup_(db_closep) Db *db = open_db();
        _cleanup_json_ json_object *runs = NULL;
        json_object *run;
        size_t checked = 0;

        run = run_with("{\"sync\":\"none\",\"rwmix_read\":50,\"pattern\":\"random\",\"label\":\"nightly\","
                       "\"tags\":[\"a\",\"b\"],\"fleet_uuid\":\"89abcdef-0123-4567-89ab-cdef01234567\","
                       "\"fleet_host\":\"root@host-b\"}");
        /* A number the run above does not give (a key newer than this test): its default. */
        for (SpecKey k = 0; k < _SPEC_KEY_MAX; k++) {
                const SpecKeyInfo *ki = spec_key_info(k);

                if (ki->runs_column && !json_object_object_get_ex(run, ki->runs_column, NULL) && ki->has_default &&
                    (ki->kind == SPEC_KIND_SIZE || ki->kind == SPEC_KIND_NUMBER || ki->kind == SPEC_KIND_BOOL))
                        json_object_object_add(run, ki->runs_column, json_object_new_uint64(ki->default_value));
        }
        runs = runs_of(run, NULL);
        ck_assert_msg(db_runs_import(db, runs, "other-host", NOW_USEC, NULL, NULL) == 0, "%s", db_last_error(db));
        for (SpecKey k = 0; k < _SPEC_KEY_MAX; k++) {
                const SpecKeyInfo *ki = spec_key_info(k);
                _cleanup_free_ char *sql = NULL, *stored = NULL;
                json_object *v = NULL;
                const char *want;

                if (!ki->runs_column)
                        continue;
                ck_assert_msg(json_object_object_get_ex(run, ki->runs_column, &v) && v,
                              "the test's run has no \"%s\" (spec key %s): give it one", ki->runs_column, ki->name);
                want = json_object_is_type(v, json_type_array) ?
                        json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE) :
                        json_object_get_string(v);
                ck_assert_int_ge(asprintf(&sql, "SELECT \"%s\" FROM runs", ki->runs_column), 0);
                stored = raw_text(sql);
                ck_assert_msg(stored && streq(stored, want), "runs.%s is %s, the document said %s", ki->runs_column,
                              stored ?: "NULL", want);
                checked++;
        }
        ck_assert_uint_ge(checked, 16);
}
END_TEST

/* A real export (test-import.sh's, two runs measured by a real worker) passes every rule. */
START_TEST(test_import_real_export) {
        _cleanup_(db_closep) Db *db = open_db();
        _cleanup_json_ json_object *doc = NULL;
        _cleanup_free_ char *text = NULL, *err = NULL;
        const char *host = NULL;
        json_object *runs = NULL;
        uint64_t imported = 0, skipped = 0;

        text = read_corpus("export-two-runs.json");
        ck_assert_int_eq(db_import_document_parse(text, &doc, &host, &runs, &err), 0);
        /* Now: an hour after the runs were measured. */
        ck_assert_msg(db_runs_import(db, runs, host, UINT64_C(1796131700083542) + 3600 * USEC_PER_SEC, &imported,
                                     &skipped) == 0, "%s", db_last_error(db));
        ck_assert_uint_eq(imported, 2);
        /* Two days before they were measured, they could not have been. */
        ck_assert_int_eq(db_runs_import(db, runs, host, UINT64_C(1796131700083542) - 2 * 86400 * USEC_PER_SEC, NULL,
                                        NULL), -EINVAL);
        ck_assert_msg(strstr(db_last_error(db), "is not between 1970 and now plus a day"), "%s", db_last_error(db));
}
END_TEST

/* The fuzz seed of a layout run (tests/fuzz/make-seeds) reaches the database: every rule passed. */
START_TEST(test_import_layout_seed) {
        _cleanup_(db_closep) Db *db = open_db();
        _cleanup_json_ json_object *doc = NULL;
        _cleanup_free_ char *text = NULL, *err = NULL, *cols = NULL;
        const char *host = NULL;
        json_object *runs = NULL;
        uint64_t imported = 0;

        text = read_corpus("one-run-layout.json");
        ck_assert_int_eq(db_import_document_parse(text, &doc, &host, &runs, &err), 0);
        ck_assert_msg(db_runs_import(db, runs, host, UINT64_C(1796131700083542) + 3600 * USEC_PER_SEC, &imported,
                                     NULL) == 0, "%s", db_last_error(db));
        ck_assert_uint_eq(imported, 1);
        cols = raw_text("SELECT md_array || ' ' || lvm_vg || ' ' || lv_extents || ' ' || \"partition\" || ' ' || "
                        "json_array_length(layout_commands) FROM runs");
        ck_assert_str_eq(cols, "benchd-3-1 benchd-3-1 25 1 2");
}
END_TEST

/* ---- the layouts' columns: export (GetRun's db_get_run()) and import carry every column ---- */

/* A second database beside the fixture's: the host the runs are exported from. */
static char apath[300];

static Db *open_a(void) {
        Db *db = NULL;

        snprintf(apath, sizeof(apath), "%s/a.db", tmpdir);
        ck_assert_int_eq(db_open(apath, &db), 0);
        return db;
}

static void remove_a(void) {
        static const char *const suffixes[] = { "", "-wal", "-shm", "-journal" };
        char p[320];

        for (size_t i = 0; i < ELEMENTSOF(suffixes); i++) {
                snprintf(p, sizeof(p), "%s%s", apath, suffixes[i]);
                (void) unlink(p);
        }
}

#define LAYOUT_COMMANDS "[{\"command\":\"mdadm --create /dev/md/benchd-1-0 --level=1\",\"usec\":5000,\"exit\":0," \
        "\"output\":\"\"},{\"command\":\"lvm vgcreate benchd-1-0 /dev/md/benchd-1-0\",\"usec\":3000,\"exit\":0,"  \
        "\"output\":\"created\"}]"

/* A run of an md-raid1+lvm entry on partitions, as the daemon writes one: through the store's own
 * functions (this machine has no md), every layout column filled. */
static uint64_t layout_run(Db *db, const char *vg) {
        DbJob j = { .workload = "randread", .spec_json = "{}", .target = "/dev/loop9",
                    .submitted_usec = 1700000000000000 };
        DbRun run = {
                .step = 0,
                .spec = fixture_spec("workload=randread block_size=4096 size=1M runtime_ms=2000 queue_depth=4 "
                                     "jobs=1 direct=true target=/dev/loop9 label=nightly tags=a,b"),
                .device_id = -1, .device_name = "loop9", .fs_type = "ext4", .mount_options = "noatime",
                .environment = "{\"host\":\"a\",\"kernel\":\"6.1\"}", .started_usec = 1700000000000000,
                .layout = "md-raid1+lvm", .members_json = "[\"/dev/loop9\",\"/dev/loop10\"]",
                .in_matrix = true, .matrix_entry = 0, .mkfs_options = "-E lazy_itable_init=0",
                .in_round = true, .round = 0, .partitions = 2, .partition = 1,
                .md_array = vg, .md_resync = "wait", .lvm_vg = vg,
        };
        DbRunFs fs = {
                .mkfs_command = "mkfs.ext4 -E lazy_itable_init=0 /dev/benchd-1-0/lv", .mkfs_output = "done\n",
                .fs_uuid = "0b7f5e8a-1111-4222-8333-944445555666", .mkfs_usec = 120000,
                .size_bytes = 100000000, .used_bytes = 2000000, .avail_bytes = 90000000, .inodes = 25000,
                .inodes_free = 24989,
                .fs_commands_json = "[{\"command\":\"sfdisk /dev/loop9\",\"usec\":9000,\"status\":0,\"output\":\"\"}]",
                .layout_commands = LAYOUT_COMMANDS, .md_chunk_bytes = 0, .md_resync_usec = 800000,
                .lv_extents = 25, .lv_bytes = 104857600,
        };
        ProtoResult res = {
                .started_usec = 1700000000000000, .duration_usec = 2000000, .bytes_read = 8192, .ios_read = 2,
                .lat_min_ns = 100000, .lat_mean_ns = 100000, .lat_p50_ns = 100000, .lat_p90_ns = 100000,
                .lat_p95_ns = 100000, .lat_p99_ns = 100000, .lat_p999_ns = 100000, .lat_p9999_ns = 100000,
                .lat_max_ns = 100000, .iowait_pct = 2.5, .cpu_user_pct = 1.5, .cpu_sys_pct = 3.0,
                .dev_util_pct = 10.0, .device = (char *) "loop9", .process_user_usec = 30000,
                .process_sys_usec = 60000,
        };
        uint64_t id = 0;

        ck_assert_int_eq(db_job_insert(db, &j, &run.job_id), 0);
        ck_assert_msg(db_run_begin(db, &run, &id) == 0, "%s", db_last_error(db));
        ck_assert_msg(db_run_set_fs(db, id, &fs) == 0, "%s", db_last_error(db));
        ck_assert_msg(db_run_add_layout_commands(db, id, "[{\"command\":\"lvm vgchange --activate n benchd-1-0\","
                                                 "\"usec\":700,\"exit\":0,\"output\":\"\"}]") == 0, "%s",
                      db_last_error(db));
        ck_assert_msg(db_run_set_fleet(db, id, &(DbRunFleet) {
                              .uuid = "89abcdef-0123-4567-89ab-cdef01234567", .host = "root@a", .started = true,
                              .clock_offset_us = -1500, .rtt_us = 300, .start_usec = 1700000000000000 }) == 0,
                      "%s", db_last_error(db));
        ck_assert_msg(db_run_finish(db, id, "succeeded", NULL, &res) == 0, "%s", db_last_error(db));
        return id;
}

/* GetRun's row as the bus gives it and benchctl export writes it: NULL columns absent. */
static int to_json(const DbField *fields, size_t n, void *userdata) {
        json_object *o = userdata;

        for (size_t i = 0; i < n; i++)
                switch (fields[i].type) {
                case DB_FIELD_INTEGER:
                        json_object_object_add(o, fields[i].name, json_object_new_int64(fields[i].i));
                        break;
                case DB_FIELD_REAL:
                        json_object_object_add(o, fields[i].name, json_object_new_double(fields[i].d));
                        break;
                case DB_FIELD_TEXT:
                        json_object_object_add(o, fields[i].name, json_object_new_string(fields[i].s));
                        break;
                default:
                        break;
                }
        return 0;
}

/* The run's columns, each as SQL's quote() writes it, in the table's order; the importer's own
 * (ids, job, device, origin host) left out. */
static json_object *columns_of(const char *path, const char *uuid) {
        _cleanup_free_ char *sql = NULL;
        json_object *o = json_object_new_object();
        sqlite3_stmt *names = NULL, *st = NULL;
        sqlite3 *s = NULL;

        ck_assert_int_eq(sqlite3_open(path, &s), SQLITE_OK);
        ck_assert_int_eq(sqlite3_prepare_v2(s, "SELECT name FROM pragma_table_info('runs') WHERE name NOT IN "
                                            "('id', 'job_id', 'device_id', 'origin_host') ORDER BY cid", -1, &names,
                                            NULL), SQLITE_OK);
        while (sqlite3_step(names) == SQLITE_ROW) {
                const char *name = (const char *) sqlite3_column_text(names, 0);

                free(sql);
                ck_assert_int_ge(asprintf(&sql, "SELECT quote(\"%s\") FROM runs WHERE uuid = ?", name), 0);
                ck_assert_int_eq(sqlite3_prepare_v2(s, sql, -1, &st, NULL), SQLITE_OK);
                sqlite3_bind_text(st, 1, uuid, -1, SQLITE_TRANSIENT);
                ck_assert_msg(sqlite3_step(st) == SQLITE_ROW, "no run %s in %s", uuid, path);
                json_object_object_add(o, name, json_object_new_string((const char *) sqlite3_column_text(st, 0)));
                sqlite3_finalize(st);
        }
        sqlite3_finalize(names);
        sqlite3_close(s);
        return o;
}

/* The columns the migrations 0017..0023 added and the ones of a layout before them: each filled
 * by layout_run(), so that the comparison below sees each carried. */
static const char *const layout_columns[] = {
        "layout", "members", "matrix_entry", "mkfs_command", "mkfs_options", "mkfs_usec", "mkfs_output",
        "fs_uuid", "fs_size_bytes", "fs_used_bytes", "fs_avail_bytes", "fs_inodes", "fs_inodes_free",
        "process_user_usec", "process_sys_usec", "round", "fleet_uuid", "fleet_host", "fleet_clock_offset_us",
        "fleet_rtt_us", "fleet_start_usec", "fleet_start_corrected", "fs_commands", "partitions", "partition",
        "md_array", "md_resync", "md_resync_usec", "md_chunk_bytes", "layout_commands", "lvm_vg", "lv_extents",
        "lv_bytes",
};

START_TEST(test_import_layout_columns) {
        _cleanup_json_ json_object *doc_runs = json_object_new_array(), *ca = NULL, *cb = NULL;
        _cleanup_free_ char *uuid = NULL;
        json_object *run = json_object_new_object();
        size_t compared = 0;
        uint64_t imported = 0, id;

        {
                _cleanup_(db_closep) Db *a = open_a();

                id = layout_run(a, "benchd-1-0");
                ck_assert_msg(db_get_run(a, id, to_json, run) == 1, "%s", db_last_error(a));
        }
        ck_assert_int_eq(json_object_array_add(doc_runs, run), 0);
        uuid = strdup(json_object_get_string(json_object_object_get(run, "uuid")));
        /* GetRun has every column of runs but the ids (job_id and device_id are NULL here). */
        ca = columns_of(apath, uuid);
        json_object_object_foreach(ca, name, v) {
                ck_assert_msg(json_object_object_get_ex(run, name, NULL) || streq(json_object_get_string(v), "NULL"),
                              "GetRun has no \"%s\", which runs has (%s)", name, json_object_get_string(v));
        }
        for (size_t i = 0; i < ELEMENTSOF(layout_columns); i++)
                ck_assert_msg(!streq(json_object_get_string(json_object_object_get(ca, layout_columns[i])), "NULL"),
                              "the exported run has no %s: fill it in layout_run()", layout_columns[i]);

        {
                _cleanup_(db_closep) Db *b = open_db();

                ck_assert_msg(db_runs_import(b, doc_runs, "host-a", NOW_USEC, &imported, NULL) == 0, "%s",
                              db_last_error(b));
                ck_assert_uint_eq(imported, 1);
        }
        /* Column by column, as quote() writes them: the same on both. */
        cb = columns_of(dbpath, uuid);
        json_object_object_foreach(ca, col, va) {
                const char *x = json_object_get_string(va),
                        *y = json_object_get_string(json_object_object_get(cb, col));

                ck_assert_msg(y && streq(x, y), "runs.%s: %s exported, %s imported", col, x, y ?: "(no column)");
                compared++;
        }
        ck_assert_uint_ge(compared, 85); /* version 23's runs: 89 columns, 4 of them the importer's own */
        remove_a();
}
END_TEST

/* The layout columns' rules: a bad value is refused, naming the column. */
static const struct {
        const char *patch;
        const char *want;
} layout_refused[] = {
        { "{\"md_array\":\"benchd-1-0\"}", "\"md_array\" is given, but \"layout\" is missing: only a run of a layout "
          "that builds an md array" },
        { "{\"layout\":\"lvm\",\"md_resync\":\"wait\"}", "\"md_resync\" is given, but \"layout\" is 'lvm'" },
        { "{\"layout\":\"md-raid1\",\"lvm_vg\":\"benchd-1-0\"}", "\"lvm_vg\" is given, but \"layout\" is "
          "'md-raid1': only a run of an LVM layout" },
        { "{\"layout\":\"single\",\"layout_commands\":[]}", "\"layout_commands\" is given, but \"layout\" is "
          "'single'" },
        { "{\"layout\":\"md-raid1\",\"md_array\":\"/dev/sda\"}", "\"md_array\" is '/dev/sda': it should be the name "
          "benchd gives an md array, benchd-JOB-ENTRY" },
        { "{\"layout\":\"lvm\",\"lvm_vg\":\"vg0\"}", "\"lvm_vg\" is 'vg0': it should be the name benchd gives a "
          "volume group" },
        { "{\"layout\":\"md-raid1\",\"md_resync\":\"soon\"}", "\"md_resync\" is 'soon': it should be wait or "
          "assume-clean" },
        { "{\"layout\":\"md-raid0\",\"md_chunk_bytes\":-1}", "\"md_chunk_bytes\" is -1: it should be an integer" },
        { "{\"layout\":\"lvm\",\"lv_extents\":0,\"lv_bytes\":4096}", "\"lv_extents\" is given and \"lv_bytes\" "
          "given: a logical volume has both, each more than 0" },
        { "{\"layout\":\"lvm\",\"lv_bytes\":4096}", "\"lv_extents\" is missing and \"lv_bytes\" given" },
        { "{\"layout\":\"lvm\",\"lv_extents\":8192,\"lv_bytes\":4096}", "no more extents than bytes" },
        { "{\"partitions\":17,\"partition\":1}", "\"partitions\" is given and \"partition\" given: a run on "
          "partitions has both, partitions from 1 to 16" },
        { "{\"partitions\":2,\"partition\":3}", "partition from 1 to partitions" },
        { "{\"partition\":2}", "\"partitions\" is missing and \"partition\" given" },
        { "{\"fs_commands\":\"[1]\"}", "element 1 of \"fs_commands\" is no JSON object" },
        { "{\"layout\":\"md-raid1\",\"layout_commands\":\"{\\\"a\\\":1}\"}", "\"layout_commands\" is JSON but no "
          "array" },
        { "{\"layout\":\"md-raid1\",\"layout_commands\":\"[{\"}", "\"layout_commands\" is not JSON" },
        /* A CHECK of the table the rules above do not repeat: named by its column all the same. */
        { "{\"layout\":\"raid7\"}", "\"layout\" is 'raid7': the database takes a run only where layout IS NULL OR "
          "layout IN (" },
        { "{\"baseline_segment\":\"later\"}", "\"baseline_segment\" is 'later': the database takes a run only where" },
        { "{\"members\":\"{}\"}", "\"members\" is '{}': the database takes a run only where" },
};

START_TEST(test_import_layout_refused) {
        _cleanup_(db_closep) Db *db = open_db();
        _cleanup_json_ json_object *runs = runs_of(run_with(layout_refused[_i].patch), NULL);
        int r;

        r = db_runs_import(db, runs, "other-host", NOW_USEC, NULL, NULL);
        ck_assert_msg(r == -EINVAL, "%s: %d (%s)", layout_refused[_i].patch, r, db_last_error(db));
        ck_assert_msg(strstr(db_last_error(db), layout_refused[_i].want), "%s: \"%s\" does not say \"%s\"",
                      layout_refused[_i].patch, db_last_error(db), layout_refused[_i].want);
        ck_assert_msg(strstr(db_last_error(db), "run 1 of 1 in the import document (uuid "
                             "0123abcd-4567-4def-8901-23456789abcd)"), "%s", db_last_error(db));
        ck_assert_int_eq(count("runs"), 0);
}
END_TEST

START_TEST(test_import_layout_accepted) {
        _cleanup_(db_closep) Db *db = open_db();
        _cleanup_json_ json_object *runs = runs_of(run_with(
                "{\"layout\":\"md-raid1+lvm\",\"md_array\":\"benchd-3-1\",\"md_resync\":\"assume-clean\","
                "\"md_resync_usec\":0,\"md_chunk_bytes\":0,\"lvm_vg\":\"benchd-3-1\",\"lv_extents\":25,"
                "\"lv_bytes\":104857600,\"layout_commands\":[{\"command\":\"mdadm --create\",\"usec\":5}],"
                "\"partitions\":2,\"partition\":1,\"fs_commands\":[],\"baseline_segment\":\"first\"}"), NULL);
        _cleanup_free_ char *vg = NULL, *commands = NULL;

        ck_assert_msg(db_runs_import(db, runs, "other-host", NOW_USEC, NULL, NULL) == 0, "%s", db_last_error(db));
        vg = raw_text("SELECT lvm_vg || ' ' || md_array || ' ' || lv_bytes FROM runs");
        ck_assert_str_eq(vg, "benchd-3-1 benchd-3-1 104857600");
        commands = raw_text("SELECT json_extract(layout_commands, '$[0].command') FROM runs");
        ck_assert_str_eq(commands, "mdadm --create");
}
END_TEST

/* An imported run's md array or volume group is the other host's: never one benchd stops or
 * deactivates here as a killed worker's leftover, even of a name this host's runs had or may have. */
START_TEST(test_import_never_leftover) {
        _cleanup_(db_closep) Db *db = open_db();
        _cleanup_json_ json_object *runs = runs_of(run_with(
                "{\"layout\":\"md-raid1+lvm\",\"md_array\":\"benchd-2-0\",\"md_resync\":\"wait\","
                "\"lvm_vg\":\"benchd-2-0\"}"), run_with(
                "{\"uuid\":\"0123abcd-4567-4def-8901-23456789abce\",\"layout\":\"md-raid1\","
                "\"md_array\":\"benchd-1-0\",\"md_resync\":\"wait\"}"));
        _cleanup_strv_free_ char **md = NULL, **vgs = NULL, **md_idle = NULL;

        ck_assert_msg(db_runs_import(db, runs, "other-host", NOW_USEC, NULL, NULL) == 0, "%s", db_last_error(db));
        /* Only imported runs: no name at all. */
        ck_assert_int_eq(db_md_arrays_recorded(db, false, 0, &md), 0);
        ck_assert_ptr_null(md[0]);
        ck_assert_int_eq(db_lvm_vgs_recorded(db, false, 0, &vgs), 0);
        ck_assert_ptr_null(vgs[0]);
        strv_free(md);
        strv_free(vgs);

        /* This host's run benchd-1-0 beside them: its name only. */
        (void) layout_run(db, "benchd-1-0");
        ck_assert_int_eq(db_md_arrays_recorded(db, false, 0, &md), 0);
        ck_assert_int_eq(db_md_arrays_recorded(db, true, 0, &md_idle), 0);
        ck_assert_int_eq(db_lvm_vgs_recorded(db, false, 0, &vgs), 0);
        ck_assert_uint_eq(strv_length(md), 1);
        ck_assert_str_eq(md[0], "benchd-1-0");
        ck_assert_uint_eq(strv_length(md_idle), 1);
        ck_assert_uint_eq(strv_length(vgs), 1);
        ck_assert_str_eq(vgs[0], "benchd-1-0");
}
END_TEST

int main(void) {
        Suite *s = suite_create("db-import");
        TCase *tc = tcase_create("import");

        tcase_add_checked_fixture(tc, setup, teardown);
        tcase_add_test(tc, test_import_run);
        tcase_add_loop_test(tc, test_import_refused, 0, ELEMENTSOF(import_refused));
        tcase_add_loop_test(tc, test_import_accepted, 0, ELEMENTSOF(import_accepted));
        tcase_add_test(tc, test_import_stored_as_given);
        tcase_add_test(tc, test_import_all_or_nothing);
        tcase_add_test(tc, test_import_text_limit);
        tcase_add_test(tc, test_import_real_export);
        tcase_add_test(tc, test_import_registry_columns);
        tcase_add_test(tc, test_import_layout_columns);
        tcase_add_loop_test(tc, test_import_layout_refused, 0, ELEMENTSOF(layout_refused));
        tcase_add_test(tc, test_import_layout_accepted);
        tcase_add_test(tc, test_import_never_leftover);
        tcase_add_test(tc, test_import_layout_seed);
        tcase_set_timeout(tc, 60);
        suite_add_tcase(s, tc);
        return check_run(s);
}
