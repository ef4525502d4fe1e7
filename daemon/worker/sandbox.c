/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The sandbox of sandbox.h. The child is made with clone3(CLONE_NEWNS | CLONE_NEWPID) (fork-like:
 * no stack of its own), so it is PID 1 of a namespace that ends with it: nothing it starts
 * outlives it. The order in the child matters: /dev and /proc are mounted before the tree is made
 * read-only, so they are read-only too (no mknod, no file in /dev), and the device nodes keep
 * working because device nodes ignore the mount's read-only flag. The parent reads the output
 * while it waits, so a chatty mkfs never blocks on a full pipe, and polls the stop request every
 * 100 ms.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sandbox.h"
#include "shared/util.h"

#define POLL_MS 100

/* clone3()'s arguments as of Linux 5.3 (CLONE_ARGS_SIZE_VER0), spelled out so that no kernel
 * header of a particular age is needed. */
struct sandbox_clone_args {
        uint64_t flags;
        uint64_t pidfd;
        uint64_t child_tid;
        uint64_t parent_tid;
        uint64_t exit_signal;
        uint64_t stack;
        uint64_t stack_size;
        uint64_t tls;
};

static pid_t clone_sandbox(void) {
        struct sandbox_clone_args args = {
                .flags = CLONE_NEWNS | CLONE_NEWPID,
                .exit_signal = SIGCHLD,
        };
        long r = -1;

#ifdef SYS_clone3
        r = syscall(SYS_clone3, &args, sizeof(args));
        if (r >= 0 || errno != ENOSYS)
                return (pid_t) r;
#endif
        /* Before 5.3. With no stack and no TLS every architecture's argument order gives fork(). */
        r = syscall(SYS_clone, (unsigned long) (CLONE_NEWNS | CLONE_NEWPID | SIGCHLD), NULL, NULL, NULL, NULL);
        return (pid_t) r;
}

/* ---- in the child ---- */

/* The child's own messages go where mkfs's would, so the parent quotes them. */
static _Noreturn void child_fail(int fd, const char *what) {
        int e = errno;

        dprintf(fd, "benchd-worker: cannot set up the sandbox for mkfs: %s: %s\n", what, strerror(e));
        _exit(SANDBOX_EXIT_SETUP);
}

/* A mount point of /proc/self/mountinfo, with the \NNN octal escapes undone, in place. */
static void unescape_octal(char *s) {
        char *w = s;

        for (char *r = s; *r; r++) {
                if (r[0] == '\\' && r[1] >= '0' && r[1] <= '3' && r[2] >= '0' && r[2] <= '7' && r[3] >= '0' &&
                    r[3] <= '7') {
                        *w++ = (char) (((r[1] - '0') << 6) | ((r[2] - '0') << 3) | (r[3] - '0'));
                        r += 3;
                } else
                        *w++ = *r;
        }
        *w = 0;
}

/* The per-mount flags of mountinfo's options field, which a bind remount must repeat. */
static unsigned long mount_flags_of(const char *opts) {
        static const struct {
                const char *name;
                unsigned long flag;
        } map[] = {
                { "nosuid", MS_NOSUID }, { "nodev", MS_NODEV }, { "noexec", MS_NOEXEC },
                { "noatime", MS_NOATIME }, { "nodiratime", MS_NODIRATIME }, { "relatime", MS_RELATIME },
        };
        unsigned long flags = 0;
        const char *p = opts;

        while (*p) {
                size_t n = strcspn(p, ",");

                for (size_t i = 0; i < ELEMENTSOF(map); i++)
                        if (strlen(map[i].name) == n && strncmp(p, map[i].name, n) == 0)
                                flags |= map[i].flag;
                p += n;
                if (*p == ',')
                        p++;
        }
        return flags;
}

/* Remounts (read-only, or writable again) the mounts of /proc/self/mountinfo: all of them, or
 * the one at only. Where mount_setattr() is missing (before Linux 5.12). */
