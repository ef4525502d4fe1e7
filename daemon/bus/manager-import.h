/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Private to the Manager's files (manager*.c): the ImportRuns handler (benchctl import), which
 * manager.c's vtable lists. userdata is the Manager.
 */
#pragma once

#include <systemd/sd-bus.h>

/* At most this many ImportRuns calls wait for polkit at once. */
#define IMPORT_WAITING_MAX 8u

typedef struct Manager Manager;
typedef struct ImportCall ImportCall;

/* What manager-import.c keeps in the Manager (manager_import_state()): the ImportRuns calls waiting
 * for polkit. */
typedef struct ImportState {
        ImportCall *imports;
        unsigned n_imports;
} ImportState;

/* Authorised like SubmitJob: root at once, anyone else when polkit allows org.benchd.benchd1.submit
 * (asked without waiting; the call is answered when polkit answers). */
int method_import_runs(sd_bus_message *message, void *userdata, sd_bus_error *error);
/* Shutdown: every call still waiting for polkit is answered, and its question dropped. */
void manager_imports_abort(Manager *m);
