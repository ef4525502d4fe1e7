/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The worker supervisor: fork+exec of benchd-worker with a clean environment, its socket read frame
 * by frame on the event loop, its timeout, its stop, and its reaping by pidfd. What the frames and
 * the exit mean is not decided here but by the pure judge (worker-judge.h): which frame may come
 * when, whether it is plausible for the step's spec and the clock, and, once the process has been
 * reaped, how the step ended. This file only does what the judge says: pass an accepted frame to
 * a callback, kill the worker at a violation, report the outcome. A frame the judge refuses never
 * reaches a callback.
 *
 * No process outlives its job. The worker is a child subreaper that kills and reaps its own
 * descendants before it exits; a worker that cannot (it was SIGKILLed) leaves them to us: benchd is
 * a child subreaper too, so they become our children, and the stray sweep below kills and reaps
 * them. See "Strays" for why this and not a cgroup.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <syslog.h>

#include "shared/children.h"
#include "shared/spec-check.h"
#include "jobs/helper.h"
#include "jobs/supervisor.h"
#include "jobs/worker-judge.h"
#include "shared/log.h"

struct Worker {
        sd_event *event;
        pid_t pid;
        int fd;
        sd_event_source *child_source;
        sd_event_source *io_source;
        sd_event_source *timeout_source;
        sd_event_source *kill_source;
        ProtoReader reader;
        WorkerCallbacks cb;
        void *userdata;
        uint64_t job_id;
        uint32_t step;
        char *spec_text;
        ProtoGuard guard;
        ProtoFsSetup fs_setup;  /* a filesystem step: sent after the SPEC */
        bool has_fs_setup;
        char *path;
        uint64_t timeout_usec;

        WorkerJudge judge;      /* what it said, and what that makes of the step */
        uint64_t spawn_usec;    /* CLOCK_MONOTONIC */
        uint64_t spawn_realtime_usec;
        bool stop_requested;
        bool signalled;
        bool unsafe;            /* the ERROR was a refusal on safety grounds */
        bool eof;
        bool exited;            /* on_worker_exit() ran: the event loop reaps the process */

        Worker *live_next, *live_prev;  /* in live_workers from fork() to worker_free() */
        bool live;
};

/* ---- Strays ----
 *
 * Everything a worker starts must end with its job. Its process group is killed when it ends,
 * which catches every descendant that stayed in the group; one that called setsid() (the engine's
 * stream processes do, as fio's do) escapes that. Three layers catch those:
 *   - benchd-worker is a child subreaper: orphans of its descendants become its children, and
 *     before it exits it SIGKILLs and reaps all of them (daemon/worker/main.c);
 *   - its stream processes have PR_SET_PDEATHSIG, so they die with it however it dies;
 *   - benchd is a child subreaper too (set at the first spawn). A worker that was SIGKILLed
 *     (timeout, violation, shutdown) cannot clean up; what it leaves becomes our child, not
 *     init's. benchd starts no process but its workers and its helpers (helper.h: file removal,
 *     target checks), so every child of ours that is neither a live worker nor a live helper is
 *     such a stray: strays_sweep() SIGKILLs and reaps it. A stray's own children become
 *     ours only when it dies, so the sweep repeats on a timer until a sweep finds none.
 * A cgroup per worker would be stronger (cgroup.kill ends a whole tree at once, with no race
 * against fork()), but needs a delegated cgroup v2 subtree (Delegate=yes in benchd.service, benchd
 * moving itself into a leaf of its own), which benchd is not given: here it runs in the root of a
 * hybrid hierarchy it does not own. When benchd itself dies, its workers die of PR_SET_PDEATHSIG
 * and their strays go to init; under systemd, stopping the unit kills its whole cgroup
 * (KillMode=control-group, the default).
 *
 * This state is per process, as the set of a process's children is. */
#define SWEEP_DELAY_MIN_USEC (10 * USEC_PER_MSEC)
#define SWEEP_DELAY_MAX_USEC (1 * USEC_PER_SEC)

