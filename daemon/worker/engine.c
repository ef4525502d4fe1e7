/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The engine's orchestration: choose the I/O engine and each stream's loop, open the target, lay
 * out, start the streams, ramp, sample from the calling thread, clean up and build the result. The
 * run's state, the sink and the streams' records are the engine core's (engine-core.c); the loops,
 * the target and the metadata workload (stream.c, target.c, metadata.c) depend on that core only,
 * and this file on all of them. Each stream runs in a process and a session of its own, as fio's
 * jobs do by default (sharing one scheduling group, as threads do, costs ~10% of the IOPS and half
 * again on the p99; see stream_process()); metadata's and position's single streams stay threads,
 * because they report their phases and offsets through the sink, which writes to the protocol fd
 * in this process. Streams
 * only count and fill their own interval histograms (one per StreamKind) under a per-stream mutex;
 * the sampler swaps them for clean spares at each interval, so the hot path adds each I/O to one
 * histogram and never waits for more than a pointer swap, and the run's totals are exactly the sum
 * of the emitted samples. Everything both sides touch is in one MAP_SHARED mapping made before the
 * fork (EngineShared), with process-shared, robust locks, so a stream process that dies holding
 * one cannot hang the sampler. Ramp time is run and thrown away before the measured phase starts.
 * With steady_state the sampler also keeps the figure of the last steady_state_window_ms of
 * samples and ends the measured phase, as if its time were up, once the criterion (stability.h)
 * holds over them.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "engine-core.h"
#include "engine.h"
#include "ioengine.h"
#include "metadata.h"
#include "shared/blockdev.h"
#include "shared/served.h"
#include "shared/stability.h"
#include "shared/strv.h"
#include "shared/util.h"
#include "stream.h"
#include "sysstat.h"
#include "target.h"

/* spec_finalize() refuses more already; checked again here as a defence. */
#define ENGINE_BUFFER_BYTES_MAX SPEC_BUFFER_BYTES_MAX

/* The system and device counters at one instant. */
typedef struct Snapshot {
        uint64_t t_ns;
        CpuStat cpu;
        bool cpu_valid;
        BlockStat *dev;                 /* n_leaves entries, then n_backing */
        bool dev_valid;
        bool backing_valid;
} Snapshot;

#define SWAP_SNAPSHOT(a, b) do { Snapshot _swap = (a); (a) = (b); (b) = _swap; } while (0)

static int snapshot_take(Engine *e, Snapshot *s) {
        s->t_ns = now_nsec(CLOCK_MONOTONIC);
        s->cpu_valid = cpustat_read(e->opts ? e->opts->proc_stat : NULL, &s->cpu) >= 0;
        s->dev_valid = e->n_leaves > 0;
        for (unsigned i = 0; i < e->n_leaves; i++)
                if (blockdev_read_stat(e->opts ? e->opts->sysfs_root : NULL, e->leaves[i], &s->dev[i]) < 0)
                        s->dev_valid = false;
        s->backing_valid = e->n_backing > 0;
        for (unsigned i = 0; i < e->n_backing; i++)
                if (blockdev_read_stat(e->opts ? e->opts->sysfs_root : NULL, e->backing[i],
                                       &s->dev[e->n_leaves + i]) < 0)
                        s->backing_valid = false;
        return 0;
}

/* The bytes read and written that devices [from, to) of two snapshots counted in between. */
static void snapshot_bytes(const Snapshot *a, const Snapshot *b, unsigned from, unsigned to, uint64_t *ret_read,
                           uint64_t *ret_written) {
        uint64_t r = 0, w = 0;

        for (unsigned i = from; i < to; i++) {
                /* A counter that went backwards (a device re-attached) counts nothing. */
                if (b->dev[i].read_sectors >= a->dev[i].read_sectors)
                        r += (b->dev[i].read_sectors - a->dev[i].read_sectors) * 512;
                if (b->dev[i].write_sectors >= a->dev[i].write_sectors)
                        w += (b->dev[i].write_sectors - a->dev[i].write_sectors) * 512;
        }
        *ret_read = MIN(r, (uint64_t) INT64_MAX);
        *ret_written = MIN(w, (uint64_t) INT64_MAX);
}

static void snapshot_usage(Engine *e, const Snapshot *a, const Snapshot *b, CpuUsage *cpu, double *util,
                           double *queue) {
        if (a->cpu_valid && b->cpu_valid)
                cpustat_usage(&a->cpu, &b->cpu, cpu);
        else
                *cpu = (CpuUsage) {};
        if (a->dev_valid && b->dev_valid)
                blockstats_usage(a->dev, b->dev, e->n_leaves, (b->t_ns - a->t_ns) / NSEC_PER_USEC, util, queue);
        else
                *util = *queue = -1;
}

