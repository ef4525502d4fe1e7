/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Which md arrays benchd stops as a killed worker's leftovers (daemon/jobs/md-leftovers.h), over a
 * sysfs tree and member "devices" (files with md 1.x superblocks) made in a temporary directory:
 * only arrays whose members all name one recorded benchd-JOB-ENTRY with homehost benchd, at each
 * superblock position; the stop is array_state "clear". And the names the store records for it.
 */
#include <check.h>
#include <json-c/json.h>
#include <sqlite3.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check-util.h"
#include "jobs/leftovers.h"
#include "jobs/md-leftovers.h"
#include "store/db.h"
#include "store/db-queue.h"
#include "shared/json-util.h"
#include "shared/spec.h"
#include "shared/strv.h"
#include "shared/util.h"
#include "fake-sysfs.h"

#define MEMBER_SIZE (1024 * 1024)

static char *root;

/* Paths under the test's own sysfs root. */
#define mkdirs(rel) fake_sysfs_mkdirs(root, (rel))
#define write_file(rel, ...) fake_sysfs_write(root, (rel), __VA_ARGS__)

static char *read_file(const char *rel) {
        static char buf[256];
        char path[PATH_MAX + 300];
        FILE *f;
        size_t n;

        snprintf(path, sizeof(path), "%s/%s", root, rel);
        f = fopen(path, "re");
        ck_assert_ptr_nonnull(f);
        n = fread(buf, 1, sizeof(buf) - 1, f);
        buf[n] = 0;
        fclose(f);
        return buf;
}

/* A member of MEMBER_SIZE bytes with an md 1.x superblock naming set_name at offset (-1: 1.0's
 * place, 8 KiB before the end), or none (set_name NULL). */
static void member(const char *name, const char *set_name, long offset) {
        char path[PATH_MAX];
        uint8_t sb[256] = {};
        uint32_t magic = htole32(MD_SUPER_MAGIC), major = htole32(1);
        int fd;

        snprintf(path, sizeof(path), "%s/dev/%s", root, name);
        fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        ck_assert_int_ge(fd, 0);
        ck_assert_int_eq(ftruncate(fd, MEMBER_SIZE), 0);
        if (set_name) {
                memcpy(sb, &magic, 4);
                memcpy(sb + 4, &major, 4);
                strncpy((char *) sb + 32, set_name, 32);
                ck_assert_int_eq(pwrite(fd, sb, sizeof(sb), offset < 0 ? MEMBER_SIZE - 8192 : offset),
                                 (ssize_t) sizeof(sb));
        }
        close(fd);
}

/* An md device with these members (NULL-terminated), array_state "clean". */
static void array(const char *md, const char *const *members) {
        char rel[256];

        snprintf(rel, sizeof(rel), "sys/block/%s/md", md);
        mkdirs(rel);
        snprintf(rel, sizeof(rel), "sys/block/%s/slaves", md);
        mkdirs(rel);
        for (size_t i = 0; members[i]; i++) {
                snprintf(rel, sizeof(rel), "sys/block/%s/slaves/%s", md, members[i]);
                mkdirs(rel);
        }
        snprintf(rel, sizeof(rel), "sys/block/%s/md/array_state", md);
        write_file(rel, "clean\n");
}

static const char *state(const char *md) {
        char rel[256];

        snprintf(rel, sizeof(rel), "sys/block/%s/md/array_state", md);
        return read_file(rel);
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
        (void) st, (void) flag, (void) ftw;
        return remove(path);
}

