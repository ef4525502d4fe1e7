/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The device manager (issue 4): owns the inventory of Device values, keeps it current from a udev
 * monitor (the kernel's own events, signatures probed with libblkid, when no udevd runs), a
 * libmount monitor and /proc/swaps polling on the daemon's event loop, and exports it
 * as one fallback vtable plus a node enumerator under /org/benchd/Benchd1/device, so objects come
 * and go without per-object slots. Any event refreshes the device it names, then the dynamic part
 * (mounts, holders, verdict) of every device: a mount on loop0p1 changes loop0's verdict too, and
 * there are tens of devices, not thousands. Destructive checks never trust this cache: they gather
 * fresh facts and probe the signature at the moment of the check. A whole device whose udev record
 * carries BENCHD_AUTORUN is told to the owner (DeviceCallbacks.appeared) with what the devices
 * table held before its sighting is recorded: whether a disk is new is decided by the owner
 * (bus/manager-autorun.c), never here. The file's own helpers are inventory_*, so that they are
 * not taken for daemon/bus/manager.c's Manager.
 *
 * ScratchDevices= (scratch.h) is judged here on every device the inventory builds: each path in it
 * is bound to the identity of the device it names when first seen (at the enumeration or at an
 * event), the binding is stored so that a restart keeps it until benchd.conf is written again, and
 * a device under a bound name with another identity is logged once and is not scratch. The check
 * of a write (device_manager_check_destructive(), in a helper process) judges the device's
 * identity read afresh against the bindings as they were when the helper was forked.
 */
#include <errno.h>
#include <fcntl.h>
#include <ini.h>
#include <libmount.h>
#include <libudev.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>

#include "config.h"
#include "store/db.h"
#include "devices/device-facts.h"
#include "devices/device-manager.h"
#include "devices/device.h"
#include "devices/locate.h"
#include "devices/scratch.h"
#include "devices/verdict.h"
#include "shared/blockdev.h"
#include "shared/strv.h"
#include "shared/util.h"
#include "shared/log.h"

#define log_dev(level, fmt, ...) log_full((level), "devices: " fmt, ##__VA_ARGS__)
#define log_dev_errno(level, error, fmt, ...) log_full_errno((level), (error), "devices: " fmt, ##__VA_ARGS__)

#define DEVICES_MAX 4096

struct DeviceManager {
        sd_bus *bus;
        sd_event *event;
        Db *db;
        char *conf_path;
        int64_t conf_mtime_nsec;        /* benchd.conf's when it was read: the bindings' key */
        ScratchList scratch;            /* ScratchDevices= */
        DeviceCallbacks callbacks;

        struct udev *udev;
        struct udev_monitor *monitor;
        sd_event_source *udev_source;
        struct libmnt_monitor *mnt_monitor;
        sd_event_source *mnt_source;
        int swaps_fd;
        sd_event_source *swaps_source;
        sd_bus_slot *vtable_slot, *enum_slot;
        bool udevd_running;

        Device **devices;
        size_t n_devices;
};

static Device *inventory_find(DeviceManager *m, const char *name) {
        for (size_t i = 0; i < m->n_devices; i++)
                if (streq(m->devices[i]->name, name))
                        return m->devices[i];
        return NULL;
}

static ssize_t inventory_index(DeviceManager *m, const char *name) {
        for (size_t i = 0; i < m->n_devices; i++)
                if (streq(m->devices[i]->name, name))
                        return (ssize_t) i;
        return -1;
}

/* ---- configuration ---- */

static int conf_handler(void *user, const char *section, const char *name, const char *value) {
        DeviceManager *m = user;
        _cleanup_strv_free_ char **errors = NULL;

        if (!streq(name, "ScratchDevices"))
                return 1;
        if (scratch_list_assign(&m->scratch, value, &errors) < 0)
                return 0;
        for (char **e = errors; e && *e; e++)
                log_dev(LOG_ERR, "%s: ScratchDevices=: %s; the word is ignored, nothing it names is scratch",
                        m->conf_path, *e);
        return 1;
}

/* Reads ScratchDevices= and, for each path in it, the identity it was bound to while benchd.conf
 * had the modification time it has now (a file written since names its paths again). */
static void inventory_load_conf(DeviceManager *m) {
        struct stat st;
        int r;

        r = ini_parse(m->conf_path, conf_handler, m);
        if (r == -1)
                return;         /* no file: nothing marked scratch */
        if (r != 0)
                log_dev(LOG_INFO, "%s: parse error at line %d; ScratchDevices= may be incomplete", m->conf_path, r);
        m->conf_mtime_nsec = stat(m->conf_path, &st) == 0 ?
                (int64_t) st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec : -1;
        for (size_t i = 0; i < m->scratch.n; i++) {
                ScratchEntry *e = &m->scratch.entries[i];

                if (e->kind != SCRATCH_PATH) {
                        log_dev(LOG_INFO, "scratch device (ScratchDevices=): %s", e->spelling);
                        continue;
                }
                r = m->db ? db_scratch_binding_get(m->db, e->spelling, m->conf_mtime_nsec, &e->bound) : 0;
                if (r < 0)
                        log_dev_errno(LOG_WARNING, r, "ScratchDevices=%s: cannot read its binding (%m: %s); it is "
                                      "bound to the device it names when benchd sees it", e->spelling,
                                      db_last_error(m->db));
                if (r > 0)
                        log_dev(LOG_INFO, "scratch device (ScratchDevices=): %s, bound to %s (%s is unchanged "
                                "since it was bound)", e->spelling, e->bound, m->conf_path);
                else
                        log_dev(LOG_INFO, "scratch device (ScratchDevices=): %s, to be bound to the device it names "
                                "when benchd sees it", e->spelling);
        }
}

/* What each path in l names now (the rest of the list needs no resolving). */
static void scratch_resolve(ScratchList *l) {
        for (size_t i = 0; i < l->n; i++) {
                ScratchEntry *e = &l->entries[i];
                struct stat st;

                if (e->kind == SCRATCH_PATH)
                        e->resolved = stat(e->value, &st) == 0 && S_ISBLK(st.st_mode) ? st.st_rdev : 0;
        }
}

static ScratchDevice scratch_device_of(const Device *d) {
        return (ScratchDevice) {
                .name = d->name,
                .devnum = d->devnum,
                .identity = d->bind_identity,
                .partition = streq_ptr(d->type, "partition"),
                .wwn = d->wwn,
                .serial = d->serial,
                .backing_file = d->backing_file,
        };
}

/* The paths that name d now and were bound to nothing are bound to its identity (and the binding
 * stored); then ScratchDevices= judges d. A path that names another identity than it was bound to
 * is logged once per identity. *ret points into *ret_reason and *ret_note, which the caller frees. */
static int inventory_scratch(DeviceManager *m, const Device *d, DeviceScratch *ret, char **ret_reason,
                             char **ret_note) {
        ScratchDevice sd = scratch_device_of(d);
        _cleanup_free_ bool *unbound = NULL;
        ScratchMatch match;
        size_t at;
        int r;

        *ret = (DeviceScratch) {};
        *ret_reason = *ret_note = NULL;
        if (m->scratch.n == 0)
                return 0;
        unbound = calloc(m->scratch.n, sizeof(bool));
        if (!unbound)
                return -ENOMEM;
        for (size_t i = 0; i < m->scratch.n; i++)
                unbound[i] = m->scratch.entries[i].kind == SCRATCH_PATH && !m->scratch.entries[i].bound;
        r = scratch_bind(&m->scratch, &sd);
        if (r < 0)
                return r;
        for (size_t i = 0; r > 0 && i < m->scratch.n; i++) {
                const ScratchEntry *e = &m->scratch.entries[i];
                int k;

                if (!unbound[i] || !e->bound)
                        continue;
                log_dev(LOG_INFO, "ScratchDevices=%s bound to %s (%s), the device it names now", e->spelling, e->bound,
                        d->name);
                if (!m->db)
                        continue;
                k = db_scratch_binding_set(m->db, e->spelling, e->bound, m->conf_mtime_nsec, now_usec(CLOCK_REALTIME));
                if (k < 0)
                        log_dev_errno(LOG_WARNING, k, "ScratchDevices=%s: cannot store its binding (%m: %s); after a "
                                      "restart it is bound again to the device it names then", e->spelling,
                                      db_last_error(m->db));
        }

        match = scratch_judge(&m->scratch, &sd, &at);
        r = scratch_reason(&m->scratch, &sd, match, at, m->conf_path, ret_reason, ret_note);
        if (r < 0)
                return r;
        if (match == SCRATCH_MATCH_OTHER && !streq_ptr(m->scratch.entries[at].logged, d->bind_identity)) {
                ScratchEntry *e = &m->scratch.entries[at];

                log_dev(LOG_WARNING, "%s (%s) is not the device ScratchDevices=%s was bound to (%s): it is not "
                        "scratch until %s is written again and benchd restarted", d->name, d->bind_identity,
                        e->spelling, e->bound, m->conf_path);
                free(e->logged);
                e->logged = strdup(d->bind_identity);
        }
        *ret = (DeviceScratch) {
                .listed = match == SCRATCH_MATCH_YES,
                .reason = *ret_reason,
                .note = *ret_note,
        };
        return 0;
}

/* device_update_dynamic() with what ScratchDevices= says of d now. */
static int inventory_update_dynamic(DeviceManager *m, Device *d, const DeviceTables *tables, char ***changed) {
        _cleanup_free_ char *reason = NULL, *note = NULL;
        DeviceScratch s;
        int r;

        r = inventory_scratch(m, d, &s, &reason, &note);
        if (r < 0)
                /* Not knowing whether it is marked is not "marked". */
                s = (DeviceScratch) {};
        return device_update_dynamic(d, tables, &s, m->conf_path, changed);
}

/* ---- bus objects ---- */

static int device_find(sd_bus *bus, const char *path, const char *interface, void *userdata,
                       void **found, sd_bus_error *error) {
        DeviceManager *m = userdata;
        _cleanup_free_ char *name = NULL;
        Device *d;
        int r;

        r = sd_bus_path_decode(path, DEVICE_PREFIX, &name);
        if (r <= 0)
                return 0;
        d = inventory_find(m, name);
        if (!d)
                return 0;
        *found = d;
        return 1;
}

static int device_enumerate(sd_bus *bus, const char *path, void *userdata, char ***nodes,
                            sd_bus_error *error) {
        DeviceManager *m = userdata;
        _cleanup_strv_free_ char **l = calloc(m->n_devices + 1, sizeof(char *));

        if (!l)
                return -ENOMEM;
        for (size_t i = 0; i < m->n_devices; i++) {
                l[i] = strdup(m->devices[i]->path);
                if (!l[i])
                        return -ENOMEM;
        }
        *nodes = TAKE_PTR(l);
        return 0;
}

/* ---- inventory ---- */

static void inventory_record(DeviceManager *m, Device *d) {
        DbDevice row;
        int64_t id;
        int r;

        d->db = m->db;
        if (!m->db || streq(d->type, "partition") || d->size == 0)
                return;        /* history is about physical devices (and arrays, volumes) */
        row = (DbDevice) {
                .identity = d->identity,
                .model = d->model,
                .vendor = d->vendor,
                .serial = d->serial,
                .wwn = d->wwn,
                .firmware = d->firmware,
                .name = d->name,
                .size = d->size,
                .rotational = d->rotational,
                .logical_block_size = d->logical_block_size,
                .physical_block_size = d->physical_block_size,
        };
        r = db_device_upsert(m->db, &row, &id);
        if (r < 0) {
                log_dev_errno(LOG_WARNING, r, "cannot record %s (%s) in the database: %m", d->name, d->identity);
                return;
        }
        d->db_id = id;
}

/* BENCHD_AUTORUN on a device that would be recorded: the owner is told what the history held before
 * this sighting, which inventory_record() is about to update. */
static void inventory_autorun(DeviceManager *m, const Device *d, bool first) {
        _cleanup_free_ char *known_firmware = NULL;
        int r;

        if (!d->autorun || !m->callbacks.appeared)
                return;
        if (!m->db || streq(d->type, "partition") || d->size == 0) {
                log_dev(LOG_DEBUG, "%s: BENCHD_AUTORUN=%s ignored: only whole devices with a size are benchmarked "
                        "when they appear", d->name, d->autorun);
                return;
        }
        r = db_device_find(m->db, d->identity, &known_firmware);
        if (r < 0) {
                log_dev_errno(LOG_WARNING, r, "%s (identity %s): cannot tell whether the database knows it (%m: %s); "
                              "BENCHD_AUTORUN=%s is not acted on this time", d->name, d->identity,
                              db_last_error(m->db), d->autorun);
                return;
        }
        m->callbacks.appeared(&(DeviceAppearance) {
                        .first = first,
                        .name = d->name,
                        .node = d->node,
                        .identity = d->identity,
                        .stable = d->wwn || d->serial,
                        .model = d->model,
                        .firmware = d->firmware,
                        .autorun = d->autorun,
                        .scratch = d->scratch,
                        .known = r > 0,
                        .known_firmware = known_firmware,
                }, m->callbacks.userdata);
}

static void inventory_remove(DeviceManager *m, const char *name) {
        ssize_t i = inventory_index(m, name);
        _cleanup_free_ char *path = NULL;
        int r;

        if (i < 0)
                return;
        path = TAKE_PTR(m->devices[i]->path);
        device_free(m->devices[i]);
        memmove(m->devices + i, m->devices + i + 1, (m->n_devices - (size_t) i - 1) * sizeof(Device *));
        m->n_devices--;
        r = sd_bus_emit_interfaces_removed(m->bus, path, DEVICE_INTERFACE, NULL);
        if (r < 0 && r != -ESRCH)
                log_dev_errno(LOG_WARNING, r, "cannot announce the removal of %s: %m", name);
}

/* PropertiesChanged for the properties of d named in changed, if any. */
static void inventory_announce_changes(DeviceManager *m, Device *d, char **changed) {
        int r;

        if (!changed || !changed[0])
                return;
        r = sd_bus_emit_properties_changed_strv(m->bus, d->path, DEVICE_INTERFACE, changed);
        if (r < 0)
                log_dev_errno(LOG_WARNING, r, "cannot announce changes of %s: %m", d->name);
}

/* Builds the device anew from udev and puts it in place of the old value, announcing the
 * difference. Devices that are not exported (a free loop slot) are removed. */
static int inventory_update(DeviceManager *m, struct udev_device *u, const DeviceTables *tables) {
        const char *name = udev_device_get_sysname(u);
        _cleanup_strv_free_ char **changed = NULL;
        Device *d = NULL, *old;
        bool probe;
        ssize_t i;
        int r;

        if (!name)
                return 0;
        if (!device_udev_is_exported(u)) {
                inventory_remove(m, name);
                return 0;
        }
        /* Without udevd, /run/udev/data may hold stale records: read the signatures ourselves. */
        probe = !m->udevd_running || !udev_device_get_is_initialized(u);
        r = device_new_from_udev(u, probe, &d);
        if (r == -ENOENT) {
                /* Gone from sysfs before we looked (partitions re-read): its remove event follows. */
                inventory_remove(m, name);
                return 0;
        }
        if (r < 0) {
                log_dev_errno(LOG_WARNING, r, "cannot read %s: %m", name);
                return r;
        }
        scratch_resolve(&m->scratch);
        r = inventory_update_dynamic(m, d, tables, NULL);
        if (r < 0)
                log_dev_errno(LOG_WARNING, r, "cannot read the mounts and holders of %s: %m", name);
        inventory_autorun(m, d, inventory_index(m, name) < 0);
        inventory_record(m, d);

        i = inventory_index(m, name);
        if (i < 0) {
                if (m->n_devices >= DEVICES_MAX) {
                        device_free(d);
                        return -E2BIG;
                }
                Device **nd = realloc(m->devices, sizeof(Device *) * (m->n_devices + 1));
                if (!nd) {
                        device_free(d);
                        return -ENOMEM;
                }
                m->devices = nd;
                m->devices[m->n_devices++] = d;
                r = sd_bus_emit_interfaces_added(m->bus, d->path, DEVICE_INTERFACE, NULL);
                /* -ESRCH: the ObjectManager is registered after us at start-up; nobody listens yet. */
                if (r < 0 && r != -ESRCH)
                        log_dev_errno(LOG_WARNING, r, "cannot announce %s: %m", name);
                return 0;
        }

        old = m->devices[i];
        r = device_diff(old, d, &changed);
        m->devices[i] = d;
        device_free(old);
        if (r < 0)
                return r;
        inventory_announce_changes(m, d, changed);
        return 0;
}

/* Mounts, swaps, holders and verdicts of every device. */
static void inventory_refresh_dynamic(DeviceManager *m, const DeviceTables *tables) {
        _cleanup_(device_tables_clear) DeviceTables own = {};
        int r;

        if (!tables) {
                r = device_tables_load(&own);
                if (r < 0) {
                        log_dev_errno(LOG_WARNING, r, "cannot read /proc/self/mountinfo and /proc/swaps: %m");
                        return;
                }
                tables = &own;
        }
        scratch_resolve(&m->scratch);
        for (size_t i = 0; i < m->n_devices; i++) {
                Device *d = m->devices[i];
                _cleanup_strv_free_ char **changed = NULL;

                r = inventory_update_dynamic(m, d, tables, &changed);
                /* -ENOENT: vanished under us, its remove event is on its way. */
                if (r < 0 && r != -ENOENT)
                        log_dev_errno(LOG_WARNING, r, "cannot refresh %s: %m", d->name);
                inventory_announce_changes(m, d, changed);
        }
}

/* Enumerates all block devices and brings the inventory in line: new ones added, changed ones
 * updated, ones no longer there removed. At start-up, and after the udev monitor lost events. */
static int inventory_enumerate(DeviceManager *m) {
        _cleanup_(device_tables_clear) DeviceTables tables = {};
        _cleanup_strv_free_ char **seen = NULL, **gone = NULL;
        struct udev_enumerate *e;
        struct udev_list_entry *item;
        int r;

        r = device_tables_load(&tables);
        if (r < 0)
                return r;
        e = udev_enumerate_new(m->udev);
        if (!e)
                return -ENOMEM;
        r = udev_enumerate_add_match_subsystem(e, "block");
        if (r >= 0)
                r = udev_enumerate_scan_devices(e);
        if (r < 0) {
                udev_enumerate_unref(e);
                return r;
        }
        udev_list_entry_foreach(item, udev_enumerate_get_list_entry(e)) {
                struct udev_device *u = udev_device_new_from_syspath(m->udev, udev_list_entry_get_name(item));
                const char *name;

                if (!u)
                        continue;
                name = udev_device_get_sysname(u);
                if (name && strv_push(&seen, name) < 0) {
                        udev_device_unref(u);
                        udev_enumerate_unref(e);
                        return -ENOMEM;
                }
                (void) inventory_update(m, u, &tables);
                udev_device_unref(u);
        }
        udev_enumerate_unref(e);

        for (size_t i = 0; i < m->n_devices; i++)
                if (!strv_contains(seen, m->devices[i]->name) && strv_push(&gone, m->devices[i]->name) < 0)
                        return -ENOMEM;
        for (char **g = gone; g && *g; g++)
                inventory_remove(m, *g);

        /* Holders and partitions enumerated after their disk change the disk's verdict. */
        inventory_refresh_dynamic(m, &tables);
        return 0;
}

static int on_udev(sd_event_source *s, int fd, uint32_t revents, void *userdata) {
        _cleanup_(device_tables_clear) DeviceTables tables = {};
        const DeviceTables *shared = &tables;
        DeviceManager *m = userdata;
        struct udev_device *u;
        bool layout = false;
        int r;

        /* One read of mountinfo and /proc/swaps for every device of this wake-up and the refresh
         * after them; if that fails now, each device tries its own. */
        r = device_tables_load(&tables);
        if (r < 0) {
                log_dev_errno(LOG_WARNING, r, "cannot read /proc/self/mountinfo and /proc/swaps: %m");
                shared = NULL;
        }

        /* Drain: one wake-up may carry several events. */
        for (;;) {
                errno = 0;
                u = udev_monitor_receive_device(m->monitor);
                if (!u)
                        break;
                const char *action = udev_device_get_action(u);
                const char *name = udev_device_get_sysname(u);

                if (streq_ptr(action, "remove")) {
                        if (name)
                                inventory_remove(m, name);
                } else {
                        (void) inventory_update(m, u, shared);
                        layout = layout || (name && (strncmp(name, "md", 2) == 0 || strncmp(name, "dm-", 3) == 0));
                }
                udev_device_unref(u);
        }
        if (errno == ENOBUFS) {
                /* The socket overflowed: events are lost, so look at everything again. */
                log_dev(LOG_WARNING, "udev events were lost (receive buffer overrun); re-enumerating");
                r = inventory_enumerate(m);
                if (r < 0)
                        log_dev_errno(LOG_WARNING, r, "cannot re-enumerate block devices: %m");
                return 0;
        }
        inventory_refresh_dynamic(m, shared);
        if (layout && m->callbacks.layout_reported)
                m->callbacks.layout_reported(m->callbacks.userdata);
        return 0;
}

static int on_mounts(sd_event_source *s, int fd, uint32_t revents, void *userdata) {
        DeviceManager *m = userdata;

        (void) mnt_monitor_event_cleanup(m->mnt_monitor);
        inventory_refresh_dynamic(m, NULL);
        return 0;
}

static int on_swaps(sd_event_source *s, int fd, uint32_t revents, void *userdata) {
        DeviceManager *m = userdata;
        char buf[4096];

        /* Reading the file acknowledges the change (seq_file poll semantics). */
        if (lseek(fd, 0, SEEK_SET) == 0)
                while (read(fd, buf, sizeof(buf)) > 0)
                        ;
        inventory_refresh_dynamic(m, NULL);
        return 0;
}

/* /run/udev/control can outlive udevd (containers): only a listening socket proves it runs. */
static bool udevd_is_running(void) {
        struct sockaddr_un sa = { .sun_family = AF_UNIX, .sun_path = "/run/udev/control" };
        _cleanup_close_ int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);

        if (fd < 0)
                return false;
        return connect(fd, (struct sockaddr *) &sa, sizeof(sa)) == 0;
}

