/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * benchctl run -H HOST -H HOST... (or --hosts FILE): a fleet run (docs/fleet.md "Fleet runs").
 * One bus connection per host over the -H transport (ssh + systemd-stdio-bridge). Before anything
 * is submitted: every host must answer (else the run stops naming it, unless --allow-missing) and
 * its clock is measured against ours (8 GetClock round trips, the one of the smallest round trip
 * kept); a host beyond fleet_clock_tolerance_ms is refused unless --clock-correct. Then one job per
 * host with the same fleet_uuid; each step, once every live job waits in Phase "ready", is started
 * on every host at one wall-clock time ~300 ms ahead (Job.Start). SIGINT/SIGTERM cancel every
 * host's job. At the end, each host's runs and, per step, the fleet's figures over the interval
 * when every host was measuring (fleet-sum.c), printed by fleet_print() alone; then the runs are
 * gathered into one history as gather does (fleet-gather.c, with the hosts' list and benchctl
 * gather itself). show --fleet UUID and report --fleet (fleet_history()): the same result from a
 * history the runs were gathered into.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>
#include <systemd/sd-bus.h>
#include <systemd/sd-id128.h>

#include "benchctl.h"
#include "bus.h"
#include "shared/util.h"
#include "fleet-gather.h"
#include "fleet-sum.h"
#include "model.h"
#include "text.h"
#include "verbs-results.h"

#define FLEET_CLOCK_SAMPLES 8
#define FLEET_START_AHEAD_USEC (300 * 1000)
#define FLEET_POLL_USEC (100 * 1000)


/* SIGINT and SIGTERM are blocked during a fleet run and taken with sigtimedwait() between the bus
 * calls, so that none is cut short by one: the cancel that follows must reach every host. */
static int fleet_stop = 0;


static void fleet_signal_check(const sigset_t *set, uint64_t wait_usec) {
        struct timespec ts = { .tv_sec = (time_t) (wait_usec / 1000000), .tv_nsec = (long) (wait_usec % 1000000) * 1000 };
        int sig;

        sig = sigtimedwait(set, NULL, &ts);
        if (sig > 0 && !fleet_stop)
                fleet_stop = sig;
}

static uint64_t realtime_usec(void) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        return (uint64_t) ts.tv_sec * 1000000 + (uint64_t) ts.tv_nsec / 1000;
}

static int get_clock(sd_bus *bus, uint64_t *ret, sd_bus_error *error) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        int r;

        r = sd_bus_call_method(bus, BENCHD_BUS_NAME, BENCHD_MANAGER_PATH, BENCHD_MANAGER_IFACE, "GetClock", error,
                               &reply, "");
        if (r < 0)
                return r;
        return sd_bus_message_read(reply, "t", ret);
}

/* Measures the clock over a connection opened by host_open(); <0 with a message in *why when the
 * host cannot be used. The first call waits for the connection's ssh and authentication. */
static int host_measure(FleetHost *h, char **why) {
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        int r;

        h->rtt_us = UINT64_MAX;
        for (unsigned i = 0; i < FLEET_CLOCK_SAMPLES; i++) {
                uint64_t t0, t1, remote;

                t0 = realtime_usec();
                r = get_clock(h->bus, &remote, &error);
                t1 = realtime_usec();
                if (r < 0) {
                        (void) asprintf(why, "%s", bus_error_message(&error, r));
                        return r;
                }
                if (t1 - t0 < h->rtt_us) {
                        h->rtt_us = t1 - t0;
                        h->offset_us = (int64_t) remote - (int64_t) (t0 + (t1 - t0) / 2);
                }
        }
        return 0;
}

static void host_cancel(FleetHost *h) {
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        int r;

        if (!h->bus || h->job == 0 || h->ended)
                return;
        r = sd_bus_call_method(h->bus, BENCHD_BUS_NAME, h->job_path, BENCHD_JOB_IFACE, "Cancel", &error, NULL, "");
        if (r < 0 && !sd_bus_error_has_name(&error, BENCHD_ERROR_PREFIX "NotCancellable"))
                text_fprintf(stderr, "benchctl: %s: cancelling job %" PRIu64 ": %s\n", h->name, h->job,
                             bus_error_message(&error, r));
}

static int host_submit(FleetHost *h, json_object *spec) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *m = NULL, *reply = NULL;
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        const char *path;
        int r;

        json_object_object_add(spec, "fleet_host", json_object_new_string(h->name));
        r = bus_new_manager_call(h->bus, "SubmitJob", &m);
        if (r >= 0)
                r = bus_append_filter(m, spec);
        if (r < 0) {
                text_fprintf_errno(stderr, r, "benchctl: %s: submit: cannot build the call: %m\n", h->name);
                return BENCHCTL_EXIT_FAILURE;
        }
        r = sd_bus_call(h->bus, m, 90 * USEC_PER_SEC, &error, &reply);
        if (r < 0) {
                _cleanup_free_ char *what = NULL;
                if (asprintf(&what, "%s: submit", h->name) < 0)
                        return BENCHCTL_EXIT_FAILURE;
                return bus_error_exit(what, &error, r);
        }
        r = sd_bus_message_read(reply, "to", &h->job, &path);
        if (r >= 0) {
                h->job_path = strdup(path);
                if (!h->job_path)
                        r = -ENOMEM;
        }
        if (r < 0) {
                text_fprintf_errno(stderr, r, "benchctl: %s: submit: cannot parse the reply: %m\n", h->name);
                return BENCHCTL_EXIT_FAILURE;
        }
        return 0;
}

