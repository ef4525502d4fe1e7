/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libFuzzer target: arbitrary bytes as the worker's side of the protocol. The reader cuts frames,
 * and every frame goes through every decoder (each refuses what is not its type), the described
 * records' generic one among them; what decodes is cleared again. ASan and UBSan (tests/fuzz/run)
 * catch what a decoder reads or frees wrongly. The seeds (tests/fuzz/make-seeds) have every frame
 * type with every field set, as proto-vectors encodes them.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "shared/proto.h"
#include "shared/proto-record.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        ProtoReader r;
        ProtoFrame f;

        proto_reader_init(&r);
        if (proto_reader_push(&r, data, size) < 0) {
                proto_reader_clear(&r);
                return 0;
        }
        while (proto_reader_next(&r, &f) > 0) {
                ProtoSpec sp;
                ProtoText t;
                ProtoSample sa;
                ProtoHistogram h;
                ProtoResult re;
                ProtoError e;
                ProtoPhaseResult ph;
                ProtoFsSetup fs;
                ProtoFsInfo fi;
                ProtoPositionResult po;
                ProtoSteadyState ss;
                ProtoHello he;
                ProtoStart st;
                ProtoRecord rec;
                char *released = NULL;

                (void) proto_decode_hello(&f, &he);
                if (proto_decode_spec(&f, &sp) == 0)
                        proto_spec_clear(&sp);
                if (proto_decode_text(&f, &t) == 0)
                        proto_text_clear(&t);
                (void) proto_decode_sample(&f, &sa);
                if (proto_decode_histogram(&f, &h) == 0)
                        proto_histogram_clear(&h);
                if (proto_decode_result(&f, &re) == 0)
                        proto_result_clear(&re);
                if (proto_decode_error(&f, &e) == 0)
                        proto_error_clear(&e);
                (void) proto_decode_phase_result(&f, &ph);
                if (proto_decode_fs_setup(&f, &fs) == 0)
                        proto_fs_setup_clear(&fs);
                if (proto_decode_fs_info(&f, &fi) == 0)
                        proto_fs_info_clear(&fi);
                (void) proto_decode_position_result(&f, &po);
                (void) proto_decode_steady_state(&f, &ss);
                (void) proto_decode_start(&f, &st);
                if (proto_decode_fs_released(&f, &released) == 0)
                        free(released);
                (void) proto_record_decode(&f, &rec);
        }
        proto_reader_clear(&r);
        return 0;
}
