#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# The database's filesystem fills up while a job runs, and is freed again. benchd's database is on
# a tmpfs of its own, a few MiB, that the test fills with a file of its own while the worker writes.
#
# 1. While it is full, the bus never says more than the database: the job stays "running" on the
#    bus and in its row, also after its worker has finished, its Error says the database cannot be
#    written, no JobRemoved is sent, the next SubmitJob is refused, Cancel says the job has already
#    ended, and cancelling the job queued behind it is refused (it stays queued). The samples keep
#    coming and wait in memory.
# 2. Once the file is removed, the job ends succeeded on the bus and in the database, with every
#    sample the bus showed (Live) stored; the queued job runs; after a restart the earlier job's
#    row is still right.
# 3. benchd stopped while the job's end waits: it exits anyway; the next start finds the job
#    "running" with its run unfinished and marks it interrupted, saying why.
# 4. Start-up settles a job left "running" from its runs: a last step that succeeded makes it
#    succeeded (not interrupted), a last run that failed makes it failed.
# 5. What cannot be stored at all is said: a run deleted from under a running job (as a user with
#    sqlite3 might) loses its samples and its end, and the job's Error, its row and its JobRemoved
#    result name them.

. "$(dirname "$0")/lib.sh"

require_root
require_cmd dbus-daemon busctl python3 sqlite3 losetup mkfs.ext4 mount umount mountpoint dd df pgrep
require_binaries

STATE="$TEST_DIR/state"
FILLER="$STATE/filler"
mkdir -p "$STATE"
mount -t tmpfs -o size=8m,mode=0755 benchd-test-state "$STATE" || skip "cannot mount a tmpfs"
defer umount_retry "$STATE"
DB="$STATE/benchd.db"

start_bus
start_monitor
scratch_fs 512M
T="$SCRATCH_DIR"

# A time-bounded write of 8 s, ten samples a second.
long_job() {
        submit_busctl target s "$T" workload s write size s 64M block_size s 32K direct b true \
                runtime_ms u 8000 sample_ms u 100 label s "$1"
}
short_job() {
        submit_busctl target s "$T" workload s write size s 8M block_size s 32K direct b true \
                sample_ms u 100 label s "$1"
}

# fill: the tmpfs has no free byte left.
fill() {
        dd if=/dev/zero of="$FILLER" bs=64k status=none 2>/dev/null || true
        assert_eq 0 "$(df --output=avail -B1 "$STATE" | tail -n1 | tr -d ' ')" "free bytes on the filled tmpfs"
        log "filled $STATE"
}
unfill() {
        rm -f "$FILLER"
        log "freed $STATE"
}

run_of() {
        sql "select id from runs where job_id = $1 order by step desc limit 1"
}
samples_of() {
        sql "select count(*) from samples where run_id in (select id from runs where job_id = $1)"
}
# bus_str ID PROP: a string property of a job, without busctl's quoting.
bus_str() {
        bus --json=short get-property "$BUS_NAME" "$MANAGER_PATH/job/$1" "$JOB_IFACE" "$2" |
                json_get 'd["data"]'
}
# wait_samples ID N: until the job has at least N samples in the database.
wait_samples() {
        wait_for 60 bash -c "[ \"\$(sqlite3 -batch -noheader -cmd '.timeout 5000' '$DB' \
                'select count(*) from samples where run_id in (select id from runs where job_id = $1)')\" -ge $2 ]" ||
                fail "job $1 stored fewer than $2 samples in 60s (state $(job_state "$1"))"
}
wait_error_contains() {
        local id=$1 what=$2 i
        for ((i = 0; i < 600; i++)); do
                case "$(bus_str "$id" Error 2>/dev/null)" in *"$what"*) return 0 ;; esac
                sleep 0.1
        done
        fail "job $id: Error never said '$what' (Error: $(bus_str "$id" Error))"
}
# agree ID STATE: the bus and the jobs row say STATE.
agree() {
        assert_eq "$2" "$(bus_str "$1" State)" "job $1: State on the bus"
        assert_eq "$2" "$(job_state "$1")" "job $1: jobs.state"
}

