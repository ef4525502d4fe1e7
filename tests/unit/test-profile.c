/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Tests of the profiles (profile.c): every profile shipped in daemon/profiles/ loads and expands
 * into valid step specs; profile files written here with a bad key, a bad value, bad syntax, no
 * steps or a missing name fail with the right errno and a message naming the file, the line and
 * the key; the first directory that has a name wins; and the submitter's keys override a step's.
 * iozone and bonnie are checked step by step against the tools they stand for.
 */

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "jobs/matrix.h"
#include "jobs/profile.h"
#include "check-util.h"
#include "shared/spec.h"
#include "shared/strv.h"
#include "shared/util.h"

#ifndef SHIPPED_PROFILES_DIR
#error "SHIPPED_PROFILES_DIR must name daemon/profiles in the source tree"
#endif

static void spec_clearp(JobSpec *s) {
        spec_clear(s);
}
#define _cleanup_spec_ _cleanup_(spec_clearp)

/* A job spec from assignments, finalized; fails the test on any rejection. */
static void job_build(JobSpec *s, const char *const *assignments) {
        _cleanup_free_ char *err = NULL;

        spec_init(s);
        for (const char *const *a = assignments; *a; a++) {
                int r = spec_set_assignment(s, *a, &err);
                ck_assert_msg(r == 0, "'%s' rejected: %s", *a, strna(err));
        }
        ck_assert_msg(spec_finalize(s, &err) == 0, "job rejected: %s", strna(err));
}

/* ---- a temporary profile directory per test (check forks each test) ---- */

static char tmpdir[] = "/tmp/test-profile-XXXXXX";
static char tmpdir2[] = "/tmp/test-profile-XXXXXX";

static void tmp_setup(void) {
        strcpy(tmpdir, "/tmp/test-profile-XXXXXX");
        strcpy(tmpdir2, "/tmp/test-profile-XXXXXX");
        ck_assert_ptr_nonnull(mkdtemp(tmpdir));
        ck_assert_ptr_nonnull(mkdtemp(tmpdir2));
}

static void rm_dir(const char *dir) {
        _cleanup_strv_free_ char **names = NULL;
        char *const dirs[] = { (char *) dir, NULL };

        if (profile_list(dirs, &names) >= 0)
                for (char **n = names; *n; n++) {
                        char path[4096];
                        snprintf(path, sizeof(path), "%s/%s.ini", dir, *n);
                        (void) unlink(path);
                }
        (void) rmdir(dir);
}

static void tmp_teardown(void) {
        rm_dir(tmpdir);
        rm_dir(tmpdir2);
}

static void write_profile(const char *dir, const char *name, const char *text) {
        char path[4096];
        FILE *f;

        snprintf(path, sizeof(path), "%s/%s.ini", dir, name);
        f = fopen(path, "we");
        ck_assert_ptr_nonnull(f);
        ck_assert_int_eq(fputs(text, f) >= 0, 1);
        ck_assert_int_eq(fclose(f), 0);
}

/* ---- the shipped profiles ---- */

static const struct {
        const char *name;
        size_t n_steps;
} shipped[] = {
        { "bonnie", 7 },
        { "crystal", 8 },
        { "dd", 2 },
        { "iozone", 104 },
        { "ping", 1 },
        { "quick", 3 },
};

