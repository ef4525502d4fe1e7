/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Paths under a target, opened only beneath a descriptor we hold. benchd-worker and benchd-cleanup
 * work in directories other users may write to (the target is the caller's), so any name there may
 * be renamed, replaced by another directory or turned into a symlink between two of our system
 * calls. Nothing under the target is therefore resolved from its path again: the target is opened
 * once (and checked to be the object benchd vetted), every directory we make is opened right after
 * mkdirat() and held, and every name is looked up relative to one of those descriptors, with
 * openat2()'s RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS | RESOLVE_NO_XDEV: no
 * "..", no absolute path, no symlink at any component, no other mount. Where the kernel has no
 * openat2() (before Linux 5.6, or a seccomp filter that refuses it), each component is opened with
 * O_NOFOLLOW (openat_beneath_walk()), which refuses the same.
 */
#pragma once

#include <stdbool.h>
#include <sys/types.h>

/* openat(dirfd, path, flags | O_CLOEXEC, mode) resolved beneath dirfd: -EXDEV for an absolute
 * path, a ".." or another mount, -ELOOP for a symlink at any component; else as openat(). */
int openat_beneath(int dirfd, const char *path, int flags, mode_t mode);

/* The same by walking path one component at a time, each opened O_NOFOLLOW relative to the one
 * before (O_PATH for the directories on the way): what openat_beneath() does where openat2() is
 * missing, exposed for its unit test. A mount is recognised by a change of st_dev only. */
int openat_beneath_walk(int dirfd, const char *path, int flags, mode_t mode);

/* mkdirat(dirfd, name, mode) and the new directory opened (O_RDONLY | O_DIRECTORY) beneath dirfd
 * into *ret_fd, checked to be what mkdirat() made: a directory owned by our euid, without access
 * for group or others, and empty. 0; -EEXIST (or another errno of mkdirat()) when nothing was made;
 * -ESTALE or -ELOOP when it was made but the name names something else by the time it is opened
 * (renamed away and replaced): *ret_made is then true and the name is not ours to remove. */
int mkdirat_held(int dirfd, const char *name, mode_t mode, int *ret_fd, bool *ret_made);

/* A new open file description of the file fd refers to (through /proc/self/fd, never its name),
 * with flags | O_CLOEXEC; checked to be the same inode. */
int fd_reopen(int fd, int flags);

/* Whether the entry name in dirfd (not followed) is the inode fd refers to: 1, 0 (another object,
 * or none), a negative errno. What a removal by name checks just before it. */
int fd_is_entry(int fd, int dirfd, const char *name);
