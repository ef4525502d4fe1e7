/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The filesystem-matrix part of the job spec: the layouts, the string maps that mkfs_options and
 * mount_options hold (SpecMap), and the rules between the matrix keys that spec_finalize() applies
 * (spec_finalize_matrix). A matrix job makes each of filesystems on devices in turn and runs its
 * workload or profile on a directory of it, so the rules are about what that needs: the devices
 * (target is their shorthand and their first), consent to erase them, a layout the filesystems
 * and the number of devices allow, and options only for filesystems the job makes.
 *
 * Kept apart from spec.c, which parses single keys and checks the rules of every job; the registry
 * (spec-keys.c) still declares the keys themselves. Pure logic: whether mkfs.<fs>, the kernel's
 * filesystem, md or LVM exist here is spec_check_matrix()'s question (spec-check.c).
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spec-internal.h"
#include "spec.h"
#include "strv.h"
#include "util.h"

/* ---- layouts ---- */

unsigned layout_devices_min(Layout l) {
        switch (l) {
        case LAYOUT_RAID0:
        case LAYOUT_RAID1:
        case LAYOUT_MD_RAID0:
        case LAYOUT_MD_RAID1:
        case LAYOUT_MD_RAID10:          /* mdadm's near-2 layout on two devices */
        case LAYOUT_MD_RAID1_LVM:
                return 2;
        case LAYOUT_MD_RAID5:
                /* mdadm makes a RAID5 of two (a mirror with parity's overhead); benchd wants the
                 * layout it names: data and parity striped over at least three. */
                return 3;
        case LAYOUT_RAID10:
                /* btrfs-progs v6.2 (what Debian 12 ships) makes -d raid10 -m raid10 on two devices
                 * (checked on two 300M files); older ones wanted four. */
                return 2;
        default:
                return 1;
        }
}

int layout_md_level(Layout l) {
        switch (l) {
        case LAYOUT_MD_RAID0:
                return 0;
        case LAYOUT_MD_RAID1:
        case LAYOUT_MD_RAID1_LVM:
                return 1;
        case LAYOUT_MD_RAID5:
                return 5;
        case LAYOUT_MD_RAID10:
                return 10;
        default:
                return -1;
        }
}

bool layout_is_md(Layout l) {
        return layout_md_level(l) >= 0;
}

bool layout_is_lvm(Layout l) {
        return l == LAYOUT_LVM || l == LAYOUT_MD_RAID1_LVM;
}

/* ---- partitions ---- */

int spec_partition_layout(uint64_t size, uint32_t sector, uint32_t n, uint64_t *ret_start, uint64_t *ret_each) {
        const uint64_t align = UINT64_C(1) << 20, entries = 16384;
        uint64_t backup, end, each;

        if (n == 0 || n > SPEC_PARTITIONS_MAX || sector < 512 || (sector & (sector - 1)) || sector > align)
                return -EINVAL;
        /* GPT's backup at the end: its 128 entries of 128 bytes and its header, in whole sectors. */
        backup = (entries + sector - 1) / sector * sector + sector;
        if (size < align + backup)
                return -ENOSPC;
        end = size - backup;
        each = (end - align) / n / align * align;
        if (each < SPEC_PARTITION_SIZE_MIN)
                return -ENOSPC;
        *ret_start = align;
        *ret_each = each;
        return 0;
}

/* ---- md_options and lvm_options ---- */

/* A size word of an option ("64K", "4M"): bytes, or -EINVAL. */
static int option_size(const char *v, uint64_t *ret) {
        return parse_size(v, ret) < 0 || *ret == 0 ? -EINVAL : 0;
}

static bool power_of_two(uint64_t v) {
        return v && !(v & (v - 1));
}

static bool word_chars_ok(const char *v) {
        if (!*v)
                return false;
        for (; *v; v++)
                if (!((*v >= 'a' && *v <= 'z') || (*v >= '0' && *v <= '9') || *v == '-' || *v == '.'))
                        return false;
        return true;
}

/* md_options: blank-separated --chunk=SIZE, --bitmap=internal|none, --metadata=VERSION and
 * --layout=NAME, each at most once; nothing else reaches mdadm (no --force, --run, other devices,
 * --homehost, --name or --config: those are benchd's). */
