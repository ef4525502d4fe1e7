/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The limits a step's spec sets the plausibility rules of its worker's frames
 * (proto_limits_from_spec(), proto-plausible.h): what the spec lets the worker move and report. The
 * arithmetic saturates, as the rules' does.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>

#include "proto-plausible.h"
#include "util.h"

static uint64_t div_round_up(uint64_t a, uint64_t b) {
        return a / b + (a % b != 0);
}

int proto_limits_from_spec(const JobSpec *s, ProtoLimits *ret) {
        bool timed = s->runtime_ms > 0;
        uint64_t streams, depth = MAX(s->queue_depth, 1u);
        ProtoLimits l = {
                .workload = s->workload,
                .io_bytes_max = s->block_size,
                .bytes_max = UINT64_MAX,
                .ios_max = UINT64_MAX,
        };

        if (s->workload < 0 || s->workload >= _WORKLOAD_MAX || s->block_size == 0)
                return -EINVAL;
        streams = s->workload == WORKLOAD_METADATA || s->workload == WORKLOAD_PING ||
                  s->workload == WORKLOAD_POSITION ? 1 : MAX(s->jobs, 1u);
        l.streams = streams;
        snprintf(l.why_bytes, sizeof(l.why_bytes), "it is time-bounded: only the rate ceiling applies");

        switch (s->workload) {
        case WORKLOAD_READ:
        case WORKLOAD_RANDREAD:
        case WORKLOAD_REREAD:
        case WORKLOAD_BACKWARD_READ:
        case WORKLOAD_STRIDE_READ:
                l.reads = true;
                break;
        case WORKLOAD_WRITE:
        case WORKLOAD_RANDWRITE:
        case WORKLOAD_REWRITE:
                l.writes = true;
                break;
        case WORKLOAD_PUTC:
                l.writes = l.per_char = true;
                break;
        case WORKLOAD_GETC:
                l.reads = l.per_char = true;
                break;
        case WORKLOAD_RANDRW:
                l.reads = l.writes = true;
                break;
        case WORKLOAD_SEEKS:
        case WORKLOAD_READ_MODIFY_WRITE:
                l.reads = l.writes = l.writes_le_reads = true;
                l.ops_rule = PROTO_OPS_READS;
                break;
        case WORKLOAD_PING:
                l.reads = true;
                l.ops_rule = PROTO_OPS_READS;
                break;
        case WORKLOAD_POSITION:
                l.reads = true;
                break;
        case WORKLOAD_METADATA:
                l.reads = l.writes = true;
                l.ops_rule = PROTO_OPS_COVER;
                break;
        default:
                return -EINVAL;
        }

        switch (s->workload) {
        case WORKLOAD_SEEKS:
                /* A read and its write-back. */
                l.inflight_ios = streams * 2;
                l.ops_max = UINT64_MAX;
                if (!timed) {
                        l.ops_max = PROTO_SEEKS_TOTAL;
                        l.ios_max = 2 * l.ops_max;
                        l.bytes_max = l.ios_max * s->block_size;
                        snprintf(l.why_bytes, sizeof(l.why_bytes), "%u seeks shared by %" PRIu64 " streams, "
                                 "each a block read and at most one written back", PROTO_SEEKS_TOTAL, streams);
                }
                break;
        case WORKLOAD_READ_MODIFY_WRITE:
                /* Each block of size read and written back: one operation, two I/Os. */
                l.inflight_ios = streams * 2;
                l.ops_max = UINT64_MAX;
                if (!timed) {
                        l.ops_max = streams * div_round_up(s->size, s->block_size);
                        l.ios_max = 2 * l.ops_max;
                        l.bytes_max = l.ios_max * s->block_size;
                        snprintf(l.why_bytes, sizeof(l.why_bytes), "%" PRIu64 " streams of size %" PRIu64 " rounded "
                                 "up to whole blocks of %" PRIu64 ", each block read and written back", streams,
                                 s->size, s->block_size);
                }
                break;
        case WORKLOAD_PING:
                l.inflight_ios = 1;
                l.ops_max = UINT64_MAX;
                if (!timed) {
                        l.ops_max = l.ios_max = PROTO_PING_COUNT;
                        l.bytes_max = l.ios_max * s->block_size;
                        snprintf(l.why_bytes, sizeof(l.why_bytes), "%u requests of one block", PROTO_PING_COUNT);
                }
                break;
        case WORKLOAD_METADATA:
                /* Six phases over file_count files, whatever the runtime; the two create phases
                 * write each file once, the two stat phases read it once. spec_finalize() bounds
                 * file_count × file_size_max by SPEC_SIZE_MAX, so nothing here overflows. */
                l.inflight_ios = 1;
                l.io_bytes_max = s->file_size_max;
                l.phase_ops_max = s->file_count;
                l.ops_max = 6 * (uint64_t) s->file_count;
                l.ios_max = 4 * (uint64_t) s->file_count;
                l.bytes_max = l.ios_max * s->file_size_max;
                snprintf(l.why_bytes, sizeof(l.why_bytes), "%" PRIu32 " files of at most %" PRIu64 " bytes, "
                         "each written twice and read twice", s->file_count, s->file_size_max);
                break;
        case WORKLOAD_POSITION:
                /* positions offsets of at most size bytes each, in whole blocks; spec_finalize()
                 * bounds positions (1000) and size (16 TiB): no overflow. */
                l.inflight_ios = depth;
                l.positions = s->positions;
                l.position_bytes_max = s->size;
                l.ios_max = (uint64_t) s->positions * div_round_up(s->size, s->block_size);
                l.bytes_max = l.ios_max * s->block_size;
                snprintf(l.why_bytes, sizeof(l.why_bytes), "%" PRIu32 " positions of size %" PRIu64 " rounded up "
                         "to whole blocks of %" PRIu64, s->positions, s->size, s->block_size);
                break;
        default:
                /* spec_finalize() bounds jobs, queue_depth and size: no overflow. */
                l.inflight_ios = streams * depth;
                if (!timed) {
                        l.ios_max = streams * div_round_up(s->size, s->block_size);
                        l.bytes_max = l.ios_max * s->block_size;
                        snprintf(l.why_bytes, sizeof(l.why_bytes), "%" PRIu64 " streams of size %" PRIu64
                                 " rounded up to whole blocks of %" PRIu64, streams, s->size, s->block_size);
                }
                break;
        }

        if (timed)
                l.measure_ms = s->runtime_ms - MIN(s->ramp_ms, s->runtime_ms);
        if (s->steady_state != STEADY_STATE_NONE) {
                l.steady_state = true;
                l.steady_window_samples = s->steady_state_window_ms / MAX(s->sample_ms, 1u);
        }

        *ret = l;
        return 0;
}

void proto_limits_set_device(ProtoLimits *l, uint64_t device_bytes) {
        l->device_bytes = device_bytes;
}
