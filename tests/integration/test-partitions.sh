#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# partitions= as a matrix dimension (issue 25: the seeds' first partition against their second),
# through the real daemon on a loop device marked scratch. The kernel here may have no GPT parser for
# loop devices (losetup -P shows no partitions): the worker adds the partitions of its table itself.
#   1. filesystems=ext4 partitions=2 with the dd profile shortened: two entries, "ext4 p1" and
#      "ext4 p2", each run recording partitions=2 and its partition, mkfs on its own partition
#      (/dev/loopNp1, p2); the table sfdisk wrote is recorded (fs_commands) and on the image: two
#      equal partitions at the offsets benchd lays out (sfdisk --dump of the image file); each
#      entry's ext4 is at its partition's offset of the image with the UUID its runs recorded (so p2's
#      mkfs left p1's alone); the bytes outside the partitions and the GPT are unchanged; the kernel
#      shows no partition of the device afterwards; compare --job has a column per partition;
#   2. bad input refused by name at SubmitJob, the device unchanged: partitions=17, partition=3 of
#      partitions=2, partitions without filesystems, partitions on a device too small for them, and
#      partitions on a partition (of a device the test partitioned itself).

. "$(dirname "$0")/lib.sh"

require_root
require_cmd dbus-daemon busctl python3 sqlite3 losetup mkfs.ext4 sfdisk partx blkid sha256sum wipefs dd
require_loop
require_fs ext4
require_binaries

INVALID=org.benchd.Benchd1.Error.InvalidSpec

start_bus
start_udevd

make_loop 256M; L1=$LOOP_DEV; IMG1=$(losetup -nO BACK-FILE "$L1")
make_loop 40M; SMALL=$LOOP_DEV
make_loop 64M; OTHER=$LOOP_DEV
make_loop 64M; BLANK=$LOOP_DEV
dev=$(basename "$L1")
# Random bytes everywhere (no signature survives in random data), so that a write outside the
# partitions and the GPT shows in a checksum.
dd if=/dev/urandom of="$L1" bs=1M count=256 status=none oflag=direct
wipefs -a -q "$L1" "$SMALL" "$OTHER" "$BLANK"
CONF="$TEST_DIR/benchd.conf"
printf 'ScratchDevices=%s %s %s\n' "$L1" "$SMALL" "$OTHER" >"$CONF"
start_benchd --config="$CONF"

# The layout benchd makes: 1 MiB aligned, equal whole MiB, the backup GPT (33 sectors) at the end.
size=$(blockdev --getsize64 "$L1")
each=$(( (size - 33 * 512 - 1048576) / 2 / 1048576 * 1048576 ))
start1=1048576
start2=$(( start1 + each ))
end=$(( start2 + each ))
log "expected: p1 at $start1, p2 at $start2, each $each bytes, the partitions end at $end of $size"
# region OFFSET LENGTH: the checksum of those bytes of the image.
region() { dd if="$IMG1" bs=512 skip=$(( $1 / 512 )) count=$(( $2 / 512 )) status=none | sha256sum; }
gap_head_before=$(region 17408 $(( start1 - 17408 )))
gap_tail_before=$(region "$end" $(( size - 33 * 512 - end )))

# ---- 1. ext4 on partition 1 and partition 2 ----
log "1. ext4 on 2 partitions of $L1, the dd profile"
out=$(benchctl run --profile dd --set filesystems=ext4 --set partitions=2 --set devices="$L1" \
        --set destructive=true --set size=8M 2>&1) || fail "the partitions job failed: $out"
job=$(sql "select max(id) from jobs")
assert_eq "succeeded" "$(sql "select state from jobs where id = $job")" "job state"
assert_eq "0|2|1|write|mkfs.ext4 /dev/${dev}p1
0|2|1|read|mkfs.ext4 /dev/${dev}p1
1|2|2|write|mkfs.ext4 /dev/${dev}p2
1|2|2|read|mkfs.ext4 /dev/${dev}p2" \
        "$(sql "select matrix_entry, partitions, \"partition\", workload, mkfs_command from runs where job_id = $job order by step")" \
        "entries, partitions and their mkfs"
cmds=$(sql "select fs_commands from runs where job_id = $job and step = 2" | json_get '[c["command"] for c in d]')
assert_eq "[\"sfdisk --no-reread --no-tell-kernel /dev/$dev\", \"mkfs.ext4 /dev/${dev}p2\"]" "$cmds" "p2's commands"
assert_contains "$(sql "select fs_commands from runs where job_id = $job and step = 0" | json_get 'd[0]["output"]')" \
        "/dev/${dev}p2" "sfdisk's output lists the table"

