/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A job: a validated spec expanded into steps, the runs it produced, and the step runner that
 * carries it through its life. What the life is (queued → running → succeeded, failed, cancelled
 * or interrupted, step by step, waiting for the database when it refuses writes) is decided by the
 * pure core in job-core.h; this side does what the core says: the writes, the step verdict, one
 * Worker per step, the retry timer. What the database does not take at once waits in the job's
 * DbQueue; nothing is announced before it is stored.
 *
 * The job knows nothing of its owner: it gets a JobContext (event loop, database, devices, worker)
 * and reports back through the JobCallbacks in it (started, ended, properties changed, files to
 * remove, ...). Its D-Bus object is bus/job-object.c's.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <systemd/sd-event.h>

#include "jobs/job-core.h"
#include "jobs/matrix.h"
#include "jobs/supervisor.h"
#include "jobs/verdict-query.h"
#include "shared/job-state.h"
#include "shared/proto.h"
#include "shared/spec-check.h"
#include "shared/spec.h"
#include "store/db-queue.h"
#include "store/db.h"

typedef struct DeviceManager DeviceManager;
typedef struct Job Job;

/* What a job is told about its owner; every callback gets the context's userdata. */
typedef struct JobCallbacks {
        /* Its "running" is stored: it runs now. */
        void (*started)(Job *j, void *userdata);
        /* Its end is stored and its state final. result: the state, followed by "; not stored: ..."
         * when something of the job could not be stored (JobRemoved's result). It lingers for
         * JOB_LINGER_USEC, then expired() is called. */
        void (*ended)(Job *j, const char *result, void *userdata);
        /* A run of the job that succeeded has its end stored, summary and all (the regression
         * check looks at it then). Called before the job's end is announced. */
        void (*run_stored)(Job *j, uint64_t run_id, void *userdata);
        /* The properties named (Job interface names, NULL-terminated) changed. */
        void (*changed)(Job *j, const char *const *properties, void *userdata);
        /* The job may start now: look at the queue. */
        void (*schedule)(Job *j, void *userdata);
        /* Remove the job's files of step (step < 0: of all its steps) in target, in the background. */
        void (*remove_files)(Job *j, const char *target, int step, void *userdata);
        /* benchd stops and the job's last write failed with no worker left to wait for: exit now;
         * the next start-up settles the job from its runs. */
        void (*give_up)(Job *j, void *userdata);
        /* It has lingered long enough: the owner removes it (and may free it from here). */
        void (*expired)(Job *j, void *userdata);
} JobCallbacks;

typedef struct JobContext {
        sd_event *event;
        Db *db;
        const char *db_path;            /* named in messages */
        DeviceManager *devices;         /* may be NULL when the inventory failed to start */
        const char *worker_path;
        uint64_t step_grace_usec;       /* how long a step may run past worker_timeout_usec()'s estimate */
        const JobCallbacks *callbacks;
        void *userdata;
} JobContext;

/* Samples are written to the database in batches of this many (and at the end of a step). */
#define JOB_SAMPLE_BATCH 10u
/* A write the database refused for a reason that may pass is tried again after 1 s, then after
 * twice as long each time, at most this long apart, for as long as benchd runs. */
#define JOB_STORE_RETRY_MIN_USEC (1u * USEC_PER_SEC)
#define JOB_STORE_RETRY_MAX_USEC (30u * USEC_PER_SEC)
/* Ended jobs keep their object this long. */
#define JOB_LINGER_USEC (10u * 60u * USEC_PER_SEC)
/* ... and at most this many ended jobs are kept (the oldest go first). */
#define JOB_LINGER_MAX 256u
/* A stopped worker gets SIGKILL this long after SIGTERM: at a cancel, and at shutdown. */
#define JOB_CANCEL_KILL_USEC WORKER_KILL_USEC
#define JOB_INTERRUPT_KILL_USEC (3u * USEC_PER_SEC)
/* A matrix step's worker gets this much more time than its workload needs: for the wipe and mkfs
 * (which writes whole inode tables with lazy_itable_init=0) at an entry's first step, for the
 * mount at the others. */
#define JOB_MKFS_TIMEOUT_USEC (15u * 60u * USEC_PER_SEC)
#define JOB_MOUNT_TIMEOUT_USEC (2u * 60u * USEC_PER_SEC)
/* An md array's initial resync (md_resync=wait) has its own allowance, not the mkfs one: the
 * smallest member at the rate md keeps a resync at even while other I/O runs
 * (/proc/sys/dev/raid/speed_limit_min, KiB/s per device; md's default when unreadable), plus this. */
#define JOB_MD_RESYNC_SLACK_USEC (60u * USEC_PER_SEC)
#define JOB_MD_RESYNC_MIN_KIB_S 1000u
#define JOB_MD_SPEED_LIMIT_MIN_PATH "/proc/sys/dev/raid/speed_limit_min"

struct Job {
        const JobContext *ctx;
        Job *prev, *next;               /* the owner's list */

