/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The common interval of a fleet run's step (fleet-interval.h). */
#include "shared/fleet-interval.h"
#include "shared/util.h"

static bool bounds(const FleetHostSpans *h, size_t n, int64_t *ret_begin, int64_t *ret_end) {
        int64_t cs = INT64_MIN, ce = INT64_MAX;
        bool any = false;

        for (size_t i = 0; i < n; i++) {
                if (!h[i].in)
                        continue;
                any = true;
                cs = MAX(cs, h[i].base);
                ce = MIN(ce, h[i].spans[h[i].n_spans - 1].end);
        }
        *ret_begin = cs;
        *ret_end = ce;
        return any && ce > cs;
}

static void inside(FleetHostSpans *h, int64_t cs, int64_t ce) {
        h->bytes = h->ios = h->usec = 0;
        for (size_t k = 0; k < h->n_spans; k++)
                if (h->spans[k].begin >= cs - FLEET_BEGIN_SLACK_USEC && h->spans[k].end <= ce) {
                        h->bytes += h->spans[k].bytes;
                        h->ios += h->spans[k].ios;
                        h->usec += (uint64_t) (h->spans[k].end - h->spans[k].begin);
                }
}

bool fleet_common_interval(FleetHostSpans *h, size_t n, int64_t *ret_begin, int64_t *ret_end) {
        for (size_t i = 0; i < n; i++)
                if (h[i].in && h[i].n_spans == 0)
                        h[i].in = false;
        for (;;) {
                size_t worst = SIZE_MAX, in = 0;

                if (!bounds(h, n, ret_begin, ret_end)) {
                        /* No overlap: leave out the host that began last, while more than one is left. */
                        for (size_t i = 0; i < n; i++)
                                if (h[i].in) {
                                        in++;
                                        if (worst == SIZE_MAX || h[i].base > h[worst].base)
                                                worst = i;
                                }
                        if (in < 2)
                                return false;
                } else {
                        for (size_t i = 0; i < n; i++) {
                                if (!h[i].in)
                                        continue;
                                inside(&h[i], *ret_begin, *ret_end);
                                if (h[i].usec == 0 && (worst == SIZE_MAX || h[i].base > h[worst].base))
                                        worst = i;
                        }
                        if (worst == SIZE_MAX)
                                return true;
                }
                h[worst].in = false;
                h[worst].not_measuring = true;
        }
}
