/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The plausibility rules of proto-plausible.h (the limits a spec sets them: proto-limits.c). Each
 * frame type has one function that runs its rules in a fixed order and stops at the first broken
 * one, so a message names exactly one rule. Where bounds multiply (a rate times an interval, I/Os
 * times a block size) the arithmetic saturates: a hostile number must not wrap around into a small,
 * acceptable one.
 *
 * What the engine guarantees (daemon/worker/engine.c, stream.c, metadata.c), and so what is exact:
 * every I/O or operation is counted once, in one interval, with its latency in that interval's
 * histogram; an I/O counts only when it moved bytes (ios <= bytes <= ios × the largest I/O); the
 * run's totals and its histogram are the merge of the intervals; the RESULT's percentiles are
 * histogram_percentile() of that histogram, its min and max the extremes of the latencies. A seek
 * counts its read as the operation and its occasional write-back as bytes (so ops == ios_read), a
 * ping is one read, a metadata operation is one histogram entry that moved data at most once.
 * putc and getc count every character as an I/O of one byte and time batches of them: their
 * histogram holds one latency per PROTO_CHAR_BATCH characters of a stream (its last batch may be
 * shorter), so between ceil(I/Os / batch) and I/Os / batch + streams latencies.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "histogram.h"
#include "fs-entry.h"
#include "proto-plausible.h"
#include "served.h"
#include "util.h"

#define fail(reterr, ...) reterr_set((reterr), -ERANGE, __VA_ARGS__)

static uint64_t div_round_up(uint64_t a, uint64_t b) {
        return a / b + (a % b != 0);
}

/* The clock bound: how long the worker has run, in usec, with the slack. */
static uint64_t ran_usec(const ProtoClock *c) {
        return u64_add_sat(c->elapsed_usec, PROTO_CLOCK_SLACK_USEC);
}

/* ---- shared rules ---- */

typedef struct Field {
        const char *name;
        uint64_t value;
} Field;

static int check_fields(const char *frame, const Field *f, size_t n, char **reterr) {
        for (size_t i = 0; i < n; i++)
                if (f[i].value > PROTO_VALUE_MAX)
                        return fail(reterr, "%s %s=%" PRIu64 " is above %" PRIu64 ", the largest number the "
                                    "database stores", frame, f[i].name, f[i].value, PROTO_VALUE_MAX);
        return 0;
}

/* Bytes and I/Os of one direction: allowed at all by the workload, and each I/O moved 1 to
 * io_bytes_max bytes. */
static int check_direction(const char *frame, bool write, uint64_t bytes, uint64_t ios, const ProtoLimits *l,
                           char **reterr) {
        const char *dir = write ? "written" : "read";

        if (!(write ? l->writes : l->reads) && (bytes > 0 || ios > 0))
                return fail(reterr, "%s reports %" PRIu64 " bytes %s in %" PRIu64 " I/Os, but a %s step does not "
                            "%s in its measured phase", frame, bytes, dir, ios, workload_to_string(l->workload),
                            write ? "write" : "read");
        if (ios > bytes || bytes > u64_mul_sat(ios, l->io_bytes_max))
                return fail(reterr, "%s bytes_%s=%" PRIu64 " in ios_%s=%" PRIu64 ": every I/O of this step moves "
                            "1 to %" PRIu64 " bytes", frame, dir, bytes, dir, ios, l->io_bytes_max);
        return 0;
}

static int check_ops(const char *frame, uint64_t ops, uint64_t ios_read, uint64_t ios_written, const ProtoLimits *l,
                     char **reterr) {
        switch (l->ops_rule) {
        case PROTO_OPS_NONE:
                if (ops != 0)
                        return fail(reterr, "%s ops=%" PRIu64 " from a %s step, which counts I/Os, not operations",
                                    frame, ops, workload_to_string(l->workload));
                break;
        case PROTO_OPS_READS:
                if (ops != ios_read)
                        return fail(reterr, "%s ops=%" PRIu64 " but ios_read=%" PRIu64 "; each %s operation is "
                                    "exactly one read", frame, ops, ios_read, workload_to_string(l->workload));
                break;
        case PROTO_OPS_COVER:
                if (ios_read + ios_written > ops)
                        return fail(reterr, "%s counts %" PRIu64 " I/Os in only %" PRIu64 " operations; a metadata "
                                    "operation moves data at most once", frame, ios_read + ios_written, ops);
                break;
        }
        return 0;
}

/* Nothing faster than the ceilings, allowing for what was in flight when the interval began. */
static int check_rates(const char *frame, uint64_t bytes, uint64_t ios, uint64_t ops, uint64_t usec,
                       const ProtoLimits *l, char **reterr) {
        uint64_t window = u64_add_sat(usec, PROTO_RATE_SLACK_USEC);
        uint64_t inflight_bytes = u64_mul_sat(l->inflight_ios, l->io_bytes_max);
        uint64_t bytes_max = u64_add_sat(u64_mul_sat(PROTO_BYTES_PER_SEC_MAX / USEC_PER_SEC, window), inflight_bytes);
        uint64_t ios_max = u64_add_sat(u64_mul_sat(PROTO_IOS_PER_SEC_MAX / USEC_PER_SEC, window), l->inflight_ios);

        if (bytes > bytes_max)
                return fail(reterr, "%s moved %" PRIu64 " bytes in %" PRIu64 " us, faster than the ceiling of "
                            "%" PRIu64 " bytes/s a step allows (at most %" PRIu64 " bytes, %" PRIu64 " of them "
                            "for I/Os in flight)", frame, bytes, usec, PROTO_BYTES_PER_SEC_MAX, bytes_max,
                            inflight_bytes);
        /* A character is an I/O of one byte (check_direction() holds ios == bytes): the bytes'
         * ceiling is its ceiling. */
        if (ios > ios_max && !l->per_char)
                return fail(reterr, "%s did %" PRIu64 " I/Os in %" PRIu64 " us, faster than the ceiling of "
                            "%" PRIu64 " I/Os a second a step allows (at most %" PRIu64 ")", frame, ios, usec,
                            PROTO_IOS_PER_SEC_MAX, ios_max);
        if (ops > ios_max)
                return fail(reterr, "%s did %" PRIu64 " operations in %" PRIu64 " us, faster than the ceiling of "
                            "%" PRIu64 " a second a step allows (at most %" PRIu64 ")", frame, ops, usec,
                            PROTO_IOS_PER_SEC_MAX, ios_max);
        return 0;
}

static bool pct_ok(double d) {
        return isfinite(d) && d >= 0.0 && d <= 100.0;
}

