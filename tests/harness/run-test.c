/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * run-test: runs one test of the suite so that nothing it starts outlives it, and says what it
 * left behind when it did.
 *
 *   run-test --name NAME [--grace SECONDS] -- COMMAND [ARG...]
 *   run-test --leftovers
 *   run-test --print-root
 *
 * meson starts each test in a session of its own; at the timeout it sends SIGTERM to that process
 * group, SIGKILL half a second later, and moves on. A process that left the group (setsid() or
 * setpgid(): benchd's workers, an automount daemon, a FUSE server) is not reached at all, and
 * one that still holds the test's stdout keeps meson waiting until the timeout even after the test
 * ended. So every test runs under two processes of ours:
 *
 *   meson ─ run-test "front" (meson's group: what meson signals)
 *             └ run-test "keeper" (a group of its own, PR_SET_PDEATHSIG of the front, the child
 *                 │                 subreaper of everything below it)
 *                 └ the test (a group of its own, PR_SET_PDEATHSIG of the keeper)
 *
 * The front only waits for the keeper and hands a signal on. The keeper gives the test a
 * temporary directory of its own (TMPDIR=<root>/<name>.XXXXXX, where <root> is
 * ${TMPDIR:-/tmp}/benchd-t-<hash of the build tree>) and relays its output, so that meson's end of
 * the pipe going away never kills a test that is still cleaning up. When the test ends (by itself,
 * or by the SIGTERM the keeper sends its group when the front is signalled or dies — SIGKILL after
 * --grace seconds, default 60), the keeper:
 *   - gives what the test stopped 3 s to go, then names every process still below it (being the
 *     subreaper, orphans come to it whatever group or session they made), ends them (SIGTERM,
 *     then SIGKILL) and reaps them;
 *   - names and detaches every mount under the test's directory and every loop device backed by a
 *     file in it (one whose detach is pending, held open by udev's probe say, gets 10 s to go);
 *   - removes the directory (unless BENCHD_TEST_KEEP=1);
 *   - exits with the test's status, or 1 when a test that passed or skipped left something behind.
 *
 * --leftovers is the suite's last test (test-leftovers): it waits for the keepers of this build
 * tree that are still cleaning up, then names and removes whatever is left under <root> (mounts,
 * loop devices, directories) and every process whose environment or command line carries <root>,
 * and fails when there was anything.
 */

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <getopt.h>
#include <limits.h>
#include <linux/loop.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define ELEMENTSOF(x) (sizeof(x) / sizeof((x)[0]))
#define _cleanup_(f) __attribute__((cleanup(f)))

static const char *arg_name = "test";
static unsigned arg_grace = 60;
static char tmp_root[PATH_MAX];
static char test_dir[PATH_MAX];

static void freep(void *p) {
        free(*(void **) p);
}

static void closep(int *fd) {
        if (*fd >= 0)
                close(*fd);
}

static void closedirp(DIR **d) {
        if (*d)
                closedir(*d);
}

static void fclosep(FILE **f) {
        if (*f)
                fclose(*f);
}

static uint64_t now_msec(void) {
        struct timespec ts;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t) ts.tv_sec * 1000 + (uint64_t) ts.tv_nsec / 1000000;
}

__attribute__((format(printf, 1, 2)))
static void say(const char *fmt, ...) {
        char buf[4096];
        va_list ap;
        int n;

        n = snprintf(buf, sizeof(buf), "run-test: %s: ", arg_name);
        va_start(ap, fmt);
        n += vsnprintf(buf + n, sizeof(buf) - (size_t) n, fmt, ap);
        va_end(ap);
        if ((size_t) n >= sizeof(buf) - 1)
                n = sizeof(buf) - 2;
        buf[n++] = '\n';
        /* Whoever reads our stderr may have gone (meson after a timeout): never die of it. */
        (void) !write(STDERR_FILENO, buf, (size_t) n);
}

/* ---- the root of this build tree's temporary directories ---- */

static int tmp_root_init(void) {
        char exe[PATH_MAX], *p;
        const char *base = getenv("TMPDIR");
        uint32_t h = 2166136261u;       /* FNV-1a of the build tree's path */
        ssize_t n;

        /* Outside the suite's TMPDIR if we run under ourselves (BENCHD_TEST_TMP names the root). */
        p = getenv("BENCHD_TEST_TMP");
        if (p && *p) {
                snprintf(tmp_root, sizeof(tmp_root), "%s", p);
                return 0;
        }
        n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
        if (n < 0)
                return -errno;
        exe[n] = 0;
        /* BUILD/tests/harness/run-test: the build tree is three levels up. */
        for (int i = 0; i < 3; i++) {
                p = strrchr(exe, '/');
                if (!p)
                        return -EINVAL;
                *p = 0;
        }
        for (p = exe; *p; p++)
                h = (h ^ (uint8_t) *p) * 16777619u;
        if (!base || base[0] != '/')
                base = "/tmp";
        snprintf(tmp_root, sizeof(tmp_root), "%s/benchd-t-%08x", base, h);
        return 0;
}

static bool streq_s(const char *a, const char *b) {
        return strcmp(a, b) == 0;
}

static bool path_under(const char *path, const char *dir) {
        size_t n = strlen(dir);

        return strncmp(path, dir, n) == 0 && (path[n] == '/' || path[n] == 0);
}

/* ---- processes ---- */

typedef struct Proc {
        pid_t pid, ppid;
        char state;
} Proc;

/* Every process of the system, from /proc/PID/stat. */
static int procs_read(Proc **ret, size_t *ret_n) {
        _cleanup_(closedirp) DIR *d = opendir("/proc");
        _cleanup_(freep) Proc *v = NULL;
        size_t n = 0, cap = 0;
        struct dirent *de;

        if (!d)
                return -errno;
        while ((de = readdir(d))) {
                char path[64], buf[1024], *close_paren;
                _cleanup_(closep) int fd = -1;
                pid_t pid = (pid_t) atoi(de->d_name);
                ssize_t k;
                int ppid;
                char state;

                if (pid <= 0)
                        continue;
                snprintf(path, sizeof(path), "/proc/%d/stat", (int) pid);
                fd = open(path, O_RDONLY | O_CLOEXEC);
                if (fd < 0)
                        continue;
                k = read(fd, buf, sizeof(buf) - 1);
                if (k <= 0)
                        continue;
                buf[k] = 0;
                close_paren = strrchr(buf, ')');
                if (!close_paren || sscanf(close_paren + 1, " %c %d", &state, &ppid) != 2)
                        continue;
                if (n == cap) {
                        Proc *nv = realloc(v, (cap = cap ? cap * 2 : 512) * sizeof(Proc));
                        if (!nv)
                                return -ENOMEM;
                        v = nv;
                }
                v[n++] = (Proc) { .pid = pid, .ppid = (pid_t) ppid, .state = state };
        }
        *ret = v;
        v = NULL;
        *ret_n = n;
        return 0;
}

/* The living descendants of ourselves (zombies are dead; their parent reaps them), at most max. */
static size_t descendants(pid_t *out, size_t max) {
        _cleanup_(freep) Proc *v = NULL;
        _cleanup_(freep) bool *in = NULL;
        size_t n = 0, found = 0;
        bool grew = true;

        if (procs_read(&v, &n) < 0 || n == 0)
                return 0;
        in = calloc(n, sizeof(bool));
        if (!in)
                return 0;
        /* Every process whose parent is ourselves or already in the tree joins it, until none does. */
        while (grew) {
                grew = false;
                for (size_t i = 0; i < n; i++) {
                        if (in[i])
                                continue;
                        bool parent_in = v[i].ppid == getpid();
                        for (size_t j = 0; !parent_in && j < n; j++)
                                parent_in = in[j] && v[j].pid == v[i].ppid;
                        if (parent_in)
                                in[i] = grew = true;
                }
        }
        for (size_t i = 0; i < n && found < max; i++)
                if (in[i] && v[i].state != 'Z' && v[i].state != 'X')
                        out[found++] = v[i].pid;
        return found;
}

static void proc_describe(pid_t pid, char *buf, size_t size) {
        char path[64], comm[64] = "?", cmd[512] = "";
        _cleanup_(closep) int fd = -1;
        ssize_t k;

        snprintf(path, sizeof(path), "/proc/%d/comm", (int) pid);
        fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd >= 0 && (k = read(fd, comm, sizeof(comm) - 1)) > 0) {
                comm[k] = 0;
                comm[strcspn(comm, "\n")] = 0;
        }
        closep(&fd);
        snprintf(path, sizeof(path), "/proc/%d/cmdline", (int) pid);
        fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd >= 0 && (k = read(fd, cmd, sizeof(cmd) - 1)) > 0) {
                cmd[k] = 0;
                for (ssize_t i = 0; i < k - 1; i++)
                        if (cmd[i] == 0)
                                cmd[i] = ' ';
        }
        snprintf(buf, size, "process %d (%s): %s", (int) pid, comm, cmd);
}

