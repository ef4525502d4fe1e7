/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Tests of the worker judge (jobs/worker-judge.c): each row is what a worker writes on its socket
 * (frames built with the proto encoders, or raw bytes), cut into frames by a ProtoReader as
 * supervisor.c does, judged frame by frame, and then how the process ended. Out come the verdict
 * of every frame, one letter each, and the step's WorkerOutcome: status, error, unsafe flag, the
 * histogram kept. The rows are the scenarios fake workers once played in test-faults.sh (garbage,
 * wrong versions, frames out of order or after RESULT, floods, lies, UTF-8 text), and the ways a
 * process ends (stop requested, our failure, the worker's ERROR, RESULT, exit status, signal, 127
 * before HELLO); test-faults.sh keeps those that need a real process.
 *
 * Verdict letters: H HELLO accepted (send the SPEC), P PHASE, S SAMPLE, R PHASE_RESULT, Q
 * POSITION_RESULT, L LOG, F FS_INFO, Y STEADY_STATE, D the first LOG beyond the bound, . accepted with
 * nothing to pass on, X violation. A letter may be followed by a count ("S16" is 16 S).
 */
#include <check.h>
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "jobs/worker-judge.h"
#include "shared/util.h"

#define SPAWN_RT UINT64_C(1700000000000000)

#define SPEC_WRITE "workload=write\nsize=8M\nblock_size=32K"
#define SPEC_META "workload=metadata\nfile_count=100"
#define SPEC_POSITION "workload=position\nsize=1M\nblock_size=32K\npositions=8"
#define SPEC_STEADY "workload=write\nsize=8M\nblock_size=32K\nruntime_ms=2000\nsample_ms=100\nsteady_state=bw:5\n" \
        "steady_state_window_ms=200"
#define SIZE (UINT64_C(8) << 20)
#define BS UINT64_C(32768)
#define IOS (SIZE / BS)

/* ---- building what a worker writes ---- */

typedef struct Stream {
        uint8_t *buf;
        size_t len;
        uint64_t elapsed_ms;    /* the clock while it is judged */
} Stream;

static void put(Stream *s, const void *p, size_t n) {
        s->buf = realloc(s->buf, s->len + n);
        ck_assert_ptr_nonnull(s->buf);
        memcpy(s->buf + s->len, p, n);
        s->len += n;
}

/* r: the encoder's return; frame and n are read after it ran. */
static void put_encoded(Stream *s, int r, uint8_t **frame, size_t *n) {
        ck_assert_int_eq(r, 0);
        put(s, *frame, *n);
        free(*frame);
}

/* A frame header as the worker writes it: magic, version, type, length, reserved. */
static void put_header(Stream *s, uint16_t version, uint16_t type, uint32_t length, uint32_t reserved) {
        uint8_t h[PROTO_HEADER_SIZE];
        uint32_t magic = PROTO_MAGIC;

        /* Little-endian, as on the wire (the tests run on little-endian machines, as benchd does). */
        memcpy(h, &magic, 4);
        memcpy(h + 4, &version, 2);
        memcpy(h + 6, &type, 2);
        memcpy(h + 8, &length, 4);
        memcpy(h + 12, &reserved, 4);
        put(s, h, sizeof(h));
}

static void hello_v(Stream *s, uint32_t version) {
        uint8_t *f;
        size_t n;
        put_encoded(s, proto_encode_hello(&(ProtoHello) { .version = version, .pid = 4242 }, &f, &n), &f, &n);
}

static void hello(Stream *s) {
        hello_v(s, PROTO_VERSION);
}

static void text(Stream *s, ProtoType type, uint32_t level, const char *t) {
        uint8_t *f;
        size_t n;
        put_encoded(s, proto_encode_text(type, &(ProtoText) { .level = level, .text = (char *) t }, &f, &n), &f, &n);
}

static void phase(Stream *s, const char *p) {
        text(s, PROTO_PHASE, 0, p);
}

static void sample_frame(Stream *s, const ProtoSample *m) {
        uint8_t *f;
        size_t n;
        put_encoded(s, proto_encode_sample(m, &f, &n), &f, &n);
}

/* A write sample: bytes in ios I/Os of BS during interval_us ending at t_ms. */
static ProtoSample write_sample(uint64_t t_ms, uint64_t interval_us, uint64_t bytes, uint64_t ios, double progress) {
        return (ProtoSample) {
                .t_ms = t_ms, .interval_us = interval_us, .bytes_written = bytes, .ios_written = ios,
                .lat_mean_ns = ios ? 50000 : 0, .lat_p50_ns = ios ? 40063 : 0, .lat_p99_ns = ios ? 89855 : 0,
                .lat_max_ns = ios ? 120063 : 0,
                .iowait_pct = 12.5, .cpu_user_pct = 1.5, .cpu_sys_pct = 3.25, .dev_util_pct = -1, .dev_queue = -1,
                .progress = progress,
        };
}

static void sample(Stream *s, uint64_t t_ms, uint64_t interval_us, uint64_t bytes, uint64_t ios, double progress) {
        ProtoSample m = write_sample(t_ms, interval_us, bytes, ios, progress);
        sample_frame(s, &m);
}

/* The honest step's 256 latencies, each at the midpoint of its bucket (as fake-worker.py has them),
 * so the percentiles histogram_percentile() gives are these values. */
static ProtoHistogramEntry honest_entries[] = { { 1130, 1 }, { 1180, 199 }, { 1327, 50 }, { 1386, 6 } };

static void histogram(Stream *s, ProtoHistogramEntry *e, uint32_t n) {
        uint8_t *f;
        size_t len;
        put_encoded(s, proto_encode_histogram(&(ProtoHistogram) { .n_entries = n, .entries = e }, &f, &len), &f, &len);
}

static ProtoResult honest_result(uint64_t duration_us) {
        return (ProtoResult) {
                .started_usec = SPAWN_RT + 100 * USEC_PER_MSEC, .duration_usec = duration_us,
                .bytes_written = SIZE, .ios_written = IOS,
                .lat_min_ns = 30015, .lat_mean_ns = 51623, .lat_stddev_ns = 22382, .lat_p50_ns = 40063,
                .lat_p90_ns = 89855, .lat_p95_ns = 89855, .lat_p99_ns = 120063, .lat_p999_ns = 120063,
                .lat_p9999_ns = 120063, .lat_max_ns = 120063,
                .iowait_pct = 12.5, .cpu_user_pct = 1.5, .cpu_sys_pct = 3.25, .dev_util_pct = -1,
                .device = (char *) "",
        };
}