/* slack: how far over 100 the three shares may add up (rounding). */
static int check_cpu(const char *frame, double iowait, double user, double sys, double util, double slack,
                     char **reterr) {
        const struct {
                const char *name;
                double value;
        } p[] = {
                { "iowait_pct", iowait },
                { "cpu_user_pct", user },
                { "cpu_sys_pct", sys },
        };

        for (size_t i = 0; i < ELEMENTSOF(p); i++)
                if (!pct_ok(p[i].value))
                        return fail(reterr, "%s %s=%g is not a percentage (0 to 100)", frame, p[i].name, p[i].value);
        /* Shares of the same ticks (sysstat.c); the tolerance is for rounding. */
        if (iowait + user + sys > 100.0 + slack)
                return fail(reterr, "%s cpu_user_pct + cpu_sys_pct + iowait_pct = %g; shares of the CPU time add "
                            "up to at most 100", frame, iowait + user + sys);
        if (!(util == -1.0 || pct_ok(util)))
                return fail(reterr, "%s dev_util_pct=%g is neither a percentage (0 to 100) nor -1 (unknown)", frame,
                            util);
        return 0;
}

/* The latencies of an interval or a run counted in the histogram: I/Os, or operations. */
static uint64_t latency_count(const ProtoLimits *l, uint64_t ios_read, uint64_t ios_written, uint64_t ops) {
        return l->ops_rule == PROTO_OPS_NONE ? ios_read + ios_written : ops;
}

static const char *latency_unit(const ProtoLimits *l) {
        return l->ops_rule == PROTO_OPS_NONE ? "I/Os" : "operations";
}

/* ---- PHASE ---- */

static const char *const stage_names[_PROTO_STAGE_MAX] = {
        [PROTO_STAGE_LAYOUT] = "layout",
        [PROTO_STAGE_RAMP] = "ramp",
        [PROTO_STAGE_READY] = "ready",
        [PROTO_STAGE_MEASURE] = "measure",
        [PROTO_STAGE_CLEANUP] = "cleanup",
};

void proto_tally_init(ProtoTally *t) {
        *t = (ProtoTally) { .stage = PROTO_STAGE_NONE };
}

int proto_phase_plausible(ProtoTally *t, const char *phase, char **reterr) {
        ProtoStage s;

        for (s = 0; s < _PROTO_STAGE_MAX; s++)
                if (phase && streq(phase, stage_names[s]))
                        break;
        if (s >= _PROTO_STAGE_MAX)
                return fail(reterr, "PHASE names none of layout, ramp, ready, measure, cleanup");
        if (s == PROTO_STAGE_READY && !t->fleet)
                return fail(reterr, "PHASE ready from a step that is no fleet step; only a step with fleet_uuid "
                            "waits for its start");
        if (s == PROTO_STAGE_MEASURE && t->fleet && t->stage < PROTO_STAGE_READY)
                return fail(reterr, "PHASE %s of a fleet step before PHASE ready; a fleet step begins its measured "
                            "phase only at the start it is sent", stage_names[s]);
        if (t->fs_setup && !t->fs_info)
                return fail(reterr, "PHASE %s before FS_INFO; a filesystem step reports the filesystem it mounted "
                            "before the step begins", stage_names[s]);
        if (s <= t->stage)
                return fail(reterr, "PHASE %s after %s; the phases come in the order layout, ramp, (ready,) "
                            "measure, cleanup, each at most once", stage_names[s], stage_names[t->stage]);
        t->stage = s;
        return 0;
}

/* ---- FS_INFO ---- */

void proto_tally_expect_fs(ProtoTally *t, const ProtoFsSetup *setup) {
        t->fs_setup = true;
        t->fs_md = proto_fs_layout_builds_md(setup->layout);
        t->fs_lvm = proto_fs_layout_is_lvm(setup->layout);
        t->fs_release = setup->md_release != 0 || t->fs_lvm;
        t->fs_stage = setup->stage;
        snprintf(t->fs_type, sizeof(t->fs_type), "%s", setup->fs_type);
        snprintf(t->fs_uuid, sizeof(t->fs_uuid), "%s", setup->stage == PROTO_FS_STAGE_MOUNT ? setup->expect_uuid : "");
}

