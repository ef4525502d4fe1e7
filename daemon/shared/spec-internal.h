/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Private to spec.c, spec-keys.c, spec-values.c, spec-matrix.c, spec-mkfs.c and spec-format.c: the
 * helpers the parts of the job spec share. spec-keys.c is the registry (every key's row) and
 * spec-values.c reads values and docs by its rows; spec.c parses values
 * and checks the rules between keys; spec-matrix.c holds the maps and the rules of filesystem
 * matrices; spec-mkfs.c the lists of what mkfs_options may not say;
 * spec-format.c writes a spec out as text and JSON and reads the JSON back. Nothing outside
 * daemon/shared/spec*.c includes this.
 */
#pragma once

#include <stdint.h>

#include "spec.h"
#include "util.h"

#define KEY_BIT(k) (UINT64_C(1) << (k))

/* A message in *reterr; returns -EINVAL. */
#define spec_fail(reterr, ...) reterr_set((reterr), -EINVAL, __VA_ARGS__)

/* Stores v in the field of a size, number or boolean key (spec-values.c). */
void spec_store_number(JobSpec *s, SpecKey k, uint64_t v);
/* Whether key k carries a value that the text and JSON forms write: an optional key when it has
 * one, any other when it was given, or filled in by finalizing a workload spec (spec-values.c). */
bool spec_has_value(const JobSpec *s, SpecKey k);
/* Parses the text of a string key into s: its parse function, or its choices (spec-keys.c). */
int spec_parse_value(JobSpec *s, SpecKey k, const char *value, char **reterr);
/* Plain decimal, no sign, no suffix: -EINVAL, -ERANGE (spec.c). */
int spec_parse_decimal(const char *s, uint64_t *ret);
/* "none", "end", "each", optionally ":fsync"/":fdatasync"; "fsync", "fdatasync" (spec-keys.c). */
int spec_parse_sync(const char *s, SyncMode *ret_mode, SyncCall *ret_call);

/* Maps (spec-matrix.c). spec_set_map() replaces the whole map of key k with n entries;
 * spec_set_map_entry() adds or replaces one. Both check keys and values and leave the map as it
 * was on failure. */
void spec_map_clear(SpecMap *m);
int spec_map_copy(const SpecMap *m, SpecMap *ret);
bool spec_map_equal(const SpecMap *a, const SpecMap *b);
int spec_set_map(JobSpec *s, SpecKey k, char *const *keys, char *const *values, size_t n, char **reterr);
int spec_set_map_entry(JobSpec *s, SpecKey k, const char *sub, const char *value, char **reterr);
/* The rules of a filesystem matrix, and the refusal of matrix keys without filesystems; settles
 * target, devices and layout (spec-matrix.c). */
int spec_finalize_matrix(JobSpec *s, char **reterr);
