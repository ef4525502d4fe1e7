/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Contents of write buffers. "random" is incompressible; before every write the buffer is
 * re-stamped (8 fresh random bytes at the start of every 4 KiB chunk, or in its random tail for
 * compressible:NN) so no two 4 KiB blocks are equal and dedupe cannot flatter a filesystem, at a
 * cost of one store per 4 KiB instead of refilling the whole block. refill_buffers (fio's) does
 * refill the whole block before every write, with fio's generator and so at fio's cost.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "prng.h"
#include "shared/spec.h"

/* Fills buf completely. len is a multiple of 8. */
void pattern_fill(void *buf, size_t len, PatternKind kind, uint32_t compress_pct, Prng *p);
/* Makes buf differ from every earlier block, keeping the pattern's compressibility. */
void pattern_refresh(void *buf, size_t len, PatternKind kind, uint32_t compress_pct, Prng *p);
/* Refills buf completely, as fio's refill_buffers does: four interleaved chains of 64-bit words,
 * each the previous one times the golden ratio (fio's __fill_random_buf() with its default four
 * seed buckets), from a seed drawn from p; compressible:NN keeps its zeros. len is a multiple of 8.
 * Cheaper per byte than pattern_fill(), as cheap as fio: this cost is inside the run's time. */
void pattern_refill(void *buf, size_t len, PatternKind kind, uint32_t compress_pct, Prng *p);
