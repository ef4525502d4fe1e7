/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Regressions found without asking, on the bus: the check of each succeeded run once its end is
 * stored (a job tells the Manager through JobCallbacks.run_stored), its flags logged as warnings
 * and announced as RegressionDetected(t run, a{sv} details), and ListRegressions for benchctl.
 *
 * The check runs on the event loop, synchronously, like the run's own writes: it is a few
 * prepared statements on the runs_series index, reading at most RegressionWindow + 1 runs
 * (and, only when something is flagged, walking back to the start of the baseline segment, at
 * most DB_REGRESS_SEGMENT_SCAN_MAX index steps), so it is bounded by the window and not by the
 * history's length; a helper process would cost more than the check itself. It happens before
 * the job's end is announced, so a client that waits for JobRemoved finds the flags stored.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bus/bus-util.h"
#include "bus/manager-regress.h"
#include "bus/manager.h"
#include "shared/log.h"

static int append_details(sd_bus_message *s, const DbRegression *g) {
        int r;

        r = sd_bus_message_open_container(s, 'a', "{sv}");
        if (r < 0)
                return r;
        r = sd_bus_message_append(s, "{sv}{sv}{sv}{sv}{sv}{sv}{sv}{sv}{sv}",
                                  "id", "t", g->id,
                                  "metric", "s", g->metric,
                                  "value", "d", g->value,
                                  "baseline_median", "d", g->baseline_median,
                                  "baseline_mad", "d", g->baseline_mad,
                                  "baseline_n", "t", g->baseline_n,
                                  "change_pct", "d", g->change_pct,
                                  "segment_started_usec", "t", g->segment_started_usec,
                                  "detected_usec", "t", g->detected_usec);
        if (r < 0)
                return r;
        r = sd_bus_message_append(s, "{sv}{sv}{sv}",
                                  "workload", "s", g->workload ?: "",
                                  "device_identity", "s", g->device_identity ?: "",
                                  "method", "s", g->method ?: "");
        if (r >= 0 && g->device_name)
                r = sd_bus_message_append(s, "{sv}", "device_name", "s", g->device_name);
        if (r < 0)
                return r;
        return sd_bus_message_close_container(s);
}

static int on_regression(const DbRegression *g, void *userdata) {
        Manager *m = userdata;
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *s = NULL;
        int r;

        log_warning("run %" PRIu64 " (%s on %s%s%s%s): regression of %s: %g against a baseline median of %g "
                    "(%+.1f%%, scaled MAD %g over %" PRIu64 " runs); `benchctl regressions` lists it",
                    g->run_id, strna(g->workload), strna(g->device_identity), g->device_name ? " (" : "",
                    g->device_name ?: "", g->device_name ? ")" : "", g->metric, g->value, g->baseline_median,
                    g->change_pct, g->baseline_mad, g->baseline_n);

        r = sd_bus_message_new_signal(manager_bus(m), &s, BENCHD_MANAGER_PATH, BENCHD_MANAGER_INTERFACE,
                                      "RegressionDetected");
        if (r >= 0)
                r = sd_bus_message_append(s, "t", g->run_id);
        if (r >= 0)
                r = append_details(s, g);
        if (r >= 0)
                r = sd_bus_send(manager_bus(m), s, NULL);
        if (r < 0)
                log_warning_errno(r, "run %" PRIu64 ": cannot emit RegressionDetected: %m; the flag is stored all "
                                  "the same", g->run_id);
        return 0;
}

void manager_check_run(Manager *m, uint64_t run_id) {
        const char *segment = NULL;
        int r;

        r = db_regress_check(manager_db(m), run_id, manager_regress_config(m), now_usec(CLOCK_REALTIME), on_regression, m, &segment);
        if (r < 0) {
                log_warning_errno(r, "run %" PRIu64 ": cannot check it for regressions: %m (%s); its figures are "
                                  "stored, only the check is missing", run_id, db_last_error(manager_db(m)));
                return;
        }
        /* The first run of a kind is every new block size of a sweep: not worth more than debug. */
        if (segment && !streq(segment, "continues"))
                log_full(streq(segment, "first") ? LOG_DEBUG : LOG_INFO,
                         "run %" PRIu64 " starts a new baseline segment (%s): later runs are compared with it, "
                         "not with the runs before it", run_id,
                         streq(segment, "first") ? "the first of its kind on its device" :
                         streq(segment, "kernel") ? "another kernel" :
                         streq(segment, "firmware") ? "another device firmware" : "another kernel and firmware");
}

/* ListRegressions' rows, as many as fit in BUS_REPLY_BYTES_MAX. */
static int walk_regressions(Db *db, const void *filter, DbRowCallback cb, void *userdata) {
        return db_query_regressions(db, filter, cb, userdata);
}

int method_list_regressions(sd_bus_message *message, void *userdata, sd_bus_error *error) {
        Manager *m = userdata;
        DbRegressionFilter f = {};
        int r;

        r = bus_message_read_regression_filter(message, &f, error);
        if (r < 0)
                return r;
        return bus_reply_rows(message, manager_db(m), walk_regressions, &f, "regressions", error);
}
