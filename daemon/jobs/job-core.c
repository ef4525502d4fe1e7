/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The job core (job-core.h): one switch per event over the stages. The rules it keeps:
 *   - Nothing is announced that is not stored: "running" before the first step, a step only once
 *     the previous one's results are stored, the end only once it is stored after all of them.
 *   - A queued job's cancellation is stored at once or not at all (the caller tries again); a
 *     running job's waits like everything else.
 *   - A step that succeeded while it was being stopped still counts; the steps (and repeats) after it
 *     do not run.
 *   - A repeat is a step start like any other: it waits for what came before it to be stored.
 *   - While benchd stops, a write that fails with no worker left to wait for is the last try.
 *   - A cancel or interrupt that comes while a request is under way (a step being set up) is
 *     remembered and acted on when its outcome comes.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobs/job-core.h"
#include "jobs/rounds.h"
#include "shared/bus-names.h"
#include "shared/stability.h"
#include "shared/util.h"

#define MSG_CANCELLED "cancelled while running"
#define MSG_INTERRUPTED "benchd was stopped while the job was running"
#define MSG_INTERRUPTED_WAITING "benchd was stopped while the job waited for the database"

void job_core_init(JobCore *c, const JobSpec *steps, size_t n_steps) {
        *c = (JobCore) {
                .stage = JOB_STAGE_QUEUED,
                .state = JOB_QUEUED,
                .steps = steps,
                .n_steps = n_steps,
                .end_state = _JOB_STATE_INVALID,
                .rounds = rounds_apply(steps, n_steps),
        };
        /* Round 0 visits the entries in their order: the first step is step 0 either way. */
        c->step = c->rounds ? rounds_step(steps, n_steps, 0, 0) : 0;
}

void job_core_clear(JobCore *c) {
        free(c->end_error);
        free(c->run_error);
        c->end_error = c->run_error = NULL;
}

/* *dst = the formatted text, or fallback when that cannot be made. */
static void set_text(char **dst, const char *fallback, const char *fmt, ...) _printf_(3, 4);
static void set_text(char **dst, const char *fallback, const char *fmt, ...) {
        va_list ap;
        char *s;

        va_start(ap, fmt);
        if (vasprintf(&s, fmt, ap) < 0)
                s = fallback ? strdup(fallback) : NULL;
        va_end(ap);
        free(*dst);
        *dst = s;
}

/* "step 1 (write): " in a job of several steps, "step 1 (write) repeat 2: " or "repeat 2: " when the
 * step runs more than once ("round 2" in rounds), else "". */
static void step_prefix(const JobCore *c, char *buf, size_t size) {
        bool repeats = c->step < c->n_steps && (c->rounds || stability_planned_runs(&c->steps[c->step]) > 1);
        int n = 0;

        if (size > 0)
                buf[0] = 0;
        if (c->n_steps > 1 && c->step < c->n_steps)
                n = snprintf(buf, size, "step %" PRIu32 " (%s)%s", c->step,
                             strna(workload_to_string(c->steps[c->step].workload)), repeats ? " " : ": ");
        if (repeats && n >= 0 && (size_t) n < size)
                snprintf(buf + n, size - (size_t) n, "%s %" PRIu32 ": ", c->rounds ? "round" : "repeat", c->repeat);
}

static JobAction *push(JobActions *a, JobActionType type) {
        JobAction *x;

        /* A fixed bound: the most one event gives is FINISH_RUN, REMOVE_FILES, NEXT_STEP, FLUSH. */
        if (a->n >= JOB_ACTIONS_MAX)
                abort();
        x = &a->actions[a->n++];
        *x = (JobAction) { .type = type, .step = UINT32_MAX, .state = _JOB_STATE_INVALID };
        return x;
}

static void reply(JobActions *a, int error) {
        push(a, JOB_ACTION_REPLY)->error = error;
}

/* The job has ended in state (text: its error, or NULL); stored after what waits, then announced. */
static void end(JobCore *c, JobActions *a, JobState state) {
        JobAction *x;

        c->stage = JOB_STAGE_ENDING;
        c->end_state = state;
        x = push(a, JOB_ACTION_STORE_END);
        x->state = state;
        x->text = c->end_error;
}

static void end_with(JobCore *c, JobActions *a, JobState state, const char *text) {
        free(c->end_error);
        c->end_error = text ? strdup(text) : NULL;
        end(c, a, state);
}

/* A write failed with error, which may pass: wait and try again, unless benchd stops and there is
 * no worker left to wait for. */
