/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Tests of the job spec (spec.c) and of its checks against the system (spec-check.c): defaults,
 * tables of accepted and rejected input (each rejection must be -EINVAL and name the key), text
 * and JSON round trips, parse_size(), and spec_check_target() on real temporary files.
 */

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <ftw.h>
#include <sys/sysmacros.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "shared/spec-check.h"
#include "check-util.h"
#include "shared/spec.h"
#include "shared/util.h"

static void spec_clearp(JobSpec *s) {
        spec_clear(s);
}
#define _cleanup_spec_ _cleanup_(spec_clearp)

/* Applies assignments in order; fails the test on the first rejection. */
static void spec_build(JobSpec *s, const char *const *assignments) {
        spec_init(s);
        for (const char *const *a = assignments; *a; a++) {
                _cleanup_free_ char *err = NULL;
                int r = spec_set_assignment(s, *a, &err);
                ck_assert_msg(r == 0, "'%s' rejected: %s", *a, strna(err));
        }
}

/* ---- parse_size ---- */

static const struct {
        const char *in;
        int ret;
        uint64_t value;
} size_cases[] = {
        { "0", 0, 0 },
        { "4096", 0, 4096 },
        { "32K", 0, 32768 },
        { "32k", 0, 32768 },
        { "32KiB", 0, 32768 },
        { "32kib", 0, 32768 },
        { "32KB", 0, 32768 },
        { "1M", 0, UINT64_C(1) << 20 },
        { "2G", 0, UINT64_C(2) << 30 },
        { "1T", 0, UINT64_C(1) << 40 },
        { "512B", 0, 512 },
        { "15E", 0, UINT64_C(15) << 60 },
        { "18446744073709551615", 0, UINT64_MAX },
        { "18446744073709551616", -ERANGE, 0 },
        { "16E", -ERANGE, 0 },
        { "99999999999999999999K", -ERANGE, 0 },
        { "17179869184G", -ERANGE, 0 },
        { "", -EINVAL, 0 },
        { "-1", -EINVAL, 0 },
        { "-4K", -EINVAL, 0 },
        { "+4K", -EINVAL, 0 },
        { " 4K", -EINVAL, 0 },
        { "4K ", -EINVAL, 0 },
        { "abc", -EINVAL, 0 },
        { "K", -EINVAL, 0 },
        { "1.5M", -EINVAL, 0 },
        { "4X", -EINVAL, 0 },
        { "4KK", -EINVAL, 0 },
        { "4Kx", -EINVAL, 0 },
        { "4iB", -EINVAL, 0 },
        { "0x10", -EINVAL, 0 },
};

START_TEST(test_parse_size) {
        uint64_t v = 12345;
        int r = parse_size(size_cases[_i].in, &v);

        ck_assert_msg(r == size_cases[_i].ret, "parse_size('%s') = %d, expected %d",
                      size_cases[_i].in, r, size_cases[_i].ret);
        if (r == 0)
                ck_assert_uint_eq(v, size_cases[_i].value);
        else
                ck_assert_uint_eq(v, 12345); /* untouched on failure */
}
END_TEST

/* ---- names ---- */

START_TEST(test_names) {
        for (int w = 0; w < _WORKLOAD_MAX; w++)
                ck_assert_int_eq(workload_from_string(workload_to_string(w)), w);
        ck_assert_int_eq(workload_from_string("Read"), _WORKLOAD_INVALID);
        ck_assert_int_eq(workload_from_string(""), _WORKLOAD_INVALID);
        ck_assert_ptr_null(workload_to_string(_WORKLOAD_MAX));
        for (int k = 0; k < _SPEC_KEY_MAX; k++)
                ck_assert_int_eq(spec_key_from_string(spec_key_to_string(k)), k);
        ck_assert_str_eq(spec_key_to_string(SPEC_KEY_BLOCK_SIZE), "block_size");
        ck_assert_str_eq(spec_key_to_string(SPEC_KEY_DESTRUCTIVE), "destructive");
        ck_assert_int_eq(spec_key_from_string("blocksize"), _SPEC_KEY_INVALID);

        ck_assert(workload_writes(WORKLOAD_WRITE));
        ck_assert(workload_writes(WORKLOAD_SEEKS));
        ck_assert(workload_writes(WORKLOAD_METADATA));
        ck_assert(!workload_writes(WORKLOAD_READ));
        ck_assert(!workload_writes(WORKLOAD_PING));
        ck_assert(workload_reads(WORKLOAD_RANDRW));
        ck_assert(!workload_reads(WORKLOAD_WRITE));
        ck_assert(!workload_reads(WORKLOAD_REWRITE));
        ck_assert(workload_needs_layout(WORKLOAD_REWRITE));
        ck_assert(!workload_needs_layout(WORKLOAD_WRITE));
        ck_assert(!workload_needs_layout(WORKLOAD_METADATA));
        ck_assert(workload_on_directory(WORKLOAD_METADATA));
        ck_assert(!workload_on_directory(_WORKLOAD_INVALID));

        static const char *const layouts[_LAYOUT_MAX] = {
                "single", "raid0", "raid1", "raid10", "md-raid0", "md-raid1", "lvm", "md-raid5", "md-raid10",
                "md-raid1+lvm",
        };
        for (Layout l = 0; l < _LAYOUT_MAX; l++) {
                ck_assert_str_eq(layout_to_string(l), layouts[l]);
                ck_assert_int_eq(layout_from_string(layouts[l]), l);
        }
        ck_assert_int_eq(layout_from_string("RAID1"), _LAYOUT_INVALID);
        ck_assert_int_eq(layout_from_string("raid5"), _LAYOUT_INVALID);
        ck_assert_int_eq(layout_from_string(NULL), _LAYOUT_INVALID);
        ck_assert_ptr_null(layout_to_string(_LAYOUT_INVALID));
        ck_assert_uint_eq(layout_devices_min(LAYOUT_SINGLE), 1);
        ck_assert_uint_eq(layout_devices_min(LAYOUT_RAID1), 2);
        ck_assert_uint_eq(layout_devices_min(LAYOUT_RAID10), 2);
        ck_assert_uint_eq(layout_devices_min(LAYOUT_LVM), 1);
        ck_assert_uint_eq(layout_devices_min(LAYOUT_MD_RAID5), 3);
        ck_assert_uint_eq(layout_devices_min(LAYOUT_MD_RAID10), 2);
        ck_assert_uint_eq(layout_devices_min(LAYOUT_MD_RAID1_LVM), 2);
        ck_assert_int_eq(layout_md_level(LAYOUT_MD_RAID1_LVM), 1);
        ck_assert_int_eq(layout_md_level(LAYOUT_MD_RAID5), 5);
        ck_assert_int_eq(layout_md_level(LAYOUT_LVM), -1);
        ck_assert(layout_is_lvm(LAYOUT_MD_RAID1_LVM) && layout_is_md(LAYOUT_MD_RAID1_LVM));
        ck_assert(!layout_is_md(LAYOUT_LVM) && !layout_is_lvm(LAYOUT_RAID1));
        ck_assert_str_eq(spec_kind_to_string(spec_key_info(SPEC_KEY_FILESYSTEMS)->kind), "strings");
        ck_assert_str_eq(spec_kind_to_string(spec_key_info(SPEC_KEY_MKFS_OPTIONS)->kind), "map");
        ck_assert(strstr(spec_kind_bus_types(SPEC_KIND_MAP), "a{ss}"));
        /* position only reads, and is the last workload (appended, so the numbers of the others
         * stay). */
        ck_assert_str_eq(workload_to_string(WORKLOAD_POSITION), "position");
        ck_assert_int_eq(workload_from_string("position"), WORKLOAD_POSITION);
        ck_assert_int_eq(WORKLOAD_POSITION, 12);
        ck_assert(!workload_writes(WORKLOAD_POSITION));
        ck_assert(workload_reads(WORKLOAD_POSITION));
        /* bonnie++'s per-character tests, appended after position: putc writes a file of its own
         * (no layout), getc reads a laid-out one; both on directories only. */
        ck_assert_int_eq(workload_from_string("putc"), WORKLOAD_PUTC);
        ck_assert_int_eq(workload_from_string("getc"), WORKLOAD_GETC);
        ck_assert_int_eq(WORKLOAD_PUTC, WORKLOAD_POSITION + 1);
        ck_assert_int_eq(WORKLOAD_READ_MODIFY_WRITE, WORKLOAD_GETC + 1);
        ck_assert_int_eq(WORKLOAD_READ_MODIFY_WRITE, _WORKLOAD_MAX - 1);
        ck_assert_int_eq(workload_from_string("read-modify-write"), WORKLOAD_READ_MODIFY_WRITE);
        ck_assert(workload_reads(WORKLOAD_READ_MODIFY_WRITE) && workload_writes(WORKLOAD_READ_MODIFY_WRITE));
        ck_assert(workload_needs_layout(WORKLOAD_READ_MODIFY_WRITE));
        ck_assert(workload_writes(WORKLOAD_PUTC) && !workload_reads(WORKLOAD_PUTC));
        ck_assert(!workload_needs_layout(WORKLOAD_PUTC));
        ck_assert(workload_reads(WORKLOAD_GETC) && !workload_writes(WORKLOAD_GETC));
        ck_assert(workload_needs_layout(WORKLOAD_GETC));
        ck_assert(workload_per_char(WORKLOAD_PUTC) && workload_per_char(WORKLOAD_GETC));
        ck_assert(!workload_per_char(WORKLOAD_WRITE) && !workload_per_char(_WORKLOAD_INVALID));
        ck_assert(workload_on_directory(WORKLOAD_PUTC) && workload_on_directory(WORKLOAD_GETC));
        ck_assert_str_eq(spec_key_to_string(SPEC_KEY_POSITIONS), "positions");
        /* The stability keys came after it. */
        ck_assert_str_eq(spec_key_to_string(SPEC_KEY_STEADY_STATE_WINDOW_MS), "steady_state_window_ms");
        /* Then the allocation and cache keys of the anchor profiles. */
        ck_assert_str_eq(spec_key_to_string(SPEC_KEY_FALLOCATE), "fallocate");
        ck_assert_str_eq(spec_key_to_string(SPEC_KEY_INVALIDATE), "invalidate");
        /* Then fio's engine and buffer keys (KDiskMark's libaio and refill_buffers). */
        ck_assert_str_eq(spec_key_to_string(SPEC_KEY_IOENGINE), "ioengine");
        ck_assert_str_eq(spec_key_to_string(SPEC_KEY_REFILL_BUFFERS), "refill_buffers");
        /* Then a fleet run's keys (docs/fleet.md "Fleet runs"). */
        ck_assert_str_eq(spec_key_to_string(SPEC_KEY_FLEET_UUID), "fleet_uuid");
        ck_assert_str_eq(spec_key_to_string(SPEC_KEY_FLEET_HOST), "fleet_host");
        ck_assert_str_eq(spec_key_to_string(SPEC_KEY_FLEET_CLOCK_TOLERANCE_MS), "fleet_clock_tolerance_ms");
        /* Then the md and LVM layouts' keys. */
        ck_assert_str_eq(spec_key_to_string(SPEC_KEY_MD_OPTIONS), "md_options");
        ck_assert_str_eq(spec_key_to_string(SPEC_KEY_MD_RESYNC), "md_resync");
        /* Then partitions as a matrix dimension. */
        ck_assert_str_eq(spec_key_to_string(SPEC_KEY_PARTITIONS), "partitions");
        ck_assert_str_eq(spec_key_to_string(SPEC_KEY_PARTITION), "partition");
        /* Then a profile's record sizes. */
        ck_assert_str_eq(spec_key_to_string(SPEC_KEY_RECORD_SIZES), "record_sizes");
        ck_assert_int_eq(SPEC_KEY_RECORD_SIZES, _SPEC_KEY_MAX - 1);
        ck_assert_str_eq(ioengine_kind_to_string(IOENGINE_AUTO), "auto");
        ck_assert_str_eq(ioengine_kind_to_string(IOENGINE_LIBAIO), "libaio");
        ck_assert_ptr_null(ioengine_kind_to_string(_IOENGINE_KIND_MAX));
        /* The block workloads queue through an engine; the others make one call after another. */
        ck_assert(workload_queues_io(WORKLOAD_READ) && workload_queues_io(WORKLOAD_RANDRW));
        ck_assert(workload_queues_io(WORKLOAD_REWRITE) && workload_queues_io(WORKLOAD_POSITION));
        ck_assert(!workload_queues_io(WORKLOAD_PING) && !workload_queues_io(WORKLOAD_SEEKS));
        ck_assert(!workload_queues_io(WORKLOAD_READ_MODIFY_WRITE) && !workload_queues_io(WORKLOAD_PUTC));
        ck_assert(!workload_queues_io(WORKLOAD_METADATA) && !workload_queues_io(_WORKLOAD_INVALID));
}
END_TEST

/* ---- defaults ---- */

static const struct {
        const char *workload;
        uint64_t block_size;
        SyncMode sync;
} default_cases[] = {
        { "read", 1 << 20, SYNC_NONE },
        { "write", 1 << 20, SYNC_END },
        { "rewrite", 1 << 20, SYNC_END },
        { "reread", 1 << 20, SYNC_NONE },
        { "backward-read", 1 << 20, SYNC_NONE },
        { "stride-read", 1 << 20, SYNC_NONE },
        { "randread", 4096, SYNC_NONE },
        { "randwrite", 4096, SYNC_END },
        { "randrw", 4096, SYNC_END },
        { "seeks", 4096, SYNC_END },
        { "ping", 4096, SYNC_NONE },
        { "metadata", 4096, SYNC_END },
        { "read-modify-write", 1 << 20, SYNC_END },
};

START_TEST(test_defaults) {
        _cleanup_spec_ JobSpec s;
        _cleanup_free_ char *err = NULL, *w = NULL;
        const char *a[] = { "target=/srv", NULL, NULL };

        ck_assert_int_ge(asprintf(&w, "workload=%s", default_cases[_i].workload), 0);
        a[1] = w;
        spec_build(&s, a);
        ck_assert_msg(spec_finalize(&s, &err) == 0, "%s", strna(err));

        ck_assert(s.finalized);
        ck_assert_uint_eq(s.block_size, default_cases[_i].block_size);
        ck_assert_int_eq(s.sync, default_cases[_i].sync);
        ck_assert_int_eq(s.sync_call, SYNC_CALL_FSYNC);
        ck_assert_uint_eq(s.size, UINT64_C(1) << 30);
        ck_assert_uint_eq(s.runtime_ms, 0);
        ck_assert_uint_eq(s.ramp_ms, 0);
        ck_assert_uint_eq(s.queue_depth, 1);
        ck_assert_uint_eq(s.jobs, 1);
        ck_assert(s.direct);
        ck_assert_uint_eq(s.rwmix_read, 50);
        ck_assert_int_eq(s.pattern, PATTERN_RANDOM);
        ck_assert_uint_eq(s.stride, 4 * default_cases[_i].block_size);
        ck_assert_uint_eq(s.file_count, 16384);
        ck_assert_uint_eq(s.file_size_min, 0);
        ck_assert_uint_eq(s.file_size_max, 0);
        ck_assert_uint_eq(s.dirs, 1);
        ck_assert_uint_eq(s.sample_ms, 1000);
        ck_assert(!s.destructive);
        ck_assert_ptr_null(s.label);
        ck_assert_ptr_null(s.tags);
        ck_assert_ptr_null(s.profile);
        ck_assert_ptr_null(s.filesystems);
        ck_assert_ptr_null(s.devices);
        ck_assert_uint_eq(s.mkfs_options.n, 0);
        ck_assert_uint_eq(s.mount_options.n, 0);
        ck_assert_int_eq(s.layout, _LAYOUT_INVALID); /* no matrix, no layout */
        /* Defaults are not "given explicitly". */
        ck_assert_uint_eq(s.set_mask, (UINT64_C(1) << SPEC_KEY_TARGET) | (UINT64_C(1) << SPEC_KEY_WORKLOAD));
}
END_TEST

/* putc and getc: block_size 1 (a character per call), buffered, 1G, putc with sync=end; their text
 * form reads back (the stride default stays within its key's bounds). */
START_TEST(test_per_char_defaults) {
        static const struct {
                const char *workload;
                SyncMode sync;
        } cases[] = {
                { "workload=putc", SYNC_END },
                { "workload=getc", SYNC_NONE },
        };

        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                _cleanup_spec_ JobSpec s, back;
                _cleanup_free_ char *err = NULL, *text = NULL;
                const char *a[] = { "target=/srv", cases[i].workload, NULL };

                spec_build(&s, a);
                ck_assert_msg(spec_finalize(&s, &err) == 0, "%s", strna(err));
                ck_assert_uint_eq(s.block_size, 1);
                ck_assert(!s.direct);
                ck_assert_uint_eq(s.size, UINT64_C(1) << 30);
                ck_assert_uint_eq(s.queue_depth, 1);
                ck_assert_int_eq(s.sync, cases[i].sync);
                ck_assert_uint_eq(s.stride, 512);
                ck_assert_uint_eq(spec_needed_bytes(&s), UINT64_C(1) << 30);

                ck_assert_int_eq(spec_to_text(&s, &text), 0);
                ck_assert_ptr_nonnull(strstr(text, "\nblock_size=1\n"));
                ck_assert_ptr_nonnull(strstr(text, "\ndirect=false\n"));
                spec_init(&back);
                for (char *line = text, *nl; (nl = strchr(line, '\n')); line = nl + 1) {
                        *nl = 0;
                        ck_assert_msg(spec_set_assignment(&back, line, &err) == 0, "%s: %s", line, strna(err));
                }
                ck_assert_msg(spec_finalize(&back, &err) == 0, "%s", strna(err));
                ck_assert(spec_equal(&s, &back));

                /* Explicitly what they are is fine. */
                spec_clear(&back);
                const char *b[] = { "target=/srv", cases[i].workload, "block_size=1", "direct=false", "queue_depth=1",
                                    "jobs=2", "size=10000", NULL };
                spec_build(&back, b);
                ck_assert_msg(spec_finalize(&back, &err) == 0, "%s", strna(err));
                ck_assert_uint_eq(back.size, 10000);
        }
}
END_TEST

/* position: 1M blocks, O_DIRECT, depth 1, 20 positions of 64M; queue_depth and the rest as given. */
START_TEST(test_position_defaults) {
        _cleanup_spec_ JobSpec s, q;
        _cleanup_free_ char *err = NULL;
        const char *a[] = { "target=/dev/sdz", "workload=position", NULL };
        const char *b[] = { "target=/dev/sdz", "workload=position", "queue_depth=8", "positions=1000", "size=4M",
                            NULL };

        spec_build(&s, a);
        ck_assert_msg(spec_finalize(&s, &err) == 0, "%s", strna(err));
        ck_assert_uint_eq(s.block_size, 1 << 20);
        ck_assert_uint_eq(s.size, 64 << 20);
        ck_assert(s.direct);
        ck_assert_uint_eq(s.queue_depth, 1);
        ck_assert_uint_eq(s.jobs, 1);
        ck_assert_uint_eq(s.positions, 20);
        ck_assert_int_eq(s.sync, SYNC_NONE);
        ck_assert_uint_eq(spec_needed_bytes(&s), UINT64_C(20) * (64 << 20));

        spec_build(&q, b);
        ck_assert_msg(spec_finalize(&q, &err) == 0, "%s", strna(err));
        ck_assert_uint_eq(q.queue_depth, 8);
        ck_assert_uint_eq(q.positions, 1000);
        ck_assert_uint_eq(q.size, 4 << 20);
}
END_TEST

