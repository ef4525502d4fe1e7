/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * children.h: the children of this process, killed and reaped. Only children are ever signalled,
 * and only by a pid read from /proc as our child: a child's pid cannot be reused before we reap
 * it, and nobody else reaps our children, so no unrelated process can be hit.
 */
#include <dirent.h>
#include <errno.h>
#include <sys/syscall.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "children.h"
#include "util.h"

static bool parse_pid(const char *s, pid_t *ret) {
        long v = 0;

        if (!*s)
                return false;
        for (; *s; s++) {
                if (*s < '0' || *s > '9' || v > (long) INT32_MAX / 10)
                        return false;
                v = v * 10 + (*s - '0');
        }
        if (v <= 0)
                return false;
        *ret = (pid_t) v;
        return true;
}

/* The parent of pid from /proc/<pid>/stat ("pid (comm) state ppid ..."; comm may hold spaces and
 * parentheses, so the last ')' ends it). 0 when it is gone or unreadable. */
static pid_t parent_of(pid_t pid) {
        char path[64], buf[256], *p;
        int fd, ppid;
        ssize_t n;

        snprintf(path, sizeof(path), "/proc/%d/stat", (int) pid);
        fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return 0;
        n = read(fd, buf, sizeof(buf) - 1);
        close(fd);
        if (n <= 0)
                return 0;
        buf[n] = 0;
        p = strrchr(buf, ')');
        if (!p || sscanf(p + 1, " %*c %d", &ppid) != 1)
                return 0;
        return (pid_t) ppid;
}

int children_list(pid_t **ret, size_t *ret_n) {
        _cleanup_free_ pid_t *list = NULL;
        size_t n = 0, allocated = 0;
        pid_t self = getpid();
        struct dirent *de;
        DIR *d;

        d = opendir("/proc");
        if (!d)
                return negative_errno();
        while ((de = readdir(d))) {
                pid_t pid;

                if (!parse_pid(de->d_name, &pid) || pid == self || parent_of(pid) != self)
                        continue;
                if (n == allocated) {
                        size_t m = allocated ? allocated * 2 : 16;
                        pid_t *l = realloc(list, m * sizeof(pid_t));
                        if (!l) {
                                closedir(d);
                                return -ENOMEM;
                        }
                        list = l;
                        allocated = m;
                }
                list[n++] = pid;
        }
        closedir(d);
        *ret = TAKE_PTR(list);
        *ret_n = n;
        return 0;
}

int children_kill(const pid_t *keep, size_t n_keep, size_t *ret_reaped) {
        _cleanup_free_ pid_t *list = NULL;
        size_t n, found = 0, reaped = 0;
        int r;

        r = children_list(&list, &n);
        if (r < 0)
                return r;
        for (size_t i = 0; i < n; i++) {
                siginfo_t si = {};
                bool kept = false;

                for (size_t k = 0; k < n_keep; k++)
                        if (keep[k] == list[i])
                                kept = true;
                if (kept)
                        continue;
                found++;
                (void) kill(list[i], SIGKILL);
                if (waitid(P_PID, (id_t) list[i], &si, WEXITED | WNOHANG) == 0 && si.si_pid == list[i])
                        reaped++;
        }
        if (ret_reaped)
                *ret_reaped = reaped;
        return (int) MIN(found, (size_t) INT32_MAX);
}

int pidfd_open_sys(pid_t pid) {
        int fd = (int) syscall(SYS_pidfd_open, pid, 0);
        return fd < 0 ? negative_errno() : fd;
}
