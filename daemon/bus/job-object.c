/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The Job object (job-object.h). Properties read the Job's fields; the ones that never change are
 * SD_BUS_PROPERTY_CONST, the rest emit PropertiesChanged when the job says they changed
 * (JobCallbacks.changed, wired by the Manager to job_object_changed()).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bus/bus-util.h"
#include "bus/job-object.h"
#include "jobs/job-fleet.h"
#include "jobs/queue.h"
#include "shared/strv.h"

static const char *const job_interfaces[] = { BENCHD_JOB_INTERFACE, NULL };

void job_object_added(sd_bus *bus, Job *j) {
        (void) sd_bus_emit_interfaces_added_strv(bus, j->path, (char **) job_interfaces);
}

void job_object_removed(sd_bus *bus, Job *j) {
        (void) sd_bus_emit_interfaces_removed_strv(bus, j->path, (char **) job_interfaces);
}

void job_object_changed(sd_bus *bus, Job *j, const char *const *properties) {
        (void) sd_bus_emit_properties_changed_strv(bus, j->path, BENCHD_JOB_INTERFACE, (char **) properties);
}

int job_error_not_cancellable(sd_bus_error *error, uint64_t id, const char *state) {
        _cleanup_free_ char *text = NULL;

        /* The queue core's words, which it says itself when polkit was asked first. */
        if (queue_not_cancellable_text(id, state, &text) < 0)
                return -ENOMEM;
        return sd_bus_error_set(error, BENCHD_ERROR_NOT_CANCELLABLE, text);
}

int job_cancel_or_error(Job *j, uint32_t uid, sd_bus_error *error) {
        int r = job_cancel(j, uid);

        if (r == -EBUSY && job_core_after_store(&j->core) == JOB_AFTER_STORE_END) {
                char state[64];

                snprintf(state, sizeof(state), "%s, which waits to be stored in the database",
                         job_state_to_string(j->core.end_state));
                return job_error_not_cancellable(error, j->id, state);
        }
        if (r == -EBUSY)
                return job_error_not_cancellable(error, j->id, job_state_to_string(job_get_state(j)));
        if (r < 0 && r != -ENOMEM)
                return sd_bus_error_setf(error, r == -ENOSPC ? BENCHD_ERROR_NO_SPACE : SD_BUS_ERROR_FAILED,
                                         "cannot record the cancellation of job %" PRIu64 " in the database "
                                         "(%s: %s); the job is still queued: cancel it again once the "
                                         "database can be written", j->id,
                                         r == -EAGAIN ? "locked by another process" : strerror(-r),
                                         db_last_error(j->ctx->db));
        return r;
}

