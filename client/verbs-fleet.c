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
 * when every host was measuring.
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
#include "text.h"

#define FLEET_CLOCK_SAMPLES 8
#define FLEET_START_AHEAD_USEC (300 * 1000)
#define FLEET_POLL_USEC (100 * 1000)

typedef struct FleetHost {
        char *name;
        sd_bus *bus;
        int64_t offset_us;     /* its clock minus ours */
        uint64_t rtt_us;
        bool beyond;           /* offset beyond the tolerance: started corrected */
        int open_error;        /* sd_bus_open_system_remote()'s, when it failed */
        uint64_t job;          /* 0: not submitted */
        char *job_path;
        bool ended;
        char *state;
        char *started_key;     /* the step/repeat/entry last started */
        json_object *runs;     /* QueryRuns at the end, oldest first */
        /* Lost mid-run (its benchd or the way to it stopped answering): why, and what it had
         * measured as far as benchctl saw it, from the Job's properties of the last answer. */
        bool lost;
        char *lost_why;
        char *phase;           /* Phase, last answer */
        int64_t step;          /* CurrentStep, last answer */
        bool have_live;        /* Live, last answer: the latest sample */
        int64_t live_t_ms;
        double live_mb_per_s, live_iops;
        json_object *run_ids;  /* Runs, last answer: [4, 5] */
} FleetHost;

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

static int hosts_push(FleetHost **hosts, size_t *n, const char *name) {
        FleetHost *a;

        for (size_t i = 0; i < *n; i++)
                if (streq((*hosts)[i].name, name)) {
                        text_fprintf(stderr, "benchctl: run: host '%s' is given twice; name each host once\n", name);
                        return -EINVAL;
                }
        a = realloc(*hosts, (*n + 1) * sizeof(FleetHost));
        if (!a)
                return -ENOMEM;
        *hosts = a;
        a[*n] = (FleetHost) { .name = strdup(name) };
        if (!a[*n].name)
                return -ENOMEM;
        (*n)++;
        return 0;
}

/* --hosts FILE: one [USER@]HOST a line; blank lines and # comments are skipped. */
static int hosts_read_file(const char *path, FleetHost **hosts, size_t *n) {
        _cleanup_free_ char *line = NULL;
        size_t size = 0;
        unsigned lineno = 0;
        FILE *f;
        int r = 0;

        f = fopen(path, "re");
        if (!f) {
                text_fprintf(stderr, "benchctl: --hosts %s: %s\n", path, strerror(errno));
                return -errno;
        }
        while (getline(&line, &size, f) >= 0) {
                char *s = line, *e, *c;

                lineno++;
                c = strchr(s, '#');
                if (c)
                        *c = 0;
                s += strspn(s, " \t\r\n");
                e = s + strlen(s);
                while (e > s && strchr(" \t\r\n", e[-1]))
                        *--e = 0;
                if (!*s)
                        continue;
                if (strpbrk(s, " \t") || s[0] == '-' || s[0] == '@' || e[-1] == '@') {
                        text_fprintf(stderr, "benchctl: --hosts %s:%u: '%s' is not [USER@]HOST; give one host a line\n",
                                     path, lineno, s);
                        r = -EINVAL;
                        break;
                }
                r = hosts_push(hosts, n, s);
                if (r < 0)
                        break;
        }
        fclose(f);
        if (r == 0 && *n == 0) {
                text_fprintf(stderr, "benchctl: --hosts %s: no host in the file\n", path);
                r = -EINVAL;
        }
        return r;
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
                        (void) asprintf(why, "%s", error.message ?: strerror(-r));
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
                             error.message ?: strerror(-r));
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
                text_fprintf(stderr, "benchctl: %s: submit: cannot build the call: %s\n", h->name, strerror(-r));
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
                text_fprintf(stderr, "benchctl: %s: submit: cannot parse the reply: %s\n", h->name, strerror(-r));
                return BENCHCTL_EXIT_FAILURE;
        }
        return 0;
}

static const char *json_str(json_object *o, const char *key) {
        json_object *v;
        return json_object_object_get_ex(o, key, &v) && json_object_is_type(v, json_type_string)
                       ? json_object_get_string(v) : NULL;
}

static bool json_num(json_object *o, const char *key, double *ret) {
        json_object *v;
        if (!json_object_object_get_ex(o, key, &v) || !v ||
            !(json_object_is_type(v, json_type_int) || json_object_is_type(v, json_type_double)))
                return false;
        *ret = json_object_get_double(v);
        return true;
}

static int64_t json_i64(json_object *o, const char *key) {
        json_object *v;
        return json_object_object_get_ex(o, key, &v) && v ? json_object_get_int64(v) : 0;
}

