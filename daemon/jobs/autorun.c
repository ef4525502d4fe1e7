/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The rules of benchmarks when a disk appears (autorun.h). The order of the checks is the
 * contract: a job queued for (identity, firmware) is final before anything else is looked at, so
 * a disk that goes back to an older firmware is not benchmarked again; a firmware change counts
 * only when both firmwares are known, so a disk whose firmware udev stops (or starts) reporting is
 * not taken for a new one.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobs/autorun.h"
#include "shared/util.h"

static const char *const eligibility_table[_AUTORUN_ELIGIBILITY_MAX] = {
        [AUTORUN_NEW_IDENTITY] = "new identity",
        [AUTORUN_NEW_FIRMWARE] = "new firmware",
        [AUTORUN_STILL_WAITING] = "still to be benchmarked",
        [AUTORUN_ALREADY_QUEUED] = "already benchmarked with this firmware",
        [AUTORUN_KNOWN] = "known to the database with this firmware",
};

const char *autorun_eligibility_to_string(AutorunEligibility e) {
        return e >= 0 && e < _AUTORUN_ELIGIBILITY_MAX ? eligibility_table[e] : NULL;
}

int autorun_key(const char *identity, bool stable, const char *model, const char *name, char **ret) {
        if (stable) {
                if (!identity)
                        return -EINVAL;
                *ret = strdup(identity);
                return *ret ? 0 : -ENOMEM;
        }
        if (!name || !*name)
                return -EINVAL;
        if (asprintf(ret, "model:%s:%s", model ?: "", name) < 0) {
                *ret = NULL;
                return -ENOMEM;
        }
        return 0;
}

AutorunEligibility autorun_eligibility(const AutorunFacts *f) {
        if (f->record == DB_AUTORUN_QUEUED)
                return AUTORUN_ALREADY_QUEUED;
        if (f->record == DB_AUTORUN_WAITING)
                return AUTORUN_STILL_WAITING;
        if (!f->known)
                return AUTORUN_NEW_IDENTITY;
        if (f->known_firmware && f->firmware && !streq(f->known_firmware, f->firmware))
                return AUTORUN_NEW_FIRMWARE;
        return AUTORUN_KNOWN;
}

bool autorun_eligible(AutorunEligibility e) {
        return e == AUTORUN_NEW_IDENTITY || e == AUTORUN_NEW_FIRMWARE || e == AUTORUN_STILL_WAITING;
}

AutorunPlan autorun_plan(const Workload *workloads, size_t n, bool scratch, bool *keep, bool *ret_writes) {
        size_t n_read = 0;
        bool writes = false;

        for (size_t i = 0; i < n; i++) {
                if (workload_writes(workloads[i]))
                        writes = true;
                else
                        n_read++;
        }
        if (n == 0 || (!scratch && n_read == 0)) {
                for (size_t i = 0; keep && i < n; i++)
                        keep[i] = false;
                if (ret_writes)
                        *ret_writes = false;
                return AUTORUN_PLAN_NOTHING;
        }
        if (scratch || !writes) {
                for (size_t i = 0; keep && i < n; i++)
                        keep[i] = true;
                if (ret_writes)
                        *ret_writes = writes;
                return AUTORUN_PLAN_AS_IS;
        }
        for (size_t i = 0; keep && i < n; i++)
                keep[i] = !workload_writes(workloads[i]);
        if (ret_writes)
                *ret_writes = false;
        return AUTORUN_PLAN_READ_ONLY;
}
