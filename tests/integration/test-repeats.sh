#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Repeats until the numbers are stable, and steady state (issue 12), through the real daemon on a
# private bus. The figures that must be steady come from buffered writes to a tmpfs of the test's
# own (memory bandwidth: flat to within a few percent from one sample to the next here), so what is
# judged is the rule, not the machine's disk:
#   1. repeat=2 on the dd profile: 4 runs, (step, repeat) = (0,0) (0,1) (1,0) (1,1), in that order;
#      benchctl show names the repeat;
#   2. until_stddev=50: stable at once, so exactly the minimum of 3 runs, whose relative stddev
#      (computed here in SQL) is indeed below 50%;
#   3. until_stddev=0.001: never stable, so exactly max_repeats=4 runs;
#   4. while a repeat=3 job runs, its Job object says CurrentRepeat and Repeats and benchctl status
#      says "repeat k/3";
#   5. steady_state=bw:50 on a 4 s run ends it after its 1 s window (runs.steady_state 1 and when),
#      bw:0.001 never does (0, the whole runtime), no steady_state leaves it NULL; benchctl show says
#      which;
#   6. what is refused: steady_state without runtime_ms, max_repeats without until_stddev;
#   7. a filesystem matrix with repeat=2 runs in rounds, even of one entry: all its steps, then all
#      again, each round on a filesystem made afresh (two fs_uuids, two mkfs in the daemon's log),
#      runs.round numbering them.

. "$(dirname "$0")/lib.sh"

require_root
require_cmd dbus-daemon busctl python3 sqlite3 losetup mkfs.ext4 wipefs
require_loop
require_fs ext4
require_binaries "$BENCHCTL_BIN"

start_bus
start_udevd
make_loop 128M; SCRATCH=$LOOP_DEV
wipefs -a -q "$SCRATCH"
CONF="$TEST_DIR/benchd.conf"
printf 'ScratchDevices=%s\n' "$SCRATCH" >"$CONF"
start_benchd --config="$CONF"

FAST="$TEST_DIR/tmpfs"
mkdir -p "$FAST"
mount -t tmpfs -o size=128M benchd-test "$FAST"
defer umount_retry "$FAST"
T="$FAST/bench"
mkdir -p "$T"

# runs_of JOB: "step|repeat|status" lines in run order.
runs_of() {
        sql "select step || '|' || \"repeat\" || '|' || status from runs where job_id = $1 order by id"
}

# ---- 1. repeat=2 over two steps ----
log "1. repeat=2 on the dd profile"
run benchctl run --profile dd --target "$T" --set repeat=2 --set size=4M --set direct=false
[ "$RC" = 0 ] || fail "benchctl run --profile dd --set repeat=2 exited $RC: $OUT"
job=$(sql "select max(id) from jobs")
assert_eq succeeded "$(job_state "$job")" "state of the repeat=2 job"
plain_job=$job
assert_eq "0|0|succeeded
0|1|succeeded
1|0|succeeded
1|1|succeeded" "$(runs_of "$job")" "runs of 2 steps × 2 repeats"
assert_eq "write|write|read|read" "$(sql "select group_concat(workload, '|') from (select workload from runs
                                         where job_id = $job order by id)")" "workloads in run order"
assert_contains "$OUT" "(repeat 2)" "benchctl run's run lines name the repeat"
run_id=$(sql "select id from runs where job_id = $job and step = 1 and \"repeat\" = 1")
run benchctl show "$run_id"
assert_contains "$OUT" "step 2 of profile dd, repeat 2" "benchctl show names step and repeat"
assert_not_contains "$OUT" "Steady" "benchctl show of a run that asked for no steady state"
assert_eq 2 "$(sql "select count(*) from run_summary where job_id = $job and step = 0 and mb_per_s > 0")" \
        "run_summary has both repeats of step 0 with a rate"

# ---- 2. until_stddev met: the minimum of 3 runs ----
log "2. until_stddev=50: stable after the minimum"
run benchctl run --workload write --target "$T" --set size=8M --set direct=false --set runtime_ms=400 \
        --set sample_ms=100 --set until_stddev=50 --set max_repeats=10
