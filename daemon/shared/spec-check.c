/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Checks a finalized JobSpec against the running system: what kind of thing the target is and
 * whether the workload may touch it, the direct-I/O alignment the target needs, and whether the
 * files benchd would create fit. Runs in benchd at SubmitJob (so nothing doomed is queued), again
 * at every step start, and in benchd-worker before any I/O, which is why it is separate from the
 * pure spec.c. The identity it records (kind, dev+inode or dev_t+diskseq) is what
 * target_check_same() compares: a path that resolves to another object at step start than at
 * SubmitJob is refused, whatever the new object is.
 *
 * The target path itself may be a symlink (/dev/disk/by-id/...), so it is stat()ed, following
 * links; the kind is decided on what it resolves to. The final word on whether a block device may
 * be written (mounted, held, signatures) is the daemon's device verdict, not ours.
 *
 * spec_check_matrix() asks the same of a filesystem matrix: are mkfs.<fs>, the kernel's filesystem
 * and the layout's machinery (md, LVM) here, and are the devices distinct block devices.
 */

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <linux/fs.h>
#include <linux/magic.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/sysmacros.h>
#include <sys/utsname.h>
#include <unistd.h>
#include <sys/vfs.h>

#include "blockdev.h"
#include "format.h"
#include "fs-entry.h"
#include "spec-check.h"
#include "spec-internal.h"
#include "util.h"

#define MARGIN_MIN (UINT64_C(64) << 20)
#define METADATA_OVERHEAD (UINT64_C(1) << 20)
#define FS_BLOCK UINT64_C(4096)

#define fail(err, reterr, ...) reterr_set((reterr), (err), __VA_ARGS__)

uint64_t spec_needed_bytes(const JobSpec *s) {
        if (s->workload == WORKLOAD_METADATA) {
                /* Every file takes at least its size rounded up to a filesystem block. */
                uint64_t per_file = u64_add_sat(s->file_size_max, FS_BLOCK - 1) / FS_BLOCK * FS_BLOCK;
                return u64_add_sat(u64_mul_sat(s->file_count, per_file), METADATA_OVERHEAD);
        }
        if (s->workload < 0)
                return 0;
        if (s->workload == WORKLOAD_POSITION)
                return u64_mul_sat(s->size, MAX(s->positions, 1u));
        /* bonnie++'s seekers share one file of size: the streams of seeks lay out one file. */
        if (s->workload == WORKLOAD_SEEKS)
                return s->size;
        return u64_mul_sat(s->size, MAX(s->jobs, 1u));
}

/* Required O_DIRECT alignment for path: statx where the kernel reports it, else the logical
 * block size of the device behind it, else 512. */
static uint32_t dio_alignment(const char *path, dev_t dev) {
        uint64_t lbs = 0;

#ifdef STATX_DIOALIGN
        struct statx sx = {};

        if (statx(AT_FDCWD, path, 0, STATX_DIOALIGN, &sx) >= 0 && (sx.stx_mask & STATX_DIOALIGN) &&
            sx.stx_dio_offset_align > 0)
                return sx.stx_dio_offset_align; /* lengths and offsets; buffers are the engine's */
#endif
        /* A partition's is its disk's (blockdev_attr_u64_by_devnum falls back to the disk). */
        if (blockdev_attr_u64_by_devnum(NULL, dev, "queue/logical_block_size", &lbs) >= 0 && lbs >= 512 &&
            lbs <= (UINT64_C(1) << 20))
                return (uint32_t) lbs;
        return 512;
}

static int block_device_size(const char *path, dev_t rdev, uint64_t *ret) {
        _cleanup_close_ int fd = -EBADF;
        _cleanup_free_ char *name = NULL;
        uint64_t v = 0;

        /* Read-only, non-blocking open: asks the driver its size without touching the media. */
        fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
        if (fd >= 0 && ioctl(fd, BLKGETSIZE64, &v) >= 0) {
                *ret = v;
                return 0;
        }

        /* The device's own size attribute (a partition has one), without the disk's fallback. */
        if (blockdev_name_from_devnum(NULL, rdev, &name) < 0 || blockdev_read_u64(NULL, name, "size", &v) < 0)
                return -ENODEV;
        *ret = u64_mul_sat(v, 512);
        return 0;
}

static const char *kind_name(mode_t m) {
        if (S_ISSOCK(m))
                return "a socket";
        if (S_ISFIFO(m))
                return "a fifo";
        if (S_ISCHR(m))
                return "a character device";
        if (S_ISLNK(m))
                return "a symlink";
        return "not a directory, regular file or block device";
}

/* Alignment of the sizes the engine will use with O_DIRECT. */
static int check_alignment(const JobSpec *s, const char *target, uint32_t align, char **reterr) {
        char a[32], b[32];
        const char *where;

        if (!s->direct || s->workload < 0 || s->workload == WORKLOAD_METADATA || align <= 1)
                return 0;
        where = CALLER_TEXT(target);
        if (s->block_size % align != 0)
                return fail(-EINVAL, reterr, "block_size %s is not a multiple of %" PRIu32 ", the direct-I/O "
                            "alignment of %s; use %s or a multiple", spec_size_text(s->block_size, a), align, where,
                            spec_size_text(align, b));
        if (s->size % align != 0)
                return fail(-EINVAL, reterr, "size %s is not a multiple of %" PRIu32 ", the direct-I/O alignment "
                            "of %s; use %s", spec_size_text(s->size, a), align, where,
                            spec_size_text(MAX(s->size / align, 1u) * align, b));
        if (s->workload == WORKLOAD_STRIDE_READ && s->stride % align != 0)
                return fail(-EINVAL, reterr, "stride %s is not a multiple of %" PRIu32 ", the direct-I/O alignment "
                            "of %s; use %s or a multiple", spec_size_text(s->stride, a), align, where,
                            spec_size_text(align, b));
        return 0;
}

