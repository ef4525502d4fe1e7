/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The spec registry: every job spec key, declared once. Its row says what the key is called, what
 * kind of value it takes and within which bounds, where the value lives in a JobSpec, its default,
 * its unit, which runs column records it, and one line of documentation. Everything else derives
 * from this table: parsing a typed value from D-Bus or JSON and a textual one from benchctl --set,
 * profile files and the worker protocol (spec.c), the text and JSON forms (spec-format.c), the D-Bus
 * types benchd accepts (bus-util.c), benchctl's --set typing and `benchctl help spec`, the man page
 * benchd-spec(7), and the key table of docs/DESIGN.md "Job spec" (checked against `benchctl help
 * spec --json` by tests/docs/spec-keys-table.py).
 *
 * Adding a key: a SpecKey in spec.h, a field in JobSpec, and a row here; a string key with rules of
 * its own also gets a parse and a text function below, a string list or map key a check of one
 * item (or map key); a key whose values are a fixed set a list of SpecChoice, its values written
 * nowhere else. A runs column, if it has one, is a migration in schema/ and its name in the row:
 * db_run_begin() (daemon/store/db.c) binds every runs column from the step, and ImportRuns
 * (daemon/store/db-import.c) reads every one from the document.
 */

#include <assert.h>
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fs-entry.h"
#include "spec-internal.h"
#include "spec.h"
#include "util.h"

#define FILE_SIZE_MAX (UINT64_C(1) << 30)
#define PROFILE_NAME_MAX 64u

/* ---- keys whose values are a fixed set ---- */

static const SpecChoice workload_choices[] = {
        { "read", WORKLOAD_READ },
        { "write", WORKLOAD_WRITE },
        { "randread", WORKLOAD_RANDREAD },
        { "randwrite", WORKLOAD_RANDWRITE },
        { "randrw", WORKLOAD_RANDRW },
        { "rewrite", WORKLOAD_REWRITE },
        { "reread", WORKLOAD_REREAD },
        { "backward-read", WORKLOAD_BACKWARD_READ },
        { "stride-read", WORKLOAD_STRIDE_READ },
        { "seeks", WORKLOAD_SEEKS },
        { "metadata", WORKLOAD_METADATA },
        { "ping", WORKLOAD_PING },
        { "position", WORKLOAD_POSITION },
        { "putc", WORKLOAD_PUTC },
        { "getc", WORKLOAD_GETC },
        { "read-modify-write", WORKLOAD_READ_MODIFY_WRITE },
        {}
};

static const SpecChoice layout_choices[] = {
        { "single", LAYOUT_SINGLE, "one device" },
        { "raid0", LAYOUT_RAID0, "btrfs's own" },
        { "raid1", LAYOUT_RAID1, "btrfs's own" },
        { "raid10", LAYOUT_RAID10, "btrfs's own" },
        { "md-raid0", LAYOUT_MD_RAID0, "an md array of all devices" },
        { "md-raid1", LAYOUT_MD_RAID1, "an md array of all devices" },
        { "md-raid5", LAYOUT_MD_RAID5, "an md array of all devices" },
        { "md-raid10", LAYOUT_MD_RAID10, "an md array of all devices" },
        { "lvm", LAYOUT_LVM, "a volume group of all devices, a linear logical volume per entry" },
        { "md-raid1+lvm", LAYOUT_MD_RAID1_LVM, "LVM on an md RAID1 of all devices" },
        {}
};

static const SpecChoice md_resync_choices[] = {
        { "wait", MD_RESYNC_WAIT, "the array's initial resync finished before mkfs" },
        { "assume-clean", MD_RESYNC_ASSUME_CLEAN, "mdadm --assume-clean: no resync" },
        {}
};

static const SpecChoice fallocate_choices[] = {
        { "native", FALLOCATE_NATIVE, "fallocate() the whole file first" },
        { "none", FALLOCATE_NONE, "allocated as the writes reach them, as dd, bonnie++ and iozone" },
        {}
};

static const SpecChoice ioengine_choices[] = {
        { "auto", IOENGINE_AUTO, "pread/pwrite at queue_depth 1, io_uring above" },
        { "sync", IOENGINE_SYNC, "pread/pwrite, depth 1 only" },
        { "io_uring", IOENGINE_IO_URING },
        { "libaio", IOENGINE_LIBAIO, "Linux AIO, as fio's libaio and KDiskMark" },
        {}
};

/* The field of a key with choices is an enum, stored as an int. */
static_assert(sizeof(Workload) == sizeof(int) && sizeof(Layout) == sizeof(int) &&
              sizeof(MdResync) == sizeof(int) && sizeof(FallocateMode) == sizeof(int) &&
              sizeof(IoEngineKind) == sizeof(int), "enum keys are ints");

static const SpecChoice *choice_find(const SpecChoice *c, const char *name) {
        for (; c && name && c->name; c++)
                if (streq(c->name, name))
                        return c;
        return NULL;
}

static const char *choice_name(const SpecChoice *c, int value) {
        for (; c && c->name; c++)
                if (c->value == value)
                        return c->name;
        return NULL;
}

const SpecChoice *spec_choice_by_name(SpecKey k, const char *name) {
        const SpecKeyInfo *ki = spec_key_info(k);

        return ki ? choice_find(ki->choices, name) : NULL;
}

const char *spec_choice_name(SpecKey k, int value) {
        const SpecKeyInfo *ki = spec_key_info(k);

        return ki ? choice_name(ki->choices, value) : NULL;
}

/* A key with choices, parsed from its list: "workload: 'x' is not a workload; use one of read, ...". */
static int parse_choice(JobSpec *s, SpecKey k, const char *value, char **reterr) {
        const SpecKeyInfo *ki = &spec_key_table[k];
        const SpecChoice *c = choice_find(ki->choices, value);
        _cleanup_free_ char *list = NULL;

        if (c) {
                *(int *) ((uint8_t *) s + ki->offset) = c->value;
                return 0;
        }
        list = spec_choices_text(k);
        if (!list)
                return -ENOMEM;
        return spec_fail(reterr, "%s: '%s' is not %s %s; use one of %s", ki->name, CALLER_TEXT(value),
                         strchr("aeiouAEIOU", ki->item[0]) ? "an" : "a", ki->item, list);
}