[ "$RC" = 0 ] || fail "until_stddev=50 exited $RC: $OUT"
job=$(sql "select max(id) from jobs")
# The rule, on the figures the runs recorded (so that a noisy machine, where 3 runs of 400 ms may
# differ by more than 50%, tests it as well as a quiet one, where 3 runs are the rule): at least 3
# runs, all succeeded; a stop at the first count whose relative stddev (sample stddev over mean, of
# MB/s) is under 50%, or at max_repeats; never before.
python3 - "$(sql "select mb_per_s from run_summary where job_id = $job order by id")" \
        "$(sql "select \"repeat\" || '|' || status from runs where job_id = $job order by id")" <<'PY' ||
import statistics, sys
figures = [float(x) for x in sys.argv[1].split()]
runs = sys.argv[2].split()
n = len(runs)
if runs != ["%d|succeeded" % i for i in range(n)] or len(figures) != n:
    sys.exit("runs %s, figures %s: expected repeats 0..n-1, all succeeded, each with a figure" % (runs, figures))
def rsd(v):
    return 100 * statistics.stdev(v) / statistics.mean(v)
print("until_stddev=50: %d runs, relative stddev of the first 3..%d: %s"
      % (n, n, ", ".join("%.1f%%" % rsd(figures[:k]) for k in range(3, n + 1))))
if n < 3:
    sys.exit("stopped after %d runs, before the minimum of 3" % n)
for k in range(3, n):
    if rsd(figures[:k]) < 50:
        sys.exit("went on after %d runs whose relative stddev was %.1f%%, under 50%%" % (k, rsd(figures[:k])))
if rsd(figures) >= 50 and n != 10:
    sys.exit("stopped after %d runs whose relative stddev is %.1f%%, not under 50%%, before max_repeats" % (n, rsd(figures)))
PY
        fail "until_stddev=50 did not stop where the rule says (above)"

# ---- 3. until_stddev never met: max_repeats ----
log "3. until_stddev=0.001: never stable, max_repeats=4"
run benchctl run --workload write --target "$T" --set size=8M --set direct=false --set runtime_ms=300 \
        --set sample_ms=100 --set until_stddev=0.001 --set max_repeats=4
[ "$RC" = 0 ] || fail "until_stddev=0.001 exited $RC: $OUT"
job=$(sql "select max(id) from jobs")
assert_eq "0|0|succeeded
0|1|succeeded
0|2|succeeded
0|3|succeeded" "$(runs_of "$job")" "until_stddev=0.001 runs max_repeats=4 times"
assert_eq '"0.001"' "$(sql "select json_quote(json_extract(spec, '\$.until_stddev')) from jobs where id = $job")" \
        "jobs.spec keeps until_stddev as given"

# ---- 4. the Job object and benchctl status while it repeats ----
log "4. CurrentRepeat and Repeats while a repeat=3 job runs"
job=$(benchctl submit --workload write --target "$T" --set size=8M --set direct=false --set runtime_ms=1200 \
        --set repeat=3 | grep -o '[0-9]\+' | head -1)
[ -n "$job" ] || fail "benchctl submit printed no job id"
assert_eq "u 3" "$(job_prop "$job" Repeats)" "Repeats of a repeat=3 job"
in_second_run() { [ "$(job_prop "$job" CurrentRepeat 2>/dev/null)" = "u 1" ]; }
wait_for 30 in_second_run || fail "job $job did not get to its second run: $(job_prop "$job" CurrentRepeat)"
run benchctl status "$job"
assert_contains "$OUT" "3 runs of each step" "benchctl status: the repeats asked for"
assert_contains "$OUT" "repeat 2/3" "benchctl status: the current repeat"
progress=$(job_prop "$job" Progress | awk '{print $2}')
python3 -c "import sys; p = float('$progress'); sys.exit(0 if 1/3 - 0.01 <= p <= 2/3 + 0.01 else 1)" \
        || fail "Progress $progress in the second of 3 runs is not within [1/3, 2/3]"
wait_job_state "$job" succeeded 30
assert_eq 3 "$(sql "select count(*) from runs where job_id = $job")" "runs of the repeat=3 job"

# ---- 5. steady state ----
log "5. steady_state reached, not reached, not asked"
run benchctl run --workload write --target "$T" --set size=8M --set direct=false --set runtime_ms=4000 \
        --set sample_ms=200 --set steady_state=bw:50 --set steady_state_window_ms=1000
