/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Tests of the worker protocol (proto.c): every message type round trips through encoder, reader
 * and decoder; frames fed byte by byte; and the daemon's defences: truncated frames, bad magic,
 * other versions, oversized lengths, wrong payload lengths, out-of-range fields, unsorted
 * histograms, each with the specific error the header documents.
 */

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "shared/proto.h"
#include "shared/proto-record.h"
#include "shared/served.h"
#include "check-util.h"
#include "shared/util.h"

static void proto_reader_clearp(ProtoReader *r) {
        proto_reader_clear(r);
}
#define _cleanup_reader_ _cleanup_(proto_reader_clearp)

static void put_le32(uint8_t *p, uint32_t v) {
        for (unsigned i = 0; i < 4; i++)
                p[i] = (uint8_t) (v >> (8 * i));
}

static void put_le64(uint8_t *p, uint64_t v) {
        for (unsigned i = 0; i < 8; i++)
                p[i] = (uint8_t) (v >> (8 * i));
}

/* Pushes a whole encoded frame and cuts it back out; fails the test unless exactly one frame. */
static void frame_of(ProtoReader *r, const uint8_t *buf, size_t len, ProtoFrame *ret) {
        ck_assert_int_eq(proto_reader_push(r, buf, len), 0);
        ck_assert_int_eq(proto_reader_next(r, ret), 1);
        ck_assert_uint_eq(ret->length + PROTO_HEADER_SIZE, len);
}

static const ProtoSample sample_ok = {
        .t_ms = 1000,
        .interval_us = 1000000,
        .bytes_read = 1 << 20,
        .bytes_written = 3 << 20,
        .ios_read = 256,
        .ios_written = 768,
        .ops = 7,
        .lat_mean_ns = 90000,
        .lat_p50_ns = 80000,
        .lat_p99_ns = 400000,
        .lat_max_ns = 900000,
        .iowait_pct = 12.5,
        .cpu_user_pct = 3.25,
        .cpu_sys_pct = 100.0,
        .dev_util_pct = -1.0,
        .dev_queue = 2.75,
        .progress = 0.5,
};

static const ProtoResult result_ok = {
        .started_usec = UINT64_C(1700000000000000),
        .duration_usec = 30000000,
        .bytes_read = 0,
        .bytes_written = UINT64_C(1) << 30,
        .ios_read = 0,
        .ios_written = 32768,
        .ops = 0,
        .lat_min_ns = 1000,
        .lat_mean_ns = 5000,
        .lat_stddev_ns = 700,
        .lat_p50_ns = 4000,
        .lat_p90_ns = 6000,
        .lat_p95_ns = 7000,
        .lat_p99_ns = 9000,
        .lat_p999_ns = 20000,
        .lat_p9999_ns = 50000,
        .lat_max_ns = 60000,
        .iowait_pct = 0.0,
        .cpu_user_pct = 1.5,
        .cpu_sys_pct = 8.0,
        .dev_util_pct = 99.9,
        .device = (char *) "nvme0n1",
        .process_user_usec = 1500000,
        .process_sys_usec = 9000000,
        .counters = PROTO_COUNTERS_DEVICE | PROTO_COUNTERS_BACKING,
        .device_bytes_read = 4096,
        .device_bytes_written = (UINT64_C(1) << 30) + 8192,
        .backing_bytes_read = 0,
        .backing_bytes_written = UINT64_C(1) << 30,
        .served = SERVED_DEVICE,
};

/* ---- round trips ---- */

START_TEST(test_roundtrip_hello) {
        _cleanup_reader_ ProtoReader r;
        _cleanup_free_ uint8_t *buf = NULL;
        ProtoHello in = { .version = PROTO_VERSION, .pid = 4242 }, out = {};
        ProtoFrame f;
        size_t len;

        proto_reader_init(&r);
        ck_assert_int_eq(proto_encode_hello(&in, &buf, &len), 0);
        ck_assert_uint_eq(len, PROTO_HEADER_SIZE + 8);
        /* The header, byte by byte: magic "BNCH", version 1, type 1, length 8, reserved 0. */
        ck_assert_mem_eq(buf, "BNCH\x02\x00\x01\x00\x08\x00\x00\x00\x00\x00\x00\x00", 16);
        ck_assert_mem_eq(buf + 16, "\x02\x00\x00\x00\x92\x10\x00\x00", 8);
        frame_of(&r, buf, len, &f);
        ck_assert_uint_eq(f.type, PROTO_HELLO);
        ck_assert_int_eq(proto_decode_hello(&f, &out), 0);
        ck_assert_uint_eq(out.version, PROTO_VERSION);
        ck_assert_uint_eq(out.pid, 4242);
}
END_TEST

START_TEST(test_roundtrip_spec) {
        _cleanup_reader_ ProtoReader r;
        _cleanup_free_ uint8_t *buf = NULL;
        ProtoSpec in = { .job_id = UINT64_C(0x1122334455667788), .step = 3,
                         .text = (char *) "target=/srv\nworkload=write\n",
                         .guard = { .kind = PROTO_GUARD_BLOCK, .flags = PROTO_GUARD_SCRATCH,
                                    .dev = UINT64_C(0x10300000007), .ino = UINT64_MAX - 1,
                                    .diskseq = UINT64_C(0x8000000000000001) } };
        ProtoSpec out = {};
        ProtoFrame f;
        size_t len;

        proto_reader_init(&r);
        ck_assert_int_eq(proto_encode_spec(&in, &buf, &len), 0);
        frame_of(&r, buf, len, &f);
        ck_assert_int_eq(proto_decode_spec(&f, &out), 0);
        ck_assert_uint_eq(out.job_id, in.job_id);
        ck_assert_uint_eq(out.step, 3);
        ck_assert_str_eq(out.text, in.text);
        ck_assert_uint_eq(out.guard.kind, PROTO_GUARD_BLOCK);
        ck_assert_uint_eq(out.guard.flags, PROTO_GUARD_SCRATCH);
        ck_assert_uint_eq(out.guard.dev, in.guard.dev);
        ck_assert_uint_eq(out.guard.ino, in.guard.ino);
        ck_assert_uint_eq(out.guard.diskseq, in.guard.diskseq);
        proto_spec_clear(&out);
        ck_assert_ptr_null(out.text);
}
END_TEST

/* A guard the worker could not act on is refused on both sides: an unknown kind or flag. */
START_TEST(test_spec_bad_guard) {
        _cleanup_reader_ ProtoReader r;
        _cleanup_free_ uint8_t *buf = NULL;
        ProtoSpec in = { .job_id = 1, .text = (char *) "target=/srv\n", .guard = { .kind = PROTO_GUARD_FILE } };
        ProtoSpec out = {};
        ProtoFrame f;
        size_t len;

        in.guard.kind = _PROTO_GUARD_KIND_MAX;
        ck_assert_int_eq(proto_encode_spec(&in, &buf, &len), -EINVAL);
        in.guard.kind = PROTO_GUARD_FILE;
        in.guard.flags = 2;
        ck_assert_int_eq(proto_encode_spec(&in, &buf, &len), -EINVAL);
        in.guard.flags = 0;
        ck_assert_int_eq(proto_encode_spec(&in, &buf, &len), 0);
        /* The kind is the u32 after the text: make it 7 and the flags 4 in the encoded frame. */
        ck_assert_uint_ge(len, PROTO_HEADER_SIZE + 16 + 12 + 32);
        buf[len - 32] = 7;
        proto_reader_init(&r);
        frame_of(&r, buf, len, &f);
        ck_assert_int_eq(proto_decode_spec(&f, &out), -EBADMSG);
        buf[len - 32] = PROTO_GUARD_FILE;
        buf[len - 28] = 4;
        frame_of(&r, buf, len, &f);
        ck_assert_int_eq(proto_decode_spec(&f, &out), -EBADMSG);
        buf[len - 28] = 0;
        frame_of(&r, buf, len, &f);
        ck_assert_int_eq(proto_decode_spec(&f, &out), 0);
        ck_assert_uint_eq(out.guard.kind, PROTO_GUARD_FILE);
        proto_spec_clear(&out);
}
END_TEST

static const struct {
        ProtoType type;
        uint32_t level;
        const char *text;
} text_cases[] = {
        { PROTO_PHASE, 0, "layout" },
        { PROTO_PHASE, 0, "measure" },
        { PROTO_LOG, 3, "open /srv/.benchd-1-0: Permission denied" },
        { PROTO_LOG, 7, "" },
        { PROTO_LOG, 6, "ünïcode is bytes" },
};

START_TEST(test_roundtrip_text) {
        _cleanup_reader_ ProtoReader r;
        _cleanup_free_ uint8_t *buf = NULL;
        ProtoText in = { .level = text_cases[_i].level, .text = (char *) text_cases[_i].text }, out = {};
        ProtoFrame f;
        size_t len;

        proto_reader_init(&r);
        ck_assert_int_eq(proto_encode_text(text_cases[_i].type, &in, &buf, &len), 0);
        frame_of(&r, buf, len, &f);
        ck_assert_uint_eq(f.type, text_cases[_i].type);
        ck_assert_int_eq(proto_decode_text(&f, &out), 0);
        ck_assert_uint_eq(out.level, in.level);
        ck_assert_str_eq(out.text, in.text);
        proto_text_clear(&out);
}
END_TEST

START_TEST(test_roundtrip_sample) {
        _cleanup_reader_ ProtoReader r;
        _cleanup_free_ uint8_t *buf = NULL;
        ProtoSample out = {};
        ProtoFrame f;
        size_t len;

        proto_reader_init(&r);
        ck_assert_int_eq(proto_encode_sample(&sample_ok, &buf, &len), 0);
        frame_of(&r, buf, len, &f);
        ck_assert_int_eq(proto_decode_sample(&f, &out), 0);
        ck_assert_mem_eq(&out, &sample_ok, sizeof(out));
}
END_TEST

START_TEST(test_roundtrip_histogram) {
        _cleanup_reader_ ProtoReader r;
        _cleanup_free_ uint8_t *buf = NULL;
        ProtoHistogramEntry e[] = { { 0, 1 }, { 5, UINT64_MAX }, { 700, 3 }, { HISTOGRAM_BUCKETS - 1, 9 } };
        ProtoHistogram in = { .n_entries = ELEMENTSOF(e), .entries = e }, out = {};
        ProtoFrame f;
        size_t len;

        proto_reader_init(&r);
        ck_assert_int_eq(proto_encode_histogram(&in, &buf, &len), 0);
        ck_assert_uint_eq(len, PROTO_HEADER_SIZE + 4 + 12 * ELEMENTSOF(e));
        frame_of(&r, buf, len, &f);
        ck_assert_int_eq(proto_decode_histogram(&f, &out), 0);
        ck_assert_uint_eq(out.n_entries, ELEMENTSOF(e));
        for (size_t i = 0; i < ELEMENTSOF(e); i++) {
                ck_assert_uint_eq(out.entries[i].index, e[i].index);
                ck_assert_uint_eq(out.entries[i].count, e[i].count);
        }
        proto_histogram_clear(&out);
        ck_assert_ptr_null(out.entries);

        /* Empty is fine. */
        free(buf);
        buf = NULL;
        in.n_entries = 0;
        ck_assert_int_eq(proto_encode_histogram(&in, &buf, &len), 0);
        frame_of(&r, buf, len, &f);
        ck_assert_int_eq(proto_decode_histogram(&f, &out), 0);
        ck_assert_uint_eq(out.n_entries, 0);
        proto_histogram_clear(&out);
}
END_TEST

START_TEST(test_roundtrip_histogram_max) {
        _cleanup_reader_ ProtoReader r;
        _cleanup_free_ uint8_t *buf = NULL;
        _cleanup_free_ ProtoHistogramEntry *e = calloc(HISTOGRAM_BUCKETS, sizeof(*e));
        ProtoHistogram in = { .n_entries = HISTOGRAM_BUCKETS, .entries = e }, out = {};
        ProtoFrame f;
        size_t len;

        /* A full dense histogram must fit in one frame. */
        ck_assert_uint_le(HISTOGRAM_BUCKETS, PROTO_HISTOGRAM_MAX_ENTRIES);
        for (unsigned i = 0; i < HISTOGRAM_BUCKETS; i++)
                e[i] = (ProtoHistogramEntry) { i, i + 1 };
        proto_reader_init(&r);
        ck_assert_int_eq(proto_encode_histogram(&in, &buf, &len), 0);
        frame_of(&r, buf, len, &f);
        ck_assert_int_eq(proto_decode_histogram(&f, &out), 0);
        ck_assert_uint_eq(out.n_entries, HISTOGRAM_BUCKETS);
        ck_assert_uint_eq(out.entries[HISTOGRAM_BUCKETS - 1].count, HISTOGRAM_BUCKETS);
        proto_histogram_clear(&out);

        in.n_entries = PROTO_HISTOGRAM_MAX_ENTRIES + 1;
        ck_assert_int_eq(proto_encode_histogram(&in, &buf, &len), -EMSGSIZE);
}
END_TEST

START_TEST(test_roundtrip_result) {
        _cleanup_reader_ ProtoReader r;
        _cleanup_free_ uint8_t *buf = NULL;
        ProtoResult out = {};
        ProtoFrame f;
        size_t len;

        proto_reader_init(&r);
        ck_assert_int_eq(proto_encode_result(&result_ok, &buf, &len), 0);
        frame_of(&r, buf, len, &f);
        ck_assert_int_eq(proto_decode_result(&f, &out), 0);
        ck_assert_str_eq(out.device, "nvme0n1");
        ck_assert_uint_eq(out.lat_p9999_ns, result_ok.lat_p9999_ns);
        ck_assert_uint_eq(out.started_usec, result_ok.started_usec);
        ck_assert(out.dev_util_pct == result_ok.dev_util_pct);
        {
                ProtoResult a = result_ok;
                a.device = out.device;
                ck_assert_mem_eq(&a, &out, sizeof(a));
        }
        proto_result_clear(&out);
        ck_assert_ptr_null(out.device);
}
END_TEST

