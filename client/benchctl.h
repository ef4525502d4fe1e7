/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What benchctl's verbs share: the parsed command line (BenchctlOptions), the exit codes, and the
 * verb entry points. Verbs return an exit code (EXIT_*) and print their own errors, because the code depends
 * on which D-Bus error came back (see bus_error_exit()).
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "shared/spec.h"

enum {
        BENCHCTL_EXIT_OK = 0,
        BENCHCTL_EXIT_FAILURE = 1,     /* generic failure, or the job failed/was cancelled */
        BENCHCTL_EXIT_USAGE = 2,       /* unknown verb/option, bad --set, invalid spec */
        BENCHCTL_EXIT_UNREACHABLE = 3, /* benchd is not on the bus, or no bus */
        BENCHCTL_EXIT_NOT_FOUND = 4,   /* no such job, run or device */
};

typedef enum BusTransport {
        BUS_TRANSPORT_SYSTEM,
        BUS_TRANSPORT_ADDRESS,
        BUS_TRANSPORT_REMOTE,
} BusTransport;

typedef enum ExportFormat {
        EXPORT_CSV,
        EXPORT_JSON,
        EXPORT_BENCHD,         /* the runs whole, for benchctl import on another host */
        EXPORT_BONNIE_CSV,     /* bonnie++ 2.00's CSV line of a job (--job) */
        EXPORT_IOZONE,         /* iozone -R's report of a job (--job) */
} ExportFormat;

/* The parsed command line (benchctl.c fills it), passed to every verb; nothing else is global. */
typedef struct BenchctlOptions {
        /* Global options. */
        bool json;
        bool legend;
        BusTransport transport;
        const char *address;        /* --bus-address or -H host */
        const char *bus_address;    /* --bus-address, even when -H follows (a fleet's collector) */

        /* submit/run. */
        const char *workload;       /* also a results filter */
        const char *profile;        /* also a results filter */
        const char *target;
        const char *label;          /* also a results filter */
        char **tags;                /* --tag (repeatable); the first is the results filter */
        char **sets;                /* --set key=value assignments, in order */
        bool wait;
        char **hosts;               /* every -H HOST, in order (the last one is address) */
        const char *hosts_file;     /* run --hosts FILE */
        bool allow_missing;         /* run with several hosts: go on without those unreachable */
        bool clock_correct;         /* run with several hosts: start by the measured clock offset */
        const char *fleet;          /* show/compare/report --fleet UUID: a fleet run's runs; cancel --fleet
                                     * UUID: its job on every host */
        const char *collect;        /* run with several hosts, gather: the history to gather into
                                     * ([USER@]HOST; NULL: this host's) */

        /* Query filters. */
        const char *device;
        const char *fs_type;
        const char *entry;           /* show/export/report --job: a filesystem matrix entry ("ext4") */
        const char *status;
        uint64_t job;
        uint64_t since_usec;
        uint64_t until_usec;
        uint64_t older_than_usec;   /* prune --older-than: a point in time, 0 not given */
        uint64_t limit;
        bool all;
        ExportFormat format;
        const char *by;             /* compare --by COLUMN */
        const char *baseline;       /* compare --by and compare/show --job: the group or column the
                                     * others are measured against */
        double confidence;          /* compare --by: the confidence level (0: benchd's default, 95%) */
        const char *output;         /* report -o FILE */
        bool open;                  /* report --open */
} BenchctlOptions;

/* Verbs: argv[0] is the verb name. */
struct json_object;
/* The job spec from --workload, --profile, --target, --label, --set, --tag (job-spec.c); 0, or
 * prints the error and returns an exit code. */
int job_spec_build(const BenchctlOptions *opts, struct json_object **ret);
/* benchctl run with several hosts (verbs-fleet.c). */
int fleet_run(const BenchctlOptions *opts, char **host_args, const char *hosts_file, bool allow_missing,
              bool clock_correct);
/* benchctl cancel --fleet UUID [-H HOST...] [--hosts FILE] (verbs-fleet.c). */
int fleet_cancel(const BenchctlOptions *opts);

int verb_submit(int argc, char **argv, const BenchctlOptions *opts);
int verb_run(int argc, char **argv, const BenchctlOptions *opts);
int verb_help(int argc, char **argv, const BenchctlOptions *opts);
int verb_jobs(int argc, char **argv, const BenchctlOptions *opts);
int verb_status(int argc, char **argv, const BenchctlOptions *opts);
int verb_watch(int argc, char **argv, const BenchctlOptions *opts);
int verb_cancel(int argc, char **argv, const BenchctlOptions *opts);
int verb_profiles(int argc, char **argv, const BenchctlOptions *opts);
int verb_results(int argc, char **argv, const BenchctlOptions *opts);
int verb_show(int argc, char **argv, const BenchctlOptions *opts);
int verb_samples(int argc, char **argv, const BenchctlOptions *opts);
int verb_export(int argc, char **argv, const BenchctlOptions *opts);
int verb_compare(int argc, char **argv, const BenchctlOptions *opts);
int verb_regressions(int argc, char **argv, const BenchctlOptions *opts);
int verb_report(int argc, char **argv, const BenchctlOptions *opts);
int verb_devices(int argc, char **argv, const BenchctlOptions *opts);
int verb_prune(int argc, char **argv, const BenchctlOptions *opts);
int verb_import(int argc, char **argv, const BenchctlOptions *opts);
int verb_device(int argc, char **argv, const BenchctlOptions *opts);
int verb_gather(int argc, char **argv, const BenchctlOptions *opts);
/* show --fleet UUID (verbs-fleet.c): the fleet run's result from this history's runs. */
int fleet_show(const BenchctlOptions *opts);
/* A fleet run's result from one history (gathered): {"fleet_uuid", "hosts": [{host, runs}] (by name,
 * runs oldest first; whole, with samples and histogram, when whole), "all_hosts": every step's
 * figures (client/fleet-sum.h) with its "timeline"}. 0, or prints the error and returns an exit code. */
struct sd_bus;
int fleet_history(struct sd_bus *bus, const char *uuid, bool whole, struct json_object **ret);

/* --complete=WHAT (complete.c): whether WHAT is a list it knows (jobs, active-jobs, runs,
 * profiles, devices); the list, one "VALUE<TAB>DESCRIPTION" a line, nothing when benchd does not
 * answer at once. Always exits 0. */
bool complete_kind_valid(const char *what);
/* The values a spec key takes when they are a few words (workload, layout, sync, booleans, ...),
 * as a JSON array; NULL for open ones (verbs-jobs.c, "values" in `help spec --json`). */
struct json_object *spec_key_values(SpecKey key);
int complete_list(const BenchctlOptions *opts, const char *what);
/* print_json() and parse_id_arg() are text.h's, below the verbs. */
#include "text.h"
