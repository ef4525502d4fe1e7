/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Tests of the queue core (jobs/queue.c): each row is a queue of some bounds and a sequence of
 * events, as bus/manager.c would feed them (SubmitJob calls and benchd's own submissions, polkit's
 * answers, the verdicts of the targets, the inserts, the scheduler, jobs starting and ending,
 * cancellations, removals of files, SIGTERM and the bound on shutdown, a restart's restored queue),
 * and what must come out: the actions of every event, the jobs left queued, the job running, and the
 * text of the last refusal. Included are the awkward orders: the queue filling while a submission's
 * targets are checked, a job that goes while polkit is asked about its cancellation, SIGTERM with
 * calls waiting, a worker or a removal that outlasts the bound.
 *
 * The actions of one event are written space-separated, events separated by " | ":
 *   ask-polkit:K, check-targets:K, insert:K, ask-polkit-cancel:K:J, refuse:K:ERROR,
 *   refuse-cancel:K:ERROR, reply:K:J, job-queued:J, changed, schedule, start:J,
 *   notify-running:J:N, notify-idle:N, job-removed:J, write-metrics, forget-job:J,
 *   cancel-job:K:J:UID, stopping, interrupt:J, arm-exit:SECONDS, exit[:worker][:N];
 * K is a submission's or cancellation's key (0: the call of the event itself), J a job, ERROR the
 * D-Bus error's last name (QueueFull) or, with none, the errno (ENOMEM); "-" for no action;
 * EINVAL for an event that cannot happen.
 */
#include <check.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobs/matrix.h"
#include "jobs/queue.h"
#include "shared/bus-names.h"
#include "shared/strv.h"
#include "shared/util.h"

#define E_END { .type = _QUEUE_EVENT_MAX }
#define SUBMIT(u) { .type = QUEUE_EVENT_SUBMIT, .uid = (u) }
#define INTERNAL { .type = QUEUE_EVENT_SUBMIT, .internal = true, .uid = 1000 }
#define POLKIT_OK(k) { .type = QUEUE_EVENT_POLKIT, .key = (k) }
#define POLKIT_NO(k) { .type = QUEUE_EVENT_POLKIT, .key = (k), .error = -EACCES, \
                       .error_name = "org.freedesktop.PolicyKit1.Error.NotAuthorized", .text = "not authorised" }
#define POLKIT_ERRNO(k) { .type = QUEUE_EVENT_POLKIT, .key = (k), .error = -EACCES }
#define POLKIT_FAIL(k, e) { .type = QUEUE_EVENT_POLKIT_FAILED, .key = (k), .error = -(e) }
#define VERDICT_OK(k) { .type = QUEUE_EVENT_VERDICTS, .key = (k), .verdicts = ok1, .n_verdicts = 1 }
#define VERDICT_UNSAFE(k) { .type = QUEUE_EVENT_VERDICTS, .key = (k), .verdicts = unsafe2, .n_verdicts = 2 }
#define VERDICT_NOMEM(k) { .type = QUEUE_EVENT_VERDICTS, .key = (k), .verdicts = nomem1, .n_verdicts = 1 }
#define CHECK_FAIL(k, e) { .type = QUEUE_EVENT_CHECK_FAILED, .key = (k), .error = -(e), .target = "/dev/loop7" }
#define INSERTED(k, j) { .type = QUEUE_EVENT_INSERTED, .key = (k), .job = (j) }
#define INSERT_FAIL(k) { .type = QUEUE_EVENT_INSERT_FAILED, .key = (k), .error = -ENOSPC, \
                         .error_name = BENCHD_ERROR_NO_SPACE, .text = "the database is full" }
#define RESTORED(j, u) { .type = QUEUE_EVENT_RESTORED, .job = (j), .uid = (u) }
#define LOADED { .type = QUEUE_EVENT_LOADED }
#define DISPATCH { .type = QUEUE_EVENT_DISPATCH }
#define STARTED(j) { .type = QUEUE_EVENT_JOB_STARTED, .job = (j) }
#define ENDED(j, s) { .type = QUEUE_EVENT_JOB_ENDED, .job = (j), .state = (s) }
#define EXPIRED(j) { .type = QUEUE_EVENT_JOB_EXPIRED, .job = (j) }
#define CANCEL(j, u) { .type = QUEUE_EVENT_CANCEL, .job = (j), .uid = (u) }
#define CPOLKIT_OK(k) { .type = QUEUE_EVENT_CANCEL_POLKIT, .key = (k) }
#define CPOLKIT_NO(k) { .type = QUEUE_EVENT_CANCEL_POLKIT, .key = (k), .error = -EACCES, \
                        .error_name = "org.freedesktop.PolicyKit1.Error.NotAuthorized", .text = "not authorised" }
