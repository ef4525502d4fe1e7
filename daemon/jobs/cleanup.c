/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Removing a job's own files, off the event loop. The parent forks; the child resets its signals,
 * dies with the parent (PR_SET_PDEATHSIG), closes every descriptor but a pipe, removes the files by
 * the rules of cleanup_job_files() and writes its counts to the pipe before it exits. The parent
 * only waits: a pidfd child source says when the child is gone, the report is then complete in
 * the pipe (or absent, when the child was killed), and a timer kills a child that takes too long.
 * fork without exec is enough: the child calls nothing but libc, and _exit()s, so nothing of the
 * parent's (sd-bus, SQLite, stdio buffers) runs twice.
 *
 * The removal trusts nothing it finds: every entry is lstat()ed, must carry our prefix (at the
 * top), be owned by our euid and sit on the target's filesystem; directories are opened with
 * O_NOFOLLOW and checked to be the inode that was lstat()ed, so a rename or a symlink swapped in
 * meanwhile makes us stop rather than follow it.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "jobs/cleanup.h"
#include "shared/log.h"

/* Per-entry messages from one removal; the totals are logged by the parent. */
#define CLEANUP_LOG_MAX 8u

typedef struct Walk {
        CleanupStats stats;
        uid_t uid;
        uint64_t job_id;
        const char *target;
        const char *top;        /* the top-level entry being removed, for messages */
        unsigned n_logged;
} Walk;

_printf_(2, 3)
static void walk_log(Walk *w, const char *fmt, ...) {
        _cleanup_free_ char *line = NULL;
        va_list ap;

        if (w->n_logged >= CLEANUP_LOG_MAX)
                return;
        if (++w->n_logged == CLEANUP_LOG_MAX) {
                log_warning("job %" PRIu64 ": more problems removing files in %s; not listing them",
                            w->job_id, CALLER_TEXT(w->target));
                return;
        }
        va_start(ap, fmt);
        if (vasprintf(&line, fmt, ap) < 0)
                line = NULL;
        va_end(ap);
        log_warning("job %" PRIu64 ": %s", w->job_id, strna(line));
}

static int walk_fail(Walk *w, const char *name, int r) {
        w->stats.failed++;
        if (w->stats.error == 0)
                w->stats.error = r;
        if (r == -ELOOP)
                walk_log(w, "not removing %s in %s/%s: more than %u directories deep", name,
                         CALLER_TEXT(w->target), w->top, CLEANUP_DEPTH_MAX);
        else if (streq(name, w->top))
                walk_log(w, "cannot remove %s/%s: %s", CALLER_TEXT(w->target), name, strerror(-r));
        else
                walk_log(w, "cannot remove %s in %s/%s: %s", name, CALLER_TEXT(w->target), w->top, strerror(-r));
        return r;
}

static int walk_skip(Walk *w, const char *name, const struct stat *st, const char *why) {
        w->stats.skipped++;
        walk_log(w, "leaving %s%s%s in %s alone: %s (uid %u)", streq(name, w->top) ? "" : w->top,
                 streq(name, w->top) ? "" : "/", name, CALLER_TEXT(w->target), why, (unsigned) st->st_uid);
        return -EPERM;
}

/* Whether the entry st, found in a directory on device dev, is ours to remove. */
static const char *not_ours(const Walk *w, const struct stat *st, dev_t dev) {
        if (st->st_uid != w->uid)
                return "owned by another user";
        if (st->st_dev != dev)
                return "on another filesystem (a mount point)";
        return NULL;
}

/* Removes the directory name in parent (lstat()ed as st, ours) with everything in it. 0 when it
 * is gone; else a negative errno, and whatever could not go stays, with the directories above it. */
