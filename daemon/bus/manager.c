/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The Manager object and the queue. Handlers parse the message, authorise, call the logic in
 * spec.c, spec-check.c, profile.c and db.c, and reply; SubmitJob replies later, once the checks of
 * its targets, which may hang on a slow disk, have come back from a helper process
 * (verdict-query.c), so that the loop never waits for a disk. The scheduler starts one job at a
 * time from a defer source so that no job is started from inside a handler or another job's
 * callback, and none while the files of an ended step are still being removed (cleanup.c), so that
 * no benchmark measures that unlinking.
 * Start-up (settling what a previous life left running, resuming its removals, restoring the queue)
 * is manager-load.c's. The read-only methods (profiles and history) are in manager-history.c, the regression check of
 * each succeeded run and ListRegressions in manager-regress.c; the vtable here lists them all, so
 * the interface is declared in one place. The jobs' objects are job-object.c's; a job
 * tells the Manager that it started, changed or ended through the callbacks wired up here.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-daemon.h>

#include "bus/bus-polkit.h"
#include "bus/manager-import.h"
#include "bus/manager-internal.h"
#include "bus/manager-autorun.h"
#include "bus/bus-util.h"
#include "config.h"
#include "bus/job-object.h"
#include "bus/manager-history.h"
#include "bus/manager-metrics.h"
#include "bus/manager-regress.h"
#include "bus/manager.h"
#include "jobs/profile.h"
#include "jobs/job-steps.h"
#include "jobs/matrix.h"
#include "shared/spec-check.h"
#include "jobs/verdict-query.h"
#include "shared/log.h"
#include "shared/strv.h"


/* A cancellation of another user's job waiting for polkit (see CancelJob below). */
struct CancelCall {
        Manager *manager;
        CancelCall *prev, *next;        /* in manager->cancels */
        sd_bus_message *message;
        uint64_t id;
        uint32_t uid;
        PolkitQuery *polkit;
};

static CancelCall *cancel_call_free(CancelCall *c);

Job *manager_find_job(Manager *m, uint64_t id) {
        for (Job *j = m->jobs_head; j; j = j->next)
                if (j->id == id)
                        return j;
        return NULL;
}

unsigned manager_queue_length(Manager *m) {
        unsigned n = 0;
        for (Job *j = m->jobs_head; j; j = j->next)
                if (job_get_state(j) == JOB_QUEUED)
                        n++;
        return n;
}

static void manager_emit_changed(Manager *m) {
        (void) sd_bus_emit_properties_changed(m->bus, BENCHD_MANAGER_PATH, BENCHD_MANAGER_INTERFACE,
                                              "QueueLength", "RunningJob", NULL);
}

/* Looks at the queue on the next loop iteration. */
void manager_schedule(Manager *m) {
        if (m->dispatch_source)
                (void) sd_event_source_set_enabled(m->dispatch_source, SD_EVENT_ONESHOT);
}

static int on_dispatch(sd_event_source *s, void *userdata) {
        Manager *m = userdata;

        if (m->stopping || m->running || m->n_cleanups > 0)
                return 0;
        for (Job *j = m->jobs_head; j; j = j->next)
                if (job_get_state(j) == JOB_QUEUED) {
                        job_start(j);
                        return 0;
                }
        return 0;
}

static void manager_exit_if_done(Manager *m) {
        if (m->stopping && !m->running && m->n_cleanups == 0)
                (void) sd_event_exit(m->event, 0);
}

static void on_cleanup_done(Cleanup *c, const CleanupResult *result, void *userdata) {
        Manager *m = userdata;
        int r;

        /* Finished with nothing of ours left: the record of it goes. Otherwise (killed after its
         * timeout, files it could not unlink) the next start-up tries again. */
        if (result->finished && result->stats.failed == 0) {
                r = db_removal_end(m->db, &(DbRemoval) {
                                .job_id = cleanup_job_id(c),
                                .step = cleanup_step(c),
                                .target = cleanup_target(c),
                        });
                if (r < 0)
                        log_warning_errno(r, "job %" PRIu64 ": cannot record that the removal of its files in %s "
                                          "finished: %m (%s); the next start-up removes what is left of them again",
                                          cleanup_job_id(c), CALLER_TEXT(cleanup_target(c)), db_last_error(m->db));
        }

        /* A job a previous life left running is settled now that its files are gone (or the
         * removal gave up: what it could not remove is logged). */
        manager_settle_removed(m, cleanup_job_id(c));
        for (size_t i = 0; i < m->n_cleanups; i++)
                if (m->cleanups[i] == c) {
                        m->cleanups[i] = m->cleanups[--m->n_cleanups];
                        break;
                }
        cleanup_free(c);
        if (m->stopping)
                manager_exit_if_done(m);
        else
                manager_schedule(m);
}

/* Removes job_id's files in target (step < 0: of all its steps) in the background, as uid (the
 * submitter: a caller's steps on a directory ran as the caller, so the files are the caller's;
 * cleanup.h); logged. Recorded first in pending_removals, with the uid, so that a benchd that dies
 * before the removal finishes removes them at its next start (manager_resume_removals()), whatever
 * the job's state by then. Returns 1 when the removal runs (on_cleanup_done() follows), 0 when there
 * is nothing to remove, a negative errno when it could not be started. */
int manager_cleanup_files(Manager *m, const char *target, uint64_t job_id, int step, uint32_t uid) {
        Cleanup **a, *c;
        int r;

        if (!target)
                return 0;
        r = db_removal_begin(m->db, &(DbRemoval) { .job_id = job_id, .step = step < 0 ? -1 : step, .target = target,
                                                   .uid = uid },
                             now_usec(CLOCK_REALTIME));
        if (r < 0)
                log_warning_errno(r, "job %" PRIu64 ": cannot record the removal of its files in %s: %m (%s); "
                                  "should benchd stop before it ends, remove .benchd-%" PRIu64 "-* there by hand",
                                  job_id, CALLER_TEXT(target), db_last_error(m->db), job_id);
        a = realloc(m->cleanups, (m->n_cleanups + 1) * sizeof(Cleanup *));
        if (!a)
                r = -ENOMEM;
        else {
                m->cleanups = a;
                r = cleanup_spawn(m->event, target, job_id, step, (uid_t) uid, CLEANUP_TIMEOUT_USEC, on_cleanup_done, m,
                                  &c);
        }
        if (r < 0) {
                log_warning_errno(r, "job %" PRIu64 ": cannot start removing its files in %s: %m; remove "
                                  ".benchd-%" PRIu64 "-* there by hand", job_id, CALLER_TEXT(target), job_id);
                return r;
        }
        m->cleanups[m->n_cleanups++] = c;
        return 1;
}

