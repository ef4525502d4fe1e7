/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The filesystem entries of a matrix beyond a plain filesystem (fs-entry.h).
 */
#include <string.h>

#include "fs-entry.h"
#include "util.h"

static const char *const convert_programs[] = { "tune2fs", "e2fsck", NULL };

static const FsEntry entries[] = {
        { "ext4-from-ext3", "ext3", "ext4", convert_programs },
};

const FsEntry *fs_entry_find(const char *name) {
        for (size_t i = 0; name && i < ELEMENTSOF(entries); i++)
                if (streq(entries[i].name, name))
                        return &entries[i];
        return NULL;
}

const char *fs_entry_mkfs_type(const char *name) {
        const FsEntry *e = fs_entry_find(name);
        return e ? e->mkfs_type : name;
}

const char *fs_entry_mount_type(const char *name) {
        const FsEntry *e = fs_entry_find(name);
        return e ? e->mount_type : name;
}

bool fs_entry_converts(const char *name) {
        const FsEntry *e = fs_entry_find(name);
        return e && e->programs;
}

const char *fs_entry_names(void) {
        return "ext4-from-ext3";
}
