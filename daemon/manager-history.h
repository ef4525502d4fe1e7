/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Private to manager.c and manager-history.c: the handlers of the Manager's read-only methods
 * (profiles and history), which manager.c's vtable lists. userdata is the Manager.
 */
#pragma once

#include <systemd/sd-bus.h>

int method_list_profiles(sd_bus_message *message, void *userdata, sd_bus_error *error);
int method_get_profile(sd_bus_message *message, void *userdata, sd_bus_error *error);
int method_query_runs(sd_bus_message *message, void *userdata, sd_bus_error *error);
int method_get_run(sd_bus_message *message, void *userdata, sd_bus_error *error);
int method_get_samples(sd_bus_message *message, void *userdata, sd_bus_error *error);
int method_get_histogram(sd_bus_message *message, void *userdata, sd_bus_error *error);