START_TEST(test_shipped) {
        char *const dirs[] = { (char *) SHIPPED_PROFILES_DIR, NULL };
        _cleanup_(profile_freep) Profile *p = NULL;
        _cleanup_spec_ JobSpec job;
        _cleanup_free_ char *err = NULL, *assign = NULL;
        JobSpec *steps = NULL;
        size_t n = 0;
        int r;

        r = profile_load(dirs, shipped[_i].name, &p, &err);
        ck_assert_msg(r == 0, "%s: %s", shipped[_i].name, strna(err));
        ck_assert_str_eq(p->name, shipped[_i].name);
        ck_assert_ptr_nonnull(p->description);
        ck_assert_int_gt(strlen(p->description), 0);
        ck_assert_uint_eq(p->n_steps, shipped[_i].n_steps);
        for (size_t i = 0; i < p->n_steps; i++) {
                ck_assert_ptr_nonnull(p->steps[i].name);
                ck_assert_uint_gt(p->steps[i].n_assignments, 0);
        }

        ck_assert_int_ge(asprintf(&assign, "profile=%s", shipped[_i].name), 0);
        job_build(&job, (const char *const[]) { "target=/srv/bench", assign, NULL });
        r = profile_expand(p, &job, &steps, &n, &err);
        ck_assert_msg(r == 0, "%s: %s", shipped[_i].name, strna(err));
        ck_assert_uint_eq(n, p->n_steps);
        for (size_t i = 0; i < n; i++) {
                ck_assert_msg(steps[i].finalized, "%s step %zu not finalized", shipped[_i].name, i);
                ck_assert_str_eq(steps[i].target, "/srv/bench");
                ck_assert_ptr_null(steps[i].profile);
                ck_assert_int_ge(steps[i].workload, 0);
                /* A finalized step says every key in its text form, so it can go to a worker. */
                _cleanup_free_ char *text = NULL;
                ck_assert_int_eq(spec_to_text(&steps[i], &text), 0);
                ck_assert_ptr_nonnull(strstr(text, "block_size="));
        }
        spec_array_free(steps, n);
}
END_TEST

/* The shipped profile name expanded for a job of assignments (target and profile included). */
static void shipped_expand(const char *name, const char *const *assignments, JobSpec **ret_steps, size_t *ret_n) {
        char *const dirs[] = { (char *) SHIPPED_PROFILES_DIR, NULL };
        _cleanup_(profile_freep) Profile *p = NULL;
        _cleanup_spec_ JobSpec job;
        _cleanup_free_ char *err = NULL;

        ck_assert_msg(profile_load(dirs, name, &p, &err) == 0, "%s: %s", name, strna(err));
        job_build(&job, assignments);
        ck_assert_msg(profile_expand(p, &job, ret_steps, ret_n, &err) == 0, "%s: %s", name, strna(err));
        ck_assert_uint_eq(*ret_n, p->n_steps);
}

/* iozone -a's record sizes, 4K to 16M, each over iozone's tests in iozone's order, on 64M. */
START_TEST(test_shipped_iozone) {
        static const char *const tests[] = {
                "write", "rewrite", "read", "reread", "randread", "randwrite", "backward-read", "stride-read",
        };
        JobSpec *steps = NULL;
        size_t n = 0;

        shipped_expand("iozone", (const char *const[]) { "target=/srv/bench", "profile=iozone", NULL }, &steps, &n);
        ck_assert_uint_eq(n, 13 * ELEMENTSOF(tests));
        for (size_t i = 0; i < n; i++) {
                uint64_t record = UINT64_C(4096) << (i / ELEMENTSOF(tests));
                const char *test = tests[i % ELEMENTSOF(tests)];

                ck_assert_msg(streq(workload_to_string(steps[i].workload), test), "step %zu is %s, not %s", i,
                              workload_to_string(steps[i].workload), test);
                ck_assert_uint_eq(steps[i].block_size, record);
                ck_assert_uint_eq(steps[i].size, UINT64_C(64) << 20);
                if (steps[i].workload == WORKLOAD_STRIDE_READ)
                        ck_assert_uint_eq(steps[i].stride, 17 * record);   /* iozone's default stride */
                /* iozone -a: buffered (no -I), the flush not timed (no -e), no preallocation, the
                 * read tests on what the page cache holds. */
                ck_assert_msg(!steps[i].direct && steps[i].sync == SYNC_NONE, "step %zu", i);
                ck_assert_int_eq(steps[i].fallocate, FALLOCATE_NONE);
                ck_assert(!steps[i].invalidate);
        }
        ck_assert_uint_eq(steps[n - 1].block_size, UINT64_C(16) << 20);
        spec_array_free(steps, n);

        /* size= is the caller's: every record size still fits. */
        shipped_expand("iozone", (const char *const[]) { "target=/srv/bench", "profile=iozone", "size=512M", NULL },
                       &steps, &n);
        for (size_t i = 0; i < n; i++)
                ck_assert_uint_eq(steps[i].size, UINT64_C(512) << 20);
        spec_array_free(steps, n);
}
END_TEST

