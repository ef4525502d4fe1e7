#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# A fleet run's faults (docs/fleet.md "Fleet runs", "When a host fails"), on three hosts each in a
# network namespace of its own on a bridge the test makes (fleet-lib.sh: 192.0.2.x only inside
# them; each host an sshd, a dbus-daemon and a benchd on its own database and loop-backed ext4):
#   a. h3's benchd under libfaketime, its clock 2 s behind: benchctl measures the offset and refuses
#      the run naming h3 and the offset, nothing queued anywhere; with --clock-correct it runs, h3
#      started at the same moment on benchctl's clock (its start time moved by its offset);
#   b. h2's benchd killed (by pid) while it measures: h1 and h3 complete, the summary's LOST line
#      names h2, the step and phase it was in, what it had measured and its run;
#   c. h3's veth cut (ip link set down) while it measures: the same for h3; the link restored, h3's
#      run has completed in its own history and h3 answers again;
#   d. a cancel of the fleet's job on one host (benchctl -H root@h1 cancel ID) cancels it on every
#      host; benchctl cancel --fleet UUID -H ... cancels the jobs of a fleet whose benchctl died,
#      one line per host, and says so when they had ended already.
# Every wait is a bounded poll of a state, none a sleep for a window.

. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/fleet-lib.sh"

# Debian's libfaketime (scripts/deps.sh): the shifted clock of one host.
FAKETIME_LIB=
for f in /usr/lib/*/faketime/libfaketime.so.1 /usr/lib/faketime/libfaketime.so.1; do
        [ -e "$f" ] && FAKETIME_LIB=$f && break
done
if [ -z "$FAKETIME_LIB" ]; then
        ensure_deps libfaketime >&2 || true
        for f in /usr/lib/*/faketime/libfaketime.so.1; do
                [ -e "$f" ] && FAKETIME_LIB=$f && break
        done
        [ -n "$FAKETIME_LIB" ] || skip "needs libfaketime (apt-get install libfaketime)"
fi

# h3's clock 2 s behind: FAKETIME=-2 (libfaketime's relative offset in seconds) with
# FAKETIME_DONT_FAKE_MONOTONIC=1, so that clock_gettime() shifts the wall clock only: the one
# benchctl measures (GetClock) and Job.Start's CLOCK_REALTIME timer is armed on (libfaketime moves
# an absolute timerfd expiry by the offset, so that timer fires at h3's time as given). Behind, not
# ahead: libfaketime (0.9.10) moves absolute expiries on CLOCK_MONOTONIC by the offset as well, and
# sd-event arms its "now" timer at {0 s, 1 ns}; FAKETIME=+2 makes that {-2 s, 1 ns}, which
# timerfd_settime() refuses with EINVAL, and benchd's event loop ends ("event loop failed: Invalid
# argument", seen under strace). With -2 it becomes {2 s, 1 ns}, still long past: it fires at once.
# FAKETIME_DISABLE_SHM=1: no shared-memory segment in /dev/shm, which libfaketime would leave there
# when benchd is killed (its destructor does not run).
FLEET_BENCHD_ENV[h3]="LD_PRELOAD=$FAKETIME_LIB FAKETIME=-2 FAKETIME_DONT_FAKE_MONOTONIC=1 FAKETIME_DISABLE_SHM=1"
fleet_setup h1 h2 h3
HOSTS=(h1 h2 h3)
ALL=(-H root@h1 -H root@h2 -H root@h3)