/* Takes every stream's interval (histograms and counters) into *h and *c; with keep, also into
 * the stream's totals (all operations and by direction) and the run's. Without keep (the ramp)
 * the interval is dropped. */
static void engine_collect(Engine *e, Histogram *h, StreamCounters *c, bool keep, uint64_t *progress_bytes,
                           uint64_t *progress_ops) {
        histogram_init(h);
        *c = (StreamCounters) {};
        *progress_bytes = *progress_ops = 0;

        for (unsigned i = 0; i < e->n_streams; i++) {
                Stream *s = &e->streams[i];
                StreamCounters sc;
                Histogram *taken[_STREAM_KIND_MAX];

                shared_lock(&s->shared->lock);
                for (unsigned k = 0; k < _STREAM_KIND_MAX; k++) {
                        taken[k] = s->shared->interval[k];
                        s->shared->interval[k] = s->spare[k];
                }
                sc = s->shared->counters;
                s->shared->counters = (StreamCounters) {};
                *progress_bytes += s->shared->progress_bytes;
                *progress_ops += s->shared->progress_ops;
                pthread_mutex_unlock(&s->shared->lock);

                if (keep) {
                        for (unsigned k = 0; k < _STREAM_KIND_MAX; k++) {
                                histogram_merge(h, taken[k]);
                                histogram_merge(s->total, taken[k]);
                        }
                        histogram_merge(s->by_direction[STREAM_READ], taken[STREAM_READ]);
                        histogram_merge(s->by_direction[STREAM_WRITE], taken[STREAM_WRITE]);
                        s->totals.bytes_read += sc.bytes_read;
                        s->totals.bytes_written += sc.bytes_written;
                        s->totals.ios_read += sc.ios_read;
                        s->totals.ios_written += sc.ios_written;
                        s->totals.ops += sc.ops;
                        c->bytes_read += sc.bytes_read;
                        c->bytes_written += sc.bytes_written;
                        c->ios_read += sc.ios_read;
                        c->ios_written += sc.ios_written;
                        c->ops += sc.ops;
                }
                for (unsigned k = 0; k < _STREAM_KIND_MAX; k++) {
                        histogram_init(taken[k]);
                        s->spare[k] = taken[k];
                }
        }
}

static uint64_t engine_ops_asked(Engine *e);

/* Size-bounded data workloads: the bytes the run reads or writes in all. */
static uint64_t engine_bytes_asked(Engine *e) {
        if (e->spec->workload == WORKLOAD_POSITION)
                return position_plan_total(&e->position_plan);
        return e->spec->size * e->n_streams;
}

static double engine_progress(Engine *e, uint64_t elapsed_ns, uint64_t progress_bytes, uint64_t progress_ops) {
        const JobSpec *spec = e->spec;
        double p;

        if (spec->runtime_ms > 0)
                p = (double) elapsed_ns / ((double) (spec->runtime_ms - MIN(spec->ramp_ms, spec->runtime_ms - 1)) *
                                           (double) NSEC_PER_MSEC);
        else if (engine_ops_asked(e) > 0)
                p = (double) progress_ops / (double) engine_ops_asked(e);
        else
                p = (double) progress_bytes / (double) MAX(engine_bytes_asked(e), UINT64_C(1));
        return p < 0 ? 0 : p > 1 ? 1 : p;
}

static uint64_t engine_ops_asked(Engine *e) {
        switch (e->spec->workload) {
        case WORKLOAD_SEEKS:
                return SEEKS_TOTAL;
        case WORKLOAD_READ_MODIFY_WRITE:
                return e->n_streams * ((e->spec->size + e->spec->block_size - 1) / e->spec->block_size);
        case WORKLOAD_PING:
                return PING_COUNT;
        case WORKLOAD_METADATA:
                return (uint64_t) e->spec->file_count * 6;
        default:
                return 0;
        }
}

