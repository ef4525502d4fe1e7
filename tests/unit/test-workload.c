/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Offset generators (coverage of the region, alignment, sequential/backward/stride order, never
 * past the end, no repeats within a random pass), the position workload's plan (first at 0, last at
 * the device's end, aligned, increasing, no overlap, small devices refused), metadata's file names
 * (bonnie++'s: hex number and random characters, name order = creation order for the sequential
 * phases only, unique, reproducible) and directories (filled one after another), the rwmix ratio, buffer patterns, and the engine
 * machinery end to end with the null I/O engine (bytes and I/O counts, samples, files removed)
 * and with putc/getc on real files (a character an I/O, a latency per batch of characters), and
 * each I/O engine on a real file (what it wrote is what it reads back, every request completed
 * once, with its own result and a completion time after its start).
 */
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine.h"
#include "check-util.h"
#include "ioengine.h"
#include "pattern.h"
#include "shared/proto-plausible.h"
#include "shared/spec-check.h"
#include "shared/spec.h"
#include "shared/util.h"
#include "workload.h"

static const struct {
        OffsetOrder order;
        uint64_t region, bs, stride;
} pass_cases[] = {
        { OFFSET_SEQUENTIAL, 1 << 20, 4096, 0 },
        { OFFSET_SEQUENTIAL, (1 << 20) + 1000, 4096, 0 },      /* a partial last block is never used */
        { OFFSET_BACKWARD, 1 << 20, 4096, 0 },
        { OFFSET_BACKWARD, 4096, 4096, 0 },
        { OFFSET_STRIDE, 1 << 20, 4096, 4 * 4096 },
        { OFFSET_STRIDE, 1 << 20, 4096, 17 * 4096 },           /* stride not dividing the block count */
        { OFFSET_STRIDE, 1 << 20, 4096, 0 },                   /* default stride */
        { OFFSET_STRIDE, 64 * 1024, 4096, 1 << 20 },           /* stride larger than the region */
        { OFFSET_RANDOM, 1 << 20, 4096, 0 },
        { OFFSET_RANDOM, 1000 * 512, 512, 0 },                 /* block count not a power of two */
        { OFFSET_RANDOM, 3 * 1048576, 1048576, 0 },
        { OFFSET_RANDOM, 4096, 4096, 0 },                      /* a single block */
        { OFFSET_RANDOM, 2 * 4096, 4096, 0 },
};

START_TEST(test_pass_covers_region_once) {
        OffsetGen g;
        uint64_t n = pass_cases[_i].region / pass_cases[_i].bs, prev = 0;
        _cleanup_free_ uint8_t *seen = calloc(n, 1);

        ck_assert_int_eq(offset_gen_init(&g, pass_cases[_i].order, pass_cases[_i].region, pass_cases[_i].bs,
                                         pass_cases[_i].stride, 42 + _i), 0);
        ck_assert_uint_eq(g.n_blocks, n);
        for (uint64_t k = 0; k < n; k++) {
                ck_assert_uint_eq(g.pass, 0);
                uint64_t off = offset_gen_next(&g);
                ck_assert_uint_eq(off % pass_cases[_i].bs, 0);
                ck_assert_uint_le(off + pass_cases[_i].bs, pass_cases[_i].region);
                ck_assert_msg(!seen[off / pass_cases[_i].bs], "case %d: offset %" PRIu64 " repeated", _i, off);
                seen[off / pass_cases[_i].bs] = 1;

                switch (pass_cases[_i].order) {
                case OFFSET_SEQUENTIAL:
                        ck_assert_uint_eq(off, k * pass_cases[_i].bs);
                        break;
                case OFFSET_BACKWARD:
                        ck_assert_uint_eq(off, (n - 1 - k) * pass_cases[_i].bs);
                        break;
                case OFFSET_STRIDE:
                        /* within a run the step is the stride; a new run starts one block further */
                        if (k > 0) {
                                uint64_t step = g.stride_blocks * pass_cases[_i].bs;
                                ck_assert_msg(off == prev + step || off < step,
                                              "case %d: %" PRIu64 " after %" PRIu64, _i, off, prev);
                        }
                        break;
                default:
                        break;
                }
                prev = off;
        }
        ck_assert_uint_eq(g.pass, 1);
        for (uint64_t b = 0; b < n; b++)
                ck_assert(seen[b]);

        /* the next pass starts over and stays in bounds */
        for (uint64_t k = 0; k < n; k++)
                ck_assert_uint_le(offset_gen_next(&g) + pass_cases[_i].bs, pass_cases[_i].region);
        ck_assert_uint_eq(g.pass, 2);
}
END_TEST

START_TEST(test_stride_default) {
        OffsetGen g;
        ck_assert_int_eq(offset_gen_init(&g, OFFSET_STRIDE, 1 << 20, 4096, 0, 1), 0);
        ck_assert_uint_eq(g.stride_blocks, 17);
        ck_assert_uint_eq(offset_gen_next(&g), 0);
        ck_assert_uint_eq(offset_gen_next(&g), 17 * 4096);
}
END_TEST

START_TEST(test_random_is_shuffled) {
        /* Not the identity, and two passes differ (with 256 blocks, equal passes are ~impossible). */
        OffsetGen g;
        uint64_t first[256], in_order = 0, same = 0;

        ck_assert_int_eq(offset_gen_init(&g, OFFSET_RANDOM, 256 * 4096, 4096, 0, 7), 0);
        for (unsigned k = 0; k < 256; k++) {
                first[k] = offset_gen_next(&g);
                in_order += first[k] == k * 4096u;
        }
        for (unsigned k = 0; k < 256; k++)
                same += offset_gen_next(&g) == first[k];
        ck_assert_uint_lt(in_order, 16);
        ck_assert_uint_lt(same, 16);
}
END_TEST