/* Keeps what the job's properties say it has measured, for the summary of a host lost later. */
static void host_note_progress(FleetHost *h, json_object *props) {
        json_object *live = NULL, *runs = NULL;
        double v;

        free(h->phase);
        h->phase = strdup(json_str(props, "Phase") ?: "");
        h->step = json_i64(props, "CurrentStep");
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
                h->lost_why = strdup(error.message ?: strerror(-r));
                text_fprintf(stderr, "benchctl: run: lost host %s (job %" PRIu64 "): %s; the other hosts go on\n",
                             h->name, h->job, error.message ?: strerror(-r));
                return 0;
        }
        host_note_progress(h, props);
        state = json_str(props, "State") ?: "";
        phase = json_str(props, "Phase") ?: "";
        entry = json_str(props, "Entry") ?: "";
        free(h->state);
        h->state = strdup(state);
        if (!streq(state, "queued") && !streq(state, "running")) {
                h->ended = true;
                return 0;
        }
        if (asprintf(&key, "%" PRIi64 "/%" PRIi64 "/%s", json_i64(props, "CurrentStep"),
                     json_i64(props, "CurrentRepeat"), entry) < 0)
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
                             error.message ?: strerror(-r));
                free(key);
                return r;
        }
        free(h->started_key);
        h->started_key = key;
        return 0;
}

static int host_query_runs(FleetHost *h, const char *uuid) {
        _cleanup_json_ json_object *filter = json_object_new_object(), *runs = NULL;
        int r;

        if (!filter)
                return -ENOMEM;
        json_object_object_add(filter, "fleet_uuid", json_object_new_string(uuid));
        json_object_object_add(filter, "limit", json_object_new_uint64(10000));
        r = bus_call_manager_filter_json(h->bus, h->name, "QueryRuns", filter, &runs);
        if (r != 0)
                return r;
        /* Newest first: turn it round, so that the i-th run of each host is the same step. */
        h->runs = json_object_new_array();
        for (size_t i = json_object_array_length(runs); i > 0; i--)
                json_object_array_add(h->runs, json_object_get(json_object_array_get_idx(runs, i - 1)));
        return 0;
}

/* A run's samples as [begin, end) on OUR clock, and its bytes and I/Os. */
typedef struct Span {
        int64_t begin, end;
        uint64_t bytes, ios;
} Span;

static int run_spans(FleetHost *h, json_object *run, Span **ret, size_t *ret_n) {
        _cleanup_json_ json_object *samples = NULL;
        uint64_t id = (uint64_t) json_i64(run, "id");
        /* The measured phase began at started_usec on the host's clock: ours is that minus the offset. */
        int64_t base = json_i64(run, "started_usec") - json_i64(run, "fleet_clock_offset_us");
        Span *s;
        size_t n;
        int r;

        r = bus_call_manager_json(h->bus, h->name, "GetSamples", &samples, "t", id);
        if (r != 0)
                return r;
        n = json_object_array_length(samples);
        s = calloc(n ?: 1, sizeof(Span));
        if (!s)
                return -ENOMEM;
        for (size_t i = 0; i < n; i++) {
                json_object *x = json_object_array_get_idx(samples, i);
                s[i].end = base + json_i64(x, "t_ms") * 1000;
                s[i].begin = s[i].end - json_i64(x, "interval_us");
                s[i].bytes = (uint64_t) (json_i64(x, "bytes_read") + json_i64(x, "bytes_written"));
                s[i].ios = (uint64_t) (json_i64(x, "ios_read") + json_i64(x, "ios_written"));
        }
        *ret = s;
        *ret_n = n;
        return 0;
}

/* The fleet's figures of step i: each host's samples that lie within the common interval (from the
 * last host's start to the first host's last sample, on our clock; a sample whose begin is within
 * 1 ms before it counts, the rounding of t_ms), its rate over them, and their sum. */