int spec_md_options_check(const char *value, char **reterr) {
        static const char *const names[] = { "--chunk=", "--bitmap=", "--metadata=", "--layout=" };
        _cleanup_free_ char *copy = strdup(value);
        bool seen[ELEMENTSOF(names)] = {};
        char *save = NULL;

        if (!copy)
                return -ENOMEM;
        for (char *w = strtok_r(copy, " \t", &save); w; w = strtok_r(NULL, " \t", &save)) {
                size_t i;
                const char *v;

                for (i = 0; i < ELEMENTSOF(names); i++)
                        if (strncmp(w, names[i], strlen(names[i])) == 0)
                                break;
                if (i == ELEMENTSOF(names))
                        return spec_fail(reterr, "md_options: '%s' is not an option benchd passes to mdadm; use "
                                         "--chunk=SIZE, --bitmap=internal|none, --metadata=0.90|1.0|1.1|1.2 or "
                                         "--layout=NAME, e.g. md_options=--chunk=64K --bitmap=none",
                                         CALLER_TEXT(w));
                if (seen[i])
                        return spec_fail(reterr, "md_options: %s is given twice; give it once", names[i]);
                seen[i] = true;
                v = w + strlen(names[i]);
                if (i == 0) {
                        uint64_t chunk;
                        if (option_size(v, &chunk) < 0 || !power_of_two(chunk) || chunk < 4096 ||
                            chunk > (UINT64_C(64) << 20))
                                return spec_fail(reterr, "md_options: --chunk=%s is not a chunk size mdadm takes; "
                                                 "use a power of two from 4K to 64M, e.g. --chunk=512K",
                                                 CALLER_TEXT(v));
                } else if (i == 1) {
                        if (!streq(v, "internal") && !streq(v, "none"))
                                return spec_fail(reterr, "md_options: --bitmap=%s is not a bitmap benchd makes; use "
                                                 "--bitmap=internal or --bitmap=none (a bitmap file would be "
                                                 "on the host)", CALLER_TEXT(v));
                } else if (i == 2) {
                        if (!streq(v, "0.90") && !streq(v, "1.0") && !streq(v, "1.1") && !streq(v, "1.2"))
                                return spec_fail(reterr, "md_options: --metadata=%s is not an md superblock "
                                                 "version; use 0.90, 1.0, 1.1 or 1.2", CALLER_TEXT(v));
                } else if (!word_chars_ok(v))
                        return spec_fail(reterr, "md_options: --layout=%s is not a layout name; use mdadm's, "
                                         "e.g. --layout=f2 (md-raid10) or --layout=left-symmetric (md-raid5)",
                                         CALLER_TEXT(v));
        }
        return 0;
}

/* lvm_options: --physicalextentsize=SIZE (vgcreate), --dataalignment=SIZE and
 * --metadatasize=SIZE (pvcreate), each at most once. */
int spec_lvm_options_check(const char *value, uint64_t *ret_extent, char **reterr) {
        static const char *const names[] = { "--physicalextentsize=", "--dataalignment=", "--metadatasize=" };
        _cleanup_free_ char *copy = strdup(value);
        bool seen[ELEMENTSOF(names)] = {};
        char *save = NULL;

        if (!copy)
                return -ENOMEM;
        if (ret_extent)
                *ret_extent = UINT64_C(4) << 20;
        for (char *w = strtok_r(copy, " \t", &save); w; w = strtok_r(NULL, " \t", &save)) {
                uint64_t v;
                size_t i;

                for (i = 0; i < ELEMENTSOF(names); i++)
                        if (strncmp(w, names[i], strlen(names[i])) == 0)
                                break;
                if (i == ELEMENTSOF(names))
                        return spec_fail(reterr, "lvm_options: '%s' is not an option benchd passes to LVM; use "
                                         "--physicalextentsize=SIZE (vgcreate), --dataalignment=SIZE or "
                                         "--metadatasize=SIZE (pvcreate), e.g. lvm_options=--physicalextentsize=1M",
                                         CALLER_TEXT(w));
                if (seen[i])
                        return spec_fail(reterr, "lvm_options: %s is given twice; give it once", names[i]);
                seen[i] = true;
                if (option_size(w + strlen(names[i]), &v) < 0 || (i == 0 && (!power_of_two(v) || v < 1024 ||
                                                                              v > (UINT64_C(16) << 30))))
                        return spec_fail(reterr, "lvm_options: %s is not a size LVM takes there; use %s, e.g. "
                                         "%s4M", CALLER_TEXT(w), i == 0 ? "a power of two from 1K to 16G" : "a size",
                                         names[i]);
                if (i == 0 && ret_extent)
                        *ret_extent = v;
        }
        return 0;
}

