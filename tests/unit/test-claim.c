/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Tests of a writer's exclusive claim (daemon/worker/claim.c). Without root: what open(2) says is
 * passed on (a missing path is -ENOENT at once). As root (--root), on a loop device of the test's
 * own: a claim another descriptor holds for a moment is waited out (the holder lets go at the
 * first refusal, as udev's mdadm does once its event is handled), one held for good is reported
 * as such once the wait is over, and a mounted device (ext4; btrfs, which mountinfo shows with an
 * anonymous device) is reported at once, named by its mount point, without waiting (the mount
 * lives in a mount namespace of the case's own, so it ends with the case even when an assertion
 * fails).
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <unistd.h>

#include "check-util.h"
#include "claim.h"
#include "shared/util.h"

START_TEST(test_missing_path) {
        _cleanup_free_ char *why = NULL;

        ck_assert_int_eq(claim_open("/nonexistent/benchd-claim", O_RDONLY, NULL, &why), -ENOENT);
        ck_assert_ptr_null(why);
}
END_TEST

/* A loop device on an image of the case's own; "" when losetup gave none. */
static void loop_attach(char img[static PATH_MAX], char dev[static 64]) {
        char cmd[PATH_MAX + 64];
        FILE *p;
        int fd;

        snprintf(img, PATH_MAX, "%s/test-claim-img-XXXXXX", check_tmpdir());
        fd = mkstemp(img);
        ck_assert_int_ge(fd, 0);
        ck_assert_int_eq(ftruncate(fd, 128 << 20), 0);   /* mkfs.btrfs's least */
        close(fd);
        snprintf(cmd, sizeof(cmd), "losetup -f --show '%s'", img);
        p = popen(cmd, "r");
        ck_assert_ptr_nonnull(p);
        if (!fgets(dev, 64, p))
                dev[0] = 0;
        pclose(p);
        dev[strcspn(dev, "\n")] = 0;
        if (!dev[0]) {
                unlink(img);
                ck_abort_msg("losetup -f --show %s gave no device", img);
        }
}

static void loop_detach(const char *img, const char *dev) {
        char cmd[PATH_MAX + 64];

        snprintf(cmd, sizeof(cmd), "losetup -d '%s'", dev);
        (void) !system(cmd);
        unlink(img);
}

typedef struct Holder {
        int fd;                 /* the other claim; -1 once let go */
        unsigned calls;
        bool let_go;            /* at the first refusal */
} Holder;

static void holder_busy(void *userdata, unsigned attempt) {
        Holder *h = userdata;

        h->calls++;
        ck_assert_uint_eq(attempt, h->calls);
        if (h->let_go && h->fd >= 0) {
                close(h->fd);
                h->fd = -1;
        }
}

/* claim_open() on a loop device of our own while another descriptor holds its claim (h->let_go:
 * until the first refusal), with a wait of wait_usec (0: claim.h's); the device and the loop are
 * gone when it returns. The descriptor's status: 0, or what claim_open() returned. */
static int claim_beside_holder(Holder *h, uint64_t wait_usec, char dev[static 64], char **why) {
        char img[PATH_MAX];
        int fd;

        loop_attach(img, dev);
        h->fd = open(dev, O_RDONLY | O_EXCL | O_CLOEXEC);
        fd = h->fd >= 0 ? claim_open(dev, O_RDWR,
                                     &(ClaimWait) { .wait_usec = wait_usec, .busy = holder_busy, .userdata = h },
                                     why)
                        : -1;
        if (fd >= 0)
                close(fd);
        if (h->fd >= 0)
                close(h->fd);
        loop_detach(img, dev);
        return fd >= 0 ? 0 : fd;
}

START_TEST(test_passing_claim) {
        _cleanup_free_ char *why = NULL;
        Holder h = { .let_go = true };
        char dev[64];
        int r = claim_beside_holder(&h, 0, dev, &why);

        ck_assert_msg(r == 0, "claim_open(%s) after the other claim was let go: %s (%s)", dev, strerror(-r),
                      why ?: "");
        ck_assert_uint_eq(h.calls, 1);  /* refused once, while the other held it */
        ck_assert_ptr_null(why);
}
END_TEST

START_TEST(test_lasting_claim) {
        _cleanup_free_ char *why = NULL;
        Holder h = { .let_go = false };
        char dev[64];
        int r = claim_beside_holder(&h, 200000, dev, &why);

        ck_assert_int_eq(r, -EBUSY);
        ck_assert_uint_ge(h.calls, 1);
        ck_assert_ptr_nonnull(why);
        ck_assert_msg(strstr(why, "claimed exclusively by another program for the 0.2 s benchd waited"), "%s", why);
}
END_TEST

/* A mounted filesystem of each type: btrfs shows an anonymous device in mountinfo, so its mount is
 * found by its source. */
static const char *const mounted_types[] = { "ext4", "btrfs" };

START_TEST(test_mounted) {
        const char *type = mounted_types[_i];
        char img[PATH_MAX], dev[64], dir[PATH_MAX], cmd[PATH_MAX + 64], want[PATH_MAX + 16];
        _cleanup_free_ char *why = NULL;
        Holder h = { .fd = -1, .let_go = true };
        int fd = 0, made, mounted = -1;

        ck_assert_int_eq(unshare(CLONE_NEWNS), 0);
        ck_assert_int_eq(mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL), 0);
        snprintf(dir, sizeof(dir), "%s/test-claim-mnt-XXXXXX", check_tmpdir());
        ck_assert_ptr_nonnull(mkdtemp(dir));
        loop_attach(img, dev);
        snprintf(cmd, sizeof(cmd), "mkfs.%s -q %s '%s' >/dev/null 2>&1", type, streq(type, "btrfs") ? "-f" : "-F",
                 dev);
        made = system(cmd);
        if (made == 0)
                mounted = mount(dev, dir, type, 0, NULL);
        if (mounted == 0) {
                fd = claim_open(dev, O_RDWR, &(ClaimWait) { .busy = holder_busy, .userdata = &h }, &why);
                if (fd >= 0)
                        close(fd);
                (void) umount(dir);
        }
        loop_detach(img, dev);
        rmdir(dir);

        ck_assert_msg(made == 0, "mkfs.%s on %s failed", type, dev);
        ck_assert_int_eq(mounted, 0);
        ck_assert_int_eq(fd, -EBUSY);
        ck_assert_uint_eq(h.calls, 0);  /* not waited for */
        snprintf(want, sizeof(want), "mounted on %s", dir);
        ck_assert_ptr_nonnull(why);
        ck_assert_str_eq(why, want);
}
END_TEST