static Worker *live_workers;
static sd_event_source *sweep_source;   /* floating (the event loop owns it); cleared when it goes */
static uint64_t sweep_delay_usec;
static bool subreaper_tried;

#define worker_log(w, level, fmt, ...) \
        log_full((level), "job %" PRIu64 " step %" PRIu32 " worker[%d]: " fmt, \
                 (w)->job_id, (w)->step, (int) (w)->pid, ##__VA_ARGS__)
#define worker_log_errno(w, level, error, fmt, ...) \
        log_full_errno((level), (error), "job %" PRIu64 " step %" PRIu32 " worker[%d]: " fmt, \
                       (w)->job_id, (w)->step, (int) (w)->pid, ##__VA_ARGS__)

pid_t worker_pid(Worker *w) {
        return w ? w->pid : 0;
}

static void worker_signal_group(Worker *w, int sig) {
        if (w->pid <= 0)
                return;
        if (kill(-w->pid, sig) < 0 && errno != ESRCH)
                worker_log(w, LOG_WARNING, "cannot send signal %d: %m", sig);
        if (sig != 0 && w->child_source)
                w->signalled = true;
}

static void worker_disable_io(Worker *w) {
        w->io_source = sd_event_source_disable_unref(w->io_source);
}

/* The judge has recorded a failure (new_failure: it is the one reported, so log it) that ends
 * the worker: kill it at once; the step's outcome is decided when it has been reaped. */
static void worker_kill_failed(Worker *w, bool new_failure) {
        if (new_failure)
                worker_log(w, LOG_WARNING, "%s", w->judge.failure);
        worker_disable_io(w);
        worker_signal_group(w, SIGKILL);
}

static ProtoClock worker_clock(Worker *w) {
        return (ProtoClock) {
                .elapsed_usec = now_usec(CLOCK_MONOTONIC) - w->spawn_usec,
                .spawn_realtime_usec = w->spawn_realtime_usec,
                .now_realtime_usec = now_usec(CLOCK_REALTIME),
        };
}

static int worker_send_spec(Worker *w) {
        _cleanup_free_ uint8_t *buf = NULL;
        size_t len;
        ProtoSpec spec = {
                .job_id = w->job_id,
                .step = w->step,
                .text = w->spec_text,
                .guard = w->guard,
        };
        int r;

        r = proto_encode_spec(&spec, &buf, &len);
        if (r < 0)
                return r;
        /* One frame of at most PROTO_SPEC_MAX on a fresh socket: fits its buffer, never blocks. */
        r = proto_write_all(w->fd, buf, len);
        if (r < 0 || !w->has_fs_setup)
                return r;

        /* And for a filesystem step its setup, a few KiB (at most 16 members of bounded paths),
         * which the worker reads right after the SPEC. */
        free(buf);
        buf = NULL;
        r = proto_encode_fs_setup(&w->fs_setup, &buf, &len);
        if (r < 0)
                return r;
        return proto_write_all(w->fd, buf, len);
}

int worker_send_start(Worker *w, uint64_t start_usec) {
        _cleanup_free_ uint8_t *buf = NULL;
        size_t len;
        int r;

        if (!w || w->fd < 0 || w->eof)
                return -ESRCH;
        r = proto_encode_start(&(ProtoStart) { .start_usec = start_usec }, &buf, &len);
        if (r < 0)
                return r;
        return proto_write_all(w->fd, buf, len);
}

int worker_extend_timeout(Worker *w, uint64_t by_usec) {
        uint64_t at;
        int r;

        if (!w || !w->timeout_source)
                return -ESRCH;
        r = sd_event_source_get_time(w->timeout_source, &at);
        if (r < 0)
                return r;
        r = sd_event_source_set_time(w->timeout_source, at > UINT64_MAX - by_usec ? UINT64_MAX - 1 : at + by_usec);
        if (r < 0)
                return r;
        w->timeout_usec = w->timeout_usec > UINT64_MAX - by_usec ? UINT64_MAX - 1 : w->timeout_usec + by_usec;
        return 0;
}

/* Returns false when the worker was dropped. */
static bool worker_handle_frame(Worker *w, const ProtoFrame *f) {
        _cleanup_(worker_verdict_clear) WorkerVerdict v = {};
        ProtoClock clock = worker_clock(w);
        int r;

        switch (worker_judge_frame(&w->judge, f, &clock, &v)) {
        case WORKER_VERDICT_SEND_SPEC:
                if ((pid_t) v.hello_pid != w->pid)
                        worker_log(w, LOG_WARNING, "HELLO names pid %" PRIu32 "; continuing", v.hello_pid);
                r = worker_send_spec(w);
                if (r < 0) {
                        worker_kill_failed(w, worker_judge_fail(&w->judge, "cannot send the spec to the worker: %s",
                                                                strerror(-r)));
                        return false;
                }
                return true;
        case WORKER_VERDICT_PHASE:
                if (w->cb.phase)
                        w->cb.phase(w, v.text, w->userdata);
                return true;
        case WORKER_VERDICT_RECORD:
                if (w->cb.record)
                        w->cb.record(w, &v.record, w->userdata);
                return true;
        case WORKER_VERDICT_FS_INFO:
                worker_log(w, LOG_INFO, "%s filesystem %s ready: %" PRIu64 " bytes, %" PRIu64 " used%s%s",
                           v.fs_info.fs_type, v.fs_info.uuid, v.fs_info.size_bytes, v.fs_info.used_bytes,
                           v.fs_info.mkfs_command[0] ? "; made by " : "", v.fs_info.mkfs_command);
                if (w->cb.fs_info)
                        w->cb.fs_info(w, &v.fs_info, w->userdata);
                return true;
        case WORKER_VERDICT_FS_RELEASED:
                worker_log(w, LOG_INFO, "md array's members released: %s", v.text);
                if (w->cb.fs_released)
                        w->cb.fs_released(w, v.text, w->userdata);
                return true;
        case WORKER_VERDICT_LOG:
                worker_log(w, v.level, "%s", strna(v.text));
                return true;
        case WORKER_VERDICT_LOGS_DROPPED:
                worker_log(w, LOG_INFO, "more than %u log messages; dropping the rest", WORKER_LOG_MAX);
                return true;
        case WORKER_VERDICT_VIOLATION:
                worker_kill_failed(w, v.new_failure);
                return false;
        case WORKER_VERDICT_NONE:
        default:
                return true;
        }
}

/* Reads and handles everything available. */
static void worker_read(Worker *w) {
        int r;

        while (w->io_source) {
                ProtoFrame f;

                r = proto_reader_next(&w->reader, &f);
                if (r < 0) {
                        worker_kill_failed(w, worker_judge_stream_error(&w->judge, r));
                        return;
                }
                if (r > 0) {
                        if (!worker_handle_frame(w, &f))
                                return;
                        continue;
                }

                r = proto_reader_fill(&w->reader, w->fd);
                if (r == -EAGAIN || r == -EINTR)
                        return;
                if (r == 0 || r == -ECONNRESET) {
                        /* ECONNRESET: it died with our SPEC unread; its exit status tells why. */
                        w->eof = true;
                        worker_disable_io(w);
                        if (w->reader.len > 0)
                                worker_kill_failed(w, worker_judge_eof(&w->judge, w->reader.len));
                        return;
                }
                if (r < 0) {
                        if (r == -ENOBUFS || r == -EMSGSIZE)
                                worker_kill_failed(w, worker_judge_stream_error(&w->judge, r));
                        else
                                worker_kill_failed(w, worker_judge_fail(&w->judge, "cannot read from the worker: %s",
                                                                        strerror(-r)));
                        return;
                }
        }
}

static int on_worker_io(sd_event_source *s, int fd, uint32_t revents, void *userdata) {
        Worker *w = userdata;

        worker_read(w);
        return 0;
}

static int on_worker_kill(sd_event_source *s, uint64_t usec, void *userdata) {
        Worker *w = userdata;

        worker_log(w, LOG_INFO, "still running; sending SIGKILL");
        worker_signal_group(w, SIGKILL);
        return 0;
}

static void worker_arm_kill(Worker *w, uint64_t after_usec) {
        int r;

        if (w->kill_source)
                return;
        r = sd_event_add_time_relative(w->event, &w->kill_source, CLOCK_MONOTONIC, after_usec, 0,
                                       on_worker_kill, w);
        if (r < 0) {
                worker_log_errno(w, LOG_WARNING, r, "cannot arm the kill timer (%m); sending SIGKILL now");
                worker_signal_group(w, SIGKILL);
        }
}

static int on_worker_timeout(sd_event_source *s, uint64_t usec, void *userdata) {
        Worker *w = userdata;

        if (worker_judge_fail(&w->judge, "the step timed out after %" PRIu64 " s (its runtime plus StepTimeoutGraceSec=); "
                              "the worker was stopped", w->timeout_usec / USEC_PER_SEC))
                worker_log(w, LOG_WARNING, "%s", w->judge.failure);
        worker_signal_group(w, SIGTERM);
        worker_arm_kill(w, WORKER_KILL_USEC);
        return 0;
}

void worker_stop(Worker *w, uint64_t kill_after_usec) {
        if (!w || !w->child_source)
                return;
        w->stop_requested = true;
        worker_signal_group(w, SIGTERM);
        worker_arm_kill(w, kill_after_usec);
}

/* ---- the stray sweep (see "Strays" at the top) ---- */

static void live_add(Worker *w) {
        w->live_prev = NULL;
        w->live_next = live_workers;
        if (live_workers)
                live_workers->live_prev = w;
        live_workers = w;
        w->live = true;
}

static void live_remove(Worker *w) {
        if (!w->live)
                return;
        if (w->live_prev)
                w->live_prev->live_next = w->live_next;
        else
                live_workers = w->live_next;
        if (w->live_next)
                w->live_next->live_prev = w->live_prev;
        w->live_next = w->live_prev = NULL;
        w->live = false;
}

static void strays_sweep(sd_event *event);

static int on_sweep(sd_event_source *s, uint64_t usec, void *userdata) {
        strays_sweep(sd_event_source_get_event(s));
        return 0;
}

static void on_sweep_destroy(void *userdata) {
        sweep_source = NULL;
}

/* Another sweep soon: 10 ms after the first, doubling up to 1 s while strays remain (one stuck in
 * uninterruptible sleep dies only when its I/O ends). */
static void strays_arm(sd_event *event) {
        int r;

        sweep_delay_usec = sweep_delay_usec ? MIN(sweep_delay_usec * 2, SWEEP_DELAY_MAX_USEC) : SWEEP_DELAY_MIN_USEC;
        if (sweep_source) {
                r = sd_event_source_set_time_relative(sweep_source, sweep_delay_usec);
                if (r >= 0)
                        r = sd_event_source_set_enabled(sweep_source, SD_EVENT_ONESHOT);
        } else {
                r = sd_event_add_time_relative(event, &sweep_source, CLOCK_MONOTONIC, sweep_delay_usec, 0,
                                               on_sweep, NULL);
                if (r >= 0) {
                        /* The loop owns it: it neither keeps the loop alive nor outlives it, and
                         * the destroy callback clears our borrowed pointer when the loop goes. */
                        (void) sd_event_source_set_destroy_callback(sweep_source, on_sweep_destroy);
                        r = sd_event_source_set_floating(sweep_source, true);
                        sd_event_source_unref(sweep_source);
                }
        }
        if (r < 0)
                log_warning_errno(r, "cannot arm the sweep for processes left by workers: %m");
}

/* Kills and reaps every child of ours that is not a live worker or helper. Never blocks. */
static void strays_sweep(sd_event *event) {
        _cleanup_free_ pid_t *keep = NULL;
        size_t n = 0, n_helpers, reaped = 0;
        int found;

        for (Worker *i = live_workers; i; i = i->live_next)
                n++;
        n_helpers = helper_live_pids(NULL, 0);
        keep = calloc(MAX(n + n_helpers, (size_t) 1), sizeof(pid_t));
        if (!keep) {
                strays_arm(event);
                return;
        }
        n = helper_live_pids(keep, n_helpers);
        for (Worker *i = live_workers; i; i = i->live_next)
                keep[n++] = i->pid;

        found = children_kill(keep, n, &reaped);
        if (found < 0) {
                log_warning_errno(found, "cannot look for processes left by workers: %m");
                return;
        }
        if (reaped > 0)
                log_info("killed and reaped %zu process(es) left behind by a worker", reaped);
        if (found > 0)
                strays_arm(event);
        else {
                sweep_delay_usec = 0;
                if (sweep_source)
                        (void) sd_event_source_set_enabled(sweep_source, SD_EVENT_OFF);
        }
}

/* Once, at the first spawn: orphans of our workers' descendants become ours, not init's. */
static void subreaper_ensure(void) {
        if (subreaper_tried)
                return;
        subreaper_tried = true;
        if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) < 0)
                log_warning("cannot become a child subreaper (%m); a process that leaves a "
                        "killed worker's process group will outlive its job");
}

