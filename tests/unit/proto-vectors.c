/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The worker protocol's frames as daemon/shared/proto.c encodes them, for test-worker-proto.py to
 * hold the tests' Python copy (tests/integration/worker_proto.py) to: one JSON object, whose
 * "frames" each give the type, the field values put in and the hex of the whole frame out. Every
 * field gets a value of its own, so a field the copy reads or writes at another place, or with
 * another width, shows as a difference.
 */
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record-example.h"
#include "shared/proto.h"
#include "shared/proto-record.h"

static json_object *frames;

static void add(const char *name, int type, int r, uint8_t *buf, size_t len, json_object *fields) {
        json_object *o = json_object_new_object();
        char *hex;

        if (r < 0) {
                fprintf(stderr, "proto-vectors: cannot encode %s: %s\n", name, strerror(-r));
                exit(EXIT_FAILURE);
        }
        hex = malloc(2 * len + 1);
        if (!hex)
                exit(EXIT_FAILURE);
        for (size_t i = 0; i < len; i++)
                sprintf(hex + 2 * i, "%02x", buf[i]);
        json_object_object_add(o, "name", json_object_new_string(name));
        json_object_object_add(o, "type", json_object_new_int(type));
        json_object_object_add(o, "fields", fields);
        json_object_object_add(o, "hex", json_object_new_string(hex));
        json_object_array_add(frames, o);
        free(hex);
        free(buf);
}

static json_object *u64(uint64_t v) {
        return json_object_new_uint64(v);
}

static json_object *str(const char *s) {
        return json_object_new_string(s);
}

/* PHASE and LOG: the same payload. */
static void add_text(const char *name, ProtoType type, uint32_t level, const char *text) {
        ProtoText m = { .level = level, .text = (char *) text };
        json_object *f = json_object_new_object();
        uint8_t *buf = NULL;
        size_t len = 0;
        int r;

        r = proto_encode_text(type, &m, &buf, &len);
        json_object_object_add(f, "level", u64(m.level));
        json_object_object_add(f, "text", str(m.text));
        add(name, type, r, buf, len, f);
}

