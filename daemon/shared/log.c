/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The log (log.h). One line per call, written with one write(2), so lines of benchd and of its
 * workers (which share its stderr) never interleave mid-line. Whether stderr is the journal is
 * decided as systemd's own programs decide it: JOURNAL_STREAM holds the device and inode of the
 * stream, and stderr must be that stream.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "log.h"

#define LOG_LINE_MAX 4096

static const char *log_program = "benchd";
static int log_max_level = LOG_INFO;
static int log_journal = -1;    /* unknown until the first line */

void log_set_program(const char *name) {
        log_program = name;
}

void log_set_max_level(int level) {
        log_max_level = level;
}

int log_get_max_level(void) {
        return log_max_level;
}

bool log_to_journal(void) {
        const char *e;
        unsigned long long dev, ino;
        struct stat st;

        if (log_journal >= 0)
                return log_journal;
        log_journal = 0;
        e = getenv("JOURNAL_STREAM");
        if (e && sscanf(e, "%llu:%llu", &dev, &ino) == 2 && fstat(STDERR_FILENO, &st) == 0 &&
            (unsigned long long) st.st_dev == dev && (unsigned long long) st.st_ino == ino)
                log_journal = 1;
        return log_journal;
}

int log_internal(int level, int error, const char *format, ...) {
        char line[LOG_LINE_MAX];
        int saved = errno, n;
        va_list ap;

        if ((level & LOG_PRIMASK) > log_max_level) {
                errno = saved;
                return error;
        }
        if (log_to_journal())
                n = snprintf(line, sizeof(line), "<%d>", level & LOG_PRIMASK);
        else
                n = snprintf(line, sizeof(line), "%s: ", log_program);
        if (n < 0 || (size_t) n >= sizeof(line))
                n = 0;

        /* %m prints the error given, not whatever errno happens to be. */
        errno = error < 0 ? -error : error > 0 ? error : saved;
        va_start(ap, format);
        int m = vsnprintf(line + n, sizeof(line) - (size_t) n, format, ap);
        va_end(ap);
        if (m < 0)
                m = 0;
        n = (size_t) n + (size_t) m >= sizeof(line) - 1 ? (int) sizeof(line) - 2 : n + m;
        line[n++] = '\n';
        (void) !write(STDERR_FILENO, line, (size_t) n);

        errno = saved;
        return error;
}
