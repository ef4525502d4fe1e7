/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The figures of a job in the shapes the anchors print them, so a number benchd measured can be put
 * next to one from the tool people know: GNU dd's closing line, ioping's summary, iozone's
 * record-size matrix and its -R (Excel) report, and the bonnie++ 2.00 CSV line with the table
 * bon_csv2txt renders from it. Pure: the caller (verbs-views.c) turns runs into the plain numbers
 * below; everything here only formats them, writing into caller buffers or a FILE, and is tested
 * with exact strings (test-client-format.c).
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Mean and sample standard deviation (n - 1; 0 for one value) of the finite values of v; returns
 * how many there were (0: both NAN). */
size_t stats_mean_stddev(const double *v, size_t n, double *ret_mean, double *ret_stddev);

/* ---- GNU dd ---- */

/* A byte count as dd abbreviates it: decimal ("268 MB", "9.9 kB") or binary ("256 MiB"); one
 * decimal below 10, rounded to nearest with ties to even. Empty when bytes is below the base (dd
 * then shows no abbreviation). */
const char *dd_format_size(char *buf, size_t l, uint64_t bytes, bool binary);
/* A rate as dd shows it: "218 MB/s", "66.0 MB/s", "3.6 GB/s" (decimal; one decimal below 100). */
const char *dd_format_rate(char *buf, size_t l, double bytes_per_sec);
/* dd's closing line: "268435456 bytes (268 MB, 256 MiB) copied, 1.23 s, 218 MB/s" (seconds as %g,
 * "1 byte copied, ..." and the shorter forms for small counts, as dd prints them). */
const char *dd_format_summary(char *buf, size_t l, uint64_t bytes, uint64_t usec);

/* ---- ioping ---- */

typedef enum IopingUnit {
        IOPING_UNIT_COUNT,      /* "3.23 k" */
        IOPING_UNIT_SIZE,       /* "36 KiB", "12.6 MiB" */
        IOPING_UNIT_TIME,       /* "159.6 us", "2.79 ms" (from nanoseconds) */
} IopingUnit;

/* ioping's number with a suffix: the largest unit not above the value, no decimals when exact,
 * one from ten units up, else two. */
const char *ioping_format(char *buf, size_t l, int64_t value, IopingUnit unit);

typedef struct PingSummary {
        uint64_t requests;      /* completed */
        uint64_t bytes;         /* read by them */
        double busy_ns;         /* sum of their latencies: ioping's "completed in" */
        uint64_t wall_usec;     /* the whole run: ioping's "generated ... in" */
        double min_ns, avg_ns, max_ns, mdev_ns;
} PingSummary;

/* ioping's statistics block, three lines:
 *   "9 requests completed in 2.79 ms, 36 KiB read, 3.23 k iops, 12.6 MiB/s"
 *   "generated 9 requests in 9.00 s, 36 KiB, 1 iops, 4.00 KiB/s"
 *   "min/avg/max/mdev = 159.6 us / 309.7 us / 437.8 us / 95.5 us" */
int ping_summary_print(FILE *f, const PingSummary *p);

/* ---- iozone ---- */

enum {
        IOZONE_WRITE,
        IOZONE_REWRITE,
        IOZONE_READ,
        IOZONE_REREAD,
        IOZONE_RANDREAD,
        IOZONE_RANDWRITE,
        IOZONE_BACKWARD_READ,
        IOZONE_STRIDE_READ,
        _IOZONE_TEST_MAX,
};

/* benchd's workload of iozone test t ("write", ..., "stride-read"), and iozone's report title
 * ("Writer report", ..., "Stride read report"). */
extern const char *const iozone_workloads[_IOZONE_TEST_MAX];
extern const char *const iozone_report_titles[_IOZONE_TEST_MAX];
/* The test of a benchd workload, or -1. */
int iozone_test_of_workload(const char *workload);

typedef struct IozoneCell {
        uint64_t file_size;     /* bytes */
        uint64_t record_size;   /* bytes */
        int test;               /* IOZONE_* */
        double kb_per_s;        /* 1024 bytes per second; printed truncated to an integer */
} IozoneCell;