int proto_fs_info_plausible(ProtoTally *t, const ProtoFsInfo *i, const ProtoClock *c, char **reterr) {
        const Field fields[] = {
                { "mkfs_usec", i->mkfs_usec },
                { "size_bytes", i->size_bytes },
                { "used_bytes", i->used_bytes },
                { "avail_bytes", i->avail_bytes },
                { "inodes", i->inodes },
                { "inodes_free", i->inodes_free },
                { "md_chunk_bytes", i->md_chunk_bytes },
                { "md_resync_usec", i->md_resync_usec },
                { "lv_extents", i->lv_extents },
                { "lv_bytes", i->lv_bytes },
        };
        const char *mkfs_type = fs_entry_mkfs_type(t->fs_type);
        size_t n = strlen(mkfs_type);
        int r;

        if (!t->fs_setup)
                return fail(reterr, "FS_INFO from a step that was sent no FS_SETUP; only a filesystem step reports "
                            "a filesystem");
        if (t->fs_info)
                return fail(reterr, "FS_INFO sent twice; a filesystem step reports its filesystem once");
        if (t->stage != PROTO_STAGE_NONE)
                return fail(reterr, "FS_INFO after PHASE %s; the filesystem is reported before the step begins",
                            stage_names[t->stage]);
        if (!streq(i->fs_type, t->fs_type))
                return fail(reterr, "FS_INFO fs_type=%s, but FS_SETUP asked for %s", i->fs_type, t->fs_type);
        r = check_fields("FS_INFO", fields, ELEMENTSOF(fields), reterr);
        if (r < 0)
                return r;
        if (i->used_bytes > i->size_bytes || i->avail_bytes > i->size_bytes)
                return fail(reterr, "FS_INFO used_bytes=%" PRIu64 " and avail_bytes=%" PRIu64 " must each be at most "
                            "size_bytes=%" PRIu64, i->used_bytes, i->avail_bytes, i->size_bytes);
        if (i->inodes_free > i->inodes)
                return fail(reterr, "FS_INFO inodes_free=%" PRIu64 " is more than inodes=%" PRIu64, i->inodes_free,
                            i->inodes);
        /* An array only under an md layout; its resync waited for no longer than the worker ran. */
        if (!t->fs_md && (i->md_chunk_bytes || i->md_resync_usec))
                return fail(reterr, "FS_INFO reports an md array, but FS_SETUP asked for no md layout");
        /* A logical volume only under an LVM layout, its extents no more than its bytes. */
        if (!t->fs_lvm && (i->lv_extents || i->lv_bytes))
                return fail(reterr, "FS_INFO reports a logical volume, but FS_SETUP asked for no LVM layout");
        if (!t->fs_md && !t->fs_lvm && i->layout_commands && i->layout_commands[0])
                return fail(reterr, "FS_INFO reports the commands of a layout, but FS_SETUP asked for no md or LVM "
                            "layout");
        if ((i->lv_extents == 0) != (i->lv_bytes == 0) || i->lv_extents > i->lv_bytes)
                return fail(reterr, "FS_INFO lv_extents=%" PRIu64 " and lv_bytes=%" PRIu64 " do not describe a "
                            "logical volume", i->lv_extents, i->lv_bytes);
        if (i->md_resync_usec > ran_usec(c))
                return fail(reterr, "FS_INFO md_resync_usec=%" PRIu64 " is longer than the worker has run (%" PRIu64
                            " us)", i->md_resync_usec, c->elapsed_usec);
        if (t->fs_stage == PROTO_FS_STAGE_MAKE) {
                if (!i->uuid[0])
                        return fail(reterr, "FS_INFO without a UUID for the filesystem mkfs made");
                if (strncmp(i->mkfs_command, "mkfs.", 5) != 0 || strncmp(i->mkfs_command + 5, mkfs_type, n) != 0 ||
                    (i->mkfs_command[5 + n] != ' ' && i->mkfs_command[5 + n] != 0))
                        return fail(reterr, "FS_INFO mkfs_command does not run mkfs.%s", mkfs_type);
                if (i->mkfs_usec > ran_usec(c))
                        return fail(reterr, "FS_INFO mkfs_usec=%" PRIu64 " is longer than the worker has run (%" PRIu64
                                    " us)", i->mkfs_usec, c->elapsed_usec);
                for (uint32_t k = 0; k < i->n_commands; k++)
                        if (i->commands[k].usec > ran_usec(c))
                                return fail(reterr, "FS_INFO command %" PRIu32 " took %" PRIu64 " us, longer than the "
                                            "worker has run (%" PRIu64 " us)", k, i->commands[k].usec,
                                            c->elapsed_usec);
        } else {
                if (!streq(i->uuid, t->fs_uuid))
                        return fail(reterr, "FS_INFO uuid=%s, but FS_SETUP asked to mount the filesystem %s",
                                    i->uuid, t->fs_uuid);
                if (i->mkfs_command[0] || i->mkfs_usec || i->mkfs_output[0] || i->n_commands)
                        return fail(reterr, "FS_INFO reports a mkfs run for a step that only mounts");
        }
        t->fs_info = true;
        return 0;
}

int proto_fs_released_plausible(ProtoTally *t, char **reterr) {
        if (!t->fs_release)
                return fail(reterr, "FS_RELEASED from a step whose FS_SETUP asked for no LVM layout and no release of "
                            "an md array's members");
        if (!t->fs_info)
                return fail(reterr, "FS_RELEASED before FS_INFO; the layout is stopped at the end of the step");
        if (t->fs_released)
                return fail(reterr, "FS_RELEASED sent twice; the layout is stopped once");
        t->fs_released = true;
        return 0;
}

/* ---- STEADY_STATE ---- */

int proto_steady_state_plausible(ProtoTally *t, const ProtoSteadyState *m, const ProtoLimits *l,
                                 const ProtoClock *c, char **reterr) {
        if (!l->steady_state)
                return fail(reterr, "STEADY_STATE from a step whose spec asked for no steady_state");
        if (t->steady_state)
                return fail(reterr, "STEADY_STATE sent twice; a step reaches its steady state once, and ends");
        if (t->stage != PROTO_STAGE_MEASURE)
                return fail(reterr, "STEADY_STATE outside the measure phase; steady state is judged on the "
                            "measured samples");
        if (t->n_samples < l->steady_window_samples)
                return fail(reterr, "STEADY_STATE after %" PRIu64 " SAMPLEs; its window holds %" PRIu64
                            ", so it cannot be judged before that many", t->n_samples, l->steady_window_samples);
        if (m->t_ms != t->last_t_ms)
                return fail(reterr, "STEADY_STATE t_ms=%" PRIu64 " is not the end of the latest SAMPLE (t_ms=%" PRIu64
                            "); it is judged as each sample is taken", m->t_ms, t->last_t_ms);
        if (l->measure_ms > 0 && m->t_ms > u64_add_sat(l->measure_ms, PROTO_CLOCK_SLACK_USEC / USEC_PER_MSEC))
                return fail(reterr, "STEADY_STATE t_ms=%" PRIu64 " is after the end of the measured phase (%" PRIu64
                            " ms)", m->t_ms, l->measure_ms);
        if (m->t_ms > ran_usec(c) / USEC_PER_MSEC)
                return fail(reterr, "STEADY_STATE t_ms=%" PRIu64 " is later than the %" PRIu64 " ms since the worker "
                            "was started", m->t_ms, c->elapsed_usec / USEC_PER_MSEC);
        t->steady_state = true;
        t->steady_t_ms = m->t_ms;
        return 0;
}

/* ---- SAMPLE ---- */