/* record_sizes (iozone -a -y 4k -q 64k, or -r 4k -r 64k): only the steps of those block sizes, in
 * the profile's order, every test of each; a matrix of three filesystems fits then. A size the
 * profile has no step of is refused, naming the profile's sizes; the key without a profile, or with
 * block_size, is refused when the job is finalized; no step carries it to a worker. */
START_TEST(test_record_sizes) {
        char *const dirs[] = { (char *) SHIPPED_PROFILES_DIR, NULL };
        _cleanup_(profile_freep) Profile *p = NULL;
        _cleanup_free_ char *err = NULL;
        JobSpec *steps = NULL, *all = NULL;
        size_t n = 0, n_all = 0;

        ck_assert_int_eq(profile_load(dirs, "iozone", &p, &err), 0);
        {
                _cleanup_spec_ JobSpec job;

                job_build(&job, (const char *const[]) { "target=/srv/bench", "profile=iozone",
                                                        "record_sizes=64k,4K", "size=1M", NULL });
                ck_assert_msg(profile_expand(p, &job, &steps, &n, &err) == 0, "%s", strna(err));
        }
        ck_assert_uint_eq(n, 2 * 8);
        for (size_t i = 0; i < n; i++) {
                _cleanup_free_ char *text = NULL;

                /* The profile's order: 4K's eight tests, then 64K's. */
                ck_assert_uint_eq(steps[i].block_size, i < 8 ? 4096 : 65536);
                ck_assert_uint_eq(steps[i].size, UINT64_C(1) << 20);
                ck_assert_ptr_null(steps[i].record_sizes);
                ck_assert_int_eq(spec_daemon_key(&steps[i]), _SPEC_KEY_INVALID);
                ck_assert_int_eq(spec_to_worker_text(&steps[i], &text), 0);
                ck_assert_ptr_null(strstr(text, "record_sizes"));
        }
        ck_assert_int_eq(steps[0].workload, WORKLOAD_WRITE);
        ck_assert_int_eq(steps[15].workload, WORKLOAD_STRIDE_READ);
        ck_assert_uint_eq(steps[15].stride, 17 * 65536);
        spec_array_free(steps, n);

        /* Three filesystems of two record sizes: 48 steps, where all sizes would make 312. */
        {
                _cleanup_spec_ JobSpec job;
                const char *const a[] = { "devices=/dev/loop1", "destructive=true", "profile=iozone",
                                          "filesystems=ext4,xfs,btrfs", "record_sizes=4K,16M", NULL };

                job_build(&job, a);
                ck_assert_int_eq(profile_expand(p, &job, &all, &n_all, &err), 0);
                ck_assert_msg(matrix_expand(&job, all, n_all, &steps, &n, &err) == 0, "%s", strna(err));
                ck_assert_uint_eq(n, 3 * 2 * 8);
                spec_array_free(steps, n);
                spec_array_free(all, n_all);
        }

        /* A size the profile has no step of: refused, naming the sizes it has. */
        {
                _cleanup_spec_ JobSpec job;

                free(err);
                err = NULL;
                job_build(&job, (const char *const[]) { "target=/srv/bench", "profile=iozone",
                                                        "record_sizes=4K,3K", NULL });
                steps = NULL;
                ck_assert_int_eq(profile_expand(p, &job, &steps, &n, &err), -EINVAL);
                ck_assert_ptr_null(steps);
                ck_assert_msg(err && strstr(err, "profile iozone: record_sizes: 3K is not the block_size of any of "
                                            "its steps; use some of 4K, 8K, 16K, 32K, 64K, 128K, 256K, 512K, 1M, "
                                            "2M, 4M, 8M, 16M"), "%s", strna(err));
        }

        /* Without a profile, or with block_size: refused when finalized. Not a size: when set. */
        static const struct {
                const char *a[4];
                const char *message;
        } bad[] = {
                { { "target=/srv/bench", "workload=write", "record_sizes=4K", NULL },
                  "record_sizes: given without profile;" },
                { { "target=/srv/bench", "profile=iozone", "block_size=4K", "record_sizes=4K" },
                  "record_sizes and block_size: both given;" },
        };
        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                _cleanup_spec_ JobSpec job;

                free(err);
                err = NULL;
                spec_init(&job);
                for (size_t k = 0; k < ELEMENTSOF(bad[i].a) && bad[i].a[k]; k++)
                        ck_assert_int_eq(spec_set_assignment(&job, bad[i].a[k], NULL), 0);
                ck_assert_int_eq(spec_finalize(&job, &err), -EINVAL);
                ck_assert_msg(err && strstr(err, bad[i].message), "%s", strna(err));
        }
        {
                _cleanup_spec_ JobSpec job;

                free(err);
                err = NULL;
                spec_init(&job);
                ck_assert_int_eq(spec_set_assignment(&job, "record_sizes=4K,big", &err), -EINVAL);
                ck_assert_msg(err && strstr(err, "record_sizes: 'big' is not a record size; use sizes of 512 to "
                                            "64M"), "%s", strna(err));
                free(err);
                err = NULL;
                ck_assert_int_eq(spec_set_assignment(&job, "record_sizes=256", &err), -EINVAL);
        }
}
END_TEST