START_TEST(test_uniform_bounds_and_spread) {
        OffsetGen g;
        unsigned counts[16] = {};

        ck_assert_int_eq(offset_gen_init(&g, OFFSET_UNIFORM, 16 * 8192 + 100, 8192, 0, 3), 0);
        for (unsigned k = 0; k < 160000; k++) {
                uint64_t off = offset_gen_next(&g);
                ck_assert_uint_eq(off % 8192, 0);
                ck_assert_uint_lt(off / 8192, 16);
                counts[off / 8192]++;
        }
        for (unsigned b = 0; b < 16; b++) {
                ck_assert_uint_gt(counts[b], 9000);
                ck_assert_uint_lt(counts[b], 11000);
        }
}
END_TEST

START_TEST(test_init_rejects) {
        OffsetGen g;
        ck_assert_int_eq(offset_gen_init(&g, OFFSET_SEQUENTIAL, 4095, 4096, 0, 1), -EINVAL);
        ck_assert_int_eq(offset_gen_init(&g, OFFSET_SEQUENTIAL, 1 << 20, 0, 0, 1), -EINVAL);
        ck_assert_int_eq(offset_gen_init(&g, _OFFSET_ORDER_MAX, 1 << 20, 4096, 0, 1), -EINVAL);
}
END_TEST

static const struct {
        Workload w;
        OffsetOrder order;
} order_cases[] = {
        { WORKLOAD_READ, OFFSET_SEQUENTIAL },
        { WORKLOAD_WRITE, OFFSET_SEQUENTIAL },
        { WORKLOAD_REWRITE, OFFSET_SEQUENTIAL },
        { WORKLOAD_REREAD, OFFSET_SEQUENTIAL },
        { WORKLOAD_RANDREAD, OFFSET_RANDOM },
        { WORKLOAD_RANDWRITE, OFFSET_RANDOM },
        { WORKLOAD_RANDRW, OFFSET_RANDOM },
        { WORKLOAD_BACKWARD_READ, OFFSET_BACKWARD },
        { WORKLOAD_STRIDE_READ, OFFSET_STRIDE },
        { WORKLOAD_SEEKS, OFFSET_UNIFORM },
        { WORKLOAD_PING, OFFSET_UNIFORM },
};

START_TEST(test_workload_order) {
        ck_assert_int_eq(workload_offset_order(order_cases[_i].w), order_cases[_i].order);
}
END_TEST

static const uint32_t rwmix_cases[] = { 0, 1, 30, 50, 70, 99, 100 };

START_TEST(test_rwmix_ratio) {
        Prng p;
        unsigned reads = 0, n = 200000;

        prng_seed(&p, 11);
        for (unsigned k = 0; k < n; k++)
                reads += rwmix_is_read(&p, rwmix_cases[_i]);
        double pct = 100.0 * reads / n;
        ck_assert_double_eq_tol(pct, (double) rwmix_cases[_i], 0.5);
        if (rwmix_cases[_i] == 0)
                ck_assert_uint_eq(reads, 0);
        if (rwmix_cases[_i] == 100)
                ck_assert_uint_eq(reads, n);
}
END_TEST

static unsigned count_zero(const uint8_t *b, size_t n) {
        unsigned z = 0;
        for (size_t i = 0; i < n; i++)
                z += b[i] == 0;
        return z;
}

START_TEST(test_patterns) {
        enum { N = 64 * 1024 };
        _cleanup_free_ uint8_t *a = malloc(N), *b = malloc(N);
        Prng p;

        prng_seed(&p, 5);
        pattern_fill(a, N, PATTERN_RANDOM, 0, &p);
        ck_assert_uint_lt(count_zero(a, N), N / 128);   /* ~1/256 expected */
        memcpy(b, a, N);
        pattern_refresh(b, N, PATTERN_RANDOM, 0, &p);
        /* every 4 KiB chunk changed, so no block repeats at dedupe granularity */
        for (size_t off = 0; off < N; off += 4096)
                ck_assert(memcmp(a + off, b + off, 4096) != 0);

        /* refill_buffers: everything anew, no 4 KiB chunk equal to another or to before, few zeros. */
        memcpy(b, a, N);
        pattern_refill(b, N, PATTERN_RANDOM, 0, &p);
        ck_assert_uint_lt(count_zero(b, N), N / 128);
        for (size_t off = 0; off < N; off += 4096) {
                ck_assert(memcmp(a + off, b + off, 4096) != 0);
                for (size_t o2 = 0; o2 < off; o2 += 4096)
                        ck_assert(memcmp(b + o2, b + off, 4096) != 0);
        }
        memcpy(a, b, N);
        pattern_refill(b, N, PATTERN_RANDOM, 0, &p);
        for (size_t off = 0; off < N; off += 8)
                ck_assert_msg(memcmp(a + off, b + off, 8) != 0 || count_zero(a + off, 8) == 8,
                              "word at %zu survived a refill", off);
        pattern_refill(b, N, PATTERN_COMPRESSIBLE, 50, &p);
        for (size_t off = 0; off < N; off += 4096) {
                unsigned z = count_zero(b + off, 4096);
                ck_assert_uint_ge(z, 2048);
                ck_assert_uint_lt(z, 2048 + 64);
        }
        pattern_refill(b, N, PATTERN_ZERO, 0, &p);
        ck_assert_uint_eq(count_zero(b, N), N);

        pattern_fill(a, N, PATTERN_ZERO, 0, &p);
        ck_assert_uint_eq(count_zero(a, N), N);
        pattern_refresh(a, N, PATTERN_ZERO, 0, &p);
        ck_assert_uint_eq(count_zero(a, N), N);

        pattern_fill(a, N, PATTERN_COMPRESSIBLE, 75, &p);
        memcpy(b, a, N);
        pattern_refresh(b, N, PATTERN_COMPRESSIBLE, 75, &p);
        for (size_t off = 0; off < N; off += 4096) {
                unsigned z = count_zero(b + off, 4096);
                ck_assert_uint_ge(z, 3072);
                ck_assert_uint_lt(z, 3072 + 64);
                ck_assert(memcmp(a + off, b + off, 4096) != 0);
        }
}
END_TEST