/* ---- mounts and loop devices under a directory ---- */

/* Undoes mountinfo's octal escapes (\040 for a space...) in place. */
static void unescape(char *s) {
        char *o = s;

        for (; *s; s++) {
                if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' && s[2] <= '7' && s[3] >= '0' &&
                    s[3] <= '7') {
                        *o++ = (char) ((s[1] - '0') * 64 + (s[2] - '0') * 8 + (s[3] - '0'));
                        s += 3;
                } else
                        *o++ = *s;
        }
        *o = 0;
}

/* Names (what: "left behind" or "found") and detaches every mount point under dir, the newest
 * first; returns how many there were. */
static unsigned mounts_under(const char *dir, const char *what) {
        _cleanup_(fclosep) FILE *f = fopen("/proc/self/mountinfo", "re");
        char **points = NULL;
        size_t n = 0;
        char *line = NULL;
        size_t len = 0;
        unsigned found = 0;

        if (!f)
                return 0;
        while (getline(&line, &len, f) > 0) {
                char mp[PATH_MAX], fstype[64] = "?", source[PATH_MAX] = "?", *dash;

                if (sscanf(line, "%*s %*s %*s %*s %4095s", mp) != 1)
                        continue;
                unescape(mp);
                if (!path_under(mp, dir))
                        continue;
                dash = strstr(line, " - ");
                if (dash)
                        (void) sscanf(dash + 3, "%63s %4095s", fstype, source);
                say("%s: mount %s (%s from %s)", what, mp, fstype, source);
                char **nv = realloc(points, (n + 1) * sizeof(char *));
                if (!nv)
                        break;
                points = nv;
                points[n++] = strdup(mp);
                found++;
        }
        free(line);
        while (n > 0) {
                n--;
                if (points[n] && umount2(points[n], MNT_DETACH) < 0 && errno != EINVAL && errno != ENOENT)
                        say("cannot detach %s: %m", points[n]);
                free(points[n]);
        }
        free(points);
        return found;
}

