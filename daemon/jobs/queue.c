/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The queue core (queue.h): one function per event. The rules it keeps:
 *   - Nothing is asked or forked for a submission that cannot be queued anyway: the bounds are
 *     checked before polkit is asked, and again once the targets are judged (the queue may have
 *     filled meanwhile); a caller's calls still being checked count against its quota.
 *   - A refusal names what was wrong and what would be right.
 *   - One job runs at a time, the oldest queued first, and none while files of an ended step are
 *     being removed (no benchmark measures that unlinking) or benchd stops.
 *   - At shutdown every call still waiting is answered; the loop exits once the worker and the
 *     removals are gone, or after QUEUE_STOP_WORKER_USEC (then QUEUE_STOP_CLEANUP_USEC more for
 *     the removals).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobs/matrix.h"
#include "jobs/queue.h"
#include "shared/bus-names.h"
#include "shared/strv.h"
#include "shared/util.h"


void queue_init(Queue *q, const QueueConfig *config) {
        *q = (Queue) { .config = *config, .next_key = 1 };
}

void queue_clear(Queue *q) {
        free(q->jobs);
        free(q->text);
        *q = (Queue) { .config = q->config, .next_key = 1 };
}

/* q->text = the formatted message (NULL without memory: the errno alone is then said). */
static const char *set_text(Queue *q, const char *fmt, ...) _printf_(2, 3);
static const char *set_text(Queue *q, const char *fmt, ...) {
        va_list ap;
        char *s;

        va_start(ap, fmt);
        if (vasprintf(&s, fmt, ap) < 0)
                s = NULL;
        va_end(ap);
        free(q->text);
        q->text = s;
        return s;
}

static QueueAction *push(QueueActions *a, QueueActionType type) {
        QueueAction *x;

        /* A fixed bound: see QUEUE_ACTIONS_MAX. */
        if (a->n >= QUEUE_ACTIONS_MAX)
                abort();
        x = &a->actions[a->n++];
        *x = (QueueAction) { .type = type };
        return x;
}

unsigned queue_length(const Queue *q) {
        unsigned n = 0;

        for (size_t i = 0; i < q->n_jobs; i++)
                if (q->jobs[i].state == JOB_QUEUED)
                        n++;
        return n;
}

const QueueJob *queue_find(const Queue *q, uint64_t id) {
        for (size_t i = 0; i < q->n_jobs; i++)
                if (q->jobs[i].id == id)
                        return &q->jobs[i];
        return NULL;
}

bool queue_is_stopping(const Queue *q) {
        return q->stopping;
}

int queue_not_cancellable_text(uint64_t id, const char *state, char **ret) {
        if (asprintf(ret, "job %" PRIu64 " has already ended (%s); only queued or running jobs can be cancelled",
                     id, state) < 0)
                return -ENOMEM;
        return 0;
}

static QueueJob *find_job(Queue *q, uint64_t id) {
        return (QueueJob *) queue_find(q, id);
}

static QueueSubmit *find_submit(Queue *q, uint64_t key) {
        for (unsigned i = 0; i < q->n_submits; i++)
                if (q->submits[i].key == key)
                        return &q->submits[i];
        return NULL;
}

static QueueCancel *find_cancel(Queue *q, uint64_t key) {
        for (unsigned i = 0; i < q->n_cancels; i++)
                if (q->cancels[i].key == key)
                        return &q->cancels[i];
        return NULL;
}

static void forget_submit(Queue *q, const QueueSubmit *s) {
        size_t i = (size_t) (s - q->submits);

        memmove(&q->submits[i], &q->submits[i + 1], (q->n_submits - i - 1) * sizeof(QueueSubmit));
        q->n_submits--;
}

static void forget_cancel(Queue *q, const QueueCancel *c) {
        size_t i = (size_t) (c - q->cancels);

        memmove(&q->cancels[i], &q->cancels[i + 1], (q->n_cancels - i - 1) * sizeof(QueueCancel));
        q->n_cancels--;
}

