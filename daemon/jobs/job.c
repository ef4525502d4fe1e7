/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The step runner: what a job does, as the core (job-core.c) decides it. Every event (the
 * scheduler's start, a cancel, the shutdown, a worker's end, the retry timer) goes through
 * job_dispatch(), which hands it to the core and does the actions it returns; the one request among
 * them (a write, the start of a step) is done here and its outcome is the core's next event. The
 * runner is here rather than in the supervisor because it is about jobs and runs (database rows,
 * progress over all steps, cancellation), while the supervisor only knows one process.
 *
 * The database may refuse a write for a while (its filesystem full, the file locked or read-only).
 * Then nothing is announced that is not stored: the writes wait in the job's DbQueue, in order,
 * and are retried on a timer with a growing interval (job_store_wait()); the job waits with them
 * (job_core_after_store() says for what: to start, to start its next step, or to announce its end)
 * and its Error says why. Samples keep coming meanwhile and wait too, up to DB_QUEUE_SAMPLES_MAX.
 * What could not be stored at all is named in the job's Error and in its JobRemoved result.
 */
#include <errno.h>
#include <inttypes.h>
#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "jobs/job-internal.h"
#include "jobs/job-fleet.h"
#include "jobs/job-steps.h"
#include "jobs/matrix.h"
#include "jobs/rounds.h"
#include "jobs/step-verdict.h"
#include "shared/bus-names.h"
#include "shared/json-util.h"
#include "shared/log.h"
#include "shared/stability.h"
#include "shared/strv.h"

#define CB(j) ((j)->ctx->callbacks)
#define CB_CALL(j, name, ...) do { \
                if (CB(j)->name) \
                        CB(j)->name((j), ##__VA_ARGS__, (j)->ctx->userdata); \
        } while (0)

int job_new(const JobContext *ctx, uint64_t id, JobSpec *spec, JobSpec *steps, TargetCheck *idents,
            TargetCheck *members, size_t n_steps, const char *spec_json, uint32_t submitted_by,
            uint64_t submitted_usec, Job **ret) {
        _cleanup_free_ char *path = NULL, *json = NULL;
        Job *j;

        if (n_steps == 0)
                return -EINVAL;
        /* Allocate first: on failure the caller still owns spec and steps. */
        json = strdup(spec_json);
        if (!json || asprintf(&path, BENCHD_JOB_PREFIX "/%" PRIu64, id) < 0)
                return -ENOMEM;
        j = calloc(1, sizeof(*j));
        if (!j)
                return -ENOMEM;
        if (db_queue_new(&j->store) < 0) {
                free(j);
                return -ENOMEM;
        }
        j->ctx = ctx;
        j->id = id;
        j->spec = *spec;
        spec_init(spec);
        j->steps = steps;
        j->idents = idents;
        j->members = members;
        j->n_steps = n_steps;
        job_core_init(&j->core, j->steps, n_steps);
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
        verdict_query_free(j->verdict_query);
        worker_free(j->worker);
        sd_event_source_disable_unref(j->linger_source);
        sd_event_source_disable_unref(j->store_retry_source);
        sd_event_source_disable_unref(j->fleet_timer);
        db_queue_free(j->store);
        free(j->runs_unstored);
        job_core_clear(&j->core);
        spec_clear(&j->spec);
        spec_array_free(j->steps, j->n_steps);
        free(j->idents);
        free(j->members);
        proto_fs_info_clear(&j->entry_fs);
        matrix_made_clear(&j->made);
        free(j->prior_fs_type);
        free(j->prior_fs_uuid);
        free(j->spec_json);
        free(j->path);
        free(j->phase);
        free(j->runs);
        free(j->error);
        free(j->round_figures);
        free(j->round_n_figures);
        free(j);
        return NULL;
}

const char *job_workload(const Job *j) {
        size_t i = MIN((size_t) j->core.step, j->n_steps - 1);

        return workload_to_string(j->steps[i].workload) ?: "";
}

/* Whether the current run makes its matrix entry's filesystem: the entry's first step, and its first
 * run (a repeat of it mounts what the first run made, like the entry's later steps); in rounds, at
 * every visit of the entry (the entries before it in the round made theirs on the same devices). */
bool job_run_makes_fs(const Job *j) {
        return matrix_step_starts_entry(j->steps, j->core.step) && (j->core.rounds || j->core.repeat == 0);
}

uint32_t job_planned_repeats(const Job *j) {
        size_t i = MIN((size_t) j->core.step, j->n_steps - 1);

        if (j->core.rounds)
                return rounds_max(j->steps, j->n_steps);
        return stability_planned_runs(&j->steps[i]);
}

char *job_entry_place(const Job *j) {
        size_t i = MIN((size_t) j->core.step, j->n_steps - 1);

        return spec_is_matrix(&j->steps[i]) ? rounds_entry_place(&j->steps[i]) : NULL;
}

/* Progress over every run the job plans (until_stddev: its max_repeats): the runs before the current
 * one, and fraction of it. */