count_jobs() {
        local h total=0
        for h in "${HOSTS[@]}"; do
                total=$((total + $(hsql "$h" "select count(*) from jobs")))
        done
        echo "$total"
}
last_job() { hsql "$1" "select coalesce(max(id), 0) from jobs"; }
job_state_on() { hsql "$1" "select state from jobs where id = $2"; }
state_is() { [ "$(job_state_on "$1" "$2")" = "$3" ]; }
# live_ms H JOB: t_ms of the job's latest sample on H (0 before the first one).
live_ms() {
        hbus "$1" --json=short get-property "$BUS_NAME" "$MANAGER_PATH/job/$2" "$JOB_IFACE" Live |
                "$PYTHON3" -c 'import json, sys; print(json.load(sys.stdin)["data"].get("t_ms", {}).get("data", 0))'
}
measuring_since() { [ "$(live_ms "$1" "$2")" -ge "$3" ]; }
# benchctl's view of a host's job is what its last poll saw: a GetAll of the job's properties on
# the host's bus, one round over the hosts every 100 ms or slower on a loaded machine. So a test
# of what benchctl says of a host it lost waits for benchctl to have polled after the state it
# checks was reached, not for a time. watch_polls H JOB: a busctl monitor of those calls on H's bus;
# polled_after USEC N: N of them were seen after the wall-clock time USEC (busctl's receive time;
# benchctl sends each poll after the previous round's replies, 100 ms later, so with N = 3 the
# last two were sent after USEC however late the monitor reads).
watch_polls() {
        POLL_LOG=$TEST_DIR/polls.$1.$2
        hbus "$1" --json=short monitor \
                --match="type='method_call',member='GetAll',path='$MANAGER_PATH/job/$2'" >"$POLL_LOG" 2>&1 &
        defer kill_wait "$!"
}
polled_after() {
        "$PYTHON3" - "$POLL_LOG" "$1" "$2" <<'PY'
import json, sys
n = 0
for line in open(sys.argv[1]):
    try:
        m = json.loads(line)
    except ValueError:
        continue
    if m.get("member") == "GetAll" and int(m.get("timestamp-realtime", 0)) > int(sys.argv[2]):
        n += 1
sys.exit(0 if n >= int(sys.argv[3]) else 1)
PY
}
now_usec() { date +%s%6N; }
# new_job H BEFORE: the job after BEFORE appeared on H (a fleet run's job there).
has_new_job() { [ "$(last_job "$1")" -gt "$2" ]; }
# wait_ctl TIMEOUT_S: until the background benchctl exits; its status in CTL_RC.
wait_ctl() {
        pid_running "$FLEET_CTL_PID" && ! wait_for "$1" eval '! pid_running "$FLEET_CTL_PID"' &&
                fail "benchctl did not end within $1 s: $(cat "$CTL_OUT" "$CTL_OUT.err")"
        CTL_RC=0
        wait "$FLEET_CTL_PID" || CTL_RC=$?
        _REAPED+="$FLEET_CTL_PID "
}

SHORT=(--workload write --target "$FLEET_T" --set size=4M --set block_size=64K --set direct=true
        --set runtime_ms=1500 --set sample_ms=250)
# Long enough to be measuring when the fault comes: each fault waits for a sample first and checks
# that the job still runs after it; the others complete it.
LONG=(--workload write --target "$FLEET_T" --set size=4M --set block_size=64K --set direct=true
        --set runtime_ms=8000 --set sample_ms=250)

# ---- a. a clock 2 s behind ----
log "a. h3's clock 2 s behind (libfaketime): refused, naming the host and the offset"
jobs_before=$(count_jobs)
fleet_ctl run "${ALL[@]}" "${SHORT[@]}"
assert_eq 1 "$RC" "the exit status of a fleet run with a host's clock 2 s off"
line=$(grep "host root@h3's clock is" <<<"$OUT") || fail "the refusal does not name h3's clock: $OUT"
off=$(sed -n "s/.*clock is \([-+][0-9.]*\) ms from this one's.*/\1/p" <<<"$line")
[ -n "$off" ] || fail "the refusal names no offset: $line"
"$PYTHON3" -c 'import sys; sys.exit(not -2200 < float(sys.argv[1]) < -1800)' "$off" ||
        fail "h3's measured offset $off ms is not about -2000 ms"
assert_contains "$line" "beyond fleet_clock_tolerance_ms=50" "the refusal names the tolerance"
assert_not_contains "$OUT" "root@h1's clock" "h1's clock is this one's"
assert_contains "$OUT" "nothing was submitted" "the refusal says nothing was submitted"
assert_eq "$jobs_before" "$(count_jobs)" "jobs on the hosts after the refusal"

