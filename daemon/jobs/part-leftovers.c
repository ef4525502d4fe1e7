/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Kernel partitions a killed worker left (part-leftovers.h): sysfs reads and BLKPG_DEL_PARTITION on
 * the disk, done where benchd starts and where a worker of a step of partitions= has ended, both
 * rare. Nothing here waits.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <json-c/json.h>
#include <linux/blkpg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "jobs/leftovers.h"
#include "jobs/part-leftovers.h"
#include "store/db.h"
#include "shared/blockdev.h"
#include "shared/json-util.h"
#include "shared/log.h"
#include "shared/strv.h"
#include "shared/util.h"

/* The kernel's name of partition k of disk (block/partitions/core.c): a p between a name ending in a
 * digit and k. */
static void partition_name(const char *disk, uint32_t k, char *buf, size_t size) {
        size_t n = strlen(disk);

        snprintf(buf, size, "%s%s%" PRIu32, disk, n > 0 && disk[n - 1] >= '0' && disk[n - 1] <= '9' ? "p" : "", k);
}

int part_leftovers_find(const char *sysfs_root, dev_t dev, uint64_t diskseq, uint32_t n, PartLeftover *ret) {
        _cleanup_free_ char *disk = NULL;
        uint64_t seq = 0, sectors = 0, sector = 0, start = 0, each = 0;
        int r;

        *ret = (PartLeftover) {};
        if (n == 0 || n > SPEC_PARTITIONS_MAX)
                return -EINVAL;
        r = blockdev_name_from_devnum(sysfs_root, dev, &disk);
        if (r < 0)
                return r == -ENOENT ? -ENODEV : r;
        if (strlen(disk) >= sizeof(ret->disk))
                return -ENAMETOOLONG;
        snprintf(ret->disk, sizeof(ret->disk), "%s", disk);
        if (blockdev_is_partition(sysfs_root, disk))
                return -EMEDIUMTYPE;
        /* The device recorded: without its sequence number, a loop device attached again (or another
         * disk under the number) cannot be told from it. */
        if (diskseq == 0 || blockdev_read_u64(sysfs_root, disk, "diskseq", &seq) < 0 || seq != diskseq)
                return -ESTALE;
        r = blockdev_read_u64(sysfs_root, disk, "size", &sectors);
        if (r >= 0)
                r = blockdev_read_u64(sysfs_root, disk, "queue/logical_block_size", &sector);
        if (r < 0)
                return r;
        if (sector == 0 || sector > UINT32_MAX || sectors > UINT64_MAX / 512)
                return -EINVAL;
        /* What partitions=n lays out on it, as the worker did (fspart.h). */
        r = spec_partition_layout(sectors * 512, (uint32_t) sector, n, &start, &each);
        if (r < 0)
                return r == -ENOSPC ? 0 : r;    /* too small for n: the worker made none */
        for (uint32_t k = 1; k <= n; k++) {
                _cleanup_strv_free_ char **holders = NULL;
                uint64_t number = 0, p_start = 0, p_size = 0;
                char name[40];

                partition_name(disk, k, name, sizeof(name));
                if (blockdev_read_u64(sysfs_root, name, "partition", &number) < 0 || number != k)
                        continue;       /* not in the kernel */
                if (blockdev_read_u64(sysfs_root, name, "start", &p_start) < 0 ||
                    blockdev_read_u64(sysfs_root, name, "size", &p_size) < 0 ||
                    p_start * 512 != start + (k - 1) * each || p_size * 512 != each)
                        continue;       /* not the one benchd lays out: someone else's */
                snprintf(ret->part[ret->n].name, sizeof(ret->part[ret->n].name), "%s", name);
                ret->part[ret->n].number = k;
                if (blockdev_list(sysfs_root, name, "holders", &holders) < 0 || strv_length(holders) > 0)
                        ret->part[ret->n].error = -EBUSY;
                ret->n++;
        }
        return 0;
}

/* Deletes the partitions found from the kernel, on the disk opened by its device number and checked
 * to be it. */
