/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The device verbs: devices (an lsblk-like table with benchd's write verdict) and device NAME
 * (every Device property and the number of runs in the history). Devices are read through the
 * ObjectManager in one call, and a device is found by its kernel name, node or any symlink, so
 * the client does not depend on how object paths are escaped.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "benchctl.h"
#include "bus.h"
#include "format.h"
#include "record.h"
#include "table.h"
#include "model.h"
#include "text.h"

static int device_cmp(const void *a, const void *b) {
        json_object *const *x = a, *const *y = b;
        return strverscmp(rec_str(*x, "Name") ?: "", rec_str(*y, "Name") ?: "");
}

/* Every device's properties, as an array sorted by name. */
static int get_devices(sd_bus *bus, json_object **ret) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *m = NULL;
        _cleanup_json_ json_object *objects = NULL, *devices = json_object_new_array();
        int r;

        if (!devices)
                return BENCHCTL_EXIT_FAILURE;
        r = sd_bus_message_new_method_call(bus, &m, BENCHD_BUS_NAME, BENCHD_MANAGER_PATH,
                                           "org.freedesktop.DBus.ObjectManager", "GetManagedObjects");
        if (r < 0)
                return BENCHCTL_EXIT_FAILURE;
        r = bus_call_json(bus, "list devices", m, &objects);
        if (r != 0)
                return r;

        json_object_object_foreach(objects, path, interfaces) {
                json_object *props = NULL;
                if (strncmp(path, BENCHD_DEVICE_PATH_PREFIX "/", strlen(BENCHD_DEVICE_PATH_PREFIX "/")) != 0)
                        continue;
                if (!json_object_object_get_ex(interfaces, BENCHD_DEVICE_IFACE, &props))
                        continue;
                json_object_array_add(devices, json_object_get(props));
        }
        json_object_array_sort(devices, device_cmp);
        *ret = TAKE_PTR(devices);
        return 0;
}

static const char *verdict_text(json_object *dev) {
        const char *v = rec_str(dev, "WriteVerdict");
        bool scratch = false;

        if (v && *v)
                return v;
        rec_bool(dev, "Scratch", &scratch);
        return scratch ? "ok (scratch)" : "ok";
}

/* The TYPE cell: the type, and for md and dm devices what they are and their members
 * ("md raid1 of vdc, vdd", "dm lvm vg/lv of md127"). */
static const char *type_text(json_object *dev, char *buf, size_t size) {
        const char *type = rec_str(dev, "Type") ?: "", *volume = rec_str(dev, "Volume");
        _cleanup_free_ char *members = rec_to_text(dev, "Slaves");

        if (!volume || !*volume)
                return type;
        snprintf(buf, size, "%s %s%s%s", type, volume, members && *members ? " of " : "", members ?: "");
        return buf;
}

int verb_devices(int argc, char **argv, const BenchctlOptions *opts) {
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
        _cleanup_json_ json_object *devices = NULL;
        _cleanup_(table_freep) Table *t = NULL;
        static const char *const headers[] = { "NAME", "TYPE", "SIZE", "MODEL", "FS", "MOUNTPOINTS", "WRITE" };
        size_t n;
        int r;

        r = bus_connect(opts, &bus);
        if (r != 0)
                return r;
        r = get_devices(bus, &devices);
        if (r != 0)
                return r;
        if (opts->json) {
                print_json(devices);
                return BENCHCTL_EXIT_OK;
        }

        n = json_object_array_length(devices);
        if (n == 0) {
                if (opts->legend)
                        printf("No block devices known to benchd.\n");
                return BENCHCTL_EXIT_OK;
        }
        if (table_new(headers, ELEMENTSOF(headers), &t) < 0)
                return BENCHCTL_EXIT_FAILURE;
        table_set_align(t, 2, TABLE_ALIGN_RIGHT);
        table_set_shrinkable(t, 3, 8);
        table_set_shrinkable(t, 5, 11);
        table_set_shrinkable(t, 6, 12);
        for (size_t i = 0; i < n; i++) {
                json_object *dev = json_object_array_get_idx(devices, i);
                _cleanup_free_ char *mounts = rec_to_text(dev, "MountPoints");
                const char *model = rec_str(dev, "Model"), *fs = rec_str(dev, "FsType");
                char a[FORMAT_BUF_MAX], type[256];
                uint64_t size;

                table_add_cell(t, rec_str(dev, "Name"));
                table_add_cell(t, type_text(dev, type, sizeof(type)));
                table_add_cell(t, rec_u64(dev, "Size", &size) ? format_bytes(a, sizeof a, size) : "");
                table_add_cell(t, model && *model ? model : "-");
                table_add_cell(t, fs && *fs ? fs : "-");
                table_add_cell(t, mounts && *mounts ? mounts : "-");
                table_add_cell(t, verdict_text(dev));
        }
        table_print(t, opts->legend);
        if (opts->legend)
                printf("\n%zu device%s listed.\n", n, n == 1 ? "" : "s");
        return BENCHCTL_EXIT_OK;
}

#define KW 16