static int remount_each(bool readonly, const char *only) {
        _cleanup_fclose_ FILE *f = fopen("/proc/self/mountinfo", "re");
        _cleanup_free_ char *line = NULL;
        size_t size = 0;

        if (!f)
                return -errno;
        while (getline(&line, &size, f) > 0) {
                char mnt[PATH_MAX], opts[1024];

                if (sscanf(line, "%*s %*s %*s %*s %4095s %1023s", mnt, opts) != 2)
                        continue;
                unescape_octal(mnt);
                if (only && !streq(mnt, only))
                        continue;
                if (mount(NULL, mnt, NULL, MS_REMOUNT | MS_BIND | mount_flags_of(opts) | (readonly ? MS_RDONLY : 0),
                          NULL) < 0)
                        return -errno;
        }
        return 0;
}

static int make_readonly(const char *writable) {
#if defined(SYS_mount_setattr) && defined(MOUNT_ATTR_RDONLY) && defined(AT_RECURSIVE)
        struct mount_attr ro = { .attr_set = MOUNT_ATTR_RDONLY }, rw = { .attr_clr = MOUNT_ATTR_RDONLY };

        if (syscall(SYS_mount_setattr, AT_FDCWD, "/", AT_RECURSIVE, &ro, sizeof(ro)) == 0) {
                if (writable && syscall(SYS_mount_setattr, AT_FDCWD, writable, 0, &rw, sizeof(rw)) < 0)
                        return -errno;
                return 0;
        }
        if (errno != ENOSYS)
                return -errno;
#endif
        int r = remount_each(true, NULL);
        if (r < 0 || !writable)
                return r;
        return remount_each(false, writable);
}

static _Noreturn void sandbox_child(const Sandbox *sb, int out) {
        static const struct {
                const char *name;
                unsigned major, minor;
        } chars[] = {
                { "null", 1, 3 }, { "zero", 1, 5 }, { "full", 1, 7 }, { "random", 1, 8 }, { "urandom", 1, 9 },
        };
        static char *const env[] = {
                (char *) "PATH=/usr/sbin:/usr/bin:/sbin:/bin",
                (char *) "LANG=C",
                NULL,
        };
        char path[PATH_MAX];
        int null_fd;

        /* Dies with the worker, whatever kills it. */
        (void) prctl(PR_SET_PDEATHSIG, SIGKILL);
        umask(0);

        if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
                child_fail(out, "making the mount tree private");
        if (mount("tmpfs", "/dev", "tmpfs", MS_NOSUID | MS_NOEXEC, "mode=0755,size=64k,nr_inodes=64") < 0)
                child_fail(out, "mounting a tmpfs on /dev");
        for (size_t i = 0; i < ELEMENTSOF(chars); i++) {
                snprintf(path, sizeof(path), "/dev/%s", chars[i].name);
                if (mknod(path, S_IFCHR | 0666, makedev(chars[i].major, chars[i].minor)) < 0)
                        child_fail(out, path);
        }
        for (size_t i = 0; i < sb->n_devices; i++) {
                if ((size_t) snprintf(path, sizeof(path), "/dev/%s", sb->devices[i].name) >= sizeof(path) ||
                    strchr(sb->devices[i].name, '/')) {
                        errno = EINVAL;
                        child_fail(out, sb->devices[i].name);
                }
                if (mknod(path, S_IFBLK | 0600, sb->devices[i].dev) < 0)
                        child_fail(out, path);
        }
        /* Our PID namespace's: no other process, so no /proc/PID/fd/N into another's files. */
        if (mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) < 0)
                child_fail(out, "mounting /proc");
        if (make_readonly(sb->writable) < 0)
                child_fail(out, "making the mount tree read-only");

        null_fd = open("/dev/null", O_RDWR | O_CLOEXEC);
        if (null_fd < 0 || dup2(null_fd, STDIN_FILENO) < 0)
                child_fail(out, "/dev/null as stdin");
        if (dup2(out, STDOUT_FILENO) < 0 || dup2(out, STDERR_FILENO) < 0)
                child_fail(out, "the output pipe as stdout and stderr");
        (void) close_range(3, ~0U, 0);
        if (chdir(sb->cwd) < 0) {
                dprintf(STDERR_FILENO, "benchd-worker: cannot enter %s: %s\n", sb->cwd, strerror(errno));
                _exit(SANDBOX_EXIT_SETUP);
        }

        execve(sb->path, sb->argv, env);
        dprintf(STDERR_FILENO, "benchd-worker: cannot execute %s: %s\n", sb->path, strerror(errno));
        _exit(127);
}