int proto_sample_plausible(ProtoTally *t, const ProtoSample *s, const ProtoLimits *l, const ProtoClock *c,
                           char **reterr) {
        const Field fields[] = {
                { "t_ms", s->t_ms },
                { "interval_us", s->interval_us },
                { "bytes_read", s->bytes_read },
                { "bytes_written", s->bytes_written },
                { "ios_read", s->ios_read },
                { "ios_written", s->ios_written },
                { "ops", s->ops },
                { "lat_mean_ns", s->lat_mean_ns },
                { "lat_p50_ns", s->lat_p50_ns },
                { "lat_p99_ns", s->lat_p99_ns },
                { "lat_max_ns", s->lat_max_ns },
        };
        uint64_t prev_t_ms = t->n_samples > 0 ? t->last_t_ms : 0, count, sum[5];
        int r;

        r = check_fields("SAMPLE", fields, ELEMENTSOF(fields), reterr);
        if (r < 0)
                return r;

        /* When: in the measured phase, in order, no later than now, no more often than the
         * shortest sample interval allows (plus a burst for the last, partial ones). */
        if (t->stage != PROTO_STAGE_MEASURE)
                return fail(reterr, "SAMPLE outside the measure phase; samples describe the measured phase only");
        if (t->n_samples > 0 && s->t_ms <= t->last_t_ms)
                return fail(reterr, "SAMPLE t_ms=%" PRIu64 " not after the previous %" PRIu64, s->t_ms, t->last_t_ms);
        if (s->t_ms > ran_usec(c) / USEC_PER_MSEC)
                return fail(reterr, "SAMPLE t_ms=%" PRIu64 " is later than the %" PRIu64 " ms since the worker was "
                            "started", s->t_ms, c->elapsed_usec / USEC_PER_MSEC);
        if (t->n_samples + 1 > c->elapsed_usec / (SPEC_SAMPLE_MS_MIN * USEC_PER_MSEC) + 16)
                return fail(reterr, "SAMPLE frames faster than one per %u ms (%" PRIu64 " in %" PRIu64 " ms)",
                            SPEC_SAMPLE_MS_MIN, t->n_samples + 1, c->elapsed_usec / USEC_PER_MSEC);
        /* t_ms is truncated to whole ms, interval_us to whole us: the interval is shorter than one
         * ms more than the t_ms difference. */
        if (s->interval_us > (s->t_ms - prev_t_ms + 1) * USEC_PER_MSEC)
                return fail(reterr, "SAMPLE interval_us=%" PRIu64 " is longer than the %" PRIu64 " ms since the "
                            "previous sample", s->interval_us, s->t_ms - prev_t_ms);

        /* What: directions, bytes per I/O, operations, rates. */
        r = check_direction("SAMPLE", false, s->bytes_read, s->ios_read, l, reterr);
        if (r < 0)
                return r;
        r = check_direction("SAMPLE", true, s->bytes_written, s->ios_written, l, reterr);
        if (r < 0)
                return r;
        r = check_ops("SAMPLE", s->ops, s->ios_read, s->ios_written, l, reterr);
        if (r < 0)
                return r;
        r = check_rates("SAMPLE", s->bytes_read + s->bytes_written, s->ios_read + s->ios_written, s->ops,
                        s->interval_us, l, reterr);
        if (r < 0)
                return r;

        /* Latencies: none without I/O, ordered, none longer than the worker has lived. */
        count = latency_count(l, s->ios_read, s->ios_written, s->ops);
        if (count == 0 && (s->lat_mean_ns || s->lat_p50_ns || s->lat_p99_ns || s->lat_max_ns))
                return fail(reterr, "SAMPLE has latencies (mean %" PRIu64 ", max %" PRIu64 " ns) but no %s",
                            s->lat_mean_ns, s->lat_max_ns, latency_unit(l));
        if (s->lat_p50_ns > s->lat_p99_ns || s->lat_p99_ns > s->lat_max_ns || s->lat_mean_ns > s->lat_max_ns)
                return fail(reterr, "SAMPLE latencies out of order: p50 %" PRIu64 ", p99 %" PRIu64 ", mean %" PRIu64
                            ", max %" PRIu64 " ns; p50 <= p99 <= max and mean <= max", s->lat_p50_ns, s->lat_p99_ns,
                            s->lat_mean_ns, s->lat_max_ns);
        if (s->lat_max_ns > u64_mul_sat(ran_usec(c), NSEC_PER_USEC))
                return fail(reterr, "SAMPLE lat_max_ns=%" PRIu64 " is longer than the worker has run (%" PRIu64
                            " ms)", s->lat_max_ns, c->elapsed_usec / USEC_PER_MSEC);

        r = check_cpu("SAMPLE", s->iowait_pct, s->cpu_user_pct, s->cpu_sys_pct, s->dev_util_pct,
                      t->history ? PROTO_HISTORY_PCT_SLACK + 1e-6 : 1e-6, reterr);
        if (r < 0)
                return r;
        /* No upper bound: the engine may shorten the clock of the last, partial interval to when
         * the streams ended, while the device counters run to its end, so a legitimate queue
         * length there has no ceiling. */
        if (!(s->dev_queue == -1.0 || (isfinite(s->dev_queue) && s->dev_queue >= 0)))
                return fail(reterr, "SAMPLE dev_queue=%g is neither -1 (unknown) nor a finite queue length of 0 or "
                            "more", s->dev_queue);
        if (!(isfinite(s->progress) && s->progress >= 0 && s->progress <= 1))
                return fail(reterr, "SAMPLE progress=%g is not between 0 and 1", s->progress);
        if (s->progress < t->last_progress)
                return fail(reterr, "SAMPLE progress=%g is below the previous sample's %g; progress never goes back",
                            s->progress, t->last_progress);

        /* The step so far: what its spec lets it move. Each term is at most INT64_MAX: no wrap. */
        sum[0] = t->bytes_read + s->bytes_read;
        sum[1] = t->bytes_written + s->bytes_written;
        sum[2] = t->ios_read + s->ios_read;
        sum[3] = t->ios_written + s->ios_written;
        sum[4] = t->ops + s->ops;
        for (size_t i = 0; i < ELEMENTSOF(sum); i++)
                if (sum[i] > PROTO_VALUE_MAX)
                        return fail(reterr, "the SAMPLEs' %s add up to more than %" PRIu64 ", the largest number the "
                                    "database stores", fields[2 + i].name, PROTO_VALUE_MAX);
        if (sum[0] + sum[1] > l->bytes_max)
                return fail(reterr, "the SAMPLEs add up to %" PRIu64 " bytes, more than the %" PRIu64 " this step "
                            "can move (%s)", sum[0] + sum[1], l->bytes_max, l->why_bytes);
        if (sum[2] + sum[3] > l->ios_max)
                return fail(reterr, "the SAMPLEs add up to %" PRIu64 " I/Os, more than the %" PRIu64 " this step "
                            "can do", sum[2] + sum[3], l->ios_max);
        if (sum[4] > l->ops_max && l->ops_rule != PROTO_OPS_NONE)
                return fail(reterr, "the SAMPLEs add up to %" PRIu64 " operations, more than the %" PRIu64 " this "
                            "step can do", sum[4], l->ops_max);
        /* And all of it within the t_ms since the measured phase began (time-bounded steps have
         * no other bound). */
        r = check_rates("the SAMPLEs so far", sum[0] + sum[1], sum[2] + sum[3], sum[4], s->t_ms * USEC_PER_MSEC, l,
                        reterr);
        if (r < 0)
                return r;

        t->n_samples++;
        t->last_t_ms = s->t_ms;
        t->last_progress = s->progress;
        t->bytes_read = sum[0];
        t->bytes_written = sum[1];
        t->ios_read = sum[2];
        t->ios_written = sum[3];
        t->ops = sum[4];
        t->lat_max_ns = MAX(t->lat_max_ns, s->lat_max_ns);
        return 0;
}

/* ---- HISTOGRAM ---- */

