/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A directory whose lookups hang in the kernel until the test answers them, as a path across a hung
 * NFS automount does: for the tests of checks that must stay off the event loop
 * (test-verdict-query --root). Two ways to make one, whichever the kernel has:
 *
 *   autofs  an indirect autofs mount whose daemon is us: a lookup of NAME by a process outside the
 *           daemon's process group sleeps in autofs_wait until the daemon says the mount is ready
 *           or failed. The "daemon" process group is a child that only sleeps (and dies with its
 *           parent); we read the requests from the pipe and answer them with ioctls.
 *   fuse    a FUSE filesystem whose server is us, on /dev/fuse without libfuse (the protocol is
 *           small: INIT, then LOOKUP of NAME, GETATTR of the root, INTERRUPT when a waiting process
 *           is killed); a lookup waits in request_wait_answer until we reply.
 *
 * Both are mounted in a mount namespace of the test process (unshare(CLONE_NEWNS) in the forked
 * case), which goes with it. BENCHD_TEST_HANG=autofs or =fuse makes the other one count as missing,
 * so that either can be made to run where the kernel has both.
 *
 * Needs root. The caller runs the checks in other processes: a lookup by the test process itself
 * (the FUSE server) would wait for itself.
 */
#pragma once

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/auto_fs.h>
#include <linux/fuse.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check-util.h"
#include "shared/util.h"

typedef enum HangKind {
        HANG_AUTOFS,
        HANG_FUSE,
} HangKind;

static inline const char *hang_kind_name(HangKind kind) {
        return kind == HANG_AUTOFS ? "autofs" : "fuse";
}

/* Why the machine cannot make a hang of this kind, on one line; NULL when it can. */
static inline const char *hang_missing(HangKind kind) {
        const char *want = getenv("BENCHD_TEST_HANG");
        const char *name = hang_kind_name(kind);

        if (want && *want && strcmp(want, name) != 0)
                return kind == HANG_AUTOFS ? "BENCHD_TEST_HANG selects another kind of hang than autofs" :
                                             "BENCHD_TEST_HANG selects another kind of hang than FUSE";
        if (geteuid() != 0)
                return "needs root (a mount in a mount namespace of its own)";
        /* A filesystem built as a module is listed once loaded: mount(2) would load it, so may we. */
        if (!check_have_filesystem(name))
                (void) !system(kind == HANG_AUTOFS ? "modprobe -q autofs4 2>/dev/null" : "modprobe -q fuse 2>/dev/null");
        if (!check_have_filesystem(name))
                return kind == HANG_AUTOFS ? "the kernel has no autofs (not in /proc/filesystems, no module)" :
                                             "the kernel has no fuse filesystem (not in /proc/filesystems, no module)";
        if (kind == HANG_FUSE && access("/dev/fuse", R_OK | W_OK) < 0)
                return "no /dev/fuse to serve a FUSE filesystem from";
        return NULL;
}

typedef struct Hang {
        HangKind kind;
        char root[PATH_MAX];
        int fd;                 /* autofs: the read end of the request pipe; fuse: /dev/fuse */
        int root_fd;            /* autofs: the mount's root, for the ioctls */
        pid_t oz;               /* autofs: the daemon's process group */
} Hang;

/* A lookup waiting for our answer. */
typedef struct HangRequest {
        uint64_t token;         /* autofs: the wait queue token; fuse: the request's unique id */
        char name[NAME_MAX + 1];
        pid_t pid;              /* the process that waits */
} HangRequest;

typedef enum HangEvent {
        HANG_NONE,              /* nothing to read (nonblocking) */
        HANG_LOOKUP,            /* a lookup waits: answer it with hang_fail() (or let it wait) */
        HANG_INTERRUPT,         /* fuse: the process waiting in the lookup `token` was signalled */
} HangEvent;

#define HANG_FUSE_BUFFER (FUSE_MIN_READ_BUFFER + 65536)

static inline void hang_fuse_reply(Hang *h, uint64_t unique, int error, const void *payload, size_t size) {
        struct fuse_out_header out = {
                .len = (uint32_t) (sizeof(out) + size),
                .error = error,
                .unique = unique,
        };
        struct iovec iov[2] = { { &out, sizeof(out) }, { (void *) payload, size } };
        ssize_t n = writev(h->fd, iov, payload ? 2 : 1);

        /* ENOENT: the request is gone (its process was killed before we answered). */
        ck_assert_msg(n == (ssize_t) out.len || (n < 0 && errno == ENOENT), "reply to FUSE request %llu: %zd (%m)",
                      (unsigned long long) unique, n);
}