static void setup(void) {
        ck_assert_int_ge(asprintf(&root, "%s/test-md-leftovers-XXXXXX", getenv("TMPDIR") ?: "/tmp"), 0);
        ck_assert_ptr_nonnull(mkdtemp(root));
        mkdirs("dev");
        mkdirs("sys/block/loop1");  /* not md: never looked at */

        member("loop1", "benchd:benchd-4-1", 4096);     /* md127: ours, 1.2 */
        member("loop2", "benchd:benchd-4-1", 4096);
        member("loop3", "benchd:benchd-9-0", 4096);     /* md126: benchd's name, not recorded */
        member("loop4", "benchd:benchd-9-0", 4096);
        member("loop5", "myhost:benchd-4-1", 4096);     /* md125: another homehost */
        member("loop6", "myhost:benchd-4-1", 4096);
        member("loop7", "benchd:benchd-4-1", 4096);     /* md124: members disagree */
        member("loop8", "benchd:benchd-4-2", 4096);
        member("loop9", "benchd:benchd-5-0", -1);       /* md123: ours, 1.0 at the end */
        member("loop10", "benchd:benchd-5-0", -1);
        member("loop11", "benchd:benchd-5-1", 0);       /* md122: ours, 1.1 at the start */
        member("loop12", "benchd:benchd-5-1", 0);
        member("loop13", "benchd:benchd-4-1", 4096);    /* md120: one member without a superblock */
        member("loop14", NULL, 0);
        member("loop15", "benchd:benchd-6-0", 4096);    /* md119: a member not in /dev */
        member("loop16", "benchd:benchd", 4096);        /* md118: a name that is no job's */

        array("md127", (const char *[]) { "loop1", "loop2", NULL });
        array("md126", (const char *[]) { "loop3", "loop4", NULL });
        array("md125", (const char *[]) { "loop5", "loop6", NULL });
        array("md124", (const char *[]) { "loop7", "loop8", NULL });
        array("md123", (const char *[]) { "loop9", "loop10", NULL });
        array("md122", (const char *[]) { "loop11", "loop12", NULL });
        array("md121", (const char *[]) { NULL });
        array("md120", (const char *[]) { "loop13", "loop14", NULL });
        array("md119", (const char *[]) { "loop15", "sdz9", NULL });
        array("md118", (const char *[]) { "loop16", NULL });
}

static void teardown(void) {
        ck_assert_int_eq(nftw(root, rm_one, 16, FTW_DEPTH | FTW_PHYS), 0);
        free(root);
        root = NULL;
}

static char *const recorded[] = {
        (char *) "benchd-4-1", (char *) "benchd-4-2", (char *) "benchd-5-0", (char *) "benchd-5-1",
        (char *) "benchd-6-0", (char *) "benchd", NULL,
};

static int by_device(const void *a, const void *b) {
        return strcmp(((const Leftover *) a)->device, ((const Leftover *) b)->device);
}

START_TEST(test_decide_and_stop) {
        _cleanup_free_ Leftover *list = NULL;
        size_t n = 99;

        ck_assert_int_eq(leftovers_find(LEFTOVER_MD, root, recorded, false, &list, &n), 0);
        ck_assert_uint_eq(n, 3);
        qsort(list, n, sizeof(Leftover), by_device);
        ck_assert_str_eq(list[0].device, "md122");
        ck_assert_str_eq(list[0].name, "benchd-5-1");
        ck_assert_str_eq(list[1].device, "md123");
        ck_assert_str_eq(list[1].name, "benchd-5-0");
        ck_assert_str_eq(list[2].device, "md127");
        ck_assert_str_eq(list[2].name, "benchd-4-1");
        for (size_t i = 0; i < n; i++)
                ck_assert_int_eq(list[i].error, 0);
        ck_assert_str_eq(state("md127"), "clear\n");  /* "clear" written over "clean\n" */
        ck_assert_str_eq(state("md123"), "clear\n");
        ck_assert_str_eq(state("md122"), "clear\n");
        /* Everything else as it was. */
        ck_assert_str_eq(state("md126"), "clean\n");
        ck_assert_str_eq(state("md125"), "clean\n");
        ck_assert_str_eq(state("md124"), "clean\n");
        ck_assert_str_eq(state("md121"), "clean\n");
        ck_assert_str_eq(state("md120"), "clean\n");
        ck_assert_str_eq(state("md119"), "clean\n");
        ck_assert_str_eq(state("md118"), "clean\n");
}
END_TEST

/* A dry run finds the same and writes nothing; no names recorded, nothing is benchd's. */
START_TEST(test_dry_and_none) {
        _cleanup_free_ Leftover *list = NULL, *none = NULL;
        char *const empty[] = { NULL };
        size_t n = 0, m = 99;

        ck_assert_int_eq(leftovers_find(LEFTOVER_MD, root, recorded, true, &list, &n), 0);
        ck_assert_uint_eq(n, 3);
        ck_assert_str_eq(state("md127"), "clean\n");
        ck_assert_int_eq(leftovers_find(LEFTOVER_MD, root, empty, false, &none, &m), 0);
        ck_assert_uint_eq(m, 0);
        ck_assert_str_eq(state("md127"), "clean\n");
}
END_TEST

