/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The Manager object. Its handlers parse the message, authorise, call and reply, as systemd's
 * timedated handlers do; what they call to have the queue act is manager-queue.c, the shell of
 * jobs/queue.c's pure core, which carries out what the core decides (the stages of a SubmitJob
 * call, starting and forgetting jobs, cancellations, shutdown). Start-up (settling what a previous
 * life left running, resuming its removals, restoring the queue) is manager-load.c's. The read-only
 * methods (profiles and history) are in manager-history.c, the regression check of each succeeded
 * run and ListRegressions in manager-regress.c; the vtable here lists them all, so the interface is
 * declared in one place. The jobs' objects are job-object.c's. The struct is this file's; the other
 * manager-*.c files read it through the accessors and keep their state in the part that is theirs.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-daemon.h>

#include "bus/manager-import.h"
#include "bus/manager-internal.h"
#include "bus/manager-autorun.h"
#include "bus/bus-util.h"
#include "config.h"
#include "bus/job-object.h"
#include "bus/manager-history.h"
#include "bus/manager-metrics.h"
#include "bus/manager-queue.h"
#include "bus/manager-regress.h"
#include "bus/manager.h"
#include "jobs/profile.h"
#include "jobs/job-steps.h"
#include "jobs/retention.h"
#include "jobs/submit.h"
#include "shared/spec-check.h"
#include "shared/log.h"
#include "shared/strv.h"

/* The Manager: private to this file; the other manager-*.c files read it through the accessors
 * below and keep their own state in the part of it that is theirs (manager_*_state()). */
struct Manager {
        sd_event *event;
        sd_bus *bus;
        Db *db;
        DeviceManager *devices;         /* may be NULL when the inventory failed to start */
        JobContext job_context;         /* what every job is given (the strings are these) */
        char *db_path;
        char *worker_path;
        char **profile_dirs;            /* highest priority first */
        RegressConfig regress;          /* benchd.conf's Regression*= (manager-regress.c) */
        Retention *retention;           /* SampleRetentionDays= and PruneSamples */
        char *metrics_dir;              /* benchd.conf's MetricsTextfileDir= (manager-metrics.c); NULL: off */

        /* The queue, its jobs, the calls on their way in, the removals under way and the timers
         * (manager-queue.c, the shell of the queue core). */
        QueueShell queue_shell;
        /* Jobs of a previous life whose state is written when their files' removal (in removals)
         * is done; until then their rows say "running" (manager-load.c). */
        SettleState settle_state;
        ImportState import_state;       /* ImportRuns calls waiting for polkit (manager-import.c) */
        /* Benchmarks when a disk appears (manager-autorun.c): benchd.conf's AutoRun=, and the disks
         * that appeared new. */
        bool autorun;
        AutorunState autorun_state;
        MetricsState metrics_state;     /* the deferred rewrite of benchd.prom (manager-metrics.c) */

        sd_bus_slot *manager_slot;
        JobObjectOwner job_owner;       /* what the job objects ask of it (job-object.h) */
        sd_bus_slot *job_slot;
        sd_bus_slot *enumerator_slot;
        sd_bus_slot *object_manager_slot;
};


Job *manager_find_job(Manager *m, uint64_t id) {
        for (Job *j = m->queue_shell.jobs_head; j; j = j->next)
                if (j->id == id)
                        return j;
        return NULL;
}

unsigned manager_queue_length(Manager *m) {
        return queue_length(&m->queue_shell.queue);
}

bool manager_is_stopping(Manager *m) {
        return queue_is_stopping(&m->queue_shell.queue);
}

sd_event *manager_event(Manager *m) {
        return m->event;
}

sd_bus *manager_bus(Manager *m) {
        return m->bus;
}

Db *manager_db(Manager *m) {
        return m->db;
}

const char *manager_db_path(Manager *m) {
        return m->db_path;
}

char *const *manager_profile_dirs(Manager *m) {
        return m->profile_dirs;
}

const RegressConfig *manager_regress_config(Manager *m) {
        return &m->regress;
}

const char *manager_metrics_dir(Manager *m) {
        return m->metrics_dir;
}

bool manager_autorun_enabled(Manager *m) {
        return m->autorun;
}

const JobContext *manager_job_context(Manager *m) {
        return &m->job_context;
}

AutorunState *manager_autorun_state(Manager *m) {
        return &m->autorun_state;
}

ImportState *manager_import_state(Manager *m) {
        return &m->import_state;
}

