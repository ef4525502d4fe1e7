/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The measurement engine: runs one finalized, checked job step against its target and reports
 * through a sink (protocol frames, or the standalone printer). It owns the files it creates and
 * removes exactly those. No formatting here: numbers go out as ProtoSample/ProtoResult.
 *
 * The interface for the worker's front ends (main.c, output.c) and the tests: engine.c's entry
 * points, on top of the engine core (engine-core.h), which declares the sink, the options and
 * engine_request_stop(). Of the engine's own files only engine.c includes it; the parts it
 * orchestrates (stream.c, target.c, metadata.c) know the core alone.
 */
#pragma once

#include <stdint.h>

#include "engine-core.h"
#include "shared/histogram.h"
#include "shared/proto.h"

typedef struct StreamSummary {
        uint64_t bytes_read, bytes_written, ios_read, ios_written, ops;
        uint64_t lat_mean_ns, lat_p50_ns, lat_p99_ns, lat_max_ns;
} StreamSummary;

typedef struct EngineResult {
        ProtoResult summary;            /* device is malloc'd */
        Histogram *histogram;           /* the measured phase, malloc'd */
        Histogram *read_histogram;      /* the same split by direction (data I/O only), malloc'd */
        Histogram *write_histogram;
        StreamSummary *streams;
        unsigned n_streams;
        PhaseSummary *phases;
        unsigned n_phases;
        ProtoPositionResult *positions; /* position: one per offset, in order */
        unsigned n_positions;
        uint64_t bytes_asked;           /* size-bounded: what the spec asked for, 0 when time-based */
        bool steady_state;              /* the spec's steady_state was reached and ended the run ... */
        uint64_t steady_state_ms;       /* ... at this t_ms of the measured phase */
} EngineResult;

/* Runs the step. 0 on success with *ret filled; negative errno and a message in *reterr on failure
 * (-ECANCELED when engine_request_stop() was called). Created files are removed in every case. */
int engine_run(const JobSpec *spec, const TargetCheck *tc, const EngineOptions *opts, const EngineSink *sink,
               EngineResult *ret, char **reterr);
void engine_result_clear(EngineResult *r);
