/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * xoshiro256** (Blackman & Vigna), seeded with splitmix64: fast enough to fill write buffers and
 * pick offsets without showing up in the CPU time per I/O, and statistically good enough that
 * compression finds nothing. Header-only so the hot loops inline it.
 */
#pragma once

#include <stdint.h>

typedef struct Prng {
        uint64_t s[4];
} Prng;

static inline uint64_t prng_rotl(uint64_t x, int k) {
        return (x << k) | (x >> (64 - k));
}

static inline uint64_t splitmix64(uint64_t *x) {
        uint64_t z = (*x += UINT64_C(0x9e3779b97f4a7c15));
        z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
        z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
        return z ^ (z >> 31);
}

static inline void prng_seed(Prng *p, uint64_t seed) {
        for (unsigned i = 0; i < 4; i++)
                p->s[i] = splitmix64(&seed);
}

static inline uint64_t prng_next(Prng *p) {
        uint64_t *s = p->s;
        uint64_t result = prng_rotl(s[1] * 5, 7) * 9;
        uint64_t t = s[1] << 17;

        s[2] ^= s[0];
        s[3] ^= s[1];
        s[1] ^= s[2];
        s[0] ^= s[3];
        s[2] ^= t;
        s[3] = prng_rotl(s[3], 45);
        return result;
}

/* Uniform in [0, n) without modulo bias (Lemire's multiply-shift with rejection). n > 0. */
static inline uint64_t prng_below(Prng *p, uint64_t n) {
        unsigned __int128 m = (unsigned __int128) prng_next(p) * n;
        uint64_t low = (uint64_t) m;
        if (low < n) {
                uint64_t threshold = -n % n;
                while (low < threshold) {
                        m = (unsigned __int128) prng_next(p) * n;
                        low = (uint64_t) m;
                }
        }
        return (uint64_t) (m >> 64);
}
