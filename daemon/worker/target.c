/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The target side of a run: which files we create (O_EXCL|O_NOFOLLOW in the target directory,
 * named <prefix><stream>) and remove again, how a block device or user file is opened (writes only
 * when the daemon said destructive=true, and then O_EXCL), the layout that makes read phases read
 * real blocks with a cold page cache, and which block devices back the target for utilisation.
 *
 * Under a directory target nothing is looked up by path twice (fd-beneath.h): the directory is held
 * from its check on, metadata's directories from their mkdirat() on, and every file is one name
 * relative to a held directory; the removal at the end checks that a name still names what we hold
 * before it unlinks it. The target directory is the caller's (the worker may run as the caller,
 * run-as.h), so any name in it may have been renamed or replaced in between.
 *
 * What is opened is compared with what was checked (the TargetCheck, which the daemon's guard has
 * already been compared with): the same directory or file by dev+inode, the same block device by
 * dev_t and diskseq. A block device about to be written is opened O_EXCL — from then on nothing can
 * mount it, swap on it or build md/dm on it — and only then probed: holders in sysfs (blockdev.h) and
 * signatures by libblkid on the opened descriptor, so the answer is about the device we hold, not
 * about whatever a path names a moment later. Refusals on those grounds are -EPERM
 * (PROTO_ERROR_UNSAFE on the wire).
 */
#include <blkid.h>
#include <dirent.h>
#include <stdarg.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <linux/fs.h>
#include <linux/loop.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "claim.h"
#include "engine-core.h"
#include "pattern.h"
#include "shared/blockdev.h"
#include "shared/fd-beneath.h"
#include "shared/strv.h"
#include "shared/util.h"
#include "target.h"

#define LAYOUT_CHUNK (UINT64_C(1) << 20)

#define set_error(reterr, r, ...) reterr_set_once((reterr), (r), __VA_ARGS__)

static bool engine_writes(const JobSpec *spec) {
        switch (spec->workload) {
        case WORKLOAD_WRITE:
        case WORKLOAD_RANDWRITE:
        case WORKLOAD_RANDRW:
        case WORKLOAD_REWRITE:
        case WORKLOAD_SEEKS:
        case WORKLOAD_METADATA:
                return true;
        default:
                return workload_writes(spec->workload);
        }
}

/* Files in a directory target are laid out before every workload that reads or overwrites them,
 * so neither sparse holes nor first-allocation costs enter the measured phase. */
static bool needs_layout(const JobSpec *spec) {
        return spec->workload != WORKLOAD_WRITE && spec->workload != WORKLOAD_METADATA &&
               spec->workload != WORKLOAD_PUTC;
}

/* Metadata's own directory, <prefix>meta, and with dirs > 1 its subdirectories d00000, d00001, ...:
 * each opened right after its mkdirat() and held, so that everything the workload does in them is
 * relative to a descriptor (metadata.c), never to a name someone could have replaced meanwhile. */
