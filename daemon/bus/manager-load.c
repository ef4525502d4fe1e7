/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The Manager's start-up (manager_load(), manager.h): what a previous life left. Jobs it left
 * "running" are settled from their runs, but only once their files are removed, so that a benchd
 * killed during the removal finds them running again and removes the files then; removals it
 * began and did not see finish (pending_removals) are begun again; the queued jobs are restored
 * as they were submitted, from their stored steps.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bus/manager-internal.h"
#include "bus/manager-metrics.h"
#include "bus/manager-queue.h"
#include "bus/manager.h"
#include "jobs/cleanup.h"
#include "jobs/job-steps.h"
#include "jobs/leftovers.h"
#include "jobs/part-leftovers.h"
#include "jobs/rounds.h"
#include "jobs/submit.h"
#include "shared/log.h"
#include "shared/stability.h"
#include "shared/util.h"

static void stale_settle_clear(StaleSettle *s) {
        free(s->msg);
        *s = (StaleSettle) {};
}

/* A jobs-table row of a previous life, copied out of the walk (its strings do not outlive it). */
typedef struct SavedJob {
        uint64_t id;
        uint64_t started_usec;
        uint32_t submitted_by;
        uint64_t submitted_usec;
        char *target;
        char *spec_json;        /* NULL when the copy failed */
        char *steps_json;       /* NULL for a job from before schema version 3 */
        JobTrigger trigger;
        bool copy_failed;
} SavedJob;

typedef struct SavedJobs {
        SavedJob *jobs;
        size_t n;
} SavedJobs;

static int collect_job(const DbJob *dj, void *userdata) {
        SavedJobs *c = userdata;
        SavedJob *n;

        n = realloc(c->jobs, (c->n + 1) * sizeof(SavedJob));
        if (!n)
                return -ENOMEM;
        c->jobs = n;
        c->jobs[c->n] = (SavedJob) { .id = dj->id, .started_usec = dj->started_usec,
                                     .submitted_by = dj->submitted_by, .submitted_usec = dj->submitted_usec,
                                     .target = dj->target ? strdup(dj->target) : NULL,
                                     .spec_json = strdup(dj->spec_json ?: "{}"),
                                     .steps_json = dj->steps_json ? strdup(dj->steps_json) : NULL,
                                     .trigger = MAX(job_trigger_from_string(dj->triggered_by), JOB_TRIGGER_BUS) };
        c->jobs[c->n].copy_failed = !c->jobs[c->n].spec_json || (dj->steps_json && !c->jobs[c->n].steps_json);
        c->n++;
        return 0;
}

static void saved_jobs_clear(SavedJobs *c) {
        for (size_t i = 0; i < c->n; i++) {
                free(c->jobs[i].target);
                free(c->jobs[i].spec_json);
                free(c->jobs[i].steps_json);
        }
        free(c->jobs);
        *c = (SavedJobs) {};
}

/* The job as it was submitted: its stored steps and the identities of their targets then. A job
 * from before schema version 3 has no stored steps: its profile is expanded again, and its
 * targets are checked at each step's start without an identity to compare with. */
