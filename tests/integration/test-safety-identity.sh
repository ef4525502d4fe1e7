#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Nothing destroyed, round two (issue 21): scratch follows the disk, not the kernel name, and a
# matrix that was accepted can run. Each case asserts what must not happen:
#   1. ScratchDevices=/dev/loopN, then loopN detached and a different image (an ext4 holding a
#      file) attached under the same number: the inventory shows the ext4 and that loopN is not
#      scratch, and a destructive write submitted after the swap is refused as Unsafe, naming the
#      device the name was bound to; the image's sha256 is unchanged. A restart with the same
#      configuration keeps the binding; benchd.conf written again binds the name anew. Run without
#      udevd first when none runs (benchd then follows the kernel's own events), then with it.
#   2. ScratchDevices=loop-file:IMAGE marks the image wherever it is attached, and only it: a
#      destructive write to it runs, while another image under the same number is not scratch.
#   3. A filesystem matrix of two filesystems on a blank device that is not marked scratch runs
#      both entries: the second accepts the filesystem the first made; over two devices, each
#      entry the one an earlier entry made on its device; and nothing else: another ext4 made on a
#      device between its entries is refused, the device unchanged.
#   4. The refusal of a matrix's second device names that device (it read "step 1 (n/a)").

. "$(dirname "$0")/lib.sh"

require_root
require_cmd dbus-daemon busctl python3 sqlite3 losetup mkfs.ext4 mkfs.xfs sha256sum wipefs blkid
require_binaries "$BENCHCTL_BIN"

UNSAFE=org.benchd.Benchd1.Error.Unsafe
DEV_IFACE=org.benchd.Benchd1.Device
DESTRUCTIVE=(workload s write size s 4M block_size s 64K destructive b true)

dev_path() {
        printf '%s/device/%s' "$MANAGER_PATH" "$1"
}

# dev_prop NAME PROP: as busctl prints it ('s "ext4"', 'b true').
dev_prop() {
        bus get-property "$BUS_NAME" "$(dev_path "$1")" "$DEV_IFACE" "$2"
}

dev_exists() {
        bus get-property "$BUS_NAME" "$(dev_path "$1")" "$DEV_IFACE" Name >/dev/null 2>&1
}

dev_gone() {
        ! dev_exists "$1"
}

dev_prop_matches() {
        local v
        v=$(dev_prop "$1" "$2") || return 1
        case "$v" in
        *"$3"*) return 0 ;;
        *) return 1 ;;
        esac
}

# wait_prop TIMEOUT NAME PROP PATTERN
wait_prop() {
        wait_for "$1" dev_prop_matches "$2" "$3" "$4" ||
                fail "$2.$3 did not come to contain '$4' within $1s (is: $(dev_prop "$2" "$3" 2>&1))"
}

# A loop device number of the test's own, far above what `losetup -f` hands out, so that nothing
# else takes the number between our detach and our attach of another image under it. The device
# is removed again (LOOP_CTL_REMOVE) at the end.
LOOPNUM=
own_loop_number() {
        local n
        for n in $((300000 + $$ % 100000)) $((400000 + $$ % 100000)) $((500000 + RANDOM)); do
                if [ ! -e "/sys/block/loop$n" ]; then
                        LOOPNUM=$n
                        return 0
                fi
        done
        fail "no free loop device number of our own"
}

loop_remove() {
        python3 -c 'import fcntl, os, sys
fd = os.open("/dev/loop-control", os.O_RDWR)
fcntl.ioctl(fd, 0x4C81, int(sys.argv[1]))' "$1"
}

# attach_as IMAGE: attaches IMAGE as /dev/loop$LOOPNUM.
attach_as() {
        losetup "/dev/loop$LOOPNUM" "$1" || fail "cannot attach $1 as /dev/loop$LOOPNUM"
        log "/dev/loop$LOOPNUM on $1"
}

detach_own() {
        losetup -d "/dev/loop$LOOPNUM" 2>/dev/null || true
}