/* Whether /sys/block/NAME/loop/FILE reads as text starting with want (or, want NULL, its text). */
static bool loop_attr(const char *name, const char *file, char *buf, size_t size) {
        char path[PATH_MAX];
        _cleanup_(closep) int fd = -1;
        ssize_t k;

        snprintf(path, sizeof(path), "/sys/block/%s/loop/%s", name, file);
        fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0 || (k = read(fd, buf, size - 1)) <= 0)
                return false;
        buf[k] = 0;
        buf[strcspn(buf, "\n")] = 0;
        return true;
}

/* How many loop devices are backed by a file under dir; with pending_only, only those whose
 * detach was asked for while they were open (autoclear: the kernel detaches them when the last
 * opener, often udev's probe of the new device, closes them). */
static unsigned loops_count(const char *dir, bool *ret_all_pending) {
        _cleanup_(closedirp) DIR *d = opendir("/sys/block");
        struct dirent *de;
        unsigned n = 0;
        bool all_pending = true;

        while (d && (de = readdir(d))) {
                char backing[PATH_MAX], autoclear[16];

                if (strncmp(de->d_name, "loop", 4) != 0 || !loop_attr(de->d_name, "backing_file", backing, sizeof(backing)))
                        continue;
                if (!path_under(backing, dir))
                        continue;
                n++;
                if (!loop_attr(de->d_name, "autoclear", autoclear, sizeof(autoclear)) || strcmp(autoclear, "1") != 0)
                        all_pending = false;
        }
        *ret_all_pending = all_pending;
        return n;
}

/* Names and detaches every loop device whose backing file is under dir; how many. Those whose
 * detach is pending are given 10 s to go by themselves first. One still in use (mounted in a
 * namespace that is going away) is set to detach itself when released. */