        uint64_t id;
        char *path;                     /* its object path (shared/bus-names.h), for the owner */
        JobCore core;                   /* its stage and state (core.state), current step, ... */
        JobSpec spec;                   /* as submitted, finalized */
        JobSpec *steps;                 /* finalized, one per step */
        TargetCheck *idents;            /* one per step: its target when it was checked at SubmitJob (an
                                         * unknown kind for jobs queued before benchd recorded them) */
        TargetCheck *members;           /* matrix jobs: JOB_STEP_MEMBERS_MAX per step, the identities of
                                         * its devices at SubmitJob (job-steps.h); else NULL */
        size_t n_steps;
        char *spec_json;
        uint32_t submitted_by;
        uint64_t submitted_usec;
        JobTrigger trigger;             /* what queued it (JOB_TRIGGER_BUS unless set after job_new()) */
        uint64_t started_usec;
        uint64_t finished_usec;
        double progress;
        char *phase;
        uint64_t *runs;
        size_t n_runs;
        char *error;
        bool have_live;
        ProtoSample live;
        /* The main figures (stability.h) of the current step's succeeded runs, in order: what the
         * core judges until_stddev on. */
        double figures[SPEC_REPEAT_MAX];
        size_t n_figures;
        /* The same for a matrix in rounds, whose steps take turns: rounds_max() figures per step, step
         * i's from i × that (allocated when the first run ends), and how many each step has. */
        double *round_figures;
        uint32_t *round_n_figures;

        /* The step being started: its target checked in a helper process (verdict-query.h). */
        VerdictQuery *verdict_query;

        /* Matrix jobs: how the current entry's filesystem was made, from its first step's FS_INFO;
         * the entry's later steps mount it again (own_fs: this type and UUID are the job's) and
         * their runs record the same. */
        bool have_entry_fs;
        ProtoFsInfo entry_fs;
        /* ... what each device carries of the job's since (matrix.h): an entry's first step may
         * find an earlier entry's filesystem on its members, and erase exactly that; */
        MatrixMade made;
        /* ... and the one the current entry's first step found there: its type and UUID, or NULL. */
        char *prior_fs_type, *prior_fs_uuid;

        /* The running step. */
        Worker *worker;
        uint64_t run_id;
        const WorkerOutcome *outcome;   /* while its end is handled */

        /* Writes not stored yet (samples in batches, and whatever the database refused), and the
         * retry while it refuses them. */
        DbQueue *store;
        sd_event_source *store_retry_source;
        uint64_t store_retry_usec;      /* the next wait */
        unsigned store_failures;        /* in a row */
        int store_errno;                /* of the last failure, while failing */
        uint64_t *runs_unstored;        /* succeeded runs whose end waits in store: run_stored() once written */
        size_t n_runs_unstored;
        uint64_t end_usec;              /* when it ended (stored as finished_usec) */

        sd_event_source *linger_source;

        /* A fleet step (job-fleet.h): the CLOCK_REALTIME timer Job.Start armed, which sends START. */
        sd_event_source *fleet_timer;
        uint64_t fleet_ready_usec;      /* CLOCK_MONOTONIC: when the step said PHASE ready */
};

/* Takes ownership of the steps (n_steps ≥ 1), their identities (members: NULL, or as job-steps.h
 * says) and the spec (it is moved; *spec is left initialised). ctx must outlive the job. */
int job_new(const JobContext *ctx, uint64_t id, JobSpec *spec, JobSpec *steps, TargetCheck *idents,
            TargetCheck *members, size_t n_steps, const char *spec_json, uint32_t submitted_by,
            uint64_t submitted_usec, Job **ret);
Job *job_free(Job *j);

static inline JobState job_get_state(const Job *j) {
        return j->core.state;
}
static inline uint32_t job_current_step(const Job *j) {
        return j->core.step;
}
const char *job_workload(const Job *j);
/* The current step's matrix entry as "ext4 on loop0" (rounds.h); NULL for a job that is not a
 * matrix (or without memory). */
char *job_entry_place(const Job *j);

static inline uint32_t job_current_repeat(const Job *j) {
        return j->core.repeat;
}
/* The runs the current step plans: repeat, or with until_stddev its max_repeats (it may stop
 * sooner). */
uint32_t job_planned_repeats(const Job *j);

/* Starts the first step; the job ends (failed) at once when that is impossible. */
void job_start(Job *j);
/* Cancels a queued or running job: 0, or -EBUSY for an ended one (also one whose end waits to be
 * stored). A queued job's cancellation is stored at once or not at all: when the database refuses
 * it, the job stays queued and the database's errno is returned (-EAGAIN for a lock). */
int job_cancel(Job *j, uint32_t uid);
/* Shutdown: stops the worker; the job ends interrupted when it has exited. A job waiting for the
 * database gets one more try; if that fails too, give_up() is called and the next start-up
 * settles the job from its runs. */
void job_interrupt(Job *j);