START_TEST(test_profile_no_workload_defaults) {
        _cleanup_spec_ JobSpec s;
        _cleanup_free_ char *err = NULL, *text = NULL;
        const char *a[] = { "target=/srv", "profile=dd", "jobs=2", NULL };

        spec_build(&s, a);
        ck_assert_msg(spec_finalize(&s, &err) == 0, "%s", strna(err));
        ck_assert_str_eq(s.profile, "dd");
        ck_assert_int_eq(s.workload, _WORKLOAD_INVALID);
        ck_assert_uint_eq(s.block_size, 0);
        ck_assert_uint_eq(s.jobs, 2);
        ck_assert_int_eq(spec_to_text(&s, &text), 0);
        ck_assert_str_eq(text, "target=/srv\nprofile=dd\njobs=2\n");
}
END_TEST

/* ---- accepted assignments ---- */

static const struct {
        const char *assignment;
        SpecKey key;
        uint64_t value; /* the field, or for sync/pattern mode*100+call/pct */
} good_cases[] = {
        { "block_size=32K", SPEC_KEY_BLOCK_SIZE, 32768 },
        { "block_size=32768", SPEC_KEY_BLOCK_SIZE, 32768 },
        { "block_size=64MiB", SPEC_KEY_BLOCK_SIZE, UINT64_C(64) << 20 },
        { "size=16T", SPEC_KEY_SIZE, UINT64_C(16) << 40 },
        { "size=1g", SPEC_KEY_SIZE, UINT64_C(1) << 30 },
        { "runtime_ms=60000", SPEC_KEY_RUNTIME_MS, 60000 },
        { "runtime_ms=0", SPEC_KEY_RUNTIME_MS, 0 },
        { "queue_depth=1024", SPEC_KEY_QUEUE_DEPTH, 1024 },
        { "jobs=64", SPEC_KEY_JOBS, 64 },
        { "direct=false", SPEC_KEY_DIRECT, 0 },
        { "direct=no", SPEC_KEY_DIRECT, 0 },
        { "direct=0", SPEC_KEY_DIRECT, 0 },
        { "direct=YES", SPEC_KEY_DIRECT, 1 },
        { "destructive=true", SPEC_KEY_DESTRUCTIVE, 1 },
        { "destructive=1", SPEC_KEY_DESTRUCTIVE, 1 },
        { "rwmix_read=0", SPEC_KEY_RWMIX_READ, 0 },
        { "rwmix_read=100", SPEC_KEY_RWMIX_READ, 100 },
        { "sync=none", SPEC_KEY_SYNC, SYNC_NONE * 100 + SYNC_CALL_FSYNC },
        { "sync=end", SPEC_KEY_SYNC, SYNC_END * 100 + SYNC_CALL_FSYNC },
        { "sync=each", SPEC_KEY_SYNC, SYNC_EACH * 100 + SYNC_CALL_FSYNC },
        { "sync=end:fdatasync", SPEC_KEY_SYNC, SYNC_END * 100 + SYNC_CALL_FDATASYNC },
        { "sync=each:fsync", SPEC_KEY_SYNC, SYNC_EACH * 100 + SYNC_CALL_FSYNC },
        { "sync=fdatasync", SPEC_KEY_SYNC, SYNC_END * 100 + SYNC_CALL_FDATASYNC },
        { "sync=fsync", SPEC_KEY_SYNC, SYNC_END * 100 + SYNC_CALL_FSYNC },
        { "pattern=zero", SPEC_KEY_PATTERN, PATTERN_ZERO * 1000 },
        { "pattern=dev-zero", SPEC_KEY_PATTERN, PATTERN_DEV_ZERO * 1000 },
        { "pattern=random", SPEC_KEY_PATTERN, PATTERN_RANDOM * 1000 },
        { "pattern=compressible:0", SPEC_KEY_PATTERN, PATTERN_COMPRESSIBLE * 1000 + 0 },
        { "pattern=compressible:50", SPEC_KEY_PATTERN, PATTERN_COMPRESSIBLE * 1000 + 50 },
        { "pattern=compressible:100", SPEC_KEY_PATTERN, PATTERN_COMPRESSIBLE * 1000 + 100 },
        { "stride=512", SPEC_KEY_STRIDE, 512 },
        { "file_count=1", SPEC_KEY_FILE_COUNT, 1 },
        { "file_size_max=64K", SPEC_KEY_FILE_SIZE_MAX, 65536 },
        { "file_size_min=0", SPEC_KEY_FILE_SIZE_MIN, 0 },
        { "dirs=65536", SPEC_KEY_DIRS, 65536 },
        { "sample_ms=100", SPEC_KEY_SAMPLE_MS, 100 },
        { "sample_ms=60000", SPEC_KEY_SAMPLE_MS, 60000 },
        { "positions=2", SPEC_KEY_POSITIONS, 2 },
        { "positions=1000", SPEC_KEY_POSITIONS, 1000 },
        { "repeat=1", SPEC_KEY_REPEAT, 1 },
        { "repeat=100", SPEC_KEY_REPEAT, 100 },
        { "max_repeats=3", SPEC_KEY_MAX_REPEATS, 3 },
        { "until_stddev=0", SPEC_KEY_UNTIL_STDDEV, 0 },
        { "until_stddev=5", SPEC_KEY_UNTIL_STDDEV, 5000 },
        { "until_stddev=2.5", SPEC_KEY_UNTIL_STDDEV, 2500 },
        { "until_stddev=2.5%", SPEC_KEY_UNTIL_STDDEV, 2500 },
        { "until_stddev=0.001", SPEC_KEY_UNTIL_STDDEV, 1 },
        { "until_stddev=100.000", SPEC_KEY_UNTIL_STDDEV, 100000 },
        { "steady_state=iops:5", SPEC_KEY_STEADY_STATE, STEADY_STATE_IOPS * 1000000 + 5000 },
        { "steady_state=bw:0.5%", SPEC_KEY_STEADY_STATE, STEADY_STATE_BW * 1000000 + 500 },
        { "steady_state=iops_slope:0.1", SPEC_KEY_STEADY_STATE, STEADY_STATE_IOPS_SLOPE * 1000000 + 100 },
        { "steady_state=bw_slope:100", SPEC_KEY_STEADY_STATE, STEADY_STATE_BW_SLOPE * 1000000 + 100000 },
        { "steady_state_window_ms=200", SPEC_KEY_STEADY_STATE_WINDOW_MS, 200 },
        { "fallocate=none", SPEC_KEY_FALLOCATE, FALLOCATE_NONE },
        { "fallocate=native", SPEC_KEY_FALLOCATE, FALLOCATE_NATIVE },
        { "invalidate=false", SPEC_KEY_INVALIDATE, 0 },
        { "invalidate=true", SPEC_KEY_INVALIDATE, 1 },
        { "ioengine=auto", SPEC_KEY_IOENGINE, IOENGINE_AUTO },
        { "ioengine=sync", SPEC_KEY_IOENGINE, IOENGINE_SYNC },
        { "ioengine=io_uring", SPEC_KEY_IOENGINE, IOENGINE_IO_URING },
        { "ioengine=libaio", SPEC_KEY_IOENGINE, IOENGINE_LIBAIO },
        { "refill_buffers=true", SPEC_KEY_REFILL_BUFFERS, 1 },
        { "refill_buffers=false", SPEC_KEY_REFILL_BUFFERS, 0 },
};

static uint64_t field_of(const JobSpec *s, SpecKey k) {
        switch (k) {
        case SPEC_KEY_BLOCK_SIZE:    return s->block_size;
        case SPEC_KEY_SIZE:          return s->size;
        case SPEC_KEY_RUNTIME_MS:    return s->runtime_ms;
        case SPEC_KEY_RAMP_MS:       return s->ramp_ms;
        case SPEC_KEY_QUEUE_DEPTH:   return s->queue_depth;
        case SPEC_KEY_JOBS:          return s->jobs;
        case SPEC_KEY_DIRECT:        return s->direct;
        case SPEC_KEY_DESTRUCTIVE:   return s->destructive;
        case SPEC_KEY_RWMIX_READ:    return s->rwmix_read;
        case SPEC_KEY_SYNC:          return s->sync * 100 + s->sync_call;
        case SPEC_KEY_PATTERN:       return s->pattern * 1000 + s->compress_pct;
        case SPEC_KEY_STRIDE:        return s->stride;
        case SPEC_KEY_FILE_COUNT:    return s->file_count;
        case SPEC_KEY_FILE_SIZE_MIN: return s->file_size_min;
        case SPEC_KEY_FILE_SIZE_MAX: return s->file_size_max;
        case SPEC_KEY_DIRS:          return s->dirs;
        case SPEC_KEY_SAMPLE_MS:     return s->sample_ms;
        case SPEC_KEY_POSITIONS:     return s->positions;
        case SPEC_KEY_REPEAT:        return s->repeat;
        case SPEC_KEY_MAX_REPEATS:   return s->max_repeats;
        case SPEC_KEY_UNTIL_STDDEV:  return s->until_stddev_milli;
        case SPEC_KEY_STEADY_STATE:  return (uint64_t) s->steady_state * 1000000 + s->steady_state_milli;
        case SPEC_KEY_STEADY_STATE_WINDOW_MS: return s->steady_state_window_ms;
        case SPEC_KEY_FALLOCATE:     return s->fallocate;
        case SPEC_KEY_INVALIDATE:    return s->invalidate;
        case SPEC_KEY_IOENGINE:      return s->ioengine;
        case SPEC_KEY_REFILL_BUFFERS: return s->refill_buffers;
        default:                     ck_abort_msg("no field for key %d", k);
        }
        return 0;
}

START_TEST(test_good_assignment) {
        _cleanup_spec_ JobSpec s;
        _cleanup_free_ char *err = NULL;
        int r;

        spec_init(&s);
        s.direct = !good_cases[_i].value; /* make the boolean cases observable */
        r = spec_set_assignment(&s, good_cases[_i].assignment, &err);
        ck_assert_msg(r == 0, "'%s' rejected: %s", good_cases[_i].assignment, strna(err));
        ck_assert_uint_eq(field_of(&s, good_cases[_i].key), good_cases[_i].value);
        ck_assert(s.set_mask & (UINT64_C(1) << good_cases[_i].key));
}
END_TEST

/* ---- rejected values, typed (as from D-Bus) ---- */

static char *const tags_ok[] = { (char *) "ssd", (char *) "run-1", NULL };
static char *const tags_bad_char[] = { (char *) "has space", NULL };
static char *const tags_empty_item[] = { (char *) "", NULL };
static char *const tags_dup[] = { (char *) "a", (char *) "a", NULL };
static char *const tags_long[] = {
        (char *) "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", NULL };
static char *const tags_many[] = {
        (char *) "t0", (char *) "t1", (char *) "t2", (char *) "t3", (char *) "t4", (char *) "t5",
        (char *) "t6", (char *) "t7", (char *) "t8", (char *) "t9", (char *) "t10", (char *) "t11",
        (char *) "t12", (char *) "t13", (char *) "t14", (char *) "t15", (char *) "t16", (char *) "t17",
        (char *) "t18", (char *) "t19", (char *) "t20", (char *) "t21", (char *) "t22", (char *) "t23",
        (char *) "t24", (char *) "t25", (char *) "t26", (char *) "t27", (char *) "t28", (char *) "t29",
        (char *) "t30", (char *) "t31", (char *) "t32", NULL };

static char *const fs_dup[] = { (char *) "ext4", (char *) "btrfs", (char *) "ext4", NULL };
static char *const fs_upper[] = { (char *) "EXT4", NULL };
static char *const fs_dash[] = { (char *) "ext-4", NULL };
static char *const fs_long[] = { (char *) "abcdefghijklmnopq", NULL };
static char *const fs_many[] = {
        (char *) "f0", (char *) "f1", (char *) "f2", (char *) "f3", (char *) "f4", (char *) "f5", (char *) "f6",
        (char *) "f7", (char *) "f8", NULL };
static char *const dev_relative[] = { (char *) "/dev/loop1", (char *) "dev/loop2", NULL };
static char *const dev_control[] = { (char *) "/dev/loop\n1", NULL };
/* Found by fuzz-bus-spec: one item with a comma came back as two from the text form. */
static char *const dev_comma[] = { (char *) "/dev,sdb", (char *) "/dev/sdc", NULL };
static char *const dev_dup[] = { (char *) "/dev/loop1", (char *) "/dev/loop1", NULL };
static char *const dev_many[] = {
        (char *) "/dev/0", (char *) "/dev/1", (char *) "/dev/2", (char *) "/dev/3", (char *) "/dev/4",
        (char *) "/dev/5", (char *) "/dev/6", (char *) "/dev/7", (char *) "/dev/8", (char *) "/dev/9",
        (char *) "/dev/10", (char *) "/dev/11", (char *) "/dev/12", (char *) "/dev/13", (char *) "/dev/14",
        (char *) "/dev/15", (char *) "/dev/16", NULL };
static char *const map_k1[] = { (char *) "ext4" };
static char *const map_kbad[] = { (char *) "Ext4" };
static char *const map_vempty[] = { (char *) "" };
static char *const map_vnl[] = { (char *) "-E a\nb" };
static char *const map_v1[] = { (char *) "-E lazy_itable_init=0" };
static char *const map_kdup[] = { (char *) "xfs", (char *) "xfs" };
static char *const map_v2[] = { (char *) "noatime", (char *) "nodiscard" };
static char *const map_k9[] = {
        (char *) "f0", (char *) "f1", (char *) "f2", (char *) "f3", (char *) "f4", (char *) "f5", (char *) "f6",
        (char *) "f7", (char *) "f8" };
static char *const map_v9[] = {
        (char *) "a", (char *) "a", (char *) "a", (char *) "a", (char *) "a", (char *) "a", (char *) "a",
        (char *) "a", (char *) "a" };

#define STR(x) { .type = SPEC_VALUE_STRING, .s = (x) }
#define INT(x) { .type = SPEC_VALUE_INT, .i = (x) }
#define UINT(x) { .type = SPEC_VALUE_UINT, .u = (x) }
#define BOOL(x) { .type = SPEC_VALUE_BOOL, .b = (x) }
#define STRV(x) { .type = SPEC_VALUE_STRV, .strv = (x) }
#define MAP(k, v, count) { .type = SPEC_VALUE_MAP, .map = { (k), (v), (count) } }

static const struct {
        const char *key;
        SpecValue value;
        const char *needle; /* besides the key name, the message must contain this */
} bad_typed[] = {
        { "blocksize", STR("4K"), "block_size" },          /* suggestion */
        { "colour", STR("red"), "known keys" },
        { "direct", STR("true"), "expected a boolean" },
        { "direct", INT(1), "expected a boolean" },
        { "destructive", UINT(0), "expected a boolean" },
        { "target", INT(5), "expected a string" },
        { "target", STR("relative/dir"), "absolute" },
        { "target", STR(""), "absolute" },
        { "target", STR("/tmp/a\nb"), "control" },
        { "workload", STR("sequential"), "randread" },
        { "workload", BOOL(true), "expected a string" },
        { "profile", STR("Bad Name"), "a-z" },
        { "profile", STR("../etc"), "a-z" },
        { "block_size", STR("abc"), "not a size" },
        { "block_size", STR("-4K"), "not a size" },
        { "block_size", INT(-4096), "negative" },
        { "block_size", UINT(0), "out of range" },
        { "block_size", STR("128M"), "64M" },
        { "block_size", BOOL(true), "expected a size" },
        { "size", UINT(0), "out of range" },
        { "positions", UINT(1), "use a value from 2 to 1000" },
        { "positions", STR("1001"), "out of range" },
        { "positions", STR("twenty"), "not a number" },
        { "size", STR("0"), "out of range" },
        { "size", STR("17T"), "16T" },
        { "size", STR("99999999999999999999"), "too large" },
        { "size", INT(-1), "negative" },
        { "size", STRV(tags_ok), "expected a size" },
        { "runtime_ms", STR("10s"), "not a number" },
        { "runtime_ms", UINT(SPEC_RUNTIME_MS_MAX + 1), "out of range" },
        { "runtime_ms", INT(-5), "negative" },
        { "queue_depth", UINT(0), "out of range" },
        { "queue_depth", UINT(1025), "out of range" },
        { "jobs", UINT(65), "out of range" },
        { "jobs", STR("-1"), "not a number" },
        { "jobs", BOOL(false), "expected an integer" },
        { "rwmix_read", UINT(101), "out of range" },
        { "sample_ms", UINT(99), "out of range" },
        { "sample_ms", UINT(60001), "out of range" },
        { "file_count", UINT(0), "out of range" },
        { "file_count", UINT(SPEC_FILE_COUNT_MAX + 1), "out of range" },
        { "dirs", UINT(0), "out of range" },
        { "stride", UINT(0), "out of range" },
        { "sync", STR("sometimes"), "end:fsync" },
        { "sync", STR("end:msync"), "fdatasync" },
        { "sync", STR("none:fsync"), "none" },
        { "sync", INT(1), "expected a string" },
        { "pattern", STR("ones"), "compressible" },
        { "pattern", STR("compressible:101"), "0 to 100" },
        { "pattern", STR("compressible:"), "0 to 100" },
        { "pattern", STR("compressible:-1"), "0 to 100" },
        { "label", STR("bad\tlabel"), "control" },
        { "label", STR("bad\x7f"), "control" },
        { "label", STR("\xff\xfe"), "UTF-8" },
        { "label", INT(3), "expected a string" },
        { "tags", STR("a,b"), "expected an array" },
        { "tags", STRV(tags_bad_char), "not a valid tag" },
        { "tags", STRV(tags_empty_item), "not a valid tag" },
        { "tags", STRV(tags_dup), "twice" },
        { "tags", STRV(tags_long), "not a valid tag" },
        { "tags", STRV(tags_many), "at most 32" },
        { "tags", MAP(map_k1, map_v1, 1), "expected an array" },
        { "filesystems", STR("ext4"), "expected an array" },
        { "filesystems", STRV(fs_dup), "filesystems: 'ext4' is given twice; give each filesystem once" },
        { "filesystems", STRV(fs_upper), "'EXT4' is not a filesystem name; use 1 to 16 characters of a-z" },
        { "filesystems", STRV(fs_dash), "not a filesystem name" },
        { "filesystems", STRV(fs_long), "not a filesystem name" },
        { "filesystems", STRV(fs_many), "filesystems: more than 8 filesystems; use at most 8" },
        { "devices", STRV(dev_relative), "devices: 'dev/loop2' is not an absolute path; give the full path of a "
                                         "block device" },
        { "devices", STRV(dev_control), "control character" },
        { "devices", STRV(dev_comma), "devices: '/dev,sdb' contains a comma, which separates devices; name the "
                                      "device by a path without one" },
        { "devices", STRV(dev_dup), "'/dev/loop1' is given twice; give each device once" },
        { "devices", STRV(dev_many), "at most 16" },
        { "devices", STR("/dev/loop1"), "expected an array" },
        { "layout", STR("raid5"), "layout: 'raid5' is not a layout; use one of single (one device), raid0, raid1, "
          "raid10 (btrfs's own), md-raid0" },
        { "layout", STRV(tags_ok), "expected a string" },
        { "mkfs_options", STRV(tags_ok), "expected a dictionary of strings" },
        { "mkfs_options", STR("-E x"), "expected a dictionary" },
        { "mkfs_options", MAP(map_kbad, map_v1, 1), "mkfs_options: 'Ext4' is not a filesystem name" },
        { "mkfs_options", MAP(map_k1, map_vempty, 1), "mkfs_options.ext4: the value is empty; leave the entry out" },
        { "mkfs_options", MAP(map_k1, map_vnl, 1), "mkfs_options.ext4: '-E a?b' contains control characters" },
        { "mount_options", MAP(map_kdup, map_v2, 2), "mount_options: 'xfs' is given twice" },
        { "mount_options", MAP(map_k9, map_v9, 9), "mount_options: more than 8 entries; give at most 8" },
        { "repeat", UINT(0), "out of range" },
        { "repeat", UINT(101), "out of range" },
        { "max_repeats", UINT(2), "out of range" },
        { "max_repeats", UINT(101), "out of range" },
        { "until_stddev", STR("100.001"), "0 (off) to 100" },
        { "until_stddev", STR("2.5555"), "three decimals" },
        { "until_stddev", STR("-1"), "not a percentage" },
        { "until_stddev", STR("five"), "not a percentage" },
        { "until_stddev", STR("5."), "not a percentage" },
        { "until_stddev", STR(".5"), "not a percentage" },
        { "until_stddev", UINT(5), "expected a string" },
        { "steady_state", STR("iops"), "iops:PCT" },
        { "steady_state", STR("iops:0"), "above 0" },
        { "steady_state", STR("iops:101"), "at most 100" },
        { "steady_state", STR("lat:5"), "bw_slope:PCT" },
        { "steady_state", STR("iops_slop:5"), "not a steady-state criterion" },
        { "steady_state", STR(":5"), "not a steady-state criterion" },
        { "steady_state_window_ms", UINT(199), "out of range" },
        { "steady_state_window_ms", UINT(3600001), "out of range" },
        { "fallocate", STR("posix"), "use one of native (fallocate() the whole file first) or none" },
        { "fallocate", STR(""), "not an allocation mode" },
        { "fallocate", UINT(1), "expected a string" },
        { "invalidate", STR("maybe"), "invalidate" },
        { "ioengine", STR("posixaio"), "ioengine: 'posixaio' is not an I/O engine; use one of auto (pread/pwrite "
          "at queue_depth 1, io_uring above), sync (pread/pwrite, depth 1 only), io_uring or libaio" },
        { "ioengine", STR(""), "not an I/O engine" },
        { "ioengine", UINT(1), "expected a string" },
        { "refill_buffers", STR("always"), "refill_buffers" },
};