/* A stop the kernel refuses is reported, not taken for done: array_state not writable. */
START_TEST(test_stop_refused) {
        _cleanup_free_ Leftover *list = NULL;
        char path[PATH_MAX];
        size_t n = 0;

        snprintf(path, sizeof(path), "%s/sys/block/md127/md/array_state", root);
        ck_assert_int_eq(unlink(path), 0);
        ck_assert_int_eq(mkdir(path, 0755), 0);
        ck_assert_int_eq(leftovers_find(LEFTOVER_MD, root, recorded, false, &list, &n), 0);
        qsort(list, n, sizeof(Leftover), by_device);
        ck_assert_uint_eq(n, 3);
        ck_assert_str_eq(list[2].device, "md127");
        ck_assert_int_eq(list[2].error, -EISDIR);
}
END_TEST

/* The superblock reader alone: each position, and none. */
START_TEST(test_super_name) {
        char path[PATH_MAX], name[33];

        snprintf(path, sizeof(path), "%s/dev/loop9", root);
        ck_assert_int_eq(md_super_name(path, name), 0);
        ck_assert_str_eq(name, "benchd:benchd-5-0");
        snprintf(path, sizeof(path), "%s/dev/loop11", root);
        ck_assert_int_eq(md_super_name(path, name), 0);
        ck_assert_str_eq(name, "benchd:benchd-5-1");
        snprintf(path, sizeof(path), "%s/dev/loop14", root);
        ck_assert_int_eq(md_super_name(path, name), -ENODATA);
        snprintf(path, sizeof(path), "%s/dev/nothing", root);
        ck_assert_int_eq(md_super_name(path, name), -ENOENT);
        ck_assert_int_eq(leftovers_find(LEFTOVER_MD, "/nonexistent-root", recorded, true, &(Leftover *) { NULL },
                                          &(size_t) { 0 }), -ENOENT);
}
END_TEST

/* The layout columns of a run, read back with sqlite itself: what db_run_set_fs() stored. */
static void layout_columns(const char *dbpath, uint64_t run_id, char **ret_commands, int64_t *ret_chunk,
                           int64_t *ret_resync_usec) {
        sqlite3 *s = NULL;
        sqlite3_stmt *st = NULL;

        ck_assert_int_eq(sqlite3_open_v2(dbpath, &s, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
        ck_assert_int_eq(sqlite3_prepare_v2(s, "SELECT layout_commands, md_chunk_bytes, md_resync_usec FROM runs "
                                               "WHERE id = ?", -1, &st, NULL), SQLITE_OK);
        ck_assert_int_eq(sqlite3_bind_int64(st, 1, (sqlite3_int64) run_id), SQLITE_OK);
        ck_assert_int_eq(sqlite3_step(st), SQLITE_ROW);
        *ret_commands = sqlite3_column_type(st, 0) == SQLITE_NULL ? NULL :
                        strdup((const char *) sqlite3_column_text(st, 0));
        *ret_chunk = sqlite3_column_type(st, 1) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, 1);
        *ret_resync_usec = sqlite3_column_type(st, 2) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, 2);
        sqlite3_finalize(st);
        sqlite3_close(s);
}

/* What the store gives md-leftovers: the names the runs recorded when they began, each once; with
 * idle, not those of a run still running. */
