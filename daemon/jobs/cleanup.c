/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Removing a job's own files, off the event loop, in a helper process (helper.h): the child
 * removes the files by the rules of cleanup_job_files() and writes its counts to the pipe before
 * it exits; the parent only waits, and is called back once the child is gone (the report complete,
 * or absent when the child was killed, after the timeout or by cleanup_kill()). fork without exec
 * is enough: the child calls nothing but libc, and _exit()s, so nothing of the parent's (sd-bus,
 * SQLite, stdio buffers) runs twice.
 *
 * The removal trusts nothing it finds: every entry is lstat()ed, must carry our prefix (at the
 * top), be owned by our euid and sit on the target's filesystem; directories are opened beneath
 * the directory holding them (fd-beneath.h: no symlink, no other mount) and checked to be the
 * inode that was lstat()ed, so a rename or a symlink swapped in meanwhile makes us stop rather
 * than follow it.
 *
 * The child runs as the uid the job's steps ran as (run-as.h): for a caller other than root, the
 * caller, whose files they are. "Owned by our euid" is then "owned by the caller", and whatever the
 * caller could not remove itself, the child cannot either.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "jobs/cleanup.h"
#include "jobs/helper.h"
#include "shared/fd-beneath.h"
#include "shared/log.h"
#include "shared/run-as.h"

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
        fd = openat_beneath(parent, name, O_RDONLY | O_DIRECTORY | O_NOCTTY, 0);
        if (fd < 0)
                return walk_fail(w, name, fd);
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

/* ---- in a helper process ---- */

/* What the child writes to the pipe, once, at its end: a struct, as both ends are one binary. */
typedef struct CleanupReport {
        uint64_t removed;
        uint64_t skipped;
        uint64_t failed;
        int32_t error;
        int32_t r;              /* of cleanup_job_files(), or of run_as_user() */
        uint32_t not_as_user;   /* 1: it could not become the uid it was to run as (logged there) */
        uint32_t reserved;
} CleanupReport;

struct Cleanup {
        Helper *helper;
        uint64_t job_id;
        int step;
        uid_t uid;
        char *target;
        uint64_t timeout_usec;
        CleanupDone cb;
        void *userdata;
};

#define cleanup_log(c, level, fmt, ...) \
        log_full((level), "job %" PRIu64 ": " fmt, (c)->job_id, ##__VA_ARGS__)

/* In the child, on its copy of c. */
static int cleanup_child(int fd, void *userdata) {
        const Cleanup *c = userdata;
        CleanupStats st = {};
        _cleanup_free_ char *err = NULL;
        CleanupReport rep;
        bool became;
        int r;

        r = run_as_user(c->uid, &err);
        became = r >= 0;
        if (r < 0)
                log_warning("job %" PRIu64 ": cannot remove its files in %s as uid %u, whose files they are: %s; "
                            "remove .benchd-%" PRIu64 "-* there by hand", c->job_id, CALLER_TEXT(c->target),
                            (unsigned) c->uid, strna(err), c->job_id);
        else
                r = cleanup_job_files(c->target, c->job_id, c->step, &st);
        rep = (CleanupReport) {
                .removed = st.removed,
                .skipped = st.skipped,
                .failed = st.failed,
                .error = st.error,
                .r = r,
                .not_as_user = !became,
        };
        if (helper_report(fd, &rep, sizeof(rep)) < 0)
                return EXIT_FAILURE;
        return r < 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}

pid_t cleanup_pid(Cleanup *c) {
        return c ? helper_pid(c->helper) : 0;
}

uint64_t cleanup_job_id(Cleanup *c) {
        return c ? c->job_id : 0;
}

const char *cleanup_target(Cleanup *c) {
        return c ? c->target : NULL;
}

int cleanup_step(Cleanup *c) {
        return c ? c->step : -1;
}

void cleanup_kill(Cleanup *c) {
        if (c)
                helper_kill(c->helper);
}

static void cleanup_log_result(Cleanup *c, const CleanupResult *res, const HelperResult *hr) {
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
                if (hr->code == CLD_EXITED)
                        cleanup_log(c, LOG_INFO, "removing its files (%s) in %s: the cleanup process exited with status %d "
                             "without a report; remove what is left by hand", files, CALLER_TEXT(c->target),
                             hr->status);
                else
                        cleanup_log(c, LOG_WARNING, "removing its files (%s) in %s: the cleanup process was killed by signal %d "
                             "(SIG%s); remove what is left by hand", files, CALLER_TEXT(c->target), hr->status,
                             strna(sigabbrev_np(hr->status)));
                return;
        }
        if (res->not_as_user)
                return; /* the child said why */
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

static void on_helper_done(Helper *h, const HelperResult *hr, void *userdata) {
        Cleanup *c = userdata;
        CleanupResult res = { .timed_out = hr->timed_out };
        CleanupReport rep;

        /* The child wrote its report before it exited: all of it, or nothing. */
        if (hr->report_size == sizeof(rep) && !hr->overflow) {
                memcpy(&rep, hr->report, sizeof(rep));
                res.finished = true;
                res.stats = (CleanupStats) {
                        .removed = rep.removed,
                        .skipped = rep.skipped,
                        .failed = rep.failed,
                        .error = rep.r < 0 ? rep.r : MIN(rep.error, 0),
                };
                res.not_as_user = rep.not_as_user != 0;
        }
        cleanup_log_result(c, &res, hr);

        /* May free c. */
        c->cb(c, &res, c->userdata);
}

int cleanup_spawn(sd_event *e, const char *target, uint64_t job_id, int step, uid_t uid, uint64_t timeout_usec,
                  CleanupDone cb, void *userdata, Cleanup **ret) {
        Cleanup *c;
        int r;

        if (!e || !target || !cb || !ret)
                return -EINVAL;
        c = calloc(1, sizeof(*c));
        if (!c)
                return -ENOMEM;
        c->job_id = job_id;
        c->step = step;
        c->uid = uid;
        c->timeout_usec = timeout_usec;
        c->cb = cb;
        c->userdata = userdata;
        c->target = strdup(target);
        if (!c->target) {
                cleanup_free(c);
                return -ENOMEM;
        }

        r = helper_spawn(e, &(HelperOptions) {
                                 .name = "benchd-cleanup",
                                 .report_max = sizeof(CleanupReport),
                                 .timeout_usec = timeout_usec,
                         },
                         cleanup_child, c, on_helper_done, c, &c->helper);
        if (r < 0) {
                cleanup_free(c);
                return r;
        }
        *ret = c;
        return 0;
}

Cleanup *cleanup_free(Cleanup *c) {
        if (!c)
                return NULL;
        helper_free(c->helper);
        free(c->target);
        free(c);
        return NULL;
}
