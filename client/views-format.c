/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The anchors' output formats (views-format.h), rebuilt from how the tools print, not from their
 * code: GNU dd's byte abbreviations (coreutils' human_readable(): integer counts rounded to nearest
 * with ties to even, one decimal below 10; rates from a floating division with one decimal below
 * 100), ioping's suffixes, iozone's matrix and -R report, bonnie++ 2.00's CSV line and the plain
 * text bon_csv2txt renders from it (including its habit of reading fields 24 and 25 the other way
 * round from how bonnie++ writes them, so the table here is byte for byte what bon_csv2txt prints).
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shared/format.h"
#include "shared/stats.h"
#include "shared/util.h"
#include "text.h"
#include "views-format.h"

size_t stats_mean_stddev(const double *v, size_t n, double *ret_mean, double *ret_stddev) {
        _cleanup_free_ double *finite = malloc(MAX(n, (size_t) 1) * sizeof(double));
        size_t k = 0;

        *ret_mean = *ret_stddev = NAN;
        if (!finite)
                return 0;
        for (size_t i = 0; i < n; i++)
                if (isfinite(v[i]))
                        finite[k++] = v[i];
        if (k == 0)
                return 0;
        *ret_mean = stats_mean(finite, k);
        *ret_stddev = k > 1 ? stats_stddev(finite, k) : 0.0;
        return k;
}

/* ---- GNU dd ---- */

static const char *const si_prefix[] = { "", "k", "M", "G", "T", "P", "E" };
static const char *const iec_unit[] = { "", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };

const char *dd_format_size(char *buf, size_t l, uint64_t bytes, bool binary) {
        const unsigned __int128 base = binary ? 1024 : 1000;
        unsigned __int128 d = 1;
        unsigned e = 0;

        buf[0] = '\0';
        if (bytes < base)
                return buf;
        while (bytes / d >= base && e < 6) {
                d *= base;
                e++;
        }
        for (;;) {
                uint64_t ip = (uint64_t) (bytes / d);
                unsigned __int128 r = bytes % d;
                char unit[8];

                snprintf(unit, sizeof unit, "%s", binary ? iec_unit[e] : si_prefix[e]);
                if (!binary)
                        strcat(unit, "B");
                if (ip < 10) {
                        /* One decimal, the digit rounded to nearest, ties to even. */
                        unsigned __int128 t = r * 10, rem = t % d;
                        unsigned tenths = (unsigned) (t / d);

                        if (2 * rem > d || (2 * rem == d && (tenths & 1)))
                                tenths++;
                        if (tenths == 10) {
                                ip++;
                                tenths = 0;
                        }
                        if (ip < 10)
                                snprintf(buf, l, "%" PRIu64 ".%u %s", ip, tenths, unit);
                        else
                                snprintf(buf, l, "%" PRIu64 " %s", ip, unit);
                        return buf;
                }
                if (2 * r > d || (2 * r == d && (ip & 1)))
                        ip++;
                if (ip >= base && e < 6) {
                        /* 999.5 kB is 1.0 MB. */
                        d *= base;
                        e++;
                        continue;
                }
                snprintf(buf, l, "%" PRIu64 " %s", ip, unit);
                return buf;
        }
}

const char *dd_format_rate(char *buf, size_t l, double bytes_per_sec) {
        char num[64];
        double v = bytes_per_sec;
        unsigned e = 0;

        if (!isfinite(v) || v < 0) {
                snprintf(buf, l, "Infinity B/s");
                return buf;
        }
        while (v >= 1000 && e < 6) {
                v /= 1000;
                e++;
        }
        snprintf(num, sizeof num, "%.1f", v);
        if (strlen(num) > 4) {
                snprintf(num, sizeof num, "%.0f", v);
                if (strtod(num, NULL) >= 1000 && e < 6) {
                        v /= 1000;
                        e++;
                        snprintf(num, sizeof num, "%.1f", v);
                }
        }
        snprintf(buf, l, "%s %sB/s", num, si_prefix[e]);
        return buf;
}