int proto_histogram_plausible(ProtoTally *t, const ProtoHistogram *h, char **reterr) {
        uint64_t total = t->hist_count;

        if (t->stage < PROTO_STAGE_MEASURE)
                return fail(reterr, "HISTOGRAM before the measure phase");
        for (uint32_t i = 0; i < h->n_entries; i++) {
                const ProtoHistogramEntry *e = &h->entries[i];

                if (e->index >= HISTOGRAM_BUCKETS)
                        return fail(reterr, "HISTOGRAM bucket %" PRIu32 " does not exist (there are %u)", e->index,
                                    HISTOGRAM_BUCKETS);
                if (e->count == 0)
                        return fail(reterr, "HISTOGRAM bucket %" PRIu32 " with count 0; only non-empty buckets are "
                                    "sent", e->index);
                if (e->count > PROTO_VALUE_MAX)
                        return fail(reterr, "HISTOGRAM bucket %" PRIu32 " count=%" PRIu64 " is above %" PRIu64 ", the "
                                    "largest number the database stores", e->index, e->count, PROTO_VALUE_MAX);
                if ((t->n_hist > 0 || i > 0) && e->index <= (i > 0 ? h->entries[i - 1].index : t->hist_last_index))
                        return fail(reterr, "HISTOGRAM bucket %" PRIu32 " comes after bucket %" PRIu32 "; buckets "
                                    "are sent in increasing order, each once", e->index,
                                    i > 0 ? h->entries[i - 1].index : t->hist_last_index);
                total += e->count;      /* both at most INT64_MAX: no wrap */
                if (total > PROTO_VALUE_MAX)
                        return fail(reterr, "the HISTOGRAM counts add up to more than %" PRIu64 ", the largest number "
                                    "the database stores", PROTO_VALUE_MAX);
        }

        if (h->n_entries > 0) {
                t->hist_last_index = h->entries[h->n_entries - 1].index;
                t->n_hist += h->n_entries;
        }
        t->hist_count = total;
        return 0;
}

/* ---- PHASE_RESULT ---- */

int proto_phase_result_plausible(ProtoTally *t, const ProtoPhaseResult *p, const ProtoLimits *l,
                                 const ProtoClock *c, char **reterr) {
        const Field fields[] = {
                { "ops", p->ops },
                { "duration_usec", p->duration_usec },
                { "lat_min_ns", p->lat_min_ns },
                { "lat_mean_ns", p->lat_mean_ns },
                { "lat_p50_ns", p->lat_p50_ns },
                { "lat_p99_ns", p->lat_p99_ns },
                { "lat_max_ns", p->lat_max_ns },
        };
        int r;

        if (l->phase_ops_max == 0)
                return fail(reterr, "PHASE_RESULT %s from a %s step; only metadata steps send them", p->name,
                            workload_to_string(l->workload));
        if (t->stage != PROTO_STAGE_RAMP && t->stage != PROTO_STAGE_MEASURE)
                return fail(reterr, "PHASE_RESULT %s outside the ramp and measure phases", p->name);
        if (t->n_phase_results >= PROTO_PHASE_RESULTS_MAX)
                return fail(reterr, "more than %u PHASE_RESULT frames", PROTO_PHASE_RESULTS_MAX);
        for (unsigned i = 0; i < t->n_phase_results; i++)
                if (streq(t->phase_results[i], p->name))
                        return fail(reterr, "PHASE_RESULT %s sent twice", p->name);

        r = check_fields("PHASE_RESULT", fields, ELEMENTSOF(fields), reterr);
        if (r < 0)
                return r;
        if (p->ops > l->phase_ops_max)
                return fail(reterr, "PHASE_RESULT %s ops=%" PRIu64 " is more than the %" PRIu64 " files (file_count) "
                            "a phase works on", p->name, p->ops, l->phase_ops_max);
        if (p->duration_usec > ran_usec(c))
                return fail(reterr, "PHASE_RESULT %s duration_usec=%" PRIu64 " is longer than the worker has run "
                            "(%" PRIu64 " us)", p->name, p->duration_usec, c->elapsed_usec);
        if (p->ops > u64_add_sat(u64_mul_sat(PROTO_IOS_PER_SEC_MAX / USEC_PER_SEC,
                                     u64_add_sat(p->duration_usec, PROTO_RATE_SLACK_USEC)), 1))
                return fail(reterr, "PHASE_RESULT %s did %" PRIu64 " operations in %" PRIu64 " us, faster than the "
                            "ceiling of %" PRIu64 " a second", p->name, p->ops, p->duration_usec,
                            PROTO_IOS_PER_SEC_MAX);
        if (p->ops == 0 ? (p->lat_min_ns || p->lat_mean_ns || p->lat_p50_ns || p->lat_p99_ns || p->lat_max_ns) :
                          !(p->lat_min_ns <= p->lat_p50_ns && p->lat_p50_ns <= p->lat_p99_ns &&
                            p->lat_p99_ns <= p->lat_max_ns && p->lat_min_ns <= p->lat_mean_ns &&
                            p->lat_mean_ns <= p->lat_max_ns))
                return fail(reterr, "PHASE_RESULT %s latencies out of order (min %" PRIu64 ", mean %" PRIu64 ", p50 %"
                            PRIu64 ", p99 %" PRIu64 ", max %" PRIu64 " ns for %" PRIu64 " ops)", p->name,
                            p->lat_min_ns, p->lat_mean_ns, p->lat_p50_ns, p->lat_p99_ns, p->lat_max_ns, p->ops);
        /* Every operation of the phase was timed inside it. */
        if (p->lat_max_ns > u64_mul_sat(u64_add_sat(p->duration_usec, PROTO_CLOCK_SLACK_USEC), NSEC_PER_USEC))
                return fail(reterr, "PHASE_RESULT %s lat_max_ns=%" PRIu64 " is longer than the phase (%" PRIu64 " us)",
                            p->name, p->lat_max_ns, p->duration_usec);

        memcpy(t->phase_results[t->n_phase_results++], p->name, sizeof(p->name));
        return 0;
}

/* ---- POSITION_RESULT ---- */

