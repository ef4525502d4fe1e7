#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Nothing destroyed (issue 9): the write verdict is decided where the write happens. Each case
# queues a job behind a long-running one, changes the target while it waits, lets it start, and
# asserts that it failed with org.benchd.Benchd1.Error.Unsafe and that the device's sha256 is what
# it was before the job could have run:
#   1. mkfs while queued (the device was blank at SubmitJob);
#   2. the target path swapped while queued: a symlink to a directory re-pointed at a block device
#      (destructive=true on a directory is refused at submit), one to a blank device re-pointed at
#      another device, and a directory replaced by another;
#   3. kill -9 of benchd, mkfs, start: the restored job is checked again (and a profile edited
#      before the restart does not change a queued profile job);
#   4. a scratch device mounted between submit and start;
#   5. the worker's own last word, on the O_EXCL descriptor: a signature, a mount, and a guard
#      that does not match the device are refused before any write.

. "$(dirname "$0")/lib.sh"

require_root
require_cmd dbus-daemon busctl python3 sqlite3 losetup mkfs.ext4 sha256sum wipefs
require_loop
require_fs ext4
require_binaries

UNSAFE=org.benchd.Benchd1.Error.Unsafe
INVALID=org.benchd.Benchd1.Error.InvalidSpec

start_bus
start_monitor
scratch_fs 1G
T="$SCRATCH_DIR"

# Profiles of our own, so one can be edited while a job waits (case 3).
PROFILES="$TEST_DIR/profiles"
cp -r "$PROFILES_DIR" "$PROFILES"

# Blank loop devices (no signature), and one with an ext4 on it.
blank_loop() {
        make_loop 64M
        wipefs -a -q "$LOOP_DEV"
}

# A job that keeps the queue busy until it is cancelled.
blocker() {
        submit_busctl target s "$T" workload s write size s 64M block_size s 64K runtime_ms u 120000 \
                sample_ms u 500 label s blocker
}

wait_running() {
        wait_job_state "$1" running 30
}

# release ID: cancels the blocker, so the job behind it starts.
release() {
        bus call "$BUS_NAME" "$MANAGER_PATH" "$MANAGER_IFACE" CancelJob t "$1" >/dev/null
}

job_error() {
        sql "select error from jobs where id = $1"
}

DESTRUCTIVE=(workload s write size s 8M block_size s 64K destructive b true)

# expect_unsafe_end ID DEVICE SHA256 WORD: the job ended failed, Unsafe, naming WORD; no run wrote.
expect_unsafe_end() {
        local id=$1 dev=$2 before=$3 word=$4 err
        assert_eq failed "$(wait_job_removed "$id" 60)" "JobRemoved result of job $id"
        err=$(job_error "$id")
        log "job $id: $err"
        assert_contains "$err" "$UNSAFE" "jobs.error of job $id"
        assert_contains "$err" "$word" "jobs.error of job $id"
        assert_eq "$err" "$(job_prop "$id" Error | sed 's/^s "\(.*\)"$/\1/')" "Error property = jobs.error of job $id"
        assert_eq 0 "$(sql "select count(*) from runs where job_id = $id and status = 'succeeded'")" \
                "succeeded runs of job $id"
        assert_eq "$before" "$(sha256sum <"$dev")" "sha256 of $dev after job $id"
}

# ---- 1. mkfs while queued ----
case_1() {
log "1. mkfs while queued"
blank_loop
A=$LOOP_DEV
# Without consent a write to a block device is unsafe, not an invalid spec.
call_error SubmitJob 'a{sv}' 4 target s "$A" workload s write size s 8M block_size s 64K
assert_contains "$ERR" "$UNSAFE: " "a block-device write without destructive=true"
assert_contains "$ERR" "destructive=true" "a block-device write without destructive=true"
b=$(blocker) || fail "blocker refused"
wait_running "$b"
id=$(submit_busctl target s "$A" "${DESTRUCTIVE[@]}") || fail "destructive job on blank $A refused"
assert_eq queued "$(job_state "$id")" "job $id behind the blocker"
mkfs.ext4 -q -F "$A" >/dev/null
sum=$(sha256sum <"$A")
release "$b"
expect_unsafe_end "$id" "$A" "$sum" "ext4"
}

