/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libFuzzer target: arbitrary text as a job spec, as "key=value" lines (benchctl --set, profile
 * files, the worker protocol) or, starting with '{', as the JSON of the jobs table. A spec that
 * finalizes must read back from its JSON to an equal spec and from its text form without error
 * (fuzz_check_readback()).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz-readback.h"
#include "shared/spec.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        _cleanup_free_ char *text = malloc(size + 1), *err = NULL;
        char *save = NULL;
        JobSpec s;

        if (!text)
                return 0;
        memcpy(text, data, size);
        text[size] = 0;
        spec_init(&s);
        if (size > 0 && data[0] == '{')
                (void) spec_from_json(&s, text, &err);
        else
                for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
                        free(err);
                        err = NULL;
                        (void) spec_set_assignment(&s, line, &err);
                }
        free(err);
        err = NULL;
        if (spec_finalize(&s, &err) == 0)
                fuzz_check_readback(&s);
        spec_clear(&s);
        return 0;
}
