/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * One log for benchd and benchd-worker, with syslog priorities. Lines go to stderr. When stderr is
 * the journal (JOURNAL_STREAM names it, as systemd sets it for a service), each line starts with
 * the sd-daemon "<N>" prefix, so journald keeps its priority; on a terminal or in a file it starts
 * with the program's name instead ("benchd: ..."), as before. Like systemd's, the _errno variants
 * take a negative errno, make %m print it, and return it, so an error is logged once, where it is
 * handled: `return log_error_errno(r, "cannot open %s: %m", path);`.
 */
#pragma once

#include <stdbool.h>
#include <syslog.h>

#include "util.h"

/* The name lines start with when stderr is not the journal; "benchd" unless set. */
void log_set_program(const char *name);
/* Lines above this priority (a larger number: LOG_DEBUG > LOG_INFO) are dropped; LOG_INFO unless
 * set. */
void log_set_max_level(int level);
int log_get_max_level(void);
/* Whether lines carry the "<N>" prefix (stderr is the journal). Decided at the first line. */
bool log_to_journal(void);

/* level: a syslog priority (LOG_ERR ...); error: 0 or a negative errno, which %m prints. Returns
 * error (or 0). */
int log_internal(int level, int error, const char *format, ...) _printf_(3, 4);

#define log_full_errno(level, error, ...) log_internal((level), (error), __VA_ARGS__)
#define log_full(level, ...) log_internal((level), 0, __VA_ARGS__)

#define log_debug(...)   log_full(LOG_DEBUG, __VA_ARGS__)
#define log_info(...)    log_full(LOG_INFO, __VA_ARGS__)
#define log_notice(...)  log_full(LOG_NOTICE, __VA_ARGS__)
#define log_warning(...) log_full(LOG_WARNING, __VA_ARGS__)
#define log_error(...)   log_full(LOG_ERR, __VA_ARGS__)

#define log_debug_errno(error, ...)   log_full_errno(LOG_DEBUG, (error), __VA_ARGS__)
#define log_info_errno(error, ...)    log_full_errno(LOG_INFO, (error), __VA_ARGS__)
#define log_warning_errno(error, ...) log_full_errno(LOG_WARNING, (error), __VA_ARGS__)
#define log_error_errno(error, ...)   log_full_errno(LOG_ERR, (error), __VA_ARGS__)