static void refuse(QueueActions *a, uint64_t key, int error, const char *error_name, const char *text) {
        QueueAction *x = push(a, QUEUE_ACTION_REFUSE);

        x->key = key;
        x->error = error;
        /* Without the message (no memory), the errno alone. */
        x->error_name = text ? error_name : NULL;
        x->text = error_name ? text : NULL;
        if (!x->text)
                x->error = error ?: -ENOMEM;
}

static void refuse_cancel(QueueActions *a, uint64_t key, int error, const char *error_name, const char *text) {
        refuse(a, key, error, error_name, text);
        a->actions[a->n - 1].type = QUEUE_ACTION_REFUSE_CANCEL;
}

/* The queued jobs of uid, and (with_submits) its submissions on their way in. */
static unsigned user_queued(const Queue *q, uint32_t uid, bool with_submits) {
        unsigned n = 0;

        for (size_t i = 0; i < q->n_jobs; i++)
                if (q->jobs[i].state == JOB_QUEUED && q->jobs[i].uid == uid)
                        n++;
        for (unsigned i = 0; with_submits && i < q->n_submits; i++)
                if (q->submits[i].uid == uid)
                        n++;
        return n;
}

/* MaxQueue, then MaxQueuedJobsPerUser=: no user but root (which the queue's own bound holds) fills
 * the queue alone. 0, or -EBUSY with the refusal's text in q->text. */
static int check_bounds(Queue *q, uint32_t uid, bool with_submits) {
        unsigned n;

        if (queue_length(q) >= q->config.max_queue) {
                set_text(q, "the queue is full (%u jobs waiting); wait for jobs to finish or cancel some",
                         q->config.max_queue);
                return -EBUSY;
        }
        if (uid == 0 || q->config.max_queued_per_user == 0)
                return 0;
        n = user_queued(q, uid, with_submits);
        if (n >= q->config.max_queued_per_user) {
                set_text(q, "user %" PRIu32 " has %u jobs queued, at most %u; wait for them to run or cancel some "
                         "(benchctl jobs, benchctl cancel ID), or raise MaxQueuedJobsPerUser= in benchd.conf",
                         uid, n, q->config.max_queued_per_user);
                return -EBUSY;
        }
        return 0;
}

/* Ensures room for one more job (admitted submissions have theirs: INSERTED cannot fail). */
static int reserve_job(Queue *q, size_t more) {
        QueueJob *n;
        size_t want = q->n_jobs + more;

        if (want <= q->n_allocated)
                return 0;
        want = MAX(want, q->n_allocated * 2);
        n = realloc(q->jobs, want * sizeof(QueueJob));
        if (!n)
                return -ENOMEM;
        q->jobs = n;
        q->n_allocated = want;
        return 0;
}

static void schedule(QueueActions *a) {
        push(a, QUEUE_ACTION_SCHEDULE);
}

static void changed(QueueActions *a) {
        push(a, QUEUE_ACTION_CHANGED);
}

/* The loop exits once the worker and the removals are gone. */
static void exit_if_done(Queue *q, QueueActions *a) {
        if (q->stopping && q->running == 0 && q->n_cleanups == 0)
                push(a, QUEUE_ACTION_EXIT);
}

/* ---- the submit pipeline ---- */

