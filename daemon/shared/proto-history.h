/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Whether a run as a history keeps it could be true: ImportRuns (store/db-import.c) takes runs
 * another host measured and stored, so anyone's, and holds each to the rules its worker's frames
 * were held to when it was measured (proto-plausible.h). Not a copy of those rules: the run is
 * replayed as its worker sent it (PHASE measure, its SAMPLEs, PHASE_RESULTs, POSITION_RESULTs and
 * STEADY_STATE, its HISTOGRAM, its RESULT) through the same functions, with a tally that knows it
 * replays a history (ProtoTally.history: samples may be fewer and rounded, the histogram missing)
 * and a clock made of the run's own times. What a worker's frames cannot say wrong but a row can
 * is judged here: when the run began (between 1970 and now plus a day), a measured phase of no
 * duration that measured something, a position run without its positions.
 *
 * Pure: no I/O, no clock of its own (now is the caller's); tests/unit/test-proto-history.c.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "proto-plausible.h"
#include "proto.h"
#include "spec.h"

typedef struct ProtoRun {
        uint64_t started_usec;          /* CLOCK_REALTIME in us: the step's start, or with a result the
                                         * measured phase's (the result's started_usec) */
        bool has_result;                /* the summary columns are there: result holds them */
        ProtoResult result;             /* as the worker's RESULT (device unused); a percentage the
                                         * row does not have is -1 (a CPU share is then judged as
                                         * 0), here and in the samples */
        bool steady_state_asked;        /* the steady_state column is not NULL */
        bool steady_state;              /* ... and 1: steady_state_usec says when */
        uint64_t steady_state_usec;
        const ProtoSample *samples;     /* by t_ms, as GetSamples has them; progress unused */
        size_t n_samples;
        const ProtoHistogramEntry *histogram;   /* by bucket */
        size_t n_histogram;
        const ProtoPhaseResult *phases; /* in the order they ran */
        size_t n_phases;
        const ProtoPositionResult *positions;   /* by index */
        size_t n_positions;
} ProtoRun;

/* The limits of a stored run: s is the spec its row records (the keys with a runs column, set and
 * finalized by the caller); the keys a row does not record are taken at the most a spec may ask:
 * metadata's file_count and file_size_max (file_count × file_size_max at most SPEC_SIZE_MAX),
 * position's positions (those the run has), steady_state's window (any number of samples).
 * -EINVAL for a spec without a valid workload or block size. */
int proto_limits_from_history(const JobSpec *s, const ProtoRun *run, ProtoLimits *ret);

/* 0, or -ERANGE with a message in *reterr naming the figure (a column of the run, or which sample,
 * phase or position and its field), its value and what would be right; -ENOMEM. s as for
 * proto_limits_from_history(); now_realtime_usec is CLOCK_REALTIME now. */
int proto_run_plausible(const JobSpec *s, const ProtoRun *run, uint64_t now_realtime_usec, char **reterr);