int spec_parse_value(JobSpec *s, SpecKey k, const char *value, char **reterr) {
        const SpecKeyInfo *ki = &spec_key_table[k];

        return ki->parse ? ki->parse(s, value, reterr) : parse_choice(s, k, value, reterr);
}

const char *workload_to_string(Workload w) {
        return choice_name(workload_choices, w);
}

Workload workload_from_string(const char *s) {
        const SpecChoice *c = choice_find(workload_choices, s);

        return c ? (Workload) c->value : _WORKLOAD_INVALID;
}

const char *layout_to_string(Layout l) {
        return choice_name(layout_choices, l);
}

Layout layout_from_string(const char *s) {
        const SpecChoice *c = choice_find(layout_choices, s);

        return c ? (Layout) c->value : _LAYOUT_INVALID;
}

const char *md_resync_to_string(MdResync m) {
        return choice_name(md_resync_choices, m);
}

MdResync md_resync_from_string(const char *s) {
        const SpecChoice *c = choice_find(md_resync_choices, s);

        return c ? (MdResync) c->value : _MD_RESYNC_INVALID;
}

const char *ioengine_kind_to_string(IoEngineKind k) {
        return choice_name(ioengine_choices, k);
}

/* ---- string keys with rules of their own ---- */

static int replace_string(char **field, const char *value) {
        char *t = value && value[0] ? strdup(value) : NULL;

        if (value && value[0] && !t)
                return -ENOMEM;
        free(*field);
        *field = t;
        return 0;
}

/* An absolute path of at most SPEC_PATH_MAX - 1 bytes without control characters: target and
 * each of devices. what and example say what the key wants ("a block device", "/dev/loop1"). */
static int check_path(const char *key, const char *value, const char *what, const char *example,
                      char **reterr) {
        if (value[0] != '/')
                return spec_fail(reterr, "%s: '%s' is not an absolute path; give the full path of %s, e.g. %s",
                                 key, CALLER_TEXT(value), what, example);
        if (strlen(value) >= SPEC_PATH_MAX)
                return spec_fail(reterr, "%s: path is longer than %u bytes; use a shorter path", key, SPEC_PATH_MAX);
        for (const char *p = value; *p; p++)
                if ((unsigned char) *p < 0x20 || *p == 0x7f)
                        return spec_fail(reterr, "%s: '%s' contains a control character (newline, tab, ...); use "
                                         "a path without them", key, CALLER_TEXT(value));
        return 0;
}

static int parse_target(JobSpec *s, const char *value, char **reterr) {
        int r = check_path("target", value, "a directory, regular file or block device", "/mnt/scratch", reterr);

        if (r < 0)
                return r;
        return replace_string(&s->target, value);
}

static bool profile_name_ok(const char *s) {
        size_t n = strlen(s);

        if (n == 0 || n > PROFILE_NAME_MAX)
                return false;
        for (const char *p = s; *p; p++)
                if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '_' || *p == '-'))
                        return false;
        return true;
}

static int parse_profile(JobSpec *s, const char *value, char **reterr) {
        if (!profile_name_ok(value))
                return spec_fail(reterr, "profile: '%s' is not a profile name; use 1 to %u characters of a-z, "
                                 "0-9, '_' and '-', e.g. dd", CALLER_TEXT(value), PROFILE_NAME_MAX);
        return replace_string(&s->profile, value);
}

int spec_parse_sync(const char *s, SyncMode *ret_mode, SyncCall *ret_call) {
        SyncMode mode;
        SyncCall call = SYNC_CALL_FSYNC;
        const char *colon = strchr(s, ':');
        size_t n = colon ? (size_t) (colon - s) : strlen(s);

        if (!colon && (streq(s, "fsync") || streq(s, "fdatasync"))) {
                *ret_mode = SYNC_END;
                *ret_call = streq(s, "fsync") ? SYNC_CALL_FSYNC : SYNC_CALL_FDATASYNC;
                return 0;
        }
        if (n == 4 && strncmp(s, "none", 4) == 0 && !colon)
                mode = SYNC_NONE;
        else if (n == 3 && strncmp(s, "end", 3) == 0)
                mode = SYNC_END;
        else if (n == 4 && strncmp(s, "each", 4) == 0)
                mode = SYNC_EACH;
        else
                return -EINVAL;

        if (colon) {
                if (streq(colon + 1, "fsync"))
                        call = SYNC_CALL_FSYNC;
                else if (streq(colon + 1, "fdatasync"))
                        call = SYNC_CALL_FDATASYNC;
                else
                        return -EINVAL;
        }
        *ret_mode = mode;
        *ret_call = call;
        return 0;
}

static int parse_sync(JobSpec *s, const char *value, char **reterr) {
        if (spec_parse_sync(value, &s->sync, &s->sync_call) < 0)
                return spec_fail(reterr, "sync: '%s' is not a sync mode; use none, end or each, optionally "
                                 "with :fsync or :fdatasync, e.g. end:fsync", CALLER_TEXT(value));
        return 0;
}

static const char *text_sync(const JobSpec *s, char buf[static SPEC_TEXT_MAX]) {
        spec_sync_text(s, buf);
        return buf;
}

static int parse_pattern(JobSpec *s, const char *value, char **reterr) {
        uint64_t pct = 0;
        bool ok = true;

        if (streq(value, "random"))
                s->pattern = PATTERN_RANDOM;
        else if (streq(value, "zero"))
                s->pattern = PATTERN_ZERO;
        else if (streq(value, "dev-zero"))
                s->pattern = PATTERN_DEV_ZERO;
        else if (strncmp(value, "compressible:", 13) == 0 && strlen(value + 13) <= 3 &&
                 spec_parse_decimal(value + 13, &pct) >= 0 && pct <= 100)
                s->pattern = PATTERN_COMPRESSIBLE;
        else
                ok = false;
        if (!ok)
                return spec_fail(reterr, "pattern: '%s' is not a data pattern; use random, zero, dev-zero or "
                                 "compressible:NN with NN from 0 to 100, e.g. compressible:50", CALLER_TEXT(value));
        s->compress_pct = (uint32_t) pct;
        return 0;
}

