#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# The tests' Python copy of the worker protocol (tests/integration/worker_proto.py) against the C
# description (daemon/shared/proto.h, daemon/shared/proto.c), so that the copy cannot lag:
# - every frame type of enum ProtoType, guard kind, FS stage and the magic/version have the same
#   name (without PROTO_) and number in the copy, and the copy names no frame type C lacks;
# - each frame the copy writes (SPEC, FS_SETUP, START) is byte for byte the frame proto.c encodes
#   from the same fields, and each frame it reads (HELLO, PHASE, LOG, ERROR, FS_INFO) decodes, from
#   proto.c's bytes, to the fields proto.c was given;
# - the described records (daemon/shared/proto-record.c: SAMPLE, PHASE_RESULT, POSITION_RESULT,
#   STEADY_STATE, and any added there) have the same fields in the same order and widths in
#   worker_proto.RECORDS, its decode_record() reads the frame the C table encodes and its
#   encode_record() writes it byte for byte (fake-worker.py sends its records with it).
# The frames come from proto-vectors (tests/unit/proto-vectors.c), which links daemon/shared.
#
# Usage: test-worker-proto.py PROTO-VECTORS SOURCE-ROOT

import json
import os
import re
import subprocess
import sys

vectors_exe, root = sys.argv[1], sys.argv[2]
sys.path.insert(0, os.path.join(root, "tests", "integration"))
import worker_proto as wp  # noqa: E402

failures = []


def check(ok, what):
    if not ok:
        failures.append(what)


def c_enum(text, name):
    """{NAME: value} of `typedef enum NAME { PROTO_X = N, ... }` in proto.h, leaving out _MAX."""
    m = re.search(r"typedef enum " + name + r" \{(.*?)\}", text, re.S)
    if not m:
        sys.exit(f"test-worker-proto: no enum {name} in daemon/shared/proto.h")
    out = {}
    for k, v in re.findall(r"^\s*(PROTO_\w+)\s*=\s*(\d+)", m.group(1), re.M):
        out[k] = int(v)
    if not out:
        sys.exit(f"test-worker-proto: enum {name} in daemon/shared/proto.h has no values")
    return out


header = open(os.path.join(root, "daemon", "shared", "proto.h")).read()

# Frame types: the same names and numbers both ways.
types = c_enum(header, "ProtoType")
c_types = {k[len("PROTO_"):]: v for k, v in types.items()}
check(getattr(wp, "TYPES", None) == c_types,
      f"frame types: worker_proto.TYPES is {getattr(wp, 'TYPES', None)}, proto.h has {c_types}")
for name, value in c_types.items():
    check(getattr(wp, name, None) == value, f"worker_proto.{name} is {getattr(wp, name, None)}, proto.h says {value}")

# Guard kinds and FS stages: every C value has its Python name with the same number.
for enum, strip in (("ProtoGuardKind", "PROTO_"), ("ProtoFsStage", "PROTO_")):
    for k, v in c_enum(header, enum).items():
        name = k[len(strip):]
        check(getattr(wp, name, None) == v, f"worker_proto.{name} is {getattr(wp, name, None)}, proto.h says {v}")
m = re.search(r"#define PROTO_GUARD_SCRATCH UINT32_C\((\d+)\)", header)
check(m and wp.GUARD_SCRATCH == int(m.group(1)), "worker_proto.GUARD_SCRATCH differs from proto.h")

out = subprocess.run([vectors_exe], check=True, capture_output=True, text=True).stdout
v = json.loads(out)
for name in ("magic", "version", "header_size"):
    mine = getattr(wp, name.upper(), None)
    check(mine == v[name], f"worker_proto.{name.upper()} is {mine}, proto.h says {v[name]}")


def missing(name):
    def fail(*args):
        raise NotImplementedError(f"worker_proto has no {name}()")
    return fail


def fn(name):
    return getattr(wp, name, None) or missing(name)


decoders = {
    "hello": "decode_hello",
    "phase": "decode_text",
    "log": "decode_text",
    "error": "decode_error",
    "fs_info": "decode_fs_info",
    "fs_released": "decode_fs_released",
}
# The described records: the same fields, in the same order and widths, as the C table.
c_records = {r["name"]: tuple(tuple(x) for x in r["fields"]) for r in v["records"]}
check(getattr(wp, "RECORDS", None) == c_records,
      f"records: worker_proto.RECORDS is {getattr(wp, 'RECORDS', None)}, proto-record.c has {c_records}")

seen = set()
for f in v["frames"]:
    name, fields, raw = f["name"], f["fields"], bytes.fromhex(f["hex"])
    seen.add(name)
    try:
        typ, payload = fn("parse_frame")(raw)
    except Exception as e:
        failures.append(f"{name}: worker_proto cannot read proto.c's frame: {type(e).__name__}: {e}")
        continue
    check(typ == f["type"], f"{name}: the header says type {typ}, proto.c wrote {f['type']}")
    try:
        mine = None
        if name == "spec":
            mine = fn("encode_spec")(fields["job_id"], fields["step"], fields["text"], tuple(fields["guard"]))
        elif name == "fs_setup":
            mine = fn("encode_fs_setup")(fields["stage"], fields["fs_type"], [tuple(x) for x in fields["members"]],
                                         fields["layout"], fields["mkfs_options"], fields["mount_options"],
                                         fields["expect_uuid"], fields["partitions"], fields["partition"],
                                         fields["md_name"], fields["md_options"], fields["md_resync"],
                                         fields["md_release"], fields["lvm_options"], fields["lv_size"],
                                         fields["layout_flags"])
        elif name == "start":
            mine = fn("encode_start")(fields["start_usec"])
    except Exception as e:
        failures.append(f"{name}: worker_proto cannot write it: {type(e).__name__}: {e}")
        continue
    if name in c_records:
        try:
            got = fn("decode_record")(typ, payload)
        except Exception as e:
            got = f"{type(e).__name__}: {e}"
        check(got == fields, f"{name}: worker_proto decodes {got}, proto.c encoded {fields}")
        try:
            mine = fn("encode_record")(typ, **fields)
        except Exception as e:
            mine = f"{type(e).__name__}: {e}".encode()
        check(mine == raw, f"{name}: worker_proto.encode_record writes\n  {mine.hex()}\nproto.c writes\n  {raw.hex()}")
        continue
    if name in decoders:
        try:
            got = fn(decoders[name])(payload)
        except Exception as e:  # a short or misread payload, or no decoder
            got = f"{type(e).__name__}: {e}"
        if name == "error":
            got = {"error": got[0], "message": got[1]} if isinstance(got, tuple) else got
        check(got == fields, f"{name}: worker_proto decodes {got}, proto.c encoded {fields}")
        continue
    if mine is None:
        failures.append(f"{name}: proto-vectors wrote a frame this test does not know")
        continue
    check(mine == raw, f"{name}: worker_proto writes\n  {mine.hex()}\nproto.c writes\n  {raw.hex()}")
check(seen == {"spec", "fs_setup", "start"} | set(decoders) | set(c_records), f"proto-vectors wrote {sorted(seen)}")

for line in failures:
    print("FAIL:", line)
print(f"{len(failures)} disagreements between worker_proto.py and daemon/shared/proto.[ch]")
sys.exit(1 if failures else 0)