/* Inodes the spec's files take: the metadata file set, its directory and subdirectories. Only
 * metadata is checked: the other workloads create at most one file per stream. */
static uint64_t spec_needed_inodes(const JobSpec *s) {
        if (s->workload != WORKLOAD_METADATA)
                return 0;
        return (uint64_t) s->file_count + 1 + (s->dirs > 1 ? s->dirs : 0);
}

static int check_directory(const JobSpec *s, const struct stat *st, TargetCheck *c, char **reterr) {
        const char *target = CALLER_TEXT(s->target);
        struct statvfs sv;
        uint64_t margin, want, inodes;
        char a[32], b[32], m[32], how[96];
        int r;

        if (statvfs(s->target, &sv) < 0)
                return fail(-EINVAL, reterr, "target %s: cannot query free space: %s; give a directory on a "
                            "mounted filesystem", target, strerror(errno));
        if (sv.f_flag & ST_RDONLY)
                return fail(-EINVAL, reterr, "target %s is on a read-only filesystem; benchd creates its files "
                            "there, give a directory on a writable filesystem", target);

        if (s->destructive)
                return fail(-EINVAL, reterr, "destructive=true applies only to block devices; %s is a directory, "
                            "where benchd writes only files it creates and removes: leave destructive unset",
                            CALLER_TEXT(s->target));

        c->kind = TARGET_DIRECTORY;
        c->dev = st->st_dev;
        c->ino = st->st_ino;
        c->dio_align = dio_alignment(s->target, st->st_dev);
        c->free_bytes = u64_mul_sat(sv.f_bavail, sv.f_frsize);
        c->needed_bytes = spec_needed_bytes(s);

        r = check_alignment(s, CALLER_TEXT(s->target), c->dio_align, reterr);
        if (r < 0)
                return r;

        margin = MAX(c->needed_bytes / 100, MARGIN_MIN);
        want = u64_add_sat(c->needed_bytes, margin);
        if (c->needed_bytes > 0 && c->free_bytes < want) {
                if (s->workload == WORKLOAD_METADATA)
                        snprintf(how, sizeof(how), "file_count %" PRIu32 " × file_size_max %s", s->file_count,
                                 spec_size_text(s->file_size_max, a));
                else if (s->workload == WORKLOAD_SEEKS)
                        snprintf(how, sizeof(how), "size %s, one file its %" PRIu32 " streams share",
                                 spec_size_text(s->size, a), s->jobs);
                else
                        snprintf(how, sizeof(how), "size %s × jobs %" PRIu32, spec_size_text(s->size, a), s->jobs);
                return fail(-ENOSPC, reterr, "target %s has %s free; this job needs %s (%s) plus %s headroom; "
                            "free space or use a smaller size", target, format_bytes(b, sizeof(b), c->free_bytes),
                            format_bytes(m, sizeof(m), c->needed_bytes), how, format_bytes(a, sizeof(a), margin));
        }

        /* f_files 0: inodes are allocated on demand (btrfs; tmpfs with nr_inodes=0), no fixed limit. */
        inodes = spec_needed_inodes(s);
        if (inodes > 0 && sv.f_files > 0 && (uint64_t) sv.f_favail < inodes) {
                uint64_t dirs = inodes - s->file_count;

                if ((uint64_t) sv.f_favail > dirs)
                        snprintf(how, sizeof(how), "use file_count=%" PRIu64 " or less, ",
                                 (uint64_t) sv.f_favail - dirs);
                else
                        how[0] = 0;
                return fail(-ENOSPC, reterr, "target %s has %" PRIu64 " inodes free; this job needs %" PRIu64
                            " (file_count %" PRIu32 " files and %" PRIu64 " %s); free inodes, %sor use a "
                            "filesystem with more inodes (e.g. mkfs.ext4 -N)", target, (uint64_t) sv.f_favail,
                            inodes, s->file_count, dirs, dirs == 1 ? "directory" : "directories", how);
        }

        /* Metadata's directories are held open by the worker, one descriptor each. */
        if (s->workload == WORKLOAD_METADATA && s->dirs > 1) {
                struct rlimit rl;
                uint64_t files = SPEC_WORKER_FILES_MAX;

                if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_max != RLIM_INFINITY)
                        files = MIN(files, (uint64_t) rl.rlim_max);
                if ((uint64_t) s->dirs + SPEC_WORKER_FILES_RESERVE > files)
                        return fail(-EINVAL, reterr, "dirs=%" PRIu32 " needs as many directories held open, and a "
                                    "worker may open %" PRIu64 " files here (RLIMIT_NOFILE); use at most dirs=%" PRIu64
                                    ", or raise benchd's LimitNOFILE=", s->dirs, files,
                                    files > SPEC_WORKER_FILES_RESERVE ? files - SPEC_WORKER_FILES_RESERVE : 0);
        }
        return 0;
}