static int manager_restore_job(Manager *m, const SavedJob *q) {
        _cleanup_(spec_clear) JobSpec spec;
        _cleanup_free_ char *err = NULL;
        TargetCheck *idents = NULL, *members = NULL;
        JobSpec *steps = NULL;
        size_t n_steps = 0;
        Job *j;
        int r;

        spec_init(&spec);
        r = spec_from_json(&spec, q->spec_json, &err);
        if (r >= 0)
                r = spec_finalize(&spec, &err);
        if (r >= 0 && q->steps_json)
                r = job_steps_from_json(q->steps_json, &steps, &idents, &members, &n_steps, &err);
        else if (r >= 0) {
                r = submit_expand(manager_profile_dirs(m), &spec, &steps, &n_steps, &err);
                if (r >= 0) {
                        idents = calloc(n_steps, sizeof(TargetCheck));
                        if (!idents)
                                r = -ENOMEM;
                        for (size_t i = 0; idents && i < n_steps; i++)
                                idents[i].kind = _TARGET_KIND_INVALID;
                        log_full(LOG_INFO, "job %" PRIu64 ": queued before benchd recorded job steps; its profile was "
                             "expanded again", q->id);
                }
        }
        if (r < 0) {
                spec_array_free(steps, n_steps);
                free(idents);
                free(members);
                _cleanup_free_ char *msg = NULL;
                if (asprintf(&msg, "the queued job could not be restored after a restart: %s",
                             err ?: strerror(-r)) < 0)
                        msg = NULL;
                log_full(LOG_WARNING, "job %" PRIu64 ": %s", q->id, strna(msg));
                (void) db_job_set_state(manager_db(m), q->id, "failed", 0, now_usec(CLOCK_REALTIME), msg);
                return 0;
        }
        r = job_new(manager_job_context(m), q->id, &spec, steps, idents, members, n_steps, q->spec_json, q->submitted_by,
                    q->submitted_usec, &j);
        if (r < 0) {
                spec_array_free(steps, n_steps);
                free(idents);
                free(members);
                return r;
        }
        j->trigger = q->trigger;
        r = manager_add_restored(m, j);
        if (r < 0)
                job_free(j);
        return r;
}

/* ---- settling the jobs a previous life left "running" ---- */

/* Whether a run of step (its repeat) can have been the job's last: the steps are those stored at
 * submit (an autorun job may have fewer than its profile), else its spec expanded as now; false
 * when that cannot be told. The last step, at its least number of runs (stability.h: repeat, or
 * with until_stddev at least 3; a stable step may stop there); in rounds (rounds.h), the round's
 * last visit, in a round that reaches the least number of rounds. */
static bool saved_job_last_run(Manager *m, const SavedJob *q, uint32_t step, uint32_t repeat) {
        _cleanup_(spec_clear) JobSpec spec;
        _cleanup_free_ char *err = NULL;
        _cleanup_free_ TargetCheck *idents = NULL, *members = NULL;
        JobSpec *steps = NULL;
        size_t n = 0;
        bool last = false;

        spec_init(&spec);
        if (q->steps_json) {
                if (job_steps_from_json(q->steps_json, &steps, &idents, &members, &n, &err) < 0)
                        return false;
        } else if (!q->spec_json || spec_from_json(&spec, q->spec_json, &err) < 0 || spec_finalize(&spec, &err) < 0 ||
                   submit_expand(manager_profile_dirs(m), &spec, &steps, &n, &err) < 0)
                return false;

        if (step < n && rounds_apply(steps, n))
                last = rounds_visit(steps, n, repeat, step) + 1 == n && repeat + 1 >= rounds_min(steps, n);
        else if (step < n)
                last = step + 1 == n && repeat + 1 >= stability_min_runs(&steps[step]);
        spec_array_free(steps, n);
        return last;
}

typedef struct LastRun {
        bool found;
        uint32_t step;
        uint32_t repeat;
        char *status;
        char *error;
        uint64_t ended_usec;
} LastRun;

static int copy_last_run(const DbRunEnd *run, void *userdata) {
        LastRun *l = userdata;

        l->status = strdup(run->status ?: "running");
        l->error = run->error ? strdup(run->error) : NULL;
        if (!l->status || (run->error && !l->error))
                return -ENOMEM;
        l->found = true;
        l->step = run->step;
        l->repeat = run->repeat;
        l->ended_usec = run->ended_usec;
        return 0;
}

static void last_run_clear(LastRun *l) {
        free(l->status);
        free(l->error);
}