int proto_position_result_plausible(ProtoTally *t, const ProtoPositionResult *p, const ProtoLimits *l,
                                    const ProtoClock *c, char **reterr) {
        const Field fields[] = {
                { "offset_bytes", p->offset_bytes },
                { "bytes", p->bytes },
                { "duration_usec", p->duration_usec },
                { "lat_mean_ns", p->lat_mean_ns },
                { "lat_max_ns", p->lat_max_ns },
        };
        uint64_t end, window;
        int r;

        if (l->positions == 0)
                return fail(reterr, "POSITION_RESULT %" PRIu32 " from a %s step; only position steps send them",
                            p->index, workload_to_string(l->workload));
        if (t->stage != PROTO_STAGE_MEASURE)
                return fail(reterr, "POSITION_RESULT %" PRIu32 " outside the measure phase", p->index);
        r = check_fields("POSITION_RESULT", fields, ELEMENTSOF(fields), reterr);
        if (r < 0)
                return r;
        if (p->index >= l->positions)
                return fail(reterr, "POSITION_RESULT index %" PRIu32 " is not below positions=%" PRIu32, p->index,
                            l->positions);
        if (t->n_positions > 0 && p->index <= t->last_position_index)
                return fail(reterr, "POSITION_RESULT index %" PRIu32 " after index %" PRIu32 "; the positions come "
                            "in increasing order, each once", p->index, t->last_position_index);
        if (p->bytes == 0 || p->bytes > l->position_bytes_max)
                return fail(reterr, "POSITION_RESULT %" PRIu32 " bytes=%" PRIu64 "; each position reads 1 to %" PRIu64
                            " bytes (size)", p->index, p->bytes, l->position_bytes_max);
        if (p->bytes % MAX(l->io_bytes_max, UINT64_C(1)) != 0)
                return fail(reterr, "POSITION_RESULT %" PRIu32 " bytes=%" PRIu64 " is not a whole number of blocks "
                            "of %" PRIu64, p->index, p->bytes, l->io_bytes_max);
        /* offset_bytes and bytes are at most INT64_MAX each: no wrap. */
        end = p->offset_bytes + p->bytes;
        if (t->n_positions > 0 && p->offset_bytes < t->last_position_end)
                return fail(reterr, "POSITION_RESULT %" PRIu32 " offset_bytes=%" PRIu64 " is before the end of the "
                            "previous position (%" PRIu64 "); offsets increase and do not overlap", p->index,
                            p->offset_bytes, t->last_position_end);
        if (l->device_bytes > 0 && end > l->device_bytes)
                return fail(reterr, "POSITION_RESULT %" PRIu32 " reads to byte %" PRIu64 ", past the end of the "
                            "%" PRIu64 "-byte device", p->index, end, l->device_bytes);
        if (p->duration_usec > ran_usec(c))
                return fail(reterr, "POSITION_RESULT %" PRIu32 " duration_usec=%" PRIu64 " is longer than the worker "
                            "has run (%" PRIu64 " us)", p->index, p->duration_usec, c->elapsed_usec);
        window = u64_add_sat(p->duration_usec, PROTO_RATE_SLACK_USEC);
        if (p->bytes > u64_add_sat(u64_mul_sat(PROTO_BYTES_PER_SEC_MAX / USEC_PER_SEC, window),
                                   u64_mul_sat(l->inflight_ios, l->io_bytes_max)))
                return fail(reterr, "POSITION_RESULT %" PRIu32 " read %" PRIu64 " bytes in %" PRIu64 " us, faster "
                            "than the ceiling of %" PRIu64 " bytes/s", p->index, p->bytes, p->duration_usec,
                            PROTO_BYTES_PER_SEC_MAX);
        if (p->lat_mean_ns > p->lat_max_ns)
                return fail(reterr, "POSITION_RESULT %" PRIu32 " lat_mean_ns=%" PRIu64 " is above lat_max_ns=%" PRIu64,
                            p->index, p->lat_mean_ns, p->lat_max_ns);
        /* Every read of the position was timed inside it. */
        if (p->lat_max_ns > u64_mul_sat(u64_add_sat(p->duration_usec, PROTO_CLOCK_SLACK_USEC), NSEC_PER_USEC))
                return fail(reterr, "POSITION_RESULT %" PRIu32 " lat_max_ns=%" PRIu64 " is longer than the position "
                            "took (%" PRIu64 " us)", p->index, p->lat_max_ns, p->duration_usec);

        t->n_positions++;
        t->last_position_index = p->index;
        t->last_position_offset = p->offset_bytes;
        t->last_position_end = end;
        t->position_bytes += p->bytes;  /* at most 1000 × 16 TiB: no wrap */
        return 0;
}

/* ---- RESULT ---- */

/* The RESULT's latencies against the histogram that was sent before it: the same count, the
 * extremes in its outermost buckets, the mean within what the buckets allow, the percentiles
 * exactly what histogram_percentile() gives (that is how the engine computed them). */
static int check_result_histogram(const ProtoResult *r, const ProtoHistogramEntry *hist, size_t n_hist,
                                  uint64_t count, char **reterr) {
        static const struct {
                const char *name;
                double p;
                size_t offset;
        } pct[] = {
                { "p50", 50, offsetof(ProtoResult, lat_p50_ns) },
                { "p90", 90, offsetof(ProtoResult, lat_p90_ns) },
                { "p95", 95, offsetof(ProtoResult, lat_p95_ns) },
                { "p99", 99, offsetof(ProtoResult, lat_p99_ns) },
                { "p999", 99.9, offsetof(ProtoResult, lat_p999_ns) },
                { "p9999", 99.99, offsetof(ProtoResult, lat_p9999_ns) },
        };
        _cleanup_free_ Histogram *h = NULL;
        long double lo = 0, hi = 0;
        unsigned first, last;

        /* proto_result_plausible() checked the count; a tally and a list that disagree are the
         * caller's bug, refused all the same. */
        if (n_hist == 0)
                return fail(reterr, "RESULT counts %" PRIu64 " latencies but no HISTOGRAM came before it", count);
        first = hist[0].index;
        last = hist[n_hist - 1].index;
        if (histogram_bucket_index(r->lat_min_ns) != first)
                return fail(reterr, "RESULT lat_min_ns=%" PRIu64 " is not in the lowest non-empty HISTOGRAM bucket, "
                            "%u (%" PRIu64 " to %" PRIu64 " ns)", r->lat_min_ns, first, histogram_bucket_lower(first),
                            histogram_bucket_upper(first));
        if (histogram_bucket_index(r->lat_max_ns) != last)
                return fail(reterr, "RESULT lat_max_ns=%" PRIu64 " is not in the highest non-empty HISTOGRAM bucket, "
                            "%u (%" PRIu64 " to %" PRIu64 " ns)", r->lat_max_ns, last, histogram_bucket_lower(last),
                            histogram_bucket_upper(last));

        h = malloc(sizeof(Histogram));
        if (!h)
                return -ENOMEM;
        histogram_init(h);
        for (size_t i = 0; i < n_hist; i++) {
                if (hist[i].index >= HISTOGRAM_BUCKETS)
                        return fail(reterr, "HISTOGRAM bucket %" PRIu32 " does not exist", hist[i].index);
                h->buckets[hist[i].index] = hist[i].count;
                h->count += hist[i].count;
                lo += (long double) hist[i].count * (long double) histogram_bucket_lower(hist[i].index);
                hi += (long double) hist[i].count * (long double) histogram_bucket_upper(hist[i].index);
        }
        if (h->count != count)
                return fail(reterr, "the HISTOGRAM entries add up to %" PRIu64 " latencies, not %" PRIu64,
                            h->count, count);
        h->min = r->lat_min_ns;
        h->max = r->lat_max_ns;

        lo /= (long double) count;
        hi /= (long double) count;
        if ((long double) r->lat_mean_ns + 1 < lo || (long double) r->lat_mean_ns > hi + 1)
                return fail(reterr, "RESULT lat_mean_ns=%" PRIu64 " is outside what its HISTOGRAM allows (%.0Lf to "
                            "%.0Lf ns)", r->lat_mean_ns, lo, hi);
        for (size_t i = 0; i < ELEMENTSOF(pct); i++) {
                uint64_t v, want = histogram_percentile(h, pct[i].p);

                memcpy(&v, (const uint8_t *) r + pct[i].offset, sizeof(v));
                if (v != want)
                        return fail(reterr, "RESULT lat_%s_ns=%" PRIu64 " but its HISTOGRAM gives %" PRIu64,
                                    pct[i].name, v, want);
        }
        return 0;
}

