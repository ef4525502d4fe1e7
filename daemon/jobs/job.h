/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A job: a validated spec expanded into steps, its state machine (queued → running → succeeded,
 * failed, cancelled or interrupted), the runs it produced, and its D-Bus object
 * /org/benchd/Benchd1/job/<id> (org.benchd.Benchd1.Job). While running, it drives one Worker per
 * step and records runs, samples and histograms in the database. What the database does not take
 * at once waits in the job's DbQueue and is retried; the bus shows a state only once it is stored.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <systemd/sd-bus.h>
#include <systemd/sd-event.h>

#include "store/db-queue.h"
#include "shared/job-state.h"
#include "shared/proto.h"
#include "shared/spec-check.h"
#include "shared/spec.h"
#include "jobs/supervisor.h"

typedef struct Manager Manager;
typedef struct Job Job;

/* What waits for the database before the job can go on. */
typedef enum JobAfterStore {
        JOB_AFTER_STORE_NONE,
        JOB_AFTER_STORE_START,  /* queued: "running" could not be stored; the scheduler tries again */
        JOB_AFTER_STORE_STEP,   /* the step current_step starts once its run can be recorded */
        JOB_AFTER_STORE_END,    /* the job has ended (end_state); that is announced once it is stored */
} JobAfterStore;

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

struct Job {
        Manager *manager;
        Job *prev, *next;

        uint64_t id;
        char *path;
        JobState state;
        JobSpec spec;           /* as submitted, finalized */
        JobSpec *steps;         /* finalized, one per step */
        TargetCheck *idents;    /* one per step: its target when it was checked at SubmitJob (an
                                 * unknown kind for jobs queued before benchd recorded them) */
        size_t n_steps;
        char *spec_json;
        uint32_t submitted_by;
        uint64_t submitted_usec;
        uint64_t started_usec;
        uint64_t finished_usec;
        double progress;
        uint32_t current_step;
        char *phase;
        uint64_t *runs;
        size_t n_runs;
        char *error;
        bool have_live;
        ProtoSample live;

        /* The running step. */
        Worker *worker;
        uint64_t run_id;
        bool cancel_requested;
        bool interrupt_requested;

        /* Writes not stored yet (samples in batches, and whatever the database refused), and the
         * retry while it refuses them. */
        DbQueue *store;
        JobAfterStore after_store;
        sd_event_source *store_retry_source;
        uint64_t store_retry_usec;      /* the next wait */
        unsigned store_failures;        /* in a row */
        int store_errno;                /* of the last failure, while failing */
        JobState end_state;             /* JOB_AFTER_STORE_END: the end waiting to be stored */
        char *end_error;
        uint64_t end_usec;

        sd_event_source *linger_source;
};

/* Takes ownership of the steps, their identities and the spec (it is moved; *spec is left
 * initialised). */
int job_new(Manager *m, uint64_t id, JobSpec *spec, JobSpec *steps, TargetCheck *idents, size_t n_steps,
            const char *spec_json, uint32_t submitted_by, uint64_t submitted_usec, Job **ret);
Job *job_free(Job *j);

/* Unlinks an ended job from the manager, removes its object (InterfacesRemoved) and frees it. */
void job_remove(Job *j);
/* Announces the object (InterfacesAdded). */
void job_export(Job *j);

/* Starts the first step; the job ends (failed) at once when that is impossible. */
void job_start(Job *j);
/* Cancels a queued or running job: 0, or -EBUSY for an ended one (also one whose end waits to be
 * stored). A queued job's cancellation is stored at once or not at all: when the database refuses
 * it, the job stays queued and the database's errno is returned (-EAGAIN for a lock). */
int job_cancel(Job *j, uint32_t uid);
/* The NotCancellable error of job id, which has ended in state: what Job.Cancel and
 * Manager.CancelJob reply for a job that ended, in memory or in the database only. */
int job_error_not_cancellable(sd_bus_error *error, uint64_t id, const char *state);
/* job_cancel() with -EBUSY as that error, and a refusing database as Failed or NoSpace. */
int job_cancel_or_error(Job *j, uint32_t uid, sd_bus_error *error);
/* Shutdown: stops the worker; the job ends interrupted when it has exited. A job waiting for the
 * database gets one more try; if that fails too, benchd exits with the job's end not stored, and
 * the next start-up settles it from its runs (manager_load()). */
void job_interrupt(Job *j);

const char *job_workload(Job *j);

/* One a{sv} of the job's properties (ListJobs). */
int job_append_properties(Job *j, sd_bus_message *m);

extern const sd_bus_vtable job_vtable[];
int job_object_find(sd_bus *bus, const char *path, const char *interface, void *userdata,
                    void **found, sd_bus_error *error);
int job_node_enumerator(sd_bus *bus, const char *path, void *userdata, char ***nodes,
                        sd_bus_error *error);
