/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Shared by the fuzz targets that end with a finalized spec (fuzz-bus-spec.c, fuzz-profile.c):
 * what must hold of every spec benchd accepts. Its JSON (the jobs table) reads back with
 * spec_from_json() to an equal spec, as a queued job does after a restart, and its text form (the
 * worker protocol) reads back line by line with spec_set_assignment(). abort() when not, so
 * libFuzzer keeps the input.
 */
#pragma once

#include <stdlib.h>
#include <string.h>

#include "shared/spec.h"
#include "shared/util.h"

static inline void fuzz_check_readback(const JobSpec *s) {
        _cleanup_free_ char *json = NULL, *text = NULL, *err = NULL;
        JobSpec back;

        if (spec_to_json(s, &json) < 0)
                abort();
        spec_init(&back);
        if (spec_from_json(&back, json, &err) < 0 || spec_finalize(&back, &err) < 0 || !spec_equal(s, &back))
                abort();
        spec_clear(&back);

        if (spec_to_text(s, &text) < 0)
                abort();
        spec_init(&back);
        for (char *line = text, *end; *line; line = end + 1) {
                end = strchr(line, '\n');
                if (!end)
                        abort();
                *end = 0;
                if (spec_set_assignment(&back, line, &err) < 0)
                        abort();
        }
        spec_clear(&back);
}