/* The worker's own CPU time: each stream process and two threads of the worker (the sampler, a
 * metadata or position stream) at most one CPU each over the measured phase and a second of its
 * end. And the served verdict: exactly what served_from() makes of the counters. */
static int check_result_served(const ProtoResult *r, const ProtoLimits *l, char **reterr) {
        uint64_t cpu_max = u64_mul_sat(l->streams + 2, u64_add_sat(r->duration_usec, USEC_PER_SEC));
        ServedInput in = {
                .workload = l->workload,
                .bytes_read = r->bytes_read,
                .bytes_written = r->bytes_written,
                .device_known = r->counters & PROTO_COUNTERS_DEVICE,
                .device_read = r->device_bytes_read,
                .device_written = r->device_bytes_written,
                .backing_known = r->counters & PROTO_COUNTERS_BACKING,
                .backing_read = r->backing_bytes_read,
                .backing_written = r->backing_bytes_written,
        };
        ServedFrom want = served_from(&in, NULL);

        if (u64_add_sat(r->process_user_usec, r->process_sys_usec) > cpu_max)
                return fail(reterr, "RESULT process_user_usec=%" PRIu64 " + process_sys_usec=%" PRIu64 " is more CPU "
                            "time than %" PRIu64 " streams and the worker can use in %" PRIu64 " us", r->process_user_usec,
                            r->process_sys_usec, l->streams, r->duration_usec);
        if (r->served != want)
                return fail(reterr, "RESULT served=%s, but its device counters (read %" PRIu64 ", written %" PRIu64
                            " bytes; backing read %" PRIu64 ", written %" PRIu64 ") make it %s",
                            served_from_to_string(r->served) ?: "not judged", r->device_bytes_read, r->device_bytes_written,
                            r->backing_bytes_read, r->backing_bytes_written, served_from_to_string(want) ?: "not judged");
        return 0;
}