/* Filesystems of kernel state rather than storage. Not in every linux/magic.h: */
#ifndef CONFIGFS_MAGIC
#define CONFIGFS_MAGIC 0x62656570
#endif
#ifndef FUSE_CTL_SUPER_MAGIC
#define FUSE_CTL_SUPER_MAGIC 0x65735543
#endif
#ifndef MQUEUE_MAGIC
#define MQUEUE_MAGIC 0x19800202
#endif

static const struct {
        unsigned long type;
        const char *name;
} pseudo_filesystems[] = {
        { PROC_SUPER_MAGIC, "proc" },
        { SYSFS_MAGIC, "sysfs" },
        { DEVPTS_SUPER_MAGIC, "devpts" },
        { CGROUP_SUPER_MAGIC, "cgroup" },
        { CGROUP2_SUPER_MAGIC, "cgroup2" },
        { DEBUGFS_MAGIC, "debugfs" },
        { TRACEFS_MAGIC, "tracefs" },
        { SECURITYFS_MAGIC, "securityfs" },
        { SELINUX_MAGIC, "selinuxfs" },
        { SMACK_MAGIC, "smackfs" },
        { BPF_FS_MAGIC, "bpf" },
        { CONFIGFS_MAGIC, "configfs" },
        { PSTOREFS_MAGIC, "pstore" },
        { EFIVARFS_MAGIC, "efivarfs" },
        { FUSE_CTL_SUPER_MAGIC, "fusectl" },
        { BINFMTFS_MAGIC, "binfmt_misc" },
        { RDTGROUP_SUPER_MAGIC, "resctrl" },
        { MQUEUE_MAGIC, "mqueue" },
        { HUGETLBFS_MAGIC, "hugetlbfs" },
        { NSFS_MAGIC, "nsfs" },
        { AUTOFS_SUPER_MAGIC, "autofs" },
};

/* The type name of the mount of device dev in /proc/self/mountinfo ("36 35 0:5 / /dev rw - devtmpfs
 * udev rw,..."): every mount of one superblock shares its st_dev and its type. */
static int mount_fstype(dev_t dev, char *ret, size_t size) {
        _cleanup_fclose_ FILE *f = fopen("/proc/self/mountinfo", "re");
        _cleanup_free_ char *line = NULL;
        size_t n = 0;

        if (!f)
                return -errno;
        while (getline(&line, &n, f) > 0) {
                unsigned ma, mi;
                const char *sep;
                size_t len;

                if (sscanf(line, "%*u %*u %u:%u", &ma, &mi) != 2 || makedev(ma, mi) != dev)
                        continue;
                sep = strstr(line, " - ");
                if (!sep)
                        continue;
                sep += 3;
                len = strcspn(sep, " \n");
                if (len == 0 || len >= size)
                        continue;
                memcpy(ret, sep, len);
                ret[len] = 0;
                return 0;
        }
        return -ENOENT;
}

/* /proc, /sys, /dev and their kind hold kernel state: files there are not storage, and writing
 * them ranges from refused to harmful. Decided by statfs f_type; devtmpfs reports tmpfs's (or
 * ramfs's) magic, so for those the mount table tells them apart. tmpfs itself is fine: people
 * benchmark RAM. Anything we cannot examine is left to the checks that follow. */
static int check_real_filesystem(const JobSpec *s, dev_t dev, char **reterr) {
        const char *name = NULL;
        char type[64];
        struct statfs sf;

        if (statfs(s->target, &sf) < 0)
                return 0;
        for (size_t i = 0; i < ELEMENTSOF(pseudo_filesystems); i++)
                if ((unsigned long) sf.f_type == pseudo_filesystems[i].type)
                        name = pseudo_filesystems[i].name;
        if (!name && ((unsigned long) sf.f_type == TMPFS_MAGIC || (unsigned long) sf.f_type == RAMFS_MAGIC) &&
            mount_fstype(dev, type, sizeof(type)) >= 0 && streq(type, "devtmpfs"))
                name = "devtmpfs";
        if (!name)
                return 0;
        return fail(-EINVAL, reterr, "target %s is on %s, a pseudo filesystem of kernel state rather than "
                    "storage: not a filesystem benchd can benchmark; give a directory on a disk-backed "
                    "filesystem (or on tmpfs to measure RAM), or a block device", CALLER_TEXT(s->target), name);
}

static int check_file(const JobSpec *s, const struct stat *st, TargetCheck *c, char **reterr) {
        char a[32], b[32];

        if (s->workload >= 0 && workload_writes(s->workload))
                return fail(-EINVAL, reterr, "target %s is a regular file; the %s workload writes, and benchd "
                            "writes only to files it creates itself: give a directory instead",
                            CALLER_TEXT(s->target), workload_to_string(s->workload));
        if (s->workload >= 0 && (uint64_t) st->st_size < s->block_size)
                return fail(-EINVAL, reterr, "target %s is %s long, shorter than block_size %s; use a larger file "
                            "or a smaller block_size", CALLER_TEXT(s->target), format_bytes(a, sizeof(a), (uint64_t) st->st_size),
                            spec_size_text(s->block_size, b));

        if (s->destructive)
                return fail(-EINVAL, reterr, "destructive=true applies only to block devices; %s is a regular "
                            "file, which benchd never writes: leave destructive unset", CALLER_TEXT(s->target));

        c->kind = TARGET_FILE;
        c->dev = st->st_dev;
        c->ino = st->st_ino;
        c->dio_align = dio_alignment(s->target, st->st_dev);
        c->free_bytes = 0;
        c->needed_bytes = 0; /* nothing is laid out: the file is read as it is */
        return check_alignment(s, CALLER_TEXT(s->target), c->dio_align, reterr);
}