static unsigned loops_under(const char *dir, const char *what) {
        _cleanup_(closedirp) DIR *d = NULL;
        uint64_t until = now_msec() + 10000;
        struct dirent *de;
        unsigned found = 0;
        bool all_pending;

        while (loops_count(dir, &all_pending) > 0 && all_pending && now_msec() < until)
                usleep(100 * 1000);
        d = opendir("/sys/block");
        while (d && (de = readdir(d))) {
                char backing[PATH_MAX], node[PATH_MAX], autoclear[16] = "";
                _cleanup_(closep) int dev = -1;

                if (strncmp(de->d_name, "loop", 4) != 0 || !loop_attr(de->d_name, "backing_file", backing, sizeof(backing)))
                        continue;
                if (!path_under(backing, dir))
                        continue;
                found++;
                (void) loop_attr(de->d_name, "autoclear", autoclear, sizeof(autoclear));
                say("%s: loop device /dev/%s on %s%s", what, de->d_name, backing,
                    streq_s(autoclear, "1") ? " (its detach was asked for, but it is still held open)" : "");
                snprintf(node, sizeof(node), "/dev/%s", de->d_name);
                dev = open(node, O_RDONLY | O_CLOEXEC);
                if (dev < 0) {
                        say("cannot open %s: %m", node);
                        continue;
                }
                if (ioctl(dev, LOOP_CLR_FD, 0) < 0) {
                        struct loop_info64 li;

                        if (ioctl(dev, LOOP_GET_STATUS64, &li) == 0) {
                                li.lo_flags |= LO_FLAGS_AUTOCLEAR;
                                (void) ioctl(dev, LOOP_SET_STATUS64, &li);
                        }
                        say("%s is busy: set to detach itself once released", node);
                }
        }
        return found;
}

static bool keep_dir(void) {
        const char *e = getenv("BENCHD_TEST_KEEP");

        return e && strcmp(e, "1") == 0;
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
        if (flag == FTW_DP)
                (void) rmdir(path);
        else
                (void) unlink(path);
        return 0;
}

/* ---- the keeper ---- */

static int relay(int from, int to) {
        char buf[65536];
        ssize_t n = read(from, buf, sizeof(buf));

        if (n <= 0)
                return n < 0 && (errno == EAGAIN || errno == EINTR) ? 1 : 0;
        for (ssize_t o = 0; o < n;) {
                ssize_t w = write(to, buf + o, (size_t) (n - o));
                if (w < 0) {
                        if (errno == EINTR)
                                continue;
                        break;  /* the reader went: drop it */
                }
                o += w;
        }
        return 1;
}

typedef struct Keeper {
        int sfd;
        int out, err;           /* the read ends of the test's stdout and stderr, -1 once closed */
        pid_t test;
        bool test_exited;
        int test_status;
        bool terminating;
        uint64_t kill_at;       /* when the test's group gets SIGKILL, once terminating */
} Keeper;

static void keeper_reap(Keeper *k) {
        for (;;) {
                int status;
                pid_t pid = waitpid(-1, &status, WNOHANG);

                if (pid <= 0)
                        return;
                if (pid == k->test) {
                        k->test_exited = true;
                        k->test_status = status;
                }
        }
}

static void keeper_terminate(Keeper *k, const char *why) {
        if (k->terminating || k->test_exited)
                return;
        say("%s: sending SIGTERM to the test (SIGKILL in %u s)", why, arg_grace);
        k->terminating = true;
        k->kill_at = now_msec() + (uint64_t) arg_grace * 1000;
        (void) kill(-k->test, SIGTERM);
}

/* One round of the loop: relays output, handles signals; waits at most timeout_ms. */
static void keeper_step(Keeper *k, int timeout_ms) {
        struct pollfd p[3] = {
                { .fd = k->sfd, .events = POLLIN },
                { .fd = k->out, .events = POLLIN },
                { .fd = k->err, .events = POLLIN },
        };

        if (poll(p, 3, timeout_ms) < 0 && errno != EINTR)
                return;
        if (p[0].revents & POLLIN) {
                struct signalfd_siginfo si;

                while (read(k->sfd, &si, sizeof(si)) == sizeof(si)) {
                        if (si.ssi_signo == SIGCHLD)
                                continue;
                        keeper_terminate(k, si.ssi_signo == SIGTERM ? "terminated" : strsignal((int) si.ssi_signo));
                }
        }
        if (k->out >= 0 && (p[1].revents & (POLLIN | POLLHUP)) && relay(k->out, STDOUT_FILENO) == 0)
                closep(&k->out), k->out = -1;
        if (k->err >= 0 && (p[2].revents & (POLLIN | POLLHUP)) && relay(k->err, STDERR_FILENO) == 0)
                closep(&k->err), k->err = -1;
        keeper_reap(k);
}