# ext4_image PATH: a 64 MiB image with an ext4 holding a file.
ext4_image() {
        mkdir -p "$TEST_DIR/content"
        printf 'somebody else'"'"'s data\n' >"$TEST_DIR/content/precious.txt"
        truncate -s 64M "$1"
        mkfs.ext4 -q -F -d "$TEST_DIR/content" "$1" >/dev/null
}

# events_sync: every device event so far has reached benchd: a loop device is attached after them,
# and benchd reads events in order, so once its object is there, the events before it were handled.
events_sync() {
        udevadm settle --timeout=10 >/dev/null 2>&1 || true
        make_loop 1M
        wait_for 10 dev_exists "${LOOP_DEV#/dev/}" || fail "benchd did not see the sentinel $LOOP_DEV"
}

# What the benchd started last has logged (start_benchd marks each start in the log).
this_benchd_log() {
        awk '/^--- start / { n = NR } { line[NR] = $0 } END { for (i = n; i <= NR; i++) print line[i] }' "$BENCHD_LOG"
}

this_benchd_logged() {
        this_benchd_log | grep -q "$1"
}

CONF="$TEST_DIR/benchd.conf"

start_bus
start_monitor
own_loop_number
NAME=loop$LOOPNUM
NODE=/dev/$NAME
defer loop_remove "$LOOPNUM"
defer detach_own

IMG1="$TEST_DIR/marked.img"
IMG2="$TEST_DIR/other.img"
truncate -s 64M "$IMG1"
ext4_image "$IMG2"

case_1() {
log "1. ScratchDevices=$NODE; $NODE detached and another image attached under the name ($1)"
DB="$TEST_DIR/benchd-$2.db"
attach_as "$IMG1"
printf 'ScratchDevices=%s\n' "$NODE" >"$CONF"
start_benchd --config="$CONF"
wait_for 5 dev_exists "$NAME" || fail "no object for $NAME"
assert_eq "b true" "$(dev_prop "$NAME" Scratch)" "Scratch of $NAME as configured"

detach_own
wait_for 5 dev_gone "$NAME" || fail "$NAME still has an object after the detach"
attach_as "$IMG2"
sum=$(sha256sum <"$IMG2")
wait_for 5 dev_exists "$NAME" || fail "no object for $NAME after the attach"
# The inventory shows what the device carries now, and that it is not the device marked scratch.
wait_prop 5 "$NAME" FsType '"ext4"'
wait_prop 5 "$NAME" Scratch "b false"
wait_prop 2 "$NAME" WriteVerdict "ext4 signature"
wait_prop 2 "$NAME" WriteVerdict "$IMG1"
assert_contains "$(dev_prop "$NAME" ScratchReason)" "$IMG1" "ScratchReason of the swapped $NAME"
assert_contains "$(dev_prop "$NAME" ScratchReason)" "$IMG2" "ScratchReason of the swapped $NAME"
row=$(benchctl devices --no-legend | awk -v n="$NAME" '$1 == n')
log "benchctl devices: $row"
assert_contains "$row" " ext4 " "benchctl devices row of $NAME"
assert_not_contains "$row" "ok (scratch)" "benchctl devices row of $NAME"
assert_contains "$row" "ext4 signature" "benchctl devices row of $NAME"
# Once in the log, not at every event.
wait_for 5 this_benchd_logged "$NAME.*not the device ScratchDevices=" ||
        fail "benchd did not log that $NAME is not the device marked scratch: $(tail -n 20 "$BENCHD_LOG")"
udevadm trigger --action=change "$NODE"
events_sync
assert_eq 1 "$(this_benchd_log | grep -c "$NAME.*not the device ScratchDevices=")" "log lines about the swapped $NAME"

# A destructive write submitted after the swap: refused, the image untouched.
call_error SubmitJob 'a{sv}' 5 target s "$NODE" "${DESTRUCTIVE[@]}"
log "refused: $ERR"
assert_contains "$ERR" "$UNSAFE: " "a destructive write to the swapped $NODE"
assert_contains "$ERR" "ext4" "a destructive write to the swapped $NODE"
assert_contains "$ERR" "$IMG1" "a destructive write to the swapped $NODE"
assert_eq "$sum" "$(sha256sum <"$IMG2")" "sha256 of $IMG2 after the refusal"
assert_eq 0 "$(sql "select count(*) from jobs")" "jobs accepted"

# A restart with the configuration unchanged keeps the binding (a reboot with another disk under
# the name is the same case).
stop_benchd
start_benchd --config="$CONF"
wait_for 5 dev_exists "$NAME" || fail "no object for $NAME after the restart"
assert_eq "b false" "$(dev_prop "$NAME" Scratch)" "Scratch of the swapped $NAME after a restart"
call_error SubmitJob 'a{sv}' 5 target s "$NODE" "${DESTRUCTIVE[@]}"
assert_contains "$ERR" "$UNSAFE: " "a destructive write to the swapped $NODE after a restart"
assert_eq "$sum" "$(sha256sum <"$IMG2")" "sha256 of $IMG2 after the refusal after a restart"

# benchd.conf written again names the device again: bound to what is there now.
stop_benchd
printf '# named again\nScratchDevices=%s\n' "$NODE" >"$CONF"
start_benchd --config="$CONF"
wait_for 5 dev_exists "$NAME" || fail "no object for $NAME after the second restart"
assert_eq "b true" "$(dev_prop "$NAME" Scratch)" "Scratch of $NAME once benchd.conf named it again"
assert_contains "$(dev_prop "$NAME" ScratchReason)" "$IMG2" "ScratchReason of $NAME bound again"
stop_benchd
detach_own
wait_for 5 dev_gone "$NAME" 2>/dev/null || true
}

