/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The filesystem of a filesystem step (fsprep.h), in the order of fsprep_setup():
 *   1. unshare(CLONE_NEWNS) and / made recursively private: nothing mounted from here on is ever
 *      seen outside this process and its children, and it all goes when they do;
 *   2. each member claimed and checked (fsmember.h): opened O_EXCL (at MAKE O_RDWR, so the claim
 *      holds from the check through the wipe), its dev_t and diskseq compared with benchd's, its
 *      signatures probed by libblkid: at MAKE anything but a blank or scratch device is refused,
 *      at MOUNT it must carry the fs_type and UUID asked for;
 *   3. a tmpfs over /tmp, with the mount point and an empty directory for mkfs's root;
 *   4. MAKE: every signature wiped (as wipefs -a does: probe, wipe, probe again), fsync, the
 *      claims released (mkfs opens the devices O_EXCL itself; without force flags it also
 *      refuses a signature that appeared in between), a root of mkfs's own built (toolroot.h: its
 *      binary, libraries and configuration, the members' nodes and sysfs directories, nothing
 *      else of the host), mkfs in the sandbox (sandbox.h) in that root on the members' kernel
 *      names, timed, the root detached, then member 0 claimed again for its new TYPE and UUID;
 *   5. the mount (MS_NOSUID | MS_NODEV, the setup's options split as mount(8) splits them into
 *      flags such as noatime and the filesystem's data; multi-device btrfs also gets a device=
 *      per member, as nothing may have registered them), checked in mountinfo, and statvfs() for
 *      FS_INFO.
 * Every refusal on safety grounds is -EPERM, as target.c's are.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fsconvert.h"
#include "fsmember.h"
#include "fspart.h"
#include "fsprep.h"
#include "fstool.h"
#include "layout-lvm.h"
#include "layout-md.h"
#include "sandbox.h"
#include "toolroot.h"
#include "shared/fs-entry.h"
#include "shared/json-util.h"
#include "shared/strv.h"
#include "shared/util.h"

#define TOOL_ROOT FSTOOL_ROOT
#define TRY_DIR PROTO_TRY_MKFS_IMAGE_DIR
_Static_assert(sizeof(FSPREP_DIR) < sizeof(TRY_DIR) && !__builtin_strncmp(TRY_DIR, FSPREP_DIR "/", sizeof(FSPREP_DIR)),
               "the trial's images live in the worker's tmpfs");

#define fail(reterr, r, ...) reterr_set_once((reterr), (r), __VA_ARGS__)

/* ---- the pure parts ---- */

int fsprep_mkfs_argv(const char *fs_type, const char *layout, const char *mkfs_options, char *const *members,
                     size_t n_members, char ***ret) {
        _cleanup_strv_free_ char **argv = NULL;
        size_t n = 0, max = 1 + 4 + strlen(mkfs_options) / 2 + 1 + n_members + 1;
        bool raid = streq(fs_type, "btrfs") && !streq(layout, "single");
        const char *p = mkfs_options;

        argv = calloc(max, sizeof(char *));
        if (!argv)
                return -ENOMEM;
        if (asprintf(&argv[n++], "mkfs.%s", fs_type) < 0) {
                argv[0] = NULL;
                return -ENOMEM;
        }
        if (raid) {
                const char *words[] = { "-d", layout, "-m", layout };
                for (size_t i = 0; i < ELEMENTSOF(words); i++)
                        if (!(argv[n++] = strdup(words[i])))
                                return -ENOMEM;
        }
        while (*p) {
                size_t k;

                p += strspn(p, " \t");
                k = strcspn(p, " \t");
                if (k == 0)
                        break;
                if (n + 1 + n_members >= max)
                        return -E2BIG;
                if (!(argv[n++] = strndup(p, k)))
                        return -ENOMEM;
                p += k;
        }
        for (size_t i = 0; i < n_members; i++)
                if (!(argv[n++] = strdup(members[i])))
                        return -ENOMEM;
        *ret = TAKE_PTR(argv);
        return 0;
}

uint64_t fsprep_try_image_size(uint64_t size) {
        return MIN(MAX(size, FSPREP_TRY_SIZE_MIN), FSPREP_TRY_SIZE_MAX);
}

/* ---- namespace and mounts ---- */

static int enter_namespace(char **reterr) {
        if (unshare(CLONE_NEWNS) < 0)
                return fail(reterr, -errno, "cannot make a mount namespace of its own (%m); benchd-worker needs "
                            "CAP_SYS_ADMIN for filesystem steps");
        if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
                return fail(reterr, -errno, "cannot make its mount namespace private: %m");
        return 0;
}

