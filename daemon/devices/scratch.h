/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * ScratchDevices= by identity (issue 21): which block devices benchd.conf marks scratch. A kernel
 * name follows whatever disk the kernel gives it today, so it cannot be what marks a disk's content
 * as expendable: after a reboot or a hot-swap, or when a loop device is detached and another image
 * attached under its number, `sdb` or `loop2` is another disk. So the list takes stable names
 * (wwn:, serial:, loop-file: a loop device's backing file), and a path (a kernel name such as
 * /dev/loop2, a /dev/disk/by-id/ link, any path to a node) only as a shorthand for the identity
 * of the device it named when benchd first saw it: the entry is then bound to that identity, the
 * binding is kept in the database (schema/0014-scratch-bindings.sql) until benchd.conf is written
 * again, and a device with another identity under the name is not scratch.
 *
 * Pure: parsing the list, binding an entry and judging a device, and the texts that say why. What
 * a path names now and what a device's identity is are gathered by the caller
 * (device-manager.c, device.c) and handed in as plain values, so every rule is a table row in
 * tests/unit/test-scratch.c.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

typedef enum ScratchKind {
        SCRATCH_PATH,           /* a path to a node: bound to the identity it names when first seen */
        SCRATCH_WWN,            /* wwn:VALUE, the whole disk with that WWN (udev's ID_WWN) */
        SCRATCH_SERIAL,         /* serial:VALUE, the whole disk with that serial (udev's ID_SERIAL_SHORT) */
        SCRATCH_LOOP_FILE,      /* loop-file:PATH, a loop device whose backing file is PATH */
        _SCRATCH_KIND_MAX,
        _SCRATCH_KIND_INVALID = -22,
} ScratchKind;

typedef struct ScratchEntry {
        ScratchKind kind;
        char *spelling;         /* as written, a bare by-id name made a path: for messages and the
                                 * bindings table */
        char *value;            /* PATH: the path; WWN, SERIAL: the value; LOOP_FILE: the file */
        char *bound;            /* PATH: the identity it names, once bound; NULL before */
        dev_t resolved;         /* PATH: the st_rdev the path names now (the caller stats it before
                                 * each use), 0 when it names no block device */
        char *logged;           /* PATH: the other identity last logged as not this entry's */
} ScratchEntry;

typedef struct ScratchList {
        ScratchEntry *entries;
        size_t n;
} ScratchList;

/* One word of ScratchDevices=: "wwn:X", "serial:X", "loop-file:/abs/path", "/a/path", or a bare
 * name under /dev/disk/by-id/. -EINVAL with a message saying what is wrong and what is right. */
int scratch_entry_parse(const char *word, ScratchEntry *ret, char **reterr);
void scratch_entry_clear(ScratchEntry *e);

/* A ScratchDevices= assignment: its words appended (an empty value empties the list, as systemd's
 * list settings do). Words that do not parse are left out, each message appended to *errors (may
 * be NULL). -ENOMEM only. */
int scratch_list_assign(ScratchList *l, const char *value, char ***errors);
void scratch_list_clear(ScratchList *l);
/* A deep copy (resolution and bindings included). */
int scratch_list_copy(const ScratchList *l, ScratchList *ret);

/* What the rules need to know of a device, gathered fresh by the caller. */
typedef struct ScratchDevice {
        const char *name;               /* kernel name, for messages */
        dev_t devnum;
        const char *identity;           /* device_bind_identity(); NULL when it cannot be told */
        bool partition;
        const char *wwn, *serial;       /* of its disk (a partition's are its disk's) */
        const char *backing_file;       /* a loop device's, as sysfs says it; NULL otherwise */
} ScratchDevice;

typedef enum ScratchMatch {
        SCRATCH_MATCH_NONE,     /* no entry names it */
        SCRATCH_MATCH_YES,      /* an entry names it: scratch */
        SCRATCH_MATCH_UNKNOWN,  /* a path names it, but its identity cannot be told: not scratch */
        SCRATCH_MATCH_UNBOUND,  /* a path names it that was bound to nothing yet: not scratch */
        SCRATCH_MATCH_OTHER,    /* a path names it that is bound to another identity: not scratch */
        _SCRATCH_MATCH_MAX,
        _SCRATCH_MATCH_INVALID = -22,
} ScratchMatch;

/* Binds every unbound path entry that names d now (resolved == d->devnum) to d's identity, when
 * it has one. Returns how many were bound (their bound is set), or -ENOMEM. */
int scratch_bind(ScratchList *l, const ScratchDevice *d);

/* Whether d is scratch by the list. An entry that names d by a stable name, or a path bound to
 * d's identity (wherever d is now), makes it scratch; otherwise the first path that names d now
 * says why it is not. *ret_entry (may be NULL): the deciding entry's index, or SIZE_MAX for NONE. */
ScratchMatch scratch_judge(const ScratchList *l, const ScratchDevice *d, size_t *ret_entry);

/* The ScratchReason text of a judgement: for YES which entry marks d ("ScratchDevices=wwn:X"),
 * for the others why the entry that names d does not; NULL for NONE. conf_path names benchd.conf
 * in the advice. *ret_note (may be NULL): for OTHER, UNBOUND and UNKNOWN the same in the words the
 * write verdict adds to a signature refusal; else NULL. */
int scratch_reason(const ScratchList *l, const ScratchDevice *d, ScratchMatch m, size_t entry,
                   const char *conf_path, char **ret_reason, char **ret_note);