static int on_worker_exit(sd_event_source *s, const siginfo_t *si, void *userdata) {
        Worker *w = userdata;
        WorkerOutcome o = {};
        WorkerExit e;

        /* Everything it wrote before dying is in the socket: judge it on all of it. */
        if (w->io_source)
                worker_read(w);
        worker_disable_io(w);
        w->child_source = sd_event_source_disable_unref(w->child_source);
        w->timeout_source = sd_event_source_disable_unref(w->timeout_source);
        w->kill_source = sd_event_source_disable_unref(w->kill_source);
        /* A zombie now, reaped by the event loop when we return; it stays in live_workers until
         * worker_free(), so no sweep takes it for a stray. */
        w->exited = true;
        /* Sweep anything it left in its process group, and whatever left the group. */
        (void) kill(-w->pid, SIGKILL);
        strays_sweep(w->event);

        if (si->si_code == CLD_EXITED)
                worker_log(w, LOG_WARNING, "exited with status %d", si->si_status);
        else
                worker_log(w, LOG_WARNING, "killed by signal %d (SIG%s)", si->si_status, strna(sigabbrev_np(si->si_status)));

        e = (WorkerExit) {
                .exited = si->si_code == CLD_EXITED,
                .status = si->si_status,
                .stop_requested = w->stop_requested,
                .signalled = w->signalled,
        };
        worker_judge_outcome(&w->judge, &e, w->path, &o);

        /* May free w. */
        w->cb.finished(w, &o, w->userdata);
        return 0;
}