static int sample_emit(Engine *e, const Snapshot *prev, const Snapshot *cur, uint64_t t0_ns, Histogram *h,
                       Histogram *total, StreamCounters *totals, ProtoSample *ret) {
        StreamCounters c;
        uint64_t pb, po;
        CpuUsage cpu;
        double util, queue;

        engine_collect(e, h, &c, true, &pb, &po);
        histogram_merge(total, h);
        totals->bytes_read += c.bytes_read;
        totals->bytes_written += c.bytes_written;
        totals->ios_read += c.ios_read;
        totals->ios_written += c.ios_written;
        totals->ops += c.ops;

        snapshot_usage(e, prev, cur, &cpu, &util, &queue);
        ProtoSample s = {
                .t_ms = (cur->t_ns - t0_ns) / NSEC_PER_MSEC,
                .interval_us = (cur->t_ns - prev->t_ns) / NSEC_PER_USEC,
                .bytes_read = c.bytes_read,
                .bytes_written = c.bytes_written,
                .ios_read = c.ios_read,
                .ios_written = c.ios_written,
                .ops = c.ops,
                .lat_mean_ns = (uint64_t) histogram_mean(h),
                .lat_p50_ns = histogram_percentile(h, 50),
                .lat_p99_ns = histogram_percentile(h, 99),
                .lat_max_ns = h->count ? h->max : 0,
                .iowait_pct = cpu.iowait_pct,
                .cpu_user_pct = cpu.user_pct,
                .cpu_sys_pct = cpu.sys_pct,
                .dev_util_pct = util,
                .dev_queue = queue,
                .progress = engine_progress(e, cur->t_ns - t0_ns, pb, po),
        };
        /* Strictly increasing t_ms, also for a last partial interval shorter than a millisecond
         * (the daemon rejects a sample that is not after the previous one). */
        if (e->have_sample && s.t_ms <= e->last_t_ms)
                s.t_ms = e->last_t_ms + 1;
        e->have_sample = true;
        e->last_t_ms = s.t_ms;
        if (ret)
                *ret = s;
        return engine_sample(e, &s);
}

/* The figures of the last samples (steady_state), oldest first. */
typedef struct SteadyWindow {
        double *figures;
        size_t n, size;
} SteadyWindow;

/* Adds sample s; true when the window is full and meets the criterion. */
static bool steady_window_add(const JobSpec *spec, SteadyWindow *w, const ProtoSample *s) {
        double secs = (double) s->interval_us / 1e6;
        double v = steady_state_kind_iops(spec->steady_state) ? (double) (s->ios_read + s->ios_written)
                                                               : (double) (s->bytes_read + s->bytes_written);

        if (w->size == 0)
                return false;
        if (w->n == w->size) {
                memmove(w->figures, w->figures + 1, (w->size - 1) * sizeof(double));
                w->n--;
        }
        w->figures[w->n++] = secs > 0 ? v / secs : NAN;
        return w->n == w->size &&
               steady_state_met(spec->steady_state, (double) spec->steady_state_milli / 1000.0, w->figures, w->n,
                                (double) spec->sample_ms / 1000.0, NULL);
}

/* Notes a reaped stream process. One that ended without counting itself out was killed (or
 * exited some other way than stream_process() does): a failure of the stream and of the run. */
static void stream_reaped(Stream *s, int status) {
        StreamShared *ss = s->shared;

        if (ss->done)
                return;
        if (ss->error == 0) {
                if (WIFSIGNALED(status))
                        (void) stream_fail(s, -EIO, "stream %u (process %d) was killed by signal %d (%s)", s->index,
                                           (int) s->pid, WTERMSIG(status), strsignal(WTERMSIG(status)));
                else
                        (void) stream_fail(s, -EIO, "stream %u (process %d) ended before it finished, status %d",
                                           s->index, (int) s->pid, WIFEXITED(status) ? WEXITSTATUS(status) : -1);
        }
        /* Either way stream_fail() has set abort. */
        stream_done(s);
}

/* Reaps the stream processes that have ended; with block, waits for every one. wait4() gives each
 * one's CPU time, which getrusage(RUSAGE_SELF) no longer sees. */
static void engine_reap(Engine *e, bool block) {
        for (unsigned i = 0; i < e->n_streams; i++) {
                Stream *s = &e->streams[i];
                int status = 0;
                pid_t p;

                if (s->pid <= 0)
                        continue;
                do
                        p = wait4(s->pid, &status, block ? 0 : WNOHANG, &s->usage);
                while (p < 0 && errno == EINTR);
                if (p == 0)
                        continue;
                if (p < 0) {
                        /* ECHILD: SIGCHLD is ignored, so the kernel reaped it; its CPU time is lost. */
                        s->usage = (struct rusage) {};
                        status = 0;
                }
                stream_reaped(s, status);
                s->pid = 0;
        }
}

/* Waits until every stream has ended, the run is stopped or aborted, or deadline_ns
 * (CLOCK_MONOTONIC) passes. True while some stream still runs. */
