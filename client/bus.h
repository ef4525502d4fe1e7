/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * benchctl's D-Bus edge: connecting the way the command line asked (system bus, --bus-address,
 * -H user@host), turning D-Bus errors into messages and exit codes, and converting any reply
 * value into json-c objects, so every verb works on one representation whether it prints a table
 * or --json.
 */
#pragma once

#include <json-c/json.h>
#include <systemd/sd-bus.h>

#include "benchctl.h"
#include "shared/util.h"
#include "shared/json-util.h"

#define BENCHD_BUS_NAME "org.benchd.Benchd1"
#define BENCHD_MANAGER_PATH "/org/benchd/Benchd1"
#define BENCHD_JOB_PATH_PREFIX "/org/benchd/Benchd1/job"
#define BENCHD_DEVICE_PATH_PREFIX "/org/benchd/Benchd1/device"
#define BENCHD_MANAGER_IFACE "org.benchd.Benchd1.Manager"
#define BENCHD_JOB_IFACE "org.benchd.Benchd1.Job"
#define BENCHD_DEVICE_IFACE "org.benchd.Benchd1.Device"
#define BENCHD_ERROR_PREFIX "org.benchd.Benchd1.Error."


/* Connects as opts->transport says, silently: 0, or a negative errno (ret_where, if given, names
 * the bus for a message). */
int bus_open(const BenchctlOptions *opts, sd_bus **ret, const char **ret_where);
/* Connects as opts->transport says. Returns 0, or prints why not and returns
 * BENCHCTL_EXIT_UNREACHABLE. */
int bus_connect(const BenchctlOptions *opts, sd_bus **ret);

/* Prints "benchctl: <what>: <message>" (the daemon's message whole, escaped as text.h says) and
 * returns the exit code that matches the error: NotFound/UnknownObject -> 4, no benchd on the bus
 * -> 3, InvalidSpec -> 2, anything else -> 1. r is the negative errno of the failed call. */
int bus_error_exit(const char *what, const sd_bus_error *error, int r);
/* What a failed call says: the D-Bus error's message when it has one, else the text of r (a
 * negative errno; EIO's without one). */
const char *bus_error_message(const sd_bus_error *error, int r);

/* Reads the next complete value of m (any signature) as JSON: integers as int64/uint64, doubles,
 * booleans, strings; arrays as arrays, a{..} as objects (keys as strings), structs as arrays,
 * variants unwrapped. */
int bus_message_read_json(sd_bus_message *m, json_object **ret);

/* Calls a Manager method whose reply is one value; returns it as JSON. On failure prints the
 * error with "what" and returns the exit code (>0); 0 on success. The arguments follow "types" as
 * in sd_bus_call_method(). */
int bus_call_manager_json(sd_bus *bus, const char *what, const char *method, json_object **ret,
                          const char *types, ...);

/* A new Manager method call to fill in, then bus_call_json() to send it and read the one value. */
int bus_new_manager_call(sd_bus *bus, const char *method, sd_bus_message **ret);
int bus_call_json(sd_bus *bus, const char *what, sd_bus_message *m, json_object **ret);
/* bus_call_manager_json() for the methods that take one a{sv} (ListJobs, QueryRuns): the a{sv} is
 * built from filter as bus_append_filter() does. */
int bus_call_manager_filter_json(sd_bus *bus, const char *what, const char *method, json_object *filter,
                                 json_object **ret);

/* Properties.GetAll of one interface as a JSON object. Negative errno with *error set on
 * failure (so callers can tell UnknownObject apart). */
int bus_get_all_json(sd_bus *bus, const char *path, const char *interface, sd_bus_error *error,
                     json_object **ret);

/* Appends an "a{sv}" built from a JSON object of strings (s), booleans (b), unsigned integers (t),
 * arrays of strings (as) and objects of strings (a{ss}): job specs and query filters. */
int bus_append_filter(sd_bus_message *m, json_object *filter);

/* True for errors that mean "benchd is not there". */
int bus_error_is_unreachable(const sd_bus_error *error);
