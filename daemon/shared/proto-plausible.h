/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Whether what a worker reports could be true: the daemon's second line of defence after the
 * decoders of proto.h. A decoder judges one frame alone (exact lengths, ranges, NaN); the rules
 * here judge a decoded frame against the step's spec (ProtoLimits), the clock (ProtoClock) and
 * everything the worker said before in the same step (ProtoTally), so that nothing a real run could
 * not have produced reaches the database. Where the engine is exact the rule is exact (a RESULT
 * is the sum of the SAMPLEs, the HISTOGRAM holds exactly the measured I/Os and the RESULT's
 * percentiles are what that histogram gives); elsewhere a stated ceiling bounds it.
 *
 * Pure: no I/O and no clock of its own, so each rule is a row of a table in
 * tests/unit/test-proto-plausible.c. Every *_plausible() returns 0 and records the frame in the
 * tally, or -ERANGE with a message in *reterr naming the field, its value and the bound (and
 * leaves the tally alone), or -ENOMEM.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "proto.h"
#include "spec.h"

/* Physical ceilings for one step, whatever the hardware: an order of magnitude above the fastest
 * storage (and page cache) a single machine reaches today. A worker reporting more is lying. */
#define PROTO_BYTES_PER_SEC_MAX  UINT64_C(1000000000000)        /* 1 TB/s */
#define PROTO_IOS_PER_SEC_MAX    UINT64_C(100000000)            /* 100 M I/Os (or operations) a second */
/* Between our clock readings and the worker's (frames wait in the socket; t_ms and durations are
 * truncated to their unit). */
#define PROTO_CLOCK_SLACK_USEC   UINT64_C(1000000)
/* Added to an interval before a rate is judged: the sampler counts I/Os a little after it reads
 * the clock. */
#define PROTO_RATE_SLACK_USEC    UINT64_C(100000)
/* CLOCK_REALTIME may be stepped (NTP) while a step runs: RESULT's started_usec is only held to
 * within a day of the step. */
#define PROTO_REALTIME_SLACK_USEC (UINT64_C(24) * 3600 * 1000000)
/* The largest number a frame may carry: SQLite stores integers as signed 64 bits. */
#define PROTO_VALUE_MAX          ((uint64_t) INT64_MAX)
/* PHASE_RESULT frames accepted per step. */
#define PROTO_PHASE_RESULTS_MAX  16u
/* The engine's fixed operation counts for size-bounded seeks (all streams together) and ping
 * (daemon/worker/README.md);
 * benchd-worker's main.c asserts at build time that the engine uses the same. */
#define PROTO_SEEKS_TOTAL        8192u  /* bonnie++'s 8192 seeks, shared by its seekers */
#define PROTO_PING_COUNT         10u
/* putc and getc time one batch of this many characters, not each call (a call takes nanoseconds,
 * about what reading the clock costs); only a stream's last batch may be shorter. stream.c
 * asserts that the engine uses the same. */
#define PROTO_CHAR_BATCH         8192u

/* How a workload's operations relate to its I/Os. */
typedef enum ProtoOpsRule {
        PROTO_OPS_NONE,         /* data workloads: ops is always 0, the histogram counts I/Os */
        PROTO_OPS_READS,        /* seeks, ping: one operation is one read; the histogram counts them */
        PROTO_OPS_COVER,        /* metadata: each operation moves data at most once (ios <= ops) */
} ProtoOpsRule;

