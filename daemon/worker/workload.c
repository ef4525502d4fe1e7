/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Offset generators (workload.h). Random order without repeats uses no memory: a full-period
 * linear congruential walk over [0, 2^bits) (a ≡ 1 mod 4, c odd), passed through an invertible
 * xorshift-multiply mix so consecutive outputs are unrelated, with values >= n_blocks skipped
 * (fewer than one skip per offset on average). Every pass draws new constants. The position
 * workload's offsets are a plan computed from the device size alone (position_plan_*()).
 * Metadata's file names are a hash of (seed, number), so no table of names is kept.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "shared/util.h"
#include "workload.h"

#define STRIDE_DEFAULT_BLOCKS 17

static void random_pass_begin(OffsetGen *g) {
        g->a = (prng_next(&g->rng) << 2 | 1) & g->mask;           /* ≡ 1 mod 4 */
        if (g->bits >= 2)
                g->a = (g->a & ~UINT64_C(3)) | 1;
        g->c = (prng_next(&g->rng) | 1) & g->mask;
        g->x = prng_next(&g->rng) & g->mask;
        g->mul = prng_next(&g->rng) | 1;
}

static uint64_t random_mix(const OffsetGen *g, uint64_t v) {
        unsigned half = g->bits / 2 ? g->bits / 2 : 1;

        /* Each step is a bijection on bits-wide values. */
        v ^= v >> half;
        v = (v * g->mul) & g->mask;
        v ^= v >> half;
        return v;
}

int offset_gen_init(OffsetGen *g, OffsetOrder order, uint64_t region, uint64_t block_size, uint64_t stride,
                    uint64_t seed) {
        if (block_size == 0 || region < block_size || order >= _OFFSET_ORDER_MAX)
                return -EINVAL;

        *g = (OffsetGen) {
                .order = order,
                .block_size = block_size,
                .n_blocks = region / block_size,
                .stride_blocks = stride >= block_size ? stride / block_size : STRIDE_DEFAULT_BLOCKS,
        };
        prng_seed(&g->rng, seed);

        if (order == OFFSET_RANDOM) {
                while (g->bits < 64 && (UINT64_C(1) << g->bits) < g->n_blocks)
                        g->bits++;
                g->mask = g->bits >= 64 ? UINT64_MAX : (UINT64_C(1) << g->bits) - 1;
                random_pass_begin(g);
        }
        return 0;
}

static void pass_end(OffsetGen *g) {
        g->pass++;
        g->emitted = 0;
        g->column = g->row = 0;
        if (g->order == OFFSET_RANDOM)
                random_pass_begin(g);
}

uint64_t offset_gen_next(OffsetGen *g) {
        uint64_t block = 0;

        switch (g->order) {
        case OFFSET_SEQUENTIAL:
                block = g->emitted;
                break;
        case OFFSET_BACKWARD:
                block = g->n_blocks - 1 - g->emitted;
                break;
        case OFFSET_STRIDE:
                for (;;) {
                        block = g->column + g->row * g->stride_blocks;
                        if (block < g->n_blocks && g->column < g->stride_blocks)
                                break;
                        g->column++;
                        g->row = 0;
                }
                g->row++;
                break;
        case OFFSET_RANDOM:
                do {
                        block = random_mix(g, g->x);
                        g->x = (g->a * g->x + g->c) & g->mask;
                } while (block >= g->n_blocks);
                break;
        case OFFSET_UNIFORM:
        default:
                block = prng_below(&g->rng, g->n_blocks);
                break;
        }

        if (++g->emitted >= g->n_blocks)
                pass_end(g);
        return block * g->block_size;
}

OffsetOrder workload_offset_order(Workload w) {
        switch (w) {
        case WORKLOAD_RANDREAD:
        case WORKLOAD_RANDWRITE:
        case WORKLOAD_RANDRW:
                return OFFSET_RANDOM;
        case WORKLOAD_BACKWARD_READ:
                return OFFSET_BACKWARD;
        case WORKLOAD_STRIDE_READ:
                return OFFSET_STRIDE;
        case WORKLOAD_SEEKS:
        case WORKLOAD_PING:
                return OFFSET_UNIFORM;
        default:
                return OFFSET_SEQUENTIAL;
        }
}

static uint64_t gcd_u64(uint64_t a, uint64_t b) {
        while (b != 0) {
                uint64_t t = a % b;
                a = b;
                b = t;
        }
        return a;
}