/* A filesystem matrix of iozone: two filesystems fit a job's steps (2 × 104 = 208 <= 256), three
 * are refused with a message naming the bound. */
START_TEST(test_shipped_iozone_matrix) {
        static const struct {
                const char *filesystems;
                bool fits;
        } cases[] = {
                { "filesystems=ext4,xfs", true },
                { "filesystems=ext4,xfs,btrfs", false },
        };

        for (size_t c = 0; c < ELEMENTSOF(cases); c++) {
                _cleanup_spec_ JobSpec job;
                _cleanup_free_ char *err = NULL;
                JobSpec *base = NULL, *steps = NULL;
                size_t n_base = 0, n = 0;
                const char *const a[] = { "devices=/dev/loop1", "destructive=true", "profile=iozone",
                                          cases[c].filesystems, NULL };
                int r;

                shipped_expand("iozone", a, &base, &n_base);
                job_build(&job, a);
                r = matrix_expand(&job, base, n_base, &steps, &n, &err);
                if (cases[c].fits) {
                        ck_assert_msg(r == 0, "%s: %s", cases[c].filesystems, strna(err));
                        ck_assert_uint_eq(n, 2 * n_base);
                        ck_assert_uint_le(n, PROFILE_STEPS_MAX);
                        ck_assert_int_eq(steps[n - 1].workload, WORKLOAD_STRIDE_READ);
                        spec_array_free(steps, n);
                } else {
                        ck_assert_int_eq(r, -EINVAL);
                        ck_assert_msg(err && strstr(err, "312 steps in all") && strstr(err, "at most 256"), "%s",
                                      strna(err));
                }
                spec_array_free(base, n_base);
        }
}
END_TEST

/* bonnie++ 2.00's order: per-character write, block write, rewrite, per-character read, block
 * read, seeks, metadata -n 32:64:4:4; its sizes: 3 MiB of characters (-f), the block tests on
 * benchd's 1G. */
START_TEST(test_shipped_bonnie) {
        static const struct {
                Workload workload;
                uint64_t block_size, size;
                uint32_t jobs;
        } want[] = {
                { WORKLOAD_PUTC, 1, 3 << 20, 1 },
                { WORKLOAD_WRITE, 8192, 1 << 30, 1 },
                { WORKLOAD_READ_MODIFY_WRITE, 8192, 1 << 30, 1 },
                { WORKLOAD_GETC, 1, 3 << 20, 1 },
                { WORKLOAD_READ, 8192, 1 << 30, 1 },
                { WORKLOAD_SEEKS, 8192, 1 << 30, 5 },  /* bonnie++'s 5 seekers */
                { WORKLOAD_METADATA, 4096, 1 << 30, 1 },
        };
        JobSpec *steps = NULL;
        size_t n = 0;

        shipped_expand("bonnie", (const char *const[]) { "target=/srv/bench", "profile=bonnie", NULL }, &steps, &n);
        ck_assert_uint_eq(n, ELEMENTSOF(want));
        for (size_t i = 0; i < n; i++) {
                ck_assert_msg(steps[i].workload == want[i].workload, "step %zu is %s, not %s", i,
                              workload_to_string(steps[i].workload), workload_to_string(want[i].workload));
                ck_assert_uint_eq(steps[i].block_size, want[i].block_size);
                ck_assert_uint_eq(steps[i].size, want[i].size);
                ck_assert_uint_eq(steps[i].jobs, want[i].jobs);
                /* bonnie++ without -D: buffered (metadata moves no blocks); its files allocated as
                 * written. */
                ck_assert_msg(i == 6 || !steps[i].direct, "step %zu is direct", i);
                ck_assert_int_eq(steps[i].fallocate, i == 6 ? FALLOCATE_NATIVE : FALLOCATE_NONE);
                ck_assert(steps[i].invalidate);
        }
        /* The write tests time the fsync bonnie++'s close makes. */
        ck_assert_uint_eq(steps[0].sync, SYNC_END);
        ck_assert_uint_eq(steps[1].sync, SYNC_END);
        ck_assert_uint_eq(steps[2].sync, SYNC_END);
        ck_assert_uint_eq(steps[6].file_count, 32768);
        ck_assert_uint_eq(steps[6].file_size_min, 4);
        ck_assert_uint_eq(steps[6].file_size_max, 64);
        ck_assert_uint_eq(steps[6].dirs, 4);
        spec_array_free(steps, n);
}
END_TEST

