/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Tests of the job core (jobs/job-core.c): each row is a job of some steps and a sequence of
 * events, as the step runner would feed them (the scheduler's start, the outcomes of writes and of
 * step starts, workers ending, cancels, the shutdown, the retry timer), and what must come out:
 * the actions of every event, the final stage and state, and the error the user reads. Included
 * are the awkward orders: a cancel after the last step's RESULT, an interrupt during a refused
 * start, a store failure during the end, cancels and interrupts while the job waits for the
 * database. And the one list of job state names (shared/job-state.c).
 *
 * The actions of one event are written space-separated, events separated by " | ":
 *   store-running, store-cancel:STATE, begin-step:N, flush, store-end:STATE, schedule,
 *   announce-started, stop-worker[:interrupt], finish-run:N:STATE, remove-files:N, next-step:N,
 *   store-wait:ERRNO, store-give-up:ERRNO, announce-end:STATE, reply:ERRNO (or reply:0),
 *   repeat-step:N/R; a step's repeat R > 0 is written N/R (begin-step:0/1, finish-run:0/2:STATE);
 *   "-" for none; EINVAL for an event that does not apply in the stage.
 *
 * Steps are workloads, comma-separated, each optionally with "*N" (repeat=N) and "~M/X"
 * (until_stddev of M thousandths of a percent, max_repeats=X): "write*3,read", "randread~5000/10";
 * "@FS" makes it a step of a filesystem matrix's entry FS (on one device): such a job repeats in
 * rounds, and the round is the R of N/R.
 */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobs/job-core.h"
#include "shared/job-state.h"
#include "shared/strv.h"
#include "shared/util.h"

#define E_END { .type = _JOB_EVENT_MAX }
#define START { .type = JOB_EVENT_START }
#define CANCEL { .type = JOB_EVENT_CANCEL, .uid = 1000 }
#define INTERRUPT { .type = JOB_EVENT_INTERRUPT }
#define RESULTS { .type = JOB_EVENT_RESULTS }
#define RETRY { .type = JOB_EVENT_RETRY }
#define STORED { .type = JOB_EVENT_STORED }
#define FAILED(e) { .type = JOB_EVENT_STORE_FAILED, .error = -(e) }
#define REFUSED(t) { .type = JOB_EVENT_STORE_REFUSED, .text = (t) }
#define STEP_STARTED { .type = JOB_EVENT_STEP_STARTED }
#define STEP_REFUSED(kind, t) { .type = JOB_EVENT_STEP_REFUSED, .refusal = (kind), .text = (t), \
                                .error_name = "org.benchd.Benchd1.Error.Unsafe" }
#define WORKER_OK { .type = JOB_EVENT_WORKER_ENDED, .status = WORKER_SUCCEEDED }
/* Succeeded, with the main figures of the step's runs so far (this one last). */
#define WORKER_FIG(...) { .type = JOB_EVENT_WORKER_ENDED, .status = WORKER_SUCCEEDED, \
                          .figures = (const double[]) { __VA_ARGS__ }, \
                          .n_figures = sizeof((const double[]) { __VA_ARGS__ }) / sizeof(double) }
#define WORKER_STOP { .type = JOB_EVENT_WORKER_ENDED, .status = WORKER_STOPPED }
#define WORKER_FAIL(t) { .type = JOB_EVENT_WORKER_ENDED, .status = WORKER_FAILED, .text = (t) }
#define WORKER_UNSAFE(t) { .type = JOB_EVENT_WORKER_ENDED, .status = WORKER_FAILED, .text = (t), .unsafe = true }

/* The way into a running step 0: start, "running" stored, step 0 started. */
#define RUN0 START, STORED, STEP_STARTED
#define RUN0_ACTIONS "store-running | announce-started begin-step:0 | - "

#define MSG_CANCELLED "cancelled while running"
#define MSG_INTERRUPTED "benchd was stopped while the job was running"
#define MSG_INTERRUPTED_WAITING "benchd was stopped while the job waited for the database"

typedef struct Row {
        const char *name;
        const char *steps;              /* workloads, comma-separated */
        JobEvent events[32];
        const char *actions;
        JobStage stage;
        JobState state;
        const char *error;              /* the job's error at its end (NULL: none) */
} Row;

