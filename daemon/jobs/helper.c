/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A helper child (helper.h). The parent forks; the child resets its signals, dies with the parent
 * (PR_SET_PDEATHSIG), keeps nothing of the parent's descriptors but stdio and the report pipe,
 * runs its function and _exit()s. The parent reads the pipe from an io source as the child writes
 * (a report may be longer than the pipe's buffer), up to report_max bytes; when the pidfd child
 * source says the child is gone, what is still in the pipe is drained and the caller is called
 * back. A timer kills a child that takes too long.
 *
 * Freeing a Helper never waits: a child still running is sent SIGKILL and its child source is
 * handed to the event loop (floating, with no userdata), which reaps the child whenever it goes.
 * Until then its pid stays in live_pids, so that the stray sweep does not take it.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "jobs/helper.h"
#include "shared/util.h"
#include "shared/children.h"

#define HELPER_READ_CHUNK 4096u

struct Helper {
        sd_event *event;
        sd_event_source *child_source;
        sd_event_source *io_source;
        sd_event_source *timeout_source;
        int fd;                 /* the read end of the report pipe */
        pid_t pid;
        uint8_t *buf;
        size_t size;            /* bytes read */
        size_t allocated;
        size_t report_max;
        bool overflow;
        bool timed_out;
        bool done;              /* called back */
        bool done_at_timeout;
        HelperDone cb;
        void *userdata;
};

/* ---- the pids of live helpers (forked and not yet reaped), per process ---- */

static pid_t *live_pids;
static size_t n_live, n_live_allocated;

/* Room for one more, made before the fork so that recording the child cannot fail after it. */
static int live_reserve(void) {
        pid_t *p;
        size_t n;

        if (n_live < n_live_allocated)
                return 0;
        n = MAX(n_live_allocated * 2, (size_t) 8);
        p = realloc(live_pids, n * sizeof(pid_t));
        if (!p)
                return -ENOMEM;
        live_pids = p;
        n_live_allocated = n;
        return 0;
}

static void live_remove(pid_t pid) {
        for (size_t i = 0; i < n_live; i++)
                if (live_pids[i] == pid) {
                        live_pids[i] = live_pids[--n_live];
                        return;
                }
}

size_t helper_live_pids(pid_t *pids, size_t size) {
        for (size_t i = 0; i < MIN(size, n_live); i++)
                pids[i] = live_pids[i];
        return n_live;
}

/* ---- the child ---- */

int helper_report(int fd, const void *data, size_t size) {
        const uint8_t *p = data;

        while (size > 0) {
                ssize_t n = write(fd, p, size);

                if (n < 0) {
                        if (errno == EINTR)
                                continue;
                        return negative_errno();
                }
                p += n;
                size -= (size_t) n;
        }
        return 0;
}

/* In the child: its copy of the Helper it was forked for, never used, only kept reachable, so
 * that a leak checker (valgrind follows forks) does not report it lost at _exit(). */
static Helper *volatile child_of;

static _Noreturn void helper_child(Helper *h, int fd, const char *name, pid_t parent, HelperRun run,
                                   void *userdata) {
        sigset_t ss;

        child_of = h;

        /* sd-event blocked the signals it handles; a SIGTERM from anyone should end us. */
        sigemptyset(&ss);
        (void) sigprocmask(SIG_SETMASK, &ss, NULL);
        for (int sig = 1; sig < NSIG; sig++)
                if (sig != SIGKILL && sig != SIGSTOP)
                        (void) signal(sig, SIG_DFL);
        if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != parent)
                _exit(EXIT_FAILURE);
        if (name)
                (void) prctl(PR_SET_NAME, name);

        /* Nothing of the parent's but stdio and the report pipe: not the bus, not the database. */
        if (fd != 3) {
                if (dup2(fd, 3) < 0)
                        _exit(EXIT_FAILURE);
                fd = 3;
        }
        (void) close_range(4, ~0U, 0);

        _exit(run(fd, userdata));
}

/* ---- the parent ---- */

pid_t helper_pid(Helper *h) {
        return h ? h->pid : 0;
}

