/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The benchd <-> benchd-worker wire protocol: framing (ProtoReader), encoders and decoders.
 *
 * Every integer is packed byte by byte in little-endian order and doubles travel as their IEEE 754
 * bit pattern in a u64, so no C struct layout ever crosses the socket. The daemon reads frames from
 * a process it does not trust, so the reader is bounded (one header plus PROTO_MAX_PAYLOAD bytes at
 * most) and every decoder checks the exact payload length and the range of every field; anything
 * odd is -EBADMSG and the peer is dropped by the caller.
 */

#include <errno.h>
#include <math.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "proto.h"
#include "served.h"
#include "util.h"

#define PROTO_BUFFER_MAX ((size_t) PROTO_HEADER_SIZE + PROTO_MAX_PAYLOAD)
#define PROTO_LOG_LEVEL_MAX 7u  /* LOG_DEBUG */
#define PROTO_ERRNO_MAX 4095

/* The frame types there are. */
static bool type_known(unsigned type) {
        return type >= PROTO_HELLO && type < _PROTO_TYPE_MAX;
}

/* PHASE and LOG share one payload shape. */
static bool is_text_type(unsigned type) {
        return type == PROTO_PHASE || type == PROTO_LOG;
}

/* ---- byte packing ---- */

static void put_u16(uint8_t *p, uint16_t v) {
        p[0] = (uint8_t) v;
        p[1] = (uint8_t) (v >> 8);
}

static void put_u32(uint8_t *p, uint32_t v) {
        for (unsigned i = 0; i < 4; i++)
                p[i] = (uint8_t) (v >> (8 * i));
}

static void put_u64_raw(uint8_t *p, uint64_t v) {
        for (unsigned i = 0; i < 8; i++)
                p[i] = (uint8_t) (v >> (8 * i));
}

static uint16_t get_u16_raw(const uint8_t *p) {
        return (uint16_t) (p[0] | (p[1] << 8));
}

static uint32_t get_u32_raw(const uint8_t *p) {
        uint32_t v = 0;
        for (unsigned i = 0; i < 4; i++)
                v |= (uint32_t) p[i] << (8 * i);
        return v;
}