static void result_frame(Stream *s, const ProtoResult *m) {
        uint8_t *f;
        size_t n;
        put_encoded(s, proto_encode_result(m, &f, &n), &f, &n);
}

static void error_frame(Stream *s, int32_t error, const char *message) {
        uint8_t *f;
        size_t n;
        put_encoded(s, proto_encode_error(&(ProtoError) { .error = error, .message = (char *) message }, &f, &n),
                    &f, &n);
}

static void phase_result(Stream *s, const char *name) {
        ProtoPhaseResult p = { .ops = 50, .duration_usec = 1000, .lat_min_ns = 1000, .lat_mean_ns = 2000,
                               .lat_p50_ns = 1900, .lat_p99_ns = 5000, .lat_max_ns = 9000 };
        uint8_t *f;
        size_t n;

        snprintf(p.name, sizeof(p.name), "%s", name);
        put_encoded(s, proto_encode_phase_result(&p, &f, &n), &f, &n);
}

/* Position index's 1 MiB at offset_mib, read in 10 ms. */
static void position_result(Stream *s, uint32_t index, uint64_t offset_mib) {
        ProtoPositionResult p = { .index = index, .offset_bytes = offset_mib << 20, .bytes = 1 << 20,
                                  .duration_usec = 10000, .lat_mean_ns = 300000, .lat_max_ns = 900000 };
        uint8_t *f;
        size_t n;

        put_encoded(s, proto_encode_position_result(&p, &f, &n), &f, &n);
}

static void w_positions(Stream *s) {
        hello(s);
        phase(s, "measure");
        position_result(s, 0, 0);
        position_result(s, 1, 1);
        position_result(s, 3, 3);
}

static void w_position_twice(Stream *s) {
        hello(s);
        phase(s, "measure");
        position_result(s, 0, 0);
        position_result(s, 1, 1);
        position_result(s, 1, 2);
}

static void w_position_overlap(Stream *s) {
        hello(s);
        phase(s, "measure");
        position_result(s, 0, 4);
        position_result(s, 1, 4);
}

static void steady_frame(Stream *s, uint64_t t_ms) {
        uint8_t *f;
        size_t n;

        put_encoded(s, proto_encode_steady_state(&(ProtoSteadyState) { .t_ms = t_ms }, &f, &n), &f, &n);
}

/* Two samples fill the window of SPEC_STEADY; steady at the second. */
static void w_steady(Stream *s) {
        hello(s);
        phase(s, "measure");
        sample(s, 100, 100000, SIZE / 2, IOS / 2, 0.05);
        sample(s, 200, 100000, SIZE / 2, IOS / 2, 0.1);
        steady_frame(s, 200);
}

static void w_steady_early(Stream *s) {
        hello(s);
        phase(s, "measure");
        sample(s, 100, 100000, SIZE / 2, IOS / 2, 0.05);
        steady_frame(s, 100);
}

static void w_position_daemon_frame(Stream *s) {
        hello(s);
        phase(s, "measure");
        put_header(s, PROTO_VERSION, 10, 0, 0);
}

/* The honest 8M write up to its histogram: PHASE measure, two SAMPLEs, PHASE cleanup, HISTOGRAM. */
static void honest_until_histogram(Stream *s) {
        hello(s);
        phase(s, "measure");
        sample(s, 50, 50000, SIZE / 2, IOS / 2, 0.5);
        sample(s, 100, 50000, SIZE / 2, IOS / 2, 1.0);
        phase(s, "cleanup");
        histogram(s, honest_entries, ELEMENTSOF(honest_entries));
}

/* ---- the rows' streams ---- */

static void w_nothing(Stream *s) {
}

static void w_honest(Stream *s) {
        ProtoResult r = honest_result(100 * USEC_PER_MSEC);

        honest_until_histogram(s);
        result_frame(s, &r);
}

static void w_hello_only(Stream *s) {
        hello(s);
}

static void w_garbage(Stream *s) {
        uint32_t x = 12345;

        /* What `head -c 65536 /dev/urandom` writes, deterministically. */
        for (size_t i = 0; i < 65536 / 4; i++) {
                x = x * 1103515245u + 12345u;
                put(s, &x, 4);
        }
}

static void w_oversize(Stream *s) {
        hello(s);
        put_header(s, PROTO_VERSION, PROTO_SAMPLE, 0x7fffffff, 0);
}

static void w_badtype(Stream *s) {
        hello(s);
        put_header(s, PROTO_VERSION, 0x63, 4, 0);
        put(s, "abcd", 4);
}

static void w_reserved(Stream *s) {
        hello(s);
        put_header(s, PROTO_VERSION, PROTO_PHASE, 0, 1);
}

static void w_other_version(Stream *s) {
        hello(s);
        put_header(s, PROTO_VERSION + 1, PROTO_PHASE, 0, 0);
}

static void w_hello_v2(Stream *s) {
        hello_v(s, PROTO_VERSION + 1);
}

static void w_hello_short(Stream *s) {
        put_header(s, PROTO_VERSION, PROTO_HELLO, 4, 0);
        put(s, "\1\0\0\0", 4);
}

static void w_sample_first(Stream *s) {
        sample(s, 50, 50000, BS, 1, 0.1);
}

static void w_spec_from_worker(Stream *s) {
        ProtoSpec spec = { .job_id = 1, .text = (char *) "workload=write" };
        uint8_t *f;
        size_t n;

        hello(s);
        put_encoded(s, proto_encode_spec(&spec, &f, &n), &f, &n);
}

static void w_after_result(Stream *s) {
        w_honest(s);
        sample(s, 150, 50000, 0, 0, 1.0);
}

static void w_after_error(Stream *s) {
        hello(s);
        error_frame(s, EIO, "the disk went away");
        text(s, PROTO_LOG, 6, "one more thing");
}

static void w_nan(Stream *s) {
        ProtoSample m = write_sample(1, 1000, BS, 1, 0.1);

        m.iowait_pct = NAN;
        hello(s);
        phase(s, "measure");
        sample_frame(s, &m);
}

static void w_flood(Stream *s) {
        hello(s);
        phase(s, "measure");
        for (uint64_t i = 0; i < 200; i++)
                sample(s, i + 1, 1000, BS, 1, 0.1);
}

static void w_backwards(Stream *s) {
        hello(s);
        phase(s, "measure");
        sample(s, 50, 40000, BS, 1, 0.1);
        sample(s, 40, 1000, BS, 1, 0.2);
}

static void w_phase_order(Stream *s) {
        hello(s);
        phase(s, "measure");
        phase(s, "ramp");
}