static bool engine_wait(Engine *e, uint64_t deadline_ns) {
        EngineShared *sh = e->shared;
        struct timespec ts = {
                .tv_sec = (time_t) (deadline_ns / NSEC_PER_SEC),
                .tv_nsec = (long) (deadline_ns % NSEC_PER_SEC),
        };
        bool running;

        for (;;) {
                /* A stream process that died cannot count itself out: find it here. */
                engine_reap(e, false);

                shared_lock(&sh->lock);
                running = sh->running > 0;
                if (!running || engine_aborted(e) || now_nsec(CLOCK_MONOTONIC) >= deadline_ns)
                        break;
                /* Bounded waits so a signal (which cannot touch the condition) or a dead stream
                 * process is seen soon, each ending on the grid the deadline fixes: the sampler
                 * wakes only at points known in advance, which ping's requests keep clear of. */
                struct timespec slice;
                uint64_t now = now_nsec(CLOCK_MONOTONIC);
                uint64_t limit = deadline_ns == UINT64_MAX ? now + ENGINE_WAIT_SLICE_NS
                                                           : wait_slice_end(now, deadline_ns, ENGINE_WAIT_SLICE_NS);
                if (limit < deadline_ns)
                        slice = (struct timespec) { .tv_sec = (time_t) (limit / NSEC_PER_SEC),
                                                    .tv_nsec = (long) (limit % NSEC_PER_SEC) };
                else
                        slice = ts;
                if (pthread_cond_timedwait(&sh->cond, &sh->lock, &slice) == EOWNERDEAD)
                        (void) pthread_mutex_consistent(&sh->lock);
                pthread_mutex_unlock(&sh->lock);
        }
        pthread_mutex_unlock(&sh->lock);
        return running;
}

/* The stream's loop, by workload. */
static void stream_main(Stream *s) {
        switch (s->engine->spec->workload) {
        case WORKLOAD_SEEKS:
                (void) stream_seeks(s);
                break;
        case WORKLOAD_PING:
                (void) stream_ping(s);
                break;
        case WORKLOAD_METADATA:
                (void) metadata_run(s);
                break;
        case WORKLOAD_POSITION:
                (void) stream_position(s);
                break;
        case WORKLOAD_PUTC:
                (void) stream_putc(s);
                break;
        case WORKLOAD_READ_MODIFY_WRITE:
                (void) stream_read_modify_write(s);
                break;
        case WORKLOAD_GETC:
                (void) stream_getc(s);
                break;
        default:
                (void) stream_data(s);
                break;
        }
}

static void stream_await_go(Stream *s) {
        EngineShared *sh = s->engine->shared;

        shared_lock(&sh->lock);
        while (!sh->go)
                if (pthread_cond_wait(&sh->cond, &sh->lock) == EOWNERDEAD)
                        (void) pthread_mutex_consistent(&sh->lock);
        pthread_mutex_unlock(&sh->lock);
}

/* Metadata's and position's stream: a thread of the worker. */
static void *stream_thread(void *userdata) {
        Stream *s = userdata;

        stream_await_go(s);
        stream_main(s);
        stream_done(s);
        return NULL;
}

/* Every other stream: a process of its own, forked with the target open and laid out (it inherits
 * the fds). It reports only through the shared mapping and leaves with _exit(): it never returns
 * into the worker's code, runs no atexit handler, flushes no inherited stdio buffer and never
 * writes to the protocol fd. It keeps the worker's SIGTERM/SIGINT handler (engine_request_stop()
 * reaches every stream through the shared stop flag), and dies with the worker. */
static _Noreturn void stream_process(Stream *s, pid_t worker) {
        if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != worker)
                _exit(EXIT_FAILURE);
        s->in_child = true;
        /* A session of its own, as each of fio's job processes starts. Where the scheduler groups
         * tasks by session (autogroup: sched_autogroup_enabled, tasks in the root cgroup), this is
         * what fio's process model really changes: every job is a group with a CPU share of its
         * own, instead of all of them sharing one against the kernel threads that complete their
         * I/O (fio --thread=1 gets both worse IOPS and tail latency). A terminal's SIGINT now
         * reaches only the worker, whose handler stops the streams through the shared flag. */
        (void) setsid();

        stream_await_go(s);
        stream_main(s);
        stream_mark_cpu(s);     /* a stream that ended before it recorded a measured I/O */
        stream_done(s);
        _exit(EXIT_SUCCESS);
}

static int stream_start(Stream *s, bool as_process) {
        pid_t pid;

        if (!as_process) {
                int r = -pthread_create(&s->thread, NULL, stream_thread, s);
                if (r < 0)
                        return r;
                s->thread_started = true;
                return 0;
        }

        pid_t worker = getpid();
        pid = fork();
        if (pid < 0)
                return -errno;
        if (pid == 0)
                stream_process(s, worker);
        s->pid = pid;
        return 0;
}

static uint64_t timeval_delta_usec(const struct timeval *a, const struct timeval *b) {
        int64_t d = ((int64_t) b->tv_sec - a->tv_sec) * 1000000 + (b->tv_usec - a->tv_usec);
        return d > 0 ? (uint64_t) d : 0;
}