/* btrfs's own RAID profiles, and the md layout to suggest for other filesystems (NULL: none). */
static bool layout_is_btrfs(Layout l, const char **ret_md) {
        switch (l) {
        case LAYOUT_RAID0:
                *ret_md = "md-raid0";
                return true;
        case LAYOUT_RAID1:
                *ret_md = "md-raid1";
                return true;
        case LAYOUT_RAID10:
                *ret_md = NULL;
                return true;
        default:
                return false;
        }
}

/* ---- maps ---- */

const char *spec_map_get(const SpecMap *m, const char *key) {
        for (size_t i = 0; m && key && i < m->n; i++)
                if (streq(m->keys[i], key))
                        return m->values[i];
        return NULL;
}

void spec_map_clear(SpecMap *m) {
        for (size_t i = 0; i < m->n; i++) {
                free(m->keys[i]);
                free(m->values[i]);
        }
        free(m->keys);
        free(m->values);
        *m = (SpecMap) {};
}

/* Adds key=value in key order, or replaces the value of key. */
static int map_put(SpecMap *m, const char *key, const char *value) {
        _cleanup_free_ char *k = NULL, *v = strdup(value);
        char **nk, **nv;
        size_t at = 0;

        if (!v)
                return -ENOMEM;
        for (; at < m->n; at++) {
                int c = strcmp(m->keys[at], key);
                if (c == 0) {
                        free(m->values[at]);
                        m->values[at] = TAKE_PTR(v);
                        return 0;
                }
                if (c > 0)
                        break;
        }

        k = strdup(key);
        if (!k)
                return -ENOMEM;
        nk = realloc(m->keys, (m->n + 1) * sizeof(char *));
        if (!nk)
                return -ENOMEM;
        m->keys = nk;
        nv = realloc(m->values, (m->n + 1) * sizeof(char *));
        if (!nv)
                return -ENOMEM;
        m->values = nv;
        memmove(m->keys + at + 1, m->keys + at, (m->n - at) * sizeof(char *));
        memmove(m->values + at + 1, m->values + at, (m->n - at) * sizeof(char *));
        m->keys[at] = TAKE_PTR(k);
        m->values[at] = TAKE_PTR(v);
        m->n++;
        return 0;
}

int spec_map_copy(const SpecMap *m, SpecMap *ret) {
        SpecMap c = {};

        for (size_t i = 0; i < m->n; i++)
                if (map_put(&c, m->keys[i], m->values[i]) < 0) {
                        spec_map_clear(&c);
                        return -ENOMEM;
                }
        *ret = c;
        return 0;
}

/* Both are sorted with each key once, so equal maps are equal entry by entry. */
bool spec_map_equal(const SpecMap *a, const SpecMap *b) {
        if (a->n != b->n)
                return false;
        for (size_t i = 0; i < a->n; i++)
                if (!streq(a->keys[i], b->keys[i]) || !streq(a->values[i], b->values[i]))
                        return false;
        return true;
}

/* A value is options on a command line or in a mount: one line of printable text, not empty. */
static int check_map_value(const char *key, const char *sub, const char *value, char **reterr) {
        if (!value[0])
                return spec_fail(reterr, "%s.%s: the value is empty; leave the entry out to get the defaults",
                                 key, sub);
        if (strlen(value) > SPEC_MAP_VALUE_MAX)
                return spec_fail(reterr, "%s.%s: longer than %u bytes; use shorter options", key, sub,
                                 SPEC_MAP_VALUE_MAX);
        for (const char *p = value; *p;) {
                size_t n = utf8_char_len(p);

                if (n == 0 || utf8_is_control(p, n))
                        return spec_fail(reterr, "%s.%s: '%s' contains control characters or invalid UTF-8; use "
                                         "printable text on one line", key, sub, CALLER_TEXT(value));
                p += n;
        }
        return 0;
}

