/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The io_uring engine (liburing) for queue depths above 1: requests become SQEs carrying the
 * request pointer, each submitted as it is queued; reap returns up to the caller's max completions
 * (the data loop takes one at a time, as fio does by default), timed once per call, right after
 * the wait returns. Only the stream (process) that opened the ring uses it.
 */
#include <errno.h>
#include <liburing.h>
#include <stdlib.h>

#include "ioengine.h"
#include "shared/util.h"

struct IoEngine {
        struct io_uring ring;
        int fd;
        unsigned depth;
};

/* The ring is set up the way fio's io_uring engine sets up its own, so that the two measure the
 * same kernel paths: a completion queue no larger than the depth; COOP_TASKRUN, so completions do
 * not interrupt the stream with an IPI; and, because one thread both submits and reaps,
 * SINGLE_ISSUER with DEFER_TASKRUN, which runs completion work only when the stream waits for it.
 * Kernels older than 6.1 (DEFER_TASKRUN) or 5.19 (COOP_TASKRUN) refuse the flags with EINVAL; each
 * is dropped in turn, as fio does. */
static int ring_init(unsigned depth, struct io_uring *ring) {
        static const unsigned flag_sets[] = {
                IORING_SETUP_CQSIZE | IORING_SETUP_COOP_TASKRUN | IORING_SETUP_SINGLE_ISSUER |
                        IORING_SETUP_DEFER_TASKRUN,
                IORING_SETUP_CQSIZE | IORING_SETUP_COOP_TASKRUN,
                IORING_SETUP_CQSIZE,
        };
        int r = -EINVAL;

        for (size_t i = 0; i < ELEMENTSOF(flag_sets); i++) {
                struct io_uring_params p = { .flags = flag_sets[i], .cq_entries = depth };

                r = io_uring_queue_init_params(depth, ring, &p);
                if (r != -EINVAL)
                        break;
        }
        return r;
}

static int uring_open(int fd, unsigned depth, IoEngine **ret) {
        IoEngine *e = calloc(1, sizeof(*e));
        int r;

        if (!e)
                return -ENOMEM;
        e->fd = fd;
        e->depth = depth ? depth : 1;
        r = ring_init(e->depth, &e->ring);
        if (r < 0) {
                free(e);
                return r;
        }
        *ret = e;
        return 0;
}

/* Each request is submitted as it is queued, as fio does by default (iodepth_batch_submit=1): the
 * device sees a request the moment a slot frees, rather than when the stream next waits. The same
 * system call runs the completion work DEFER_TASKRUN held back (fio enters with GETEVENTS too). */
static int uring_queue(IoEngine *e, IoRequest *r) {
        struct io_uring_sqe *sqe = io_uring_get_sqe(&e->ring);
        int k;

        if (!sqe)
                return -EBUSY;
        if (r->write)
                io_uring_prep_write(sqe, e->fd, r->buf, r->len, r->offset);
        else
                io_uring_prep_read(sqe, e->fd, r->buf, r->len, r->offset);
        io_uring_sqe_set_data(sqe, r);
        do
                k = io_uring_submit_and_get_events(&e->ring);
        while (k == -EINTR || k == -EAGAIN);
        return k < 0 ? k : 0;
}

static int uring_reap(IoEngine *e, unsigned min, IoRequest **done, unsigned max) {
        struct io_uring_cqe *cqes[64];
        unsigned n = 0;
        int r;

        if (min > 0) {
                struct io_uring_cqe *cqe;
                do
                        r = io_uring_wait_cqe_nr(&e->ring, &cqe, min);
                while (r == -EINTR);
                if (r < 0)
                        return r;
        }

        uint64_t t = now_nsec(CLOCK_MONOTONIC);
        while (n < max) {
                unsigned want = MIN(max - n, (unsigned) ELEMENTSOF(cqes));
                unsigned got = io_uring_peek_batch_cqe(&e->ring, cqes, want);
                if (got == 0)
                        break;
                for (unsigned i = 0; i < got; i++) {
                        IoRequest *req = io_uring_cqe_get_data(cqes[i]);
                        req->result = cqes[i]->res;
                        req->end_ns = t;
                        done[n++] = req;
                }
                io_uring_cq_advance(&e->ring, got);
        }
        return (int) n;
}

static void uring_close(IoEngine *e) {
        if (!e)
                return;
        io_uring_queue_exit(&e->ring);
        free(e);
}

const IoEngineOps ioengine_uring_ops = {
        .name = "io_uring",
        .open = uring_open,
        .queue = uring_queue,
        .reap = uring_reap,
        .close = uring_close,
};
