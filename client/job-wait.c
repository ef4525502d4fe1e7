/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Following one job (job-wait.h). The job's properties are kept as one JSON object, seeded by
 * GetAll and patched by PropertiesChanged; the progress line is redrawn from it. The end is
 * Manager.JobRemoved (or a final State already seen, for jobs that ended before we looked), and
 * benchd leaving the bus ends the wait as a failure rather than hanging.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "benchctl.h"
#include "bus.h"
#include "format.h"
#include "job-wait.h"
#include "record.h"
#include "table.h"
#include "model.h"
#include "text.h"

struct JobWait {
        sd_bus *bus;
        sd_bus_slot *slot_removed;
        sd_bus_slot *slot_changed;
        sd_bus_slot *slot_owner;

        uint64_t id;
        char *path;
        json_object *props;
        char *result;           /* from JobRemoved */
        bool done;
        bool daemon_gone;
        bool json;              /* --json */
        bool tty;
        bool line_shown;
};

static volatile sig_atomic_t interrupted = 0;

static void on_sigint(int sig) {
        interrupted = 1;
}

int job_path(uint64_t id, char **ret) {
        return asprintf(ret, BENCHD_JOB_PATH_PREFIX "/%" PRIu64, id) < 0 ? -ENOMEM : 0;
}

static void clear_line(JobWait *w) {
        if (w->tty && w->line_shown) {
                fputs("\r\033[K", stdout);
                fflush(stdout);
                w->line_shown = false;
        }
}

/* The until_stddev the job was submitted with ("5", "2.5"), from its Spec, into buf; NULL for none. */
const char *job_until_stddev(json_object *props, char *buf, size_t size) {
        _cleanup_json_ json_object *spec = NULL;
        const char *text = rec_str(props, "Spec"), *v;

        if (!text || !(spec = json_tokener_parse(text)))
                return NULL;
        v = rec_str(spec, "until_stddev");
        if (!v || !*v || streq(v, "0"))
                return NULL;
        snprintf(buf, size, "%s", v);
        return buf;
}

/* "step 2 of 3 write, repeat 2/5", for the progress line and benchctl status; a filesystem matrix
 * says which entry runs first and counts rounds: "ext4 on loop0, step 3 of 4 write, round 2/3". */
void job_where_text(json_object *props, bool compact, char *buf, size_t size) {
        char rep[FORMAT_BUF_MAX * 2], until[32];
        uint64_t step = rec_u64_or(props, "CurrentStep", 0), steps = rec_u64_or(props, "Steps", 0);
        const char *what = rec_str(props, "Workload"), *entry = rec_str(props, "Entry");
        bool matrix = entry && *entry;
        size_t n = 0;

#define APPEND(...) do { if (n < size) n += snprintf(buf + n, size - n, __VA_ARGS__); } while (0)
        if (size > 0)
                buf[0] = 0;
        if (matrix)
                APPEND("%s", entry);
        if (steps > 1)
                APPEND("%sstep %" PRIu64 " of %" PRIu64, n > 0 ? ", " : "", step + 1, steps);
        if (what && *what)
                APPEND("%s%s", n > 0 ? " " : "", what);
        /* A matrix with repeats runs in rounds: its CurrentRepeat is the round. */
        format_repeat(rep, sizeof rep, matrix, rec_u64_or(props, "CurrentRepeat", 0), rec_u64_or(props, "Repeats", 1),
                      compact ? NULL : job_until_stddev(props, until, sizeof until));
        if (*rep)
                APPEND("%s%s", n > 0 ? ", " : "", rep);
#undef APPEND
}

/* The progress line; compact drops what matters least (the job id, the phase, long labels) so the
 * figures fit an 80-column terminal. */
