/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Jobs: the state machine, the step runner and the org.benchd.Benchd1.Job object. The runner is
 * here rather than in the supervisor because it is about jobs and runs (database rows, progress
 * over all steps, cancellation), while the supervisor only knows one process and its protocol.
 * Every state change is written to the database first and then announced on the bus.
 */
#include <errno.h>
#include <inttypes.h>
#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bus-util.h"
#include "job.h"
#include "manager.h"
#include "profile.h"

static const char *const job_state_table[_JOB_STATE_MAX] = {
        [JOB_QUEUED] = "queued",
        [JOB_RUNNING] = "running",
        [JOB_SUCCEEDED] = "succeeded",
        [JOB_FAILED] = "failed",
        [JOB_CANCELLED] = "cancelled",
        [JOB_INTERRUPTED] = "interrupted",
};

const char *job_state_to_string(JobState s) {
        return s >= 0 && s < _JOB_STATE_MAX ? job_state_table[s] : NULL;
}

JobState job_state_from_string(const char *s) {
        for (JobState i = 0; i < _JOB_STATE_MAX; i++)
                if (streq_ptr(job_state_table[i], s))
                        return i;
        return _JOB_STATE_INVALID;
}

bool job_state_is_final(JobState s) {
        return s != JOB_QUEUED && s != JOB_RUNNING;
}

#define jlog(j, fmt, ...) fprintf(stderr, "benchd: job %" PRIu64 ": " fmt "\n", (j)->id, ##__VA_ARGS__)

int job_new(Manager *m, uint64_t id, JobSpec *spec, JobSpec *steps, size_t n_steps,
            const char *spec_json, uint32_t submitted_by, uint64_t submitted_usec, Job **ret) {
        _cleanup_free_ char *path = NULL, *json = NULL;
        Job *j;

        /* Allocate first: on failure the caller still owns spec and steps. */
        json = strdup(spec_json);
        if (!json || bus_job_path(id, &path) < 0)
                return -ENOMEM;
        j = calloc(1, sizeof(*j));
        if (!j)
                return -ENOMEM;
        j->manager = m;
        j->id = id;
        j->state = JOB_QUEUED;
        j->spec = *spec;
        spec_init(spec);
        j->steps = steps;
        j->n_steps = n_steps;
        j->submitted_by = submitted_by;
        j->submitted_usec = submitted_usec;
        j->spec_json = TAKE_PTR(json);
        j->path = TAKE_PTR(path);
        *ret = j;
        return 0;
}

Job *job_free(Job *j) {
        if (!j)
                return NULL;
        worker_free(j->worker);
        sd_event_source_disable_unref(j->linger_source);
        spec_clear(&j->spec);
        spec_array_free(j->steps, j->n_steps);
        free(j->spec_json);
        free(j->path);
        free(j->phase);
        free(j->runs);
        free(j->error);
        free(j);
        return NULL;
}

const char *job_workload(Job *j) {
        size_t i = MIN((size_t) j->current_step, j->n_steps ? j->n_steps - 1 : 0);

        if (j->n_steps == 0)
                return workload_to_string(j->spec.workload) ?: "";
        return workload_to_string(j->steps[i].workload) ?: "";
}

static void job_emit_strv(Job *j, const char *const *names) {
        (void) sd_bus_emit_properties_changed_strv(j->manager->bus, j->path, BENCHD_JOB_INTERFACE,
                                                   (char **) names);
}
#define job_emit(j, ...) job_emit_strv((j), (const char *const[]) { __VA_ARGS__, NULL })

static const char *const job_interfaces[] = { BENCHD_JOB_INTERFACE, NULL };

void job_export(Job *j) {
        (void) sd_bus_emit_interfaces_added_strv(j->manager->bus, j->path, (char **) job_interfaces);
}