const char *dd_format_summary(char *buf, size_t l, uint64_t bytes, uint64_t usec) {
        char si[FORMAT_BUF_MAX], iec[FORMAT_BUF_MAX], secs[FORMAT_BUF_MAX], rate[FORMAT_BUF_MAX];

        dd_format_size(si, sizeof si, bytes, false);
        dd_format_size(iec, sizeof iec, bytes, true);
        snprintf(secs, sizeof secs, "%g s", (double) usec / 1e6);
        dd_format_rate(rate, sizeof rate, usec > 0 ? (double) bytes / ((double) usec / 1e6) : INFINITY);
        if (!*si)
                snprintf(buf, l, "%" PRIu64 " byte%s copied, %s, %s", bytes, bytes == 1 ? "" : "s", secs, rate);
        else if (!*iec)
                snprintf(buf, l, "%" PRIu64 " bytes (%s) copied, %s, %s", bytes, si, secs, rate);
        else
                snprintf(buf, l, "%" PRIu64 " bytes (%s, %s) copied, %s, %s", bytes, si, iec, secs, rate);
        return buf;
}

/* ---- ioping ---- */

typedef struct Suffix {
        const char *text;
        int64_t mul;
} Suffix;

static const Suffix count_suffixes[] = {
        { "T", INT64_C(1000000000000) }, { "G", 1000000000 }, { "M", 1000000 }, { "k", 1000 }, { "", 1 },
};
static const Suffix size_suffixes[] = {
        { "PiB", INT64_C(1) << 50 }, { "TiB", INT64_C(1) << 40 }, { "GiB", INT64_C(1) << 30 },
        { "MiB", INT64_C(1) << 20 }, { "KiB", INT64_C(1) << 10 }, { "B", 1 },
};
static const Suffix time_suffixes[] = {
        { "hour", INT64_C(3600000000000) }, { "min", INT64_C(60000000000) }, { "s", 1000000000 },
        { "ms", 1000000 }, { "us", 1000 }, { "ns", 1 },
};

const char *ioping_format(char *buf, size_t l, int64_t value, IopingUnit unit) {
        const Suffix *s = unit == IOPING_UNIT_SIZE ? size_suffixes :
                          unit == IOPING_UNIT_TIME ? time_suffixes : count_suffixes;
        int precision;

        /* The largest unit not above the value; the last has mul 1. */
        while (value < s->mul && s->mul > 1)
                s++;
        if (value % s->mul == 0)
                precision = 0;
        else if (value >= s->mul * 10)
                precision = 1;
        else
                precision = 2;
        snprintf(buf, l, "%.*f%s%s", precision, (double) value / (double) s->mul, *s->text ? " " : "", s->text);
        return buf;
}

/* Doubles to ioping's integers: it keeps them in long long, so fractions are cut off. */
static int64_t ioping_int(double v) {
        return isfinite(v) && v > 0 ? (int64_t) v : 0;
}

int ping_summary_print(FILE *f, const PingSummary *p) {
        char a[FORMAT_BUF_MAX], b[FORMAT_BUF_MAX], c[FORMAT_BUF_MAX], d[FORMAT_BUF_MAX], e[FORMAT_BUF_MAX];
        double busy = p->busy_ns, wall = (double) p->wall_usec * 1e3;

        fprintf(f, "%s requests completed in %s, %s read, %s iops, %s/s\n",
                ioping_format(a, sizeof a, (int64_t) p->requests, IOPING_UNIT_COUNT),
                ioping_format(b, sizeof b, ioping_int(busy), IOPING_UNIT_TIME),
                ioping_format(c, sizeof c, (int64_t) p->bytes, IOPING_UNIT_SIZE),
                ioping_format(d, sizeof d, ioping_int(busy > 0 ? (double) p->requests * 1e9 / busy : 0), IOPING_UNIT_COUNT),
                ioping_format(e, sizeof e, ioping_int(busy > 0 ? (double) p->bytes * 1e9 / busy : 0), IOPING_UNIT_SIZE));
        fprintf(f, "generated %s requests in %s, %s, %s iops, %s/s\n",
                ioping_format(a, sizeof a, (int64_t) p->requests, IOPING_UNIT_COUNT),
                ioping_format(b, sizeof b, ioping_int(wall), IOPING_UNIT_TIME),
                ioping_format(c, sizeof c, (int64_t) p->bytes, IOPING_UNIT_SIZE),
                ioping_format(d, sizeof d, ioping_int(wall > 0 ? (double) p->requests * 1e9 / wall : 0), IOPING_UNIT_COUNT),
                ioping_format(e, sizeof e, ioping_int(wall > 0 ? (double) p->bytes * 1e9 / wall : 0), IOPING_UNIT_SIZE));
        fprintf(f, "min/avg/max/mdev = %s / %s / %s / %s\n",
                ioping_format(a, sizeof a, ioping_int(p->min_ns), IOPING_UNIT_TIME),
                ioping_format(b, sizeof b, ioping_int(p->avg_ns), IOPING_UNIT_TIME),
                ioping_format(c, sizeof c, ioping_int(p->max_ns), IOPING_UNIT_TIME),
                ioping_format(d, sizeof d, ioping_int(p->mdev_ns), IOPING_UNIT_TIME));
        return ferror(f) ? -EIO : 0;
}

