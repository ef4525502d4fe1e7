/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The order of a matrix job's runs in rounds (rounds.h). The steps of an entry are adjacent (one
 * entry after the other, as matrix_expand() writes them), so an even round is the steps in their
 * order and an odd one walks the entries from the last to the first; no table is kept, a job of
 * at most 256 steps is walked in microseconds.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobs/matrix.h"
#include "jobs/rounds.h"
#include "shared/stability.h"
#include "shared/strv.h"
#include "shared/util.h"

bool rounds_apply(const JobSpec *steps, size_t n) {
        return n > 0 && spec_is_matrix(&steps[0]) && rounds_max(steps, n) > 1;
}

uint32_t rounds_min(const JobSpec *steps, size_t n) {
        uint32_t m = 1;

        for (size_t i = 0; i < n; i++)
                m = MAX(m, stability_min_runs(&steps[i]));
        return m;
}

uint32_t rounds_max(const JobSpec *steps, size_t n) {
        uint32_t m = 1;

        for (size_t i = 0; i < n; i++)
                m = MAX(m, stability_planned_runs(&steps[i]));
        return m;
}

/* The first step of the entry step i is in, and the step after its last. */
static size_t entry_start(const JobSpec *steps, size_t i) {
        while (i > 0 && !matrix_step_starts_entry(steps, i))
                i--;
        return i;
}

static size_t entry_end(const JobSpec *steps, size_t n, size_t i) {
        for (i++; i < n && !matrix_step_starts_entry(steps, i); i++)
                ;
        return i;
}

uint32_t rounds_step(const JobSpec *steps, size_t n, uint32_t round, uint32_t visit) {
        size_t done = 0, end = n;

        if (round % 2 == 0 || visit >= n)
                return visit;
        /* Entries from the last: visit falls in the one whose steps cover it. */
        while (end > 0) {
                size_t start = entry_start(steps, end - 1), len = end - start;

                if (visit < done + len)
                        return (uint32_t) (start + (visit - done));
                done += len;
                end = start;
        }
        return visit;
}

uint32_t rounds_visit(const JobSpec *steps, size_t n, uint32_t round, uint32_t step) {
        if (round % 2 == 0 || step >= n)
                return step;
        /* The entries after step's come first, then step's own from its start. */
        return (uint32_t) ((n - entry_end(steps, n, step)) + (step - entry_start(steps, step)));
}

char *rounds_entry_place(const JobSpec *step) {
        _cleanup_free_ char *members = NULL;
        size_t len = 0;
        FILE *f;
        char *s;

        f = open_memstream(&members, &len);
        if (!f)
                return NULL;
        for (char **d = step->devices; d && *d; d++) {
                const char *slash = strrchr(*d, '/');

                fprintf(f, "%s%s", d == step->devices ? "" : "+", slash ? slash + 1 : *d);
        }
        if (fclose(f) != 0)
                return NULL;
        if (asprintf(&s, "%s%s%s on %s", step->filesystems && step->filesystems[0] ? step->filesystems[0] : "?",
                     step->layout == LAYOUT_SINGLE || step->layout < 0 ? "" : " ",
                     step->layout == LAYOUT_SINGLE || step->layout < 0 ? "" : layout_to_string(step->layout),
                     members && *members ? members : "?") < 0)
                return NULL;
        return s;
}
