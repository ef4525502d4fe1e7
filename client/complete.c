/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * benchctl --complete=WHAT: what a shell completes, one candidate a line as
 * "VALUE<TAB>DESCRIPTION", for shell-completion/bash/benchctl and zsh/_benchctl: from benchd's
 * state the job ids, run ids, profile names and device names; from the spec registry the words of
 * --set. Shaped for a key press, not for a person: it never starts benchd (the calls carry no
 * auto-start flag, so D-Bus activation is not triggered), waits at most a second for an answer,
 * never asks ssh for a password (-H completes nothing from the bus), and prints nothing and exits
 * 0 when benchd is not there, so a shell prompt stays quiet. Values that a shell could not take
 * back as typed (control characters, blanks, quotes) are left out.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "benchctl.h"
#include "bus.h"
#include "record.h"

#define COMPLETE_TIMEOUT_USEC (1000 * 1000)
#define COMPLETE_LIMIT 100

/* A value a shell word can hold without quoting. */
static bool word_ok(const char *s) {
        if (!s || !*s)
                return false;
        for (const char *p = s; *p; p++)
                if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
                      strchr("._-+:@/,=%", *p)))
                        return false;
        return true;
}

/* The description after the tab: one line, no control characters. */
static void print_candidate(const char *value, const char *description) {
        if (!word_ok(value))
                return;
        fputs(value, stdout);
        if (description && *description) {
                putchar('\t');
                for (const char *p = description; *p; p++)
                        putchar((unsigned char) *p < 0x20 || *p == 0x7f ? ' ' : *p);
        }
        putchar('\n');
}

/* Calls a Manager (or ObjectManager) method without auto-start and with a short timeout; its one
 * reply value as JSON. Negative errno, silently, on any failure. */
static int call_quiet(sd_bus *bus, const char *interface, const char *method, json_object *filter,
                      json_object **ret) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *m = NULL, *reply = NULL;
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        int r;

        r = sd_bus_message_new_method_call(bus, &m, BENCHD_BUS_NAME, BENCHD_MANAGER_PATH, interface, method);
        if (r < 0)
                return r;
        r = sd_bus_message_set_auto_start(m, false);
        if (r < 0)
                return r;
        if (filter) {
                r = bus_append_filter(m, filter);
                if (r < 0)
                        return r;
        }
        r = sd_bus_call(bus, m, COMPLETE_TIMEOUT_USEC, &error, &reply);
        if (r < 0)
                return r;
        return bus_message_read_json(reply, ret);
}

static int complete_jobs(sd_bus *bus, bool active) {
        _cleanup_json_ json_object *filter = json_object_new_object(), *jobs = NULL;
        int r;

        if (!filter)
                return -ENOMEM;
        /* Every job, newest first, but only so many; the active ones are among the jobs the daemon
         * holds (queued, running, ended in the last minutes), its default answer. */
        if (!active) {
                json_object_object_add(filter, "all", json_object_new_boolean(true));
                json_object_object_add(filter, "limit", json_object_new_uint64(COMPLETE_LIMIT));
        }
        r = call_quiet(bus, BENCHD_MANAGER_IFACE, "ListJobs", filter, &jobs);
        if (r < 0)
                return r;
        for (size_t i = 0; i < json_object_array_length(jobs); i++) {
                json_object *j = json_object_array_get_idx(jobs, i);
                const char *state = rec_str(j, "State") ?: "", *what = rec_str(j, "Profile");
                char id[32], description[512];
                uint64_t v;

                if (!rec_u64(j, "Id", &v))
                        continue;
                if (active && !streq(state, "queued") && !streq(state, "running"))
                        continue;
                if (!what || !*what)
                        what = rec_str(j, "Workload") ?: "";
                snprintf(id, sizeof id, "%" PRIu64, v);
                snprintf(description, sizeof description, "%s %s %s", state, what, rec_str(j, "Target") ?: "");
                print_candidate(id, description);
        }
        return 0;
}

