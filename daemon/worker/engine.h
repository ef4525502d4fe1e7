/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The measurement engine: runs one finalized, checked job step against its target and reports
 * through a sink (protocol frames, or the standalone printer). It owns the files it creates and
 * removes exactly those. No formatting here: numbers go out as ProtoSample/ProtoResult.
 */
#pragma once

#include <stdint.h>

#include "shared/histogram.h"
#include "shared/proto.h"
#include "shared/spec-check.h"
#include "shared/spec.h"

typedef struct PhaseSummary PhaseSummary;

/* Called in the worker process only, from the engine's sampling thread or metadata's stream thread
 * (the other workloads' streams are processes and report through shared memory), one call at a
 * time. A negative return stops the run (the peer went away). phase_result (may be NULL): one of
 * the workload's own phases has ended (metadata), sent as it ends so a run that fails later keeps
 * it. */
typedef struct EngineSink {
        void *userdata;
        int (*phase)(void *userdata, const char *name);
        int (*sample)(void *userdata, const ProtoSample *s);
        int (*log)(void *userdata, int priority, const char *text);
        int (*phase_result)(void *userdata, const PhaseSummary *p);
} EngineSink;

typedef struct StreamSummary {
        uint64_t bytes_read, bytes_written, ios_read, ios_written, ops;
        uint64_t lat_mean_ns, lat_p50_ns, lat_p99_ns, lat_max_ns;
} StreamSummary;

/* Metadata workloads report one of these per phase (create-seq, stat-seq, ...); in protocol mode
 * each becomes a PHASE_RESULT frame, so the name obeys proto_phase_name_valid(). */
typedef struct PhaseSummary {
        char name[PROTO_PHASE_NAME_MAX + 1];
        uint64_t ops;
        uint64_t duration_usec;
        uint64_t lat_min_ns, lat_mean_ns, lat_p50_ns, lat_p99_ns, lat_max_ns;
} PhaseSummary;

typedef struct EngineResult {
        ProtoResult summary;            /* device is malloc'd */
        Histogram *histogram;           /* the measured phase, malloc'd */
        Histogram *read_histogram;      /* the same split by direction (data I/O only), malloc'd */
        Histogram *write_histogram;
        StreamSummary *streams;
        unsigned n_streams;
        PhaseSummary *phases;
        unsigned n_phases;
        uint64_t bytes_asked;           /* size-bounded: what the spec asked for, 0 when time-based */
        uint64_t process_user_usec;     /* the worker's and its stream processes' CPU time in the
                                         * measured phase */
        uint64_t process_sys_usec;
} EngineResult;

typedef struct EngineOptions {
        const char *file_prefix;        /* ".benchd-<job>-<step>-": files get <prefix><stream> */
        const char *sysfs_root;         /* NULL: /sys */
        const char *proc_stat;          /* NULL: /proc/stat */
        const char *ioengine;           /* "null" or "io_uring" (ioengine_find()); NULL or "sync":
                                         * sync at depth 1, io_uring above */
        bool scratch;                   /* the daemon found the block device marked scratch: its
                                         * signatures may be overwritten (never a holder or mount) */
} EngineOptions;

/* Runs the step. 0 on success with *ret filled; negative errno and a message in *reterr on failure
 * (-ECANCELED when engine_request_stop() was called). Created files are removed in every case. */
int engine_run(const JobSpec *spec, const TargetCheck *tc, const EngineOptions *opts, const EngineSink *sink,
               EngineResult *ret, char **reterr);
void engine_result_clear(EngineResult *r);

/* Async-signal-safe: asks a running engine to stop within one I/O and clean up. */
void engine_request_stop(void);