static int check_block(const JobSpec *s, const struct stat *st, TargetCheck *c, char **reterr) {
        uint64_t devsize;
        char a[32], b[32], d[48];

        if (s->workload >= 0 && workload_writes(s->workload) && !s->destructive)
                return fail(-EPERM, reterr, "writing to %s destroys its content (workload %s); set "
                            "destructive=true if that is intended", CALLER_TEXT(s->target), workload_to_string(s->workload));
        /* A matrix runs metadata on a directory of the filesystem it makes on this device. */
        if (s->workload == WORKLOAD_METADATA && !s->filesystems)
                return fail(-EINVAL, reterr, "target %s is a block device; the metadata workload needs a "
                            "directory on a mounted filesystem", CALLER_TEXT(s->target));

        c->kind = TARGET_BLOCK;
        c->dev = st->st_rdev;
        if (blockdev_attr_u64_by_devnum(NULL, st->st_rdev, "diskseq", &c->diskseq) < 0)
                c->diskseq = 0;
        c->dio_align = dio_alignment(s->target, st->st_rdev);
        c->free_bytes = 0;
        c->needed_bytes = spec_needed_bytes(s);

        if (block_device_size(s->target, st->st_rdev, &devsize) < 0)
                return fail(-EINVAL, reterr, "target %s: cannot determine the size of the block device; "
                            "give a device that is present", CALLER_TEXT(s->target));
        c->device_bytes = devsize;
        /* metadata (a matrix's) has no size on the device: its files are on the filesystem made there. */
        if (s->workload >= 0 && s->workload != WORKLOAD_METADATA) {
                if (devsize < s->block_size)
                        return fail(-EINVAL, reterr, "target %s is %s, smaller than block_size %s; use a smaller "
                                    "block_size", CALLER_TEXT(s->target), format_bytes(a, sizeof(a), devsize),
                                    spec_size_text(s->block_size, b));
                /* position reads less than size at each offset when the device is short of
                 * positions × size, but at least a block. */
                if (s->workload == WORKLOAD_POSITION && devsize / MAX(s->positions, 1u) < s->block_size) {
                        uint64_t fit = devsize / s->block_size;

                        if (fit >= SPEC_POSITIONS_MIN)
                                snprintf(d, sizeof(d), "positions=%" PRIu64 " or less", fit);
                        else
                                snprintf(d, sizeof(d), "fewer positions");
                        return fail(-EINVAL, reterr, "target %s is %s, smaller than positions %" PRIu32 " × block_size "
                                    "%s; use %s, or a smaller block_size", CALLER_TEXT(s->target),
                                    format_bytes(a, sizeof(a), devsize), s->positions,
                                    spec_size_text(s->block_size, b), d);
                }
                if (s->size > devsize && s->workload != WORKLOAD_POSITION)
                        return fail(-EINVAL, reterr, "size %s exceeds the %s of %s; use size=%s or less",
                                    spec_size_text(s->size, a), format_bytes(b, sizeof(b), devsize), CALLER_TEXT(s->target),
                                    spec_size_text(devsize / MAX(c->dio_align, 512u) * MAX(c->dio_align, 512u), d));
        }
        return check_alignment(s, CALLER_TEXT(s->target), c->dio_align, reterr);
}

int spec_check_target(const JobSpec *s, TargetCheck *ret, char **reterr) {
        TargetCheck c = {};
        struct stat st;
        int r;

        if (!s->target || s->target[0] != '/')
                return fail(-EINVAL, reterr, "target: required as an absolute path of a directory, regular file or "
                            "block device, e.g. target=/mnt/scratch");

        /* Follows symlinks on purpose: /dev/disk/by-id/... names the device it points to. */
        if (stat(s->target, &st) < 0) {
                if (errno == ENOENT || errno == ENOTDIR)
                        return fail(-EINVAL, reterr, "target %s does not exist; give an existing directory, regular "
                                    "file or block device", CALLER_TEXT(s->target));
                return fail(-EINVAL, reterr, "target %s cannot be examined: %s; give a directory, regular file or "
                            "block device benchd can reach", CALLER_TEXT(s->target), strerror(errno));
        }

        if (s->workload == WORKLOAD_POSITION && !S_ISBLK(st.st_mode))
                return fail(-EINVAL, reterr, "target %s is %s; workload position measures a block device's "
                            "surface; give a block device as target", CALLER_TEXT(s->target),
                            S_ISDIR(st.st_mode) ? "a directory" : S_ISREG(st.st_mode) ? "a regular file" :
                            kind_name(st.st_mode));

        /* bonnie++'s per-character tests work on a file of their own through stdio; a matrix's
         * device gets a filesystem, and the step runs on a directory of it. */
        if (workload_per_char(s->workload) && !S_ISDIR(st.st_mode) && !(S_ISBLK(st.st_mode) && s->filesystems))
                return fail(-EINVAL, reterr, "target %s is %s; workload %s %s a file of its own one character at a "
                            "time, as bonnie++ does; give a directory on a mounted filesystem as target",
                            CALLER_TEXT(s->target),
                            S_ISBLK(st.st_mode) ? "a block device" : S_ISREG(st.st_mode) ? "a regular file" :
                            kind_name(st.st_mode), workload_to_string(s->workload),
                            s->workload == WORKLOAD_PUTC ? "writes" : "reads");

        if (S_ISDIR(st.st_mode) || S_ISREG(st.st_mode)) {
                r = check_real_filesystem(s, st.st_dev, reterr);
                if (r < 0)
                        return r;
        }

        if (S_ISDIR(st.st_mode))
                r = check_directory(s, &st, &c, reterr);
        else if (S_ISREG(st.st_mode))
                r = check_file(s, &st, &c, reterr);
        else if (S_ISBLK(st.st_mode))
                r = check_block(s, &st, &c, reterr);
        else
                r = fail(-EINVAL, reterr, "target %s is %s; give a directory, regular file or block device",
                         CALLER_TEXT(s->target), kind_name(st.st_mode));
        if (r < 0)
                return r;

        if (ret)
                *ret = c;
        return 0;
}