/* ---- iozone ---- */

const char *const iozone_workloads[_IOZONE_TEST_MAX] = {
        [IOZONE_WRITE] = "write",
        [IOZONE_REWRITE] = "rewrite",
        [IOZONE_READ] = "read",
        [IOZONE_REREAD] = "reread",
        [IOZONE_RANDREAD] = "randread",
        [IOZONE_RANDWRITE] = "randwrite",
        [IOZONE_BACKWARD_READ] = "backward-read",
        [IOZONE_STRIDE_READ] = "stride-read",
};

const char *const iozone_report_titles[_IOZONE_TEST_MAX] = {
        [IOZONE_WRITE] = "Writer report",
        [IOZONE_REWRITE] = "Re-writer report",
        [IOZONE_READ] = "Reader report",
        [IOZONE_REREAD] = "Re-Reader report",
        [IOZONE_RANDREAD] = "Random read report",
        [IOZONE_RANDWRITE] = "Random write report",
        [IOZONE_BACKWARD_READ] = "Backward read report",
        [IOZONE_STRIDE_READ] = "Stride read report",
};

/* The matrix's column heads, in two lines as iozone prints them. */
static const char *const iozone_head1[_IOZONE_TEST_MAX] = {
        "", "", "", "", "random", "random", "bkwd", "stride",
};
static const char *const iozone_head2[_IOZONE_TEST_MAX] = {
        "write", "rewrite", "read", "reread", "read", "write", "read", "read",
};

int iozone_test_of_workload(const char *workload) {
        for (int t = 0; workload && t < _IOZONE_TEST_MAX; t++)
                if (streq(workload, iozone_workloads[t]))
                        return t;
        return -1;
}

static int u64_cmp(const void *a, const void *b) {
        uint64_t x = *(const uint64_t *) a, y = *(const uint64_t *) b;
        return x < y ? -1 : x > y;
}

/* The distinct values of a field of the cells, ascending. */
static int iozone_axis(const IozoneCell *cells, size_t n, bool records, uint64_t **ret, size_t *ret_n) {
        uint64_t *v = calloc(MAX(n, (size_t) 1), sizeof(uint64_t));
        size_t k = 0;

        if (!v)
                return -ENOMEM;
        for (size_t i = 0; i < n; i++)
                v[k++] = records ? cells[i].record_size : cells[i].file_size;
        qsort(v, k, sizeof(uint64_t), u64_cmp);
        size_t m = 0;
        for (size_t i = 0; i < k; i++)
                if (m == 0 || v[m - 1] != v[i])
                        v[m++] = v[i];
        *ret = v;
        *ret_n = m;
        return 0;
}

/* The cell of (file size, record size, test), or NULL. */
static const IozoneCell *iozone_find(const IozoneCell *cells, size_t n, uint64_t size, uint64_t record, int test) {
        for (size_t i = 0; i < n; i++)
                if (cells[i].file_size == size && cells[i].record_size == record && cells[i].test == test &&
                    isfinite(cells[i].kb_per_s))
                        return &cells[i];
        return NULL;
}