/* After the test's main process: ends what is left below us. Returns how many processes were
 * still there after the settling time (each named). */
static unsigned keeper_end_descendants(Keeper *k, bool report) {
        pid_t pids[512];
        uint64_t until = now_msec() + 3000;
        unsigned left = 0;
        size_t n;

        /* What the test stopped goes by itself within a moment (PR_SET_PDEATHSIG, a SIGTERM
         * already sent): wait for that, reaping, before naming anything. */
        while ((n = descendants(pids, ELEMENTSOF(pids))) > 0 && now_msec() < until)
                keeper_step(k, 50);
        if (n == 0)
                return 0;
        for (size_t i = 0; i < n; i++) {
                char desc[700];

                proc_describe(pids[i], desc, sizeof(desc));
                say("%s: %s", report ? "left behind" : "still running", desc);
                (void) kill(pids[i], SIGTERM);
        }
        left = (unsigned) n;
        until = now_msec() + 5000;
        while (descendants(pids, ELEMENTSOF(pids)) > 0 && now_msec() < until)
                keeper_step(k, 50);
        /* Then SIGKILL, round after round (killing a parent hands its children to us). */
        for (int round = 0; round < 100; round++) {
                n = descendants(pids, ELEMENTSOF(pids));
                if (n == 0)
                        break;
                for (size_t i = 0; i < n; i++)
                        (void) kill(pids[i], SIGKILL);
                keeper_step(k, 20);
        }
        n = descendants(pids, ELEMENTSOF(pids));
        for (size_t i = 0; i < n; i++) {
                char desc[700];

                proc_describe(pids[i], desc, sizeof(desc));
                say("could not end %s", desc);
        }
        return left;
}

