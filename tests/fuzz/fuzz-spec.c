/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libFuzzer target: arbitrary text as a job spec, as "key=value" lines (benchctl --set, profile
 * files, the worker protocol) or, starting with '{', as the JSON of the jobs table. A spec that
 * finalizes must write a text form that reads back without error (spec_to_text() and
 * spec_set_assignment() agree), and a JSON form.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "shared/spec.h"
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        char *text = malloc(size + 1), *err = NULL, *out = NULL, *save = NULL;
        JobSpec s;
        if (!text) return 0;
        memcpy(text, data, size); text[size] = 0;
        spec_init(&s);
        if (size > 0 && data[0] == '{') {
                (void) spec_from_json(&s, text, &err);
        } else {
                for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
                        free(err); err = NULL;
                        (void) spec_set_assignment(&s, line, &err);
                }
        }
        free(err); err = NULL;
        if (spec_finalize(&s, &err) == 0) {
                JobSpec back;
                if (spec_to_text(&s, &out) == 0) {
                        spec_init(&back);
                        char *copy = strdup(out), *sv = NULL, *e2 = NULL;
                        for (char *line = strtok_r(copy, "\n", &sv); line; line = strtok_r(NULL, "\n", &sv)) {
                                if (spec_set_assignment(&back, line, &e2) < 0) abort();
                        }
                        free(copy); free(e2);
                        spec_clear(&back);
                }
                free(out); out = NULL;
                if (spec_to_json(&s, &out) == 0) free(out);
        }
        free(err);
        spec_clear(&s);
        free(text);
        return 0;
}