static inline void hang_fuse_root_attr(struct fuse_attr *a) {
        *a = (struct fuse_attr) {
                .ino = FUSE_ROOT_ID,
                .mode = S_IFDIR | 0755,
                .nlink = 2,
                .blksize = 4096,
        };
}

/* Reads one request; answers what is not a lookup by itself. */
static inline HangEvent hang_fuse_next(Hang *h, bool nonblock, HangRequest *ret) {
        _cleanup_free_ uint8_t *buf = malloc(HANG_FUSE_BUFFER);

        ck_assert_ptr_nonnull(buf);
        for (;;) {
                const struct fuse_in_header *in = (const struct fuse_in_header *) buf;
                const void *arg = buf + sizeof(*in);
                ssize_t n;

                ck_assert_int_eq(fcntl(h->fd, F_SETFL, nonblock ? O_NONBLOCK : 0), 0);
                n = read(h->fd, buf, HANG_FUSE_BUFFER);
                if (n < 0 && (errno == EINTR || errno == ENOENT))
                        continue;       /* ENOENT: a request that went away while we read */
                if (n < 0 && nonblock && errno == EAGAIN)
                        return HANG_NONE;
                ck_assert_msg(n >= (ssize_t) sizeof(*in), "read /dev/fuse: %zd (%m)", n);

                switch (in->opcode) {
                case FUSE_INIT: {
                        const struct fuse_init_in *ii = arg;
                        struct fuse_init_out o = {
                                .major = FUSE_KERNEL_VERSION,
                                .minor = MIN(ii->minor, (uint32_t) FUSE_KERNEL_MINOR_VERSION),
                                .max_readahead = ii->max_readahead,
                                .max_write = 4096,
                                .time_gran = 1,
                        };
                        ck_assert_uint_eq(ii->major, FUSE_KERNEL_VERSION);
                        hang_fuse_reply(h, in->unique, 0, &o, sizeof(o));
                        break;
                }
                case FUSE_LOOKUP:
                        ck_assert_uint_eq(in->nodeid, FUSE_ROOT_ID);
                        *ret = (HangRequest) { .token = in->unique, .pid = (pid_t) in->pid };
                        snprintf(ret->name, sizeof(ret->name), "%.*s", (int) MIN((size_t) n - sizeof(*in),
                                 (size_t) NAME_MAX), (const char *) arg);
                        return HANG_LOOKUP;
                case FUSE_INTERRUPT:
                        *ret = (HangRequest) { .token = ((const struct fuse_interrupt_in *) arg)->unique,
                                               .pid = (pid_t) in->pid };
                        return HANG_INTERRUPT;
                case FUSE_GETATTR: {
                        struct fuse_attr_out o = {};

                        if (in->nodeid != FUSE_ROOT_ID) {
                                hang_fuse_reply(h, in->unique, -ENOENT, NULL, 0);
                                break;
                        }
                        hang_fuse_root_attr(&o.attr);
                        hang_fuse_reply(h, in->unique, 0, &o, sizeof(o));
                        break;
                }
                case FUSE_FORGET:
                case FUSE_BATCH_FORGET:
                        break;          /* no reply */
                default:
                        hang_fuse_reply(h, in->unique, -ENOSYS, NULL, 0);
                }
        }
}

static inline HangEvent hang_autofs_next(Hang *h, bool nonblock, HangRequest *ret) {
        union autofs_v5_packet_union pkt;
        ssize_t n;

        ck_assert_int_eq(fcntl(h->fd, F_SETFL, nonblock ? O_NONBLOCK : 0), 0);
        n = read(h->fd, &pkt, sizeof(pkt));
        if (n < 0 && nonblock && errno == EAGAIN)
                return HANG_NONE;
        ck_assert_msg(n == (ssize_t) sizeof(pkt.v5_packet), "autofs request: %zd bytes (%m)", n);
        ck_assert_int_eq(pkt.hdr.type, autofs_ptype_missing_indirect);
        ck_assert_uint_le(pkt.v5_packet.len, NAME_MAX);
        *ret = (HangRequest) { .token = pkt.v5_packet.wait_queue_token, .pid = (pid_t) pkt.v5_packet.pid };
        memcpy(ret->name, pkt.v5_packet.name, pkt.v5_packet.len);
        ret->name[pkt.v5_packet.len] = 0;
        return HANG_LOOKUP;
}

