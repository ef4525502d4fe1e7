#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# SubmitJob and every step start check the target off the event loop: while the check of a target hangs, benchd
# answers Version, ListJobs and other SubmitJob calls, a job on another target runs to its end
# (and the stray sweep after its worker leaves the check alone), and the waiting SubmitJob has
# not returned; once the target answers, SubmitJob returns the job id and the job runs. At most 16
# calls wait for a check; the 17th is QueueFull without a check being started. An unprivileged
# caller is refused before anything is forked. On SIGTERM a waiting call is answered with an
# error, and its check process goes with benchd.
#
# The hang is deterministic, without timing: the target is a path under an autofs mount whose
# daemon is this test (autofs-hold.py), or, on a kernel without autofs, under a FUSE filesystem
# served by this test (fuse-hold.py, same commands; BENCHD_TEST_HANG=autofs|fuse chooses), so the
# check's stat() of it sleeps in the kernel until the test answers, as on a hung NFS automount. (A
# frozen filesystem would not do: stat and statvfs do not block on one; only writes do.) The
# daemon also says which process waits: benchd's check process, not benchd.

. "$(dirname "$0")/lib.sh"

require_root
require_cmd dbus-daemon busctl python3 sqlite3 losetup mkfs.ext4 mkfifo setpriv
require_binaries
require_hang
log "the target hangs on $HANG_KIND ($(basename "$HANG_HELPER"))"

start_bus
start_monitor
scratch_fs 512M
AUTO="$TEST_DIR/auto"
STATUS="$TEST_DIR/hang.status"
CONTROL="$TEST_DIR/hang.ctl"
mkdir -p "$AUTO"
mkfifo "$CONTROL"
: >"$STATUS"
# Run after the helper has gone (newest first): detaches whatever it could not.
defer umount -l "$AUTO"
_LOGS+=("$TEST_DIR/hang.log")
python3 "$HANG_HELPER" "$AUTO" "$SCRATCH_DIR" "$STATUS" "$CONTROL" >"$TEST_DIR/hang.log" 2>&1 &
HANG_PID=$!
defer kill_wait "$HANG_PID"
wait_for 10 grep -qx ready "$STATUS" || fail "the $HANG_KIND mount did not come up: $(cat "$TEST_DIR/hang.log")"

start_benchd

control() {
        printf '%s\n' "$1" >"$CONTROL"
}

# pending_pid NAME: the pid waiting in the lookup of $AUTO/NAME, once it asked.
pending_pid() {
        sed -n "s/^pending $1 \([0-9]*\)$/\1/p" "$STATUS" | head -n1
}

has_pending() {
        [ -n "$(pending_pid "$1")" ]
}

n_pending() {
        grep -c "^pending $1" "$STATUS" || true
}

# submit_bg NAME LABEL OUT: SubmitJob of a small write on $AUTO/NAME in the background; its pid in
# BG_PID, its output in OUT.
submit_bg() {
        bus --json=short --timeout=300 call -- "$BUS_NAME" "$MANAGER_PATH" "$MANAGER_IFACE" SubmitJob 'a{sv}' 5 \
                target s "$AUTO/$1" workload s write size s 1M block_size s 64K label s "$2" >"$3" 2>&1 &
        BG_PID=$!
        defer kill_wait "$BG_PID" 2
}

job_id_of() {
        python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["data"][0])' "$1"
}

# gone PID: the process is no more (or the pid is someone else's now).
gone() {
        [ ! -e "/proc/$1" ] || [ "$(cat "/proc/$1/comm" 2>/dev/null)" != benchd-verdict ]
}

# ---- 1. an unprivileged caller: refused, and nothing is checked ----
run setpriv --reuid=65534 --regid=65534 --clear-groups busctl --address="$BUS_ADDRESS" --no-pager call -- \
        "$BUS_NAME" "$MANAGER_PATH" "$MANAGER_IFACE" SubmitJob 'a{sv}' 2 target s "$AUTO/nobody" workload s read
[ "$RC" != 0 ] || fail "SubmitJob as nobody succeeded: $OUT"
has_denial() {
        _benchd_errors | grep -q "^org.freedesktop.DBus.Error.AccessDenied: submitting this job needs root or polkit"
}
wait_for 10 has_denial || fail "no AccessDenied from benchd for nobody's SubmitJob: $(_benchd_errors)"
assert_eq 0 "$(n_pending nobody)" "lookups of the target of nobody's SubmitJob"

