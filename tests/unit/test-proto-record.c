/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The worker's records as their descriptions say (daemon/shared/proto-record.h), for every
 * described record, from the table alone: what is encoded decodes to the same record; the fields
 * are on the wire in table order and width; each bound of the table is the last value accepted;
 * a payload one byte short or long is refused; and the typed functions of proto.h agree with the
 * generic ones.
 */
#include <check.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check-util.h"
#include "record-example.h"
#include "shared/proto-record.h"
#include "shared/util.h"

static size_t n_records(void) {
        size_t n = 0;

        while (proto_records[n])
                n++;
        return n;
}

static int roundtrip(const ProtoRecordDesc *d, const void *m, void *out) {
        uint8_t *buf = NULL;
        size_t len = 0;
        ProtoFrame f;
        int r;

        r = proto_record_encode(d, m, &buf, &len);
        if (r < 0)
                return r;
        ck_assert_uint_eq(len, PROTO_HEADER_SIZE + proto_record_payload_size(d, m));
        f = (ProtoFrame) { .type = (uint16_t) d->type, .length = (uint32_t) (len - PROTO_HEADER_SIZE),
                           .payload = buf + PROTO_HEADER_SIZE };
        r = proto_record_decode_as(d, &f, out);
        free(buf);
        return r;
}

static uint64_t le(const uint8_t *p, size_t n) {
        uint64_t v = 0;

        for (size_t i = 0; i < n; i++)
                v |= (uint64_t) p[i] << (8 * i);
        return v;
}

/* Each record round-trips, byte for byte, and its fields sit on the wire where the table says. */
START_TEST(test_roundtrip) {
        const ProtoRecordDesc *d = proto_records[_i];
        uint8_t m[256], out[256], *buf = NULL;
        ProtoRecord rec = {};
        size_t len = 0, o = PROTO_HEADER_SIZE;
        ProtoFrame f;

        ck_assert_uint_le(d->size, sizeof(m));
        ck_assert_ptr_eq(proto_record_desc(d->type), d);
        record_example(d, m);
        ck_assert_msg(proto_record_valid(d, m), "%s: the example is not valid", d->name);
        memset(out, 0xa5, sizeof(out));
        ck_assert_int_eq(roundtrip(d, m, out), 0);
        ck_assert_msg(memcmp(m, out, d->size) == 0, "%s does not round-trip", d->name);

        ck_assert_int_eq(proto_record_encode(d, m, &buf, &len), 0);
        ck_assert_uint_eq(le(buf + 6, 2), d->type);
        for (size_t i = 0; i < d->n_fields; i++) {
                const ProtoField *fl = &d->fields[i];
                double x;
                uint64_t n;

                switch (fl->kind) {
                case PROTO_FIELD_U32:
                        ck_assert_uint_eq(le(buf + o, 4), proto_field_u64(fl, m));
                        o += 4;
                        break;
                case PROTO_FIELD_U64:
                        ck_assert_uint_eq(le(buf + o, 8), proto_field_u64(fl, m));
                        o += 8;
                        break;
                case PROTO_FIELD_F64:
                        n = le(buf + o, 8);
                        memcpy(&x, &n, sizeof(x));
                        ck_assert(x == proto_field_f64(fl, m));
                        o += 8;
                        break;
                case PROTO_FIELD_NAME:
                        n = le(buf + o, 4);
                        ck_assert_uint_eq(n, strlen((char *) m + fl->offset));
                        ck_assert(memcmp(buf + o + 4, (char *) m + fl->offset, n) == 0);
                        o += 4 + n;
                        break;
                }
        }
        ck_assert_uint_eq(o, len);

        /* The tagged decode names the description. */
        f = (ProtoFrame) { .type = (uint16_t) d->type, .length = (uint32_t) (len - PROTO_HEADER_SIZE),
                           .payload = buf + PROTO_HEADER_SIZE };
        ck_assert_int_eq(proto_record_decode(&f, &rec), 0);
        ck_assert_ptr_eq(rec.desc, d);
        ck_assert(memcmp(&rec.sample, m, d->size) == 0);

        /* One byte short or one byte more: refused. */
        f.length--;
        ck_assert_int_eq(proto_record_decode_as(d, &f, out), -EBADMSG);
        f.length++;
        {
                uint8_t *longer = calloc(1, f.length + 1);
                ck_assert_ptr_nonnull(longer);
                memcpy(longer, f.payload, f.length);
                f = (ProtoFrame) { .type = f.type, .length = f.length + 1, .payload = longer };
                ck_assert_int_eq(proto_record_decode_as(d, &f, out), -EBADMSG);
                free(longer);
        }
        /* Under another type: refused. */
        f = (ProtoFrame) { .type = PROTO_HELLO, .length = (uint32_t) (len - PROTO_HEADER_SIZE),
                           .payload = buf + PROTO_HEADER_SIZE };
        ck_assert_int_eq(proto_record_decode_as(d, &f, out), -EBADMSG);
        ck_assert_int_eq(proto_record_decode(&f, &rec), -EBADMSG);
        free(buf);
}
END_TEST