# ---- 1. the filesystem fills while a job runs ----
start_benchd
a=$(long_job db-full) || fail "SubmitJob a failed"
b=$(short_job db-full-queued) || fail "SubmitJob b failed"
wait_samples "$a" 10
fill
wait_error_contains "$a" "cannot write the database"
error=$(bus_str "$a" Error)
log "Error of job $a: $error"
assert_contains "$error" "cannot write the database $DB (No space left on device" "Error of job $a while the database is full"
assert_contains "$error" "free space on its filesystem" "Error of job $a while the database is full"
agree "$a" running
wait_for 60 bash -c "[ -z \"\$(pgrep -P $BENCHD_PID)\" ]" || fail "the worker of job $a did not finish"
log "the worker of job $a has finished"
wait_error_contains "$a" "the job has ended (succeeded), which waits to be stored"
agree "$a" running
assert_eq "t $a" "$(manager_prop RunningJob)" "RunningJob while the end of job $a waits"
job_removed_result "$a" >/dev/null && fail "JobRemoved for job $a while its end was not stored"
assert_not_contains "$(job_changes "$a" State)" succeeded "State changes of job $a on the bus while full"
assert_eq "running|" "$(sql "select state, finished_usec from jobs where id = $a")" "row of job $a while full"
call_error CancelJob t "$a"
assert_contains "$ERR" "org.benchd.Benchd1.Error.NotCancellable" "CancelJob of a job whose end waits"
assert_contains "$ERR" "succeeded, which waits to be stored" "CancelJob of a job whose end waits"
call_error SubmitJob 'a{sv}' 5 target s "$T" workload s write size s 8M block_size s 32K direct b true
assert_contains "$ERR" "org.benchd.Benchd1.Error.NoSpace: cannot record the job in the database $DB: No space left on device" \
        "SubmitJob while the database is full"
call_error CancelJob t "$b"
assert_contains "$ERR" "org.benchd.Benchd1.Error.NoSpace: cannot record the cancellation of job $b" "CancelJob of a queued job while full"
assert_contains "$ERR" "the job is still queued" "CancelJob of a queued job while full"
agree "$b" queued
assert_eq "u 1" "$(manager_prop QueueLength)" "QueueLength while full"
agree "$a" running

unfill
assert_eq succeeded "$(wait_job_removed "$a" 120)" "JobRemoved of job $a once the database takes writes"
agree "$a" succeeded
assert_eq "" "$(bus_str "$a" Error)" "Error of job $a (nothing was lost)"
assert_eq "" "$(sql "select error from jobs where id = $a")" "jobs.error of job $a"
assert_eq "$(bus --json=short get-property "$BUS_NAME" "$MANAGER_PATH/job/$a" "$JOB_IFACE" FinishedUSec | json_get 'd["data"]')" \
        "$(sql "select finished_usec from jobs where id = $a")" "FinishedUSec on the bus and in the row of job $a"
run_a=$(run_of "$a")
assert_eq succeeded "$(sql "select status from runs where id = $run_a")" "runs.status of job $a"
[ "$(sql "select bytes_written from runs where id = $run_a")" -gt 0 ] || fail "run $run_a has no summary"
[ "$(sql "select count(*) from run_histograms where run_id = $run_a")" -gt 0 ] || fail "run $run_a has no histogram"
# Every sample the bus showed is stored, also those that came while the filesystem was full.
live=$(job_changes "$a" Live | grep -vc '^{}$' || true)
stored=$(samples_of "$a")
log "job $a: $live samples on the bus, $stored stored"
[ "$live" -ge 40 ] || fail "job $a showed only $live samples on the bus"
assert_eq "$live" "$stored" "samples of job $a stored, of those shown on the bus"
assert_eq "$(job_changes "$a" Live | grep -v '^{}$' | tail -n1 | json_get 'd["t_ms"]["data"]')" \
        "$(sql "select max(t_ms) from samples where run_id = $run_a")" "t_ms of the last sample of job $a"