static uint64_t get_u64_raw(const uint8_t *p) {
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

static int packer_begin(Packer *k, ProtoType type, size_t payload_len) {
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

static void pack_u32(Packer *k, uint32_t v) {
        put_u32(k->buf + k->pos, v);
        k->pos += 4;
}

static void pack_u64(Packer *k, uint64_t v) {
        put_u64_raw(k->buf + k->pos, v);
        k->pos += 8;
}

static void pack_double(Packer *k, double d) {
        uint64_t v;

        memcpy(&v, &d, sizeof(v));
        pack_u64(k, v);
}

static void pack_string(Packer *k, const char *s, size_t n) {
        pack_u32(k, (uint32_t) n);
        memcpy(k->buf + k->pos, s, n);
        k->pos += n;
}

static int packer_finish(Packer *k, uint8_t **ret, size_t *ret_len) {
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
static int string_check(const char *s, size_t max, size_t *ret) {
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

static const uint8_t *take(Cursor *c, size_t n) {
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

static uint32_t take_u32(Cursor *c) {
        const uint8_t *p = take(c, 4);
        return p ? get_u32_raw(p) : 0;
}

static uint64_t take_u64(Cursor *c) {
        const uint8_t *p = take(c, 8);
        return p ? get_u64_raw(p) : 0;
}

static double take_double(Cursor *c) {
        uint64_t v = take_u64(c);
        double d;

        memcpy(&d, &v, sizeof(d));
        if (!isfinite(d))
                c->bad = true;
        return d;
}

/* A string of at most max bytes without NUL, copied into a new NUL-terminated buffer. */
static char *take_string(Cursor *c, size_t max) {
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

static int cursor_begin(Cursor *c, const ProtoFrame *f, ProtoType type) {
        if (!f || f->type != type)
                return -EBADMSG;
        if (f->length > PROTO_MAX_PAYLOAD || (f->length > 0 && !f->payload))
                return -EBADMSG;
        *c = (Cursor) { .p = f->payload, .left = f->length };
        return 0;
}

/* The whole payload was consumed and every field was well-formed. */
static bool cursor_done(const Cursor *c) {
        return !c->bad && c->left == 0;
}

static bool pct_ok(double d) {
        return d >= 0.0 && d <= 100.0;
}

static bool pct_or_unknown_ok(double d) {
        return d == -1.0 || pct_ok(d);
}

/* ---- reader ---- */

void proto_reader_init(ProtoReader *r) {
        *r = (ProtoReader) {};
}

void proto_reader_clear(ProtoReader *r) {
        free(r->buf);
        proto_reader_init(r);
}

/* Drops the frame handed out last, so its payload pointer dies here, as documented. */
static void reader_compact(ProtoReader *r) {
        if (r->consumed == 0)
                return;
        if (r->consumed < r->len)
                memmove(r->buf, r->buf + r->consumed, r->len - r->consumed);
        r->len -= r->consumed;
        r->consumed = 0;
}

static int reader_reserve(ProtoReader *r, size_t want) {
        size_t n;
        uint8_t *b;

        if (want > PROTO_BUFFER_MAX)
                return -ENOBUFS;
        if (want <= r->size)
                return 0;

        n = r->size > 0 ? r->size : 4096;
        while (n < want)
                n *= 2;
        n = MIN(n, PROTO_BUFFER_MAX);

        b = realloc(r->buf, n);
        if (!b)
                return -ENOMEM;
        r->buf = b;
        r->size = n;
        return 0;
}

int proto_reader_push(ProtoReader *r, const void *data, size_t len) {
        int k;

        reader_compact(r);
        if (len > PROTO_BUFFER_MAX - r->len)
                return -ENOBUFS;
        k = reader_reserve(r, r->len + len);
        if (k < 0)
                return k;
        if (len > 0)
                memcpy(r->buf + r->len, data, len);
        r->len += len;
        return 0;
}

int proto_reader_fill(ProtoReader *r, int fd) {
        ssize_t n;
        size_t room;
        int k;

        reader_compact(r);
        /* Grow towards what the frame at the head needs, never beyond the bound. */
        k = reader_reserve(r, MIN(PROTO_BUFFER_MAX, MAX(r->len + 4096, (size_t) 4096)));
        if (k < 0)
                return k;
        room = r->size - r->len;
        if (room == 0)
                return -ENOBUFS;

        for (;;) {
                n = read(fd, r->buf + r->len, room);
                if (n >= 0)
                        break;
                if (errno == EINTR)
                        continue;
                if (errno == EWOULDBLOCK)
                        return -EAGAIN;
                return -errno;
        }
        r->len += (size_t) n;
        return n > INT32_MAX ? INT32_MAX : (int) n;
}

int proto_reader_next(ProtoReader *r, ProtoFrame *ret) {
        const uint8_t *h;
        uint32_t length;
        uint16_t type;

        reader_compact(r);

        /* Reject a bad magic as soon as its four bytes are here, without waiting for more. */
        if (r->len >= 4 && get_u32_raw(r->buf) != PROTO_MAGIC)
                return -EBADMSG;
        if (r->len < PROTO_HEADER_SIZE)
                return 0;

        h = r->buf;
        if (get_u16_raw(h + 4) != PROTO_VERSION)
                return -EPROTONOSUPPORT;
        type = get_u16_raw(h + 6);
        length = get_u32_raw(h + 8);
        if (get_u32_raw(h + 12) != 0)
                return -EBADMSG;
        if (!type_known(type))
                return -EBADMSG;
        if (length > PROTO_MAX_PAYLOAD)
                return -EMSGSIZE;
        if (r->len - PROTO_HEADER_SIZE < length)
                return 0;

        r->consumed = PROTO_HEADER_SIZE + (size_t) length;
        *ret = (ProtoFrame) {
                .type = type,
                .length = length,
                .payload = r->buf + PROTO_HEADER_SIZE,
        };
        return 1;
}

/* ---- encoders ---- */

int proto_encode_hello(const ProtoHello *m, uint8_t **ret, size_t *ret_len) {
        Packer k;
        int r;

        r = packer_begin(&k, PROTO_HELLO, 8);
        if (r < 0)
                return r;
        pack_u32(&k, m->version);
        pack_u32(&k, m->pid);
        return packer_finish(&k, ret, ret_len);
}

int proto_encode_spec(const ProtoSpec *m, uint8_t **ret, size_t *ret_len) {
        size_t n;
        Packer k;
        int r;

        r = string_check(m->text, PROTO_SPEC_MAX, &n);
        if (r < 0)
                return r;
        if (m->guard.kind >= _PROTO_GUARD_KIND_MAX || (m->guard.flags & ~PROTO_GUARD_SCRATCH))
                return -EINVAL;
        r = packer_begin(&k, PROTO_SPEC, 8 + 4 + 4 + n + 4 + 4 + 3 * 8);
        if (r < 0)
                return r;
        pack_u64(&k, m->job_id);
        pack_u32(&k, m->step);
        pack_string(&k, m->text ?: "", n);
        pack_u32(&k, m->guard.kind);
        pack_u32(&k, m->guard.flags);
        pack_u64(&k, m->guard.dev);
        pack_u64(&k, m->guard.ino);
        pack_u64(&k, m->guard.diskseq);
        return packer_finish(&k, ret, ret_len);
}

int proto_encode_text(ProtoType type, const ProtoText *m, uint8_t **ret, size_t *ret_len) {
        size_t n;
        Packer k;
        int r;

        if (!is_text_type(type))
                return -EINVAL;
        r = string_check(m->text, PROTO_STRING_MAX, &n);
        if (r < 0)
                return r;
        r = packer_begin(&k, type, 4 + 4 + n);
        if (r < 0)
                return r;
        pack_u32(&k, m->level);
        pack_string(&k, m->text ?: "", n);
        return packer_finish(&k, ret, ret_len);
}

#define PROTO_SAMPLE_SIZE (11u * 8u + 6u * 8u)

int proto_encode_sample(const ProtoSample *m, uint8_t **ret, size_t *ret_len) {
        Packer k;
        int r;

        r = packer_begin(&k, PROTO_SAMPLE, PROTO_SAMPLE_SIZE);
        if (r < 0)
                return r;
        pack_u64(&k, m->t_ms);
        pack_u64(&k, m->interval_us);
        pack_u64(&k, m->bytes_read);
        pack_u64(&k, m->bytes_written);
        pack_u64(&k, m->ios_read);
        pack_u64(&k, m->ios_written);
        pack_u64(&k, m->ops);
        pack_u64(&k, m->lat_mean_ns);
        pack_u64(&k, m->lat_p50_ns);
        pack_u64(&k, m->lat_p99_ns);
        pack_u64(&k, m->lat_max_ns);
        pack_double(&k, m->iowait_pct);
        pack_double(&k, m->cpu_user_pct);
        pack_double(&k, m->cpu_sys_pct);
        pack_double(&k, m->dev_util_pct);
        pack_double(&k, m->dev_queue);
        pack_double(&k, m->progress);
        return packer_finish(&k, ret, ret_len);
}

int proto_encode_histogram(const ProtoHistogram *m, uint8_t **ret, size_t *ret_len) {
        Packer k;
        int r;

        if (m->n_entries > PROTO_HISTOGRAM_MAX_ENTRIES)
                return -EMSGSIZE;
        if (m->n_entries > 0 && !m->entries)
                return -EINVAL;
        r = packer_begin(&k, PROTO_HISTOGRAM, 4 + (size_t) m->n_entries * 12);
        if (r < 0)
                return r;
        pack_u32(&k, m->n_entries);
        for (uint32_t i = 0; i < m->n_entries; i++) {
                pack_u32(&k, m->entries[i].index);
                pack_u64(&k, m->entries[i].count);
        }
        return packer_finish(&k, ret, ret_len);
}

#define PROTO_RESULT_FIXED_SIZE (17u * 8u + 4u * 8u)
/* After the device string: two CPU times, the counters' flags, four byte counts, served. */
#define PROTO_RESULT_TAIL_SIZE (2u * 8u + 4u + 4u * 8u + 4u)

int proto_encode_result(const ProtoResult *m, uint8_t **ret, size_t *ret_len) {
        size_t n;
        Packer k;
        int r;

        r = string_check(m->device, PROTO_STRING_MAX, &n);
        if (r < 0)
                return r;
        r = packer_begin(&k, PROTO_RESULT, PROTO_RESULT_FIXED_SIZE + 4 + n + PROTO_RESULT_TAIL_SIZE);
        if (r < 0)
                return r;
        pack_u64(&k, m->started_usec);
        pack_u64(&k, m->duration_usec);
        pack_u64(&k, m->bytes_read);
        pack_u64(&k, m->bytes_written);
        pack_u64(&k, m->ios_read);
        pack_u64(&k, m->ios_written);
        pack_u64(&k, m->ops);
        pack_u64(&k, m->lat_min_ns);
        pack_u64(&k, m->lat_mean_ns);
        pack_u64(&k, m->lat_stddev_ns);
        pack_u64(&k, m->lat_p50_ns);
        pack_u64(&k, m->lat_p90_ns);
        pack_u64(&k, m->lat_p95_ns);
        pack_u64(&k, m->lat_p99_ns);
        pack_u64(&k, m->lat_p999_ns);
        pack_u64(&k, m->lat_p9999_ns);
        pack_u64(&k, m->lat_max_ns);
        pack_double(&k, m->iowait_pct);
        pack_double(&k, m->cpu_user_pct);
        pack_double(&k, m->cpu_sys_pct);
        pack_double(&k, m->dev_util_pct);
        pack_string(&k, m->device ?: "", n);
        pack_u64(&k, m->process_user_usec);
        pack_u64(&k, m->process_sys_usec);
        pack_u32(&k, m->counters);
        pack_u64(&k, m->device_bytes_read);
        pack_u64(&k, m->device_bytes_written);
        pack_u64(&k, m->backing_bytes_read);
        pack_u64(&k, m->backing_bytes_written);
        pack_u32(&k, m->served);
        return packer_finish(&k, ret, ret_len);
}

int proto_encode_error(const ProtoError *m, uint8_t **ret, size_t *ret_len) {
        size_t n;
        Packer k;
        int r;

        r = string_check(m->message, PROTO_STRING_MAX, &n);
        if (r < 0)
                return r;
        r = packer_begin(&k, PROTO_ERROR, 4 + 4 + n);
        if (r < 0)
                return r;
        pack_u32(&k, (uint32_t) m->error);
        pack_string(&k, m->message ?: "", n);
        return packer_finish(&k, ret, ret_len);
}

#define PROTO_PHASE_RESULT_FIXED_SIZE (7u * 8u)

bool proto_phase_name_valid(const char *name) {
        size_t n;

        if (!name)
                return false;
        n = strnlen(name, PROTO_PHASE_NAME_MAX + 1);
        if (n == 0 || n > PROTO_PHASE_NAME_MAX)
                return false;
        for (size_t i = 0; i < n; i++)
                if (!((name[i] >= 'a' && name[i] <= 'z') || name[i] == '-'))
                        return false;
        return true;
}

/* The rules proto.h states, shared by the encoder (a worker bug fails loudly at its end) and the
 * decoder (a hostile worker is dropped at ours). */
static bool phase_result_valid(const ProtoPhaseResult *m) {
        const uint64_t v[] = { m->ops, m->duration_usec, m->lat_min_ns, m->lat_mean_ns, m->lat_p50_ns,
                               m->lat_p99_ns, m->lat_max_ns };

        if (!proto_phase_name_valid(m->name))
                return false;
        for (size_t i = 0; i < ELEMENTSOF(v); i++)
                if (v[i] > (uint64_t) INT64_MAX)
                        return false;
        if (m->ops == 0)
                return m->lat_min_ns == 0 && m->lat_mean_ns == 0 && m->lat_p50_ns == 0 &&
                       m->lat_p99_ns == 0 && m->lat_max_ns == 0;
        return m->lat_min_ns <= m->lat_p50_ns && m->lat_p50_ns <= m->lat_p99_ns &&
               m->lat_p99_ns <= m->lat_max_ns &&
               m->lat_min_ns <= m->lat_mean_ns && m->lat_mean_ns <= m->lat_max_ns;
}

int proto_encode_phase_result(const ProtoPhaseResult *m, uint8_t **ret, size_t *ret_len) {
        size_t n;
        Packer k;
        int r;

        if (!phase_result_valid(m))
                return -EINVAL;
        n = strlen(m->name);
        r = packer_begin(&k, PROTO_PHASE_RESULT, 4 + n + PROTO_PHASE_RESULT_FIXED_SIZE);
        if (r < 0)
                return r;
        pack_string(&k, m->name, n);
        pack_u64(&k, m->ops);
        pack_u64(&k, m->duration_usec);
        pack_u64(&k, m->lat_min_ns);
        pack_u64(&k, m->lat_mean_ns);
        pack_u64(&k, m->lat_p50_ns);
        pack_u64(&k, m->lat_p99_ns);
        pack_u64(&k, m->lat_max_ns);
        return packer_finish(&k, ret, ret_len);
}

#define PROTO_POSITION_RESULT_SIZE (4u + 5u * 8u)

/* proto.h's rules for a PositionResult, for its encoder and its decoder. */
static bool position_result_valid(const ProtoPositionResult *m) {
        const uint64_t v[] = { m->offset_bytes, m->bytes, m->duration_usec, m->lat_mean_ns, m->lat_max_ns };

        for (size_t i = 0; i < ELEMENTSOF(v); i++)
                if (v[i] > (uint64_t) INT64_MAX)
                        return false;
        if (m->bytes == 0)
                return m->lat_mean_ns == 0 && m->lat_max_ns == 0;
        return m->lat_mean_ns <= m->lat_max_ns;
}

int proto_encode_position_result(const ProtoPositionResult *m, uint8_t **ret, size_t *ret_len) {
        Packer k;
        int r;

        if (!position_result_valid(m))
                return -EINVAL;
        r = packer_begin(&k, PROTO_POSITION_RESULT, PROTO_POSITION_RESULT_SIZE);
        if (r < 0)
                return r;
        pack_u32(&k, m->index);
        pack_u64(&k, m->offset_bytes);
        pack_u64(&k, m->bytes);
        pack_u64(&k, m->duration_usec);
        pack_u64(&k, m->lat_mean_ns);
        pack_u64(&k, m->lat_max_ns);
        return packer_finish(&k, ret, ret_len);
}

#define PROTO_STEADY_STATE_SIZE 8u
#define PROTO_STEADY_T_MS_MAX ((uint64_t) INT64_MAX / 1000u)

int proto_encode_steady_state(const ProtoSteadyState *m, uint8_t **ret, size_t *ret_len) {
        Packer k;
        int r;

        if (m->t_ms > PROTO_STEADY_T_MS_MAX)
                return -EINVAL;
        r = packer_begin(&k, PROTO_STEADY_STATE, PROTO_STEADY_STATE_SIZE);
        if (r < 0)
                return r;
        pack_u64(&k, m->t_ms);
        return packer_finish(&k, ret, ret_len);
}

#define PROTO_START_SIZE 8u

int proto_encode_start(const ProtoStart *m, uint8_t **ret, size_t *ret_len) {
        Packer k;
        int r;

        if (m->start_usec > (uint64_t) INT64_MAX)
                return -EINVAL;
        r = packer_begin(&k, PROTO_START, PROTO_START_SIZE);
        if (r < 0)
                return r;
        pack_u64(&k, m->start_usec);
        return packer_finish(&k, ret, ret_len);
}

/* ---- filesystem frames: the field rules ---- */

/* At most max bytes of valid UTF-8 without control characters (but \n and \t when text). */
static bool fs_string_ok(const char *s, size_t max, bool text) {
        size_t n;

        if (!s)
                return false;
        n = strnlen(s, max + 1);
        if (n > max)
                return false;
        for (const char *p = s; *p;) {
                size_t k = utf8_char_len(p);

                if (k == 0)
                        return false;
                if (utf8_is_control(p, k) && !(text && (*p == '\n' || *p == '\t')))
                        return false;
                p += k;
        }
        return true;
}

bool proto_fs_type_valid(const char *s) {
        size_t n;

        if (!s)
                return false;
        n = strnlen(s, PROTO_FS_TYPE_MAX + 1);
        if (n == 0 || n > PROTO_FS_TYPE_MAX)
                return false;
        for (size_t i = 0; i < n; i++)
                if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9')))
                        return false;
        return true;
}

bool proto_fs_layout_valid(const char *fs_type, const char *layout, uint32_t n_members) {
        bool btrfs;

        if (!proto_fs_type_valid(fs_type) || !layout || n_members == 0 || n_members > PROTO_FS_MEMBERS_MAX)
                return false;
        btrfs = streq(fs_type, "btrfs");
        if (!btrfs)
                return streq(layout, "single") && n_members == 1;
        return streq(layout, "single") || streq(layout, "raid0") || streq(layout, "raid1") ||
               streq(layout, "raid10");
}

bool proto_fs_options_valid(const char *s) {
        return fs_string_ok(s, PROTO_FS_OPTIONS_MAX, false);
}

static bool fs_uuid_ok(const char *s) {
        size_t n;

        if (!s)
                return false;
        n = strnlen(s, PROTO_FS_UUID_MAX + 1);
        if (n > PROTO_FS_UUID_MAX)
                return false;
        for (size_t i = 0; i < n; i++)
                if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= '0' && s[i] <= '9') ||
                      s[i] == '-'))
                        return false;
        return true;
}

bool proto_fs_setup_valid(const ProtoFsSetup *m) {
        if (!m || (m->stage != PROTO_FS_STAGE_MAKE && m->stage != PROTO_FS_STAGE_MOUNT))
                return false;
        if (!proto_fs_layout_valid(m->fs_type, m->layout, m->n_members) || !m->members)
                return false;
        if (!proto_fs_options_valid(m->mkfs_options) || !proto_fs_options_valid(m->mount_options))
                return false;
        /* MOUNT names the filesystem to mount; MAKE may name the one an earlier entry of the job made. */
        if (!fs_uuid_ok(m->expect_uuid) || (m->stage == PROTO_FS_STAGE_MOUNT && m->expect_uuid[0] == 0))
                return false;
        for (uint32_t i = 0; i < m->n_members; i++) {
                const ProtoFsMember *b = &m->members[i];

                if (!fs_string_ok(b->path, PROTO_FS_PATH_MAX, false) || b->path[0] != '/')
                        return false;
                if (b->dev == 0 || (b->flags & ~PROTO_GUARD_SCRATCH))
                        return false;
                for (uint32_t j = 0; j < i; j++)
                        if (m->members[j].dev == b->dev)
                                return false;
        }
        return true;
}

bool proto_fs_info_valid(const ProtoFsInfo *m) {
        return m && proto_fs_type_valid(m->fs_type) && fs_uuid_ok(m->uuid) &&
               fs_string_ok(m->mkfs_command, PROTO_STRING_MAX, false) &&
               fs_string_ok(m->mkfs_output, PROTO_FS_OUTPUT_MAX, true) &&
               fs_string_ok(m->mount_options, PROTO_FS_OPTIONS_MAX, false);
}

int proto_encode_fs_setup(const ProtoFsSetup *m, uint8_t **ret, size_t *ret_len) {
        size_t len;
        Packer k;
        int r;

        if (!proto_fs_setup_valid(m))
                return -EINVAL;
        /* Valid strings are bounded far below PROTO_MAX_PAYLOAD all together. */
        len = 4 + 5 * 4 + strlen(m->fs_type) + strlen(m->layout) + strlen(m->mkfs_options) +
              strlen(m->mount_options) + strlen(m->expect_uuid) + 4;
        for (uint32_t i = 0; i < m->n_members; i++)
                len += 4 + strlen(m->members[i].path) + 8 + 8 + 4;
        r = packer_begin(&k, PROTO_FS_SETUP, len);
        if (r < 0)
                return r;
        pack_u32(&k, m->stage);
        pack_string(&k, m->fs_type, strlen(m->fs_type));
        pack_string(&k, m->layout, strlen(m->layout));
        pack_string(&k, m->mkfs_options, strlen(m->mkfs_options));
        pack_string(&k, m->mount_options, strlen(m->mount_options));
        pack_string(&k, m->expect_uuid, strlen(m->expect_uuid));
        pack_u32(&k, m->n_members);
        for (uint32_t i = 0; i < m->n_members; i++) {
                const ProtoFsMember *b = &m->members[i];

                pack_string(&k, b->path, strlen(b->path));
                pack_u64(&k, b->dev);
                pack_u64(&k, b->diskseq);
                pack_u32(&k, b->flags);
        }
        return packer_finish(&k, ret, ret_len);
}

int proto_encode_fs_info(const ProtoFsInfo *m, uint8_t **ret, size_t *ret_len) {
        Packer k;
        int r;

        if (!proto_fs_info_valid(m))
                return -EINVAL;
        r = packer_begin(&k, PROTO_FS_INFO, 5 * 4 + strlen(m->fs_type) + strlen(m->uuid) + strlen(m->mkfs_command) +
                         strlen(m->mkfs_output) + strlen(m->mount_options) + 6 * 8);
        if (r < 0)
                return r;
        pack_string(&k, m->fs_type, strlen(m->fs_type));
        pack_string(&k, m->uuid, strlen(m->uuid));
        pack_string(&k, m->mkfs_command, strlen(m->mkfs_command));
        pack_u64(&k, m->mkfs_usec);
        pack_string(&k, m->mkfs_output, strlen(m->mkfs_output));
        pack_string(&k, m->mount_options, strlen(m->mount_options));
        pack_u64(&k, m->size_bytes);
        pack_u64(&k, m->used_bytes);
        pack_u64(&k, m->avail_bytes);
        pack_u64(&k, m->inodes);
        pack_u64(&k, m->inodes_free);
        return packer_finish(&k, ret, ret_len);
}

/* ---- decoders ---- */

int proto_decode_hello(const ProtoFrame *f, ProtoHello *ret) {
        ProtoHello m;
        Cursor c;

        if (cursor_begin(&c, f, PROTO_HELLO) < 0)
                return -EBADMSG;
        m.version = take_u32(&c);
        m.pid = take_u32(&c);
        if (!cursor_done(&c) || m.pid == 0 || m.pid > INT32_MAX)
                return -EBADMSG;
        *ret = m;
        return 0;
}

int proto_decode_spec(const ProtoFrame *f, ProtoSpec *ret) {
        ProtoSpec m = {};
        Cursor c;

        if (cursor_begin(&c, f, PROTO_SPEC) < 0)
                return -EBADMSG;
        m.job_id = take_u64(&c);
        m.step = take_u32(&c);
        m.text = take_string(&c, PROTO_SPEC_MAX);
        m.guard.kind = take_u32(&c);
        m.guard.flags = take_u32(&c);
        m.guard.dev = take_u64(&c);
        m.guard.ino = take_u64(&c);
        m.guard.diskseq = take_u64(&c);
        if (!cursor_done(&c) || m.guard.kind >= _PROTO_GUARD_KIND_MAX || (m.guard.flags & ~PROTO_GUARD_SCRATCH)) {
                free(m.text);
                return -EBADMSG;
        }
        *ret = m;
        return 0;
}

int proto_decode_text(const ProtoFrame *f, ProtoText *ret) {
        ProtoText m = {};
        Cursor c;

        if (!f || !is_text_type(f->type))
                return -EBADMSG;
        if (cursor_begin(&c, f, f->type) < 0)
                return -EBADMSG;
        m.level = take_u32(&c);
        m.text = take_string(&c, PROTO_STRING_MAX);
        if (!cursor_done(&c) ||
            (f->type == PROTO_PHASE && (m.level != 0 || m.text[0] == 0)) ||
            (f->type == PROTO_LOG && m.level > PROTO_LOG_LEVEL_MAX)) {
                free(m.text);
                return -EBADMSG;
        }
        *ret = m;
        return 0;
}

int proto_decode_sample(const ProtoFrame *f, ProtoSample *ret) {
        ProtoSample m;
        Cursor c;

        if (cursor_begin(&c, f, PROTO_SAMPLE) < 0)
                return -EBADMSG;
        m.t_ms = take_u64(&c);
        m.interval_us = take_u64(&c);
        m.bytes_read = take_u64(&c);
        m.bytes_written = take_u64(&c);
        m.ios_read = take_u64(&c);
        m.ios_written = take_u64(&c);
        m.ops = take_u64(&c);
        m.lat_mean_ns = take_u64(&c);
        m.lat_p50_ns = take_u64(&c);
        m.lat_p99_ns = take_u64(&c);
        m.lat_max_ns = take_u64(&c);
        m.iowait_pct = take_double(&c);
        m.cpu_user_pct = take_double(&c);
        m.cpu_sys_pct = take_double(&c);
        m.dev_util_pct = take_double(&c);
        m.dev_queue = take_double(&c);
        m.progress = take_double(&c);
        if (!cursor_done(&c))
                return -EBADMSG;

        if (!pct_ok(m.iowait_pct) || !pct_ok(m.cpu_user_pct) || !pct_ok(m.cpu_sys_pct) ||
            !pct_or_unknown_ok(m.dev_util_pct) ||
            !(m.dev_queue == -1.0 || m.dev_queue >= 0.0) ||
            !(m.progress >= 0.0 && m.progress <= 1.0))
                return -EBADMSG;
        if (m.lat_p50_ns > m.lat_p99_ns || m.lat_p99_ns > m.lat_max_ns)
                return -EBADMSG;

        *ret = m;
        return 0;
}

int proto_decode_histogram(const ProtoFrame *f, ProtoHistogram *ret) {
        _cleanup_free_ ProtoHistogramEntry *e = NULL;
        uint32_t n;
        Cursor c;

        if (cursor_begin(&c, f, PROTO_HISTOGRAM) < 0)
                return -EBADMSG;
        n = take_u32(&c);
        if (c.bad || n > PROTO_HISTOGRAM_MAX_ENTRIES || c.left != (size_t) n * 12)
                return -EBADMSG;

        if (n > 0) {
                e = calloc(n, sizeof(*e));
                if (!e)
                        return -ENOMEM;
        }
        for (uint32_t i = 0; i < n; i++) {
                e[i].index = take_u32(&c);
                e[i].count = take_u64(&c);
                if (e[i].index >= HISTOGRAM_BUCKETS)
                        return -EBADMSG;
                if (i > 0 && e[i].index <= e[i - 1].index)
                        return -EBADMSG;
        }
        if (!cursor_done(&c))
                return -EBADMSG;

        *ret = (ProtoHistogram) { .n_entries = n, .entries = TAKE_PTR(e) };
        return 0;
}

int proto_decode_result(const ProtoFrame *f, ProtoResult *ret) {
        ProtoResult m = {};
        uint64_t count;
        Cursor c;

        if (cursor_begin(&c, f, PROTO_RESULT) < 0)
                return -EBADMSG;
        m.started_usec = take_u64(&c);
        m.duration_usec = take_u64(&c);
        m.bytes_read = take_u64(&c);
        m.bytes_written = take_u64(&c);
        m.ios_read = take_u64(&c);
        m.ios_written = take_u64(&c);
        m.ops = take_u64(&c);
        m.lat_min_ns = take_u64(&c);
        m.lat_mean_ns = take_u64(&c);
        m.lat_stddev_ns = take_u64(&c);
        m.lat_p50_ns = take_u64(&c);
        m.lat_p90_ns = take_u64(&c);
        m.lat_p95_ns = take_u64(&c);
        m.lat_p99_ns = take_u64(&c);
        m.lat_p999_ns = take_u64(&c);
        m.lat_p9999_ns = take_u64(&c);
        m.lat_max_ns = take_u64(&c);
        m.iowait_pct = take_double(&c);
        m.cpu_user_pct = take_double(&c);
        m.cpu_sys_pct = take_double(&c);
        m.dev_util_pct = take_double(&c);
        m.device = take_string(&c, PROTO_STRING_MAX);
        m.process_user_usec = take_u64(&c);
        m.process_sys_usec = take_u64(&c);
        m.counters = take_u32(&c);
        m.device_bytes_read = take_u64(&c);
        m.device_bytes_written = take_u64(&c);
        m.backing_bytes_read = take_u64(&c);
        m.backing_bytes_written = take_u64(&c);
        m.served = take_u32(&c);
        if (!cursor_done(&c))
                goto bad;

        if (!pct_ok(m.iowait_pct) || !pct_ok(m.cpu_user_pct) || !pct_ok(m.cpu_sys_pct) ||
            !pct_or_unknown_ok(m.dev_util_pct))
                goto bad;
        /* Known flags only; a count that is not known is 0; every count fits SQLite's INTEGER. */
        if ((m.counters & ~(PROTO_COUNTERS_DEVICE | PROTO_COUNTERS_BACKING)) != 0 ||
            (!(m.counters & PROTO_COUNTERS_DEVICE) && (m.device_bytes_read | m.device_bytes_written) != 0) ||
            (!(m.counters & PROTO_COUNTERS_BACKING) && (m.backing_bytes_read | m.backing_bytes_written) != 0) ||
            m.process_user_usec > INT64_MAX || m.process_sys_usec > INT64_MAX ||
            m.device_bytes_read > INT64_MAX || m.device_bytes_written > INT64_MAX ||
            m.backing_bytes_read > INT64_MAX || m.backing_bytes_written > INT64_MAX ||
            m.served >= _SERVED_FROM_MAX)
                goto bad;

        /* Saturating: a hostile peer must not make the count wrap to zero and skip the checks. */
        count = m.ios_read + m.ios_written;
        if (count < m.ios_read)
                count = UINT64_MAX;
        if (count + m.ops < count)
                count = UINT64_MAX;
        else
                count += m.ops;
        if (count > 0 &&
            !(m.lat_min_ns <= m.lat_p50_ns &&
              m.lat_p50_ns <= m.lat_p90_ns &&
              m.lat_p90_ns <= m.lat_p95_ns &&
              m.lat_p95_ns <= m.lat_p99_ns &&
              m.lat_p99_ns <= m.lat_p999_ns &&
              m.lat_p999_ns <= m.lat_p9999_ns &&
              m.lat_p9999_ns <= m.lat_max_ns))
                goto bad;

        *ret = m;
        return 0;

bad:
        free(m.device);
        return -EBADMSG;
}

int proto_decode_error(const ProtoFrame *f, ProtoError *ret) {
        ProtoError m = {};
        Cursor c;

        if (cursor_begin(&c, f, PROTO_ERROR) < 0)
                return -EBADMSG;
        m.error = (int32_t) take_u32(&c);
        m.message = take_string(&c, PROTO_STRING_MAX);
        if (!cursor_done(&c) || m.error <= 0 || m.error > PROTO_ERRNO_MAX) {
                free(m.message);
                return -EBADMSG;
        }
        *ret = m;
        return 0;
}

int proto_decode_phase_result(const ProtoFrame *f, ProtoPhaseResult *ret) {
        _cleanup_free_ char *name = NULL;
        ProtoPhaseResult m = {};
        Cursor c;

        if (cursor_begin(&c, f, PROTO_PHASE_RESULT) < 0)
                return -EBADMSG;
        name = take_string(&c, PROTO_PHASE_NAME_MAX);
        m.ops = take_u64(&c);
        m.duration_usec = take_u64(&c);
        m.lat_min_ns = take_u64(&c);
        m.lat_mean_ns = take_u64(&c);
        m.lat_p50_ns = take_u64(&c);
        m.lat_p99_ns = take_u64(&c);
        m.lat_max_ns = take_u64(&c);
        if (!cursor_done(&c) || !name)
                return -EBADMSG;
        /* take_string() bounded it by PROTO_PHASE_NAME_MAX, so it fits. */
        memcpy(m.name, name, strlen(name) + 1);
        if (!phase_result_valid(&m))
                return -EBADMSG;
        *ret = m;
        return 0;
}

int proto_decode_position_result(const ProtoFrame *f, ProtoPositionResult *ret) {
        ProtoPositionResult m = {};
        Cursor c;

        if (cursor_begin(&c, f, PROTO_POSITION_RESULT) < 0)
                return -EBADMSG;
        m.index = take_u32(&c);
        m.offset_bytes = take_u64(&c);
        m.bytes = take_u64(&c);
        m.duration_usec = take_u64(&c);
        m.lat_mean_ns = take_u64(&c);
        m.lat_max_ns = take_u64(&c);
        if (!cursor_done(&c) || !position_result_valid(&m))
                return -EBADMSG;
        *ret = m;
        return 0;
}

int proto_decode_steady_state(const ProtoFrame *f, ProtoSteadyState *ret) {
        ProtoSteadyState m = {};
        Cursor c;

        if (cursor_begin(&c, f, PROTO_STEADY_STATE) < 0)
                return -EBADMSG;
        m.t_ms = take_u64(&c);
        if (!cursor_done(&c) || m.t_ms > PROTO_STEADY_T_MS_MAX)
                return -EBADMSG;
        *ret = m;
        return 0;
}

int proto_decode_start(const ProtoFrame *f, ProtoStart *ret) {
        ProtoStart m = {};
        Cursor c;

        if (cursor_begin(&c, f, PROTO_START) < 0)
                return -EBADMSG;
        m.start_usec = take_u64(&c);
        if (!cursor_done(&c) || m.start_usec > (uint64_t) INT64_MAX)
                return -EBADMSG;
        *ret = m;
        return 0;
}

int proto_decode_fs_setup(const ProtoFrame *f, ProtoFsSetup *ret) {
        ProtoFsSetup m = {};
        Cursor c;

        if (cursor_begin(&c, f, PROTO_FS_SETUP) < 0)
                return -EBADMSG;
        m.stage = take_u32(&c);
        m.fs_type = take_string(&c, PROTO_FS_TYPE_MAX);
        m.layout = take_string(&c, PROTO_FS_TYPE_MAX);
        m.mkfs_options = take_string(&c, PROTO_FS_OPTIONS_MAX);
        m.mount_options = take_string(&c, PROTO_FS_OPTIONS_MAX);
        m.expect_uuid = take_string(&c, PROTO_FS_UUID_MAX);
        m.n_members = take_u32(&c);
        if (c.bad || m.n_members == 0 || m.n_members > PROTO_FS_MEMBERS_MAX)
                goto bad;
        m.members = calloc(m.n_members, sizeof(ProtoFsMember));
        if (!m.members) {
                proto_fs_setup_clear(&m);
                return -ENOMEM;
        }
        for (uint32_t i = 0; i < m.n_members; i++) {
                m.members[i].path = take_string(&c, PROTO_FS_PATH_MAX);
                m.members[i].dev = take_u64(&c);
                m.members[i].diskseq = take_u64(&c);
                m.members[i].flags = take_u32(&c);
        }
        if (!cursor_done(&c) || !proto_fs_setup_valid(&m))
                goto bad;
        *ret = m;
        return 0;

bad:
        proto_fs_setup_clear(&m);
        return -EBADMSG;
}

int proto_decode_fs_info(const ProtoFrame *f, ProtoFsInfo *ret) {
        ProtoFsInfo m = {};
        Cursor c;

        if (cursor_begin(&c, f, PROTO_FS_INFO) < 0)
                return -EBADMSG;
        m.fs_type = take_string(&c, PROTO_FS_TYPE_MAX);
        m.uuid = take_string(&c, PROTO_FS_UUID_MAX);
        m.mkfs_command = take_string(&c, PROTO_STRING_MAX);
        m.mkfs_usec = take_u64(&c);
        m.mkfs_output = take_string(&c, PROTO_FS_OUTPUT_MAX);
        m.mount_options = take_string(&c, PROTO_FS_OPTIONS_MAX);
        m.size_bytes = take_u64(&c);
        m.used_bytes = take_u64(&c);
        m.avail_bytes = take_u64(&c);
        m.inodes = take_u64(&c);
        m.inodes_free = take_u64(&c);
        if (!cursor_done(&c) || !proto_fs_info_valid(&m)) {
                proto_fs_info_clear(&m);
                return -EBADMSG;
        }
        *ret = m;
        return 0;
}

void proto_spec_clear(ProtoSpec *m) {
        free(m->text);
        m->text = NULL;
}

void proto_text_clear(ProtoText *m) {
        free(m->text);
        m->text = NULL;
}

void proto_histogram_clear(ProtoHistogram *m) {
        free(m->entries);
        m->entries = NULL;
        m->n_entries = 0;
}

void proto_result_clear(ProtoResult *m) {
        free(m->device);
        m->device = NULL;
}

void proto_error_clear(ProtoError *m) {
        free(m->message);
        m->message = NULL;
}

void proto_fs_setup_clear(ProtoFsSetup *m) {
        free(m->fs_type);
        free(m->layout);
        free(m->mkfs_options);
        free(m->mount_options);
        free(m->expect_uuid);
        for (uint32_t i = 0; m->members && i < m->n_members; i++)
                free(m->members[i].path);
        free(m->members);
        *m = (ProtoFsSetup) {};
}

void proto_fs_info_clear(ProtoFsInfo *m) {
        free(m->fs_type);
        free(m->uuid);
        free(m->mkfs_command);
        free(m->mkfs_output);
        free(m->mount_options);
        *m = (ProtoFsInfo) {};
}

int proto_fs_setup_copy(const ProtoFsSetup *m, ProtoFsSetup *ret) {
        ProtoFsSetup c = { .stage = m->stage, .n_members = m->n_members };

        if (!proto_fs_setup_valid(m))
                return -EINVAL;
        c.fs_type = strdup(m->fs_type);
        c.layout = strdup(m->layout);
        c.mkfs_options = strdup(m->mkfs_options);
        c.mount_options = strdup(m->mount_options);
        c.expect_uuid = strdup(m->expect_uuid);
        c.members = calloc(m->n_members, sizeof(ProtoFsMember));
        if (!c.fs_type || !c.layout || !c.mkfs_options || !c.mount_options || !c.expect_uuid || !c.members)
                goto oom;
        for (uint32_t i = 0; i < m->n_members; i++) {
                c.members[i] = m->members[i];
                c.members[i].path = strdup(m->members[i].path);
                if (!c.members[i].path)
                        goto oom;
        }
        *ret = c;
        return 0;

oom:
        proto_fs_setup_clear(&c);
        return -ENOMEM;
}

/* ---- writing ---- */

int proto_write_all(int fd, const void *buf, size_t len) {
        const uint8_t *p = buf;
        bool use_send = true;

        while (len > 0) {
                ssize_t n;

                if (use_send) {
                        /* MSG_NOSIGNAL: a dead peer is an EPIPE to handle, not a SIGPIPE to die of. */
                        n = send(fd, p, len, MSG_NOSIGNAL);
                        if (n < 0 && errno == ENOTSOCK) {
                                use_send = false;
                                continue;
                        }
                } else
                        n = write(fd, p, len);

                if (n < 0) {
                        if (errno == EINTR)
                                continue;
                        if (errno == EAGAIN || errno == EWOULDBLOCK) {
                                struct pollfd pfd = { .fd = fd, .events = POLLOUT };

                                if (poll(&pfd, 1, -1) < 0 && errno != EINTR)
                                        return -errno;
                                continue;
                        }
                        return -errno;
                }
                if (n == 0)
                        return -EIO;
                p += n;
                len -= (size_t) n;
        }
        return 0;
}
