/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Whether an unprivileged caller could use a target themselves. benchd runs as root, so a user whom
 * polkit allows to submit could otherwise have it create its files in /etc or /root, or read a
 * file that user cannot read. For a caller other than root, a directory target must be one the
 * caller may create files in (search on every directory of its path, write and search on it), and a
 * file target one the caller may read (and write, for a workload that writes). Block devices are
 * polkit's to allow (org.benchd.benchd1.submit to read, .destructive to write), not this.
 *
 * These checks are the early, readable refusal, at SubmitJob and at each step's start; what holds
 * is the kernel's word: a caller's step runs in a worker that has become the caller (run-as.h). They
 * evaluate the permissions the way the kernel does for a process with the caller's uid and the
 * groups the user database gives them: the mode bits, or the POSIX ACL where a file has one
 * (system.posix_acl_access). Other security modules (SELinux, AppArmor) are not consulted; they can
 * only deny more.
 *
 * What the caller cannot reach it learns nothing about: caller_may_reach() runs before anything
 * else looks at the target, so a path beyond a directory the caller may not search gets one answer
 * whether it exists, is a file, or has a size.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>

/* What is wanted of one object: the bits of access(2). */
#define CALLER_ACCESS_READ 4
#define CALLER_ACCESS_WRITE 2
#define CALLER_ACCESS_SEARCH 1

typedef struct CallerIdentity {
        uid_t uid;
        const gid_t *gids;      /* the primary group and the supplementary ones */
        size_t n_gids;
} CallerIdentity;

/* Pure: does the kernel's rule give `who` the access `want` (CALLER_ACCESS_*) to an object with
 * the owner and mode of st and, when acl is not NULL, that extended ACL (the raw value of the
 * system.posix_acl_access attribute, acl_size bytes)? 1 yes, 0 no, -EBADMSG for an ACL that does
 * not decode. */
int caller_access_allows(const struct stat *st, const void *acl, size_t acl_size, const CallerIdentity *who,
                         int want);

/* The groups of uid from the user database (its primary group first); a uid without a passwd entry
 * has none. 0 with *ret and *ret_n (free *ret), or a negative errno. */
int caller_groups(uid_t uid, gid_t **ret, size_t *ret_n);

/* May uid create files in the directory path (is_directory) or read the file path (and write it,
 * when writes)? 0 yes; -EACCES with *ret_reason naming the object it may not use and what would be
 * right; another negative errno with *ret_reason when it cannot be told (a component that cannot
 * be examined). uid 0 may always. */
int caller_may_use(const char *path, bool is_directory, bool writes, uid_t uid, char **ret_reason);

/* Could uid look path up itself: search permission on every directory the kernel would walk
 * through for it, following symlinks as the kernel does? 0 yes (also when the walk would end
 * otherwise, at a name that does not exist or is not a directory: the caller can learn that); -EACCES
 * with *ret_reason naming the first directory it may not search, and only that, when not; another
 * negative errno with *ret_reason when it cannot be told. uid 0 may always. */
int caller_may_reach(const char *path, uid_t uid, char **ret_reason);