/* source: "udev", events as udevd has processed them (with their properties), or "kernel", the
 * kernel's own (without: the signatures are then probed with libblkid) when udevd is not running. */
static int inventory_watch_udev(DeviceManager *m, const char *source) {
        int r;

        m->monitor = udev_monitor_new_from_netlink(m->udev, source);
        if (!m->monitor)
                return negative_errno();
        r = udev_monitor_filter_add_match_subsystem_devtype(m->monitor, "block", NULL);
        if (r < 0)
                return r;
        (void) udev_monitor_set_receive_buffer_size(m->monitor, 32 * 1024 * 1024);
        r = udev_monitor_enable_receiving(m->monitor);
        if (r < 0)
                return r;
        return sd_event_add_io(m->event, &m->udev_source, udev_monitor_get_fd(m->monitor), EPOLLIN,
                               on_udev, m);
}

static int inventory_watch_mounts(DeviceManager *m) {
        int r, fd;

        m->mnt_monitor = mnt_new_monitor();
        if (!m->mnt_monitor)
                return -ENOMEM;
        r = mnt_monitor_enable_kernel(m->mnt_monitor, 1);
        if (r < 0)
                return r;
        fd = mnt_monitor_get_fd(m->mnt_monitor);
        if (fd < 0)
                return fd;
        return sd_event_add_io(m->event, &m->mnt_source, fd, EPOLLIN, on_mounts, m);
}

