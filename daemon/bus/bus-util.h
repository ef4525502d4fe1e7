/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Marshalling between D-Bus messages and the daemon's plain data: a{sv} job specs into JobSpec,
 * database rows (DbField) into a{sv}, and the replies with the named errors of the Manager
 * interface (the names themselves are in shared/bus-names.h).
 */
#pragma once

#include <stdbool.h>
#include <systemd/sd-bus.h>

#include "shared/bus-names.h"
#include "store/db.h"
#include "shared/spec.h"

/* What a refused call is told and logged: the D-Bus error's message when there is an error (polkit's
 * answer), else the text of error (a negative errno). */
const char *bus_error_text(const sd_bus_error *e, int error);

/* At most this many entries in a SubmitJob spec. */
#define BUS_SPEC_ENTRIES_MAX 64u

/* Reads an a{sv} and applies every entry to s with spec_set(). Each variant must be one of s, b,
 * y, n, q, i, u, x, t or as; anything else, a key given twice or a value spec_set() refuses fails
 * with InvalidSpec in error, naming the key. Returns -EINVAL then, other negative errnos for
 * malformed messages. */
int bus_message_read_spec(sd_bus_message *m, JobSpec *s, sd_bus_error *error);

/* Appends one a{sv} of the row (INTEGER → x, REAL → d, TEXT → s, NULL omitted). */
int bus_message_append_db_fields(sd_bus_message *m, const DbField *fields, size_t n);
/* Appends the {sv} entries of the row the same way (nothing for NULL or nameless fields) to an a{sv}
 * the caller has opened, for a caller that adds entries of its own to it. */
int bus_message_append_db_entries(sd_bus_message *m, const DbField *fields, size_t n);

/* The most a reply whose size grows with the history (QueryRuns, ListJobs with all) may carry.
 * dbus-daemon disconnects a peer that sends a message over its max_message_size (32 MiB by
 * default), which would take benchd off the bus; this stays well below it. */
#define BUS_REPLY_BYTES_MAX (16u << 20)
/* Upper bounds of the bytes one a{sv} adds to a message: of a row as bus_message_append_db_fields()
 * appends it, and of a job as bus_message_append_db_job() or job_append_properties() does. */
size_t bus_db_fields_size(const DbField *fields, size_t n);
size_t bus_db_job_size(const DbJob *dj);

/* What a reply that grows with the history has taken of BUS_REPLY_BYTES_MAX so far. */
typedef struct BusReplyBudget {
        size_t bytes;
        uint64_t n;             /* entries that fitted */
        bool full;              /* an entry did not fit */
} BusReplyBudget;
/* Counts one more entry of size bytes; when it does not fit, sets full and returns -ECANCELED, which
 * stops a database walk. */
int bus_reply_budget_take(BusReplyBudget *b, size_t size);

/* Answers message with the rows walk(db, filter, ...) hands out, as aa{sv}: LimitsExceeded naming
 * `what` ("runs", "regressions") when they do not fit in BUS_REPLY_BYTES_MAX, Failed when the walk
 * fails. The handler's return value. */
typedef int (*BusRowsWalk)(Db *db, const void *filter, DbRowCallback cb, void *userdata);
int bus_reply_rows(sd_bus_message *message, Db *db, BusRowsWalk walk, const void *filter, const char *what,
                   sd_bus_error *error);

/* ListJobs filter: all (b), state (s), limit (t). Strings point into the message. */
typedef struct BusJobFilter {
        int all;
        const char *state;
        uint64_t limit;
} BusJobFilter;
int bus_message_read_job_filter(sd_bus_message *m, BusJobFilter *f, sd_bus_error *error);
/* QueryRuns filter (docs/DESIGN.md "D-Bus API"); unknown keys and wrong types fail with
 * InvalidSpec. Strings point into the message. */
int bus_message_read_run_filter(sd_bus_message *m, DbRunFilter *f, sd_bus_error *error);
/* CompareRuns options: baseline (s) and level (d); unknown keys and wrong types fail with
 * InvalidSpec. Fields the caller did not give are left as they were. */
typedef struct BusCompareOptions {
        const char *baseline;
        double level;
} BusCompareOptions;
int bus_message_read_compare_options(sd_bus_message *m, BusCompareOptions *o, sd_bus_error *error);
/* One a{sv} of a jobs-table row with the Job property names (ListJobs with all=true). */
int bus_message_append_db_job(sd_bus_message *m, const DbJob *dj);
/* The {sv} entries of those properties alone, into an a{sv} the caller has open: the part a live
 * job's properties (job_append_properties()) share with a row. */
int bus_message_append_db_job_entries(sd_bus_message *m, const DbJob *dj);

/* One {sv} entry with a string value (NULL as ""). */
int bus_append_dict_string(sd_bus_message *m, const char *key, const char *value);

/* The sender's effective uid (its uid where the bus gives no euid), for authorising a state-changing
 * call (`what`); AccessDenied when the bus cannot tell. Whether the uid may do it is the caller's
 * question (root may; others ask polkit: bus-polkit.h). */
int bus_sender_uid(sd_bus_message *message, const char *what, uint32_t *ret_uid, sd_bus_error *error);

/* The job's object path: /org/benchd/Benchd1/job/<id>. */
int bus_job_path(uint64_t id, char **ret);
/* The id in a job object path, -ENXIO when path is not a job path. */
int bus_job_path_parse(const char *path, uint64_t *ret);

/* ListRegressions filter: device, workload, metric (s); run, since_usec, until_usec, limit, offset
 * (t). Unknown keys, wrong types and unknown metrics fail with InvalidSpec. Strings point into the
 * message. */
int bus_message_read_regression_filter(sd_bus_message *m, DbRegressionFilter *f, sd_bus_error *error);