static bool json_num(json_object *o, const char *key, double *ret) {
        json_object *v;
        if (!json_object_object_get_ex(o, key, &v) || !v ||
            !(json_object_is_type(v, json_type_int) || json_object_is_type(v, json_type_double)))
                return false;
        *ret = json_object_get_double(v);
        return true;
}

/* Keeps what the job's properties say it has measured, for the summary of a host lost later. */
static void host_note_progress(FleetHost *h, json_object *props) {
        json_object *live = NULL, *runs = NULL;
        double v;

        free(h->phase);
        h->phase = strdup(fleet_json_str(props, "Phase") ?: "");
        h->step = fleet_json_i64(props, "CurrentStep");
        if (json_object_object_get_ex(props, "Live", &live) && live && json_object_is_type(live, json_type_object) &&
            json_object_object_length(live) > 0 && json_num(live, "t_ms", &v)) {
                h->have_live = true;
                h->live_t_ms = (int64_t) v;
                h->live_mb_per_s = json_num(live, "mb_per_s", &v) ? v : NAN;
                h->live_iops = json_num(live, "iops", &v) ? v : NAN;
        }
        if (json_object_object_get_ex(props, "Runs", &runs) && runs && json_object_is_type(runs, json_type_array)) {
                json_object_put(h->run_ids);
                h->run_ids = json_object_get(runs);
        }
}

/* Reads the job's State and Phase; *ready when it waits for a start of a step not yet started. */
static int host_poll(FleetHost *h, bool *ready, char **ret_key) {
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        _cleanup_json_ json_object *props = NULL;
        _cleanup_free_ char *key = NULL;
        const char *state, *phase, *entry;
        int r;

        *ready = false;
        r = bus_get_all_json(h->bus, h->job_path, BENCHD_JOB_IFACE, &error, &props);
        if (r < 0) {
                if (sd_bus_error_has_names(&error, SD_BUS_ERROR_UNKNOWN_OBJECT, SD_BUS_ERROR_UNKNOWN_METHOD)) {
                        h->ended = true; /* gone: ended a while ago */
                        return 0;
                }
                /* Its benchd is gone (killed, crashed), or ssh lost the way to it: the others go on. */
                h->lost = true;
                h->ended = true;
                free(h->lost_why);
                h->lost_why = strdup(bus_error_message(&error, r));
                text_fprintf(stderr, "benchctl: run: lost host %s (job %" PRIu64 "): %s; the other hosts go on\n",
                             h->name, h->job, bus_error_message(&error, r));
                return 0;
        }
        host_note_progress(h, props);
        state = fleet_json_str(props, "State") ?: "";
        phase = fleet_json_str(props, "Phase") ?: "";
        entry = fleet_json_str(props, "Entry") ?: "";
        free(h->state);
        h->state = strdup(state);
        if (!streq(state, "queued") && !streq(state, "running")) {
                h->ended = true;
                return 0;
        }
        if (asprintf(&key, "%" PRIi64 "/%" PRIi64 "/%s", fleet_json_i64(props, "CurrentStep"),
                     fleet_json_i64(props, "CurrentRepeat"), entry) < 0)
                return -ENOMEM;
        if (streq(state, "running") && streq(phase, "ready") && !streq_ptr(key, h->started_key)) {
                *ready = true;
                *ret_key = TAKE_PTR(key);
        }
        return 0;
}

static int host_start(FleetHost *h, uint64_t start_usec, char *key) {
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        uint64_t t = h->beyond ? (uint64_t) ((int64_t) start_usec + h->offset_us) : start_usec;
        int r;

        r = sd_bus_call_method(h->bus, BENCHD_BUS_NAME, h->job_path, BENCHD_JOB_IFACE, "Start", &error, NULL,
                               "txtb", t, h->offset_us, h->rtt_us, (int) h->beyond);
        if (r < 0) {
                text_fprintf(stderr, "benchctl: %s: starting job %" PRIu64 ": %s\n", h->name, h->job,
                             bus_error_message(&error, r));
                free(key);
                return r;
        }
        free(h->started_key);
        h->started_key = key;
        return 0;
}

/* The fleet run's runs of a history, each whole (show RUN --json: samples and histogram), oldest
 * first, so that the i-th run of each host is the same step. */
static int fleet_runs_load(sd_bus *bus, const char *what, const char *uuid, const char *host, json_object **ret) {
        _cleanup_json_ json_object *filter = json_object_new_object(), *runs = NULL, *out = json_object_new_array();
        int r;

        if (!filter || !out)
                return BENCHCTL_EXIT_FAILURE;
        json_object_object_add(filter, "fleet_uuid", json_object_new_string(uuid));
        json_object_object_add(filter, "limit", json_object_new_uint64(10000));
        r = bus_call_manager_filter_json(bus, what, "QueryRuns", filter, &runs);
        if (r != 0)
                return r;
        /* Newest first: turn it round. */
        for (size_t i = json_object_array_length(runs); i > 0; i--) {
                json_object *run = json_object_array_get_idx(runs, i - 1), *full = NULL;

                if (host && !streq_ptr(fleet_json_str(run, "fleet_host"), host))
                        continue;
                r = run_details(bus, (uint64_t) fleet_json_i64(run, "id"), &full);
                if (r != 0)
                        return r;
                json_object_array_add(out, full);
        }
        *ret = TAKE_PTR(out);
        return 0;
}

