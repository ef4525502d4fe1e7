/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Benchmarks when a disk appears (manager-autorun.h). Two halves, because the device inventory
 * records every sighting at once and the Manager must not submit before its queue is loaded:
 *
 *   manager_autorun_appeared(), called by the inventory before it records the sighting: looks up
 *   the autoruns row of (identity, firmware) (autorun_key(): a disk without WWN or serial by its model
 *   and name, not its size), lets autorun_eligibility() decide, and for a disk
 *   to benchmark records the row as waiting, then queues a request and wakes the defer source.
 *   From then on the row, not the devices table, says the disk is still to be benchmarked, so a
 *   rule fixed later (an unknown profile) still gets its one job.
 *
 *   on_autorun_dispatch(), from the event loop: loads the profile, lets autorun_plan() pick the
 *   steps (read-only unless the disk is scratch), and submits through manager_submit_internal(),
 *   whose job insert marks the row queued in the same transaction. A refusal leaves the row
 *   waiting with its reason, to be tried again when the disk next appears or changes.
 *
 * At most one request per identity is pending or being checked at a time, and at most
 * MANAGER_AUTORUNS_MAX in all: every resource a disk event can make benchd hold is bounded.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bus/manager-autorun.h"
#include "bus/manager.h"
#include "bus/manager-internal.h"
#include "jobs/autorun.h"
#include "jobs/profile.h"
#include "shared/log.h"
#include "shared/strv.h"

struct AutorunRequest {
        Manager *manager;
        AutorunRequest *prev, *next;    /* in manager->autoruns */
        int64_t autorun_id;             /* autoruns.id, waiting */
        char *name, *node, *identity, *firmware, *profile;
        char *why;                      /* "new identity", "new firmware (was X)", ... */
        bool scratch;
        bool first;                     /* its first sighting by this benchd */
        bool submitting;                /* its job's targets are being checked */
        char *steps_text;               /* the steps submitted, for the log */
};

static AutorunRequest *autorun_request_free(AutorunRequest *q) {
        if (!q)
                return NULL;
        if (q->manager) {
                if (q->prev)
                        q->prev->next = q->next;
                else
                        manager_autorun_state(q->manager)->autoruns = q->next;
                if (q->next)
                        q->next->prev = q->prev;
                manager_autorun_state(q->manager)->n_autoruns--;
        }
        free(q->name);
        free(q->node);
        free(q->identity);
        free(q->firmware);
        free(q->profile);
        free(q->why);
        free(q->steps_text);
        free(q);
        return NULL;
}

/* "sdb (identity serial:X, firmware 1.0)": how every message names the disk. */
#define DISK_FMT "%s (identity %s, firmware %s)"
#define DISK_ARGS(name, identity, firmware) (name), (identity), (firmware) ?: "none reported"

/* Why a waiting row has no job, kept in autoruns.reason for sqlite3 readers: 1 when that is news
 * (another reason than the row had), 0 when not, negative (logged) when it cannot be recorded. */
static int autorun_id_set_reason(Manager *m, int64_t id, const char *reason) {
        int r = db_autorun_set_reason(manager_db(m), id, reason);
        if (r < 0)
                log_warning_errno(r, "autorun %" PRIi64 ": cannot record why it waits: %m (%s)", id,
                                  db_last_error(manager_db(m)));
        return r;
}

/* The same for a request. Returns the level to log it at: level when it is news (or the disk's
 * first sighting by this benchd), else LOG_DEBUG, so that a rule that names an unknown profile is
 * not reported again at every change event of its disk. */
static int autorun_set_reason(Manager *m, const AutorunRequest *q, const char *reason, int level) {
        return autorun_id_set_reason(m, q->autorun_id, reason) != 0 || q->first ? level : LOG_DEBUG;
}

static AutorunRequest *autorun_find(Manager *m, const char *identity) {
        for (AutorunRequest *q = manager_autorun_state(m)->autoruns; q; q = q->next)
                if (streq(q->identity, identity))
                        return q;
        return NULL;
}

/* The sighting as the autoruns table keys it (autorun_key()): a device without WWN or serial by
 * its model and name, and known when the devices table had it so under any size. 1 with *ret
 * (its strings in *ret_key and *ret_firmware, or seen's), 0 when it is not to be acted on
 * (logged), -ENOMEM. */