static int on_submit(Queue *q, const QueueEvent *e, QueueActions *a) {
        uint32_t uid = e->internal ? 0 : e->uid;
        QueueSubmit *s;
        int r;

        if (q->stopping) {
                refuse(a, 0, -ECANCELED, QUEUE_ERROR_FAILED,
                       e->internal ? "benchd is shutting down" : QUEUE_MSG_SUBMIT_STOPPING);
                return 0;
        }
        /* The order of the checks is the order they were made in before they were here, so that
         * a caller reads the same refusal. */
        if (e->internal && q->n_submits >= QUEUE_SUBMITS_MAX) {
                refuse(a, 0, -EBUSY, BENCHD_ERROR_QUEUE_FULL,
                       set_text(q, "%u SubmitJob calls wait for the check of their targets already",
                                QUEUE_SUBMITS_MAX));
                return 0;
        }
        if (check_bounds(q, e->internal ? 0 : uid, !e->internal) < 0) {
                refuse(a, 0, -EBUSY, BENCHD_ERROR_QUEUE_FULL, q->text);
                return 0;
        }
        if (q->n_submits >= QUEUE_SUBMITS_MAX) {
                refuse(a, 0, -EBUSY, BENCHD_ERROR_QUEUE_FULL,
                       set_text(q, "too many jobs being checked (%u SubmitJob calls wait for their authorisation "
                                "or the check of their targets); submit again once they are answered",
                                QUEUE_SUBMITS_MAX));
                return 0;
        }
        /* Its job's place, so that INSERTED cannot fail. */
        r = reserve_job(q, q->n_submits + 1);
        if (r < 0)
                return r;

        s = &q->submits[q->n_submits++];
        *s = (QueueSubmit) {
                .key = q->next_key++,
                .uid = uid,
                .internal = e->internal,
                /* Root may; anyone else is asked of polkit, without waiting for it. */
                .stage = uid == 0 ? QUEUE_SUBMIT_CHECKING : QUEUE_SUBMIT_POLKIT,
        };
        push(a, s->stage == QUEUE_SUBMIT_CHECKING ? QUEUE_ACTION_CHECK_TARGETS : QUEUE_ACTION_ASK_POLKIT)->key = s->key;
        return 0;
}

static int on_polkit(Queue *q, const QueueEvent *e, QueueActions *a) {
        QueueSubmit *s = find_submit(q, e->key);
        uint64_t key = e->key;

        if (!s || s->stage != QUEUE_SUBMIT_POLKIT)
                return -EINVAL;
        if (e->type == QUEUE_EVENT_POLKIT_FAILED) {
                forget_submit(q, s);
                if (e->error == -ENOMEM)
                        refuse(a, key, -ENOMEM, NULL, NULL);
                else
                        refuse(a, key, e->error, QUEUE_ERROR_ACCESS_DENIED,
                       set_text(q, "cannot ask polkit whether the caller may submit jobs: %s; try again, or run "
                                "it as root", strerror(-e->error)));
                return 0;
        }
        if (e->error < 0) {
                forget_submit(q, s);
                /* polkit's own words, or the errno alone. */
                refuse(a, key, e->error, e->error_name, e->text);
                return 0;
        }
        s->stage = QUEUE_SUBMIT_CHECKING;
        push(a, QUEUE_ACTION_CHECK_TARGETS)->key = key;
        return 0;
}

static int on_check_failed(Queue *q, const QueueEvent *e, QueueActions *a) {
        QueueSubmit *s = find_submit(q, e->key);

        if (!s || s->stage != QUEUE_SUBMIT_CHECKING)
                return -EINVAL;
        forget_submit(q, s);
        if (e->error == -ENOMEM)
                refuse(a, e->key, -ENOMEM, NULL, NULL);
        else
                refuse(a, e->key, e->error, QUEUE_ERROR_FAILED,
                       set_text(q, "cannot start checking target %s: %s; submit the job again",
                                CALLER_TEXT(e->target), strerror(-e->error)));
        return 0;
}

/* What a refusal of verdict i of the n of a submission names first: for a job of several steps the
 * step ("step 1 (read): "); for a filesystem matrix, judged device by device, the device, in the
 * order of devices= ("device 2 of 2, /dev/loop5: "). Nothing for a single verdict. */
static void verdict_prefix(const QueueEvent *e, size_t i, char *buf, size_t size) {
        buf[0] = 0;
        if (e->n_verdicts <= 1 || !e->spec)
                return;
        if (spec_is_matrix(e->spec) && i < strv_length(e->spec->devices))
                snprintf(buf, size, "device %zu of %zu, %s: ", i + 1, e->n_verdicts, CALLER_TEXT(e->spec->devices[i]));
        else if (!spec_is_matrix(e->spec) && i < e->n_steps && e->steps)
                snprintf(buf, size, "step %zu (%s): ", i, strna(workload_to_string(e->steps[i].workload)));
}