static int host_query_runs(FleetHost *h, const char *uuid) {
        return fleet_runs_load(h->bus, h->name, uuid, NULL, &h->runs);
}

/* What the result shows of a host: its runs (whole, oldest first), or why it has none. */
static json_object *host_lost_json(const FleetHost *h);

typedef struct FleetView {
        const char *name;
        json_object *runs;      /* not owned */
        const char *missing;    /* "unreachable", "lost": not measured (NULL: it was) */
        uint64_t job;           /* 0: not known (a gathered history) */
        const char *state;
        const FleetHost *lost;  /* lost mid-run (benchctl run -H ...): what it had done */
} FleetView;

/* Every step's fleet figures (fleet-sum.h), as an array. */
static json_object *fleet_steps(const FleetView *v, size_t n) {
        _cleanup_json_ json_object *steps = json_object_new_array();
        _cleanup_free_ FleetMember *m = calloc(n ?: 1, sizeof(FleetMember));
        size_t n_steps = 0;

        if (!steps || !m)
                return NULL;
        for (size_t h = 0; h < n; h++)
                if (v[h].runs)
                        n_steps = MAX(n_steps, json_object_array_length(v[h].runs));
        for (size_t s = 0; s < n_steps; s++) {
                json_object *step;

                for (size_t h = 0; h < n; h++)
                        m[h] = (FleetMember) {
                                .host = v[h].name,
                                .run = v[h].runs && s < json_object_array_length(v[h].runs) ?
                                        json_object_array_get_idx(v[h].runs, s) : NULL,
                                .missing = v[h].missing,
                        };
                step = fleet_sum_step(m, n);
                if (!step)
                        return NULL;
                json_object_object_add(step, "timeline", fleet_sum_timeline(m, n, step));
                json_object_array_add(steps, step);
        }
        return TAKE_PTR(steps);
}

/* The result as --json prints it. */
static json_object *fleet_result_json(const char *uuid, const FleetView *v, size_t n, json_object *steps, bool whole) {
        json_object *o = json_object_new_object(), *hs = json_object_new_array();

        json_object_object_add(o, "fleet_uuid", json_object_new_string(uuid));
        for (size_t i = 0; i < n; i++) {
                json_object *x = json_object_new_object(), *first;

                json_object_object_add(x, "host", json_object_new_string(v[i].name));
                json_object_object_add(x, "reachable", json_object_new_boolean(!streq_ptr(v[i].missing, "unreachable")));
                if (v[i].missing)
                        json_object_object_add(x, "missing", json_object_new_string(v[i].missing));
                json_object_object_add(x, "lost", json_object_new_boolean(v[i].lost != NULL));
                if (v[i].lost)
                        json_object_object_add(x, "lost_in", host_lost_json(v[i].lost));
                if (v[i].job > 0)
                        json_object_object_add(x, "job", json_object_new_uint64(v[i].job));
                if (v[i].state)
                        json_object_object_add(x, "state", json_object_new_string(v[i].state));
                first = v[i].runs && json_object_array_length(v[i].runs) > 0 ? json_object_array_get_idx(v[i].runs, 0) : NULL;
                if (first) {
                        json_object_object_add(x, "clock_offset_us", json_object_new_int64(fleet_json_i64(first, "fleet_clock_offset_us")));
                        json_object_object_add(x, "rtt_us", json_object_new_int64(fleet_json_i64(first, "fleet_rtt_us")));
                        json_object_object_add(x, "start_corrected", json_object_new_boolean(fleet_json_i64(first, "fleet_start_corrected") != 0));
                }
                if (v[i].runs) {
                        /* The runs' columns; their samples and histogram are in show RUN --json. */
                        json_object *runs = json_object_new_array();
                        for (size_t k = 0; k < json_object_array_length(v[i].runs); k++) {
                                json_object *run = NULL;
                                json_object_deep_copy(json_object_array_get_idx(v[i].runs, k), &run, NULL);
                                if (!run)
                                        continue;
                                if (!whole) {
                                        json_object_object_del(run, "samples");
                                        json_object_object_del(run, "histogram");
                                }
                                json_object_array_add(runs, run);
                        }
                        json_object_object_add(x, "runs", runs);
                }
                json_object_array_add(hs, x);
        }
        json_object_object_add(o, "hosts", hs);
        json_object_object_add(o, "all_hosts", json_object_get(steps));
        return o;
}

