#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# benchd survives its workers, with real processes: a worker killed with SIGKILL mid-run, a
# "worker" that writes garbage, one that exits at once, one that cannot be executed, one that
# does not exist and one that hangs each end in a failed job with an error that says what
# happened, while the daemon keeps answering and no .benchd-* file is left behind. Cancelling a
# queued and a running job ends them as cancelled. A worker that speaks the protocol honestly
# succeeds with its figures stored; one that lies in a SAMPLE or in its RESULT fails its job as a
# protocol violation with none of the lie stored; worker text keeps its UTF-8; and no process a
# worker started outlives its job, even one that left the worker's process group with setsid().
#
# What the frames mean (order, versions, bounds, every plausibility rule, how each way of ending
# is judged) is the pure judge's, tested row by row in tests/unit/test-worker-judge.c; this test
# keeps one case per kind of outcome, so the wiring from the process to the bus and the database
# stays tested end to end.

. "$(dirname "$0")/lib.sh"

require_root
require_cmd dbus-daemon busctl python3 sqlite3 losetup mkfs.ext4 pgrep
require_binaries "$BENCHCTL_BIN"

start_bus
start_monitor
scratch_fs 1G
T="$SCRATCH_DIR"

# A long, time-bounded write: the worker is certainly running while we interfere.
long_job() {
        submit_busctl target s "$T" workload s write size s 128M block_size s 32K direct b true \
                runtime_ms u "${1:-60000}" sample_ms u 200 label s "${2:-faults}"
}

# wait_running ID: until the job runs and benchd has a worker child.
wait_running() {
        local id=$1 i
        for ((i = 0; i < 300; i++)); do
                if [ "$(job_state "$id")" = running ] && [ -n "$(worker_pids)" ]; then
                        return 0
                fi
                sleep 0.1
        done
        fail "job $id never ran with a worker (state $(job_state "$id"), children of $BENCHD_PID: $(worker_pids))"
}

daemon_answers() {
        benchd_alive || fail "benchd died"
        run manager_prop Version
        [ "$RC" = 0 ] || fail "benchd does not answer after $1: $OUT"
}

# ---- 1. the real worker killed with SIGKILL mid-run ----
start_benchd
id=$(long_job 60000 kill9) || fail "SubmitJob failed"
wait_running "$id"
# Wait for the first sample, so the worker is well inside the measured phase and has its file.
wait_for 30 bash -c "[ \"\$(busctl --address='$BUS_ADDRESS' get-property $BUS_NAME $MANAGER_PATH/job/$id $JOB_IFACE Live)\" != 'a{sv} 0' ]" ||
        fail "job $id produced no Live sample in 30s"
# The file must be there, or the clean-up check after the kill below holds whatever benchd does.
[ -n "$(benchd_files "$T")" ] || fail "no .benchd-* file in $T while job $id writes"
wpid=$(worker_pids | head -n1)
log "killing worker $wpid of job $id with SIGKILL"
kill -KILL "$wpid"
result=$(wait_job_removed "$id" 30)
assert_eq failed "$result" "JobRemoved result after the worker was killed"
assert_eq failed "$(job_state "$id")" "jobs.state"
err=$(sql "select error from jobs where id = $id")
log "error of job $id: $err"
case "$err" in
*KILL* | *"signal 9"* | *Killed* | *killed*) ;;
*) fail "jobs.error should name the signal that killed the worker, got: '$err'" ;;
esac
assert_eq failed "$(sql "select status from runs where job_id = $id")" "runs.status"
daemon_answers "a killed worker"
wait_for 10 bash -c "[ -z \"\$(find '$T' -maxdepth 2 -name '.benchd-*')\" ]" ||
        fail ".benchd-* files left after the worker was killed: $(benchd_files "$T")"

# ---- 2. cancelling: a queued job, then a running one ----
a=$(long_job 60000 cancel-running) || fail "SubmitJob a failed"
b=$(long_job 60000 cancel-queued) || fail "SubmitJob b failed"
wait_running "$a"
assert_eq queued "$(job_state "$b")" "second job while the first runs"
assert_eq "u 1" "$(manager_prop QueueLength)" "QueueLength with one queued job"
assert_eq "t $a" "$(manager_prop RunningJob)" "RunningJob"
assert_success "benchctl cancel $b" benchctl cancel "$b"
assert_eq cancelled "$(wait_job_removed "$b" 10)" "JobRemoved of the cancelled queued job"
assert_eq running "$(job_state "$a")" "the running job is untouched by cancelling another"
# Cancelled in its measured phase, with its file there (not in a guess at how long that takes).
wait_for 60 bash -c "[ \"\$(busctl --address='$BUS_ADDRESS' get-property $BUS_NAME $MANAGER_PATH/job/$a $JOB_IFACE Live)\" != 'a{sv} 0' ]" ||
        fail "job $a sent no sample in 60 s"
