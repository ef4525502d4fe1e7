/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The history's retention: removing the samples of old runs (SampleRetentionDays= in benchd.conf,
 * at start-up and then daily, and the Manager's PruneSamples on request) on the event loop
 * without holding it. The work is the store's db_prune_step() and db_vacuum_step(), each one
 * bounded transaction, run from an idle-priority source one step per loop iteration, so bus
 * calls and a running job's samples are served between any two steps. Prunes wait in a short
 * queue and run one at a time, each followed by the incremental vacuum that gives its space back.
 */
#pragma once

#include <stdint.h>
#include <systemd/sd-event.h>

#include "store/db.h"

typedef struct Retention Retention;

/* One step: about 10 ms of deletes or of page moves on an ordinary disk (tests/bench/history). */
#define RETENTION_STEP_SAMPLES 5000u
#define RETENTION_STEP_PAGES 256u
/* Prunes asked for (PruneSamples) that may wait at once; more are refused with -EBUSY. */
#define RETENTION_REQUESTS_MAX 8u
#define RETENTION_DAYS_MAX 36500u

/* r: 0, or the -errno a prune step failed with (what was removed before stays removed, and is in
 * result). Called once, from the event loop, or with -ECANCELED from retention_free(). */
typedef void (*RetentionDone)(int r, const DbPrune *result, void *userdata);

/* days 0: nothing is removed unless asked. Otherwise the first prune starts as soon as the event
 * loop runs, and one more every 24 hours. */
int retention_new(sd_event *event, Db *db, unsigned days, Retention **ret);
Retention *retention_free(Retention *r);
DEFINE_TRIVIAL_CLEANUP_FUNC(Retention *, retention_free);

/* Queues a prune of the samples of the runs that started before before_usec. -EBUSY when
 * RETENTION_REQUESTS_MAX wait already. */
int retention_prune(Retention *r, uint64_t before_usec, RetentionDone done, void *userdata);

/* SampleRetentionDays= of benchd.conf (a missing file or key: 0). -EINVAL, with *ret_error saying
 * what is wrong, for a value that is not a number of days 0..RETENTION_DAYS_MAX. */
int retention_conf_parse(const char *path, unsigned *ret_days, char **ret_error);