/* What the step's spec allows, computed once by proto_limits_from_spec() (proto-limits.c). */
typedef struct ProtoLimits {
        Workload workload;
        ProtoOpsRule ops_rule;
        bool reads;             /* the measured phase may read */
        bool writes;            /* ... and write */
        bool writes_le_reads;   /* seeks: a write-back follows each of a tenth of the reads */
        uint64_t io_bytes_max;  /* the most one I/O moves: block_size (metadata: file_size_max) */
        uint64_t inflight_ios;  /* the most I/Os in flight at once: streams × queue depth */
        uint64_t bytes_max;     /* read + written in the measured phase; UINT64_MAX: time-bounded */
        uint64_t ios_max;       /* I/Os, likewise */
        uint64_t ops_max;       /* operations (0 for data workloads) */
        uint64_t streams;       /* streams of the step */
        bool per_char;          /* putc, getc: every I/O is one character (no I/O rate ceiling but
                                 * the bytes'), and the histogram holds one latency per batch of
                                 * PROTO_CHAR_BATCH of them, per stream */
        uint64_t phase_ops_max; /* ops per PHASE_RESULT (metadata: file_count); 0: none may come */
        uint32_t positions;     /* POSITION_RESULTs, exactly (position: the spec's positions); 0: none may come */
        uint64_t position_bytes_max; /* bytes per POSITION_RESULT (the spec's size) */
        uint64_t device_bytes;  /* the target block device's size when known (proto_limits_set_device()), else 0 */
        bool steady_state;      /* the spec asked for steady_state: one STEADY_STATE may come */
        uint64_t steady_window_samples; /* the SAMPLEs its window holds (steady_state_window_ms / sample_ms) */
        uint64_t measure_ms;    /* time-based: runtime_ms - ramp_ms; 0: size-bounded */
        char why_bytes[96];     /* how bytes_max follows from the spec, for messages */
} ProtoLimits;

/* -EINVAL for a spec without a valid workload or block size. */
int proto_limits_from_spec(const JobSpec *s, ProtoLimits *ret);
/* The size of the block device the step reads (0: unknown), which bounds where a POSITION_RESULT
 * may lie. */
void proto_limits_set_device(ProtoLimits *l, uint64_t device_bytes);

typedef struct ProtoClock {
        uint64_t elapsed_usec;          /* CLOCK_MONOTONIC since the worker was spawned */
        uint64_t spawn_realtime_usec;   /* CLOCK_REALTIME when it was spawned */
        uint64_t now_realtime_usec;     /* CLOCK_REALTIME now */
} ProtoClock;

/* The engine's stages, in the only order the worker may announce them (PHASE frames). */
typedef enum ProtoStage {
        PROTO_STAGE_NONE = -1,
        PROTO_STAGE_LAYOUT,
        PROTO_STAGE_RAMP,
        PROTO_STAGE_READY,              /* a fleet step only: prepared, waiting for START */
        PROTO_STAGE_MEASURE,
        PROTO_STAGE_CLEANUP,
        _PROTO_STAGE_MAX,
} ProtoStage;

/* Everything a worker said so far in the step that later frames are judged against. */
typedef struct ProtoTally {
        ProtoStage stage;               /* the last PHASE */
        bool fleet;                     /* a fleet step (fleet_uuid): PHASE ready comes before measure,
                                         * and only then */
        uint64_t n_samples;
        uint64_t last_t_ms;             /* of the last SAMPLE, when n_samples > 0 */
        double last_progress;
        uint64_t bytes_read;            /* sums of the SAMPLEs */
        uint64_t bytes_written;
        uint64_t ios_read;
        uint64_t ios_written;
        uint64_t ops;
        uint64_t lat_max_ns;            /* the largest SAMPLE lat_max_ns */
        uint64_t hist_count;            /* sum of the HISTOGRAM counts */
        size_t n_hist;                  /* HISTOGRAM entries */
        uint32_t hist_last_index;       /* when n_hist > 0 */
        unsigned n_phase_results;
        char phase_results[PROTO_PHASE_RESULTS_MAX][PROTO_PHASE_NAME_MAX + 1];
        uint32_t n_positions;           /* POSITION_RESULTs so far */
        uint32_t last_position_index;   /* of the last one, when n_positions > 0 */
        uint64_t last_position_offset;
        uint64_t last_position_end;     /* its offset_bytes + bytes */
        uint64_t position_bytes;        /* their bytes, added up */
        bool steady_state;              /* STEADY_STATE came */
        uint64_t steady_t_ms;           /* ... at this t_ms */
        /* A filesystem step: what FS_SETUP asked for, and whether FS_INFO came. */
        bool fs_setup;
        bool fs_md;             /* the setup's layout is an md one: FS_INFO may report its array */
        bool fs_lvm;            /* an LVM one: FS_INFO may report its logical volume */
        uint32_t fs_stage;
        char fs_type[PROTO_FS_TYPE_MAX + 1];
        char fs_uuid[PROTO_FS_UUID_MAX + 1];    /* MOUNT: the one expected */
        bool fs_info;
        bool fs_release;        /* FS_SETUP md_release or an LVM layout: FS_RELEASED may come once, after FS_INFO */
        bool fs_released;
        /* The frames are a stored run's, replayed by proto_run_plausible() (proto-history.h). A
         * history keeps a sample's CPU shares rounded to 1/100 % and may keep fewer samples than
         * were measured (pruned by SampleRetentionDays=, or not stored when the database fell
         * behind), and no histogram when the database did not take it: so its RESULT is at least
         * the sum of its samples (and at least their largest latency) rather than exactly, is held
         * to its histogram only when it has one, and the shares of a sample add up to 100 within
         * their rounding (PROTO_HISTORY_PCT_SLACK). */
        bool history;
} ProtoTally;