/* Unlinks an ended job, removes its object (InterfacesRemoved) and frees it. */
static void manager_remove_job(Manager *m, Job *j) {
        job_object_removed(m->bus, j);
        if (j->prev)
                j->prev->next = j->next;
        else
                m->jobs_head = j->next;
        if (j->next)
                j->next->prev = j->prev;
        else
                m->jobs_tail = j->prev;
        job_free(j);
}

/* ---- what the jobs tell the Manager (JobCallbacks) ---- */

static void on_job_started(Job *j, void *userdata) {
        Manager *m = userdata;

        m->running = j;
        manager_emit_changed(m);
        (void) sd_notifyf(false, "STATUS=Running job %" PRIu64 " (%u queued)", j->id, manager_queue_length(m));
}

/* Ended jobs linger for JOB_LINGER_USEC, but a burst of jobs that fail at once must not grow the
 * daemon without bound. */
static void manager_trim_ended(Manager *m, Job *keep) {
        unsigned n = 0;

        for (Job *j = m->jobs_head; j; j = j->next)
                if (job_state_is_final(job_get_state(j)))
                        n++;
        for (Job *j = m->jobs_head, *next; j && n > JOB_LINGER_MAX; j = next) {
                next = j->next;
                if (j != keep && job_state_is_final(job_get_state(j))) {
                        manager_remove_job(m, j);
                        n--;
                }
        }
}

static void on_job_ended(Job *j, const char *result, void *userdata) {
        Manager *m = userdata;

        (void) sd_bus_emit_signal(m->bus, BENCHD_MANAGER_PATH, BENCHD_MANAGER_INTERFACE, "JobRemoved",
                                  "tos", j->id, j->path, result);
        manager_trim_ended(m, j);
        if (m->running == j)
                m->running = NULL;
        manager_emit_changed(m);
        /* benchd_runs_total counts failed and cancelled runs too, which run_stored does not see. */
        if (!streq_ptr(job_state_to_string(j->core.state), "succeeded"))
                manager_write_metrics(m);
        if (!m->running)
                (void) sd_notifyf(false, "STATUS=Idle (%u queued)", manager_queue_length(m));
        if (m->stopping) {
                manager_exit_if_done(m);
                return;
        }
        manager_schedule(m);
}

static void on_job_run_stored(Job *j, uint64_t run_id, void *userdata) {
        manager_check_run(userdata, run_id);
        manager_write_metrics(userdata);
}

static void on_job_changed(Job *j, const char *const *properties, void *userdata) {
        Manager *m = userdata;

        job_object_changed(m->bus, j, properties);
}

static void on_job_schedule(Job *j, void *userdata) {
        manager_schedule(userdata);
}

static void on_job_remove_files(Job *j, const char *target, int step, void *userdata) {
        (void) manager_cleanup_files(userdata, target, j->id, step, j->submitted_by);
}

static void on_job_give_up(Job *j, void *userdata) {
        Manager *m = userdata;

        (void) sd_event_exit(m->event, 0);
}

static void on_job_expired(Job *j, void *userdata) {
        manager_remove_job(userdata, j);
}

static const JobCallbacks manager_job_callbacks = {
        .started = on_job_started,
        .ended = on_job_ended,
        .run_stored = on_job_run_stored,
        .changed = on_job_changed,
        .schedule = on_job_schedule,
        .remove_files = on_job_remove_files,
        .give_up = on_job_give_up,
        .expired = on_job_expired,
};

void manager_link_job(Manager *m, Job *j) {
        j->prev = m->jobs_tail;
        j->next = NULL;
        if (m->jobs_tail)
                m->jobs_tail->next = j;
        else
                m->jobs_head = j;
        m->jobs_tail = j;
}

/* The job's steps: the profile's, or the spec itself; for a filesystem matrix those once per
 * entry (matrix.h). reterr/-errno as profile_*(). */
static int manager_expand_base(Manager *m, const JobSpec *spec, JobSpec **ret_steps, size_t *ret_n,
                               char **reterr) {
        if (spec->profile) {
                _cleanup_(profile_freep) Profile *p = NULL;
                int r;

                r = profile_load(m->profile_dirs, spec->profile, &p, reterr);
                if (r < 0)
                        return r;
                return profile_expand(p, spec, ret_steps, ret_n, reterr);
        }

        JobSpec *steps = calloc(1, sizeof(JobSpec));
        int r;

        if (!steps)
                return -ENOMEM;
        spec_init(&steps[0]);
        r = spec_copy(spec, &steps[0]);
        if (r >= 0)
                r = spec_finalize(&steps[0], reterr);
        if (r < 0) {
                spec_array_free(steps, 1);
                return r;
        }
        *ret_steps = steps;
        *ret_n = 1;
        return 0;
}

int manager_expand(Manager *m, const JobSpec *spec, JobSpec **ret_steps, size_t *ret_n, char **reterr) {
        JobSpec *base = NULL;
        size_t n_base = 0;
        int r;

        r = manager_expand_base(m, spec, &base, &n_base, reterr);
        if (r < 0 || !spec_is_matrix(spec)) {
                if (r >= 0) {
                        *ret_steps = base;
                        *ret_n = n_base;
                }
                return r;
        }
        r = matrix_expand(spec, base, n_base, ret_steps, ret_n, reterr);
        spec_array_free(base, n_base);
        return r;
}

/* What a refusal of verdict i of the n of a SubmitJob names first: for a job of several steps the
 * step ("step 1 (read): "); for a filesystem matrix, judged device by device, the device, in the
 * order of devices= ("device 2 of 2, /dev/loop5: "). Nothing for a single verdict. */
static const char *verdict_prefix(const JobSpec *spec, const JobSpec *steps, size_t n_steps, size_t n, size_t i,
                                  char *buf, size_t size) {
        if (n <= 1)
                return "";
        if (spec_is_matrix(spec) && i < strv_length(spec->devices))
                snprintf(buf, size, "device %zu of %zu, %s: ", i + 1, n, CALLER_TEXT(spec->devices[i]));
        else if (!spec_is_matrix(spec) && i < n_steps)
                snprintf(buf, size, "step %zu (%s): ", i, strna(workload_to_string(steps[i].workload)));
        else
                return "";
        return buf;
}

/* ---- SubmitJob ----
 *
 * What is pure (the spec, the profile's expansion) is checked on the loop; the checks against the
 * system, which can hang on a dying disk or a stuck mount, run in a helper process
 * (verdict-query.h), and the call is answered when the verdict comes, as timedated answers once
 * polkit has. Authorisation comes first, so that nobody unprivileged can make benchd fork: root
 * may; anyone else is asked of polkit (bus-polkit.h), without waiting for it, for
 * org.benchd.benchd1.submit, or for org.benchd.benchd1.destructive alone when the job overwrites a
 * device (destructive=true, every filesystem matrix): that one is the stricter, and one question
 * means one password prompt. At most MANAGER_SUBMITS_CHECKING_MAX calls wait at a time, polkit's
 * answer or the targets' verdict. */

