/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Where each I/O goes and in which direction: the offset generators of every workload, the
 * position workload's offsets, the metadata workload's file names and directories, and the rwmix
 * choice, as pure functions over a small state (unit-tested for coverage, alignment, order and
 * bounds), and when: the sampler's wake-up grid and ping's requests between its points. No I/O
 * here.
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

/* The position workload's offsets: positions of them, evenly spread so that the first starts at 0
 * and the last ends at the device's end (to within one alignment unit when the device size is not
 * a multiple of it). Offset i is floor(i × (device_bytes − bytes) / (positions − 1)) aligned down to
 * unit; bytes, what is read at each, is size capped at device_bytes / positions, also in whole
 * units, so the positions increase and never overlap. */
typedef struct PositionPlan {
        uint64_t device_bytes;
        uint32_t positions;
        uint64_t bytes;         /* read at each offset: a multiple of unit, at least one */
        uint64_t unit;          /* every offset and bytes are multiples of it: block_size, and the
                                 * direct-I/O alignment */
} PositionPlan;

/* align: the direct-I/O alignment (0 or 1: none); unit is the least common multiple of it and
 * block_size. -EINVAL when positions is below 2, block_size is 0, or the device holds fewer than
 * positions units. */
int position_plan_init(PositionPlan *p, uint64_t device_bytes, uint32_t positions, uint64_t size,
                       uint64_t block_size, uint32_t align);
/* Offset i (< p->positions). */
uint64_t position_plan_offset(const PositionPlan *p, uint32_t i);
/* positions × bytes: what the whole sweep reads. */
uint64_t position_plan_total(const PositionPlan *p);

/* The metadata workload's file names, as bonnie++ -n makes them: the file's number as ten hex
 * digits and 0 to META_NAME_EXTRA_MAX letters and digits (a-z, 0-9, A-Z), drawn per file, after
 * them for the sequential phases (name order is then the order of creation) or before them for the
 * random ones (name order unrelated to it). The name of file i is a function of (seed, i) alone, so
 * a phase finds it again without a table of names; it never starts with a dot, and two files of
 * one seed never share a name (the hex digits differ). i < 16^10. */
#define META_NAME_HEX 10
#define META_NAME_EXTRA_MAX 12
#define META_NAME_MAX (META_NAME_HEX + META_NAME_EXTRA_MAX)
void meta_file_name(uint64_t seed, uint64_t i, bool random_names, char buf[static META_NAME_MAX + 1]);
/* True for what meta_file_name() can return (either order). */
bool meta_file_name_valid(const char *name);
/* The directory (0 .. dirs-1) of file i of n: bonnie++ fills its directories one after another, so
 * files 0 .. n/dirs-1 go to the first, and so on (the first n mod dirs hold one more; with fewer
 * files than directories, one each in the first n). */
unsigned meta_file_dir(uint64_t i, uint64_t n, unsigned dirs);

/* randrw: true for a read, with probability read_pct/100. */
static inline bool rwmix_is_read(Prng *p, uint32_t read_pct) {
        return prng_below(p, 100) < read_pct;
}

/* ---- the sampler's wake-ups, and where ping's requests go between them ----
 *
 * The sampler wakes at every sample deadline (origin + k × sample interval) and, to notice a stop
 * or a dead stream, at most a slice later than its last wake-up; the slices are counted back from
 * the deadline, so every wake-up falls on a grid fixed by the origin. */

/* When a wait from now until deadline_ns next wakes: deadline_ns less whole slices, so that the
 * wake-up is after now and at most slice_ns later. */
uint64_t wait_slice_end(uint64_t now_ns, uint64_t deadline_ns, uint64_t slice_ns);

/* Where a ping request goes after each sample deadline: halfway to the sampler's next wake-up,
 * which is a slice later, or sample_ns modulo the slice where that is shorter. */
uint64_t ping_request_offset(uint64_t sample_ns, uint64_t slice_ns);

/* The first of ping's request times at or after not_before: origin + offset + j × interval for a
 * whole number j (negative during a ramp). interval > 0. */
uint64_t ping_first_request(uint64_t origin, uint64_t offset, uint64_t interval, uint64_t not_before);
