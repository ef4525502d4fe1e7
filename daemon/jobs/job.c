/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Jobs: the state machine, the step runner and the org.benchd.Benchd1.Job object. The runner is
 * here rather than in the supervisor because it is about jobs and runs (database rows, progress
 * over all steps, cancellation), while the supervisor only knows one process and its protocol.
 * Every state change is written to the database first and then announced on the bus.
 *
 * The database may refuse a write for a while (its filesystem full, the file locked or read-only).
 * Then nothing is announced that is not stored: the writes wait in the job's DbQueue, in order,
 * and are retried on a timer with a growing interval (job_store_wait()); the job waits with them
 * (after_store says for what: to start, to start its next step, or to announce its end) and its
 * Error says why. Samples keep coming meanwhile and wait too, up to DB_QUEUE_SAMPLES_MAX. What
 * could not be stored at all is named in the job's Error and in its JobRemoved result.
 */
#include <errno.h>
#include <inttypes.h>
#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bus/bus-util.h"
#include "jobs/job.h"
#include "bus/manager.h"
#include "jobs/profile.h"
#include "jobs/step-verdict.h"
#include "shared/log.h"

#define job_log(j, level, fmt, ...) log_full((level), "job %" PRIu64 ": " fmt, (j)->id, ##__VA_ARGS__)