static void format_line(JobWait *w, bool compact, char *line, size_t size) {
        char a[FORMAT_BUF_MAX];
        const char *state = rec_str(w->props, "State") ?: "unknown";
        const char *phase = rec_str(w->props, "Phase");
        json_object *live = NULL;
        const char *sep = compact ? " " : "  ";
        size_t n = 0;
        double v;

#define APPEND(...) do { if (n < size) n += snprintf(line + n, size - n, __VA_ARGS__); } while (0)
        if (compact)
                APPEND("%s", state);
        else
                APPEND("Job %" PRIu64 " %s", w->id, state);
        if (streq(state, "running")) {
                char where[FORMAT_BUF_MAX * 4];
                uint64_t started = rec_u64_or(w->props, "StartedUSec", 0), now = now_usec(CLOCK_REALTIME);

                job_where_text(w->props, compact, where, sizeof where);
                if (*where)
                        APPEND(", %s", where);
                if (phase && *phase && !compact)
                        APPEND(" (%s)", phase);
                if (rec_double(w->props, "Progress", &v)) {
                        APPEND("%s%3.0f%%", sep, MIN(MAX(v, 0.0), 1.0) * 100.0);
                        format_time_left(a, sizeof a, started > 0 && now > started ? now - started : 0, v);
                        if (*a)
                                APPEND(" %s", a);
                }
                json_object_object_get_ex(w->props, "Live", &live);
                if (live && json_object_is_type(live, json_type_object) && json_object_object_length(live) > 0) {
                        /* benchd's mb_per_s is 10^6 bytes/s; we show MiB/s everywhere. */
                        if (rec_double(live, "mb_per_s", &v))
                                APPEND("%s%s", sep, format_rate(a, sizeof a, v * 1e6, true));
                        if (rec_double(live, "iops", &v))
                                APPEND("%s%s IOPS", sep, format_iops(a, sizeof a, v));
                        if (rec_double(live, "lat_p99_us", &v))
                                APPEND("%sp99 %s", sep, format_latency_ns(a, sizeof a, v * 1e3));
                        if (rec_double(live, "iowait_pct", &v))
                                APPEND("%s%s %s", sep, compact ? "iow" : "iowait", format_pct(a, sizeof a, v));
                }
        }
#undef APPEND
}

static void draw_line(JobWait *w) {
        _cleanup_free_ char *shown = NULL;
        char line[512];
        size_t width;

        if (!w->tty)
                return;

        width = terminal_width();
        format_line(w, false, line, sizeof line);
        if (width > 1 && text_width(line) > width - 1)
                format_line(w, true, line, sizeof line);
        /* The daemon's words (phase, workload, target) escaped: only our \r and ESC [K are control. */
        shown = text_escape(line);
        if (!shown)
                return;

        /* The line must not wrap, or \r would not take us back to its start. */
        if (width > 1 && utf8_width(shown) > width - 1) {
                size_t cols = 0;
                for (char *p = shown; *p; p++)
                        if ((*p & 0xc0) != 0x80 && ++cols > width - 1) {
                                *p = '\0';
                                break;
                        }
        }
        fprintf(stdout, "\r\033[K%s", shown);
        fflush(stdout);
        w->line_shown = true;
}

static int refresh_props(JobWait *w) {
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        json_object *props = NULL;
        int r;

        r = bus_get_all_json(w->bus, w->path, BENCHD_JOB_IFACE, &error, &props);
        if (r < 0)
                return r;
        json_object_put(w->props);
        w->props = props;
        return 0;
}

static int on_job_removed(sd_bus_message *m, void *userdata, sd_bus_error *ret_error) {
        JobWait *w = userdata;
        const char *path, *result;
        uint64_t id;
        int r;

        r = sd_bus_message_read(m, "tos", &id, &path, &result);
        if (r < 0 || w->id == 0 || id != w->id)
                return 0;
        free(w->result);
        /* "succeeded; not stored: ..." when the database lost part of the job: the state is the
         * first word, the rest is in the job's Error. */
        w->result = strndup(result, strcspn(result, ";"));
        w->done = true;
        return 0;
}

static int on_properties_changed(sd_bus_message *m, void *userdata, sd_bus_error *ret_error) {
        JobWait *w = userdata;
        _cleanup_json_ json_object *changed = NULL, *invalidated = NULL;
        const char *iface;
        int r;

        if (!w->path || !streq_ptr(sd_bus_message_get_path(m), w->path))
                return 0;
        r = sd_bus_message_read(m, "s", &iface);
        if (r < 0 || !streq(iface, BENCHD_JOB_IFACE))
                return 0;
        r = bus_message_read_json(m, &changed);
        if (r < 0)
                return 0;
        if (!w->props)
                w->props = json_object_new_object();
        json_object_object_foreach(changed, key, value)
                json_object_object_add(w->props, key, json_object_get(value));

        if (bus_message_read_json(m, &invalidated) >= 0 && json_object_is_type(invalidated, json_type_array) &&
            json_object_array_length(invalidated) > 0)
                (void) refresh_props(w);

        /* A final State is not the end yet: JobRemoved comes after the last Runs and Error. */
        draw_line(w);
        return 0;
}