static int part_leftovers_delete(dev_t dev, PartLeftover *l) {
        _cleanup_close_ int fd = -EBADF;
        char path[64];
        struct stat st;

        snprintf(path, sizeof(path), "/dev/block/%u:%u", major(dev), minor(dev));
        fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
        if (fd < 0)
                return -errno;
        if (fstat(fd, &st) < 0)
                return -errno;
        if (!S_ISBLK(st.st_mode) || st.st_rdev != dev)
                return -ESTALE;
        for (uint32_t i = 0; i < l->n; i++) {
                struct blkpg_partition part = { .pno = (int) l->part[i].number };
                struct blkpg_ioctl_arg arg = { .op = BLKPG_DEL_PARTITION, .datalen = sizeof(part), .data = &part };

                if (l->part[i].error < 0)
                        continue;
                /* Refused (EBUSY) while the partition is open: mounted, in any namespace. */
                if (ioctl(fd, BLKPG, &arg) < 0)
                        l->part[i].error = errno == ENXIO ? 0 : -errno;
        }
        return 0;
}

typedef struct CleanCtx {
        const char *when;
        int deleted;
        bool again;             /* an open partition is tried again: noted, not warned about */
} CleanCtx;

/* Partitions the kernel refused to delete (open), for leftovers.c's retry: the last processes of
 * the killed worker's namespace, which hold its mount, die of their parent's death just after it,
 * and benchd learns of the worker's end first. Dropped as soon as a run still running has the disk
 * as a member (its worker deletes and adds the partitions itself). */
#define PART_PENDING_MAX 16u

typedef struct PartPending {
        dev_t dev;
        uint64_t diskseq;
        uint32_t partitions;
        uint64_t job_id, run_id;
} PartPending;

static PartPending pending[PART_PENDING_MAX];
static size_t n_pending;
static Db *pending_db;

static void pending_add(const DbPartitionRun *run, dev_t dev, uint64_t diskseq) {
        for (size_t i = 0; i < n_pending; i++)
                if (pending[i].dev == dev)
                        return;
        if (n_pending >= PART_PENDING_MAX)
                return;
        pending[n_pending++] = (PartPending) {
                .dev = dev, .diskseq = diskseq, .partitions = run->partitions, .job_id = run->job_id,
                .run_id = run->run_id,
        };
}

static void clean_member(CleanCtx *c, const DbPartitionRun *run, dev_t dev, uint64_t diskseq) {
        PartLeftover l;
        char done[SPEC_PARTITIONS_MAX * 42] = "";
        bool busy = false;
        int r;

        /* Recorded without a disk sequence number: it cannot be told from another device. */
        if (diskseq == 0)
                return;
        r = part_leftovers_find(NULL, dev, diskseq, run->partitions, &l);
        if (r == -ENODEV || (r >= 0 && l.n == 0))
                return;
        if (r == -ESTALE) {
                log_info("job %" PRIu64 ": %s (%u:%u) is not the device run %" PRIu64 " partitioned any more; its "
                         "partitions are not looked at %s", run->job_id, l.disk[0] ? l.disk : "the device",
                         major(dev), minor(dev), run->run_id, c->when);
                return;
        }
        if (r < 0) {
                log_warning_errno(r, "job %" PRIu64 ": cannot look for the partitions run %" PRIu64 " may have left "
                                  "in the kernel on %u:%u %s: %m", run->job_id, run->run_id, major(dev), minor(dev),
                                  c->when);
                return;
        }
        r = part_leftovers_delete(dev, &l);
        if (r < 0) {
                log_warning_errno(r, "job %" PRIu64 ": cannot open %s to delete the partitions a killed worker left "
                                  "in the kernel %s: %m", run->job_id, l.disk, c->when);
                return;
        }
        for (uint32_t i = 0; i < l.n; i++) {
                if (l.part[i].error == 0) {
                        size_t len = strlen(done);

                        snprintf(done + len, sizeof(done) - len, "%s%s", len ? ", " : "", l.part[i].name);
                        c->deleted++;
                } else if (l.part[i].error == -EBUSY && c->again) {
                        /* Warned about if it stays so, at the retry's last try. */
                        busy = true;
                } else
                        log_warning_errno(l.part[i].error, "job %" PRIu64 ": partition %s of %s was left in the "
                                          "kernel by a killed worker and cannot be deleted %s: %m%s", run->job_id,
                                          l.part[i].name, l.disk, c->when, l.part[i].error == -EBUSY ?
                                          " (it is held or open, mounted in a namespace still alive; the next job "
                                          "with partitions= on the device deletes it first, or refuses the device "
                                          "while it is open)" : "");
        }
        if (busy)
                pending_add(run, dev, diskseq);
        if (done[0])
                log_notice("job %" PRIu64 ": partitions %s of %s were left in the kernel by a killed worker (run %"
                           PRIu64 "); deleted them %s (the partition table stays on the device)", run->job_id, done,
                           l.disk, run->run_id, c->when);
}

