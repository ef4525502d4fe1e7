/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * I/O engines as a table of operations (fio's shape): the stream loop queues requests and reaps
 * completions without knowing whether they were done synchronously (pread/pwrite at depth 1), by
 * io_uring (depth > 1), by Linux AIO (fio's libaio, where a step asks for it with ioengine=), or
 * not at all (the null engine, for tests of the machinery). One engine per file (ioengine-sync.c,
 * ioengine-uring.c, ioengine-libaio.c, ioengine-null.c), each found by its name through
 * ioengine_find() (ioengine.c).
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

typedef struct IoRequest {
        void *buf;
        uint64_t offset;
        uint32_t len;
        bool write;
        uint64_t start_ns;      /* CLOCK_MONOTONIC, set by the caller right before queueing */
        uint64_t end_ns;        /* set by the engine at completion */
        int64_t result;         /* bytes transferred, or -errno */
} IoRequest;

typedef struct IoEngine IoEngine;

typedef struct IoEngineOps {
        const char *name;
        /* depth: most requests in flight at once. */
        int (*open)(int fd, unsigned depth, IoEngine **ret);
        /* Starts a request: the sync engine performs it here, io_uring submits it. */
        int (*queue)(IoEngine *e, IoRequest *req);
        /* Waits for at least min completions, returns up to max of them in done[]. */
        int (*reap)(IoEngine *e, unsigned min, IoRequest **done, unsigned max);
        void (*close)(IoEngine *e);
} IoEngineOps;

/* Each engine's table, defined in its own file. */
extern const IoEngineOps ioengine_sync_ops;
extern const IoEngineOps ioengine_uring_ops;
extern const IoEngineOps ioengine_libaio_ops;
extern const IoEngineOps ioengine_null_ops;

/* For engines that complete a request as it is queued (sync, null): the completions waiting to be
 * reaped, in order, at most depth of them (ioengine.c). */
typedef struct IoDoneList {
        unsigned depth, n;
        IoRequest **done;
} IoDoneList;

int io_done_list_init(IoDoneList *l, unsigned depth);
/* Stamps end_ns and keeps r for reaping; -EBUSY when depth completions already wait. */
int io_done_list_push(IoDoneList *l, IoRequest *r);
/* Up to max of the waiting completions, oldest first, into done[]; returns how many. */
int io_done_list_reap(IoDoneList *l, IoRequest **done, unsigned max);
void io_done_list_clear(IoDoneList *l);

/* The engine called name ("sync", "io_uring", "libaio", "null"), or NULL when none is. */
const IoEngineOps *ioengine_find(const char *name);