static int autorun_sighting(Manager *m, const DeviceAppearance *seen, DeviceAppearance *ret, char **ret_key,
                            char **ret_firmware) {
        int r;

        *ret = *seen;
        r = autorun_key(seen->identity, seen->stable, seen->model, seen->name, ret_key);
        if (r == -ENOMEM)
                return r;
        if (r < 0) {
                log_warning("%s: BENCHD_AUTORUN=%s is not acted on: the disk has no identity to keep it by",
                            strna(seen->name), seen->autorun);
                return 0;
        }
        ret->identity = *ret_key;
        if (seen->stable)
                return 1;
        r = db_device_find_model(manager_db(m), seen->model, seen->name, ret_firmware);
        if (r < 0) {
                log_warning_errno(r, DISK_FMT ": cannot tell whether the database knows it (%m: %s); "
                                  "BENCHD_AUTORUN=%s is not acted on this time",
                                  DISK_ARGS(seen->name, *ret_key, seen->firmware), db_last_error(manager_db(m)),
                                  seen->autorun);
                return 0;
        }
        ret->known = r > 0;
        ret->known_firmware = r > 0 ? *ret_firmware : NULL;
        return 1;
}

void manager_autorun_appeared(const DeviceAppearance *seen, void *userdata) {
        Manager *m = userdata;
        /* A disk's first sighting in this life says more than the change events that follow it
         * (a write to the disk closes it, and udev's watch makes a change event of that). */
        int level = seen->first ? LOG_INFO : LOG_DEBUG;
        _cleanup_free_ char *why = NULL, *key = NULL, *known_firmware = NULL;
        const DeviceAppearance *a;
        DeviceAppearance keyed;
        AutorunEligibility e;
        DbAutorunState state;
        AutorunRequest *q;
        uint64_t job = 0;
        int64_t id = 0;
        int r;

        r = autorun_sighting(m, seen, &keyed, &key, &known_firmware);
        if (r == -ENOMEM)
                log_warning("%s: out of memory; its autorun is tried again when it next appears", strna(seen->name));
        if (r <= 0)
                return;
        a = &keyed;
        if (!manager_autorun_enabled(m)) {
                log_full(level, DISK_FMT ": BENCHD_AUTORUN=%s is not acted on: AutoRun=no in benchd.conf",
                         DISK_ARGS(a->name, a->identity, a->firmware), a->autorun);
                return;
        }
        if (manager_is_stopping(m))
                return;
        r = db_autorun_get(manager_db(m), a->identity, a->firmware, &state, &id, &job);
        if (r < 0) {
                log_warning_errno(r, DISK_FMT ": cannot read the autoruns table (%m: %s); BENCHD_AUTORUN=%s is "
                                  "not acted on this time", DISK_ARGS(a->name, a->identity, a->firmware),
                                  db_last_error(manager_db(m)), a->autorun);
                return;
        }
        e = autorun_eligibility(&(AutorunFacts) {
                        .known = a->known,
                        .known_firmware = a->known_firmware,
                        .firmware = a->firmware,
                        .record = state,
                });
        if (e == AUTORUN_ALREADY_QUEUED) {
                log_full(level, DISK_FMT ": BENCHD_AUTORUN=%s: already benchmarked when it appeared with this firmware "
                         "(job %" PRIu64 "); autorun queues one job per identity and firmware",
                         DISK_ARGS(a->name, a->identity, a->firmware), a->autorun, job);
                return;
        }
        if (e == AUTORUN_KNOWN) {
                log_full(level, DISK_FMT ": BENCHD_AUTORUN=%s: not benchmarked, the database knew it with this firmware "
                         "already; autorun queues a job only when a new identity or firmware appears",
                         DISK_ARGS(a->name, a->identity, a->firmware), a->autorun);
                return;
        }

        q = autorun_find(m, a->identity);
        if (q && streq_ptr(q->firmware, a->firmware)) {
                log_debug(DISK_FMT ": its autorun is under way already", DISK_ARGS(a->name, a->identity, a->firmware));
                return;
        }

        /* The mark first: from here on the sighting may update the devices table. */
        r = db_autorun_add(manager_db(m), a->identity, a->firmware, a->autorun, a->name, now_usec(CLOCK_REALTIME), &id);
        if (r < 0) {
                log_warning_errno(r, DISK_FMT " appeared (%s) with BENCHD_AUTORUN=%s, but cannot be recorded in "
                                  "the autoruns table (%m: %s); nothing is queued, and it will not be benchmarked as "
                                  "new when it appears again", DISK_ARGS(a->name, a->identity, a->firmware),
                                  autorun_eligibility_to_string(e), a->autorun, db_last_error(manager_db(m)));
                return;
        }
        if (q) {
                /* Another firmware of the same disk is still being handled: this one waits. */
                log_info(DISK_FMT " appeared while its autorun for firmware %s is under way; recorded, tried again "
                         "when it next appears or changes", DISK_ARGS(a->name, a->identity, a->firmware),
                         q->firmware ?: "none reported");
                (void) autorun_id_set_reason(m, id, "appeared while another autorun of the disk was under way");
                return;
        }
        if (manager_autorun_state(m)->n_autoruns >= MANAGER_AUTORUNS_MAX) {
                log_warning(DISK_FMT " appeared (%s), but %u disks wait for their autorun already; recorded, tried "
                            "again when it next appears or changes (udevadm trigger --action=change %s)",
                            DISK_ARGS(a->name, a->identity, a->firmware), autorun_eligibility_to_string(e),
                            MANAGER_AUTORUNS_MAX, a->node);
                (void) autorun_id_set_reason(m, id, "too many disks waited for their autorun");
                return;
        }

        if (e == AUTORUN_NEW_FIRMWARE)
                r = asprintf(&why, "new firmware, was %s", a->known_firmware);
        else
                r = asprintf(&why, "%s", autorun_eligibility_to_string(e));
        if (r < 0)
                why = NULL;
        q = r < 0 ? NULL : calloc(1, sizeof(*q));
        if (!q || !(q->name = strdup(a->name)) || !(q->node = strdup(a->node)) ||
            !(q->identity = strdup(a->identity)) || (a->firmware && !(q->firmware = strdup(a->firmware))) ||
            !(q->profile = strdup(a->autorun))) {
                autorun_request_free(q);
                log_warning(DISK_FMT ": out of memory; its autorun is tried again when it next appears",
                            DISK_ARGS(a->name, a->identity, a->firmware));
                return;
        }
        q->why = TAKE_PTR(why);
        q->autorun_id = id;
        q->scratch = a->scratch;
        q->first = a->first;
        q->manager = m;
        q->next = manager_autorun_state(m)->autoruns;
        if (manager_autorun_state(m)->autoruns)
                manager_autorun_state(m)->autoruns->prev = q;
        manager_autorun_state(m)->autoruns = q;
        manager_autorun_state(m)->n_autoruns++;
        log_debug(DISK_FMT " appeared (%s): autorun %" PRIi64 " of profile %s recorded",
                  DISK_ARGS(q->name, q->identity, q->firmware), q->why, id, q->profile);
        (void) sd_event_source_set_enabled(manager_autorun_state(m)->autorun_source, SD_EVENT_ONESHOT);
}

