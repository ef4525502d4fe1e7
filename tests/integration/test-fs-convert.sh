#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# The filesystem entry ext4-from-ext3 (issue 25: the seeds' ext3 against an ext4 converted in place),
# through the real daemon on a loop device marked scratch:
#   1. filesystems=ext3,ext4-from-ext3,ext4 as one matrix with the dd profile shortened: the runs name
#      the entry; the converted entry's fs_commands lists mkfs.ext3, tune2fs -O
#      extents,uninit_bg,dir_index and e2fsck -fyD on the device, each with its time, exit status
#      (e2fsck's 1, "errors corrected" after -D, accepted) and output; the other entries list their
#      mkfs alone; compare --job and show --job name the entry;
#   2. a job of ext4-from-ext3 alone: the device then carries an ext4 whose features (dumpe2fs)
#      include extent, uninit_bg and dir_index and still the ext3 journal, and the worker's UUID;
#   3. bad input: a filesystem name with a dash that is no entry, and mkfs_options of the entry that
#      mkfs.ext3 may not be given, each refused by name with the device unchanged.

. "$(dirname "$0")/lib.sh"

require_root
require_cmd dbus-daemon busctl python3 sqlite3 losetup mkfs.ext3 mkfs.ext4 tune2fs e2fsck dumpe2fs blkid sha256sum wipefs
require_loop
require_fs ext4
require_binaries

INVALID=org.benchd.Benchd1.Error.InvalidSpec

start_bus
start_udevd

make_loop 128M; L1=$LOOP_DEV
wipefs -a -q "$L1"
CONF="$TEST_DIR/benchd.conf"
printf 'ScratchDevices=%s\n' "$L1" >"$CONF"
start_benchd --config="$CONF"
dev=$(basename "$L1")

# ---- 1. ext3, ext4-from-ext3, ext4 ----
log "1. ext3, ext4-from-ext3 and ext4 on $L1 running the dd profile"
out=$(benchctl run --profile dd --set filesystems=ext3,ext4-from-ext3,ext4 --set devices="$L1" \
        --set destructive=true --set size=8M 2>&1) || fail "the matrix job failed: $out"
job=$(sql "select max(id) from jobs")
assert_eq "succeeded" "$(sql "select state from jobs where id = $job")" "matrix job state"
assert_eq "0|ext3|write
0|ext3|read
1|ext4-from-ext3|write
1|ext4-from-ext3|read
2|ext4|write
2|ext4|read" "$(sql "select matrix_entry, fs_type, workload from runs where job_id = $job order by step")" "entries in order"
assert_eq "mkfs.ext3 /dev/$dev" "$(sql "select distinct mkfs_command from runs where job_id = $job and matrix_entry = 1")" \
        "the converted entry's mkfs"
# Both runs of the entry record the commands the first one ran.
commands=$(sql "select fs_commands from runs where job_id = $job and step = 2")
assert_eq "$commands" "$(sql "select fs_commands from runs where job_id = $job and step = 3")" "the entry's runs agree"
got=$(printf '%s' "$commands" | python3 -c '
import json, sys
cmds = json.load(sys.stdin)
for c in cmds:
    assert c["usec"] > 0, c
    assert isinstance(c["output"], str)
for c in cmds:
    ok = (0, 1) if c["command"].startswith("e2fsck ") else (0,)
    print("%s|%s" % (c["command"], "ok" if c["status"] in ok else c["status"]))')
assert_eq "mkfs.ext3 /dev/$dev|ok
tune2fs -O extents,uninit_bg,dir_index /dev/$dev|ok
e2fsck -fyD /dev/$dev|ok" "$got" "the conversion's commands, in order"
assert_contains "$(printf '%s' "$commands" | json_get 'd[2]["output"]')" "Pass 3A: Optimizing directories" "e2fsck -D's output"
assert_eq "[\"mkfs.ext3 /dev/$dev\"]" "$(sql "select fs_commands from runs where job_id = $job and step = 0" |
        json_get '[c["command"] for c in d]')" "the ext3 entry: mkfs alone"
assert_eq "[\"mkfs.ext4 /dev/$dev\"]" "$(sql "select fs_commands from runs where job_id = $job and step = 4" |
        json_get '[c["command"] for c in d]')" "the ext4 entry: mkfs alone"
table=$(benchctl compare --job "$job")
log "compare --job $job:"$'\n'"$table"
assert_contains "$table" "ext4-from-ext3" "compare --job names the converted entry"
benchctl compare --job "$job" --json | json_get 'd["groups"]' | grep -qx '\["ext3", "ext4-from-ext3", "ext4"\]' ||
        fail "compare --job's groups: $(benchctl compare --job "$job" --json | json_get 'd["groups"]')"
show=$(benchctl show --job "$job")
assert_contains "$show" "ext4-from-ext3" "show --job names the converted entry"
assert_eq '[["ext3", 1], ["ext4-from-ext3", 3], ["ext4", 1]]' \
        "$(benchctl show --job "$job" --json | json_get '[[e["name"], len(e["fs_commands"])] for e in d["entries"]]')" \
        "show --job --json: each entry's commands"

# ---- 2. the converted filesystem, left on the device ----
log "2. ext4-from-ext3 alone: what $L1 carries afterwards"
out=$(benchctl run --workload write --set filesystems=ext4-from-ext3 --set devices="$L1" --set destructive=true \
        --set size=4M --set block_size=64K 2>&1) || fail "the conversion job failed: $out"
job=$(sql "select max(id) from jobs")
uuid=$(sql "select fs_uuid from runs where job_id = $job")
assert_eq "ext4 $uuid" "$(blkid -o value -s TYPE "$L1") $(blkid -o value -s UUID "$L1")" "$L1 carries the converted ext4"
features=$(dumpe2fs -h "$L1" 2>/dev/null | sed -n 's/^Filesystem features: *//p')
log "features of $L1: $features"
for f in has_journal extent uninit_bg dir_index; do
        [[ " $features " == *" $f "* ]] || fail "the converted filesystem lacks $f: $features"
done
e2fsck -fn "$L1" >/dev/null 2>&1 || fail "the converted filesystem is not clean: $(e2fsck -fn "$L1" 2>&1 | tail -5)"

# ---- 3. bad input ----
log "3. bad input is refused by name, $L1 unchanged"
before=$(sha256sum <"$L1")
out=$(benchctl submit --workload write --set filesystems=ext4-from-ext4 --set devices="$L1" --set destructive=true \
        --set size=4M 2>&1) && fail "an unknown entry was accepted: $out"
assert_contains "$out" "'ext4-from-ext4' is not a filesystem name" "the unknown entry's refusal"
assert_contains "$out" "ext4-from-ext3" "the refusal names the entry there is"
out=$(benchctl submit --workload write --set filesystems=ext4-from-ext3 --set devices="$L1" --set destructive=true \
        --set size=4M --set mkfs_options.ext4-from-ext3="-d /etc" 2>&1) && fail "mkfs.ext3 -d was accepted: $out"
assert_contains "$out" "mkfs_options.ext4-from-ext3" "the refusal names the entry's options"
assert_eq "$before" "$(sha256sum <"$L1")" "$L1 unchanged by the refusals"
log "ok"
