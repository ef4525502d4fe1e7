/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The md array of a filesystem step (layout-md.h). mdadm runs in the sandbox as mkfs does, but in
 * a root whose /sys is the host's and writable: md arrays are made through sysfs. What it may be
 * told is only what spec-matrix.c lets md_options say (--chunk, --bitmap, --metadata, --layout).
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include "layout-md.h"
#include "sandbox.h"
#include "toolroot.h"
#include "shared/json-util.h"
#include "shared/strv.h"
#include "shared/util.h"

#define MD_ROOT FSTOOL_DIR "/mdroot"
/* What each command's record keeps of its output (layout_commands stays well under its bound). */
#define MD_OUTPUT_KEEP 3000u
#define RESYNC_POLL_MS 1000

#define fail(reterr, r, ...) reterr_set_once((reterr), (r), __VA_ARGS__)

static void closedirp(DIR **d) {
        if (*d)
                closedir(*d);
}

static int md_level_of_layout(const char *layout) {
        if (streq_ptr(layout, "md-raid0"))
                return 0;
        if (streq_ptr(layout, "md-raid1"))
                return 1;
        if (streq_ptr(layout, "md-raid5"))
                return 5;
        if (streq_ptr(layout, "md-raid10"))
                return 10;
        return -1;
}

int layout_md_argv(const ProtoFsSetup *setup, bool make, char *const *nodes, size_t n, char ***ret) {
        _cleanup_strv_free_ char **argv = NULL;
        _cleanup_free_ char *options = strdup(setup->md_options ?: "");
        char buf[64];
        int level = md_level_of_layout(setup->layout), r;

        if (!options)
                return -ENOMEM;
        if (level < 0 || !proto_fs_md_name_valid(setup->md_name) || n < 2)
                return -EINVAL;
        snprintf(buf, sizeof(buf), "/dev/md/%s", setup->md_name);
        r = strv_push(&argv, "mdadm");
        if (r >= 0)
                r = strv_push(&argv, make ? "--create" : "--assemble");
        if (r >= 0)
                r = strv_push(&argv, buf);
        if (r >= 0)
                r = strv_push(&argv, "--config=none");
        if (r >= 0)
                r = strv_push(&argv, "--homehost=" LAYOUT_MD_HOMEHOST);
        if (r >= 0)
                r = strv_push(&argv, "--run");
        if (r >= 0 && make) {
                snprintf(buf, sizeof(buf), "--level=%d", level);
                r = strv_push(&argv, buf);
                snprintf(buf, sizeof(buf), "--raid-devices=%zu", n);
                if (r >= 0)
                        r = strv_push(&argv, buf);
                if (r >= 0 && setup->md_resync == PROTO_MD_RESYNC_ASSUME_CLEAN && level != 0)
                        r = strv_push(&argv, "--assume-clean");
                for (char *save = NULL, *w = strtok_r(options, " \t", &save); r >= 0 && w;
                     w = strtok_r(NULL, " \t", &save))
                        r = strv_push(&argv, w);
        }
        for (size_t i = 0; r >= 0 && i < n; i++)
                r = strv_push(&argv, nodes[i]);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(argv);
        return 0;
}

int layout_md_find_holder(const char *sysroot, char *const *members, size_t n, char ret_name[static 32]) {
        char found[32] = "";

        for (size_t i = 0; i < n; i++) {
                _cleanup_(closedirp) DIR *d = NULL;
                char path[PATH_MAX];
                struct dirent *de;
                unsigned k = 0;

                snprintf(path, sizeof(path), "%s/sys/class/block/%s/holders", sysroot, members[i]);
                d = opendir(path);
                if (!d)
                        return errno == ENOENT ? -ENOENT : -errno;
                while ((de = readdir(d))) {
                        if (de->d_name[0] == '.')
                                continue;
                        if (++k > 1 || strncmp(de->d_name, "md", 2) != 0 || strlen(de->d_name) >= sizeof(found))
                                return -EBUSY;
                        if (found[0] && !streq(found, de->d_name))
                                return -EBUSY;
                        snprintf(found, sizeof(found), "%s", de->d_name);
                }
                if (k == 0)
                        return -ENOENT;
        }
        if (!found[0])
                return -ENOENT;
        memcpy(ret_name, found, sizeof(found));
        return 0;
}

