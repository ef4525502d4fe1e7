/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * ScratchDevices= by identity (devices/scratch.h) over tables: how each spelling parses (and what
 * a wrong one is told), which devices a list marks, binds, and refuses to mark, and what the
 * reasons say. The facts a daemon gathers (what a path names now, a device's identity) are table
 * columns here.
 */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check-util.h"
#include "devices/scratch.h"
#include "shared/strv.h"
#include "shared/util.h"

START_TEST(test_parse_table) {
        static const struct {
                const char *word;
                int r;
                ScratchKind kind;
                const char *spelling, *value;   /* on success; on failure spelling is a substring of the message */
        } t[] = {
                { "/dev/sdb", 0, SCRATCH_PATH, "/dev/sdb", "/dev/sdb" },
                { "/dev/loop2", 0, SCRATCH_PATH, "/dev/loop2", "/dev/loop2" },
                { "/dev/disk/by-id/wwn-0x5000c500a1b2c3d4", 0, SCRATCH_PATH,
                  "/dev/disk/by-id/wwn-0x5000c500a1b2c3d4", "/dev/disk/by-id/wwn-0x5000c500a1b2c3d4" },
                /* A bare name is one under /dev/disk/by-id/, as before; a colon in it is no prefix. */
                { "ata-Samsung_SSD_870_S6PU", 0, SCRATCH_PATH, "/dev/disk/by-id/ata-Samsung_SSD_870_S6PU",
                  "/dev/disk/by-id/ata-Samsung_SSD_870_S6PU" },
                { "usb-Generic_Flash-0:0", 0, SCRATCH_PATH, "/dev/disk/by-id/usb-Generic_Flash-0:0",
                  "/dev/disk/by-id/usb-Generic_Flash-0:0" },
                { "wwn:0x5000c500a1b2c3d4", 0, SCRATCH_WWN, "wwn:0x5000c500a1b2c3d4", "0x5000c500a1b2c3d4" },
                { "serial:S6PUNX0R123456A", 0, SCRATCH_SERIAL, "serial:S6PUNX0R123456A", "S6PUNX0R123456A" },
                { "loop-file:/srv/scratch.img", 0, SCRATCH_LOOP_FILE, "loop-file:/srv/scratch.img",
                  "/srv/scratch.img" },
                { "wwn:", -EINVAL, 0, "wwn:0x" },
                { "serial:", -EINVAL, 0, "serial:S6PU" },
                { "loop-file:", -EINVAL, 0, "loop-file:/srv" },
                { "loop-file:scratch.img", -EINVAL, 0, "absolute path" },
                { "/srv/scratch.img", -EINVAL, 0, "loop-file:/srv/scratch.img" },
                { "/dev/", -EINVAL, 0, "not a device node" },
                { "dev/sdb", -EINVAL, 0, "neither an absolute path" },
                { "", -EINVAL, 0, "empty" },
        };

        for (size_t i = 0; i < ELEMENTSOF(t); i++) {
                _cleanup_free_ char *err = NULL;
                ScratchEntry e = {};
                int r = scratch_entry_parse(t[i].word, &e, &err);

                ck_assert_msg(r == t[i].r, "%s: %d, not %d (%s)", t[i].word, r, t[i].r, strna(err));
                if (r < 0) {
                        ck_assert_msg(err && strstr(err, t[i].spelling), "%s: \"%s\" not in \"%s\"", t[i].word,
                                      t[i].spelling, strna(err));
                        continue;
                }
                ck_assert_int_eq(e.kind, t[i].kind);
                ck_assert_str_eq(e.spelling, t[i].spelling);
                ck_assert_str_eq(e.value, t[i].value);
                ck_assert_ptr_null(e.bound);
                scratch_entry_clear(&e);
        }
}
END_TEST

START_TEST(test_assign) {
        _cleanup_(scratch_list_clear) ScratchList l = {};
        _cleanup_strv_free_ char **errors = NULL;

        ck_assert_int_eq(scratch_list_assign(&l, "/dev/loop2  wwn:0x1\tbad/word", &errors), 0);
        ck_assert_uint_eq(l.n, 2);
        ck_assert_str_eq(l.entries[1].spelling, "wwn:0x1");
        ck_assert_uint_eq(strv_length(errors), 1);
        ck_assert_ptr_nonnull(strstr(errors[0], "bad/word"));
        /* Another assignment appends; an empty one empties the list. */
        ck_assert_int_eq(scratch_list_assign(&l, "serial:X", NULL), 0);
        ck_assert_uint_eq(l.n, 3);
        ck_assert_int_eq(scratch_list_assign(&l, " ", NULL), 0);
        ck_assert_uint_eq(l.n, 0);
}
END_TEST

/* makedev() of minors below 256, as a constant expression for the table. */
#define DEV(ma, mi) ((dev_t) (((ma) << 8) | (mi)))
#define LOOP2 DEV(7, 2)
#define LOOP7 DEV(7, 7)
#define SDB DEV(8, 16)
#define SDB1 DEV(8, 17)
#define SDC DEV(8, 32)

#define IMG_A "loop-file:/srv/a.img (inode 12 on 254:0)"
#define IMG_B "loop-file:/srv/b.img (inode 13 on 254:0)"

typedef struct EntryRow {
        const char *word;
        const char *bound;
        dev_t resolved;
} EntryRow;

typedef struct JudgeCase {
        const char *what;
        EntryRow entries[3];
        ScratchDevice d;
        ScratchMatch want;
        size_t entry;                   /* the deciding entry (SIZE_MAX: none) */
        const char *reason[3];          /* substrings of the ScratchReason text */
        const char *note;               /* substring of the verdict's note, NULL: no note */
} JudgeCase;

static const JudgeCase judge_cases[] = {
        { "nothing listed", {}, { .name = "sdb", .devnum = SDB, .identity = "serial:A" },
          SCRATCH_MATCH_NONE, SIZE_MAX, {}, NULL },
        { "a kernel name bound to the device it names",
          { { "/dev/loop2", IMG_A, LOOP2 } },
          { .name = "loop2", .devnum = LOOP2, .identity = IMG_A, .backing_file = "/srv/a.img" },
          SCRATCH_MATCH_YES, 0, { "ScratchDevices=/dev/loop2, bound to " IMG_A }, NULL },
        /* The case: another image under the number. */
        { "a kernel name, another image attached under it",
          { { "/dev/loop2", IMG_A, LOOP2 } },
          { .name = "loop2", .devnum = LOOP2, .identity = IMG_B, .backing_file = "/srv/b.img" },
          SCRATCH_MATCH_OTHER, 0,
          { "not scratch: ScratchDevices=/dev/loop2 is bound to " IMG_A, "loop2 is " IMG_B " now", "restart benchd" },
          "it is not the device ScratchDevices=/dev/loop2 marked scratch (that is " IMG_A },
        { "a kernel name follows its disk to another name",
          { { "/dev/sdb", "serial:A", SDB } },
          { .name = "sdc", .devnum = SDC, .identity = "serial:A", .serial = "A" },
          SCRATCH_MATCH_YES, 0, { "ScratchDevices=/dev/sdb, bound to serial:A" }, NULL },
        { "another disk under a bound kernel name after a reboot",
          { { "/dev/sdb", "serial:A", SDB } },
          { .name = "sdb", .devnum = SDB, .identity = "serial:B", .serial = "B" },
          SCRATCH_MATCH_OTHER, 0, { "bound to serial:A", "sdb is serial:B now" }, "that is serial:A" },
        { "a kernel name not bound yet (a helper's view before the inventory saw the device)",
          { { "/dev/sdb", NULL, SDB } },
          { .name = "sdb", .devnum = SDB, .identity = "serial:A", .serial = "A" },
          SCRATCH_MATCH_UNBOUND, 0, { "not scratch yet", "/dev/sdb" }, "has not bound that name" },
        { "a kernel name that names a device without an identity",
          { { "/dev/loop2", IMG_A, LOOP2 } },
          { .name = "loop2", .devnum = LOOP2, .identity = NULL },
          SCRATCH_MATCH_UNKNOWN, 0, { "no identity benchd can read" }, "cannot be read" },
        { "a kernel name that names another device now: says nothing of this one",
          { { "/dev/sdb", "serial:A", SDB } },
          { .name = "sdc", .devnum = SDC, .identity = "serial:C", .serial = "C" },
          SCRATCH_MATCH_NONE, SIZE_MAX, {}, NULL },
        { "a path that names nothing now (detached)",
          { { "/dev/disk/by-id/x", "serial:A", 0 } },
          { .name = "sdb", .devnum = SDB, .identity = "serial:B", .serial = "B" },
          SCRATCH_MATCH_NONE, SIZE_MAX, {}, NULL },
        { "a partition's kernel name: the disk is not marked",
          { { "/dev/sdb1", "serial:A partition 1", SDB1 } },
          { .name = "sdb", .devnum = SDB, .identity = "serial:A", .serial = "A" },
          SCRATCH_MATCH_NONE, SIZE_MAX, {}, NULL },
        { "a partition's kernel name marks the partition",
          { { "/dev/sdb1", "serial:A partition 1", SDB1 } },
          { .name = "sdb1", .devnum = SDB1, .identity = "serial:A partition 1", .partition = true, .serial = "A" },
          SCRATCH_MATCH_YES, 0, { "bound to serial:A partition 1" }, NULL },
        { "wwn:, any case",
          { { "wwn:0x5000C500A1B2C3D4" } },
          { .name = "sdb", .devnum = SDB, .identity = "wwn:0x5000c500a1b2c3d4", .wwn = "0x5000c500a1b2c3d4" },
          SCRATCH_MATCH_YES, 0, { "ScratchDevices=wwn:0x5000C500A1B2C3D4" }, NULL },
        { "wwn: names the disk, not its partitions",
          { { "wwn:0x1" } },
          { .name = "sdb1", .devnum = SDB1, .identity = "wwn:0x1 partition 1", .partition = true, .wwn = "0x1" },
          SCRATCH_MATCH_NONE, SIZE_MAX, {}, NULL },
        { "serial: of another disk",
          { { "serial:A" } },
          { .name = "sdb", .devnum = SDB, .identity = "serial:B", .serial = "B" },
          SCRATCH_MATCH_NONE, SIZE_MAX, {}, NULL },
        { "loop-file: under any number",
          { { "loop-file:/srv/a.img" } },
          { .name = "loop7", .devnum = LOOP7, .identity = IMG_A, .backing_file = "/srv/a.img" },
          SCRATCH_MATCH_YES, 0, { "ScratchDevices=loop-file:/srv/a.img" }, NULL },
        { "loop-file: of an image that was removed since",
          { { "loop-file:/srv/a.img" } },
          { .name = "loop7", .devnum = LOOP7, .identity = IMG_A, .backing_file = "/srv/a.img (deleted)" },
          SCRATCH_MATCH_NONE, SIZE_MAX, {}, NULL },
        { "a stable name marks it although a kernel name says another disk was bound",
          { { "/dev/loop2", IMG_A, LOOP2 }, { "loop-file:/srv/b.img" } },
          { .name = "loop2", .devnum = LOOP2, .identity = IMG_B, .backing_file = "/srv/b.img" },
          SCRATCH_MATCH_YES, 1, { "ScratchDevices=loop-file:/srv/b.img" }, NULL },
        { "the first path that names it decides why not",
          { { "serial:Z" }, { "/dev/disk/by-id/x", "serial:A", SDB }, { "/dev/sdb", "serial:Q", SDB } },
          { .name = "sdb", .devnum = SDB, .identity = "serial:B", .serial = "B" },
          SCRATCH_MATCH_OTHER, 1, { "ScratchDevices=/dev/disk/by-id/x is bound to serial:A" }, "serial:A" },
};

static void list_of(const EntryRow *rows, size_t n, ScratchList *ret) {
        *ret = (ScratchList) {};
        for (size_t i = 0; i < n && rows[i].word; i++) {
                ck_assert_int_eq(scratch_list_assign(ret, rows[i].word, NULL), 0);
                ck_assert_uint_eq(ret->n, i + 1);
                ret->entries[i].resolved = rows[i].resolved;
                if (rows[i].bound)
                        ck_assert_ptr_nonnull(ret->entries[i].bound = strdup(rows[i].bound));
        }
}

START_TEST(test_judge_table) {
        const JudgeCase *c = &judge_cases[_i];
        _cleanup_(scratch_list_clear) ScratchList l = {};
        _cleanup_free_ char *reason = NULL, *note = NULL;
        size_t at = 42;
        ScratchMatch m;

        list_of(c->entries, ELEMENTSOF(c->entries), &l);
        m = scratch_judge(&l, &c->d, &at);
        ck_assert_msg(m == c->want, "%s: match %d, not %d", c->what, m, c->want);
        ck_assert_msg(at == c->entry, "%s: entry %zu, not %zu", c->what, at, c->entry);
        ck_assert_int_eq(scratch_reason(&l, &c->d, m, at, "/etc/benchd/benchd.conf", &reason, &note), 0);
        if (m == SCRATCH_MATCH_NONE)
                ck_assert_ptr_null(reason);
        for (size_t k = 0; k < ELEMENTSOF(c->reason) && c->reason[k]; k++)
                ck_assert_msg(reason && strstr(reason, c->reason[k]), "%s: \"%s\" not in \"%s\"", c->what,
                              c->reason[k], strna(reason));
        if (c->note)
                ck_assert_msg(note && strstr(note, c->note), "%s: \"%s\" not in note \"%s\"", c->what, c->note,
                              strna(note));
        else
                ck_assert_msg(!note, "%s: a note where none belongs: %s", c->what, note);
}
END_TEST

/* Binding: at first sight, to what the path names then, once. */
START_TEST(test_bind) {
        _cleanup_(scratch_list_clear) ScratchList l = {}, copy = {};
        ScratchDevice a = { .name = "loop2", .devnum = LOOP2, .identity = IMG_A, .backing_file = "/srv/a.img" };
        ScratchDevice b = { .name = "loop2", .devnum = LOOP2, .identity = IMG_B, .backing_file = "/srv/b.img" };
        ScratchDevice none = { .name = "loop2", .devnum = LOOP2 };
        ScratchDevice sdb = { .name = "sdb", .devnum = SDB, .identity = "serial:A", .serial = "A" };

        ck_assert_int_eq(scratch_list_assign(&l, "/dev/loop2 /dev/sdb wwn:0x1", NULL), 0);
        l.entries[0].resolved = LOOP2;
        l.entries[1].resolved = SDB;

        /* No identity: nothing to bind to, and not scratch. */
        ck_assert_int_eq(scratch_bind(&l, &none), 0);
        ck_assert_ptr_null(l.entries[0].bound);
        ck_assert_int_eq(scratch_judge(&l, &none, NULL), SCRATCH_MATCH_UNKNOWN);

        /* First sight of loop2: bound to image a, which is scratch. sdb's entry is not touched. */
        ck_assert_int_eq(scratch_bind(&l, &a), 1);
        ck_assert_str_eq(l.entries[0].bound, IMG_A);
        ck_assert_ptr_null(l.entries[1].bound);
        ck_assert_int_eq(scratch_judge(&l, &a, NULL), SCRATCH_MATCH_YES);

        /* Image b under the same number later: the binding stays, b is not scratch. */
        ck_assert_int_eq(scratch_bind(&l, &b), 0);
        ck_assert_str_eq(l.entries[0].bound, IMG_A);
        ck_assert_int_eq(scratch_judge(&l, &b, NULL), SCRATCH_MATCH_OTHER);

        /* A path that names nothing now binds nothing. */
        l.entries[1].resolved = 0;
        ck_assert_int_eq(scratch_bind(&l, &sdb), 0);
        ck_assert_int_eq(scratch_judge(&l, &sdb, NULL), SCRATCH_MATCH_NONE);
        l.entries[1].resolved = SDB;
        ck_assert_int_eq(scratch_bind(&l, &sdb), 1);
        ck_assert_str_eq(l.entries[1].bound, "serial:A");

        /* A copy (what a helper process judges on) carries the bindings. */
        ck_assert_int_eq(scratch_list_copy(&l, &copy), 0);
        ck_assert_uint_eq(copy.n, 3);
        ck_assert_str_eq(copy.entries[0].bound, IMG_A);
        ck_assert_int_eq(scratch_judge(&copy, &b, NULL), SCRATCH_MATCH_OTHER);
        ck_assert_int_eq(scratch_judge(&copy, &sdb, NULL), SCRATCH_MATCH_YES);
}
END_TEST

static Suite *scratch_suite(void) {
        Suite *s = suite_create("scratch");
        TCase *tc = tcase_create("scratch");

        tcase_add_test(tc, test_parse_table);
        tcase_add_test(tc, test_assign);
        tcase_add_loop_test(tc, test_judge_table, 0, ELEMENTSOF(judge_cases));
        tcase_add_test(tc, test_bind);
        suite_add_tcase(s, tc);
        return s;
}

int main(void) {
        return check_run(scratch_suite());
}