START_TEST(test_roundtrip_error) {
        _cleanup_reader_ ProtoReader r;
        _cleanup_free_ uint8_t *buf = NULL;
        ProtoError in = { .error = ENOSPC, .message = (char *) "No space left on /srv" }, out = {};
        ProtoFrame f;
        size_t len;

        proto_reader_init(&r);
        ck_assert_int_eq(proto_encode_error(&in, &buf, &len), 0);
        frame_of(&r, buf, len, &f);
        ck_assert_int_eq(proto_decode_error(&f, &out), 0);
        ck_assert_int_eq(out.error, ENOSPC);
        ck_assert_str_eq(out.message, in.message);
        proto_error_clear(&out);
}
END_TEST

/* ---- the reader ---- */

START_TEST(test_byte_by_byte) {
        _cleanup_reader_ ProtoReader r;
        _cleanup_free_ uint8_t *a = NULL, *b = NULL, *all = NULL;
        size_t la, lb;
        ProtoFrame f;
        ProtoSample s;
        ProtoError e;
        ProtoError ein = { .error = EIO, .message = (char *) "boom" };
        unsigned frames = 0;

        ck_assert_int_eq(proto_encode_sample(&sample_ok, &a, &la), 0);
        ck_assert_int_eq(proto_encode_error(&ein, &b, &lb), 0);
        all = malloc(la + lb);
        memcpy(all, a, la);
        memcpy(all + la, b, lb);

        proto_reader_init(&r);
        for (size_t i = 0; i < la + lb; i++) {
                int k;

                ck_assert_int_eq(proto_reader_push(&r, all + i, 1), 0);
                k = proto_reader_next(&r, &f);
                if (i == la - 1 || i == la + lb - 1) {
                        ck_assert_msg(k == 1, "no frame after byte %zu", i);
                        if (frames++ == 0) {
                                ck_assert_int_eq(proto_decode_sample(&f, &s), 0);
                                ck_assert_uint_eq(s.bytes_written, sample_ok.bytes_written);
                        } else {
                                ck_assert_int_eq(proto_decode_error(&f, &e), 0);
                                ck_assert_str_eq(e.message, "boom");
                                proto_error_clear(&e);
                        }
                } else
                        ck_assert_msg(k == 0, "next() = %d after byte %zu", k, i);
        }
        ck_assert_uint_eq(frames, 2);
        ck_assert_int_eq(proto_reader_next(&r, &f), 0);
}
END_TEST

START_TEST(test_two_frames_one_push) {
        _cleanup_reader_ ProtoReader r;
        _cleanup_free_ uint8_t *a = NULL, *all = NULL;
        ProtoHello h = { .version = 1, .pid = 7 }, out;
        size_t la;
        ProtoFrame f;

        ck_assert_int_eq(proto_encode_hello(&h, &a, &la), 0);
        all = malloc(2 * la);
        memcpy(all, a, la);
        memcpy(all + la, a, la);
        proto_reader_init(&r);
        ck_assert_int_eq(proto_reader_push(&r, all, 2 * la), 0);
        ck_assert_int_eq(proto_reader_next(&r, &f), 1);
        ck_assert_int_eq(proto_decode_hello(&f, &out), 0);
        ck_assert_int_eq(proto_reader_next(&r, &f), 1);
        ck_assert_int_eq(proto_decode_hello(&f, &out), 0);
        ck_assert_uint_eq(out.pid, 7);
        ck_assert_int_eq(proto_reader_next(&r, &f), 0);
}
END_TEST

/* Header mutations and what the reader must say about them. */
static const struct {
        unsigned offset;    /* byte to overwrite in a valid HELLO frame's header */
        uint32_t value;     /* written little-endian, 4 bytes (or 2 for the u16 fields) */
        unsigned width;
        int ret;
} header_cases[] = {
        { 0, 0x48434e43, 4, -EBADMSG },         /* magic off by one */
        { 0, 0x00000000, 4, -EBADMSG },
        { 0, 0x424e4348, 4, -EBADMSG },         /* big-endian magic */
        { 4, PROTO_VERSION + 1, 2, -EPROTONOSUPPORT },  /* version */
        { 4, PROTO_VERSION - 1, 2, -EPROTONOSUPPORT },  /* version 1: FS_SETUP and FS_INFO were shorter */
        { 4, 0, 2, -EPROTONOSUPPORT },
        { 6, 0, 2, -EBADMSG },                  /* type 0 */
        { 6, _PROTO_TYPE_MAX, 2, -EBADMSG },    /* unknown type */
        { 8, PROTO_MAX_PAYLOAD + 1, 4, -EMSGSIZE },
        { 8, UINT32_MAX, 4, -EMSGSIZE },
        { 12, 1, 4, -EBADMSG },                 /* reserved */
        { 8, 9, 4, 0 },                         /* claims one byte more: wait for it */
};

START_TEST(test_bad_header) {
        _cleanup_reader_ ProtoReader r;
        _cleanup_free_ uint8_t *buf = NULL;
        ProtoHello h = { .version = 1, .pid = 1 };
        ProtoFrame f;
        size_t len;

        ck_assert_int_eq(proto_encode_hello(&h, &buf, &len), 0);
        if (header_cases[_i].width == 2) {
                buf[header_cases[_i].offset] = (uint8_t) header_cases[_i].value;
                buf[header_cases[_i].offset + 1] = (uint8_t) (header_cases[_i].value >> 8);
        } else
                put_le32(buf + header_cases[_i].offset, header_cases[_i].value);

        proto_reader_init(&r);
        ck_assert_int_eq(proto_reader_push(&r, buf, len), 0);
        ck_assert_int_eq(proto_reader_next(&r, &f), header_cases[_i].ret);
        /* Errors are final. */
        if (header_cases[_i].ret < 0)
                ck_assert_int_eq(proto_reader_next(&r, &f), header_cases[_i].ret);
}
END_TEST

START_TEST(test_truncated) {
        _cleanup_free_ uint8_t *buf = NULL;
        ProtoSpec in = { .job_id = 1, .step = 0, .text = (char *) "target=/x\n" };
        size_t len;

        ck_assert_int_eq(proto_encode_spec(&in, &buf, &len), 0);
        for (size_t cut = 0; cut < len; cut++) {
                _cleanup_reader_ ProtoReader r;
                ProtoFrame f;

                proto_reader_init(&r);
                ck_assert_int_eq(proto_reader_push(&r, buf, cut), 0);
                ck_assert_msg(proto_reader_next(&r, &f) == 0, "frame cut at %zu accepted", cut);
        }
}
END_TEST

START_TEST(test_push_bound) {
        _cleanup_reader_ ProtoReader r;
        _cleanup_free_ uint8_t *big = calloc(1, PROTO_HEADER_SIZE + PROTO_MAX_PAYLOAD + 1);

        proto_reader_init(&r);
        ck_assert_int_eq(proto_reader_push(&r, big, PROTO_HEADER_SIZE + PROTO_MAX_PAYLOAD + 1), -ENOBUFS);
        ck_assert_int_eq(proto_reader_push(&r, big, PROTO_HEADER_SIZE + PROTO_MAX_PAYLOAD), 0);
        ck_assert_int_eq(proto_reader_push(&r, big, 1), -ENOBUFS);
}
END_TEST

START_TEST(test_max_payload_frame) {
        _cleanup_reader_ ProtoReader r;
        _cleanup_free_ uint8_t *buf = calloc(1, PROTO_HEADER_SIZE + PROTO_MAX_PAYLOAD);
        ProtoFrame f;
        ProtoText t;

        /* A LOG frame of exactly the maximum size: framed fine, refused by the decoder (string
         * longer than PROTO_STRING_MAX). */
        put_le32(buf, PROTO_MAGIC);
        buf[4] = PROTO_VERSION;
        buf[6] = PROTO_LOG;
        put_le32(buf + 8, PROTO_MAX_PAYLOAD);
        put_le32(buf + 16 + 4, PROTO_MAX_PAYLOAD - 8);
        proto_reader_init(&r);
        ck_assert_int_eq(proto_reader_push(&r, buf, PROTO_HEADER_SIZE + PROTO_MAX_PAYLOAD), 0);
        ck_assert_int_eq(proto_reader_next(&r, &f), 1);
        ck_assert_uint_eq(f.length, PROTO_MAX_PAYLOAD);
        ck_assert_int_eq(proto_decode_text(&f, &t), -EBADMSG);
}
END_TEST

/* ---- PHASE_RESULT ---- */

static const ProtoPhaseResult phase_ok = {
        .name = "create-seq",
        .ops = 16384,
        .duration_usec = 250000,
        .lat_min_ns = 3000,
        .lat_mean_ns = 15000,
        .lat_p50_ns = 12000,
        .lat_p99_ns = 90000,
        .lat_max_ns = 400000,
};

/* The payload of phase_ok after its name, as raw fields: [0] ops .. [6] lat_max_ns. */
static void phase_payload(const char *name, const uint64_t v[7], uint8_t **ret, size_t *ret_len) {
        size_t n = strlen(name), len = PROTO_HEADER_SIZE + 4 + n + 7 * 8;
        uint8_t *b = calloc(1, len);

        ck_assert_ptr_nonnull(b);
        put_le32(b, PROTO_MAGIC);
        b[4] = PROTO_VERSION;
        b[6] = PROTO_PHASE_RESULT;
        put_le32(b + 8, (uint32_t) (len - PROTO_HEADER_SIZE));
        put_le32(b + 16, (uint32_t) n);
        memcpy(b + 20, name, n);
        for (unsigned i = 0; i < 7; i++)
                put_le64(b + 20 + n + 8 * i, v[i]);
        *ret = b;
        *ret_len = len;
}

START_TEST(test_roundtrip_phase_result) {
        _cleanup_reader_ ProtoReader r;
        _cleanup_free_ uint8_t *buf = NULL;
        ProtoPhaseResult out;
        ProtoFrame f;
        size_t len;

        ck_assert_int_eq(proto_encode_phase_result(&phase_ok, &buf, &len), 0);
        ck_assert_uint_eq(len, PROTO_HEADER_SIZE + 4 + strlen("create-seq") + 7 * 8);
        proto_reader_init(&r);
        frame_of(&r, buf, len, &f);
        ck_assert_uint_eq(f.type, PROTO_PHASE_RESULT);
        memset(&out, 0xaa, sizeof(out));
        ck_assert_int_eq(proto_decode_phase_result(&f, &out), 0);
        ck_assert_str_eq(out.name, "create-seq");
        ck_assert_uint_eq(out.ops, phase_ok.ops);
        ck_assert_uint_eq(out.duration_usec, phase_ok.duration_usec);
        ck_assert_uint_eq(out.lat_min_ns, phase_ok.lat_min_ns);
        ck_assert_uint_eq(out.lat_mean_ns, phase_ok.lat_mean_ns);
        ck_assert_uint_eq(out.lat_p50_ns, phase_ok.lat_p50_ns);
        ck_assert_uint_eq(out.lat_p99_ns, phase_ok.lat_p99_ns);
        ck_assert_uint_eq(out.lat_max_ns, phase_ok.lat_max_ns);
}
END_TEST

/* Names and numbers as a hostile worker could send them, bypassing the encoder. */
static const struct {
        const char *name;
        uint64_t v[7]; /* ops, duration, min, mean, p50, p99, max */
        int ret;
} phase_cases[] = {
        { "stat-rand", { 10, 5, 1, 2, 2, 3, 4 }, 0 },
        { "a", { 1, 0, 7, 7, 7, 7, 7 }, 0 },
        { "abcdefghijklmnopqrstuvwxyz-abcd", { 1, 1, 1, 1, 1, 1, 1 }, 0 },     /* 31: the maximum */
        { "abcdefghijklmnopqrstuvwxyz-abcde", { 1, 1, 1, 1, 1, 1, 1 }, -EBADMSG }, /* 32 */
        { "", { 1, 1, 1, 1, 1, 1, 1 }, -EBADMSG },
        { "Create", { 1, 1, 1, 1, 1, 1, 1 }, -EBADMSG },
        { "create_seq", { 1, 1, 1, 1, 1, 1, 1 }, -EBADMSG },
        { "stat seq", { 1, 1, 1, 1, 1, 1, 1 }, -EBADMSG },
        { "phase1", { 1, 1, 1, 1, 1, 1, 1 }, -EBADMSG },
        { "st\xc3\xa4t", { 1, 1, 1, 1, 1, 1, 1 }, -EBADMSG },
        { "create-seq\n", { 1, 1, 1, 1, 1, 1, 1 }, -EBADMSG },
        /* no operations: every latency 0 */
        { "delete-seq", { 0, 100, 0, 0, 0, 0, 0 }, 0 },
        { "delete-seq", { 0, 100, 0, 0, 0, 0, 5 }, -EBADMSG },
        { "delete-seq", { 0, 100, 0, 3, 0, 0, 0 }, -EBADMSG },
        /* order of the latencies */
        { "x", { 5, 1, 3, 2, 3, 4, 5 }, -EBADMSG },     /* mean < min */
        { "x", { 5, 1, 1, 6, 3, 4, 5 }, -EBADMSG },     /* mean > max */
        { "x", { 5, 1, 4, 4, 3, 4, 5 }, -EBADMSG },     /* p50 < min */
        { "x", { 5, 1, 1, 2, 4, 3, 5 }, -EBADMSG },     /* p99 < p50 */
        { "x", { 5, 1, 1, 2, 3, 6, 5 }, -EBADMSG },     /* p99 > max */
        /* everything must fit an SQLite INTEGER */
        { "x", { (uint64_t) INT64_MAX, 1, 1, 1, 1, 1, 1 }, 0 },
        { "x", { (uint64_t) INT64_MAX + 1, 1, 1, 1, 1, 1, 1 }, -EBADMSG },
        { "x", { 1, UINT64_MAX, 1, 1, 1, 1, 1 }, -EBADMSG },
        { "x", { 1, 1, 1, 1, 1, 1, UINT64_MAX }, -EBADMSG },
};

