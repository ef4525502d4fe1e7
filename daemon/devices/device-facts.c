/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Fresh facts about a block device (see device-facts.h). Everything is matched by dev_t: a mount
 * is the device's when mountinfo's MAJ:MIN (or, for filesystems such as btrfs that report an
 * anonymous device there, the st_rdev of the mount source) equals the dev_t of the device or of
 * something on it; a name in /etc/mtab proves nothing. The tree of "things on a device" is
 * blockdev_tree()'s (its partitions and their holders, followed upwards recursively, in
 * shared/blockdev.c with the other sysfs reads), so a filesystem on an LVM volume on a partition
 * counts as a use of the disk. What is here is what sysfs does not say: mounts, swap, signatures.
 */
#include <blkid.h>
#include <errno.h>
#include <fcntl.h>
#include <libmount.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "devices/device-facts.h"
#include "shared/blockdev.h"
#include "shared/strv.h"
#include "shared/util.h"

void blkid_info_clear(BlkidInfo *b) {
        free(b->type);
        free(b->usage);
        free(b->uuid);
        free(b->label);
        free(b->pt_type);
        *b = (BlkidInfo) {};
}

static void blkid_free_probep(blkid_probe *p) {
        if (*p)
                blkid_free_probe(*p);
}

int blkid_probe_node(const char *node, BlkidInfo *ret) {
        _cleanup_(blkid_free_probep) blkid_probe pr = NULL;
        BlkidInfo b = {};
        const char *v;
        int r;

        errno = 0;
        pr = blkid_new_probe_from_filename(node);   /* opens O_RDONLY */
        if (!pr)
                return negative_errno();
        blkid_probe_enable_superblocks(pr, 1);
        blkid_probe_set_superblocks_flags(pr, BLKID_SUBLKS_TYPE | BLKID_SUBLKS_USAGE |
                                          BLKID_SUBLKS_UUID | BLKID_SUBLKS_LABEL);
        blkid_probe_enable_partitions(pr, 1);
        r = blkid_do_safeprobe(pr);
        if (r == -2) {
                /* Several signatures: certainly not blank. */
                b.type = strdup("ambivalent");
                if (!b.type)
                        return -ENOMEM;
                *ret = b;
                return 0;
        }
        if (r < 0)
                return -EIO;
        if (r == 0) {
                const struct {
                        const char *name;
                        char **field;
                } values[] = {
                        { "TYPE", &b.type }, { "USAGE", &b.usage }, { "UUID", &b.uuid },
                        { "LABEL", &b.label }, { "PTTYPE", &b.pt_type },
                };

                for (size_t i = 0; i < ELEMENTSOF(values); i++)
                        if (blkid_probe_lookup_value(pr, values[i].name, &v, NULL) == 0 &&
                            strdup_or_null(v, values[i].field) < 0) {
                                blkid_info_clear(&b);
                                return -ENOMEM;
                        }
        }
        *ret = b;
        return 0;
}

void device_facts_clear(DeviceFacts *f) {
        free(f->name);
        strv_free(f->tree);
        strv_free(f->holders);
        for (size_t i = 0; i < f->n_mounts; i++) {
                free((char *) f->mounts[i].device);
                free((char *) f->mounts[i].path);
                free((char *) f->mounts[i].fs_type);
        }
        free(f->mounts);
        strv_free(f->own_mount_points);
        strv_free(f->swaps);
        blkid_info_clear(&f->blkid);
        *f = (DeviceFacts) {};
}

/* devs: the dev_t of each member of f->tree (0 if unreadable). */
static int facts_mounts(DeviceFacts *f, const dev_t *devs, struct libmnt_table *tb) {
        struct libmnt_iter *it;
        struct libmnt_fs *fs;
        size_t n_tree = strv_length(f->tree);
        int r;

        r = strv_new_empty(&f->own_mount_points);
        if (r < 0)
                return r;

        it = mnt_new_iter(MNT_ITER_FORWARD);
        if (!it)
                return -ENOMEM;
        r = 0;
        while (mnt_table_next_fs(tb, it, &fs) == 0) {
                dev_t d = mount_fs_devno(fs);
                const char *target = mnt_fs_get_target(fs);

                if (major(d) == 0 || !target)
                        continue;
                for (size_t i = 0; i < n_tree; i++) {
                        if (devs[i] != d)
                                continue;
                        VerdictMount *nm = realloc(f->mounts, sizeof(VerdictMount) * (f->n_mounts + 1));
                        if (!nm) {
                                r = -ENOMEM;
                                goto out;
                        }
                        f->mounts = nm;
                        VerdictMount *m = &f->mounts[f->n_mounts];
                        *m = (VerdictMount) {};
                        f->n_mounts++;
                        if (strdup_or_null(f->tree[i], (char **) &m->device) < 0 ||
                            strdup_or_null(target, (char **) &m->path) < 0 ||
                            strdup_or_null(mnt_fs_get_fstype(fs), (char **) &m->fs_type) < 0) {
                                r = -ENOMEM;
                                goto out;
                        }
                        if (i == 0 && !strv_contains(f->own_mount_points, target) &&
                            (r = strv_push(&f->own_mount_points, target)) < 0)
                                goto out;
                        break;
                }
        }
out:
        mnt_free_iter(it);
        return r;
}