static void manager_settle_write(Manager *m, const StaleSettle *s) {
        int r;

        r = db_job_set_state(manager_db(m), s->id, s->state, s->started_usec, s->finished_usec, s->msg ?: "benchd stopped");
        if (r < 0)
                log_warning_errno(r, "job %" PRIu64 ": cannot mark it %s: %m", s->id, s->state);
        log_full(LOG_INFO, "job %" PRIu64 " was running when benchd stopped: now %s (%s)", s->id, s->state,
                 strna(s->msg));
}

void manager_settle_removed(Manager *m, uint64_t job_id) {
        for (size_t i = 0; i < manager_settle_state(m)->n_settles; i++)
                if (manager_settle_state(m)->settles[i].id == job_id) {
                        manager_settle_write(m, &manager_settle_state(m)->settles[i]);
                        stale_settle_clear(&manager_settle_state(m)->settles[i]);
                        manager_settle_state(m)->settles[i] = manager_settle_state(m)->settles[--manager_settle_state(m)->n_settles];
                        return;
                }
}

void manager_settles_clear(Manager *m) {
        /* Not settled: their removal did not finish, and the next start-up begins it again. */
        for (size_t i = 0; i < manager_settle_state(m)->n_settles; i++)
                stale_settle_clear(&manager_settle_state(m)->settles[i]);
        free(manager_settle_state(m)->settles);
        manager_settle_state(m)->settles = NULL;
        manager_settle_state(m)->n_settles = 0;
}

/* benchd stopped while the job ran, or before it could store the job's end (the database refused
 * writes until benchd stopped). A run's end is stored before the next step starts and before the
 * job's end (db-queue.h), so the job's newest run tells which: one that failed, was cancelled or
 * interrupted ended the job so, and one that succeeded ended it successfully if it was the last
 * step; a run still "running", or none, means the job did not get to its end.
 * The job's files go first, in the background (the next job waits until they are gone), and the
 * job keeps its "running" row until they are: a benchd that dies during the removal (which takes
 * minutes for a metadata step's millions of files) finds the job running again at its next start,
 * and removes them then, rather than leaving them behind a job that looks settled. */
static void manager_settle_stale_job(Manager *m, const SavedJob *q, uint64_t now) {
        _cleanup_(last_run_clear) LastRun l = {};
        _cleanup_free_ char *msg = NULL;
        StaleSettle *a;
        const char *state = "interrupted";
        uint64_t finished = now;
        int r;

        r = db_job_last_run(manager_db(m), q->id, copy_last_run, &l);
        if (r < 0)
                log_warning_errno(r, "job %" PRIu64 ": cannot read its runs: %m (%s)", q->id, db_last_error(manager_db(m)));
        if (r > 0 && l.found && !streq(l.status, "running")) {
                if (l.ended_usec >= q->started_usec && l.ended_usec > 0)
                        finished = MIN(l.ended_usec, now);
                if (!streq(l.status, "succeeded")) {
                        state = l.status;
                        r = asprintf(&msg, "%s (the end of the job was stored only when benchd started again)",
                                     l.error ?: "its last run did not succeed");
                } else if (saved_job_last_run(m, q, l.step, l.repeat)) {
                        state = "succeeded";
                        r = asprintf(&msg, "the end of the job was stored only when benchd started again");
                } else
                        r = asprintf(&msg, "benchd stopped after step %" PRIu32 " (repeat %" PRIu32 ") of the job, "
                                     "before the next run started", l.step, l.repeat);
        } else
                r = asprintf(&msg, "benchd stopped before the end of the job was stored: it was still running, "
                             "or the database could not take its results");
        if (r < 0)
                msg = NULL;

        StaleSettle settle = {
                .id = q->id,
                .started_usec = q->started_usec,
                .finished_usec = finished,
                /* A name of ours, not the row's text, which goes with l. */
                .state = job_state_to_string(job_state_from_string(state)) ?: "interrupted",
                .msg = TAKE_PTR(msg),
        };
        a = realloc(manager_settle_state(m)->settles, (manager_settle_state(m)->n_settles + 1) * sizeof(StaleSettle));
        if (a)
                manager_settle_state(m)->settles = a;
        if (!a || manager_cleanup_files(m, q->target, q->id, -1, q->submitted_by) <= 0) {
                /* Nothing to remove, or the removal cannot be waited for: settled at once. */
                manager_settle_write(m, &settle);
                stale_settle_clear(&settle);
                return;
        }
        log_full(LOG_INFO, "job %" PRIu64 " was running when benchd stopped: %s once its files in %s are removed",
                 q->id, settle.state, CALLER_TEXT(q->target));
        manager_settle_state(m)->settles[manager_settle_state(m)->n_settles++] = settle;
}