START_TEST(test_phase_result_fields) {
        _cleanup_reader_ ProtoReader r;
        _cleanup_free_ uint8_t *buf = NULL, *enc = NULL;
        ProtoPhaseResult out, in = {};
        ProtoFrame f;
        size_t len, enc_len;

        phase_payload(phase_cases[_i].name, phase_cases[_i].v, &buf, &len);
        proto_reader_init(&r);
        frame_of(&r, buf, len, &f);
        ck_assert_msg(proto_decode_phase_result(&f, &out) == phase_cases[_i].ret, "case %d", _i);

        /* The encoder refuses what the decoder would (when the name fits the struct at all). */
        if (strlen(phase_cases[_i].name) <= PROTO_PHASE_NAME_MAX) {
                snprintf(in.name, sizeof(in.name), "%s", phase_cases[_i].name);
                in.ops = phase_cases[_i].v[0];
                in.duration_usec = phase_cases[_i].v[1];
                in.lat_min_ns = phase_cases[_i].v[2];
                in.lat_mean_ns = phase_cases[_i].v[3];
                in.lat_p50_ns = phase_cases[_i].v[4];
                in.lat_p99_ns = phase_cases[_i].v[5];
                in.lat_max_ns = phase_cases[_i].v[6];
                ck_assert_int_eq(proto_encode_phase_result(&in, &enc, &enc_len),
                                 phase_cases[_i].ret == 0 ? 0 : -EINVAL);
        }
}
END_TEST

/* A name with a NUL inside, a name length pointing past the payload, and every truncation. */
START_TEST(test_phase_result_garbage) {
        static const uint64_t v[7] = { 1, 1, 1, 1, 1, 1, 1 };
        _cleanup_free_ uint8_t *buf = NULL;
        ProtoPhaseResult out;
        ProtoFrame f;
        size_t len;

        phase_payload("ab", v, &buf, &len);
        f = (ProtoFrame) { .type = PROTO_PHASE_RESULT, .length = (uint32_t) (len - PROTO_HEADER_SIZE),
                           .payload = buf + PROTO_HEADER_SIZE };
        ck_assert_int_eq(proto_decode_phase_result(&f, &out), 0);

        buf[PROTO_HEADER_SIZE + 4 + 1] = 0;                      /* "a\0" */
        ck_assert_int_eq(proto_decode_phase_result(&f, &out), -EBADMSG);
        buf[PROTO_HEADER_SIZE + 4 + 1] = 'b';

        put_le32(buf + PROTO_HEADER_SIZE, 0xffffffffu);          /* name length beyond everything */
        ck_assert_int_eq(proto_decode_phase_result(&f, &out), -EBADMSG);
        put_le32(buf + PROTO_HEADER_SIZE, 3);                    /* one byte too many: eats into ops */
        ck_assert_int_eq(proto_decode_phase_result(&f, &out), -EBADMSG);
        put_le32(buf + PROTO_HEADER_SIZE, 2);

        for (uint32_t cut = 0; cut < f.length; cut++) {
                ProtoFrame g = f;
                g.length = cut;
                ck_assert_msg(proto_decode_phase_result(&g, &out) == -EBADMSG, "cut at %u accepted", cut);
        }
        /* Through the reader: every prefix of the frame is "need more bytes", never a frame. */
        for (size_t cut = 0; cut < len; cut++) {
                _cleanup_reader_ ProtoReader r;
                ProtoFrame g;

                proto_reader_init(&r);
                ck_assert_int_eq(proto_reader_push(&r, buf, cut), 0);
                ck_assert_int_eq(proto_reader_next(&r, &g), 0);
        }
        /* The type after the last one does not exist (yet): garbage to the reader. */
        {
                _cleanup_reader_ ProtoReader r;
                ProtoFrame g;

                buf[6] = _PROTO_TYPE_MAX;
                proto_reader_init(&r);
                ck_assert_int_eq(proto_reader_push(&r, buf, len), 0);
                ck_assert_int_eq(proto_reader_next(&r, &g), -EBADMSG);
        }
}
END_TEST

/* ---- POSITION_RESULT ---- */

static const ProtoPositionResult position_ok = {
        .index = 7,
        .offset_bytes = UINT64_C(3) << 40,
        .bytes = UINT64_C(64) << 20,
        .duration_usec = 512345,
        .lat_mean_ns = 7800000,
        .lat_max_ns = 21000000,
};

/* A POSITION_RESULT frame of raw fields: index, then [0] offset .. [4] lat_max_ns. */
static void position_payload(uint32_t index, const uint64_t v[5], uint8_t **ret, size_t *ret_len) {
        size_t len = PROTO_HEADER_SIZE + 4 + 5 * 8;
        uint8_t *b = calloc(1, len);

        ck_assert_ptr_nonnull(b);
        put_le32(b, PROTO_MAGIC);
        b[4] = PROTO_VERSION;
        b[6] = PROTO_POSITION_RESULT;
        put_le32(b + 8, (uint32_t) (len - PROTO_HEADER_SIZE));
        put_le32(b + 16, index);
        for (unsigned i = 0; i < 5; i++)
                put_le64(b + 20 + 8 * i, v[i]);
        *ret = b;
        *ret_len = len;
}

START_TEST(test_roundtrip_position_result) {
        _cleanup_reader_ ProtoReader r;
        _cleanup_free_ uint8_t *buf = NULL;
        ProtoPositionResult out;
        ProtoFrame f;
        size_t len;

        ck_assert_int_eq(proto_encode_position_result(&position_ok, &buf, &len), 0);
        ck_assert_uint_eq(len, PROTO_HEADER_SIZE + 4 + 5 * 8);
        ck_assert_uint_eq(buf[6], 12);          /* the type number is part of the protocol */
        proto_reader_init(&r);
        frame_of(&r, buf, len, &f);
        ck_assert_uint_eq(f.type, PROTO_POSITION_RESULT);
        memset(&out, 0xaa, sizeof(out));
        ck_assert_int_eq(proto_decode_position_result(&f, &out), 0);
        ck_assert_uint_eq(out.index, position_ok.index);
        ck_assert_uint_eq(out.offset_bytes, position_ok.offset_bytes);
        ck_assert_uint_eq(out.bytes, position_ok.bytes);
        ck_assert_uint_eq(out.duration_usec, position_ok.duration_usec);
        ck_assert_uint_eq(out.lat_mean_ns, position_ok.lat_mean_ns);
        ck_assert_uint_eq(out.lat_max_ns, position_ok.lat_max_ns);

        /* Every truncation is refused. */
        for (uint32_t cut = 0; cut < f.length; cut++) {
                ProtoFrame g = f;
                g.length = cut;
                ck_assert_msg(proto_decode_position_result(&g, &out) == -EBADMSG, "cut at %u accepted", cut);
        }
}
END_TEST

/* ---- STEADY_STATE ---- */

START_TEST(test_roundtrip_steady_state) {
        _cleanup_reader_ ProtoReader r;
        _cleanup_free_ uint8_t *buf = NULL, *big = NULL;
        ProtoSteadyState out, in = { .t_ms = 42000 };
        ProtoFrame f;
        size_t len;

        ck_assert_int_eq(proto_encode_steady_state(&in, &buf, &len), 0);
        ck_assert_uint_eq(len, PROTO_HEADER_SIZE + 8);
        ck_assert_uint_eq(buf[6], 13);          /* the type number is part of the protocol */
        proto_reader_init(&r);
        frame_of(&r, buf, len, &f);
        ck_assert_uint_eq(f.type, PROTO_STEADY_STATE);
        memset(&out, 0xaa, sizeof(out));
        ck_assert_int_eq(proto_decode_steady_state(&f, &out), 0);
        ck_assert_uint_eq(out.t_ms, 42000);
        for (uint32_t cut = 0; cut < f.length; cut++) {
                ProtoFrame g = f;
                g.length = cut;
                ck_assert_msg(proto_decode_steady_state(&g, &out) == -EBADMSG, "cut at %u accepted", cut);
        }
        /* Another type is not this one. */
        f.type = PROTO_SAMPLE;
        ck_assert_int_eq(proto_decode_steady_state(&f, &out), -EBADMSG);

        /* A time that would not fit the database in usec: refused both ways. */
        in.t_ms = (uint64_t) INT64_MAX / 1000 + 1;
        ck_assert_int_eq(proto_encode_steady_state(&in, &big, &len), -EINVAL);
        put_le64((uint8_t *) f.payload, in.t_ms);
        f.type = PROTO_STEADY_STATE;
        ck_assert_int_eq(proto_decode_steady_state(&f, &out), -EBADMSG);
        put_le64((uint8_t *) f.payload, (uint64_t) INT64_MAX / 1000);
        ck_assert_int_eq(proto_decode_steady_state(&f, &out), 0);
}
END_TEST

/* ---- filesystem frames ---- */

static ProtoFsMember fs_members_ok[] = {
        { .path = (char *) "/dev/loop3", .dev = UINT64_C(0x703), .diskseq = 41, .flags = PROTO_GUARD_SCRATCH },
        { .path = (char *) "/dev/disk/by-id/wwn-0x5000c500a1b2c3d4", .dev = UINT64_C(0x800010), .diskseq = 0 },
};

static const ProtoFsSetup fs_setup_ok = {
        .stage = PROTO_FS_STAGE_MAKE,
        .fs_type = (char *) "btrfs",
        .layout = (char *) "raid1",
        .mkfs_options = (char *) "--nodesize 16k -O no-holes",
        .mount_options = (char *) "compress=zstd:3,noatime",
        .expect_uuid = (char *) "",
        .n_members = 2,
        .members = fs_members_ok,
};

static const ProtoFsInfo fs_info_ok = {
        .fs_type = (char *) "btrfs",
        .uuid = (char *) "5c1e3f2a-9d6b-4e8f-a1c2-3b4d5e6f7a8b",
        .mkfs_command = (char *) "mkfs.btrfs -d raid1 -m raid1 /dev/loop3 /dev/sdb",
        .mkfs_usec = 812345,
        .mkfs_output = (char *) "btrfs-progs v6.2\n\tRAID1\nGr\xc3\xbc\xc3\x9f" "e\n",
        .mount_options = (char *) "rw,nosuid,nodev,relatime,space_cache=v2",
        .size_bytes = UINT64_C(2) << 30,
        .used_bytes = UINT64_C(3) << 20,
        .avail_bytes = UINT64_C(1) << 30,
        .inodes = 0,
        .inodes_free = 0,
};

START_TEST(test_roundtrip_fs_setup) {
        _cleanup_reader_ ProtoReader r;
        _cleanup_free_ uint8_t *buf = NULL;
        ProtoFsSetup out = {}, copy = {};
        ProtoFrame f;
        size_t len;

        proto_reader_init(&r);
        ck_assert_int_eq(proto_encode_fs_setup(&fs_setup_ok, &buf, &len), 0);
        frame_of(&r, buf, len, &f);
        ck_assert_uint_eq(f.type, PROTO_FS_SETUP);
        ck_assert_int_eq(proto_decode_fs_setup(&f, &out), 0);
        ck_assert_uint_eq(out.stage, PROTO_FS_STAGE_MAKE);
        ck_assert_str_eq(out.fs_type, "btrfs");
        ck_assert_str_eq(out.layout, "raid1");
        ck_assert_str_eq(out.mkfs_options, fs_setup_ok.mkfs_options);
        ck_assert_str_eq(out.mount_options, fs_setup_ok.mount_options);
        ck_assert_str_eq(out.expect_uuid, "");
        ck_assert_uint_eq(out.n_members, 2);
        for (unsigned i = 0; i < 2; i++) {
                ck_assert_str_eq(out.members[i].path, fs_members_ok[i].path);
                ck_assert_uint_eq(out.members[i].dev, fs_members_ok[i].dev);
                ck_assert_uint_eq(out.members[i].diskseq, fs_members_ok[i].diskseq);
                ck_assert_uint_eq(out.members[i].flags, fs_members_ok[i].flags);
        }

        /* What the supervisor keeps is a deep copy. */
        ck_assert_int_eq(proto_fs_setup_copy(&out, &copy), 0);
        ck_assert_ptr_ne(copy.members[1].path, out.members[1].path);
        proto_fs_setup_clear(&out);
        ck_assert_ptr_null(out.members);
        ck_assert_str_eq(copy.members[1].path, fs_members_ok[1].path);
        ck_assert_str_eq(copy.mount_options, fs_setup_ok.mount_options);
        proto_fs_setup_clear(&copy);
}
END_TEST