[ -n "$(benchd_files "$T")" ] || fail "no .benchd-* file in $T while job $a writes"
start=$(date +%s)
bus call "$BUS_NAME" "$MANAGER_PATH/job/$a" "$JOB_IFACE" Cancel || fail "Job.Cancel failed"
assert_eq cancelled "$(wait_job_removed "$a" 30)" "JobRemoved of the cancelled running job"
assert_le $(($(date +%s) - start)) 15 "seconds to cancel a running job"
assert_eq cancelled "$(job_state "$a")" "jobs.state of the cancelled running job"
assert_eq cancelled "$(sql "select status from runs where job_id = $a")" "runs.status of the cancelled run"
assert_eq 0 "$(sql "select count(*) from runs where job_id = $b")" "runs of a job cancelled while queued"
wait_for 10 bash -c "[ -z \"\$(find '$T' -maxdepth 2 -name '.benchd-*')\" ]" ||
        fail ".benchd-* files left after cancel: $(benchd_files "$T")"
daemon_answers "cancel"
stop_benchd
assert_eq 0 "$BENCHD_RC" "benchd exit status"

# ---- 3. fake workers ----
# Each finds its socket(s) to benchd among its open fds, whatever number they have.
FAKE_PRELUDE='#!/bin/bash
socks=()
for fd in /proc/$$/fd/*; do
        n=${fd##*/}
        case "$(readlink "$fd")" in socket:*) socks+=("$n") ;; esac
done
'
mkfake() {
        printf '%s%s\n' "$FAKE_PRELUDE" "$2" >"$TEST_DIR/fake-$1"
        chmod 0755 "$TEST_DIR/fake-$1"
}
# HELLO frame: "BNCH", version 2, type 1, length 8, reserved 0; payload version 2, pid.
HELLO='printf "BNCH\x02\x00\x01\x00\x08\x00\x00\x00\x00\x00\x00\x00\x02\x00\x00\x00\x39\x30\x00\x00"'
mkfake garbage 'for s in "${socks[@]}"; do head -c 65536 /dev/urandom >&"$s" 2>/dev/null; done; sleep 2'
mkfake exit3 'exit 3'
mkfake hang 'trap "" TERM; for s in "${socks[@]}"; do '"$HELLO"' >&"$s"; done; while :; do sleep 1; done'
# Executable, but its interpreter does not exist: execve() fails in the child, which exits 127.
printf '#!%s/no-such-interpreter\n' "$TEST_DIR" >"$TEST_DIR/fake-noexec"
chmod 0755 "$TEST_DIR/fake-noexec"

# fake|what the job's error must say
for case in "garbage|protocol violation by the worker: garbage instead of a frame header" \
        "exit3|worker exited with status 3 without a result (it never said HELLO)" \
        "noexec|worker $TEST_DIR/fake-noexec could not be executed (exit status 127); check --worker" \
        "missing|cannot start the worker $TEST_DIR/fake-missing: No such file or directory" \
        "hang|the step timed out after 5 s (its runtime plus StepTimeoutGraceSec=)"; do
        IFS='|' read -r fake why <<<"$case"
        # Under BENCHD_TEST_WRAP (valgrind), the tool emulates execve() in the forked child and
        # exits with a status of its own when that fails: 127 is not what the child says then.
        if [ "$fake" = noexec ] && [ -n "${BENCHD_TEST_WRAP:-}" ]; then
                log "not with BENCHD_TEST_WRAP: the '$fake' worker"
                continue
        fi
        if [ "$fake" = hang ]; then
                # A step of 1 s with 4 s of grace (benchd.conf's StepTimeoutGraceSec=; a minute
                # by default) is stopped 5 s after it started.
                printf '[Daemon]\nStepTimeoutGraceSec=4\n' >"$TEST_DIR/grace.conf"
                start_benchd --worker="$TEST_DIR/fake-$fake" --config="$TEST_DIR/grace.conf"
                id=$(long_job 1000 "fake-$fake") || fail "SubmitJob failed"
                timeout=90
        else
                start_benchd --worker="$TEST_DIR/fake-$fake"
                id=$(long_job 5000 "fake-$fake") || fail "SubmitJob failed"
                timeout=60
        fi
        start=$(date +%s)
        result=$(wait_job_removed "$id" $timeout)
        log "fake worker '$fake': job $id $result after $(($(date +%s) - start))s: $(sql "select error from jobs where id = $id")"
        assert_eq failed "$result" "JobRemoved result with the '$fake' worker"
        assert_contains "$(sql "select error from jobs where id = $id")" "$why" "job error with the '$fake' worker"
        daemon_answers "the '$fake' worker"
        # No fake worker may outlive its job.
        wait_for 15 bash -c "[ -z \"\$(pgrep -P $BENCHD_PID)\" ] && ! pgrep -f '^/bin/bash $TEST_DIR/fake-' >/dev/null" ||
                fail "the '$fake' worker is still running after its job ended: $(pgrep -af "^/bin/bash $TEST_DIR/fake-") children: $(worker_pids)"
        # The daemon is still usable: ListJobs answers and shows the job as failed.
        assert_success "ListJobs" bus call "$BUS_NAME" "$MANAGER_PATH" "$MANAGER_IFACE" ListJobs 'a{sv}' 0
        stop_benchd
        assert_eq 0 "$BENCHD_RC" "benchd exit status after the '$fake' worker"