static int clean_run(const DbPartitionRun *run, void *userdata) {
        CleanCtx *c = userdata;
        _cleanup_json_ json_object *a = run->members_json ? json_tokener_parse(run->members_json) : NULL;

        if (!a || !json_object_is_type(a, json_type_array))
                return 0;       /* no member identities recorded: nothing can be told */
        for (size_t i = 0; i < json_object_array_length(a); i++) {
                json_object *o = json_object_array_get_idx(a, i), *v;
                uint64_t maj, min, seq;

                if (!json_object_object_get_ex(o, "kind", &v) || !streq_ptr(json_object_get_string(v), "block"))
                        continue;
                if (!json_object_object_get_ex(o, "dev_major", &v) || (maj = json_object_get_uint64(v)) > 0xfff ||
                    !json_object_object_get_ex(o, "dev_minor", &v) || (min = json_object_get_uint64(v)) > 0xfffff ||
                    !json_object_object_get_ex(o, "diskseq", &v))
                        continue;
                seq = json_object_get_uint64(v);
                clean_member(c, run, makedev((unsigned) maj, (unsigned) min), seq);
        }
        return 0;
}

/* Whether a run still running, other than own_run, has dev among its members. */
typedef struct InUse {
        dev_t dev;
        uint64_t own_run;       /* the killed worker's, which may not be recorded as ended yet */
        bool found;
} InUse;

static int run_uses(const DbPartitionRun *run, void *userdata) {
        InUse *u = userdata;
        _cleanup_json_ json_object *a = NULL;

        if (run->run_id == u->own_run)
                return 0;
        a = run->members_json ? json_tokener_parse(run->members_json) : NULL;
        for (size_t i = 0; a && json_object_is_type(a, json_type_array) && i < json_object_array_length(a); i++) {
                json_object *o = json_object_array_get_idx(a, i), *ma, *mi;

                if (json_object_object_get_ex(o, "dev_major", &ma) && json_object_object_get_ex(o, "dev_minor", &mi) &&
                    makedev((unsigned) json_object_get_uint64(ma), (unsigned) json_object_get_uint64(mi)) == u->dev)
                        u->found = true;
        }
        return 0;
}

int part_leftovers_retry(bool again) {
        CleanCtx c = { .when = "once the killed worker's processes were gone", .again = again };
        PartPending now[PART_PENDING_MAX];
        size_t n = n_pending;

        memcpy(now, pending, sizeof(now));
        n_pending = 0;
        for (size_t i = 0; i < n; i++) {
                InUse u = { .dev = now[i].dev, .own_run = now[i].run_id };
                DbPartitionRun run = {
                        .run_id = now[i].run_id, .job_id = now[i].job_id, .partitions = now[i].partitions,
                };

                /* A new step of partitions= on the disk: its worker deletes them itself. */
                if (!pending_db || db_partition_runs_foreach(pending_db, 0, run_uses, &u) < 0 || u.found)
                        continue;
                clean_member(&c, &run, now[i].dev, now[i].diskseq);
        }
        return n_pending > 0;
}

int part_leftovers_clean(Db *db, sd_event *e, const char *when, uint64_t own_run) {
        CleanCtx c = { .when = when, .again = e != NULL };
        int r;

        pending_db = db;
        r = db_partition_runs_foreach(db, own_run, clean_run, &c);
        if (r < 0)
                return log_warning_errno(r, "cannot read the runs of partitions= benchd recorded (%s) %s: the "
                                         "partitions a killed worker left stay in the kernel", db_last_error(db),
                                         when);
        if (n_pending > 0)
                leftovers_retry_soon(e, db, own_run);
        return c.deleted;
}
