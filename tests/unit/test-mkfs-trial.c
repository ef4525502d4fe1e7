/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What of a trial mkfs's message reaches the caller (daemon/jobs/mkfs-trial.c): every absolute
 * path replaced by "<path>" but the trial's own image files, in every place mkfs and the worker
 * put one (after a blank, in quotes, brackets, after '=' or ','), with the punctuation after it
 * kept; what is no path (fractions, "and/or", URLs) untouched.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "check-util.h"
#include "jobs/mkfs-trial.h"
#include "shared/util.h"

static const struct {
        const char *in, *out;
} cases[] = {
        { "", "" },
        { "no path here", "no path here" },
        { "mkfs.ext4 rejected the options '-d /etc': set_inode_xattr: No such file or directory while listing "
          "attributes of \"/etc\"",
          "mkfs.ext4 rejected the options '-d <path>': set_inode_xattr: No such file or directory while listing "
          "attributes of \"<path>\"" },
        { "ERROR: ftw subdir walk of /root/secret-file failed: Permission denied",
          "ERROR: ftw subdir walk of <path> failed: Permission denied" },
        { "/etc/passwd: is not a directory", "<path>: is not a directory" },
        { "copying /home/a/b.", "copying <path>." },
        { "(/root/x) [/srv/y] {/var/z} </tmp/w>", "(<path>) [<path>] {<path>} <<path>>" },
        { "-d name=/etc/shadow,file", "-d name=<path>,file" },
        { "a,/etc/x;b", "a,<path>;b" },
        { "`/etc/x`", "`<path>`" },
        { "tab\t/etc/x\nnext /y", "tab\t<path>\nnext <path>" },
        { "//", "<path>" },
        /* The trial's own images stay, but not a way out of them. */
        { "cannot open /tmp/images/member0.img: Device or resource busy",
          "cannot open /tmp/images/member0.img: Device or resource busy" },
        { "'/tmp/images/member1.img'", "'/tmp/images/member1.img'" },
        { "/tmp/images/../../etc/passwd", "<path>" },
        { "/tmp/images", "<path>" },
        { "/tmp/imagesX/a", "<path>" },
        /* No paths: fractions, words with slashes, a lone slash, URLs. */
        { "Allocating group tables: 0/40 done", "Allocating group tables: 0/40 done" },
        { "read and/or write", "read and/or write" },
        { "1 / 2", "1 / 2" },
        { "See http://btrfs.wiki.kernel.org for more information.",
          "See http://btrfs.wiki.kernel.org for more information." },
        { "at https://example.org/a/b, or /etc", "at https://example.org/a/b, or <path>" },
        { "key:/etc/x", "key:<path>" },
};

START_TEST(test_strip) {
        _cleanup_free_ char *out = mkfs_trial_strip_paths(cases[_i].in);

        ck_assert_ptr_nonnull(out);
        ck_assert_msg(streq(out, cases[_i].out), "'%s' became '%s', not '%s'", cases[_i].in, out, cases[_i].out);
}
END_TEST

/* The worst growth: every third byte a one-byte path ("/" of ",/."). */
START_TEST(test_strip_bound) {
        char in[3 * 683 + 1];
        _cleanup_free_ char *out = NULL;

        for (size_t i = 0; i < sizeof(in) - 1; i++)
                in[i] = ",/."[i % 3];
        in[sizeof(in) - 1] = 0;
        out = mkfs_trial_strip_paths(in);
        ck_assert_ptr_nonnull(out);
        ck_assert_uint_eq(strlen(out), 683 * strlen(",<path>."));
}
END_TEST

static Suite *mkfs_trial_suite(void) {
        Suite *s = suite_create("mkfs-trial");
        TCase *tc = tcase_create("strip");

        tcase_add_loop_test(tc, test_strip, 0, ELEMENTSOF(cases));
        tcase_add_test(tc, test_strip_bound);
        suite_add_tcase(s, tc);
        return s;
}

int main(void) {
        return check_run(mkfs_trial_suite());
}