/* Our child until it is reaped (we reap it, and the stray sweep leaves it alone), so its pid
 * names no one else while s exists. */
static void child_signal(sd_event_source *s, pid_t pid, int sig) {
        if (s && sd_event_source_send_child_signal(s, sig, NULL, 0) < 0 && pid > 0)
                (void) kill(pid, sig);
}

static void helper_signal(Helper *h, int sig) {
        child_signal(h->child_source, h->pid, sig);
}

void helper_kill(Helper *h) {
        if (h)
                helper_signal(h, SIGKILL);
}

/* Reads what the pipe holds. 0 when it is empty for now, 1 at its end, -EMSGSIZE past
 * report_max, another negative errno when it cannot be read. */
static int helper_read(Helper *h) {
        for (;;) {
                ssize_t n;

                if (h->size == h->allocated) {
                        /* One byte beyond report_max, to tell a report of exactly that size from more. */
                        size_t want = MIN(MAX(h->allocated * 2, (size_t) HELPER_READ_CHUNK), h->report_max + 1);
                        uint8_t *b;

                        if (want <= h->allocated)
                                return -EMSGSIZE;
                        b = realloc(h->buf, want);
                        if (!b)
                                return -ENOMEM;
                        h->buf = b;
                        h->allocated = want;
                }
                n = read(h->fd, h->buf + h->size, h->allocated - h->size);
                if (n < 0) {
                        if (errno == EINTR)
                                continue;
                        return errno == EAGAIN ? 0 : negative_errno();
                }
                if (n == 0)
                        return 1;
                h->size += (size_t) n;
                if (h->size > h->report_max) {
                        h->size = h->report_max;
                        h->overflow = true;
                        return -EMSGSIZE;
                }
        }
}

/* Reads; at the end of the pipe, or when it will not be read any further, stops watching it. */
static void helper_read_some(Helper *h) {
        int r;

        if (!h->io_source)
                return;
        r = helper_read(h);
        if (r == 0)
                return;
        h->io_source = sd_event_source_disable_unref(h->io_source);
        if (r < 0)
                /* Too much, or unreadable: what it says cannot be trusted to be complete. */
                helper_signal(h, SIGKILL);
}

static int on_helper_io(sd_event_source *s, int fd, uint32_t revents, void *userdata) {
        helper_read_some(userdata);
        return 0;
}

/* The exit of a child whose Helper was freed: only its pid to forget. The event loop reaps it. */
static int on_orphan_exit(const siginfo_t *si, sd_event_source *s) {
        live_remove(si->si_pid);
        sd_event_source_disable_unref(s);
        return 0;
}

static int on_helper_exit(sd_event_source *s, const siginfo_t *si, void *userdata) {
        Helper *h = userdata;
        HelperResult res;

        if (!h)
                return on_orphan_exit(si, s);

        live_remove(h->pid);
        h->timeout_source = sd_event_source_disable_unref(h->timeout_source);
        /* Everything it wrote is in the pipe now. */
        helper_read_some(h);
        h->io_source = sd_event_source_disable_unref(h->io_source);
        h->child_source = sd_event_source_disable_unref(h->child_source);
        if (h->done)
                return 0;
        h->done = true;
        res = (HelperResult) {
                .report = h->buf,
                .report_size = h->size,
                .overflow = h->overflow,
                .timed_out = h->timed_out,
                .reaped = true,
                .code = si->si_code,
                .status = si->si_status,
        };
        /* May free h. */
        h->cb(h, &res, h->userdata);
        return 0;
}

static int on_helper_timeout(sd_event_source *s, uint64_t usec, void *userdata) {
        Helper *h = userdata;
        HelperResult res;

        h->timed_out = true;
        helper_signal(h, SIGKILL);
        if (!h->done_at_timeout || h->done)
                return 0;
        helper_read_some(h);
        h->done = true;
        res = (HelperResult) {
                .report = h->buf,
                .report_size = h->size,
                .overflow = h->overflow,
                .timed_out = true,
        };
        /* May free h. */
        h->cb(h, &res, h->userdata);
        return 0;
}

