/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The benchd <-> benchd-worker wire protocol: framing (ProtoReader), and the encoders and decoders
 * of the frames with logic of their own (HELLO, SPEC, PHASE/LOG, HISTOGRAM, RESULT, ERROR). The
 * worker's records follow their descriptions (proto-record.c), the filesystem frames are in
 * proto-fs.c, the byte packing all three share in proto-internal.h.
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

#include "proto-internal.h"
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

/* START (daemon -> worker, a fleet step): not a record of the worker's, so written out here. */
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

void proto_text_sanitize(char *s) {
        char *r = s, *w = s;

        if (!s)
                return;
        while (*r) {
                size_t n = utf8_char_len(r);

                if (n == 0 || utf8_is_control(r, n)) {
                        *w++ = '?';
                        r += MAX(n, (size_t) 1);
                } else {
                        memmove(w, r, n);
                        w += n;
                        r += n;
                }
        }
        *w = 0;
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
