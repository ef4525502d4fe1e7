#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# The files of a cancelled metadata job are removed off the event loop: while the removal runs,
# benchd answers on the bus, the cancelled job has already ended (JobRemoved), and the next job
# waits; when the removal is done it is logged with its count, the next job starts, and no
# .benchd-* file is left. On SIGTERM during a removal, benchd waits for it before it exits.
#
# The removal is held still deterministically, without timing: the worker is stopped (SIGSTOP) in
# the middle of creating its files, and the test's filesystem is frozen (fsfreeze), so that the
# removal process blocks in its first unlink until the test thaws the filesystem.

. "$(dirname "$0")/lib.sh"

require_root
require_cmd dbus-daemon busctl python3 sqlite3 losetup mkfs.ext4 pgrep fsfreeze
require_loop
require_fs ext4
require_binaries

start_bus
start_monitor
# Enough inodes for the file set: ext4's default on 2G is 131072.
make_loop 2G
MNT="$TEST_DIR/mnt"
mkdir -p "$MNT"
mkfs.ext4 -q -F -N 300000 "$LOOP_DEV" >/dev/null
mount "$LOOP_DEV" "$MNT"
defer umount_retry "$MNT"
# Runs before the unmount (newest first), also when the test fails while the fs is frozen.
defer fsfreeze --unfreeze "$MNT"
T="$MNT/bench"
mkdir -p "$T"

start_benchd

# count_at_least N: at least N entries under the target (stops counting there).
count_at_least() {
        [ "$(find "$T" -mindepth 1 2>/dev/null | head -n "$1" | wc -l)" -ge "$1" ]
}

metadata_job() {
        submit_busctl target s "$T" workload s metadata file_count u 200000 file_size_min u 4 \
                file_size_max u 64 dirs u 4 label s "$1"
}

# freeze_worker_and_fs: stops every process of the running worker's process group once they are
# all stopped (state T, so none is inside a filesystem call), freezes the filesystem.
freeze_worker_and_fs() {
        local wpid=$1 pid st i all
        kill -STOP -- "-$wpid"
        for ((i = 0; i < 100; i++)); do
                all=1
                for pid in $(pgrep -g "$wpid"); do
                        st=$(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null || echo T)
                        [ "$st" = T ] || all=0
                done
                [ "$all" = 1 ] && break
                sleep 0.1
        done
        [ "$all" = 1 ] || fail "the worker's processes did not stop"
        fsfreeze --freeze "$MNT"
        log "worker $wpid stopped, $MNT frozen with $(find "$T" -mindepth 1 | wc -l) entries in $T"
}

has_cleanup_process() {
        [ -n "$(cleanup_pids)" ]
}

wait_cleanup_process() {
        wait_for 60 has_cleanup_process ||
                fail "no benchd-cleanup process appeared (children of benchd: $(pgrep -P "$BENCHD_PID" -l))"
        # It stays: it waits for the frozen filesystem.
        log "cleanup process $(cleanup_pids) is running"
}

# ---- 1. cancel: the loop stays free, the next job waits ----
a=$(metadata_job cleanup-cancelled) || fail "SubmitJob of the metadata job failed"
wait_for 120 count_at_least 20000 || fail "job $a did not create 20000 files (state $(job_state "$a"))"
wpid=$(worker_pids | head -n1)
[ -n "$wpid" ] || fail "job $a has no worker"
freeze_worker_and_fs "$wpid"
entries=$(find "$T" -mindepth 1 | wc -l)

assert_success "CancelJob($a)" bus call "$BUS_NAME" "$MANAGER_PATH" "$MANAGER_IFACE" CancelJob t "$a"
b=$(submit_busctl target s "$T" workload s write size s 4M block_size s 64K label s cleanup-next) ||
        fail "SubmitJob of the next job failed"
# The worker ignores nothing: stopped, it gets SIGKILL after the grace; its job ends then.
assert_eq cancelled "$(wait_job_removed "$a" 60)" "JobRemoved of the cancelled job"
wait_cleanup_process

# The removal runs, and benchd answers.
assert_success "Version while the files are removed" manager_prop Version
assert_contains "$OUT" 's "' "Version while the files are removed"
assert_success "ListJobs while the files are removed" bus call "$BUS_NAME" "$MANAGER_PATH" "$MANAGER_IFACE" \
        ListJobs 'a{sv}' 0
# ... and the next job has not started: nothing can start while the removal is held.
assert_eq "u 1" "$(manager_prop QueueLength)" "QueueLength while the files are removed"
assert_eq "t 0" "$(manager_prop RunningJob)" "RunningJob while the files are removed"
assert_eq queued "$(job_state "$b")" "state of the next job while the files are removed"
[ -n "$(find "$T" -maxdepth 1 -name ".benchd-$a-*")" ] || fail "the files of job $a are gone already"

fsfreeze --unfreeze "$MNT"
assert_eq succeeded "$(wait_job_removed "$b" 120)" "JobRemoved of the next job"
assert_eq "" "$(find "$T" -name '.benchd-*')" ".benchd-* files after both jobs"

# The log: the count of the removal, before the next job's start.
removed_line=$(grep -n "benchd: job $a: removed [0-9]* leftover files and directories" "$BENCHD_LOG" | head -n1)
[ -n "$removed_line" ] || fail "no log line of the removal of job $a's files: $(grep "job $a:" "$BENCHD_LOG" | tail -n5)"
n=$(sed -n 's/.* removed \([0-9]*\) leftover.*/\1/p' <<<"$removed_line")
log "removal of job $a: $n entries (the test saw $entries)"
assert_le "$entries" "$n" "entries removed by the cleanup (at least those present when it began)"
started_line=$(grep -n "benchd: job $b: step 1/1 (write) started" "$BENCHD_LOG" | head -n1)
[ -n "$started_line" ] || fail "no start of job $b in the log"
assert_le "${removed_line%%:*}" "${started_line%%:*}" "log line of the removal before the next job's start"

# ---- 2. SIGTERM during a removal: benchd waits for it ----
c=$(metadata_job cleanup-interrupted) || fail "SubmitJob of the second metadata job failed"
wait_for 120 count_at_least 5000 || fail "job $c did not create 5000 files (state $(job_state "$c"))"
wpid=$(worker_pids | head -n1)
[ -n "$wpid" ] || fail "job $c has no worker"
freeze_worker_and_fs "$wpid"
kill -TERM "$BENCHD_PID"
wait_cleanup_process
benchd_alive || fail "benchd exited while its cleanup process was running"
assert_success "Version while stopping" manager_prop Version
fsfreeze --unfreeze "$MNT"
for ((i = 0; i < 600; i++)); do
        benchd_alive || break
        sleep 0.1
done
benchd_alive && fail "benchd did not exit once the removal could go on"
set +e
wait "$BENCHD_PID"
rc=$?
set -e
_REAPED+="$BENCHD_PID "
BENCHD_PID=
assert_eq 0 "$rc" "exit status of benchd after SIGTERM"
assert_eq interrupted "$(job_state "$c")" "state of the job benchd was stopped in"
assert_eq "" "$(find "$T" -name '.benchd-*')" ".benchd-* files after the stop"
grep -q "benchd: job $c: removed [0-9]* leftover files and directories" "$BENCHD_LOG" ||
        fail "no log line of the removal of job $c's files"

log "PASS"