static void store_failed(JobCore *c, JobActions *a, int error) {
        c->waiting = true;
        if (c->interrupt_requested && c->stage != JOB_STAGE_STEP_RUNNING)
                push(a, JOB_ACTION_STORE_GIVE_UP)->error = error;
        else
                push(a, JOB_ACTION_STORE_WAIT)->error = error;
}

/* The step cannot start before the database takes what waits (error: how it refused). A cancel
 * or interrupt that came meanwhile ends the job now, as it would while it waits. */
static void step_wait(JobCore *c, JobActions *a, int error) {
        c->stage = JOB_STAGE_STEP_WAITING;
        if (c->interrupt_requested)
                end_with(c, a, JOB_INTERRUPTED, MSG_INTERRUPTED_WAITING);
        else if (c->cancel_requested)
                end_with(c, a, JOB_CANCELLED, MSG_CANCELLED);
        else
                store_failed(c, a, error);
}

/* The current step may start now (what came before it is stored), unless it was cancelled or
 * interrupted meanwhile. */
static void begin_step(JobCore *c, JobActions *a) {
        if (c->interrupt_requested)
                end_with(c, a, JOB_INTERRUPTED, MSG_INTERRUPTED);
        else if (c->cancel_requested)
                end_with(c, a, JOB_CANCELLED, MSG_CANCELLED);
        else {
                JobAction *x;

                c->stage = JOB_STAGE_STEP_STARTING;
                x = push(a, JOB_ACTION_BEGIN_STEP);
                x->step = c->step;
                x->repeat = c->repeat;
        }
}

static void started(JobCore *c, JobActions *a) {
        c->state = JOB_RUNNING;
        c->step = 0;
        c->repeat = 0;
        push(a, JOB_ACTION_ANNOUNCE_STARTED);
}

static void stop_worker(JobActions *a, bool interrupt) {
        push(a, JOB_ACTION_STOP_WORKER)->interrupt = interrupt;
}

static int on_cancel(JobCore *c, const JobEvent *e, JobActions *a) {
        JobAction *x;

        switch (c->stage) {
        case JOB_STAGE_QUEUED:
                c->stage = JOB_STAGE_CANCELLING;
                c->end_state = JOB_CANCELLED;
                set_text(&c->end_error, "cancelled", "cancelled by uid %" PRIu32 " before it started", e->uid);
                x = push(a, JOB_ACTION_STORE_CANCEL);
                x->state = JOB_CANCELLED;
                x->text = c->end_error;
                return 0;
        case JOB_STAGE_CANCELLING:
                /* The first one is being stored; whether it is, its caller learns. */
                reply(a, -EAGAIN);
                return 0;
        case JOB_STAGE_STARTING:
        case JOB_STAGE_STEP_STARTING:
                /* Acted on when the request's outcome comes. */
                c->cancel_requested = true;
                reply(a, 0);
                return 0;
        case JOB_STAGE_STEP_WAITING:
                /* Between steps, waiting for the database: no worker to stop. */
                c->cancel_requested = true;
                reply(a, 0);
                end_with(c, a, JOB_CANCELLED, MSG_CANCELLED);
                return 0;
        case JOB_STAGE_STEP_RUNNING:
                if (!c->cancel_requested) {
                        c->cancel_requested = true;
                        stop_worker(a, false);
                }
                reply(a, 0);
                return 0;
        case JOB_STAGE_ENDING:
        case JOB_STAGE_ENDED:
        default:
                reply(a, -EBUSY);
                return 0;
        }
}

static int on_interrupt(JobCore *c, JobActions *a) {
        switch (c->stage) {
        case JOB_STAGE_QUEUED:
        case JOB_STAGE_CANCELLING:
        case JOB_STAGE_ENDED:
                /* Not running: it stays queued (in the database too), or it is over. */
                return 0;
        default:
                break;
        }
        c->interrupt_requested = true;
        switch (c->stage) {
        case JOB_STAGE_STEP_WAITING:
                end_with(c, a, JOB_INTERRUPTED, MSG_INTERRUPTED_WAITING);
                break;
        case JOB_STAGE_STEP_RUNNING:
                stop_worker(a, true);
                break;
        case JOB_STAGE_ENDING:
                /* One more try; store_failed() gives up when it fails too. */
                push(a, JOB_ACTION_FLUSH);
                break;
        default:
                /* STARTING, STEP_STARTING: acted on when the request's outcome comes. */
                break;
        }
        return 0;
}

