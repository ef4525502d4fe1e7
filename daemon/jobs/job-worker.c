/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What the worker of a step tells its job (job_worker_callbacks, job-internal.h): its phase, its
 * records (each queued for the run as its description says, whatever its type: a sample is also
 * the live figure and the progress, a steady state ends the step), the filesystem a matrix step
 * made, and its end, which becomes the core's WORKER_ENDED event. The supervisor has judged every
 * frame before (worker-judge.h); nothing here checks it again.
 */

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobs/job-fleet.h"
#include "jobs/job-internal.h"
#include "jobs/matrix.h"
#include "jobs/leftovers.h"
#include "jobs/part-leftovers.h"
#include "jobs/rounds.h"
#include "shared/json-util.h"
#include "shared/proto-record.h"
#include "shared/stability.h"
#include "shared/strv.h"
#include "shared/util.h"
#include "store/db-queue.h"

static void on_worker_phase(Worker *w, const char *phase, void *userdata) {
        Job *j = userdata;

        free(j->phase);
        j->phase = strdup(phase);
        job_fleet_phase(j, phase);
        job_changed(j, "Phase");
}

/* One of the worker's records: queued for the run as its description says (samples in batches,
 * the rest at once, so a run that fails later keeps the phases and offsets it finished); while
 * the database refuses writes, the retry timer writes them. What a record means for the job
 * besides: a sample is the live figure and the progress; a steady state ends the step. */
static void on_worker_record(Worker *w, const ProtoRecord *rec, void *userdata) {
        bool sample = rec->desc == &proto_record_sample;
        Job *j = userdata;
        int r;

        /* Samples are queued even without a run row, so that their loss is noted. */
        if (j->run_id == 0 && !sample)
                return;
        r = db_queue_add_record(j->store, j->run_id, rec);
        if (r < 0)
                job_log_errno(j, LOG_WARNING, r, "cannot keep a %s record of run %" PRIu64 ": %m", rec->desc->name,
                              j->run_id);

        if (sample) {
                const ProtoSample *s = &rec->sample;

                if (db_queue_n_samples(j->store) >= JOB_SAMPLE_BATCH)
                        (void) job_dispatch(j, (JobEvent) { .type = JOB_EVENT_RESULTS });
                j->live = *s;
                j->have_live = true;
                job_set_progress(j, isfinite(s->progress) ? s->progress : 0.0);
                job_changed(j, "Progress", "Live");
                return;
        }
        if (rec->desc == &proto_record_steady_state)
                job_log(j, LOG_INFO, "run %" PRIu64 ": steady state reached after %" PRIu64 " ms; the step ends there",
                        j->run_id, rec->steady_state.t_ms);
        (void) job_dispatch(j, (JobEvent) { .type = JOB_EVENT_RESULTS });
}

/* "ext4 loop1: " before what a matrix step's failure says, so the job's error names the entry it
 * was on; NULL (and text as it is) for other steps. */
char *job_entry_text(Job *j, const char *text) {
        _cleanup_free_ char *name = NULL;
        char *t;

        if (!text || !spec_is_matrix(&j->steps[j->core.step]))
                return NULL;
        name = matrix_entry_name(&j->steps[j->core.step], strv_length(j->spec.devices));
        if (!name || asprintf(&t, "%s (entry %" PRIu32 " of the matrix): %s", name,
                              matrix_step_entry(j->steps, j->core.step) + 1, text) < 0)
                return NULL;
        return t;
}

/* In rounds: where step's figures are kept, NULL without memory (until_stddev then judges none). */
static double *job_round_figures(Job *j, uint32_t step, uint32_t **ret_n) {
        size_t per = rounds_max(j->steps, j->n_steps);

        if (!j->round_figures) {
                j->round_figures = calloc(j->n_steps * per, sizeof(double));
                j->round_n_figures = calloc(j->n_steps, sizeof(uint32_t));
                if (!j->round_figures || !j->round_n_figures) {
                        free(j->round_figures);
                        free(j->round_n_figures);
                        j->round_figures = NULL;
                        j->round_n_figures = NULL;
                        return NULL;
                }
        }
        *ret_n = &j->round_n_figures[step];
        return &j->round_figures[(size_t) step * per];
}