static int inventory_watch_swaps(DeviceManager *m) {
        m->swaps_fd = open("/proc/swaps", O_RDONLY | O_CLOEXEC);
        if (m->swaps_fd < 0)
                return negative_errno();
        return sd_event_add_io(m->event, &m->swaps_source, m->swaps_fd, EPOLLPRI, on_swaps, m);
}

int device_manager_new(sd_bus *bus, sd_event *event, Db *db, const char *conf_path,
                       const DeviceCallbacks *callbacks, DeviceManager **ret) {
        DeviceManager *m;
        int r;

        m = calloc(1, sizeof(*m));
        if (!m)
                return -ENOMEM;
        m->swaps_fd = -1;
        m->bus = sd_bus_ref(bus);
        m->event = sd_event_ref(event);
        m->db = db;
        if (callbacks)
                m->callbacks = *callbacks;
        /* meson's sysconfdir is relative ("etc") under the default prefix: /etc is meant. */
        m->conf_path = strdup(conf_path ?: BENCHD_SYSCONF_DIR[0] == '/' ? BENCHD_SYSCONF_DIR "/benchd.conf"
                                                                       : "/" BENCHD_SYSCONF_DIR "/benchd.conf");
        if (!m->conf_path) {
                r = -ENOMEM;
                goto fail;
        }
        inventory_load_conf(m);

        m->udev = udev_new();
        if (!m->udev) {
                r = -ENOMEM;
                goto fail;
        }
        r = sd_bus_add_fallback_vtable(bus, &m->vtable_slot, DEVICE_PREFIX, DEVICE_INTERFACE,
                                       device_vtable, device_find, m);
        if (r < 0)
                goto fail;
        r = sd_bus_add_node_enumerator(bus, &m->enum_slot, DEVICE_PREFIX, device_enumerate, m);
        if (r < 0)
                goto fail;

        m->udevd_running = udevd_is_running();
        /* Subscribe before enumerating, so nothing falls between the two. */
        r = inventory_watch_udev(m, m->udevd_running ? "udev" : "kernel");
        if (r < 0) {
                log_dev_errno(LOG_WARNING, r, "cannot monitor %s events: %m; hot-plug is not followed",
                              m->udevd_running ? "udev" : "kernel");
                m->udev_source = sd_event_source_unref(m->udev_source);
                if (m->monitor)
                        m->monitor = udev_monitor_unref(m->monitor);
        }
        if (!m->udevd_running)
                log_dev(LOG_INFO, "systemd-udevd is not running: udev properties (ID_FS_TYPE, ID_SERIAL, "
                        "BENCHD_SCRATCH) are missing; %s, and signatures are probed with libblkid",
                        m->udev_source ? "following the kernel's device events" : "hot-plug is not followed");

        r = inventory_watch_mounts(m);
        if (r < 0)
                log_dev_errno(LOG_WARNING, r, "cannot monitor mounts: %m; MountPoints are read at device events only");
        r = inventory_watch_swaps(m);
        if (r < 0)
                log_dev_errno(LOG_WARNING, r, "cannot watch /proc/swaps: %m");

        r = inventory_enumerate(m);
        if (r < 0) {
                log_dev_errno(LOG_WARNING, r, "cannot enumerate block devices: %m");
                goto fail;
        }
        log_dev(LOG_INFO, "%zu block devices%s", m->n_devices, !m->udev_source ? "" :
                m->udevd_running ? ", following udev" : ", following the kernel's device events");
        *ret = m;
        return 0;
fail:
        device_manager_free(m);
        return r;
}

