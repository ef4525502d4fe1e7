/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What every tool a filesystem step runs shares (fstool.h): finding the program, running it in the
 * sandbox in a root of its own, cleaning and summarising its output, recording it. Used by fsprep.c
 * (mkfs), fsconvert.c, fspart.c and the layouts (layout-md.c, layout-lvm.c); it calls none of them.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fstool.h"
#include "shared/util.h"

#define fail(reterr, r, ...) reterr_set_once((reterr), (r), __VA_ARGS__)

static const char *const program_dirs[] = { "/usr/sbin", "/usr/bin", "/sbin", "/bin" };

/* ---- output ---- */

size_t fstool_output_clean(char *buf, size_t len) {
        size_t w = 0, line = 0;

        /* A character the capture cut in two is dropped, not shown as garbage. */
        for (size_t back = 1; back <= 3 && back <= len; back++) {
                unsigned char c = (unsigned char) buf[len - back];
                size_t need;

                if ((c & 0xc0) == 0x80)
                        continue;       /* a continuation byte: look further back */
                need = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc0 ? 2 : 1;
                if (need > back)
                        len -= back;
                break;
        }
        /* NULs first, so that what follows is a string. */
        for (size_t i = 0; i < len; i++)
                if (buf[i] == 0)
                        buf[i] = '?';
        buf[len] = 0;

        /* Progress counters (mke2fs's "0/50" then backspaces, a carriage return) as a terminal
         * would leave them; blanks at the end of a line go. */
        for (size_t r = 0; r < len;) {
                size_t n = utf8_char_len(buf + r);
                char c = buf[r];

                if (n == 1 && c == '\b') {
                        if (w > line)
                                for (w--; w > line && ((unsigned char) buf[w] & 0xc0) == 0x80; w--)
                                        ;
                        r++;
                        continue;
                }
                if (n == 1 && c == '\r') {
                        if (buf[r + 1] != '\n')
                                w = line;
                        r++;
                        continue;
                }
                if (n == 1 && c == '\n') {
                        while (w > line && (buf[w - 1] == ' ' || buf[w - 1] == '\t'))
                                w--;
                        buf[w++] = '\n';
                        line = w;
                        r++;
                        continue;
                }
                if (n == 0 || (utf8_is_control(buf + r, n) && c != '\t')) {
                        buf[w++] = '?';
                        r += MAX(n, (size_t) 1);
                        continue;
                }
                memmove(buf + w, buf + r, n);
                w += n;
                r += n;
        }
        buf[w] = 0;
        return w;
}

char *fstool_output_summary(const char *output) {
        _cleanup_free_ char *copy = strdup(output ?: ""), *s = NULL;
        size_t len = 0;
        char *save = NULL;

        if (!copy)
                return NULL;
        s = malloc(FSTOOL_SUMMARY_MAX + sizeof("…"));
        if (!s)
                return NULL;
        s[0] = 0;
        for (char *line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
                char *e;
                size_t n;

                line += strspn(line, " \t");
                e = line + strlen(line);
                while (e > line && (e[-1] == ' ' || e[-1] == '\t'))
                        *--e = 0;
                if (!*line)
                        continue;
                if (strncasecmp(line, "usage:", 6) == 0)
                        break;
                n = strlen(line);
                if (len + (len ? 2 : 0) + n > FSTOOL_SUMMARY_MAX) {
                        /* Cut at a character boundary, and say so. */
                        size_t room = len + (len ? 2 : 0) < FSTOOL_SUMMARY_MAX ?
                                      FSTOOL_SUMMARY_MAX - len - (len ? 2 : 0) : 0;
                        if (len && room) {
                                memcpy(s + len, "; ", 2);
                                len += 2;
                        }
                        while (room > 0 && ((unsigned char) line[room] & 0xc0) == 0x80)
                                room--;
                        memcpy(s + len, line, room);
                        len += room;
                        memcpy(s + len, "…", sizeof("…"));
                        return TAKE_PTR(s);
                }
                if (len) {
                        memcpy(s + len, "; ", 2);
                        len += 2;
                }
                memcpy(s + len, line, n + 1);
                len += n;
        }
        if (len == 0)
                return strdup("no output");
        return TAKE_PTR(s);
}

/* ---- running a tool ---- */

int fstool_find_program(const char *name, char **ret, char **reterr) {
        for (size_t i = 0; i < ELEMENTSOF(program_dirs); i++) {
                _cleanup_free_ char *p = NULL;

                if (asprintf(&p, "%s/%s", program_dirs[i], name) < 0)
                        return -ENOMEM;
                if (access(p, X_OK) == 0) {
                        *ret = TAKE_PTR(p);
                        return 0;
                }
        }
        return fail(reterr, -EINVAL, "%s is not installed (looked in /usr/sbin, /usr/bin, /sbin and /bin); install "
                    "it or choose another filesystem", name);
}