static int engine_measure(Engine *e, EngineResult *res, char **reterr) {
        const JobSpec *spec = e->spec;
        EngineShared *sh = e->shared;
        _cleanup_free_ Histogram *h = NULL, *total = NULL;
        _cleanup_free_ BlockStat *dev_a = NULL, *dev_b = NULL, *dev_0 = NULL;
        _cleanup_free_ double *steady_figures = NULL;
        SteadyWindow steady = {};
        StreamCounters totals = {};
        Snapshot first, prev, cur;
        uint64_t t0, ramp_ns = spec->ramp_ms * NSEC_PER_MSEC, sample_ns, end_ns;
        int r;

        h = malloc(sizeof(Histogram));
        total = malloc(sizeof(Histogram));
        dev_a = calloc(e->n_leaves + e->n_backing + 1, sizeof(BlockStat));
        dev_b = calloc(e->n_leaves + e->n_backing + 1, sizeof(BlockStat));
        dev_0 = calloc(e->n_leaves + e->n_backing + 1, sizeof(BlockStat));
        if (!h || !total || !dev_a || !dev_b || !dev_0)
                return -ENOMEM;
        if (spec->steady_state != STEADY_STATE_NONE && spec->runtime_ms > 0) {
                /* As many samples as the window holds (the daemon judges the frame by the same). */
                steady.size = MAX(spec->steady_state_window_ms / MAX(spec->sample_ms, 1u), 2u);
                steady.figures = steady_figures = calloc(steady.size, sizeof(double));
                if (!steady_figures)
                        return -ENOMEM;
        }
        histogram_init(total);
        first.dev = dev_0;
        prev.dev = dev_a;
        cur.dev = dev_b;

        sample_ns = (uint64_t) (spec->sample_ms ? spec->sample_ms : 1000) * NSEC_PER_MSEC;

        /* Metadata reports its phases and position its offsets through the sink, so they run in
         * this process (see the top). */
        bool as_process = spec->workload != WORKLOAD_METADATA && spec->workload != WORKLOAD_POSITION;
        sh->running = e->n_streams;
        for (unsigned i = 0; i < e->n_streams; i++) {
                r = stream_start(&e->streams[i], as_process);
                if (r < 0) {
                        (void) stream_fail(&e->streams[i], r, "cannot start stream %u as a %s: %s", i,
                                           as_process ? "process" : "thread", strerror(-r));
                        shared_lock(&sh->lock);
                        sh->running -= e->n_streams - i;
                        pthread_mutex_unlock(&sh->lock);
                        break;
                }
        }

        /* A fleet step (docs/fleet.md "Fleet runs") is prepared once its ramp ran (its streams go on
         * until the start), or without a ramp before its streams begin; then it waits for the
         * start benchd sends at the fleet's start time, and measures from there. */
        bool fleet = spec->fleet_uuid != NULL, began = true;
        if (fleet && ramp_ns == 0) {
                r = engine_wait_start(e);
                began = r >= 0;
                if (r >= 0)
                        r = engine_phase(e, "measure");
        } else
                r = engine_phase(e, ramp_ns > 0 ? "ramp" : "measure");
        shared_lock(&sh->lock);
        sh->origin_ns = now_nsec(CLOCK_MONOTONIC) + ramp_ns;
        sh->sample_ns = sample_ns;
        sh->go = true;
        pthread_cond_broadcast(&sh->cond);
        pthread_mutex_unlock(&sh->lock);

        if (ramp_ns > 0 && r >= 0) {
                uint64_t pb, po;
                StreamCounters c;
                engine_wait(e, sh->origin_ns);
                engine_collect(e, h, &c, false, &pb, &po);
                if (fleet) {
                        began = engine_wait_start(e) >= 0;
                        /* What ran while the step waited is ramp too; the samples count from now. */
                        engine_collect(e, h, &c, false, &pb, &po);
                        shared_lock(&sh->lock);
                        sh->origin_ns = now_nsec(CLOCK_MONOTONIC);
                        pthread_mutex_unlock(&sh->lock);
                }
                if (began)
                        (void) engine_phase(e, "measure"); /* a failure aborts the run by itself */
        }

        struct rusage ru0, ru1;
        getrusage(RUSAGE_SELF, &ru0);
        atomic_store(&sh->measuring, true);
        uint64_t started_usec = now_usec(CLOCK_REALTIME);
        snapshot_take(e, &prev);
        t0 = prev.t_ns;
        first.t_ns = prev.t_ns;
        first.cpu = prev.cpu;
        first.cpu_valid = prev.cpu_valid;
        first.dev_valid = prev.dev_valid;
        first.backing_valid = prev.backing_valid;
        memcpy(dev_0, dev_a, (e->n_leaves + e->n_backing) * sizeof(BlockStat));
        /* The ramp is part of runtime_ms (spec_finalize wants ramp < runtime). */
        end_ns = spec->runtime_ms > 0 ? t0 + (spec->runtime_ms - MIN(spec->ramp_ms, spec->runtime_ms)) * NSEC_PER_MSEC
                                      : UINT64_MAX;

        /* The deadlines count from the origin the streams know (ping places its requests between
         * them), a moment before t0. */
        for (uint64_t k = 1;; k++) {
                uint64_t deadline = MIN(sh->origin_ns + k * sample_ns, end_ns);
                /* A fleet step stopped while it waited for its start measured nothing. */
                bool running = began && engine_wait(e, deadline);

                if (running && !engine_aborted(e) && now_nsec(CLOCK_MONOTONIC) < end_ns) {
                        ProtoSample last;

                        snapshot_take(e, &cur);
                        sample_emit(e, &prev, &cur, t0, h, total, &totals, &last);
                        SWAP_SNAPSHOT(prev, cur);
                        if (steady_window_add(spec, &steady, &last) && !res->steady_state) {
                                /* Steady: the measured phase ends here, as if its time were up. */
                                res->steady_state = true;
                                res->steady_state_ms = last.t_ms;
                                (void) engine_steady_state(e, last.t_ms);
                                end_ns = now_nsec(CLOCK_MONOTONIC);
                                continue;
                        }
                        /* Fallen behind (a stalled sink, a starved CPU)? Skip the missed deadlines
                         * rather than firing a burst of tiny intervals. */
                        k = MAX(k, (now_nsec(CLOCK_MONOTONIC) - sh->origin_ns) / sample_ns);
                        continue;
                }

                /* Time is up, the streams finished, or we were asked to stop: let every stream end
                 * its last I/O, then one last (partial) interval. */
                atomic_store(&sh->time_up, true);
                engine_wait(e, UINT64_MAX);
                snapshot_take(e, &cur);
                if (sh->last_done_ns > t0 && sh->last_done_ns < cur.t_ns && spec->runtime_ms == 0)
                        cur.t_ns = sh->last_done_ns;
                if (began && cur.t_ns > prev.t_ns)
                        sample_emit(e, &prev, &cur, t0, h, total, &totals, NULL);
                break;
        }

        /* Every stream process is reaped here, whatever happened. */
        engine_reap(e, true);
        for (unsigned i = 0; i < e->n_streams; i++)
                if (e->streams[i].thread_started) {
                        pthread_join(e->streams[i].thread, NULL);
                        e->streams[i].thread_started = false;
                }
        getrusage(RUSAGE_SELF, &ru1);
        uint64_t user_usec = timeval_delta_usec(&ru0.ru_utime, &ru1.ru_utime);
        uint64_t sys_usec = timeval_delta_usec(&ru0.ru_stime, &ru1.ru_stime);
        /* The stream processes' CPU time since they saw the measured phase begin. */
        for (unsigned i = 0; i < e->n_streams; i++) {
                Stream *s = &e->streams[i];
                if (!s->shared->cpu_marked)
                        continue;
                user_usec += timeval_delta_usec(&s->shared->cpu_mark_user, &s->usage.ru_utime);
                sys_usec += timeval_delta_usec(&s->shared->cpu_mark_sys, &s->usage.ru_stime);
        }

        for (unsigned i = 0; i < e->n_streams; i++)
                if (e->streams[i].shared->error < 0) {
                        if (reterr && e->streams[i].shared->error_message[0])
                                *reterr = strdup(e->streams[i].shared->error_message);
                        return e->streams[i].shared->error;
                }
        if (engine_stopped(e)) {
                if (reterr)
                        *reterr = strdup("stopped by a signal before the end of the run");
                return -ECANCELED;
        }
        if (atomic_load(&sh->abort)) {
                if (reterr)
                        *reterr = strdup("the result channel failed during the run");
                return -EPIPE;
        }

        CpuUsage cpu;
        double util, queue;
        snapshot_usage(e, &first, &cur, &cpu, &util, &queue);

        res->summary = (ProtoResult) {
                .started_usec = started_usec,
                .duration_usec = (cur.t_ns - t0) / NSEC_PER_USEC,
                .bytes_read = totals.bytes_read,
                .bytes_written = totals.bytes_written,
                .ios_read = totals.ios_read,
                .ios_written = totals.ios_written,
                .ops = totals.ops,
                .lat_min_ns = total->count ? total->min : 0,
                .lat_mean_ns = (uint64_t) histogram_mean(total),
                .lat_stddev_ns = (uint64_t) histogram_stddev(total),
                .lat_p50_ns = histogram_percentile(total, 50),
                .lat_p90_ns = histogram_percentile(total, 90),
                .lat_p95_ns = histogram_percentile(total, 95),
                .lat_p99_ns = histogram_percentile(total, 99),
                .lat_p999_ns = histogram_percentile(total, 99.9),
                .lat_p9999_ns = histogram_percentile(total, 99.99),
                .lat_max_ns = total->count ? total->max : 0,
                .iowait_pct = cpu.iowait_pct,
                .cpu_user_pct = cpu.user_pct,
                .cpu_sys_pct = cpu.sys_pct,
                .dev_util_pct = util,
                .process_user_usec = MIN(user_usec, (uint64_t) INT64_MAX),
                .process_sys_usec = MIN(sys_usec, (uint64_t) INT64_MAX),
        };
        /* What the devices' own counters saw of it (served.h). */
        if (first.dev_valid && cur.dev_valid) {
                res->summary.counters |= PROTO_COUNTERS_DEVICE;
                snapshot_bytes(&first, &cur, 0, e->n_leaves, &res->summary.device_bytes_read,
                               &res->summary.device_bytes_written);
        }
        if (res->summary.counters && first.backing_valid && cur.backing_valid) {
                res->summary.counters |= PROTO_COUNTERS_BACKING;
                snapshot_bytes(&first, &cur, e->n_leaves, e->n_leaves + e->n_backing,
                               &res->summary.backing_bytes_read, &res->summary.backing_bytes_written);
        }
        res->summary.served = served_from(&(ServedInput) {
                .workload = spec->workload,
                .bytes_read = totals.bytes_read,
                .bytes_written = totals.bytes_written,
                .device_known = res->summary.counters & PROTO_COUNTERS_DEVICE,
                .device_read = res->summary.device_bytes_read,
                .device_written = res->summary.device_bytes_written,
                .backing_known = res->summary.counters & PROTO_COUNTERS_BACKING,
                .backing_read = res->summary.backing_bytes_read,
                .backing_written = res->summary.backing_bytes_written,
        }, NULL);
        res->histogram = TAKE_PTR(total);
        return 0;
}

