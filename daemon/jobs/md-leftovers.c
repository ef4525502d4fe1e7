/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * md arrays a killed worker left (md-leftovers.h), leftovers.c's row for md: blocking reads of
 * 4 KiB from each member of an md device, done where benchd starts, where a worker of an md step has
 * ended and when udev reports an md or device-mapper device, all rare.
 */
#include <dirent.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "jobs/md-leftovers.h"
#include "shared/proto.h"
#include "shared/strv.h"
#include "shared/util.h"

#define MD_SLAVES_MAX 64u

static void closedirp(DIR **d) {
        if (*d)
                closedir(*d);
}

/* The superblock at offset: its set_name when the magic and major version 1 are there. */
static int super_at(int fd, off_t offset, char ret[static 33]) {
        uint8_t sb[64];
        ssize_t k = pread(fd, sb, sizeof(sb), offset);
        uint32_t magic, major;

        if (k < 0)
                return -errno;
        if (k != (ssize_t) sizeof(sb))
                return -ENODATA;
        memcpy(&magic, sb, 4);
        memcpy(&major, sb + 4, 4);
        if (le32toh(magic) != MD_SUPER_MAGIC || le32toh(major) != 1)
                return -ENODATA;
        memcpy(ret, sb + 32, 32);
        ret[32] = 0;
        return 0;
}

int md_super_name(const char *path, char ret[static 33]) {
        _cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NOFOLLOW);
        struct stat st;
        uint64_t size = 0;
        int r;

        if (fd < 0)
                return -errno;
        if (fstat(fd, &st) < 0)
                return -errno;
        if (S_ISBLK(st.st_mode)) {
                if (ioctl(fd, BLKGETSIZE64, &size) < 0)
                        return -errno;
        } else if (S_ISREG(st.st_mode))
                size = (uint64_t) st.st_size;
        else
                return -ENODATA;
        /* 1.2, 1.1, then 1.0 (8 KiB before the end, on a 4 KiB boundary). */
        r = super_at(fd, 4096, ret);
        if (r != -ENODATA)
                return r;
        r = super_at(fd, 0, ret);
        if (r != -ENODATA)
                return r;
        if (size < 8192)
                return -ENODATA;
        return super_at(fd, (off_t) (((size - 8192) / 4096) * 4096), ret);
}

/* The md device's members' common name when they all carry "benchd:NAME" with NAME among names:
 * 1 and ret_name; 0 when not. */
int md_leftover_is_ours(const char *root, const char *md, char *const *names, char ret_name[static 33]) {
        _cleanup_(closedirp) DIR *d = NULL;
        char path[PATH_MAX], common[33] = "";
        struct dirent *de;
        unsigned n = 0;

        snprintf(path, sizeof(path), "%s/sys/block/%s/slaves", root, md);
        d = opendir(path);
        if (!d)
                return 0;
        while ((de = readdir(d))) {
                char dev[PATH_MAX], set_name[33];

                if (de->d_name[0] == '.')
                        continue;
                if (++n > MD_SLAVES_MAX)
                        return 0;
                snprintf(dev, sizeof(dev), "%s/dev/%s", root, de->d_name);
                if (md_super_name(dev, set_name) < 0)
                        return 0;
                if (strncmp(set_name, MD_LEFTOVERS_HOMEHOST ":", strlen(MD_LEFTOVERS_HOMEHOST) + 1) != 0)
                        return 0;
                if (common[0] && !streq(common, set_name))
                        return 0;
                snprintf(common, sizeof(common), "%s", set_name);
        }
        /* Only names of benchd's form: benchd-JOB-ENTRY. */
        if (n == 0 || !proto_fs_md_name_valid(common + strlen(MD_LEFTOVERS_HOMEHOST) + 1) ||
            !strv_contains(names, common + strlen(MD_LEFTOVERS_HOMEHOST) + 1))
                return 0;
        snprintf(ret_name, 33, "%s", common + strlen(MD_LEFTOVERS_HOMEHOST) + 1);
        return 1;
}

int md_leftover_stop(const char *root, const char *md) {
        _cleanup_close_ int fd = -EBADF;
        char path[PATH_MAX];

        snprintf(path, sizeof(path), "%s/sys/block/%s/md/array_state", root, md);
        fd = open(path, O_WRONLY | O_CLOEXEC | O_NOFOLLOW);
        if (fd < 0)
                return -errno;
        if (write(fd, "clear", 5) < 0)
                return -errno;
        return 0;
}