static SpecMap *map_field(JobSpec *s, SpecKey k) {
        return (SpecMap *) ((uint8_t *) s + spec_key_table[k].offset);
}

int spec_set_map(JobSpec *s, SpecKey k, char *const *keys, char *const *values, size_t n, char **reterr) {
        const SpecKeyInfo *ki = &spec_key_table[k];
        SpecMap m = {};
        int r;

        if (n > ki->max)
                return spec_fail(reterr, "%s: more than %" PRIu64 " entries; give at most %" PRIu64 ", one per %s",
                                 ki->name, ki->max, ki->max, ki->item);
        for (size_t i = 0; i < n; i++) {
                r = ki->check_item(ki->name, keys[i], reterr);
                if (r >= 0)
                        r = check_map_value(ki->name, keys[i], values[i], reterr);
                if (r >= 0 && ki->check_value)
                        r = ki->check_value(ki->name, keys[i], values[i], reterr);
                if (r >= 0 && spec_map_get(&m, keys[i]))
                        r = spec_fail(reterr, "%s: '%s' is given twice; give each %s once", ki->name, keys[i],
                                      ki->item);
                if (r >= 0)
                        r = map_put(&m, keys[i], values[i]);
                if (r < 0) {
                        spec_map_clear(&m);
                        return r;
                }
        }
        spec_map_clear(map_field(s, k));
        *map_field(s, k) = m;
        return 0;
}

int spec_set_map_entry(JobSpec *s, SpecKey k, const char *sub, const char *value, char **reterr) {
        const SpecKeyInfo *ki = &spec_key_table[k];
        SpecMap *m = map_field(s, k);
        int r;

        r = ki->check_item(ki->name, sub, reterr);
        if (r < 0)
                return r;
        r = check_map_value(ki->name, sub, value, reterr);
        if (r >= 0 && ki->check_value)
                r = ki->check_value(ki->name, sub, value, reterr);
        if (r < 0)
                return r;
        if (!spec_map_get(m, sub) && m->n >= ki->max)
                return spec_fail(reterr, "%s.%s: %s has %" PRIu64 " entries already, the most it takes; leave "
                                 "one out", ki->name, sub, ki->name, ki->max);
        return map_put(m, sub, value);
}

/* ---- the rules of a matrix, for spec_finalize() ---- */

/* "ext4, btrfs" for messages, each item quoted short; what does not fit whole is left out, "…". */
static const char *list_text(char *const *l, char *buf, size_t size) {
        size_t len = 0;

        buf[0] = 0;
        for (char *const *i = l; i && *i; i++) {
                const char *item = CALLER_TEXT(*i);
                size_t need = (i == l ? 0 : 2) + strlen(item);

                if (len + need + sizeof(", …") > size) {
                        snprintf(buf + len, size - len, "%s…", i == l ? "" : ", ");
                        break;
                }
                len += (size_t) snprintf(buf + len, size - len, "%s%s", i == l ? "" : ", ", item);
        }
        return buf;
}

static int set_target(JobSpec *s, const char *value) {
        char *t = strdup(value);

        if (!t)
                return -ENOMEM;
        free(s->target);
        s->target = t;
        s->set_mask |= KEY_BIT(SPEC_KEY_TARGET);
        return 0;
}

