/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The write-safety verdict over a table of facts: which devices a destructive job may touch, and
 * that every refusal names the problem and the way out; and the parsing of /proc/swaps, the one
 * fact source with an escape syntax of its own.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "devices/device-facts.h"
#include "check-util.h"
#include "devices/verdict.h"
#include "shared/strv.h"
#include "shared/util.h"

static const VerdictMount mnt_self[] = { { "loop0", "/mnt", "ext4" } };
static const VerdictMount mnt_part[] = { { "loop0p1", "/srv/data", "xfs" } };
static const VerdictMount mnt_two[] = { { "loop0p1", "/a", "ext4" }, { "loop0p2", "/b", "btrfs" } };
static const VerdictMount mnt_dm[] = { { "dm-3", "/home", NULL } };
static const char *const swap_self[] = { "loop0", NULL };
static const char *const swap_part[] = { "loop0p2", NULL };
static const char *const held_dm[] = { "dm-0", NULL };
static const char *const held_md[] = { "md127", "dm-1", NULL };
static const char *const empty[] = { NULL };

typedef struct Case {
        const char *what;
        VerdictFacts f;
        bool allowed;
        const char *substr[3];   /* all must appear in the reason */
} Case;

static const Case cases[] = {
        { "blank device", { .name = "loop0" }, true, {} },
        { "blank, empty lists", { .name = "loop0", .swaps = empty, .holders = empty }, true, {} },
        { "blank scratch", { .name = "loop0", .scratch = true }, true, {} },
        { "mounted itself", { .name = "loop0", .mounts = mnt_self, .n_mounts = 1 }, false,
          { "loop0 is mounted on /mnt (ext4)", "unmount it first" } },
        { "mounted partition", { .name = "loop0", .mounts = mnt_part, .n_mounts = 1 }, false,
          { "loop0 is in use", "loop0p1 is mounted on /srv/data (xfs)", "unmount" } },
        { "two mounts", { .name = "loop0", .mounts = mnt_two, .n_mounts = 2 }, false,
          { "loop0p1 is mounted on /a", "1 more", "unmount them" } },
        { "mounted through dm, fstype unknown", { .name = "sdb", .mounts = mnt_dm, .n_mounts = 1 }, false,
          { "dm-3 is mounted on /home (n/a)" } },
        { "mounted scratch still refused",
          { .name = "loop0", .scratch = true, .mounts = mnt_self, .n_mounts = 1 }, false,
          { "mounted on /mnt" } },
        { "swap itself", { .name = "loop0", .swaps = swap_self }, false,
          { "loop0 is in use as swap", "swapoff /dev/loop0" } },
        { "swap partition, scratch", { .name = "loop0", .scratch = true, .swaps = swap_part }, false,
          { "loop0p2 is in use as swap", "swapoff /dev/loop0p2" } },
        { "held by dm", { .name = "sdc", .holders = held_dm }, false,
          { "sdc is held by dm-0", "dmsetup remove" } },
        { "held by md, scratch", { .name = "sdc", .scratch = true, .holders = held_md }, false,
          { "held by md127 and others", "mdadm --stop" } },
        { "read-only", { .name = "sr0", .read_only = true }, false,
          { "sr0 is read-only", "blockdev --setrw" } },
        { "read-only scratch", { .name = "sr0", .read_only = true, .scratch = true }, false,
          { "read-only" } },
        { "ext4 signature",
          { .name = "loop0", .sig_type = "ext4", .sig_usage = "filesystem", .sig_uuid = "1234-abcd" },
          false, { "loop0 carries an ext4 signature (UUID 1234-abcd)", "wipefs -a /dev/loop0",
                   "ScratchDevices= in /etc/benchd/benchd.conf" } },
        { "ext4 signature, scratch",
          { .name = "loop0", .scratch = true, .sig_type = "ext4", .sig_usage = "filesystem" }, true, {} },
        { "partition table",
          { .name = "loop1", .pt_type = "gpt" }, false,
          { "loop1 carries a gpt partition table", "BENCHD_SCRATCH=1" } },
        { "partition table, scratch", { .name = "loop1", .pt_type = "dos", .scratch = true }, true, {} },
        { "raid member",
          { .name = "sdd", .sig_type = "linux_raid_member", .sig_usage = "raid", .sig_uuid = "u-1" },
          false, { "sdd carries a RAID member signature (linux_raid_member, UUID u-1)" } },
        { "LVM PV",
          { .name = "sde", .sig_type = "LVM2_member", .sig_usage = "raid" },
          false, { "an LVM physical volume signature (LVM2_member)" } },
        { "swap signature, not active", { .name = "loop2", .sig_type = "swap", .sig_usage = "other" },
          false, { "a swap signature" } },
        { "btrfs signature", { .name = "loop3", .sig_type = "btrfs", .sig_usage = "filesystem" }, false,
          { "loop3 carries a btrfs signature;" } },
        { "xfs signature", { .name = "loop3", .sig_type = "xfs" }, false, { "carries an xfs signature" } },
        { "dos table", { .name = "loop3", .pt_type = "dos" }, false, { "carries a dos partition table" } },
        { "ambivalent", { .name = "loop3", .sig_type = "ambivalent" }, false,
          { "loop3 carries several conflicting signatures (ambivalent)", "wipefs" } },
        { "custom config path",
          { .name = "loop0", .sig_type = "xfs", .conf_path = "/tmp/x/benchd.conf" }, false,
          { "ScratchDevices= in /tmp/x/benchd.conf" } },
        { "signature, and a scratch name that names another disk",
          { .name = "loop2", .sig_type = "ext4", .scratch_note = "it is not the device ScratchDevices=/dev/loop2 "
            "marked scratch (that is loop-file:/a.img)" }, false,
          { "loop2 carries an ext4 signature; it is not the device ScratchDevices=/dev/loop2 marked scratch "
            "(that is loop-file:/a.img); wipe it with wipefs -a /dev/loop2" } },
        { "blank, and a scratch name that names another disk: blank is enough",
          { .name = "loop2", .scratch_note = "it is not the device ScratchDevices=/dev/loop2 marked scratch" },
          true, {} },
        { "mounted, and a scratch name that names another disk: the mount is the reason",
          { .name = "loop0", .mounts = mnt_self, .n_mounts = 1, .sig_type = "ext4", .scratch_note = "not it" },
          false, { "mounted on /mnt" } },
        { "mount beats signature",
          { .name = "loop0", .mounts = mnt_self, .n_mounts = 1, .sig_type = "ext4" }, false,
          { "mounted" } },
};

