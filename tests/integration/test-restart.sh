#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# The queue lives in SQLite: a clean stop (SIGTERM) interrupts the running job, stops its worker
# and removes its files, and leaves queued jobs queued; the next benchd on the same database runs
# them. After a crash (SIGKILL of benchd) the worker dies with its parent, the job found "running"
# at start-up becomes "interrupted", and its files are removed.

. "$(dirname "$0")/lib.sh"

require_root
require_cmd dbus-daemon busctl python3 sqlite3 losetup mkfs.ext4 pgrep
require_binaries

start_bus
start_monitor
scratch_fs 1G
T="$SCRATCH_DIR"

long_job() {
        submit_busctl target s "$T" workload s write size s 128M block_size s 32K direct b true \
                runtime_ms u 60000 sample_ms u 200 label s "$1"
}
short_job() {
        submit_busctl target s "$T" workload s write size s 16M block_size s 32K direct b true \
                sample_ms u 200 label s "$1"
}

# wait_worker_file ID: the job runs, with a worker and its file in the target.
wait_worker_file() {
        local id=$1 i
        for ((i = 0; i < 300; i++)); do
                if [ "$(job_state "$id")" = running ] && [ -n "$(worker_pids)" ] &&
                        [ -n "$(benchd_files "$T")" ]; then
                        return 0
                fi
                sleep 0.1
        done
        fail "job $id never ran with a worker and a file (state $(job_state "$id"), files: $(benchd_files "$T"))"
}

# ---- 1. SIGTERM with a running and a queued job ----
start_benchd
a=$(long_job restart-running) || fail "SubmitJob a failed"
b=$(short_job restart-queued) || fail "SubmitJob b failed"
wait_worker_file "$a"
assert_eq queued "$(job_state "$b")" "job b while a runs"
wpid=$(worker_pids | head -n1)
start=$(date +%s)
stop_benchd TERM
log "benchd stopped in $(($(date +%s) - start))s with status $BENCHD_RC"
assert_eq 0 "$BENCHD_RC" "benchd exit status after SIGTERM"
assert_le $(($(date +%s) - start)) 15 "seconds benchd took to stop"
pid_running "$wpid" && fail "worker $wpid still runs after benchd stopped"
assert_eq interrupted "$(job_state "$a")" "jobs.state of the running job after SIGTERM"
assert_eq interrupted "$(sql "select status from runs where job_id = $a")" "runs.status of its run"
[ -n "$(sql "select finished_usec from jobs where id = $a")" ] || fail "interrupted job has no finished_usec"
assert_eq queued "$(job_state "$b")" "jobs.state of the queued job after SIGTERM"
assert_eq "" "$(benchd_files "$T")" ".benchd-* files after SIGTERM"
# benchd flushes its bus before it exits; the monitor may write the signal a moment later.
wait_for 30 job_removed_result "$a" || fail "no JobRemoved for job $a, interrupted by SIGTERM"
assert_eq interrupted "$(job_removed_result "$a")" "JobRemoved result of the interrupted job"

# ---- 2. a new benchd on the same database runs the queued job ----
start_benchd
assert_eq succeeded "$(wait_job_removed "$b" 120)" "JobRemoved of the job queued before the restart"
assert_eq succeeded "$(job_state "$b")" "jobs.state of b"
assert_eq $((16 << 20)) "$(sql "select bytes_written from runs where job_id = $b")" "bytes_written of b"
assert_eq interrupted "$(job_state "$a")" "a stays interrupted"
assert_eq "" "$(benchd_files "$T")" ".benchd-* files after b"
# Ids are never reused.
c=$(short_job restart-after) || fail "SubmitJob c failed"
[ "$c" -gt "$b" ] || fail "new job id $c not greater than $b"
assert_eq succeeded "$(wait_job_removed "$c" 120)" "JobRemoved of c"

# ---- 3. a crash: SIGKILL benchd while a job runs ----
d=$(long_job restart-crash) || fail "SubmitJob d failed"
wait_worker_file "$d"
wpid=$(worker_pids | head -n1)
log "killing benchd $BENCHD_PID with SIGKILL (worker $wpid)"
stop_benchd KILL
# PR_SET_PDEATHSIG: the worker does not outlive the daemon.
wait_for 10 bash -c "! kill -0 $wpid 2>/dev/null" || fail "worker $wpid outlived benchd"
assert_eq running "$(job_state "$d")" "jobs.state of d right after the crash"
start_benchd
# Settled once its files are removed, in the background: until then its row still says running.
wait_job_state "$d" interrupted 30
assert_eq interrupted "$(sql "select status from runs where job_id = $d")" "runs.status of a run found running at start-up"
wait_for 10 bash -c "[ -z \"\$(find '$T' -maxdepth 2 -name '.benchd-*')\" ]" ||
        fail ".benchd-* files left after a crash and restart: $(benchd_files "$T")"
assert_eq "u 0" "$(manager_prop QueueLength)" "QueueLength after recovery"

# ---- 4. SIGINT stops as cleanly as SIGTERM ----
e=$(long_job restart-sigint) || fail "SubmitJob e failed"
wait_worker_file "$e"
wpid=$(worker_pids | head -n1)
stop_benchd INT
assert_eq 0 "$BENCHD_RC" "benchd exit status after SIGINT"
pid_running "$wpid" && fail "worker $wpid still runs after benchd stopped on SIGINT"
assert_eq interrupted "$(job_state "$e")" "jobs.state of the running job after SIGINT"
assert_eq "" "$(benchd_files "$T")" ".benchd-* files after SIGINT"
assert_eq ok "$(sql 'pragma integrity_check')" "integrity_check"

log "PASS"
