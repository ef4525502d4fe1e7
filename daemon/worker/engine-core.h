/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The engine core: the state of one run (Engine, its streams, and the MAP_SHARED mapping the
 * stream processes and the sampler share) and what every part of the engine needs from it — the
 * stop and abort flags, the sink (phases, samples, log lines, metadata's phase results, position's
 * results, one call at a time), and a stream's records and failure. stream.c, target.c and metadata.c include this
 * and nothing of each other or of engine.c; engine.c, the orchestration, includes them all.
 */
#pragma once

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/types.h>

#include "ioengine.h"
#include "prng.h"
#include "shared/histogram.h"
#include "shared/proto.h"
#include "shared/spec-check.h"
#include "shared/spec.h"
#include "shared/util.h"
#include "workload.h"

typedef struct PhaseSummary PhaseSummary;

/* Called in the worker process only, from the engine's sampling thread or metadata's or
 * position's stream thread (the other workloads' streams are processes and report through shared
 * memory), one call at a time. A negative return stops the run (the peer went away). phase_result (may be NULL): one of
 * the workload's own phases has ended (metadata), sent as it ends so a run that fails later keeps
 * it. */
typedef struct EngineSink {
        void *userdata;
        int (*phase)(void *userdata, const char *name);
        int (*sample)(void *userdata, const ProtoSample *s);
        int (*log)(void *userdata, int priority, const char *text);
        int (*phase_result)(void *userdata, const PhaseSummary *p);
        /* position_result (may be NULL): one of the position workload's offsets was read, sent as
         * it ends, in order. */
        int (*position_result)(void *userdata, const ProtoPositionResult *p);
        /* steady_state (may be NULL): the step's figure met its steady_state criterion over the
         * window the sample at t_ms completed; the measured phase ends now. */
        int (*steady_state)(void *userdata, uint64_t t_ms);
        /* wait_start (may be NULL: starts at once): a fleet step is prepared (PHASE ready was
         * sent); blocks until benchd says the measured phase begins (START), or the worker is told
         * to stop (-ECANCELED). */
        int (*wait_start)(void *userdata);
} EngineSink;

/* Metadata workloads report one of these per phase (create-seq, stat-seq, ...); in protocol mode
 * each becomes a PHASE_RESULT frame, so the name obeys proto_phase_name_valid(). */
typedef struct PhaseSummary {
        char name[PROTO_PHASE_NAME_MAX + 1];
        uint64_t ops;
        uint64_t duration_usec;
        uint64_t lat_min_ns, lat_mean_ns, lat_p50_ns, lat_p99_ns, lat_max_ns;
} PhaseSummary;

typedef struct EngineOptions {
        const char *file_prefix;        /* ".benchd-<job>-<step>-": files get <prefix><stream> */
        const char *sysfs_root;         /* NULL: /sys */
        const char *proc_stat;          /* NULL: /proc/stat */
        const char *ioengine;           /* "null" or "io_uring" (ioengine_find()); NULL or "sync":
                                         * sync at depth 1, io_uring above */
        bool scratch;                   /* the daemon found the block device marked scratch: its
                                         * signatures may be overwritten (never a holder or mount) */
} EngineOptions;

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

