/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * benchctl's tables (table.h). Kept apart from the verbs so the fitting rule can be tested on its
 * own: natural width per column, then, if the line is too long for the terminal, the widest
 * shrinkable column gives up one column at a time until the line fits or nothing can shrink.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "format.h"
#include "table.h"
#include "text.h"

#define TABLE_GAP 2

typedef struct TableColumn {
        char *header;
        TableAlign align;
        bool shrinkable;
        size_t min_width;
} TableColumn;

struct Table {
        TableColumn *columns;
        size_t n_columns;
        char **cells;
        size_t n_cells;
        size_t allocated;
};

int table_new(const char *const *headers, size_t n_columns, Table **ret) {
        Table *t;

        if (n_columns == 0)
                return -EINVAL;
        t = calloc(1, sizeof(Table));
        if (!t)
                return -ENOMEM;
        t->columns = calloc(n_columns, sizeof(TableColumn));
        if (!t->columns) {
                free(t);
                return -ENOMEM;
        }
        t->n_columns = n_columns;
        for (size_t i = 0; i < n_columns; i++) {
                t->columns[i].header = strdup(headers[i] ?: "");
                if (!t->columns[i].header) {
                        table_free(t);
                        return -ENOMEM;
                }
        }
        *ret = t;
        return 0;
}

Table *table_free(Table *t) {
        if (!t)
                return NULL;
        for (size_t i = 0; i < t->n_columns; i++)
                free(t->columns[i].header);
        free(t->columns);
        for (size_t i = 0; i < t->n_cells; i++)
                free(t->cells[i]);
        free(t->cells);
        free(t);
        return NULL;
}

int table_set_align(Table *t, size_t column, TableAlign align) {
        if (column >= t->n_columns)
                return -EINVAL;
        t->columns[column].align = align;
        return 0;
}

int table_set_shrinkable(Table *t, size_t column, size_t min_width) {
        if (column >= t->n_columns)
                return -EINVAL;
        t->columns[column].shrinkable = true;
        t->columns[column].min_width = MAX(min_width, (size_t) 3);
        return 0;
}

int table_add_cell(Table *t, const char *s) {
        char *c;

        if (t->n_cells == t->allocated) {
                size_t n = MAX(t->allocated * 2, (size_t) 64);
                char **a = realloc(t->cells, n * sizeof(char *));
                if (!a)
                        return -ENOMEM;
                t->cells = a;
                t->allocated = n;
        }
        /* Kept as given: escaped as it is printed (text.h), so a newline in a label cannot break
         * the layout nor ESC reach the terminal. */
        c = strdup(s ?: "");
        if (!c)
                return -ENOMEM;
        t->cells[t->n_cells++] = c;
        return 0;
}

int table_add_cellf(Table *t, const char *fmt, ...) {
        _cleanup_free_ char *s = NULL;
        va_list ap;
        int r;

        va_start(ap, fmt);
        r = vasprintf(&s, fmt, ap);
        va_end(ap);
        if (r < 0)
                return -ENOMEM;
        return table_add_cell(t, s);
}

size_t table_rows(const Table *t) {
        return (t->n_cells + t->n_columns - 1) / t->n_columns;
}

/* Writes s, escaped (text.h), in exactly width columns: padded, or cut at a character's (or an
 * escape's) edge with an ellipsis. */
static void print_cell(FILE *f, const char *s, size_t width, TableAlign align, bool last) {
        size_t w = text_width(s);

        if (w > width) {
                size_t cols = 0;

                while (*s) {
                        char buf[TEXT_ESCAPE_CHAR_MAX];
                        size_t len, cw, n = text_escape_char(s, buf, &len, &cw);

                        if (cols + cw > width - MIN(width, (size_t) 1))
                                break;
                        fwrite(buf, 1, len, f);
                        cols += cw;
                        s += n;
                }
                /* An escape wider than what is left: pad, so the columns stay aligned. */
                fprintf(f, "%*s…", (int) (width - MIN(width, (size_t) 1) - cols), "");
                return;
        }
        if (align == TABLE_ALIGN_RIGHT)
                fprintf(f, "%*s", (int) (width - w), "");
        (void) text_fputs(s, f);
        if (align != TABLE_ALIGN_RIGHT && !last)
                fprintf(f, "%*s", (int) (width - w), "");
}

int table_print_width(const Table *t, FILE *f, size_t width, bool legend) {
        _cleanup_free_ size_t *widths = NULL;
        size_t n_rows = table_rows(t), total = 0;

        widths = calloc(t->n_columns, sizeof(size_t));
        if (!widths)
                return -ENOMEM;

        for (size_t c = 0; c < t->n_columns; c++) {
                if (legend)
                        widths[c] = text_width(t->columns[c].header);
                for (size_t r = 0; r < n_rows; r++) {
                        size_t i = r * t->n_columns + c;
                        if (i < t->n_cells)
                                widths[c] = MAX(widths[c], text_width(t->cells[i]));
                }
                total += widths[c] + (c > 0 ? TABLE_GAP : 0);
        }

        while (width > 0 && total > width) {
                size_t victim = SIZE_MAX;
                for (size_t c = 0; c < t->n_columns; c++) {
                        size_t min = MAX(t->columns[c].min_width,
                                         legend ? text_width(t->columns[c].header) : 0);
                        if (!t->columns[c].shrinkable || widths[c] <= min)
                                continue;
                        if (victim == SIZE_MAX || widths[c] > widths[victim])
                                victim = c;
                }
                if (victim == SIZE_MAX)
                        break; /* nothing left to give: let the terminal wrap */
                widths[victim]--;
                total--;
        }

        if (legend) {
                for (size_t c = 0; c < t->n_columns; c++) {
                        if (c > 0)
                                fprintf(f, "%*s", TABLE_GAP, "");
                        print_cell(f, t->columns[c].header, widths[c], t->columns[c].align,
                                   c + 1 == t->n_columns);
                }
                fputc('\n', f);
        }
        for (size_t r = 0; r < n_rows; r++) {
                for (size_t c = 0; c < t->n_columns; c++) {
                        size_t i = r * t->n_columns + c;
                        if (c > 0)
                                fprintf(f, "%*s", TABLE_GAP, "");
                        print_cell(f, i < t->n_cells ? t->cells[i] : "", widths[c], t->columns[c].align,
                                   c + 1 == t->n_columns);
                }
                fputc('\n', f);
        }
        return fflush(f) == 0 ? 0 : negative_errno();
}

size_t terminal_width(void) {
        struct winsize ws = {};

        if (!isatty(STDOUT_FILENO))
                return 0;
        if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) < 0 || ws.ws_col == 0) {
                const char *e = getenv("COLUMNS");
                long n = e ? strtol(e, NULL, 10) : 0;
                return n > 0 ? (size_t) n : 80;
        }
        return ws.ws_col;
}

int table_print(const Table *t, bool legend) {
        return table_print_width(t, stdout, terminal_width(), legend);
}

void kv_print(FILE *f, size_t key_width, const char *key, const char *fmt, ...) {
        va_list ap;
        size_t w = text_width(key);

        fprintf(f, "%*s", (int) (key_width > w ? key_width - w : 0), "");
        (void) text_fputs(key, f);
        fputs(": ", f);
        va_start(ap, fmt);
        (void) text_vfprintf(f, fmt, ap);
        va_end(ap);
        fputc('\n', f);
}
