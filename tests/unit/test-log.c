/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The log (shared/log.c): with stderr the journal (JOURNAL_STREAM naming it) a line carries the
 * sd-daemon "<N>" prefix of its priority; otherwise the program's name; %m prints the errno given;
 * the _errno variants return it; lines above the maximum level are dropped. Each case runs in a
 * process of its own (libcheck's fork mode), with stderr redirected to a file it reads back.
 */

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "shared/log.h"
#include "check-util.h"
#include "shared/util.h"

static char path[] = "/tmp/test-log-XXXXXX";

/* stderr into a new temp file; with journal, JOURNAL_STREAM names it. */
static void capture(bool journal) {
        struct stat st;
        char v[64];
        int fd = mkstemp(path);

        ck_assert_int_ge(fd, 0);
        ck_assert_int_eq(dup2(fd, STDERR_FILENO), STDERR_FILENO);
        close(fd);
        ck_assert_int_eq(fstat(STDERR_FILENO, &st), 0);
        if (journal) {
                snprintf(v, sizeof(v), "%llu:%llu", (unsigned long long) st.st_dev, (unsigned long long) st.st_ino);
                setenv("JOURNAL_STREAM", v, 1);
        } else
                unsetenv("JOURNAL_STREAM");
}

static char *captured(void) {
        static char buf[8192];
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        ssize_t n;

        ck_assert_int_ge(fd, 0);
        n = read(fd, buf, sizeof(buf) - 1);
        ck_assert_int_ge(n, 0);
        buf[n] = 0;
        close(fd);
        unlink(path);
        return buf;
}

START_TEST(test_journal_prefix) {
        capture(true);
        ck_assert(log_to_journal());
        log_error("one %d", 1);
        log_warning("two");
        log_info("three");
        ck_assert_int_eq(log_error_errno(-ENOENT, "four: %m"), -ENOENT);
        ck_assert_str_eq(captured(), "<3>one 1\n<4>two\n<6>three\n<3>four: No such file or directory\n");
}
END_TEST

START_TEST(test_terminal_prefix) {
        capture(false);
        ck_assert(!log_to_journal());
        log_set_program("benchd-worker");
        log_info("hello");
        ck_assert_str_eq(captured(), "benchd-worker: hello\n");
}
END_TEST

/* A JOURNAL_STREAM that names another stream (inherited by a child whose stderr is elsewhere). */
START_TEST(test_other_stream) {
        capture(false);
        setenv("JOURNAL_STREAM", "1:1", 1);
        log_info("plain");
        ck_assert_str_eq(captured(), "benchd: plain\n");
}
END_TEST

START_TEST(test_max_level_and_errno) {
        capture(true);
        log_set_max_level(LOG_WARNING);
        log_info("dropped");
        log_debug("dropped too");
        errno = EBUSY;
        log_warning("kept: %m");
        ck_assert_int_eq(errno, EBUSY);  /* the log leaves errno as it was */
        ck_assert_int_eq(log_info_errno(-EIO, "dropped, but returned"), -EIO);
        ck_assert_str_eq(captured(), "<4>kept: Device or resource busy\n");
}
END_TEST

START_TEST(test_long_line) {
        char big[6000];

        capture(false);
        memset(big, 'x', sizeof(big) - 1);
        big[sizeof(big) - 1] = 0;
        log_info("%s", big);
        log_info("after");
        char *out = captured();
        char *nl = strchr(out, '\n');
        ck_assert_ptr_nonnull(nl);
        ck_assert_uint_lt((size_t) (nl - out), 4096);   /* cut, but one line */
        ck_assert_str_eq(nl + 1, "benchd: after\n");
}
END_TEST

int main(void) {
        Suite *s = suite_create("log");
        TCase *tc = tcase_create("log");

        tcase_add_test(tc, test_journal_prefix);
        tcase_add_test(tc, test_terminal_prefix);
        tcase_add_test(tc, test_other_stream);
        tcase_add_test(tc, test_max_level_and_errno);
        tcase_add_test(tc, test_long_line);
        suite_add_tcase(s, tc);
        return check_run(s);
}
