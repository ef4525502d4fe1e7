/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The volume group of a filesystem step (layout-lvm.h). lvm runs in the sandbox as mdadm does, in
 * a root whose /sys is the host's and whose /dev holds device-mapper's control node; its
 * configuration is a file of the worker's own, written here. What it may be told is only what
 * spec-matrix.c lets lvm_options say.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include "layout-lvm.h"
#include "sandbox.h"
#include "toolroot.h"
#include "shared/json-util.h"
#include "shared/spec.h"
#include "shared/strv.h"
#include "shared/util.h"

#define LVM_DIR FSTOOL_DIR "/lvm"               /* the writable directory: configuration and locks */
#define LVM_ROOT FSTOOL_DIR "/lvmroot"
#define LVM_OUTPUT_KEEP 3000u

#define fail(reterr, r, ...) reterr_set_once((reterr), (r), __VA_ARGS__)

static void closedirp(DIR **d) {
        if (*d)
                closedir(*d);
}

char *layout_lvm_config(char *const *pvs, size_t n) {
        _cleanup_free_ char *filter = strdup("");
        char *s = NULL;

        for (size_t i = 0; filter && i < n; i++) {
                char *f = NULL;

                if (asprintf(&f, "%s\"a|^/dev/%s$|\", ", filter, pvs[i]) < 0)
                        f = NULL;
                free(filter);
                filter = f;
        }
        if (!filter)
                return NULL;
        if (asprintf(&s,
                     "# benchd-worker's own: the physical volumes of one step, nothing of the host's.\n"
                     "devices {\n"
                     "\tglobal_filter = [ %s\"r|.*|\" ]\n"
                     "\tfilter = [ \"a|.*|\" ]\n"
                     "\tobtain_device_list_from_udev = 0\n"
                     "\texternal_device_info_source = \"none\"\n"
                     "\tuse_devicesfile = 0\n"
                     "\thints = \"none\"\n"
                     "\tscan = [ \"/dev\" ]\n"
                     "\tmultipath_component_detection = 0\n"
                     "\tmd_component_detection = 1\n"
                     "}\n"
                     "global {\n"
                     "\tlocking_dir = \"" LVM_DIR "/lock\"\n"
                     "\tuse_lvmpolld = 0\n"
                     "\tevent_activation = 0\n"
                     "\tsystem_id_source = \"lvmlocal\"\n"
                     "}\n"
                     "local {\n"
                     "\tsystem_id = \"" LAYOUT_LVM_SYSTEM_ID "\"\n"
                     "}\n"
                     "activation {\n"
                     "\tudev_sync = 0\n"
                     "\tudev_rules = 0\n"
                     "\tverify_udev_operations = 0\n"
                     "\tmonitoring = 0\n"
                     "}\n"
                     "backup {\n"
                     "\tbackup = 0\n"
                     "\tarchive = 0\n"
                     "}\n", filter) < 0)
                return NULL;
        return s;
}

static int push_options(char ***argv, const char *options, const char *const *names, size_t n_names) {
        _cleanup_free_ char *copy = strdup(options ?: "");
        char *save = NULL;
        int r = 0;

        if (!copy)
                return -ENOMEM;
        for (char *w = strtok_r(copy, " \t", &save); r >= 0 && w; w = strtok_r(NULL, " \t", &save))
                for (size_t i = 0; i < n_names; i++)
                        if (strncmp(w, names[i], strlen(names[i])) == 0) {
                                r = strv_push(argv, w);
                                break;
                        }
        return r;
}

