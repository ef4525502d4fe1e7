#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Imported runs held to the worker's rules, and text from outside shown safely (issue 21, findings
# 5 and 6). A real run is measured and exported (benchctl export --format=benchd); each document
# below is that run with one figure a worker could not have reported (the values of finding 5:
# 2^64+5 bytes, INT64_MAX bytes in 29 ms, a start in the year 148108 and at -1, a zero duration,
# NaN, Infinity, 1e308 % CPU, -50 % device use, and latencies, histogram and block size that
# disagree). Each must be refused by benchctl import naming the column, and leave the database as
# it was: runs, samples and histogram buckets counted before and after; a document with a good run
# before a bad one keeps neither. Then a run that is plausible but carries ESC and BEL in its
# device name and its host is imported, and compare --by device_name, --by host, results and show
# must print those escaped (no 0x1b or 0x07 byte in their output), while --json gives them back
# exactly.

. "$(dirname "$0")/lib.sh"

require_root
require_cmd dbus-daemon python3 sqlite3
require_binaries "$BENCHCTL_BIN"

start_bus
scratch_fs 256M ext4 --direct-io
start_benchd

run benchctl run --workload write --target "$SCRATCH_DIR" --set size=8M --set block_size=64K --set direct=true
[ "$RC" = 0 ] || fail "benchctl run exited $RC: $OUT"
run benchctl export --format benchd
[ "$RC" = 0 ] || fail "export --format benchd exited $RC: $OUT"
printf '%s\n' "$OUT" >"$TEST_DIR/base.json"
[ "$(json_get 'len(d["runs"][0]["samples"]) > 0 and len(d["runs"][0]["histogram"]) > 0' <"$TEST_DIR/base.json")" = True ] ||
        fail "the exported run has no samples or no histogram"

# variant NAME PYTHON [ARG...]: writes $TEST_DIR/NAME.json, the exported run under a new uuid from
# "other-host", with PYTHON applied to it (r: the run, d: the document, a: the ARGs). Prints the
# uuid of r.
variant() {
        python3 - "$TEST_DIR/base.json" "$TEST_DIR/$1.json" "$2" "${@:3}" <<'PY'
import json, sys, uuid
src, dst, code = sys.argv[1:4]
a = sys.argv[4:]
d = json.load(open(src))
d["host"] = "other-host"
r = d["runs"][0]
r["uuid"] = str(uuid.uuid4())
exec(code)
json.dump(d, open(dst, "w"))
print(r["uuid"])
PY
}

counts() {
        sql "SELECT (SELECT count(*) FROM runs) || ' runs, ' || (SELECT count(*) FROM sample_data) || ' samples, '
             || (SELECT count(*) FROM run_histograms) || ' buckets'"
}

# refused NAME PYTHON WANT: the variant is refused, the message names the run and says WANT, and
# nothing was written.
refused() {
        local name=$1 code=$2 want=$3 uuid before
        uuid=$(variant "$name" "$code")
        before=$(counts)
        run benchctl import "$TEST_DIR/$name.json"
        [ "$RC" != 0 ] || fail "$name: imported, but it should have been refused: $OUT"
        assert_contains "$OUT" "run 1 of 1 in the import document (uuid $uuid)" "$name: the refusal names the run"
        assert_contains "$OUT" "$want" "$name: the refusal"
        assert_contains "$OUT" "nothing of the document was imported" "$name: the refusal"
        assert_eq "$(counts)" "$before" "$name: the database after the refused import"
        assert_eq "$(sql "SELECT count(*) FROM runs WHERE uuid = '$uuid'")" 0 "$name: runs of its uuid"
        log "$name: refused: ${OUT#benchctl: import: }"
}

refused bytes-2to64 'r["bytes_written"] = 2**64 + 5' \
        '"bytes_written" is larger than 9223372036854775807, the largest number the database stores'
refused int64max-in-29ms 'r.update(bytes_written=2**63 - 1, duration_usec=29000); del r["samples"]' \
        'RESULT bytes_written=9223372036854775807 in ios_written='
refused int64max-fast 'r.update(runtime_ms=60000, ios_written=2**40, bytes_written=2**56, duration_usec=29000)
del r["samples"]; del r["histogram"]' \
        'bytes in 29000 us, faster than the ceiling of 1000000000000 bytes/s'
refused year-148108 'r["started_usec"] = 2**62' 'started_usec=4611686018427387904 (148108-'
refused started-minus-1 'r["started_usec"] = -1' '"started_usec" is -1: it should be an integer from 0 to 9223372036854775807'
refused duration-0 'r["duration_usec"] = 0' 'duration_usec=0, but the run moved'
refused nan 'r["cpu_user_pct"] = float("nan")' '"cpu_user_pct" is NaN: it should be a finite number'
refused infinity 'r["iowait_pct"] = float("inf")' '"iowait_pct" is Infinity: it should be a finite number'
refused cpu-1e308 'r["cpu_user_pct"] = 1e308' 'RESULT cpu_user_pct=1e+308 is not a percentage (0 to 100)'
refused util-minus-50 'r["dev_util_pct"] = -50' 'RESULT dev_util_pct=-50 is neither a percentage (0 to 100) nor -1'
refused sample-cpu-150 'r["samples"][0]["cpu_user_pct"] = 150' 'SAMPLE cpu_user_pct=150 is not a percentage'
refused size-bounded 'r["bytes_written"] = r["size"] * 2; r["ios_written"] = r["bytes_written"] // 65536; del r["histogram"]' \
        'more than the 8388608 this step can move'