/* dd if=/dev/zero of=F bs=32K oflag=direct conv=fsync: a new file allocated as written, zeros,
 * the fsync timed; then dd iflag=direct. ioping -D: 4K direct reads in its 1 MiB working set. */
START_TEST(test_shipped_dd_ping) {
        JobSpec *steps = NULL;
        size_t n = 0;

        shipped_expand("dd", (const char *const[]) { "target=/srv/bench", "profile=dd", NULL }, &steps, &n);
        ck_assert_uint_eq(n, 2);
        ck_assert_int_eq(steps[0].workload, WORKLOAD_WRITE);
        ck_assert_uint_eq(steps[0].block_size, 32768);
        ck_assert(steps[0].direct);
        ck_assert_int_eq(steps[0].sync, SYNC_END);
        ck_assert_int_eq(steps[0].sync_call, SYNC_CALL_FSYNC);
        ck_assert_int_eq(steps[0].fallocate, FALLOCATE_NONE);
        ck_assert_int_eq(steps[0].pattern, PATTERN_DEV_ZERO);
        ck_assert_int_eq(steps[1].workload, WORKLOAD_READ);
        ck_assert(steps[1].direct);
        spec_array_free(steps, n);

        shipped_expand("ping", (const char *const[]) { "target=/srv/bench", "profile=ping", NULL }, &steps, &n);
        ck_assert_uint_eq(n, 1);
        ck_assert_int_eq(steps[0].workload, WORKLOAD_PING);
        ck_assert_uint_eq(steps[0].block_size, 4096);
        ck_assert_uint_eq(steps[0].size, 1 << 20);
        ck_assert(steps[0].direct);
        spec_array_free(steps, n);
}
END_TEST

START_TEST(test_shipped_list) {
        char *const dirs[] = { (char *) SHIPPED_PROFILES_DIR, NULL };
        _cleanup_strv_free_ char **names = NULL;
        size_t n = 0;

        ck_assert_int_eq(profile_list(dirs, &names), 0);
        for (; names[n]; n++) {
                ck_assert_uint_lt(n, ELEMENTSOF(shipped));
                ck_assert_str_eq(names[n], shipped[n].name); /* sorted, as the table is */
        }
        ck_assert_uint_eq(n, ELEMENTSOF(shipped));
}
END_TEST

/* ---- bad profile files ---- */

/* 200 characters: inih (Debian's build) reads at most 197 of a line. */
#define L10 "0123456789"
#define L200 L10 L10 L10 L10 L10 L10 L10 L10 L10 L10 L10 L10 L10 L10 L10 L10 L10 L10 L10 L10