/* ---- the engine with the null I/O engine ---- */

typedef struct Collected {
        unsigned samples, phases;
        uint64_t bytes;
        double last_progress;
} Collected;

static int on_sample(void *userdata, const ProtoSample *s) {
        Collected *c = userdata;
        c->samples++;
        c->bytes += s->bytes_written + s->bytes_read;
        ck_assert(s->progress >= c->last_progress);
        c->last_progress = s->progress;
        return 0;
}

static int on_phase(void *userdata, const char *name) {
        Collected *c = userdata;
        c->phases++;
        return 0;
}

static unsigned count_entries(const char *dir) {
        DIR *d = opendir(dir);
        struct dirent *de;
        unsigned n = 0;
        ck_assert_ptr_nonnull(d);
        while ((de = readdir(d)))
                n += de->d_name[0] != '.' || strncmp(de->d_name, ".benchd-", 8) == 0;
        closedir(d);
        return n;
}

static const struct {
        const char *workload;
        unsigned jobs, depth;
        bool mixed;
} null_cases[] = {
        { "write", 1, 1 },
        { "write", 3, 1 },
        { "randwrite", 1, 1 },          /* laid out first (real writes), then null I/O */
        { "write", 2, 8 },
        { "randrw", 2, 4, true },       /* each direction's histogram holds that direction's I/Os */
};

START_TEST(test_engine_null) {
        char dir[] = "/tmp/test-workload-XXXXXX", assign[512];
        _cleanup_free_ char *err = NULL;
        JobSpec spec;
        TargetCheck tc;
        EngineResult res = {};
        Collected c = {};
        EngineSink sink = { .userdata = &c, .sample = on_sample, .phase = on_phase };
        EngineOptions opts = { .file_prefix = ".benchd-t-0-", .ioengine = "null" };

        ck_assert_ptr_nonnull(mkdtemp(dir));
        spec_init(&spec);
        snprintf(assign, sizeof(assign), "target=%s", dir);
        ck_assert_int_eq(spec_set_assignment(&spec, assign, &err), 0);
        ck_assert_int_eq(spec_set_from_string(&spec, "workload", null_cases[_i].workload, &err), 0);
        ck_assert_int_eq(spec_set_from_string(&spec, "block_size", "4K", &err), 0);
        ck_assert_int_eq(spec_set_from_string(&spec, "size", "8M", &err), 0);
        ck_assert_int_eq(spec_set_from_string(&spec, "direct", "false", &err), 0);
        snprintf(assign, sizeof(assign), "%u", null_cases[_i].jobs);
        ck_assert_int_eq(spec_set_from_string(&spec, "jobs", assign, &err), 0);
        snprintf(assign, sizeof(assign), "%u", null_cases[_i].depth);
        ck_assert_int_eq(spec_set_from_string(&spec, "queue_depth", assign, &err), 0);
        ck_assert_int_eq(spec_set_from_string(&spec, "sync", "none", &err), 0);
        ck_assert_msg(spec_finalize(&spec, &err) == 0, "%s", err);
        ck_assert_msg(spec_check_target(&spec, &tc, &err) == 0, "%s", err);

        int r = engine_run(&spec, &tc, &opts, &sink, &res, &err);
        ck_assert_msg(r == 0, "engine_run: %s", err ? err : strerror(-r));

        uint64_t want = (8u << 20) * null_cases[_i].jobs;
        ck_assert_uint_eq(res.read_histogram->count, res.summary.ios_read);
        ck_assert_uint_eq(res.write_histogram->count, res.summary.ios_written);
        ck_assert_uint_eq(res.histogram->count, want / 4096);
        ck_assert_uint_eq(res.n_streams, null_cases[_i].jobs);
        if (null_cases[_i].mixed) {
                ck_assert_uint_eq(res.summary.bytes_read + res.summary.bytes_written, want);
                ck_assert_uint_gt(res.summary.ios_read, 0);
                ck_assert_uint_gt(res.summary.ios_written, 0);
        } else {
                ck_assert_uint_eq(res.summary.bytes_written, want);
                ck_assert_uint_eq(res.summary.ios_written, want / 4096);
                ck_assert_uint_eq(res.summary.bytes_read, 0);
                ck_assert_uint_eq(res.read_histogram->count, 0);
                for (unsigned s = 0; s < res.n_streams; s++)
                        ck_assert_uint_eq(res.streams[s].bytes_written, 8u << 20);
        }
        ck_assert_uint_ge(c.samples, 1);
        ck_assert_uint_eq(c.bytes, want);          /* the samples add up to the result */
        ck_assert_double_eq_tol(c.last_progress, 1.0, 1e-9);
        ck_assert_uint_ge(c.phases, 2);             /* measure, cleanup */
        ck_assert_uint_eq(res.bytes_asked, want);
        ck_assert_uint_eq(count_entries(dir), 0);   /* every file we made is gone */

        engine_result_clear(&res);
        spec_clear(&spec);
        rmdir(dir);
}
END_TEST