static void on_autorun_submitted(Manager *m, int r, uint64_t id, const char *message, void *userdata) {
        AutorunRequest *q = userdata;

        if (r >= 0)
                log_info(DISK_FMT " appeared (%s): queued profile %s as job %" PRIu64 " (triggered by udev)%s%s",
                         DISK_ARGS(q->name, q->identity, q->firmware), q->why, q->profile, id,
                         q->steps_text ? "; " : "", q->steps_text ?: "");
        else if (r == -ECANCELED)
                log_info(DISK_FMT ": benchd stops before its autorun was queued; it is tried again when the disk "
                         "next appears", DISK_ARGS(q->name, q->identity, q->firmware));
        else {
                _cleanup_free_ char *reason = NULL;
                int level = LOG_WARNING;

                if (asprintf(&reason, "not queued: %s", message ?: strerror(-r)) < 0)
                        reason = NULL;
                else
                        level = autorun_set_reason(m, q, reason, level);
                log_full(level, DISK_FMT " appeared (%s), but profile %s was not queued: %s; it is tried again when "
                         "the disk next appears or changes (udevadm trigger --action=change %s)",
                         DISK_ARGS(q->name, q->identity, q->firmware), q->why, q->profile,
                         message ?: strerror(-r), q->node);
        }
        autorun_request_free(q);
}

