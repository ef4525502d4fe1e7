/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What mkfs_options may say (daemon/shared/spec-mkfs.c): a table of option strings per
 * filesystem, each accepted or refused, a refusal naming the option as written, why and what would
 * be right. Every spelling getopt(3) and getopt_long(3) accept is a row: separate and attached
 * arguments, clusters, long options with = or a separate value and abbreviated, sub-options in a
 * comma list, options after a word that is not one, "--". Then the same refusals through the spec
 * parser (spec_set_assignment(), spec_set() with a map), which is where SubmitJob meets them.
 */

#include <check.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "check-util.h"
#include "shared/spec.h"
#include "shared/util.h"

#define MAX_NEEDLES 4

static const struct {
        const char *fs;
        const char *options;
        int ret;
        const char *needles[MAX_NEEDLES];       /* each must be in the message */
} cases[] = {
        /* What benchmarks use: accepted. */
        { "ext4", "-E lazy_itable_init=0,lazy_journal_init=0", 0, {} },
        { "ext4", "-O ^has_journal,extent -b 4096 -I 256 -L bench -m 0", 0, {} },
        { "ext4", "-J size=64 -T largefile -N 1000 -q", 0, {} },
        { "ext4", "-qj", 0, {} },
        { "ext3", "-j -b 1024", 0, {} },
        { "ext2", "-q", 0, {} },
        { "ext4", "-E offset=4096,root_owner=0:0", 0, {} },
        { "ext4", "-Jsize=64", 0, {} },
        /* -d's argument "-F" is a value, not the force flag. */
        { "btrfs", "-d -F", 0, {} },
        { "ext4", "-L -F", 0, {} },
        { "ext4", "-- ", 0, {} },
        { "btrfs", "-d raid1 -m raid1 -n 16k -O no-holes", 0, {} },
        { "btrfs", "--nodesize 16k --features=no-holes --csum xxhash -K", 0, {} },
        { "btrfs", "--check xxhash", 0, {} },   /* a prefix of csum and checksum: one option */
        { "btrfs", "--nodes=16k --mix", 0, {} },
        { "btrfs", "--label=-r", 0, {} },
        { "btrfs", "-L -f", 0, {} },
        { "btrfs", "--shrink", 0, {} },
        { "xfs", "-m crc=1,reflink=1 -i size=512 -K", 0, {} },
        { "xfs", "-d agcount=4,su=64k,sw=2 -l size=64m,version=2", 0, {} },
        { "xfs", "-d file -l internal -n size=8192 -L x", 0, {} },
        { "xfs", "-dagcount=4 -qK", 0, {} },
        /* Unknown options: mkfs refuses them itself (the trial quotes it). */
        { "ext4", "-Y", 0, {} },
        { "xfs", "-Q", 0, {} },
        { "btrfs", "--no-such-option", 0, {} },

        /* Host paths, by every spelling. */
        { "ext4", "-d /etc", -EINVAL, { "mkfs_options.ext4: -d copies a directory of the host", "leave -d out" } },
        { "ext4", "-d/etc", -EINVAL, { "-d (in -d/etc) copies a directory of the host" } },
        { "ext4", "-qd/etc", -EINVAL, { "-d (in -qd/etc)" } },
        { "ext4", "-qd /etc", -EINVAL, { "-d (in -qd) copies" } },
        { "ext4", "-E lazy_itable_init=0 -d /root", -EINVAL, { "-d copies a directory of the host" } },
        /* GNU getopt permutes: options after a word that is not one still count. */
        { "ext3", "-q -d /etc", -EINVAL, { "mkfs_options.ext3: -d copies" } },
        { "ext2", "-d /etc", -EINVAL, { "mkfs_options.ext2: -d copies" } },
        { "ext4", "-l /etc/passwd", -EINVAL, { "-l reads a bad-block list from a file of the host", "leave -l out" } },
        { "ext4", "-l/etc/passwd", -EINVAL, { "-l (in -l/etc/passwd) reads" } },
        { "ext4", "-z /tmp/undo", -EINVAL, { "-z writes an undo file on the host", "nothing to undo" } },
        { "ext4", "-qz/tmp/undo", -EINVAL, { "-z (in -qz/tmp/undo) writes an undo file" } },
        { "ext4", "-c", -EINVAL, { "-c runs badblocks(8)", "check the device with badblocks" } },
        { "ext4", "-cc", -EINVAL, { "-c (in -cc) runs badblocks" } },
        { "ext4", "-J device=/dev/sdb", -EINVAL,
          { "-J with device=/dev/sdb puts the journal on another device", "internal journal" } },
        { "ext4", "-Jdevice=/dev/sdb", -EINVAL, { "-J (in -Jdevice=/dev/sdb) with device=/dev/sdb puts" } },
        { "ext4", "-J size=64,device=LABEL=j", -EINVAL, { "with device=LABEL=j puts the journal" } },
        { "btrfs", "-r /root", -EINVAL,
          { "mkfs_options.btrfs: -r copies a directory of the host", "leave -r/--rootdir out" } },
        { "btrfs", "-r/root", -EINVAL, { "-r (in -r/root) copies" } },
        { "btrfs", "--rootdir /root", -EINVAL, { "--rootdir copies a directory of the host" } },
        { "btrfs", "--rootdir=/root", -EINVAL, { "--rootdir (in --rootdir=/root) copies" } },
        { "btrfs", "--root=/root", -EINVAL, { "--rootdir (in --root=/root) copies" } },
        { "btrfs", "--ro /root", -EINVAL, { "--rootdir (in --ro) copies" } },
        /* An ambiguous prefix that could mean --rootdir: getopt_long would fail, refused anyway. */
        { "btrfs", "--r=/root", -EINVAL, { "--rootdir (in --r=/root) copies" } },
        { "btrfs", "-Kr /root", -EINVAL, { "-r (in -Kr) copies" } },
        { "btrfs", "--subvol x", -EINVAL, { "--subvol makes subvolumes of a host directory" } },
        { "btrfs", "--inode-flags=x:nodatacow", -EINVAL, { "--inode-flags (in --inode-flags=x:nodatacow) sets" } },
        { "xfs", "-p /etc/proto", -EINVAL, { "mkfs_options.xfs: -p reads a prototype file of the host" } },
        { "xfs", "-p/etc/proto", -EINVAL, { "-p (in -p/etc/proto) reads a prototype file" } },
        { "xfs", "-c options=/etc/xfs.conf", -EINVAL, { "-c reads a configuration file of the host",
                                                         "give the options themselves" } },
        { "xfs", "-coptions=lts_6.1", -EINVAL, { "-c (in -coptions=lts_6.1) reads a configuration file" } },
        { "xfs", "-d name=/etc/passwd", -EINVAL, { "-d with name=/etc/passwd puts the data section on a file" } },
        { "xfs", "-d file,name=/var/x,size=1g", -EINVAL, { "-d with name=/var/x puts the data section" } },
        { "xfs", "-l logdev=/dev/sdb,size=2m", -EINVAL,
          { "-l with logdev=/dev/sdb puts the log on another device", "use an internal log" } },
        { "xfs", "-llogdev=/dev/sdb", -EINVAL, { "-l (in -llogdev=/dev/sdb) with logdev=/dev/sdb" } },
        { "xfs", "-l name=/dev/sdb", -EINVAL, { "-l with name=/dev/sdb puts the log on another file or device" } },
        { "xfs", "-r rtdev=/dev/sdc", -EINVAL, { "-r with rtdev=/dev/sdc puts a realtime section" } },
        { "xfs", "-r extsize=64k,name=/x", -EINVAL, { "-r with name=/x puts a realtime section" } },
        /* Not a path, though the letters match: -d of btrfs is the data profile, logdev only of -l. */
        { "xfs", "-d size=1g -l size=64m", 0, {} },
        { "xfs", "-d logdev=1", 0, {} },
        { "xfs", "-d named=1", 0, {} },

        /* Force flags. */
        { "ext4", "-F", -EINVAL, { "mkfs_options.ext4: -F forces mke2fs past its own safety checks",
                                   "no force flag is needed", "leave -F out" } },
        { "ext4", "-F -F", -EINVAL, { "-F forces" } },
        { "ext4", "-Fq", -EINVAL, { "-F (in -Fq) forces" } },
        { "ext4", "-qF", -EINVAL, { "-F (in -qF) forces" } },
        { "ext4", "-E lazy_itable_init=0 -F", -EINVAL, { "-F forces" } },
        { "btrfs", "-f", -EINVAL, { "mkfs_options.btrfs: -f forces mkfs.btrfs", "leave -f out" } },
        { "btrfs", "-Kf", -EINVAL, { "-f (in -Kf) forces" } },
        { "btrfs", "--force", -EINVAL, { "--force forces mkfs.btrfs" } },
        { "btrfs", "--fo", -EINVAL, { "--force (in --fo) forces" } },
        { "btrfs", "--f", -EINVAL, { "--force (in --f) forces" } },
        { "xfs", "-f", -EINVAL, { "mkfs_options.xfs: -f forces mkfs.xfs", "leave -f out" } },
        { "xfs", "-fq", -EINVAL, { "-f (in -fq) forces" } },
        { "xfs", "-Kqf", -EINVAL, { "-f (in -Kqf) forces" } },
        /* Upper and lower case are different options. */
        { "ext4", "-f", 0, {} },
        { "xfs", "-F", 0, {} },

        /* Words that are not options: mkfs takes them for devices. */
        { "ext4", "/dev/sdb", -EINVAL, { "'/dev/sdb' is not an option, and mke2fs would take it for a device or a size",
                                         "leave it out" } },
        { "btrfs", "-K /dev/sdb", -EINVAL, { "'/dev/sdb' is not an option, and mkfs.btrfs would take it for a device;" } },
        { "xfs", "-q -- -f", -EINVAL, { "'-f' is not an option" } },
        { "ext4", "-q -", -EINVAL, { "'-' is not an option" } },
        { "ext4", "-q 100M", -EINVAL, { "'100M' is not an option" } },
        /* A value missing at the end: mkfs would take the first device for it. */
        { "ext4", "-L", -EINVAL, { "-L takes a value and none follows it", "give -L VALUE" } },
        { "ext4", "-q -d", -EINVAL, { "-d takes a value and none follows it" } },
        { "btrfs", "--label", -EINVAL, { "--label takes a value and none follows it", "give --label=VALUE" } },
        { "btrfs", "--lab", -EINVAL, { "--label takes a value" } },
        { "xfs", "-qd", -EINVAL, { "-d takes a value" } },

        /* Filesystems without a list: no options at all. */
        { "vfat", "-F 32", -EINVAL, { "mkfs_options.vfat: benchd knows which options", "not those of mkfs.vfat",
                                      "leave mkfs_options.vfat out" } },
        { "f2fs", "-f", -EINVAL, { "mkfs_options.f2fs" } },
};

