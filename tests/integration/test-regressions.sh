#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Regressions found without asking, through the real daemon: a write into a directory on an ext4
# loop device gives a run with the loop device's identity; with benchd stopped, 20 comparable
# runs 20 times as fast as this machine is are put before it with sqlite3; the next real run is
# then clearly slower than that history (and so was the one before it): benchd flags it, logs it,
# emits RegressionDetected, and `benchctl regressions` lists it (filters, --json). Runs that are
# much faster than their history are never flagged, and history of another kernel is another
# baseline segment, not a baseline.

. "$(dirname "$0")/lib.sh"

require_root
require_cmd dbus-daemon busctl python3 sqlite3 losetup mkfs.ext4
require_binaries "$BENCHCTL_BIN"

start_bus
start_monitor
scratch_fs 256M ext4 --direct-io
start_benchd

# write_run BS: a 16 MiB O_DIRECT write in BS blocks; prints the run's id.
write_run() {
        run benchctl run --workload write --target "$SCRATCH_DIR" --set size=16M --set block_size="$1" \
                --set direct=true
        [ "$RC" = 0 ] || fail "benchctl run (block_size=$1) exited $RC: $OUT"
        sql "select max(id) from runs"
}

# regression_signals RUN: the RegressionDetected signals for RUN, one "metric change_pct" a line.
regression_signals() {
        python3 - "$MONITOR_LOG" "$1" <<'PY'
import json, sys
path, want = sys.argv[1], int(sys.argv[2])
for line in open(path, errors="replace"):
    line = line.strip()
    if not line.startswith("{"):
        continue
    try:
        m = json.loads(line)
    except ValueError:
        continue
    if m.get("member") != "RegressionDetected":
        continue
    data = m.get("payload", {}).get("data", [])
    if len(data) == 2 and int(data[0]) == want:
        d = data[1]
        print(d["metric"]["data"], round(d["change_pct"]["data"], 1), d["baseline_n"]["data"],
              d["device_identity"]["data"])
PY
}

# ---- 1. a real run: the loop device's identity, the environment, the first of its kind ----
run1=$(write_run 64K)
dev_id=$(sql "select coalesce(device_id, '') from runs where id = $run1")
[ -n "$dev_id" ] || fail "run $run1 has no device_id: the check needs the loop device's identity"
identity=$(sql "select identity from devices where id = $dev_id")
loop=$(basename "$LOOP_DEV")
log "run $run1 on device $dev_id ($identity), $(sql "select round(mb_per_s) from run_summary where id = $run1") MB/s"
assert_eq "$(uname -r)" "$(sql "select json_extract(environment, '\$.kernel') from runs where id = $run1")" \
        "environment.kernel of run $run1"
assert_eq first "$(sql "select baseline_segment from runs where id = $run1")" "baseline_segment of the first run"
assert_eq 0 "$(sql "select count(*) from regressions")" "regressions after one run"

# ---- 2. a history 20 times as fast (and 20 times lower p99): the next run is a regression ----
stop_benchd
seed_history "$run1" 20 20
assert_eq 21 "$(sql "select count(*) from runs where block_size = 65536 and status = 'succeeded'")" "seeded runs"
start_benchd
run2=$(write_run 64K)
assert_eq continues "$(sql "select baseline_segment from runs where id = $run2")" "baseline_segment of run $run2"
assert_eq "lat_p99_ns,mb_per_s" "$(sql "select group_concat(metric) from (select metric from regressions where run_id = $run2 order by metric)")" \
        "flags of run $run2 (history 20x as fast); regressions: $(sql "select * from regressions")"
