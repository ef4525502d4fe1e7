/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The shared number formatting (format.h). The daemon and the worker's protocol carry raw integers
 * (bytes, nanoseconds, counts); the human unit of each is chosen here and only here, so --json
 * stays exact and every program rounds the same way. Pure: no I/O, no globals, no allocation.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>

#include "format.h"
#include "util.h"

const char *format_bytes(char *buf, size_t l, uint64_t bytes) {
        static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };
        size_t u = 0;
        uint64_t v = bytes;

        /* Exact multiples print as integers ("32 KiB"), others with one decimal ("1.5 GiB"). */
        while (u + 1 < ELEMENTSOF(units) && v >= 1024 && v % 1024 == 0) {
                v /= 1024;
                u++;
        }
        if (v < 1024) {
                snprintf(buf, l, "%" PRIu64 " %s", v, units[u]);
                return buf;
        }

        double d = (double) bytes;
        u = 0;
        while (u + 1 < ELEMENTSOF(units) && d >= 1024.0) {
                d /= 1024.0;
                u++;
        }
        snprintf(buf, l, "%.1f %s", d, units[u]);
        return buf;
}

const char *format_rate(char *buf, size_t l, double bytes_per_sec, bool with_unit) {
        double mib = bytes_per_sec / (1024.0 * 1024.0);

        if (!isfinite(mib) || mib < 0)
                snprintf(buf, l, "n/a");
        else if (mib >= 100.0 || mib == 0.0)
                snprintf(buf, l, "%.0f%s", mib, with_unit ? " MiB/s" : "");
        else if (mib >= 1.0)
                snprintf(buf, l, "%.1f%s", mib, with_unit ? " MiB/s" : "");
        else
                snprintf(buf, l, "%.2f%s", mib, with_unit ? " MiB/s" : "");
        return buf;
}

const char *format_iops(char *buf, size_t l, double iops) {
        if (!isfinite(iops) || iops < 0)
                snprintf(buf, l, "n/a");
        else if (iops < 10000.0)
                snprintf(buf, l, "%.0f", iops);
        else if (iops < 1e6)
                snprintf(buf, l, "%.1fk", iops / 1e3);
        else
                snprintf(buf, l, "%.2fM", iops / 1e6);
        return buf;
}

static void format_scaled(char *buf, size_t l, double v, const char *unit) {
        if (v >= 100.0)
                snprintf(buf, l, "%.0f %s", v, unit);
        else if (v >= 10.0)
                snprintf(buf, l, "%.1f %s", v, unit);
        else
                snprintf(buf, l, "%.2f %s", v, unit);
}

const char *format_latency_ns(char *buf, size_t l, double ns) {
        if (!isfinite(ns) || ns < 0)
                snprintf(buf, l, "n/a");
        else if (ns < 1000.0)
                snprintf(buf, l, "%.0f ns", ns);
        else if (ns < 1e6)
                format_scaled(buf, l, ns / 1e3, "µs");
        else if (ns < 1e9)
                format_scaled(buf, l, ns / 1e6, "ms");
        else
                format_scaled(buf, l, ns / 1e9, "s");
        return buf;
}

const char *format_pct(char *buf, size_t l, double pct) {
        if (!isfinite(pct) || pct < 0)
                snprintf(buf, l, "n/a");
        else
                snprintf(buf, l, "%.1f%%", pct);
        return buf;
}
