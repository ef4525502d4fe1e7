/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * System-wide CPU accounting from /proc/stat and device utilisation deltas, as pure functions over
 * snapshots (the worker samples; tests feed recorded text). iowait and CPU are system-wide on
 * purpose: that is what vmstat shows and what a storage stack costs the machine.
 */
#pragma once

#include <stdint.h>

#include "shared/blockdev.h"

/* The aggregate "cpu" line of /proc/stat, in USER_HZ ticks. */
typedef struct CpuStat {
        uint64_t user, nice, system, idle, iowait, irq, softirq, steal;
} CpuStat;

typedef struct CpuUsage {
        double user_pct;   /* user + nice */
        double sys_pct;    /* system + irq + softirq */
        double iowait_pct;
} CpuUsage;

/* Parses the text of /proc/stat (only its first "cpu " line). -EINVAL when absent or short. */
int cpustat_parse(const char *text, CpuStat *ret);
/* Reads path (NULL: /proc/stat). */
int cpustat_read(const char *path, CpuStat *ret);
/* Percentages of all ticks that passed between a and b (guest time is already inside user).
 * All zero when no tick passed. */
void cpustat_usage(const CpuStat *a, const CpuStat *b, CpuUsage *ret);

/* Utilisation over a set of devices (the leaves backing a target): the busiest device's %util and
 * the summed average queue size. n == 0 gives -1 for both ("unknown"). */
void blockstats_usage(const BlockStat *a, const BlockStat *b, unsigned n, uint64_t interval_us,
                      double *ret_util_pct, double *ret_queue);