static int open_metadata_dirs(Engine *e, const char *prefix, char **reterr) {
        const JobSpec *spec = e->spec;
        struct rlimit rl;
        bool made;
        int r;

        if (asprintf(&e->meta_dir, "%smeta", prefix) < 0)
                return -ENOMEM;
        r = mkdirat_held(e->dirfd, e->meta_dir, 0700, &e->meta_fd, &made);
        if (r < 0) {
                free(e->meta_dir);
                e->meta_dir = NULL; /* not ours, or not ours any more: never removed by name */
                if (made)
                        return set_error(reterr, -EPERM, "%s/%smeta was replaced by another %s right after the worker "
                                         "created it; refusing to use it", spec->target, prefix,
                                         r == -ELOOP ? "object (a symlink)" : "directory");
                return set_error(reterr, r, "cannot create %s/%smeta: %s", spec->target, prefix, strerror(-r));
        }
        if (spec->dirs <= 1)
                return 0;

        /* One descriptor per directory, besides the few the engine needs (spec_check_target() checked
         * the hard limit; standalone, the soft one may be lower). */
        if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
                return -errno;
        if (rl.rlim_cur != RLIM_INFINITY && (rlim_t) spec->dirs + SPEC_WORKER_FILES_RESERVE > rl.rlim_cur) {
                rl.rlim_cur = MIN(rl.rlim_max, (rlim_t) spec->dirs + SPEC_WORKER_FILES_RESERVE);
                (void) setrlimit(RLIMIT_NOFILE, &rl);
        }
        if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
                return -errno;
        if (rl.rlim_cur != RLIM_INFINITY && (rlim_t) spec->dirs + SPEC_WORKER_FILES_RESERVE > rl.rlim_cur)
                return set_error(reterr, -EMFILE, "dirs=%u needs as many open directories, and the worker may open "
                                 "%llu files (RLIMIT_NOFILE); use at most dirs=%llu", spec->dirs,
                                 (unsigned long long) rl.rlim_cur,
                                 (unsigned long long) (rl.rlim_cur > SPEC_WORKER_FILES_RESERVE ?
                                                       rl.rlim_cur - SPEC_WORKER_FILES_RESERVE : 0));
        e->meta_dir_fds = malloc(spec->dirs * sizeof(int));
        if (!e->meta_dir_fds)
                return -ENOMEM;
        for (unsigned d = 0; d < spec->dirs; d++) {
                char sub[16];

                snprintf(sub, sizeof(sub), "d%05u", d);
                r = mkdirat_held(e->meta_fd, sub, 0700, &e->meta_dir_fds[d], &made);
                if (r < 0) {
                        if (made)
                                return set_error(reterr, -EPERM, "%s/%s/%s was replaced by another %s right after the "
                                                 "worker created it; refusing to use it", spec->target, e->meta_dir,
                                                 sub, r == -ELOOP ? "object (a symlink)" : "directory");
                        return set_error(reterr, r, "cannot create %s/%s/%s: %s", spec->target, e->meta_dir, sub,
                                         strerror(-r));
                }
                e->n_meta_dir_fds = d + 1;
        }
        return 0;
}

