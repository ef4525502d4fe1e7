/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Benchmarks when a disk appears (docs/service.md "Benchmarks when a disk appears"): the pure rules.
 * A udev rule opts a disk in with ENV{BENCHD_AUTORUN}="PROFILE"; benchd then queues that profile
 * once when the disk appears with an identity the database did not know, or with a firmware other
 * than the one it recorded, and never twice for the same identity and firmware (the autoruns
 * table, schema/0011-autoruns.sql). On a disk that is not marked scratch only the profile's steps
 * that read run; with none, nothing does. No D-Bus, no event loop, no database: the caller gathers
 * the facts (bus/manager-autorun.c) and these decide, so every case is a table row in
 * tests/unit/test-autorun.c.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "shared/spec.h"
#include "store/db.h"

/* The key the autoruns table keeps a disk by: its identity (devices.identity) when it is stable (a
 * WWN or a serial), else "model:<model>:<name>". A device with neither is known by its model and
 * kernel name, not by its size, which devices.identity also holds: a loop device's image grown or a
 * virtual disk resized is the same disk, benchmarked once, not once per size. */
int autorun_key(const char *identity, bool stable, const char *model, const char *name, char **ret);

/* Whether a sighting makes a disk one to benchmark. */
typedef enum AutorunEligibility {
        AUTORUN_NEW_IDENTITY,   /* the devices table did not have the identity */
        AUTORUN_NEW_FIRMWARE,   /* it had it, with another firmware */
        AUTORUN_STILL_WAITING,  /* it appeared new before and got no job yet (its rule named an unknown
                                 * profile, the queue was full, ...): try again */
        AUTORUN_ALREADY_QUEUED, /* a job was queued for this identity and firmware: never again */
        AUTORUN_KNOWN,          /* known with this firmware, or one of the two firmwares is unknown */
        _AUTORUN_ELIGIBILITY_MAX,
        _AUTORUN_ELIGIBILITY_INVALID = -22,
} AutorunEligibility;

typedef struct AutorunFacts {
        bool known;                     /* the devices table had the identity before this sighting */
        const char *known_firmware;     /* devices.firmware then; NULL: none recorded */
        const char *firmware;           /* the firmware now; NULL: none reported */
        DbAutorunState record;          /* the autoruns row of (identity, firmware) */
} AutorunFacts;

AutorunEligibility autorun_eligibility(const AutorunFacts *f);
/* New identity, new firmware, or still waiting. */
bool autorun_eligible(AutorunEligibility e);
/* "new identity", "new firmware", ... for messages. */
const char *autorun_eligibility_to_string(AutorunEligibility e);

/* Which steps of the profile run. */
typedef enum AutorunPlan {
        AUTORUN_PLAN_AS_IS,     /* every step: the disk is scratch, or no step writes */
        AUTORUN_PLAN_READ_ONLY, /* the steps that do not write (workload_writes()), in order */
        AUTORUN_PLAN_NOTHING,   /* none: no step only reads, and the disk is not scratch */
        _AUTORUN_PLAN_MAX,
        _AUTORUN_PLAN_INVALID = -22,
} AutorunPlan;

/* workloads[0..n-1]: the profile's steps. keep (may be NULL) gets, for each step, whether it runs;
 * *ret_writes (may be NULL) whether a step that runs writes, so the job needs destructive=true
 * (the write verdict still judges each such step when it starts). n = 0 plans nothing. */
AutorunPlan autorun_plan(const Workload *workloads, size_t n, bool scratch, bool *keep, bool *ret_writes);