static const struct {
        const char *what;
        const char *name;       /* written as NAME.ini unless text is NULL */
        const char *text;
        const char *load;       /* the name asked for; NULL: name */
        int ret;
        const char *expect[4];  /* substrings of the message; "@" stands for the file's path */
} bad_cases[] = {
        { "unknown key", "badkey",
          "[profile]\ndescription=x\n[step one]\nworkload=write\nblok_size=4K\n", NULL,
          -EINVAL, { "@", "line 5", "'blok_size'", "[step one]" } },
        { "bad value", "badvalue",
          "[step one]\nworkload=write\n\nblock_size=abc\n", NULL,
          -EINVAL, { "@", "line 4", "block_size: 'abc' is not a size", "[step one]" } },
        { "bad workload", "badworkload",
          "[step one]\nworkload=scribble\n", NULL,
          -EINVAL, { "@", "line 2", "'scribble' is not a workload" } },
        { "value out of range", "badrange",
          "[step one]\nworkload=randread\nqueue_depth=100000\n", NULL,
          -EINVAL, { "@", "line 3", "queue_depth" } },
        { "step sets the target", "badtarget",
          "[step one]\nworkload=read\ntarget=/etc\n", NULL,
          -EINVAL, { "@", "line 3", "'target'", "not a spec key a step may set" } },
        { "step makes a matrix", "badmatrix",
          "[step one]\nworkload=read\nfilesystems=ext4\n", NULL,
          -EINVAL, { "@", "line 3", "'filesystems'", "not a spec key a step may set" } },
        { "step sets mkfs options", "badmkfs",
          "[step one]\nworkload=read\nmkfs_options.ext4=-E x\n", NULL,
          -EINVAL, { "@", "line 3", "'mkfs_options.ext4'", "not a spec key a step may set" } },
        { "step picks record sizes", "badrecords",
          "[step one]\nworkload=read\nrecord_sizes=4K\n", NULL,
          -EINVAL, { "@", "line 3", "'record_sizes'", "not a spec key a step may set" } },
        { "unknown key in [profile]", "badhead",
          "[profile]\nname=x\n[step one]\nworkload=read\n", NULL,
          -EINVAL, { "@", "line 2", "'name'", "description=" } },
        { "unknown section", "badsection",
          "[steps one]\nworkload=read\n", NULL,
          -EINVAL, { "@", "line 2", "[steps one]", "[step NAME]" } },
        { "syntax error", "badsyntax",
          "[step one]\nworkload=read\nthis is not an assignment\n", NULL,
          -EINVAL, { "@", "line 3", "syntax error" } },
        { "line longer than inih reads", "longline",
          "[profile]\ndescription=" L200 "\n[step one]\nworkload=read\n", NULL,
          -EINVAL, { "@", "line 2", "212 characters long", "at most 197" } },
        { "empty file", "empty", "", NULL,
          -EINVAL, { "@", "has no [step NAME] sections", "profile empty" } },
        { "only a description", "nosteps", "[profile]\ndescription=nothing to do\n", NULL,
          -EINVAL, { "@", "has no [step NAME] sections" } },
        { "unknown profile", "present", "[step one]\nworkload=read\n", "absent",
          -ENOENT, { "unknown profile 'absent'", "known profiles are: present" } },
        { "name that is a path", "present", "[step one]\nworkload=read\n", "../present",
          -ENOENT, { "unknown profile '../present'" } },
};

START_TEST(test_bad_profile) {
        char *const dirs[] = { tmpdir, NULL };
        _cleanup_(profile_freep) Profile *p = NULL;
        _cleanup_free_ char *err = NULL;
        char path[4096];
        int r;

        write_profile(tmpdir, bad_cases[_i].name, bad_cases[_i].text);
        snprintf(path, sizeof(path), "%s/%s.ini", tmpdir, bad_cases[_i].name);

        r = profile_load(dirs, bad_cases[_i].load ?: bad_cases[_i].name, &p, &err);
        ck_assert_msg(r == bad_cases[_i].ret, "%s: expected %d, got %d (%s)", bad_cases[_i].what,
                      bad_cases[_i].ret, r, strna(err));
        ck_assert_ptr_null(p);
        ck_assert_ptr_nonnull(err);
        for (size_t k = 0; k < ELEMENTSOF(bad_cases[_i].expect) && bad_cases[_i].expect[k]; k++) {
                const char *want = streq(bad_cases[_i].expect[k], "@") ? path : bad_cases[_i].expect[k];
                ck_assert_msg(strstr(err, want), "%s: '%s' not in '%s'", bad_cases[_i].what, want, err);
        }
}
END_TEST

