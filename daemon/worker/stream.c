/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The per-stream I/O loops. The data loop keeps queue_depth requests in flight through the
 * engine's IoEngineOps and times each from just before it is queued to its completion; position
 * runs the same loop once per offset of its plan and reports each offset as it ends; seeks
 * (bonnie++) and ping (ioping) are depth-1 loops of their own because their unit is an operation,
 * not a block. Every loop checks engine_should_stop() before each I/O, so a signal, an error in
 * another stream or the end of the runtime ends it within one I/O. putc and getc (bonnie++'s
 * per-character tests) make one write(2) or read(2) per character, as bonnie++ 2.00 does, which
 * is too quick to time one by one: they time batches of characters, bonnie++'s chunks, and check
 * for a stop between batches.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "engine-core.h"
#include "pattern.h"
#include "shared/proto-plausible.h"
#include "shared/util.h"
#include "stream.h"
#include "workload.h"

/* benchd judges RESULTs of size-bounded seeks and ping by the engine's fixed counts. */
_Static_assert(SEEKS_TOTAL == PROTO_SEEKS_TOTAL, "benchd's seek count differs from the engine's");
_Static_assert(PING_COUNT == PROTO_PING_COUNT, "benchd's ping count differs from the engine's");

#define SEEKS_DIRTY_ONE_IN 10u
#define PING_INTERVAL_MS 1000u
/* putc and getc: characters per timed batch, bonnie++'s chunk of 8 KiB. benchd judges their
 * histogram by it. */
#define CHAR_BATCH 8192u
_Static_assert(CHAR_BATCH == PROTO_CHAR_BATCH, "benchd's per-character batch differs from the engine's");

typedef struct Buffers {
        void **buf;
        unsigned n;
} Buffers;

static void buffers_free(Buffers *b) {
        for (unsigned i = 0; i < b->n; i++)
                free(b->buf[i]);
        free(b->buf);
        *b = (Buffers) {};
}

static int buffers_alloc(Stream *s, unsigned n, Buffers *ret) {
        const JobSpec *spec = s->engine->spec;
        Buffers b = { .buf = calloc(n, sizeof(void *)), .n = 0 };

        if (!b.buf)
                return -ENOMEM;
        for (; b.n < n; b.n++) {
                if (posix_memalign(&b.buf[b.n], 4096, spec->block_size) != 0) {
                        buffers_free(&b);
                        return -ENOMEM;
                }
                pattern_fill(b.buf[b.n], spec->block_size, spec->pattern, spec->compress_pct, &s->rng);
        }
        *ret = b;
        return 0;
}

static bool op_is_write(Stream *s, Workload w) {
        switch (w) {
        case WORKLOAD_WRITE:
        case WORKLOAD_RANDWRITE:
        case WORKLOAD_REWRITE:
                return true;
        case WORKLOAD_RANDRW:
                return !rwmix_is_read(&s->rng, s->engine->spec->rwmix_read);
        default:
                return false;
        }
}

/* len bytes from fd into buf, through short reads and EINTR; EOF is -EIO. */
static int read_all(int fd, void *buf, size_t len) {
        for (size_t done = 0; done < len;) {
                ssize_t n = read(fd, (uint8_t *) buf + done, len - done);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0)
                        return -errno;
                if (n == 0)
                        return -EIO;
                done += (size_t) n;
        }
        return 0;
}

/* Flushes the stream's file as the spec says: fsync, or fdatasync. */
static int stream_sync(Stream *s) {
        int r;

        do
                r = s->engine->spec->sync_call == SYNC_CALL_FDATASYNC ? fdatasync(s->fd) : fsync(s->fd);
        while (r < 0 && errno == EINTR);
        return r < 0 ? -errno : 0;
}

static int check_result(Stream *s, const IoRequest *req) {
        if (req->result < 0)
                return stream_fail(s, (int) req->result, "%s of %u bytes at offset %" PRIu64 " failed: %s",
                                   req->write ? "write" : "read", req->len, req->offset,
                                   strerror((int) -req->result));
        if ((uint64_t) req->result != req->len)
                return stream_fail(s, -EIO, "short %s at offset %" PRIu64 ": %" PRIi64 " of %u bytes",
                                   req->write ? "write" : "read", req->offset, req->result, req->len);
        return 0;
}

