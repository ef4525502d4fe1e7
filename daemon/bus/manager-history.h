/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Private to manager.c and manager-history.c: the handlers of the Manager's read-only methods
 * (profiles and history), which manager.c's vtable lists. userdata is the Manager.
 */
#pragma once

#include <stdint.h>
#include <systemd/sd-bus.h>

/* At most this many samples in one GetSamples or GetSamplesPage reply. A sample is 16 numbers,
 * about 512 bytes of a{sv}, so a reply stays near 5 MiB whatever the run's length: well inside the
 * message limit of dbus-daemon's default configuration (32 MiB) and of sd-bus (128 MiB). */
#define BENCHD_SAMPLES_PER_REPLY 10000u

/* The confidence levels CompareRuns takes: below 50% an interval says little, and beyond 99.99% it
 * asks more of a few runs than they can say. */
#define COMPARE_LEVEL_MIN 0.5
#define COMPARE_LEVEL_MAX 0.9999

/* Ids are SQLite row ids, at most INT64_MAX: a larger id names nothing. 0, or NotFound saying so
 * ("there is no <what> ID ...; <lister>"). */
int manager_check_id(uint64_t id, const char *what, const char *lister, sd_bus_error *error);

int method_list_profiles(sd_bus_message *message, void *userdata, sd_bus_error *error);
int method_get_profile(sd_bus_message *message, void *userdata, sd_bus_error *error);
int method_query_runs(sd_bus_message *message, void *userdata, sd_bus_error *error);
int method_get_run(sd_bus_message *message, void *userdata, sd_bus_error *error);
int method_get_samples(sd_bus_message *message, void *userdata, sd_bus_error *error);
int method_get_samples_page(sd_bus_message *message, void *userdata, sd_bus_error *error);
int method_get_histogram(sd_bus_message *message, void *userdata, sd_bus_error *error);
int method_compare_runs(sd_bus_message *message, void *userdata, sd_bus_error *error);