static void w_phase_twice(Stream *s) {
        hello(s);
        phase(s, "measure");
        phase_result(s, "create-seq");
        phase_result(s, "create-seq");
}

static void w_phase_flood(Stream *s) {
        hello(s);
        phase(s, "measure");
        for (char c = 'a'; c < 'a' + 17; c++) {
                char name[] = { 'p', 'h', 'a', 's', 'e', '-', c, 0 };
                phase_result(s, name);
        }
}

/* One honest SAMPLE, then the lie. */
static void honest_start(Stream *s) {
        hello(s);
        phase(s, "measure");
        sample(s, 20, 20000, 4 * BS, 4, 0.1);
}

static void w_huge(Stream *s) {
        honest_start(s);
        sample(s, 120, 100000, UINT64_C(1) << 63, UINT64_C(1) << 48, 0.2);
}

static void w_rate(Stream *s) {
        uint64_t blocks = UINT64_C(1000000000000000) / BS;

        honest_start(s);
        sample(s, 120, 100000, blocks * BS, blocks, 0.2);
}

static void w_oversum(Stream *s) {
        honest_start(s);
        sample(s, 120, 100000, 2 * SIZE, 2 * IOS, 0.2);
}

static void w_future(Stream *s) {
        honest_start(s);
        sample(s, 3600 * 1000, 100000, BS, 1, 0.2);
}

static void w_cpu(Stream *s) {
        ProtoSample m = write_sample(120, 100000, BS, 1, 0.2);

        honest_start(s);
        m.iowait_pct = 40;
        m.cpu_user_pct = 50;
        m.cpu_sys_pct = 20;
        sample_frame(s, &m);
}

static void w_hist_short(Stream *s) {
        ProtoHistogramEntry e[ELEMENTSOF(honest_entries)];
        ProtoResult r = honest_result(100 * USEC_PER_MSEC);

        memcpy(e, honest_entries, sizeof(e));
        e[1].count--;
        hello(s);
        phase(s, "measure");
        sample(s, 50, 50000, SIZE / 2, IOS / 2, 0.5);
        sample(s, 100, 50000, SIZE / 2, IOS / 2, 1.0);
        phase(s, "cleanup");
        histogram(s, e, ELEMENTSOF(e));
        result_frame(s, &r);
}

static void w_hist_huge(Stream *s) {
        ProtoHistogramEntry e[ELEMENTSOF(honest_entries)];

        memcpy(e, honest_entries, sizeof(e));
        e[1].count = UINT64_C(1) << 63;
        hello(s);
        phase(s, "measure");
        sample(s, 50, 50000, SIZE / 2, IOS / 2, 0.5);
        histogram(s, e, ELEMENTSOF(e));
}

static void w_result_sum(Stream *s) {
        ProtoResult r = honest_result(100 * USEC_PER_MSEC);

        r.bytes_written += BS;
        r.ios_written++;
        honest_until_histogram(s);
        result_frame(s, &r);
}

static void w_result_p99(Stream *s) {
        ProtoResult r = honest_result(100 * USEC_PER_MSEC);

        r.lat_p99_ns = 89855;
        honest_until_histogram(s);
        result_frame(s, &r);
}

static void w_result_long(Stream *s) {
        ProtoResult r = honest_result(3600 * USEC_PER_SEC);

        honest_until_histogram(s);
        result_frame(s, &r);
}

/* A filesystem step: the ext4 its FS_SETUP asked for, made on one scratch device. */
static ProtoFsMember fs_member = { .path = (char *) "/dev/loop3", .dev = 0x703, .flags = PROTO_GUARD_SCRATCH };
static const ProtoFsSetup fs_setup = {
        .stage = PROTO_FS_STAGE_MAKE, .fs_type = (char *) "ext4", .layout = (char *) "single",
        .mkfs_options = (char *) "", .mount_options = (char *) "", .expect_uuid = (char *) "",
        .n_members = 1, .members = &fs_member,
};

static void fs_info(Stream *s, const char *fs_type) {
        ProtoFsInfo i = {
                .fs_type = (char *) fs_type, .uuid = (char *) "0b6a1d4c-3c1e-4a55-9a3e-1f2d3c4b5a69",
                .mkfs_command = (char *) "mkfs.ext4 /dev/loop3", .mkfs_usec = 900000,
                .mkfs_output = (char *) "Creating filesystem\n", .mount_options = (char *) "rw,relatime",
                .size_bytes = 1 << 30, .used_bytes = 1 << 20, .avail_bytes = 1 << 29, .inodes = 100, .inodes_free = 90,
        };
        uint8_t *f;
        size_t n;

        put_encoded(s, proto_encode_fs_info(&i, &f, &n), &f, &n);
}

static void w_fs_honest(Stream *s) {
        ProtoResult r = honest_result(100 * USEC_PER_MSEC);
        Stream t = {};

        /* The honest write, with FS_INFO right after HELLO. */
        honest_until_histogram(&t);
        hello(s);
        fs_info(s, "ext4");
        put(s, t.buf + PROTO_HEADER_SIZE + 8, t.len - PROTO_HEADER_SIZE - 8);
        free(t.buf);
        result_frame(s, &r);
}

/* An md entry's last step (md_release): its members released once the array is stopped. */
static ProtoFsMember fs_md_members[] = {
        { .path = (char *) "/dev/loop3", .dev = 0x703, .flags = PROTO_GUARD_SCRATCH },
        { .path = (char *) "/dev/loop4", .dev = 0x704, .flags = PROTO_GUARD_SCRATCH },
};
static const ProtoFsSetup fs_setup_md = {
        .stage = PROTO_FS_STAGE_MAKE, .fs_type = (char *) "ext4", .layout = (char *) "md-raid1",
        .mkfs_options = (char *) "", .mount_options = (char *) "", .expect_uuid = (char *) "",
        .n_members = 2, .members = fs_md_members, .md_name = (char *) "benchd-4-0", .md_release = 1,
};

/* An LVM entry's step (not its last): its group deactivated at the end, no md release asked. */
static const ProtoFsSetup fs_setup_lvm = {
        .stage = PROTO_FS_STAGE_MAKE, .fs_type = (char *) "ext4", .layout = (char *) "lvm",
        .mkfs_options = (char *) "", .mount_options = (char *) "", .expect_uuid = (char *) "",
        .n_members = 2, .members = fs_md_members, .md_name = (char *) "benchd-4-0",
};

static void fs_released(Stream *s) {
        uint8_t *f;
        size_t n;

        put_encoded(s, proto_encode_fs_released("[{\"command\":\"mdadm --zero-superblock /dev/loop3 /dev/loop4\","
                                                "\"usec\":5000,\"exit\":0,\"output\":\"\"}]", &f, &n), &f, &n);
}

