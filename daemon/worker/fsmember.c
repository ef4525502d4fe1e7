/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The members of a filesystem step (fsmember.h): claimed O_EXCL (claim.h), compared with what
 * benchd checked (dev_t, and the disk sequence number by BLKGETDISKSEQ or sysfs), probed by
 * libblkid on the descriptor held, and wiped as wipefs -a wipes. Refusals on safety grounds are -EPERM, with
 * target.c's words where it has them.
 */
#include <blkid.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "claim.h"
#include "fsmember.h"
#include "shared/blockdev.h"
#include "shared/fs-entry.h"
#include "shared/util.h"

#define fail(reterr, r, ...) reterr_set_once((reterr), (r), __VA_ARGS__)

void fsmember_close(FsMember *b, size_t n) {
        for (size_t i = 0; i < n; i++)
                if (b[i].fd >= 0) {
                        close(b[i].fd);
                        b[i].fd = -EBADF;
                }
}

void fsmember_free(FsMember *b, size_t n) {
        fsmember_close(b, n);
        for (size_t i = 0; i < n; i++) {
                free(b[i].name);
                free(b[i].node);
        }
}

static int device_diskseq(int fd, dev_t dev, uint64_t *ret) {
#ifdef BLKGETDISKSEQ
        uint64_t s;

        if (ioctl(fd, BLKGETDISKSEQ, &s) == 0) {
                *ret = s;
                return 0;
        }
#endif
        return blockdev_attr_u64_by_devnum(NULL, dev, "diskseq", ret);
}

int fsmember_open(FsMember *b, const char *path, int flags, char **reterr) {
        dev_t want = b->dev ?: (dev_t) b->m->dev;
        _cleanup_free_ char *why = NULL;
        uint64_t seq;
        struct stat st;

        b->fd = claim_open(path, flags, NULL, &why);
        if (b->fd < 0) {
                int r = b->fd;

                b->fd = -EBADF;
                if (r == -EBUSY)
                        return fail(reterr, -EPERM, "%s is in use (%s): it cannot be opened exclusively; refusing to "
                                    "use it", path, why);
                return fail(reterr, r, "cannot open %s%s: %s", path, (flags & O_ACCMODE) == O_RDWR ?
                            " for writing" : "", strerror(-r));
        }
        if (fstat(b->fd, &st) < 0)
                return fail(reterr, -errno, "cannot stat %s: %m", path);
        if (!S_ISBLK(st.st_mode) || st.st_rdev != want)
                return fail(reterr, -EPERM, "%s is not the device benchd checked: it is %s%u:%u, not %u:%u; refusing "
                            "to use it", path, S_ISBLK(st.st_mode) ? "" : "no block device, ", major(st.st_rdev),
                            minor(st.st_rdev), major(want), minor(want));
        if (b->m->diskseq != 0 && device_diskseq(b->fd, st.st_rdev, &seq) == 0 && seq != b->m->diskseq)
                return fail(reterr, -EPERM, "%s is not the device benchd checked: its disk sequence number is %" PRIu64
                            ", not %" PRIu64 " (it was attached again or its medium changed); refusing to use it",
                            path, seq, b->m->diskseq);
        return 0;
}

int fsmember_probe(int fd, FsSignature *ret) {
        const char *type = NULL, *pttype = NULL, *uuid = NULL, *label = NULL;
        FsSignature sig = {};
        blkid_probe pr;
        int r;

        (void) posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
        pr = blkid_new_probe();
        if (!pr)
                return -ENOMEM;
        r = blkid_probe_set_device(pr, fd, 0, 0);
        if (r == 0) {
                blkid_probe_enable_superblocks(pr, 1);
                blkid_probe_set_superblocks_flags(pr, BLKID_SUBLKS_TYPE | BLKID_SUBLKS_UUID | BLKID_SUBLKS_USAGE |
                                                       BLKID_SUBLKS_LABEL);
                blkid_probe_enable_partitions(pr, 1);
                blkid_probe_set_partitions_flags(pr, BLKID_PARTS_MAGIC);
                r = blkid_do_safeprobe(pr);
        }
        if (r == 0) {
                (void) blkid_probe_lookup_value(pr, "TYPE", &type, NULL);
                (void) blkid_probe_lookup_value(pr, "PTTYPE", &pttype, NULL);
                (void) blkid_probe_lookup_value(pr, "UUID", &uuid, NULL);
                (void) blkid_probe_lookup_value(pr, "LABEL", &label, NULL);
                if (label && strlen(label) < sizeof(sig.label))
                        snprintf(sig.label, sizeof(sig.label), "%s", label);
                snprintf(sig.type, sizeof(sig.type), "%s", type ?: pttype ?: "unknown");
                sig.table = !type && pttype;
                if (uuid && strlen(uuid) <= PROTO_FS_UUID_MAX)
                        snprintf(sig.uuid, sizeof(sig.uuid), "%s", uuid);
        }
        blkid_free_probe(pr);
        if (r == -2)
                return -EUCLEAN;
        if (r < 0)
                return -EIO;
        *ret = sig;
        return 0;
}