static int on_name_owner_changed(sd_bus_message *m, void *userdata, sd_bus_error *ret_error) {
        JobWait *w = userdata;
        const char *name, *old_owner, *new_owner;

        if (sd_bus_message_read(m, "sss", &name, &old_owner, &new_owner) < 0)
                return 0;
        if (streq(name, BENCHD_BUS_NAME) && (!new_owner || !*new_owner)) {
                w->daemon_gone = true;
                w->done = true;
        }
        return 0;
}

int job_wait_new(sd_bus *bus, bool json, JobWait **ret) {
        _cleanup_(job_wait_freep) JobWait *w = NULL;
        int r;

        w = calloc(1, sizeof(JobWait));
        if (!w)
                return BENCHCTL_EXIT_FAILURE;
        w->bus = sd_bus_ref(bus);
        w->json = json;
        w->tty = isatty(STDOUT_FILENO) && !json;

        r = sd_bus_match_signal(bus, &w->slot_removed, BENCHD_BUS_NAME, BENCHD_MANAGER_PATH,
                                BENCHD_MANAGER_IFACE, "JobRemoved", on_job_removed, w);
        if (r >= 0)
                r = sd_bus_add_match(bus, &w->slot_changed,
                                     "type='signal',sender='" BENCHD_BUS_NAME "',"
                                     "interface='org.freedesktop.DBus.Properties',member='PropertiesChanged',"
                                     "path_namespace='" BENCHD_JOB_PATH_PREFIX "',"
                                     "arg0='" BENCHD_JOB_IFACE "'",
                                     on_properties_changed, w);
        if (r >= 0)
                r = sd_bus_match_signal(bus, &w->slot_owner, "org.freedesktop.DBus", "/org/freedesktop/DBus",
                                        "org.freedesktop.DBus", "NameOwnerChanged", on_name_owner_changed, w);
        if (r < 0) {
                text_fprintf_errno(stderr, r, "benchctl: cannot subscribe to job signals: %m\n");
                return r == -ECONNRESET || r == -ENOTCONN ? BENCHCTL_EXIT_UNREACHABLE : BENCHCTL_EXIT_FAILURE;
        }
        *ret = TAKE_PTR(w);
        return 0;
}

JobWait *job_wait_free(JobWait *w) {
        if (!w)
                return NULL;
        sd_bus_slot_unref(w->slot_removed);
        sd_bus_slot_unref(w->slot_changed);
        sd_bus_slot_unref(w->slot_owner);
        sd_bus_unref(w->bus);
        free(w->path);
        free(w->result);
        json_object_put(w->props);
        free(w);
        return NULL;
}

int job_get(sd_bus *bus, uint64_t id, json_object **ret) {
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        _cleanup_json_ json_object *filter = json_object_new_object(), *jobs = NULL;
        _cleanup_free_ char *path = NULL;
        char what[64];
        int r;

        snprintf(what, sizeof what, "job %" PRIu64, id);
        if (job_path(id, &path) < 0 || !filter)
                return BENCHCTL_EXIT_FAILURE;
        r = bus_get_all_json(bus, path, BENCHD_JOB_IFACE, &error, ret);
        if (r >= 0)
                return 0;
        if (!sd_bus_error_has_names(&error, SD_BUS_ERROR_UNKNOWN_OBJECT, SD_BUS_ERROR_UNKNOWN_INTERFACE,
                                    SD_BUS_ERROR_UNKNOWN_METHOD))
                return bus_error_exit(what, &error, r);

        json_object_object_add(filter, "all", json_object_new_boolean(true));
        r = list_jobs(bus, what, filter, &jobs);
        if (r != 0)
                return r;
        for (size_t i = 0; i < json_object_array_length(jobs); i++) {
                json_object *j = json_object_array_get_idx(jobs, i);
                if (rec_u64_or(j, "Id", 0) == id) {
                        *ret = json_object_get(j);
                        return 0;
                }
        }
        text_fprintf(stderr, "benchctl: %s: no such job\n", what);
        return BENCHCTL_EXIT_NOT_FOUND;
}

