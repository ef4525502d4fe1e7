/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The Linux native AIO engine, what fio's ioengine=libaio does (KDiskMark runs fio with it), made
 * with the system calls themselves rather than libaio, which only wraps them: one io_submit() per
 * request as it is queued (fio's iodepth_batch_submit=1) and io_getevents() for the completions,
 * at least min of them and at most the caller's max (fio's iodepth_batch_complete_min/max, both 1
 * by default), timed once per call, right after it returns. The context holds depth requests;
 * the kernel copies an iocb when it is submitted, so the iocb lives on the stack and carries the
 * request in aio_data. Only the stream (process) that set the context up uses it.
 */
#include <errno.h>
#include <linux/aio_abi.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "ioengine.h"
#include "shared/util.h"

struct IoEngine {
        aio_context_t ctx;
        int fd;
        unsigned depth;
        struct io_event *events;
};

static int sys_io_setup(unsigned nr, aio_context_t *ctx) {
        return syscall(SYS_io_setup, nr, ctx) < 0 ? -errno : 0;
}

static int sys_io_destroy(aio_context_t ctx) {
        return syscall(SYS_io_destroy, ctx) < 0 ? -errno : 0;
}

static int libaio_open(int fd, unsigned depth, IoEngine **ret) {
        IoEngine *e = calloc(1, sizeof(*e));
        int r;

        if (!e)
                return -ENOMEM;
        e->fd = fd;
        e->depth = depth ? depth : 1;
        e->events = calloc(e->depth, sizeof(struct io_event));
        if (!e->events) {
                free(e);
                return -ENOMEM;
        }
        /* EAGAIN: the system's fs.aio-max-nr requests are taken. */
        r = sys_io_setup(e->depth, &e->ctx);
        if (r < 0) {
                free(e->events);
                free(e);
                return r;
        }
        *ret = e;
        return 0;
}

static int libaio_queue(IoEngine *e, IoRequest *r) {
        struct iocb cb = {
                .aio_data = (uint64_t) (uintptr_t) r,
                .aio_lio_opcode = r->write ? IOCB_CMD_PWRITE : IOCB_CMD_PREAD,
                .aio_fildes = (uint32_t) e->fd,
                .aio_buf = (uint64_t) (uintptr_t) r->buf,
                .aio_nbytes = r->len,
                .aio_offset = (int64_t) r->offset,
        };
        struct iocb *cbs[1] = { &cb };
        long k;

        do
                k = syscall(SYS_io_submit, e->ctx, 1L, cbs);
        while (k < 0 && (errno == EINTR || errno == EAGAIN));
        if (k < 0)
                return -errno;
        return k == 1 ? 0 : -EIO;
}

static int libaio_reap(IoEngine *e, unsigned min, IoRequest **done, unsigned max) {
        long n;

        max = MIN(max, e->depth);
        min = MIN(min, max);
        if (max == 0)
                return 0;
        do
                n = syscall(SYS_io_getevents, e->ctx, (long) min, (long) max, e->events, NULL);
        while (n < 0 && errno == EINTR);
        if (n < 0)
                return -errno;

        uint64_t t = now_nsec(CLOCK_MONOTONIC);
        for (long i = 0; i < n; i++) {
                IoRequest *req = (IoRequest *) (uintptr_t) e->events[i].data;
                req->result = e->events[i].res;
                req->end_ns = t;
                done[i] = req;
        }
        return (int) n;
}

static void libaio_close(IoEngine *e) {
        if (!e)
                return;
        /* Waits for what is still in flight (the data loop drained it already). */
        (void) sys_io_destroy(e->ctx);
        free(e->events);
        free(e);
}

const IoEngineOps ioengine_libaio_ops = {
        .name = "libaio",
        .open = libaio_open,
        .queue = libaio_queue,
        .reap = libaio_reap,
        .close = libaio_close,
};
