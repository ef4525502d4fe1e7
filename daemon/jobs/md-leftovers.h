/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * md arrays a killed worker left assembled (docs/matrices.md "How an md entry runs"), md's row of
 * leftovers.h. A worker stops its array when its step ends (daemon/worker/layout-md.h); one killed
 * with SIGKILL, or with benchd, cannot. benchd records each array's name, benchd-JOB-ENTRY, in the
 * run's row before the worker creates it (runs.md_array, schema/0021-md-layout.sql), and after each
 * md step (not the arrays of other runs still running), at start-up and when udev reports an md or
 * device-mapper device stops every md device whose members all carry an md superblock naming the
 * same one of the recorded names with benchd's homehost ("benchd:benchd-JOB-ENTRY"). Nothing else is touched:
 * an array of the host's own, one of another homehost, one benchd has no record of, or one whose
 * members disagree, stays as it is. The stop is sysfs's array_state "clear", STOP_ARRAY: the
 * kernel refuses it (EBUSY) while anything holds the array open, so a mounted array stays, is
 * reported and is tried again later (leftovers.h). What stays on the members afterwards is the
 * superblock (the next job of the same devices wipes it; DESIGN.md says which jobs may).
 *
 * The decision reads a sysfs tree and the members' superblocks under a root ("" for the host's,
 * a directory a test made): ROOT/sys/block/mdN/slaves/NAME, ROOT/sys/block/mdN/md/array_state,
 * and the superblock of ROOT/dev/NAME (md 1.x: its set_name at 32 of the superblock at 4 KiB for
 * metadata 1.2, at 0 for 1.1, 8 KiB before the end for 1.0; metadata 0.90 has no name and is never
 * taken for benchd's).
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define MD_LEFTOVERS_HOMEHOST "benchd"
#define MD_SUPER_MAGIC UINT32_C(0xa92b4efc)

/* The set_name ("homehost:name") of the md 1.x superblock on the device or file at path, tried at
 * the 1.2, 1.1 and 1.0 offsets: 0 and ret filled, -ENODATA when none is there, or -errno. */
int md_super_name(const char *path, char ret[static 33]);

/* leftovers.c's row for md: whether the md device under root (ROOT/sys/block/MD) has members that
 * all carry a superblock naming the same one of names with benchd's homehost: 1 and ret_name
 * ("benchd-4-1"), 0 when not. */
int md_leftover_is_ours(const char *root, const char *md, char *const *names, char ret_name[static 33]);
/* Stops it: array_state "clear", STOP_ARRAY. 0, or -errno (-EBUSY while it is open). */
int md_leftover_stop(const char *root, const char *md);
