/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * benchctl: the command line of benchd (docs/DESIGN.md "Command line"), systemctl-style. This file owns
 * option parsing and the verb table only; the verbs live in verbs-*.c and talk to benchd through
 * bus.c. Options are one flat set, as in systemctl, so they may stand before or after the verb.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "benchctl.h"
#include "config.h"
#include "format.h"
#include "shared/spec.h"
#include "shared/util.h"
#include "text.h"

/* json-c JSON_C_TO_STRING_* for --json=pretty|short; only print_json() reads it. */
/* --complete=WHAT: print completion candidates instead of running a verb (complete.c). */
static const char *arg_complete = NULL;

typedef struct Verb {
        const char *name;
        int min_args; /* not counting the verb */
        int max_args; /* -1: unlimited */
        int (*func)(int argc, char **argv, const BenchctlOptions *opts);
} Verb;

static const Verb verbs[] = {
        { "submit",   0, 0,  verb_submit },
        { "run",      0, 0,  verb_run },
        { "jobs",     0, 0,  verb_jobs },
        { "status",   1, 1,  verb_status },
        { "watch",    1, 1,  verb_watch },
        { "cancel",   0, -1, verb_cancel },
        { "profiles", 0, 1,  verb_profiles },
        { "results",  0, 0,  verb_results },
        { "show",     0, 1,  verb_show },
        { "samples",  1, 1,  verb_samples },
        { "export",   0, -1, verb_export },
        { "compare",  0, -1, verb_compare },
        { "regressions", 0, 0, verb_regressions },
        { "report",   0, -1, verb_report },
        { "import",   1, 1,  verb_import },
        { "gather",   1, 1,  verb_gather },
        { "prune",    0, 0,  verb_prune },
        { "devices",  0, 0,  verb_devices },
        { "device",   1, 1,  verb_device },
        { "help",     0, 1,  verb_help },
};