int iozone_matrix_print(FILE *f, const IozoneCell *cells, size_t n) {
        _cleanup_free_ uint64_t *sizes = NULL, *records = NULL;
        size_t n_sizes, n_records;
        int r;

        r = iozone_axis(cells, n, false, &sizes, &n_sizes);
        if (r >= 0)
                r = iozone_axis(cells, n, true, &records, &n_records);
        if (r < 0)
                return r;
        for (size_t s = 0; s < n_sizes; s++) {
                char a[FORMAT_BUF_MAX];

                fprintf(f, "%sFile size %s (%" PRIu64 " kB), KB/s (1 KB = 1024 bytes):\n", s > 0 ? "\n" : "",
                        format_bytes(a, sizeof a, sizes[s]), sizes[s] / 1024);
                fprintf(f, "%24s", "");
                for (int t = 0; t < _IOZONE_TEST_MAX; t++)
                        fprintf(f, "%10s", iozone_head1[t]);
                fprintf(f, "\n%16s%8s", "kB", "reclen");
                for (int t = 0; t < _IOZONE_TEST_MAX; t++)
                        fprintf(f, "%10s", iozone_head2[t]);
                fputc('\n', f);
                for (size_t rec = 0; rec < n_records; rec++) {
                        bool any = false;

                        for (int t = 0; t < _IOZONE_TEST_MAX; t++)
                                any = any || iozone_find(cells, n, sizes[s], records[rec], t);
                        if (!any)
                                continue;
                        fprintf(f, "%16" PRIu64 "%8" PRIu64, sizes[s] / 1024, records[rec] / 1024);
                        for (int t = 0; t < _IOZONE_TEST_MAX; t++) {
                                const IozoneCell *c = iozone_find(cells, n, sizes[s], records[rec], t);
                                if (c)
                                        fprintf(f, "%10" PRIi64, (int64_t) c->kb_per_s);
                                else
                                        fprintf(f, "%10s", "-");
                        }
                        fputc('\n', f);
                }
        }
        return ferror(f) ? -EIO : 0;
}

int iozone_report_print(FILE *f, const char *preamble, const IozoneCell *cells, size_t n) {
        _cleanup_free_ uint64_t *sizes = NULL, *records = NULL;
        size_t n_sizes, n_records;
        int r;

        r = iozone_axis(cells, n, false, &sizes, &n_sizes);
        if (r >= 0)
                r = iozone_axis(cells, n, true, &records, &n_records);
        if (r < 0)
                return r;
        if (preamble)
                fputs(preamble, f);
        fprintf(f, "\tOutput is in kBytes/sec\n\nExcel output is below:\n");
        for (int t = 0; t < _IOZONE_TEST_MAX; t++) {
                bool any = false;

                for (size_t i = 0; i < n; i++)
                        any = any || (cells[i].test == t && isfinite(cells[i].kb_per_s));
                if (!any)
                        continue;
                fprintf(f, "\n\"%s\"\n", iozone_report_titles[t]);
                for (size_t rec = 0; rec < n_records; rec++)
                        fprintf(f, "\t\"%" PRIu64 "\"", records[rec] / 1024);
                fputc('\n', f);
                for (size_t s = 0; s < n_sizes; s++) {
                        fprintf(f, "\"%" PRIu64 "\"", sizes[s] / 1024);
                        for (size_t rec = 0; rec < n_records; rec++) {
                                const IozoneCell *c = iozone_find(cells, n, sizes[s], records[rec], t);
                                if (c)
                                        fprintf(f, "\t%" PRIi64, (int64_t) c->kb_per_s);
                                else
                                        fputc('\t', f);
                        }
                        fputc('\n', f);
                }
        }
        return ferror(f) ? -EIO : 0;
}

/* ---- bonnie++ ---- */