/* A SubmitJob call waiting for the verdicts of its steps; or benchd's own submission
 * (manager_submit_internal(): no message, done is called instead of a reply). */
struct Submit {
        Manager *manager;
        Submit *prev, *next;    /* in manager->submits */
        sd_bus_message *message;
        JobSpec spec;
        JobSpec *steps;
        size_t n_steps;
        uint32_t uid;
        JobTrigger trigger;
        int64_t autorun_id;     /* > 0: the autoruns row the job is queued for, in one transaction */
        ManagerSubmitDone done;
        void *done_userdata;
        PolkitQuery *polkit;
        VerdictQuery *query;
};

static Submit *submit_free(Submit *s) {
        if (!s)
                return NULL;
        if (s->manager) {
                /* Linked (only then is manager set). */
                if (s->prev)
                        s->prev->next = s->next;
                else
                        s->manager->submits = s->next;
                if (s->next)
                        s->next->prev = s->prev;
                s->manager->n_submits--;
        }
        polkit_query_free(s->polkit);
        verdict_query_free(s->query);
        spec_array_free(s->steps, s->n_steps);
        spec_clear(&s->spec);
        sd_bus_message_unref(s->message);
        free(s);
        return NULL;
}

static int manager_check_queue(Manager *m, sd_bus_error *error) {
        if (manager_queue_length(m) >= m->max_queue)
                return sd_bus_error_setf(error, BENCHD_ERROR_QUEUE_FULL,
                                         "the queue is full (%u jobs waiting); wait for jobs to finish or "
                                         "cancel some", m->max_queue);
        return 0;
}

/* The jobs uid has queued, and (with_checking) its SubmitJob calls still being authorised or
 * checked. */
static unsigned manager_user_queued(Manager *m, uint32_t uid, bool with_checking) {
        unsigned n = 0;

        for (Job *j = m->jobs_head; j; j = j->next)
                if (job_get_state(j) == JOB_QUEUED && j->submitted_by == uid)
                        n++;
        for (Submit *s = m->submits; with_checking && s; s = s->next)
                if (s->uid == uid)
                        n++;
        return n;
}

/* MaxQueuedJobsPerUser=: no user but root, which the queue's own bound holds, fills the queue
 * alone. */
static int manager_check_user_queue(Manager *m, uint32_t uid, bool with_checking, sd_bus_error *error) {
        unsigned n;

        if (uid == 0 || m->max_queued_per_user == 0)
                return 0;
        n = manager_user_queued(m, uid, with_checking);
        if (n >= m->max_queued_per_user)
                return sd_bus_error_setf(error, BENCHD_ERROR_QUEUE_FULL,
                                         "user %" PRIu32 " has %u jobs queued, at most %u; wait for them to run "
                                         "or cancel some (benchctl jobs, benchctl cancel ID), or raise "
                                         "MaxQueuedJobsPerUser= in benchd.conf", uid, n, m->max_queued_per_user);
        return 0;
}

/* A matrix job was judged device by device (v[i] for s->spec.devices[i]); each step's target is its
 * first member, and its members are the devices its devices= lists. */
static int submit_matrix_idents(const Submit *s, const StepVerdict *v, size_t n, TargetCheck **ret_idents,
                                TargetCheck **ret_members) {
        _cleanup_free_ TargetCheck *idents = calloc(s->n_steps, sizeof(TargetCheck)),
                                   *members = calloc(s->n_steps * JOB_STEP_MEMBERS_MAX, sizeof(TargetCheck));

        if (!idents || !members)
                return -ENOMEM;
        for (size_t i = 0; i < s->n_steps; i++) {
                size_t k = 0;

                for (char **d = s->steps[i].devices; d && *d && k < JOB_STEP_MEMBERS_MAX; d++, k++) {
                        int at = strv_find_index(s->spec.devices, *d);

                        if (at < 0 || (size_t) at >= n)
                                return -EINVAL;
                        members[i * JOB_STEP_MEMBERS_MAX + k] = v[at].check;
                }
                idents[i] = members[i * JOB_STEP_MEMBERS_MAX];
        }
        *ret_idents = TAKE_PTR(idents);
        *ret_members = TAKE_PTR(members);
        return 0;
}

/* The job, its steps judged: queued and answered (1), or refused (a negative errno, with error set
 * when it says more). */
static int submit_queue(Submit *s, const StepVerdict *v, size_t n, sd_bus_error *error) {
        Manager *m = s->manager;
        _cleanup_free_ char *json = NULL, *steps_json = NULL;
        _cleanup_free_ TargetCheck *idents = NULL, *members = NULL;
        uint64_t id, now;
        Job *j;
        int r;

        /* Each step's target identity, to be compared at the step's start. */
        for (size_t i = 0; i < n; i++) {
                char pfx[256];

                if (!v[i].error_name)
                        continue;
                if (v[i].error == -ENOMEM || !v[i].reason)
                        return -ENOMEM;
                return sd_bus_error_setf(error, v[i].error_name, "%s%s",
                                         verdict_prefix(&s->spec, s->steps, s->n_steps, n, i, pfx, sizeof(pfx)),
                                         v[i].reason);
        }
        if (spec_is_matrix(&s->spec)) {
                /* One verdict per device of the job: each step's members are some of them. */
                r = submit_matrix_idents(s, v, n, &idents, &members);
                if (r < 0)
                        return r;
                n = s->n_steps;
        } else {
                idents = calloc(n, sizeof(TargetCheck));
                if (!idents)
                        return -ENOMEM;
                for (size_t i = 0; i < n; i++)
                        idents[i] = v[i].check;
        }

        /* Again: the queue may have filled while the targets were checked. */
        r = manager_check_queue(m, error);
        if (r >= 0)
                r = manager_check_user_queue(m, s->uid, false, error);
        if (r < 0)
                return r;

        r = spec_to_json(&s->spec, &json);
        if (r >= 0)
                r = job_steps_to_json(s->steps, idents, members, n, &steps_json);
        if (r < 0)
                return r;

        now = now_usec(CLOCK_REALTIME);
        DbJob dj = {
                .state = "queued",
                .profile = s->spec.profile,
                .workload = s->spec.profile ? NULL : workload_to_string(s->spec.workload),
                .spec_json = json,
                .target = s->spec.target,
                .label = s->spec.label,
                .submitted_by = s->uid,
                .submitted_usec = now,
                .steps_json = steps_json,
                .triggered_by = job_trigger_to_string(s->trigger),
        };
        if (s->autorun_id > 0)
                r = db_job_insert_autorun(m->db, &dj, s->autorun_id, &id);
        else
                r = db_job_insert(m->db, &dj, &id);
        if (r == -EALREADY)
                return sd_bus_error_setf(error, SD_BUS_ERROR_FAILED, "%s; nothing was queued", db_last_error(m->db));
        if (r < 0) {
                log_warning_errno(r, "cannot insert a job: %m (%s)", strna(db_last_error(m->db)));
                return sd_bus_error_setf(error, r == -ENOSPC ? BENCHD_ERROR_NO_SPACE : SD_BUS_ERROR_FAILED,
                                         "cannot record the job in the database %s: %s (%s); nothing was queued, "
                                         "submit it again once the database can be written", m->db_path,
                                         strerror(-r), db_last_error(m->db));
        }

        r = job_new(&m->job_context, id, &s->spec, s->steps, idents, members, n, json, s->uid, now, &j);
        if (r < 0) {
                (void) db_job_set_state(m->db, id, "failed", 0, now, "out of memory");
                return r;
        }
        s->steps = NULL;
        s->n_steps = 0;
        idents = NULL;
        members = NULL;
        j->trigger = s->trigger;
        manager_link_job(m, j);
        job_object_added(m->bus, j);
        manager_emit_changed(m);
        manager_schedule(m);
        log_full(LOG_INFO, "job %" PRIu64 " queued by uid %" PRIu32 " (triggered by %s): %s", id, s->uid,
                 job_trigger_to_string(s->trigger), json);

        if (!s->message) {
                if (s->done)
                        s->done(m, 0, id, NULL, s->done_userdata);
                s->done = NULL;
                return 1;
        }
        r = sd_bus_reply_method_return(s->message, "to", id, j->path);
        if (r < 0)
                log_warning_errno(r, "job %" PRIu64 ": cannot answer the SubmitJob call that queued it: %m", id);
        return 1;
}