static int open_directory_target(Engine *e, char **reterr) {
        const JobSpec *spec = e->spec;
        const char *prefix = e->opts->file_prefix ? e->opts->file_prefix : ".benchd-x-0-";
        int flags = O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC | (spec->direct ? O_DIRECT : 0);

        struct stat st;

        e->dirfd = open(spec->target, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (e->dirfd < 0)
                return set_error(reterr, -errno, "cannot open target directory %s: %m", spec->target);
        if (fstat(e->dirfd, &st) < 0)
                return -errno;
        if (st.st_dev != e->tc->dev || (e->tc->ino != 0 && st.st_ino != e->tc->ino))
                return set_error(reterr, -EPERM, "%s is another directory than the one that was checked "
                                 "(the path was replaced); refusing to use it", spec->target);

        if (spec->workload == WORKLOAD_METADATA)
                return open_metadata_dirs(e, prefix, reterr);

        for (unsigned i = 0; i < e->n_streams; i++) {
                Stream *s = &e->streams[i];
                _cleanup_free_ char *name = NULL;

                if (asprintf(&name, "%s%u", prefix, i) < 0)
                        return -ENOMEM;

                /* bonnie++'s seekers share one file, each through its own open file description:
                 * reopened from the descriptor, not from its name, which may name another by now. */
                if (spec->workload == WORKLOAD_SEEKS && i > 0) {
                        s->fd = fd_reopen(e->streams[0].fd, flags & ~(O_CREAT | O_EXCL | O_NOFOLLOW));
                        if (s->fd < 0)
                                return set_error(reterr, s->fd, "cannot reopen %s/%s: %s", spec->target,
                                                 e->streams[0].name, strerror(-s->fd));
                        s->region = spec->size;
                        continue;
                }

                s->fd = openat(e->dirfd, name, flags, 0600);
                if (s->fd < 0) {
                        int r = -errno;
                        if (r == -EINVAL && spec->direct)
                                return set_error(reterr, r, "%s does not support O_DIRECT; set direct=false",
                                                 spec->target);
                        return set_error(reterr, r, "cannot create %s/%s: %s", spec->target, name, strerror(-r));
                }
                s->name = TAKE_PTR(name);
                s->region = spec->size;

                /* fallocate=native (fio's default): the file is allocated up front, one contiguous
                 * allocation for the layout to fill, and a sequential write times the device rather
                 * than the allocator growing the file one write at a time. fallocate=none leaves
                 * that to the writes, as dd, bonnie++ and iozone do. Filesystems without fallocate
                 * just skip it. */
                if (spec->fallocate == FALLOCATE_NATIVE &&
                    fallocate(s->fd, 0, 0, (off_t) spec->size) < 0 && errno != EOPNOTSUPP && errno != ENOSYS)
                        return set_error(reterr, -errno, "cannot allocate %s/%s: %m", spec->target, s->name);
        }
        return 0;
}

/* A holder (dm, md, bcache) of dev or of one of its partitions, named into ret: 1, 0 for none.
 * The first by name when there are several. */
static int device_holder(const char *sysfs_root, dev_t dev, char *ret, size_t size) {
        _cleanup_free_ char *name = NULL;
        _cleanup_strv_free_ char **holders = NULL, **parts = NULL;
        int r;

        r = blockdev_name_from_devnum(sysfs_root, dev, &name);
        if (r < 0)
                return r;
        r = blockdev_list(sysfs_root, name, "holders", &holders);
        if (r < 0)
                return r;
        if (holders[0]) {
                snprintf(ret, size, "%s", holders[0]);
                return 1;
        }

        r = blockdev_partitions(sysfs_root, name, &parts);
        if (r < 0)
                return r;
        for (char **p = parts; *p; p++) {
                _cleanup_strv_free_ char **h = NULL;

                r = blockdev_list(sysfs_root, *p, "holders", &h);
                if (r < 0)
                        return r;
                if (h[0]) {
                        if ((size_t) snprintf(ret, size, "%s (of partition %s)", h[0], *p) >= size)
                                ret[size - 1] = 0;  /* a long name cut short still names the holder */
                        return 1;
                }
        }
        return 0;
}

/* The last word before the first write to a block device, on the descriptor we hold O_EXCL: no
 * holder, and no filesystem, RAID, LVM or partition-table signature unless marked scratch. */
static int check_exclusive_device(Engine *e, const struct stat *st, char **reterr) {
        const char *target = e->spec->target;
        char holder[256] = "";
        blkid_probe pr;
        const char *type = NULL, *pttype = NULL;
        _cleanup_free_ char *what = NULL;
        _cleanup_close_ int probe_fd = -EBADF;
        char fdpath[64];
        struct stat pst;
        int r;

        r = device_holder(e->opts->sysfs_root, st->st_rdev, holder, sizeof(holder));
        if (r > 0)
                return set_error(reterr, -EPERM, "%s is held by %s; refusing to write", target, holder);
        if (r < 0)
                return set_error(reterr, -EPERM, "cannot read the holders of %s (%s); refusing to write", target,
                                 strerror(-r));
        if (e->opts->scratch)
                return 0;

        /* libblkid reads with buffers of its own, which O_DIRECT would refuse: probe through a
         * buffered descriptor of the very inode we hold (not the path, which may name another). */
        snprintf(fdpath, sizeof(fdpath), "/proc/self/fd/%d", e->target_fd);
        probe_fd = open(fdpath, O_RDONLY | O_CLOEXEC | O_NOCTTY);
        if (probe_fd < 0)
                return set_error(reterr, -EPERM, "cannot reopen %s to probe its signatures (%m); refusing to write",
                                 target);
        if (fstat(probe_fd, &pst) < 0 || !S_ISBLK(pst.st_mode) || pst.st_rdev != st->st_rdev)
                return set_error(reterr, -EPERM, "%s: the descriptor to probe is not the device we hold; refusing "
                                 "to write", target);
        (void) posix_fadvise(probe_fd, 0, 0, POSIX_FADV_DONTNEED);
        pr = blkid_new_probe();
        if (!pr)
                return -ENOMEM;
        r = blkid_probe_set_device(pr, probe_fd, 0, 0);
        if (r == 0) {
                blkid_probe_enable_superblocks(pr, 1);
                blkid_probe_set_superblocks_flags(pr, BLKID_SUBLKS_TYPE | BLKID_SUBLKS_USAGE);
                blkid_probe_enable_partitions(pr, 1);
                blkid_probe_set_partitions_flags(pr, BLKID_PARTS_MAGIC);
                r = blkid_do_safeprobe(pr);
        }
        if (r == 0) {
                (void) blkid_probe_lookup_value(pr, "TYPE", &type, NULL);
                (void) blkid_probe_lookup_value(pr, "PTTYPE", &pttype, NULL);
                if (asprintf(&what, "%s %s", type ?: pttype ?: "unknown", type ? "signature" : "partition table") < 0)
                        what = NULL;
        }
        blkid_free_probe(pr);
        if (r == 1)
                return 0;       /* nothing found: blank */
        if (r == -2)
                return set_error(reterr, -EPERM, "%s carries several conflicting signatures; refusing to write "
                                 "(wipe it with wipefs -a, or mark it scratch)", target);
        if (r < 0)
                return set_error(reterr, -EPERM, "cannot probe %s for signatures; refusing to write", target);
        return set_error(reterr, -EPERM, "%s carries a%s %s now; refusing to write (wipe it with wipefs -a, or "
                         "mark it scratch)", target, what && strchr("aeiouxAEIOUX", what[0]) ? "n" : "",
                         what ?: "signature");
}

static int open_shared_target(Engine *e, char **reterr) {
        const JobSpec *spec = e->spec;
        bool writes = engine_writes(spec);
        bool block = e->tc->kind == TARGET_BLOCK;
        /* Symlinks are followed (/dev/disk/by-id/...); what counts is the device we end up with,
         * checked against the one that was vetted below. */
        int flags = O_CLOEXEC | (spec->direct ? O_DIRECT : 0);
        uint64_t available;
        struct stat st;

        if (spec->workload == WORKLOAD_METADATA || workload_per_char(spec->workload))
                return set_error(reterr, -EINVAL, "the %s workload needs a directory target, %s is not one",
                                 workload_to_string(spec->workload), spec->target);
        if (writes && !spec->destructive)
                return set_error(reterr, -EPERM,
                                 "workload %s writes to %s, which is not a directory we own files in; "
                                 "refusing without destructive=true",
                                 workload_to_string(spec->workload), spec->target);

        /* A writer holds the device exclusively (claim.h), so nothing mounts it under our feet. */
        flags |= writes ? O_RDWR : O_RDONLY;
        if (writes && block) {
                _cleanup_free_ char *why = NULL;

                e->target_fd = claim_open(spec->target, flags, NULL, &why);
                if (e->target_fd == -EBUSY)
                        return set_error(reterr, -EPERM, "%s is in use (%s): it cannot be opened exclusively; "
                                         "refusing to write", spec->target, why);
                if (e->target_fd < 0)
                        return set_error(reterr, e->target_fd, "cannot open %s: %s", spec->target,
                                         strerror(-e->target_fd));
        } else {
                e->target_fd = open(spec->target, flags);
                if (e->target_fd < 0)
                        return set_error(reterr, -errno, "cannot open %s: %m", spec->target);
        }
        if (fstat(e->target_fd, &st) < 0)
                return -errno;
        if (block ? !S_ISBLK(st.st_mode) || st.st_rdev != e->tc->dev
                  : !S_ISREG(st.st_mode) || st.st_dev != e->tc->dev || (e->tc->ino != 0 && st.st_ino != e->tc->ino))
                return set_error(reterr, -EPERM, "%s changed after it was checked (the path now names another "
                                 "%s); refusing to use it", spec->target, block ? "device" : "file");
        if (block && writes) {
                int r = check_exclusive_device(e, &st, reterr);
                if (r < 0)
                        return r;
        }

        if (block) {
                if (ioctl(e->target_fd, BLKGETSIZE64, &available) < 0)
                        return set_error(reterr, -errno, "cannot read the size of %s: %m", spec->target);
        } else
                available = (uint64_t) st.st_size;

        if (spec->workload == WORKLOAD_POSITION) {
                /* Its offsets span the whole device, whatever size says: size is per offset. */
                if (!block)
                        return set_error(reterr, -EINVAL, "workload position measures a block device's surface; "
                                         "%s is not one: give a block device as target", spec->target);
                if (position_plan_init(&e->position_plan, available, spec->positions, spec->size, spec->block_size,
                                       spec->direct ? e->tc->dio_align : 1) < 0)
                        return set_error(reterr, -EINVAL, "%s holds %" PRIu64 " bytes, fewer than positions=%" PRIu32
                                         " blocks of %" PRIu64 " bytes; use fewer positions or a smaller block_size",
                                         spec->target, available, spec->positions, spec->block_size);
                e->streams[0].fd = e->target_fd;
                e->streams[0].region = available;
                return 0;
        }

        if (available < spec->size && !(writes && !block))
                return set_error(reterr, -EINVAL, "%s holds %" PRIu64 " bytes, fewer than size=%" PRIu64
                                 "; use a smaller size", spec->target, available, spec->size);

        for (unsigned i = 0; i < e->n_streams; i++) {
                e->streams[i].fd = e->target_fd;
                e->streams[i].region = spec->size;
        }
        return 0;
}

int target_open(Engine *e, char **reterr) {
        if (e->spec->workload == WORKLOAD_POSITION && e->tc->kind != TARGET_BLOCK)
                return set_error(reterr, -EINVAL, "workload position measures a block device's surface; %s is "
                                 "not one: give a block device as target", e->spec->target);
        if (e->tc->kind == TARGET_DIRECTORY)
                return open_directory_target(e, reterr);
        return open_shared_target(e, reterr);
}

/* The whole of len bytes at offset, through short transfers and EINTR; EOF is -EIO. */
static int io_all_at(int fd, void *buf, size_t len, uint64_t offset, bool write) {
        size_t done = 0;
        while (done < len) {
                ssize_t n = write ? pwrite(fd, (uint8_t *) buf + done, len - done, (off_t) (offset + done))
                                  : pread(fd, (uint8_t *) buf + done, len - done, (off_t) (offset + done));
                if (n < 0) {
                        if (errno == EINTR)
                                continue;
                        return -errno;
                }
                if (n == 0)
                        return -EIO;
                done += (size_t) n;
        }
        return 0;
}

/* The layout writes (and reread's first pass reads) in chunks of 1 MiB, a multiple of the block
 * size, when its pages are dropped before the measured phase. With invalidate=false the measured
 * phase finds what the layout left in the page cache, as the tool's test finds what its previous
 * test left (bonnie++'s Rewrite its block write's, iozone's read its write's): then the layout goes
 * block_size at a time as the tool's test does, since the size of each write decides the size of
 * the folios it leaves (an 8K write leaves 8K folios, a 1M write large ones), and with it what the
 * measured phase finds cached and what evicting it costs. */
static uint64_t layout_chunk(const JobSpec *spec) {
        if (!spec->invalidate)
                return spec->block_size;
        return spec->block_size >= LAYOUT_CHUNK ? spec->block_size : LAYOUT_CHUNK / spec->block_size * spec->block_size;
}

static int file_layout(Engine *e, Stream *s, void *buf, uint64_t chunk, char **reterr) {
        const JobSpec *spec = e->spec;
        int r;

        for (uint64_t off = 0; off < s->region; off += chunk) {
                size_t len = (size_t) MIN(chunk, s->region - off);
                if (engine_aborted(e))
                        return set_error(reterr, -ECANCELED, "stopped during layout");
                pattern_refresh(buf, len, spec->pattern, spec->compress_pct, &s->rng);
                r = io_all_at(s->fd, buf, len, off, true);
                if (r < 0)
                        return set_error(reterr, r, "laying out %s/%s failed at offset %" PRIu64 ": %s",
                                         spec->target, s->name, off, strerror(-r));
        }
        if (fsync(s->fd) < 0)
                return set_error(reterr, -errno, "fsync of %s/%s failed: %m", spec->target, s->name);
        return 0;
}

static int read_pass(Engine *e, int fd, uint64_t region, void *buf, uint64_t chunk, char **reterr) {
        for (uint64_t off = 0; off < region; off += chunk) {
                if (engine_aborted(e))
                        return set_error(reterr, -ECANCELED, "stopped during the first read pass");
                int r = io_all_at(fd, buf, (size_t) MIN(chunk, region - off), off, false);
                if (r < 0)
                        return set_error(reterr, r, "first read pass failed at offset %" PRIu64 ": %s", off,
                                         strerror(-r));
        }
        return 0;
}

static void drop_cache(Engine *e, int fd) {
        if (e->tc->kind == TARGET_BLOCK && ioctl(fd, BLKFLSBUF, 0) < 0)
                engine_log(e, 4, "BLKFLSBUF on %s failed (%m); reads may be served from the page cache",
                           e->spec->target);
        (void) posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
}

int target_layout(Engine *e, char **reterr) {
        const JobSpec *spec = e->spec;
        _cleanup_free_ void *buf = NULL;
        uint64_t chunk = layout_chunk(spec);
        bool layout = e->tc->kind == TARGET_DIRECTORY && needs_layout(spec);
        bool reread = spec->workload == WORKLOAD_REREAD;
        int r;

        if (spec->workload == WORKLOAD_METADATA)
                return 0;

        if (layout || reread) {
                r = engine_phase(e, "layout");
                if (r < 0)
                        return set_error(reterr, r, "the result channel failed");
        }
        if (posix_memalign(&buf, 4096, chunk) != 0)
                return -ENOMEM;
        pattern_fill(buf, chunk, spec->pattern, spec->compress_pct, &e->streams[0].rng);

        for (unsigned i = 0; i < e->n_streams; i++) {
                Stream *s = &e->streams[i];
                if (layout && s->name) {
                        r = file_layout(e, s, buf, chunk, reterr);
                        if (r < 0)
                                return r;
                }
        }

        /* Cold cache for the measured phase (invalidate=false keeps what the layout left, as
         * iozone's read tests find the file its write test wrote); then reread warms it on
         * purpose (iozone -i 1's second pass), which a direct run makes moot. */
        for (unsigned i = 0; spec->invalidate && i < e->n_streams; i++)
                if (e->streams[i].fd >= 0 && (i == 0 || e->streams[i].fd != e->streams[0].fd))
                        drop_cache(e, e->streams[i].fd);

        if (reread)
                for (unsigned i = 0; i < e->n_streams; i++) {
                        Stream *s = &e->streams[i];
                        if (i > 0 && s->fd == e->streams[0].fd)
                                break;
                        r = read_pass(e, s->fd, s->region, buf, chunk, reterr);
                        if (r < 0)
                                return r;
                }
        return 0;
}

/* Unlinks every entry of a directory we made and hold (the files the workload made in it);
 * directories in it are left to remove_held_dir(). */
static void remove_entries(int fd) {
        int list_fd = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        struct dirent *de;
        DIR *d;

        if (list_fd < 0)
                return;
        d = fdopendir(list_fd);
        if (!d) {
                close(list_fd);
                return;
        }
        while ((de = readdir(d)))
                if (!streq(de->d_name, ".") && !streq(de->d_name, "..") && de->d_type != DT_DIR)
                        (void) unlinkat(fd, de->d_name, 0);
        closedir(d);
}

/* Removes the directory name in parent while it is still the one fd holds (someone may have
 * renamed ours away and put another in its place: that one is not ours). */
static void remove_held_dir(int parent, const char *name, int fd) {
        if (fd_is_entry(fd, parent, name) > 0)
                (void) unlinkat(parent, name, AT_REMOVEDIR);
}

void target_cleanup(Engine *e) {
        for (unsigned i = 0; i < e->n_streams; i++) {
                Stream *s = &e->streams[i];
                /* Our file while the name still names the file we hold. */
                bool ours = s->name && e->dirfd >= 0 && s->fd >= 0 && s->fd != e->target_fd &&
                            fd_is_entry(s->fd, e->dirfd, s->name) > 0;

                if (s->fd >= 0 && s->fd != e->target_fd)
                        close(s->fd);
                s->fd = -1;
                if (ours)
                        (void) unlinkat(e->dirfd, s->name, 0);
        }
        if (e->target_fd >= 0)
                close(e->target_fd);
        e->target_fd = -1;

        for (unsigned d = 0; d < e->n_meta_dir_fds; d++) {
                char sub[16];

                snprintf(sub, sizeof(sub), "d%05u", d);
                remove_entries(e->meta_dir_fds[d]);
                remove_held_dir(e->meta_fd, sub, e->meta_dir_fds[d]);
                close(e->meta_dir_fds[d]);
        }
        free(e->meta_dir_fds);
        e->meta_dir_fds = NULL;
        e->n_meta_dir_fds = 0;
        if (e->meta_fd >= 0) {
                remove_entries(e->meta_fd);
                if (e->meta_dir && e->dirfd >= 0)
                        remove_held_dir(e->dirfd, e->meta_dir, e->meta_fd);
                close(e->meta_fd);
        }
        e->meta_fd = -1;
        free(e->meta_dir);
        e->meta_dir = NULL;
        if (e->dirfd >= 0)
                close(e->dirfd);
        e->dirfd = -1;
}

/* The source device of the mount whose st_dev is dev (btrfs and other filesystems report an
 * anonymous st_dev; the mount table still names the device). */
static int mount_source_devnum(dev_t dev, dev_t *ret) {
        _cleanup_fclose_ FILE *f = fopen("/proc/self/mountinfo", "re");
        _cleanup_free_ char *line = NULL;
        size_t size = 0;

        if (!f)
                return -errno;
        while (getline(&line, &size, f) > 0) {
                unsigned maj, min;
                char source[4096];
                const char *sep;
                struct stat st;

                if (sscanf(line, "%*u %*u %u:%u", &maj, &min) != 2 || makedev(maj, min) != dev)
                        continue;
                sep = strstr(line, " - ");
                if (!sep || sscanf(sep + 3, "%*s %4095s", source) != 1)
                        continue;
                if (strncmp(source, "/dev/", 5) != 0 || stat(source, &st) < 0 || !S_ISBLK(st.st_mode))
                        continue;
                *ret = st.st_rdev;
                return 0;
        }
        return -ENOENT;
}

/* The devices at the bottom of the filesystem that holds a loop device's backing file, appended
 * to *list (each once): the device the loop ioctl names (its st_dev, as LOOP_GET_STATUS64 gives
 * it, so no path is looked up in whatever mount namespace the worker is in), through the mount
 * table for an anonymous st_dev (btrfs). A loop device over a file on tmpfs has none. */
static int loop_backing_leaves(const char *root, const char *name, char ***list) {
        _cleanup_free_ char *backing = NULL, *node = NULL, *bname = NULL;
        _cleanup_strv_free_ char **leaves = NULL;
        _cleanup_close_ int fd = -EBADF;
        struct loop_info64 info;
        struct stat st;
        dev_t want, dev;
        int r;

        if (blockdev_read(root, name, "loop/backing_file", &backing) < 0)
                return 0;       /* not a loop device, or not bound */
        if (blockdev_devnum(root, name, &want) < 0 || asprintf(&node, "/dev/%s", name) < 0)
                return 0;
        fd = open(node, O_RDONLY | O_CLOEXEC | O_NOCTTY);
        if (fd < 0 || fstat(fd, &st) < 0 || !S_ISBLK(st.st_mode) || st.st_rdev != want ||
            ioctl(fd, LOOP_GET_STATUS64, &info) < 0)
                return 0;
        /* The kernel's huge_encode_dev(): minor's low byte, the major, the rest of the minor. */
        dev = makedev((unsigned) ((info.lo_device >> 8) & 0xfff),
                      (unsigned) ((info.lo_device & 0xff) | ((info.lo_device >> 12) & 0xfff00)));
        if (blockdev_name_from_devnum(root, dev, &bname) < 0) {
                dev_t source;
                if (mount_source_devnum(dev, &source) < 0 || blockdev_name_from_devnum(root, source, &bname) < 0)
                        return 0;
        }
        r = blockdev_leaves(root, bname, &leaves);
        if (r < 0)
                return r;
        for (char **l = leaves; *l; l++)
                if (!strv_contains(*list, *l)) {
                        r = strv_push(list, *l);
                        if (r < 0)
                                return r;
                }
        return 0;
}

int target_resolve_devices(Engine *e) {
        const char *root = e->opts->sysfs_root;
        _cleanup_free_ char *name = NULL;
        char **leaves = NULL;
        dev_t dev = e->tc->dev;
        int r;

        r = blockdev_name_from_devnum(root, dev, &name);
        if (r < 0 && e->tc->kind != TARGET_BLOCK) {
                dev_t source;
                if (mount_source_devnum(dev, &source) >= 0)
                        r = blockdev_name_from_devnum(root, source, &name);
        }
        if (r < 0)
                return r;

        r = blockdev_leaves(root, name, &leaves);
        if (r < 0)
                return r;
        e->leaves = leaves;
        for (e->n_leaves = 0; leaves[e->n_leaves]; e->n_leaves++)
                ;

        /* A loop device's counters say what reached its backing file, not whether that reached a
         * disk: the disks under the backing files tell the host's page cache (and a sparse image's
         * holes) from the device. */
        for (unsigned i = 0; i < e->n_leaves; i++) {
                r = loop_backing_leaves(root, e->leaves[i], &e->backing);
                if (r < 0)
                        return r;
        }
        e->n_backing = (unsigned) strv_length(e->backing);
        return 0;
}