static void on_worker_finished(Worker *w, const WorkerOutcome *o, void *userdata) {
        Job *j = userdata;
        _cleanup_free_ char *text = job_entry_text(j, o->error);
        double *figures = j->figures, v = NAN;
        size_t n_figures = j->n_figures;
        uint32_t *n_round = NULL;
        const JobSpec *step = &j->steps[j->core.step];

        /* Its logical volume and array are released by the worker, unless the worker was killed:
         * then here, the volume before the md array under it (md-raid1+lvm); not another job's,
         * whose worker may be using its own with nothing holding it open (waiting for its resync). */
        if (spec_is_matrix(step) && step->layout >= 0 && (layout_is_lvm(step->layout) || layout_is_md(step->layout))) {
                char when[64];

                snprintf(when, sizeof(when), "after job %" PRIu64 "'s step %" PRIu32, j->id, j->core.step + 1);
                if (layout_is_lvm(step->layout))
                        (void) leftovers_clean(j->ctx->db, j->ctx->event, LEFTOVER_LVM, when, true, j->run_id);
                if (layout_is_md(step->layout))
                        (void) leftovers_clean(j->ctx->db, j->ctx->event, LEFTOVER_MD, when, true, j->run_id);
        }
        /* Its partitions, under those, likewise (part-leftovers.h). */
        if (spec_is_matrix(step) && step->partitions > 0) {
                char when[64];

                snprintf(when, sizeof(when), "after job %" PRIu64 "'s step %" PRIu32, j->id, j->core.step + 1);
                (void) part_leftovers_clean(j->ctx->db, j->ctx->event, when, j->run_id);
        }

        if (o->status == WORKER_SUCCEEDED && o->result) {
                const ProtoResult *res = o->result;
                FigureKind k = workload_main_figure(j->steps[j->core.step].workload);

                v = figure_value(k, res->bytes_read + res->bytes_written, res->ios_read + res->ios_written, res->ops,
                                 res->duration_usec);
        }
        /* The step's figures so far, for the core to judge its stability (until_stddev). */
        if (j->core.rounds) {
                figures = job_round_figures(j, j->core.step, &n_round);
                if (figures && !isnan(v) && *n_round < rounds_max(j->steps, j->n_steps)) {
                        figures[*n_round] = v;
                        (*n_round)++;
                }
                n_figures = figures ? *n_round : 0;
        } else if (!isnan(v) && j->n_figures < ELEMENTSOF(j->figures)) {
                j->figures[j->n_figures++] = v;
                n_figures = j->n_figures;
        }
        /* FINISH_RUN takes the result and histogram from here. */
        j->outcome = o;
        (void) job_dispatch(j, (JobEvent) {
                .type = JOB_EVENT_WORKER_ENDED,
                .status = o->status,
                .text = text ?: o->error,
                .unsafe = o->unsafe,
                .figures = figures,
                .n_figures = n_figures,
        });
        j->outcome = NULL;
}

static int fs_info_copy(const ProtoFsInfo *from, ProtoFsInfo *to) {
        *to = *from;
        to->commands = NULL;
        to->n_commands = 0;
        to->fs_type = strdup(from->fs_type ?: "");
        to->uuid = strdup(from->uuid ?: "");
        to->mkfs_command = strdup(from->mkfs_command ?: "");
        to->mkfs_output = strdup(from->mkfs_output ?: "");
        to->mount_options = strdup(from->mount_options ?: "");
        to->layout_commands = strdup(from->layout_commands ?: "");
        if (!to->fs_type || !to->uuid || !to->mkfs_command || !to->mkfs_output || !to->mount_options ||
            !to->layout_commands)
                goto oom;
        if (from->n_commands > 0) {
                to->commands = calloc(from->n_commands, sizeof(ProtoFsCommand));
                if (!to->commands)
                        goto oom;
                for (uint32_t i = 0; i < from->n_commands; i++, to->n_commands++) {
                        to->commands[i] = from->commands[i];
                        to->commands[i].command = strdup(from->commands[i].command ?: "");
                        to->commands[i].output = strdup(from->commands[i].output ?: "");
                        if (!to->commands[i].command || !to->commands[i].output) {
                                to->n_commands++;
                                goto oom;
                        }
                }
        }
        return 0;
oom:
        proto_fs_info_clear(to);
        return -ENOMEM;
}

/* runs.fs_commands: [{"command": "mkfs.ext3 /dev/loop3", "usec": 812345, "status": 0, "output": "..."},
 * ...], or NULL when the worker ran none. */
