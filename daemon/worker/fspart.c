/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * partitions= in the worker (fspart.h).
 */
#include <blkid.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/blkpg.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fspart.h"
#include "fstool.h"
#include "shared/blockdev.h"
#include "shared/spec.h"
#include "shared/util.h"

#define fail(reterr, r, ...) reterr_set_once((reterr), (r), __VA_ARGS__)


/* ---- the pure parts ---- */

int fspart_layout(uint64_t size, uint32_t sector, uint32_t n, FsPartLayout *ret) {
        uint64_t start, each;
        int r;

        r = spec_partition_layout(size, sector, n, &start, &each);
        if (r < 0)
                return r;
        for (uint32_t i = 0; i < n; i++)
                ret[i] = (FsPartLayout) { .start = start + i * each, .size = each };
        return 0;
}

char *fspart_script(const FsPartLayout *l, uint32_t n, uint32_t sector) {
        char *s = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&s, &len);

        if (!f)
                return NULL;
        fputs("label: gpt\n", f);
        for (uint32_t i = 0; i < n; i++)
                fprintf(f, "start=%" PRIu64 ", size=%" PRIu64 ", type=L\n", l[i].start / sector, l[i].size / sector);
        if (fclose(f) != 0) {
                free(s);
                return NULL;
        }
        return s;
}

int partition_of(const char *disk, uint32_t k, char **ret_name, dev_t *ret_dev) {
        _cleanup_free_ char *name = NULL;
        char path[PATH_MAX];
        unsigned ma, mi;
        size_t n = strlen(disk);
        FILE *f;
        int r;

        if (n == 0 || k == 0 || strchr(disk, '/'))
                return -EINVAL;
        /* The kernel's rule (block/partitions/core.c): a p between a name ending in a digit and k. */
        if (asprintf(&name, "%s%s%" PRIu32, disk, disk[n - 1] >= '0' && disk[n - 1] <= '9' ? "p" : "", k) < 0)
                return -ENOMEM;
        snprintf(path, sizeof(path), "/sys/class/block/%s/dev", name);
        f = fopen(path, "re");
        if (!f)
                return -errno;
        r = fscanf(f, "%u:%u", &ma, &mi);
        fclose(f);
        if (r != 2)
                return -EIO;
        if (ret_dev)
                *ret_dev = makedev(ma, mi);
        if (ret_name)
                *ret_name = TAKE_PTR(name);
        return 0;
}

/* ---- the kernel's partitions ---- */

static int blkpg(int fd, int op, uint32_t k, const FsPartLayout *l) {
        struct blkpg_partition part = { .pno = (int) k };
        struct blkpg_ioctl_arg arg = { .op = op, .datalen = sizeof(part), .data = &part };

        if (l) {
                part.start = (long long) l->start;
                part.length = (long long) l->size;
        }
        return ioctl(fd, BLKPG, &arg) < 0 ? -errno : 0;
}

/* Every partition the kernel has of the disk, so that those of the table are added afresh. */
static int remove_all(int fd, const char *disk, char **reterr) {
        for (uint32_t k = 1; k <= PROTO_FS_PARTITIONS_MAX * 8; k++) {
                int r = blkpg(fd, BLKPG_DEL_PARTITION, k, NULL);

                if (r < 0 && r != -ENXIO && r != -EINVAL)
                        return fail(reterr, r == -EBUSY ? -EPERM : r, "cannot delete partition %" PRIu32 " of %s "
                                    "from the kernel (%s); refusing to partition it", k, disk, strerror(-r));
        }
        return 0;
}

/* How long udev's queue is waited for before partitions are added (udev_idle_wait()), and how
 * often it is looked at. */
#define FSPART_UDEV_WAIT_USEC (10 * USEC_PER_SEC)
#define FSPART_UDEV_PAUSE_USEC (20 * USEC_PER_MSEC)

/* udev's queue, drained before the partitions are added again. The remove events of the
 * partitions deleted before (by the last step's fspart_remove(), or remove_all() here) run
 * `mdadm --incremental --fail NAME` in mdadm's own udev rules (64-md-raid-assembly.rules), and
 * that finds an array by the member's kernel name alone: handled after this step has added the
 * partitions again and assembled its array from them, such an event claims the array O_EXCL for a
 * moment and fails the member of that name in it. /run/udev/queue exists while udevd has events
 * queued or running, as udevadm settle reads it; without udevd (no /run/udev/control) there is
 * nothing to wait for. Bounded: where udev is never idle, the step goes on after
 * FSPART_UDEV_WAIT_USEC, its claims waited for as claim.h waits. */
