/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The Prometheus text exposition format (version 0.0.4), as much of it as benchd writes for
 * node_exporter's textfile collector: a family's HELP and TYPE lines, samples with escaped label
 * values, and the atomic replacement of a .prom file (the collector may read it at any moment, so
 * it must never see half a file). Pure text and one file write: no database, no D-Bus, so the
 * escaping and number rules are unit-tested directly (tests/unit/test-prom-text.c).
 */
#pragma once

#include <stdio.h>

/* One label: name (a valid label name, [a-zA-Z_][a-zA-Z0-9_]*) and value (any UTF-8; NULL is "").
 * A label list ends with { NULL }. */
typedef struct PromLabel {
        const char *name;
        const char *value;
} PromLabel;

/* "# HELP name help\n# TYPE name type\n"; help has \ and newlines escaped. */
int prom_write_family(FILE *f, const char *name, const char *type, const char *help);
/* "name{a="x",b="y"} value\n": values with \, " and newlines escaped; the value in the shortest
 * form that reads back the same double ("NaN", "+Inf", "-Inf" as the format spells them). */
int prom_write_sample(FILE *f, const char *name, const PromLabel *labels, double value);
/* The label value as the format wants it written between the quotes. */
int prom_escape_label_value(const char *value, char **ret);

/* Replaces dir/name with the len bytes of text atomically for readers: a temporary file in dir
 * (".name.XXXXXX" from mkostemp(), which the textfile collector ignores because it does not end in
 * .prom), written, made 0644 and renamed over name. Not fsync'ed: the daemon's event loop calls
 * this after runs, the disk may be the one under benchmark, and the file is made anew at every
 * start, so a crash costs nothing that lasts. The temporary file is removed on failure. -errno. */
int prom_replace_file(const char *dir, const char *name, const char *text, size_t len);