START_TEST(test_roundtrip_fs_info) {
        _cleanup_reader_ ProtoReader r;
        _cleanup_free_ uint8_t *buf = NULL;
        ProtoFsInfo out = {};
        ProtoFrame f;
        size_t len;

        proto_reader_init(&r);
        ck_assert_int_eq(proto_encode_fs_info(&fs_info_ok, &buf, &len), 0);
        frame_of(&r, buf, len, &f);
        ck_assert_uint_eq(f.type, PROTO_FS_INFO);
        ck_assert_int_eq(proto_decode_fs_info(&f, &out), 0);
        ck_assert_str_eq(out.fs_type, fs_info_ok.fs_type);
        ck_assert_str_eq(out.uuid, fs_info_ok.uuid);
        ck_assert_str_eq(out.mkfs_command, fs_info_ok.mkfs_command);
        ck_assert_uint_eq(out.mkfs_usec, fs_info_ok.mkfs_usec);
        ck_assert_str_eq(out.mkfs_output, fs_info_ok.mkfs_output);
        ck_assert_str_eq(out.mount_options, fs_info_ok.mount_options);
        ck_assert_uint_eq(out.size_bytes, fs_info_ok.size_bytes);
        ck_assert_uint_eq(out.used_bytes, fs_info_ok.used_bytes);
        ck_assert_uint_eq(out.avail_bytes, fs_info_ok.avail_bytes);
        ck_assert_uint_eq(out.inodes, 0);
        ck_assert_uint_eq(out.inodes_free, 0);
        proto_fs_info_clear(&out);
        ck_assert_ptr_null(out.uuid);
}
END_TEST

/* The wire form of a setup without the encoder's checks: what a broken daemon (or a test) sends. */
static void fs_setup_raw(const ProtoFsSetup *m, uint32_t n_members, uint8_t **ret, size_t *ret_len) {
        const char *strs[] = { m->fs_type, m->layout, m->mkfs_options, m->mount_options, m->expect_uuid };
        size_t len = 4 + 4 + 2 * 4, o = PROTO_HEADER_SIZE;
        uint8_t *b;

        for (size_t i = 0; i < ELEMENTSOF(strs); i++)
                len += 4 + strlen(strs[i]);
        const char *md_name = m->md_name ?: "", *md_options = m->md_options ?: "",
                   *lvm_options = m->lvm_options ?: "";

        for (uint32_t i = 0; i < n_members; i++)
                len += 4 + strlen(m->members[i].path) + 20;
        len += 4 + strlen(md_name) + 4 + strlen(md_options) + 4 + 4;
        len += 4 + strlen(lvm_options) + 8 + 4;
        b = calloc(1, PROTO_HEADER_SIZE + len);
        ck_assert_ptr_nonnull(b);
        memcpy(b, "BNCH", 4);
        b[4] = PROTO_VERSION;
        b[6] = PROTO_FS_SETUP;
        put_le32(b + 8, (uint32_t) len);
        put_le32(b + o, m->stage);
        o += 4;
        for (size_t i = 0; i < ELEMENTSOF(strs); i++) {
                put_le32(b + o, (uint32_t) strlen(strs[i]));
                memcpy(b + o + 4, strs[i], strlen(strs[i]));
                o += 4 + strlen(strs[i]);
        }
        put_le32(b + o, n_members);
        o += 4;
        for (uint32_t i = 0; i < n_members; i++) {
                const ProtoFsMember *x = &m->members[i];

                put_le32(b + o, (uint32_t) strlen(x->path));
                memcpy(b + o + 4, x->path, strlen(x->path));
                o += 4 + strlen(x->path);
                put_le64(b + o, x->dev);
                put_le64(b + o + 8, x->diskseq);
                put_le32(b + o + 16, x->flags);
                o += 20;
        }
        put_le32(b + o, m->partitions);
        put_le32(b + o + 4, m->partition);
        o += 8;
        put_le32(b + o, (uint32_t) strlen(md_name));
        memcpy(b + o + 4, md_name, strlen(md_name));
        o += 4 + strlen(md_name);
        put_le32(b + o, (uint32_t) strlen(md_options));
        memcpy(b + o + 4, md_options, strlen(md_options));
        o += 4 + strlen(md_options);
        put_le32(b + o, m->md_resync);
        put_le32(b + o + 4, m->md_release);
        o += 8;
        put_le32(b + o, (uint32_t) strlen(lvm_options));
        memcpy(b + o + 4, lvm_options, strlen(lvm_options));
        o += 4 + strlen(lvm_options);
        put_le64(b + o, m->lv_size);
        put_le32(b + o + 8, m->layout_flags);
        o += 12;
        ck_assert_uint_eq(o, PROTO_HEADER_SIZE + len);
        *ret = b;
        *ret_len = o;
}

/* 1024 bytes: the bound of options, a quarter of the bound of mkfs output. */
#define LONG_1024 "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa" \
        "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa" \
        "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa" \
        "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa" \
        "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa" \
        "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa" \
        "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa" \
        "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa" \
        "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa" \
        "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa" \
        "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa" \
        "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa" \
        "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa" \
        "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa" \
        "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa" \
        "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"

static const struct {
        const char *what;
        uint32_t stage;
        const char *fs_type, *layout, *mkfs_options, *mount_options, *expect_uuid;
        uint32_t n_members;
        const char *path1;      /* NULL: fs_members_ok[1]'s */
        uint64_t dev1;          /* 0: fs_members_ok[1]'s */
        uint32_t flags1;
        int ret;
        uint32_t partitions, partition;
} fs_setup_cases[] = {
        { "btrfs raid1", 0, NULL, NULL, NULL, NULL, NULL, 0, NULL, 0, 0, 0 },
        { "btrfs single over two", 0, NULL, "single", NULL, NULL, NULL, 0, NULL, 0, 0, 0 },
        { "btrfs raid10", 0, NULL, "raid10", NULL, NULL, NULL, 0, NULL, 0, 0, 0 },
        { "ext4 on one", 0, "ext4", "single", NULL, NULL, NULL, 1, NULL, 0, 0, 0 },
        { "mount with a UUID", PROTO_FS_STAGE_MOUNT, NULL, NULL, NULL, NULL, "5c1e3f2a-9d6b", 0, NULL, 0, 0, 0 },
        { "options of 1024 bytes", 0, NULL, NULL, LONG_1024, LONG_1024, NULL, 0, NULL, 0, 0, 0 },
        { "fs_type empty", 0, "", NULL, NULL, NULL, NULL, 0, NULL, 0, 0, -EBADMSG },
        { "fs_type upper case", 0, "EXT4", NULL, NULL, NULL, NULL, 0, NULL, 0, 0, -EBADMSG },
        { "fs_type with a dash", 0, "ext-4", NULL, NULL, NULL, NULL, 0, NULL, 0, 0, -EBADMSG },
        { "fs_type with a slash", 0, "../sh", NULL, NULL, NULL, NULL, 0, NULL, 0, 0, -EBADMSG },
        { "fs_type of 17", 0, "abcdefghijklmnopq", NULL, NULL, NULL, NULL, 0, NULL, 0, 0, -EBADMSG },
        { "unknown layout", 0, NULL, "raid5", NULL, NULL, NULL, 0, NULL, 0, 0, -EBADMSG },
        { "ext4 raid1", 0, "ext4", "raid1", NULL, NULL, NULL, 1, NULL, 0, 0, -EBADMSG },
        { "ext4 on two", 0, "ext4", "single", NULL, NULL, NULL, 2, NULL, 0, 0, -EBADMSG },
        { "no members", 0, NULL, NULL, NULL, NULL, NULL, UINT32_MAX, NULL, 0, 0, -EBADMSG },
        { "17 members", 0, NULL, NULL, NULL, NULL, NULL, 17, NULL, 0, 0, -EBADMSG },
        { "stage 0", UINT32_MAX, NULL, NULL, NULL, NULL, NULL, 0, NULL, 0, 0, -EBADMSG },
        { "stage 3", 3, NULL, NULL, NULL, NULL, NULL, 0, NULL, 0, 0, -EBADMSG },
        /* The filesystem an earlier entry made, which the members may carry. */
        { "MAKE with a UUID", PROTO_FS_STAGE_MAKE, NULL, NULL, NULL, NULL, "5c1e3f2a", 0, NULL, 0, 0, 0 },
        { "MAKE with a bad UUID", PROTO_FS_STAGE_MAKE, NULL, NULL, NULL, NULL, "5c1e 3f2a", 0, NULL, 0, 0, -EBADMSG },
        { "MOUNT without one", PROTO_FS_STAGE_MOUNT, NULL, NULL, NULL, NULL, "", 0, NULL, 0, 0, -EBADMSG },
        { "UUID with a slash", PROTO_FS_STAGE_MOUNT, NULL, NULL, NULL, NULL, "5c1e/3f2a", 0, NULL, 0, 0, -EBADMSG },
        { "options of 1025 bytes", 0, NULL, NULL, LONG_1024 "a", NULL, NULL, 0, NULL, 0, 0, -EBADMSG },
        { "mount options of 1025", 0, NULL, NULL, NULL, "a" LONG_1024, NULL, 0, NULL, 0, 0, -EBADMSG },
        { "newline in options", 0, NULL, NULL, "-b 4096\n-O ^has_journal", NULL, NULL, 0, NULL, 0, 0, -EBADMSG },
        { "escape in mount options", 0, NULL, NULL, NULL, "noatime\x1b[2J", NULL, 0, NULL, 0, 0, -EBADMSG },
        { "options not UTF-8", 0, NULL, NULL, "-L \xff", NULL, NULL, 0, NULL, 0, 0, -EBADMSG },
        { "relative member path", 0, NULL, NULL, NULL, NULL, NULL, 0, "loop4", 0, 0, -EBADMSG },
        { "empty member path", 0, NULL, NULL, NULL, NULL, NULL, 0, "", 0, 0, -EBADMSG },
        { "member path with a tab", 0, NULL, NULL, NULL, NULL, NULL, 0, "/dev/lo\top4", 0, 0, -EBADMSG },
        { "member dev 0", 0, NULL, NULL, NULL, NULL, NULL, 0, NULL, UINT64_MAX, 0, -EBADMSG },
        { "the same member twice", 0, NULL, NULL, NULL, NULL, NULL, 0, NULL, 0x703, 0, -EBADMSG },
        { "unknown member flag", 0, NULL, NULL, NULL, NULL, NULL, 0, NULL, 0, 2, -EBADMSG },
        /* An entry of fs-entry.h, and partitions (version 2). */
        { "ext4-from-ext3", 0, "ext4-from-ext3", "single", NULL, NULL, NULL, 1, NULL, 0, 0, 0 },
        { "a dash, no entry", 0, "ext4-from-ext4", "single", NULL, NULL, NULL, 1, NULL, 0, 0, -EBADMSG },
        { "partition 2 of 2", 0, NULL, NULL, NULL, NULL, NULL, 0, NULL, 0, 0, 0, 2, 2 },
        { "partition 16 of 16", 0, NULL, NULL, NULL, NULL, NULL, 0, NULL, 0, 0, 0, 16, 16 },
        { "partition 3 of 2", 0, NULL, NULL, NULL, NULL, NULL, 0, NULL, 0, 0, -EBADMSG, 2, 3 },
        { "partition 0 of 2", 0, NULL, NULL, NULL, NULL, NULL, 0, NULL, 0, 0, -EBADMSG, 2, 0 },
        { "partition 1 of none", 0, NULL, NULL, NULL, NULL, NULL, 0, NULL, 0, 0, -EBADMSG, 0, 1 },
        { "17 partitions", 0, NULL, NULL, NULL, NULL, NULL, 0, NULL, 0, 0, -EBADMSG, 17, 1 },
};

/* Each row breaks (or keeps) one rule: the encoder refuses it with -EINVAL and the decoder, fed the
 * same fields on the wire, with -EBADMSG. */
START_TEST(test_fs_setup_fields) {
        ProtoFsMember members[17];
        ProtoFsSetup m = fs_setup_ok, out = {};
        _cleanup_free_ uint8_t *raw = NULL, *enc = NULL;
        ProtoFrame f;
        size_t len;
        int ret = fs_setup_cases[_i].ret;

        for (unsigned i = 0; i < ELEMENTSOF(members); i++)
                members[i] = (ProtoFsMember) { .path = (char *) "/dev/loopN", .dev = 0x700 + i + 10 };
        members[0] = fs_members_ok[0];
        members[1] = fs_members_ok[1];
        if (fs_setup_cases[_i].stage)
                m.stage = fs_setup_cases[_i].stage == UINT32_MAX ? 0 : fs_setup_cases[_i].stage;
        if (fs_setup_cases[_i].fs_type)
                m.fs_type = (char *) fs_setup_cases[_i].fs_type;
        if (fs_setup_cases[_i].layout)
                m.layout = (char *) fs_setup_cases[_i].layout;
        if (fs_setup_cases[_i].mkfs_options)
                m.mkfs_options = (char *) fs_setup_cases[_i].mkfs_options;
        if (fs_setup_cases[_i].mount_options)
                m.mount_options = (char *) fs_setup_cases[_i].mount_options;
        if (fs_setup_cases[_i].expect_uuid)
                m.expect_uuid = (char *) fs_setup_cases[_i].expect_uuid;
        if (fs_setup_cases[_i].n_members)
                m.n_members = fs_setup_cases[_i].n_members == UINT32_MAX ? 0 : fs_setup_cases[_i].n_members;
        if (fs_setup_cases[_i].path1)
                members[1].path = (char *) fs_setup_cases[_i].path1;
        if (fs_setup_cases[_i].dev1)
                members[1].dev = fs_setup_cases[_i].dev1 == UINT64_MAX ? 0 : fs_setup_cases[_i].dev1;
        members[1].flags = fs_setup_cases[_i].flags1;
        m.members = members;
        m.partitions = fs_setup_cases[_i].partitions;
        m.partition = fs_setup_cases[_i].partition;

        ck_assert_msg(proto_fs_setup_valid(&m) == (ret == 0), "%s: valid %d", fs_setup_cases[_i].what,
                      proto_fs_setup_valid(&m));
        ck_assert_msg(proto_encode_fs_setup(&m, &enc, &len) == (ret == 0 ? 0 : -EINVAL), "%s: encoder",
                      fs_setup_cases[_i].what);
        fs_setup_raw(&m, m.n_members, &raw, &len);
        f = (ProtoFrame) { .type = PROTO_FS_SETUP, .length = (uint32_t) (len - PROTO_HEADER_SIZE),
                           .payload = raw + PROTO_HEADER_SIZE };
        ck_assert_msg(proto_decode_fs_setup(&f, &out) == ret, "%s: decoder", fs_setup_cases[_i].what);
        if (ret == 0) {
                ck_assert_uint_eq(out.n_members, m.n_members);
                ck_assert_str_eq(out.mkfs_options, m.mkfs_options);
        }
        proto_fs_setup_clear(&out);
}
END_TEST