static int on_verdicts(Queue *q, const QueueEvent *e, QueueActions *a) {
        QueueSubmit *s = find_submit(q, e->key);
        uint64_t key = e->key;

        if (!s || s->stage != QUEUE_SUBMIT_CHECKING)
                return -EINVAL;
        /* The first step (or device) refused says why. */
        for (size_t i = 0; i < e->n_verdicts; i++) {
                const StepVerdict *v = &e->verdicts[i];
                char pfx[256];

                if (!v->error_name)
                        continue;
                forget_submit(q, s);
                if (v->error == -ENOMEM || !v->reason)
                        refuse(a, key, -ENOMEM, NULL, NULL);
                else {
                        verdict_prefix(e, i, pfx, sizeof(pfx));
                        refuse(a, key, v->error ?: -EINVAL, v->error_name, set_text(q, "%s%s", pfx, v->reason));
                }
                return 0;
        }
        /* partitions=: each entry after the first finds the table the job wrote on the devices,
         * and the verdict accepts a partition table only on a scratch device. Said now, not at
         * the second entry. The verdicts are the matrix's devices, one each, in order. */
        for (size_t i = 0; e->spec && e->spec->partitions && spec_is_matrix(e->spec) && i < e->n_verdicts; i++) {
                if (e->verdicts[i].scratch)
                        continue;
                forget_submit(q, s);
                refuse(a, key, -EPERM, BENCHD_ERROR_UNSAFE,
                       set_text(q, "partitions: %s is not marked scratch; the job writes a partition table on it, "
                                "which every entry after the first finds there and may not erase on a device that "
                                "is not scratch: mark it scratch (ScratchDevices= in benchd.conf), or leave "
                                "partitions out", e->spec->devices && i < strv_length(e->spec->devices) ?
                                CALLER_TEXT(e->spec->devices[i]) : "a device"));
                return 0;
        }
        /* Again: the queue may have filled while the targets were checked. */
        if (check_bounds(q, s->uid, false) < 0) {
                forget_submit(q, s);
                refuse(a, key, -EBUSY, BENCHD_ERROR_QUEUE_FULL, q->text);
                return 0;
        }
        s->stage = QUEUE_SUBMIT_INSERTING;
        push(a, QUEUE_ACTION_INSERT)->key = key;
        return 0;
}

static int on_inserted(Queue *q, const QueueEvent *e, QueueActions *a) {
        QueueSubmit *s = find_submit(q, e->key);
        uint64_t key = e->key;
        QueueAction *x;
        uint32_t uid;

        if (!s || s->stage != QUEUE_SUBMIT_INSERTING ||
            (e->type == QUEUE_EVENT_INSERTED && (e->job == 0 || find_job(q, e->job))))
                return -EINVAL;
        if (e->type == QUEUE_EVENT_INSERT_FAILED) {
                forget_submit(q, s);
                refuse(a, key, e->error, e->error_name, e->text);
                return 0;
        }
        /* Room was reserved at SUBMIT. */
        if (reserve_job(q, 1) < 0)
                return -ENOMEM;
        uid = s->uid;
        forget_submit(q, s);
        q->jobs[q->n_jobs++] = (QueueJob) { .id = e->job, .uid = uid, .state = JOB_QUEUED };
        x = push(a, QUEUE_ACTION_JOB_QUEUED);
        x->job = e->job;
        x->uid = uid;
        changed(a);
        schedule(a);
        x = push(a, QUEUE_ACTION_REPLY);
        x->key = key;
        x->job = e->job;
        return 0;
}

/* ---- restart ---- */

