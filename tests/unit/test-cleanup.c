/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Tests of the removal of a job's files (daemon/jobs/cleanup.c): on a real temporary directory holding
 * files and directories of the job, of other jobs and steps, symlinks pointing outside, a fifo, a
 * tree deeper than the bound and (as root) entries of another user, exactly the job's own entries
 * go and the counts say so; as root, the removal for a caller runs as the caller and takes only its
 * files; and the background removal in a child process, watched by a real
 * sd-event loop, reports its counts, is killed at its timeout, and is killed by cleanup_free()
 * and then reaped by the loop, without a callback.
 */

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <libgen.h>
#include <limits.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "jobs/cleanup.h"
#include "check-util.h"
#include "shared/util.h"
#include "test-loop.h"

static char tmpdir[128];        /* the target */
static char outside[128];       /* what symlinks point at: must survive */

/* dir/name, freed with the caller's block. */
static char *at(const char *dir, const char *name) {
        char *p = NULL;

        ck_assert_int_ge(asprintf(&p, "%s/%s", dir, name), 0);
        return p;
}

static int rm_entry(const char *path, const struct stat *st, int type, struct FTW *ftw) {
        return type == FTW_DP ? rmdir(path) : unlink(path);
}

static void rm_rf(const char *path) {
        (void) nftw(path, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

static void tmp_setup(void) {
        char base[] = "/tmp/test-cleanup-XXXXXX";

        ck_assert_ptr_nonnull(mkdtemp(base));
        snprintf(tmpdir, sizeof(tmpdir), "%s/target", base);
        snprintf(outside, sizeof(outside), "%s/outside", base);
        ck_assert_int_eq(mkdir(tmpdir, 0755), 0);
        ck_assert_int_eq(mkdir(outside, 0755), 0);
}

static void tmp_teardown(void) {
        char base[PATH_MAX];

        snprintf(base, sizeof(base), "%s", tmpdir);
        *strrchr(base, '/') = 0;
        rm_rf(base);
}

static void make_file(const char *dir, const char *name) {
        _cleanup_free_ char *path = at(dir, name);
        int fd;

        fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
        ck_assert_msg(fd >= 0, "%s: %m", path);
        ck_assert_int_eq(write(fd, "x", 1), 1);
        close(fd);
}

static void make_dir(const char *dir, const char *name) {
        _cleanup_free_ char *path = at(dir, name);

        ck_assert_msg(mkdir(path, 0700) == 0, "%s: %m", path);
}

static void make_link(const char *dir, const char *name, const char *to) {
        _cleanup_free_ char *path = at(dir, name);

        ck_assert_msg(symlink(to, path) == 0, "%s: %m", path);
}

static bool exists(const char *dir, const char *name) {
        _cleanup_free_ char *path = at(dir, name);
        struct stat st;

        return lstat(path, &st) == 0;
}

static void give_away(const char *dir, const char *name) {
        _cleanup_free_ char *path = at(dir, name);

        ck_assert_msg(lchown(path, 65534, 65534) == 0, "%s: %m", path);
}

/* Entries that are never the job's, whatever the step. */
static const char *const foreign[] = {
        "user-file",
        ".benchd-70-0-0",       /* job 70: the prefix of job 7 is not a prefix of it */
        ".benchd-x-0-0",        /* the standalone worker's */
        ".benchd-7",            /* no dash after the id */
        ".benchd-7-0-link",     /* a symlink at the top, pointing outside */
        ".benchd-7-0-fifo",     /* neither file nor directory */
};

static void populate(void) {
        char path[PATH_MAX];

        /* Outside: what a planted symlink points at. */
        make_file(outside, "precious");
        make_dir(outside, "dir");
        make_file(outside, "dir/also-precious");

        /* Job 7, step 0: two files and a metadata tree with a link pointing out of it. */
        make_file(tmpdir, ".benchd-7-0-0");
        make_file(tmpdir, ".benchd-7-0-1");
        make_dir(tmpdir, ".benchd-7-0-meta");
        make_dir(tmpdir, ".benchd-7-0-meta/d00000");
        make_dir(tmpdir, ".benchd-7-0-meta/d00001");
        for (int i = 0; i < 10; i++) {
                snprintf(path, sizeof(path), ".benchd-7-0-meta/d0000%d/f%d", i % 2, i);
                make_file(tmpdir, path);
        }
        make_link(tmpdir, ".benchd-7-0-meta/d00000/link-out", outside);
        make_link(tmpdir, ".benchd-7-0-meta/link-file", "../../outside/precious");
        /* Job 7, step 1. */
        make_file(tmpdir, ".benchd-7-1-0");

        /* Not the job's. */
        make_file(tmpdir, "user-file");
        make_file(tmpdir, ".benchd-70-0-0");
        make_file(tmpdir, ".benchd-x-0-0");
        make_file(tmpdir, ".benchd-7");
        make_link(tmpdir, ".benchd-7-0-link", outside);
        {
                _cleanup_free_ char *fifo = at(tmpdir, ".benchd-7-0-fifo");
                ck_assert_int_eq(mkfifo(fifo, 0600), 0);
        }
}

static void assert_outside_intact(void) {
        ck_assert(exists(outside, "precious"));
        ck_assert(exists(outside, "dir/also-precious"));
}

START_TEST(test_step) {
        CleanupStats st = { .removed = 99 };

        populate();
        ck_assert_int_eq(cleanup_job_files(tmpdir, 7, 0, &st), 0);

        ck_assert(!exists(tmpdir, ".benchd-7-0-0"));
        ck_assert(!exists(tmpdir, ".benchd-7-0-1"));
        ck_assert(!exists(tmpdir, ".benchd-7-0-meta"));
        ck_assert(exists(tmpdir, ".benchd-7-1-0"));     /* another step */
        for (size_t i = 0; i < ELEMENTSOF(foreign); i++)
                ck_assert_msg(exists(tmpdir, foreign[i]), "%s was removed", foreign[i]);
        assert_outside_intact();

        /* 2 files, the tree (3 directories, 10 files, 2 links), nothing else. */
        ck_assert_uint_eq(st.removed, 2 + 3 + 10 + 2);
        ck_assert_uint_eq(st.skipped, 2);               /* the top-level link and fifo */
        ck_assert_uint_eq(st.failed, 0);
        ck_assert_int_eq(st.error, 0);
}
END_TEST

START_TEST(test_all_steps) {
        CleanupStats st;

        populate();
        ck_assert_int_eq(cleanup_job_files(tmpdir, 7, -1, &st), 0);
        ck_assert(!exists(tmpdir, ".benchd-7-0-meta"));
        ck_assert(!exists(tmpdir, ".benchd-7-1-0"));
        for (size_t i = 0; i < ELEMENTSOF(foreign); i++)
                ck_assert_msg(exists(tmpdir, foreign[i]), "%s was removed", foreign[i]);
        assert_outside_intact();
        ck_assert_uint_eq(st.removed, 2 + 3 + 10 + 2 + 1);

        /* Again: nothing left of the job, nothing to do. */
        ck_assert_int_eq(cleanup_job_files(tmpdir, 7, -1, &st), 0);
        ck_assert_uint_eq(st.removed, 0);
        ck_assert_uint_eq(st.failed, 0);
}
END_TEST

/* Another user's entries with our names, at the top or inside our directory, stay, and so does
 * the directory holding one. Needs root (lchown). */
START_TEST(test_other_user) {
        CleanupStats st;

        make_file(tmpdir, ".benchd-7-0-theirs");
        give_away(tmpdir, ".benchd-7-0-theirs");
        make_dir(tmpdir, ".benchd-7-0-theirdir");
        make_file(tmpdir, ".benchd-7-0-theirdir/f");
        give_away(tmpdir, ".benchd-7-0-theirdir");
        make_dir(tmpdir, ".benchd-7-0-mixed");
        make_file(tmpdir, ".benchd-7-0-mixed/mine");
        make_file(tmpdir, ".benchd-7-0-mixed/theirs");
        give_away(tmpdir, ".benchd-7-0-mixed/theirs");

        ck_assert_int_eq(cleanup_job_files(tmpdir, 7, 0, &st), 0);
        ck_assert(exists(tmpdir, ".benchd-7-0-theirs"));
        ck_assert(exists(tmpdir, ".benchd-7-0-theirdir/f"));
        ck_assert(exists(tmpdir, ".benchd-7-0-mixed/theirs"));
        ck_assert(!exists(tmpdir, ".benchd-7-0-mixed/mine"));
        ck_assert_uint_eq(st.removed, 1);
        ck_assert_uint_eq(st.skipped, 3);
}
END_TEST

/* A tree deeper than CLEANUP_DEPTH_MAX: what is within the bound goes, the rest stays. */
START_TEST(test_depth) {
        char path[PATH_MAX] = ".benchd-7-0-deep";
        CleanupStats st;

        make_dir(tmpdir, path);
        for (unsigned i = 0; i < CLEANUP_DEPTH_MAX + 4; i++) {
                strcat(path, "/d");
                make_dir(tmpdir, path);
        }
        make_file(tmpdir, ".benchd-7-0-flat");

        ck_assert_int_eq(cleanup_job_files(tmpdir, 7, 0, &st), 0);
        ck_assert(!exists(tmpdir, ".benchd-7-0-flat"));
        ck_assert(exists(tmpdir, ".benchd-7-0-deep"));
        ck_assert_uint_eq(st.failed, 1);
        ck_assert_int_eq(st.error, -ELOOP);
        ck_assert_uint_eq(st.removed, 1);
}
END_TEST

START_TEST(test_not_a_directory) {
        _cleanup_free_ char *file = at(tmpdir, ".benchd-7-0-0"), *missing = at(tmpdir, "missing");
        CleanupStats st = { .removed = 5 };

        /* A file or block device target: nothing of ours can be there. */
        make_file(tmpdir, ".benchd-7-0-0");
        ck_assert_int_eq(cleanup_job_files(file, 7, -1, &st), 0);
        ck_assert_uint_eq(st.removed, 0);
        ck_assert(exists(tmpdir, ".benchd-7-0-0"));

        ck_assert_int_eq(cleanup_job_files(missing, 7, -1, &st), -ENOENT);
        ck_assert_int_eq(cleanup_job_files(NULL, 7, -1, &st), -EINVAL);
}
END_TEST

/* ---- in the background ---- */

typedef struct Done {
        unsigned calls;
        CleanupResult result;
} Done;

static void on_done(Cleanup *c, const CleanupResult *result, void *userdata) {
        Done *d = userdata;

        d->calls++;
        d->result = *result;
        cleanup_free(c);
}


START_TEST(test_spawn) {
        sd_event *e = test_event_new();
        Cleanup *c = NULL;
        Done d = {};
        char name[64];

        make_dir(tmpdir, ".benchd-9-2-meta");
        for (int i = 0; i < 2000; i++) {
                snprintf(name, sizeof(name), ".benchd-9-2-meta/f%d", i);
                make_file(tmpdir, name);
        }
        make_file(tmpdir, ".benchd-9-3-0");
        make_file(tmpdir, "user-file");

        ck_assert_int_eq(cleanup_spawn(e, tmpdir, 9, 2, 0, 60 * USEC_PER_SEC, on_done, &d, &c), 0);
        ck_assert_ptr_nonnull(c);
        ck_assert_int_gt(cleanup_pid(c), 0);
        ck_assert_uint_eq(cleanup_job_id(c), 9);
        ck_assert_str_eq(cleanup_target(c), tmpdir);
        test_run_until_called(e, &d.calls);

        ck_assert(d.result.finished);
        ck_assert(!d.result.timed_out);
        ck_assert_uint_eq(d.result.stats.removed, 2001);
        ck_assert_uint_eq(d.result.stats.failed, 0);
        ck_assert(!exists(tmpdir, ".benchd-9-2-meta"));
        ck_assert(exists(tmpdir, ".benchd-9-3-0"));
        ck_assert(exists(tmpdir, "user-file"));
        sd_event_unref(e);
}
END_TEST

START_TEST(test_spawn_unreadable) {
        sd_event *e = test_event_new();
        Cleanup *c = NULL;
        Done d = {};
        _cleanup_free_ char *path = at(tmpdir, "missing");

        ck_assert_int_eq(cleanup_spawn(e, path, 9, -1, 0, 60 * USEC_PER_SEC, on_done, &d, &c), 0);
        test_run_until_called(e, &d.calls);
        ck_assert(d.result.finished);
        ck_assert_int_eq(d.result.stats.error, -ENOENT);
        ck_assert_uint_eq(d.result.stats.removed, 0);
        sd_event_unref(e);
}
END_TEST

/* Makes the child hang, deterministically: it reports a foreign entry on stderr, which it inherits
 * as a pipe that is full and that nobody reads. Our own stderr is restored right after the spawn
 * (the child keeps its copy); the read end stays open until the end of the test, so the child
 * blocks rather than dying of SIGPIPE. Returns the saved stderr. */
static int stderr_blocked(int *ret_pipe_read) {
        int p[2], saved;
        char buf[4096] = {};

        ck_assert_int_eq(pipe2(p, O_CLOEXEC | O_NONBLOCK), 0);
        while (write(p[1], buf, sizeof(buf)) > 0)
                ;
        ck_assert_int_eq(errno, EAGAIN);
        /* Blocking again: the file status flags are shared with the child. */
        ck_assert_int_eq(fcntl(p[1], F_SETFL, 0), 0);
        fflush(stderr);
        saved = fcntl(2, F_DUPFD_CLOEXEC, 3);
        ck_assert_int_ge(saved, 0);
        ck_assert_int_eq(dup2(p[1], 2), 2);
        close(p[1]);
        *ret_pipe_read = p[0];
        return saved;
}

static void stderr_restore(int saved) {
        ck_assert_int_eq(dup2(saved, 2), 2);
        close(saved);
}

START_TEST(test_spawn_timeout) {
        sd_event *e = test_event_new();
        Cleanup *c = NULL;
        Done d = {};
        int saved, rd;

        make_link(tmpdir, ".benchd-9-0-link", outside);  /* reported as not ours: a message */
        make_file(tmpdir, ".benchd-9-0-zz");
        saved = stderr_blocked(&rd);
        ck_assert_int_eq(cleanup_spawn(e, tmpdir, 9, 0, 0, 200 * USEC_PER_MSEC, on_done, &d, &c), 0);
        stderr_restore(saved);
        test_run_until_called(e, &d.calls);
        close(rd);

        ck_assert(d.result.timed_out);
        ck_assert(!d.result.finished);
        ck_assert(exists(tmpdir, ".benchd-9-0-link"));
        sd_event_unref(e);
}
END_TEST

START_TEST(test_free_kills) {
        sd_event *e = test_event_new();
        Cleanup *c = NULL;
        Done d = {};
        int saved, rd;
        pid_t pid;

        make_link(tmpdir, ".benchd-9-0-link", outside);
        saved = stderr_blocked(&rd);
        ck_assert_int_eq(cleanup_spawn(e, tmpdir, 9, 0, 0, 60 * USEC_PER_SEC, on_done, &d, &c), 0);
        stderr_restore(saved);
        pid = cleanup_pid(c);
        c = cleanup_free(c);
        close(rd);

        /* Killed, not waited for: the loop reaps it, the pid is gone, and no callback came. */
        test_run_until_reaped(e, pid);
        ck_assert_int_eq(kill(pid, 0), -1);
        ck_assert_int_eq(errno, ESRCH);
        ck_assert_uint_eq(d.calls, 0);
        sd_event_unref(e);
}
END_TEST

START_TEST(test_kill) {
        sd_event *e = test_event_new();
        Cleanup *c = NULL;
        Done d = {};
        int saved, rd;

        make_link(tmpdir, ".benchd-9-0-link", outside);
        saved = stderr_blocked(&rd);
        ck_assert_int_eq(cleanup_spawn(e, tmpdir, 9, 0, 0, 60 * USEC_PER_SEC, on_done, &d, &c), 0);
        stderr_restore(saved);
        cleanup_kill(c);
        test_run_until_called(e, &d.calls);
        close(rd);

        ck_assert(!d.result.finished);
        ck_assert(!d.result.timed_out);
        sd_event_unref(e);
}
END_TEST

/* For a caller's job the removal runs as the caller: the caller's files go, root's with the job's
 * names stay (not ours to the removal), and a uid without a passwd entry removes nothing. */
START_TEST(test_spawn_as_user) {
        _cleanup_free_ char *base = strdup(tmpdir);
        sd_event *e = test_event_new();
        Cleanup *c = NULL;
        Done d = {};

        if (!getpwuid(65534))
                return; /* no user to be */
        /* The caller may reach the target and write in it. */
        ck_assert_int_eq(chmod(dirname(base), 0755), 0);
        ck_assert_int_eq(chown(tmpdir, 65534, 65534), 0);
        make_file(tmpdir, ".benchd-9-0-0");
        give_away(tmpdir, ".benchd-9-0-0");
        make_dir(tmpdir, ".benchd-9-0-meta");
        make_file(tmpdir, ".benchd-9-0-meta/0000000001");
        give_away(tmpdir, ".benchd-9-0-meta/0000000001");
        give_away(tmpdir, ".benchd-9-0-meta");
        make_file(tmpdir, ".benchd-9-0-root");

        ck_assert_int_eq(cleanup_spawn(e, tmpdir, 9, 0, 65534, 60 * USEC_PER_SEC, on_done, &d, &c), 0);
        test_run_until_called(e, &d.calls);
        ck_assert(d.result.finished);
        ck_assert(!d.result.not_as_user);
        ck_assert_uint_eq(d.result.stats.removed, 3);
        ck_assert_uint_eq(d.result.stats.skipped, 1);
        ck_assert(!exists(tmpdir, ".benchd-9-0-0"));
        ck_assert(!exists(tmpdir, ".benchd-9-0-meta"));
        ck_assert(exists(tmpdir, ".benchd-9-0-root"));

        d = (Done) {};
        make_file(tmpdir, ".benchd-9-0-1");
        give_away(tmpdir, ".benchd-9-0-1");
        ck_assert_int_eq(cleanup_spawn(e, tmpdir, 9, 0, 41234, 60 * USEC_PER_SEC, on_done, &d, &c), 0);
        test_run_until_called(e, &d.calls);
        ck_assert(d.result.finished);
        ck_assert(d.result.not_as_user);
        ck_assert_uint_eq(d.result.stats.removed, 0);
        ck_assert(exists(tmpdir, ".benchd-9-0-1"));
        sd_event_unref(e);
}
END_TEST

/* The other user's files need root (lchown): they are test-cleanup-root (--root), skipped without. */
static Suite *cleanup_suite(bool need_root) {
        Suite *s = suite_create(need_root ? "cleanup-root" : "cleanup");
        TCase *tc = tcase_create("rules");
        TCase *tb;

        tcase_add_checked_fixture(tc, tmp_setup, tmp_teardown);
        if (need_root) {
                tcase_add_test(tc, test_other_user);
                tcase_add_test(tc, test_spawn_as_user);
                suite_add_tcase(s, tc);
                return s;
        }
        tb = tcase_create("background");
        tcase_add_test(tc, test_step);
        tcase_add_test(tc, test_all_steps);
        tcase_add_test(tc, test_depth);
        tcase_add_test(tc, test_not_a_directory);
        suite_add_tcase(s, tc);

        tcase_add_checked_fixture(tb, tmp_setup, tmp_teardown);
        tcase_add_test(tb, test_spawn);
        tcase_add_test(tb, test_spawn_unreadable);
        tcase_add_test(tb, test_spawn_timeout);
        tcase_add_test(tb, test_free_kills);
        tcase_add_test(tb, test_kill);
        suite_add_tcase(s, tb);
        return s;
}

int main(int argc, char **argv) {
        bool need_root = argc > 1 && streq(argv[1], "--root");

        if (need_root && geteuid() != 0) {
                printf("SKIP: the other user's files need root (lchown)\n");
                return CHECK_EXIT_SKIP;
        }
        return check_run(cleanup_suite(need_root));
}
