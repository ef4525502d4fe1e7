/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * See served.h. A direction is judged when the workload moved bytes in it; the device's counters
 * can only add (readahead, the journal, other processes on a shared disk), so a shortfall is the
 * one thing they tell for sure: those bytes never reached the device in the measured phase.
 */
#include <stddef.h>

#include "served.h"
#include "util.h"

static const char *const served_table[_SERVED_FROM_MAX] = {
        [SERVED_DEVICE] = "device",
        [SERVED_PAGE_CACHE] = "page-cache",
        [SERVED_BACKING_FILE] = "backing-file",
};

const char *served_from_to_string(ServedFrom s) {
        return s > SERVED_UNKNOWN && s < _SERVED_FROM_MAX ? served_table[s] : NULL;
}

ServedFrom served_from_from_string(const char *s) {
        for (int i = SERVED_UNKNOWN + 1; s && i < _SERVED_FROM_MAX; i++)
                if (streq(served_table[i], s))
                        return (ServedFrom) i;
        return SERVED_UNKNOWN;
}

/* Less than half of moved reached the counter. */
static bool short_of(uint64_t moved, uint64_t seen) {
        return moved > 0 && seen < moved / 2 + moved % 2;
}

ServedFrom served_from(const ServedInput *in, bool *ret_writes) {
        bool writes = false;
        ServedFrom v;

        /* Metadata's figure is operations on files of a few bytes, which no device counter follows. */
        if (!in->device_known || in->workload == WORKLOAD_METADATA ||
            in->bytes_read + in->bytes_written == 0)
                v = SERVED_UNKNOWN;
        else if (short_of(in->bytes_read, in->device_read) ||
                 (writes = short_of(in->bytes_written, in->device_written)))
                v = SERVED_PAGE_CACHE;
        else if (in->backing_known && (short_of(in->bytes_read, in->backing_read) ||
                                       (writes = short_of(in->bytes_written, in->backing_written))))
                v = SERVED_BACKING_FILE;
        else
                v = SERVED_DEVICE;
        if (ret_writes)
                *ret_writes = v >= SERVED_PAGE_CACHE && writes;
        return v;
}
