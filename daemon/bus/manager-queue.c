/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The shell of the queue core (manager-queue.h): what the queue decides (admission and quotas, the
 * stages of a SubmitJob call, which job starts, cancellations, shutdown) is jobs/queue.c's pure
 * core; this file feeds it events and does the actions it answers with (manager_handle()).
 * SubmitJob replies later, once the checks of its targets, which may hang on a slow disk, have
 * come back from a helper process (verdict-query.c), so that the loop never waits for a disk. The
 * scheduler looks at the queue from a defer source so that no job is started from inside a handler
 * or another job's callback. A job tells the Manager that it started, changed or ended through the
 * callbacks here (manager_job_callbacks).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-daemon.h>

#include "bus/bus-polkit.h"
#include "bus/bus-util.h"
#include "bus/job-object.h"
#include "bus/manager-import.h"
#include "bus/manager-internal.h"
#include "bus/manager-metrics.h"
#include "bus/manager-queue.h"
#include "bus/manager-regress.h"
#include "bus/manager.h"
#include "config.h"
#include "jobs/matrix.h"
#include "jobs/queue.h"
#include "jobs/removals.h"
#include "jobs/submit.h"
#include "jobs/verdict-query.h"
#include "shared/log.h"
#include "shared/spec-check.h"

static QueueShell *shell(Manager *m) {
        return manager_queue_shell(m);
}

/* A SubmitJob call on its way in (polkit, the verdicts of its steps, the insert); or benchd's own
 * submission (manager_submit_internal(): no message, done is called instead of a reply). key is the
 * queue core's name of it, 0 until the core admitted it. */
