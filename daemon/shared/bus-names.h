/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The names of benchd's D-Bus API (the XML in dbus/): bus name, object paths, interfaces and the named
 * errors. Only names, no sd-bus: the parts below the bus (jobs/, devices/) say which named error a
 * refusal is, and a job's object path is known from its id, without depending on the bus code.
 */
#pragma once

#define BENCHD_BUS_NAME          "org.benchd.Benchd1"
#define BENCHD_MANAGER_PATH      "/org/benchd/Benchd1"
#define BENCHD_MANAGER_INTERFACE "org.benchd.Benchd1.Manager"
#define BENCHD_JOB_PREFIX        "/org/benchd/Benchd1/job"
#define BENCHD_JOB_INTERFACE     "org.benchd.Benchd1.Job"

#define BENCHD_ERROR_INVALID_SPEC    "org.benchd.Benchd1.Error.InvalidSpec"
#define BENCHD_ERROR_NOT_FOUND       "org.benchd.Benchd1.Error.NotFound"
#define BENCHD_ERROR_UNSAFE          "org.benchd.Benchd1.Error.Unsafe"
#define BENCHD_ERROR_QUEUE_FULL      "org.benchd.Benchd1.Error.QueueFull"
#define BENCHD_ERROR_NO_SPACE        "org.benchd.Benchd1.Error.NoSpace"
#define BENCHD_ERROR_NOT_CANCELLABLE "org.benchd.Benchd1.Error.NotCancellable"
#define BENCHD_ERROR_NOT_READY       "org.benchd.Benchd1.Error.NotReady"
#define BENCHD_ERROR_CLOCK_OFFSET    "org.benchd.Benchd1.Error.ClockOffset"