/* "the steps that only read: read, randread (not write: the disk is not scratch)", or NULL when
 * every step runs. */
static int autorun_steps_text(const JobSpec *steps, size_t n, const bool *keep, char **ret) {
        _cleanup_free_ char *text = NULL;
        size_t len = 0;
        FILE *f;
        bool first = true;

        f = open_memstream(&text, &len);
        if (!f)
                return -ENOMEM;
        fputs("only the steps that read: ", f);
        for (size_t i = 0; i < n; i++)
                if (keep[i]) {
                        fprintf(f, "%s%s", first ? "" : ", ", strna(workload_to_string(steps[i].workload)));
                        first = false;
                }
        fputs(" (not ", f);
        first = true;
        for (size_t i = 0; i < n; i++)
                if (!keep[i]) {
                        fprintf(f, "%s%s", first ? "" : ", ", strna(workload_to_string(steps[i].workload)));
                        first = false;
                }
        fputs(": the disk is not marked scratch)", f);
        if (fclose(f) != 0)
                return -ENOMEM;
        *ret = TAKE_PTR(text);
        return 0;
}

/* The request's job: its spec (profile, target, label and tag autorun; destructive when a scratch
 * disk's profile writes) and the steps that run. 1 with them, 0 when nothing is to run (logged,
 * reason recorded), or -errno. */
static int autorun_build(Manager *m, AutorunRequest *q, JobSpec *ret_spec, JobSpec **ret_steps, size_t *ret_n) {
        _cleanup_(profile_freep) Profile *p = NULL;
        _cleanup_free_ char *err = NULL, *reason = NULL;
        _cleanup_free_ Workload *workloads = NULL;
        _cleanup_free_ bool *keep = NULL;
        JobSpec *steps = NULL;
        size_t n = 0, k = 0;
        AutorunPlan plan = AUTORUN_PLAN_NOTHING;
        bool writes = false;
        int r;

        r = profile_load(manager_profile_dirs(m), q->profile, &p, &err);
        if (r == -ENOMEM)
                return r;
        if (r < 0) {
                log_full(autorun_set_reason(m, q, err, LOG_ERR),
                         DISK_FMT " appeared (%s) with BENCHD_AUTORUN=%s: %s; nothing is queued. Name one of them "
                         "in its udev rule (ENV{BENCHD_AUTORUN}=\"quick\"), then udevadm control --reload && "
                         "udevadm trigger --action=change %s", DISK_ARGS(q->name, q->identity, q->firmware), q->why,
                         q->profile, strna(err), q->node);
                return 0;
        }

        spec_init(ret_spec);
        r = spec_set_from_string(ret_spec, "target", q->node, &err);
        if (r >= 0)
                r = spec_set_from_string(ret_spec, "profile", q->profile, &err);
        if (r >= 0)
                r = spec_set_from_string(ret_spec, "label", "autorun", &err);
        if (r >= 0)
                r = spec_set_from_string(ret_spec, "tags", "autorun", &err);
        for (int pass = 0; r >= 0 && pass < 2; pass++) {
                /* A second pass when a scratch disk's profile writes: the steps again, destructive. */
                r = spec_finalize(ret_spec, &err);
                if (r >= 0)
                        r = profile_expand(p, ret_spec, &steps, &n, &err);
                if (r < 0)
                        break;
                free(workloads);
                free(keep);
                workloads = calloc(n, sizeof(Workload));
                keep = calloc(n, sizeof(bool));
                if (!workloads || !keep) {
                        r = -ENOMEM;
                        break;
                }
                for (size_t i = 0; i < n; i++)
                        workloads[i] = steps[i].workload;
                plan = autorun_plan(workloads, n, q->scratch, keep, &writes);
                if (plan != AUTORUN_PLAN_AS_IS || !writes || ret_spec->destructive)
                        break;
                spec_array_free(steps, n);
                steps = NULL;
                n = 0;
                r = spec_set_from_string(ret_spec, "destructive", "true", &err);
        }
        if (r < 0) {
                spec_array_free(steps, n);
                spec_clear(ret_spec);
                if (r == -ENOMEM)
                        return r;
                log_full(autorun_set_reason(m, q, err, LOG_ERR),
                         DISK_FMT " appeared (%s) with BENCHD_AUTORUN=%s, but the profile cannot make a job for it: "
                         "%s; nothing is queued", DISK_ARGS(q->name, q->identity, q->firmware), q->why, q->profile,
                         strna(err));
                return 0;
        }

        if (plan == AUTORUN_PLAN_NOTHING) {
                int level = LOG_WARNING;

                if (asprintf(&reason, "profile %s only writes and the disk is not marked scratch", q->profile) < 0)
                        reason = NULL;
                else
                        level = autorun_set_reason(m, q, reason, level);
                log_full(level, DISK_FMT " appeared (%s) with BENCHD_AUTORUN=%s, but every step of profile %s writes "
                         "and the disk is not marked scratch, so nothing is queued: autorun only reads from disks that "
                         "may hold data. Mark it scratch (ENV{BENCHD_SCRATCH}=\"1\" in its udev rule, or "
                         "ScratchDevices= in benchd.conf) to let the profile write to it, or name a profile with "
                         "read steps (ping, quick)", DISK_ARGS(q->name, q->identity, q->firmware), q->why,
                         q->profile, q->profile);
                spec_array_free(steps, n);
                spec_clear(ret_spec);
                return 0;
        }
        if (plan == AUTORUN_PLAN_READ_ONLY) {
                r = autorun_steps_text(steps, n, keep, &q->steps_text);
                if (r < 0) {
                        spec_array_free(steps, n);
                        spec_clear(ret_spec);
                        return r;
                }
                /* The kept steps to the front, in order; the others freed. */
                for (size_t i = 0; i < n; i++) {
                        if (!keep[i]) {
                                spec_clear(&steps[i]);
                                continue;
                        }
                        if (k != i) {
                                steps[k] = steps[i];
                                spec_init(&steps[i]);
                        }
                        k++;
                }
                n = k;
        } else if (writes)
                q->steps_text = strdup("every step, writes included: the disk is marked scratch");

        *ret_steps = steps;
        *ret_n = n;
        return 1;
}

