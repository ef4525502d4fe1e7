/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The Prometheus text format's escaping and number rules, and the atomic file replacement the
 * textfile collector needs (prom-text.h says why).
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "shared/prom-text.h"
#include "shared/proto.h"
#include "shared/util.h"

/* Escapes \ and newline, and " too when quote is set (label values; HELP text keeps its quotes). */
static int escape(const char *s, bool quote, char **ret) {
        size_t n = 0;
        char *buf, *p;

        s = s ?: "";
        for (const char *c = s; *c; c++)
                n += (*c == '\\' || *c == '\n' || (quote && *c == '"')) ? 2 : 1;
        buf = malloc(n + 1);
        if (!buf)
                return -ENOMEM;
        p = buf;
        for (const char *c = s; *c; c++) {
                if (*c == '\\' || (quote && *c == '"')) {
                        *p++ = '\\';
                        *p++ = *c;
                } else if (*c == '\n') {
                        *p++ = '\\';
                        *p++ = 'n';
                } else
                        *p++ = *c;
        }
        *p = '\0';
        *ret = buf;
        return 0;
}

int prom_escape_label_value(const char *value, char **ret) {
        return escape(value, true, ret);
}

int prom_write_family(FILE *f, const char *name, const char *type, const char *help) {
        _cleanup_free_ char *h = NULL;
        int r;

        r = escape(help, false, &h);
        if (r < 0)
                return r;
        if (fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, h, name, type) < 0)
                return -EIO;
        return 0;
}

/* The shortest %g form that reads back as the same double. */
static void format_value(double v, char buf[static 32]) {
        if (isnan(v)) {
                strcpy(buf, "NaN");
                return;
        }
        if (isinf(v)) {
                strcpy(buf, v > 0 ? "+Inf" : "-Inf");
                return;
        }
        for (int prec = 6; prec <= 17; prec++) {
                snprintf(buf, 32, "%.*g", prec, v);
                if (strtod(buf, NULL) == v)
                        return;
        }
}

int prom_write_sample(FILE *f, const char *name, const PromLabel *labels, double value) {
        char num[32];

        if (fputs(name, f) < 0)
                return -EIO;
        if (labels && labels[0].name) {
                if (fputc('{', f) < 0)
                        return -EIO;
                for (const PromLabel *l = labels; l->name; l++) {
                        _cleanup_free_ char *v = NULL;
                        int r = prom_escape_label_value(l->value, &v);
                        if (r < 0)
                                return r;
                        if (fprintf(f, "%s%s=\"%s\"", l == labels ? "" : ",", l->name, v) < 0)
                                return -EIO;
                }
                if (fputc('}', f) < 0)
                        return -EIO;
        }
        format_value(value, num);
        if (fprintf(f, " %s\n", num) < 0)
                return -EIO;
        return 0;
}

int prom_replace_file(const char *dir, const char *name, const char *text, size_t len) {
        _cleanup_free_ char *tmp = NULL, *path = NULL;
        _cleanup_close_ int fd = -1;
        int r;

        if (asprintf(&path, "%s/%s", dir, name) < 0 || asprintf(&tmp, "%s/.%s.XXXXXX", dir, name) < 0)
                return -ENOMEM;
        fd = mkostemp(tmp, O_CLOEXEC);
        if (fd < 0)
                return negative_errno();
        r = proto_write_all(fd, text, len);
        if (r >= 0 && fchmod(fd, 0644) < 0)
                r = negative_errno();   /* mkostemp() makes 0600; node_exporter runs as another user */
        if (r >= 0 && rename(tmp, path) < 0)
                r = negative_errno();
        if (r < 0)
                (void) unlink(tmp);
        return r < 0 ? r : 0;
}