static const char *text_pattern(const JobSpec *s, char buf[static SPEC_TEXT_MAX]) {
        spec_pattern_text(s, buf);
        return buf;
}

/* Valid UTF-8 without control characters: labels end up in D-Bus strings and in text lines. */
static bool label_ok(const char *s) {
        while (*s) {
                size_t n = utf8_char_len(s);

                if (n == 0 || utf8_is_control(s, n))
                        return false;
                s += n;
        }
        return true;
}

static int parse_label(JobSpec *s, const char *value, char **reterr) {
        if (strlen(value) > SPEC_LABEL_MAX)
                return spec_fail(reterr, "label: longer than %u bytes; use a shorter label", SPEC_LABEL_MAX);
        if (!label_ok(value))
                return spec_fail(reterr, "label: '%s' contains control characters or invalid UTF-8; use "
                                 "printable text", CALLER_TEXT(value));
        /* An empty label is no label, so every form of the spec agrees on it. */
        return replace_string(&s->label, value);
}

/* One printable line, bounded: what md_options and lvm_options hold before their own checks. */
static int options_line(const char *key, const char *value, char **reterr) {
        if (strlen(value) > SPEC_MAP_VALUE_MAX)
                return spec_fail(reterr, "%s: longer than %u bytes; give fewer options", key, SPEC_MAP_VALUE_MAX);
        if (!label_ok(value))
                return spec_fail(reterr, "%s: '%s' contains control characters or invalid UTF-8; give options "
                                 "as one line of text", key, CALLER_TEXT(value));
        return 0;
}

static int parse_md_options(JobSpec *s, const char *value, char **reterr) {
        int r = options_line("md_options", value, reterr);

        if (r >= 0)
                r = spec_md_options_check(value, reterr);
        if (r < 0)
                return r;
        /* Blank options are none. */
        return replace_string(&s->md_options, value[strspn(value, " \t")] ? value : "");
}

static int parse_lvm_options(JobSpec *s, const char *value, char **reterr) {
        int r = options_line("lvm_options", value, reterr);

        if (r >= 0)
                r = spec_lvm_options_check(value, NULL, reterr);
        if (r < 0)
                return r;
        return replace_string(&s->lvm_options, value[strspn(value, " \t")] ? value : "");
}

/* Written for the md layouts (every run of one records it), and when not the default, wait (0). */
static const char *text_md_resync(const JobSpec *s, char buf[static SPEC_TEXT_MAX]) {
        if (s->md_resync == MD_RESYNC_WAIT && !(s->layout >= 0 && layout_is_md(s->layout)))
                return NULL;
        return md_resync_to_string(s->md_resync);
}

static int parse_lv_size(JobSpec *s, const char *value, char **reterr) {
        uint64_t v;

        if (parse_size(value, &v) < 0 || v > SPEC_SIZE_MAX)
                return spec_fail(reterr, "lv_size: '%s' is not a size up to 16T; use e.g. lv_size=2G, or 0 for the "
                                 "whole volume group", CALLER_TEXT(value));
        s->lv_size = v;
        return 0;
}

/* Written when not 0 (0: the whole group). */
static const char *text_lv_size(const JobSpec *s, char buf[static SPEC_TEXT_MAX]) {
        return s->lv_size ? spec_size_text(s->lv_size, buf) : NULL;
}

/* partitions and partition: 1..16, or 0 (none). */
static int parse_partition_count(const char *key, const char *value, uint32_t *ret, char **reterr) {
        char *end = NULL;
        unsigned long v;

        errno = 0;
        v = value[0] >= '0' && value[0] <= '9' ? strtoul(value, &end, 10) : ULONG_MAX;
        if (errno != 0 || !end || *end || v > SPEC_PARTITIONS_MAX)
                return spec_fail(reterr, "%s: '%s' is not a number of 1 to %u%s", key, CALLER_TEXT(value),
                                 SPEC_PARTITIONS_MAX, streq(key, "partitions") ? " (partitions per device), or 0 "
                                 "for none" : " (the partition of each device), or 0 for all of them");
        *ret = (uint32_t) v;
        return 0;
}

static int parse_partitions(JobSpec *s, const char *value, char **reterr) {
        return parse_partition_count("partitions", value, &s->partitions, reterr);
}

static const char *text_partitions(const JobSpec *s, char buf[static SPEC_TEXT_MAX]) {
        if (!s->partitions)
                return NULL;
        snprintf(buf, SPEC_TEXT_MAX, "%" PRIu32, s->partitions);
        return buf;
}

static int parse_partition(JobSpec *s, const char *value, char **reterr) {
        return parse_partition_count("partition", value, &s->partition, reterr);
}

static const char *text_partition(const JobSpec *s, char buf[static SPEC_TEXT_MAX]) {
        if (!s->partition)
                return NULL;
        snprintf(buf, SPEC_TEXT_MAX, "%" PRIu32, s->partition);
        return buf;
}

/* A percentage with at most three decimals ("5", "2.5", "0.001", optionally "5%") in thousandths of
 * a percent, at most SPEC_MILLI_PCT_MAX. */
static int parse_milli_pct(const char *value, uint32_t *ret) {
        uint64_t whole = 0, frac = 0;
        const char *p = value;
        size_t digits = 0;

        for (; *p >= '0' && *p <= '9' && digits < 4; p++, digits++)
                whole = whole * 10 + (uint64_t) (*p - '0');
        if (digits == 0 || (*p >= '0' && *p <= '9'))
                return -EINVAL;
        if (*p == '.') {
                p++;
                digits = 0;
                for (; *p >= '0' && *p <= '9'; p++, digits++) {
                        if (digits >= 3)
                                return -EINVAL;
                        frac = frac * 10 + (uint64_t) (*p - '0');
                }
                if (digits == 0)
                        return -EINVAL;
                for (; digits < 3; digits++)
                        frac *= 10;
        }
        if (*p == '%')
                p++;
        if (*p || whole * 1000 + frac > SPEC_MILLI_PCT_MAX)
                return -EINVAL;
        *ret = (uint32_t) (whole * 1000 + frac);
        return 0;
}