static _Noreturn void worker_exec_child(int fd, const char *path, pid_t parent, const char *run_as_arg) {
        static char *const env[] = {
                (char *) "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
                (char *) "LANG=C",
                NULL,
        };
        char *argv[] = { (char *) path, (char *) "--protocol-fd=3", (char *) run_as_arg, NULL };
        struct rlimit rl;
        sigset_t ss;
        int null_fd;

        sigemptyset(&ss);
        (void) sigprocmask(SIG_SETMASK, &ss, NULL);
        for (int sig = 1; sig < NSIG; sig++)
                if (sig != SIGKILL && sig != SIGSTOP)
                        (void) signal(sig, SIG_DFL);

        if (setsid() < 0)
                _exit(126);
        if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0)
                _exit(126);
        if (getppid() != parent)
                _exit(126);
        if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
                _exit(126);

        rl = (struct rlimit) { 0, 0 };
        (void) setrlimit(RLIMIT_CORE, &rl);
        if (getrlimit(RLIMIT_NOFILE, &rl) == 0) {
                /* A metadata step holds one descriptor per directory (spec-check.h). */
                rl.rlim_cur = MIN(rl.rlim_max, (rlim_t) SPEC_WORKER_FILES_MAX);
                rl.rlim_max = rl.rlim_cur;
                (void) setrlimit(RLIMIT_NOFILE, &rl);
        }

        if (fd == 3) {
                if (fcntl(fd, F_SETFD, 0) < 0)
                        _exit(126);
        } else if (dup2(fd, 3) < 0)
                _exit(126);
        null_fd = open("/dev/null", O_RDWR | O_CLOEXEC);
        if (null_fd >= 0 && null_fd != 0)
                (void) dup2(null_fd, 0);
        (void) close_range(4, ~0U, 0);

        execve(path, argv, env);
        _exit(127);
}

