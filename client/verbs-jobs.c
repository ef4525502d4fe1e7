/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The job verbs: submit, run, jobs, status, watch, cancel, profiles, help spec. submit sends the
 * spec job-spec.c builds from the options (every --set checked locally with the same spec code
 * benchd uses, so a typo is reported before anything is sent; benchd still validates the whole
 * spec); run and cancel with several hosts are verbs-fleet.c's.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "benchctl.h"
#include "bus.h"
#include "format.h"
#include "job-wait.h"
#include "model.h"
#include "record.h"
#include "shared/spec.h"
#include "table.h"
#include "text.h"

static int do_submit(const BenchctlOptions *opts, bool wait) {
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *m = NULL, *reply = NULL;
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        _cleanup_json_ json_object *spec = NULL;
        _cleanup_(job_wait_freep) JobWait *w = NULL;
        const char *path;
        uint64_t id;
        int r;

        r = job_spec_build(opts, &spec);
        if (r != 0)
                return r;
        r = bus_connect(opts, &bus);
        if (r != 0)
                return r;
        if (wait) {
                r = job_wait_new(bus, opts->json, &w); /* before SubmitJob: a fast job must not end unseen */
                if (r != 0)
                        return r;
        }

        r = bus_new_manager_call(bus, "SubmitJob", &m);
        if (r >= 0)
                r = sd_bus_message_set_allow_interactive_authorization(m, isatty(STDIN_FILENO));
        if (r >= 0)
                r = bus_append_filter(m, spec);
        if (r < 0) {
                text_fprintf_errno(stderr, r, "benchctl: submit: cannot build the call: %m\n");
                return BENCHCTL_EXIT_FAILURE;
        }
        /* benchd answers once the targets are checked, and refuses a check that takes longer than
         * 60 s: wait beyond that, not the bus's default 25 s. */
        r = sd_bus_call(bus, m, 90 * USEC_PER_SEC, &error, &reply);
        if (r < 0)
                return bus_error_exit("submit", &error, r);
        r = sd_bus_message_read(reply, "to", &id, &path);
        if (r < 0) {
                text_fprintf_errno(stderr, r, "benchctl: submit: cannot parse the reply: %m\n");
                return BENCHCTL_EXIT_FAILURE;
        }

        if (!wait) {
                if (opts->json) {
                        _cleanup_json_ json_object *o = json_object_new_object();
                        json_object_object_add(o, "id", json_object_new_uint64(id));
                        json_object_object_add(o, "job", json_object_new_string(path));
                        print_json(o);
                } else
                        printf("Job %" PRIu64 " queued.\n", id);
                return BENCHCTL_EXIT_OK;
        }
        if (!opts->json && isatty(STDOUT_FILENO) == 0)
                fprintf(stderr, "Job %" PRIu64 " queued, waiting for it to end.\n", id);
        return job_wait_run(w, id);
}

int verb_submit(int argc, char **argv, const BenchctlOptions *opts) {
        return do_submit(opts, opts->wait);
}

int verb_run(int argc, char **argv, const BenchctlOptions *opts) {
        /* Several hosts (or a list of them): a fleet run (verbs-fleet.c). */
        if ((opts->hosts && opts->hosts[1]) || opts->hosts_file)
                return fleet_run(opts, opts->hosts, opts->hosts_file, opts->allow_missing, opts->clock_correct);
        if (opts->allow_missing || opts->clock_correct || opts->collect) {
                /* One host: a fleet of one (its start timed and tagged as any fleet's), not the
                 * options silently ignored. */
                if (!opts->hosts || opts->transport != BUS_TRANSPORT_REMOTE) {
                        fprintf(stderr, "benchctl: run: %s is for a fleet run; give the hosts with -H HOST "
                                "(repeated) or --hosts FILE\n",
                                opts->allow_missing ? "--allow-missing" : opts->clock_correct ? "--clock-correct" :
                                "--collect");
                        return BENCHCTL_EXIT_USAGE;
                }
                return fleet_run(opts, opts->hosts, NULL, opts->allow_missing, opts->clock_correct);
        }
        return do_submit(opts, true);
}