log "   with --clock-correct it runs, h3's start moved by its offset"
fleet_ctl run "${ALL[@]}" --clock-correct "${SHORT[@]}"
[ "$RC" = 0 ] || fail "the fleet run with --clock-correct exited $RC: $OUT"
assert_contains "$OUT" "start corrected" "the summary says h3's start was corrected"
UUID=$(sed -n 's/^Fleet run \([0-9a-f-]*\):$/\1/p' <<<"$OUT")
[ -n "$UUID" ] || fail "the fleet run named no uuid: $OUT"
for h in "${HOSTS[@]}"; do
        row=$(hsql "$h" "select status, fleet_start_corrected, count(*) from runs where fleet_uuid = '$UUID'")
        want="succeeded|0|1"
        [ "$h" = h3 ] && want="succeeded|1|1"
        assert_eq "$want" "$row" "$h's run of the corrected fleet run (status, corrected, runs)"
        start=$(hsql "$h" "select fleet_start_usec from runs where fleet_uuid = '$UUID'")
        assert_le "$start" "$(hsql "$h" "select started_usec from runs where fleet_uuid = '$UUID'")" \
                "$h began measuring no earlier than its start time (on its own clock)"
done
h3_off=$(hsql h3 "select fleet_clock_offset_us from runs where fleet_uuid = '$UUID'")
[ "$h3_off" -lt -1800000 ] && [ "$h3_off" -gt -2200000 ] || fail "h3's recorded offset $h3_off us is not about -2 s"
# On benchctl's clock every host was given one moment: h3's start is h1's moved by h3's offset.
assert_eq "$(hsql h1 "select fleet_start_usec from runs where fleet_uuid = '$UUID'")" \
        "$(hsql h3 "select fleet_start_usec - fleet_clock_offset_us from runs where fleet_uuid = '$UUID'")" \
        "h3's start less its offset, against h1's start"

# h3 back on the machine's clock for the rest.
fleet_stop_benchd h3
FLEET_BENCHD_ENV[h3]=
fleet_start_benchd h3

# ---- b. a benchd killed mid-run ----
log "b. h2's benchd killed while it measures"
b2=$(last_job h2)
CTL_OUT=$TEST_DIR/b.out
fleet_ctl_bg "$CTL_OUT" run "${ALL[@]}" "${LONG[@]}"
wait_for 120 has_new_job h2 "$b2" || fail "no fleet job came to h2: $(cat "$CTL_OUT" "$CTL_OUT.err")"
job2=$(last_job h2)
watch_polls h2 "$job2"
wait_for 120 measuring_since h2 "$job2" 500 || fail "h2's job $job2 did not measure: $(cat "$CTL_OUT" "$CTL_OUT.err")"
t=$(now_usec)
wait_for 120 polled_after "$t" 3 || fail "benchctl did not poll h2's job $job2 after it had measured 500 ms: $(cat "$POLL_LOG")"
# Stopped first, so that what is checked is what the kill finds: the job still running.
kill -STOP "${FLEET_PID[h2]}"
workers=$(pgrep -P "${FLEET_PID[h2]}" || true)
assert_eq running "$(job_state_on h2 "$job2")" "h2's job when its benchd is killed (raise LONG's runtime_ms if it ended)"
run2=$(hsql h2 "select max(id) from runs where job_id = $job2")
kill -KILL "${FLEET_PID[h2]}"
wait "${FLEET_PID[h2]}" 2>/dev/null || true
_REAPED+="${FLEET_PID[h2]} "
# Its worker ends when its pipe to benchd does; it is the test's to wait for.
for w in $workers; do
        wait_for 30 eval "! pid_running $w" || kill -KILL "$w" 2>/dev/null || true
done
wait_ctl 180
out=$(cat "$CTL_OUT")
log "$out"
assert_eq 3 "$CTL_RC" "benchctl's exit status with a host lost"
assert_contains "$(cat "$CTL_OUT.err")" "lost host root@h2 (job $job2): " "what benchctl said when it lost h2"
lost=$(grep -E '^  root@h2 +LOST in step 0' <<<"$out") || fail "no LOST line for h2: $out"
assert_contains "$lost" "(measure)" "the phase h2 was lost in"
grep -Eq 'it had measured [0-9]+\.[0-9]{3} s, its last sample [0-9.]+ MiB/s, [0-9]+ IOPS' <<<"$lost" ||
        fail "the LOST line does not say what h2 had measured: $lost"
assert_contains "$lost" "its run $run2 stays in its history (job $job2)" "the LOST line names h2's run"
UUID=$(sed -n 's/^Fleet run \([0-9a-f-]*\):$/\1/p' <<<"$out")
[ -n "$UUID" ] || fail "the fleet run named no uuid: $out"
for h in h1 h3; do
        assert_eq succeeded "$(hsql "$h" "select status from runs where fleet_uuid = '$UUID'")" "$h's run with h2 lost"
        assert_contains "$out" "root@$h " "the summary's line of $h"