assert_eq succeeded "$(wait_job_removed "$b" 120)" "JobRemoved of the job queued during the outage"
agree "$b" succeeded

stop_benchd
assert_eq 0 "$BENCHD_RC" "benchd exit status"
start_benchd
assert_eq "succeeded|" "$(sql "select state, error from jobs where id = $a")" "row of job $a after a restart"
assert_eq "$stored" "$(samples_of "$a")" "samples of job $a after a restart"
assert_eq succeeded "$(job_state "$b")" "job $b after a restart"

# ---- 2. benchd stops while the end of a job waits to be stored ----
c=$(long_job db-full-stop) || fail "SubmitJob c failed"
wait_samples "$c" 10
fill
wait_for 60 bash -c "[ -z \"\$(pgrep -P $BENCHD_PID)\" ]" || fail "the worker of job $c did not finish"
wait_error_contains "$c" "the job has ended (succeeded), which waits to be stored"
agree "$c" running
stop_benchd TERM
assert_eq 0 "$BENCHD_RC" "exit status of benchd stopped with the end of job $c not stored"
grep -q "benchd stops with this not stored" "$BENCHD_LOG" || fail "benchd did not log that the end of job $c was lost"
assert_eq running "$(job_state "$c")" "jobs.state of job $c after benchd stopped while full"
unfill
start_benchd
# benchd owns its name before it loads the queue: wait for it to settle the job.
wait_job_state "$c" interrupted
assert_contains "$(sql "select error from jobs where id = $c")" "before the end of the job was stored" "jobs.error of job $c"
assert_eq interrupted "$(sql "select status from runs where job_id = $c")" "runs.status of job $c"
assert_eq "" "$(benchd_files "$T")" ".benchd-* files of job $c"

# ---- 3. start-up settles a job left running from what its runs say ----
stop_benchd
# The end of the run stored, the end of the job not: what a refused last write leaves.
sql "update jobs set state = 'running', finished_usec = NULL, error = NULL where id = $b;
     update jobs set state = 'running', finished_usec = NULL, error = NULL where id = $c;
     update runs set status = 'failed', error = 'step 0 (write): the disk went away' where job_id = $c"
start_benchd
wait_job_state "$b" succeeded
assert_contains "$(sql "select error from jobs where id = $b")" "stored only when benchd started again" "jobs.error of job $b"
[ -n "$(sql "select finished_usec from jobs where id = $b")" ] || fail "job $b settled without finished_usec"
wait_job_state "$c" failed
assert_contains "$(sql "select error from jobs where id = $c")" "step 0 (write): the disk went away" "jobs.error of job $c"

# ---- 4. what cannot be stored at all is named ----
d=$(long_job db-lost) || fail "SubmitJob d failed"
wait_samples "$d" 5
run_d=$(run_of "$d")
sql "delete from runs where id = $run_d"
result=$(wait_job_removed "$d" 120)
log "job $d: JobRemoved result: $result"
assert_contains "$result" "succeeded; not stored: " "JobRemoved result of job $d"
assert_contains "$result" "samples of run $run_d (" "JobRemoved result of job $d"
assert_contains "$result" "the end of run $run_d (" "JobRemoved result of job $d"
agree "$d" succeeded
error=$(bus_str "$d" Error)
assert_contains "$error" "not stored: " "Error of job $d"
assert_eq "$error" "$(sql "select error from jobs where id = $d")" "jobs.error of job $d, and its Error on the bus"
assert_eq "succeeded; $error" "$result" "JobRemoved result of job $d, and its Error"

assert_eq ok "$(sql 'pragma integrity_check')" "integrity_check"
log "PASS"