/* "ext4 on loop0: " for a run of a filesystem matrix entry, else "". */
static void run_place(json_object *run, char *buf, size_t size) {
        const char *fs = rec_str(run, "fs_type"), *layout = rec_str(run, "layout"), *members = rec_str(run, "members");
        _cleanup_json_ json_object *m = members ? json_tokener_parse(members) : NULL;
        size_t n = 0;

        if (size > 0)
                buf[0] = 0;
        if (!layout || !m || !json_object_is_type(m, json_type_array))
                return;
#define APPEND(...) do { if (n < size) n += snprintf(buf + n, size - n, __VA_ARGS__); } while (0)
        APPEND("%s%s%s on ", fs ?: "?", streq(layout, "single") ? "" : " ", streq(layout, "single") ? "" : layout);
        for (size_t i = 0; i < json_object_array_length(m); i++) {
                const char *d = json_object_get_string(json_object_array_get_idx(m, i)) ?: "?", *slash = strrchr(d, '/');

                APPEND("%s%s", i > 0 ? "+" : "", slash ? slash + 1 : d);
        }
        APPEND(": ");
#undef APPEND
}

/* "run 5: write 32 KiB: 512 MiB/s, 16.4k IOPS, p99 1.23 ms"; "run 7: ext4 on loop0: write 32 KiB
 * (round 2): ..." for a matrix. */
static void print_run_line(sd_bus *bus, uint64_t run) {
        _cleanup_json_ json_object *o = NULL;
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        char a[FORMAT_BUF_MAX], b[FORMAT_BUF_MAX], c[FORMAT_BUF_MAX], d[FORMAT_BUF_MAX], e[FORMAT_BUF_MAX];
        char rep[48] = "", steady[FORMAT_BUF_MAX + 32] = "", place[256];
        const char *status, *workload;
        uint64_t duration, round;

        if (sd_bus_call_method(bus, BENCHD_BUS_NAME, BENCHD_MANAGER_PATH, BENCHD_MANAGER_IFACE, "GetRun",
                               &error, &reply, "t", run) < 0 ||
            bus_message_read_json(reply, &o) < 0) {
                printf("  run %" PRIu64 "\n", run);
                return;
        }
        status = rec_str(o, "status");
        if (!status || streq(status, "succeeded"))
                status = "";
        workload = rec_str(o, "workload") ?: "?";
        run_place(o, place, sizeof place);
        if (!rec_u64(o, "duration_usec", &duration) || duration == 0) {
                /* No summary (cancelled, failed early): nothing was measured. */
                text_printf("  run %" PRIu64 ": %s%s %s: %s\n", run, place, workload,
                            format_bytes(a, sizeof a, rec_u64_or(o, "block_size", 0)), *status ? status : "no result");
                return;
        }
        if (rec_u64(o, "round", &round))
                snprintf(rep, sizeof rep, " (round %" PRIu64 ")", round + 1);
        else if (rec_u64_or(o, "repeat", 0) > 0)
                snprintf(rep, sizeof rep, " (repeat %" PRIu64 ")", rec_u64_or(o, "repeat", 0) + 1);
        if (rec_u64_or(o, "steady_state", 0) == 1)
                snprintf(steady, sizeof steady, ", steady after %s",
                         format_duration(e, sizeof e, rec_u64_or(o, "steady_state_usec", 0)));
        text_printf("  run %" PRIu64 ": %s%s %s%s: %s, %s IOPS, p99 %s%s%s%s\n", run, place, workload,
                    format_bytes(a, sizeof a, rec_u64_or(o, "block_size", 0)), rep,
                    format_rate(b, sizeof b, run_bytes_per_sec(o), true),
                    format_iops(c, sizeof c, run_iops(o)),
                    format_latency_ns(d, sizeof d, run_latency_ns(o, "p99")), steady,
                    *status ? ", " : "", status);
}

void job_add_runs_from_history(sd_bus *bus, uint64_t id, json_object *props) {
        _cleanup_json_ json_object *filter = json_object_new_object(), *found = NULL;
        json_object *ids;
        size_t n;

        if (!filter)
                return;
        if (json_object_object_get_ex(props, "Runs", NULL))
                return;
        json_object_object_add(filter, "job", json_object_new_uint64(id));
        if (query_runs_quiet(bus, filter, &found) < 0)
                return;
        ids = json_object_new_array();
        if (!ids)
                return;
        n = json_object_array_length(found);
        for (size_t i = n; i > 0; i--) /* newest first -> step order */
                json_object_array_add(ids, json_object_new_uint64(run_id(json_object_array_get_idx(found, i - 1))));
        json_object_object_add(props, "Runs", ids);
}

