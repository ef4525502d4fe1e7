/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libFuzzer target: SubmitJob's a{sv} as benchd decodes it (bus_message_read_spec(), bus-util.c).
 * The input is a little program that builds the message: entries one after another, each
 *
 *   byte K      K < 0xe0: the key is the registry's key K % _SPEC_KEY_MAX; else a string follows
 *   byte T      the variant's type: TYPES[T % N] below, right ones, wrong ones (d, o, g, ai, ay),
 *               nested ones (aas, a{sv}, v, (ss)), a{ss} maps of any length
 *   values      strings as a length byte and that many bytes (odd bytes, UTF-8 or not: sd-bus
 *               refuses what is not, and the input ends there), numbers as 1..8 bytes, counts as
 *               a byte
 *
 * until the input ends (at most 80 entries, more than BUS_SPEC_ENTRIES_MAX). The message is sealed
 * and rewound as sd-bus does with one it received, and decoded. What must hold: a refusal is
 * InvalidSpec with a message; a spec that decodes either finalizes or is refused with a message;
 * one that finalizes writes JSON that spec_from_json() reads back to an equal spec (a queued job
 * after a restart), and a text form that spec_set_assignment() reads back. ASan finds leaks.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <systemd/sd-bus.h>

#include "bus/bus-util.h"
#include "shared/spec.h"
#include "shared/util.h"
#include "fuzz-readback.h"

typedef struct Input {
        const uint8_t *p;
        size_t n;
} Input;

static unsigned take_byte(Input *in) {
        if (in->n == 0)
                return 0;
        in->n--;
        return *in->p++;
}

static uint64_t take_number(Input *in) {
        unsigned len = take_byte(in) % 9;
        uint64_t v = 0;

        for (unsigned i = 0; i < len; i++)
                v = v << 8 | take_byte(in);
        return v;
}

/* A string of a length byte and that many bytes, NUL-terminated in buf. */
static const char *take_string(Input *in, char buf[static 256]) {
        size_t len = take_byte(in);

        if (len > in->n)
                len = in->n;
        memcpy(buf, in->p, len);
        buf[len] = 0;
        in->p += len;
        in->n -= len;
        return buf;
}

static const char *const TYPES[] = {
        "s", "b", "y", "q", "u", "t", "n", "i", "x", "as", "a{ss}",             /* what the decoder takes */
        "d", "o", "g", "ai", "ay", "aas", "a{sv}", "v", "(ss)", "a{si}",         /* what it must refuse */
};

static int append_value(sd_bus_message *m, const char *type, Input *in) {
        char buf[256], buf2[256];
        unsigned count;
        int r;

        switch (type[0]) {
        case 's':
                return sd_bus_message_append_basic(m, 's', take_string(in, buf));
        case 'o':
                return sd_bus_message_append_basic(m, 'o', take_string(in, buf));
        case 'g':
                return sd_bus_message_append_basic(m, 'g', take_string(in, buf));
        case 'b': {
                int b = take_byte(in) & 1;
                return sd_bus_message_append_basic(m, 'b', &b);
        }
        case 'y': {
                uint8_t x = take_number(in);
                return sd_bus_message_append_basic(m, 'y', &x);
        }
        case 'q': {
                uint16_t x = take_number(in);
                return sd_bus_message_append_basic(m, 'q', &x);
        }
        case 'n': {
                int16_t x = take_number(in);
                return sd_bus_message_append_basic(m, 'n', &x);
        }
        case 'u': {
                uint32_t x = take_number(in);
                return sd_bus_message_append_basic(m, 'u', &x);
        }
        case 'i': {
                int32_t x = take_number(in);
                return sd_bus_message_append_basic(m, 'i', &x);
        }
        case 't': {
                uint64_t x = take_number(in);
                return sd_bus_message_append_basic(m, 't', &x);
        }
        case 'x': {
                int64_t x = (int64_t) take_number(in);
                return sd_bus_message_append_basic(m, 'x', &x);
        }
        case 'd': {
                double x = (double) take_number(in) / 7.0;
                return sd_bus_message_append_basic(m, 'd', &x);
        }
        case 'v': {
                /* A variant in the variant: a string one. */
                r = sd_bus_message_open_container(m, 'v', "s");
                if (r >= 0)
                        r = sd_bus_message_append_basic(m, 's', take_string(in, buf));
                return r < 0 ? r : sd_bus_message_close_container(m);
        }
        case '(':
                return sd_bus_message_append(m, "(ss)", take_string(in, buf), take_string(in, buf2));
        case 'a':
                break;
        default:
                abort();
        }

        /* Arrays: a count byte, then the elements. */
        count = take_byte(in) % 24;
        r = sd_bus_message_open_container(m, 'a', type + 1);
        for (unsigned i = 0; r >= 0 && i < count && in->n > 0; i++) {
                if (streq(type, "a{ss}"))
                        r = sd_bus_message_append(m, "{ss}", take_string(in, buf), take_string(in, buf2));
                else if (streq(type, "a{si}"))
                        r = sd_bus_message_append(m, "{si}", take_string(in, buf), (int32_t) take_number(in));
                else if (streq(type, "a{sv}"))
                        r = sd_bus_message_append(m, "{sv}", take_string(in, buf), "s", take_string(in, buf2));
                else if (streq(type, "aas"))
                        r = sd_bus_message_append(m, "as", 1, take_string(in, buf));
                else if (streq(type, "as"))
                        r = sd_bus_message_append_basic(m, 's', take_string(in, buf));
                else if (streq(type, "ai"))
                        r = sd_bus_message_append(m, "i", (int32_t) take_number(in));
                else
                        r = sd_bus_message_append(m, "y", (uint8_t) take_byte(in));
        }
        return r < 0 ? r : sd_bus_message_close_container(m);
}