/* The data loop: queue_depth requests with their buffers, on the engine's I/O engine. stream_data()
 * runs it once over its region; stream_position() once per offset, with the same requests. */
typedef struct DataLoop {
        Stream *s;
        IoEngine *io;
        IoRequest *reqs;
        IoRequest **free_list, **done;
        Buffers bufs;
        unsigned depth, n_free, inflight;
        bool wrote;
        int zero_fd;            /* pattern=dev-zero: /dev/zero, read into each write's buffer */
} DataLoop;

/* What one data_loop_run() measured: its completions and when the first was queued and the last
 * completed. */
typedef struct DataLoopStats {
        uint64_t bytes, ios;
        uint64_t lat_sum_ns, lat_max_ns;
        uint64_t first_start_ns, last_end_ns;
} DataLoopStats;

static void data_loop_close(DataLoop *l) {
        /* Drain what is still in flight before the buffers go. */
        while (l->io && l->inflight > 0) {
                int n = l->s->engine->io_ops->reap(l->io, 1, l->done, l->depth);
                if (n <= 0)
                        break;
                l->inflight -= (unsigned) n;
        }
        if (l->io)
                l->s->engine->io_ops->close(l->io);
        if (l->zero_fd >= 0)
                close(l->zero_fd);
        buffers_free(&l->bufs);
        free(l->reqs);
        free(l->free_list);
        free(l->done);
        *l = (DataLoop) { .zero_fd = -EBADF };
}

static int data_loop_open(Stream *s, DataLoop *l) {
        Engine *e = s->engine;
        const JobSpec *spec = e->spec;
        unsigned depth = e->depth;
        int r;

        *l = (DataLoop) { .s = s, .depth = depth, .zero_fd = -EBADF };
        l->reqs = calloc(depth, sizeof(IoRequest));
        l->free_list = calloc(depth, sizeof(IoRequest *));
        l->done = calloc(depth, sizeof(IoRequest *));
        if (!l->reqs || !l->free_list || !l->done) {
                data_loop_close(l);
                return stream_fail(s, -ENOMEM, "out of memory");
        }
        r = buffers_alloc(s, depth, &l->bufs);
        if (r < 0) {
                data_loop_close(l);
                return stream_fail(s, r, "cannot allocate %u aligned buffers of %" PRIu64 " bytes", depth,
                                   spec->block_size);
        }
        for (unsigned i = 0; i < depth; i++) {
                l->reqs[i].buf = l->bufs.buf[i];
                l->free_list[i] = &l->reqs[i];
        }
        l->n_free = depth;

        if (spec->pattern == PATTERN_DEV_ZERO && workload_writes(spec->workload)) {
                l->zero_fd = open("/dev/zero", O_RDONLY | O_CLOEXEC);
                if (l->zero_fd < 0) {
                        r = -errno;
                        data_loop_close(l);
                        return stream_fail(s, r, "cannot open /dev/zero for pattern=dev-zero: %s", strerror(-r));
                }
        }

        r = e->io_ops->open(s->fd, depth, &l->io);
        if (r < 0) {
                l->io = NULL;
                data_loop_close(l);
                return stream_fail(s, r, "cannot set up the %s engine at depth %u: %s", e->io_ops->name, depth,
                                   strerror(-r));
        }
        return 0;
}

/* Keeps depth requests in flight at gen's offsets (shifted by base) until budget bytes were
 * issued and completed, or the run stops. Each completion is recorded, and added to stats when
 * given. Returns the stream's error. */