/* What a lost host had done, as benchctl last saw it. */
static json_object *host_lost_json(const FleetHost *h) {
        json_object *o = json_object_new_object();

        json_object_object_add(o, "reason", json_object_new_string(strna(h->lost_why)));
        json_object_object_add(o, "state", json_object_new_string(strna(h->state)));
        json_object_object_add(o, "step", json_object_new_int64(h->step));
        json_object_object_add(o, "phase", json_object_new_string(h->phase ?: ""));
        if (h->have_live) {
                json_object_object_add(o, "measured_ms", json_object_new_int64(h->live_t_ms));
                if (!isnan(h->live_mb_per_s))
                        json_object_object_add(o, "last_mib_per_s",
                                               json_object_new_double(h->live_mb_per_s * 1e6 / 1048576.0));
                if (!isnan(h->live_iops))
                        json_object_object_add(o, "last_iops", json_object_new_double(h->live_iops));
        }
        json_object_object_add(o, "runs", h->run_ids ? json_object_get(h->run_ids) : json_object_new_array());
        return o;
}

static void host_print_lost(const FleetHost *h) {
        size_t n;

        text_printf("  %-20s LOST in step %" PRIi64 "%s%s%s: %s;", h->name, h->step, h->phase && *h->phase ? " (" : "",
                    h->phase ?: "", h->phase && *h->phase ? ")" : "", strna(h->lost_why));
        if (h->have_live) {
                printf(" it had measured %.3f s", h->live_t_ms / 1000.0);
                if (!isnan(h->live_mb_per_s))
                        printf(", its last sample %.2f MiB/s", h->live_mb_per_s * 1e6 / 1048576.0);
                if (!isnan(h->live_iops))
                        printf(", %.0f IOPS", h->live_iops);
        } else
                printf(" no sample of it had come");
        n = h->run_ids ? json_object_array_length(h->run_ids) : 0;
        for (size_t i = 0; i < n; i++)
                printf("%s%" PRIi64, i == 0 ? (n == 1 ? "; its run " : "; its runs ") : ", ",
                       json_object_get_int64(json_object_array_get_idx(h->run_ids, i)));
        if (n > 0)
                printf(" %s in its history (job %" PRIu64 ")\n", n == 1 ? "stays" : "stay", h->job);
        else
                printf("; job %" PRIu64 "\n", h->job);
}

/* The result as benchctl run -H ... and show --fleet print it: each host's runs, then each step's
 * "all hosts" figures. The one place that prints a fleet result. */
static void fleet_print(const char *uuid, const FleetView *v, size_t n, json_object *steps) {
        printf("Fleet run %s:\n", uuid);
        for (size_t h = 0; h < n; h++) {
                size_t m = v[h].runs ? json_object_array_length(v[h].runs) : 0;

                if (v[h].lost) {
                        host_print_lost(v[h].lost);
                        continue;
                }
                if (v[h].missing && m == 0) {
                        text_printf("  %-20s %s\n", v[h].name, v[h].missing);
                        continue;
                }
                if (m == 0 && v[h].job > 0)
                        text_printf("  %-20s job %" PRIu64 " %s, no run\n", v[h].name, v[h].job, strna(v[h].state));
                else if (m == 0)
                        text_printf("  %-20s no run\n", v[h].name);
                for (size_t i = 0; i < m; i++) {
                        json_object *run = json_object_array_get_idx(v[h].runs, i);
                        double mib = 0, iops = 0;
                        bool has_mib = json_num(run, "mib_per_s", &mib), has_iops = json_num(run, "iops", &iops);

                        text_printf("  %-20s run %" PRIi64 " %-10s %-10s", v[h].name, fleet_json_i64(run, "id"),
                                    strna(fleet_json_str(run, "workload")), strna(fleet_json_str(run, "status")));
                        if (has_mib)
                                printf(" %10.2f MiB/s", mib);
                        if (has_iops)
                                printf(" %10.0f IOPS", iops);
                        printf("   (clock %+.3f ms, rtt %.3f ms%s)\n", fleet_json_i64(run, "fleet_clock_offset_us") / 1000.0,
                               fleet_json_i64(run, "fleet_rtt_us") / 1000.0,
                               fleet_json_i64(run, "fleet_start_corrected") ? ", start corrected" : "");
                }
        }
        for (size_t i = 0; i < json_object_array_length(steps); i++) {
                json_object *s = json_object_array_get_idx(steps, i), *left;
                double mib, iops, spread, p50, p99;

                printf("  all hosts, step %zu:", i);
                if (fleet_json_i64(s, "common_usec") > 0 && json_num(s, "mib_per_s", &mib) && json_num(s, "iops", &iops))
                        printf(" %.2f MiB/s, %.0f IOPS over the %.3f s every host of %" PRIi64 " was measuring;",
                               mib, iops, fleet_json_i64(s, "common_usec") / 1e6, fleet_json_i64(s, "hosts"));
                else
                        printf(" no interval when every host was measuring;");
                if (json_num(s, "lat_p50_ns", &p50) && json_num(s, "lat_p99_ns", &p99))
                        printf(" latency p50 %.1f us, p99 %.1f us of %" PRIi64 " I/Os;", p50 / 1000, p99 / 1000,
                               fleet_json_i64(s, "lat_ios"));
                if (fleet_json_str(s, "first_done"))
                        text_printf(" first done %s, last done %s (+%.3f s)", fleet_json_str(s, "first_done"),
                                    fleet_json_str(s, "last_done"), fleet_json_i64(s, "done_apart_usec") / 1e6);
                if (json_num(s, "spread_pct", &spread))
                        printf("; spread of the hosts' MiB/s %.1f%%", spread);
                printf("\n");
                if (json_object_object_get_ex(s, "left_out", &left))
                        for (size_t k = 0; k < json_object_array_length(left); k++) {
                                json_object *x = json_object_array_get_idx(left, k);

                                text_printf("    left out %s: %s", strna(fleet_json_str(x, "host")), strna(fleet_json_str(x, "reason")));
                                if (fleet_json_str(x, "status"))
                                        text_printf(" (%s)", fleet_json_str(x, "status"));
                                if (fleet_json_i64(x, "samples") > 0 && json_num(x, "mib_per_s", &mib))
                                        printf("; it measured %" PRIi64 " samples, %.3f s, %.2f MiB/s",
                                               fleet_json_i64(x, "samples"), fleet_json_i64(x, "measured_usec") / 1e6, mib);
                                else
                                        printf("; it measured nothing");
                                printf("\n");
                        }
        }
}