void job_remove(Job *j) {
        Manager *m = j->manager;

        (void) sd_bus_emit_interfaces_removed_strv(m->bus, j->path, (char **) job_interfaces);
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

static int on_linger_end(sd_event_source *s, uint64_t usec, void *userdata) {
        job_remove(userdata);
        return 0;
}

static void job_flush_samples(Job *j) {
        int r;

        if (j->n_pending > 0 && j->run_id != 0) {
                r = db_samples_insert(j->manager->db, j->run_id, j->pending, j->n_pending);
                if (r < 0)
                        jlog(j, "cannot store %zu samples of run %" PRIu64 ": %s (%s)", j->n_pending,
                             j->run_id, strerror(-r), strna(db_last_error(j->manager->db)));
        }
        j->n_pending = 0;
}

/* Ends the job: database, properties, JobRemoved, linger timer, scheduler. */
static void job_finish(Job *j, JobState state, const char *error) {
        Manager *m = j->manager;
        int r;

        j->state = state;
        j->finished_usec = now_usec(CLOCK_REALTIME);
        free(j->error);
        j->error = error ? strdup(error) : NULL;
        free(j->phase);
        j->phase = NULL;
        if (state == JOB_SUCCEEDED)
                j->progress = 1.0;

        r = db_job_set_state(m->db, j->id, job_state_to_string(state), j->started_usec, j->finished_usec,
                             j->error);
        if (r < 0)
                jlog(j, "cannot record state %s: %s (%s)", job_state_to_string(state), strerror(-r),
                     strna(db_last_error(m->db)));
        if (error)
                jlog(j, "%s: %s", job_state_to_string(state), error);
        else
                jlog(j, "%s", job_state_to_string(state));

        job_emit(j, "State", "FinishedUSec", "Error", "Phase", "Progress");
        (void) sd_bus_emit_signal(m->bus, BENCHD_MANAGER_PATH, BENCHD_MANAGER_INTERFACE, "JobRemoved",
                                  "tos", j->id, j->path, job_state_to_string(state));

        r = sd_event_add_time_relative(m->event, &j->linger_source, CLOCK_MONOTONIC, JOB_LINGER_USEC,
                                       USEC_PER_SEC, on_linger_end, j);
        if (r < 0)
                jlog(j, "cannot arm the removal timer: %s", strerror(-r));

        manager_job_ended(m, j);
}

static char *spec_tags_json(const JobSpec *s) {
        struct json_object *a;
        char *ret;

        if (!s->tags || !s->tags[0])
                return NULL;
        a = json_object_new_array();
        if (!a)
                return NULL;
        for (char **t = s->tags; *t; t++)
                json_object_array_add(a, json_object_new_string(*t));
        ret = strdup(json_object_to_json_string_ext(a, JSON_C_TO_STRING_PLAIN));
        json_object_put(a);
        return ret;
}

static void on_worker_phase(Worker *w, const char *phase, void *userdata) {
        Job *j = userdata;

        free(j->phase);
        j->phase = strdup(phase);
        job_emit(j, "Phase");
}

static void on_worker_sample(Worker *w, const ProtoSample *s, void *userdata) {
        Job *j = userdata;
        double step_progress = isfinite(s->progress) ? s->progress : 0.0;

        /* job_flush_samples() always empties the batch, so a full one never outlives this call. */
        j->pending[j->n_pending++] = *s;
        if (j->n_pending >= JOB_SAMPLE_BATCH)
                job_flush_samples(j);

        j->live = *s;
        j->have_live = true;
        step_progress = MAX(0.0, MIN(1.0, step_progress));
        j->progress = ((double) j->current_step + step_progress) / (double) MAX(j->n_steps, (size_t) 1);
        job_emit(j, "Progress", "Live");
}

/* Stored at once (the run's row exists since the step began), so a run that fails later keeps
 * the phases it finished. */
static void on_worker_phase_result(Worker *w, const ProtoPhaseResult *p, void *userdata) {
        Job *j = userdata;
        int r;

        if (j->run_id == 0)
                return;
        r = db_run_phase_insert(j->manager->db, j->run_id, p);
        if (r < 0)
                jlog(j, "cannot store phase %s of run %" PRIu64 ": %s (%s)", p->name, j->run_id, strerror(-r),
                     strna(db_last_error(j->manager->db)));
}

static void job_start_step(Job *j);

static void on_worker_finished(Worker *w, const WorkerOutcome *o, void *userdata) {
        Job *j = userdata;
        Manager *m = j->manager;
        const JobSpec *step = &j->steps[j->current_step];
        _cleanup_free_ char *msg = NULL;
        const char *status;
        JobState state;
        int r, n;

        job_flush_samples(j);
        if (o->n_histogram > 0) {
                r = db_histogram_insert(m->db, j->run_id, o->histogram, o->n_histogram);
                if (r < 0)
                        jlog(j, "cannot store the histogram of run %" PRIu64 ": %s", j->run_id, strerror(-r));
        }
        n = cleanup_job_files(step->target, j->id, (int) j->current_step);
        if (n > 0)
                jlog(j, "removed %d leftover file(s) of step %" PRIu32 " in %s", n, j->current_step,
                     step->target);

        switch (o->status) {
        case WORKER_SUCCEEDED:
                status = "succeeded";
                state = JOB_SUCCEEDED;
                break;
        case WORKER_STOPPED:
                if (j->interrupt_requested) {
                        status = "interrupted";
                        state = JOB_INTERRUPTED;
                        msg = strdup("benchd was stopped while the job was running");
                } else {
                        status = "cancelled";
                        state = JOB_CANCELLED;
                        msg = strdup("cancelled while running");
                }
                break;
        default:
                status = "failed";
                state = JOB_FAILED;
                if (j->n_steps > 1) {
                        if (asprintf(&msg, "step %" PRIu32 " (%s): %s", j->current_step,
                                     workload_to_string(step->workload), o->error) < 0)
                                msg = NULL;
                } else
                        msg = strdup(o->error);
                break;
        }

        r = db_run_finish(m->db, j->run_id, status, state == JOB_SUCCEEDED ? NULL : (msg ?: o->error),
                          o->status == WORKER_SUCCEEDED ? o->result : NULL);
        if (r < 0)
                jlog(j, "cannot record the end of run %" PRIu64 ": %s (%s)", j->run_id, strerror(-r),
                     strna(db_last_error(m->db)));

        j->worker = worker_free(j->worker);
        j->run_id = 0;
        free(j->phase);
        j->phase = NULL;

        /* A step that succeeded while we were stopping it still counts; the steps after it do not run. */
        if (state == JOB_SUCCEEDED && j->current_step + 1 < j->n_steps) {
                if (j->interrupt_requested) {
                        state = JOB_INTERRUPTED;
                        msg = strdup("benchd was stopped while the job was running");
                } else if (j->cancel_requested) {
                        state = JOB_CANCELLED;
                        msg = strdup("cancelled while running");
                } else {
                        j->current_step++;
                        j->progress = (double) j->current_step / (double) j->n_steps;
                        job_emit(j, "CurrentStep", "Workload", "Progress", "Phase");
                        job_start_step(j);
                        return;
                }
        }
        job_finish(j, state, state == JOB_SUCCEEDED ? NULL : msg);
}

static const WorkerCallbacks job_worker_callbacks = {
        .phase = on_worker_phase,
        .sample = on_worker_sample,
        .finished = on_worker_finished,
        .phase_result = on_worker_phase_result,
};

static void job_start_step(Job *j) {
        Manager *m = j->manager;
        const JobSpec *step = &j->steps[j->current_step];
        _cleanup_free_ char *text = NULL, *tags = NULL, *err = NULL;
        char sync[32], pattern[32];
        TargetInfo ti = {};
        bool have_ti = false;
        DbRun run;
        uint64_t run_id, *runs;
        int r;

        r = spec_to_text(step, &text);
        if (r < 0) {
                if (asprintf(&err, "cannot serialise the spec of step %" PRIu32 ": %s", j->current_step,
                             strerror(-r)) < 0)
                        err = NULL;
                job_finish(j, JOB_FAILED, err ?: "cannot serialise the step spec");
                return;
        }
        spec_sync_text(step, sync);
        spec_pattern_text(step, pattern);
        tags = spec_tags_json(step);

        if (m->devices) {
                r = device_manager_resolve_target(m->devices, step->target, &ti);
                if (r < 0)
                        jlog(j, "cannot resolve target %s: %s; the run records no device", step->target,
                             strerror(-r));
                else
                        have_ti = true;
        }

        run = (DbRun) {
                .job_id = j->id,
                .step = j->current_step,
                .workload = workload_to_string(step->workload),
                .block_size = step->block_size,
                .size = step->size,
                .runtime_ms = step->runtime_ms,
                .ramp_ms = step->ramp_ms,
                .queue_depth = step->queue_depth,
                .jobs = step->jobs,
                .direct = step->direct,
                .sync = sync,
                .rwmix_read = step->rwmix_read,
                .pattern = pattern,
                .device_id = have_ti ? ti.device_id : -1,
                .device_name = have_ti ? ti.device_name : NULL,
                .target = step->target,
                .fs_type = have_ti ? ti.fs_type : NULL,
                .mount_options = have_ti ? ti.mount_options : NULL,
                .environment = have_ti ? ti.environment_json : NULL,
                .label = step->label,
                .tags_json = tags,
                .started_usec = now_usec(CLOCK_REALTIME),
        };
        r = db_run_begin(m->db, &run, &run_id);
        if (have_ti)
                target_info_clear(&ti);
        if (r < 0) {
                if (asprintf(&err, "cannot record the run of step %" PRIu32 " in the database: %s",
                             j->current_step, strerror(-r)) < 0)
                        err = NULL;
                job_finish(j, JOB_FAILED, err ?: "cannot record the run");
                return;
        }
        runs = realloc(j->runs, (j->n_runs + 1) * sizeof(uint64_t));
        if (runs) {
                j->runs = runs;
                j->runs[j->n_runs++] = run_id;
        }
        j->run_id = run_id;
        j->n_pending = 0;
        j->have_live = false;
        job_emit(j, "Runs", "Live");

        r = worker_spawn(m->event, m->worker_path, j->id, j->current_step, step, text, worker_timeout_usec(step),
                         &job_worker_callbacks, j, &j->worker);
        if (r < 0) {
                if (asprintf(&err, "cannot start the worker %s: %s", m->worker_path, strerror(-r)) < 0)
                        err = NULL;
                (void) db_run_finish(m->db, run_id, "failed", err ?: "cannot start the worker", NULL);
                j->run_id = 0;
                job_finish(j, JOB_FAILED, err ?: "cannot start the worker");
                return;
        }
        jlog(j, "step %" PRIu32 "/%zu (%s) started as run %" PRIu64, j->current_step + 1, j->n_steps,
             workload_to_string(step->workload), run_id);
}

void job_start(Job *j) {
        Manager *m = j->manager;
        int r;

        j->state = JOB_RUNNING;
        j->started_usec = now_usec(CLOCK_REALTIME);
        j->current_step = 0;
        j->progress = 0.0;
        r = db_job_set_state(m->db, j->id, "running", j->started_usec, 0, NULL);
        if (r < 0)
                jlog(j, "cannot record state running: %s (%s)", strerror(-r), strna(db_last_error(m->db)));
        manager_job_started(m, j);
        job_emit(j, "State", "StartedUSec", "CurrentStep", "Progress");
        job_start_step(j);
}

int job_cancel(Job *j, uint32_t uid) {
        if (job_state_is_final(j->state))
                return -EBUSY;
        if (j->state == JOB_QUEUED) {
                _cleanup_free_ char *msg = NULL;
                if (asprintf(&msg, "cancelled by uid %" PRIu32 " before it started", uid) < 0)
                        msg = NULL;
                job_finish(j, JOB_CANCELLED, msg ?: "cancelled");
                return 0;
        }
        if (!j->cancel_requested) {
                jlog(j, "cancel requested by uid %" PRIu32, uid);
                j->cancel_requested = true;
                worker_stop(j->worker, WORKER_KILL_USEC);
        }
        return 0;
}

int job_error_not_cancellable(sd_bus_error *error, uint64_t id, const char *state) {
        return sd_bus_error_setf(error, BENCHD_ERROR_NOT_CANCELLABLE,
                                 "job %" PRIu64 " has already ended (%s); only queued or running jobs can "
                                 "be cancelled", id, state);
}

int job_cancel_or_error(Job *j, uint32_t uid, sd_bus_error *error) {
        int r = job_cancel(j, uid);
        if (r == -EBUSY)
                return job_error_not_cancellable(error, j->id, job_state_to_string(j->state));
        return r;
}

void job_interrupt(Job *j) {
        if (j->state != JOB_RUNNING || !j->worker)
                return;
        j->interrupt_requested = true;
        worker_stop(j->worker, 3 * USEC_PER_SEC);
}

/* ---- D-Bus ---- */

static int property_get_state(sd_bus *bus, const char *path, const char *interface,
                              const char *property, sd_bus_message *reply, void *userdata,
                              sd_bus_error *error) {
        Job *j = userdata;
        return sd_bus_message_append(reply, "s", job_state_to_string(j->state));
}

static int property_get_profile(sd_bus *bus, const char *path, const char *interface,
                                const char *property, sd_bus_message *reply, void *userdata,
                                sd_bus_error *error) {
        Job *j = userdata;
        return sd_bus_message_append(reply, "s", j->spec.profile ?: "");
}

static int property_get_workload(sd_bus *bus, const char *path, const char *interface,
                                 const char *property, sd_bus_message *reply, void *userdata,
                                 sd_bus_error *error) {
        return sd_bus_message_append(reply, "s", job_workload(userdata));
}

static int property_get_target(sd_bus *bus, const char *path, const char *interface,
                               const char *property, sd_bus_message *reply, void *userdata,
                               sd_bus_error *error) {
        Job *j = userdata;
        return sd_bus_message_append(reply, "s", j->spec.target ?: "");
}

static int property_get_label(sd_bus *bus, const char *path, const char *interface,
                              const char *property, sd_bus_message *reply, void *userdata,
                              sd_bus_error *error) {
        Job *j = userdata;
        return sd_bus_message_append(reply, "s", j->spec.label ?: "");
}

static int property_get_steps(sd_bus *bus, const char *path, const char *interface,
                              const char *property, sd_bus_message *reply, void *userdata,
                              sd_bus_error *error) {
        Job *j = userdata;
        return sd_bus_message_append(reply, "u", (uint32_t) j->n_steps);
}

static int property_get_string(sd_bus *bus, const char *path, const char *interface,
                               const char *property, sd_bus_message *reply, void *userdata,
                               sd_bus_error *error) {
        /* userdata points at a char* field (offset in the vtable). */
        return sd_bus_message_append(reply, "s", *(char **) userdata ?: "");
}

static int property_get_runs(sd_bus *bus, const char *path, const char *interface,
                             const char *property, sd_bus_message *reply, void *userdata,
                             sd_bus_error *error) {
        Job *j = userdata;
        return sd_bus_message_append_array(reply, 't', j->runs, j->n_runs * sizeof(uint64_t));
}

static double us(uint64_t ns) {
        return (double) ns / 1000.0;
}

static int append_live(Job *j, sd_bus_message *reply) {
        const ProtoSample *s = &j->live;
        double secs;
        int r;

        r = sd_bus_message_open_container(reply, 'a', "{sv}");
        if (r < 0)
                return r;
        if (j->have_live) {
                secs = s->interval_us > 0 ? (double) s->interval_us / 1e6 : 0.0;
                r = sd_bus_message_append(reply, "{sv}{sv}{sv}{sv}{sv}",
                                          "t_ms", "t", s->t_ms,
                                          "bytes_read", "t", s->bytes_read,
                                          "bytes_written", "t", s->bytes_written,
                                          "ios_read", "t", s->ios_read,
                                          "ios_written", "t", s->ios_written);
                if (r < 0)
                        return r;
                r = sd_bus_message_append(reply, "{sv}{sv}{sv}{sv}{sv}{sv}{sv}{sv}{sv}{sv}",
                                          "mb_per_s", "d",
                                          secs > 0 ? (double) (s->bytes_read + s->bytes_written) / 1e6 / secs : 0.0,
                                          "iops", "d",
                                          secs > 0 ? (double) (s->ios_read + s->ios_written + s->ops) / secs : 0.0,
                                          "lat_mean_us", "d", us(s->lat_mean_ns),
                                          "lat_p50_us", "d", us(s->lat_p50_ns),
                                          "lat_p99_us", "d", us(s->lat_p99_ns),
                                          "lat_max_us", "d", us(s->lat_max_ns),
                                          "iowait_pct", "d", s->iowait_pct,
                                          "cpu_user_pct", "d", s->cpu_user_pct,
                                          "cpu_sys_pct", "d", s->cpu_sys_pct,
                                          "dev_util_pct", "d", s->dev_util_pct);
                if (r < 0)
                        return r;
        }
        return sd_bus_message_close_container(reply);
}

static int property_get_live(sd_bus *bus, const char *path, const char *interface,
                             const char *property, sd_bus_message *reply, void *userdata,
                             sd_bus_error *error) {
        return append_live(userdata, reply);
}

static int method_cancel(sd_bus_message *message, void *userdata, sd_bus_error *error);

const sd_bus_vtable job_vtable[] = {
        SD_BUS_VTABLE_START(0),
        SD_BUS_METHOD_WITH_ARGS("Cancel", SD_BUS_NO_ARGS, SD_BUS_NO_RESULT, method_cancel,
                                SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_PROPERTY("Id", "t", NULL, offsetof(Job, id), SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("State", "s", property_get_state, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("Profile", "s", property_get_profile, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("Workload", "s", property_get_workload, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("Target", "s", property_get_target, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("Label", "s", property_get_label, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("Spec", "s", property_get_string, offsetof(Job, spec_json),
                        SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("SubmittedBy", "u", NULL, offsetof(Job, submitted_by),
                        SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("SubmittedUSec", "t", NULL, offsetof(Job, submitted_usec),
                        SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("StartedUSec", "t", NULL, offsetof(Job, started_usec),
                        SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("FinishedUSec", "t", NULL, offsetof(Job, finished_usec),
                        SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("Progress", "d", NULL, offsetof(Job, progress), SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("CurrentStep", "u", NULL, offsetof(Job, current_step),
                        SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("Steps", "u", property_get_steps, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("Phase", "s", property_get_string, offsetof(Job, phase),
                        SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("Runs", "at", property_get_runs, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("Error", "s", property_get_string, offsetof(Job, error),
                        SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("Live", "a{sv}", property_get_live, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_VTABLE_END
};

int job_append_properties(Job *j, sd_bus_message *m) {
        /* The properties a jobs-table row also has go through the one mapping the row uses. */
        const DbJob dj = {
                .id = j->id,
                .state = job_state_to_string(j->state),
                .profile = j->spec.profile,
                .workload = job_workload(j),
                .spec_json = j->spec_json,
                .target = j->spec.target,
                .label = j->spec.label,
                .submitted_by = j->submitted_by,
                .submitted_usec = j->submitted_usec,
                .started_usec = j->started_usec,
                .finished_usec = j->finished_usec,
                .error = j->error,
        };
        int r;

        r = sd_bus_message_open_container(m, 'a', "{sv}");
        if (r < 0)
                return r;
        r = bus_message_append_db_job_entries(m, &dj);
        if (r < 0)
                return r;
        r = sd_bus_message_append(m, "{sv}{sv}{sv}{sv}",
                                  "Progress", "d", j->progress,
                                  "CurrentStep", "u", j->current_step,
                                  "Steps", "u", (uint32_t) j->n_steps,
                                  "Phase", "s", j->phase ?: "");
        if (r < 0)
                return r;
        r = sd_bus_message_open_container(m, 'e', "sv");
        if (r >= 0)
                r = sd_bus_message_append(m, "s", "Runs");
        if (r >= 0)
                r = sd_bus_message_open_container(m, 'v', "at");
        if (r >= 0)
                r = sd_bus_message_append_array(m, 't', j->runs, j->n_runs * sizeof(uint64_t));
        if (r >= 0)
                r = sd_bus_message_close_container(m);
        if (r >= 0)
                r = sd_bus_message_close_container(m);
        if (r >= 0)
                r = sd_bus_message_open_container(m, 'e', "sv");
        if (r >= 0)
                r = sd_bus_message_append(m, "s", "Live");
        if (r >= 0)
                r = sd_bus_message_open_container(m, 'v', "a{sv}");
        if (r >= 0)
                r = append_live(j, m);
        if (r >= 0)
                r = sd_bus_message_close_container(m);
        if (r >= 0)
                r = sd_bus_message_close_container(m);
        if (r < 0)
                return r;
        return sd_bus_message_close_container(m);
}

int job_object_find(sd_bus *bus, const char *path, const char *interface, void *userdata,
                    void **found, sd_bus_error *error) {
        Manager *m = userdata;
        uint64_t id;
        Job *j;

        if (bus_job_path_parse(path, &id) < 0)
                return 0;
        j = manager_find_job(m, id);
        if (!j)
                return 0;
        *found = j;
        return 1;
}

int job_node_enumerator(sd_bus *bus, const char *path, void *userdata, char ***nodes,
                        sd_bus_error *error) {
        Manager *m = userdata;
        size_t n = 0, i = 0;
        char **l;

        for (Job *j = m->jobs_head; j; j = j->next)
                n++;
        l = calloc(n + 1, sizeof(char *));
        if (!l)
                return -ENOMEM;
        for (Job *j = m->jobs_head; j; j = j->next) {
                l[i] = strdup(j->path);
                if (!l[i]) {
                        strv_free(l);
                        return -ENOMEM;
                }
                i++;
        }
        *nodes = l;
        return 0;
}

static int method_cancel(sd_bus_message *message, void *userdata, sd_bus_error *error) {
        Job *j = userdata;
        uint32_t uid;
        int r;

        r = bus_check_root(message, "cancelling jobs", &uid, error);
        if (r < 0)
                return r;
        r = job_cancel_or_error(j, uid, error);
        if (r < 0)
                return r;
        return sd_bus_reply_method_return(message, NULL);
}