static const char *missing_fs(const char *type, const char *no_kernel, const char *no_mkfs) {
        const char *m = check_missing_loop();
        char cmd[64];

        if (m)
                return m;
        if (!check_have_filesystem(type))
                return no_kernel;
        snprintf(cmd, sizeof(cmd), "command -v mkfs.%s >/dev/null 2>&1", type);
        if (system(cmd) != 0)
                return no_mkfs;
        return NULL;
}

static const char *missing_ext4(void) {
        return missing_fs("ext4", "the kernel has no ext4 (/proc/filesystems)", "needs mkfs.ext4 (e2fsprogs)");
}

static const char *missing_btrfs(void) {
        return missing_fs("btrfs", "the kernel has no btrfs (/proc/filesystems)", "needs mkfs.btrfs (btrfs-progs)");
}

static int claim_root_cases(void) {
        TCase *loop = tcase_create("loop"), *ext4 = tcase_create("mounted-ext4"),
              *btrfs = tcase_create("mounted-btrfs");

        tcase_add_test(loop, test_passing_claim);
        tcase_add_test(loop, test_lasting_claim);
        tcase_add_loop_test(ext4, test_mounted, 0, 1);
        tcase_add_loop_test(btrfs, test_mounted, 1, 2);
        return check_run_cases("claim-root", (const CheckCase[]) {
                { "loop", loop, check_missing_loop },
                { "mounted-ext4", ext4, missing_ext4 },
                { "mounted-btrfs", btrfs, missing_btrfs },
        }, 3);
}

static Suite *claim_suite(void) {
        Suite *s = suite_create("claim");
        TCase *tc = tcase_create("open");

        tcase_add_test(tc, test_missing_path);
        suite_add_tcase(s, tc);
        return s;
}

int main(int argc, char **argv) {
        if (argc > 1 && strcmp(argv[1], "--root") == 0)
                return claim_root_cases();
        return check_run(claim_suite());
}