/* Labels for the human view; --json keeps the property names. */
static const char *property_label(const char *property) {
        static const char *const labels[][2] = {
                { "SysPath",           "Sysfs path" },
                { "HistoryId",         "History id" },
                { "BackingFile",       "Backing file" },
                { "LogicalBlockSize",  "Logical block" },
                { "PhysicalBlockSize", "Physical block" },
                { "ReadOnly",          "Read-only" },
                { "FsType",            "Filesystem" },
                { "FsUuid",            "FS UUID" },
                { "FsLabel",           "FS label" },
                { "FsUsage",           "FS usage" },
                { "PartitionTable",    "Partition table" },
                { "MountPoints",       "Mount points" },
                { "InUse",             "In use" },
                { "WriteVerdict",      "Write verdict" },
                { "AutoRun",           "Autorun profile" },
        };

        for (size_t i = 0; i < ELEMENTSOF(labels); i++)
                if (streq(labels[i][0], property))
                        return labels[i][1];
        return property;
}

static bool device_matches(json_object *dev, const char *name) {
        json_object *links = NULL;

        if (streq_ptr(rec_str(dev, "Name"), name) || streq_ptr(rec_str(dev, "Node"), name))
                return true;
        if (strncmp(name, "/dev/", 5) == 0 && streq_ptr(rec_str(dev, "Name"), name + 5))
                return true;
        if (json_object_object_get_ex(dev, "Symlinks", &links) && json_object_is_type(links, json_type_array))
                for (size_t i = 0; i < json_object_array_length(links); i++)
                        if (streq_ptr(json_object_get_string(json_object_array_get_idx(links, i)), name))
                                return true;
        return false;
}

int verb_device(int argc, char **argv, const BenchctlOptions *opts) {
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
        _cleanup_json_ json_object *devices = NULL, *filter = json_object_new_object(), *runs = NULL;
        json_object *dev = NULL;
        const char *name = argv[1];
        uint64_t identity_runs;
        char extra[256] = "";
        size_t n_runs;
        int r;

        if (!filter)
                return BENCHCTL_EXIT_FAILURE;
        r = bus_connect(opts, &bus);
        if (r != 0)
                return r;
        r = get_devices(bus, &devices);
        if (r != 0)
                return r;
        for (size_t i = 0; i < json_object_array_length(devices); i++)
                if (device_matches(json_object_array_get_idx(devices, i), name)) {
                        dev = json_object_array_get_idx(devices, i);
                        break;
                }
        /* A local /dev/disk/by-* path udev did not tell benchd about: follow it here. */
        if (!dev && opts->transport != BUS_TRANSPORT_REMOTE && strncmp(name, "/dev/", 5) == 0) {
                _cleanup_free_ char *resolved = realpath(name, NULL);
                for (size_t i = 0; resolved && i < json_object_array_length(devices); i++)
                        if (device_matches(json_object_array_get_idx(devices, i), resolved)) {
                                dev = json_object_array_get_idx(devices, i);
                                break;
                        }
        }
        if (!dev) {
                text_fprintf(stderr, "benchctl: device %s: no such block device known to benchd "
                             "(benchctl devices lists them)\n", name);
                return BENCHCTL_EXIT_NOT_FOUND;
        }

        /* The history count: runs on this device by kernel name (benchd also matches identity). */
        json_object_object_add(filter, "device", json_object_new_string(rec_str(dev, "Name") ?: name));
        json_object_object_add(filter, "limit", json_object_new_uint64(10000));
        r = query_runs(bus, filter, &runs);
        if (r != 0)
                return r;
        n_runs = json_object_array_length(runs);

        if (opts->json) {
                json_object *out = json_object_get(dev);
                json_object_object_add(out, "HistoryRuns", json_object_new_uint64(n_runs));
                print_json(out);
                json_object_put(out);
                return BENCHCTL_EXIT_OK;
        }

        text_printf("Device %s\n", rec_str(dev, "Name") ?: name);
        json_object_object_foreach(dev, key, value) {
                if (streq(key, "HistoryRuns"))
                        continue; /* folded into the History line */
                _cleanup_free_ char *text = NULL;
                char a[FORMAT_BUF_MAX];

                if (json_object_is_type(value, json_type_boolean))
                        text = strdup(json_object_get_boolean(value) ? "yes" : "no");
                else if (streq(key, "Size") || streq(key, "LogicalBlockSize") || streq(key, "PhysicalBlockSize")) {
                        uint64_t u = rec_u64_or(dev, key, 0);
                        if (asprintf(&text, "%s (%" PRIu64 " bytes)", format_bytes(a, sizeof a, u), u) < 0)
                                text = NULL;
                } else if (streq(key, "WriteVerdict"))
                        text = strdup(verdict_text(dev));
                else
                        text = rec_to_text(dev, key);
                kv_print(stdout, KW, property_label(key), "%s", text && *text ? text : "-");
        }
        /* QueryRuns matches the kernel name; HistoryRuns counts the physical identity, which also
         * covers runs made while the disk had another name. */
        if (rec_u64(dev, "HistoryRuns", &identity_runs) && identity_runs != n_runs)
                snprintf(extra, sizeof extra, "; %" PRIu64 " under its identity %s", identity_runs,
                         rec_str(dev, "Identity") ?: "");
        kv_print(stdout, KW, "History", "%zu run%s%s%s%s%s", n_runs, n_runs == 1 ? "" : "s",
                 n_runs > 0 ? " (benchctl results --device " : "", n_runs > 0 ? rec_str(dev, "Name") ?: name : "",
                 n_runs > 0 ? ")" : "", extra);
        return BENCHCTL_EXIT_OK;
}
