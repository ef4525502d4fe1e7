/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The Manager object (/org/benchd/Benchd1, org.benchd.Benchd1.Manager): the job queue, which
 * lives in SQLite and is mirrored in memory, the SubmitJob calls waiting for the checks of their
 * targets, the one-step-at-a-time scheduler, the method handlers of the Manager interface, and the
 * daemon's shutdown. It owns the jobs: it gives each one its JobContext and hears back from it
 * through the JobCallbacks there, never the other way round. What the queue does is decided by
 * jobs/queue.h and carried out by manager-queue.c (which defines manager_stop(),
 * manager_submit_internal() and manager_cancel() below); the struct is manager.c's, and the other
 * manager-*.c files use the accessors below and manager-internal.h.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <systemd/sd-bus.h>
#include <systemd/sd-event.h>

#include "store/db.h"
#include "devices/device-manager.h"
#include "jobs/job.h"
#include "shared/regress.h"

typedef struct Manager Manager;

/* MaxQueuedJobsPerUser= (benchd.conf) when not set: the queued jobs of one user but root. */
#define MANAGER_MAX_QUEUED_PER_USER_DEFAULT 16u

typedef struct ManagerConfig {
        const char *db_path;
        const char *worker_path;
        char *const *profile_dirs;
        unsigned max_queue;
        unsigned max_queued_per_user;   /* 0: no bound */
        uint64_t step_grace_usec;       /* StepTimeoutGraceSec= of benchd.conf; 0: the default */
        const RegressConfig *regress;   /* NULL: REGRESS_CONFIG_DEFAULT */
        unsigned sample_retention_days; /* SampleRetentionDays= of benchd.conf; 0: keep for ever */
        const char *metrics_dir;        /* benchd.prom goes here (node_exporter's textfile collector);
                                         * NULL or "": not written */
        bool autorun;                   /* AutoRun= of benchd.conf: act on BENCHD_AUTORUN */
} ManagerConfig;

/* Registers the Manager and job objects on bus; the name is requested by the caller. */
int manager_new(sd_event *event, sd_bus *bus, Db *db, DeviceManager *devices,
                const ManagerConfig *config, Manager **ret);
Manager *manager_free(Manager *m);

/* Start-up: jobs a previous life left running are settled from their newest run (the end that
 * could not be stored then, else interrupted) once their files are removed, so that a benchd
 * killed during the removal starts it again; queued jobs are loaded and scheduled. */
int manager_load(Manager *m);

/* DeviceCallbacks.layout_reported: udev reported an md or device-mapper device. Releases the
 * volumes and arrays of benchd's recorded names that no running step uses (leftovers.h): one a
 * killed worker left, one that was open when benchd last tried, or one the host's incremental
 * assembly made again of a member benchd's stop released. */
void manager_layout_reported(void *userdata);

/* The device inventory, once it runs (it is started after the Manager, whose ObjectManager
 * announces its objects); NULL when it failed to start. */
void manager_set_devices(Manager *m, DeviceManager *devices);

/* Shutdown: stop accepting, stop the running worker; the event loop exits when it and the removal
 * of files are done, or after a bound. */
void manager_stop(Manager *m);

Job *manager_find_job(Manager *m, uint64_t id);

/* The job's steps: the profile's, or the spec (finalized) itself; for a filesystem matrix those
 * once per entry. -errno, with *reterr saying why for a spec or profile that cannot be expanded. */
int manager_expand(Manager *m, const JobSpec *spec, JobSpec **ret_steps, size_t *ret_n, char **reterr);

/* How benchd's own submission ended: r = 0 with the job's id, or a negative errno with message
 * (may be NULL) saying why nothing was queued. Called once, from the event loop, never from
 * within manager_submit_internal(). */
typedef void (*ManagerSubmitDone)(Manager *m, int r, uint64_t id, const char *message, void *userdata);

/* Queues a job as SubmitJob does, for benchd itself (uid 0, no polkit): the targets of steps are
 * checked in a helper process, and done is called when the job is queued or refused. The spec
 * (finalized) and steps (its expansion, possibly fewer) are taken in every case: the spec is left
 * initialised, the steps freed with the job or the refusal.
 * autorun_id > 0: the job is inserted in one transaction with the autoruns row it is for
 * (db_job_insert_autorun()). 0, or a negative errno with error set (queue full, shutting down)
 * and done not called. */
int manager_submit_internal(Manager *m, JobSpec *spec, JobSpec *steps, size_t n_steps, JobTrigger trigger,
                            int64_t autorun_id, ManagerSubmitDone done, void *userdata, sd_bus_error *error);

/* CancelJob and Job.Cancel: root and the job's submitter cancel at once, anyone else after polkit
 * allowed org.benchd.benchd1.cancel. Answers message (now, or later: then returns 1). */
int manager_cancel(Manager *m, sd_bus_message *message, Job *j, sd_bus_error *error);
unsigned manager_queue_length(Manager *m);

/* What the Manager's other files (manager-*.c) read of it; the struct is manager.c's. */
sd_event *manager_event(Manager *m);
sd_bus *manager_bus(Manager *m);
Db *manager_db(Manager *m);
const char *manager_db_path(Manager *m);
char *const *manager_profile_dirs(Manager *m);
const RegressConfig *manager_regress_config(Manager *m);
/* MetricsTextfileDir= of benchd.conf; NULL: off. */
const char *manager_metrics_dir(Manager *m);
/* AutoRun= of benchd.conf. */
bool manager_autorun_enabled(Manager *m);
/* Whether benchd stops (SIGTERM): nothing new is accepted. */
bool manager_is_stopping(Manager *m);
