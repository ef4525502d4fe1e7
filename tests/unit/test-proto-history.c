/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Tests of a stored run replayed through the worker's rules (proto-history.c): one plausible run
 * (a randread of two 4 KiB reads in two samples, its histogram, its result) and a table of rows,
 * each changing one thing: what a real history holds (samples pruned or lost, no histogram, CPU
 * shares rounded, no result) must pass, what no worker could have reported must be refused with
 * the message naming it. And the limits of a stored run: the keys a row does not record taken at
 * the most a spec may ask.
 */
#include <check.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "check-util.h"
#include "shared/histogram.h"
#include "shared/proto-history.h"
#include "shared/spec.h"
#include "shared/util.h"

#define STARTED UINT64_C(1700000000000000)
#define NOW (STARTED + UINT64_C(86400) * USEC_PER_SEC)

static void spec_of(const char *text, JobSpec *s) {
        _cleanup_free_ char *copy = strdup(text), *err = NULL;
        char *save = NULL;

        spec_init(s);
        ck_assert_int_eq(spec_set_assignment(s, "target=/tmp", &err), 0);
        for (char *line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
                ck_assert_msg(spec_set_assignment(s, line, &err) == 0, "%s: %s", line, strna(err));
        ck_assert_msg(spec_finalize(s, &err) == 0, "%s", strna(err));
}

/* The plausible run, in storage the caller owns. */
typedef struct Fixture {
        JobSpec spec;
        ProtoRun run;
        ProtoSample samples[2];
        ProtoHistogramEntry histogram[1];
        ProtoPositionResult positions[2];
} Fixture;

static void fixture_init(Fixture *f) {
        const ProtoSample s = {
                .interval_us = 1000000, .bytes_read = 4096, .ios_read = 1, .lat_mean_ns = 100000,
                .lat_p50_ns = 100000, .lat_p99_ns = 100000, .lat_max_ns = 100000, .iowait_pct = 2.5,
                .cpu_user_pct = 1.5, .cpu_sys_pct = 3, .dev_util_pct = 10, .dev_queue = 0.4,
        };

        *f = (Fixture) {};
        spec_of("workload=randread\nsize=1M\nblock_size=4K\nruntime_ms=2000\nqueue_depth=4", &f->spec);
        f->samples[0] = f->samples[1] = s;
        f->samples[0].t_ms = 1000;
        f->samples[1].t_ms = 2000;
        f->histogram[0] = (ProtoHistogramEntry) { .index = histogram_bucket_index(100000), .count = 2 };
        f->run = (ProtoRun) {
                .started_usec = STARTED,
                .has_result = true,
                .result = {
                        .started_usec = STARTED, .duration_usec = 2000000, .bytes_read = 8192, .ios_read = 2,
                        .lat_min_ns = 100000, .lat_mean_ns = 100000, .lat_p50_ns = 100000, .lat_p90_ns = 100000,
                        .lat_p95_ns = 100000, .lat_p99_ns = 100000, .lat_p999_ns = 100000, .lat_p9999_ns = 100000,
                        .lat_max_ns = 100000, .iowait_pct = 2.5, .cpu_user_pct = 1.5, .cpu_sys_pct = 3,
                        .dev_util_pct = 10,
                },
                .samples = f->samples,
                .n_samples = 2,
                .histogram = f->histogram,
                .n_histogram = 1,
        };
}

static void no_samples(Fixture *f) { f->run.n_samples = 0; }
static void one_sample_lost(Fixture *f) { f->run.n_samples = 1; }
static void no_histogram(Fixture *f) { f->run.n_histogram = 0; }
static void nothing_kept(Fixture *f) { f->run.n_samples = 0; f->run.n_histogram = 0; }
static void shares_rounded(Fixture *f) {
        f->samples[0].iowait_pct = 33.34, f->samples[0].cpu_user_pct = 33.34, f->samples[0].cpu_sys_pct = 33.33;
}
static void shares_over(Fixture *f) {
        f->samples[0].iowait_pct = 33.34, f->samples[0].cpu_user_pct = 33.34, f->samples[0].cpu_sys_pct = 33.34;
}
static void shares_not_stored(Fixture *f) {
        f->samples[0].iowait_pct = f->samples[0].cpu_user_pct = f->samples[0].cpu_sys_pct = -1;
        f->run.result.iowait_pct = f->run.result.cpu_user_pct = -1;
}
static void no_result(Fixture *f) { f->run.has_result = false; }
static void no_result_long_latency(Fixture *f) {
        f->run.has_result = false;
        f->samples[1].lat_max_ns = UINT64_C(5000000000);
}
static void result_below_samples(Fixture *f) { f->run.result.bytes_read = 4096, f->run.result.ios_read = 1; }
static void result_max_below_samples(Fixture *f) { f->samples[1].lat_max_ns = 200000; }
static void started_late(Fixture *f) { f->run.started_usec = f->run.result.started_usec = NOW + 87000 * USEC_PER_SEC; }
static void ends_late(Fixture *f) {
        f->run.started_usec = f->run.result.started_usec = NOW + 86397 * USEC_PER_SEC;
}
static void duration_zero(Fixture *f) { f->run.result.duration_usec = 0; }
static void samples_after_end(Fixture *f) { f->run.result.duration_usec = 500000; }
static void steady(Fixture *f) {
        f->run.steady_state_asked = f->run.steady_state = true;
        f->run.steady_state_usec = 2000000;
}
static void steady_between_samples(Fixture *f) {
        steady(f);
        f->run.steady_state_usec = 1500000;
}
static void steady_not_asked(Fixture *f) {
        steady(f);
        f->run.steady_state_asked = false;
}
static void rate_too_high(Fixture *f) {
        f->run.n_samples = f->run.n_histogram = 0;
        f->run.result.ios_read = UINT64_C(1) << 40;
        f->run.result.bytes_read = UINT64_C(1) << 52;
        f->run.result.duration_usec = 29000;
}
static void position_without_positions(Fixture *f) {
        spec_clear(&f->spec);
        spec_of("workload=position\nsize=64K\nblock_size=32K", &f->spec);
}
static void position_with_positions(Fixture *f) {
        position_without_positions(f);
        f->run.n_samples = f->run.n_histogram = 0;
        f->positions[0] = (ProtoPositionResult) { .index = 0, .offset_bytes = 0, .bytes = 65536, .duration_usec = 900,
                                                  .lat_mean_ns = 100000, .lat_max_ns = 100000 };
        f->positions[1] = (ProtoPositionResult) { .index = 1, .offset_bytes = 1 << 20, .bytes = 65536,
                                                  .duration_usec = 900, .lat_mean_ns = 100000, .lat_max_ns = 100000 };
        f->run.positions = f->positions;
        f->run.n_positions = 2;
        f->run.result.bytes_read = 2 * 65536;
        f->run.result.ios_read = 4;
        f->run.result.duration_usec = 2000;
}
static void positions_overlap(Fixture *f) {
        position_with_positions(f);
        f->positions[1].offset_bytes = 32768;
}

static const struct {
        const char *name;
        void (*change)(Fixture *f);
        const char *want;       /* NULL: plausible */
} cases[] = {
        { "as measured", NULL, NULL },
        { "samples pruned", no_samples, NULL },
        { "a sample lost", one_sample_lost, NULL },
        { "no histogram", no_histogram, NULL },
        { "neither", nothing_kept, NULL },
        { "shares rounded to 100.01", shares_rounded, NULL },
        { "shares not stored", shares_not_stored, NULL },
        { "no result", no_result, NULL },
        { "steady at the last sample", steady, NULL },
        { "ends within a day after now", ends_late, NULL },
        { "positions", position_with_positions, NULL },
        { "shares at 100.02", shares_over, "sample 1 of 2: SAMPLE cpu_user_pct + cpu_sys_pct + iowait_pct = 100.02" },
        { "no result, a latency longer than the run", no_result_long_latency,
          "sample 2 of 2: SAMPLE lat_max_ns=5000000000 is longer than the worker has run" },
        { "result below its samples", result_below_samples, "RESULT bytes_read=4096 but the samples add up to 8192" },
        { "maximum below its samples'", result_max_below_samples,
          "RESULT lat_max_ns=100000 but the largest SAMPLE lat_max_ns is 200000" },
        { "started after now and a day", started_late, "is not between 1970 and now plus a day" },
        { "duration 0", duration_zero, "duration_usec=0, but the run moved 8192 bytes in 2 I/Os" },
        { "samples after its end", samples_after_end,
          "sample 2 ends at t_ms=2000, after the measured phase's duration_usec=500000" },
        { "steady between samples", steady_between_samples,
          "steady_state_usec: STEADY_STATE t_ms=1500 is not the end of the latest SAMPLE" },
        { "steady not asked", steady_not_asked, "STEADY_STATE from a step whose spec asked for no steady_state" },
        { "faster than 1 TB/s", rate_too_high, "faster than the ceiling of 1000000000000 bytes/s" },
        { "a position run without positions", position_without_positions,
          "a position run with a result has one position for each of its offsets (at least 2)" },
        { "positions that overlap", positions_overlap,
          "position 2 of 2: POSITION_RESULT 1 offset_bytes=32768 is before the end of the previous position" },
};

START_TEST(test_run) {
        _cleanup_free_ char *err = NULL;
        Fixture f;
        int r;

        fixture_init(&f);
        if (cases[_i].change)
                cases[_i].change(&f);
        r = proto_run_plausible(&f.spec, &f.run, NOW, &err);
        if (!cases[_i].want)
                ck_assert_msg(r == 0, "%s: refused: %s", cases[_i].name, strna(err));
        else {
                ck_assert_msg(r == -ERANGE, "%s: accepted (r=%d), expected \"%s\"", cases[_i].name, r, cases[_i].want);
                ck_assert_msg(err && strstr(err, cases[_i].want), "%s: \"%s\" does not say \"%s\"", cases[_i].name,
                              strna(err), cases[_i].want);
        }
        spec_clear(&f.spec);
}
END_TEST

START_TEST(test_limits) {
        ProtoLimits l;
        Fixture f;

        fixture_init(&f);
        spec_clear(&f.spec);
        /* metadata: its row records no file_count or file_size_max; the most a spec may ask. */
        spec_of("workload=metadata\nfile_count=16", &f.spec);
        ck_assert_int_eq(proto_limits_from_history(&f.spec, &f.run, &l), 0);
        ck_assert_uint_eq(l.phase_ops_max, spec_key_table[SPEC_KEY_FILE_COUNT].max);
        ck_assert_uint_eq(l.io_bytes_max, spec_key_table[SPEC_KEY_FILE_SIZE_MAX].max);
        ck_assert_uint_eq(l.bytes_max, 4 * SPEC_SIZE_MAX);
        ck_assert(!l.steady_state);
        spec_clear(&f.spec);

        /* position: the positions the run has. */
        position_with_positions(&f);
        ck_assert_int_eq(proto_limits_from_history(&f.spec, &f.run, &l), 0);
        ck_assert_uint_eq(l.positions, 2);
        ck_assert_uint_eq(l.ios_max, 2 * 2);
        spec_clear(&f.spec);

        /* steady state: asked by the row, its window unknown. */
        fixture_init(&f);
        steady(&f);
        ck_assert_int_eq(proto_limits_from_history(&f.spec, &f.run, &l), 0);
        ck_assert(l.steady_state);
        ck_assert_uint_eq(l.steady_window_samples, 0);
        spec_clear(&f.spec);
}
END_TEST

int main(void) {
        Suite *s = suite_create("proto-history");
        TCase *tc = tcase_create("core");

        tcase_add_loop_test(tc, test_run, 0, ELEMENTSOF(cases));
        tcase_add_test(tc, test_limits);
        suite_add_tcase(s, tc);
        return check_run(s);
}