static int print_result(JobWait *w) {
        const char *state = rec_str(w->props, "State");
        const char *error = rec_str(w->props, "Error");
        uint64_t started = rec_u64_or(w->props, "StartedUSec", 0), finished = rec_u64_or(w->props, "FinishedUSec", 0);
        json_object *runs = NULL;
        char a[FORMAT_BUF_MAX];
        size_t n_runs = 0;

        if (!job_state_is_final(job_state_from_string(state)))
                state = w->result ?: state ?: "unknown";

        if (w->json) {
                /* JSON of the job as it ended; State from JobRemoved when the object lagged. */
                bool ok = streq(state, "succeeded");
                if (!w->props)
                        w->props = json_object_new_object();
                job_add_runs_from_history(w->bus, w->id, w->props);
                if (!streq_ptr(rec_str(w->props, "State"), state))
                        json_object_object_add(w->props, "State", json_object_new_string(state));
                print_json(w->props);
                return ok ? BENCHCTL_EXIT_OK : BENCHCTL_EXIT_FAILURE;
        }

        job_add_runs_from_history(w->bus, w->id, w->props);
        json_object_object_get_ex(w->props, "Runs", &runs);
        if (runs && json_object_is_type(runs, json_type_array))
                n_runs = json_object_array_length(runs);

        text_printf("Job %" PRIu64 " %s", w->id, state);
        if (started > 0 && finished >= started)
                printf(" after %s", format_duration(a, sizeof a, finished - started));
        if (error && *error)
                text_printf(": %s", error);
        if (n_runs > 0) {
                printf("; run%s", n_runs == 1 ? "" : "s");
                for (size_t i = 0; i < n_runs; i++)
                        printf(" %" PRIu64, (uint64_t) json_object_get_uint64(json_object_array_get_idx(runs, i)));
        }
        printf(".\n");
        for (size_t i = 0; i < n_runs; i++)
                print_run_line(w->bus, (uint64_t) json_object_get_uint64(json_object_array_get_idx(runs, i)));

        return streq(state, "succeeded") ? BENCHCTL_EXIT_OK : BENCHCTL_EXIT_FAILURE;
}

int job_wait_run(JobWait *w, uint64_t id) {
        struct sigaction sa = { .sa_handler = on_sigint }, old_int, old_term;
        int r, ret;

        w->id = id;
        r = job_path(id, &w->path);
        if (r < 0)
                return BENCHCTL_EXIT_FAILURE;

        /* From the object, or from the database for a job that ended long ago. */
        r = job_get(w->bus, id, &w->props);
        if (r != 0)
                return r;
        if (job_state_is_final(job_state_from_string(rec_str(w->props, "State")))) {
                ret = print_result(w);
                return ret;
        }

        sigemptyset(&sa.sa_mask);
        sigaction(SIGINT, &sa, &old_int);
        sigaction(SIGTERM, &sa, &old_term);

        draw_line(w);
        while (!w->done && !interrupted) {
                r = sd_bus_process(w->bus, NULL);
                if (r < 0)
                        break;
                if (r > 0)
                        continue;
                r = sd_bus_wait(w->bus, UINT64_MAX);
                if (r < 0 && r != -EINTR)
                        break;
        }
        clear_line(w);

        sigaction(SIGINT, &old_int, NULL);
        sigaction(SIGTERM, &old_term, NULL);

        if (interrupted) {
                fprintf(stderr, "benchctl: stopped waiting; job %" PRIu64 " goes on (benchctl watch %" PRIu64
                        ", benchctl cancel %" PRIu64 ")\n", id, id, id);
                return BENCHCTL_EXIT_FAILURE;
        }
        if (!w->done) {
                text_fprintf_errno(stderr, r, "benchctl: job %" PRIu64 ": lost the bus connection: %m\n", id);
                return BENCHCTL_EXIT_UNREACHABLE;
        }
        if (w->daemon_gone) {
                fprintf(stderr, "benchctl: job %" PRIu64 ": benchd left the bus before the job ended\n", id);
                return BENCHCTL_EXIT_UNREACHABLE;
        }

        /* The object stays for a while after the end: take the final Runs and Error from it. */
        (void) refresh_props(w);
        ret = print_result(w);
        return ret;
}
