/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * benchd: the storage benchmarking daemon. This file only parses the command line and wires the
 * parts together on one sd-event loop: the database, the bus connection and name, the device
 * inventory and the Manager with its queue. Everything else lives in manager.c, job.c and
 * supervisor.c.
 */
#include <errno.h>
#include <getopt.h>
#include <ini.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <systemd/sd-bus.h>
#include <systemd/sd-daemon.h>
#include <systemd/sd-event.h>

#include "bus/bus-util.h"
#include "config.h"
#include "store/db.h"
#include "devices/device-manager.h"
#include "bus/manager.h"
#include "bus/manager-autorun.h"
#include "jobs/retention.h"
#include "jobs/supervisor.h"
#include "shared/log.h"
#include "shared/regress.h"


typedef struct Options {
        const char *bus_address;
        const char *db_path;
        const char *worker_path;
        const char *profiles_dir;
        const char *config_path;
        unsigned max_queue;
} Options;

static void help(void) {
        printf("benchd [OPTIONS...]\n\n"
               "Storage benchmarking daemon: runs benchmark jobs submitted over D-Bus\n"
               "(org.benchd.Benchd1) and keeps every result in one SQLite file.\n\n"
               "  -h --help                Show this help\n"
               "     --version             Show the version\n"
               "     --bus-address=ADDRESS Connect to this bus instead of the system bus\n"
               "     --db=PATH             Database file (default: %s)\n"
               "     --worker=PATH         benchd-worker executable (default: $BENCHD_WORKER or %s)\n"
               "     --profiles-dir=DIR    Profiles (default: %s; %s/profiles overrides per name)\n"
               "     --config=PATH         Configuration file (default: %s/benchd.conf)\n"
               "     --max-queue=N         Most jobs waiting at once (default: 64)\n",
               BENCHD_DEFAULT_DB, BENCHD_WORKER_PATH, BENCHD_PROFILES_DIR, BENCHD_SYSCONF_DIR,
               BENCHD_SYSCONF_DIR);
}

static int parse_argv(int argc, char *argv[], Options *o) {
        enum {
                ARG_VERSION = 0x100,
                ARG_BUS_ADDRESS,
                ARG_DB,
                ARG_WORKER,
                ARG_PROFILES_DIR,
                ARG_CONFIG,
                ARG_MAX_QUEUE,
        };
        static const struct option options[] = {
                { "help",         no_argument,       NULL, 'h'              },
                { "version",      no_argument,       NULL, ARG_VERSION      },
                { "bus-address",  required_argument, NULL, ARG_BUS_ADDRESS  },
                { "db",           required_argument, NULL, ARG_DB           },
                { "worker",       required_argument, NULL, ARG_WORKER       },
                { "profiles-dir", required_argument, NULL, ARG_PROFILES_DIR },
                { "config",       required_argument, NULL, ARG_CONFIG       },
                { "max-queue",    required_argument, NULL, ARG_MAX_QUEUE    },
                {}
        };
        int c;

        while ((c = getopt_long(argc, argv, "h", options, NULL)) >= 0) {
                switch (c) {
                case 'h':
                        help();
                        return 0;
                case ARG_VERSION:
                        printf("benchd %s\n", BENCHD_VERSION);
                        return 0;
                case ARG_BUS_ADDRESS:
                        o->bus_address = optarg;
                        break;
                case ARG_DB:
                        o->db_path = optarg;
                        break;
                case ARG_WORKER:
                        o->worker_path = optarg;
                        break;
                case ARG_PROFILES_DIR:
                        o->profiles_dir = optarg;
                        break;
                case ARG_CONFIG:
                        o->config_path = optarg;
                        break;
                case ARG_MAX_QUEUE: {
                        char *end;
                        unsigned long v;
                        errno = 0;
                        v = strtoul(optarg, &end, 10);
                        if (errno != 0 || *end || end == optarg || v == 0 || v > 65536) {
                                log_error("--max-queue=%s: expected a number between 1 and 65536", optarg);
                                return -EINVAL;
                        }
                        o->max_queue = (unsigned) v;
                        break;
                }
                case '?':
                        return -EINVAL;
                default:
                        return -EINVAL;
                }
        }
        if (optind < argc) {
                log_error("unexpected argument '%s'; see --help", argv[optind]);
                return -EINVAL;
        }
        return 1;
}