/* An unstarted sd_bus makes no messages (-ENOTCONN); one started on one end of a socketpair does.
 * Nothing is ever sent or read: the other end only has to exist. */
static sd_bus *fuzz_bus(void) {
        static sd_bus *bus;
        int fds[2];

        if (bus)
                return bus;
        if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0, fds) < 0 ||
            sd_bus_new(&bus) < 0 || sd_bus_set_fd(bus, fds[0], fds[0]) < 0 || sd_bus_start(bus) < 0)
                abort();
        return bus;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *m = NULL;
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        _cleanup_free_ char *err = NULL;
        Input in = { data, size };
        JobSpec s;
        int r;

        if (sd_bus_message_new_method_call(fuzz_bus(), &m, "org.benchd.Benchd1", "/org/benchd/Benchd1",
                                           "org.benchd.Benchd1.Manager", "SubmitJob") < 0)
                abort();
        r = sd_bus_message_open_container(m, 'a', "{sv}");
        for (unsigned n = 0; r >= 0 && in.n > 0 && n < 80; n++) {
                char buf[256];
                unsigned k = take_byte(&in);
                const char *key = k < 0xe0 ? spec_key_to_string(k % _SPEC_KEY_MAX) : take_string(&in, buf);
                const char *type = TYPES[take_byte(&in) % (sizeof(TYPES) / sizeof(TYPES[0]))];

                r = sd_bus_message_open_container(m, 'e', "sv");
                if (r >= 0)
                        r = sd_bus_message_append_basic(m, 's', key);
                if (r >= 0)
                        r = sd_bus_message_open_container(m, 'v', type);
                if (r >= 0)
                        r = append_value(m, type, &in);
                if (r >= 0)
                        r = sd_bus_message_close_container(m);
                if (r >= 0)
                        r = sd_bus_message_close_container(m);
        }
        if (r >= 0)
                r = sd_bus_message_close_container(m);
        if (r < 0)
                return 0; /* sd-bus refused to build it (a string not UTF-8, say): no caller could send it */
        if (sd_bus_message_seal(m, 1, 0) < 0 || sd_bus_message_rewind(m, true) < 0)
                abort();

        spec_init(&s);
        r = bus_message_read_spec(m, &s, &error);
        if (r < 0) {
                /* The message is well formed, so every refusal is the spec's, and says why. */
                if (r != -EINVAL || !sd_bus_error_has_name(&error, BENCHD_ERROR_INVALID_SPEC) ||
                    !error.message || !error.message[0])
                        abort();
        } else {
                r = spec_finalize(&s, &err);
                if (r < 0 && (r != -EINVAL || !err || !err[0]))
                        abort();
                if (r >= 0)
                        fuzz_check_readback(&s);
        }
        spec_clear(&s);
        return 0;
}