int layout_lvm_argv(const ProtoFsSetup *setup, unsigned which, char *const *nodes, size_t n, char ***ret) {
        static const char *const pv_options[] = { "--dataalignment=", "--metadatasize=" };
        static const char *const vg_options[] = { "--physicalextentsize=" };
        _cleanup_strv_free_ char **argv = NULL;
        char buf[64];
        int r;

        if (!proto_fs_layout_is_lvm(setup->layout) || !proto_fs_md_name_valid(setup->md_name) || which > 3 ||
            (which < 2 && n == 0))
                return -EINVAL;
        r = strv_push(&argv, "lvm");
        switch (which) {
        case 0:
                if (r >= 0)
                        r = strv_push(&argv, "pvcreate");
                if (r >= 0)
                        r = strv_push(&argv, "--yes");
                if (r >= 0)
                        r = push_options(&argv, setup->lvm_options, pv_options, ELEMENTSOF(pv_options));
                for (size_t i = 0; r >= 0 && i < n; i++)
                        r = strv_push(&argv, nodes[i]);
                break;
        case 1:
                if (r >= 0)
                        r = strv_push(&argv, "vgcreate");
                if (r >= 0)
                        r = strv_push(&argv, "--yes");
                if (r >= 0)
                        r = strv_push(&argv, "--setautoactivation");
                if (r >= 0)
                        r = strv_push(&argv, "n");
                if (r >= 0)
                        r = push_options(&argv, setup->lvm_options, vg_options, ELEMENTSOF(vg_options));
                if (r >= 0)
                        r = strv_push(&argv, setup->md_name);
                for (size_t i = 0; r >= 0 && i < n; i++)
                        r = strv_push(&argv, nodes[i]);
                break;
        case 2:
                if (r >= 0)
                        r = strv_push(&argv, "lvcreate");
                if (r >= 0)
                        r = strv_push(&argv, "--yes");
                if (r >= 0)
                        r = strv_push(&argv, "--wipesignatures");
                if (r >= 0)
                        r = strv_push(&argv, "y");
                if (r >= 0)
                        r = strv_push(&argv, "--name");
                if (r >= 0)
                        r = strv_push(&argv, LAYOUT_LVM_LV);
                if (setup->lv_size) {
                        snprintf(buf, sizeof(buf), "%" PRIu64 "b", setup->lv_size);
                        if (r >= 0)
                                r = strv_push(&argv, "--size");
                } else {
                        snprintf(buf, sizeof(buf), "100%%FREE");
                        if (r >= 0)
                                r = strv_push(&argv, "--extents");
                }
                if (r >= 0)
                        r = strv_push(&argv, buf);
                if (r >= 0)
                        r = strv_push(&argv, setup->md_name);
                break;
        case 3:
                if (r >= 0)
                        r = strv_push(&argv, "vgchange");
                if (r >= 0)
                        r = strv_push(&argv, "--activate");
                if (r >= 0)
                        r = strv_push(&argv, "y");
                if (r >= 0)
                        r = strv_push(&argv, setup->md_name);
                break;
        }
        if (r < 0)
                return r;
        *ret = TAKE_PTR(argv);
        return 0;
}

static char *join_words(char *const *argv) {
        _cleanup_free_ char *s = NULL;
        size_t len = 1;

        for (size_t i = 0; argv[i]; i++)
                len += strlen(argv[i]) + 1;
        s = calloc(1, len);
        if (!s)
                return NULL;
        for (size_t i = 0; argv[i]; i++) {
                if (i > 0)
                        strcat(s, " ");
                strcat(s, argv[i]);
        }
        return TAKE_PTR(s);
}

