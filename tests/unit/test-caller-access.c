/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Tests of whether an unprivileged caller could use a target (jobs/caller-access.c): the kernel's
 * rule as tables (mode bits: the owner's bits alone for the owner, the group's for a member, the
 * others' otherwise; access ACLs: a named user under the mask, groups that match but do not grant
 * deny, malformed ones refused), then on real directories and files made here: a directory the
 * caller may not write or whose parent it may not search is refused naming that directory, one
 * the caller owns or everyone may write is allowed, a file it may not read is refused, and an ACL
 * entry set with setxattr() grants what the mode bits do not; whether the caller could reach a
 * path at all, through "..", symlinks and names that do not exist, with one answer for all that lies
 * beyond a directory it may not search.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "check-util.h"
#include "jobs/caller-access.h"
#include "shared/util.h"

#define R CALLER_ACCESS_READ
#define W CALLER_ACCESS_WRITE
#define X CALLER_ACCESS_SEARCH

/* A uid and gid that no user database here knows. */
#define UID 41234u
#define GID 41235u
#define OTHER_GID 41236u

static const gid_t member_of[] = { GID };

/* ---- mode bits ---- */

static const struct {
        uid_t owner;
        gid_t group;
        mode_t mode;
        bool member;
        int want;
        int allowed;
} mode_cases[] = {
        { UID, 0, 0700, false, W | X, 1 },
        /* The owner gets the owner's bits alone, even when the others' would allow. */
        { UID, 0, 0077, false, R, 0 },
        { 0, GID, 0770, true, W | X, 1 },
        { 0, GID, 0750, true, W | X, 0 },
        /* A member gets the group's bits alone. */
        { 0, GID, 0707, true, W, 0 },
        { 0, OTHER_GID, 0755, true, W | X, 0 },
        { 0, OTHER_GID, 0757, true, W | X, 1 },
        { 0, 0, 0755, false, X, 1 },
        { 0, 0, 0754, false, X, 0 },
        { 0, 0, 0644, false, R, 1 },
        { 0, 0, 0640, false, R, 0 },
        { 0, 0, 01777, false, W | X, 1 },
};

START_TEST(test_mode) {
        struct stat st = {
                .st_uid = mode_cases[_i].owner,
                .st_gid = mode_cases[_i].group,
                .st_mode = S_IFDIR | mode_cases[_i].mode,
        };
        CallerIdentity who = { .uid = UID, .gids = member_of, .n_gids = mode_cases[_i].member ? 1 : 0 };

        ck_assert_int_eq(caller_access_allows(&st, NULL, 0, &who, mode_cases[_i].want), mode_cases[_i].allowed);
}
END_TEST

START_TEST(test_root_always) {
        struct stat st = { .st_mode = S_IFDIR | 0000 };
        CallerIdentity root = { .uid = 0 };

        ck_assert_int_eq(caller_access_allows(&st, NULL, 0, &root, R | W | X), 1);
}
END_TEST

/* ---- access ACLs, in the encoding of system.posix_acl_access ---- */

enum { USER_OBJ = 0x01, USER = 0x02, GROUP_OBJ = 0x04, GROUP = 0x08, MASK = 0x10, OTHER = 0x20 };

typedef struct Entry {
        uint16_t tag, perm;
        uint32_t id;
} Entry;

static size_t acl_encode(const Entry *e, size_t n, uint32_t version, uint8_t *out) {
        out[0] = (uint8_t) version;
        out[1] = (uint8_t) (version >> 8);
        out[2] = out[3] = 0;
        for (size_t i = 0; i < n; i++) {
                uint8_t *p = out + 4 + i * 8;

                p[0] = (uint8_t) e[i].tag;
                p[1] = (uint8_t) (e[i].tag >> 8);
                p[2] = (uint8_t) e[i].perm;
                p[3] = (uint8_t) (e[i].perm >> 8);
                p[4] = (uint8_t) e[i].id;
                p[5] = (uint8_t) (e[i].id >> 8);
                p[6] = (uint8_t) (e[i].id >> 16);
                p[7] = (uint8_t) (e[i].id >> 24);
        }
        return 4 + n * 8;
}

#define ENTRIES_MAX 8

