/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A stored run replayed through the worker's plausibility rules (proto-history.h). The clock the
 * rules judge against is the run's own: "the worker has run" becomes the ramp plus the measured
 * phase (its duration_usec, or for a run without a result what it reports: its last sample, its
 * phases, its positions), the step began at started_usec, and now is the caller's now. The
 * order of the replay is the worker's: the SAMPLEs (the STEADY_STATE after the sample that
 * completed it), the PHASE_RESULTs, the POSITION_RESULTs, the HISTOGRAM, then the RESULT; the
 * rules of one kind of frame do not look at the others but through the tally, so only the
 * STEADY_STATE's place among the samples matters.
 *
 * A message from a rule names the frame the way the worker's protocol does (RESULT is the run's
 * summary columns); the replay puts in front of it which sample, phase or position it was.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "histogram.h"
#include "proto-history.h"
#include "util.h"

#define fail(reterr, ...) reterr_set((reterr), -ERANGE, __VA_ARGS__)

/* CLOCK_REALTIME in us as "2026-12-03 10:00:00 UTC" (any year gmtime_r() reaches). */
static const char *utc_text(uint64_t usec, char buf[static 64]) {
        time_t t = (time_t) (usec / USEC_PER_SEC);
        struct tm tm;

        if (usec / USEC_PER_SEC > (uint64_t) INT64_MAX / 2 || !gmtime_r(&t, &tm) ||
            strftime(buf, 64, "%Y-%m-%d %H:%M:%S UTC", &tm) == 0)
                snprintf(buf, 64, "@%" PRIu64 " s", usec / USEC_PER_SEC);
        return buf;
}

/* Puts where in the run a rule failed in front of its message. Returns r. */
_printf_(3, 4)
static int located(char **reterr, int r, const char *fmt, ...) {
        _cleanup_free_ char *where = NULL;
        char *m = NULL;
        va_list ap;

        if (r != -ERANGE || !reterr || !*reterr)
                return r;
        va_start(ap, fmt);
        if (vasprintf(&where, fmt, ap) < 0)
                where = NULL;
        va_end(ap);
        if (!where || asprintf(&m, "%s: %s", where, *reterr) < 0)
                return -ENOMEM;
        free(*reterr);
        *reterr = m;
        return r;
}

int proto_limits_from_history(const JobSpec *s, const ProtoRun *run, ProtoLimits *ret) {
        JobSpec k = *s; /* shallow: proto_limits_from_spec() reads numbers only */
        ProtoLimits l;
        int r;

        k.file_count = (uint32_t) spec_key_table[SPEC_KEY_FILE_COUNT].max;
        k.file_size_max = spec_key_table[SPEC_KEY_FILE_SIZE_MAX].max;
        k.positions = (uint32_t) MIN(run->n_positions, (size_t) SPEC_POSITIONS_MAX);
        k.steady_state = STEADY_STATE_NONE;
        r = proto_limits_from_spec(&k, &l);
        if (r < 0)
                return r;
        if (s->workload == WORKLOAD_METADATA) {
                /* spec_finalize() holds file_count × file_size_max to SPEC_SIZE_MAX. */
                l.bytes_max = 4 * SPEC_SIZE_MAX;
                snprintf(l.why_bytes, sizeof(l.why_bytes), "files of at most %" PRIu64 " bytes in all, each written "
                         "twice and read twice", SPEC_SIZE_MAX);
        }
        l.steady_state = run->steady_state_asked;
        l.steady_window_samples = 0;
        *ret = l;
        return 0;
}

/* How long "the worker has run" for the rules: the ramp and the measured phase. */
static uint64_t run_elapsed_usec(const JobSpec *s, const ProtoRun *run) {
        uint64_t e = 0, sum = 0;

        if (run->has_result)
                e = run->result.duration_usec;
        else {
                if (run->n_samples > 0)
                        e = u64_mul_sat(run->samples[run->n_samples - 1].t_ms, USEC_PER_MSEC);
                for (size_t i = 0; i < run->n_phases; i++)
                        sum = u64_add_sat(sum, run->phases[i].duration_usec);
                e = MAX(e, sum);
                sum = 0;
                for (size_t i = 0; i < run->n_positions; i++)
                        sum = u64_add_sat(sum, run->positions[i].duration_usec);
                e = MAX(e, sum);
        }
        return u64_add_sat(e, u64_mul_sat(s->ramp_ms, USEC_PER_MSEC));
}