/* ---- the sampler's wake-up grid and ping's requests between its points ---- */

#define MS UINT64_C(1000000)

START_TEST(test_wait_slices) {
        /* A deadline within a slice: woken at the deadline itself. */
        ck_assert_uint_eq(wait_slice_end(1000 * MS, 1050 * MS, 100 * MS), 1050 * MS);
        ck_assert_uint_eq(wait_slice_end(1000 * MS, 1100 * MS, 100 * MS), 1100 * MS);
        /* Further: whole slices back from the deadline, after now and at most a slice on. */
        ck_assert_uint_eq(wait_slice_end(1000 * MS, 1250 * MS, 100 * MS), 1050 * MS);
        ck_assert_uint_eq(wait_slice_end(1000 * MS, 1200 * MS, 100 * MS), 1100 * MS);
        ck_assert_uint_eq(wait_slice_end(1000 * MS + 1, 1200 * MS, 100 * MS), 1100 * MS);
        ck_assert_uint_eq(wait_slice_end(1100 * MS, 1200 * MS + 1, 100 * MS), 1100 * MS + 1);
        /* Whatever now is, the wake-ups of one wait fall on the deadline's grid. */
        for (uint64_t now = 0; now < 2000 * MS; now += 7 * MS + 13) {
                uint64_t w = wait_slice_end(now, 2000 * MS, 100 * MS);
                ck_assert_uint_gt(w, now);
                ck_assert_uint_le(w, now + 100 * MS);
                ck_assert_uint_eq(w % (100 * MS), 0);
        }
        /* Past deadlines and no slice: the deadline. */
        ck_assert_uint_eq(wait_slice_end(2000 * MS, 1000 * MS, 100 * MS), 1000 * MS);
        ck_assert_uint_eq(wait_slice_end(0, 5000 * MS, 0), 5000 * MS);
}
END_TEST

START_TEST(test_ping_offset) {
        /* Sample intervals of whole slices: the wake-ups are 100 ms apart, the requests between. */
        ck_assert_uint_eq(ping_request_offset(100 * MS, 100 * MS), 50 * MS);
        ck_assert_uint_eq(ping_request_offset(1000 * MS, 100 * MS), 50 * MS);
        ck_assert_uint_eq(ping_request_offset(60000 * MS, 100 * MS), 50 * MS);
        /* 150 ms: after each deadline the next wake-up is 50 ms on (the next deadline less 100). */
        ck_assert_uint_eq(ping_request_offset(150 * MS, 100 * MS), 25 * MS);
        ck_assert_uint_eq(ping_request_offset(80 * MS, 0), 40 * MS);

        /* Every request of a 100 ms or 1 s ping on a 100 ms grid lies 50 ms from its points. */
        static const uint64_t samples[] = { 100 * MS, 1000 * MS, 2000 * MS };
        for (size_t i = 0; i < ELEMENTSOF(samples); i++) {
                uint64_t origin = 12345 * MS, interval = MIN(samples[i], 1000 * MS);
                uint64_t off = ping_request_offset(samples[i], 100 * MS);
                uint64_t t = ping_first_request(origin, off, interval, origin + 3 * MS);
                for (unsigned k = 0; k < 50; k++, t += interval)
                        ck_assert_uint_eq((t - origin) % (100 * MS), 50 * MS);
        }
}
END_TEST

START_TEST(test_ping_first_request) {
        /* After the origin: the next point of origin + offset + j × interval. */
        ck_assert_uint_eq(ping_first_request(1000, 50, 100, 1000), 1050);
        ck_assert_uint_eq(ping_first_request(1000, 50, 100, 1050), 1050);
        ck_assert_uint_eq(ping_first_request(1000, 50, 100, 1051), 1150);
        ck_assert_uint_eq(ping_first_request(1000, 50, 100, 1149), 1150);
        ck_assert_uint_eq(ping_first_request(1000, 50, 100, 1150), 1150);
        /* Before it (a ramp): points of negative j, never before not_before. */
        ck_assert_uint_eq(ping_first_request(1000, 50, 100, 700), 750);
        ck_assert_uint_eq(ping_first_request(1000, 50, 100, 750), 750);
        ck_assert_uint_eq(ping_first_request(1000, 50, 100, 751), 850);
        ck_assert_uint_eq(ping_first_request(1000, 50, 100, 0), 50);
}
END_TEST

/* ---- the I/O engines on a real file ---- */

#define ENGINE_BLOCKS 16u
#define ENGINE_BS 4096u

/* Queues the blocks' requests depth at a time (refilling each slot as one completes, as the data
 * loop does) and checks every completion; returns the number of completions. */