/* The md layouts: any filesystem over two or more members, with the array's name "benchd-JOB-ENTRY";
 * the name, md_options and a resync mode belong to them only. Round trip and copy keep them. */
START_TEST(test_fs_setup_md) {
        static const struct {
                const char *what, *fs_type, *layout, *md_name, *md_options;
                uint32_t n_members, md_resync;
                bool valid;
                uint32_t md_release;
        } cases[] = {
                { "ext4 md-raid1", "ext4", "md-raid1", "benchd-7-0", "", 2, 0, true },
                { "xfs md-raid0 with options", "xfs", "md-raid0", "benchd-18446744073709551615-3", "--chunk=64K", 2, 1, true },
                { "btrfs on md-raid10", "btrfs", "md-raid10", "benchd-1-12", NULL, 4, 0, true },
                { "md-raid5", "ext4", "md-raid5", "benchd-2-0", NULL, 3, 1, true },
                { "md on one member", "ext4", "md-raid1", "benchd-7-0", NULL, 1, 0, false },
                { "md without a name", "ext4", "md-raid1", "", NULL, 2, 0, false },
                { "md with a NULL name", "ext4", "md-raid1", NULL, NULL, 2, 0, false },
                { "name not benchd's", "ext4", "md-raid1", "md0", NULL, 2, 0, false },
                { "name without entry", "ext4", "md-raid1", "benchd-7", NULL, 2, 0, false },
                { "name with a slash", "ext4", "md-raid1", "benchd-7-0/x", NULL, 2, 0, false },
                { "name too long", "ext4", "md-raid1", "benchd-1234567890123456789012345-0", NULL, 2, 0, false },
                { "name on single", "ext4", "single", "benchd-7-0", NULL, 1, 0, false },
                { "md_options on btrfs raid1", "btrfs", "raid1", NULL, "--chunk=64K", 2, 0, false },
                { "md_options with a newline", "ext4", "md-raid0", "benchd-7-0", "--chunk=64K\n", 2, 0, false },
                { "resync 2", "ext4", "md-raid1", "benchd-7-0", NULL, 2, 2, false },
                /* The entry's last step releases the members: md layouts only, 0 or 1. */
                { "md-raid1 released", "ext4", "md-raid1", "benchd-7-0", NULL, 2, 0, true, 1 },
                { "release 2", "ext4", "md-raid1", "benchd-7-0", NULL, 2, 0, false, 2 },
                { "release on btrfs raid1", "btrfs", "raid1", NULL, NULL, 2, 0, false, 1 },
        };

        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                _cleanup_free_ uint8_t *buf = NULL, *raw = NULL;
                ProtoFsMember members[4] = {
                        { .path = (char *) "/dev/loop1", .dev = 0x700001 },
                        { .path = (char *) "/dev/loop2", .dev = 0x700002 },
                        { .path = (char *) "/dev/loop3", .dev = 0x700003 },
                        { .path = (char *) "/dev/loop4", .dev = 0x700004 },
                };
                ProtoFsSetup m = {
                        .stage = PROTO_FS_STAGE_MAKE, .fs_type = (char *) cases[i].fs_type,
                        .layout = (char *) cases[i].layout, .mkfs_options = (char *) "", .mount_options = (char *) "",
                        .expect_uuid = (char *) "", .n_members = cases[i].n_members, .members = members,
                        .md_name = (char *) cases[i].md_name, .md_options = (char *) cases[i].md_options,
                        .md_resync = cases[i].md_resync, .md_release = cases[i].md_release,
                }, out = {}, copy = {};
                ProtoFrame f;
                size_t len;

                ck_assert_msg(proto_fs_setup_valid(&m) == cases[i].valid, "%s: valid", cases[i].what);
                ck_assert_msg(proto_encode_fs_setup(&m, &buf, &len) == (cases[i].valid ? 0 : -EINVAL), "%s: encoder",
                              cases[i].what);
                fs_setup_raw(&m, m.n_members, &raw, &len);
                f = (ProtoFrame) { .type = PROTO_FS_SETUP, .length = (uint32_t) (len - PROTO_HEADER_SIZE),
                                   .payload = raw + PROTO_HEADER_SIZE };
                ck_assert_msg(proto_decode_fs_setup(&f, &out) == (cases[i].valid ? 0 : -EBADMSG), "%s: decoder",
                              cases[i].what);
                if (!cases[i].valid)
                        continue;
                ck_assert_str_eq(out.layout, cases[i].layout);
                ck_assert_str_eq(out.md_name, cases[i].md_name);
                ck_assert_str_eq(out.md_options, cases[i].md_options ?: "");
                ck_assert_uint_eq(out.md_resync, cases[i].md_resync);
                ck_assert_uint_eq(out.md_release, cases[i].md_release);
                ck_assert_int_eq(proto_fs_setup_copy(&out, &copy), 0);
                ck_assert_uint_eq(copy.md_release, cases[i].md_release);
                ck_assert_str_eq(copy.md_name, cases[i].md_name);
                ck_assert_str_eq(copy.md_options, cases[i].md_options ?: "");
                ck_assert_uint_eq(copy.md_resync, cases[i].md_resync);
                proto_fs_setup_clear(&copy);
                proto_fs_setup_clear(&out);
        }
        /* md-raid1+lvm releases its array's members too, but only with its group's removal; plain
         * lvm has no array to release. */
        {
                ProtoFsMember members[2] = {
                        { .path = (char *) "/dev/loop1", .dev = 0x700001 },
                        { .path = (char *) "/dev/loop2", .dev = 0x700002 },
                };
                ProtoFsSetup m = {
                        .stage = PROTO_FS_STAGE_MOUNT, .fs_type = (char *) "ext4", .layout = (char *) "md-raid1+lvm",
                        .mkfs_options = (char *) "", .mount_options = (char *) "", .expect_uuid = (char *) "abc",
                        .n_members = 2, .members = members, .md_name = (char *) "benchd-7-0", .md_release = 1,
                        .layout_flags = PROTO_FS_LAYOUT_REMOVE,
                };

                ck_assert(proto_fs_setup_valid(&m));
                m.layout_flags = 0;
                ck_assert(!proto_fs_setup_valid(&m));
                m.layout = (char *) "lvm";
                m.layout_flags = PROTO_FS_LAYOUT_REMOVE;
                ck_assert(!proto_fs_setup_valid(&m));
                m.md_release = 0;
                ck_assert(proto_fs_setup_valid(&m));
        }
}
END_TEST

/* FS_INFO's layout part: the commands as text (newlines and tabs kept, other controls refused), the
 * chunk and the resync time, through encode and decode. */
START_TEST(test_fs_info_layout) {
        _cleanup_free_ uint8_t *buf = NULL;
        ProtoFsInfo m = fs_info_ok, out = {};
        ProtoFrame f;
        size_t len;

        m.layout_commands = (char *) "[{\"command\":\"mdadm --create /dev/md/benchd-1-0\",\"output\":\"a\\n\tb\"}]";
        m.md_chunk_bytes = 524288;
        m.md_resync_usec = 1234567;
        ck_assert_int_eq(proto_encode_fs_info(&m, &buf, &len), 0);
        f = (ProtoFrame) { .type = PROTO_FS_INFO, .length = (uint32_t) (len - PROTO_HEADER_SIZE),
                           .payload = buf + PROTO_HEADER_SIZE };
        ck_assert_int_eq(proto_decode_fs_info(&f, &out), 0);
        ck_assert_str_eq(out.layout_commands, m.layout_commands);
        ck_assert_uint_eq(out.md_chunk_bytes, 524288);
        ck_assert_uint_eq(out.md_resync_usec, 1234567);
        proto_fs_info_clear(&out);
        free(buf);
        buf = NULL;
        m.layout_commands = (char *) "mdadm\x1b[2J";
        ck_assert_int_eq(proto_encode_fs_info(&m, &buf, &len), -EINVAL);
}
END_TEST

/* FS_RELEASED: a non-empty JSON array of commands as text, through encode and decode; anything else
 * refused by both. */
START_TEST(test_fs_released) {
        static const struct {
                const char *commands;
                bool valid;
        } cases[] = {
                { "[{\"command\":\"mdadm --zero-superblock /dev/vdc /dev/vdd\",\"usec\":5,\"exit\":0,\"output\":\"\"}]", true },
                { "[{\"output\":\"a\\n\tb\"}]", true },
                { "[]", false },
                { "{}", false },
                { "[{\"command\":", false },
                { "", false },
                { "[\"\x1b[2J\"]", false },
        };

        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                _cleanup_free_ uint8_t *buf = NULL;
                _cleanup_free_ char *out = NULL;
                uint8_t raw[256];
                size_t len, n = strlen(cases[i].commands);
                ProtoFrame f;

                ck_assert_int_eq(proto_encode_fs_released(cases[i].commands, &buf, &len), cases[i].valid ? 0 : -EINVAL);
                put_le32(raw, (uint32_t) n);
                memcpy(raw + 4, cases[i].commands, n);
                f = (ProtoFrame) { .type = PROTO_FS_RELEASED, .length = (uint32_t) (4 + n), .payload = raw };
                ck_assert_int_eq(proto_decode_fs_released(&f, &out), cases[i].valid ? 0 : -EBADMSG);
                if (cases[i].valid) {
                        ck_assert_str_eq(out, cases[i].commands);
                        ck_assert_mem_eq(buf + PROTO_HEADER_SIZE, raw, 4 + n);
                        /* One byte more or less on the wire. */
                        f.length--;
                        ck_assert_int_eq(proto_decode_fs_released(&f, &(char *) { NULL }), -EBADMSG);
                }
        }
}
END_TEST

/* n_members on the wire that the payload does not hold, and a huge count: refused before any
 * allocation of that size. */
START_TEST(test_fs_setup_counts) {
        _cleanup_free_ uint8_t *raw = NULL;
        ProtoFsSetup out = {};
        ProtoFrame f;
        size_t len;

        fs_setup_raw(&fs_setup_ok, 2, &raw, &len);
        f = (ProtoFrame) { .type = PROTO_FS_SETUP, .length = (uint32_t) (len - PROTO_HEADER_SIZE),
                           .payload = raw + PROTO_HEADER_SIZE };
        ck_assert_int_eq(proto_decode_fs_setup(&f, &out), 0);
        proto_fs_setup_clear(&out);
        /* The count is the u32 before the first member: 4 + its path + 20 bytes of each member. */
        size_t at = len - 8 - (4 + strlen(fs_members_ok[0].path) + 20) - (4 + strlen(fs_members_ok[1].path) + 20) - 4 -
                    (4 + 4 + 4 + 4) -   /* md_name, md_options (both empty), md_resync, md_release */
                    (4 + 8 + 4);        /* lvm_options (empty), lv_size, layout_flags */
        ck_assert_uint_eq(raw[at], 2);
        put_le32(raw + at, 3);
        ck_assert_int_eq(proto_decode_fs_setup(&f, &out), -EBADMSG);
        put_le32(raw + at, 1);
        ck_assert_int_eq(proto_decode_fs_setup(&f, &out), -EBADMSG);
        put_le32(raw + at, UINT32_MAX);
        ck_assert_int_eq(proto_decode_fs_setup(&f, &out), -EBADMSG);
        put_le32(raw + at, 2);
        for (uint32_t cut = 0; cut < f.length; cut++) {
                ProtoFrame g = f;
                g.length = cut;
                ck_assert_msg(proto_decode_fs_setup(&g, &out) == -EBADMSG, "cut at %u accepted", cut);
        }
}
END_TEST

/* Numbers as a hostile worker could send them, bypassing the encoder. */
static const struct {
        uint32_t index;
        uint64_t v[5]; /* offset, bytes, duration, mean, max */
        int ret;
} position_cases[] = {
        { 0, { 0, 4096, 10, 5, 9 }, 0 },
        { 999, { 1 << 20, 1 << 20, 0, 7, 7 }, 0 },                      /* mean == max */
        { UINT32_MAX, { 0, 1, 1, 1, 1 }, 0 },                           /* the plausibility rules judge it */
        { 0, { 0, 0, 1, 0, 0 }, 0 },                                    /* nothing read: no latencies */
        { 0, { 0, 0, 1, 1, 1 }, -EBADMSG },                             /* ... but latencies */
        { 0, { 0, 4096, 10, 10, 9 }, -EBADMSG },                        /* mean above max */
        { 0, { (uint64_t) INT64_MAX, 1, 1, 1, 1 }, 0 },
        { 0, { (uint64_t) INT64_MAX + 1, 1, 1, 1, 1 }, -EBADMSG },
        { 0, { 0, UINT64_MAX, 1, 1, 1 }, -EBADMSG },
        { 0, { 0, 1, UINT64_MAX, 1, 1 }, -EBADMSG },
        { 0, { 0, 1, 1, 1, UINT64_MAX }, -EBADMSG },
};