# ---- 2. the target path swapped while queued ----
case_2a() {
log "2a. a symlink to a directory, re-pointed at a device with a filesystem"
make_loop 64M
M=$LOOP_DEV
mkfs.ext4 -q -F "$M" >/dev/null
sumM=$(sha256sum <"$M")
mkdir -p "$TEST_DIR/x" "$T/real"
ln -sfn "$T/real" "$TEST_DIR/x/lnk"
call_error SubmitJob 'a{sv}' 5 target s "$TEST_DIR/x/lnk" "${DESTRUCTIVE[@]}"
assert_contains "$ERR" "$INVALID: " "destructive=true on a directory"
assert_contains "$ERR" "only to block devices" "destructive=true on a directory"
b=$(blocker) || fail "blocker refused"
wait_running "$b"
id=$(submit_busctl target s "$TEST_DIR/x/lnk" workload s write size s 8M block_size s 64K) ||
        fail "write job on the symlinked directory refused"
ln -sfn "$M" "$TEST_DIR/x/lnk"
release "$b"
expect_unsafe_end "$id" "$M" "$sumM" "block device"
}

case_2b() {
mkdir -p "$TEST_DIR/x"
log "2b. a symlink to a blank device, re-pointed at another device that holds data but no signature"
blank_loop
B1=$LOOP_DEV
blank_loop
B2=$LOOP_DEV
dd if=/dev/urandom of="$B2" bs=1M count=64 status=none conv=fsync
sum2=$(sha256sum <"$B2")
ln -sfn "$B1" "$TEST_DIR/x/dev"
b=$(blocker) || fail "blocker refused"
wait_running "$b"
id=$(submit_busctl target s "$TEST_DIR/x/dev" "${DESTRUCTIVE[@]}") || fail "destructive job on blank $B1 refused"
ln -sfn "$B2" "$TEST_DIR/x/dev"
release "$b"
expect_unsafe_end "$id" "$B2" "$sum2" "when the job was submitted"
}

case_2c() {
log "2c. a directory replaced by another one"
mkdir -p "$T/d1"
b=$(blocker) || fail "blocker refused"
wait_running "$b"
id=$(submit_busctl target s "$T/d1" workload s write size s 8M block_size s 64K) || fail "job on $T/d1 refused"
mv "$T/d1" "$T/d1.old"
mkdir "$T/d1"
touch "$T/d1/user-file"
release "$b"
assert_eq failed "$(wait_job_removed "$id" 60)" "JobRemoved result of job $id"
assert_contains "$(job_error "$id")" "$UNSAFE" "jobs.error after the directory was replaced"
assert_contains "$(job_error "$id")" "the path was replaced" "jobs.error after the directory was replaced"
assert_eq "user-file" "$(ls -A "$T/d1")" "contents of the new $T/d1"
assert_eq "" "$(ls -A "$T/d1.old")" "contents of the old $T/d1"
}

# ---- 3. kill -9, mkfs, restart ----
case_3() {
log "3. mkfs between kill -9 of benchd and its restart; a profile edited meanwhile"
blank_loop
C=$LOOP_DEV
b=$(blocker) || fail "blocker refused"
wait_running "$b"
id=$(submit_busctl target s "$C" "${DESTRUCTIVE[@]}") || fail "destructive job on blank $C refused"
pid=$(submit_busctl target s "$T" profile s dd size s 8M label s profile-kept) || fail "dd profile job refused"
stop_benchd KILL
mkfs.ext4 -q -F "$C" >/dev/null
sumC=$(sha256sum <"$C")
# The profile now says something else entirely: the queued job must not notice.
printf '[profile]\ndescription=edited\n\n[step only]\nworkload=randread\nblock_size=4K\n' >"$PROFILES/dd.ini"
start_benchd --profiles-dir="$PROFILES"
# Settled (interrupted) once the removal of its files, in the background, is done.
wait_job_state "$b" interrupted 30
expect_unsafe_end "$id" "$C" "$sumC" "ext4"
assert_eq succeeded "$(wait_job_removed "$pid" 120)" "the profile job restored after the edit"
assert_eq "write read" "$(sql "select group_concat(workload, ' ') from (select workload from runs where job_id = $pid order by step)")" \
        "workloads of the restored dd job"
assert_eq "32768 32768" "$(sql "select group_concat(block_size, ' ') from (select block_size from runs where job_id = $pid order by step)")" \
        "block sizes of the restored dd job"
assert_eq 2 "$(sql "select json_array_length(steps) from jobs where id = $pid")" "stored steps of the dd profile job"
}