START_TEST(test_recorded_names) {
        _cleanup_(db_closep) Db *db = NULL;
        _cleanup_strv_free_ char **names = NULL;
        char path[PATH_MAX];
        DbJob j = {
                .workload = "write", .spec_json = "{}", .target = "/dev/loop1", .submitted_usec = 1700000000000000,
        };
        static const char *const arrays[] = { "benchd-1-0", "benchd-1-0", "benchd-1-1", NULL };
        static const char *const resyncs[] = { "wait", "wait", "assume-clean", NULL };
        uint64_t job = 0, run[4], bad = 0;
        _cleanup_free_ char *err = NULL, *commands = NULL;
        int64_t chunk, resync_usec;
        JobSpec spec;

        snprintf(path, sizeof(path), "%s/benchd.db", root);
        ck_assert_int_eq(db_open(path, &db), 0);
        ck_assert_int_eq(db_md_arrays_recorded(db, false, 0, &names), 0);
        ck_assert_ptr_null(names[0]);
        strv_free(names);
        names = NULL;
        ck_assert_int_eq(db_job_insert(db, &j, &job), 0);
        spec_init(&spec);
        ck_assert_msg(spec_set_assignment(&spec, "workload=write", &err) == 0, "%s", err);
        ck_assert_msg(spec_set_assignment(&spec, "target=/dev/loop1", &err) == 0, "%s", err);
        ck_assert_msg(spec_set_assignment(&spec, "size=1M", &err) == 0, "%s", err);
        ck_assert_msg(spec_finalize(&spec, &err) == 0, "%s", err);
        /* Runs 0-2 are md runs (2 is still running at the end), run 3 is not. */
        for (size_t i = 0; i < 4; i++) {
                DbRun r = {
                        .job_id = job, .step = (uint32_t) i, .spec = &spec, .device_id = -1,
                        .started_usec = 1700000000000000, .layout = i < 3 ? "md-raid1" : "single", .in_matrix = true,
                        .fs_type = "ext4", .md_array = arrays[i], .md_resync = resyncs[i],
                };
                ck_assert_msg(db_run_begin(db, &r, &run[i]) == 0, "%s", db_last_error(db));
        }
        /* The schema holds md_resync to the spec's two modes: the insert itself is refused. */
        DbRun soon = {
                .job_id = job, .step = 9, .spec = &spec, .device_id = -1, .started_usec = 1700000000000000,
                .layout = "md-raid1", .in_matrix = true, .fs_type = "ext4", .md_array = "benchd-1-9", .md_resync = "soon",
        };
        ck_assert_int_lt(db_run_begin(db, &soon, &bad), 0);
        ck_assert_msg(strstr(db_last_error(db), "CHECK") || strstr(db_last_error(db), "md_resync"), "%s",
                      db_last_error(db));
        ck_assert_int_eq(db_md_arrays_recorded(db, false, 0, &names), 0);
        ck_assert_uint_eq(strv_length(names), 2);
        ck_assert(strv_contains(names, "benchd-1-0"));
        ck_assert(strv_contains(names, "benchd-1-1"));
        ck_assert(!strv_contains(names, "benchd-1-9"));
        strv_free(names);
        names = NULL;
        /* Runs 0 and 1 finished, 2 is running: idle leaves its array alone; once it finished, not. */
        ck_assert_int_eq(db_run_finish(db, run[0], "succeeded", NULL, NULL), 0);
        ck_assert_int_eq(db_run_finish(db, run[1], "failed", "x", NULL), 0);
        ck_assert_int_eq(db_run_finish(db, run[3], "succeeded", NULL, NULL), 0);
        ck_assert_int_eq(db_md_arrays_recorded(db, true, 0, &names), 0);
        ck_assert_uint_eq(strv_length(names), 1);
        ck_assert(strv_contains(names, "benchd-1-0"));
        strv_free(names);
        names = NULL;
        /* After run 2's own step: its array too. */
        ck_assert_int_eq(db_md_arrays_recorded(db, true, run[2], &names), 0);
        ck_assert_uint_eq(strv_length(names), 2);
        strv_free(names);
        names = NULL;
        ck_assert_int_eq(db_run_finish(db, run[2], "interrupted", NULL, NULL), 0);
        ck_assert_int_eq(db_md_arrays_recorded(db, true, 0, &names), 0);
        ck_assert_uint_eq(strv_length(names), 2);
        /* What built the array, with the filesystem's record, in the same statement. */
        DbRunFs fs = {
                .mkfs_command = "mkfs.ext4 /dev/md127", .mkfs_output = "", .fs_uuid = "abc", .size_bytes = 1,
                .layout_commands = "[{\"command\":\"mdadm --create /dev/md/benchd-1-0\"}]", .md_chunk_bytes = 524288,
                .md_resync_usec = 250000,
        };
        ck_assert_msg(db_run_set_fs(db, run[0], &fs) == 0, "%s", db_last_error(db));
        layout_columns(path, run[0], &commands, &chunk, &resync_usec);
        ck_assert_str_eq(commands, "[{\"command\":\"mdadm --create /dev/md/benchd-1-0\"}]");
        ck_assert_int_eq(chunk, 524288);
        ck_assert_int_eq(resync_usec, 250000);
        free(commands);
        commands = NULL;
        /* The entry's last run adds what released the members, after the array's own command, through the
         * job's queue as the worker's FS_RELEASED arrives; what is not a JSON array is refused. */
        {
                _cleanup_(db_queue_freep) DbQueue *q = NULL;

                ck_assert_int_eq(db_queue_new(&q), 0);
                ck_assert_int_eq(db_queue_add_layout_released(q, run[0], "[{\"command\":\"mdadm --zero-superblock "
                                                              "/dev/vdc /dev/vdd\",\"exit\":0}]"), 0);
                ck_assert_int_eq(db_queue_flush(q, db), 0);
                ck_assert(!db_queue_has_losses(q));
        }
        layout_columns(path, run[0], &commands, &chunk, &resync_usec);
        ck_assert_str_eq(commands, "[{\"command\":\"mdadm --create /dev/md/benchd-1-0\"},{\"command\":\"mdadm "
                                   "--zero-superblock /dev/vdc /dev/vdd\",\"exit\":0}]");
        ck_assert_int_eq(chunk, 524288);
        free(commands);
        commands = NULL;
        ck_assert_int_eq(db_run_add_layout_commands(db, run[0], "{\"command\":\"x\"}"), -ENOENT);
        ck_assert_int_eq(db_run_add_layout_commands(db, run[0] + 100, "[]"), -ENOENT);
        /* Without layout commands (not an md run) the three stay NULL. */
        DbRunFs plain = { .mkfs_command = "mkfs.ext4 /dev/loop1", .mkfs_output = "", .fs_uuid = "def", .size_bytes = 1 };
        ck_assert_msg(db_run_set_fs(db, run[3], &plain) == 0, "%s", db_last_error(db));
        layout_columns(path, run[3], &commands, &chunk, &resync_usec);
        ck_assert_ptr_null(commands);
        ck_assert_int_eq(chunk, -1);
        ck_assert_int_eq(resync_usec, -1);
        ck_assert_int_eq(db_run_set_fs(db, run[3] + 100, &plain), -ENOENT);
        spec_clear(&spec);
}
END_TEST

