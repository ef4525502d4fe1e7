/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The fleet's hosts as benchctl is given them, and benchctl gather UUID -H ... (docs/fleet.md
 * "Gathering a fleet run"): each host's runs of the fleet run imported whole into the collector's
 * history, idempotent by run uuid; the end of benchctl run -H ... gathers the same way
 * (fleet_run_gather()). verbs-fleet.c runs the fleet above this file.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>
#include <systemd/sd-bus.h>
#include <systemd/sd-id128.h>

#include "benchctl.h"
#include "bus.h"
#include "fleet-gather.h"
#include "model.h"
#include "shared/util.h"
#include "text.h"

const char *fleet_verb = "run";

int hosts_push(FleetHost **hosts, size_t *n, const char *name) {
        FleetHost *a;

        for (size_t i = 0; i < *n; i++)
                if (streq((*hosts)[i].name, name)) {
                        text_fprintf(stderr, "benchctl: %s: host '%s' is given twice; name each host once\n", fleet_verb, name);
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

int hosts_read_file(const char *path, FleetHost **hosts, size_t *n) {
        _cleanup_free_ char *line = NULL;
        size_t size = 0;
        unsigned lineno = 0;
        FILE *f;
        int r = 0;

        f = fopen(path, "re");
        if (!f) {
                return text_fprintf_errno(stderr, -errno, "benchctl: --hosts %s: %m\n", path);
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

const char *fleet_json_str(json_object *o, const char *key) {
        json_object *v;
        return json_object_object_get_ex(o, key, &v) && json_object_is_type(v, json_type_string)
                       ? json_object_get_string(v) : NULL;
}


int64_t fleet_json_i64(json_object *o, const char *key) {
        json_object *v;
        return json_object_object_get_ex(o, key, &v) && v ? json_object_get_int64(v) : 0;
}

/* ---- gather: every host's runs of the fleet run into one history ---- */

/* What a gather did with one host's runs. */
typedef struct GatherHost {
        const char *name;
        const char *error;      /* "unreachable: ...", or what failed; NULL: gathered */
        char *error_buf;
        uint64_t runs, imported, skipped, running;
} GatherHost;

/* A history's bus: the collector named (-H transport), or this host's (--bus-address, else the
 * system bus). */
static int collector_open(const BenchctlOptions *opts, sd_bus **ret, const char **ret_where) {
        BenchctlOptions o = *opts;

        if (opts->collect) {
                o.transport = BUS_TRANSPORT_REMOTE;
                o.address = opts->collect;
        } else if (opts->bus_address) {
                o.transport = BUS_TRANSPORT_ADDRESS;
                o.address = opts->bus_address;
        } else {
                o.transport = BUS_TRANSPORT_SYSTEM;
                o.address = NULL;
        }
        return bus_open(&o, ret, ret_where);
}

/* One ImportRuns document takes at most 64 MiB: a host's runs go in documents of at most this. */
#define GATHER_DOC_MAX (48u * 1024u * 1024u)

/* Imports runs (a batch of one host's) in one document whose "host" is the host's name in the
 * fleet run. */
static int gather_import(sd_bus *collector, GatherHost *g, json_object *list) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *m = NULL, *reply = NULL;
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        _cleanup_json_ json_object *doc = json_object_new_object();
        uint64_t imported = 0, skipped = 0;
        int r;

        if (!doc)
                return -ENOMEM;
        json_object_object_add(doc, "format", json_object_new_string("benchd-export"));
        json_object_object_add(doc, "version", json_object_new_int(1));
        json_object_object_add(doc, "host", json_object_new_string(g->name));
        json_object_object_add(doc, "runs", json_object_get(list));

        r = bus_new_manager_call(collector, "ImportRuns", &m);
        if (r >= 0)
                r = sd_bus_message_append(m, "s", json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PLAIN));
        if (r >= 0)
                r = sd_bus_call(collector, m, 3600ULL * USEC_PER_SEC, &error, &reply);
        if (r >= 0)
                r = sd_bus_message_read(reply, "tt", &imported, &skipped);
        if (r < 0) {
                free(g->error_buf);
                (void) asprintf(&g->error_buf, "importing its runs: %s", bus_error_message(&error, r));
                g->error = g->error_buf;
                return bus_error_is_unreachable(&error) || !error.name ? -EHOSTUNREACH : r;
        }
        g->imported += imported;
        g->skipped += skipped;
        return 0;
}

/* Imports the host's runs (whole, as fleet_runs_load() has them) into the collector's history:
 * those measured on that host and no longer running, in documents of at most GATHER_DOC_MAX. Import
 * skips a run whose uuid the history has: a second gather adds nothing. Returns 0, or
 * -EHOSTUNREACH when the collector did not answer (g->error says why). */
static int gather_host(sd_bus *collector, GatherHost *g, json_object *runs) {
        _cleanup_json_ json_object *list = json_object_new_array();
        size_t size = 0;
        int r;

        if (!list)
                return -ENOMEM;
        for (size_t i = 0; runs && i < json_object_array_length(runs); i++) {
                json_object *run = json_object_array_get_idx(runs, i);
                const char *status = fleet_json_str(run, "status");
                size_t len;

                if (fleet_json_str(run, "origin_host"))
                        continue;       /* gathered there from another host: that host's to give */
                g->runs++;
                if (!status || streq(status, "running") || streq(status, "queued")) {
                        g->running++;
                        continue;
                }
                len = strlen(json_object_to_json_string_ext(run, JSON_C_TO_STRING_PLAIN)) + 1;
                if (size > 0 && size + len > GATHER_DOC_MAX) {
                        r = gather_import(collector, g, list);
                        if (r < 0)
                                return r;
                        json_object_put(list);
                        list = json_object_new_array();
                        if (!list)
                                return -ENOMEM;
                        size = 0;
                }
                json_object_array_add(list, json_object_get(run));
                size += len;
        }
        if (json_object_array_length(list) == 0)
                return 0;
        return gather_import(collector, g, list);
}

/* What a gather did, as --json prints it. */
static json_object *gather_json(const char *uuid, const char *where, const GatherHost *g, size_t n) {
        json_object *o = json_object_new_object(), *hs = json_object_new_array();
        uint64_t imported = 0, skipped = 0;

        for (size_t i = 0; i < n; i++) {
                json_object *x = json_object_new_object();

                json_object_object_add(x, "host", json_object_new_string(g[i].name));
                if (g[i].error)
                        json_object_object_add(x, "error", json_object_new_string(g[i].error));
                json_object_object_add(x, "runs", json_object_new_uint64(g[i].runs));
                json_object_object_add(x, "imported", json_object_new_uint64(g[i].imported));
                json_object_object_add(x, "skipped", json_object_new_uint64(g[i].skipped));
                json_object_object_add(x, "running", json_object_new_uint64(g[i].running));
                json_object_array_add(hs, x);
                imported += g[i].imported;
                skipped += g[i].skipped;
        }
        json_object_object_add(o, "fleet_uuid", json_object_new_string(uuid));
        json_object_object_add(o, "collector", json_object_new_string(where));
        json_object_object_add(o, "hosts", hs);
        json_object_object_add(o, "imported", json_object_new_uint64(imported));
        json_object_object_add(o, "skipped", json_object_new_uint64(skipped));
        return o;
}

static void gather_print(const char *uuid, const char *where, const GatherHost *g, size_t n) {
        uint64_t imported = 0, skipped = 0, runs = 0;

        text_printf("Gathering fleet run %s into %s:\n", uuid, where);
        for (size_t i = 0; i < n; i++) {
                if (g[i].error) {
                        text_printf("  %-20s %s\n", g[i].name, g[i].error);
                        continue;
                }
                text_printf("  %-20s %" PRIu64 " run%s, %" PRIu64 " new, %" PRIu64 " already there", g[i].name,
                            g[i].runs, g[i].runs == 1 ? "" : "s", g[i].imported, g[i].skipped);
                if (g[i].running > 0)
                        printf(", %" PRIu64 " still running (gather again when it ends)", g[i].running);
                printf("\n");
                imported += g[i].imported;
                skipped += g[i].skipped;
                runs += g[i].runs;
        }
        if (imported == 0 && runs > 0)
                printf("Nothing new: all %" PRIu64 " runs gathered were already in that history.\n", skipped);
        else
                printf("Gathered %" PRIu64 " new run%s; %" PRIu64 " already there.\n", imported, imported == 1 ? "" : "s",
                       skipped);
}

bool fleet_uuid_valid(const char *s) {
        sd_id128_t id;
        return s && strlen(s) == SD_ID128_UUID_STRING_MAX - 1 && sd_id128_from_string(s, &id) >= 0;
}

int verb_gather(int argc, char **argv, const BenchctlOptions *opts) {
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *collector = NULL;
        _cleanup_json_ json_object *out = NULL;
        FleetHost *hosts = NULL;
        GatherHost *g = NULL;
        const char *uuid = argv[1], *where = NULL;
        size_t n = 0;
        bool found = false;
        int r, ret = BENCHCTL_EXIT_OK;

        fleet_verb = "gather";
        if (!fleet_uuid_valid(uuid)) {
                text_fprintf(stderr, "benchctl: gather: '%s' is not a fleet run's uuid; give the one benchctl run "
                             "printed (\"Fleet run 0f3c...\"), e.g. 6a1e3c0d-8d57-4b7e-9a3e-0c1d2e3f4a5b\n", argv[1]);
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
        if (n == 0) {
                fprintf(stderr, "benchctl: gather: name the fleet run's hosts: -H [USER@]HOST for each, or --hosts "
                        "FILE\n");
                ret = BENCHCTL_EXIT_USAGE;
                goto finish;
        }
        g = calloc(n, sizeof(GatherHost));
        if (!g) {
                ret = BENCHCTL_EXIT_FAILURE;
                goto finish;
        }
        r = collector_open(opts, &collector, &where);
        if (r < 0) {
                text_fprintf_errno(stderr, r, "benchctl: gather: cannot connect to %s, the history to gather into: "
                                   "%m; name another with --collect [USER@]HOST\n", where);
                ret = BENCHCTL_EXIT_UNREACHABLE;
                goto finish;
        }
        for (size_t i = 0; i < n; i++) {
                _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
                _cleanup_json_ json_object *filter = json_object_new_object(), *runs = NULL, *full = json_object_new_array();

                g[i].name = hosts[i].name;
                if (!filter || !full) {
                        ret = BENCHCTL_EXIT_FAILURE;
                        goto finish;
                }
                r = sd_bus_open_system_remote(&hosts[i].bus, hosts[i].name);
                if (r >= 0) {
                        _cleanup_(sd_bus_message_unrefp) sd_bus_message *m = NULL, *reply = NULL;

                        json_object_object_add(filter, "fleet_uuid", json_object_new_string(uuid));
                        json_object_object_add(filter, "limit", json_object_new_uint64(10000));
                        r = bus_new_manager_call(hosts[i].bus, "QueryRuns", &m);
                        if (r >= 0)
                                r = bus_append_filter(m, filter);
                        if (r >= 0)
                                r = sd_bus_call(hosts[i].bus, m, 0, &error, &reply);
                        if (r >= 0)
                                r = bus_message_read_json(reply, &runs);
                }
                if (r < 0) {
                        /* This host's runs cannot be read: named, and the others go on. */
                        (void) asprintf(&g[i].error_buf, "%s: %s", error.name && !bus_error_is_unreachable(&error) ?
                                        "refused" : "unreachable", bus_error_message(&error, r));
                        g[i].error = g[i].error_buf;
                        if (strncmp(g[i].error, "unreachable", 11) == 0)
                                ret = BENCHCTL_EXIT_UNREACHABLE;
                        else if (ret == 0)
                                ret = BENCHCTL_EXIT_FAILURE;
                        continue;
                }
                for (size_t k = json_object_array_length(runs); k > 0; k--) {
                        json_object *run = NULL;

                        r = run_details(hosts[i].bus, (uint64_t) fleet_json_i64(json_object_array_get_idx(runs, k - 1), "id"),
                                        &run);
                        if (r != 0)
                                break;
                        json_object_array_add(full, run);
                }
                if (r != 0) {
                        g[i].error = "its runs could not be read whole (see above)";
                        if (ret == 0)
                                ret = BENCHCTL_EXIT_FAILURE;
                        continue;
                }
                r = gather_host(collector, &g[i], full);
                if (r == -EHOSTUNREACH) {
                        text_fprintf(stderr, "benchctl: gather: %s, the history to gather into, did not answer: %s\n",
                                     where, g[i].error);
                        ret = BENCHCTL_EXIT_UNREACHABLE;
                        goto finish;
                }
                if (r < 0 && ret == 0)
                        ret = BENCHCTL_EXIT_FAILURE;
                if (g[i].runs > 0)
                        found = true;
        }
        for (size_t i = 0; i < n; i++)
                if (g[i].error && strncmp(g[i].error, "unreachable", 11) == 0)
                        text_fprintf(stderr, "benchctl: gather: host %s is %s; its runs were not gathered (gather "
                                     "again when it answers)\n", g[i].name, g[i].error);
        if (opts->json) {
                out = gather_json(uuid, where, g, n);
                print_json(out);
        } else
                gather_print(uuid, where, g, n);
        if (!found && ret == 0) {
                text_fprintf(stderr, "benchctl: gather: no host has a run of fleet run %s\n", uuid);
                ret = BENCHCTL_EXIT_NOT_FOUND;
        }
finish:
        for (size_t i = 0; i < n; i++) {
                sd_bus_flush_close_unref(hosts[i].bus);
                free(hosts[i].name);
                if (g)
                        free(g[i].error_buf);
        }
        free(hosts);
        free(g);
        return ret;
}

void gather_print_json(json_object *o) {
        json_object *hs = NULL;
        GatherHost *g;
        size_t n;

        if (!json_object_object_get_ex(o, "hosts", &hs))
                return;
        n = json_object_array_length(hs);
        g = calloc(n ?: 1, sizeof(GatherHost));
        if (!g)
                return;
        for (size_t i = 0; i < n; i++) {
                json_object *x = json_object_array_get_idx(hs, i);
                g[i] = (GatherHost) {
                        .name = fleet_json_str(x, "host"),
                        .error = fleet_json_str(x, "error"),
                        .runs = (uint64_t) fleet_json_i64(x, "runs"),
                        .imported = (uint64_t) fleet_json_i64(x, "imported"),
                        .skipped = (uint64_t) fleet_json_i64(x, "skipped"),
                        .running = (uint64_t) fleet_json_i64(x, "running"),
                };
        }
        gather_print(fleet_json_str(o, "fleet_uuid"), fleet_json_str(o, "collector"), g, n);
        free(g);
}

/* The end of benchctl run -H ...: the hosts' runs (loaded already) gathered into the collector's
 * history, as gather does. Without --collect and without a benchd here to gather into, the runs
 * stay on each host, which is said, and the exit status does not change; with --collect, a
 * collector that does not answer is exit status 3. Returns what gather --json prints, or NULL. */
json_object *fleet_run_gather(const BenchctlOptions *opts, FleetHost *hosts, size_t n, const char *uuid,
                                     int *ret) {
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *collector = NULL;
        _cleanup_free_ GatherHost *g = calloc(n ?: 1, sizeof(GatherHost));
        json_object *o = NULL;
        const char *where = NULL, *why = NULL;
        int r;

        if (!g)
                return NULL;
        r = collector_open(opts, &collector, &where);
        if (r < 0)
                why = strerror(-r);
        for (size_t i = 0; r >= 0 && i < n; i++) {
                g[i].name = hosts[i].name;
                if (!hosts[i].bus) {
                        g[i].error = "unreachable: its runs, if any, were not gathered";
                        continue;
                }
                if (hosts[i].lost) {
                        g[i].error = "lost mid-run: its runs stay in its history (benchctl gather when it answers)";
                        continue;
                }
                r = gather_host(collector, &g[i], hosts[i].runs);
                if (r == -EHOSTUNREACH)
                        why = g[i].error;       /* the collector did not answer */
                else if (r < 0) {
                        /* This host's runs refused (named in its line): the others go on. */
                        if (*ret == 0)
                                *ret = BENCHCTL_EXIT_FAILURE;
                        r = 0;
                }
        }
        if (r < 0) {
                if (opts->collect) {
                        text_fprintf(stderr, "benchctl: run: cannot gather the runs into %s: %s; they stay on each "
                                     "host (benchctl gather %s ... --collect HOST)\n", where, strna(why), uuid);
                        if (*ret == 0)
                                *ret = BENCHCTL_EXIT_UNREACHABLE;
                } else
                        text_fprintf(stderr, "benchctl: run: the runs stay on each host: no benchd on %s to gather "
                                     "them into (%s); gather them with benchctl gather %s -H HOST... --collect HOST\n",
                                     where, strna(why), uuid);
        } else
                o = gather_json(uuid, where, g, n);
        for (size_t i = 0; i < n; i++)
                free(g[i].error_buf);
        return o;
}