const char *const bonnie_csv_names[BONNIE_CSV_FIELDS] = {
        "format_version", "bonnie_version", "name", "concurrency", "seed", "file_size", "io_chunk_size",
        "seek_count", "seek_proc_count",
        "putc", "putc_cpu", "put_block", "put_block_cpu", "rewrite", "rewrite_cpu",
        "getc", "getc_cpu", "get_block", "get_block_cpu", "seeks", "seeks_cpu",
        "num_files", "max_size", "min_size", "file_chunk_size", "num_dirs",
        "seq_create", "seq_create_cpu", "seq_stat", "seq_stat_cpu", "seq_del", "seq_del_cpu",
        "ran_create", "ran_create_cpu", "ran_stat", "ran_stat_cpu", "ran_del", "ran_del_cpu",
        "putc_latency", "put_block_latency", "rewrite_latency", "getc_latency", "get_block_latency",
        "seeks_latency", "seq_create_latency", "seq_stat_latency", "seq_del_latency", "ran_create_latency",
        "ran_stat_latency", "ran_del_latency",
};

const char *bonnie_format_latency(char *buf, size_t l, double ns) {
        /* bonnie++'s thresholds (over 99.999999 s, over 0.099999 s), the figure cut to an integer;
         * divided from nanoseconds directly so that 5573000 ns is 5573us, not 5572. */
        if (!isfinite(ns) || ns <= 0)
                snprintf(buf, l, "%s", "");
        else if (ns > 99999999000.0)
                snprintf(buf, l, "%ds", (int) (ns / 1e9));
        else if (ns > 99999000.0)
                snprintf(buf, l, "%dms", (int) (ns / 1e6));
        else
                snprintf(buf, l, "%dus", (int) (ns / 1e3));
        return buf;
}

/* bonnie++'s sizes: a number of units, reduced while it divides by 1024 ("8M", "1G"; "4k"). */
static void bonnie_size(char *buf, size_t l, uint64_t n, const char *units) {
        size_t u = 0;

        while (n > 0 && n % 1024 == 0 && units[u + 1]) {
                n /= 1024;
                u++;
        }
        snprintf(buf, l, "%" PRIu64 "%c", n, units[u]);
        /* A unit of ' ' (bytes) is no unit. */
        buf[strcspn(buf, " ")] = '\0';
}

static int field_set(char **fields, size_t i, const char *fmt, ...) _printf_(3, 4);
static int field_set(char **fields, size_t i, const char *fmt, ...) {
        va_list ap;
        char *s;
        int r;

        va_start(ap, fmt);
        r = vasprintf(&s, fmt, ap);
        va_end(ap);
        if (r < 0)
                return -ENOMEM;
        free(fields[i]);
        fields[i] = s;
        return 0;
}

static int figure_set(char **fields, size_t rate_i, size_t lat_i, const BonnieFigure *g, bool seeks) {
        char a[FORMAT_BUF_MAX];
        int r = 0;

        if (!isfinite(g->rate))
                return 0;
        if (seeks)
                r = field_set(fields, rate_i, g->rate >= 1000.0 ? "%.0f" : "%.1f", g->rate);
        else
                r = field_set(fields, rate_i, "%" PRIi64, (int64_t) g->rate);
        if (r >= 0 && isfinite(g->cpu_pct))
                r = field_set(fields, rate_i + 1, "%d", (int) g->cpu_pct);
        if (r >= 0)
                r = field_set(fields, lat_i, "%s", bonnie_format_latency(a, sizeof a, g->latency_ns));
        return r;
}

static void fields_free(char **fields) {
        for (size_t i = 0; fields && fields[i]; i++)
                free(fields[i]);
        free(fields);
}