START_TEST(test_no_dirs) {
        char *const dirs[] = { (char *) "/nonexistent/benchd-profiles", NULL };
        _cleanup_(profile_freep) Profile *p = NULL;
        _cleanup_strv_free_ char **names = NULL;
        _cleanup_free_ char *err = NULL;

        ck_assert_int_eq(profile_list(dirs, &names), 0);
        ck_assert_ptr_null(names[0]);
        ck_assert_int_eq(profile_load(dirs, "dd", &p, &err), -ENOENT);
        ck_assert_ptr_nonnull(strstr(err, "(none installed)"));
}
END_TEST

/* GetProfile passes the caller's name as it came: an unknown one is quoted short. */
START_TEST(test_long_name) {
        char *const dirs[] = { (char *) "/nonexistent/benchd-profiles", NULL };
        _cleanup_(profile_freep) Profile *p = NULL;
        _cleanup_free_ char *err = NULL;
        char name[8192];

        memset(name, 'n', sizeof(name) - 1);
        name[sizeof(name) - 1] = 0;
        ck_assert_int_eq(profile_load(dirs, name, &p, &err), -ENOENT);
        ck_assert_msg(strstr(err, "unknown profile 'nnn") && strstr(err, "…'"), "%s", err);
        ck_assert_msg(strlen(err) < CALLER_TEXT_MAX + 200, "%zu bytes", strlen(err));
}
END_TEST

/* /etc/benchd/profiles comes before /usr/share/benchd/profiles: the first directory wins. */
START_TEST(test_override_dir) {
        char *const dirs[] = { tmpdir, tmpdir2, NULL };
        _cleanup_(profile_freep) Profile *p = NULL;
        _cleanup_strv_free_ char **names = NULL;
        _cleanup_free_ char *err = NULL;

        write_profile(tmpdir, "mine", "[profile]\ndescription=local\n[step a]\nworkload=read\n");
        write_profile(tmpdir2, "mine", "[profile]\ndescription=vendor\n[step a]\nworkload=write\n"
                                       "[step b]\nworkload=read\n");
        write_profile(tmpdir2, "other", "[step a]\nworkload=read\n");

        ck_assert_int_eq(profile_load(dirs, "mine", &p, &err), 0);
        ck_assert_str_eq(p->description, "local");
        ck_assert_uint_eq(p->n_steps, 1);
        ck_assert_ptr_nonnull(strstr(p->path, tmpdir));

        ck_assert_int_eq(profile_list(dirs, &names), 0);
        ck_assert_str_eq(names[0], "mine");
        ck_assert_str_eq(names[1], "other");
        ck_assert_ptr_null(names[2]);
}
END_TEST

/* ---- expansion: the step's keys, then the job's on top ---- */

static const char expand_profile[] =
        "[profile]\n"
        "description=two steps\n"
        "[step write]\n"
        "workload=write\n"
        "block_size=32K\n"
        "size=1M\n"
        "sync=end:fdatasync\n"
        "[step read]\n"
        "workload=read\n"
        "block_size=1M\n"
        "size=4M\n"
        "label=from-step\n";

static const struct {
        const char *what;
        const char *job[6];             /* after target= and profile=twostep */
        uint64_t block_size[2], size[2];
        const char *label[2];           /* NULL: none */
        SyncMode sync[2];
} expand_cases[] = {
        { "the steps alone", { NULL },
          { 32768, 1 << 20 }, { 1 << 20, 4 << 20 }, { NULL, "from-step" }, { SYNC_END, SYNC_NONE } },
        { "block_size for both", { "block_size=64K", NULL },
          { 65536, 65536 }, { 1 << 20, 4 << 20 }, { NULL, "from-step" }, { SYNC_END, SYNC_NONE } },
        { "label and size", { "label=mine", "size=8M", NULL },
          { 32768, 1 << 20 }, { 8 << 20, 8 << 20 }, { "mine", "mine" }, { SYNC_END, SYNC_NONE } },
        { "sync for both", { "sync=each:fsync", NULL },
          { 32768, 1 << 20 }, { 1 << 20, 4 << 20 }, { NULL, "from-step" }, { SYNC_EACH, SYNC_EACH } },
};