/* The sampler waits at most this long at a time, so a stop or a dead stream is seen soon. */
#define ENGINE_WAIT_SLICE_NS (100 * NSEC_PER_MSEC)

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
        /* Written before go, read-only after: when the measured phase begins (go plus the ramp),
         * the origin of the sampler's wake-ups (workload.h), and its sample interval. */
        uint64_t origin_ns;
        uint64_t sample_ns;
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

        int dirfd;                      /* directory targets: held from the check on (fd-beneath.h) */
        int target_fd;                  /* file and block targets: shared by every stream */
        char *meta_dir;                 /* metadata: the name of the directory we created in dirfd */
        int meta_fd;                    /* ... held from its mkdirat() on; -1 when none */
        int *meta_dir_fds;              /* dirs > 1: its d%05u subdirectories, held likewise */
        unsigned n_meta_dir_fds;
        Stream *streams;
        unsigned n_streams;
        const IoEngineOps *io_ops;
        uint32_t depth;

        char **leaves;                  /* devices sampled for utilisation */
        unsigned n_leaves;
        char **backing;                 /* the disks under the backing files of the loop devices
                                         * among leaves (their counters judge served_from()) */
        unsigned n_backing;

        EngineShared *shared;           /* MAP_SHARED, shared_size bytes */
        size_t shared_size;

        bool have_sample;
        uint64_t last_t_ms;

        PhaseSummary *phases;           /* metadata only; written by its single stream */
        unsigned n_phases;

        PositionPlan position_plan;     /* position only: set by target_open() */
        ProtoPositionResult *positions; /* position only; written by its single stream */
        unsigned n_positions;
};

/* Locks a process-shared mutex. They are robust: when a stream process died holding one, the data
 * under it may be half-updated, but that death fails the run anyway; only a hang must not follow. */
static inline void shared_lock(pthread_mutex_t *m) {
        if (pthread_mutex_lock(m) == EOWNERDEAD)
                (void) pthread_mutex_consistent(m);
}

/* Maps e->shared (EngineShared and one StreamShared per stream, e->n_streams) with process-shared,
 * robust locks, and makes it the one engine_request_stop() reaches; unmapped by
 * engine_shared_free(), which is a no-op without a mapping. */
int engine_shared_new(Engine *e);
void engine_shared_free(Engine *e);

/* Async-signal-safe: asks a running engine to stop within one I/O and clean up. */
void engine_request_stop(void);
/* Whether engine_request_stop() was called, whether or not an engine runs (the worker's own
 * preparations poll it). */
bool engine_stop_requested(void);
/* True when streams must stop now: a signal, an error, or the end of the runtime. */
bool engine_should_stop(Engine *e);
/* True for a signal only. */
bool engine_stopped(Engine *e);
/* True for a signal or an error only (the run will not produce a result). */
bool engine_aborted(Engine *e);

/* The sink, one call at a time. A failing phase, sample or phase result aborts the run. */
int engine_phase(Engine *e, const char *name);
/* A fleet step (fleet_uuid): PHASE ready, then the sink's wait_start. A failure aborts the run. */
int engine_wait_start(Engine *e);
int engine_sample(Engine *e, const ProtoSample *sample);
int engine_log(Engine *e, int priority, const char *fmt, ...) _printf_(3, 4);
/* Hands one finished workload phase (metadata) to the sink. */
int engine_phase_result(Engine *e, const PhaseSummary *p);
/* Keeps one finished position (for the result) and hands it to the sink. */
int engine_position_result(Engine *e, const ProtoPositionResult *p);
/* The steady state was reached at t_ms (of the latest sample): tells the sink. */
int engine_steady_state(Engine *e, uint64_t t_ms);

/* In a stream process: notes its CPU time the first time it is called in the measured phase. */
void stream_mark_cpu(Stream *s);
void stream_done(Stream *s);
/* Records one completed operation. */
void stream_record(Stream *s, uint64_t latency_ns, bool write, uint64_t bytes, uint64_t ops);
/* Records a timed batch of chars one-byte I/Os (putc, getc): one latency, chars bytes and I/Os. */
void stream_record_chars(Stream *s, uint64_t latency_ns, bool write, uint64_t chars);
/* Counts a write that is timed as part of another operation (a seek's write-back). */
void stream_record_write_back(Stream *s, uint64_t bytes);
/* The stream's error: 0, or what stream_fail() recorded. */
static inline int stream_error(const Stream *s) {
        return s->shared->error;
}
/* Marks the stream failed with a message (printf-style) and aborts the run. Returns error. */
int stream_fail(Stream *s, int error, const char *fmt, ...) _printf_(3, 4);