static void submit_fail(Submit *s, int r, const sd_bus_error *error);

static void on_submit_verdicts(VerdictQuery *q, StepVerdict *verdicts, size_t n, void *userdata) {
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        Submit *s = userdata;
        int r;

        r = submit_queue(s, verdicts, n, &error);
        if (r < 0)
                submit_fail(s, r, &error);
        else
                submit_free(s);
}

/* Shutdown: every call still waiting is answered, and its check killed. */
static void manager_submits_abort(Manager *m) {
        while (m->submits) {
                _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;

                (void) sd_bus_error_set(&error, SD_BUS_ERROR_FAILED,
                                        "benchd is shutting down; submit the job again once it runs");
                submit_fail(m->submits, -ECANCELED, &error);
        }
        while (m->cancels) {
                CancelCall *c = m->cancels;

                (void) sd_bus_reply_method_errorf(c->message, SD_BUS_ERROR_FAILED,
                                                  "benchd is shutting down; job %" PRIu64 " is interrupted "
                                                  "anyway", c->id);
                cancel_call_free(c);
        }
}

/* The checks of the job's targets, in a helper process; on_submit_verdicts() answers the call. */
static int submit_check_targets(Submit *s, sd_bus_error *error) {
        Manager *m = s->manager;
        int r;

        if (spec_is_matrix(&s->spec)) {
                /* Each device once, as a destructive write to it; the first also carries the
                 * matrix, whose tools, layout and mkfs options are tried on image files. */
                JobSpec *units = NULL;
                size_t n_units = 0;

                r = matrix_member_specs(&s->spec, true, &units, &n_units);
                if (r >= 0)
                        r = verdict_query_start(m->event, m->devices, units, NULL, n_units,
                                                &(VerdictOptions) { .worker_path = m->job_context.worker_path },
                                                VERDICT_QUERY_TIMEOUT_USEC, on_submit_verdicts, s, &s->query);
                spec_array_free(units, n_units);
        } else
                r = verdict_query_start(m->event, m->devices, s->steps, NULL, s->n_steps,
                                        &(VerdictOptions) { .caller_uid = s->uid }, VERDICT_QUERY_TIMEOUT_USEC, on_submit_verdicts, s, &s->query);
        if (r < 0) {
                log_warning_errno(r, "cannot start checking target %s: %m", CALLER_TEXT(s->spec.target));
                if (r != -ENOMEM)
                        r = sd_bus_error_setf(error, SD_BUS_ERROR_FAILED,
                                              "cannot start checking target %s: %s; submit the job again",
                                              CALLER_TEXT(s->spec.target), strerror(-r));
        }
        return r;
}

/* Answers the call with the refusal (or tells the internal submitter) and frees s. */
static void submit_fail(Submit *s, int r, const sd_bus_error *error) {
        if (!s->message) {
                if (s->done)
                        s->done(s->manager, r, 0, error && sd_bus_error_is_set(error) ? error->message : NULL,
                                s->done_userdata);
        } else if (error && sd_bus_error_is_set(error))
                (void) sd_bus_reply_method_error(s->message, error);
        else
                (void) sd_bus_reply_method_errno(s->message, r, NULL);
        submit_free(s);
}

static void on_submit_polkit(PolkitQuery *q, int r, const sd_bus_error *perror, void *userdata) {
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        Submit *s = userdata;

        s->polkit = polkit_query_free(s->polkit);
        if (r < 0) {
                log_full(LOG_INFO, "SubmitJob by uid %" PRIu32 " refused: %s", s->uid,
                         perror ? strna(perror->message) : strerror(-r));
                submit_fail(s, r, perror);
                return;
        }
        r = submit_check_targets(s, &error);
        if (r < 0)
                submit_fail(s, r, &error);
}

/* The action a job needs (see above). */
static const char *submit_action(const JobSpec *spec) {
        return spec->destructive || spec_is_matrix(spec) ? BENCHD_ACTION_DESTRUCTIVE : BENCHD_ACTION_SUBMIT;
}

/* The call is the Manager's from here: submit_free() unlinks it. */
static void submit_link(Manager *m, Submit *s) {
        s->manager = m;
        s->next = m->submits;
        if (m->submits)
                m->submits->prev = s;
        m->submits = s;
        m->n_submits++;
}

