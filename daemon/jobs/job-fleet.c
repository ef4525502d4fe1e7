/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A job's part in a fleet run (job-fleet.h).
 */
#include <errno.h>
#include <stdarg.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <syslog.h>

#include "jobs/job-fleet.h"
#include "jobs/supervisor.h"
#include "shared/log.h"
#include "shared/util.h"

#define job_log(j, level, fmt, ...) log_full((level), "job %" PRIu64 ": " fmt, (j)->id, ##__VA_ARGS__)
#define job_log_errno(j, level, error, fmt, ...) \
        log_full_errno((level), (error), "job %" PRIu64 ": " fmt, (j)->id, ##__VA_ARGS__)

static int fail(char **reterr, int r, const char *fmt, ...) _printf_(3, 4);
static int fail(char **reterr, int r, const char *fmt, ...) {
        va_list ap;

        va_start(ap, fmt);
        if (reterr && vasprintf(reterr, fmt, ap) < 0)
                *reterr = NULL;
        va_end(ap);
        return r;
}

static const JobSpec *current_step(const Job *j) {
        uint32_t n = job_current_step(j);

        return n < j->n_steps ? &j->steps[n] : NULL;
}

static int on_fleet_timer(sd_event_source *s, uint64_t usec, void *userdata) {
        Job *j = userdata;
        uint64_t start_usec = 0;
        int r;

        (void) sd_event_source_get_time(s, &start_usec);
        j->fleet_timer = sd_event_source_disable_unref(j->fleet_timer);
        r = worker_send_start(j->worker, start_usec);
        if (r < 0)
                job_log_errno(j, LOG_WARNING, r, "cannot send the fleet start to the worker: %m");
        else
                job_log(j, LOG_INFO, "fleet step %" PRIu32 " started, %" PRIi64 " us after its start time",
                        job_current_step(j), (int64_t) (now_usec(CLOCK_REALTIME) - start_usec));
        return 0;
}

int job_fleet_start(Job *j, uint64_t start_usec, int64_t clock_offset_us, uint64_t rtt_us, bool corrected,
                    char **reterr) {
        const JobSpec *step = current_step(j);
        uint64_t now = now_usec(CLOCK_REALTIME), tolerance_us;
        uint64_t off = clock_offset_us < 0 ? (uint64_t) -(clock_offset_us + 1) + 1 : (uint64_t) clock_offset_us;
        int r;

        if (!j->spec.fleet_uuid)
                return fail(reterr, -EBUSY, "job %" PRIu64 " is no fleet job (its spec has no fleet_uuid); it "
                            "started by itself", j->id);
        if (!j->worker || !step || !j->phase || !streq(j->phase, "ready"))
                return fail(reterr, -EBUSY, "job %" PRIu64 " is not ready to start (state %s, phase %s); start it "
                            "once its Phase is ready", j->id, job_state_to_string(job_get_state(j)),
                            j->phase && j->phase[0] ? j->phase : "none");
        if (j->fleet_timer)
                return fail(reterr, -EBUSY, "job %" PRIu64 " step %" PRIu32 " was given its start already", j->id,
                            job_current_step(j));
        tolerance_us = (uint64_t) spec_fleet_tolerance_ms(step) * USEC_PER_MSEC;
        if (off > tolerance_us && !corrected)
                return fail(reterr, -ERANGE, "this host's clock is %s%" PRIu64 ".%03" PRIu64 " ms from the caller's, "
                            "beyond fleet_clock_tolerance_ms=%" PRIu32 "; synchronise the clocks (NTP), raise "
                            "fleet_clock_tolerance_ms, or start by corrected time (benchctl run --clock-correct)",
                            clock_offset_us < 0 ? "-" : "+", off / 1000, off % 1000, spec_fleet_tolerance_ms(step));
        if (start_usec > now + JOB_FLEET_START_AHEAD_MAX_USEC || start_usec + JOB_FLEET_START_BEHIND_MAX_USEC < now)
                return fail(reterr, -EINVAL, "start time %" PRIu64 " is %s this host's clock (%" PRIu64 "); give a "
                            "time at most %u s behind and %u s ahead of it", start_usec,
                            start_usec > now ? "too far ahead of" : "too far behind", now,
                            (unsigned) (JOB_FLEET_START_BEHIND_MAX_USEC / USEC_PER_SEC),
                            (unsigned) (JOB_FLEET_START_AHEAD_MAX_USEC / USEC_PER_SEC));

        r = db_run_set_fleet(j->ctx->db, j->run_id, &(DbRunFleet) {
                .uuid = step->fleet_uuid,
                .host = step->fleet_host,
                .started = true,
                .clock_offset_us = clock_offset_us,
                .rtt_us = rtt_us,
                .start_usec = start_usec,
                .corrected = corrected,
        });
        if (r < 0)
                job_log_errno(j, LOG_WARNING, r, "cannot record the fleet start of run %" PRIu64 ": %m (%s)", j->run_id,
                              strna(db_last_error(j->ctx->db)));
        uint64_t mono = now_usec(CLOCK_MONOTONIC);
        r = worker_extend_timeout(j->worker, (mono > j->fleet_ready_usec ? mono - j->fleet_ready_usec : 0) +
                                             (start_usec > now ? start_usec - now : 0));
        if (r < 0)
                job_log_errno(j, LOG_WARNING, r, "cannot move the step's timeout past its wait: %m");
        /* Accuracy 1 us: the start is what a fleet run is about. */
        r = sd_event_add_time(j->ctx->event, &j->fleet_timer, CLOCK_REALTIME, start_usec, 1, on_fleet_timer, j);
        if (r < 0)
                return fail(reterr, r, "cannot arm the start timer: %s", strerror(-r));
        (void) sd_event_source_set_description(j->fleet_timer, "fleet-start");
        (void) sd_event_source_set_priority(j->fleet_timer, SD_EVENT_PRIORITY_IMPORTANT);
        job_log(j, LOG_INFO, "fleet step %" PRIu32 " starts at %" PRIu64 " (in %" PRIi64 " us; clock offset %" PRIi64
                " us, round trip %" PRIu64 " us%s)", job_current_step(j), start_usec, (int64_t) (start_usec - now),
                clock_offset_us, rtt_us, corrected ? ", corrected" : "");
        return 0;
}

void job_fleet_phase(Job *j, const char *phase) {
        if (streq(phase, "ready"))
                j->fleet_ready_usec = now_usec(CLOCK_MONOTONIC);
}

void job_fleet_step_end(Job *j) {
        j->fleet_timer = sd_event_source_disable_unref(j->fleet_timer);
}