/* A sysfs attribute of the array, read: its first line, trailing newline dropped. */
static int md_attr_read(const char *md, const char *attr, char *buf, size_t size) {
        _cleanup_close_ int fd = -EBADF;
        char path[PATH_MAX];
        ssize_t k;

        snprintf(path, sizeof(path), "/sys/block/%s/md/%s", md, attr);
        fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return -errno;
        k = pread(fd, buf, size - 1, 0);
        if (k < 0)
                return -errno;
        buf[k] = 0;
        buf[strcspn(buf, "\n")] = 0;
        return 0;
}

static int md_attr_write(const char *md, const char *attr, const char *value) {
        _cleanup_close_ int fd = -EBADF;
        char path[PATH_MAX];

        snprintf(path, sizeof(path), "/sys/block/%s/md/%s", md, attr);
        fd = open(path, O_WRONLY | O_CLOEXEC);
        if (fd < 0)
                return -errno;
        if (write(fd, value, strlen(value)) < 0)
                return -errno;
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

/* Appends {"command","usec","exit","output"} to the array's record. */
static int record_command(json_object *list, char *const *argv, const SandboxResult *res) {
        _cleanup_free_ char *command = join_words(argv);
        json_object *o = json_object_new_object();
        size_t keep = MIN(res->output_len, (size_t) MD_OUTPUT_KEEP);

        if (!command || !o)
                return -ENOMEM;
        /* Cut at a character boundary: output is clean UTF-8 (fstool_output_clean()). */
        while (keep > 0 && keep < res->output_len && (res->output[keep] & 0xC0) == 0x80)
                keep--;
        json_object_object_add(o, "command", json_object_new_string(command));
        json_object_object_add(o, "usec", json_object_new_int64((int64_t) MIN(res->usec, (uint64_t) INT64_MAX)));
        json_object_object_add(o, "exit", json_object_new_int(WIFEXITED(res->status) ? WEXITSTATUS(res->status) :
                                                              128 + (WIFSIGNALED(res->status) ? WTERMSIG(res->status) : 0)));
        json_object_object_add(o, "output", json_object_new_string_len(res->output ?: "", (int) keep));
        return json_object_array_add(list, o) < 0 ? -ENOMEM : 0;
}

static int find_mdadm(char **ret, char **reterr) {
        static const char *const dirs[] = { "/usr/sbin", "/usr/bin", "/sbin", "/bin" };

        for (size_t i = 0; i < ELEMENTSOF(dirs); i++) {
                _cleanup_free_ char *p = NULL;

                if (asprintf(&p, "%s/mdadm", dirs[i]) < 0)
                        return -ENOMEM;
                if (access(p, X_OK) == 0) {
                        *ret = TAKE_PTR(p);
                        return 0;
                }
        }
        return fail(reterr, -EINVAL, "mdadm is not installed (looked in /usr/sbin, /usr/bin, /sbin and /bin); install "
                    "the Debian package mdadm, or use layout=single");
}

/* Whether the array needs no resync or recovery any more. sync_action alone cannot say: it reads idle
 * for a moment after the array was made active, before md's thread starts the resync, and the worker
 * measured on an array resyncing underneath (seen in a VM: mkfs at once, resync at 0.5%). resync_start
 * is "none" once the array is in sync; degraded is 0 once the spare RAID5 builds parity on is in. */
static bool md_in_sync(const char *md) {
        char v[64];

        if (md_attr_read(md, "resync_start", v, sizeof(v)) >= 0 && !streq(v, "none"))
                return false;
        if (md_attr_read(md, "degraded", v, sizeof(v)) >= 0 && !streq(v, "0"))
                return false;
        return true;
}

/* The initial resync, waited for: sync_action polled (POLLPRI: md notifies its changes) until it
 * says idle. An array that starts auto-read-only is made active first, or it would never start. */
static int wait_resync(const char *md, const FsPrepOptions *opts, uint64_t *ret_usec, char **reterr) {
        _cleanup_close_ int fd = -EBADF;
        char path[PATH_MAX], state[64];
        uint64_t start = now_usec(CLOCK_MONOTONIC);

        if (md_attr_read(md, "array_state", state, sizeof(state)) >= 0 && streq(state, "read-auto"))
                (void) md_attr_write(md, "array_state", "active");
        snprintf(path, sizeof(path), "/sys/block/%s/md/sync_action", md);
        fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0) {
                *ret_usec = 0;
                return errno == ENOENT ? 0 : fail(reterr, -errno, "cannot read %s: %m", path);    /* RAID0 */
        }
        for (;;) {
                struct pollfd pfd = { .fd = fd, .events = POLLPRI | POLLERR };
                char action[64];
                ssize_t k = pread(fd, action, sizeof(action) - 1, 0);

                if (k < 0)
                        return fail(reterr, -errno, "cannot read %s: %m", path);
                action[k] = 0;
                action[strcspn(action, "\n")] = 0;
                if (streq(action, "frozen") || ((streq(action, "idle") || streq(action, "none")) && md_in_sync(md)))
                        break;
                if (opts && opts->stop_requested && opts->stop_requested())
                        return fail(reterr, -ECANCELED, "stopped while waiting for the resync of %s", md);
                /* A timeout too: the notification is not promised for every transition. */
                if (poll(&pfd, 1, RESYNC_POLL_MS) < 0 && errno != EINTR)
                        return fail(reterr, -errno, "cannot poll %s: %m", path);
        }
        *ret_usec = now_usec(CLOCK_MONOTONIC) - start;
        return 0;
}

