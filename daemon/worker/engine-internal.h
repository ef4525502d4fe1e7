/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What engine.c (orchestration and sampling), stream.c (the I/O loops), target.c (files, layout,
 * backing device) and metadata.c share. Not a public interface.
 */
#pragma once

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <sys/resource.h>
#include <sys/types.h>

#include "engine.h"
#include "ioengine.h"
#include "prng.h"
#include "sysstat.h"
#include "shared/util.h"

typedef struct Engine Engine;

typedef struct StreamCounters {
        uint64_t bytes_read, bytes_written, ios_read, ios_written, ops;
} StreamCounters;

/* What a recorded operation was: a read or a write of data, or an operation that moves none. */
typedef enum StreamKind {
        STREAM_READ,
        STREAM_WRITE,
        STREAM_NO_DATA,
        _STREAM_KIND_MAX,
} StreamKind;

/* Room for a stream's failure message; a longer one is cut. */
#define STREAM_ERROR_MESSAGE_MAX 512

/* What a stream and the sampler both touch. It lives in the engine's MAP_SHARED mapping, made
 * before the streams are forked, so it has the same address in the worker and in every stream
 * process and the pointers in it (interval[]) stay valid on both sides. */
typedef struct StreamShared {
        /* Written by the stream, taken by the sampler; under lock (process-shared, robust). One
         * interval histogram per StreamKind, so an I/O is added to one histogram and the sampler,
         * not the hot path, builds the per-direction totals. interval[] and the sampler's spare[]
         * point into hist[]. */
        pthread_mutex_t lock;
        Histogram *interval[_STREAM_KIND_MAX];
        StreamCounters counters;
        uint64_t progress_bytes;        /* all bytes since the start, ramp included */
        uint64_t progress_ops;

        /* Set once by the stream (or by the sampler for a stream process that died). */
        int error;
        char error_message[STREAM_ERROR_MESSAGE_MAX];
        bool done;                      /* under EngineShared.lock: counted out of running */

        /* A stream process's own CPU time when it first saw the measured phase, so the result can
         * leave the ramp out; written by the stream, read after it was reaped. */
        bool cpu_marked;
        struct timeval cpu_mark_user, cpu_mark_sys;

        Histogram hist[2 * _STREAM_KIND_MAX];
} StreamShared;

/* The engine-wide state the streams see, in the same mapping. lock and cond are process-shared:
 * they gate the start (go) and tell the sampler when streams end (running, last_done_ns). */
typedef struct EngineShared {
        pthread_mutex_t lock;
        pthread_cond_t cond;
        bool go;
        unsigned running;
        uint64_t last_done_ns;
        atomic_bool time_up;
        atomic_bool abort;              /* an error: a stream failed or the sink went away */
        atomic_bool stop;               /* a signal, in the worker or in any stream process */
        atomic_bool measuring;          /* the ramp is over */
        StreamShared streams[];
} EngineShared;

typedef struct Stream {
        Engine *engine;
        StreamShared *shared;
        unsigned index;
        int fd;
        char *name;                     /* the file we created in the target directory, or NULL */
        uint64_t region;                /* addressable bytes from offset 0 */
        Prng rng;

        /* How the stream runs: a process of its own (pid), or a thread of the worker (metadata). */
        pid_t pid;
        pthread_t thread;
        bool thread_started;
        bool in_child;                  /* true in the stream's own process (its copy of this) */

        /* Sampler side (only the sampling thread touches these). */
        Histogram *spare[_STREAM_KIND_MAX];
        Histogram *by_direction[2];     /* [STREAM_READ], [STREAM_WRITE], measured phase only */
        Histogram *total;
        StreamCounters totals;
        struct rusage usage;            /* a stream process's CPU time, from wait4() */
} Stream;

struct Engine {
        const JobSpec *spec;
        const TargetCheck *tc;
        const EngineOptions *opts;
        const EngineSink *sink;
        pthread_mutex_t sink_lock;

        int dirfd;                      /* directory targets */
        int target_fd;                  /* file and block targets: shared by every stream */
        char *meta_dir;                 /* metadata: the directory we created */
        Stream *streams;
        unsigned n_streams;
        const IoEngineOps *io_ops;
        uint32_t depth;

        char **leaves;                  /* devices sampled for utilisation */
        unsigned n_leaves;

        EngineShared *shared;           /* MAP_SHARED, shared_size bytes */
        size_t shared_size;

        bool have_sample;
        uint64_t last_t_ms;

        PhaseSummary *phases;           /* metadata only; written by its single stream */
        unsigned n_phases;
};

/* Seeks, ping and metadata are bounded by operations rather than bytes when not time-based. */
#define SEEKS_PER_STREAM 8000u
#define PING_COUNT 10u

/* True when streams must stop now: a signal, an error, or the end of the runtime. */
bool engine_should_stop(Engine *e);
/* True for a signal or an error only (the run will not produce a result). */
bool engine_aborted(Engine *e);
/* Records one completed operation. */
void stream_record(Stream *s, uint64_t latency_ns, bool write, uint64_t bytes, uint64_t ops);
/* Counts a write that is timed as part of another operation (a seek's write-back). */
void stream_record_write_back(Stream *s, uint64_t bytes);
/* The stream's error: 0, or what stream_fail() recorded. */
static inline int stream_error(const Stream *s) {
        return s->shared->error;
}
/* Marks the stream failed with a message (printf-style) and aborts the run. Returns error. */
int stream_fail(Stream *s, int error, const char *fmt, ...) _printf_(3, 4);
int engine_phase(Engine *e, const char *name);
int engine_log(Engine *e, int priority, const char *fmt, ...) _printf_(3, 4);
/* Hands one finished workload phase (metadata) to the sink. */
int engine_phase_result(Engine *e, const PhaseSummary *p);

/* stream.c */
void *stream_main(void *userdata);

/* metadata.c */
int stream_metadata(Stream *s);

/* target.c */
int target_open(Engine *e, char **reterr);
int target_layout(Engine *e, char **reterr);
void target_cleanup(Engine *e);
int target_resolve_devices(Engine *e);
/* Fills buf with sync file data flush per spec (fsync or fdatasync). */
int target_sync(Engine *e, int fd);