int position_plan_init(PositionPlan *p, uint64_t device_bytes, uint32_t positions, uint64_t size,
                       uint64_t block_size, uint32_t align) {
        uint64_t unit = block_size, bytes;

        if (positions < 2 || block_size == 0)
                return -EINVAL;
        /* block_size is at most 64 MiB and an alignment at most 1 MiB (spec.h, spec-check.c), so the
         * product cannot overflow; refuse what would. */
        if (align > 1 && unit % align != 0) {
                uint64_t g = gcd_u64(unit, align);
                if (unit / g > UINT64_MAX / align)
                        return -EINVAL;
                unit = unit / g * align;
        }
        bytes = MIN(size, device_bytes / positions) / unit * unit;
        if (bytes == 0)
                return -EINVAL;
        *p = (PositionPlan) {
                .device_bytes = device_bytes,
                .positions = positions,
                .bytes = bytes,
                .unit = unit,
        };
        return 0;
}

uint64_t position_plan_offset(const PositionPlan *p, uint32_t i) {
        /* i × span can exceed 64 bits on a device of more than 16 PiB / 1000: 128-bit product. */
        unsigned __int128 span = p->device_bytes - p->bytes;
        uint64_t at = (uint64_t) (span * MIN(i, p->positions - 1) / (p->positions - 1));

        return at / p->unit * p->unit;
}

uint64_t position_plan_total(const PositionPlan *p) {
        return p->bytes * p->positions;
}

uint64_t wait_slice_end(uint64_t now_ns, uint64_t deadline_ns, uint64_t slice_ns) {
        if (slice_ns == 0 || deadline_ns <= now_ns || deadline_ns - now_ns <= slice_ns)
                return deadline_ns;
        return deadline_ns - (deadline_ns - now_ns - 1) / slice_ns * slice_ns;
}

uint64_t ping_request_offset(uint64_t sample_ns, uint64_t slice_ns) {
        uint64_t gap = slice_ns == 0 ? sample_ns : sample_ns % slice_ns;

        if (gap == 0)
                gap = slice_ns;
        return gap / 2;
}

uint64_t ping_first_request(uint64_t origin, uint64_t offset, uint64_t interval, uint64_t not_before) {
        uint64_t base = origin + offset;

        if (not_before <= base)
                return base - (base - not_before) / interval * interval;
        return base + (not_before - base + interval - 1) / interval * interval;
}

static const char meta_name_chars[] = "abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ";

void meta_file_name(uint64_t seed, uint64_t i, bool random_names, char buf[static META_NAME_MAX + 1]) {
        /* Each file's own stream of draws: splitmix64 over a state derived from the seed and i. */
        uint64_t x = seed ^ (i * UINT64_C(0xd1b54a32d192ed03));
        unsigned len = (unsigned) (splitmix64(&x) % (META_NAME_EXTRA_MAX + 1));
        char extra[META_NAME_EXTRA_MAX + 1];

        for (unsigned k = 0; k < len; k++)
                extra[k] = meta_name_chars[splitmix64(&x) % (sizeof(meta_name_chars) - 1)];
        extra[len] = 0;
        if (random_names)
                snprintf(buf, META_NAME_MAX + 1, "%s%010" PRIx64, extra, i & UINT64_C(0xffffffffff));
        else
                snprintf(buf, META_NAME_MAX + 1, "%010" PRIx64 "%s", i & UINT64_C(0xffffffffff), extra);
}

bool meta_file_name_valid(const char *name) {
        size_t len = strlen(name);

        if (len < META_NAME_HEX || len > META_NAME_MAX || strspn(name, meta_name_chars) != len)
                return false;
        /* Ten lower-case hex digits at the start (sequential) or at the end (random). */
        return strspn(name, "0123456789abcdef") >= META_NAME_HEX ||
               strspn(name + len - META_NAME_HEX, "0123456789abcdef") == META_NAME_HEX;
}

unsigned meta_file_dir(uint64_t i, uint64_t n, unsigned dirs) {
        if (dirs <= 1 || n == 0)
                return 0;
        /* The first n mod dirs directories hold one file more than the others. */
        uint64_t base = n / dirs, rem = n % dirs, boundary = rem * (base + 1);

        i = MIN(i, n - 1);
        if (i < boundary)
                return (unsigned) (i / (base + 1));
        return (unsigned) (rem + (i - boundary) / base);
}