int bonnie_csv_fields(const BonnieResult *b, char ***ret) {
        char **fields = calloc(BONNIE_CSV_FIELDS + 1, sizeof(char *));
        char a[FORMAT_BUF_MAX];
        int r = 0;

        if (!fields)
                return -ENOMEM;
        for (size_t i = 0; i < BONNIE_CSV_FIELDS; i++)
                if (!(fields[i] = strdup(""))) {
                        fields_free(fields);
                        return -ENOMEM;
                }
        r = field_set(fields, 0, "1.98");
        if (r >= 0)
                r = field_set(fields, 1, "%s", b->version ?: "");
        if (r >= 0)
                r = field_set(fields, 2, "%s", b->name ?: "");
        if (r >= 0)
                r = field_set(fields, 3, "1");
        if (r >= 0 && b->file_size > 0) {
                /* bonnie++ counts the file in MiB. */
                bonnie_size(a, sizeof a, MAX((b->file_size + (UINT64_C(1) << 19)) >> 20, UINT64_C(1)), "MG");
                r = field_set(fields, 5, "%s", a);
                if (r >= 0 && b->chunk_size > 0 && b->chunk_size != 8192) {
                        bonnie_size(a, sizeof a, b->chunk_size, " km");
                        r = field_set(fields, 6, "%s", a);
                }
        }
        if (r >= 0 && b->seeks > 0)
                r = field_set(fields, 7, "%" PRIu64, b->seeks);
        if (r >= 0 && b->seek_procs > 0)
                r = field_set(fields, 8, "%" PRIu64, b->seek_procs);
        for (size_t t = 0; r >= 0 && t < _BONNIE_IO_MAX; t++)
                r = figure_set(fields, 9 + 2 * t, 38 + t, &b->io[t], t == BONNIE_SEEKS);
        if (r >= 0 && b->num_files > 0) {
                /* -n counts files in units of 1024. */
                r = field_set(fields, 21, "%" PRIu64, MAX((b->num_files + 512) / 1024, UINT64_C(1)));
                if (r >= 0 && b->max_size > 0) {
                        r = field_set(fields, 22, "%" PRIu64, b->max_size);
                        if (r >= 0 && b->min_size > 0)
                                r = field_set(fields, 23, "%" PRIu64, b->min_size);
                }
                if (r >= 0 && b->num_dirs > 1)
                        r = field_set(fields, 25, "%" PRIu64, b->num_dirs);
                for (size_t t = 0; r >= 0 && t < _BONNIE_FILE_MAX; t++)
                        r = figure_set(fields, 26 + 2 * t, 44 + t, &b->file[t], false);
        }
        if (r < 0) {
                fields_free(fields);
                return r;
        }
        *ret = fields;
        return 0;
}

int bonnie_csv_print(FILE *f, char *const *fields) {
        for (size_t i = 0; fields[i]; i++)
                text_fprintf(f, "%s%s", i > 0 ? "," : "", fields[i]);
        fputc('\n', f);
        return ferror(f) ? -EIO : 0;
}

/* bon_csv2txt is Perl and splits with split(','), which drops empty fields at the end: a field
 * list's length is up to its last non-empty field. */
static size_t split_length(const char *const *a, size_t n) {
        while (n > 0 && (!a[n - 1] || !*a[n - 1]))
                n--;
        return n;
}

static const char *at(const char *const *a, size_t n, size_t i) {
        return i < n && a[i] ? a[i] : "";
}

/* bon_csv2txt's convSpd(): K/sec as "4375k", "12.1m", " 123m", " 1.2g". */
static const char *conv_speed(char *buf, size_t l, const char *s) {
        double v;

        if (!*s) {
                buf[0] = '\0';
                return buf;
        }
        v = strtod(s, NULL);
        if (v < 10000)
                snprintf(buf, l, "%4dk", (int) v);
        else if (v / 1024 < 1000) {
                double m = v / 1024;
                if (m < 100)
                        snprintf(buf, l, "%4.1fm", m);
                else
                        snprintf(buf, l, "%4dm", (int) (m + 0.5));
        } else
                snprintf(buf, l, "%4.1fg", v / 1024 / 1024);
        return buf;
}

/* The row head: the name, cut so that " SIZE" ends in column 19. */
static void row_head(char *buf, size_t l, const char *name, const char *size) {
        size_t ls = strlen(size);

        if (ls < 18) {
                char padded[256];
                snprintf(padded, sizeof padded, "%s                   ", name);
                padded[MIN(18 - ls, sizeof padded - 1)] = '\0';
                snprintf(buf, l, "%s %s", padded, size);
        } else
                snprintf(buf, l, "%s", size);
}