static int on_autorun_dispatch(sd_event_source *s, void *userdata) {
        Manager *m = userdata;

        for (AutorunRequest *q = manager_autorun_state(m)->autoruns, *next; q; q = next) {
                _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
                JobSpec spec, *steps = NULL;
                size_t n = 0;
                int r;

                next = q->next;
                if (q->submitting)
                        continue;
                if (manager_is_stopping(m)) {
                        autorun_request_free(q);
                        continue;
                }
                r = autorun_build(m, q, &spec, &steps, &n);
                if (r <= 0) {
                        if (r < 0)
                                log_warning_errno(r, DISK_FMT ": cannot make its autorun job: %m; tried again "
                                                  "when it next appears", DISK_ARGS(q->name, q->identity, q->firmware));
                        autorun_request_free(q);
                        continue;
                }
                r = manager_submit_internal(m, &spec, steps, n, JOB_TRIGGER_UDEV, q->autorun_id, on_autorun_submitted,
                                            q, &error);
                if (r < 0) {
                        on_autorun_submitted(m, r, 0, sd_bus_error_is_set(&error) ? error.message : NULL, q);
                        continue;
                }
                q->submitting = true;
        }
        return 0;
}

int manager_autorun_init(Manager *m) {
        int r;

        r = sd_event_add_defer(manager_event(m), &manager_autorun_state(m)->autorun_source, on_autorun_dispatch, m);
        if (r < 0)
                return r;
        return sd_event_source_set_enabled(manager_autorun_state(m)->autorun_source, SD_EVENT_OFF);
}

void manager_autorun_clear(Manager *m) {
        while (manager_autorun_state(m)->autoruns)
                autorun_request_free(manager_autorun_state(m)->autoruns);
        manager_autorun_state(m)->autorun_source = sd_event_source_disable_unref(manager_autorun_state(m)->autorun_source);
}