/* Three CPU shares, each rounded to 1/100 % in a stored sample, may add up to this much over 100. */
#define PROTO_HISTORY_PCT_SLACK 0.015

void proto_tally_init(ProtoTally *t);
/* FS_SETUP was sent (a valid one, proto_fs_setup_valid()): FS_INFO must come, once, first. */
void proto_tally_expect_fs(ProtoTally *t, const ProtoFsSetup *setup);

/* FS_INFO: only when FS_SETUP was sent, at most once, before the first PHASE (the worker mounts
 * before the step begins); the fs_type asked for; every number at most INT64_MAX, used and avail
 * at most size, inodes_free at most inodes. At MAKE a UUID, a mkfs_command that runs mkfs.<fs_type>
 * (for an entry of fs-entry.h its mkfs: mkfs.ext3 for ext4-from-ext3), and a mkfs_usec and each
 * command's usec no longer than the worker has run; at MOUNT the UUID expected, no command, no
 * time, no output, no commands. */
int proto_fs_info_plausible(ProtoTally *t, const ProtoFsInfo *i, const ProtoClock *c, char **reterr);
/* FS_RELEASED: only for a setup with md_release or an LVM layout, after its FS_INFO, once. */
int proto_fs_released_plausible(ProtoTally *t, char **reterr);
/* PHASE: one of layout, ramp, measure, cleanup, each after the one before it; in a filesystem
 * step only after FS_INFO. */
int proto_phase_plausible(ProtoTally *t, const char *phase, char **reterr);
int proto_sample_plausible(ProtoTally *t, const ProtoSample *s, const ProtoLimits *l, const ProtoClock *c,
                           char **reterr);
int proto_histogram_plausible(ProtoTally *t, const ProtoHistogram *h, char **reterr);
int proto_phase_result_plausible(ProtoTally *t, const ProtoPhaseResult *p, const ProtoLimits *l,
                                 const ProtoClock *c, char **reterr);
/* POSITION_RESULT: only from a position step, in the measure phase; indexes 0..positions-1 strictly
 * increasing; each offset after the end of the one before (the offsets increase and do not
 * overlap), inside the device when its size is known; at most size bytes, no faster than the
 * ceilings, latencies within the duration. */
int proto_position_result_plausible(ProtoTally *t, const ProtoPositionResult *p, const ProtoLimits *l,
                                    const ProtoClock *c, char **reterr);
/* STEADY_STATE: only when the spec asked for steady_state, at most once, in the measure phase, once
 * the SAMPLEs fill the window (steady_window_samples), at the t_ms of the latest SAMPLE (the
 * criterion is judged as each sample is taken), within the measured phase. */
int proto_steady_state_plausible(ProtoTally *t, const ProtoSteadyState *m, const ProtoLimits *l,
                                 const ProtoClock *c, char **reterr);
/* hist: every HISTOGRAM entry accepted so far (the tally's), in order. The tally is not changed. */
int proto_result_plausible(const ProtoTally *t, const ProtoResult *r, const ProtoHistogramEntry *hist,
                           size_t n_hist, const ProtoLimits *l, const ProtoClock *c, char **reterr);