/* One row as bon_csv2txt prints it: row = {name, size, 12 values, latencies...} of length n. */
static void text_row(FILE *f, const char *const *row, size_t n, bool speeds) {
        char head[512], s[5][FORMAT_BUF_MAX];
        static const size_t speed_at[5] = { 2, 4, 6, 8, 10 };
        const char *v[14];

        n = split_length(row, n);
        for (size_t i = 0; i < 14; i++)
                v[i] = at(row, n, i);
        for (size_t k = 0; speeds && k < 5; k++)
                v[speed_at[k]] = conv_speed(s[k], sizeof s[k], v[speed_at[k]]);
        row_head(head, sizeof head, v[0], v[1]);
        /* The fields came from the machine's name and figures: escaped (text.h). */
        text_fprintf(f, "%19s %5s %3s %5s %3s %5s %3s %5s %3s %5s %3s %5s %3s\n", head, v[2], v[3], v[4], v[5],
                     v[6], v[7], v[8], v[9], v[10], v[11], v[12], v[13]);
        if (n > 14)
                text_fprintf(f, "Latency           %9s %9s %9s %9s %9s %9s\n", at(row, n, 14), at(row, n, 15),
                             at(row, n, 16), at(row, n, 17), at(row, n, 18), at(row, n, 19));
}

int bonnie_text_print(FILE *f, char *const *fields) {
        const char *const *a = (const char *const *) fields;
        size_t n = 0;
        const char *io[20], *file[20];
        bool have_io = false, have_file = false;
        char size[256], files[256];

        while (fields[n])
                n++;
        n = split_length(a, n);
        if (n == 0 || !streq(a[0], "1.98"))
                return -EINVAL;

        /* Fields 5..8 joined with ':', the trailing colons cut: "8M::8192:5". */
        snprintf(size, sizeof size, "%s:%s:%s:%s", at(a, n, 5), at(a, n, 6), at(a, n, 7), at(a, n, 8));
        for (size_t l = strlen(size); l > 0 && size[l - 1] == ':'; l--)
                size[l - 1] = '\0';
        io[0] = at(a, n, 2);
        io[1] = size;
        have_io = *size;
        for (size_t i = 9; i <= 20; i++) {
                io[i - 7] = at(a, n, i);
                have_io = have_io || *io[i - 7];
        }
        for (size_t i = 0; i < 6; i++)
                io[14 + i] = n > 40 ? at(a, n, 38 + i) : "";

        /* num_files[:max][:min][/field 24][:field 25] */
        snprintf(files, sizeof files, "%s%s%s%s%s%s%s%s%s", at(a, n, 21), *at(a, n, 22) ? ":" : "", at(a, n, 22),
                 *at(a, n, 23) ? ":" : "", at(a, n, 23), *at(a, n, 24) ? "/" : "", at(a, n, 24),
                 *at(a, n, 25) ? ":" : "", at(a, n, 25));
        file[0] = at(a, n, 2);
        file[1] = files;
        have_file = *files;
        for (size_t i = 26; i <= 37; i++) {
                file[i - 24] = at(a, n, i);
                have_file = have_file || *file[i - 24];
        }
        for (size_t i = 0; i < 6; i++)
                file[14 + i] = n > 44 ? at(a, n, 44 + i) : "";

        if (have_io) {
                fprintf(f, "Version %9s   ------Sequential Output------ --Sequential Input- --Random-\n", "2.00a");
                fprintf(f, "                    -Per Chr- --Block-- -Rewrite- -Per Chr- --Block-- --Seeks--\n");
                fprintf(f, "Name:Size etc        /sec %%CP  /sec %%CP  /sec %%CP  /sec %%CP  /sec %%CP  /sec %%CP\n");
                text_row(f, io, 20, true);
        }
        if (have_file) {
                fprintf(f, "                    ------Sequential Create------ --------Random Create--------\n");
                fprintf(f, "                    -Create-- --Read--- -Delete-- -Create-- --Read--- -Delete--\n");
                fprintf(f, "      files:max:min  /sec %%CP  /sec %%CP  /sec %%CP  /sec %%CP  /sec %%CP  /sec %%CP\n");
                text_row(f, file, 20, false);
        }
        return ferror(f) ? -EIO : 0;
}