/* mkdir -p of path's parent directory. */
static int mkdir_parents(const char *path) {
        _cleanup_free_ char *p = strdup(path);
        char *slash;

        if (!p)
                return -ENOMEM;
        slash = strrchr(p, '/');
        if (!slash || slash == p)
                return 0;
        *slash = '\0';
        for (char *s = p + 1; *s; s++) {
                if (*s != '/')
                        continue;
                *s = '\0';
                if (mkdir(p, 0755) < 0 && errno != EEXIST)
                        return negative_errno();
                *s = '/';
        }
        if (mkdir(p, 0755) < 0 && errno != EEXIST)
                return negative_errno();
        return 0;
}

static int bus_connect(const char *address, sd_bus **ret) {
        _cleanup_(sd_bus_unrefp) sd_bus *bus = NULL;
        int r;

        if (!address)
                return sd_bus_open_system(ret);

        r = sd_bus_new(&bus);
        if (r < 0)
                return r;
        r = sd_bus_set_address(bus, address);
        if (r < 0)
                return r;
        r = sd_bus_set_bus_client(bus, true);
        if (r < 0)
                return r;
        r = sd_bus_start(bus);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(bus);
        return 0;
}

/* benchd.conf's keys for the Manager (ScratchDevices= is the device inventory's): a value out of
 * range is logged and the default kept, so a typo does not stop the daemon. */
typedef struct ConfContext {
        const char *path;
        RegressConfig *regress;
        char **metrics_dir;
        unsigned *max_queued_per_user;
        unsigned *step_grace_sec;
        bool *autorun;
} ConfContext;

/* yes/no as systemd's units spell booleans; -EINVAL for anything else. */
static int parse_boolean(const char *v) {
        static const char *const yes[] = { "1", "yes", "y", "true", "t", "on" };
        static const char *const no[] = { "0", "no", "n", "false", "f", "off" };

        for (size_t i = 0; i < ELEMENTSOF(yes); i++)
                if (strcasecmp(v, yes[i]) == 0)
                        return 1;
        for (size_t i = 0; i < ELEMENTSOF(no); i++)
                if (strcasecmp(v, no[i]) == 0)
                        return 0;
        return -EINVAL;
}

static int conf_handler(void *user, const char *section, const char *name, const char *value) {
        ConfContext *c = user;
        _cleanup_free_ char *err = NULL;

        if (streq(name, "MetricsTextfileDir")) {
                if (value[0] && value[0] != '/') {
                        log_warning("%s: MetricsTextfileDir=%s is not an absolute path; expected the directory "
                                    "node_exporter's textfile collector reads (e.g. %s), or empty for none; "
                                    "the default is kept", c->path, value, BENCHD_METRICS_DEFAULT_DIR);
                        return 1;
                }
                char *d = strdup(value);
                if (!d)
                        return 0;
                free(*c->metrics_dir);
                *c->metrics_dir = d;
                return 1;
        }
        if (streq(name, "MaxQueuedJobsPerUser")) {
                char *end;
                unsigned long v;

                errno = 0;
                v = strtoul(value, &end, 10);
                if (errno != 0 || end == value || *end || value[0] == '-' || v > 65536)
                        log_warning("%s: MaxQueuedJobsPerUser=%s: expected a number of jobs from 0 (no bound) "
                                    "to 65536; the default (%u) is kept", c->path, value,
                                    *c->max_queued_per_user);
                else
                        *c->max_queued_per_user = (unsigned) v;
                return 1;
        }
        if (streq(name, "StepTimeoutGraceSec")) {
                char *end;
                unsigned long v;

                errno = 0;
                v = strtoul(value, &end, 10);
                if (errno != 0 || end == value || *end || value[0] == '-' || v < 1 || v > 3600)
                        log_warning("%s: StepTimeoutGraceSec=%s: expected a number of seconds from 1 to 3600 "
                                    "that a step may run past its runtime (or size estimate) before it is "
                                    "stopped; the default (%u) is kept", c->path, value, *c->step_grace_sec);
                else
                        *c->step_grace_sec = (unsigned) v;
                return 1;
        }
        if (streq(name, "AutoRun")) {
                int b = parse_boolean(value);

                if (b < 0)
                        log_warning("%s: AutoRun=%s: expected yes or no; the default (%s) is kept", c->path, value,
                                    *c->autorun ? "yes" : "no");
                else
                        *c->autorun = b;
                return 1;
        }
        if (regress_config_set(c->regress, name, value, &err) < 0)
                log_warning("%s: %s; the default is kept", c->path, strna(err));
        return 1;
}