/* Every key whose values are a fixed set takes each of its choices, by text and typed, writes it
 * back the same, and refuses anything else with a message that lists the choices as the registry
 * has them, which is also what help and the docs show after the key's own line. */
START_TEST(test_choices) {
        unsigned keys = 0;

        for (SpecKey k = 0; k < _SPEC_KEY_MAX; k++) {
                const SpecKeyInfo *ki = spec_key_info(k);
                _cleanup_free_ char *list = NULL, *doc = NULL, *full = NULL, *want = NULL, *err = NULL;
                _cleanup_spec_ JobSpec bad;

                spec_init(&bad);
                if (!ki->choices) {
                        ck_assert_ptr_null(spec_choices_text(k));
                        continue;
                }
                keys++;
                ck_assert_int_eq(ki->kind, SPEC_KIND_STRING);
                ck_assert_ptr_nonnull(ki->item);
                for (const SpecChoice *c = ki->choices; c->name; c++) {
                        _cleanup_spec_ JobSpec s, t;
                        _cleanup_free_ char *e = NULL, *all = NULL, *line = NULL;
                        SpecValue v = STR(c->name);

                        spec_init(&s);
                        spec_init(&t);
                        ck_assert_ptr_eq(spec_choice_by_name(k, c->name), c);
                        ck_assert_str_eq(spec_choice_name(k, c->value), c->name);
                        ck_assert_msg(spec_set_from_string(&s, ki->name, c->name, &e) == 0, "%s=%s: %s", ki->name,
                                      c->name, e);
                        ck_assert_int_eq(spec_set(&t, ki->name, &v, NULL), 0);
                        ck_assert(spec_equal(&s, &t));
                        /* md_resync writes wait only where it matters (an md layout). */
                        if (k == SPEC_KEY_MD_RESYNC)
                                s.layout = LAYOUT_MD_RAID1;
                        ck_assert_int_eq(spec_to_text(&s, &all), 0);
                        ck_assert_int_ge(asprintf(&line, "%s=%s\n", ki->name, c->name), 0);
                        ck_assert_msg(strstr(all, line), "%s not in:\n%s", line, all);
                }

                list = spec_choices_text(k);
                doc = spec_key_doc(k);
                ck_assert_ptr_nonnull(list);
                for (const SpecChoice *c = ki->choices; c->name; c++)
                        ck_assert_msg(strstr(list, c->name), "%s: %s not in '%s'", ki->name, c->name, list);
                ck_assert_ptr_nonnull(doc);
                ck_assert_int_ge(asprintf(&full, "%s: %s", ki->doc, list), 0);
                ck_assert_str_eq(doc, full);

                ck_assert_int_ge(asprintf(&want, "%s: 'bogus' is not %s %s; use one of %s", ki->name,
                                          strchr("aeiouAEIOU", ki->item[0]) ? "an" : "a", ki->item, list), 0);
                ck_assert_int_eq(spec_set_from_string(&bad, ki->name, "bogus", &err), -EINVAL);
                ck_assert_str_eq(err, want);
        }
        ck_assert_uint_ge(keys, 5);
        /* The list's own form: commas, "or" before the last, a doc shared by neighbours given once. */
        _cleanup_free_ char *fa = spec_choices_text(SPEC_KEY_FALLOCATE), *la = spec_choices_text(SPEC_KEY_LAYOUT);
        ck_assert_str_eq(fa, "native (fallocate() the whole file first) or none (allocated as the writes reach "
                             "them, as dd, bonnie++ and iozone)");
        ck_assert_msg(strncmp(la, "single (one device), raid0, raid1, raid10 (btrfs's own), md-raid0, ", 67) == 0,
                      "%s", la);
        ck_assert_ptr_null(spec_choice_by_name(SPEC_KEY_WORKLOAD, "Read"));
        ck_assert_ptr_null(spec_choice_name(SPEC_KEY_WORKLOAD, _WORKLOAD_MAX));
}
END_TEST

/* What a worker is sent of a step: without the keys the daemon resolves, and for a matrix step
 * without target and destructive; the worker's check refuses a spec that has one of them. */
START_TEST(test_worker_text) {
        _cleanup_spec_ JobSpec s, m, back;
        _cleanup_free_ char *plain = NULL, *text = NULL, *err = NULL;
        unsigned n = 0;

        spec_init(&s);
        spec_init(&m);
        spec_init(&back);
        ck_assert_int_eq(spec_set_assignment(&s, "target=/srv", NULL), 0);
        ck_assert_int_eq(spec_set_assignment(&s, "workload=write", NULL), 0);
        ck_assert_int_eq(spec_set_assignment(&s, "repeat=3", NULL), 0);
        ck_assert_int_eq(spec_finalize(&s, NULL), 0);
        ck_assert_int_eq(spec_daemon_key(&s), SPEC_KEY_REPEAT);
        ck_assert_int_eq(spec_to_worker_text(&s, &plain), 0);
        ck_assert_ptr_null(strstr(plain, "repeat="));
        ck_assert_ptr_nonnull(strstr(plain, "target=/srv\n"));

        ck_assert_int_eq(spec_set_assignment(&m, "filesystems=ext4", NULL), 0);
        ck_assert_int_eq(spec_set_assignment(&m, "devices=/dev/loop1,/dev/loop2", NULL), 0);
        ck_assert_int_eq(spec_set_assignment(&m, "layout=md-raid1", NULL), 0);
        ck_assert_int_eq(spec_set_assignment(&m, "mkfs_options.ext4=-E lazy_itable_init=0", NULL), 0);
        ck_assert_int_eq(spec_set_assignment(&m, "destructive=true", NULL), 0);
        ck_assert_int_eq(spec_set_assignment(&m, "workload=randread", NULL), 0);
        ck_assert_msg(spec_finalize(&m, &err) == 0, "%s", err);
        ck_assert_int_eq(spec_to_worker_text(&m, &text), 0);
        for (SpecKey k = 0; k < _SPEC_KEY_MAX; k++) {
                char key[64];

                snprintf(key, sizeof key, "%s%s", spec_key_to_string(k),
                         spec_key_info(k)->kind == SPEC_KIND_MAP ? "." : "=");
                if (spec_key_info(k)->daemon_resolved || k == SPEC_KEY_TARGET || k == SPEC_KEY_DESTRUCTIVE) {
                        ck_assert_msg(!strstr(text, key), "%s in:\n%s", key, text);
                        n += spec_key_info(k)->daemon_resolved;
                }
        }
        ck_assert_uint_ge(n, 9);
        ck_assert_ptr_nonnull(strstr(text, "workload=randread\n"));
        /* What the worker reads back is a plain step but for its target, which it mounts. */
        for (char *save = NULL, *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
                ck_assert_int_eq(spec_set_assignment(&back, line, NULL), 0);
        ck_assert_int_eq(spec_daemon_key(&back), _SPEC_KEY_INVALID);
        ck_assert_ptr_null(back.target);
        ck_assert_int_eq(spec_set_assignment(&back, "target=/mnt", NULL), 0);
        ck_assert_msg(spec_finalize(&back, &err) == 0, "%s", err);
}
END_TEST

START_TEST(test_bad_typed) {
        _cleanup_spec_ JobSpec s;
        _cleanup_free_ char *err = NULL;
        const char *want_key;
        int r;

        spec_init(&s);
        r = spec_set(&s, bad_typed[_i].key, &bad_typed[_i].value, &err);
        ck_assert_msg(r == -EINVAL, "%s accepted (r=%d)", bad_typed[_i].key, r);
        ck_assert_ptr_nonnull(err);
        /* An unknown key is named as given; a known key starts the message. */
        want_key = bad_typed[_i].key;
        ck_assert_msg(strstr(err, want_key), "message '%s' does not name '%s'", err, want_key);
        ck_assert_msg(strstr(err, bad_typed[_i].needle), "message '%s' lacks '%s'", err, bad_typed[_i].needle);
        ck_assert_uint_eq(s.set_mask, 0);
}
END_TEST

START_TEST(test_label_long) {
        _cleanup_spec_ JobSpec s;
        _cleanup_free_ char *err = NULL;
        char label[SPEC_LABEL_MAX + 2];
        SpecValue v = { .type = SPEC_VALUE_STRING, .s = label };

        spec_init(&s);
        memset(label, 'x', sizeof(label) - 1);
        label[sizeof(label) - 1] = 0;
        ck_assert_int_eq(spec_set(&s, "label", &v, &err), -EINVAL);
        ck_assert(strstr(err, "label"));

        label[SPEC_LABEL_MAX] = 0;
        ck_assert_int_eq(spec_set(&s, "label", &v, NULL), 0);
        ck_assert_uint_eq(strlen(s.label), SPEC_LABEL_MAX);

        /* Printable UTF-8 is fine. */
        v.s = "Ünïcödé läbel ✓";
        ck_assert_int_eq(spec_set(&s, "label", &v, NULL), 0);
        ck_assert_str_eq(s.label, "Ünïcödé läbel ✓");
}
END_TEST

/* ---- caller input in messages ---- */

static bool utf8_valid(const char *s) {
        while (*s) {
                size_t n = utf8_char_len(s);
                if (n == 0)
                        return false;
                s += n;
        }
        return true;
}

static const struct {
        const char *in;
        const char *out;        /* NULL: checked by length below */
} caller_text_cases[] = {
        { "/mnt/scratch", "/mnt/scratch" },
        { "", "" },
        { "/mnt/données ✓", "/mnt/données ✓" },
        { "a\nb\tc\x7f", "a?b?c?" },
        { "bad \xff byte", "bad ? byte" },
        { "cut \xe2\x82", "cut ??" },                  /* a sequence cut short */
        { "overlong \xc0\xaf", "overlong ??" },
        { "surrogate \xed\xa0\x80", "surrogate ???" },
};

START_TEST(test_caller_text) {
        ck_assert_str_eq(CALLER_TEXT(caller_text_cases[_i].in), caller_text_cases[_i].out);
        ck_assert_str_eq(CALLER_TEXT(NULL), "");
}
END_TEST

START_TEST(test_caller_text_long) {
        char ascii[4096], wide[4096], buf[CALLER_TEXT_BUF];
        const char *t;

        /* ASCII: exactly CALLER_TEXT_MAX bytes, then the ellipsis. */
        memset(ascii, 'a', sizeof(ascii) - 1);
        ascii[sizeof(ascii) - 1] = 0;
        t = caller_text(ascii, buf);
        ck_assert_uint_eq(strlen(t), CALLER_TEXT_MAX + strlen("…"));
        ck_assert_str_eq(t + CALLER_TEXT_MAX, "…");
        ascii[CALLER_TEXT_MAX] = 0;
        ck_assert_str_eq(caller_text(ascii, buf), ascii);  /* exactly at the limit: whole */

        /* Three-byte characters: never cut inside one. */
        for (size_t i = 0; i + 3 < sizeof(wide); i += 3)
                memcpy(wide + i, "€", 3);
        wide[(sizeof(wide) - 1) / 3 * 3] = 0;
        t = caller_text(wide, buf);
        ck_assert(utf8_valid(t));
        ck_assert_uint_le(strlen(t), CALLER_TEXT_MAX + strlen("…"));
        ck_assert_uint_eq((strlen(t) - strlen("…")) % 3, 0);
        ck_assert_uint_ge(strlen(t), CALLER_TEXT_MAX - 2 + strlen("…"));
}
END_TEST

/* Every message that quotes a caller's value stays short, whatever its length. */
static const char *const long_value_keys[] = {
        "target", "profile", "workload", "sync", "pattern", "label", "size", "queue_depth", "direct", "tags",
        "filesystems", "devices", "layout", "mkfs_options",
};

START_TEST(test_long_value_message) {
        _cleanup_spec_ JobSpec s;
        _cleanup_free_ char *err = NULL, *value = NULL;
        const char *key = long_value_keys[_i];
        size_t len = SPEC_PATH_MAX - 1;

        value = malloc(len + 1);
        ck_assert_ptr_nonnull(value);
        memset(value, 'q', len);
        value[len] = 0;
        spec_init(&s);
        ck_assert_int_eq(spec_set_from_string(&s, key, value, &err), -EINVAL);
        ck_assert_ptr_nonnull(err);
        ck_assert_msg(strstr(err, key), "'%s' does not name %s", err, key);
        ck_assert_msg(strlen(err) < CALLER_TEXT_MAX + 400, "%zu bytes: %s", strlen(err), err);

        /* The whole assignment, too. */
        free(err);
        err = NULL;
        ck_assert_int_eq(spec_set_assignment(&s, value, &err), -EINVAL);
        ck_assert_msg(strlen(err) < CALLER_TEXT_MAX + 200, "%zu bytes: %s", strlen(err), err);
}
END_TEST

START_TEST(test_typed_good) {
        _cleanup_spec_ JobSpec s;
        SpecValue v;

        spec_init(&s);
        v = (SpecValue) INT(65536);
        ck_assert_int_eq(spec_set(&s, "block_size", &v, NULL), 0);
        ck_assert_uint_eq(s.block_size, 65536);
        v = (SpecValue) UINT(UINT64_C(1) << 30);
        ck_assert_int_eq(spec_set(&s, "size", &v, NULL), 0);
        ck_assert_uint_eq(s.size, UINT64_C(1) << 30);
        v = (SpecValue) STR("8");
        ck_assert_int_eq(spec_set(&s, "queue_depth", &v, NULL), 0);
        ck_assert_uint_eq(s.queue_depth, 8);
        v = (SpecValue) BOOL(false);
        ck_assert_int_eq(spec_set(&s, "direct", &v, NULL), 0);
        ck_assert(!s.direct);
        v = (SpecValue) STRV(tags_ok);
        ck_assert_int_eq(spec_set(&s, "tags", &v, NULL), 0);
        ck_assert_str_eq(s.tags[0], "ssd");
        ck_assert_str_eq(s.tags[1], "run-1");
        ck_assert_ptr_null(s.tags[2]);

        /* A map as D-Bus hands it over replaces the whole map, sorted by key. */
        static char *const keys[] = { (char *) "xfs", (char *) "btrfs" };
        static char *const values[] = { (char *) "noatime", (char *) "compress=zstd" };
        v = (SpecValue) MAP(keys, values, 2);
        ck_assert_int_eq(spec_set(&s, "mount_options", &v, NULL), 0);
        ck_assert_uint_eq(s.mount_options.n, 2);
        ck_assert_str_eq(s.mount_options.keys[0], "btrfs");
        ck_assert_str_eq(spec_map_get(&s.mount_options, "xfs"), "noatime");
        ck_assert_str_eq(spec_map_get(&s.mount_options, "btrfs"), "compress=zstd");
        ck_assert_ptr_null(spec_map_get(&s.mount_options, "ext4"));
        ck_assert_ptr_null(spec_map_get(&s.mkfs_options, "ext4"));
        v = (SpecValue) MAP(map_k1, map_v1, 1);
        ck_assert_int_eq(spec_set(&s, "mount_options", &v, NULL), 0);
        ck_assert_uint_eq(s.mount_options.n, 1);
        ck_assert_str_eq(spec_map_get(&s.mount_options, "ext4"), "-E lazy_itable_init=0");
        ck_assert(s.set_mask & (UINT64_C(1) << SPEC_KEY_MOUNT_OPTIONS));
        /* An empty map is no map. */
        v = (SpecValue) MAP(NULL, NULL, 0);
        ck_assert_int_eq(spec_set(&s, "mount_options", &v, NULL), 0);
        ck_assert_uint_eq(s.mount_options.n, 0);
        ck_assert(!(s.set_mask & (UINT64_C(1) << SPEC_KEY_MOUNT_OPTIONS)));

        v = (SpecValue) STRV(fs_upper + 1); /* empty list */
        ck_assert_int_eq(spec_set(&s, "filesystems", &v, NULL), 0);
        ck_assert_ptr_null(s.filesystems);
        ck_assert(!(s.set_mask & (UINT64_C(1) << SPEC_KEY_FILESYSTEMS)));
        v = (SpecValue) STR("md-raid1");
        ck_assert_int_eq(spec_set(&s, "layout", &v, NULL), 0);
        ck_assert_int_eq(s.layout, LAYOUT_MD_RAID1);
}
END_TEST

/* A map value of at most 1024 bytes (options mke2fs takes: -qqq...). */
START_TEST(test_map_value_long) {
        _cleanup_spec_ JobSpec s;
        _cleanup_free_ char *err = NULL;
        char value[SPEC_MAP_VALUE_MAX + 2];

        spec_init(&s);
        memset(value, 'q', sizeof(value) - 1);
        value[0] = '-';
        value[sizeof(value) - 1] = 0;
        ck_assert_int_eq(spec_set_from_string(&s, "mkfs_options.ext4", value, &err), -EINVAL);
        ck_assert_msg(strstr(err, "mkfs_options.ext4: longer than 1024 bytes"), "%s", err);
        value[SPEC_MAP_VALUE_MAX] = 0;
        ck_assert_int_eq(spec_set_from_string(&s, "mkfs_options.ext4", value, &err), 0);
        ck_assert_uint_eq(strlen(spec_map_get(&s.mkfs_options, "ext4")), SPEC_MAP_VALUE_MAX);
}
END_TEST

/* Map entries in text: "NAME.SUB=value", one at a time, the same sub-key again replacing. */
START_TEST(test_map_assignment) {
        _cleanup_spec_ JobSpec s;
        _cleanup_free_ char *err = NULL;
        char a[64];

        spec_init(&s);
        ck_assert_int_eq(spec_set_assignment(&s, "mkfs_options.ext4=-E lazy_itable_init=0", &err), 0);
        ck_assert_str_eq(spec_map_get(&s.mkfs_options, "ext4"), "-E lazy_itable_init=0");
        ck_assert(s.set_mask & (UINT64_C(1) << SPEC_KEY_MKFS_OPTIONS));
        ck_assert_int_eq(spec_set_assignment(&s, "mkfs_options.ext4=-O ^has_journal,extent", NULL), 0);
        ck_assert_uint_eq(s.mkfs_options.n, 1);
        ck_assert_str_eq(spec_map_get(&s.mkfs_options, "ext4"), "-O ^has_journal,extent");
        ck_assert_int_eq(spec_set_assignment(&s, "mkfs_options.btrfs=-m single", NULL), 0);
        ck_assert_uint_eq(s.mkfs_options.n, 2);
        ck_assert_str_eq(s.mkfs_options.keys[0], "btrfs");
        ck_assert_str_eq(s.mkfs_options.keys[1], "ext4");
        ck_assert_int_eq(spec_set_from_string(&s, "mount_options.xfs", "noatime,logbufs=8", NULL), 0);
        ck_assert_str_eq(spec_map_get(&s.mount_options, "xfs"), "noatime,logbufs=8");
        ck_assert_uint_eq(s.mkfs_options.n, 2);

        static const struct {
                const char *assignment, *needle;
        } bad[] = {
                { "mkfs_options=-E x", "mkfs_options: give one entry per assignment, as mkfs_options.filesystem=VALUE" },
                { "mount_options=noatime", "e.g. mount_options.btrfs=compress=zstd" },
                { "mkfs_options.=-E x", "mkfs_options: '' is not a filesystem name" },
                { "mkfs_options.Ext4=-E x", "not a filesystem name" },
                { "mkfs_options.ext4.x=-E x", "not a filesystem name" },
                { "mkfs_options.ext4=", "mkfs_options.ext4: the value is empty; leave the entry out" },
                { "mount_options.ext4=a\tb", "control characters" },
                { "block_size.x=4K", "block_size.x: block_size takes no sub-key; use block_size=VALUE" },
                { "bogus.x=1", "unknown key 'bogus.x'" },
                { "layout=raid5", "not a layout" },
        };
        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                free(err);
                err = NULL;
                ck_assert_msg(spec_set_assignment(&s, bad[i].assignment, &err) == -EINVAL, "'%s' accepted",
                              bad[i].assignment);
                ck_assert_msg(strstr(err, bad[i].needle), "'%s': '%s' lacks '%s'", bad[i].assignment, err,
                              bad[i].needle);
        }
        /* Nothing of the refused ones stuck. */
        ck_assert_uint_eq(s.mkfs_options.n, 2);
        ck_assert_uint_eq(s.mount_options.n, 1);
        ck_assert_str_eq(spec_map_get(&s.mkfs_options, "ext4"), "-O ^has_journal,extent");

        /* At most 8 entries; replacing one of them is still fine. */
        for (int i = 0; i < 7; i++) {
                snprintf(a, sizeof(a), "mount_options.fs%d=noatime", i);
                ck_assert_int_eq(spec_set_assignment(&s, a, NULL), 0);
        }
        ck_assert_uint_eq(s.mount_options.n, 8);
        free(err);
        err = NULL;
        ck_assert_int_eq(spec_set_assignment(&s, "mount_options.fs7=noatime", &err), -EINVAL);
        ck_assert_msg(strstr(err, "mount_options.fs7: mount_options has 8 entries already"), "%s", err);
        ck_assert_int_eq(spec_set_assignment(&s, "mount_options.fs0=relatime", NULL), 0);
        ck_assert_str_eq(spec_map_get(&s.mount_options, "fs0"), "relatime");

        ck_assert_int_eq(spec_set_assignment(&s, "filesystems=ext4,btrfs", NULL), 0);
        ck_assert_str_eq(s.filesystems[0], "ext4");
        ck_assert_str_eq(s.filesystems[1], "btrfs");
        ck_assert_ptr_null(s.filesystems[2]);
        ck_assert_int_eq(spec_set_assignment(&s, "devices=/dev/loop1,/dev/disk/by-id/x", NULL), 0);
        ck_assert_str_eq(s.devices[1], "/dev/disk/by-id/x");
        ck_assert_int_eq(spec_set_assignment(&s, "layout=raid1", NULL), 0);
        ck_assert_int_eq(s.layout, LAYOUT_RAID1);
}
END_TEST