#define CPOLKIT_FAIL(k, e) { .type = QUEUE_EVENT_CANCEL_POLKIT_FAILED, .key = (k), .error = -(e) }
#define CLEANUP { .type = QUEUE_EVENT_CLEANUP_STARTED }
#define CLEANED { .type = QUEUE_EVENT_CLEANUP_DONE }
#define STOP { .type = QUEUE_EVENT_STOP }
#define TIMEOUT { .type = QUEUE_EVENT_EXIT_TIMEOUT }
#define BAD_EVENT { .type = _QUEUE_EVENT_MAX + 1 }

static const StepVerdict ok1[] = { {} };
static const StepVerdict unsafe2[] = {
        {},
        { .error_name = BENCHD_ERROR_UNSAFE, .reason = "/dev/loop7 is mounted at /mnt; unmount it", .error = -EBUSY },
};
static const StepVerdict nomem1[] = { { .error_name = BENCHD_ERROR_UNSAFE, .error = -ENOMEM } };

/* Root's submission K queued as job J: checked, inserted, answered. */
#define ROOT_JOB(k, j) SUBMIT(0), VERDICT_OK(k), INSERTED(k, j)
#define ROOT_JOB_ACTIONS(k, j) "check-targets:" #k " | insert:" #k " | job-queued:" #j " changed schedule reply:" #k ":" #j
/* Job J started by the scheduler and running. */
#define RUN(j) DISPATCH, STARTED(j)
#define RUN_ACTIONS(j, n) "start:" #j " | changed notify-running:" #j ":" #n
#define SUBMIT4 SUBMIT(0), SUBMIT(0), SUBMIT(0), SUBMIT(0)
#define SUBMIT16 SUBMIT4, SUBMIT4, SUBMIT4, SUBMIT4
#define CHECK4(a, b, c, d) "check-targets:" #a " | check-targets:" #b " | check-targets:" #c " | check-targets:" #d
#define CHECK16 CHECK4(1, 2, 3, 4) " | " CHECK4(5, 6, 7, 8) " | " CHECK4(9, 10, 11, 12) " | " CHECK4(13, 14, 15, 16)
#define CANCEL4(j) CANCEL(j, 1001), CANCEL(j, 1001), CANCEL(j, 1001), CANCEL(j, 1001)
#define CANCEL16(j) CANCEL4(j), CANCEL4(j), CANCEL4(j), CANCEL4(j)

#define MSG_STOPPING "benchd is shutting down; submit the job again once it runs"
#define MSG_FULL "the queue is full (1 jobs waiting); wait for jobs to finish or cancel some"
#define MSG_USER "user 1000 has 1 jobs queued, at most 1; wait for them to run or cancel some (benchctl jobs, " \
        "benchctl cancel ID), or raise MaxQueuedJobsPerUser= in benchd.conf"

typedef struct Row {
        const char *name;
        QueueConfig config;             /* zero: max_queue 64, 1 per user, linger 256 */
        QueueEvent events[48];
        const char *actions;
        unsigned queued;                /* queue_length() at the end */
        uint64_t running;
        const char *text;               /* the last refusal's text (NULL: not checked) */
} Row;