/* After a step, clean-up stops the step's own array but not another job's still running, which its
 * worker may be using with nothing holding it open (waiting for its resync before mkfs): md127 is
 * job 4's entry 1, whose step just ended, md123 job 5's entry 0, still running; md122 is of a run
 * that finished. Udev's report and start-up as before. */
START_TEST(test_clean_after_step) {
        _cleanup_(db_closep) Db *db = NULL;
        char path[PATH_MAX];
        DbJob j = {
                .workload = "write", .spec_json = "{}", .target = "/dev/loop1", .submitted_usec = 1700000000000000,
        };
        static const char *const arrays[] = { "benchd-4-1", "benchd-5-0", "benchd-5-1" };
        _cleanup_free_ char *err = NULL;
        uint64_t job = 0, run[3];
        JobSpec spec;

        snprintf(path, sizeof(path), "%s/benchd.db", root);
        ck_assert_int_eq(db_open(path, &db), 0);
        ck_assert_int_eq(db_job_insert(db, &j, &job), 0);
        spec_init(&spec);
        ck_assert_msg(spec_set_assignment(&spec, "workload=write", &err) == 0, "%s", err);
        ck_assert_msg(spec_set_assignment(&spec, "target=/dev/loop1", &err) == 0, "%s", err);
        ck_assert_msg(spec_set_assignment(&spec, "size=1M", &err) == 0, "%s", err);
        ck_assert_msg(spec_finalize(&spec, &err) == 0, "%s", err);
        for (size_t i = 0; i < 3; i++) {
                DbRun r = {
                        .job_id = job, .step = (uint32_t) i, .spec = &spec, .device_id = -1,
                        .started_usec = 1700000000000000, .layout = "md-raid1", .in_matrix = true,
                        .fs_type = "ext4", .md_array = arrays[i], .md_resync = "wait",
                };
                ck_assert_msg(db_run_begin(db, &r, &run[i]) == 0, "%s", db_last_error(db));
        }
        ck_assert_int_eq(db_run_finish(db, run[2], "succeeded", NULL, NULL), 0);

        /* Run 0's step ended (its run is still 'running' until the job records it). */
        ck_assert_int_eq(leftovers_clean_at(db, LEFTOVER_MD, root, "after job 4's step 2", true, run[0]), 2);
        ck_assert_str_eq(state("md127"), "clear\n");
        ck_assert_str_eq(state("md122"), "clear\n");
        ck_assert_str_eq(state("md123"), "clean\n");
        /* udev's report: not a running run's, its own neither. */
        array("md127", (const char *[]) { "loop1", "loop2", NULL });
        ck_assert_int_eq(leftovers_clean_at(db, LEFTOVER_MD, root, "after udev reported it", true, 0), 1);
        ck_assert_str_eq(state("md127"), "clean\n");
        ck_assert_str_eq(state("md123"), "clean\n");
        /* At start-up (the runs marked interrupted before, or not): every recorded one. */
        ck_assert_int_eq(leftovers_clean_at(db, LEFTOVER_MD, root, "at start-up", false, 0), 3);
        ck_assert_str_eq(state("md127"), "clear\n");
        ck_assert_str_eq(state("md123"), "clear\n");
        spec_clear(&spec);
}
END_TEST

