/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Private to manager.c, manager-autorun.c and benchd.c's wiring: benchmarks when a disk appears
 * (docs/service.md "Benchmarks when a disk appears"). The device inventory tells the Manager of every
 * whole disk whose udev rule sets BENCHD_AUTORUN=PROFILE, before it records the sighting; the
 * rules of jobs/autorun.h decide, the autoruns table remembers, and the job goes through the
 * same submission as SubmitJob's (manager_submit_internal()), triggered by "udev".
 */
#pragma once

#include "bus/manager.h"
#include "devices/device-manager.h"

/* DeviceCallbacks.appeared, userdata the Manager. Decides at once whether the disk is one to
 * benchmark and records that (so that the sighting's update of the devices table cannot hide
 * it); the job is built and submitted later, from the event loop. */
void manager_autorun_appeared(const DeviceAppearance *a, void *userdata);

/* manager_new() and manager_free(): the defer source, and the requests not submitted yet. */
int manager_autorun_init(Manager *m);
void manager_autorun_clear(Manager *m);

/* The most disks waiting to be submitted at once; more are recorded as waiting and tried again
 * when they next appear or change. */
#define MANAGER_AUTORUNS_MAX 64u

typedef struct AutorunRequest AutorunRequest;

/* What manager-autorun.c keeps in the Manager (manager_autorun_state()): the disks that appeared new,
 * waiting to be submitted (from a defer source, so that none is submitted before the queue of a
 * previous life is loaded) or being checked. */
typedef struct AutorunState {
        AutorunRequest *autoruns;
        unsigned n_autoruns;
        sd_event_source *autorun_source;
} AutorunState;