int target_identify(const char *target, TargetCheck *ret, char **reterr) {
        TargetCheck c = {};
        struct stat st;

        if (!target || target[0] != '/')
                return fail(-EINVAL, reterr, "target: required as an absolute path");
        if (stat(target, &st) < 0)
                return fail(-EINVAL, reterr, "target %s cannot be examined: %s", CALLER_TEXT(target), strerror(errno));
        if (S_ISDIR(st.st_mode) || S_ISREG(st.st_mode)) {
                c.kind = S_ISDIR(st.st_mode) ? TARGET_DIRECTORY : TARGET_FILE;
                c.dev = st.st_dev;
                c.ino = st.st_ino;
        } else if (S_ISBLK(st.st_mode)) {
                c.kind = TARGET_BLOCK;
                c.dev = st.st_rdev;
                if (blockdev_attr_u64_by_devnum(NULL, st.st_rdev, "diskseq", &c.diskseq) < 0)
                        c.diskseq = 0;
        } else
                return fail(-EINVAL, reterr, "target %s is %s", CALLER_TEXT(target), kind_name(st.st_mode));
        *ret = c;
        return 0;
}

static const char *const target_kind_table[_TARGET_KIND_MAX] = {
        [TARGET_DIRECTORY] = "directory",
        [TARGET_FILE] = "file",
        [TARGET_BLOCK] = "block",
};

const char *target_kind_to_string(TargetKind k) {
        return k >= 0 && k < _TARGET_KIND_MAX ? target_kind_table[k] : NULL;
}

TargetKind target_kind_from_string(const char *s) {
        for (TargetKind k = 0; k < _TARGET_KIND_MAX; k++)
                if (s && streq(s, target_kind_table[k]))
                        return k;
        return _TARGET_KIND_INVALID;
}

static const char *target_kind_phrase(TargetKind k) {
        return k == TARGET_DIRECTORY ? "a directory" : k == TARGET_FILE ? "a regular file" : "a block device";
}

int target_check_same(const char *path, const TargetCheck *then, const TargetCheck *now, char **reterr) {
        const char *target = CALLER_TEXT(path);

        if (then->kind != now->kind)
                return fail(-ESTALE, reterr, "%s was %s when the job was submitted and is now %s", target,
                            target_kind_phrase(then->kind), target_kind_phrase(now->kind));
        if (then->kind == TARGET_BLOCK) {
                if (then->dev != now->dev)
                        return fail(-ESTALE, reterr, "%s was block device %u:%u when the job was submitted and is "
                                    "now %u:%u", target, major(then->dev), minor(then->dev), major(now->dev),
                                    minor(now->dev));
                if (then->diskseq != 0 && now->diskseq != 0 && then->diskseq != now->diskseq)
                        return fail(-ESTALE, reterr, "%s (%u:%u) is another device than when the job was submitted "
                                    "(disk sequence number %" PRIu64 ", then %" PRIu64 "): it was detached and "
                                    "something else attached", target, major(now->dev), minor(now->dev),
                                    now->diskseq, then->diskseq);
                return 0;
        }
        if (then->dev != now->dev || then->ino != now->ino)
                return fail(-ESTALE, reterr, "%s is another %s than when the job was submitted (device %u:%u inode "
                            "%" PRIu64 ", then %u:%u inode %" PRIu64 "): the path was replaced", target,
                            then->kind == TARGET_DIRECTORY ? "directory" : "file", major(now->dev),
                            minor(now->dev), now->ino, major(then->dev), minor(then->dev), then->ino);
        return 0;
}

/* ---- filesystem matrices ---- */

static const char *const tool_dirs[] = { "/usr/sbin", "/sbin", "/usr/bin", "/bin" };

/* Whether root + dir/name is an executable regular file in one of tool_dirs. */
static bool tool_present(const char *root, const char *name) {
        for (size_t i = 0; i < ELEMENTSOF(tool_dirs); i++) {
                char path[PATH_MAX];
                struct stat st;

                if (snprintf(path, sizeof(path), "%s%s/%s", root, tool_dirs[i], name) >= (int) sizeof(path))
                        continue;
                if (stat(path, &st) >= 0 && S_ISREG(st.st_mode) && access(path, X_OK) >= 0)
                        return true;
        }
        return false;
}

/* The Debian package of mkfs.<fs>, for the message. */
static const char *mkfs_package(const char *fs) {
        static const struct {
                const char *fs, *package;
        } table[] = {
                { "ext2", "e2fsprogs" }, { "ext3", "e2fsprogs" }, { "ext4", "e2fsprogs" },
                { "xfs", "xfsprogs" }, { "btrfs", "btrfs-progs" }, { "vfat", "dosfstools" },
                { "f2fs", "f2fs-tools" },
        };

        for (size_t i = 0; i < ELEMENTSOF(table); i++)
                if (streq(table[i].fs, fs))
                        return table[i].package;
        return NULL;
}