static const Row rows[] = {
        /* ---- submissions ---- */
        { "root: checked, inserted, answered; the scheduler starts it; it ends", {},
          { ROOT_JOB(1, 7), RUN(7), ENDED(7, JOB_SUCCEEDED), E_END },
          ROOT_JOB_ACTIONS(1, 7) " | " RUN_ACTIONS(7, 0) " | job-removed:7 changed notify-idle:0 schedule",
          0, 0, NULL },
        { "a user: polkit first, then the check", {},
          { SUBMIT(1000), POLKIT_OK(1), VERDICT_OK(1), INSERTED(1, 3), E_END },
          "ask-polkit:1 | check-targets:1 | insert:1 | job-queued:3 changed schedule reply:1:3", 1, 0, NULL },
        { "polkit says no: its words", {}, { SUBMIT(1000), POLKIT_NO(1), E_END },
          "ask-polkit:1 | refuse:1:NotAuthorized", 0, 0, "not authorised" },
        { "polkit says no without words: the errno", {}, { SUBMIT(1000), POLKIT_ERRNO(1), E_END },
          "ask-polkit:1 | refuse:1:EACCES", 0, 0, NULL },
        { "polkit cannot be asked", {}, { SUBMIT(1000), POLKIT_FAIL(1, ECONNREFUSED), E_END },
          "ask-polkit:1 | refuse:1:AccessDenied", 0, 0,
          "cannot ask polkit whether the caller may submit jobs: Connection refused; try again, or run it as root" },
        { "polkit cannot be asked for want of memory", {}, { SUBMIT(1000), POLKIT_FAIL(1, ENOMEM), E_END },
          "ask-polkit:1 | refuse:1:ENOMEM", 0, 0, NULL },
        { "the check cannot start", {}, { SUBMIT(0), CHECK_FAIL(1, EMFILE), E_END },
          "check-targets:1 | refuse:1:Failed", 0, 0,
          "cannot start checking target /dev/loop7: Too many open files; submit the job again" },
        { "the check cannot start for want of memory", {}, { SUBMIT(0), CHECK_FAIL(1, ENOMEM), E_END },
          "check-targets:1 | refuse:1:ENOMEM", 0, 0, NULL },
        { "a step's target is refused: the first refusal's reason", {}, { SUBMIT(0), VERDICT_UNSAFE(1), E_END },
          "check-targets:1 | refuse:1:Unsafe", 0, 0, "/dev/loop7 is mounted at /mnt; unmount it" },
        { "a verdict without memory for its reason", {}, { SUBMIT(0), VERDICT_NOMEM(1), E_END },
          "check-targets:1 | refuse:1:ENOMEM", 0, 0, NULL },
        { "the database refuses the row: nothing is queued", {}, { SUBMIT(0), VERDICT_OK(1), INSERT_FAIL(1), E_END },
          "check-targets:1 | insert:1 | refuse:1:NoSpace", 0, 0, "the database is full" },
        { "benchd's own submission: no polkit, whatever its uid", {}, { INTERNAL, VERDICT_OK(1), INSERTED(1, 2), E_END },
          "check-targets:1 | insert:1 | job-queued:2 changed schedule reply:1:2", 1, 0, NULL },

        /* ---- the bounds ---- */
        { "MaxQueue: the second is refused before anything is asked", { .max_queue = 1 },
          { ROOT_JOB(1, 1), SUBMIT(0), INTERNAL, E_END },
          ROOT_JOB_ACTIONS(1, 1) " | refuse:0:QueueFull | refuse:0:QueueFull", 1, 0, MSG_FULL },
        { "MaxQueue: the queue fills while the targets are checked", { .max_queue = 1 },
          { SUBMIT(0), SUBMIT(0), VERDICT_OK(1), INSERTED(1, 1), VERDICT_OK(2), E_END },
          "check-targets:1 | check-targets:2 | insert:1 | job-queued:1 changed schedule reply:1:1 | refuse:2:QueueFull",
          1, 0, MSG_FULL },
        { "MaxQueue: a running job is not queued", { .max_queue = 1 },
          { ROOT_JOB(1, 1), RUN(1), SUBMIT(0), E_END },
          ROOT_JOB_ACTIONS(1, 1) " | " RUN_ACTIONS(1, 0) " | check-targets:2", 0, 1, NULL },
        { "per user: a call being authorised counts", {},
          { SUBMIT(1000), SUBMIT(1000), SUBMIT(1001), SUBMIT(0), E_END },
          "ask-polkit:1 | refuse:0:QueueFull | ask-polkit:2 | check-targets:3", 0, 0, MSG_USER },
        { "per user: a queued job counts; refused again at the verdict", {},
          { SUBMIT(1000), POLKIT_OK(1), VERDICT_OK(1), INSERTED(1, 5), SUBMIT(1000), E_END },
          "ask-polkit:1 | check-targets:1 | insert:1 | job-queued:5 changed schedule reply:1:5 | refuse:0:QueueFull",
          1, 0, MSG_USER },
        { "per user: 0 is no bound", { .max_queue = 64, .max_queued_per_user = 0, .linger_max = 256 },
          { SUBMIT(1000), SUBMIT(1000), E_END }, "ask-polkit:1 | ask-polkit:2", 0, 0, NULL },
        { "per user: the quota is checked again once the targets are judged", { .max_queue = 64,
          .max_queued_per_user = 1, .linger_max = 256 },
          { SUBMIT(1000), POLKIT_OK(1), RESTORED(9, 1000), VERDICT_OK(1), E_END },
          "ask-polkit:1 | check-targets:1 | job-queued:9 | refuse:1:QueueFull", 1, 0, MSG_USER },
        { "16 calls being checked; the 17th is refused, benchd's own too", {},
          { SUBMIT16, SUBMIT(0), INTERNAL, E_END },
          CHECK16 " | refuse:0:QueueFull | refuse:0:QueueFull", 0, 0,
          "16 SubmitJob calls wait for the check of their targets already" },
        { "16 calls being checked: the caller is told to wait for them", {},
          { SUBMIT16, SUBMIT(0), E_END }, CHECK16 " | refuse:0:QueueFull", 0, 0,
          "too many jobs being checked (16 SubmitJob calls wait for their authorisation or the check of their "
          "targets); submit again once they are answered" },

        /* ---- the scheduler ---- */
        { "one at a time, oldest first", {},
          { ROOT_JOB(1, 1), ROOT_JOB(2, 2), RUN(1), DISPATCH, ENDED(1, JOB_FAILED), RUN(2), E_END },
          ROOT_JOB_ACTIONS(1, 1) " | " ROOT_JOB_ACTIONS(2, 2) " | " RUN_ACTIONS(1, 1) " | - "
          "| job-removed:1 changed write-metrics notify-idle:1 schedule | " RUN_ACTIONS(2, 0), 0, 2, NULL },
        { "no start while files are removed", {},
          { CLEANUP, ROOT_JOB(1, 1), DISPATCH, CLEANED, RUN(1), E_END },
          "- | " ROOT_JOB_ACTIONS(1, 1) " | - | schedule | " RUN_ACTIONS(1, 0), 0, 1, NULL },
        { "a job that ends before it ran (its start failed)", {},
          { ROOT_JOB(1, 1), DISPATCH, ENDED(1, JOB_FAILED), DISPATCH, E_END },
          ROOT_JOB_ACTIONS(1, 1) " | start:1 | job-removed:1 changed write-metrics notify-idle:0 schedule | -",
          0, 0, NULL },
        { "an empty queue starts nothing", {}, { DISPATCH, E_END }, "-", 0, 0, NULL },
        { "restart: restored in order, then scheduled", {},
          { RESTORED(4, 1000), RESTORED(6, 0), LOADED, RUN(4), E_END },
          "job-queued:4 | job-queued:6 | schedule | " RUN_ACTIONS(4, 1), 1, 4, NULL },
        { "ended jobs linger, at most linger_max; the oldest goes", { .max_queue = 8, .linger_max = 1 },
          { ROOT_JOB(1, 1), ROOT_JOB(2, 2), RUN(1), ENDED(1, JOB_SUCCEEDED), RUN(2), ENDED(2, JOB_CANCELLED),
            EXPIRED(2), E_END },
          ROOT_JOB_ACTIONS(1, 1) " | " ROOT_JOB_ACTIONS(2, 2) " | " RUN_ACTIONS(1, 1)
          " | job-removed:1 changed notify-idle:1 schedule | " RUN_ACTIONS(2, 0)
          " | job-removed:2 forget-job:1 changed write-metrics notify-idle:0 schedule | forget-job:2", 0, 0, NULL },

        /* ---- cancellations ---- */
        { "root and the submitter cancel at once", {},
          { SUBMIT(1000), POLKIT_OK(1), VERDICT_OK(1), INSERTED(1, 1), CANCEL(1, 1000), CANCEL(1, 0), E_END },
          "ask-polkit:1 | check-targets:1 | insert:1 | job-queued:1 changed schedule reply:1:1 "
          "| cancel-job:0:1:1000 | cancel-job:0:1:0", 1, 0, NULL },
        { "another user: after polkit", {},
          { ROOT_JOB(1, 1), CANCEL(1, 1000), CPOLKIT_OK(2), E_END },
          ROOT_JOB_ACTIONS(1, 1) " | ask-polkit-cancel:2:1 | cancel-job:2:1:1000", 1, 0, NULL },
        { "another user: polkit says no", {},
          { ROOT_JOB(1, 1), CANCEL(1, 1000), CPOLKIT_NO(2), E_END },
          ROOT_JOB_ACTIONS(1, 1) " | ask-polkit-cancel:2:1 | refuse-cancel:2:NotAuthorized", 1, 0, "not authorised" },
        { "another user: polkit cannot be asked", {},
          { ROOT_JOB(1, 1), CANCEL(1, 1000), CPOLKIT_FAIL(2, ECONNREFUSED), CANCEL(1, 1000), CPOLKIT_FAIL(3, ENOMEM),
            E_END },
          ROOT_JOB_ACTIONS(1, 1) " | ask-polkit-cancel:2:1 | refuse-cancel:2:AccessDenied | ask-polkit-cancel:3:1 "
          "| refuse-cancel:3:ENOMEM", 1, 0, NULL },
        { "another user: the job goes while polkit is asked", { .max_queue = 8, .linger_max = 0 },
          { ROOT_JOB(1, 1), CANCEL(1, 1000), RUN(1), ENDED(1, JOB_SUCCEEDED), EXPIRED(1), CPOLKIT_OK(2), E_END },
          ROOT_JOB_ACTIONS(1, 1) " | ask-polkit-cancel:2:1 | " RUN_ACTIONS(1, 0)
          " | job-removed:1 changed notify-idle:0 schedule | forget-job:1 | refuse-cancel:2:NotCancellable", 0, 0,
          "job 1 has already ended (and is gone, while polkit was asked); only queued or running jobs can be "
          "cancelled" },
        { "another user: an ended job is not cancellable", {},
          { ROOT_JOB(1, 1), RUN(1), ENDED(1, JOB_FAILED), CANCEL(1, 1000), E_END },
          ROOT_JOB_ACTIONS(1, 1) " | " RUN_ACTIONS(1, 0) " | job-removed:1 changed write-metrics notify-idle:0 "
          "schedule | refuse-cancel:0:NotCancellable", 0, 0,
          "job 1 has already ended (failed); only queued or running jobs can be cancelled" },
        { "another user: 16 wait for polkit, the 17th is refused", {},
          { ROOT_JOB(1, 1), CANCEL16(1), CANCEL(1, 1002), E_END },
          ROOT_JOB_ACTIONS(1, 1) " | ask-polkit-cancel:2:1 | ask-polkit-cancel:3:1 | ask-polkit-cancel:4:1 "
          "| ask-polkit-cancel:5:1 | ask-polkit-cancel:6:1 | ask-polkit-cancel:7:1 | ask-polkit-cancel:8:1 "
          "| ask-polkit-cancel:9:1 | ask-polkit-cancel:10:1 | ask-polkit-cancel:11:1 | ask-polkit-cancel:12:1 "
          "| ask-polkit-cancel:13:1 | ask-polkit-cancel:14:1 | ask-polkit-cancel:15:1 | ask-polkit-cancel:16:1 "
          "| ask-polkit-cancel:17:1 | refuse-cancel:0:LimitsExceeded", 1, 0,
          "too many cancellations wait for polkit (16); cancel again once they are answered" },
        { "another user while benchd stops", {},
          { ROOT_JOB(1, 1), RUN(1), STOP, CANCEL(1, 1000), E_END },
          ROOT_JOB_ACTIONS(1, 1) " | " RUN_ACTIONS(1, 0) " | stopping interrupt:1 arm-exit:10 "
          "| refuse-cancel:0:Failed", 0, 1, "benchd is shutting down; the job is interrupted anyway" },

        /* ---- shutdown ---- */
        { "SIGTERM with nothing running: exit at once; a second one does nothing", {},
          { STOP, STOP, SUBMIT(0), INTERNAL, E_END },
          "stopping exit | - | refuse:0:Failed | refuse:0:Failed", 0, 0, "benchd is shutting down" },
        { "SIGTERM answers every call waiting, the newest first", {},
          { ROOT_JOB(1, 1), SUBMIT(1000), SUBMIT(0), CANCEL(1, 1001), STOP, E_END },
          ROOT_JOB_ACTIONS(1, 1) " | ask-polkit:2 | check-targets:3 | ask-polkit-cancel:4:1 "
          "| stopping refuse:3:Failed refuse:2:Failed refuse-cancel:4:Failed exit", 1, 0,
          "benchd is shutting down; job 1 is interrupted anyway" },
        { "SIGTERM during a job: interrupted; exit when it ends", {},
          { ROOT_JOB(1, 1), ROOT_JOB(2, 2), RUN(1), STOP, DISPATCH, ENDED(1, JOB_INTERRUPTED), E_END },
          ROOT_JOB_ACTIONS(1, 1) " | " ROOT_JOB_ACTIONS(2, 2) " | " RUN_ACTIONS(1, 1)
          " | stopping interrupt:1 arm-exit:10 | - | job-removed:1 changed write-metrics notify-idle:1 exit", 1, 0,
          NULL },
        { "SIGTERM: the worker outlasts the bound", {},
          { ROOT_JOB(1, 1), RUN(1), STOP, TIMEOUT, E_END },
          ROOT_JOB_ACTIONS(1, 1) " | " RUN_ACTIONS(1, 0) " | stopping interrupt:1 arm-exit:10 | exit:worker", 0, 1,
          NULL },
        { "SIGTERM: the worker goes in time, its files take longer: 50 s more", {},
          { ROOT_JOB(1, 1), RUN(1), STOP, CLEANUP, ENDED(1, JOB_INTERRUPTED), TIMEOUT, TIMEOUT, E_END },
          ROOT_JOB_ACTIONS(1, 1) " | " RUN_ACTIONS(1, 0) " | stopping interrupt:1 arm-exit:10 | - "
          "| job-removed:1 changed write-metrics notify-idle:0 | arm-exit:50 | exit:1", 0, 0, NULL },
        { "SIGTERM: the removal ends within the bound", {},
          { ROOT_JOB(1, 1), RUN(1), STOP, CLEANUP, ENDED(1, JOB_INTERRUPTED), CLEANED, E_END },
          ROOT_JOB_ACTIONS(1, 1) " | " RUN_ACTIONS(1, 0) " | stopping interrupt:1 arm-exit:10 | - "
          "| job-removed:1 changed write-metrics notify-idle:0 | exit", 0, 0, NULL },
        { "SIGTERM while only files are removed: 50 s, no more", {},
          { CLEANUP, STOP, TIMEOUT, E_END }, "- | stopping arm-exit:50 | exit:1", 0, 0, NULL },
        { "the answer to a call comes after SIGTERM answered it", {},
          { SUBMIT(1000), STOP, POLKIT_OK(1), E_END }, "ask-polkit:1 | stopping refuse:1:Failed exit | EINVAL", 0, 0,
          MSG_STOPPING },

        /* ---- events that cannot happen ---- */
        { "events that cannot happen change nothing", {},
          { VERDICT_OK(1), INSERTED(1, 1), SUBMIT(0), POLKIT_OK(1), CHECK_FAIL(2, EIO), INSERT_FAIL(1), VERDICT_OK(1),
            INSERTED(1, 0), INSERTED(1, 1), RESTORED(1, 0), RESTORED(0, 0), STARTED(1), DISPATCH, STARTED(1),
            STARTED(9), ENDED(1, JOB_RUNNING), ENDED(9, JOB_FAILED), EXPIRED(1), EXPIRED(9), CANCEL(9, 0),
            CPOLKIT_OK(5), CLEANED, TIMEOUT, BAD_EVENT, E_END },
          "EINVAL | EINVAL | check-targets:1 | EINVAL | EINVAL | EINVAL | insert:1 | EINVAL | job-queued:1 changed "
          "schedule reply:1:1 | EINVAL | EINVAL | changed notify-running:1:0 | - | EINVAL | EINVAL | EINVAL | EINVAL "
          "| EINVAL | EINVAL | EINVAL | EINVAL | EINVAL | EINVAL | EINVAL", 0, 1, NULL },
};

