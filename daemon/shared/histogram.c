/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The log-linear latency histogram of histogram.h. Bucket i lives in group g = i / SUB_COUNT and
 * sub-bucket s = i % SUB_COUNT. Group 0 holds the values 0..SUB_COUNT-1 exactly; group g >= 1
 * covers [2^(g+SUB_BITS-1), 2^(g+SUB_BITS)) split into SUB_COUNT buckets of width 2^(g-1). The
 * index is therefore computed from the position of the highest set bit and the SUB_BITS below it,
 * with no loops and no floating point on the hot path (histogram_add).
 */
#include <math.h>
#include <string.h>

#include "histogram.h"

void histogram_init(Histogram *h) {
        memset(h, 0, sizeof(*h));
        h->min = UINT64_MAX;
}

unsigned histogram_bucket_index(uint64_t value) {
        if (value < HISTOGRAM_SUB_COUNT)
                return (unsigned) value;

        unsigned msb = 63u - (unsigned) __builtin_clzll(value);     /* >= SUB_BITS */
        unsigned group = msb - HISTOGRAM_SUB_BITS + 1u;
        unsigned sub = (unsigned) (value >> (msb - HISTOGRAM_SUB_BITS)) & (HISTOGRAM_SUB_COUNT - 1u);
        return group * HISTOGRAM_SUB_COUNT + sub;
}

uint64_t histogram_bucket_lower(unsigned i) {
        unsigned group = i / HISTOGRAM_SUB_COUNT, sub = i % HISTOGRAM_SUB_COUNT;

        if (i >= HISTOGRAM_BUCKETS)
                return UINT64_MAX;
        if (group == 0)
                return sub;
        return (UINT64_C(1) << (group + HISTOGRAM_SUB_BITS - 1u)) + ((uint64_t) sub << (group - 1u));
}

uint64_t histogram_bucket_upper(unsigned i) {
        unsigned group = i / HISTOGRAM_SUB_COUNT;

        if (i >= HISTOGRAM_BUCKETS)
                return UINT64_MAX;
        if (group == 0)
                return i;
        /* lower + width - 1; for the very last bucket this is exactly UINT64_MAX, no overflow. */
        return histogram_bucket_lower(i) + ((UINT64_C(1) << (group - 1u)) - 1u);
}

void histogram_add(Histogram *h, uint64_t value_ns) {
        h->buckets[histogram_bucket_index(value_ns)]++;
        h->count++;
        if (value_ns < h->min)
                h->min = value_ns;
        if (value_ns > h->max)
                h->max = value_ns;
        h->sum += (long double) value_ns;
        h->sum_sq += (long double) value_ns * (long double) value_ns;
}

void histogram_merge(Histogram *h, const Histogram *o) {
        if (o->count == 0)
                return;
        for (unsigned i = 0; i < HISTOGRAM_BUCKETS; i++)
                h->buckets[i] += o->buckets[i];
        h->count += o->count;
        h->min = h->min < o->min ? h->min : o->min;
        h->max = h->max > o->max ? h->max : o->max;
        h->sum += o->sum;
        h->sum_sq += o->sum_sq;
}

uint64_t histogram_percentile(const Histogram *h, double p) {
        if (h->count == 0 || !(p > 0))
                return 0;
        if (p > 100)
                p = 100;

        /* rank = ceil(p/100 × count), in long double so that counts near 2^63 stay exact enough. */
        long double r = ceill((long double) p / 100.0L * (long double) h->count);
        uint64_t rank = r < 1 ? 1 : r >= (long double) h->count ? h->count : (uint64_t) r;

        uint64_t seen = 0;
        for (unsigned i = 0; i < HISTOGRAM_BUCKETS; i++) {
                seen += h->buckets[i];
                if (seen < rank)
                        continue;

                uint64_t lo = histogram_bucket_lower(i), hi = histogram_bucket_upper(i);
                uint64_t mid = lo + (hi - lo) / 2;
                if (mid < h->min)
                        mid = h->min;
                if (mid > h->max)
                        mid = h->max;
                return mid;
        }
        return h->max; /* not reached while count matches the buckets */
}

double histogram_mean(const Histogram *h) {
        if (h->count == 0)
                return 0;
        return (double) (h->sum / (long double) h->count);
}

/* Population standard deviation. All-equal data gives exactly 0 (the sum-of-squares formula
 * would leave rounding noise for values near 2^63). */
double histogram_stddev(const Histogram *h) {
        if (h->count < 2 || h->min == h->max)
                return 0;

        long double n = (long double) h->count;
        long double mean = h->sum / n;
        long double var = h->sum_sq / n - mean * mean;
        if (!(var > 0))
                return 0;
        return (double) sqrtl(var);
}