/* Whether a line of path (a file of the kernel's module index) names what: "/raid1.ko" followed
 * by a compression suffix or the end of the path (modules.dep, modules.builtin), or a whole alias
 * ("alias fs-xfs xfs", modules.alias). 1 found, 0 not, -ENOENT no such index. */
static int index_lists(const char *path, const char *what, bool alias) {
        _cleanup_fclose_ FILE *f = fopen(path, "re");
        _cleanup_free_ char *line = NULL;
        size_t n = 0, len = strlen(what);

        if (!f)
                return -ENOENT;
        while (getline(&line, &n, f) > 0) {
                if (alias) {
                        if (strncmp(line, "alias ", 6) == 0 && strncmp(line + 6, what, len) == 0 && line[6 + len] == ' ')
                                return 1;
                        continue;
                }
                for (const char *p = strstr(line, what); p; p = strstr(p + 1, what))
                        if (p > line && p[-1] == '/' && (p[len] == 0 || strchr(".:\n", p[len])))
                                return 1;
        }
        return 0;
}

/* Whether the running kernel has module name (with ".ko" appended) or, for a filesystem, the alias
 * "fs-NAME", in root/lib/modules/$(uname -r): 1 yes, 0 no, -ENOENT when that directory or its
 * index is missing (a container sees the host's kernel, which loads modules from the host's
 * /lib/modules, not ours: then we cannot tell). */
static int module_known(const char *root, const char *name, bool filesystem) {
        char dir[PATH_MAX], path[PATH_MAX + 32], ko[64];
        struct utsname u;
        int r, r2, r3 = 0;

        if (uname(&u) < 0 || snprintf(dir, sizeof(dir), "%s/lib/modules/%s", root, u.release) >= (int) sizeof(dir))
                return -ENOENT;
        snprintf(ko, sizeof(ko), "%s.ko", name);
        snprintf(path, sizeof(path), "%s/modules.dep", dir);
        r = index_lists(path, ko, false);
        snprintf(path, sizeof(path), "%s/modules.builtin", dir);
        r2 = index_lists(path, ko, false);
        if (filesystem) {
                char alias[64];
                snprintf(alias, sizeof(alias), "fs-%s", name);
                snprintf(path, sizeof(path), "%s/modules.alias", dir);
                r3 = index_lists(path, alias, true);
        }
        if (r > 0 || r2 > 0 || r3 > 0)
                return 1;
        if (r == -ENOENT && r2 == -ENOENT)
                return -ENOENT;
        return 0;
}

/* Whether root/proc/filesystems lists fs ("nodev\tproc", "\text4"): 1, 0, or -ENOENT. */
static int proc_filesystems_lists(const char *root, const char *fs) {
        _cleanup_fclose_ FILE *f = NULL;
        _cleanup_free_ char *line = NULL;
        char path[PATH_MAX];
        size_t n = 0;

        snprintf(path, sizeof(path), "%s/proc/filesystems", root);
        f = fopen(path, "re");
        if (!f)
                return -ENOENT;
        while (getline(&line, &n, f) > 0) {
                const char *name = strchr(line, '\t');
                name = name ? name + 1 : line;
                if (strncmp(name, fs, strlen(fs)) == 0 && strchr("\n", name[strlen(fs)]))
                        return 1;
        }
        return 0;
}

/* Whether the kernel can mount fs: listed, or a module for it. Lenient: false only when both
 * sources could be read and neither has it. ext2 and ext3 are served by the ext4 driver. */
static bool kernel_has_filesystem(const char *root, const char *fs) {
        int p, m;

        p = proc_filesystems_lists(root, fs);
        if (p != 0)
                return true;
        m = module_known(root, fs, true);
        if (m != 0)
                return true;
        if (streq(fs, "ext2") || streq(fs, "ext3"))
                return kernel_has_filesystem(root, "ext4");
        return false;
}

static bool path_exists(const char *root, const char *path) {
        char p[PATH_MAX];

        return snprintf(p, sizeof(p), "%s%s", root, path) < (int) sizeof(p) && access(p, F_OK) >= 0;
}

/* md and LVM layouts: what they need of the machine, all of it said when missing (the md
 * personality's module, /proc/mdstat, mdadm; device-mapper, lvm); and when all of it is there,
 * -EOPNOTSUPP for the layouts this benchd does not build yet (none now). */
static int check_layout_support(const JobSpec *s, const char *root, char **reterr) {
        const char *name = layout_to_string(s->layout);
        char need[512] = "", module[16];
        size_t n = 0;
        int level = layout_md_level(s->layout);

#define NEED(...) (n += (size_t) snprintf(need + MIN(n, sizeof(need)), sizeof(need) - MIN(n, sizeof(need)), \
                                          "%s", n ? "; " : ""), \
                   n += (size_t) snprintf(need + MIN(n, sizeof(need)), sizeof(need) - MIN(n, sizeof(need)), __VA_ARGS__))
        if (level >= 0) {
                bool mdstat = path_exists(root, "/proc/mdstat");
                int known;

                snprintf(module, sizeof(module), "%s", level == 5 ? "raid456" : level == 10 ? "raid10" :
                         level == 1 ? "raid1" : "raid0");
                known = module_known(root, module, false);
                /* Without /proc/mdstat md itself is missing; with it, the level's personality must be
                 * built in or a module (when that cannot be told, it is assumed). */
                if (!mdstat)
                        NEED("the kernel's md RAID (/proc/mdstat absent, %s)", known > 0 ? "md_mod not loaded" :
                             known == 0 ? "no md module" : "no module directory for this kernel");
                else if (known == 0)
                        NEED("the kernel's RAID%d personality (module %s not in this kernel's modules)", level, module);
                if (!tool_present(root, "mdadm"))
                        NEED("mdadm (not installed; Debian package mdadm)");
        }
        if (s->layout >= 0 && layout_is_lvm(s->layout)) {
                if (!path_exists(root, "/dev/mapper/control"))
                        NEED("device-mapper (/dev/mapper/control absent: the kernel has no dm_mod)");
                if (!tool_present(root, "lvm"))
                        NEED("lvm (not installed; Debian package lvm2)");
        }