# ---- 4. a scratch device mounted between submit and start ----
case_4() {
log "4. a scratch device mounted between submit and start"
blank_loop
D=$LOOP_DEV
CONF="$TEST_DIR/benchd.conf"
printf 'ScratchDevices=%s\n' "$D" >"$CONF"
stop_benchd TERM
start_benchd --profiles-dir="$PROFILES" --config="$CONF"
b=$(blocker) || fail "blocker refused"
wait_running "$b"
id=$(submit_busctl target s "$D" "${DESTRUCTIVE[@]}") || fail "destructive job on scratch $D refused"
mkfs.ext4 -q -F "$D" >/dev/null
mkdir -p "$TEST_DIR/mntD"
# Read-only and without the journal, so the mount itself writes nothing to compare against.
mount -o ro,noload "$D" "$TEST_DIR/mntD"
defer umount_retry "$TEST_DIR/mntD"
sumD=$(sha256sum <"$D")
release "$b"
expect_unsafe_end "$id" "$D" "$sumD" "mounted"
umount_retry "$TEST_DIR/mntD"
}

# ---- 5. the worker's last word, on the descriptor it holds ----
case_5() {
log "5. the worker refuses a signature, a mount, and a guard that is not the device"
make_loop 64M
W=$LOOP_DEV
mkfs.ext4 -q -F "$W" >/dev/null
sumW=$(sha256sum <"$W")
run "$WORKER_BIN" --target "$W" -w write -b 64K -s 8M --set destructive=true
[ "$RC" = 1 ] || fail "worker write over an ext4 signature exited $RC: $OUT"
assert_contains "$OUT" "ext4 signature" "worker refusal"
mkdir -p "$TEST_DIR/mntW"
mount -o ro,noload "$W" "$TEST_DIR/mntW"
defer umount_retry "$TEST_DIR/mntW"
run "$WORKER_BIN" --target "$W" -w write -b 64K -s 8M --set destructive=true
[ "$RC" = 1 ] || fail "worker write to a mounted device exited $RC: $OUT"
assert_contains "$OUT" "in use" "worker refusal of a mounted device"
umount_retry "$TEST_DIR/mntW"
assert_eq "$sumW" "$(sha256sum <"$W")" "sha256 of $W after the worker's refusals"

# Protocol mode with a guard for another disk sequence number: refused with EPERM, nothing written.
blank_loop
G=$LOOP_DEV
dd if=/dev/urandom of="$G" bs=1M count=64 status=none conv=fsync
sumG=$(sha256sum <"$G")
PYTHONPATH="$(dirname "$0")" python3 - "$WORKER_BIN" "$G" <<'EOF' || fail "protocol mode with a stale guard"
import os, struct, sys
from worker_proto import Worker, ERROR, SAMPLE, GUARD_BLOCK
worker, dev = sys.argv[1:3]
st = os.stat(dev)
seq = int(open(f"/sys/dev/block/{os.major(st.st_rdev)}:{os.minor(st.st_rdev)}/diskseq").read())
w = Worker(worker)
assert w.frame()[0] == 1
# this device's dev_t as the kernel encodes it, not scratch, a disk sequence number it never had
w.send_spec(5, 0, f"target={dev}\nworkload=write\nblock_size=65536\nsize=8M\ndestructive=true\n",
            (GUARD_BLOCK, 0, st.st_rdev, 0, seq + 1000))
frames = w.frames()
rc = w.proc.wait()
errors = [pl for t, pl in frames if t == ERROR]
assert rc == 1 and errors, (rc, [t for t, _ in frames])
code, n = struct.unpack_from("<II", errors[0])
msg = errors[0][8:8 + n].decode()
assert code == 1, (code, msg)          # EPERM: refused on safety grounds
assert "since benchd checked it" in msg, msg
assert not any(t == SAMPLE for t, _ in frames), "samples from a refused run"
print(msg)
EOF
assert_eq "$sumG" "$(sha256sum <"$G")" "sha256 of $G after the stale guard"
}

# BENCHD_TEST_CASES="1 3" runs some (to show a case failing on an older build); default all.
start_benchd --profiles-dir="$PROFILES"
for c in ${BENCHD_TEST_CASES:-1 2a 2b 2c 3 4 5}; do
        "case_$c"
done
log "safety cases passed: ${BENCHD_TEST_CASES:-all}"