int verb_watch(int argc, char **argv, const BenchctlOptions *opts) {
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
        _cleanup_(job_wait_freep) JobWait *w = NULL;
        uint64_t id;
        int r;

        if (parse_id_arg("job id", argv[1], &id) < 0)
                return BENCHCTL_EXIT_USAGE;
        r = bus_connect(opts, &bus);
        if (r != 0)
                return r;
        r = job_wait_new(bus, opts->json, &w);
        if (r != 0)
                return r;
        return job_wait_run(w, id);
}

static const char *job_what(json_object *job, char *buf, size_t l) {
        const char *profile = rec_str(job, "Profile"), *workload = rec_str(job, "Workload");

        if (profile && *profile) {
                if (workload && *workload && streq(rec_str(job, "State") ?: "", "running"))
                        snprintf(buf, l, "%s (%s)", profile, workload);
                else
                        snprintf(buf, l, "%s", profile);
        } else
                snprintf(buf, l, "%s", workload ?: "");
        return buf;
}

int verb_jobs(int argc, char **argv, const BenchctlOptions *opts) {
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
        _cleanup_json_ json_object *filter = json_object_new_object(), *jobs = NULL;
        _cleanup_(table_freep) Table *t = NULL;
        static const char *const headers[] = { "ID", "STATE", "WORKLOAD", "TARGET", "LABEL", "SUBMITTED", "PROGRESS" };
        uint64_t now = now_usec(CLOCK_REALTIME);
        size_t n;
        int r;

        if (!filter)
                return BENCHCTL_EXIT_FAILURE;
        if (opts->all)
                json_object_object_add(filter, "all", json_object_new_boolean(true));
        if (opts->status)
                json_object_object_add(filter, "state", json_object_new_string(opts->status));
        if (opts->limit > 0)
                json_object_object_add(filter, "limit", json_object_new_uint64(opts->limit));

        r = bus_connect(opts, &bus);
        if (r != 0)
                return r;
        r = list_jobs(bus, "list jobs", filter, &jobs);
        if (r != 0)
                return r;

        if (opts->json) {
                print_json(jobs);
                return BENCHCTL_EXIT_OK;
        }

        n = json_object_array_length(jobs);
        if (n == 0) {
                if (opts->legend)
                        printf("No jobs%s.\n", opts->all ? "" : " (benchctl jobs --all shows older ones)");
                return BENCHCTL_EXIT_OK;
        }
        if (table_new(headers, ELEMENTSOF(headers), &t) < 0)
                return BENCHCTL_EXIT_FAILURE;
        table_set_align(t, 0, TABLE_ALIGN_RIGHT);
        table_set_align(t, 6, TABLE_ALIGN_RIGHT);
        table_set_shrinkable(t, 3, 12);
        table_set_shrinkable(t, 4, 8);
        for (size_t i = 0; i < n; i++) {
                json_object *j = json_object_array_get_idx(jobs, i);
                char a[FORMAT_BUF_MAX * 2];
                const char *state = rec_str(j, "State") ?: "";
                double progress;

                table_add_cellf(t, "%" PRIu64, rec_u64_or(j, "Id", 0));
                table_add_cell(t, state);
                table_add_cell(t, job_what(j, a, sizeof a));
                table_add_cell(t, rec_str(j, "Target"));
                table_add_cell(t, rec_str(j, "Label"));
                table_add_cell(t, format_timestamp_short(a, sizeof a, rec_u64_or(j, "SubmittedUSec", 0), now));
                if (streq(state, "running") && rec_double(j, "Progress", &progress))
                        table_add_cellf(t, "%.0f%%", progress * 100.0);
                else
                        table_add_cell(t, "");
        }
        table_print(t, opts->legend);
        if (opts->legend)
                printf("\n%zu job%s listed.\n", n, n == 1 ? "" : "s");
        return BENCHCTL_EXIT_OK;
}

/* "3 runs of each step", "until stddev < 5% (3 to 10 runs of each step)", from the job's Spec; ""
 * for a job whose steps run once. */
