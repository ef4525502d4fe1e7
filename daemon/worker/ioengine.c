/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The I/O engines by name, as fio finds its engines: every engine a file of its own with one ops
 * table, listed here once; and the list of completions the engines that complete at queue time
 * (sync, null) share.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>

#include "ioengine.h"
#include "shared/util.h"

static const IoEngineOps *const ioengines[] = {
        &ioengine_sync_ops,
        &ioengine_uring_ops,
        &ioengine_libaio_ops,
        &ioengine_null_ops,
};

const IoEngineOps *ioengine_find(const char *name) {
        for (size_t i = 0; i < ELEMENTSOF(ioengines); i++)
                if (streq(ioengines[i]->name, name))
                        return ioengines[i];
        return NULL;
}

int io_done_list_init(IoDoneList *l, unsigned depth) {
        *l = (IoDoneList) { .depth = depth ? depth : 1 };
        l->done = calloc(l->depth, sizeof(IoRequest *));
        return l->done ? 0 : -ENOMEM;
}

int io_done_list_push(IoDoneList *l, IoRequest *r) {
        if (l->n >= l->depth)
                return -EBUSY;
        r->end_ns = now_nsec(CLOCK_MONOTONIC);
        l->done[l->n++] = r;
        return 0;
}

int io_done_list_reap(IoDoneList *l, IoRequest **done, unsigned max) {
        unsigned n = MIN(l->n, max);

        for (unsigned i = 0; i < n; i++)
                done[i] = l->done[i];
        for (unsigned i = n; i < l->n; i++)
                l->done[i - n] = l->done[i];
        l->n -= n;
        return (int) n;
}

void io_done_list_clear(IoDoneList *l) {
        free(l->done);
        *l = (IoDoneList) {};
}