START_TEST(test_expand) {
        char *const dirs[] = { tmpdir, NULL };
        _cleanup_(profile_freep) Profile *p = NULL;
        _cleanup_spec_ JobSpec job;
        _cleanup_free_ char *err = NULL;
        const char *assign[8] = { "target=/srv/bench", "profile=twostep" };
        JobSpec *steps = NULL;
        size_t n = 0, k = 2;

        for (const char *const *a = expand_cases[_i].job; *a; a++)
                assign[k++] = *a;
        write_profile(tmpdir, "twostep", expand_profile);
        ck_assert_int_eq(profile_load(dirs, "twostep", &p, &err), 0);
        job_build(&job, assign);

        ck_assert_msg(profile_expand(p, &job, &steps, &n, &err) == 0, "%s: %s", expand_cases[_i].what,
                      strna(err));
        ck_assert_uint_eq(n, 2);
        ck_assert_int_eq(steps[0].workload, WORKLOAD_WRITE);
        ck_assert_int_eq(steps[1].workload, WORKLOAD_READ);
        for (size_t i = 0; i < n; i++) {
                ck_assert_str_eq(steps[i].target, "/srv/bench");
                ck_assert_uint_eq(steps[i].block_size, expand_cases[_i].block_size[i]);
                ck_assert_uint_eq(steps[i].size, expand_cases[_i].size[i]);
                ck_assert_int_eq(steps[i].sync, expand_cases[_i].sync[i]);
                if (expand_cases[_i].label[i])
                        ck_assert_str_eq(strna(steps[i].label), expand_cases[_i].label[i]);
                else
                        ck_assert_ptr_null(steps[i].label);
        }
        /* The step's sync call survives an override of other keys. */
        if (expand_cases[_i].sync[0] == SYNC_END)
                ck_assert_int_eq(steps[0].sync_call, SYNC_CALL_FDATASYNC);
        spec_array_free(steps, n);
}
END_TEST

/* A job key that makes a step invalid fails the expansion, naming the profile and step. */
START_TEST(test_expand_invalid) {
        char *const dirs[] = { tmpdir, NULL };
        _cleanup_(profile_freep) Profile *p = NULL;
        _cleanup_spec_ JobSpec job;
        _cleanup_free_ char *err = NULL;
        JobSpec *steps = NULL;
        size_t n = 0;

        write_profile(tmpdir, "twostep", expand_profile);
        ck_assert_int_eq(profile_load(dirs, "twostep", &p, &err), 0);
        /* 2M blocks: the write step's 1M size is now too small. */
        job_build(&job, (const char *const[]) { "target=/srv/bench", "profile=twostep", "block_size=2M", NULL });

        ck_assert_int_eq(profile_expand(p, &job, &steps, &n, &err), -EINVAL);
        ck_assert_ptr_null(steps);
        ck_assert_ptr_nonnull(err);
        ck_assert_msg(strstr(err, "profile twostep, step write: size:"), "message: %s", err);
}
END_TEST

static Suite *profile_suite(void) {
        Suite *s = suite_create("profile");
        TCase *ts = tcase_create("shipped");
        TCase *tc = tcase_create("files");

        tcase_add_loop_test(ts, test_shipped, 0, ELEMENTSOF(shipped));
        tcase_add_test(ts, test_shipped_list);
        tcase_add_test(ts, test_shipped_iozone);
        tcase_add_test(ts, test_shipped_iozone_matrix);
        tcase_add_test(ts, test_record_sizes);
        tcase_add_test(ts, test_shipped_bonnie);
        tcase_add_test(ts, test_shipped_dd_ping);
        suite_add_tcase(s, ts);

        tcase_add_checked_fixture(tc, tmp_setup, tmp_teardown);
        tcase_add_loop_test(tc, test_bad_profile, 0, ELEMENTSOF(bad_cases));
        tcase_add_test(tc, test_no_dirs);
        tcase_add_test(tc, test_long_name);
        tcase_add_test(tc, test_override_dir);
        tcase_add_loop_test(tc, test_expand, 0, ELEMENTSOF(expand_cases));
        tcase_add_test(tc, test_expand_invalid);
        suite_add_tcase(s, tc);
        return s;
}

int main(void) {
        return check_run(profile_suite());
}