static void help(void) {
        printf("benchctl [OPTIONS...] COMMAND ...\n\n"
               "Submit storage benchmarks to benchd and query their history.\n\n"
               "Jobs:\n"
               "  submit --workload W|--profile P --target PATH [--set K=V...] [--wait]\n"
               "                           Queue a benchmark job\n"
               "  run ...                  Same as submit --wait\n"
               "  run -H HOST -H HOST ...  A fleet run: the job on every host at once, each step\n"
               "  run --hosts FILE ...     started at one time; the hosts' runs and their sum over the\n"
               "                           interval every host measured (--allow-missing, --clock-correct)\n"
               "  jobs                     List queued, running and recent jobs (--all: every job)\n"
               "  status ID                Show a job\n"
               "  watch ID                 Follow a job until it ends\n"
               "  cancel ID...             Cancel queued or running jobs\n"
               "  cancel --fleet=UUID -H HOST...\n"
               "                           Cancel a fleet run's job on every host named\n"
               "  profiles [NAME]          List the benchmark profiles, or show one's steps\n\n"
               "History:\n"
               "  results                  List runs, newest first (filters below)\n"
               "  show RUN                 Show a run's summary and samples\n"
               "  show --fleet UUID        A gathered fleet run: each host's runs and all hosts' sum\n"
               "  show --job ID            Show a job's runs as its profile's tool would (iozone, bonnie,\n"
               "                           crystal, ping, dd), else one row per step; a filesystem matrix\n"
               "                           job: so for each entry (--entry NAME, --fs-type TYPE choose),\n"
               "                           how each filesystem was made, and the entries compared\n"
               "  samples RUN              Show a run's samples\n"
               "  export [RUN...]          Write runs as CSV or JSON (--format)\n"
               "  export --format=benchd [RUN...]\n"
               "                           Write runs whole (samples, histogram...) for benchctl import\n"
               "  gather UUID -H HOST -H HOST ...|--hosts FILE\n"
               "                           Gather every host's runs of a fleet run into this host's history\n"
               "                           (--collect HOST: that one's); a second gather adds nothing\n"
               "  import FILE              Add the runs of another host's export --format=benchd (- is\n"
               "                           stdin); runs known already are skipped\n"
               "  export --format=bonnie-csv|iozone --job ID\n"
               "                           Write a job as bonnie++'s CSV line or iozone -R's report; a\n"
               "                           filesystem matrix a line or report per entry (--entry, --fs-type)\n"
               "  compare RUN RUN...       Compare runs side by side, relative to the first\n"
               "  compare --by KEY         Compare groups of succeeded runs (--by fs_type, label, device,\n"
               "                           device_name, device_model, kernel, host, layout, matrix,\n"
               "                           profile, tags, job, mount_options, target, fleet_host) over the runs\n"
               "                           the filters select: means with confidence intervals, and\n"
               "                           %% against --baseline=GROUP (default the first run) marked ~\n"
               "                           where Welch's t-test finds no significant difference\n"
               "  compare --job ID         A filesystem matrix job's entries, as compare --by, against\n"
               "                           --baseline=ENTRY (default the first filesystem); a matrix in\n"
               "                           rounds (repeat=N) by the paired t-test over its rounds\n"
               "  compare --by host --fleet UUID\n"
               "                           A fleet run gathered here, its hosts side by side\n"
               "  regressions              List the regressions benchd flagged after its runs, newest\n"
               "                           first (--device, --workload, --since, --until, -n)\n"
               "  report RUN...|--job ID|--by COLUMN|--fleet UUID|[filters] [-o FILE.html] [--open]\n"
               "                           Write a self-contained HTML report with charts of runs, a job,\n"
               "                           groups of runs, or the history the filters select\n"
               "  prune --older-than=TIME  Remove the samples of runs older than TIME (30d, 2026-11-01);\n"
               "                           their summaries and histograms stay (root)\n\n"
               "Devices:\n"
               "  devices                  List block devices and their write verdicts\n"
               "  device NAME              Show everything benchd knows about a device\n\n"
               "Help:\n"
               "  help spec                List every job spec key: type, default, unit, meaning\n\n"
               "Job options:\n"
               "  -w --workload=NAME       Workload (read, write, randread, randwrite, ...)\n"
               "  -p --profile=NAME        Profile (dd, iozone, bonnie, crystal, ping, quick)\n"
               "  -t --target=PATH         Absolute path: directory, file or block device\n"
               "  -s --set=KEY=VALUE       Set a job spec key (block_size=32K, direct=true, ...)\n"
               "     --label=TEXT          Label the job's runs\n"
               "     --tag=TAG             Tag the job's runs (repeatable)\n"
               "     --wait                Wait for the job and show its progress\n"
               "     --hosts=FILE          run: a fleet run on the hosts of FILE, one [USER@]HOST a line\n"
               "     --allow-missing       run: a fleet run goes on without the hosts that do not answer\n"
               "     --collect=[USER@]HOST run -H ..., gather: gather the fleet run's runs into HOST's history\n"
               "     --fleet=UUID          show, compare --by host, report: a fleet run gathered here\n"
               "                           cancel: the fleet run's jobs on every host of -H and --hosts\n"
               "     --clock-correct       run: start a host whose clock is beyond fleet_clock_tolerance_ms\n"
               "                           by its measured offset instead of refusing it\n\n"
               "Filters (results, export, compare --by, report; --status and --limit also for jobs):\n"
               "     --device=NAME --workload=NAME --profile=NAME --fs-type=TYPE\n"
               "     --label=TEXT --tag=TAG --job=ID --status=STATUS\n"
               "     --since=TIME --until=TIME  (2026-11-01, \"2026-11-01 12:00\", 7d, 12h)\n"
               "  -n --limit=N             Show at most N entries\n"
               "  -a --all                 jobs: include every job in the database\n"
               "     --by=KEY              compare: group runs by this key\n"
               "     --baseline=GROUP      compare: the group (or matrix entry) the others are measured against\n"
               "     --confidence=LEVEL    compare: the confidence level, 95%% by default (90, 99, 0.99)\n"
               "     --entry=NAME          show, export, report --job: only this entry of a filesystem matrix\n"
               "     --format=FORMAT       export: csv (default), json, benchd, bonnie-csv\n"
               "                           or iozone\n"
               "  -o --output=FILE         report: write here (default benchd-job-ID.html, ... in the\n"
               "                           current directory)\n"
               "     --open                report: open it with xdg-open (needs $DISPLAY or $WAYLAND_DISPLAY)\n\n"
               "Output and connection:\n"
               "     --json[=pretty|short] Machine-readable JSON output (pretty by default)\n"
               "     --no-legend           Omit table headers and footers\n"
               "     --no-pager            Accepted for compatibility (benchctl never pages)\n"
               "     --system              Talk to benchd on the system bus (default)\n"
               "     --bus-address=ADDR    Talk to benchd on this bus instead\n"
               "  -H --host=[USER@]HOST    Talk to benchd on a remote host (ssh); run: repeat for a fleet\n"
               "  -h --help                Show this help\n"
               "     --version             Show the version\n\n"
               "Exit status: 0 ok, 1 failure (or the job failed), 2 usage error,\n"
               "3 benchd not reachable, 4 not found.\n");
}