static int complete_runs(sd_bus *bus) {
        _cleanup_json_ json_object *filter = json_object_new_object(), *runs = NULL;
        int r;

        if (!filter)
                return -ENOMEM;
        json_object_object_add(filter, "limit", json_object_new_uint64(COMPLETE_LIMIT));
        r = call_quiet(bus, BENCHD_MANAGER_IFACE, "QueryRuns", filter, &runs);
        if (r < 0)
                return r;
        for (size_t i = 0; i < json_object_array_length(runs); i++) {
                json_object *run = json_object_array_get_idx(runs, i);
                char id[32], description[512];
                uint64_t v;

                if (!rec_u64(run, "id", &v))
                        continue;
                snprintf(id, sizeof id, "%" PRIu64, v);
                snprintf(description, sizeof description, "%s %s %s %s", rec_str(run, "status") ?: "",
                         rec_str(run, "workload") ?: "", rec_str(run, "target") ?: "", rec_str(run, "label") ?: "");
                print_candidate(id, description);
        }
        return 0;
}

static int complete_profiles(sd_bus *bus) {
        _cleanup_json_ json_object *profiles = NULL;
        int r;

        r = call_quiet(bus, BENCHD_MANAGER_IFACE, "ListProfiles", NULL, &profiles);
        if (r < 0)
                return r;
        for (size_t i = 0; i < json_object_array_length(profiles); i++) {
                json_object *p = json_object_array_get_idx(profiles, i);
                print_candidate(json_object_get_string(json_object_array_get_idx(p, 0)),
                                json_object_get_string(json_object_array_get_idx(p, 1)));
        }
        return 0;
}

static int complete_devices(sd_bus *bus) {
        _cleanup_json_ json_object *objects = NULL;
        int r;

        r = call_quiet(bus, "org.freedesktop.DBus.ObjectManager", "GetManagedObjects", NULL, &objects);
        if (r < 0)
                return r;
        json_object_object_foreach(objects, path, interfaces) {
                json_object *props = NULL;

                if (strncmp(path, BENCHD_DEVICE_PATH_PREFIX "/", strlen(BENCHD_DEVICE_PATH_PREFIX "/")) != 0 ||
                    !json_object_object_get_ex(interfaces, BENCHD_DEVICE_IFACE, &props))
                        continue;
                print_candidate(rec_str(props, "Name"), rec_str(props, "Model"));
        }
        return 0;
}

/* The words of --set, from the spec registry (no bus needed): "KEY=" for every key ("KEY." for a
 * map, whose entries are KEY.NAME=VALUE) and "KEY=VALUE" for each value of a key that takes one of
 * a few words. */
static int complete_spec(void) {
        for (SpecKey k = 0; k < _SPEC_KEY_MAX; k++) {
                const SpecKeyInfo *ki = spec_key_info(k);
                _cleanup_json_ json_object *values = spec_key_values(k);
                char word[256];

                snprintf(word, sizeof word, "%s%s", ki->name, ki->kind == SPEC_KIND_MAP ? "." : "=");
                print_candidate(word, ki->doc);
                for (size_t i = 0; values && i < json_object_array_length(values); i++) {
                        snprintf(word, sizeof word, "%s=%s", ki->name,
                                 json_object_get_string(json_object_array_get_idx(values, i)));
                        print_candidate(word, NULL);
                }
        }
        return 0;
}

static const char *const complete_kinds[] = { "jobs", "active-jobs", "runs", "profiles", "devices", "spec", NULL };

bool complete_kind_valid(const char *what) {
        for (size_t i = 0; complete_kinds[i]; i++)
                if (streq(complete_kinds[i], what))
                        return true;
        return false;
}

int complete_list(const BenchctlOptions *opts, const char *what) {
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
        int r;

        if (streq(what, "spec")) {
                (void) complete_spec();
                fflush(stdout);
                return BENCHCTL_EXIT_OK;
        }
        /* ssh may ask for a password or a host key: not at a key press. */
        if (opts->transport == BUS_TRANSPORT_REMOTE)
                return BENCHCTL_EXIT_OK;
        r = bus_open(opts, &bus, NULL);
        if (r < 0)
                return BENCHCTL_EXIT_OK;
        if (streq(what, "jobs"))
                (void) complete_jobs(bus, false);
        else if (streq(what, "active-jobs"))
                (void) complete_jobs(bus, true);
        else if (streq(what, "runs"))
                (void) complete_runs(bus);
        else if (streq(what, "profiles"))
                (void) complete_profiles(bus);
        else if (streq(what, "devices"))
                (void) complete_devices(bus);
        fflush(stdout);
        return BENCHCTL_EXIT_OK;
}