static const struct {
        const char *name;
        Entry e[ENTRIES_MAX];
        size_t n;
        bool member;
        int want;
        int allowed;
} acl_cases[] = {
        { "named user, mask allows",
          { { USER_OBJ, 7, 0 }, { USER, 7, UID }, { GROUP_OBJ, 5, 0 }, { MASK, 7, 0 }, { OTHER, 5, 0 } }, 5,
          false, W | X, 1 },
        { "named user, mask takes the write away",
          { { USER_OBJ, 7, 0 }, { USER, 7, UID }, { GROUP_OBJ, 5, 0 }, { MASK, 5, 0 }, { OTHER, 7, 0 } }, 5,
          false, W | X, 0 },
        { "named group grants",
          { { USER_OBJ, 7, 0 }, { GROUP_OBJ, 5, 0 }, { GROUP, 7, GID }, { MASK, 7, 0 }, { OTHER, 0, 0 } }, 5,
          true, W | X, 1 },
        { "a group matches without granting: no, though the others may",
          { { USER_OBJ, 7, 0 }, { GROUP_OBJ, 5, 0 }, { GROUP, 5, GID }, { MASK, 7, 0 }, { OTHER, 7, 0 } }, 5,
          true, W | X, 0 },
        { "another user's entry: the others' bits",
          { { USER_OBJ, 7, 0 }, { USER, 7, UID + 1 }, { GROUP_OBJ, 5, 0 }, { MASK, 7, 0 }, { OTHER, 5, 0 } }, 5,
          false, W | X, 0 },
        { "minimal ACL, others read",
          { { USER_OBJ, 6, 0 }, { GROUP_OBJ, 4, 0 }, { OTHER, 4, 0 } }, 3, false, R, 1 },
        { "no entry for the others", { { USER_OBJ, 7, 0 }, { GROUP_OBJ, 5, 0 } }, 2, false, R, -EBADMSG },
        { "an unknown tag", { { USER_OBJ, 7, 0 }, { 0x40, 7, 0 }, { OTHER, 7, 0 } }, 3, false, R, -EBADMSG },
};

START_TEST(test_acl) {
        uint8_t buf[4 + ENTRIES_MAX * 8];
        size_t size = acl_encode(acl_cases[_i].e, acl_cases[_i].n, 2, buf);
        struct stat st = { .st_uid = 0, .st_gid = 0, .st_mode = S_IFDIR | 0755 };
        CallerIdentity who = { .uid = UID, .gids = member_of, .n_gids = acl_cases[_i].member ? 1 : 0 };

        ck_assert_msg(caller_access_allows(&st, buf, size, &who, acl_cases[_i].want) == acl_cases[_i].allowed,
                      "%s", acl_cases[_i].name);
}
END_TEST

START_TEST(test_acl_malformed) {
        Entry e[] = { { USER_OBJ, 7, 0 }, { GROUP_OBJ, 5, 0 }, { OTHER, 5, 0 } };
        uint8_t buf[64];
        size_t size = acl_encode(e, ELEMENTSOF(e), 1, buf);
        struct stat st = { .st_mode = S_IFDIR | 0755 };
        CallerIdentity who = { .uid = UID };

        ck_assert_int_eq(caller_access_allows(&st, buf, size, &who, R), -EBADMSG);
        size = acl_encode(e, ELEMENTSOF(e), 2, buf);
        ck_assert_int_eq(caller_access_allows(&st, buf, size - 1, &who, R), -EBADMSG);
        ck_assert_int_eq(caller_access_allows(&st, buf, 2, &who, R), -EBADMSG);
}
END_TEST

/* ---- real directories and files ---- */

static char base[] = "/tmp/test-caller-access.XXXXXX";

static void setup(void) {
        ck_assert_ptr_nonnull(mkdtemp(base));
        ck_assert_int_eq(chmod(base, 0755), 0);
}

static void teardown(void) {
        char cmd[256];

        snprintf(cmd, sizeof(cmd), "rm -rf '%s'", base);
        ck_assert_int_eq(system(cmd), 0);
}

static char *path_in(const char *name) {
        char *p;

        ck_assert_int_ge(asprintf(&p, "%s/%s", base, name), 0);
        return p;
}