static int method_submit_job(sd_bus_message *message, void *userdata, sd_bus_error *error) {
        Manager *m = userdata;
        _cleanup_(spec_clear) JobSpec spec;
        _cleanup_free_ char *err = NULL;
        Submit *s;
        int r;

        spec_init(&spec);

        if (m->stopping)
                return sd_bus_error_set(error, SD_BUS_ERROR_FAILED,
                                        "benchd is shutting down; submit the job again once it runs");
        s = calloc(1, sizeof(*s));
        if (!s)
                return -ENOMEM;
        spec_init(&s->spec);
        r = bus_sender_uid(message, "submitting jobs", &s->uid, error);
        if (r < 0)
                goto fail;

        r = bus_message_read_spec(message, &spec, error);
        if (r < 0)
                goto fail;
        r = spec_finalize(&spec, &err);
        if (r < 0) {
                r = sd_bus_error_setf(error, BENCHD_ERROR_INVALID_SPEC, "%s", err ?: "invalid spec");
                goto fail;
        }

        r = manager_expand(m, &spec, &s->steps, &s->n_steps, &err);
        if (r < 0) {
                if (r != -ENOMEM)
                        r = sd_bus_error_setf(error, BENCHD_ERROR_INVALID_SPEC, "%s", err ?: "invalid profile");
                goto fail;
        }

        /* Nothing is asked or forked for a call that cannot be queued anyway. */
        r = manager_check_queue(m, error);
        if (r >= 0)
                r = manager_check_user_queue(m, s->uid, true, error);
        if (r < 0)
                goto fail;
        if (m->n_submits >= MANAGER_SUBMITS_CHECKING_MAX) {
                r = sd_bus_error_setf(error, BENCHD_ERROR_QUEUE_FULL,
                                      "too many jobs being checked (%u SubmitJob calls wait for their "
                                      "authorisation or the check of their targets); submit again once they "
                                      "are answered", MANAGER_SUBMITS_CHECKING_MAX);
                goto fail;
        }

        /* The call is the Submit's now; on_submit_polkit() or on_submit_verdicts() answers it. */
        s->spec = spec;
        spec_init(&spec);
        s->message = sd_bus_message_ref(message);
        submit_link(m, s);

        if (s->uid == 0)
                r = submit_check_targets(s, error);
        else {
                const char *details[] = {
                        "target", s->spec.target ?: "",
                        s->spec.profile ? "profile" : "workload",
                        s->spec.profile ?: workload_to_string(s->spec.workload) ?: "",
                        NULL,
                };

                r = polkit_query_start(m->bus, message, submit_action(&s->spec), "submitting this job",
                                       details, on_submit_polkit, s, &s->polkit);
                if (r < 0 && r != -ENOMEM)
                        r = sd_bus_error_setf(error, SD_BUS_ERROR_ACCESS_DENIED,
                                              "cannot ask polkit whether the caller may submit jobs: %s; "
                                              "try again, or run it as root", strerror(-r));
        }
        if (r < 0)
                goto fail;
        return 1;

fail:
        submit_free(s);
        return r;
}

int manager_submit_internal(Manager *m, JobSpec *spec, JobSpec *steps, size_t n_steps, JobTrigger trigger,
                            int64_t autorun_id, ManagerSubmitDone done, void *userdata, sd_bus_error *error) {
        Submit *s;
        int r;

        if (m->stopping)
                r = sd_bus_error_set(error, SD_BUS_ERROR_FAILED, "benchd is shutting down");
        else if (m->n_submits >= MANAGER_SUBMITS_CHECKING_MAX)
                r = sd_bus_error_setf(error, BENCHD_ERROR_QUEUE_FULL,
                                      "%u SubmitJob calls wait for the check of their targets already",
                                      MANAGER_SUBMITS_CHECKING_MAX);
        else
                r = manager_check_queue(m, error);
        s = r >= 0 ? calloc(1, sizeof(*s)) : NULL;
        if (!s) {
                spec_array_free(steps, n_steps);
                spec_clear(spec);
                return r < 0 ? r : -ENOMEM;
        }
        s->spec = *spec;
        spec_init(spec);
        s->steps = steps;
        s->n_steps = n_steps;
        s->uid = 0;
        s->trigger = trigger;
        s->autorun_id = autorun_id;
        submit_link(m, s);

        r = submit_check_targets(s, error);
        if (r < 0) {
                submit_free(s);
                return r;
        }
        /* Only now: a refusal above is the caller's to report, not done's. */
        s->done = done;
        s->done_userdata = userdata;
        return 0;
}

typedef struct JobLookup {
        uint64_t id;
        char *state;
} JobLookup;

static int lookup_job(const DbJob *dj, void *userdata) {
        JobLookup *l = userdata;

        if (dj->id != l->id)
                return 0;
        l->state = strdup(dj->state ?: "");
        return l->state ? -EEXIST : -ENOMEM; /* stop the walk */
}

/* ---- CancelJob and Job.Cancel ----
 *
 * Root and the user who submitted the job cancel it at once; anyone else needs
 * org.benchd.benchd1.cancel, asked of polkit without waiting. The job is looked up again by its id
 * when polkit answers: it may have ended, or gone, meanwhile. */

static CancelCall *cancel_call_free(CancelCall *c) {
        if (!c)
                return NULL;
        if (c->prev)
                c->prev->next = c->next;
        else if (c->manager)
                c->manager->cancels = c->next;
        if (c->next)
                c->next->prev = c->prev;
        if (c->manager)
                c->manager->n_cancels--;
        polkit_query_free(c->polkit);
        sd_bus_message_unref(c->message);
        free(c);
        return NULL;
}

static void on_cancel_polkit(PolkitQuery *q, int r, const sd_bus_error *perror, void *userdata) {
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        CancelCall *c = userdata;
        Job *j;

        c->polkit = polkit_query_free(c->polkit);
        if (r < 0) {
                log_full(LOG_INFO, "cancelling job %" PRIu64 " by uid %" PRIu32 " refused: %s", c->id, c->uid,
                         perror ? strna(perror->message) : strerror(-r));
                if (perror && sd_bus_error_is_set(perror))
                        (void) sd_bus_reply_method_error(c->message, perror);
                else
                        (void) sd_bus_reply_method_errno(c->message, r, NULL);
                cancel_call_free(c);
                return;
        }
        j = manager_find_job(c->manager, c->id);
        if (!j)
                r = job_error_not_cancellable(&error, c->id, "and is gone, while polkit was asked");
        else
                r = job_cancel_or_error(j, c->uid, &error);
        if (r < 0 && sd_bus_error_is_set(&error))
                (void) sd_bus_reply_method_error(c->message, &error);
        else if (r < 0)
                (void) sd_bus_reply_method_errno(c->message, r, NULL);
        else
                (void) sd_bus_reply_method_return(c->message, NULL);
        cancel_call_free(c);
}

