/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Mounts and swap by device number (mounts.h).
 */
#include <errno.h>
#include <libmount.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "mounts.h"
#include "strv.h"
#include "util.h"

void mnt_free_tablep(struct libmnt_table **t) {
        if (*t)
                mnt_free_table(*t);
}

int mount_table_load(struct libmnt_table **ret) {
        _cleanup_(mnt_free_tablep) struct libmnt_table *tb = NULL;
        int r;

        tb = mnt_new_table();
        if (!tb)
                return -ENOMEM;
        r = mnt_table_parse_file(tb, "/proc/self/mountinfo");
        if (r < 0)
                return r;
        *ret = TAKE_PTR(tb);
        return 0;
}

/* The block device behind a mount: mountinfo's MAJ:MIN, or for anonymous devices (btrfs) the
 * st_rdev of a /dev source. */
dev_t mount_fs_devno(struct libmnt_fs *fs) {
        dev_t d = mnt_fs_get_devno(fs);
        const char *src;
        struct stat st;

        if (major(d) != 0)
                return d;
        src = mnt_fs_get_srcpath(fs);
        if (src && strncmp(src, "/dev/", 5) == 0 && stat(src, &st) == 0 && S_ISBLK(st.st_mode))
                return st.st_rdev;
        return d;
}

/* /proc/swaps escapes blanks and backslashes as \ooo. */
static void unescape_octal(char *s) {
        char *w = s;

        for (char *p = s; *p; p++) {
                if (p[0] == '\\' && p[1] >= '0' && p[1] <= '3' && p[2] >= '0' && p[2] <= '7' &&
                    p[3] >= '0' && p[3] <= '7') {
                        *w++ = (char) ((p[1] - '0') * 64 + (p[2] - '0') * 8 + (p[3] - '0'));
                        p += 3;
                } else
                        *w++ = *p;
        }
        *w = 0;
}

int swaps_parse(const char *text, char ***ret) {
        _cleanup_strv_free_ char **l = NULL;
        _cleanup_free_ char *copy = strdup(text);
        char *save = NULL;
        bool first = true;
        int r;

        if (!copy)
                return -ENOMEM;
        r = strv_new_empty(&l);
        if (r < 0)
                return r;
        for (char *line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
                char *sp;

                if (first) {    /* "Filename Type Size Used Priority" */
                        first = false;
                        continue;
                }
                sp = strpbrk(line, " \t");
                if (sp)
                        *sp = 0;
                if (!line[0])
                        continue;
                unescape_octal(line);
                r = strv_push(&l, line);
                if (r < 0)
                        return r;
        }
        *ret = TAKE_PTR(l);
        return 0;
}

int swaps_read(dev_t **ret, size_t *ret_n) {
        _cleanup_fclose_ FILE *f = NULL;
        _cleanup_free_ dev_t *l = NULL;
        _cleanup_strv_free_ char **paths = NULL;
        _cleanup_free_ char *text = NULL;
        size_t n = 0, size = 0;
        int r;

        f = fopen("/proc/swaps", "re");
        if (!f) {
                if (errno != ENOENT)
                        return negative_errno();
                *ret = NULL;
                *ret_n = 0;
                return 0;
        }
        if (getdelim(&text, &size, '\0', f) < 0 && ferror(f))
                return -EIO;
        r = swaps_parse(text ?: "", &paths);
        if (r < 0)
                return r;
        for (char **p = paths; *p; p++) {
                struct stat st;

                if (stat(*p, &st) < 0)
                        continue;
                dev_t *nl = realloc(l, sizeof(dev_t) * (n + 1));
                if (!nl)
                        return -ENOMEM;
                l = nl;
                l[n++] = S_ISBLK(st.st_mode) ? st.st_rdev : st.st_dev;
        }
        *ret = TAKE_PTR(l);
        *ret_n = n;
        return 0;
}