int fleet_run(const BenchctlOptions *opts, char **host_args, const char *hosts_file, bool allow_missing, bool clock_correct) {
        _cleanup_json_ json_object *spec = NULL, *steps = NULL, *gathered = NULL;
        _cleanup_free_ FleetView *views = NULL;
        FleetHost *hosts = NULL;
        size_t n = 0, live = 0;
        char uuid[SD_ID128_UUID_STRING_MAX];
        sd_id128_t id;
        int64_t tolerance_us = 50 * 1000;
        json_object *v;
        sigset_t stop_set, old_mask;
        bool start_failed = false;
        const char *cancelled_on = NULL; /* a host whose job was cancelled there, not by us */
        int r, ret = BENCHCTL_EXIT_OK;

        r = job_spec_build(opts, &spec);
        if (r != 0)
                return r;
        for (char **a = host_args; a && *a; a++)
                if (hosts_push(&hosts, &n, *a) < 0) {
                        ret = BENCHCTL_EXIT_USAGE;
                        goto finish;
                }
        if (hosts_file && hosts_read_file(hosts_file, &hosts, &n) < 0) {
                ret = BENCHCTL_EXIT_USAGE;
                goto finish;
        }
        if (json_object_object_get_ex(spec, "fleet_uuid", NULL) || json_object_object_get_ex(spec, "fleet_host", NULL)) {
                fprintf(stderr, "benchctl: run: fleet_uuid and fleet_host are benchctl's to set in a run with "
                        "several hosts; leave them out\n");
                ret = BENCHCTL_EXIT_USAGE;
                goto finish;
        }
        if (json_object_object_get_ex(spec, "fleet_clock_tolerance_ms", &v))
                tolerance_us = json_object_get_int64(v) * 1000;

        /* Every host answers and has its clock measured before anything is submitted anywhere. The
         * connections are all opened first: sd-bus starts each one's ssh and does not wait for it,
         * so their key exchanges and logins overlap instead of adding up. */
        for (size_t i = 0; i < n; i++) {
                r = sd_bus_open_system_remote(&hosts[i].bus, hosts[i].name);
                if (r < 0) {
                        hosts[i].bus = NULL;
                        hosts[i].open_error = r;
                }
        }
        for (size_t i = 0; i < n; i++) {
                _cleanup_free_ char *why = NULL;

                if (!hosts[i].bus)
                        (void) asprintf(&why, "cannot connect: %s", strerror(-hosts[i].open_error));
                else if (host_measure(&hosts[i], &why) >= 0)
                        continue;
                hosts[i].bus = sd_bus_flush_close_unref(hosts[i].bus);
                text_fprintf(stderr, "benchctl: run: host %s is unreachable: %s\n", hosts[i].name, strna(why));
                if (!allow_missing)
                        ret = BENCHCTL_EXIT_UNREACHABLE;
        }
        if (ret != 0) {
                fprintf(stderr, "benchctl: run: nothing was submitted; --allow-missing runs on the hosts that "
                        "answer\n");
                goto finish;
        }
        for (size_t i = 0; i < n; i++) {
                if (!hosts[i].bus)
                        continue;
                live++;
                if (llabs(hosts[i].offset_us) <= tolerance_us)
                        continue;
                if (clock_correct) {
                        hosts[i].beyond = true;
                        continue;
                }
                text_fprintf(stderr, "benchctl: run: host %s's clock is %+.3f ms from this one's (round trip "
                             "%.3f ms), beyond fleet_clock_tolerance_ms=%" PRIi64 "\n", hosts[i].name,
                             hosts[i].offset_us / 1000.0, hosts[i].rtt_us / 1000.0, tolerance_us / 1000);
                ret = BENCHCTL_EXIT_FAILURE;
        }
        if (ret != 0) {
                fprintf(stderr, "benchctl: run: nothing was submitted; synchronise the clocks (NTP), raise "
                        "--set fleet_clock_tolerance_ms=, or start by the measured offset with --clock-correct\n");
                goto finish;
        }
        if (live == 0) {
                fprintf(stderr, "benchctl: run: no host answered; nothing was submitted\n");
                ret = BENCHCTL_EXIT_UNREACHABLE;
                goto finish;
        }

        r = sd_id128_randomize(&id);
        if (r < 0) {
                text_fprintf_errno(stderr, r, "benchctl: run: cannot make a uuid: %m\n");
                ret = BENCHCTL_EXIT_FAILURE;
                goto finish;
        }
        sd_id128_to_uuid_string(id, uuid);
        json_object_object_add(spec, "fleet_uuid", json_object_new_string(uuid));

        sigemptyset(&stop_set);
        sigaddset(&stop_set, SIGINT);
        sigaddset(&stop_set, SIGTERM);
        sigprocmask(SIG_BLOCK, &stop_set, &old_mask);
        for (size_t i = 0; i < n; i++) {
                fleet_signal_check(&stop_set, 0);
                if (fleet_stop)
                        break;
                if (!hosts[i].bus)
                        continue;
                ret = host_submit(&hosts[i], spec);
                if (ret != 0)
                        break;
                if (!opts->json)
                        text_fprintf(stderr, "%s: job %" PRIu64 " queued (clock %+.3f ms, rtt %.3f ms).\n",
                                     hosts[i].name, hosts[i].job, hosts[i].offset_us / 1000.0,
                                     hosts[i].rtt_us / 1000.0);
        }
        if (ret != 0 || fleet_stop) {
                for (size_t i = 0; i < n; i++)
                        host_cancel(&hosts[i]);
                if (ret == 0)
                        ret = BENCHCTL_EXIT_FAILURE;
                goto restore;
        }

        /* Each step: when every live job waits ready, start them all at one time. */
        for (;;) {
                _cleanup_free_ char **keys = calloc(n, sizeof(char *));
                size_t waiting = 0, running = 0;

                if (!keys) {
                        ret = BENCHCTL_EXIT_FAILURE;
                        break;
                }
                if (fleet_stop || start_failed || cancelled_on) {
                        if (start_failed)
                                fprintf(stderr, "benchctl: run: a host refused its start; cancelling the job on "
                                        "every host\n");
                        else if (cancelled_on)
                                /* benchctl -H HOST cancel ID, or benchctl cancel on HOST: one fleet, one cancel. */
                                text_fprintf(stderr, "benchctl: run: the job was cancelled on %s; cancelling the "
                                             "job on every host\n", cancelled_on);
                        else
                                fprintf(stderr, "benchctl: run: %s; cancelling the job on every host\n",
                                        strsignal(fleet_stop));
                        for (size_t i = 0; i < n; i++)
                                host_cancel(&hosts[i]);
                        ret = BENCHCTL_EXIT_FAILURE;
                        break;
                }
                for (size_t i = 0; i < n; i++) {
                        bool ready;

                        if (!hosts[i].bus || hosts[i].ended)
                                continue;
                        if (host_poll(&hosts[i], &ready, &keys[i]) < 0) {
                                hosts[i].ended = true;
                                ret = BENCHCTL_EXIT_FAILURE;
                                continue;
                        }
                        if (hosts[i].ended) {
                                if (!hosts[i].lost && streq_ptr(hosts[i].state, "cancelled") && !cancelled_on)
                                        cancelled_on = hosts[i].name;
                                continue;
                        }
                        running++;
                        if (ready)
                                waiting++;
                }
                if (running == 0 || cancelled_on) {
                        for (size_t i = 0; i < n; i++)
                                free(keys[i]);
                        if (running == 0)
                                break;
                        continue;
                }
                if (waiting == running) {
                        uint64_t start = realtime_usec() + FLEET_START_AHEAD_USEC;

                        for (size_t i = 0; i < n; i++) {
                                if (!keys[i])
                                        continue;
                                if (host_start(&hosts[i], start, TAKE_PTR(keys[i])) < 0)
                                        start_failed = true;
                        }
                }
                for (size_t i = 0; i < n; i++)
                        free(keys[i]);
                fleet_signal_check(&stop_set, FLEET_POLL_USEC);
        }

        views = calloc(n ?: 1, sizeof(FleetView));
        if (!views) {
                ret = BENCHCTL_EXIT_FAILURE;
                goto restore;
        }
        for (size_t i = 0; i < n; i++) {
                views[i] = (FleetView) { .name = hosts[i].name, .job = hosts[i].job, .state = hosts[i].state };
                if (!hosts[i].bus) {
                        views[i].missing = "unreachable";
                        continue;
                }
                if (hosts[i].lost) {
                        /* Its runs stay in its history; the way to them is what was lost. */
                        views[i].missing = "lost";
                        views[i].lost = &hosts[i];
                        ret = BENCHCTL_EXIT_UNREACHABLE;
                        continue;
                }
                if (hosts[i].state && !streq(hosts[i].state, "succeeded") && ret == BENCHCTL_EXIT_OK)
                        ret = BENCHCTL_EXIT_FAILURE;
                if (host_query_runs(&hosts[i], uuid) != 0)
                        ret = BENCHCTL_EXIT_FAILURE;
                views[i].runs = hosts[i].runs;
        }
        steps = fleet_steps(views, n);
        if (!steps) {
                ret = BENCHCTL_EXIT_FAILURE;
                goto restore;
        }
        gathered = fleet_run_gather(opts, hosts, n, uuid, &ret);
        if (opts->json) {
                _cleanup_json_ json_object *o = fleet_result_json(uuid, views, n, steps, false);
                json_object_object_add(o, "gathered", TAKE_PTR(gathered));
                print_json(o);
        } else {
                fleet_print(uuid, views, n, steps);
                if (gathered)
                        gather_print_json(gathered);
        }

restore:
        /* A signal that came after the last check is taken here, not by its default action. */
        fleet_signal_check(&stop_set, 0);
        sigprocmask(SIG_SETMASK, &old_mask, NULL);
finish:
        for (size_t i = 0; i < n; i++) {
                sd_bus_flush_close_unref(hosts[i].bus);
                free(hosts[i].name);
                free(hosts[i].job_path);
                free(hosts[i].state);
                free(hosts[i].started_key);
                json_object_put(hosts[i].runs);
                free(hosts[i].lost_why);
                free(hosts[i].phase);
                json_object_put(hosts[i].run_ids);
        }
        free(hosts);
        return ret;
}