static void set_u64(const ProtoField *f, void *m, uint64_t v) {
        uint32_t v32 = (uint32_t) v;

        if (f->kind == PROTO_FIELD_U32)
                memcpy((uint8_t *) m + f->offset, &v32, sizeof(v32));
        else
                memcpy((uint8_t *) m + f->offset, &v, sizeof(v));
}

static void set_f64(const ProtoField *f, void *m, double v) {
        memcpy((uint8_t *) m + f->offset, &v, sizeof(v));
}

/* Decodes a frame of m written without any check (the table's bounds are what the decoder holds
 * it to): 0 or -EBADMSG. */
static int decode_unchecked(const ProtoRecordDesc *rules, const void *m) {
        ProtoRecordDesc loose = *rules;
        uint8_t out[256], *buf = NULL;
        size_t len = 0;
        ProtoFrame f;
        int r;

        loose.check_on_encode = false;
        ck_assert_int_eq(proto_record_encode(&loose, m, &buf, &len), 0);
        f = (ProtoFrame) { .type = (uint16_t) rules->type, .length = (uint32_t) (len - PROTO_HEADER_SIZE),
                           .payload = buf + PROTO_HEADER_SIZE };
        r = proto_record_decode_as(rules, &f, out);
        free(buf);
        return r;
}

/* Each field's bound from the table is the last value the decoder takes (and, where the encoder
 * checks, the encoder); the rules between fields are left out here (valid = NULL), so that each
 * bound is seen alone. */
