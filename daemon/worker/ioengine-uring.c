/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The io_uring engine (liburing) for queue depths above 1: requests become SQEs carrying the
 * request pointer, one io_uring_enter per submit-and-wait (reap submits what is queued),
 * completions reaped in batches. The completion time is taken once per reaped batch, right after
 * the wait returns, as fio does.
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
        unsigned queued;        /* SQEs prepared but not yet submitted */
};

static int uring_open(int fd, unsigned depth, IoEngine **ret) {
        IoEngine *e = calloc(1, sizeof(*e));
        int r;

        if (!e)
                return -ENOMEM;
        e->fd = fd;
        e->depth = depth ? depth : 1;
        r = io_uring_queue_init(e->depth, &e->ring, 0);
        if (r < 0) {
                free(e);
                return r;
        }
        *ret = e;
        return 0;
}

static int uring_queue(IoEngine *e, IoRequest *r) {
        struct io_uring_sqe *sqe = io_uring_get_sqe(&e->ring);
        if (!sqe)
                return -EBUSY;
        if (r->write)
                io_uring_prep_write(sqe, e->fd, r->buf, r->len, r->offset);
        else
                io_uring_prep_read(sqe, e->fd, r->buf, r->len, r->offset);
        io_uring_sqe_set_data(sqe, r);
        e->queued++;
        return 0;
}

static int uring_reap(IoEngine *e, unsigned min, IoRequest **done, unsigned max) {
        struct io_uring_cqe *cqes[64];
        unsigned n = 0;
        int r;

        if (e->queued > 0) {
                /* Submit and wait in one system call. */
                do
                        r = io_uring_submit_and_wait(&e->ring, min);
                while (r == -EINTR);
                if (r < 0)
                        return r;
                e->queued = 0;
        } else if (min > 0) {
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