DeviceManager *device_manager_free(DeviceManager *m) {
        if (!m)
                return NULL;
        sd_event_source_disable_unref(m->udev_source);
        sd_event_source_disable_unref(m->mnt_source);
        sd_event_source_disable_unref(m->swaps_source);
        if (m->swaps_fd >= 0)
                close(m->swaps_fd);
        if (m->mnt_monitor)
                mnt_unref_monitor(m->mnt_monitor);
        if (m->monitor)
                udev_monitor_unref(m->monitor);
        udev_unref(m->udev);
        sd_bus_slot_unref(m->vtable_slot);
        sd_bus_slot_unref(m->enum_slot);
        for (size_t i = 0; i < m->n_devices; i++)
                device_free(m->devices[i]);
        free(m->devices);
        sd_bus_unref(m->bus);
        sd_event_unref(m->event);
        scratch_list_clear(&m->scratch);
        free(m->conf_path);
        free(m);
        return NULL;
}

/* ---- the checks the daemon makes ---- */

/* A device the inventory does not hold (attached while hot-plug is not followed): read and record
 * it on the spot, so the run still refers to its history. Returns devices.id or -1. */
static int64_t inventory_record_name(DeviceManager *m, const char *name, char **ret_firmware) {
        struct udev_device *u = udev_device_new_from_subsystem_sysname(m->udev, "block", name);
        Device *d = NULL;
        int64_t id = -1;

        if (!u)
                return -1;
        if (device_new_from_udev(u, false, &d) >= 0) {
                inventory_record(m, d);
                id = d->db_id;
                *ret_firmware = d->firmware ? strdup(d->firmware) : NULL;
                device_free(d);
        }
        udev_device_unref(u);
        return id;
}