int worker_spawn(sd_event *event, const char *path, uint64_t job_id, uint32_t step, const JobSpec *spec,
                 const char *spec_text, uid_t run_as, uint64_t timeout_usec, const WorkerCallbacks *cb,
                 void *userdata, Worker **ret) {
        _cleanup_close_ int pidfd = -1;
        char run_as_arg[32];
        int pair[2], r;
        pid_t parent = getpid(), pid;
        Worker *w;

        if (access(path, X_OK) < 0)
                return negative_errno();
        w = calloc(1, sizeof(*w));
        if (!w)
                return -ENOMEM;
        r = worker_judge_init(&w->judge, spec);
        if (r < 0) {
                free(w);
                return r;
        }
        subreaper_ensure();

        w->fd = -1;
        w->event = sd_event_ref(event);
        w->cb = *cb;
        w->userdata = userdata;
        w->job_id = job_id;
        w->step = step;
        w->timeout_usec = timeout_usec;
        proto_reader_init(&w->reader);
        w->spec_text = strdup(spec_text);
        w->path = strdup(path);
        if (!w->spec_text || !w->path) {
                worker_free(w);
                return -ENOMEM;
        }

        snprintf(run_as_arg, sizeof(run_as_arg), "--run-as=%u", (unsigned) run_as);
        if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) < 0) {
                r = negative_errno();
                worker_free(w);
                return r;
        }

        pid = fork();
        if (pid < 0) {
                r = negative_errno();
                close(pair[0]);
                close(pair[1]);
                worker_free(w);
                return r;
        }
        if (pid == 0)
                worker_exec_child(pair[1], path, parent, run_as != 0 ? run_as_arg : NULL);

        /* From here on worker_free() kills and reaps it, whatever fails. */
        close(pair[1]);
        w->fd = pair[0];
        w->pid = pid;
        live_add(w);
        w->spawn_usec = now_usec(CLOCK_MONOTONIC);
        w->spawn_realtime_usec = now_usec(CLOCK_REALTIME);
        if (fcntl(w->fd, F_SETFL, O_NONBLOCK) < 0) {
                r = negative_errno();
                goto fail;
        }

        pidfd = pidfd_open_sys(pid);
        if (pidfd >= 0) {
                r = sd_event_add_child_pidfd(event, &w->child_source, pidfd, WEXITED, on_worker_exit, w);
                if (r >= 0) {
                        (void) sd_event_source_set_child_pidfd_own(w->child_source, true);
                        TAKE_FD(pidfd);
                }
        } else
                r = sd_event_add_child(event, &w->child_source, pid, WEXITED, on_worker_exit, w);
        if (r < 0)
                goto fail;
        (void) sd_event_source_set_child_process_own(w->child_source, true);

        r = sd_event_add_io(event, &w->io_source, w->fd, EPOLLIN, on_worker_io, w);
        if (r < 0)
                goto fail;
        /* Frames before exits: read what the worker said before judging how it ended. */
        (void) sd_event_source_set_priority(w->io_source, SD_EVENT_PRIORITY_NORMAL - 10);

        r = sd_event_add_time_relative(event, &w->timeout_source, CLOCK_MONOTONIC, timeout_usec, 0,
                                       on_worker_timeout, w);
        if (r < 0)
                goto fail;

        if (run_as != 0)
                worker_log(w, LOG_INFO, "started %s as uid %u (timeout %" PRIu64 " s)", path, (unsigned) run_as,
                           timeout_usec / USEC_PER_SEC);
        else
                worker_log(w, LOG_INFO, "started %s (timeout %" PRIu64 " s)", path, timeout_usec / USEC_PER_SEC);
        *ret = w;
        return 0;