static int remove_tree(Walk *w, int parent, const char *name, const struct stat *st, unsigned depth) {
        _cleanup_close_ int fd = -EBADF;
        struct stat fst;
        struct dirent *de;
        DIR *d;
        int r = 0;

        if (depth >= CLEANUP_DEPTH_MAX)
                return walk_fail(w, name, -ELOOP);
        fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY);
        if (fd < 0)
                return walk_fail(w, name, negative_errno());
        if (fstat(fd, &fst) < 0)
                return walk_fail(w, name, negative_errno());
        if (fst.st_dev != st->st_dev || fst.st_ino != st->st_ino)
                return walk_fail(w, name, -ESTALE); /* replaced since we looked at it */
        d = fdopendir(fd);
        if (!d)
                return walk_fail(w, name, negative_errno());
        TAKE_FD(fd);

        for (;;) {
                struct stat cst;
                const char *why;
                int k;

                errno = 0;
                de = readdir(d);
                if (!de) {
                        if (errno != 0 && r == 0)
                                r = walk_fail(w, name, negative_errno());
                        break;
                }
                if (streq(de->d_name, ".") || streq(de->d_name, ".."))
                        continue;
                if (fstatat(dirfd(d), de->d_name, &cst, AT_SYMLINK_NOFOLLOW) < 0) {
                        if (errno == ENOENT)
                                continue;
                        k = walk_fail(w, de->d_name, negative_errno());
                } else if ((why = not_ours(w, &cst, st->st_dev)))
                        k = walk_skip(w, de->d_name, &cst, why);
                else if (S_ISDIR(cst.st_mode))
                        k = remove_tree(w, dirfd(d), de->d_name, &cst, depth + 1);
                else if (unlinkat(dirfd(d), de->d_name, 0) < 0)
                        /* Files, and symlinks, fifos, sockets: the link itself goes, never its target. */
                        k = walk_fail(w, de->d_name, negative_errno());
                else {
                        w->stats.removed++;
                        k = 0;
                }
                if (k < 0 && r == 0)
                        r = k;
        }
        closedir(d);
        if (r < 0)
                return r; /* not empty: rmdir would only fail again */
        if (unlinkat(parent, name, AT_REMOVEDIR) < 0)
                return walk_fail(w, name, negative_errno());
        w->stats.removed++;
        return 0;
}

int cleanup_job_files(const char *target, uint64_t job_id, int step, CleanupStats *ret) {
        _cleanup_close_ int fd = -EBADF;
        Walk w = { .uid = geteuid(), .job_id = job_id, .target = target };
        struct dirent *de;
        struct stat tst;
        char prefix[64];
        size_t len;
        DIR *d;
        int r = 0;

        if (!target)
                return -EINVAL;
        if (step < 0)
                snprintf(prefix, sizeof(prefix), ".benchd-%" PRIu64 "-", job_id);
        else
                snprintf(prefix, sizeof(prefix), ".benchd-%" PRIu64 "-%d-", job_id, step);
        len = strlen(prefix);

        fd = open(target, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOCTTY);
        if (fd < 0) {
                if (errno != ENOTDIR)
                        return negative_errno();
                /* A block device or a file: benchd created nothing there. */
                if (ret)
                        *ret = w.stats;
                return 0;
        }
        if (fstat(fd, &tst) < 0)
                return negative_errno();
        d = fdopendir(fd);
        if (!d)
                return negative_errno();
        TAKE_FD(fd);

        for (;;) {
                struct stat st;
                const char *why;

                errno = 0;
                de = readdir(d);
                if (!de) {
                        if (errno != 0)
                                r = negative_errno();
                        break;
                }
                if (strncmp(de->d_name, prefix, len) != 0)
                        continue;
                w.top = de->d_name;
                if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
                        if (errno != ENOENT)
                                (void) walk_fail(&w, de->d_name, negative_errno());
                        continue;
                }
                if ((why = not_ours(&w, &st, tst.st_dev)))
                        (void) walk_skip(&w, de->d_name, &st, why);
                else if (S_ISDIR(st.st_mode))
                        (void) remove_tree(&w, dirfd(d), de->d_name, &st, 0);
                else if (!S_ISREG(st.st_mode))
                        /* benchd creates files and directories only: a link or fifo is someone else's. */
                        (void) walk_skip(&w, de->d_name, &st, "not a regular file or directory");
                else if (unlinkat(dirfd(d), de->d_name, 0) < 0)
                        (void) walk_fail(&w, de->d_name, negative_errno());
                else
                        w.stats.removed++;
        }
        closedir(d);
        if (r < 0 && w.stats.removed == 0)
                return r;
        if (r < 0 && w.stats.error == 0)
                w.stats.error = r;
        if (ret)
                *ret = w.stats;
        return 0;
}

/* ---- the child process ---- */

/* What the child writes to the pipe, once, at its end. */
typedef struct CleanupReport {
        uint64_t removed;
        uint64_t skipped;
        uint64_t failed;
        int32_t error;
        int32_t r;              /* of cleanup_job_files() */
} CleanupReport;

struct Cleanup {
        sd_event *event;
        sd_event_source *child_source;
        sd_event_source *timeout_source;
        int fd;                 /* the read end of the report pipe */
        pid_t pid;
        uint64_t job_id;
        int step;
        char *target;
        uint64_t timeout_usec;
        bool timed_out;
        CleanupDone cb;
        void *userdata;
};