/* Whether dev is marked scratch now, read afresh: the device's identity as it is (not as the
 * inventory last saw it), judged by ScratchDevices= as bound so far, or its udev record's
 * BENCHD_SCRATCH=1 when udevd keeps the records. *ret_note: why a name in ScratchDevices= that
 * names it does not mark it (NULL: nothing to say). Binds nothing: it runs in a helper process. */
static int inventory_scratch_now(DeviceManager *m, dev_t dev, bool *ret_scratch, char **ret_note) {
        _cleanup_(scratch_list_clear) ScratchList list = {};
        _cleanup_free_ char *reason = NULL;
        struct udev_device *u;
        ScratchDevice sd;
        ScratchMatch match;
        Device *d = NULL;
        size_t at;
        int r;

        *ret_scratch = false;
        *ret_note = NULL;
        u = udev_device_new_from_devnum(m->udev, 'b', dev);
        if (!u)
                return 0;       /* unknown: not scratch */
        r = device_new_from_udev(u, !m->udevd_running || !udev_device_get_is_initialized(u), &d);
        udev_device_unref(u);
        if (r == -ENOMEM)
                return r;
        if (r < 0)
                return 0;
        r = scratch_list_copy(&m->scratch, &list);
        if (r < 0)
                goto out;
        scratch_resolve(&list);
        sd = scratch_device_of(d);
        match = scratch_judge(&list, &sd, &at);
        r = scratch_reason(&list, &sd, match, at, m->conf_path, &reason, ret_note);
        if (r < 0)
                goto out;
        *ret_scratch = match == SCRATCH_MATCH_YES || d->udev_scratch;
out:
        device_free(d);
        return r;
}