int manager_cancel(Manager *m, sd_bus_message *message, Job *j, sd_bus_error *error) {
        _cleanup_free_ char *id = NULL;
        CancelCall *c;
        uint32_t uid;
        int r;

        r = bus_sender_uid(message, "cancelling jobs", &uid, error);
        if (r < 0)
                return r;
        if (uid == 0 || uid == j->submitted_by) {
                r = job_cancel_or_error(j, uid, error);
                if (r < 0)
                        return r;
                return sd_bus_reply_method_return(message, NULL);
        }
        if (job_state_is_final(job_get_state(j)))
                return job_error_not_cancellable(error, j->id, job_state_to_string(job_get_state(j)));
        if (m->stopping)
                return sd_bus_error_set(error, SD_BUS_ERROR_FAILED, "benchd is shutting down; the job is "
                                        "interrupted anyway");
        if (m->n_cancels >= MANAGER_CANCELS_ASKING_MAX)
                return sd_bus_error_setf(error, SD_BUS_ERROR_LIMITS_EXCEEDED,
                                         "too many cancellations wait for polkit (%u); cancel again once they "
                                         "are answered", MANAGER_CANCELS_ASKING_MAX);
        if (asprintf(&id, "%" PRIu64, j->id) < 0)
                return -ENOMEM;
        c = calloc(1, sizeof(*c));
        if (!c)
                return -ENOMEM;
        c->id = j->id;
        c->uid = uid;
        r = polkit_query_start(m->bus, message, BENCHD_ACTION_CANCEL, "cancelling another user's job",
                               (const char *[]) { "job_id", id, "target", j->spec.target ?: "", NULL },
                               on_cancel_polkit, c, &c->polkit);
        if (r < 0) {
                cancel_call_free(c);
                if (r == -ENOMEM)
                        return r;
                return sd_bus_error_setf(error, SD_BUS_ERROR_ACCESS_DENIED,
                                         "cannot ask polkit whether the caller may cancel job %" PRIu64 ": %s; "
                                         "try again, or run it as root", j->id, strerror(-r));
        }
        c->message = sd_bus_message_ref(message);
        c->manager = m;
        c->next = m->cancels;
        if (m->cancels)
                m->cancels->prev = c;
        m->cancels = c;
        m->n_cancels++;
        return 1;
}

static int method_cancel_job(sd_bus_message *message, void *userdata, sd_bus_error *error) {
        Manager *m = userdata;
        uint64_t id;
        Job *j;
        int r;

        r = sd_bus_message_read(message, "t", &id);
        if (r < 0)
                return r;
        r = manager_check_id(id, "job", "ListJobs shows the queued and running jobs", error);
        if (r < 0)
                return r;
        j = manager_find_job(m, id);
        if (!j) {
                /* Ended long ago: it is in the database only. */
                _cleanup_free_ char *state = NULL;
                JobLookup l = { .id = id };

                (void) db_job_foreach(m->db, NULL, lookup_job, &l);
                state = l.state;
                if (streq_ptr(state, "running"))
                        /* A previous life's, settled once its files are removed (manager_load()). */
                        return sd_bus_error_setf(error, BENCHD_ERROR_NOT_CANCELLABLE,
                                                 "job %" PRIu64 " was running when benchd stopped; it is settled "
                                                 "(interrupted) as soon as its files are removed, nothing to "
                                                 "cancel", id);
                if (state)
                        return job_error_not_cancellable(error, id, state);
        }
        if (!j)
                return sd_bus_error_setf(error, BENCHD_ERROR_NOT_FOUND,
                                         "there is no job %" PRIu64 "; ListJobs shows the queued and "
                                         "running jobs", id);
        return manager_cancel(m, message, j, error);
}

typedef struct ListJobsContext {
        Manager *manager;
        sd_bus_message *reply;
        BusReplyBudget budget;
} ListJobsContext;

static int list_db_job(const DbJob *dj, void *userdata) {
        ListJobsContext *c = userdata;
        Job *j;
        int r;

        r = bus_reply_budget_take(&c->budget, bus_db_job_size(dj));
        if (r < 0)
                return r;
        j = manager_find_job(c->manager, dj->id);
        if (j)
                return job_append_properties(j, c->reply);

        return bus_message_append_db_job(c->reply, dj);
}

static int method_list_jobs(sd_bus_message *message, void *userdata, sd_bus_error *error) {
        Manager *m = userdata;
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        BusJobFilter f = {};
        int r;

        r = bus_message_read_job_filter(message, &f, error);
        if (r < 0)
                return r;
        r = sd_bus_message_new_method_return(message, &reply);
        if (r < 0)
                return r;
        r = sd_bus_message_open_container(reply, 'a', "a{sv}");
        if (r < 0)
                return r;

        if (f.all) {
                /* Oldest first like the rest, but a limit keeps the newest. */
                ListJobsContext c = { .manager = m, .reply = reply };

                r = db_job_foreach_newest(m->db, f.state, f.limit, list_db_job, &c);
                if (c.budget.full)
                        return sd_bus_error_setf(error, SD_BUS_ERROR_LIMITS_EXCEEDED,
                                                 "the jobs asked for do not fit in one reply (%u MiB; %" PRIu64
                                                 " did); give a limit (the newest that many), e.g. limit=%" PRIu64
                                                 ", or read the jobs table of %s with sqlite3",
                                                 BUS_REPLY_BYTES_MAX >> 20, c.budget.n,
                                                 MAX(c.budget.n / 2, UINT64_C(1)), m->db_path);
                if (r < 0)
                        return sd_bus_error_setf(error, SD_BUS_ERROR_FAILED, "cannot read the jobs table: %s",
                                                 strerror(-r));
        } else {
                uint64_t total = 0, n = 0;
                for (Job *j = m->jobs_head; j; j = j->next)
                        if (!f.state || streq(f.state, job_state_to_string(job_get_state(j))))
                                total++;
                for (Job *j = m->jobs_head; j; j = j->next) {
                        if (f.state && !streq(f.state, job_state_to_string(job_get_state(j))))
                                continue;
                        if (f.limit > 0 && total - n++ > f.limit)
                                continue;
                        r = job_append_properties(j, reply);
                        if (r < 0)
                                return r;
                }
        }

        r = sd_bus_message_close_container(reply);
        if (r < 0)
                return r;
        return sd_bus_send(NULL, reply, NULL);
}

static int property_get_version(sd_bus *bus, const char *path, const char *interface,
                                const char *property, sd_bus_message *reply, void *userdata,
                                sd_bus_error *error) {
        return sd_bus_message_append(reply, "s", BENCHD_VERSION);
}

static int property_get_queue_length(sd_bus *bus, const char *path, const char *interface,
                                     const char *property, sd_bus_message *reply, void *userdata,
                                     sd_bus_error *error) {
        return sd_bus_message_append(reply, "u", manager_queue_length(userdata));
}

static int property_get_running_job(sd_bus *bus, const char *path, const char *interface,
                                    const char *property, sd_bus_message *reply, void *userdata,
                                    sd_bus_error *error) {
        Manager *m = userdata;
        return sd_bus_message_append(reply, "t", m->running ? m->running->id : UINT64_C(0));
}

/* ---- PruneSamples ---- */