static void w_md_released(Stream *s) {
        ProtoResult r = honest_result(100 * USEC_PER_MSEC);

        hello(s);
        fs_info(s, "ext4");
        phase(s, "measure");
        sample(s, 50, 50000, SIZE / 2, IOS / 2, 0.5);
        sample(s, 100, 50000, SIZE / 2, IOS / 2, 1.0);
        phase(s, "cleanup");
        fs_released(s);
        histogram(s, honest_entries, ELEMENTSOF(honest_entries));
        result_frame(s, &r);
}

static void w_released_first(Stream *s) {
        hello(s);
        fs_released(s);
}

static void w_released_twice(Stream *s) {
        hello(s);
        fs_info(s, "ext4");
        fs_released(s);
        fs_released(s);
}

static void w_fs_info_unasked(Stream *s) {
        hello(s);
        fs_info(s, "ext4");
}

static void w_fs_twice(Stream *s) {
        hello(s);
        fs_info(s, "ext4");
        fs_info(s, "ext4");
}

static void w_fs_other(Stream *s) {
        hello(s);
        fs_info(s, "xfs");
}

static void w_fs_failed(Stream *s) {
        hello(s);
        error_frame(s, EINVAL, "mkfs.ext4 failed (exit 1): mke2fs: invalid block size - 3000");
}

#define UTF8_TEXT "Ger\xc3\xa4t nicht bereit: \xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e\x01\xff"
#define UTF8_KEPT "Ger\xc3\xa4t nicht bereit: \xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e??"

static void w_utf8(Stream *s) {
        hello(s);
        phase(s, "measure");
        text(s, PROTO_LOG, 3, UTF8_TEXT);
        error_frame(s, EIO, UTF8_TEXT);
}

static void w_unsafe(Stream *s) {
        hello(s);
        error_frame(s, PROTO_ERROR_UNSAFE, "/dev/loop7 is mounted on /mnt; unmount it first");
}

static void w_error_bare(Stream *s) {
        hello(s);
        error_frame(s, EIO, "");
}

static void w_logs(Stream *s) {
        hello(s);
        for (unsigned i = 0; i < WORKER_LOG_MAX + 2; i++)
                text(s, PROTO_LOG, 6, "chatty");
}

static void w_cut(Stream *s) {
        Stream t = {};

        hello(s);
        sample(&t, 50, 50000, BS, 1, 0.1);
        put(s, t.buf, t.len / 2);
        free(t.buf);
}

/* ---- the table ---- */

#define EXITED(n) .exited = true, .status = (n)
#define KILLED(sig) .exited = false, .status = (sig)

typedef struct Row {
        const char *name;
        const char *spec;
        void (*stream)(Stream *s);
        uint64_t elapsed_ms;            /* 0: 10 s */
        WorkerExit exit;
        bool timed_out;                 /* our timeout fired first, before the worker wrote anything */
        const char *verdicts;
        WorkerStatus status;
        const char *error;              /* contained in the outcome's error; NULL: none */
        bool unsafe;
        size_t n_histogram;
        bool signalled;
        bool fs;                        /* a filesystem step: FS_SETUP (fs_setup) was sent */
        bool fs_md;                     /* ... fs_setup_md, an md entry's last step */
        bool fs_lvm;                    /* ... fs_setup_lvm, an LVM entry's step */
} Row;

