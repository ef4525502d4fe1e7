/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A writer's exclusive claim on a block device: open(2) with O_EXCL, as the members of a filesystem
 * step (fsmember.h) and a raw device target (target.c) are opened before anything is written.
 *
 * EBUSY has two kinds of cause. A lasting one: the device (or one of its partitions) is mounted,
 * is swap, or has a holder in sysfs (md, dm, LVM); it is reported at once, named. A passing one:
 * another program's own exclusive open for a moment. mdadm makes one on an md array (its
 * open_dev_excl(), which itself tries again on EBUSY) when udev runs its `mdadm --incremental
 * --fail` for a member's remove event, and other tools probe devices the same way. A passing
 * claim is waited out for a bounded time, then reported as what it is.
 */
#pragma once

#include <stdint.h>

/* How long a claim that is neither a mount, swap nor a holder is waited out, and the pause
 * between two attempts: udev handles an event in milliseconds; 5 s covers a loaded machine. */
#define CLAIM_WAIT_USEC (5 * UINT64_C(1000000))
#define CLAIM_PAUSE_USEC (50 * UINT64_C(1000))

typedef struct ClaimWait {
        uint64_t wait_usec;     /* 0: CLAIM_WAIT_USEC */
        /* Called after each attempt refused for a passing claim (tests release theirs there). */
        void (*busy)(void *userdata, unsigned attempt);
        void *userdata;
} ClaimWait;

/* open(path, flags | O_EXCL | O_CLOEXEC | O_NOCTTY): the descriptor, or -errno. On -EBUSY,
 * *ret_why (when given) says what holds it: "mounted on /mnt", "in use as swap", "held by md127
 * (md, dm or LVM)", or that another program held its claim for as long as it was waited out.
 * w may be NULL. */
int claim_open(const char *path, int flags, const ClaimWait *w, char **ret_why);