/* MetricsTextfileDir='s default: $BENCHD_METRICS_TEXTFILE_DIR when set (the tests set it empty),
 * else node_exporter's directory when it exists (Debian's prometheus-node-exporter makes it), else
 * none. */
static int metrics_dir_default(char **ret) {
        const char *e = getenv("BENCHD_METRICS_TEXTFILE_DIR");
        struct stat st;

        if (!e)
                e = stat(BENCHD_METRICS_DEFAULT_DIR, &st) >= 0 && S_ISDIR(st.st_mode) ?
                        BENCHD_METRICS_DEFAULT_DIR : "";
        *ret = strdup(e);
        return *ret ? 0 : -ENOMEM;
}

static int load_conf(const char *path, RegressConfig *regress, char **ret_metrics_dir,
                     unsigned *max_queued_per_user, unsigned *step_grace_sec, bool *autorun) {
        _cleanup_free_ char *metrics_dir = NULL;
        ConfContext c = { .path = path, .regress = regress, .metrics_dir = &metrics_dir,
                          .max_queued_per_user = max_queued_per_user, .step_grace_sec = step_grace_sec,
                          .autorun = autorun };
        int r;

        *regress = REGRESS_CONFIG_DEFAULT;
        *max_queued_per_user = MANAGER_MAX_QUEUED_PER_USER_DEFAULT;
        *step_grace_sec = WORKER_STEP_GRACE_SEC_DEFAULT;
        /* The udev rule that sets BENCHD_AUTORUN is the opt-in; AutoRun=no overrules every rule. */
        *autorun = true;
        r = metrics_dir_default(&metrics_dir);
        if (r < 0)
                return r;

        r = ini_parse(path, conf_handler, &c);
        if (r > 0)
                log_warning("%s: parse error at line %d; the settings after it are not read", path, r);
        if (r == -2)
                return -ENOMEM;
        *ret_metrics_dir = TAKE_PTR(metrics_dir);
        return 0;
}

static int on_signal(sd_event_source *s, const struct signalfd_siginfo *si, void *userdata) {
        Manager *m = userdata;

        log_info("received %s", strna(sigabbrev_np((int) si->ssi_signo)));
        manager_stop(m);
        return 0;
}

