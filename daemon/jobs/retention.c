/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The history's retention (retention.h): a queue of prunes and one idle-priority defer source that
 * does one bounded step of the first of them per event loop iteration, pruning first and then
 * vacuuming. The daily timer only queues a prune like any other (unless the last one it queued
 * still waits), so a PruneSamples call and the schedule never run at the same time.
 */

#include <errno.h>
#include <inttypes.h>
#include <ini.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobs/retention.h"
#include "shared/log.h"
#include "shared/util.h"

#define RETENTION_INTERVAL_USEC (24ULL * 3600ULL * USEC_PER_SEC)
#define DAY_USEC (86400ULL * USEC_PER_SEC)

typedef struct Request {
        DbPrune prune;
        bool scheduled;         /* queued by SampleRetentionDays=, not by a caller */
        bool vacuuming;         /* the prune is done, its space being given back */
        RetentionDone done;
        void *userdata;
} Request;

struct Retention {
        sd_event *event;
        Db *db;
        unsigned days;
        Request requests[RETENTION_REQUESTS_MAX + 1];   /* one more for the scheduled prune */
        size_t n_requests;
        sd_event_source *step_source;
        sd_event_source *timer_source;
};

/* One step per dispatch, pending anew after each, so that the sources of the same priority take
 * turns with it (a defer source left on would stay first in line). */
static int retention_arm(Retention *r) {
        return sd_event_source_set_enabled(r->step_source, r->n_requests > 0 ? SD_EVENT_ONESHOT : SD_EVENT_OFF);
}

static void retention_finish(Retention *r, int error) {
        Request q = r->requests[0];

        memmove(r->requests, r->requests + 1, (r->n_requests - 1) * sizeof(Request));
        r->n_requests--;

        if (q.scheduled && error != -ECANCELED) {
                if (error < 0)
                        log_warning_errno(error, "SampleRetentionDays=%u: removing old samples failed after %" PRIu64
                                          " samples of %" PRIu64 " runs: %m (%s); trying again in 24 hours", r->days,
                                          q.prune.samples, q.prune.runs, db_last_error(r->db));
                else if (q.prune.samples > 0)
                        log_full(LOG_INFO, "SampleRetentionDays=%u: removed %" PRIu64 " samples of %" PRIu64
                                 " runs older than %u days (their summaries and histograms stay)", r->days,
                                 q.prune.samples, q.prune.runs, r->days);
        }
        if (q.done)
                q.done(error, &q.prune, q.userdata);
}

static void retention_step(Retention *r) {
        Request *q = &r->requests[0];
        int k;

        if (!q->vacuuming) {
                k = db_prune_step(r->db, &q->prune, RETENTION_STEP_SAMPLES);
                if (k < 0)
                        retention_finish(r, k);
                else if (k == 0)
                        q->vacuuming = true;
                return;
        }

        k = db_vacuum_step(r->db, RETENTION_STEP_PAGES);
        if (k > 0)
                return;
        if (k < 0)
                /* The samples are gone; their pages are reused by new ones instead of given back. */
                log_full_errno(LOG_NOTICE, k, "giving the space of pruned samples back to the filesystem failed: "
                               "%m (%s); SQLite reuses it for new samples", db_last_error(r->db));
        retention_finish(r, 0);
}

static int on_step(sd_event_source *s, void *userdata) {
        Retention *r = userdata;

        if (r->n_requests > 0)
                retention_step(r);
        return retention_arm(r);
}

static int retention_queue(Retention *r, uint64_t before_usec, bool scheduled, RetentionDone done,
                           void *userdata) {
        size_t callers = 0;
        int k;

        for (size_t i = 0; i < r->n_requests; i++)
                if (!r->requests[i].scheduled)
                        callers++;
        if (scheduled ? r->n_requests >= ELEMENTSOF(r->requests) : callers >= RETENTION_REQUESTS_MAX)
                return -EBUSY;

        r->requests[r->n_requests++] = (Request) {
                .prune = { .before_usec = before_usec },
                .scheduled = scheduled,
                .done = done,
                .userdata = userdata,
        };
        if (r->n_requests > 1)
                return 0; /* armed already */
        k = retention_arm(r);
        if (k < 0)
                r->n_requests--;
        return k;
}

