/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Buffer patterns (pattern.h). compressible:NN zeroes the first NN% of each 4 KiB chunk and keeps
 * the rest random, so a compressor working on 4 KiB or larger units saves about NN%.
 */
#include <string.h>

#include "pattern.h"

#define CHUNK 4096u

static void fill_random(uint8_t *b, size_t len, Prng *p) {
        size_t i = 0;
        for (; i + 8 <= len; i += 8) {
                uint64_t v = prng_next(p);
                memcpy(b + i, &v, 8);
        }
        if (i < len) {
                uint64_t v = prng_next(p);
                memcpy(b + i, &v, len - i);
        }
}

#define GOLDEN_RATIO_64 UINT64_C(0x61C8864680B583EB)

/* fio's __fill_random_buf() with CONFIG_SEED_BUCKETS 4: seeds seed × 1, 2, 3, 5, each word the
 * previous of its chain times the golden ratio; a tail of fewer than four words from the first. */
static void fill_fio(uint8_t *b, size_t len, uint64_t seed) {
        uint64_t s[4] = { seed, seed * 2, seed * 3, seed * 5 };
        size_t i = 0;

        for (; i + 32 <= len; i += 32)
                for (unsigned k = 0; k < 4; k++) {
                        memcpy(b + i + 8 * k, &s[k], 8);
                        s[k] *= GOLDEN_RATIO_64;
                }
        for (; i < len; i += 8) {
                memcpy(b + i, &s[0], len - i < 8 ? len - i : 8);
                s[0] *= GOLDEN_RATIO_64;
        }
}

static size_t zero_part(uint32_t pct) {
        if (pct > 100)
                pct = 100;
        return (size_t) CHUNK * pct / 100u;
}

void pattern_fill(void *buf, size_t len, PatternKind kind, uint32_t compress_pct, Prng *p) {
        uint8_t *b = buf;

        switch (kind) {
        case PATTERN_ZERO:
        case PATTERN_DEV_ZERO:
                memset(b, 0, len);
                break;
        case PATTERN_COMPRESSIBLE:
                for (size_t off = 0; off < len; off += CHUNK) {
                        size_t n = len - off < CHUNK ? len - off : CHUNK;
                        size_t z = zero_part(compress_pct) < n ? zero_part(compress_pct) : n;
                        memset(b + off, 0, z);
                        fill_random(b + off + z, n - z, p);
                }
                break;
        case PATTERN_RANDOM:
        default:
                fill_random(b, len, p);
                break;
        }
}

void pattern_refresh(void *buf, size_t len, PatternKind kind, uint32_t compress_pct, Prng *p) {
        uint8_t *b = buf;

        switch (kind) {
        case PATTERN_ZERO:
        case PATTERN_DEV_ZERO:  /* the data loop reads /dev/zero itself (stream.c) */
                break;
        case PATTERN_COMPRESSIBLE:
                if (zero_part(compress_pct) + 8 > CHUNK)
                        break;
                for (size_t off = 0; off + CHUNK <= len; off += CHUNK) {
                        uint64_t v = prng_next(p);
                        memcpy(b + off + CHUNK - 8, &v, 8);
                }
                break;
        case PATTERN_RANDOM:
        default:
                /* One stamp per 4 KiB: the unit of every dedupe engine we know (btrfs, ZFS, VDO), and
                 * 8x fewer cache lines to pull back after a DMA than one per sector. */
                for (size_t off = 0; off + 8 <= len; off += CHUNK) {
                        uint64_t v = prng_next(p);
                        memcpy(b + off, &v, 8);
                }
                break;
        }
}

void pattern_refill(void *buf, size_t len, PatternKind kind, uint32_t compress_pct, Prng *p) {
        uint8_t *b = buf;

        switch (kind) {
        case PATTERN_ZERO:
        case PATTERN_DEV_ZERO:
                memset(b, 0, len);
                break;
        case PATTERN_COMPRESSIBLE:
                for (size_t off = 0; off < len; off += CHUNK) {
                        size_t n = len - off < CHUNK ? len - off : CHUNK;
                        size_t z = zero_part(compress_pct) < n ? zero_part(compress_pct) : n;
                        memset(b + off, 0, z);
                        fill_fio(b + off + z, n - z, prng_next(p) | 1);
                }
                break;
        case PATTERN_RANDOM:
        default:
                fill_fio(b, len, prng_next(p) | 1);
                break;
        }
}