case_2() {
log "2. ScratchDevices=loop-file:IMAGE follows the image, not the number"
local img3="$TEST_DIR/scratch-by-file.img" other loopdev id
ext4_image "$img3"
printf 'ScratchDevices=loop-file:%s\n' "$img3" >"$CONF"
# Another image under our number first: not scratch, refused.
attach_as "$IMG2"
start_benchd --config="$CONF"
wait_for 5 dev_exists "$NAME" || fail "no object for $NAME"
assert_eq "b false" "$(dev_prop "$NAME" Scratch)" "Scratch of $NAME backed by $IMG2"
sum=$(sha256sum <"$IMG2")
call_error SubmitJob 'a{sv}' 5 target s "$NODE" "${DESTRUCTIVE[@]}"
assert_contains "$ERR" "$UNSAFE: " "a destructive write to $NODE backed by $IMG2"
assert_eq "$sum" "$(sha256sum <"$IMG2")" "sha256 of $IMG2"
detach_own
# The named image under any number: scratch, and a destructive write runs on it.
loopdev=$(losetup -f --show "$img3")
defer losetup -d "$loopdev"
other=${loopdev#/dev/}
wait_for 5 dev_exists "$other" || fail "no object for $other"
wait_prop 5 "$other" Scratch "b true"
id=$(submit_busctl target s "$loopdev" "${DESTRUCTIVE[@]}") || fail "destructive job on $loopdev ($img3) refused"
assert_eq succeeded "$(wait_job_removed "$id" 120)" "destructive job $id on $loopdev"
losetup -d "$loopdev"
stop_benchd
}

case_3() {
log "3. filesystems=ext4,xfs on a blank device that is not scratch"
local blank job
make_loop 320M
blank=$LOOP_DEV
wipefs -a -q "$blank"
: >"$CONF"
start_benchd --config="$CONF"
out=$(benchctl run --workload write --set filesystems=ext4,xfs --set devices="$blank" --set destructive=true \
        --set size=8M --set block_size=64K 2>&1) || fail "the two-filesystem matrix on blank $blank failed: $out"
job=$(sql "select max(id) from jobs")
assert_eq succeeded "$(job_state "$job")" "state of the matrix job"
assert_eq "0|ext4|succeeded
1|xfs|succeeded" "$(sql "select matrix_entry, fs_type, status from runs where job_id = $job order by step")" \
        "both entries ran"
assert_eq "xfs" "$(blkid -o value -s TYPE "$blank")" "what $blank carries afterwards"

log "3b. the same over two devices: the third entry finds the first's ext4 on its device, not the second's"
local a b sum_a worker
make_loop 320M
a=$LOOP_DEV
make_loop 320M
b=$LOOP_DEV
wipefs -a -q "$a" "$b"
out=$(benchctl run --workload write --set filesystems=ext4,xfs --set devices="$a,$b" --set destructive=true \
        --set size=8M --set block_size=64K 2>&1) || fail "the matrix over blank $a and $b failed: $out"
job=$(sql "select max(id) from jobs")
assert_eq "0|ext4|$a|succeeded
1|ext4|$b|succeeded
2|xfs|$a|succeeded
3|xfs|$b|succeeded" "$(sql "select matrix_entry, fs_type, json_extract(members, '\$[0]'), status from runs
        where job_id = $job order by step")" "the four entries"

log "3c. and nothing else: another ext4 made on a device between its entries is refused"
wipefs -a -q "$a" "$b"
out=$(bus --json=short call "$BUS_NAME" "$MANAGER_PATH" "$MANAGER_IFACE" SubmitJob 'a{sv}' 7 \
        filesystems as 2 ext4 xfs devices as 2 "$a" "$b" destructive b true workload s write size s 8M \
        block_size s 64K runtime_ms u 10000) || fail "the matrix over $a and $b was refused: $out"
job=$(json_get 'd["data"][0]' <<<"$out")
# While the second entry runs on b, a carries the first entry's ext4: replace it by another one,
# with the second entry's worker stopped meanwhile, so the third entry cannot begin before.
entry_running() {
        [ "$(sql "select count(*) from runs where job_id = $1 and matrix_entry = $2 and status = 'running'")" = 1 ] &&
                [ -n "$(worker_pids)" ]
}
wait_for 60 entry_running "$job" 1 ||
        fail "the second entry of job $job did not start: $(sql "select matrix_entry, status from runs where job_id = $job")"
worker=$(worker_pids)
kill -STOP "$worker"
mkfs.ext4 -q -F "$a"
sum_a=$(sha256sum <"$a")
assert_eq 0 "$(sql "select count(*) from runs where job_id = $job and matrix_entry = 2")" \
        "runs of the third entry while the second's worker is stopped"
kill -CONT "$worker"
assert_eq failed "$(wait_job_removed "$job" 120)" "the matrix whose device got another filesystem"
assert_contains "$(job_state "$job") $(sql "select error from jobs where id = $job")" "$UNSAFE" "jobs.error of $job"
assert_contains "$(sql "select error from jobs where id = $job")" "ext4 signature" "jobs.error of $job"
assert_eq "$sum_a" "$(sha256sum <"$a")" "sha256 of $a, which another ext4 replaced the job's on"
assert_eq 0 "$(sql "select count(*) from runs where job_id = $job and matrix_entry = 2")" "runs of the third entry"
stop_benchd
}

case_4() {
log "4. a refusal of a matrix's second device names the device, not a step"
local a b sum_b
make_loop 320M
a=$LOOP_DEV
make_loop 320M
b=$LOOP_DEV
wipefs -a -q "$a"
mkfs.ext4 -q -F "$b"
sum_b=$(sha256sum <"$b")
: >"$CONF"
start_benchd --config="$CONF"
call_error SubmitJob 'a{sv}' 6 filesystems as 1 btrfs devices as 2 "$a" "$b" layout s raid1 destructive b true \
        workload s write size s 8M
log "refused: $ERR"
assert_contains "$ERR" "$UNSAFE: device 2 of 2, $b: writing to $b is refused: ${b#/dev/} carries an ext4 signature" \
        "the refusal of the matrix's second device"
assert_not_contains "$ERR" "n/a" "the refusal of the matrix's second device"
assert_eq "$sum_b" "$(sha256sum <"$b")" "sha256 of $b"
stop_benchd
}

for c in ${BENCHD_TEST_CASES:-1 2 3 4}; do
        if [ "$c" = 1 ]; then
                if udevadm control --ping --timeout=2 >/dev/null 2>&1; then
                        log "udevd runs already: case 1 without udevd is not exercised"
                else
                        case_1 "without udevd: the kernel's events" kernel
                fi
                start_udevd
                case_1 "with udevd" udevd
                continue
        fi
        start_udevd
        "case_$c"
done
log "PASS"