#undef NEED
        if (level < 0 && !(s->layout >= 0 && layout_is_lvm(s->layout)))
                return 0;
        if (n > 0)
                return fail(-EINVAL, reterr, "layout: %s needs %s: this machine cannot do it; use a kernel and "
                            "packages with them, or layout=single%s", name, need,
                            level == 0 ? " or btrfs's raid0" : level == 1 ? " or btrfs's raid1" :
                            level == 10 ? " or btrfs's raid10" : "");
        /* Built by the worker (daemon/worker/layout-md.h, layout-lvm.h): every md and LVM layout. */
        if (s->layout == LAYOUT_MD_RAID0 || s->layout == LAYOUT_MD_RAID1 || s->layout == LAYOUT_MD_RAID5 ||
            s->layout == LAYOUT_MD_RAID10 || s->layout == LAYOUT_LVM || s->layout == LAYOUT_MD_RAID1_LVM)
                return 0;
        return fail(-EOPNOTSUPP, reterr, "layout: %s is not supported by this benchd yet; use layout=single, "
                    "md-raid0, md-raid1, md-raid5, md-raid10, lvm or md-raid1+lvm, or btrfs's own raid0, raid1 or "
                    "raid10", name);
}

/* An LVM layout's lv_size fits the volume group: each physical volume gives its size less LVM's
 * first MiB (label, metadata, alignment) in whole extents; over md-raid1+lvm there is one, the
 * array, the smallest member less md's superblock and bitmap (taken as 2 MiB: more than 1.2
 * metadata with an internal bitmap needs on these sizes). */
static int check_lvm_fit(const JobSpec *s, char **reterr) {
        uint64_t extent, total = 0, smallest = UINT64_MAX;
        char a[32], b[32];
        int r;

        if (s->layout < 0 || !layout_is_lvm(s->layout) || s->lv_size == 0)
                return 0;
        r = spec_lvm_options_check(s->lvm_options ?: "", &extent, reterr);
        if (r < 0)
                return r;
        for (char **d = s->devices; d && *d; d++) {
                struct stat st;
                uint64_t size;

                if (stat(*d, &st) < 0 || block_device_size(*d, st.st_rdev, &size) < 0)
                        return fail(-EINVAL, reterr, "devices: cannot tell the size of %s; lv_size needs it to "
                                    "know that the logical volume fits", CALLER_TEXT(*d));
                /* With partitions= the group is made of one partition of each device. */
                if (s->partitions) {
                        uint64_t start, each;

                        if (spec_partition_layout(size, 512, s->partitions, &start, &each) < 0)
                                continue;       /* check_partitions_fit() said so already */
                        size = each;
                }
                smallest = MIN(smallest, size);
                if (s->layout == LAYOUT_LVM && size > (UINT64_C(1) << 20))
                        total += (size - (UINT64_C(1) << 20)) / extent * extent;
        }
        if (s->layout == LAYOUT_MD_RAID1_LVM && smallest > (UINT64_C(3) << 20))
                total = (smallest - (UINT64_C(3) << 20)) / extent * extent;
        if (u64_add_sat(s->lv_size, extent - 1) / extent * extent > total)
                return fail(-EINVAL, reterr, "lv_size: %s does not fit in the volume group of %s, which holds at most "
                            "%s (in extents of %s); use lv_size=%s or less, or 0 for the whole group",
                            format_bytes(a, sizeof(a), s->lv_size),
                            s->layout == LAYOUT_LVM ? "the devices" : "the RAID1 array",
                            format_bytes(b, sizeof(b), total), spec_size_text(extent, (char[32]) {}),
                            spec_size_text(total, (char[32]) {}));
        return 0;
}

static const char *node_kind_phrase(mode_t m) {
        if (S_ISDIR(m))
                return "a directory";
        if (S_ISREG(m))
                return "a regular file";
        return kind_name(m);
}

/* Every device a block device, and no device twice under two names (by st_rdev). */
static int check_devices(const JobSpec *s, char **reterr) {
        struct stat st[SPEC_DEVICES_MAX];
        size_t n = 0;

        for (char **d = s->devices; d && *d; d++, n++) {
                if (n >= SPEC_DEVICES_MAX)
                        return fail(-EINVAL, reterr, "devices: more than %u; use at most %u", SPEC_DEVICES_MAX,
                                    SPEC_DEVICES_MAX);
                if (stat(*d, &st[n]) < 0) {
                        if (errno == ENOENT || errno == ENOTDIR)
                                return fail(-EINVAL, reterr, "devices: %s does not exist; list block devices that "
                                            "are present", CALLER_TEXT(*d));
                        return fail(-EINVAL, reterr, "devices: %s cannot be examined: %s; list block devices "
                                    "benchd can reach", CALLER_TEXT(*d), strerror(errno));
                }
                if (!S_ISBLK(st[n].st_mode))
                        return fail(-EINVAL, reterr, "devices: %s is %s, not a block device; a filesystem matrix "
                                    "makes its filesystems on block devices, e.g. /dev/loop1", CALLER_TEXT(*d),
                                    node_kind_phrase(st[n].st_mode));
                for (size_t i = 0; i < n; i++)
                        if (st[i].st_rdev == st[n].st_rdev)
                                return fail(-EINVAL, reterr, "devices: %s and %s are the same device (%u:%u); list "
                                            "each device once", CALLER_TEXT(s->devices[i]), CALLER_TEXT(*d),
                                            major(st[n].st_rdev), minor(st[n].st_rdev));
        }
        return 0;
}