static const char *errno_name(int e) {
        switch (e) {
        case -ENOMEM: return "ENOMEM";
        case -EACCES: return "EACCES";
        case -EBUSY: return "EBUSY";
        default: return "E?";
        }
}

static void format_action(const QueueAction *a, char *buf, size_t size) {
        const char *name = queue_action_type_to_string(a->type), *dot;

        switch (a->type) {
        case QUEUE_ACTION_ASK_POLKIT:
        case QUEUE_ACTION_CHECK_TARGETS:
        case QUEUE_ACTION_INSERT:
                snprintf(buf, size, "%s:%" PRIu64, name, a->key);
                break;
        case QUEUE_ACTION_ASK_POLKIT_CANCEL:
        case QUEUE_ACTION_REPLY:
                snprintf(buf, size, "%s:%" PRIu64 ":%" PRIu64, name, a->key, a->job);
                break;
        case QUEUE_ACTION_REFUSE:
        case QUEUE_ACTION_REFUSE_CANCEL:
                dot = a->error_name ? strrchr(a->error_name, '.') : NULL;
                snprintf(buf, size, "%s:%" PRIu64 ":%s", name, a->key,
                         a->error_name ? (dot ? dot + 1 : a->error_name) : errno_name(a->error));
                break;
        case QUEUE_ACTION_JOB_QUEUED:
        case QUEUE_ACTION_START:
        case QUEUE_ACTION_JOB_REMOVED:
        case QUEUE_ACTION_FORGET_JOB:
        case QUEUE_ACTION_INTERRUPT:
                snprintf(buf, size, "%s:%" PRIu64, name, a->job);
                break;
        case QUEUE_ACTION_NOTIFY_RUNNING:
                snprintf(buf, size, "%s:%" PRIu64 ":%u", name, a->job, a->n);
                break;
        case QUEUE_ACTION_NOTIFY_IDLE:
                snprintf(buf, size, "%s:%u", name, a->n);
                break;
        case QUEUE_ACTION_CANCEL_JOB:
                snprintf(buf, size, "%s:%" PRIu64 ":%" PRIu64 ":%" PRIu32, name, a->key, a->job, a->uid);
                break;
        case QUEUE_ACTION_ARM_EXIT:
                snprintf(buf, size, "%s:%" PRIu64, name, a->usec / 1000000u);
                break;
        case QUEUE_ACTION_EXIT:
                snprintf(buf, size, "%s", name);
                if (a->worker)
                        snprintf(buf + strlen(buf), size - strlen(buf), ":worker");
                if (a->n > 0)
                        snprintf(buf + strlen(buf), size - strlen(buf), ":%u", a->n);
                break;
        default:
                snprintf(buf, size, "%s", name);
                break;
        }
}

