/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The anchors' files of a filesystem matrix job, built from runs made up here (the shapes
 * QueryRuns gives): the job's entries found and named from its runs, and one bonnie++ CSV line
 * and one iozone -R report per entry, each of that entry's runs only (its figures are the means of
 * its own runs, never of two filesystems), named host-ENTRY and titled by it; Debian's own
 * bon_csv2txt reads the two lines as two rows. --entry and --fs-type choose entries, and say
 * which there are when they choose none, or when the job is no matrix.
 */
#include <check.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check-util.h"
#include "job-runs.h"
#include "record.h"
#include "shared/json-util.h"
#include "shared/util.h"
#include "views-format.h"

/* The command line the views see: no --json, with legends. */
static const BenchctlOptions opts = { .legend = true };

/* One succeeded run of entry (0: ext4, 1: btrfs), round and workload moving bytes in usec. */
static json_object *make_run(uint64_t id, unsigned entry, unsigned round, const char *workload, uint64_t block_size,
                             uint64_t bytes, uint64_t usec) {
        json_object *r = json_object_new_object();
        bool read = strstr(workload, "read") || streq(workload, "getc") || streq(workload, "seeks");

        json_object_object_add(r, "id", json_object_new_uint64(id));
        json_object_object_add(r, "job_id", json_object_new_uint64(7));
        json_object_object_add(r, "profile", json_object_new_string("bonnie"));
        json_object_object_add(r, "status", json_object_new_string("succeeded"));
        json_object_object_add(r, "workload", json_object_new_string(workload));
        json_object_object_add(r, "block_size", json_object_new_uint64(block_size));
        json_object_object_add(r, "size", json_object_new_uint64(UINT64_C(16) << 20));
        json_object_object_add(r, "queue_depth", json_object_new_uint64(1));
        json_object_object_add(r, "jobs", json_object_new_uint64(1));
        json_object_object_add(r, "step", json_object_new_uint64(entry * 10));
        json_object_object_add(r, "repeat", json_object_new_uint64(round));
        json_object_object_add(r, "round", json_object_new_uint64(round));
        json_object_object_add(r, "matrix_entry", json_object_new_uint64(entry));
        json_object_object_add(r, "fs_type", json_object_new_string(entry == 0 ? "ext4" : "btrfs"));
        json_object_object_add(r, "layout", json_object_new_string("single"));
        json_object_object_add(r, "members", json_object_new_string("[\"/dev/loop0\"]"));
        json_object_object_add(r, "target", json_object_new_string("/dev/loop0"));
        json_object_object_add(r, "fs_uuid", json_object_new_string(entry == 0 ? "u-ext4" : "u-btrfs"));
        json_object_object_add(r, read ? "bytes_read" : "bytes_written", json_object_new_uint64(bytes));
        json_object_object_add(r, read ? "bytes_written" : "bytes_read", json_object_new_uint64(0));
        json_object_object_add(r, read ? "ios_read" : "ios_written", json_object_new_uint64(bytes / block_size));
        json_object_object_add(r, read ? "ios_written" : "ios_read", json_object_new_uint64(0));
        json_object_object_add(r, "ops", json_object_new_uint64(streq(workload, "seeks") ? 8000 : 0));
        json_object_object_add(r, "duration_usec", json_object_new_uint64(usec));
        json_object_object_add(r, "cpu_user_pct", json_object_new_double(10));
        json_object_object_add(r, "cpu_sys_pct", json_object_new_double(15));
        json_object_object_add(r, "lat_max_ns", json_object_new_uint64(2000000 + entry * 1000000));
        return r;
}

/* ext4 writes 100 MiB/s and btrfs 50 (rounds of 16 MiB in 160 and 320 ms, and 5% more in round 1);
 * the reads the other way round; every bonnie++ data test, and iozone's write and read at 4K and
 * 64K. */
static void make_job(JobRuns *j) {
        static const char *const wl[] = { "putc", "write", "rewrite", "getc", "read", "seeks" };
        uint64_t id = 1;

        *j = (JobRuns) { .job = 7, .runs = json_object_new_array() };
        for (unsigned round = 0; round < 2; round++)
                for (unsigned e = 0; e < 2; e++)
                        for (size_t w = 0; w < ELEMENTSOF(wl); w++) {
                                bool write = w < 3;
                                uint64_t usec = (write == (e == 0) ? 160000 : 320000) * (round ? 105 : 100) / 100;

                                json_object_array_add(j->runs, make_run(id++, e, round, wl[w], w == 0 || w == 3 ? 1 : 8192,
                                                                         UINT64_C(16) << 20, usec));
                        }
        ck_assert_int_eq(job_runs_index(j), 0);
        j->env = json_tokener_parse("{\"host\":\"db1\",\"cpus\":2}");
}

