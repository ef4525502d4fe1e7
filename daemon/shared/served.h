/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Whether a run's figure is one its device produced: the bytes the workload moved in each
 * direction against the bytes the block device's own counters (/sys/block/NAME/stat) saw during
 * the measured phase, and, for a loop device, what the device under its backing file saw. A
 * direction the device saw less than half of was served from a cache (bonnie++ prints +++++ for
 * a test too fast to time; benchd names the cache). The worker judges its run with this and sends
 * the verdict in RESULT; benchd judges the RESULT's counters again and refuses one that does not
 * match (proto-plausible.c); benchctl names it where the figure is shown. Pure: no I/O;
 * tests/unit/test-served.c holds the table.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "spec.h"

typedef enum ServedFrom {
        SERVED_UNKNOWN,         /* not judged: no device counters (tmpfs), or a metadata run */
        SERVED_DEVICE,          /* the device saw at least half of what the workload moved */
        SERVED_PAGE_CACHE,      /* the target's device saw less than half: the page cache above it */
        SERVED_BACKING_FILE,    /* the loop device saw it, the disk under its backing file did not:
                                 * the host's page cache, or the holes of a sparse image */
        _SERVED_FROM_MAX,
} ServedFrom;

typedef struct ServedInput {
        Workload workload;
        uint64_t bytes_read, bytes_written;             /* what the workload moved */
        bool device_known;                              /* the target's devices' counters */
        uint64_t device_read, device_written;
        bool backing_known;                             /* loop devices' backing disks' counters */
        uint64_t backing_read, backing_written;
} ServedInput;

/* The verdict; *ret_writes (may be NULL): for a cache, whether the writes (rather than the
 * reads) fell short. */
ServedFrom served_from(const ServedInput *in, bool *ret_writes);
/* "device", "page-cache", "backing-file"; NULL for SERVED_UNKNOWN and out of range. */
const char *served_from_to_string(ServedFrom s);
ServedFrom served_from_from_string(const char *s);