START_TEST(test_real_directories) {
        _cleanup_free_ char *dir = path_in("d"), *inner = path_in("closed"), *deep = path_in("closed/d");
        char *reason = NULL;

        ck_assert_int_eq(mkdir(dir, 0755), 0);
        /* Another user's 0755 directory: refused, naming it and saying what would be right. */
        ck_assert_int_eq(caller_may_use(dir, true, true, UID, &reason), -EACCES);
        ck_assert_ptr_nonnull(reason);
        ck_assert_msg(strstr(reason, "may not create files in") && strstr(reason, dir) &&
                      strstr(reason, "mode 0755") && strstr(reason, "choose a directory you can use"), "%s", reason);
        free(reason);
        reason = NULL;
        /* Root may always. */
        ck_assert_int_eq(caller_may_use(dir, true, true, 0, &reason), 0);
        ck_assert_ptr_null(reason);

        ck_assert_int_eq(chmod(dir, 01777), 0);
        ck_assert_int_eq(caller_may_use(dir, true, true, UID, &reason), 0);
        ck_assert_ptr_null(reason);

        /* Owned by the caller (chown needs root or the same uid). */
        if (geteuid() == 0) {
                ck_assert_int_eq(chmod(dir, 0700), 0);
                ck_assert_int_eq(chown(dir, UID, GID), 0);
                ck_assert_int_eq(caller_may_use(dir, true, false, UID, &reason), 0);
                ck_assert_ptr_null(reason);
        }

        /* A writable directory inside one the caller may not search. */
        ck_assert_int_eq(mkdir(inner, 0700), 0);
        ck_assert_int_eq(mkdir(deep, 0777), 0);
        ck_assert_int_eq(chmod(deep, 0777), 0);
        ck_assert_int_eq(caller_may_use(deep, true, true, UID, &reason), -EACCES);
        ck_assert_msg(strstr(reason, "may not search") && strstr(reason, "/closed ("), "%s", reason);
        free(reason);
        reason = NULL;

        /* Through a symbolic link: the directory it names is what counts. */
        _cleanup_free_ char *link = path_in("link");
        ck_assert_int_eq(symlink(deep, link), 0);
        ck_assert_int_eq(caller_may_use(link, true, true, UID, &reason), -EACCES);
        free(reason);
        reason = NULL;

        ck_assert_int_eq(caller_may_use("/nonexistent/test-caller-access", true, true, UID, &reason), -ENOENT);
        ck_assert_msg(reason && strstr(reason, "cannot resolve /nonexistent/test-caller-access"), "%s", reason);
        free(reason);
}
END_TEST

START_TEST(test_real_files) {
        _cleanup_free_ char *file = path_in("f");
        char *reason = NULL;
        int fd = open(file, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0600);

        ck_assert_int_ge(fd, 0);
        close(fd);
        ck_assert_int_eq(chmod(file, 0600), 0);
        ck_assert_int_eq(caller_may_use(file, false, false, UID, &reason), -EACCES);
        ck_assert_msg(strstr(reason, "may not read") && strstr(reason, "choose a file you can use"), "%s", reason);
        free(reason);
        reason = NULL;
        ck_assert_int_eq(chmod(file, 0644), 0);
        ck_assert_int_eq(caller_may_use(file, false, false, UID, &reason), 0);
        ck_assert_int_eq(caller_may_use(file, false, true, UID, &reason), -EACCES);
        ck_assert_msg(strstr(reason, "may not read and write"), "%s", reason);
        free(reason);
}
END_TEST

START_TEST(test_real_acl) {
        _cleanup_free_ char *dir = path_in("acl");
        Entry e[] = { { USER_OBJ, 7, 0 }, { USER, 7, UID }, { GROUP_OBJ, 5, 0 }, { MASK, 7, 0 }, { OTHER, 5, 0 } };
        uint8_t buf[64];
        size_t size = acl_encode(e, ELEMENTSOF(e), 2, buf);
        char *reason = NULL;

        ck_assert_int_eq(mkdir(dir, 0755), 0);
        ck_assert_int_eq(caller_may_use(dir, true, true, UID, &reason), -EACCES);
        free(reason);
        reason = NULL;
        if (setxattr(dir, "system.posix_acl_access", buf, size, 0) < 0) {
                ck_assert_msg(errno == EOPNOTSUPP, "setxattr: %s", strerror(errno));
                return;         /* a /tmp without ACLs: the table above covers the rule */
        }
        ck_assert_int_eq(caller_may_use(dir, true, true, UID, &reason), 0);
        ck_assert_ptr_null(reason);
        /* The mask narrowed: refused again, and the reason says there is an ACL. */
        e[3].perm = 5;
        size = acl_encode(e, ELEMENTSOF(e), 2, buf);
        ck_assert_int_eq(setxattr(dir, "system.posix_acl_access", buf, size, 0), 0);
        ck_assert_int_eq(caller_may_use(dir, true, true, UID, &reason), -EACCES);
        ck_assert_msg(strstr(reason, "and an ACL"), "%s", reason);
        free(reason);
}
END_TEST