/* What a row can say wrong that no frame of a worker can. */
static int check_row(const JobSpec *s, const ProtoRun *run, uint64_t now, char **reterr) {
        const ProtoResult *res = &run->result;
        uint64_t latest = u64_add_sat(now, PROTO_REALTIME_SLACK_USEC);
        char a[64], b[64];

        if (run->started_usec > latest)
                return fail(reterr, "started_usec=%" PRIu64 " (%s) is not between 1970 and now plus a day (%s); it "
                            "is when the run began, in microseconds since 1970", run->started_usec,
                            utc_text(run->started_usec, a), utc_text(latest, b));
        if (!run->has_result)
                return 0;
        if (res->duration_usec == 0 &&
            (res->bytes_read || res->bytes_written || res->ios_read || res->ios_written || res->ops))
                return fail(reterr, "duration_usec=0, but the run moved %" PRIu64 " bytes in %" PRIu64 " I/Os and %"
                            PRIu64 " operations; a measured phase that did anything lasted at least a microsecond",
                            res->bytes_read + res->bytes_written, res->ios_read + res->ios_written, res->ops);
        if (run->n_samples > 0 &&
            run->samples[run->n_samples - 1].t_ms >
                    u64_add_sat(res->duration_usec, PROTO_CLOCK_SLACK_USEC) / USEC_PER_MSEC)
                return fail(reterr, "sample %zu ends at t_ms=%" PRIu64 ", after the measured phase's duration_usec=%"
                            PRIu64 "; samples are taken within it", run->n_samples,
                            run->samples[run->n_samples - 1].t_ms, res->duration_usec);
        if (s->workload == WORKLOAD_POSITION && run->n_positions < SPEC_POSITIONS_MIN)
                return fail(reterr, "a position run with a result has one position for each of its offsets (at "
                            "least %u) in \"positions\", this one %zu", SPEC_POSITIONS_MIN, run->n_positions);
        if (run->steady_state && run->steady_state_usec > u64_add_sat(res->duration_usec, PROTO_CLOCK_SLACK_USEC))
                return fail(reterr, "steady_state_usec=%" PRIu64 " is after the end of the measured phase "
                            "(duration_usec=%" PRIu64 ")", run->steady_state_usec, res->duration_usec);
        return 0;
}

/* A CPU share the history does not have (-1) is judged as 0: it is stored as unknown. */
static double share(double pct) {
        return pct == -1 ? 0 : pct;
}

int proto_run_plausible(const JobSpec *s, const ProtoRun *run, uint64_t now_realtime_usec, char **reterr) {
        ProtoResult result = run->result;
        ProtoLimits l;
        ProtoTally t;
        ProtoClock c = {
                .elapsed_usec = run_elapsed_usec(s, run),
                .spawn_realtime_usec = run->started_usec,
                .now_realtime_usec = now_realtime_usec,
        };
        bool steady_judged = false;
        int r;

        r = proto_limits_from_history(s, run, &l);
        if (r < 0)
                return reterr_set(reterr, r, "the run's workload or block_size is not one a worker runs");
        r = check_row(s, run, now_realtime_usec, reterr);
        if (r < 0)
                return r;

        proto_tally_init(&t);
        t.history = true;
        r = proto_phase_plausible(&t, "measure", reterr);
        if (r < 0)
                return r;

        for (size_t i = 0; i < run->n_samples; i++) {
                ProtoSample smp = run->samples[i];

                smp.progress = 0; /* not stored */
                smp.iowait_pct = share(smp.iowait_pct);
                smp.cpu_user_pct = share(smp.cpu_user_pct);
                smp.cpu_sys_pct = share(smp.cpu_sys_pct);
                r = proto_sample_plausible(&t, &smp, &l, &c, reterr);
                if (r < 0)
                        return located(reterr, r, "sample %zu of %zu", i + 1, run->n_samples);
                if (run->steady_state && !steady_judged &&
                    u64_mul_sat(smp.t_ms, USEC_PER_MSEC) == run->steady_state_usec) {
                        r = proto_steady_state_plausible(&t, &(ProtoSteadyState) { .t_ms = smp.t_ms }, &l, &c,
                                                         reterr);
                        if (r < 0)
                                return located(reterr, r, "steady_state_usec");
                        steady_judged = true;
                }
        }
        if (run->steady_state && !steady_judged && run->n_samples > 0) {
                /* Not the end of any sample: the rule says why. */
                r = proto_steady_state_plausible(&t, &(ProtoSteadyState) { .t_ms = run->steady_state_usec /
                                                                                   USEC_PER_MSEC },
                                                 &l, &c, reterr);
                return located(reterr, r < 0 ? r : fail(reterr, "steady_state_usec=%" PRIu64 " is not a whole "
                                                        "number of milliseconds", run->steady_state_usec),
                               "steady_state_usec");
        }

        for (size_t i = 0; i < run->n_phases; i++) {
                r = proto_phase_result_plausible(&t, &run->phases[i], &l, &c, reterr);
                if (r < 0)
                        return located(reterr, r, "phase %zu of %zu", i + 1, run->n_phases);
        }
        for (size_t i = 0; i < run->n_positions; i++) {
                r = proto_position_result_plausible(&t, &run->positions[i], &l, &c, reterr);
                if (r < 0)
                        return located(reterr, r, "position %zu of %zu", i + 1, run->n_positions);
        }
        if (run->n_histogram > 0) {
                ProtoHistogram h = {
                        .n_entries = (uint32_t) MIN(run->n_histogram, (size_t) UINT32_MAX),
                        .entries = (ProtoHistogramEntry *) run->histogram,
                };

                if (run->n_histogram > HISTOGRAM_BUCKETS)
                        return fail(reterr, "histogram: %zu buckets, more than the %u there are", run->n_histogram,
                                    HISTOGRAM_BUCKETS);
                r = proto_histogram_plausible(&t, &h, reterr);
                if (r < 0)
                        return located(reterr, r, "histogram");
        }
        if (!run->has_result)
                return 0;
        result.iowait_pct = share(result.iowait_pct);
        result.cpu_user_pct = share(result.cpu_user_pct);
        result.cpu_sys_pct = share(result.cpu_sys_pct);
        return proto_result_plausible(&t, &result, run->histogram, run->n_histogram, &l, &c, reterr);
}
