/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Tests of the plausibility rules (proto-plausible.c): one table per frame type, one row per rule,
 * each row a frame that breaks exactly that rule (and the message that must name it), next to rows
 * just inside the bound. The context of a row is the step's spec (as spec text), the clock and the
 * tally of what the worker said before.
 *
 * Rows start from a plausible frame and override single fields: designated initialisers given
 * twice, which is what -Woverride-init warns about, so it is off in this file.
 */
#pragma GCC diagnostic ignored "-Woverride-init"

#include <check.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "shared/histogram.h"
#include "check-util.h"
#include "shared/proto-plausible.h"
#include "shared/served.h"
#include "shared/spec.h"
#include "shared/util.h"

#define SPAWN_RT UINT64_C(1700000000000000)
#define I64MAX ((uint64_t) INT64_MAX)

/* Step specs, as the worker receives them (a target is added). */
#define SPEC_WRITE "workload=write\nsize=8M\nblock_size=32K"
#define SPEC_WRITE_TIMED "workload=write\nsize=8M\nblock_size=32K\nruntime_ms=600000"
#define SPEC_RANDWRITE_512 "workload=randwrite\nsize=8M\nblock_size=512\nruntime_ms=600000"
#define SPEC_READ "workload=read\nsize=8M\nblock_size=32K"
#define SPEC_SEEKS "workload=seeks\nsize=8M\nblock_size=4K"
#define SPEC_PING "workload=ping\nsize=8M\nblock_size=4K"
#define SPEC_META "workload=metadata\nfile_count=100\nfile_size_max=4K"
#define SPEC_META_HUGE "workload=metadata\nfile_count=16777216"
#define SPEC_POSITION "workload=position\nsize=1M\nblock_size=32K\npositions=8"
#define SPEC_POSITION_HUGE "workload=position\nsize=1T\nblock_size=1M"
#define SPEC_PUTC "workload=putc\nsize=2M"
#define SPEC_PUTC_TIMED "workload=putc\nsize=1M\nruntime_ms=600000"