/* Appends s to the NULL-terminated list *l without copying it: --set and --tag values are argv
 * strings, which live as long as benchctl does, so only the array is ours to free. */
static int argv_push(char ***l, char *s) {
        size_t n = 0;
        char **a;

        if (*l)
                while ((*l)[n])
                        n++;
        a = realloc(*l, (n + 2) * sizeof(char *));
        if (!a)
                return -ENOMEM;
        a[n] = s;
        a[n + 1] = NULL;
        *l = a;
        return 0;
}

static int parse_time_arg(const char *opt, const char *s, uint64_t *ret) {
        int r = parse_time_spec(s, now_usec(CLOCK_REALTIME), ret);

        if (r < 0) {
                text_fprintf(stderr,
                             "benchctl: %s: cannot parse '%s'; use a date (2026-11-01, \"2026-11-01 12:00\") "
                             "or an age (7d, 12h, 30min)\n", opt, s);
                return r;
        }
        return 0;
}

enum {
        ARG_VERSION = 0x100,
        ARG_JSON,
        ARG_NO_LEGEND,
        ARG_NO_PAGER,
        ARG_BUS_ADDRESS,
        ARG_SYSTEM,
        ARG_LABEL,
        ARG_TAG,
        ARG_WAIT,
        ARG_DEVICE,
        ARG_FS_TYPE,
        ARG_ENTRY,
        ARG_STATUS,
        ARG_JOB,
        ARG_SINCE,
        ARG_UNTIL,
        ARG_FORMAT,
        ARG_BY,
        ARG_BASELINE,
        ARG_CONFIDENCE,
        ARG_OPEN,
        ARG_OLDER_THAN,
        ARG_COMPLETE,
        ARG_HOSTS,
        ARG_ALLOW_MISSING,
        ARG_CLOCK_CORRECT,
        ARG_COLLECT,
        ARG_FLEET,
};