static int on_stored(JobCore *c, JobActions *a) {
        JobAction *x;

        switch (c->stage) {
        case JOB_STAGE_STARTING:
                c->waiting = false;
                started(c, a);
                begin_step(c, a);
                return 0;
        case JOB_STAGE_CANCELLING:
        case JOB_STAGE_ENDING:
                c->waiting = false;
                c->stage = JOB_STAGE_ENDED;
                c->state = c->end_state;
                x = push(a, JOB_ACTION_ANNOUNCE_END);
                x->state = c->state;
                return 0;
        case JOB_STAGE_STEP_WAITING:
                c->waiting = false;
                begin_step(c, a);
                return 0;
        case JOB_STAGE_STEP_RUNNING:
                c->waiting = false;
                return 0;
        default:
                return -EINVAL;
        }
}

static int on_store_failed(JobCore *c, const JobEvent *e, JobActions *a) {
        switch (c->stage) {
        case JOB_STAGE_STARTING:
                /* It stays queued; the retry asks the scheduler again (a cancel that came
                 * meanwhile is acted on when it starts). */
                c->stage = JOB_STAGE_QUEUED;
                store_failed(c, a, e->error);
                return 0;
        case JOB_STAGE_CANCELLING:
                /* Not stored, so not cancelled: the caller is told to try again. */
                c->stage = JOB_STAGE_QUEUED;
                c->end_state = _JOB_STATE_INVALID;
                reply(a, e->error == -EBUSY ? -EAGAIN : e->error);
                return 0;
        case JOB_STAGE_STEP_STARTING:
                /* The step starts when its run can be recorded. */
                step_wait(c, a, e->error);
                return 0;
        case JOB_STAGE_STEP_WAITING:
        case JOB_STAGE_STEP_RUNNING:
        case JOB_STAGE_ENDING:
                store_failed(c, a, e->error);
                return 0;
        default:
                return -EINVAL;
        }
}

static int on_step_refused(JobCore *c, const JobEvent *e, JobActions *a) {
        char pfx[96];

        if (c->stage != JOB_STAGE_STEP_STARTING)
                return -EINVAL;
        /* Not started because it was asked to stop meanwhile: that is how it ends. */
        if (e->refusal == JOB_REFUSED_STOPPED) {
                if (c->interrupt_requested)
                        end_with(c, a, JOB_INTERRUPTED, MSG_INTERRUPTED);
                else if (c->cancel_requested)
                        end_with(c, a, JOB_CANCELLED, MSG_CANCELLED);
                else
                        return -EINVAL;
                return 0;
        }
        /* A refusal is what happened, whatever was asked meanwhile. */
        switch (e->refusal) {
        case JOB_REFUSED_VERDICT:
                step_prefix(c, pfx, sizeof(pfx));
                set_text(&c->end_error, "refused at start: the target is no longer safe to use",
                         "%srefused at start (%s): %s", pfx, strna(e->error_name), strna(e->text));
                break;
        case JOB_REFUSED_SPEC:
                set_text(&c->end_error, "cannot serialise the step spec",
                         "cannot serialise the spec of step %" PRIu32 ": %s", c->step, strna(e->text));
                break;
        case JOB_REFUSED_RUN:
                set_text(&c->end_error, "cannot record the run",
                         "cannot record the run of step %" PRIu32 " in the database: %s", c->step, strna(e->text));
                break;
        case JOB_REFUSED_WORKER:
        default:
                set_text(&c->end_error, "cannot start the worker", "cannot start the worker %s", strna(e->text));
                break;
        }
        end(c, a, JOB_FAILED);
        return 0;
}

