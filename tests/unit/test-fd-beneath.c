/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Tests of opening beneath a held directory (daemon/shared/fd-beneath.c), on a real temporary
 * tree: every case runs through openat_beneath() (openat2() here) and through the walk it falls
 * back to where openat2() is missing, which must answer the same: a symlink at any component is
 * -ELOOP, an escape by ".." or an absolute path is -EXDEV, a missing name -ENOENT, O_CREAT|O_EXCL
 * creates once. mkdirat_held() holds what it made and refuses a directory others could enter;
 * fd_is_entry() tells whether a name still names the file held; fd_reopen() gives a description
 * of its own. As root (--root) a mount under the directory (a tmpfs in a mount namespace of the
 * test's own) is -EXDEV for both.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check-util.h"
#include "shared/fd-beneath.h"
#include "shared/util.h"

static char base[] = "/tmp/test-fd-beneath.XXXXXX";
static int dirfd_base = -1;

static void setup(void) {
        int fd;

        umask(022);
        ck_assert_ptr_nonnull(mkdtemp(base));
        dirfd_base = open(base, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        ck_assert_int_ge(dirfd_base, 0);
        ck_assert_int_eq(mkdirat(dirfd_base, "a", 0755), 0);
        ck_assert_int_eq(mkdirat(dirfd_base, "a/b", 0755), 0);
        fd = openat(dirfd_base, "a/f", O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0644);
        ck_assert_int_ge(fd, 0);
        ck_assert_int_eq(write(fd, "0123456789", 10), 10);
        close(fd);
        ck_assert_int_eq(symlinkat("f", dirfd_base, "a/link"), 0);
        ck_assert_int_eq(symlinkat("a", dirfd_base, "dirlink"), 0);
        ck_assert_int_eq(symlinkat("/etc", dirfd_base, "abs"), 0);
}

static void teardown(void) {
        char cmd[256];

        close(dirfd_base);
        snprintf(cmd, sizeof(cmd), "rm -rf '%s'", base);
        ck_assert_int_eq(system(cmd), 0);
        strcpy(base, "/tmp/test-fd-beneath.XXXXXX");
}

static const struct {
        const char *path;
        int flags;
        int expect;             /* 0: a descriptor */
} cases[] = {
        { "a/f", O_RDONLY, 0 },
        { "a", O_RDONLY | O_DIRECTORY, 0 },
        { "a/b", O_PATH | O_DIRECTORY, 0 },
        { "./a//f", O_RDONLY, 0 },
        { "a/link", O_RDONLY, -ELOOP },                 /* the last component a symlink */
        { "a/link", O_PATH, -ELOOP },                   /* ... also for O_PATH */
        { "dirlink/f", O_RDONLY, -ELOOP },              /* one on the way */
        { "dirlink", O_RDONLY | O_DIRECTORY, -ELOOP },
        { "abs/passwd", O_RDONLY, -ELOOP },
        { "../x", O_RDONLY, -EXDEV },
        { "a/../../x", O_RDONLY, -EXDEV },
        { "/etc/passwd", O_RDONLY, -EXDEV },
        { "a/missing", O_RDONLY, -ENOENT },
        { "missing/f", O_RDONLY, -ENOENT },
        { "a/f/x", O_RDONLY, -ENOTDIR },
        { "", O_RDONLY, -ENOENT },
};

static void check_case(int (*open_fn)(int, const char *, int, mode_t), size_t i) {
        int fd = open_fn(dirfd_base, cases[i].path, cases[i].flags, 0);

        if (cases[i].expect == 0) {
                ck_assert_msg(fd >= 0, "'%s': %s", cases[i].path, strerror(-fd));
                ck_assert_int_ge(fcntl(fd, F_GETFD), FD_CLOEXEC);
                close(fd);
        } else
                ck_assert_msg(fd == cases[i].expect, "'%s': expected %s, got %d (%s)", cases[i].path,
                              strerror(-cases[i].expect), fd, fd < 0 ? strerror(-fd) : "a descriptor");
}

START_TEST(test_openat2) {
        check_case(openat_beneath, (size_t) _i);
}
END_TEST

START_TEST(test_walk) {
        check_case(openat_beneath_walk, (size_t) _i);
}
END_TEST

START_TEST(test_create) {
        int (*fns[])(int, const char *, int, mode_t) = { openat_beneath, openat_beneath_walk };

        for (size_t k = 0; k < ELEMENTSOF(fns); k++) {
                const char *name = k == 0 ? "a/b/new0" : "a/b/new1";
                struct stat st;
                int fd = fns[k](dirfd_base, name, O_CREAT | O_EXCL | O_WRONLY, 0600);

                ck_assert_msg(fd >= 0, "%s: %s", name, strerror(-fd));
                ck_assert_int_eq(fstat(fd, &st), 0);
                ck_assert_int_eq(st.st_mode & 07777, 0600);
                close(fd);
                ck_assert_int_eq(fns[k](dirfd_base, name, O_CREAT | O_EXCL | O_WRONLY, 0600), -EEXIST);
                /* Not through a symlink on the way, not at the end either. */
                ck_assert_int_eq(fns[k](dirfd_base, "dirlink/b/x", O_CREAT | O_EXCL | O_WRONLY, 0600), -ELOOP);
                ck_assert_int_eq(fns[k](dirfd_base, "a/link", O_CREAT | O_EXCL | O_WRONLY, 0600), -EEXIST);
                ck_assert_int_eq(fstatat(dirfd_base, "a/link", &st, AT_SYMLINK_NOFOLLOW), 0);
                ck_assert(S_ISLNK(st.st_mode));
        }
}
END_TEST

START_TEST(test_mkdirat_held) {
        struct stat st, held;
        bool made = false;
        int fd = -1;

        ck_assert_int_eq(mkdirat_held(dirfd_base, "m", 0700, &fd, &made), 0);
        ck_assert(made);
        ck_assert_int_ge(fd, 0);
        ck_assert_int_eq(fstat(fd, &held), 0);
        ck_assert_int_eq(fstatat(dirfd_base, "m", &st, AT_SYMLINK_NOFOLLOW), 0);
        ck_assert(S_ISDIR(held.st_mode));
        ck_assert_uint_eq(held.st_ino, st.st_ino);
        ck_assert_int_eq(fd_is_entry(fd, dirfd_base, "m"), 1);

        /* Renamed away: the name names nothing, then another directory; the descriptor keeps ours. */
        ck_assert_int_eq(renameat(dirfd_base, "m", dirfd_base, "m-away"), 0);
        ck_assert_int_eq(fd_is_entry(fd, dirfd_base, "m"), 0);
        ck_assert_int_eq(mkdirat(dirfd_base, "m", 0700), 0);
        ck_assert_int_eq(fd_is_entry(fd, dirfd_base, "m"), 0);
        ck_assert_int_eq(mkdirat(fd, "inside", 0700), 0);
        ck_assert_int_eq(fstatat(dirfd_base, "m-away/inside", &st, AT_SYMLINK_NOFOLLOW), 0);
        close(fd);

        /* Nothing made: the name was taken. */
        fd = -1;
        ck_assert_int_eq(mkdirat_held(dirfd_base, "m", 0700, &fd, &made), -EEXIST);
        ck_assert(!made);
        ck_assert_int_eq(fd, -1);
        /* Made, but others could enter it: not held. */
        ck_assert_int_eq(mkdirat_held(dirfd_base, "open", 0755, &fd, &made), -ESTALE);
        ck_assert(made);
        ck_assert_int_eq(fd, -1);
        /* One name only. */
        ck_assert_int_eq(mkdirat_held(dirfd_base, "a/x", 0700, &fd, &made), -EINVAL);
        ck_assert_int_eq(mkdirat_held(dirfd_base, "..", 0700, &fd, &made), -EINVAL);
}
END_TEST

START_TEST(test_reopen) {
        char buf[4];
        int fd = openat(dirfd_base, "a/f", O_RDONLY | O_CLOEXEC), again;

        ck_assert_int_ge(fd, 0);
        ck_assert_int_eq(read(fd, buf, 4), 4);
        again = fd_reopen(fd, O_RDONLY);
        ck_assert_int_ge(again, 0);
        /* A description of its own: its own offset. */
        ck_assert_int_eq(read(again, buf, 4), 4);
        ck_assert_int_eq(memcmp(buf, "0123", 4), 0);
        ck_assert_int_eq(fd_is_entry(again, dirfd_base, "a/f"), 1);
        /* Also when the name is gone. */
        ck_assert_int_eq(unlinkat(dirfd_base, "a/f", 0), 0);
        close(again);
        again = fd_reopen(fd, O_RDONLY);
        ck_assert_int_ge(again, 0);
        ck_assert_int_eq(fd_is_entry(again, dirfd_base, "a/f"), 0);
        close(again);
        close(fd);
}
END_TEST

/* A mount under the directory: the walk and openat2 refuse to cross it. */
START_TEST(test_mount) {
        _cleanup_free_ char *mnt = NULL;
        int fd;

        ck_assert_int_eq(unshare(CLONE_NEWNS), 0);
        ck_assert_int_eq(mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL), 0);
        ck_assert_int_eq(mkdirat(dirfd_base, "mnt", 0755), 0);
        ck_assert_int_ge(asprintf(&mnt, "%s/mnt", base), 0);
        ck_assert_msg(mount("tmpfs", mnt, "tmpfs", 0, "size=1m") == 0, "mount %s: %m", mnt);
        /* The directory as this mount namespace sees it (the descriptor from before is of the old one). */
        close(dirfd_base);
        dirfd_base = open(base, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        ck_assert_int_ge(dirfd_base, 0);
        fd = openat(dirfd_base, "mnt/x", O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
        ck_assert_int_ge(fd, 0);
        close(fd);
        ck_assert_int_eq(openat_beneath(dirfd_base, "mnt/x", O_RDONLY, 0), -EXDEV);
        ck_assert_int_eq(openat_beneath_walk(dirfd_base, "mnt/x", O_RDONLY, 0), -EXDEV);
        ck_assert_int_eq(openat_beneath(dirfd_base, "mnt", O_RDONLY | O_DIRECTORY, 0), -EXDEV);
        ck_assert_int_eq(openat_beneath_walk(dirfd_base, "mnt", O_RDONLY | O_DIRECTORY, 0), -EXDEV);
        ck_assert_int_eq(umount2(mnt, MNT_DETACH), 0);
}
END_TEST

static Suite *fd_beneath_suite(bool root) {
        Suite *s = suite_create(root ? "fd-beneath-root" : "fd-beneath");
        TCase *tc = tcase_create("beneath");

        tcase_add_checked_fixture(tc, setup, teardown);
        if (root)
                tcase_add_test(tc, test_mount);
        else {
                tcase_add_loop_test(tc, test_openat2, 0, ELEMENTSOF(cases));
                tcase_add_loop_test(tc, test_walk, 0, ELEMENTSOF(cases));
                tcase_add_test(tc, test_create);
                tcase_add_test(tc, test_mkdirat_held);
                tcase_add_test(tc, test_reopen);
        }
        suite_add_tcase(s, tc);
        return s;
}

int main(int argc, char **argv) {
        bool root = argc > 1 && streq(argv[1], "--root");

        if (root && geteuid() != 0) {
                printf("SKIP: a mount needs root\n");
                return CHECK_EXIT_SKIP;
        }
        return check_run(fd_beneath_suite(root));
}