static void job_repeats_text(json_object *job, char *buf, size_t size) {
        _cleanup_json_ json_object *spec = NULL;
        const char *text = rec_str(job, "Spec"), *until;
        json_object *fs = NULL;
        uint64_t repeat, max;
        bool matrix;

        if (size > 0)
                buf[0] = 0;
        if (!text || !(spec = json_tokener_parse(text)))
                return;
        repeat = rec_u64_or(spec, "repeat", 1);
        max = rec_u64_or(spec, "max_repeats", spec_key_info(SPEC_KEY_MAX_REPEATS)->default_value);
        until = rec_str(spec, "until_stddev");
        /* A filesystem matrix repeats in rounds: every entry once, then again, the order alternating. */
        matrix = json_object_object_get_ex(spec, "filesystems", &fs) && json_object_is_type(fs, json_type_array) &&
                 json_object_array_length(fs) > 0;
        if (until && *until && !streq(until, "0"))
                snprintf(buf, size, "until stddev < %s%% (%" PRIu64 " to %" PRIu64 " %s)", until,
                         MAX(repeat, (uint64_t) SPEC_STABLE_RUNS_MIN), max,
                         matrix ? "rounds of every entry, the order alternating" : "runs of each step");
        else if (repeat > 1)
                snprintf(buf, size, "%" PRIu64 " %s", repeat,
                         matrix ? "rounds of every entry, the order alternating" : "runs of each step");
}

int verb_status(int argc, char **argv, const BenchctlOptions *opts) {
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
        _cleanup_json_ json_object *job = NULL;
        char a[FORMAT_BUF_MAX * 2], b[FORMAT_BUF_MAX], c[FORMAT_BUF_MAX], d[FORMAT_BUF_MAX];
        const char *state, *s;
        json_object *runs = NULL, *live = NULL;
        uint64_t id, u, started, finished;
        double v;
        int r;

        if (parse_id_arg("job id", argv[1], &id) < 0)
                return BENCHCTL_EXIT_USAGE;
        r = bus_connect(opts, &bus);
        if (r != 0)
                return r;
        r = job_get(bus, id, &job);
        if (r != 0)
                return r;
        job_add_runs_from_history(bus, id, job);

        if (opts->json) {
                print_json(job);
                return BENCHCTL_EXIT_OK;
        }

        state = rec_str(job, "State") ?: "unknown";
        text_printf("Job %" PRIu64 ": %s\n", id, state);
        kv_print(stdout, 10, "What", "%s", job_what(job, a, sizeof a));
        kv_print(stdout, 10, "Target", "%s", rec_str(job, "Target") ?: "");
        if ((s = rec_str(job, "Label")) && *s)
                kv_print(stdout, 10, "Label", "%s", s);
        if (rec_u64(job, "SubmittedBy", &u))
                kv_print(stdout, 10, "By", "uid %" PRIu64, u);
        if ((s = rec_str(job, "TriggeredBy")) && streq(s, "udev"))
                kv_print(stdout, 10, "Trigger", "udev (the disk appeared with BENCHD_AUTORUN set)");
        kv_print(stdout, 10, "Submitted", "%s", format_timestamp(a, sizeof a, rec_u64_or(job, "SubmittedUSec", 0)));
        started = rec_u64_or(job, "StartedUSec", 0);
        finished = rec_u64_or(job, "FinishedUSec", 0);
        if (started > 0)
                kv_print(stdout, 10, "Started", "%s", format_timestamp(a, sizeof a, started));
        if (finished > 0)
                kv_print(stdout, 10, "Finished", "%s%s%s%s", format_timestamp(a, sizeof a, finished),
                         started > 0 && finished >= started ? " (after " : "",
                         started > 0 && finished >= started ? format_duration(b, sizeof b, finished - started) : "",
                         started > 0 && finished >= started ? ")" : "");
        job_repeats_text(job, a, sizeof a);
        if (*a)
                kv_print(stdout, 10, "Repeats", "%s", a);
        if (streq(state, "running")) {
                uint64_t steps = rec_u64_or(job, "Steps", 1), now = now_usec(CLOCK_REALTIME);
                const char *phase = rec_str(job, "Phase");
                bool has_phase = phase && *phase;
                char rep[FORMAT_BUF_MAX * 2], until[32];

                const char *entry = rec_str(job, "Entry");

                format_repeat(rep, sizeof rep, entry && *entry, rec_u64_or(job, "CurrentRepeat", 0),
                              rec_u64_or(job, "Repeats", 1), job_until_stddev(job, until, sizeof until));
                if (entry && *entry)
                        kv_print(stdout, 10, "Entry", "%s", entry);
                kv_print(stdout, 10, "Step", "%" PRIu64 "/%" PRIu64 " %s%s%s%s%s%s", rec_u64_or(job, "CurrentStep", 0) + 1,
                         MAX(steps, (uint64_t) 1), rec_str(job, "Workload") ?: "", *rep ? ", " : "", rep,
                         has_phase ? " (" : "", has_phase ? phase : "", has_phase ? ")" : "");
                if (rec_double(job, "Progress", &v)) {
                        format_time_left(b, sizeof b, started > 0 && now > started ? now - started : 0, v);
                        kv_print(stdout, 10, "Progress", "%.0f%%%s%s", v * 100.0, *b ? ", " : "", b);
                }
                json_object_object_get_ex(job, "Live", &live);
                if (live && json_object_is_type(live, json_type_object) && json_object_object_length(live) > 0)
                        kv_print(stdout, 10, "Now", "%s, %s IOPS, p99 %s, iowait %s",
                                 format_rate(a, sizeof a, rec_double_or(live, "mb_per_s", NAN) * 1e6, true),
                                 format_iops(b, sizeof b, rec_double_or(live, "iops", NAN)),
                                 format_latency_ns(c, sizeof c, rec_double_or(live, "lat_p99_us", NAN) * 1e3),
                                 format_pct(d, sizeof d, rec_double_or(live, "iowait_pct", NAN)));
        }
        json_object_object_get_ex(job, "Runs", &runs);
        if (runs && json_object_is_type(runs, json_type_array) && json_object_array_length(runs) > 0) {
                _cleanup_free_ char *text = rec_to_text(job, "Runs");
                kv_print(stdout, 10, "Runs", "%s (benchctl show RUN)", text ?: "");
        }
        if ((s = rec_str(job, "Error")) && *s)
                kv_print(stdout, 10, "Error", "%s", s);
        return BENCHCTL_EXIT_OK;
}