/* mdadm with argv in a tool root of its own that holds only the members' nodes, in the sandbox. */
static int run_mdadm(const char *program, char **argv, char *const *member_names, const dev_t *member_devs,
                     uint32_t n, const FsPrepOptions *opts, SandboxResult *res, char **reterr) {
        _cleanup_(toolroot_freep) ToolRoot *root = NULL;
        ToolRootDevice devices[PROTO_FS_MEMBERS_MAX];
        char *programs[] = { (char *) program, NULL };
        ToolRootSpec spec = {
                .programs = programs,
                .devices = devices,
                .n_devices = n,
                .md = n > 0,    /* a trial (no members) needs nothing of the host's /sys */
        };
        Sandbox sb = { .path = program, .argv = argv, .stop_requested = opts ? opts->stop_requested : NULL };
        int r;

        for (uint32_t i = 0; i < n; i++)
                devices[i] = (ToolRootDevice) { .name = member_names[i], .dev = member_devs[i] };
        if (mkdir(MD_ROOT, 0700) < 0 && errno != EEXIST)
                return fail(reterr, -errno, "cannot create " MD_ROOT ": %m");
        r = toolroot_new(&spec, MD_ROOT, &root, reterr);
        if (r < 0) {
                _cleanup_free_ char *inner = reterr ? TAKE_PTR(*reterr) : NULL;
                return fail(reterr, r, "cannot build the root mdadm runs in: %s", inner ?: strerror(-r));
        }
        sb.root = root;
        r = sandbox_run(&sb, res, reterr);
        root = toolroot_free(root);
        if (r < 0)
                return r;
        res->output_len = fstool_output_clean(res->output, res->output_len);
        return 0;
}

/* Arrays the host assembled from the members before this step's assemble: with partitions=, the
 * partitions come back at each step and the host's udev rules (Debian's mdadm --incremental on
 * linux_raid_member) may assemble the entry's array from them, inactive, before mdadm here can;
 * mdadm then finds a member busy. The members carry the entry's superblock (checked before), so
 * any md device holding one is the entry's own array: stopped, and the stop recorded with the
 * step's commands. */