/* ---- rejected specs at finalize ---- */

static const struct {
        const char *assignments[8];
        const char *key; /* the message must name it; NULL: accepted */
} bad_final[] = {
        { { "workload=write", NULL }, "target" },
        { { "target=/srv", NULL }, "workload" },
        { { "target=/srv", "workload=write", "profile=dd", NULL }, "profile" },
        { { "target=/srv", "workload=write", "block_size=1000", NULL }, "block_size" },
        /* Below 512 only the per-character workloads' 1 (the registry's bound is theirs). */
        { { "target=/srv", "workload=write", "block_size=100", "direct=false", NULL },
          "block_size: 100 is out of range; use a size from 512 to 64M" },
        { { "target=/srv", "workload=read", "block_size=1", NULL }, "block_size: 1 is out of range" },
        { { "target=/srv", "workload=metadata", "block_size=1", NULL }, "block_size: 1 is out of range" },
        /* putc and getc: one character per system call: the block keys are refused, not
         * ignored. */
        { { "target=/srv", "workload=putc", "block_size=4K", NULL },
          "block_size: 4K given, but workload putc moves one character per write() call; leave block_size unset" },
        { { "target=/srv", "workload=getc", "block_size=512", NULL }, "one character per read() call" },
        { { "target=/srv", "workload=putc", "direct=true", NULL },
          "direct: true given, but workload putc moves one character per system call through the page cache" },
        { { "target=/srv", "workload=getc", "direct=true", NULL }, "set direct=false" },
        { { "target=/srv", "workload=getc", "queue_depth=4", NULL },
          "queue_depth: 4 given, but workload getc makes one read() call after another; leave queue_depth at 1" },
        { { "target=/srv", "workload=read-modify-write", "queue_depth=2", NULL },
          "queue_depth: 2 given, but workload read-modify-write reads each block and writes it back before the "
          "next" },
        { { "target=/srv", "workload=putc", "sync=each", NULL },
          "sync: each given, but workload putc would then flush after every character; use sync=end" },
        { { "target=/srv", "workload=write", "block_size=4K", "size=10000", NULL }, "size" },
        { { "target=/srv", "workload=read", "size=512K", NULL }, "size" },
        { { "target=/srv", "workload=write", "ramp_ms=1000", NULL }, "ramp_ms" },
        { { "target=/srv", "workload=write", "ramp_ms=1000", "runtime_ms=1000", NULL }, "ramp_ms" },
        { { "target=/srv", "workload=stride-read", "stride=512K", NULL }, "stride" },
        { { "target=/srv", "workload=stride-read", "block_size=4K", "stride=5000", NULL }, "stride" },
        { { "target=/srv", "workload=metadata", "file_size_min=8K", "file_size_max=4K", NULL }, "file_size_min" },
        { { "target=/srv", "profile=dd", "ramp_ms=5000", "runtime_ms=5000", NULL }, "ramp_ms" },
        { { "target=/dev/sdz", "workload=position", "jobs=2", NULL }, "jobs" },
        { { "target=/dev/sdz", "workload=position", "runtime_ms=10000", NULL }, "runtime_ms" },
        { { "target=/srv", "workload=write", "max_repeats=5", NULL }, "max_repeats: 5 given without until_stddev" },
        { { "target=/srv", "workload=write", "until_stddev=5", "repeat=20", NULL },
          "max_repeats: 10 is fewer than the 20 runs until_stddev makes at least" },
        { { "target=/srv", "workload=write", "until_stddev=5", "repeat=2", "max_repeats=3", "runtime_ms=0", NULL },
          NULL },
        { { "target=/srv", "workload=write", "steady_state=iops:5", NULL }, "steady_state: iops:5 needs a time-based run" },
        { { "target=/srv", "workload=metadata", "steady_state=iops:5", "runtime_ms=60000", NULL },
          "workload metadata" },
        { { "target=/srv", "workload=write", "steady_state_window_ms=5000", NULL },
          "steady_state_window_ms: 5000 given without steady_state" },
        { { "target=/srv", "workload=write", "steady_state=bw:5", "runtime_ms=60000", "sample_ms=1000",
            "steady_state_window_ms=1500", NULL }, "holds fewer than two samples" },
        { { "target=/srv", "workload=write", "steady_state=bw:5", "runtime_ms=20000", "ramp_ms=5000", NULL },
          "steady_state_window_ms: 30000 is longer than the measured phase (runtime_ms 20000 - ramp_ms 5000)" },
        /* ioengine and refill_buffers shape queued block I/O: refused where there is none, each with
         * its good neighbour. */
        { { "target=/srv", "workload=ping", "ioengine=libaio", NULL },
          "ioengine: libaio given, but workload ping makes one system call after another and queues nothing" },
        { { "target=/srv", "workload=seeks", "ioengine=sync", NULL }, "leave ioengine unset (auto)" },
        { { "target=/srv", "workload=ping", "ioengine=auto", NULL }, NULL },
        { { "target=/srv", "workload=randread", "ioengine=sync", "queue_depth=32", NULL },
          "ioengine: sync completes each I/O before it queues the next, so queue_depth 32 cannot be kept" },
        { { "target=/srv", "workload=randread", "ioengine=sync", NULL }, NULL },
        { { "target=/srv", "workload=randread", "ioengine=libaio", "queue_depth=32", NULL }, NULL },
        { { "target=/srv", "workload=read", "refill_buffers=true", NULL },
          "refill_buffers: true given, but workload read writes no queued blocks; set it only on write" },
        { { "target=/srv", "workload=read-modify-write", "refill_buffers=true", NULL }, "writes no queued blocks" },
        { { "target=/srv", "workload=write", "pattern=zero", "refill_buffers=true", NULL },
          "refill_buffers: true given with pattern=zero" },
        { { "target=/srv", "workload=write", "pattern=dev-zero", "refill_buffers=true", NULL }, "pattern=dev-zero" },
        { { "target=/srv", "workload=rewrite", "pattern=compressible:50", "refill_buffers=true", NULL }, NULL },
        { { "target=/srv", "workload=read", "refill_buffers=false", NULL }, NULL },
};

START_TEST(test_bad_finalize) {
        _cleanup_spec_ JobSpec s;
        _cleanup_free_ char *err = NULL;
        int r;

        spec_build(&s, bad_final[_i].assignments);
        r = spec_finalize(&s, &err);
        if (!bad_final[_i].key) {
                /* The good neighbour of a refusal, so the rule is not wider than it says. */
                ck_assert_msg(r == 0, "case %d refused: %s", _i, strna(err));
                return;
        }
        ck_assert_msg(r == -EINVAL, "case %d accepted", _i);
        ck_assert_ptr_nonnull(err);
        ck_assert_msg(strstr(err, bad_final[_i].key), "message '%s' does not name '%s'", err, bad_final[_i].key);
        ck_assert(!s.finalized);
}
END_TEST

/* The rules of filesystem matrices: each refusal names the key, what was wrong and what would do. */
static const struct {
        const char *assignments[10];
        const char *needle;
} bad_matrix[] = {
        { { "target=/srv", "workload=write", "devices=/dev/a", NULL },
          "devices: applies to filesystem matrices; give filesystems=ext4,... too, or use target for one device" },
        { { "target=/srv", "workload=write", "layout=raid1", NULL },
          "layout: applies to filesystem matrices; give filesystems=btrfs,... too, or leave layout out" },
        { { "target=/srv", "workload=write", "mkfs_options.xfs=-K", NULL },
          "mkfs_options: applies to filesystem matrices; give filesystems=xfs,... too, or leave mkfs_options out" },
        { { "target=/srv", "profile=dd", "mount_options.ext4=noatime", NULL }, "mount_options: applies to filesystem" },
        { { "workload=write", "filesystems=ext4", "destructive=true", NULL },
          "devices: a filesystem matrix needs the block devices to make its filesystems on; give devices=" },
        { { "workload=write", "filesystems=ext4", "destructive=true", "devices=/dev/a,/dev/b", "target=/dev/c", NULL },
          "target: /dev/c is not one of devices (/dev/a, /dev/b); leave target out" },
        /* found by fuzz-spec: the device came from target and its comma split it in two on reading back */
        { { "target=/dev/a,b", "workload=write", "filesystems=ext4", "destructive=true", NULL },
          "target: '/dev/a,b' contains a comma, and a filesystem matrix takes its device from target" },
        { { "target=/dev/a", "workload=write", "filesystems=ext4", NULL },
          "filesystems: a filesystem matrix runs mkfs on its devices, which erases them; set destructive=true "
          "(devices must be marked scratch or carry no data)" },
        { { "target=/dev/a", "profile=bonnie", "filesystems=ext4", NULL }, "set destructive=true" },
        { { "target=/dev/a", "workload=write", "filesystems=ext4,btrfs", "destructive=true", "mkfs_options.xfs=-K",
            NULL }, "mkfs_options.xfs: xfs is not in filesystems (ext4, btrfs); add it to filesystems or leave "
                    "mkfs_options.xfs out" },
        { { "target=/dev/a", "workload=write", "filesystems=ext4", "destructive=true", "mount_options.ext4=noatime",
            "mount_options.f2fs=noatime", NULL }, "mount_options.f2fs: f2fs is not in filesystems (ext4)" },
        { { "workload=write", "filesystems=ext4,btrfs", "destructive=true", "devices=/dev/a,/dev/b", "layout=raid1",
            NULL }, "layout: raid1 is btrfs's own RAID and ext4 cannot do it; use filesystems=btrfs, or "
                    "layout=md-raid1 where md RAID is available, or layout=single" },
        { { "workload=write", "filesystems=btrfs,xfs", "destructive=true", "devices=/dev/a,/dev/b", "layout=raid0",
            NULL }, "raid0 is btrfs's own RAID and xfs cannot do it; use filesystems=btrfs, or layout=md-raid0" },
        { { "workload=write", "filesystems=xfs", "destructive=true", "devices=/dev/a,/dev/b", "layout=raid10",
            NULL }, "raid10 is btrfs's own RAID and xfs cannot do it; use filesystems=btrfs, or layout=single" },
        { { "workload=write", "filesystems=btrfs", "destructive=true", "devices=/dev/a", "layout=raid1", NULL },
          "layout: raid1 needs at least 2 devices, devices has 1; add another device or use layout=single" },
        { { "target=/dev/a", "workload=write", "filesystems=btrfs", "destructive=true", "layout=raid10", NULL },
          "layout: raid10 needs at least 2 devices, devices has 1" },
        { { "target=/dev/a", "workload=write", "filesystems=ext4", "destructive=true", "layout=md-raid0", NULL },
          "layout: md-raid0 needs at least 2 devices" },
        { { "workload=write", "filesystems=ext4", "destructive=true", "devices=/dev/a,/dev/b", "layout=md-raid5", NULL },
          "layout: md-raid5 needs at least 3 devices, devices has 2; add another device or use layout=single" },
        { { "workload=write", "filesystems=ext4", "destructive=true", "devices=/dev/a", "layout=md-raid1+lvm", NULL },
          "layout: md-raid1+lvm needs at least 2 devices" },
        /* md and LVM keys go with their layouts, and only what benchd passes on. */
        { { "workload=write", "filesystems=ext4", "destructive=true", "devices=/dev/a", "md_options=--chunk=64K",
            NULL }, "md_options: applies to the md layouts, not layout=single; use layout=md-raid0" },
        { { "workload=write", "filesystems=ext4", "destructive=true", "devices=/dev/a", "md_resync=assume-clean",
            NULL }, "md_resync: applies to the md layouts, not layout=single" },
        { { "workload=write", "filesystems=ext4", "destructive=true", "devices=/dev/a,/dev/b", "layout=md-raid1",
            "lv_size=1G", NULL }, "lv_size: applies to layout=lvm and md-raid1+lvm, not layout=md-raid1" },
        { { "workload=write", "filesystems=ext4", "destructive=true", "devices=/dev/a,/dev/b", "layout=raid0",
            "filesystems=btrfs", "lvm_options=--physicalextentsize=1M", NULL },
          "lvm_options: applies to layout=lvm and md-raid1+lvm, not layout=raid0" },
        { { "workload=write", "filesystems=ext4", "destructive=true", "devices=/dev/a,/dev/b", "layout=md-raid1",
            "md_options=--chunk=64K", NULL }, "md_options: --chunk does not apply to md-raid1 (mdadm refuses a "
                                             "chunk size for RAID1)" },
        { { "workload=write", "filesystems=ext4", "destructive=true", "devices=/dev/a,/dev/b", "layout=md-raid0",
            "md_options=--bitmap=internal", NULL }, "--bitmap=internal does not apply to md-raid0" },
        { { "workload=write", "filesystems=ext4", "destructive=true", "devices=/dev/a,/dev/b", "layout=md-raid1",
            "md_options=--layout=f2", NULL }, "md_options: --layout applies to md-raid5 and md-raid10, not md-raid1" },
        { { "target=/srv", "workload=write", "md_options=--chunk=64K", NULL }, "md_options: applies to the md layouts" },
};

/* md_options and lvm_options take only the words benchd passes on. */
static const struct {
        const char *assignment, *needle;
} bad_md_lvm_options[] = {
        { "md_options=--force", "md_options: '--force' is not an option benchd passes to mdadm; use --chunk=SIZE" },
        { "md_options=--chunk=64K /dev/sda", "md_options: '/dev/sda' is not an option benchd passes to mdadm" },
        { "md_options=--chunk=3K", "md_options: --chunk=3K is not a chunk size mdadm takes; use a power of two" },
        { "md_options=--chunk=128M", "--chunk=128M is not a chunk size" },
        { "md_options=--chunk=64K --chunk=128K", "md_options: --chunk= is given twice" },
        { "md_options=--bitmap=/tmp/bm", "md_options: --bitmap=/tmp/bm is not a bitmap benchd makes" },
        { "md_options=--metadata=2.0", "md_options: --metadata=2.0 is not an md superblock version" },
        { "md_options=--layout=f2;x", "md_options: --layout=f2;x is not a layout name" },
        { "md_options=--homehost=other", "'--homehost=other' is not an option benchd passes to mdadm" },
        { "lvm_options=--stripes=2", "lvm_options: '--stripes=2' is not an option benchd passes to LVM" },
        { "lvm_options=--physicalextentsize=3M", "lvm_options: --physicalextentsize=3M is not a size LVM takes there; "
                                                 "use a power of two from 1K to 16G" },
        { "lvm_options=--dataalignment=x", "lvm_options: --dataalignment=x is not a size" },
        { "md_resync=fast", "md_resync: 'fast' is not a resync mode; use one of wait" },
        { "lv_size=lots", "lv_size: 'lots' is not a size" },
};

START_TEST(test_bad_md_lvm_options) {
        _cleanup_spec_ JobSpec s;
        _cleanup_free_ char *err = NULL;

        spec_init(&s);
        ck_assert_int_eq(spec_set_assignment(&s, bad_md_lvm_options[_i].assignment, &err), -EINVAL);
        ck_assert_msg(strstr(err, bad_md_lvm_options[_i].needle), "'%s' lacks '%s'", err,
                      bad_md_lvm_options[_i].needle);
}
END_TEST