# ---- 2. a check that hangs: the loop stays free ----
submit_bg t0 slow "$TEST_DIR/slow.out"
slow_pid=$BG_PID
wait_for 30 has_pending t0 || fail "the check of $AUTO/t0 never looked the target up (status: $(cat "$STATUS"))"
checker=$(pending_pid t0)
log "the check of $AUTO/t0 waits in process $checker"
assert_eq "$BENCHD_PID" "$(awk '{print $4}' "/proc/$checker/stat")" "parent of the process that waits"
assert_eq benchd-verdict "$(cat "/proc/$checker/comm")" "name of the process that waits"

assert_success "Version while a check hangs" manager_prop Version
assert_contains "$OUT" 's "' "Version while a check hangs"
assert_success "ListJobs while a check hangs" bus call "$BUS_NAME" "$MANAGER_PATH" "$MANAGER_IFACE" ListJobs 'a{sv}' 0
assert_not_contains "$OUT" '"slow"' "ListJobs while the job is being checked"
assert_eq "u 0" "$(manager_prop QueueLength)" "QueueLength while the only job is being checked"
# Another job, on a target that answers, is queued and runs to its end meanwhile.
other=$(submit_busctl target s "$SCRATCH_DIR" workload s write size s 4M block_size s 64K label s other) ||
        fail "SubmitJob on a target that answers failed while another check hangs"
assert_eq succeeded "$(wait_job_removed "$other" 120)" "JobRemoved of the job on a target that answers"
# Its worker has exited and the stray sweep has run: the check is still waiting, and so is the call.
pid_running "$checker" || fail "the check process $checker was killed while it waited"
pid_running "$slow_pid" || fail "SubmitJob returned while its target had not answered: $(cat "$TEST_DIR/slow.out")"
assert_eq "" "$(cat "$TEST_DIR/slow.out")" "output of the waiting SubmitJob"

control serve
wait "$slow_pid" || fail "SubmitJob failed once the target answered: $(cat "$TEST_DIR/slow.out")"
_REAPED+="$slow_pid "
slow=$(job_id_of "$TEST_DIR/slow.out")
log "SubmitJob returned job $slow once the target answered"
assert_ne "$other" "$slow" "id of the job that waited"
assert_eq slow "$(sql "select label from jobs where id = $slow")" "label of the job that waited"
assert_eq succeeded "$(wait_job_removed "$slow" 120)" "JobRemoved of the job that waited"
wait_for 10 gone "$checker" || fail "the check process $checker is still there"
# The identity it recorded is the target's as the check found it: the directory mounted there.
assert_eq "$(stat -c %i "$SCRATCH_DIR")" "$(sql "select json_extract(steps, '\$[0].target.ino') from jobs where id = $slow")" \
        "inode recorded at SubmitJob for the job that waited"

# ---- 3. at most 16 calls wait for a check ----
control hold
pids=()
for i in $(seq 1 16); do
        submit_bg "b$i" "bound-$i" "$TEST_DIR/bound-$i.out"
        pids+=("$BG_PID")
done
all_pending() {
        [ "$(grep -c '^pending b' "$STATUS")" -ge 16 ]
}
wait_for 60 all_pending || fail "not all 16 checks are waiting: $(grep '^pending b' "$STATUS")"
call_error SubmitJob 'a{sv}' 2 target s "$AUTO/b17" workload s read
assert_contains "$ERR" "org.benchd.Benchd1.Error.QueueFull: too many jobs being checked" "the 17th SubmitJob"
assert_eq 0 "$(n_pending b17)" "lookups of the 17th target"
for pid in "${pids[@]}"; do
        pid_running "$pid" || fail "a waiting SubmitJob returned before its target answered"
done
control serve
ids=()
for i in $(seq 1 16); do
        wait "${pids[$((i - 1))]}" || fail "SubmitJob $i failed once its target answered: $(cat "$TEST_DIR/bound-$i.out")"
        _REAPED+="${pids[$((i - 1))]} "
        ids+=("$(job_id_of "$TEST_DIR/bound-$i.out")")
done
assert_eq 16 "$(printf '%s\n' "${ids[@]}" | sort -u | wc -l)" "distinct job ids of the 16 calls"
for id in "${ids[@]}"; do
        bus call "$BUS_NAME" "$MANAGER_PATH" "$MANAGER_IFACE" CancelJob t "$id" >/dev/null 2>&1 || true
done
# And with the checks answered, a 17th is checked again.
b17=$(submit_busctl target s "$AUTO/b17" workload s write size s 1M block_size s 64K label s bound-17) ||
        fail "SubmitJob failed once the checks were answered"
bus call "$BUS_NAME" "$MANAGER_PATH" "$MANAGER_IFACE" CancelJob t "$b17" >/dev/null 2>&1 || true