/* cancel --fleet UUID: on every host named (-H, --hosts; this host's benchd when none is), the jobs
 * still queued or running whose spec carries the fleet's uuid are cancelled; one line per host. Exit
 * status 3 when a host did not answer, 4 when no host had a job of the fleet left, 1 when a cancel
 * was refused; the hosts that answer are cancelled in any case. */
int fleet_cancel(const BenchctlOptions *opts) {
        FleetHost *hosts = NULL;
        size_t n = 0, found = 0;
        sd_id128_t id;
        int r, ret = BENCHCTL_EXIT_OK;
        bool unreachable = false;

        r = sd_id128_from_string(opts->fleet, &id);
        if (r < 0) {
                text_fprintf(stderr, "benchctl: cancel: --fleet '%s' is not a uuid; give the fleet run's uuid "
                             "(benchctl run prints it: \"Fleet run UUID:\")\n", opts->fleet);
                return BENCHCTL_EXIT_USAGE;
        }
        for (char **a = opts->hosts; a && *a; a++)
                if (hosts_push(&hosts, &n, *a) < 0) {
                        ret = BENCHCTL_EXIT_USAGE;
                        goto finish;
                }
        if (opts->hosts_file && hosts_read_file(opts->hosts_file, &hosts, &n) < 0) {
                ret = BENCHCTL_EXIT_USAGE;
                goto finish;
        }
        if (n == 0 && hosts_push(&hosts, &n, "this host") < 0) {
                ret = BENCHCTL_EXIT_FAILURE;
                goto finish;
        }

        for (size_t i = 0; i < n; i++) {
                _cleanup_json_ json_object *filter = json_object_new_object(), *jobs = NULL;
                FleetHost *h = &hosts[i];
                size_t here = 0;

                if (!filter) {
                        ret = BENCHCTL_EXIT_FAILURE;
                        goto finish;
                }
                if (opts->hosts || opts->hosts_file)
                        r = sd_bus_open_system_remote(&h->bus, h->name);
                else
                        r = bus_connect(opts, &h->bus) == 0 ? 0 : -ENOTCONN;
                if (r < 0) {
                        text_fprintf_errno(stderr, r, "%s: unreachable: cannot connect: %m\n", h->name);
                        unreachable = true;
                        continue;
                }
                /* The jobs benchd knows now: queued, running and lately ended (ListJobs without "all"). */
                r = bus_call_manager_filter_json(h->bus, h->name, "ListJobs", filter, &jobs);
                if (r != 0) {
                        unreachable = unreachable || r == BENCHCTL_EXIT_UNREACHABLE;
                        if (r != BENCHCTL_EXIT_UNREACHABLE && ret == BENCHCTL_EXIT_OK)
                                ret = r;
                        continue;
                }
                for (size_t k = 0; k < json_object_array_length(jobs); k++) {
                        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
                        _cleanup_json_ json_object *spec = NULL;
                        json_object *job = json_object_array_get_idx(jobs, k);
                        const char *state = fleet_json_str(job, "State"), *text = fleet_json_str(job, "Spec"), *u;
                        uint64_t job_id = (uint64_t) fleet_json_i64(job, "Id");
                        sd_id128_t jid;

                        if (!text || !(spec = json_tokener_parse(text)))
                                continue;
                        u = fleet_json_str(spec, "fleet_uuid");
                        if (!u || sd_id128_from_string(u, &jid) < 0 || !sd_id128_equal(jid, id))
                                continue;
                        if (!streq_ptr(state, "queued") && !streq_ptr(state, "running")) {
                                text_printf("%s: job %" PRIu64 " of the fleet run had ended (%s)\n", h->name, job_id,
                                            strna(state));
                                here++;
                                continue;
                        }
                        r = sd_bus_call_method(h->bus, BENCHD_BUS_NAME, BENCHD_MANAGER_PATH, BENCHD_MANAGER_IFACE,
                                               "CancelJob", &error, NULL, "t", job_id);
                        if (r < 0 && !sd_bus_error_has_name(&error, BENCHD_ERROR_PREFIX "NotCancellable")) {
                                text_fprintf(stderr, "%s: cancelling job %" PRIu64 ": %s\n", h->name, job_id,
                                             bus_error_message(&error, r));
                                if (ret == BENCHCTL_EXIT_OK)
                                        ret = BENCHCTL_EXIT_FAILURE;
                                continue;
                        }
                        text_printf("%s: job %" PRIu64 " cancelled\n", h->name, job_id);
                        here++;
                }
                found += here;
                if (here == 0)
                        text_printf("%s: no job of fleet run %s\n", h->name, opts->fleet);
        }
        if (unreachable)
                ret = BENCHCTL_EXIT_UNREACHABLE;
        else if (ret == BENCHCTL_EXIT_OK && found == 0)
                ret = BENCHCTL_EXIT_NOT_FOUND;
finish:
        for (size_t i = 0; i < n; i++) {
                sd_bus_flush_close_unref(hosts[i].bus);
                free(hosts[i].name);
        }
        free(hosts);
        return ret;
}