static int mount_tmpfs(FsPrep *p, uint64_t size, char **reterr) {
        char data[96];

        snprintf(data, sizeof(data), "mode=0700,size=%" PRIu64 ",nr_inodes=1024", size);
        if (mount("tmpfs", FSPREP_DIR, "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, data) < 0)
                return fail(reterr, -errno, "cannot mount a tmpfs of its own on " FSPREP_DIR ": %m");
        p->tmpfs_mounted = true;
        if (mkdir(TOOL_ROOT, 0700) < 0)
                return fail(reterr, -errno, "cannot create " TOOL_ROOT ": %m");
        return 0;
}

/* Our mount point's line of /proc/self/mountinfo: the device, the type and the options in effect
 * (per-mount, then the filesystem's that are not already there), bounded. */
static int mountinfo_find(dev_t *ret_dev, char **ret_type, char **ret_options, char **reterr) {
        _cleanup_fclose_ FILE *f = fopen("/proc/self/mountinfo", "re");
        _cleanup_free_ char *line = NULL;
        size_t size = 0;

        if (!f)
                return fail(reterr, -errno, "cannot read /proc/self/mountinfo: %m");
        while (getline(&line, &size, f) > 0) {
                char mnt[PATH_MAX], opts[1024], type[64], source[PATH_MAX], super[1024];
                unsigned ma, mi;
                const char *sep;
                char *o;
                size_t len;

                if (sscanf(line, "%*s %*s %u:%u %*s %4095s %1023s", &ma, &mi, mnt, opts) != 4 ||
                    !streq(mnt, FSPREP_MOUNT_POINT))
                        continue;
                sep = strstr(line, " - ");
                if (!sep || sscanf(sep + 3, "%63s %4095s %1023s", type, source, super) != 3)
                        return fail(reterr, -EIO, "cannot parse the mountinfo line of " FSPREP_MOUNT_POINT);

                o = malloc(PROTO_FS_OPTIONS_MAX + 1);
                if (!o)
                        return -ENOMEM;
                snprintf(o, PROTO_FS_OPTIONS_MAX + 1, "%s", opts);
                len = strlen(o);
                for (char *save = NULL, *w = strtok_r(super, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
                        size_t n = strlen(w);
                        bool seen = streq(w, "rw") || streq(w, "ro");
                        bool clean = true;

                        for (char *s = o; !seen && (s = strstr(s, w)); s += n)
                                seen = (s == o || s[-1] == ',') && (s[n] == ',' || s[n] == 0);
                        for (size_t i = 0; i < n; i++)
                                clean = clean && (unsigned char) w[i] > 0x20 && (unsigned char) w[i] < 0x7f;
                        if (seen || !clean || len + 1 + n > PROTO_FS_OPTIONS_MAX)
                                continue;
                        o[len++] = ',';
                        memcpy(o + len, w, n + 1);
                        len += n;
                }
                *ret_dev = makedev(ma, mi);
                *ret_options = o;
                *ret_type = strdup(type);
                if (!*ret_type) {
                        free(o);
                        return -ENOMEM;
                }
                return 0;
        }
        return fail(reterr, -EIO, "the filesystem mounted on " FSPREP_MOUNT_POINT " is not in /proc/self/mountinfo");
}

/* What mount(8) turns into flags rather than passing to the filesystem: the per-mount and generic
 * options. suid, dev and exec are dropped (always nosuid, nodev), the rest is the filesystem's. */
static const struct {
        const char *name;
        unsigned long set, clear;
} vfs_options[] = {
        { "defaults", 0, 0 }, { "rw", 0, MS_RDONLY }, { "ro", MS_RDONLY, 0 }, { "async", 0, MS_SYNCHRONOUS },
        { "sync", MS_SYNCHRONOUS, 0 }, { "dirsync", MS_DIRSYNC, 0 },
        { "noexec", MS_NOEXEC, 0 }, { "exec", 0, MS_NOEXEC },
        { "nosuid", 0, 0 }, { "suid", 0, 0 }, { "nodev", 0, 0 }, { "dev", 0, 0 },
        { "noatime", MS_NOATIME, MS_RELATIME | MS_STRICTATIME }, { "atime", 0, MS_NOATIME },
        { "nodiratime", MS_NODIRATIME, 0 }, { "diratime", 0, MS_NODIRATIME },
        { "relatime", MS_RELATIME, MS_NOATIME | MS_STRICTATIME }, { "norelatime", 0, MS_RELATIME },
        { "strictatime", MS_STRICTATIME, MS_NOATIME | MS_RELATIME }, { "lazytime", MS_LAZYTIME, 0 },
        { "nolazytime", 0, MS_LAZYTIME },
};

/* Splits mount options as mount(8) does: flags, and the filesystem's data. */
static int mount_options_split(const char *options, unsigned long *flags, char **ret_data) {
        _cleanup_free_ char *copy = strdup(options), *data = malloc(strlen(options) + 1);
        char *save = NULL;
        size_t len = 0;

        if (!copy || !data)
                return -ENOMEM;
        for (char *w = strtok_r(copy, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
                bool vfs = false;

                for (size_t i = 0; i < ELEMENTSOF(vfs_options); i++)
                        if (streq(w, vfs_options[i].name)) {
                                *flags = (*flags & ~vfs_options[i].clear) | vfs_options[i].set;
                                vfs = true;
                        }
                if (vfs)
                        continue;
                if (len > 0)
                        data[len++] = ',';
                memcpy(data + len, w, strlen(w));
                len += strlen(w);
        }
        data[len] = 0;
        *ret_data = TAKE_PTR(data);
        return 0;
}

static int mount_fs(FsPrep *p, const ProtoFsSetup *setup, const FsMember *b, ProtoFsInfo *info, char **reterr) {
        _cleanup_free_ char *fs_data = NULL, *data = NULL, *type = NULL, *options = NULL;
        const char *mount_type = fs_entry_mount_type(setup->fs_type);
        bool btrfs = streq(mount_type, "btrfs");
        unsigned long flags = MS_NOSUID | MS_NODEV;
        struct statvfs sv;
        dev_t dev;
        size_t len;
        int r;

        if (mkdir(FSPREP_MOUNT_POINT, 0700) < 0 && errno != EEXIST)
                return fail(reterr, -errno, "cannot create " FSPREP_MOUNT_POINT ": %m");

        r = mount_options_split(setup->mount_options, &flags, &fs_data);
        if (r < 0)
                return r;
        flags |= MS_NOSUID | MS_NODEV;
        /* Multi-device btrfs: nothing in here ran "btrfs device scan", so name every member. */
        len = strlen(fs_data) + 1;
        for (uint32_t i = 0; btrfs && setup->n_members > 1 && i < setup->n_members; i++)
                len += strlen(",device=") + strlen(b[i].node);
        data = malloc(len);
        if (!data)
                return -ENOMEM;
        memcpy(data, fs_data, strlen(fs_data) + 1);
        for (uint32_t i = 0; btrfs && setup->n_members > 1 && i < setup->n_members; i++) {
                if (data[0])
                        strcat(data, ",");
                strcat(data, "device=");
                strcat(data, b[i].node);
        }

        if (mount(b[0].node, FSPREP_MOUNT_POINT, mount_type, flags, data) < 0) {
                r = -errno;
                return fail(reterr, -EINVAL, "cannot mount the %s filesystem of %s with the options '%s': %s (the "
                            "kernel log says more); check mount_options", mount_type, b[0].node,
                            setup->mount_options, strerror(-r));
        }
        p->fs_mounted = true;

        /* What got mounted there is what we asked for. (btrfs reports an anonymous device.) */
        r = mountinfo_find(&dev, &type, &options, reterr);
        if (r < 0)
                return r;
        if (!streq(type, mount_type) || (!btrfs && dev != b[0].dev))
                return fail(reterr, -EIO, FSPREP_MOUNT_POINT " holds %s on %u:%u, not the %s filesystem of %s that was "
                            "mounted there", type, major(dev), minor(dev), mount_type, b[0].node);

        if (statvfs(FSPREP_MOUNT_POINT, &sv) < 0)
                return fail(reterr, -errno, "cannot statvfs " FSPREP_MOUNT_POINT ": %m");
        info->size_bytes = u64_mul_sat(sv.f_blocks, sv.f_frsize);
        info->used_bytes = u64_mul_sat(sv.f_blocks >= sv.f_bfree ? sv.f_blocks - sv.f_bfree : 0, sv.f_frsize);
        info->avail_bytes = MIN(u64_mul_sat(sv.f_bavail, sv.f_frsize), info->size_bytes);
        info->inodes = sv.f_files;
        info->inodes_free = MIN((uint64_t) sv.f_ffree, (uint64_t) sv.f_files);
        info->mount_options = TAKE_PTR(options);
        return 0;
}

/* ---- mkfs ---- */

/* How mkfs failed, for messages. */
typedef struct MkfsFailure {
        char how[48];           /* "exit 1", "killed by signal 9" */
        char *summary;          /* fstool_output_summary() of its output */
} MkfsFailure;

static void mkfs_failure_clear(MkfsFailure *f) {
        free(f->summary);
        *f = (MkfsFailure) {};
}

/* mkfs: 0 when it exited 0, with *ret filled; -EINVAL with *ret_failure filled when not. */
static int run_mkfs(const char *fs_type, const char *program, char *const *argv, const ToolRootDevice *devices,
                    size_t n_devices, const char *writable, const FsPrepOptions *opts, SandboxResult *ret,
                    MkfsFailure *ret_failure, char **reterr) {
        _cleanup_(sandbox_result_clear) SandboxResult res = {};
        int r;

        r = fstool_run(fs_type, program, argv, devices, n_devices, writable, NULL, opts, &res, reterr);
        if (r < 0)
                return r;
        if (WIFEXITED(res.status) && WEXITSTATUS(res.status) == 0) {
                *ret = res;
                res = (SandboxResult) {};
                return 0;
        }

        if (WIFEXITED(res.status))
                snprintf(ret_failure->how, sizeof(ret_failure->how), "exit %d", WEXITSTATUS(res.status));
        else
                snprintf(ret_failure->how, sizeof(ret_failure->how), "killed by signal %d",
                         WIFSIGNALED(res.status) ? WTERMSIG(res.status) : 0);
        ret_failure->summary = fstool_output_summary(res.output);
        return ret_failure->summary ? -EINVAL : -ENOMEM;
}

/* ---- the step's filesystem ---- */

static int make_fs(const ProtoFsSetup *setup, FsMember *b, const FsPrepOptions *opts, ProtoFsInfo *info,
                   char **reterr) {
        _cleanup_(sandbox_result_clear) SandboxResult res = {};
        _cleanup_strv_free_ char **argv = NULL;
        _cleanup_(mkfs_failure_clear) MkfsFailure failure = {};
        _cleanup_free_ char *program = NULL, *name = NULL;
        const char *mkfs_type = fs_entry_mkfs_type(setup->fs_type), *mount_type = fs_entry_mount_type(setup->fs_type);
        ToolRootDevice devices[PROTO_FS_MEMBERS_MAX];
        char *nodes[PROTO_FS_MEMBERS_MAX];
        FsMember again = { .m = &setup->members[0], .dev = b[0].dev, .fd = -EBADF };
        FsSignature sig;
        int r;

        if (asprintf(&name, "mkfs.%s", mkfs_type) < 0)
                return -ENOMEM;
        r = fstool_find_program(name, &program, reterr);
        if (r < 0)
                return r;

        for (uint32_t i = 0; i < setup->n_members; i++) {
                r = fsmember_wipe(&b[i], reterr);
                if (r < 0)
                        return r;
                devices[i] = (ToolRootDevice) { .name = b[i].name, .dev = b[i].dev };
                nodes[i] = b[i].node;
        }
        r = fsprep_mkfs_argv(mkfs_type, setup->layout, setup->mkfs_options, nodes, setup->n_members, &argv);
        if (r < 0)
                return fail(reterr, r == -E2BIG ? -EINVAL : r, "cannot build the command line of %s: %s", name,
                            strerror(-r));
        info->mkfs_command = fstool_join_argv(argv);
        if (!info->mkfs_command)
                return -ENOMEM;

        /* mkfs claims the members itself. */
        fsmember_close(b, setup->n_members);
        r = run_mkfs(mkfs_type, program, argv, devices, setup->n_members, NULL, opts, &res, &failure, reterr);
        if (r == -EINVAL)
                return fail(reterr, -EINVAL, "%s failed (%s): %s", name, failure.how, failure.summary);
        if (r < 0)
                return r;
        r = fstool_command_add(info, argv, &res);
        if (r < 0)
                return r;
        info->mkfs_usec = res.usec;
        info->mkfs_output = TAKE_PTR(res.output);

        /* What it made, read from the device we hold again. */
        r = fsmember_open(&again, b[0].node, O_RDONLY, reterr);
        if (r >= 0) {
                r = fsmember_probe(again.fd, &sig);
                if (r < 0 || !streq(sig.type, mkfs_type) || !sig.uuid[0])
                        r = fail(reterr, -EIO, "%s succeeded, but %s then carries %s%s, not a %s filesystem with a "
                                 "UUID", name, b[0].node, r < 0 ? "nothing readable" : sig.type[0] ? sig.type :
                                 "no signature", "", mkfs_type);
        }
        fsmember_close(&again, 1);
        if (r < 0)
                return r;

        if (fs_entry_converts(setup->fs_type)) {
                /* ext4-from-ext3: tune2fs and e2fsck on the unmounted filesystem, each recorded. */
                r = fsconvert_run(setup->fs_type, &devices[0], b[0].node, opts, info, reterr);
                if (r < 0)
                        return r;
                r = fsmember_open(&again, b[0].node, O_RDONLY, reterr);
                if (r >= 0) {
                        r = fsmember_probe(again.fd, &sig);
                        if (r < 0 || !streq(sig.type, mount_type) || !sig.uuid[0])
                                r = fail(reterr, -EIO, "the conversion to %s succeeded, but %s then carries %s, not a "
                                         "%s filesystem with a UUID", setup->fs_type, b[0].node, r < 0 ?
                                         "nothing readable" : sig.type[0] ? sig.type : "no signature", mount_type);
                }
                fsmember_close(&again, 1);
                if (r < 0)
                        return r;
        }
        info->uuid = strdup(sig.uuid);
        return info->uuid ? 0 : -ENOMEM;
}

/* An md layout: the array built on the members (MAKE: wiped first) or assembled from them, then the
 * filesystem made or mounted on it as on one scratch device of the job's own. */
static int setup_md(FsPrep *p, const ProtoFsSetup *setup, FsMember *b, const FsPrepOptions *opts, ProtoFsInfo *info,
                    char **reterr) {
        bool make = setup->stage == PROTO_FS_STAGE_MAKE;
        _cleanup_(md_array_clear) MdArray a = {};
        char *names[PROTO_FS_MEMBERS_MAX], path[64];
        dev_t devs[PROTO_FS_MEMBERS_MAX];
        ProtoFsMember am;
        ProtoFsSetup sub;
        FsMember ab = { .fd = -EBADF };
        int r;

        for (uint32_t i = 0; i < setup->n_members; i++) {
                if (make) {
                        r = fsmember_wipe(&b[i], reterr);
                        if (r < 0)
                                return r;
                }
                names[i] = b[i].name;
                devs[i] = b[i].dev;     /* with partitions=, the partition's (fspart.h) */
                snprintf(p->md_member_names[i], sizeof(p->md_member_names[i]), "%s", b[i].name);
                p->md_member_devs[i] = devs[i];
        }
        p->n_md_members = setup->n_members;
        p->md_release = setup->md_release != 0;
        /* mdadm claims the members itself. */
        fsmember_close(b, setup->n_members);
        r = layout_md_start(setup, names, devs, opts, &a, reterr);
        if (r < 0)
                return r;
        memcpy(p->md_name, a.name, sizeof(p->md_name));
        p->md_degraded_known = layout_md_degraded(a.name, &p->md_degraded_start) >= 0;
        info->layout_commands = TAKE_PTR(a.commands);
        info->md_chunk_bytes = a.chunk_bytes;
        info->md_resync_usec = a.resync_usec;

        snprintf(path, sizeof(path), "/dev/%s", a.name);
        am = (ProtoFsMember) { .path = path, .dev = (uint64_t) a.dev, .flags = PROTO_GUARD_SCRATCH };
        sub = *setup;
        sub.layout = (char *) "single";
        sub.n_members = 1;
        sub.members = &am;
        sub.md_name = sub.md_options = NULL;
        sub.expect_uuid = make ? (char *) "" : setup->expect_uuid;
        r = fsmember_claim_all(&sub, &ab, reterr);
        if (r >= 0 && make)
                r = make_fs(&sub, &ab, opts, info, reterr);
        else if (r >= 0) {
                info->uuid = strdup(setup->expect_uuid);
                info->mkfs_command = strdup("");
                info->mkfs_output = strdup("");
                if (!info->uuid || !info->mkfs_command || !info->mkfs_output)
                        r = -ENOMEM;
        }
        fsmember_close(&ab, 1);
        if (r >= 0)
                r = mount_fs(p, &sub, &ab, info, reterr);
        fsmember_free(&ab, 1);
        return r;
}

/* Two JSON arrays of commands as one, a's first. NULL on failure. */
static char *commands_join(const char *a, const char *b) {
        _cleanup_json_ json_object *ja = json_tokener_parse(a ?: "[]"), *jb = json_tokener_parse(b ?: "[]");
        char *s;

        if (!ja || !jb || !json_object_is_type(ja, json_type_array) || !json_object_is_type(jb, json_type_array))
                return NULL;
        for (size_t i = 0; i < json_object_array_length(jb); i++)
                if (json_object_array_add(ja, json_object_get(json_object_array_get_idx(jb, i))) < 0)
                        return NULL;
        s = strdup(json_object_to_json_string_ext(ja, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
        return s;
}

/* An LVM layout: over md-raid1+lvm the md array first (layout-md.h, as setup_md builds it), then
 * the volume group on the members (MAKE: wiped first) or the array, created or activated, then the
 * filesystem made or mounted on its volume as on one scratch device of the job's own. */
static int setup_lvm(FsPrep *p, const ProtoFsSetup *setup, FsMember *b, const FsPrepOptions *opts, ProtoFsInfo *info,
                     char **reterr) {
        bool make = setup->stage == PROTO_FS_STAGE_MAKE;
        _cleanup_(md_array_clear) MdArray a = {};
        _cleanup_(lvm_volume_clear) LvmVolume v = {};
        char *names[PROTO_FS_MEMBERS_MAX], path[64];
        dev_t devs[PROTO_FS_MEMBERS_MAX];
        size_t n = setup->n_members;
        ProtoFsMember vm;
        ProtoFsSetup sub;
        FsMember vb = { .fd = -EBADF };
        int r;

        for (uint32_t i = 0; i < setup->n_members; i++) {
                if (make) {
                        r = fsmember_wipe(&b[i], reterr);
                        if (r < 0)
                                return r;
                }
                names[i] = b[i].name;
                devs[i] = b[i].dev;     /* with partitions=, the partition's (fspart.h) */
                snprintf(p->md_member_names[i], sizeof(p->md_member_names[i]), "%s", b[i].name);
                p->md_member_devs[i] = devs[i];
        }
        /* md-raid1+lvm: the array's members are released as an md entry's are, after the group is
         * removed and the array stopped (FS_SETUP md_release comes only with the removal). */
        if (proto_fs_layout_builds_md(setup->layout)) {
                p->n_md_members = setup->n_members;
                p->md_release = setup->md_release && (setup->layout_flags & PROTO_FS_LAYOUT_REMOVE);
        }
        /* mdadm and lvm open the members themselves. */
        fsmember_close(b, setup->n_members);
        if (proto_fs_layout_builds_md(setup->layout)) {
                ProtoFsSetup md = *setup;

                md.layout = (char *) "md-raid1";
                md.lvm_options = NULL;
                md.lv_size = 0;
                md.layout_flags = 0;
                r = layout_md_start(&md, names, devs, opts, &a, reterr);
                if (r < 0)
                        return r;
                memcpy(p->md_name, a.name, sizeof(p->md_name));
                p->md_degraded_known = layout_md_degraded(a.name, &p->md_degraded_start) >= 0;
                info->md_chunk_bytes = a.chunk_bytes;
                info->md_resync_usec = a.resync_usec;
                names[0] = a.name;
                devs[0] = a.dev;
                n = 1;
        }
        r = layout_lvm_start(setup, names, devs, n, opts, &v, reterr);
        if (r < 0)
                return r;
        snprintf(p->lvm_vg, sizeof(p->lvm_vg), "%s", v.vg);
        memcpy(p->lvm_pvs, v.pvs, sizeof(p->lvm_pvs));
        memcpy(p->lvm_pv_devs, v.pv_devs, sizeof(p->lvm_pv_devs));
        p->n_lvm_pvs = v.n_pvs;
        p->lvm_remove = setup->layout_flags & PROTO_FS_LAYOUT_REMOVE;
        info->layout_commands = a.commands ? commands_join(a.commands, v.commands) : TAKE_PTR(v.commands);
        if (!info->layout_commands)
                return -ENOMEM;
        info->lv_extents = v.extents;
        info->lv_bytes = v.bytes;

        snprintf(path, sizeof(path), "/dev/%s", v.dm);
        vm = (ProtoFsMember) { .path = path, .dev = (uint64_t) v.dev, .flags = PROTO_GUARD_SCRATCH };
        sub = *setup;
        sub.layout = (char *) "single";
        sub.n_members = 1;
        sub.members = &vm;
        sub.md_name = sub.md_options = sub.lvm_options = NULL;
        sub.lv_size = 0;
        sub.layout_flags = 0;
        sub.expect_uuid = make ? (char *) "" : setup->expect_uuid;
        r = fsmember_claim_all(&sub, &vb, reterr);
        if (r >= 0 && make)
                r = make_fs(&sub, &vb, opts, info, reterr);
        else if (r >= 0) {
                info->uuid = strdup(setup->expect_uuid);
                info->mkfs_command = strdup("");
                info->mkfs_output = strdup("");
                if (!info->uuid || !info->mkfs_command || !info->mkfs_output)
                        r = -ENOMEM;
        }
        fsmember_close(&vb, 1);
        if (r >= 0)
                r = mount_fs(p, &sub, &vb, info, reterr);
        fsmember_free(&vb, 1);
        return r;
}

int fsprep_setup(FsPrep *p, const ProtoFsSetup *setup, const FsPrepOptions *opts, ProtoFsInfo *ret,
                 char **reterr) {
        _cleanup_(proto_fs_info_clear) ProtoFsInfo info = {};
        FsMember b[PROTO_FS_MEMBERS_MAX];
        int r;

        if (!proto_fs_setup_valid(setup))
                return fail(reterr, -EINVAL, "the filesystem setup is not valid");
        for (uint32_t i = 0; i < setup->n_members; i++)
                b[i] = (FsMember) { .fd = -EBADF };

        r = enter_namespace(reterr);
        if (r >= 0)
                r = fsmember_claim_all(setup, b, reterr);
        if (r >= 0)
                r = mount_tmpfs(p, UINT64_C(1) << 20, reterr);
        /* partitions=: from here on each member is its partition (fspart.h). */
        if (r >= 0 && setup->partitions)
                r = fspart_prepare(p, setup, b, opts, &info, reterr);
        if (r >= 0 && proto_fs_layout_is_lvm(setup->layout)) {
                r = setup_lvm(p, setup, b, opts, &info, reterr);
                goto mounted;
        }
        if (r >= 0 && proto_fs_layout_is_md(setup->layout)) {
                r = setup_md(p, setup, b, opts, &info, reterr);
                goto mounted;
        }
        if (r >= 0 && setup->stage == PROTO_FS_STAGE_MAKE)
                r = make_fs(setup, b, opts, &info, reterr);
        else if (r >= 0) {
                fsmember_close(b, setup->n_members);
                info.uuid = strdup(setup->expect_uuid);
                info.mkfs_command = strdup("");
                info.mkfs_output = strdup("");
                if (!info.uuid || !info.mkfs_command || !info.mkfs_output)
                        r = -ENOMEM;
        }
        /* The mount claims the devices itself. */
        fsmember_close(b, setup->n_members);
        if (r >= 0)
                r = mount_fs(p, setup, b, &info, reterr);
mounted:
        if (r >= 0) {
                info.fs_type = strdup(setup->fs_type);
                if (!info.fs_type)
                        r = -ENOMEM;
        }
        fsmember_free(b, setup->n_members);
        if (r < 0)
                return r;
        if (!proto_fs_info_valid(&info))
                return fail(reterr, -EIO, "what the %s filesystem reports cannot be sent to benchd", setup->fs_type);
        *ret = info;
        info = (ProtoFsInfo) {};
        return 0;
}

static int umount_one(const char *path, bool *lazy) {
        if (umount2(path, UMOUNT_NOFOLLOW) == 0)
                return 0;
        if (errno != EBUSY)
                return -errno;
        *lazy = true;
        if (umount2(path, MNT_DETACH | UMOUNT_NOFOLLOW) < 0)
                return -errno;
        return 0;
}

int fsprep_check_layout(const FsPrep *p, char **reterr) {
        unsigned now;
        int r;

        if (!p->md_name[0] || !p->md_degraded_known)
                return 0;
        r = layout_md_degraded(p->md_name, &now);
        if (r < 0)
                return fail(reterr, -EIO, "cannot read md/degraded of the md array %s after the run: %s; whether it "
                            "stayed whole is unknown", p->md_name, strerror(-r));
        if (now > p->md_degraded_start)
                return fail(reterr, -EIO, "the md array %s lost a member during the run (md/degraded went from %u to "
                            "%u: a member failed, or something on the host failed or removed it); its figures are "
                            "not those of the layout asked for, and are not stored", p->md_name,
                            p->md_degraded_start, now);
        return 0;
}

int fsprep_finish(FsPrep *p, char **reterr) {
        _cleanup_free_ char *release_err = NULL, *md_released = NULL;
        bool lazy = false;
        int r, release = 0;

        if (p->fs_mounted) {
                r = umount_one(FSPREP_MOUNT_POINT, &lazy);
                if (r < 0)
                        return fail(reterr, r, "cannot unmount " FSPREP_MOUNT_POINT ": %s; it goes when the worker "
                                    "exits", strerror(-r));
                p->fs_mounted = false;
        }
        /* lvm's root and configuration are on the tmpfs: before it goes. */
        if (p->lvm_vg[0]) {
                LvmVolume v = { .n_pvs = p->n_lvm_pvs };

                memcpy(v.vg, p->lvm_vg, sizeof(v.vg));
                memcpy(v.pvs, p->lvm_pvs, sizeof(v.pvs));
                memcpy(v.pv_devs, p->lvm_pv_devs, sizeof(v.pv_devs));
                /* After a lazy unmount the volume may still be held: benchd removes it (lvm-leftovers),
                 * and the group stays for the next job of the devices to wipe. */
                r = layout_lvm_stop(&v, p->lvm_remove && !lazy, &p->layout_note, &p->released, reterr);
                if (r < 0)
                        return r;
                p->lvm_vg[0] = 0;
                /* The group stays: so do the array's superblocks under it (md-raid1+lvm). */
                if (lazy)
                        p->md_release = false;
        }
        if (p->tmpfs_mounted) {
                r = umount_one(FSPREP_DIR, &lazy);
                if (r < 0)
                        return fail(reterr, r, "cannot unmount the tmpfs on " FSPREP_DIR ": %s; it goes when the "
                                    "worker exits", strerror(-r));
                p->tmpfs_mounted = false;
        }
        if (p->md_name[0]) {
                MdArray a = {};

                memcpy(a.name, p->md_name, sizeof(a.name));
                /* After a lazy unmount the array may still be held: benchd stops it (md-leftovers). */
                r = layout_md_stop(&a, reterr);
                if (r < 0)
                        return r;
                p->md_name[0] = 0;
                if (p->md_release) {
                        char *names[PROTO_FS_MEMBERS_MAX];

                        for (uint32_t i = 0; i < p->n_md_members; i++)
                                names[i] = p->md_member_names[i];
                        p->md_release = false;
                        /* Before the partitions go: they are the members then. */
                        release = layout_md_release(names, p->md_member_devs, p->n_md_members, NULL, &md_released,
                                                    &release_err);
                        /* After the group's deactivation and removal (md-raid1+lvm). */
                        if (md_released) {
                                char *all = p->released ? commands_join(p->released, md_released) :
                                                          TAKE_PTR(md_released);

                                if (all) {
                                        free(p->released);
                                        p->released = all;
                                }
                        }
                }
        }
        if (lazy) {
                (void) fspart_remove(p, NULL);
                fail(reterr, 1, "the filesystem was busy and was unmounted lazily");
                return 1;
        }
        r = fspart_remove(p, reterr);
        if (r < 0)
                return r;
        if (release < 0)
                return fail(reterr, release, "%s", release_err ?: strerror(-release));
        return 0;
}

/* ---- --try-mkfs ---- */

int fsprep_try_mkfs(const char *fs_type, const char *layout, const char *mkfs_options, unsigned n_members,
                    uint64_t size, const FsPrepOptions *opts, char **reterr) {
        _cleanup_(sandbox_result_clear) SandboxResult res = {};
        _cleanup_strv_free_ char **argv = NULL, **images = NULL;
        _cleanup_(mkfs_failure_clear) MkfsFailure failure = {};
        _cleanup_free_ char *program = NULL, *name = NULL;
        uint64_t image = fsprep_try_image_size(size);
        FsPrep p = {};
        int r;

        /* Over an md array or a logical volume mkfs sees one device. */
        if (proto_fs_layout_has_name(layout)) {
                layout = "single";
                n_members = 1;
        }
        if (!proto_fs_layout_valid(fs_type, layout, n_members))
                return fail(reterr, -EINVAL, "%s with layout %s on %u member(s) is not a filesystem benchd makes",
                            fs_type, layout, n_members);
        if (!proto_fs_options_valid(mkfs_options))
                return fail(reterr, -EINVAL, "the mkfs options are longer than %u bytes or hold control characters",
                            PROTO_FS_OPTIONS_MAX);
        fs_type = fs_entry_mkfs_type(fs_type);  /* ext4-from-ext3: mkfs.ext3 takes the options */
        if (asprintf(&name, "mkfs.%s", fs_type) < 0)
                return -ENOMEM;
        r = fstool_find_program(name, &program, reterr);
        if (r < 0)
                return r;

        r = enter_namespace(reterr);
        if (r >= 0)
                r = mount_tmpfs(&p, u64_add_sat(u64_mul_sat(image, n_members), UINT64_C(16) << 20), reterr);
        if (r >= 0 && mkdir(TRY_DIR, 0700) < 0)
                r = fail(reterr, -errno, "cannot create " TRY_DIR ": %m");
        if (r >= 0) {
                images = calloc(n_members + 1, sizeof(char *));
                if (!images)
                        r = -ENOMEM;
        }
        for (unsigned i = 0; r >= 0 && i < n_members; i++) {
                _cleanup_close_ int fd = -EBADF;

                if (asprintf(&images[i], TRY_DIR "/member%u.img", i) < 0) {
                        images[i] = NULL;
                        r = -ENOMEM;
                        break;
                }
                fd = open(images[i], O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
                if (fd < 0 || ftruncate(fd, (off_t) image) < 0)
                        r = fail(reterr, -errno, "cannot create the image %s: %m", images[i]);
        }
        if (r >= 0)
                r = fsprep_mkfs_argv(fs_type, layout, mkfs_options, images, n_members, &argv);
        if (r >= 0) {
                r = run_mkfs(fs_type, program, argv, NULL, 0, TRY_DIR, opts, &res, &failure, reterr);
                if (r == -EINVAL)
                        r = fail(reterr, -EINVAL, "%s rejected the options '%s': %s (%s)", name, mkfs_options,
                                 failure.summary, failure.how);
        }

        for (unsigned i = 0; images && i < n_members && images[i]; i++)
                (void) unlink(images[i]);
        (void) rmdir(TRY_DIR);
        (void) rmdir(TOOL_ROOT);
        (void) fsprep_finish(&p, NULL);
        return r;
}

/* ---- --try-md-options ---- */

int fsprep_try_md(const char *layout, const char *md_options, unsigned n_members, const FsPrepOptions *opts,
                  char **reterr) {
        FsPrep p = {};
        int r;

        /* In a namespace and on a tmpfs of its own, as a filesystem step's mdadm: its root goes with
         * them. */
        r = enter_namespace(reterr);
        if (r >= 0)
                r = mount_tmpfs(&p, UINT64_C(16) << 20, reterr);
        if (r >= 0)
                r = layout_md_try(layout, md_options, n_members, opts, reterr);
        (void) fsprep_finish(&p, NULL);
        return r;
}
