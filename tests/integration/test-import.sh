#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Histories that merge across hosts (docs/fleet.md "Many machines"): runs measured by one benchd are
# exported (benchctl export --format=benchd) and imported (benchctl import, ImportRuns) into
# another benchd's database, and come out the same there: every column of the runs (but the ids,
# job and device, which are the importing host's; among them the md, LVM and partition columns of a
# layout run), every sample and every histogram bucket, compared with sqlite3 on both files. A second import adds nothing (idempotent by uuid), a damaged document
# is refused with nothing written, and compare --by host then shows both hosts.
#
# Both "hosts" are this machine, one after the other on the test's private bus, each with a
# database of its own (benchd takes the one bus name, so two cannot share the bus). Both would
# have the same host name, so the exported document is edited to come from "other-host" (its
# "host" and each run's environment "host") before the import.

. "$(dirname "$0")/lib.sh"

require_root
require_cmd dbus-daemon busctl python3 sqlite3
require_binaries "$BENCHCTL_BIN"

start_bus
scratch_fs 256M ext4 --direct-io

# ---- host A: two runs, exported ----
DB_A=$DB
start_benchd
for w in write randread; do
        run benchctl run --workload "$w" --target "$SCRATCH_DIR" --set size=8M --set block_size=64K \
                --set direct=true --set runtime_ms=2000
        [ "$RC" = 0 ] || fail "benchctl run --workload $w exited $RC: $OUT"
done
assert_eq "$(sql "SELECT count(*) FROM runs WHERE status = 'succeeded'")" 2 "succeeded runs on A"
assert_eq "$(sql "SELECT count(*) FROM runs WHERE length(uuid) = 36 AND origin_host IS NULL")" 2 "runs of A with a uuid"
[ "$(sql "SELECT count(*) FROM samples")" -gt 0 ] || fail "A's runs have no samples"
[ "$(sql "SELECT count(*) FROM run_histograms")" -gt 0 ] || fail "A's runs have no histogram"

# A run of an md-raid1+lvm entry on partitions, as the daemon records one (schema 0020, 0021, 0023):
# this machine has no md, so the columns the worker would have reported are written into the
# randread run. Export and import must carry each of them (and every other column of runs).
RID=$(sql "SELECT id FROM runs WHERE workload = 'randread'")
sql "UPDATE runs SET layout = 'md-raid1+lvm', members = '[\"/dev/loop9\",\"/dev/loop10\"]', matrix_entry = 0,
        mkfs_command = 'mkfs.ext4 /dev/benchd-1-0/lv', mkfs_output = 'done', mkfs_usec = 120000,
        fs_uuid = '0b7f5e8a-1111-4222-8333-944445555666', fs_size_bytes = 100000000, fs_used_bytes = 2000000,
        fs_avail_bytes = 90000000, fs_inodes = 25000, fs_inodes_free = 24989,
        fs_commands = '[{\"command\":\"sfdisk /dev/loop9\",\"usec\":9000,\"status\":0,\"output\":\"\"}]',
        partitions = 2, \"partition\" = 1, md_array = 'benchd-1-0', md_resync = 'wait', md_resync_usec = 800000,
        md_chunk_bytes = 0, lvm_vg = 'benchd-1-0', lv_extents = 25, lv_bytes = 104857600,
        layout_commands = '[{\"command\":\"mdadm --create /dev/md/benchd-1-0 --level=1\",\"usec\":5000,\"exit\":0,\"output\":\"\"}]'
        WHERE id = $RID"
assert_eq "$(sql "SELECT count(*) FROM runs WHERE lv_bytes IS NOT NULL AND md_array IS NOT NULL")" 1 "the layout run on A"

# --format=json stays what it was: the runs' columns, an array.
run benchctl export --format json
[ "$RC" = 0 ] || fail "export --format json exited $RC: $OUT"
assert_eq "$(json_get 'type(d).__name__ + str(len(d))' <<<"$OUT")" list2 "export --format json"

