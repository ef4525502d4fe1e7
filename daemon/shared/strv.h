/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * NULL-terminated string lists (char **), as sd-bus hands them out and takes them: one set of
 * helpers for all three programs instead of a copy per file. A NULL list is an empty one
 * everywhere here.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>

#include "util.h"

static inline void strv_free(char **l) {
        if (!l)
                return;
        for (char **i = l; *i; i++)
                free(*i);
        free(l);
}
static inline void strv_freep(char ***l) {
        strv_free(*l);
}
#define _cleanup_strv_free_ _cleanup_(strv_freep)

/* A new list with no entries (not NULL: callers hand it on where NULL means "unknown"). */
int strv_new_empty(char ***ret);
size_t strv_length(char *const *l);
/* Appends a copy of s; *l may be NULL. On failure *l is unchanged. */
int strv_push(char ***l, const char *s);
bool strv_contains(char *const *l, const char *s);
/* The index of the first entry equal to s, or -ENOENT. */
int strv_find_index(char *const *l, const char *s);
/* Same entries in the same order; NULL equals the empty list. */
bool strv_equal(char *const *a, char *const *b);
/* Sorts in place by strcmp(). */
void strv_sort(char **l);

/* *ret = a copy of s, or NULL when s is NULL; -ENOMEM only when the copy fails. */
int strdup_or_null(const char *s, char **ret);