START_TEST(test_position_result_fields) {
        _cleanup_reader_ ProtoReader r;
        _cleanup_free_ uint8_t *buf = NULL, *enc = NULL;
        ProtoPositionResult out, in;
        ProtoFrame f;
        size_t len, enc_len;

        position_payload(position_cases[_i].index, position_cases[_i].v, &buf, &len);
        proto_reader_init(&r);
        frame_of(&r, buf, len, &f);
        ck_assert_msg(proto_decode_position_result(&f, &out) == position_cases[_i].ret, "case %d", _i);

        /* The encoder refuses what the decoder would. */
        in = (ProtoPositionResult) {
                .index = position_cases[_i].index,
                .offset_bytes = position_cases[_i].v[0],
                .bytes = position_cases[_i].v[1],
                .duration_usec = position_cases[_i].v[2],
                .lat_mean_ns = position_cases[_i].v[3],
                .lat_max_ns = position_cases[_i].v[4],
        };
        ck_assert_int_eq(proto_encode_position_result(&in, &enc, &enc_len), position_cases[_i].ret == 0 ? 0 : -EINVAL);
}
END_TEST

/* A type past the last is garbage to the reader, whatever the payload. */
START_TEST(test_reserved_types) {
        static const unsigned types[] = { _PROTO_TYPE_MAX, _PROTO_TYPE_MAX + 1, 0xffff };
        _cleanup_free_ uint8_t *buf = NULL;
        size_t len;

        ck_assert_int_eq(proto_encode_position_result(&position_ok, &buf, &len), 0);
        for (size_t i = 0; i < ELEMENTSOF(types); i++) {
                _cleanup_reader_ ProtoReader r;
                ProtoFrame g;

                buf[6] = (uint8_t) types[i];
                proto_reader_init(&r);
                ck_assert_int_eq(proto_reader_push(&r, buf, len), 0);
                ck_assert_msg(proto_reader_next(&r, &g) == -EBADMSG, "type %u accepted", types[i]);
        }
}
END_TEST

/* FS_INFO's commands (version 2): each comes back as sent; at most PROTO_FS_COMMANDS_MAX, each with
 * a command line, bounded text: else the encoder refuses, and the decoder a count beyond it. */
START_TEST(test_fs_info_commands) {
        ProtoFsCommand cmds[PROTO_FS_COMMANDS_MAX + 1];
        ProtoFsInfo m = fs_info_ok, out = {};
        _cleanup_free_ uint8_t *buf = NULL;
        ProtoFrame f;
        size_t len;
        uint8_t *count;

        for (unsigned i = 0; i < ELEMENTSOF(cmds); i++)
                cmds[i] = (ProtoFsCommand) { .command = (char *) "e2fsck -fyD /dev/loop3", .usec = 1000 + i,
                                             .status = (int32_t) i % 2, .output = (char *) "Pass 3A\n" };
        m.commands = cmds;
        m.n_commands = PROTO_FS_COMMANDS_MAX;
        ck_assert_int_eq(proto_encode_fs_info(&m, &buf, &len), 0);
        f = (ProtoFrame) { .type = PROTO_FS_INFO, .length = (uint32_t) (len - PROTO_HEADER_SIZE),
                           .payload = buf + PROTO_HEADER_SIZE };
        ck_assert_int_eq(proto_decode_fs_info(&f, &out), 0);
        ck_assert_uint_eq(out.n_commands, PROTO_FS_COMMANDS_MAX);
        for (unsigned i = 0; i < out.n_commands; i++) {
                ck_assert_str_eq(out.commands[i].command, cmds[i].command);
                ck_assert_uint_eq(out.commands[i].usec, cmds[i].usec);
                ck_assert_int_eq(out.commands[i].status, cmds[i].status);
                ck_assert_str_eq(out.commands[i].output, cmds[i].output);
        }
        proto_fs_info_clear(&out);
        /* The count is the u32 after the five sizes, before the md fields; one more than the bound is
         * refused. */
        count = buf + PROTO_HEADER_SIZE + (len - PROTO_HEADER_SIZE);
        /* layout_commands, md_chunk_bytes, md_resync_usec, lv_extents, lv_bytes */
        count -= 4 + strlen(m.layout_commands ?: "") + 4 * 8;
        for (unsigned i = 0; i < PROTO_FS_COMMANDS_MAX; i++)
                count -= 4 + strlen(cmds[i].command) + 8 + 4 + 4 + strlen(cmds[i].output);
        count -= 4;
        ck_assert_uint_eq(count[0], PROTO_FS_COMMANDS_MAX);
        count[0] = PROTO_FS_COMMANDS_MAX + 1;
        ck_assert_int_eq(proto_decode_fs_info(&f, &out), -EBADMSG);
        free(buf);
        buf = NULL;

        m.n_commands = PROTO_FS_COMMANDS_MAX + 1;
        ck_assert_int_eq(proto_encode_fs_info(&m, &buf, &len), -EINVAL);
        m.n_commands = 1;
        cmds[0].command = (char *) "";
        ck_assert_int_eq(proto_encode_fs_info(&m, &buf, &len), -EINVAL);
        cmds[0].command = (char *) "mkfs.ext3\t/dev/loop3";
        ck_assert_int_eq(proto_encode_fs_info(&m, &buf, &len), -EINVAL);
        cmds[0].command = (char *) "mkfs.ext3 /dev/loop3";
        cmds[0].output = (char *) "\x1b[2J";
        ck_assert_int_eq(proto_encode_fs_info(&m, &buf, &len), -EINVAL);
        m.commands = NULL;
        ck_assert_int_eq(proto_encode_fs_info(&m, &buf, &len), -EINVAL);
}
END_TEST

static const struct {
        const char *what;
        const char *fs_type, *uuid, *mkfs_command, *mkfs_output, *mount_options;
        int ret;
} fs_info_cases[] = {
        { "as sent", NULL, NULL, NULL, NULL, NULL, 0 },
        { "all empty but fs_type", NULL, "", "", "", "", 0 },
        { "fs_type empty", "", NULL, NULL, NULL, NULL, -EBADMSG },
        { "fs_type upper case", "Btrfs", NULL, NULL, NULL, NULL, -EBADMSG },
        { "uuid with a space", NULL, "5c1e 3f2a", NULL, NULL, NULL, -EBADMSG },
        { "uuid of 65", NULL, "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", NULL, NULL, NULL,
          -EBADMSG },
        { "command with a newline", NULL, NULL, "mkfs.btrfs\n/dev/loop3", NULL, NULL, -EBADMSG },
        { "output with a carriage return", NULL, NULL, NULL, "50%\r100%", NULL, -EBADMSG },
        { "output with an escape", NULL, NULL, NULL, "\x1b[1mbold", NULL, -EBADMSG },
        { "output with C1", NULL, NULL, NULL, "next\xc2\x85line", NULL, -EBADMSG },
        { "output not UTF-8", NULL, NULL, NULL, "cut \xe6\x97", NULL, -EBADMSG },
        { "output of 4097", NULL, NULL, NULL, LONG_1024 LONG_1024 LONG_1024 LONG_1024 "a", NULL, -EBADMSG },
        { "output of 4096", NULL, NULL, NULL, LONG_1024 LONG_1024 LONG_1024 LONG_1024, NULL, 0 },
        { "mount options with a tab", NULL, NULL, NULL, NULL, "rw,\tnoatime", -EBADMSG },
        { "mount options of 1025", NULL, NULL, NULL, NULL, LONG_1024 "a", -EBADMSG },
};

/* FS_INFO's payload without the encoder's checks. */
static void fs_info_raw(const ProtoFsInfo *m, uint8_t **ret, size_t *ret_len) {
        const char *strs[] = { m->fs_type, m->uuid, m->mkfs_command, NULL, m->mkfs_output, m->mount_options };
        size_t n = 5 * 8 + 4 + 4 + 4 * 8, o = 0;
        uint8_t *p;

        for (size_t i = 0; i < ELEMENTSOF(strs); i++)
                n += strs[i] ? 4 + strlen(strs[i]) : 8;
        p = calloc(1, n);
        ck_assert_ptr_nonnull(p);
        for (size_t i = 0; i < ELEMENTSOF(strs); i++) {
                if (!strs[i]) {
                        put_le64(p + o, m->mkfs_usec);
                        o += 8;
                        continue;
                }
                put_le32(p + o, (uint32_t) strlen(strs[i]));
                memcpy(p + o + 4, strs[i], strlen(strs[i]));
                o += 4 + strlen(strs[i]);
        }
        for (unsigned i = 0; i < 5; i++, o += 8)
                put_le64(p + o, 1);
        put_le32(p + o, 0);     /* no commands */
        o += 4;
        /* layout_commands (empty), md_chunk_bytes, md_resync_usec, lv_extents, lv_bytes */
        o += 4 + 4 * 8;
        ck_assert_uint_eq(o, n);
        *ret = p;
        *ret_len = n;
}

START_TEST(test_fs_info_fields) {
        ProtoFsInfo m = fs_info_ok, out = {};
        _cleanup_free_ uint8_t *buf = NULL, *raw = NULL;
        ProtoFrame f;
        size_t len;
        int ret = fs_info_cases[_i].ret;

        /* The encoder refuses what the decoder would... */
        if (fs_info_cases[_i].fs_type)
                m.fs_type = (char *) fs_info_cases[_i].fs_type;
        if (fs_info_cases[_i].uuid)
                m.uuid = (char *) fs_info_cases[_i].uuid;
        if (fs_info_cases[_i].mkfs_command)
                m.mkfs_command = (char *) fs_info_cases[_i].mkfs_command;
        if (fs_info_cases[_i].mkfs_output)
                m.mkfs_output = (char *) fs_info_cases[_i].mkfs_output;
        if (fs_info_cases[_i].mount_options)
                m.mount_options = (char *) fs_info_cases[_i].mount_options;
        ck_assert_msg(proto_encode_fs_info(&m, &buf, &len) == (ret == 0 ? 0 : -EINVAL), "%s: encoder",
                      fs_info_cases[_i].what);
        if (ret == 0) {
                f = (ProtoFrame) { .type = PROTO_FS_INFO, .length = (uint32_t) (len - PROTO_HEADER_SIZE),
                                   .payload = buf + PROTO_HEADER_SIZE };
                ck_assert_int_eq(proto_decode_fs_info(&f, &out), 0);
                proto_fs_info_clear(&out);
                return;
        }

        /* ...and the decoder refuses it on the wire, built by hand as a hostile worker would (the
         * same bytes with the valid strings decode: the row's string is what fails). */
        fs_info_raw(&fs_info_ok, &raw, &len);
        f = (ProtoFrame) { .type = PROTO_FS_INFO, .length = (uint32_t) len, .payload = raw };
        ck_assert_int_eq(proto_decode_fs_info(&f, &out), 0);
        proto_fs_info_clear(&out);
        free(raw);
        fs_info_raw(&m, &raw, &len);
        f = (ProtoFrame) { .type = PROTO_FS_INFO, .length = (uint32_t) len, .payload = raw };
        ck_assert_msg(proto_decode_fs_info(&f, &out) == -EBADMSG, "%s: decoder", fs_info_cases[_i].what);
}
END_TEST

/* ---- decoders: exact lengths ---- */

/* Every frame type there is. */
static const ProtoType all_types[] = {
        PROTO_HELLO, PROTO_SPEC, PROTO_PHASE, PROTO_SAMPLE, PROTO_HISTOGRAM, PROTO_RESULT, PROTO_ERROR,
        PROTO_LOG, PROTO_PHASE_RESULT, PROTO_POSITION_RESULT, PROTO_STEADY_STATE, PROTO_START, PROTO_FS_RELEASED,
};

static void clear_any(ProtoType type, void *m) {
        switch (type) {
        case PROTO_SPEC:      proto_spec_clear(m); break;
        case PROTO_PHASE:
        case PROTO_LOG:       proto_text_clear(m); break;
        case PROTO_HISTOGRAM: proto_histogram_clear(m); break;
        case PROTO_RESULT:    proto_result_clear(m); break;
        case PROTO_ERROR:     proto_error_clear(m); break;
        case PROTO_FS_SETUP:  proto_fs_setup_clear(m); break;
        case PROTO_FS_INFO:   proto_fs_info_clear(m); break;
        case PROTO_FS_RELEASED: free(*(char **) m); *(char **) m = NULL; break;
        default: break; /* HELLO, SAMPLE, PHASE_RESULT own nothing */
        }
}