fail:
        worker_free(w);
        return r;
}

void worker_set_guard(Worker *w, const ProtoGuard *guard) {
        w->guard = *guard;
}

void worker_set_device(Worker *w, uint64_t device_bytes) {
        worker_judge_set_device(&w->judge, device_bytes);
}

int worker_set_fs_setup(Worker *w, const ProtoFsSetup *setup) {
        int r;

        if (w->has_fs_setup)
                return -EBUSY;
        r = proto_fs_setup_copy(setup, &w->fs_setup);
        if (r < 0)
                return r;
        w->has_fs_setup = true;
        worker_judge_expect_fs(&w->judge, &w->fs_setup);
        return 0;
}

/* Waits for a child of ours that was sent SIGKILL: it runs no more code of its own, so this ends
 * at once (unless it sleeps uninterruptibly in the kernel; a worker only gets here when its spawn
 * failed half-way, or when it is dropped at shutdown). No signal here: it may have been reaped
 * already and its pid reused; waitpid() then fails with ECHILD, as nobody else is our child. */
static void worker_reap_now(pid_t pid) {
        while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
                ;
}

Worker *worker_free(Worker *w) {
        bool running;

        if (!w)
                return NULL;
        /* Not yet reaped, and not about to be by the event loop: it must not outlive its
         * supervisor, nor stay a zombie. */
        running = w->pid > 0 && !w->exited;
        if (running) {
                /* Its group, and itself if it has not made the group yet (setsid() after fork()). */
                (void) kill(-w->pid, SIGKILL);
                (void) kill(w->pid, SIGKILL);
        }
        sd_event_source_disable_unref(w->io_source);
        sd_event_source_disable_unref(w->timeout_source);
        sd_event_source_disable_unref(w->kill_source);
        /* With process_own, freeing the child source already kills and reaps it; without a child
         * source (spawn failed before one was made) nobody has: worker_reap_now(). ECHILD when it
         * was reaped already, and a reused pid is no child of ours: no one else is ever waited for. */
        sd_event_source_disable_unref(w->child_source);
        if (running)
                worker_reap_now(w->pid);
        live_remove(w);
        /* What it left behind. (After on_worker_exit() that sweep ran there, with the zombie kept.) */
        if (running)
                strays_sweep(w->event);
        if (w->fd >= 0)
                close(w->fd);
        proto_reader_clear(&w->reader);
        worker_judge_clear(&w->judge);
        proto_fs_setup_clear(&w->fs_setup);
        free(w->spec_text);
        free(w->path);
        sd_event_unref(w->event);
        free(w);
        return NULL;
}

uint64_t worker_timeout_usec(const JobSpec *s, uint64_t grace_usec) {
        /* 10 MB/s is 10^4 bytes per ms; reads lay out first, so count the bytes twice. */
        uint64_t bytes_ms = spec_needed_bytes(s) / 10000u;
        uint64_t ms = grace_usec > 0 ? grace_usec / USEC_PER_MSEC : WORKER_STEP_GRACE_SEC_DEFAULT * 1000u;

        ms += MIN(s->runtime_ms + s->ramp_ms, SPEC_RUNTIME_MS_MAX);
        if (s->runtime_ms == 0 || workload_reads(s->workload))
                ms += 2 * MIN(bytes_ms, SPEC_RUNTIME_MS_MAX);
        if (s->workload == WORKLOAD_METADATA)
                ms += (uint64_t) s->file_count * 2u;
        ms = MIN(ms, SPEC_RUNTIME_MS_MAX + 3600u * 1000u);
        return ms * USEC_PER_MSEC;
}