/* A good md and LVM spec, and its text: md_resync written for md layouts, lv_size when not 0. */
START_TEST(test_md_lvm_text) {
        _cleanup_spec_ JobSpec s, back;
        _cleanup_free_ char *err = NULL, *text = NULL, *text2 = NULL, *json = NULL;

        spec_init(&s);
        ck_assert_int_eq(spec_set_assignment(&s, "workload=write", NULL), 0);
        ck_assert_int_eq(spec_set_assignment(&s, "filesystems=ext4", NULL), 0);
        ck_assert_int_eq(spec_set_assignment(&s, "destructive=true", NULL), 0);
        ck_assert_int_eq(spec_set_assignment(&s, "devices=/dev/a,/dev/b", NULL), 0);
        ck_assert_int_eq(spec_set_assignment(&s, "layout=md-raid1+lvm", NULL), 0);
        ck_assert_int_eq(spec_set_assignment(&s, "md_options=--bitmap=none --metadata=1.2", NULL), 0);
        ck_assert_int_eq(spec_set_assignment(&s, "lvm_options=--physicalextentsize=1M", NULL), 0);
        ck_assert_int_eq(spec_set_assignment(&s, "lv_size=64M", NULL), 0);
        ck_assert_msg(spec_finalize(&s, &err) == 0, "%s", strna(err));
        ck_assert_int_eq(spec_to_text(&s, &text), 0);
        ck_assert_msg(strstr(text, "\nmd_resync=wait\n") && strstr(text, "\nlv_size=64M\n") &&
                      strstr(text, "\nmd_options=--bitmap=none --metadata=1.2\n") &&
                      strstr(text, "\nlvm_options=--physicalextentsize=1M\n"), "%s", text);
        ck_assert_int_eq(spec_to_json(&s, &json), 0);
        spec_init(&back);
        ck_assert_msg(spec_from_json(&back, json, &err) == 0, "%s", strna(err));
        ck_assert_msg(spec_finalize(&back, &err) == 0, "%s", strna(err));
        ck_assert(spec_equal(&s, &back));
        ck_assert_int_eq(spec_to_text(&back, &text2), 0);
        ck_assert_str_eq(text, text2);

        /* A single-layout job's text has neither. */
        spec_clear(&s);
        free(text);
        text = NULL;
        ck_assert_int_eq(spec_set_assignment(&s, "workload=write", NULL), 0);
        ck_assert_int_eq(spec_set_assignment(&s, "filesystems=ext4", NULL), 0);
        ck_assert_int_eq(spec_set_assignment(&s, "destructive=true", NULL), 0);
        ck_assert_int_eq(spec_set_assignment(&s, "devices=/dev/a", NULL), 0);
        ck_assert_msg(spec_finalize(&s, &err) == 0, "%s", strna(err));
        ck_assert_int_eq(spec_to_text(&s, &text), 0);
        ck_assert_msg(!strstr(text, "md_resync") && !strstr(text, "lv_size") && !strstr(text, "md_options"), "%s",
                      text);
}
END_TEST

START_TEST(test_bad_matrix) {
        _cleanup_spec_ JobSpec s;
        _cleanup_free_ char *err = NULL;
        int r;

        spec_build(&s, bad_matrix[_i].assignments);
        r = spec_finalize(&s, &err);
        ck_assert_msg(r == -EINVAL, "case %d accepted", _i);
        ck_assert_msg(strstr(err, bad_matrix[_i].needle), "case %d: '%s' lacks '%s'", _i, err, bad_matrix[_i].needle);
        ck_assert(!s.finalized);
}
END_TEST

/* What finalizing a matrix settles: devices from target, target from devices, layout single. */
static const struct {
        const char *assignments[10];
        const char *target;
        const char *devices; /* comma-separated */
        Layout layout;
} good_matrix[] = {
        { { "target=/dev/a", "workload=write", "filesystems=ext4,btrfs", "destructive=true", NULL },
          "/dev/a", "/dev/a", LAYOUT_SINGLE },
        { { "devices=/dev/b,/dev/a", "workload=randread", "filesystems=xfs", "destructive=true", NULL },
          "/dev/b", "/dev/b,/dev/a", LAYOUT_SINGLE },
        { { "devices=/dev/b,/dev/a", "target=/dev/a", "workload=read", "filesystems=xfs", "destructive=true", NULL },
          "/dev/a", "/dev/b,/dev/a", LAYOUT_SINGLE },
        { { "devices=/dev/a,/dev/b", "profile=bonnie", "filesystems=btrfs", "destructive=true", "layout=raid1",
            "mkfs_options.btrfs=-n 64K", "mount_options.btrfs=compress=zstd", NULL },
          "/dev/a", "/dev/a,/dev/b", LAYOUT_RAID1 },
        { { "devices=/dev/a,/dev/b", "workload=write", "filesystems=btrfs", "destructive=true", "layout=raid10", NULL },
          "/dev/a", "/dev/a,/dev/b", LAYOUT_RAID10 },
        { { "devices=/dev/a,/dev/b", "workload=write", "filesystems=btrfs", "destructive=true", "layout=raid0", NULL },
          "/dev/a", "/dev/a,/dev/b", LAYOUT_RAID0 },
        { { "target=/dev/a", "workload=metadata", "filesystems=ext4,xfs", "destructive=true", "layout=lvm", NULL },
          "/dev/a", "/dev/a", LAYOUT_LVM },
        { { "devices=/dev/a,/dev/b", "workload=write", "filesystems=ext4", "destructive=true", "layout=md-raid1", NULL },
          "/dev/a", "/dev/a,/dev/b", LAYOUT_MD_RAID1 },
};

START_TEST(test_good_matrix) {
        _cleanup_spec_ JobSpec s, again;
        _cleanup_free_ char *err = NULL, *devices = NULL, *text = NULL, *text2 = NULL;
        size_t len = 0;
        FILE *f;

        spec_build(&s, good_matrix[_i].assignments);
        ck_assert_msg(spec_finalize(&s, &err) == 0, "case %d: %s", _i, strna(err));
        ck_assert_str_eq(s.target, good_matrix[_i].target);
        f = open_memstream(&devices, &len);
        for (char **d = s.devices; *d; d++)
                fprintf(f, "%s%s", d == s.devices ? "" : ",", *d);
        fclose(f);
        ck_assert_str_eq(devices, good_matrix[_i].devices);
        ck_assert_int_eq(s.layout, good_matrix[_i].layout);
        /* What was settled counts as given, so that profile steps and the written forms carry it. */
        ck_assert(s.set_mask & (UINT64_C(1) << SPEC_KEY_TARGET));
        ck_assert(s.set_mask & (UINT64_C(1) << SPEC_KEY_DEVICES));
        ck_assert(s.set_mask & (UINT64_C(1) << SPEC_KEY_LAYOUT));

        /* Finalizing again changes nothing. */
        ck_assert_int_eq(spec_copy(&s, &again), 0);
        ck_assert_int_eq(spec_finalize(&again, NULL), 0);
        ck_assert(spec_equal(&s, &again));
        ck_assert_int_eq(spec_to_text(&s, &text), 0);
        ck_assert_int_eq(spec_to_text(&again, &text2), 0);
        ck_assert_str_eq(text, text2);
}
END_TEST

/* Device paths together fit in one worker protocol frame. */
START_TEST(test_matrix_devices_bytes) {
        _cleanup_spec_ JobSpec s;
        _cleanup_free_ char *err = NULL;
        char *paths[SPEC_DEVICES_MAX + 1] = {};
        SpecValue v = { .type = SPEC_VALUE_STRV, .strv = paths };
        const char *a[] = { "workload=write", "filesystems=ext4", "destructive=true", NULL };

        spec_build(&s, a);
        for (unsigned i = 0; i < SPEC_DEVICES_MAX; i++) {
                paths[i] = malloc(1100);
                ck_assert_ptr_nonnull(paths[i]);
                memset(paths[i], 'd', 1099);
                paths[i][0] = '/';
                snprintf(paths[i] + 1, 8, "%02u", i);
                paths[i][3] = 'd';
                paths[i][1099] = 0;
        }
        ck_assert_int_eq(spec_set(&s, "devices", &v, NULL), 0);
        ck_assert_int_eq(spec_finalize(&s, &err), -EINVAL);
        ck_assert_msg(strstr(err, "devices: the paths take 17600 bytes together, more than 16384"), "%s", err);
        for (unsigned i = 0; i < SPEC_DEVICES_MAX; i++)
                free(paths[i]);
}
END_TEST

/* queue_depth × block_size × jobs of buffers: 2 GiB exactly is fine, one block more is not, and
 * the message names all three keys, whichever of them made it too much. */
static const struct {
        const char *assignments[8];
        int ret;
} buffer_cases[] = {
        { { "target=/srv", "workload=randread", "size=4G", "block_size=64M", "queue_depth=32", NULL }, 0 },
        { { "target=/srv", "workload=randread", "size=4G", "block_size=64M", "queue_depth=33", NULL }, -EINVAL },
        { { "target=/srv", "workload=randread", "size=4G", "block_size=64M", "queue_depth=2", "jobs=16", NULL }, 0 },
        { { "target=/srv", "workload=randread", "size=4G", "block_size=64M", "queue_depth=2", "jobs=17", NULL },
          -EINVAL },
        { { "target=/srv", "workload=write", "size=4G", "block_size=32M", "queue_depth=1024", NULL }, -EINVAL },
        { { "target=/srv", "workload=write", "size=4G", "block_size=4K", "queue_depth=1024", "jobs=64", NULL }, 0 },
        { { "target=/srv", "workload=seeks", "size=4G", "block_size=64M", "jobs=64", NULL }, -EINVAL },
};

START_TEST(test_finalize_buffers) {
        _cleanup_spec_ JobSpec s;
        _cleanup_free_ char *err = NULL;
        int r;

        spec_build(&s, buffer_cases[_i].assignments);
        r = spec_finalize(&s, &err);
        ck_assert_msg(r == buffer_cases[_i].ret, "case %d: %d (%s)", _i, r, strna(err));
        if (r < 0) {
                ck_assert(!s.finalized);
                ck_assert_msg(strstr(err, "queue_depth") && strstr(err, "block_size") && strstr(err, "jobs") &&
                              strstr(err, "more than 2G;"), "message '%s' does not name the three keys and the limit", err);
        }
}
END_TEST

/* The same shapes pass when the rule they broke is lifted. */
START_TEST(test_finalize_unaligned_buffered) {
        _cleanup_spec_ JobSpec s;
        _cleanup_free_ char *err = NULL;
        const char *a[] = { "target=/srv", "workload=write", "direct=false", "block_size=1000",
                            "size=10001", NULL };

        spec_build(&s, a);
        ck_assert_msg(spec_finalize(&s, &err) == 0, "%s", strna(err));
}
END_TEST

START_TEST(test_assignment_syntax) {
        _cleanup_spec_ JobSpec s;
        _cleanup_free_ char *err = NULL;

        spec_init(&s);
        ck_assert_int_eq(spec_set_assignment(&s, "block_size", &err), -EINVAL);
        ck_assert(strstr(err, "key=value"));
        ck_assert_int_eq(spec_set_assignment(&s, "=4K", NULL), -EINVAL);
        ck_assert_int_eq(spec_set_assignment(&s, "direct=maybe", NULL), -EINVAL);
        ck_assert_int_eq(spec_set_assignment(&s, "label=a=b", NULL), 0);
        ck_assert_str_eq(s.label, "a=b");
        ck_assert_int_eq(spec_set_assignment(&s, "label=", NULL), 0);
        ck_assert_ptr_null(s.label);
        ck_assert(!(s.set_mask & (UINT64_C(1) << SPEC_KEY_LABEL)));
        ck_assert_int_eq(spec_set_assignment(&s, "tags=a,,b,", NULL), 0);
        ck_assert_str_eq(s.tags[0], "a");
        ck_assert_str_eq(s.tags[1], "b");
        ck_assert_ptr_null(s.tags[2]);
}
END_TEST

/* A fleet run's keys: what they take, and that they need fleet_uuid. */
START_TEST(test_fleet_keys) {
        _cleanup_spec_ JobSpec s;
        _cleanup_free_ char *err = NULL;

        spec_init(&s);
        ck_assert_int_eq(spec_set_assignment(&s, "target=/srv", NULL), 0);
        ck_assert_int_eq(spec_set_assignment(&s, "workload=write", NULL), 0);
        ck_assert_int_eq(spec_set_assignment(&s, "fleet_uuid=0F8FAD5B-D9CB-469F-A165-70867728950E", &err), -EINVAL);
        ck_assert(strstr(err, "fleet_uuid: '0F8FAD5B-D9CB-469F-A165-70867728950E' is not a uuid"));
        free(err);
        err = NULL;
        ck_assert_int_eq(spec_set_assignment(&s, "fleet_host=a b", &err), -EINVAL);
        ck_assert(strstr(err, "fleet_host: 'a b' contains a space"));
        free(err);
        err = NULL;
        ck_assert_int_eq(spec_set_assignment(&s, "fleet_clock_tolerance_ms=0", &err), -EINVAL);
        ck_assert(strstr(err, "from 1 to 60000"));
        free(err);
        err = NULL;
        ck_assert_int_eq(spec_set_assignment(&s, "fleet_clock_tolerance_ms=60001", NULL), -EINVAL);
        ck_assert_uint_eq(spec_fleet_tolerance_ms(&s), SPEC_FLEET_TOLERANCE_MS_DEFAULT);
        ck_assert_int_eq(spec_set_assignment(&s, "fleet_host=bench1", NULL), 0);
        ck_assert_int_eq(spec_finalize(&s, &err), -EINVAL);
        ck_assert(strstr(err, "fleet_host: given without fleet_uuid"));
        free(err);
        err = NULL;
        ck_assert_int_eq(spec_set_assignment(&s, "fleet_uuid=0f8fad5b-d9cb-469f-a165-70867728950e", NULL), 0);
        ck_assert_int_eq(spec_set_assignment(&s, "fleet_clock_tolerance_ms=250", NULL), 0);
        ck_assert_int_eq(spec_finalize(&s, &err), 0);
        ck_assert_str_eq(s.fleet_host, "bench1");
        ck_assert_uint_eq(spec_fleet_tolerance_ms(&s), 250);
}
END_TEST

/* ---- round trips ---- */

static const char *const roundtrip_cases[][20] = {
        { "target=/srv/bench", "workload=write", NULL },
        { "target=/srv/bench", "workload=randrw", "block_size=4K", "size=3G", "queue_depth=32", "jobs=4",
          "rwmix_read=70", "sync=each:fdatasync", "pattern=compressible:30", "direct=false",
          "label=nightly run #3", "tags=ssd,nightly,v1.2:x", "sample_ms=250", NULL },
        { "target=/dev/disk/by-id/ata-X", "workload=write", "destructive=true", "runtime_ms=30000",
          "ramp_ms=5000", "size=1536", "block_size=512", NULL },
        { "target=/srv", "workload=metadata", "file_count=32768", "file_size_min=4K", "file_size_max=64K",
          "dirs=4", NULL },
        { "target=/srv", "workload=stride-read", "block_size=8K", "stride=24K", "sync=fdatasync", NULL },
        { "target=/srv", "profile=bonnie", "label=a", "size=2G", NULL },
        { "filesystems=ext4,btrfs", "devices=/dev/loop1,/dev/disk/by-id/x", "destructive=true", "workload=write",
          "mkfs_options.ext4=-E lazy_itable_init=0,nodiscard", "mount_options.btrfs=compress=zstd,noatime",
          "mount_options.ext4=noatime", "layout=single", "tags=matrix", NULL },
        { "target=/dev/loop7", "filesystems=xfs", "destructive=true", "profile=bonnie", "mkfs_options.xfs=-K -m crc=1",
          NULL },
        { "filesystems=btrfs", "devices=/dev/a,/dev/b,/dev/c", "target=/dev/b", "layout=raid10", "destructive=true",
          "workload=randread", "mkfs_options.btrfs=-O ^no-holes --csum xxhash", NULL },
        { "target=/srv", "workload=randread", "repeat=4", "until_stddev=2.125", "max_repeats=20", "runtime_ms=60000",
          "steady_state=iops_slope:0.5", "steady_state_window_ms=10000", "sample_ms=500", NULL },
        { "target=/srv", "profile=dd", "repeat=3", "until_stddev=0.001", NULL },
        { "target=/srv", "workload=write", "fleet_uuid=0f8fad5b-d9cb-469f-a165-70867728950e",
          "fleet_host=root@bench1", "fleet_clock_tolerance_ms=20", NULL },
};