static int on_restored(Queue *q, const QueueEvent *e, QueueActions *a) {
        QueueAction *x;

        if (e->job == 0 || find_job(q, e->job))
                return -EINVAL;
        if (reserve_job(q, q->n_submits + 1) < 0)
                return -ENOMEM;
        q->jobs[q->n_jobs++] = (QueueJob) { .id = e->job, .uid = e->uid, .state = JOB_QUEUED };
        x = push(a, QUEUE_ACTION_JOB_QUEUED);
        x->job = e->job;
        x->uid = e->uid;
        return 0;
}

/* ---- the scheduler and the jobs' lives ---- */

static int on_dispatch(Queue *q, QueueActions *a) {
        if (q->stopping || q->running != 0 || q->n_cleanups > 0)
                return 0;
        for (size_t i = 0; i < q->n_jobs; i++)
                if (q->jobs[i].state == JOB_QUEUED) {
                        push(a, QUEUE_ACTION_START)->job = q->jobs[i].id;
                        return 0;
                }
        return 0;
}

static int on_job_started(Queue *q, const QueueEvent *e, QueueActions *a) {
        QueueJob *j = find_job(q, e->job);
        QueueAction *x;

        if (!j || j->state != JOB_QUEUED)
                return -EINVAL;
        j->state = JOB_RUNNING;
        q->running = j->id;
        changed(a);
        x = push(a, QUEUE_ACTION_NOTIFY_RUNNING);
        x->job = j->id;
        x->n = queue_length(q);
        return 0;
}

static void forget_job(Queue *q, size_t i, QueueActions *a) {
        push(a, QUEUE_ACTION_FORGET_JOB)->job = q->jobs[i].id;
        memmove(&q->jobs[i], &q->jobs[i + 1], (q->n_jobs - i - 1) * sizeof(QueueJob));
        q->n_jobs--;
}

/* Ended jobs linger, but a burst of jobs that fail at once must not grow the daemon without bound:
 * the oldest go first, never keep (the one that just ended). */
static void trim_ended(Queue *q, uint64_t keep, QueueActions *a) {
        unsigned n = 0;

        for (size_t i = 0; i < q->n_jobs; i++)
                if (job_state_is_final(q->jobs[i].state))
                        n++;
        for (size_t i = 0; i < q->n_jobs && n > q->config.linger_max;)
                if (q->jobs[i].id != keep && job_state_is_final(q->jobs[i].state)) {
                        forget_job(q, i, a);
                        n--;
                } else
                        i++;
}

static int on_job_ended(Queue *q, const QueueEvent *e, QueueActions *a) {
        QueueJob *j = find_job(q, e->job);

        if (!j || job_state_is_final(j->state) || !job_state_is_final(e->state))
                return -EINVAL;
        j->state = e->state;
        push(a, QUEUE_ACTION_JOB_REMOVED)->job = e->job;
        trim_ended(q, e->job, a);
        if (q->running == e->job)
                q->running = 0;
        changed(a);
        /* benchd_runs_total counts failed and cancelled runs too, which a stored run does not tell. */
        if (e->state != JOB_SUCCEEDED)
                push(a, QUEUE_ACTION_WRITE_METRICS);
        if (q->running == 0)
                push(a, QUEUE_ACTION_NOTIFY_IDLE)->n = queue_length(q);
        if (q->stopping)
                exit_if_done(q, a);
        else
                schedule(a);
        return 0;
}

static int on_job_expired(Queue *q, const QueueEvent *e, QueueActions *a) {
        QueueJob *j = find_job(q, e->job);

        if (!j || !job_state_is_final(j->state))
                return -EINVAL;
        forget_job(q, (size_t) (j - q->jobs), a);
        return 0;
}

/* ---- cancellations ----
 *
 * Root and the user who submitted the job cancel it at once (the job says whether it can be); anyone
 * else needs org.benchd.benchd1.cancel, asked of polkit without waiting. The job is looked up again
 * when polkit answers: it may have ended, or gone, meanwhile. */