static void append(char *buf, size_t size, const char *s) {
        size_t n = strlen(buf);
        snprintf(buf + n, size - n, "%s", s);
}

START_TEST(test_rows) {
        const Row *row = &rows[_i];
        QueueConfig config = row->config;
        char got[8192] = "";
        _cleanup_free_ char *text = NULL;
        Queue q;

        if (config.max_queue == 0)
                config = (QueueConfig) { .max_queue = 64, .max_queued_per_user = 1, .linger_max = 256 };
        queue_init(&q, &config);

        for (size_t i = 0; row->events[i].type != _QUEUE_EVENT_MAX; i++) {
                QueueActions a;
                int r;

                if (i > 0)
                        append(got, sizeof(got), " | ");
                r = queue_handle(&q, &row->events[i], &a);
                if (r < 0) {
                        ck_assert_int_eq(r, -EINVAL);
                        ck_assert_uint_eq(a.n, 0);
                        append(got, sizeof(got), "EINVAL");
                        continue;
                }
                if (a.n == 0)
                        append(got, sizeof(got), "-");
                for (size_t k = 0; k < a.n; k++) {
                        char one[96];

                        format_action(&a.actions[k], one, sizeof(one));
                        if (k > 0)
                                append(got, sizeof(got), " ");
                        append(got, sizeof(got), one);
                        if (a.actions[k].type == QUEUE_ACTION_REFUSE || a.actions[k].type == QUEUE_ACTION_REFUSE_CANCEL) {
                                /* A refusal names its error with a text, or gives the errno alone. */
                                ck_assert(!a.actions[k].error_name == !a.actions[k].text);
                                ck_assert_int_lt(a.actions[k].error, 0);
                                /* What benchd's own submitter learns at shutdown: it tries again. */
                                if (row->events[i].type == QUEUE_EVENT_STOP)
                                        ck_assert_int_eq(a.actions[k].error, -ECANCELED);
                                free(text);
                                text = a.actions[k].text ? strdup(a.actions[k].text) : NULL;
                        }
                }
        }

        ck_assert_msg(streq(got, row->actions), "%s:\n  got      %s\n  expected %s", row->name, got, row->actions);
        ck_assert_msg(queue_length(&q) == row->queued, "%s: %u queued, expected %u", row->name, queue_length(&q),
                      row->queued);
        ck_assert_msg(q.running == row->running, "%s: job %" PRIu64 " runs, expected %" PRIu64, row->name, q.running,
                      row->running);
        if (row->text)
                ck_assert_msg(streq_ptr(text, row->text), "%s: text \"%s\", expected \"%s\"", row->name, strna(text),
                              row->text);
        queue_clear(&q);
}
END_TEST