/* A fleet run's uuid, as benchctl makes it: 8-4-4-4-12 lowercase hex digits. */
static int parse_fleet_uuid(JobSpec *s, const char *value, char **reterr) {
        size_t n = strlen(value);
        bool ok = n == 36;

        for (size_t i = 0; ok && i < n; i++)
                ok = (i == 8 || i == 13 || i == 18 || i == 23) ? value[i] == '-'
                                                                : (isdigit((unsigned char) value[i]) ||
                                                                   (value[i] >= 'a' && value[i] <= 'f'));
        if (n > 0 && !ok)
                return spec_fail(reterr, "fleet_uuid: '%s' is not a uuid; give 36 characters of lowercase hex digits "
                                 "and dashes, e.g. 0f8fad5b-d9cb-469f-a165-70867728950e", CALLER_TEXT(value));
        return replace_string(&s->fleet_uuid, value);
}

/* The host's name as benchctl was given it ([USER@]HOST): printable, no spaces. */
static int parse_fleet_host(JobSpec *s, const char *value, char **reterr) {
        if (strlen(value) > SPEC_FLEET_HOST_MAX)
                return spec_fail(reterr, "fleet_host: longer than %u bytes; use the host's name as ssh knows it",
                                 SPEC_FLEET_HOST_MAX);
        for (const char *p = value; *p; p++)
                if ((unsigned char) *p <= 0x20 || *p == 0x7f)
                        return spec_fail(reterr, "fleet_host: '%s' contains a space or control character; use the "
                                         "host's name as ssh knows it, e.g. bench1 or root@bench1",
                                         CALLER_TEXT(value));
        return replace_string(&s->fleet_host, value);
}

static int parse_fleet_tolerance(JobSpec *s, const char *value, char **reterr) {
        char *end = NULL;
        unsigned long v;

        errno = 0;
        v = strtoul(value, &end, 10);
        if (!isdigit((unsigned char) value[0]) || errno != 0 || !end || *end != 0 || v < 1 ||
            v > SPEC_FLEET_TOLERANCE_MS_MAX)
                return spec_fail(reterr, "fleet_clock_tolerance_ms: '%s' is not a number of milliseconds from 1 to %u",
                                 CALLER_TEXT(value), SPEC_FLEET_TOLERANCE_MS_MAX);
        s->fleet_clock_tolerance_ms = (uint32_t) v;
        return 0;
}

static const char *text_fleet_tolerance(const JobSpec *s, char buf[static SPEC_TEXT_MAX]) {
        if (s->fleet_clock_tolerance_ms == 0)
                return NULL;
        snprintf(buf, SPEC_TEXT_MAX, "%" PRIu32, s->fleet_clock_tolerance_ms);
        return buf;
}

static int parse_until_stddev(JobSpec *s, const char *value, char **reterr) {
        if (parse_milli_pct(value, &s->until_stddev_milli) < 0)
                return spec_fail(reterr, "until_stddev: '%s' is not a percentage; use 0 (off) to 100 with at most "
                                 "three decimals, e.g. until_stddev=2.5", CALLER_TEXT(value));
        return 0;
}

static const char *text_until_stddev(const JobSpec *s, char buf[static SPEC_TEXT_MAX]) {
        spec_milli_text(s->until_stddev_milli, buf);
        return buf;
}

static int parse_steady_state(JobSpec *s, const char *value, char **reterr) {
        static const SteadyStateKind kinds[] = {
                STEADY_STATE_IOPS, STEADY_STATE_BW, STEADY_STATE_IOPS_SLOPE, STEADY_STATE_BW_SLOPE,
        };
        const char *colon = strchr(value, ':');
        uint32_t milli = 0;

        for (size_t i = 0; colon && i < ELEMENTSOF(kinds); i++) {
                const char *name = steady_state_kind_to_string(kinds[i]);

                if (strlen(name) != (size_t) (colon - value) || strncmp(value, name, strlen(name)) != 0)
                        continue;
                if (parse_milli_pct(colon + 1, &milli) < 0 || milli == 0)
                        break;
                s->steady_state = kinds[i];
                s->steady_state_milli = milli;
                return 0;
        }
        return spec_fail(reterr, "steady_state: '%s' is not a steady-state criterion; use iops:PCT, bw:PCT, "
                         "iops_slope:PCT or bw_slope:PCT with PCT above 0 and at most 100 (three decimals at "
                         "most), e.g. steady_state=iops:5", CALLER_TEXT(value));
}

/* NULL (no value) when off. */
static const char *text_steady_state(const JobSpec *s, char buf[static SPEC_TEXT_MAX]) {
        const char *name = steady_state_kind_to_string(s->steady_state);
        char pct[32];

        if (!name)
                return NULL;
        spec_milli_text(s->steady_state_milli, pct);
        snprintf(buf, SPEC_TEXT_MAX, "%.12s:%.12s", name, pct);
        return buf;
}

/* ---- items of string lists and keys of maps ---- */

static int check_tag(const char *key, const char *item, char **reterr) {
        size_t n = strlen(item);
        bool ok = n > 0 && n <= SPEC_TAG_LEN_MAX;

        for (const char *p = item; ok && *p; p++)
                if (!(isalnum((unsigned char) *p) || strchr("._:+-", *p)))
                        ok = false;
        if (!ok)
                return spec_fail(reterr, "%s: '%s' is not a valid tag; use 1 to %u characters of A-Z, a-z, "
                                 "0-9 and . _ : + -", key, CALLER_TEXT(item), SPEC_TAG_LEN_MAX);
        return 0;
}

/* record_sizes: a block size as block_size takes it (at least 512; profile_expand() matches it). */
static int check_record_size(const char *key, const char *item, char **reterr) {
        uint64_t v;

        if (parse_size(item, &v) < 0 || v < SPEC_BLOCK_SIZE_MIN || v > SPEC_BLOCK_SIZE_MAX)
                return spec_fail(reterr, "%s: '%s' is not a record size; use sizes of 512 to 64M, as block_size "
                                 "takes them, e.g. record_sizes=4K,64K", key, CALLER_TEXT(item));
        return 0;
}