/* Returns 1 to go on, 0 to exit successfully (--help), or an exit code as a negative number. */
static int parse_argv(int argc, char *argv[], BenchctlOptions *arg) {
        static const struct option options[] = {
                { "help",        no_argument,       NULL, 'h' },
                { "version",     no_argument,       NULL, ARG_VERSION },
                { "json",        optional_argument, NULL, ARG_JSON },
                { "no-legend",   no_argument,       NULL, ARG_NO_LEGEND },
                { "no-pager",    no_argument,       NULL, ARG_NO_PAGER },
                { "bus-address", required_argument, NULL, ARG_BUS_ADDRESS },
                { "host",        required_argument, NULL, 'H' },
                { "system",      no_argument,       NULL, ARG_SYSTEM },
                { "workload",    required_argument, NULL, 'w' },
                { "profile",     required_argument, NULL, 'p' },
                { "target",      required_argument, NULL, 't' },
                { "set",         required_argument, NULL, 's' },
                { "label",       required_argument, NULL, ARG_LABEL },
                { "tag",         required_argument, NULL, ARG_TAG },
                { "wait",        no_argument,       NULL, ARG_WAIT },
                { "device",      required_argument, NULL, ARG_DEVICE },
                { "fs-type",     required_argument, NULL, ARG_FS_TYPE },
                { "entry",       required_argument, NULL, ARG_ENTRY },
                { "status",      required_argument, NULL, ARG_STATUS },
                { "job",         required_argument, NULL, ARG_JOB },
                { "since",       required_argument, NULL, ARG_SINCE },
                { "until",       required_argument, NULL, ARG_UNTIL },
                { "limit",       required_argument, NULL, 'n' },
                { "all",         no_argument,       NULL, 'a' },
                { "format",      required_argument, NULL, ARG_FORMAT },
                { "by",          required_argument, NULL, ARG_BY },
                { "baseline",    required_argument, NULL, ARG_BASELINE },
                { "confidence",  required_argument, NULL, ARG_CONFIDENCE },
                { "output",      required_argument, NULL, 'o' },
                { "open",        no_argument,       NULL, ARG_OPEN },
                { "older-than",  required_argument, NULL, ARG_OLDER_THAN },
                { "complete",    required_argument, NULL, ARG_COMPLETE },
                { "hosts",       required_argument, NULL, ARG_HOSTS },
                { "allow-missing", no_argument,     NULL, ARG_ALLOW_MISSING },
                { "clock-correct", no_argument,     NULL, ARG_CLOCK_CORRECT },
                { "collect",     required_argument, NULL, ARG_COLLECT },
                { "fleet",       required_argument, NULL, ARG_FLEET },
                {}
        };
        int c;

        opterr = 0;
        while ((c = getopt_long(argc, argv, ":hH:w:p:t:s:n:ao:", options, NULL)) >= 0) {
                switch (c) {
                case 'h':
                        help();
                        return 0;
                case ARG_VERSION:
                        printf("benchctl %s\n", BENCHD_VERSION);
                        return 0;
                case ARG_JSON:
                        if (!optarg || streq(optarg, "pretty"))
                                print_json_set_short(false);
                        else if (streq(optarg, "short"))
                                print_json_set_short(true);
                        else {
                                text_fprintf(stderr, "benchctl: --json: unknown mode '%s'; use pretty or short\n",
                                             optarg);
                                return -BENCHCTL_EXIT_USAGE;
                        }
                        arg->json = true;
                        break;
                case ARG_NO_LEGEND:
                        arg->legend = false;
                        break;
                case ARG_NO_PAGER:
                        break;
                case ARG_BUS_ADDRESS:
                        arg->transport = BUS_TRANSPORT_ADDRESS;
                        arg->address = optarg;
                        arg->bus_address = optarg;
                        break;
                case 'H':
                        arg->transport = BUS_TRANSPORT_REMOTE;
                        arg->address = optarg;
                        if (argv_push(&arg->hosts, optarg) < 0)
                                return -BENCHCTL_EXIT_FAILURE;
                        break;
                case ARG_HOSTS:
                        arg->hosts_file = optarg;
                        break;
                case ARG_ALLOW_MISSING:
                        arg->allow_missing = true;
                        break;
                case ARG_CLOCK_CORRECT:
                        arg->clock_correct = true;
                        break;
                case ARG_COLLECT:
                        arg->collect = optarg;
                        break;
                case ARG_FLEET:
                        arg->fleet = optarg;
                        break;
                case ARG_SYSTEM:
                        arg->transport = BUS_TRANSPORT_SYSTEM;
                        arg->address = NULL;
                        break;
                case 'w':
                        arg->workload = optarg;
                        break;
                case 'p':
                        arg->profile = optarg;
                        break;
                case 't':
                        arg->target = optarg;
                        break;
                case 's':
                        if (argv_push(&arg->sets, optarg) < 0)
                                return -BENCHCTL_EXIT_FAILURE;
                        break;
                case ARG_LABEL:
                        arg->label = optarg;
                        break;
                case ARG_TAG:
                        if (argv_push(&arg->tags, optarg) < 0)
                                return -BENCHCTL_EXIT_FAILURE;
                        break;
                case ARG_WAIT:
                        arg->wait = true;
                        break;
                case ARG_DEVICE:
                        arg->device = optarg;
                        break;
                case ARG_FS_TYPE:
                        arg->fs_type = optarg;
                        break;
                case ARG_ENTRY:
                        arg->entry = optarg;
                        break;
                case ARG_STATUS:
                        arg->status = optarg;
                        break;
                case ARG_JOB:
                        if (parse_id_arg("--job", optarg, &arg->job) < 0)
                                return -BENCHCTL_EXIT_USAGE;
                        break;
                case ARG_SINCE:
                        if (parse_time_arg("--since", optarg, &arg->since_usec) < 0)
                                return -BENCHCTL_EXIT_USAGE;
                        break;
                case ARG_UNTIL:
                        if (parse_time_arg("--until", optarg, &arg->until_usec) < 0)
                                return -BENCHCTL_EXIT_USAGE;
                        break;
                case ARG_OLDER_THAN:
                        if (parse_time_arg("--older-than", optarg, &arg->older_than_usec) < 0)
                                return -BENCHCTL_EXIT_USAGE;
                        break;
                case 'n':
                        if (parse_id_arg("--limit", optarg, &arg->limit) < 0)
                                return -BENCHCTL_EXIT_USAGE;
                        break;
                case 'a':
                        arg->all = true;
                        break;
                case ARG_FORMAT:
                        if (streq(optarg, "csv"))
                                arg->format = EXPORT_CSV;
                        else if (streq(optarg, "json"))
                                arg->format = EXPORT_JSON;
                        else if (streq(optarg, "benchd"))
                                arg->format = EXPORT_BENCHD;
                        else if (streq(optarg, "bonnie-csv"))
                                arg->format = EXPORT_BONNIE_CSV;
                        else if (streq(optarg, "iozone"))
                                arg->format = EXPORT_IOZONE;
                        else {
                                text_fprintf(stderr, "benchctl: --format: unknown format '%s'; use csv, json, "
                                             "benchd, bonnie-csv or iozone\n", optarg);
                                return -BENCHCTL_EXIT_USAGE;
                        }
                        break;
                case ARG_BASELINE:
                        arg->baseline = optarg;
                        break;
                case ARG_CONFIDENCE: {
                        char *end = NULL;
                        double v;

                        errno = 0;
                        v = strtod(optarg, &end);
                        if (end && *end == '%' && end[1] == 0) {
                                end++;
                                v /= 100;
                        } else if (v > 1)
                                v /= 100;       /* "95" is 95% */
                        if (errno != 0 || end == optarg || !end || *end != 0 || !(v >= 0.5 && v <= 0.9999)) {
                                text_fprintf(stderr, "benchctl: --confidence: '%s' is not a confidence level; give one "
                                             "from 50%% to 99.99%%, e.g. 95, 99%% or 0.9\n", optarg);
                                return -BENCHCTL_EXIT_USAGE;
                        }
                        arg->confidence = v;
                        break;
                }
                case ARG_BY:
                        arg->by = optarg;
                        break;
                case 'o':
                        arg->output = optarg;
                        break;
                case ARG_OPEN:
                        arg->open = true;
                        break;
                case ARG_COMPLETE:
                        if (!complete_kind_valid(optarg)) {
                                text_fprintf(stderr, "benchctl: --complete: unknown list '%s'; use jobs, "
                                             "active-jobs, runs, profiles, devices or spec\n", optarg);
                                return -BENCHCTL_EXIT_USAGE;
                        }
                        arg_complete = optarg;
                        break;
                case ':':
                        text_fprintf(stderr, "benchctl: option '%s' needs an argument\n", argv[optind - 1]);
                        return -BENCHCTL_EXIT_USAGE;
                case '?':
                default:
                        if (optopt > 0 && optopt < 0x100)
                                fprintf(stderr, "benchctl: unknown option '-%c'; see benchctl --help\n", optopt);
                        else
                                text_fprintf(stderr, "benchctl: unknown option '%s'; see benchctl --help\n",
                                             argv[optind - 1]);
                        return -BENCHCTL_EXIT_USAGE;
                }
        }
        return 1;
}

