/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Target resolution and the run environment (see target.h). A file or directory is located by
 * the mount that contains its real path (libmount), and that mount's block device by dev_t (the
 * st_rdev of its source when mountinfo shows an anonymous device, as btrfs does). The stack is
 * walked through sysfs slaves/ and partition parents, never by parsing names.
 */
#include <errno.h>
#include <json-c/json.h>
#include <libmount.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/utsname.h>

#include "config.h"
#include "devices/device-facts.h"
#include "devices/device.h"
#include "devices/locate.h"
#include "shared/blockdev.h"
#include "shared/strv.h"
#include "shared/util.h"
#include "shared/json-util.h"

#define STACK_MAX 64

void target_location_clear(TargetLocation *l) {
        free(l->device_name);
        free(l->physical_name);
        free(l->fs_type);
        free(l->mount_point);
        free(l->mount_options);
        *l = (TargetLocation) {};
}

static int locate_mount(const char *target, TargetLocation *l, dev_t *ret_dev) {
        _cleanup_(mnt_free_tablep) struct libmnt_table *tb = NULL;
        _cleanup_free_ char *real = NULL;
        struct libmnt_fs *fs;
        int r;

        real = realpath(target, NULL);
        if (!real)
                return negative_errno();
        r = mount_table_load(&tb);
        if (r < 0)
                return r;
        fs = mnt_table_find_mountpoint(tb, real, MNT_ITER_BACKWARD);
        if (!fs)
                return -ENOENT;
        if ((r = strdup_or_null(mnt_fs_get_fstype(fs), &l->fs_type)) < 0 ||
            (r = strdup_or_null(mnt_fs_get_target(fs), &l->mount_point)) < 0 ||
            (r = strdup_or_null(mnt_fs_get_options(fs), &l->mount_options)) < 0)
                return r;
        *ret_dev = mount_fs_devno(fs);
        return 0;
}

int target_locate(const char *target, TargetLocation *ret) {
        TargetLocation l = {};
        _cleanup_strv_free_ char **leaves = NULL;
        struct stat st;
        dev_t dev;
        int r;

        if (stat(target, &st) < 0)
                return negative_errno();
        if (S_ISBLK(st.st_mode))
                dev = st.st_rdev;
        else {
                r = locate_mount(target, &l, &dev);
                if (r < 0)
                        goto fail;
        }
        if (major(dev) != 0) {
                r = blockdev_name_from_devnum(NULL, dev, &l.device_name);
                if (r < 0 && r != -ENOENT)
                        goto fail;
        }
        if (l.device_name) {
                r = blockdev_leaves(NULL, l.device_name, &leaves);
                if (r >= 0 && leaves && leaves[0] && !leaves[1])
                        r = strdup_or_null(leaves[0], &l.physical_name);
                else
                        r = blockdev_whole_disk(NULL, l.device_name, &l.physical_name);
                if (r < 0)
                        goto fail;
        }
        *ret = l;
        return 0;
fail:
        target_location_clear(&l);
        return r;
}

/* ---- environment ---- */

static int json_add_string(json_object *o, const char *key, const char *value) {
        json_object *v;

        if (!value)
                return 0;
        v = json_object_new_string(value);
        if (!v)
                return -ENOMEM;
        if (json_object_object_add(o, key, v) < 0) {
                json_object_put(v);
                return -ENOMEM;
        }
        return 0;
}

static int cpu_model(char **ret) {
        _cleanup_fclose_ FILE *f = fopen("/proc/cpuinfo", "re");
        char line[1024];

        if (!f)
                return negative_errno();
        while (fgets(line, sizeof(line), f)) {
                /* x86 "model name", arm64 has none but "CPU part"; take the first that names it. */
                if (strncmp(line, "model name", 10) == 0 || strncmp(line, "Model", 5) == 0 ||
                    strncmp(line, "cpu model", 9) == 0) {
                        char *colon = strchr(line, ':');
                        if (!colon)
                                continue;
                        colon++;
                        colon += strspn(colon, " \t");
                        colon[strcspn(colon, "\n")] = 0;
                        *ret = strdup(colon);
                        return *ret ? 0 : -ENOMEM;
                }
        }
        return -ENOENT;
}

/* What a layer of the stack is: the RAID level of md, the dm target family (LVM, crypt). */
static char *stack_detail(const char *name, const char *type) {
        char *s = NULL;

        if (streq(type, "md")) {
                (void) blockdev_read(NULL, name, "md/level", &s);
        } else if (streq(type, "dm")) {
                _cleanup_free_ char *uuid = NULL;
                if (blockdev_read(NULL, name, "dm/uuid", &uuid) >= 0) {
                        char *dash = strchr(uuid, '-');
                        if (dash && dash != uuid) {
                                *dash = 0;
                                s = strdup(uuid);   /* LVM, CRYPT, mpath, ... */
                        }
                }
        }
        return s;
}

static int stack_walk(const char *name, unsigned depth, char ***seen, json_object *stack) {
        _cleanup_strv_free_ char **slaves = NULL;
        _cleanup_free_ char *detail = NULL, *disk = NULL;
        json_object *o;
        const char *type;
        int r;

        if (depth > 16 || strv_length(*seen) >= STACK_MAX || strv_contains(*seen, name))
                return 0;
        r = strv_push(seen, name);
        if (r < 0)
                return r;
        type = device_type_of(name, NULL);
        o = json_object_new_object();
        if (!o)
                return -ENOMEM;
        detail = stack_detail(name, type);
        if (json_add_string(o, "name", name) < 0 || json_add_string(o, "type", type) < 0 ||
            json_add_string(o, "detail", detail) < 0 || json_object_array_add(stack, o) < 0) {
                json_object_put(o);
                return -ENOMEM;
        }
        r = blockdev_list(NULL, name, "slaves", &slaves);
        if (r < 0)
                return r == -ENOENT ? 0 : r;
        for (char **s = slaves; *s; s++) {
                r = stack_walk(*s, depth + 1, seen, stack);
                if (r < 0)
                        return r;
        }
        if (streq(type, "partition") && blockdev_whole_disk(NULL, name, &disk) >= 0)
                return stack_walk(disk, depth + 1, seen, stack);
        return 0;
}