static int exit_code(int status) {
        return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

/* Appends {"command","usec","exit","output"} to list. */
static int record_command(json_object *list, char *const *argv, const SandboxResult *res) {
        _cleanup_free_ char *command = join_words(argv);
        json_object *o = json_object_new_object();
        size_t keep = MIN(res->output_len, (size_t) LVM_OUTPUT_KEEP);

        if (!command || !o) {
                json_object_put(o);
                return -ENOMEM;
        }
        while (keep > 0 && keep < res->output_len && (res->output[keep] & 0xC0) == 0x80)
                keep--;
        json_object_object_add(o, "command", json_object_new_string(command));
        json_object_object_add(o, "usec", json_object_new_int64((int64_t) MIN(res->usec, (uint64_t) INT64_MAX)));
        json_object_object_add(o, "exit", json_object_new_int(exit_code(res->status)));
        json_object_object_add(o, "output", json_object_new_string_len(res->output ?: "", (int) keep));
        return json_object_array_add(list, o) < 0 ? -ENOMEM : 0;
}

/* The root lvm runs in, for the physical volumes; its configuration written first. */
static int lvm_root(char *const *pvs, const dev_t *pv_devs, size_t n, const char *program, ToolRoot **ret,
                    char **reterr) {
        ToolRootDevice devices[PROTO_FS_MEMBERS_MAX];
        char *programs[] = { (char *) program, NULL };
        char *env[] = { (char *) "LVM_SYSTEM_DIR=" LVM_DIR "/etc", (char *) "LVM_SUPPRESS_FD_WARNINGS=1", NULL };
        _cleanup_free_ char *config = layout_lvm_config(pvs, n);
        _cleanup_close_ int fd = -EBADF;
        int r;

        if (!config)
                return -ENOMEM;
        if (n > PROTO_FS_MEMBERS_MAX)
                return -EINVAL;
        for (const char *d = LVM_DIR; d; d = streq(d, LVM_DIR) ? LVM_DIR "/etc" : streq(d, LVM_DIR "/etc") ?
                                                LVM_DIR "/lock" : streq(d, LVM_DIR "/lock") ? LVM_ROOT : NULL)
                if (mkdir(d, 0700) < 0 && errno != EEXIST)
                        return fail(reterr, -errno, "cannot create %s: %m", d);
        fd = open(LVM_DIR "/etc/lvm.conf", O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
        if (fd < 0 || write(fd, config, strlen(config)) != (ssize_t) strlen(config))
                return fail(reterr, -errno, "cannot write " LVM_DIR "/etc/lvm.conf: %m");
        for (size_t i = 0; i < n; i++)
                devices[i] = (ToolRootDevice) { .name = pvs[i], .dev = pv_devs[i] };
        {
                ToolRootSpec spec = {
                        .programs = programs,
                        .devices = devices,
                        .n_devices = n,
                        .writable = LVM_DIR,
                        .md = true,
                        .dm = true,
                        .env = env,
                };

                r = toolroot_new(&spec, LVM_ROOT, ret, reterr);
        }
        if (r < 0) {
                _cleanup_free_ char *inner = reterr ? TAKE_PTR(*reterr) : NULL;
                return fail(reterr, r, "cannot build the root lvm runs in: %s", inner ?: strerror(-r));
        }
        return 0;
}

/* Runs argv in root, records it in list (when not NULL); 0 when it ran and exited 0, -EINVAL with a
 * message quoting lvm when it failed. */
static int run_lvm(const ToolRoot *root, const char *program, char *const *argv, const FsPrepOptions *opts,
                   json_object *list, char **note, char **reterr) {
        _cleanup_(sandbox_result_clear) SandboxResult res = {};
        Sandbox sb = { .path = program, .argv = argv, .root = root,
                       .stop_requested = opts ? opts->stop_requested : NULL };
        int r;

        r = sandbox_run(&sb, &res, reterr);
        if (r < 0)
                return r;
        res.output_len = fstool_output_clean(res.output, res.output_len);
        if (list) {
                r = record_command(list, argv, &res);
                if (r < 0)
                        return r;
        }
        if (note) {
                _cleanup_free_ char *command = join_words(argv);
                char *n = NULL;

                if (asprintf(&n, "%s%s%s (%.3f s, exit %d)", *note ?: "", *note ? "; " : "", command ?: "lvm",
                             (double) res.usec / 1e6, exit_code(res.status)) >= 0) {
                        free(*note);
                        *note = n;
                }
        }
        if (!WIFEXITED(res.status) || WEXITSTATUS(res.status) != 0) {
                _cleanup_free_ char *command = join_words(argv), *summary = fstool_output_summary(res.output);
                char how[64];

                fstool_status_text(res.status, how, sizeof(how));
                return fail(reterr, -EINVAL, "%s failed (%s): %s", command ?: "lvm", how, summary ?: "no output");
        }
        return 0;
}

static int read_attr(const char *path, char *buf, size_t size) {
        _cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC);
        ssize_t k;

        if (fd < 0)
                return -errno;
        k = read(fd, buf, size - 1);
        if (k < 0)
                return -errno;
        buf[k] = 0;
        buf[strcspn(buf, "\n")] = 0;
        return 0;
}

/* The volume's device-mapper device: named as device-mapper names group/lv, held by nothing, its
 * slaves among the physical volumes. */
static int find_volume(LvmVolume *v, char **reterr) {
        _cleanup_(closedirp) DIR *d = opendir("/sys/block");
        char want[128];
        struct dirent *de;

        if (!d)
                return fail(reterr, -errno, "cannot read /sys/block: %m");
        if (proto_fs_lvm_dm_name(v->vg, want, sizeof(want)) < 0)
                return -EINVAL;
        while ((de = readdir(d))) {
                _cleanup_(closedirp) DIR *s = NULL;
                char path[PATH_MAX], name[256], dev[32];
                struct dirent *se;
                unsigned major, minor, k = 0;
                uint64_t sectors;

                if (strncmp(de->d_name, "dm-", 3) != 0 || strlen(de->d_name) >= sizeof(v->dm))
                        continue;
                snprintf(path, sizeof(path), "/sys/block/%s/dm/name", de->d_name);
                if (read_attr(path, name, sizeof(name)) < 0 || !streq(name, want))
                        continue;
                snprintf(path, sizeof(path), "/sys/block/%s/slaves", de->d_name);
                s = opendir(path);
                if (!s)
                        return fail(reterr, -errno, "cannot read %s: %m", path);
                while ((se = readdir(s))) {
                        bool ours = false;

                        if (se->d_name[0] == '.')
                                continue;
                        k++;
                        for (uint32_t i = 0; i < v->n_pvs; i++)
                                ours = ours || streq(se->d_name, v->pvs[i]);
                        if (!ours)
                                return fail(reterr, -EBUSY, "the logical volume %s (/dev/%s) lies on %s, which is not "
                                            "one of its physical volumes", name, de->d_name, se->d_name);
                }
                if (k == 0)
                        return fail(reterr, -EIO, "the logical volume %s (/dev/%s) lies on no device", name, de->d_name);
                snprintf(path, sizeof(path), "/sys/block/%s/dev", de->d_name);
                if (read_attr(path, dev, sizeof(dev)) < 0 || sscanf(dev, "%u:%u", &major, &minor) != 2)
                        return fail(reterr, -EIO, "cannot read %s", path);
                snprintf(path, sizeof(path), "/sys/block/%s/size", de->d_name);
                if (read_attr(path, dev, sizeof(dev)) < 0 || (sectors = strtoull(dev, NULL, 10)) == 0)
                        return fail(reterr, -EIO, "cannot read %s, or the volume is empty", path);
                snprintf(v->dm, sizeof(v->dm), "%s", de->d_name);
                v->dev = makedev(major, minor);
                v->bytes = sectors * 512;
                return 0;
        }
        return fail(reterr, -ENOENT, "lvm said it succeeded, but no device-mapper device %s is there", want);
}

int layout_lvm_start(const ProtoFsSetup *setup, char *const *pvs, const dev_t *pv_devs, size_t n_pvs,
                     const FsPrepOptions *opts, LvmVolume *ret, char **reterr) {
        bool make = setup->stage == PROTO_FS_STAGE_MAKE;
        _cleanup_(toolroot_freep) ToolRoot *root = NULL;
        _cleanup_free_ char *program = NULL;
        _cleanup_json_ json_object *list = json_object_new_array();
        _cleanup_(lvm_volume_clear) LvmVolume v = {};
        char *nodes[PROTO_FS_MEMBERS_MAX], node_buf[PROTO_FS_MEMBERS_MAX][64];
        uint64_t extent = UINT64_C(4) << 20;
        int r;

        if (!list)
                return -ENOMEM;
        if (n_pvs == 0 || n_pvs > PROTO_FS_MEMBERS_MAX || !proto_fs_md_name_valid(setup->md_name))
                return -EINVAL;
        r = fstool_find_program("lvm", &program, reterr);
        if (r < 0)
                return fail(reterr, r, "lvm is not installed; install the Debian package lvm2, or use layout=single");
        snprintf(v.vg, sizeof(v.vg), "%s", setup->md_name);
        for (size_t i = 0; i < n_pvs; i++) {
                snprintf(v.pvs[i], sizeof(v.pvs[i]), "%s", pvs[i]);
                v.pv_devs[i] = pv_devs[i];
                snprintf(node_buf[i], sizeof(node_buf[i]), "/dev/%s", pvs[i]);
                nodes[i] = node_buf[i];
        }
        v.n_pvs = (uint32_t) n_pvs;
        (void) spec_lvm_options_check(setup->lvm_options ?: "", &extent, NULL);

        r = lvm_root(pvs, pv_devs, n_pvs, program, &root, reterr);
        if (r < 0)
                return r;
        for (unsigned which = make ? 0 : 3; which < (make ? 3u : 4u); which++) {
                _cleanup_strv_free_ char **argv = NULL;

                r = layout_lvm_argv(setup, which, nodes, n_pvs, &argv);
                if (r < 0)
                        return fail(reterr, r, "cannot build the command line of lvm for %s: %s", setup->layout,
                                    strerror(-r));
                r = run_lvm(root, program, argv, opts, list, NULL, reterr);
                if (r < 0)
                        break;
        }
        root = toolroot_free(root);
        if (r >= 0)
                r = find_volume(&v, reterr);
        if (r < 0) {
                /* Whatever got active is deactivated again; what a MAKE wrote goes with the group. */
                (void) layout_lvm_stop(&v, make, NULL, NULL, NULL);
                return r;
        }
        v.extents = v.bytes / extent;
        v.commands = strdup(json_object_to_json_string_ext(list, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
        if (!v.commands) {
                (void) layout_lvm_stop(&v, make, NULL, NULL, NULL);
                return -ENOMEM;
        }
        *ret = v;
        v = (LvmVolume) {};
        return 0;
}

int layout_lvm_stop(LvmVolume *v, bool remove, char **ret_note, char **ret_commands, char **reterr) {
        _cleanup_(toolroot_freep) ToolRoot *root = NULL;
        _cleanup_free_ char *program = NULL;
        _cleanup_json_ json_object *list = NULL;
        char *names[PROTO_FS_MEMBERS_MAX], nodes[PROTO_FS_MEMBERS_MAX][64];
        char *deactivate[] = { (char *) "lvm", (char *) "vgchange", (char *) "--activate", (char *) "n", v->vg, NULL };
        char *vgremove[] = { (char *) "lvm", (char *) "vgremove", (char *) "--yes", (char *) "--force", v->vg, NULL };
        char *pvremove[4 + PROTO_FS_MEMBERS_MAX] = { (char *) "lvm", (char *) "pvremove", (char *) "--yes" };
        int r;

        if (!v->vg[0])
                return 0;
        if (ret_commands) {
                list = json_object_new_array();
                if (!list)
                        return -ENOMEM;
        }
        for (uint32_t i = 0; i < v->n_pvs; i++) {
                names[i] = v->pvs[i];
                snprintf(nodes[i], sizeof(nodes[i]), "/dev/%s", v->pvs[i]);
                pvremove[3 + i] = nodes[i];
        }
        r = fstool_find_program("lvm", &program, reterr);
        if (r < 0)
                return r;
        r = lvm_root(names, v->pv_devs, v->n_pvs, program, &root, reterr);
        if (r < 0)
                return r;
        r = run_lvm(root, program, deactivate, NULL, list, ret_note, reterr);
        if (r >= 0 && remove)
                r = run_lvm(root, program, vgremove, NULL, list, ret_note, reterr);
        if (r >= 0 && remove)
                r = run_lvm(root, program, pvremove, NULL, list, ret_note, reterr);
        /* What ran, a failed command's exit and output too. */
        if (list && json_object_array_length(list) > 0) {
                free(*ret_commands);
                *ret_commands = strdup(json_object_to_json_string_ext(list, JSON_C_TO_STRING_PLAIN |
                                                                            JSON_C_TO_STRING_NOSLASHESCAPE));
        }
        if (r < 0)
                return r;
        v->vg[0] = 0;
        return 0;
}

void lvm_volume_clear(LvmVolume *v) {
        free(v->commands);
        *v = (LvmVolume) {};
}