static int keeper(char **argv, pid_t front) {
        Keeper k = { .sfd = -1, .out = -1, .err = -1 };
        int outp[2], errp[2] = { -1, -1 }, devnull;
        bool one_pipe;
        struct stat so, se;
        sigset_t mask;
        unsigned left;
        int code;

        (void) setpgid(0, 0);
        if (prctl(PR_SET_PDEATHSIG, SIGTERM) < 0 || prctl(PR_SET_CHILD_SUBREAPER, 1) < 0) {
                say("prctl: %m");
                return 1;
        }
        (void) prctl(PR_SET_NAME, "run-test-keeper");
        sigemptyset(&mask);
        sigaddset(&mask, SIGCHLD);
        sigaddset(&mask, SIGTERM);
        sigaddset(&mask, SIGINT);
        sigaddset(&mask, SIGHUP);
        sigprocmask(SIG_BLOCK, &mask, NULL);
        signal(SIGPIPE, SIG_IGN);
        k.sfd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
        if (k.sfd < 0) {
                say("signalfd: %m");
                return 1;
        }

        /* A test that ends removes the root when it is empty (below), which may fall between our
         * mkdir() of it and our mkdtemp() in it: then make it again. Ours in it keeps it. */
        for (unsigned attempt = 0;; attempt++) {
                if (mkdir(tmp_root, 0755) < 0 && errno != EEXIST) {
                        say("cannot create %s: %m", tmp_root);
                        return 1;
                }
                (void) chmod(tmp_root, 0755);
                if (snprintf(test_dir, sizeof(test_dir), "%s/%s.XXXXXX", tmp_root, arg_name) >= (int) sizeof(test_dir)) {
                        say("the test's directory under %s has too long a name", tmp_root);
                        return 1;
                }
                if (mkdtemp(test_dir))
                        break;
                if (errno != ENOENT || attempt >= 100) {
                        say("cannot create a directory in %s: %m", tmp_root);
                        return 1;
                }
        }
        /* Others may traverse it: tests run clients as nobody against sockets in here. */
        (void) chmod(test_dir, 0755);

        /* One pipe when stdout and stderr are the same file (meson's default), so that the order
         * of what the test writes to both is kept. */
        one_pipe = fstat(STDOUT_FILENO, &so) == 0 && fstat(STDERR_FILENO, &se) == 0 && so.st_dev == se.st_dev &&
                   so.st_ino == se.st_ino;
        if (pipe2(outp, O_CLOEXEC) < 0 || (!one_pipe && pipe2(errp, O_CLOEXEC) < 0)) {
                say("pipe: %m");
                return 1;
        }

        k.test = fork();
        if (k.test < 0) {
                say("fork: %m");
                return 1;
        }
        if (k.test == 0) {
                pid_t keeper_pid = getppid();

                (void) setpgid(0, 0);
                if (prctl(PR_SET_PDEATHSIG, SIGTERM) < 0 || getppid() != keeper_pid)
                        _exit(1);
                (void) prctl(PR_SET_CHILD_SUBREAPER, 0);
                signal(SIGPIPE, SIG_DFL);
                sigprocmask(SIG_UNBLOCK, &mask, NULL);
                devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
                if (devnull < 0 || dup2(devnull, STDIN_FILENO) < 0 || dup2(outp[1], STDOUT_FILENO) < 0 ||
                    dup2(one_pipe ? outp[1] : errp[1], STDERR_FILENO) < 0)
                        _exit(1);
                if (setenv("TMPDIR", test_dir, 1) < 0 || setenv("BENCHD_TEST_TMP", tmp_root, 1) < 0 ||
                    setenv("BENCHD_TEST_NAME", arg_name, 1) < 0)
                        _exit(1);
                execvp(argv[0], argv);
                fprintf(stderr, "run-test: %s: cannot run %s: %m\n", arg_name, argv[0]);
                _exit(127);
        }
        (void) setpgid(k.test, k.test);
        close(outp[1]);
        k.out = outp[0];
        if (!one_pipe) {
                close(errp[1]);
                k.err = errp[0];
        }
        (void) fcntl(k.out, F_SETFL, O_NONBLOCK);
        if (k.err >= 0)
                (void) fcntl(k.err, F_SETFL, O_NONBLOCK);
        if (getppid() != front)
                keeper_terminate(&k, "the front process is gone");

        while (!k.test_exited) {
                if (k.terminating && now_msec() >= k.kill_at) {
                        say("the test did not end within %u s of SIGTERM: SIGKILL", arg_grace);
                        (void) kill(-k.test, SIGKILL);
                        k.kill_at = UINT64_MAX;
                }
                keeper_step(&k, 200);
        }

        if (WIFEXITED(k.test_status))
                code = WEXITSTATUS(k.test_status);
        else {
                code = 128 + WTERMSIG(k.test_status);
                if (!k.terminating)
                        say("the test was killed by %s", strsignal(WTERMSIG(k.test_status)));
        }

        /* What a passing or skipped test leaves is a defect of the test; what a failed or
         * terminated one leaves is named, and ended, all the same. */
        bool report = !k.terminating && (code == 0 || code == 77);
        left = keeper_end_descendants(&k, report);
        /* Everyone below us is gone: read what they wrote to the end (within 10 s: a process
         * that could not be ended may hold the pipe). */
        for (uint64_t until = now_msec() + 10000; (k.out >= 0 || k.err >= 0) && now_msec() < until;)
                keeper_step(&k, 100);
        left += mounts_under(test_dir, report ? "left behind" : "found after the test");
        left += loops_under(test_dir, report ? "left behind" : "found after the test");

        if (keep_dir())
                say("keeping %s (BENCHD_TEST_KEEP=1)", test_dir);
        else {
                (void) nftw(test_dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS | FTW_MOUNT);
                (void) rmdir(tmp_root);         /* when no other test uses it */
        }
        if (left > 0 && report) {
                say("FAIL: the test ended with %u process(es), mount(s) or loop device(s) of its own still there", left);
                return 1;
        }
        return code;
}

/* ---- the front ---- */

static volatile sig_atomic_t front_signal;

static void front_on_signal(int sig) {
        front_signal = sig;
}