static int data_loop_run(DataLoop *l, OffsetGen *gen, uint64_t base, uint64_t budget, DataLoopStats *stats) {
        Stream *s = l->s;
        Engine *e = s->engine;
        const JobSpec *spec = e->spec;
        uint64_t issued = 0;
        int r;

        for (;;) {
                while (l->inflight < l->depth && issued < budget && !engine_should_stop(e)) {
                        IoRequest *req = l->free_list[--l->n_free];

                        req->offset = base + offset_gen_next(gen);
                        req->len = (uint32_t) spec->block_size;
                        req->write = op_is_write(s, spec->workload);
                        /* dd if=/dev/zero copies each block from /dev/zero before it writes it: with
                         * pattern=dev-zero so does the stream, in the measured time. */
                        if (req->write && l->zero_fd >= 0) {
                                r = read_all(l->zero_fd, req->buf, req->len);
                                if (r < 0) {
                                        l->free_list[l->n_free++] = req;
                                        return stream_fail(s, r, "reading /dev/zero failed: %s", strerror(-r));
                                }
                        } else if (req->write && spec->refill_buffers)
                                /* fio's refill_buffers: the whole buffer anew with fio's generator,
                                 * before the clock starts but in the run's time, as fio fills it
                                 * before it stamps start_time. */
                                pattern_refill(req->buf, req->len, spec->pattern, spec->compress_pct, &s->rng);
                        else if (req->write)
                                pattern_refresh(req->buf, req->len, spec->pattern, spec->compress_pct, &s->rng);
                        req->start_ns = now_nsec(CLOCK_MONOTONIC);
                        if (stats && stats->ios == 0 && issued == 0)
                                stats->first_start_ns = req->start_ns;
                        r = e->io_ops->queue(l->io, req);
                        if (r < 0) {
                                l->free_list[l->n_free++] = req;
                                return stream_fail(s, r, "cannot queue an I/O: %s", strerror(-r));
                        }
                        l->inflight++;
                        issued += req->len;
                }
                if (l->inflight == 0)
                        return stream_error(s);

                /* One completion at a time, its slot refilled before the next is taken, as fio
                 * does by default (iodepth_batch_complete_max=1): the device gets a new request as
                 * soon as one ends, and a completion that waits in the ring while the stream
                 * refills other slots counts that wait in its latency, which is then the mean
                 * that Little's law gives (depth / IOPS). Reaping a whole batch and refilling it
                 * afterwards instead would leave the wait out of every latency. */
                int n = e->io_ops->reap(l->io, 1, l->done, 1);
                if (n < 0)
                        return stream_fail(s, n, "waiting for I/O completions failed: %s", strerror(-n));
                for (int i = 0; i < n; i++) {
                        IoRequest *req = l->done[i];
                        uint64_t lat;

                        l->inflight--;
                        l->free_list[l->n_free++] = req;
                        if (check_result(s, req) < 0)
                                return stream_error(s);
                        if (req->write) {
                                l->wrote = true;
                                if (spec->sync == SYNC_EACH) {
                                        /* The write is done when it is durable. */
                                        r = stream_sync(s);
                                        if (r < 0)
                                                return stream_fail(s, r, "sync after write failed: %s",
                                                                   strerror(-r));
                                        req->end_ns = now_nsec(CLOCK_MONOTONIC);
                                }
                        }
                        lat = req->end_ns - req->start_ns;
                        stream_record(s, lat, req->write, req->len, 0);
                        if (stats) {
                                stats->bytes += req->len;
                                stats->ios++;
                                stats->lat_sum_ns += lat;
                                stats->lat_max_ns = MAX(stats->lat_max_ns, lat);
                                stats->last_end_ns = MAX(stats->last_end_ns, req->end_ns);
                        }
                }
        }
}

int stream_data(Stream *s) {
        Engine *e = s->engine;
        const JobSpec *spec = e->spec;
        uint64_t budget = spec->runtime_ms > 0 ? UINT64_MAX : spec->size;
        DataLoop l;
        OffsetGen gen;
        int r;

        r = offset_gen_init(&gen, workload_offset_order(spec->workload), s->region, spec->block_size, spec->stride,
                            prng_next(&s->rng));
        if (r < 0)
                return stream_fail(s, r, "the region of %" PRIu64 " bytes holds no block of %" PRIu64 " bytes",
                                   s->region, spec->block_size);
        r = data_loop_open(s, &l);
        if (r < 0)
                return r;

        r = data_loop_run(&l, &gen, 0, budget, NULL);
        /* dd conv=fsync: the flush is part of the measured time. */
        if (r >= 0 && l.wrote && spec->sync == SYNC_END && !engine_aborted(e)) {
                r = stream_sync(s);
                if (r < 0)
                        stream_fail(s, r, "final sync failed: %s", strerror(-r));
        }
        /* Nothing in flight: the measured work is over before the engine's teardown. */
        if (l.inflight == 0) {
                if (s->in_child)
                        stream_mark_cpu(s);
                stream_done(s);
        }
        data_loop_close(&l);
        return stream_error(s);
}

/* The position workload: the plan's offsets in order, each read sequentially for plan.bytes at
 * queue_depth, timed as a whole and reported as it ends. An offset that a stop cut short is not
 * reported: its figures would not be those of the position. */