static int facts_swaps(DeviceFacts *f, const dev_t *devs, const dev_t *swaps, size_t n_swaps) {
        int r;

        r = strv_new_empty(&f->swaps);
        if (r < 0)
                return r;
        for (size_t t = 0; f->tree && f->tree[t]; t++) {
                if (devs[t] == 0)
                        continue;
                for (size_t i = 0; i < n_swaps; i++)
                        if (swaps[i] == devs[t] && !strv_contains(f->swaps, f->tree[t])) {
                                r = strv_push(&f->swaps, f->tree[t]);
                                if (r < 0)
                                        return r;
                        }
        }
        return 0;
}

int device_tables_load(DeviceTables *ret) {
        DeviceTables t = {};
        int r;

        r = mount_table_load(&t.mounts);
        if (r < 0)
                return r;
        r = swaps_read(&t.swaps, &t.n_swaps);
        if (r < 0) {
                device_tables_clear(&t);
                return r;
        }
        *ret = t;
        return 0;
}

void device_tables_clear(DeviceTables *t) {
        mnt_free_tablep(&t->mounts);
        free(t->swaps);
        *t = (DeviceTables) {};
}

int device_facts_gather(const char *name, const DeviceTables *tables, bool probe, DeviceFacts *ret) {
        _cleanup_(device_tables_clear) DeviceTables own = {};
        _cleanup_free_ dev_t *devs = NULL;
        DeviceFacts f = {};
        size_t n_tree;
        uint64_t ro = 0;
        int r;

        if (!tables) {
                r = device_tables_load(&own);
                if (r < 0)
                        return r;
                tables = &own;
        }
        f.name = strdup(name);
        if (!f.name)
                return -ENOMEM;
        r = blockdev_devnum(NULL, name, &f.devnum);
        if (r < 0)
                goto fail;
        r = blockdev_tree(NULL, name, &f.tree, &f.holders);
        if (r < 0)
                goto fail;
        /* One sysfs read per member of the tree, for matching both mounts and swaps. */
        n_tree = strv_length(f.tree);
        devs = calloc(n_tree ?: 1, sizeof(dev_t));
        if (!devs) {
                r = -ENOMEM;
                goto fail;
        }
        for (size_t i = 0; i < n_tree; i++)
                if (blockdev_devnum(NULL, f.tree[i], &devs[i]) < 0)
                        devs[i] = 0;
        r = facts_mounts(&f, devs, tables->mounts);
        if (r < 0)
                goto fail;
        r = facts_swaps(&f, devs, tables->swaps, tables->n_swaps);
        if (r < 0)
                goto fail;
        if (blockdev_read_u64(NULL, name, "ro", &ro) >= 0)
                f.read_only = ro != 0;
        if (probe) {
                _cleanup_free_ char *node = NULL;
                if (asprintf(&node, "/dev/%s", name) < 0) {
                        r = -ENOMEM;
                        goto fail;
                }
                r = blkid_probe_node(node, &f.blkid);
                if (r < 0)
                        goto fail;
        }
        *ret = f;
        return 0;
fail:
        device_facts_clear(&f);
        return r;
}

void device_facts_to_verdict(const DeviceFacts *f, bool scratch, const char *conf_path,
                             VerdictFacts *ret) {
        *ret = (VerdictFacts) {
                .name = f->name,
                .scratch = scratch,
                .read_only = f->read_only,
                .mounts = f->mounts,
                .n_mounts = f->n_mounts,
                .swaps = (const char *const *) f->swaps,
                .holders = (const char *const *) f->holders,
                .sig_type = f->blkid.type,
                .sig_usage = f->blkid.usage,
                .sig_uuid = f->blkid.uuid,
                .pt_type = f->blkid.pt_type,
                .conf_path = conf_path,
        };
}