static int on_worker_ended(JobCore *c, const JobEvent *e, JobActions *a) {
        JobState run;
        JobAction *x;
        char pfx[128];
        bool again;

        if (c->stage != JOB_STAGE_STEP_RUNNING)
                return -EINVAL;

        free(c->run_error);
        c->run_error = NULL;
        switch (e->status) {
        case WORKER_SUCCEEDED:
                run = JOB_SUCCEEDED;
                break;
        case WORKER_STOPPED:
                /* Only a cancel or the shutdown stops a worker. */
                run = c->interrupt_requested ? JOB_INTERRUPTED : JOB_CANCELLED;
                c->run_error = strdup(c->interrupt_requested ? MSG_INTERRUPTED : MSG_CANCELLED);
                break;
        case WORKER_FAILED:
        default:
                run = JOB_FAILED;
                step_prefix(c, pfx, sizeof(pfx));
                set_text(&c->run_error, e->text, "%s%s%s", pfx,
                         e->unsafe ? "refused by the worker (" BENCHD_ERROR_UNSAFE "): " : "",
                         strna(e->text));
                break;
        }

        x = push(a, JOB_ACTION_FINISH_RUN);
        x->step = c->step;
        x->repeat = c->repeat;
        x->state = run;
        x->text = c->run_error;
        push(a, JOB_ACTION_REMOVE_FILES)->step = c->step;

        if (run != JOB_SUCCEEDED) {
                end_with(c, a, run, c->run_error);
                return 0;
        }
        /* Pure: the step's spec and the figures its runs had. */
        again = stability_repeat_again(&c->steps[c->step], c->repeat + 1, e->figures, e->n_figures);
        if (c->rounds) {
                /* The round goes on to its next visit; at its end, another round follows while any of
                 * its steps wanted another run. */
                c->round_again = c->round_again || again;
                again = c->visit + 1 >= c->n_steps && c->round_again;
                if (!again && c->visit + 1 >= c->n_steps) {
                        end_with(c, a, JOB_SUCCEEDED, NULL);
                        return 0;
                }
        } else if (!again && c->step + 1 >= c->n_steps) {
                end_with(c, a, JOB_SUCCEEDED, NULL);
                return 0;
        }
        /* A step that succeeded while we were stopping it still counts; the steps and repeats after it
         * do not run. */
        if (c->interrupt_requested)
                end_with(c, a, JOB_INTERRUPTED, MSG_INTERRUPTED);
        else if (c->cancel_requested)
                end_with(c, a, JOB_CANCELLED, MSG_CANCELLED);
        else if (c->rounds) {
                /* The round's next visit, or the next round's first, once this run's results are
                 * stored. */
                if (again) {
                        c->repeat++;
                        c->visit = 0;
                        c->round_again = false;
                } else
                        c->visit++;
                c->step = rounds_step(c->steps, c->n_steps, c->repeat, c->visit);
                c->stage = JOB_STAGE_STEP_WAITING;
                x = push(a, JOB_ACTION_NEXT_STEP);
                x->step = c->step;
                x->repeat = c->repeat;
                push(a, JOB_ACTION_FLUSH);
        } else if (again) {
                /* The same step again, once this run's results are stored. */
                c->repeat++;
                c->stage = JOB_STAGE_STEP_WAITING;
                x = push(a, JOB_ACTION_REPEAT_STEP);
                x->step = c->step;
                x->repeat = c->repeat;
                push(a, JOB_ACTION_FLUSH);
        } else {
                /* The next step starts once this one's results are stored. */
                c->step++;
                c->repeat = 0;
                c->stage = JOB_STAGE_STEP_WAITING;
                push(a, JOB_ACTION_NEXT_STEP)->step = c->step;
                push(a, JOB_ACTION_FLUSH);
        }
        return 0;
}

int job_core_handle(JobCore *c, const JobEvent *e, JobActions *ret) {
        JobActions a = {};
        int r = 0;

        switch (e->type) {
        case JOB_EVENT_START:
                if (c->stage != JOB_STAGE_QUEUED)
                        r = -EINVAL;
                else if (!c->waiting) {
                        /* Waiting to try again: the retry timer schedules it. */
                        c->stage = JOB_STAGE_STARTING;
                        push(&a, JOB_ACTION_STORE_RUNNING);
                }
                break;
        case JOB_EVENT_CANCEL:
                r = on_cancel(c, e, &a);
                break;
        case JOB_EVENT_INTERRUPT:
                r = on_interrupt(c, &a);
                break;
        case JOB_EVENT_RESULTS:
                if (c->stage != JOB_STAGE_STEP_RUNNING)
                        r = -EINVAL;
                else if (!c->waiting)
                        /* While the database refuses writes, the retry timer writes them. */
                        push(&a, JOB_ACTION_FLUSH);
                break;
        case JOB_EVENT_RETRY:
                if (!c->waiting) {
                        r = -EINVAL;
                        break;
                }
                c->waiting = false;
                if (c->stage == JOB_STAGE_QUEUED)
                        push(&a, JOB_ACTION_SCHEDULE);
                else
                        push(&a, JOB_ACTION_FLUSH);
                break;
        case JOB_EVENT_STORED:
                r = on_stored(c, &a);
                break;
        case JOB_EVENT_STORE_FAILED:
                r = e->error < 0 ? on_store_failed(c, e, &a) : -EINVAL;
                break;
        case JOB_EVENT_STORE_REFUSED:
                if (c->stage != JOB_STAGE_STARTING) {
                        r = -EINVAL;
                        break;
                }
                /* It did start: say so, and that it could not go on. */
                started(c, &a);
                set_text(&c->end_error, "cannot record in the database that the job started",
                         "cannot record in the database that the job started: %s", strna(e->text));
                end(c, &a, JOB_FAILED);
                break;
        case JOB_EVENT_STEP_STARTED:
                if (c->stage != JOB_STAGE_STEP_STARTING) {
                        r = -EINVAL;
                        break;
                }
                c->stage = JOB_STAGE_STEP_RUNNING;
                if (c->interrupt_requested || c->cancel_requested)
                        stop_worker(&a, c->interrupt_requested);
                break;
        case JOB_EVENT_STEP_REFUSED:
                r = on_step_refused(c, e, &a);
                break;
        case JOB_EVENT_WORKER_ENDED:
                r = on_worker_ended(c, e, &a);
                break;
        default:
                r = -EINVAL;
                break;
        }
        *ret = r < 0 ? (JobActions) {} : a;
        return r;
}

