/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Opening beneath a held directory (fd-beneath.h): openat2() with the RESOLVE_ flags where the
 * kernel has it, a walk with O_NOFOLLOW per component where it does not.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "shared/fd-beneath.h"
#include "shared/util.h"

#define RESOLVE_ALL (RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS | RESOLVE_NO_XDEV)

/* Set once openat2() was found missing: the walk from then on. */
static atomic_bool no_openat2;

int openat_beneath_walk(int dirfd, const char *path, int flags, mode_t mode) {
        _cleanup_free_ char *copy = NULL;
        _cleanup_close_ int cur = -EBADF;
        struct stat top, st;
        char *save = NULL, *comp, *next;
        int at = dirfd, fd;

        if (!path || !*path)
                return -ENOENT;
        if (path[0] == '/')
                return -EXDEV;
        copy = strdup(path);
        if (!copy)
                return -ENOMEM;
        if (fstat(dirfd, &top) < 0)
                return -errno;

        comp = strtok_r(copy, "/", &save);
        if (!comp)
                comp = (char *) ".";
        for (;; comp = next) {
                next = strtok_r(NULL, "/", &save);
                if (streq(comp, ".."))
                        return -EXDEV;
                if (!next)
                        break;
                if (streq(comp, "."))
                        continue;
                fd = openat(at, comp, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
                if (fd < 0) {
                        int r = -errno;
                        /* O_PATH | O_NOFOLLOW opens a symlink itself, which O_DIRECTORY refuses. */
                        if (r == -ENOTDIR && fstatat(at, comp, &st, AT_SYMLINK_NOFOLLOW) >= 0 && S_ISLNK(st.st_mode))
                                return -ELOOP;
                        return r;
                }
                closep(&cur);
                cur = fd;
                at = cur;
                if (fstat(at, &st) < 0)
                        return -errno;
                if (st.st_dev != top.st_dev)
                        return -EXDEV;
        }

        fd = openat(at, comp, flags | O_NOFOLLOW | O_CLOEXEC, mode);
        if (fd < 0) {
                int r = -errno;
                /* O_NOFOLLOW on a symlink gives ELOOP, but with O_DIRECTORY ENOTDIR (and with O_PATH the
                 * link itself, below): a symlink is ELOOP, as openat2() says. */
                if (r == -ENOTDIR && fstatat(at, comp, &st, AT_SYMLINK_NOFOLLOW) >= 0 && S_ISLNK(st.st_mode))
                        return -ELOOP;
                return r;
        }
        if (fstat(fd, &st) < 0) {
                int r = -errno;
                close(fd);
                return r;
        }
        if (S_ISLNK(st.st_mode) || st.st_dev != top.st_dev) {
                close(fd);
                return S_ISLNK(st.st_mode) ? -ELOOP : -EXDEV;
        }
        return fd;
}

int openat_beneath(int dirfd, const char *path, int flags, mode_t mode) {
        struct open_how how = {
                .flags = (uint64_t) (flags | O_CLOEXEC),
                .mode = (flags & (O_CREAT | O_TMPFILE)) ? mode : 0,
                .resolve = RESOLVE_ALL,
        };
        int fd;

        if (!path || !*path)
                return -ENOENT;
        if (!atomic_load(&no_openat2)) {
                fd = (int) syscall(SYS_openat2, dirfd, path, &how, sizeof(how));
                if (fd >= 0)
                        return fd;
                /* EPERM: a seccomp filter that does not know it (systemd's answers so). A real EPERM
                 * comes back from the walk as well. */
                if (errno != ENOSYS && errno != EPERM)
                        return -errno;
                if (errno == ENOSYS)
                        atomic_store(&no_openat2, true);
        }
        return openat_beneath_walk(dirfd, path, flags, mode);
}

int mkdirat_held(int dirfd, const char *name, mode_t mode, int *ret_fd, bool *ret_made) {
        _cleanup_close_ int fd = -EBADF, list_fd = -EBADF;
        struct dirent *de;
        struct stat st;
        DIR *d;
        int r = 0;

        *ret_made = false;
        if (!name || !*name || strchr(name, '/') || streq(name, ".") || streq(name, ".."))
                return -EINVAL;
        if (mkdirat(dirfd, name, mode) < 0)
                return -errno;
        *ret_made = true;

        fd = openat_beneath(dirfd, name, O_RDONLY | O_DIRECTORY, 0);
        if (fd < 0)
                return fd == -ENOTDIR ? -ESTALE : fd;
        if (fstat(fd, &st) < 0)
                return -errno;
        if (!S_ISDIR(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 0077) != 0)
                return -ESTALE;

        /* Empty: not someone's directory renamed into its place. */
        list_fd = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (list_fd < 0)
                return -errno;
        d = fdopendir(list_fd);
        if (!d)
                return -errno;
        TAKE_FD(list_fd);
        while ((errno = 0, de = readdir(d)))
                if (!streq(de->d_name, ".") && !streq(de->d_name, "..")) {
                        r = -ESTALE;
                        break;
                }
        if (!de && errno != 0)
                r = -errno;
        closedir(d);
        if (r < 0)
                return r;

        *ret_fd = TAKE_FD(fd);
        return 0;
}

int fd_reopen(int fd, int flags) {
        char path[64];
        struct stat a, b;
        int nfd;

        if (fstat(fd, &a) < 0)
                return -errno;
        snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
        nfd = open(path, flags | O_CLOEXEC);
        if (nfd < 0)
                return -errno;
        if (fstat(nfd, &b) < 0 || a.st_dev != b.st_dev || a.st_ino != b.st_ino) {
                close(nfd);
                return -ESTALE;
        }
        return nfd;
}

int fd_is_entry(int fd, int dirfd, const char *name) {
        struct stat a, b;

        if (fstat(fd, &a) < 0)
                return -errno;
        if (fstatat(dirfd, name, &b, AT_SYMLINK_NOFOLLOW) < 0)
                return errno == ENOENT ? 0 : -errno;
        return a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}