int verb_cancel(int argc, char **argv, const BenchctlOptions *opts) {
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
        int r, ret = BENCHCTL_EXIT_OK;

        if (opts->fleet) {
                if (argc > 1) {
                        text_fprintf(stderr, "benchctl: cancel: give job ids or --fleet UUID, not both ('%s')\n",
                                     argv[1]);
                        return BENCHCTL_EXIT_USAGE;
                }
                return fleet_cancel(opts);
        }
        if (argc < 2) {
                fprintf(stderr, "benchctl: cancel needs a job id, or --fleet UUID with the fleet's hosts (-H HOST "
                        "-H HOST, --hosts FILE)\n");
                return BENCHCTL_EXIT_USAGE;
        }

        r = bus_connect(opts, &bus);
        if (r != 0)
                return r;
        for (int i = 1; i < argc; i++) {
                _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
                char what[64];
                uint64_t id;

                if (parse_id_arg("job id", argv[i], &id) < 0)
                        return BENCHCTL_EXIT_USAGE;
                snprintf(what, sizeof what, "cancel job %" PRIu64, id);
                _cleanup_(sd_bus_message_unrefp) sd_bus_message *m = NULL;
                r = bus_new_manager_call(bus, "CancelJob", &m);
                if (r >= 0)
                        /* polkit may ask the user at the terminal, as systemctl lets it. */
                        r = sd_bus_message_set_allow_interactive_authorization(m, isatty(STDIN_FILENO));
                if (r >= 0)
                        r = sd_bus_message_append(m, "t", id);
                if (r >= 0)
                        r = sd_bus_call(bus, m, 0, &error, NULL);
                if (r < 0) {
                        r = bus_error_exit(what, &error, r);
                        if (ret == BENCHCTL_EXIT_OK)
                                ret = r;
                        if (r == BENCHCTL_EXIT_UNREACHABLE)
                                break;
                }
        }
        return ret;
}

/* profiles NAME: the steps of one profile, each with the spec keys it sets. */
static int show_profile(const BenchctlOptions *opts, sd_bus *bus, const char *name) {
        _cleanup_json_ json_object *steps = NULL;
        char what[128];
        size_t n;
        int r;

        snprintf(what, sizeof what, "profile %s", name);
        r = bus_call_manager_json(bus, what, "GetProfile", &steps, "s", name);
        if (r != 0)
                return r;
        if (opts->json) {
                print_json(steps);
                return BENCHCTL_EXIT_OK;
        }
        n = json_object_array_length(steps);
        text_printf("Profile %s: %zu step%s\n", name, n, n == 1 ? "" : "s");
        for (size_t i = 0; i < n; i++) {
                json_object *step = json_object_array_get_idx(steps, i);
                const char *label = rec_str(step, "step");

                text_printf("%3zu. %s:", i + 1, label ?: "");
                json_object_object_foreach(step, key, value) {
                        _cleanup_free_ char *text = NULL;
                        (void) value;
                        if (streq(key, "step"))
                                continue;
                        text = rec_to_text(step, key);
                        text_printf(" %s=%s", key, text ?: "");
                }
                printf("\n");
        }
        return BENCHCTL_EXIT_OK;
}