static int stop_host_assembly(char *const *member_names, uint32_t n, json_object *list) {
        for (uint32_t i = 0; i < n; i++) {
                _cleanup_(closedirp) DIR *d = NULL;
                char path[PATH_MAX];
                struct dirent *de;

                snprintf(path, sizeof(path), "/sys/class/block/%s/holders", member_names[i]);
                d = opendir(path);
                if (!d)
                        continue;
                while ((de = readdir(d))) {
                        json_object *o;
                        char cmd[256];
                        int r;

                        if (strncmp(de->d_name, "md", 2) != 0 || strlen(de->d_name) >= 32)
                                continue;
                        r = md_attr_write(de->d_name, "array_state", "clear");
                        snprintf(cmd, sizeof(cmd), "echo clear > /sys/block/%s/md/array_state (assembled by the host "
                                 "from %s before this step)", de->d_name, member_names[i]);
                        o = json_object_new_object();
                        if (!o)
                                return -ENOMEM;
                        json_object_object_add(o, "command", json_object_new_string(cmd));
                        json_object_object_add(o, "usec", json_object_new_int64(0));
                        json_object_object_add(o, "exit", json_object_new_int(r < 0 ? 1 : 0));
                        json_object_object_add(o, "output", json_object_new_string(r < 0 ? strerror(-r) : ""));
                        if (json_object_array_add(list, o) < 0) {
                                json_object_put(o);
                                return -ENOMEM;
                        }
                        /* The directory changed under readdir(): read it again. */
                        if (r >= 0)
                                rewinddir(d);
                }
        }
        return 0;
}

/* How often a later step's assemble is tried where the host's udev assembles the members in
 * between, and the pause before each retry: 2 s in all, the time udev takes for a few events. */
#define MD_ASSEMBLE_TRIES 8
#define MD_ASSEMBLE_PAUSE_USEC 250000