START_TEST(test_bounds) {
        ProtoRecordDesc d = *proto_records[_i];
        uint8_t m[256], *buf = NULL;
        size_t len = 0;

        d.valid = NULL;
        for (size_t i = 0; i < d.n_fields; i++) {
                const ProtoField *f = &d.fields[i];

                record_example(&d, m);
                switch (f->kind) {
                case PROTO_FIELD_U32:
                case PROTO_FIELD_U64:
                        if (f->max == 0) {
                                set_u64(f, m, f->kind == PROTO_FIELD_U32 ? UINT32_MAX : UINT64_MAX);
                                ck_assert_int_eq(decode_unchecked(&d, m), 0);
                                break;
                        }
                        set_u64(f, m, f->max);
                        ck_assert_msg(decode_unchecked(&d, m) == 0, "%s.%s = max", d.name, f->name);
                        set_u64(f, m, f->max + 1);
                        ck_assert_msg(decode_unchecked(&d, m) == -EBADMSG, "%s.%s = max + 1", d.name, f->name);
                        if (d.check_on_encode)
                                ck_assert_int_eq(proto_record_encode(&d, m, &buf, &len), -EINVAL);
                        break;
                case PROTO_FIELD_F64:
                        set_f64(f, m, f->min_f);
                        ck_assert_int_eq(decode_unchecked(&d, m), 0);
                        set_f64(f, m, nextafter(f->min_f, -INFINITY));
                        ck_assert_msg(decode_unchecked(&d, m) == -EBADMSG, "%s.%s below min", d.name, f->name);
                        if (isfinite(f->max_f)) {
                                set_f64(f, m, f->max_f);
                                ck_assert_int_eq(decode_unchecked(&d, m), 0);
                                set_f64(f, m, nextafter(f->max_f, INFINITY));
                                ck_assert_msg(decode_unchecked(&d, m) == -EBADMSG, "%s.%s above max", d.name,
                                              f->name);
                        }
                        set_f64(f, m, -1.0);
                        ck_assert_int_eq(decode_unchecked(&d, m), f->unknown || f->min_f <= -1.0 ? 0 : -EBADMSG);
                        set_f64(f, m, NAN);
                        ck_assert_int_eq(decode_unchecked(&d, m), -EBADMSG);
                        set_f64(f, m, INFINITY);
                        ck_assert_int_eq(decode_unchecked(&d, m), -EBADMSG);
                        break;
                case PROTO_FIELD_NAME: {
                        char *s = (char *) m + f->offset;

                        memset(s, 'a', f->max);
                        s[f->max] = 0;
                        ck_assert_int_eq(decode_unchecked(&d, m), 0);
                        strcpy(s, "Create");
                        ck_assert_int_eq(decode_unchecked(&d, m), f->valid_name ? -EBADMSG : 0);
                        s[0] = 0;
                        ck_assert_int_eq(decode_unchecked(&d, m), f->valid_name ? -EBADMSG : 0);
                        break;
                }
                }
        }
}
END_TEST

/* The descriptions themselves: one per type, named as the type, fields inside their struct and
 * not overlapping, every stored column named once, a stored record's destination given. */
START_TEST(test_descriptions) {
        for (size_t k = 0; proto_records[k]; k++) {
                const ProtoRecordDesc *d = proto_records[k];

                ck_assert_ptr_nonnull(d->name);
                ck_assert(d->type > 0 && d->type < _PROTO_TYPE_MAX);
                ck_assert(d->table || d->run_update);
                ck_assert_ptr_nonnull(d->noun);
                /* It is a member of ProtoRecord's union, so a tagged record can hold it. */
                ck_assert_uint_le(d->size, sizeof(ProtoRecord) - offsetof(ProtoRecord, sample));
                for (size_t j = 0; j < k; j++)
                        ck_assert(proto_records[j]->type != d->type);
                for (size_t i = 0; i < d->n_fields; i++) {
                        const ProtoField *f = &d->fields[i];

                        ck_assert(f->offset + f->size <= d->size);
                        if (f->store == PROTO_STORE_BYTES)
                                ck_assert_ptr_nonnull(proto_record_field(d, f->ios));
                        for (size_t j = 0; j < i; j++) {
                                const ProtoField *g = &d->fields[j];

                                ck_assert(f->offset >= g->offset + g->size || g->offset >= f->offset + f->size);
                                ck_assert_str_ne(f->name, g->name);
                        }
                }
                if (d->label_field)
                        ck_assert_ptr_nonnull(proto_record_field(d, d->label_field));
                if (d->order_field)
                        ck_assert_ptr_nonnull(proto_record_field(d, d->order_field));
        }
}
END_TEST

int main(void) {
        Suite *s = suite_create("proto-record");
        TCase *tc = tcase_create("core");

        tcase_add_loop_test(tc, test_roundtrip, 0, (int) n_records());
        tcase_add_loop_test(tc, test_bounds, 0, (int) n_records());
        tcase_add_test(tc, test_descriptions);
        suite_add_tcase(s, tc);
        return check_run(s);
}