int verb_profiles(int argc, char **argv, const BenchctlOptions *opts) {
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
        _cleanup_json_ json_object *profiles = NULL;
        _cleanup_(table_freep) Table *t = NULL;
        static const char *const headers[] = { "PROFILE", "DESCRIPTION" };
        size_t n;
        int r;

        r = bus_connect(opts, &bus);
        if (r != 0)
                return r;
        if (argc > 1)
                return show_profile(opts, bus, argv[1]);
        r = bus_call_manager_json(bus, "list profiles", "ListProfiles", &profiles, NULL);
        if (r != 0)
                return r;

        if (opts->json) {
                /* a(ss) arrives as [[name, description], ...]; make it self-describing. */
                _cleanup_json_ json_object *out = json_object_new_array();
                for (size_t i = 0; out && i < json_object_array_length(profiles); i++) {
                        json_object *p = json_object_array_get_idx(profiles, i), *o = json_object_new_object();
                        json_object_object_add(o, "name", json_object_get(json_object_array_get_idx(p, 0)));
                        json_object_object_add(o, "description", json_object_get(json_object_array_get_idx(p, 1)));
                        json_object_array_add(out, o);
                }
                print_json(out);
                return BENCHCTL_EXIT_OK;
        }

        n = json_object_array_length(profiles);
        if (table_new(headers, ELEMENTSOF(headers), &t) < 0)
                return BENCHCTL_EXIT_FAILURE;
        table_set_shrinkable(t, 1, 20);
        for (size_t i = 0; i < n; i++) {
                json_object *p = json_object_array_get_idx(profiles, i);
                table_add_cell(t, json_object_get_string(json_object_array_get_idx(p, 0)));
                table_add_cell(t, json_object_get_string(json_object_array_get_idx(p, 1)));
        }
        table_print(t, opts->legend);
        if (opts->legend)
                printf("\n%zu profile%s listed.\n", n, n == 1 ? "" : "s");
        return BENCHCTL_EXIT_OK;
}

/* The values of a key that takes one of a few words, for shell completion ("values" in `help spec
 * --json`): the workload and layout tables, the boolean words, sync's modes and calls, pattern's
 * fixed values. Each candidate goes through the registry's own parser, so only what it accepts is
 * listed; NULL for keys whose values are open (sizes, numbers, paths, text). */
json_object *spec_key_values(SpecKey k) {
        static const char *const syncs[] = { "none", "end", "each", "end:fsync", "end:fdatasync", "each:fsync",
                                             "each:fdatasync" };
        static const char *const patterns[] = { "random", "zero" };
        static const char *const booleans[] = { "true", "false" };
        const SpecKeyInfo *ki = spec_key_info(k);
        const char *candidates[64];
        size_t n = 0;
        json_object *out;

        if (ki->choices)
                for (const SpecChoice *c = ki->choices; c->name && n < ELEMENTSOF(candidates); c++)
                        candidates[n++] = c->name;
        else if (k == SPEC_KEY_SYNC)
                for (size_t i = 0; i < ELEMENTSOF(syncs); i++)
                        candidates[n++] = syncs[i];
        else if (k == SPEC_KEY_PATTERN)
                for (size_t i = 0; i < ELEMENTSOF(patterns); i++)
                        candidates[n++] = patterns[i];
        else if (ki->kind == SPEC_KIND_BOOL)
                for (size_t i = 0; i < ELEMENTSOF(booleans); i++)
                        candidates[n++] = booleans[i];
        if (n == 0)
                return NULL;

        out = json_object_new_array();
        for (size_t i = 0; out && i < n; i++) {
                _cleanup_free_ char *err = NULL;
                JobSpec spec;
                int r;

                spec_init(&spec);
                r = spec_set_from_string(&spec, ki->name, candidates[i], &err);
                spec_clear(&spec);
                if (r >= 0)
                        json_object_array_add(out, json_object_new_string(candidates[i]));
        }
        return out;
}