static int front(char **argv) {
        struct sigaction sa = { .sa_handler = front_on_signal };
        pid_t self = getpid(), parent = getppid(), child;
        bool forwarded = false;
        int status;

        /* Whoever started us (meson) dying is a reason to stop as well. */
        if (prctl(PR_SET_PDEATHSIG, SIGTERM) < 0 || getppid() != parent)
                return 1;
        sigemptyset(&sa.sa_mask);
        sigaction(SIGTERM, &sa, NULL);
        sigaction(SIGINT, &sa, NULL);
        sigaction(SIGHUP, &sa, NULL);

        child = fork();
        if (child < 0) {
                say("fork: %m");
                return 1;
        }
        if (child == 0) {
                signal(SIGTERM, SIG_DFL);
                signal(SIGINT, SIG_DFL);
                signal(SIGHUP, SIG_DFL);
                _exit(keeper(argv, self));
        }
        for (;;) {
                if (front_signal && !forwarded) {
                        (void) kill(child, SIGTERM);
                        forwarded = true;
                }
                if (waitpid(child, &status, 0) == child)
                        break;
                if (errno != EINTR) {
                        say("waitpid: %m");
                        return 1;
                }
        }
        return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* ---- --leftovers ---- */

/* Whether the file /proc/PID/NAME (NUL-separated strings) has a string containing needle. */
static bool proc_strings_contain(pid_t pid, const char *name, const char *needle) {
        char path[64];
        _cleanup_(fclosep) FILE *f = NULL;
        _cleanup_(freep) char *s = NULL;
        size_t len = 0;

        snprintf(path, sizeof(path), "/proc/%d/%s", (int) pid, name);
        f = fopen(path, "re");
        if (!f)
                return false;
        while (getdelim(&s, &len, 0, f) > 0)
                if (strstr(s, needle))
                        return true;
        return false;
}

static bool pid_is_ancestor(pid_t pid, const Proc *v, size_t n) {
        for (pid_t p = getpid(); p > 1;) {
                size_t i;

                if (p == pid)
                        return true;
                for (i = 0; i < n && v[i].pid != p; i++)
                        ;
                if (i == n)
                        return false;
                p = v[i].ppid;
        }
        return false;
}

/* The keepers of this build tree's tests other than our own: processes running our binary. */
static size_t other_keepers(pid_t *out, size_t max) {
        _cleanup_(freep) Proc *v = NULL;
        char self_exe[PATH_MAX];
        size_t n = 0, found = 0;
        ssize_t k;

        k = readlink("/proc/self/exe", self_exe, sizeof(self_exe) - 1);
        if (k < 0 || procs_read(&v, &n) < 0)
                return 0;
        self_exe[k] = 0;
        for (size_t i = 0; i < n && found < max; i++) {
                char path[64], exe[PATH_MAX];

                if (v[i].state == 'Z' || pid_is_ancestor(v[i].pid, v, n))
                        continue;
                snprintf(path, sizeof(path), "/proc/%d/exe", (int) v[i].pid);
                k = readlink(path, exe, sizeof(exe) - 1);
                if (k < 0)
                        continue;
                exe[k] = 0;
                if (strcmp(exe, self_exe) == 0)
                        out[found++] = v[i].pid;
        }
        return found;
}

static int leftovers(void) {
        _cleanup_(freep) Proc *v = NULL;
        _cleanup_(closedirp) DIR *d = NULL;
        char env_needle[PATH_MAX + 32], own_dir[PATH_MAX] = "";
        const char *t = getenv("TMPDIR");
        uint64_t until = now_msec() + 120 * 1000;
        unsigned left = 0;
        pid_t pids[64];
        size_t n = 0;
        struct dirent *de;

        /* Under run-test ourselves: our own directory is not a leftover. */
        if (t && path_under(t, tmp_root))
                snprintf(own_dir, sizeof(own_dir), "%s", t);

        /* A test that timed out may still be cleaning up after itself: give it time. */
        while (other_keepers(pids, ELEMENTSOF(pids)) > 0 && now_msec() < until)
                usleep(200 * 1000);
        n = other_keepers(pids, ELEMENTSOF(pids));
        for (size_t i = 0; i < n; i++) {
                char desc[700];

                proc_describe(pids[i], desc, sizeof(desc));
                say("still running after 120 s: %s", desc);
                left++;
        }

        /* Processes of this suite: the test environment, or the directory in their command line
         * (benchd's workers get a clean environment, but their database path is below it). */
        snprintf(env_needle, sizeof(env_needle), "BENCHD_TEST_TMP=%s", tmp_root);
        if (procs_read(&v, &n) == 0)
                for (size_t i = 0; i < n; i++) {
                        char desc[700];

                        if (v[i].state == 'Z' || v[i].pid == getpid() || pid_is_ancestor(v[i].pid, v, n))
                                continue;
                        if (!proc_strings_contain(v[i].pid, "environ", env_needle) &&
                            !proc_strings_contain(v[i].pid, "cmdline", tmp_root))
                                continue;
                        proc_describe(v[i].pid, desc, sizeof(desc));
                        say("left behind: %s", desc);
                        (void) kill(v[i].pid, SIGKILL);
                        left++;
                }

        left += mounts_under(tmp_root, "left behind");
        left += loops_under(tmp_root, "left behind");

        d = opendir(tmp_root);
        while (d && (de = readdir(d))) {
                char path[PATH_MAX];

                if (de->d_name[0] == '.')
                        continue;
                if (snprintf(path, sizeof(path), "%s/%s", tmp_root, de->d_name) >= (int) sizeof(path))
                        continue;
                if (own_dir[0] && path_under(own_dir, path))
                        continue;
                if (keep_dir()) {
                        say("kept (BENCHD_TEST_KEEP=1): %s", path);
                        continue;
                }
                say("left behind: %s", path);
                (void) nftw(path, rm_entry, 16, FTW_DEPTH | FTW_PHYS | FTW_MOUNT);
                left++;
        }
        if (left > 0) {
                say("FAIL: %u process(es), mount(s), loop device(s) or directories of the suite were left behind "
                    "(named above, and removed now)", left);
                return 1;
        }
        printf("no process, mount, loop device or directory of this suite is left under %s\n", tmp_root);
        return 0;
}

static void help(void) {
        printf("run-test --name NAME [--grace SECONDS] -- COMMAND [ARG...]\n"
               "run-test --leftovers\n"
               "run-test --print-root\n\n"
               "Runs a test of the suite in process groups of its own with a temporary directory of its own,\n"
               "and ends and names whatever it left behind; --leftovers checks the whole suite's;\n"
               "--print-root prints the directory the suite's temporary directories are made in.\n");
}

int main(int argc, char **argv) {
        static const struct option options[] = {
                { "name", required_argument, NULL, 'n' },
                { "grace", required_argument, NULL, 'g' },
                { "leftovers", no_argument, NULL, 'l' },
                { "print-root", no_argument, NULL, 'r' },
                { "help", no_argument, NULL, 'h' },
                {}
        };
        bool check_leftovers = false, print_root = false;
        int c, r;

        while ((c = getopt_long(argc, argv, "+", options, NULL)) >= 0)
                switch (c) {
                case 'n':
                        arg_name = optarg;
                        break;
                case 'g': {
                        char *end;
                        unsigned long g = strtoul(optarg, &end, 10);
                        if (*end || g == 0 || g > 3600) {
                                fprintf(stderr, "run-test: --grace: '%s' is not a number of seconds within 1..3600\n",
                                        optarg);
                                return 2;
                        }
                        arg_grace = (unsigned) g;
                        break;
                }
                case 'l':
                        check_leftovers = true;
                        arg_name = "test-leftovers";
                        break;
                case 'r':
                        print_root = true;
                        break;
                case 'h':
                        help();
                        return 0;
                default:
                        return 2;
                }
        if (strchr(arg_name, '/') || arg_name[0] == '.' || !arg_name[0]) {
                fprintf(stderr, "run-test: --name: '%s' is not a plain name\n", arg_name);
                return 2;
        }
        r = tmp_root_init();
        if (r < 0) {
                fprintf(stderr, "run-test: cannot find the build tree: %s\n", strerror(-r));
                return 1;
        }
        if (print_root) {
                printf("%s\n", tmp_root);
                return 0;
        }
        if (check_leftovers)
                return leftovers();
        if (optind >= argc) {
                help();
                return 2;
        }
        return front(argv + optind);
}