done

# ---- 4. fake workers that speak the protocol: what benchd stores, and what it refuses ----
py=$(command -v /usr/bin/python3 python3 | head -n1)
for mode in honest label; do
        { printf '#!%s\nimport sys; sys.path.insert(0, "%s/tests/integration")\n' "$py" "$SOURCE_ROOT"
          cat "$SOURCE_ROOT/tests/integration/fake-worker.py"; } >"$TEST_DIR/fake-py-$mode"
        chmod 0755 "$TEST_DIR/fake-py-$mode"
done

start_benchd --worker="$TEST_DIR/fake-py-honest"
id=$(submit_busctl target s "$T" workload s write size s 8M block_size s 32K direct b true \
        sample_ms u 1000 label s fake-py-honest) || fail "SubmitJob failed"
assert_eq succeeded "$(wait_job_removed "$id" 30)" "JobRemoved with a worker that tells the truth: $(sql "select error from jobs where id = $id")"
# The fake's figures are the engine's for 256 latencies at bucket midpoints (fake-worker.py).
assert_eq "$((8 << 20))|$((8 << 20 >> 15))|120063|120063|30015|51623" \
        "$(sql "select bytes_written, ios_written, lat_p99_ns, lat_max_ns, lat_min_ns, lat_mean_ns from runs where job_id = $id")" \
        "what benchd stored of the fake RESULT (bytes_written|ios_written|lat_p99_ns|lat_max_ns|lat_min_ns|lat_mean_ns)"
assert_eq "$((4 << 20))|12.5
$((4 << 20))|12.5" "$(sql "select bytes_written, iowait_pct from samples where run_id = (select id from runs where job_id = $id) order by t_ms")" \
        "what benchd stored of the fake SAMPLEs"
assert_eq 1 "$(sql "select duration_usec = 1000 * (select max(t_ms) from samples where run_id = runs.id) from runs where job_id = $id")" \
        "the stored duration is the fake's, its last sample's t_ms"
assert_eq 256 "$(sql "select sum(count) from run_histograms where run_id = (select id from runs where job_id = $id)")" \
        "what benchd stored of the fake HISTOGRAM"
stop_benchd

# ---- 5. implausible figures: the job fails naming the rule, and nothing of the lie is stored ----
# One benchd, one fake ("fake-py-label"), the mode in each job's label. Each mode is honest up to
# one lie, in a SAMPLE or in the RESULT; "kept" is how many of its SAMPLEs came before the lie (and
# are stored, being plausible). The other rules are rows of tests/unit/test-worker-judge.c.
# Its log as the journal would get it: the worker's LOG lines must keep their priority.
BENCHD_LOG_AS_JOURNAL=1 start_benchd --worker="$TEST_DIR/fake-py-label"
SIZE=$((8 << 20))
for case in \
        "rate|1|SAMPLE moved 1000000000000000 bytes in 100000 us, faster than the ceiling of 1000000000000 bytes/s" \
        "result-p99|2|RESULT lat_p99_ns=89855 but its HISTOGRAM gives 120063"; do
        IFS='|' read -r mode kept why <<<"$case"
        id=$(submit_busctl target s "$T" workload s write size s 8M block_size s 32K direct b true \
                sample_ms u 1000 label s "$mode") || fail "SubmitJob ($mode) failed"
        result=$(wait_job_removed "$id" 30)
        error=$(sql "select error from jobs where id = $id")
        log "fake worker '$mode': job $id $result: $error"
        assert_eq failed "$result" "JobRemoved with the '$mode' worker"
        assert_contains "$error" "protocol violation by the worker: $why" "job error with the '$mode' worker"
        assert_contains "$error" "the worker was killed" "job error with the '$mode' worker"
        run_id=$(sql "select id from runs where job_id = $id")
        assert_eq "failed|||||||" \
                "$(sql "select status, bytes_read, bytes_written, ios_written, duration_usec, lat_min_ns, lat_p99_ns, lat_max_ns from runs where id = $run_id")" \
                "the run of the '$mode' worker: failed, and none of its RESULT stored"
        assert_eq 0 "$(sql "select count(*) from run_histograms where run_id = $run_id")" \
                "histogram buckets stored from the '$mode' worker"
        # The samples before the lie, and nothing beyond what an 8 MiB write could be.
        assert_eq "$kept" "$(sql "select count(*) from samples where run_id = $run_id")" \
                "samples stored from the '$mode' worker"
        assert_eq 0 "$(sql "select count(*) from samples where run_id = $run_id and (bytes_written > $SIZE
                or ios_written > 256 or t_ms > 60000 or cpu_user_pct + cpu_sys_pct + iowait_pct > 100)")" \
                "implausible samples stored from the '$mode' worker"
        assert_le "$(sql "select coalesce(sum(bytes_written), 0) from samples where run_id = $run_id")" "$SIZE" \
                "bytes of the samples stored from the '$mode' worker"
