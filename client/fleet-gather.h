/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The hosts of a fleet run as benchctl names them (-H [USER@]HOST, --hosts FILE) and gather: each
 * host's runs of a fleet run imported into one history (fleet-gather.c). Below verbs-fleet.c, which
 * runs the fleet and shows it: nothing here calls up into it.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <json-c/json.h>
#include <systemd/sd-bus.h>

#include "benchctl.h"

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

/* The verb that reads the hosts, for its messages: "run" (the default) or "gather". */
extern const char *fleet_verb;

/* Appends host name (each once: a second is an error, printed). */
int hosts_push(FleetHost **hosts, size_t *n, const char *name);
/* --hosts FILE: one [USER@]HOST a line; blank lines and # comments are skipped. Errors printed. */
int hosts_read_file(const char *path, FleetHost **hosts, size_t *n);

/* A string member of o, or NULL; an integer member, or 0. */
const char *fleet_json_str(json_object *o, const char *key);
int64_t fleet_json_i64(json_object *o, const char *key);
/* Whether s is a uuid as a fleet run's is written. */
bool fleet_uuid_valid(const char *s);

/* The end of benchctl run -H ...: the hosts' runs (loaded already) gathered into the collector's
 * history, as gather does; what gather --json prints, or NULL. *ret: the exit status, made worse
 * when the gather fails. */
json_object *fleet_run_gather(const BenchctlOptions *opts, FleetHost *hosts, size_t n, const char *uuid, int *ret);
/* What fleet_run_gather() returned, as gather prints it. */
void gather_print_json(json_object *o);