static unsigned engine_pass(const IoEngineOps *ops, IoEngine *io, IoRequest *reqs, unsigned depth) {
        IoRequest *done[ENGINE_BLOCKS];
        bool seen[ENGINE_BLOCKS] = {};
        unsigned next = 0, inflight = 0, completed = 0;

        while (completed < ENGINE_BLOCKS) {
                while (inflight < depth && next < ENGINE_BLOCKS) {
                        reqs[next].start_ns = now_nsec(CLOCK_MONOTONIC);
                        reqs[next].result = -1;
                        ck_assert_int_eq(ops->queue(io, &reqs[next]), 0);
                        next++;
                        inflight++;
                }
                int n = ops->reap(io, 1, done, 1);
                ck_assert_msg(n == 1, "%s: reap(1, 1) gave %d", ops->name, n);
                IoRequest *r = done[0];
                unsigned i = (unsigned) (r - reqs);
                ck_assert_uint_lt(i, ENGINE_BLOCKS);
                ck_assert_msg(!seen[i], "%s: request %u completed twice", ops->name, i);
                seen[i] = true;
                ck_assert_int_eq(r->result, ENGINE_BS);
                ck_assert_uint_ge(r->end_ns, r->start_ns);
                inflight--;
                completed++;
        }
        return completed;
}

static const struct {
        const char *engine;
        unsigned depth;
} engine_cases[] = {
        { "sync", 1 },
        { "io_uring", 4 },
        { "io_uring", 1 },
        { "libaio", 4 },
        { "libaio", 1 },
        { "libaio", ENGINE_BLOCKS },
};

START_TEST(test_ioengine_file) {
        char path[] = "/tmp/test-workload-ioengine-XXXXXX";
        const IoEngineOps *ops = ioengine_find(engine_cases[_i].engine);
        unsigned depth = engine_cases[_i].depth;
        IoRequest reqs[ENGINE_BLOCKS] = {};
        void *wbuf[ENGINE_BLOCKS], *rbuf[ENGINE_BLOCKS];
        IoEngine *io = NULL;
        int fd, r;

        ck_assert_ptr_nonnull(ops);
        ck_assert_str_eq(ops->name, engine_cases[_i].engine);
        fd = mkstemp(path);
        ck_assert_int_ge(fd, 0);
        ck_assert_int_eq(unlink(path), 0);

        r = ops->open(fd, depth, &io);
        if (r == -ENOSYS || r == -EPERM) {
                /* Kernels built without it, or a seccomp filter that refuses it. */
                fprintf(stderr, "skipped: the %s engine cannot start here: %s\n", ops->name, strerror(-r));
                close(fd);
                return;
        }
        ck_assert_msg(r == 0, "%s open: %s", ops->name, strerror(-r));

        /* Writes, in a random order of offsets, each block with a content of its own. */
        for (unsigned i = 0; i < ENGINE_BLOCKS; i++) {
                ck_assert_int_eq(posix_memalign(&wbuf[i], 4096, ENGINE_BS), 0);
                ck_assert_int_eq(posix_memalign(&rbuf[i], 4096, ENGINE_BS), 0);
                memset(wbuf[i], 'a' + (int) i, ENGINE_BS);
                memset(rbuf[i], 0, ENGINE_BS);
                reqs[i] = (IoRequest) { .buf = wbuf[i], .offset = (uint64_t) ((i * 7) % ENGINE_BLOCKS) * ENGINE_BS,
                                        .len = ENGINE_BS, .write = true };
        }
        ck_assert_uint_eq(engine_pass(ops, io, reqs, depth), ENGINE_BLOCKS);

        /* Read back: each offset holds what its write carried. */
        for (unsigned i = 0; i < ENGINE_BLOCKS; i++)
                reqs[i] = (IoRequest) { .buf = rbuf[i], .offset = reqs[i].offset, .len = ENGINE_BS };
        ck_assert_uint_eq(engine_pass(ops, io, reqs, depth), ENGINE_BLOCKS);
        for (unsigned i = 0; i < ENGINE_BLOCKS; i++)
                ck_assert_msg(memcmp(rbuf[i], wbuf[i], ENGINE_BS) == 0, "%s: block %u read back differs", ops->name,
                              i);

        /* Reading past the end completes with a short count, not an error of the engine. */
        IoRequest past = { .buf = rbuf[0], .offset = (uint64_t) ENGINE_BLOCKS * ENGINE_BS, .len = ENGINE_BS };
        IoRequest *done[1];
        ck_assert_int_eq(ops->queue(io, &past), 0);
        ck_assert_int_eq(ops->reap(io, 1, done, 1), 1);
        ck_assert_ptr_eq(done[0], &past);
        ck_assert_int_eq(past.result, 0);

        ops->close(io);
        for (unsigned i = 0; i < ENGINE_BLOCKS; i++) {
                free(wbuf[i]);
                free(rbuf[i]);
        }
        close(fd);
}
END_TEST

/* ---- bonnie++'s per-character tests ---- */

static const struct {
        const char *workload;
        unsigned jobs;
        const char *size;
        uint64_t runtime_ms;
} char_cases[] = {
        { "putc", 1, "256K", 0 },
        { "putc", 2, "100100", 0 },     /* a last, shorter batch in each stream */
        { "getc", 1, "100100", 0 },
        { "getc", 2, "256K", 0 },
        /* Passes over a file shorter than a batch: the batches run across the passes. */
        { "putc", 1, "5000", 300 },
        { "getc", 2, "5000", 300 },
};

/* Real system calls on real files, one per character (the I/O engine has no part in them): every character an I/O of one
 * byte, one latency per batch of PROTO_CHAR_BATCH of a stream's characters, samples adding up to
 * the result, the files gone afterwards. */