static void retention_schedule_now(Retention *r) {
        uint64_t now = now_usec(CLOCK_REALTIME), age = (uint64_t) r->days * DAY_USEC;
        int k;

        for (size_t i = 0; i < r->n_requests; i++)
                if (r->requests[i].scheduled)
                        return; /* yesterday's is still at work */
        if (now <= age)
                return;
        k = retention_queue(r, now - age, true, NULL, NULL);
        if (k < 0)
                log_warning_errno(k, "SampleRetentionDays=%u: cannot queue the removal of old samples: %m", r->days);
}

static int on_timer(sd_event_source *s, uint64_t usec, void *userdata) {
        Retention *r = userdata;

        retention_schedule_now(r);
        (void) sd_event_source_set_time_relative(s, RETENTION_INTERVAL_USEC);
        return sd_event_source_set_enabled(s, SD_EVENT_ON);
}

int retention_new(sd_event *event, Db *db, unsigned days, Retention **ret) {
        _cleanup_(retention_freep) Retention *r = NULL;
        int k;

        if (!event || !db || !ret || days > RETENTION_DAYS_MAX)
                return -EINVAL;
        r = calloc(1, sizeof(Retention));
        if (!r)
                return -ENOMEM;
        r->event = sd_event_ref(event);
        r->db = db;
        r->days = days;

        k = sd_event_add_defer(event, &r->step_source, on_step, r);
        if (k < 0)
                return k;
        /* Below everything else: bus calls and samples first, one step when nothing else waits. */
        k = sd_event_source_set_priority(r->step_source, SD_EVENT_PRIORITY_IDLE);
        if (k >= 0)
                k = sd_event_source_set_enabled(r->step_source, SD_EVENT_OFF);
        if (k < 0)
                return k;

        if (days > 0) {
                k = sd_event_add_time_relative(event, &r->timer_source, CLOCK_BOOTTIME, RETENTION_INTERVAL_USEC,
                                               USEC_PER_SEC * 60, on_timer, r);
                if (k < 0)
                        return k;
                retention_schedule_now(r);
        }

        *ret = TAKE_PTR(r);
        return 0;
}

Retention *retention_free(Retention *r) {
        if (!r)
                return NULL;
        while (r->n_requests > 0)
                retention_finish(r, -ECANCELED);
        sd_event_source_disable_unref(r->step_source);
        sd_event_source_disable_unref(r->timer_source);
        sd_event_unref(r->event);
        free(r);
        return NULL;
}

int retention_prune(Retention *r, uint64_t before_usec, RetentionDone done, void *userdata) {
        if (!r)
                return -EINVAL;
        return retention_queue(r, before_usec, false, done, userdata);
}

/* ---- benchd.conf ---- */

typedef struct ConfState {
        unsigned days;
        char *error;
} ConfState;

static int conf_handler(void *user, const char *section, const char *name, const char *value) {
        ConfState *c = user;
        char *end;
        unsigned long v;

        if (!streq(name, "SampleRetentionDays"))
                return 1;
        errno = 0;
        v = strtoul(value, &end, 10);
        if (!value[0]) {        /* an empty assignment resets to the default */
                c->days = 0;
                return 1;
        }
        if (errno != 0 || *end || value[0] == '-' || v > RETENTION_DAYS_MAX) {
                free(c->error);
                if (asprintf(&c->error, "SampleRetentionDays=%s is not a number of days from 0 (keep samples for "
                             "ever) to %u, e.g. SampleRetentionDays=365", value, RETENTION_DAYS_MAX) < 0)
                        c->error = NULL;
                return 1;
        }
        c->days = (unsigned) v;
        return 1;
}

int retention_conf_parse(const char *path, unsigned *ret_days, char **ret_error) {
        ConfState c = {};
        int k;

        if (!path || !ret_days)
                return -EINVAL;
        k = ini_parse(path, conf_handler, &c);
        if (k == -1) {          /* no file: the default */
                *ret_days = 0;
                return 0;
        }
        if (c.error) {
                if (ret_error)
                        *ret_error = c.error;
                else
                        free(c.error);
                return -EINVAL;
        }
        *ret_days = c.days;
        return 0;
}