START_TEST(test_roundtrip) {
        _cleanup_spec_ JobSpec a, b, c;
        _cleanup_free_ char *err = NULL, *text = NULL, *text2 = NULL, *json = NULL, *json2 = NULL;
        _cleanup_free_ char *copy = NULL;
        char *line, *save = NULL;

        spec_build(&a, roundtrip_cases[_i]);
        ck_assert_msg(spec_finalize(&a, &err) == 0, "%s", strna(err));

        /* Text: every line reads back, and the result is the same spec. */
        ck_assert_int_eq(spec_to_text(&a, &text), 0);
        spec_init(&b);
        copy = strdup(text);
        for (line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
                ck_assert_msg(spec_set_assignment(&b, line, &err) == 0, "'%s': %s", line, strna(err));
        ck_assert_msg(spec_equal(&a, &b), "text round trip differs:\n%s", text);
        ck_assert_msg(spec_finalize(&b, &err) == 0, "%s", strna(err));
        ck_assert(spec_equal(&a, &b));
        ck_assert_int_eq(spec_to_text(&b, &text2), 0);
        ck_assert_str_eq(text, text2);

        /* JSON. */
        ck_assert_int_eq(spec_to_json(&a, &json), 0);
        spec_init(&c);
        ck_assert_msg(spec_from_json(&c, json, &err) == 0, "%s: %s", json, strna(err));
        ck_assert_msg(spec_equal(&a, &c), "JSON round trip differs: %s", json);
        ck_assert_msg(spec_finalize(&c, &err) == 0, "%s", strna(err));
        ck_assert_int_eq(spec_to_json(&c, &json2), 0);
        ck_assert_str_eq(json, json2);
        if (a.profile)
                /* A profile spec keeps which keys were given, for step expansion after a restart. */
                ck_assert_uint_eq(a.set_mask, c.set_mask);
}
END_TEST

START_TEST(test_text_form) {
        _cleanup_spec_ JobSpec s;
        _cleanup_free_ char *text = NULL, *json = NULL;
        const char *a[] = { "target=/srv", "workload=randrw", "sync=each:fdatasync", "pattern=compressible:25",
                            "tags=x,y", "block_size=8192", NULL };

        spec_build(&s, a);
        ck_assert_int_eq(spec_finalize(&s, NULL), 0);
        ck_assert_int_eq(spec_to_text(&s, &text), 0);
        ck_assert_str_eq(text,
                         "target=/srv\n"
                         "workload=randrw\n"
                         "block_size=8K\n"
                         "size=1G\n"
                         "runtime_ms=0\n"
                         "ramp_ms=0\n"
                         "queue_depth=1\n"
                         "jobs=1\n"
                         "direct=true\n"
                         "sync=each:fdatasync\n"
                         "rwmix_read=50\n"
                         "pattern=compressible:25\n"
                         "stride=32K\n"
                         "file_count=16384\n"
                         "file_size_min=0\n"
                         "file_size_max=0\n"
                         "dirs=1\n"
                         "sample_ms=1000\n"
                         "tags=x,y\n"
                         "destructive=false\n"
                         "positions=20\n"
                         "repeat=1\n"
                         "until_stddev=0\n"
                         "max_repeats=10\n"
                         "steady_state_window_ms=30000\n"
                         "fallocate=native\n"
                         "invalidate=true\n"
                         "ioengine=auto\n"
                         "refill_buffers=false\n");
        ck_assert_int_eq(spec_to_json(&s, &json), 0);
        ck_assert(strstr(json, "\"block_size\":8192"));
        ck_assert(strstr(json, "\"size\":1073741824"));
        ck_assert(strstr(json, "\"tags\":[\"x\",\"y\"]"));
        ck_assert(strstr(json, "\"direct\":true"));
        ck_assert(!strstr(json, "profile"));
        ck_assert(!strstr(json, "label"));
        /* No matrix: none of its keys, not even the layout. */
        ck_assert(!strstr(json, "layout"));
        ck_assert(!strstr(json, "devices"));
        ck_assert(!strstr(json, "options"));
}
END_TEST

/* A filesystem matrix: lists comma-separated, map entries one line each (sorted), settled keys. */
START_TEST(test_text_form_matrix) {
        _cleanup_spec_ JobSpec s;
        _cleanup_free_ char *text = NULL, *json = NULL;
        const char *a[] = { "profile=bonnie", "devices=/dev/loop1,/dev/loop2", "filesystems=ext4,btrfs",
                            "destructive=true", "mount_options.ext4=noatime,data=ordered",
                            "mkfs_options.ext4=-E lazy_itable_init=0", "mkfs_options.btrfs=-m single", NULL };

        spec_build(&s, a);
        ck_assert_int_eq(spec_finalize(&s, NULL), 0);
        ck_assert_int_eq(spec_to_text(&s, &text), 0);
        ck_assert_str_eq(text,
                         "target=/dev/loop1\n"
                         "profile=bonnie\n"
                         "destructive=true\n"
                         "filesystems=ext4,btrfs\n"
                         "mkfs_options.btrfs=-m single\n"
                         "mkfs_options.ext4=-E lazy_itable_init=0\n"
                         "mount_options.ext4=noatime,data=ordered\n"
                         "devices=/dev/loop1,/dev/loop2\n"
                         "layout=single\n");
        ck_assert_int_eq(spec_to_json(&s, &json), 0);
        ck_assert_str_eq(json,
                         "{\"target\":\"/dev/loop1\",\"profile\":\"bonnie\",\"destructive\":true,"
                         "\"filesystems\":[\"ext4\",\"btrfs\"],"
                         "\"mkfs_options\":{\"btrfs\":\"-m single\",\"ext4\":\"-E lazy_itable_init=0\"},"
                         "\"mount_options\":{\"ext4\":\"noatime,data=ordered\"},"
                         "\"devices\":[\"/dev/loop1\",\"/dev/loop2\"],\"layout\":\"single\"}");
}
END_TEST

static const struct {
        const char *json;
        const char *needle;
} bad_json[] = {
        { "", "JSON" },
        { "[1,2]", "object" },
        { "{\"target\": 5}", "target" },
        { "{\"blocksize\": 4096}", "blocksize" },
        { "{\"size\": 1.5}", "size" },
        { "{\"size\": -4096}", "size" },
        { "{\"tags\": [1]}", "tags" },
        { "{\"direct\": null}", "direct" },
        { "{\"label\": {\"a\": 1}}", "label" },
        { "{\"target\": \"/srv\", \"workload\": \"write\",", "JSON" },
        { "{\"target\": \"/srv\\u0000/x\"}", "NUL" },
        { "{\"tags\": [\"a\\u0000b\"]}", "tags" },
        { "{\"label\": {\"a\": \"b\"}}", "label: expected a string" },
        { "{\"filesystems\": [\"ext4\", 4]}", "filesystems" },
        { "{\"mkfs_options\": \"-E x\"}", "mkfs_options: expected a dictionary" },
        { "{\"mkfs_options\": [\"-E x\"]}", "mkfs_options: expected a dictionary" },
        { "{\"mkfs_options\": {\"ext4\": 1}}", "mkfs_options: expected an object of strings" },
        { "{\"mount_options\": {\"ext4\": \"a\\u0000b\"}}", "NUL" },
        { "{\"mount_options\": {\"ext4\": \"\"}}", "leave the entry out" },
        { "{\"layout\": \"raid6\"}", "not a layout" },
};

START_TEST(test_bad_json) {
        _cleanup_spec_ JobSpec s;
        _cleanup_free_ char *err = NULL;

        spec_init(&s);
        ck_assert_int_eq(spec_from_json(&s, bad_json[_i].json, &err), -EINVAL);
        ck_assert_ptr_nonnull(err);
        ck_assert_msg(strstr(err, bad_json[_i].needle), "'%s' lacks '%s'", err, bad_json[_i].needle);
}
END_TEST

START_TEST(test_copy_apply) {
        _cleanup_spec_ JobSpec step, user, copy;
        const char *st[] = { "target=/srv", "workload=write", "block_size=32K", "size=1G", NULL };
        const char *us[] = { "size=2G", "label=mine", "tags=a", NULL };

        spec_build(&step, st);
        spec_build(&user, us);
        ck_assert_int_eq(spec_apply(&step, &user), 0);
        ck_assert_uint_eq(step.size, UINT64_C(2) << 30);
        ck_assert_uint_eq(step.block_size, 32768);
        ck_assert_str_eq(step.label, "mine");
        ck_assert_str_eq(step.tags[0], "a");

        ck_assert_int_eq(spec_copy(&step, &copy), 0);
        ck_assert(spec_equal(&step, &copy));
        ck_assert_ptr_ne(step.target, copy.target);
        ck_assert_ptr_ne(step.tags, copy.tags);
        ck_assert_uint_eq(step.set_mask, copy.set_mask);
        free(copy.label);
        copy.label = strdup("other");
        ck_assert(!spec_equal(&step, &copy));
}
END_TEST

/* Matrix keys: a copy shares nothing, and applying takes the caller's whole map. */
START_TEST(test_copy_apply_matrix) {
        _cleanup_spec_ JobSpec step, user, copy;
        const char *st[] = { "workload=write", "mkfs_options.ext4=-E a", "mkfs_options.xfs=-K", NULL };
        const char *us[] = { "devices=/dev/a,/dev/b", "filesystems=ext4,btrfs", "destructive=true",
                             "mkfs_options.btrfs=-m single", "mount_options.ext4=noatime", "layout=single", NULL };

        spec_build(&step, st);
        spec_build(&user, us);
        ck_assert_int_eq(spec_apply(&step, &user), 0);
        ck_assert_uint_eq(step.mkfs_options.n, 1);
        ck_assert_str_eq(spec_map_get(&step.mkfs_options, "btrfs"), "-m single");
        ck_assert_str_eq(spec_map_get(&step.mount_options, "ext4"), "noatime");
        ck_assert_str_eq(step.devices[1], "/dev/b");
        ck_assert_str_eq(step.filesystems[1], "btrfs");
        ck_assert_int_eq(step.layout, LAYOUT_SINGLE);
        ck_assert_int_eq(spec_finalize(&step, NULL), 0);

        ck_assert_int_eq(spec_copy(&step, &copy), 0);
        ck_assert(spec_equal(&step, &copy));
        ck_assert_ptr_ne(step.devices, copy.devices);
        ck_assert_ptr_ne(step.filesystems[0], copy.filesystems[0]);
        ck_assert_ptr_ne(step.mkfs_options.keys, copy.mkfs_options.keys);
        ck_assert_ptr_ne(step.mount_options.values[0], copy.mount_options.values[0]);
        ck_assert_int_eq(spec_set_assignment(&copy, "mount_options.ext4=relatime", NULL), 0);
        ck_assert(!spec_equal(&step, &copy));
        ck_assert_str_eq(spec_map_get(&step.mount_options, "ext4"), "noatime");
        ck_assert_int_eq(spec_set_assignment(&copy, "mount_options.ext4=noatime", NULL), 0);
        ck_assert(spec_equal(&step, &copy));
        ck_assert_int_eq(spec_set_assignment(&copy, "layout=raid1", NULL), 0);
        ck_assert(!spec_equal(&step, &copy));
}
END_TEST

/* ---- spec_check_target on real files ---- */

static char tmpdir[PATH_MAX / 2];
static char path_file[PATH_MAX], path_small[PATH_MAX], path_fifo[PATH_MAX], path_missing[PATH_MAX];

static void check_setup(void) {
        _cleanup_close_ int fd = -EBADF;
        static char block[8192];

        snprintf(tmpdir, sizeof(tmpdir), "%s/test-spec-XXXXXX", check_tmpdir()); /* each test case gets its own */
        ck_assert_ptr_nonnull(mkdtemp(tmpdir));
        snprintf(path_file, sizeof(path_file), "%s/data", tmpdir);
        snprintf(path_small, sizeof(path_small), "%s/small", tmpdir);
        snprintf(path_fifo, sizeof(path_fifo), "%s/fifo", tmpdir);
        snprintf(path_missing, sizeof(path_missing), "%s/missing", tmpdir);

        fd = open(path_file, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
        ck_assert_int_ge(fd, 0);
        for (int i = 0; i < 128; i++)  /* 1 MiB */
                ck_assert_int_eq(write(fd, block, sizeof(block)), (ssize_t) sizeof(block));
        closep(&fd);
        fd = open(path_small, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
        ck_assert_int_ge(fd, 0);
        ck_assert_int_eq(write(fd, block, 100), 100);
        ck_assert_int_eq(mkfifo(path_fifo, 0600), 0);
}

static void check_teardown(void) {
        unlink(path_file);
        unlink(path_small);
        unlink(path_fifo);
        rmdir(tmpdir);
}

static const struct {
        const char *target; /* "D" tmpdir, "F" file, "S" small file, "P" fifo, "M" missing, else literal */
        const char *assignments[6];
        int ret;
        const char *needle;
        TargetKind kind;
} check_cases[] = {
        { "D", { "workload=write", "size=1M", "block_size=4K", NULL }, 0, NULL, TARGET_DIRECTORY },
        { "D", { "workload=read", "size=1M", NULL }, 0, NULL, TARGET_DIRECTORY },
        { "D", { "workload=metadata", "file_count=16", "file_size_max=4K", NULL }, 0, NULL, TARGET_DIRECTORY },
        { "D", { "workload=write", "size=15T", NULL }, -ENOSPC, "free", TARGET_DIRECTORY },
        { "D", { "workload=write", "size=4T", "jobs=4", NULL }, -ENOSPC, "jobs 4", TARGET_DIRECTORY },
        { "D", { "workload=metadata", "file_count=16777216", "file_size_max=1M", NULL }, -ENOSPC, "file_count",
          TARGET_DIRECTORY },
        { "D", { "workload=write", "size=1M", "destructive=true", NULL }, -EINVAL, "only to block devices",
          TARGET_DIRECTORY },
        { "D", { "workload=read", "size=1M", "destructive=true", NULL }, -EINVAL, "leave destructive unset",
          TARGET_DIRECTORY },
        { "F", { "workload=read", "size=1M", "destructive=true", NULL }, -EINVAL, "regular file, which benchd never",
          TARGET_FILE },
        { "F", { "workload=read", "size=1M", NULL }, 0, NULL, TARGET_FILE },
        { "F", { "workload=randread", "size=1M", NULL }, 0, NULL, TARGET_FILE },
        { "F", { "workload=write", "size=1M", NULL }, -EINVAL, "give a directory", TARGET_FILE },
        { "F", { "workload=randrw", "size=1M", NULL }, -EINVAL, "give a directory", TARGET_FILE },
        { "F", { "workload=metadata", NULL }, -EINVAL, "give a directory", TARGET_FILE },
        { "S", { "workload=read", "size=4K", "block_size=4K", NULL }, -EINVAL, "block_size", TARGET_FILE },
        { "P", { "workload=read", NULL }, -EINVAL, "fifo", TARGET_FILE },
        { "M", { "workload=read", NULL }, -EINVAL, "does not exist", TARGET_FILE },
        { "/dev/null", { "workload=read", NULL }, -EINVAL, "character device", TARGET_FILE },
        { "D", { "workload=position", NULL }, -EINVAL,
          "is a directory; workload position measures a block device's surface; give a block device as target",
          TARGET_DIRECTORY },
        { "F", { "workload=position", NULL }, -EINVAL,
          "is a regular file; workload position measures a block device's surface", TARGET_FILE },
        { "D", { "workload=putc", "size=1M", NULL }, 0, NULL, TARGET_DIRECTORY },
        { "D", { "workload=getc", "size=1M", NULL }, 0, NULL, TARGET_DIRECTORY },
        { "D", { "workload=putc", "size=15T", NULL }, -ENOSPC, "free", TARGET_DIRECTORY },
        { "F", { "workload=getc", "size=1M", NULL }, -EINVAL,
          "is a regular file; workload getc reads a file of its own one character at a time, as bonnie++ does; "
          "give a directory on a mounted filesystem as target", TARGET_FILE },
        { "F", { "workload=putc", "size=1M", NULL }, -EINVAL, "workload putc writes a file of its own", TARGET_FILE },
        { "/dev/null", { "workload=getc", NULL }, -EINVAL, "character device; workload getc", TARGET_FILE },
};

/* Metadata's directories are held open by the worker: dirs beyond what a worker may open here (the
 * hard RLIMIT_NOFILE, lowered in this forked case) is refused, saying how many would do. */
START_TEST(test_check_dirs_files) {
        _cleanup_spec_ JobSpec s;
        _cleanup_free_ char *err = NULL, *t = NULL;
        struct rlimit rl = { 1024, 1024 };

        ck_assert_int_eq(setrlimit(RLIMIT_NOFILE, &rl), 0);
        ck_assert_int_ge(asprintf(&t, "target=%s", tmpdir), 0);
        spec_init(&s);
        ck_assert_int_eq(spec_set_assignment(&s, t, NULL), 0);
        ck_assert_int_eq(spec_set_assignment(&s, "workload=metadata", NULL), 0);
        ck_assert_int_eq(spec_set_assignment(&s, "file_count=4000", NULL), 0);
        ck_assert_int_eq(spec_set_assignment(&s, "dirs=961", NULL), 0);
        ck_assert_int_eq(spec_finalize(&s, &err), 0);
        ck_assert_int_eq(spec_check_target(&s, NULL, &err), -EINVAL);
        ck_assert_msg(strstr(err, "dirs=961") && strstr(err, "may open 1024 files") && strstr(err, "at most dirs=960"),
                      "%s", err);
        free(err);
        err = NULL;
        ck_assert_int_eq(spec_set_assignment(&s, "dirs=960", NULL), 0);
        ck_assert_msg(spec_check_target(&s, NULL, &err) == 0, "%s", strna(err));
}
END_TEST

START_TEST(test_check_target) {
        _cleanup_spec_ JobSpec s;
        _cleanup_free_ char *err = NULL, *t = NULL;
        const char *target = check_cases[_i].target;
        TargetCheck c = { .dio_align = 12345 };
        int r;

        if (streq(target, "D"))
                target = tmpdir;
        else if (streq(target, "F"))
                target = path_file;
        else if (streq(target, "S"))
                target = path_small;
        else if (streq(target, "P"))
                target = path_fifo;
        else if (streq(target, "M"))
                target = path_missing;

        ck_assert_int_ge(asprintf(&t, "target=%s", target), 0);
        spec_init(&s);
        ck_assert_int_eq(spec_set_assignment(&s, t, NULL), 0);
        for (const char *const *a = check_cases[_i].assignments; *a; a++)
                ck_assert_msg(spec_set_assignment(&s, *a, &err) == 0, "%s: %s", *a, strna(err));
        ck_assert_msg(spec_finalize(&s, &err) == 0, "%s", strna(err));

        r = spec_check_target(&s, &c, &err);
        ck_assert_msg(r == check_cases[_i].ret, "case %d: r=%d, expected %d (%s)", _i, r, check_cases[_i].ret,
                      strna(err));
        if (r < 0) {
                ck_assert_ptr_nonnull(err);
                ck_assert_msg(strstr(err, check_cases[_i].needle), "'%s' lacks '%s'", err, check_cases[_i].needle);
                ck_assert_msg(strstr(err, target) || strstr(err, "target"), "'%s' does not name the target", err);
                ck_assert_uint_eq(c.dio_align, 12345); /* untouched */
        } else {
                ck_assert_int_eq(c.kind, check_cases[_i].kind);
                ck_assert_uint_ge(c.dio_align, 512);
                ck_assert_uint_eq(c.dio_align & (c.dio_align - 1), 0);
                if (c.kind == TARGET_DIRECTORY) {
                        ck_assert_uint_eq(c.needed_bytes, spec_needed_bytes(&s));
                        ck_assert_uint_gt(c.free_bytes, c.needed_bytes);
                }
        }
}
END_TEST

START_TEST(test_needed_bytes) {
        _cleanup_spec_ JobSpec s;
        const char *a[] = { "target=/srv", "workload=write", "size=1G", "jobs=4", NULL };
        const char *m[] = { "target=/srv", "workload=metadata", "file_count=1000", "file_size_max=5000", NULL };

        spec_build(&s, a);
        ck_assert_int_eq(spec_finalize(&s, NULL), 0);
        ck_assert_uint_eq(spec_needed_bytes(&s), UINT64_C(4) << 30);
        spec_clear(&s);
        spec_build(&s, m);
        ck_assert_int_eq(spec_finalize(&s, NULL), 0);
        /* Each file rounds up to whole 4K blocks; plus some overhead. */
        ck_assert_uint_ge(spec_needed_bytes(&s), 1000 * 8192);
        ck_assert_uint_le(spec_needed_bytes(&s), 1000 * 8192 + (UINT64_C(16) << 20));

        /* seeks' streams share one file of size, as bonnie++'s 5 seekers share the one file of -s
         * SIZE: the step needs size, not size × jobs. */
        const char *k[] = { "target=/srv", "workload=seeks", "size=1G", "jobs=5", NULL };
        spec_clear(&s);
        spec_build(&s, k);
        ck_assert_int_eq(spec_finalize(&s, NULL), 0);
        ck_assert_uint_eq(spec_needed_bytes(&s), UINT64_C(1) << 30);
}
END_TEST

/* A long target is quoted short in the messages of the checks against the system. */
START_TEST(test_check_long_target) {
        _cleanup_spec_ JobSpec s;
        _cleanup_free_ char *err = NULL, *target = NULL;
        SpecValue v = { .type = SPEC_VALUE_STRING };
        const char *w[] = { "workload=write", "size=1M", NULL };
        size_t len = SPEC_PATH_MAX - 1;

        target = malloc(len + 1);
        ck_assert_ptr_nonnull(target);
        memset(target, 'x', len);
        memcpy(target, tmpdir, strlen(tmpdir));
        target[strlen(tmpdir)] = '/';
        target[len] = 0;
        spec_build(&s, w);
        v.s = target;
        ck_assert_int_eq(spec_set(&s, "target", &v, NULL), 0);
        ck_assert_int_eq(spec_finalize(&s, NULL), 0);
        ck_assert_int_eq(spec_check_target(&s, NULL, &err), -EINVAL);
        ck_assert_msg(strstr(err, tmpdir) && strstr(err, "…"), "%s", err);
        ck_assert_msg(strlen(err) < CALLER_TEXT_MAX + 200, "%zu bytes: %s", strlen(err), err);
}
END_TEST

/* Kernel-state filesystems are InvalidSpec, not "no space"; tmpfs is a real target. */
static const struct {
        const char *target;
        const char *workload;
        const char *fs;         /* in the message */
} pseudo_cases[] = {
        { "/proc", "workload=write", "proc" },
        { "/proc", "workload=metadata", "proc" },
        { "/sys", "workload=write", "sysfs" },
        { "/sys/kernel", "workload=read", "sysfs" },
        { "/proc/self/status", "workload=read", "proc" },
};

START_TEST(test_check_pseudo) {
        _cleanup_spec_ JobSpec s;
        _cleanup_free_ char *err = NULL, *t = NULL;
        const char *w[] = { pseudo_cases[_i].workload, "size=1M", "block_size=4K", NULL };
        struct stat st;

        if (stat(pseudo_cases[_i].target, &st) < 0) {
                fprintf(stderr, "%s: %m; skipping\n", pseudo_cases[_i].target);
                return;
        }
        ck_assert_int_ge(asprintf(&t, "target=%s", pseudo_cases[_i].target), 0);
        spec_build(&s, w);
        ck_assert_int_eq(spec_set_assignment(&s, t, NULL), 0);
        ck_assert_msg(spec_finalize(&s, &err) == 0, "%s", strna(err));
        ck_assert_int_eq(spec_check_target(&s, NULL, &err), -EINVAL);
        ck_assert_msg(strstr(err, "not a filesystem benchd can benchmark") && strstr(err, pseudo_cases[_i].fs) &&
                      strstr(err, pseudo_cases[_i].target), "%s", err);
}
END_TEST

/* The fstype of the mount of path's filesystem, as /proc/self/mountinfo says. */
static bool mounted_as(const char *path, const char *type) {
        _cleanup_fclose_ FILE *f = fopen("/proc/self/mountinfo", "re");
        char line[4096];
        struct stat st;

        if (!f || stat(path, &st) < 0)
                return false;
        while (fgets(line, sizeof(line), f)) {
                unsigned ma, mi;
                char *sep = strstr(line, " - ");
                if (sscanf(line, "%*u %*u %u:%u", &ma, &mi) == 2 && makedev(ma, mi) == st.st_dev && sep &&
                    strncmp(sep + 3, type, strlen(type)) == 0 && sep[3 + strlen(type)] == ' ')
                        return true;
        }
        return false;
}

START_TEST(test_check_devtmpfs_tmpfs) {
        _cleanup_spec_ JobSpec s;
        _cleanup_free_ char *err = NULL;
        const char *w[] = { "workload=write", "size=1M", "block_size=4K", NULL };

        if (mounted_as("/dev", "devtmpfs")) {
                spec_build(&s, w);
                ck_assert_int_eq(spec_set_assignment(&s, "target=/dev", NULL), 0);
                ck_assert_int_eq(spec_finalize(&s, NULL), 0);
                ck_assert_int_eq(spec_check_target(&s, NULL, &err), -EINVAL);
                ck_assert_msg(strstr(err, "devtmpfs") && strstr(err, "not a filesystem benchd can benchmark"),
                              "%s", err);
                spec_clear(&s);
        } else
                fprintf(stderr, "/dev is not devtmpfs here; skipping that case\n");

        if (mounted_as("/dev/shm", "tmpfs")) {
                free(err);
                err = NULL;
                spec_build(&s, w);
                ck_assert_int_eq(spec_set_assignment(&s, "target=/dev/shm", NULL), 0);
                ck_assert_int_eq(spec_finalize(&s, NULL), 0);
                ck_assert_msg(spec_check_target(&s, NULL, &err) == 0, "tmpfs refused: %s", strna(err));
        } else
                fprintf(stderr, "/dev/shm is not tmpfs here; skipping that case\n");
}
END_TEST

/* A block device node that names no present device: the refusals come before any open(). */
START_TEST(test_check_block_node) {
        _cleanup_spec_ JobSpec s;
        _cleanup_free_ char *err = NULL, *node = NULL, *t = NULL;
        const char *w[] = { "workload=write", "size=1M", NULL };
        TargetCheck c;

        ck_assert_int_ge(asprintf(&node, "%s/blk", tmpdir), 0);
        ck_assert_msg(mknod(node, S_IFBLK | 0600, makedev(7, 1000000)) == 0, "mknod %s: %m", node);
        ck_assert_int_ge(asprintf(&t, "target=%s", node), 0);
        spec_init(&s);
        ck_assert_int_eq(spec_set_assignment(&s, t, NULL), 0);
        for (const char *const *a = w; *a; a++)
                ck_assert_int_eq(spec_set_assignment(&s, *a, NULL), 0);
        ck_assert_int_eq(spec_finalize(&s, NULL), 0);

        ck_assert_int_eq(spec_check_target(&s, &c, &err), -EPERM);
        ck_assert_msg(strstr(err, "destructive=true"), "%s", err);
        ck_assert(strstr(err, node));

        /* Consent given: now the device's size is needed, and there is no device. */
        free(err);
        err = NULL;
        ck_assert_int_eq(spec_set_assignment(&s, "destructive=yes", NULL), 0);
        ck_assert_int_eq(spec_finalize(&s, NULL), 0);
        ck_assert_int_eq(spec_check_target(&s, &c, &err), -EINVAL);
        ck_assert_msg(strstr(err, "size"), "%s", err);
        unlink(node);
}
END_TEST

/* A real 8 MiB loop device over an image in our temp dir, when we may make one (root). */
static char loop_img[PATH_MAX], loop_dev[64], loop_link[PATH_MAX];

static void loop_setup(void) {
        _cleanup_close_ int fd = -EBADF;
        _cleanup_free_ char *cmd = NULL;
        FILE *p;

        if (geteuid() != 0)
                return;
        snprintf(loop_img, sizeof(loop_img), "%s/loop.img", tmpdir);
        fd = open(loop_img, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
        if (fd < 0 || ftruncate(fd, 8 << 20) < 0)
                return;
        if (asprintf(&cmd, "losetup --find --show '%s' 2>/dev/null", loop_img) < 0)
                return;
        p = popen(cmd, "re");
        if (!p)
                return;
        if (!fgets(loop_dev, sizeof(loop_dev), p))
                loop_dev[0] = 0;
        pclose(p);
        loop_dev[strcspn(loop_dev, "\n")] = 0;
        if (loop_dev[0] != '/') {
                loop_dev[0] = 0;
                return;
        }
        snprintf(loop_link, sizeof(loop_link), "%s/by-id-link", tmpdir);
        if (symlink(loop_dev, loop_link) < 0)
                loop_link[0] = 0;
}

static void loop_teardown(void) {
        _cleanup_free_ char *cmd = NULL;

        if (loop_dev[0] && asprintf(&cmd, "losetup -d '%s'", loop_dev) >= 0 && system(cmd) != 0)
                fprintf(stderr, "could not detach %s\n", loop_dev);
        if (loop_link[0])
                unlink(loop_link);
        if (loop_img[0])
                unlink(loop_img);
        /* test_check_matrix_loop's nodes, should it have failed before removing them. */
        for (size_t i = 0; i < 2; i++) {
                char node[PATH_MAX + 16];
                snprintf(node, sizeof(node), "%s/%s", tmpdir, i == 0 ? "same-node" : "other-node");
                unlink(node);
        }
}

static const struct {
        bool via_link;
        const char *assignments[5];
        int ret;
        const char *needle;
} loop_cases[] = {
        { false, { "workload=read", "size=4M", NULL }, 0, NULL },
        { true, { "workload=randread", "size=8M", NULL }, 0, NULL },
        { false, { "workload=read", "size=16M", NULL }, -EINVAL, "exceeds the 8 MiB of" },
        /* the suggestion is a size the key reads back, not the figure for people */
        { false, { "workload=read", "size=16M", NULL }, -EINVAL, "; use size=8M or less" },
        { false, { "workload=write", "size=4M", NULL }, -EPERM, "destructive=true" },
        { true, { "workload=randwrite", "size=4M", NULL }, -EPERM, "destructive=true" },
        { false, { "workload=write", "size=4M", "destructive=true", NULL }, 0, NULL },
        { false, { "workload=metadata", "destructive=true", NULL }, -EINVAL, "directory" },
        /* putc and getc likewise, before any question of consent. */
        { false, { "workload=putc", "size=4M", NULL }, -EINVAL,
          "is a block device; workload putc writes a file of its own one character at a time" },
        { true, { "workload=getc", "size=4M", NULL }, -EINVAL, "is a block device; workload getc reads" },
        { false, { "workload=putc", "size=4M", "destructive=true", "filesystems=ext4", NULL }, 0, NULL },
        /* A matrix runs its workload on the filesystem it makes on the device: metadata is fine. */
        { false, { "workload=metadata", "destructive=true", "filesystems=ext4", NULL }, 0, NULL },
        { true, { "workload=write", "size=4M", "filesystems=ext4,btrfs", NULL }, -EPERM, "destructive=true" },
        { true, { "workload=write", "size=4M", "destructive=true", "filesystems=ext4,btrfs", NULL }, 0, NULL },
        /* position reads the whole 8 MiB whatever size says: size is per offset, capped. */
        { false, { "workload=position", "positions=8", NULL }, 0, NULL },
        { true, { "workload=position", "positions=1000", "block_size=4K", NULL }, 0, NULL },
        { false, { "workload=position", "positions=2", "size=16M", NULL }, 0, NULL },
        /* ... but every position needs a block. */
        { false, { "workload=position", NULL }, -EINVAL,
          "smaller than positions 20 × block_size 1M; use positions=8 or less, or a smaller block_size" },
        { false, { "workload=position", "positions=3", "block_size=4M", NULL }, -EINVAL,
          "use positions=2 or less" },
        { false, { "workload=position", "positions=2", "block_size=8M", NULL }, -EINVAL,
          "use fewer positions, or a smaller block_size" },
};

START_TEST(test_check_loop) {
        _cleanup_spec_ JobSpec s;
        _cleanup_free_ char *err = NULL, *t = NULL;
        TargetCheck c;
        struct stat st;
        int r;

        ck_assert_msg(loop_dev[0], "no loop device could be attached (losetup on %s failed)", loop_img);
        ck_assert_int_ge(asprintf(&t, "target=%s", loop_cases[_i].via_link ? loop_link : loop_dev), 0);
        spec_init(&s);
        ck_assert_int_eq(spec_set_assignment(&s, t, NULL), 0);
        for (const char *const *a = loop_cases[_i].assignments; *a; a++)
                ck_assert_int_eq(spec_set_assignment(&s, *a, NULL), 0);
        if (s.filesystems && !s.destructive) {
                /* A matrix without consent is refused before any check of the system. */
                ck_assert_int_eq(spec_finalize(&s, &err), -EINVAL);
                ck_assert_msg(strstr(err, loop_cases[_i].needle), "%s", err);
                return;
        }
        ck_assert_msg(spec_finalize(&s, &err) == 0, "%s", strna(err));

        r = spec_check_target(&s, &c, &err);
        ck_assert_msg(r == loop_cases[_i].ret, "case %d: r=%d (%s)", _i, r, strna(err));
        if (r < 0) {
                ck_assert_msg(strstr(err, loop_cases[_i].needle), "'%s' lacks '%s'", err, loop_cases[_i].needle);
                return;
        }
        ck_assert_int_eq(stat(loop_dev, &st), 0);
        ck_assert_int_eq(c.kind, TARGET_BLOCK);
        ck_assert(c.dev == st.st_rdev);
        /* This kernel (>= 5.15) numbers every attached disk; a loop device has one. */
        if (access("/sys/block/loop0/diskseq", F_OK) == 0)
                ck_assert_uint_gt(c.diskseq, 0);
        ck_assert_uint_ge(c.dio_align, 512);
        ck_assert_uint_eq(c.device_bytes, 8 << 20);
}
END_TEST

/* spec_check_matrix() on real block devices: the loop device, the symlink to it, and nodes made
 * here for its dev_t and for one no device has. */
START_TEST(test_check_matrix_loop) {
        _cleanup_free_ char *same = NULL, *other = NULL, *err = NULL;
        struct stat st;

        ck_assert_msg(loop_dev[0], "no loop device could be attached (losetup on %s failed)", loop_img);
        if (access("/usr/sbin/mkfs.ext4", X_OK) < 0 && access("/sbin/mkfs.ext4", X_OK) < 0) {
                fprintf(stderr, "mkfs.ext4 is not installed; skipping\n");
                return;
        }
        ck_assert_int_eq(stat(loop_dev, &st), 0);
        ck_assert_int_ge(asprintf(&same, "%s/same-node", tmpdir), 0);
        ck_assert_int_ge(asprintf(&other, "%s/other-node", tmpdir), 0);
        ck_assert_msg(mknod(same, S_IFBLK | 0600, st.st_rdev) == 0, "mknod %s: %m", same);
        ck_assert_msg(mknod(other, S_IFBLK | 0600, makedev(7, 1000000)) == 0, "mknod %s: %m", other);

        const struct {
                const char *a, *b;
                int ret;
                const char *needle;
        } cases[] = {
                { loop_dev, NULL, 0, NULL },
                { loop_dev, other, 0, NULL },
                { loop_link, NULL, 0, NULL },
                { loop_dev, loop_link, -EINVAL, "list each device once" },
                { same, loop_dev, -EINVAL, "list each device once" },
                { other, tmpdir, -EINVAL, "is a directory, not a block device" },
        };
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                _cleanup_spec_ JobSpec s;
                _cleanup_free_ char *d = NULL, *want = NULL;
                const char *a[] = { "workload=write", "filesystems=ext4", "destructive=true", NULL };
                int r;

                free(err);
                err = NULL;
                spec_build(&s, a);
                ck_assert_int_ge(asprintf(&d, "devices=%s%s%s", cases[i].a, cases[i].b ? "," : "",
                                          cases[i].b ?: ""), 0);
                ck_assert_int_eq(spec_set_assignment(&s, d, NULL), 0);
                ck_assert_int_eq(spec_finalize(&s, NULL), 0);
                r = spec_check_matrix(&s, &err);
                ck_assert_msg(r == cases[i].ret, "case %zu (%s): r=%d (%s)", i, d, r, strna(err));
                if (r == 0)
                        continue;
                ck_assert_msg(strstr(err, cases[i].needle), "'%s' lacks '%s'", err, cases[i].needle);
                if (streq(cases[i].needle, "list each device once")) {
                        ck_assert_int_ge(asprintf(&want, "devices: %s and %s are the same device (%u:%u)", cases[i].a,
                                                  cases[i].b, major(st.st_rdev), minor(st.st_rdev)), 0);
                        ck_assert_msg(strstr(err, want), "'%s' lacks '%s'", err, want);
                }
        }
        unlink(same);
        unlink(other);
}
END_TEST

/* target_check_same(): which changes of a target between submit and start are refused. */
static const struct {
        TargetCheck then, now;
        int ret;
        const char *needle;
} same_cases[] = {
        { { .kind = TARGET_DIRECTORY, .dev = 0x801, .ino = 5 }, { .kind = TARGET_DIRECTORY, .dev = 0x801, .ino = 5 }, 0, NULL },
        { { .kind = TARGET_DIRECTORY, .dev = 0x801, .ino = 5 }, { .kind = TARGET_DIRECTORY, .dev = 0x801, .ino = 6 },
          -ESTALE, "the path was replaced" },
        { { .kind = TARGET_DIRECTORY, .dev = 0x801, .ino = 5 }, { .kind = TARGET_DIRECTORY, .dev = 0x802, .ino = 5 },
          -ESTALE, "another directory" },
        { { .kind = TARGET_DIRECTORY, .dev = 0x801, .ino = 5 }, { .kind = TARGET_BLOCK, .dev = 0x703 },
          -ESTALE, "was a directory when the job was submitted and is now a block device" },
        { { .kind = TARGET_FILE, .dev = 0x801, .ino = 9 }, { .kind = TARGET_FILE, .dev = 0x801, .ino = 10 },
          -ESTALE, "another file" },
        { { .kind = TARGET_BLOCK, .dev = 0x703, .diskseq = 40 }, { .kind = TARGET_BLOCK, .dev = 0x703, .diskseq = 40 }, 0, NULL },
        { { .kind = TARGET_BLOCK, .dev = 0x703, .diskseq = 40 }, { .kind = TARGET_BLOCK, .dev = 0x703, .diskseq = 41 },
          -ESTALE, "detached and something else attached" },
        { { .kind = TARGET_BLOCK, .dev = 0x703, .diskseq = 0 }, { .kind = TARGET_BLOCK, .dev = 0x703, .diskseq = 41 }, 0, NULL },
        { { .kind = TARGET_BLOCK, .dev = 0x703, .diskseq = 40 }, { .kind = TARGET_BLOCK, .dev = 0x704, .diskseq = 40 },
          -ESTALE, "7:3 when the job was submitted and is now 7:4" },
        { { .kind = TARGET_BLOCK, .dev = 0x703 }, { .kind = TARGET_FILE, .dev = 0x801, .ino = 3 },
          -ESTALE, "is now a regular file" },
};

START_TEST(test_check_same) {
        _cleanup_free_ char *err = NULL;
        int r = target_check_same("/t", &same_cases[_i].then, &same_cases[_i].now, &err);

        ck_assert_msg(r == same_cases[_i].ret, "case %d: r=%d (%s)", _i, r, strna(err));
        if (r < 0)
                ck_assert_msg(err && strstr(err, same_cases[_i].needle), "case %d: '%s' lacks '%s'", _i,
                              strna(err), same_cases[_i].needle);
}
END_TEST

START_TEST(test_check_identity) {
        _cleanup_spec_ JobSpec s;
        TargetCheck a, b;
        struct stat st;
        char t[PATH_MAX + 16], moved[PATH_MAX + 16];

        snprintf(t, sizeof(t), "target=%s", tmpdir);
        spec_init(&s);
        ck_assert_int_eq(spec_set_assignment(&s, t, NULL), 0);
        ck_assert_int_eq(spec_set_assignment(&s, "workload=write", NULL), 0);
        ck_assert_int_eq(spec_set_assignment(&s, "size=1M", NULL), 0);
        ck_assert_int_eq(spec_finalize(&s, NULL), 0);
        ck_assert_int_eq(spec_check_target(&s, &a, NULL), 0);
        ck_assert_int_eq(stat(tmpdir, &st), 0);
        ck_assert(a.dev == st.st_dev);
        ck_assert_uint_eq(a.ino, st.st_ino);
        ck_assert_uint_eq(a.diskseq, 0);

        /* The same path, now another directory: the check records the new inode, and the two differ. */
        snprintf(moved, sizeof(moved), "%s.moved", tmpdir);
        ck_assert_int_eq(rename(tmpdir, moved), 0);
        ck_assert_int_eq(mkdir(tmpdir, 0700), 0);
        ck_assert_int_eq(spec_check_target(&s, &b, NULL), 0);
        ck_assert_int_ne(target_check_same(tmpdir, &a, &b, NULL), 0);
        ck_assert_int_eq(rmdir(tmpdir), 0);
        ck_assert_int_eq(rename(moved, tmpdir), 0);
}
END_TEST

/* ---- spec_check_matrix ---- */

/* A directory laid out like / for the tool and kernel probes: what is installed and what the kernel
 * knows is what each case puts there. Each case gets its own, under one base directory that the
 * (unchecked, so always run) teardown removes whether or not the cases passed. */
static char fake_base[PATH_MAX], fake_root[PATH_MAX + 16];

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
        return remove(path) < 0 ? -errno : 0;
}

static void fake_base_setup(void) {
        snprintf(fake_base, sizeof(fake_base), "%s/test-spec-root-XXXXXX", check_tmpdir());
        ck_assert_ptr_nonnull(mkdtemp(fake_base));
}

static void fake_base_teardown(void) {
        /* FTW_PHYS: never follows a link out of the directory. */
        if (fake_base[0])
                (void) nftw(fake_base, rm_entry, 16, FTW_DEPTH | FTW_PHYS | FTW_MOUNT);
}

static void fake_root_setup(void) {
        static unsigned n;

        snprintf(fake_root, sizeof(fake_root), "%s/%u-%d", fake_base, n++, (int) getpid());
        ck_assert_int_eq(mkdir(fake_root, 0700), 0);
}

/* Creates root/path (and its directories) with content and mode. */
static void fake_file(const char *path, mode_t mode, const char *content) {
        _cleanup_free_ char *full = NULL;
        _cleanup_close_ int fd = -EBADF;

        ck_assert_int_ge(asprintf(&full, "%s/%s", fake_root, path), 0);
        for (char *p = strchr(full + strlen(fake_root) + 1, '/'); p; p = strchr(p + 1, '/')) {
                *p = 0;
                ck_assert_msg(mkdir(full, 0755) == 0 || errno == EEXIST, "mkdir %s: %m", full);
                *p = '/';
        }
        fd = open(full, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
        ck_assert_msg(fd >= 0, "%s: %m", full);
        ck_assert_int_eq(fchmod(fd, mode), 0);
        ck_assert_int_eq(write(fd, content, strlen(content)), (ssize_t) strlen(content));
}

#define EXE 0755
#define NOEXE 0644
#define MODULES "lib/modules/RELEASE/" /* replaced by this kernel's release */

static const struct {
        struct {
                const char *path;
                mode_t mode;
                const char *content;
        } files[6];
        const char *assignments[8];
        int ret;
        const char *needle;
} matrix_check_cases[] = {
        /* Past every probe: the devices are judged (here /dev/null, no block device). */
        { { { "usr/sbin/mkfs.ext4", EXE, "" }, { "proc/filesystems", NOEXE, "nodev\tproc\n\text4\n" } },
          { "filesystems=ext4", NULL }, -EINVAL, "devices: /dev/null is a character device, not a block device" },
        { { { "bin/mkfs.ext4", EXE, "" }, { "proc/filesystems", NOEXE, "\text4" } },
          { "filesystems=ext4", NULL }, -EINVAL, "not a block device" },
        { { { "sbin/mkfs.xfs", EXE, "" } }, { "filesystems=xfs", NULL }, -EINVAL, "not a block device" },
        { { { "usr/sbin/mkfs.xfs", NOEXE, "" } }, { "filesystems=xfs", NULL }, -EINVAL,
          "filesystems: mkfs.xfs is not installed (looked in /usr/sbin, /sbin, /usr/bin and /bin); install "
          "xfsprogs, or leave xfs out of filesystems" },
        { { { "usr/sbin/mkfs.ext4", EXE, "" } }, { "filesystems=ext4,btrfs", NULL }, -EINVAL, "install btrfs-progs" },
        { { { "usr/sbin/mkfs.ext4", EXE, "" } }, { "filesystems=ext3", NULL }, -EINVAL, "install e2fsprogs" },
        { { { "usr/sbin/mkfs.ext4", EXE, "" } }, { "filesystems=vfat", NULL }, -EINVAL, "install dosfstools" },
        { { {} }, { "filesystems=f2fs", NULL }, -EINVAL, "install f2fs-tools" },
        { { {} }, { "filesystems=nosuchfs", NULL }, -EINVAL,
          "filesystems: mkfs.nosuchfs is not installed (looked in /usr/sbin, /sbin, /usr/bin and /bin); install the "
          "package that provides mkfs.nosuchfs, or leave nosuchfs out of filesystems" },
        /* The kernel: listed, a module, an alias, ext4 for ext2/ext3; refused only when both sources
         * say no. */
        { { { "usr/sbin/mkfs.f2fs", EXE, "" }, { "proc/filesystems", NOEXE, "\text4\n\tf2fsx\n" },
            { MODULES "modules.dep", NOEXE, "kernel/fs/xfs/xfs.ko.zst: kernel/lib/libcrc32c.ko.zst\n" },
            { MODULES "modules.builtin", NOEXE, "kernel/fs/ext4/ext4.ko\n" } },
          { "filesystems=f2fs", NULL }, -EINVAL, "filesystems: the running kernel (" },
        { { { "usr/sbin/mkfs.f2fs", EXE, "" }, { "proc/filesystems", NOEXE, "\text4\n" },
            { MODULES "modules.dep", NOEXE, "kernel/fs/f2fs/f2fs.ko.zst: kernel/lib/lz4.ko\n" } },
          { "filesystems=f2fs", NULL }, -EINVAL, "not a block device" },
        { { { "usr/sbin/mkfs.vfat", EXE, "" }, { "proc/filesystems", NOEXE, "\text4\n" },
            { MODULES "modules.dep", NOEXE, "kernel/fs/fat/vfat.ko" } },
          { "filesystems=vfat", NULL }, -EINVAL, "not a block device" },
        { { { "usr/sbin/mkfs.ntfs", EXE, "" }, { "proc/filesystems", NOEXE, "\text4\n" },
            { MODULES "modules.dep", NOEXE, "kernel/fs/ntfs3/ntfs3.ko\n" },
            { MODULES "modules.alias", NOEXE, "alias fs-ntfs ntfs3\n" } },
          { "filesystems=ntfs", NULL }, -EINVAL, "not a block device" },
        { { { "usr/sbin/mkfs.ext3", EXE, "" }, { "proc/filesystems", NOEXE, "\text4\n" },
            { MODULES "modules.dep", NOEXE, "" } },
          { "filesystems=ext3", NULL }, -EINVAL, "not a block device" },
        { { { "usr/sbin/mkfs.ext2", EXE, "" }, { "proc/filesystems", NOEXE, "\txfs\n" },
            { MODULES "modules.dep", NOEXE, "" } },
          { "filesystems=ext2", NULL }, -EINVAL, "the running kernel (" },
        /* No module index to ask (a container): assumed. */
        { { { "usr/sbin/mkfs.f2fs", EXE, "" }, { "proc/filesystems", NOEXE, "\text4\n" } },
          { "filesystems=f2fs", NULL }, -EINVAL, "not a block device" },
        /* md and LVM: what is missing; when nothing is, the md layouts go on to the devices' checks,
         * and the LVM ones are "not yet". */
        { { { "usr/sbin/mkfs.ext4", EXE, "" } }, { "filesystems=ext4", "layout=md-raid1", NULL }, -EINVAL,
          "layout: md-raid1 needs the kernel's md RAID (/proc/mdstat absent, no module directory for this "
          "kernel); mdadm (not installed; Debian package mdadm): this machine cannot do it; use a kernel and "
          "packages with them, or layout=single or btrfs's raid1" },
        { { { "usr/sbin/mkfs.ext4", EXE, "" }, { "proc/mdstat", NOEXE, "Personalities :\n" } },
          { "filesystems=ext4", "layout=md-raid0", NULL }, -EINVAL,
          "layout: md-raid0 needs mdadm (not installed; Debian package mdadm): this machine cannot do it" },
        { { { "usr/sbin/mkfs.ext4", EXE, "" }, { "sbin/mdadm", EXE, "" } },
          { "filesystems=ext4", "layout=md-raid1", NULL }, -EINVAL,
          "needs the kernel's md RAID (/proc/mdstat absent, no module directory for this kernel): this machine" },
        { { { "usr/sbin/mkfs.ext4", EXE, "" }, { "sbin/mdadm", EXE, "" },
            { MODULES "modules.dep", NOEXE, "kernel/drivers/md/raid1.ko.xz: kernel/drivers/md/md-mod.ko.xz\n" } },
          { "filesystems=ext4", "layout=md-raid1", NULL }, -EINVAL,
          "needs the kernel's md RAID (/proc/mdstat absent, md_mod not loaded)" },
        { { { "usr/sbin/mkfs.ext4", EXE, "" }, { "sbin/mdadm", EXE, "" }, { "proc/mdstat", NOEXE, "" },
            { MODULES "modules.dep", NOEXE, "kernel/drivers/md/raid1.ko.xz: kernel/drivers/md/md-mod.ko.xz\n" } },
          { "filesystems=ext4", "layout=md-raid1", NULL }, -EINVAL, "not a block device" },
        { { { "usr/sbin/mkfs.ext4", EXE, "" }, { "sbin/mdadm", EXE, "" }, { "proc/mdstat", NOEXE, "" },
            { MODULES "modules.dep", NOEXE, "kernel/drivers/md/raid10.ko.xz: kernel/drivers/md/md-mod.ko.xz\n" } },
          { "filesystems=ext4", "layout=md-raid10", NULL }, -EINVAL, "not a block device" },
        { { { "usr/sbin/mkfs.ext4", EXE, "" }, { "sbin/mdadm", EXE, "" }, { "proc/mdstat", NOEXE, "" },
            { MODULES "modules.dep", NOEXE, "kernel/drivers/md/raid456.ko.xz: kernel/drivers/md/md-mod.ko.xz\n" } },
          { "filesystems=ext4", "layout=md-raid5", "devices=/dev/null,/dev/zero,/dev/full", NULL }, -EINVAL,
          "not a block device" },
        { { { "usr/sbin/mkfs.ext4", EXE, "" }, { "sbin/mdadm", EXE, "" }, { "proc/mdstat", NOEXE, "" },
            { MODULES "modules.dep", NOEXE, "kernel/drivers/md/raid1.ko.xz: kernel/drivers/md/md-mod.ko.xz\n" } },
          { "filesystems=ext4", "layout=md-raid5", "devices=/dev/null,/dev/zero,/dev/full", NULL }, -EINVAL,
          "layout: md-raid5 needs the kernel's RAID5 personality (module raid456 not in this kernel's modules)" },
        { { { "usr/sbin/mkfs.ext4", EXE, "" }, { "sbin/mdadm", EXE, "" }, { "proc/mdstat", NOEXE, "" } },
          { "filesystems=ext4", "layout=md-raid0", NULL }, -EINVAL, "not a block device" },
        { { { "usr/sbin/mkfs.ext4", EXE, "" } }, { "filesystems=ext4", "layout=lvm", NULL }, -EINVAL,
          "layout: lvm needs device-mapper (/dev/mapper/control absent: the kernel has no dm_mod); lvm (not "
          "installed; Debian package lvm2): this machine cannot do it; use a kernel and packages with them, or "
          "layout=single" },
        { { { "usr/sbin/mkfs.ext4", EXE, "" }, { "dev/mapper/control", NOEXE, "" } },
          { "filesystems=ext4", "layout=lvm", NULL }, -EINVAL, "layout: lvm needs lvm (not installed" },
        { { { "usr/sbin/mkfs.ext4", EXE, "" }, { "dev/mapper/control", NOEXE, "" }, { "usr/sbin/lvm", EXE, "" } },
          { "filesystems=ext4", "layout=lvm", NULL }, -EINVAL, "not a block device" },
        /* md-raid1+lvm needs both, and says all that is missing. */
        { { { "usr/sbin/mkfs.ext4", EXE, "" }, { "dev/mapper/control", NOEXE, "" }, { "usr/sbin/lvm", EXE, "" } },
          { "filesystems=ext4", "layout=md-raid1+lvm", NULL }, -EINVAL,
          "layout: md-raid1+lvm needs the kernel's md RAID (/proc/mdstat absent, no module directory for this "
          "kernel); mdadm (not installed; Debian package mdadm): this machine" },
        { { { "usr/sbin/mkfs.ext4", EXE, "" }, { "sbin/mdadm", EXE, "" }, { "proc/mdstat", NOEXE, "" } },
          { "filesystems=ext4", "layout=md-raid1+lvm", NULL }, -EINVAL,
          "layout: md-raid1+lvm needs device-mapper (/dev/mapper/control absent: the kernel has no dm_mod); lvm" },
        /* btrfs RAID needs nothing but btrfs. */
        { { { "usr/sbin/mkfs.btrfs", EXE, "" } }, { "filesystems=btrfs", "layout=raid1", NULL }, -EINVAL,
          "not a block device" },
};

START_TEST(test_check_matrix) {
        _cleanup_spec_ JobSpec s;
        _cleanup_free_ char *err = NULL;
        struct utsname u;
        int r;

        ck_assert_int_eq(uname(&u), 0);
        for (size_t i = 0; i < ELEMENTSOF(matrix_check_cases[_i].files) && matrix_check_cases[_i].files[i].path; i++) {
                const char *name = matrix_check_cases[_i].files[i].path, *m = strstr(name, "RELEASE/");
                _cleanup_free_ char *path = NULL;

                if (m)
                        ck_assert_int_ge(asprintf(&path, "lib/modules/%s/%s", u.release, m + strlen("RELEASE/")), 0);
                fake_file(path ?: name, matrix_check_cases[_i].files[i].mode, matrix_check_cases[_i].files[i].content);
        }

        spec_build(&s, matrix_check_cases[_i].assignments);
        ck_assert_int_eq(spec_set_assignment(&s, "workload=write", NULL), 0);
        ck_assert_int_eq(spec_set_assignment(&s, "destructive=true", NULL), 0);
        if (!s.devices)
                ck_assert_int_eq(spec_set_assignment(&s, s.layout == LAYOUT_SINGLE || s.layout == LAYOUT_LVM ||
                                                     s.layout < 0 ? "devices=/dev/null" :
                                                     "devices=/dev/null,/dev/zero", NULL), 0);
        ck_assert_msg(spec_finalize(&s, &err) == 0, "%s", strna(err));

        r = spec_check_matrix_root(&s, fake_root, &err);
        ck_assert_msg(r == matrix_check_cases[_i].ret, "case %d: r=%d (%s)", _i, r, strna(err));
        ck_assert_msg(strstr(err, matrix_check_cases[_i].needle), "case %d: '%s' lacks '%s'", _i, err,
                      matrix_check_cases[_i].needle);
        if (strstr(matrix_check_cases[_i].needle, "the running kernel"))
                ck_assert_msg(strstr(err, u.release) && strstr(err, "use a kernel with"), "%s", err);
}
END_TEST

/* This machine itself: no matrix, nothing to check; a filesystem nobody makes; devices that are
 * missing or no block devices. */
START_TEST(test_check_matrix_here) {
        _cleanup_spec_ JobSpec s;
        _cleanup_free_ char *err = NULL;
        const char *plain[] = { "target=/dev/null", "workload=read", NULL };
        const char *nosuch[] = { "filesystems=nosuchfs", "devices=/dev/null", "workload=write", "destructive=true",
                                 NULL };

        spec_build(&s, plain);
        ck_assert_int_eq(spec_finalize(&s, NULL), 0);
        ck_assert_int_eq(spec_check_matrix(&s, &err), 0);
        ck_assert_ptr_null(err);
        spec_clear(&s);

        spec_build(&s, nosuch);
        ck_assert_int_eq(spec_finalize(&s, NULL), 0);
        ck_assert_int_eq(spec_check_matrix(&s, &err), -EINVAL);
        ck_assert_msg(strstr(err, "mkfs.nosuchfs is not installed") &&
                      strstr(err, "the package that provides mkfs.nosuchfs"), "%s", err);

        if (access("/usr/sbin/mkfs.ext4", X_OK) < 0 && access("/sbin/mkfs.ext4", X_OK) < 0) {
                fprintf(stderr, "mkfs.ext4 is not installed; skipping the device cases\n");
                return;
        }
        static const struct {
                const char *devices, *needle;
        } cases[] = {
                { "devices=/dev/null", "devices: /dev/null is a character device, not a block device" },
                { "devices=/nonexistent/benchd-dev", "devices: /nonexistent/benchd-dev does not exist" },
                { "devices=/tmp", "devices: /tmp is a directory, not a block device" },
        };
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                free(err);
                err = NULL;
                spec_clear(&s);
                spec_build(&s, nosuch);
                ck_assert_int_eq(spec_set_assignment(&s, "filesystems=ext4", NULL), 0);
                ck_assert_int_eq(spec_set_assignment(&s, cases[i].devices, NULL), 0);
                ck_assert_int_eq(spec_finalize(&s, NULL), 0);
                ck_assert_int_eq(spec_check_matrix(&s, &err), -EINVAL);
                ck_assert_msg(strstr(err, cases[i].needle), "'%s' lacks '%s'", err, cases[i].needle);
        }
}
END_TEST

/* The cases that need root (mknod) or loop devices run as the test test-spec-root (--root), each
 * skipped with the reason where the machine lacks what it needs (check_run_cases()). */
static int spec_root_cases(void) {
        TCase *tcc = tcase_create("block-node"), *tcl = tcase_create("loop");

        tcase_add_unchecked_fixture(tcc, check_setup, check_teardown);
        tcase_add_test(tcc, test_check_block_node);

        tcase_add_unchecked_fixture(tcl, check_setup, check_teardown);
        tcase_add_unchecked_fixture(tcl, loop_setup, loop_teardown);
        tcase_add_loop_test(tcl, test_check_loop, 0, ELEMENTSOF(loop_cases));
        tcase_add_test(tcl, test_check_matrix_loop);

        return check_run_cases("spec-root", (const CheckCase[]) {
                { "block-node", tcc, check_missing_root },
                { "loop", tcl, check_missing_loop },
        }, 2);
}

static Suite *spec_suite(void) {
        Suite *s = suite_create("spec");
        TCase *tc, *tcc = tcase_create("check"), *tcm;

        tc = tcase_create("spec");
        tcase_add_loop_test(tc, test_parse_size, 0, ELEMENTSOF(size_cases));
        tcase_add_test(tc, test_names);
        tcase_add_loop_test(tc, test_defaults, 0, ELEMENTSOF(default_cases));
        tcase_add_test(tc, test_profile_no_workload_defaults);
        tcase_add_test(tc, test_position_defaults);
        tcase_add_test(tc, test_per_char_defaults);
        tcase_add_loop_test(tc, test_good_assignment, 0, ELEMENTSOF(good_cases));
        tcase_add_loop_test(tc, test_bad_typed, 0, ELEMENTSOF(bad_typed));
        tcase_add_test(tc, test_choices);
        tcase_add_test(tc, test_worker_text);
        tcase_add_test(tc, test_label_long);
        tcase_add_test(tc, test_fleet_keys);
        tcase_add_test(tc, test_typed_good);
        tcase_add_test(tc, test_map_value_long);
        tcase_add_test(tc, test_map_assignment);
        tcase_add_loop_test(tc, test_caller_text, 0, ELEMENTSOF(caller_text_cases));
        tcase_add_test(tc, test_caller_text_long);
        tcase_add_loop_test(tc, test_long_value_message, 0, ELEMENTSOF(long_value_keys));
        tcase_add_loop_test(tc, test_bad_finalize, 0, ELEMENTSOF(bad_final));
        tcase_add_test(tc, test_finalize_unaligned_buffered);
        tcase_add_loop_test(tc, test_finalize_buffers, 0, ELEMENTSOF(buffer_cases));
        tcase_add_loop_test(tc, test_bad_matrix, 0, ELEMENTSOF(bad_matrix));
        tcase_add_loop_test(tc, test_bad_md_lvm_options, 0, ELEMENTSOF(bad_md_lvm_options));
        tcase_add_test(tc, test_md_lvm_text);
        tcase_add_loop_test(tc, test_good_matrix, 0, ELEMENTSOF(good_matrix));
        tcase_add_test(tc, test_matrix_devices_bytes);
        tcase_add_test(tc, test_assignment_syntax);
        tcase_add_loop_test(tc, test_roundtrip, 0, ELEMENTSOF(roundtrip_cases));
        tcase_add_test(tc, test_text_form);
        tcase_add_test(tc, test_text_form_matrix);
        tcase_add_loop_test(tc, test_bad_json, 0, ELEMENTSOF(bad_json));
        tcase_add_test(tc, test_copy_apply);
        tcase_add_test(tc, test_copy_apply_matrix);
        suite_add_tcase(s, tc);

        tcase_add_unchecked_fixture(tcc, check_setup, check_teardown);
        tcase_add_loop_test(tcc, test_check_target, 0, ELEMENTSOF(check_cases));
        tcase_add_test(tcc, test_check_dirs_files);
        tcase_add_test(tcc, test_needed_bytes);
        tcase_add_loop_test(tcc, test_check_same, 0, ELEMENTSOF(same_cases));
        tcase_add_test(tcc, test_check_identity);
        tcase_add_test(tcc, test_check_long_target);
        tcase_add_loop_test(tcc, test_check_pseudo, 0, ELEMENTSOF(pseudo_cases));
        tcase_add_test(tcc, test_check_devtmpfs_tmpfs);
        tcase_add_test(tcc, test_check_matrix_here);
        suite_add_tcase(s, tcc);

        tcm = tcase_create("matrix");
        tcase_add_unchecked_fixture(tcm, fake_base_setup, fake_base_teardown);
        tcase_add_checked_fixture(tcm, fake_root_setup, NULL);
        tcase_add_loop_test(tcm, test_check_matrix, 0, ELEMENTSOF(matrix_check_cases));
        suite_add_tcase(s, tcm);
        return s;
}

int main(int argc, char **argv) {
        if (argc > 1 && streq(argv[1], "--root"))
                return spec_root_cases();
        return check_run(spec_suite());
}
