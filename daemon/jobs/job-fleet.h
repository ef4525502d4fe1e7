/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A job's part in a fleet run (docs/fleet.md "Fleet runs"): a job whose spec has fleet_uuid runs
 * each step up to PHASE ready (verdict, layout, mkfs, files, ramp) and waits; Job.Start arms a
 * CLOCK_REALTIME timer at the start time benchctl gave, and when it fires the worker is sent
 * START and measures from there. Each run records the fleet's uuid and the host's name when it
 * begins, and the clock offset, round trip and start time when it is started (schema/0019-fleet.sql).
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "jobs/job.h"

/* How far ahead of this host's clock a start may lie, and how far behind it. */
#define JOB_FLEET_START_AHEAD_MAX_USEC (3600 * USEC_PER_SEC)
#define JOB_FLEET_START_BEHIND_MAX_USEC (10 * USEC_PER_SEC)


/* Job.Start: the step is ready (-EBUSY with a message otherwise: not a fleet job, not ready yet,
 * or started already); the offset within the step's fleet_clock_tolerance_ms unless corrected
 * (-ERANGE with a message naming the offset); start_usec within JOB_FLEET_START_* of now on this
 * host's clock (-EINVAL). Then the run records what it was given, the timer is armed, and the step's
 * timeout moves later by the time it waited and will wait: it bounds the wait for a start (a step
 * never started fails at it), and then the run, as for any step. */
int job_fleet_start(Job *j, uint64_t start_usec, int64_t clock_offset_us, uint64_t rtt_us, bool corrected,
                    char **reterr);

/* The step's worker reported a phase: at ready, the wait for the start begins. */
void job_fleet_phase(Job *j, const char *phase);

/* The step ended (or the job went): the timer goes. */
void job_fleet_step_end(Job *j);