/* The next request (blocking unless nonblock). */
static inline HangEvent hang_next(Hang *h, bool nonblock, HangRequest *ret) {
        return h->kind == HANG_AUTOFS ? hang_autofs_next(h, nonblock, ret) : hang_fuse_next(h, nonblock, ret);
}

/* Answers a waiting lookup (or, fuse, the lookup an INTERRUPT named): the name does not exist. */
static inline void hang_fail(Hang *h, const HangRequest *r) {
        if (h->kind == HANG_AUTOFS)
                ck_assert_msg(ioctl(h->root_fd, AUTOFS_IOC_FAIL, (unsigned long) r->token) == 0, "AUTOFS_IOC_FAIL: %m");
        else
                hang_fuse_reply(h, r->token, -ENOENT, NULL, 0);
}

/* Mounts the hang at dir/hang, in a mount namespace of the calling process. */
static inline void hang_setup(Hang *h, HangKind kind, const char *dir) {
        char opts[128];

        *h = (Hang) { .kind = kind, .fd = -EBADF, .root_fd = -EBADF };
        ck_assert_msg(unshare(CLONE_NEWNS) == 0, "unshare: %m");
        /* A type, though it is not used: valgrind takes NULL for a bad pointer. */
        ck_assert_msg(mount("none", "/", "none", MS_REC | MS_PRIVATE, NULL) == 0, "mount --make-rprivate /: %m");
        ck_assert_int_lt(snprintf(h->root, sizeof(h->root), "%s/hang", dir), (int) sizeof(h->root));
        ck_assert_int_eq(mkdir(h->root, 0755), 0);

        if (kind == HANG_FUSE) {
                HangRequest r;

                h->fd = open("/dev/fuse", O_RDWR | O_CLOEXEC);
                ck_assert_msg(h->fd >= 0, "open /dev/fuse: %m");
                snprintf(opts, sizeof(opts), "fd=%d,rootmode=40000,user_id=0,group_id=0,allow_other", h->fd);
                ck_assert_msg(mount("benchd-test", h->root, "fuse", MS_NOSUID | MS_NODEV, opts) == 0,
                              "mount -t fuse: %m");
                /* The kernel's INIT comes first; nothing else is asked before it is answered. */
                ck_assert_int_eq(hang_next(h, true, &r), HANG_NONE);
                return;
        }

        int p[2];
        pid_t parent = getpid();

        ck_assert_int_eq(pipe2(p, O_CLOEXEC), 0);
        h->oz = fork();
        ck_assert_int_ge(h->oz, 0);
        if (h->oz == 0) {
                (void) setpgid(0, 0);
                if (!check_die_with_parent(parent))
                        _exit(EXIT_FAILURE);
                for (;;)
                        pause();
        }
        /* From this side too, so that the group exists before the mount names it. */
        (void) setpgid(h->oz, h->oz);
        snprintf(opts, sizeof(opts), "fd=%d,pgrp=%d,minproto=5,maxproto=5,indirect", p[1], (int) h->oz);
        if (mount("benchd-test", h->root, "autofs", 0, opts) < 0) {
                int e = errno;
                (void) kill(h->oz, SIGKILL);
                (void) waitpid(h->oz, NULL, 0);
                ck_abort_msg("mount -t autofs: %s", strerror(e));
        }
        close(p[1]);
        h->fd = p[0];
        h->root_fd = open(h->root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        ck_assert_int_ge(h->root_fd, 0);
}

static inline void hang_teardown(Hang *h) {
        if (h->kind == HANG_AUTOFS) {
                /* Catatonic: every waiting lookup fails, and so does every new one. */
                (void) ioctl(h->root_fd, AUTOFS_IOC_CATATONIC, 0);
                close(h->root_fd);
        }
        /* fuse: closing the device aborts the connection; whatever waits gets ENOTCONN. */
        close(h->fd);
        (void) umount2(h->root, MNT_DETACH);
        if (h->oz > 0) {
                (void) kill(h->oz, SIGKILL);
                (void) waitpid(h->oz, NULL, 0);
        }
}