START_TEST(test_engine_chars) {
        char dir[] = "/tmp/test-workload-XXXXXX", assign[512];
        _cleanup_free_ char *err = NULL;
        JobSpec spec;
        TargetCheck tc;
        EngineResult res = {};
        Collected c = {};
        EngineSink sink = { .userdata = &c, .sample = on_sample, .phase = on_phase };
        EngineOptions opts = { .file_prefix = ".benchd-t-0-" };
        bool write = streq(char_cases[_i].workload, "putc");
        uint64_t size, chars, batches = 0;

        ck_assert_ptr_nonnull(mkdtemp(dir));
        spec_init(&spec);
        snprintf(assign, sizeof(assign), "target=%s", dir);
        ck_assert_int_eq(spec_set_assignment(&spec, assign, &err), 0);
        ck_assert_int_eq(spec_set_from_string(&spec, "workload", char_cases[_i].workload, &err), 0);
        ck_assert_int_eq(spec_set_from_string(&spec, "size", char_cases[_i].size, &err), 0);
        snprintf(assign, sizeof(assign), "%u", char_cases[_i].jobs);
        ck_assert_int_eq(spec_set_from_string(&spec, "jobs", assign, &err), 0);
        snprintf(assign, sizeof(assign), "%" PRIu64, char_cases[_i].runtime_ms);
        ck_assert_int_eq(spec_set_from_string(&spec, "runtime_ms", assign, &err), 0);
        ck_assert_int_eq(spec_set_from_string(&spec, "sample_ms", "100", &err), 0);
        ck_assert_msg(spec_finalize(&spec, &err) == 0, "%s", err);
        ck_assert_uint_eq(spec.block_size, 1);
        ck_assert(!spec.direct);
        ck_assert_msg(spec_check_target(&spec, &tc, &err) == 0, "%s", err);
        size = spec.size;

        int r = engine_run(&spec, &tc, &opts, &sink, &res, &err);
        ck_assert_msg(r == 0, "engine_run: %s", err ? err : strerror(-r));

        chars = write ? res.summary.bytes_written : res.summary.bytes_read;
        ck_assert_uint_eq(write ? res.summary.bytes_read : res.summary.bytes_written, 0);
        ck_assert_uint_eq(write ? res.summary.ios_written : res.summary.ios_read, chars);
        ck_assert_uint_eq(res.summary.ops, 0);
        ck_assert_uint_eq(res.n_streams, char_cases[_i].jobs);
        for (unsigned i = 0; i < res.n_streams; i++) {
                uint64_t n = write ? res.streams[i].bytes_written : res.streams[i].bytes_read;

                if (char_cases[_i].runtime_ms == 0)
                        ck_assert_uint_eq(n, size);             /* one pass of size characters */
                else {
                        ck_assert_uint_gt(n, 2 * size);         /* several passes ... */
                        ck_assert_uint_eq(n % PROTO_CHAR_BATCH, 0);  /* ... stopped between batches */
                }
                ck_assert_uint_eq(write ? res.streams[i].ios_written : res.streams[i].ios_read, n);
                batches += n / PROTO_CHAR_BATCH + (n % PROTO_CHAR_BATCH != 0);
        }
        ck_assert_uint_eq(res.histogram->count, batches);
        ck_assert_uint_eq((write ? res.write_histogram : res.read_histogram)->count, batches);
        ck_assert_uint_gt(res.summary.lat_min_ns, 0);
        ck_assert_uint_eq(c.bytes, chars);                      /* the samples add up to the result */
        if (char_cases[_i].runtime_ms == 0) {
                ck_assert_uint_eq(res.bytes_asked, size * char_cases[_i].jobs);
                ck_assert_double_eq_tol(c.last_progress, 1.0, 1e-9);
        }
        ck_assert_uint_eq(count_entries(dir), 0);              /* every file we made is gone */

        /* What benchd would judge of it: the RESULT's histogram count within the batch rule. */
        ProtoLimits l;
        ck_assert_int_eq(proto_limits_from_spec(&spec, &l), 0);
        ck_assert(l.per_char);
        ck_assert_uint_ge(res.histogram->count, chars / PROTO_CHAR_BATCH);
        ck_assert_uint_le(res.histogram->count, chars / PROTO_CHAR_BATCH + l.streams);

        engine_result_clear(&res);
        spec_clear(&spec);
        rmdir(dir);
}
END_TEST

/* ---- the position workload's offsets ---- */

static const struct {
        uint64_t device, size, bs;
        uint32_t positions, align;
        uint64_t bytes, unit;   /* what the plan must choose */
} plan_cases[] = {
        /* The integration test's: 8 × 4M on 64M, 1M blocks. */
        { 64 << 20, 4 << 20, 1 << 20, 8, 512, 4 << 20, 1 << 20 },
        /* The default size capped at the device / positions: 64M / 16 = 4M. */
        { 64 << 20, 64 << 20, 1 << 20, 16, 512, 4 << 20, 1 << 20 },
        /* The least: two positions of one block each, at the start and at the end. */
        { 2 << 20, 64 << 20, 1 << 20, 2, 512, 1 << 20, 1 << 20 },
        /* A device that is no whole number of blocks: the last ends within a block of its end. */
        { (UINT64_C(1000) << 20) + 123456, 64 << 20, 1 << 20, 20, 4096, 50 << 20, 1 << 20 },
        { (UINT64_C(1000) << 20) + 123456, 64 << 20, 1 << 20, 1000, 4096, 1 << 20, 1 << 20 },
        /* A size that is no whole number of blocks (buffered): whole blocks are read. */
        { 1 << 30, 10000000, 4096, 20, 1, 9998336, 4096 },
        /* A block size the alignment does not divide: offsets are multiples of both. */
        { 1 << 30, 1 << 20, 1000, 10, 512, 1024000, 64000 },
        /* 20 × 64M of a 2 TB disk, and 1000 of an exabyte (i × span needs more than 64 bits). */
        { UINT64_C(2000398934016), 64 << 20, 1 << 20, 20, 4096, 64 << 20, 1 << 20 },
        { UINT64_C(1) << 60, 64 << 20, 1 << 20, 1000, 4096, 64 << 20, 1 << 20 },
};