/* ---- in the worker ---- */

static void reap(pid_t pid, int *ret_status) {
        int status = 0;

        while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
                ;
        if (ret_status)
                *ret_status = status;
}

int sandbox_run(const Sandbox *sb, SandboxResult *ret, char **reterr) {
        _cleanup_free_ char *out = malloc(SANDBOX_OUTPUT_MAX + 1);
        _cleanup_close_ int rfd = -EBADF;
        size_t len = 0;
        bool stopped = false;
        uint64_t start;
        int pipefd[2], status;
        pid_t pid;

        if (!out)
                return -ENOMEM;
        if (pipe2(pipefd, O_CLOEXEC) < 0)
                return reterr_set(reterr, -errno, "cannot make a pipe for the output of %s: %m", sb->argv[0]);

        start = now_usec(CLOCK_MONOTONIC);
        pid = clone_sandbox();
        if (pid < 0) {
                int r = -errno;
                close(pipefd[0]);
                close(pipefd[1]);
                return reterr_set(reterr, r, "cannot start %s in a mount and PID namespace of its own: %s "
                                  "(benchd-worker needs CAP_SYS_ADMIN for this)", sb->argv[0], strerror(-r));
        }
        if (pid == 0) {
                close(pipefd[0]);
                sandbox_child(sb, pipefd[1]);
        }
        close(pipefd[1]);
        rfd = pipefd[0];

        /* Until EOF: the child and everything in its PID namespace have closed the pipe. */
        for (;;) {
                struct pollfd pfd = { .fd = rfd, .events = POLLIN };
                char chunk[4096];
                ssize_t n;
                int k;

                if (!stopped && sb->stop_requested && sb->stop_requested()) {
                        stopped = true;
                        (void) kill(pid, SIGKILL);
                }
                k = poll(&pfd, 1, POLL_MS);
                if (k < 0 && errno != EINTR) {
                        k = -errno;
                        (void) kill(pid, SIGKILL);
                        reap(pid, NULL);
                        return reterr_set(reterr, k, "cannot wait for the output of %s: %m", sb->argv[0]);
                }
                if (k <= 0)
                        continue;
                n = read(rfd, chunk, sizeof(chunk));
                if (n < 0) {
                        if (errno == EINTR || errno == EAGAIN)
                                continue;
                        break;
                }
                if (n == 0)
                        break;
                if (len < SANDBOX_OUTPUT_MAX) {
                        size_t keep = MIN((size_t) n, SANDBOX_OUTPUT_MAX - len);
                        memcpy(out + len, chunk, keep);
                        len += keep;
                }
        }
        reap(pid, &status);
        if (!stopped && sb->stop_requested && sb->stop_requested())
                stopped = true;
        if (stopped)
                return reterr_set(reterr, -ECANCELED, "stopped while %s ran", sb->argv[0]);

        out[len] = 0;
        *ret = (SandboxResult) {
                .status = status,
                .usec = now_usec(CLOCK_MONOTONIC) - start,
                .output = TAKE_PTR(out),
                .output_len = len,
        };
        return 0;
}

void sandbox_result_clear(SandboxResult *r) {
        free(r->output);
        *r = (SandboxResult) {};
}