/* md_options, md_resync, lvm_options and lv_size go with the layouts that use them. */
static int check_md_lvm_keys(const JobSpec *s, char **reterr) {
        const char *name = layout_to_string(s->layout) ?: "single";
        bool md = s->layout >= 0 && layout_is_md(s->layout), lvm = s->layout >= 0 && layout_is_lvm(s->layout);

        if (!md && s->md_options)
                return spec_fail(reterr, "md_options: applies to the md layouts, not layout=%s; use layout=md-raid0, "
                                 "md-raid1, md-raid5, md-raid10 or md-raid1+lvm, or leave md_options out", name);
        if (!md && s->md_resync != MD_RESYNC_WAIT)
                return spec_fail(reterr, "md_resync: applies to the md layouts, not layout=%s; use layout=md-raid1 "
                                 "(or another md-*), or leave md_resync out", name);
        if (!lvm && s->lvm_options)
                return spec_fail(reterr, "lvm_options: applies to layout=lvm and md-raid1+lvm, not layout=%s; "
                                 "use one of those, or leave lvm_options out", name);
        if (!lvm && s->lv_size)
                return spec_fail(reterr, "lv_size: applies to layout=lvm and md-raid1+lvm, not layout=%s; use one "
                                 "of those, or leave lv_size out", name);
        if (md && s->md_options && (layout_md_level(s->layout) == 1) && strstr(s->md_options, "--chunk="))
                return spec_fail(reterr, "md_options: --chunk does not apply to %s (mdadm refuses a chunk size for "
                                 "RAID1); leave --chunk out, or use md-raid0, md-raid5 or md-raid10", name);
        if (md && s->md_options && layout_md_level(s->layout) == 0 && strstr(s->md_options, "--bitmap=internal"))
                return spec_fail(reterr, "md_options: --bitmap=internal does not apply to md-raid0 (RAID0 has no "
                                 "redundancy to track; mdadm refuses it); leave --bitmap out");
        if (md && s->md_options && layout_md_level(s->layout) != 5 && layout_md_level(s->layout) != 10 &&
            strstr(s->md_options, "--layout="))
                return spec_fail(reterr, "md_options: --layout applies to md-raid5 and md-raid10, not %s; leave it "
                                 "out", name);
        return 0;
}

/* The matrix keys without filesystems mean nothing: say which key and what it needs. */
static int check_no_matrix(const JobSpec *s, char **reterr) {
        if (spec_has_value(s, SPEC_KEY_DEVICES))
                return spec_fail(reterr, "devices: applies to filesystem matrices; give filesystems=ext4,... too, "
                                 "or use target for one device");
        if (spec_has_value(s, SPEC_KEY_LAYOUT))
                return spec_fail(reterr, "layout: applies to filesystem matrices; give filesystems=btrfs,... too, "
                                 "or leave layout out");
        if (spec_has_value(s, SPEC_KEY_MKFS_OPTIONS))
                return spec_fail(reterr, "mkfs_options: applies to filesystem matrices; give filesystems=%s,... "
                                 "too, or leave mkfs_options out", s->mkfs_options.keys[0]);
        if (spec_has_value(s, SPEC_KEY_MOUNT_OPTIONS))
                return spec_fail(reterr, "mount_options: applies to filesystem matrices; give filesystems=%s,... "
                                 "too, or leave mount_options out", s->mount_options.keys[0]);
        if (s->partitions || s->partition)
                return spec_fail(reterr, "%s: applies to filesystem matrices, which partition their devices; give "
                                 "filesystems=ext4,... too, or leave %s out", s->partitions ? "partitions" :
                                 "partition", s->partitions ? "partitions" : "partition");
        return check_md_lvm_keys(s, reterr);
}

/* partition names one of partitions; and the expansion's steps carry both. */
static int check_partitions(const JobSpec *s, char **reterr) {
        if (s->partition && !s->partitions)
                return spec_fail(reterr, "partition: %" PRIu32 " of what? give partitions=N too (each device split "
                                 "into N partitions), or leave partition out", s->partition);
        if (s->partition > s->partitions)
                return spec_fail(reterr, "partition: %" PRIu32 " is beyond partitions=%" PRIu32 "; use 1 to %" PRIu32
                                 ", or leave partition out for all of them", s->partition, s->partitions,
                                 s->partitions);
        return 0;
}