MetricsState *manager_metrics_state(Manager *m) {
        return &m->metrics_state;
}

SettleState *manager_settle_state(Manager *m) {
        return &m->settle_state;
}

QueueShell *manager_queue_shell(Manager *m) {
        return &m->queue_shell;
}

/* The first job of the queue (the jobs are linked in its order). */
static Job *manager_jobs_first(Manager *m) {
        return m->queue_shell.jobs_head;
}

int manager_expand(Manager *m, const JobSpec *spec, JobSpec **ret_steps, size_t *ret_n, char **reterr) {
        return submit_expand(m->profile_dirs, spec, ret_steps, ret_n, reterr);
}

static int method_submit_job(sd_bus_message *message, void *userdata, sd_bus_error *error) {
        Manager *m = userdata;
        _cleanup_(spec_clear) JobSpec spec;
        _cleanup_free_ char *err = NULL;
        JobSpec *steps = NULL;
        size_t n_steps = 0;
        uint32_t uid;
        int r;

        spec_init(&spec);

        /* Nothing is read of a call that cannot be queued anyway (the core says the same). */
        if (manager_is_stopping(m))
                return sd_bus_error_set(error, SD_BUS_ERROR_FAILED, QUEUE_MSG_SUBMIT_STOPPING);
        r = bus_sender_uid(message, "submitting jobs", &uid, error);
        if (r < 0)
                return r;

        r = bus_message_read_spec(message, &spec, error);
        if (r < 0)
                return r;
        r = spec_finalize(&spec, &err);
        if (r < 0)
                return sd_bus_error_setf(error, BENCHD_ERROR_INVALID_SPEC, "%s", err ?: "invalid spec");

        r = manager_expand(m, &spec, &steps, &n_steps, &err);
        if (r < 0) {
                spec_array_free(steps, n_steps);
                if (r != -ENOMEM)
                        r = sd_bus_error_setf(error, BENCHD_ERROR_INVALID_SPEC, "%s", err ?: "invalid profile");
                return r;
        }
        return manager_submit_call(m, message, uid, &spec, steps, n_steps, error);
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
                for (Job *j = manager_jobs_first(m); j; j = j->next)
                        if (!f.state || streq(f.state, job_state_to_string(job_get_state(j))))
                                total++;
                for (Job *j = manager_jobs_first(m); j; j = j->next) {
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
        return sd_bus_message_append(reply, "t", m->queue_shell.queue.running);
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
        if (manager_is_stopping(m))
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


void manager_set_devices(Manager *m, DeviceManager *devices) {
        m->devices = devices;
        m->job_context.devices = devices;
}

/* What the job objects ask of the Manager (JobObjectOwner). */
static Job *job_owner_find(void *userdata, uint64_t id) {
        return manager_find_job(userdata, id);
}

static Job *job_owner_first(void *userdata) {
        return manager_jobs_first(userdata);
}

static int job_owner_cancel(void *userdata, sd_bus_message *message, Job *j, sd_bus_error *error) {
        return manager_cancel(userdata, message, j, error);
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
        m->queue_shell.removal_done = manager_settle_removed;
        r = manager_queue_init(m, &(QueueConfig) {
                        .max_queue = config->max_queue,
                        .max_queued_per_user = config->max_queued_per_user,
                        .linger_max = JOB_LINGER_MAX,
                }, db);
        if (r >= 0)
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

        m->job_owner = (JobObjectOwner) {
                .find = job_owner_find,
                .first = job_owner_first,
                .cancel = job_owner_cancel,
                .userdata = m,
        };
        r = sd_bus_add_object_vtable(bus, &m->manager_slot, BENCHD_MANAGER_PATH, BENCHD_MANAGER_INTERFACE,
                                     manager_vtable, m);
        if (r >= 0)
                r = job_objects_add(bus, &m->job_owner, &m->job_slot, &m->enumerator_slot);
        if (r >= 0)
                r = sd_bus_add_object_manager(bus, &m->object_manager_slot, BENCHD_MANAGER_PATH);
        if (r >= 0)
                r = manager_queue_start(m);
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
        /* Calls still waiting go unanswered: the bus is going too. Their checks are killed, as
         * are the removals still running. */
        manager_queue_drop_jobs(m);
        manager_autorun_clear(m);
        manager_metrics_flush(m);
        manager_imports_abort(m);
        manager_queue_clear(m);
        manager_settles_clear(m);
        m->retention = retention_free(m->retention);
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