/* A loop device among the target's devices, for the run's provenance: its backing file, whether
 * that is sparse (fewer blocks allocated than its size: reads of its holes never reach a disk),
 * whether the loop device reads it with direct I/O (without, the host's page cache is between it
 * and the disk), and the filesystem the file is on (tmpfs: memory). NULL when name is not a bound
 * loop device. */
static json_object *loop_json(const char *name) {
        _cleanup_free_ char *backing = NULL, *dio = NULL;
        TargetLocation l = {};
        dev_t dev;
        struct stat st;
        json_object *o;

        if (blockdev_read(NULL, name, "loop/backing_file", &backing) < 0 || !backing[0])
                return NULL;
        o = json_object_new_object();
        if (!o)
                return NULL;
        (void) json_add_string(o, "name", name);
        (void) json_add_string(o, "backing_file", backing);
        if (blockdev_read(NULL, name, "loop/dio", &dio) >= 0)
                json_object_object_add(o, "direct_io", json_object_new_boolean(streq(dio, "1")));
        /* A deleted image is shown as "PATH (deleted)": nothing of it can be looked at. */
        if (stat(backing, &st) >= 0 && S_ISREG(st.st_mode)) {
                json_object_object_add(o, "backing_sparse",
                                       json_object_new_boolean((uint64_t) st.st_blocks * 512 < (uint64_t) st.st_size));
                json_object_object_add(o, "backing_size", json_object_new_int64((int64_t) st.st_size));
                json_object_object_add(o, "backing_allocated", json_object_new_int64((int64_t) st.st_blocks * 512));
                if (locate_mount(backing, &l, &dev) >= 0)
                        (void) json_add_string(o, "backing_fs", l.fs_type);
                target_location_clear(&l);
        }
        return o;
}

int target_environment_json(const char *device_name, const char *firmware, char **ret) {
        _cleanup_json_ json_object *env = NULL;
        _cleanup_strv_free_ char **seen = NULL, **leaves = NULL;
        _cleanup_free_ char *cpu = NULL;
        json_object *stack, *scheds;
        struct utsname u;
        const char *s;
        int r;

        env = json_object_new_object();
        stack = json_object_new_array();
        scheds = json_object_new_object();
        if (!env || !stack || !scheds) {
                json_object_put(stack);
                json_object_put(scheds);
                return -ENOMEM;
        }
        if (json_object_object_add(env, "stack", stack) < 0) {
                json_object_put(stack);
                json_object_put(scheds);
                return -ENOMEM;
        }
        if (json_object_object_add(env, "schedulers", scheds) < 0) {
                json_object_put(scheds);
                return -ENOMEM;
        }
        if (uname(&u) == 0 &&
            (json_add_string(env, "host", u.nodename) < 0 || json_add_string(env, "kernel", u.release) < 0 ||
             json_add_string(env, "machine", u.machine) < 0))
                return -ENOMEM;
        if (cpu_model(&cpu) >= 0 && json_add_string(env, "cpu", cpu) < 0)
                return -ENOMEM;
        if (json_object_object_add(env, "cpus", json_object_new_int64(sysconf(_SC_NPROCESSORS_ONLN))) < 0)
                return -ENOMEM;
        if (json_add_string(env, "benchd_version", BENCHD_VERSION) < 0)
                return -ENOMEM;
        if (firmware && firmware[0] && json_add_string(env, "firmware", firmware) < 0)
                return -ENOMEM;

        if (device_name) {
                if (json_add_string(env, "device", device_name) < 0)
                        return -ENOMEM;
                r = stack_walk(device_name, 0, &seen, stack);
                if (r < 0)
                        return r;
                /* The scheduler that decides is the one of the queues at the bottom. */
                if (blockdev_leaves(NULL, device_name, &leaves) >= 0)
                        for (char **l = leaves; l && *l; l++) {
                                _cleanup_free_ char *sched = NULL;
                                json_object *loop = loop_json(*l);

                                /* A loop device over a file: what is under it. */
                                if (loop) {
                                        json_object *loops = NULL;

                                        if (!json_object_object_get_ex(env, "loop", &loops)) {
                                                loops = json_object_new_array();
                                                if (!loops || json_object_object_add(env, "loop", loops) < 0) {
                                                        json_object_put(loops);
                                                        json_object_put(loop);
                                                        return -ENOMEM;
                                                }
                                        }
                                        if (json_object_array_add(loops, loop) < 0) {
                                                json_object_put(loop);
                                                return -ENOMEM;
                                        }
                                }
                                if (blockdev_scheduler(NULL, *l, &sched) < 0)
                                        continue;
                                if (l == leaves && json_add_string(env, "scheduler", sched) < 0)
                                        return -ENOMEM;
                                if (json_add_string(scheds, *l, sched) < 0)
                                        return -ENOMEM;
                        }
        }

        s = json_object_to_json_string_ext(env, JSON_C_TO_STRING_PLAIN);
        if (!s)
                return -ENOMEM;
        *ret = strdup(s);
        return *ret ? 0 : -ENOMEM;
}
