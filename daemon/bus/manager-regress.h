/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Private to the Manager's files (manager*.c): the regression check after each succeeded run (its
 * flags logged and announced with the Manager's RegressionDetected signal) and the
 * ListRegressions handler, which manager.c's vtable lists. userdata is the Manager.
 */
#pragma once

#include <stdint.h>
#include <systemd/sd-bus.h>

typedef struct Manager Manager;

/* The run's end is stored: checks it (store/db-regress.c), logs what it flags and emits
 * RegressionDetected for each. A failure is logged, never fatal: the run stays as it is. */
void manager_check_run(Manager *m, uint64_t run_id);

int method_list_regressions(sd_bus_message *message, void *userdata, sd_bus_error *error);