/* What a refusal names first: the step of a job of several steps, the device of a matrix. */
START_TEST(test_verdict_prefix) {
        JobSpec spec, steps[2];
        StepVerdict v[2] = { {}, { .error_name = BENCHD_ERROR_UNSAFE, .reason = "it is mounted", .error = -EBUSY } };
        QueueConfig config = { .max_queue = 4 };
        QueueActions a;
        Queue q;

        spec_init(&spec);
        spec_init(&steps[0]);
        spec_init(&steps[1]);
        steps[0].workload = WORKLOAD_WRITE;
        steps[1].workload = WORKLOAD_READ;
        queue_init(&q, &config);

        /* Two steps: "step 1 (read): ". */
        ck_assert_int_eq(queue_handle(&q, &(QueueEvent) { .type = QUEUE_EVENT_SUBMIT }, &a), 0);
        ck_assert_int_eq(queue_handle(&q, &(QueueEvent) { .type = QUEUE_EVENT_VERDICTS, .key = 1, .verdicts = v,
                                                          .n_verdicts = 2, .spec = &spec, .steps = steps, .n_steps = 2 },
                                      &a), 0);
        ck_assert_uint_eq(a.n, 1);
        ck_assert_str_eq(a.actions[0].text, "step 1 (read): it is mounted");

        /* A matrix, judged device by device: "device 2 of 2, /dev/loop5: ". */
        ck_assert_int_eq(strv_push(&spec.filesystems, "ext4"), 0);
        ck_assert_int_eq(strv_push(&spec.devices, "/dev/loop4"), 0);
        ck_assert_int_eq(strv_push(&spec.devices, "/dev/loop5"), 0);
        ck_assert(spec_is_matrix(&spec));
        ck_assert_int_eq(queue_handle(&q, &(QueueEvent) { .type = QUEUE_EVENT_SUBMIT }, &a), 0);
        ck_assert_int_eq(queue_handle(&q, &(QueueEvent) { .type = QUEUE_EVENT_VERDICTS, .key = 2, .verdicts = v,
                                                          .n_verdicts = 2, .spec = &spec, .steps = steps, .n_steps = 1 },
                                      &a), 0);
        ck_assert_str_eq(a.actions[0].text, "device 2 of 2, /dev/loop5: it is mounted");

        /* More verdicts than devices or steps: no prefix rather than a wrong one. */
        ck_assert_int_eq(queue_handle(&q, &(QueueEvent) { .type = QUEUE_EVENT_SUBMIT }, &a), 0);
        strv_free(spec.devices);
        spec.devices = NULL;
        ck_assert_int_eq(strv_push(&spec.devices, "/dev/loop4"), 0);
        ck_assert_int_eq(queue_handle(&q, &(QueueEvent) { .type = QUEUE_EVENT_VERDICTS, .key = 3, .verdicts = v,
                                                          .n_verdicts = 2, .spec = &spec, .steps = steps, .n_steps = 1 },
                                      &a), 0);
        ck_assert_str_eq(a.actions[0].text, "it is mounted");

        queue_clear(&q);
        spec_clear(&spec);
        spec_clear(&steps[0]);
        spec_clear(&steps[1]);
}
END_TEST

