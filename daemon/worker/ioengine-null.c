/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The null engine (fio's engines/null.c): every request completes in full at queue time without
 * touching the file, so the stream loops, the sampler and the result can be tested without a
 * device, and the engine's own overhead measured. Up to depth requests wait to be reaped.
 */
#include <errno.h>
#include <stdlib.h>

#include "ioengine.h"
#include "shared/util.h"

struct IoEngine {
        IoDoneList done;
};

static int null_open(int fd, unsigned depth, IoEngine **ret) {
        IoEngine *e = calloc(1, sizeof(*e));

        if (!e)
                return -ENOMEM;
        if (io_done_list_init(&e->done, depth) < 0) {
                free(e);
                return -ENOMEM;
        }
        *ret = e;
        return 0;
}

static int null_queue(IoEngine *e, IoRequest *r) {
        if (e->done.n >= e->done.depth)
                return -EBUSY;
        r->result = r->len;
        return io_done_list_push(&e->done, r);
}

static int null_reap(IoEngine *e, unsigned min, IoRequest **done, unsigned max) {
        return io_done_list_reap(&e->done, done, max);
}

static void null_close(IoEngine *e) {
        if (!e)
                return;
        io_done_list_clear(&e->done);
        free(e);
}

const IoEngineOps ioengine_null_ops = {
        .name = "null",
        .open = null_open,
        .queue = null_queue,
        .reap = null_reap,
        .close = null_close,
};