int stream_position(Stream *s) {
        Engine *e = s->engine;
        const JobSpec *spec = e->spec;
        const PositionPlan *plan = &e->position_plan;
        DataLoop l;
        int r;

        if (plan->positions == 0)
                return stream_fail(s, -EINVAL, "no position plan: the target is not a block device");
        r = data_loop_open(s, &l);
        if (r < 0)
                return r;

        for (uint32_t i = 0; i < plan->positions && !engine_should_stop(e); i++) {
                uint64_t offset = position_plan_offset(plan, i);
                DataLoopStats st = {};
                OffsetGen gen;

                r = offset_gen_init(&gen, OFFSET_SEQUENTIAL, plan->bytes, spec->block_size, 0, 0);
                if (r < 0) {
                        stream_fail(s, r, "position %" PRIu32 ": %" PRIu64 " bytes hold no block of %" PRIu64
                                    " bytes", i, plan->bytes, spec->block_size);
                        break;
                }
                r = data_loop_run(&l, &gen, offset, plan->bytes, &st);
                if (r < 0 || st.bytes != plan->bytes)
                        break;

                ProtoPositionResult p = {
                        .index = i,
                        .offset_bytes = offset,
                        .bytes = st.bytes,
                        .duration_usec = (st.last_end_ns - st.first_start_ns) / NSEC_PER_USEC,
                        .lat_mean_ns = st.ios > 0 ? st.lat_sum_ns / st.ios : 0,
                        .lat_max_ns = st.lat_max_ns,
                };
                if (engine_position_result(e, &p) < 0)
                        break;
        }
        data_loop_close(&l);
        return stream_error(s);
}

/* Seeks and ping: one block at a time at uniformly random offsets, into one buffer. */
static int stream_single_setup(Stream *s, OffsetGen *gen, Buffers *bufs) {
        const JobSpec *spec = s->engine->spec;
        int r;

        r = offset_gen_init(gen, OFFSET_UNIFORM, s->region, spec->block_size, 0, prng_next(&s->rng));
        if (r < 0)
                return stream_fail(s, r, "the region holds no block");
        r = buffers_alloc(s, 1, bufs);
        if (r < 0)
                return stream_fail(s, r, "out of memory");
        return 0;
}

/* bonnie++ seeks: read a random block; one time in ten dirty it and write it back. One
 * operation per seek, timed over the read and the write-back. Size-bounded, the streams share
 * bonnie++'s 8192 seeks as its seeker processes share their tickets; each ends, as a seeker
 * closes its file, with the sync the spec asks for (bonnie++'s close fsync()s), inside the
 * measured time. */
int stream_seeks(Stream *s) {
        Engine *e = s->engine;
        const JobSpec *spec = e->spec;
        Buffers bufs = {};
        OffsetGen gen;
        uint64_t count = spec->runtime_ms > 0 ? UINT64_MAX :
                SEEKS_TOTAL / e->n_streams + (s->index < SEEKS_TOTAL % e->n_streams);
        bool wrote = false;
        int r;

        r = stream_single_setup(s, &gen, &bufs);
        if (r < 0)
                return r;

        for (uint64_t i = 0; i < count && !engine_should_stop(e); i++) {
                IoRequest req = {
                        .buf = bufs.buf[0],
                        .offset = offset_gen_next(&gen),
                        .len = (uint32_t) spec->block_size,
                };
                IoRequest wreq;
                bool dirty = prng_below(&s->rng, SEEKS_DIRTY_ONE_IN) == 0;
                ssize_t n;

                req.start_ns = now_nsec(CLOCK_MONOTONIC);
                n = pread(s->fd, req.buf, req.len, (off_t) req.offset);
                req.result = n < 0 ? -errno : n;
                if (check_result(s, &req) < 0)
                        break;
                if (dirty) {
                        wreq = req;
                        wreq.write = true;
                        pattern_refresh(wreq.buf, wreq.len, spec->pattern, spec->compress_pct, &s->rng);
                        n = pwrite(s->fd, wreq.buf, wreq.len, (off_t) wreq.offset);
                        wreq.result = n < 0 ? -errno : n;
                        if (check_result(s, &wreq) < 0)
                                break;
                }
                uint64_t lat = now_nsec(CLOCK_MONOTONIC) - req.start_ns;
                /* Count the read with the latency and the seek as the op; the write-back as bytes. */
                stream_record(s, lat, false, req.len, 1);
                if (dirty) {
                        stream_record_write_back(s, wreq.len);
                        wrote = true;
                }
        }
        buffers_free(&bufs);
        if (stream_error(s) >= 0 && wrote && spec->sync == SYNC_END && !engine_aborted(e)) {
                r = stream_sync(s);
                if (r < 0)
                        stream_fail(s, r, "final sync failed: %s", strerror(-r));
        }
        return stream_error(s);
}