int main(int argc, char *argv[]) {
        BenchctlOptions opts = {
                .legend = true,
                .transport = BUS_TRANSPORT_SYSTEM,
                .format = EXPORT_CSV,
        };
        const Verb *verb = NULL;
        int r, n_args;

        r = parse_argv(argc, argv, &opts);
        if (r <= 0) {
                r = -r;
                goto finish;
        }

        /* After every option: -H and --bus-address may follow it. */
        if (arg_complete) {
                r = complete_list(&opts, arg_complete);
                goto finish;
        }
        if (optind >= argc) {
                fprintf(stderr, "benchctl: no command given; see benchctl --help\n");
                r = BENCHCTL_EXIT_USAGE;
                goto finish;
        }
        for (size_t i = 0; i < ELEMENTSOF(verbs); i++)
                if (streq(argv[optind], verbs[i].name)) {
                        verb = &verbs[i];
                        break;
                }
        if (!verb) {
                text_fprintf(stderr, "benchctl: unknown command '%s'; see benchctl --help\n", argv[optind]);
                r = BENCHCTL_EXIT_USAGE;
                goto finish;
        }
        /* Several hosts: run, gather, and cancel --fleet (every host named). */
        if (verb->func != verb_run && verb->func != verb_gather && !(verb->func == verb_cancel && opts.fleet) &&
            ((opts.hosts && opts.hosts[1]) || opts.hosts_file)) {
                text_fprintf(stderr, "benchctl: %s: %s is for run, gather and cancel --fleet only (a fleet run's "
                             "hosts); give %s one -H HOST\n", verb->name,
                             opts.hosts_file ? "--hosts" : "more than one -H", verb->name);
                r = BENCHCTL_EXIT_USAGE;
                goto finish;
        }
        if (opts.collect && verb->func != verb_run && verb->func != verb_gather) {
                text_fprintf(stderr, "benchctl: %s: --collect is for run with several hosts and gather only\n",
                             verb->name);
                r = BENCHCTL_EXIT_USAGE;
                goto finish;
        }
        if (opts.fleet && verb->func != verb_show && verb->func != verb_compare && verb->func != verb_report &&
            verb->func != verb_cancel) {
                text_fprintf(stderr, "benchctl: %s: --fleet is for show, compare --by host, report and cancel "
                             "only\n", verb->name);
                r = BENCHCTL_EXIT_USAGE;
                goto finish;
        }
        if (verb->func != verb_run && (opts.allow_missing || opts.clock_correct)) {
                text_fprintf(stderr, "benchctl: %s: %s is for run only (a fleet run)\n", verb->name,
                             opts.allow_missing ? "--allow-missing" : "--clock-correct");
                r = BENCHCTL_EXIT_USAGE;
                goto finish;
        }
        n_args = argc - optind - 1;
        if (n_args < verb->min_args || (verb->max_args >= 0 && n_args > verb->max_args)) {
                if (verb->min_args == verb->max_args && verb->min_args == 0)
                        text_fprintf(stderr, "benchctl: %s takes no arguments\n", verb->name);
                else if (n_args < verb->min_args)
                        text_fprintf(stderr, "benchctl: %s needs %s%d argument%s; see benchctl --help\n", verb->name,
                                     verb->max_args != verb->min_args ? "at least " : "", verb->min_args,
                                     verb->min_args == 1 ? "" : "s");
                else
                        text_fprintf(stderr, "benchctl: %s takes at most %d argument%s\n", verb->name,
                                     verb->max_args, verb->max_args == 1 ? "" : "s");
                r = BENCHCTL_EXIT_USAGE;
                goto finish;
        }
        r = verb->func(n_args + 1, argv + optind, &opts);

finish:
        free(opts.sets);
        free(opts.tags);
        free(opts.hosts);
        return r;
}
