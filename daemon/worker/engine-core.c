/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The engine core: what the orchestration (engine.c), the I/O loops (stream.c), the target
 * (target.c) and the metadata workload (metadata.c) share about a run. The shared mapping and the
 * stop flag a signal sets (a stream process inherits the worker's SIGTERM/SIGINT handler, so a
 * signal to the worker or to any stream stops every stream within one I/O); the sink, behind one
 * lock; and a stream's records, which go into its own interval histograms and counters under its
 * own process-shared mutex, so the hot path adds each I/O to one histogram and never waits for
 * more than the sampler's pointer swap.
 */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/resource.h>

#include "engine-core.h"
#include "shared/util.h"

static volatile sig_atomic_t stop_requested;

/* The running engine's shared state, for the signal handler. */
static EngineShared *volatile current_shared;

void engine_request_stop(void) {
        EngineShared *sh = current_shared;

        stop_requested = 1;
        if (sh)
                atomic_store(&sh->stop, true);     /* lock-free, so async-signal-safe */
}

bool engine_stop_requested(void) {
        return stop_requested != 0;
}

bool engine_should_stop(Engine *e) {
        EngineShared *sh = e->shared;

        return stop_requested || atomic_load_explicit(&sh->stop, memory_order_relaxed) ||
               atomic_load_explicit(&sh->abort, memory_order_relaxed) ||
               atomic_load_explicit(&sh->time_up, memory_order_relaxed);
}

bool engine_stopped(Engine *e) {
        return stop_requested || atomic_load(&e->shared->stop);
}

bool engine_aborted(Engine *e) {
        return engine_stopped(e) || atomic_load(&e->shared->abort);
}

/* Made before the streams are forked, so it is at the same address in all of them. */
int engine_shared_new(Engine *e) {
        size_t size = sizeof(EngineShared) + (size_t) e->n_streams * sizeof(StreamShared);
        pthread_mutexattr_t ma;
        pthread_condattr_t ca;
        EngineShared *sh;

        sh = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
        if (sh == MAP_FAILED)
                return -errno;

        pthread_mutexattr_init(&ma);
        pthread_mutexattr_setpshared(&ma, PTHREAD_PROCESS_SHARED);
        pthread_mutexattr_setrobust(&ma, PTHREAD_MUTEX_ROBUST);
        pthread_condattr_init(&ca);
        pthread_condattr_setpshared(&ca, PTHREAD_PROCESS_SHARED);
        pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
        pthread_mutex_init(&sh->lock, &ma);
        pthread_cond_init(&sh->cond, &ca);
        for (unsigned i = 0; i < e->n_streams; i++) {
                StreamShared *ss = &sh->streams[i];
                pthread_mutex_init(&ss->lock, &ma);
                for (unsigned k = 0; k < ELEMENTSOF(ss->hist); k++)
                        histogram_init(&ss->hist[k]);
        }
        pthread_condattr_destroy(&ca);
        pthread_mutexattr_destroy(&ma);
        atomic_store(&sh->stop, stop_requested != 0);

        e->shared = sh;
        e->shared_size = size;
        current_shared = sh;
        return 0;
}

void engine_shared_free(Engine *e) {
        EngineShared *sh = e->shared;

        if (!sh)
                return;
        current_shared = NULL;
        for (unsigned i = 0; i < e->n_streams; i++)
                pthread_mutex_destroy(&sh->streams[i].lock);
        pthread_cond_destroy(&sh->cond);
        pthread_mutex_destroy(&sh->lock);
        (void) munmap(sh, e->shared_size);
        e->shared = NULL;
}

static void engine_wake(Engine *e) {
        shared_lock(&e->shared->lock);
        pthread_cond_broadcast(&e->shared->cond);
        pthread_mutex_unlock(&e->shared->lock);
}

int engine_phase(Engine *e, const char *name) {
        int r = 0;

        pthread_mutex_lock(&e->sink_lock);
        if (e->sink && e->sink->phase)
                r = e->sink->phase(e->sink->userdata, name);
        pthread_mutex_unlock(&e->sink_lock);
        if (r < 0)
                atomic_store(&e->shared->abort, true);
        return r;
}

int engine_wait_start(Engine *e) {
        int r = engine_phase(e, "ready");

        /* Not under the sink's lock: the streams may log while the step waits. */
        if (r >= 0 && e->sink && e->sink->wait_start)
                r = e->sink->wait_start(e->sink->userdata);
        if (r < 0)
                atomic_store(&e->shared->abort, true);
        return r;
}

int engine_sample(Engine *e, const ProtoSample *sample) {
        int r = 0;

        pthread_mutex_lock(&e->sink_lock);
        if (e->sink && e->sink->sample)
                r = e->sink->sample(e->sink->userdata, sample);
        pthread_mutex_unlock(&e->sink_lock);
        if (r < 0)
                atomic_store(&e->shared->abort, true);
        return r;
}

int engine_steady_state(Engine *e, uint64_t t_ms) {
        int r = 0;

        pthread_mutex_lock(&e->sink_lock);
        if (e->sink && e->sink->steady_state)
                r = e->sink->steady_state(e->sink->userdata, t_ms);
        pthread_mutex_unlock(&e->sink_lock);
        if (r < 0)
                atomic_store(&e->shared->abort, true);
        return r;
}