int device_manager_check_destructive(DeviceManager *m, dev_t dev, const char *own_fs_type, const char *own_fs_uuid,
                                    char **ret_reason, bool *ret_scratch) {
        _cleanup_free_ char *name = NULL, *reason = NULL, *node = NULL, *note = NULL;
        DeviceFacts f = {};
        VerdictFacts vf;
        bool scratch;
        int r, probe_r;

        r = blockdev_name_from_devnum(NULL, dev, &name);
        if (r < 0) {
                if (asprintf(ret_reason, "%u:%u is not a block device the kernel knows (%s); refusing to write",
                             major(dev), minor(dev), strerror(-r)) < 0)
                        return -ENOMEM;
                return -EPERM;
        }
        /* Fresh facts and a fresh probe: the cache may be a moment behind a mkfs or a mount. */
        r = device_facts_gather(name, NULL, false, &f);
        if (r < 0) {
                if (asprintf(ret_reason, "%s: cannot establish that writing is safe (%s); refusing",
                             name, strerror(-r)) < 0)
                        return -ENOMEM;
                return -EPERM;
        }
        if (asprintf(&node, "/dev/%s", name) < 0) {
                device_facts_clear(&f);
                return -ENOMEM;
        }
        probe_r = blkid_probe_node(node, &f.blkid);
        if (probe_r >= 0 && own_fs_type && own_fs_uuid && !f.blkid.pt_type && streq_ptr(f.blkid.type, own_fs_type) &&
            streq_ptr(f.blkid.uuid, own_fs_uuid))
                /* The filesystem this job's matrix entry made on the device a step ago: its own
                 * data, not the user's, so it does not count as a signature. */
                blkid_info_clear(&f.blkid);
        r = inventory_scratch_now(m, dev, &scratch, &note);
        if (r < 0) {
                device_facts_clear(&f);
                return r;
        }
        device_facts_to_verdict(&f, scratch, m->conf_path, &vf);
        vf.scratch_note = scratch ? NULL : note;
        r = verdict_compute(&vf, &reason);
        device_facts_clear(&f);
        if (r < 0)
                return r;
        if (r == 0 && probe_r < 0) {
                /* Nothing else is wrong, but an unreadable signature is not a blank device. */
                if (asprintf(ret_reason, "%s: cannot read its signatures (%s); refusing to write",
                             name, strerror(-probe_r)) < 0)
                        return -ENOMEM;
                return -EPERM;
        }
        if (r == 0) {
                if (ret_scratch)
                        *ret_scratch = scratch;
                return 0;
        }
        *ret_reason = TAKE_PTR(reason);
        return -EPERM;
}