static int decode_any(const ProtoFrame *f, ProtoType as, void *ret) {
        switch (as) {
        case PROTO_HELLO:     return proto_decode_hello(f, ret);
        case PROTO_SPEC:      return proto_decode_spec(f, ret);
        case PROTO_PHASE:
        case PROTO_LOG:       return proto_decode_text(f, ret);
        case PROTO_SAMPLE:    return proto_decode_sample(f, ret);
        case PROTO_HISTOGRAM: return proto_decode_histogram(f, ret);
        case PROTO_RESULT:    return proto_decode_result(f, ret);
        case PROTO_ERROR:     return proto_decode_error(f, ret);
        case PROTO_PHASE_RESULT: return proto_decode_phase_result(f, ret);
        case PROTO_POSITION_RESULT: return proto_decode_position_result(f, ret);
        case PROTO_STEADY_STATE: return proto_decode_steady_state(f, ret);
        case PROTO_START:     return proto_decode_start(f, ret);
        case PROTO_FS_SETUP:  return proto_decode_fs_setup(f, ret);
        case PROTO_FS_INFO:   return proto_decode_fs_info(f, ret);
        case PROTO_FS_RELEASED: return proto_decode_fs_released(f, ret);
        default:              /* a record added since, by its description (test-proto-record) */
                return proto_record_desc(as) ? proto_record_decode_as(proto_record_desc(as), f, ret) : -EINVAL;
        }
}

/* A valid encoding of each type. */
static void encode_any(ProtoType type, uint8_t **buf, size_t *len) {
        ProtoHello h = { .version = 1, .pid = 99 };
        ProtoSpec sp = { .job_id = 5, .step = 1, .text = (char *) "target=/srv\n" };
        ProtoText t = { .level = type == PROTO_LOG ? 4 : 0, .text = (char *) "ramp" };
        ProtoHistogramEntry e[] = { { 1, 2 }, { 3, 4 } };
        ProtoHistogram hi = { .n_entries = 2, .entries = e };
        ProtoError er = { .error = EPERM, .message = (char *) "no" };

        switch (type) {
        case PROTO_HELLO:     ck_assert_int_eq(proto_encode_hello(&h, buf, len), 0); break;
        case PROTO_SPEC:      ck_assert_int_eq(proto_encode_spec(&sp, buf, len), 0); break;
        case PROTO_PHASE:
        case PROTO_LOG:       ck_assert_int_eq(proto_encode_text(type, &t, buf, len), 0); break;
        case PROTO_SAMPLE:    ck_assert_int_eq(proto_encode_sample(&sample_ok, buf, len), 0); break;
        case PROTO_HISTOGRAM: ck_assert_int_eq(proto_encode_histogram(&hi, buf, len), 0); break;
        case PROTO_RESULT:    ck_assert_int_eq(proto_encode_result(&result_ok, buf, len), 0); break;
        case PROTO_ERROR:     ck_assert_int_eq(proto_encode_error(&er, buf, len), 0); break;
        case PROTO_PHASE_RESULT: ck_assert_int_eq(proto_encode_phase_result(&phase_ok, buf, len), 0); break;
        case PROTO_POSITION_RESULT:
                ck_assert_int_eq(proto_encode_position_result(&position_ok, buf, len), 0);
                break;
        case PROTO_STEADY_STATE:
                ck_assert_int_eq(proto_encode_steady_state(&(ProtoSteadyState) { .t_ms = 9000 }, buf, len), 0);
                break;
        case PROTO_START:
                ck_assert_int_eq(proto_encode_start(&(ProtoStart) { .start_usec = 1700000000000000 }, buf, len), 0);
                break;
        case PROTO_FS_SETUP:  ck_assert_int_eq(proto_encode_fs_setup(&fs_setup_ok, buf, len), 0); break;
        case PROTO_FS_INFO:   ck_assert_int_eq(proto_encode_fs_info(&fs_info_ok, buf, len), 0); break;
        case PROTO_FS_RELEASED:
                ck_assert_int_eq(proto_encode_fs_released("[{\"command\":\"mdadm --zero-superblock /dev/vdc\"}]", buf,
                                                          len), 0);
                break;
        default:              ck_abort();
        }
}

/* Every type: the valid payload decodes; one byte short, one byte long, empty, and decoding as
 * another type all give -EBADMSG. */
START_TEST(test_payload_lengths) {
        ProtoType type = all_types[_i];
        _cleanup_free_ uint8_t *buf = NULL, *longer = NULL;
        union {
                ProtoHello h;
                ProtoSpec s;
                ProtoText t;
                ProtoSample sa;
                ProtoHistogram hi;
                ProtoResult r;
                ProtoError e;
                ProtoPhaseResult p;
                ProtoPositionResult pos;
                ProtoSteadyState ss;
                ProtoStart st;
                ProtoFsSetup fs;
                ProtoFsInfo fi;
        } m;
        ProtoFrame f;
        size_t len;

        encode_any(type, &buf, &len);
        f = (ProtoFrame) { .type = type, .length = (uint32_t) (len - PROTO_HEADER_SIZE),
                           .payload = buf + PROTO_HEADER_SIZE };
        memset(&m, 0, sizeof(m));
        ck_assert_int_eq(decode_any(&f, type, &m), 0);
        clear_any(type, &m);

        f.length--;
        ck_assert_int_eq(decode_any(&f, type, &m), -EBADMSG);
        f.length = 0;
        ck_assert_int_eq(decode_any(&f, type, &m), -EBADMSG);

        longer = calloc(1, len + 1);
        memcpy(longer, buf, len);
        f = (ProtoFrame) { .type = type, .length = (uint32_t) (len + 1 - PROTO_HEADER_SIZE),
                           .payload = longer + PROTO_HEADER_SIZE };
        ck_assert_int_eq(decode_any(&f, type, &m), -EBADMSG);

        /* The right bytes under the wrong type. */
        f = (ProtoFrame) { .type = type, .length = (uint32_t) (len - PROTO_HEADER_SIZE),
                           .payload = buf + PROTO_HEADER_SIZE };
        for (int as = PROTO_HELLO; as < _PROTO_TYPE_MAX; as++) {
                if (as == (int) type || (type == PROTO_PHASE && as == PROTO_LOG) ||
                    (type == PROTO_LOG && as == PROTO_PHASE))
                        continue;
                ck_assert_msg(decode_any(&f, as, &m) == -EBADMSG, "type %d decoded as %d", type, as);
        }
}
END_TEST

/* ---- decoders: field ranges ---- */

#define SAMPLE_DOUBLE_OFFSET (11 * 8)

static const struct {
        unsigned field;   /* 0 iowait, 1 user, 2 sys, 3 dev_util, 4 dev_queue, 5 progress */
        double value;
        int ret;
} sample_double_cases[] = {
        { 0, 0.0, 0 }, { 0, 100.0, 0 }, { 0, 100.01, -EBADMSG }, { 0, -0.01, -EBADMSG },
        { 0, -1.0, -EBADMSG },
        { 1, NAN, -EBADMSG }, { 1, INFINITY, -EBADMSG }, { 2, -INFINITY, -EBADMSG },
        { 2, 1e300, -EBADMSG },
        { 3, -1.0, 0 }, { 3, 0.0, 0 }, { 3, 100.0, 0 }, { 3, -0.5, -EBADMSG }, { 3, 101.0, -EBADMSG },
        { 3, NAN, -EBADMSG },
        { 4, -1.0, 0 }, { 4, 0.0, 0 }, { 4, 1e6, 0 }, { 4, -2.0, -EBADMSG }, { 4, INFINITY, -EBADMSG },
        { 5, 0.0, 0 }, { 5, 1.0, 0 }, { 5, 1.0001, -EBADMSG }, { 5, -0.1, -EBADMSG },
};

START_TEST(test_sample_ranges) {
        _cleanup_free_ uint8_t *buf = NULL;
        ProtoSample out;
        ProtoFrame f;
        size_t len;
        uint64_t bits;

        ck_assert_int_eq(proto_encode_sample(&sample_ok, &buf, &len), 0);
        memcpy(&bits, &sample_double_cases[_i].value, sizeof(bits));
        put_le64(buf + PROTO_HEADER_SIZE + SAMPLE_DOUBLE_OFFSET + 8 * sample_double_cases[_i].field, bits);
        f = (ProtoFrame) { .type = PROTO_SAMPLE, .length = (uint32_t) (len - PROTO_HEADER_SIZE),
                           .payload = buf + PROTO_HEADER_SIZE };
        ck_assert_int_eq(proto_decode_sample(&f, &out), sample_double_cases[_i].ret);
}
END_TEST

START_TEST(test_sample_latency_order) {
        _cleanup_free_ uint8_t *buf = NULL;
        ProtoSample in = sample_ok, out;
        ProtoFrame f;
        size_t len;

        in.lat_p50_ns = in.lat_p99_ns + 1;
        ck_assert_int_eq(proto_encode_sample(&in, &buf, &len), 0);
        f = (ProtoFrame) { .type = PROTO_SAMPLE, .length = (uint32_t) (len - PROTO_HEADER_SIZE),
                           .payload = buf + PROTO_HEADER_SIZE };
        ck_assert_int_eq(proto_decode_sample(&f, &out), -EBADMSG);
}
END_TEST

/* Result latency fields, in wire order from lat_min_ns: each raised above its successor. */
static const struct {
        const char *what;
        int ret;
} result_cases[] = {
        { "min>p50", -EBADMSG },
        { "p50>p90", -EBADMSG },
        { "p90>p95", -EBADMSG },
        { "p95>p99", -EBADMSG },
        { "p99>p999", -EBADMSG },
        { "p999>p9999", -EBADMSG },
        { "p9999>max", -EBADMSG },
};

static uint64_t *result_lat(ProtoResult *r, unsigned i) {
        uint64_t *order[] = { &r->lat_min_ns, &r->lat_p50_ns, &r->lat_p90_ns, &r->lat_p95_ns,
                              &r->lat_p99_ns, &r->lat_p999_ns, &r->lat_p9999_ns, &r->lat_max_ns };
        return order[i];
}

START_TEST(test_result_latency_order) {
        _cleanup_free_ uint8_t *buf = NULL;
        ProtoResult in = result_ok, out;
        ProtoFrame f;
        size_t len;

        *result_lat(&in, _i) = *result_lat(&in, _i + 1) + 1;
        ck_assert_int_eq(proto_encode_result(&in, &buf, &len), 0);
        f = (ProtoFrame) { .type = PROTO_RESULT, .length = (uint32_t) (len - PROTO_HEADER_SIZE),
                           .payload = buf + PROTO_HEADER_SIZE };
        ck_assert_msg(proto_decode_result(&f, &out) == result_cases[_i].ret, "%s accepted", result_cases[_i].what);

        /* With nothing counted, latencies are meaningless and not checked. */
        in.ios_read = in.ios_written = in.ops = 0;
        free(buf);
        buf = NULL;
        ck_assert_int_eq(proto_encode_result(&in, &buf, &len), 0);
        f.payload = buf + PROTO_HEADER_SIZE;
        ck_assert_int_eq(proto_decode_result(&f, &out), 0);
        proto_result_clear(&out);

        /* A count that wraps to zero must not switch the check off. */
        in.ios_read = UINT64_MAX;
        in.ios_written = 1;
        free(buf);
        buf = NULL;
        ck_assert_int_eq(proto_encode_result(&in, &buf, &len), 0);
        f.payload = buf + PROTO_HEADER_SIZE;
        ck_assert_int_eq(proto_decode_result(&f, &out), -EBADMSG);
}
END_TEST

static const struct {
        double util, iowait;
        int ret;
} result_pct_cases[] = {
        { -1.0, 0.0, 0 }, { 100.0, 100.0, 0 }, { -1.5, 0.0, -EBADMSG }, { 100.5, 0.0, -EBADMSG },
        { 50.0, -1.0, -EBADMSG }, { NAN, 0.0, -EBADMSG }, { 50.0, INFINITY, -EBADMSG },
};

/* RESULT's tail: CPU times, device counters and their flags, the served verdict. */
static const struct {
        const char *what;
        uint32_t counters, served;
        uint64_t device_read, backing_written, user_usec;
        int ret;
} result_tail_cases[] = {
        { "both counters", PROTO_COUNTERS_DEVICE | PROTO_COUNTERS_BACKING, SERVED_DEVICE, 1, 1, 1, 0 },
        { "none known, all 0", 0, SERVED_UNKNOWN, 0, 0, 0, 0 },
        { "a page cache", PROTO_COUNTERS_DEVICE, SERVED_PAGE_CACHE, 0, 0, 0, 0 },
        { "an unknown flag", 4 | PROTO_COUNTERS_DEVICE, SERVED_DEVICE, 0, 0, 0, -EBADMSG },
        { "device bytes without the flag", PROTO_COUNTERS_BACKING, SERVED_DEVICE, 1, 0, 0, -EBADMSG },
        { "backing bytes without the flag", PROTO_COUNTERS_DEVICE, SERVED_DEVICE, 0, 1, 0, -EBADMSG },
        { "a verdict out of range", PROTO_COUNTERS_DEVICE, _SERVED_FROM_MAX, 0, 0, 0, -EBADMSG },
        { "a count above INT64_MAX", PROTO_COUNTERS_DEVICE, SERVED_DEVICE, UINT64_C(1) << 63, 0, 0, -EBADMSG },
        { "CPU time above INT64_MAX", PROTO_COUNTERS_DEVICE, SERVED_DEVICE, 0, 0, UINT64_MAX, -EBADMSG },
};

START_TEST(test_result_tail) {
        _cleanup_free_ uint8_t *buf = NULL;
        ProtoResult in = result_ok, out = {};
        ProtoFrame f;
        size_t len;

        in.counters = result_tail_cases[_i].counters;
        in.served = result_tail_cases[_i].served;
        in.device_bytes_read = result_tail_cases[_i].device_read;
        in.device_bytes_written = 0;
        in.backing_bytes_read = 0;
        in.backing_bytes_written = result_tail_cases[_i].backing_written;
        in.process_user_usec = result_tail_cases[_i].user_usec;
        ck_assert_int_eq(proto_encode_result(&in, &buf, &len), 0);
        f = (ProtoFrame) { .type = PROTO_RESULT, .length = (uint32_t) (len - PROTO_HEADER_SIZE),
                           .payload = buf + PROTO_HEADER_SIZE };
        ck_assert_msg(proto_decode_result(&f, &out) == result_tail_cases[_i].ret, "%s", result_tail_cases[_i].what);
        if (result_tail_cases[_i].ret == 0)
                ck_assert_uint_eq(out.served, in.served);
        proto_result_clear(&out);
        /* One byte short of the tail is a short frame. */
        f.length--;
        ck_assert_int_eq(proto_decode_result(&f, &out), -EBADMSG);
}
END_TEST