static int on_cancel(Queue *q, const QueueEvent *e, QueueActions *a) {
        const QueueJob *j = find_job(q, e->job);
        QueueAction *x;
        QueueCancel *c;
        char *text = NULL;

        if (!j)
                return -EINVAL;
        if (e->uid == 0 || e->uid == j->uid) {
                x = push(a, QUEUE_ACTION_CANCEL_JOB);
                x->job = j->id;
                x->uid = e->uid;
                return 0;
        }
        if (job_state_is_final(j->state)) {
                if (queue_not_cancellable_text(j->id, job_state_to_string(j->state), &text) >= 0) {
                        free(q->text);
                        q->text = text;
                }
                refuse_cancel(a, 0, -EBUSY, BENCHD_ERROR_NOT_CANCELLABLE, text);
                return 0;
        }
        if (q->stopping) {
                refuse_cancel(a, 0, -ECANCELED, QUEUE_ERROR_FAILED,
                              "benchd is shutting down; the job is interrupted anyway");
                return 0;
        }
        if (q->n_cancels >= QUEUE_CANCELS_MAX) {
                refuse_cancel(a, 0, -EBUSY, QUEUE_ERROR_LIMITS_EXCEEDED,
                              set_text(q, "too many cancellations wait for polkit (%u); cancel again once they are "
                                       "answered", QUEUE_CANCELS_MAX));
                return 0;
        }
        c = &q->cancels[q->n_cancels++];
        *c = (QueueCancel) { .key = q->next_key++, .job = j->id, .uid = e->uid };
        x = push(a, QUEUE_ACTION_ASK_POLKIT_CANCEL);
        x->key = c->key;
        x->job = c->job;
        return 0;
}

static int on_cancel_polkit(Queue *q, const QueueEvent *e, QueueActions *a) {
        QueueCancel *c = find_cancel(q, e->key);
        QueueCancel copy;
        const QueueJob *j;
        QueueAction *x;
        char *text = NULL;

        if (!c)
                return -EINVAL;
        copy = *c;
        forget_cancel(q, c);
        if (e->type == QUEUE_EVENT_CANCEL_POLKIT_FAILED && e->error == -ENOMEM) {
                refuse_cancel(a, copy.key, -ENOMEM, NULL, NULL);
                return 0;
        }
        if (e->type == QUEUE_EVENT_CANCEL_POLKIT_FAILED) {
                refuse_cancel(a, copy.key, e->error, QUEUE_ERROR_ACCESS_DENIED,
                              set_text(q, "cannot ask polkit whether the caller may cancel job %" PRIu64 ": %s; try "
                                       "again, or run it as root", copy.job, strerror(-e->error)));
                return 0;
        }
        if (e->error < 0) {
                refuse_cancel(a, copy.key, e->error, e->error_name, e->text);
                return 0;
        }
        j = find_job(q, copy.job);
        if (!j) {
                if (queue_not_cancellable_text(copy.job, "and is gone, while polkit was asked", &text) >= 0) {
                        free(q->text);
                        q->text = text;
                }
                refuse_cancel(a, copy.key, -EBUSY, BENCHD_ERROR_NOT_CANCELLABLE, text);
                return 0;
        }
        x = push(a, QUEUE_ACTION_CANCEL_JOB);
        x->key = copy.key;
        x->job = copy.job;
        x->uid = copy.uid;
        return 0;
}

/* ---- removals of files ---- */

static int on_cleanup(Queue *q, const QueueEvent *e, QueueActions *a) {
        if (e->type == QUEUE_EVENT_CLEANUP_STARTED) {
                q->n_cleanups++;
                return 0;
        }
        if (q->n_cleanups == 0)
                return -EINVAL;
        q->n_cleanups--;
        if (q->stopping)
                exit_if_done(q, a);
        else
                schedule(a);
        return 0;
}

/* ---- shutdown ---- */

