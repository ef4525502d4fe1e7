/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The trial mkfs (mkfs-trial.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/fs.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "jobs/mkfs-trial.h"
#include "shared/proto.h"
#include "shared/strv.h"
#include "shared/util.h"

extern char **environ;

/* What the trial worker says on stderr, at most this much. */
#define TRIAL_MESSAGE_MAX 2048u

static uint64_t device_size(const char *path) {
        _cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
        uint64_t size = 0;

        if (fd < 0 || ioctl(fd, BLKGETSIZE64, &size) < 0)
                return 0;
        return size;
}

/* Runs argv with stderr into *ret_output (trimmed); returns the wait status, or a negative errno. */
static int run_capture(char **argv, char **ret_output) {
        _cleanup_free_ char *out = malloc(TRIAL_MESSAGE_MAX + 1);
        posix_spawn_file_actions_t fa;
        size_t len = 0;
        int pipefd[2], status, r;
        pid_t pid;

        if (!out)
                return -ENOMEM;
        if (pipe2(pipefd, O_CLOEXEC) < 0)
                return -errno;
        posix_spawn_file_actions_init(&fa);
        posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
        posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
        posix_spawn_file_actions_adddup2(&fa, pipefd[1], STDERR_FILENO);
        r = posix_spawn(&pid, argv[0], &fa, NULL, argv, (char *[]) { (char *) "LANG=C", NULL });
        posix_spawn_file_actions_destroy(&fa);
        close(pipefd[1]);
        if (r != 0) {
                close(pipefd[0]);
                return -r;
        }
        for (;;) {
                char buf[512];
                ssize_t k = read(pipefd[0], buf, sizeof(buf));
                if (k < 0 && errno == EINTR)
                        continue;
                if (k <= 0)
                        break;
                size_t take = MIN((size_t) k, TRIAL_MESSAGE_MAX - len);
                memcpy(out + len, buf, take);
                len += take;
        }
        close(pipefd[0]);
        while (waitpid(pid, &status, 0) < 0)
                if (errno != EINTR)
                        return -errno;
        while (len > 0 && (out[len - 1] == '\n' || out[len - 1] == ' '))
                len--;
        out[len] = 0;
        /* One line for the D-Bus error: newlines become "; ". */
        for (char *p = out; *p; p++)
                if (*p == '\n' || (unsigned char) *p < 0x20)
                        *p = ' ';
        *ret_output = TAKE_PTR(out);
        return status;
}

static bool path_may_start(const char *text, const char *p) {
        char prev = p == text ? ' ' : p[-1];

        if (p[1] == 0 || p[1] == ' ' || p[1] == '\t' || p[1] == '\n')
                return false;   /* "a / b": no path */
        if (prev == ':')
                return p[1] != '/';     /* "http://": a URL, left as it is */
        return strchr(" \t\n'\"`([<{=,", prev) != NULL;
}

char *mkfs_trial_strip_paths(const char *text) {
        static const char placeholder[] = "<path>";
        size_t len = strlen(text ?: "");
        /* A replaced path is at least one byte: no byte becomes more than the placeholder. */
        char *out = malloc(len * (sizeof(placeholder) - 1) + 1), *w = out;

        if (!out)
                return NULL;
        for (const char *p = text ?: ""; *p;) {
                size_t n;

                if (*p != '/' || !path_may_start(text, p)) {
                        /* A URL's "scheme://host/path" is copied whole: its '/'s are not paths. */
                        if (p[0] == ':' && p[1] == '/' && p[2] == '/') {
                                n = strcspn(p, " \t\n'\"`)]>},;");
                                memcpy(w, p, n);
                                w += n;
                                p += n;
                                continue;
                        }
                        *w++ = *p++;
                        continue;
                }
                n = strcspn(p, " \t\n'\"`)]>},;");
                while (n > 1 && (p[n - 1] == ':' || p[n - 1] == '.'))
                        n--;
                if (n > strlen(PROTO_TRY_MKFS_IMAGE_DIR "/") &&
                    strncmp(p, PROTO_TRY_MKFS_IMAGE_DIR "/", strlen(PROTO_TRY_MKFS_IMAGE_DIR "/")) == 0 &&
                    !memmem(p, n, "/..", 3)) {
                        memcpy(w, p, n);
                        w += n;
                } else {
                        memcpy(w, placeholder, sizeof(placeholder) - 1);
                        w += sizeof(placeholder) - 1;
                }
                p += n;
        }
        *w = 0;
        return out;
}

/* md_options as mdadm takes them, asked beforehand: `benchd-worker --try-md-options` (its
 * layout-md.h, layout_md_try(): mdadm --create on member paths that do not exist, so nothing is
 * created). */
static int md_trial(const char *worker_path, const JobSpec *s, size_t n_members, char **reterr) {
        _cleanup_free_ char *a_opts = NULL, *a_layout = NULL, *a_members = NULL, *raw = NULL, *output = NULL;
        int level = layout_md_level(s->layout), r;

        if (asprintf(&a_opts, "--try-md-options=%s", s->md_options ?: "") < 0 ||
            asprintf(&a_layout, "--layout=md-raid%d", level) < 0 ||
            asprintf(&a_members, "--members=%zu", n_members) < 0)
                return -ENOMEM;
        char *argv[] = { (char *) worker_path, a_opts, a_layout, a_members, NULL };

        r = run_capture(argv, &raw);
        if (r < 0) {
                if (asprintf(reterr, "md_options: cannot run %s to try them with mdadm: %s", worker_path,
                             strerror(-r)) < 0)
                        *reterr = NULL;
                return -ENOEXEC;
        }
        if (WIFEXITED(r) && WEXITSTATUS(r) == 0)
                return 0;
        output = mkfs_trial_strip_paths(raw);
        if (!output)
                return -ENOMEM;
        if (WIFEXITED(r) && WEXITSTATUS(r) == 1) {
                if (asprintf(reterr, "md_options: %s; nothing was written to the devices: give options mdadm accepts "
                             "for RAID%d (see mdadm(8), --create)", *output ? output : "mdadm rejected them",
                             level) < 0)
                        *reterr = NULL;
                return -EINVAL;
        }
        if (asprintf(reterr, "md_options: the trial of mdadm did not finish (%s %d): %s; see benchd's log",
                     WIFEXITED(r) ? "exit status" : "signal", WIFEXITED(r) ? WEXITSTATUS(r) : WTERMSIG(r),
                     *output ? output : "no message") < 0)
                *reterr = NULL;
        return -ENOEXEC;
}

int mkfs_trial(const char *worker_path, const JobSpec *s, char **reterr) {
        uint64_t size = s->target ? device_size(s->target) : 0;
        size_t n_members = strv_length(s->devices);
        int r;

        if (!worker_path) {
                if (asprintf(reterr, "filesystems: cannot try the mkfs options (benchd-worker is not known to this "
                             "check); see benchd's log") < 0)
                        *reterr = NULL;
                return -ENOEXEC;
        }
        /* The array's options first: mkfs runs on it. */
        if (s->layout >= 0 && layout_is_md(s->layout) && s->md_options && s->md_options[0]) {
                r = md_trial(worker_path, s, n_members, reterr);
                if (r < 0)
                        return r;
        }
        for (char **fs = s->filesystems; fs && *fs; fs++) {
                const char *options = spec_map_get(&s->mkfs_options, *fs);
                _cleanup_free_ char *a_fs = NULL, *a_layout = NULL, *a_opts = NULL, *a_members = NULL,
                                    *a_size = NULL, *output = NULL;
                /* A single-layout entry has one member, btrfs's RAID all of them; over an md array
                 * or a logical volume mkfs sees one device, the array or the volume. */
                bool md = s->layout >= 0 && (layout_is_md(s->layout) || layout_is_lvm(s->layout));
                size_t members = s->layout == LAYOUT_SINGLE || md ? 1 : n_members;

                if (asprintf(&a_fs, "--try-mkfs=%s", *fs) < 0 ||
                    asprintf(&a_layout, "--layout=%s", md ? "single" : layout_to_string(s->layout)) < 0 ||
                    asprintf(&a_opts, "--mkfs-options=%s", options ?: "") < 0 ||
                    asprintf(&a_members, "--members=%zu", members) < 0 ||
                    asprintf(&a_size, "--size=%" PRIu64, size) < 0)
                        return -ENOMEM;
                char *argv[] = { (char *) worker_path, a_fs, a_layout, a_opts, a_members, a_size, NULL };
                _cleanup_free_ char *raw = NULL;

                r = run_capture(argv, &raw);
                if (r < 0) {
                        if (asprintf(reterr, "filesystems: cannot run %s to try mkfs.%s: %s", worker_path, *fs,
                                     strerror(-r)) < 0)
                                *reterr = NULL;
                        return -ENOEXEC;
                }
                if (WIFEXITED(r) && WEXITSTATUS(r) == 0)
                        continue;
                output = mkfs_trial_strip_paths(raw);
                if (!output)
                        return -ENOMEM;
                if (WIFEXITED(r) && WEXITSTATUS(r) == 1) {
                        if (asprintf(reterr, "%s%s: %s; nothing was written to the devices: give options mkfs.%s "
                                     "accepts (see its manual page)", options ? "mkfs_options." : "filesystems",
                                     options ? *fs : "", *output ? output : "mkfs failed", *fs) < 0)
                                *reterr = NULL;
                        return -EINVAL;
                }
                if (asprintf(reterr, "filesystems: the trial mkfs.%s did not finish (%s %d): %s; see benchd's log",
                             *fs, WIFEXITED(r) ? "exit status" : "signal", WIFEXITED(r) ? WEXITSTATUS(r) : WTERMSIG(r),
                             *output ? output : "no message") < 0)
                        *reterr = NULL;
                return -ENOEXEC;
        }
        return 0;
}