[ "$RC" = 0 ] || fail "steady_state=bw:50 exited $RC: $OUT"
job=$(sql "select max(id) from jobs")
assert_eq "1" "$(sql "select steady_state from runs where job_id = $job")" "runs.steady_state when reached"
usec=$(sql "select steady_state_usec from runs where job_id = $job")
assert_between 900000 "$usec" 2500000 "steady_state_usec: once the 1 s window is full"
dur=$(sql "select duration_usec from runs where job_id = $job")
assert_between "$usec" "$dur" $((usec + 600000)) "the run ended where it was steady (duration_usec)"
run_id=$(sql "select id from runs where job_id = $job")
run benchctl show "$run_id"
assert_contains "$OUT" "bw:50% reached after" "benchctl show: steady state reached"

run benchctl run --workload write --target "$T" --set size=8M --set direct=false --set runtime_ms=2000 \
        --set sample_ms=200 --set steady_state=bw:0.001 --set steady_state_window_ms=1000
[ "$RC" = 0 ] || fail "steady_state=bw:0.001 exited $RC: $OUT"
job=$(sql "select max(id) from jobs")
assert_eq "0|" "$(sql "select steady_state || '|' || coalesce(steady_state_usec, '') from runs where job_id = $job")" \
        "runs.steady_state when too strict to be reached"
assert_between 1900000 "$(sql "select duration_usec from runs where job_id = $job")" 2600000 \
        "a run not steady goes its whole runtime"
run benchctl show "$(sql "select id from runs where job_id = $job")"
assert_contains "$OUT" "bw:0.001% not reached" "benchctl show: steady state not reached"
assert_eq 4 "$(sql "select count(*) from runs where job_id = $plain_job and steady_state is null
                   and steady_state_usec is null")" "runs that asked for no steady state have steady_state NULL"

# ---- 6. refused at SubmitJob ----
log "6. refusals"
run benchctl submit --workload write --target "$T" --set steady_state=iops:5
assert_ne 0 "$RC" "steady_state without runtime_ms is refused"
assert_contains "$OUT" "steady_state: iops:5 needs a time-based run" "the message says why"
run benchctl submit --workload write --target "$T" --set max_repeats=5
assert_ne 0 "$RC" "max_repeats without until_stddev is refused"
assert_contains "$OUT" "max_repeats: 5 given without until_stddev" "the message says why"
run benchctl submit --workload write --target "$T" --set until_stddev=5 --set repeat=12
assert_ne 0 "$RC" "max_repeats below repeat with until_stddev is refused"
assert_contains "$OUT" "max_repeats: 10 is fewer than the 12 runs" "the message says why"

# ---- 7. a matrix with repeats runs in rounds, each on a filesystem made afresh ----
log "7. filesystems=ext4 with repeat=2 on $SCRATCH"
made_before=$(grep -c ': ext4 made in ' "$BENCHD_LOG" || true)
run benchctl run --profile dd --set filesystems=ext4 --set devices="$SCRATCH" --set destructive=true \
        --set size=4M --set repeat=2
[ "$RC" = 0 ] || fail "the matrix job with repeat=2 exited $RC: $OUT"
job=$(sql "select max(id) from jobs")
assert_eq "0|0|succeeded
1|0|succeeded
0|1|succeeded
1|1|succeeded" "$(runs_of "$job")" "matrix runs: 2 rounds of 2 steps"
assert_eq "0 0 1 1" "$(sql "select group_concat(round, ' ') from (select round from runs where job_id = $job order by id)")" \
        "the runs' rounds"
assert_eq 2 "$(sql "select count(distinct fs_uuid) from runs where job_id = $job and fs_uuid is not null")" \
        "a filesystem per round"
assert_eq 0 "$(sql "select count(*) from (select round from runs where job_id = $job group by round
        having count(distinct fs_uuid) != 1 or count(fs_uuid) != 2)")" "a round's steps on its one filesystem"
made_after=$(grep -c ': ext4 made in ' "$BENCHD_LOG" || true)
assert_eq 2 $((made_after - made_before)) "mkfs runs of the matrix job (benchd's log)"

log "ok"