static int on_stop(Queue *q, QueueActions *a) {
        QueueAction *x;

        if (q->stopping)
                return 0;
        q->stopping = true;
        push(a, QUEUE_ACTION_STOPPING);
        /* Every call still waiting is answered (its check killed), the newest first. */
        while (q->n_submits > 0) {
                QueueSubmit *s = &q->submits[q->n_submits - 1];
                uint64_t key = s->key;

                forget_submit(q, s);
                refuse(a, key, -ECANCELED, QUEUE_ERROR_FAILED, QUEUE_MSG_SUBMIT_STOPPING);
        }
        while (q->n_cancels > 0) {
                QueueCancel *c = &q->cancels[q->n_cancels - 1];
                char *text = q->stop_texts[q->n_cancels - 1];
                uint64_t key = c->key;

                snprintf(text, sizeof(q->stop_texts[0]), "benchd is shutting down; job %" PRIu64 " is interrupted "
                         "anyway", c->job);
                forget_cancel(q, c);
                refuse_cancel(a, key, -ECANCELED, QUEUE_ERROR_FAILED, text);
        }
        if (q->running == 0 && q->n_cleanups == 0) {
                push(a, QUEUE_ACTION_EXIT);
                return 0;
        }
        if (q->running != 0)
                /* The worker gets SIGKILL after 3 s; benchd gives up waiting for it after 10 s. */
                push(a, QUEUE_ACTION_INTERRUPT)->job = q->running;
        else
                q->stop_extended = true;
        x = push(a, QUEUE_ACTION_ARM_EXIT);
        x->usec = q->running != 0 ? QUEUE_STOP_WORKER_USEC : QUEUE_STOP_CLEANUP_USEC;
        return 0;
}

static int on_exit_timeout(Queue *q, QueueActions *a) {
        QueueAction *x;

        if (!q->stopping)
                return -EINVAL;
        if (q->running == 0 && q->n_cleanups > 0 && !q->stop_extended) {
                /* The worker went in time; the removal of its files may take a while longer. */
                q->stop_extended = true;
                push(a, QUEUE_ACTION_ARM_EXIT)->usec = QUEUE_STOP_CLEANUP_USEC;
                return 0;
        }
        x = push(a, QUEUE_ACTION_EXIT);
        x->worker = q->running != 0;
        x->n = q->n_cleanups;
        return 0;
}

int queue_handle(Queue *q, const QueueEvent *e, QueueActions *ret) {
        int r;

        ret->n = 0;
        switch (e->type) {
        case QUEUE_EVENT_SUBMIT:
                r = on_submit(q, e, ret);
                break;
        case QUEUE_EVENT_POLKIT:
        case QUEUE_EVENT_POLKIT_FAILED:
                r = on_polkit(q, e, ret);
                break;
        case QUEUE_EVENT_VERDICTS:
                r = on_verdicts(q, e, ret);
                break;
        case QUEUE_EVENT_CHECK_FAILED:
                r = on_check_failed(q, e, ret);
                break;
        case QUEUE_EVENT_INSERTED:
        case QUEUE_EVENT_INSERT_FAILED:
                r = on_inserted(q, e, ret);
                break;
        case QUEUE_EVENT_RESTORED:
                r = on_restored(q, e, ret);
                break;
        case QUEUE_EVENT_LOADED:
                schedule(ret);
                r = 0;
                break;
        case QUEUE_EVENT_DISPATCH:
                r = on_dispatch(q, ret);
                break;
        case QUEUE_EVENT_JOB_STARTED:
                r = on_job_started(q, e, ret);
                break;
        case QUEUE_EVENT_JOB_ENDED:
                r = on_job_ended(q, e, ret);
                break;
        case QUEUE_EVENT_JOB_EXPIRED:
                r = on_job_expired(q, e, ret);
                break;
        case QUEUE_EVENT_CANCEL:
                r = on_cancel(q, e, ret);
                break;
        case QUEUE_EVENT_CANCEL_POLKIT:
        case QUEUE_EVENT_CANCEL_POLKIT_FAILED:
                r = on_cancel_polkit(q, e, ret);
                break;
        case QUEUE_EVENT_CLEANUP_STARTED:
        case QUEUE_EVENT_CLEANUP_DONE:
                r = on_cleanup(q, e, ret);
                break;
        case QUEUE_EVENT_STOP:
                r = on_stop(q, ret);
                break;
        case QUEUE_EVENT_EXIT_TIMEOUT:
                r = on_exit_timeout(q, ret);
                break;
        default:
                r = -EINVAL;
                break;
        }
        if (r < 0)
                ret->n = 0;
        return r;
}