/* The I/O engine the options name ("null" or "io_uring", for tests of the machinery), else the
 * one the spec's ioengine names; auto (or "sync" in the options): pread/pwrite at depth 1 and
 * io_uring above. */
static const IoEngineOps *engine_io_ops(const char *name, IoEngineKind kind, uint32_t depth) {
        const IoEngineOps *ops = name ? ioengine_find(name) : NULL;

        if (ops && !streq(ops->name, "sync"))
                return ops;
        if (kind != IOENGINE_AUTO)
                return ioengine_find(ioengine_kind_to_string(kind));
        return ioengine_find(depth > 1 ? "io_uring" : "sync");
}

static int device_string(Engine *e, char **ret) {
        size_t len = 1;
        char *s;

        for (unsigned i = 0; i < e->n_leaves; i++)
                len += strlen(e->leaves[i]) + 1;
        s = calloc(1, len);
        if (!s)
                return -ENOMEM;
        for (unsigned i = 0; i < e->n_leaves; i++) {
                if (i > 0)
                        strcat(s, ",");
                strcat(s, e->leaves[i]);
        }
        *ret = s;
        return 0;
}

static int histogram_new(Histogram **ret) {
        Histogram *h = malloc(sizeof(Histogram));
        if (!h)
                return -ENOMEM;
        histogram_init(h);
        *ret = h;
        return 0;
}