/* `benchctl help spec`: every key of the spec registry, as the daemon reads it. */
static int help_spec(const BenchctlOptions *opts) {
        _cleanup_(table_freep) Table *t = NULL;
        static const char *const headers[] = { "KEY", "TYPE", "DEFAULT", "UNIT", "DESCRIPTION" };

        if (opts->json) {
                _cleanup_json_ json_object *out = json_object_new_array();
                for (SpecKey k = 0; out && k < _SPEC_KEY_MAX; k++) {
                        const SpecKeyInfo *ki = spec_key_info(k);
                        json_object *o = json_object_new_object();

                        json_object_object_add(o, "key", json_object_new_string(ki->name));
                        json_object_object_add(o, "type", json_object_new_string(spec_kind_to_string(ki->kind)));
                        json_object_object_add(o, "dbus_type", json_object_new_string(spec_kind_bus_types(ki->kind)));
                        if (ki->kind == SPEC_KIND_SIZE || ki->kind == SPEC_KIND_NUMBER) {
                                json_object_object_add(o, "min", json_object_new_uint64(ki->min));
                                json_object_object_add(o, "max", json_object_new_uint64(ki->max));
                        }
                        json_object_object_add(o, "default", ki->default_text ? json_object_new_string(ki->default_text) : NULL);
                        json_object_object_add(o, "unit", ki->unit ? json_object_new_string(ki->unit) : NULL);
                        json_object_object_add(o, "runs_column",
                                               ki->runs_column ? json_object_new_string(ki->runs_column) : NULL);
                        _cleanup_free_ char *doc = spec_key_doc(k);
                        if (!doc)
                                return BENCHCTL_EXIT_FAILURE;
                        json_object_object_add(o, "description", json_object_new_string(doc));
                        json_object *values = spec_key_values(k);
                        if (values)
                                json_object_object_add(o, "values", values);
                        json_object_array_add(out, o);
                }
                print_json(out);
                return BENCHCTL_EXIT_OK;
        }

        if (table_new(headers, ELEMENTSOF(headers), &t) < 0)
                return BENCHCTL_EXIT_FAILURE;
        table_set_shrinkable(t, 2, 7);
        table_set_shrinkable(t, 4, 20);
        for (SpecKey k = 0; k < _SPEC_KEY_MAX; k++) {
                const SpecKeyInfo *ki = spec_key_info(k);
                _cleanup_free_ char *doc = spec_key_doc(k);
                char range[96] = "";

                if (!doc)
                        return BENCHCTL_EXIT_FAILURE;
                if (ki->kind == SPEC_KIND_SIZE || ki->kind == SPEC_KIND_NUMBER) {
                        char a[32], b[32];
                        if (ki->kind == SPEC_KIND_SIZE)
                                snprintf(range, sizeof(range), " (%s..%s)", spec_size_text(ki->min, a),
                                         spec_size_text(ki->max, b));
                        else
                                snprintf(range, sizeof(range), " (%" PRIu64 "..%" PRIu64 ")", ki->min, ki->max);
                }
                table_add_cell(t, ki->name);
                table_add_cell(t, spec_kind_to_string(ki->kind));
                table_add_cell(t, ki->default_text ?: "-");
                table_add_cell(t, ki->unit ?: "-");
                table_add_cellf(t, "%s%s", doc, range);
        }
        table_print(t, opts->legend);
        if (opts->legend)
                printf("\n%d keys. Set them with --set KEY=VALUE (maps: KEY.NAME=VALUE, one entry each); sizes "
                       "take K, M, G and T (powers of two).\n",
                       (int) _SPEC_KEY_MAX);
        return BENCHCTL_EXIT_OK;
}

int verb_help(int argc, char **argv, const BenchctlOptions *opts) {
        if (argc < 2) {
                fprintf(stderr, "benchctl: help takes a topic: spec (the job spec keys); see benchctl --help "
                        "for the commands\n");
                return BENCHCTL_EXIT_USAGE;
        }
        if (streq(argv[1], "spec"))
                return help_spec(opts);
        text_fprintf(stderr, "benchctl: no help on '%s'; the topics are: spec\n", argv[1]);
        return BENCHCTL_EXIT_USAGE;
}