# The table on the image: exactly the two partitions.
dump=$(sfdisk --dump "$IMG1" | grep '^/')
log "the table on $IMG1:"$'\n'"$dump"
assert_eq "2" "$(printf '%s\n' "$dump" | wc -l)" "partitions in the table"
assert_contains "$dump" "start=        $(( start1 / 512 )), size=      $(( each / 512 ))" "partition 1 in the table"
assert_contains "$dump" "start=      $(( start2 / 512 )), size=      $(( each / 512 ))" "partition 2 in the table"
# Each entry's filesystem is on its own partition of the image, untouched by the other's mkfs.
uuid1=$(sql "select distinct fs_uuid from runs where job_id = $job and \"partition\" = 1")
uuid2=$(sql "select distinct fs_uuid from runs where job_id = $job and \"partition\" = 2")
assert_ne "$uuid1" "$uuid2" "the two entries' filesystems"
assert_eq "ext4 $uuid1" "$(blkid -p -O "$start1" -o value -s TYPE "$IMG1") $(blkid -p -O "$start1" -o value -s UUID "$IMG1")" \
        "the ext4 at partition 1's offset"
assert_eq "ext4 $uuid2" "$(blkid -p -O "$start2" -o value -s TYPE "$IMG1") $(blkid -p -O "$start2" -o value -s UUID "$IMG1")" \
        "the ext4 at partition 2's offset"
# Nothing outside the partitions and the GPT was written.
assert_eq "$gap_head_before" "$(region 17408 $(( start1 - 17408 )))" "the bytes between the GPT and partition 1"
assert_eq "$gap_tail_before" "$(region "$end" $(( size - 33 * 512 - end )))" "the bytes between partition 2 and the backup GPT"
# And the kernel shows no partition of it any more.
left=$(ls /sys/class/block/"$dev"/ | grep "^${dev}p" || true)
assert_eq "" "$left" "partitions of $dev in the kernel after the job"

table=$(benchctl compare --job "$job")
log "compare --job $job:"$'\n'"$table"
benchctl compare --job "$job" --json | json_get 'd["groups"]' | grep -qx '\["ext4 p1", "ext4 p2"\]' ||
        fail "compare --job's columns: $(benchctl compare --job "$job" --json | json_get 'd["groups"]')"

