#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Filesystem matrices (issue 11), through the real daemon on loop devices marked scratch:
#   1. ext4, xfs and btrfs on one device, running the dd profile shortened: every run records how
#      its filesystem was made and what it held after mkfs; nothing is ever mounted on the host;
#      compare --job's % row is the hand-computed one, in the right direction;
#   2. btrfs raid1 over two devices: both carry the same btrfs afterwards;
#   3. bad input, refused at SubmitJob with the device unchanged: an option mkfs rejects (its
#      message quoted), a device that is not scratch and carries data, an unknown filesystem, a
#      device listed twice (also through a symlink), too few devices for the layout, a layout the
#      filesystem cannot do, md RAID on a kernel without md;
#   4. kill -9 of the worker mid-matrix: the job fails naming the entry, nothing stays mounted;
#   5. a blank device that is not scratch (destructive=true): the entry's later steps accept the
#      filesystem its first step made, and afterwards the device, now carrying it, is refused.

. "$(dirname "$0")/lib.sh"

require_root
require_cmd dbus-daemon busctl python3 sqlite3 losetup mkfs.ext4 mkfs.xfs mkfs.btrfs blkid sha256sum wipefs
require_loop
require_fs ext4 xfs btrfs
require_binaries

INVALID=org.benchd.Benchd1.Error.InvalidSpec
UNSAFE=org.benchd.Benchd1.Error.Unsafe

start_bus
start_udevd

# Three scratch devices (xfs needs 300 MB), and one that is not scratch and holds an ext4.
make_loop 320M; L1=$LOOP_DEV
make_loop 320M; L2=$LOOP_DEV
make_loop 320M; L3=$LOOP_DEV
make_loop 64M; DATA=$LOOP_DEV
make_loop 320M; BLANK=$LOOP_DEV
for d in "$L1" "$L2" "$L3" "$BLANK"; do wipefs -a -q "$d"; done
mkfs.ext4 -q -F "$DATA" >/dev/null
CONF="$TEST_DIR/benchd.conf"
printf 'ScratchDevices=%s %s %s\n' "$L1" "$L2" "$L3" >"$CONF"
start_benchd --config="$CONF"

# nothing_mounted DEV...: no mount namespace on the machine has any of them mounted.
nothing_mounted() {
        local d majmin
        for d in "$@"; do
                majmin=$(lsblk -dno MAJ:MIN "$d" | tr -d ' ')
                if grep -l " $majmin " /proc/[0-9]*/mountinfo 2>/dev/null | grep -q .; then
                        fail "$d ($majmin) is mounted somewhere: $(grep -h " $majmin " /proc/[0-9]*/mountinfo | head -3)"
                fi
        done
}

# ---- 1. ext4, xfs, btrfs on one device, the dd profile ----
log "1. a matrix of ext4, xfs and btrfs on $L1 running the dd profile"
out=$(benchctl run --profile dd --set filesystems=ext4,xfs,btrfs --set devices="$L1" --set destructive=true \
        --set size=16M --set mkfs_options.ext4="-E lazy_itable_init=0,lazy_journal_init=0" \
        --set mount_options.ext4=noatime 2>&1) || fail "the matrix job failed: $out"
job=$(sql "select max(id) from jobs")
assert_eq "succeeded" "$(sql "select state from jobs where id = $job")" "matrix job state"
assert_eq "6" "$(sql "select count(*) from runs where job_id = $job and status = 'succeeded'")" "runs of 3 entries × 2 steps"
assert_eq "0|ext4|write
0|ext4|read
1|xfs|write
1|xfs|read
2|btrfs|write
2|btrfs|read" "$(sql "select matrix_entry, fs_type, workload from runs where job_id = $job order by step")" "entries in order"
assert_eq "mkfs.ext4 -E lazy_itable_init=0,lazy_journal_init=0 /dev/$(basename "$L1")" \
        "$(sql "select mkfs_command from runs where job_id = $job and step = 0")" "the exact mkfs command"
assert_eq "noatime" "$(sql "select mount_options from runs where job_id = $job and step = 0")" "ext4's mount options"
assert_eq "single|[\"$L1\"]" "$(sql "select distinct layout, members from runs where job_id = $job")" "layout and members"
# Every run carries its entry's mkfs figures; capacity is sane and the same within an entry.
assert_eq "0" "$(sql "select count(*) from runs where job_id = $job and not (mkfs_usec > 0 and fs_size_bytes > 0
        and fs_used_bytes > 0 and fs_used_bytes < fs_size_bytes and fs_avail_bytes <= fs_size_bytes
        and length(fs_uuid) > 0)")" "runs without sane mkfs figures"
