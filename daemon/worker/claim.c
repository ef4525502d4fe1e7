/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A writer's exclusive claim on a block device (claim.h): O_EXCL, tried again while EBUSY comes
 * from a passing claim, reported at once when it comes from a lasting one.
 */
#include <errno.h>
#include <fcntl.h>
#include <libmount.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "claim.h"
#include "shared/blockdev.h"
#include "shared/mounts.h"
#include "shared/strv.h"
#include "shared/util.h"

/* The device and its partitions: a claim on a partition (a mount) makes the whole disk busy. */
#define CLAIM_DEVS_MAX 64

typedef struct ClaimDevs {
        dev_t dev[CLAIM_DEVS_MAX];
        char *name[CLAIM_DEVS_MAX];
        size_t n;
} ClaimDevs;

static void claim_devs_clear(ClaimDevs *d) {
        for (size_t i = 0; i < d->n; i++)
                free(d->name[i]);
        d->n = 0;
}

static bool claim_devs_has(const ClaimDevs *d, dev_t dev) {
        for (size_t i = 0; i < d->n; i++)
                if (d->dev[i] == dev)
                        return true;
        return false;
}

static int claim_devs_get(dev_t dev, ClaimDevs *ret) {
        _cleanup_strv_free_ char **parts = NULL;
        char *name = NULL;
        int r;

        r = blockdev_name_from_devnum(NULL, dev, &name);
        if (r < 0)
                return r;
        ret->dev[0] = dev;
        ret->name[0] = name;
        ret->n = 1;
        if (blockdev_partitions(NULL, name, &parts) < 0)
                return 0;
        for (char **p = parts; *p && ret->n < CLAIM_DEVS_MAX; p++) {
                dev_t pdev;

                if (blockdev_devnum(NULL, *p, &pdev) < 0)
                        continue;
                ret->name[ret->n] = strdup(*p);
                if (!ret->name[ret->n])
                        return -ENOMEM;
                ret->dev[ret->n++] = pdev;
        }
        return 0;
}

/* "mounted on /mnt" for the first mount whose device is one of d's (a btrfs mount by its source:
 * mountinfo shows an anonymous device for it). */
static int find_mount(const ClaimDevs *d, char **ret) {
        _cleanup_(mnt_free_tablep) struct libmnt_table *tb = NULL;
        struct libmnt_iter *it;
        struct libmnt_fs *fs;
        int r;

        r = mount_table_load(&tb);
        if (r < 0)
                return r;
        it = mnt_new_iter(MNT_ITER_FORWARD);
        if (!it)
                return -ENOMEM;
        r = 0;
        while (r == 0 && mnt_table_next_fs(tb, it, &fs) == 0)
                if (claim_devs_has(d, mount_fs_devno(fs)))
                        r = asprintf(ret, "mounted on %s", mnt_fs_get_target(fs) ?: "?") < 0 ? -ENOMEM : 1;
        mnt_free_iter(it);
        return r;
}

/* "in use as swap" when one of d's devices is in /proc/swaps. */
static int find_swap(const ClaimDevs *d, char **ret) {
        _cleanup_free_ dev_t *swaps = NULL;
        size_t n = 0;
        int r;

        r = swaps_read(&swaps, &n);
        if (r < 0)
                return r;
        for (size_t i = 0; i < n; i++)
                if (claim_devs_has(d, swaps[i]))
                        return (*ret = strdup("in use as swap")) ? 1 : -ENOMEM;
        return 0;
}

/* "held by md127 (md, dm or LVM)" for the first holder in sysfs of one of d's devices. */
static int find_holder(const ClaimDevs *d, char **ret) {
        for (size_t i = 0; i < d->n; i++) {
                _cleanup_strv_free_ char **holders = NULL;

                if (blockdev_list(NULL, d->name[i], "holders", &holders) < 0 || !holders[0])
                        continue;
                return asprintf(ret, "held by %s (md, dm or LVM)%s%s", holders[0], i > 0 ? " through " : "",
                                i > 0 ? d->name[i] : "") < 0 ? -ENOMEM : 1;
        }
        return 0;
}

/* What holds the block device path names for good, if anything: > 0 with *ret set. */
static int lasting_claim(const char *path, char **ret) {
        ClaimDevs d = {};
        struct stat st;
        int r;

        if (stat(path, &st) < 0 || !S_ISBLK(st.st_mode))
                return 0;
        r = claim_devs_get(st.st_rdev, &d);
        if (r >= 0)
                r = find_mount(&d, ret);
        if (r == 0)
                r = find_swap(&d, ret);
        if (r == 0)
                r = find_holder(&d, ret);
        claim_devs_clear(&d);
        return r == -ENOMEM ? r : r > 0 ? 1 : 0;
}

int claim_open(const char *path, int flags, const ClaimWait *w, char **ret_why) {
        uint64_t wait = w && w->wait_usec ? w->wait_usec : CLAIM_WAIT_USEC;
        uint64_t start = now_usec(CLOCK_MONOTONIC);
        char *why = NULL;

        for (unsigned attempt = 1;; attempt++) {
                int fd = open(path, flags | O_EXCL | O_CLOEXEC | O_NOCTTY), r;

                if (fd >= 0)
                        return fd;
                if (errno != EBUSY)
                        return -errno;
                r = lasting_claim(path, &why);
                if (r < 0)
                        return r;
                if (r == 0 && now_usec(CLOCK_MONOTONIC) - start >= wait &&
                    asprintf(&why, "claimed exclusively by another program for the %.1f s benchd waited: a mount "
                             "in another mount namespace, or a program holding it open", (double) wait / 1e6) < 0)
                        return -ENOMEM;
                if (why) {
                        if (ret_why)
                                *ret_why = why;
                        else
                                free(why);
                        return -EBUSY;
                }
                if (w && w->busy)
                        w->busy(w->userdata, attempt);
                (void) usleep(CLAIM_PAUSE_USEC);
        }
}