/* What lies beyond a directory the caller may not search gets one answer, naming that directory
 * only, whatever is there; where the caller can look, the checks after this one speak. */
START_TEST(test_real_reach) {
        _cleanup_free_ char *shut = path_in("shut"), *file = path_in("shut/file"), *sub = path_in("shut/sub"),
                           *open_dir = path_in("open"), *lnk = path_in("lnk"), *lnk_ok = path_in("lnk-ok");
        const char *hidden[] = { "shut/nonexistent", "shut/file", "shut/sub/deeper", "shut/file/x", "lnk",
                                 "open/../shut/file", "shut/../open" };
        const char *visible[] = { "open/nonexistent", "open", "shut", "lnk-ok", "lnk-ok/nonexistent", "nonexistent",
                                  "open/file/x", "./open//." };
        char *reason = NULL, *first = NULL;
        int fd;

        ck_assert_int_eq(mkdir(shut, 0700), 0);
        ck_assert_int_eq(mkdir(sub, 0777), 0);
        ck_assert_int_eq(mkdir(open_dir, 0755), 0);
        fd = open(file, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0644);
        ck_assert_int_ge(fd, 0);
        close(fd);
        ck_assert_int_eq(symlink(file, lnk), 0);
        ck_assert_int_eq(symlink("open", lnk_ok), 0);
        _cleanup_free_ char *open_file = path_in("open/file");
        fd = open(open_file, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0644);
        ck_assert_int_ge(fd, 0);
        close(fd);

        for (size_t i = 0; i < ELEMENTSOF(hidden); i++) {
                _cleanup_free_ char *p = path_in(hidden[i]);

                ck_assert_msg(caller_may_reach(p, UID, &reason) == -EACCES, "%s", p);
                ck_assert_msg(reason && strstr(reason, "may not search") && strstr(reason, shut) &&
                              !strstr(reason, "nonexistent") && !strstr(reason, "/file") &&
                              !strstr(reason, "/sub") && !strstr(reason, "deeper"), "%s: %s", p, strna(reason));
                if (!first)
                        first = TAKE_PTR(reason);
                else {
                        /* The same words for all: nothing of what is behind it. */
                        ck_assert_str_eq(reason, first);
                        free(reason);
                        reason = NULL;
                }
        }
        free(first);
        for (size_t i = 0; i < ELEMENTSOF(visible); i++) {
                _cleanup_free_ char *p = path_in(visible[i]);

                ck_assert_msg(caller_may_reach(p, UID, &reason) == 0, "%s: %s", p, strna(reason));
                ck_assert_ptr_null(reason);
        }
        /* Root reaches everything; so does the owner of the closed directory. */
        ck_assert_int_eq(caller_may_reach(file, 0, &reason), 0);
        if (geteuid() == 0) {
                ck_assert_int_eq(chown(shut, UID, GID), 0);
                ck_assert_int_eq(caller_may_reach(file, UID, &reason), 0);
                ck_assert_ptr_null(reason);
        }
}
END_TEST

START_TEST(test_groups) {
        _cleanup_free_ gid_t *gids = NULL;
        size_t n = 99;

        /* No passwd entry: no groups. */
        ck_assert_int_eq(caller_groups(UID, &gids, &n), 0);
        ck_assert_uint_eq(n, 0);
        free(gids);
        gids = NULL;
        /* root's primary group comes first. */
        ck_assert_int_eq(caller_groups(0, &gids, &n), 0);
        ck_assert_uint_ge(n, 1);
        ck_assert_uint_eq(gids[0], 0);
}
END_TEST

static Suite *caller_access_suite(void) {
        Suite *s = suite_create("caller-access");
        TCase *rules = tcase_create("rules");
        TCase *real = tcase_create("real");

        tcase_add_loop_test(rules, test_mode, 0, ELEMENTSOF(mode_cases));
        tcase_add_test(rules, test_root_always);
        tcase_add_loop_test(rules, test_acl, 0, ELEMENTSOF(acl_cases));
        tcase_add_test(rules, test_acl_malformed);
        tcase_add_test(rules, test_groups);
        suite_add_tcase(s, rules);

        tcase_add_checked_fixture(real, setup, teardown);
        tcase_add_test(real, test_real_directories);
        tcase_add_test(real, test_real_files);
        tcase_add_test(real, test_real_acl);
        tcase_add_test(real, test_real_reach);
        suite_add_tcase(s, real);
        return s;
}

int main(void) {
        return check_run(caller_access_suite());
}