bool fsmember_md_label_ours(const char *label, const char *md_name, bool same_entry) {
        const char *last;
        size_t n;

        if (!label || !md_name || !proto_fs_md_name_valid(md_name) || strncmp(label, "benchd:", 7) != 0)
                return false;
        label += 7;
        if (same_entry)
                return streq(label, md_name);
        /* "benchd-JOB-": the name up to and with its last dash. */
        last = strrchr(md_name, '-');
        n = (size_t) (last - md_name) + 1;
        return strncmp(label, md_name, n) == 0 && proto_fs_md_name_valid(label);
}

static const char *article(const char *word) {
        return strchr("aeiouxAEIOUX", word[0]) ? "an" : "a";
}

/* Stage MAKE: blank, scratch, or carrying exactly the job's own filesystem of an earlier entry
 * (expect_uuid); its signatures are wiped next. */
static int member_check_make(const FsMember *b, const char *own_uuid, const char *md_name, char **reterr) {
        const char *path = b->m->path;
        FsSignature sig;
        int r;

        r = fsmember_probe(b->fd, &sig);
        if (r == -EUCLEAN && (b->m->flags & PROTO_GUARD_SCRATCH))
                return 0;
        if (r == -EUCLEAN)
                return fail(reterr, -EPERM, "%s carries several conflicting signatures; refusing to make a filesystem "
                            "on it (wipe it with wipefs -a, or mark it scratch)", path);
        if (r < 0)
                return fail(reterr, -EPERM, "cannot probe %s for signatures (%s); refusing to make a filesystem on it",
                            path, strerror(-r));
        if (!sig.type[0] || (b->m->flags & PROTO_GUARD_SCRATCH) ||
            (own_uuid[0] && !sig.table && strcasecmp(sig.uuid, own_uuid) == 0))
                return 0;
        /* An earlier entry's array of this job (md's superblock on the member). */
        if (md_name && md_name[0] && streq(sig.type, "linux_raid_member") &&
            fsmember_md_label_ours(sig.label, md_name, false))
                return 0;
        return fail(reterr, -EPERM, "%s carries %s %s %s now; refusing to make a filesystem on it (wipe it with "
                    "wipefs -a, or mark it scratch)", path, article(sig.type), sig.type,
                    sig.table ? "partition table" : "signature");
}

