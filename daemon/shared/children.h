/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Ending what a process left behind. benchd and benchd-worker are child subreapers
 * (PR_SET_CHILD_SUBREAPER): a descendant whose parent dies, even one that called setsid() to
 * leave its process group, becomes their child instead of init's. These helpers find the children
 * of the calling process and kill and reap them, without ever blocking, so the event loop can
 * call them too; the caller loops (or re-arms a timer) while any are found.
 */
#pragma once

#include <stddef.h>
#include <sys/types.h>

/* A pidfd for pid (pidfd_open(2), which glibc 2.36 has no wrapper for here): an fd, or a negative
 * errno (-ENOSYS before Linux 5.3). */
int pidfd_open_sys(pid_t pid);

/* The pids of the calling process's children (zombies included), found by scanning
 * /proc/<pid>/stat for our pid as the parent: unlike /proc/self/task/<tid>/children it needs no
 * kernel option and lists the children of every thread. */
int children_list(pid_t **ret, size_t *ret_n);

/* SIGKILLs every child not in keep[] and reaps those already dead (WNOHANG). Returns how many
 * such children it found, 0 when none are left, or a negative errno; *ret_reaped (may be NULL)
 * gets how many it reaped. A child that dies after this adds its own children to ours, so call
 * again until 0. */
int children_kill(const pid_t *keep, size_t n_keep, size_t *ret_reaped);