START_TEST(test_options) {
        _cleanup_free_ char *err = NULL;
        int r = spec_mkfs_options_check(cases[_i].fs, cases[_i].options, &err);

        ck_assert_msg(r == cases[_i].ret, "%s '%s': %d (%s), expected %d", cases[_i].fs, cases[_i].options, r,
                      strna(err), cases[_i].ret);
        if (r == 0) {
                ck_assert_ptr_null(err);
                return;
        }
        ck_assert_ptr_nonnull(err);
        for (size_t k = 0; k < MAX_NEEDLES && cases[_i].needles[k]; k++)
                ck_assert_msg(strstr(err, cases[_i].needles[k]), "%s '%s': '%s' does not say '%s'", cases[_i].fs,
                              cases[_i].options, err, cases[_i].needles[k]);
}
END_TEST

/* Where SubmitJob meets it: the text form, a map from D-Bus, and a map entry replaced; a refusal
 * leaves the map as it was. */
START_TEST(test_through_spec) {
        _cleanup_free_ char *err = NULL;
        JobSpec s;

        spec_init(&s);
        ck_assert_int_eq(spec_set_assignment(&s, "mkfs_options.ext4=-E lazy_itable_init=0", NULL), 0);
        ck_assert_int_eq(spec_set_assignment(&s, "mkfs_options.ext4=-d /etc", &err), -EINVAL);
        ck_assert_msg(strstr(err, "mkfs_options.ext4: -d copies a directory of the host"), "%s", err);
        ck_assert_str_eq(spec_map_get(&s.mkfs_options, "ext4"), "-E lazy_itable_init=0");
        free(err);
        err = NULL;

        ck_assert_int_eq(spec_set_from_string(&s, "mkfs_options.btrfs", "--rootdir=/root", &err), -EINVAL);
        ck_assert_msg(strstr(err, "mkfs_options.btrfs: --rootdir (in --rootdir=/root) copies"), "%s", err);
        ck_assert_ptr_null(spec_map_get(&s.mkfs_options, "btrfs"));
        free(err);
        err = NULL;

        char *keys[] = { (char *) "ext4", (char *) "xfs" }, *values[] = { (char *) "-q", (char *) "-fq" };
        SpecValue v = { .type = SPEC_VALUE_MAP, .map = { keys, values, 2 } };
        ck_assert_int_eq(spec_set(&s, "mkfs_options", &v, &err), -EINVAL);
        ck_assert_msg(strstr(err, "mkfs_options.xfs: -f (in -fq) forces mkfs.xfs"), "%s", err);
        ck_assert_str_eq(spec_map_get(&s.mkfs_options, "ext4"), "-E lazy_itable_init=0");

        /* mount_options has no such list: its values are the filesystem's mount options. */
        ck_assert_int_eq(spec_set_assignment(&s, "mount_options.ext4=-d", NULL), 0);
        spec_clear(&s);
}
END_TEST

static Suite *spec_mkfs_suite(void) {
        Suite *s = suite_create("spec-mkfs");
        TCase *tc = tcase_create("options");

        tcase_add_loop_test(tc, test_options, 0, ELEMENTSOF(cases));
        tcase_add_test(tc, test_through_spec);
        suite_add_tcase(s, tc);
        return s;
}

int main(void) {
        return check_run(spec_mkfs_suite());
}