static void udev_idle_wait(void) {
        uint64_t start = now_usec(CLOCK_MONOTONIC);

        if (access("/run/udev/control", F_OK) < 0)
                return;
        while (access("/run/udev/queue", F_OK) == 0 && now_usec(CLOCK_MONOTONIC) - start < FSPART_UDEV_WAIT_USEC)
                (void) usleep(FSPART_UDEV_PAUSE_USEC);
}

/* The table libblkid reads on fd is exactly l[0..n). */
static int table_check(int fd, const char *disk, const FsPartLayout *l, uint32_t n, char **reterr) {
        blkid_probe pr = blkid_new_probe();
        blkid_partlist list;
        const char *pttype = NULL;
        int r = 0, count;

        if (!pr)
                return -ENOMEM;
        (void) posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
        if (blkid_probe_set_device(pr, fd, 0, 0) < 0) {
                blkid_free_probe(pr);
                return fail(reterr, -EIO, "cannot probe the partition table of %s", disk);
        }
        blkid_probe_enable_partitions(pr, 1);
        blkid_probe_set_partitions_flags(pr, BLKID_PARTS_FORCE_GPT);
        list = blkid_probe_get_partitions(pr);
        if (list && blkid_partlist_get_table(list))
                pttype = blkid_parttable_get_type(blkid_partlist_get_table(list));
        count = list ? blkid_partlist_numof_partitions(list) : -1;
        if (!list || !pttype || !streq(pttype, "gpt") || count != (int) n)
                r = fail(reterr, -EPERM, "%s does not carry the GPT of %" PRIu32 " partitions this job made (%s%s, "
                         "%d partitions); refusing to use it", disk, n, pttype ? pttype : "no table", "",
                         count < 0 ? 0 : count);
        for (int i = 0; r >= 0 && i < count; i++) {
                blkid_partition part = blkid_partlist_get_partition(list, i);
                uint64_t start = (uint64_t) blkid_partition_get_start(part) * 512,
                         size = (uint64_t) blkid_partition_get_size(part) * 512;

                if (blkid_partition_get_partno(part) != i + 1 || start != l[i].start || size != l[i].size)
                        r = fail(reterr, -EPERM, "partition %d of %s is %" PRIu64 " bytes at %" PRIu64 ", not the %"
                                 PRIu64 " at %" PRIu64 " this job made; refusing to use it", i + 1, disk, size, start,
                                 l[i].size, l[i].start);
        }
        blkid_free_probe(pr);
        return r;
}

/* sfdisk in the sandbox: the table of l on b, its command recorded. */
static int write_table(const FsMember *b, const FsPartLayout *l, uint32_t n, uint32_t sector,
                       const FsPrepOptions *opts, ProtoFsInfo *info, char **reterr) {
        _cleanup_(sandbox_result_clear) SandboxResult res = {};
        _cleanup_free_ char *program = NULL, *script = fspart_script(l, n, sector);
        char *argv[] = { (char *) "sfdisk", (char *) "--no-reread", (char *) "--no-tell-kernel", b->node, NULL };
        ToolRootDevice device = { .name = b->name, .dev = b->dev };
        char how[48];
        int r;

        if (!script)
                return -ENOMEM;
        r = fstool_find_program("sfdisk", &program, reterr);
        if (r < 0)
                return r;
        r = fstool_run("sfdisk", program, argv, &device, 1, NULL, script, opts, &res, reterr);
        if (r < 0)
                return r;
        r = fstool_command_add(info, argv, &res);
        if (r < 0)
                return r;
        if (WIFEXITED(res.status) && WEXITSTATUS(res.status) == 0)
                return 0;
        fstool_status_text(res.status, how, sizeof(how));
        {
                _cleanup_free_ char *summary = fstool_output_summary(res.output);
                return fail(reterr, -EINVAL, "sfdisk failed writing the partition table of %s (%s): %s", b->node, how,
                            summary ?: "no output");
        }
}

