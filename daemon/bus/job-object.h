/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The D-Bus object of a job, /org/benchd/Benchd1/job/<id> (org.benchd.Benchd1.Job): its vtable and
 * property getters, method Cancel, the object lookup and node enumeration over the Manager's jobs,
 * PropertiesChanged and InterfacesAdded/Removed, the a{sv} of ListJobs, and the named errors a
 * cancel is answered with. The job itself (jobs/job.h) knows nothing of the bus: the Manager wires
 * its callbacks to the functions here.
 */
#pragma once

#include <stdint.h>
#include <systemd/sd-bus.h>

#include "jobs/job.h"

/* What the job objects need of their owner (the Manager), which registers them; the owner calls
 * the functions below, never the other way round. */
typedef struct JobObjectOwner {
        Job *(*find)(void *userdata, uint64_t id);
        Job *(*first)(void *userdata);  /* the jobs, in order: then j->next */
        /* Job.Cancel: answers message, now or later (then returns 1), as CancelJob does. */
        int (*cancel)(void *userdata, sd_bus_message *message, Job *j, sd_bus_error *error);
        void *userdata;
} JobObjectOwner;

/* Registers the objects of the owner's jobs under BENCHD_JOB_PREFIX: their vtable and the node
 * enumerator. owner must outlive the slots. */
int job_objects_add(sd_bus *bus, const JobObjectOwner *owner, sd_bus_slot **ret_vtable_slot,
                    sd_bus_slot **ret_enumerator_slot);

/* InterfacesAdded, InterfacesRemoved of the job's object. */
void job_object_added(sd_bus *bus, Job *j);
void job_object_removed(sd_bus *bus, Job *j);
/* PropertiesChanged of the properties named (NULL-terminated). */
void job_object_changed(sd_bus *bus, Job *j, const char *const *properties);

/* One a{sv} of the job's properties (ListJobs). */
int job_append_properties(Job *j, sd_bus_message *m);

/* The NotCancellable error of job id, which has ended in state: what Job.Cancel and
 * Manager.CancelJob reply for a job that ended, in memory or in the database only. */
int job_error_not_cancellable(sd_bus_error *error, uint64_t id, const char *state);
/* job_cancel() with -EBUSY as that error, and a refusing database as Failed or NoSpace. */
int job_cancel_or_error(Job *j, uint32_t uid, sd_bus_error *error);