START_TEST(test_verdict_table) {
        const Case *c = &cases[_i];
        _cleanup_free_ char *reason = NULL;
        int r;

        r = verdict_compute(&c->f, &reason);
        ck_assert_msg(r >= 0, "%s: failed: %d", c->what, r);
        if (c->allowed) {
                ck_assert_msg(r == 0, "%s: refused: %s", c->what, strna(reason));
                ck_assert_ptr_null(reason);
        } else {
                ck_assert_msg(r == 1, "%s: allowed", c->what);
                ck_assert_ptr_nonnull(reason);
                for (size_t k = 0; k < ELEMENTSOF(c->substr) && c->substr[k]; k++)
                        ck_assert_msg(strstr(reason, c->substr[k]),
                                      "%s: \"%s\" not in \"%s\"", c->what, c->substr[k], reason);
        }
}
END_TEST

/* The facts behind the swap rule: names from /proc/swaps, escapes undone. */
START_TEST(test_swaps_parse) {
        static const struct {
                const char *text;
                const char *want[4];
        } t[] = {
                { "Filename\t\t\t\tType\t\tSize\tUsed\tPriority\n", {} },
                { "", {} },
                { "Filename Type Size Used Priority\n/dev/loop0p1                            partition\t32764\t0\t-2\n",
                  { "/dev/loop0p1" } },
                { "Filename Type Size Used Priority\n/dev/dm-1 partition 1 0 -2\n/swap\\040file file 1 0 -3\n",
                  { "/dev/dm-1", "/swap file" } },
                { "Filename Type Size Used Priority\n/a\\134b file 1 0 -2", { "/a\\b" } },
        };

        for (size_t i = 0; i < ELEMENTSOF(t); i++) {
                _cleanup_strv_free_ char **l = NULL;
                size_t n = 0;

                ck_assert_int_eq(swaps_parse(t[i].text, &l), 0);
                ck_assert_ptr_nonnull(l);
                for (; t[i].want[n]; n++) {
                        ck_assert_msg(l[n], "case %zu: entry %zu missing", i, n);
                        ck_assert_str_eq(l[n], t[i].want[n]);
                }
                ck_assert_msg(!l[n], "case %zu: unexpected entry %s", i, l[n]);
        }
}
END_TEST

int main(void) {
        Suite *s = suite_create("verdict");
        TCase *tc = tcase_create("table");

        tcase_add_loop_test(tc, test_verdict_table, 0, ELEMENTSOF(cases));
        tcase_add_test(tc, test_swaps_parse);
        suite_add_tcase(s, tc);
        return check_run(s);
}