# ---- 4. the check at a step's start is off the loop too ----
# Queued behind a blocker while its target answers; then the target hangs again (its bind mount
# taken away, the mount holding the next lookup), and the blocker is cancelled: the job's
# step starts with a check that waits, in a benchd-verdict process, while benchd answers.
control serve
blocker=$(submit_busctl target s "$SCRATCH_DIR" workload s write size s 64M block_size s 64K runtime_ms u 120000 \
        label s blocker) || fail "SubmitJob of the blocker failed"
wait_job_state "$blocker" running 30
late=$(submit_busctl target s "$AUTO/late" workload s write size s 1M block_size s 64K label s late) ||
        fail "SubmitJob on $AUTO/late failed while its target answers"
assert_eq queued "$(job_state "$late")" "the job behind the blocker"
control hold
control "forget late"
wait_for 10 grep -qx "forgot late" "$STATUS" || fail "the $HANG_KIND mount did not forget $AUTO/late"
looked=$(n_pending late)
bus call "$BUS_NAME" "$MANAGER_PATH" "$MANAGER_IFACE" CancelJob t "$blocker" >/dev/null
looked_again() {
        [ "$(n_pending late)" -gt "$looked" ]
}
wait_for 30 looked_again || fail "the check at the start of job $late never looked its target up"
checker=$(sed -n "s/^pending late \([0-9]*\)$/\1/p" "$STATUS" | tail -n1)
assert_eq benchd-verdict "$(cat "/proc/$checker/comm")" "name of the process that waits at the step's start"
assert_eq "$BENCHD_PID" "$(awk '{print $4}' "/proc/$checker/stat")" "parent of the process that waits at the step's start"
assert_success "Version while a step's check hangs" manager_prop Version
assert_eq "t $late" "$(manager_prop RunningJob)" "RunningJob while its step is being checked"
assert_eq running "$(job_state "$late")" "the job whose step is being checked"
assert_eq "" "$(pgrep -P "$BENCHD_PID" -x benchd-worker || true)" "workers while the step is being checked"
control serve
assert_eq succeeded "$(wait_job_removed "$late" 120)" "JobRemoved of the job whose step was checked off the loop"
wait_for 10 gone "$checker" || fail "the check process $checker is still there"

# Cancelled while its step's target is checked: it ends cancelled, without a run or a worker.
blocker=$(submit_busctl target s "$SCRATCH_DIR" workload s write size s 64M block_size s 64K runtime_ms u 120000 \
        label s blocker2) || fail "SubmitJob of the second blocker failed"
wait_job_state "$blocker" running 30
gone_job=$(submit_busctl target s "$AUTO/late2" workload s write size s 1M block_size s 64K label s late2) ||
        fail "SubmitJob on $AUTO/late2 failed while its target answers"
control hold
control "forget late2"
wait_for 10 grep -qx "forgot late2" "$STATUS" || fail "the $HANG_KIND mount did not forget $AUTO/late2"
looked=$(n_pending late2)
bus call "$BUS_NAME" "$MANAGER_PATH" "$MANAGER_IFACE" CancelJob t "$blocker" >/dev/null
looked_again2() {
        [ "$(n_pending late2)" -gt "$looked" ]
}
wait_for 30 looked_again2 || fail "the check at the start of job $gone_job never looked its target up"
bus call "$BUS_NAME" "$MANAGER_PATH" "$MANAGER_IFACE" CancelJob t "$gone_job" >/dev/null ||
        fail "CancelJob of the job whose step is being checked failed"
control serve
assert_eq cancelled "$(wait_job_removed "$gone_job" 60)" "JobRemoved of the job cancelled during its check"
assert_eq 0 "$(sql "select count(*) from runs where job_id = $gone_job")" "runs of the job cancelled during its check"
assert_not_contains "$(grep "job $gone_job:" "$BENCHD_LOG")" "started as run" "benchd's log of job $gone_job"

# ---- 5. SIGTERM: a waiting call is answered, and its check goes ----
control hold
submit_bg s1 shutdown "$TEST_DIR/shutdown.out"
shutdown_pid=$BG_PID
wait_for 30 has_pending s1 || fail "the check of $AUTO/s1 never looked the target up"
checker=$(pending_pid s1)
stop_benchd TERM
assert_eq 0 "$BENCHD_RC" "exit status of benchd after SIGTERM with a check waiting"
set +e
wait "$shutdown_pid"
rc=$?
set -e
_REAPED+="$shutdown_pid "
assert_ne 0 "$rc" "exit status of the SubmitJob waiting at shutdown"
assert_contains "$(cat "$TEST_DIR/shutdown.out")" "benchd is shutting down" "answer to the SubmitJob waiting at shutdown"
wait_for 10 gone "$checker" || fail "the check process $checker outlived benchd"

log "PASS"