void job_set_progress(Job *j, double fraction) {
        uint64_t total = 0, done = 0;

        fraction = isfinite(fraction) ? MAX(0.0, MIN(1.0, fraction)) : 0.0;
        if (j->core.rounds) {
                /* Every step in every round: the rounds before this one, the visits before this one. */
                total = (uint64_t) rounds_max(j->steps, j->n_steps) * j->n_steps;
                done = (uint64_t) j->core.repeat * j->n_steps + j->core.visit;
                j->progress = total > 0 ? MIN(1.0, ((double) done + fraction) / (double) total) : 0.0;
                return;
        }
        for (size_t i = 0; i < j->n_steps; i++) {
                uint32_t planned = stability_planned_runs(&j->steps[i]);

                total += planned;
                if (i < j->core.step)
                        done += planned;
        }
        done += MIN(j->core.repeat, job_planned_repeats(j));
        j->progress = total > 0 ? MIN(1.0, ((double) done + fraction) / (double) total) : 0.0;
}

void job_changed_strv(Job *j, const char *const *names) {
        CB_CALL(j, changed, names);
}

static int on_linger_end(sd_event_source *s, uint64_t usec, void *userdata) {
        Job *j = userdata;

        j->linger_source = sd_event_source_disable_unref(j->linger_source);
        CB_CALL(j, expired);
        return 0;
}


/* ---- storing ---- */

static int on_store_retry(sd_event_source *s, uint64_t usec, void *userdata) {
        Job *j = userdata;

        j->store_retry_source = sd_event_source_disable_unref(j->store_retry_source);
        (void) job_dispatch(j, (JobEvent) { .type = JOB_EVENT_RETRY });
        return 0;
}

