/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The pure parts of `benchctl report` (verbs-report.c): the default file name of a selection, the
 * JSON text made safe to stand inside a <script> element, and the page itself, one self-contained
 * HTML file: the style, the data as JSON in <script type="application/json" id="benchd-data">, the
 * chart library and the page's own script inlined, so it opens offline. No D-Bus, no globals, so
 * the unit test links it alone.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef enum ReportKind {
        REPORT_RUNS,            /* report RUN... */
        REPORT_JOB,             /* report --job ID */
        REPORT_COMPARE,         /* report --by COLUMN [filters] */
        REPORT_HISTORY,         /* report [filters] */
        REPORT_FLEET,           /* report --fleet UUID */
        _REPORT_KIND_MAX,
} ReportKind;

/* "runs", "job", "compare", "history", "fleet": the data's "kind". */
const char *report_kind_to_string(ReportKind k);

typedef struct ReportSelection {
        ReportKind kind;
        uint64_t job;                   /* REPORT_JOB */
        const uint64_t *runs;           /* REPORT_RUNS */
        size_t n_runs;
        const char *by;                 /* REPORT_COMPARE */
        const char *fleet;              /* REPORT_FLEET: the fleet run's uuid */
        /* The filters, as given (NULL: none); they name compare and history reports. */
        const char *device, *workload, *profile, *fs_type, *label;
} ReportSelection;

/* The file a report goes to when -o is not given, in the current directory: "benchd-job-12.html",
 * "benchd-run-31.html", "benchd-runs-31-35.html" (more than four runs: the first four and
 * "-and-N-more"), "benchd-compare-fs_type[-FILTER...].html", "benchd-history[-FILTER...].html",
 * "benchd-fleet-UUID.html"
 * with the filters' values in the order device, workload, profile, fs_type, label (a device path
 * by its last component). Characters other than letters, digits, '.', '_' and '-' become '_', so
 * no name leaves the directory or hides. Returns 0 or -ENOMEM / -EINVAL. */
int report_file_name(const ReportSelection *s, char **ret);

/* JSON text as it may stand between <script type="application/json"> and </script>: every "</"
 * becomes "<\/" and every "<!--" "<\u0021--" (both only occur inside JSON strings, where the
 * escapes mean the same characters), so no data can end the element or change how HTML reads it.
 * Malloc'd; NULL on ENOMEM. */
char *report_json_escape(const char *json);

/* Whether a script can be inlined as it is: it contains no "</script" (in any case) and no "<!--". */
bool report_script_inlinable(const char *js);

/* Writes s with &, <, >, " and ' escaped, for text and attribute values; control characters and
 * bytes that are not UTF-8 as benchctl shows them on a terminal (text.h: "\x1b"), so the page holds
 * none. */
void report_html_escape(FILE *f, const char *s);

typedef struct ReportPage {
        const char *title;
        const char *generator;          /* "benchctl 0.1.0" */
        const char *css;
        const char *chart_js;           /* the chart library, inlinable */
        const char *chart_js_origin;    /* where it came from, said in a comment */
        const char *page_js;            /* builds the charts from the data; inlinable */
        const char *data_json;          /* escaped with report_json_escape(): no "</" */
} ReportPage;

/* The whole page. Returns 0, -EINVAL when a script is not inlinable or the data has a "</" left
 * (nothing written then), or a write error. */
int report_html_write(FILE *f, const ReportPage *p);