refused latencies-unordered 'r["lat_p50_ns"] = r["lat_max_ns"] * 2' 'RESULT latencies out of order'
refused histogram-count 'r["histogram"][0][1] += 1' 'the HISTOGRAM holds'
refused block-size 'r["bytes_written"] = r["ios_written"] * 65536 + 1' \
        'every I/O of this step moves 1 to 65536 bytes'
refused block-size-column 'r["block_size"] = 0' 'block_size'
# The columns the daemon writes for md and LVM layouts: names of benchd's form (what start-up's
# clean-up of a killed worker's arrays and groups looks for, among this host's runs only), each only
# under its layout.
refused md-name 'r.update(layout="md-raid1", md_array="../../dev/vda")' \
        '"md_array" is '"'"'../../dev/vda'"'"': it should be the name benchd gives an md array'
refused vg-without-lvm 'r["lvm_vg"] = "benchd-1-0"' '"lvm_vg" is given, but "layout" is missing'

# All or nothing: a good run before a bad one is not kept either.
uuid=$(variant two-runs 'g = dict(r, uuid=str(uuid.uuid4())); r["cpu_sys_pct"] = 1e308; d["runs"] = [g, r]')
before=$(counts)
run benchctl import "$TEST_DIR/two-runs.json"
[ "$RC" != 0 ] || fail "a document with an implausible second run was imported: $OUT"
assert_contains "$OUT" "run 2 of 2 in the import document (uuid $uuid): RESULT cpu_sys_pct=1e+308" "the refusal"
assert_eq "$(counts)" "$before" "the database after the refused two-run document"

# ---- text from outside: ESC and BEL in a device name and a host, otherwise plausible ----
NAME=$'loop\e[31mRED\a'
HOST=$'far\e[2Jhost\a'
uuid=$(variant escapes '
r["device_name"] = a[0]
r["device_identity"] = "nowhere:1"
env = json.loads(r["environment"])
env["host"] = a[1]
r["environment"] = json.dumps(env)
d["host"] = a[1]
' "$NAME" "$HOST")
run benchctl import "$TEST_DIR/escapes.json"
[ "$RC" = 0 ] || fail "the run with ESC and BEL in its names was refused: $OUT"
assert_eq "$(sql "SELECT hex(device_name) FROM runs WHERE uuid = '$uuid'")" "$(printf '%s' "$NAME" | od -An -tx1 | tr -d ' \n' | tr a-f A-F)" \
        "the device name as stored"
ID=$(sql "SELECT id FROM runs WHERE uuid = '$uuid'")

# no_raw WHAT: $OUT holds no ESC and no BEL byte.
no_raw() {
        [[ $OUT != *$'\e'* && $OUT != *$'\a'* ]] ||
                fail "$1 printed a raw control character: $(printf '%s' "$OUT" | cat -v)"
}

ESC_NAME='loop\x1b[31mRED\a'
ESC_HOST='far\x1b[2Jhost\a'
run benchctl compare --by device_name
[ "$RC" = 0 ] || fail "compare --by device_name exited $RC: $OUT"
no_raw "compare --by device_name"
assert_contains "$OUT" "$ESC_NAME" "compare --by device_name"
run benchctl compare --by host
[ "$RC" = 0 ] || fail "compare --by host exited $RC: $OUT"
no_raw "compare --by host"
assert_contains "$OUT" "$ESC_HOST" "compare --by host"
run benchctl results
[ "$RC" = 0 ] || fail "results exited $RC: $OUT"
no_raw "results"
assert_contains "$OUT" "$ESC_NAME" "results"
run benchctl show "$ID"
[ "$RC" = 0 ] || fail "show $ID exited $RC: $OUT"
no_raw "show"
assert_contains "$OUT" "Device: $ESC_NAME" "show"
assert_contains "$OUT" "Imported: from $ESC_HOST" "show"
log "show: $(grep -E 'Imported|Device' <<<"$OUT" | tr '\n' ' ')"

# --json stays exact: JSON's own escapes, the same text back.
run benchctl show "$ID" --json
[ "$RC" = 0 ] || fail "show --json exited $RC: $OUT"
no_raw "show --json"
printf '%s' "$OUT" >"$TEST_DIR/show.json"
python3 - "$TEST_DIR/show.json" "$NAME" "$HOST" <<'PY' || fail "show --json does not give the names back exactly: $OUT"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["device_name"] == sys.argv[2], repr(d["device_name"])
assert d["origin_host"] == sys.argv[3], repr(d["origin_host"])
assert json.loads(d["environment"])["host"] == sys.argv[3]
PY
run benchctl compare --by device_name --json
[ "$RC" = 0 ] || fail "compare --by device_name --json exited $RC: $OUT"
no_raw "compare --json"
printf '%s' "$OUT" >"$TEST_DIR/compare.json"
python3 - "$TEST_DIR/compare.json" "$NAME" <<'PY' || fail "compare --json does not give the group exactly: $OUT"
import json, sys
def strings(o):
    if isinstance(o, str):
        yield o
    elif isinstance(o, dict):
        for k, v in o.items():
            yield k
            yield from strings(v)
    elif isinstance(o, list):
        for v in o:
            yield from strings(v)
assert sys.argv[2] in set(strings(json.load(open(sys.argv[1])))), "no group named exactly %r" % sys.argv[2]
PY