START_TEST(test_position_plan) {
        PositionPlan p;
        uint64_t prev_end = 0, offset = 0, dev = plan_cases[_i].device;

        ck_assert_int_eq(position_plan_init(&p, dev, plan_cases[_i].positions, plan_cases[_i].size, plan_cases[_i].bs,
                                            plan_cases[_i].align), 0);
        ck_assert_uint_eq(p.positions, plan_cases[_i].positions);
        ck_assert_uint_eq(p.bytes, plan_cases[_i].bytes);
        ck_assert_uint_eq(p.unit, plan_cases[_i].unit);
        ck_assert_uint_le(p.bytes, plan_cases[_i].size);
        ck_assert_uint_eq(p.bytes % p.unit, 0);
        ck_assert_uint_eq(p.unit % plan_cases[_i].bs, 0);
        if (plan_cases[_i].align > 1)
                ck_assert_uint_eq(p.unit % plan_cases[_i].align, 0);
        ck_assert_uint_eq(position_plan_total(&p), p.bytes * p.positions);

        for (uint32_t i = 0; i < p.positions; i++) {
                unsigned __int128 exact = (unsigned __int128) i * (dev - p.bytes) / (p.positions - 1);

                offset = position_plan_offset(&p, i);
                /* floor(i × (device − bytes) / (positions − 1)), aligned down. */
                ck_assert_uint_eq(offset, (uint64_t) exact / p.unit * p.unit);
                ck_assert_uint_eq(offset % p.unit, 0);
                if (i == 0)
                        ck_assert_uint_eq(offset, 0);
                else
                        ck_assert_msg(offset >= prev_end, "position %u at %" PRIu64 " overlaps the one before, "
                                      "which ends at %" PRIu64, i, offset, prev_end);
                ck_assert_uint_le(offset + p.bytes, dev);
                prev_end = offset + p.bytes;
        }
        /* The last ends at the device's end, to within one unit when the size is not a multiple. */
        ck_assert_uint_lt(dev - prev_end, p.unit);
        if (dev % p.unit == 0)
                ck_assert_uint_eq(prev_end, dev);
}
END_TEST

START_TEST(test_position_plan_rejects) {
        PositionPlan p = { .positions = 77 };

        /* Fewer than positions blocks on the device. */
        ck_assert_int_eq(position_plan_init(&p, (8 << 20) - 1, 8, 64 << 20, 1 << 20, 512), -EINVAL);
        ck_assert_int_eq(position_plan_init(&p, 100 << 20, 1000, 64 << 20, 1 << 20, 512), -EINVAL);
        ck_assert_int_eq(position_plan_init(&p, 0, 2, 64 << 20, 4096, 512), -EINVAL);
        /* ... also when the alignment makes the unit larger than a block. */
        ck_assert_int_eq(position_plan_init(&p, 10 * 64000 - 1, 10, 1 << 20, 1000, 512), -EINVAL);
        /* A plan needs two positions and a block size. */
        ck_assert_int_eq(position_plan_init(&p, 1 << 30, 1, 64 << 20, 4096, 512), -EINVAL);
        ck_assert_int_eq(position_plan_init(&p, 1 << 30, 0, 64 << 20, 4096, 512), -EINVAL);
        ck_assert_int_eq(position_plan_init(&p, 1 << 30, 20, 64 << 20, 0, 512), -EINVAL);
        /* Nothing written on failure. */
        ck_assert_uint_eq(p.positions, 77);
        /* Exactly positions blocks is enough. */
        ck_assert_int_eq(position_plan_init(&p, 8 << 20, 8, 64 << 20, 1 << 20, 512), 0);
        ck_assert_uint_eq(p.bytes, 1 << 20);
        ck_assert_uint_eq(position_plan_offset(&p, 7), 7 << 20);
}
END_TEST


static int cmp_str(const void *a, const void *b) {
        return strcmp(*(char *const *) a, *(char *const *) b);
}

START_TEST(test_meta_names) {
        enum { N = 20000 };
        static char names[N][META_NAME_MAX + 1];
        static char *sorted[N];
        unsigned lengths[META_NAME_EXTRA_MAX + 1] = {};
        bool random_names = _i;

        for (unsigned i = 0; i < N; i++) {
                char hex[16], again[META_NAME_MAX + 1], other[META_NAME_MAX + 1];
                size_t len;

                meta_file_name(42, i, random_names, names[i]);
                len = strlen(names[i]);
                ck_assert_uint_ge(len, META_NAME_HEX);
                ck_assert_uint_le(len, META_NAME_MAX);
                lengths[len - META_NAME_HEX]++;
                ck_assert_uint_eq(strspn(names[i], "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"), len);
                ck_assert(meta_file_name_valid(names[i]));
                /* The number in hex, at the start (sequential) or at the end (random). */
                snprintf(hex, sizeof(hex), "%010x", i);
                if (random_names)
                        ck_assert_str_eq(names[i] + len - META_NAME_HEX, hex);
                else
                        ck_assert_int_eq(strncmp(names[i], hex, META_NAME_HEX), 0);
                /* A function of (seed, i): found again without a table; another seed, other names. */
                meta_file_name(42, i, random_names, again);
                ck_assert_str_eq(again, names[i]);
                meta_file_name(43, i, random_names, other);
                if (i == 1000)
                        ck_assert_str_ne(other, names[i]);
                sorted[i] = names[i];
        }
        /* Every length of 0 to 12 extra characters occurs, about equally often. */
        for (unsigned k = 0; k <= META_NAME_EXTRA_MAX; k++) {
                ck_assert_uint_gt(lengths[k], N / (META_NAME_EXTRA_MAX + 1) / 2);
                ck_assert_uint_lt(lengths[k], N / (META_NAME_EXTRA_MAX + 1) * 2);
        }

        /* Unique; in name order, the sequential names are in creation order and the random ones
         * are not (about half the neighbours out of order). */
        qsort(sorted, N, sizeof(sorted[0]), cmp_str);
        unsigned in_order = 0;
        for (unsigned i = 1; i < N; i++) {
                ck_assert_str_ne(sorted[i - 1], sorted[i]);
                in_order += sorted[i - 1] < sorted[i];
        }
        if (random_names) {
                ck_assert_uint_gt(in_order, N / 3);
                ck_assert_uint_lt(in_order, 2 * N / 3);
        } else
                ck_assert_uint_eq(in_order, N - 1);
}
END_TEST