int layout_md_start(const ProtoFsSetup *setup, char *const *member_names, const dev_t *member_devs,
                    const FsPrepOptions *opts, MdArray *ret, char **reterr) {
        bool make = setup->stage == PROTO_FS_STAGE_MAKE;
        _cleanup_(sandbox_result_clear) SandboxResult res = {};
        _cleanup_strv_free_ char **argv = NULL;
        _cleanup_free_ char *program = NULL;
        _cleanup_json_ json_object *list = json_object_new_array();
        char *nodes[PROTO_FS_MEMBERS_MAX], node_buf[PROTO_FS_MEMBERS_MAX][64], value[64];
        MdArray a = {};
        unsigned dev_major, dev_minor;
        int r;

        if (!list)
                return -ENOMEM;
        r = find_mdadm(&program, reterr);
        if (r < 0)
                return r;
        for (uint32_t i = 0; i < setup->n_members; i++) {
                snprintf(node_buf[i], sizeof(node_buf[i]), "/dev/%s", member_names[i]);
                nodes[i] = node_buf[i];
        }
        r = layout_md_argv(setup, make, nodes, setup->n_members, &argv);
        if (r < 0)
                return fail(reterr, r == -EINVAL ? -EINVAL : r, "cannot build the command line of mdadm for %s: %s",
                            setup->layout, strerror(-r));

        for (unsigned i = 0;; i++) {
                bool ok;

                /* A later step's assemble, tried again where the host's assembly came between the
                 * stop and mdadm: its udev handles the members' events one by one (each member's
                 * close after a write is one), so an array of one member may be followed by one of
                 * two, and one of them may take a member while mdadm here assembles the others. */
                if (!make) {
                        if (i > 0)
                                (void) usleep(MD_ASSEMBLE_PAUSE_USEC);
                        r = stop_host_assembly(member_names, setup->n_members, list);
                        if (r < 0)
                                return r;
                }
                sandbox_result_clear(&res);
                r = run_mdadm(program, argv, member_names, member_devs, setup->n_members, opts, &res, reterr);
                if (r < 0)
                        return r;
                r = record_command(list, argv, &res);
                if (r < 0)
                        return r;
                ok = WIFEXITED(res.status) && WEXITSTATUS(res.status) == 0;
                if (make || i + 1 >= MD_ASSEMBLE_TRIES)
                        break;
                /* Done when it succeeded and one array holds every member; otherwise whatever holds
                 * them is stopped by the next round's stop_host_assembly(). */
                if (ok && layout_md_find_holder("", member_names, setup->n_members, a.name) >= 0)
                        break;
        }

        /* What it assembled, if anything, is found from the members whatever its exit said, so that
         * an array is never left behind by a failure here. */
        r = layout_md_find_holder("", member_names, setup->n_members, a.name);
        if (!WIFEXITED(res.status) || WEXITSTATUS(res.status) != 0) {
                _cleanup_free_ char *summary = fstool_output_summary(res.output);

                if (r >= 0)
                        (void) layout_md_stop(&a, NULL);
                return fail(reterr, -EINVAL, "mdadm --%s of %s on %s failed (%s %d): %s",
                            make ? "create" : "assemble", setup->md_name, setup->layout,
                            WIFEXITED(res.status) ? "exit" : "signal",
                            WIFEXITED(res.status) ? WEXITSTATUS(res.status) : WTERMSIG(res.status),
                            summary ?: "no output");
        }
        if (r < 0)
                return fail(reterr, -EIO, "mdadm --%s said it succeeded, but the members are not held by one md "
                            "array (%s)", make ? "create" : "assemble", strerror(-r));

        {
                char path[PATH_MAX];
                _cleanup_fclose_ FILE *f = NULL;

                snprintf(path, sizeof(path), "/sys/block/%s/dev", a.name);
                f = fopen(path, "re");
                if (!f || fscanf(f, "%u:%u", &dev_major, &dev_minor) != 2) {
                        r = fail(reterr, -EIO, "cannot read %s: %m", path);
                        (void) layout_md_stop(&a, NULL);
                        return r;
                }
                a.dev = makedev(dev_major, dev_minor);
        }
        if (md_attr_read(a.name, "chunk_size", value, sizeof(value)) >= 0)
                a.chunk_bytes = strtoull(value, NULL, 10);
        if (make && setup->md_resync == PROTO_MD_RESYNC_WAIT) {
                r = wait_resync(a.name, opts, &a.resync_usec, reterr);
                if (r < 0) {
                        (void) layout_md_stop(&a, NULL);
                        return r;
                }
        }
        a.commands = strdup(json_object_to_json_string_ext(list, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
        if (!a.commands) {
                (void) layout_md_stop(&a, NULL);
                return -ENOMEM;
        }
        *ret = a;
        return 0;
}

int layout_md_degraded(const char *md, unsigned *ret) {
        char v[32], *end;
        unsigned long n;
        int r;

        r = md_attr_read(md, "degraded", v, sizeof(v));
        if (r < 0)
                return r;
        errno = 0;
        n = strtoul(v, &end, 10);
        if (errno != 0 || end == v || *end || n > UINT_MAX)
                return -EINVAL;
        *ret = (unsigned) n;
        return 0;
}

int layout_md_stop(MdArray *a, char **reterr) {
        int r;

        if (!a->name[0])
                return 0;
        /* array_state "clear" is STOP_ARRAY: refused (EBUSY) while anything holds it open. */
        r = md_attr_write(a->name, "array_state", "clear");
        if (r < 0 && r != -ENOENT)
                return fail(reterr, r, "cannot stop the md array %s: %s", a->name, strerror(-r));
        a->name[0] = 0;
        return 0;
}

int layout_md_release(char *const *member_names, const dev_t *member_devs, uint32_t n, const FsPrepOptions *opts,
                      char **ret_commands, char **reterr) {
        _cleanup_(sandbox_result_clear) SandboxResult res = {};
        _cleanup_strv_free_ char **argv = NULL;
        _cleanup_free_ char *program = NULL, *commands = NULL;
        _cleanup_json_ json_object *list = json_object_new_array();
        char node[64];
        int r;

        if (!list)
                return -ENOMEM;
        r = find_mdadm(&program, reterr);
        if (r < 0)
                return r;
        r = strv_push(&argv, "mdadm");
        if (r >= 0)
                r = strv_push(&argv, "--zero-superblock");
        for (uint32_t i = 0; r >= 0 && i < n; i++) {
                snprintf(node, sizeof(node), "/dev/%s", member_names[i]);
                r = strv_push(&argv, node);
        }
        if (r < 0)
                return r;
        r = run_mdadm(program, argv, member_names, member_devs, n, opts, &res, reterr);
        if (r < 0)
                return r;
        r = record_command(list, argv, &res);
        if (r < 0)
                return r;
        commands = strdup(json_object_to_json_string_ext(list, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
        if (!commands)
                return -ENOMEM;
        *ret_commands = TAKE_PTR(commands);
        if (!WIFEXITED(res.status) || WEXITSTATUS(res.status) != 0) {
                _cleanup_free_ char *summary = fstool_output_summary(res.output);

                return fail(reterr, -EIO, "mdadm --zero-superblock of the members failed (%s %d): %s; they keep "
                            "their md superblock", WIFEXITED(res.status) ? "exit" : "signal",
                            WIFEXITED(res.status) ? WEXITSTATUS(res.status) : WTERMSIG(res.status),
                            summary ?: "no output");
        }
        return 0;
}

int layout_md_try(const char *layout, const char *md_options, unsigned n, const FsPrepOptions *opts, char **reterr) {
        _cleanup_(sandbox_result_clear) SandboxResult res = {};
        _cleanup_strv_free_ char **argv = NULL;
        _cleanup_free_ char *program = NULL;
        char *nodes[PROTO_FS_MEMBERS_MAX], node_buf[PROTO_FS_MEMBERS_MAX][64];
        ProtoFsSetup setup = {
                .layout = (char *) layout, .md_name = (char *) LAYOUT_MD_TRY_NAME, .md_options = (char *) md_options,
        };
        int r;

        if (n < 2 || n > PROTO_FS_MEMBERS_MAX)
                return fail(reterr, -EINVAL, "an md array has 2 to %u members, not %u", PROTO_FS_MEMBERS_MAX, n);
        r = find_mdadm(&program, reterr);
        if (r < 0)
                return r;
        for (unsigned i = 0; i < n; i++) {
                snprintf(node_buf[i], sizeof(node_buf[i]), LAYOUT_MD_TRY_MEMBER "%u", i);
                nodes[i] = node_buf[i];
        }
        r = layout_md_argv(&setup, true, nodes, n, &argv);
        if (r < 0)
                return fail(reterr, r, "cannot build the command line of mdadm for %s: %s", layout, strerror(-r));
        /* No member node in its root: nothing there for mdadm to open, let alone write. */
        r = run_mdadm(program, argv, NULL, NULL, 0, opts, &res, reterr);
        if (r < 0)
                return r;
        /* It took the options when what stopped it is the first member it was given. */
        if (res.output && strstr(res.output, "cannot open " LAYOUT_MD_TRY_MEMBER "0"))
                return 0;
        {
                _cleanup_free_ char *summary = fstool_output_summary(res.output);

                return fail(reterr, -EINVAL, "mdadm rejected md_options '%s' for %s over %u devices (%s %d): %s",
                            md_options, layout, n, WIFEXITED(res.status) ? "exit" : "signal",
                            WIFEXITED(res.status) ? WEXITSTATUS(res.status) : WTERMSIG(res.status),
                            summary ?: "no output");
        }
}

void md_array_clear(MdArray *a) {
        free(a->commands);
        *a = (MdArray) {};
}