/* Stage MOUNT: exactly the filesystem an earlier step made (btrfs members all carry its UUID). */
int fsmember_check_mount(const FsMember *b, const ProtoFsSetup *setup, char **reterr) {
        const char *path = b->node ?: b->m->path;
        FsSignature sig;
        int r;

        r = fsmember_probe(b->fd, &sig);
        if (r < 0)
                return fail(reterr, -EPERM, "cannot probe %s for the %s filesystem %s (%s); refusing to mount it", path,
                            setup->fs_type, setup->expect_uuid, r == -EUCLEAN ? "conflicting signatures" :
                            strerror(-r));
        if (proto_fs_layout_is_lvm(setup->layout) && !proto_fs_layout_builds_md(setup->layout)) {
                /* A physical volume; lvm then activates exactly the group md_name on them. */
                if (streq(sig.type, "LVM2_member"))
                        return 0;
                return fail(reterr, -EPERM, "%s carries %s, not a physical volume of the volume group %s this job "
                            "made; refusing to activate it", path, sig.type[0] ? sig.type : "no signature",
                            setup->md_name);
        }
        if (proto_fs_layout_builds_md(setup->layout)) {
                if (streq(sig.type, "linux_raid_member") && fsmember_md_label_ours(sig.label, setup->md_name, true))
                        return 0;
                return fail(reterr, -EPERM, "%s carries %s%s%s, not a member of the md array %s this job made; "
                            "refusing to assemble it", path, sig.type[0] ? sig.type : "no signature",
                            sig.label[0] ? " named " : "", sig.label, setup->md_name);
        }
        if (!streq(sig.type, fs_entry_mount_type(setup->fs_type)) || strcasecmp(sig.uuid, setup->expect_uuid) != 0)
                return fail(reterr, -EPERM, "%s carries %s%s%s%s, not the %s filesystem %s this job made; refusing to "
                            "mount it", path, sig.type[0] ? sig.type : "no signature", sig.uuid[0] ? " (UUID " : "",
                            sig.uuid, sig.uuid[0] ? ")" : "", fs_entry_mount_type(setup->fs_type),
                            setup->expect_uuid);
        return 0;
}

int fsmember_wipe(const FsMember *b, char **reterr) {
        const char *path = b->m->path;
        blkid_probe pr;
        int r = 0;

        pr = blkid_new_probe();
        if (!pr)
                return -ENOMEM;
        if (blkid_probe_set_device(pr, b->fd, 0, 0) < 0) {
                blkid_free_probe(pr);
                return fail(reterr, -EIO, "cannot probe %s to wipe it", path);
        }
        blkid_probe_enable_superblocks(pr, 1);
        blkid_probe_set_superblocks_flags(pr, BLKID_SUBLKS_MAGIC | BLKID_SUBLKS_BADCSUM);
        blkid_probe_enable_partitions(pr, 1);
        blkid_probe_set_partitions_flags(pr, BLKID_PARTS_MAGIC | BLKID_PARTS_FORCE_GPT);
        /* Bounded: each round wipes one signature. */
        for (unsigned i = 0; i < 256; i++) {
                r = blkid_do_probe(pr);
                if (r != 0)
                        break;
                if (blkid_do_wipe(pr, 0) < 0) {
                        r = -EIO;
                        break;
                }
        }
        blkid_free_probe(pr);
        if (r < 0)
                return fail(reterr, -EIO, "cannot wipe the signatures of %s", path);
        if (fsync(b->fd) < 0)
                return fail(reterr, -errno, "cannot flush %s after wiping it: %m", path);
        return 0;
}

int fsmember_claim_all(const ProtoFsSetup *setup, FsMember *b, char **reterr) {
        bool make = setup->stage == PROTO_FS_STAGE_MAKE;
        int r;

        for (uint32_t i = 0; i < setup->n_members; i++) {
                b[i].m = &setup->members[i];
                b[i].dev = (dev_t) setup->members[i].dev;
                r = fsmember_open(&b[i], b[i].m->path, make ? O_RDWR : O_RDONLY, reterr);
                if (r < 0)
                        return r;
                r = blockdev_name_from_devnum(NULL, (dev_t) b[i].m->dev, &b[i].name);
                if (r < 0)
                        return fail(reterr, -EPERM, "cannot find the kernel name of %s (%s); refusing to use it",
                                    b[i].m->path, strerror(-r));
                if (strchr(b[i].name, '!'))
                        return fail(reterr, -EINVAL, "%s (kernel name %s) has a node in a subdirectory of /dev; "
                                    "filesystem steps take devices named /dev/<name>", b[i].m->path, b[i].name);
                if (asprintf(&b[i].node, "/dev/%s", b[i].name) < 0) {
                        b[i].node = NULL;
                        return -ENOMEM;
                }
                /* With partitions= the filesystem is on a partition (fspart.h checks it there). */
                r = make ? member_check_make(&b[i], setup->expect_uuid, setup->md_name, reterr) :
                    setup->partitions ? 0 : fsmember_check_mount(&b[i], setup, reterr);
                if (r < 0)
                        return r;
        }
        return 0;
}
