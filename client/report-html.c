/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The report page and its pure helpers (report-html.h). The page's order matters: the data and an
 * error collector come before the chart library, so an error anywhere after them, the library's
 * own included, lands in window.benchdReport.errors, which the page's script writes, with the
 * number of charts it drew, into <pre id="benchd-report-state"> for tests that read the DOM.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "report-html.h"
#include "shared/util.h"
#include "text.h"

static const char *const kind_names[_REPORT_KIND_MAX] = {
        [REPORT_RUNS] = "runs",
        [REPORT_JOB] = "job",
        [REPORT_COMPARE] = "compare",
        [REPORT_HISTORY] = "history",
        [REPORT_FLEET] = "fleet",
};

const char *report_kind_to_string(ReportKind k) {
        return k >= 0 && k < _REPORT_KIND_MAX ? kind_names[k] : NULL;
}

/* "-" and the value, made a safe part of a file name; a path by its last component. */
static void name_part(FILE *f, const char *v) {
        const char *slash;

        if (!v)
                return;
        slash = strrchr(v, '/');
        if (slash && slash[1] != '\0')
                v = slash + 1;
        if (!*v)
                return;
        fputc('-', f);
        for (; *v; v++) {
                unsigned char c = (unsigned char) *v;
                bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                          c == '.' || c == '_' || c == '-';
                fputc(ok ? c : '_', f);
        }
}

int report_file_name(const ReportSelection *s, char **ret) {
        _cleanup_free_ char *buf = NULL;
        size_t len = 0;
        FILE *f;

        if (!s || !report_kind_to_string(s->kind) || (s->kind == REPORT_RUNS && s->n_runs == 0) ||
            (s->kind == REPORT_FLEET && !s->fleet))
                return -EINVAL;
        f = open_memstream(&buf, &len);
        if (!f)
                return -ENOMEM;
        fputs("benchd", f);
        switch (s->kind) {
        case REPORT_JOB:
                fprintf(f, "-job-%" PRIu64, s->job);
                break;
        case REPORT_RUNS:
                fputs(s->n_runs == 1 ? "-run" : "-runs", f);
                for (size_t i = 0; i < s->n_runs && i < 4; i++)
                        fprintf(f, "-%" PRIu64, s->runs[i]);
                if (s->n_runs > 4)
                        fprintf(f, "-and-%zu-more", s->n_runs - 4);
                break;
        case REPORT_COMPARE:
                fputs("-compare", f);
                name_part(f, s->by ?: "");
                break;
        case REPORT_HISTORY:
                fputs("-history", f);
                break;
        case REPORT_FLEET:
                fputs("-fleet", f);
                name_part(f, s->fleet);
                break;
        default:
                break;
        }
        if (s->kind == REPORT_COMPARE || s->kind == REPORT_HISTORY) {
                name_part(f, s->device);
                name_part(f, s->workload);
                name_part(f, s->profile);
                name_part(f, s->fs_type);
                name_part(f, s->label);
        }
        fputs(".html", f);
        if (fclose(f) != 0 || !buf)
                return -ENOMEM;
        *ret = TAKE_PTR(buf);
        return 0;
}

char *report_json_escape(const char *json) {
        size_t n = 0, k = 0;
        char *out;

        /* At most 5 more bytes per '<' ("<!--" → "<\u0021--"). */
        for (const char *p = json; *p; p++)
                n += *p == '<' ? 6 : 1;
        out = malloc(n + 1);
        if (!out)
                return NULL;
        for (const char *p = json; *p; p++) {
                if (p[0] == '<' && p[1] == '/') {
                        memcpy(out + k, "<\\/", 3);
                        k += 3;
                        p++;
                } else if (strncmp(p, "<!--", 4) == 0) {
                        memcpy(out + k, "<\\u0021--", 9);
                        k += 9;
                        p += 3;
                } else
                        out[k++] = *p;
        }
        out[k] = '\0';
        return out;
}

bool report_script_inlinable(const char *js) {
        for (const char *p = js; p && (p = strchr(p, '<')); p++)
                if (strncasecmp(p, "</script", 8) == 0 || strncmp(p, "<!--", 4) == 0)
                        return false;
        return true;
}

void report_html_escape(FILE *f, const char *s) {
        while (s && *s) {
                char buf[TEXT_ESCAPE_CHAR_MAX];
                size_t len, width, n = text_escape_char(s, buf, &len, &width);

                s += n;
                /* Control characters and bytes that are not UTF-8: as the terminal shows them (text.h). */
                if (len != 1) {
                        fwrite(buf, 1, len, f);
                        continue;
                }
                switch (buf[0]) {
                case '&':
                        fputs("&amp;", f);
                        break;
                case '<':
                        fputs("&lt;", f);
                        break;
                case '>':
                        fputs("&gt;", f);
                        break;
                case '"':
                        fputs("&quot;", f);
                        break;
                case '\'':
                        fputs("&#39;", f);
                        break;
                default:
                        fputc(buf[0], f);
                }
        }
}

/* Collects errors (the chart library's too) before anything else runs. */
static const char error_collector[] =
        "window.benchdReport = { charts: 0, regression_marks: 0, errors: [], done: false };\n"
        "window.benchdReportState = function () {\n"
        "        var e = document.getElementById(\"benchd-report-state\");\n"
        "        if (e) e.textContent = JSON.stringify(window.benchdReport);\n"
        "};\n"
        "window.onerror = function (msg, src, line, col) {\n"
        "        window.benchdReport.errors.push(String(msg) + \" (line \" + line + \":\" + col + \")\");\n"
        "        window.benchdReportState();\n"
        "        return false;\n"
        "};\n";

int report_html_write(FILE *f, const ReportPage *p) {
        if (!report_script_inlinable(p->chart_js) || !report_script_inlinable(p->page_js) ||
            !report_script_inlinable(p->css) || !report_script_inlinable(p->data_json) || strstr(p->data_json, "</"))
                return -EINVAL;
        fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
              "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n", f);
        fputs("<meta name=\"generator\" content=\"", f);
        report_html_escape(f, p->generator);
        fputs("\">\n<title>", f);
        report_html_escape(f, p->title);
        fputs("</title>\n<style>\n", f);
        fputs(p->css, f);
        fputs("</style>\n</head>\n<body>\n<header>\n<h1>", f);
        report_html_escape(f, p->title);
        fputs("</h1>\n<p class=\"sub\" id=\"subtitle\"></p>\n</header>\n"
              "<main id=\"report\">\n<noscript><p>This report draws its charts and tables with JavaScript; its data "
              "is the JSON in the page's source (script id=\"benchd-data\").</p></noscript>\n</main>\n"
              "<footer id=\"sources\"></footer>\n"
              "<pre id=\"benchd-report-state\" hidden>{\"done\":false}</pre>\n", f);
        fputs("<script type=\"application/json\" id=\"benchd-data\">", f);
        fputs(p->data_json, f);
        fputs("</script>\n<script>\n", f);
        fputs(error_collector, f);
        fputs("</script>\n<script>\n/* ", f);
        /* A comment: only "*" "/" could end it, and a path has none. */
        for (const char *c = p->chart_js_origin; c && *c; c++)
                fputc(c[0] == '*' && c[1] == '/' ? '_' : c[0], f);
        fputs(", inlined so the report opens offline */\n", f);
        fputs(p->chart_js, f);
        fputs("\n</script>\n<script>\n", f);
        fputs(p->page_js, f);
        fputs("\n</script>\n</body>\n</html>\n", f);
        return ferror(f) ? -EIO : 0;
}