# The export for another host carries them.
got=$(benchctl export --format=benchd --job "$job" | python3 -c '
import json, sys
d = json.load(sys.stdin)
runs = d["runs"] if isinstance(d, dict) else d
print(sorted({(r["partitions"], r["partition"], json.loads(r["fs_commands"])[0]["command"].split()[0] if isinstance(r["fs_commands"], str) else r["fs_commands"][0]["command"].split()[0]) for r in runs}))')
assert_eq "[(2, 1, 'sfdisk'), (2, 2, 'sfdisk')]" "$got" "the exported runs' partitions and commands"

# ---- 2. bad input ----
log "2. bad input refused by name"
before=$(sha256sum <"$L1")
# submit_refused WHAT EXPECTED-TEXT ARGS...: SubmitJob refuses with InvalidSpec containing the text.
submit_refused() {
        local what=$1 want=$2 out
        shift 2
        out=$(benchctl submit --workload write --set destructive=true --set size=4M "$@" 2>&1) &&
                fail "$what was accepted: $out"
        assert_contains "$out" "$want" "$what"
}
submit_refused "partitions=17" "partitions: '17' is not a number of 1 to 16" \
        --set filesystems=ext4 --set devices="$L1" --set partitions=17
submit_refused "partition=3 of 2" "partition: 3 is beyond partitions=2" \
        --set filesystems=ext4 --set devices="$L1" --set partitions=2 --set partition=3
submit_refused "partitions without filesystems" "partitions: applies to filesystem matrices" \
        --set target="$L1" --set partitions=2
submit_refused "a device too small" "is too small for 3 partitions of at least 16 MiB each; use partitions=2 or fewer" \
        --set filesystems=ext4 --set devices="$SMALL" --set partitions=3
assert_eq "$before" "$(sha256sum <"$L1")" "$L1 unchanged by the refusals"
# A blank device that is not scratch: the second entry would find the first one's table there.
blank_before=$(sha256sum <"$BLANK")
out=$(benchctl submit --workload write --set destructive=true --set size=4M --set filesystems=ext4 \
        --set devices="$BLANK" --set partitions=2 2>&1) && fail "partitions on a device not marked scratch was accepted: $out"
assert_contains "$out" "partitions: $BLANK is not marked scratch" "partitions on a device not marked scratch"
assert_eq "$blank_before" "$(sha256sum <"$BLANK")" "$BLANK unchanged"
# A partition of a device partitioned here, named as a device.
printf 'label: gpt\nstart=2048, size=40960, type=L\n' | sfdisk -q --no-reread --no-tell-kernel "$OTHER" >/dev/null
partx --add "$OTHER"
defer partx --delete "$OTHER"
[ -b "${OTHER}p1" ] || skip "the kernel made no ${OTHER}p1 after partx --add"
submit_refused "partitions on a partition" "is a partition" \
        --set filesystems=ext4 --set devices="${OTHER}p1" --set partitions=2

# ---- 3. what a killed worker leaves: its partitions in the kernel ----
# A long write step on partition 1 of 2; killed (by pid) once its filesystem is mounted in the
# worker's namespace, a state waited for. The kernel then still has the partitions the worker added;
# benchd deletes them when the worker has ended (kill -9 of the worker), or at its next start (kill
# -9 of benchd, the worker with it). The table stays on the device, and the next job of
# partitions= on the same scratch device runs.
mm=$(lsblk -dno MAJ:MIN "$L1" | tr -d ' ')
kernel_parts() { ls /sys/class/block/"$dev"/ | grep "^${dev}p" | tr '\n' ' ' || true; }
no_kernel_parts() { [ -z "$(kernel_parts)" ]; }
# submit_long: a write step on p1 for up to 10 minutes; prints the job id.
submit_long() {
        local id
        id=$(benchctl submit --workload write --set filesystems=ext4 --set partitions=2 --set partition=1 \
                --set devices="$L1" --set destructive=true --set size=8M --set runtime_ms=600000 --set block_size=64K |
                awk '{print $NF}' | tr -dc '0-9')
        [ -n "$id" ] || id=$(sql "select max(id) from jobs")
        printf '%s\n' "$id"
}
# worker_mounted: a worker of benchd's has a partition of $L1 mounted in its namespace.
worker_mounted() {
        local p devnum
        devnum=$(cat /sys/class/block/"${dev}p1"/dev 2>/dev/null) || return 1
        for p in $(worker_pids); do
                grep -q "^[0-9]* [0-9]* $devnum .* - ext4 " "/proc/$p/mountinfo" 2>/dev/null && return 0
        done
        return 1
}
log "3a. kill -9 of the worker of a step on ${dev}p1"
id=$(submit_long)
wait_for 60 worker_mounted ||
        fail "job $id's worker did not mount ${dev}p1: $(sql "select state, error from jobs where id = $id") $(tail -n 5 "$BENCHD_LOG")"
assert_eq "${dev}p1 ${dev}p2 " "$(kernel_parts)" "the kernel's partitions of $dev while the step runs"
grep -q "^[0-9]* [0-9]* $(cat /sys/class/block/"${dev}p1"/dev) " /proc/self/mountinfo && fail "${dev}p1 is mounted in the host namespace"
pids=$(worker_pids)
kill -9 $pids
job_failed() { [ "$(sql "select state from jobs where id = $1")" = failed ]; }
wait_for 60 job_failed "$id" || fail "job $id did not fail after kill -9 of its worker: $(sql "select state, error from jobs where id = $id")"
wait_for 30 no_kernel_parts ||
        fail "the partitions the killed worker added are still in the kernel: $(kernel_parts) $(tail -n 10 "$BENCHD_LOG")"
# Both at once, or the one still held by the last processes of the worker's namespace a moment later.
run=$(sql "select max(id) from runs where job_id = $id")
for p in p1 p2; do
        grep -E "job $id: partitions (.*, )?${dev}$p(, .*)? of $dev were left in the kernel by a killed worker \(run $run\); deleted them" \
                "$BENCHD_LOG" >/dev/null || fail "benchd did not note ${dev}$p among the partitions it deleted: $(grep "job $id" "$BENCHD_LOG")"
done
assert_eq "2" "$(sfdisk --dump "$IMG1" | grep -c '^/')" "the partitions in the table on the image, which stays"

log "3b. kill -9 of benchd while a worker runs on ${dev}p1"
id=$(submit_long)
wait_for 60 worker_mounted ||
        fail "job $id's worker did not mount ${dev}p1: $(sql "select state, error from jobs where id = $id") $(tail -n 5 "$BENCHD_LOG")"
pids=$(worker_pids)
stop_benchd KILL
workers_gone() {
        local p
        for p in $pids; do
                pid_running "$p" && return 1
        done
        return 0
}
wait_for 60 workers_gone || fail "the worker outlived benchd by a minute: $pids"
# What the killed job left: its partitions in the kernel (nothing else deletes them), mounted nowhere.
assert_eq "${dev}p1 ${dev}p2 " "$(kernel_parts)" "the kernel's partitions of $dev after the kill"
grep -q "^[0-9]* [0-9]* $(cat /sys/class/block/"${dev}p1"/dev) " /proc/[0-9]*/mountinfo 2>/dev/null &&
        fail "${dev}p1 is still mounted after its worker is gone"
start_benchd --config="$CONF"
wait_for 30 no_kernel_parts ||
        fail "the partitions the killed job added are still in the kernel after benchd's start: $(kernel_parts) $(tail -n 10 "$BENCHD_LOG")"
assert_contains "$(cat "$BENCHD_LOG")" "job $id: partitions ${dev}p1, ${dev}p2 of $dev were left in the kernel by a killed worker (run $(sql "select max(id) from runs where job_id = $id")); deleted them at start-up" \
        "benchd's note of the partitions it deleted at start-up"
assert_eq "interrupted" "$(job_state "$id")" "the job benchd was running at the kill"

log "3d. the next job of partitions= on the same scratch device"
out=$(benchctl run --profile dd --set filesystems=ext4 --set partitions=2 --set devices="$L1" \
        --set destructive=true --set size=8M 2>&1) || fail "the partitions job after the kills failed: $out $(tail -n 10 "$BENCHD_LOG")"
job=$(sql "select max(id) from jobs")
assert_eq "succeeded" "$(job_state "$job")" "the job after the kills"
no_kernel_parts || fail "partitions of $dev in the kernel after the job: $(kernel_parts)"

log "ok"
