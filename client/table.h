/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Terminal tables (systemctl list-units style) and "Key: value" blocks. Cells are copied strings,
 * printed escaped (text.h: control characters and bytes that are not UTF-8 as C escapes, as
 * systemctl does), and so are headers; widths are measured in columns of the escaped text (UTF-8
 * code points). When the table is wider than the terminal,
 * the columns marked shrinkable are ellipsized, widest first; when output is not a terminal
 * nothing is truncated.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "shared/util.h"

typedef struct Table Table;

typedef enum TableAlign {
        TABLE_ALIGN_LEFT,
        TABLE_ALIGN_RIGHT,
} TableAlign;

/* headers: n_columns strings. Columns are left-aligned and not shrinkable until told otherwise. */
int table_new(const char *const *headers, size_t n_columns, Table **ret);
Table *table_free(Table *t);
DEFINE_TRIVIAL_CLEANUP_FUNC(Table *, table_free);

int table_set_align(Table *t, size_t column, TableAlign align);
/* A shrinkable column may be cut down to min_width (at least its header's width or 3). */
int table_set_shrinkable(Table *t, size_t column, size_t min_width);

/* Cells fill rows left to right; a new row starts when the previous one is full. NULL is "". */
int table_add_cell(Table *t, const char *s);
int table_add_cellf(Table *t, const char *fmt, ...) _printf_(2, 3);

size_t table_rows(const Table *t);

/* Writes the table; width 0 means unlimited. With legend, the header line is printed. */
int table_print_width(const Table *t, FILE *f, size_t width, bool legend);
/* Writes to stdout, fitted to the terminal when stdout is one. */
int table_print(const Table *t, bool legend);

/* The terminal width of stdout, or 0 when it is not a terminal (no truncation). */
size_t terminal_width(void);

/* "      Key: value" lines with keys right-aligned to key_width; the key and every %s argument
 * printed escaped (text_vfprintf()). */
void kv_print(FILE *f, size_t key_width, const char *key, const char *fmt, ...) _printf_(4, 5);
