/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Where each I/O goes and in which direction: the offset generators of every workload and the
 * rwmix choice, as pure functions over a small state (unit-tested for coverage, alignment, order
 * and bounds). No I/O here.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "prng.h"
#include "shared/spec.h"

typedef enum OffsetOrder {
        OFFSET_SEQUENTIAL,  /* 0, bs, 2bs, ... (read, write, rewrite, reread) */
        OFFSET_BACKWARD,    /* last block first (iozone -i 3 backward read) */
        OFFSET_STRIDE,      /* 0, stride, 2·stride, ... then 1 block further, until every block was read */
        OFFSET_RANDOM,      /* a fresh random permutation of the blocks every pass: no repeats in a pass */
        OFFSET_UNIFORM,     /* independent uniform draws (bonnie++ seeks, ioping) */
        _OFFSET_ORDER_MAX,
} OffsetOrder;

typedef struct OffsetGen {
        OffsetOrder order;
        uint64_t block_size;
        uint64_t n_blocks;
        uint64_t stride_blocks;
        uint64_t pass;          /* completed passes over the region */
        uint64_t emitted;       /* offsets handed out in this pass */
        uint64_t column, row;   /* OFFSET_STRIDE */
        unsigned bits;          /* OFFSET_RANDOM: permutation over [0, 2^bits) filtered to n_blocks */
        uint64_t mask, a, c, x, mul;
        Prng rng;
} OffsetGen;

/* region and stride are in bytes; region is rounded down to whole blocks, stride to a multiple of
 * block_size (0 or smaller than a block: iozone's default of 17 blocks). -EINVAL when the region
 * holds no block. */
int offset_gen_init(OffsetGen *g, OffsetOrder order, uint64_t region, uint64_t block_size, uint64_t stride,
                    uint64_t seed);
/* The next offset (a multiple of block_size, offset + block_size <= region). After n_blocks
 * offsets a new pass starts (g->pass increments). */
uint64_t offset_gen_next(OffsetGen *g);

/* The order a workload's data phase uses. */
OffsetOrder workload_offset_order(Workload w);

/* randrw: true for a read, with probability read_pct/100. */
static inline bool rwmix_is_read(Prng *p, uint32_t read_pct) {
        return prng_below(p, 100) < read_pct;
}