/* bonnie++'s Rewrite: read a block, dirty a byte of it, seek back and write it, block after block
 * through the region; passes over it while time-based. A stream's own file is worked through its
 * file offset as bonnie++ does (read(2), lseek(2) back one block, write(2)); a file or device
 * target's description is shared by every stream, so there each block is pread and pwritten at
 * its offset. The read is recorded with the operation's latency, the write as its write-back, as
 * a seek's is; with sync=end the stream ends with the flush bonnie++'s close makes, inside the
 * time. */
int stream_read_modify_write(Stream *s) {
        Engine *e = s->engine;
        const JobSpec *spec = e->spec;
        uint64_t count = spec->runtime_ms > 0 ? UINT64_MAX : (s->region + spec->block_size - 1) / spec->block_size;
        Buffers bufs = {};
        OffsetGen gen;
        bool wrote = false;
        int r;

        r = offset_gen_init(&gen, OFFSET_SEQUENTIAL, s->region, spec->block_size, 0, 0);
        if (r < 0)
                return stream_fail(s, r, "the region of %" PRIu64 " bytes holds no block of %" PRIu64 " bytes",
                                   s->region, spec->block_size);
        r = buffers_alloc(s, 1, &bufs);
        if (r < 0)
                return stream_fail(s, r, "out of memory");
        bool own = s->fd != e->target_fd;
        uint64_t pos = UINT64_MAX;      /* where the file offset is (own file) */

        for (uint64_t i = 0; i < count && !engine_should_stop(e); i++) {
                IoRequest req = { .buf = bufs.buf[0], .offset = offset_gen_next(&gen), .len = (uint32_t) spec->block_size };
                IoRequest wreq;
                ssize_t n;

                req.start_ns = now_nsec(CLOCK_MONOTONIC);
                if (own && pos != req.offset && lseek(s->fd, (off_t) req.offset, SEEK_SET) < 0) {
                        req.result = -errno;
                        (void) check_result(s, &req);
                        break;
                }
                n = own ? read(s->fd, req.buf, req.len) : pread(s->fd, req.buf, req.len, (off_t) req.offset);
                req.result = n < 0 ? -errno : n;
                if (check_result(s, &req) < 0)
                        break;
                ((uint8_t *) req.buf)[i % req.len]++;
                wreq = req;
                wreq.write = true;
                if (own && lseek(s->fd, -(off_t) n, SEEK_CUR) < 0) {
                        wreq.result = -errno;
                        (void) check_result(s, &wreq);
                        break;
                }
                n = own ? write(s->fd, wreq.buf, wreq.len) : pwrite(s->fd, wreq.buf, wreq.len, (off_t) wreq.offset);
                wreq.result = n < 0 ? -errno : n;
                pos = n > 0 ? wreq.offset + (uint64_t) n : UINT64_MAX;
                if (check_result(s, &wreq) < 0)
                        break;
                stream_record(s, now_nsec(CLOCK_MONOTONIC) - req.start_ns, false, req.len, 1);
                stream_record_write_back(s, wreq.len);
                wrote = true;
        }
        buffers_free(&bufs);
        if (stream_error(s) >= 0 && wrote && spec->sync == SYNC_END && !engine_aborted(e)) {
                r = stream_sync(s);
                if (r < 0)
                        stream_fail(s, r, "final sync failed: %s", strerror(-r));
        }
        return stream_error(s);
}

/* Sleeps until t_ns (CLOCK_MONOTONIC) in short slices, so a stop is seen within 50 ms. */
static void sleep_until(Engine *e, uint64_t t_ns) {
        while (!engine_should_stop(e)) {
                uint64_t now = now_nsec(CLOCK_MONOTONIC);
                if (now >= t_ns)
                        return;
                uint64_t d = MIN(t_ns - now, 50 * NSEC_PER_MSEC);
                struct timespec ts = { .tv_sec = (time_t) (d / NSEC_PER_SEC), .tv_nsec = (long) (d % NSEC_PER_SEC) };
                nanosleep(&ts, NULL);
        }
}

