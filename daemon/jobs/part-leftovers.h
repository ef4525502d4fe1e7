/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Kernel partitions a killed worker left (docs/matrices.md "Partitions"). With partitions=N a
 * step's worker writes a GPT on each member (at the entry's first step) and adds partitions 1..N
 * to the kernel (BLKPG_ADD_PARTITION, daemon/worker/fspart.h), and deletes them when its step ends;
 * one killed with SIGKILL, or with benchd, cannot. The run's row says partitions=N before the worker
 * starts (runs.partitions) and its job the identity of each member at SubmitJob (jobs.steps: device
 * number and disk sequence number), so benchd, when a step's worker of partitions= has ended (its
 * own run) and at start-up (the runs a previous life left running), deletes from the kernel
 * (BLKPG_DEL_PARTITION, as partx --delete does) the partitions of such a run's members that are
 * exactly the job's: the member still the device recorded (same device number and disk sequence
 * number: a loop device attached again, or another disk under the number, has another), partition k
 * of 1..N at the offset and of the size benchd lays out for N on that device (spec.h,
 * spec_partition_layout()), held by nothing (sysfs holders). The kernel refuses the deletion
 * (EBUSY) of a partition that is open (mounted in the killed worker's namespace until its last
 * process has died): it is tried again with what leftovers.h tries again, for some 6 s, then
 * reported and left, and the next job of partitions= on the device deletes it before it partitions
 * (or refuses the device while it is open). Nothing is written to the device: the GPT stays on it, part of what
 * the job made, as the filesystems in the partitions do; the next job on the device as scratch
 * wipes them. A member recorded without a disk sequence number (a kernel before 5.15) cannot be
 * told from another device under its number and is left alone, as is anything else.
 *
 * The decision reads a sysfs tree under sysfs_root (NULL: /sys; a directory a test made):
 * class/block/DISK/{diskseq,size,queue/logical_block_size} and class/block/DISKpK/{partition,start,
 * size,holders/}, with dev/block/MAJ:MIN naming the disk.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <systemd/sd-event.h>

#include "shared/spec.h"

typedef struct PartLeftover {
        char disk[32];                          /* "loop3" */
        uint32_t n;                             /* partitions found, in part[] */
        struct {
                char name[40];                  /* "loop3p2" */
                uint32_t number;                /* 2 */
                int error;                      /* 0: deleted (or dry); else -errno (-EBUSY: held or open) */
        } part[SPEC_PARTITIONS_MAX];
} PartLeftover;

/* The partitions 1..n of the disk with device number dev that are those partitions=n made on it,
 * when the disk still has disk sequence number diskseq: *ret filled (ret->n may be 0). 0; -ENODEV
 * when no disk has that number, -ESTALE when it is another device now (or diskseq is 0: unknown),
 * -EMEDIUMTYPE when dev is a partition itself, -errno when sysfs cannot be read. A partition held
 * by another device is listed with -EBUSY. */
int part_leftovers_find(const char *sysfs_root, dev_t dev, uint64_t diskseq, uint32_t n, PartLeftover *ret);

typedef struct Db Db;

/* The runs of partitions= still running (db_partition_runs_foreach(): own_run 0 at start-up for
 * all of them, else own_run after its step), part_leftovers_find() for each member on the host, and
 * each partition found deleted from the kernel unless held; logged (when: "at start-up", "after job
 * 4's step 2"). With e, one the kernel refuses as open is tried again by leftovers.c's retry, on a
 * timer of e, unless a run still running has its disk by then; never waited for. The number deleted
 * now, or -errno. */
int part_leftovers_clean(Db *db, sd_event *e, const char *when, uint64_t own_run);
/* For leftovers.c's retry: the partitions still pending tried again (again: one still open is kept
 * for another try, else warned about). Whether any is still pending. */
int part_leftovers_retry(bool again);