static char *capture(int (*f)(const JobRuns *j, FILE *out), const JobRuns *j, int *ret) {
        char *text = NULL;
        size_t len = 0;
        FILE *m = open_memstream(&text, &len);

        ck_assert_ptr_nonnull(m);
        *ret = f(j, m);
        fclose(m);
        return text;
}

static size_t count_lines(const char *s, const char *start) {
        size_t n = 0;

        for (const char *p = s; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
                if (strncmp(p, start, strlen(start)) == 0)
                        n++;
        return n;
}

/* Field i (0-based) of CSV line n (0-based) of text. */
static char *csv_field(const char *text, size_t n, size_t i) {
        const char *p = text;

        for (size_t k = 0; k < n; k++)
                p = strchr(p, '\n') + 1;
        for (size_t k = 0; k < i; k++)
                p = strchr(p, ',') + 1;
        return strndup(p, strcspn(p, ",\n"));
}

START_TEST(test_matrix_entries) {
        _cleanup_(job_runs_clear) JobRuns j = { .opts = &opts };
        JobRuns n = {};

        make_job(&j);
        ck_assert_uint_eq(j.n_ok, 24);
        ck_assert_uint_eq(j.n_entries, 2);
        ck_assert_str_eq(j.entries[0].name, "ext4");
        ck_assert_str_eq(j.entries[1].name, "btrfs");
        ck_assert_str_eq(j.entries[1].label, "btrfs");
        ck_assert_str_eq(j.entries[0].place, "ext4 on loop0");
        ck_assert_uint_eq(j.entries[0].n_ok, 12);
        ck_assert_uint_eq(job_runs_n_selected(&j), 2);

        /* One entry's runs only. */
        ck_assert_int_eq(job_runs_narrow(&j, 1, &n), 0);
        ck_assert_uint_eq(n.n_ok, 12);
        for (size_t i = 0; i < n.n_ok; i++)
                ck_assert_str_eq(rec_str(n.ok[i], "fs_type"), "btrfs");
        ck_assert_ptr_eq(n.entry, &j.entries[1]);
        job_runs_clear(&n);
        ck_assert_ptr_nonnull(j.runs);          /* the job's own are left alone */
}
END_TEST

START_TEST(test_bonnie_csv_per_entry) {
        _cleanup_(job_runs_clear) JobRuns j = { .opts = &opts };
        _cleanup_free_ char *csv = NULL, *f0 = NULL, *f1 = NULL, *b0 = NULL, *b1 = NULL;
        char path[] = "/tmp/test-client-views-XXXXXX";
        int r, fd;

        make_job(&j);
        csv = capture(export_bonnie_csv, &j, &r);
        ck_assert_int_eq(r, 0);
        ck_assert_uint_eq(count_lines(csv, "1.98,"), 2);
        /* bonnie++'s name field says host and entry. */
        f0 = csv_field(csv, 0, 2);
        f1 = csv_field(csv, 1, 2);
        ck_assert_str_eq(f0, "db1-ext4");
        ck_assert_str_eq(f1, "db1-btrfs");
        /* Block writes, K/sec: each entry's own mean of 16 MiB in 160 and 168 ms (ext4), 320 and 336 ms
         * (btrfs); never the two blended. */
        b0 = csv_field(csv, 0, 11);
        b1 = csv_field(csv, 1, 11);
        ck_assert_int_eq(atoi(b0), (int) ((16384 / 0.160 + 16384 / 0.168) / 2));
        ck_assert_int_eq(atoi(b1), (int) ((16384 / 0.320 + 16384 / 0.336) / 2));

        /* Debian's bon_csv2txt renders them as two rows of one table. */
        if (access("/usr/bin/bon_csv2txt", X_OK) < 0) {
                fprintf(stderr, "bon_csv2txt not installed (apt-get install bonnie++): its rendering not checked\n");
                return;
        }
        fd = mkstemp(path);
        ck_assert_int_ge(fd, 0);
        ck_assert_int_eq(write(fd, csv, strlen(csv)), (ssize_t) strlen(csv));
        close(fd);
        {
                _cleanup_free_ char *cmd = NULL, *out = NULL;
                size_t len = 0;
                char buf[4096];
                FILE *p, *m = open_memstream(&out, &len);
                size_t k;

                ck_assert_int_gt(asprintf(&cmd, "bon_csv2txt < %s 2>&1", path), 0);
                p = popen(cmd, "r");
                ck_assert_ptr_nonnull(p);
                while ((k = fread(buf, 1, sizeof buf, p)) > 0)
                        fwrite(buf, 1, k, m);
                ck_assert_int_eq(pclose(p), 0);
                fclose(m);
                unlink(path);
                /* A row per line, named by it (bon_csv2txt cuts a name to what its column holds: "db1-ext"
                 * beside a long size field), each with its latency row. */
                ck_assert_msg(count_lines(out, "db1-e") == 1 && count_lines(out, "db1-b") == 1 &&
                              count_lines(out, "Latency ") == 2, "bon_csv2txt:\n%s", out);
        }
}
END_TEST

START_TEST(test_iozone_report_per_entry) {
        _cleanup_(job_runs_clear) JobRuns j = { .opts = &opts };
        _cleanup_free_ char *text = NULL;
        const char *second;
        int r;

        make_job(&j);
        text = capture(export_iozone, &j, &r);
        ck_assert_int_eq(r, 0);
        ck_assert_uint_eq(count_lines(text, "Excel output is below:"), 2);
        /* Each titled by its entry, ext4's first; each with its own writer figure. */
        ck_assert_ptr_nonnull(strstr(text, "\text4 on loop0: benchd "));
        second = strstr(text, "\tbtrfs on loop0: benchd ");
        ck_assert_ptr_nonnull(second);
        ck_assert_ptr_null(strstr(second, "ext4 on loop0"));
        ck_assert_ptr_nonnull(strstr(text, "\"16384\"\t"));
        {
                char want0[64], want1[64];

                snprintf(want0, sizeof want0, "\"16384\"\t%d\n", (int) ((16384 / 0.160 + 16384 / 0.168) / 2));
                snprintf(want1, sizeof want1, "\"16384\"\t%d\n", (int) ((16384 / 0.320 + 16384 / 0.336) / 2));
                ck_assert_msg(strstr(text, want0) && strstr(text, want0) < second, "no %s in ext4's:\n%s", want0, text);
                ck_assert_msg(strstr(second, want1), "no %s in btrfs's:\n%s", want1, second);
        }
}
END_TEST

START_TEST(test_select_entries) {
        _cleanup_(job_runs_clear) JobRuns j = { .opts = &opts }, plain = { .opts = &opts };
        _cleanup_free_ char *csv = NULL, *err = NULL, *err2 = NULL;
        int r;

        make_job(&j);
        ck_assert_int_eq(job_runs_select_entries(&j, NULL, "btrfs", &err), 0);
        ck_assert_uint_eq(job_runs_n_selected(&j), 1);
        csv = capture(export_bonnie_csv, &j, &r);
        ck_assert_int_eq(r, 0);
        ck_assert_uint_eq(count_lines(csv, "1.98,"), 1);
        ck_assert_ptr_nonnull(strstr(csv, ",db1-btrfs,"));
        ck_assert_int_eq(job_runs_select_entries(&j, "ext4", NULL, &err), 0);
        ck_assert(j.entries[0].selected && !j.entries[1].selected);

        /* What is not there: said, with what is. */
        ck_assert_int_eq(job_runs_select_entries(&j, NULL, "xfs", &err), -ENOENT);
        ck_assert_str_eq(err, "job 7 has no entry on xfs; its entries are 'ext4', 'btrfs'");

        /* A job that is no matrix has no entries to choose. */
        plain = (JobRuns) { .job = 8, .runs = json_object_new_array() };
        json_object_array_add(plain.runs, json_tokener_parse("{\"id\": 1, \"status\": \"succeeded\", \"workload\": "
                                                             "\"write\", \"target\": \"/srv\", \"fs_type\": \"ext4\"}"));
        ck_assert_int_eq(job_runs_index(&plain), 0);
        ck_assert_uint_eq(plain.n_entries, 0);
        ck_assert_int_eq(job_runs_select_entries(&plain, NULL, NULL, &err2), 0);
        ck_assert_int_eq(job_runs_select_entries(&plain, NULL, "ext4", &err2), -EINVAL);
        ck_assert_ptr_nonnull(strstr(err2, "job 8 is not a filesystem matrix"));
        ck_assert_ptr_nonnull(strstr(err2, "--fs-type"));
}
END_TEST

int main(void) {
        Suite *s = suite_create("client-views");
        TCase *tc = tcase_create("core");

        tcase_add_test(tc, test_matrix_entries);
        tcase_add_test(tc, test_bonnie_csv_per_entry);
        tcase_add_test(tc, test_iozone_report_per_entry);
        tcase_add_test(tc, test_select_entries);
        suite_add_tcase(s, tc);
        return check_run(s);
}