static json_object *fleet_step(FleetHost *hosts, size_t n, size_t i) {
        json_object *o = json_object_new_object(), *per = json_object_new_array();
        _cleanup_free_ Span **spans = calloc(n, sizeof(Span *));
        _cleanup_free_ size_t *counts = calloc(n, sizeof(size_t));
        int64_t cs = INT64_MIN, ce = INT64_MAX, first_done = INT64_MAX, last_done = INT64_MIN;
        const char *first_host = NULL, *last_host = NULL;
        double sum_bps = 0, sum_iops = 0, min_mib = INFINITY, max_mib = -INFINITY, sum_mib = 0;
        size_t members = 0;
        bool common = true;

        if (!o || !per || !spans || !counts) {
                json_object_put(o);
                json_object_put(per);
                return NULL;
        }
        for (size_t h = 0; h < n; h++) {
                json_object *run;
                const char *status;
                double mib;
                int64_t done, base;

                counts[h] = 0;
                if (!hosts[h].runs || i >= json_object_array_length(hosts[h].runs))
                        continue;
                run = json_object_array_get_idx(hosts[h].runs, i);
                status = json_str(run, "status");
                if (!streq_ptr(status, "succeeded"))
                        continue;
                if (run_spans(&hosts[h], run, &spans[h], &counts[h]) != 0 || counts[h] == 0) {
                        common = false;
                        continue;
                }
                members++;
                base = json_i64(run, "started_usec") - json_i64(run, "fleet_clock_offset_us");
                done = base + json_i64(run, "duration_usec");
                if (done < first_done) {
                        first_done = done;
                        first_host = hosts[h].name;
                }
                if (done > last_done) {
                        last_done = done;
                        last_host = hosts[h].name;
                }
                if (base > cs)
                        cs = base;
                if (spans[h][counts[h] - 1].end < ce)
                        ce = spans[h][counts[h] - 1].end;
                if (json_num(run, "mib_per_s", &mib)) {
                        sum_mib += mib;
                        min_mib = MIN(min_mib, mib);
                        max_mib = MAX(max_mib, mib);
                }
        }
        json_object_object_add(o, "hosts", json_object_new_uint64(members));
        if (members < 2 || !common || ce <= cs) {
                json_object_object_add(o, "common_usec", json_object_new_int64(0));
                json_object_put(per);
                goto finish;
        }
        for (size_t h = 0; h < n; h++) {
                uint64_t bytes = 0, ios = 0, usec = 0;
                json_object *x;

                if (!spans[h] || counts[h] == 0)
                        continue;
                for (size_t k = 0; k < counts[h]; k++)
                        if (spans[h][k].begin >= cs - 1000 && spans[h][k].end <= ce) {
                                bytes += spans[h][k].bytes;
                                ios += spans[h][k].ios;
                                usec += (uint64_t) (spans[h][k].end - spans[h][k].begin);
                        }
                if (usec == 0) {
                        common = false;
                        break;
                }
                x = json_object_new_object();
                json_object_object_add(x, "host", json_object_new_string(hosts[h].name));
                json_object_object_add(x, "bytes", json_object_new_uint64(bytes));
                json_object_object_add(x, "ios", json_object_new_uint64(ios));
                json_object_object_add(x, "usec", json_object_new_uint64(usec));
                json_object_array_add(per, x);
                sum_bps += (double) bytes * 1e6 / (double) usec;
                sum_iops += (double) ios * 1e6 / (double) usec;
        }
        json_object_object_add(o, "per_host", per);
        json_object_object_add(o, "common_usec", json_object_new_int64(common ? ce - cs : 0));
        if (common) {
                json_object_object_add(o, "bytes_per_s", json_object_new_double(sum_bps));
                json_object_object_add(o, "mib_per_s", json_object_new_double(sum_bps / (1024.0 * 1024.0)));
                json_object_object_add(o, "iops", json_object_new_double(sum_iops));
        }
finish:
        if (first_host) {
                json_object_object_add(o, "first_done", json_object_new_string(first_host));
                json_object_object_add(o, "last_done", json_object_new_string(last_host));
                json_object_object_add(o, "done_apart_usec", json_object_new_int64(last_done - first_done));
        }
        if (members >= 2 && sum_mib > 0)
                json_object_object_add(o, "spread_pct",
                                       json_object_new_double((max_mib - min_mib) / (sum_mib / members) * 100));
        for (size_t h = 0; h < n; h++)
                free(spans[h]);
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

static void print_summary(FleetHost *hosts, size_t n, const char *uuid, json_object *steps) {
        printf("Fleet run %s:\n", uuid);
        for (size_t h = 0; h < n; h++) {
                size_t m = hosts[h].runs ? json_object_array_length(hosts[h].runs) : 0;

                if (!hosts[h].bus) {
                        text_printf("  %-20s missing\n", hosts[h].name);
                        continue;
                }
                if (hosts[h].lost) {
                        host_print_lost(&hosts[h]);
                        continue;
                }
                if (m == 0)
                        text_printf("  %-20s job %" PRIu64 " %s, no run\n", hosts[h].name, hosts[h].job,
                                    strna(hosts[h].state));
                for (size_t i = 0; i < m; i++) {
                        json_object *run = json_object_array_get_idx(hosts[h].runs, i);
                        double mib = 0, iops = 0;
                        bool has_mib = json_num(run, "mib_per_s", &mib), has_iops = json_num(run, "iops", &iops);

                        text_printf("  %-20s run %" PRIi64 " %-10s %-10s", hosts[h].name, json_i64(run, "id"),
                                    strna(json_str(run, "workload")), strna(json_str(run, "status")));
                        if (has_mib)
                                printf(" %10.2f MiB/s", mib);
                        if (has_iops)
                                printf(" %10.0f IOPS", iops);
                        printf("   (clock %+.3f ms, rtt %.3f ms%s)\n", hosts[h].offset_us / 1000.0,
                               hosts[h].rtt_us / 1000.0, hosts[h].beyond ? ", start corrected" : "");
                }
        }
        for (size_t i = 0; i < json_object_array_length(steps); i++) {
                json_object *s = json_object_array_get_idx(steps, i);
                double mib, iops, spread;

                printf("  all hosts, step %zu:", i);
                if (json_i64(s, "common_usec") > 0 && json_num(s, "mib_per_s", &mib) && json_num(s, "iops", &iops))
                        printf(" %.2f MiB/s, %.0f IOPS over the %.3f s every host of %" PRIi64 " was measuring;",
                               mib, iops, json_i64(s, "common_usec") / 1e6, json_i64(s, "hosts"));
                else
                        printf(" no interval when every host was measuring;");
                if (json_str(s, "first_done"))
                        text_printf(" first done %s, last done %s (+%.3f s)", json_str(s, "first_done"),
                                    json_str(s, "last_done"), json_i64(s, "done_apart_usec") / 1e6);
                if (json_num(s, "spread_pct", &spread))
                        printf("; spread of the hosts' MiB/s %.1f%%", spread);
                printf("\n");
        }
}

int fleet_run(const BenchctlOptions *opts, char **host_args, const char *hosts_file, bool allow_missing, bool clock_correct) {
        _cleanup_json_ json_object *spec = NULL, *steps = NULL;
        FleetHost *hosts = NULL;
        size_t n = 0, live = 0, n_steps = 0;
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
                fprintf(stderr, "benchctl: run: cannot make a uuid: %s\n", strerror(-r));
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
                        n_steps++;
                }
                for (size_t i = 0; i < n; i++)
                        free(keys[i]);
                fleet_signal_check(&stop_set, FLEET_POLL_USEC);
        }

        steps = json_object_new_array();
        for (size_t i = 0; i < n; i++) {
                if (!hosts[i].bus)
                        continue;
                if (hosts[i].lost) {
                        /* Its runs stay in its history; the way to them is what was lost. */
                        ret = BENCHCTL_EXIT_UNREACHABLE;
                        continue;
                }
                if (hosts[i].state && !streq(hosts[i].state, "succeeded") && ret == BENCHCTL_EXIT_OK)
                        ret = BENCHCTL_EXIT_FAILURE;
                if (host_query_runs(&hosts[i], uuid) != 0)
                        ret = BENCHCTL_EXIT_FAILURE;
                else
                        n_steps = MAX(n_steps, json_object_array_length(hosts[i].runs));
        }
        for (size_t s = 0; s < n_steps; s++)
                json_object_array_add(steps, fleet_step(hosts, n, s) ?: json_object_new_object());
        if (opts->json) {
                _cleanup_json_ json_object *o = json_object_new_object(), *hs = json_object_new_array();
                json_object_object_add(o, "fleet_uuid", json_object_new_string(uuid));
                for (size_t i = 0; i < n; i++) {
                        json_object *x = json_object_new_object();
                        json_object_object_add(x, "host", json_object_new_string(hosts[i].name));
                        json_object_object_add(x, "reachable", json_object_new_boolean(!!hosts[i].bus));
                        if (hosts[i].bus) {
                                json_object_object_add(x, "job", json_object_new_uint64(hosts[i].job));
                                json_object_object_add(x, "state", json_object_new_string(strna(hosts[i].state)));
                                json_object_object_add(x, "clock_offset_us", json_object_new_int64(hosts[i].offset_us));
                                json_object_object_add(x, "rtt_us", json_object_new_uint64(hosts[i].rtt_us));
                                json_object_object_add(x, "start_corrected", json_object_new_boolean(hosts[i].beyond));
                                json_object_object_add(x, "runs", json_object_get(hosts[i].runs));
                                json_object_object_add(x, "lost", json_object_new_boolean(hosts[i].lost));
                                if (hosts[i].lost)
                                        json_object_object_add(x, "lost_in", host_lost_json(&hosts[i]));
                        }
                        json_object_array_add(hs, x);
                }
                json_object_object_add(o, "hosts", json_object_get(hs));
                json_object_object_add(o, "all_hosts", json_object_get(steps));
                print_json(o);
        } else
                print_summary(hosts, n, uuid, steps);

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
                        text_fprintf(stderr, "%s: unreachable: cannot connect: %s\n", h->name, strerror(-r));
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
                        const char *state = json_str(job, "State"), *text = json_str(job, "Spec"), *u;
                        uint64_t job_id = (uint64_t) json_i64(job, "Id");
                        sd_id128_t jid;

                        if (!text || !(spec = json_tokener_parse(text)))
                                continue;
                        u = json_str(spec, "fleet_uuid");
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
                                             error.message ?: strerror(-r));
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