char *fstool_join_argv(char *const *argv) {
        size_t len = 1;
        char *s;

        for (size_t i = 0; argv[i]; i++)
                len += strlen(argv[i]) + 1;
        s = malloc(len);
        if (!s)
                return NULL;
        s[0] = 0;
        for (size_t i = 0; argv[i]; i++) {
                if (i > 0)
                        strcat(s, " ");
                strcat(s, argv[i]);
        }
        return s;
}

/* What mkfs.<fs> reads besides its devices, bound into its root where the host has it. Every
 * tool gets the CPUs online (glibc's sysconf(_SC_NPROCESSORS_ONLN); mkfs.btrfs sizes its global
 * roots by it). mke2fs reads mke2fs.conf (through MKE2FS_CONFIG, so the root has no /etc) and
 * whether the kernel initialises inode tables lazily; mkfs.btrfs and mkfs.xfs read nothing else
 * (strace of both on Debian 12: the device's sysfs directory, /proc/self/mounts, /proc/swaps). */
static const ToolRootFile mke2fs_files[] = { { "/etc/mke2fs.conf", "MKE2FS_CONFIG" },
                                             { "/etc/e2fsck.conf", "E2FSCK_CONFIG" } };

static void mkfs_root_needs(const char *fs_type, ToolRootSpec *spec) {
        static char *const sys_common[] = { (char *) "/sys/devices/system/cpu/online", NULL };
        static char *const sys_ext[] = { (char *) "/sys/devices/system/cpu/online", (char *) "/sys/fs/ext4/features",
                                         NULL };

        spec->sys = sys_common;
        if (streq(fs_type, "ext2") || streq(fs_type, "ext3") || streq(fs_type, "ext4")) {
                spec->files = mke2fs_files;
                spec->n_files = ELEMENTSOF(mke2fs_files);
                spec->sys = sys_ext;
        }
}

/* Runs a tool of the filesystem fs_type (mkfs, or what converts it) in the sandbox, in a root of
 * its own with the devices (or the writable directory of the trial's images): 0 when it ran, with
 * *ret filled whatever its exit status (the output cleaned for FS_INFO). */
int fstool_run(const char *fs_type, const char *program, char *const *argv, const ToolRootDevice *devices,
               size_t n_devices, const char *writable, const char *input, const FsPrepOptions *opts,
               SandboxResult *ret, char **reterr) {
        _cleanup_(sandbox_result_clear) SandboxResult res = {};
        _cleanup_(toolroot_freep) ToolRoot *root = NULL;
        char *programs[] = { (char *) program, NULL };
        ToolRootSpec spec = {
                .programs = programs,
                .devices = devices,
                .n_devices = n_devices,
                .writable = writable,
        };
        Sandbox sb = {
                .path = program,
                .argv = argv,
                .stop_requested = opts ? opts->stop_requested : NULL,
                .input = input,
        };
        int r;

        mkfs_root_needs(fs_type, &spec);
        r = toolroot_new(&spec, FSTOOL_ROOT, &root, reterr);
        if (r < 0) {
                _cleanup_free_ char *inner = reterr ? TAKE_PTR(*reterr) : NULL;
                return reterr_set(reterr, r, "cannot build the root %s runs in: %s", argv[0], inner ?: strerror(-r));
        }
        sb.root = root;
        r = sandbox_run(&sb, &res, reterr);
        if (r < 0)
                return r;
        res.output_len = fstool_output_clean(res.output, res.output_len);
        *ret = res;
        res = (SandboxResult) {};
        return 0;
}

void fstool_status_text(int status, char *buf, size_t size) {
        if (WIFEXITED(status))
                snprintf(buf, size, "exit %d", WEXITSTATUS(status));
        else
                snprintf(buf, size, "killed by signal %d", WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

int fstool_command_add(ProtoFsInfo *info, char *const *argv, const SandboxResult *res) {
        ProtoFsCommand *c;

        if (!info->commands) {
                info->commands = calloc(PROTO_FS_COMMANDS_MAX, sizeof(ProtoFsCommand));
                if (!info->commands)
                        return -ENOMEM;
        }
        if (info->n_commands >= PROTO_FS_COMMANDS_MAX)
                return -E2BIG;
        c = &info->commands[info->n_commands];
        *c = (ProtoFsCommand) {
                .command = fstool_join_argv(argv),
                .usec = res->usec,
                .status = WIFEXITED(res->status) ? WEXITSTATUS(res->status) : 128 + WTERMSIG(res->status),
                .output = strdup(res->output ?: ""),
        };
        if (!c->command || !c->output) {
                free(c->command);
                free(c->output);
                *c = (ProtoFsCommand) {};
                return -ENOMEM;
        }
        info->n_commands++;
        return 0;
}