run benchctl export --format benchd
[ "$RC" = 0 ] || fail "export --format benchd exited $RC: $OUT"
printf '%s\n' "$OUT" >"$TEST_DIR/a.json"
python3 - "$TEST_DIR/a.json" "$TEST_DIR/other.json" "$(hostname)" <<'PY' || fail "the export document is not as README.md says"
import json, sys
src, dst, host = sys.argv[1:4]
d = json.load(open(src))
assert d["format"] == "benchd-export" and d["version"] == 1, d.keys()
assert d["host"] == host, (d["host"], host)
assert len(d["runs"]) == 2
for r in d["runs"]:
    assert len(r["uuid"]) == 36 and r["samples"] and r["histogram"], r.keys()
    assert json.loads(r["environment"])["host"] == host
    assert "spec" in r
# The other host: its name in the document and in each run's environment.
d["host"] = "other-host"
for r in d["runs"]:
    env = json.loads(r["environment"])
    env["host"] = "other-host"
    r["environment"] = json.dumps(env)
json.dump(d, open(dst, "w"))
PY
stop_benchd

# ---- host B: its own run, then the import ----
DB=$TEST_DIR/b.db
start_benchd
run benchctl run --workload write --target "$SCRATCH_DIR" --set size=8M --set block_size=64K \
        --set direct=true --set runtime_ms=2000
[ "$RC" = 0 ] || fail "benchctl run on B exited $RC: $OUT"

# A damaged document: refused, nothing written.
python3 - "$TEST_DIR/other.json" "$TEST_DIR/bad.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["runs"][0]["block_size"] = "lots"
json.dump(d, open(sys.argv[2], "w"))
PY
run benchctl import "$TEST_DIR/bad.json"
[ "$RC" != 0 ] || fail "import of a run with block_size \"lots\" succeeded: $OUT"
assert_contains "$OUT" "block_size" "the refusal"
assert_eq "$(sql "SELECT count(*) FROM runs")" 1 "runs on B after the refused import"
printf '{"format": "something-else"}' >"$TEST_DIR/wrong.json"
run benchctl import "$TEST_DIR/wrong.json"
[ "$RC" != 0 ] || fail "import of a document of another format succeeded: $OUT"
assert_contains "$OUT" "benchd-export" "the refusal of another format"

run benchctl import "$TEST_DIR/other.json" --json
[ "$RC" = 0 ] || fail "import exited $RC: $OUT"
assert_eq "$(json_get '(d["imported"], d["skipped"])' <<<"$OUT")" "(2, 0)" "the first import"
run benchctl import "$TEST_DIR/other.json"
[ "$RC" = 0 ] || fail "the second import exited $RC: $OUT"
assert_contains "$OUT" "Imported 0 runs; skipped 2" "the second import"
assert_eq "$(sql "SELECT count(*) FROM runs")" 3 "runs on B after both imports"
assert_eq "$(sql "SELECT count(*) FROM runs WHERE origin_host = 'other-host' AND job_id IS NULL")" 2 "imported runs"

# Runs, samples, histograms: the same on both files, matched by uuid.
python3 - "$DB_A" "$DB" <<'PY' || fail "the imported runs differ from the exported ones"
import sqlite3, sys
a, b = (sqlite3.connect(p) for p in sys.argv[1:3])
# Not exported: ids, job and device are the importing host's (origin_host: where B imported it
# from); environment was edited to come from "other-host". Every other column of runs, whatever
# migrations added them, is carried.
skip = {"id", "job_id", "device_id", "origin_host", "environment"}
cols = [r[1] for r in a.execute("PRAGMA table_info(runs)") if r[1] not in skip]
layout = ["md_array", "md_resync", "md_resync_usec", "md_chunk_bytes", "layout_commands", "lvm_vg",
          "lv_extents", "lv_bytes", "partitions", "partition", "fs_commands", "mkfs_output"]