static int run(int argc, char *argv[]) {
        Options o = { .max_queue = 64 };
        _cleanup_(sd_event_unrefp) sd_event *event = NULL;
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
        _cleanup_(db_closep) Db *db = NULL;
        _cleanup_free_ char *sysconf_profiles = NULL, *config = NULL, *db_error = NULL, *conf_error = NULL,
                            *metrics_dir = NULL;
        unsigned retention_days = 0;
        DeviceManager *devices = NULL;
        Manager *m = NULL;
        sigset_t ss;
        int r;

        r = parse_argv(argc, argv, &o);
        if (r <= 0)
                return r;

        if (!o.db_path)
                o.db_path = BENCHD_DEFAULT_DB;
        if (!o.worker_path)
                o.worker_path = getenv("BENCHD_WORKER") ?: BENCHD_WORKER_PATH;
        if (!o.profiles_dir)
                o.profiles_dir = BENCHD_PROFILES_DIR;
        if (asprintf(&sysconf_profiles, "%s/profiles", BENCHD_SYSCONF_DIR) < 0)
                return -ENOMEM;
        if (!o.config_path) {
                if (asprintf(&config, "%s/benchd.conf", BENCHD_SYSCONF_DIR) < 0)
                        return -ENOMEM;
                o.config_path = config;
        }

        /* Signals and children are handled on the event loop. */
        sigemptyset(&ss);
        sigaddset(&ss, SIGTERM);
        sigaddset(&ss, SIGINT);
        sigaddset(&ss, SIGCHLD);
        sigprocmask(SIG_BLOCK, &ss, NULL);
        signal(SIGPIPE, SIG_IGN);

        r = mkdir_parents(o.db_path);
        if (r < 0) {
                log_error_errno(r, "cannot create the directory of %s: %m", o.db_path);
                return r;
        }
        r = db_open_full(o.db_path, &db, &db_error);
        if (r < 0) {
                log_error("cannot open the database %s: %s", o.db_path, db_error ?: strerror(-r));
                return r;
        }

        r = sd_event_default(&event);
        if (r < 0) {
                log_error_errno(r, "cannot create the event loop: %m");
                return r;
        }

        r = bus_connect(o.bus_address, &bus);
        if (r < 0) {
                log_error_errno(r, "cannot connect to the %s: %m", o.bus_address ? o.bus_address : "system bus");
                return r;
        }
        r = sd_bus_attach_event(bus, event, SD_EVENT_PRIORITY_NORMAL);
        if (r < 0) {
                log_error_errno(r, "cannot attach the bus to the event loop: %m");
                return r;
        }
        (void) sd_bus_set_exit_on_disconnect(bus, true);

        r = retention_conf_parse(o.config_path, &retention_days, &conf_error);
        if (r < 0) {
                log_warning("%s: %s; keeping all samples until that is fixed", o.config_path,
                            conf_error ?: strerror(-r));
                retention_days = 0;
        } else if (retention_days > 0)
                log_info("SampleRetentionDays=%u: samples of runs older than that are removed daily",
                         retention_days);

        char *dirs[] = { sysconf_profiles, (char *) o.profiles_dir, NULL };
        RegressConfig regress;
        unsigned max_queued_per_user, step_grace_sec;
        bool autorun;
        r = load_conf(o.config_path, &regress, &metrics_dir, &max_queued_per_user, &step_grace_sec, &autorun);
        if (r < 0) {
                log_error_errno(r, "cannot read %s: %m", o.config_path);
                return r;
        }
        if (metrics_dir[0])
                log_info("the latest figures go to %s/benchd.prom for node_exporter (MetricsTextfileDir=)",
                         metrics_dir);
        ManagerConfig mc = {
                .db_path = o.db_path,
                .worker_path = o.worker_path,
                .profile_dirs = dirs,
                .max_queue = o.max_queue,
                .max_queued_per_user = max_queued_per_user,
                .step_grace_usec = step_grace_sec * USEC_PER_SEC,
                .regress = &regress,
                .sample_retention_days = retention_days,
                .metrics_dir = metrics_dir,
                .autorun = autorun,
        };
        r = manager_new(event, bus, db, NULL, &mc, &m);
        if (r < 0) {
                log_error_errno(r, "cannot register the bus objects: %m");
                goto finish;
        }

        /* After the Manager, whose ObjectManager announces the device objects. */
        r = device_manager_new(bus, event, db, o.config_path,
                               &(DeviceCallbacks) { .appeared = manager_autorun_appeared,
                                                    .layout_reported = manager_layout_reported, .userdata = m },
                               &devices);
        if (r < 0) {
                log_error_errno(r, "the device inventory failed to start (%m); destructive jobs will be refused");
                devices = NULL;
        }

        manager_set_devices(m, devices);

        r = sd_event_add_signal(event, NULL, SIGTERM, on_signal, m);
        if (r >= 0)
                r = sd_event_add_signal(event, NULL, SIGINT, on_signal, m);
        if (r < 0) {
                log_error_errno(r, "cannot watch signals: %m");
                goto finish;
        }

        /* The name first: a second benchd must fail before it touches the queue of the first.
         * Calls are not dispatched before the loop runs, so nobody sees a half-loaded queue. */
        r = sd_bus_request_name(bus, BENCHD_BUS_NAME, 0);
        if (r < 0) {
                log_error("cannot own the name %s: %s", BENCHD_BUS_NAME,
                          r == -EEXIST ? "another benchd runs on this bus" : strerror(-r));
                goto finish;
        }

        r = manager_load(m);
        if (r < 0)
                goto finish;

        (void) sd_event_set_watchdog(event, true);
        (void) sd_notify(false, "READY=1\nSTATUS=Waiting for jobs");
        log_info("%s ready on %s, database %s, worker %s", BENCHD_VERSION,
                o.bus_address ?: "the system bus", o.db_path, o.worker_path);

        r = sd_event_loop(event);
        (void) sd_notify(false, "STOPPING=1");
        if (r < 0)
                log_error_errno(r, "event loop failed: %m");

finish:
        m = manager_free(m);
        devices = device_manager_free(devices);
        return r;
}

int main(int argc, char *argv[]) {
        int r = run(argc, argv);
        return r < 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}