/* userdata: the call's message, referenced for the reply. */
static void on_prune_done(int r, const DbPrune *result, void *userdata) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *message = userdata;

        if (r == -ECANCELED)
                return; /* benchd is going, and the bus with it */
        if (r < 0) {
                log_warning_errno(r, "PruneSamples: failed after %" PRIu64 " samples of %" PRIu64 " runs: %m",
                                  result->samples, result->runs);
                (void) sd_bus_reply_method_errorf(message, r == -ENOSPC ? BENCHD_ERROR_NO_SPACE : SD_BUS_ERROR_FAILED,
                                                  "the database refused the removal of samples (%s) after %" PRIu64
                                                  " samples of %" PRIu64 " runs were removed; fix that and prune "
                                                  "again", strerror(-r), result->samples, result->runs);
                return;
        }
        log_full(LOG_INFO, "PruneSamples: removed %" PRIu64 " samples of %" PRIu64 " runs that started before %"
                 PRIu64, result->samples, result->runs, result->before_usec);
        (void) sd_bus_reply_method_return(message, "tt", result->runs, result->samples);
}

/* Replied to once the prune is done, which takes steps on the event loop (retention.h). */
static int method_prune_samples(sd_bus_message *message, void *userdata, sd_bus_error *error) {
        Manager *m = userdata;
        uint64_t before;
        uint32_t uid;
        int r;

        r = sd_bus_message_read(message, "t", &before);
        if (r < 0)
                return r;
        r = bus_sender_uid(message, "pruning samples", &uid, error);
        if (r < 0)
                return r;
        /* Removing history is for root alone: no polkit action grants it (yet). */
        if (uid != 0)
                return sd_bus_error_setf(error, SD_BUS_ERROR_ACCESS_DENIED,
                                         "pruning samples needs root (uid 0); you are uid %" PRIu32 ": run "
                                         "benchctl prune as root", uid);
        if (m->stopping)
                return sd_bus_error_set(error, SD_BUS_ERROR_FAILED,
                                        "benchd is shutting down; prune again once it runs");
        if (before == 0 || before > (uint64_t) INT64_MAX)
                return sd_bus_error_setf(error, SD_BUS_ERROR_INVALID_ARGS,
                                         "before_usec %" PRIu64 " is not a point in time; give CLOCK_REALTIME "
                                         "microseconds since the epoch, e.g. now minus 30 days", before);

        r = retention_prune(m->retention, before, on_prune_done, sd_bus_message_ref(message));
        if (r < 0) {
                sd_bus_message_unref(message);
                if (r == -EBUSY)
                        return sd_bus_error_setf(error, BENCHD_ERROR_QUEUE_FULL,
                                                 "%u prunes wait already; prune again once they are answered",
                                                 RETENTION_REQUESTS_MAX);
                return r;
        }
        return 1;
}

static int property_get_database_path(sd_bus *bus, const char *path, const char *interface,
                                      const char *property, sd_bus_message *reply, void *userdata,
                                      sd_bus_error *error) {
        Manager *m = userdata;
        return sd_bus_message_append(reply, "s", m->db_path);
}

/* This host's wall clock, for benchctl's offset measurement of a fleet run (docs/fleet.md "Fleet
 * runs"): read as late as possible, right before the reply goes. */
static int method_get_clock(sd_bus_message *message, void *userdata, sd_bus_error *error) {
        return sd_bus_reply_method_return(message, "t", now_usec(CLOCK_REALTIME));
}

