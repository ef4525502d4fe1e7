/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * /proc/stat parsing and the deltas of sysstat.h. Kept free of any engine state so the maths can be
 * checked against recorded snapshots.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sysstat.h"
#include "shared/util.h"

int cpustat_parse(const char *text, CpuStat *ret) {
        const char *p;
        uint64_t v[8] = {};

        if (!text)
                return -EINVAL;
        /* The aggregate line is the first one; be tolerant and find "cpu " at a line start. */
        for (p = text; p; p = strchr(p, '\n')) {
                if (*p == '\n')
                        p++;
                if (strncmp(p, "cpu ", 4) == 0)
                        break;
        }
        if (!p)
                return -EINVAL;
        p += 4;

        /* Fields after iowait appeared over time (irq, softirq: 2.6.0; steal: 2.6.11); 5 is the
         * minimum we accept, missing later ones count as 0. */
        unsigned n = 0;
        for (; n < ELEMENTSOF(v); n++) {
                char *end;
                while (*p == ' ')
                        p++;
                if (*p < '0' || *p > '9')
                        break;
                errno = 0;
                v[n] = strtoull(p, &end, 10);
                if (errno != 0)
                        return -EINVAL;
                p = end;
        }
        if (n < 5)
                return -EINVAL;

        *ret = (CpuStat) {
                .user = v[0], .nice = v[1], .system = v[2], .idle = v[3], .iowait = v[4],
                .irq = v[5], .softirq = v[6], .steal = v[7],
        };
        return 0;
}

int cpustat_read(const char *path, CpuStat *ret) {
        /* The "cpu " line is first; 4 KiB holds it on any machine. */
        char buf[4096];
        _cleanup_close_ int fd = open(path ?: "/proc/stat", O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return -errno;
        ssize_t n = read(fd, buf, sizeof(buf) - 1);
        if (n < 0)
                return -errno;
        buf[n] = 0;
        return cpustat_parse(buf, ret);
}

static uint64_t delta(uint64_t a, uint64_t b) {
        return b >= a ? b - a : 0;
}

void cpustat_usage(const CpuStat *a, const CpuStat *b, CpuUsage *ret) {
        uint64_t user = delta(a->user, b->user) + delta(a->nice, b->nice);
        uint64_t sys = delta(a->system, b->system) + delta(a->irq, b->irq) + delta(a->softirq, b->softirq);
        uint64_t iowait = delta(a->iowait, b->iowait);
        uint64_t total = user + sys + iowait + delta(a->idle, b->idle) + delta(a->steal, b->steal);

        if (total == 0) {
                *ret = (CpuUsage) {};
                return;
        }
        *ret = (CpuUsage) {
                .user_pct = 100.0 * (double) user / (double) total,
                .sys_pct = 100.0 * (double) sys / (double) total,
                .iowait_pct = 100.0 * (double) iowait / (double) total,
        };
}

void blockstats_usage(const BlockStat *a, const BlockStat *b, unsigned n, uint64_t interval_us,
                      double *ret_util_pct, double *ret_queue) {
        double util = -1, queue = -1;

        for (unsigned i = 0; i < n; i++) {
                double u = blockstat_util_pct(&a[i], &b[i], interval_us);
                double q = blockstat_queue(&a[i], &b[i], interval_us);
                util = MAX(util, u);
                queue = (queue < 0 ? 0 : queue) + q;
        }
        *ret_util_pct = util;
        *ret_queue = queue;
}
