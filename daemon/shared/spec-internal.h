/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Private to spec.c and spec-format.c: the key table and the few helpers both halves of the job
 * spec use. spec.c owns the keys (parsing, defaults, validation); spec-format.c writes a spec out
 * as text and JSON and reads the JSON back. Nothing outside daemon/shared/spec*.c includes this.
 */
#pragma once

#include <stdint.h>

#include "spec.h"
#include "util.h"

#define KEY_BIT(k) (UINT64_C(1) << (k))

typedef enum KeyKind {
        KIND_STRING,
        KIND_SIZE,
        KIND_NUMBER,
        KIND_BOOL,
        KIND_STRV,
} KeyKind;

typedef struct KeyInfo {
        const char *name;
        KeyKind kind;
        uint64_t min, max;      /* KIND_SIZE and KIND_NUMBER */
} KeyInfo;

/* Indexed by SpecKey (spec.c). */
extern const KeyInfo spec_keys[_SPEC_KEY_MAX];

/* Replaces *reterr (if reterr) with the formatted message; returns -EINVAL (spec.c). */
_printf_(2, 3) int spec_fail(char **reterr, const char *fmt, ...);
/* The "unknown key" message with a did-you-mean and the known keys; returns -EINVAL (spec.c). */
int spec_fail_unknown_key(const char *key, char **reterr);
/* "32K" when exact, else plain bytes; always readable back by parse_size() (spec.c). */
const char *spec_size_text(uint64_t v, char buf[static 32]);

/* The value of a KIND_SIZE or KIND_NUMBER key; 0 for any other key (spec-format.c). */
uint64_t spec_number_of(const JobSpec *s, SpecKey k);