START_TEST(test_meta_name_valid) {
        static const char *bad[] = {
                "", ".", "..", ".benchd", "000000000", "00000000001234567890123",       /* 9, 23 long */
                "0000000000-", "0000000000.tmp", "x000000000", "ABCDEF0123", "zzzzzzzzzzzzz",
                "00000g0000abc", "abc0000000000/", "d00000",
        };
        static const char *good[] = {
                "0000000000", "00000000ff", "0000000001CIq", "3o50000000000", "UZwpI6dSw0000000001",
                "00000000000123456789AB",
        };
        for (size_t i = 0; i < ELEMENTSOF(bad); i++)
                ck_assert_msg(!meta_file_name_valid(bad[i]), "%s taken for a name of ours", bad[i]);
        for (size_t i = 0; i < ELEMENTSOF(good); i++)
                ck_assert_msg(meta_file_name_valid(good[i]), "%s not taken for a name of ours", good[i]);
}
END_TEST

static const struct {
        uint64_t n;
        unsigned dirs;
} dir_cases[] = {
        { 32768, 4 }, { 32768, 1 }, { 10, 4 }, { 3, 8 }, { 1000, 7 }, { 1, 1 }, { 65536, 65536 },
};

START_TEST(test_meta_dirs) {
        uint64_t n = dir_cases[_i].n;
        unsigned dirs = dir_cases[_i].dirs, prev = 0;
        _cleanup_free_ uint64_t *count = calloc(dirs, sizeof(uint64_t));

        ck_assert_ptr_nonnull(count);
        for (uint64_t i = 0; i < n; i++) {
                unsigned d = meta_file_dir(i, n, dirs);
                ck_assert_uint_lt(d, dirs);
                /* One directory after another: never back to an earlier one, never one skipped
                 * while files remain for it. */
                ck_assert_uint_ge(d, prev);
                ck_assert_uint_le(d, prev + 1);
                prev = d;
                count[d]++;
        }
        ck_assert_uint_eq(meta_file_dir(0, n, dirs), 0);
        /* Filled evenly: the counts differ by at most one (dirs > n: the last ones stay empty). */
        for (unsigned d = 0; d < dirs; d++) {
                ck_assert_uint_ge(count[d], n / dirs);
                ck_assert_uint_le(count[d], (n + dirs - 1) / dirs);
        }
}
END_TEST

static Suite *workload_suite(void) {
        Suite *s = suite_create("workload");
        TCase *tc = tcase_create("offsets");

        tcase_add_loop_test(tc, test_pass_covers_region_once, 0, ELEMENTSOF(pass_cases));
        tcase_add_test(tc, test_stride_default);
        tcase_add_test(tc, test_random_is_shuffled);
        tcase_add_test(tc, test_uniform_bounds_and_spread);
        tcase_add_test(tc, test_init_rejects);
        tcase_add_loop_test(tc, test_workload_order, 0, ELEMENTSOF(order_cases));
        tcase_add_loop_test(tc, test_rwmix_ratio, 0, ELEMENTSOF(rwmix_cases));
        tcase_add_test(tc, test_patterns);
        tcase_add_loop_test(tc, test_position_plan, 0, ELEMENTSOF(plan_cases));
        tcase_add_test(tc, test_position_plan_rejects);
        tcase_add_test(tc, test_wait_slices);
        tcase_add_test(tc, test_ping_offset);
        tcase_add_test(tc, test_ping_first_request);
        suite_add_tcase(s, tc);

        tc = tcase_create("metadata");
        tcase_add_loop_test(tc, test_meta_names, 0, 2);
        tcase_add_test(tc, test_meta_name_valid);
        tcase_add_loop_test(tc, test_meta_dirs, 0, ELEMENTSOF(dir_cases));
        suite_add_tcase(s, tc);

        tc = tcase_create("engine");
        tcase_add_loop_test(tc, test_engine_null, 0, ELEMENTSOF(null_cases));
        tcase_add_loop_test(tc, test_ioengine_file, 0, ELEMENTSOF(engine_cases));
        tcase_add_loop_test(tc, test_engine_chars, 0, ELEMENTSOF(char_cases));
        tcase_set_timeout(tc, 60);
        suite_add_tcase(s, tc);
        return s;
}

int main(void) {
        return check_run(workload_suite());
}