static char *fs_commands_json(const ProtoFsInfo *info) {
        _cleanup_json_ json_object *a = NULL;

        if (info->n_commands == 0)
                return NULL;
        a = json_object_new_array();
        if (!a)
                return NULL;
        for (uint32_t i = 0; i < info->n_commands; i++) {
                const ProtoFsCommand *c = &info->commands[i];
                json_object *o = json_object_new_object();

                if (!o || json_object_array_add(a, o) < 0) {
                        json_object_put(o);
                        return NULL;
                }
                json_object_object_add(o, "command", json_object_new_string(c->command));
                json_object_object_add(o, "usec", json_object_new_int64((int64_t) MIN(c->usec, (uint64_t) INT64_MAX)));
                json_object_object_add(o, "status", json_object_new_int(c->status));
                json_object_object_add(o, "output", json_object_new_string(c->output));
        }
        return strdup(json_object_to_json_string_ext(a, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
}

void job_queue_run_fs(Job *j, uint64_t run_id, const ProtoFsInfo *info) {
        _cleanup_free_ char *commands = fs_commands_json(info);
        DbRunFs fs = {
                .mkfs_command = info->mkfs_command,
                .mkfs_output = info->mkfs_output,
                .fs_uuid = info->uuid,
                .mkfs_usec = info->mkfs_usec,
                .size_bytes = info->size_bytes,
                .used_bytes = info->used_bytes,
                .avail_bytes = info->avail_bytes,
                .inodes = info->inodes,
                .inodes_free = info->inodes_free,
                .fs_commands_json = commands,
                .layout_commands = info->layout_commands,
                .md_chunk_bytes = info->md_chunk_bytes,
                .md_resync_usec = info->md_resync_usec,
                .lv_extents = info->lv_extents,
                .lv_bytes = info->lv_bytes,
        };
        int r = db_queue_add_run_fs(j->store, run_id, &fs);

        if (r < 0)
                job_log_errno(j, LOG_WARNING, r, "cannot keep how the filesystem of run %" PRIu64 " was made: %m",
                              run_id);
}

/* The filesystem of a matrix step is mounted. The first step of an entry made it: that is what every
 * run of the entry records, and the UUID the entry's later steps expect to find on the members. */
static void on_worker_fs_info(Worker *w, const ProtoFsInfo *info, void *userdata) {
        Job *j = userdata;
        int r;

        if (j->run_id == 0)
                return;
        /* A later step of an md or LVM entry: the run carries the first's record (queued when it
         * began), and after it what assembled the array or activated the group again (mdadm
         * --assemble, with any array the host's udev assembled first stopped before it; lvm vgchange
         * --activate y, over md-raid1+lvm mdadm --assemble before it). */
        if (!job_run_makes_fs(j)) {
                const JobSpec *step = &j->steps[j->core.step];

                if (step->layout >= 0 && (layout_is_md(step->layout) || layout_is_lvm(step->layout)) &&
                    info->layout_commands && info->layout_commands[0]) {
                        r = db_queue_add_layout_released(j->store, j->run_id, info->layout_commands);
                        if (r < 0)
                                job_log_errno(j, LOG_WARNING, r, "cannot keep what assembled run %" PRIu64 "'s "
                                              "layout again (%m): %s", j->run_id, info->layout_commands);
                }
                return;
        }
        proto_fs_info_clear(&j->entry_fs);
        j->have_entry_fs = false;
        r = fs_info_copy(info, &j->entry_fs);
        if (r < 0) {
                job_log_errno(j, LOG_WARNING, r, "cannot keep how the filesystem of run %" PRIu64 " was made: %m",
                              j->run_id);
                return;
        }
        j->have_entry_fs = true;
        /* From now on its members carry it, whatever they carried before. */
        r = matrix_made_record(&j->made, j->steps[j->core.step].devices, info->fs_type, info->uuid);
        if (r < 0)
                job_log_errno(j, LOG_WARNING, r, "cannot keep which filesystem run %" PRIu64 " made (%m): a later "
                              "entry on the same devices will find it there and refuse it", j->run_id);
        job_queue_run_fs(j, j->run_id, info);
        job_log(j, LOG_INFO, "run %" PRIu64 ": %s made in %" PRIu64 " ms (%s), %" PRIu64 " of %" PRIu64
                " bytes used after mkfs", j->run_id, info->fs_type, info->mkfs_usec / 1000, info->mkfs_command,
                info->used_bytes, info->size_bytes);
        (void) job_dispatch(j, (JobEvent) { .type = JOB_EVENT_RESULTS });
}

/* What the step ran on its layout at its end (an LVM group's deactivation and removal, the release
 * of an md array's members on the entry's last step): it goes after the layout's own commands in the
 * run's layout_commands. */
static void on_worker_fs_released(Worker *w, const char *commands, void *userdata) {
        Job *j = userdata;
        int r;

        if (j->run_id == 0)
                return;
        /* Through the job's queue, after the run's filesystem record (queued when it began or at
         * FS_INFO), which writes layout_commands too. */
        r = db_queue_add_layout_released(j->store, j->run_id, commands);
        if (r < 0)
                job_log_errno(j, LOG_WARNING, r, "cannot keep what run %" PRIu64 " ran on its layout at its end "
                              "(%m): %s", j->run_id, commands);
}

const WorkerCallbacks job_worker_callbacks = {
        .phase = on_worker_phase,
        .record = on_worker_record,
        .finished = on_worker_finished,
        .fs_info = on_worker_fs_info,
        .fs_released = on_worker_fs_released,
};