static int property_get_state(sd_bus *bus, const char *path, const char *interface,
                              const char *property, sd_bus_message *reply, void *userdata,
                              sd_bus_error *error) {
        Job *j = userdata;
        return sd_bus_message_append(reply, "s", job_state_to_string(job_get_state(j)));
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

static int property_get_entry(sd_bus *bus, const char *path, const char *interface, const char *property,
                              sd_bus_message *reply, void *userdata, sd_bus_error *error) {
        _cleanup_free_ char *place = job_entry_place(userdata);

        return sd_bus_message_append(reply, "s", place ?: "");
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

static int property_get_triggered_by(sd_bus *bus, const char *path, const char *interface,
                                     const char *property, sd_bus_message *reply, void *userdata,
                                     sd_bus_error *error) {
        Job *j = userdata;
        return sd_bus_message_append(reply, "s", job_trigger_to_string(j->trigger) ?: "");
}

static int property_get_steps(sd_bus *bus, const char *path, const char *interface,
                              const char *property, sd_bus_message *reply, void *userdata,
                              sd_bus_error *error) {
        Job *j = userdata;
        return sd_bus_message_append(reply, "u", (uint32_t) j->n_steps);
}

static int property_get_repeats(sd_bus *bus, const char *path, const char *interface,
                                const char *property, sd_bus_message *reply, void *userdata,
                                sd_bus_error *error) {
        return sd_bus_message_append(reply, "u", job_planned_repeats(userdata));
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
static int method_start(sd_bus_message *message, void *userdata, sd_bus_error *error);

static const sd_bus_vtable job_vtable[] = {
        SD_BUS_VTABLE_START(0),
        SD_BUS_METHOD_WITH_ARGS("Cancel", SD_BUS_NO_ARGS, SD_BUS_NO_RESULT, method_cancel,
                                SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("Start",
                                SD_BUS_ARGS("t", start_usec, "x", clock_offset_us, "t", rtt_us, "b", corrected),
                                SD_BUS_NO_RESULT, method_start, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_PROPERTY("Id", "t", NULL, offsetof(Job, id), SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("State", "s", property_get_state, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("Profile", "s", property_get_profile, 0, SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("Workload", "s", property_get_workload, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("Entry", "s", property_get_entry, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("Target", "s", property_get_target, 0, SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("Label", "s", property_get_label, 0, SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("Spec", "s", property_get_string, offsetof(Job, spec_json),
                        SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("SubmittedBy", "u", NULL, offsetof(Job, submitted_by),
                        SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("SubmittedUSec", "t", NULL, offsetof(Job, submitted_usec),
                        SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("TriggeredBy", "s", property_get_triggered_by, 0, SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("StartedUSec", "t", NULL, offsetof(Job, started_usec),
                        SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("FinishedUSec", "t", NULL, offsetof(Job, finished_usec),
                        SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("Progress", "d", NULL, offsetof(Job, progress), SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("CurrentStep", "u", NULL, offsetof(Job, core.step),
                        SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("Steps", "u", property_get_steps, 0, SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("CurrentRepeat", "u", NULL, offsetof(Job, core.repeat),
                        SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("Repeats", "u", property_get_repeats, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
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
        _cleanup_free_ char *place = job_entry_place(j);
        const DbJob dj = {
                .id = j->id,
                .state = job_state_to_string(job_get_state(j)),
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
                .triggered_by = job_trigger_to_string(j->trigger),
        };
        int r;

        r = sd_bus_message_open_container(m, 'a', "{sv}");
        if (r < 0)
                return r;
        r = bus_message_append_db_job_entries(m, &dj);
        if (r < 0)
                return r;
        r = sd_bus_message_append(m, "{sv}{sv}{sv}{sv}{sv}{sv}{sv}",
                                  "Progress", "d", j->progress,
                                  "Entry", "s", place ?: "",
                                  "CurrentStep", "u", job_current_step(j),
                                  "Steps", "u", (uint32_t) j->n_steps,
                                  "CurrentRepeat", "u", job_current_repeat(j),
                                  "Repeats", "u", job_planned_repeats(j),
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

static int job_object_find(sd_bus *bus, const char *path, const char *interface, void *userdata,
                           void **found, sd_bus_error *error) {
        const JobObjectOwner *owner = userdata;
        uint64_t id;
        Job *j;

        if (bus_job_path_parse(path, &id) < 0)
                return 0;
        j = owner->find(owner->userdata, id);
        if (!j)
                return 0;
        *found = j;
        return 1;
}

static int job_node_enumerator(sd_bus *bus, const char *path, void *userdata, char ***nodes,
                               sd_bus_error *error) {
        const JobObjectOwner *owner = userdata;
        size_t n = 0, i = 0;
        char **l;

        for (Job *j = owner->first(owner->userdata); j; j = j->next)
                n++;
        l = calloc(n + 1, sizeof(char *));
        if (!l)
                return -ENOMEM;
        for (Job *j = owner->first(owner->userdata); j; j = j->next) {
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
        /* userdata is the job found; the owner is the userdata of the vtable's slot. */
        const JobObjectOwner *owner = sd_bus_slot_get_userdata(sd_bus_get_current_slot(sd_bus_message_get_bus(message)));
        Job *j = userdata;

        if (!owner)
                return -ESRCH;
        return owner->cancel(owner->userdata, message, j, error);
}

int job_objects_add(sd_bus *bus, const JobObjectOwner *owner, sd_bus_slot **ret_vtable_slot,
                    sd_bus_slot **ret_enumerator_slot) {
        int r;

        r = sd_bus_add_fallback_vtable(bus, ret_vtable_slot, BENCHD_JOB_PREFIX, BENCHD_JOB_INTERFACE, job_vtable,
                                       job_object_find, (void *) owner);
        if (r >= 0)
                r = sd_bus_add_node_enumerator(bus, ret_enumerator_slot, BENCHD_JOB_PREFIX, job_node_enumerator,
                                               (void *) owner);
        return r;
}

/* A fleet step's start (jobs/job-fleet.h): the submitter's or root's to give. */
static int method_start(sd_bus_message *message, void *userdata, sd_bus_error *error) {
        _cleanup_free_ char *err = NULL;
        Job *j = userdata;
        uint64_t start_usec, rtt_us;
        int64_t offset_us;
        uint32_t uid;
        int corrected, r;

        r = sd_bus_message_read(message, "txtb", &start_usec, &offset_us, &rtt_us, &corrected);
        if (r < 0)
                return r;
        r = bus_sender_uid(message, "starting fleet jobs", &uid, error);
        if (r < 0)
                return r;
        if (uid != 0 && uid != j->submitted_by)
                return sd_bus_error_setf(error, SD_BUS_ERROR_ACCESS_DENIED, "job %" PRIu64 " was submitted by uid "
                                         "%" PRIu32 "; only its submitter and root may start it", j->id,
                                         j->submitted_by);
        r = job_fleet_start(j, start_usec, offset_us, rtt_us, corrected, &err);
        if (r == -ENOMEM)
                return r;
        if (r < 0)
                return sd_bus_error_setf(error, r == -EBUSY ? BENCHD_ERROR_NOT_READY :
                                                r == -ERANGE ? BENCHD_ERROR_CLOCK_OFFSET :
                                                r == -EINVAL ? SD_BUS_ERROR_INVALID_ARGS : SD_BUS_ERROR_FAILED,
                                         "%s", err ?: strerror(-r));
        return sd_bus_reply_method_return(message, NULL);
}