done

# ---- 6. worker text: valid UTF-8 is kept, control characters and invalid bytes are not ----
id=$(submit_busctl target s "$T" workload s write size s 8M block_size s 32K label s utf8) || fail "SubmitJob (utf8) failed"
assert_eq failed "$(wait_job_removed "$id" 30)" "JobRemoved with the 'utf8' worker"
assert_eq "Gerät nicht bereit: 日本語??" "$(sql "select error from jobs where id = $id")" \
        "the ERROR message, as benchd stored it"
grep -Eq "^<3>job $id step 0 worker\[[0-9]+\]: Gerät nicht bereit: 日本語\?\?$" "$BENCHD_LOG" ||
        fail "the worker's LOG (priority 3) is not in benchd's log as UTF-8 with its priority: $(grep "job $id " "$BENCHD_LOG" | tail -n 3)"
grep -Eq "^<6>job $id: " "$BENCHD_LOG" || fail "benchd's own lines about job $id do not carry their priority"
run_json=$(bus --json=short call "$BUS_NAME" "$MANAGER_PATH/job/$id" org.freedesktop.DBus.Properties Get ss "$JOB_IFACE" Error) ||
        fail "Job.Error of the utf8 job cannot be read"
assert_contains "$run_json" "Gerät nicht bereit: 日本語??" "Job.Error over D-Bus"

# ---- 7. no process outlives its job ----
# Each fake first starts a child that calls setsid() (so killing the worker's process group misses
# it) and sleeps for 5 minutes, with a marker as its name: once when the worker then exits by
# itself, once when benchd kills it for lying. Either way the child must be gone when the job is.
for case in "orphan-honest|succeeded" "orphan-rate|failed"; do
        IFS='|' read -r mode want <<<"$case"
        rm -f "$TEST_DIR/orphan-${mode#orphan-}.pid"
        reports=$(grep -c "left behind by a worker" "$BENCHD_LOG" || true)
        id=$(submit_busctl target s "$T" workload s write size s 8M block_size s 32K label s "$mode") ||
                fail "SubmitJob ($mode) failed"
        assert_eq "$want" "$(wait_job_removed "$id" 30)" "JobRemoved with the '$mode' worker: $(sql "select error from jobs where id = $id")"
        [ -s "$TEST_DIR/orphan-${mode#orphan-}.pid" ] || fail "the '$mode' worker did not start its child"
        orphan=$(cat "$TEST_DIR/orphan-${mode#orphan-}.pid")
        log "'$mode': the worker's setsid() child was $orphan"
        wait_for 10 bash -c "! pgrep -f '^benchd-test-orphan:$TEST_DIR' >/dev/null" ||
                fail "the setsid() child of the '$mode' worker outlived its job: $(pgrep -af "^benchd-test-orphan:$TEST_DIR")"
        # Killed and reaped: no zombie left among benchd's children either.
        wait_for 10 bash -c "[ -z \"\$(pgrep -P $BENCHD_PID)\" ]" ||
                fail "benchd still has children after the '$mode' job: $(ps -o pid,stat,args --ppid "$BENCHD_PID")"
        wait_for 10 bash -c "[ \"\$(grep -c 'killed and reaped 1 process(es) left behind by a worker' '$BENCHD_LOG')\" -gt $reports ]" ||
                fail "benchd did not report the process it killed after the '$mode' job"
done
daemon_answers "the orphan workers"
stop_benchd
assert_eq 0 "$BENCHD_RC" "benchd exit status after the implausible workers"

assert_eq "" "$(benchd_files "$T")" ".benchd-* files at the end"
log "PASS"
