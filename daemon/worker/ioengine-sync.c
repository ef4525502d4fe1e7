/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The synchronous engine: pread/pwrite at queue time, so depth 1 costs one system call per I/O and
 * the latency is exactly the call's duration.
 */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include "ioengine.h"
#include "shared/util.h"

struct IoEngine {
        int fd;
        IoDoneList done;
};

static int sync_open(int fd, unsigned depth, IoEngine **ret) {
        IoEngine *e = calloc(1, sizeof(*e));

        if (!e)
                return -ENOMEM;
        e->fd = fd;
        if (io_done_list_init(&e->done, depth) < 0) {
                free(e);
                return -ENOMEM;
        }
        *ret = e;
        return 0;
}

static int64_t do_io(IoEngine *e, IoRequest *r) {
        size_t done = 0;

        /* Short transfers continue (a signal, a pipe-like device); EOF is reported as a short count. */
        while (done < r->len) {
                ssize_t n = r->write ? pwrite(e->fd, (uint8_t *) r->buf + done, r->len - done, (off_t) (r->offset + done))
                                     : pread(e->fd, (uint8_t *) r->buf + done, r->len - done, (off_t) (r->offset + done));
                if (n < 0) {
                        if (errno == EINTR)
                                continue;
                        return -errno;
                }
                if (n == 0)
                        break;
                done += (size_t) n;
        }
        return (int64_t) done;
}

static int sync_queue(IoEngine *e, IoRequest *r) {
        if (e->done.n >= e->done.depth)
                return -EBUSY;
        r->result = do_io(e, r);
        return io_done_list_push(&e->done, r);
}

static int sync_reap(IoEngine *e, unsigned min, IoRequest **done, unsigned max) {
        return io_done_list_reap(&e->done, done, max);
}

static void sync_close(IoEngine *e) {
        if (!e)
                return;
        io_done_list_clear(&e->done);
        free(e);
}

const IoEngineOps ioengine_sync_ops = {
        .name = "sync",
        .open = sync_open,
        .queue = sync_queue,
        .reap = sync_reap,
        .close = sync_close,
};