#define cleanup_log(c, level, fmt, ...) \
        log_full((level), "job %" PRIu64 ": " fmt, (c)->job_id, ##__VA_ARGS__)

static _Noreturn void cleanup_child(int fd, const char *target, uint64_t job_id, int step, pid_t parent) {
        CleanupReport rep = {};
        CleanupStats st = {};
        sigset_t ss;
        int r;

        /* sd-event blocked the signals it handles; a SIGTERM from anyone should end us. */
        sigemptyset(&ss);
        (void) sigprocmask(SIG_SETMASK, &ss, NULL);
        for (int sig = 1; sig < NSIG; sig++)
                if (sig != SIGKILL && sig != SIGSTOP)
                        (void) signal(sig, SIG_DFL);
        if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != parent)
                _exit(EXIT_FAILURE);
        (void) prctl(PR_SET_NAME, "benchd-cleanup");

        /* Nothing of the parent's but stdio and the report pipe. */
        if (fd != 3) {
                if (dup2(fd, 3) < 0)
                        _exit(EXIT_FAILURE);
                fd = 3;
        }
        (void) close_range(4, ~0U, 0);

        r = cleanup_job_files(target, job_id, step, &st);
        rep = (CleanupReport) {
                .removed = st.removed,
                .skipped = st.skipped,
                .failed = st.failed,
                .error = st.error,
                .r = r,
        };
        /* A pipe write of this size is atomic and fits the pipe's buffer: it never blocks. */
        if (write(fd, &rep, sizeof(rep)) != (ssize_t) sizeof(rep))
                _exit(EXIT_FAILURE);
        _exit(r < 0 ? EXIT_FAILURE : EXIT_SUCCESS);
}

pid_t cleanup_pid(Cleanup *c) {
        return c ? c->pid : 0;
}

uint64_t cleanup_job_id(Cleanup *c) {
        return c ? c->job_id : 0;
}

const char *cleanup_target(Cleanup *c) {
        return c ? c->target : NULL;
}

static void cleanup_signal(Cleanup *c, int sig) {
        if (!c->child_source)
                return;
        if (sd_event_source_send_child_signal(c->child_source, sig, NULL, 0) < 0 && c->pid > 0)
                (void) kill(c->pid, sig);
}

void cleanup_kill(Cleanup *c) {
        if (c)
                cleanup_signal(c, SIGKILL);
}

static void cleanup_log_result(Cleanup *c, const CleanupResult *res, const siginfo_t *si) {
        const CleanupStats *s = &res->stats;
        char files[96], after[32];

        if (c->step < 0)
                snprintf(files, sizeof(files), ".benchd-%" PRIu64 "-*", c->job_id);
        else
                snprintf(files, sizeof(files), ".benchd-%" PRIu64 "-%d-*", c->job_id, c->step);

        if (res->timed_out && !res->finished) {
                if (c->timeout_usec >= USEC_PER_SEC)
                        snprintf(after, sizeof(after), "%" PRIu64 " s", c->timeout_usec / USEC_PER_SEC);
                else
                        snprintf(after, sizeof(after), "%" PRIu64 " ms", c->timeout_usec / USEC_PER_MSEC);
                cleanup_log(c, LOG_WARNING, "removing its files (%s) in %s took longer than %s; the cleanup process was killed, "
                     "remove what is left by hand", files, CALLER_TEXT(c->target), after);
                return;
        }
        if (!res->finished) {
                if (si->si_code == CLD_EXITED)
                        cleanup_log(c, LOG_INFO, "removing its files (%s) in %s: the cleanup process exited with status %d "
                             "without a report; remove what is left by hand", files, CALLER_TEXT(c->target),
                             si->si_status);
                else
                        cleanup_log(c, LOG_WARNING, "removing its files (%s) in %s: the cleanup process was killed by signal %d "
                             "(SIG%s); remove what is left by hand", files, CALLER_TEXT(c->target), si->si_status,
                             strna(sigabbrev_np(si->si_status)));
                return;
        }
        if (s->removed == 0 && s->failed == 0 && s->skipped == 0) {
                if (s->error < 0)
                        cleanup_log(c, LOG_WARNING, "cannot read %s to remove its files (%s): %s", CALLER_TEXT(c->target), files,
                             strerror(-s->error));
                return;
        }
        if (s->failed > 0 || s->skipped > 0 || s->error < 0)
                cleanup_log(c, LOG_INFO, "removed %" PRIu64 " of its leftover files and directories (%s) in %s; %" PRIu64
                     " could not be removed and %" PRIu64 " are not benchd's%s%s", s->removed, files,
                     CALLER_TEXT(c->target), s->failed, s->skipped, s->error < 0 ? "; first error: " : "",
                     s->error < 0 ? strerror(-s->error) : "");
        else
                cleanup_log(c, LOG_INFO, "removed %" PRIu64 " leftover files and directories (%s) in %s", s->removed, files,
                     CALLER_TEXT(c->target));
}