row=$(sql "select baseline_n, change_pct < -50, value < baseline_median / 2, segment_started_usec <
                  (select started_usec from runs where id = $run1), method like 'median-mad window=20 %'
           from regressions where run_id = $run2 and metric = 'mb_per_s'")
assert_eq "20|1|1|1|1" "$row" "the flag of run $run2 (baseline_n, change, value, segment start, method)"

# The signal came, with the figures, before the job's end; and the log says it.
for ((i = 0; i < 50; i++)); do
        sig=$(regression_signals "$run2" | grep '^mb_per_s ' || true)
        [ -n "$sig" ] && break
        sleep 0.1
done
[ -n "$sig" ] || fail "no RegressionDetected(mb_per_s) for run $run2 on the bus: $(grep -c RegressionDetected "$MONITOR_LOG") signals"
read -r _ change n sig_identity <<<"$sig"
assert_eq 20 "$n" "baseline_n in the signal"
assert_eq "$identity" "$sig_identity" "device_identity in the signal"
awk -v c="$change" 'BEGIN { exit !(c < -50) }' || fail "change_pct in the signal is $change, expected below -50%"
assert_contains "$(cat "$BENCHD_LOG")" "run $run2 (write on $identity" "benchd's log"
assert_contains "$(cat "$BENCHD_LOG")" "regression of mb_per_s" "benchd's log"

# benchctl regressions: the table, --json, the filters.
assert_success "benchctl regressions" benchctl regressions
log "benchctl regressions:
$OUT"
assert_contains "$OUT" "throughput" "benchctl regressions"
assert_contains "$OUT" "$loop" "benchctl regressions"
assert_contains "$OUT" "write 64 KiB" "benchctl regressions"
assert_contains "$OUT" "$run2" "benchctl regressions"
assert_contains "$OUT" "regression" "benchctl regressions legend"
assert_success "benchctl regressions --json" benchctl regressions --json
assert_eq "$run2" "$(json_get '[g["run_id"] for g in d if g["metric"] == "mb_per_s"][0]' <<<"$OUT")" "run_id in --json"
assert_eq "$identity" "$(json_get 'd[0]["device_identity"]' <<<"$OUT")" "device_identity in --json"
assert_eq True "$(json_get 'all(g["change_pct"] != 0 and g["baseline_n"] == 20 for g in d if g["metric"] == "mb_per_s")' <<<"$OUT")" \
        "change_pct and baseline_n in --json"
assert_success "benchctl regressions --device" benchctl regressions --json --device "$loop"
assert_eq True "$(json_get 'any(g["run_id"] == '"$run2"' for g in d)' <<<"$OUT")" "--device $loop"
assert_success "benchctl regressions --device identity" benchctl regressions --json --device "$identity"
assert_eq True "$(json_get 'len(d) >= 1' <<<"$OUT")" "--device $identity"
assert_success "benchctl regressions --device other" benchctl regressions --device nosuchdisk
assert_contains "$OUT" "No regressions found." "--device nosuchdisk"
assert_success "benchctl regressions --since" benchctl regressions --json --since "@$(( $(date +%s) + 3600 ))"
assert_eq 0 "$(json_get 'len(d)' <<<"$OUT")" "--since an hour ahead"
assert_success "benchctl regressions -n 1" benchctl regressions --json -n 1
assert_eq 1 "$(json_get 'len(d)' <<<"$OUT")" "-n 1"
# A filter ListRegressions does not know is refused, naming the keys it does.
call_error ListRegressions 'a{sv}' 1 metric s mib_per_s
assert_contains "$ERR" "org.benchd.Benchd1.Error.InvalidSpec" "ListRegressions metric=mib_per_s"
assert_contains "$ERR" "lat_p99_ns" "ListRegressions metric=mib_per_s"

# ---- 3. a history 10 times as slow: much faster runs are no regression ----
runA=$(write_run 128K)
stop_benchd
seed_history "$runA" 20 0.1
start_benchd
runB=$(write_run 128K)
runB2=$(write_run 128K)
for r in "$runB" "$runB2"; do
        assert_eq 0 "$(sql "select count(*) from regressions where run_id = $r and metric = 'mb_per_s'")" \
                "mb_per_s flag of run $r, 10 times as fast as its history"
        assert_eq continues "$(sql "select baseline_segment from runs where id = $r")" "baseline_segment of run $r"
done
assert_eq "" "$(regression_signals "$runB2" | grep '^mb_per_s ' || true)" "RegressionDetected for a faster run"

# ---- 4. a history on another kernel is another segment, not a baseline ----
runC=$(write_run 256K)
stop_benchd
seed_history "$runC" 20 10 "0.0-old-kernel"
# The seeded runs are before runC; put a real-kernel run after them by running again.
start_benchd
runD=$(write_run 256K)
runE=$(write_run 256K)
assert_eq continues "$(sql "select baseline_segment from runs where id = $runD")" "baseline_segment of run $runD"
assert_eq 0 "$(sql "select count(*) from regressions where run_id in ($runD, $runE)")" \
        "flags of runs $runD, $runE against a history of another kernel"
# A run whose comparable run before it had another kernel says it starts a segment: seed one
# more old-kernel run just before a new one.
stop_benchd
sql "UPDATE runs SET environment = json_set(environment, '\$.kernel', '0.0-old-kernel') WHERE id = $runE"
start_benchd
runF=$(write_run 256K)
assert_eq kernel "$(sql "select baseline_segment from runs where id = $runF")" "baseline_segment after a kernel change"
assert_eq 0 "$(sql "select count(*) from regressions where run_id = $runF")" "flags of the first run of a segment"
assert_contains "$(cat "$BENCHD_LOG")" "run $runF starts a new baseline segment (another kernel)" "benchd's log"

# The whole list still only holds run 2's flags.
assert_eq "$run2" "$(sql "select group_concat(distinct run_id) from regressions")" "flagged runs"
log "ok: run $run2 flagged ($(sql "select group_concat(metric || ' ' || round(change_pct, 1), ', ') from regressions"))"