/* An imported run (ImportRuns, origin_host set) names an array of the host that measured it: start-up
 * never stops an array here by its name, even one of benchd's form assembled from members that
 * carry it (md127, benchd-4-1). The same name recorded by a run of this host's is stopped. */
START_TEST(test_clean_never_imported) {
        _cleanup_(db_closep) Db *db = NULL;
        _cleanup_json_ json_object *runs = NULL;
        _cleanup_free_ char *err = NULL;
        char path[PATH_MAX];
        DbJob j = {
                .workload = "write", .spec_json = "{}", .target = "/dev/loop1", .submitted_usec = 1700000000000000,
        };
        uint64_t job = 0, run = 0, imported = 0;
        JobSpec spec;

        snprintf(path, sizeof(path), "%s/benchd.db", root);
        ck_assert_int_eq(db_open(path, &db), 0);
        runs = json_tokener_parse(
                "[{\"uuid\":\"0123abcd-4567-4def-8901-23456789abcd\",\"step\":0,\"repeat\":0,\"workload\":\"write\","
                "\"block_size\":4096,\"size\":1048576,\"runtime_ms\":0,\"ramp_ms\":0,\"queue_depth\":1,\"jobs\":1,"
                "\"direct\":0,\"target\":\"/dev/md127\",\"started_usec\":1700000000000000,\"status\":\"failed\","
                "\"error\":\"killed\",\"layout\":\"md-raid1\",\"md_array\":\"benchd-4-1\",\"md_resync\":\"wait\"}]");
        ck_assert_ptr_nonnull(runs);
        ck_assert_msg(db_runs_import(db, runs, "other-host", 1700000100000000, &imported, NULL) == 0, "%s",
                      db_last_error(db));
        ck_assert_uint_eq(imported, 1);
        ck_assert_int_eq(leftovers_clean_at(db, LEFTOVER_MD, root, "at start-up", false, 0), 0);
        ck_assert_str_eq(state("md127"), "clean\n");

        /* This host's run of the same name: its array is stopped. */
        ck_assert_int_eq(db_job_insert(db, &j, &job), 0);
        spec_init(&spec);
        ck_assert_msg(spec_set_assignment(&spec, "workload=write", &err) == 0, "%s", err);
        ck_assert_msg(spec_set_assignment(&spec, "target=/dev/loop1", &err) == 0, "%s", err);
        ck_assert_msg(spec_set_assignment(&spec, "size=1M", &err) == 0, "%s", err);
        ck_assert_msg(spec_finalize(&spec, &err) == 0, "%s", err);
        DbRun r = {
                .job_id = job, .spec = &spec, .device_id = -1, .started_usec = 1700000000000000,
                .layout = "md-raid1", .in_matrix = true, .fs_type = "ext4", .md_array = "benchd-4-1", .md_resync = "wait",
        };
        ck_assert_msg(db_run_begin(db, &r, &run) == 0, "%s", db_last_error(db));
        ck_assert_int_eq(db_run_finish(db, run, "interrupted", NULL, NULL), 0);
        ck_assert_int_eq(leftovers_clean_at(db, LEFTOVER_MD, root, "at start-up", false, 0), 1);
        ck_assert_str_eq(state("md127"), "clear\n");
        spec_clear(&spec);
}
END_TEST

int main(void) {
        Suite *s = suite_create("md-leftovers");
        TCase *tc = tcase_create("core");

        tcase_add_checked_fixture(tc, setup, teardown);
        tcase_add_test(tc, test_decide_and_stop);
        tcase_add_test(tc, test_dry_and_none);
        tcase_add_test(tc, test_stop_refused);
        tcase_add_test(tc, test_super_name);
        tcase_add_test(tc, test_recorded_names);
        tcase_add_test(tc, test_clean_after_step);
        tcase_add_test(tc, test_clean_never_imported);
        suite_add_tcase(s, tc);
        return check_run(s);
}