struct Submit {
        Manager *manager;
        Submit *prev, *next;    /* in manager->submits, once admitted */
        uint64_t key;
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

/* A cancellation of another user's job waiting for polkit (see CancelJob below). */
struct CancelCall {
        Manager *manager;
        CancelCall *prev, *next;        /* in manager->cancels */
        uint64_t key;                   /* the queue core's */
        sd_bus_message *message;
        uint64_t id;
        uint32_t uid;
        PolkitQuery *polkit;
};

/* The call an event is handled in, if any: what the core refuses of it (key 0, or the key it was
 * given in this call: sync_key) is returned to the caller through error and r, not replied to. */
typedef struct ManagerCall {
        sd_bus_error *error;
        int r;
        uint64_t sync_key;
        Submit *submit;                 /* SUBMIT: the call's, until the core gives it a key */
        sd_bus_message *message;        /* CANCEL: the call, answered by CANCEL_JOB */
        const char *result;             /* JOB_ENDED: JobRemoved's result */
        const StepVerdict *verdicts;    /* VERDICTS: what INSERT identifies the targets by */
        size_t n_verdicts;
} ManagerCall;

static void manager_handle(Manager *m, const QueueEvent *e, ManagerCall *call);
static Submit *submit_free(Submit *s);
static CancelCall *cancel_call_free(CancelCall *c);

static void manager_emit_changed(Manager *m) {
        (void) sd_bus_emit_properties_changed(manager_bus(m), BENCHD_MANAGER_PATH, BENCHD_MANAGER_INTERFACE,
                                              "QueueLength", "RunningJob", NULL);
}

/* Looks at the queue on the next loop iteration. */
void manager_schedule(Manager *m) {
        if (shell(m)->dispatch_source)
                (void) sd_event_source_set_enabled(shell(m)->dispatch_source, SD_EVENT_ONESHOT);
}

static int on_dispatch(sd_event_source *s, void *userdata) {
        manager_handle(userdata, &(QueueEvent) { .type = QUEUE_EVENT_DISPATCH }, NULL);
        return 0;
}

static void on_removal_done(Removals *r, uint64_t job_id, void *userdata) {
        Manager *m = userdata;

        /* A job a previous life left running is settled now that its files are gone (or the
         * removal gave up: what it could not remove is logged). */
        if (shell(m)->removal_done)
                shell(m)->removal_done(m, job_id);
        manager_handle(m, &(QueueEvent) { .type = QUEUE_EVENT_CLEANUP_DONE }, NULL);
}

/* Removes job_id's files in target (step < 0: of all its steps) in the background, as uid (the
 * submitter: a caller's steps on a directory ran as the caller, so the files are the caller's;
 * cleanup.h); logged, and recorded in pending_removals until it has finished (removals.h). Returns 1
 * when the removal runs (on_removal_done() follows), 0 when there is nothing to remove, a negative
 * errno when it could not be started. */
int manager_cleanup_files(Manager *m, const char *target, uint64_t job_id, int step, uint32_t uid) {
        int r = removals_start(shell(m)->removals, target, job_id, step, uid);

        if (r > 0)
                manager_handle(m, &(QueueEvent) { .type = QUEUE_EVENT_CLEANUP_STARTED }, NULL);
        return r;
}

static void manager_unlink_job(Manager *m, Job *j) {
        if (j->prev)
                j->prev->next = j->next;
        else
                shell(m)->jobs_head = j->next;
        if (j->next)
                j->next->prev = j->prev;
        else
                shell(m)->jobs_tail = j->prev;
        j->prev = j->next = NULL;
}

/* Unlinks an ended job, removes its object (InterfacesRemoved) and frees it. */
static void manager_remove_job(Manager *m, Job *j) {
        job_object_removed(manager_bus(m), j);
        manager_unlink_job(m, j);
        job_free(j);
}

/* ---- what the jobs tell the Manager (JobCallbacks) ---- */

static void on_job_started(Job *j, void *userdata) {
        manager_handle(userdata, &(QueueEvent) { .type = QUEUE_EVENT_JOB_STARTED, .job = j->id }, NULL);
}

static void on_job_ended(Job *j, const char *result, void *userdata) {
        manager_handle(userdata, &(QueueEvent) { .type = QUEUE_EVENT_JOB_ENDED, .job = j->id,
                                                 .state = job_get_state(j) },
                       &(ManagerCall) { .result = result });
}

static void on_job_run_stored(Job *j, uint64_t run_id, void *userdata) {
        manager_check_run(userdata, run_id);
        manager_write_metrics(userdata);
}

static void on_job_changed(Job *j, const char *const *properties, void *userdata) {
        Manager *m = userdata;

        job_object_changed(manager_bus(m), j, properties);
}

static void on_job_schedule(Job *j, void *userdata) {
        manager_schedule(userdata);
}

static void on_job_remove_files(Job *j, const char *target, int step, void *userdata) {
        (void) manager_cleanup_files(userdata, target, j->id, step, j->submitted_by);
}

static void on_job_give_up(Job *j, void *userdata) {
        Manager *m = userdata;

        (void) sd_event_exit(manager_event(m), 0);
}

static void on_job_expired(Job *j, void *userdata) {
        manager_handle(userdata, &(QueueEvent) { .type = QUEUE_EVENT_JOB_EXPIRED, .job = j->id }, NULL);
}

const JobCallbacks manager_job_callbacks = {
        .started = on_job_started,
        .ended = on_job_ended,
        .run_stored = on_job_run_stored,
        .changed = on_job_changed,
        .schedule = on_job_schedule,
        .remove_files = on_job_remove_files,
        .give_up = on_job_give_up,
        .expired = on_job_expired,
};

/* Appends j to the jobs (the core's queue has it in the same order). */
static void manager_link_job(Manager *m, Job *j) {
        j->prev = shell(m)->jobs_tail;
        j->next = NULL;
        if (shell(m)->jobs_tail)
                shell(m)->jobs_tail->next = j;
        else
                shell(m)->jobs_head = j;
        shell(m)->jobs_tail = j;
}

int manager_add_restored(Manager *m, Job *j) {
        ManagerCall call = {};

        manager_link_job(m, j);
        manager_handle(m, &(QueueEvent) { .type = QUEUE_EVENT_RESTORED, .job = j->id, .uid = j->submitted_by }, &call);
        if (call.r < 0) {
                /* Not in the queue: not ours either (the caller frees it). */
                manager_unlink_job(m, j);
                return call.r;
        }
        return 0;
}

void manager_loaded(Manager *m) {
        manager_handle(m, &(QueueEvent) { .type = QUEUE_EVENT_LOADED }, NULL);
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
 * means one password prompt. Which of these a call goes through, and what refuses it, the queue
 * core decides (queue.h); the stages here are its requests. */

static Submit *submit_find(Manager *m, uint64_t key) {
        for (Submit *s = shell(m)->submits; s; s = s->next)
                if (s->key == key)
                        return s;
        return NULL;
}

static Submit *submit_free(Submit *s) {
        if (!s)
                return NULL;
        if (s->manager) {
                /* Linked (only then is manager set). */
                if (s->prev)
                        s->prev->next = s->next;
                else
                        shell(s->manager)->submits = s->next;
                if (s->next)
                        s->next->prev = s->prev;
        }
        polkit_query_free(s->polkit);
        verdict_query_free(s->query);
        spec_array_free(s->steps, s->n_steps);
        spec_clear(&s->spec);
        sd_bus_message_unref(s->message);
        free(s);
        return NULL;
}

/* The call is the Manager's from here, as the core's key: submit_free() unlinks it. */
static void submit_link(Manager *m, Submit *s, uint64_t key) {
        s->key = key;
        s->manager = m;
        s->next = shell(m)->submits;
        if (shell(m)->submits)
                shell(m)->submits->prev = s;
        shell(m)->submits = s;
}

/* INSERT: the job's row and its Job (submit.h), linked last. */
static int submit_do_insert(Submit *s, const ManagerCall *call, Job **ret, const char **ret_error_name,
                            char **ret_text) {
        Job *j;
        int r;

        r = submit_insert(manager_job_context(s->manager), &(SubmitInsert) {
                        .spec = &s->spec,
                        .steps = &s->steps,
                        .n_steps = &s->n_steps,
                        .uid = s->uid,
                        .trigger = s->trigger,
                        .autorun_id = s->autorun_id,
                        .verdicts = call->verdicts,
                        .n_verdicts = call->n_verdicts,
                }, &j, ret_error_name, ret_text);
        if (r < 0)
                return r;
        manager_link_job(s->manager, j);
        *ret = j;
        return 0;
}

/* The verdicts of a submission's targets are back: the core decides, and asks for the insert. */
static void on_submit_verdicts(VerdictQuery *q, StepVerdict *verdicts, size_t n, void *userdata) {
        Submit *s = userdata;

        manager_handle(s->manager, &(QueueEvent) {
                        .type = QUEUE_EVENT_VERDICTS,
                        .key = s->key,
                        .verdicts = verdicts,
                        .n_verdicts = n,
                        .spec = &s->spec,
                        .steps = s->steps,
                        .n_steps = s->n_steps,
                }, &(ManagerCall) { .verdicts = verdicts, .n_verdicts = n });
}

/* CHECK_TARGETS: the checks of the job's targets, in a helper process; on_submit_verdicts() follows. */
static int submit_check_targets(Submit *s) {
        Manager *m = s->manager;
        int r;

        if (spec_is_matrix(&s->spec)) {
                /* Each device once, as a destructive write to it; the first also carries the
                 * matrix, whose tools, layout and mkfs options are tried on image files. */
                JobSpec *units = NULL;
                size_t n_units = 0;

                r = matrix_member_specs(&s->spec, true, &units, &n_units);
                if (r >= 0)
                        r = verdict_query_start(manager_event(m), manager_job_context(m)->devices, units, NULL, n_units,
                                                &(VerdictOptions) { .worker_path = manager_job_context(m)->worker_path },
                                                VERDICT_QUERY_TIMEOUT_USEC, on_submit_verdicts, s, &s->query);
                spec_array_free(units, n_units);
        } else
                r = verdict_query_start(manager_event(m), manager_job_context(m)->devices, s->steps, NULL, s->n_steps,
                                        &(VerdictOptions) { .caller_uid = s->uid }, VERDICT_QUERY_TIMEOUT_USEC, on_submit_verdicts, s, &s->query);
        if (r < 0)
                log_warning_errno(r, "cannot start checking target %s: %m", CALLER_TEXT(s->spec.target));
        return r;
}

static void on_submit_polkit(PolkitQuery *q, int r, const sd_bus_error *perror, void *userdata) {
        Submit *s = userdata;
        bool named = r < 0 && perror && sd_bus_error_is_set(perror);

        s->polkit = polkit_query_free(s->polkit);
        if (r < 0)
                log_full(LOG_INFO, "SubmitJob by uid %" PRIu32 " refused: %s", s->uid,
                         bus_error_text(perror, r));
        manager_handle(s->manager, &(QueueEvent) {
                        .type = QUEUE_EVENT_POLKIT,
                        .key = s->key,
                        .error = MIN(r, 0),
                        .error_name = named ? perror->name : NULL,
                        .text = named ? perror->message : NULL,
                }, NULL);
}

/* The action a job needs (see above). */
static const char *submit_action(const JobSpec *spec) {
        return spec->destructive || spec_is_matrix(spec) ? BENCHD_ACTION_DESTRUCTIVE : BENCHD_ACTION_SUBMIT;
}

/* ASK_POLKIT. */
static int submit_ask_polkit(Manager *m, Submit *s) {
        const char *details[] = {
                "target", s->spec.target ?: "",
                s->spec.profile ? "profile" : "workload",
                s->spec.profile ?: workload_to_string(s->spec.workload) ?: "",
                NULL,
        };

        return polkit_query_start(manager_bus(m), s->message, submit_action(&s->spec), "submitting this job", details,
                                  on_submit_polkit, s, &s->polkit);
}

/* REFUSE of s: answered with the refusal (or the internal submitter told); freed. */
static void submit_refuse(Submit *s, const QueueAction *x) {
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        /* The core's errno, not the error name's: -ECANCELED tells the internal submitter that benchd
         * stops (manager-autorun.c tries again at the next start). */
        int r = x->error;

        if (x->error_name)
                (void) sd_bus_error_set(&error, x->error_name, x->text);
        if (!s->message) {
                if (s->done)
                        s->done(s->manager, r, 0, sd_bus_error_is_set(&error) ? error.message : NULL, s->done_userdata);
        } else if (sd_bus_error_is_set(&error))
                (void) sd_bus_reply_method_error(s->message, &error);
        else
                (void) sd_bus_reply_method_errno(s->message, r, NULL);
        submit_free(s);
}

/* REPLY of s: its job is queued. */
static void submit_reply(Submit *s, Job *j) {
        Manager *m = s->manager;
        int r;

        log_full(LOG_INFO, "job %" PRIu64 " queued by uid %" PRIu32 " (triggered by %s): %s", j->id, s->uid,
                 job_trigger_to_string(s->trigger), j->spec_json);
        if (!s->message) {
                if (s->done)
                        s->done(m, 0, j->id, NULL, s->done_userdata);
                s->done = NULL;
        } else {
                r = sd_bus_reply_method_return(s->message, "to", j->id, j->path);
                if (r < 0)
                        log_warning_errno(r, "job %" PRIu64 ": cannot answer the SubmitJob call that queued it: %m",
                                          j->id);
        }
        submit_free(s);
}

/* Hands s (its spec and steps read) to the core: admitted, it is the Manager's; refused, freed
 * with the refusal in error. Returns what the handler returns. */
static int submit_enter(Manager *m, Submit *s, bool internal, sd_bus_error *error) {
        ManagerCall call = { .error = error, .submit = s };

        manager_handle(m, &(QueueEvent) { .type = QUEUE_EVENT_SUBMIT, .uid = s->uid, .internal = internal }, &call);
        if (call.submit)
                /* Refused before it got a key. */
                submit_free(call.submit);
        return call.r < 0 ? call.r : 1;
}

int manager_submit_call(Manager *m, sd_bus_message *message, uint32_t uid, JobSpec *spec, JobSpec *steps,
                        size_t n_steps, sd_bus_error *error) {
        Submit *s;

        s = calloc(1, sizeof(*s));
        if (!s) {
                spec_array_free(steps, n_steps);
                spec_clear(spec);
                return -ENOMEM;
        }
        s->spec = *spec;
        spec_init(spec);
        s->steps = steps;
        s->n_steps = n_steps;
        s->uid = uid;
        s->message = sd_bus_message_ref(message);
        return submit_enter(m, s, false, error);
}

int manager_submit_internal(Manager *m, JobSpec *spec, JobSpec *steps, size_t n_steps, JobTrigger trigger,
                            int64_t autorun_id, ManagerSubmitDone done, void *userdata, sd_bus_error *error) {
        Submit *s;
        int r;

        s = calloc(1, sizeof(*s));
        if (!s) {
                spec_array_free(steps, n_steps);
                spec_clear(spec);
                return -ENOMEM;
        }
        s->spec = *spec;
        spec_init(spec);
        s->steps = steps;
        s->n_steps = n_steps;
        s->uid = 0;
        s->trigger = trigger;
        s->autorun_id = autorun_id;

        r = submit_enter(m, s, true, error);
        if (r < 0)
                return r;
        /* Only now: a refusal above is the caller's to report, not done's. */
        s->done = done;
        s->done_userdata = userdata;
        return 0;
}

/* ---- CancelJob and Job.Cancel ----
 *
 * Root and the user who submitted the job cancel it at once; anyone else needs
 * org.benchd.benchd1.cancel, asked of polkit without waiting (the core decides which). The job is
 * looked up again by its id when polkit answers: it may have ended, or gone, meanwhile. */

static CancelCall *cancel_find(Manager *m, uint64_t key) {
        for (CancelCall *c = shell(m)->cancels; c; c = c->next)
                if (c->key == key)
                        return c;
        return NULL;
}

static CancelCall *cancel_call_free(CancelCall *c) {
        if (!c)
                return NULL;
        if (c->prev)
                c->prev->next = c->next;
        else if (c->manager)
                shell(c->manager)->cancels = c->next;
        if (c->next)
                c->next->prev = c->prev;
        polkit_query_free(c->polkit);
        sd_bus_message_unref(c->message);
        free(c);
        return NULL;
}

static void on_cancel_polkit(PolkitQuery *q, int r, const sd_bus_error *perror, void *userdata) {
        CancelCall *c = userdata;
        bool named = r < 0 && perror && sd_bus_error_is_set(perror);

        c->polkit = polkit_query_free(c->polkit);
        if (r < 0)
                log_full(LOG_INFO, "cancelling job %" PRIu64 " by uid %" PRIu32 " refused: %s", c->id, c->uid,
                         bus_error_text(perror, r));
        manager_handle(c->manager, &(QueueEvent) {
                        .type = QUEUE_EVENT_CANCEL_POLKIT,
                        .key = c->key,
                        .error = MIN(r, 0),
                        .error_name = named ? perror->name : NULL,
                        .text = named ? perror->message : NULL,
                }, NULL);
}

/* ASK_POLKIT_CANCEL: 0, or a negative errno when polkit cannot be asked. */
static int cancel_ask_polkit(Manager *m, const QueueAction *x, sd_bus_message *message) {
        _cleanup_free_ char *id = NULL;
        Job *j = manager_find_job(m, x->job);
        CancelCall *c;
        int r;

        if (!j || !message)
                return -ESRCH;
        if (asprintf(&id, "%" PRIu64, j->id) < 0)
                return -ENOMEM;
        c = calloc(1, sizeof(*c));
        if (!c)
                return -ENOMEM;
        c->key = x->key;
        c->id = j->id;
        c->uid = x->uid;
        r = polkit_query_start(manager_bus(m), message, BENCHD_ACTION_CANCEL, "cancelling another user's job",
                               (const char *[]) { "job_id", id, "target", j->spec.target ?: "", NULL },
                               on_cancel_polkit, c, &c->polkit);
        if (r < 0) {
                cancel_call_free(c);
                return r;
        }
        c->message = sd_bus_message_ref(message);
        c->manager = m;
        c->next = shell(m)->cancels;
        if (shell(m)->cancels)
                shell(m)->cancels->prev = c;
        shell(m)->cancels = c;
        return 0;
}

int manager_cancel(Manager *m, sd_bus_message *message, Job *j, sd_bus_error *error) {
        ManagerCall call = { .error = error, .message = message };
        uint32_t uid;
        int r;

        r = bus_sender_uid(message, "cancelling jobs", &uid, error);
        if (r < 0)
                return r;
        manager_handle(m, &(QueueEvent) { .type = QUEUE_EVENT_CANCEL, .job = j->id, .uid = uid }, &call);
        return call.r < 0 ? call.r : 1;
}

/* ---- the shell of the queue core ---- */

/* A refusal for the call being handled: returned through call->error. */
static void call_refuse(ManagerCall *call, const QueueAction *x) {
        if (!call || !call->error)
                return;
        call->r = x->error_name ? sd_bus_error_set(call->error, x->error_name, x->text) : x->error;
}

static bool call_is_sync(const ManagerCall *call, uint64_t key) {
        return call && (key == 0 || key == call->sync_key);
}

/* CANCEL_JOB: the job is cancelled now, and the call (of the event, or a CancelCall's) answered. */
static void do_cancel_job(Manager *m, const QueueAction *x, ManagerCall *call) {
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        Job *j = manager_find_job(m, x->job);
        CancelCall *c = x->key ? cancel_find(m, x->key) : NULL;
        int r;

        if (!c) {
                /* The handler's own call: its error is returned. */
                if (!call || !call->message)
                        return;
                r = j ? job_cancel_or_error(j, x->uid, call->error) : -ESRCH;
                call->r = r < 0 ? r : sd_bus_reply_method_return(call->message, NULL);
                return;
        }
        r = j ? job_cancel_or_error(j, x->uid, &error) : -ESRCH;
        if (r < 0 && sd_bus_error_is_set(&error))
                (void) sd_bus_reply_method_error(c->message, &error);
        else if (r < 0)
                (void) sd_bus_reply_method_errno(c->message, r, NULL);
        else
                (void) sd_bus_reply_method_return(c->message, NULL);
        cancel_call_free(c);
}

/* REFUSE_CANCEL of a CancelCall. */
static void cancel_refuse(CancelCall *c, const QueueAction *x) {
        if (x->error_name)
                (void) sd_bus_reply_method_errorf(c->message, x->error_name, "%s", x->text);
        else
                (void) sd_bus_reply_method_errno(c->message, x->error, NULL);
        cancel_call_free(c);
}

/* How the shutdown ends: the loop exits, and what is left is logged. */
static void do_exit(Manager *m, const QueueAction *x) {
        if (x->worker)
                log_full(LOG_WARNING, "the worker did not go away in time; exiting anyway");
        removals_log_abandoned(shell(m)->removals);
        (void) sd_event_exit(manager_event(m), 0);
}

static int on_exit_timeout(sd_event_source *s, uint64_t usec, void *userdata) {
        manager_handle(userdata, &(QueueEvent) { .type = QUEUE_EVENT_EXIT_TIMEOUT }, NULL);
        return 0;
}

static void do_arm_exit(Manager *m, const QueueAction *x) {
        if (!shell(m)->exit_source) {
                (void) sd_event_add_time_relative(manager_event(m), &shell(m)->exit_source, CLOCK_MONOTONIC, x->usec, 0,
                                                  on_exit_timeout, m);
                return;
        }
        if (sd_event_source_set_time_relative(shell(m)->exit_source, x->usec) < 0 ||
            sd_event_source_set_enabled(shell(m)->exit_source, SD_EVENT_ONESHOT) < 0)
                /* Cannot wait longer: go now. */
                do_exit(m, &(QueueAction) { .type = QUEUE_ACTION_EXIT });
}

/* Feeds e to the queue core and does what it answers; the outcome of a request is fed back at once
 * when it is known at once (a query that cannot start, the insert). call: the call e is handled in,
 * or NULL for an event of the loop. */
static void manager_handle(Manager *m, const QueueEvent *e, ManagerCall *call) {
        QueueActions a;
        int r;

        r = queue_handle(&shell(m)->queue, e, &a);
        if (r < 0) {
                log_warning_errno(r, "the queue refused event %s: %m", strna(queue_event_type_to_string(e->type)));
                if (call)
                        call->r = r;
                return;
        }
        for (size_t i = 0; i < a.n; i++) {
                const QueueAction *x = &a.actions[i];
                Submit *s = NULL;
                Job *j = x->job ? manager_find_job(m, x->job) : NULL;

                switch (x->type) {
                case QUEUE_ACTION_ASK_POLKIT:
                case QUEUE_ACTION_CHECK_TARGETS:
                case QUEUE_ACTION_INSERT:
                case QUEUE_ACTION_REFUSE:
                case QUEUE_ACTION_REPLY:
                        s = x->key ? submit_find(m, x->key) : NULL;
                        if (!s && call && call->submit && x->type != QUEUE_ACTION_REFUSE) {
                                /* Admitted: the call's Submit is the Manager's now. */
                                s = TAKE_PTR(call->submit);
                                submit_link(m, s, x->key);
                                call->sync_key = x->key;
                        }
                        break;
                default:
                        break;
                }

                switch (x->type) {
                case QUEUE_ACTION_ASK_POLKIT:
                        r = s ? submit_ask_polkit(m, s) : -ESRCH;
                        if (r < 0)
                                manager_handle(m, &(QueueEvent) { .type = QUEUE_EVENT_POLKIT_FAILED, .key = x->key,
                                                                  .error = r }, call);
                        break;
                case QUEUE_ACTION_CHECK_TARGETS:
                        r = s ? submit_check_targets(s) : -ESRCH;
                        if (r < 0)
                                manager_handle(m, &(QueueEvent) { .type = QUEUE_EVENT_CHECK_FAILED, .key = x->key,
                                                                  .error = r, .target = s ? s->spec.target : NULL },
                                               call);
                        break;
                case QUEUE_ACTION_INSERT: {
                        _cleanup_free_ char *text = NULL;
                        const char *name = NULL;

                        j = NULL;
                        r = s && call ? submit_do_insert(s, call, &j, &name, &text) : -ESRCH;
                        if (r < 0)
                                manager_handle(m, &(QueueEvent) { .type = QUEUE_EVENT_INSERT_FAILED, .key = x->key,
                                                                  .error = r, .error_name = name, .text = text },
                                               call);
                        else
                                manager_handle(m, &(QueueEvent) { .type = QUEUE_EVENT_INSERTED, .key = x->key,
                                                                  .job = j->id }, call);
                        break;
                }
                case QUEUE_ACTION_REFUSE:
                        if (!s && call && call->submit) {
                                /* Refused before it got a key: submit_enter() frees it. */
                                call_refuse(call, x);
                                break;
                        }
                        if (!s)
                                break;
                        if (call_is_sync(call, x->key) && (s->message || !s->done)) {
                                /* Refused within the call that made it: the caller is answered. */
                                call_refuse(call, x);
                                submit_free(s);
                        } else
                                submit_refuse(s, x);
                        break;
                case QUEUE_ACTION_REPLY:
                        if (s && j)
                                submit_reply(s, j);
                        break;
                case QUEUE_ACTION_JOB_QUEUED:
                        if (j)
                                job_object_added(manager_bus(m), j);
                        break;
                case QUEUE_ACTION_CHANGED:
                        manager_emit_changed(m);
                        break;
                case QUEUE_ACTION_SCHEDULE:
                        manager_schedule(m);
                        break;
                case QUEUE_ACTION_START:
                        if (j)
                                job_start(j);
                        break;
                case QUEUE_ACTION_NOTIFY_RUNNING:
                        (void) sd_notifyf(false, "STATUS=Running job %" PRIu64 " (%u queued)", x->job, x->n);
                        break;
                case QUEUE_ACTION_NOTIFY_IDLE:
                        (void) sd_notifyf(false, "STATUS=Idle (%u queued)", x->n);
                        break;
                case QUEUE_ACTION_JOB_REMOVED:
                        if (j)
                                (void) sd_bus_emit_signal(manager_bus(m), BENCHD_MANAGER_PATH, BENCHD_MANAGER_INTERFACE,
                                                          "JobRemoved", "tos", j->id, j->path,
                                                          call && call->result ? call->result
                                                                               : job_state_to_string(job_get_state(j)));
                        break;
                case QUEUE_ACTION_WRITE_METRICS:
                        manager_write_metrics(m);
                        break;
                case QUEUE_ACTION_FORGET_JOB:
                        if (j)
                                manager_remove_job(m, j);
                        break;
                case QUEUE_ACTION_CANCEL_JOB:
                        do_cancel_job(m, x, call);
                        break;
                case QUEUE_ACTION_REFUSE_CANCEL: {
                        CancelCall *c = x->key ? cancel_find(m, x->key) : NULL;

                        if (c)
                                cancel_refuse(c, x);
                        else if (call_is_sync(call, x->key))
                                call_refuse(call, x);
                        break;
                }
                case QUEUE_ACTION_ASK_POLKIT_CANCEL:
                        r = cancel_ask_polkit(m, x, call ? call->message : NULL);
                        if (r < 0) {
                                if (call)
                                        call->sync_key = x->key;
                                manager_handle(m, &(QueueEvent) { .type = QUEUE_EVENT_CANCEL_POLKIT_FAILED,
                                                                  .key = x->key, .error = r }, call);
                        } else if (call)
                                call->r = 1;
                        break;
                case QUEUE_ACTION_STOPPING:
                        log_full(LOG_INFO, "stopping");
                        manager_imports_abort(m);
                        break;
                case QUEUE_ACTION_INTERRUPT:
                        if (j)
                                /* The worker gets SIGKILL after 3 s. */
                                job_interrupt(j);
                        break;
                case QUEUE_ACTION_ARM_EXIT:
                        do_arm_exit(m, x);
                        break;
                case QUEUE_ACTION_EXIT:
                        do_exit(m, x);
                        break;
                default:
                        break;
                }
        }
}

/* SIGTERM: the core refuses what waits, interrupts the running job and arms the bound. */
void manager_stop(Manager *m) {
        manager_handle(m, &(QueueEvent) { .type = QUEUE_EVENT_STOP }, NULL);
}

bool manager_removing_all(Manager *m, uint64_t job_id, const char *target) {
        return removals_has_all(shell(m)->removals, job_id, target);
}

int manager_queue_init(Manager *m, const QueueConfig *config, Db *db) {
        queue_init(&shell(m)->queue, config);
        return removals_new(manager_event(m), db, on_removal_done, m, &shell(m)->removals);
}

int manager_queue_start(Manager *m) {
        int r;

        r = sd_event_add_defer(manager_event(m), &shell(m)->dispatch_source, on_dispatch, m);
        if (r < 0)
                return r;
        return sd_event_source_set_enabled(shell(m)->dispatch_source, SD_EVENT_OFF);
}

void manager_queue_drop_jobs(Manager *m) {
        QueueShell *q = shell(m);

        while (q->jobs_head) {
                Job *j = q->jobs_head;
                q->jobs_head = j->next;
                job_free(j);
        }
        q->jobs_tail = NULL;
        /* Their checks are killed. */
        while (q->submits)
                submit_free(q->submits);
}

void manager_queue_clear(Manager *m) {
        QueueShell *q = shell(m);

        while (q->cancels)
                cancel_call_free(q->cancels);
        /* The removals still running are killed. */
        q->removals = removals_free(q->removals);
        queue_clear(&q->queue);
        q->dispatch_source = sd_event_source_disable_unref(q->dispatch_source);
        q->exit_source = sd_event_source_disable_unref(q->exit_source);
}