/* One matrix per file size, rows the record sizes, columns iozone's tests in its order, "-" where
 * nothing was measured:
 *   "File size 64 MiB (65536 kB), KB/s (1 KB = 1024 bytes):"
 *   (a two-line header "random random bkwd stride" / "kB reclen write rewrite ...")
 *   "           65536       4    123456 ..." */
int iozone_matrix_print(FILE *f, const IozoneCell *cells, size_t n);
/* iozone -R's report, tab separated: a preamble ("Output is in kBytes/sec", "Excel output is
 * below:"), then per test that has a figure a block: its quoted title, a row of the quoted record
 * sizes in kB, one row per file size (quoted, in kB) with the values, an empty field where nothing
 * was measured; blocks separated by an empty line. */
int iozone_report_print(FILE *f, const char *preamble, const IozoneCell *cells, size_t n);

/* ---- bonnie++ ---- */

enum {
        BONNIE_PUTC,            /* Sequential Output Per Chr */
        BONNIE_PUT_BLOCK,       /* Sequential Output Block */
        BONNIE_REWRITE,
        BONNIE_GETC,            /* Sequential Input Per Chr */
        BONNIE_GET_BLOCK,
        BONNIE_SEEKS,
        _BONNIE_IO_MAX,
};

enum {
        BONNIE_SEQ_CREATE,
        BONNIE_SEQ_STAT,
        BONNIE_SEQ_DEL,
        BONNIE_RAN_CREATE,
        BONNIE_RAN_STAT,
        BONNIE_RAN_DEL,
        _BONNIE_FILE_MAX,
};

/* One test's figures; NAN (rate) leaves the test blank, as bonnie++ leaves a skipped one. */
typedef struct BonnieFigure {
        double rate;            /* K/sec (1024 B/s) for the data tests, seeks/s, files/s */
        double cpu_pct;         /* %CP, percent of one CPU; NAN: blank */
        double latency_ns;      /* the slowest operation; NAN or 0: blank */
        bool cache;             /* a cache served it, not the device: +++++ and +++, as bonnie++ marks
                                 * a test it could not time */
} BonnieFigure;

typedef struct BonnieResult {
        const char *version;    /* the second field (bonnie++ writes its own version) */
        const char *name;       /* the machine */
        uint64_t file_size;     /* bytes of the data tests' file; 0: no data tests */
        uint64_t chunk_size;    /* bytes per write; 8192 (bonnie++'s default) leaves it blank */
        uint64_t seeks;         /* seeks done; 0: blank */
        uint64_t seek_procs;    /* parallel seekers; 0: blank */
        BonnieFigure io[_BONNIE_IO_MAX];
        uint64_t num_files;     /* files of the metadata tests; 0: no metadata tests */
        uint64_t max_size, min_size, num_dirs;
        BonnieFigure file[_BONNIE_FILE_MAX];
} BonnieResult;

/* The 50 fields of bonnie++ 2.00's CSV line (format_version 1.98), as bon_csv2txt and
 * bon_csv2html read them; *ret is a NULL-terminated array of malloc'd strings. The names are
 * bonnie++'s header's, plus seek_count and seek_proc_count for the two fields bonnie++ 2.00 writes
 * after io_chunk_size without naming them, and with file_chunk_size before num_dirs, in the order
 * bonnie++ writes them. */
#define BONNIE_CSV_FIELDS 50
extern const char *const bonnie_csv_names[BONNIE_CSV_FIELDS];
int bonnie_csv_fields(const BonnieResult *b, char ***ret);
/* The fields joined with ',' and a newline. */
int bonnie_csv_print(FILE *f, char *const *fields);
/* The table bon_csv2txt prints from that line, byte for byte. */
int bonnie_text_print(FILE *f, char *const *fields);
/* bonnie++'s latency text: "2038us", "45ms", "120s"; "" for none. */
const char *bonnie_format_latency(char *buf, size_t l, double ns);
