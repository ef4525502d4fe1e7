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
        unsigned depth, n_done;
        IoRequest **done;
};

static int null_open(int fd, unsigned depth, IoEngine **ret) {
        IoEngine *e = calloc(1, sizeof(*e));
        if (!e)
                return -ENOMEM;
        e->depth = depth ? depth : 1;
        e->done = calloc(e->depth, sizeof(IoRequest *));
        if (!e->done) {
                free(e);
                return -ENOMEM;
        }
        *ret = e;
        return 0;
}

static int null_queue(IoEngine *e, IoRequest *r) {
        if (e->n_done >= e->depth)
                return -EBUSY;
        r->result = r->len;
        r->end_ns = now_nsec(CLOCK_MONOTONIC);
        e->done[e->n_done++] = r;
        return 0;
}

static int null_reap(IoEngine *e, unsigned min, IoRequest **done, unsigned max) {
        unsigned n = MIN(e->n_done, max);

        for (unsigned i = 0; i < n; i++)
                done[i] = e->done[i];
        for (unsigned i = n; i < e->n_done; i++)
                e->done[i - n] = e->done[i];
        e->n_done -= n;
        return (int) n;
}

static void null_close(IoEngine *e) {
        if (!e)
                return;
        free(e->done);
        free(e);
}

const IoEngineOps ioengine_null_ops = {
        .name = "null",
        .open = null_open,
        .queue = null_queue,
        .reap = null_reap,
        .close = null_close,
};