/* What waits for the database, for the Error property and the log. */
static void job_store_describe(Job *j, char *buf, size_t size) {
        size_t n = db_queue_n_samples(j->store), k = 0;
        uint64_t dropped = db_queue_n_dropped(j->store);

#define APPEND(...) do { if (k < size) k += snprintf(buf + k, size - k, __VA_ARGS__); } while (0)
        switch (job_core_after_store(&j->core)) {
        case JOB_AFTER_STORE_START:
                APPEND("the job waits to start");
                break;
        case JOB_AFTER_STORE_STEP:
                APPEND("step %" PRIu32 " waits to start", j->core.step);
                break;
        case JOB_AFTER_STORE_END:
                APPEND("the job has ended (%s), which waits to be stored", job_state_to_string(j->core.end_state));
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

/* A write failed with r, which may pass: say so, and (unless give_up) try again later, with the
 * wait doubling up to JOB_STORE_RETRY_MAX_USEC. give_up: benchd stops and this was the last try;
 * it exits, and the next start-up settles the job from what the database has (manager_load()). */
static void job_store_wait(Job *j, int r, bool give_up) {
        _cleanup_free_ char *msg = NULL;
        char what[256];
        uint64_t delay;
        int k;

        delay = j->store_retry_usec > 0 ? j->store_retry_usec : JOB_STORE_RETRY_MIN_USEC;
        j->store_retry_usec = MIN(delay * 2, (uint64_t) JOB_STORE_RETRY_MAX_USEC);
        j->store_failures++;
        job_store_describe(j, what, sizeof(what));
        if (asprintf(&msg, "cannot write the database %s (%s: %s; %s); %s; trying again in %" PRIu64 " s",
                     j->ctx->db_path, strerror(-r), db_last_error(j->ctx->db), store_hint(r), what,
                     delay / USEC_PER_SEC) < 0)
                msg = NULL;
        if (j->store_failures == 1 || r != j->store_errno)
                job_log(j, LOG_WARNING, "%s", strna(msg));
        j->store_errno = r;

        if (give_up) {
                job_log(j, LOG_WARNING, "benchd stops with this not stored (%s); the next start-up settles the job "
                        "from what its runs say", what);
                CB_CALL(j, give_up);
                return;
        }

        if (msg && !streq_ptr(j->error, msg)) {
                free(j->error);
                j->error = TAKE_PTR(msg);
                job_changed(j, "Error");
        }

        j->store_retry_source = sd_event_source_disable_unref(j->store_retry_source);
        k = sd_event_add_time_relative(j->ctx->event, &j->store_retry_source, CLOCK_MONOTONIC, delay,
                                       USEC_PER_SEC / 10, on_store_retry, j);
        if (k < 0)
                job_log_errno(j, LOG_WARNING, k, "cannot arm the timer that retries the database: %m");
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
        if (!job_state_is_final(j->core.state) && j->error) {
                free(j->error);
                j->error = NULL;
                job_changed(j, "Error");
        }
}

/* The queue is empty: the succeeded runs whose end waited in it are stored now. */
static void job_runs_stored(Job *j) {
        _cleanup_free_ uint64_t *ids = TAKE_PTR(j->runs_unstored);
        size_t n = j->n_runs_unstored;

        j->n_runs_unstored = 0;
        for (size_t i = 0; i < n; i++)
                CB_CALL(j, run_stored, ids[i]);
}

/* FLUSH: writes what waits. */
static JobEvent job_flush(Job *j) {
        bool wrote = !db_queue_is_empty(j->store);
        int r;

        j->store_retry_source = sd_event_source_disable_unref(j->store_retry_source);
        r = db_queue_flush(j->store, j->ctx->db);
        if (r < 0)
                return (JobEvent) { .type = JOB_EVENT_STORE_FAILED, .error = r };
        if (wrote)
                job_store_ok(j);
        job_runs_stored(j);
        return (JobEvent) { .type = JOB_EVENT_STORED };
}

/* STORE_END: the final state, stored after everything else the job still has to store. */
static JobEvent job_store_end(Job *j, JobState state, const char *error) {
        const char *s = job_state_to_string(state);
        int r;

        j->end_usec = now_usec(CLOCK_REALTIME);
        r = db_queue_add_job_state(j->store, j->id, s, j->started_usec, j->end_usec, error);
        if (r < 0) {
                /* Out of memory: write it directly, without the queue's order, and go on. */
                r = db_job_set_state(j->ctx->db, j->id, s, j->started_usec, j->end_usec, error);
                if (r < 0)
                        job_log_errno(j, LOG_WARNING, r, "cannot record state %s: %m (%s)", s,
                                      strna(db_last_error(j->ctx->db)));
                return (JobEvent) { .type = JOB_EVENT_STORED };
        }
        return job_flush(j);
}

/* STORE_CANCEL: a queued job's cancellation, stored at once or not at all: a queued job does not
 * wait to be cancelled, the caller is told to try again. */
static JobEvent job_store_cancel(Job *j, const char *error) {
        int r;

        j->end_usec = now_usec(CLOCK_REALTIME);
        r = db_queue_add_job_state(j->store, j->id, job_state_to_string(JOB_CANCELLED), 0, j->end_usec, error);
        if (r >= 0)
                r = db_queue_flush(j->store, j->ctx->db);
        if (r < 0) {
                db_queue_clear(j->store);
                return (JobEvent) { .type = JOB_EVENT_STORE_FAILED, .error = r };
        }
        return (JobEvent) { .type = JOB_EVENT_STORED };
}

/* STORE_RUNNING: announced as running only once the database says so; until then it stays queued. */
static JobEvent job_store_running(Job *j, char **text) {
        uint64_t started = now_usec(CLOCK_REALTIME);
        int r;

        r = db_job_set_state(j->ctx->db, j->id, job_state_to_string(JOB_RUNNING), started, 0, NULL);
        if (r < 0 && db_error_is_transient(r))
                return (JobEvent) { .type = JOB_EVENT_STORE_FAILED, .error = r };
        job_store_ok(j);
        j->started_usec = started;
        if (r < 0) {
                job_log_errno(j, LOG_WARNING, r, "cannot record state running: %m (%s)",
                              strna(db_last_error(j->ctx->db)));
                if (asprintf(text, "%s (%s)", strerror(-r), strna(db_last_error(j->ctx->db))) < 0)
                        *text = NULL;
                return (JobEvent) { .type = JOB_EVENT_STORE_REFUSED, .text = *text };
        }
        return (JobEvent) { .type = JOB_EVENT_STORED };
}

/* ANNOUNCE_END: the end is stored: properties, the owner (JobRemoved), the linger timer. The
 * result is the state, followed by "; not stored: ..." when something of the job could not be
 * stored. */
static void job_announce_end(Job *j) {
        _cleanup_free_ char *error = NULL, *lost = NULL, *result = NULL;
        const char *state = job_state_to_string(j->core.state);
        int r;

        j->store_retry_source = sd_event_source_disable_unref(j->store_retry_source);
        j->finished_usec = j->end_usec;
        if (db_queue_error(j->store, j->core.end_error, &error) < 0)
                error = j->core.end_error ? strdup(j->core.end_error) : NULL;
        free(j->error);
        j->error = TAKE_PTR(error);
        free(j->phase);
        j->phase = NULL;
        if (j->core.state == JOB_SUCCEEDED)
                j->progress = 1.0;

        if (db_queue_has_losses(j->store) && db_queue_error(j->store, NULL, &lost) >= 0 &&
            asprintf(&result, "%s; %s", state, lost) < 0)
                result = NULL;

        if (j->error)
                job_log(j, LOG_INFO, "%s: %s", state, j->error);
        else
                job_log(j, LOG_INFO, "%s", state);

        job_changed(j, "State", "FinishedUSec", "Error", "Phase", "Progress");

        r = sd_event_add_time_relative(j->ctx->event, &j->linger_source, CLOCK_MONOTONIC, JOB_LINGER_USEC,
                                       USEC_PER_SEC, on_linger_end, j);
        if (r < 0)
                job_log_errno(j, LOG_WARNING, r, "cannot arm the removal timer: %m");

        CB_CALL(j, ended, result ?: state);
}

/* ---- the worker of a step ---- */

/* FINISH_RUN: the run's end (and its histogram before it) is queued after its samples, the worker
 * goes. */
static void job_finish_run(Job *j, JobState state, const char *error) {
        const WorkerOutcome *o = j->outcome;
        const char *status = job_state_to_string(state);
        const ProtoResult *result = state == JOB_SUCCEEDED && o ? o->result : NULL;
        int r;

        if (o && o->n_histogram > 0) {
                r = db_queue_add_histogram(j->store, j->run_id, o->histogram, o->n_histogram);
                if (r < 0)
                        job_log_errno(j, LOG_WARNING, r, "cannot keep the histogram of run %" PRIu64 ": %m", j->run_id);
        }
        r = db_queue_add_run_finish(j->store, j->run_id, status, error, result);
        if (r < 0) {
                r = db_run_finish(j->ctx->db, j->run_id, status, error, result);
                if (r < 0)
                        job_log_errno(j, LOG_WARNING, r, "cannot record the end of run %" PRIu64 ": %m (%s)", j->run_id,
                                      strna(db_last_error(j->ctx->db)));
        }
        if (r >= 0 && result) {
                /* Announced once the queue has written it (job_flush()), in order. */
                uint64_t *a = realloc(j->runs_unstored, (j->n_runs_unstored + 1) * sizeof(uint64_t));
                if (a) {
                        j->runs_unstored = a;
                        j->runs_unstored[j->n_runs_unstored++] = j->run_id;
                } else
                        job_log(j, LOG_WARNING, "out of memory: run %" PRIu64 " is not checked for regressions",
                                j->run_id);
        }

        j->worker = worker_free(j->worker);
        j->run_id = 0;
        free(j->phase);
        j->phase = NULL;
        job_fleet_step_end(j);
}

/* The rest of BEGIN_STEP, once the step's verdict allowed it: its run, its worker. */
/* The JSON array of a matrix step's member paths. */
static char *members_json(const JobSpec *step) {
        _cleanup_json_ json_object *a = json_object_new_array();

        for (char **d = step->devices; a && d && *d; d++)
                if (json_object_array_add(a, json_object_new_string(*d)) < 0)
                        return NULL;
        return a ? strdup(json_object_to_json_string_ext(a, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE)) : NULL;
}

/* Whether the current run is the last its matrix entry's array serves, so that its worker releases
 * the members at the end (FS_SETUP md_release: their md superblocks cleared, nothing on the host
 * assembles the array again): the entry's last step, and its last planned run (until_stddev: its
 * max_repeats; a job that stops repeating earlier, fails or is cancelled before it leaves the
 * superblocks, docs/matrices.md "How an md entry runs"); in rounds, every visit of the entry's last
 * step, as the next visit makes the array afresh. */
static bool job_run_releases_md(const Job *j) {
        size_t i = j->core.step;

        if (i + 1 < j->n_steps && !matrix_step_starts_entry(j->steps, i + 1))
                return false;
        return j->core.rounds || j->core.repeat + 1 >= stability_planned_runs(&j->steps[i]);
}

/* How long the new array's initial resync may take (0: none waited for): the smallest member at md's
 * guaranteed minimum rate, plus JOB_MD_RESYNC_SLACK_USEC. *ret_kib_s, *ret_bytes: what it is made of. */
static uint64_t job_md_resync_allowance(const ProtoFsSetup *fs, const StepVerdict *verdicts, size_t n,
                                        uint64_t *ret_kib_s, uint64_t *ret_bytes) {
        _cleanup_fclose_ FILE *f = NULL;
        uint64_t kib_s = 0, bytes = UINT64_MAX;

        if (!proto_fs_layout_is_md(fs->layout) || streq(fs->layout, "md-raid0") || fs->stage != PROTO_FS_STAGE_MAKE ||
            fs->md_resync != PROTO_MD_RESYNC_WAIT)
                return 0;
        f = fopen(JOB_MD_SPEED_LIMIT_MIN_PATH, "re");
        if (!f || fscanf(f, "%" SCNu64, &kib_s) != 1 || kib_s == 0)
                kib_s = JOB_MD_RESYNC_MIN_KIB_S;
        for (size_t i = 0; i < n; i++)
                bytes = MIN(bytes, verdicts[i].check.device_bytes);
        if (bytes == UINT64_MAX)
                bytes = 0;
        *ret_kib_s = kib_s;
        *ret_bytes = bytes;
        return bytes / (kib_s * 1024u) * USEC_PER_SEC + JOB_MD_RESYNC_SLACK_USEC;
}

/* What the worker of a matrix step is to make or mount, on the members as their verdicts found
 * them. Its strings point into the step and the job. */
static void job_fs_setup(Job *j, const StepVerdict *verdicts, size_t n, ProtoFsMember *members,
                         char md_name[static PROTO_FS_MD_NAME_MAX + 1], ProtoFsSetup *ret) {
        const JobSpec *step = &j->steps[j->core.step];
        const char *fs = step->filesystems[0];
        bool make = job_run_makes_fs(j), md = step->layout >= 0 && layout_is_md(step->layout),
             lvm = step->layout >= 0 && layout_is_lvm(step->layout);
        /* An LVM entry's last step (each step of a matrix runs once per visit of its entry: in rounds
         * the entry's steps run together, without rounds each step once): its volume group is
         * removed after it, not only deactivated. */
        bool last = j->core.step + 1 >= j->n_steps || matrix_step_starts_entry(j->steps, j->core.step + 1);

        /* The entry's array or volume group: one name for all its steps, which assemble or activate
         * what its first made. */
        md_name[0] = 0;
        if (md || lvm)
                snprintf(md_name, PROTO_FS_MD_NAME_MAX + 1, "benchd-%" PRIu64 "-%" PRIu32, j->id,
                         matrix_step_entry(j->steps, j->core.step));

        for (size_t i = 0; i < n; i++)
                members[i] = (ProtoFsMember) {
                        .path = step->devices[i],
                        .dev = (uint64_t) verdicts[i].check.dev,
                        .diskseq = verdicts[i].check.diskseq,
                        .flags = verdicts[i].scratch ? PROTO_GUARD_SCRATCH : 0,
                };
        *ret = (ProtoFsSetup) {
                .stage = make ? PROTO_FS_STAGE_MAKE : PROTO_FS_STAGE_MOUNT,
                .fs_type = (char *) fs,
                .layout = (char *) layout_to_string(step->layout),
                .mkfs_options = (char *) (spec_map_get(&step->mkfs_options, fs) ?: ""),
                .mount_options = (char *) (spec_map_get(&step->mount_options, fs) ?: ""),
                .expect_uuid = make ? j->prior_fs_uuid ?: (char *) "" : j->entry_fs.uuid,
                .n_members = (uint32_t) n,
                .members = members,
                .partitions = step->partitions,
                .partition = step->partition,
                .md_name = md_name,
                .md_options = md ? step->md_options : NULL,
                .md_resync = step->md_resync == MD_RESYNC_ASSUME_CLEAN ? PROTO_MD_RESYNC_ASSUME_CLEAN :
                                                                         PROTO_MD_RESYNC_WAIT,
                .lvm_options = lvm ? step->lvm_options : NULL,
                .lv_size = lvm ? step->lv_size : 0,
                .layout_flags = lvm && last ? PROTO_FS_LAYOUT_REMOVE : 0,
                /* md-raid1+lvm: with the group's removal (docs/matrices.md). */
                .md_release = md && (!lvm || last) && job_run_releases_md(j),
        };
}

/* Who a step's worker runs as: a caller other than root, for a step on a directory or file (see
 * shared/run-as.h); root for a block device (polkit allowed it, and the device needs root) and a
 * filesystem step (verdict NULL: mkfs and mount are root's work, on devices polkit allowed). */
static uid_t job_step_run_as(const Job *j, const StepVerdict *verdict) {
        if (!verdict || (verdict->check.kind != TARGET_DIRECTORY && verdict->check.kind != TARGET_FILE))
                return 0;
        return (uid_t) j->submitted_by;
}

static JobEvent job_begin_step(Job *j, const StepVerdict *verdicts, size_t n_verdicts, char **text) {
        uint32_t n = j->core.step;
        const JobSpec *step = &j->steps[n];
        bool matrix = spec_is_matrix(step);
        _cleanup_free_ char *spec_text = NULL, *members = NULL;
        ProtoFsMember fs_members[JOB_STEP_MEMBERS_MAX];
        char md_name[PROTO_FS_MD_NAME_MAX + 1] = "";
        ProtoFsSetup fs_setup = {};
        ProtoGuard guard = {};
        TargetInfo ti = {};
        bool have_ti = false;
        DbRun run;
        uint64_t run_id, *runs, resync_usec = 0;
        int r;

        if (matrix) {
                /* The worker checks the members itself, as FS_SETUP names them; its workload runs on
                 * the filesystem it mounts, not on the target. */
                guard = (ProtoGuard) { .kind = PROTO_GUARD_NONE };
                job_fs_setup(j, verdicts, MIN(n_verdicts, (size_t) JOB_STEP_MEMBERS_MAX), fs_members, md_name,
                             &fs_setup);
                members = members_json(step);
                if (!members) {
                        *text = strdup(strerror(ENOMEM));
                        return (JobEvent) { .type = JOB_EVENT_STEP_REFUSED, .refusal = JOB_REFUSED_SPEC, .text = *text };
                }
        } else
                step_verdict_guard(&verdicts[0], &guard);

        r = spec_to_worker_text(step, &spec_text);
        if (r < 0) {
                *text = strdup(strerror(-r));
                return (JobEvent) { .type = JOB_EVENT_STEP_REFUSED, .refusal = JOB_REFUSED_SPEC, .text = *text };
        }

        if (j->ctx->devices) {
                r = device_manager_resolve_target(j->ctx->devices, step->target, &ti);
                if (r < 0)
                        job_log_errno(j, LOG_WARNING, r, "cannot resolve target %s: %m; the run records no device",
                                      step->target);
                else
                        have_ti = true;
        }

        run = (DbRun) {
                .job_id = j->id,
                .step = n,
                .spec = step,
                .device_id = have_ti ? ti.device_id : -1,
                .device_name = have_ti ? ti.device_name : NULL,
                .fs_type = matrix ? step->filesystems[0] : have_ti ? ti.fs_type : NULL,
                .mount_options = matrix ? spec_map_get(&step->mount_options, step->filesystems[0])
                                        : have_ti ? ti.mount_options : NULL,
                .environment = have_ti ? ti.environment_json : NULL,
                .started_usec = now_usec(CLOCK_REALTIME),
                .layout = matrix ? layout_to_string(step->layout) : NULL,
                .members_json = members,
                .in_matrix = matrix,
                .matrix_entry = matrix ? matrix_step_entry(j->steps, n) : 0,
                .mkfs_options = matrix ? spec_map_get(&step->mkfs_options, step->filesystems[0]) : NULL,
                .repeat = j->core.repeat,
                .in_round = j->core.rounds,
                .round = j->core.repeat,
                .steady_state_asked = step->steady_state != STEADY_STATE_NONE,
                .partitions = matrix ? step->partitions : 0,
                .partition = matrix ? step->partition : 0,
                /* The array's name is recorded with the run, before the worker may create it: what a
                 * killed worker left is found from it (md-leftovers.h). */
                .md_array = md_name[0] && layout_is_md(step->layout) ? md_name : NULL,
                .md_resync = md_name[0] && layout_is_md(step->layout) ? md_resync_to_string(step->md_resync) : NULL,
                /* So is the volume group's (lvm-leftovers.h). */
                .lvm_vg = md_name[0] && layout_is_lvm(step->layout) ? md_name : NULL,
        };
        r = db_run_begin(j->ctx->db, &run, &run_id);
        if (have_ti)
                target_info_clear(&ti);
        if (r < 0 && db_error_is_transient(r))
                /* The step starts when its run can be recorded. */
                return (JobEvent) { .type = JOB_EVENT_STORE_FAILED, .error = r };
        if (r < 0) {
                *text = strdup(strerror(-r));
                return (JobEvent) { .type = JOB_EVENT_STEP_REFUSED, .refusal = JOB_REFUSED_RUN, .text = *text };
        }
        job_store_ok(j);
        /* A later step (or repeat) of a matrix entry runs on the filesystem its first run made: its
         * run records the same. */
        if (matrix && !job_run_makes_fs(j) && j->have_entry_fs)
                job_queue_run_fs(j, run_id, &j->entry_fs);
        runs = realloc(j->runs, (j->n_runs + 1) * sizeof(uint64_t));
        if (runs) {
                j->runs = runs;
                j->runs[j->n_runs++] = run_id;
        }
        j->run_id = run_id;
        j->have_live = false;
        job_changed(j, "Runs", "Live");

        /* A resync waited for is not mkfs's: it has an allowance of its own, said in the job's log. */
        if (matrix) {
                uint64_t kib_s = 0, bytes = 0;

                resync_usec = job_md_resync_allowance(&fs_setup, verdicts, MIN(n_verdicts,
                                                      (size_t) JOB_STEP_MEMBERS_MAX), &kib_s, &bytes);
                if (resync_usec > 0)
                        job_log(j, LOG_INFO, "run %" PRIu64 ": the initial resync of %s may take up to %" PRIu64 " s (the "
                                "smallest member, %" PRIu64 " bytes, at md's minimum resync rate of %" PRIu64 " KiB/s, "
                                "plus %u s), besides mkfs's %u s", run_id, md_name, resync_usec / USEC_PER_SEC, bytes,
                                kib_s, (unsigned) (JOB_MD_RESYNC_SLACK_USEC / USEC_PER_SEC),
                                (unsigned) (JOB_MKFS_TIMEOUT_USEC / USEC_PER_SEC));
        }
        r = worker_spawn(j->ctx->event, j->ctx->worker_path, j->id, n, step, spec_text,
                         job_step_run_as(j, !matrix ? &verdicts[0] : NULL),
                         worker_timeout_usec(step, j->ctx->step_grace_usec) + (!matrix ? 0 : fs_setup.stage == PROTO_FS_STAGE_MAKE ?
                                                      JOB_MKFS_TIMEOUT_USEC : JOB_MOUNT_TIMEOUT_USEC) + resync_usec,
                         &job_worker_callbacks, j, &j->worker);
        if (r < 0) {
                if (asprintf(text, "%s: %s", j->ctx->worker_path, strerror(-r)) < 0)
                        *text = NULL;
                if (db_queue_add_run_finish(j->store, run_id, "failed", *text ?: "cannot start the worker", NULL) < 0)
                        (void) db_run_finish(j->ctx->db, run_id, "failed", *text ?: "cannot start the worker", NULL);
                j->run_id = 0;
                return (JobEvent) { .type = JOB_EVENT_STEP_REFUSED, .refusal = JOB_REFUSED_WORKER, .text = *text };
        }
        worker_set_guard(j->worker, &guard);
        worker_set_device(j->worker, !matrix && verdicts[0].check.kind == TARGET_BLOCK ? verdicts[0].check.device_bytes : 0);
        if (matrix) {
                r = worker_set_fs_setup(j->worker, &fs_setup);
                if (r < 0) {
                        j->worker = worker_free(j->worker);
                        *text = strdup(strerror(-r));
                        if (db_queue_add_run_finish(j->store, run_id, "failed", *text ?: "out of memory", NULL) < 0)
                                (void) db_run_finish(j->ctx->db, run_id, "failed", *text ?: "out of memory", NULL);
                        j->run_id = 0;
                        return (JobEvent) { .type = JOB_EVENT_STEP_REFUSED, .refusal = JOB_REFUSED_WORKER,
                                            .text = *text };
                }
        }
        if (j->core.rounds) {
                _cleanup_free_ char *place = rounds_entry_place(step);

                job_log(j, LOG_INFO, "round %" PRIu32 " (of %s%" PRIu32 "), %s, step %" PRIu32 "/%zu (%s)%s started "
                        "as run %" PRIu64, j->core.repeat + 1, step->until_stddev_milli > 0 ? "at most " : "",
                        job_planned_repeats(j), strna(place), n + 1, j->n_steps, workload_to_string(step->workload),
                        job_run_makes_fs(j) ? " on a filesystem made afresh," : "", run_id);
        } else if (job_planned_repeats(j) > 1)
                job_log(j, LOG_INFO, "step %" PRIu32 "/%zu (%s), repeat %" PRIu32 " (of %s%" PRIu32 "), started as "
                        "run %" PRIu64, n + 1, j->n_steps, workload_to_string(step->workload), j->core.repeat,
                        step->until_stddev_milli > 0 ? "at most " : "", job_planned_repeats(j), run_id);
        else
                job_log(j, LOG_INFO, "step %" PRIu32 "/%zu (%s) started as run %" PRIu64, n + 1, j->n_steps,
                        workload_to_string(step->workload), run_id);
        return (JobEvent) { .type = JOB_EVENT_STEP_STARTED };
}


/* The step's verdict has come from the helper process: refused, or on with the run and worker. */
static void on_step_verdict(VerdictQuery *q, StepVerdict *verdicts, size_t n, void *userdata) {
        Job *j = userdata;
        _cleanup_(verdict_query_freep) VerdictQuery *owned = TAKE_PTR(j->verdict_query);
        _cleanup_free_ char *text = NULL, *entry_text = NULL;
        StepVerdict *refused = NULL;
        JobEvent e;

        /* A matrix step has one verdict per member device: each must allow it. */
        for (size_t i = 0; i < n && !refused; i++)
                if (verdicts[i].error_name)
                        refused = &verdicts[i];
        if (n < 1 || refused) {
                text = refused ? TAKE_PTR(refused->reason) : NULL;
                entry_text = job_entry_text(j, text);
                e = (JobEvent) { .type = JOB_EVENT_STEP_REFUSED, .refusal = JOB_REFUSED_VERDICT,
                                 .text = entry_text ?: text,
                                 .error_name = refused ? refused->error_name : BENCHD_ERROR_UNSAFE };
        } else if (j->core.cancel_requested || j->core.interrupt_requested)
                /* Cancelled or interrupted while its target was checked: no worker for it. */
                e = (JobEvent) { .type = JOB_EVENT_STEP_REFUSED, .refusal = JOB_REFUSED_STOPPED };
        else
                e = job_begin_step(j, verdicts, n, &text);
        (void) job_dispatch(j, e);
}

/* BEGIN_STEP. The verdict of SubmitJob is not trusted here: the queue may have been long, benchd
 * may have restarted, and the target may since have been formatted, mounted, or swapped for
 * another object. Everything is decided again, before the run is recorded or a worker started, in
 * a helper process, so a stat() or a probe that hangs on a dying disk does not stop the event
 * loop; the step goes on in on_step_verdict(). Returns true with the outcome in *next only when
 * the check cannot even be started. */
static bool job_begin_step_async(Job *j, JobEvent *next, char **text) {
        uint32_t n = j->core.step;
        int r;

        if (spec_is_matrix(&j->steps[n])) {
                /* Each member device is judged as a destructive write to it; a later step of an entry
                 * also accepts the entry's own filesystem on them, and nothing else; an entry's first
                 * step the filesystem an earlier entry made on them (the job's, and the worker
                 * checks the same UUID again), and nothing else. */
                JobSpec *units = NULL;
                size_t n_units = 0;
                VerdictOptions opts = { .worker_path = j->ctx->worker_path };

                if (job_run_makes_fs(j)) {
                        const MatrixMadeFs *prior = matrix_made_on(&j->made, j->steps[n].devices);

                        proto_fs_info_clear(&j->entry_fs);
                        j->have_entry_fs = false;
                        free(j->prior_fs_type);
                        free(j->prior_fs_uuid);
                        j->prior_fs_type = prior ? strdup(prior->fs_type) : NULL;
                        j->prior_fs_uuid = prior ? strdup(prior->uuid) : NULL;
                        if (prior && (!j->prior_fs_type || !j->prior_fs_uuid)) {
                                *text = strdup(strerror(ENOMEM));
                                *next = (JobEvent) { .type = JOB_EVENT_STEP_REFUSED, .refusal = JOB_REFUSED_VERDICT,
                                                     .text = *text, .error_name = BENCHD_ERROR_UNSAFE };
                                return true;
                        }
                        opts.own_fs_type = j->prior_fs_type;
                        opts.own_fs_uuid = j->prior_fs_uuid;
                } else if (!j->have_entry_fs) {
                        *text = job_entry_text(j, "the filesystem the entry's first step made is not known (its worker "
                                               "did not report it), so this step cannot tell it from the user's data; "
                                               "run the job again");
                        *next = (JobEvent) { .type = JOB_EVENT_STEP_REFUSED, .refusal = JOB_REFUSED_VERDICT,
                                             .text = *text, .error_name = BENCHD_ERROR_UNSAFE };
                        return true;
                } else {
                        opts.own_fs_type = j->steps[n].filesystems[0];
                        opts.own_fs_uuid = j->entry_fs.uuid;
                }
                r = matrix_member_specs(&j->steps[n], false, &units, &n_units);
                if (r >= 0)
                        r = verdict_query_start(j->ctx->event, j->ctx->devices, units,
                                                j->members ? &j->members[(size_t) n * JOB_STEP_MEMBERS_MAX] : NULL,
                                                n_units, &opts, VERDICT_QUERY_TIMEOUT_USEC, on_step_verdict, j,
                                                &j->verdict_query);
                spec_array_free(units, n_units);
        } else
                r = verdict_query_start(j->ctx->event, j->ctx->devices, &j->steps[n], j->idents ? &j->idents[n] : NULL,
                                        1, &(VerdictOptions) { .caller_uid = j->submitted_by },
                                        VERDICT_QUERY_TIMEOUT_USEC, on_step_verdict, j, &j->verdict_query);
        if (r >= 0)
                return false;
        if (asprintf(text, "cannot start the check of %s: %s", CALLER_TEXT(j->steps[n].target),
                     strerror(-r)) < 0)
                *text = NULL;
        *next = (JobEvent) { .type = JOB_EVENT_STEP_REFUSED, .refusal = JOB_REFUSED_VERDICT, .text = *text,
                             .error_name = BENCHD_ERROR_UNSAFE };
        return true;
}

/* ---- the dispatch ---- */

/* Does one action; a request gives the next event in *next (its text in *text) and returns true. */
static bool job_act(Job *j, const JobAction *a, JobEvent *next, char **text) {
        switch (a->type) {
        case JOB_ACTION_STORE_RUNNING:
                *next = job_store_running(j, text);
                return true;
        case JOB_ACTION_STORE_CANCEL:
                *next = job_store_cancel(j, a->text);
                return true;
        case JOB_ACTION_BEGIN_STEP:
                return job_begin_step_async(j, next, text);
        case JOB_ACTION_FLUSH:
                *next = job_flush(j);
                return true;
        case JOB_ACTION_STORE_END:
                *next = job_store_end(j, a->state, a->text);
                return true;
        case JOB_ACTION_SCHEDULE:
                CB_CALL(j, schedule);
                return false;
        case JOB_ACTION_ANNOUNCE_STARTED:
                j->progress = 0.0;
                j->n_figures = 0;
                CB_CALL(j, started);
                job_changed(j, "State", "StartedUSec", "CurrentStep", "CurrentRepeat", "Repeats", "Entry", "Progress");
                return false;
        case JOB_ACTION_STOP_WORKER:
                worker_stop(j->worker, a->interrupt ? JOB_INTERRUPT_KILL_USEC : JOB_CANCEL_KILL_USEC);
                return false;
        case JOB_ACTION_FINISH_RUN:
                job_finish_run(j, a->state, a->text);
                return false;
        case JOB_ACTION_REMOVE_FILES:
                /* A matrix step's files were on the filesystem its worker mounted, which only the
                 * worker's mount namespace ever saw: nothing of them is left to remove. */
                if (spec_is_matrix(&j->steps[a->step]))
                        return false;
                /* In the background: the job may end before its files are gone, the next one waits. */
                CB_CALL(j, remove_files, j->steps[a->step].target, (int) a->step);
                return false;
        case JOB_ACTION_NEXT_STEP:
                j->n_figures = 0;
                job_set_progress(j, 0.0);
                job_changed(j, "CurrentStep", "CurrentRepeat", "Repeats", "Workload", "Entry", "Progress", "Phase");
                return false;
        case JOB_ACTION_REPEAT_STEP:
                job_set_progress(j, 0.0);
                job_changed(j, "CurrentRepeat", "Progress", "Phase");
                return false;
        case JOB_ACTION_STORE_WAIT:
        case JOB_ACTION_STORE_GIVE_UP:
                job_store_wait(j, a->error, a->type == JOB_ACTION_STORE_GIVE_UP);
                return false;
        case JOB_ACTION_ANNOUNCE_END:
                job_announce_end(j);
                return false;
        case JOB_ACTION_REPLY:
        default:
                return false;
        }
}

/* Hands e to the core and does what it says, then the same with the outcome of its request, until
 * one comes without. Returns the core's REPLY (the answer to a cancel), else 0. */
int job_dispatch(Job *j, JobEvent e) {
        _cleanup_free_ char *text = NULL;       /* e's, when a request made it */
        int reply = 0;

        for (;;) {
                JobActions a;
                JobEvent next = {};
                bool more = false;
                int r;

                r = job_core_handle(&j->core, &e, &a);
                if (r < 0)
                        job_log(j, LOG_DEBUG, "event %s does not apply in stage %s; ignored",
                                job_event_type_to_string(e.type), job_stage_to_string(j->core.stage));
                /* The core has copied what it keeps of e. */
                free(text);
                text = NULL;

                for (size_t i = 0; i < a.n; i++) {
                        if (a.actions[i].type == JOB_ACTION_REPLY && reply == 0)
                                reply = a.actions[i].error;
                        if (job_act(j, &a.actions[i], &next, &text))
                                more = true;
                }
                if (!more)
                        return reply;
                e = next;
        }
}

/* ---- what the owner asks ---- */

void job_start(Job *j) {
        (void) job_dispatch(j, (JobEvent) { .type = JOB_EVENT_START });
}

int job_cancel(Job *j, uint32_t uid) {
        if (j->core.state == JOB_RUNNING && j->core.stage != JOB_STAGE_ENDING && !j->core.cancel_requested)
                job_log(j, LOG_INFO, "cancel requested by uid %" PRIu32, uid);
        return job_dispatch(j, (JobEvent) { .type = JOB_EVENT_CANCEL, .uid = uid });
}

void job_interrupt(Job *j) {
        (void) job_dispatch(j, (JobEvent) { .type = JOB_EVENT_INTERRUPT });
}