static const Row rows[] = {
        /* ---- how a job goes when nothing goes wrong ---- */
        { "one step", "write", { RUN0, WORKER_OK, STORED, E_END },
          RUN0_ACTIONS "| finish-run:0:succeeded remove-files:0 store-end:succeeded | announce-end:succeeded",
          JOB_STAGE_ENDED, JOB_SUCCEEDED, NULL },
        { "two steps: the next starts once the first's results are stored", "write,read",
          { RUN0, WORKER_OK, STORED, STEP_STARTED, WORKER_OK, STORED, E_END },
          RUN0_ACTIONS "| finish-run:0:succeeded remove-files:0 next-step:1 flush | begin-step:1 | - "
          "| finish-run:1:succeeded remove-files:1 store-end:succeeded | announce-end:succeeded",
          JOB_STAGE_ENDED, JOB_SUCCEEDED, NULL },
        { "samples are flushed in batches", "write", { RUN0, RESULTS, STORED, RESULTS, STORED, WORKER_OK, STORED, E_END },
          RUN0_ACTIONS "| flush | - | flush | - | finish-run:0:succeeded remove-files:0 store-end:succeeded "
          "| announce-end:succeeded", JOB_STAGE_ENDED, JOB_SUCCEEDED, NULL },

        /* ---- repeats ---- */
        { "repeat=3: the step runs three times, each a step start, then the next step", "write*3,read",
          { RUN0, WORKER_OK, STORED, STEP_STARTED, WORKER_OK, STORED, STEP_STARTED, WORKER_OK, STORED, STEP_STARTED,
            WORKER_OK, STORED, E_END },
          RUN0_ACTIONS "| finish-run:0:succeeded remove-files:0 repeat-step:0/1 flush | begin-step:0/1 | - "
          "| finish-run:0/1:succeeded remove-files:0 repeat-step:0/2 flush | begin-step:0/2 | - "
          "| finish-run:0/2:succeeded remove-files:0 next-step:1 flush | begin-step:1 | - "
          "| finish-run:1:succeeded remove-files:1 store-end:succeeded | announce-end:succeeded",
          JOB_STAGE_ENDED, JOB_SUCCEEDED, NULL },
        { "repeat=2 on the last step: the job ends after its second run", "read,write*2",
          { RUN0, WORKER_OK, STORED, STEP_STARTED, WORKER_OK, STORED, STEP_STARTED, WORKER_OK, STORED, E_END },
          RUN0_ACTIONS "| finish-run:0:succeeded remove-files:0 next-step:1 flush | begin-step:1 | - "
          "| finish-run:1:succeeded remove-files:1 repeat-step:1/1 flush | begin-step:1/1 | - "
          "| finish-run:1/1:succeeded remove-files:1 store-end:succeeded | announce-end:succeeded",
          JOB_STAGE_ENDED, JOB_SUCCEEDED, NULL },
        { "until_stddev=5%: three runs at least, however steady; stable after the third", "randread~5000/10",
          { RUN0, WORKER_FIG(100), STORED, STEP_STARTED, WORKER_FIG(100, 100), STORED, STEP_STARTED,
            WORKER_FIG(100, 100, 101), STORED, E_END },
          RUN0_ACTIONS "| finish-run:0:succeeded remove-files:0 repeat-step:0/1 flush | begin-step:0/1 | - "
          "| finish-run:0/1:succeeded remove-files:0 repeat-step:0/2 flush | begin-step:0/2 | - "
          "| finish-run:0/2:succeeded remove-files:0 store-end:succeeded | announce-end:succeeded",
          JOB_STAGE_ENDED, JOB_SUCCEEDED, NULL },
        { "until_stddev=20%: 20% after three runs is not below it, 16% after four is", "randread~20000/10,read",
          { RUN0, WORKER_FIG(80), STORED, STEP_STARTED, WORKER_FIG(80, 100), STORED, STEP_STARTED,
            WORKER_FIG(80, 100, 120), STORED, STEP_STARTED, WORKER_FIG(80, 100, 120, 100), STORED, E_END },
          RUN0_ACTIONS "| finish-run:0:succeeded remove-files:0 repeat-step:0/1 flush | begin-step:0/1 | - "
          "| finish-run:0/1:succeeded remove-files:0 repeat-step:0/2 flush | begin-step:0/2 | - "
          "| finish-run:0/2:succeeded remove-files:0 repeat-step:0/3 flush | begin-step:0/3 | - "
          "| finish-run:0/3:succeeded remove-files:0 next-step:1 flush | begin-step:1",
          JOB_STAGE_STEP_STARTING, JOB_RUNNING, NULL },
        { "until_stddev never met: max_repeats ends the step", "write~1/4",
          { RUN0, WORKER_FIG(100), STORED, STEP_STARTED, WORKER_FIG(100, 101), STORED, STEP_STARTED,
            WORKER_FIG(100, 101, 100), STORED, STEP_STARTED, WORKER_FIG(100, 101, 100, 101), STORED, E_END },
          RUN0_ACTIONS "| finish-run:0:succeeded remove-files:0 repeat-step:0/1 flush | begin-step:0/1 | - "
          "| finish-run:0/1:succeeded remove-files:0 repeat-step:0/2 flush | begin-step:0/2 | - "
          "| finish-run:0/2:succeeded remove-files:0 repeat-step:0/3 flush | begin-step:0/3 | - "
          "| finish-run:0/3:succeeded remove-files:0 store-end:succeeded | announce-end:succeeded",
          JOB_STAGE_ENDED, JOB_SUCCEEDED, NULL },
        { "until_stddev: a run without a figure is not stable", "write~5000/3",
          { RUN0, WORKER_FIG(100), STORED, STEP_STARTED, WORKER_FIG(100, 100), STORED, STEP_STARTED,
            WORKER_OK, STORED, E_END },
          RUN0_ACTIONS "| finish-run:0:succeeded remove-files:0 repeat-step:0/1 flush | begin-step:0/1 | - "
          "| finish-run:0/1:succeeded remove-files:0 repeat-step:0/2 flush | begin-step:0/2 | - "
          "| finish-run:0/2:succeeded remove-files:0 store-end:succeeded | announce-end:succeeded",
          JOB_STAGE_ENDED, JOB_SUCCEEDED, NULL },
        { "a cancel during a repeat: the run counts, the repeats after it do not run", "write*3",
          { RUN0, WORKER_OK, STORED, STEP_STARTED, CANCEL, WORKER_OK, STORED, E_END },
          RUN0_ACTIONS "| finish-run:0:succeeded remove-files:0 repeat-step:0/1 flush | begin-step:0/1 | - "
          "| stop-worker reply:0 | finish-run:0/1:succeeded remove-files:0 store-end:cancelled | announce-end:cancelled",
          JOB_STAGE_ENDED, JOB_CANCELLED, MSG_CANCELLED },
        { "a cancel while a repeat waits for the database", "write*3",
          { RUN0, WORKER_OK, FAILED(EBUSY), CANCEL, STORED, E_END },
          RUN0_ACTIONS "| finish-run:0:succeeded remove-files:0 repeat-step:0/1 flush | store-wait:EBUSY "
          "| reply:0 store-end:cancelled | announce-end:cancelled",
          JOB_STAGE_ENDED, JOB_CANCELLED, MSG_CANCELLED },
        { "a repeat waits for the run before it to be stored", "write*2",
          { RUN0, WORKER_OK, FAILED(ENOSPC), RETRY, STORED, STEP_STARTED, E_END },
          RUN0_ACTIONS "| finish-run:0:succeeded remove-files:0 repeat-step:0/1 flush | store-wait:ENOSPC | flush "
          "| begin-step:0/1 | -",
          JOB_STAGE_STEP_RUNNING, JOB_RUNNING, NULL },
        { "a repeat fails: the message names the repeat", "write*3",
          { RUN0, WORKER_OK, STORED, STEP_STARTED, WORKER_FAIL("the disk went away"), STORED, E_END },
          RUN0_ACTIONS "| finish-run:0:succeeded remove-files:0 repeat-step:0/1 flush | begin-step:0/1 | - "
          "| finish-run:0/1:failed remove-files:0 store-end:failed | announce-end:failed",
          JOB_STAGE_ENDED, JOB_FAILED, "repeat 1: the disk went away" },
        { "a repeat refused at start: the message names the step and the repeat", "read,write*2",
          { RUN0, WORKER_OK, STORED, STEP_STARTED, WORKER_OK, STORED, STEP_REFUSED(JOB_REFUSED_VERDICT, "mounted"),
            STORED, E_END },
          RUN0_ACTIONS "| finish-run:0:succeeded remove-files:0 next-step:1 flush | begin-step:1 | - "
          "| finish-run:1:succeeded remove-files:1 repeat-step:1/1 flush | begin-step:1/1 | store-end:failed "
          "| announce-end:failed",
          JOB_STAGE_ENDED, JOB_FAILED,
          "step 1 (write) repeat 1: refused at start (org.benchd.Benchd1.Error.Unsafe): mounted" },

        /* ---- steps that fail ---- */
        { "the worker fails", "write", { RUN0, WORKER_FAIL("worker exited with status 3 without a result"), STORED, E_END },
          RUN0_ACTIONS "| finish-run:0:failed remove-files:0 store-end:failed | announce-end:failed",
          JOB_STAGE_ENDED, JOB_FAILED, "worker exited with status 3 without a result" },
        { "the second of two steps fails: the message names it", "write,read",
          { RUN0, WORKER_OK, STORED, STEP_STARTED, WORKER_FAIL("the disk went away"), STORED, E_END },
          RUN0_ACTIONS "| finish-run:0:succeeded remove-files:0 next-step:1 flush | begin-step:1 | - "
          "| finish-run:1:failed remove-files:1 store-end:failed | announce-end:failed",
          JOB_STAGE_ENDED, JOB_FAILED, "step 1 (read): the disk went away" },
        { "the worker refuses the target", "write", { RUN0, WORKER_UNSAFE("/dev/loop7 is mounted on /mnt"), STORED, E_END },
          RUN0_ACTIONS "| finish-run:0:failed remove-files:0 store-end:failed | announce-end:failed",
          JOB_STAGE_ENDED, JOB_FAILED,
          "refused by the worker (org.benchd.Benchd1.Error.Unsafe): /dev/loop7 is mounted on /mnt" },
        { "refused at start by the verdict", "write",
          { START, STORED, STEP_REFUSED(JOB_REFUSED_VERDICT, "/dev/loop7 now carries an ext4 signature"), STORED, E_END },
          "store-running | announce-started begin-step:0 | store-end:failed | announce-end:failed",
          JOB_STAGE_ENDED, JOB_FAILED,
          "refused at start (org.benchd.Benchd1.Error.Unsafe): /dev/loop7 now carries an ext4 signature" },
        { "the second step refused at start", "write,read",
          { RUN0, WORKER_OK, STORED, STEP_REFUSED(JOB_REFUSED_VERDICT, "the target changed"), STORED, E_END },
          RUN0_ACTIONS "| finish-run:0:succeeded remove-files:0 next-step:1 flush | begin-step:1 | store-end:failed "
          "| announce-end:failed",
          JOB_STAGE_ENDED, JOB_FAILED, "step 1 (read): refused at start (org.benchd.Benchd1.Error.Unsafe): the target changed" },
        { "the spec cannot be serialised", "write", { START, STORED, STEP_REFUSED(JOB_REFUSED_SPEC, "Cannot allocate memory"), E_END },
          "store-running | announce-started begin-step:0 | store-end:failed",
          JOB_STAGE_ENDING, JOB_RUNNING, "cannot serialise the spec of step 0: Cannot allocate memory" },
        { "the run's row is refused for good", "write", { START, STORED, STEP_REFUSED(JOB_REFUSED_RUN, "Invalid argument"), E_END },
          "store-running | announce-started begin-step:0 | store-end:failed",
          JOB_STAGE_ENDING, JOB_RUNNING, "cannot record the run of step 0 in the database: Invalid argument" },
        { "the worker cannot be started", "write",
          { START, STORED, STEP_REFUSED(JOB_REFUSED_WORKER, "/nonexistent: No such file or directory"), STORED, E_END },
          "store-running | announce-started begin-step:0 | store-end:failed | announce-end:failed",
          JOB_STAGE_ENDED, JOB_FAILED, "cannot start the worker /nonexistent: No such file or directory" },
        { "running refused for good: it started, and failed", "write",
          { START, REFUSED("database disk image is malformed"), STORED, E_END },
          "store-running | announce-started store-end:failed | announce-end:failed",
          JOB_STAGE_ENDED, JOB_FAILED, "cannot record in the database that the job started: database disk image is malformed" },

        /* ---- the database refuses writes for a while ---- */
        { "running waits: the scheduler is asked again after the retry", "write",
          { START, FAILED(EBUSY), START, RETRY, START, STORED, E_END },
          "store-running | store-wait:EBUSY | - | schedule | store-running | announce-started begin-step:0",
          JOB_STAGE_STEP_STARTING, JOB_RUNNING, NULL },
        { "the run's row waits: the verdict and the row again after the retry", "write",
          { START, STORED, FAILED(ENOSPC), RETRY, STORED, STEP_STARTED, E_END },
          "store-running | announce-started begin-step:0 | store-wait:ENOSPC | flush | begin-step:0 | -",
          JOB_STAGE_STEP_RUNNING, JOB_RUNNING, NULL },
        { "samples wait: no flush while waiting, the retry writes them", "write",
          { RUN0, RESULTS, FAILED(EROFS), RESULTS, RESULTS, RETRY, FAILED(EROFS), RETRY, STORED, RESULTS, E_END },
          RUN0_ACTIONS "| flush | store-wait:EROFS | - | - | flush | store-wait:EROFS | flush | - | flush",
          JOB_STAGE_STEP_RUNNING, JOB_RUNNING, NULL },
        { "the worker ends while samples wait: its end is tried at once", "write",
          { RUN0, RESULTS, FAILED(ENOSPC), WORKER_OK, FAILED(ENOSPC), RETRY, STORED, E_END },
          RUN0_ACTIONS "| flush | store-wait:ENOSPC | finish-run:0:succeeded remove-files:0 store-end:succeeded "
          "| store-wait:ENOSPC | flush | announce-end:succeeded",
          JOB_STAGE_ENDED, JOB_SUCCEEDED, NULL },
        { "the next step waits for the first's results", "write,read",
          { RUN0, WORKER_OK, FAILED(EBUSY), RETRY, FAILED(EBUSY), RETRY, STORED, E_END },
          RUN0_ACTIONS "| finish-run:0:succeeded remove-files:0 next-step:1 flush | store-wait:EBUSY | flush "
          "| store-wait:EBUSY | flush | begin-step:1",
          JOB_STAGE_STEP_STARTING, JOB_RUNNING, NULL },
        { "a store failure during the end: not cancellable, announced once stored", "write",
          { RUN0, WORKER_OK, FAILED(ENOSPC), CANCEL, RETRY, FAILED(ENOSPC), RETRY, STORED, E_END },
          RUN0_ACTIONS "| finish-run:0:succeeded remove-files:0 store-end:succeeded | store-wait:ENOSPC | reply:EBUSY "
          "| flush | store-wait:ENOSPC | flush | announce-end:succeeded",
          JOB_STAGE_ENDED, JOB_SUCCEEDED, NULL },

        /* ---- cancelling ---- */
        { "cancel while queued", "write", { CANCEL, STORED, E_END },
          "store-cancel:cancelled | announce-end:cancelled",
          JOB_STAGE_ENDED, JOB_CANCELLED, "cancelled by uid 1000 before it started" },
        { "cancel while queued, the database locked: stays queued, the caller tries again", "write",
          { CANCEL, FAILED(EBUSY), CANCEL, STORED, E_END },
          "store-cancel:cancelled | reply:EAGAIN | store-cancel:cancelled | announce-end:cancelled",
          JOB_STAGE_ENDED, JOB_CANCELLED, "cancelled by uid 1000 before it started" },
        { "cancel while queued, the database full", "write", { CANCEL, FAILED(ENOSPC), E_END },
          "store-cancel:cancelled | reply:ENOSPC", JOB_STAGE_QUEUED, JOB_QUEUED, NULL },
        { "cancel while it waits to start", "write", { START, FAILED(EBUSY), CANCEL, STORED, E_END },
          "store-running | store-wait:EBUSY | store-cancel:cancelled | announce-end:cancelled",
          JOB_STAGE_ENDED, JOB_CANCELLED, "cancelled by uid 1000 before it started" },
        { "cancel while running: the worker is stopped once", "write", { RUN0, CANCEL, CANCEL, WORKER_STOP, STORED, E_END },
          RUN0_ACTIONS "| stop-worker reply:0 | reply:0 | finish-run:0:cancelled remove-files:0 store-end:cancelled "
          "| announce-end:cancelled",
          JOB_STAGE_ENDED, JOB_CANCELLED, MSG_CANCELLED },
        { "cancel after the last step's RESULT: it counts", "write", { RUN0, CANCEL, WORKER_OK, STORED, E_END },
          RUN0_ACTIONS "| stop-worker reply:0 | finish-run:0:succeeded remove-files:0 store-end:succeeded "
          "| announce-end:succeeded",
          JOB_STAGE_ENDED, JOB_SUCCEEDED, NULL },
        { "cancel after the first of two steps' RESULT: the second does not run", "write,read",
          { RUN0, CANCEL, WORKER_OK, STORED, E_END },
          RUN0_ACTIONS "| stop-worker reply:0 | finish-run:0:succeeded remove-files:0 store-end:cancelled "
          "| announce-end:cancelled",
          JOB_STAGE_ENDED, JOB_CANCELLED, MSG_CANCELLED },
        { "cancel between steps while the database refuses", "write,read",
          { RUN0, WORKER_OK, FAILED(EBUSY), CANCEL, STORED, E_END },
          RUN0_ACTIONS "| finish-run:0:succeeded remove-files:0 next-step:1 flush | store-wait:EBUSY "
          "| reply:0 store-end:cancelled | announce-end:cancelled",
          JOB_STAGE_ENDED, JOB_CANCELLED, MSG_CANCELLED },
        { "cancel while its step is being set up, then it starts", "write", { START, STORED, CANCEL, STEP_STARTED, E_END },
          "store-running | announce-started begin-step:0 | reply:0 | stop-worker",
          JOB_STAGE_STEP_RUNNING, JOB_RUNNING, NULL },
        { "cancel while its step is being set up, then its row waits", "write",
          { START, STORED, CANCEL, FAILED(EBUSY), STORED, E_END },
          "store-running | announce-started begin-step:0 | reply:0 | store-end:cancelled | announce-end:cancelled",
          JOB_STAGE_ENDED, JOB_CANCELLED, MSG_CANCELLED },
        { "cancel after the end", "write", { RUN0, WORKER_OK, STORED, CANCEL, E_END },
          RUN0_ACTIONS "| finish-run:0:succeeded remove-files:0 store-end:succeeded | announce-end:succeeded | reply:EBUSY",
          JOB_STAGE_ENDED, JOB_SUCCEEDED, NULL },

        /* ---- benchd stops ---- */
        { "interrupt while queued: it stays queued", "write", { INTERRUPT, E_END }, "-", JOB_STAGE_QUEUED, JOB_QUEUED, NULL },
        { "interrupt while running", "write", { RUN0, INTERRUPT, WORKER_STOP, STORED, E_END },
          RUN0_ACTIONS "| stop-worker:interrupt | finish-run:0:interrupted remove-files:0 store-end:interrupted "
          "| announce-end:interrupted",
          JOB_STAGE_ENDED, JOB_INTERRUPTED, MSG_INTERRUPTED },
        { "interrupt, then cancel: still interrupted", "write", { RUN0, INTERRUPT, CANCEL, WORKER_STOP, E_END },
          RUN0_ACTIONS "| stop-worker:interrupt | stop-worker reply:0 | finish-run:0:interrupted remove-files:0 "
          "store-end:interrupted",
          JOB_STAGE_ENDING, JOB_RUNNING, MSG_INTERRUPTED },
        { "interrupt after the last step's RESULT: it counts", "write", { RUN0, INTERRUPT, WORKER_OK, STORED, E_END },
          RUN0_ACTIONS "| stop-worker:interrupt | finish-run:0:succeeded remove-files:0 store-end:succeeded "
          "| announce-end:succeeded",
          JOB_STAGE_ENDED, JOB_SUCCEEDED, NULL },
        { "interrupt after the first of two steps' RESULT", "write,read", { RUN0, INTERRUPT, WORKER_OK, E_END },
          RUN0_ACTIONS "| stop-worker:interrupt | finish-run:0:succeeded remove-files:0 store-end:interrupted",
          JOB_STAGE_ENDING, JOB_RUNNING, MSG_INTERRUPTED },
        { "interrupt, and the end cannot be stored: the last try", "write", { RUN0, INTERRUPT, WORKER_STOP, FAILED(ENOSPC), E_END },
          RUN0_ACTIONS "| stop-worker:interrupt | finish-run:0:interrupted remove-files:0 store-end:interrupted "
          "| store-give-up:ENOSPC",
          JOB_STAGE_ENDING, JOB_RUNNING, MSG_INTERRUPTED },
        { "interrupt while samples wait: the worker is still waited for", "write",
          { RUN0, RESULTS, FAILED(EIO), INTERRUPT, WORKER_STOP, STORED, E_END },
          RUN0_ACTIONS "| flush | store-wait:EIO | stop-worker:interrupt | finish-run:0:interrupted remove-files:0 "
          "store-end:interrupted | announce-end:interrupted",
          JOB_STAGE_ENDED, JOB_INTERRUPTED, MSG_INTERRUPTED },
        { "interrupt, then samples cannot be stored: waits while the worker runs, gives up after", "write",
          { RUN0, INTERRUPT, RESULTS, FAILED(EIO), WORKER_STOP, FAILED(EIO), E_END },
          RUN0_ACTIONS "| stop-worker:interrupt | flush | store-wait:EIO | finish-run:0:interrupted remove-files:0 "
          "store-end:interrupted | store-give-up:EIO",
          JOB_STAGE_ENDING, JOB_RUNNING, MSG_INTERRUPTED },
        { "interrupt while the end waits: one more try, which works", "write",
          { RUN0, WORKER_OK, FAILED(ENOSPC), INTERRUPT, STORED, E_END },
          RUN0_ACTIONS "| finish-run:0:succeeded remove-files:0 store-end:succeeded | store-wait:ENOSPC | flush "
          "| announce-end:succeeded",
          JOB_STAGE_ENDED, JOB_SUCCEEDED, NULL },
        { "interrupt while the end waits: one more try, which fails", "write",
          { RUN0, WORKER_FAIL("boom"), FAILED(ENOSPC), INTERRUPT, FAILED(ENOSPC), E_END },
          RUN0_ACTIONS "| finish-run:0:failed remove-files:0 store-end:failed | store-wait:ENOSPC | flush "
          "| store-give-up:ENOSPC",
          JOB_STAGE_ENDING, JOB_RUNNING, "boom" },
        { "interrupt between steps while the database refuses", "write,read",
          { RUN0, WORKER_OK, FAILED(EBUSY), INTERRUPT, FAILED(EBUSY), E_END },
          RUN0_ACTIONS "| finish-run:0:succeeded remove-files:0 next-step:1 flush | store-wait:EBUSY "
          "| store-end:interrupted | store-give-up:EBUSY",
          JOB_STAGE_ENDING, JOB_RUNNING, MSG_INTERRUPTED_WAITING },
        { "interrupt while the run's row waits", "write", { START, STORED, FAILED(EBUSY), INTERRUPT, STORED, E_END },
          "store-running | announce-started begin-step:0 | store-wait:EBUSY | store-end:interrupted "
          "| announce-end:interrupted",
          JOB_STAGE_ENDED, JOB_INTERRUPTED, MSG_INTERRUPTED_WAITING },
        /* The refusal is what happened; its end is then the last try. */
        { "interrupt during a refused start", "write",
          { START, STORED, INTERRUPT, STEP_REFUSED(JOB_REFUSED_VERDICT, "/dev/loop7 is mounted"), FAILED(EBUSY), E_END },
          "store-running | announce-started begin-step:0 | - | store-end:failed | store-give-up:EBUSY",
          JOB_STAGE_ENDING, JOB_RUNNING, "refused at start (org.benchd.Benchd1.Error.Unsafe): /dev/loop7 is mounted" },
        { "cancel while its step's target is checked: it ends without a worker", "write",
          { START, STORED, CANCEL, STEP_REFUSED(JOB_REFUSED_STOPPED, NULL), STORED, E_END },
          "store-running | announce-started begin-step:0 | reply:0 | store-end:cancelled | announce-end:cancelled",
          JOB_STAGE_ENDED, JOB_CANCELLED, MSG_CANCELLED },
        { "interrupt while its step's target is checked", "write",
          { START, STORED, INTERRUPT, STEP_REFUSED(JOB_REFUSED_STOPPED, NULL), STORED, E_END },
          "store-running | announce-started begin-step:0 | - | store-end:interrupted | announce-end:interrupted",
          JOB_STAGE_ENDED, JOB_INTERRUPTED, MSG_INTERRUPTED },
        { "not started for a stop nobody asked for", "write",
          { START, STORED, STEP_REFUSED(JOB_REFUSED_STOPPED, NULL), E_END },
          "store-running | announce-started begin-step:0 | EINVAL",
          JOB_STAGE_STEP_STARTING, JOB_RUNNING, NULL },
        { "interrupt while its step is being set up, then it starts", "write", { START, STORED, INTERRUPT, STEP_STARTED, E_END },
          "store-running | announce-started begin-step:0 | - | stop-worker:interrupt",
          JOB_STAGE_STEP_RUNNING, JOB_RUNNING, NULL },
        { "interrupt while its step is being set up, then its row waits", "write",
          { START, STORED, INTERRUPT, FAILED(EBUSY), FAILED(EBUSY), E_END },
          "store-running | announce-started begin-step:0 | - | store-end:interrupted | store-give-up:EBUSY",
          JOB_STAGE_ENDING, JOB_RUNNING, MSG_INTERRUPTED_WAITING },
        { "interrupt while running is being stored, then it is", "write", { START, INTERRUPT, STORED, STORED, E_END },
          "store-running | - | announce-started store-end:interrupted | announce-end:interrupted",
          JOB_STAGE_ENDED, JOB_INTERRUPTED, MSG_INTERRUPTED },
        { "interrupt while running is being stored, which fails: the last try", "write",
          { START, INTERRUPT, FAILED(EBUSY), E_END },
          "store-running | - | store-give-up:EBUSY", JOB_STAGE_QUEUED, JOB_QUEUED, NULL },
        { "interrupt after the end", "write", { RUN0, WORKER_OK, STORED, INTERRUPT, E_END },
          RUN0_ACTIONS "| finish-run:0:succeeded remove-files:0 store-end:succeeded | announce-end:succeeded | -",
          JOB_STAGE_ENDED, JOB_SUCCEEDED, NULL },

        /* ---- a filesystem matrix in rounds: entry by entry, the order alternating ---- */
        { "repeat=2 on ext4 and btrfs: round 0 forward, round 1 backward, each entry's steps in order",
          "write*2@ext4,read*2@ext4,write*2@btrfs,read*2@btrfs",
          { RUN0, WORKER_OK, STORED, STEP_STARTED, WORKER_OK, STORED, STEP_STARTED, WORKER_OK, STORED, STEP_STARTED,
            WORKER_OK, STORED, STEP_STARTED, WORKER_OK, STORED, STEP_STARTED, WORKER_OK, STORED, STEP_STARTED,
            WORKER_OK, STORED, STEP_STARTED, WORKER_OK, STORED, E_END },
          RUN0_ACTIONS "| finish-run:0:succeeded remove-files:0 next-step:1 flush | begin-step:1 | - "
          "| finish-run:1:succeeded remove-files:1 next-step:2 flush | begin-step:2 | - "
          "| finish-run:2:succeeded remove-files:2 next-step:3 flush | begin-step:3 | - "
          "| finish-run:3:succeeded remove-files:3 next-step:2/1 flush | begin-step:2/1 | - "
          "| finish-run:2/1:succeeded remove-files:2 next-step:3/1 flush | begin-step:3/1 | - "
          "| finish-run:3/1:succeeded remove-files:3 next-step:0/1 flush | begin-step:0/1 | - "
          "| finish-run:0/1:succeeded remove-files:0 next-step:1/1 flush | begin-step:1/1 | - "
          "| finish-run:1/1:succeeded remove-files:1 store-end:succeeded | announce-end:succeeded",
          JOB_STAGE_ENDED, JOB_SUCCEEDED, NULL },
        { "until_stddev=5% in rounds: another round while any entry is unstable, at most max_repeats",
          "write~5000/4@ext4,write~5000/4@btrfs",
          { RUN0, WORKER_FIG(100), STORED, STEP_STARTED, WORKER_FIG(100), STORED, STEP_STARTED,
            WORKER_FIG(100, 120), STORED, STEP_STARTED, WORKER_FIG(100, 100), STORED, STEP_STARTED,
            WORKER_FIG(100, 100, 100), STORED, STEP_STARTED, WORKER_FIG(100, 120, 80), STORED, STEP_STARTED,
            WORKER_FIG(100, 120, 80, 100), STORED, STEP_STARTED, WORKER_FIG(100, 100, 100, 100), STORED, E_END },
          RUN0_ACTIONS "| finish-run:0:succeeded remove-files:0 next-step:1 flush | begin-step:1 | - "
          "| finish-run:1:succeeded remove-files:1 next-step:1/1 flush | begin-step:1/1 | - "
          "| finish-run:1/1:succeeded remove-files:1 next-step:0/1 flush | begin-step:0/1 | - "
          "| finish-run:0/1:succeeded remove-files:0 next-step:0/2 flush | begin-step:0/2 | - "
          "| finish-run:0/2:succeeded remove-files:0 next-step:1/2 flush | begin-step:1/2 | - "
          "| finish-run:1/2:succeeded remove-files:1 next-step:1/3 flush | begin-step:1/3 | - "
          "| finish-run:1/3:succeeded remove-files:1 next-step:0/3 flush | begin-step:0/3 | - "
          "| finish-run:0/3:succeeded remove-files:0 store-end:succeeded | announce-end:succeeded",
          JOB_STAGE_ENDED, JOB_SUCCEEDED, NULL },
        { "until_stddev in rounds: every entry stable after the third round ends the job",
          "write~5000/9@ext4,write~5000/9@btrfs",
          { RUN0, WORKER_FIG(100), STORED, STEP_STARTED, WORKER_FIG(50), STORED, STEP_STARTED,
            WORKER_FIG(50, 50), STORED, STEP_STARTED, WORKER_FIG(100, 100), STORED, STEP_STARTED,
            WORKER_FIG(100, 100, 101), STORED, STEP_STARTED, WORKER_FIG(50, 50, 50), STORED, E_END },
          RUN0_ACTIONS "| finish-run:0:succeeded remove-files:0 next-step:1 flush | begin-step:1 | - "
          "| finish-run:1:succeeded remove-files:1 next-step:1/1 flush | begin-step:1/1 | - "
          "| finish-run:1/1:succeeded remove-files:1 next-step:0/1 flush | begin-step:0/1 | - "
          "| finish-run:0/1:succeeded remove-files:0 next-step:0/2 flush | begin-step:0/2 | - "
          "| finish-run:0/2:succeeded remove-files:0 next-step:1/2 flush | begin-step:1/2 | - "
          "| finish-run:1/2:succeeded remove-files:1 store-end:succeeded | announce-end:succeeded",
          JOB_STAGE_ENDED, JOB_SUCCEEDED, NULL },
        { "a failure in round 1 ends the job, naming the round", "write*3@ext4,write*3@btrfs",
          { RUN0, WORKER_OK, STORED, STEP_STARTED, WORKER_OK, STORED, STEP_STARTED, WORKER_FAIL("no space"), STORED,
            E_END },
          RUN0_ACTIONS "| finish-run:0:succeeded remove-files:0 next-step:1 flush | begin-step:1 | - "
          "| finish-run:1:succeeded remove-files:1 next-step:1/1 flush | begin-step:1/1 | - "
          "| finish-run:1/1:failed remove-files:1 store-end:failed | announce-end:failed",
          JOB_STAGE_ENDED, JOB_FAILED, "step 1 (write) round 1: no space" },
        { "a matrix that runs once has no rounds", "write@ext4,write@btrfs",
          { RUN0, WORKER_OK, STORED, STEP_STARTED, WORKER_OK, STORED, E_END },
          RUN0_ACTIONS "| finish-run:0:succeeded remove-files:0 next-step:1 flush | begin-step:1 | - "
          "| finish-run:1:succeeded remove-files:1 store-end:succeeded | announce-end:succeeded",
          JOB_STAGE_ENDED, JOB_SUCCEEDED, NULL },

        /* ---- events that cannot happen in the stage change nothing ---- */
        { "out of place", "write",
          { WORKER_OK, STORED, RETRY, RESULTS, STEP_STARTED, REFUSED("x"), START, STORED, START, WORKER_OK, RETRY, E_END },
          "EINVAL | EINVAL | EINVAL | EINVAL | EINVAL | EINVAL | store-running | announce-started begin-step:0 | EINVAL "
          "| EINVAL | EINVAL",
          JOB_STAGE_STEP_STARTING, JOB_RUNNING, NULL },
        { "a worker stopped unasked counts as cancelled", "write", { RUN0, WORKER_STOP, E_END },
          RUN0_ACTIONS "| finish-run:0:cancelled remove-files:0 store-end:cancelled",
          JOB_STAGE_ENDING, JOB_RUNNING, MSG_CANCELLED },
};