int engine_phase_result(Engine *e, const PhaseSummary *p) {
        int r = 0;

        pthread_mutex_lock(&e->sink_lock);
        if (e->sink && e->sink->phase_result)
                r = e->sink->phase_result(e->sink->userdata, p);
        pthread_mutex_unlock(&e->sink_lock);
        if (r < 0)
                atomic_store(&e->shared->abort, true);
        return r;
}

int engine_position_result(Engine *e, const ProtoPositionResult *p) {
        ProtoPositionResult *a;
        int r = 0;

        a = realloc(e->positions, (e->n_positions + 1) * sizeof(ProtoPositionResult));
        if (!a) {
                atomic_store(&e->shared->abort, true);
                return -ENOMEM;
        }
        e->positions = a;
        e->positions[e->n_positions++] = *p;

        pthread_mutex_lock(&e->sink_lock);
        if (e->sink && e->sink->position_result)
                r = e->sink->position_result(e->sink->userdata, p);
        pthread_mutex_unlock(&e->sink_lock);
        if (r < 0)
                atomic_store(&e->shared->abort, true);
        return r;
}

int engine_log(Engine *e, int priority, const char *fmt, ...) {
        _cleanup_free_ char *text = NULL;
        va_list ap;
        int r = 0;

        va_start(ap, fmt);
        r = vasprintf(&text, fmt, ap);
        va_end(ap);
        if (r < 0)
                return -ENOMEM;

        r = 0;
        pthread_mutex_lock(&e->sink_lock);
        if (e->sink && e->sink->log)
                r = e->sink->log(e->sink->userdata, priority, text);
        pthread_mutex_unlock(&e->sink_lock);
        return r;
}

/* Counts a stream out of running: it has ended, or its process died before it could. A stream
 * whose measured work is over may call it before it tears down what it used (libaio's io_destroy()
 * waits out RCU grace periods: tens of milliseconds, which the measured time must not hold, as
 * fio's does not); the later calls do nothing. */
void stream_done(Stream *s) {
        EngineShared *sh = s->engine->shared;

        shared_lock(&sh->lock);
        if (!s->shared->done) {
                s->shared->done = true;
                sh->running--;
                sh->last_done_ns = now_nsec(CLOCK_MONOTONIC);
                pthread_cond_broadcast(&sh->cond);
        }
        pthread_mutex_unlock(&sh->lock);
}

/* Once: the stream process's own CPU time when the measured phase began (or when it first saw
 * that), subtracted from what wait4() reports, so the result leaves the ramp out. */
void stream_mark_cpu(Stream *s) {
        struct rusage ru;

        if (s->shared->cpu_marked ||
            !atomic_load_explicit(&s->engine->shared->measuring, memory_order_relaxed) ||
            getrusage(RUSAGE_SELF, &ru) < 0)
                return;
        s->shared->cpu_mark_user = ru.ru_utime;
        s->shared->cpu_mark_sys = ru.ru_stime;
        s->shared->cpu_marked = true;
}

void stream_record(Stream *s, uint64_t latency_ns, bool write, uint64_t bytes, uint64_t ops) {
        StreamKind kind = bytes == 0 ? STREAM_NO_DATA : write ? STREAM_WRITE : STREAM_READ;
        StreamShared *ss = s->shared;

        if (_unlikely_(s->in_child && !ss->cpu_marked))
                stream_mark_cpu(s);

        shared_lock(&ss->lock);
        histogram_add(ss->interval[kind], latency_ns);
        if (write) {
                ss->counters.bytes_written += bytes;
                ss->counters.ios_written += bytes > 0;
        } else {
                ss->counters.bytes_read += bytes;
                ss->counters.ios_read += bytes > 0;
        }
        ss->counters.ops += ops;
        ss->progress_bytes += bytes;
        ss->progress_ops += ops;
        pthread_mutex_unlock(&ss->lock);
}

void stream_record_chars(Stream *s, uint64_t latency_ns, bool write, uint64_t chars) {
        StreamShared *ss = s->shared;

        if (chars == 0)
                return;
        if (_unlikely_(s->in_child && !ss->cpu_marked))
                stream_mark_cpu(s);

        shared_lock(&ss->lock);
        histogram_add(ss->interval[write ? STREAM_WRITE : STREAM_READ], latency_ns);
        if (write) {
                ss->counters.bytes_written += chars;
                ss->counters.ios_written += chars;
        } else {
                ss->counters.bytes_read += chars;
                ss->counters.ios_read += chars;
        }
        ss->progress_bytes += chars;
        pthread_mutex_unlock(&ss->lock);
}

void stream_record_write_back(Stream *s, uint64_t bytes) {
        StreamShared *ss = s->shared;

        shared_lock(&ss->lock);
        ss->counters.bytes_written += bytes;
        ss->counters.ios_written++;
        ss->progress_bytes += bytes;
        pthread_mutex_unlock(&ss->lock);
}

int stream_fail(Stream *s, int error, const char *fmt, ...) {
        StreamShared *ss = s->shared;
        va_list ap;

        if (!ss->error_message[0]) {
                va_start(ap, fmt);
                (void) vsnprintf(ss->error_message, sizeof(ss->error_message), fmt, ap);
                va_end(ap);
        }
        ss->error = error < 0 ? error : -EIO;
        atomic_store(&s->engine->shared->abort, true);
        engine_wake(s->engine);
        return ss->error;
}