/* Filesystem names as mkfs.<name> and /proc/filesystems spell them: ext4, btrfs, xfs, vfat; or an
 * entry of fs-entry.h (ext4-from-ext3). */
static int check_fs_name(const char *key, const char *item, char **reterr) {
        size_t n = strlen(item);
        bool ok = n > 0 && n <= SPEC_FS_NAME_MAX;

        if (fs_entry_find(item))
                return 0;

        for (const char *p = item; ok && *p; p++)
                if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9')))
                        ok = false;
        if (!ok)
                return spec_fail(reterr, "%s: '%s' is not a filesystem name; use 1 to %u characters of a-z and "
                                 "0-9, as mkfs.NAME spells it, e.g. ext4, or one of %s", key, CALLER_TEXT(item),
                                 SPEC_FS_NAME_MAX, fs_entry_names());
        return 0;
}

static int check_device(const char *key, const char *item, char **reterr) {
        int r = check_path(key, item, "a block device", "/dev/disk/by-id/...", reterr);

        if (r < 0)
                return r;
        /* The text form (--set, profile files, the worker's spec) separates devices with commas, so
         * one path with a comma would come back as two; found by tests/fuzz/fuzz-bus-spec.c. */
        if (strchr(item, ','))
                return spec_fail(reterr, "%s: '%s' contains a comma, which separates devices; name the device "
                                 "by a path without one (/dev/sdX, /dev/disk/by-id/...)", key, CALLER_TEXT(item));
        return 0;
}

/* mkfs_options.<fs>: spec-mkfs.c's lists of what mkfs may not be told. */
static int check_mkfs_options(const char *key, const char *sub, const char *value, char **reterr) {
        assert(streq(key, "mkfs_options"));
        return spec_mkfs_options_check(sub, value, reterr);
}

/* ---- computed defaults ---- */

/* Sequential workloads default to 1M blocks, random and latency workloads to 4K, the
 * per-character ones (putc, getc) to 1: one character per call, the only value they take. */
static void default_block_size(JobSpec *s) {
        switch (s->workload) {
        case WORKLOAD_PUTC:
        case WORKLOAD_GETC:
                s->block_size = 1;
                break;
        case WORKLOAD_READ:
        case WORKLOAD_WRITE:
        case WORKLOAD_REWRITE:
        case WORKLOAD_REREAD:
        case WORKLOAD_BACKWARD_READ:
        case WORKLOAD_STRIDE_READ:
        case WORKLOAD_POSITION:
        case WORKLOAD_READ_MODIFY_WRITE:
                s->block_size = UINT64_C(1) << 20;
                break;
        default:
                s->block_size = 4096;
        }
}

/* position reads size at each of its offsets: 64M there (20 × 64M = 1.25G in all), 1G elsewhere.
 * The worker reads less at each offset when positions × size exceeds the device. */
static void default_size(JobSpec *s) {
        s->size = s->workload == WORKLOAD_POSITION ? UINT64_C(64) << 20 : UINT64_C(1) << 30;
}

/* O_DIRECT by default, but not for the per-character workloads, which go through stdio and the
 * page cache as bonnie++'s do (and refuse direct=true). */
static void default_direct(JobSpec *s) {
        s->direct = !workload_per_char(s->workload);
}

static void default_sync(JobSpec *s) {
        s->sync = workload_writes(s->workload) ? SYNC_END : SYNC_NONE;
        s->sync_call = SYNC_CALL_FSYNC;
}

static void default_pattern(JobSpec *s) {
        s->pattern = PATTERN_RANDOM;
        s->compress_pct = 0;
}

/* block_size comes first in the table, so its default is in place. At least the key's minimum:
 * the per-character workloads' block_size of 1 would make it 4, which no stride may be. */
static void default_stride(JobSpec *s) {
        s->stride = MAX(4 * s->block_size, SPEC_BLOCK_SIZE_MIN);
}

static void default_fallocate(JobSpec *s) {
        s->fallocate = FALLOCATE_NATIVE;
}

static void default_ioengine(JobSpec *s) {
        s->ioengine = IOENGINE_AUTO;
}

static void default_until_stddev(JobSpec *s) {
        s->until_stddev_milli = 0;
}

/* ---- the table ---- */

#define NUM(field, lo, hi) .offset = offsetof(JobSpec, field), .width = sizeof(((JobSpec *) 0)->field), \
        .min = (lo), .max = (hi)
#define BOOL_FIELD(field) .offset = offsetof(JobSpec, field), .width = sizeof(((JobSpec *) 0)->field)