static void engine_free_streams(Engine *e) {
        for (unsigned i = 0; e->streams && i < e->n_streams; i++) {
                Stream *s = &e->streams[i];
                free(s->by_direction[0]);
                free(s->by_direction[1]);
                free(s->total);
                free(s->name);
        }
        free(e->streams);
        e->streams = NULL;
        engine_shared_free(e);
}

int engine_run(const JobSpec *spec, const TargetCheck *tc, const EngineOptions *opts, const EngineSink *sink,
               EngineResult *ret, char **reterr) {
        static const EngineOptions no_opts = {};
        EngineResult res = {};
        Engine e = {
                .spec = spec,
                .tc = tc,
                .opts = opts ? opts : &no_opts,
                .sink = sink,
                .dirfd = -1,
                .target_fd = -1,
                .meta_fd = -1,
        };
        uint64_t seed;
        int r;

        if (!spec->target || spec->workload < 0 || spec->workload >= _WORKLOAD_MAX || spec->block_size == 0) {
                if (reterr)
                        *reterr = strdup("the spec is not finalized: target, workload and block_size are required");
                return -EINVAL;
        }

        /* Buffers are queue_depth × block_size per stream; each bound alone is sane, their
         * product need not be. */
        uint64_t buffer_bytes = (uint64_t) (spec->queue_depth ? spec->queue_depth : 1) * spec->block_size *
                                (spec->jobs ? spec->jobs : 1);
        if (buffer_bytes > ENGINE_BUFFER_BYTES_MAX) {
                if (reterr && asprintf(reterr, "queue_depth %u × block_size %" PRIu64 " × jobs %u needs %" PRIu64
                                       " MiB of buffers, more than the %" PRIu64 " MiB allowed; lower one of them",
                                       spec->queue_depth, spec->block_size, spec->jobs, buffer_bytes >> 20,
                                       ENGINE_BUFFER_BYTES_MAX >> 20) < 0)
                        *reterr = NULL;
                return -E2BIG;
        }

        pthread_mutex_init(&e.sink_lock, NULL);

        e.depth = spec->queue_depth ? spec->queue_depth : 1;
        e.io_ops = engine_io_ops(e.opts->ioengine, spec->ioengine, e.depth);

        /* Metadata is one bonnie++-like process, ping and position one stream of offsets; every other
         * workload runs one stream per job. */
        e.n_streams = spec->workload == WORKLOAD_METADATA || spec->workload == WORKLOAD_PING ||
                      spec->workload == WORKLOAD_POSITION ? 1 : (spec->jobs ? spec->jobs : 1);
        e.streams = calloc(e.n_streams, sizeof(Stream));
        if (!e.streams) {
                r = -ENOMEM;
                goto finish;
        }
        r = engine_shared_new(&e);
        if (r < 0) {
                if (reterr)
                        *reterr = strdup("cannot map the memory the streams share");
                goto finish;
        }
        seed = now_nsec(CLOCK_MONOTONIC) ^ ((uint64_t) getpid() << 32);
        for (unsigned i = 0; i < e.n_streams; i++) {
                Stream *s = &e.streams[i];
                s->engine = &e;
                s->index = i;
                s->fd = -1;
                s->shared = &e.shared->streams[i];
                prng_seed(&s->rng, seed + i * UINT64_C(0x9e3779b97f4a7c15));
                for (unsigned k = 0; k < _STREAM_KIND_MAX; k++) {
                        s->shared->interval[k] = &s->shared->hist[k];
                        s->spare[k] = &s->shared->hist[_STREAM_KIND_MAX + k];
                }
                if (histogram_new(&s->by_direction[0]) < 0 || histogram_new(&s->by_direction[1]) < 0 ||
                    histogram_new(&s->total) < 0) {
                        r = -ENOMEM;
                        goto finish;
                }
        }

        (void) target_resolve_devices(&e);

        r = target_open(&e, reterr);
        if (r < 0)
                goto finish;
        r = target_layout(&e, reterr);
        if (r < 0)
                goto finish;

        r = engine_measure(&e, &res, reterr);
        if (r < 0)
                goto finish;

        r = device_string(&e, &res.summary.device);
        if (r < 0)
                goto finish;

        res.streams = calloc(e.n_streams, sizeof(StreamSummary));
        if (!res.streams) {
                r = -ENOMEM;
                goto finish;
        }
        res.n_streams = e.n_streams;
        res.read_histogram = malloc(sizeof(Histogram));
        res.write_histogram = malloc(sizeof(Histogram));
        if (!res.read_histogram || !res.write_histogram) {
                r = -ENOMEM;
                goto finish;
        }
        histogram_init(res.read_histogram);
        histogram_init(res.write_histogram);
        for (unsigned i = 0; i < e.n_streams; i++) {
                histogram_merge(res.read_histogram, e.streams[i].by_direction[0]);
                histogram_merge(res.write_histogram, e.streams[i].by_direction[1]);
        }
        for (unsigned i = 0; i < e.n_streams; i++) {
                Stream *s = &e.streams[i];
                res.streams[i] = (StreamSummary) {
                        .bytes_read = s->totals.bytes_read,
                        .bytes_written = s->totals.bytes_written,
                        .ios_read = s->totals.ios_read,
                        .ios_written = s->totals.ios_written,
                        .ops = s->totals.ops,
                        .lat_mean_ns = (uint64_t) histogram_mean(s->total),
                        .lat_p50_ns = histogram_percentile(s->total, 50),
                        .lat_p99_ns = histogram_percentile(s->total, 99),
                        .lat_max_ns = s->total->count ? s->total->max : 0,
                };
        }
        res.phases = TAKE_PTR(e.phases);
        res.n_phases = e.n_phases;
        res.positions = TAKE_PTR(e.positions);
        res.n_positions = e.n_positions;
        res.bytes_asked = spec->runtime_ms == 0 && engine_ops_asked(&e) == 0 ? engine_bytes_asked(&e) : 0;

finish:
        if (e.dirfd >= 0 || e.target_fd >= 0)
                engine_phase(&e, "cleanup");
        target_cleanup(&e);
        engine_free_streams(&e);
        free(e.phases);
        free(e.positions);
        strv_free(e.leaves);
        strv_free(e.backing);
        pthread_mutex_destroy(&e.sink_lock);

        if (r < 0) {
                engine_result_clear(&res);
                return r;
        }
        *ret = res;
        return 0;
}

void engine_result_clear(EngineResult *r) {
        if (!r)
                return;
        free(r->summary.device);
        free(r->histogram);
        free(r->read_histogram);
        free(r->write_histogram);
        free(r->streams);
        free(r->phases);
        free(r->positions);
        *r = (EngineResult) {};
}