int main(void) {
        json_object *top = json_object_new_object(), *f, *a, *records;
        uint8_t *buf;
        size_t len;
        int r;

        frames = json_object_new_array();

        {
                ProtoHello m = { .version = PROTO_VERSION, .pid = 4242 };
                r = proto_encode_hello(&m, &buf, &len);
                f = json_object_new_object();
                json_object_object_add(f, "version", u64(m.version));
                json_object_object_add(f, "pid", u64(m.pid));
                add("hello", PROTO_HELLO, r, buf, len, f);
        }
        {
                ProtoSpec m = {
                        .job_id = 0x0102030405060708u, .step = 7, .text = (char *) "workload=write\nsize=1M\n",
                        .guard = { .kind = PROTO_GUARD_BLOCK, .flags = PROTO_GUARD_SCRATCH,
                                   .dev = 0x1112131415161718u, .ino = 0x2122232425262728u,
                                   .diskseq = 0x3132333435363738u },
                };
                r = proto_encode_spec(&m, &buf, &len);
                f = json_object_new_object();
                json_object_object_add(f, "job_id", u64(m.job_id));
                json_object_object_add(f, "step", u64(m.step));
                json_object_object_add(f, "text", str(m.text));
                a = json_object_new_array();
                json_object_array_add(a, u64(m.guard.kind));
                json_object_array_add(a, u64(m.guard.flags));
                json_object_array_add(a, u64(m.guard.dev));
                json_object_array_add(a, u64(m.guard.ino));
                json_object_array_add(a, u64(m.guard.diskseq));
                json_object_object_add(f, "guard", a);
                add("spec", PROTO_SPEC, r, buf, len, f);
        }
        add_text("phase", PROTO_PHASE, 0, "measure");
        add_text("log", PROTO_LOG, 6, "a line the worker logged");
        {
                ProtoError m = { .error = 28, .message = (char *) "no space left for the test file" };
                r = proto_encode_error(&m, &buf, &len);
                f = json_object_new_object();
                json_object_object_add(f, "error", u64((uint64_t) m.error));
                json_object_object_add(f, "message", str(m.message));
                add("error", PROTO_ERROR, r, buf, len, f);
        }
        /* The described records (proto-record.h): each as the table makes it, and the table itself. */
        records = json_object_new_array();
        for (size_t k = 0; proto_records[k]; k++) {
                const ProtoRecordDesc *d = proto_records[k];
                json_object *desc = json_object_new_object(), *fl = json_object_new_array();
                uint8_t m[256];

                record_example(d, m);
                r = proto_record_encode(d, m, &buf, &len);
                f = json_object_new_object();
                for (size_t i = 0; i < d->n_fields; i++) {
                        const ProtoField *x = &d->fields[i];
                        json_object *pair = json_object_new_array();
                        static const char *const kinds[] = {
                                [PROTO_FIELD_U32] = "u32", [PROTO_FIELD_U64] = "u64",
                                [PROTO_FIELD_F64] = "f64", [PROTO_FIELD_NAME] = "string",
                        };

                        json_object_array_add(pair, str(x->name));
                        json_object_array_add(pair, str(kinds[x->kind]));
                        json_object_array_add(fl, pair);
                        if (x->kind == PROTO_FIELD_F64)
                                json_object_object_add(f, x->name, json_object_new_double(proto_field_f64(x, m)));
                        else if (x->kind == PROTO_FIELD_NAME)
                                json_object_object_add(f, x->name, str((const char *) m + x->offset));
                        else
                                json_object_object_add(f, x->name, u64(proto_field_u64(x, m)));
                }
                json_object_object_add(desc, "name", str(d->name));
                json_object_object_add(desc, "type", json_object_new_int(d->type));
                json_object_object_add(desc, "fields", fl);
                json_object_array_add(records, desc);
                add(d->name, d->type, r, buf, len, f);
        }
        {
                ProtoStart m = { .start_usec = 0x0102030405060708u };
                r = proto_encode_start(&m, &buf, &len);
                f = json_object_new_object();
                json_object_object_add(f, "start_usec", u64(m.start_usec));
                add("start", PROTO_START, r, buf, len, f);
        }
        {
                ProtoFsMember members[] = {
                        { .path = (char *) "/dev/loop3", .dev = 0x0700000003u, .diskseq = 91, .flags = PROTO_GUARD_SCRATCH },
                        { .path = (char *) "/dev/loop14", .dev = 0x070000000eu, .diskseq = 0, .flags = 0 },
                };
                ProtoFsSetup m = {
                        .stage = PROTO_FS_STAGE_MAKE, .fs_type = (char *) "ext4", .layout = (char *) "md-raid1+lvm",
                        .mkfs_options = (char *) "-E nodiscard", .mount_options = (char *) "noatime",
                        .expect_uuid = (char *) "", .n_members = 2, .members = members,
                        .partitions = 3, .partition = 2,
                        .md_name = (char *) "benchd-12-3", .md_options = (char *) "--bitmap=none",
                        .md_resync = PROTO_MD_RESYNC_ASSUME_CLEAN,
                        .lvm_options = (char *) "--physicalextentsize=1M", .lv_size = 0x1000000u,
                        .layout_flags = PROTO_FS_LAYOUT_REMOVE,
                };
                r = proto_encode_fs_setup(&m, &buf, &len);
                f = json_object_new_object();
                json_object_object_add(f, "stage", u64(m.stage));
                json_object_object_add(f, "fs_type", str(m.fs_type));
                json_object_object_add(f, "layout", str(m.layout));
                json_object_object_add(f, "mkfs_options", str(m.mkfs_options));
                json_object_object_add(f, "mount_options", str(m.mount_options));
                json_object_object_add(f, "expect_uuid", str(m.expect_uuid));
                a = json_object_new_array();
                for (size_t i = 0; i < m.n_members; i++) {
                        json_object *b = json_object_new_array();
                        json_object_array_add(b, str(members[i].path));
                        json_object_array_add(b, u64(members[i].dev));
                        json_object_array_add(b, u64(members[i].diskseq));
                        json_object_array_add(b, u64(members[i].flags));
                        json_object_array_add(a, b);
                }
                json_object_object_add(f, "members", a);
                json_object_object_add(f, "partitions", u64(m.partitions));
                json_object_object_add(f, "partition", u64(m.partition));
                json_object_object_add(f, "md_name", str(m.md_name));
                json_object_object_add(f, "md_options", str(m.md_options));
                json_object_object_add(f, "md_resync", u64(m.md_resync));
                json_object_object_add(f, "md_release", u64(m.md_release));
                json_object_object_add(f, "lvm_options", str(m.lvm_options));
                json_object_object_add(f, "lv_size", u64(m.lv_size));
                json_object_object_add(f, "layout_flags", u64(m.layout_flags));
                add("fs_setup", PROTO_FS_SETUP, r, buf, len, f);
        }
        {
                ProtoFsInfo m = {
                        .fs_type = (char *) "ext4", .uuid = (char *) "0b5e6f0e-1c2d-4e3f-8a9b-0c1d2e3f4a5b",
                        .mkfs_command = (char *) "mkfs.ext4 -F /dev/loop3", .mkfs_usec = 0x1a1b1c1du,
                        .mkfs_output = (char *) "Creating filesystem\n", .mount_options = (char *) "rw,relatime",
                        .size_bytes = 0x2a2b2c2du, .used_bytes = 0x3a3b3cu, .avail_bytes = 0x4a4b4c4du,
                        .inodes = 0x5a5b5cu, .inodes_free = 0x6a6bu,
                        .layout_commands = (char *) "[{\"command\":\"mdadm --create\",\"usec\":5}]",
                        .md_chunk_bytes = 0x80000u, .md_resync_usec = 0x7a7bu,
                        .lv_extents = 0x10u, .lv_bytes = 0x1000000u,
                };
                ProtoFsCommand commands[] = {
                        { .command = (char *) "mkfs.ext3 /dev/loop3", .usec = 0x7a7b7cu, .status = 0,
                          .output = (char *) "Creating journal\n" },
                        { .command = (char *) "e2fsck -fyD /dev/loop3", .usec = 0x8a8bu, .status = 1,
                          .output = (char *) "Pass 3A: Optimizing directories\n" },
                };
                m.n_commands = sizeof(commands) / sizeof(commands[0]);
                m.commands = commands;
                r = proto_encode_fs_info(&m, &buf, &len);
                f = json_object_new_object();
                json_object_object_add(f, "fs_type", str(m.fs_type));
                json_object_object_add(f, "uuid", str(m.uuid));
                json_object_object_add(f, "mkfs_command", str(m.mkfs_command));
                json_object_object_add(f, "mkfs_usec", u64(m.mkfs_usec));
                json_object_object_add(f, "mkfs_output", str(m.mkfs_output));
                json_object_object_add(f, "mount_options", str(m.mount_options));
                json_object_object_add(f, "size_bytes", u64(m.size_bytes));
                json_object_object_add(f, "used_bytes", u64(m.used_bytes));
                json_object_object_add(f, "avail_bytes", u64(m.avail_bytes));
                json_object_object_add(f, "inodes", u64(m.inodes));
                json_object_object_add(f, "inodes_free", u64(m.inodes_free));
                a = json_object_new_array();
                for (size_t i = 0; i < m.n_commands; i++) {
                        json_object *c = json_object_new_object();
                        json_object_object_add(c, "command", str(commands[i].command));
                        json_object_object_add(c, "usec", u64(commands[i].usec));
                        json_object_object_add(c, "status", u64((uint64_t) commands[i].status));
                        json_object_object_add(c, "output", str(commands[i].output));
                        json_object_array_add(a, c);
                }
                json_object_object_add(f, "commands", a);
                json_object_object_add(f, "layout_commands", str(m.layout_commands));
                json_object_object_add(f, "md_chunk_bytes", u64(m.md_chunk_bytes));
                json_object_object_add(f, "md_resync_usec", u64(m.md_resync_usec));
                json_object_object_add(f, "lv_extents", u64(m.lv_extents));
                json_object_object_add(f, "lv_bytes", u64(m.lv_bytes));
                add("fs_info", PROTO_FS_INFO, r, buf, len, f);
        }
        {
                const char *commands = "[{\"command\":\"mdadm --zero-superblock /dev/loop3\",\"usec\":7,"
                                       "\"exit\":0,\"output\":\"\"}]";

                r = proto_encode_fs_released(commands, &buf, &len);
                f = json_object_new_object();
                json_object_object_add(f, "commands", str(commands));
                add("fs_released", PROTO_FS_RELEASED, r, buf, len, f);
        }

        json_object_object_add(top, "magic", u64(PROTO_MAGIC));
        json_object_object_add(top, "version", u64(PROTO_VERSION));
        json_object_object_add(top, "header_size", u64(PROTO_HEADER_SIZE));
        json_object_object_add(top, "frames", frames);
        json_object_object_add(top, "records", records);
        puts(json_object_to_json_string_ext(top, JSON_C_TO_STRING_PLAIN));
        json_object_put(top);
        return fflush(stdout) == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