int fspart_prepare(FsPrep *p, const ProtoFsSetup *setup, FsMember *b, const FsPrepOptions *opts, ProtoFsInfo *info,
                   char **reterr) {
        bool make = setup->stage == PROTO_FS_STAGE_MAKE;
        uint32_t n = setup->partitions, k = setup->partition;
        int r;

        for (uint32_t i = 0; i < setup->n_members; i++) {
                FsPartLayout l[PROTO_FS_PARTITIONS_MAX];
                uint64_t size;
                int sector;
                _cleanup_free_ char *name = NULL, *node = NULL;
                dev_t dev;

                if (blockdev_is_partition(NULL, b[i].name))
                        return fail(reterr, -EINVAL, "%s is a partition; partitions= splits whole devices: name the "
                                    "disk it is on, or leave partitions out", b[i].node);
                if (ioctl(b[i].fd, BLKGETSIZE64, &size) < 0 || ioctl(b[i].fd, BLKSSZGET, &sector) < 0)
                        return fail(reterr, -errno, "cannot read the size of %s: %m", b[i].node);
                r = fspart_layout(size, (uint32_t) sector, n, l);
                if (r == -ENOSPC)
                        return fail(reterr, -EINVAL, "%s (%" PRIu64 " bytes) is too small for %" PRIu32 " partitions "
                                    "of at least %" PRIu64 " MiB each; use fewer partitions or a larger device",
                                    b[i].node, size, n, SPEC_PARTITION_SIZE_MIN >> 20);
                if (r < 0)
                        return fail(reterr, r, "cannot lay out %" PRIu32 " partitions on %s (logical sectors of %d "
                                    "bytes)", n, b[i].node, sector);
                r = remove_all(b[i].fd, b[i].node, reterr);
                if (r < 0)
                        return r;
                if (make) {
                        r = fsmember_wipe(&b[i], reterr);
                        if (r >= 0)
                                r = write_table(&b[i], l, n, (uint32_t) sector, opts, info, reterr);
                        if (r < 0)
                                return r;
                }
                r = table_check(b[i].fd, b[i].node, l, n, reterr);
                if (r < 0)
                        return r;

                udev_idle_wait();
                /* From here on partitions of ours are in the kernel: fspart_remove() deletes them. */
                p->part_disks[p->n_part_disks] = strdup(b[i].node);
                if (!p->part_disks[p->n_part_disks])
                        return -ENOMEM;
                p->n_part_disks++;
                p->n_partitions = n;
                for (uint32_t j = 0; j < n; j++) {
                        r = blkpg(b[i].fd, BLKPG_ADD_PARTITION, j + 1, &l[j]);
                        if (r < 0)
                                return fail(reterr, r, "cannot add partition %" PRIu32 " of %s to the kernel "
                                            "(BLKPG_ADD_PARTITION: %s)", j + 1, b[i].node, strerror(-r));
                }

                /* The member is now its partition k. */
                r = partition_of(b[i].name, k, &name, &dev);
                if (r < 0)
                        return fail(reterr, -EIO, "the kernel shows no partition %" PRIu32 " of %s after adding it "
                                    "(%s)", k, b[i].node, strerror(-r));
                if (asprintf(&node, "/dev/%s", name) < 0)
                        return -ENOMEM;
                fsmember_close(&b[i], 1);
                free(b[i].name);
                free(b[i].node);
                b[i].name = TAKE_PTR(name);
                b[i].node = TAKE_PTR(node);
                b[i].dev = dev;
                r = fsmember_open(&b[i], b[i].node, make ? O_RDWR : O_RDONLY, reterr);
                if (r >= 0 && !make)
                        r = fsmember_check_mount(&b[i], setup, reterr);
                if (r < 0)
                        return r;
        }
        return 0;
}

int fspart_remove(FsPrep *p, char **reterr) {
        int ret = 0;

        for (uint32_t i = 0; i < p->n_part_disks; i++) {
                _cleanup_close_ int fd = open(p->part_disks[i], O_RDONLY | O_CLOEXEC | O_NOCTTY);

                for (uint32_t k = 1; fd >= 0 && k <= p->n_partitions; k++) {
                        int r = blkpg(fd, BLKPG_DEL_PARTITION, k, NULL);

                        /* EBUSY while something has the partition open: udev probing it after its
                         * add or change event, for a moment. Tried for up to 5 s. */
                        for (unsigned t = 0; r == -EBUSY && t < 250; t++) {
                                (void) usleep(20 * 1000);
                                r = blkpg(fd, BLKPG_DEL_PARTITION, k, NULL);
                        }
                        if (r < 0 && r != -ENXIO && ret >= 0)
                                ret = fail(reterr, r, "cannot delete partition %" PRIu32 " of %s from the kernel: %s",
                                           k, p->part_disks[i], strerror(-r));
                }
                if (fd < 0 && ret >= 0)
                        ret = fail(reterr, -errno, "cannot open %s to delete its partitions: %m", p->part_disks[i]);
                free(p->part_disks[i]);
                p->part_disks[i] = NULL;
        }
        p->n_part_disks = 0;
        return ret;
}