static const Row rows[] = {
        /* How it ends, from what it said and how the process went. A RESULT the histogram agreed
         * with keeps the histogram whatever follows, but for a violation. */
        { "honest", SPEC_WRITE, w_honest, .exit = { EXITED(0) }, .verdicts = "HPSSP..",
          .status = WORKER_SUCCEEDED, .n_histogram = 4 },
        { "honest, then exit 1", SPEC_WRITE, w_honest, .exit = { EXITED(1) }, .verdicts = "HPSSP..",
          .status = WORKER_FAILED, .error = "worker exited with status 1 after sending its result", .n_histogram = 4,
          .signalled = true },
        { "honest, then SIGSEGV", SPEC_WRITE, w_honest, .exit = { KILLED(SIGSEGV) }, .verdicts = "HPSSP..",
          .status = WORKER_FAILED, .error = "worker killed by signal 11 (SIGSEGV) after sending its result",
          .n_histogram = 4, .signalled = true },
        /* A cancel that comes after the RESULT of a clean worker: the step counts. */
        { "honest, stop requested", SPEC_WRITE, w_honest, .exit = { EXITED(0), .stop_requested = true, .signalled = true },
          .verdicts = "HPSSP..", .status = WORKER_SUCCEEDED, .n_histogram = 4, .signalled = true },
        { "stopped before its RESULT", SPEC_WRITE, honest_until_histogram,
          .exit = { KILLED(SIGTERM), .stop_requested = true, .signalled = true }, .verdicts = "HPSSP.",
          .status = WORKER_STOPPED, .signalled = true },
        /* RESULT, but killed by our SIGTERM before it could exit: not clean, so the stop wins. */
        { "stopped after its RESULT", SPEC_WRITE, w_honest,
          .exit = { KILLED(SIGTERM), .stop_requested = true, .signalled = true }, .verdicts = "HPSSP..",
          .status = WORKER_STOPPED, .n_histogram = 4, .signalled = true },
        { "a violation, then stopped", SPEC_WRITE, w_backwards,
          .exit = { KILLED(SIGKILL), .stop_requested = true, .signalled = true }, .verdicts = "HPSX",
          .status = WORKER_STOPPED, .signalled = true },
        { "timed out", SPEC_WRITE, w_hello_only, .exit = { KILLED(SIGKILL), .signalled = true }, .timed_out = true,
          .verdicts = "H", .status = WORKER_FAILED, .error = "the step timed out after 61 s", .signalled = true },
        /* Our failure is what the user reads, even when the worker said ERROR after it. */
        { "timed out, then ERROR", SPEC_WRITE, w_unsafe, .exit = { EXITED(1) }, .timed_out = true,
          .verdicts = "H.", .status = WORKER_FAILED, .error = "the step timed out after 61 s", .signalled = true },
        { "exit 127 before HELLO", SPEC_WRITE, w_nothing, .exit = { EXITED(127) }, .verdicts = "",
          .status = WORKER_FAILED,
          .error = "worker /usr/libexec/benchd-worker could not be executed (exit status 127); check --worker or BENCHD_WORKER",
          .signalled = true },
        { "exit 127 after HELLO", SPEC_WRITE, w_hello_only, .exit = { EXITED(127) }, .verdicts = "H",
          .status = WORKER_FAILED, .error = "worker exited with status 127 without a result", .signalled = true },
        { "exit 3 before HELLO", SPEC_WRITE, w_nothing, .exit = { EXITED(3) }, .verdicts = "",
          .status = WORKER_FAILED, .error = "worker exited with status 3 without a result (it never said HELLO)",
          .signalled = true },
        { "exit 0 without a result", SPEC_WRITE, w_hello_only, .exit = { EXITED(0) }, .verdicts = "H",
          .status = WORKER_FAILED, .error = "worker exited with status 0 without a result" },
        { "SIGKILL without a result", SPEC_WRITE, w_hello_only, .exit = { KILLED(SIGKILL) }, .verdicts = "H",
          .status = WORKER_FAILED, .error = "worker killed by signal 9 (SIGKILL)", .signalled = true },

        /* Filesystem steps: FS_INFO exactly when FS_SETUP was sent, once, first. */
        { "filesystem step", SPEC_WRITE, w_fs_honest, .exit = { EXITED(0) }, .verdicts = "HFPSSP..",
          .status = WORKER_SUCCEEDED, .n_histogram = 4, .fs = true },
        { "filesystem step without FS_INFO", SPEC_WRITE, w_honest, .exit = { KILLED(SIGKILL), .signalled = true },
          .verdicts = "HX", .status = WORKER_FAILED, .error = "PHASE measure before FS_INFO", .signalled = true,
          .fs = true },
        { "FS_INFO unasked", SPEC_WRITE, w_fs_info_unasked, .exit = { KILLED(SIGKILL), .signalled = true },
          .verdicts = "HX", .status = WORKER_FAILED, .error = "FS_INFO from a step that was sent no FS_SETUP",
          .signalled = true },
        { "FS_INFO twice", SPEC_WRITE, w_fs_twice, .exit = { KILLED(SIGKILL), .signalled = true },
          .verdicts = "HFX", .status = WORKER_FAILED, .error = "FS_INFO sent twice", .signalled = true, .fs = true },
        { "FS_INFO of another filesystem", SPEC_WRITE, w_fs_other, .exit = { KILLED(SIGKILL), .signalled = true },
          .verdicts = "HX", .status = WORKER_FAILED, .error = "FS_INFO fs_type=xfs, but FS_SETUP asked for ext4",
          .signalled = true, .fs = true },
        /* FS_RELEASED: only when FS_SETUP asked for md_release or an LVM layout, after FS_INFO, once. */
        { "md members released", SPEC_WRITE, w_md_released, .exit = { EXITED(0) }, .verdicts = "HFPSSPW..",
          .status = WORKER_SUCCEEDED, .n_histogram = 4, .fs_md = true },
        { "LVM group deactivated", SPEC_WRITE, w_md_released, .exit = { EXITED(0) }, .verdicts = "HFPSSPW..",
          .status = WORKER_SUCCEEDED, .n_histogram = 4, .fs_lvm = true },
        { "FS_RELEASED unasked", SPEC_WRITE, w_released_twice, .exit = { KILLED(SIGKILL), .signalled = true },
          .verdicts = "HFX", .status = WORKER_FAILED, .error = "FS_RELEASED from a step whose FS_SETUP asked for no "
          "LVM layout and no release", .signalled = true, .fs = true },
        { "FS_RELEASED before FS_INFO", SPEC_WRITE, w_released_first, .exit = { KILLED(SIGKILL), .signalled = true },
          .verdicts = "HX", .status = WORKER_FAILED, .error = "FS_RELEASED before FS_INFO", .signalled = true,
          .fs_md = true },
        { "FS_RELEASED twice", SPEC_WRITE, w_released_twice, .exit = { KILLED(SIGKILL), .signalled = true },
          .verdicts = "HFWX", .status = WORKER_FAILED, .error = "FS_RELEASED sent twice", .signalled = true,
          .fs_md = true },
        { "mkfs failed", SPEC_WRITE, w_fs_failed, .exit = { EXITED(1) }, .verdicts = "H.", .status = WORKER_FAILED,
          .error = "mkfs.ext4 failed (exit 1): mke2fs: invalid block size - 3000", .signalled = true, .fs = true },

        /* The worker's ERROR. */
        { "ERROR unsafe", SPEC_WRITE, w_unsafe, .exit = { EXITED(1) }, .verdicts = "H.", .status = WORKER_FAILED,
          .error = "/dev/loop7 is mounted on /mnt; unmount it first", .unsafe = true, .signalled = true },
        { "ERROR without a message", SPEC_WRITE, w_error_bare, .exit = { EXITED(1) }, .verdicts = "H.",
          .status = WORKER_FAILED, .error = "the worker failed: Input/output error", .signalled = true },
        /* Valid UTF-8 is kept, the control character and the invalid byte are not. */
        { "UTF-8 text", SPEC_WRITE, w_utf8, .exit = { EXITED(1) }, .verdicts = "HPL.", .status = WORKER_FAILED,
          .error = UTF8_KEPT, .signalled = true },
        { "more logs than the bound", SPEC_WRITE, w_logs, .exit = { EXITED(0) }, .verdicts = "HL200D.",
          .status = WORKER_FAILED, .error = "worker exited with status 0 without a result" },

        /* The stream: garbage, versions, sizes. Each one kills the worker. */
        { "garbage", SPEC_WRITE, w_garbage, .exit = { KILLED(SIGKILL), .signalled = true }, .verdicts = "X",
          .status = WORKER_FAILED, .error = "protocol violation by the worker: garbage instead of a frame header",
          .signalled = true },
        { "oversized frame", SPEC_WRITE, w_oversize, .exit = { KILLED(SIGKILL), .signalled = true }, .verdicts = "HX",
          .status = WORKER_FAILED, .error = "protocol violation by the worker: oversized frame; the worker was killed",
          .signalled = true },
        { "unknown frame type", SPEC_WRITE, w_badtype, .exit = { KILLED(SIGKILL), .signalled = true }, .verdicts = "HX",
          .status = WORKER_FAILED, .error = "garbage instead of a frame header (bad magic, unknown frame type",
          .signalled = true },
        { "reserved field set", SPEC_WRITE, w_reserved, .exit = { KILLED(SIGKILL), .signalled = true }, .verdicts = "HX",
          .status = WORKER_FAILED, .error = "garbage instead of a frame header", .signalled = true },
        { "frame of another version", SPEC_WRITE, w_other_version, .exit = { KILLED(SIGKILL), .signalled = true },
          .verdicts = "HX", .status = WORKER_FAILED, .error = "frame of another protocol version", .signalled = true },
        { "closed in the middle of a frame", SPEC_WRITE, w_cut, .exit = { EXITED(0) }, .verdicts = "HX",
          .status = WORKER_FAILED, .error = "the socket was closed in the middle of a frame" },

        /* Which frame may follow which. */
        { "HELLO of another version", SPEC_WRITE, w_hello_v2, .exit = { KILLED(SIGKILL), .signalled = true },
          .verdicts = "X", .status = WORKER_FAILED, .error = "HELLO for protocol version 3, expected 2",
          .signalled = true },
        { "malformed HELLO", SPEC_WRITE, w_hello_short, .exit = { KILLED(SIGKILL), .signalled = true },
          .verdicts = "X", .status = WORKER_FAILED, .error = "malformed HELLO frame", .signalled = true },
        { "SAMPLE before HELLO", SPEC_WRITE, w_sample_first, .exit = { KILLED(SIGKILL), .signalled = true },
          .verdicts = "X", .status = WORKER_FAILED, .error = "SAMPLE frame (type 4) before HELLO", .signalled = true },
        { "SPEC from the worker", SPEC_WRITE, w_spec_from_worker, .exit = { KILLED(SIGKILL), .signalled = true },
          .verdicts = "HX", .status = WORKER_FAILED, .error = "unexpected SPEC frame (type 2)", .signalled = true },
        /* A violation after the RESULT takes the histogram with it, and the clean exit does not help. */
        { "SAMPLE after RESULT", SPEC_WRITE, w_after_result, .exit = { EXITED(0) }, .verdicts = "HPSSP..X",
          .status = WORKER_FAILED, .error = "SAMPLE frame after the final RESULT or ERROR" },
        { "LOG after ERROR", SPEC_WRITE, w_after_error, .exit = { KILLED(SIGKILL), .signalled = true },
          .verdicts = "H.X", .status = WORKER_FAILED, .error = "LOG frame after the final RESULT or ERROR",
          .signalled = true },
        { "PHASE out of order", SPEC_WRITE, w_phase_order, .exit = { KILLED(SIGKILL), .signalled = true },
          .verdicts = "HPX", .status = WORKER_FAILED, .error = "PHASE ramp after measure", .signalled = true },

        /* Frames that decode but cannot be true (proto-plausible.h), as fake-worker.py's modes were. */
        { "nan", SPEC_WRITE, w_nan, .exit = { KILLED(SIGKILL), .signalled = true }, .verdicts = "HPX",
          .status = WORKER_FAILED, .error = "protocol violation by the worker: malformed SAMPLE frame", .signalled = true },
        { "flood", SPEC_WRITE, w_flood, .elapsed_ms = 10, .exit = { KILLED(SIGKILL), .signalled = true },
          .verdicts = "HPS16X", .status = WORKER_FAILED,
          .error = "SAMPLE frames faster than one per 100 ms (17 in 10 ms)", .signalled = true },
        { "backwards", SPEC_WRITE, w_backwards, .exit = { KILLED(SIGKILL), .signalled = true }, .verdicts = "HPSX",
          .status = WORKER_FAILED, .error = "SAMPLE t_ms=40 not after the previous 50", .signalled = true },
        { "phase-twice", SPEC_META, w_phase_twice, .exit = { KILLED(SIGKILL), .signalled = true }, .verdicts = "HPRX",
          .status = WORKER_FAILED, .error = "PHASE_RESULT create-seq sent twice", .signalled = true },
        { "positions", SPEC_POSITION, w_positions, .exit = { KILLED(SIGKILL), .signalled = true }, .verdicts = "HPQQQ",
          .status = WORKER_FAILED, .error = "worker killed by signal 9", .signalled = true },
        { "positions from a write step", SPEC_WRITE, w_positions, .exit = { KILLED(SIGKILL), .signalled = true },
          .verdicts = "HPX", .status = WORKER_FAILED,
          .error = "POSITION_RESULT 0 from a write step; only position steps send them", .signalled = true },
        { "position-twice", SPEC_POSITION, w_position_twice, .exit = { KILLED(SIGKILL), .signalled = true },
          .verdicts = "HPQQX", .status = WORKER_FAILED, .error = "POSITION_RESULT index 1 after index 1",
          .signalled = true },
        { "position-overlap", SPEC_POSITION, w_position_overlap, .exit = { KILLED(SIGKILL), .signalled = true },
          .verdicts = "HPQX", .status = WORKER_FAILED,
          .error = "POSITION_RESULT 1 offset_bytes=4194304 is before the end of the previous position (5242880)",
          .signalled = true },
        { "steady state", SPEC_STEADY, w_steady, .exit = { KILLED(SIGKILL), .signalled = true }, .verdicts = "HPSSY",
          .status = WORKER_FAILED, .error = "worker killed by signal 9", .signalled = true },
        { "steady state before the window is full", SPEC_STEADY, w_steady_early,
          .exit = { KILLED(SIGKILL), .signalled = true }, .verdicts = "HPSX", .status = WORKER_FAILED,
          .error = "STEADY_STATE after 1 SAMPLEs; its window holds 2", .signalled = true },
        { "steady state not asked for", SPEC_WRITE "\nruntime_ms=2000", w_steady,
          .exit = { KILLED(SIGKILL), .signalled = true }, .verdicts = "HPSSX", .status = WORKER_FAILED,
          .error = "STEADY_STATE from a step whose spec asked for no steady_state", .signalled = true },
        { "the daemon's FS_SETUP from the worker", SPEC_POSITION, w_position_daemon_frame,
          .exit = { KILLED(SIGKILL), .signalled = true }, .verdicts = "HPX", .status = WORKER_FAILED,
          .error = "unexpected FS_SETUP frame (type 10)", .signalled = true },
        { "phase-flood", SPEC_META, w_phase_flood, .exit = { KILLED(SIGKILL), .signalled = true },
          .verdicts = "HPR16X", .status = WORKER_FAILED, .error = "more than 16 PHASE_RESULT frames",
          .signalled = true },
        { "huge", SPEC_WRITE, w_huge, .exit = { KILLED(SIGKILL), .signalled = true }, .verdicts = "HPSX",
          .status = WORKER_FAILED,
          .error = "SAMPLE bytes_written=9223372036854775808 is above 9223372036854775807, the largest number the "
                   "database stores", .signalled = true },
        { "rate", SPEC_WRITE, w_rate, .exit = { KILLED(SIGKILL), .signalled = true }, .verdicts = "HPSX",
          .status = WORKER_FAILED,
          .error = "SAMPLE moved 1000000000000000 bytes in 100000 us, faster than the ceiling of 1000000000000 bytes/s",
          .signalled = true },
        { "oversize", SPEC_WRITE, w_oversum, .exit = { KILLED(SIGKILL), .signalled = true }, .verdicts = "HPSX",
          .status = WORKER_FAILED, .error = "the SAMPLEs add up to 16908288 bytes, more than the 8388608 this step can move",
          .signalled = true },
        { "future", SPEC_WRITE, w_future, .exit = { KILLED(SIGKILL), .signalled = true }, .verdicts = "HPSX",
          .status = WORKER_FAILED, .error = "SAMPLE t_ms=3600000 is later than the 10000 ms since the worker was started",
          .signalled = true },
        { "cpu", SPEC_WRITE, w_cpu, .exit = { KILLED(SIGKILL), .signalled = true }, .verdicts = "HPSX",
          .status = WORKER_FAILED,
          .error = "SAMPLE cpu_user_pct + cpu_sys_pct + iowait_pct = 110; shares of the CPU time add up to at most 100",
          .signalled = true },
        { "hist-short", SPEC_WRITE, w_hist_short, .exit = { KILLED(SIGKILL), .signalled = true }, .verdicts = "HPSSP.X",
          .status = WORKER_FAILED, .error = "the HISTOGRAM holds 255 latencies, but RESULT counts 256 I/Os",
          .signalled = true },
        { "hist-huge", SPEC_WRITE, w_hist_huge, .exit = { KILLED(SIGKILL), .signalled = true }, .verdicts = "HPSX",
          .status = WORKER_FAILED, .error = "HISTOGRAM bucket 1180 count=9223372036854775808 is above",
          .signalled = true },
        { "result-sum", SPEC_WRITE, w_result_sum, .exit = { KILLED(SIGKILL), .signalled = true }, .verdicts = "HPSSP.X",
          .status = WORKER_FAILED,
          .error = "RESULT bytes_written=8421376 but the SAMPLEs add up to 8388608; the result is the sum of its samples",
          .signalled = true },
        { "result-p99", SPEC_WRITE, w_result_p99, .exit = { KILLED(SIGKILL), .signalled = true }, .verdicts = "HPSSP.X",
          .status = WORKER_FAILED, .error = "RESULT lat_p99_ns=89855 but its HISTOGRAM gives 120063", .signalled = true },
        { "result-long", SPEC_WRITE, w_result_long, .exit = { KILLED(SIGKILL), .signalled = true },
          .verdicts = "HPSSP.X", .status = WORKER_FAILED,
          .error = "RESULT duration_usec=3600000000 is longer than the worker has run (10000000 us)", .signalled = true },
};