/* ---- a fleet run in one history (gathered): show --fleet, report --fleet ---- */

static int cmp_str(const void *a, const void *b) {
        return strcmp(*(const char * const *) a, *(const char * const *) b);
}

int fleet_history(sd_bus *bus, const char *uuid, bool whole, json_object **ret) {
        _cleanup_json_ json_object *runs = NULL, *by_host = json_object_new_object(), *steps = NULL;
        _cleanup_free_ FleetView *views = NULL;
        _cleanup_free_ const char **names = NULL;
        size_t n = 0;
        int r;

        if (!fleet_uuid_valid(uuid)) {
                text_fprintf(stderr, "benchctl: --fleet: '%s' is not a fleet run's uuid; give the one benchctl run "
                             "printed (\"Fleet run 0f3c...\"), e.g. 6a1e3c0d-8d57-4b7e-9a3e-0c1d2e3f4a5b\n", uuid);
                return BENCHCTL_EXIT_USAGE;
        }
        if (!by_host)
                return BENCHCTL_EXIT_FAILURE;
        r = fleet_runs_load(bus, "fleet run", uuid, NULL, &runs);
        if (r != 0)
                return r;
        if (json_object_array_length(runs) == 0) {
                text_fprintf(stderr, "benchctl: no run of fleet run %s in this history; gather its hosts' runs first "
                             "(benchctl gather %s -H HOST... or --hosts FILE)\n", uuid, uuid);
                return BENCHCTL_EXIT_NOT_FOUND;
        }
        /* Each host's runs, oldest first as they came; the hosts by name. */
        for (size_t i = 0; i < json_object_array_length(runs); i++) {
                json_object *run = json_object_array_get_idx(runs, i), *list;
                const char *host = fleet_json_str(run, "fleet_host") ?: "?";

                if (!json_object_object_get_ex(by_host, host, &list)) {
                        list = json_object_new_array();
                        json_object_object_add(by_host, host, list);
                        n++;
                }
                json_object_array_add(list, json_object_get(run));
        }
        views = calloc(n, sizeof(FleetView));
        names = calloc(n, sizeof(char *));
        if (!views || !names)
                return BENCHCTL_EXIT_FAILURE;
        n = 0;
        json_object_object_foreach(by_host, key, val) {
                (void) val;
                names[n++] = key;
        }
        qsort(names, n, sizeof(char *), cmp_str);
        for (size_t i = 0; i < n; i++) {
                json_object *list = NULL;

                (void) json_object_object_get_ex(by_host, names[i], &list);
                views[i] = (FleetView) { .name = names[i], .runs = list };
        }
        steps = fleet_steps(views, n);
        if (!steps)
                return BENCHCTL_EXIT_FAILURE;
        *ret = fleet_result_json(uuid, views, n, steps, whole);
        return *ret ? 0 : BENCHCTL_EXIT_FAILURE;
}