/* devices from target, or target from devices; both given: target is one of them. */
static int settle_devices(JobSpec *s, char **reterr) {
        char buf[1024];
        size_t bytes = 0;
        int r;

        if (!s->devices || !s->devices[0]) {
                if (!s->target)
                        return spec_fail(reterr, "devices: a filesystem matrix needs the block devices to make its "
                                         "filesystems on; give devices=/dev/...,/dev/... (or target=/dev/... for "
                                         "one device)");
                /* devices= is written with commas between its paths (--set, the worker's spec, the
                 * jobs table), so a target with a comma would read back as two devices; found by
                 * tests/fuzz/fuzz-spec.c. */
                if (strchr(s->target, ','))
                        return spec_fail(reterr, "target: '%s' contains a comma, and a filesystem matrix takes its "
                                         "device from target, where commas separate devices; name the device by "
                                         "a path without one (/dev/sdX, /dev/disk/by-id/...)",
                                         CALLER_TEXT(s->target));
                r = strv_push(&s->devices, s->target);
                if (r < 0)
                        return r;
                s->set_mask |= KEY_BIT(SPEC_KEY_DEVICES);
        } else if (!s->target) {
                r = set_target(s, s->devices[0]);
                if (r < 0)
                        return r;
        } else if (!strv_contains(s->devices, s->target))
                return spec_fail(reterr, "target: %s is not one of devices (%s); leave target out (it is the "
                                 "first device then) or list it in devices", CALLER_TEXT(s->target),
                                 list_text(s->devices, buf, sizeof(buf)));

        for (char **d = s->devices; *d; d++)
                bytes += strlen(*d) + 1;
        if (bytes > SPEC_DEVICES_BYTES_MAX)
                return spec_fail(reterr, "devices: the paths take %zu bytes together, more than %u; name the "
                                 "devices by shorter paths (/dev/sdX, /dev/disk/by-id/...)", bytes,
                                 SPEC_DEVICES_BYTES_MAX);
        return 0;
}

static int check_map_keys(const JobSpec *s, SpecKey k, char **reterr) {
        const SpecMap *m = spec_map_of(s, k);
        char buf[256];

        for (size_t i = 0; i < m->n; i++)
                if (!strv_contains(s->filesystems, m->keys[i]))
                        return spec_fail(reterr, "%s.%s: %s is not in filesystems (%s); add it to filesystems or "
                                         "leave %s.%s out", spec_key_table[k].name, m->keys[i], m->keys[i],
                                         list_text(s->filesystems, buf, sizeof(buf)), spec_key_table[k].name,
                                         m->keys[i]);
        return 0;
}

static int check_layout(const JobSpec *s, char **reterr) {
        const char *name = layout_to_string(s->layout), *md = NULL;
        size_t n = strv_length(s->devices);
        unsigned want = layout_devices_min(s->layout);

        if (layout_is_btrfs(s->layout, &md))
                for (char **f = s->filesystems; *f; f++) {
                        if (streq(*f, "btrfs"))
                                continue;
                        if (md)
                                return spec_fail(reterr, "layout: %s is btrfs's own RAID and %s cannot do it; use "
                                                 "filesystems=btrfs, or layout=%s where md RAID is available, or "
                                                 "layout=single", name, *f, md);
                        return spec_fail(reterr, "layout: %s is btrfs's own RAID and %s cannot do it; use "
                                         "filesystems=btrfs, or layout=single", name, *f);
                }
        if (n < want)
                return spec_fail(reterr, "layout: %s needs at least %u devices, devices has %zu; add %s or use "
                                 "layout=single", name, want, n, want - n == 1 ? "another device" : "more devices");
        return 0;
}

int spec_finalize_matrix(JobSpec *s, char **reterr) {
        int r;

        if (!s->filesystems || !s->filesystems[0])
                return check_no_matrix(s, reterr);

        r = settle_devices(s, reterr);
        if (r < 0)
                return r;
        if (!s->destructive)
                return spec_fail(reterr, "filesystems: a filesystem matrix runs mkfs on its devices, which erases "
                                 "them; set destructive=true (devices must be marked scratch or carry no data)");
        r = check_map_keys(s, SPEC_KEY_MKFS_OPTIONS, reterr);
        if (r >= 0)
                r = check_map_keys(s, SPEC_KEY_MOUNT_OPTIONS, reterr);
        if (r < 0)
                return r;

        if (s->layout < 0) {
                s->layout = LAYOUT_SINGLE;
                s->set_mask |= KEY_BIT(SPEC_KEY_LAYOUT);
        }
        r = check_layout(s, reterr);
        if (r < 0)
                return r;
        r = check_md_lvm_keys(s, reterr);
        if (r >= 0)
                r = check_partitions(s, reterr);
        if (r < 0)
                return r;

        /* Each filesystem's workload runs on a directory of it. */
        if (s->workload >= 0 && !workload_on_directory(s->workload))
                return spec_fail(reterr, "workload: %s works on a block device itself, but a filesystem matrix "
                                 "runs its workload on a directory of each filesystem it makes; use a workload "
                                 "of files (write, read, ...), or leave filesystems out",
                                 workload_to_string(s->workload));
        return 0;
}
