/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The byte packing shared by the protocol's files (proto.c: framing and the frames with logic of
 * their own; proto-fs.c: the filesystem frames; proto-record.c: the records its table describes).
 * Not for use outside daemon/shared/proto*.c.
 */
#pragma once

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "proto.h"

/* ---- byte packing ---- */

static inline void put_u16(uint8_t *p, uint16_t v) {
        p[0] = (uint8_t) v;
        p[1] = (uint8_t) (v >> 8);
}

static inline void put_u32(uint8_t *p, uint32_t v) {
        for (unsigned i = 0; i < 4; i++)
                p[i] = (uint8_t) (v >> (8 * i));
}

static inline void put_u64_raw(uint8_t *p, uint64_t v) {
        for (unsigned i = 0; i < 8; i++)
                p[i] = (uint8_t) (v >> (8 * i));
}

static inline uint16_t get_u16_raw(const uint8_t *p) {
        return (uint16_t) (p[0] | (p[1] << 8));
}

static inline uint32_t get_u32_raw(const uint8_t *p) {
        uint32_t v = 0;
        for (unsigned i = 0; i < 4; i++)
                v |= (uint32_t) p[i] << (8 * i);
        return v;
}

static inline uint64_t get_u64_raw(const uint8_t *p) {
        uint64_t v = 0;
        for (unsigned i = 0; i < 8; i++)
                v |= (uint64_t) p[i] << (8 * i);
        return v;
}

/* A frame under construction: the length is known up front, so one allocation. */
typedef struct Packer {
        uint8_t *buf;
        size_t len;
        size_t pos;
} Packer;

static inline int packer_begin(Packer *k, ProtoType type, size_t payload_len) {
        if (payload_len > PROTO_MAX_PAYLOAD)
                return -EMSGSIZE;

        k->len = PROTO_HEADER_SIZE + payload_len;
        k->buf = malloc(k->len);
        if (!k->buf)
                return -ENOMEM;

        put_u32(k->buf, PROTO_MAGIC);
        put_u16(k->buf + 4, PROTO_VERSION);
        put_u16(k->buf + 6, (uint16_t) type);
        put_u32(k->buf + 8, (uint32_t) payload_len);
        put_u32(k->buf + 12, 0);
        k->pos = PROTO_HEADER_SIZE;
        return 0;
}

static inline void pack_u32(Packer *k, uint32_t v) {
        put_u32(k->buf + k->pos, v);
        k->pos += 4;
}

static inline void pack_u64(Packer *k, uint64_t v) {
        put_u64_raw(k->buf + k->pos, v);
        k->pos += 8;
}

static inline void pack_double(Packer *k, double d) {
        uint64_t v;

        memcpy(&v, &d, sizeof(v));
        pack_u64(k, v);
}

static inline void pack_string(Packer *k, const char *s, size_t n) {
        pack_u32(k, (uint32_t) n);
        memcpy(k->buf + k->pos, s, n);
        k->pos += n;
}

static inline int packer_finish(Packer *k, uint8_t **ret, size_t *ret_len) {
        /* A mismatch here is a bug in this file, not bad input. */
        if (k->pos != k->len) {
                free(k->buf);
                return -EIO;
        }
        *ret = k->buf;
        *ret_len = k->len;
        return 0;
}

/* Length of an encodable string, or negative when it cannot be sent. */
static inline int string_check(const char *s, size_t max, size_t *ret) {
        size_t n;

        if (!s)
                s = "";
        n = strnlen(s, max + 1);
        if (n > max)
                return -EMSGSIZE;
        *ret = n;
        return 0;
}

/* ---- unpacking: a cursor that fails once and stays failed ---- */

typedef struct Cursor {
        const uint8_t *p;
        size_t left;
        bool bad;
} Cursor;

static inline const uint8_t *take(Cursor *c, size_t n) {
        const uint8_t *p;

        if (c->bad || c->left < n) {
                c->bad = true;
                return NULL;
        }
        p = c->p;
        c->p += n;
        c->left -= n;
        return p;
}

static inline uint32_t take_u32(Cursor *c) {
        const uint8_t *p = take(c, 4);
        return p ? get_u32_raw(p) : 0;
}

static inline uint64_t take_u64(Cursor *c) {
        const uint8_t *p = take(c, 8);
        return p ? get_u64_raw(p) : 0;
}

static inline double take_double(Cursor *c) {
        uint64_t v = take_u64(c);
        double d;

        memcpy(&d, &v, sizeof(d));
        if (!isfinite(d))
                c->bad = true;
        return d;
}

/* A string of at most max bytes without NUL, copied into a new NUL-terminated buffer. */
static inline char *take_string(Cursor *c, size_t max) {
        uint32_t n = take_u32(c);
        const uint8_t *p;
        char *s;

        if (c->bad)
                return NULL;
        if (n > max) {
                c->bad = true;
                return NULL;
        }
        p = take(c, n);
        if (!p)
                return NULL;
        if (memchr(p, 0, n)) {
                c->bad = true;
                return NULL;
        }
        s = malloc((size_t) n + 1);
        if (!s) {
                c->bad = true;
                return NULL;
        }
        memcpy(s, p, n);
        s[n] = 0;
        return s;
}

static inline int cursor_begin(Cursor *c, const ProtoFrame *f, ProtoType type) {
        if (!f || f->type != type)
                return -EBADMSG;
        if (f->length > PROTO_MAX_PAYLOAD || (f->length > 0 && !f->payload))
                return -EBADMSG;
        *c = (Cursor) { .p = f->payload, .left = f->length };
        return 0;
}

/* The whole payload was consumed and every field was well-formed. */
static inline bool cursor_done(const Cursor *c) {
        return !c->bad && c->left == 0;
}

static inline bool pct_ok(double d) {
        return d >= 0.0 && d <= 100.0;
}

static inline bool pct_or_unknown_ok(double d) {
        return d == -1.0 || pct_ok(d);
}