static const char *errno_name(int e) {
        switch (e) {
        case 0: return "0";
        case -EBUSY: return "EBUSY";
        case -EAGAIN: return "EAGAIN";
        case -ENOSPC: return "ENOSPC";
        case -EROFS: return "EROFS";
        case -EIO: return "EIO";
        default: return "E?";
        }
}

static void format_action(const JobAction *a, char *buf, size_t size) {
        const char *name = job_action_type_to_string(a->type);

        char step[32];

        if (a->repeat > 0 || a->type == JOB_ACTION_REPEAT_STEP)
                snprintf(step, sizeof(step), "%u/%u", a->step, a->repeat);
        else
                snprintf(step, sizeof(step), "%u", a->step);
        switch (a->type) {
        case JOB_ACTION_BEGIN_STEP:
        case JOB_ACTION_REMOVE_FILES:
        case JOB_ACTION_NEXT_STEP:
        case JOB_ACTION_REPEAT_STEP:
                snprintf(buf, size, "%s:%s", name, step);
                break;
        case JOB_ACTION_FINISH_RUN:
                snprintf(buf, size, "%s:%s:%s", name, step, job_state_to_string(a->state));
                break;
        case JOB_ACTION_STORE_CANCEL:
        case JOB_ACTION_STORE_END:
        case JOB_ACTION_ANNOUNCE_END:
                snprintf(buf, size, "%s:%s", name, job_state_to_string(a->state));
                break;
        case JOB_ACTION_STORE_WAIT:
        case JOB_ACTION_STORE_GIVE_UP:
        case JOB_ACTION_REPLY:
                snprintf(buf, size, "%s:%s", name, errno_name(a->error));
                break;
        case JOB_ACTION_STOP_WORKER:
                snprintf(buf, size, "%s%s", name, a->interrupt ? ":interrupt" : "");
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
        _cleanup_free_ char *copy = strdup(row->steps);
        JobSpec steps[8];
        size_t n_steps = 0;
        char got[4096] = "", *save = NULL;
        JobCore c;

        for (char *w = strtok_r(copy, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
                char *star = strchr(w, '*'), *tilde = strchr(w, '~'), *at = strchr(w, '@');

                ck_assert_uint_lt(n_steps, ELEMENTSOF(steps));
                spec_init(&steps[n_steps]);
                if (at) {
                        ck_assert_int_eq(strv_push(&steps[n_steps].filesystems, at + 1), 0);
                        ck_assert_int_eq(strv_push(&steps[n_steps].devices, "/dev/loop0"), 0);
                        steps[n_steps].layout = LAYOUT_SINGLE;
                        *at = 0;
                }
                if (tilde) {
                        unsigned milli, max;
                        ck_assert_int_eq(sscanf(tilde + 1, "%u/%u", &milli, &max), 2);
                        steps[n_steps].until_stddev_milli = milli;
                        steps[n_steps].max_repeats = max;
                        *tilde = 0;
                }
                if (star) {
                        steps[n_steps].repeat = (uint32_t) atoi(star + 1);
                        *star = 0;
                }
                steps[n_steps].workload = workload_from_string(w);
                ck_assert_int_ge(steps[n_steps].workload, 0);
                n_steps++;
        }
        job_core_init(&c, steps, n_steps);

        for (size_t i = 0; row->events[i].type != _JOB_EVENT_MAX; i++) {
                JobActions a;
                int r;

                if (i > 0)
                        append(got, sizeof(got), " | ");
                r = job_core_handle(&c, &row->events[i], &a);
                if (r < 0) {
                        ck_assert_int_eq(r, -EINVAL);
                        ck_assert_uint_eq(a.n, 0);
                        append(got, sizeof(got), "EINVAL");
                        continue;
                }
                if (a.n == 0)
                        append(got, sizeof(got), "-");
                for (size_t k = 0; k < a.n; k++) {
                        char one[64];

                        /* A request comes last, and there is at most one. */
                        if (a.actions[k].type <= JOB_ACTION_STORE_END)
                                ck_assert_msg(k == a.n - 1, "%s: request %s is not the last action", row->name,
                                              job_action_type_to_string(a.actions[k].type));
                        format_action(&a.actions[k], one, sizeof(one));
                        if (k > 0)
                                append(got, sizeof(got), " ");
                        append(got, sizeof(got), one);
                }
                /* Whatever the core says the job's error is, it says in every action that carries it. */
                for (size_t k = 0; k < a.n; k++)
                        if (a.actions[k].type == JOB_ACTION_STORE_END || a.actions[k].type == JOB_ACTION_STORE_CANCEL)
                                ck_assert_ptr_eq(a.actions[k].text, c.end_error);
        }

        ck_assert_msg(streq(got, row->actions), "%s:\n  got      %s\n  expected %s", row->name, got, row->actions);
        ck_assert_msg(c.stage == row->stage, "%s: stage %s, expected %s", row->name, job_stage_to_string(c.stage),
                      job_stage_to_string(row->stage));
        ck_assert_msg(c.state == row->state, "%s: state %s, expected %s", row->name, job_state_to_string(c.state),
                      job_state_to_string(row->state));
        if (c.stage == JOB_STAGE_ENDING || c.stage == JOB_STAGE_ENDED) {
                if (row->error)
                        ck_assert_msg(streq_ptr(c.end_error, row->error), "%s: error \"%s\", expected \"%s\"", row->name,
                                      strna(c.end_error), row->error);
                else
                        ck_assert_msg(!c.end_error, "%s: unexpected error \"%s\"", row->name, c.end_error);
        } else
                ck_assert_msg(!row->error, "%s: the row expects an error but the job has not ended", row->name);

        job_core_clear(&c);
        for (size_t i = 0; i < n_steps; i++)
                spec_clear(&steps[i]);
}
END_TEST

/* What waits for the database, as job.c's Error message names it. */
static const struct {
        JobEvent events[8];
        JobAfterStore after;
        bool worker;
} after_cases[] = {
        { { E_END }, JOB_AFTER_STORE_NONE, false },
        { { START, FAILED(EBUSY), E_END }, JOB_AFTER_STORE_START, false },
        { { START, FAILED(EBUSY), RETRY, E_END }, JOB_AFTER_STORE_NONE, false },
        { { START, STORED, FAILED(ENOSPC), E_END }, JOB_AFTER_STORE_STEP, false },
        { { RUN0, E_END }, JOB_AFTER_STORE_NONE, true },
        { { RUN0, RESULTS, FAILED(ENOSPC), E_END }, JOB_AFTER_STORE_NONE, true },
        { { RUN0, WORKER_OK, FAILED(ENOSPC), E_END }, JOB_AFTER_STORE_END, false },
        { { RUN0, WORKER_OK, STORED, E_END }, JOB_AFTER_STORE_NONE, false },
};

START_TEST(test_after_store) {
        JobSpec step;
        JobCore c;

        spec_init(&step);
        step.workload = WORKLOAD_WRITE;
        job_core_init(&c, &step, 1);
        for (size_t i = 0; after_cases[_i].events[i].type != _JOB_EVENT_MAX; i++) {
                JobActions a;
                ck_assert_int_eq(job_core_handle(&c, &after_cases[_i].events[i], &a), 0);
        }
        ck_assert_int_eq(job_core_after_store(&c), after_cases[_i].after);
        ck_assert_int_eq(job_core_has_worker(&c), after_cases[_i].worker);
        job_core_clear(&c);
        spec_clear(&step);
}
END_TEST

/* ---- the job state names ---- */

static const struct {
        JobState state;
        const char *name;
        bool final;
} state_cases[] = {
        { JOB_QUEUED, "queued", false },
        { JOB_RUNNING, "running", false },
        { JOB_SUCCEEDED, "succeeded", true },
        { JOB_FAILED, "failed", true },
        { JOB_CANCELLED, "cancelled", true },
        { JOB_INTERRUPTED, "interrupted", true },
};

START_TEST(test_state_names) {
        ck_assert_str_eq(job_state_to_string(state_cases[_i].state), state_cases[_i].name);
        ck_assert_int_eq(job_state_from_string(state_cases[_i].name), state_cases[_i].state);
        ck_assert_int_eq(job_state_is_final(state_cases[_i].state), state_cases[_i].final);
}
END_TEST

START_TEST(test_state_invalid) {
        ck_assert_uint_eq(ELEMENTSOF(state_cases), _JOB_STATE_MAX);
        ck_assert_ptr_null(job_state_to_string(_JOB_STATE_MAX));
        ck_assert_ptr_null(job_state_to_string(_JOB_STATE_INVALID));
        ck_assert_int_eq(job_state_from_string(NULL), _JOB_STATE_INVALID);
        ck_assert_int_eq(job_state_from_string(""), _JOB_STATE_INVALID);
        ck_assert_int_eq(job_state_from_string("Queued"), _JOB_STATE_INVALID);
        ck_assert_int_eq(job_state_from_string("done"), _JOB_STATE_INVALID);
        ck_assert(!job_state_is_final(_JOB_STATE_INVALID));
        ck_assert(!job_state_is_final(_JOB_STATE_MAX));
}
END_TEST

static Suite *job_core_suite(void) {
        Suite *s = suite_create("job-core");
        TCase *tc = tcase_create("job-core");

        tcase_add_loop_test(tc, test_rows, 0, ELEMENTSOF(rows));
        tcase_add_loop_test(tc, test_after_store, 0, ELEMENTSOF(after_cases));
        tcase_add_loop_test(tc, test_state_names, 0, ELEMENTSOF(state_cases));
        tcase_add_test(tc, test_state_invalid);
        suite_add_tcase(s, tc);
        return s;
}

int main(void) {
        SRunner *sr = srunner_create(job_core_suite());
        srunner_run_all(sr, CK_NORMAL);
        int failed = srunner_ntests_failed(sr);
        srunner_free(sr);
        return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