done
assert_contains "$out" "every host of 2 was measuring" "the all-hosts line counts the two that completed"
fleet_start_benchd h2
assert_eq interrupted "$(job_state_on h2 "$job2")" "h2's job after its benchd came back"

# ---- c. a host cut off mid-run ----
log "c. h3's link cut while it measures, then restored"
b3=$(last_job h3)
CTL_OUT=$TEST_DIR/c.out
fleet_ctl_bg "$CTL_OUT" --json run "${ALL[@]}" "${LONG[@]}"
wait_for 120 has_new_job h3 "$b3" || fail "no fleet job came to h3: $(cat "$CTL_OUT" "$CTL_OUT.err")"
job3=$(last_job h3)
watch_polls h3 "$job3"
wait_for 120 measuring_since h3 "$job3" 500 || fail "h3's job $job3 did not measure: $(cat "$CTL_OUT" "$CTL_OUT.err")"
# What benchctl will report of h3 (measured_ms >= 500, below) is what it polled after this.
t=$(now_usec)
wait_for 120 polled_after "$t" 3 || fail "benchctl did not poll h3's job $job3 after it had measured 500 ms: $(cat "$POLL_LOG")"
fleet_link h3 down
defer fleet_link h3 up
assert_eq running "$(job_state_on h3 "$job3")" "h3's job when its link was cut (raise LONG's runtime_ms if it ended)"
run3=$(hsql h3 "select max(id) from runs where job_id = $job3")
wait_ctl 180
log "$(cat "$CTL_OUT.err")"
assert_eq 3 "$CTL_RC" "benchctl's exit status with a host cut off"
assert_contains "$(cat "$CTL_OUT.err")" "lost host root@h3 (job $job3): " "what benchctl said when it lost h3"
# --json: the lost host as it was last seen, the all-hosts figures of the two that completed.
summary=$("$PYTHON3" -c 'import json, sys
o = json.load(open(sys.argv[1]))
h = {x["host"]: x for x in o["hosts"]}
l = h["root@h3"]["lost_in"]
print(o["fleet_uuid"], h["root@h3"]["lost"], h["root@h1"]["lost"], l["step"], l["phase"], l["runs"] == [int(sys.argv[2])],
      l["measured_ms"] >= 500, l["last_mib_per_s"] > 0, l["last_iops"] > 0, o["all_hosts"][0]["hosts"])' "$CTL_OUT" "$run3") ||
        fail "the --json summary with h3 lost is not what it should be: $(cat "$CTL_OUT" "$CTL_OUT.err")"
UUID=${summary%% *}
assert_eq "True False 0 measure True True True True 2" "${summary#* }" "the --json summary with h3 lost"
for h in h1 h2; do
        assert_eq succeeded "$(hsql "$h" "select status from runs where fleet_uuid = '$UUID'")" "$h's run with h3 cut off"
done
fleet_link h3 up
# Cut off from benchctl, not stopped: h3's job went on and completed in its own history.
wait_for 120 state_is h3 "$job3" succeeded || fail "h3's job $job3 did not complete: $(job_state_on h3 "$job3")"
assert_eq succeeded "$(hsql h3 "select status from runs where fleet_uuid = '$UUID'")" "h3's run of the fleet"
fleet_ctl -H root@h3 status "$job3"
[ "$RC" = 0 ] || fail "h3 does not answer with its link restored ($RC): $OUT"

# ---- d. cancel ----
log "d. a cancel on one host cancels the fleet's job on every host"
declare -A before
for h in "${HOSTS[@]}"; do before[$h]=$(last_job "$h"); done
CTL_OUT=$TEST_DIR/d.out
LONGER=(--workload write --target "$FLEET_T" --set size=4M --set block_size=64K --set direct=true
        --set runtime_ms=600000)
fleet_ctl_bg "$CTL_OUT" run "${ALL[@]}" "${LONGER[@]}"
declare -A job
for h in "${HOSTS[@]}"; do
        wait_for 120 has_new_job "$h" "${before[$h]}" || fail "no fleet job came to $h: $(cat "$CTL_OUT" "$CTL_OUT.err")"
        job[$h]=$(last_job "$h")
        wait_for 120 state_is "$h" "${job[$h]}" running || fail "$h's job did not run: $(cat "$CTL_OUT" "$CTL_OUT.err")"
done
fleet_ctl -H root@h1 cancel "${job[h1]}"
[ "$RC" = 0 ] || fail "benchctl -H root@h1 cancel ${job[h1]} exited $RC: $OUT"
wait_ctl 120
assert_eq 1 "$CTL_RC" "the fleet run's exit status after its job was cancelled on h1"
assert_contains "$(cat "$CTL_OUT.err")" "the job was cancelled on root@h1; cancelling the job on every host" \
        "what the fleet run said"
for h in "${HOSTS[@]}"; do
        wait_for 60 state_is "$h" "${job[$h]}" cancelled ||
                fail "$h's job ${job[$h]} was not cancelled: $(job_state_on "$h" "${job[$h]}")"
done

log "   cancel --fleet UUID: the jobs of a fleet whose benchctl died"
for h in "${HOSTS[@]}"; do before[$h]=$(last_job "$h"); done
CTL_OUT=$TEST_DIR/d2.out
fleet_ctl_bg "$CTL_OUT" run "${ALL[@]}" "${LONGER[@]}"
for h in "${HOSTS[@]}"; do
        wait_for 120 has_new_job "$h" "${before[$h]}" || fail "no fleet job came to $h: $(cat "$CTL_OUT" "$CTL_OUT.err")"
        job[$h]=$(last_job "$h")
        wait_for 120 state_is "$h" "${job[$h]}" running || fail "$h's job did not run: $(cat "$CTL_OUT" "$CTL_OUT.err")"
done
U=$(hsql h1 "select json_extract(spec, '\$.fleet_uuid') from jobs where id = ${job[h1]}")
[ -n "$U" ] || fail "h1's fleet job has no fleet_uuid in its spec"
# benchctl killed: nothing cancels the jobs it left (its ssh children end with its connections).
kids=$(pgrep -P "$FLEET_CTL_PID" || true)
kill -KILL "$FLEET_CTL_PID"
wait "$FLEET_CTL_PID" 2>/dev/null || true
_REAPED+="$FLEET_CTL_PID "
for k in $kids; do
        wait_for 30 eval "! pid_running $k" || kill -KILL "$k" 2>/dev/null || true
done
for h in "${HOSTS[@]}"; do
        assert_eq running "$(job_state_on "$h" "${job[$h]}")" "$h's job after its benchctl was killed"
done
fleet_ctl cancel --fleet "$U" "${ALL[@]}"
[ "$RC" = 0 ] || fail "cancel --fleet exited $RC: $OUT"
for h in "${HOSTS[@]}"; do
        assert_contains "$OUT" "root@$h: job ${job[$h]} cancelled" "cancel --fleet's line for $h"
        wait_for 60 state_is "$h" "${job[$h]}" cancelled ||
                fail "$h's job ${job[$h]} was not cancelled: $(job_state_on "$h" "${job[$h]}")"
done
fleet_ctl cancel --fleet "$U" "${ALL[@]}"
assert_eq 0 "$RC" "a second cancel --fleet"
assert_contains "$OUT" "root@h2: job ${job[h2]} of the fleet run had ended (cancelled)" "a second cancel --fleet"

log "   cancel --fleet's errors"
fleet_ctl cancel --fleet nope "${ALL[@]}"
assert_eq 2 "$RC" "cancel --fleet with no uuid"
assert_contains "$OUT" "--fleet 'nope' is not a uuid" "cancel --fleet with no uuid"
fleet_ctl cancel --fleet "$U" 7 "${ALL[@]}"
assert_eq 2 "$RC" "cancel with ids and --fleet"
assert_contains "$OUT" "give job ids or --fleet UUID, not both" "cancel with ids and --fleet"
fleet_ctl jobs --fleet "$U" -H root@h1
assert_eq 2 "$RC" "--fleet given to jobs"
assert_contains "$OUT" "jobs: --fleet is for show, compare --by host, report and cancel" "--fleet given to jobs"
fleet_ctl cancel --fleet 0f8fad5b-d9cb-469f-a165-70867728950e -H root@h1
assert_eq 4 "$RC" "cancel --fleet of a uuid no host knows"
assert_contains "$OUT" "root@h1: no job of fleet run 0f8fad5b-d9cb-469f-a165-70867728950e" "its line"

log "ok"