/* A removal a previous life began and did not see finish: begun again, unless the job is being
 * settled, whose removal of all its files covers it. */
static int resume_removal(const DbRemoval *r, void *userdata) {
        Manager *m = userdata;

        for (size_t i = 0; i < manager_settle_state(m)->n_settles; i++)
                if (manager_settle_state(m)->settles[i].id == r->job_id)
                        return 0;
        if (manager_removing_all(m, r->job_id, r->target))
                return 0;
        log_full(LOG_INFO, "job %" PRIu64 ": removing its files in %s (%s), which a previous life of benchd began "
                 "removing and did not finish", r->job_id, CALLER_TEXT(r->target), r->step < 0 ? "all steps" : "a step");
        (void) manager_cleanup_files(m, r->target, r->job_id, r->step, r->uid);
        return 0;
}

static void manager_resume_removals(Manager *m) {
        int r = db_removal_foreach(manager_db(m), resume_removal, m);

        if (r < 0)
                log_warning_errno(r, "cannot read the removals of job files under way: %m (%s); files of jobs a "
                                  "previous life was removing may be left (.benchd-* in their targets)",
                                  db_last_error(manager_db(m)));
}

void manager_layout_reported(void *userdata) {
        Manager *m = userdata;

        if (!manager_is_stopping(m))
                (void) leftovers_clean_all(manager_db(m), NULL, "after udev reported an md or device-mapper device",
                                           true, 0);
}

int manager_load(Manager *m) {
        _cleanup_(saved_jobs_clear) SavedJobs stale = {}, queued = {};
        uint64_t now = now_usec(CLOCK_REALTIME);
        int r;

        r = db_job_foreach(manager_db(m), "running", collect_job, &stale);
        for (size_t i = 0; i < stale.n; i++)
                manager_settle_stale_job(m, &stale.jobs[i], now);
        if (r < 0) {
                log_warning_errno(r, "cannot read the running jobs: %m");
                return r;
        }
        manager_resume_removals(m);
        /* Logical volumes a worker killed with the previous life left active, then md arrays it left
         * assembled (an md-raid1+lvm array is held by its volume until that goes), then the
         * partitions under them, found from the runs still running: before they are marked. */
        (void) leftovers_clean_all(manager_db(m), manager_event(m), "at start-up", false, 0);
        (void) part_leftovers_clean(manager_db(m), manager_event(m), "at start-up", 0);
        r = db_run_interrupt_stale(manager_db(m));
        if (r > 0)
                log_full(LOG_WARNING, "%d run(s) of a previous life marked interrupted", r);
        else if (r < 0)
                log_warning_errno(r, "cannot mark stale runs interrupted: %m");

        r = db_job_foreach(manager_db(m), "queued", collect_job, &queued);
        for (size_t i = 0; r >= 0 && i < queued.n; i++)
                if (!queued.jobs[i].copy_failed)
                        r = manager_restore_job(m, &queued.jobs[i]);
        if (r < 0) {
                log_warning_errno(r, "cannot restore the queued jobs: %m");
                return r;
        }
        if (manager_queue_length(m) > 0)
                log_full(LOG_INFO, "%u queued job(s) restored", manager_queue_length(m));
        /* The file is whole from the start, whatever a previous life left. */
        manager_write_metrics(m);
        manager_loaded(m);
        return 0;
}