/* ioping: one block read at a random offset every interval (1 s, or sample_ms when shorter),
 * after one that is not counted (ioping's warm-up, -a 1). As ioping without -C, readahead is off
 * and the block's cached pages are dropped before each request (untimed), so a read without
 * direct I/O is the device's too. The requests fall halfway between two of the sampler's
 * wake-ups (workload.h), where no other work of the worker's runs: ioping has no sampler. */
int stream_ping(Stream *s) {
        Engine *e = s->engine;
        const JobSpec *spec = e->spec;
        EngineShared *sh = e->shared;
        Buffers bufs = {};
        OffsetGen gen;
        uint64_t count = spec->runtime_ms > 0 ? UINT64_MAX : PING_COUNT;
        uint64_t interval_ns = (uint64_t) MIN(PING_INTERVAL_MS, spec->sample_ms ? spec->sample_ms : PING_INTERVAL_MS)
                               * NSEC_PER_MSEC;
        uint64_t next;
        int r;

        r = stream_single_setup(s, &gen, &bufs);
        if (r < 0)
                return r;
        (void) posix_fadvise(s->fd, 0, 0, POSIX_FADV_RANDOM);

        /* ioping's warm-up request: the first, whatever it met on the way (a cold inode, an idle
         * device waking up), is not one of the figures. */
        uint64_t warm = offset_gen_next(&gen);
        (void) posix_fadvise(s->fd, (off_t) warm, (off_t) spec->block_size, POSIX_FADV_DONTNEED);
        if (pread(s->fd, bufs.buf[0], spec->block_size, (off_t) warm) < 0) {
                buffers_free(&bufs);
                return stream_fail(s, -errno, "the warm-up read failed: %m");
        }
        /* The first counted request half an interval to an interval and a half after the warm-up
         * (ioping's: one interval). */
        next = ping_first_request(sh->origin_ns, ping_request_offset(sh->sample_ns, ENGINE_WAIT_SLICE_NS),
                                  interval_ns, now_nsec(CLOCK_MONOTONIC) + interval_ns / 2);

        for (uint64_t i = 0; i < count && !engine_should_stop(e); i++, next += interval_ns) {
                sleep_until(e, next);
                if (engine_should_stop(e))
                        break;
                IoRequest req = { .buf = bufs.buf[0], .offset = offset_gen_next(&gen), .len = (uint32_t) spec->block_size };
                (void) posix_fadvise(s->fd, (off_t) req.offset, (off_t) req.len, POSIX_FADV_DONTNEED);
                req.start_ns = now_nsec(CLOCK_MONOTONIC);
                ssize_t n = pread(s->fd, req.buf, req.len, (off_t) req.offset);
                req.end_ns = now_nsec(CLOCK_MONOTONIC);
                req.result = n < 0 ? -errno : n;
                if (check_result(s, &req) < 0)
                        break;
                stream_record(s, req.end_ns - req.start_ns, false, req.len, 1);
        }
        buffers_free(&bufs);
        return stream_error(s);
}

/* ---- bonnie++'s per-character tests ---- */

/* Where a per-character loop is: characters done in all, in this pass, in the open batch, and
 * when that batch began. */
typedef struct CharLoop {
        uint64_t budget;        /* characters in all: size, or unbounded with runtime_ms */
        uint64_t done, pos, batch;
        uint64_t batch_start_ns;
} CharLoop;

/* The characters of the next run of calls: up to the end of the batch, of the pass and of the
 * budget. A new pass seeks the descriptor back to the start. 0 when the loop is over: the budget
 * is spent, or a stop was asked for (looked at between batches). */
static uint64_t char_loop_next(Stream *s, CharLoop *l) {
        if (l->done >= l->budget)
                return 0;
        if (l->batch == 0) {
                if (engine_should_stop(s->engine))
                        return 0;
                l->batch_start_ns = now_nsec(CLOCK_MONOTONIC);
        }
        if (l->pos >= s->region) {
                if (lseek(s->fd, 0, SEEK_SET) < 0) {
                        stream_fail(s, -errno, "cannot seek back to the start of the stream's file: %m");
                        return 0;
                }
                l->pos = 0;
        }
        return MIN(MIN((uint64_t) CHAR_BATCH - l->batch, l->budget - l->done), s->region - l->pos);
}