assert_eq "3" "$(sql "select count(distinct fs_uuid) from runs where job_id = $job")" "one filesystem per entry"
assert_eq "0" "$(sql "select count(*) from (select matrix_entry from runs where job_id = $job group by matrix_entry
        having count(distinct fs_used_bytes) > 1 or count(distinct mkfs_command) > 1)")" "entries whose runs disagree"
# The device is left with the last entry's filesystem, which the last run recorded.
assert_eq "btrfs $(sql "select fs_uuid from runs where job_id = $job and step = 5")" \
        "$(blkid -o value -s TYPE "$L1") $(blkid -o value -s UUID "$L1")" "what $L1 carries afterwards"
nothing_mounted "$L1"

# compare --job: one row per workload, one column per filesystem, % against ext4.
table=$(benchctl compare --job "$job")
log "compare --job $job:"$'\n'"$table"
assert_contains "$table" "% vs ext4" "the % row"
json=$(benchctl compare --job "$job" --json)
# By hand, from the database: MiB/s of each run, (x - ext4) / ext4.
expect=$(sql "select r.workload, r.fs_type, (r.bytes_read + r.bytes_written) * 1000000.0 / r.duration_usec / 1048576.0
        from runs r where r.job_id = $job order by r.step" | python3 -c '
import sys
v = {}
for line in sys.stdin:
    w, fs, x = line.strip().split("|")
    v[(w, fs)] = float(x)
for w in ("write", "read"):
    for fs in ("xfs", "btrfs"):
        print("%s %s %.4f" % (w, fs, (v[(w, fs)] - v[(w, "ext4")]) / v[(w, "ext4")] * 100))')
got=$(printf '%s' "$json" | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["baseline"] == "ext4", d["baseline"]
for row in d["rows"]:
    w = row["row"].split()[0]
    for fs in ("xfs", "btrfs"):
        print("%s %s %.4f" % (w, fs, row["diff_pct"][fs]))')
assert_eq "$expect" "$got" "compare --job % differences against ext4"
# --baseline moves the reference: btrfs against xfs.
got=$(benchctl compare --job "$job" --baseline xfs --json | json_get 'round(d["rows"][0]["diff_pct"]["btrfs"], 4)')
want=$(sql "select round(((select (bytes_read + bytes_written) * 1.0 / duration_usec from runs where job_id = $job and step = 4)
        / (select (bytes_read + bytes_written) * 1.0 / duration_usec from runs where job_id = $job and step = 2) - 1) * 100, 4)")
python3 -c "import sys; a, b = float(sys.argv[1]), float(sys.argv[2]); sys.exit(0 if abs(a - b) < 0.001 else 1)" "$got" "$want" ||
        fail "compare --baseline xfs: btrfs is $got%, by hand $want%"
assert_failure benchctl compare --job "$job" --baseline zfs
show=$(benchctl show --job "$job")
log "show --job $job:"$'\n'"$show"
assert_contains "$show" "USE%" "show --job's capacity table"
assert_contains "$show" "xfs" "show --job lists xfs"

# ---- 2. btrfs raid1 over two devices ----
log "2. btrfs raid1 over $L2 and $L3"
out=$(benchctl run --workload write --set filesystems=btrfs --set layout=raid1 --set devices="$L2,$L3" \
        --set destructive=true --set size=16M --set block_size=64K 2>&1) || fail "the raid1 job failed: $out"
job=$(sql "select max(id) from jobs")
assert_eq "btrfs|raid1|[\"$L2\",\"$L3\"]" "$(sql "select fs_type, layout, members from runs where job_id = $job")" "raid1 run"
uuid=$(sql "select fs_uuid from runs where job_id = $job")
assert_eq "btrfs $uuid btrfs $uuid" "$(blkid -o value -s TYPE "$L2") $(blkid -o value -s UUID "$L2") $(blkid -o value -s TYPE "$L3") $(blkid -o value -s UUID "$L3")" \
        "both members carry the same btrfs"
assert_contains "$(sql "select mkfs_command from runs where job_id = $job")" "-d raid1 -m raid1" "mkfs.btrfs's profile options"
nothing_mounted "$L2" "$L3"

# ---- 3. bad input: refused at submit, the devices unchanged ----
log "3. bad input"
wipefs -a -q "$L3"
sum1=$(sha256sum <"$L1"); sum3=$(sha256sum <"$L3"); sumd=$(sha256sum <"$DATA")
# refused NEEDLE KEY=VALUE...: SubmitJob refuses the job, saying NEEDLE.
refused() {
        local needle=$1 args=() a
        shift
        for a in "$@"; do args+=(--set "$a"); done
        out=$(benchctl submit --workload write --set destructive=true --set size=8M "${args[@]}" 2>&1) &&
                fail "accepted: $* ($out)"
        assert_contains "$out" "$needle" "refusal of $*"
}
refused "mkfs.ext4" filesystems=ext4 devices="$L1" mkfs_options.ext4="-O no_such_feature"
refused "nosuchfs" filesystems=nosuchfs devices="$L1"
refused "given twice" filesystems=ext4 devices="$L1,$L1"
ln -s "$L1" "$TEST_DIR/same-as-l1"
refused "same device" filesystems=ext4 devices="$L1,$TEST_DIR/same-as-l1"
refused "at least 2 devices" filesystems=btrfs layout=raid1 devices="$L1"
refused "btrfs's own RAID" filesystems=ext4,btrfs layout=raid1 devices="$L1,$L3"
refused "md" filesystems=ext4 layout=md-raid1 devices="$L1,$L3"
refused "ext4 signature" filesystems=ext4 devices="$DATA"
refused "destructive" filesystems=ext4 devices="$L1" destructive=false
assert_eq "$sum1 $sum3 $sumd" "$(sha256sum <"$L1") $(sha256sum <"$L3") $(sha256sum <"$DATA")" "devices after the refusals"
# And the mkfs message is quoted.
out=$(benchctl submit --workload write --set filesystems=ext4 --set devices="$L3" --set destructive=true \
        --set mkfs_options.ext4="-O no_such_feature" 2>&1) || true
assert_contains "$out" "Invalid filesystem option set: no_such_feature" "mkfs.ext4's own words"

# ---- 4. kill -9 of the worker mid-matrix ----
log "4. kill -9 of the worker mid-matrix"
id=$(benchctl submit --workload write --set filesystems=ext4,xfs --set devices="$L3" --set destructive=true \
        --set size=64M --set runtime_ms=60000 --set block_size=4K | awk '{print $NF}' | tr -dc '0-9')
[ -n "$id" ] || id=$(sql "select max(id) from jobs")
entry_made() { [ "$(sql "select count(*) from runs where job_id = $id and fs_uuid is not null")" = 1 ]; }
job_failed() { [ "$(sql "select state from jobs where id = $id")" = failed ]; }
wait_for 30 entry_made ||
        fail "the first entry's filesystem was not made: $(sql "select state, error from jobs where id = $id")"
pids=$(worker_pids)
[ -n "$pids" ] || fail "no worker to kill"
# Mounted in the worker's namespace, and only there.
for p in $pids; do
        grep -q " $(lsblk -dno MAJ:MIN "$L3" | tr -d ' ') " "/proc/$p/mountinfo" && inside=1
done
[ "${inside:-0}" = 1 ] || fail "the worker's namespace does not have $L3 mounted"
grep -q " $(lsblk -dno MAJ:MIN "$L3" | tr -d ' ') " /proc/self/mountinfo && fail "$L3 is mounted in the host namespace"
kill -9 $pids
wait_for 30 job_failed ||
        fail "job $id did not fail after kill -9 of its worker: $(sql "select state, error from jobs where id = $id")"
err=$(sql "select error from jobs where id = $id")
log "job $id: $err"
assert_contains "$err" "ext4" "the failed job names its entry"
nothing_mounted "$L3"

# ---- 5. a blank device, not scratch ----
log "5. a blank device that is not marked scratch: $BLANK"
out=$(benchctl run --profile dd --set filesystems=ext4 --set devices="$BLANK" --set destructive=true \
        --set size=8M 2>&1) || fail "the matrix job on blank $BLANK failed: $out"
job=$(sql "select max(id) from jobs")
assert_eq "2" "$(sql "select count(*) from runs where job_id = $job and status = 'succeeded'")" \
        "both steps, the second on the ext4 the first made"
assert_eq "ext4" "$(blkid -o value -s TYPE "$BLANK")" "what $BLANK carries afterwards"
sum=$(sha256sum <"$BLANK")
refused "ext4 signature" filesystems=ext4 devices="$BLANK"
assert_eq "$sum" "$(sha256sum <"$BLANK")" "$BLANK after the refusal"
nothing_mounted "$BLANK"

log "ok"