static const sd_bus_vtable manager_vtable[] = {
        SD_BUS_VTABLE_START(0),
        SD_BUS_METHOD_WITH_ARGS("SubmitJob",
                                SD_BUS_ARGS("a{sv}", spec),
                                SD_BUS_RESULT("t", id, "o", job),
                                method_submit_job, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("CancelJob",
                                SD_BUS_ARGS("t", id),
                                SD_BUS_NO_RESULT,
                                method_cancel_job, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("ListJobs",
                                SD_BUS_ARGS("a{sv}", filter),
                                SD_BUS_RESULT("aa{sv}", jobs),
                                method_list_jobs, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("QueryRuns",
                                SD_BUS_ARGS("a{sv}", filter),
                                SD_BUS_RESULT("aa{sv}", runs),
                                method_query_runs, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("GetRun",
                                SD_BUS_ARGS("t", id),
                                SD_BUS_RESULT("a{sv}", run),
                                method_get_run, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("GetSamples",
                                SD_BUS_ARGS("t", run),
                                SD_BUS_RESULT("aa{sv}", samples),
                                method_get_samples, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("GetSamplesPage",
                                SD_BUS_ARGS("t", run, "t", from_ms, "u", limit),
                                SD_BUS_RESULT("aa{sv}", samples, "t", next_ms),
                                method_get_samples_page, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("GetHistogram",
                                SD_BUS_ARGS("t", run),
                                SD_BUS_RESULT("a(tt)", buckets),
                                method_get_histogram, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("CompareRuns",
                                SD_BUS_ARGS("s", by, "a{sv}", filter, "a{sv}", options),
                                SD_BUS_RESULT("as", groups, "s", baseline, "aa{sv}", cells),
                                method_compare_runs, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("PruneSamples",
                                SD_BUS_ARGS("t", before_usec),
                                SD_BUS_RESULT("t", runs, "t", samples),
                                method_prune_samples, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("ImportRuns",
                                SD_BUS_ARGS("s", document),
                                SD_BUS_RESULT("t", imported, "t", skipped),
                                method_import_runs, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("ListProfiles",
                                SD_BUS_NO_ARGS,
                                SD_BUS_RESULT("a(ss)", profiles),
                                method_list_profiles, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("GetProfile",
                                SD_BUS_ARGS("s", name),
                                SD_BUS_RESULT("aa{sv}", steps),
                                method_get_profile, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("GetClock",
                                SD_BUS_NO_ARGS,
                                SD_BUS_RESULT("t", realtime_usec),
                                method_get_clock, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("ListRegressions",
                                SD_BUS_ARGS("a{sv}", filter),
                                SD_BUS_RESULT("aa{sv}", regressions),
                                method_list_regressions, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_SIGNAL_WITH_ARGS("JobRemoved",
                                SD_BUS_ARGS("t", id, "o", job, "s", result),
                                0),
        SD_BUS_SIGNAL_WITH_ARGS("RegressionDetected",
                                SD_BUS_ARGS("t", run, "a{sv}", details),
                                0),
        SD_BUS_PROPERTY("Version", "s", property_get_version, 0, SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("QueueLength", "u", property_get_queue_length, 0,
                        SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("RunningJob", "t", property_get_running_job, 0,
                        SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("DatabasePath", "s", property_get_database_path, 0,
                        SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_VTABLE_END
};

/* How long shutdown waits for the worker to go, and then for the removal of files to end. */
#define MANAGER_STOP_WORKER_USEC (10 * USEC_PER_SEC)
#define MANAGER_STOP_CLEANUP_USEC (50 * USEC_PER_SEC)

static int on_exit_timeout(sd_event_source *s, uint64_t usec, void *userdata) {
        Manager *m = userdata;

        if (!m->running && m->n_cleanups > 0 && !m->stop_extended) {
                /* The worker went in time; the removal of its files may take a while longer. */
                m->stop_extended = true;
                if (sd_event_source_set_time_relative(s, MANAGER_STOP_CLEANUP_USEC) >= 0 &&
                    sd_event_source_set_enabled(s, SD_EVENT_ONESHOT) >= 0)
                        return 0;
        }
        if (m->running)
                log_full(LOG_WARNING, "the worker did not go away in time; exiting anyway");
        for (size_t i = 0; i < m->n_cleanups; i++)
                log_full(LOG_INFO, "job %" PRIu64 ": still removing its files in %s at shutdown; stopping that, remove "
                     "what is left of .benchd-%" PRIu64 "-* there by hand", cleanup_job_id(m->cleanups[i]),
                     CALLER_TEXT(cleanup_target(m->cleanups[i])), cleanup_job_id(m->cleanups[i]));
        return sd_event_exit(m->event, 0);
}

void manager_set_devices(Manager *m, DeviceManager *devices) {
        m->devices = devices;
        m->job_context.devices = devices;
}

void manager_stop(Manager *m) {
        if (m->stopping)
                return;
        m->stopping = true;
        log_full(LOG_INFO, "stopping");
        manager_submits_abort(m);
        manager_imports_abort(m);
        if (!m->running && m->n_cleanups == 0) {
                (void) sd_event_exit(m->event, 0);
                return;
        }
        if (m->running)
                /* The worker gets SIGKILL after 3 s; give up waiting for it after 10 s. */
                job_interrupt(m->running);
        else
                m->stop_extended = true;
        (void) sd_event_add_time_relative(m->event, &m->exit_source, CLOCK_MONOTONIC,
                                          m->running ? MANAGER_STOP_WORKER_USEC : MANAGER_STOP_CLEANUP_USEC, 0,
                                          on_exit_timeout, m);
}

int manager_new(sd_event *event, sd_bus *bus, Db *db, DeviceManager *devices,
                const ManagerConfig *config, Manager **ret) {
        Manager *m;
        size_t n = 0;
        int r;

        m = calloc(1, sizeof(*m));
        if (!m)
                return -ENOMEM;
        m->event = sd_event_ref(event);
        m->bus = sd_bus_ref(bus);
        m->db = db;
        m->devices = devices;
        m->max_queue = config->max_queue;
        m->max_queued_per_user = config->max_queued_per_user;
        m->autorun = config->autorun;
        m->regress = config->regress ? *config->regress : REGRESS_CONFIG_DEFAULT;
        m->db_path = strdup(config->db_path);
        m->worker_path = strdup(config->worker_path);
        if (config->metrics_dir && config->metrics_dir[0])
                m->metrics_dir = strdup(config->metrics_dir);
        m->job_context = (JobContext) {
                .event = m->event,
                .db = db,
                .db_path = m->db_path,
                .devices = devices,
                .worker_path = m->worker_path,
                .step_grace_usec = config->step_grace_usec ?: WORKER_STEP_GRACE_SEC_DEFAULT * USEC_PER_SEC,
                .callbacks = &manager_job_callbacks,
                .userdata = m,
        };
        r = retention_new(event, db, config->sample_retention_days, &m->retention);
        if (r < 0) {
                manager_free(m);
                return r;
        }
        for (char *const *d = config->profile_dirs; *d; d++)
                n++;
        m->profile_dirs = calloc(n + 1, sizeof(char *));
        if (!m->db_path || !m->worker_path || !m->profile_dirs ||
            (config->metrics_dir && config->metrics_dir[0] && !m->metrics_dir)) {
                manager_free(m);
                return -ENOMEM;
        }
        for (size_t i = 0; i < n; i++)
                if (!(m->profile_dirs[i] = strdup(config->profile_dirs[i]))) {
                        manager_free(m);
                        return -ENOMEM;
                }

        r = sd_bus_add_object_vtable(bus, &m->manager_slot, BENCHD_MANAGER_PATH, BENCHD_MANAGER_INTERFACE,
                                     manager_vtable, m);
        if (r >= 0)
                r = sd_bus_add_fallback_vtable(bus, &m->job_slot, BENCHD_JOB_PREFIX, BENCHD_JOB_INTERFACE,
                                               job_vtable, job_object_find, m);
        if (r >= 0)
                r = sd_bus_add_node_enumerator(bus, &m->enumerator_slot, BENCHD_JOB_PREFIX,
                                               job_node_enumerator, m);
        if (r >= 0)
                r = sd_bus_add_object_manager(bus, &m->object_manager_slot, BENCHD_MANAGER_PATH);
        if (r >= 0) {
                r = sd_event_add_defer(event, &m->dispatch_source, on_dispatch, m);
                if (r >= 0)
                        r = sd_event_source_set_enabled(m->dispatch_source, SD_EVENT_OFF);
        }
        if (r >= 0)
                r = manager_autorun_init(m);
        if (r < 0) {
                manager_free(m);
                return r;
        }
        *ret = m;
        return 0;
}

Manager *manager_free(Manager *m) {
        if (!m)
                return NULL;
        while (m->jobs_head) {
                Job *j = m->jobs_head;
                m->jobs_head = j->next;
                job_free(j);
        }
        /* Calls still waiting go unanswered: the bus is going too. Their checks are killed, as
         * are the removals still running. */
        while (m->submits)
                submit_free(m->submits);
        manager_autorun_clear(m);
        manager_metrics_flush(m);
        while (m->cancels)
                cancel_call_free(m->cancels);
        manager_imports_abort(m);
        for (size_t i = 0; i < m->n_cleanups; i++)
                cleanup_free(m->cleanups[i]);
        free(m->cleanups);
        manager_settles_clear(m);
        m->retention = retention_free(m->retention);
        sd_event_source_disable_unref(m->dispatch_source);
        sd_event_source_disable_unref(m->exit_source);
        sd_bus_slot_unref(m->manager_slot);
        sd_bus_slot_unref(m->job_slot);
        sd_bus_slot_unref(m->enumerator_slot);
        sd_bus_slot_unref(m->object_manager_slot);
        sd_bus_unref(m->bus);
        sd_event_unref(m->event);
        free(m->db_path);
        free(m->worker_path);
        free(m->metrics_dir);
        strv_free(m->profile_dirs);
        free(m);
        return NULL;
}
