#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# The daemon's side of a fleet run (docs/fleet.md "Fleet runs") on one benchd on a private bus:
#   1. GetClock answers this host's wall clock (between the test's readings before and after);
#   2. a fleet job (fleet_uuid, fleet_host) prepares and waits in Phase "ready": no sample, its run
#      row tagged with the uuid and host and not started; it stays there until it is started;
#   3. Job.Start refuses what it must: a job that is no fleet job (NotReady), an offset beyond
#      fleet_clock_tolerance_ms (ClockOffset, naming the offset), a start time far in the past
#      (InvalidArgs); a corrected start beyond the tolerance is taken;
#   4. started, the measured phase begins no earlier than the given time, and the run records the
#      start time, offset, round trip and corrected flag it was given; a second Start is NotReady;
#   5. a fleet step with a ramp is ready after its ramp and measures from its start;
#   6. a fleet job cancelled while it waits ends cancelled, its worker gone and its files removed;
#   7. the fleet keys' errors: fleet_host without fleet_uuid, a uuid that is none.

. "$(dirname "$0")/lib.sh"

require_root
require_cmd dbus-daemon busctl python3 sqlite3
require_binaries "$BENCHCTL_BIN"

start_bus
start_benchd
start_monitor
T="$TEST_DIR/target"
mkdir -p "$T"
UUID=0f8fad5b-d9cb-469f-a165-70867728950e

now_usec() { date +%s%6N; }

# job_call ID METHOD SIG ARGS...: a method of job ID; $OUT/$RC as run sets them.
job_call() {
        local id=$1
        shift
        run bus call -- "$BUS_NAME" "$MANAGER_PATH/job/$id" "$JOB_IFACE" "$@"
}

# job_call_error ID METHOD SIG ARGS...: a job method that must fail; $ERR: "error.name: message".
job_call_error() {
        local before i
        before=$(_benchd_errors | wc -l)
        job_call "$@"
        [ "$RC" != 0 ] || fail "job $1 ${*:2} succeeded but should have failed: $OUT"
        ERR=
        for ((i = 0; i < 30; i++)); do
                ERR=$(_benchd_errors | sed -n "$((before + 1))p")
                [ -n "$ERR" ] && return 0
                sleep 0.1
        done
        fail "job $1 $2 failed ($OUT) but the monitor saw no error reply from benchd"
}

phase_is() { [ "$(job_prop "$1" Phase)" = "s \"$2\"" ]; }

# ---- 1. GetClock ----
log "1. GetClock"
before=$(now_usec)
clock=$(bus call "$BUS_NAME" "$MANAGER_PATH" "$MANAGER_IFACE" GetClock | sed -n 's/^t //p')
after=$(now_usec)
[ -n "$clock" ] || fail "GetClock answered nothing"
assert_between "$before" "$clock" "$after" "GetClock between the readings before and after it"

# A job that is no fleet job (done before the fleet job, which holds the queue while it waits).
plain=$(submit_busctl target s "$T" workload s write size s 1M) || fail "SubmitJob of a plain job failed"
wait_job_state "$plain" succeeded
job_call_error "$plain" Start txtb "$(($(now_usec) + 500000))" 0 300 false
assert_contains "$ERR" "org.benchd.Benchd1.Error.NotReady" "Start of a job that is no fleet job"

# ---- 2. ready, and waiting ----
log "2. a fleet job waits in Phase ready"
job=$(submit_busctl target s "$T" workload s write size s 4M runtime_ms t 1500 sample_ms t 250 \
        fleet_uuid s "$UUID" fleet_host s host-a) || fail "SubmitJob of a fleet job failed"
wait_for 60 phase_is "$job" ready || fail "job $job did not reach Phase ready: $(job_prop "$job" Phase)"
run_id=$(sql "select max(id) from runs where job_id = $job")
assert_eq "$UUID|host-a||" "$(sql "select fleet_uuid, fleet_host, fleet_start_usec, fleet_clock_offset_us from runs where id = $run_id")" \
        "the ready run's fleet columns"
assert_eq 0 "$(sql "select count(*) from samples where run_id = $run_id")" "samples of a run that was not started"
assert_eq running "$(job_state "$job")" "state of the waiting job"
# It is still waiting after every event that came since it was ready: the Phase did not move.
phase_is "$job" ready || fail "job $job left Phase ready without a start: $(job_prop "$job" Phase)"

