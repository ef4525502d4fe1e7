/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The sandbox of sandbox.h. The child is made with clone3(CLONE_NEWNS | CLONE_NEWPID) (fork-like:
 * no stack of its own), so it is PID 1 of a namespace that ends with it: nothing it starts
 * outlives it. The root was built by the worker; the child mounts its procfs in it, pivots into
 * it and makes every mount read-only (toolroot_enter()), so the device nodes keep working (device
 * nodes ignore the mount's read-only flag) and nothing else takes a write. The parent reads the
 * output while it waits, so a chatty mkfs never blocks on a full pipe, and polls the stop request
 * every 100 ms.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
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

static _Noreturn void sandbox_child(const Sandbox *sb, int out, int input_fd) {
        const char *what = NULL;
        int null_fd, r;

        /* Dies with the worker, whatever kills it. */
        (void) prctl(PR_SET_PDEATHSIG, SIGKILL);

        if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
                child_fail(out, "making the mount tree private");
        r = toolroot_enter(sb->root, &what);
        if (r < 0) {
                errno = -r;
                child_fail(out, what);
        }
        if (input_fd >= 0) {
                if (dup2(input_fd, STDIN_FILENO) < 0)
                        child_fail(out, "its input as stdin");
        } else {
                null_fd = open("/dev/null", O_RDWR | O_CLOEXEC);
                if (null_fd < 0 || dup2(null_fd, STDIN_FILENO) < 0)
                        child_fail(out, "/dev/null as stdin");
        }
        if (dup2(out, STDOUT_FILENO) < 0 || dup2(out, STDERR_FILENO) < 0)
                child_fail(out, "the output pipe as stdout and stderr");
        (void) close_range(3, ~0U, 0);

        execve(sb->path, sb->argv, toolroot_env(sb->root));
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
        _cleanup_close_ int rfd = -EBADF, input_fd = -EBADF;
        size_t len = 0;
        bool stopped = false;
        uint64_t start;
        int pipefd[2], status;
        pid_t pid;

        if (!out)
                return -ENOMEM;
        if (sb->input) {
                /* A file of its own in memory, read from its start: no pipe to keep filled. */
                size_t n = strlen(sb->input);

                input_fd = memfd_create("sandbox-input", MFD_CLOEXEC);
                if (input_fd < 0 || write(input_fd, sb->input, n) != (ssize_t) n || lseek(input_fd, 0, SEEK_SET) < 0)
                        return reterr_set(reterr, input_fd < 0 || errno ? -errno : -EIO, "cannot hold the input of %s: %m",
                                          sb->argv[0]);
        }
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
                sandbox_child(sb, pipefd[1], input_fd);
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