static void limits_of(const char *text, ProtoLimits *ret) {
        _cleanup_free_ char *copy = strdup(text), *err = NULL;
        char *save = NULL;
        JobSpec s;

        spec_init(&s);
        ck_assert_int_eq(spec_set_assignment(&s, "target=/tmp", &err), 0);
        for (char *line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
                ck_assert_msg(spec_set_assignment(&s, line, &err) == 0, "%s: %s", line, strna(err));
        ck_assert_msg(spec_finalize(&s, &err) == 0, "%s", strna(err));
        ck_assert_int_eq(proto_limits_from_spec(&s, ret), 0);
        spec_clear(&s);
}

static ProtoClock clock_at(uint64_t elapsed_ms) {
        uint64_t e = (elapsed_ms ? elapsed_ms : 10000) * USEC_PER_MSEC;
        return (ProtoClock) { .elapsed_usec = e, .spawn_realtime_usec = SPAWN_RT, .now_realtime_usec = SPAWN_RT + e };
}

/* Checks rc and message of a row: want NULL means plausible. */
static void expect(const char *row, int r, char *err, const char *want) {
        if (!want) {
                ck_assert_msg(r == 0, "%s: refused: %s", row, strna(err));
                ck_assert_ptr_null(err);
                return;
        }
        ck_assert_msg(r == -ERANGE, "%s: accepted (r=%d), expected a message with \"%s\"", row, r, want);
        ck_assert_msg(err && strstr(err, want), "%s: message \"%s\" does not contain \"%s\"", row, strna(err), want);
}

/* ---- limits ---- */

static const struct {
        const char *spec;
        uint64_t bytes_max, ios_max, ops_max, inflight, io_bytes_max, phase_ops_max;
        bool reads, writes;
        ProtoOpsRule ops_rule;
} limit_cases[] = {
        { SPEC_WRITE, 8 << 20, 256, 0, 1, 32768, 0, false, true, PROTO_OPS_NONE },
        { SPEC_WRITE "\njobs=2\nqueue_depth=32", 16 << 20, 512, 0, 64, 32768, 0, false, true, PROTO_OPS_NONE },
        /* Buffered, size not a multiple of the block: the last I/O is a whole block. */
        { "workload=read\nsize=10000\nblock_size=4K\ndirect=false", 12288, 3, 0, 1, 4096, 0, true, false, PROTO_OPS_NONE },
        { "workload=randrw\nsize=8M\nblock_size=4K", 8 << 20, 2048, 0, 1, 4096, 0, true, true, PROTO_OPS_NONE },
        { SPEC_WRITE_TIMED, UINT64_MAX, UINT64_MAX, 0, 1, 32768, 0, false, true, PROTO_OPS_NONE },
        /* Seeks: bonnie++'s 8192 in all, however many streams share them. */
        { SPEC_SEEKS "\njobs=3", 8192 * 2 * 4096, 8192 * 2, 8192, 6, 4096, 0, true, true, PROTO_OPS_READS },
        { SPEC_SEEKS "\nruntime_ms=5000", UINT64_MAX, UINT64_MAX, UINT64_MAX, 2, 4096, 0, true, true, PROTO_OPS_READS },
        /* Ping and metadata are one stream whatever jobs says. */
        { SPEC_PING "\njobs=4", 10 * 4096, 10, 10, 1, 4096, 0, true, false, PROTO_OPS_READS },
        { SPEC_META "\njobs=4", 400 * 4096, 400, 600, 1, 4096, 100, true, true, PROTO_OPS_COVER },
        /* Position: positions × size in whole blocks, one stream at its queue depth. */
        { SPEC_POSITION, 8 << 20, 256, 0, 1, 32768, 0, true, false, PROTO_OPS_NONE },
        { SPEC_POSITION "\nqueue_depth=4\nsize=100000\ndirect=false", 8 * 131072, 8 * 4, 0, 4, 32768, 0, true, false, PROTO_OPS_NONE },
        /* putc and getc: every character an I/O of one byte, size of them per stream. */
        { "workload=putc\nsize=10000", 10000, 10000, 0, 1, 1, 0, false, true, PROTO_OPS_NONE },
        { "workload=getc\nsize=1M\njobs=2", 2 << 20, 2 << 20, 0, 2, 1, 0, true, false, PROTO_OPS_NONE },
};

START_TEST(test_limits) {
        ProtoLimits l;

        limits_of(limit_cases[_i].spec, &l);
        ck_assert_uint_eq(l.bytes_max, limit_cases[_i].bytes_max);
        ck_assert_uint_eq(l.ios_max, limit_cases[_i].ios_max);
        ck_assert_uint_eq(l.ops_max, limit_cases[_i].ops_max);
        ck_assert_uint_eq(l.inflight_ios, limit_cases[_i].inflight);
        ck_assert_uint_eq(l.io_bytes_max, limit_cases[_i].io_bytes_max);
        ck_assert_uint_eq(l.phase_ops_max, limit_cases[_i].phase_ops_max);
        ck_assert_int_eq(l.reads, limit_cases[_i].reads);
        ck_assert_int_eq(l.writes, limit_cases[_i].writes);
        ck_assert_int_eq(l.ops_rule, limit_cases[_i].ops_rule);
        ck_assert_int_eq(l.per_char, !!strstr(limit_cases[_i].spec, "workload=putc") ||
                                     !!strstr(limit_cases[_i].spec, "workload=getc"));
        /* Only position steps send POSITION_RESULTs, positions of them, of at most size bytes. */
        if (strstr(limit_cases[_i].spec, "workload=position")) {
                ck_assert_uint_eq(l.positions, 8);
                ck_assert_uint_eq(l.position_bytes_max, strstr(limit_cases[_i].spec, "size=100000") ? 100000 : 1 << 20);
        } else
                ck_assert_uint_eq(l.positions, 0);
        ck_assert_uint_eq(l.device_bytes, 0);
}
END_TEST

START_TEST(test_limits_invalid) {
        JobSpec s;
        ProtoLimits l;

        spec_init(&s);  /* no workload */
        ck_assert_int_eq(proto_limits_from_spec(&s, &l), -EINVAL);
        spec_clear(&s);
}
END_TEST

/* ---- PHASE ---- */

static const struct {
        const char *phases;     /* comma-separated; the last one is judged */
        const char *want;
} phase_cases[] = {
        { "layout,measure,cleanup", NULL },
        { "layout,ramp,measure,cleanup", NULL },
        { "measure", NULL },
        { "layout,cleanup", NULL },
        { "measure,ramp", "PHASE ramp after measure" },
        { "measure,measure", "PHASE measure after measure" },
        { "cleanup,layout", "PHASE layout after cleanup" },
        { "warmup", "PHASE names none of layout, ramp, ready, measure, cleanup" },
        { "", "PHASE names none of" },
        { "layout,ready", "PHASE ready from a step that is no fleet step" },
};

/* A fleet step (fleet_uuid): ready comes after layout and ramp and before measure, and measure only
 * after it. */
static const struct {
        const char *phases;
        const char *want;
} fleet_phase_cases[] = {
        { "layout,ready,measure,cleanup", NULL },
        { "layout,ramp,ready,measure,cleanup", NULL },
        { "ready,measure", NULL },
        { "layout,cleanup", NULL },
        { "layout,measure", "PHASE measure of a fleet step before PHASE ready" },
        { "layout,ramp,measure", "PHASE measure of a fleet step before PHASE ready" },
        { "layout,ready,ramp", "PHASE ramp after ready" },
        { "layout,ready,measure,ready", "PHASE ready after measure" },
};

START_TEST(test_phase) {
        _cleanup_free_ char *copy = strdup(phase_cases[_i].phases), *err = NULL;
        char *save = NULL, *p, *next;
        ProtoTally t;
        int r = 0;

        proto_tally_init(&t);
        p = strtok_r(copy, ",", &save);
        if (!p) {
                r = proto_phase_plausible(&t, "", &err);
                expect(phase_cases[_i].phases, r, err, phase_cases[_i].want);
                return;
        }
        for (; p; p = next) {
                next = strtok_r(NULL, ",", &save);
                r = proto_phase_plausible(&t, p, next ? NULL : &err);
                if (next)
                        ck_assert_int_eq(r, 0);
        }
        expect(phase_cases[_i].phases, r, err, phase_cases[_i].want);
}
END_TEST

START_TEST(test_fleet_phase) {
        _cleanup_free_ char *copy = strdup(fleet_phase_cases[_i].phases), *err = NULL;
        char *save = NULL, *p, *next;
        ProtoTally t;
        int r = 0;

        proto_tally_init(&t);
        t.fleet = true;
        for (p = strtok_r(copy, ",", &save); p; p = next) {
                next = strtok_r(NULL, ",", &save);
                r = proto_phase_plausible(&t, p, next ? NULL : &err);
                if (next)
                        ck_assert_int_eq(r, 0);
        }
        expect(fleet_phase_cases[_i].phases, r, err, fleet_phase_cases[_i].want);
}
END_TEST

/* ---- FS_INFO ---- */

/* A 1 GiB ext4 that mkfs made in 1.5 s. */
#define FS_INFO_OK .fs_type = (char *) "ext4", .uuid = (char *) "0b6a1d4c-3c1e-4a55-9a3e-1f2d3c4b5a69", \
        .mkfs_command = (char *) "mkfs.ext4 -b 4096 /dev/loop3", .mkfs_usec = 1500000, \
        .mkfs_output = (char *) "Creating filesystem\n\tdone\n", .mount_options = (char *) "rw,nosuid,nodev,relatime", \
        .size_bytes = UINT64_C(1) << 30, .used_bytes = 24 << 20, .avail_bytes = 900 << 20, .inodes = 65536, \
        .inodes_free = 65525
#define FS_UUID "0b6a1d4c-3c1e-4a55-9a3e-1f2d3c4b5a69"
/* The same filesystem mounted again by a later step. */
#define FS_INFO_MOUNT FS_INFO_OK, .mkfs_command = (char *) "", .mkfs_usec = 0, .mkfs_output = (char *) ""

enum { FS_NONE, FS_MAKE, FS_MOUNT };

/* FS_INFO's commands (version 2): sfdisk and mkfs as run, and one that took longer than the worker ran. */
static ProtoFsCommand fs_commands_ok[] = {
        { .command = (char *) "sfdisk --no-reread --no-tell-kernel /dev/loop3", .usec = 200000, .output = (char *) "" },
        { .command = (char *) "mkfs.ext4 -b 4096 /dev/loop3p1", .usec = 1500000, .output = (char *) "done\n" },
};
static ProtoFsCommand fs_commands_long[] = {
        { .command = (char *) "e2fsck -fyD /dev/loop3", .usec = 12 * USEC_PER_SEC, .status = 1, .output = (char *) "" },
};

static const struct {
        const char *row;
        int setup;              /* FS_NONE: no FS_SETUP was sent */
        const char *before;     /* frames before it: "F" an FS_INFO that passed, "P" PHASE layout */
        ProtoFsInfo info;
        uint64_t elapsed_ms;
        const char *want;
} fs_info_cases[] = {
        { "made", FS_MAKE, "", { FS_INFO_OK }, 0, NULL },
        { "mounted", FS_MOUNT, "", { FS_INFO_MOUNT }, 0, NULL },
        { "full and no inodes left", FS_MAKE, "", { FS_INFO_OK, .used_bytes = UINT64_C(1) << 30,
          .avail_bytes = 0, .inodes_free = 65536 }, 0, NULL },
        { "without FS_SETUP", FS_NONE, "", { FS_INFO_OK }, 0, "FS_INFO from a step that was sent no FS_SETUP" },
        { "twice", FS_MAKE, "F", { FS_INFO_OK }, 0, "FS_INFO sent twice" },
        { "again after a PHASE", FS_MAKE, "FP", { FS_INFO_OK }, 0, "FS_INFO sent twice" },
        { "another fs_type", FS_MAKE, "", { FS_INFO_OK, .fs_type = (char *) "xfs" }, 0,
          "FS_INFO fs_type=xfs, but FS_SETUP asked for ext4" },
        { "used > size", FS_MAKE, "", { FS_INFO_OK, .used_bytes = (UINT64_C(1) << 30) + 1 }, 0,
          "must each be at most size_bytes=1073741824" },
        { "avail > size", FS_MAKE, "", { FS_INFO_OK, .avail_bytes = (UINT64_C(1) << 30) + 1 }, 0,
          "must each be at most size_bytes" },
        { "inodes_free > inodes", FS_MAKE, "", { FS_INFO_OK, .inodes_free = 65537 }, 0,
          "FS_INFO inodes_free=65537 is more than inodes=65536" },
        { "size beyond INT64_MAX", FS_MAKE, "", { FS_INFO_OK, .size_bytes = I64MAX + 1 }, 0,
          "FS_INFO size_bytes=9223372036854775808 is above" },
        { "MAKE without a UUID", FS_MAKE, "", { FS_INFO_OK, .uuid = (char *) "" }, 0,
          "FS_INFO without a UUID" },
        { "MAKE by another program", FS_MAKE, "", { FS_INFO_OK, .mkfs_command = (char *) "mkfs.ext4x /dev/loop3" }, 0,
          "FS_INFO mkfs_command does not run mkfs.ext4" },
        { "MAKE with no command", FS_MAKE, "", { FS_INFO_OK, .mkfs_command = (char *) "" }, 0,
          "does not run mkfs.ext4" },
        { "mkfs longer than the worker ran", FS_MAKE, "", { FS_INFO_OK, .mkfs_usec = 12 * USEC_PER_SEC }, 10000,
          "FS_INFO mkfs_usec=12000000 is longer than the worker has run (10000000 us)" },
        { "mkfs just inside the clock", FS_MAKE, "", { FS_INFO_OK, .mkfs_usec = 11 * USEC_PER_SEC }, 10000, NULL },
        { "MOUNT of another UUID", FS_MOUNT, "", { FS_INFO_MOUNT, .uuid = (char *) "1b6a1d4c" }, 0,
          "FS_INFO uuid=1b6a1d4c, but FS_SETUP asked to mount the filesystem " FS_UUID },
        { "MOUNT with a mkfs run", FS_MOUNT, "", { FS_INFO_MOUNT, .mkfs_usec = 5 }, 0,
          "FS_INFO reports a mkfs run for a step that only mounts" },
        { "MOUNT with mkfs output", FS_MOUNT, "", { FS_INFO_MOUNT, .mkfs_output = (char *) "x" }, 0,
          "a mkfs run for a step that only mounts" },
        { "MAKE with its commands", FS_MAKE, "", { FS_INFO_OK, .n_commands = 2, .commands = fs_commands_ok }, 0, NULL },
        { "a command longer than the worker ran", FS_MAKE, "",
          { FS_INFO_OK, .n_commands = 1, .commands = fs_commands_long }, 10000,
          "FS_INFO command 0 took 12000000 us, longer than the worker has run (10000000 us)" },
        { "MOUNT with commands", FS_MOUNT, "", { FS_INFO_MOUNT, .n_commands = 2, .commands = fs_commands_ok }, 0,
          "a mkfs run for a step that only mounts" },
};

START_TEST(test_fs_info) {
        ProtoFsMember member = { .path = (char *) "/dev/loop3", .dev = 0x703 };
        ProtoFsSetup setup = { .stage = fs_info_cases[_i].setup == FS_MOUNT ? PROTO_FS_STAGE_MOUNT :
                                                                              PROTO_FS_STAGE_MAKE,
                               .fs_type = (char *) "ext4", .layout = (char *) "single", .mkfs_options = (char *) "",
                               .mount_options = (char *) "",
                               .expect_uuid = (char *) (fs_info_cases[_i].setup == FS_MOUNT ? FS_UUID : ""),
                               .n_members = 1, .members = &member };
        ProtoClock c = clock_at(fs_info_cases[_i].elapsed_ms);
        _cleanup_free_ char *err = NULL;
        ProtoTally t;
        int r;

        ck_assert(proto_fs_setup_valid(&setup));
        proto_tally_init(&t);
        if (fs_info_cases[_i].setup != FS_NONE)
                proto_tally_expect_fs(&t, &setup);
        for (const char *b = fs_info_cases[_i].before; *b; b++) {
                if (*b == 'F')
                        ck_assert_int_eq(proto_fs_info_plausible(&t, &fs_info_cases[_i].info, &c, NULL), 0);
                else
                        ck_assert_int_eq(proto_phase_plausible(&t, "layout", NULL), 0);
        }
        ck_assert(proto_fs_info_valid(&fs_info_cases[_i].info));
        r = proto_fs_info_plausible(&t, &fs_info_cases[_i].info, &c, &err);
        expect(fs_info_cases[_i].row, r, err, fs_info_cases[_i].want);
        ck_assert_int_eq(t.fs_info, fs_info_cases[_i].want == NULL || strchr(fs_info_cases[_i].before, 'F'));
}
END_TEST

/* An md layout's array: reported only under an md setup, its resync within the worker's run. */
START_TEST(test_fs_info_md) {
        ProtoFsMember members[2] = { { .path = (char *) "/dev/loop3", .dev = 0x703 },
                                     { .path = (char *) "/dev/loop4", .dev = 0x704 } };
        ProtoFsSetup md = { .stage = PROTO_FS_STAGE_MAKE, .fs_type = (char *) "ext4", .layout = (char *) "md-raid1",
                            .mkfs_options = (char *) "", .mount_options = (char *) "", .expect_uuid = (char *) "",
                            .n_members = 2, .members = members, .md_name = (char *) "benchd-3-0" },
                      single = md;
        ProtoFsInfo info = { FS_INFO_OK, .layout_commands = (char *) "[]", .md_chunk_bytes = 0,
                             .md_resync_usec = 5 * USEC_PER_SEC };
        ProtoClock c = clock_at(10000);
        _cleanup_free_ char *err = NULL, *err2 = NULL;
        ProtoTally t;
        int r;

        single.layout = (char *) "single";
        single.n_members = 1;
        single.md_name = NULL;
        ck_assert(proto_fs_setup_valid(&md) && proto_fs_setup_valid(&single));
        proto_tally_init(&t);
        proto_tally_expect_fs(&t, &md);
        ck_assert_int_eq(proto_fs_info_plausible(&t, &info, &c, NULL), 0);
        proto_tally_init(&t);
        proto_tally_expect_fs(&t, &single);
        r = proto_fs_info_plausible(&t, &info, &c, &err);
        expect("an array under layout single", r, err, "FS_INFO reports an md array, but FS_SETUP asked for no md layout");
        info.md_resync_usec = 12 * USEC_PER_SEC;
        proto_tally_init(&t);
        proto_tally_expect_fs(&t, &md);
        r = proto_fs_info_plausible(&t, &info, &c, &err2);
        expect("resync longer than the run", r, err2, "FS_INFO md_resync_usec=12000000 is longer than the worker has run");
}
END_TEST

/* A logical volume only under an LVM layout; its extents and bytes together. */
START_TEST(test_fs_info_lvm) {
        ProtoFsMember members[2] = { { .path = (char *) "/dev/loop3", .dev = 0x703 },
                                     { .path = (char *) "/dev/loop4", .dev = 0x704 } };
        ProtoFsSetup lvm = { .stage = PROTO_FS_STAGE_MAKE, .fs_type = (char *) "ext4", .layout = (char *) "lvm",
                             .mkfs_options = (char *) "", .mount_options = (char *) "", .expect_uuid = (char *) "",
                             .n_members = 2, .members = members, .md_name = (char *) "benchd-3-0",
                             .lv_size = UINT64_C(8) << 20, .layout_flags = PROTO_FS_LAYOUT_REMOVE },
                      single = lvm;
        ProtoFsInfo info = { FS_INFO_OK, .layout_commands = (char *) "[]", .lv_extents = 2,
                             .lv_bytes = UINT64_C(8) << 20 };
        ProtoClock c = clock_at(10000);
        _cleanup_free_ char *err = NULL, *err2 = NULL, *err3 = NULL;
        ProtoTally t;
        int r;

        single.layout = (char *) "single";
        single.n_members = 1;
        single.md_name = NULL;
        single.lv_size = 0;
        single.layout_flags = 0;
        ck_assert(proto_fs_setup_valid(&lvm) && proto_fs_setup_valid(&single));
        /* LVM's fields under another layout are not a valid setup. */
        single.layout_flags = PROTO_FS_LAYOUT_REMOVE;
        ck_assert(!proto_fs_setup_valid(&single));
        single.layout_flags = 0;
        proto_tally_init(&t);
        proto_tally_expect_fs(&t, &lvm);
        ck_assert_int_eq(proto_fs_info_plausible(&t, &info, &c, NULL), 0);
        proto_tally_init(&t);
        proto_tally_expect_fs(&t, &single);
        r = proto_fs_info_plausible(&t, &info, &c, &err);
        expect("a volume under layout single", r, err, "FS_INFO reports a logical volume, but FS_SETUP asked for no LVM");
        info.lv_extents = 0;
        proto_tally_init(&t);
        proto_tally_expect_fs(&t, &lvm);
        r = proto_fs_info_plausible(&t, &info, &c, &err2);
        expect("bytes without extents", r, err2, "FS_INFO lv_extents=0 and lv_bytes=8388608 do not describe");
        info.lv_extents = 2;
        info.md_resync_usec = 1;
        proto_tally_init(&t);
        proto_tally_expect_fs(&t, &lvm);
        r = proto_fs_info_plausible(&t, &info, &c, &err3);
        expect("an array under plain lvm", r, err3, "FS_INFO reports an md array");
}
END_TEST

/* In a filesystem step nothing of the step comes before its FS_INFO. */
START_TEST(test_fs_phase_order) {
        ProtoFsMember member = { .path = (char *) "/dev/loop3", .dev = 0x703 };
        ProtoFsSetup setup = { .stage = PROTO_FS_STAGE_MAKE, .fs_type = (char *) "ext4", .layout = (char *) "single",
                               .mkfs_options = (char *) "", .mount_options = (char *) "", .expect_uuid = (char *) "",
                               .n_members = 1, .members = &member };
        ProtoFsInfo info = { FS_INFO_OK };
        ProtoClock c = clock_at(0);
        _cleanup_free_ char *err = NULL;
        ProtoTally t;
        int r;

        proto_tally_init(&t);
        proto_tally_expect_fs(&t, &setup);
        r = proto_phase_plausible(&t, "measure", &err);
        expect("measure before FS_INFO", r, err, "PHASE measure before FS_INFO");
        ck_assert_int_eq(t.stage, PROTO_STAGE_NONE);
        ck_assert_int_eq(proto_fs_info_plausible(&t, &info, &c, NULL), 0);
        ck_assert_int_eq(proto_phase_plausible(&t, "layout", NULL), 0);
        ck_assert_int_eq(proto_phase_plausible(&t, "measure", NULL), 0);
}
END_TEST

/* ---- SAMPLE ---- */

/* 4 MiB written in 128 I/Os of 32 KiB in the first second, of an 8 MiB write step. */
#define SAMPLE_OK .t_ms = 1000, .interval_us = 1000000, .bytes_written = 4 << 20, .ios_written = 128, \
        .lat_mean_ns = 50000, .lat_p50_ns = 40000, .lat_p99_ns = 90000, .lat_max_ns = 120000, \
        .iowait_pct = 12.5, .cpu_user_pct = 1.5, .cpu_sys_pct = 3.25, .dev_util_pct = -1, .dev_queue = -1, \
        .progress = 0.5

static const struct {
        const char *name;
        const char *spec;
        ProtoSample s;
        ProtoTally tally;       /* stage MEASURE unless raw_stage */
        bool raw_stage;
        uint64_t elapsed_ms;    /* 0: 10 s */
        const char *want;
} sample_cases[] = {
        { "plausible", SPEC_WRITE, { SAMPLE_OK }, {}, false, 0, NULL },
        { "no data in an interval", SPEC_WRITE, { SAMPLE_OK, .bytes_written = 0, .ios_written = 0, .lat_mean_ns = 0,
          .lat_p50_ns = 0, .lat_p99_ns = 0, .lat_max_ns = 0 }, {}, false, 0, NULL },
        { "randrw both ways", "workload=randrw\nsize=8M\nblock_size=4K",
          { SAMPLE_OK, .bytes_read = 4096, .ios_read = 1, .bytes_written = 8192, .ios_written = 2 }, {}, false, 0, NULL },
        { "seeks", SPEC_SEEKS, { SAMPLE_OK, .bytes_read = 40960, .ios_read = 10, .ops = 10, .bytes_written = 4096,
          .ios_written = 1 }, {}, false, 0, NULL },
        { "seeks: a write-back can land in the next interval", SPEC_SEEKS,
          { SAMPLE_OK, .bytes_read = 0, .ios_read = 0, .ops = 0, .bytes_written = 4096, .ios_written = 1,
            .lat_mean_ns = 0, .lat_p50_ns = 0, .lat_p99_ns = 0, .lat_max_ns = 0 }, {}, false, 0, NULL },
        { "metadata", SPEC_META, { SAMPLE_OK, .bytes_read = 4096, .ios_read = 1, .bytes_written = 0,
          .ios_written = 0, .ops = 50 }, {}, false, 0, NULL },
        { "ping", SPEC_PING, { SAMPLE_OK, .bytes_read = 4096, .ios_read = 1, .ops = 1, .bytes_written = 0,
          .ios_written = 0 }, {}, false, 0, NULL },

        /* Numbers the database cannot hold. */
        { "t_ms above INT64_MAX", SPEC_WRITE, { SAMPLE_OK, .t_ms = I64MAX + 1 }, {}, false, 0,
          "SAMPLE t_ms=9223372036854775808 is above 9223372036854775807" },
        { "bytes_written above INT64_MAX", SPEC_WRITE_TIMED, { SAMPLE_OK, .bytes_written = UINT64_MAX }, {}, false, 0,
          "SAMPLE bytes_written=18446744073709551615 is above" },
        { "ios_read above INT64_MAX", SPEC_WRITE, { SAMPLE_OK, .ios_read = I64MAX + 1 }, {}, false, 0,
          "SAMPLE ios_read=9223372036854775808 is above" },
        { "lat_max_ns above INT64_MAX", SPEC_WRITE, { SAMPLE_OK, .lat_max_ns = I64MAX + 1 }, {}, false, 0,
          "SAMPLE lat_max_ns=9223372036854775808 is above" },

        /* When. */
        { "before the measure phase", SPEC_WRITE, { SAMPLE_OK }, { .stage = PROTO_STAGE_RAMP }, true, 0,
          "SAMPLE outside the measure phase" },
        { "after cleanup", SPEC_WRITE, { SAMPLE_OK }, { .stage = PROTO_STAGE_CLEANUP }, true, 0,
          "SAMPLE outside the measure phase" },
        { "t_ms not after the previous", SPEC_WRITE, { SAMPLE_OK }, { .n_samples = 1, .last_t_ms = 1000 }, false, 0,
          "SAMPLE t_ms=1000 not after the previous 1000" },
        { "t_ms at the clock's slack", SPEC_WRITE, { SAMPLE_OK, .t_ms = 11000 }, {}, false, 10000, NULL },
        { "t_ms beyond the clock", SPEC_WRITE, { SAMPLE_OK, .t_ms = 11001 }, {}, false, 10000,
          "SAMPLE t_ms=11001 is later than the 10000 ms since the worker was started" },
        { "17 samples in 100 ms", SPEC_WRITE, { SAMPLE_OK, .t_ms = 50, .interval_us = 40000 },
          { .n_samples = 16, .last_t_ms = 10 }, false, 100, NULL },
        { "18 samples in 100 ms", SPEC_WRITE, { SAMPLE_OK, .t_ms = 50, .interval_us = 40000 },
          { .n_samples = 17, .last_t_ms = 10 }, false, 100, "SAMPLE frames faster than one per 100 ms (18 in 100 ms)" },
        { "interval at its bound", SPEC_WRITE, { SAMPLE_OK, .interval_us = 1001000 }, {}, false, 0, NULL },
        { "interval longer than since the previous", SPEC_WRITE, { SAMPLE_OK, .t_ms = 1500, .interval_us = 1001001 },
          { .n_samples = 1, .last_t_ms = 500 }, false, 0,
          "SAMPLE interval_us=1001001 is longer than the 1000 ms since the previous sample" },

        /* What. */
        { "a write step reads", SPEC_WRITE, { SAMPLE_OK, .bytes_read = 4096, .ios_read = 1 }, {}, false, 0,
          "SAMPLE reports 4096 bytes read in 1 I/Os, but a write step does not read in its measured phase" },
        { "a read step writes", SPEC_READ, { SAMPLE_OK }, {}, false, 0,
          "SAMPLE reports 4194304 bytes written in 128 I/Os, but a read step does not write" },
        { "a ping step writes", SPEC_PING, { SAMPLE_OK, .bytes_written = 4096, .ios_written = 1 }, {}, false, 0,
          "but a ping step does not write" },
        { "more bytes than its I/Os carry", SPEC_WRITE, { SAMPLE_OK, .ios_written = 127 }, {}, false, 0,
          "SAMPLE bytes_written=4194304 in ios_written=127: every I/O of this step moves 1 to 32768 bytes" },
        { "I/Os that moved nothing", SPEC_WRITE, { SAMPLE_OK, .bytes_written = 4, .ios_written = 5 }, {}, false, 0,
          "SAMPLE bytes_written=4 in ios_written=5" },
        { "metadata files larger than file_size_max", SPEC_META,
          { SAMPLE_OK, .bytes_written = 8192, .ios_written = 1, .ops = 1 }, {}, false, 0,
          "every I/O of this step moves 1 to 4096 bytes" },
        { "operations in a data step", SPEC_WRITE, { SAMPLE_OK, .ops = 1 }, {}, false, 0,
          "SAMPLE ops=1 from a write step, which counts I/Os, not operations" },
        { "a seek that is not a read", SPEC_SEEKS, { SAMPLE_OK, .bytes_read = 40960, .ios_read = 10, .ops = 11,
          .bytes_written = 0, .ios_written = 0 }, {}, false, 0, "SAMPLE ops=11 but ios_read=10; each seeks operation" },
        { "metadata I/Os without operations", SPEC_META, { SAMPLE_OK, .bytes_read = 4096, .ios_read = 1,
          .bytes_written = 4096, .ios_written = 1, .ops = 1 }, {}, false, 0, "SAMPLE counts 2 I/Os in only 1 operations" },
        { "1 TB/s", SPEC_WRITE_TIMED, { SAMPLE_OK, .bytes_written = UINT64_C(30517578) * 32768,
          .ios_written = UINT64_C(30517578) }, {}, false, 0, NULL },
        { "2 TB/s", SPEC_WRITE_TIMED, { SAMPLE_OK, .bytes_written = UINT64_C(61035157) * 32768,
          .ios_written = UINT64_C(61035157) }, {}, false, 0,
          "SAMPLE moved 2000000024576 bytes in 1000000 us, faster than the ceiling of 1000000000000 bytes/s" },
        { "200 M IOPS", SPEC_RANDWRITE_512, { SAMPLE_OK, .bytes_written = UINT64_C(200000000) * 512,
          .ios_written = UINT64_C(200000000) }, {}, false, 0,
          "SAMPLE did 200000000 I/Os in 1000000 us, faster than the ceiling of 100000000 I/Os a second" },
        /* A character is an I/O of one byte: only the bytes' ceiling holds (glibc's putc() does
         * some 450 M a second). */
        { "putc: 450 M characters a second", SPEC_PUTC_TIMED, { SAMPLE_OK, .bytes_written = UINT64_C(450000000),
          .ios_written = UINT64_C(450000000) }, {}, false, 0, NULL },
        { "putc: a character of two bytes", SPEC_PUTC_TIMED, { SAMPLE_OK, .bytes_written = 8192, .ios_written = 4096 },
          {}, false, 0, "SAMPLE bytes_written=8192 in ios_written=4096: every I/O of this step moves 1 to 1 bytes" },
        { "putc: 2 T characters a second", SPEC_PUTC_TIMED, { SAMPLE_OK, .bytes_written = UINT64_C(2000000000000),
          .ios_written = UINT64_C(2000000000000) }, {}, false, 0,
          "SAMPLE moved 2000000000000 bytes in 1000000 us, faster than the ceiling" },
        { "200 M operations a second", SPEC_SEEKS "\nruntime_ms=600000", { SAMPLE_OK,
          .bytes_read = UINT64_C(200000000) * 4096, .ios_read = UINT64_C(200000000), .ops = UINT64_C(200000000),
          .bytes_written = 0, .ios_written = 0 }, {}, false, 0, "SAMPLE did 200000000 I/Os in 1000000 us" },

        /* Latencies. */
        { "latencies without I/O", SPEC_WRITE, { SAMPLE_OK, .bytes_written = 0, .ios_written = 0 }, {}, false, 0,
          "SAMPLE has latencies (mean 50000, max 120000 ns) but no I/Os" },
        { "seeks: latencies are the operations'", SPEC_SEEKS, { SAMPLE_OK, .bytes_read = 0, .ios_read = 0, .ops = 0,
          .bytes_written = 4096, .ios_written = 1 }, {}, false, 0, "but no operations" },
        { "mean above max", SPEC_WRITE, { SAMPLE_OK, .lat_mean_ns = 120001 }, {}, false, 0,
          "SAMPLE latencies out of order: p50 40000, p99 90000, mean 120001, max 120000 ns" },
        { "p99 above max", SPEC_WRITE, { SAMPLE_OK, .lat_p99_ns = 130000 }, {}, false, 0, "SAMPLE latencies out of order" },
        { "a latency as long as the worker ran", SPEC_WRITE, { SAMPLE_OK, .lat_max_ns = UINT64_C(11000000000) },
          {}, false, 10000, NULL },
        { "a latency longer than the worker ran", SPEC_WRITE, { SAMPLE_OK, .lat_max_ns = UINT64_C(11000000001) },
          {}, false, 10000, "SAMPLE lat_max_ns=11000000001 is longer than the worker has run (10000 ms)" },

        /* Percentages and the rest. */
        { "iowait NaN", SPEC_WRITE, { SAMPLE_OK, .iowait_pct = NAN }, {}, false, 0,
          "SAMPLE iowait_pct=nan is not a percentage" },
        { "cpu_user infinite", SPEC_WRITE, { SAMPLE_OK, .cpu_user_pct = INFINITY }, {}, false, 0,
          "SAMPLE cpu_user_pct=inf is not a percentage" },
        { "cpu_sys negative", SPEC_WRITE, { SAMPLE_OK, .cpu_sys_pct = -0.5 }, {}, false, 0,
          "SAMPLE cpu_sys_pct=-0.5 is not a percentage" },
        { "cpu shares of 100", SPEC_WRITE, { SAMPLE_OK, .cpu_user_pct = 50, .cpu_sys_pct = 37.5 }, {}, false, 0, NULL },
        { "cpu shares above 100", SPEC_WRITE, { SAMPLE_OK, .cpu_user_pct = 60, .cpu_sys_pct = 30 }, {}, false, 0,
          "SAMPLE cpu_user_pct + cpu_sys_pct + iowait_pct = 102.5" },
        { "device util 101", SPEC_WRITE, { SAMPLE_OK, .dev_util_pct = 101 }, {}, false, 0,
          "SAMPLE dev_util_pct=101 is neither a percentage" },
        { "device util 100", SPEC_WRITE, { SAMPLE_OK, .dev_util_pct = 100 }, {}, false, 0, NULL },
        { "queue infinite", SPEC_WRITE, { SAMPLE_OK, .dev_queue = INFINITY }, {}, false, 0,
          "SAMPLE dev_queue=inf is neither -1 (unknown) nor a finite queue length" },
        { "queue negative", SPEC_WRITE, { SAMPLE_OK, .dev_queue = -0.5 }, {}, false, 0, "SAMPLE dev_queue=-0.5" },
        { "queue large", SPEC_WRITE, { SAMPLE_OK, .dev_queue = 1e7 }, {}, false, 0, NULL },
        { "progress above 1", SPEC_WRITE, { SAMPLE_OK, .progress = 1.5 }, {}, false, 0,
          "SAMPLE progress=1.5 is not between 0 and 1" },
        { "progress NaN", SPEC_WRITE, { SAMPLE_OK, .progress = NAN }, {}, false, 0, "SAMPLE progress=nan" },
        { "progress goes back", SPEC_WRITE, { SAMPLE_OK, .interval_us = 500000 },
          { .n_samples = 1, .last_t_ms = 500, .last_progress = 0.6 },
          false, 0, "SAMPLE progress=0.5 is below the previous sample's 0.6" },

        /* The step so far. */
        { "exactly the size", SPEC_WRITE, { SAMPLE_OK, .interval_us = 500000 },
          { .n_samples = 1, .last_t_ms = 500, .bytes_written = 4 << 20, .ios_written = 128 }, false, 0, NULL },
        { "more than the size", SPEC_WRITE, { SAMPLE_OK, .interval_us = 500000 },
          { .n_samples = 1, .last_t_ms = 500, .bytes_written = 6 << 20, .ios_written = 192 }, false, 0,
          "the SAMPLEs add up to 10485760 bytes, more than the 8388608 this step can move (1 streams of size 8388608 "
          "rounded up to whole blocks of 32768)" },
        { "more seeks than asked", SPEC_SEEKS, { SAMPLE_OK, .interval_us = 500000, .bytes_read = 81920,
          .ios_read = 20, .ops = 20,
          .bytes_written = 0, .ios_written = 0 }, { .n_samples = 1, .last_t_ms = 500, .ios_read = 8182, .ops = 8182 },
          false, 0, "the SAMPLEs add up to 8202 operations, more than the 8192 this step can do" },
        { "1.5 TB in the first second", SPEC_WRITE_TIMED, { SAMPLE_OK, .interval_us = 500000 },
          { .n_samples = 1, .last_t_ms = 500, .bytes_written = UINT64_C(45776367) * 32768,
            .ios_written = UINT64_C(45776367) }, false, 0,
          "the SAMPLEs so far moved 1500004188160 bytes in 1000000 us, faster than the ceiling" },
        { "sums beyond INT64_MAX", SPEC_WRITE_TIMED, { SAMPLE_OK, .interval_us = 500000 },
          { .n_samples = 1, .last_t_ms = 500, .bytes_written = I64MAX - 10, .ios_written = 128 }, false, 0,
          "the SAMPLEs' bytes_written add up to more than 9223372036854775807" },
};

START_TEST(test_sample) {
        ProtoLimits l;
        ProtoTally t = sample_cases[_i].tally, before;
        ProtoClock c = clock_at(sample_cases[_i].elapsed_ms);
        _cleanup_free_ char *err = NULL;
        int r;

        limits_of(sample_cases[_i].spec, &l);
        if (!sample_cases[_i].raw_stage)
                t.stage = PROTO_STAGE_MEASURE;
        before = t;
        r = proto_sample_plausible(&t, &sample_cases[_i].s, &l, &c, &err);
        expect(sample_cases[_i].name, r, err, sample_cases[_i].want);
        if (r < 0)
                ck_assert_msg(memcmp(&t, &before, sizeof(t)) == 0, "%s: a refused sample changed the tally",
                              sample_cases[_i].name);
        else {
                ck_assert_uint_eq(t.n_samples, before.n_samples + 1);
                ck_assert_uint_eq(t.last_t_ms, sample_cases[_i].s.t_ms);
                ck_assert_uint_eq(t.bytes_written, before.bytes_written + sample_cases[_i].s.bytes_written);
                ck_assert_uint_eq(t.ios_read, before.ios_read + sample_cases[_i].s.ios_read);
                ck_assert_uint_eq(t.ops, before.ops + sample_cases[_i].s.ops);
        }
}
END_TEST

/* ---- HISTOGRAM ---- */

static const struct {
        const char *name;
        ProtoTally tally;       /* stage MEASURE unless raw_stage */
        bool raw_stage;
        ProtoHistogramEntry e[3];
        uint32_t n;
        const char *want;
} histogram_cases[] = {
        { "two buckets", {}, false, { { 100, 5 }, { 200, 3 } }, 2, NULL },
        { "empty frame", {}, false, {}, 0, NULL },
        { "after cleanup", { .stage = PROTO_STAGE_CLEANUP }, true, { { 100, 5 } }, 1, NULL },
        { "the next frame goes on", { .n_hist = 2, .hist_last_index = 200, .hist_count = 8 }, false,
          { { 201, 1 } }, 1, NULL },
        { "before the measure phase", { .stage = PROTO_STAGE_LAYOUT }, true, { { 100, 5 } }, 1,
          "HISTOGRAM before the measure phase" },
        { "no such bucket", {}, false, { { HISTOGRAM_BUCKETS, 1 } }, 1, "does not exist" },
        { "an empty bucket", {}, false, { { 100, 5 }, { 200, 0 } }, 2,
          "HISTOGRAM bucket 200 with count 0; only non-empty buckets are sent" },
        { "a count above INT64_MAX", {}, false, { { 100, I64MAX + 1 } }, 1,
          "HISTOGRAM bucket 100 count=9223372036854775808 is above" },
        { "a bucket again in the next frame", { .n_hist = 2, .hist_last_index = 200, .hist_count = 8 }, false,
          { { 200, 1 } }, 1, "HISTOGRAM bucket 200 comes after bucket 200" },
        { "a lower bucket in the next frame", { .n_hist = 2, .hist_last_index = 200, .hist_count = 8 }, false,
          { { 150, 1 } }, 1, "HISTOGRAM bucket 150 comes after bucket 200" },
        { "out of order within a frame", {}, false, { { 300, 1 }, { 250, 1 } }, 2,
          "HISTOGRAM bucket 250 comes after bucket 300" },
        { "counts beyond INT64_MAX", { .n_hist = 1, .hist_last_index = 10, .hist_count = I64MAX - 1 }, false,
          { { 100, 5 } }, 1, "the HISTOGRAM counts add up to more than 9223372036854775807" },
};

START_TEST(test_histogram) {
        ProtoTally t = histogram_cases[_i].tally, before;
        ProtoHistogram h = { .n_entries = histogram_cases[_i].n, .entries = (ProtoHistogramEntry *) histogram_cases[_i].e };
        _cleanup_free_ char *err = NULL;
        uint64_t sum = 0;
        int r;

        if (!histogram_cases[_i].raw_stage)
                t.stage = PROTO_STAGE_MEASURE;
        before = t;
        r = proto_histogram_plausible(&t, &h, &err);
        expect(histogram_cases[_i].name, r, err, histogram_cases[_i].want);
        if (r < 0) {
                ck_assert(memcmp(&t, &before, sizeof(t)) == 0);
                return;
        }
        for (uint32_t i = 0; i < h.n_entries; i++)
                sum += h.entries[i].count;
        ck_assert_uint_eq(t.hist_count, before.hist_count + sum);
        ck_assert_uint_eq(t.n_hist, before.n_hist + h.n_entries);
        if (h.n_entries > 0)
                ck_assert_uint_eq(t.hist_last_index, h.entries[h.n_entries - 1].index);
}
END_TEST

/* ---- PHASE_RESULT ---- */

#define PHASE_OK .name = "create-seq", .ops = 100, .duration_usec = 10000, .lat_min_ns = 1000, \
        .lat_mean_ns = 2000, .lat_p50_ns = 1900, .lat_p99_ns = 5000, .lat_max_ns = 9000

static const struct {
        const char *name;
        const char *spec;
        ProtoPhaseResult p;
        ProtoTally tally;       /* stage MEASURE unless raw_stage */
        bool raw_stage;
        uint64_t elapsed_ms;
        const char *want;
} phase_result_cases[] = {
        { "plausible", SPEC_META, { PHASE_OK }, {}, false, 0, NULL },
        { "during the ramp", SPEC_META, { PHASE_OK }, { .stage = PROTO_STAGE_RAMP }, true, 0, NULL },
        { "a phase cut short", SPEC_META, { PHASE_OK, .ops = 0, .lat_min_ns = 0, .lat_mean_ns = 0, .lat_p50_ns = 0,
          .lat_p99_ns = 0, .lat_max_ns = 0 }, {}, false, 0, NULL },
        { "the 16th", SPEC_META, { PHASE_OK, .name = "phase-p" }, { .n_phase_results = 15 }, false, 0, NULL },
        { "from a data step", SPEC_WRITE, { PHASE_OK }, {}, false, 0,
          "PHASE_RESULT create-seq from a write step; only metadata steps send them" },
        { "before the measure phase", SPEC_META, { PHASE_OK }, { .stage = PROTO_STAGE_NONE }, true, 0,
          "PHASE_RESULT create-seq outside the ramp and measure phases" },
        { "after cleanup", SPEC_META, { PHASE_OK }, { .stage = PROTO_STAGE_CLEANUP }, true, 0,
          "outside the ramp and measure phases" },
        { "the 17th", SPEC_META, { PHASE_OK, .name = "phase-q" }, { .n_phase_results = 16 }, false, 0,
          "more than 16 PHASE_RESULT frames" },
        { "twice", SPEC_META, { PHASE_OK }, { .n_phase_results = 1, .phase_results = { "create-seq" } }, false, 0,
          "PHASE_RESULT create-seq sent twice" },
        { "ops above INT64_MAX", SPEC_META, { PHASE_OK, .ops = I64MAX + 1 }, {}, false, 0,
          "PHASE_RESULT ops=9223372036854775808 is above" },
        { "more files than file_count", SPEC_META, { PHASE_OK, .ops = 101 }, {}, false, 0,
          "PHASE_RESULT create-seq ops=101 is more than the 100 files (file_count) a phase works on" },
        { "longer than the worker ran", SPEC_META, { PHASE_OK, .duration_usec = 2000001 }, {}, false, 1000,
          "PHASE_RESULT create-seq duration_usec=2000001 is longer than the worker has run (1000000 us)" },
        { "16 M operations in no time", SPEC_META_HUGE, { PHASE_OK, .ops = 16777216, .duration_usec = 0 }, {}, false,
          0, "PHASE_RESULT create-seq did 16777216 operations in 0 us, faster than the ceiling of 100000000 a second" },
        { "a latency longer than the phase", SPEC_META, { PHASE_OK, .duration_usec = 1000,
          .lat_max_ns = UINT64_C(1001000001) }, {}, false, 0,
          "PHASE_RESULT create-seq lat_max_ns=1001000001 is longer than the phase (1000 us)" },
        { "mean above max", SPEC_META, { PHASE_OK, .lat_mean_ns = 9001 }, {}, false, 0,
          "PHASE_RESULT create-seq latencies out of order" },
        { "latencies without operations", SPEC_META, { PHASE_OK, .ops = 0 }, {}, false, 0,
          "latencies out of order (min 1000, mean 2000, p50 1900, p99 5000, max 9000 ns for 0 ops)" },
};

START_TEST(test_phase_result) {
        ProtoLimits l;
        ProtoTally t = phase_result_cases[_i].tally, before;
        ProtoClock c = clock_at(phase_result_cases[_i].elapsed_ms);
        _cleanup_free_ char *err = NULL;
        int r;

        limits_of(phase_result_cases[_i].spec, &l);
        if (!phase_result_cases[_i].raw_stage)
                t.stage = PROTO_STAGE_MEASURE;
        before = t;
        r = proto_phase_result_plausible(&t, &phase_result_cases[_i].p, &l, &c, &err);
        expect(phase_result_cases[_i].name, r, err, phase_result_cases[_i].want);
        if (r < 0)
                ck_assert(memcmp(&t, &before, sizeof(t)) == 0);
        else {
                ck_assert_uint_eq(t.n_phase_results, before.n_phase_results + 1);
                ck_assert_str_eq(t.phase_results[before.n_phase_results], phase_result_cases[_i].p.name);
        }
}
END_TEST

/* ---- POSITION_RESULT ---- */

#define POS_OK .index = 0, .offset_bytes = 0, .bytes = 1 << 20, .duration_usec = 10000, .lat_mean_ns = 300000, \
        .lat_max_ns = 900000
/* After position 1 of SPEC_POSITION spread over 8 MiB: it ended at 2 MiB. */
#define TALLY_AFTER_1 .n_positions = 2, .last_position_index = 1, .last_position_offset = 1 << 20, \
        .last_position_end = 2 << 20, .position_bytes = 2 << 20

static const struct {
        const char *name;
        const char *spec;
        uint64_t device_bytes;  /* 0: unknown */
        ProtoPositionResult p;
        ProtoTally tally;       /* stage MEASURE unless raw_stage */
        bool raw_stage;
        uint64_t elapsed_ms;
        const char *want;
} position_result_cases[] = {
        { "the first", SPEC_POSITION, 0, { POS_OK }, {}, false, 0, NULL },
        { "the next", SPEC_POSITION, 0, { POS_OK, .index = 2, .offset_bytes = 2 << 20 }, { TALLY_AFTER_1 }, false, 0,
          NULL },
        { "an index skipped (a gap is allowed; the RESULT counts them)", SPEC_POSITION, 0,
          { POS_OK, .index = 5, .offset_bytes = 5 << 20 }, { TALLY_AFTER_1 }, false, 0, NULL },
        { "the last, ending at the device's end", SPEC_POSITION, 8 << 20,
          { POS_OK, .index = 7, .offset_bytes = 7 << 20 }, { TALLY_AFTER_1 }, false, 0, NULL },
        { "mean equal to max", SPEC_POSITION, 0, { POS_OK, .lat_mean_ns = 900000 }, {}, false, 0, NULL },
        { "from a read step", SPEC_READ, 0, { POS_OK }, {}, false, 0,
          "POSITION_RESULT 0 from a read step; only position steps send them" },
        { "before the measure phase", SPEC_POSITION, 0, { POS_OK }, { .stage = PROTO_STAGE_NONE }, true, 0,
          "POSITION_RESULT 0 outside the measure phase" },
        { "during cleanup", SPEC_POSITION, 0, { POS_OK }, { .stage = PROTO_STAGE_CLEANUP }, true, 0,
          "outside the measure phase" },
        { "offset above INT64_MAX", SPEC_POSITION, 0, { POS_OK, .offset_bytes = I64MAX + 1 }, {}, false, 0,
          "POSITION_RESULT offset_bytes=9223372036854775808 is above" },
        { "index = positions", SPEC_POSITION, 0, { POS_OK, .index = 8 }, {}, false, 0,
          "POSITION_RESULT index 8 is not below positions=8" },
        { "the same index twice", SPEC_POSITION, 0, { POS_OK, .index = 1, .offset_bytes = 2 << 20 },
          { TALLY_AFTER_1 }, false, 0, "POSITION_RESULT index 1 after index 1; the positions come in increasing order" },
        { "an index going back", SPEC_POSITION, 0, { POS_OK, .index = 0, .offset_bytes = 2 << 20 }, { TALLY_AFTER_1 },
          false, 0, "POSITION_RESULT index 0 after index 1" },
        { "nothing read", SPEC_POSITION, 0, { POS_OK, .bytes = 0, .lat_mean_ns = 0, .lat_max_ns = 0 }, {}, false, 0,
          "POSITION_RESULT 0 bytes=0; each position reads 1 to 1048576 bytes (size)" },
        { "more than size", SPEC_POSITION, 0, { POS_OK, .bytes = (1 << 20) + 32768 }, {}, false, 0,
          "POSITION_RESULT 0 bytes=1081344; each position reads 1 to 1048576 bytes (size)" },
        { "not whole blocks", SPEC_POSITION, 0, { POS_OK, .bytes = (1 << 20) - 512 }, {}, false, 0,
          "POSITION_RESULT 0 bytes=1048064 is not a whole number of blocks of 32768" },
        { "overlapping the previous", SPEC_POSITION, 0, { POS_OK, .index = 2, .offset_bytes = (2 << 20) - 32768 },
          { TALLY_AFTER_1 }, false, 0,
          "POSITION_RESULT 2 offset_bytes=2064384 is before the end of the previous position (2097152)" },
        { "an offset going back", SPEC_POSITION, 0, { POS_OK, .index = 2, .offset_bytes = 0 }, { TALLY_AFTER_1 }, false,
          0, "offsets increase and do not overlap" },
        { "past the device's end", SPEC_POSITION, 8 << 20, { POS_OK, .index = 7, .offset_bytes = (7 << 20) + 32768 },
          { TALLY_AFTER_1 }, false, 0,
          "POSITION_RESULT 7 reads to byte 8421376, past the end of the 8388608-byte device" },
        { "longer than the worker ran", SPEC_POSITION, 0, { POS_OK, .duration_usec = 2000001 }, {}, false, 1000,
          "POSITION_RESULT 0 duration_usec=2000001 is longer than the worker has run (1000000 us)" },
        { "a terabyte in no time", SPEC_POSITION_HUGE, 0, { POS_OK, .bytes = UINT64_C(1) << 40, .duration_usec = 0 },
          {}, false, 0, "POSITION_RESULT 0 read 1099511627776 bytes in 0 us, faster than the ceiling" },
        { "mean above max", SPEC_POSITION, 0, { POS_OK, .lat_mean_ns = 900001 }, {}, false, 0,
          "POSITION_RESULT 0 lat_mean_ns=900001 is above lat_max_ns=900000" },
        { "a latency longer than the position", SPEC_POSITION, 0,
          { POS_OK, .duration_usec = 1000, .lat_max_ns = UINT64_C(1001000001) }, {}, false, 0,
          "POSITION_RESULT 0 lat_max_ns=1001000001 is longer than the position took (1000 us)" },
};

START_TEST(test_position_result) {
        ProtoLimits l;
        ProtoTally t = position_result_cases[_i].tally, before;
        ProtoClock c = clock_at(position_result_cases[_i].elapsed_ms);
        const ProtoPositionResult *p = &position_result_cases[_i].p;
        _cleanup_free_ char *err = NULL;
        int r;

        limits_of(position_result_cases[_i].spec, &l);
        proto_limits_set_device(&l, position_result_cases[_i].device_bytes);
        if (!position_result_cases[_i].raw_stage)
                t.stage = PROTO_STAGE_MEASURE;
        before = t;
        r = proto_position_result_plausible(&t, p, &l, &c, &err);
        expect(position_result_cases[_i].name, r, err, position_result_cases[_i].want);
        if (r < 0)
                ck_assert(memcmp(&t, &before, sizeof(t)) == 0);
        else {
                ck_assert_uint_eq(t.n_positions, before.n_positions + 1);
                ck_assert_uint_eq(t.last_position_index, p->index);
                ck_assert_uint_eq(t.last_position_offset, p->offset_bytes);
                ck_assert_uint_eq(t.last_position_end, p->offset_bytes + p->bytes);
                ck_assert_uint_eq(t.position_bytes, before.position_bytes + p->bytes);
        }
}
END_TEST

/* ---- STEADY_STATE ---- */

/* 10 s runtime, 2 s ramp, samples of 500 ms, a window of 2 s: 4 samples. */
#define SPEC_STEADY SPEC_WRITE "\nruntime_ms=10000\nramp_ms=2000\nsample_ms=500\nsteady_state=bw:5\n" \
        "steady_state_window_ms=2000"
#define TALLY_4 .stage = PROTO_STAGE_MEASURE, .n_samples = 4, .last_t_ms = 2001

static const struct {
        const char *name;
        const char *spec;
        uint64_t t_ms;
        ProtoTally tally;
        uint64_t elapsed_ms;
        const char *want;
} steady_cases[] = {
        { "once the window is full, at the latest sample", SPEC_STEADY, 2001, { TALLY_4 }, 0, NULL },
        { "later", SPEC_STEADY, 7999, { TALLY_4, .n_samples = 16, .last_t_ms = 7999 }, 0, NULL },
        { "not asked", SPEC_WRITE_TIMED, 2001, { TALLY_4 }, 0,
          "STEADY_STATE from a step whose spec asked for no steady_state" },
        { "twice", SPEC_STEADY, 2001, { TALLY_4, .steady_state = true, .steady_t_ms = 2001 }, 0,
          "STEADY_STATE sent twice" },
        { "in the ramp", SPEC_STEADY, 2001, { TALLY_4, .stage = PROTO_STAGE_RAMP }, 0,
          "STEADY_STATE outside the measure phase" },
        { "before the window is full", SPEC_STEADY, 1500, { TALLY_4, .n_samples = 3, .last_t_ms = 1500 }, 0,
          "STEADY_STATE after 3 SAMPLEs; its window holds 4" },
        { "not at the latest sample", SPEC_STEADY, 2000, { TALLY_4 }, 0,
          "STEADY_STATE t_ms=2000 is not the end of the latest SAMPLE (t_ms=2001)" },
        { "after the measured phase", SPEC_STEADY, 9100, { TALLY_4, .n_samples = 19, .last_t_ms = 9100 }, 0,
          "STEADY_STATE t_ms=9100 is after the end of the measured phase (8000 ms)" },
        { "later than the worker ran", SPEC_STEADY, 2001, { TALLY_4 }, 500,
          "STEADY_STATE t_ms=2001 is later than the 500 ms since the worker was started" },
};

START_TEST(test_steady_state) {
        ProtoLimits l;
        ProtoTally t = steady_cases[_i].tally, before = t;
        ProtoClock c = clock_at(steady_cases[_i].elapsed_ms);
        ProtoSteadyState m = { .t_ms = steady_cases[_i].t_ms };
        _cleanup_free_ char *err = NULL;
        int r;

        limits_of(steady_cases[_i].spec, &l);
        r = proto_steady_state_plausible(&t, &m, &l, &c, &err);
        expect(steady_cases[_i].name, r, err, steady_cases[_i].want);
        if (r < 0)
                ck_assert(memcmp(&t, &before, sizeof(t)) == 0);
        else {
                ck_assert(t.steady_state);
                ck_assert_uint_eq(t.steady_t_ms, m.t_ms);
        }
}
END_TEST

START_TEST(test_steady_limits) {
        ProtoLimits l;

        limits_of(SPEC_STEADY, &l);
        ck_assert(l.steady_state);
        ck_assert_uint_eq(l.steady_window_samples, 4);
        ck_assert_uint_eq(l.measure_ms, 8000);
        limits_of(SPEC_WRITE, &l);
        ck_assert(!l.steady_state);
        ck_assert_uint_eq(l.measure_ms, 0);
}
END_TEST

/* ---- RESULT ---- */

/* 256 writes of 32 KiB: one at 30015 ns, 199 at 40063, 50 at 89855, 6 at 120063 (each the midpoint
 * of its histogram bucket, so the percentiles are these values), in two samples. */
static const ProtoHistogramEntry hist_ok[] = { { 1130, 1 }, { 1180, 199 }, { 1327, 50 }, { 1386, 6 } };

#define RESULT_OK .started_usec = SPAWN_RT + 100000, .duration_usec = 2000000, .bytes_written = 8 << 20, \
        .ios_written = 256, .lat_min_ns = 30015, .lat_mean_ns = 51623, .lat_stddev_ns = 22382, \
        .lat_p50_ns = 40063, .lat_p90_ns = 89855, .lat_p95_ns = 89855, .lat_p99_ns = 120063, \
        .lat_p999_ns = 120063, .lat_p9999_ns = 120063, .lat_max_ns = 120063, .iowait_pct = 12.5, \
        .cpu_user_pct = 1.5, .cpu_sys_pct = 3.25, .dev_util_pct = -1

#define RESULT_POSITION RESULT_OK, .bytes_written = 0, .ios_written = 0, .bytes_read = 8 << 20, .ios_read = 256
#define TALLY_POSITION TALLY_OK, .bytes_written = 0, .ios_written = 0, .bytes_read = 8 << 20, .ios_read = 256, \
        .n_positions = 8, .last_position_index = 7, .position_bytes = 8 << 20

/* putc: 2 MiB of characters timed in 256 batches of 8192, the same latencies. */
#define RESULT_PUTC RESULT_OK, .bytes_written = 2 << 20, .ios_written = 2 << 20
#define TALLY_PUTC TALLY_OK, .bytes_written = 2 << 20, .ios_written = 2 << 20

#define TALLY_OK .stage = PROTO_STAGE_CLEANUP, .n_samples = 2, .last_t_ms = 2000, .bytes_written = 8 << 20, \
        .ios_written = 256, .lat_max_ns = 120063, .hist_count = 256, .n_hist = 4, .hist_last_index = 1386

static const struct {
        const char *name;
        const char *spec;
        ProtoResult r;
        ProtoTally tally;
        bool no_hist;
        uint64_t elapsed_ms;
        const char *want;
} result_cases[] = {
        { "plausible", SPEC_WRITE, { RESULT_OK }, { TALLY_OK }, false, 0, NULL },
        { "nothing measured", SPEC_WRITE_TIMED, { .started_usec = SPAWN_RT, .dev_util_pct = -1 },
          { .stage = PROTO_STAGE_CLEANUP }, true, 0, NULL },
        { "the mean just below the minimum", SPEC_WRITE, { RESULT_OK, .lat_min_ns = 30015, .lat_mean_ns = 51623 },
          { TALLY_OK }, false, 0, NULL },

        /* The worker's CPU time and its served verdict. */
        { "CPU time of one stream and the worker", SPEC_WRITE,
          { RESULT_OK, .process_user_usec = 2000000, .process_sys_usec = 4000000 }, { TALLY_OK }, false, 0, NULL },
        { "more CPU time than the processes have", SPEC_WRITE,
          { RESULT_OK, .process_user_usec = 5000000, .process_sys_usec = 4000001 }, { TALLY_OK }, false, 0,
          "RESULT process_user_usec=5000000 + process_sys_usec=4000001 is more CPU time than 1 streams and the "
          "worker can use in 2000000 us" },
        { "writes the device saw", SPEC_WRITE,
          { RESULT_OK, .counters = PROTO_COUNTERS_DEVICE, .device_bytes_written = 9 << 20, .served = SERVED_DEVICE },
          { TALLY_OK }, false, 0, NULL },
        { "writes the page cache kept, said so", SPEC_WRITE,
          { RESULT_OK, .counters = PROTO_COUNTERS_DEVICE, .device_bytes_written = 1 << 20,
            .served = SERVED_PAGE_CACHE }, { TALLY_OK }, false, 0, NULL },
        { "writes the page cache kept, called the device's", SPEC_WRITE,
          { RESULT_OK, .counters = PROTO_COUNTERS_DEVICE, .device_bytes_written = 1 << 20, .served = SERVED_DEVICE },
          { TALLY_OK }, false, 0, "RESULT served=device, but its device counters (read 0, written 1048576 bytes; "
          "backing read 0, written 0) make it page-cache" },
        { "a verdict without counters", SPEC_WRITE, { RESULT_OK, .served = SERVED_DEVICE }, { TALLY_OK }, false, 0,
          "make it not judged" },
        { "the image's disk did not see them", SPEC_WRITE,
          { RESULT_OK, .counters = PROTO_COUNTERS_DEVICE | PROTO_COUNTERS_BACKING, .device_bytes_written = 8 << 20,
            .served = SERVED_BACKING_FILE }, { TALLY_OK }, false, 0, NULL },
        { "a count above INT64_MAX", SPEC_WRITE, { RESULT_OK, .ios_written = I64MAX + 1 }, { TALLY_OK }, false, 0,
          "RESULT ios_written=9223372036854775808 is above" },
        { "before the measure phase", SPEC_WRITE, { RESULT_OK }, { TALLY_OK, .stage = PROTO_STAGE_LAYOUT }, false, 0,
          "RESULT before the measure phase" },

        /* When. */
        { "longer than the worker ran", SPEC_WRITE, { RESULT_OK, .duration_usec = 11000001 }, { TALLY_OK }, false,
          10000, "RESULT duration_usec=11000001 is longer than the worker has run (10000000 us)" },
        { "started a day before the step", SPEC_WRITE, { RESULT_OK, .started_usec = SPAWN_RT - PROTO_REALTIME_SLACK_USEC - 1 },
          { TALLY_OK }, false, 0, "is not within a day of the step, which began at 1700000000000000" },
        { "ends a day from now", SPEC_WRITE, { RESULT_OK, .started_usec = SPAWN_RT + 10000000 + PROTO_REALTIME_SLACK_USEC },
          { TALLY_OK }, false, 0, "is not within a day of the step" },
        { "shorter than its samples", SPEC_WRITE, { RESULT_OK, .duration_usec = 900000 }, { TALLY_OK }, false, 0,
          "RESULT duration_usec=900000 is shorter than its samples, the last of which ends at t_ms=2000" },

        /* What. */
        { "not the sum of its samples", SPEC_WRITE, { RESULT_OK, .bytes_written = (8 << 20) - 32768 }, { TALLY_OK },
          false, 0, "RESULT bytes_written=8355840 but the SAMPLEs add up to 8388608; the result is the sum of its samples" },
        { "ops the samples did not count", SPEC_WRITE, { RESULT_OK, .ops = 1 }, { TALLY_OK }, false, 0,
          "RESULT ops=1 but the SAMPLEs add up to 0" },
        { "a write step that read", SPEC_WRITE, { RESULT_OK, .bytes_read = 4096, .ios_read = 1 },
          { TALLY_OK, .bytes_read = 4096, .ios_read = 1 }, false, 0, "but a write step does not read" },
        { "more write-backs than seeks", SPEC_SEEKS, { RESULT_OK, .bytes_read = 40960, .ios_read = 10, .ops = 10,
          .bytes_written = 45056, .ios_written = 11 }, { TALLY_OK, .bytes_read = 40960, .ios_read = 10, .ops = 10,
          .bytes_written = 45056, .ios_written = 11 }, false, 0,
          "RESULT ios_written=11 is more than ios_read=10; seeks write back only blocks they have read" },
        { "2 TB in a second", SPEC_WRITE_TIMED, { RESULT_OK, .duration_usec = 1000000,
          .bytes_written = UINT64_C(61035157) * 32768, .ios_written = UINT64_C(61035157) },
          { TALLY_OK, .last_t_ms = 1000, .bytes_written = UINT64_C(61035157) * 32768,
            .ios_written = UINT64_C(61035157) }, false, 0,
          "RESULT moved 2000000024576 bytes in 1000000 us, faster than the ceiling" },
        { "cpu shares above 100", SPEC_WRITE, { RESULT_OK, .cpu_sys_pct = 90 }, { TALLY_OK }, false, 0,
          "RESULT cpu_user_pct + cpu_sys_pct + iowait_pct = 104" },
        { "device util NaN", SPEC_WRITE, { RESULT_OK, .dev_util_pct = NAN }, { TALLY_OK }, false, 0,
          "RESULT dev_util_pct=nan is neither" },

        /* Latencies. */
        { "a histogram that misses one", SPEC_WRITE, { RESULT_OK }, { TALLY_OK, .hist_count = 255 }, false, 0,
          "the HISTOGRAM holds 255 latencies, but RESULT counts 256 I/Os; it holds exactly one for each" },
        { "latencies without I/O", SPEC_WRITE_TIMED, { .started_usec = SPAWN_RT, .dev_util_pct = -1, .lat_min_ns = 5,
          .lat_max_ns = 5 }, { .stage = PROTO_STAGE_CLEANUP }, true, 0,
          "RESULT has latencies (min 5, max 5 ns) but no I/Os" },
        { "p90 below p50", SPEC_WRITE, { RESULT_OK, .lat_p90_ns = 40000 }, { TALLY_OK }, false, 0,
          "RESULT latencies out of order" },
        { "mean above max", SPEC_WRITE, { RESULT_OK, .lat_mean_ns = 120064 }, { TALLY_OK }, false, 0,
          "RESULT lat_mean_ns=120064 is outside lat_min_ns=30015 to lat_max_ns=120063" },
        { "mean 2 ns below min", SPEC_WRITE, { RESULT_OK, .lat_mean_ns = 30013 }, { TALLY_OK }, false, 0,
          "RESULT lat_mean_ns=30013 is outside" },
        { "stddev beyond the spread", SPEC_WRITE, { RESULT_OK, .lat_stddev_ns = 90050 }, { TALLY_OK }, false, 0,
          "RESULT lat_stddev_ns=90050 is larger than latencies from 30015 to 120063 ns can spread" },
        { "a latency longer than the worker ran", SPEC_WRITE, { RESULT_OK, .lat_p9999_ns = UINT64_C(11000000001),
          .lat_max_ns = UINT64_C(11000000001) }, { TALLY_OK }, false, 10000,
          "RESULT lat_max_ns=11000000001 is longer than the worker has run (10000 ms)" },
        { "a maximum no sample had", SPEC_WRITE, { RESULT_OK }, { TALLY_OK, .lat_max_ns = 120000 }, false, 0,
          "RESULT lat_max_ns=120063 but the largest SAMPLE lat_max_ns is 120000" },
        { "min outside the lowest bucket", SPEC_WRITE, { RESULT_OK, .lat_min_ns = 30200 }, { TALLY_OK }, false, 0,
          "RESULT lat_min_ns=30200 is not in the lowest non-empty HISTOGRAM bucket, 1130 (29952 to 30079 ns)" },
        { "max outside the highest bucket", SPEC_WRITE, { RESULT_OK, .lat_max_ns = 120400 },
          { TALLY_OK, .lat_max_ns = 120400 }, false, 0,
          "RESULT lat_max_ns=120400 is not in the highest non-empty HISTOGRAM bucket, 1386 (119808 to 120319 ns)" },
        { "a mean the buckets do not allow", SPEC_WRITE, { RESULT_OK, .lat_mean_ns = 52000 }, { TALLY_OK }, false, 0,
          "RESULT lat_mean_ns=52000 is outside what its HISTOGRAM allows" },
        { "p50 not from the histogram", SPEC_WRITE, { RESULT_OK, .lat_p50_ns = 40000 }, { TALLY_OK }, false, 0,
          "RESULT lat_p50_ns=40000 but its HISTOGRAM gives 40063" },
        { "p99.9 not from the histogram", SPEC_WRITE, { RESULT_OK, .lat_p99_ns = 89855, .lat_p999_ns = 89855 },
          { TALLY_OK }, false, 0, "RESULT lat_p99_ns=89855 but its HISTOGRAM gives 120063" },
        /* Position: the same 256 I/Os as reads, the total over 8 positions of 1 MiB. */
        /* putc and getc: one latency per batch of 8192 characters of a stream, the last shorter. */
        { "putc: a latency per batch", SPEC_PUTC, { RESULT_PUTC }, { TALLY_PUTC }, false, 0, NULL },
        { "putc: a batch missing", SPEC_PUTC, { RESULT_PUTC }, { TALLY_PUTC, .hist_count = 255 }, false, 0,
          "the HISTOGRAM holds 255 latencies, but RESULT counts 2097152 characters in 1 streams: one latency per "
          "8192 of a stream's characters (the last batch may be shorter) makes 256 to 257" },
        { "putc: more batches than one stream has", SPEC_PUTC, { RESULT_PUTC }, { TALLY_PUTC, .hist_count = 258 },
          false, 0, "makes 256 to 257" },
        { "putc: a last short batch not timed", SPEC_PUTC "\nruntime_ms=600000",
          { RESULT_PUTC, .bytes_written = (2 << 20) + 100, .ios_written = (2 << 20) + 100 },
          { TALLY_PUTC, .bytes_written = (2 << 20) + 100, .ios_written = (2 << 20) + 100 }, false, 0,
          "makes 257 to 257" },
        { "position: the total over its positions", SPEC_POSITION, { RESULT_POSITION }, { TALLY_POSITION }, false, 0,
          NULL },
        { "position: a position missing", SPEC_POSITION, { RESULT_POSITION }, { TALLY_POSITION, .n_positions = 7 },
          false, 0, "RESULT after 7 POSITION_RESULTs; a position step sends one for each of its 8 positions first" },
        { "position: bytes the positions do not add up to", SPEC_POSITION, { RESULT_POSITION },
          { TALLY_POSITION, .position_bytes = (8 << 20) - 32768 }, false, 0,
          "RESULT bytes_read=8388608 but the POSITION_RESULTs add up to 8355840" },
};

START_TEST(test_result) {
        ProtoLimits l;
        ProtoClock c = clock_at(result_cases[_i].elapsed_ms);
        _cleanup_free_ char *err = NULL;
        int r;

        limits_of(result_cases[_i].spec, &l);
        r = proto_result_plausible(&result_cases[_i].tally, &result_cases[_i].r,
                                   result_cases[_i].no_hist ? NULL : hist_ok,
                                   result_cases[_i].no_hist ? 0 : ELEMENTSOF(hist_ok), &l, &c, &err);
        expect(result_cases[_i].name, r, err, result_cases[_i].want);
}
END_TEST

/* The baseline's figures are what the engine's own histogram code gives for those latencies. */
START_TEST(test_result_baseline_is_the_engines) {
        const uint64_t values[] = { 30015, 40063, 89855, 120063 };
        _cleanup_free_ Histogram *h = malloc(sizeof(Histogram));

        ck_assert_ptr_nonnull(h);
        histogram_init(h);
        for (size_t i = 0; i < ELEMENTSOF(hist_ok); i++) {
                ck_assert_uint_eq(histogram_bucket_index(values[i]), hist_ok[i].index);
                for (uint64_t k = 0; k < hist_ok[i].count; k++)
                        histogram_add(h, values[i]);
        }
        ck_assert_uint_eq((uint64_t) histogram_mean(h), 51623);
        ck_assert_uint_eq((uint64_t) histogram_stddev(h), 22382);
        ck_assert_uint_eq(histogram_percentile(h, 50), 40063);
        ck_assert_uint_eq(histogram_percentile(h, 90), 89855);
        ck_assert_uint_eq(histogram_percentile(h, 95), 89855);
        ck_assert_uint_eq(histogram_percentile(h, 99), 120063);
        ck_assert_uint_eq(histogram_percentile(h, 99.9), 120063);
        ck_assert_uint_eq(histogram_percentile(h, 99.99), 120063);
}
END_TEST

/* ---- text ---- */

static const struct {
        const char *in, *out;
} text_cases[] = {
        { "plain ASCII", "plain ASCII" },
        { "", "" },
        { "tab\there\nnewline\r", "tab?here?newline?" },
        { "del\x7f", "del?" },
        { "Gr\xc3\xbc\xc3\x9f" "e, na\xc3\xafve", "Gr\xc3\xbc\xc3\x9f" "e, na\xc3\xafve" },   /* Grüße, naïve */
        { "\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e", "\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e" },       /* 日本語 */
        { "emoji \xf0\x9f\x98\x80!", "emoji \xf0\x9f\x98\x80!" },                                   /* U+1F600 */
        { "nbsp\xc2\xa0kept", "nbsp\xc2\xa0kept" },                                                 /* U+00A0 */
        { "U+10FFFF \xf4\x8f\xbf\xbf", "U+10FFFF \xf4\x8f\xbf\xbf" },
        { "C1 \xc2\x85 next line", "C1 ? next line" },                                              /* U+0085 */
        { "C1 \xc2\x9f", "C1 ?" },
        { "truncated \xc3", "truncated ?" },
        { "truncated \xe2\x82", "truncated ??" },
        { "bad continuation \xc3\x28", "bad continuation ?(" },
        { "overlong \xc0\xaf", "overlong ??" },
        { "overlong \xe0\x80\xaf", "overlong ???" },
        { "surrogate \xed\xa0\x80", "surrogate ???" },
        { "beyond U+10FFFF \xf4\x90\x80\x80", "beyond U+10FFFF ????" },
        { "\xff\xfe", "??" },
        { "\x80" "lone continuation", "?lone continuation" },
};

START_TEST(test_text_sanitize) {
        _cleanup_free_ char *s = strdup(text_cases[_i].in);

        proto_text_sanitize(s);
        ck_assert_msg(streq(s, text_cases[_i].out), "row %d: \"%s\" became \"%s\", expected \"%s\"", _i,
                      text_cases[_i].in, s, text_cases[_i].out);
}
END_TEST

static Suite *plausible_suite(void) {
        Suite *s = suite_create("proto-plausible");
        TCase *tc = tcase_create("rules");

        tcase_add_loop_test(tc, test_limits, 0, ELEMENTSOF(limit_cases));
        tcase_add_test(tc, test_limits_invalid);
        tcase_add_loop_test(tc, test_phase, 0, ELEMENTSOF(phase_cases));
        tcase_add_loop_test(tc, test_fleet_phase, 0, ELEMENTSOF(fleet_phase_cases));
        tcase_add_loop_test(tc, test_fs_info, 0, ELEMENTSOF(fs_info_cases));
        tcase_add_test(tc, test_fs_info_md);
        tcase_add_test(tc, test_fs_info_lvm);
        tcase_add_test(tc, test_fs_phase_order);
        tcase_add_loop_test(tc, test_sample, 0, ELEMENTSOF(sample_cases));
        tcase_add_loop_test(tc, test_histogram, 0, ELEMENTSOF(histogram_cases));
        tcase_add_loop_test(tc, test_phase_result, 0, ELEMENTSOF(phase_result_cases));
        tcase_add_loop_test(tc, test_position_result, 0, ELEMENTSOF(position_result_cases));
        tcase_add_loop_test(tc, test_steady_state, 0, ELEMENTSOF(steady_cases));
        tcase_add_test(tc, test_steady_limits);
        tcase_add_loop_test(tc, test_result, 0, ELEMENTSOF(result_cases));
        tcase_add_test(tc, test_result_baseline_is_the_engines);
        tcase_add_loop_test(tc, test_text_sanitize, 0, ELEMENTSOF(text_cases));
        suite_add_tcase(s, tc);
        return s;
}

int main(void) {
        return check_run(plausible_suite());
}