/* "HS3." → "HSSS." */
static void expand(const char *in, char *out, size_t size) {
        size_t k = 0;

        for (const char *p = in; *p;) {
                char c = *p++;
                unsigned long n = 1;

                if (isdigit((unsigned char) *p))
                        n = strtoul(p, (char **) &p, 10);
                for (unsigned long i = 0; i < n && k + 1 < size; i++)
                        out[k++] = c;
        }
        out[k] = 0;
}

/* A record's letter by its type: S(ample), R(esult of a phase), Q (position), Y (steady). */
static char letter(const WorkerVerdict *v) {
        static const char letters[] = {
                [WORKER_VERDICT_NONE] = '.', [WORKER_VERDICT_SEND_SPEC] = 'H', [WORKER_VERDICT_PHASE] = 'P',
                [WORKER_VERDICT_LOG] = 'L', [WORKER_VERDICT_LOGS_DROPPED] = 'D', [WORKER_VERDICT_VIOLATION] = 'X',
                [WORKER_VERDICT_FS_INFO] = 'F', [WORKER_VERDICT_FS_RELEASED] = 'W',
        };
        static const char records[] = {
                [PROTO_SAMPLE] = 'S', [PROTO_PHASE_RESULT] = 'R', [PROTO_POSITION_RESULT] = 'Q',
                [PROTO_STEADY_STATE] = 'Y',
        };

        if (v->kind == WORKER_VERDICT_RECORD)
                return records[v->record.desc->type];
        return letters[v->kind];
}