# ---- 3. refusals ----
log "3. Start refuses an offset beyond the tolerance, a start in the past"
job_call_error "$job" Start txtb "$(($(now_usec) + 500000))" 80000 300 false
assert_contains "$ERR" "org.benchd.Benchd1.Error.ClockOffset" "offset beyond the tolerance"
assert_contains "$ERR" "+80.000 ms" "the message names the offset"
assert_contains "$ERR" "fleet_clock_tolerance_ms=50" "the message names the tolerance"
job_call_error "$job" Start txtb "$(($(now_usec) - 60000000))" 0 300 false
assert_contains "$ERR" "org.freedesktop.DBus.Error.InvalidArgs" "a start a minute ago"
phase_is "$job" ready || fail "a refused Start moved job $job: $(job_prop "$job" Phase)"

# ---- 4. started ----
log "4. started at the given time"
start=$(($(now_usec) + 700000))
job_call "$job" Start txtb "$start" -1234 567 false
[ "$RC" = 0 ] || fail "Start failed: $OUT"
job_call_error "$job" Start txtb "$(($(now_usec) + 500000))" 0 300 false
assert_contains "$ERR" "org.benchd.Benchd1.Error.NotReady" "a second Start"
wait_job_state "$job" succeeded
assert_eq "$start|-1234|567|0" \
        "$(sql "select fleet_start_usec, fleet_clock_offset_us, fleet_rtt_us, fleet_start_corrected from runs where id = $run_id")" \
        "the started run's fleet columns"
began=$(sql "select started_usec from runs where id = $run_id")
assert_le "$start" "$began" "the measured phase began no earlier than the start time"
assert_contains "$(cat "$BENCHD_LOG")" "job $job: fleet step 0 started" "benchd's log of the start"
[ "$(sql "select count(*) from samples where run_id = $run_id")" -gt 0 ] || fail "the started run has no samples"

# ---- 5. with a ramp, corrected ----
log "5. a ramp before ready; a corrected start beyond the tolerance"
job=$(submit_busctl target s "$T" workload s write size s 4M runtime_ms t 1500 ramp_ms t 300 sample_ms t 250 \
        fleet_uuid s "$UUID" fleet_host s host-b fleet_clock_tolerance_ms s 10) || fail "SubmitJob with a ramp failed"
wait_for 60 phase_is "$job" ready || fail "job $job did not reach Phase ready: $(job_prop "$job" Phase)"
run_id=$(sql "select max(id) from runs where job_id = $job")
start=$(($(now_usec) + 500000))
job_call "$job" Start txtb "$start" 20000 300 true
[ "$RC" = 0 ] || fail "a corrected Start beyond the tolerance failed: $OUT"
wait_job_state "$job" succeeded
assert_eq "$start|20000|1|host-b" \
        "$(sql "select fleet_start_usec, fleet_clock_offset_us, fleet_start_corrected, fleet_host from runs where id = $run_id")" \
        "the corrected run's fleet columns"
assert_le "$start" "$(sql "select started_usec from runs where id = $run_id")" "the ramped run began measuring at its start"

# ---- 6. cancelled while it waits ----
log "6. a fleet job cancelled while it waits for its start"
job=$(submit_busctl target s "$T" workload s write size s 4M runtime_ms t 1500 fleet_uuid s "$UUID") ||
        fail "SubmitJob of a fleet job to cancel failed"
wait_for 60 phase_is "$job" ready || fail "job $job did not reach Phase ready: $(job_prop "$job" Phase)"
run benchctl cancel "$job"
[ "$RC" = 0 ] || fail "benchctl cancel of a waiting fleet job exited $RC: $OUT"
wait_job_state "$job" cancelled 20
assert_eq "" "$(worker_pids)" "workers left after the cancel"
# The worker removes its files as it stops; what it left, a helper process of benchd's removes.
no_cleanup() { [ -z "$(cleanup_pids)" ]; }
wait_for 20 no_cleanup || fail "benchd's removal of the cancelled job's files did not end"
assert_not_contains "$(grep "job $job step 0 worker" "$BENCHD_LOG")" "protocol violation" \
        "the waiting worker stopped within the protocol"
assert_eq "" "$(find "$T" -name ".benchd-$job-*")" "files left after the cancel"

# ---- 7. spec errors ----
log "7. the fleet keys' errors"
run benchctl submit --workload write --target "$T" --set fleet_host=h
assert_contains "$OUT" "fleet_host: given without fleet_uuid" "fleet_host alone"
run benchctl submit --workload write --target "$T" --set fleet_uuid=nope
assert_contains "$OUT" "fleet_uuid: 'nope' is not a uuid" "a uuid that is none"

log "ok"