START_TEST(test_names) {
        for (int t = 0; t < _QUEUE_EVENT_MAX; t++)
                ck_assert_ptr_nonnull(queue_event_type_to_string(t));
        for (int t = 0; t < _QUEUE_ACTION_MAX; t++)
                ck_assert_ptr_nonnull(queue_action_type_to_string(t));
        ck_assert_ptr_null(queue_event_type_to_string(_QUEUE_EVENT_MAX));
        ck_assert_ptr_null(queue_action_type_to_string(_QUEUE_ACTION_MAX));
}
END_TEST

/* The jobs of a long life: the queue's memory grows with them and the lookups find each. */
START_TEST(test_many) {
        QueueConfig config = { .max_queue = 1000, .linger_max = 3 };
        QueueActions a;
        Queue q;

        queue_init(&q, &config);
        for (uint64_t id = 1; id <= 500; id++)
                ck_assert_int_eq(queue_handle(&q, &(QueueEvent) { .type = QUEUE_EVENT_RESTORED, .job = id }, &a), 0);
        ck_assert_uint_eq(queue_length(&q), 500);
        ck_assert_ptr_nonnull(queue_find(&q, 250));
        ck_assert_ptr_null(queue_find(&q, 501));
        for (uint64_t id = 1; id <= 500; id++) {
                ck_assert_int_eq(queue_handle(&q, &(QueueEvent) { .type = QUEUE_EVENT_DISPATCH }, &a), 0);
                ck_assert_uint_eq(a.n, 1);
                ck_assert_uint_eq(a.actions[0].job, id);
                ck_assert_int_eq(queue_handle(&q, &(QueueEvent) { .type = QUEUE_EVENT_JOB_STARTED, .job = id }, &a), 0);
                ck_assert_int_eq(queue_handle(&q, &(QueueEvent) { .type = QUEUE_EVENT_JOB_ENDED, .job = id,
                                                                  .state = JOB_SUCCEEDED }, &a), 0);
        }
        /* Only linger_max ended ones are left. */
        ck_assert_uint_eq(q.n_jobs, 3);
        ck_assert(!queue_is_stopping(&q));
        ck_assert_int_eq(queue_handle(&q, &(QueueEvent) { .type = QUEUE_EVENT_STOP }, &a), 0);
        ck_assert(queue_is_stopping(&q));
        queue_clear(&q);
}
END_TEST

static Suite *queue_suite(void) {
        Suite *s = suite_create("queue");
        TCase *tc = tcase_create("queue");

        tcase_add_loop_test(tc, test_rows, 0, ELEMENTSOF(rows));
        tcase_add_test(tc, test_verdict_prefix);
        tcase_add_test(tc, test_names);
        tcase_add_test(tc, test_many);
        suite_add_tcase(s, tc);
        return s;
}

int main(void) {
        SRunner *sr = srunner_create(queue_suite());
        srunner_run_all(sr, CK_NORMAL);
        int failed = srunner_ntests_failed(sr);
        srunner_free(sr);
        return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