int proto_result_plausible(const ProtoTally *t, const ProtoResult *r, const ProtoHistogramEntry *hist,
                           size_t n_hist, const ProtoLimits *l, const ProtoClock *c, char **reterr) {
        const Field fields[] = {
                { "started_usec", r->started_usec },
                { "duration_usec", r->duration_usec },
                { "bytes_read", r->bytes_read },
                { "bytes_written", r->bytes_written },
                { "ios_read", r->ios_read },
                { "ios_written", r->ios_written },
                { "ops", r->ops },
                { "lat_min_ns", r->lat_min_ns },
                { "lat_mean_ns", r->lat_mean_ns },
                { "lat_stddev_ns", r->lat_stddev_ns },
                { "lat_p50_ns", r->lat_p50_ns },
                { "lat_p90_ns", r->lat_p90_ns },
                { "lat_p95_ns", r->lat_p95_ns },
                { "lat_p99_ns", r->lat_p99_ns },
                { "lat_p999_ns", r->lat_p999_ns },
                { "lat_p9999_ns", r->lat_p9999_ns },
                { "lat_max_ns", r->lat_max_ns },
        };
        const struct {
                const char *name;
                uint64_t result, samples;
        } sums[] = {
                { "bytes_read", r->bytes_read, t->bytes_read },
                { "bytes_written", r->bytes_written, t->bytes_written },
                { "ios_read", r->ios_read, t->ios_read },
                { "ios_written", r->ios_written, t->ios_written },
                { "ops", r->ops, t->ops },
        };
        uint64_t count;
        int k;

        k = check_fields("RESULT", fields, ELEMENTSOF(fields), reterr);
        if (k < 0)
                return k;
        if (t->stage < PROTO_STAGE_MEASURE)
                return fail(reterr, "RESULT before the measure phase");

        /* When. */
        if (r->duration_usec > ran_usec(c))
                return fail(reterr, "RESULT duration_usec=%" PRIu64 " is longer than the worker has run (%" PRIu64
                            " us)", r->duration_usec, c->elapsed_usec);
        if (u64_add_sat(r->started_usec, PROTO_REALTIME_SLACK_USEC) < c->spawn_realtime_usec ||
            r->started_usec + r->duration_usec > u64_add_sat(c->now_realtime_usec, PROTO_REALTIME_SLACK_USEC))
                return fail(reterr, "RESULT started_usec=%" PRIu64 " (for %" PRIu64 " us) is not within a day of the "
                            "step, which began at %" PRIu64 " (CLOCK_REALTIME in us) and it is now %" PRIu64,
                            r->started_usec, r->duration_usec, c->spawn_realtime_usec, c->now_realtime_usec);
        if (t->n_samples > 0 && t->last_t_ms > u64_add_sat(r->duration_usec, PROTO_CLOCK_SLACK_USEC) / USEC_PER_MSEC)
                return fail(reterr, "RESULT duration_usec=%" PRIu64 " is shorter than its samples, the last of which "
                            "ends at t_ms=%" PRIu64, r->duration_usec, t->last_t_ms);

        /* What: exactly the sum of the samples, and everything a sample must be. */
        for (size_t i = 0; i < ELEMENTSOF(sums); i++) {
                if (t->history && sums[i].result < sums[i].samples)
                        return fail(reterr, "RESULT %s=%" PRIu64 " but the samples add up to %" PRIu64 ", more; the "
                                    "result is the sum of all of its samples, of which a history may have lost some",
                                    sums[i].name, sums[i].result, sums[i].samples);
                if (!t->history && sums[i].result != sums[i].samples)
                        return fail(reterr, "RESULT %s=%" PRIu64 " but the SAMPLEs add up to %" PRIu64 "; the result "
                                    "is the sum of its samples", sums[i].name, sums[i].result, sums[i].samples);
        }
        k = check_direction("RESULT", false, r->bytes_read, r->ios_read, l, reterr);
        if (k < 0)
                return k;
        k = check_direction("RESULT", true, r->bytes_written, r->ios_written, l, reterr);
        if (k < 0)
                return k;
        k = check_ops("RESULT", r->ops, r->ios_read, r->ios_written, l, reterr);
        if (k < 0)
                return k;
        if (l->writes_le_reads && r->ios_written > r->ios_read)
                return fail(reterr, "RESULT ios_written=%" PRIu64 " is more than ios_read=%" PRIu64 "; seeks write "
                            "back only blocks they have read", r->ios_written, r->ios_read);
        if (r->bytes_read + r->bytes_written > l->bytes_max)
                return fail(reterr, "RESULT moved %" PRIu64 " bytes, more than the %" PRIu64 " this step can move (%s)",
                            r->bytes_read + r->bytes_written, l->bytes_max, l->why_bytes);
        /* position: the run is its positions, every one of them, and nothing else. */
        if (l->positions > 0 && t->n_positions != l->positions)
                return fail(reterr, "RESULT after %" PRIu32 " POSITION_RESULTs; a position step sends one for each "
                            "of its %" PRIu32 " positions first", t->n_positions, l->positions);
        if (l->positions > 0 && r->bytes_read != t->position_bytes)
                return fail(reterr, "RESULT bytes_read=%" PRIu64 " but the POSITION_RESULTs add up to %" PRIu64 "; "
                            "the result is the total over the positions", r->bytes_read, t->position_bytes);
        k = check_rates("RESULT", r->bytes_read + r->bytes_written, r->ios_read + r->ios_written, r->ops,
                        r->duration_usec, l, reterr);
        if (k < 0)
                return k;
        k = check_cpu("RESULT", r->iowait_pct, r->cpu_user_pct, r->cpu_sys_pct, r->dev_util_pct, 1e-6, reterr);
        if (k < 0)
                return k;
        k = check_result_served(r, l, reterr);
        if (k < 0)
                return k;

        /* Latencies. */
        count = latency_count(l, r->ios_read, r->ios_written, r->ops);
        if (t->history && t->n_hist == 0) {
                /* A stored run without its histogram: only the rules below that do not need it. */
                if (l->per_char)
                        count = div_round_up(count, PROTO_CHAR_BATCH);
        } else if (l->per_char) {
                uint64_t lo = div_round_up(count, PROTO_CHAR_BATCH);
                uint64_t hi = MIN(count, u64_add_sat(count / PROTO_CHAR_BATCH, l->streams));

                if (t->hist_count < lo || t->hist_count > hi)
                        return fail(reterr, "the HISTOGRAM holds %" PRIu64 " latencies, but RESULT counts %" PRIu64
                                    " characters in %" PRIu64 " streams: one latency per %u of a stream's characters "
                                    "(the last batch may be shorter) makes %" PRIu64 " to %" PRIu64, t->hist_count,
                                    count, l->streams, PROTO_CHAR_BATCH, lo, hi);
                count = t->hist_count;
        } else if (t->hist_count != count)
                return fail(reterr, "the HISTOGRAM holds %" PRIu64 " latencies, but RESULT counts %" PRIu64 " %s; it "
                            "holds exactly one for each", t->hist_count, count, latency_unit(l));
        if (count == 0) {
                if (r->lat_min_ns || r->lat_mean_ns || r->lat_stddev_ns || r->lat_p50_ns || r->lat_p90_ns ||
                    r->lat_p95_ns || r->lat_p99_ns || r->lat_p999_ns || r->lat_p9999_ns || r->lat_max_ns)
                        return fail(reterr, "RESULT has latencies (min %" PRIu64 ", max %" PRIu64 " ns) but no %s",
                                    r->lat_min_ns, r->lat_max_ns, latency_unit(l));
                return 0;
        }
        if (!(r->lat_min_ns <= r->lat_p50_ns && r->lat_p50_ns <= r->lat_p90_ns && r->lat_p90_ns <= r->lat_p95_ns &&
              r->lat_p95_ns <= r->lat_p99_ns && r->lat_p99_ns <= r->lat_p999_ns &&
              r->lat_p999_ns <= r->lat_p9999_ns && r->lat_p9999_ns <= r->lat_max_ns))
                return fail(reterr, "RESULT latencies out of order: min <= p50 <= p90 <= p95 <= p99 <= p99.9 <= "
                            "p99.99 <= max is required");
        /* The mean may be 1 ns below the minimum: it is truncated from a floating-point quotient. */
        if (r->lat_mean_ns > r->lat_max_ns || r->lat_mean_ns + 1 < r->lat_min_ns)
                return fail(reterr, "RESULT lat_mean_ns=%" PRIu64 " is outside lat_min_ns=%" PRIu64 " to lat_max_ns=%"
                            PRIu64, r->lat_mean_ns, r->lat_min_ns, r->lat_max_ns);
        /* A population's standard deviation is at most half its range; the slack is for the
         * rounding of the sum-of-squares formula. */
        if (r->lat_stddev_ns > r->lat_max_ns - r->lat_min_ns + (r->lat_max_ns >> 20) + 1)
                return fail(reterr, "RESULT lat_stddev_ns=%" PRIu64 " is larger than latencies from %" PRIu64 " to %"
                            PRIu64 " ns can spread", r->lat_stddev_ns, r->lat_min_ns, r->lat_max_ns);
        if (r->lat_max_ns > u64_mul_sat(ran_usec(c), NSEC_PER_USEC))
                return fail(reterr, "RESULT lat_max_ns=%" PRIu64 " is longer than the worker has run (%" PRIu64 " ms)",
                            r->lat_max_ns, c->elapsed_usec / USEC_PER_MSEC);
        if (t->n_samples > 0 && (t->history ? r->lat_max_ns < t->lat_max_ns : r->lat_max_ns != t->lat_max_ns))
                return fail(reterr, "RESULT lat_max_ns=%" PRIu64 " but the largest SAMPLE lat_max_ns is %" PRIu64 "; "
                            "the run's maximum is its samples' maximum", r->lat_max_ns, t->lat_max_ns);
        if (t->history && t->n_hist == 0)
                return 0;
        return check_result_histogram(r, hist, n_hist, count, reterr);
}