int device_manager_resolve_target(DeviceManager *m, const char *target, TargetInfo *ret) {
        TargetInfo t = { .device_id = -1 };
        TargetLocation loc = {};
        _cleanup_free_ char *firmware = NULL;
        Device *d;
        int r;

        r = target_locate(target, &loc);
        if (r < 0)
                return r;
        t.device_name = TAKE_PTR(loc.device_name);
        t.fs_type = TAKE_PTR(loc.fs_type);
        t.mount_point = TAKE_PTR(loc.mount_point);
        t.mount_options = TAKE_PTR(loc.mount_options);

        /* The physical device: the disk under a partition, the single leaf under dm/md. */
        d = loc.physical_name ? inventory_find(m, loc.physical_name) : NULL;
        if (d) {
                t.device_id = d->db_id;
                firmware = d->firmware ? strdup(d->firmware) : NULL;
        } else if (loc.physical_name)
                t.device_id = inventory_record_name(m, loc.physical_name, &firmware);
        target_location_clear(&loc);

        /* The firmware the run ran on: devices.firmware holds only the latest. */
        r = target_environment_json(t.device_name, firmware, &t.environment_json);
        if (r < 0) {
                target_info_clear(&t);
                return r;
        }
        *ret = t;
        return 0;
}

void target_info_clear(TargetInfo *t) {
        if (!t)
                return;
        free(t->device_name);
        free(t->fs_type);
        free(t->mount_point);
        free(t->mount_options);
        free(t->environment_json);
        *t = (TargetInfo) { .device_id = -1 };
}