const SpecKeyInfo spec_key_table[_SPEC_KEY_MAX] = {
        [SPEC_KEY_TARGET] = {
                "target", SPEC_KIND_STRING, .optional = true, .parse = parse_target,
                .offset = offsetof(JobSpec, target),
                .runs_column = "target",
                .doc = "absolute path: a directory on a mounted filesystem, a regular file (read workloads but getc) "
                       "or a block device node",
        },
        [SPEC_KEY_PROFILE] = {
                "profile", SPEC_KIND_STRING, .optional = true, .parse = parse_profile,
                .offset = offsetof(JobSpec, profile),
                .doc = "a profile of steps (benchctl profiles), instead of workload",
        },
        [SPEC_KEY_WORKLOAD] = {
                "workload", SPEC_KIND_STRING, .optional = true, .offset = offsetof(JobSpec, workload),
                .choices = workload_choices, .item = "workload", .runs_column = "workload",
                .doc = "what the job runs, instead of profile",
        },
        [SPEC_KEY_BLOCK_SIZE] = {
                "block_size", SPEC_KIND_SIZE, NUM(block_size, 1, SPEC_BLOCK_SIZE_MAX),
                .unit = "bytes", .fill_default = default_block_size,
                .default_text = "1M for sequential workloads, 1 for putc and getc, 4K otherwise",
                .runs_column = "block_size",
                .doc = "bytes per I/O: at least 512, except putc and getc, which take only 1 (a character per call)",
        },
        [SPEC_KEY_SIZE] = {
                "size", SPEC_KIND_SIZE, NUM(size, 1, SPEC_SIZE_MAX), .unit = "bytes",
                .fill_default = default_size, .default_text = "64M for position, 1G otherwise",
                .runs_column = "size",
                .doc = "bytes of the file (or device region) each stream works on; seeks: of the one file its streams "
                       "share, as bonnie++'s seekers share theirs; position: bytes read at each "
                       "offset (less when positions × size exceeds the device)",
        },
        [SPEC_KEY_RUNTIME_MS] = {
                "runtime_ms", SPEC_KIND_NUMBER, NUM(runtime_ms, 0, SPEC_RUNTIME_MS_MAX), .unit = "ms",
                .has_default = true, .default_value = 0, .default_text = "0 (until size is done)",
                .runs_column = "runtime_ms",
                .doc = "run for this long, repeating over size; 0: one pass over size",
        },
        [SPEC_KEY_RAMP_MS] = {
                "ramp_ms", SPEC_KIND_NUMBER, NUM(ramp_ms, 0, SPEC_RUNTIME_MS_MAX), .unit = "ms",
                .has_default = true, .default_value = 0, .default_text = "0", .runs_column = "ramp_ms",
                .doc = "warm-up excluded from the results (needs runtime_ms)",
        },
        [SPEC_KEY_QUEUE_DEPTH] = {
                "queue_depth", SPEC_KIND_NUMBER, NUM(queue_depth, 1, SPEC_QUEUE_DEPTH_MAX),
                .has_default = true, .default_value = 1, .default_text = "1", .runs_column = "queue_depth",
                .doc = "I/Os in flight per stream (ioengine=auto: io_uring above 1)",
        },
        [SPEC_KEY_JOBS] = {
                "jobs", SPEC_KIND_NUMBER, NUM(jobs, 1, SPEC_JOBS_MAX),
                .has_default = true, .default_value = 1, .default_text = "1", .runs_column = "jobs",
                .doc = "parallel streams, each a process with its own file",
        },
        [SPEC_KEY_DIRECT] = {
                "direct", SPEC_KIND_BOOL, BOOL_FIELD(direct), .fill_default = default_direct,
                .default_text = "true, false for putc and getc", .runs_column = "direct",
                .doc = "O_DIRECT: bypass the page cache (refused by putc and getc, which go through stdio)",
        },
        [SPEC_KEY_SYNC] = {
                "sync", SPEC_KIND_STRING, .parse = parse_sync, .text = text_sync, .fill_default = default_sync,
                .default_text = "end:fsync for writing workloads, none otherwise", .runs_column = "sync",
                .doc = "none, end or each, optionally :fsync or :fdatasync (end: once, inside the timed region)",
        },
        [SPEC_KEY_RWMIX_READ] = {
                "rwmix_read", SPEC_KIND_NUMBER, NUM(rwmix_read, 0, 100), .unit = "%",
                .has_default = true, .default_value = 50, .default_text = "50", .runs_column = "rwmix_read",
                .doc = "share of reads in randrw",
        },
        [SPEC_KEY_PATTERN] = {
                "pattern", SPEC_KIND_STRING, .parse = parse_pattern, .text = text_pattern,
                .fill_default = default_pattern, .default_text = "random", .runs_column = "pattern",
                .doc = "data written: random (incompressible), zero, dev-zero (zeros read from /dev/zero before "
                       "each write, inside the time, as dd if=/dev/zero copies them), or compressible:NN (NN% zeros)",
        },
        [SPEC_KEY_STRIDE] = {
                "stride", SPEC_KIND_SIZE, NUM(stride, SPEC_BLOCK_SIZE_MIN, SPEC_SIZE_MAX), .unit = "bytes",
                .fill_default = default_stride, .default_text = "4 × block_size (at least 512)",
                .doc = "distance between reads of stride-read",
        },
        [SPEC_KEY_FILE_COUNT] = {
                "file_count", SPEC_KIND_NUMBER, NUM(file_count, 1, SPEC_FILE_COUNT_MAX),
                .has_default = true, .default_value = 16384, .default_text = "16384",
                .doc = "files of the metadata workload (bonnie++ -n 16)",
        },
        [SPEC_KEY_FILE_SIZE_MIN] = {
                "file_size_min", SPEC_KIND_SIZE, NUM(file_size_min, 0, FILE_SIZE_MAX), .unit = "bytes",
                .has_default = true, .default_value = 0, .default_text = "0",
                .doc = "smallest file of the metadata workload",
        },
        [SPEC_KEY_FILE_SIZE_MAX] = {
                "file_size_max", SPEC_KIND_SIZE, NUM(file_size_max, 0, FILE_SIZE_MAX), .unit = "bytes",
                .has_default = true, .default_value = 0, .default_text = "0",
                .doc = "largest file of the metadata workload",
        },
        [SPEC_KEY_DIRS] = {
                "dirs", SPEC_KIND_NUMBER, NUM(dirs, 1, SPEC_DIRS_MAX),
                .has_default = true, .default_value = 1, .default_text = "1",
                .doc = "directories the metadata workload spreads its files over",
        },
        [SPEC_KEY_SAMPLE_MS] = {
                "sample_ms", SPEC_KIND_NUMBER, NUM(sample_ms, SPEC_SAMPLE_MS_MIN, SPEC_SAMPLE_MS_MAX), .unit = "ms",
                .has_default = true, .default_value = 1000, .default_text = "1000",
                .doc = "interval of the samples stored for the run",
        },
        [SPEC_KEY_LABEL] = {
                "label", SPEC_KIND_STRING, .optional = true, .parse = parse_label,
                .offset = offsetof(JobSpec, label), .runs_column = "label",
                .doc = "free text to find the runs by (benchctl results --label)",
        },
        [SPEC_KEY_TAGS] = {
                "tags", SPEC_KIND_STRV, .optional = true, .offset = offsetof(JobSpec, tags),
                .max = SPEC_TAGS_MAX, .check_item = check_tag, .item = "tag", .runs_column = "tags",
                .doc = "up to 32 tags of A-Z a-z 0-9 . _ : + - (comma-separated in text)",
        },
        [SPEC_KEY_DESTRUCTIVE] = {
                "destructive", SPEC_KIND_BOOL, BOOL_FIELD(destructive),
                .has_default = true, .default_value = 0, .default_text = "false",
                .doc = "consent to overwrite a block device target (refused on directories and files)",
        },
        [SPEC_KEY_FILESYSTEMS] = {
                "filesystems", SPEC_KIND_STRV, .optional = true, .offset = offsetof(JobSpec, filesystems),
                .daemon_resolved = true,
                .max = SPEC_FILESYSTEMS_MAX, .check_item = check_fs_name, .item = "filesystem",
                .doc = "a filesystem matrix: up to 8 filesystems (ext4, btrfs, xfs, ...), each made on devices in "
                       "turn for the workload or profile to run on (comma-separated in text; needs destructive=true); "
                       "ext4-from-ext3 is mkfs.ext3 converted in place (tune2fs -O extents,uninit_bg,dir_index, "
                       "e2fsck -fyD) and mounted as ext4",
        },
        [SPEC_KEY_MKFS_OPTIONS] = {
                "mkfs_options", SPEC_KIND_MAP, .optional = true, .offset = offsetof(JobSpec, mkfs_options),
                .daemon_resolved = true,
                .max = SPEC_MAP_ENTRIES_MAX, .check_item = check_fs_name, .check_value = check_mkfs_options,
                .item = "filesystem",
                .doc = "extra mkfs arguments by filesystem (one entry per assignment: "
                       "mkfs_options.ext4=-E lazy_itable_init=0); options that read or write host files, "
                       "name other devices or force mkfs are refused",
        },
        [SPEC_KEY_MOUNT_OPTIONS] = {
                "mount_options", SPEC_KIND_MAP, .optional = true, .offset = offsetof(JobSpec, mount_options),
                .daemon_resolved = true,
                .max = SPEC_MAP_ENTRIES_MAX, .check_item = check_fs_name, .item = "filesystem",
                .doc = "mount options by filesystem (one entry per assignment: mount_options.btrfs=compress=zstd)",
        },
        [SPEC_KEY_DEVICES] = {
                "devices", SPEC_KIND_STRV, .optional = true, .offset = offsetof(JobSpec, devices),
                .daemon_resolved = true,
                .max = SPEC_DEVICES_MAX, .check_item = check_device, .item = "device",
                .doc = "the block devices a filesystem matrix erases, up to 16 absolute paths (comma-separated in "
                       "text); default: target, which defaults to the first",
        },
        [SPEC_KEY_LAYOUT] = {
                "layout", SPEC_KIND_STRING, .optional = true, .offset = offsetof(JobSpec, layout),
                .daemon_resolved = true,
                .choices = layout_choices, .item = "layout", .default_text = "single",
                .doc = "how a filesystem matrix uses its devices",
        },
        [SPEC_KEY_POSITIONS] = {
                "positions", SPEC_KIND_NUMBER, NUM(positions, SPEC_POSITIONS_MIN, SPEC_POSITIONS_MAX),
                .has_default = true, .default_value = 20, .default_text = "20",
                .doc = "offsets the position workload reads at, evenly spread from the start to the end of the "
                       "block device",
        },
        [SPEC_KEY_REPEAT] = {
                "repeat", SPEC_KIND_NUMBER, NUM(repeat, 1, SPEC_REPEAT_MAX),
                .daemon_resolved = true,
                .has_default = true, .default_value = 1, .default_text = "1",
                .doc = "run each step this many times, each a run of its own (runs.repeat 0, 1, ...); with "
                       "until_stddev the fewest runs (at least 3)",
        },
        [SPEC_KEY_UNTIL_STDDEV] = {
                "until_stddev", SPEC_KIND_STRING, .parse = parse_until_stddev, .text = text_until_stddev,
                .daemon_resolved = true,
                .fill_default = default_until_stddev, .unit = "%", .default_text = "0 (off)",
                .doc = "run each step again until the relative standard deviation of its main figure (MB/s, "
                       "IOPS or ops/s) over its runs is below this percentage (up to three decimals, e.g. 2.5)",
        },
        [SPEC_KEY_MAX_REPEATS] = {
                "max_repeats", SPEC_KIND_NUMBER, NUM(max_repeats, SPEC_STABLE_RUNS_MIN, SPEC_REPEAT_MAX),
                .daemon_resolved = true,
                .has_default = true, .default_value = 10, .default_text = "10",
                .doc = "with until_stddev: the most runs of a step, stable or not",
        },
        [SPEC_KEY_STEADY_STATE] = {
                "steady_state", SPEC_KIND_STRING, .optional = true, .parse = parse_steady_state,
                .text = text_steady_state,
                .doc = "end a time-based step once it is steady (fio's ss=): iops:PCT or bw:PCT (every sample of "
                       "the window within PCT% of its mean), iops_slope:PCT or bw_slope:PCT (the slope within PCT% "
                       "of the mean per second)",
        },
        [SPEC_KEY_STEADY_STATE_WINDOW_MS] = {
                "steady_state_window_ms", SPEC_KIND_NUMBER,
                NUM(steady_state_window_ms, SPEC_STEADY_WINDOW_MS_MIN, SPEC_STEADY_WINDOW_MS_MAX), .unit = "ms",
                .has_default = true, .default_value = 30000, .default_text = "30000",
                .doc = "with steady_state: the window of samples judged, at least two samples long and "
                       "within the measured phase",
        },
        [SPEC_KEY_FALLOCATE] = {
                "fallocate", SPEC_KIND_STRING, .offset = offsetof(JobSpec, fallocate),
                .choices = fallocate_choices, .item = "allocation mode",
                .fill_default = default_fallocate, .default_text = "native",
                .doc = "how the files benchd creates get their blocks (fio's fallocate=)",
        },
        [SPEC_KEY_INVALIDATE] = {
                "invalidate", SPEC_KIND_BOOL, BOOL_FIELD(invalidate),
                .has_default = true, .default_value = 1, .default_text = "true",
                .doc = "drop the file's cached pages before the measured phase (fio's invalidate=); false leaves "
                       "a laid-out file in the page cache, as iozone's read tests find the file its write test "
                       "wrote",
        },
        [SPEC_KEY_IOENGINE] = {
                "ioengine", SPEC_KIND_STRING, .offset = offsetof(JobSpec, ioengine),
                .choices = ioengine_choices, .item = "I/O engine",
                .fill_default = default_ioengine, .default_text = "auto",
                .doc = "how the block workloads queue their I/O (fio's ioengine=)",
        },
        [SPEC_KEY_REFILL_BUFFERS] = {
                "refill_buffers", SPEC_KIND_BOOL, BOOL_FIELD(refill_buffers),
                .has_default = true, .default_value = 0, .default_text = "false",
                .doc = "regenerate every write's whole buffer before it is queued, outside its latency but inside "
                       "the run's time (fio's refill_buffers, which KDiskMark sets); false: a fresh 8 bytes per "
                       "4 KiB, enough that no two blocks written are alike",
        },
        [SPEC_KEY_FLEET_UUID] = {
                "fleet_uuid", SPEC_KIND_STRING, .optional = true, .parse = parse_fleet_uuid,
                .offset = offsetof(JobSpec, fleet_uuid), .runs_column = "fleet_uuid",
                .doc = "the fleet run this job is one host's part of (set by benchctl run -H HOST -H HOST ...): "
                       "each step prepares, reports phase ready and starts its measured phase at the time "
                       "Job.Start gives",
        },
        [SPEC_KEY_FLEET_HOST] = {
                "fleet_host", SPEC_KIND_STRING, .optional = true, .parse = parse_fleet_host,
                .offset = offsetof(JobSpec, fleet_host), .runs_column = "fleet_host",
                .doc = "with fleet_uuid: this host's name in the fleet run, as benchctl was given it",
        },
        [SPEC_KEY_FLEET_CLOCK_TOLERANCE_MS] = {
                "fleet_clock_tolerance_ms", SPEC_KIND_STRING, .optional = true, .parse = parse_fleet_tolerance,
                .daemon_resolved = true,
                .text = text_fleet_tolerance, .unit = "ms", .default_text = "50",
                .doc = "with fleet_uuid: how far this host's clock may be from benchctl's (1 to 60000); a start "
                       "beyond it is refused unless it is corrected by the measured offset",
        },
        [SPEC_KEY_MD_OPTIONS] = {
                "md_options", SPEC_KIND_STRING, .optional = true, .parse = parse_md_options,
                .daemon_resolved = true,
                .offset = offsetof(JobSpec, md_options),
                .doc = "md layouts: mdadm --create options, of --chunk=SIZE, --bitmap=internal|none, "
                       "--metadata=VERSION and --layout=NAME (blank-separated)",
        },
        [SPEC_KEY_LVM_OPTIONS] = {
                "lvm_options", SPEC_KIND_STRING, .optional = true, .parse = parse_lvm_options,
                .daemon_resolved = true,
                .offset = offsetof(JobSpec, lvm_options),
                .doc = "LVM layouts: --physicalextentsize=SIZE (vgcreate), --dataalignment=SIZE and "
                       "--metadatasize=SIZE (pvcreate), blank-separated",
        },
        [SPEC_KEY_LV_SIZE] = {
                "lv_size", SPEC_KIND_STRING, .optional = true, .parse = parse_lv_size, .text = text_lv_size,
                .daemon_resolved = true,
                .unit = "bytes", .default_text = "0 (the whole group)",
                .doc = "LVM layouts: the size of each entry's logical volume, rounded up to whole extents; 0, "
                       "all of the volume group",
        },
        [SPEC_KEY_MD_RESYNC] = {
                "md_resync", SPEC_KIND_STRING, .optional = true, .offset = offsetof(JobSpec, md_resync),
                .daemon_resolved = true,
                .choices = md_resync_choices, .item = "resync mode", .text = text_md_resync,
                .default_text = "wait",
                .doc = "how md layouts bring a new array's members in step, recorded on every run",
        },
        [SPEC_KEY_PARTITIONS] = {
                "partitions", SPEC_KIND_STRING, .optional = true, .parse = parse_partitions,
                .text = text_partitions, .default_text = "0 (none)", .daemon_resolved = true,
                .doc = "filesystem matrices: split each device into this many equal GPT partitions (1 to 16; "
                       "each at least 16M) and run every entry on partition 1, 2, ... in turn, so the position "
                       "of the partition is a column of compare --job",
        },
        [SPEC_KEY_PARTITION] = {
                "partition", SPEC_KIND_STRING, .optional = true, .parse = parse_partition,
                .text = text_partition, .default_text = "0 (all)", .daemon_resolved = true,
                .doc = "with partitions: only this partition of each device (the matrix sets it on each step)",
        },
        [SPEC_KEY_RECORD_SIZES] = {
                "record_sizes", SPEC_KIND_STRV, .optional = true, .offset = offsetof(JobSpec, record_sizes),
                .daemon_resolved = true, .max = 64, .check_item = check_record_size, .item = "record size",
                .default_text = "all",
                .doc = "with a profile: run only its steps whose block_size is one of these sizes (iozone -a's "
                       "-y/-q or -r: record_sizes=4K,64K; comma-separated in text); a size no step has is refused",
        },
};

const SpecKeyInfo *spec_key_info(SpecKey k) {
        return k >= 0 && k < _SPEC_KEY_MAX ? &spec_key_table[k] : NULL;
}

/* A string key's value as its text form writes it (a choice by its name); NULL when unset. */
const char *spec_string_of(const JobSpec *s, SpecKey k, char buf[static SPEC_TEXT_MAX]) {
        const SpecKeyInfo *ki = &spec_key_table[k];

        if (ki->kind != SPEC_KIND_STRING)
                return NULL;
        if (ki->text)
                return ki->text(s, buf);
        if (ki->choices)
                return choice_name(ki->choices, *(const int *) ((const uint8_t *) s + ki->offset));
        return *(char *const *) ((const uint8_t *) s + ki->offset);
}