/* partitions=: whole devices, each large enough for partitions of SPEC_PARTITION_SIZE_MIN. */
static int check_partitions_fit(const JobSpec *s, char **reterr) {
        if (!s->partitions)
                return 0;
        for (char **d = s->devices; d && *d; d++) {
                _cleanup_free_ char *name = NULL;
                uint64_t sectors = 0, sector = 512, start, each;
                struct stat st;
                int r;

                if (stat(*d, &st) < 0 || !S_ISBLK(st.st_mode) ||
                    blockdev_name_from_devnum(NULL, st.st_rdev, &name) < 0)
                        continue;       /* check_devices() said what is wrong */
                if (blockdev_is_partition(NULL, name))
                        return fail(-EINVAL, reterr, "partitions: %s is a partition (%s); partitions= splits whole "
                                    "devices into partitions of their own: name the disk it is on, or leave "
                                    "partitions out", CALLER_TEXT(*d), name);
                if (blockdev_attr_u64_by_devnum(NULL, st.st_rdev, "size", &sectors) < 0)
                        continue;
                (void) blockdev_attr_u64_by_devnum(NULL, st.st_rdev, "queue/logical_block_size", &sector);
                r = spec_partition_layout(sectors * 512, (uint32_t) sector, s->partitions, &start, &each);
                if (r == -ENOSPC) {
                        uint32_t fits = s->partitions - 1;

                        while (fits > 0 && spec_partition_layout(sectors * 512, (uint32_t) sector, fits, &start,
                                                                 &each) < 0)
                                fits--;
                        if (fits == 0)
                                return fail(-EINVAL, reterr, "partitions: %s (%s) is too small for even one "
                                            "partition of %" PRIu64 " MiB; use a larger device, or leave partitions "
                                            "out", CALLER_TEXT(*d), name, SPEC_PARTITION_SIZE_MIN >> 20);
                        return fail(-EINVAL, reterr, "partitions: %s (%s) is too small for %" PRIu32 " partitions of "
                                    "at least %" PRIu64 " MiB each; use partitions=%" PRIu32 " or fewer, or a "
                                    "larger device", CALLER_TEXT(*d), name, s->partitions,
                                    SPEC_PARTITION_SIZE_MIN >> 20, fits);
                }
        }
        return 0;
}

int spec_check_matrix_root(const JobSpec *s, const char *root, char **reterr) {
        int r;

        if (!s->filesystems || !s->filesystems[0])
                return 0;
        root = root ?: "";

        for (char **f = s->filesystems; *f; f++) {
                const FsEntry *e = fs_entry_find(*f);
                const char *fs = fs_entry_mount_type(*f);
                char mkfs[32];
                const char *package = mkfs_package(fs_entry_mkfs_type(*f));

                snprintf(mkfs, sizeof(mkfs), "mkfs.%s", fs_entry_mkfs_type(*f));
                for (const char *const *p = e ? e->programs : NULL; p && *p; p++)
                        if (!tool_present(root, *p))
                                return fail(-EINVAL, reterr, "filesystems: %s needs %s, which is not installed "
                                            "(looked in /usr/sbin, /sbin, /usr/bin and /bin); install %s, or leave "
                                            "%s out of filesystems", *f, *p, package ?: "it", *f);
                if (!tool_present(root, mkfs)) {
                        if (package)
                                return fail(-EINVAL, reterr, "filesystems: %s is not installed (looked in /usr/sbin, "
                                            "/sbin, /usr/bin and /bin); install %s, or leave %s out of filesystems",
                                            mkfs, package, *f);
                        return fail(-EINVAL, reterr, "filesystems: %s is not installed (looked in /usr/sbin, /sbin, "
                                    "/usr/bin and /bin); install the package that provides %s, or leave %s out "
                                    "of filesystems", mkfs, mkfs, *f);
                }
                if (!kernel_has_filesystem(root, fs)) {
                        struct utsname u = {};
                        (void) uname(&u);
                        return fail(-EINVAL, reterr, "filesystems: the running kernel (%s) does not know %s: "
                                    "/proc/filesystems does not list it and /lib/modules/%s has no module for it; "
                                    "use a kernel with %s, or leave %s out of filesystems", u.release, fs,
                                    u.release, fs, *f);
                }
        }

        r = check_layout_support(s, root, reterr);
        if (r >= 0)
                r = check_devices(s, reterr);
        if (r >= 0)
                r = check_partitions_fit(s, reterr);
        if (r >= 0)
                r = check_lvm_fit(s, reterr);
        return r;
}

int spec_check_matrix(const JobSpec *s, char **reterr) {
        return spec_check_matrix_root(s, "", reterr);
}
