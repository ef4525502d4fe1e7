/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Text from outside as benchctl shows it on a terminal. Names, labels, targets, hosts and errors
 * come from the daemon, and through ImportRuns from another host's export, so from anyone: ESC or
 * BEL in a device name must not reach the terminal as a control sequence. As systemctl does
 * (utf8_escape_non_printable()), valid UTF-8 stays as it is; C0 controls and DEL, C1 controls
 * (U+0080..U+009F) and bytes that are not UTF-8 are written as C escapes: \a \b \t \n \v \f \r for
 * those, \xNN for every other byte (a C1 character is two: "\xc2\x9b"). A backslash stays a
 * backslash, as in systemctl: the escapes are for the terminal's sake, not a round trip; --json is
 * the exact form (JSON's own escaping) and is not passed through here, nor are the data exports
 * (export --format=csv, json, benchd: for programs, and benchd's own import).
 *
 * The output layer uses these, so the verbs need not: table.c escapes every cell and header (and
 * measures widths on the escaped text), kv_print() and text_printf() escape their %s arguments
 * (the format is benchctl's own, so its newlines stay), and bus_error_exit() the daemon's
 * messages. Pure, tested in test-client-format.c.
 */
#pragma once

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "shared/util.h"

/* The longest escape of one character: a C1 character, "\xc2\x9b". */
#define TEXT_ESCAPE_CHAR_MAX 8

/* The character at s (not at its end) as it is shown: writes its bytes, escaped or not, to buf
 * (not NUL-terminated) and returns how many bytes of s it took (1 to 4); *ret_len is how many
 * bytes it wrote, *ret_width how many terminal columns they take. */
size_t text_escape_char(const char *s, char buf[static TEXT_ESCAPE_CHAR_MAX], size_t *ret_len, size_t *ret_width);

/* The columns s takes once escaped (code points; benchctl's own output has no wide characters). */
size_t text_width(const char *s);
/* s escaped, malloc'd; NULL on ENOMEM. NULL s is "". */
char *text_escape(const char *s);
/* s escaped, to f. */
int text_fputs(const char *s, FILE *f);
/* As fprintf(), but every %s argument is escaped; the format is the caller's and is written as it
 * is. Takes the conversions benchctl's code uses (d i u o x X c s e f g a E F G A p m %%, the
 * flags, widths and precisions, * included, and the length modifiers hh h l ll j z t L); -EINVAL
 * for another (nothing more is written). */
int text_vfprintf(FILE *f, const char *fmt, va_list ap) _printf_(2, 0);
int text_fprintf(FILE *f, const char *fmt, ...) _printf_(2, 3);
int text_printf(const char *fmt, ...) _printf_(1, 2);
/* text_fprintf() of an error where it is handled, as log_*_errno() in the daemon: %m is the text of
 * error (a negative errno; a positive one is taken as its negation). Returns error, so that
 * `return text_fprintf_errno(stderr, r, "benchctl: ...: %m\n");` reports and passes it on. */
int text_fprintf_errno(FILE *f, int error, const char *fmt, ...) _printf_(3, 4);

/* Prints a JSON document on stdout as --json asked: pretty (the default) or short (one line). */
struct json_object;
void print_json(struct json_object *o);
void print_json_set_short(bool short_form);

/* Parses a job or run id (a positive decimal integer); prints a usage error on failure. */
int parse_id_arg(const char *what, const char *s, uint64_t *ret);