static const char *const event_names[_QUEUE_EVENT_MAX] = {
        [QUEUE_EVENT_SUBMIT] = "submit",
        [QUEUE_EVENT_POLKIT] = "polkit",
        [QUEUE_EVENT_POLKIT_FAILED] = "polkit-failed",
        [QUEUE_EVENT_VERDICTS] = "verdicts",
        [QUEUE_EVENT_CHECK_FAILED] = "check-failed",
        [QUEUE_EVENT_INSERTED] = "inserted",
        [QUEUE_EVENT_INSERT_FAILED] = "insert-failed",
        [QUEUE_EVENT_RESTORED] = "restored",
        [QUEUE_EVENT_LOADED] = "loaded",
        [QUEUE_EVENT_DISPATCH] = "dispatch",
        [QUEUE_EVENT_JOB_STARTED] = "job-started",
        [QUEUE_EVENT_JOB_ENDED] = "job-ended",
        [QUEUE_EVENT_JOB_EXPIRED] = "job-expired",
        [QUEUE_EVENT_CANCEL] = "cancel",
        [QUEUE_EVENT_CANCEL_POLKIT] = "cancel-polkit",
        [QUEUE_EVENT_CANCEL_POLKIT_FAILED] = "cancel-polkit-failed",
        [QUEUE_EVENT_CLEANUP_STARTED] = "cleanup-started",
        [QUEUE_EVENT_CLEANUP_DONE] = "cleanup-done",
        [QUEUE_EVENT_STOP] = "stop",
        [QUEUE_EVENT_EXIT_TIMEOUT] = "exit-timeout",
};

static const char *const action_names[_QUEUE_ACTION_MAX] = {
        [QUEUE_ACTION_ASK_POLKIT] = "ask-polkit",
        [QUEUE_ACTION_CHECK_TARGETS] = "check-targets",
        [QUEUE_ACTION_INSERT] = "insert",
        [QUEUE_ACTION_ASK_POLKIT_CANCEL] = "ask-polkit-cancel",
        [QUEUE_ACTION_REFUSE] = "refuse",
        [QUEUE_ACTION_REPLY] = "reply",
        [QUEUE_ACTION_JOB_QUEUED] = "job-queued",
        [QUEUE_ACTION_CHANGED] = "changed",
        [QUEUE_ACTION_SCHEDULE] = "schedule",
        [QUEUE_ACTION_START] = "start",
        [QUEUE_ACTION_NOTIFY_RUNNING] = "notify-running",
        [QUEUE_ACTION_NOTIFY_IDLE] = "notify-idle",
        [QUEUE_ACTION_JOB_REMOVED] = "job-removed",
        [QUEUE_ACTION_WRITE_METRICS] = "write-metrics",
        [QUEUE_ACTION_FORGET_JOB] = "forget-job",
        [QUEUE_ACTION_CANCEL_JOB] = "cancel-job",
        [QUEUE_ACTION_REFUSE_CANCEL] = "refuse-cancel",
        [QUEUE_ACTION_STOPPING] = "stopping",
        [QUEUE_ACTION_INTERRUPT] = "interrupt",
        [QUEUE_ACTION_ARM_EXIT] = "arm-exit",
        [QUEUE_ACTION_EXIT] = "exit",
};

const char *queue_event_type_to_string(QueueEventType t) {
        return t >= 0 && t < _QUEUE_EVENT_MAX ? event_names[t] : NULL;
}

const char *queue_action_type_to_string(QueueActionType t) {
        return t >= 0 && t < _QUEUE_ACTION_MAX ? action_names[t] : NULL;
}
