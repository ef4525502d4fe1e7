/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * shared/prom-text.h over tables: label values escaped as the text format wants (\, " and
 * newline; nothing else), HELP text escaped without its quotes, sample lines with and without
 * labels and the format's spellings of numbers, and the atomic file replacement (the file has the
 * new text and no temporary file is left beside it).
 */
#include <check.h>
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check-util.h"
#include "shared/prom-text.h"
#include "shared/util.h"

static const struct {
        const char *in, *out;
} escape_cases[] = {
        { "", "" },
        { NULL, "" },
        { "ext4", "ext4" },
        { "a\"b", "a\\\"b" },
        { "a\\b", "a\\\\b" },
        { "line\nnext", "line\\nnext" },
        { "model:Samsung SSD 870:1000204886016:sda", "model:Samsung SSD 870:1000204886016:sda" },
        { "tab\there", "tab\there" },   /* only \, " and newline are escaped */
        { "é\"\\\n", "é\\\"\\\\\\n" },
};

START_TEST(test_escape) {
        _cleanup_free_ char *out = NULL;

        ck_assert_int_eq(prom_escape_label_value(escape_cases[_i].in, &out), 0);
        ck_assert_str_eq(out, escape_cases[_i].out);
}
END_TEST

static char *render(int (*fn)(FILE *f, void *arg), void *arg) {
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);

        ck_assert_ptr_nonnull(f);
        ck_assert_int_eq(fn(f, arg), 0);
        ck_assert_int_eq(fclose(f), 0);
        return buf;
}

static const struct {
        const char *name;
        PromLabel labels[3];
        double value;
        const char *line;
} sample_cases[] = {
        { "benchd_runs_total", { { "status", "failed" } }, 3, "benchd_runs_total{status=\"failed\"} 3\n" },
        { "benchd_up", {}, 1, "benchd_up 1\n" },
        { "benchd_x", { { "a", "q\"" }, { "b", NULL } }, 0.5, "benchd_x{a=\"q\\\"\",b=\"\"} 0.5\n" },
        { "benchd_x", {}, 317065729.2965945, "benchd_x 317065729.2965945\n" },
        { "benchd_x", {}, 0.1, "benchd_x 0.1\n" },
        { "benchd_x", {}, 1.7961264533362e+09, "benchd_x 1796126453.3362\n" },
        { "benchd_x", {}, NAN, "benchd_x NaN\n" },
        { "benchd_x", {}, INFINITY, "benchd_x +Inf\n" },
        { "benchd_x", {}, -INFINITY, "benchd_x -Inf\n" },
};

static int write_case(FILE *f, void *arg) {
        size_t i = *(size_t *) arg;
        return prom_write_sample(f, sample_cases[i].name, sample_cases[i].labels, sample_cases[i].value);
}

START_TEST(test_sample) {
        size_t i = (size_t) _i;
        _cleanup_free_ char *out = render(write_case, &i);

        ck_assert_str_eq(out, sample_cases[_i].line);
        /* The number reads back as the same double. */
        if (isfinite(sample_cases[_i].value))
                ck_assert(strtod(strrchr(out, ' ') + 1, NULL) == sample_cases[_i].value);
}
END_TEST

static int write_family(FILE *f, void *arg) {
        return prom_write_family(f, "benchd_x", "gauge", "A \"quoted\" back\\slash\nand a line.");
}

START_TEST(test_family) {
        _cleanup_free_ char *out = render(write_family, NULL);

        ck_assert_str_eq(out, "# HELP benchd_x A \"quoted\" back\\\\slash\\nand a line.\n# TYPE benchd_x gauge\n");
}
END_TEST

START_TEST(test_replace_file) {
        char dir[] = "/tmp/test-prom-text.XXXXXX";
        _cleanup_free_ char *path = NULL;
        char buf[64] = "";
        unsigned entries = 0;
        struct dirent *de;
        FILE *f;
        DIR *d;

        ck_assert_ptr_nonnull(mkdtemp(dir));
        ck_assert_int_ge(asprintf(&path, "%s/benchd.prom", dir), 0);
        ck_assert_int_eq(prom_replace_file(dir, "benchd.prom", "old\n", 4), 0);
        ck_assert_int_eq(prom_replace_file(dir, "benchd.prom", "new text\n", 9), 0);
        f = fopen(path, "re");
        ck_assert_ptr_nonnull(f);
        ck_assert_uint_eq(fread(buf, 1, sizeof buf - 1, f), 9);
        fclose(f);
        ck_assert_str_eq(buf, "new text\n");

        d = opendir(dir);
        ck_assert_ptr_nonnull(d);
        while ((de = readdir(d)))
                if (!streq(de->d_name, ".") && !streq(de->d_name, ".."))
                        entries++;
        closedir(d);
        ck_assert_uint_eq(entries, 1);  /* no temporary file left */

        /* A directory that does not exist: an error, nothing created. */
        ck_assert_int_eq(prom_replace_file("/nonexistent-benchd-dir", "benchd.prom", "x", 1), -ENOENT);

        ck_assert_int_eq(unlink(path), 0);
        ck_assert_int_eq(rmdir(dir), 0);
}
END_TEST

static Suite *prom_text_suite(void) {
        Suite *s = suite_create("prom-text");
        TCase *tc = tcase_create("prom-text");

        tcase_add_loop_test(tc, test_escape, 0, ELEMENTSOF(escape_cases));
        tcase_add_loop_test(tc, test_sample, 0, ELEMENTSOF(sample_cases));
        tcase_add_test(tc, test_family);
        tcase_add_test(tc, test_replace_file);
        suite_add_tcase(s, tc);
        return s;
}

int main(void) {
        return check_run(prom_text_suite());
}