static int on_cleanup_exit(sd_event_source *s, const siginfo_t *si, void *userdata) {
        Cleanup *c = userdata;
        CleanupResult res = { .timed_out = c->timed_out };
        CleanupReport rep;
        ssize_t n;

        c->child_source = sd_event_source_disable_unref(c->child_source);
        c->timeout_source = sd_event_source_disable_unref(c->timeout_source);

        /* The child wrote its report before it exited: it is in the pipe now, or never will be. */
        n = read(c->fd, &rep, sizeof(rep));
        if (n == (ssize_t) sizeof(rep)) {
                res.finished = true;
                res.stats = (CleanupStats) {
                        .removed = rep.removed,
                        .skipped = rep.skipped,
                        .failed = rep.failed,
                        .error = rep.r < 0 ? rep.r : MIN(rep.error, 0),
                };
        }
        cleanup_log_result(c, &res, si);

        /* May free c. */
        c->cb(c, &res, c->userdata);
        return 0;
}

static int on_cleanup_timeout(sd_event_source *s, uint64_t usec, void *userdata) {
        Cleanup *c = userdata;

        c->timed_out = true;
        cleanup_signal(c, SIGKILL);
        return 0;
}

static int pidfd_open_sys(pid_t pid) {
        int fd = (int) syscall(SYS_pidfd_open, pid, 0);
        return fd < 0 ? negative_errno() : fd;
}

int cleanup_spawn(sd_event *e, const char *target, uint64_t job_id, int step, uint64_t timeout_usec,
                  CleanupDone cb, void *userdata, Cleanup **ret) {
        _cleanup_close_ int pidfd = -EBADF;
        pid_t parent = getpid(), pid;
        int pipefd[2], r;
        Cleanup *c;

        if (!e || !target || !cb || !ret)
                return -EINVAL;
        c = calloc(1, sizeof(*c));
        if (!c)
                return -ENOMEM;
        c->fd = -EBADF;
        c->event = sd_event_ref(e);
        c->job_id = job_id;
        c->step = step;
        c->timeout_usec = timeout_usec;
        c->cb = cb;
        c->userdata = userdata;
        c->target = strdup(target);
        if (!c->target) {
                cleanup_free(c);
                return -ENOMEM;
        }
        if (pipe2(pipefd, O_CLOEXEC) < 0) {
                r = negative_errno();
                cleanup_free(c);
                return r;
        }

        pid = fork();
        if (pid < 0) {
                r = negative_errno();
                close(pipefd[0]);
                close(pipefd[1]);
                cleanup_free(c);
                return r;
        }
        if (pid == 0) {
                close(pipefd[0]);
                cleanup_child(pipefd[1], target, job_id, step, parent);
        }

        close(pipefd[1]);
        c->fd = pipefd[0];
        c->pid = pid;
        if (fcntl(c->fd, F_SETFL, O_NONBLOCK) < 0) {
                r = negative_errno();
                goto fail;
        }

        pidfd = pidfd_open_sys(pid);
        if (pidfd >= 0) {
                r = sd_event_add_child_pidfd(e, &c->child_source, pidfd, WEXITED, on_cleanup_exit, c);
                if (r >= 0) {
                        (void) sd_event_source_set_child_pidfd_own(c->child_source, true);
                        TAKE_FD(pidfd);
                }
        } else
                r = sd_event_add_child(e, &c->child_source, pid, WEXITED, on_cleanup_exit, c);
        if (r < 0) {
                (void) kill(pid, SIGKILL);
                (void) waitpid(pid, NULL, 0);
                goto fail;
        }
        /* Freeing the source kills and reaps a child still running. */
        (void) sd_event_source_set_child_process_own(c->child_source, true);

        r = sd_event_add_time_relative(e, &c->timeout_source, CLOCK_MONOTONIC, timeout_usec, USEC_PER_SEC,
                                       on_cleanup_timeout, c);
        if (r < 0)
                goto fail;

        *ret = c;
        return 0;

fail:
        cleanup_free(c);
        return r;
}

Cleanup *cleanup_free(Cleanup *c) {
        if (!c)
                return NULL;
        sd_event_source_disable_unref(c->timeout_source);
        sd_event_source_disable_unref(c->child_source);
        if (c->fd >= 0)
                close(c->fd);
        free(c->target);
        sd_event_unref(c->event);
        free(c);
        return NULL;
}