assert all(c in cols for c in layout), [c for c in layout if c not in cols]
q = "SELECT %s FROM runs WHERE lv_bytes IS NOT NULL" % ", ".join('"%s"' % c for c in layout)
assert all(v is not None for v in a.execute(q).fetchone()), "A's layout run lacks a layout column"
q = "SELECT %s FROM runs WHERE uuid = ?" % ", ".join('"%s"' % c for c in cols)
n = 0
for (uuid,) in a.execute("SELECT uuid FROM runs"):
    ra, rb = a.execute(q, (uuid,)).fetchone(), b.execute(q, (uuid,)).fetchone()
    assert rb is not None, "run %s not imported" % uuid
    for c, x, y in zip(cols, ra, rb):
        assert x == y, "run %s column %s: %r on A, %r on B" % (uuid, c, x, y)
    ida = a.execute("SELECT id FROM runs WHERE uuid = ?", (uuid,)).fetchone()[0]
    idb = b.execute("SELECT id FROM runs WHERE uuid = ?", (uuid,)).fetchone()[0]
    for table, order in (("samples", "t_ms"), ("run_histograms", "upper_ns")):
        sc = [r[1] for r in a.execute("PRAGMA table_info(%s)" % table) if r[1] != "run_id"]
        sq = "SELECT %s FROM %s WHERE run_id = ? ORDER BY %s" % (", ".join(sc), table, order)
        sa, sb = a.execute(sq, (ida,)).fetchall(), b.execute(sq, (idb,)).fetchall()
        assert sa and sa == sb, "run %s: %s differ (%d rows on A, %d on B)" % (uuid, table, len(sa), len(sb))
    env = b.execute("SELECT json_extract(environment, '$.host') FROM runs WHERE id = ?", (idb,)).fetchone()[0]
    assert env == "other-host", env
    n += 1
assert n == 2, n
PY

# GetRun shows where a run came from.
ID=$(sql "SELECT min(id) FROM runs WHERE origin_host IS NOT NULL")
run benchctl show "$ID" --json
assert_eq "$(json_get 'd["origin_host"]' <<<"$OUT")" other-host "show --json's origin_host"
# ... and the imported layout run its layout, as on A.
ID=$(sql "SELECT id FROM runs WHERE origin_host IS NOT NULL AND lvm_vg IS NOT NULL")
run benchctl show "$ID" --json
[ "$RC" = 0 ] || fail "show of the imported layout run exited $RC: $OUT"
assert_eq "$(json_get '(d["md_array"], d["lvm_vg"], d["lv_bytes"], d["partition"], json.loads(d["layout_commands"])[0]["command"])' <<<"$OUT")" \
        "('benchd-1-0', 'benchd-1-0', 104857600, 1, 'mdadm --create /dev/md/benchd-1-0 --level=1')" \
        "show --json of the imported layout run"
run benchctl show "$ID"
[ "$RC" = 0 ] || fail "show of the imported layout run exited $RC: $OUT"
assert_contains "$OUT" "md-raid1+lvm, md array benchd-1-0 (resync wait" "show's layout line"
assert_contains "$OUT" "volume group benchd-1-0 (lv 100 MiB in 25 extents), partition 1 of 2" "show's layout line"
log "show: $(grep 'Layout' <<<"$OUT")"
# B never takes the imported run's array or group for a leftover of its own: a restart looks among
# B's runs only (tests/unit/test-md-leftovers.c shows it stopping nothing by an imported name).
stop_benchd
start_benchd

# compare --by host: B's own run and the imported write, two groups.
run benchctl compare --by host --workload write --json
[ "$RC" = 0 ] || fail "compare --by host exited $RC: $OUT"
printf '%s\n' "$OUT" >"$TEST_DIR/compare.json"
python3 - "$TEST_DIR/compare.json" "$(hostname)" <<'PY' || fail "compare --by host does not show both hosts: $(cat "$TEST_DIR/compare.json")"
import json, sys
d = json.load(open(sys.argv[1]))
groups = d["groups"] if isinstance(d, dict) else d
text = json.dumps(groups)
assert "other-host" in text and sys.argv[2] in text, text
PY
log "compare --by host: $(benchctl compare --by host --workload write 2>&1 | head -n 5)"
