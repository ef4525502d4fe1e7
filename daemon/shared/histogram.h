/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Log-linear latency histogram (HdrHistogram / fio plat style). Values are nanoseconds. Values
 * below 2^HISTOGRAM_SUB_BITS are exact; above, every power of two is split into
 * 2^HISTOGRAM_SUB_BITS equal buckets, so a bucket's width is at most 1/128 of its lower bound and
 * the midpoint is within 0.4% of any value in it. Fixed size, no allocation on the hot path.
 */
#pragma once

#include <stdint.h>
#include <stddef.h>

#define HISTOGRAM_SUB_BITS 7
#define HISTOGRAM_SUB_COUNT (1u << HISTOGRAM_SUB_BITS)
/* groups 0..(64 - SUB_BITS) */
#define HISTOGRAM_BUCKETS ((64u - HISTOGRAM_SUB_BITS + 1u) * HISTOGRAM_SUB_COUNT)

typedef struct Histogram {
        uint64_t count;
        uint64_t min;
        uint64_t max;
        long double sum;       /* for the mean */
        long double sum_sq;    /* for the standard deviation */
        uint64_t buckets[HISTOGRAM_BUCKETS];
} Histogram;

void histogram_init(Histogram *h);
void histogram_add(Histogram *h, uint64_t value_ns);
/* h += o */
void histogram_merge(Histogram *h, const Histogram *o);

unsigned histogram_bucket_index(uint64_t value);
/* Smallest and largest value that map to bucket i. */
uint64_t histogram_bucket_lower(unsigned i);
uint64_t histogram_bucket_upper(unsigned i);

/* The value at percentile p (0 < p <= 100): the midpoint of the bucket holding the rank
 * ceil(p/100 × count), clamped to [min, max]. 0 for an empty histogram. */
uint64_t histogram_percentile(const Histogram *h, double p);
double histogram_mean(const Histogram *h);
double histogram_stddev(const Histogram *h);