static JobSpec spec_of(const char *text) {
        _cleanup_free_ char *copy = strdup(text), *err = NULL;
        char *save = NULL;
        JobSpec s;

        spec_init(&s);
        ck_assert_int_eq(spec_set_assignment(&s, "target=/tmp", &err), 0);
        for (char *line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
                ck_assert_msg(spec_set_assignment(&s, line, &err) == 0, "%s: %s", line, strna(err));
        ck_assert_msg(spec_finalize(&s, &err) == 0, "%s", strna(err));
        return s;
}

/* What supervisor.c does with the bytes: push what the socket gives into the reader, judge each
 * whole frame, stop at the first violation; at EOF, judge what is left in the reader. */
static void judge_stream(WorkerJudge *j, const Stream *s, const ProtoClock *clock, char *verdicts, size_t size) {
        ProtoReader reader;
        size_t pos = 0, k = 0;
        bool dropped = false;

        proto_reader_init(&reader);
        while (!dropped) {
                ProtoFrame f;
                int r = proto_reader_next(&reader, &f);

                if (r < 0) {
                        worker_judge_stream_error(j, r);
                        verdicts[k++] = 'X';
                        break;
                }
                if (r > 0) {
                        _cleanup_(worker_verdict_clear) WorkerVerdict v = {};
                        WorkerVerdictKind kind = worker_judge_frame(j, &f, clock, &v);

                        ck_assert_int_eq(kind, v.kind);
                        ck_assert_uint_lt(k + 1, size);
                        verdicts[k++] = letter(&v);
                        dropped = kind == WORKER_VERDICT_VIOLATION;
                        continue;
                }
                if (pos == s->len) {
                        if (worker_judge_eof(j, reader.len))
                                verdicts[k++] = 'X';
                        break;
                }
                size_t n = MIN(s->len - pos, (size_t) 4096);
                r = proto_reader_push(&reader, s->buf + pos, n);
                if (r < 0) {
                        worker_judge_stream_error(j, r);
                        verdicts[k++] = 'X';
                        break;
                }
                pos += n;
        }
        verdicts[k] = 0;
        proto_reader_clear(&reader);
}

START_TEST(test_rows) {
        const Row *row = &rows[_i];
        _cleanup_(worker_judge_clear) WorkerJudge j = {};
        _cleanup_(spec_clear) JobSpec spec = spec_of(row->spec);
        uint64_t e = (row->elapsed_ms ?: 10000) * USEC_PER_MSEC;
        ProtoClock clock = { .elapsed_usec = e, .spawn_realtime_usec = SPAWN_RT, .now_realtime_usec = SPAWN_RT + e };
        char got[512], want[512];
        WorkerOutcome o;
        Stream s = {};

        row->stream(&s);
        ck_assert_int_eq(worker_judge_init(&j, &spec), 0);
        if (row->fs)
                worker_judge_expect_fs(&j, &fs_setup);
        if (row->fs_md)
                worker_judge_expect_fs(&j, &fs_setup_md);
        if (row->fs_lvm)
                worker_judge_expect_fs(&j, &fs_setup_lvm);
        if (row->timed_out)
                ck_assert(worker_judge_fail(&j, "the step timed out after 61 s (its runtime plus grace); the worker "
                                            "was stopped"));
        judge_stream(&j, &s, &clock, got, sizeof(got));
        free(s.buf);
        expand(row->verdicts, want, sizeof(want));
        ck_assert_msg(streq(got, want), "%s: verdicts %s, expected %s (failure: %s)", row->name, got, want,
                      strna(j.failure));

        worker_judge_outcome(&j, &row->exit, "/usr/libexec/benchd-worker", &o);

        ck_assert_msg(o.status == row->status, "%s: status %d, expected %d (error: %s)", row->name, o.status,
                      row->status, strna(o.error));
        if (row->error)
                ck_assert_msg(o.error && strstr(o.error, row->error), "%s: error \"%s\" does not contain \"%s\"",
                              row->name, strna(o.error), row->error);
        else
                ck_assert_msg(!o.error, "%s: unexpected error \"%s\"", row->name, o.error);
        ck_assert_int_eq(o.unsafe, row->unsafe);
        ck_assert_int_eq(o.signalled, row->signalled);
        ck_assert_uint_eq(o.n_histogram, row->n_histogram);
        ck_assert_int_eq(!!o.histogram, row->n_histogram > 0);
        if (row->status == WORKER_SUCCEEDED) {
                ck_assert_ptr_nonnull(o.result);
                ck_assert_uint_eq(o.result->bytes_written, SIZE);
                ck_assert_uint_eq(o.result->ios_written, IOS);
                ck_assert_uint_eq(o.histogram[1].count, 199);
        } else
                ck_assert_ptr_null(o.result);
}
END_TEST

/* What the owner is handed with each accepted frame, and that the worker's text is sanitized. */
START_TEST(test_passed_on) {
        _cleanup_(worker_judge_clear) WorkerJudge j = {};
        _cleanup_(spec_clear) JobSpec spec = spec_of(SPEC_WRITE);
        ProtoClock clock = { .elapsed_usec = 10 * USEC_PER_SEC, .spawn_realtime_usec = SPAWN_RT,
                             .now_realtime_usec = SPAWN_RT + 10 * USEC_PER_SEC };
        ProtoReader reader;
        Stream s = {};
        ProtoFrame f;
        const WorkerVerdictKind want[] = { WORKER_VERDICT_SEND_SPEC, WORKER_VERDICT_PHASE, WORKER_VERDICT_LOG,
                                           WORKER_VERDICT_RECORD };

        hello(&s);
        phase(&s, "measure");
        text(&s, PROTO_LOG, 4, "a\x1b[2Jb");
        sample(&s, 50, 50000, SIZE / 2, IOS / 2, 0.5);

        ck_assert_int_eq(worker_judge_init(&j, &spec), 0);
        proto_reader_init(&reader);
        ck_assert_int_eq(proto_reader_push(&reader, s.buf, s.len), 0);
        for (size_t i = 0; i < ELEMENTSOF(want); i++) {
                _cleanup_(worker_verdict_clear) WorkerVerdict v = {};

                ck_assert_int_eq(proto_reader_next(&reader, &f), 1);
                ck_assert_int_eq(worker_judge_frame(&j, &f, &clock, &v), want[i]);
                switch (v.kind) {
                case WORKER_VERDICT_SEND_SPEC:
                        ck_assert_uint_eq(v.hello_pid, 4242);
                        ck_assert_int_eq(j.stage, WORKER_STAGE_RUNNING);
                        break;
                case WORKER_VERDICT_PHASE:
                        ck_assert_str_eq(v.text, "measure");
                        break;
                case WORKER_VERDICT_LOG:
                        ck_assert_int_eq(v.level, 4);
                        ck_assert_str_eq(v.text, "a?[2Jb");
                        break;
                case WORKER_VERDICT_RECORD:
                        ck_assert_ptr_eq(v.record.desc, &proto_record_sample);
                        ck_assert_uint_eq(v.record.sample.t_ms, 50);
                        ck_assert_uint_eq(v.record.sample.bytes_written, SIZE / 2);
                        break;
                default:
                        break;
                }
        }
        ck_assert_int_eq(proto_reader_next(&reader, &f), 0);
        proto_reader_clear(&reader);
        free(s.buf);
}
END_TEST

/* The first failure is the one reported; later ones are not, a later violation still counts. */
START_TEST(test_first_failure_wins) {
        _cleanup_(worker_judge_clear) WorkerJudge j = {};
        _cleanup_(spec_clear) JobSpec spec = spec_of(SPEC_WRITE);

        ck_assert_int_eq(worker_judge_init(&j, &spec), 0);
        ck_assert(worker_judge_fail(&j, "cannot read from the worker: %s", "Broken pipe"));
        ck_assert(!worker_judge_violation(&j, "oversized frame"));
        ck_assert(!worker_judge_eof(&j, 3));
        ck_assert(!worker_judge_eof(&j, 0));
        ck_assert_str_eq(j.failure, "cannot read from the worker: Broken pipe");
        ck_assert(j.violated);
}
END_TEST

START_TEST(test_no_workload) {
        WorkerJudge j;
        JobSpec s;

        spec_init(&s);
        ck_assert_int_eq(worker_judge_init(&j, &s), -EINVAL);
        spec_clear(&s);
}
END_TEST

static Suite *judge_suite(void) {
        Suite *s = suite_create("worker-judge");
        TCase *tc = tcase_create("worker-judge");

        tcase_add_loop_test(tc, test_rows, 0, ELEMENTSOF(rows));
        tcase_add_test(tc, test_passed_on);
        tcase_add_test(tc, test_first_failure_wins);
        tcase_add_test(tc, test_no_workload);
        suite_add_tcase(s, tc);
        return s;
}

int main(void) {
        SRunner *sr = srunner_create(judge_suite());
        srunner_run_all(sr, CK_NORMAL);
        int failed = srunner_ntests_failed(sr);
        srunner_free(sr);
        return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