/* Prints a result as fleet_history() makes it, through the one printing function. */
static void fleet_print_result(json_object *o) {
        json_object *hs = NULL, *steps = NULL;
        _cleanup_free_ FleetView *views = NULL;
        size_t n;

        (void) json_object_object_get_ex(o, "hosts", &hs);
        (void) json_object_object_get_ex(o, "all_hosts", &steps);
        n = hs ? json_object_array_length(hs) : 0;
        views = calloc(n ?: 1, sizeof(FleetView));
        if (!views)
                return;
        for (size_t i = 0; i < n; i++) {
                json_object *x = json_object_array_get_idx(hs, i), *runs = NULL;

                (void) json_object_object_get_ex(x, "runs", &runs);
                views[i] = (FleetView) { .name = fleet_json_str(x, "host"), .runs = runs, .missing = fleet_json_str(x, "missing") };
        }
        fleet_print(fleet_json_str(o, "fleet_uuid"), views, n, steps);
}

int fleet_show(const BenchctlOptions *opts) {
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
        _cleanup_json_ json_object *o = NULL;
        int r;

        r = bus_connect(opts, &bus);
        if (r != 0)
                return r;
        r = fleet_history(bus, opts->fleet, false, &o);
        if (r != 0)
                return r;
        if (opts->json)
                print_json(o);
        else
                fleet_print_result(o);
        return BENCHCTL_EXIT_OK;
}
