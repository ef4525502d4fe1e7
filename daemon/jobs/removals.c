/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>

#include "jobs/cleanup.h"
#include "jobs/removals.h"
#include "shared/log.h"
#include "shared/util.h"

struct Removals {
        sd_event *event;
        Db *db;
        RemovalDone done;
        void *userdata;
        Cleanup **cleanups;
        size_t n_cleanups;
};

int removals_new(sd_event *e, Db *db, RemovalDone done, void *userdata, Removals **ret) {
        Removals *r = calloc(1, sizeof(*r));

        if (!r)
                return -ENOMEM;
        *r = (Removals) { .event = e, .db = db, .done = done, .userdata = userdata };
        *ret = r;
        return 0;
}

Removals *removals_free(Removals *r) {
        if (!r)
                return NULL;
        for (size_t i = 0; i < r->n_cleanups; i++)
                cleanup_free(r->cleanups[i]);
        free(r->cleanups);
        free(r);
        return NULL;
}

static void on_cleanup_done(Cleanup *c, const CleanupResult *result, void *userdata) {
        Removals *rm = userdata;
        uint64_t job_id = cleanup_job_id(c);
        int r;

        /* Finished with nothing of ours left: the record of it goes. Otherwise (killed after its
         * timeout, files it could not unlink) the next start-up tries again. */
        if (result->finished && result->stats.failed == 0) {
                r = db_removal_end(rm->db, &(DbRemoval) {
                                .job_id = job_id,
                                .step = cleanup_step(c),
                                .target = cleanup_target(c),
                        });
                if (r < 0)
                        log_warning_errno(r, "job %" PRIu64 ": cannot record that the removal of its files in %s "
                                          "finished: %m (%s); the next start-up removes what is left of them again",
                                          job_id, CALLER_TEXT(cleanup_target(c)), db_last_error(rm->db));
        }
        for (size_t i = 0; i < rm->n_cleanups; i++)
                if (rm->cleanups[i] == c) {
                        rm->cleanups[i] = rm->cleanups[--rm->n_cleanups];
                        break;
                }
        cleanup_free(c);
        rm->done(rm, job_id, rm->userdata);
}

int removals_start(Removals *rm, const char *target, uint64_t job_id, int step, uint32_t uid) {
        Cleanup **a, *c;
        int r;

        if (!target)
                return 0;
        r = db_removal_begin(rm->db, &(DbRemoval) { .job_id = job_id, .step = step < 0 ? -1 : step, .target = target,
                                                    .uid = uid },
                             now_usec(CLOCK_REALTIME));
        if (r < 0)
                log_warning_errno(r, "job %" PRIu64 ": cannot record the removal of its files in %s: %m (%s); "
                                  "should benchd stop before it ends, remove .benchd-%" PRIu64 "-* there by hand",
                                  job_id, CALLER_TEXT(target), db_last_error(rm->db), job_id);
        a = realloc(rm->cleanups, (rm->n_cleanups + 1) * sizeof(Cleanup *));
        if (!a)
                r = -ENOMEM;
        else {
                rm->cleanups = a;
                r = cleanup_spawn(rm->event, target, job_id, step, (uid_t) uid, CLEANUP_TIMEOUT_USEC, on_cleanup_done,
                                  rm, &c);
        }
        if (r < 0) {
                log_warning_errno(r, "job %" PRIu64 ": cannot start removing its files in %s: %m; remove "
                                  ".benchd-%" PRIu64 "-* there by hand", job_id, CALLER_TEXT(target), job_id);
                return r;
        }
        rm->cleanups[rm->n_cleanups++] = c;
        return 1;
}

size_t removals_count(const Removals *r) {
        return r ? r->n_cleanups : 0;
}

bool removals_has_all(const Removals *r, uint64_t job_id, const char *target) {
        for (size_t i = 0; r && i < r->n_cleanups; i++)
                if (cleanup_job_id(r->cleanups[i]) == job_id && cleanup_step(r->cleanups[i]) < 0 &&
                    streq_ptr(cleanup_target(r->cleanups[i]), target))
                        return true;
        return false;
}

void removals_log_abandoned(const Removals *r) {
        for (size_t i = 0; r && i < r->n_cleanups; i++)
                log_full(LOG_INFO, "job %" PRIu64 ": still removing its files in %s at shutdown; stopping that, remove "
                         "what is left of .benchd-%" PRIu64 "-* there by hand", cleanup_job_id(r->cleanups[i]),
                         CALLER_TEXT(cleanup_target(r->cleanups[i])), cleanup_job_id(r->cleanups[i]));
}
