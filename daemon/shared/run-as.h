/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Becoming the caller. benchd runs as root; for a caller other than root, the processes that touch
 * a directory or file target on the caller's behalf (benchd-worker for such a step, benchd-cleanup
 * for the job's files) become that user first: its uid, its primary group and supplementary groups,
 * no capabilities. From then on the kernel decides what they may open, create and remove, exactly
 * as for a process the user started; caller-access.h's checks stay as the early, readable refusal.
 *
 * The identity is the submitting uid (jobs.submitted_by, from the D-Bus credentials at SubmitJob);
 * its groups come from the user database when the process starts (getgrouplist() of the uid's
 * passwd entry), not from the bus: dbus-daemon 1.14 (Debian 12) does not hand out a caller's
 * supplementary groups (GetConnectionCredentials has no UnixGroupIDs before 1.15.2), a job restored
 * after a restart has no bus credentials left, and the user database's groups are those the user
 * gets at every login, so what it could do itself now (a group it left since submitting no longer
 * counts). A uid without a passwd entry is refused rather than run with groups made up.
 */
#pragma once

#include <stddef.h>
#include <sys/types.h>

/* The primary group and the groups of uid from the user database (the primary one first):
 * 0, or -ESRCH for a uid without a passwd entry, or another negative errno. Free *ret_groups. */
int user_groups(uid_t uid, gid_t *ret_gid, gid_t **ret_groups, size_t *ret_n);

/* Becomes uid (nothing for 0): setgroups(), setresgid(), setresuid() with that user's groups,
 * then checks that no capability is left (permitted, effective, inheritable, ambient), marks the
 * process not dumpable (nothing of it can be read or traced by the user) and sets
 * PR_SET_NO_NEW_PRIVS. The credential change clears PR_SET_PDEATHSIG: it is set again to
 * SIGKILL, and -ESRCH returned when the parent went meanwhile. 0, or a negative errno with
 * *reterr saying what failed. Call it single-threaded, before anything is opened for the user. */
int run_as_user(uid_t uid, char **reterr);