JobAfterStore job_core_after_store(const JobCore *c) {
        switch (c->stage) {
        case JOB_STAGE_QUEUED:
        case JOB_STAGE_STARTING:
                return c->waiting ? JOB_AFTER_STORE_START : JOB_AFTER_STORE_NONE;
        case JOB_STAGE_STEP_WAITING:
        case JOB_STAGE_STEP_STARTING:
                return JOB_AFTER_STORE_STEP;
        case JOB_STAGE_ENDING:
                return JOB_AFTER_STORE_END;
        default:
                return JOB_AFTER_STORE_NONE;
        }
}

bool job_core_has_worker(const JobCore *c) {
        return c->stage == JOB_STAGE_STEP_RUNNING;
}

const char *job_stage_to_string(JobStage s) {
        static const char *const names[_JOB_STAGE_MAX] = {
                [JOB_STAGE_QUEUED] = "queued",
                [JOB_STAGE_STARTING] = "starting",
                [JOB_STAGE_CANCELLING] = "cancelling",
                [JOB_STAGE_STEP_WAITING] = "step-waiting",
                [JOB_STAGE_STEP_STARTING] = "step-starting",
                [JOB_STAGE_STEP_RUNNING] = "step-running",
                [JOB_STAGE_ENDING] = "ending",
                [JOB_STAGE_ENDED] = "ended",
        };
        return s >= 0 && s < _JOB_STAGE_MAX ? names[s] : NULL;
}

const char *job_event_type_to_string(JobEventType t) {
        static const char *const names[_JOB_EVENT_MAX] = {
                [JOB_EVENT_START] = "start",
                [JOB_EVENT_CANCEL] = "cancel",
                [JOB_EVENT_INTERRUPT] = "interrupt",
                [JOB_EVENT_RESULTS] = "results",
                [JOB_EVENT_RETRY] = "retry",
                [JOB_EVENT_STORED] = "stored",
                [JOB_EVENT_STORE_FAILED] = "store-failed",
                [JOB_EVENT_STORE_REFUSED] = "store-refused",
                [JOB_EVENT_STEP_STARTED] = "step-started",
                [JOB_EVENT_STEP_REFUSED] = "step-refused",
                [JOB_EVENT_WORKER_ENDED] = "worker-ended",
        };
        return t >= 0 && t < _JOB_EVENT_MAX ? names[t] : NULL;
}

const char *job_action_type_to_string(JobActionType t) {
        static const char *const names[_JOB_ACTION_MAX] = {
                [JOB_ACTION_STORE_RUNNING] = "store-running",
                [JOB_ACTION_STORE_CANCEL] = "store-cancel",
                [JOB_ACTION_BEGIN_STEP] = "begin-step",
                [JOB_ACTION_FLUSH] = "flush",
                [JOB_ACTION_STORE_END] = "store-end",
                [JOB_ACTION_SCHEDULE] = "schedule",
                [JOB_ACTION_ANNOUNCE_STARTED] = "announce-started",
                [JOB_ACTION_STOP_WORKER] = "stop-worker",
                [JOB_ACTION_FINISH_RUN] = "finish-run",
                [JOB_ACTION_REMOVE_FILES] = "remove-files",
                [JOB_ACTION_NEXT_STEP] = "next-step",
                [JOB_ACTION_REPEAT_STEP] = "repeat-step",
                [JOB_ACTION_STORE_WAIT] = "store-wait",
                [JOB_ACTION_STORE_GIVE_UP] = "store-give-up",
                [JOB_ACTION_ANNOUNCE_END] = "announce-end",
                [JOB_ACTION_REPLY] = "reply",
        };
        return t >= 0 && t < _JOB_ACTION_MAX ? names[t] : NULL;
}