int job_new(Manager *m, uint64_t id, JobSpec *spec, JobSpec *steps, TargetCheck *idents, size_t n_steps,
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
        if (db_queue_new(&j->store) < 0) {
                free(j);
                return -ENOMEM;
        }
        j->manager = m;
        j->id = id;
        j->state = JOB_QUEUED;
        j->spec = *spec;
        spec_init(spec);
        j->steps = steps;
        j->idents = idents;
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
        sd_event_source_disable_unref(j->store_retry_source);
        db_queue_free(j->store);
        free(j->end_error);
        spec_clear(&j->spec);
        spec_array_free(j->steps, j->n_steps);
        free(j->idents);
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

/* The step's prefix in a job's error: "step 1 (write): ", or nothing for a single step. */
static void job_step_prefix(Job *j, char *buf, size_t size) {
        if (j->n_steps > 1)
                snprintf(buf, size, "step %" PRIu32 " (%s): ", j->current_step,
                         strna(workload_to_string(j->steps[j->current_step].workload)));
        else if (size > 0)
                buf[0] = 0;
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

/* ---- storing ---- */

static void job_start_step(Job *j);
static void job_store(Job *j);

static bool job_store_waiting(Job *j) {
        return j->store_retry_source;
}

static int on_store_retry(sd_event_source *s, uint64_t usec, void *userdata) {
        Job *j = userdata;

        job_store(j);
        return 0;
}

/* What waits for the database, for the Error property and the log. */
static void job_store_describe(Job *j, char *buf, size_t size) {
        size_t n = db_queue_n_samples(j->store), k = 0;
        uint64_t dropped = db_queue_n_dropped(j->store);

#define APPEND(...) do { if (k < size) k += snprintf(buf + k, size - k, __VA_ARGS__); } while (0)
        switch (j->after_store) {
        case JOB_AFTER_STORE_START:
                APPEND("the job waits to start");
                break;
        case JOB_AFTER_STORE_STEP:
                APPEND("step %" PRIu32 " waits to start", j->current_step);
                break;
        case JOB_AFTER_STORE_END:
                APPEND("the job has ended (%s), which waits to be stored", job_state_to_string(j->end_state));
                break;
        default:
                APPEND("the results wait to be stored");
                break;
        }
        if (n > 0)
                APPEND(", with %zu sample%s", n, n == 1 ? "" : "s");
        if (dropped > 0)
                APPEND("; %" PRIu64 " sample%s dropped (at most %u wait)", dropped, dropped == 1 ? "" : "s",
                       DB_QUEUE_SAMPLES_MAX);
#undef APPEND
}

/* What would make the database take writes again. */
static const char *store_hint(int r) {
        switch (r) {
        case -ENOSPC:
                return "free space on its filesystem";
        case -EBUSY:
                return "another process holds its write lock; readers should open it read-only";
        case -EROFS:
        case -EACCES:
                return "make it (and its directory) writable for benchd again";
        case -ENOMEM:
                return "benchd is short of memory";
        default:
                return "check the disk under it";
        }
}

/* A write failed with r, which may pass: try again later, with the wait doubling up to
 * JOB_STORE_RETRY_MAX_USEC. The caller has set after_store. When benchd is stopping and no worker
 * is left to wait for, this was the last try: benchd exits, and the next start-up settles the
 * job from what the database has (manager_load()). */
static void job_store_wait(Job *j, int r) {
        Manager *m = j->manager;
        _cleanup_free_ char *msg = NULL;
        char what[256];
        uint64_t delay;
        int k;

        delay = j->store_retry_usec > 0 ? j->store_retry_usec : JOB_STORE_RETRY_MIN_USEC;
        j->store_retry_usec = MIN(delay * 2, (uint64_t) JOB_STORE_RETRY_MAX_USEC);
        j->store_failures++;
        job_store_describe(j, what, sizeof(what));
        if (asprintf(&msg, "cannot write the database %s (%s: %s; %s); %s; trying again in %" PRIu64 " s",
                     m->db_path, strerror(-r), db_last_error(m->db), store_hint(r), what,
                     delay / USEC_PER_SEC) < 0)
                msg = NULL;
        if (j->store_failures == 1 || r != j->store_errno)
                job_log(j, LOG_WARNING, "%s", strna(msg));
        j->store_errno = r;

        if (m->stopping && !j->worker) {
                job_log(j, LOG_WARNING, "benchd stops with this not stored (%s); the next start-up settles the job from "
                     "what its runs say", what);
                (void) sd_event_exit(m->event, 0);
                return;
        }

        if (msg && !streq_ptr(j->error, msg)) {
                free(j->error);
                j->error = TAKE_PTR(msg);
                job_emit(j, "Error");
        }

        j->store_retry_source = sd_event_source_disable_unref(j->store_retry_source);
        k = sd_event_add_time_relative(m->event, &j->store_retry_source, CLOCK_MONOTONIC, delay,
                                       USEC_PER_SEC / 10, on_store_retry, j);
        if (k < 0)
                job_log(j, LOG_WARNING, "cannot arm the timer that retries the database: %s", strerror(-k));
}

/* A write worked: the waiting is over. */
static void job_store_ok(Job *j) {
        if (j->store_failures == 0)
                return;
        job_log(j, LOG_WARNING, "the database takes writes again, after %u failed tr%s", j->store_failures,
             j->store_failures == 1 ? "y" : "ies");
        j->store_failures = 0;
        j->store_retry_usec = 0;
        j->store_errno = 0;
        j->store_retry_source = sd_event_source_disable_unref(j->store_retry_source);
        if (!job_state_is_final(j->state) && j->error) {
                free(j->error);
                j->error = NULL;
                job_emit(j, "Error");
        }
}

/* Announces the end that job_finish() stored: properties, JobRemoved, linger timer, scheduler.
 * The result of JobRemoved is the state, followed by "; not stored: ..." when something of the
 * job could not be stored. */
static void job_announce_end(Job *j) {
        Manager *m = j->manager;
        _cleanup_free_ char *error = NULL, *lost = NULL, *result = NULL;
        const char *state = job_state_to_string(j->end_state);
        int r;

        j->store_retry_source = sd_event_source_disable_unref(j->store_retry_source);
        j->after_store = JOB_AFTER_STORE_NONE;
        j->state = j->end_state;
        j->finished_usec = j->end_usec;
        if (db_queue_error(j->store, j->end_error, &error) < 0)
                error = j->end_error ? strdup(j->end_error) : NULL;
        free(j->error);
        j->error = TAKE_PTR(error);
        free(j->phase);
        j->phase = NULL;
        if (j->state == JOB_SUCCEEDED)
                j->progress = 1.0;

        if (db_queue_has_losses(j->store) && db_queue_error(j->store, NULL, &lost) >= 0 &&
            asprintf(&result, "%s; %s", state, lost) < 0)
                result = NULL;

        if (j->error)
                job_log(j, LOG_INFO, "%s: %s", state, j->error);
        else
                job_log(j, LOG_INFO, "%s", state);

        job_emit(j, "State", "FinishedUSec", "Error", "Phase", "Progress");
        (void) sd_bus_emit_signal(m->bus, BENCHD_MANAGER_PATH, BENCHD_MANAGER_INTERFACE, "JobRemoved",
                                  "tos", j->id, j->path, result ?: state);

        r = sd_event_add_time_relative(m->event, &j->linger_source, CLOCK_MONOTONIC, JOB_LINGER_USEC,
                                       USEC_PER_SEC, on_linger_end, j);
        if (r < 0)
                job_log(j, LOG_WARNING, "cannot arm the removal timer: %s", strerror(-r));

        manager_job_ended(m, j);
}

/* Writes what waits, then goes on with what waited for it (after_store). */
static void job_store(Job *j) {
        JobAfterStore after;
        bool wrote = !db_queue_is_empty(j->store);
        int r;

        j->store_retry_source = sd_event_source_disable_unref(j->store_retry_source);
        r = db_queue_flush(j->store, j->manager->db);
        if (r < 0) {
                job_store_wait(j, r);
                return;
        }
        if (wrote)
                job_store_ok(j);

        after = j->after_store;
        j->after_store = JOB_AFTER_STORE_NONE;
        switch (after) {
        case JOB_AFTER_STORE_START:
                manager_schedule(j->manager);
                break;
        case JOB_AFTER_STORE_STEP:
                job_start_step(j);
                break;
        case JOB_AFTER_STORE_END:
                job_announce_end(j);
                break;
        default:
                break;
        }
}

/* Ends the job: its final state is stored after everything else it still has to store, and
 * announced once it is (job_announce_end()). */
static void job_finish(Job *j, JobState state, const char *error) {
        int r;

        j->end_state = state;
        free(j->end_error);
        j->end_error = error ? strdup(error) : NULL;
        j->end_usec = now_usec(CLOCK_REALTIME);

        r = db_queue_add_job_state(j->store, j->id, job_state_to_string(state), j->started_usec, j->end_usec,
                                   j->end_error);
        if (r < 0) {
                /* Out of memory: write it directly, without the queue's order. */
                r = db_job_set_state(j->manager->db, j->id, job_state_to_string(state), j->started_usec,
                                     j->end_usec, j->end_error);
                if (r < 0)
                        job_log(j, LOG_WARNING, "cannot record state %s: %s (%s)", job_state_to_string(state), strerror(-r),
                             strna(db_last_error(j->manager->db)));
                job_announce_end(j);
                return;
        }
        j->after_store = JOB_AFTER_STORE_END;
        job_store(j);
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
        int r;

        /* Written in batches; while the database refuses writes, the retry timer writes them. */
        r = db_queue_add_samples(j->store, j->run_id, s, 1);
        if (r < 0)
                job_log(j, LOG_WARNING, "cannot keep sample t_ms=%" PRIu64 " of run %" PRIu64 ": %s", s->t_ms, j->run_id,
                     strerror(-r));
        if (db_queue_n_samples(j->store) >= JOB_SAMPLE_BATCH && !job_store_waiting(j))
                job_store(j);

        j->live = *s;
        j->have_live = true;
        step_progress = MAX(0.0, MIN(1.0, step_progress));
        j->progress = ((double) j->current_step + step_progress) / (double) MAX(j->n_steps, (size_t) 1);
        job_emit(j, "Progress", "Live");
}

/* Stored at once (the run's row exists since the step began), so a run that fails later keeps
 * the phases it finished; unless the database refuses writes, then it waits with the rest. */
static void on_worker_phase_result(Worker *w, const ProtoPhaseResult *p, void *userdata) {
        Job *j = userdata;
        int r;

        if (j->run_id == 0)
                return;
        r = db_queue_add_phase(j->store, j->run_id, p);
        if (r < 0)
                job_log(j, LOG_WARNING, "cannot keep phase %s of run %" PRIu64 ": %s", p->name, j->run_id, strerror(-r));
        if (!job_store_waiting(j))
                job_store(j);
}

static void on_worker_finished(Worker *w, const WorkerOutcome *o, void *userdata) {
        Job *j = userdata;
        Manager *m = j->manager;
        const JobSpec *step = &j->steps[j->current_step];
        _cleanup_free_ char *msg = NULL;
        const char *status;
        JobState state;
        int r;

        /* Queued after the run's samples, stored with them below (job_store()). */
        if (o->n_histogram > 0) {
                r = db_queue_add_histogram(j->store, j->run_id, o->histogram, o->n_histogram);
                if (r < 0)
                        job_log(j, LOG_WARNING, "cannot keep the histogram of run %" PRIu64 ": %s", j->run_id, strerror(-r));
        }
        /* In the background: the job may end before its files are gone, the next one waits. */
        manager_cleanup_files(m, step->target, j->id, (int) j->current_step);

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
        default: {
                char pfx[96];

                status = "failed";
                state = JOB_FAILED;
                job_step_prefix(j, pfx, sizeof(pfx));
                if (asprintf(&msg, "%s%s%s", pfx, o->unsafe ? "refused by the worker (" BENCHD_ERROR_UNSAFE "): " : "",
                             o->error) < 0)
                        msg = NULL;
                break;
        }
        }

        r = db_queue_add_run_finish(j->store, j->run_id, status, state == JOB_SUCCEEDED ? NULL : (msg ?: o->error),
                                    o->status == WORKER_SUCCEEDED ? o->result : NULL);
        if (r < 0) {
                r = db_run_finish(m->db, j->run_id, status, state == JOB_SUCCEEDED ? NULL : (msg ?: o->error),
                                  o->status == WORKER_SUCCEEDED ? o->result : NULL);
                if (r < 0)
                        job_log(j, LOG_WARNING, "cannot record the end of run %" PRIu64 ": %s (%s)", j->run_id, strerror(-r),
                             strna(db_last_error(m->db)));
        }

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
                        /* The next step starts once this one's results are stored. */
                        j->current_step++;
                        j->progress = (double) j->current_step / (double) j->n_steps;
                        job_emit(j, "CurrentStep", "Workload", "Progress", "Phase");
                        j->after_store = JOB_AFTER_STORE_STEP;
                        job_store(j);
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
        _cleanup_(step_verdict_clear) StepVerdict verdict = {};
        char sync[32], pattern[32], pfx[96];
        ProtoGuard guard;
        TargetInfo ti = {};
        bool have_ti = false;
        DbRun run;
        uint64_t run_id, *runs;
        int r;

        /* The verdict of SubmitJob is not trusted here: the queue may have been long, benchd may have
         * restarted, and the target may since have been formatted, mounted, or swapped for another
         * object. Everything is decided again, before the run is recorded or a worker started. */
        r = step_verdict(m->devices, step, j->idents ? &j->idents[j->current_step] : NULL, &verdict);
        if (r < 0) {
                job_step_prefix(j, pfx, sizeof(pfx));
                if (asprintf(&err, "%srefused at start (%s): %s", pfx, verdict.error_name, verdict.reason) < 0)
                        err = NULL;
                job_finish(j, JOB_FAILED, err ?: "refused at start: the target is no longer safe to use");
                return;
        }
        step_verdict_guard(&verdict, &guard);

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
                        job_log(j, LOG_WARNING, "cannot resolve target %s: %s; the run records no device", step->target,
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
        if (r < 0 && db_error_is_transient(r)) {
                /* The step starts when its run can be recorded. */
                j->after_store = JOB_AFTER_STORE_STEP;
                job_store_wait(j, r);
                return;
        }
        if (r < 0) {
                if (asprintf(&err, "cannot record the run of step %" PRIu32 " in the database: %s",
                             j->current_step, strerror(-r)) < 0)
                        err = NULL;
                job_finish(j, JOB_FAILED, err ?: "cannot record the run");
                return;
        }
        job_store_ok(j);
        runs = realloc(j->runs, (j->n_runs + 1) * sizeof(uint64_t));
        if (runs) {
                j->runs = runs;
                j->runs[j->n_runs++] = run_id;
        }
        j->run_id = run_id;
        j->have_live = false;
        job_emit(j, "Runs", "Live");

        r = worker_spawn(m->event, m->worker_path, j->id, j->current_step, step, text, worker_timeout_usec(step),
                         &job_worker_callbacks, j, &j->worker);
        if (r < 0) {
                if (asprintf(&err, "cannot start the worker %s: %s", m->worker_path, strerror(-r)) < 0)
                        err = NULL;
                if (db_queue_add_run_finish(j->store, run_id, "failed", err ?: "cannot start the worker", NULL) < 0)
                        (void) db_run_finish(m->db, run_id, "failed", err ?: "cannot start the worker", NULL);
                j->run_id = 0;
                job_finish(j, JOB_FAILED, err ?: "cannot start the worker");
                return;
        }
        worker_set_guard(j->worker, &guard);
        job_log(j, LOG_INFO, "step %" PRIu32 "/%zu (%s) started as run %" PRIu64, j->current_step + 1, j->n_steps,
             workload_to_string(step->workload), run_id);
}

void job_start(Job *j) {
        Manager *m = j->manager;
        _cleanup_free_ char *err = NULL;
        uint64_t started;
        int r;

        /* Waiting to try again: the retry timer schedules it. */
        if (j->after_store == JOB_AFTER_STORE_START && job_store_waiting(j))
                return;

        /* Announced as running only once the database says so; until then it stays queued. */
        started = now_usec(CLOCK_REALTIME);
        r = db_job_set_state(m->db, j->id, "running", started, 0, NULL);
        if (r < 0 && db_error_is_transient(r)) {
                j->after_store = JOB_AFTER_STORE_START;
                job_store_wait(j, r);
                return;
        }
        job_store_ok(j);

        j->state = JOB_RUNNING;
        j->started_usec = started;
        j->current_step = 0;
        j->progress = 0.0;
        manager_job_started(m, j);
        job_emit(j, "State", "StartedUSec", "CurrentStep", "Progress");
        if (r < 0) {
                job_log(j, LOG_WARNING, "cannot record state running: %s (%s)", strerror(-r), strna(db_last_error(m->db)));
                if (asprintf(&err, "cannot record in the database that the job started: %s (%s)", strerror(-r),
                             strna(db_last_error(m->db))) < 0)
                        err = NULL;
                job_finish(j, JOB_FAILED, err ?: "cannot record in the database that the job started");
                return;
        }
        job_start_step(j);
}

int job_cancel(Job *j, uint32_t uid) {
        int r;

        if (job_state_is_final(j->state) || j->after_store == JOB_AFTER_STORE_END)
                return -EBUSY;
        if (j->state == JOB_QUEUED) {
                _cleanup_free_ char *msg = NULL;
                if (asprintf(&msg, "cancelled by uid %" PRIu32 " before it started", uid) < 0)
                        msg = NULL;
                /* Stored at once or not at all: a queued job does not wait to be cancelled, the
                 * caller is told to try again. */
                free(j->end_error);
                j->end_error = strdup(msg ?: "cancelled");
                j->end_state = JOB_CANCELLED;
                j->end_usec = now_usec(CLOCK_REALTIME);
                r = db_queue_add_job_state(j->store, j->id, "cancelled", 0, j->end_usec, j->end_error);
                if (r >= 0)
                        r = db_queue_flush(j->store, j->manager->db);
                if (r < 0) {
                        db_queue_clear(j->store);
                        return r == -EBUSY ? -EAGAIN : r;
                }
                job_announce_end(j);
                return 0;
        }
        if (!j->worker) {
                /* Between steps, waiting for the database. */
                job_log(j, LOG_INFO, "cancel requested by uid %" PRIu32, uid);
                j->cancel_requested = true;
                job_finish(j, JOB_CANCELLED, "cancelled while running");
                return 0;
        }
        if (!j->cancel_requested) {
                job_log(j, LOG_INFO, "cancel requested by uid %" PRIu32, uid);
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

        if (r == -EBUSY && j->after_store == JOB_AFTER_STORE_END) {
                char state[64];

                snprintf(state, sizeof(state), "%s, which waits to be stored in the database",
                         job_state_to_string(j->end_state));
                return job_error_not_cancellable(error, j->id, state);
        }
        if (r == -EBUSY)
                return job_error_not_cancellable(error, j->id, job_state_to_string(j->state));
        if (r < 0 && r != -ENOMEM)
                return sd_bus_error_setf(error, r == -ENOSPC ? BENCHD_ERROR_NO_SPACE : SD_BUS_ERROR_FAILED,
                                         "cannot record the cancellation of job %" PRIu64 " in the database "
                                         "(%s: %s); the job is still queued: cancel it again once the "
                                         "database can be written", j->id,
                                         r == -EAGAIN ? "locked by another process" : strerror(-r),
                                         db_last_error(j->manager->db));
        return r;
}

void job_interrupt(Job *j) {
        if (j->state != JOB_RUNNING)
                return;
        j->interrupt_requested = true;
        if (j->worker) {
                worker_stop(j->worker, 3 * USEC_PER_SEC);
                return;
        }
        /* Waiting for the database: one more try (job_store_wait() gives up when that fails). */
        if (j->after_store == JOB_AFTER_STORE_END)
                job_store(j);
        else
                job_finish(j, JOB_INTERRUPTED, "benchd was stopped while the job waited for the database");
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
        SD_BUS_PROPERTY("Id", "t", NULL, offsetof(Job, id), SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("State", "s", property_get_state, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("Profile", "s", property_get_profile, 0, SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("Workload", "s", property_get_workload, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("Target", "s", property_get_target, 0, SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("Label", "s", property_get_label, 0, SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("Spec", "s", property_get_string, offsetof(Job, spec_json),
                        SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("SubmittedBy", "u", NULL, offsetof(Job, submitted_by),
                        SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("SubmittedUSec", "t", NULL, offsetof(Job, submitted_usec),
                        SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("StartedUSec", "t", NULL, offsetof(Job, started_usec),
                        SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("FinishedUSec", "t", NULL, offsetof(Job, finished_usec),
                        SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("Progress", "d", NULL, offsetof(Job, progress), SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("CurrentStep", "u", NULL, offsetof(Job, current_step),
                        SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("Steps", "u", property_get_steps, 0, SD_BUS_VTABLE_PROPERTY_CONST),
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