/* Watches pid: by pidfd where the kernel has them, else by pid (SIGCHLD blocked, as sd-event
 * needs). Freeing the source (on error paths) kills and reaps a child still running. */
static int helper_watch(Helper *h) {
        _cleanup_close_ int pidfd = -EBADF;
        int r;

        pidfd = pidfd_open_sys(h->pid);
        if (pidfd >= 0) {
                r = sd_event_add_child_pidfd(h->event, &h->child_source, pidfd, WEXITED, on_helper_exit, h);
                if (r >= 0) {
                        (void) sd_event_source_set_child_pidfd_own(h->child_source, true);
                        TAKE_FD(pidfd);
                }
        } else
                r = sd_event_add_child(h->event, &h->child_source, h->pid, WEXITED, on_helper_exit, h);
        if (r < 0)
                return r;
        (void) sd_event_source_set_child_process_own(h->child_source, true);
        return 0;
}

int helper_spawn(sd_event *e, const HelperOptions *o, HelperRun run, void *run_userdata, HelperDone cb,
                 void *userdata, Helper **ret) {
        pid_t parent = getpid(), pid;
        int pipefd[2], r;
        Helper *h;

        if (!e || !o || !run || !cb || !ret || o->report_max == 0 || o->report_max >= SIZE_MAX)
                return -EINVAL;
        r = live_reserve();
        if (r < 0)
                return r;
        h = calloc(1, sizeof(*h));
        if (!h)
                return -ENOMEM;
        h->fd = -EBADF;
        h->event = sd_event_ref(e);
        h->report_max = o->report_max;
        h->done_at_timeout = o->done_at_timeout;
        h->cb = cb;
        h->userdata = userdata;
        if (pipe2(pipefd, O_CLOEXEC) < 0) {
                r = negative_errno();
                helper_free(h);
                return r;
        }

        pid = fork();
        if (pid < 0) {
                r = negative_errno();
                close(pipefd[0]);
                close(pipefd[1]);
                helper_free(h);
                return r;
        }
        if (pid == 0) {
                close(pipefd[0]);
                helper_child(h, pipefd[1], o->name, parent, run, run_userdata);
        }

        live_pids[n_live++] = pid;
        close(pipefd[1]);
        h->fd = pipefd[0];
        h->pid = pid;

        r = helper_watch(h);
        if (r < 0) {
                (void) kill(pid, SIGKILL);
                (void) waitpid(pid, NULL, 0);
                live_remove(pid);
                helper_free(h);
                return r;
        }
        if (fcntl(h->fd, F_SETFL, O_NONBLOCK) < 0)
                r = negative_errno();
        if (r >= 0)
                r = sd_event_add_io(e, &h->io_source, h->fd, EPOLLIN, on_helper_io, h);
        if (r >= 0)
                r = sd_event_add_time_relative(e, &h->timeout_source, CLOCK_MONOTONIC, o->timeout_usec,
                                               MIN(MAX(o->timeout_usec / 10, (uint64_t) 1), USEC_PER_SEC),
                                               on_helper_timeout, h);
        if (r < 0) {
                helper_free(h);
                return r;
        }
        *ret = h;
        return 0;
}

Helper *helper_free(Helper *h) {
        if (!h)
                return NULL;
        sd_event_source_disable_unref(h->timeout_source);
        sd_event_source_disable_unref(h->io_source);
        if (h->child_source) {
                sd_event_source *s = TAKE_PTR(h->child_source);

                /* Not waited for: the event loop reaps it (on_orphan_exit()), or nobody does when
                 * the loop is freed first (we are exiting then, and init takes it). */
                child_signal(s, h->pid, SIGKILL);
                (void) sd_event_source_set_userdata(s, NULL);
                if (sd_event_source_set_floating(s, true) >= 0)
                        (void) sd_event_source_set_child_process_own(s, false);
                else
                        /* The loop is going away: freeing the source reaps the child
                         * (process_own), which has been sent SIGKILL. */
                        live_remove(h->pid);
                sd_event_source_unref(s);
        }
        if (h->fd >= 0)
                close(h->fd);
        free(h->buf);
        sd_event_unref(h->event);
        free(h);
        return NULL;
}
