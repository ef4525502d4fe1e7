/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * String lists (see strv.h). Lists here are short (devices, holders, mount points, profile
 * names), so appending reallocates by one and lookups are linear.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "strv.h"
#include "util.h"

int strv_new_empty(char ***ret) {
        char **l = calloc(1, sizeof(char *));

        if (!l)
                return -ENOMEM;
        *ret = l;
        return 0;
}

size_t strv_length(char *const *l) {
        size_t n = 0;

        while (l && l[n])
                n++;
        return n;
}

int strv_push(char ***l, const char *s) {
        size_t n = strv_length(*l);
        char **nl;
        char *c = strdup(s);

        if (!c)
                return -ENOMEM;
        nl = realloc(*l, sizeof(char *) * (n + 2));
        if (!nl) {
                free(c);
                return -ENOMEM;
        }
        nl[n] = c;
        nl[n + 1] = NULL;
        *l = nl;
        return 0;
}

int strv_find_index(char *const *l, const char *s) {
        for (size_t i = 0; l && l[i]; i++)
                if (streq(l[i], s))
                        return (int) i;
        return -ENOENT;
}

bool strv_contains(char *const *l, const char *s) {
        for (; l && *l; l++)
                if (streq(*l, s))
                        return true;
        return false;
}

bool strv_equal(char *const *a, char *const *b) {
        size_t n = strv_length(a);

        if (n != strv_length(b))
                return false;
        for (size_t i = 0; i < n; i++)
                if (!streq(a[i], b[i]))
                        return false;
        return true;
}

static int compare_entries(const void *a, const void *b) {
        return strcmp(*(char *const *) a, *(char *const *) b);
}

void strv_sort(char **l) {
        size_t n = strv_length(l);

        if (n > 1)
                qsort(l, n, sizeof(char *), compare_entries);
}

int strdup_or_null(const char *s, char **ret) {
        if (!s) {
                *ret = NULL;
                return 0;
        }
        *ret = strdup(s);
        return *ret ? 0 : -ENOMEM;
}