/* Counts n characters done; records the batch when it is full, or with last whatever it holds. */
static void char_loop_advance(Stream *s, CharLoop *l, uint64_t n, bool write, bool last) {
        l->done += n;
        l->pos += n;
        l->batch += n;
        if (l->batch == CHAR_BATCH || (last && l->batch > 0)) {
                stream_record_chars(s, now_nsec(CLOCK_MONOTONIC) - l->batch_start_ns, write, l->batch);
                l->batch = 0;
        }
}

/* One character through the descriptor, as bonnie++'s read_block_byte() and write_block_byte()
 * move them: 1, 0 at the end of the file (reads), or -errno. */
static int char_io(int fd, uint8_t *c, bool out) {
        for (;;) {
                ssize_t n = out ? write(fd, c, 1) : read(fd, c, 1);
                if (_likely_(n == 1))
                        return 1;
                if (n == 0)
                        return out ? -ENOSPC : 0;
                if (errno != EINTR)
                        return -errno;
        }
}

/* bonnie++'s "Sequential Output Per Chr": the pattern's bytes, one write(2) each. */
int stream_putc(Stream *s) {
        Engine *e = s->engine;
        const JobSpec *spec = e->spec;
        CharLoop l = { .budget = spec->runtime_ms > 0 ? UINT64_MAX : spec->size };
        _cleanup_free_ uint8_t *buf = NULL;
        uint64_t n;
        int r;

        buf = malloc(CHAR_BATCH);
        if (!buf)
                return stream_fail(s, -ENOMEM, "out of memory");
        pattern_fill(buf, CHAR_BATCH, spec->pattern, spec->compress_pct, &s->rng);

        while ((n = char_loop_next(s, &l)) > 0) {
                /* A fresh batch: no 4 KiB written repeats another (pattern.h). */
                if (l.batch == 0)
                        pattern_refresh(buf, CHAR_BATCH, spec->pattern, spec->compress_pct, &s->rng);
                for (uint64_t i = 0; i < n; i++) {
                        r = char_io(s->fd, &buf[l.batch + i], true);
                        if (_unlikely_(r < 0)) {
                                stream_fail(s, r, "write() of character %" PRIu64 " to the stream's file failed: %s",
                                            l.done + i, strerror(-r));
                                break;
                        }
                }
                if (stream_error(s) < 0)
                        break;
                char_loop_advance(s, &l, n, true, false);
        }
        if (stream_error(s) >= 0)
                char_loop_advance(s, &l, 0, true, true);

        /* bonnie++ closes the file, with an fsync(), before it stops the clock: with sync=end the
         * flush is inside the measured time too (in no batch), as the data loop's final sync. */
        if (stream_error(s) >= 0 && !engine_aborted(e) && spec->sync == SYNC_END) {
                r = stream_sync(s);
                if (r < 0)
                        stream_fail(s, r, "final sync failed: %s", strerror(-r));
        }
        return stream_error(s);
}

/* bonnie++'s "Sequential Input Per Chr": the laid-out file, one read(2) each. */
int stream_getc(Stream *s) {
        CharLoop l = { .budget = s->engine->spec->runtime_ms > 0 ? UINT64_MAX : s->engine->spec->size };
        uint64_t n, sum = 0;

        while ((n = char_loop_next(s, &l)) > 0) {
                for (uint64_t i = 0; i < n; i++) {
                        uint8_t c;
                        int r = char_io(s->fd, &c, false);

                        if (_unlikely_(r <= 0)) {
                                if (r < 0)
                                        stream_fail(s, r, "read() of character %" PRIu64 " from the stream's file "
                                                    "failed: %s", l.done + i, strerror(-r));
                                else
                                        stream_fail(s, -EIO, "the stream's file ended at character %" PRIu64
                                                    ", short of its %" PRIu64 " laid out", l.pos + i, s->region);
                                break;
                        }
                        sum += c;
                }
                if (stream_error(s) < 0)
                        break;
                char_loop_advance(s, &l, n, false, false);
        }
        if (stream_error(s) >= 0)
                char_loop_advance(s, &l, 0, false, true);
        /* The characters are used, so no compiler may drop a call. */
        __asm__ volatile("" : : "r"(sum));
        return stream_error(s);
}