START_TEST(test_result_pct) {
        _cleanup_free_ uint8_t *buf = NULL;
        ProtoResult in = result_ok, out = {};
        ProtoFrame f;
        size_t len;

        in.dev_util_pct = result_pct_cases[_i].util;
        in.iowait_pct = result_pct_cases[_i].iowait;
        ck_assert_int_eq(proto_encode_result(&in, &buf, &len), 0);
        f = (ProtoFrame) { .type = PROTO_RESULT, .length = (uint32_t) (len - PROTO_HEADER_SIZE),
                           .payload = buf + PROTO_HEADER_SIZE };
        ck_assert_int_eq(proto_decode_result(&f, &out), result_pct_cases[_i].ret);
        proto_result_clear(&out);
}
END_TEST

static const struct {
        uint32_t n;               /* n_entries as written */
        uint32_t index[3];
        int ret;
} histogram_cases[] = {
        { 3, { 1, 2, 3 }, 0 },
        { 3, { 2, 1, 3 }, -EBADMSG },             /* unsorted */
        { 3, { 1, 1, 3 }, -EBADMSG },             /* duplicate */
        { 3, { 1, 2, HISTOGRAM_BUCKETS }, -EBADMSG },
        { 3, { 1, 2, UINT32_MAX }, -EBADMSG },
        { 2, { 1, 2, 3 }, -EBADMSG },             /* count says fewer than the payload holds */
        { 4, { 1, 2, 3 }, -EBADMSG },             /* count says more */
        { UINT32_MAX, { 1, 2, 3 }, -EBADMSG },
};

START_TEST(test_histogram_entries) {
        uint8_t payload[4 + 3 * 12];
        ProtoHistogram out = {};
        ProtoFrame f = { .type = PROTO_HISTOGRAM, .length = sizeof(payload), .payload = payload };

        put_le32(payload, histogram_cases[_i].n);
        for (unsigned i = 0; i < 3; i++) {
                put_le32(payload + 4 + 12 * i, histogram_cases[_i].index[i]);
                put_le64(payload + 8 + 12 * i, 10 + i);
        }
        ck_assert_int_eq(proto_decode_histogram(&f, &out), histogram_cases[_i].ret);
        if (histogram_cases[_i].ret == 0)
                ck_assert_uint_eq(out.entries[2].count, 12);
        proto_histogram_clear(&out);
}
END_TEST

START_TEST(test_strings) {
        _cleanup_free_ uint8_t *buf = NULL;
        _cleanup_free_ char *long_text = NULL;
        ProtoText t = { .level = 3, .text = (char *) "abc" }, out = {};
        ProtoError e = { .error = 0, .message = (char *) "x" };
        ProtoError eo = {};
        ProtoFrame f;
        size_t len;

        /* A NUL inside a string. */
        ck_assert_int_eq(proto_encode_text(PROTO_LOG, &t, &buf, &len), 0);
        buf[len - 2] = 0;
        f = (ProtoFrame) { .type = PROTO_LOG, .length = (uint32_t) (len - PROTO_HEADER_SIZE),
                           .payload = buf + PROTO_HEADER_SIZE };
        ck_assert_int_eq(proto_decode_text(&f, &out), -EBADMSG);

        /* A string length pointing beyond the payload. */
        buf[len - 2] = 'b';
        put_le32(buf + PROTO_HEADER_SIZE + 4, 4);
        ck_assert_int_eq(proto_decode_text(&f, &out), -EBADMSG);
        put_le32(buf + PROTO_HEADER_SIZE + 4, UINT32_MAX);
        ck_assert_int_eq(proto_decode_text(&f, &out), -EBADMSG);
        put_le32(buf + PROTO_HEADER_SIZE + 4, 3);
        ck_assert_int_eq(proto_decode_text(&f, &out), 0);
        proto_text_clear(&out);

        /* LOG level beyond LOG_DEBUG; PHASE with a level; PHASE with no name. */
        put_le32(buf + PROTO_HEADER_SIZE, 8);
        ck_assert_int_eq(proto_decode_text(&f, &out), -EBADMSG);
        f.type = PROTO_PHASE;
        ck_assert_int_eq(proto_decode_text(&f, &out), -EBADMSG);
        free(buf);
        buf = NULL;
        t = (ProtoText) { .level = 0, .text = (char *) "" };
        ck_assert_int_eq(proto_encode_text(PROTO_PHASE, &t, &buf, &len), 0);
        f = (ProtoFrame) { .type = PROTO_PHASE, .length = (uint32_t) (len - PROTO_HEADER_SIZE),
                           .payload = buf + PROTO_HEADER_SIZE };
        ck_assert_int_eq(proto_decode_text(&f, &out), -EBADMSG);
        ck_assert_int_eq(proto_encode_text(PROTO_SAMPLE, &t, &buf, &len), -EINVAL);

        /* Over-long strings are refused by the encoder... */
        long_text = malloc(PROTO_STRING_MAX + 2);
        memset(long_text, 'a', PROTO_STRING_MAX + 1);
        long_text[PROTO_STRING_MAX + 1] = 0;
        t.text = long_text;
        free(buf);
        buf = NULL;
        ck_assert_int_eq(proto_encode_text(PROTO_LOG, &t, &buf, &len), -EMSGSIZE);
        /* ...but a spec may be longer than an ordinary string. */
        {
                ProtoSpec sp = { .job_id = 1, .text = long_text }, so = {};
                ck_assert_int_eq(proto_encode_spec(&sp, &buf, &len), 0);
                f = (ProtoFrame) { .type = PROTO_SPEC, .length = (uint32_t) (len - PROTO_HEADER_SIZE),
                                   .payload = buf + PROTO_HEADER_SIZE };
                ck_assert_int_eq(proto_decode_spec(&f, &so), 0);
                ck_assert_uint_eq(strlen(so.text), PROTO_STRING_MAX + 1);
                proto_spec_clear(&so);
                free(buf);
                buf = NULL;
        }
        long_text[PROTO_STRING_MAX] = 0;
        ck_assert_int_eq(proto_encode_text(PROTO_LOG, &t, &buf, &len), 0);
        free(buf);
        buf = NULL;

        /* ERROR needs a positive errno. */
        ck_assert_int_eq(proto_encode_error(&e, &buf, &len), 0);
        f = (ProtoFrame) { .type = PROTO_ERROR, .length = (uint32_t) (len - PROTO_HEADER_SIZE),
                           .payload = buf + PROTO_HEADER_SIZE };
        ck_assert_int_eq(proto_decode_error(&f, &eo), -EBADMSG);
        put_le32(buf + PROTO_HEADER_SIZE, (uint32_t) -5);
        ck_assert_int_eq(proto_decode_error(&f, &eo), -EBADMSG);
        put_le32(buf + PROTO_HEADER_SIZE, 5);
        ck_assert_int_eq(proto_decode_error(&f, &eo), 0);
        proto_error_clear(&eo);
}
END_TEST

START_TEST(test_hello_pid) {
        uint8_t payload[8];
        ProtoFrame f = { .type = PROTO_HELLO, .length = 8, .payload = payload };
        ProtoHello h;

        put_le32(payload, 1);
        put_le32(payload + 4, 0);
        ck_assert_int_eq(proto_decode_hello(&f, &h), -EBADMSG);
        put_le32(payload + 4, 0x80000000u);
        ck_assert_int_eq(proto_decode_hello(&f, &h), -EBADMSG);
        put_le32(payload + 4, 1);
        ck_assert_int_eq(proto_decode_hello(&f, &h), 0);
}
END_TEST

/* ---- over a real socket and a pipe ---- */

static void transfer(int wfd, int rfd) {
        _cleanup_reader_ ProtoReader r;
        _cleanup_free_ uint8_t *buf = NULL;
        ProtoSpec in = { .job_id = 9, .step = 2, .text = (char *) "target=/srv\n" }, out = {};
        ProtoFrame f;
        size_t len;
        int k;

        ck_assert_int_eq(fcntl(rfd, F_SETFL, O_NONBLOCK), 0);
        proto_reader_init(&r);
        ck_assert_int_eq(proto_reader_fill(&r, rfd), -EAGAIN);

        ck_assert_int_eq(proto_encode_spec(&in, &buf, &len), 0);
        ck_assert_int_eq(proto_write_all(wfd, buf, len), 0);
        ck_assert_int_eq(proto_write_all(wfd, buf, len), 0);
        close(wfd);

        for (unsigned got = 0; got < 2;) {
                k = proto_reader_next(&r, &f);
                ck_assert_int_ge(k, 0);
                if (k == 1) {
                        ck_assert_int_eq(proto_decode_spec(&f, &out), 0);
                        ck_assert_str_eq(out.text, in.text);
                        proto_spec_clear(&out);
                        got++;
                        continue;
                }
                k = proto_reader_fill(&r, rfd);
                ck_assert_int_gt(k, 0);
        }
        ck_assert_int_eq(proto_reader_fill(&r, rfd), 0); /* EOF */
        close(rfd);
}

START_TEST(test_socketpair) {
        int sv[2];

        ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
        transfer(sv[0], sv[1]);
}
END_TEST

START_TEST(test_pipe) {
        int p[2];

        ck_assert_int_eq(pipe2(p, O_CLOEXEC), 0);
        transfer(p[1], p[0]);
}
END_TEST

START_TEST(test_write_closed_peer) {
        int sv[2];
        uint8_t b[64] = {};

        /* MSG_NOSIGNAL: EPIPE, not a SIGPIPE that kills the daemon. */
        ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
        close(sv[1]);
        ck_assert_int_eq(proto_write_all(sv[0], b, sizeof(b)), -EPIPE);
        close(sv[0]);
}
END_TEST

static Suite *proto_suite(void) {
        Suite *s = suite_create("proto");
        TCase *tc = tcase_create("proto");

        tcase_add_test(tc, test_roundtrip_hello);
        tcase_add_test(tc, test_roundtrip_spec);
        tcase_add_test(tc, test_spec_bad_guard);
        tcase_add_loop_test(tc, test_roundtrip_text, 0, ELEMENTSOF(text_cases));
        tcase_add_test(tc, test_roundtrip_sample);
        tcase_add_test(tc, test_roundtrip_histogram);
        tcase_add_test(tc, test_roundtrip_histogram_max);
        tcase_add_test(tc, test_roundtrip_result);
        tcase_add_test(tc, test_roundtrip_error);
        tcase_add_test(tc, test_roundtrip_phase_result);
        tcase_add_loop_test(tc, test_phase_result_fields, 0, ELEMENTSOF(phase_cases));
        tcase_add_test(tc, test_phase_result_garbage);
        tcase_add_test(tc, test_roundtrip_position_result);
        tcase_add_test(tc, test_roundtrip_steady_state);
        tcase_add_loop_test(tc, test_position_result_fields, 0, ELEMENTSOF(position_cases));
        tcase_add_test(tc, test_reserved_types);
        tcase_add_test(tc, test_roundtrip_fs_setup);
        tcase_add_test(tc, test_roundtrip_fs_info);
        tcase_add_loop_test(tc, test_fs_setup_fields, 0, ELEMENTSOF(fs_setup_cases));
        tcase_add_test(tc, test_fs_setup_counts);
        tcase_add_test(tc, test_fs_setup_md);
        tcase_add_test(tc, test_fs_info_layout);
        tcase_add_test(tc, test_fs_released);
        tcase_add_loop_test(tc, test_fs_info_fields, 0, ELEMENTSOF(fs_info_cases));
        tcase_add_test(tc, test_fs_info_commands);
        tcase_add_test(tc, test_byte_by_byte);
        tcase_add_test(tc, test_two_frames_one_push);
        tcase_add_loop_test(tc, test_bad_header, 0, ELEMENTSOF(header_cases));
        tcase_add_test(tc, test_truncated);
        tcase_add_test(tc, test_push_bound);
        tcase_add_test(tc, test_max_payload_frame);
        tcase_add_loop_test(tc, test_payload_lengths, 0, ELEMENTSOF(all_types));
        tcase_add_loop_test(tc, test_sample_ranges, 0, ELEMENTSOF(sample_double_cases));
        tcase_add_test(tc, test_sample_latency_order);
        tcase_add_loop_test(tc, test_result_latency_order, 0, ELEMENTSOF(result_cases));
        tcase_add_loop_test(tc, test_result_pct, 0, ELEMENTSOF(result_pct_cases));
        tcase_add_loop_test(tc, test_result_tail, 0, ELEMENTSOF(result_tail_cases));
        tcase_add_loop_test(tc, test_histogram_entries, 0, ELEMENTSOF(histogram_cases));
        tcase_add_test(tc, test_strings);
        tcase_add_test(tc, test_hello_pid);
        tcase_add_test(tc, test_socketpair);
        tcase_add_test(tc, test_pipe);
        tcase_add_test(tc, test_write_closed_peer);
        suite_add_tcase(s, tc);
        return s;
}

int main(void) {
        return check_run(proto_suite());
}
