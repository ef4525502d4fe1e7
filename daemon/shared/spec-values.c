/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Reading the spec registry (spec-keys.c holds its rows): a key's value in a JobSpec by the offset
 * and width its row gives, whether a spec carries one, a key's documentation with its choices, and
 * the names of the kinds. Nothing here names a key: a new key needs nothing in this file.
 */

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spec-internal.h"

char *spec_choices_text(SpecKey k) {
        const SpecKeyInfo *ki = spec_key_info(k);
        _cleanup_free_ char *buf = NULL;
        _cleanup_fclose_ FILE *f = NULL;
        size_t size = 0;

        if (!ki || !ki->choices)
                return NULL;
        f = open_memstream(&buf, &size);
        if (!f)
                return NULL;
        for (const SpecChoice *c = ki->choices; c->name; c++) {
                fprintf(f, "%s%s", c == ki->choices ? "" : c[1].name ? ", " : " or ", c->name);
                /* Neighbours of one doc share it: "raid0, raid1, raid10 (btrfs's own)". */
                if (c->doc && !(c[1].name && c[1].doc && streq(c[1].doc, c->doc)))
                        fprintf(f, " (%s)", c->doc);
        }
        if (fflush(f) != 0 || ferror(f))
                return NULL;
        f = (fclose(f), NULL);
        return TAKE_PTR(buf);
}

char *spec_key_doc(SpecKey k) {
        const SpecKeyInfo *ki = spec_key_info(k);
        _cleanup_free_ char *choices = NULL;
        char *ret = NULL;

        if (!ki)
                return NULL;
        if (!ki->choices)
                return strdup(ki->doc);
        choices = spec_choices_text(k);
        if (!choices || asprintf(&ret, "%s: %s", ki->doc, choices) < 0)
                return NULL;
        return ret;
}

const char *spec_kind_bus_types(SpecKind kind) {
        switch (kind) {
        case SPEC_KIND_STRING:
                return "'s' (string)";
        case SPEC_KIND_SIZE:
                return "'t' (bytes) or 's' (a size such as \"32K\")";
        case SPEC_KIND_NUMBER:
                return "'u'/'t' (unsigned integer) or 's'";
        case SPEC_KIND_BOOL:
                return "'b' (boolean)";
        case SPEC_KIND_STRV:
                return "'as' (array of strings)";
        case SPEC_KIND_MAP:
                return "'a{ss}' (dictionary of strings)";
        default:
                return "nothing";
        }
}

const char *spec_kind_to_string(SpecKind kind) {
        static const char *const names[_SPEC_KIND_MAX] = {
                [SPEC_KIND_STRING] = "string",
                [SPEC_KIND_SIZE] = "size",
                [SPEC_KIND_NUMBER] = "number",
                [SPEC_KIND_BOOL] = "boolean",
                [SPEC_KIND_STRV] = "strings",
                [SPEC_KIND_MAP] = "map",
        };
        return kind >= 0 && kind < _SPEC_KIND_MAX ? names[kind] : NULL;
}

/* ---- values by offset ---- */

uint64_t spec_number_of(const JobSpec *s, SpecKey k) {
        const SpecKeyInfo *ki = &spec_key_table[k];
        const uint8_t *p = (const uint8_t *) s + ki->offset;

        if (ki->kind != SPEC_KIND_SIZE && ki->kind != SPEC_KIND_NUMBER && ki->kind != SPEC_KIND_BOOL)
                return 0;
        switch (ki->width) {
        case sizeof(uint64_t): return *(const uint64_t *) p;
        case sizeof(uint32_t): return *(const uint32_t *) p;
        case sizeof(bool):     return *(const bool *) p;
        default:               return 0;
        }
}

char **spec_strv_of(const JobSpec *s, SpecKey k) {
        const SpecKeyInfo *ki = spec_key_info(k);

        if (!ki || ki->kind != SPEC_KIND_STRV)
                return NULL;
        return *(char **const *) ((const uint8_t *) s + ki->offset);
}

const SpecMap *spec_map_of(const JobSpec *s, SpecKey k) {
        const SpecKeyInfo *ki = spec_key_info(k);

        if (!ki || ki->kind != SPEC_KIND_MAP)
                return NULL;
        return (const SpecMap *) ((const uint8_t *) s + ki->offset);
}

void spec_store_number(JobSpec *s, SpecKey k, uint64_t v) {
        const SpecKeyInfo *ki = &spec_key_table[k];
        uint8_t *p = (uint8_t *) s + ki->offset;

        switch (ki->width) {
        case sizeof(uint64_t): *(uint64_t *) p = v; break;
        case sizeof(uint32_t): *(uint32_t *) p = (uint32_t) v; break;
        case sizeof(bool):     *(bool *) p = v != 0; break;
        default: break;
        }
}

bool spec_has_value(const JobSpec *s, SpecKey k) {
        const SpecKeyInfo *ki = &spec_key_table[k];
        char buf[SPEC_TEXT_MAX];

        if (ki->optional)
                switch (ki->kind) {
                case SPEC_KIND_STRV: {
                        char **l = spec_strv_of(s, k);
                        return l && l[0];
                }
                case SPEC_KIND_MAP:
                        return spec_map_of(s, k)->n > 0;
                default:
                        return spec_string_of(s, k, buf) != NULL;
                }
        return (s->set_mask & KEY_BIT(k)) || (s->finalized && s->workload >= 0 && !s->profile);
}
